/* trend.h - `netsurvey trend`: runs of one plan (or of several, on what they share) in time
 * order, cell by cell, as the README's section "trend" defines it.
 *
 * A run directory is read as `netsurvey report` reads it, its zone cells only (rcell_load_cells:
 * the summary's numbers without its histograms and host pairs); scenarios and zone cells
 * are matched across runs as `compare` matches them (report/cells.h). Runs are put in the order
 * of run.json's start time, whatever order they are given in. Outputs: trend.md, trend.html,
 * trend-<scenario>.csv and charts/trend-<scenario>.{gp,dat,svg}, the same bytes for the same
 * journals (no wall clock, locale or hash order reaches a file). */
#ifndef NS_REPORT_TREND_H
#define NS_REPORT_TREND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct err;

#define REPORT_TREND_JOBS_MAX 4 /* runs read at once by default: each holds its journal */

struct report_trend_opts {
    const char *const *dirs; /* run directories, in any order, at least two */
    int ndirs;
    const char *out;           /* where the outputs go (created with its parents); NULL: the
                                * newest run's directory */
    double max_regression_pct; /* a cell whose mean leaves its first run's 95 % CI by more than
                                * this (in % of that run's mean, the bad way) is flagged */
    int jobs;                  /* runs read at once, each by a child process of its own; 0: the
                                * CPUs online, at most REPORT_TREND_JOBS_MAX; 1: in this process */
    FILE *warn;                /* a journal line skipped, a chart not drawn; NULL: dropped */
};

/* Why report_trend failed, for the command line's exit status. */
enum report_trend_failure {
    REPORT_TREND_JOURNAL, /* a run could not be read (or has no start time) */
    REPORT_TREND_OUTPUT,  /* an output could not be written, or memory ran out */
    REPORT_TREND_USAGE,   /* fewer than two runs, or one run given twice */
};

struct report_trend_result {
    size_t runs;        /* runs read */
    size_t scenarios;   /* scenarios trended (shared by two runs or more) */
    size_t cells;       /* their zone cells */
    size_t flagged;     /* cells that left their first run's CI by more than the threshold */
    size_t not_trended; /* scenarios found in one run only */
    size_t incomplete;  /* runs that are not complete (or still in progress) */
    char *out;          /* where the outputs went (owned) */
    char *flags;        /* one line per flagged cell, capped; or NULL */
    enum report_trend_failure failure; /* on error */
};

/* Read o->dirs, put them in time order and write the trend into o->out. Returns 0 with r filled,
 * or NS_E* with r->failure and detail in e. Release r with report_trend_result_release either
 * way. Call it when no other thread uses jansson: while a run is read, jansson allocates from
 * the report's own chunks (report_render says why). */
int report_trend(const struct report_trend_opts *o, struct report_trend_result *r, struct err *e);
void report_trend_result_release(struct report_trend_result *r);

#endif
