/* run.h - a survey run: open the hosts, write run.json, run the schedule's rounds, journal
 * every trial, resume a run directory. The command line (cmd_run.c) parses and prints; this
 * does the work and returns counts. */
#ifndef NS_SURVEY_RUN_H
#define NS_SURVEY_RUN_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/errors.h"
#include "plan/plan.h"

/* Default setup allowance of one test on top of warmup + duration. Longer than nsperf's own
 * connect (5 s) and result (10 s) timeouts, so that nsperf's reason is the one recorded. */
#define SURVEY_DEFAULT_MARGIN_S 20.0

enum survey_verbosity { SURVEY_QUIET = -1, SURVEY_NORMAL = 0, SURVEY_VERBOSE = 1 };

struct survey_run_opts {
    const struct plan *plan;
    const char *plan_arg;      /* PLAN as given (NULL: the built-in one), for messages */
    const char *command;       /* the command line, recorded in run.json */
    const char *nsperf;        /* the nsperf deployed to `transport: local` hosts */
    const char *nsperf_remote; /* the static nsperf deployed to ssh hosts (NULL: no ssh host) */
    bool accept_new_host_keys; /* ssh: record an unknown host key (trust on first use) */
    const char *dir;           /* the run directory */
    bool resume;               /* continue dir instead of creating it */
    bool force;                /* resume even if the plan's sha256 differs */
    unsigned retries;          /* extra attempts of a failed trial */
    double margin_s;           /* setup allowance per test */
    enum survey_verbosity verbosity;
    bool tty;                /* progress as one live status line on stderr */
    atomic_int *interrupted; /* set by SIGINT/SIGTERM handlers (lock-free: signal-safe) */
};

struct survey_failure {
    char *text; /* "lo-a -> lo-b latency trial 1: reason" */
};

struct survey_run_result {
    uint64_t tests;               /* in the schedule */
    uint64_t done_before;         /* ok trials found in the journal when resuming */
    uint64_t ok, failed;          /* this invocation */
    uint64_t not_run;             /* left for a resume (interrupted) */
    size_t torn_bytes, bad_lines; /* journal repairs on resume */
    bool interrupted;
    double elapsed_s;
    struct survey_failure *failures;
    size_t nfailures;
};

/* Run the survey. Returns 0 when it ran (trials may have failed: see r), NS_EBUSY for a run
 * directory that is not empty, NS_EINVAL for a resume refused (plan changed, not a run),
 * another negative code when the journal could not be written. */
int survey_run(const struct survey_run_opts *o, struct survey_run_result *r, struct err *e);

void survey_run_result_release(struct survey_run_result *r);

/* Expand {name} and {timestamp} in tmpl into buf (snprintf-like return). */
size_t survey_expand_dir(const char *tmpl, const char *name, const char *stamp, char *buf,
                         size_t len);

#endif
