/* histjson.h - the JSON form of a latency histogram, shared by nsperf (-J), the journal and the
 * reports so that every layer reads the same words:
 *   "rtt_us": {"n":305280, "mean":329.3, "stddev":6.2, "min":319.2, "p25":..., "p50":...,
 *              "p90":..., "p99":..., "p99_9":..., "p99_99":..., "p99_999":..., "max":730.8,
 *              "hist": {"unit":"ns", "sub_bits":11, "runs":[[lower_ns, c0, c1, ...], ...]},
 *              "m2_ns2": ...}
 * Figures are microseconds; hist is the exact nanosecond histogram (sparse, ascending), so a
 * reader can merge trials exactly and read percentiles of the merged distribution. m2_ns2 (sum of
 * squared deviations, ns^2) keeps stddev exact across merges. sub_bits names the layout
 * (common/hist.h): 11 now, 7 in what nsperf wrote before; readers take both and place old
 * buckets with hist_index_layout().
 * Two forms of the buckets: "runs" (what nsperf writes since netsurvey.trial/3, layout 11 only):
 * runs of consecutive buckets, each the lower bound of its first bucket and then the counts of it
 * and the buckets after it, 0 for an empty one (a gap of up to HISTJSON_RUNS_GAP empty buckets is
 * written as zeros rather than as a new run: a zero takes 2 bytes, a new run's head ~10). 3.6
 * bytes a bucket on a loopback trial's ~1 200 buckets, against 11.5 in the older "buckets" form,
 * [[lower_ns, count], ...], one entry a non-empty bucket, which readers still take. */
#ifndef NS_HISTJSON_H
#define NS_HISTJSON_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

struct hist;
struct err;

/* The names, for readers that walk the text themselves (journal/scan.c). */
#define HISTJSON_RTT "rtt_us"
#define HISTJSON_HIST "hist"
#define HISTJSON_SUB_BITS "sub_bits"
#define HISTJSON_BUCKETS "buckets"
#define HISTJSON_RUNS "runs"
#define HISTJSON_RUNS_GAP 4
#define HISTJSON_M2 "m2_ns2"

/* The percentiles of an rtt_us object, the one list: what nsperf writes (JSON key), what the
 * reports compute from merged histograms and name for people, and q in percent, ascending. */
struct histjson_pct {
    const char *key;  /* "p99_9" */
    const char *name; /* "p99.9" */
    double q;         /* 99.9 */
};
#define HISTJSON_NPCT 8
extern const struct histjson_pct histjson_pcts[HISTJSON_NPCT];

/* New reference; h is borrowed. An empty histogram gives n = 0 and no percentiles. */
json_t *hist_to_rtt_json(const struct hist *h_ns);

/* Which form an rtt_us object's histogram is in: hist.runs an array and no hist.buckets (RUNS),
 * hist.buckets an array and no hist.runs (BUCKETS); NONE for anything else, both among it. */
enum histjson_form { HISTJSON_FORM_NONE, HISTJSON_FORM_BUCKETS, HISTJSON_FORM_RUNS };
enum histjson_form hist_rtt_json_form(const json_t *rtt);

/* The buckets of an rtt_us object's histogram, the one decoder of them, in either form, in order
 * (the layout hist.sub_bits is stored in *sub_bits first when sub_bits is not NULL):
 * - buckets: fn(lower_ns, count, arg) for each entry that is [lower_ns >= 0, count > 0] (JSON
 *   integers; further members are ignored), the lower bounds as written;
 * - runs: for each run [lower_ns >= 0, c0, c1, ...] (integers) fn(low_k, c_k, arg) for each
 *   count c_k that is an integer >= 0, zeros included, low_k the lower bound of the k-th bucket
 *   from the one holding lower_ns. A run that is not such an array or has no count is skipped,
 *   and so is the rest of a run from a count that is not such an integer or falls past the last
 *   bucket (one skip each).
 * *skipped (and *first_skipped, when not NULL: the entry's or run's index) counts what is
 * skipped. Returns 0; NS_EPARSE, with nothing called, when the form is NONE, or hist.sub_bits is
 * not an integer hist_layout_known() accepts (runs: not HIST_SUB_BITS); or fn's nonzero return,
 * which stops the walk. */
int hist_rtt_json_buckets(const json_t *rtt, int (*fn)(uint64_t low_ns, uint64_t count, void *arg),
                          void *arg, int64_t *sub_bits, size_t *skipped, size_t *first_skipped,
                          struct err *e);

/* Merge the histogram stored in an rtt_us object into h_ns (h_ns is not reset first), old
 * layouts placed by hist_index_layout(). Returns 0 or NS_EPARSE with detail. */
int hist_merge_rtt_json(struct hist *h_ns, const json_t *rtt, struct err *e);

#endif
