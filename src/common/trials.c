/* trials.c - the trial policy's decision (see trials.h). */
#include "common/trials.h"

#include <math.h>

struct trials_policy
trials_fixed(uint32_t n)
{
    return (struct trials_policy){.min = n, .max = n, .target = 0.0};
}

bool
trials_adaptive(const struct trials_policy *p)
{
    return p->target > 0.0;
}

double
trials_ci_relative(const struct stats *ok)
{
    if (ok->n < 2)
        return INFINITY;
    double hw = stats_ci_halfwidth(ok, TRIALS_LEVEL), m = fabs(stats_mean(ok));
    if (m == 0.0)
        return hw == 0.0 ? 0.0 : INFINITY;
    return hw / m;
}

bool
trials_target_met(const struct trials_policy *p, const struct stats *ok)
{
    if (!trials_adaptive(p) || ok->n < p->min || ok->n < 2)
        return false;
    /* hw <= target * |mean| rather than a ratio: no division, and a zero mean with no spread
     * meets any target */
    return stats_ci_halfwidth(ok, TRIALS_LEVEL) <= p->target * fabs(stats_mean(ok));
}

bool
trials_done(const struct trials_policy *p, const struct stats *ok)
{
    return ok->n >= p->max || trials_target_met(p, ok);
}
