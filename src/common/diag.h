/* diag.h - lists of diagnostics about a file a user wrote (a plan, an inventory), each
 * "file:line:col: message" in git's manner, sorted by position: what `netsurvey check` prints.
 * Text from the file is escaped in messages (control and bidi characters), so that a hostile
 * value cannot forge or reorder what a terminal shows. */
#ifndef NS_DIAG_H
#define NS_DIAG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define DIAG_MAX 200 /* diagnostics kept per list; further ones are counted, not kept */

/* What a diagnostic is: a problem (the file is refused), or text printed beside the problems
 * that does not make the file invalid. */
enum diag_severity {
    DIAG_ERROR,   /* "file:line:col: message" */
    DIAG_WARNING, /* "file:line:col: warning: message" */
    DIAG_NOTE,    /* "file:line:col: note: message": what was made of the inputs */
};

struct diags; /* opaque list */

/* A new, empty list; NULL when out of memory. diags_free(NULL) is safe. */
struct diags *diags_new(void);
void diags_free(struct diags *d);

/* Number of diagnostics kept (sorted by position once diag_sort ran). */
size_t diags_count(const struct diags *d);
/* The i-th diagnostic as "file:line:col: message" ("file: message" when it has no position);
 * NULL past the end. */
const char *diags_text(const struct diags *d, size_t i);
/* The i-th diagnostic's message alone and its 1-based position (0, 0 when none). */
const char *diags_message(const struct diags *d, size_t i, unsigned *line, unsigned *col);
/* Print every diagnostic, one a line, then how many more were not kept. */
void diags_write(const struct diags *d, FILE *out);

/* Add a diagnostic at file:line:col (line 0: "file: message"). Returns NS_ENOMEM if it could
 * not be stored (diag_oom then says so for good), else 0. */
int diag_report(struct diags *d, enum diag_severity sev, const char *file, unsigned line,
                unsigned col, const char *fmt, ...) __attribute__((format(printf, 6, 7)));
/* diag_report of a DIAG_ERROR, DIAG_WARNING, DIAG_NOTE. */
int diag_add(struct diags *d, const char *file, unsigned line, unsigned col, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
int diag_warn(struct diags *d, const char *file, unsigned line, unsigned col, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
int diag_note(struct diags *d, const char *file, unsigned line, unsigned col, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* Stable sort by position; file-level messages first. */
void diag_sort(struct diags *d);
/* Total problems (DIAG_ERROR) reported, including those beyond DIAG_MAX. */
size_t diag_total(const struct diags *d);
bool diag_oom(const struct diags *d);

/* 1 + the byte offset of the first control, C1 or bidi-override character of text; 0 if none
 * (multiline: newlines and tabs are fine). */
size_t diag_text_control(const char *text, bool multiline);

#endif
