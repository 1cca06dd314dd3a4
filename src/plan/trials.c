/* trials.c - a plan's `trials`: a whole number (that many trials of every pair), or netperf's
 * "-i max,min -I 95,width" as a mapping, `{min: 3, max: 10, target_ci: 2%}`: min trials of every
 * pair, then more of a pair while the 95 % confidence interval of its mean is wider than
 * target_ci of the mean, up to max (common/trials.h decides). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plan/fields.h"

/* An interval needs two values; the same cap as a fixed count. */
#define TRIALS_MIN_ADAPTIVE 2
#define TARGET_MAX_PCT 100.0

struct trials_raw {
    unsigned min, max;
};

enum { TF_MIN, TF_MAX, TF_TARGET, TF_COUNT };

static const struct fdesc trial_fields[TF_COUNT] = {
    [TF_MIN] = {.key = "min",
                .type = FT_UINT,
                .off = offsetof(struct trials_raw, min),
                .required = true,
                .min = TRIALS_MIN_ADAPTIVE,
                .max = PLAN_MAX_TRIALS,
                .range = "2..1000"},
    [TF_MAX] = {.key = "max",
                .type = FT_UINT,
                .off = offsetof(struct trials_raw, max),
                .required = true,
                .min = TRIALS_MIN_ADAPTIVE,
                .max = PLAN_MAX_TRIALS,
                .range = "2..1000"},
    [TF_TARGET] = {.key = "target_ci", .type = FT_NODE, .required = true},
};

const struct fdesc *
plan_trial_fields(size_t *n)
{
    *n = TF_COUNT;
    return trial_fields;
}

/* "2%", "0.5%", "0.0001%": a percentage of the mean, above 0 and at most 100. */
static bool
target_read(struct vctx *c, const struct ynode *n, double *out)
{
    const char *s = plan_vscalar(c, n, "target_ci");
    if (s == NULL)
        return false;
    size_t len = strlen(s);
    char *end = NULL;
    errno = 0;
    double pct = len > 1 && s[len - 1] == '%' ? strtod(s, &end) : NAN;
    if (end != s + len - 1 || errno != 0 || !isfinite(pct) ||
        strchr("+-0123456789.", s[0]) == NULL) {
        plan_verr(c, n,
                  "invalid target_ci '%s': expected a percentage of the mean such as 2%% or 0.5%%",
                  s);
        return false;
    }
    if (!(pct > 0.0) || pct > TARGET_MAX_PCT) {
        plan_verr(c, n, "target_ci %s out of range: above 0%% and at most 100%%", s);
        return false;
    }
    *out = pct / 100.0;
    return true;
}

static bool
trials_mapping(struct vctx *c, const struct ynode *n, struct trials_policy *out)
{
    struct fvals v;
    if (!plan_fields_collect(c, n, trial_fields, TF_COUNT, UINT32_MAX, &v, "trials"))
        return false;
    plan_fields_require(c, n, trial_fields, TF_COUNT, &v, "trials");
    struct trials_raw raw = {0};
    uint32_t given = v.set;
    plan_fields_store(c, trial_fields, TF_COUNT, &v, &raw);
    double target = 0;
    const uint32_t counts = 1u << TF_MIN | 1u << TF_MAX, all = counts | 1u << TF_TARGET;
    bool ok = (given & all) == all && (v.set & counts) == counts;
    if (v.val[TF_TARGET] != NULL && !target_read(c, v.val[TF_TARGET], &target))
        ok = false;
    if ((v.set & counts) == counts && raw.max < raw.min) {
        plan_verr(c, v.val[TF_MAX], "max %u is below min %u", raw.max, raw.min);
        ok = false;
    }
    if (ok)
        *out = (struct trials_policy){.min = raw.min, .max = raw.max, .target = target};
    return ok;
}

bool
plan_trials_store(struct vctx *c, const struct fdesc *f, const struct ynode *n, void *obj)
{
    struct trials_policy *out = (struct trials_policy *)(void *)((char *)obj + f->off);
    if (n->kind == YNODE_MAP)
        return trials_mapping(c, n, out);
    if (n->kind == YNODE_SEQ) {
        plan_verr(c, n,
                  "wrong type for %s: expected a whole number or {min: N, max: N, target_ci: P%%}, "
                  "found a list",
                  f->key);
        return false;
    }
    const char *s = plan_vscalar(c, n, f->key);
    if (s == NULL)
        return false;
    bool neg = s[0] == '-';
    const char *digits = neg ? s + 1 : s;
    if (digits[0] == '\0' || strspn(digits, "0123456789") != strlen(digits)) {
        plan_verr(c, n,
                  "invalid %s '%s': expected a whole number, or {min: N, max: N, target_ci: P%%}",
                  f->key, s);
        return false;
    }
    char *end;
    errno = 0;
    unsigned long long u = strtoull(digits, &end, 10);
    if (neg || errno != 0 || u < 1 || u > PLAN_MAX_TRIALS) {
        plan_verr(c, n, "%s %s out of range 1..1000", f->key, s);
        return false;
    }
    *out = trials_fixed((uint32_t)u);
    return true;
}
