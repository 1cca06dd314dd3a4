/* gate.c - compare's verdicts: Welch per cell, adjusted over the family of compared cells, a
 * minimum effect, and equivalence by two one-sided tests (gate.h says the rules). */
#include "history/gate.h"

#include <math.h>
#include <stdlib.h>

#include "common/errors.h"

const char *
history_verdict_key(enum history_verdict v)
{
    switch (v) {
    case HISTORY_VERDICT_WORSE:
        return "worse";
    case HISTORY_VERDICT_BETTER:
        return "better";
    case HISTORY_VERDICT_SAME:
        return "same";
    case HISTORY_VERDICT_INCONCLUSIVE:
        return "inconclusive";
    case HISTORY_VERDICT_TOO_FEW:
        break;
    }
    return "too-few-trials";
}

/* The relative change and the raw tests of one cell; NaN p-values when it cannot be tested. */
static void
gate_test(struct history_gate_cell *c, double min_effect_pct)
{
    double ma = c->a.mean, mb = c->b.mean;
    if (ma != 0.0)
        c->delta_pct = (mb - ma) / fabs(ma) * 100.0;
    else
        c->delta_pct = mb == 0.0 ? 0.0 : mb > 0 ? INFINITY : -INFINITY;
    c->worse_by_pct = c->lower_is_better ? c->delta_pct : -c->delta_pct;
    c->p = c->p_tost = NAN;
    struct stats_welch w;
    if (stats_welch_test(&c->a, &c->b, &w) != 0)
        return;
    c->p = w.p;
    double p;
    /* the margin is min_effect % of the baseline's mean, taken as known (as the delta is) */
    if (min_effect_pct > 0 &&
        stats_tost_welch(&c->a, &c->b, min_effect_pct / 100.0 * fabs(ma), &p) == 0)
        c->p_tost = p;
}

static void
gate_verdict(struct history_gate_cell *c, const struct history_gate_params *prm)
{
    c->regression = false;
    if (isnan(c->p)) {
        c->verdict = HISTORY_VERDICT_TOO_FEW;
        return;
    }
    bool big = fabs(c->delta_pct) >= prm->min_effect_pct;
    if (c->p_adj < prm->alpha && big && c->worse_by_pct > 0) {
        c->verdict = HISTORY_VERDICT_WORSE;
        c->regression = c->worse_by_pct > prm->max_regression_pct;
    } else if (c->p_adj < prm->alpha && big && c->worse_by_pct < 0) {
        c->verdict = HISTORY_VERDICT_BETTER;
    } else if (!isnan(c->p_tost_adj) && c->p_tost_adj < prm->alpha) {
        c->verdict = HISTORY_VERDICT_SAME;
    } else {
        c->verdict = HISTORY_VERDICT_INCONCLUSIVE;
    }
}

int
history_gate_decide(struct history_gate_cell *c, size_t n, const struct history_gate_params *prm)
{
    double *p = malloc((n ? n : 1) * 2 * sizeof *p);
    if (p == NULL)
        return NS_ENOMEM;
    double *q = p + n;
    for (size_t i = 0; i < n; i++) {
        gate_test(&c[i], prm->min_effect_pct);
        p[i] = c[i].p;
        q[i] = c[i].p_tost;
    }
    /* Two families over the same cells: the tests of a change and those of equivalence (a
     * cell's two claims exclude each other, gate.h). */
    if (stats_p_adjust(prm->correction, p, n, p) != 0 ||
        stats_p_adjust(prm->correction, q, n, q) != 0) {
        free(p);
        return NS_ENOMEM;
    }
    for (size_t i = 0; i < n; i++) {
        c[i].p_adj = p[i];
        c[i].p_tost_adj = q[i];
        gate_verdict(&c[i], prm);
    }
    free(p);
    return 0;
}
