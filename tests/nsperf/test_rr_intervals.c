/* The -i samples of the request/response kinds on synthetic times: rr_record() and rr_finish()
 * fed exact nanoseconds, so what a stall does to the samples is checked without a stall. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "common/clock.h"
#include "common/errors.h"
#include "nsperf/nsperf.h"
#include "nsperf/rr_common.h"

#define MS (1000000ull)
#define B (1000 * MS) /* MEASURE at 1 s on the monotonic clock */

struct fx {
    struct ns_test t;
    struct rr_state *s;
};

static void
fx_init(struct fx *f, double interval_s)
{
    memset(f, 0, sizeof(*f));
    f->t.p.interval_s = interval_s;
    struct err e = {0};
    assert_int_equal(rr_state_setup(&f->t, 1, 1, &e), 0);
    f->s = f->t.kind_state;
    f->t.measure_start_ns = B;
}

/* Transactions of 10 ms back to back from `from` to `to` (ms after MEASURE); one that completes
 * on a boundary belongs to the sample the boundary opens. */
static uint64_t
fx_run(struct fx *f, uint64_t from, uint64_t to)
{
    uint64_t n = 0;
    for (uint64_t t0 = from; t0 + 10 <= to; t0 += 10, n++)
        rr_record(f->s, &f->t, NS_PHASE_MEASURE, B + t0 * MS, B + (t0 + 10) * MS);
    return n;
}

/* The samples tile [start, end] without gap or overlap, and add up to the total. */
static void
check_tiling(const struct rr_state *s)
{
    assert_true(s->niv > 0);
    assert_int_equal(s->iv[0].start_ns, s->start_ns);
    uint64_t n = 0;
    for (size_t i = 0; i < s->niv; i++) {
        if (i > 0)
            assert_int_equal(s->iv[i].start_ns, s->iv[i - 1].end_ns);
        assert_true(s->iv[i].end_ns > s->iv[i].start_ns);
        n += s->iv[i].n;
    }
    assert_int_equal(s->iv[s->niv - 1].end_ns, s->end_ns);
    assert_int_equal(n, s->n);
}

/* DONE at done_ms after MEASURE: the samples are closed, there are niv of them, and they tile
 * the measured interval. */
static void
fx_done(struct fx *f, uint64_t done_ms, size_t niv)
{
    f->t.measure_end_ns = B + done_ms * MS;
    rr_finish(f->s, &f->t);
    assert_int_equal(f->s->niv, niv);
    check_tiling(f->s);
}

/* A measured interval of -i 0.1 samples: 10 ms transactions back to back from MEASURE to
 * busy_ms, nothing after them, DONE at done_ms; niv samples. Returns how many were fed. */
static uint64_t
fx_window(struct fx *f, uint64_t busy_ms, uint64_t done_ms, size_t niv)
{
    fx_init(f, 0.1);
    uint64_t n = fx_run(f, 0, busy_ms);
    fx_done(f, done_ms, niv);
    return n;
}

/* Nothing completes from 0.32 s to DONE at 0.5 s: the last sample is one of 0 transactions,
 * and the samples still reach the end of the measured interval (4 samples before the fix). */
static void
test_stall_before_done(void **state)
{
    (void)state;
    struct fx f;
    uint64_t n = fx_window(&f, 320, 500, 5);
    assert_int_equal(f.s->end_ns, B + 500 * MS);
    assert_int_equal(f.s->n, n);
    assert_int_equal(f.s->iv[3].n, 3); /* completed at 0.30, 0.31, 0.32 */
    assert_int_equal(f.s->iv[4].n, 0);
    assert_int_equal(f.s->iv[4].start_ns, B + 400 * MS);
    rr_state_cleanup(&f.t);
}

/* One round trip of 230 ms from 0.15 s: the samples it spans are empty, it counts where it
 * completed (0.38 s), and traffic resumes after it. */
static void
test_long_round_trip_mid_window(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f, 0.1);
    fx_run(&f, 0, 150);
    rr_record(f.s, &f.t, NS_PHASE_MEASURE, B + 150 * MS, B + 380 * MS);
    fx_run(&f, 380, 500);
    fx_done(&f, 500, 5);
    assert_int_equal(f.s->iv[2].n, 0);
    assert_int_equal(f.s->iv[3].n, 2); /* the long one (0.38), the one completed at 0.39 */
    assert_int_equal(f.s->iv[3].max_ns, 230 * MS);
    rr_state_cleanup(&f.t);
}

/* A stall over several samples up to DONE: every one of them is there, empty. */
static void
test_stall_over_many_samples(void **state)
{
    (void)state;
    struct fx f;
    fx_window(&f, 50, 1000, 10);
    for (size_t i = 1; i < 10; i++)
        assert_int_equal(f.s->iv[i].n, 0);
    rr_state_cleanup(&f.t);
}

/* DONE 5 ms past a boundary: the stub (under a tenth of a sample) folds into the sample before
 * it, as before; 20 ms past it is a sample of its own. */
static void
test_tail_fold(void **state)
{
    (void)state;
    struct fx f;
    fx_window(&f, 500, 505, 5);
    assert_int_equal(f.s->iv[4].end_ns, B + 505 * MS);
    rr_state_cleanup(&f.t);

    fx_window(&f, 320, 520, 6);
    assert_int_equal(f.s->iv[5].n, 0);
    assert_int_equal(f.s->iv[5].start_ns, B + 500 * MS);
    rr_state_cleanup(&f.t);
}

/* A window ending exactly on a boundary has no stub. */
static void
test_end_on_boundary(void **state)
{
    (void)state;
    struct fx f;
    fx_window(&f, 300, 300, 3);
    rr_state_cleanup(&f.t);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stall_before_done),
        cmocka_unit_test(test_long_round_trip_mid_window),
        cmocka_unit_test(test_stall_over_many_samples),
        cmocka_unit_test(test_tail_fold),
        cmocka_unit_test(test_end_on_boundary),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
