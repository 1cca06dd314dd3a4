/* preflight_paths.c - the data paths of a preflight (preflight.h): every ordered pair of the
 * plan's schedule (its first pass holds each pair once) probed with one short nsperf tcp_rr
 * from the source's data address to the destination's: trial.c's one test, with a probe
 * scenario, so that a path passes exactly when a survey's test over it can run.
 *
 * Probes run on up to `concurrency` threads, each host in at most PF_PATHS_PER_HOST probes as a
 * source and as many as a destination at a time (far below an sshd's MaxSessions), taken in
 * the schedule's order. The calling thread waits, and on an interrupt
 * kills the probes running; survey_trial_attempt reaps every process it started.
 *
 * A failed path counts against its destination ("not reached from ..."), unless its source
 * reached no destination at all while each of them was reached from another host: then the
 * source is the one to blame ("reaches no host"). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/clock.h"
#include "common/testspec.h"
#include "plan/schedule.h"
#include "survey/preflight_int.h"

#define PF_PATHS_TICK_MS 200
/* Probes a host takes part in at once, as a source and as a destination: each holds one channel
 * of its session (and a second for a moment when its process is killed), so 2 + 2 stays well
 * under OpenSSH's default MaxSessions of 10. */
#define PF_PATHS_PER_HOST 2

struct pf_slot {
    struct trial_ctl ctl;
    pthread_t th;
    bool started;
    struct pf_paths *pp;
};

struct pf_paths {
    struct pf *r;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    unsigned *src_busy, *dst_busy; /* probes running with the host as source, as destination */
    size_t *todo;                  /* indexes into rep->paths of the pairs to probe, in order */
    bool *taken;
    size_t ntodo, left;
    size_t running; /* workers still working */
    struct plan_scenario sc;
    double margin_s;
};

/* --- which pairs ------------------------------------------------------------------------ */

static int
paths_collect(struct pf *r, struct err *e)
{
    struct schedule *s = NULL;
    int rc = schedule_new(r->o->plan, &s, e);
    if (rc != 0)
        return rc;
    size_t nbase = schedule_base_round_count(s), n = 0;
    for (size_t ri = 0; ri < nbase; ri++)
        n += schedule_round_size(s, ri);
    r->rep->paths = calloc(n > 0 ? n : 1, sizeof *r->rep->paths);
    if (r->rep->paths == NULL) {
        schedule_free(s);
        return err_set(e, NS_ENOMEM, "out of memory");
    }
    for (size_t ri = 0; ri < nbase; ri++) {
        for (size_t i = 0; i < schedule_round_size(s, ri); i++) {
            struct schedule_test t;
            schedule_round_test(s, ri, i, &t);
            struct preflight_path *p = &r->rep->paths[r->rep->npaths++];
            p->src = t.src;
            p->dst = t.dst;
            p->status = PREFLIGHT_NOT_CHECKED;
        }
    }
    schedule_free(s);
    return 0;
}

/* Why a pair with a host that is not ready is not probed. */
static void
path_skip(struct pf *r, struct preflight_path *p)
{
    const struct pf_host *a = &r->h[p->src], *b = &r->h[p->dst];
    const struct pf_host *bad = !a->ready ? a : b;
    const char *why = bad->out->data_address.detail;
    if (bad->out->data_address.status == PREFLIGHT_NOT_CHECKED && why[0] != '\0')
        snprintf(p->detail, sizeof p->detail, "not checked: endpoint not deployed on %s",
                 bad->out->name);
    else
        snprintf(p->detail, sizeof p->detail, "not checked: %s failed its checks", bad->out->name);
}

/* --- one probe ---------------------------------------------------------------------------- */

static void
probe_scenario(struct plan_scenario *sc)
{
    memset(sc, 0, sizeof *sc);
    sc->name = "preflight";
    sc->kind = TESTSPEC_TCP_RR;
    sc->test = testspec_kind_name(TESTSPEC_TCP_RR);
    sc->trials = trials_fixed(1);
    sc->streams = 1;
    sc->duration_s = PREFLIGHT_PROBE_S;
    sc->warmup_s = 0;
    testspec_values_default(&sc->spec, TESTSPEC_TCP_RR);
    testspec_values_set(&sc->spec, TESTSPEC_P_DURATION, PREFLIGHT_PROBE_S);
    testspec_values_set(&sc->spec, TESTSPEC_P_WARMUP, 0.0);
}

static void
probe(struct pf_paths *pp, struct trial_ctl *ctl, struct preflight_path *p)
{
    struct pf *r = pp->r;
    struct trial_spec spec = {.sc = &pp->sc,
                              .src = &r->h[p->src].th,
                              .dst = &r->h[p->dst].th,
                              .token = r->token,
                              .margin_s = pp->margin_s};
    struct trial_outcome o;
    survey_trial_attempt(&spec, ctl, &o);
    if (o.interrupted) {
        p->status = PREFLIGHT_NOT_CHECKED;
        snprintf(p->detail, sizeof p->detail, "not checked: interrupted");
    } else if (o.ok) {
        p->status = PREFLIGHT_OK;
        p->rtt_us =
            json_number_value(json_object_get(json_object_get(o.result, HISTJSON_RTT), "mean"));
    } else {
        p->status = PREFLIGHT_FAILED;
        snprintf(p->detail, sizeof p->detail, "%s", o.error);
    }
    survey_trial_outcome_release(&o);
}

/* The first pair to probe whose source and destination have room, or -1. */
static long
pick(struct pf_paths *pp)
{
    for (size_t k = 0; k < pp->ntodo; k++) {
        const struct preflight_path *p = &pp->r->rep->paths[pp->todo[k]];
        if (!pp->taken[k] && pp->src_busy[p->src] < PF_PATHS_PER_HOST &&
            pp->dst_busy[p->dst] < PF_PATHS_PER_HOST)
            return (long)k;
    }
    return -1;
}

static void *
slot_main(void *arg)
{
    struct pf_slot *s = arg;
    struct pf_paths *pp = s->pp;
    pthread_mutex_lock(&pp->mu);
    while (pp->left > 0 && !atomic_load(pp->r->interrupted)) {
        long k = pick(pp);
        if (k < 0) {
            pthread_cond_wait(&pp->cv, &pp->mu);
            continue;
        }
        struct preflight_path *p = &pp->r->rep->paths[pp->todo[k]];
        pp->taken[k] = true;
        pp->left--;
        pp->src_busy[p->src]++;
        pp->dst_busy[p->dst]++;
        pthread_mutex_unlock(&pp->mu);
        probe(pp, &s->ctl, p);
        pthread_mutex_lock(&pp->mu);
        pp->src_busy[p->src]--;
        pp->dst_busy[p->dst]--;
        pthread_cond_broadcast(&pp->cv);
    }
    pp->running--;
    pthread_cond_broadcast(&pp->cv);
    pthread_mutex_unlock(&pp->mu);
    return NULL;
}

/* Wait for the workers; on an interrupt kill what they run (once). */
static void
paths_wait(struct pf_paths *pp, struct pf_slot *slots, size_t n)
{
    bool killed = false;
    pthread_mutex_lock(&pp->mu);
    while (pp->running > 0) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        ts.tv_nsec += PF_PATHS_TICK_MS * 1000000L;
        if (ts.tv_nsec >= 1000000000L) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&pp->cv, &pp->mu, &ts);
        if (atomic_load(pp->r->interrupted) && !killed) {
            pthread_cond_broadcast(&pp->cv); /* the idle ones see it and leave */
            pthread_mutex_unlock(&pp->mu);
            for (size_t i = 0; i < n; i++)
                if (slots[i].started)
                    survey_trial_ctl_kill(&slots[i].ctl);
            pthread_mutex_lock(&pp->mu);
            killed = true;
        }
    }
    pthread_mutex_unlock(&pp->mu);
}

static void
paths_probe(struct pf_paths *pp)
{
    size_t n = pp->ntodo < pp->r->concurrency ? pp->ntodo : pp->r->concurrency;
    struct pf_slot *slots = calloc(n > 0 ? n : 1, sizeof *slots);
    if (slots == NULL || n == 0) {
        free(slots);
        return;
    }
    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &block, &old);
    for (size_t i = 0; i < n; i++) {
        slots[i].pp = pp;
        slots[i].ctl.interrupted = pp->r->interrupted;
        pthread_mutex_init(&slots[i].ctl.mu, NULL);
        pthread_mutex_lock(&pp->mu);
        pp->running++;
        pthread_mutex_unlock(&pp->mu);
        slots[i].started = pthread_create(&slots[i].th, NULL, slot_main, &slots[i]) == 0;
        if (!slots[i].started) {
            pthread_mutex_lock(&pp->mu);
            pp->running--;
            pthread_mutex_unlock(&pp->mu);
        }
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    paths_wait(pp, slots, n);
    for (size_t i = 0; i < n; i++) {
        if (slots[i].started)
            pthread_join(slots[i].th, NULL);
        pthread_mutex_destroy(&slots[i].ctl.mu);
    }
    free(slots);
}

/* --- verdicts ----------------------------------------------------------------------------- */

/* A source whose every probe failed, each destination reached from another source. */
static bool
src_to_blame(const struct preflight_report *rep, uint32_t s)
{
    size_t tried = 0;
    for (size_t i = 0; i < rep->npaths; i++) {
        const struct preflight_path *p = &rep->paths[i];
        if (p->src != s || (p->status != PREFLIGHT_OK && p->status != PREFLIGHT_FAILED))
            continue;
        if (p->status == PREFLIGHT_OK)
            return false;
        tried++;
        bool reached = false;
        for (size_t j = 0; j < rep->npaths && !reached; j++)
            reached = rep->paths[j].dst == p->dst && rep->paths[j].src != s &&
                      rep->paths[j].status == PREFLIGHT_OK;
        if (!reached)
            return false;
    }
    return tried >= 2;
}

/* "a, b" of the sources of failed paths into host d (or the destinations of blamed ones out
 * of it), and the first reason. */
static void
host_paths(struct pf *r, uint32_t d)
{
    struct preflight_host *h = &r->rep->hosts[d];
    char names[300] = "";
    const char *why = NULL;
    bool blamed = false;
    size_t used = 0, unprobed = 0;
    for (size_t i = 0; i < r->rep->npaths; i++) {
        const struct preflight_path *p = &r->rep->paths[i];
        bool mine = p->blame_src ? p->src == d : p->dst == d;
        if (mine && p->status == PREFLIGHT_NOT_CHECKED && r->h[p->src].ready)
            unprobed++; /* both ends ready, not probed: interrupted */
        if (!mine || (p->status != PREFLIGHT_OK && p->status != PREFLIGHT_FAILED))
            continue;
        if (p->status == PREFLIGHT_OK) {
            h->paths_ok++;
            continue;
        }
        h->paths_failed++;
        blamed |= p->blame_src;
        why = why != NULL ? why : p->detail;
        if (used < sizeof names)
            used += (size_t)snprintf(names + used, sizeof names - used, "%s%s", used ? ", " : "",
                                     r->rep->hosts[p->blame_src ? p->dst : p->src].name);
    }
    if (h->paths_failed == 0 && unprobed > 0)
        pf_set(&h->data_paths, PREFLIGHT_NOT_CHECKED, "%zu path%s into it not checked: interrupted",
               unprobed, unprobed == 1 ? "" : "s");
    else if (h->paths_failed == 0)
        pf_set(&h->data_paths, PREFLIGHT_OK, "%s", "");
    else if (blamed)
        pf_set(&h->data_paths, PREFLIGHT_FAILED,
               "reaches no host from its data address %s (tried %s): %s", h->daddr, names, why);
    else
        pf_set(&h->data_paths, PREFLIGHT_FAILED, "%s is not reached from %s: %s", h->daddr, names,
               why);
}

static void
paths_verdict(struct pf *r)
{
    struct preflight_report *rep = r->rep;
    for (uint32_t s = 0; s < rep->nhosts; s++) {
        if (!r->h[s].ready || !src_to_blame(rep, s))
            continue;
        for (size_t i = 0; i < rep->npaths; i++)
            if (rep->paths[i].src == s && rep->paths[i].status == PREFLIGHT_FAILED)
                rep->paths[i].blame_src = true;
    }
    for (uint32_t d = 0; d < rep->nhosts; d++) {
        struct preflight_host *h = &rep->hosts[d];
        if (r->h[d].ready)
            host_paths(r, d);
        else if (h->data_address.status == PREFLIGHT_NOT_CHECKED && h->data_address.detail[0])
            pf_set(&h->data_paths, PREFLIGHT_NOT_CHECKED, "%s", h->data_address.detail);
        else
            pf_set(&h->data_paths, PREFLIGHT_NOT_CHECKED, "%s", "");
    }
}

/* --- the whole of it ---------------------------------------------------------------------- */

int
preflight_paths_run(struct pf *r, struct err *e)
{
    int rc = paths_collect(r, e);
    if (rc != 0)
        return rc;
    struct pf_paths pp = {.r = r,
                          .margin_s = r->o->probe_margin_s > 0 ? r->o->probe_margin_s
                                                               : PREFLIGHT_PROBE_MARGIN_S};
    probe_scenario(&pp.sc);
    size_t np = r->rep->npaths;
    pp.src_busy = calloc(r->nh > 0 ? r->nh : 1, sizeof *pp.src_busy);
    pp.dst_busy = calloc(r->nh > 0 ? r->nh : 1, sizeof *pp.dst_busy);
    pp.todo = calloc(np > 0 ? np : 1, sizeof *pp.todo);
    pp.taken = calloc(np > 0 ? np : 1, sizeof *pp.taken);
    if (pp.src_busy == NULL || pp.dst_busy == NULL || pp.todo == NULL || pp.taken == NULL) {
        rc = err_set(e, NS_ENOMEM, "out of memory");
    } else {
        for (size_t i = 0; i < np; i++) {
            struct preflight_path *p = &r->rep->paths[i];
            if (r->h[p->src].ready && r->h[p->dst].ready)
                pp.todo[pp.ntodo++] = i;
            else
                path_skip(r, p);
        }
        pp.left = pp.ntodo;
        pthread_mutex_init(&pp.mu, NULL);
        pthread_condattr_t ca; /* paths_wait's ticks are on the monotonic clock */
        pthread_condattr_init(&ca);
        pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
        pthread_cond_init(&pp.cv, &ca);
        pthread_condattr_destroy(&ca);
        if (!atomic_load(r->interrupted))
            paths_probe(&pp);
        pthread_cond_destroy(&pp.cv);
        pthread_mutex_destroy(&pp.mu);
        for (size_t k = 0; k < pp.ntodo; k++)
            if (!pp.taken[k])
                snprintf(r->rep->paths[pp.todo[k]].detail, TRIAL_ERROR_MAX,
                         "not checked: interrupted");
        paths_verdict(r);
    }
    free(pp.src_busy);
    free(pp.dst_busy);
    free(pp.todo);
    free(pp.taken);
    return rc;
}
