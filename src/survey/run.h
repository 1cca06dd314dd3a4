/* run.h - a survey run: open the hosts, write run.json, run the schedule's rounds, journal
 * every trial, resume a run directory. The command line (src/cli/cli_run.c) parses and prints;
 * this does the work, tells its progress through a callback and returns counts. */
#ifndef NS_SURVEY_RUN_H
#define NS_SURVEY_RUN_H

#include <limits.h>
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

enum survey_progress_kind {
    SURVEY_PROGRESS_TICK,    /* every 200 ms while a round runs (not after an interrupt) */
    SURVEY_PROGRESS_TRIAL,   /* a trial was recorded in the journal */
    SURVEY_PROGRESS_COMMAND, /* a command is about to start on a host */
    SURVEY_PROGRESS_END,     /* the rounds are over: done, interrupted or stopped by an error */
    SURVEY_PROGRESS_WARNING, /* opening a host: what its ssh config asks that is not done */
};

/* What a survey tells while it runs; every pointer is borrowed for the call only. */
struct survey_progress {
    enum survey_progress_kind kind;
    size_t round, nrounds;     /* the round running, 1-based (nrounds once the last ended) */
    uint64_t finished, to_run; /* trials of this invocation recorded so far / to record */
    uint64_t failed;           /* of the finished */
    double elapsed_s;          /* since survey_run started */
    double eta_s; /* the schedule's estimate of the rounds left, scaled by how the finished
                     rounds compared to it; negative once no test is left to run */
    /* SURVEY_PROGRESS_TRIAL */
    const char *src, *dst, *scenario;
    unsigned trial;
    bool ok;
    const char *error; /* when !ok: one line */
    double seconds;    /* the trial's wall time, retries included */
    /* SURVEY_PROGRESS_COMMAND, SURVEY_PROGRESS_WARNING */
    const char *host;
    const char *const *argv; /* NULL-terminated */
    const char *warning;     /* "FILE line N: ..." (the same one for every host it concerns) */
};

/* Called with the runner's lock held, from the main thread or a worker: never twice at once,
 * and every other thread that reports waits meanwhile, so it should only print. */
typedef void (*survey_progress_fn)(const struct survey_progress *p, void *arg);

struct survey_run_opts {
    /* The survey places the plan's zone: auto / region: auto hosts in it (plan_host_place) once
     * their environments are read, before the first test: the one change it makes. */
    struct plan *plan;
    const char *command; /* the command line, recorded in run.json */
    const char *nsperf;  /* the nsperf deployed to `transport: local` hosts */
    /* the static nsperf builds for ssh hosts, one per architecture, NULL-terminated (at most
     * TRANSPORT_DEPLOY_MAX_BUILDS): each host gets the one for its `uname -m`, and a host of an
     * architecture none is for fails its trials with the name of the build missing (NULL: no
     * ssh host) */
    const char *const *nsperf_remote;
    bool accept_new_host_keys; /* ssh: record an unknown host key (trust on first use) */
    const char *dir;           /* the run directory */
    bool unique_dir;           /* dir exists: take dir-2, dir-3, ... (a {timestamp} template) */
    bool resume;               /* continue dir instead of creating it */
    /* resume with a plan other than the run's: its differences become the run's next plan
     * revision (the run's trials of other parameters are kept apart) */
    bool force;
    unsigned retries;            /* extra attempts of a failed trial */
    double margin_s;             /* setup allowance per test */
    survey_progress_fn progress; /* NULL: nothing is told */
    void *progress_arg;
    atomic_int *interrupted; /* non-zero (the signal's number) once SIGINT/SIGTERM came (set by
                                the handlers: lock-free, so signal-safe) */
};

struct survey_failure {
    char *text;      /* "lo-a -> lo-b latency trial 1: reason" */
    bool unrecorded; /* the trial's record could not be written (the reason says why) */
};

struct survey_run_result {
    char dir[PATH_MAX];           /* the run directory used (o->dir, or a -N of it) */
    bool dir_suffixed;            /* o->dir existed: dir is o->dir-N */
    uint64_t tests;               /* in the schedule */
    uint64_t done_before;         /* ok trials found in the journal when resuming */
    uint64_t ok, failed;          /* this invocation, recorded in the journal */
    uint64_t unrecorded;          /* finished but their record could not be written */
    uint64_t not_run;             /* left for a resume (interrupted, or stopped by an error) */
    size_t torn_bytes, bad_lines; /* journal repairs on resume */
    bool interrupted;
    bool journal_failed; /* survey_run's error is the journal's: it could not be written */
    double elapsed_s;
    struct survey_failure *failures;
    size_t nfailures;
    /* A resume whose plan differs from the run's: each difference, one a line (owned; NULL when
     * none), whether the resume was refused for them or, with --force, recorded them as plan
     * revision `revision` of the run (revised true). */
    char *plan_diff;
    uint32_t revision; /* the plan's revision this invocation ran (1: the run's first) */
    bool revised;
};

/* Run the survey. The run directory's lock is held from the moment it is opened until run.json's
 * state is final ("complete", "interrupted", "failed"), and released before this returns.
 * Returns 0 when it ran (trials may have failed: see r), NS_EBUSY for a run directory that is
 * in use or not empty, NS_EINVAL for a resume refused (plan changed, not a run, a run of an
 * older format), another negative code when the journal could not be written (r counts only
 * what reached it). */
int survey_run(const struct survey_run_opts *o, struct survey_run_result *r, struct err *e);

void survey_run_result_release(struct survey_run_result *r);

/* The plan a run started with, from dir/run.json ("plan": {"file", "source"}): `--resume DIR`
 * without PLAN continues with exactly that plan, so the sha256 check passes by construction.
 * Returns 0 with *out owned by the caller, or NS_E*: when run.json is the problem (unreadable,
 * no plan source) with detail in e, when the recorded plan is, with its problems in d and e
 * left clear. */
int survey_load_recorded_plan(const char *dir, struct plan **out, struct diags *d, struct err *e);

/* Expand {name} and {timestamp} in tmpl into buf (snprintf-like return). */
size_t survey_expand_dir(const char *tmpl, const char *name, const char *stamp, char *buf,
                         size_t len);

#endif
