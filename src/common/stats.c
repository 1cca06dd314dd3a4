#include "common/stats.h"

#include <math.h>
#include <stdlib.h>

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
stats_merge_moments(double na, double *mean, double *m2, double nb, double mean_b, double m2_b)
{
    double n = na + nb;
    double delta = mean_b - *mean;
    *mean += delta * nb / n;
    *m2 += m2_b + delta * delta * na * nb / n;
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
    stats_merge_moments((double)dst->n, &dst->mean, &dst->m2, (double)src->n, src->mean, src->m2);
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

/* Continued fraction of the incomplete beta function (modified Lentz). */
static double
stats_betacf(double a, double b, double x)
{
    const double tiny = 1e-300, eps = 1e-15;
    double qab = a + b, qap = a + 1.0, qam = a - 1.0;
    double c = 1.0, d = 1.0 - qab * x / qap;
    if (fabs(d) < tiny)
        d = tiny;
    d = 1.0 / d;
    double h = d;
    for (int m = 1; m <= 500; m++) {
        double m2 = 2.0 * m;
        double aa = m * (b - m) * x / ((qam + m2) * (a + m2));
        d = 1.0 + aa * d;
        d = fabs(d) < tiny ? tiny : d;
        c = 1.0 + aa / c;
        c = fabs(c) < tiny ? tiny : c;
        d = 1.0 / d;
        h *= d * c;
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
        d = 1.0 + aa * d;
        d = fabs(d) < tiny ? tiny : d;
        c = 1.0 + aa / c;
        c = fabs(c) < tiny ? tiny : c;
        d = 1.0 / d;
        double del = d * c;
        h *= del;
        if (fabs(del - 1.0) < eps)
            break;
    }
    return h;
}

double
stats_betai(double a, double b, double x)
{
    if (x <= 0.0)
        return 0.0;
    if (x >= 1.0)
        return 1.0;
    double lbt = lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x);
    double bt = exp(lbt);
    if (x < (a + 1.0) / (a + b + 2.0))
        return bt * stats_betacf(a, b, x) / a;
    return 1.0 - bt * stats_betacf(b, a, 1.0 - x) / b;
}

double
stats_t_cdf(double t, double df)
{
    if (isnan(t) || !(df > 0.0))
        return NAN;
    if (isinf(t))
        return t > 0 ? 1.0 : 0.0;
    /* P(|T| > |t|) = I_{df/(df+t^2)}(df/2, 1/2) */
    double tail = 0.5 * stats_betai(df / 2.0, 0.5, df / (df + t * t));
    return t > 0 ? 1.0 - tail : tail;
}

double
stats_t_quantile(double p, double df)
{
    if (!(p > 0.0 && p < 1.0) || !(df > 0.0))
        return NAN;
    if (p == 0.5)
        return 0.0;
    if (p < 0.5)
        return -stats_t_quantile(1.0 - p, df);
    double lo = 0.0, hi = 1.0;
    while (stats_t_cdf(hi, df) < p && hi < 1e300)
        hi *= 2.0;
    for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; i++) {
        double mid = (lo + hi) / 2.0;
        if (stats_t_cdf(mid, df) < p)
            lo = mid;
        else
            hi = mid;
    }
    return (lo + hi) / 2.0;
}

int
stats_welch_test(const struct stats *a, const struct stats *b, struct stats_welch *out)
{
    if (a->n < 2 || b->n < 2)
        return -1;
    double na = (double)a->n, nb = (double)b->n;
    double va = stats_variance(a) / na, vb = stats_variance(b) / nb;
    double diff = b->mean - a->mean;
    if (va + vb == 0.0) {
        out->df = na + nb - 2.0;
        out->t = diff == 0.0 ? 0.0 : diff > 0 ? INFINITY : -INFINITY;
        out->p = diff == 0.0 ? 1.0 : 0.0;
        return 0;
    }
    out->t = diff / sqrt(va + vb);
    out->df = (va + vb) * (va + vb) / (va * va / (na - 1.0) + vb * vb / (nb - 1.0));
    out->p = 2.0 * stats_t_cdf(-fabs(out->t), out->df);
    if (out->p > 1.0)
        out->p = 1.0;
    return 0;
}

int
stats_tost_welch(const struct stats *a, const struct stats *b, double margin, double *p)
{
    if (a->n < 2 || b->n < 2)
        return -1;
    double va = stats_variance(a) / (double)a->n, vb = stats_variance(b) / (double)b->n;
    double diff = b->mean - a->mean;
    if (!(margin > 0.0)) {
        *p = 1.0;
        return 0;
    }
    if (va + vb == 0.0) {
        *p = fabs(diff) < margin ? 0.0 : 1.0;
        return 0;
    }
    double se = sqrt(va + vb);
    double df =
        (va + vb) * (va + vb) / (va * va / ((double)a->n - 1.0) + vb * vb / ((double)b->n - 1.0));
    /* H01: diff <= -margin, rejected for large t1; H02: diff >= margin, for small t2 */
    double p1 = stats_t_cdf(-(diff + margin) / se, df);
    double p2 = stats_t_cdf((diff - margin) / se, df);
    *p = p1 > p2 ? p1 : p2;
    return 0;
}

struct stats_rank {
    double p;
    size_t i;
};

static int
stats_rank_cmp(const void *x, const void *y)
{
    const struct stats_rank *a = x, *b = y;
    if (a->p != b->p)
        return a->p < b->p ? -1 : 1;
    return a->i < b->i ? -1 : a->i > b->i; /* ties in input order: the same output every run */
}

int
stats_p_adjust(enum stats_adjust method, const double *p, size_t n, double *out)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        m += isnan(p[i]) ? 0u : 1u;
    struct stats_rank *r = malloc((m ? m : 1) * sizeof *r);
    if (r == NULL)
        return -1;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (!isnan(p[i]))
            r[k++] = (struct stats_rank){p[i], i};
    if (method != STATS_ADJUST_HOLM) {
        double f = method == STATS_ADJUST_BONFERRONI ? (double)m : 1.0;
        for (size_t j = 0; j < m; j++)
            r[j].p = fmin(1.0, r[j].p * f);
    } else {
        /* the j-th smallest times (m - j), never below the adjusted value before it */
        qsort(r, m, sizeof *r, stats_rank_cmp);
        double run = 0.0;
        for (size_t j = 0; j < m; j++) {
            run = fmax(run, fmin(1.0, r[j].p * (double)(m - j)));
            r[j].p = run;
        }
    }
    for (size_t i = 0; i < n; i++)
        if (isnan(p[i]))
            out[i] = p[i];
    for (size_t j = 0; j < m; j++)
        out[r[j].i] = r[j].p;
    free(r);
    return 0;
}
