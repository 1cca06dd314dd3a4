/* adapt.h - adaptive trials in a run (`trials: {min, max, target_ci}`): per adaptive scenario
 * and host pair, which trial numbers hold an ok record with its headline figure, and which this
 * invocation has tried; the decision (common/trials.h) read from that at each pass's start.
 *
 * The state is fed only by what the journal holds: on resume from results.jsonl, then by every
 * record the runner writes. So the decision is a function of the journal's recorded results:
 * a run killed and resumed decides as an uninterrupted one would from the same records.
 *
 * The rules (netsurvey-plan(5), ADAPTIVE TRIALS):
 *  - a pair is done when trials_done says so over its ok trials (their figures added in trial
 *    number order, as the reports add them); failed trials count toward neither min nor max;
 *  - a pair that is not done takes, in each pass of its scenario, the lowest trial number
 *    1..max that has no ok record and was not tried by this invocation: a failed trial is
 *    replaced by the next number at once, and tried again (under its own number) only by a
 *    resume, and only while its pair is not done; so an invocation runs each number at most
 *    once, and stops a pair whose every try fails at max.
 * Internal to src/survey. */
#ifndef NS_SURVEY_ADAPT_H
#define NS_SURVEY_ADAPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/stats.h"

struct plan;
struct schedule;
struct survey_adapt;

/* The state for p's adaptive scenarios over s's pairs (both borrowed, outliving it); *out is
 * NULL when p has none. Returns 0 or NS_ENOMEM. */
int survey_adapt_new(const struct plan *p, const struct schedule *s, struct survey_adapt **out);
void survey_adapt_free(struct survey_adapt *a);

/* Whether scenario sc is adaptive (a may be NULL: none is). */
bool survey_adapt_on(const struct survey_adapt *a, uint32_t sc);

/* The schedule pair index of (src, dst), or -1 when it is none of the schedule's pairs. */
long survey_adapt_pair(const struct survey_adapt *a, uint32_t src, uint32_t dst);

/* A record of trial `trial` of pair i in scenario sc, in the journal's order: status_ok with
 * has_value (its headline figure, journal_headline) makes it an ok trial; status_ok without a
 * figure makes it a failed one (the reports count it so); a failed record changes nothing (an
 * ok record of the same number stays: the journal's last ok record wins). Numbers outside
 * 1..max are ignored. */
void survey_adapt_record(struct survey_adapt *a, uint32_t sc, size_t i, uint32_t trial,
                         bool status_ok, bool has_value, double value);

/* The stats of pair i's ok trials (added in trial-number order) and whether it is done. */
bool survey_adapt_done(const struct survey_adapt *a, uint32_t sc, size_t i, struct stats *st);

/* The trial number pair i takes next in this invocation (0: done, or every number tried), and
 * marking it tried when it is dispatched. */
uint32_t survey_adapt_next(const struct survey_adapt *a, uint32_t sc, size_t i);
void survey_adapt_tried(struct survey_adapt *a, uint32_t sc, size_t i, uint32_t trial);

/* What pair i may still run in this invocation, with `passes` passes of its scenario left: at
 * least *lo trials (min not reached yet, or one more), at most *hi (every number left). */
void survey_adapt_left(const struct survey_adapt *a, uint32_t sc, size_t i, uint32_t passes,
                       uint32_t *lo, uint32_t *hi);

/* Ok trials of pair i (those with a figure). */
uint32_t survey_adapt_ok_count(const struct survey_adapt *a, uint32_t sc, size_t i);

#endif
