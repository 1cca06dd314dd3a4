/* test_aggregate.c - the statistics of a crafted journal: percentiles of the trials' merged
 * histograms against brute force over every sample, trial means, CI and CV, the journal's
 * dedup rules (last ok, else last failed), a torn last line, the same-zone diagonal, and a
 * pair whose trials are of the old histogram layout (sub_bits 7) and the new one. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/errors.h"
#include "common/hist.h"
#include "common/histjson.h"
#include "report/reportint.h"

#include "helpers.h"

static const char run_json[] =
    "{\"schema\":\"netsurvey.run/"
    "1\",\"run_id\":\"r1\",\"plan\":{\"name\":\"p\",\"file\":\"p.yaml\","
    "\"sha256\":\"00\"},\"tool\":{\"netsurvey_version\":\"0.1.0\",\"nsperf_version\":\"0.1.0\"},"
    "\"started\":\"2026-11-30T15:00:00.000Z\",\"command\":\"netsurvey run p.yaml\","
    "\"hosts\":[{\"name\":\"a\",\"zone\":\"1\",\"region\":\"r\",\"data_address\":\"10.0.0.1\"},"
    "{\"name\":\"b\",\"zone\":\"2\",\"region\":\"r\",\"data_address\":\"10.0.0.2\"},"
    "{\"name\":\"c\",\"zone\":\"2\",\"region\":\"r\",\"data_address\":\"10.0.0.3\"}],"
    "\"scenarios\":[{\"name\":\"lat\",\"test\":\"tcp_rr\",\"reverse\":false,\"trials\":3},"
    "{\"name\":\"tput\",\"test\":\"tcp_stream\",\"reverse\":true,\"trials\":3}]}\n";

/* One trial line; result is a JSON text or NULL (failed with error). */
static void
line(struct rbuf *b, const char *scen, const char *test, int n, const char *src, const char *sz,
     const char *dst, const char *dz, const char *result, const char *error)
{
    report_buf_printf(
        b,
        "{\"schema\":\"netsurvey.trial/1\",\"run_id\":\"r1\",\"scenario\":{\"name\":\"%s\","
        "\"test\":\"%s\",\"reverse\":%s},\"trial\":%d,\"family\":\"ipv4\","
        "\"src\":{\"host\":\"%s\",\"zone\":\"%s\",\"region\":\"r\",\"data_address\":\"x\"},"
        "\"dst\":{\"host\":\"%s\",\"zone\":\"%s\",\"region\":\"r\",\"data_address\":\"y\"},"
        "\"status\":\"%s\",\"error\":%s%s%s,\"result\":%s}\n",
        scen, test, strcmp(test, "tcp_stream") ? "false" : "true", n, src, sz, dst, dz,
        result ? "ok" : "failed", error ? "\"" : "", error ? error : "null", error ? "\"" : "",
        result ? result : "null");
}

static uint64_t lcg = 12345;

static uint64_t
rnd(uint64_t lo, uint64_t span)
{
    lcg = lcg * 6364136223846793005u + 1442695040888963407u;
    return lo + (lcg >> 33) % span;
}

static int
cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

struct fixture {
    char *dir;
    json_t *sum, *view;
    uint64_t *all;
    size_t nall;
    double trial_means[3];
    struct hist *mix, *cell; /* a -> c's trials and zone cell 1 -> 2's, merged from their JSON */
};

/* An rtt_us object as nsperf 0.1.0 wrote it (sub_bits 7: 128 exact values, then 64 buckets an
 * octave) for n sorted values. */
static json_t *
v1_rtt_json(const uint64_t *sorted, size_t n)
{
    json_t *b = json_array();
    double sum = 0;
    for (size_t i = 0; i < n;) {
        uint64_t low = sorted[i], w = 1;
        if (low >= 128) {
            w = UINT64_C(1) << (63 - __builtin_clzll(low) - 6);
            low &= ~(w - 1);
        }
        size_t j = i;
        while (j < n && sorted[j] < low + w)
            sum += (double)sorted[j++];
        json_array_append_new(b, json_pack("[II]", (json_int_t)low, (json_int_t)(j - i)));
        i = j;
    }
    return json_pack("{s:I,s:f,s:f,s:f,s:f,s:{s:s,s:i,s:o}}", "n", (json_int_t)n, "mean",
                     sum / (double)n / 1e3, "min", (double)sorted[0] / 1e3, "max",
                     (double)sorted[n - 1] / 1e3, "m2_ns2", 0.0, "hist", "unit", "ns", "sub_bits",
                     7, "buckets", b);
}

/* Trial n of lat src -> dst with the histogram rtt (stolen), merged into the references. */
static void
rtt_line(struct rbuf *b, int n, const char *src, const char *sz, const char *dst, json_t *rtt,
         struct hist *ref1, struct hist *ref2)
{
    struct err e;
    assert_int_equal(hist_merge_rtt_json(ref1, rtt, &e), 0);
    if (ref2 != NULL)
        assert_int_equal(hist_merge_rtt_json(ref2, rtt, &e), 0);
    json_t *res = json_pack("{s:o,s:f}", "rtt_us", rtt, "transactions_per_s", 1.0);
    char *rs = json_dumps(res, JSON_COMPACT);
    line(b, "lat", "tcp_rr", n, src, sz, dst, "2", rs, NULL);
    free(rs);
    json_decref(res);
}

static int
setup(void **state)
{
    struct fixture *f = calloc(1, sizeof *f);
    f->dir = th_tempdir("agg");
    assert_non_null(f->dir);
    assert_int_equal(th_write(f->dir, "run.json", run_json), 0);
    struct rbuf b;
    report_buf_init(&b);
    f->all = malloc(30000 * sizeof *f->all);
    f->mix = hist_new();
    f->cell = hist_new();
    /* three trials a -> b, different spreads and a tail in the third */
    static const uint64_t lo[] = {300000, 310000, 290000}, span[] = {20000, 50000, 30000};
    for (int t = 0; t < 3; t++) {
        struct hist h;
        hist_init(&h);
        for (int i = 0; i < 10000; i++) {
            uint64_t v = rnd(lo[t], span[t]);
            if (t == 2 && i % 100 == 0)
                v = rnd(2000000, 3000000); /* 1 % tail, 2 - 5 ms */
            hist_record(&h, v);
            f->all[f->nall++] = v;
        }
        f->trial_means[t] = hist_mean(&h) / 1e3;
        json_t *rtt = hist_to_rtt_json(&h);
        struct err e;
        assert_int_equal(hist_merge_rtt_json(f->cell, rtt, &e), 0);
        json_t *res = json_pack("{s:o,s:f,s:{s:f,s:f}}", "rtt_us", rtt, "transactions_per_s", 1.0,
                                "cpu", "local_pct", 10.0, "remote_pct", 20.0);
        char *rs = json_dumps(res, JSON_COMPACT);
        if (t == 1) /* failed first, ok after a resume */
            line(&b, "lat", "tcp_rr", t + 1, "a", "1", "b", "2", NULL, "ssh: reset");
        line(&b, "lat", "tcp_rr", t + 1, "a", "1", "b", "2", rs, NULL);
        if (t == 2) /* ok, then a later failed record of the same trial: ok stays */
            line(&b, "lat", "tcp_rr", t + 1, "a", "1", "b", "2", NULL, "late failure");
        free(rs);
        json_decref(res);
    }
    /* a -> c (zone 1 -> 2 too): trial 1 from an old journal (sub_bits 7), trial 2 new */
    uint64_t v[5000];
    for (size_t i = 0; i < 5000; i++)
        v[i] = rnd(320000, 15000);
    qsort(v, 5000, sizeof *v, cmp_u64);
    rtt_line(&b, 1, "a", "1", "c", v1_rtt_json(v, 5000), f->mix, f->cell);
    struct hist h2;
    hist_init(&h2);
    for (size_t i = 0; i < 5000; i++)
        hist_record(&h2, rnd(318000, 20000));
    rtt_line(&b, 2, "a", "1", "c", hist_to_rtt_json(&h2), f->mix, f->cell);
    /* throughput: b -> a 100/110/120 Mbit/s; c -> a 100/150 and trial 3 failed twice */
    static const double tb[] = {100e6, 110e6, 120e6};
    for (int t = 0; t < 3; t++) {
        char r[128];
        snprintf(r, sizeof r, "{\"throughput_bps\":%.1f,\"retransmits\":%d}", tb[t], t);
        line(&b, "tput", "tcp_stream", t + 1, "b", "2", "a", "1", r, NULL);
    }
    line(&b, "tput", "tcp_stream", 1, "c", "2", "a", "1", "{\"throughput_bps\":100e6}", NULL);
    line(&b, "tput", "tcp_stream", 2, "c", "2", "a", "1", "{\"throughput_bps\":150e6}", NULL);
    line(&b, "tput", "tcp_stream", 3, "c", "2", "a", "1", NULL, "first reason");
    line(&b, "tput", "tcp_stream", 3, "c", "2", "a", "1", NULL, "second reason");
    /* same zone (2 -> 2, two hosts): the diagonal is filled */
    line(&b, "tput", "tcp_stream", 1, "b", "2", "c", "2", "{\"throughput_bps\":5e8}", NULL);
    report_buf_puts(&b, "{\"schema\":\"netsurvey.trial/1\",\"tri"); /* torn */
    assert_int_equal(th_write(f->dir, "results.jsonl", b.data), 0);
    report_buf_release(&b);
    qsort(f->all, f->nall, sizeof *f->all, cmp_u64);

    struct rmodel *m;
    struct err e = {0};
    const char *dirs[] = {f->dir};
    assert_int_equal(report_model_load(dirs, 1, stderr, &m, &e), 0);
    assert_int_equal(report_aggregate(m, &f->sum, &f->view, &e), 0);
    report_model_free(m);
    *state = f;
    return 0;
}

static int
teardown(void **state)
{
    struct fixture *f = *state;
    th_rmtree(f->dir);
    free(f->dir);
    free(f->all);
    hist_free(f->mix);
    hist_free(f->cell);
    json_decref(f->sum);
    json_decref(f->view);
    free(f);
    return 0;
}

static const json_t *
scen(const struct fixture *f, size_t i)
{
    return json_array_get(json_object_get(f->sum, "scenarios"), i);
}

static const json_t *
pair(const json_t *s, const char *src, const char *dst)
{
    size_t i;
    const json_t *p;
    json_array_foreach(json_object_get(s, "pairs"), i, p)
    {
        if (!strcmp(json_string_value(json_object_get(p, "src")), src) &&
            !strcmp(json_string_value(json_object_get(p, "dst")), dst))
            return p;
    }
    fail_msg("no pair %s -> %s", src, dst);
    return NULL;
}

static double
num(const json_t *o, const char *k)
{
    const json_t *v = json_object_get(o, k);
    assert_true(json_is_number(v));
    return json_number_value(v);
}

static void
test_merged_percentiles_vs_brute_force(void **state)
{
    struct fixture *f = *state;
    const json_t *p = pair(scen(f, 0), "a", "b");
    const json_t *rtt = json_object_get(p, "rtt_us");
    assert_int_equal(json_integer_value(json_object_get(rtt, "n")), 30000);
    for (size_t q = 0; q < HISTJSON_NPCT; q++) {
        uint64_t rank = (uint64_t)ceil(histjson_pcts[q].q / 100.0 * (double)f->nall);
        double brute = (double)f->all[rank - 1] / 1e3;
        double got = num(rtt, histjson_pcts[q].key);
        /* a bucket is at most 1/1024 of its low bound wide: the midpoint is within 1/2048 */
        assert_true(fabs(got - brute) <= brute / 2048.0 + 0.001);
    }
    assert_true(fabs(num(rtt, "min") - (double)f->all[0] / 1e3) < 1e-9);
    assert_true(fabs(num(rtt, "max") - (double)f->all[f->nall - 1] / 1e3) < 1e-9);
    /* the p99 sits in the tail only the third trial had: averaging trials' p99s would not */
    assert_true(num(rtt, "p99") > 330.0);
    /* the headline is the mean of the trial means */
    double m = (f->trial_means[0] + f->trial_means[1] + f->trial_means[2]) / 3.0;
    assert_true(fabs(num(p, "mean") - m) < 1e-6);
    assert_int_equal(json_integer_value(json_object_get(p, "n")), 3);
    assert_int_equal(json_integer_value(json_object_get(p, "failed")), 0);
}

static void
test_ci_cv_and_flag(void **state)
{
    struct fixture *f = *state;
    const json_t *s = scen(f, 1);
    assert_string_equal(json_string_value(json_object_get(s, "direction")), "dst->src");
    const json_t *p = pair(s, "b", "a");
    assert_true(fabs(num(p, "mean") - 110.0) < 1e-9);
    assert_true(fabs(num(p, "median") - 110.0) < 1e-9);
    assert_true(fabs(num(p, "stddev") - 10.0) < 1e-9);
    assert_true(fabs(num(p, "ci95_halfwidth") - 4.303 * 10.0 / sqrt(3.0)) < 1e-9);
    assert_true(fabs(num(p, "cv") - 10.0 / 110.0) < 1e-12);
    assert_false(json_is_true(json_object_get(p, "high_variation")));
    assert_true(fabs(num(p, "retransmits_mean") - 1.0) < 1e-12);
    const json_t *q = pair(s, "c", "a");
    assert_true(fabs(num(q, "median") - 125.0) < 1e-9);
    assert_true(json_is_true(json_object_get(q, "high_variation"))); /* cv 0.28 > 0.10 */
    assert_int_equal(json_integer_value(json_object_get(q, "failed")), 1);
}

static void
test_dedup_and_failures(void **state)
{
    struct fixture *f = *state;
    /* lat: trial 2 failed then ok (ok), trial 3 ok then failed (ok): no failure */
    assert_int_equal(
        json_integer_value(json_object_get(json_object_get(scen(f, 0), "trials"), "failed")), 0);
    const json_t *fails = json_object_get(scen(f, 1), "failures");
    assert_int_equal(json_array_size(fails), 1);
    const json_t *x = json_array_get(fails, 0);
    assert_string_equal(json_string_value(json_object_get(x, "error")), "second reason");
    assert_int_equal(json_integer_value(json_object_get(x, "trial")), 3);
    assert_int_equal(
        json_integer_value(json_object_get(json_object_get(f->sum, "journal"), "torn_lines")), 1);
}

static void
test_zone_cells_and_diagonal(void **state)
{
    struct fixture *f = *state;
    const json_t *cells = json_object_get(scen(f, 1), "zone_cells");
    /* 2 -> 1 aggregates two host pairs (5 ok trials), 2 -> 2 is the same-zone diagonal */
    assert_int_equal(json_array_size(cells), 2);
    const json_t *c21 = json_array_get(cells, 0), *c22 = json_array_get(cells, 1);
    assert_string_equal(json_string_value(json_object_get(c21, "src_zone")), "2");
    assert_string_equal(json_string_value(json_object_get(c21, "dst_zone")), "1");
    assert_int_equal(json_integer_value(json_object_get(c21, "pairs")), 2);
    assert_int_equal(json_integer_value(json_object_get(c21, "n")), 5);
    assert_int_equal(json_integer_value(json_object_get(c21, "failed")), 1);
    assert_true(fabs(num(c21, "mean") - 116.0) < 1e-9);
    assert_string_equal(json_string_value(json_object_get(c22, "dst_zone")), "2");
    assert_true(fabs(num(c22, "mean") - 500.0) < 1e-9);
    /* the view: zone 1 has a single host, so 1 -> 1 is shown as a dash */
    const json_t *mv =
        json_object_get(json_array_get(json_object_get(f->view, "scenarios"), 1), "matrix");
    const json_t *rows = json_object_get(mv, "rows");
    /* one unit for the matrix, chosen for its cells (116 and 500 Mbit/s), named once */
    assert_string_equal(json_string_value(json_object_get(mv, "unit")), "Mbit/s");
    const json_t *c11 = json_array_get(json_object_get(json_array_get(rows, 0), "cells"), 0);
    assert_string_equal(json_string_value(json_object_get(c11, "text")), "—");
    const json_t *c21v = json_array_get(json_object_get(json_array_get(rows, 1), "cells"), 0);
    assert_string_equal(json_string_value(json_object_get(c21v, "text")), "116.0");
    assert_int_equal(json_integer_value(json_object_get(c21v, "npairs")), 2);
}

/* Percentiles of merged histograms equal the reference merge's (hist_merge_rtt_json, old
 * buckets at their centres), for a pair of an old and a new trial and for its zone cell. */
static void
check_rtt(const json_t *rtt, const struct hist *ref)
{
    assert_int_equal(json_integer_value(json_object_get(rtt, "n")), ref->count);
    for (size_t q = 0; q < HISTJSON_NPCT; q++) {
        double want = hist_percentile(ref, histjson_pcts[q].q) / 1e3;
        if (fabs(num(rtt, histjson_pcts[q].key) - want) > 1e-9)
            fail_msg("%s: %.4f, the merge of the trials' JSON gives %.4f", histjson_pcts[q].key,
                     num(rtt, histjson_pcts[q].key), want);
    }
    assert_true(fabs(num(rtt, "min") - (double)ref->min / 1e3) < 1e-9);
    assert_true(fabs(num(rtt, "max") - (double)ref->max / 1e3) < 1e-9);
}

static void
test_old_and_new_layouts_merge(void **state)
{
    struct fixture *f = *state;
    const json_t *p = pair(scen(f, 0), "a", "c");
    assert_int_equal(json_integer_value(json_object_get(p, "n")), 2);
    check_rtt(json_object_get(p, "rtt_us"), f->mix);
    const json_t *cells = json_object_get(scen(f, 0), "zone_cells");
    assert_int_equal(json_array_size(cells), 1);
    const json_t *c12 = json_array_get(cells, 0);
    assert_int_equal(json_integer_value(json_object_get(c12, "pairs")), 2);
    check_rtt(json_object_get(c12, "rtt_us"), f->cell);
    /* the quartiles of a pair 320-335 us wide are three values, 0.1 % apart or more */
    const json_t *rtt = json_object_get(p, "rtt_us");
    assert_true(num(rtt, "p25") < num(rtt, "p50") && num(rtt, "p50") < num(rtt, "p75"));
}

/* rtt's histogram (nsperf's runs form) rewritten in the older buckets form, as netsurvey
 * journals before trial/3 hold it: [[lower_ns, count], ...] of the buckets that are not empty. */
static void
rtt_as_buckets_form(json_t *rtt)
{
    json_t *hj = json_object_get(rtt, HISTJSON_HIST), *runs = json_object_get(hj, HISTJSON_RUNS);
    assert_non_null(runs);
    json_t *buckets = json_array();
    size_t i;
    json_t *r;
    json_array_foreach(runs, i, r)
    {
        size_t idx = hist_index((uint64_t)json_integer_value(json_array_get(r, 0)));
        for (size_t k = 1; k < json_array_size(r); k++, idx++) {
            json_int_t c = json_integer_value(json_array_get(r, k));
            if (c != 0)
                json_array_append_new(buckets,
                                      json_pack("[II]", (json_int_t)hist_bucket_low(idx), c));
        }
    }
    json_object_del(hj, HISTJSON_RUNS);
    json_object_set_new(hj, HISTJSON_BUCKETS, buckets);
}

/* A trial's histogram in another order than nsperf's: its entries (buckets, or runs) reversed,
 * and one count of the busiest entry's first bucket moved to an entry of its own in front (one
 * index twice; runs that neither ascend nor keep apart). The model sorts such buckets before it
 * packs them, and reads such runs as buckets, where nsperf's runs are packed as they come: the
 * percentiles of its pair (a -> b) are the reference merge's, as are those of a pair with the
 * same histogram in order (a -> c). */
static void
unordered_merge_case(bool runs)
{
    const char *key = runs ? HISTJSON_RUNS : HISTJSON_BUCKETS;
    char *dir = th_tempdir(runs ? "agg-order-runs" : "agg-order");
    assert_non_null(dir);
    assert_int_equal(th_write(dir, "run.json", run_json), 0);
    struct hist *ref_ab = hist_new(), *ref_ac = hist_new(), *h = hist_new();
    for (int i = 0; i < 4000; i++)
        hist_record(h, i % 50 == 0 ? rnd(900000, 400000) : rnd(300000, 40000));
    json_t *inorder = hist_to_rtt_json(h), *unordered = hist_to_rtt_json(h);
    if (!runs) {
        rtt_as_buckets_form(inorder);
        rtt_as_buckets_form(unordered);
    }
    json_t *src = json_object_get(json_object_get(unordered, HISTJSON_HIST), key);
    json_t *rev = json_array();
    for (size_t i = json_array_size(src); i-- > 0;)
        json_array_append(rev, json_array_get(src, i));
    size_t big = 0;
    for (size_t i = 0; i < json_array_size(rev); i++)
        if (json_integer_value(json_array_get(json_array_get(rev, i), 1)) >
            json_integer_value(json_array_get(json_array_get(rev, big), 1)))
            big = i;
    json_int_t low = json_integer_value(json_array_get(json_array_get(rev, big), 0));
    json_int_t cnt = json_integer_value(json_array_get(json_array_get(rev, big), 1));
    assert_true(cnt >= 2);
    json_array_set_new(json_array_get(rev, big), 1, json_integer(cnt - 1));
    json_array_insert_new(rev, 0, json_pack("[II]", low, (json_int_t)1));
    json_object_set_new(json_object_get(unordered, HISTJSON_HIST), key, rev);
    struct rbuf b;
    report_buf_init(&b);
    rtt_line(&b, 1, "a", "1", "b", unordered, ref_ab, NULL);
    rtt_line(&b, 1, "a", "1", "c", inorder, ref_ac, NULL);
    assert_int_equal(th_write(dir, "results.jsonl", b.data), 0);
    report_buf_release(&b);
    struct rmodel *m;
    struct err e = {0};
    const char *dirs[] = {dir};
    json_t *sum, *view;
    assert_int_equal(report_model_load(dirs, 1, NULL, &m, &e), 0);
    assert_int_equal(report_aggregate(m, &sum, &view, &e), 0);
    const json_t *sc = json_array_get(json_object_get(sum, "scenarios"), 0);
    for (size_t i = 0; i < HIST_NBUCKETS; i++) /* the entries as changed hold h's counts */
        assert_int_equal(ref_ab->buckets[i], h->buckets[i]);
    assert_int_equal(ref_ab->count, 4000);
    check_rtt(json_object_get(pair(sc, "a", "b"), "rtt_us"), ref_ab);
    check_rtt(json_object_get(pair(sc, "a", "c"), "rtt_us"), ref_ac);
    report_model_free(m);
    json_decref(sum);
    json_decref(view);
    hist_free(ref_ab);
    hist_free(ref_ac);
    hist_free(h);
    th_rmtree(dir);
    free(dir);
}

static void
test_unordered_buckets_merge(void **state)
{
    (void)state;
    unordered_merge_case(false);
}

static void
test_unordered_runs_merge(void **state)
{
    (void)state;
    unordered_merge_case(true);
}

/* The hosts' physical zones (fixtures multi-a, multi-b: Azure hosts, w1 with a zone_id from its
 * plan, w2 with a zone warning): kept from run.json; --by zone_id refuses, naming exactly the
 * hosts without one. */
static void
test_zone_ids(void **state)
{
    (void)state;
    char a[4096], b[4096];
    snprintf(a, sizeof a, "%s/tests/fixtures/journals/multi-a", th_srcdir());
    snprintf(b, sizeof b, "%s/tests/fixtures/journals/multi-b", th_srcdir());
    const char *dirs[] = {a, b};
    struct rmodel *m = NULL;
    struct err e = {0};
    assert_int_equal(report_model_load(dirs, 2, NULL, &m, &e), 0);
    size_t seen = 0;
    for (size_t i = 0; i < m->nhosts; i++) {
        const struct rhost *h = &m->hosts[i];
        if (strcmp(h->name, "w1") == 0) {
            assert_string_equal(h->zone_id, "westus3-az1");
            assert_null(h->zone_warning);
            seen++;
        } else if (strcmp(h->name, "w2") == 0) {
            assert_null(h->zone_id);
            assert_non_null(strstr(h->zone_warning, "metadata says '3'"));
            seen++;
        }
    }
    assert_int_equal(seen, 2);
    report_model_free(m);
    m = NULL;
    assert_int_equal(
        report_model_load_with(
            dirs, 2, &(struct rmodel_opts){.by_zone_id = true, .same_hosts = true}, &m, &e),
        NS_EINVAL);
    assert_null(m);
    assert_non_null(strstr(e.msg, "no zone id for hosts 'w2', 'e1', 'e2' ("));
    /* without --same-hosts, e1 of each run is its own host, named with its run */
    assert_int_equal(
        report_model_load_with(dirs, 2, &(struct rmodel_opts){.by_zone_id = true}, &m, &e),
        NS_EINVAL);
    assert_non_null(strstr(e.msg, "no zone id for hosts 'w2', 'e1 (run 1)', 'e1 (run 2)', 'e2' ("));
}

int
main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_merged_percentiles_vs_brute_force),
                                       cmocka_unit_test(test_ci_cv_and_flag),
                                       cmocka_unit_test(test_dedup_and_failures),
                                       cmocka_unit_test(test_zone_cells_and_diagonal),
                                       cmocka_unit_test(test_zone_ids),
                                       cmocka_unit_test(test_old_and_new_layouts_merge),
                                       cmocka_unit_test(test_unordered_buckets_merge),
                                       cmocka_unit_test(test_unordered_runs_merge)};
    return cmocka_run_group_tests(tests, setup, teardown);
}
