/* run.c - the survey runner.
 *
 * Concurrency: the tests of a round run on threads, one per test, and the main thread waits
 * for the round. Threads rather than one poll loop because the transport interface is blocking
 * with deadlines (an ssh channel read is a blocking libssh call; a local read is a poll on two
 * pipes), so a poll loop would need a second, non-blocking transport API; a round holds at most
 * hosts/2 tests, so the threads are few, and each one runs the simple sequence
 * server -> ready line -> client -> wait with its own deadline. The main thread alone takes
 * SIGINT/SIGTERM (the workers block them), wakes every 200 ms to redraw the status line, and on
 * an interrupt kills the processes the workers registered; the workers then return without
 * recording, and a resume redoes those trials. A worker spawns and reaps its own processes:
 * the local transport's children die with the thread that spawned them (PR_SET_PDEATHSIG).
 *
 * The journal: results.jsonl lines are appended under the journal's lock, one write and an
 * fsync each, from the worker that finished the trial. */
#include "survey/run.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/sha256.h"
#include "common/sshg.h"
#include "journal/journal.h"
#include "plan/schedule.h"
#include "survey/adapt.h"
#include "survey/env.h"
#include "survey/host_ssh.h"
#include "survey/host_target.h"
#include "survey/judge.h"
#include "survey/resume.h"
#include "survey/trial.h"
#include "transport/transport.h"

#define RUN_TOKEN_BYTES 32
#define RUN_TICK_MS 200
#define RUN_OPEN_THREADS 16     /* hosts opened at once */
#define RUN_BACKOFF_FIRST_S 1.0 /* a host away is tried again after 1, 2, 4 ... s */
#define RUN_BACKOFF_MAX_S 10.0  /* ... at most this far apart */
#define RUN_LOST_MAX 10         /* attempts of one trial cut short by its hosts, not counted */

/* Where a host stands in a run (under runner.mu). */
enum host_state {
    HOST_UP,      /* reached, its endpoint in place: its tests run */
    HOST_AWAY,    /* its session dropped, or it could not be reached: reconnected with backoff,
                   * its tests wait in the runner's deferred list */
    HOST_GONE,    /* away past host_timeout, or unusable for a reason no reconnect mends: its
                   * tests are recorded failed with why */
    HOST_REFUSED, /* it answered with another host key: its tests are recorded not run */
};

/* One absence of a host: run.json's "outages". */
struct outage {
    char from[40], to[40]; /* ISO 8601; to "" while it lasts */
    char why[NS_ERR_MSG_MAX];
    unsigned attempts;   /* connects tried */
    enum host_state end; /* UP: it came back; GONE, REFUSED; AWAY: the run ended first */
};

struct runner;

struct run_host {
    struct runner *r;
    const struct plan_host *ph;
    const char *daddr; /* the data address: the plan's, or learnt (NULL until the host opens) */
    char learnt[SURVEY_ADDR_MAX];
    struct transport *t; /* NULL only when it could not be made at all (its state is GONE) */
    char nsperf[TRANSPORT_REMOTE_PATH_MAX];
    char machine[64];    /* its `uname -m`, once deployed to ("" before) */
    const char *build;   /* the nsperf build it got (basename of the local file); NULL before */
    char nsperf_sha[65]; /* that build's sha256 */
    bool no_endpoint;    /* reached, but no endpoint could be put there */
    char error[NS_ERR_MSG_MAX]; /* why it was not reached at the start (run.json), else "" */
    json_t *env;
    char zone_id[128];  /* the plan's zone_id, else the cloud metadata's ("" when neither) */
    char *zone_warning; /* the plan's place differs from the metadata's (NULL when it does not) */
    struct trial_host th;
    /* availability, under runner.mu */
    enum host_state state;
    bool deployed;                     /* its endpoint was put in place once */
    uint64_t away_ns;                  /* CLOCK_MONOTONIC: when it went away */
    char away_clock[24];               /* "12:03:10 UTC" */
    char why[NS_ERR_MSG_MAX];          /* why it is away (the last attempt's error) */
    char reason[NS_ERR_MSG_MAX + 128]; /* GONE, REFUSED: what its tests record */
    unsigned attempts;                 /* connects tried in this absence */
    pthread_t rec;                     /* its reconnector, while one runs */
    bool rec_running, rec_done;
    struct outage *outages;
    size_t noutages;
    uint64_t not_run; /* its trials recorded not run (refused) */
};

/* One trial across its attempts: kept when its host goes away and the trial waits for it. */
struct trial_run {
    struct schedule_test t;
    char started[40]; /* the first attempt's */
    uint64_t t0;
    unsigned counted;            /* attempts counted against retries */
    struct journal_attempt *att; /* every attempt, strings owned */
    size_t natt;
};

struct slot {
    struct runner *r;
    struct schedule_test t;
    struct trial_run *tr; /* owned until recorded or deferred */
    struct trial_ctl ctl;
    pthread_t thread;
    bool started;
};

struct runner {
    const struct survey_run_opts *o;
    struct plan *plan; /* its auto places filled in by hosts_place */
    struct schedule *sched;
    struct run_host *hosts;
    size_t nhosts;
    struct journal *j;
    char token[2 * RUN_TOKEN_BYTES + 2];
    char run_id[64];
    char plan_sha[2 * SHA256_LEN + 1];
    char nsperf_sha[2 * SHA256_LEN + 1];
    uint64_t *done; /* sorted keys of trials already ok in the journal */
    size_t ndone;
    uint64_t foreign;    /* trial records of another run (run_id) met by the resume */
    char foreign_id[64]; /* the first of them's */
    struct survey_run_result *res;
    pthread_mutex_t mu;    /* counters, failures, output, the hosts' states, the deferred trials */
    pthread_cond_t cv;     /* the main thread's: a test ended, a host's state changed */
    pthread_cond_t hcv;    /* the reconnectors' backoff: broadcast when the run stops */
    size_t round_left;     /* tests of the current round still running */
    uint64_t to_run;       /* tests this invocation runs */
    uint64_t finished;     /* of those */
    size_t round, nrounds; /* rounds run so far / of the fixed part, the passes decided and
                              the catch-up rounds */
    size_t nfixed;         /* rounds of the fixed part */
    size_t fixed_next;     /* the next round of the fixed part (the estimate of what is left) */
    uint64_t t0_ns;
    double measured_s, measured_est_s; /* rounds done so far: wall time and estimate */
    double *est_suffix;                /* estimated seconds of rounds r.. end */
    /* What run.json's "measured" says: the setup of a round (its wall time beyond warmup +
     * duration), per transport (0 local, 1 ssh), and opening the hosts. */
    double setup_sum[2], setup_max[2];
    uint64_t setup_rounds[2];
    double open_s;
    /* adaptive trials (adapt.h; NULL without any): the state, the tests of the round that ran
     * last (kept out of the next pass's first round), and the estimated seconds of the
     * adaptive passes still to come at most */
    struct survey_adapt *adapt;
    struct schedule_test *last;
    size_t nlast;
    double adapt_left_s;
    int journal_rc;
    struct err journal_err;
    bool running; /* run.json says "running" by this process */
    /* trials waiting for a host that is away (under mu), run in catch-up rounds once it is
     * back, or recorded when it is gone */
    struct trial_run **deferred;
    size_t ndeferred, capdeferred;
    double host_timeout_s;
    bool stopping;              /* the reconnectors end (under mu) */
    char active[PATH_MAX + 64]; /* the entry saying the run is in progress ("" when none) */
    struct sshg *sshg;
    /* a resume: the run's run.json as it found it, and the plan's revision this invocation
     * runs (a new one when --force recorded the plan's differences: new_revision) */
    struct journal_run *was;
    uint32_t revision;
    bool new_revision;
    json_t *resumes; /* new_revision: run.json's "resumes", this one's included */
};

/* --- small helpers ----------------------------------------------------------------------- */

static int
file_sha256(const char *path, char hex[2 * SHA256_LEN + 1], struct err *e)
{
    FILE *f = fopen(path, "rbe");
    if (f == NULL)
        return err_sys(e, NS_EIO, errno, "cannot read %s", path);
    struct sha256 c;
    sha256_init(&c);
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        sha256_update(&c, buf, n);
    int bad = ferror(f);
    fclose(f);
    if (bad)
        return err_sys(e, NS_EIO, errno, "cannot read %s", path);
    uint8_t d[SHA256_LEN];
    sha256_final(&c, d);
    sha256_hex_encode(d, SHA256_LEN, hex);
    return 0;
}

size_t
survey_expand_dir(const char *tmpl, const char *name, const char *stamp, char *buf, size_t len)
{
    size_t used = 0;
    for (const char *p = tmpl; *p != '\0';) {
        const char *piece = NULL;
        size_t plen = 1, skip = 1;
        if (strncmp(p, "{name}", 6) == 0) {
            piece = name, plen = strlen(name), skip = 6;
        } else if (strncmp(p, "{timestamp}", 11) == 0) {
            piece = stamp, plen = strlen(stamp), skip = 11;
        } else {
            piece = p;
        }
        for (size_t i = 0; i < plen; i++, used++)
            if (used + 1 < len)
                buf[used] = piece[i];
        p += skip;
    }
    if (len > 0)
        buf[used < len ? used : len - 1] = '\0';
    return used;
}

static uint64_t
trial_key(const struct runner *r, uint32_t sc, uint32_t src, uint32_t dst, uint32_t trial)
{
    uint64_t n = r->nhosts;
    return (((uint64_t)sc * n + src) * n + dst) * (PLAN_MAX_TRIALS + 1ull) + trial;
}

static int
key_cmp(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static bool
trial_done(const struct runner *r, const struct schedule_test *t)
{
    uint64_t k = trial_key(r, t->scenario, t->src, t->dst, t->trial);
    return r->ndone > 0 && bsearch(&k, r->done, r->ndone, sizeof k, key_cmp) != NULL;
}

/* --- what the journal records (journal/record.h defines the records) ---------------------- */

/* The parameters as nsperf gets them: the table's values of the scenario, defaults applied. */
static struct journal_scenario
scenario_of(const struct plan_scenario *sc)
{
    struct journal_scenario js = journal_scenario_from_spec(sc->name, &sc->spec);
    js.swept = plan_scenario_swept(sc);
    js.sweep = js.swept ? (enum testspec_param)sc->sweep.param : TESTSPEC_P_DURATION;
    return js;
}

/* The family a pair's traffic uses: its data addresses' (the plan keeps a pair to one), a name's
 * as it resolved here; daddr (a name the plan left unresolved, or one learnt from the host)
 * otherwise. */
static enum journal_family
host_family(const struct plan_host *h, const char *daddr)
{
    if (h->data_family != PLAN_FAMILY_UNKNOWN)
        return h->data_family == PLAN_FAMILY_IPV6 ? JOURNAL_IPV6 : JOURNAL_IPV4;
    return journal_family_of(daddr);
}

/* The host's data address: learnt from the host when the plan names none (env.h); the plan's
 * text until then. */
static const char *
host_daddr(const struct run_host *h)
{
    return h->daddr != NULL ? h->daddr : h->ph->data_address;
}

static struct journal_endpoint
endpoint_of(const struct run_host *rh)
{
    const struct plan_host *h = rh->ph;
    return (struct journal_endpoint){
        .host = h->name, .zone = h->zone, .region = h->region, .data_address = host_daddr(rh)};
}

static const char *
nsperf_version(const struct runner *r)
{
    for (size_t i = 0; i < r->nhosts; i++) {
        const char *v = json_string_value(json_object_get(r->hosts[i].env, "nsperf_version"));
        if (v != NULL)
            return v;
    }
    return NULL;
}

/* --- the inventories the hosts came from (plan hosts_from) --------------------------------- */

/* Each inventory's path and sha256 go beside the plan's (journal_run.inventories): run.json
 * then says which files gave the run its hosts, and a resume refuses changed ones as it
 * refuses a changed plan. Returns the array (caller frees; NULL when there are none). */
static struct journal_run_inventory *
run_inventories(const struct plan *p, size_t *n)
{
    *n = plan_inventory_count(p);
    struct journal_run_inventory *v = *n > 0 ? calloc(*n, sizeof *v) : NULL;
    for (size_t i = 0; v != NULL && i < *n; i++) {
        const struct plan_inventory *inv = plan_inventory(p, i);
        v[i] = (struct journal_run_inventory){
            .file = inv->file, .path = inv->path, .format = inv->format, .sha256 = inv->sha256};
    }
    if (v == NULL)
        *n = 0;
    return v;
}

/* The recorded inventories against the plan's now: same count, same bytes. */
static int
resume_inventories_check(const struct runner *r, const struct journal_run *run, struct err *e)
{
    const struct plan *p = r->plan;
    size_t then = run->ninventories, now = plan_inventory_count(p);
    if (then != now)
        return err_set(e, NS_EINVAL,
                       "cannot resume %s: the plan's inventories changed since the run started "
                       "(%zu then, %zu now); give the same plan, or --force to continue anyway",
                       r->o->dir, then, now);
    for (size_t i = 0; i < now; i++) {
        const struct plan_inventory *inv = plan_inventory(p, i);
        const char *sha = run->inventories[i].sha256;
        if (sha == NULL || strcmp(sha, inv->sha256) != 0)
            return err_set(e, NS_EINVAL,
                           "cannot resume %s: inventory %s changed since the run started (sha256 "
                           "%.12s then, %.12s now); give the same inventory, or --force to "
                           "continue anyway",
                           r->o->dir, inv->file, sha != NULL ? sha : "none", inv->sha256);
    }
    return 0;
}

/* run.json as the runner knows it now: a host not (yet) reached has no env and an error. A new
 * revision of a resumed run keeps the run's start and command, its resumes, and its earlier
 * revisions beside the one it replaces. */
static int
run_write(struct runner *r, const char *started, const char *command, struct err *e)
{
    const struct plan *p = r->plan;
    size_t ns = plan_scenario_count(p);
    size_t np = schedule_pair_count(r->sched);
    struct journal_run_host *hosts = calloc(r->nhosts ? r->nhosts : 1, sizeof *hosts);
    struct journal_run_scenario *scens = calloc(ns ? ns : 1, sizeof *scens);
    struct journal_pair *pairs = calloc(np ? np : 1, sizeof *pairs);
    int rc = hosts != NULL && scens != NULL && pairs != NULL
                 ? 0
                 : err_set(e, NS_ENOMEM, "out of memory");
    for (size_t i = 0; rc == 0 && i < r->nhosts; i++) {
        const struct plan_host *h = r->hosts[i].ph;
        hosts[i] = (struct journal_run_host){
            .name = h->name,
            .zone = h->zone,
            .region = h->region,
            .zone_id = r->hosts[i].zone_id[0] != '\0' ? r->hosts[i].zone_id
                       : h->zone_id[0] != '\0'        ? h->zone_id
                                                      : NULL,
            .zone_warning = r->hosts[i].zone_warning,
            .data_address = host_daddr(&r->hosts[i]),
            .transport = h->transport == PLAN_TRANSPORT_LOCAL ? "local" : "ssh",
            .env = r->hosts[i].env,
            .error = r->hosts[i].error[0] != '\0' ? r->hosts[i].error : NULL,
            .arch = r->hosts[i].machine[0] != '\0' ? r->hosts[i].machine : NULL,
            .endpoint_build = r->hosts[i].build,
            .endpoint_sha256 = r->hosts[i].build != NULL ? r->hosts[i].nsperf_sha : NULL,
            .endpoint_path = r->hosts[i].build != NULL ? r->hosts[i].nsperf : NULL};
    }
    size_t nw = 0; /* the scenarios as written: a sweep's values in one, its list */
    for (size_t i = 0; rc == 0 && i < ns; i++) {
        const struct plan_scenario *sc = plan_scenario(p, i);
        if (sc->sweep.index > 0)
            continue;
        const struct trials_policy *tp = &sc->trials;
        uint64_t nv = plan_scenario_swept(sc) ? sc->sweep.nvalues : 1;
        struct journal_run_scenario *rs = &scens[nw++];
        *rs = (struct journal_run_scenario){.sc = scenario_of(sc),
                                            .policy = *tp,
                                            .trials = tp->min,
                                            .planned = (uint64_t)tp->min * np * nv,
                                            .planned_max = (uint64_t)tp->max * np * nv};
        rs->nvalues = plan_scenario_swept(sc) ? sc->sweep.nvalues : 0;
        for (size_t k = 0; k < rs->nvalues; k++)
            rs->values[k] = sc->sweep.values[k];
    }
    for (size_t i = 0; rc == 0 && i < np; i++)
        schedule_pair(r->sched, i, &pairs[i].src, &pairs[i].dst);
    size_t srclen = 0;
    const char *src = plan_source(p, &srclen);
    struct journal_run run = {.run_id = r->run_id,
                              .plan_name = plan_name(p),
                              .plan_description = plan_description(p),
                              .plan_file = plan_file(p),
                              .plan_sha256 = r->plan_sha,
                              .plan_source = src,
                              .plan_source_len = srclen,
                              .netsurvey_version = NS_VERSION,
                              .nsperf_version = nsperf_version(r),
                              .nsperf_sha256 = r->nsperf_sha,
                              .started = started,
                              .command = command,
                              .state = JOURNAL_RUN_RUNNING,
                              .rounds = schedule_round_count(r->sched),
                              .tests = schedule_test_count(r->sched),
                              .pairs = schedule_pair_count(r->sched),
                              .estimate_s = schedule_estimate_s(r->sched),
                              .host_timeout_s = r->host_timeout_s,
                              .hosts = hosts,
                              .nhosts = r->nhosts,
                              .scenarios = scens,
                              .nscenarios = nw,
                              .pair_list = pairs,
                              .npair_list = np,
                              .has_pairs = true,
                              .revision = r->revision > 1 ? r->revision : 1,
                              .resumes_json = r->resumes};
    json_t *revisions = r->new_revision ? survey_revisions_json(r->was) : NULL;
    if (rc == 0 && r->new_revision && revisions == NULL)
        rc = err_set(e, NS_ENOMEM, "out of memory");
    run.revisions_json = revisions;
    struct journal_run_inventory *invs = run_inventories(p, &run.ninventories);
    run.inventories = invs;
    if (rc == 0 && run.ninventories < plan_inventory_count(p))
        rc = err_set(e, NS_ENOMEM, "out of memory");
    if (rc == 0 && (rc = journal_write_run(r->j, &run, e)) != 0)
        r->res->journal_failed = true;
    json_decref(revisions);
    free(invs);
    free(hosts);
    free(scens);
    free(pairs);
    if (rc == 0)
        r->running = true;
    return rc;
}

/* A trial's record: its status and why (NULL when ok), its attempts as they ran. */
static void
trial_record(const struct runner *r, const struct trial_run *tr, enum journal_status status,
             const char *error, const char *ended, struct journal_trial *rec)
{
    static const struct journal_attempt none[1];
    const struct schedule_test *t = &tr->t;
    const struct run_host *src = &r->hosts[t->src], *dst = &r->hosts[t->dst];
    *rec = (struct journal_trial){.run_id = r->run_id,
                                  .plan_name = plan_name(r->plan),
                                  .plan_sha256 = r->plan_sha,
                                  .scenario = scenario_of(plan_scenario(r->plan, t->scenario)),
                                  .trial = t->trial,
                                  .revision = r->revision > 1 ? r->revision : 0,
                                  .family = host_family(src->ph, host_daddr(src)),
                                  .src = endpoint_of(src),
                                  .dst = endpoint_of(dst),
                                  .status = status,
                                  .error = error,
                                  .attempts = (uint32_t)tr->natt,
                                  .attempt = tr->att != NULL ? tr->att : none,
                                  .nattempt = tr->natt,
                                  .started = tr->started,
                                  .ended = ended,
                                  .env_src = src->ph->name,
                                  .env_dst = dst->ph->name,
                                  .tool_version = NS_VERSION,
                                  .nsperf_sha256 = r->nsperf_sha};
}

static struct trial_run *
trial_run_new(const struct schedule_test *t)
{
    struct trial_run *tr = calloc(1, sizeof *tr);
    if (tr == NULL)
        return NULL;
    tr->t = *t;
    clock_wall_iso8601(tr->started, sizeof tr->started);
    tr->t0 = clock_now_ns();
    return tr;
}

static void
trial_run_free(struct trial_run *tr)
{
    if (tr == NULL)
        return;
    for (size_t i = 0; i < tr->natt; i++) {
        free((char *)(uintptr_t)tr->att[i].started);
        free((char *)(uintptr_t)tr->att[i].ended);
        free((char *)(uintptr_t)tr->att[i].error);
        free((char *)(uintptr_t)tr->att[i].host_away);
    }
    free(tr->att);
    free(tr);
}

static char *
dup_or_null(const char *s)
{
    return s != NULL ? strdup(s) : NULL;
}

/* One attempt more in tr's list (false: out of memory, the attempt is not listed). */
static bool
trial_run_attempt(struct trial_run *tr, const char *started, const char *ended, const char *error,
                  const char *host_away)
{
    struct journal_attempt *a = realloc(tr->att, (tr->natt + 1) * sizeof *a);
    if (a == NULL)
        return false;
    tr->att = a;
    a[tr->natt++] = (struct journal_attempt){.started = dup_or_null(started),
                                             .ended = dup_or_null(ended),
                                             .error = dup_or_null(error),
                                             .host_away = dup_or_null(host_away)};
    return true;
}

/* --- hosts ------------------------------------------------------------------------------- */

static void progress(struct runner *r, struct survey_progress *p);

/* transport_target.warn: a warning of the host's ssh config, told to the caller. */
static void
host_warn(void *arg, const char *name, const char *msg)
{
    struct runner *r = arg;
    struct survey_progress p = {.kind = SURVEY_PROGRESS_WARNING, .host = name, .warning = msg};
    pthread_mutex_lock(&r->mu);
    progress(r, &p);
    pthread_mutex_unlock(&r->mu);
}

/* Under r->mu: tell the caller what became of a host. */
static void host_tell_locked(struct runner *r, const struct run_host *h, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void
host_tell_locked(struct runner *r, const struct run_host *h, const char *fmt, ...)
{
    char msg[NS_ERR_MSG_MAX + 256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    struct survey_progress p = {.kind = SURVEY_PROGRESS_HOST, .host = h->ph->name, .warning = msg};
    progress(r, &p);
}

/* "45 s", "5 min", "1 h 30 min": how long a host was waited for. */
static void
span_text(double s, char *buf, size_t len)
{
    if (s < 120)
        snprintf(buf, len, "%.0f s", s);
    else if (s < 7200)
        snprintf(buf, len, "%.0f min", s / 60);
    else
        snprintf(buf, len, "%.0f h %02.0f min", floor(s / 3600), fmod(s, 3600) / 60);
}

/* A transport's error that a later connect may mend: the host unreachable, its session
 * dropped, its login refused (a re-imaged VM before its keys are back). */
static bool
retryable(int rc)
{
    return rc == NS_ECONNECT || rc == NS_ETIMEDOUT || rc == NS_ECLOSED || rc == NS_EAUTH;
}

/* Under r->mu: h is away from now, for why (its trials wait for it). */
static void
host_away_locked(struct runner *r, struct run_host *h, const char *why, bool at_start)
{
    if (h->state != HOST_UP)
        return;
    h->state = HOST_AWAY;
    h->away_ns = clock_now_ns();
    h->attempts = 0;
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(h->away_clock, sizeof h->away_clock, "%H:%M:%S UTC", &tm);
    snprintf(h->why, sizeof h->why, "%s", why);
    struct outage *o = realloc(h->outages, (h->noutages + 1) * sizeof *o);
    if (o != NULL) {
        h->outages = o;
        o = &o[h->noutages++];
        memset(o, 0, sizeof *o);
        clock_wall_iso8601(o->from, sizeof o->from);
        snprintf(o->why, sizeof o->why, "%s", why);
        o->end = HOST_AWAY;
    }
    char span[32];
    span_text(r->host_timeout_s, span, sizeof span);
    host_tell_locked(r, h, "%s (%s); its tests wait for it, up to %s (host_timeout)",
                     at_start ? "unreachable at the start" : "lost", why, span);
    pthread_cond_broadcast(&r->cv);
}

/* Under r->mu: h's absence ends as state says (UP: it is back; GONE: timed_out, or for a reason
 * no reconnect mends; REFUSED). */
static void
host_settle_locked(struct runner *r, struct run_host *h, enum host_state state, const char *why,
                   bool timed_out)
{
    double away = (double)(clock_now_ns() - h->away_ns) / 1e9;
    enum host_state was = h->state;
    h->state = state;
    if (h->noutages > 0 && was == HOST_AWAY) {
        struct outage *o = &h->outages[h->noutages - 1];
        clock_wall_iso8601(o->to, sizeof o->to);
        o->attempts = h->attempts;
        o->end = state;
        if (state != HOST_UP)
            snprintf(o->why, sizeof o->why, "%s", why);
    }
    char span[32];
    if (state == HOST_UP) {
        host_tell_locked(r, h, "back after %.1f s (%u connect%s)", away, h->attempts,
                         h->attempts == 1 ? "" : "s");
    } else if (state == HOST_REFUSED) {
        snprintf(h->reason, sizeof h->reason, "%s", why);
        host_tell_locked(r, h, "refused: %s; its remaining tests are not run", why);
    } else if (timed_out) {
        span_text(away, span, sizeof span);
        snprintf(h->reason, sizeof h->reason, "%s: unreachable for %s since %s: %s", h->ph->name,
                 span, h->away_clock, why);
        host_tell_locked(r, h,
                         "given up: unreachable for %s since %s (%s); its remaining tests "
                         "fail",
                         span, h->away_clock, why);
    } else {
        snprintf(h->reason, sizeof h->reason, "host %s %s: %s", h->ph->name,
                 h->no_endpoint ? "has no endpoint" : "unreachable", why);
        host_tell_locked(r, h, "cannot be used: %s; its remaining tests fail", why);
    }
    pthread_cond_broadcast(&r->cv);
}

/* transport_target.on_drop: h's session died (told from its transport's thread). */
static void
host_dropped(void *arg, const char *name, const char *why)
{
    (void)name;
    struct run_host *h = arg;
    struct runner *r = h->r;
    pthread_mutex_lock(&r->mu);
    host_away_locked(r, h, why, false);
    pthread_mutex_unlock(&r->mu);
}

/* The endpoint in place on h: the build for its architecture, into h->nsperf (set only on
 * success). */
static int
host_deploy(struct runner *r, struct run_host *h, struct err *e)
{
    bool local = h->ph->transport == PLAN_TRANSPORT_LOCAL;
    const char *const local_build[] = {r->o->nsperf, NULL};
    const char *const *builds = local ? local_build : r->o->nsperf_remote;
    if (builds == NULL)
        return err_set(e, NS_EINVAL, "no nsperf for ssh hosts (--nsperf-remote)");
    struct transport_deployed d;
    memset(&d, 0, sizeof d);
    int rc = transport_deploy_for(h->t, builds, &d, e);
    pthread_mutex_lock(&r->mu);
    if (d.machine[0] != '\0')
        snprintf(h->machine, sizeof h->machine, "%s", d.machine);
    if (rc == 0) {
        snprintf(h->nsperf, sizeof h->nsperf, "%s", d.path);
        const char *base = strrchr(builds[d.build], '/');
        h->build = base != NULL ? base + 1 : builds[d.build];
        /* a local host's nsperf is the one run_prepare hashed */
        snprintf(h->nsperf_sha, sizeof h->nsperf_sha, "%s",
                 d.sha256_hex[0] != '\0' ? d.sha256_hex : r->nsperf_sha);
        h->deployed = true;
        if (d.note[0] != '\0')
            host_tell_locked(r, h, "the endpoint is in %s: %s", d.path, d.note);
    }
    h->no_endpoint = rc != 0 && transport_connected(h->t, NULL);
    pthread_mutex_unlock(&r->mu);
    return rc;
}

/* A host without a data address in the plan: learn it from the host (env.h). */
static int
host_learn(struct run_host *h, struct err *e)
{
    json_t *env = NULL;
    int rc = survey_env_read(h->t, h->nsperf, NULL, &env, e);
    if (rc == 0)
        rc = survey_env_learn_address(env, h->learnt, sizeof h->learnt, NULL, 0, e);
    json_decref(env);
    if (rc == 0)
        h->daddr = h->th.data_address = h->learnt;
    return rc;
}

/* `nsperf env` on the host, once; a host whose environment cannot be read is still surveyed,
 * unless it is its session that failed. */
static int
host_env(struct runner *r, struct run_host *h, struct err *e)
{
    if (h->env != NULL || atomic_load(r->o->interrupted))
        return 0;
    int rc = 0;
    if (h->ph->data_address_from_host && h->daddr == h->ph->data_address)
        rc = host_learn(h, e);
    if (rc != 0)
        return rc;
    struct err ee = {0};
    json_t *env = NULL;
    rc = survey_env_read(h->t, h->nsperf, h->daddr, &env, &ee);
    pthread_mutex_lock(&r->mu);
    h->env = env;
    pthread_mutex_unlock(&r->mu);
    if (rc == 0 || transport_connected(h->t, NULL))
        return 0;
    *e = ee;
    return NS_ECLOSED;
}

/* Bring h into use: connect (ssh), the endpoint in place (checked again after every reconnect:
 * a rebooted host, or `clean`, may have taken it), its environment once. */
static int
host_setup(struct runner *r, struct run_host *h, struct err *e)
{
    int rc = transport_connect(h->t, e);
    if (rc == 0)
        rc = host_deploy(r, h, e);
    if (rc == 0)
        rc = host_env(r, h, e);
    /* a step that failed with the session gone is the session's failure */
    if (rc != 0 && !retryable(rc) && rc != NS_EINTR && rc != NS_EHOSTKEY &&
        !transport_connected(h->t, NULL)) {
        char why[NS_ERR_MSG_MAX];
        snprintf(why, sizeof why, "%s", e->msg);
        rc = err_set(e, NS_ECLOSED, "%s", why);
    }
    return rc;
}

/* Make h's transport (its ssh config resolved); NULL with why when it cannot be made. */
static void
host_make(struct runner *r, struct run_host *h)
{
    const struct plan_host *ph = h->ph;
    struct transport_target tt = survey_host_target(ph, r->o->accept_new_host_keys, r->sshg);
    tt.warn = host_warn;
    tt.warn_ctx = r;
    tt.on_drop = host_dropped;
    tt.on_drop_ctx = h;
    struct err e = {0};
    h->r = r;
    h->daddr = ph->data_address;
    if (transport_new(&tt, &h->t, &e) != 0) {
        h->t = NULL;
        snprintf(h->error, sizeof h->error, "%s", e.msg);
        h->state = HOST_GONE;
        snprintf(h->reason, sizeof h->reason, "host %s unreachable: %s", ph->name, e.msg);
    }
    h->th = (struct trial_host){.name = ph->name,
                                .data_address = h->daddr,
                                .t = h->t,
                                .nsperf = h->nsperf,
                                .error = h->reason};
}

/* What the first setup of h gave: up, away (to be reconnected), refused or gone. */
static void
host_opened(struct runner *r, struct run_host *h, int rc, const struct err *e)
{
    pthread_mutex_lock(&r->mu);
    if (rc != 0 && rc != NS_EINTR)
        snprintf(h->error, sizeof h->error, "%s", e->msg);
    if (rc == 0 || rc == NS_EINTR)
        h->state = HOST_UP; /* interrupted: nothing runs any more */
    else if (h->ph->transport != PLAN_TRANSPORT_LOCAL && retryable(rc))
        host_away_locked(r, h, e->msg, true);
    else if (rc == NS_EHOSTKEY)
        host_settle_locked(r, h, HOST_REFUSED, e->msg, false);
    else
        host_settle_locked(r, h, HOST_GONE, e->msg, false);
    pthread_mutex_unlock(&r->mu);
}

struct opener {
    struct runner *r;
    size_t next, left; /* under r->mu */
};

static void *
opener_main(void *arg)
{
    struct opener *op = arg;
    struct runner *r = op->r;
    for (;;) {
        pthread_mutex_lock(&r->mu);
        size_t i = op->next < r->nhosts ? op->next++ : r->nhosts;
        pthread_mutex_unlock(&r->mu);
        if (i >= r->nhosts)
            break;
        struct run_host *h = &r->hosts[i];
        if (h->t == NULL || atomic_load(r->o->interrupted))
            continue;
        struct err e = {0};
        int rc = host_setup(r, h, &e);
        host_opened(r, h, rc, &e);
    }
    pthread_mutex_lock(&r->mu);
    op->left--;
    pthread_cond_broadcast(&r->cv);
    pthread_mutex_unlock(&r->mu);
    return NULL;
}

/* A thread of the runner's, with the signals blocked (the main thread takes them). */
static int
thread_start(pthread_t *th, void *(*fn)(void *), void *arg)
{
    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &block, &old);
    int rc = pthread_create(th, NULL, fn, arg);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return rc;
}

/* From the main thread, once an interrupt came: every connect in progress cut short. */
static void
hosts_cancel(struct runner *r)
{
    for (size_t i = 0; i < r->nhosts; i++)
        if (r->hosts[i].t != NULL)
            transport_cancel(r->hosts[i].t);
    pthread_mutex_lock(&r->mu);
    pthread_cond_broadcast(&r->hcv);
    pthread_mutex_unlock(&r->mu);
}

/* Wait on r->cv, with r->mu held, a tick at most; false once an interrupt came (the connects
 * in progress are then cut short, once). */
static bool
tick_wait(struct runner *r, bool *cancelled)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    ts.tv_nsec += RUN_TICK_MS * 1000000L;
    if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
    }
    pthread_cond_timedwait(&r->cv, &r->mu, &ts);
    if (!atomic_load(r->o->interrupted))
        return true;
    if (!*cancelled) {
        *cancelled = true;
        pthread_mutex_unlock(&r->mu);
        hosts_cancel(r);
        pthread_mutex_lock(&r->mu);
    }
    return false;
}

/* Every host made, then set up on up to RUN_OPEN_THREADS threads at once (an unreachable one
 * costs its connect timeout, not everybody's); the main thread stays free for an interrupt. */
static int
hosts_open(struct runner *r, struct err *e)
{
    r->nhosts = plan_host_count(r->plan);
    r->hosts = calloc(r->nhosts, sizeof *r->hosts);
    if (r->hosts == NULL)
        return err_set(e, NS_ENOMEM, "out of memory");
    /* every ssh host's `ssh -G` at once: the opens below then run none one by one */
    r->sshg = survey_ssh_prefetch(r->plan);
    for (size_t i = 0; i < r->nhosts; i++) {
        r->hosts[i].ph = plan_host(r->plan, i);
        host_make(r, &r->hosts[i]);
    }
    size_t n = r->nhosts < RUN_OPEN_THREADS ? r->nhosts : RUN_OPEN_THREADS;
    pthread_t th[RUN_OPEN_THREADS];
    struct opener op = {.r = r};
    size_t started = 0;
    /* counted under the lock the openers take first: one that ends at once counts itself off
     * only after it was counted (TSan saw the count written here and there unlocked) */
    pthread_mutex_lock(&r->mu);
    for (size_t i = 0; i < n; i++) {
        if (thread_start(&th[started], opener_main, &op) == 0)
            started++;
    }
    op.left = started;
    pthread_mutex_unlock(&r->mu);
    if (started == 0 && n > 0)
        opener_main(&(struct opener){.r = r, .left = 1}); /* no thread: here, one by one */
    bool cancelled = false;
    pthread_mutex_lock(&r->mu);
    while (op.left > 0)
        tick_wait(r, &cancelled);
    pthread_mutex_unlock(&r->mu);
    for (size_t i = 0; i < started; i++)
        pthread_join(th[i], NULL);
    return 0;
}

/* A host's reconnector: from the moment it is found away, connects with backoff (1, 2, 4 ...
 * s, RUN_BACKOFF_MAX_S at most, the last attempt at host_timeout) until it is back (its endpoint
 * checked, put there again if it went), refused (another host key), or away for host_timeout. */
static void *
recover_main(void *arg)
{
    struct run_host *h = arg;
    struct runner *r = h->r;
    double backoff = RUN_BACKOFF_FIRST_S;
    pthread_mutex_lock(&r->mu);
    while (!r->stopping && !atomic_load(r->o->interrupted) && h->state == HOST_AWAY) {
        h->attempts++;
        pthread_mutex_unlock(&r->mu);
        struct err e = {0};
        int rc = host_setup(r, h, &e);
        pthread_mutex_lock(&r->mu);
        if (rc == NS_EINTR || r->stopping || atomic_load(r->o->interrupted))
            break;
        if (rc == 0) {
            host_settle_locked(r, h, HOST_UP, "", false);
            break;
        }
        snprintf(h->why, sizeof h->why, "%s", e.msg);
        if (rc == NS_EHOSTKEY || !retryable(rc)) {
            host_settle_locked(r, h, rc == NS_EHOSTKEY ? HOST_REFUSED : HOST_GONE, e.msg, false);
            break;
        }
        double away = (double)(clock_now_ns() - h->away_ns) / 1e9;
        if (away >= r->host_timeout_s) {
            host_settle_locked(r, h, HOST_GONE, e.msg, true);
            break;
        }
        double wait = backoff < r->host_timeout_s - away ? backoff : r->host_timeout_s - away;
        backoff = backoff * 2 < RUN_BACKOFF_MAX_S ? backoff * 2 : RUN_BACKOFF_MAX_S;
        uint64_t until = clock_now_ns() + (uint64_t)(wait * 1e9);
        while (!r->stopping && !atomic_load(r->o->interrupted) && clock_now_ns() < until) {
            struct timespec ts = {.tv_sec = (time_t)(until / NS_PER_SEC),
                                  .tv_nsec = (long)(until % NS_PER_SEC)};
            pthread_cond_timedwait(&r->hcv, &r->mu, &ts);
        }
    }
    h->rec_done = true;
    pthread_cond_broadcast(&r->cv);
    pthread_mutex_unlock(&r->mu);
    return NULL;
}

/* Under r->mu, from the main thread: a reconnector for every host away, the ended ones
 * joined. */
static void
hosts_tend_locked(struct runner *r)
{
    for (size_t i = 0; i < r->nhosts; i++) {
        struct run_host *h = &r->hosts[i];
        if (h->rec_running && h->rec_done) {
            pthread_join(h->rec, NULL);
            h->rec_running = h->rec_done = false;
        }
        if (h->state == HOST_AWAY && !h->rec_running && !r->stopping &&
            !atomic_load(r->o->interrupted) && thread_start(&h->rec, recover_main, h) == 0)
            h->rec_running = true;
    }
}

/* Every reconnector stopped (their connects cut short) and joined. */
static void
hosts_stop(struct runner *r)
{
    pthread_mutex_lock(&r->mu);
    r->stopping = true;
    pthread_cond_broadcast(&r->hcv);
    bool any = false;
    for (size_t i = 0; i < r->nhosts; i++)
        any = any || (r->hosts != NULL && r->hosts[i].rec_running);
    pthread_mutex_unlock(&r->mu);
    if (!any)
        return;
    hosts_cancel(r);
    for (size_t i = 0; i < r->nhosts; i++) {
        if (r->hosts[i].rec_running)
            pthread_join(r->hosts[i].rec, NULL);
        r->hosts[i].rec_running = false;
    }
}

/* --- places from the cloud's metadata ------------------------------------------------------ */

static const char *
cloud_str(const json_t *cloud, const char *key)
{
    const char *s = json_string_value(json_object_get(cloud, key));
    return s != NULL && *s != '\0' ? s : NULL;
}

/* "zone '1' (the metadata: '2')" into buf when the plan's value differs from the metadata's. */
static void
place_differs(char *buf, size_t len, const char *what, const char *plan, const char *meta)
{
    if (plan[0] == '\0' || meta == NULL || strcmp(plan, meta) == 0 || strlen(buf) + 1 >= len)
        return;
    size_t used = strlen(buf);
    snprintf(buf + used, len - used, "%s%s '%s', its cloud metadata says '%s'",
             used > 0 ? "; " : "", what, plan, meta);
}

/* A host's place in the plan against its cloud metadata: a difference is a warning, recorded
 * (run.json's zone_warning, the reports) and told; the plan's value stands. */
static void
place_check(struct runner *r, struct run_host *h, const json_t *cloud)
{
    const struct plan_host *ph = h->ph;
    char diff[400] = "";
    if (!ph->zone_from_host)
        place_differs(diff, sizeof diff, "the plan says zone", ph->zone, cloud_str(cloud, "zone"));
    if (!ph->region_from_host)
        place_differs(diff, sizeof diff, "the plan says region", ph->region,
                      cloud_str(cloud, "region"));
    place_differs(diff, sizeof diff, "the plan says zone_id", ph->zone_id,
                  cloud_str(cloud, "zone_id"));
    if (diff[0] == '\0')
        return;
    char msg[600];
    snprintf(msg, sizeof msg, "%s (%s); the plan's is used", diff,
             cloud_str(cloud, "provider") ? cloud_str(cloud, "provider") : "cloud");
    h->zone_warning = strdup(msg);
    struct survey_progress p = {.kind = SURVEY_PROGRESS_WARNING, .host = ph->name, .warning = msg};
    pthread_mutex_lock(&r->mu);
    progress(r, &p);
    pthread_mutex_unlock(&r->mu);
}

/* Append ", 'name'" of a host that cannot be placed. */
static void
unplaced_add(char *buf, size_t len, size_t *n, const char *name)
{
    size_t used = strlen(buf);
    if (used + 1 < len)
        snprintf(buf + used, len - used, "%s'%s'", *n > 0 ? ", " : "", name);
    (*n)++;
}

/* Every reached host's place from its env.cloud: zone: auto / region: auto filled in, stated
 * places checked against it. A reached auto host whose metadata gives no zone (region) stops
 * the run before the first test, naming it: a guessed zone would put its cells in the wrong
 * place of every matrix. A host that could not be reached stays auto; its tests fail with its
 * own error. The schedule is made again when a place changed (cross-zone, same-zone pairs). */
static int
hosts_place(struct runner *r, struct err *e)
{
    char missing[300] = "";
    size_t nmissing = 0;
    bool placed = false;
    for (size_t i = 0; i < r->nhosts; i++) {
        struct run_host *h = &r->hosts[i];
        const json_t *cloud = json_object_get(h->env, "cloud");
        const struct plan_host *ph = h->ph;
        if (ph->zone_from_host || ph->region_from_host) {
            if (h->state != HOST_UP)
                continue; /* its tests fail or are not run with its own reason */
            const char *zone = cloud_str(cloud, "zone"), *region = cloud_str(cloud, "region");
            if ((ph->zone_from_host && zone == NULL) || (ph->region_from_host && region == NULL)) {
                unplaced_add(missing, sizeof missing, &nmissing, ph->name);
                continue;
            }
            if (plan_host_place(r->plan, i, zone, region, cloud_str(cloud, "zone_id")) != 0)
                return err_set(e, NS_ENOMEM, "out of memory");
            placed = true;
        }
        if (json_is_object(cloud))
            place_check(r, h, cloud);
        const char *id = ph->zone_id[0] != '\0' ? ph->zone_id : cloud_str(cloud, "zone_id");
        snprintf(h->zone_id, sizeof h->zone_id, "%s", id != NULL ? id : "");
    }
    if (nmissing > 0)
        return err_set(e, NS_ENOTFOUND,
                       "cannot place host%s %s: zone: auto or region: auto, but %s cloud metadata "
                       "gives none (off-cloud, no metadata service answered within nsperf env's "
                       "budget, or a VM in no zone); give %s zone and region in the plan",
                       nmissing == 1 ? "" : "s", missing, nmissing == 1 ? "its" : "their",
                       nmissing == 1 ? "its" : "their");
    if (!placed)
        return 0;
    if (plan_pair_count(r->plan) == 0)
        return err_set(e, NS_ENOTFOUND,
                       "no pairs to test once the hosts are placed by their cloud metadata "
                       "(pairs: %s, %zu zone%s)",
                       plan_pairs_name(r->plan), plan_zone_count(r->plan),
                       plan_zone_count(r->plan) == 1 ? "" : "s");
    schedule_free(r->sched);
    r->sched = NULL;
    int rc = schedule_new(r->plan, &r->sched, e);
    if (rc == 0)
        r->res->tests = schedule_test_count(r->sched);
    return rc;
}

static void
hosts_close(struct runner *r)
{
    for (size_t i = 0; i < r->nhosts && r->hosts != NULL; i++) {
        transport_close(r->hosts[i].t);
        json_decref(r->hosts[i].env);
        free(r->hosts[i].zone_warning);
        free(r->hosts[i].outages);
    }
    free(r->hosts);
}

/* A host placed by its cloud metadata that is away at the start is waited for (up to its
 * host_timeout) before the schedule is made from the places: a zone guessed would put its
 * cells in the wrong place of every matrix. */
static void
hosts_wait_auto(struct runner *r)
{
    bool cancelled = false;
    pthread_mutex_lock(&r->mu);
    for (;;) {
        bool waiting = false;
        for (size_t i = 0; i < r->nhosts; i++) {
            const struct run_host *h = &r->hosts[i];
            waiting = waiting ||
                      (h->state == HOST_AWAY && (h->ph->zone_from_host || h->ph->region_from_host));
        }
        if (!waiting)
            break;
        hosts_tend_locked(r);
        if (!tick_wait(r, &cancelled))
            break;
    }
    pthread_mutex_unlock(&r->mu);
}

/* --- progress ---------------------------------------------------------------------------- */

static double
elapsed_s(const struct runner *r)
{
    return (double)(clock_now_ns() - r->t0_ns) / 1e9;
}

/* The schedule's estimate of what is left, scaled by how the finished rounds compared. */
static double
eta_s(const struct runner *r)
{
    double left = r->fixed_next < r->nfixed ? r->est_suffix[r->fixed_next] : 0.0;
    left += r->adapt_left_s;
    if (r->measured_est_s > 0)
        left *= r->measured_s / r->measured_est_s;
    return left;
}

/* Tell the caller, under r->mu; p carries the kind's own fields, the counters are added. */
static void
progress(struct runner *r, struct survey_progress *p)
{
    if (r->o->progress == NULL)
        return;
    p->round = r->round + 1 > r->nrounds ? r->nrounds : r->round + 1;
    p->nrounds = r->nrounds;
    p->finished = r->finished;
    p->to_run = r->to_run;
    p->failed = r->res->failed;
    p->elapsed_s = elapsed_s(r);
    p->eta_s =
        r->finished + r->res->unrecorded >= r->to_run && r->adapt_left_s <= 0 ? -1.0 : eta_s(r);
    r->o->progress(p, r->o->progress_arg);
}

/* Called under r->mu when a trial is recorded. */
static void
progress_trial(struct runner *r, const struct schedule_test *t, bool ok, bool not_run,
               const char *error, double seconds)
{
    char label[320];
    struct survey_progress p = {
        .kind = SURVEY_PROGRESS_TRIAL,
        .src = r->hosts[t->src].ph->name,
        .dst = r->hosts[t->dst].ph->name,
        .scenario = plan_scenario_label(plan_scenario(r->plan, t->scenario), label, sizeof label),
        .trial = t->trial,
        .ok = ok,
        .not_run = not_run,
        .error = ok ? NULL : error,
        .seconds = seconds,
    };
    progress(r, &p);
}

/* trial.c's hook: a command about to start on a host (from a worker thread). */
static void
progress_command(void *arg, const char *host, const char *const *argv)
{
    struct runner *r = arg;
    struct survey_progress p = {.kind = SURVEY_PROGRESS_COMMAND, .host = host, .argv = argv};
    pthread_mutex_lock(&r->mu);
    progress(r, &p);
    pthread_mutex_unlock(&r->mu);
}

/* --- one test on a worker thread --------------------------------------------------------- */

static void
failure_add(struct runner *r, const struct schedule_test *t, const char *why, bool unrecorded)
{
    struct survey_run_result *res = r->res;
    struct survey_failure *f = realloc(res->failures, (res->nfailures + 1) * sizeof *f);
    if (f == NULL)
        return;
    res->failures = f;
    const struct plan_scenario *sc = plan_scenario(r->plan, t->scenario);
    size_t need = strlen(why) + 256;
    char *text = malloc(need);
    if (text == NULL)
        return;
    snprintf(text, need, "%s -> %s %s trial %u: %s", r->hosts[t->src].ph->name,
             r->hosts[t->dst].ph->name, sc->name, t->trial, why);
    f[res->nfailures++] = (struct survey_failure){.text = text, .unrecorded = unrecorded};
}

/* A trial the journal now holds, told to the adaptive state (under r->mu, or before any
 * worker runs): its headline figure read from nsperf's result as the reports read it. */
static void
adapt_feed(struct runner *r, const struct schedule_test *t, bool ok, const json_t *result)
{
    if (!survey_adapt_on(r->adapt, t->scenario))
        return;
    long i = survey_adapt_pair(r->adapt, t->src, t->dst);
    double v = 0;
    bool has = ok && journal_headline_json(scenario_of(plan_scenario(r->plan, t->scenario)).kind,
                                           result, &v);
    if (i >= 0)
        survey_adapt_record(r->adapt, t->scenario, (size_t)i, t->trial, ok, has, v);
}

static struct run_host *host_down_locked(struct runner *r, const struct schedule_test *t);

/* The journal's record of tr (and its end: tr is freed). result and counters: nsperf's (NULL
 * when none), judged for the record's counters and flags. */
static void
record(struct runner *r, struct trial_run *tr, enum journal_status status, const char *error,
       const json_t *result, const json_t *counters)
{
    char ended[40];
    clock_wall_iso8601(ended, sizeof ended);
    struct journal_trial rec;
    trial_record(r, tr, status, error, ended, &rec);
    json_t *judged_counters, *flags;
    struct survey_judge_in ji = {.sc = &rec.scenario,
                                 .src = r->hosts[tr->t.src].ph->name,
                                 .dst = r->hosts[tr->t.dst].ph->name,
                                 .src_env = r->hosts[tr->t.src].env,
                                 .dst_env = r->hosts[tr->t.dst].env,
                                 .result = result,
                                 .counters = counters};
    survey_judge(&ji, &judged_counters, &flags);
    rec.counters = judged_counters;
    rec.flags = flags;
    struct err e = {0};
    int rc = journal_append(r->j, &rec, result, &e);
    json_decref(judged_counters);
    json_decref(flags);
    bool ok = status == JOURNAL_OK;
    pthread_mutex_lock(&r->mu);
    /* Counted by what reached the journal: a trial whose line could not be written is neither
     * ok nor failed there, and a resume runs it again. */
    if (rc != 0) {
        if (r->journal_rc == 0) {
            r->journal_rc = rc;
            r->journal_err = e;
        }
        char why[NS_ERR_MSG_MAX + 64];
        snprintf(why, sizeof why, "%s, but its record could not be written: %s",
                 journal_status_name(status), e.msg);
        r->res->unrecorded++;
        failure_add(r, &tr->t, why, true);
    } else if (ok) {
        r->finished++;
        r->res->ok++;
    } else if (status == JOURNAL_NOT_RUN) {
        r->finished++;
        r->res->refused++;
        struct run_host *h = host_down_locked(r, &tr->t);
        if (h != NULL)
            h->not_run++;
    } else {
        r->finished++;
        r->res->failed++;
        failure_add(r, &tr->t, error, false);
    }
    if (rc == 0)
        adapt_feed(r, &tr->t, ok, result);
    char shown[TRIAL_ERROR_MAX];
    if (rc != 0)
        snprintf(shown, sizeof shown, "not recorded: %.360s", e.msg);
    progress_trial(r, &tr->t, rc == 0 && ok, rc == 0 && status == JOURNAL_NOT_RUN,
                   rc != 0 ? shown : error, (double)(clock_now_ns() - tr->t0) / 1e9);
    pthread_mutex_unlock(&r->mu);
    trial_run_free(tr);
}

/* Under r->mu: tr waits for its host(s) (moved in; freed when out of memory: the resume runs
 * it). */
static void
defer_locked(struct runner *r, struct trial_run *tr)
{
    if (r->ndeferred == r->capdeferred) {
        size_t cap = r->capdeferred ? 2 * r->capdeferred : 16;
        struct trial_run **d = realloc(r->deferred, cap * sizeof *d);
        if (d == NULL) {
            trial_run_free(tr);
            return;
        }
        r->deferred = d;
        r->capdeferred = cap;
    }
    r->deferred[r->ndeferred++] = tr;
}

/* Under r->mu: the first host of t that is not up (NULL when both are). */
static struct run_host *
host_down_locked(struct runner *r, const struct schedule_test *t)
{
    struct run_host *h[2] = {&r->hosts[t->src], &r->hosts[t->dst]};
    for (int i = 0; i < 2; i++)
        if (h[i]->state != HOST_UP)
            return h[i];
    return NULL;
}

/* Under r->mu: whether h's session is alive as the runner sees it; one that dropped unseen
 * (its notice on the way) is away from now. */
static bool
host_alive_locked(struct runner *r, struct run_host *h)
{
    if (h->state != HOST_UP)
        return false;
    if (transport_connected(h->t, NULL))
        return true;
    char why[NS_ERR_MSG_MAX];
    transport_drop_reason(h->t, why, sizeof why);
    host_away_locked(r, h, why[0] != '\0' ? why : "session dropped", false);
    return false;
}

/* What happens to a trial whose host h is not up: it waits (away), fails (gone) or is not run
 * (refused). Called with r->mu held; unlocks it to record. */
static void
trial_not_up_locked(struct runner *r, struct trial_run *tr, const struct run_host *h)
{
    if (h->state == HOST_AWAY) {
        defer_locked(r, tr);
        return;
    }
    char why[sizeof h->reason];
    memcpy(why, h->reason, sizeof why);
    enum journal_status st = h->state == HOST_REFUSED ? JOURNAL_NOT_RUN : JOURNAL_FAILED;
    pthread_mutex_unlock(&r->mu);
    record(r, tr, st, why, NULL, NULL);
    pthread_mutex_lock(&r->mu);
}

static void *
slot_main(void *arg)
{
    struct slot *s = arg;
    struct runner *r = s->r;
    struct trial_run *tr = s->tr;
    s->tr = NULL;
    struct run_host *src = &r->hosts[tr->t.src], *dst = &r->hosts[tr->t.dst];
    struct trial_spec spec = {
        .sc = plan_scenario(r->plan, tr->t.scenario),
        .src = &src->th,
        .dst = &dst->th,
        .token = r->token,
        .margin_s = r->o->margin_s,
        .on_command = r->o->progress != NULL ? progress_command : NULL,
        .on_command_arg = r,
    };
    struct trial_outcome o = {0};
    unsigned max = 1 + r->o->retries;
    bool done = false; /* recorded, deferred or dropped for the interrupt */
    while (!done) {
        pthread_mutex_lock(&r->mu);
        struct run_host *down = NULL;
        if (!host_alive_locked(r, src))
            down = src;
        else if (!host_alive_locked(r, dst))
            down = dst;
        if (atomic_load(r->o->interrupted)) {
            pthread_mutex_unlock(&r->mu);
            trial_run_free(tr);
            break;
        }
        if (down != NULL) {
            trial_not_up_locked(r, tr, down); /* waits, fails or is not run */
            pthread_mutex_unlock(&r->mu);
            break;
        }
        pthread_mutex_unlock(&r->mu);
        unsigned drops[2];
        transport_connected(src->t, &drops[0]);
        transport_connected(dst->t, &drops[1]);
        char started[40], ended[40];
        clock_wall_iso8601(started, sizeof started);
        survey_trial_outcome_release(&o);
        survey_trial_attempt(&spec, &s->ctl, &o);
        clock_wall_iso8601(ended, sizeof ended);
        if (o.interrupted || atomic_load(r->o->interrupted)) {
            trial_run_free(tr); /* nothing recorded: the resume runs it */
            break;
        }
        /* an attempt during which a host's session dropped is the host's failure, not the
         * test's: it is not counted, and the trial waits for the host */
        unsigned now[2];
        bool alive[2] = {transport_connected(src->t, &now[0]),
                         transport_connected(dst->t, &now[1])};
        const struct run_host *lost = NULL;
        for (int i = 0; i < 2 && !o.ok; i++)
            if (!alive[i] || now[i] != drops[i])
                lost = i == 0 ? src : dst;
        trial_run_attempt(tr, started, ended, o.ok ? NULL : o.error,
                          lost != NULL ? lost->ph->name : NULL);
        if (o.ok) {
            record(r, tr, JOURNAL_OK, NULL, o.result, o.counters);
            done = true;
        } else if ((lost == NULL || tr->natt - tr->counted > RUN_LOST_MAX) &&
                   ++tr->counted >= max) {
            record(r, tr, JOURNAL_FAILED, o.error, o.result, o.counters);
            done = true;
        }
        /* else: tried again, or (lost) found away at the loop's top and deferred */
    }
    survey_trial_outcome_release(&o);
    pthread_mutex_lock(&r->mu);
    r->round_left--;
    pthread_cond_broadcast(&r->cv);
    pthread_mutex_unlock(&r->mu);
    return NULL;
}

/* --- rounds ------------------------------------------------------------------------------ */

static void
round_wait(struct runner *r, struct slot *slots, size_t n)
{
    bool killed = false, cancelled = false;
    pthread_mutex_lock(&r->mu);
    while (r->round_left > 0) {
        hosts_tend_locked(r);
        bool going = tick_wait(r, &cancelled);
        if (!going && !killed) {
            pthread_mutex_unlock(&r->mu);
            for (size_t i = 0; i < n; i++)
                survey_trial_ctl_kill(&slots[i].ctl);
            pthread_mutex_lock(&r->mu);
            killed = true;
        }
        if (going)
            progress(r, &(struct survey_progress){.kind = SURVEY_PROGRESS_TICK});
    }
    pthread_mutex_unlock(&r->mu);
}

/* Whether test t needs no run: ok in the journal, or its pair's adaptive trials are done. */
static bool
test_skip(const struct runner *r, const struct schedule_test *t)
{
    if (trial_done(r, t))
        return true;
    if (!survey_adapt_on(r->adapt, t->scenario))
        return false;
    long i = survey_adapt_pair(r->adapt, t->src, t->dst);
    struct stats st;
    return i >= 0 && survey_adapt_done(r->adapt, t->scenario, (size_t)i, &st);
}

/* What ran last, for the next adaptive pass's layout (schedule_pass_rounds's prev). */
static int
last_set(struct runner *r, const struct slot *slots, size_t m)
{
    if (r->adapt == NULL)
        return 0;
    struct schedule_test *l = realloc(r->last, (m + 1) * sizeof *l);
    if (l == NULL)
        return NS_ENOMEM;
    r->last = l;
    for (size_t i = 0; i < m; i++)
        l[i] = slots[i].t;
    r->nlast = m;
    return 0;
}

/* Run the n trials of tr (moved in) as one round, estimated est_s seconds (0: a catch-up round,
 * not measured); ssh: it has a test with an ssh host (its setup is measured as an ssh round's).
 * A trial whose host is not up waits for it, fails or is not run without a slot. */
static int
round_run(struct runner *r, struct trial_run **tr, size_t n, double est_s, bool ssh, struct err *e)
{
    size_t m = 0;
    struct slot *slots = calloc(n + 1, sizeof *slots);
    if (slots == NULL) {
        for (size_t i = 0; i < n; i++)
            trial_run_free(tr[i]);
        return err_set(e, NS_ENOMEM, "out of memory");
    }
    pthread_mutex_lock(&r->mu);
    for (size_t i = 0; i < n; i++) {
        struct run_host *down = host_down_locked(r, &tr[i]->t);
        if (down != NULL) {
            trial_not_up_locked(r, tr[i], down);
            continue;
        }
        struct slot *s = &slots[m++];
        s->t = tr[i]->t;
        s->tr = tr[i];
        s->r = r;
        s->ctl.interrupted = r->o->interrupted;
        pthread_mutex_init(&s->ctl.mu, NULL);
    }
    pthread_mutex_unlock(&r->mu);
    uint64_t t0 = clock_now_ns();
    r->round_left = 0;
    int rc = 0;
    for (size_t i = 0; i < m; i++) {
        pthread_mutex_lock(&r->mu);
        r->round_left++;
        pthread_mutex_unlock(&r->mu);
        if (rc == 0 && thread_start(&slots[i].thread, slot_main, &slots[i]) == 0) {
            slots[i].started = true;
            continue;
        }
        pthread_mutex_lock(&r->mu);
        r->round_left--;
        pthread_mutex_unlock(&r->mu);
        if (rc == 0)
            rc = err_set(e, NS_ENOMEM, "cannot start a thread");
        trial_run_free(slots[i].tr);
    }
    round_wait(r, slots, m);
    for (size_t i = 0; i < m; i++) {
        if (slots[i].started)
            pthread_join(slots[i].thread, NULL);
        pthread_mutex_destroy(&slots[i].ctl.mu);
    }
    if (m > 0 && est_s > 0 && !atomic_load(r->o->interrupted)) {
        double wall = (double)(clock_now_ns() - t0) / 1e9;
        r->measured_s += wall;
        r->measured_est_s += est_s;
        const struct plan_scenario *sc = plan_scenario(r->plan, slots[0].t.scenario);
        int t = ssh ? 1 : 0;
        double setup = wall - sc->warmup_s - sc->duration_s;
        r->setup_sum[t] += setup;
        r->setup_max[t] = setup > r->setup_max[t] ? setup : r->setup_max[t];
        r->setup_rounds[t]++;
    }
    if (m > 0 && rc == 0 && !atomic_load(r->o->interrupted) && last_set(r, slots, m) != 0)
        rc = err_set(e, NS_ENOMEM, "out of memory");
    free(slots);
    return rc;
}

/* The n tests (those test_skip does not skip) as trials of one round. */
static int
tests_round_run(struct runner *r, const struct schedule_test *tests, size_t n, double est_s,
                bool ssh, struct err *e)
{
    struct trial_run **tr = calloc(n + 1, sizeof *tr);
    if (tr == NULL)
        return err_set(e, NS_ENOMEM, "out of memory");
    size_t m = 0;
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        if (test_skip(r, &tests[i]))
            continue;
        if (survey_adapt_on(r->adapt, tests[i].scenario))
            survey_adapt_tried(r->adapt, tests[i].scenario,
                               (size_t)survey_adapt_pair(r->adapt, tests[i].src, tests[i].dst),
                               tests[i].trial);
        if ((tr[m] = trial_run_new(&tests[i])) == NULL)
            rc = err_set(e, NS_ENOMEM, "out of memory");
        else
            m++;
    }
    if (rc == 0)
        rc = round_run(r, tr, m, est_s, ssh, e);
    else
        for (size_t i = 0; i < m; i++)
            trial_run_free(tr[i]);
    free(tr);
    return rc;
}

/* Round ri of the fixed part. */
static int
fixed_round_run(struct runner *r, size_t ri, struct err *e)
{
    size_t n = schedule_round_size(r->sched, ri);
    struct schedule_test *tests = calloc(n + 1, sizeof *tests);
    if (tests == NULL)
        return err_set(e, NS_ENOMEM, "out of memory");
    for (size_t i = 0; i < n; i++)
        schedule_round_test(r->sched, ri, i, &tests[i]);
    int rc = tests_round_run(r, tests, n, schedule_round_estimate_s(r->sched, ri),
                             schedule_round_ssh(r->sched, ri), e);
    free(tests);
    return rc;
}

static uint64_t
tests_left(const struct runner *r, size_t from)
{
    uint64_t left = 0;
    for (size_t ri = from; ri < r->nfixed; ri++) {
        size_t n = schedule_round_size(r->sched, ri);
        for (size_t i = 0; i < n; i++) {
            struct schedule_test t;
            schedule_round_test(r->sched, ri, i, &t);
            left += !test_skip(r, &t);
        }
    }
    return left;
}

/* The journal's error, once a worker met one: the run stops there. */
static int
journal_check(struct runner *r, struct err *e)
{
    if (r->journal_rc == 0)
        return 0;
    *e = r->journal_err;
    r->res->journal_failed = true;
    return r->journal_rc;
}

/* --- trials waiting for a host ------------------------------------------------------------- */

/* Under r->mu: the deferred trials whose hosts are no longer away leave the list: those of a
 * gone or refused host into *settled (recorded by the caller), those whose hosts are both up
 * into *runnable; the others stay. Arrays of r->ndeferred + 1 entries (caller frees). */
static int
deferred_take_locked(struct runner *r, struct trial_run ***runnable, size_t *nrun,
                     struct trial_run ***settled, size_t *nset)
{
    *nrun = *nset = 0;
    *runnable = calloc(r->ndeferred + 1, sizeof **runnable);
    *settled = calloc(r->ndeferred + 1, sizeof **settled);
    if (*runnable == NULL || *settled == NULL) {
        free(*runnable);
        free(*settled);
        return NS_ENOMEM;
    }
    size_t w = 0;
    for (size_t i = 0; i < r->ndeferred; i++) {
        struct trial_run *tr = r->deferred[i];
        const struct run_host *h[2] = {&r->hosts[tr->t.src], &r->hosts[tr->t.dst]};
        bool settle = false, away = false;
        for (int k = 0; k < 2; k++) {
            settle = settle || h[k]->state == HOST_GONE || h[k]->state == HOST_REFUSED;
            away = away || h[k]->state == HOST_AWAY;
        }
        if (settle)
            (*settled)[(*nset)++] = tr;
        else if (!away)
            (*runnable)[(*nrun)++] = tr;
        else
            r->deferred[w++] = tr;
    }
    r->ndeferred = w;
    return 0;
}

/* The runnable deferred trials in catch-up rounds: first fit into rounds of one scenario and
 * disjoint hosts (one trial a round when the plan is not parallel), in the order they came. */
static int
catchup_run(struct runner *r, struct trial_run **tr, size_t n, struct err *e)
{
    int rc = 0;
    bool *placed = calloc(n + 1, sizeof *placed);
    bool *busy = calloc(r->nhosts + 1, sizeof *busy);
    struct trial_run **round = calloc(n + 1, sizeof *round);
    if (placed == NULL || busy == NULL || round == NULL) {
        for (size_t i = 0; i < n; i++)
            trial_run_free(tr[i]);
        rc = err_set(e, NS_ENOMEM, "out of memory");
        n = 0;
    }
    size_t left = n;
    while (left > 0 && rc == 0) {
        size_t m = 0;
        memset(busy, 0, r->nhosts * sizeof *busy);
        uint32_t sc = UINT32_MAX;
        bool ssh = false;
        for (size_t i = 0; i < n; i++) {
            const struct schedule_test *t = &tr[i]->t;
            if (placed[i] || busy[t->src] || busy[t->dst] ||
                (sc != UINT32_MAX && t->scenario != sc))
                continue;
            if (m > 0 && !plan_parallel(r->plan))
                break;
            sc = t->scenario;
            busy[t->src] = busy[t->dst] = true;
            placed[i] = true;
            round[m++] = tr[i];
            ssh = ssh || schedule_tests_ssh(r->sched, t, 1);
        }
        left -= m;
        pthread_mutex_lock(&r->mu);
        r->nrounds++;
        pthread_mutex_unlock(&r->mu);
        rc = round_run(r, round, m, 0, ssh, e);
        if (rc == 0)
            rc = journal_check(r, e);
        r->round++;
        if (atomic_load(r->o->interrupted))
            break;
    }
    for (size_t i = 0; i < n && rc != 0; i++)
        if (!placed[i])
            trial_run_free(tr[i]);
    for (size_t i = 0; i < n && rc == 0 && atomic_load(r->o->interrupted); i++)
        if (!placed[i])
            trial_run_free(tr[i]);
    free(placed);
    free(busy);
    free(round);
    return rc;
}

/* The deferred trials that can be settled now: run those whose hosts are back, record those
 * of hosts gone or refused. Returns with nothing of them left but the trials of hosts still
 * away. */
static int
deferred_run(struct runner *r, struct err *e)
{
    int rc = 0;
    while (rc == 0 && !atomic_load(r->o->interrupted)) {
        struct trial_run **run, **set;
        size_t nrun, nset;
        pthread_mutex_lock(&r->mu);
        hosts_tend_locked(r);
        int trc = deferred_take_locked(r, &run, &nrun, &set, &nset);
        pthread_mutex_unlock(&r->mu);
        if (trc != 0)
            return err_set(e, NS_ENOMEM, "out of memory");
        for (size_t i = 0; i < nset; i++) {
            pthread_mutex_lock(&r->mu);
            struct run_host *h = host_down_locked(r, &set[i]->t);
            /* gone or refused: recorded with its reason (unlocks to record) */
            trial_not_up_locked(r, set[i], h);
            pthread_mutex_unlock(&r->mu);
        }
        free(set);
        if (nrun > 0)
            rc = catchup_run(r, run, nrun, e);
        free(run);
        if (nrun == 0)
            break;
    }
    return rc;
}

/* After the schedule: wait for the hosts still away (each until it is back, refused, or away
 * for host_timeout), running their trials as they come back. */
static int
deferred_drain(struct runner *r, struct err *e)
{
    bool cancelled = false;
    int rc = 0;
    for (;;) {
        rc = deferred_run(r, e);
        pthread_mutex_lock(&r->mu);
        bool left = r->ndeferred > 0;
        if (rc != 0 || !left || atomic_load(r->o->interrupted)) {
            pthread_mutex_unlock(&r->mu);
            break;
        }
        hosts_tend_locked(r);
        bool going = tick_wait(r, &cancelled);
        if (going)
            progress(r, &(struct survey_progress){.kind = SURVEY_PROGRESS_TICK});
        pthread_mutex_unlock(&r->mu);
        if (!going)
            break;
    }
    return rc;
}

/* The most the adaptive passes from k on may still take: per scenario, as many of its passes
 * as its busiest pair may still run (survey_adapt_left), each at its whole base rounds. */
static double
adapt_left_s(const struct runner *r, size_t k)
{
    const struct schedule *s = r->sched;
    size_t npass = schedule_pass_count(s), np = schedule_pair_count(s);
    double total = 0;
    for (uint32_t sc = 0; r->adapt != NULL && sc < plan_scenario_count(r->plan); sc++) {
        if (!survey_adapt_on(r->adapt, sc))
            continue;
        uint32_t passes = 0, most = 0;
        for (size_t j = k; j < npass; j++)
            passes += schedule_pass_scenario(s, j) == sc;
        for (size_t i = 0; i < np && passes > 0; i++) {
            uint32_t lo, hi;
            survey_adapt_left(r->adapt, sc, i, passes, &lo, &hi);
            most = hi > most ? hi : most;
        }
        for (size_t j = k; j < npass && most > 0; j++) {
            if (schedule_pass_scenario(s, j) != sc)
                continue;
            total += schedule_pass_estimate_s(s, j);
            most--;
        }
    }
    return total;
}

/* Adaptive pass k: the pairs that are not done yet take their next trial number, laid out in
 * rounds of their own (schedule_pass_rounds), after what ran last. */
static int
adapt_pass_run(struct runner *r, size_t k, struct err *e)
{
    uint32_t sc = schedule_pass_scenario(r->sched, k);
    size_t np = schedule_pair_count(r->sched), want = 0;
    uint32_t *trial = calloc(np + 1, sizeof *trial);
    if (trial == NULL)
        return err_set(e, NS_ENOMEM, "out of memory");
    for (size_t i = 0; survey_adapt_on(r->adapt, sc) && i < np; i++)
        want += (trial[i] = survey_adapt_next(r->adapt, sc, i)) > 0;
    struct schedule_rounds rr = {0};
    int rc = want > 0 ? schedule_pass_rounds(r->sched, k, trial, r->last, r->nlast, &rr, e) : 0;
    free(trial);
    pthread_mutex_lock(&r->mu);
    r->to_run += rr.ntests;
    r->nrounds += rr.nrounds;
    r->res->tests += rr.ntests;
    r->adapt_left_s = adapt_left_s(r, k + 1);
    pthread_mutex_unlock(&r->mu);
    for (size_t ri = 0; rc == 0 && ri < rr.nrounds && !atomic_load(r->o->interrupted); ri++) {
        const struct schedule_test *t = &rr.tests[rr.start[ri]];
        size_t n = rr.start[ri + 1] - rr.start[ri];
        bool ssh = schedule_tests_ssh(r->sched, t, n);
        rc = tests_round_run(r, t, n, schedule_pass_round_estimate_s(r->sched, k, ssh), ssh, e);
        if (rc == 0)
            rc = journal_check(r, e);
        r->round++;
        if (rc == 0)
            rc = deferred_run(r, e);
    }
    schedule_rounds_release(&rr);
    return rc;
}

static int
rounds_run(struct runner *r, struct err *e)
{
    r->nrounds = r->nfixed = schedule_round_count(r->sched);
    r->est_suffix = calloc(r->nrounds + 1, sizeof *r->est_suffix);
    if (r->est_suffix == NULL)
        return err_set(e, NS_ENOMEM, "out of memory");
    for (size_t ri = r->nrounds; ri > 0; ri--)
        r->est_suffix[ri - 1] = r->est_suffix[ri] + schedule_round_estimate_s(r->sched, ri - 1);
    r->to_run = tests_left(r, 0);
    r->adapt_left_s = adapt_left_s(r, schedule_fixed_pass_count(r->sched));
    int rc = 0;
    for (size_t ri = 0; ri < r->nfixed && rc == 0 && !atomic_load(r->o->interrupted); ri++) {
        r->fixed_next = ri;
        rc = fixed_round_run(r, ri, e);
        if (rc == 0)
            rc = journal_check(r, e);
        r->round++;
        r->fixed_next = ri + 1;
        /* the trials of hosts back since run before the next round */
        if (rc == 0)
            rc = deferred_run(r, e);
    }
    r->fixed_next = r->nfixed;
    size_t npass = schedule_pass_count(r->sched);
    for (size_t k = schedule_fixed_pass_count(r->sched);
         k < npass && rc == 0 && !atomic_load(r->o->interrupted); k++)
        rc = adapt_pass_run(r, k, e);
    if (rc == 0 && !atomic_load(r->o->interrupted))
        rc = deferred_drain(r, e);
    pthread_mutex_lock(&r->mu);
    r->adapt_left_s = 0;
    progress(r, &(struct survey_progress){.kind = SURVEY_PROGRESS_END});
    pthread_mutex_unlock(&r->mu);
    r->res->not_run = r->to_run - r->finished - r->res->unrecorded;
    r->res->interrupted = atomic_load(r->o->interrupted) != 0;
    return rc;
}

/* --- resume ------------------------------------------------------------------------------ */

/* s, cut to fit out, its control characters as '?': a journal's text bound for a terminal. */
static void
printable(char *out, size_t len, const char *s)
{
    size_t i = 0;
    for (; i + 1 < len && s[i] != '\0'; i++)
        out[i] = (unsigned char)s[i] < 0x20 || s[i] == 0x7f ? '?' : s[i];
    out[i] = '\0';
}

/* An ok record's key (journal_trial_key) as the plan's test it stands for; the family must be
 * the one the plan gives the pair, so that a record of other addresses does not count. */
static int
resume_take(void *arg, const struct journal_trial *rec, struct err *e)
{
    (void)e;
    struct runner *r = arg;
    if (rec->run_id == NULL || strcmp(rec->run_id, r->run_id) != 0) {
        if (r->foreign++ == 0)
            printable(r->foreign_id, sizeof r->foreign_id,
                      rec->run_id != NULL ? rec->run_id : "(none)");
        return 0;
    }
    if (rec->status != JOURNAL_OK)
        return 0;
    struct journal_key k;
    journal_trial_key(rec, &k);
    long sc = k.scenario != NULL
                  ? plan_scenario_find(r->plan, k.scenario, k.swept ? (int)k.sweep : -1, k.value)
                  : -1;
    long src = k.src != NULL ? plan_host_find(r->plan, k.src) : -1;
    long dst = k.dst != NULL ? plan_host_find(r->plan, k.dst) : -1;
    /* a data address learnt from the host is not known yet: its recorded family stands */
    const struct plan_host *sh = src >= 0 ? plan_host(r->plan, (size_t)src) : NULL;
    if (sc < 0 || src < 0 || dst < 0 || k.trial < 1 || k.trial > PLAN_MAX_TRIALS ||
        (!sh->data_address_from_host && k.family != host_family(sh, sh->data_address)))
        return 0;
    /* a trial of other parameters (an earlier revision of the plan) is not this plan's: it is
     * run again, and the reports keep the old one apart */
    struct journal_scenario now = scenario_of(plan_scenario(r->plan, (size_t)sc));
    if (journal_scenario_diff(&now, &rec->scenario) != TESTSPEC_PARAM_COUNT)
        return 0;
    /* the adaptive decision from the same figures, in the journal's order, as they came in */
    long pi = r->adapt != NULL ? survey_adapt_pair(r->adapt, (uint32_t)src, (uint32_t)dst) : -1;
    double v = 0;
    bool has = journal_trial_value(rec, &v);
    if (pi >= 0)
        survey_adapt_record(r->adapt, (uint32_t)sc, (size_t)pi, k.trial, true, has, v);
    uint64_t *d = realloc(r->done, (r->ndone + 1) * sizeof *d);
    if (d == NULL)
        return 0; /* it is run again: a duplicate ok record, never a lost one */
    r->done = d;
    r->done[r->ndone++] = trial_key(r, (uint32_t)sc, (uint32_t)src, (uint32_t)dst, k.trial);
    return 0;
}

/* The plan given against the run's (a plan of another text): refused naming each difference,
 * or with --force the next revision of the run's plan; never a run whose hosts moved. */
static int
resume_plan_check(struct runner *r, const struct journal_run *run, struct err *e)
{
    struct survey_plan_diff d;
    int rc = survey_plan_diff(run, r->plan, r->sched, &d);
    r->res->plan_diff = d.text;
    d.text = NULL;
    if (rc != 0)
        rc = err_set(e, rc, "out of memory");
    else if (d.moved)
        rc = err_set(e, NS_EINVAL,
                     "cannot resume %s: a host of the run is elsewhere in this plan (below); a run "
                     "goes on with its hosts where they were: start a new run",
                     r->o->dir);
    else if (d.n == 0 && !r->o->force)
        rc = err_set(e, NS_EINVAL,
                     "cannot resume %s: the plan's text changed since the run started (sha256 "
                     "%.12s then, %.12s now), though nothing it runs differs; give the same "
                     "plan, or --force to continue",
                     r->o->dir, run->plan_sha256, r->plan_sha);
    else if (d.n > 0 && !r->o->force)
        rc = err_set(e, NS_EINVAL,
                     "cannot resume %s: the plan differs from the run's in %zu way%s (below); "
                     "give the same plan, or --force to record it as revision %u of the run's "
                     "plan (its trials of other parameters are then kept apart, never counted "
                     "as this plan's)",
                     r->o->dir, d.n, d.n == 1 ? "" : "s", run->revision + 1);
    else if (d.n > 0) {
        r->revision = run->revision + 1;
        r->new_revision = true;
        r->res->revised = true;
    }
    survey_plan_diff_release(&d);
    return rc;
}

/* run.json of the directory being resumed: a run of this format, of the same plan (or, with
 * --force, of one whose differences become a new revision). The reader takes only the
 * versions it knows (an unknown one is refused there, with its way out): these, or the
 * oldest, refused here. The run.json stays with the runner (r->was). */
static int
resume_check(struct runner *r, struct err *e)
{
    struct journal_run *run = NULL;
    if (survey_resume_read_run(r->o->dir, &run, e) != 0)
        return NS_EINVAL;
    int rc = 0;
    r->was = run;
    r->revision = run->revision;
    if (run->schema != NULL && strcmp(run->schema, JOURNAL_RUN_SCHEMA_1) == 0)
        rc = err_set(e, NS_EINVAL,
                     "cannot resume %s: its " JOURNAL_RUN_FILE
                     " is %s, written by an older netsurvey; "
                     "resume it with that version, or start a new run",
                     r->o->dir, JOURNAL_RUN_SCHEMA_1);
    else if (run->run_id == NULL || run->plan_sha256 == NULL)
        rc = err_set(e, NS_EINVAL, "cannot resume %s: " JOURNAL_RUN_FILE " is not a netsurvey run",
                     r->o->dir);
    else if (strcmp(run->plan_sha256, r->plan_sha) != 0)
        rc = resume_plan_check(r, run, e);
    if (rc == 0 && !r->o->force)
        rc = resume_inventories_check(r, run, e);
    if (rc == 0)
        snprintf(r->run_id, sizeof r->run_id, "%s", run->run_id);
    r->res->revision = r->revision;
    return rc;
}

static int
resume_load(struct runner *r, const char *started, struct err *e)
{
    int rc = journal_open_locked(r->o->dir, &r->j, e);
    if (rc == NS_ENOTFOUND) {
        err_prefix(e, "cannot resume %s", r->o->dir);
        return NS_EINVAL;
    }
    if (rc == 0)
        rc = resume_check(r, e);
    if (rc == 0)
        rc = journal_resume(r->j, &r->res->torn_bytes, e);
    struct journal_read_stats st = {0};
    if (rc == 0)
        rc = journal_read_trials(r->o->dir, NULL, resume_take, NULL, r, &st, e);
    /* Another run's ok trial taken for this one's would make a run "complete" with results it
     * never measured: refused, as a changed plan is (resume_take counts them, so every run's
     * records are read here). */
    if (rc == 0 && r->foreign > 0)
        rc = err_set(e, NS_EINVAL,
                     "cannot resume %s: its " JOURNAL_RESULTS_FILE
                     " holds %llu trial record%s of another "
                     "run (run_id %s, this run's is %s); move them out, or start a new run",
                     r->o->dir, (unsigned long long)r->foreign, r->foreign == 1 ? "" : "s",
                     r->foreign_id, r->run_id);
    r->res->bad_lines = st.bad + st.torn + st.refused;
    if (r->ndone > 0)
        qsort(r->done, r->ndone, sizeof *r->done, key_cmp);
    /* Duplicate keys (a trial ok twice, from a journal written elsewhere) count once. */
    size_t w = 0;
    for (size_t i = 0; i < r->ndone; i++)
        if (w == 0 || r->done[w - 1] != r->done[i])
            r->done[w++] = r->done[i];
    r->ndone = w;
    r->res->done_before = w;
    if (rc == 0) {
        /* a resume that begins a revision says so: that revision's start and command */
        json_t *resumed = json_pack("{s:s, s:s}", "started", started, "command", r->o->command);
        if (resumed != NULL && r->new_revision)
            json_object_set_new(resumed, "revision", json_integer((json_int_t)r->revision));
        rc = resumed != NULL ? journal_set_state(r->j, JOURNAL_RUN_RUNNING, resumed, NULL, e)
                             : err_set(e, NS_ENOMEM, "out of memory");
        if (rc == 0 && r->new_revision) { /* what the new revision's run.json carries over */
            r->resumes = json_deep_copy(json_object_get(r->was->json, "resumes"));
            if (r->resumes == NULL)
                r->resumes = json_array();
            if (r->resumes == NULL || json_array_append(r->resumes, resumed) != 0)
                rc = err_set(e, NS_ENOMEM, "out of memory");
        }
        json_decref(resumed);
        r->running = rc == 0;
    }
    return rc;
}

/* --- the run ----------------------------------------------------------------------------- */

static int
run_prepare(struct runner *r, struct err *e)
{
    size_t len;
    const char *src = plan_source(r->plan, &len);
    uint8_t d[SHA256_LEN];
    sha256(src, len, d);
    sha256_hex_encode(d, SHA256_LEN, r->plan_sha);
    int rc = file_sha256(r->o->nsperf, r->nsperf_sha, e);
    uint8_t tok[RUN_TOKEN_BYTES];
    if (rc == 0 && sha256_random_bytes(tok, sizeof tok) != 0)
        rc = err_set(e, NS_EIO, "cannot read random bytes for the token");
    if (rc == 0) {
        sha256_hex_encode(tok, sizeof tok, r->token);
        strcat(r->token, "\n");
    }
    if (rc == 0)
        rc = schedule_new(r->plan, &r->sched, e);
    if (rc == 0 && survey_adapt_new(r->plan, r->sched, &r->adapt) != 0)
        rc = err_set(e, NS_ENOMEM, "out of memory");
    return rc;
}

static int
run_start_journal(struct runner *r, const char *started, struct err *e)
{
    int rc;
    if (r->o->resume) {
        rc = resume_load(r, started, e);
    } else {
        char stamp[32];
        clock_wall_stamp(stamp, sizeof stamp);
        uint8_t rnd[2];
        sha256_random_bytes(rnd, sizeof rnd);
        snprintf(r->run_id, sizeof r->run_id, "%s-%02x%02x", stamp, rnd[0], rnd[1]);
        rc = r->o->unique_dir ? journal_create_unique(r->o->dir, &r->j, e)
                              : journal_create(r->o->dir, &r->j, e);
    }
    if (r->j != NULL) {
        snprintf(r->res->dir, sizeof r->res->dir, "%s", journal_dir(r->j));
        size_t len = strlen(r->o->dir); /* journal_create_unique drops trailing slashes */
        while (len > 1 && r->o->dir[len - 1] == '/')
            len--;
        r->res->dir_suffixed =
            strlen(r->res->dir) != len || strncmp(r->res->dir, r->o->dir, len) != 0;
    }
    /* a directory in use, not empty, or a refused resume is the caller's mistake */
    r->res->journal_failed = rc != 0 && rc != NS_EBUSY && rc != NS_EINVAL && rc != NS_ENOMEM;
    return rc;
}

/* run.json's "adaptive": per adaptive scenario and pair (indexes into "hosts", as "pairs"),
 * how many ok trials it holds and how it stopped, as the decision saw it at the end (NULL when
 * out of memory). */
static json_t *
adapt_outcome_json(const struct runner *r)
{
    json_t *arr = json_array();
    for (uint32_t sc = 0; arr != NULL && sc < plan_scenario_count(r->plan); sc++) {
        if (!survey_adapt_on(r->adapt, sc))
            continue;
        const struct trials_policy *pol = &plan_scenario(r->plan, sc)->trials;
        json_t *pairs = json_array();
        for (size_t i = 0; pairs != NULL && i < schedule_pair_count(r->sched); i++) {
            struct stats st;
            uint32_t src, dst;
            survey_adapt_done(r->adapt, sc, i, &st);
            schedule_pair(r->sched, i, &src, &dst);
            bool met = trials_target_met(pol, &st), at_max = !met && st.n >= pol->max;
            double rel = trials_ci_relative(&st);
            json_array_append_new(
                pairs, json_pack("{s:I, s:I, s:I, s:o, s:s}", "src", (json_int_t)src, "dst",
                                 (json_int_t)dst, "trials", (json_int_t)st.n, "ci95_relative",
                                 isfinite(rel) ? json_real(rel) : json_null(), "stopped",
                                 met      ? "target met"
                                 : at_max ? "max reached"
                                          : "incomplete"));
        }
        const struct plan_scenario *ps = plan_scenario(r->plan, sc);
        json_t *o = json_pack("{s:s, s:o*}", "scenario", ps->name, "pairs", pairs);
        if (o != NULL && plan_scenario_swept(ps))
            json_object_set_new(
                o, "value",
                testspec_value_json((enum testspec_param)ps->sweep.param, plan_scenario_value(ps)));
        json_array_append_new(arr, o);
    }
    return arr;
}

/* This invocation's timings, for calibrating the estimate (netsurvey-journal(5): run.json's
 * measured). */
static json_t *
measured_json(const struct runner *r)
{
    json_t *m = json_pack("{s:f, s:f, s:I}", "wall_s", elapsed_s(r), "open_hosts_s", r->open_s,
                          "hosts", (json_int_t)r->nhosts);
    static const char *const names[2] = {"local", "ssh"};
    for (int t = 0; m != NULL && t < 2; t++) {
        if (r->setup_rounds[t] == 0)
            continue;
        json_object_set_new(m, names[t],
                            json_pack("{s:I, s:f, s:f}", "rounds", (json_int_t)r->setup_rounds[t],
                                      "setup_mean_s", r->setup_sum[t] / (double)r->setup_rounds[t],
                                      "setup_max_s", r->setup_max[t]));
    }
    return m;
}

/* Each refused host once, for the summary: its trials are not run, not a failure each. */
static void
refusals_tell(struct runner *r)
{
    for (size_t i = 0; r->hosts != NULL && i < r->nhosts; i++) {
        const struct run_host *h = &r->hosts[i];
        if (h->state != HOST_REFUSED || h->not_run == 0)
            continue;
        char **v = realloc(r->res->refusals, (r->res->nrefusals + 1) * sizeof *v);
        if (v == NULL)
            return;
        r->res->refusals = v;
        size_t need = strlen(h->reason) + 64;
        char *t = malloc(need);
        if (t == NULL)
            return;
        snprintf(t, need, "%s (%llu trial%s not run)", h->reason, (unsigned long long)h->not_run,
                 h->not_run == 1 ? "" : "s");
        v[r->res->nrefusals++] = t;
    }
}

/* run.json's "outages": every absence of a host during this invocation, [{"host", "from",
 * "to" (null: it lasted to the run's end), "why", "connects", "end": "back", "gone",
 * "refused" or "run ended"}]. */
static json_t *
outages_json(const struct runner *r)
{
    static const char *const ends[] = {[HOST_UP] = "back",
                                       [HOST_AWAY] = "run ended",
                                       [HOST_GONE] = "gone",
                                       [HOST_REFUSED] = "refused"};
    json_t *a = json_array();
    for (size_t i = 0; a != NULL && r->hosts != NULL && i < r->nhosts; i++) {
        const struct run_host *h = &r->hosts[i];
        for (size_t k = 0; k < h->noutages; k++) {
            const struct outage *o = &h->outages[k];
            json_array_append_new(
                a,
                json_pack("{s:s, s:s, s:o, s:s, s:I, s:s}", "host", h->ph->name, "from", o->from,
                          "to", o->to[0] != '\0' ? json_string(o->to) : json_null(), "why", o->why,
                          "connects", (json_int_t)(o->end == HOST_AWAY ? h->attempts : o->attempts),
                          "end", ends[o->end]));
        }
    }
    return a;
}

/* run.json's state once the rounds are over; a failure to write it is the run's error when it
 * has none (readers would take the run for one that was killed). */
static int
run_finish_journal(struct runner *r, int rc, struct err *e)
{
    if (!r->running)
        return rc; /* this process never said it runs: leave run.json as it was */
    enum journal_run_state st = rc != 0                               ? JOURNAL_RUN_FAILED
                                : atomic_load(r->o->interrupted) != 0 ? JOURNAL_RUN_INTERRUPTED
                                                                      : JOURNAL_RUN_COMPLETE;
    struct err se = {0}, me = {0};
    int mrc = 0;
    if (r->adapt != NULL) {
        json_t *outcome = adapt_outcome_json(r);
        mrc = outcome != NULL ? journal_set_member(r->j, "adaptive", outcome, &me)
                              : err_set(&me, NS_ENOMEM, "out of memory");
        json_decref(outcome);
    }
    json_t *outages = outages_json(r);
    if (outages != NULL && json_array_size(outages) > 0 && mrc == 0)
        mrc = journal_set_member(r->j, "outages", outages, &me);
    json_decref(outages);
    /* the state even when the outcome could not be written: else readers see a killed run */
    json_t *measured = measured_json(r);
    int src = journal_set_state(r->j, st, NULL, measured, &se);
    json_decref(measured);
    if (src == 0 && mrc != 0) {
        src = mrc;
        se = me;
    }
    if (src != 0 && rc == 0) {
        *e = se;
        r->res->journal_failed = true;
        return src;
    }
    return rc;
}

int
survey_run(const struct survey_run_opts *o, struct survey_run_result *res, struct err *e)
{
    memset(res, 0, sizeof *res);
    struct runner r = {.o = o, .plan = o->plan, .res = res, .t0_ns = clock_now_ns()};
    pthread_mutex_init(&r.mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&r.cv, &ca);
    pthread_cond_init(&r.hcv, &ca);
    pthread_condattr_destroy(&ca);
    char started[40];
    clock_wall_iso8601(started, sizeof started);
    r.nhosts = plan_host_count(r.plan); /* trial keys need it before the hosts open */
    r.host_timeout_s = plan_host_timeout(r.plan);
    snprintf(res->dir, sizeof res->dir, "%s", o->dir);
    int rc = run_prepare(&r, e);
    if (rc == 0) {
        res->tests = schedule_test_count(r.sched);
        rc = run_start_journal(&r, started, e);
    }
    if (rc == 0) {
        /* `netsurvey clean` of the same plan refuses while it runs (best effort) */
        struct err ae = {0};
        if (journal_active_add(journal_dir(r.j), plan_name(r.plan), r.active, sizeof r.active,
                               &ae) != 0)
            r.active[0] = '\0';
    }
    if (rc == 0 && !o->resume) {
        /* run.json first, before any host is contacted; again once environments are known. */
        r.hosts = calloc(r.nhosts, sizeof *r.hosts);
        for (size_t i = 0; r.hosts != NULL && i < r.nhosts; i++)
            r.hosts[i].ph = plan_host(r.plan, i);
        rc = r.hosts != NULL ? run_write(&r, started, o->command, e)
                             : err_set(e, NS_ENOMEM, "out of memory");
        free(r.hosts);
        r.hosts = NULL;
    }
    uint64_t open_t0 = clock_now_ns();
    if (rc == 0)
        rc = hosts_open(&r, e);
    r.open_s = (double)(clock_now_ns() - open_t0) / 1e9;
    if (rc == 0)
        hosts_wait_auto(&r);
    if (rc == 0)
        rc = hosts_place(&r, e);
    if (rc == 0 && !o->resume)
        rc = run_write(&r, started, o->command, e);
    else if (rc == 0 && r.new_revision) /* the run's start and command stay its own */
        rc = run_write(&r, r.was->started, r.was->command, e);
    if (rc == 0)
        rc = rounds_run(&r, e);
    hosts_stop(&r);
    refusals_tell(&r);
    rc = run_finish_journal(&r, rc, e);
    res->elapsed_s = elapsed_s(&r);
    hosts_close(&r);
    if (r.active[0] != '\0')
        unlink(r.active);
    for (size_t i = 0; i < r.ndeferred; i++)
        trial_run_free(r.deferred[i]);
    free(r.deferred);
    sshg_free(r.sshg);
    journal_free(r.j);
    survey_adapt_free(r.adapt);
    free(r.last);
    schedule_free(r.sched);
    free(r.done);
    free(r.est_suffix);
    journal_run_free(r.was);
    json_decref(r.resumes);
    pthread_cond_destroy(&r.cv);
    pthread_cond_destroy(&r.hcv);
    pthread_mutex_destroy(&r.mu);
    return rc;
}

void
survey_run_result_release(struct survey_run_result *r)
{
    for (size_t i = 0; i < r->nfailures; i++)
        free(r->failures[i].text);
    free(r->failures);
    for (size_t i = 0; i < r->nrefusals; i++)
        free(r->refusals[i]);
    free(r->refusals);
    free(r->plan_diff);
    memset(r, 0, sizeof *r);
}
