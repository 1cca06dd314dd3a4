/* test_stats.c - Student t distribution, t quantiles and Welch's test against known values:
 * closed forms (df 1 and 2), the printed t table, Wikipedia's Welch example, and figures computed
 * independently by numerical integration of the t density (gen: Simpson, 200k intervals); the
 * two one-sided tests of equivalence (TOST) likewise; Holm's and Bonferroni's adjusted p-values
 * against R's p.adjust. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "common/stats.h"

static void
test_t_cdf_closed_forms(void **state)
{
    (void)state;
    static const double ts[] = {-30, -3.5, -1, -0.25, 0, 0.1, 0.7, 1, 2.5, 12, 1e4};
    for (size_t i = 0; i < sizeof ts / sizeof ts[0]; i++) {
        double t = ts[i];
        /* df = 1 is Cauchy; df = 2 has an algebraic cdf */
        assert_true(fabs(stats_t_cdf(t, 1) - (0.5 + atan(t) / M_PI)) < 1e-12);
        assert_true(fabs(stats_t_cdf(t, 2) - (0.5 + t / (2 * sqrt(2 + t * t)))) < 1e-12);
    }
    assert_true(stats_t_cdf(INFINITY, 5) == 1.0);
    assert_true(stats_t_cdf(-INFINITY, 5) == 0.0);
    assert_true(isnan(stats_t_cdf(1, 0)));
}

static void
test_t_cdf_integrated(void **state)
{
    (void)state;
    static const struct {
        double t, df, cdf;
    } cases[] = {{2.228, 10, 0.974994114091},
                 {1.5, 3.7, 0.893200915399},
                 {-0.8, 25, 0.215623691028},
                 {4.0, 7.25, 0.997585068460}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        assert_true(fabs(stats_t_cdf(cases[i].t, cases[i].df) - cases[i].cdf) < 1e-9);
}

static void
test_t_quantile_matches_table(void **state)
{
    (void)state;
    /* the printed table (3 decimals) that stats_t_critical keeps */
    for (uint64_t df = 1; df <= 30; df++) {
        assert_true(fabs(stats_t_quantile(0.975, (double)df) - stats_t_critical(df, 0.95)) <
                    0.0006);
        assert_true(fabs(stats_t_quantile(0.995, (double)df) - stats_t_critical(df, 0.99)) <
                    0.0006);
        assert_true(fabs(stats_t_quantile(0.95, (double)df) - stats_t_critical(df, 0.90)) < 0.0006);
    }
    /* inverse of the cdf, symmetric, and the normal limit */
    for (double p = 0.01; p < 1.0; p += 0.07) {
        double q = stats_t_quantile(p, 4.5);
        assert_true(fabs(stats_t_cdf(q, 4.5) - p) < 1e-9);
        assert_true(fabs(stats_t_quantile(1 - p, 4.5) + q) < 1e-9);
    }
    assert_true(fabs(stats_t_quantile(0.975, 1e7) - 1.959964) < 1e-5);
    assert_true(stats_t_quantile(0.5, 3) == 0.0);
    assert_true(isnan(stats_t_quantile(0, 3)));
    assert_true(isnan(stats_t_quantile(1, 3)));
}

static void
add_all(struct stats *s, const double *v, size_t n)
{
    stats_init(s);
    for (size_t i = 0; i < n; i++)
        stats_add(s, v[i]);
}

static void
test_welch_known(void **state)
{
    (void)state;
    /* Wikipedia, "Welch's t-test", example 1 (A1 vs A2): t = 2.46, df = 24.99, p = 0.021 */
    static const double a1[] = {27.5, 21.0, 19.0, 23.6, 17.0, 17.9, 16.9, 20.1,
                                21.9, 22.6, 23.1, 19.6, 19.0, 21.7, 21.4};
    static const double a2[] = {27.1, 22.0, 20.8, 23.4, 23.4, 23.5, 25.8, 22.0,
                                24.8, 20.2, 21.9, 22.1, 22.9, 20.5, 24.4};
    struct stats a, b;
    struct stats_welch w;
    add_all(&a, a1, 15);
    add_all(&b, a2, 15);
    assert_int_equal(stats_welch_test(&a, &b, &w), 0);
    assert_true(fabs(w.t - 2.455356398286) < 1e-9);
    assert_true(fabs(w.df - 24.988529290231) < 1e-9);
    assert_true(fabs(w.p - 0.021378001463) < 1e-9);
    /* the other way round: t changes sign, p does not */
    assert_int_equal(stats_welch_test(&b, &a, &w), 0);
    assert_true(fabs(w.t + 2.455356398286) < 1e-9);
    assert_true(fabs(w.p - 0.021378001463) < 1e-9);

    static const double r1[] = {330.1, 329.5, 331.2}, r2[] = {340.2, 339.0, 345.9, 338.1};
    add_all(&a, r1, 3);
    add_all(&b, r2, 4);
    assert_int_equal(stats_welch_test(&a, &b, &w), 0);
    assert_true(fabs(w.t - 5.778500820034) < 1e-9);
    assert_true(fabs(w.df - 3.469160308171) < 1e-9);
    assert_true(fabs(w.p - 0.006825556987) < 1e-9);
}

static void
test_welch_edges(void **state)
{
    (void)state;
    struct stats a, b;
    struct stats_welch w = {42, 42, 42};
    static const double one[] = {5.0}, same[] = {5.0, 5.0, 5.0}, more[] = {6.0, 6.0};
    add_all(&a, one, 1);
    add_all(&b, same, 3);
    assert_int_equal(stats_welch_test(&a, &b, &w), -1); /* n < 2: no test */
    assert_true(w.p == 42);
    add_all(&a, same, 3);
    assert_int_equal(stats_welch_test(&a, &b, &w), 0);
    assert_true(w.p == 1.0 && w.t == 0.0);
    add_all(&b, more, 2);
    assert_int_equal(stats_welch_test(&a, &b, &w), 0);
    assert_true(w.p == 0.0 && isinf(w.t) && w.t > 0);
}

/* A sample given by its moments, as compare reads them from summary.json. */
static void
from_moments(struct stats *s, uint64_t n, double mean, double sd)
{
    stats_init(s);
    s->n = n;
    s->mean = mean;
    s->m2 = sd * sd * (double)(n - 1);
}

static void
test_tost_known(void **state)
{
    (void)state;
    /* Reference figures: both one-sided p-values of Welch's t by Simpson integration of the t
     * density (400k intervals); the TOST p is the larger. */
    static const struct {
        uint64_t na;
        double ma, sa;
        uint64_t nb;
        double mb, sb, margin, p;
    } cases[] = {
        {5, 100, 4, 6, 101, 3, 5, 0.0527947778497},     /* upper test the weaker */
        {3, 1000, 10, 3, 970, 10, 50, 0.0352419984551}, /* lower test the weaker */
        {8, 330, 6, 4, 345, 12, 16.5, 0.412952054692},  /* far from equivalent */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct stats a, b;
        from_moments(&a, cases[i].na, cases[i].ma, cases[i].sa);
        from_moments(&b, cases[i].nb, cases[i].mb, cases[i].sb);
        double p = -1;
        assert_int_equal(stats_tost_welch(&a, &b, cases[i].margin, &p), 0);
        assert_true(fabs(p - cases[i].p) < 1e-8);
        /* swapping the samples mirrors the difference: the same two tests */
        assert_int_equal(stats_tost_welch(&b, &a, cases[i].margin, &p), 0);
        assert_true(fabs(p - cases[i].p) < 1e-8);
    }
}

static void
test_tost_edges(void **state)
{
    (void)state;
    struct stats a, b;
    double p = 42;
    static const double one[] = {5.0}, same[] = {5.0, 5.0, 5.0}, more[] = {6.0, 6.0};
    add_all(&a, one, 1);
    add_all(&b, same, 3);
    assert_int_equal(stats_tost_welch(&a, &b, 1.0, &p), -1);
    assert_true(p == 42);
    add_all(&a, same, 3);
    add_all(&b, more, 2); /* no variance: the difference 1 against the margin */
    assert_int_equal(stats_tost_welch(&a, &b, 1.5, &p), 0);
    assert_true(p == 0.0);
    assert_int_equal(stats_tost_welch(&a, &b, 1.0, &p), 0); /* at the margin: not inside */
    assert_true(p == 1.0);
    from_moments(&a, 5, 100, 1);
    from_moments(&b, 5, 100, 1);
    assert_int_equal(stats_tost_welch(&a, &b, 0.0, &p), 0); /* no margin, no equivalence */
    assert_true(p == 1.0);
}

static void
test_p_adjust(void **state)
{
    (void)state;
    /* R: p.adjust(c(0.01, 0.04, 0.03, 0.005), "holm") = 0.03 0.06 0.06 0.02;
     * "bonferroni" = 0.04 0.16 0.12 0.02 */
    static const double p[] = {0.01, 0.04, 0.03, 0.005};
    static const double holm[] = {0.03, 0.06, 0.06, 0.02}, bonf[] = {0.04, 0.16, 0.12, 0.02};
    double out[4];
    assert_int_equal(stats_p_adjust(STATS_ADJUST_HOLM, p, 4, out), 0);
    for (int i = 0; i < 4; i++)
        assert_true(fabs(out[i] - holm[i]) < 1e-15);
    assert_int_equal(stats_p_adjust(STATS_ADJUST_BONFERRONI, p, 4, out), 0);
    for (int i = 0; i < 4; i++)
        assert_true(fabs(out[i] - bonf[i]) < 1e-15);
    assert_int_equal(stats_p_adjust(STATS_ADJUST_NONE, p, 4, out), 0);
    for (int i = 0; i < 4; i++)
        assert_true(out[i] == p[i]);
    /* NaN is no member (m = 4); capped at 1; in place; never below an earlier step */
    double q[] = {0.01, NAN, 0.04, 0.7, 0.7};
    assert_int_equal(stats_p_adjust(STATS_ADJUST_HOLM, q, 5, q), 0);
    assert_true(fabs(q[0] - 0.04) < 1e-15 && isnan(q[1]) && fabs(q[2] - 0.12) < 1e-15);
    assert_true(q[3] == 1.0 && q[4] == 1.0);
    assert_int_equal(stats_p_adjust(STATS_ADJUST_HOLM, q, 0, q), 0); /* empty family */
}

static void
test_betai(void **state)
{
    (void)state;
    /* I_x(1, 1) = x; I_x(a, 1) = x^a; I_x(1, b) = 1 - (1-x)^b; symmetry */
    for (double x = 0.05; x < 1.0; x += 0.1) {
        assert_true(fabs(stats_betai(1, 1, x) - x) < 1e-12);
        assert_true(fabs(stats_betai(3.5, 1, x) - pow(x, 3.5)) < 1e-12);
        assert_true(fabs(stats_betai(1, 2.5, x) - (1 - pow(1 - x, 2.5))) < 1e-12);
        assert_true(fabs(stats_betai(2.3, 7.1, x) + stats_betai(7.1, 2.3, 1 - x) - 1) < 1e-12);
    }
    assert_true(stats_betai(2, 3, 0) == 0.0 && stats_betai(2, 3, 1) == 1.0);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_t_cdf_closed_forms),
                                       cmocka_unit_test(test_t_cdf_integrated),
                                       cmocka_unit_test(test_t_quantile_matches_table),
                                       cmocka_unit_test(test_welch_known),
                                       cmocka_unit_test(test_welch_edges),
                                       cmocka_unit_test(test_tost_known),
                                       cmocka_unit_test(test_tost_edges),
                                       cmocka_unit_test(test_p_adjust),
                                       cmocka_unit_test(test_betai)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
