#include "common/stats.h"

#include <math.h>

void
stats_init(struct stats *s)
{
    s->n = 0;
    s->mean = s->m2 = s->min = s->max = 0.0;
}

void
stats_add(struct stats *s, double x)
{
    if (s->n == 0 || x < s->min)
        s->min = x;
    if (s->n == 0 || x > s->max)
        s->max = x;
    s->n++;
    double delta = x - s->mean;
    s->mean += delta / (double)s->n;
    s->m2 += delta * (x - s->mean);
}

void
stats_merge(struct stats *dst, const struct stats *src)
{
    if (src->n == 0)
        return;
    if (dst->n == 0) {
        *dst = *src;
        return;
    }
    double na = (double)dst->n, nb = (double)src->n, n = na + nb;
    double delta = src->mean - dst->mean;
    dst->mean += delta * nb / n;
    dst->m2 += src->m2 + delta * delta * na * nb / n;
    dst->n += src->n;
    if (src->min < dst->min)
        dst->min = src->min;
    if (src->max > dst->max)
        dst->max = src->max;
}

double
stats_mean(const struct stats *s)
{
    return s->mean;
}

double
stats_variance(const struct stats *s)
{
    return s->n < 2 ? 0.0 : s->m2 / (double)(s->n - 1);
}

double
stats_stddev(const struct stats *s)
{
    return sqrt(stats_variance(s));
}

/* Two-sided critical values of Student's t, df 1..30, then the normal limit. */
static const double t90[] = {6.314, 2.920, 2.353, 2.132, 2.015, 1.943, 1.895, 1.860, 1.833, 1.812,
                             1.796, 1.782, 1.771, 1.761, 1.753, 1.746, 1.740, 1.734, 1.729, 1.725,
                             1.721, 1.717, 1.714, 1.711, 1.708, 1.706, 1.703, 1.701, 1.699, 1.697};
static const double t95[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
                             2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
                             2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
static const double t99[] = {63.657, 9.925, 5.841, 4.604, 4.032, 3.707, 3.499, 3.355, 3.250, 3.169,
                             3.106,  3.055, 3.012, 2.977, 2.947, 2.921, 2.898, 2.878, 2.861, 2.845,
                             2.831,  2.819, 2.807, 2.797, 2.787, 2.779, 2.771, 2.763, 2.756, 2.750};

double
stats_t_critical(uint64_t df, double level)
{
    const double *tab = level >= 0.985 ? t99 : level >= 0.925 ? t95 : t90;
    double z = level >= 0.985 ? 2.576 : level >= 0.925 ? 1.960 : 1.645;
    if (df == 0)
        return INFINITY;
    if (df <= 30)
        return tab[df - 1];
    /* Beyond 30 df, a first-order correction of the normal value is within 0.2 %. */
    return z + (z * z * z + z) / (4.0 * (double)df);
}

double
stats_ci_halfwidth(const struct stats *s, double level)
{
    if (s->n < 2)
        return 0.0;
    return stats_t_critical(s->n - 1, level) * stats_stddev(s) / sqrt((double)s->n);
}
