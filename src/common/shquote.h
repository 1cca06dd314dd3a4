/* shquote.h - POSIX shell quoting, for remote command lines (transport) and for the command
 * lines netsurvey prints for people to paste (the run's resume and report lines, the report's
 * "Reproduce this report", the command run.json records). Inside '...' a POSIX shell gives no
 * byte a meaning but the closing quote, so each embedded ' is written '\'' and no byte of an
 * argument ($, `, ;, ", \, a space, a newline...) is ever interpreted. */
#ifndef NS_SHQUOTE_H
#define NS_SHQUOTE_H

#include <stddef.h>

/* Bytes shquote_arg needs for s, terminating NUL included. */
size_t shquote_len(const char *s);

/* Write s single-quoted into out (len bytes). Returns the length written (excluding the NUL),
 * or -1 when out is too small (out is then an empty string). */
long shquote_arg(const char *s, char *out, size_t len);

/* argv[0..] (NULL-terminated) quoted and joined by spaces, appended after prefix (copied
 * verbatim; may be NULL). Returns a malloc'd string the caller frees, NULL when out of memory. */
char *shquote_argv(const char *prefix, const char *const *argv);

/* s as one shell word for people to read and paste: as it is when every byte is one a shell
 * leaves alone (letters, digits and @ % + = : , . / _ -), else shquote_arg's form. The same
 * contract as shquote_arg. */
long shquote_word(const char *s, char *out, size_t len);

#endif
