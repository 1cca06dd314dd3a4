/* test_gate.c - compare's verdicts (src/history/gate.h): the rules on exact figures, and by
 * simulation the error rates they promise. The simulations draw normal trial values from a
 * PRNG of their own with fixed seeds (splitmix64 and Box-Muller), so every run sees the same
 * numbers; each bound asserted sits far (several standard errors) from the rate expected, so
 * that the assertions test the method, not the seed:
 *  - 2000 comparisons of 30 unchanged cells, 3 trials a side (a plan's default): Holm keeps the
 *    share of comparisons with any "worse" cell below alpha (expected about alpha / 2), where
 *    uncorrected tests find one in about half of them (1 - 0.975^30);
 *  - a 40 % regression in one of the 30 cells, 5 trials a side, is still caught (a regression
 *    at PCT 20) in nearly every comparison, and the unchanged cells beside it stay quiet. With
 *    3 trials a side Welch's test has 2 to 4 degrees of freedom and Holm over 30 cells catches
 *    it in about 82 % at this spread (100 % uncorrected, 99.9 % over 6 cells): the price of the
 *    correction, which the README states;
 *  - equivalence (TOST): a true change beyond the margin is called "same" at most at rate
 *    alpha; no change with 10 trials a side is called "same" in most comparisons. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "history/gate.h"

static uint64_t rng_state;

static uint64_t
rng_next(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

/* uniform in (0, 1) */
static double
rng_uniform(void)
{
    return ((double)(rng_next() >> 11) + 0.5) / 9007199254740992.0;
}

static double
rng_normal(double mean, double sd)
{
    double u = rng_uniform(), v = rng_uniform();
    return mean + sd * sqrt(-2.0 * log(u)) * cos(2.0 * M_PI * v);
}

static void
draw(struct stats *s, int n, double mean, double sd)
{
    stats_init(s);
    for (int i = 0; i < n; i++)
        stats_add(s, rng_normal(mean, sd));
}

static void
moments(struct stats *s, uint64_t n, double mean, double sd)
{
    stats_init(s);
    s->n = n;
    s->mean = mean;
    s->m2 = sd * sd * (double)(n - 1);
}

static const struct history_gate_params holm = {0.05, STATS_ADJUST_HOLM, 0.0, 0.0};
static const struct history_gate_params none = {0.05, STATS_ADJUST_NONE, 0.0, 0.0};

#define CELLS 30
#define FAMILIES 2000

/* One comparison of CELLS cells of RTT 330 us, trial sd 3 %, `trials` a side; cell 0 `factor`
 * slower. */
static void
draw_family(struct history_gate_cell *c, int trials, double factor)
{
    memset(c, 0, CELLS * sizeof *c);
    for (int i = 0; i < CELLS; i++) {
        c[i].lower_is_better = true;
        draw(&c[i].a, trials, 330.0, 9.9);
        draw(&c[i].b, trials, 330.0 * (i == 0 ? factor : 1.0), 9.9);
    }
}

static int
count(const struct history_gate_cell *c, size_t n, enum history_verdict v)
{
    int k = 0;
    for (size_t i = 0; i < n; i++)
        k += c[i].verdict == v;
    return k;
}

static void
test_familywise_error(void **state)
{
    (void)state;
    rng_state = 20261201;
    struct history_gate_cell c[CELLS], u[CELLS];
    int fam_holm = 0, fam_none = 0, fam_bonf = 0, gate_holm = 0;
    for (int f = 0; f < FAMILIES; f++) {
        draw_family(c, 3, 1.0);
        memcpy(u, c, sizeof c);
        assert_int_equal(history_gate_decide(c, CELLS, &holm), 0);
        fam_holm += count(c, CELLS, HISTORY_VERDICT_WORSE) > 0;
        bool failed = false; /* PCT 0: every worse cell fails the gate */
        for (int i = 0; i < CELLS; i++)
            failed |= c[i].regression;
        gate_holm += failed;
        assert_int_equal(history_gate_decide(u, CELLS, &none), 0);
        fam_none += count(u, CELLS, HISTORY_VERDICT_WORSE) > 0;
        struct history_gate_params b = holm;
        b.correction = STATS_ADJUST_BONFERRONI;
        assert_int_equal(history_gate_decide(u, CELLS, &b), 0);
        fam_bonf += count(u, CELLS, HISTORY_VERDICT_WORSE) > 0;
    }
    double rh = (double)fam_holm / FAMILIES, rn = (double)fam_none / FAMILIES;
    double rb = (double)fam_bonf / FAMILIES;
    print_message("30 unchanged cells, %d comparisons: some cell worse in %.4f (Holm), %.4f "
                  "(Bonferroni), %.4f (uncorrected)\n",
                  FAMILIES, rh, rb, rn);
    assert_true(rh <= 0.05);
    assert_true(rb <= rh); /* Holm rejects whatever Bonferroni does */
    assert_int_equal(gate_holm, fam_holm);
    assert_true(rn > 0.3); /* 1 - 0.975^30 = 0.53 expected */
}

static void
test_regression_caught(void **state)
{
    (void)state;
    rng_state = 40;
    struct history_gate_cell c[CELLS];
    struct history_gate_params p = holm;
    p.max_regression_pct = 20; /* the lab's release gate */
    int caught = 0, others = 0;
    for (int f = 0; f < FAMILIES; f++) {
        draw_family(c, 5, 1.4);
        assert_int_equal(history_gate_decide(c, CELLS, &p), 0);
        caught += c[0].regression;
        for (int i = 1; i < CELLS; i++)
            others += c[i].verdict == HISTORY_VERDICT_WORSE;
    }
    print_message(
        "+40 %% in one of 30 cells, 5 trials: caught in %.4f of %d comparisons; %d other cells "
        "worse\n",
        (double)caught / FAMILIES, FAMILIES, others);
    assert_true(caught >= FAMILIES * 95 / 100);
    assert_true(others <= FAMILIES / 20);
}

static void
test_equivalence_rates(void **state)
{
    (void)state;
    rng_state = 5;
    struct history_gate_params p = none;
    p.min_effect_pct = 5;
    int false_same = 0, true_same = 0;
    for (int f = 0; f < FAMILIES; f++) {
        struct history_gate_cell c[2] = {{.lower_is_better = true}, {.lower_is_better = true}};
        draw(&c[0].a, 10, 330.0, 9.9); /* 6 % slower: beyond the margin of 5 % */
        draw(&c[0].b, 10, 330.0 * 1.06, 9.9);
        draw(&c[1].a, 10, 330.0, 9.9); /* unchanged */
        draw(&c[1].b, 10, 330.0, 9.9);
        assert_int_equal(history_gate_decide(&c[0], 1, &p), 0);
        assert_int_equal(history_gate_decide(&c[1], 1, &p), 0);
        false_same += c[0].verdict == HISTORY_VERDICT_SAME;
        true_same += c[1].verdict == HISTORY_VERDICT_SAME;
    }
    print_message("TOST +-5 %%: a 6 %% change called same in %.4f, no change in %.4f\n",
                  (double)false_same / FAMILIES, (double)true_same / FAMILIES);
    assert_true(false_same <= FAMILIES / 20);
    assert_true(true_same >= FAMILIES * 80 / 100);
}

/* The rules on exact moments: min-effect, equivalence, max-regression, too few trials. */
static void
test_rules(void **state)
{
    (void)state;
    struct history_gate_cell c[5];
    memset(c, 0, sizeof c);
    /* 0: throughput 3 % lower, clear (sd 1 of 1000); 1: 1 % higher, clear; 2: noisy, +5 %;
     * 3: one trial; 4: RTT 22 % higher, clear */
    moments(&c[0].a, 3, 1000, 1);
    moments(&c[0].b, 3, 970, 1);
    moments(&c[1].a, 3, 1000, 1);
    moments(&c[1].b, 3, 1010, 1);
    moments(&c[2].a, 3, 1000, 100);
    moments(&c[2].b, 3, 1050, 100);
    moments(&c[3].a, 3, 1000, 1);
    moments(&c[3].b, 1, 500, 0);
    moments(&c[4].a, 5, 300, 3);
    moments(&c[4].b, 5, 366, 3);
    c[4].lower_is_better = true;

    struct history_gate_params p = {0.05, STATS_ADJUST_HOLM, 0, 5};
    assert_int_equal(history_gate_decide(c, 5, &p), 0);
    assert_int_equal(c[0].verdict, HISTORY_VERDICT_WORSE);
    assert_false(c[0].regression); /* 3 % is not beyond 5 % */
    assert_true(fabs(c[0].worse_by_pct - 3.0) < 1e-9);
    assert_int_equal(c[1].verdict, HISTORY_VERDICT_BETTER);
    assert_int_equal(c[2].verdict, HISTORY_VERDICT_INCONCLUSIVE);
    assert_int_equal(c[3].verdict, HISTORY_VERDICT_TOO_FEW);
    assert_true(isnan(c[3].p) && isnan(c[3].p_adj));
    assert_int_equal(c[4].verdict, HISTORY_VERDICT_WORSE);
    assert_true(c[4].regression);
    assert_true(isnan(c[0].p_tost)); /* no margin: no equivalence test */
    /* Holm over the 4 tested cells: the adjusted p is never below the raw one */
    for (int i = 0; i < 5; i++)
        if (i != 3)
            assert_true(c[i].p_adj >= c[i].p);

    p.max_regression_pct = 2; /* worse by 3 % now fails the gate */
    assert_int_equal(history_gate_decide(c, 5, &p), 0);
    assert_true(c[0].regression);

    p.min_effect_pct = 4; /* a 3 % change is never worse: here shown within +-4 % */
    assert_int_equal(history_gate_decide(c, 5, &p), 0);
    assert_int_equal(c[0].verdict, HISTORY_VERDICT_SAME);
    assert_false(c[0].regression);
    assert_int_equal(c[1].verdict, HISTORY_VERDICT_SAME);
    assert_int_equal(c[2].verdict, HISTORY_VERDICT_INCONCLUSIVE); /* too noisy to show either */
    assert_int_equal(c[4].verdict, HISTORY_VERDICT_WORSE);
    assert_true(c[0].p_tost_adj < 0.05 && c[2].p_tost_adj >= 0.05);

    p.min_effect_pct = 2.5; /* a clear 3 % change is >= 2.5 %: worse again */
    assert_int_equal(history_gate_decide(c, 5, &p), 0);
    assert_int_equal(c[0].verdict, HISTORY_VERDICT_WORSE);
    assert_int_equal(c[1].verdict, HISTORY_VERDICT_SAME); /* 1 % within +-2.5 % */
}

/* One marginal cell among unchanged ones: worse uncorrected, not after Holm or Bonferroni. */
static void
test_correction_choice(void **state)
{
    (void)state;
    struct history_gate_cell c[10];
    memset(c, 0, sizeof c);
    moments(&c[0].a, 3, 1000, 10); /* Welch p = 0.021 (t = 3.67, df = 4) */
    moments(&c[0].b, 3, 970, 10);
    for (int i = 1; i < 10; i++) {
        moments(&c[i].a, 3, 1000, 10);
        moments(&c[i].b, 3, 1000, 10);
    }
    struct history_gate_params p = {0.05, STATS_ADJUST_NONE, 0, 0};
    assert_int_equal(history_gate_decide(c, 10, &p), 0);
    assert_true(fabs(c[0].p - 0.0213) < 5e-4);
    assert_true(c[0].p_adj == c[0].p);
    assert_int_equal(c[0].verdict, HISTORY_VERDICT_WORSE);
    p.correction = STATS_ADJUST_HOLM;
    assert_int_equal(history_gate_decide(c, 10, &p), 0);
    assert_true(fabs(c[0].p_adj - 10 * c[0].p) < 1e-12);
    assert_int_equal(c[0].verdict, HISTORY_VERDICT_INCONCLUSIVE);
    p.correction = STATS_ADJUST_BONFERRONI;
    assert_int_equal(history_gate_decide(c, 10, &p), 0);
    assert_int_equal(c[0].verdict, HISTORY_VERDICT_INCONCLUSIVE);
    assert_int_equal(history_gate_decide(c, 1, &p), 0); /* a family of one: nothing to correct */
    assert_int_equal(c[0].verdict, HISTORY_VERDICT_WORSE);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rules),
        cmocka_unit_test(test_correction_choice),
        cmocka_unit_test(test_familywise_error),
        cmocka_unit_test(test_regression_caught),
        cmocka_unit_test(test_equivalence_rates),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
