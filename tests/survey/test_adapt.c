/* test_adapt.c - the runner's adaptive-trials state (src/survey/adapt.h) fed with records, as
 * the runner feeds it from the journal on resume and from each trial it writes: which trial
 * number a pair takes next, when it is done, what failures count for, and that state rebuilt
 * from the same records decides the same. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "plan/plan.h"
#include "plan/schedule.h"
#include "survey/adapt.h"

static const char plan_text[] = "name: a\n"
                                "hosts:\n"
                                "  - {name: a, address: 192.0.2.1}\n"
                                "  - {name: b, address: 192.0.2.2}\n"
                                "scenarios:\n"
                                "  - {name: fixed, test: tcp_rr, trials: 2}\n"
                                "  - {name: rr, test: tcp_rr, trials: {min: 3, max: 5, "
                                "target_ci: 1%}}\n";

struct fixture {
    struct plan *p;
    struct schedule *s;
};

static int
setup(void **state)
{
    static struct fixture f;
    struct diags *d = diags_new();
    if (plan_load_buffer("a.yaml", plan_text, strlen(plan_text), &f.p, d) != 0) {
        diags_write(d, stderr);
        return -1;
    }
    diags_free(d);
    if (schedule_new(f.p, &f.s, NULL) != 0)
        return -1;
    *state = &f;
    return 0;
}

static int
teardown(void **state)
{
    struct fixture *f = *state;
    schedule_free(f->s);
    plan_free(f->p);
    return 0;
}

static struct survey_adapt *
fresh(const struct fixture *f)
{
    struct survey_adapt *a = NULL;
    assert_int_equal(survey_adapt_new(f->p, f->s, &a), 0);
    assert_non_null(a);
    return a;
}

static void
test_pairs_and_scenarios(void **state)
{
    struct fixture *f = *state;
    struct survey_adapt *a = fresh(f);
    assert_false(survey_adapt_on(a, 0));
    assert_true(survey_adapt_on(a, 1));
    assert_false(survey_adapt_on(NULL, 1));
    for (size_t i = 0; i < schedule_pair_count(f->s); i++) {
        uint32_t src, dst;
        schedule_pair(f->s, i, &src, &dst);
        assert_int_equal(survey_adapt_pair(a, src, dst), (long)i);
    }
    assert_int_equal(survey_adapt_pair(a, 0, 0), -1);
    survey_adapt_free(a);
}

/* A quiet pair is done at min; a noisy one takes min+1, min+2, ... and stops at max. */
static void
test_target_and_max(void **state)
{
    struct fixture *f = *state;
    struct survey_adapt *a = fresh(f);
    struct stats st;
    for (uint32_t n = 1; n <= 3; n++) {
        survey_adapt_record(a, 1, 0, n, true, true, 100.0);
        survey_adapt_record(a, 1, 1, n, true, true, n % 2 ? 95.0 : 105.0);
    }
    assert_true(survey_adapt_done(a, 1, 0, &st) && st.n == 3);
    assert_int_equal(survey_adapt_next(a, 1, 0), 0);
    assert_false(survey_adapt_done(a, 1, 1, &st));
    uint32_t lo, hi;
    survey_adapt_left(a, 1, 1, 2, &lo, &hi);
    assert_true(lo == 1 && hi == 2);
    survey_adapt_left(a, 1, 0, 2, &lo, &hi);
    assert_true(lo == 0 && hi == 0);
    for (uint32_t n = 4; n <= 5; n++) {
        assert_int_equal(survey_adapt_next(a, 1, 1), n);
        survey_adapt_tried(a, 1, 1, n);
        survey_adapt_record(a, 1, 1, n, true, true, n % 2 ? 95.0 : 105.0);
    }
    assert_true(survey_adapt_done(a, 1, 1, &st) && st.n == 5);
    assert_int_equal(survey_adapt_next(a, 1, 1), 0);
    assert_int_equal(survey_adapt_ok_count(a, 1, 1), 5);
    survey_adapt_free(a);
}

/* Failures count toward neither min nor max: the next number replaces a failed one at once,
 * an invocation never runs a number twice, a resume tries a failed number again. */
static void
test_failures(void **state)
{
    struct fixture *f = *state;
    struct survey_adapt *a = fresh(f);
    struct stats st;
    for (uint32_t n = 1; n <= 3; n++)
        survey_adapt_tried(a, 1, 0, n);
    survey_adapt_record(a, 1, 0, 1, true, true, 100.0);
    survey_adapt_record(a, 1, 0, 2, false, false, 0.0); /* failed */
    survey_adapt_record(a, 1, 0, 3, true, true, 100.0);
    assert_false(survey_adapt_done(a, 1, 0, &st)); /* 2 ok of min 3 */
    assert_int_equal(survey_adapt_next(a, 1, 0), 4);
    survey_adapt_tried(a, 1, 0, 4);
    survey_adapt_record(a, 1, 0, 4, true, false, 0.0); /* "ok" without its figure: failed */
    assert_int_equal(survey_adapt_ok_count(a, 1, 0), 2);
    assert_int_equal(survey_adapt_next(a, 1, 0), 5);
    survey_adapt_tried(a, 1, 0, 5);
    assert_int_equal(survey_adapt_next(a, 1, 0), 0); /* every number tried in this invocation */
    /* a failed record after an ok one of the same number leaves it ok */
    survey_adapt_record(a, 1, 0, 1, false, false, 0.0);
    assert_int_equal(survey_adapt_ok_count(a, 1, 0), 2);
    /* numbers outside 1..max and fixed scenarios are ignored */
    survey_adapt_record(a, 1, 0, 6, true, true, 100.0);
    survey_adapt_record(a, 1, 0, 0, true, true, 100.0);
    survey_adapt_record(a, 0, 0, 1, true, true, 100.0);
    assert_int_equal(survey_adapt_ok_count(a, 1, 0), 2);
    survey_adapt_free(a);
    /* a resume: the same records, nothing tried yet: the failed numbers come first */
    struct survey_adapt *b = fresh(f);
    survey_adapt_record(b, 1, 0, 1, true, true, 100.0);
    survey_adapt_record(b, 1, 0, 2, false, false, 0.0);
    survey_adapt_record(b, 1, 0, 3, true, true, 100.0);
    survey_adapt_record(b, 1, 0, 4, true, false, 0.0);
    assert_int_equal(survey_adapt_next(b, 1, 0), 2);
    survey_adapt_tried(b, 1, 0, 2);
    assert_int_equal(survey_adapt_next(b, 1, 0), 4);
    survey_adapt_free(b);
}

/* Fed record by record as they come, or all at once from the journal, the state decides the
 * same at every step: what a kill and resume relies on. */
static void
test_rebuilt_decides_the_same(void **state)
{
    struct fixture *f = *state;
    const double v[2][5] = {{100, 101, 99, 100, 100}, {90, 110, 95, 105, 100}};
    for (uint32_t upto = 1; upto <= 5; upto++) {
        struct survey_adapt *live = fresh(f), *rebuilt = fresh(f);
        for (uint32_t n = 1; n <= upto; n++) {
            for (size_t i = 0; i < 2; i++) {
                struct stats st;
                if (n > 3 && survey_adapt_done(live, 1, i, &st))
                    continue; /* the live run stops there; so does the journal */
                survey_adapt_tried(live, 1, i, n);
                survey_adapt_record(live, 1, i, n, true, true, v[i][n - 1]);
                survey_adapt_record(rebuilt, 1, i, n, true, true, v[i][n - 1]);
            }
        }
        for (size_t i = 0; i < 2; i++) {
            struct stats x, y;
            assert_int_equal(survey_adapt_done(live, 1, i, &x),
                             survey_adapt_done(rebuilt, 1, i, &y));
            assert_true(x.n == y.n && x.mean == y.mean && x.m2 == y.m2);
            assert_int_equal(survey_adapt_next(live, 1, i), survey_adapt_next(rebuilt, 1, i));
        }
        survey_adapt_free(live);
        survey_adapt_free(rebuilt);
    }
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pairs_and_scenarios),
        cmocka_unit_test(test_target_and_max),
        cmocka_unit_test(test_failures),
        cmocka_unit_test(test_rebuilt_decides_the_same),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
