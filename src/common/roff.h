/* roff.h - text for manual pages (man(7) macros), written from the same tables as --help: the
 * option and exit status lists of netsurvey(1) and nsperf(1) are printed by the programs
 * themselves (`netsurvey --man-options`, `nsperf --man-options`) and spliced into the pages. */
#ifndef NS_ROFF_H
#define NS_ROFF_H

#include <stdio.h>

/* The marker lines around a generated block in a page: ".\" @generated NAME" ... ".\" @end". */
void roff_block_begin(FILE *out, const char *name);
void roff_block_end(FILE *out);

/* text as roff body text: backslash and hyphen-minus escaped ('-' as \-, so that an option
 * copied from the page is the option), a line that would start with '.' or '\'' guarded. */
void roff_text(FILE *out, const char *text);

/* A synopsis or usage text in roff: options (-x, --xx) bold, operands and values in capitals
 * (PLAN, DIR) italic, the rest roman; a value is not broken from its option ("-o DIR"). For
 * a .SY/.YS block (man(7)'s synopsis macros, which indent what wraps). */
void roff_synopsis(FILE *out, const char *text);

/* One entry of an option list (.TP): "-o, --output DIR" then its help. short_name 0: none;
 * arg NULL: the option takes no value. */
void roff_option(FILE *out, char short_name, const char *name, const char *arg, const char *help);

/* One entry of an exit status list (.TP): the status in bold, then what it means. */
void roff_exit(FILE *out, int status, const char *meaning);

#endif
