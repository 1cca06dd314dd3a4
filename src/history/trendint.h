/* trendint.h - the parts of `netsurvey trend` (internal to src/history): trendload.c reads the
 * runs (in parallel, each by a child process) into small summaries and puts them in time order;
 * trend.c matches their scenarios and cells and decides what is flagged; trendout.c writes the
 * CSVs, charts, trend.md and trend.html. */
#ifndef NS_HISTORY_TRENDINT_H
#define NS_HISTORY_TRENDINT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/testspec.h"
#include "history/history.h"

struct err;

/* One run, as the trend reads it. */
struct trun {
    char *dir;    /* as given */
    size_t given; /* its place among the directories given */
    char *run_id, *started;
    int64_t t_s; /* run.json's start, seconds since the epoch, and nanoseconds */
    int32_t t_ns;
    json_t *sum;        /* its summary, reduced to what the trend reads (trendload.c); owned */
    char *warnings;     /* what reading it said (skipped journal lines), or NULL */
    const char *state;  /* run.json's state ("complete", "interrupted", ...), or NULL (version 1) */
    uint64_t planned;   /* trials planned, over its scenarios (0: run.json does not say) */
    uint64_t recorded;  /* trials with a record, ok or failed (from its summary) */
    bool in_progress;   /* a live `netsurvey run` holds the directory (journal_owner) */
    bool adaptive;      /* a scenario of it has adaptive trials (run.json's planned is min's) */
    uint64_t undecided; /* host pairs of adaptive trials whose rule has not decided (planned is
                         * then the least the run takes) */
    bool incomplete;    /* planned trials without a record, or undecided pairs */
};

/* Read run.json of every directory, refuse a run given twice or without a start time, and sort
 * the runs by start time (then run_id, then directory). *out holds n runs; free with
 * history_trend_runs_free. On error: NS_EINVAL (given twice: a usage error) or the journal's NS_E*.
 */
int history_trend_runs_open(const char *const *dirs, size_t n, struct trun **out, struct err *e);
/* Load the summaries of the n runs, jobs at a time (0: the CPUs online, capped; 1: in this
 * process). Each run's warnings are kept, to be told in time order. */
int history_trend_runs_load(struct trun *runs, size_t n, int jobs, struct err *e);
void history_trend_runs_free(struct trun *runs, size_t n);

/* Parse an ISO 8601 time as run.json's `started` holds it (2026-11-30T15:00:00.123Z, or an
 * offset +HH:MM); false when it is not one. */
bool history_trend_parse_time(const char *s, int64_t *sec, int32_t *nsec);

/* A zone cell across the columns (runs) of its scenario. */
struct tcell {
    const char *src, *dst;
    const json_t **c;   /* per column: the cell in that run's summary, or NULL */
    double *beyond;     /* per column after the baseline with an ok trial: how far its mean lies
                         * beyond the baseline's CI, the bad way, in % of the baseline's mean
                         * (<= 0: within); NaN elsewhere */
    int base;           /* the baseline's column: the first with 2 ok trials or more; -1 none */
    int first;          /* the first column with an ok trial; -1 none */
    int flag;           /* the first column whose mean left the baseline's CI by more than the
                         * threshold; -1 none */
    double flag_excess; /* by how much, in % of the baseline's mean */
    int last;           /* the last column with an ok trial */
    bool last_beyond;   /* that column's mean is beyond too */
    size_t nbeyond;     /* columns beyond */
    int newest;         /* the last column that has the cell (ok trials or not) */
    bool newest_failed; /* and it has no ok trial: its trials failed or did not run */
};

/* A scenario (name, test, family) across the runs that have it. */
struct tscen {
    const json_t *def; /* the scenario in its first run */
    enum testspec_kind kind;
    size_t *cols;      /* the runs (indices in time order) that have it */
    const json_t **sc; /* per column: the scenario in that run */
    size_t ncols;
    struct tcell *cells;
    size_t ncells;
    char key[300]; /* in file names: trend-<key>.csv */
    size_t nflagged;
    size_t nnewest_failed;   /* cells whose newest run has no ok trial */
    size_t first_param_diff; /* a column whose parameters differ from the first's; 0: none */
    char param_diff[480];    /* the parameters that differ there */
};

struct trend {
    const struct history_trend_opts *o;
    struct trun *runs; /* time order */
    size_t nruns;
    struct tscen *scens; /* in the order of first appearance, run by run */
    size_t nscens;
    size_t ntrended, ncells, nflagged;
    size_t nnewest_failed; /* cells whose newest run has no ok trial */
};

/* Whether a scenario is trended: two runs or more have it. */
static inline bool
tscen_trended(const struct tscen *s)
{
    return s->ncols >= 2;
}

/* What the newest run of c (newest_failed) holds of its trials, "3 failed" or "2 failed, 1 not
 * run", into b. */
void history_trend_newest_why(const struct tcell *c, char *b, size_t len);

/* Write every output of t into dir. Returns 0 or NS_E*. */
int history_trend_write(const struct trend *t, const char *dir, struct err *e);

#endif
