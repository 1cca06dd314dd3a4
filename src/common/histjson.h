/* histjson.h - the JSON form of a latency histogram, shared by nsperf (-J), the journal and the
 * reports so that every layer reads the same words:
 *   "rtt_us": {"n":305280, "mean":329.3, "stddev":6.2, "min":319.2, "p25":..., "p50":...,
 *              "p90":..., "p99":..., "p99_9":..., "p99_99":..., "p99_999":..., "max":730.8,
 *              "hist": {"unit":"ns", "sub_bits":11, "buckets":[[lower_ns, count], ...]},
 *              "m2_ns2": ...}
 * Figures are microseconds; buckets are the exact nanosecond histogram (sparse, ascending), so a
 * reader can merge trials exactly and read percentiles of the merged distribution. m2_ns2 (sum of
 * squared deviations, ns^2) keeps stddev exact across merges. sub_bits names the layout
 * (common/hist.h): 11 now, 7 in what nsperf wrote before; readers take both and place old
 * buckets with hist_index_layout(). */
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
#define HISTJSON_M2 "m2_ns2"

/* New reference; h is borrowed. An empty histogram gives n = 0 and no percentiles. */
json_t *hist_to_rtt_json(const struct hist *h_ns);

/* The buckets of an rtt_us object's histogram, the one decoder of them: fn(lower_ns, count, arg)
 * for each entry that is [lower_ns >= 0, count > 0] (JSON integers; further members are
 * ignored), in order, the lower bounds as written (in the layout hist.sub_bits, which is stored
 * in *sub_bits first when sub_bits is not NULL); *skipped (and *first_skipped, when not NULL)
 * counts and places the entries that are not. Returns 0; NS_EPARSE, with nothing called, when
 * hist.buckets is not an array or hist.sub_bits is not an integer hist_layout_known() accepts;
 * or fn's nonzero return, which stops the walk. */
int hist_rtt_json_buckets(const json_t *rtt, int (*fn)(uint64_t low_ns, uint64_t count, void *arg),
                          void *arg, int64_t *sub_bits, size_t *skipped, size_t *first_skipped,
                          struct err *e);

/* Merge the histogram stored in an rtt_us object into h_ns (h_ns is not reset first), old
 * layouts placed by hist_index_layout(). Returns 0 or NS_EPARSE with detail. */
int hist_merge_rtt_json(struct hist *h_ns, const json_t *rtt, struct err *e);

#endif
