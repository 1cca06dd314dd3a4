/* report.h - the report module's interface: everything after the journal.
 *
 * Reads run directories (run.json + results.jsonl, as the README's "The journal" defines them)
 * through journal/journal.h and nothing of the runner; writes summary.json,
 * matrix-<scenario>.csv, report.md, report.html and charts/ into an output directory. The same
 * journals give byte-identical outputs: no wall clock, no locale, no hash order reaches a file. */
#ifndef NS_REPORT_H
#define NS_REPORT_H

#include <stdbool.h>
#include <stdio.h>

struct err;

struct report_result;

struct report_opts {
    const char *const *dirs; /* run directories, merged into one report when several */
    int ndirs;
    const char *out; /* where the outputs go (created if missing); the run directory for one */
    FILE *warn;   /* warnings (a journal line skipped, a chart gnuplot could not draw, a run still
                   * going or incomplete), one a line; NULL: dropped */
    bool lenient; /* a journal record the journal refuses (another schema version, an
                   * unknown status, another run's) is listed, not an error */
    bool owned_by_caller;         /* the caller is the netsurvey run that holds the run directory */
    struct report_result *result; /* filled when not NULL */
};

/* What the reports found: the runs are complete, or not, or still going. */
struct report_result {
    bool in_progress; /* a run's directory is held by a live netsurvey */
    bool incomplete;  /* a run is in progress, or has planned trials without a record */
    bool unwritten;   /* the journals were read, the outputs could not be written */
};

/* Render every report of o->dirs into o->out: what `netsurvey report` does, and `netsurvey
 * run` when a survey ends. Charts need gnuplot (NETSURVEY_GNUPLOT names it, else PATH);
 * without it the reports say that charts were skipped. The outputs are built in a directory of
 * their own inside o->out and moved into place; the outputs of the previous build that this
 * one does not make are removed (only those, as the manifest .netsurvey-outputs lists them).
 * Returns 0 or NS_E* with detail in e (NS_EPROTO: a record the journal refuses; NS_EINVAL: runs
 * that cannot be merged). Call it when no other thread uses jansson: while it runs, jansson
 * allocates from the report's own chunks (json_set_alloc_funcs is process-wide); it restores
 * the allocator. */
int report_render(const struct report_opts *o, struct err *e);

struct report_compare_opts {
    const char *base_dir, *new_dir;
    const char *out;           /* compare.md and compare.html go here (created if missing) */
    double max_regression_pct; /* a significantly worse cell beyond this is a regression */
    FILE *echo;                /* compare.md is also written here; NULL: not echoed */
    FILE *warn;                /* a journal line skipped, one a line; NULL: dropped */
};

struct report_compare_result {
    unsigned regressions; /* cells significantly worse by more than max_regression_pct */
};

/* Compare the zone cells of two run directories (Welch's t-test, alpha 0.05) into
 * o->out/compare.{md,html}. Returns 0 with r filled, or NS_E* (a journal unreadable, an
 * output not written) with detail in e. */
int report_compare(const struct report_compare_opts *o, struct report_compare_result *r,
                   struct err *e);

#endif
