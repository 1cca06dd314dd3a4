#include "common/hist.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/stats.h"

uint64_t
hist_bucket_low(size_t idx)
{
    if (idx < HIST_LINEAR)
        return idx;
    size_t k = idx - HIST_LINEAR;
    unsigned e = (unsigned)(k / HIST_HALF) + HIST_SUB_BITS;
    uint64_t top = (uint64_t)(k % HIST_HALF) + HIST_HALF;
    return top << (e - (HIST_SUB_BITS - 1));
}

uint64_t
hist_bucket_high(size_t idx)
{
    if (idx < HIST_LINEAR)
        return idx;
    if (idx + 1 >= HIST_NBUCKETS)
        return UINT64_MAX;
    return hist_bucket_low(idx + 1) - 1;
}

double
hist_bucket_mid(size_t idx)
{
    if (idx < HIST_LINEAR)
        return (double)idx;
    return ((double)hist_bucket_low(idx) + (double)hist_bucket_high(idx)) / 2.0;
}

bool
hist_layout_known(int64_t sub_bits)
{
    return sub_bits == HIST_SUB_BITS || sub_bits == HIST_SUB_BITS_V1;
}

void
hist_init(struct hist *h)
{
    memset(h, 0, sizeof *h);
}

struct hist *
hist_new(void)
{
    /* malloc + memset rather than calloc: calloc's fresh mapping would fault each page in on
     * its first record, in the middle of a measurement. */
    struct hist *h = malloc(sizeof *h);
    if (h != NULL)
        hist_init(h);
    return h;
}

void
hist_free(struct hist *h)
{
    free(h);
}

void
hist_record_n(struct hist *h, uint64_t v, uint64_t n)
{
    if (n == 0)
        return;
    if (h->count == 0 || v < h->min)
        h->min = v;
    if (h->count == 0 || v > h->max)
        h->max = v;
    /* Welford, weighted form: n equal observations at once. */
    double x = (double)v;
    uint64_t total = h->count + n;
    double delta = x - h->mean;
    h->mean += delta * (double)n / (double)total;
    h->m2 += delta * (x - h->mean) * (double)n;
    h->count = total;
    h->buckets[hist_index(v)] += n;
}

void
hist_record(struct hist *h, uint64_t v)
{
    hist_record_n(h, v, 1);
}

void
hist_merge(struct hist *dst, const struct hist *src)
{
    if (src->count == 0)
        return;
    if (dst->count == 0 || src->min < dst->min)
        dst->min = src->min;
    if (dst->count == 0 || src->max > dst->max)
        dst->max = src->max;
    stats_merge_moments((double)dst->count, &dst->mean, &dst->m2, (double)src->count, src->mean,
                        src->m2);
    dst->count += src->count;
    for (size_t i = 0; i < HIST_NBUCKETS; i++)
        dst->buckets[i] += src->buckets[i];
}

/* Rank of the value at q in (0, 100) of count values: the ceil(q% of count)-th smallest, at
 * least the first. */
static uint64_t
hist_rank(double q, uint64_t count)
{
    uint64_t rank = (uint64_t)ceil(q / 100.0 * (double)count);
    return rank < 1 ? 1 : rank;
}

/* The value reported for a rank in bucket i: its midpoint, clamped to [min, max]. */
static double
hist_clamped_mid(size_t i, uint64_t min, uint64_t max)
{
    double mid = hist_bucket_mid(i);
    if (mid < (double)min)
        mid = (double)min;
    if (mid > (double)max)
        mid = (double)max;
    return mid;
}

double
hist_percentile(const struct hist *h, double q)
{
    if (h->count == 0)
        return 0.0;
    if (q <= 0.0)
        return (double)h->min;
    if (q >= 100.0)
        return (double)h->max;
    uint64_t rank = hist_rank(q, h->count);
    uint64_t seen = 0;
    for (size_t i = 0; i < HIST_NBUCKETS; i++) {
        seen += h->buckets[i];
        if (seen >= rank)
            return hist_clamped_mid(i, h->min, h->max);
    }
    return (double)h->max;
}

double
hist_percentile_sparse(const size_t *idx, const uint64_t *count, size_t n, uint64_t min,
                       uint64_t max, double q)
{
    uint64_t total = 0;
    for (size_t k = 0; k < n; k++)
        total += count[k];
    if (total == 0)
        return 0.0;
    if (q <= 0.0)
        return (double)min;
    if (q >= 100.0)
        return (double)max;
    uint64_t rank = hist_rank(q, total), seen = 0;
    for (size_t k = 0; k < n; k++) {
        seen += count[k];
        if (seen >= rank)
            return hist_clamped_mid(idx[k], min, max);
    }
    return (double)max;
}

double
hist_mean(const struct hist *h)
{
    return h->count ? h->mean : 0.0;
}

double
hist_stddev(const struct hist *h)
{
    return h->count ? sqrt(h->m2 / (double)h->count) : 0.0;
}
