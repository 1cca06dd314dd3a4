/* record.c - the trial record and run.json: the one writer (struct to JSON) and the reference
 * reader (a jansson tree to struct). journal/scan.c is the fast reader of the same lines; the
 * differential fuzzer holds the two to the same results. */
#include "journal/record.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/errors.h"
#include "common/hist.h"
#include "common/histjson.h"
#include "journal/scan.h"

const char *
journal_family_name(enum journal_family f)
{
    return f == JOURNAL_IPV6 ? "ipv6" : "ipv4";
}

enum journal_family
journal_family_of(const char *address)
{
    return strchr(address, ':') != NULL ? JOURNAL_IPV6 : JOURNAL_IPV4;
}

void
journal_trial_key(const struct journal_trial *t, struct journal_key *k)
{
    *k = (struct journal_key){
        .run_id = t->run_id,
        .scenario = t->scenario.name,
        .family = t->family,
        .src = t->src.host,
        .dst = t->dst.host,
        .trial = t->trial,
        .swept = t->scenario.swept,
        .sweep = t->scenario.sweep,
        .value = t->scenario.swept ? journal_scenario_value(&t->scenario, t->scenario.sweep) : 0.0};
}

static bool
str_same(const char *a, const char *b)
{
    return a == b || (a != NULL && b != NULL && strcmp(a, b) == 0);
}

bool
journal_key_equal(const struct journal_key *a, const struct journal_key *b)
{
    return a->trial == b->trial && a->family == b->family && str_same(a->run_id, b->run_id) &&
           str_same(a->scenario, b->scenario) && str_same(a->src, b->src) &&
           str_same(a->dst, b->dst) && a->swept == b->swept &&
           (!a->swept || (a->sweep == b->sweep && a->value == b->value));
}

bool
journal_supersedes(bool now_ok, bool before_ok)
{
    return now_ok || !before_ok;
}

/* --- writing ---------------------------------------------------------------------------------- */

/* Where a scenario holds each parameter of testspec.h (the member's type follows the type
 * column: see journal_scenario_field). */
static const size_t scenario_fields[TESTSPEC_PARAM_COUNT] = {
    [TESTSPEC_P_DURATION] = offsetof(struct journal_scenario, duration_s),
    [TESTSPEC_P_WARMUP] = offsetof(struct journal_scenario, warmup_s),
    [TESTSPEC_P_STREAMS] = offsetof(struct journal_scenario, streams),
    [TESTSPEC_P_MSG_SIZE] = offsetof(struct journal_scenario, msg_size),
    [TESTSPEC_P_RESPONSE_SIZE] = offsetof(struct journal_scenario, response_size),
    [TESTSPEC_P_RATE] = offsetof(struct journal_scenario, rate_bps),
    [TESTSPEC_P_INTERVAL] = offsetof(struct journal_scenario, interval_s),
    [TESTSPEC_P_WINDOW] = offsetof(struct journal_scenario, window),
    [TESTSPEC_P_REVERSE] = offsetof(struct journal_scenario, reverse),
    [TESTSPEC_P_COPY] = offsetof(struct journal_scenario, copy),
    [TESTSPEC_P_BUSY_POLL] = offsetof(struct journal_scenario, busy_poll),
    [TESTSPEC_P_BIDIR] = offsetof(struct journal_scenario, bidir),
    [TESTSPEC_P_PACKET_RATE] = offsetof(struct journal_scenario, packet_rate),
    [TESTSPEC_P_LOAD_STREAMS] = offsetof(struct journal_scenario, load_streams),
    [TESTSPEC_P_LOAD_DIRECTION] = offsetof(struct journal_scenario, load_direction),
};

uint64_t
journal_direction(const char *name)
{
    int d = testspec_direction_find(name);
    return d < 0 ? 0 : (uint64_t)d;
}

const char *
journal_param_key(enum testspec_param p)
{
    return (int)p >= 0 && p < TESTSPEC_PARAM_COUNT ? testspec_record_key(p) : NULL;
}

void *
journal_scenario_field(struct journal_scenario *sc, enum testspec_param p)
{
    return (char *)sc + scenario_fields[p];
}

double
journal_scenario_value(const struct journal_scenario *sc, enum testspec_param p)
{
    if ((int)p < 0 || p >= TESTSPEC_PARAM_COUNT)
        return 0;
    const char *f = (const char *)sc + scenario_fields[p];
    switch (testspec_type(p)) {
    case TESTSPEC_BOOL:
        return *(const bool *)f ? 1.0 : 0.0;
    case TESTSPEC_DURATION:
        return *(const double *)f;
    default:
        return (double)*(const uint64_t *)f;
    }
}

int
journal_param_find(const char *key)
{
    for (int i = 0; key != NULL && i < TESTSPEC_PARAM_COUNT; i++)
        if (strcmp(testspec_record_key((enum testspec_param)i), key) == 0)
            return i;
    return -1;
}

int
journal_sweep_param(const char *key, int kind)
{
    int p = journal_param_find(key);
    return p >= 0 && testspec_sweepable((enum testspec_param)p) &&
                   testspec_applies((enum testspec_param)p, kind)
               ? p
               : -1;
}

int
journal_scenario_diff(const struct journal_scenario *a, const struct journal_scenario *b)
{
    if (a->kind != b->kind)
        return -1;
    for (int i = 0; i < TESTSPEC_PARAM_COUNT; i++) {
        enum testspec_param p = (enum testspec_param)i;
        if (testspec_applies(p, a->kind) &&
            journal_scenario_value(a, p) != journal_scenario_value(b, p))
            return i;
    }
    return TESTSPEC_PARAM_COUNT;
}

void
journal_scenario_absent(struct journal_scenario *sc)
{
    *sc = (struct journal_scenario){.kind = -1, .copy = true};
}

struct journal_scenario
journal_scenario_from_spec(const char *name, const struct testspec_values *v)
{
    struct journal_scenario sc = {
        .name = name, .test = testspec_kind_name((int)v->kind), .kind = (int)v->kind};
    for (int i = 0; i < TESTSPEC_PARAM_COUNT; i++) {
        enum testspec_param p = (enum testspec_param)i;
        void *f = journal_scenario_field(&sc, p);
        if (testspec_type(p) == TESTSPEC_BOOL)
            *(bool *)f = v->v[p] != 0;
        else if (testspec_type(p) == TESTSPEC_DURATION)
            *(double *)f = v->v[p];
        else
            *(uint64_t *)f = (uint64_t)v->v[p];
    }
    return sc;
}

void
journal_scenario_spec(const struct journal_scenario *sc, struct testspec_values *v)
{
    bool known = sc->kind >= 0 && sc->kind < TESTSPEC_KIND_COUNT;
    testspec_values_default(v, known ? (enum testspec_kind)sc->kind : TESTSPEC_DEFAULT_KIND);
    v->kind = known ? (enum testspec_kind)sc->kind : (enum testspec_kind) - 1;
    for (int i = 0; i < TESTSPEC_PARAM_COUNT; i++)
        v->v[i] = journal_scenario_value(sc, (enum testspec_param)i);
}

json_t *
journal_scenario_json(const struct journal_scenario *sc)
{
    const char *test = sc->test != NULL ? sc->test : testspec_kind_name(sc->kind);
    json_t *o = json_pack("{s:s, s:s}", "name", sc->name, "test", test);
    for (int i = 0; o != NULL && i < TESTSPEC_PARAM_COUNT; i++) {
        enum testspec_param p = (enum testspec_param)i;
        if (!testspec_applies(p, sc->kind))
            continue;
        json_t *jv = testspec_value_json(p, journal_scenario_value(sc, p));
        if (json_object_set_new(o, testspec_record_key(p), jv) != 0) {
            json_decref(o);
            return NULL;
        }
    }
    if (o != NULL && sc->swept &&
        json_object_set_new(o, "sweep", json_string(testspec_record_key(sc->sweep))) != 0) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static json_t *
str_or_null(const char *s)
{
    return s != NULL ? json_string(s) : json_null();
}

static json_t *
endpoint_json(const struct journal_endpoint *ep)
{
    return json_pack("{s:s, s:s, s:s, s:s}", "host", ep->host, "zone", ep->zone, "region",
                     ep->region, "data_address", ep->data_address);
}

/* "attempts": the list, each {"started", "ended", "error"} and "host_away" when a host's absence
 * cut it short; the count alone when the caller has no list. NULL when out of memory. */
static json_t *
attempts_json(const struct journal_trial *t)
{
    if (t->attempt == NULL)
        return json_integer((json_int_t)t->attempts);
    json_t *a = json_array();
    for (size_t i = 0; a != NULL && i < t->nattempt; i++) {
        const struct journal_attempt *at = &t->attempt[i];
        json_t *o = json_pack("{s:o, s:o, s:o}", "started", str_or_null(at->started), "ended",
                              str_or_null(at->ended), "error", str_or_null(at->error));
        if (o != NULL && at->host_away != NULL &&
            json_object_set_new(o, "host_away", json_string(at->host_away)) != 0) {
            json_decref(o);
            o = NULL;
        }
        if (o == NULL || json_array_append_new(a, o) != 0) {
            json_decref(a);
            return NULL;
        }
    }
    return a;
}

json_t *
journal_trial_json(const struct journal_trial *t, const json_t *result)
{
    const char *status = journal_status_name(t->status);
    json_t *o = json_pack(
        "{s:s, s:s, s:{s:s, s:s}, s:o, s:I, s:s, s:o, s:o, s:s, s:o, s:o, s:s, s:s, s:O, s:O*, "
        "s:O*, s:{s:s, s:s}, s:{s:s, s:s}}",
        "schema", t->scenario.swept ? JOURNAL_TRIAL_SCHEMA_5 : JOURNAL_TRIAL_SCHEMA, "run_id",
        t->run_id, "plan", "name", t->plan_name, "sha256", t->plan_sha256, "scenario",
        journal_scenario_json(&t->scenario), "trial", (json_int_t)t->trial, "family",
        journal_family_name(t->family), "src", endpoint_json(&t->src), "dst",
        endpoint_json(&t->dst), "status", status != NULL ? status : "failed", "error",
        str_or_null(t->error), "attempts", attempts_json(t), "started", t->started, "ended",
        t->ended, "result", result != NULL ? result : json_null(), "counters", t->counters, "flags",
        t->flags, "env", "src", t->env_src, "dst", t->env_dst, "tool", "version", t->tool_version,
        "nsperf_sha256", t->nsperf_sha256);
    if (o != NULL && t->revision > 1) { /* version 4 (5: a sweep's), only where it says so */
        if (!t->scenario.swept)
            json_object_set_new(o, "schema", json_string(JOURNAL_TRIAL_SCHEMA_4));
        json_object_set_new(o, "revision", json_integer((json_int_t)t->revision));
    }
    return o;
}

static json_t *
run_hosts_json(const struct journal_run *r)
{
    json_t *a = json_array();
    for (size_t i = 0; a != NULL && i < r->nhosts; i++) {
        const struct journal_run_host *h = &r->hosts[i];
        json_t *o =
            json_pack("{s:s, s:s, s:s, s:s, s:s}", "name", h->name, "zone", h->zone, "region",
                      h->region, "data_address", h->data_address, "transport", h->transport);
        if (h->zone_id != NULL)
            json_object_set_new(o, "zone_id", json_string(h->zone_id));
        if (h->zone_warning != NULL)
            json_object_set_new(o, "zone_warning", json_string(h->zone_warning));
        json_object_set(o, "env", h->env != NULL ? (json_t *)(uintptr_t)h->env : json_null());
        if (h->error != NULL)
            json_object_set_new(o, "error", json_string(h->error));
        if (h->arch != NULL)
            json_object_set_new(o, "arch", json_string(h->arch));
        if (h->endpoint_build != NULL)
            json_object_set_new(o, "endpoint",
                                json_pack("{s:s, s:s?, s:s?}", "build", h->endpoint_build, "sha256",
                                          h->endpoint_sha256, "path", h->endpoint_path));
        json_array_append_new(a, o);
    }
    return a;
}

static json_t *
run_scenarios_json(const struct journal_run *r)
{
    json_t *a = json_array();
    for (size_t i = 0; a != NULL && i < r->nscenarios; i++) {
        const struct journal_run_scenario *rs = &r->scenarios[i];
        json_t *o = journal_scenario_json(&rs->sc);
        if (o != NULL && rs->sc.swept) {
            enum testspec_param p = rs->sc.sweep;
            json_t *l = json_array();
            for (size_t k = 0; l != NULL && k < rs->nvalues; k++)
                json_array_append_new(l, testspec_value_json(p, rs->values[k]));
            json_object_set_new(o, testspec_record_key(p), l);
        }
        if (o != NULL && trials_adaptive(&rs->policy)) {
            const struct trials_policy *p = &rs->policy;
            json_object_set_new(o, "trials",
                                json_pack("{s:I, s:I, s:f}", "min", (json_int_t)p->min, "max",
                                          (json_int_t)p->max, "target_ci", p->target));
            json_object_set_new(o, "planned",
                                json_pack("{s:I, s:I}", "min", (json_int_t)rs->planned, "max",
                                          (json_int_t)rs->planned_max));
        } else if (o != NULL) {
            json_object_set_new(o, "trials", json_integer((json_int_t)rs->trials));
            json_object_set_new(o, "planned", json_integer((json_int_t)rs->planned));
        }
        json_array_append_new(a, o);
    }
    return a;
}

static json_t *
run_pairs_json(const struct journal_run *r)
{
    json_t *a = json_array();
    for (size_t i = 0; a != NULL && i < r->npair_list; i++)
        json_array_append_new(a, json_pack("[I, I]", (json_int_t)r->pair_list[i].src,
                                           (json_int_t)r->pair_list[i].dst));
    return a;
}

static const char *const run_state_names[] = {
    [JOURNAL_RUN_RUNNING] = "running",
    [JOURNAL_RUN_COMPLETE] = "complete",
    [JOURNAL_RUN_INTERRUPTED] = "interrupted",
    [JOURNAL_RUN_FAILED] = "failed",
};

const char *
journal_run_state_name(enum journal_run_state s)
{
    return s > JOURNAL_RUN_UNKNOWN && s <= JOURNAL_RUN_FAILED ? run_state_names[s] : NULL;
}

enum journal_run_state
journal_run_state_from(const char *s)
{
    for (int i = JOURNAL_RUN_RUNNING; s != NULL && i <= JOURNAL_RUN_FAILED; i++)
        if (strcmp(s, run_state_names[i]) == 0)
            return (enum journal_run_state)i;
    return JOURNAL_RUN_UNKNOWN;
}

/* plan.inventories, when the plan has some. */
static void
run_inventories_json(const struct journal_run *r, json_t *doc)
{
    json_t *a = r->ninventories > 0 ? json_array() : NULL;
    for (size_t i = 0; a != NULL && i < r->ninventories; i++) {
        const struct journal_run_inventory *v = &r->inventories[i];
        json_array_append_new(a, json_pack("{s:s, s:s, s:s, s:s}", "file", v->file, "path", v->path,
                                           "format", v->format, "sha256", v->sha256));
    }
    if (a != NULL)
        json_object_set_new(json_object_get(doc, "plan"), "inventories", a);
}

json_t *
journal_run_json(const struct journal_run *r)
{
    const char *state = journal_run_state_name(r->state);
    json_t *doc = json_pack(
        "{s:s, s:s, s:{s:s, s:s, s:s, s:s, s:s%}, s:{s:s, s:o, s:s}, s:s, s:s, s:o, s:o, "
        "s:{s:I, s:I, s:I, s:f}, s:o, s:o, s:o}",
        "schema", JOURNAL_RUN_SCHEMA, "run_id", r->run_id, "plan", "name", r->plan_name,
        "description", r->plan_description != NULL ? r->plan_description : "", "file", r->plan_file,
        "sha256", r->plan_sha256, "source", r->plan_source, r->plan_source_len, "tool",
        "netsurvey_version", r->netsurvey_version, "nsperf_version", str_or_null(r->nsperf_version),
        "nsperf_sha256", r->nsperf_sha256, "started", r->started, "command", r->command, "state",
        str_or_null(state != NULL ? state : "running"), "ended", str_or_null(r->ended), "schedule",
        "rounds", (json_int_t)r->rounds, "tests", (json_int_t)r->tests, "pairs",
        (json_int_t)r->pairs, "estimate_s", r->estimate_s, "hosts", run_hosts_json(r), "scenarios",
        run_scenarios_json(r), "pairs", run_pairs_json(r));
    if (doc != NULL)
        run_inventories_json(r, doc);
    if (doc != NULL && r->host_timeout_s > 0)
        json_object_set_new(doc, "host_timeout_s", json_real(r->host_timeout_s));
    if (doc != NULL && r->resumes_json != NULL)
        json_object_set(doc, "resumes", (json_t *)(uintptr_t)r->resumes_json);
    if (doc != NULL && r->revision > 1) {
        json_object_set_new(doc, "schema", json_string(JOURNAL_RUN_SCHEMA_3));
        json_object_set_new(doc, "revision", json_integer((json_int_t)r->revision));
        json_object_set(doc, "revisions",
                        r->revisions_json != NULL ? (json_t *)(uintptr_t)r->revisions_json
                                                  : json_array());
    }
    return doc;
}

/* --- reading: the rules every reader follows (the fast one in scan.c too) ------------------ */

static const char *
jstr(const json_t *o, const char *key)
{
    return json_string_value(json_object_get(o, key));
}

/* json_integer_value: a real or any other type reads as 0. */
static json_int_t
jint(const json_t *o, const char *key)
{
    return json_integer_value(json_object_get(o, key));
}

static uint64_t
ju64(const json_t *o, const char *key)
{
    return journal_count(jint(o, key));
}

static double
jnum(const json_t *o, const char *key, bool *has)
{
    const json_t *v = json_object_get(o, key);
    *has = json_is_number(v);
    return json_number_value(v);
}

bool
journal_headline(int kind, const struct journal_result *res, double *value)
{
    if (kind < 0 || kind >= TESTSPEC_KIND_COUNT)
        return false;
    enum testspec_metric m = testspec_kind_metric((enum testspec_kind)kind);
    *value = res->metric[m] / testspec_metric_divisor(m);
    return res->has_metric[m];
}

bool
journal_trial_value(const struct journal_trial *t, double *value)
{
    return t->status == JOURNAL_OK && t->result.present &&
           journal_headline(t->scenario.kind, &t->result, value);
}

static void
endpoint_from(const json_t *o, struct journal_endpoint *ep)
{
    ep->host = jstr(o, "host");
    ep->zone = jstr(o, "zone");
    ep->region = jstr(o, "region");
    ep->data_address = jstr(o, "data_address");
}

static void
scenario_from(const json_t *o, struct journal_scenario *sc)
{
    journal_scenario_absent(sc);
    sc->name = jstr(o, "name");
    sc->test = jstr(o, "test");
    for (int i = 0; i < TESTSPEC_PARAM_COUNT; i++) {
        enum testspec_param p = (enum testspec_param)i;
        const json_t *v = json_object_get(o, testspec_record_key(p));
        if (v == NULL)
            continue;
        void *f = journal_scenario_field(sc, p);
        if (testspec_type(p) == TESTSPEC_BOOL)
            *(bool *)f = json_is_true(v);
        else if (testspec_type(p) == TESTSPEC_DURATION)
            *(double *)f = json_number_value(v);
        else if (testspec_type(p) == TESTSPEC_DIRECTION)
            *(uint64_t *)f = journal_direction(json_string_value(v));
        else
            *(uint64_t *)f = journal_count(json_integer_value(v));
    }
    sc->sweep_key = jstr(o, "sweep");
}

static int
bucket_push(uint64_t low, uint64_t count, void *arg)
{
    return journal_buckets_push(arg, low, count) ? 0 : NS_ENOMEM;
}

static int
run_push(uint64_t low, uint64_t count, void *arg)
{
    return journal_buckets_push_run(arg, (uint32_t)hist_index(low), count) ? 0 : NS_ENOMEM;
}

static int
rtt_buckets_from(const json_t *rtt, struct journal_buckets *bb, struct journal_result *r)
{
    size_t skipped;
    int64_t sub_bits = 0;
    bool runs = hist_rtt_json_form(rtt) == HISTJSON_FORM_RUNS;
    int rc = hist_rtt_json_buckets(rtt, runs ? run_push : bucket_push, bb, &sub_bits, &skipped,
                                   NULL, NULL);
    if (rc == NS_ENOMEM)
        return rc;
    r->has_hist = rc == 0;
    r->hist_runs = r->has_hist && runs;
    r->hist_sub_bits = r->has_hist ? (int)sub_bits : 0;
    return 0;
}

/* Every figure of a result but the histogram's buckets. */
static void
result_numbers_from(const json_t *res, struct journal_result *r)
{
    memset(r, 0, sizeof *r);
    r->present = json_is_object(res);
    for (int i = 0; i < TESTSPEC_METRIC_COUNT; i++) {
        enum testspec_metric m = (enum testspec_metric)i;
        const char *key = testspec_metric_key(m), *member = testspec_metric_member(m);
        const json_t *o = member != NULL ? json_object_get(res, key) : res;
        r->metric[m] = jnum(o, member != NULL ? member : key, &r->has_metric[m]);
    }
    r->retransmits = jnum(res, "retransmits", &r->has_retransmits);
    const json_t *cpu = json_object_get(res, "cpu");
    r->cpu_local_pct = jnum(cpu, "local_pct", &r->has_cpu_local);
    r->cpu_remote_pct = jnum(cpu, "remote_pct", &r->has_cpu_remote);
    r->cpu_cpb_local = jnum(cpu, "cycles_per_byte", &r->has_cpu_cpb_local);
    r->cpu_cpb_remote = jnum(cpu, "remote_cycles_per_byte", &r->has_cpu_cpb_remote);
    const json_t *udp = json_object_get(res, "udp");
    r->has_udp = json_is_object(udp);
    r->udp_sent = jnum(udp, "sent", &r->has_udp_sent);
    r->udp_lost = jnum(udp, "lost", &r->has_udp_lost);
    r->udp_lost_pct = jnum(udp, "lost_pct", &r->has_udp_lost_pct);
    r->udp_jitter_us = jnum(udp, "jitter_us", &r->has_udp_jitter);
    r->udp_unsent = jnum(udp, "unsent", &r->has_udp_unsent);
    const json_t *rtt = json_object_get(res, HISTJSON_RTT);
    r->has_rtt = json_is_object(rtt);
    r->rtt_min_us = jnum(rtt, "min", &r->has_rtt_min);
    r->rtt_max_us = jnum(rtt, "max", &r->has_rtt_max);
    r->rtt_m2_ns2 = jnum(rtt, HISTJSON_M2, &r->has_rtt_m2);
}

static int
result_from(const json_t *res, struct journal_buckets *bb, struct journal_result *r)
{
    result_numbers_from(res, r);
    return rtt_buckets_from(json_object_get(res, HISTJSON_RTT), bb, r);
}

bool
journal_headline_json(int kind, const json_t *result, double *value)
{
    struct journal_result r;
    result_numbers_from(result, &r);
    return r.present && journal_headline(kind, &r, value);
}

/* "attempts": a list (its elements as struct journal_attempt, bb holding them) or a count. */
static int
attempts_from(const json_t *v, struct journal_buckets *bb, struct journal_trial *t)
{
    if (!json_is_array(v)) {
        t->attempts = journal_attempts(json_integer_value(v));
        return 0;
    }
    for (size_t i = 0; i < json_array_size(v); i++) {
        const json_t *o = json_array_get(v, i);
        const struct journal_attempt a = {.started = jstr(o, "started"),
                                          .ended = jstr(o, "ended"),
                                          .error = jstr(o, "error"),
                                          .host_away = jstr(o, "host_away")};
        if (!journal_attempts_push(bb, &a))
            return NS_ENOMEM;
    }
    t->attempt = bb->a;
    t->nattempt = bb->na;
    t->attempts = journal_attempts_listed(bb->na);
    return 0;
}

/* "flags": each name of common/hostflags.h that holds a string is raised, with it as reason. */
static void
flags_from(const json_t *o, struct journal_trial *t)
{
    t->judged = json_is_object(o);
    for (int f = 0; f < HOSTFLAG_COUNT; f++) {
        t->flag_why[f] = jstr(o, hostflag_name((enum hostflag)f));
        if (t->flag_why[f] != NULL)
            t->flag_mask |= 1u << f;
    }
}

int
journal_trial_from_json(const json_t *rec, struct journal_buckets *bb, struct journal_trial *t)
{
    memset(t, 0, sizeof *t);
    bb->n = bb->nr = bb->nc = bb->na = 0;
    t->schema = jstr(rec, "schema");
    t->run_id = jstr(rec, "run_id");
    const json_t *plan = json_object_get(rec, "plan");
    t->plan_name = jstr(plan, "name");
    t->plan_sha256 = jstr(plan, "sha256");
    scenario_from(json_object_get(rec, "scenario"), &t->scenario);
    t->trial = journal_trial_number(jint(rec, "trial"));
    t->revision = journal_trial_number(jint(rec, "revision"));
    t->family_text = jstr(rec, "family");
    t->family = journal_family_from(t->family_text);
    endpoint_from(json_object_get(rec, "src"), &t->src);
    endpoint_from(json_object_get(rec, "dst"), &t->dst);
    t->status_text = jstr(rec, "status");
    t->status = journal_status_from(t->status_text);
    t->error = jstr(rec, "error");
    int rc = attempts_from(json_object_get(rec, "attempts"), bb, t);
    if (rc != 0)
        return rc;
    t->started = jstr(rec, "started");
    t->ended = jstr(rec, "ended");
    const json_t *env = json_object_get(rec, "env");
    t->env_src = jstr(env, "src");
    t->env_dst = jstr(env, "dst");
    const json_t *tool = json_object_get(rec, "tool");
    t->tool_version = jstr(tool, "version");
    t->nsperf_sha256 = jstr(tool, "nsperf_sha256");
    flags_from(json_object_get(rec, "flags"), t);
    rc = result_from(json_object_get(rec, "result"), bb, &t->result);
    bool hist = t->result.has_hist;
    t->result.buckets = bb->b;
    t->result.nbuckets = hist ? bb->n : 0;
    t->result.runs = bb->r;
    t->result.nruns = hist ? bb->nr : 0;
    t->result.counts = bb->c;
    t->result.ncounts = hist ? bb->nc : 0;
    return rc;
}

static bool
has_prefix(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* Values quoted in messages are cut: a report lists them, and a line may hold anything. */
#define QUOTE_MAX 64

/* Once the kind is known: a parameter that does not apply to it reads as 0 (both readers take
 * an absent "copy" as true, the copying nsperf of before, whatever the kind). */
static void
scenario_settle(struct journal_scenario *sc)
{
    sc->copy = sc->copy && testspec_applies(TESTSPEC_P_COPY, sc->kind);
    int p = journal_sweep_param(sc->sweep_key, sc->kind);
    sc->swept = p >= 0;
    sc->sweep = p >= 0 ? (enum testspec_param)p : TESTSPEC_P_DURATION;
}

int
journal_trial_check(struct journal_trial *t, struct err *e)
{
    if (t->schema == NULL || !has_prefix(t->schema, JOURNAL_TRIAL_SCHEMA_FAMILY))
        return err_set(e, NS_EPARSE, "not a trial record");
    if (strcmp(t->schema, JOURNAL_TRIAL_SCHEMA_5) != 0 &&
        strcmp(t->schema, JOURNAL_TRIAL_SCHEMA_4) != 0 &&
        strcmp(t->schema, JOURNAL_TRIAL_SCHEMA) != 0 &&
        strcmp(t->schema, JOURNAL_TRIAL_SCHEMA_2) != 0 &&
        strcmp(t->schema, JOURNAL_TRIAL_SCHEMA_1) != 0)
        return err_set(e, NS_EPROTO, "unsupported schema '%.*s' (this netsurvey reads %s to %s)",
                       QUOTE_MAX, t->schema, JOURNAL_TRIAL_SCHEMA_1, JOURNAL_TRIAL_SCHEMA_5);
    t->scenario.kind = testspec_kind_find(t->scenario.test);
    if (t->scenario.kind < 0)
        return err_set(e, NS_EPARSE, "unknown test kind '%s'",
                       t->scenario.test != NULL ? t->scenario.test : "");
    if (t->status == JOURNAL_STATUS_OTHER)
        return t->status_text != NULL
                   ? err_set(e, NS_EPROTO,
                             "unknown status '%.*s' (a trial is ok, failed or not_run)", QUOTE_MAX,
                             t->status_text)
                   : err_set(e, NS_EPROTO, "no status (a trial is ok, failed or not_run)");
    if (t->trial == 0) /* its place among the planned trials is not known */
        return err_set(e, NS_EPARSE, "no trial number (an integer from 1)");
    scenario_settle(&t->scenario);
    return 0;
}

/* A figure in its domain: a number from 0 to max (NaN is none). */
static bool
figure_ok(bool has, double v, double max)
{
    return !has || (v >= 0 && v <= max);
}

int
journal_trial_domain(const struct journal_trial *t, struct err *e)
{
    if (t->family_text != NULL && strcmp(t->family_text, "ipv4") != 0 &&
        strcmp(t->family_text, "ipv6") != 0)
        return err_set(e, NS_ERANGE, "unknown family '%.*s' (ipv4 or ipv6)", QUOTE_MAX,
                       t->family_text);
    if (t->status != JOURNAL_OK)
        return 0; /* a failed trial's partial result is never a figure */
    const struct journal_result *r = &t->result;
    double v = 0;
    if (!r->present)
        return err_set(e, NS_ERANGE, "status ok without a result");
    if (!journal_headline(t->scenario.kind, r, &v))
        return err_set(e, NS_ERANGE, "status ok without its headline figure (%s)",
                       testspec_kind_name(t->scenario.kind));
    if (!figure_ok(true, v, JOURNAL_FIGURE_MAX))
        return err_set(e, NS_ERANGE, "headline figure %g out of its domain (0 to %g)", v,
                       JOURNAL_FIGURE_MAX);
    const struct {
        const char *name;
        bool has;
        double v, max;
    } figs[] = {
        {"retransmits", r->has_retransmits, r->retransmits, JOURNAL_FIGURE_MAX},
        {"cpu.local_pct", r->has_cpu_local, r->cpu_local_pct, JOURNAL_FIGURE_MAX},
        {"cpu.remote_pct", r->has_cpu_remote, r->cpu_remote_pct, JOURNAL_FIGURE_MAX},
        {"udp.sent", r->has_udp_sent, r->udp_sent, JOURNAL_FIGURE_MAX},
        {"udp.lost", r->has_udp_lost, r->udp_lost, JOURNAL_FIGURE_MAX},
        {"udp.lost_pct", r->has_udp_lost_pct, r->udp_lost_pct, 100.0},
        {"udp.jitter_us", r->has_udp_jitter, r->udp_jitter_us, JOURNAL_FIGURE_MAX},
        {"rtt_us.min", r->has_rtt_min, r->rtt_min_us, JOURNAL_FIGURE_MAX},
        {"rtt_us.max", r->has_rtt_max, r->rtt_max_us, JOURNAL_FIGURE_MAX},
        {"rtt_us." HISTJSON_M2, r->has_rtt_m2, r->rtt_m2_ns2, 1.7e308},
    };
    for (size_t i = 0; i < sizeof figs / sizeof figs[0]; i++)
        if (!figure_ok(figs[i].has, figs[i].v, figs[i].max))
            return err_set(e, NS_ERANGE, "%s %g out of its domain (0 to %g)", figs[i].name,
                           figs[i].v, figs[i].max);
    return 0;
}

static bool
num_same(double a, double b)
{
    return a == b && signbit(a) == signbit(b);
}

static bool
endpoint_equal(const struct journal_endpoint *a, const struct journal_endpoint *b)
{
    return str_same(a->host, b->host) && str_same(a->zone, b->zone) &&
           str_same(a->region, b->region) && str_same(a->data_address, b->data_address);
}

static bool
scenario_equal(const struct journal_scenario *a, const struct journal_scenario *b)
{
    return str_same(a->name, b->name) && str_same(a->test, b->test) && a->kind == b->kind &&
           a->msg_size == b->msg_size && a->response_size == b->response_size &&
           a->streams == b->streams && num_same(a->duration_s, b->duration_s) &&
           num_same(a->warmup_s, b->warmup_s) && num_same(a->interval_s, b->interval_s) &&
           a->rate_bps == b->rate_bps && a->reverse == b->reverse && a->window == b->window &&
           a->copy == b->copy && a->busy_poll == b->busy_poll && a->bidir == b->bidir &&
           a->packet_rate == b->packet_rate && a->load_streams == b->load_streams &&
           a->load_direction == b->load_direction && a->swept == b->swept && a->sweep == b->sweep &&
           str_same(a->sweep_key, b->sweep_key);
}

static bool
result_equal(const struct journal_result *a, const struct journal_result *b)
{
    for (int m = 0; m < TESTSPEC_METRIC_COUNT; m++)
        if (a->has_metric[m] != b->has_metric[m] || !num_same(a->metric[m], b->metric[m]))
            return false;
    bool flags = a->present == b->present && a->has_retransmits == b->has_retransmits &&
                 a->has_cpu_local == b->has_cpu_local && a->has_cpu_remote == b->has_cpu_remote &&
                 a->has_udp == b->has_udp && a->has_udp_sent == b->has_udp_sent &&
                 a->has_udp_lost == b->has_udp_lost && a->has_udp_lost_pct == b->has_udp_lost_pct &&
                 a->has_udp_jitter == b->has_udp_jitter && a->has_udp_unsent == b->has_udp_unsent &&
                 a->has_cpu_cpb_local == b->has_cpu_cpb_local &&
                 a->has_cpu_cpb_remote == b->has_cpu_cpb_remote && a->has_rtt == b->has_rtt &&
                 a->has_rtt_min == b->has_rtt_min && a->has_rtt_max == b->has_rtt_max &&
                 a->has_rtt_m2 == b->has_rtt_m2 && a->has_hist == b->has_hist &&
                 a->hist_runs == b->hist_runs && a->hist_sub_bits == b->hist_sub_bits &&
                 a->nbuckets == b->nbuckets && a->nruns == b->nruns && a->ncounts == b->ncounts;
    bool nums =
        num_same(a->retransmits, b->retransmits) && num_same(a->cpu_local_pct, b->cpu_local_pct) &&
        num_same(a->cpu_remote_pct, b->cpu_remote_pct) && num_same(a->udp_sent, b->udp_sent) &&
        num_same(a->udp_lost, b->udp_lost) && num_same(a->udp_lost_pct, b->udp_lost_pct) &&
        num_same(a->udp_jitter_us, b->udp_jitter_us) && num_same(a->udp_unsent, b->udp_unsent) &&
        num_same(a->cpu_cpb_local, b->cpu_cpb_local) &&
        num_same(a->cpu_cpb_remote, b->cpu_cpb_remote) && num_same(a->rtt_min_us, b->rtt_min_us) &&
        num_same(a->rtt_max_us, b->rtt_max_us) && num_same(a->rtt_m2_ns2, b->rtt_m2_ns2);
    if (!flags || !nums)
        return false;
    for (size_t i = 0; i < a->nbuckets; i++)
        if (a->buckets[i].low_ns != b->buckets[i].low_ns ||
            a->buckets[i].count != b->buckets[i].count)
            return false;
    for (size_t i = 0; i < a->nruns; i++)
        if (a->runs[i].first != b->runs[i].first || a->runs[i].len != b->runs[i].len)
            return false;
    for (size_t i = 0; i < a->ncounts; i++)
        if (a->counts[i] != b->counts[i])
            return false;
    return true;
}

static bool
attempts_equal(const struct journal_trial *a, const struct journal_trial *b)
{
    if (a->attempts != b->attempts || a->nattempt != b->nattempt)
        return false;
    for (size_t i = 0; i < a->nattempt; i++) {
        const struct journal_attempt *x = &a->attempt[i], *y = &b->attempt[i];
        if (!str_same(x->started, y->started) || !str_same(x->ended, y->ended) ||
            !str_same(x->error, y->error) || !str_same(x->host_away, y->host_away))
            return false;
    }
    return true;
}

static bool
flags_equal(const struct journal_trial *a, const struct journal_trial *b)
{
    bool same = a->judged == b->judged && a->flag_mask == b->flag_mask;
    for (int f = 0; same && f < HOSTFLAG_COUNT; f++)
        same = str_same(a->flag_why[f], b->flag_why[f]);
    return same;
}

bool
journal_trial_equal(const struct journal_trial *a, const struct journal_trial *b)
{
    return str_same(a->schema, b->schema) && str_same(a->run_id, b->run_id) &&
           str_same(a->plan_name, b->plan_name) && str_same(a->plan_sha256, b->plan_sha256) &&
           scenario_equal(&a->scenario, &b->scenario) && a->trial == b->trial &&
           a->revision == b->revision && a->family == b->family &&
           str_same(a->family_text, b->family_text) && endpoint_equal(&a->src, &b->src) &&
           endpoint_equal(&a->dst, &b->dst) && a->status == b->status &&
           str_same(a->status_text, b->status_text) && str_same(a->error, b->error) &&
           attempts_equal(a, b) && str_same(a->started, b->started) &&
           str_same(a->ended, b->ended) && str_same(a->env_src, b->env_src) &&
           str_same(a->env_dst, b->env_dst) && str_same(a->tool_version, b->tool_version) &&
           str_same(a->nsperf_sha256, b->nsperf_sha256) && result_equal(&a->result, &b->result) &&
           flags_equal(a, b);
}

/* --- run.json -----------------------------------------------------------------------------------
 */

struct run_store {
    struct journal_run run;
    struct journal_run_host *hosts;
    struct journal_run_scenario *scenarios;
    struct journal_pair *pairs;
    struct journal_run_inventory *inventories;
    struct journal_run_revision *revisions; /* each one's hosts and scenarios: allocated apart */
};

static void
run_inventories_from(const json_t *arr, struct journal_run_inventory *out)
{
    size_t i;
    const json_t *v;
    json_array_foreach(arr, i, v)
    {
        out[i] = (struct journal_run_inventory){.file = jstr(v, "file"),
                                                .path = jstr(v, "path"),
                                                .format = jstr(v, "format"),
                                                .sha256 = jstr(v, "sha256")};
    }
}

/* "trials" and "planned" in either form: numbers (a fixed count), or objects (adaptive). An
 * adaptive policy that does not hold together (a target that is no positive number, min above
 * max) reads as a fixed count of its min. */
static void
run_trials_from(const json_t *s, struct journal_run_scenario *rs)
{
    const json_t *t = json_object_get(s, "trials"), *pl = json_object_get(s, "planned");
    bool has;
    if (!json_is_object(t)) {
        rs->trials = ju64(s, "trials");
        rs->planned = rs->planned_max = ju64(s, "planned");
        rs->policy = trials_fixed((uint32_t)(rs->trials > UINT32_MAX ? UINT32_MAX : rs->trials));
        return;
    }
    uint64_t min = ju64(t, "min"), max = ju64(t, "max");
    double target = jnum(t, "target_ci", &has);
    min = min > UINT32_MAX ? UINT32_MAX : min;
    max = max > UINT32_MAX ? UINT32_MAX : max;
    rs->trials = min;
    rs->planned = ju64(pl, "min");
    rs->planned_max = ju64(pl, "max");
    if (has && target > 0 && isfinite(target) && min >= 2 && min <= max)
        rs->policy = (struct trials_policy){(uint32_t)min, (uint32_t)max, target};
    else
        rs->policy = trials_fixed((uint32_t)min);
}

/* A sweep's list, in its parameter's member: numbers of the parameter's type, at least two,
 * at most TESTSPEC_SWEEP_MAX_VALUES, none twice; the scenario's parameter holds the first. */
static int
run_sweep_from(const json_t *s, struct journal_run_scenario *rs, struct err *e)
{
    enum testspec_param p = rs->sc.sweep;
    const json_t *l = json_object_get(s, testspec_record_key(p)), *v;
    size_t n = json_array_size(l), i;
    const char *name = rs->sc.name != NULL ? rs->sc.name : "";
    if (n < 2 || n > TESTSPEC_SWEEP_MAX_VALUES)
        return err_set(e, NS_EPARSE,
                       "scenario '%.*s': a sweep of %s needs a list of 2 to %d values", QUOTE_MAX,
                       name, testspec_record_key(p), TESTSPEC_SWEEP_MAX_VALUES);
    json_array_foreach(l, i, v)
    {
        bool whole = testspec_type(p) != TESTSPEC_DURATION;
        double x = json_number_value(v);
        if ((whole ? !json_is_integer(v) : !json_is_number(v)) || !(x >= 0) || !isfinite(x))
            return err_set(e, NS_EPARSE, "scenario '%.*s': a value of its sweep of %s is no %s",
                           QUOTE_MAX, name, testspec_record_key(p),
                           whole ? "whole number" : "number");
        for (size_t k = 0; k < i; k++)
            if (rs->values[k] == x)
                return err_set(e, NS_EPARSE, "scenario '%.*s': its sweep of %s lists %.17g twice",
                               QUOTE_MAX, name, testspec_record_key(p), x);
        rs->values[i] = x;
    }
    rs->nvalues = n;
    /* the scenario's parameter as the first value (the list read as no number) */
    void *f = journal_scenario_field(&rs->sc, p);
    if (testspec_type(p) == TESTSPEC_DURATION)
        *(double *)f = rs->values[0];
    else
        *(uint64_t *)f = (uint64_t)rs->values[0];
    return 0;
}

static int
run_scenarios_from(const json_t *arr, struct journal_run_scenario *out, struct err *e)
{
    size_t i;
    const json_t *s;
    json_array_foreach(arr, i, s)
    {
        struct journal_run_scenario *rs = &out[i];
        scenario_from(s, &rs->sc);
        rs->sc.kind = testspec_kind_find(rs->sc.test);
        if (rs->sc.kind < 0)
            return err_set(e, NS_EPARSE, "scenario '%s': unknown test kind '%s'",
                           rs->sc.name != NULL ? rs->sc.name : "",
                           rs->sc.test != NULL ? rs->sc.test : "");
        scenario_settle(&rs->sc);
        run_trials_from(s, rs);
        rs->recorded = s;
        int rc = rs->sc.swept ? run_sweep_from(s, rs, e) : 0;
        if (rc != 0)
            return rc;
    }
    return 0;
}

static void
run_hosts_from(const json_t *arr, struct journal_run_host *out)
{
    size_t i;
    const json_t *h;
    json_array_foreach(arr, i, h)
    {
        const json_t *ep = json_object_get(h, "endpoint");
        out[i] = (struct journal_run_host){.name = jstr(h, "name"),
                                           .zone = jstr(h, "zone"),
                                           .region = jstr(h, "region"),
                                           .zone_id = jstr(h, "zone_id"),
                                           .zone_warning = jstr(h, "zone_warning"),
                                           .data_address = jstr(h, "data_address"),
                                           .transport = jstr(h, "transport"),
                                           .env = json_object_get(h, "env"),
                                           .error = jstr(h, "error"),
                                           .arch = jstr(h, "arch"),
                                           .endpoint_build = jstr(ep, "build"),
                                           .endpoint_sha256 = jstr(ep, "sha256"),
                                           .endpoint_path = jstr(ep, "path")};
    }
}

bool
journal_run_schema_unknown(const char *schema)
{
    return schema != NULL && has_prefix(schema, JOURNAL_RUN_SCHEMA_FAMILY) &&
           strcmp(schema, JOURNAL_RUN_SCHEMA_3) != 0 && strcmp(schema, JOURNAL_RUN_SCHEMA) != 0 &&
           strcmp(schema, JOURNAL_RUN_SCHEMA_1) != 0;
}

/* "revisions": each earlier revision's hosts and scenarios. */
static int
run_revisions_from(const json_t *arr, struct journal_run_revision *out, struct err *e)
{
    size_t i;
    const json_t *v;
    json_array_foreach(arr, i, v)
    {
        const json_t *hosts = json_object_get(v, "hosts"), *scens = json_object_get(v, "scenarios");
        const json_t *plan = json_object_get(v, "plan");
        size_t nh = json_array_size(hosts), ns = json_array_size(scens);
        struct journal_run_host *h = calloc(nh ? nh : 1, sizeof *h);
        struct journal_run_scenario *s = calloc(ns ? ns : 1, sizeof *s);
        out[i] =
            (struct journal_run_revision){.revision = journal_trial_number(jint(v, "revision")),
                                          .plan_file = jstr(plan, "file"),
                                          .plan_sha256 = jstr(plan, "sha256"),
                                          .started = jstr(v, "started"),
                                          .command = jstr(v, "command"),
                                          .hosts = h,
                                          .nhosts = nh,
                                          .scenarios = s,
                                          .nscenarios = ns};
        if (h == NULL || s == NULL)
            return err_set(e, NS_ENOMEM, "out of memory");
        run_hosts_from(hosts, h);
        int rc = run_scenarios_from(scens, s, e);
        if (rc != 0)
            return rc;
    }
    return 0;
}

/* run.json of the versions this reader knows only: a newer one may mean anything by the same
 * names. */
static int
run_schema_check(const char *schema, struct err *e)
{
    const char *known = JOURNAL_RUN_SCHEMA_3 ", " JOURNAL_RUN_SCHEMA " and " JOURNAL_RUN_SCHEMA_1;
    if (schema == NULL)
        return err_set(e, NS_EPROTO, "no schema: not a netsurvey run (this netsurvey reads %s)",
                       known);
    if (!has_prefix(schema, JOURNAL_RUN_SCHEMA_FAMILY))
        return err_set(e, NS_EPROTO,
                       "schema '%.*s' is not a netsurvey run (this netsurvey reads %s)", QUOTE_MAX,
                       schema, known);
    if (journal_run_schema_unknown(schema))
        return err_set(e, NS_EPROTO, "unsupported schema '%.*s' (this netsurvey reads %s)",
                       QUOTE_MAX, schema, known);
    return 0;
}

/* The pairs whose two indexes name hosts of the run (others are left out). */
static size_t
run_pairs_from(const json_t *arr, size_t nhosts, struct journal_pair *out)
{
    size_t i, n = 0;
    const json_t *pr;
    json_array_foreach(arr, i, pr)
    {
        json_int_t a = json_integer_value(json_array_get(pr, 0));
        json_int_t b = json_integer_value(json_array_get(pr, 1));
        if (json_array_size(pr) != 2 || !json_is_integer(json_array_get(pr, 0)) ||
            !json_is_integer(json_array_get(pr, 1)) || a < 0 || b < 0 || (uint64_t)a >= nhosts ||
            (uint64_t)b >= nhosts)
            continue;
        out[n++] = (struct journal_pair){(uint32_t)a, (uint32_t)b};
    }
    return n;
}

int
journal_run_from_json(json_t *doc, struct journal_run **out, struct err *e)
{
    *out = NULL;
    const json_t *hosts = json_object_get(doc, "hosts"), *scens = json_object_get(doc, "scenarios");
    const json_t *pairs = json_object_get(doc, "pairs");
    const json_t *invs = json_object_get(json_object_get(doc, "plan"), "inventories");
    const json_t *revs = json_object_get(doc, "revisions");
    size_t nh = json_array_size(hosts), ns = json_array_size(scens), np = json_array_size(pairs);
    size_t ni = json_array_size(invs), nr = json_array_size(revs);
    struct run_store *st = calloc(1, sizeof *st);
    if (st != NULL) {
        st->hosts = calloc(nh ? nh : 1, sizeof *st->hosts);
        st->scenarios = calloc(ns ? ns : 1, sizeof *st->scenarios);
        st->pairs = calloc(np ? np : 1, sizeof *st->pairs);
        st->inventories = calloc(ni ? ni : 1, sizeof *st->inventories);
        st->revisions = calloc(nr ? nr : 1, sizeof *st->revisions);
    }
    if (st == NULL || st->hosts == NULL || st->scenarios == NULL || st->pairs == NULL ||
        st->inventories == NULL || st->revisions == NULL) {
        if (st != NULL) {
            free(st->hosts);
            free(st->scenarios);
            free(st->pairs);
            free(st->inventories);
            free(st->revisions);
        }
        free(st);
        return err_set(e, NS_ENOMEM, "out of memory");
    }
    struct journal_run *r = &st->run;
    r->json = json_incref(doc);
    r->schema = jstr(doc, "schema");
    int rc = run_schema_check(r->schema, e);
    if (rc != 0) {
        journal_run_free(r);
        return rc;
    }
    r->run_id = jstr(doc, "run_id");
    const json_t *plan = json_object_get(doc, "plan"), *src = json_object_get(plan, "source");
    r->plan_name = jstr(plan, "name");
    r->plan_file = jstr(plan, "file");
    r->plan_description = jstr(plan, "description");
    r->plan_sha256 = jstr(plan, "sha256");
    r->plan_source = json_string_value(src);
    r->plan_source_len = json_string_length(src);
    r->tool = json_object_get(doc, "tool");
    r->netsurvey_version = jstr(r->tool, "netsurvey_version");
    r->nsperf_version = jstr(r->tool, "nsperf_version");
    r->nsperf_sha256 = jstr(r->tool, "nsperf_sha256");
    r->started = jstr(doc, "started");
    r->command = jstr(doc, "command");
    r->state = journal_run_state_from(jstr(doc, "state"));
    r->ended = jstr(doc, "ended");
    const json_t *sched = json_object_get(doc, "schedule");
    bool has;
    r->rounds = ju64(sched, "rounds");
    r->tests = ju64(sched, "tests");
    r->pairs = ju64(sched, "pairs");
    r->estimate_s = jnum(sched, "estimate_s", &has);
    r->host_timeout_s = jnum(doc, "host_timeout_s", &has);
    run_hosts_from(hosts, st->hosts);
    r->hosts = st->hosts;
    r->nhosts = nh;
    r->scenarios = st->scenarios;
    r->nscenarios = ns;
    r->has_pairs = json_is_array(pairs);
    r->npair_list = run_pairs_from(pairs, nh, st->pairs);
    r->pair_list = st->pairs;
    run_inventories_from(invs, st->inventories);
    r->inventories = st->inventories;
    r->ninventories = ni;
    rc = run_scenarios_from(scens, st->scenarios, e);
    r->revision = journal_trial_number(jint(doc, "revision"));
    r->revision = r->revision > 0 ? r->revision : 1;
    r->revisions = st->revisions;
    r->nrevisions = nr;
    if (rc == 0)
        rc = run_revisions_from(revs, st->revisions, e);
    if (rc != 0) {
        journal_run_free(r);
        return rc;
    }
    *out = r;
    return 0;
}

void
journal_run_free(struct journal_run *r)
{
    if (r == NULL)
        return;
    struct run_store *st = (struct run_store *)r; /* run is its first member */
    json_decref(r->json);
    for (size_t i = 0; i < r->nrevisions; i++) {
        free((void *)(uintptr_t)st->revisions[i].hosts);
        free((void *)(uintptr_t)st->revisions[i].scenarios);
    }
    free(st->revisions);
    free(st->hosts);
    free(st->scenarios);
    free(st->pairs);
    free(st->inventories);
    free(st);
}
