/* jtrials.h - the lines of a run's journal as the history module reads them for the database
 * and for export (internal to src/history; jtrials.c): every line, each either a trial record
 * the reports count (the same records, by the journal's own reader and journal_supersedes) or
 * another line, with its number and its bytes; and a trial's own RTT percentiles. */
#ifndef NS_HISTORY_JTRIALS_H
#define NS_HISTORY_JTRIALS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct err;
struct journal_run;
struct journal_trial;
struct journal_result;

/* Told of each line in order (t, scenario and text borrowed for the call; text without its
 * newline). scenario: the name the reports file the trial under (its own, or "NAME (revision
 * K)" for a trial an earlier revision of the plan ran: report_record_scenario). Return 0 to go
 * on or NS_E* to stop. Either may be NULL. */
struct jtrials_cb {
    int (*trial)(void *arg, const struct journal_trial *t, const char *scenario, uint64_t line,
                 const char *text, size_t len, struct err *e);
    /* kind: "superseded" (a later record of the trial counts), "bad" (not a trial record),
     * "refused" (one the reports refuse or pass over: another schema, a value outside its
     * domain, a trial its run.json does not plan), "torn" (the last line, without its newline); why
     * says more. */
    int (*other)(void *arg, uint64_t line, const char *kind, const char *why, const char *text,
                 size_t len, struct err *e);
};

struct jtrials_stats {
    uint64_t lines, trials;
    bool torn;          /* the last line has no newline */
    bool journal_error; /* on error: the journal's, not a callback's */
};

/* Every line of dir's results.jsonl for the run run (its run.json, read). Returns 0 or NS_E*
 * (a journal that cannot be read, or changed while it was read: st->journal_error; or a
 * callback's). */
int history_jtrials_read(const char *dir, const struct journal_run *run,
                         const struct jtrials_cb *cb, void *arg, struct jtrials_stats *st,
                         struct err *e);

/* Scratch space for a trial's buckets, reused trial after trial; zero it first. */
struct jpct {
    size_t *idx;
    uint64_t *cnt;
    size_t n, cap;
};

/* The trial's RTT p50 and p99 (us) from its own histogram, as hist_percentile reads them: 1;
 * 0 when it has none; NS_ENOMEM. */
int history_jpct_rtt(struct jpct *t, const struct journal_result *r, double *p50, double *p99);
void history_jpct_release(struct jpct *t);

#endif
