/* transport_quote.h - POSIX shell quoting for remote command lines. Every argument that reaches a
 * remote shell goes through here: wrapped in single quotes, each embedded ' written as '\'',
 * so that no byte of it ($, `, ;, ", \, newline...) is ever interpreted by the shell. */
#ifndef NS_TRANSPORT_TRANSPORT_QUOTE_H
#define NS_TRANSPORT_TRANSPORT_QUOTE_H

#include <stddef.h>

/* Bytes transport_quote_arg needs for s, terminating NUL included. */
size_t transport_quote_len(const char *s);

/* Write s single-quoted into out (len bytes). Returns the length written (excluding the NUL),
 * or -1 when out is too small (out is then an empty string). */
long transport_quote_arg(const char *s, char *out, size_t len);

/* argv[0..] (NULL-terminated) quoted and joined by spaces, appended after prefix (copied
 * verbatim; may be NULL). Returns a malloc'd string the caller frees, NULL when out of memory. */
char *transport_quote_argv(const char *prefix, const char *const *argv);

#endif
