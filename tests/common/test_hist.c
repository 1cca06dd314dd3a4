/* Histogram percentiles against a brute-force sort; merge equals recording everything once. */
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
        /* bucket width never exceeds 1/64 of its lower bound above the exact range */
        if (i >= HIST_LINEAR)
            assert_true((hist_bucket_high(i) - hist_bucket_low(i) + 1) * 64 <= hist_bucket_low(i));
    }
    assert_int_equal(hist_index(UINT64_MAX), HIST_NBUCKETS - 1);
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
    static const double qs[] = {0.1, 1, 25, 50, 75, 90, 99, 99.9, 99.99, 99.999};
    for (size_t k = 0; k < sizeof qs / sizeof *qs; k++) {
        double exact = brute_percentile(vals, n, qs[k]);
        double got = hist_percentile(h, qs[k]);
        assert_true(fabs(got - exact) <= exact * 0.01 + 1.0);
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

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bucket_mapping_is_consistent),
        cmocka_unit_test(test_percentiles_match_sort_uniform),
        cmocka_unit_test(test_percentiles_match_sort_heavy_tail),
        cmocka_unit_test(test_small_values_are_exact),
        cmocka_unit_test(test_merge_equals_single_recording),
        cmocka_unit_test(test_empty_histogram),
        cmocka_unit_test(test_json_round_trip_merges_exactly),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
