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

struct run_host {
    const struct plan_host *ph;
    const char *daddr; /* the data address: the plan's, or learnt (NULL until the host opens) */
    char learnt[SURVEY_ADDR_MAX];
    struct transport *t;
    char nsperf[TRANSPORT_REMOTE_PATH_MAX];
    char machine[64];    /* its `uname -m`, once deployed to ("" before) */
    const char *build;   /* the nsperf build it got (basename of the local file); NULL before */
    char nsperf_sha[65]; /* that build's sha256 */
    char error[NS_ERR_MSG_MAX];
    json_t *env;
    char zone_id[128];  /* the plan's zone_id, else the cloud metadata's ("" when neither) */
    char *zone_warning; /* the plan's place differs from the metadata's (NULL when it does not) */
    struct trial_host th;
};

struct slot {
    struct runner *r;
    struct schedule_test t;
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
    pthread_mutex_t mu; /* counters, failures, output */
    pthread_cond_t cv;
    size_t round_left;     /* tests of the current round still running */
    uint64_t to_run;       /* tests this invocation runs */
    uint64_t finished;     /* of those */
    size_t round, nrounds; /* rounds run so far / of the fixed part and the passes decided */
    size_t nfixed;         /* rounds of the fixed part */
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
    /* a resume: the run's run.json as it found it, and the plan's revision this invocation
     * runs (a new one when --force recorded the plan's differences: new_revision) */
    struct journal_run *was;
    uint32_t revision;
    bool new_revision;
    json_t *resumes; /* new_revision: run.json's "resumes", this one's included */
};

/* --- small helpers ----------------------------------------------------------------------- */

static unsigned
plan_retries_or_default(const struct survey_run_opts *o)
{
    return o->retries;
}

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
            .error = r->hosts[i].t == NULL ? r->hosts[i].error : NULL,
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

static void
trial_record(const struct runner *r, const struct schedule_test *t, const struct trial_outcome *o,
             unsigned attempts, const char *started, const char *ended, struct journal_trial *rec)
{
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
                                  .status = o->ok ? JOURNAL_OK : JOURNAL_FAILED,
                                  .error = o->ok ? NULL : o->error,
                                  .attempts = attempts,
                                  .started = started,
                                  .ended = ended,
                                  .env_src = src->ph->name,
                                  .env_dst = dst->ph->name,
                                  .tool_version = NS_VERSION,
                                  .nsperf_sha256 = r->nsperf_sha};
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

static void
host_open(struct runner *r, struct run_host *h, struct sshg *g)
{
    const struct plan_host *ph = h->ph;
    struct transport_target tt = survey_host_target(ph, r->o->accept_new_host_keys, g);
    tt.warn = host_warn;
    tt.warn_ctx = r;
    bool local = ph->transport == PLAN_TRANSPORT_LOCAL;
    const char *const local_build[] = {r->o->nsperf, NULL};
    const char *const *builds = local ? local_build : r->o->nsperf_remote;
    struct err e = {0};
    int rc = builds != NULL ? transport_open(&tt, &h->t, &e)
                            : err_set(&e, NS_EINVAL, "no nsperf for ssh hosts (--nsperf-remote)");
    struct transport_deployed d;
    bool deploy_failed = false;
    if (rc == 0) {
        rc = transport_deploy_for(h->t, builds, &d, &e);
        snprintf(h->machine, sizeof h->machine, "%s", d.machine);
        deploy_failed = rc != 0;
    }
    if (rc == 0) {
        snprintf(h->nsperf, sizeof h->nsperf, "%s", d.path);
        const char *base = strrchr(builds[d.build], '/');
        h->build = base != NULL ? base + 1 : builds[d.build];
        /* a local host's nsperf is the one run_prepare hashed */
        snprintf(h->nsperf_sha, sizeof h->nsperf_sha, "%s",
                 d.sha256_hex[0] != '\0' ? d.sha256_hex : r->nsperf_sha);
    }
    if (rc != 0) {
        snprintf(h->error, sizeof h->error, "%s", e.msg);
        transport_close(h->t);
        h->t = NULL;
    }
    h->daddr = ph->data_address;
    h->th = (struct trial_host){.name = ph->name,
                                .data_address = h->daddr,
                                .t = h->t,
                                .nsperf = h->nsperf,
                                .error = h->error,
                                .deploy_failed = deploy_failed};
}

/* A host without a data address in the plan: learn it from the host (env.h). A host whose
 * address cannot be learnt (no default route, several addresses) fails its tests with why. */
static void
host_learn(struct run_host *h)
{
    json_t *env = NULL;
    struct err e = {0};
    int rc = survey_env_read(h->t, h->nsperf, NULL, &env, &e);
    if (rc == 0)
        rc = survey_env_learn_address(env, h->learnt, sizeof h->learnt, NULL, 0, &e);
    json_decref(env);
    if (rc == 0) {
        h->daddr = h->th.data_address = h->learnt;
        return;
    }
    snprintf(h->error, sizeof h->error, "%s", e.msg);
    transport_close(h->t);
    h->t = h->th.t = NULL;
}

/* `nsperf env` on the host; a host whose environment cannot be read is still surveyed. */
static void
host_env(struct runner *r, struct run_host *h)
{
    if (h->t == NULL || atomic_load(r->o->interrupted))
        return;
    if (h->ph->data_address_from_host)
        host_learn(h);
    struct err e = {0};
    if (h->t != NULL)
        survey_env_read(h->t, h->nsperf, h->daddr, &h->env, &e);
}

static int
hosts_open(struct runner *r, struct err *e)
{
    r->nhosts = plan_host_count(r->plan);
    r->hosts = calloc(r->nhosts, sizeof *r->hosts);
    if (r->hosts == NULL)
        return err_set(e, NS_ENOMEM, "out of memory");
    /* every ssh host's `ssh -G` at once: the opens below then run none one by one */
    struct sshg *g = survey_ssh_prefetch(r->plan);
    for (size_t i = 0; i < r->nhosts; i++) {
        r->hosts[i].ph = plan_host(r->plan, i);
        host_open(r, &r->hosts[i], g);
        host_env(r, &r->hosts[i]);
    }
    sshg_free(g);
    return 0;
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
            if (h->t == NULL)
                continue;
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
    }
    free(r->hosts);
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
    double left = r->round < r->nfixed ? r->est_suffix[r->round] : 0.0;
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
progress_trial(struct runner *r, const struct schedule_test *t, const struct trial_outcome *o,
               double seconds)
{
    char label[320];
    struct survey_progress p = {
        .kind = SURVEY_PROGRESS_TRIAL,
        .src = r->hosts[t->src].ph->name,
        .dst = r->hosts[t->dst].ph->name,
        .scenario = plan_scenario_label(plan_scenario(r->plan, t->scenario), label, sizeof label),
        .trial = t->trial,
        .ok = o->ok,
        .error = o->ok ? NULL : o->error,
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

static void
record(struct runner *r, const struct schedule_test *t, const struct trial_outcome *o,
       unsigned attempts, const char *started, uint64_t t0)
{
    char ended[40];
    clock_wall_iso8601(ended, sizeof ended);
    struct journal_trial rec;
    trial_record(r, t, o, attempts, started, ended, &rec);
    json_t *counters, *flags;
    struct survey_judge_in ji = {.sc = &rec.scenario,
                                 .src = r->hosts[t->src].ph->name,
                                 .dst = r->hosts[t->dst].ph->name,
                                 .src_env = r->hosts[t->src].env,
                                 .dst_env = r->hosts[t->dst].env,
                                 .result = o->result,
                                 .counters = o->counters};
    survey_judge(&ji, &counters, &flags);
    rec.counters = counters;
    rec.flags = flags;
    struct err e = {0};
    int rc = journal_append(r->j, &rec, o->result, &e);
    json_decref(counters);
    json_decref(flags);
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
                 o->ok ? "ok" : "failed", e.msg);
        r->res->unrecorded++;
        failure_add(r, t, why, true);
    } else if (o->ok) {
        r->finished++;
        r->res->ok++;
    } else {
        r->finished++;
        r->res->failed++;
        failure_add(r, t, o->error, false);
    }
    if (rc == 0)
        adapt_feed(r, t, o->ok, o->result);
    struct trial_outcome shown = *o;
    if (rc != 0) {
        shown.ok = false;
        snprintf(shown.error, sizeof shown.error, "not recorded: %.360s", e.msg);
    }
    progress_trial(r, t, &shown, (double)(clock_now_ns() - t0) / 1e9);
    pthread_mutex_unlock(&r->mu);
}

static void *
slot_main(void *arg)
{
    struct slot *s = arg;
    struct runner *r = s->r;
    struct trial_spec spec = {
        .sc = plan_scenario(r->plan, s->t.scenario),
        .src = &r->hosts[s->t.src].th,
        .dst = &r->hosts[s->t.dst].th,
        .token = r->token,
        .margin_s = r->o->margin_s,
        .on_command = r->o->progress != NULL ? progress_command : NULL,
        .on_command_arg = r,
    };
    char started[40];
    clock_wall_iso8601(started, sizeof started);
    uint64_t t0 = clock_now_ns();
    struct trial_outcome o = {0};
    unsigned attempts = 0, max = 1 + plan_retries_or_default(r->o);
    bool unreachable = spec.src->t == NULL || spec.dst->t == NULL;
    while (attempts < max && !atomic_load(r->o->interrupted)) {
        trial_outcome_release(&o);
        trial_attempt(&spec, &s->ctl, &o);
        if (unreachable)
            break; /* nothing was attempted: attempts stays 0 */
        attempts++;
        if (o.ok || o.interrupted)
            break;
    }
    if (!o.interrupted && !atomic_load(r->o->interrupted))
        record(r, &s->t, &o, attempts, started, t0);
    trial_outcome_release(&o);
    pthread_mutex_lock(&r->mu);
    r->round_left--;
    pthread_cond_signal(&r->cv);
    pthread_mutex_unlock(&r->mu);
    return NULL;
}

/* --- rounds ------------------------------------------------------------------------------ */

static void
round_wait(struct runner *r, struct slot *slots, size_t n)
{
    bool killed = false;
    pthread_mutex_lock(&r->mu);
    while (r->round_left > 0) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        ts.tv_nsec += RUN_TICK_MS * 1000000L;
        if (ts.tv_nsec >= 1000000000L) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&r->cv, &r->mu, &ts);
        if (atomic_load(r->o->interrupted) && !killed) {
            pthread_mutex_unlock(&r->mu);
            for (size_t i = 0; i < n; i++)
                trial_ctl_kill(&slots[i].ctl);
            pthread_mutex_lock(&r->mu);
            killed = true;
        }
        if (!atomic_load(r->o->interrupted))
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

/* Run the n tests (those test_skip does not skip) as one round, estimated est_s seconds; ssh:
 * it has a test with an ssh host (its setup is measured as an ssh round's). */
static int
round_run(struct runner *r, const struct schedule_test *tests, size_t n, double est_s, bool ssh,
          struct err *e)
{
    size_t m = 0;
    struct slot *slots = calloc(n + 1, sizeof *slots);
    if (slots == NULL)
        return err_set(e, NS_ENOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) {
        struct slot *s = &slots[m];
        s->t = tests[i];
        if (test_skip(r, &s->t))
            continue;
        if (survey_adapt_on(r->adapt, s->t.scenario))
            survey_adapt_tried(r->adapt, s->t.scenario,
                               (size_t)survey_adapt_pair(r->adapt, s->t.src, s->t.dst), s->t.trial);
        s->r = r;
        s->ctl.interrupted = r->o->interrupted;
        pthread_mutex_init(&s->ctl.mu, NULL);
        m++;
    }
    uint64_t t0 = clock_now_ns();
    /* Workers never take SIGINT/SIGTERM: the main thread does, and stops them. */
    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &block, &old);
    r->round_left = 0;
    int rc = 0;
    for (size_t i = 0; i < m && rc == 0; i++) {
        pthread_mutex_lock(&r->mu);
        r->round_left++;
        pthread_mutex_unlock(&r->mu);
        if (pthread_create(&slots[i].thread, NULL, slot_main, &slots[i]) != 0) {
            pthread_mutex_lock(&r->mu);
            r->round_left--;
            pthread_mutex_unlock(&r->mu);
            rc = err_set(e, NS_ENOMEM, "cannot start a thread");
        } else {
            slots[i].started = true;
        }
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    round_wait(r, slots, m);
    for (size_t i = 0; i < m; i++) {
        if (slots[i].started)
            pthread_join(slots[i].thread, NULL);
        pthread_mutex_destroy(&slots[i].ctl.mu);
    }
    if (m > 0 && !atomic_load(r->o->interrupted)) {
        double wall = (double)(clock_now_ns() - t0) / 1e9;
        r->measured_s += wall;
        r->measured_est_s += est_s;
        const struct plan_scenario *sc = plan_scenario(r->plan, tests[0].scenario);
        int t = ssh ? 1 : 0;
        double setup = wall - sc->warmup_s - sc->duration_s;
        r->setup_sum[t] += setup;
        r->setup_max[t] = setup > r->setup_max[t] ? setup : r->setup_max[t];
        r->setup_rounds[t]++;
        if (rc == 0 && last_set(r, slots, m) != 0)
            rc = err_set(e, NS_ENOMEM, "out of memory");
    }
    free(slots);
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
    int rc = round_run(r, tests, n, schedule_round_estimate_s(r->sched, ri),
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
        rc = round_run(r, t, n, schedule_pass_round_estimate_s(r->sched, k, ssh), ssh, e);
        if (rc == 0)
            rc = journal_check(r, e);
        r->round++;
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
    for (r->round = 0; r->round < r->nfixed && rc == 0 && !atomic_load(r->o->interrupted);
         r->round++) {
        rc = fixed_round_run(r, r->round, e);
        if (rc == 0)
            rc = journal_check(r, e);
    }
    size_t npass = schedule_pass_count(r->sched);
    for (size_t k = schedule_fixed_pass_count(r->sched);
         k < npass && rc == 0 && !atomic_load(r->o->interrupted); k++)
        rc = adapt_pass_run(r, k, e);
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
    pthread_condattr_destroy(&ca);
    char started[40];
    clock_wall_iso8601(started, sizeof started);
    r.nhosts = plan_host_count(r.plan); /* trial keys need it before the hosts open */
    snprintf(res->dir, sizeof res->dir, "%s", o->dir);
    int rc = run_prepare(&r, e);
    if (rc == 0) {
        res->tests = schedule_test_count(r.sched);
        rc = run_start_journal(&r, started, e);
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
        rc = hosts_place(&r, e);
    if (rc == 0 && !o->resume)
        rc = run_write(&r, started, o->command, e);
    else if (rc == 0 && r.new_revision) /* the run's start and command stay its own */
        rc = run_write(&r, r.was->started, r.was->command, e);
    if (rc == 0)
        rc = rounds_run(&r, e);
    rc = run_finish_journal(&r, rc, e);
    res->elapsed_s = elapsed_s(&r);
    hosts_close(&r);
    journal_free(r.j);
    survey_adapt_free(r.adapt);
    free(r.last);
    schedule_free(r.sched);
    free(r.done);
    free(r.est_suffix);
    journal_run_free(r.was);
    json_decref(r.resumes);
    pthread_cond_destroy(&r.cv);
    pthread_mutex_destroy(&r.mu);
    return rc;
}

void
survey_run_result_release(struct survey_run_result *r)
{
    for (size_t i = 0; i < r->nfailures; i++)
        free(r->failures[i].text);
    free(r->failures);
    free(r->plan_diff);
    memset(r, 0, sizeof *r);
}
