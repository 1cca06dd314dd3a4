/* report.h - the report module's interface: everything after the journal.
 *
 * Reads run directories (run.json + results.jsonl, as the README's "The journal" defines them)
 * through journal/journal.h and nothing of the runner; writes summary.json,
 * matrix-<scenario>.csv, report.md, report.html and charts/ into an output directory. The same
 * journals give byte-identical outputs: no wall clock, no locale, no hash order reaches a file. */
#ifndef NS_REPORT_H
#define NS_REPORT_H

#include <stdbool.h>
#include <stddef.h>
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
    /* Group cells by physical zone (each host's zone_id) instead of the zone label; NS_EINVAL,
     * naming the hosts, when some host has no zone_id (`netsurvey report --by zone_id`). */
    bool by_zone_id;
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

/* How compare corrects its per-cell tests for their number (the README's "compare"). */
enum report_correction {
    REPORT_CORRECTION_HOLM, /* Holm-Bonferroni step-down: the default */
    REPORT_CORRECTION_BONFERRONI,
    REPORT_CORRECTION_NONE,
};

struct report_compare_opts {
    const char *base_dir, *new_dir;
    const char *out;           /* compare.md and compare.html go here (created with its parents) */
    double max_regression_pct; /* a worse cell beyond this is a regression */
    double min_effect_pct;     /* smaller changes are never worse or better; the margin of
                                * "same" (0: no equivalence verdict) */
    enum report_correction correction;
    bool allow_partial;     /* baseline cells without a counterpart do not fail the gate */
    const char *junit;      /* JUnit XML written here when not NULL (parents created) */
    const char *md_summary; /* the short Markdown summary written here when not NULL */
    FILE *echo;             /* compare.md is also written here; NULL: not echoed */
    FILE *warn;             /* a journal line skipped, one a line; NULL: dropped */
};

/* What the gate says. */
enum report_gate {
    REPORT_GATE_PASSED,
    REPORT_GATE_REGRESSION, /* some cell is worse by more than max_regression_pct */
    REPORT_GATE_INCOMPLETE, /* no regression, but nothing was compared, or a baseline cell had
                             * no counterpart to be compared with (without allow_partial) */
};

struct report_compare_result {
    enum report_gate gate;
    unsigned regressions;          /* cells worse by more than max_regression_pct */
    size_t matched, compared;      /* cells in both runs; of them, with 2 trials or more a side */
    size_t base_missing;           /* baseline cells without ok trials in the new run */
    size_t base_scenarios_missing; /* baseline scenarios the new run does not have */
    size_t untested;               /* matched cells with fewer than 2 trials on a side */
    char *unmatched;               /* what had no counterpart, one a line, capped; or NULL */
    bool output_failed;            /* on error: an output (or memory) failed, not a journal */
};

/* Compare the zone cells of two run directories into o->out/compare.{md,html} (and the JUnit
 * XML and Markdown summary when asked): Welch's t-test per matched cell at alpha 0.05, the
 * family of cells corrected as o->correction says, verdicts and the gate as the README's
 * "compare" defines them. Returns 0 with r filled, or NS_E* (a journal unreadable: r->
 * output_failed false; an output not written or memory exhausted: true) with detail in e.
 * Release r with report_compare_result_release either way. */
int report_compare(const struct report_compare_opts *o, struct report_compare_result *r,
                   struct err *e);
void report_compare_result_release(struct report_compare_result *r);

#endif
