/* stats.h - summary statistics across trials: Welford running moments and a Student-t
 * confidence interval for the mean (trials are few: 3 by default, so z would lie). */
#ifndef NS_STATS_H
#define NS_STATS_H

#include <stdint.h>

struct stats {
    uint64_t n;
    double mean, m2, min, max;
};

void stats_init(struct stats *s);
void stats_add(struct stats *s, double x);
/* Chan et al. parallel combination: dst becomes the stats of both samples. */
void stats_merge(struct stats *dst, const struct stats *src);
double stats_mean(const struct stats *s);
double stats_variance(const struct stats *s); /* sample variance (n - 1); 0 when n < 2 */
double stats_stddev(const struct stats *s);   /* sample stddev */
/* Half-width of the two-sided confidence interval of the mean at level (0.90, 0.95 or 0.99);
 * 0 when n < 2. */
double stats_ci_halfwidth(const struct stats *s, double level);
/* Two-sided Student-t critical value for df degrees of freedom at level 0.90/0.95/0.99. */
double stats_t_critical(uint64_t df, double level);

#endif
