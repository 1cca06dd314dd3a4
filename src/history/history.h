/* history.h - the history module's interface: many runs read and judged against each other.
 * `netsurvey compare` (a baseline gate over two runs: Welch per zone cell, Holm, TOST, JUnit)
 * and `netsurvey trend` (each cell across runs in time order). Runs are read through the report
 * module's summaries (report/report.h), never through its internals.
 *
 * trend: `netsurvey trend`: runs of one plan (or of several, on what they share) in time
 * order, cell by cell, as netsurvey(1)'s TREND defines it.
 *
 * A run directory is read as `netsurvey report` reads it, its zone cells only (report_cells_read:
 * the summary's numbers without its histograms and host pairs); scenarios and zone cells
 * are matched across runs as `compare` matches them (report/cells.h). Runs are put in the order
 * of run.json's start time, whatever order they are given in. Outputs: trend.md, trend.html,
 * trend-<scenario>.csv and charts/trend-<scenario>.{gp,dat,svg}, the same bytes for the same
 * journals (no wall clock, locale or hash order reaches a file). */
#ifndef NS_HISTORY_H
#define NS_HISTORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct err;

#define HISTORY_TREND_JOBS_MAX 4 /* runs read at once by default: each holds its journal */

struct history_trend_opts {
    const char *const *dirs; /* run directories, in any order, at least two */
    int ndirs;
    const char *out;           /* where the outputs go (created with its parents); NULL: the
                                * newest run's directory */
    double max_regression_pct; /* a cell whose mean leaves its first run's 95 % CI by more than
                                * this (in % of that run's mean, the bad way) is flagged */
    int jobs;                  /* runs read at once, each by a child process of its own; 0: the
                                * CPUs online, at most HISTORY_TREND_JOBS_MAX; 1: in this process */
    FILE *warn;                /* a journal line skipped, a chart not drawn; NULL: dropped */
};

/* Why history_trend failed, for the command line's exit status. */
enum history_trend_failure {
    HISTORY_TREND_JOURNAL, /* a run could not be read (or has no start time) */
    HISTORY_TREND_OUTPUT,  /* an output could not be written, or memory ran out */
    HISTORY_TREND_USAGE,   /* fewer than two runs, or one run given twice */
};

struct history_trend_result {
    size_t runs;               /* runs read */
    size_t scenarios;          /* scenarios trended (shared by two runs or more) */
    size_t cells;              /* their zone cells */
    size_t flagged;            /* cells that left their first run's CI by more than the threshold */
    size_t not_trended;        /* scenarios found in one run only */
    size_t incomplete;         /* runs that are not complete (or still in progress) */
    char *out;                 /* where the outputs went (owned) */
    char *flags;               /* one line per flagged cell, capped; or NULL */
    size_t newest_failed;      /* cells whose newest run has no ok trial (failed or not run) */
    char *newest_failed_cells; /* one line per such cell, capped; or NULL */
    enum history_trend_failure failure; /* on error */
};

/* Read o->dirs, put them in time order and write the trend into o->out. Returns 0 with r filled,
 * or NS_E* with r->failure and detail in e. Release r with history_trend_result_release either
 * way. Call it when no other thread uses jansson: while a run is read, jansson allocates from
 * the report's own chunks (report_render says why). */
int history_trend(const struct history_trend_opts *o, struct history_trend_result *r,
                  struct err *e);
void history_trend_result_release(struct history_trend_result *r);

/* How compare corrects its per-cell tests for their number (netsurvey(1)'s COMPARE). */
enum history_correction {
    HISTORY_CORRECTION_HOLM, /* Holm-Bonferroni step-down: the default */
    HISTORY_CORRECTION_BONFERRONI,
    HISTORY_CORRECTION_NONE,
};

struct history_compare_opts {
    const char *base_dir, *new_dir;
    const char *out;           /* compare.md and compare.html go here (created with its parents) */
    double max_regression_pct; /* a worse cell beyond this is a regression */
    double min_effect_pct;     /* smaller changes are never worse or better; the margin of
                                * "same" (0: no equivalence verdict) */
    enum history_correction correction;
    bool allow_partial;      /* baseline cells without a counterpart, and matched cells with
                              * failed or not-run trials, do not fail the gate */
    bool allow_param_change; /* a scenario of both runs whose parameters differ is compared
                              * (each difference named in every output), not refused */
    const char *junit;       /* JUnit XML written here when not NULL (parents created) */
    const char *md_summary;  /* the short Markdown summary written here when not NULL */
    FILE *echo;              /* compare.md is also written here; NULL: not echoed */
    FILE *warn;              /* a journal line skipped, one a line; NULL: dropped */
};

/* Why history_compare failed, for the command line's exit status. */
enum history_compare_failure {
    HISTORY_COMPARE_JOURNAL,        /* a run could not be read */
    HISTORY_COMPARE_OUTPUT,         /* an output could not be written, or memory ran out */
    HISTORY_COMPARE_NOT_COMPARABLE, /* the two sides hold one run, or a scenario of both ran
                                     * other parameters (without allow_param_change) */
    HISTORY_COMPARE_USAGE,          /* an output over a run's own file or another output, or
                                     * out another run's directory: nothing read or written */
};

/* What the gate says. */
enum history_gate {
    HISTORY_GATE_PASSED,
    HISTORY_GATE_REGRESSION, /* some cell is worse by more than max_regression_pct */
    HISTORY_GATE_INCOMPLETE, /* no regression, but nothing was compared, or a baseline cell had
                              * no counterpart to be compared with (without allow_partial) */
};

struct history_compare_result {
    enum history_gate gate;
    enum history_compare_failure failure; /* on error */
    unsigned regressions;                 /* cells worse by more than max_regression_pct */
    size_t matched, compared;      /* cells in both runs; of them, with 2 trials or more a side */
    size_t base_missing;           /* baseline cells without ok trials in the new run */
    size_t base_scenarios_missing; /* baseline scenarios the new run does not have */
    size_t untested;               /* matched cells with fewer than 2 trials on a side */
    size_t partial;                /* matched cells with failed or not-run trials on a side */
    char *param_changes;           /* each scenario of both runs that ran other parameters and
                                    * how ("lat (tcp_rr, ipv4): msg_size 250 → 65536"), one a
                                    * line, also when refused for them; or NULL */
    char *unmatched;               /* what had no counterpart, one a line, capped; or NULL */
};

/* Compare the zone cells of two run directories into o->out/compare.{md,html} (and the JUnit
 * XML and Markdown summary when asked): Welch's t-test per matched cell at alpha 0.05, the
 * family of cells corrected as o->correction says, verdicts and the gate as netsurvey(1)'s
 * "compare" defines them. Two sides that hold one run (a run against itself or a copy), and a
 * scenario of both whose parameters differ (unless o->allow_param_change), are refused before
 * anything is written, the reason in e; so are an output file over a run's own journal files
 * or over another output, and an o->out that is another run's directory than BASE's and NEW's.
 * Returns 0 with r filled, or NS_E* with r->failure and detail in e. Release r with
 * history_compare_result_release either way. */
int history_compare(const struct history_compare_opts *o, struct history_compare_result *r,
                    struct err *e);
void history_compare_result_release(struct history_compare_result *r);

#endif
