/* hist.h - log-linear latency histogram (HdrHistogram style, 3 significant digits), mergeable,
 * bounded memory.
 *
 * Values are unsigned 64-bit integers (nsperf records nanoseconds). Values below 2048 have a
 * bucket each; above, every power-of-two octave is split into 1024 linear sub-buckets, so a
 * bucket is at most 1/1024 of its lower bound wide (< 0.1 %) and the midpoint reported for a
 * percentile is within 1/2048 (< 0.05 %) of any value in it. The range is 0 to 2^37 - 1 ns
 * (137 s: every RTT a test can see, 100 ns to 100 s with room); larger values are counted in
 * the last bucket, and min, max and mean still see them exactly.
 *
 * Memory: HIST_NBUCKETS (28 672) counters of 8 bytes, 224 KiB a histogram, allocated and
 * touched once before a test starts (hist_new), so recording is O(1) with no allocation and no
 * page fault. nsperf holds one per request/response test; the reports hold one (a scratch that
 * each pair and cell is merged into in turn, only its used range read and reset) and keep the
 * trials' buckets sparse.
 *
 * Exact count, sum, min and max are kept beside the buckets, so mean and stddev are exact;
 * percentiles come from buckets and are clamped to [min, max]. Never average percentiles: merge
 * histograms, then read them.
 *
 * The JSON form names its layout by sub_bits (common/histjson.h). Layout 7 (HIST_SUB_BITS_V1:
 * 128 exact values, then 64 per octave up to 2^51 ns, buckets up to 1/64 wide), which nsperf
 * wrote before, is still read: hist_index_layout() places each of its buckets, whole, in the
 * bucket of this layout that holds its centre. */
#ifndef NS_HIST_H
#define NS_HIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HIST_SUB_BITS 11                  /* 2^11 exact values, then 1024 per octave */
#define HIST_LINEAR (1u << HIST_SUB_BITS) /* 2048 */
#define HIST_HALF (HIST_LINEAR / 2)       /* 1024 */
#define HIST_MAX_EXP 36                   /* values up to 2^37 - 1 (137 s in ns) */
#define HIST_NBUCKETS (HIST_LINEAR + (HIST_MAX_EXP - HIST_SUB_BITS + 1) * HIST_HALF) /* 28672 */

/* The layout nsperf wrote before (journals of netsurvey 0.1.0), still read. */
#define HIST_SUB_BITS_V1 7

struct hist {
    uint64_t count;
    uint64_t min, max; /* valid when count > 0 */
    double mean, m2;   /* Welford running mean and sum of squared deviations */
    uint64_t buckets[HIST_NBUCKETS];
};

/* Reset h to empty (embedded use: no heap). */
void hist_init(struct hist *h);

/* Heap variant, every page touched (no fault when recording); hist_free(NULL) is safe. */
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

/* hist_percentile of the histogram whose non-empty buckets are idx[0..n) (ascending, each once)
 * with counts count[0..n) and whose min and max are min and max: the same value, read without
 * a histogram of HIST_NBUCKETS counters (a trial's few hundred buckets, as a journal holds them).
 */
double hist_percentile_sparse(const size_t *idx, const uint64_t *count, size_t n, uint64_t min,
                              uint64_t max, double q);

/* The value hist_percentile reports for a rank that falls in bucket idx (before clamping). */
double hist_bucket_mid(size_t idx);

double hist_mean(const struct hist *h);
double hist_stddev(const struct hist *h); /* population stddev, as sockperf prints */

/* Bucket mapping, exposed for tests and for the JSON form; hist_index is inline below (nsperf
 * records with it per transaction, the reports place millions of buckets with it). */
static inline size_t hist_index(uint64_t v);
uint64_t hist_bucket_low(size_t idx);  /* smallest value mapping to idx */
uint64_t hist_bucket_high(size_t idx); /* largest value mapping to idx */

/* Whether a JSON histogram of this sub_bits can be read: HIST_SUB_BITS or HIST_SUB_BITS_V1. */
bool hist_layout_known(int64_t sub_bits);

/* The bucket of this layout that takes the count of a bucket of layout sub_bits (which
 * hist_layout_known accepts) holding the value low (its lower bound, as the JSON gives it).
 * HIST_SUB_BITS: hist_index(low). HIST_SUB_BITS_V1: the old bucket [L, L + W) holding low is
 * placed whole in the bucket holding L + W/2, its centre. Each old bucket is a union of buckets
 * of this layout (16 from 2048 ns up, W exact values below), so no count leaves its old bucket,
 * and a percentile that falls in it reads the old bucket's midpoint to within W/32 (1/2048 of
 * the value), as the old reader reported it; its error against the values measured stays the
 * old layout's (< 0.8 %). Old buckets above 2^37 ns go to the last bucket, as values do. */
static inline size_t hist_index_layout(int64_t sub_bits, uint64_t low);

/* --- inline definitions ---------------------------------------------------------------------- */

#define HIST_V1_LINEAR (1u << HIST_SUB_BITS_V1) /* the old layout: 128 exact values, */
#define HIST_V1_MAX_EXP 50                      /* then 64 buckets per octave up to 2^51 */

static inline unsigned
hist_msb(uint64_t v)
{
    return 63u - (unsigned)__builtin_clzll(v);
}

static inline size_t
hist_index(uint64_t v)
{
    if (v < HIST_LINEAR)
        return (size_t)v;
    unsigned e = hist_msb(v);
    if (e > HIST_MAX_EXP)
        return HIST_NBUCKETS - 1;
    unsigned shift = e - (HIST_SUB_BITS - 1); /* keeps the top 11 bits: [1024, 2048) */
    uint64_t top = v >> shift;
    return HIST_LINEAR + (size_t)(e - HIST_SUB_BITS) * HIST_HALF + (size_t)(top - HIST_HALF);
}

/* The centre L + W/2 of the old bucket [L, L + W) that holds v (v itself below 128, where old
 * buckets are exact). */
static inline uint64_t
hist_v1_centre(uint64_t v)
{
    if (v < HIST_V1_LINEAR)
        return v;
    unsigned e = hist_msb(v);
    if (e > HIST_V1_MAX_EXP) { /* the old last bucket took everything above */
        e = HIST_V1_MAX_EXP;
        v = (UINT64_C(1) << (HIST_V1_MAX_EXP + 1)) - 1;
    }
    uint64_t w = UINT64_C(1) << (e - (HIST_SUB_BITS_V1 - 1));
    return (v & ~(w - 1)) + w / 2;
}

static inline size_t
hist_index_layout(int64_t sub_bits, uint64_t low)
{
    return hist_index(sub_bits == HIST_SUB_BITS_V1 ? hist_v1_centre(low) : low);
}

#endif
