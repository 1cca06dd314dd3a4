/* Histogram percentiles against a brute-force sort (exact order statistics) within the layout's
 * bound, over many distributions and the whole range; merge equals recording everything once;
 * the old layout (sub_bits 7) is placed inside its own buckets. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/errors.h"
#include "common/hist.h"
#include "common/histjson.h"

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t
plan_rng_next(void)
{
    /* splitmix64: deterministic, so a failure reproduces */
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static int
cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Exact percentile with the same rank rule as hist_percentile: ceil(q/100 * n)-th smallest. */
static double
brute_percentile(const uint64_t *sorted, size_t n, double q)
{
    size_t rank = (size_t)ceil(q / 100.0 * (double)n);
    if (rank < 1)
        rank = 1;
    return (double)sorted[rank - 1];
}

static void
test_bucket_mapping_is_consistent(void **state)
{
    (void)state;
    for (size_t i = 0; i < HIST_NBUCKETS - 1; i++) {
        assert_int_equal(hist_index(hist_bucket_low(i)), i);
        assert_int_equal(hist_index(hist_bucket_high(i)), i);
        assert_int_equal(hist_bucket_high(i) + 1, hist_bucket_low(i + 1));
        /* bucket width never exceeds 1/1024 of its lower bound above the exact range (0.1 %) */
        if (i >= HIST_LINEAR)
            assert_true((hist_bucket_high(i) - hist_bucket_low(i) + 1) * 1024 <=
                        hist_bucket_low(i));
        else
            assert_int_equal(hist_bucket_low(i), hist_bucket_high(i));
    }
    assert_int_equal(hist_index(UINT64_MAX), HIST_NBUCKETS - 1);
    /* 100 s is inside the range, not in the overflow bucket */
    assert_true(hist_index(100000000000ull) < HIST_NBUCKETS - 1);
    assert_int_equal(hist_bucket_low(HIST_NBUCKETS - 1), (UINT64_C(1) << 37) - (1u << 26));
    assert_int_equal(sizeof(struct hist) - offsetof(struct hist, buckets), 224u * 1024u);
}

static void
check_against_sort(uint64_t *vals, size_t n)
{
    struct hist *h = hist_new();
    double sum = 0;
    for (size_t i = 0; i < n; i++) {
        hist_record(h, vals[i]);
        sum += (double)vals[i];
    }
    qsort(vals, n, sizeof *vals, cmp_u64);
    static const double qs[] = {0.1, 1, 10, 25, 50, 75, 90, 99, 99.9, 99.99, 99.999};
    for (size_t k = 0; k < sizeof qs / sizeof *qs; k++) {
        double exact = brute_percentile(vals, n, qs[k]);
        double got = hist_percentile(h, qs[k]);
        /* the midpoint of a bucket 1/1024 of its low wide: within 1/2048 (< 0.05 %), exact
         * below 2048 */
        if (fabs(got - exact) > exact / 2048.0)
            fail_msg("p%g: %.1f, exact %.1f (%.4f %%)", qs[k], got, exact,
                     100.0 * fabs(got - exact) / exact);
    }
    assert_int_equal(h->count, n);
    assert_int_equal(h->min, vals[0]);
    assert_int_equal(h->max, vals[n - 1]);
    assert_true(fabs(hist_mean(h) - sum / (double)n) <= 1e-6 * sum / (double)n);
    assert_true(hist_percentile(h, 0) == (double)vals[0]);
    assert_true(hist_percentile(h, 100) == (double)vals[n - 1]);
    hist_free(h);
}

static void
test_percentiles_match_sort_uniform(void **state)
{
    (void)state;
    size_t n = 200000;
    uint64_t *vals = malloc(n * sizeof *vals);
    for (size_t i = 0; i < n; i++)
        vals[i] = 300000 + plan_rng_next() % 50000; /* 300-350 us in ns */
    check_against_sort(vals, n);
    free(vals);
}

static void
test_percentiles_match_sort_heavy_tail(void **state)
{
    (void)state;
    size_t n = 100000;
    uint64_t *vals = malloc(n * sizeof *vals);
    for (size_t i = 0; i < n; i++) {
        double u = ((double)(plan_rng_next() >> 11) + 1.0) / 9007199254740993.0;
        vals[i] = (uint64_t)(20000.0 / pow(u, 0.7)); /* Pareto-like: 20 us to seconds */
    }
    check_against_sort(vals, n);
    free(vals);
}

static double
rng_unit(void)
{
    return ((double)(plan_rng_next() >> 11) + 1.0) / 9007199254740993.0; /* (0, 1) */
}

/* Standard normal by Box-Muller. */
static double
rng_normal(void)
{
    return sqrt(-2.0 * log(rng_unit())) * cos(6.283185307179586 * rng_unit());
}

enum dist { D_NORMAL, D_LOGNORMAL, D_EXP, D_BIMODAL, D_LOGUNIFORM, D_FEW, D_NDIST };

/* n values of distribution d around centre c (ns), at least 1. */
static void
fill(uint64_t *vals, size_t n, enum dist d, double c)
{
    for (size_t i = 0; i < n; i++) {
        double x;
        switch (d) {
        case D_NORMAL: /* a quiet link: 2 % spread */
            x = c * (1.0 + 0.02 * rng_normal());
            break;
        case D_LOGNORMAL: /* a loaded one: a long right tail */
            x = c * exp(0.5 * rng_normal());
            break;
        case D_EXP:
            x = c * -log(rng_unit());
            break;
        case D_BIMODAL: /* two paths, 1:3 */
            x = (plan_rng_next() % 4 ? c : 3.7 * c) * (1.0 + 0.01 * rng_normal());
            break;
        case D_LOGUNIFORM: /* the whole range: 100 ns to 100 s */
            x = 100.0 * pow(1e9, rng_unit());
            break;
        default: /* a handful of distinct values, many ties */
            x = c * (1.0 + (double)(plan_rng_next() % 5) * 0.013);
            break;
        }
        vals[i] = x < 1.0 ? 1 : (uint64_t)x;
    }
}

/* Every distribution at centres from 100 ns to 100 s (a decade apart), and the whole range at
 * once: percentiles within 1/2048 of the exact order statistic. */
static void
test_percentiles_match_sort_everywhere(void **state)
{
    (void)state;
    size_t n = 20000;
    uint64_t *vals = malloc(n * sizeof *vals);
    assert_non_null(vals);
    for (int d = 0; d < D_NDIST; d++)
        for (double c = 100.0; c <= 1.01e11; c *= 10.0) {
            static const double reach[D_NDIST] = {1.1, 12.0, 13.0, 3.9, 1.0, 1.06};
            if (d != D_LOGUNIFORM && c * reach[d] > 1.3e11)
                continue; /* its tail would leave the range (137 s) */
            fill(vals, n, (enum dist)d, c);
            check_against_sort(vals, n);
        }
    free(vals);
}

/* Values past the range (137 s) are counted in the last bucket; percentiles there read as the
 * exact maximum, min/max/mean stay exact. */
static void
test_values_past_the_range(void **state)
{
    (void)state;
    struct hist *h = hist_new();
    assert_non_null(h);
    hist_record(h, 1000);
    hist_record(h, UINT64_C(1) << 40);
    assert_int_equal(h->buckets[HIST_NBUCKETS - 1], 1);
    assert_true(hist_percentile(h, 99) == (double)(UINT64_C(1) << 40));
    assert_true(hist_percentile(h, 50) == 1000.0);
    hist_free(h);
}

static void
test_small_values_are_exact(void **state)
{
    (void)state;
    uint64_t vals[] = {5, 1, 3, 3, 7, 120, 0, 64};
    size_t n = sizeof vals / sizeof *vals;
    struct hist h;
    hist_init(&h);
    for (size_t i = 0; i < n; i++)
        hist_record(&h, vals[i]);
    qsort(vals, n, sizeof *vals, cmp_u64);
    for (double q = 1; q <= 100; q += 1)
        assert_true(hist_percentile(&h, q) == brute_percentile(vals, n, q));
}

static void
test_merge_equals_single_recording(void **state)
{
    (void)state;
    struct hist *a = hist_new(), *b = hist_new(), *all = hist_new();
    for (int i = 0; i < 50000; i++) {
        uint64_t v = 1000 + plan_rng_next() % 1000000;
        hist_record(i % 3 ? a : b, v);
        hist_record(all, v);
    }
    hist_merge(a, b);
    assert_int_equal(a->count, all->count);
    assert_int_equal(a->min, all->min);
    assert_int_equal(a->max, all->max);
    assert_memory_equal(a->buckets, all->buckets, sizeof a->buckets);
    assert_true(fabs(hist_mean(a) - hist_mean(all)) < 1e-6 * hist_mean(all));
    assert_true(fabs(hist_stddev(a) - hist_stddev(all)) < 1e-6 * hist_stddev(all));
    hist_free(a);
    hist_free(b);
    hist_free(all);
    hist_free(NULL);
}

static void
test_empty_histogram(void **state)
{
    (void)state;
    struct hist h;
    hist_init(&h);
    assert_true(hist_percentile(&h, 50) == 0.0);
    assert_true(hist_mean(&h) == 0.0);
    assert_true(hist_stddev(&h) == 0.0);
}

static void
test_json_round_trip_merges_exactly(void **state)
{
    (void)state;
    struct hist *a = hist_new(), *back = hist_new();
    for (int i = 0; i < 10000; i++)
        hist_record(a, 250000 + plan_rng_next() % 100000);
    json_t *rtt = hist_to_rtt_json(a);
    assert_int_equal(json_integer_value(json_object_get(rtt, "n")), 10000);
    assert_true(json_real_value(json_object_get(rtt, "p50")) > 250.0);
    assert_true(json_real_value(json_object_get(rtt, "p50")) < 350.0);
    struct err e;
    assert_int_equal(hist_merge_rtt_json(back, rtt, &e), 0);
    assert_memory_equal(a->buckets, back->buckets, sizeof a->buckets);
    assert_int_equal(back->count, a->count);
    assert_true(fabs(hist_stddev(back) - hist_stddev(a)) < 1e-3 * hist_stddev(a));
    json_t *bad = json_pack("{s:{s:i, s:[[i,i]]}}", "hist", "sub_bits", 5, "buckets", 1, 1);
    assert_int_equal(hist_merge_rtt_json(back, bad, &e), NS_EPARSE);
    json_decref(bad);
    json_decref(rtt);
    hist_free(a);
    hist_free(back);
}

/* The runs form as written: neighbouring buckets in one run, a gap of up to HISTJSON_RUNS_GAP
 * empty buckets as zeros inside it, a longer one a new run; each run starts and ends at a count,
 * its head the lower bound of its first bucket; merging it back gives the same buckets, and an
 * entry that breaks the form is named. */
static void
test_json_runs_form(void **state)
{
    (void)state;
    struct hist *h = hist_new(), *back = hist_new();
    static const size_t idx[] = {5000, 5001, 5006, 5012, 5013, HIST_NBUCKETS - 1};
    for (size_t i = 0; i < sizeof idx / sizeof *idx; i++)
        hist_record_n(h, hist_bucket_low(idx[i]), i + 1);
    json_t *rtt = hist_to_rtt_json(h);
    const json_t *hj = json_object_get(rtt, HISTJSON_HIST);
    assert_null(json_object_get(hj, HISTJSON_BUCKETS));
    char *text = json_dumps(json_object_get(hj, HISTJSON_RUNS), JSON_COMPACT);
    char want[256];
    snprintf(want, sizeof want, "[[%llu,1,2,0,0,0,0,3],[%llu,4,5],[%llu,6]]",
             (unsigned long long)hist_bucket_low(5000), (unsigned long long)hist_bucket_low(5012),
             (unsigned long long)hist_bucket_low(HIST_NBUCKETS - 1));
    assert_string_equal(text, want);
    free(text);
    struct err e;
    assert_int_equal(hist_merge_rtt_json(back, rtt, &e), 0);
    assert_memory_equal(h->buckets, back->buckets, sizeof h->buckets);
    assert_int_equal(back->count, h->count);
    /* a count past the last bucket, a negative one, a run without a count: named */
    unsigned long long last = hist_bucket_low(HIST_NBUCKETS - 1), nine = hist_bucket_low(9);
    char bad[3][128];
    snprintf(bad[0], sizeof bad[0], "[[%llu,1,1]]", last);
    snprintf(bad[1], sizeof bad[1], "[[1,2],[%llu,-1]]", nine);
    snprintf(bad[2], sizeof bad[2], "[[5,1],[%llu]]", nine);
    for (size_t i = 0; i < 3; i++) {
        const char *runs = bad[i];
        json_t *r = json_loads(runs, 0, NULL);
        assert_non_null(r);
        json_t *o = json_pack("{s:{s:i,s:o}}", "hist", "sub_bits", 11, "runs", r);
        struct hist *x = hist_new();
        assert_int_equal(hist_merge_rtt_json(x, o, &e), NS_EPARSE);
        snprintf(want, sizeof want, "rtt_us.hist.runs[%zu] is not", i == 0 ? (size_t)0 : 1);
        assert_non_null(strstr(e.msg, want));
        hist_free(x);
        json_decref(o);
    }
    /* runs are of layout 11 only; both forms at once are neither */
    json_t *old = json_pack("{s:{s:i,s:[[i,i]]}}", "hist", "sub_bits", 7, "runs", 300, 1);
    assert_int_equal(hist_merge_rtt_json(back, old, &e), NS_EPARSE);
    json_t *both = json_pack("{s:{s:i,s:[[i,i]],s:[[i,i]]}}", "hist", "sub_bits", 11, "runs", 300,
                             1, "buckets", 300, 1);
    assert_int_equal(hist_merge_rtt_json(back, both, &e), NS_EPARSE);
    json_decref(old);
    json_decref(both);
    json_decref(rtt);
    hist_free(h);
    hist_free(back);
}

/* The old layout (sub_bits 7), written out the way nsperf 0.1.0 did: its bucket for v. */
static void
v1_bucket(uint64_t v, uint64_t *low, uint64_t *width)
{
    if (v < 128) {
        *low = v;
        *width = 1;
        return;
    }
    unsigned e = 63u - (unsigned)__builtin_clzll(v);
    *width = UINT64_C(1) << (e - 6);
    *low = v & ~(*width - 1);
}

/* Every old bucket up to 2^37 ns is a union of new ones, and its count lands inside it, at its
 * centre (the old reader's midpoint to within W/32). */
static void
test_old_layout_lands_inside_its_bucket(void **state)
{
    (void)state;
    for (uint64_t v = 0; v < (UINT64_C(1) << 37);) {
        uint64_t low, w;
        v1_bucket(v, &low, &w);
        uint64_t high = low + w - 1;
        /* a union of new buckets: the old bounds are new bounds */
        assert_int_equal(hist_bucket_low(hist_index(low)), low);
        if (hist_index(high) < HIST_NBUCKETS - 1) /* the last one also takes what is past it */
            assert_int_equal(hist_bucket_high(hist_index(high)), high);
        size_t idx = hist_index_layout(HIST_SUB_BITS_V1, low);
        assert_int_equal(hist_index_layout(HIST_SUB_BITS_V1, high), idx);
        assert_true(hist_bucket_low(idx) >= low && hist_bucket_high(idx) <= high);
        double old_mid = ((double)low + (double)high) / 2.0;
        assert_true(fabs(hist_bucket_mid(idx) - old_mid) <= (double)w / 32.0 + 0.5);
        v = high + 1;
    }
    /* the old top bucket (to 2^51 and past it) goes to the last one, as values do */
    assert_int_equal(hist_index_layout(HIST_SUB_BITS_V1, UINT64_C(1) << 45), HIST_NBUCKETS - 1);
    assert_int_equal(hist_index_layout(HIST_SUB_BITS_V1, UINT64_MAX), HIST_NBUCKETS - 1);
    assert_int_equal(hist_index_layout(HIST_SUB_BITS, 123456789), hist_index(123456789));
    assert_true(hist_layout_known(7) && hist_layout_known(11));
    assert_false(hist_layout_known(5) || hist_layout_known(0) || hist_layout_known(12));
}

/* An rtt_us object as nsperf 0.1.0 wrote it: sub_bits 7, its buckets for vals. */
static json_t *
v1_rtt_json(const uint64_t *vals, size_t n)
{
    uint64_t *sorted = malloc(n * sizeof *sorted);
    memcpy(sorted, vals, n * sizeof *sorted);
    qsort(sorted, n, sizeof *sorted, cmp_u64);
    json_t *b = json_array();
    double sum = 0;
    for (size_t i = 0; i < n;) {
        uint64_t low, w;
        v1_bucket(sorted[i], &low, &w);
        size_t j = i;
        while (j < n && sorted[j] <= low + w - 1)
            sum += (double)sorted[j++];
        json_array_append_new(b, json_pack("[II]", (json_int_t)low, (json_int_t)(j - i)));
        i = j;
    }
    json_t *rtt = json_pack("{s:I,s:f,s:f,s:f,s:f,s:{s:s,s:i,s:o}}", "n", (json_int_t)n, "mean",
                            sum / (double)n / 1e3, "min", (double)sorted[0] / 1e3, "max",
                            (double)sorted[n - 1] / 1e3, "m2_ns2", 0.0, "hist", "unit", "ns",
                            "sub_bits", 7, "buckets", b);
    free(sorted);
    return rtt;
}

/* An old histogram read back: every percentile is the old bucket's midpoint (to W/32, so within
 * 1/2048 of what the old reader said) and within the old layout's 1/128 of the exact value. */
static void
test_old_json_reads_as_before(void **state)
{
    (void)state;
    size_t n = 30000;
    uint64_t *vals = malloc(n * sizeof *vals);
    fill(vals, n, D_LOGNORMAL, 329000.0);
    json_t *rtt = v1_rtt_json(vals, n);
    struct hist *h = hist_new();
    struct err e;
    assert_int_equal(hist_merge_rtt_json(h, rtt, &e), 0);
    assert_int_equal(h->count, n);
    qsort(vals, n, sizeof *vals, cmp_u64);
    static const double qs[] = {1, 25, 50, 75, 90, 99, 99.9};
    for (size_t k = 0; k < sizeof qs / sizeof *qs; k++) {
        double exact = brute_percentile(vals, n, qs[k]);
        uint64_t low, w;
        v1_bucket((uint64_t)exact, &low, &w);
        double old_mid = ((double)low + (double)(low + w - 1)) / 2.0;
        double got = hist_percentile(h, qs[k]);
        assert_true(fabs(got - old_mid) <= old_mid / 2048.0);
        assert_true(fabs(got - exact) <= exact / 128.0 * 1.07);
    }
    json_decref(rtt);
    hist_free(h);
    free(vals);
}

/* Merging is the histogram of the union: parts of different distributions (one part from an
 * old journal) merged directly and through their sparse JSON give the union's buckets. */
static void
test_merge_is_histogram_of_union(void **state)
{
    (void)state;
    enum { PARTS = 5, N = 8000 };
    uint64_t *vals = malloc(PARTS * N * sizeof *vals);
    struct hist *all = hist_new(), *direct = hist_new(), *viajson = hist_new();
    struct hist *part = hist_new();
    static const double centres[PARTS] = {95e3, 329e3, 597e3, 2.1e6, 61e6};
    for (int p = 0; p < PARTS; p++) {
        uint64_t *v = vals + (size_t)p * N;
        fill(v, N, (enum dist)(p % D_NDIST), centres[p]);
        hist_init(part);
        for (size_t i = 0; i < N; i++) {
            hist_record(part, v[i]);
            hist_record(all, v[i]);
        }
        hist_merge(direct, part);
        json_t *rtt = hist_to_rtt_json(part);
        struct err e;
        assert_int_equal(hist_merge_rtt_json(viajson, rtt, &e), 0);
        json_decref(rtt);
    }
    assert_memory_equal(direct->buckets, all->buckets, sizeof all->buckets);
    assert_memory_equal(viajson->buckets, all->buckets, sizeof all->buckets);
    assert_int_equal(direct->count, all->count);
    assert_int_equal(viajson->count, all->count);
    assert_int_equal(direct->min, all->min);
    assert_int_equal(direct->max, all->max);
    assert_true(fabs(hist_stddev(direct) - hist_stddev(all)) < 1e-9 * hist_stddev(all));
    for (double q = 0; q <= 100; q += 0.5)
        assert_true(hist_percentile(direct, q) == hist_percentile(all, q));
    /* ...and the union's percentiles are the exact ones to 1/2048 */
    check_against_sort(vals, PARTS * N);

    /* An old trial merged with new ones: its counts land in its own old buckets. */
    uint64_t *old = malloc(N * sizeof *old);
    fill(old, N, D_NORMAL, 330e3);
    json_t *rtt = v1_rtt_json(old, N);
    struct err e;
    assert_int_equal(hist_merge_rtt_json(viajson, rtt, &e), 0);
    assert_int_equal(viajson->count, all->count + N);
    json_decref(rtt);
    free(old);
    free(vals);
    hist_free(all);
    hist_free(direct);
    hist_free(viajson);
    hist_free(part);
}

/* hist_percentile_sparse over a histogram's non-empty buckets gives hist_percentile's very
 * value, for every distribution and percentile (the history database's per-trial p50/p99). */
static void
test_sparse_percentile_is_hist_percentile(void **state)
{
    (void)state;
    enum { N = 5000 };
    uint64_t *v = malloc(N * sizeof *v);
    size_t *idx = malloc(HIST_NBUCKETS * sizeof *idx);
    uint64_t *cnt = malloc(HIST_NBUCKETS * sizeof *cnt);
    struct hist *h = hist_new();
    static const double centres[] = {700, 95e3, 329e3, 2.1e6, 61e6};
    for (size_t c = 0; c < sizeof centres / sizeof centres[0]; c++)
        for (int d = 0; d < D_NDIST; d++) {
            hist_init(h);
            size_t n = 1 + plan_rng_next() % N; /* one value, too */
            fill(v, n, (enum dist)d, centres[c]);
            for (size_t i = 0; i < n; i++)
                hist_record(h, v[i]);
            size_t k = 0;
            for (size_t i = 0; i < HIST_NBUCKETS; i++)
                if (h->buckets[i] > 0) {
                    idx[k] = i;
                    cnt[k++] = h->buckets[i];
                }
            static const double qs[] = {0, 1e-9, 25, 50, 90, 99, 99.9, 99.999, 100};
            for (size_t q = 0; q < sizeof qs / sizeof qs[0]; q++)
                assert_true(hist_percentile_sparse(idx, cnt, k, h->min, h->max, qs[q]) ==
                            hist_percentile(h, qs[q]));
        }
    assert_true(hist_percentile_sparse(idx, cnt, 0, 1, 2, 50) == 0.0); /* empty */
    hist_free(h);
    free(v);
    free(idx);
    free(cnt);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bucket_mapping_is_consistent),
        cmocka_unit_test(test_sparse_percentile_is_hist_percentile),
        cmocka_unit_test(test_json_runs_form),
        cmocka_unit_test(test_percentiles_match_sort_uniform),
        cmocka_unit_test(test_percentiles_match_sort_heavy_tail),
        cmocka_unit_test(test_small_values_are_exact),
        cmocka_unit_test(test_merge_equals_single_recording),
        cmocka_unit_test(test_empty_histogram),
        cmocka_unit_test(test_json_round_trip_merges_exactly),
        cmocka_unit_test(test_percentiles_match_sort_everywhere),
        cmocka_unit_test(test_values_past_the_range),
        cmocka_unit_test(test_old_layout_lands_inside_its_bucket),
        cmocka_unit_test(test_old_json_reads_as_before),
        cmocka_unit_test(test_merge_is_histogram_of_union),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
