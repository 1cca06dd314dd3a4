/* stats.h - summary statistics across trials: Welford running moments and a Student-t
 * confidence interval for the mean (trials are few: 3 by default, so z would lie). */
#ifndef NS_STATS_H
#define NS_STATS_H

#include <stddef.h>
#include <stdint.h>

struct stats {
    uint64_t n;
    double mean, m2, min, max;
};

void stats_init(struct stats *s);
void stats_add(struct stats *s, double x);
/* Chan et al. parallel combination: dst becomes the stats of both samples. */
void stats_merge(struct stats *dst, const struct stats *src);
/* Chan et al.'s combination of two samples' moments, exact: *mean and *m2 (the sum of squared
 * deviations) of na values become those of both samples when nb values of mean mean_b and sum
 * m2_b join them (na + nb > 0). The one formula: stats_merge, hist_merge (common/hist.h) and the
 * reports' merge of a trial's histogram use it. */
void stats_merge_moments(double na, double *mean, double *m2, double nb, double mean_b,
                         double m2_b);
double stats_mean(const struct stats *s);
double stats_variance(const struct stats *s); /* sample variance (n - 1); 0 when n < 2 */
double stats_stddev(const struct stats *s);   /* sample stddev */
/* Half-width of the two-sided confidence interval of the mean at level (0.90, 0.95 or 0.99);
 * 0 when n < 2. */
double stats_ci_halfwidth(const struct stats *s, double level);
/* Two-sided Student-t critical value for df degrees of freedom at level 0.90/0.95/0.99. */
double stats_t_critical(uint64_t df, double level);

/* Student's t distribution with df > 0 degrees of freedom (df need not be an integer, as Welch's
 * test gives): P(T <= t), and its inverse for 0 < p < 1 (accurate to about 1e-9). */
double stats_t_cdf(double t, double df);
double stats_t_quantile(double p, double df);

/* Regularized incomplete beta function I_x(a, b), a, b > 0, x in [0, 1]. */
double stats_betai(double a, double b, double x);

/* Welch's unequal-variances t-test of mean(b) - mean(a): t, its Welch-Satterthwaite degrees of
 * freedom and the two-sided p-value. Returns -1 (and leaves *out alone) when either sample has
 * fewer than 2 values. Two samples without variance give p = 1 when their means are equal and
 * p = 0 otherwise. */
struct stats_welch {
    double t, df, p;
};
int stats_welch_test(const struct stats *a, const struct stats *b, struct stats_welch *out);

/* Equivalence of mean(b) and mean(a) within +-margin by two one-sided Welch tests (TOST,
 * Schuirmann 1987): H0 is |mean(b) - mean(a)| >= margin; *p is the larger of the two one-sided
 * p-values, so p < alpha says "equivalent" at level alpha (the 1 - 2 alpha confidence interval
 * of the difference lies inside (-margin, margin)). Returns -1 (and leaves *p alone) when either
 * sample has fewer than 2 values. margin <= 0 gives p = 1; two samples without variance give
 * p = 0 when the difference is inside the margin and p = 1 otherwise. */
int stats_tost_welch(const struct stats *a, const struct stats *b, double margin, double *p);

/* Corrections of a family of p-values for multiple comparisons. */
enum stats_adjust {
    STATS_ADJUST_NONE,       /* each test at alpha: the family-wise error grows with its size */
    STATS_ADJUST_HOLM,       /* Holm (1979) step-down: family-wise error <= alpha, any dependence */
    STATS_ADJUST_BONFERRONI, /* p * m: family-wise error <= alpha, never rejects more than Holm */
};

/* Adjusted p-values of the family p[0..n) into out[0..n) (out may be p): reject the i-th
 * hypothesis at family-wise level alpha when out[i] < alpha. A NaN p is no member of the family
 * (m counts the others) and stays NaN. Holm's adjusted values are monotone in p and capped at 1.
 * Returns 0, or -1 when memory ran out (out untouched). */
int stats_p_adjust(enum stats_adjust method, const double *p, size_t n, double *out);

#endif
