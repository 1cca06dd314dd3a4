/* scan.h - the two decoders of a trial line behind journal_reader_parse (internal to the journal
 * module, its tests and its differential fuzzer, tests/fuzz/fuzz_journal.c).
 *
 * journal_trial_from_json reads a jansson tree: it is the reference. journal_scan_trial walks
 * the line once without building a tree (jansson's tree costs ~25x more on a 100 000-trial
 * journal, most of it for histogram buckets) and takes only lines it is sure of: whenever it
 * returns true, jansson parses the same bytes and journal_trial_from_json gives the same
 * struct. Anything else (a type it does not expect, an escape in a key, a duplicate key it
 * reads, invalid UTF-8, a number jansson would refuse, deep nesting) makes it return false, and
 * jansson decides. */
#ifndef NS_JOURNAL_SCAN_H
#define NS_JOURNAL_SCAN_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "journal/journal.h"
#include "journal/record.h"

/* The rules of both decoders for what a value means (netsurvey-journal(5)). Integers are read
 * as jansson's json_integer_value reads them: a real, or any other type, is 0. */
static inline uint32_t
journal_trial_number(int64_t v) /* 1-based; anything else is 0 */
{
    return v > 0 && v < UINT32_MAX ? (uint32_t)v : 0;
}
static inline uint32_t
journal_attempts(int64_t v)
{
    return v >= 0 && v <= UINT32_MAX ? (uint32_t)v : 0;
}
static inline uint64_t
journal_count(int64_t v) /* sizes, rates, counts: a negative one is 0 */
{
    return v > 0 ? (uint64_t)v : 0;
}
/* "ok", "failed", anything else (NULL too). */
enum journal_status journal_status_from(const char *s);
/* "ipv6" is ipv6; anything else (NULL too) ipv4, as the reports have always filed it. */
enum journal_family journal_family_from(const char *s);

/* Growable arrays of buckets (the buckets form) and of runs and their counts (the runs form),
 * reused from line to line. */
struct journal_buckets {
    struct journal_bucket *b;
    size_t n, cap;
    struct journal_hrun *r;
    size_t nr, capr;
    uint64_t *c;
    size_t nc, capc;
};
void journal_buckets_release(struct journal_buckets *bb);
/* Append one; false when out of memory. */
bool journal_buckets_grow(struct journal_buckets *bb);
/* Inline: a trial holds ~1 000 buckets (1 024 per octave), a 100 000-trial journal millions. */
static inline bool
journal_buckets_push(struct journal_buckets *bb, uint64_t low_ns, uint64_t count)
{
    if (bb->n == bb->cap && !journal_buckets_grow(bb))
        return false;
    bb->b[bb->n].low_ns = low_ns;
    bb->b[bb->n++].count = count;
    return true;
}
/* Append one count of the runs form, the count of bucket idx: to the last run where it ends at
 * idx, else as a new run. False when out of memory. */
bool journal_buckets_push_run(struct journal_buckets *bb, uint32_t idx, uint64_t count);

/* The fast decoder's scratch: its decoded strings and buckets. */
struct journal_scan;
struct journal_scan *journal_scan_new(void);
void journal_scan_free(struct journal_scan *s);

/* Whether s keeps a histogram's buckets (the default) or only checks them: without them a record
 * reads the same but for result.buckets, runs and counts (NULL) and their numbers (0); has_hist,
 * hist_runs and hist_sub_bits are as read. */
void journal_scan_keep_buckets(struct journal_scan *s, bool keep);

/* Decode line (len bytes, its newline may be included) into *t (pointers into s, valid until
 * the next call). False: not decoded, ask jansson. */
bool journal_scan_trial(struct journal_scan *s, const char *line, size_t len,
                        struct journal_trial *t);

/* Decode a parsed record (borrowed; t's strings point into it) into *t, its buckets into bb.
 * A value that is not an object reads as an empty record. Returns 0 or NS_ENOMEM. */
int journal_trial_from_json(const json_t *rec, struct journal_buckets *bb, struct journal_trial *t);

/* The checks every decoded record passes before a reader hands it on, the same for both
 * decoders: the schema is JOURNAL_TRIAL_SCHEMA, the test kind is testspec's (sets
 * t->scenario.kind), the status ok or failed, a trial number. Returns 0, NS_EPARSE (not a trial
 * record, an unknown kind: passed over) or NS_EPROTO (another schema version, another status:
 * refused) with why in e. */
int journal_trial_check(struct journal_trial *t, struct err *e);
/* Whether a checked record's values are data (README "The journal"): every figure of an ok
 * record's result a number from 0 to JOURNAL_FIGURE_MAX (a loss from 0 to 100 %, the RTT's m2
 * finite), the result and its headline figure there, and "family" ipv4, ipv6 or absent.
 * Returns 0, or NS_ERANGE saying which value is not. Both decoders' records go through it. */
int journal_trial_domain(const struct journal_trial *t, struct err *e);

/* journal_read_trials with another cap on a line's length (the tests' way to reach it), and
 * with or without the histograms' buckets (journal_read_trials_nobuckets). */
int journal_read_trials_capped(const char *dir, const char *run_id, size_t line_max, bool buckets,
                               journal_trial_fn fn, journal_skip_fn skip, void *arg,
                               struct journal_read_stats *st, struct err *e);

/* Whether two decoded records are the same, member by member (strings by content, buckets by
 * value). For the tests and the fuzzer. */
bool journal_trial_equal(const struct journal_trial *a, const struct journal_trial *b);

#endif
