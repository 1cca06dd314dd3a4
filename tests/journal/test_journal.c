/* test_journal.c - the journal module: the run directory (creation refuses a non-empty
 * directory, appends are whole lines, a resume cuts a torn last line), the writer and the reader
 * round trip (every field of a trial record and of run.json), the key, the reading rules (types,
 * unknown kinds, schema), torn and bad lines, the caps, and the fast decoder agreeing with
 * jansson on the writer's own lines. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "common/hist.h"
#include "common/histjson.h"
#include "journal/journal.h"
#include "journal/scan.h"

static char tmpdir[] = "/tmp/ns-journal-XXXXXX";

static int
setup(void **state)
{
    (void)state;
    return mkdtemp(tmpdir) != NULL ? 0 : -1;
}

static int
teardown(void **state)
{
    (void)state;
    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

static void
path_in(char *buf, size_t len, const char *a, const char *b)
{
    snprintf(buf, len, "%s/%s%s%s", tmpdir, a, b != NULL ? "/" : "", b != NULL ? b : "");
}

/* A new run directory tmpdir/name (its path into dir), open for writing. */
static struct journal *
fresh(const char *name, char dir[PATH_MAX])
{
    path_in(dir, PATH_MAX, name, NULL);
    struct journal *j = NULL;
    struct err e = {0};
    assert_int_equal(journal_create(dir, &j, &e), 0);
    return j;
}

static size_t
file_text(const char *path, char *buf, size_t len)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    size_t n = fread(buf, 1, len - 1, f);
    buf[n] = '\0';
    fclose(f);
    return n;
}

static void
file_append(const char *path, const char *text)
{
    FILE *f = fopen(path, "a");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* Three attempts: one cut short by a host's absence, one failed, the last as the status says. */
static const struct journal_attempt sample_attempts[3] = {
    {.started = "2026-11-30T15:00:01.000Z",
     .ended = "2026-11-30T15:00:01.500Z",
     .error = "zone2-vm: session dropped while the command ran: no answer \"x\"",
     .host_away = "zone2-vm"},
    {.started = "2026-11-30T15:00:03.000Z",
     .ended = "2026-11-30T15:00:04.000Z",
     .error = "deadline exceeded \xc3\xa9"},
    {.started = "2026-11-30T15:00:04.100Z", .ended = "2026-11-30T15:00:05.210Z"}};

/* A trial record with a distinct value in every field. */
static struct journal_trial
sample_trial(uint32_t n, enum journal_status status)
{
    /* What the hosts counted (recorded, not read back) and the flags judged of it (read back) */
    static json_t *counters, *flags;
    if (flags == NULL) {
        counters = json_pack("{s:{s:s, s:{s:s, s:i}}, s:n}", "src", "interface", "dl0", "qdisc",
                             "kind", "htb", "drops", 317141, "dst");
        flags = json_pack("{s:s, s:s}", "drops", "sender zone1-vm: qdisc htb dropped 317141",
                          "stall", "nothing arrived for 5.02 s of the 10 s measured (50 %)");
    }
    return (struct journal_trial){
        .counters = counters,
        .flags = status == JOURNAL_OK ? flags : NULL,
        .run_id = "20261130T150000Z-7f3c",
        .plan_name = "westus3-zones",
        .plan_sha256 = "5e1f32a1",
        .scenario = {.name = "latency",
                     .kind = TESTSPEC_UDP_RR,
                     .msg_size = 250,
                     .response_size = 1000,
                     .streams = 1,
                     .duration_s = 2.5,
                     .warmup_s = 0.5,
                     .interval_s = 0.25,
                     .rate_bps = 7, /* do not apply to udp_rr: never written */
                     .reverse = true,
                     .window = 65536,
                     .copy = true, /* tcp_stream's only: never written, reads false */
                     .busy_poll = true},
        .trial = n,
        .family = JOURNAL_IPV6,
        .src = {.host = "zone1-vm", .zone = "1", .region = "westus3", .data_address = "fd00::4"},
        .dst = {.host = "zone2-vm", .zone = "2", .region = "eastus", .data_address = "fd00::5"},
        .status = status,
        .error = status == JOURNAL_OK ? NULL : "ssh: connection reset \"quoted\" \xc3\xa9",
        .attempts = 3,
        .attempt = sample_attempts,
        .nattempt = status == JOURNAL_NOT_RUN ? 0 : 3,
        .started = "2026-11-30T15:00:01.000Z",
        .ended = "2026-11-30T15:00:05.210Z",
        .env_src = "zone1-vm",
        .env_dst = "zone2-vm",
        .tool_version = "0.1.0",
        .nsperf_sha256 = "abab"};
}

static struct hist *
sample_hist(void)
{
    struct hist *h = hist_new();
    assert_non_null(h);
    for (uint64_t i = 0; i < 5000; i++)
        hist_record(h, 20000 + (i * 7919) % 400000);
    return h;
}

static json_t *
sample_result(const struct hist *h)
{
    return json_pack("{s:o, s:f, s:f, s:i, s:{s:f, s:f}, s:{s:i, s:i, s:f, s:f}, s:f}", "rtt_us",
                     hist_to_rtt_json(h), "throughput_bps", 9.5e8, "connections_per_s", 1234.5,
                     "retransmits", 7, "cpu", "local_pct", 12.5, "remote_pct", 33.25, "udp", "sent",
                     1000, "lost", 10, "lost_pct", 1.0, "jitter_us", 4.5, "transactions_per_s",
                     99.0);
}

static const struct journal_run minimal_run = {.run_id = "r1",
                                               .plan_name = "p",
                                               .plan_file = "p.yaml",
                                               .plan_sha256 = "00ff",
                                               .plan_source = "",
                                               .netsurvey_version = "0.1.0",
                                               .nsperf_sha256 = "abab",
                                               .started = "2026-11-30T15:00:00.123Z",
                                               .command = "netsurvey run p.yaml",
                                               .state = JOURNAL_RUN_RUNNING};

/* A run.json with what every run has, state running, through j. */
static void
write_minimal_run_locked(struct journal *j)
{
    struct err e = {0};
    assert_int_equal(journal_write_run(j, &minimal_run, &e), 0);
}

/* The same into the existing directory dir, which nobody holds. */
static void
write_minimal_run(const char *dir)
{
    struct journal *j = NULL;
    struct err e = {0};
    /* journal_open_locked takes only a directory that holds a run.json */
    char path[PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/%s", dir, JOURNAL_RUN_FILE);
    file_append(path, "{}");
    assert_int_equal(journal_open_locked(dir, &j, &e), 0);
    write_minimal_run_locked(j);
    journal_free(j);
}

static void
assert_str(const char *got, const char *want)
{
    if (want == NULL)
        assert_null(got);
    else
        assert_string_equal(got, want);
}

/* The parameters that apply to kind, as bits of enum testspec_param. */
static unsigned
applying(int kind)
{
    unsigned bits = 0;
    for (int i = 0; i < TESTSPEC_PARAM_COUNT; i++)
        bits |= testspec_applies((enum testspec_param)i, kind) ? 1u << i : 0;
    return bits;
}

/* A scenario read back: name, kind, and every parameter that applies to the kind as written;
 * the others are not written, so they read as 0, and their keys are absent. */
static void
assert_scenario_as_written(const struct journal_scenario *got, const struct journal_scenario *w)
{
    assert_str(got->name, w->name);
    assert_str(got->test, testspec_kind_name(w->kind));
    assert_int_equal(got->kind, w->kind);
    for (int i = 0; i < TESTSPEC_PARAM_COUNT; i++) {
        enum testspec_param p = (enum testspec_param)i;
        double want = testspec_applies(p, w->kind) ? journal_scenario_value(w, p) : 0;
        if (journal_scenario_value(got, p) != want)
            fail_msg("%s: %s read %g, want %g", w->name, journal_param_key(p),
                     journal_scenario_value(got, p), want);
    }
    json_t *o = journal_scenario_json(w);
    assert_non_null(o);
    for (int i = 0; i < TESTSPEC_PARAM_COUNT; i++) {
        enum testspec_param p = (enum testspec_param)i;
        assert_int_equal(json_object_get(o, journal_param_key(p)) != NULL,
                         testspec_applies(p, w->kind));
    }
    assert_int_equal(json_object_size(o), 2 + (size_t)__builtin_popcount(applying(w->kind)));
    json_decref(o);
}

/* Every written member read back as written. */
static void
assert_trial_as_written(const struct journal_trial *got, const struct journal_trial *w)
{
    assert_string_equal(got->schema, JOURNAL_TRIAL_SCHEMA);
    assert_str(got->run_id, w->run_id);
    assert_str(got->plan_name, w->plan_name);
    assert_str(got->plan_sha256, w->plan_sha256);
    assert_scenario_as_written(&got->scenario, &w->scenario);
    assert_int_equal(got->trial, w->trial);
    assert_int_equal(got->family, w->family);
    const struct journal_endpoint *ge[] = {&got->src, &got->dst}, *we[] = {&w->src, &w->dst};
    for (int i = 0; i < 2; i++) {
        assert_str(ge[i]->host, we[i]->host);
        assert_str(ge[i]->zone, we[i]->zone);
        assert_str(ge[i]->region, we[i]->region);
        assert_str(ge[i]->data_address, we[i]->data_address);
    }
    assert_int_equal(got->status, w->status);
    assert_str(got->error, w->error);
    assert_int_equal(got->attempts, w->attempt != NULL ? w->nattempt : w->attempts);
    assert_int_equal(got->nattempt, w->attempt != NULL ? w->nattempt : 0);
    for (size_t i = 0; i < got->nattempt; i++) {
        assert_str(got->attempt[i].started, w->attempt[i].started);
        assert_str(got->attempt[i].ended, w->attempt[i].ended);
        assert_str(got->attempt[i].error, w->attempt[i].error);
        assert_str(got->attempt[i].host_away, w->attempt[i].host_away);
    }
    assert_str(got->started, w->started);
    assert_str(got->ended, w->ended);
    assert_str(got->env_src, w->env_src);
    assert_str(got->env_dst, w->env_dst);
    assert_str(got->tool_version, w->tool_version);
    assert_str(got->nsperf_sha256, w->nsperf_sha256);
    assert_int_equal(got->judged, w->flags != NULL);
    unsigned mask = 0;
    for (int f = 0; f < HOSTFLAG_COUNT; f++) {
        const char *why =
            json_string_value(json_object_get(w->flags, hostflag_name((enum hostflag)f)));
        assert_str(got->flag_why[f], why);
        mask |= why != NULL ? 1u << f : 0;
    }
    assert_int_equal(got->flag_mask, mask);
}

/* The figures of sample_result(h), and h's buckets. */
static void
assert_result_of(const struct journal_result *r, const struct hist *h)
{
    assert_true(r->present);
    assert_true(r->has_metric[TESTSPEC_M_THROUGHPUT] && r->metric[TESTSPEC_M_THROUGHPUT] == 9.5e8);
    assert_true(r->has_metric[TESTSPEC_M_CONNECTIONS] &&
                r->metric[TESTSPEC_M_CONNECTIONS] == 1234.5);
    assert_true(r->has_retransmits && r->retransmits == 7.0);
    assert_true(r->has_cpu_local && r->cpu_local_pct == 12.5);
    assert_true(r->has_cpu_remote && r->cpu_remote_pct == 33.25);
    assert_true(r->has_udp && r->has_udp_sent && r->udp_sent == 1000.0);
    assert_true(r->has_udp_lost && r->udp_lost == 10.0);
    assert_true(r->has_udp_lost_pct && r->udp_lost_pct == 1.0);
    assert_true(r->has_udp_jitter && r->udp_jitter_us == 4.5);
    assert_true(r->has_rtt && r->has_metric[TESTSPEC_M_RTT_MEAN] && r->has_rtt_min &&
                r->has_rtt_max);
    assert_true(fabs(r->metric[TESTSPEC_M_RTT_MEAN] - hist_mean(h) / 1e3) < 1e-9);
    assert_true(r->rtt_min_us == (double)h->min / 1e3);
    assert_true(r->rtt_max_us == (double)h->max / 1e3);
    assert_true(r->has_rtt_m2 && r->rtt_m2_ns2 == h->m2);
    assert_true(r->has_hist);
    /* nsperf's runs form: every bucket of h in some run with its count, zeros only inside runs */
    assert_true(r->hist_runs);
    assert_int_equal(r->hist_sub_bits, HIST_SUB_BITS);
    assert_int_equal(r->nbuckets, 0);
    size_t k = 0, end = 0;
    uint64_t covered = 0;
    for (size_t i = 0; i < r->nruns; i++) {
        assert_true(r->runs[i].first > end || (i == 0 && r->runs[i].first >= end));
        assert_true(r->runs[i].len >= 1);
        assert_int_not_equal(r->counts[k], 0);                      /* starts at a count */
        assert_int_not_equal(r->counts[k + r->runs[i].len - 1], 0); /* and ends at one */
        for (uint32_t j = 0; j < r->runs[i].len; j++, k++) {
            assert_int_equal(r->counts[k], h->buckets[r->runs[i].first + j]);
            covered += r->counts[k];
        }
        end = (size_t)r->runs[i].first + r->runs[i].len;
    }
    assert_int_equal(k, r->ncounts);
    assert_int_equal(covered, h->count);
}

struct collected {
    int n;
    const struct hist *h;
    bool minimal; /* an ok trial holds minimal_result(), a failed one none */
    struct journal_trial want[4];
    size_t skipped;
    unsigned long skipped_line[4];
    enum journal_skip_kind kind[4];
    char why[4][256];
};

/* The least an ok record holds to be data (journal_trial_domain): its headline figure. */
#define MINIMAL_RTT_US 250.0

/* t appended with the least result an ok record needs (none for a failed one). */
static int
append_trial(struct journal *j, const struct journal_trial *t, struct err *e)
{
    json_t *r =
        t->status == JOURNAL_OK ? json_pack("{s:{s:f}}", "rtt_us", "mean", MINIMAL_RTT_US) : NULL;
    int rc = journal_append(j, t, r, e);
    json_decref(r);
    return rc;
}

static int
collect(void *arg, const struct journal_trial *t, struct err *e)
{
    (void)e;
    struct collected *c = arg;
    assert_true(c->n < 4);
    assert_trial_as_written(t, &c->want[c->n]);
    double v = 0;
    if (c->h != NULL)
        assert_result_of(&t->result, c->h);
    else if (c->minimal && t->status == JOURNAL_OK)
        assert_true(journal_trial_value(t, &v) && v == MINIMAL_RTT_US);
    else
        assert_false(t->result.present);
    c->n++;
    return 0;
}

static int
skipped(void *arg, const struct journal_skip *s, struct err *e)
{
    (void)e;
    struct collected *c = arg;
    assert_non_null(strstr(s->path, JOURNAL_RESULTS_FILE));
    if (c->skipped < 4) {
        c->skipped_line[c->skipped] = s->line;
        c->kind[c->skipped] = s->kind;
        snprintf(c->why[c->skipped], sizeof c->why[0], "%s", s->why);
    }
    c->skipped++;
    return 0;
}

static void
test_trial_round_trip_every_field(void **state)
{
    (void)state;
    char dir[PATH_MAX];
    struct journal *j = fresh("a/b/run", dir);
    struct err e = {0};
    struct hist *h = sample_hist();
    json_t *res = sample_result(h);
    struct collected c = {.h = h};
    c.want[0] = sample_trial(1, JOURNAL_OK);
    c.want[1] = sample_trial(2, JOURNAL_FAILED);
    c.want[2] = sample_trial(3, JOURNAL_NOT_RUN);
    c.want[2].attempt = NULL; /* the count alone, as records before the list */
    c.want[2].attempts = 0;
    assert_int_equal(journal_append(j, &c.want[0], res, &e), 0);
    assert_int_equal(journal_append(j, &c.want[1], res, &e), 0); /* a failed one's partial result */
    assert_int_equal(journal_append(j, &c.want[2], res, &e), 0);
    journal_free(j);
    for (int slow = 0; slow < 2; slow++) {
        if (slow)
            setenv("NETSURVEY_JOURNAL_SLOW", "1", 1);
        c.n = 0;
        struct journal_read_stats st;
        assert_int_equal(journal_read_trials(dir, NULL, collect, skipped, &c, &st, &e), 0);
        unsetenv("NETSURVEY_JOURNAL_SLOW");
        assert_int_equal(c.n, 3);
        assert_int_equal(st.records, 3);
        assert_int_equal(st.bad + st.torn, 0);
        assert_int_equal(c.skipped, 0);
    }
    /* A directory that holds anything is never reused by a new run. */
    assert_int_equal(journal_create(dir, &j, &e), NS_EBUSY);
    assert_null(j);
    assert_non_null(strstr(e.msg, "exists and is not empty"));
    json_decref(res);
    hist_free(h);
}

/* The writer's own lines are the fast decoder's: it takes them, and jansson agrees. */
static void
test_fast_decoder_takes_written_lines(void **state)
{
    (void)state;
    struct hist *h = sample_hist();
    json_t *res = sample_result(h);
    struct journal_scan *s = journal_scan_new();
    struct journal_buckets bb = {0};
    static const enum journal_status statuses[] = {JOURNAL_FAILED, JOURNAL_OK, JOURNAL_NOT_RUN};
    for (int k = 0; k < 3; k++) {
        bool ok = statuses[k] == JOURNAL_OK;
        struct journal_trial w = sample_trial(7, statuses[k]);
        json_t *rec = journal_trial_json(&w, ok ? res : NULL);
        char *line = json_dumps(rec, JSON_COMPACT);
        struct journal_trial fast, slow;
        assert_true(journal_scan_trial(s, line, strlen(line), &fast));
        assert_int_equal(journal_trial_from_json(rec, &bb, &slow), 0);
        struct err e;
        assert_int_equal(journal_trial_check(&fast, &e), 0);
        assert_int_equal(journal_trial_check(&slow, &e), 0);
        assert_true(journal_trial_equal(&fast, &slow));
        assert_trial_as_written(&fast, &w);
        if (ok)
            assert_result_of(&fast.result, h);
        free(line);
        json_decref(rec);
    }
    journal_buckets_release(&bb);
    journal_scan_free(s);
    json_decref(res);
    hist_free(h);
}

static void
test_run_round_trip_every_field(void **state)
{
    (void)state;
    char dir[PATH_MAX];
    struct journal *j = fresh("runjson", dir);
    struct err e = {0};
    json_t *env = json_pack("{s:s, s:i}", "kernel", "6.1", "cpus", 4);
    struct journal_run_host hosts[] = {{.name = "a",
                                        .zone = "1",
                                        .region = "r",
                                        .data_address = "10.0.0.1",
                                        .transport = "local",
                                        .env = env,
                                        .arch = "aarch64",
                                        .endpoint_build = "nsperf-static-aarch64",
                                        .endpoint_sha256 = "a4fc",
                                        .endpoint_path = "/h/.cache/netsurvey/nsperf-static-a4fc"},
                                       {.name = "b",
                                        .zone = "2",
                                        .region = "r",
                                        .data_address = "10.0.0.2",
                                        .transport = "ssh",
                                        .error = "cannot connect"}};
    struct journal_run_scenario scens[] = {
        {.sc = sample_trial(1, JOURNAL_OK).scenario, .trials = 3, .planned = 6},
        {.sc = {.name = "tput",
                .kind = TESTSPEC_TCP_STREAM,
                .streams = 4,
                .msg_size = 1 << 20,
                .response_size = 99, /* does not apply to tcp_stream: never written */
                .duration_s = 10,
                .rate_bps = 900000000,
                .reverse = true,
                .interval_s = 1},
         .trials = 1,
         .planned = 2}};
    struct journal_pair pairs[] = {{0, 1}, {1, 0}};
    static const char source[] = "name: p\nhosts: []\n\t\"x\": \xc3\xa9\n";
    struct journal_run_inventory invs[] = {
        {.file = "vms.json", .path = "/p/vms.json", .format = "azure", .sha256 = "aa11"},
        {.file = "~/.ssh/config",
         .path = "/h/.ssh/config",
         .format = "ssh_config",
         .sha256 = "bb"}};
    struct journal_run w = {.run_id = "r1",
                            .plan_name = "p",
                            .plan_description = "a \"plan\" & its words",
                            .plan_file = "p.yaml",
                            .plan_sha256 = "00ff",
                            .plan_source = source,
                            .plan_source_len = sizeof source - 1,
                            .netsurvey_version = "0.1.0",
                            .nsperf_version = NULL,
                            .nsperf_sha256 = "abab",
                            .started = "2026-11-30T15:00:00.123Z",
                            .command = "netsurvey run p.yaml",
                            .rounds = 4,
                            .tests = 12,
                            .pairs = 2,
                            .estimate_s = 28.5,
                            .hosts = hosts,
                            .nhosts = 2,
                            .scenarios = scens,
                            .nscenarios = 2,
                            .state = JOURNAL_RUN_INTERRUPTED,
                            .ended = "2026-11-30T15:01:00.000Z",
                            .pair_list = pairs,
                            .npair_list = 2,
                            .inventories = invs,
                            .ninventories = 2};
    assert_int_equal(journal_write_run(j, &w, &e), 0);
    journal_free(j);
    struct journal_run *r = NULL;
    assert_int_equal(journal_read_run(dir, &r, &e), 0);
    assert_string_equal(r->schema, JOURNAL_RUN_SCHEMA);
    assert_string_equal(r->run_id, "r1");
    assert_string_equal(r->plan_name, "p");
    assert_string_equal(r->plan_file, "p.yaml");
    assert_string_equal(r->plan_sha256, "00ff");
    assert_string_equal(r->plan_description, w.plan_description);
    assert_int_equal(r->plan_source_len, sizeof source - 1);
    assert_memory_equal(r->plan_source, source, sizeof source - 1);
    assert_string_equal(r->netsurvey_version, "0.1.0");
    assert_null(r->nsperf_version);
    assert_string_equal(r->nsperf_sha256, "abab");
    assert_non_null(json_object_get(r->tool, "nsperf_version"));
    assert_string_equal(r->started, w.started);
    assert_string_equal(r->command, w.command);
    assert_int_equal(r->rounds, 4);
    assert_int_equal(r->tests, 12);
    assert_int_equal(r->pairs, 2);
    assert_true(r->estimate_s == 28.5);
    assert_int_equal(r->state, JOURNAL_RUN_INTERRUPTED);
    assert_string_equal(r->ended, w.ended);
    assert_true(r->has_pairs);
    assert_int_equal(r->npair_list, 2);
    assert_int_equal(r->pair_list[0].src, 0);
    assert_int_equal(r->pair_list[0].dst, 1);
    assert_int_equal(r->pair_list[1].src, 1);
    assert_int_equal(r->pair_list[1].dst, 0);
    assert_int_equal(r->nhosts, 2);
    for (size_t i = 0; i < 2; i++) {
        assert_string_equal(r->hosts[i].name, hosts[i].name);
        assert_string_equal(r->hosts[i].zone, hosts[i].zone);
        assert_string_equal(r->hosts[i].region, hosts[i].region);
        assert_string_equal(r->hosts[i].data_address, hosts[i].data_address);
        assert_string_equal(r->hosts[i].transport, hosts[i].transport);
        assert_str(r->hosts[i].error, hosts[i].error);
        /* the architecture and the endpoint deployed: written where known, read back */
        assert_str(r->hosts[i].arch, hosts[i].arch);
        assert_str(r->hosts[i].endpoint_build, hosts[i].endpoint_build);
        assert_str(r->hosts[i].endpoint_sha256, hosts[i].endpoint_sha256);
        assert_str(r->hosts[i].endpoint_path, hosts[i].endpoint_path);
    }
    assert_null(r->hosts[1].arch);
    assert_null(json_object_get(json_array_get(json_object_get(r->json, "hosts"), 1), "endpoint"));
    assert_true(json_equal(r->hosts[0].env, env));
    assert_true(json_is_null(r->hosts[1].env));
    assert_int_equal(r->nscenarios, 2);
    for (size_t i = 0; i < 2; i++) {
        assert_scenario_as_written(&r->scenarios[i].sc, &scens[i].sc);
        assert_int_equal(r->scenarios[i].trials, scens[i].trials);
        assert_int_equal(r->scenarios[i].planned, scens[i].planned);
        assert_int_equal(json_integer_value(json_object_get(r->scenarios[i].recorded, "trials")),
                         scens[i].trials);
    }
    assert_int_equal(r->ninventories, 2);
    for (size_t i = 0; i < 2; i++) {
        assert_string_equal(r->inventories[i].file, invs[i].file);
        assert_string_equal(r->inventories[i].path, invs[i].path);
        assert_string_equal(r->inventories[i].format, invs[i].format);
        assert_string_equal(r->inventories[i].sha256, invs[i].sha256);
    }
    journal_run_free(r);
    /* a run without inventories writes none, and reads as none */
    w.ninventories = 0;
    json_t *doc = journal_run_json(&w);
    assert_null(json_object_get(json_object_get(doc, "plan"), "inventories"));
    assert_int_equal(journal_run_from_json(doc, &r, &e), 0);
    assert_int_equal(r->ninventories, 0);
    journal_run_free(r);
    json_decref(doc);
    json_decref(env);
}

/* Adaptive trials in run.json: the policy and the least and most trials planned, written as
 * objects and read back; a fixed count beside them keeps its numbers; an adaptive policy that
 * does not hold together reads as a fixed count of its min. */
static void
test_run_adaptive_trials(void **state)
{
    (void)state;
    struct err e = {0};
    struct journal_run_scenario scens[] = {
        {.sc = sample_trial(1, JOURNAL_OK).scenario,
         .policy = {3, 10, 0.02},
         .trials = 3,
         .planned = 6,
         .planned_max = 20},
        {.sc = sample_trial(1, JOURNAL_OK).scenario, .trials = 2, .planned = 4}};
    scens[1].sc.name = "fixed";
    struct journal_run w = {.run_id = "r1",
                            .plan_name = "p",
                            .plan_file = "p.yaml",
                            .plan_sha256 = "00ff",
                            .plan_source = "x",
                            .plan_source_len = 1,
                            .netsurvey_version = "0.1.0",
                            .nsperf_sha256 = "abab",
                            .started = "2026-11-30T15:00:00.123Z",
                            .command = "netsurvey run p.yaml",
                            .scenarios = scens,
                            .nscenarios = 2};
    json_t *doc = journal_run_json(&w);
    assert_non_null(doc);
    const json_t *s0 = json_array_get(json_object_get(doc, "scenarios"), 0);
    const json_t *s1 = json_array_get(json_object_get(doc, "scenarios"), 1);
    const json_t *t = json_object_get(s0, "trials"), *pl = json_object_get(s0, "planned");
    assert_int_equal(json_integer_value(json_object_get(t, "min")), 3);
    assert_int_equal(json_integer_value(json_object_get(t, "max")), 10);
    assert_true(json_real_value(json_object_get(t, "target_ci")) == 0.02);
    assert_int_equal(json_integer_value(json_object_get(pl, "min")), 6);
    assert_int_equal(json_integer_value(json_object_get(pl, "max")), 20);
    assert_int_equal(json_integer_value(json_object_get(s1, "trials")), 2);
    assert_int_equal(json_integer_value(json_object_get(s1, "planned")), 4);
    struct journal_run *r = NULL;
    assert_int_equal(journal_run_from_json(doc, &r, &e), 0);
    const struct journal_run_scenario *a = &r->scenarios[0], *f = &r->scenarios[1];
    assert_true(trials_adaptive(&a->policy) && a->policy.min == 3 && a->policy.max == 10);
    assert_true(a->policy.target == 0.02);
    assert_true(a->trials == 3 && a->planned == 6 && a->planned_max == 20);
    assert_false(trials_adaptive(&f->policy));
    assert_true(f->policy.min == 2 && f->policy.max == 2);
    assert_true(f->trials == 2 && f->planned == 4 && f->planned_max == 4);
    journal_run_free(r);
    /* max below min, or no target: a fixed count of min */
    json_t *bad = json_pack("{s:i, s:i, s:f}", "min", 5, "max", 3, "target_ci", 0.02);
    json_object_set_new(json_array_get(json_object_get(doc, "scenarios"), 0), "trials", bad);
    assert_int_equal(journal_run_from_json(doc, &r, &e), 0);
    assert_false(trials_adaptive(&r->scenarios[0].policy));
    assert_int_equal(r->scenarios[0].policy.max, 5);
    journal_run_free(r);
    json_object_del(bad, "target_ci");
    json_object_set_new(bad, "max", json_integer(8));
    assert_int_equal(journal_run_from_json(doc, &r, &e), 0);
    assert_false(trials_adaptive(&r->scenarios[0].policy));
    assert_int_equal(r->scenarios[0].policy.max, 5);
    journal_run_free(r);
    json_decref(doc);
}

static void
test_run_errors(void **state)
{
    (void)state;
    char dir[PATH_MAX], path[PATH_MAX];
    struct journal_run *r = NULL;
    struct err e = {0};
    path_in(dir, sizeof dir, "no-such-run", NULL);
    assert_int_equal(journal_read_run(dir, &r, &e), NS_ENOTFOUND);
    assert_non_null(strstr(e.msg, "unable to open"));
    assert_null(r);
    path_in(dir, sizeof dir, "badrun", NULL);
    struct journal *j = NULL;
    assert_int_equal(journal_create(dir, &j, &e), 0);
    journal_free(j);
    path_in(path, sizeof path, "badrun", JOURNAL_RUN_FILE);
    file_append(path, "{\"schema\":\"netsurvey.run/1\",\n \"x\":}");
    assert_int_equal(journal_read_run(dir, &r, &e), NS_EPARSE);
    assert_non_null(strstr(e.msg, "run.json:2:"));
    /* A kind testspec.h does not know is an error, never some other kind. */
    unlink(path);
    file_append(path, "{\"schema\":\"netsurvey.run/1\",\"scenarios\":[{\"name\":\"x\","
                      "\"test\":\"tcp_maerts\"}]}");
    assert_int_equal(journal_read_run(dir, &r, &e), NS_EPARSE);
    assert_non_null(strstr(e.msg, "scenario 'x': unknown test kind 'tcp_maerts'"));
    /* A schema this netsurvey does not read is refused by name, with the one it reads. */
    static const struct {
        const char *doc, *msg;
    } schemas[] = {
        {"{\"schema\":\"netsurvey.run/9\"}",
         "run.json: unsupported schema 'netsurvey.run/9' (this netsurvey reads netsurvey.run/3, "
         "netsurvey.run/2 and netsurvey.run/1)"},
        {"{\"schema\":\"netsurvey.summary/1\"}",
         "run.json: schema 'netsurvey.summary/1' is not a netsurvey run (this netsurvey reads "
         "netsurvey.run/3, netsurvey.run/2 and netsurvey.run/1)"},
        {"{\"scenarios\":[]}",
         "run.json: no schema: not a netsurvey run (this netsurvey reads netsurvey.run/3, "
         "netsurvey.run/2 and netsurvey.run/1)"},
    };
    for (size_t i = 0; i < sizeof schemas / sizeof schemas[0]; i++) {
        unlink(path);
        file_append(path, schemas[i].doc);
        assert_int_equal(journal_read_run(dir, &r, &e), NS_EPROTO);
        assert_null(r);
        assert_non_null(strstr(e.msg, schemas[i].msg));
    }
    /* The cap: one byte more than JOURNAL_RUN_MAX is refused without reading it all. */
    int fd = open(path, O_WRONLY | O_TRUNC);
    assert_true(fd >= 0);
    assert_int_equal(ftruncate(fd, (off_t)JOURNAL_RUN_MAX + 1), 0);
    close(fd);
    assert_int_equal(journal_read_run(dir, &r, &e), NS_ETOOBIG);
    assert_null(r);
}

static void
test_resume_cuts_torn_line(void **state)
{
    (void)state;
    char dir[PATH_MAX], path[PATH_MAX], buf[8192];
    struct journal *j = fresh("torn", dir);
    struct err e = {0};
    struct journal_trial t = sample_trial(1, JOURNAL_FAILED);
    assert_int_equal(journal_append(j, &t, NULL, &e), 0);
    journal_free(j);
    path_in(path, sizeof path, "torn", JOURNAL_RESULTS_FILE);
    size_t first = file_text(path, buf, sizeof buf);
    /* a bad middle line, a line of another schema, a trial record of another version, and a
     * torn last one */
    static const char middle[] =
        "not json\n{\"schema\":\"other/1\"}\n{\"schema\":\"netsurvey.trial/9\"}\n";
    file_append(path, middle);
    file_append(path, "{\"schema\":\"netsurvey.tr");
    struct collected c = {0};
    c.want[0] = t;
    struct journal_read_stats st;
    assert_int_equal(journal_read_trials(dir, NULL, collect, skipped, &c, &st, &e), 0);
    assert_int_equal(c.n, 1);
    assert_int_equal(st.records, 1);
    assert_int_equal(st.bad, 2);
    assert_int_equal(st.refused, 1);
    assert_int_equal(st.torn, 1);
    assert_int_equal(c.skipped, 4);
    assert_int_equal(c.skipped_line[0], 2);
    assert_int_equal(c.kind[0], JOURNAL_SKIP_BAD);
    assert_int_equal(c.skipped_line[1], 3);
    assert_int_equal(c.kind[1], JOURNAL_SKIP_BAD);
    assert_string_equal(c.why[1], "not a trial record");
    assert_int_equal(c.skipped_line[2], 4);
    assert_int_equal(c.kind[2], JOURNAL_SKIP_REFUSED);
    assert_string_equal(c.why[2], "unsupported schema 'netsurvey.trial/9' (this netsurvey reads "
                                  "netsurvey.trial/1 to netsurvey.trial/5)");
    assert_int_equal(c.skipped_line[3], 5);
    assert_int_equal(c.kind[3], JOURNAL_SKIP_TORN);
    assert_string_equal(c.why[3], "torn last line");
    size_t cut = 0;
    assert_int_equal(journal_open_locked(dir, &j, &e), NS_ENOTFOUND); /* no run.json */
    write_minimal_run(dir);
    assert_int_equal(journal_open_locked(dir, &j, &e), 0);
    assert_int_equal(journal_resume(j, &cut, &e), 0);
    assert_int_equal(cut, strlen("{\"schema\":\"netsurvey.tr"));
    assert_int_equal(journal_append(j, &t, NULL, &e), 0);
    journal_free(j);
    size_t n = file_text(path, buf, sizeof buf);
    assert_int_equal(n, 2 * first + strlen(middle));
    assert_int_equal(buf[n - 1], '\n');
    c = (struct collected){.want = {t, t}};
    assert_int_equal(journal_read_trials(dir, NULL, collect, NULL, &c, &st, &e), 0);
    assert_int_equal(c.n, 2);
    assert_int_equal(st.torn, 0);
    /* No results.jsonl at all: a run that has not recorded a trial yet. */
    unlink(path);
    assert_int_equal(journal_read_trials(dir, NULL, collect, NULL, &c, &st, &e), NS_ENOTFOUND);
}

static void
test_key(void **state)
{
    (void)state;
    struct journal_trial a = sample_trial(1, JOURNAL_OK), b = sample_trial(1, JOURNAL_FAILED);
    struct journal_key ka, kb;
    journal_trial_key(&a, &ka);
    journal_trial_key(&b, &kb);
    assert_string_equal(ka.run_id, "20261130T150000Z-7f3c");
    assert_string_equal(ka.scenario, "latency");
    assert_string_equal(ka.src, "zone1-vm");
    assert_string_equal(ka.dst, "zone2-vm");
    assert_int_equal(ka.family, JOURNAL_IPV6);
    assert_int_equal(ka.trial, 1);
    assert_true(journal_key_equal(&ka, &kb)); /* status, error, times are not the key */
    struct journal_key k = ka;
    k.trial = 2;
    assert_false(journal_key_equal(&ka, &k));
    k = ka;
    k.family = JOURNAL_IPV4;
    assert_false(journal_key_equal(&ka, &k));
    k = ka;
    k.src = "zone2-vm";
    assert_false(journal_key_equal(&ka, &k));
    k = ka;
    k.dst = NULL;
    assert_false(journal_key_equal(&ka, &k));
    k = ka;
    k.scenario = "throughput";
    assert_false(journal_key_equal(&ka, &k));
    /* the same trial of another run is another trial: a merge keeps both */
    k = ka;
    k.run_id = "20261201T150000Z-0001";
    assert_false(journal_key_equal(&ka, &k));
    /* the last ok record wins, else the last failed one */
    assert_true(journal_supersedes(true, true));
    assert_true(journal_supersedes(true, false));
    assert_true(journal_supersedes(false, false));
    assert_false(journal_supersedes(false, true));
    assert_int_equal(journal_family_of("fd00::1"), JOURNAL_IPV6);
    assert_int_equal(journal_family_of("10.0.0.1"), JOURNAL_IPV4);
}

/* One line through both decoders: same refusal, or the same record; and through both without
 * the buckets (journal_read_trials_nobuckets' readers): the same refusal, or the same record
 * but for its buckets. Returns the record (the fast one: *fast_took says whether it took the
 * line) with its check's code. */
static int
decode(const char *line, struct journal_trial *t, bool *fast_took, char *why, size_t whylen)
{
    static struct journal_reader *fast, *slow, *fast_nb, *slow_nb;
    if (fast == NULL) {
        fast = journal_reader_new(false);
        slow = journal_reader_new(true);
        fast_nb = journal_reader_new(false);
        slow_nb = journal_reader_new(true);
        journal_reader_keep_buckets(fast_nb, false);
        journal_reader_keep_buckets(slow_nb, false);
    }
    struct journal_trial ts, tf_nb, ts_nb;
    struct err ef = {0}, es = {0}, e_nb = {0};
    int rf = journal_reader_parse(fast, line, strlen(line), t, &ef);
    int rs = journal_reader_parse(slow, line, strlen(line), &ts, &es);
    assert_int_equal(rf, rs);
    if (rf == 0)
        assert_true(journal_trial_equal(t, &ts));
    assert_int_equal(journal_reader_parse(fast_nb, line, strlen(line), &tf_nb, &e_nb), rf);
    assert_string_equal(e_nb.msg, ef.msg);
    assert_int_equal(journal_reader_parse(slow_nb, line, strlen(line), &ts_nb, &e_nb), rf);
    assert_string_equal(e_nb.msg, ef.msg);
    if (rf == 0) {
        struct journal_trial want = *t;
        want.result.buckets = NULL;
        want.result.nbuckets = 0;
        want.result.runs = NULL;
        want.result.nruns = 0;
        want.result.counts = NULL;
        want.result.ncounts = 0;
        assert_int_equal(tf_nb.result.nbuckets, 0);
        assert_null(tf_nb.result.buckets);
        assert_int_equal(ts_nb.result.nbuckets, 0);
        assert_int_equal(tf_nb.result.nruns + tf_nb.result.ncounts, 0);
        assert_int_equal(ts_nb.result.nruns + ts_nb.result.ncounts, 0);
        assert_true(journal_trial_equal(&tf_nb, &want));
        assert_true(journal_trial_equal(&ts_nb, &want));
    }
    struct journal_scan *s = journal_scan_new();
    struct journal_trial tmp;
    *fast_took = journal_scan_trial(s, line, strlen(line), &tmp);
    journal_scan_free(s);
    snprintf(why, whylen, "%s", ef.msg);
    return rf;
}

/* A trial of a plan's revision 2 or later says it (version 4); one of the first does not (version
 * 3, as before revisions); both decoders read it. */
static void
test_trial_revision(void **state)
{
    (void)state;
    for (uint32_t rev = 0; rev <= 2; rev++) {
        struct journal_trial t = sample_trial(1, JOURNAL_FAILED);
        t.revision = rev;
        json_t *o = journal_trial_json(&t, NULL);
        assert_non_null(o);
        assert_string_equal(json_string_value(json_object_get(o, "schema")),
                            rev > 1 ? JOURNAL_TRIAL_SCHEMA_4 : JOURNAL_TRIAL_SCHEMA);
        assert_true((json_object_get(o, "revision") != NULL) == (rev > 1));
        char *line = json_dumps(o, JSON_COMPACT);
        char buf[8192];
        snprintf(buf, sizeof buf, "%s\n", line);
        free(line);
        json_decref(o);
        struct journal_trial got;
        bool took;
        char why[NS_ERR_MSG_MAX];
        assert_int_equal(decode(buf, &got, &took, why, sizeof why), 0);
        assert_true(took);
        assert_int_equal(got.revision, rev > 1 ? rev : 0);
    }
}

/* run.json of a revised run (version 3): its revision, and the earlier ones beside it, read
 * back with their hosts and scenarios; one of a single revision stays version 2. */
static void
test_run_revisions(void **state)
{
    (void)state;
    char dir[PATH_MAX];
    struct journal *j = fresh("revised", dir);
    struct err e = {0};
    struct journal_run_host hosts[] = {
        {.name = "a", .zone = "1", .region = "r", .data_address = "10.0.0.1", .transport = "ssh"}};
    struct journal_run_scenario scens[] = {
        {.sc = sample_trial(1, JOURNAL_OK).scenario, .trials = 3, .planned = 6}};
    json_t *revs = json_loads(
        "[{\"revision\":1,\"started\":\"t0\",\"command\":\"c0\",\"plan\":{\"sha256\":\"aa\","
        "\"file\":\"p.yaml\"},\"hosts\":[{\"name\":\"a\",\"zone\":\"1\"},{\"name\":\"gone\","
        "\"zone\":\"2\"}],\"scenarios\":[{\"name\":\"lat\",\"test\":\"tcp_rr\",\"msg_size\":"
        "250,\"trials\":2,\"planned\":4}],\"pairs\":[[0,1]]}]",
        0, NULL);
    json_t *resumes =
        json_loads("[{\"started\":\"t1\",\"command\":\"c1\",\"revision\":2}]", 0, NULL);
    assert_non_null(revs);
    assert_non_null(resumes);
    struct journal_run w = {.run_id = "r1",
                            .plan_name = "p",
                            .plan_file = "p.yaml",
                            .plan_sha256 = "bb",
                            .plan_source = "x",
                            .plan_source_len = 1,
                            .netsurvey_version = "0",
                            .nsperf_sha256 = "cc",
                            .started = "t0",
                            .command = "c0",
                            .state = JOURNAL_RUN_RUNNING,
                            .hosts = hosts,
                            .nhosts = 1,
                            .scenarios = scens,
                            .nscenarios = 1,
                            .revision = 2,
                            .revisions_json = revs,
                            .resumes_json = resumes};
    assert_int_equal(journal_write_run(j, &w, &e), 0);
    journal_free(j);
    struct journal_run *r = NULL;
    assert_int_equal(journal_read_run(dir, &r, &e), 0);
    assert_string_equal(r->schema, JOURNAL_RUN_SCHEMA_3);
    assert_int_equal(r->revision, 2);
    assert_int_equal(r->nrevisions, 1);
    assert_int_equal(r->revisions[0].revision, 1);
    assert_string_equal(r->revisions[0].plan_sha256, "aa");
    assert_string_equal(r->revisions[0].started, "t0");
    assert_int_equal(r->revisions[0].nhosts, 2);
    assert_string_equal(r->revisions[0].hosts[1].name, "gone");
    assert_int_equal(r->revisions[0].nscenarios, 1);
    assert_int_equal(r->revisions[0].scenarios[0].sc.kind, TESTSPEC_TCP_RR);
    assert_int_equal(r->revisions[0].scenarios[0].sc.msg_size, 250);
    assert_int_equal(r->revisions[0].scenarios[0].trials, 2);
    assert_int_equal(json_array_size(json_object_get(r->json, "resumes")), 1);
    journal_run_free(r);
    /* one revision: version 2, no revision members */
    w.revision = 1;
    j = fresh("single", dir);
    assert_int_equal(journal_write_run(j, &w, &e), 0);
    journal_free(j);
    assert_int_equal(journal_read_run(dir, &r, &e), 0);
    assert_string_equal(r->schema, JOURNAL_RUN_SCHEMA);
    assert_int_equal(r->revision, 1);
    assert_int_equal(r->nrevisions, 0);
    assert_null(json_object_get(r->json, "revisions"));
    journal_run_free(r);
    json_decref(revs);
    json_decref(resumes);
}

/* How a trial was measured is in its record: tcp_stream's copy (absent in a record written
 * before nsperf had its zero-copy path, when every stream copied) and the rr kinds' busy_poll,
 * read alike by both decoders. */
static void
test_copy_and_busy_poll(void **state)
{
    (void)state;
    static const struct {
        const char *scenario;
        bool copy, busy_poll;
    } cases[] = {
        {"{\"test\":\"tcp_stream\"}", true, false},
        {"{\"test\":\"tcp_stream\",\"copy\":false}", false, false},
        {"{\"test\":\"tcp_stream\",\"copy\":true}", true, false},
        {"{\"test\":\"tcp_rr\"}", false, false},
        {"{\"test\":\"tcp_rr\",\"busy_poll\":true}", false, true},
        {"{\"test\":\"udp_rr\",\"busy_poll\":false,\"copy\":true}", false, false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char line[256], why[NS_ERR_MSG_MAX];
        snprintf(line, sizeof line,
                 "{\"schema\":\"%s\",\"scenario\":%s,\"trial\":1,\"status\":\"ok\"}\n",
                 JOURNAL_TRIAL_SCHEMA, cases[i].scenario);
        struct journal_trial t;
        bool took;
        assert_int_equal(decode(line, &t, &took, why, sizeof why), 0);
        assert_true(took);
        if (t.scenario.copy != cases[i].copy || t.scenario.busy_poll != cases[i].busy_poll)
            fail_msg("%s: copy %d busy_poll %d", cases[i].scenario, t.scenario.copy,
                     t.scenario.busy_poll);
    }
}

/* A sweep's trial: written as version 5 with "sweep" naming the parameter whose member holds
 * the value, read alike by both decoders, its value part of the key; a "sweep" that names no
 * sweepable parameter of the kind reads as no sweep; run.json keeps the list. */
static void
test_sweep_records(void **state)
{
    (void)state;
    struct journal_trial a = sample_trial(1, JOURNAL_OK);
    a.scenario.name = "sizes";
    a.scenario.test = "tcp_stream";
    a.scenario.kind = TESTSPEC_TCP_STREAM;
    a.scenario.msg_size = 65536;
    a.scenario.streams = 1;
    a.scenario.swept = true;
    a.scenario.sweep = TESTSPEC_P_MSG_SIZE;
    json_t *j = journal_trial_json(&a, NULL);
    assert_non_null(j);
    assert_string_equal(json_string_value(json_object_get(j, "schema")), JOURNAL_TRIAL_SCHEMA_5);
    const json_t *sc = json_object_get(j, "scenario");
    assert_string_equal(json_string_value(json_object_get(sc, "sweep")), "msg_size");
    assert_int_equal(json_integer_value(json_object_get(sc, "msg_size")), 65536);
    char *line = json_dumps(j, JSON_COMPACT);
    json_decref(j);
    struct journal_trial t;
    bool took;
    char why[NS_ERR_MSG_MAX];
    assert_int_equal(decode(line, &t, &took, why, sizeof why), 0);
    assert_true(took);
    assert_true(t.scenario.swept);
    assert_int_equal(t.scenario.sweep, TESTSPEC_P_MSG_SIZE);
    struct journal_key k1, k2;
    journal_trial_key(&t, &k1);
    assert_true(k1.swept && k1.sweep == TESTSPEC_P_MSG_SIZE && k1.value == 65536);
    /* the same scenario, pair and trial at another value is another trial */
    a.scenario.msg_size = 1024;
    journal_trial_key(&a, &k2);
    assert_true(k2.value == 1024);
    assert_false(journal_key_equal(&k1, &k2));
    a.scenario.msg_size = 65536;
    journal_trial_key(&a, &k2);
    assert_true(journal_key_equal(&k1, &k2));
    a.scenario.swept = false; /* a sweep's trial is not the unswept scenario's */
    journal_trial_key(&a, &k2);
    assert_false(journal_key_equal(&k1, &k2));
    free(line);
    /* what "sweep" may name: a parameter of the table that the kind takes and that may be
     * swept, by its record key; anything else reads as no sweep, by both decoders */
    static const struct {
        const char *scenario;
        bool swept;
        int param;
    } cases[] = {
        {"{\"test\":\"tcp_stream\",\"msg_size\":64,\"sweep\":\"msg_size\"}", true,
         TESTSPEC_P_MSG_SIZE},
        {"{\"test\":\"udp_stream\",\"rate_bps\":1000000,\"sweep\":\"rate_bps\"}", true,
         TESTSPEC_P_RATE},
        {"{\"test\":\"tcp_rr\",\"response_size\":1024,\"sweep\":\"response_size\"}", true,
         TESTSPEC_P_RESPONSE_SIZE},
        {"{\"test\":\"tcp_stream\",\"sweep\":\"rate\"}", false, 0},       /* the plan key */
        {"{\"test\":\"tcp_stream\",\"sweep\":\"duration_s\"}", false, 0}, /* not sweepable */
        {"{\"test\":\"tcp_rr\",\"sweep\":\"streams\"}", false, 0},        /* not tcp_rr's */
        {"{\"test\":\"tcp_stream\",\"sweep\":7}", false, 0},
        {"{\"test\":\"tcp_stream\",\"sweep\":null}", false, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char rec[512];
        snprintf(rec, sizeof rec,
                 "{\"schema\":\"%s\",\"scenario\":%s,\"trial\":1,\"status\":\"ok\"}\n",
                 JOURNAL_TRIAL_SCHEMA_5, cases[i].scenario);
        assert_int_equal(decode(rec, &t, &took, why, sizeof why), 0);
        if (t.scenario.swept != cases[i].swept ||
            (cases[i].swept && (int)t.scenario.sweep != cases[i].param))
            fail_msg("%s: swept %d param %d", cases[i].scenario, t.scenario.swept,
                     (int)t.scenario.sweep);
    }
    /* run.json: the list in the parameter's place, read back with the first value */
    struct journal_run_scenario rs = {.sc = sample_trial(1, JOURNAL_OK).scenario,
                                      .trials = 2,
                                      .planned = 24,
                                      .nvalues = 3,
                                      .values = {64, 1024, 65536}};
    rs.sc.name = "sizes";
    rs.sc.test = "tcp_stream";
    rs.sc.kind = TESTSPEC_TCP_STREAM;
    rs.sc.swept = true;
    rs.sc.sweep = TESTSPEC_P_MSG_SIZE;
    struct journal_run w = {.run_id = "r1",
                            .plan_name = "p",
                            .plan_file = "p.yaml",
                            .plan_sha256 = "00ff",
                            .plan_source = "x",
                            .plan_source_len = 1,
                            .netsurvey_version = "0.1.0",
                            .nsperf_sha256 = "abab",
                            .started = "2026-11-30T15:00:00.123Z",
                            .command = "netsurvey run p.yaml",
                            .scenarios = &rs,
                            .nscenarios = 1};
    json_t *doc = journal_run_json(&w);
    json_t *s0 = json_array_get(json_object_get(doc, "scenarios"), 0);
    char *list = json_dumps(json_object_get(s0, "msg_size"), JSON_COMPACT | JSON_ENCODE_ANY);
    assert_string_equal(list, "[64,1024,65536]");
    free(list);
    assert_string_equal(json_string_value(json_object_get(s0, "sweep")), "msg_size");
    struct journal_run *r = NULL;
    struct err e = {0};
    assert_int_equal(journal_run_from_json(doc, &r, &e), 0);
    assert_true(r->scenarios[0].sc.swept && r->scenarios[0].sc.sweep == TESTSPEC_P_MSG_SIZE);
    assert_int_equal(r->scenarios[0].nvalues, 3);
    assert_true(r->scenarios[0].values[2] == 65536);
    assert_int_equal(r->scenarios[0].sc.msg_size, 64);
    assert_int_equal(r->scenarios[0].planned, 24);
    journal_run_free(r);
    /* a list that is no sweep's: one value, a value twice, a value of another type */
    static const char *const bad[] = {"[64]", "[64,64]", "[64,\"1K\"]", "[64,1.5]", "7"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        json_object_set_new(s0, "msg_size", json_loads(bad[i], JSON_DECODE_ANY, NULL));
        assert_int_equal(journal_run_from_json(doc, &r, &e), NS_EPARSE);
        assert_non_null(strstr(e.msg, "scenario 'sizes'"));
    }
    json_decref(doc);
}

/* The parameters and figures of issue 30's kinds: a load's streams and direction (by its name:
 * another name, or not a string, reads as forward), --bidir and udp_pps's packet rate, and the
 * figures beside a headline that sit in objects of the result (idle_rtt_us's mean, the load's
 * and each direction's throughput_bps), each absent when its object or number is not one; the
 * fast decoder takes every line here and reads it as jansson does (decode). */
static void
test_new_kinds(void **state)
{
    (void)state;
    static const struct {
        const char *scenario;
        uint64_t load_streams, load_direction;
        bool bidir;
        uint64_t packet_rate;
    } scens[] = {
        {"{\"test\":\"tcp_rr\",\"load_streams\":4,\"load_direction\":\"both\"}", 4, 2, false, 0},
        {"{\"test\":\"udp_rr\",\"load_streams\":1,\"load_direction\":\"reverse\"}", 1, 1, false, 0},
        {"{\"test\":\"tcp_rr\",\"load_streams\":2,\"load_direction\":\"sideways\"}", 2, 0, false,
         0},
        {"{\"test\":\"tcp_rr\",\"load_direction\":2}", 0, 0, false, 0},
        {"{\"test\":\"tcp_stream\",\"bidir\":true}", 0, 0, true, 0},
        {"{\"test\":\"udp_pps\",\"packet_rate\":250000}", 0, 0, false, 250000},
    };
    for (size_t i = 0; i < sizeof scens / sizeof scens[0]; i++) {
        char line[512], why[NS_ERR_MSG_MAX];
        snprintf(line, sizeof line,
                 "{\"schema\":\"%s\",\"scenario\":%s,\"trial\":1,\"status\":\"ok\"}\n",
                 JOURNAL_TRIAL_SCHEMA, scens[i].scenario);
        struct journal_trial t;
        bool took;
        assert_int_equal(decode(line, &t, &took, why, sizeof why), 0);
        assert_true(took);
        if (t.scenario.load_streams != scens[i].load_streams ||
            t.scenario.load_direction != scens[i].load_direction ||
            t.scenario.bidir != scens[i].bidir || t.scenario.packet_rate != scens[i].packet_rate)
            fail_msg("%s: load %llu %llu bidir %d rate %llu", scens[i].scenario,
                     (unsigned long long)t.scenario.load_streams,
                     (unsigned long long)t.scenario.load_direction, t.scenario.bidir,
                     (unsigned long long)t.scenario.packet_rate);
    }
    /* what a record of each writes, read back (the writer names the direction) */
    struct testspec_values v;
    testspec_values_default(&v, TESTSPEC_UDP_RR);
    testspec_values_set(&v, TESTSPEC_P_LOAD_STREAMS, 3);
    testspec_values_set(&v, TESTSPEC_P_LOAD_DIRECTION, TESTSPEC_DIRECTION_BOTH);
    struct journal_scenario sc = journal_scenario_from_spec("lat", &v);
    json_t *o = journal_scenario_json(&sc);
    assert_string_equal(json_string_value(json_object_get(o, "load_direction")), "both");
    assert_int_equal(json_integer_value(json_object_get(o, "load_streams")), 3);
    assert_null(json_object_get(o, "bidir")); /* not udp_rr's */
    json_decref(o);
    static const struct {
        const char *test, *result;
        enum testspec_metric m;
        bool has;
        double value;
    } figs[] = {
        {"tcp_rr", "{\"rtt_us\":{\"mean\":900},\"idle_rtt_us\":{\"mean\":300.5,\"n\":7}}",
         TESTSPEC_M_IDLE_RTT_MEAN, true, 300.5},
        {"tcp_rr", "{\"idle_rtt_us\":300}", TESTSPEC_M_IDLE_RTT_MEAN, false, 0},
        {"tcp_rr", "{\"idle_rtt_us\":{\"mean\":\"300\"}}", TESTSPEC_M_IDLE_RTT_MEAN, false, 0},
        {"tcp_rr", "{\"load\":{\"streams\":4,\"throughput_bps\":9.5e9}}",
         TESTSPEC_M_LOAD_THROUGHPUT, true, 9.5e9},
        {"tcp_rr", "{\"load\":[1]}", TESTSPEC_M_LOAD_THROUGHPUT, false, 0},
        {"tcp_stream",
         "{\"throughput_bps\":3e9,\"forward\":{\"throughput_bps\":2e9},"
         "\"reverse\":{\"throughput_bps\":1e9}}",
         TESTSPEC_M_REVERSE_THROUGHPUT, true, 1e9},
        {"udp_pps", "{\"packets_per_s\":1234567.5,\"sent_packets_per_s\":2e6}", TESTSPEC_M_PACKETS,
         true, 1234567.5},
        {"udp_pps", "{\"packets_per_s\":1,\"sent_packets_per_s\":2e6}", TESTSPEC_M_SENT_PACKETS,
         true, 2e6},
    };
    for (size_t i = 0; i < sizeof figs / sizeof figs[0]; i++) {
        char line[512], why[NS_ERR_MSG_MAX];
        snprintf(line, sizeof line,
                 "{\"schema\":\"%s\",\"scenario\":{\"test\":\"%s\"},\"trial\":1,"
                 "\"status\":\"ok\",\"result\":%s}\n",
                 JOURNAL_TRIAL_SCHEMA, figs[i].test, figs[i].result);
        struct journal_trial t;
        bool took;
        assert_int_equal(decode(line, &t, &took, why, sizeof why), 0);
        assert_true(took);
        if (t.result.has_metric[figs[i].m] != figs[i].has ||
            (figs[i].has && t.result.metric[figs[i].m] != figs[i].value))
            fail_msg("%s: has %d value %g", figs[i].result, t.result.has_metric[figs[i].m],
                     t.result.metric[figs[i].m]);
    }
}

/* "flags" read alike by both decoders: a flag is raised by its name holding a string (its
 * reason); another type, an unknown name or "counters" (not read) raise nothing; a record without
 * an object there was not judged (one of before), {} was and is clean. */
static void
test_flags(void **state)
{
    (void)state;
    static const struct {
        const char *members;
        bool judged;
        unsigned mask;
    } cases[] = {
        {"", false, 0},
        {",\"flags\":null", false, 0},
        {",\"flags\":[\"drops\"]", false, 0},
        {",\"flags\":{}", true, 0},
        {",\"flags\":{\"drops\":\"a\",\"stall\":\"b\",\"steal\":5,\"throttled\":null,"
         "\"bogus\":\"c\"},\"counters\":{\"src\":{\"qdisc\":{\"drops\":1}}}",
         true, 1u << HOSTFLAG_DROPS | 1u << HOSTFLAG_STALL},
        {",\"counters\":{\"src\":null,\"dst\":[1,2]},\"flags\":{\"slow_path\":\"\\u00e9\","
         "\"throttled\":\"ens5 (ena) pps_allowance_exceeded 9\"}",
         true, 1u << HOSTFLAG_SLOW_PATH | 1u << HOSTFLAG_THROTTLED},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char line[512], why[NS_ERR_MSG_MAX];
        snprintf(line, sizeof line,
                 "{\"schema\":\"%s\",\"scenario\":{\"test\":\"udp_stream\"},\"trial\":1,"
                 "\"status\":\"ok\"%s}\n",
                 JOURNAL_TRIAL_SCHEMA, cases[i].members);
        struct journal_trial t;
        bool took;
        assert_int_equal(decode(line, &t, &took, why, sizeof why), 0);
        if (t.judged != cases[i].judged || t.flag_mask != cases[i].mask)
            fail_msg("%s: judged %d, flags %x", cases[i].members, t.judged, t.flag_mask);
        for (int f = 0; f < HOSTFLAG_COUNT; f++)
            assert_int_equal(t.flag_why[f] != NULL, (t.flag_mask >> f) & 1);
    }
    struct journal_trial t;
    bool took;
    char why[NS_ERR_MSG_MAX];
    assert_int_equal(decode("{\"schema\":\"netsurvey.trial/3\",\"scenario\":{\"test\":\"tcp_rr\"},"
                            "\"trial\":1,\"status\":\"ok\",\"flags\":{\"slow_path\":\"\\u00e9\"}}",
                            &t, &took, why, sizeof why),
                     0);
    assert_string_equal(t.flag_why[HOSTFLAG_SLOW_PATH], "\xc3\xa9");
}

static void
test_reading_rules(void **state)
{
    (void)state;
    struct journal_trial t;
    bool took;
    char why[NS_ERR_MSG_MAX];
    /* wrong types read as absent; reals are not integers; the family is ipv4 unless "ipv6" */
    static const char lenient[] =
        "{\"schema\":\"netsurvey.trial/1\",\"run_id\":5,\"scenario\":{\"name\":\"s\","
        "\"test\":\"tcp_rr\",\"msg_size\":-3,\"streams\":2.0,\"duration_s\":\"10\","
        "\"reverse\":1},\"trial\":2,\"family\":\"IPV6\",\"src\":[1],\"dst\":{\"host\":null},"
        "\"status\":\"failed\",\"error\":{\"x\":1},\"attempts\":-1,"
        "\"result\":{\"throughput_bps\":\"fast\",\"cpu\":{\"local_pct\":1e2},\"udp\":{},"
        "\"rtt_us\":{\"mean\":null,\"hist\":{\"sub_bits\":7.0,\"buckets\":[[1,2]]}}},"
        "\"env\":null,\"tool\":{\"version\":true}}\n";
    assert_int_equal(decode(lenient, &t, &took, why, sizeof why), 0);
    assert_true(took);
    assert_null(t.run_id);
    assert_int_equal(t.scenario.kind, TESTSPEC_TCP_RR);
    assert_int_equal(t.scenario.msg_size, 0);
    assert_int_equal(t.scenario.streams, 0);
    assert_true(t.scenario.duration_s == 0.0);
    assert_false(t.scenario.reverse);
    assert_int_equal(t.trial, 2);
    assert_int_equal(t.family, JOURNAL_IPV4);
    assert_null(t.src.host);
    assert_null(t.dst.host);
    assert_int_equal(t.status, JOURNAL_FAILED);
    assert_string_equal(t.status_text, "failed");
    assert_null(t.error);
    assert_int_equal(t.attempts, 0);
    assert_null(t.env_src);
    assert_null(t.tool_version);
    assert_true(t.result.present);
    assert_false(t.result.has_metric[TESTSPEC_M_THROUGHPUT]);
    assert_true(t.result.has_cpu_local && t.result.cpu_local_pct == 100.0);
    assert_false(t.result.has_cpu_remote);
    assert_true(t.result.has_udp);
    assert_false(t.result.has_udp_sent);
    assert_true(t.result.has_rtt);
    assert_false(t.result.has_metric[TESTSPEC_M_RTT_MEAN]);
    assert_false(t.result.has_hist); /* sub_bits 7.0 is a real, not a layout */
    assert_int_equal(t.result.hist_sub_bits, 0);
    /* buckets: entries that are not [low >= 0, count > 0] are skipped, in the same way */
    static const char buckets[] =
        "{\"schema\":\"netsurvey.trial/1\",\"scenario\":{\"test\":\"udp_rr\"},\"trial\":4294967294,"
        "\"status\":\"ok\","
        "\"result\":{\"rtt_us\":{\"hist\":{\"buckets\":[[5,0],[-1,3],[7,2,9],[8],\"x\",[9,1.5],"
        "[ 10 , 4 ],[11,1]],\"sub_bits\":7}}}}";
    assert_int_equal(decode(buckets, &t, &took, why, sizeof why), 0);
    assert_true(took);
    assert_int_equal(t.trial, 4294967294u);
    assert_true(t.result.has_hist);
    assert_int_equal(t.result.nbuckets, 3);
    assert_int_equal(t.result.buckets[0].low_ns, 7);
    assert_int_equal(t.result.buckets[0].count, 2);
    assert_int_equal(t.result.buckets[1].low_ns, 10);
    assert_int_equal(t.result.buckets[2].count, 1);
    assert_int_equal(t.result.hist_sub_bits, 7); /* the old layout: read, its lows as written */
    /* the layout now (11) is read the same way; any other is not a histogram of ours */
    static const char *const layouts[][2] = {{"11", "11"}, {"7", "7"},  {"9", "0"},
                                             {"12", "0"},  {"-7", "0"}, {"\"11\"", "0"}};
    for (size_t i = 0; i < sizeof layouts / sizeof *layouts; i++) {
        char rec[512];
        snprintf(rec, sizeof rec,
                 "{\"schema\":\"netsurvey.trial/2\",\"scenario\":{\"test\":\"tcp_rr\"},"
                 "\"status\":\"ok\",\"trial\":1,"
                 "\"result\":{\"rtt_us\":{\"hist\":{\"sub_bits\":%s,"
                 "\"buckets\":[[329728,3],[330000,1]]}}}}",
                 layouts[i][0]);
        assert_int_equal(decode(rec, &t, &took, why, sizeof why), 0);
        int want = atoi(layouts[i][1]);
        assert_int_equal(t.result.has_hist, want != 0);
        assert_int_equal(t.result.hist_sub_bits, want);
        assert_int_equal(t.result.nbuckets, want != 0 ? 2 : 0);
    }
    /* lines passed over: another schema, a kind never mapped to another, not JSON, a top-level
     * array; records refused: another version of the schema, a status neither ok nor failed */
    assert_int_equal(decode("{\"schema\":\"netsurvey.other/1\"}", &t, &took, why, sizeof why),
                     NS_EPARSE);
    assert_string_equal(why, "not a trial record");
    assert_int_equal(decode("{\"schema\":\"netsurvey.trial/9\"}", &t, &took, why, sizeof why),
                     NS_EPROTO);
    assert_string_equal(why, "unsupported schema 'netsurvey.trial/9' (this netsurvey reads "
                             "netsurvey.trial/1 to netsurvey.trial/5)");
    static const char weird[] = "{\"schema\":\"netsurvey.trial/1\",\"scenario\":{\"test\":"
                                "\"tcp_rr\"},\"status\":\"weird\"}";
    assert_int_equal(decode(weird, &t, &took, why, sizeof why), NS_EPROTO);
    assert_true(took);
    assert_string_equal(why, "unknown status 'weird' (a trial is ok, failed or not_run)");
    static const char nostatus[] = "{\"schema\":\"netsurvey.trial/1\",\"scenario\":{\"test\":"
                                   "\"tcp_rr\"},\"status\":true}";
    assert_int_equal(decode(nostatus, &t, &took, why, sizeof why), NS_EPROTO);
    assert_string_equal(why, "no status (a trial is ok, failed or not_run)");
    /* attempts: a list's elements read as objects of strings (anything else: all NULL), its
     * length the count; a count is a count; anything else none */
    static const char attempts[] =
        "{\"schema\":\"netsurvey.trial/3\",\"scenario\":{\"test\":\"tcp_rr\"},\"trial\":1,"
        "\"status\":\"not_run\",\"attempts\":[{\"started\":\"a\",\"error\":7,\"x\":[1],"
        "\"host_away\":\"h\"},null,[1,2],{},{\"ended\":\"e\",\"error\":\"why\"}]}";
    assert_int_equal(decode(attempts, &t, &took, why, sizeof why), 0);
    assert_true(took);
    assert_int_equal(t.status, JOURNAL_NOT_RUN);
    assert_int_equal(t.attempts, 5);
    assert_int_equal(t.nattempt, 5);
    assert_string_equal(t.attempt[0].started, "a");
    assert_null(t.attempt[0].error);
    assert_string_equal(t.attempt[0].host_away, "h");
    assert_null(t.attempt[1].started);
    assert_null(t.attempt[2].ended);
    assert_null(t.attempt[3].error);
    assert_string_equal(t.attempt[4].ended, "e");
    assert_string_equal(t.attempt[4].error, "why");
    static const char *const counts[][2] = {
        {"[]", "0"}, {"4", "4"}, {"\"4\"", "0"}, {"{\"n\":1}", "0"}, {"2.0", "0"}};
    for (size_t i = 0; i < sizeof counts / sizeof *counts; i++) {
        char rec[256];
        snprintf(rec, sizeof rec,
                 "{\"schema\":\"netsurvey.trial/3\",\"scenario\":{\"test\":\"tcp_rr\"},"
                 "\"status\":\"failed\",\"trial\":1,\"attempts\":%s}",
                 counts[i][0]);
        assert_int_equal(decode(rec, &t, &took, why, sizeof why), 0);
        assert_true(took);
        assert_int_equal(t.attempts, atoi(counts[i][1]));
        assert_int_equal(t.nattempt, 0);
    }
    /* a trial number that is not an integer from 1 has no place among the planned trials */
    static const char *const numbers[] = {"2.0", "0", "-1", "\"3\"", "null"};
    for (size_t i = 0; i < sizeof numbers / sizeof numbers[0]; i++) {
        char nline[256];
        snprintf(nline, sizeof nline,
                 "{\"schema\":\"netsurvey.trial/1\",\"scenario\":{\"test\":\"tcp_rr\"},"
                 "\"status\":\"ok\",\"trial\":%s}",
                 numbers[i]);
        assert_int_equal(decode(nline, &t, &took, why, sizeof why), NS_EPARSE);
        assert_string_equal(why, "no trial number (an integer from 1)");
    }
    assert_int_equal(decode("{\"schema\":\"netsurvey.trial/1\",\"scenario\":{\"test\":\"tcp_x\"}}",
                            &t, &took, why, sizeof why),
                     NS_EPARSE);
    assert_string_equal(why, "unknown test kind 'tcp_x'");
    assert_int_equal(decode("{\"schema\":\"netsurvey.trial/1\"}", &t, &took, why, sizeof why),
                     NS_EPARSE);
    assert_string_equal(why, "unknown test kind ''");
    assert_int_equal(decode("[{\"schema\":\"netsurvey.trial/1\"}]", &t, &took, why, sizeof why),
                     NS_EPARSE);
    assert_false(took);
    assert_int_equal(decode("{\"schema\":\"netsurvey.trial/1\",}", &t, &took, why, sizeof why),
                     NS_EPARSE);
    /* what jansson refuses, the fast decoder never takes */
    static const char *const refused[] = {
        "{\"schema\":\"netsurvey.trial/1\",\"x\":01}",
        "{\"schema\":\"netsurvey.trial/1\",\"x\":\"\\q\"}",
        "{\"schema\":\"netsurvey.trial/1\",\"x\":\"\x01\"}",
        "{\"schema\":\"netsurvey.trial/1\",\"x\":\"\xc0\xaf\"}",
        "{\"schema\":\"netsurvey.trial/1\",\"x\":9223372036854775808}",
        "{\"schema\":\"netsurvey.trial/1\",\"x\":1e999}",
        "{\"schema\":\"netsurvey.trial/1\",\"x\":tru}",
        "{\"schema\":\"netsurvey.trial/"
        "1\",\"result\":{\"rtt_us\":{\"hist\":{\"buckets\":[[01,1]]}}}}",
        "{\"schema\":\"netsurvey.trial/1\",\"result\":{\"rtt_us\":{\"hist\":{\"buckets\":"
        "[[99999999999999999999,1]]}}}}",
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        assert_int_equal(decode(refused[i], &t, &took, why, sizeof why), NS_EPARSE);
        assert_false(took);
    }
    /* what the fast decoder leaves to jansson, jansson reads: a duplicate key it reads (the
     * last wins), an escaped key, a \u escape of a surrogate pair */
    static const char dup[] =
        "{\"schema\":\"netsurvey.trial/1\",\"scenario\":{\"test\":\"tcp_rr\"},\"status\":\"ok\","
        "\"trial\":1,\"trial\":3,\"sch\\u0065ma\":\"netsurvey.trial/1\","
        "\"error\":\"\\ud83d\\ude00\"}";
    assert_int_equal(decode(dup, &t, &took, why, sizeof why), 0);
    assert_false(took);
    assert_int_equal(t.trial, 3);
    assert_string_equal(t.error, "\xf0\x9f\x98\x80");
}

/* The fast decoder reads runs of digits and of plain string bytes 8 at a time: every length of
 * a bucket's numbers (1 to 20 digits, past int64 too), with a leading zero or not, and every
 * place of a byte that ends a string's plain run (a quote, a backslash, a control character,
 * UTF-8, a byte jansson refuses), each at every distance from the line's end, read as jansson
 * reads them (decode() compares the two), with the values written. */
static void
test_runs_of_digits_and_strings(void **state)
{
    (void)state;
    static const char digits[] = "98765432109876543210";
    char why[NS_ERR_MSG_MAX], line[1024];
    struct journal_trial t;
    bool took;
    for (size_t len = 1; len <= 20; len++) {
        for (int zero = 0; zero < 2; zero++) {
            for (int pad = 0; pad < 12; pad++) {
                char num[32];
                snprintf(num, sizeof num, "%s%.*s", zero ? "0" : "", (int)len, digits);
                snprintf(line, sizeof line,
                         "{\"schema\":\"netsurvey.trial/2\",\"scenario\":{\"test\":\"tcp_rr\"},"
                         "\"status\":\"ok\",\"trial\":1,\"result\":{\"rtt_us\":{\"hist\":{"
                         "\"sub_bits\":11,\"buckets\":[[%s,%s],[7,%s]]}}}}%*s\n",
                         num, num, num, pad, "");
                int rc = decode(line, &t, &took, why, sizeof why);
                /* jansson: no leading zero, nothing past int64 (19 digits from 9 are past) */
                bool valid = !(zero && len > 0) && len <= 18;
                if (len == 19 && !zero) /* 9876543210987654321 > INT64_MAX */
                    valid = false;
                if (!valid) {
                    assert_int_equal(rc, NS_EPARSE);
                    continue;
                }
                assert_int_equal(rc, 0);
                assert_true(took);
                uint64_t want = strtoull(num, NULL, 10);
                assert_int_equal(t.result.nbuckets, 2);
                assert_int_equal(t.result.buckets[0].low_ns, want);
                assert_int_equal(t.result.buckets[0].count, want);
                assert_int_equal(t.result.buckets[1].low_ns, 7);
                assert_int_equal(t.result.buckets[1].count, want);
            }
        }
    }
    /* a string of 24 bytes with one special byte (or escape) at every place */
    static const struct {
        const char *raw, *decoded; /* decoded NULL: jansson refuses the line */
    } specials[] = {{"\\\"", "\""},          {"\\\\", "\\"},           {"\\n", "\n"},
                    {"\\u00e9", "\xc3\xa9"}, {"\xc3\xa9", "\xc3\xa9"}, {"\x01", NULL},
                    {"\xff", NULL},          {"\x7f", "\x7f"},         {"\\x", NULL},
                    {"\xe2\x82", NULL}};
    for (size_t k = 0; k < sizeof specials / sizeof specials[0]; k++) {
        for (int at = 0; at <= 24; at++) {
            for (int pad = 0; pad < 10; pad++) {
                char val[64], want[64];
                snprintf(val, sizeof val, "%.*s%s%.*s", at, "abcdefghijklmnopqrstuvwx",
                         specials[k].raw, 24 - at, "ABCDEFGHIJKLMNOPQRSTUVWX");
                snprintf(line, sizeof line,
                         "{\"schema\":\"netsurvey.trial/2\",\"scenario\":{\"test\":\"tcp_rr\"},"
                         "\"status\":\"failed\",\"trial\":1,\"error\":\"%s\"}%*s\n",
                         val, pad, "");
                int rc = decode(line, &t, &took, why, sizeof why);
                if (specials[k].decoded == NULL) {
                    assert_int_equal(rc, NS_EPARSE);
                    continue;
                }
                assert_int_equal(rc, 0);
                snprintf(want, sizeof want, "%.*s%s%.*s", at, "abcdefghijklmnopqrstuvwx",
                         specials[k].decoded, 24 - at, "ABCDEFGHIJKLMNOPQRSTUVWX");
                assert_string_equal(t.error, want);
            }
        }
    }
}

/* Buckets that are not kept are checked 64 bytes at a time where they have nsperf's form: every
 * break of that form (a blank, an empty or longer entry, a sign, a real, a leading zero, 17
 * digits, a missing or extra comma or bracket, a string), at every place of arrays of 1 to 40
 * buckets, with little or much of the line after them, is read by the readers without buckets
 * as by those with them (decode() compares the four readers). */
static void
test_buckets_checked_not_kept(void **state)
{
    (void)state;
    static const char *const breaks[] = {
        NULL, /* none */
        "[0,1]",
        "[01,1]",
        "[1,01]",
        "[10,0]",
        "[1,2,3]",
        "[1]",
        "[]",
        "[-1,2]",
        "[1.5,2]",
        "[1,2 ]",
        "[ 1,2]",
        "[[1,2]]",
        "1",
        "[1,2],",
        ",[1,2]",
        "[1,,2]",
        "[1,2]]",
        "[1,2][3,4]",
        "[1234567890123456,1]",
        "[12345678901234567,1]",
        "[99999999999999999999,1]",
        "[1,2",
        "[\"1\",2]",
        "[1e3,1]",
        "[1,2]x",
        "[1,2\xc3\xa9]",
        "[1x2,3]",
        "[1,2]3",
        "[1,2]3]",
        "[1 2,3]",
        "[1,2]\n,[3,4]",
        "{}",
    };
    static const size_t sizes[] = {1, 5, 6, 7, 13, 40};
    static const char tail[] =
        "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmno";
    char why[NS_ERR_MSG_MAX];
    struct journal_trial t;
    bool took;
    size_t taken = 0, fast_taken = 0;
    for (size_t b = 0; b < sizeof breaks / sizeof *breaks; b++) {
        for (size_t z = 0; z < sizeof sizes / sizeof *sizes; z++) {
            for (size_t at = 0; at < sizes[z] && (at == 0 || breaks[b] != NULL); at++) {
                for (int longtail = 0; longtail < 2; longtail++) {
                    char arr[2048], line[4096];
                    size_t o = 0;
                    for (size_t i = 0; i < sizes[z]; i++) {
                        char one[64];
                        snprintf(one, sizeof one, "[%zu,%zu]", 329000 + 256 * i, 1 + i % 300);
                        o += (size_t)snprintf(arr + o, sizeof arr - o, "%s%s", i ? "," : "",
                                              breaks[b] != NULL && i == at ? breaks[b] : one);
                    }
                    snprintf(line, sizeof line,
                             "{\"schema\":\"netsurvey.trial/2\",\"scenario\":{\"test\":\"tcp_rr\"},"
                             "\"status\":\"ok\",\"trial\":1,\"result\":{\"rtt_us\":{\"hist\":{"
                             "\"sub_bits\":11,\"buckets\":[%s]}}},\"env\":{\"src\":\"%s\"}}\n",
                             arr, longtail ? tail : "");
                    if (decode(line, &t, &took, why, sizeof why) == 0) {
                        taken++;
                        fast_taken += took;
                        assert_true(t.result.has_hist);
                    }
                }
            }
        }
    }
    assert_true(taken > 0 && fast_taken > 0);
}

/* An entry with the forms' others around its two numbers. */
struct entry_form {
    const char *open, *comma, *close; /* comma "],[": each number in an entry of its own */
};

/* One line of 14 buckets, entry at of them with num as its number which (0, 1) in form f, pad
 * others after the record: the four readers agree (decode()); *taken when they take it, and then
 * the number reads as its text says (unless it is a skipped one: a count of 0, a negative, an
 * entry of one member). */
static void
kept_case(const char *num, int which, const struct entry_form *f, size_t at, int pad, size_t *taken)
{
    char arr[1024], line[2048], why[NS_ERR_MSG_MAX];
    size_t o = 0;
    for (size_t i = 0; i < 14; i++) {
        char a[32], b[32];
        bool here = i == at;
        snprintf(a, sizeof a, "%zu", 255360 + 128 * i);
        snprintf(b, sizeof b, "%zu", 1 + (i * 37) % 400);
        o += (size_t)snprintf(arr + o, sizeof arr - o, "%s%s%s%s%s%s", i ? "," : "",
                              here ? f->open : "[", here && which == 0 ? num : a,
                              here ? f->comma : ",", here && which == 1 ? num : b,
                              here ? f->close : "]");
    }
    snprintf(line, sizeof line,
             "{\"schema\":\"netsurvey.trial/2\",\"scenario\":{\"test\":\"tcp_rr\"},\"status\":"
             "\"ok\",\"trial\":1,\"result\":{\"rtt_us\":{\"hist\":{\"sub_bits\":11,\"buckets\":"
             "[%s]}}}}%*s",
             arr, pad, "");
    struct journal_trial t;
    bool took;
    if (decode(line, &t, &took, why, sizeof why) != 0)
        return;
    (*taken)++;
    if (num[0] == '-' || strcmp(f->comma, "],[") == 0)
        return;
    uint64_t want = strtoull(num, NULL, 10);
    bool found = which == 1 && want == 0;
    for (size_t i = 0; i < t.result.nbuckets; i++)
        found =
            found || (which == 0 ? t.result.buckets[i].low_ns : t.result.buckets[i].count) == want;
    assert_true(found);
}

/* The kept buckets of nsperf's form are read from the 64-byte blocks' masks, their numbers 8
 * digits at a time: one entry of an array of 14 changed, at every place (kept_case). Its number
 * (either) a run of 1 to 20 digits (of 98765..., of 9s, 1 and 0s) or int64's and uint64's edges,
 * as it is, with a leading zero or a minus; a number with a blank between the entry's tokens,
 * in an entry of one or three members, next to one of one member; the record ending 0 to 40 bytes
 * after the array, so that a number's words would reach past the line. */
static void
test_buckets_kept_digit_runs(void **state)
{
    (void)state;
    static const char *const edges[] = {"9223372036854775807",
                                        "9223372036854775808",
                                        "18446744073709551615",
                                        "18446744073709551616",
                                        "4294967296",
                                        "99999999",
                                        "100000000",
                                        "0"};
    static const struct entry_form plain = {"[", ",", "]"},
                                   others[] = {{"[ ", ",", "]"},    {"[", " ,", "]"},
                                               {"[", ",\t", "]"},   {"[", ",", "\r]"},
                                               {" [", ",", "]"},    {"[", ",", "]\n"},
                                               {"[", ",", ",1]"},   {"[", "],[", "]"},
                                               {"[", ",", "],[7]"}, {"[7],[", ",", "]"}};
    static const int pads[] = {0, 1, 9, 40};
    size_t taken = 0, tried = 0;
    for (size_t src = 0; src < 3 + sizeof edges / sizeof *edges; src++) {
        for (size_t len = 1; len <= (src < 3 ? 20 : 1); len++) {
            char digits[32];
            for (size_t i = 0; src < 3 && i < len; i++)
                digits[i] = src == 0 ? "98765432109876543210"[i] : src == 1 ? '9' : "10"[i > 0];
            snprintf(digits + (src < 3 ? len : 0), sizeof digits - (src < 3 ? len : 0), "%s",
                     src < 3 ? "" : edges[src - 3]);
            for (int sign = 0; sign < 3; sign++) {
                char num[40];
                snprintf(num, sizeof num, "%s%s", sign == 1 ? "0" : sign == 2 ? "-" : "", digits);
                for (int which = 0; which < 2; which++)
                    for (size_t at = 0; at < 14; at++)
                        for (size_t pd = 0; pd < sizeof pads / sizeof *pads; pd++, tried++)
                            kept_case(num, which, &plain, at, pads[pd], &taken);
            }
        }
    }
    size_t plain_taken = taken;
    for (size_t f = 0; f < sizeof others / sizeof *others; f++)
        for (int which = 0; which < 2; which++)
            for (size_t at = 0; at < 14; at++)
                for (size_t pd = 0; pd < sizeof pads / sizeof *pads; pd++, tried++)
                    kept_case("123456", which, &others[f], at, pads[pd], &taken);
    assert_true(plain_taken > 0 && taken > plain_taken && taken < tried);
}

/* The runs form (common/histjson.h): one run of an array of n changed to each break at every
 * place, the record ending right after it or 67 bytes later: the four readers agree (decode());
 * the array without a break reads as written, fast, its runs and counts exactly (the runs a step
 * apart of 9 buckets, so none joins). */
static void
test_runs_kept_and_broken(void **state)
{
    (void)state;
    static const char *const breaks[] = {
        NULL,
        "[5]",    /* no count */
        "[-1,2]", /* a negative head */
        "[1,-1]", /* a negative count */
        "[1,01]", /* a leading zero */
        "[01,1]",
        "[1.5,2]", /* not integers */
        "[1,2.0]",
        "[1,\"x\"]",
        "[1,2 ]", /* blanks */
        "[ 1,2]",
        "[1,2,0]",            /* a zero at the run's end: kept, as written */
        "[0,0]",              /* a run of one empty bucket */
        "[274877906944,1,2]", /* 2^38 ns: the last bucket, its second count past it */
        "[274877906944,3]",
        "[]",
        "1",
        "[[1,2]]",
        "[1,,2]",
        "[1234567890123456,1]",
        "[12345678901234567,1]",
        "[\"1\",2]",
        "{}",
    };
    static const size_t sizes[] = {1, 3, 13, 40};
    static const char tail[] =
        "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmno";
    char why[NS_ERR_MSG_MAX];
    struct journal_trial t;
    bool took;
    size_t taken = 0, fast_taken = 0, plain = 0;
    for (size_t b = 0; b < sizeof breaks / sizeof *breaks; b++) {
        for (size_t z = 0; z < sizeof sizes / sizeof *sizes; z++) {
            for (size_t at = 0; at < sizes[z] && (at == 0 || breaks[b] != NULL); at++) {
                for (int longtail = 0; longtail < 2; longtail++) {
                    char arr[4096], line[8192];
                    size_t o = 0;
                    for (size_t i = 0; i < sizes[z]; i++) {
                        char one[128];
                        size_t idx = 5000 + 9 * i, n = 1 + i % 5, w = 0;
                        w += (size_t)snprintf(one + w, sizeof one - w, "[%llu",
                                              (unsigned long long)hist_bucket_low(idx));
                        for (size_t k = 0; k < n; k++)
                            w += (size_t)snprintf(one + w, sizeof one - w, ",%zu",
                                                  k == 1 ? 0 : 1 + (i * 31 + k * 7) % 900);
                        snprintf(one + w, sizeof one - w, "]");
                        o += (size_t)snprintf(arr + o, sizeof arr - o, "%s%s", i ? "," : "",
                                              breaks[b] != NULL && i == at ? breaks[b] : one);
                    }
                    snprintf(line, sizeof line,
                             "{\"schema\":\"netsurvey.trial/3\",\"scenario\":{\"test\":\"tcp_rr\"},"
                             "\"status\":\"ok\",\"trial\":1,\"result\":{\"rtt_us\":{\"hist\":{"
                             "\"sub_bits\":11,\"runs\":[%s]}}},\"env\":{\"src\":\"%s\"}}\n",
                             arr, longtail ? tail : "");
                    if (decode(line, &t, &took, why, sizeof why) != 0)
                        continue;
                    taken++;
                    fast_taken += took;
                    assert_true(t.result.has_hist && t.result.hist_runs);
                    if (breaks[b] != NULL)
                        continue;
                    plain++;
                    assert_true(took || !longtail); /* the fast way takes nsperf's form */
                    assert_int_equal(t.result.nruns, sizes[z]);
                    size_t k = 0;
                    for (size_t i = 0; i < sizes[z]; i++) {
                        assert_int_equal(t.result.runs[i].first, 5000 + 9 * i);
                        assert_int_equal(t.result.runs[i].len, 1 + i % 5);
                        for (size_t c = 0; c < 1 + i % 5; c++, k++)
                            assert_int_equal(t.result.counts[k],
                                             c == 1 ? 0 : 1 + (i * 31 + c * 7) % 900);
                    }
                    assert_int_equal(t.result.ncounts, k);
                }
            }
        }
    }
    assert_true(taken > 0 && fast_taken > 0 && plain == 2 * sizeof sizes / sizeof *sizes);
}

/* What the runs form's readers make of the cases the writer never writes: runs that meet are
 * one, what is skipped ends a run, both forms or runs of an old layout are no histogram, an
 * empty array is one without buckets. */
static void
test_runs_rules(void **state)
{
    (void)state;
    char why[NS_ERR_MSG_MAX], line[1024];
    struct journal_trial t;
    bool took;
    unsigned long long a = hist_bucket_low(4000), b = hist_bucket_low(4002);
    snprintf(line, sizeof line,
             "{\"schema\":\"netsurvey.trial/3\",\"scenario\":{\"test\":\"tcp_rr\"},\"status\":"
             "\"ok\",\"trial\":1,\"result\":{\"rtt_us\":{\"hist\":{\"sub_bits\":11,\"runs\":"
             "[[%llu,4,5],[%llu,6],[%llu,7,-1,8],[%llu],[%llu,9]]}}}}",
             a, b, b + 1, a, a);
    assert_int_equal(decode(line, &t, &took, why, sizeof why), 0);
    assert_true(t.result.has_hist && t.result.hist_runs);
    /* [4000: 4 5] [4002: 6] joined; then 7 (4002's bucket again: its own run), -1 ends it;
     * [a] has no count; [a: 9] */
    assert_int_equal(t.result.nruns, 3);
    assert_int_equal(t.result.runs[0].first, 4000);
    assert_int_equal(t.result.runs[0].len, 3);
    assert_int_equal(t.result.runs[1].first, 4002);
    assert_int_equal(t.result.runs[1].len, 1);
    assert_int_equal(t.result.runs[2].first, 4000);
    assert_int_equal(t.result.runs[2].len, 1);
    static const uint64_t counts[] = {4, 5, 6, 7, 9};
    assert_int_equal(t.result.ncounts, 5);
    for (size_t i = 0; i < 5; i++)
        assert_int_equal(t.result.counts[i], counts[i]);
    /* runs that meet, in nsperf's form: joined by the fast way too */
    snprintf(line, sizeof line,
             "{\"schema\":\"netsurvey.trial/3\",\"scenario\":{\"test\":\"tcp_rr\"},\"status\":"
             "\"ok\",\"trial\":1,\"result\":{\"rtt_us\":{\"hist\":{\"sub_bits\":11,\"runs\":"
             "[[%llu,4,5],[%llu,6,0,1]]}}},\"env\":{\"src\":\"%s\"}}",
             a, b, "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmno");
    assert_int_equal(decode(line, &t, &took, why, sizeof why), 0);
    assert_true(took);
    assert_int_equal(t.result.nruns, 1);
    assert_int_equal(t.result.runs[0].first, 4000);
    assert_int_equal(t.result.runs[0].len, 5);
    assert_int_equal(t.result.ncounts, 5);
    assert_int_equal(t.result.counts[4], 1);
    static const char *const none[] = {
        "\"sub_bits\":11,\"runs\":[[329728,3]],\"buckets\":[[329728,3]]",
        "\"sub_bits\":11,\"buckets\":[[329728,3]],\"runs\":null",
        "\"sub_bits\":7,\"runs\":[[329728,3]]",
        "\"runs\":[[329728,3]]",
        "\"sub_bits\":11,\"runs\":{}",
    };
    for (size_t i = 0; i < sizeof none / sizeof *none; i++) {
        snprintf(line, sizeof line,
                 "{\"schema\":\"netsurvey.trial/3\",\"scenario\":{\"test\":\"tcp_rr\"},"
                 "\"status\":\"ok\",\"trial\":1,\"result\":{\"rtt_us\":{\"hist\":{%s}}}}",
                 none[i]);
        assert_int_equal(decode(line, &t, &took, why, sizeof why), 0);
        assert_false(t.result.has_hist);
        assert_int_equal(t.result.nruns + t.result.ncounts + t.result.nbuckets, 0);
    }
    snprintf(
        line, sizeof line,
        "{\"schema\":\"netsurvey.trial/3\",\"scenario\":{\"test\":\"tcp_rr\"},\"status\":"
        "\"ok\",\"trial\":1,\"result\":{\"rtt_us\":{\"hist\":{\"sub_bits\":11,\"runs\":[]}}}}");
    assert_int_equal(decode(line, &t, &took, why, sizeof why), 0);
    assert_true(t.result.has_hist && t.result.hist_runs);
    assert_int_equal(t.result.nruns, 0);
}

/* A line past the cap is passed over and said, the lines around it are read; one past the cap
 * that ends the file without its newline too. */
static void
test_line_cap(void **state)
{
    (void)state;
    char dir[PATH_MAX], path[PATH_MAX];
    struct journal *j = fresh("cap", dir);
    struct err e = {0};
    struct journal_trial t = sample_trial(1, JOURNAL_FAILED);
    assert_int_equal(journal_append(j, &t, NULL, &e), 0);
    journal_free(j);
    path_in(path, sizeof path, "cap", JOURNAL_RESULTS_FILE);
    char first[4096];
    size_t n = file_text(path, first, sizeof first);
    char big[3000];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    file_append(path, big);
    file_append(path, "\n");
    file_append(path, first);
    file_append(path, big); /* the last line, past the cap and without its newline */
    struct collected c = {.want = {t, t}};
    struct journal_read_stats st;
    assert_int_equal(
        journal_read_trials_capped(dir, NULL, n + 10, true, collect, skipped, &c, &st, &e), 0);
    assert_int_equal(c.n, 2);
    assert_int_equal(st.records, 2);
    assert_int_equal(st.bad, 2);
    assert_int_equal(c.skipped, 2);
    assert_int_equal(c.skipped_line[0], 2);
    assert_int_equal(c.skipped_line[1], 4);
    char want[64];
    snprintf(want, sizeof want, "line longer than %zu bytes", n + 10);
    assert_string_equal(c.why[0], want);
    assert_string_equal(c.why[1], want);
    /* with the real cap the same file reads as before the cap existed */
    c = (struct collected){.want = {t, t}};
    assert_int_equal(journal_read_trials(dir, NULL, collect, skipped, &c, &st, &e), 0);
    assert_int_equal(c.n, 2);
    assert_int_equal(st.bad, 1);  /* the line of x's is not JSON */
    assert_int_equal(st.torn, 1); /* nor is the last, and it is torn */
}

/* A resumed run's records of one key: the reader hands on each; the key says which they are. */
static void
test_key_of_read_records(void **state)
{
    (void)state;
    char dir[PATH_MAX];
    struct journal *j = fresh("keys", dir);
    struct err e = {0};
    struct journal_trial a = sample_trial(1, JOURNAL_FAILED), b = sample_trial(1, JOURNAL_OK);
    b.src.host = "other";
    assert_int_equal(append_trial(j, &a, &e), 0);
    assert_int_equal(append_trial(j, &b, &e), 0);
    journal_free(j);
    struct collected c = {.minimal = true, .want = {a, b}};
    struct journal_read_stats st;
    assert_int_equal(journal_read_trials(dir, NULL, collect, NULL, &c, &st, &e), 0);
    assert_int_equal(c.n, 2);
    struct journal_key ka, kb;
    journal_trial_key(&a, &ka);
    journal_trial_key(&b, &kb);
    assert_false(journal_key_equal(&ka, &kb));
}

/* The run is part of what a reader takes: given the run's id, another run's record is refused
 * (a journal of two runs read as one would count trials that are not this run's), and one
 * without a run_id too; without an id, every run's record is read. */
static void
test_foreign_run_refused(void **state)
{
    (void)state;
    char dir[PATH_MAX];
    struct journal *j = fresh("foreign", dir);
    struct err e = {0};
    struct journal_trial a = sample_trial(1, JOURNAL_OK), b = sample_trial(2, JOURNAL_OK);
    b.run_id = "20261201T000000Z-0002";
    struct journal_trial nobody = sample_trial(3, JOURNAL_OK);
    assert_int_equal(append_trial(j, &a, &e), 0);
    assert_int_equal(append_trial(j, &b, &e), 0);
    journal_free(j);
    char path[PATH_MAX];
    path_in(path, sizeof path, "foreign", JOURNAL_RESULTS_FILE);
    json_t *res = json_pack("{s:{s:f}}", "rtt_us", "mean", MINIMAL_RTT_US);
    json_t *rec = journal_trial_json(&nobody, res);
    json_decref(res);
    assert_non_null(rec);
    json_object_del(rec, "run_id");
    nobody.run_id = NULL;
    char *line = json_dumps(rec, JSON_COMPACT);
    file_append(path, line);
    file_append(path, "\n");
    free(line);
    json_decref(rec);
    for (int slow = 0; slow < 2; slow++) {
        if (slow)
            setenv("NETSURVEY_JOURNAL_SLOW", "1", 1);
        struct collected c = {.minimal = true, .want = {a}};
        struct journal_read_stats st;
        assert_int_equal(journal_read_trials(dir, a.run_id, collect, skipped, &c, &st, &e), 0);
        assert_int_equal(c.n, 1);
        assert_int_equal(st.refused, 2);
        assert_int_equal(c.skipped, 2);
        assert_int_equal(c.kind[0], JOURNAL_SKIP_REFUSED);
        assert_int_equal(c.skipped_line[0], 2);
        assert_string_equal(c.why[0], "a record of another run ('20261201T000000Z-0002'; the run "
                                      "is '20261130T150000Z-7f3c')");
        assert_string_equal(c.why[1],
                            "a record without a run_id (the run is '20261130T150000Z-7f3c')");
        c = (struct collected){.minimal = true, .want = {a, b, nobody}};
        assert_int_equal(journal_read_trials(dir, NULL, collect, skipped, &c, &st, &e), 0);
        assert_int_equal(c.n, 3);
        assert_int_equal(st.refused, 0);
        unsetenv("NETSURVEY_JOURNAL_SLOW");
    }
}

/* Values outside their domain are journal problems, never data (journal_trial_domain): each
 * such line is passed over as JOURNAL_SKIP_INVALID with what is wrong, by both readers, and
 * the good records around them are read as they were written. */
static void
test_values_outside_domain(void **state)
{
    (void)state;
    static const struct {
        const char *result, *family, *why;
    } bad[] = {
        {"null", "ipv6", "status ok without a result"},
        {"{\"cpu\":{\"local_pct\":3}}", "ipv6", "status ok without its headline figure (udp_rr)"},
        {"{\"rtt_us\":{\"mean\":-5}}", "ipv6", "headline figure -5 out of its domain (0 to 1e+12)"},
        {"{\"rtt_us\":{\"mean\":1e300}}", "ipv6",
         "headline figure 1e+300 out of its domain (0 to 1e+12)"},
        {"{\"rtt_us\":{\"mean\":-1e300}}", "ipv6",
         "headline figure -1e+300 out of its domain (0 to 1e+12)"},
        {"{\"rtt_us\":{\"mean\":250,\"min\":-1}}", "ipv6",
         "rtt_us.min -1 out of its domain (0 to 1e+12)"},
        {"{\"rtt_us\":{\"mean\":250},\"udp\":{\"lost_pct\":150}}", "ipv6",
         "udp.lost_pct 150 out of its domain (0 to 100)"},
        {"{\"rtt_us\":{\"mean\":250},\"cpu\":{\"remote_pct\":-0.5}}", "ipv6",
         "cpu.remote_pct -0.5 out of its domain (0 to 1e+12)"},
        {"{\"rtt_us\":{\"mean\":250}}", "ipx", "unknown family 'ipx' (ipv4 or ipv6)"},
    };
    size_t nbad = sizeof bad / sizeof bad[0];
    char dir[PATH_MAX], path[PATH_MAX];
    struct journal *j = fresh("domain", dir);
    struct err e = {0};
    struct journal_trial a = sample_trial(1, JOURNAL_OK);
    assert_int_equal(append_trial(j, &a, &e), 0);
    journal_free(j);
    path_in(path, sizeof path, "domain", JOURNAL_RESULTS_FILE);
    char first[4096];
    file_text(path, first, sizeof first);
    for (size_t i = 0; i < nbad; i++) {
        json_t *rec = json_loads(first, 0, NULL);
        assert_non_null(rec);
        json_object_set_new(rec, "result", json_loads(bad[i].result, JSON_DECODE_ANY, NULL));
        json_object_set_new(rec, "family", json_string(bad[i].family));
        char *line = json_dumps(rec, JSON_COMPACT);
        file_append(path, line);
        file_append(path, "\n");
        free(line);
        json_decref(rec);
    }
    file_append(path, first); /* a good one after them is read */
    for (int slow = 0; slow < 2; slow++) {
        if (slow)
            setenv("NETSURVEY_JOURNAL_SLOW", "1", 1);
        struct collected c = {.minimal = true, .want = {a, a}};
        struct journal_read_stats st;
        assert_int_equal(journal_read_trials(dir, a.run_id, collect, NULL, &c, &st, &e), 0);
        assert_int_equal(c.n, 2);
        assert_int_equal(st.records, 2);
        assert_int_equal(st.invalid, nbad);
        assert_int_equal(st.bad + st.refused + st.torn, 0);
        unsetenv("NETSURVEY_JOURNAL_SLOW");
    }
    /* each with its reason, at its line */
    struct collected c = {.minimal = true, .want = {a, a}};
    struct journal_read_stats st;
    assert_int_equal(journal_read_trials(dir, a.run_id, collect, skipped, &c, &st, &e), 0);
    assert_int_equal(c.skipped, nbad);
    for (size_t i = 0; i < 4 && i < nbad; i++) {
        assert_int_equal(c.kind[i], JOURNAL_SKIP_INVALID);
        assert_int_equal(c.skipped_line[i], i + 2);
        assert_string_equal(c.why[i], bad[i].why);
    }
}

/* A record the caller finds out of place (JOURNAL_PASS_OVER) is passed over as invalid, with
 * the caller's reason, and the reading goes on. */
static int
pass_over_second(void *arg, const struct journal_trial *t, struct err *e)
{
    (void)arg;
    return t->trial == 2 ? err_set(e, JOURNAL_PASS_OVER, "trial 2 past the plan") : 0;
}

static void
test_callback_passes_over(void **state)
{
    (void)state;
    char dir[PATH_MAX];
    struct journal *j = fresh("passover", dir);
    struct err e = {0};
    for (uint32_t n = 1; n <= 3; n++) {
        struct journal_trial t = sample_trial(n, JOURNAL_OK);
        assert_int_equal(append_trial(j, &t, &e), 0);
    }
    journal_free(j);
    struct collected c = {.minimal = true};
    struct journal_read_stats st;
    assert_int_equal(journal_read_trials(dir, NULL, pass_over_second, skipped, &c, &st, &e), 0);
    assert_int_equal(st.records, 2);
    assert_int_equal(st.invalid, 1);
    assert_int_equal(c.skipped, 1);
    assert_int_equal(c.kind[0], JOURNAL_SKIP_INVALID);
    assert_int_equal(c.skipped_line[0], 2);
    assert_string_equal(c.why[0], "trial 2 past the plan");
}

/* A skip callback that stops the reading: its code comes back, no record after it is read. */
static int
skip_stop(void *arg, const struct journal_skip *s, struct err *e)
{
    (void)arg;
    return s->kind == JOURNAL_SKIP_REFUSED ? err_set(e, NS_EPROTO, "stop at %lu", s->line) : 0;
}

static void
test_skip_stops_reading(void **state)
{
    (void)state;
    char dir[PATH_MAX], path[PATH_MAX];
    struct journal *j = fresh("stop", dir);
    struct err e = {0};
    struct journal_trial a = sample_trial(1, JOURNAL_OK);
    assert_int_equal(append_trial(j, &a, &e), 0);
    journal_free(j);
    path_in(path, sizeof path, "stop", JOURNAL_RESULTS_FILE);
    char first[4096];
    file_text(path, first, sizeof first);
    file_append(path, "garbage\n");
    char *weird = strdup(first);
    char *st_at = strstr(weird, "\"status\":\"ok\"");
    assert_non_null(st_at);
    memcpy(st_at, "\"status\":\"no\"", 13);
    file_append(path, weird);
    file_append(path, first);
    free(weird);
    struct collected c = {.minimal = true, .want = {a, a}};
    struct journal_read_stats st;
    assert_int_equal(journal_read_trials(dir, NULL, collect, skip_stop, &c, &st, &e), NS_EPROTO);
    assert_string_equal(e.msg, "stop at 3");
    assert_int_equal(c.n, 1);
    assert_int_equal(st.bad, 1);
    assert_int_equal(st.refused, 1);
}

/* run.json's completeness: the planned trials of each scenario and the run's state, as
 * recorded; absent, they read as 0 and NULL. */
static void
test_run_planned_and_state(void **state)
{
    (void)state;
    char dir[PATH_MAX], path[PATH_MAX];
    struct journal *j = fresh("planned", dir);
    journal_free(j);
    path_in(path, sizeof path, "planned", JOURNAL_RUN_FILE);
    file_append(path, "{\"schema\":\"netsurvey.run/1\",\"state\":\"interrupted\",\"scenarios\":["
                      "{\"name\":\"a\",\"test\":\"tcp_rr\",\"trials\":3,\"planned\":12},"
                      "{\"name\":\"b\",\"test\":\"tcp_rr\",\"trials\":2}]}");
    struct journal_run *r = NULL;
    struct err e = {0};
    assert_int_equal(journal_read_run(dir, &r, &e), 0);
    assert_int_equal(r->state, JOURNAL_RUN_INTERRUPTED);
    assert_int_equal(r->scenarios[0].trials, 3);
    assert_int_equal(r->scenarios[0].planned, 12);
    assert_int_equal(r->scenarios[1].planned, 0);
    assert_null(r->plan_description);
    journal_run_free(r);
}

/* --- the lock, the state, one directory per run, whole lines --------------------------------- */

static long
pid_in_message(const char *msg)
{
    const char *p = strstr(msg, "(pid ");
    return p != NULL ? strtol(p + 5, NULL, 10) : -1;
}

struct seen_run {
    int n;
    char dir[PATH_MAX];
    long pid;
};

static void
seen_run(void *arg, const char *dir, long pid)
{
    struct seen_run *s = arg;
    s->n++;
    snprintf(s->dir, sizeof s->dir, "%s", dir);
    s->pid = pid;
}

/* A run says it is in progress; `clean` finds it by its plan while its lock is held, and the
 * entry of a run that ended (its lock released, the entry left behind) goes. */
static void
test_runs_in_progress(void **state)
{
    (void)state;
    char xdg[PATH_MAX];
    path_in(xdg, sizeof xdg, "xdg", NULL);
    assert_int_equal(mkdir(xdg, 0700), 0);
    setenv("XDG_RUNTIME_DIR", xdg, 1);
    char dir[PATH_MAX], entry[PATH_MAX + 64];
    struct journal *j = fresh("active-run", dir);
    struct err e = {0};
    assert_int_equal(journal_active_add(dir, "plan-a", entry, sizeof entry, &e), 0);
    assert_int_equal(strncmp(entry, xdg, strlen(xdg)), 0);
    struct seen_run s = {0};
    assert_int_equal(journal_runs_in_progress("plan-a", seen_run, &s, &e), 1);
    assert_int_equal(s.n, 1);
    char abs[PATH_MAX];
    assert_non_null(realpath(dir, abs));
    assert_string_equal(s.dir, abs);
    assert_int_equal(s.pid, (long)getpid());
    assert_int_equal(journal_runs_in_progress("plan-b", NULL, NULL, &e), 0);
    journal_free(j); /* ended without removing its entry (a SIGKILL) */
    struct stat st;
    assert_int_equal(stat(entry, &st), 0);
    assert_int_equal(journal_runs_in_progress("plan-a", NULL, NULL, &e), 0);
    assert_int_not_equal(stat(entry, &st), 0);
    unsetenv("XDG_RUNTIME_DIR");
}

static void
test_lock(void **state)
{
    (void)state;
    char dir[PATH_MAX];
    struct journal *j = fresh("locked", dir), *k = NULL;
    write_minimal_run_locked(j);
    struct err e = {0};
    long pid = -1;
    assert_int_equal(journal_owner(dir, &pid, &e), 1);
    assert_int_equal(pid, (long)getpid());
    /* A second owner is refused at once, by a new run and by a resume, naming the PID. */
    assert_int_equal(journal_create(dir, &k, &e), NS_EBUSY);
    assert_null(k);
    assert_int_equal(pid_in_message(e.msg), (long)getpid());
    assert_non_null(strstr(e.msg, "in use"));
    assert_int_equal(journal_open_locked(dir, &k, &e), NS_EBUSY);
    assert_int_equal(pid_in_message(e.msg), (long)getpid());
    journal_free(j);
    assert_int_equal(journal_owner(dir, &pid, &e), 0);
    /* No lock file, no directory: nobody owns it. */
    char none[PATH_MAX];
    path_in(none, sizeof none, "no-such-dir", NULL);
    assert_int_equal(journal_owner(none, &pid, &e), 0);

    /* An owner that dies (SIGKILL) leaves the lock to the kernel, which drops it; a program it
     * started (exec) does not inherit it. */
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    pid_t child = fork();
    assert_true(child >= 0);
    if (child == 0) {
        struct journal *cj = NULL;
        struct err ce = {0};
        if (journal_open_locked(dir, &cj, &ce) != 0)
            _exit(1);
        pid_t grand = fork();
        if (grand == 0) {
            execl("/bin/sleep", "sleep", "30", (char *)NULL);
            _exit(2);
        }
        long both[2] = {(long)getpid(), (long)grand};
        if (write(fds[1], both, sizeof both) != (ssize_t)sizeof both)
            _exit(3);
        pause();
        _exit(0);
    }
    close(fds[1]);
    long both[2] = {0, 0};
    assert_int_equal(read(fds[0], both, sizeof both), (ssize_t)sizeof both);
    close(fds[0]);
    assert_int_equal(journal_owner(dir, &pid, &e), 1);
    assert_int_equal(pid, (long)child);
    kill(child, SIGKILL);
    int st;
    assert_int_equal(waitpid(child, &st, 0), child);
    /* The sleep the owner started still runs, and holds no lock. Its exec closes the inherited
     * lock file (close-on-exec) after the process has taken its new name, and the kernel drops
     * the lock only when that close completes, so "it is sleep now" is no signal: wait for the
     * lock to go, up to 10 s. Had the sleep (30 s) inherited it, the lock would stay held. */
    int owned = 1;
    for (int i = 0; i < 10000 && (owned = journal_owner(dir, &pid, &e)) == 1; i++)
        usleep(1000);
    assert_int_equal(owned, 0);
    assert_int_equal(kill((pid_t)both[1], 0), 0); /* the sleep is still there */
    assert_int_equal(journal_open_locked(dir, &k, &e), 0);
    journal_free(k);
    kill((pid_t)both[1], SIGKILL);
    waitpid((pid_t)both[1], &st, 0); /* reparented to init or to us (a subreaper): either way */
}

static void
test_state(void **state)
{
    (void)state;
    char dir[PATH_MAX];
    struct journal *j = fresh("state", dir), *k = NULL;
    write_minimal_run_locked(j);
    struct err e = {0};
    struct journal_run *r = NULL;
    assert_int_equal(journal_read_run(dir, &r, &e), 0);
    assert_int_equal(r->state, JOURNAL_RUN_RUNNING);
    assert_null(r->ended);
    assert_false(r->has_pairs && r->npair_list > 0);
    journal_run_free(r);
    /* Each final state, read back; everything else kept. */
    for (int s = JOURNAL_RUN_COMPLETE; s <= JOURNAL_RUN_FAILED; s++) {
        assert_int_equal(journal_set_state(j, (enum journal_run_state)s, NULL, NULL, &e), 0);
        assert_int_equal(journal_read_run(dir, &r, &e), 0);
        assert_int_equal(r->state, s);
        assert_non_null(r->ended);
        assert_string_equal(r->run_id, "r1");
        assert_string_equal(r->command, "netsurvey run p.yaml");
        assert_string_equal(journal_run_state_name(r->state),
                            json_string_value(json_object_get(r->json, "state")));
        journal_run_free(r);
    }
    json_t *resumed = json_pack("{s:s, s:s}", "started", "x", "command", "netsurvey run --resume");
    assert_int_equal(journal_set_state(j, JOURNAL_RUN_RUNNING, resumed, NULL, &e), 0);
    assert_int_equal(journal_set_state(j, JOURNAL_RUN_INTERRUPTED, resumed, resumed, &e), 0);
    assert_int_equal(journal_read_run(dir, &r, &e), 0);
    assert_int_equal(r->state, JOURNAL_RUN_INTERRUPTED);
    assert_int_equal(json_array_size(json_object_get(r->json, "resumes")), 2);
    assert_true(json_equal(json_object_get(r->json, "measured"), resumed));
    json_decref(resumed);
    journal_run_free(r);
    journal_free(j);
    /* A new run in the directory of one that did not finish: told to resume it. */
    assert_int_equal(journal_create(dir, &k, &e), NS_EBUSY);
    assert_non_null(strstr(e.msg, "--resume"));
    /* Of a finished one: never. */
    assert_int_equal(journal_open_locked(dir, &k, &e), 0);
    assert_int_equal(journal_set_state(k, JOURNAL_RUN_COMPLETE, NULL, NULL, &e), 0);
    journal_free(k);
    assert_int_equal(journal_create(dir, &k, &e), NS_EBUSY);
    assert_non_null(strstr(e.msg, "finished run"));
    assert_null(strstr(e.msg, "resume"));
    /* Names and back. */
    assert_int_equal(journal_run_state_from("complete"), JOURNAL_RUN_COMPLETE);
    assert_int_equal(journal_run_state_from("weird"), JOURNAL_RUN_UNKNOWN);
    assert_int_equal(journal_run_state_from(NULL), JOURNAL_RUN_UNKNOWN);
    assert_null(journal_run_state_name(JOURNAL_RUN_UNKNOWN));
}

static void
test_unique_dir(void **state)
{
    (void)state;
    char dir[PATH_MAX], want[PATH_MAX + 8];
    struct journal *a = fresh("uniq", dir), *b = NULL, *c = NULL;
    struct err e = {0};
    assert_int_equal(journal_create_unique(dir, &b, &e), 0);
    snprintf(want, sizeof want, "%s-2", dir);
    assert_string_equal(journal_dir(b), want);
    assert_int_equal(journal_create_unique(dir, &c, &e), 0);
    snprintf(want, sizeof want, "%s-3", dir);
    assert_string_equal(journal_dir(c), want);
    assert_string_equal(journal_dir(a), dir);
    journal_free(a);
    journal_free(b);
    journal_free(c);
    /* A directory that does not exist is taken as it is named; one that exists empty is not
     * (another process may be about to use it). */
    path_in(dir, sizeof dir, "uniq-new", NULL);
    assert_int_equal(journal_create_unique(dir, &a, &e), 0);
    assert_string_equal(journal_dir(a), dir);
    journal_free(a);
    path_in(dir, sizeof dir, "uniq-empty", NULL);
    assert_int_equal(mkdir(dir, 0777), 0);
    assert_int_equal(journal_create_unique(dir, &a, &e), 0);
    snprintf(want, sizeof want, "%s-2", dir);
    assert_string_equal(journal_dir(a), want);
    journal_free(a);
}

/* A line that does not fit (here RLIMIT_FSIZE, as a full disk would do it) leaves no part of
 * itself: the file is cut back, and the next record starts on a line of its own. */
static void
test_append_whole_or_nothing(void **state)
{
    (void)state;
    char dir[PATH_MAX], path[PATH_MAX];
    struct journal *j = fresh("full", dir);
    struct err e = {0};
    struct journal_trial t = sample_trial(1, JOURNAL_OK);
    assert_int_equal(append_trial(j, &t, &e), 0);
    path_in(path, sizeof path, "full", JOURNAL_RESULTS_FILE);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    off_t one = st.st_size;
    struct rlimit old, lim;
    assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
    lim = old;
    lim.rlim_cur = (rlim_t)(one + one / 2); /* half a line more */
    signal(SIGXFSZ, SIG_IGN);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
    t.trial = 2;
    int rc = append_trial(j, &t, &e);
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
    assert_int_equal(rc, NS_EIO);
    assert_non_null(strstr(e.msg, "cannot append"));
    assert_int_equal(st.st_size, one);
    t.trial = 3;
    assert_int_equal(append_trial(j, &t, &e), 0);
    journal_free(j);
    struct journal_trial a = sample_trial(1, JOURNAL_OK), b = sample_trial(3, JOURNAL_OK);
    struct collected c = {.minimal = true, .want = {a, b}};
    struct journal_read_stats rs;
    assert_int_equal(journal_read_trials(dir, NULL, collect, skipped, &c, &rs, &e), 0);
    assert_int_equal(c.n, 2);
    assert_int_equal(rs.bad + rs.torn, 0);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_trial_round_trip_every_field),
        cmocka_unit_test(test_fast_decoder_takes_written_lines),
        cmocka_unit_test(test_run_round_trip_every_field),
        cmocka_unit_test(test_trial_revision),
        cmocka_unit_test(test_run_revisions),
        cmocka_unit_test(test_run_adaptive_trials),
        cmocka_unit_test(test_run_errors),
        cmocka_unit_test(test_runs_kept_and_broken),
        cmocka_unit_test(test_runs_rules),
        cmocka_unit_test(test_resume_cuts_torn_line),
        cmocka_unit_test(test_key),
        cmocka_unit_test(test_sweep_records),
        cmocka_unit_test(test_reading_rules),
        cmocka_unit_test(test_flags),
        cmocka_unit_test(test_runs_of_digits_and_strings),
        cmocka_unit_test(test_buckets_checked_not_kept),
        cmocka_unit_test(test_buckets_kept_digit_runs),
        cmocka_unit_test(test_copy_and_busy_poll),
        cmocka_unit_test(test_new_kinds),
        cmocka_unit_test(test_key_of_read_records),
        cmocka_unit_test(test_line_cap),
        cmocka_unit_test(test_foreign_run_refused),
        cmocka_unit_test(test_skip_stops_reading),
        cmocka_unit_test(test_values_outside_domain),
        cmocka_unit_test(test_callback_passes_over),
        cmocka_unit_test(test_run_planned_and_state),
        cmocka_unit_test(test_lock),
        cmocka_unit_test(test_runs_in_progress),
        cmocka_unit_test(test_state),
        cmocka_unit_test(test_unique_dir),
        cmocka_unit_test(test_append_whole_or_nothing),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
