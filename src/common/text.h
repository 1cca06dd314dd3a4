/* text.h - text that came from the network, made safe to print on a terminal. */
#ifndef NS_TEXT_H
#define NS_TEXT_H

#include <stddef.h>

/* Copy in to out (cap bytes, always NUL-terminated, truncated if needed) with every ASCII
 * control character (0x00-0x1f, 0x7f: ESC, newline, carriage return, ...) written as \xHH and
 * backslash as \\, so that a peer's text cannot move the cursor, recolour the terminal or
 * forge a line of its own. Other bytes (UTF-8) pass. Returns out. */
char *text_escape(const char *in, char *out, size_t cap);

#endif
