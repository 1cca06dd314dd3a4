/* gate.h - what compare decides, apart from reading and writing (internal to src/history): the
 * verdict of each matched zone cell and whether it fails the gate. Pure arithmetic over the
 * cells' trial moments, so that a simulation can check the error rates it promises (tests/report/
 * test_gate.c); netsurvey(1)'s COMPARE says the same rules in words.
 *
 * Per cell, with d the change of the mean in per cent of the baseline's (in the metric's bad
 * direction: higher RTT, lower throughput or connection rate), m = min_effect_pct and p the
 * two-sided Welch p-value adjusted over the family of compared cells:
 *   worse         p < alpha, d > 0 and |d| >= m
 *   better        p < alpha, d < 0 and |d| >= m
 *   same          m > 0 and the two one-sided tests of equivalence within +-m % of the
 *                 baseline's mean reject at alpha (their p adjusted over the same family)
 *   inconclusive  neither: no significant change, or one smaller than m not shown equivalent
 *   too few       fewer than 2 trials on a side: not tested, no member of the family
 * A worse cell is a regression when d > max_regression_pct. */
#ifndef NS_HISTORY_GATE_H
#define NS_HISTORY_GATE_H

#include <stdbool.h>
#include <stddef.h>

#include "common/stats.h"

enum history_verdict {
    HISTORY_VERDICT_TOO_FEW,
    HISTORY_VERDICT_WORSE,
    HISTORY_VERDICT_BETTER,
    HISTORY_VERDICT_SAME,
    HISTORY_VERDICT_INCONCLUSIVE,
};

struct history_gate_params {
    double alpha;                 /* family-wise level of the tests (0.05) */
    enum stats_adjust correction; /* how the p-values of the family are adjusted */
    double min_effect_pct;        /* >= 0: smaller changes are never worse or better */
    double max_regression_pct;    /* >= 0: a worse cell beyond it fails the gate */
};

struct history_gate_cell {
    /* given */
    struct stats a, b; /* the baseline's and the new run's trial values */
    bool lower_is_better;
    /* decided by history_gate_decide */
    double delta_pct;          /* (mean b - mean a) / |mean a| in %; +-inf when mean a is 0 */
    double worse_by_pct;       /* delta_pct in the metric's bad direction */
    double p, p_adj;           /* Welch's two-sided p, and adjusted; NaN when too few trials */
    double p_tost, p_tost_adj; /* equivalence within +-min_effect; NaN when untested */
    enum history_verdict verdict;
    bool regression;
};

/* Decide every cell of c[0..n): one family for the correction. Returns 0, or NS_ENOMEM. */
int history_gate_decide(struct history_gate_cell *c, size_t n,
                        const struct history_gate_params *prm);

/* The verdict's word in compare's outputs: "worse", "better", "same", "inconclusive",
 * "too-few-trials" (also its CSS class and its JUnit figures). */
const char *history_verdict_key(enum history_verdict v);

#endif
