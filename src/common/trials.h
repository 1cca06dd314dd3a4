/* trials.h - how many trials a host pair gets: a fixed count, or netperf's "-i max,min -I
 * level,width" for a whole mesh: at least min, then more while the 95 % confidence interval of
 * the trials' mean is wider than a target, up to max.
 *
 * One definition for every layer: the plan reads a policy, the runner decides with it after
 * each trial of a pair, the journal records it, the reports say whether the target was met -
 * all through trials_target_met over the same figures (the reports' headline metric of each ok
 * trial, journal_headline) added in the same order (by trial number), so that the runner's
 * decision and the report's verdict are the same bits. */
#ifndef NS_TRIALS_H
#define NS_TRIALS_H

#include <stdbool.h>
#include <stdint.h>

#include "common/stats.h"

/* The confidence level of the target: the reports' 95 % interval (Student t). */
#define TRIALS_LEVEL 0.95

/* A pair's trials. Fixed: min == max == the count, target 0. Adaptive: target > 0 and
 * 2 <= min <= max (an interval needs two trials). */
struct trials_policy {
    uint32_t min, max;
    double target; /* the largest CI half-width sought, as a fraction of |mean| (2 % = 0.02) */
};

/* A fixed count of n trials. */
struct trials_policy trials_fixed(uint32_t n);

/* Whether the count depends on the results (a target is set). */
bool trials_adaptive(const struct trials_policy *p);

/* The half-width of ok's 95 % interval (stats_ci_halfwidth, as the reports compute it) as a
 * fraction of |mean|; INFINITY with fewer than 2 values or a zero mean and some spread. */
double trials_ci_relative(const struct stats *ok);

/* Whether the ok trials' values (their stats, added in trial-number order) meet the target:
 * at least min of them (and 2), and a 95 % half-width no wider than target x |mean|. Always
 * false for a fixed policy (it has no target). */
bool trials_target_met(const struct trials_policy *p, const struct stats *ok);

/* Whether a pair with these ok trials needs no more: the target is met, or it has max ok
 * trials (a fixed policy: its count). Failed trials are not in ok: they count toward neither
 * min nor max. */
bool trials_done(const struct trials_policy *p, const struct stats *ok);

#endif
