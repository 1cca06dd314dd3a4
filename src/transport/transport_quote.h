/* transport_quote.h - POSIX shell quoting for remote command lines. Every argument that reaches a
 * remote shell goes through here: wrapped in single quotes, each embedded ' written as '\'',
 * so that no byte of it ($, `, ;, ", \, newline...) is ever interpreted by the shell. The
 * quoting itself is common/shquote.h's, which the command line's printed commands share. */
#ifndef NS_TRANSPORT_TRANSPORT_QUOTE_H
#define NS_TRANSPORT_TRANSPORT_QUOTE_H

#include "common/shquote.h"

/* Bytes transport_quote_arg needs for s, terminating NUL included. */
static inline size_t
transport_quote_len(const char *s)
{
    return shquote_len(s);
}

/* Write s single-quoted into out (len bytes). Returns the length written (excluding the NUL),
 * or -1 when out is too small (out is then an empty string). */
static inline long
transport_quote_arg(const char *s, char *out, size_t len)
{
    return shquote_arg(s, out, len);
}

/* argv[0..] (NULL-terminated) quoted and joined by spaces, appended after prefix (copied
 * verbatim; may be NULL). Returns a malloc'd string the caller frees, NULL when out of memory. */
static inline char *
transport_quote_argv(const char *prefix, const char *const *argv)
{
    return shquote_argv(prefix, argv);
}

#endif
