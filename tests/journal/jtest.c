/* jtest.c - what the journal module's tests share (jtest.h). */
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

#include "jtest.h"

char tmpdir[] = "/tmp/ns-journal-XXXXXX";

int
setup(void **state)
{
    (void)state;
    return mkdtemp(tmpdir) != NULL ? 0 : -1;
}

int
teardown(void **state)
{
    (void)state;
    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

void
path_in(char *buf, size_t len, const char *a, const char *b)
{
    snprintf(buf, len, "%s/%s%s%s", tmpdir, a, b != NULL ? "/" : "", b != NULL ? b : "");
}

/* A new run directory tmpdir/name (its path into dir), open for writing. */
struct journal *
fresh(const char *name, char dir[PATH_MAX])
{
    path_in(dir, PATH_MAX, name, NULL);
    struct journal *j = NULL;
    struct err e = {0};
    assert_int_equal(journal_create(dir, &j, &e), 0);
    return j;
}

size_t
file_text(const char *path, char *buf, size_t len)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    size_t n = fread(buf, 1, len - 1, f);
    buf[n] = '\0';
    fclose(f);
    return n;
}

void
file_append(const char *path, const char *text)
{
    FILE *f = fopen(path, "a");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* Three attempts: one cut short by a host's absence, one failed, the last as the status says. */
const struct journal_attempt sample_attempts[3] = {
    {.started = "2026-11-30T15:00:01.000Z",
     .ended = "2026-11-30T15:00:01.500Z",
     .error = "zone2-vm: session dropped while the command ran: no answer \"x\"",
     .host_away = "zone2-vm"},
    {.started = "2026-11-30T15:00:03.000Z",
     .ended = "2026-11-30T15:00:04.000Z",
     .error = "deadline exceeded \xc3\xa9"},
    {.started = "2026-11-30T15:00:04.100Z", .ended = "2026-11-30T15:00:05.210Z"}};

/* A trial record with a distinct value in every field. */
struct journal_trial
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

json_t *
sample_result(const struct hist *h)
{
    return json_pack("{s:o, s:f, s:f, s:i, s:{s:f, s:f}, s:{s:i, s:i, s:f, s:f}, s:f}", "rtt_us",
                     hist_to_rtt_json(h), "throughput_bps", 9.5e8, "connections_per_s", 1234.5,
                     "retransmits", 7, "cpu", "local_pct", 12.5, "remote_pct", 33.25, "udp", "sent",
                     1000, "lost", 10, "lost_pct", 1.0, "jitter_us", 4.5, "transactions_per_s",
                     99.0);
}

void
assert_str(const char *got, const char *want)
{
    if (want == NULL)
        assert_null(got);
    else
        assert_string_equal(got, want);
}

/* The parameters that apply to kind, as bits of enum testspec_param. */
unsigned
applying(int kind)
{
    unsigned bits = 0;
    for (int i = 0; i < TESTSPEC_PARAM_COUNT; i++)
        bits |= testspec_applies((enum testspec_param)i, kind) ? 1u << i : 0;
    return bits;
}

/* A scenario read back: name, kind, and every parameter that applies to the kind as written;
 * the others are not written, so they read as 0, and their keys are absent. */
void
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
void
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
void
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

/* t appended with the least result an ok record needs (none for a failed one). */
int
append_trial(struct journal *j, const struct journal_trial *t, struct err *e)
{
    json_t *r =
        t->status == JOURNAL_OK ? json_pack("{s:{s:f}}", "rtt_us", "mean", MINIMAL_RTT_US) : NULL;
    int rc = journal_append(j, t, r, e);
    json_decref(r);
    return rc;
}

int
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

int
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

/* One line through both decoders: same refusal, or the same record; and through both without
 * the buckets (journal_read_trials_nobuckets' readers): the same refusal, or the same record
 * but for its buckets. Returns the record (the fast one: *fast_took says whether it took the
 * line) with its check's code. */
int
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
