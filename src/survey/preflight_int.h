/* preflight_int.h - what preflight.c (the hosts) and preflight_paths.c (the data paths between
 * them) share; internal to ns_survey. */
#ifndef NS_SURVEY_PREFLIGHT_INT_H
#define NS_SURVEY_PREFLIGHT_INT_H

#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>

#include "survey/preflight.h"
#include "survey/trial.h"
#include "transport/transport.h"

/* One host while it is checked. */
struct pf_host {
    struct preflight_host *out; /* its row of the report */
    const struct plan_host *ph;
    struct transport *t;                    /* NULL when not reached (or closed) */
    char nsperf[TRANSPORT_REMOTE_PATH_MAX]; /* the endpoint's path there, once it is there */
    bool ready; /* the endpoint runs and the data address is the host's: it probes */
    struct trial_host th;
};

struct pf {
    const struct preflight_opts *o;
    struct preflight_report *rep;
    struct pf_host *h;
    size_t nh;
    struct transport_deploy_set remote; /* o->nsperf_remote, loaded once */
    char token[66];                     /* the probes' secret, hex and a newline */
    atomic_int no_interrupt;            /* what o->interrupted points to when it is NULL */
    atomic_int *interrupted;
    unsigned concurrency;
    pthread_mutex_t warn_mu; /* o->warn is called by one thread at a time */
    struct sshg *sshg;       /* the hosts' `ssh -G` answers, shared (a bastion asked once) */
};

/* Printf into a check: its status and detail (newlines made blanks). Here, not in either file,
 * so that neither depends on the other for it (seams_file_cycles). */
static inline void pf_set(struct preflight_check *c, enum preflight_status st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static inline void
pf_set(struct preflight_check *c, enum preflight_status st, const char *fmt, ...)
{
    c->status = st;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->detail, sizeof c->detail, fmt, ap);
    va_end(ap);
    for (char *p = c->detail; *p != '\0'; p++)
        if (*p == '\n' || *p == '\r')
            *p = ' ';
}

/* Run fn(arg, i) for i in 0..n-1 on up to nthreads threads; returns when every call returned.
 * A call that starts after *interrupted is set is not made. */
void preflight_parallel(struct pf *r, size_t n, size_t nthreads,
                        void (*fn)(struct pf *r, size_t i));

/* The data paths (preflight_paths.c): fills rep->paths and each host's data_paths. 0 or
 * NS_ENOMEM. */
int preflight_paths_run(struct pf *r, struct err *e);

#endif
