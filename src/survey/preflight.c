/* preflight.c - `netsurvey check --connect`'s work on each host (preflight.h); the data paths
 * between hosts are preflight_paths.c.
 *
 * One host goes: connect (key, login) -> system and cache (one read-only shell command over the
 * exec channel: uname, $HOME, the cached endpoint's hash, df) -> clock (`date` over the exec
 * channel, the shortest of a few round trips) -> with --deploy the upload -> `nsperf env`
 * (the data address, or the one learnt). A step that cannot run leaves the later ones "not
 * checked". Commands on ssh hosts go through transport_ssh_exec, which writes nothing there
 * (no pid file, no cache directory); nsperf itself runs only where it is already cached or
 * deployed, under the transport's usual process groups. */
#include "survey/preflight.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>

#include "common/clock.h"
#include "common/sha256.h"
#include "common/sshg.h"
#include "survey/host_target.h"
#include "survey/preflight_int.h"
#include "transport/transport.h"

#define PF_CLOCK_TIMEOUT_NS (10 * NS_PER_SEC)

/* Every check from `from` on (in the struct's order) not checked, as a consequence. */
static void
pf_skip_rest(struct preflight_host *h, struct preflight_check *from)
{
    struct preflight_check *all[] = {&h->connect, &h->host_key,     &h->auth,
                                     &h->system,  &h->endpoint,     &h->space,
                                     &h->clock,   &h->data_address, &h->data_paths};
    bool on = false;
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        on |= all[i] == from;
        if (on)
            pf_set(all[i], PREFLIGHT_NOT_CHECKED, "%s", "");
    }
}

/* --- threads ------------------------------------------------------------------------------ */

struct pf_pool {
    struct pf *r;
    void (*fn)(struct pf *r, size_t i);
    size_t n;
    atomic_size_t next;
};

static void *
pf_worker(void *arg)
{
    struct pf_pool *p = arg;
    for (;;) {
        size_t i = atomic_fetch_add(&p->next, 1);
        if (i >= p->n || atomic_load(p->r->interrupted))
            return NULL;
        p->fn(p->r, i);
    }
}

void
preflight_parallel(struct pf *r, size_t n, size_t nthreads, void (*fn)(struct pf *r, size_t i))
{
    struct pf_pool p = {.r = r, .fn = fn, .n = n};
    atomic_init(&p.next, 0);
    if (nthreads > n)
        nthreads = n;
    pthread_t *th = calloc(nthreads > 0 ? nthreads : 1, sizeof *th);
    size_t started = 0;
    /* the threads never take SIGINT/SIGTERM: the caller's thread does */
    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &block, &old);
    for (; th != NULL && started < nthreads; started++)
        if (pthread_create(&th[started], NULL, pf_worker, &p) != 0)
            break;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (started == 0)
        pf_worker(&p); /* no thread to be had: this one does it all */
    for (size_t i = 0; i < started; i++)
        pthread_join(th[i], NULL);
    free(th);
}

/* --- reaching the host -------------------------------------------------------------------- */

/* Which check a failed open is about: the key and the login are seen in the verdict. */
static void
host_connect_failed(struct preflight_host *h, const struct err *e)
{
    const struct transport_verdict *v = &h->verdict;
    bool key_bad = v->hostkey != TRANSPORT_HOSTKEY_UNCHECKED &&
                   v->hostkey != TRANSPORT_HOSTKEY_KNOWN &&
                   v->hostkey != TRANSPORT_HOSTKEY_RECORDED;
    if (key_bad) {
        pf_set(&h->connect, PREFLIGHT_OK, "%s", "");
        pf_set(&h->host_key, PREFLIGHT_FAILED, "%s", e->msg);
        pf_skip_rest(h, &h->auth);
    } else if (v->auth == TRANSPORT_AUTH_FAILED) {
        pf_set(&h->connect, PREFLIGHT_OK, "%s", "");
        pf_set(&h->host_key, PREFLIGHT_OK, "%s", v->fingerprint);
        pf_set(&h->auth, PREFLIGHT_FAILED, "%s", e->msg);
        pf_skip_rest(h, &h->system);
    } else {
        pf_set(&h->connect, PREFLIGHT_FAILED, "%s", e->msg);
        pf_skip_rest(h, &h->host_key);
    }
}

/* transport_target.warn: told to the caller, one at a time (hosts open on several threads). */
static void
host_warn(void *arg, const char *name, const char *msg)
{
    struct pf *r = arg;
    pthread_mutex_lock(&r->warn_mu);
    r->o->warn(r->o->warn_ctx, name, msg);
    pthread_mutex_unlock(&r->warn_mu);
}

static bool
host_connect(struct pf *r, struct pf_host *ph)
{
    struct preflight_host *h = ph->out;
    struct transport_target tt = survey_host_target(ph->ph, false, r->sshg);
    if (!h->local)
        tt.verdict = &h->verdict;
    if (r->o->warn != NULL) {
        tt.warn = host_warn;
        tt.warn_ctx = r;
    }
    struct err e = {0};
    if (transport_open(&tt, &ph->t, &e) != 0) {
        ph->t = NULL;
        host_connect_failed(h, &e);
        return false;
    }
    pf_set(&h->connect, PREFLIGHT_OK, "%s", "");
    if (h->local) {
        pf_set(&h->host_key, PREFLIGHT_NA, "%s", "");
        pf_set(&h->auth, PREFLIGHT_NA, "%s", "");
    } else {
        pf_set(&h->host_key, PREFLIGHT_OK, "%s", h->verdict.fingerprint);
        pf_set(&h->auth, PREFLIGHT_OK, "%s", "");
    }
    return true;
}

/* --- the system, the cache, the space ----------------------------------------------------- */

static bool
host_system_local(struct pf *r, struct pf_host *ph)
{
    struct preflight_host *h = ph->out;
    struct utsname u;
    if (uname(&u) == 0) {
        snprintf(h->os, sizeof h->os, "%s", u.sysname);
        snprintf(h->arch, sizeof h->arch, "%s", u.machine);
    }
    pf_set(&h->system, PREFLIGHT_OK, "%s", "");
    struct err e = {0};
    if (transport_deploy(ph->t, r->o->nsperf, ph->nsperf, sizeof ph->nsperf, &e) != 0) {
        h->endpoint_state = PREFLIGHT_ENDPOINT_UNKNOWN;
        pf_set(&h->endpoint, PREFLIGHT_FAILED, "%s", e.msg);
        pf_skip_rest(h, &h->space);
        return false;
    }
    h->endpoint_state = PREFLIGHT_ENDPOINT_LOCAL;
    snprintf(h->endpoint_path, sizeof h->endpoint_path, "%s", ph->nsperf);
    pf_set(&h->endpoint, PREFLIGHT_OK, "%s", "");
    pf_set(&h->space, PREFLIGHT_NA, "%s", "");
    return true;
}

static void
host_space(struct pf *r, struct preflight_host *h, const struct transport_ssh_probe *p)
{
    size_t need = r->remote.f[p->build].len;
    h->have_space = p->have_space;
    h->space_avail = p->space_avail;
    snprintf(h->space_path, sizeof h->space_path, "%s", p->space_path);
    if (!p->have_space)
        pf_set(&h->space, p->cached ? PREFLIGHT_OK : PREFLIGHT_NOT_CHECKED,
               "df gave no figure for %s", p->space_path);
    else if (!p->cached && p->space_avail < need)
        pf_set(&h->space, PREFLIGHT_FAILED,
               "%llu bytes free in %s, the endpoint needs %zu: it cannot be uploaded",
               (unsigned long long)p->space_avail, p->space_path, need);
    else
        pf_set(&h->space, PREFLIGHT_OK, "%s", "");
}

/* The endpoint: cached, else uploaded with --deploy, else what a run would upload. */
static bool
host_endpoint(struct pf *r, struct pf_host *ph, const struct transport_ssh_probe *p)
{
    struct preflight_host *h = ph->out;
    const struct transport_deploy_file *f = &r->remote.f[p->build];
    const char *build = strrchr(r->remote.path[p->build], '/');
    snprintf(h->endpoint_build, sizeof h->endpoint_build, "%s",
             build != NULL ? build + 1 : r->remote.path[p->build]);
    memcpy(h->endpoint_sha256, f->sha256_hex, sizeof h->endpoint_sha256);
    h->endpoint_bytes = f->len;
    snprintf(h->endpoint_path, sizeof h->endpoint_path, "%s", p->cache_path);
    if (p->cached) {
        h->endpoint_state = PREFLIGHT_ENDPOINT_CACHED;
        snprintf(ph->nsperf, sizeof ph->nsperf, "%s", p->cache_path);
        pf_set(&h->endpoint, PREFLIGHT_OK, "%s", "");
        return true;
    }
    h->endpoint_state = PREFLIGHT_ENDPOINT_UPLOAD;
    if (!r->o->deploy || h->space.status != PREFLIGHT_OK) {
        pf_set(&h->endpoint, PREFLIGHT_OK, "%s", "");
        return false;
    }
    struct err e = {0};
    struct transport_deployed d;
    if (transport_deploy_for(ph->t, r->o->nsperf_remote, &d, &e) != 0) {
        pf_set(&h->endpoint, PREFLIGHT_FAILED, "%s", e.msg);
        return false;
    }
    snprintf(ph->nsperf, sizeof ph->nsperf, "%s", d.path);
    h->endpoint_state = PREFLIGHT_ENDPOINT_UPLOADED;
    snprintf(h->endpoint_path, sizeof h->endpoint_path, "%s", ph->nsperf);
    pf_set(&h->endpoint, PREFLIGHT_OK, "%s", "");
    return true;
}

static bool
host_system_ssh(struct pf *r, struct pf_host *ph)
{
    struct preflight_host *h = ph->out;
    struct transport_ssh_probe p;
    struct err e = {0};
    if (transport_ssh_probe(ph->t, &r->remote, &p, &e) != 0) {
        pf_set(&h->system, PREFLIGHT_FAILED, "%s", e.msg);
        pf_skip_rest(h, &h->endpoint);
        return false;
    }
    snprintf(h->os, sizeof h->os, "%s", p.sysname);
    snprintf(h->arch, sizeof h->arch, "%s", p.machine);
    if (strcmp(p.sysname, "Linux") != 0) {
        pf_set(&h->system, PREFLIGHT_FAILED, "the host is %s %s but nsperf is built for Linux",
               p.sysname, p.machine);
        pf_skip_rest(h, &h->endpoint);
        return false;
    }
    if (p.build < 0) { /* an architecture this netsurvey has no endpoint for */
        char why[PREFLIGHT_DETAIL_MAX];
        transport_deploy_set_missing(&r->remote, p.machine, why, sizeof why);
        h->no_build = true;
        pf_set(&h->system, PREFLIGHT_FAILED, "%s", why);
        pf_skip_rest(h, &h->endpoint);
        return false;
    }
    pf_set(&h->system, PREFLIGHT_OK, "%s", "");
    host_space(r, h, &p);
    return host_endpoint(r, ph, &p);
}

/* --- the clock ---------------------------------------------------------------------------- */

static int64_t
wall_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * (int64_t)NS_PER_SEC + ts.tv_nsec;
}

/* "1700000000.123456789" into ns; a date without %N prints "N" or "%N" after the dot: then
 * whole seconds, *coarse set. */
static bool
parse_epoch(const char *s, int64_t *ns, bool *coarse)
{
    char *end;
    errno = 0;
    long long sec = strtoll(s, &end, 10);
    if (errno != 0 || end == s || *end != '.' || sec <= 0)
        return false;
    const char *f = end + 1;
    size_t digits = strspn(f, "0123456789");
    *coarse = digits == 0;
    int64_t frac = 0;
    for (size_t i = 0; i < 9; i++)
        frac = frac * 10 + (i < digits ? f[i] - '0' : 0);
    *ns = (int64_t)sec * (int64_t)NS_PER_SEC + frac;
    return true;
}

/* One NTP-like sample: t0 here, the host's time, t1 here; offset = host - (t0 + t1) / 2. */
static bool
clock_sample(struct transport *t, double *offset_s, double *rtt_s)
{
    const char *argv[] = {"date", "+%s.%N", NULL};
    struct transport_output o;
    struct err e = {0};
    int64_t w0 = wall_ns();
    uint64_t m0 = clock_now_ns();
    int rc = transport_ssh_exec(t, argv, 256, (int64_t)(m0 + PF_CLOCK_TIMEOUT_NS), &o, &e);
    uint64_t m1 = clock_now_ns();
    int64_t remote = 0;
    bool coarse = false;
    bool ok = rc == 0 && o.status == 0 && parse_epoch(o.out, &remote, &coarse);
    transport_output_release(&o);
    if (!ok)
        return false;
    int64_t rtt = (int64_t)(m1 - m0), mid = w0 + rtt / 2;
    if (coarse) /* the second's middle; the half second joins the error bound */
        remote += (int64_t)NS_PER_SEC / 2, rtt += (int64_t)NS_PER_SEC;
    *offset_s = (double)(remote - mid) / 1e9;
    *rtt_s = (double)rtt / 1e9;
    return true;
}

static void
host_clock(struct pf_host *ph)
{
    struct preflight_host *h = ph->out;
    if (h->local) {
        h->clock_offset_s = h->clock_rtt_s = 0;
        pf_set(&h->clock, PREFLIGHT_OK, "%s", "this machine's clock");
        return;
    }
    bool have = false;
    for (int i = 0; i < PREFLIGHT_CLOCK_SAMPLES; i++) {
        double off, rtt;
        if (clock_sample(ph->t, &off, &rtt) && (!have || rtt < h->clock_rtt_s)) {
            h->clock_offset_s = off;
            h->clock_rtt_s = rtt;
            have = true;
        }
    }
    if (have)
        pf_set(&h->clock, PREFLIGHT_OK, "%s", "");
    else
        pf_set(&h->clock, PREFLIGHT_NOT_CHECKED, "`date +%%s.%%N` gave no time");
}

/* --- the data address --------------------------------------------------------------------- */

static void
env_os(struct preflight_host *h, const json_t *env)
{
    const char *os = json_string_value(json_object_get(env, "os"));
    const char *m = json_string_value(json_object_get(env, "machine"));
    if (os != NULL && *os != '\0')
        snprintf(h->os, sizeof h->os, "%s", os);
    if (m != NULL && *m != '\0')
        snprintf(h->arch, sizeof h->arch, "%s", m);
}

static void
host_learn(struct pf_host *ph, const json_t *env)
{
    struct preflight_host *h = ph->out;
    struct err e = {0};
    h->daddr_learnt = true;
    if (survey_env_learn_address(env, h->daddr, sizeof h->daddr, h->interface, sizeof h->interface,
                                 &e) != 0) {
        pf_set(&h->data_address, PREFLIGHT_FAILED, "%s", e.msg);
        return;
    }
    pf_set(&h->data_address, PREFLIGHT_OK, "learnt from the default route (%s)", h->interface);
}

static void
host_data_address(struct pf_host *ph)
{
    struct preflight_host *h = ph->out;
    bool learn = ph->ph->data_address_from_host;
    if (!learn)
        snprintf(h->daddr, sizeof h->daddr, "%s", ph->ph->data_address);
    json_t *env = NULL;
    struct err e = {0};
    if (survey_env_read(ph->t, ph->nsperf, learn ? NULL : ph->ph->data_address, &env, &e) != 0) {
        pf_set(&h->endpoint, PREFLIGHT_FAILED, "the endpoint does not run there: %s", e.msg);
        pf_set(&h->data_address, PREFLIGHT_NOT_CHECKED, "%s", "");
        return;
    }
    env_os(h, env);
    if (learn) {
        host_learn(ph, env);
    } else {
        const char *ifname = json_string_value(json_object_get(env, "interface"));
        if (ifname != NULL) {
            snprintf(h->interface, sizeof h->interface, "%s", ifname);
            pf_set(&h->data_address, PREFLIGHT_OK, "%s", "");
        } else {
            pf_set(&h->data_address, PREFLIGHT_FAILED,
                   "%s is not an address of %s: no interface there holds it", h->daddr, h->name);
        }
    }
    json_decref(env);
}

/* --- one host ----------------------------------------------------------------------------- */

static void
host_check(struct pf *r, size_t i)
{
    struct pf_host *ph = &r->h[i];
    struct preflight_host *h = ph->out;
    if (!host_connect(r, ph))
        return;
    bool endpoint = h->local ? host_system_local(r, ph) : host_system_ssh(r, ph);
    if (h->system.status == PREFLIGHT_OK)
        host_clock(ph);
    else
        pf_set(&h->clock, PREFLIGHT_NOT_CHECKED, "%s", "");
    if (endpoint) {
        host_data_address(ph);
    } else if (h->endpoint.status == PREFLIGHT_OK && h->space.status == PREFLIGHT_OK) {
        pf_set(&h->data_address, PREFLIGHT_NOT_CHECKED,
               "not checked: endpoint not deployed (use --deploy)");
    } else if (h->system.status == PREFLIGHT_OK) {
        pf_set(&h->data_address, PREFLIGHT_NOT_CHECKED, "%s", "");
    }
    ph->ready = h->data_address.status == PREFLIGHT_OK && h->endpoint.status == PREFLIGHT_OK;
    ph->th = (struct trial_host){
        .name = h->name, .data_address = h->daddr, .t = ph->t, .nsperf = ph->nsperf, .error = ""};
}

/* --- the run ------------------------------------------------------------------------------ */

static bool
check_ok(const struct preflight_check *c)
{
    return c->status == PREFLIGHT_OK || c->status == PREFLIGHT_NA;
}

static void
host_verdict(struct preflight_host *h)
{
    const struct preflight_check *all[] = {&h->connect,      &h->host_key,  &h->auth,
                                           &h->system,       &h->endpoint,  &h->space,
                                           &h->data_address, &h->data_paths};
    h->ok = true;
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        h->ok &= check_ok(all[i]);
}

static int
pf_prepare(struct pf *r, struct err *e)
{
    const struct plan *p = r->o->plan;
    r->nh = plan_host_count(p);
    r->rep = calloc(1, sizeof *r->rep);
    r->h = calloc(r->nh, sizeof *r->h);
    if (r->rep != NULL)
        r->rep->hosts = calloc(r->nh, sizeof *r->rep->hosts);
    if (r->rep == NULL || r->h == NULL || r->rep->hosts == NULL)
        return err_set(e, NS_ENOMEM, "out of memory");
    r->rep->nhosts = r->nh;
    bool ssh = false;
    for (size_t i = 0; i < r->nh; i++) {
        struct preflight_host *h = &r->rep->hosts[i];
        r->h[i].out = h;
        r->h[i].ph = plan_host(p, i);
        h->name = r->h[i].ph->name;
        h->local = r->h[i].ph->transport == PLAN_TRANSPORT_LOCAL;
        pf_skip_rest(h, &h->connect); /* what is never reached stays "not checked" */
        ssh |= !h->local;
    }
    if (ssh && r->o->nsperf_remote == NULL)
        return err_set(e, NS_EINVAL, "no static nsperf for the ssh hosts");
    if (ssh) {
        int rc = transport_deploy_set_load(r->o->nsperf_remote, &r->remote, e);
        if (rc != 0)
            return rc;
    }
    uint8_t tok[32];
    if (sha256_random_bytes(tok, sizeof tok) != 0)
        return err_set(e, NS_EIO, "cannot read random bytes for the token");
    sha256_hex_encode(tok, sizeof tok, r->token);
    strcat(r->token, "\n");
    return 0;
}

static void
pf_release(struct pf *r)
{
    for (size_t i = 0; r->h != NULL && i < r->nh; i++)
        transport_close(r->h[i].t);
    free(r->h);
    transport_deploy_set_release(&r->remote);
    sshg_free(r->sshg);
}

int
preflight_run(const struct preflight_opts *o, struct preflight_report **out, struct err *e)
{
    *out = NULL;
    uint64_t t0 = clock_now_ns();
    struct pf r = {.o = o};
    atomic_init(&r.no_interrupt, 0);
    r.interrupted = o->interrupted != NULL ? o->interrupted : &r.no_interrupt;
    r.concurrency = o->concurrency > 0 ? o->concurrency : PREFLIGHT_CONCURRENCY;
    pthread_mutex_init(&r.warn_mu, NULL);
    r.sshg = sshg_new(); /* NULL: each host asks ssh -G for itself */
    int rc = pf_prepare(&r, e);
    if (rc == 0) {
        preflight_parallel(&r, r.nh, r.concurrency, host_check);
        rc = preflight_paths_run(&r, e);
    }
    if (rc != 0) {
        pf_release(&r);
        pthread_mutex_destroy(&r.warn_mu);
        preflight_report_free(r.rep);
        return rc;
    }
    r.rep->ok = !atomic_load(r.interrupted);
    r.rep->interrupted = atomic_load(r.interrupted) != 0;
    for (size_t i = 0; i < r.nh; i++) {
        host_verdict(&r.rep->hosts[i]);
        r.rep->ok &= r.rep->hosts[i].ok;
    }
    pf_release(&r);
    pthread_mutex_destroy(&r.warn_mu);
    r.rep->elapsed_s = (double)(clock_now_ns() - t0) / 1e9;
    *out = r.rep;
    return 0;
}

void
preflight_report_free(struct preflight_report *r)
{
    if (r == NULL)
        return;
    free(r->hosts);
    free(r->paths);
    free(r);
}
