#include "common/histjson.h"

#include <math.h>
#include <stdbool.h>

#include "common/errors.h"
#include "common/hist.h"

const struct histjson_pct histjson_pcts[HISTJSON_NPCT] = {
    {"p25", "p25", 25.0},        {"p50", "p50", 50.0},           {"p75", "p75", 75.0},
    {"p90", "p90", 90.0},        {"p99", "p99", 99.0},           {"p99_9", "p99.9", 99.9},
    {"p99_99", "p99.99", 99.99}, {"p99_999", "p99.999", 99.999},
};

/* The runs form (histjson.h): a run ends where more than HISTJSON_RUNS_GAP empty buckets follow. */
static json_t *
histjson_runs(const struct hist *h)
{
    json_t *arr = json_array(), *run = NULL;
    size_t gap = 0;
    for (size_t i = 0; i < HIST_NBUCKETS; i++) {
        if (h->buckets[i] == 0) {
            gap++;
            continue;
        }
        if (run != NULL && gap <= HISTJSON_RUNS_GAP) {
            for (; gap > 0; gap--)
                json_array_append_new(run, json_integer(0));
        } else {
            run = json_array();
            json_array_append_new(arr, run);
            json_array_append_new(run, json_integer((json_int_t)hist_bucket_low(i)));
        }
        gap = 0;
        json_array_append_new(run, json_integer((json_int_t)h->buckets[i]));
    }
    return arr;
}

json_t *
hist_to_rtt_json(const struct hist *h)
{
    json_t *o = json_object();
    json_object_set_new(o, "n", json_integer((json_int_t)h->count));
    if (h->count > 0) {
        json_object_set_new(o, "mean", json_real(hist_mean(h) / 1e3));
        json_object_set_new(o, "stddev", json_real(hist_stddev(h) / 1e3));
        json_object_set_new(o, "min", json_real((double)h->min / 1e3));
        for (size_t i = 0; i < HISTJSON_NPCT; i++)
            json_object_set_new(o, histjson_pcts[i].key,
                                json_real(hist_percentile(h, histjson_pcts[i].q) / 1e3));
        json_object_set_new(o, "max", json_real((double)h->max / 1e3));
    }
    json_object_set_new(o, HISTJSON_M2, json_real(h->m2));
    json_object_set_new(o, HISTJSON_HIST,
                        json_pack("{s:s, s:i, s:o}", "unit", "ns", HISTJSON_SUB_BITS, HIST_SUB_BITS,
                                  HISTJSON_RUNS, histjson_runs(h)));
    return o;
}

enum histjson_form
hist_rtt_json_form(const json_t *rtt)
{
    const json_t *hj = json_object_get(rtt, HISTJSON_HIST);
    const json_t *buckets = json_object_get(hj, HISTJSON_BUCKETS);
    const json_t *runs = json_object_get(hj, HISTJSON_RUNS);
    if (json_is_array(runs) && buckets == NULL)
        return HISTJSON_FORM_RUNS;
    if (json_is_array(buckets) && runs == NULL)
        return HISTJSON_FORM_BUCKETS;
    return HISTJSON_FORM_NONE;
}

static int
histjson_walk_buckets(const json_t *buckets, int (*fn)(uint64_t, uint64_t, void *), void *arg,
                      size_t *skipped, size_t *first_skipped)
{
    size_t i;
    const json_t *b;
    json_array_foreach(buckets, i, b)
    {
        json_int_t low = json_integer_value(json_array_get(b, 0));
        json_int_t cnt = json_integer_value(json_array_get(b, 1));
        if (low < 0 || cnt <= 0) {
            if ((*skipped)++ == 0 && first_skipped != NULL)
                *first_skipped = i;
            continue;
        }
        int rc = fn((uint64_t)low, (uint64_t)cnt, arg);
        if (rc != 0)
            return rc;
    }
    return 0;
}

static int
histjson_walk_runs(const json_t *runs, int (*fn)(uint64_t, uint64_t, void *), void *arg,
                   size_t *skipped, size_t *first_skipped)
{
    size_t i;
    const json_t *r;
    json_array_foreach(runs, i, r)
    {
        const json_t *head = json_array_get(r, 0);
        size_t n = json_array_size(r);
        bool bad = !json_is_integer(head) || json_integer_value(head) < 0 || n < 2;
        size_t idx = bad ? 0 : hist_index((uint64_t)json_integer_value(head));
        for (size_t k = 1; k < n && !bad; k++, idx++) {
            const json_t *c = json_array_get(r, k);
            if (!json_is_integer(c) || json_integer_value(c) < 0 || idx >= HIST_NBUCKETS) {
                bad = true;
                break;
            }
            int rc = fn(hist_bucket_low(idx), (uint64_t)json_integer_value(c), arg);
            if (rc != 0)
                return rc;
        }
        if (bad && (*skipped)++ == 0 && first_skipped != NULL)
            *first_skipped = i;
    }
    return 0;
}

int
hist_rtt_json_buckets(const json_t *rtt, int (*fn)(uint64_t low_ns, uint64_t count, void *arg),
                      void *arg, int64_t *sub_bits_out, size_t *skipped, size_t *first_skipped,
                      struct err *e)
{
    *skipped = 0;
    const json_t *hj = json_object_get(rtt, HISTJSON_HIST);
    enum histjson_form form = hist_rtt_json_form(rtt);
    if (form == HISTJSON_FORM_NONE)
        return err_set(e, NS_EPARSE,
                       "rtt_us.hist has neither runs nor buckets as an array (or both)");
    json_int_t sub_bits = json_integer_value(json_object_get(hj, HISTJSON_SUB_BITS));
    if (form == HISTJSON_FORM_RUNS && sub_bits != HIST_SUB_BITS)
        return err_set(e, NS_EPARSE, "rtt_us.hist.sub_bits %lld is not %d, which runs are in",
                       (long long)sub_bits, HIST_SUB_BITS);
    if (!hist_layout_known(sub_bits))
        return err_set(e, NS_EPARSE, "rtt_us.hist.sub_bits %lld is not %d (or %d, as before)",
                       (long long)sub_bits, HIST_SUB_BITS, HIST_SUB_BITS_V1);
    if (sub_bits_out != NULL)
        *sub_bits_out = sub_bits;
    if (form == HISTJSON_FORM_RUNS)
        return histjson_walk_runs(json_object_get(hj, HISTJSON_RUNS), fn, arg, skipped,
                                  first_skipped);
    return histjson_walk_buckets(json_object_get(hj, HISTJSON_BUCKETS), fn, arg, skipped,
                                 first_skipped);
}

struct hist_load {
    struct hist *h;
    int64_t sub_bits;
};

static int
hist_add_bucket(uint64_t low, uint64_t count, void *arg)
{
    struct hist_load *l = arg;
    l->h->buckets[hist_index_layout(l->sub_bits, low)] += count;
    l->h->count += count;
    return 0;
}

/* Rebuild an exact summary for the incoming part, then merge it (keeps min/max/mean/m2 exact
 * where the object carries them; buckets carry the distribution). */
int
hist_merge_rtt_json(struct hist *h, const json_t *rtt, struct err *e)
{
    struct hist *part = hist_new();
    if (part == NULL)
        return err_set(e, NS_ENOMEM, "out of memory");
    size_t skipped = 0, first = 0;
    struct hist_load l = {.h = part};
    int rc = hist_rtt_json_buckets(rtt, hist_add_bucket, &l, &l.sub_bits, &skipped, &first, e);
    if (rc == 0 && skipped > 0)
        rc =
            hist_rtt_json_form(rtt) == HISTJSON_FORM_RUNS
                ? err_set(e, NS_EPARSE,
                          "rtt_us.hist.runs[%zu] is not [lower_ns, count, ...] of counts >= 0 "
                          "within the histogram",
                          first)
                : err_set(e, NS_EPARSE, "rtt_us.hist.buckets[%zu] is not [lower_ns, count]", first);
    if (rc != 0) {
        hist_free(part);
        return rc;
    }
    if (part->count > 0) {
        part->min = (uint64_t)llround(json_number_value(json_object_get(rtt, "min")) * 1e3);
        part->max = (uint64_t)llround(json_number_value(json_object_get(rtt, "max")) * 1e3);
        part->mean = json_number_value(json_object_get(rtt, "mean")) * 1e3;
        part->m2 = json_number_value(json_object_get(rtt, HISTJSON_M2));
    }
    hist_merge(h, part);
    hist_free(part);
    return 0;
}
