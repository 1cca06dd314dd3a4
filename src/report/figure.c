/* figure.c - one unit per figure: the unit a table or chart of a metric is given in, chosen from
 * the magnitude of its values (common/testspec.h's TESTSPEC_SCALE_MAP), carried in the view so
 * that a table, its chart and their captions say the same unit. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/reportint.h"

/* The k-th smallest of v[0..n) (reordered): selection with a three-way partition. */
static double
select_kth(double *v, size_t n, size_t k)
{
    size_t lo = 0, hi = n; /* k is in [lo, hi) */
    while (hi - lo > 1) {
        double pivot = v[lo + (hi - lo) / 2], t;
        size_t lt = lo, i = lo, gt = hi;
        while (i < gt) {
            if (v[i] < pivot) {
                t = v[lt], v[lt++] = v[i], v[i++] = t;
            } else if (v[i] > pivot) {
                t = v[--gt], v[gt] = v[i], v[i] = t;
            } else {
                i++;
            }
        }
        if (k < lt)
            hi = lt;
        else if (k >= gt)
            lo = gt;
        else
            return pivot;
    }
    return v[lo];
}

double
report_typical(double *v, size_t n)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++) /* |v| of the values that say something of the magnitude */
        if (isfinite(v[i]) && v[i] != 0.0)
            v[m++] = fabs(v[i]);
    return m == 0 ? 0.0 : select_kth(v, m, m / 2);
}

struct testspec_scale
report_scale(enum testspec_metric m, double *v, size_t n)
{
    return testspec_scale_for(m, report_typical(v, n));
}

void
report_vals_add(struct rvals *r, double v)
{
    if (r->oom)
        return;
    if (r->n == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 64;
        double *p = realloc(r->v, cap * sizeof *p);
        if (p == NULL) {
            r->oom = true;
            return;
        }
        r->v = p;
        r->cap = cap;
    }
    r->v[r->n++] = v;
}

void
report_vals_release(struct rvals *r)
{
    free(r->v);
    memset(r, 0, sizeof *r);
}

json_t *
report_scale_json(const struct testspec_scale *s)
{
    return json_pack("{s:s,s:f,s:i}", "unit", s->unit, "factor", s->factor, "decimals",
                     s->decimals);
}

struct testspec_scale
report_scale_of_json(const json_t *o, enum testspec_metric m)
{
    const char *unit = json_string_value(json_object_get(o, "unit"));
    if (unit == NULL)
        return testspec_scale_for(m, 0.0);
    return (struct testspec_scale){unit, json_number_value(json_object_get(o, "factor")),
                                   (int)json_integer_value(json_object_get(o, "decimals"))};
}

json_t *
report_scaled_json(const struct testspec_scale *s, double v)
{
    char b[64];
    return json_string(testspec_scale_text(s, v, b, sizeof b));
}

json_t *
report_fig_caption(const json_t *sview, const char *words, const char *unit)
{
    const char *name = json_string_value(json_object_get(sview, "cap_name")); /* a sweep's too */
    return report_jprintf("%s, %s (%s), %s", name != NULL ? name : js(sview, "name"), words, unit,
                          js(sview, "cap_tail"));
}
