/* hist.h - log-linear latency histogram (neper / HdrHistogram style), mergeable, bounded memory.
 *
 * Values are unsigned 64-bit integers (nsperf records nanoseconds). Values below 128 have a
 * bucket each; above, every power-of-two octave is split into 64 linear sub-buckets, so a
 * bucket is at most 1/64 of its lower bound wide and the midpoint reported for a percentile is
 * within 1/128 (< 0.8 %) of any value in it. Exact count, sum, min and max are kept beside the
 * buckets, so mean and stddev are exact; percentiles come from buckets and are clamped to
 * [min, max]. Never average percentiles: merge histograms, then read them. */
#ifndef NS_HIST_H
#define NS_HIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HIST_SUB_BITS 7                   /* 2^7 exact values, then 64 per octave */
#define HIST_LINEAR (1u << HIST_SUB_BITS) /* 128 */
#define HIST_HALF (HIST_LINEAR / 2)       /* 64 */
#define HIST_MAX_EXP 50                   /* values up to 2^51 - 1 (26 days in ns) */
#define HIST_NBUCKETS (HIST_LINEAR + (HIST_MAX_EXP - HIST_SUB_BITS + 1) * HIST_HALF)

struct hist {
    uint64_t count;
    uint64_t min, max; /* valid when count > 0 */
    double mean, m2;   /* Welford running mean and sum of squared deviations */
    uint64_t buckets[HIST_NBUCKETS];
};

/* Reset h to empty (embedded use: no heap). */
void hist_init(struct hist *h);

/* Heap variant; hist_free(NULL) is safe. */
struct hist *hist_new(void);
void hist_free(struct hist *h);

/* Record one value (values above the range are clamped into the last bucket; exact min/max/mean
 * still see the true value). */
void hist_record(struct hist *h, uint64_t v);

/* Record n copies of v (used when loading buckets). */
void hist_record_n(struct hist *h, uint64_t v, uint64_t n);

/* dst += src, exactly as if every value of src had been recorded into dst. */
void hist_merge(struct hist *dst, const struct hist *src);

/* Value at percentile q in [0, 100]: the midpoint of the bucket holding the ceil(q/100*count)-th
 * smallest value, clamped to [min, max]. q=0 gives min, q=100 gives max. 0 when empty. */
double hist_percentile(const struct hist *h, double q);

double hist_mean(const struct hist *h);
double hist_stddev(const struct hist *h); /* population stddev, as sockperf prints */

/* Bucket mapping, exposed for tests and for the JSON form. */
size_t hist_index(uint64_t v);
uint64_t hist_bucket_low(size_t idx);  /* smallest value mapping to idx */
uint64_t hist_bucket_high(size_t idx); /* largest value mapping to idx */

#endif
