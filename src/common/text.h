/* text.h - text that came from the network, made safe to print on a terminal. */
#ifndef NS_TEXT_H
#define NS_TEXT_H

#include <stdbool.h>
#include <stddef.h>

/* Copy in to out (cap bytes, always NUL-terminated, truncated if needed) with every ASCII
 * control character (0x00-0x1f, 0x7f: ESC, newline, carriage return, ...) written as \xHH and
 * backslash as \\, so that a peer's text cannot move the cursor, recolour the terminal or
 * forge a line of its own. Other bytes (UTF-8) pass. Returns out. */
char *text_escape(const char *in, char *out, size_t cap);

/* Whether s is a name netsurvey takes for a plan, host or scenario (and an inventory's machine
 * name it can use as one): 1 to 64 of A-Z a-z 0-9 . _ -, not starting with '-' or '.', so that
 * it is safe in file names, shell words and reports. */
bool text_name_ok(const char *s);

#endif
