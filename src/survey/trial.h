/* trial.h - one test between two hosts: a one-shot nsperf server on the destination, the
 * client on the source, a deadline over both, the client's JSON as the outcome. Knows the
 * scenario and two struct transport, nothing of the schedule or the journal. */
#ifndef NS_SURVEY_TRIAL_H
#define NS_SURVEY_TRIAL_H

#include <jansson.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>

#include "plan/plan.h"
#include "transport/transport.h"

#define TRIAL_ARGV_MAX 40
#define TRIAL_OUT_CAP (64u << 20) /* the client's JSON (histograms, intervals) */
#define TRIAL_ERR_CAP (64u << 10)
#define TRIAL_ERROR_MAX 400

/* A host as a trial sees it. */
struct trial_host {
    const char *name;
    const char *data_address;
    struct transport *t; /* NULL when the host could not be reached */
    const char *nsperf;  /* nsperf's path on the host */
    const char *error;   /* why t is NULL */
    bool deploy_failed;  /* t is NULL though the host was reached: no endpoint runs there */
};

/* The processes a trial has running, so that another thread can kill them on an interrupt. */
struct trial_ctl {
    pthread_mutex_t mu;
    struct transport_proc *procs[2];
    atomic_int *interrupted;
};

struct trial_spec {
    const struct plan_scenario *sc;
    const struct trial_host *src, *dst;
    const char *token; /* the run's secret, written to both ends' stdin */
    double margin_s;   /* setup allowance on top of warmup + duration */
    /* Told of each command before it starts on a host, when not NULL (from the trial's thread). */
    void (*on_command)(void *arg, const char *host, const char *const *argv);
    void *on_command_arg;
};

struct trial_outcome {
    bool ok;
    bool interrupted;            /* stopped by an interrupt: record nothing */
    char error[TRIAL_ERROR_MAX]; /* one line, when !ok */
    json_t *result;              /* nsperf's "result" (owned; may be set when !ok) */
    json_t *counters;            /* nsperf's "counters" {"local", "remote"} (owned; or NULL) */
};

/* Run one attempt. Every process it started is killed and reaped when it returns. The caller
 * releases o (survey_trial_outcome_release), also before the next attempt. */
void survey_trial_attempt(const struct trial_spec *s, struct trial_ctl *c, struct trial_outcome *o);

/* Drop the outcome's JSON (result, counters). */
void survey_trial_outcome_release(struct trial_outcome *o);

/* Kill whatever the trial has running (from another thread). */
void survey_trial_ctl_kill(struct trial_ctl *c);

/* nsperf client argv for a scenario into argv (TRIAL_ARGV_MAX entries, NULL-terminated), the
 * formatted numbers kept in store. Returns the count, or -1 when it does not fit. */
int survey_trial_client_argv(const struct plan_scenario *sc, const char *nsperf, const char *dst,
                             unsigned port, const char *src, char store[][32], const char **argv);

#endif
