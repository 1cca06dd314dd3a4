/* report.h - the report module's interface: everything after the journal.
 *
 * Reads run directories (run.json + results.jsonl, the README's section "The journal") through
 * journal/journal.h and nothing of the runner; writes summary.json, matrix-<scenario>.csv, report.md, report.html and charts/ into an
 * output directory. The same journals give byte-identical outputs: no wall clock, no locale, no
 * hash order reaches a file. */
#ifndef NS_REPORT_H
#define NS_REPORT_H

struct err;

/* Render every report of the run directory dir into dir itself: what `netsurvey run` calls when
 * a survey ends. Charts need gnuplot (NETSURVEY_GNUPLOT names it, else PATH); without it the
 * reports say that charts were skipped. Warnings (a torn last journal line, gnuplot failing) go
 * to stderr. Returns 0 or NS_E* with detail in e.
 * Call it when no other thread uses jansson: while it runs, jansson allocates from the
 * report's own chunks (json_set_alloc_funcs is process-wide); it restores the allocator. */
int report_render_dir(const char *dir, struct err *e);

/* Render the merged report of ndirs run directories into out (created if missing). */
int report_render_dirs(const char *const *dirs, int ndirs, const char *out, struct err *e);

/* `netsurvey report DIR [DIR...] [-o OUT]`; argv[0] is "report". Returns an exit status. */
int report_cmd_report(int argc, char **argv);

/* `netsurvey compare BASE_DIR NEW_DIR [--max-regression PCT] [-o OUT]`; argv[0] is "compare".
 * Exit status 0, 1 when a cell is significantly worse by more than PCT, 2 on usage errors. */
int report_cmd_compare(int argc, char **argv);

#endif
