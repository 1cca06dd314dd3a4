/* sweep.c - a sweep's curves (see sweep.h). */
#include "report/sweep.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/errors.h"
#include "common/testspec.h"
#include "journal/record.h"
#include "report/reportint.h"

/* --- the axis ------------------------------------------------------------------------------ */

static bool
power_of_two(double v)
{
    int ex;
    return v >= 1 && frexp(v, &ex) == 0.5;
}

enum sweep_axis
report_sweep_axis(const double *values, size_t n)
{
    bool pow2 = n > 1, positive = n > 1;
    double lo = INFINITY, hi = 0;
    for (size_t i = 0; i < n; i++) {
        pow2 = pow2 && power_of_two(values[i]);
        positive = positive && values[i] > 0;
        lo = fmin(lo, values[i]);
        hi = fmax(hi, values[i]);
    }
    if (pow2)
        return SWEEP_AXIS_LOG2;
    return positive && hi / lo >= 100 ? SWEEP_AXIS_LOG10 : SWEEP_AXIS_LINEAR;
}

const char *
report_sweep_axis_name(enum sweep_axis a)
{
    return a == SWEEP_AXIS_LOG2 ? "log2" : a == SWEEP_AXIS_LOG10 ? "log10" : "linear";
}

/* --- the summary --------------------------------------------------------------------------- */

/* One sweep: the scenarios (indexes into the summary's) of its values, ascending by value. */
struct sweep {
    const char *name, *family, *param; /* family NULL: not yet known */
    size_t *idx;
    double *val;
    size_t n, cap;
};

struct sweeps {
    struct sweep *v;
    size_t n, cap;
};

static void
sweeps_release(struct sweeps *l)
{
    for (size_t i = 0; i < l->n; i++) {
        free(l->v[i].idx);
        free(l->v[i].val);
    }
    free(l->v);
}

static bool
str_eq(const char *a, const char *b)
{
    return a != NULL && b != NULL && strcmp(a, b) == 0;
}

static int
sweep_add(struct sweep *w, size_t idx, double value)
{
    for (size_t i = 0; i < w->n; i++)
        if (w->val[i] == value)
            return 0; /* a value once (one family's scenario of it) */
    if (w->n == w->cap) {
        size_t cap = w->cap ? 2 * w->cap : 8;
        size_t *ni = realloc(w->idx, cap * sizeof *ni);
        if (ni == NULL)
            return NS_ENOMEM;
        w->idx = ni;
        double *nv = realloc(w->val, cap * sizeof *nv);
        if (nv == NULL)
            return NS_ENOMEM;
        w->val = nv;
        w->cap = cap;
    }
    size_t at = w->n++;
    while (at > 0 && w->val[at - 1] > value) {
        w->val[at] = w->val[at - 1];
        w->idx[at] = w->idx[at - 1];
        at--;
    }
    w->val[at] = value;
    w->idx[at] = idx;
    return 0;
}

static struct sweep *
sweep_of(struct sweeps *l, const char *name, const char *family, const char *param)
{
    for (size_t i = 0; i < l->n; i++)
        if (str_eq(l->v[i].name, name) && str_eq(l->v[i].param, param) &&
            str_eq(l->v[i].family, family))
            return &l->v[i];
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 4;
        struct sweep *nv = realloc(l->v, cap * sizeof *nv);
        if (nv == NULL)
            return NULL;
        l->v = nv;
        l->cap = cap;
    }
    struct sweep *w = &l->v[l->n++];
    *w = (struct sweep){.name = name, .family = family, .param = param};
    return w;
}

/* The sweeps of the summary's scenarios: each value's scenario of a family in its sweep; a
 * value of which nothing was recorded (no family) in every family's sweep of its name. */
static int
sweeps_find(const json_t *scens, struct sweeps *l)
{
    size_t i;
    const json_t *s;
    for (int pass = 0; pass < 2; pass++) {
        json_array_foreach(scens, i, s)
        {
            const json_t *sw = json_object_get(s, "sweep");
            const char *fam = json_string_value(json_object_get(s, "family"));
            if (sw == NULL || (pass == 0) != (fam != NULL))
                continue;
            const char *name = js(s, "name"), *param = js(sw, "param");
            double v = jd(sw, "value");
            for (size_t k = 0; pass == 1 && k < l->n; k++)
                if (str_eq(l->v[k].name, name) && str_eq(l->v[k].param, param) &&
                    sweep_add(&l->v[k], i, v) != 0)
                    return NS_ENOMEM;
            struct sweep *w = pass == 0 ? sweep_of(l, name, fam, param) : NULL;
            if (pass == 0 && (w == NULL || sweep_add(w, i, v) != 0))
                return NS_ENOMEM;
        }
    }
    return 0;
}

/* A point of one value: {"value", "n"} and, with an ok trial, its figures. */
static json_t *
point_obj(const json_t *value, const json_t *cell)
{
    json_int_t n = cell != NULL ? ji(cell, "n") : 0;
    json_t *p = json_pack("{s:O,s:I}", "value", value, "n", n);
    static const char *const figs[] = {"mean", "ci95_low", "ci95_high", "median"};
    for (size_t i = 0; p != NULL && n > 0 && i < sizeof figs / sizeof figs[0]; i++)
        json_object_set(p, figs[i], json_object_get(cell, figs[i]));
    return p;
}

/* The member of list (zone_cells or pairs) whose a and b members are ka and kb, or NULL. */
static const json_t *
entry_find(const json_t *list, const char *a, const char *ka, const char *b, const char *kb)
{
    size_t i;
    const json_t *c;
    json_array_foreach(list, i, c)
    {
        if (str_eq(js(c, a), ka) && str_eq(js(c, b), kb))
            return c;
    }
    return NULL;
}

/* The curves of one list member (zone_cells, pairs) of the values' scenarios: one per (a, b)
 * that any value measured, in the order they first come, a point for every value. keep names
 * the members each curve copies. */
static json_t *
curves(const json_t *scens, const struct sweep *w, const char *list, const char *a, const char *b,
       const char *const *keep, size_t nkeep)
{
    json_t *out = json_array();
    for (size_t v = 0; out != NULL && v < w->n; v++) {
        size_t i;
        const json_t *c;
        json_array_foreach(json_object_get(json_array_get(scens, w->idx[v]), list), i, c)
        {
            if (entry_find(out, a, js(c, a), b, js(c, b)) != NULL)
                continue;
            json_t *curve = json_object();
            for (size_t k = 0; k < nkeep; k++)
                json_object_set(curve, keep[k], json_object_get(c, keep[k]));
            json_t *pts = json_array();
            for (size_t u = 0; u < w->n; u++) {
                const json_t *su = json_array_get(scens, w->idx[u]);
                const json_t *cu = entry_find(json_object_get(su, list), a, js(c, a), b, js(c, b));
                json_array_append_new(
                    pts, point_obj(json_object_get(json_object_get(su, "sweep"), "value"), cu));
            }
            json_object_set_new(curve, "points", pts);
            json_array_append_new(out, curve);
        }
    }
    return out;
}

/* The sweep's file key: its name, and its family when the name has a sweep of each. */
static void
sweep_key(const struct sweeps *l, const struct sweep *w, char *key, size_t len)
{
    bool both = false;
    for (size_t i = 0; i < l->n; i++)
        both |= &l->v[i] != w && str_eq(l->v[i].name, w->name) && str_eq(l->v[i].param, w->param);
    report_scenario_key(key, len, w->name, NULL, both ? w->family : NULL);
}

static json_t *
sweep_summary(const json_t *scens, const struct sweeps *l, const struct sweep *w)
{
    const json_t *first = json_array_get(scens, w->idx[0]);
    char key[256];
    sweep_key(l, w, key, sizeof key);
    json_t *vals = json_array();
    for (size_t v = 0; v < w->n; v++)
        json_array_append(
            vals,
            json_object_get(json_object_get(json_array_get(scens, w->idx[v]), "sweep"), "value"));
    static const char *const cell_keys[] = {"src_zone", "dst_zone"};
    static const char *const pair_keys[] = {"src", "dst", "src_zone", "dst_zone"};
    return json_pack("{s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:o,s:s,s:o,s:o}", "name", w->name, "test",
                     js(first, "test"), "family", w->family, "file_key", key, "param", w->param,
                     "metric", js(first, "metric"), "unit", js(first, "unit"), "values", vals,
                     "axis", report_sweep_axis_name(report_sweep_axis(w->val, w->n)), "cells",
                     curves(scens, w, "zone_cells", "src_zone", "dst_zone", cell_keys, 2), "pairs",
                     curves(scens, w, "pairs", "src", "dst", pair_keys, 4));
}

/* --- the view ------------------------------------------------------------------------------ */

/* A point as a table shows it, in the table's one unit sc: "5.32 ± 0.41" (the mean, ± the
 * interval's half-width when there is one), "failed", "not run", or "—" where the cell was not
 * measured at that value. */
static json_t *
point_text(const struct testspec_scale *sc, const json_t *p, const json_t *cell)
{
    char m[64], h[64];
    if (cell == NULL)
        return json_string("—");
    if (ji(p, "n") == 0)
        return json_string(ji(cell, "failed") > 0 ? "failed" : "not run");
    testspec_scale_text(sc, jd(p, "mean"), m, sizeof m);
    if (ji(p, "n") < 2)
        return json_string(m);
    testspec_scale_text(sc, (jd(p, "ci95_high") - jd(p, "ci95_low")) / 2, h, sizeof h);
    return report_jprintf("%s ± %s", m, h);
}

/* The one unit of a sweep's table: for the means of its points, as a matrix's for its cells. */
static struct testspec_scale
table_scale(enum testspec_kind k, const json_t *ss)
{
    struct rvals vals = {0};
    size_t i, j;
    const json_t *c, *p;
    json_array_foreach(json_object_get(ss, "cells"), i, c)
    {
        json_array_foreach(json_object_get(c, "points"), j, p)
        {
            if (ji(p, "n") > 0)
                report_vals_add(&vals, jd(p, "mean"));
        }
    }
    struct testspec_scale sc = report_scale(testspec_kind_metric(k), vals.v, vals.n);
    report_vals_release(&vals);
    return sc;
}

static json_t *
sweep_view(const json_t *scens, const struct sweep *w, const json_t *ss)
{
    int param = journal_param_find(js(ss, "param"));
    enum testspec_kind k = (enum testspec_kind)testspec_kind_find(js(ss, "test"));
    const char *pkey = param >= 0 ? testspec_key((enum testspec_param)param) : js(ss, "param");
    struct testspec_scale sc = table_scale(k, ss);
    json_t *cols = json_array(), *rows = json_array();
    for (size_t v = 0; v < w->n; v++) {
        char t[48];
        testspec_value_text((enum testspec_param)(param >= 0 ? param : 0), w->val[v], t, sizeof t);
        json_array_append_new(cols, json_pack("{s:s}", "text", t));
    }
    size_t i;
    const json_t *c;
    json_array_foreach(json_object_get(ss, "cells"), i, c)
    {
        json_t *cells = json_array();
        for (size_t v = 0; v < w->n; v++) {
            const json_t *sv = json_array_get(scens, w->idx[v]);
            const json_t *cell = entry_find(json_object_get(sv, "zone_cells"), "src_zone",
                                            js(c, "src_zone"), "dst_zone", js(c, "dst_zone"));
            const json_t *p = json_array_get(json_object_get(c, "points"), v);
            json_array_append_new(cells, json_pack("{s:o}", "text", point_text(&sc, p, cell)));
        }
        json_array_append_new(
            rows, json_pack("{s:o,s:o}", "label",
                            report_jprintf("%s → %s", js(c, "src_zone"), js(c, "dst_zone")),
                            "cells", cells));
    }
    json_t *note = report_jprintf(
        "Each of the %zu values of %s ran its own trials over every host pair (its scenario "
        "section below has its matrices and pairs). A cell is the mean of the zone cell's "
        "trials at that value (%s), ± the 95 %% confidence interval.",
        w->n, pkey, sc.unit);
    return json_pack("{s:s,s:s,s:s,s:s,s:s,s:s,s:o,s:o,s:o,s:[]}", "name", w->name, "test",
                     js(ss, "test"), "family", w->family, "file_key", js(ss, "file_key"), "metric",
                     js(ss, "metric"), "param", pkey, "note", note, "cols", cols, "rows", rows,
                     "charts");
}

int
report_sweeps(json_t *sum, json_t *view)
{
    const json_t *scens = json_object_get(sum, "scenarios");
    struct sweeps l = {0};
    int rc = sweeps_find(scens, &l);
    json_t *ss = json_array(), *vs = json_array();
    for (size_t i = 0; rc == 0 && i < l.n; i++) {
        json_t *s = sweep_summary(scens, &l, &l.v[i]);
        json_t *v = s != NULL ? sweep_view(scens, &l.v[i], s) : NULL;
        if (s == NULL || v == NULL || json_array_append_new(ss, s) != 0 ||
            json_array_append_new(vs, v) != 0)
            rc = NS_ENOMEM;
    }
    sweeps_release(&l);
    if (rc == 0 && json_array_size(ss) > 0) { /* a report without a sweep reads as before */
        json_object_set(sum, "sweeps", ss);
        json_object_set(view, "sweeps", vs);
    }
    json_decref(ss);
    json_decref(vs);
    return rc;
}

/* --- CSV ----------------------------------------------------------------------------------- */

static void
csv_number(struct rbuf *b, const json_t *p, const char *k)
{
    const json_t *v = json_object_get(p, k);
    report_buf_puts(b, ",");
    if (json_is_number(v))
        report_buf_printf(b, "%.3f", json_number_value(v));
}

int
report_sweep_csvs(const char *dir, const json_t *sum, struct err *e)
{
    size_t i;
    const json_t *w;
    json_array_foreach(json_object_get(sum, "sweeps"), i, w)
    {
        struct rbuf b;
        report_buf_init(&b);
        report_buf_puts(&b, "src_zone,dst_zone,");
        report_buf_csv_field(&b, js(w, "param"));
        report_buf_puts(&b, ",n,mean,ci95_low,ci95_high,median,unit\n");
        size_t c;
        const json_t *cell;
        json_array_foreach(json_object_get(w, "cells"), c, cell)
        {
            size_t k;
            const json_t *p;
            json_array_foreach(json_object_get(cell, "points"), k, p)
            {
                report_buf_csv_field(&b, js(cell, "src_zone"));
                report_buf_puts(&b, ",");
                report_buf_csv_field(&b, js(cell, "dst_zone"));
                report_buf_printf(&b, ",%.17g,%lld", jd(p, "value"), (long long)ji(p, "n"));
                csv_number(&b, p, "mean");
                csv_number(&b, p, "ci95_low");
                csv_number(&b, p, "ci95_high");
                csv_number(&b, p, "median");
                report_buf_puts(&b, ",");
                report_buf_csv_field(&b, js(w, "unit"));
                report_buf_puts(&b, "\n");
            }
        }
        char path[4096];
        snprintf(path, sizeof path, "%s/sweep-%s.csv", dir, js(w, "file_key"));
        int rc = report_write_file(path, &b, e);
        report_buf_release(&b);
        if (rc != 0)
            return rc;
    }
    return 0;
}

/* --- charts -------------------------------------------------------------------------------- */

/* The unit a curve chart draws its figures in: the one for its largest figure, as the closing
 * matrices of `netsurvey run` choose it (report_unit_for), one unit for the whole figure. */
static struct report_unit
sweep_scale(const char *test, double top)
{
    return report_unit_for(test, top);
}

/* The curves' figures, largest and smallest (CI ends included), over the points with a figure. */
static void
curves_range(const json_t *list, size_t from, size_t to, double *lo, double *hi, double *top)
{
    *lo = 0, *hi = 0, *top = 0;
    for (size_t c = from; c < to; c++) {
        size_t k;
        const json_t *p;
        json_array_foreach(json_object_get(json_array_get(list, c), "points"), k, p)
        {
            if (ji(p, "n") == 0)
                continue;
            *lo = fmin(*lo, fmin(jd(p, "ci95_low"), jd(p, "mean")));
            *hi = fmax(*hi, fmax(jd(p, "ci95_high"), jd(p, "mean")));
            *top = fmax(*top, fabs(jd(p, "mean")));
        }
    }
}

/* What the x axis says of the parameter: "msg_size (bytes, log2 axis)". */
static void
x_label(const json_t *w, enum sweep_axis ax, char *buf, size_t len)
{
    int p = journal_param_find(js(w, "param"));
    enum testspec_type t = p >= 0 ? testspec_type((enum testspec_param)p) : TESTSPEC_COUNT;
    const char *unit = t == TESTSPEC_SIZE ? "bytes" : t == TESTSPEC_RATE ? "bit/s" : NULL;
    const char *key = p >= 0 ? testspec_key((enum testspec_param)p) : js(w, "param");
    const char *axis = ax == SWEEP_AXIS_LOG2    ? "log2 axis"
                       : ax == SWEEP_AXIS_LOG10 ? "log10 axis"
                                                : NULL;
    snprintf(buf, len, "%s%s%s%s%s%s", key, unit || axis ? " (" : "", unit ? unit : "",
             unit && axis ? ", " : "", axis ? axis : "", unit || axis ? ")" : "");
}

/* One chart of curves list[from..to) of sweep w: their data blocks (value, mean, CI low, CI
 * high, n; a value without an ok trial left out) and the script that draws each as a line
 * through its means with the CI as error bars, the legend outside the plot area. */
static int
chart_curves(struct rchart *cx, const json_t *w, const json_t *list, size_t from, size_t to,
             bool pairs, const char *kind, json_t *charts, struct err *e)
{
    const json_t *vals = json_object_get(w, "values");
    size_t nv = json_array_size(vals);
    double v[TESTSPEC_SWEEP_MAX_VALUES];
    for (size_t i = 0; i < nv && i < TESTSPEC_SWEEP_MAX_VALUES; i++)
        v[i] = json_number_value(json_array_get(vals, i));
    enum sweep_axis ax = report_sweep_axis(v, nv < TESTSPEC_SWEEP_MAX_VALUES ? nv : 0);
    double lo, hi, top;
    curves_range(list, from, to, &lo, &hi, &top);
    struct report_unit sc = sweep_scale(js(w, "test"), top);
    struct rbuf d, s;
    report_buf_init(&d);
    report_buf_init(&s);
    for (size_t c = from; c < to; c++) {
        const json_t *cv = json_array_get(list, c);
        report_buf_printf(&d, "%s# ", c > from ? "\n\n" : "");
        report_buf_puts(&d, pairs ? js(cv, "src") : js(cv, "src_zone"));
        report_buf_puts(&d, " -> ");
        report_buf_puts(&d, pairs ? js(cv, "dst") : js(cv, "dst_zone"));
        report_buf_puts(&d, "\n# value mean ci95_low ci95_high n\n");
        size_t i;
        const json_t *p;
        json_array_foreach(json_object_get(cv, "points"), i, p)
        {
            if (ji(p, "n") > 0)
                report_buf_printf(&d, "%.17g %.6g %.6g %.6g %lld\n", jd(p, "value"),
                                  jd(p, "mean") / sc.div, jd(p, "ci95_low") / sc.div,
                                  jd(p, "ci95_high") / sc.div, (long long)ji(p, "n"));
        }
    }
    char key[300], title[512], xl[128];
    snprintf(key, sizeof key, "%s", js(w, "file_key"));
    snprintf(title, sizeof title, "%s: %s against %s, per %s", js(w, "name"), js(w, "metric"),
             js(w, "param"), pairs ? "host pair" : "zone cell");
    report_buf_printf(&s,
                      "# sweep chart of scenario %s, written by netsurvey report; edit and run\n"
                      "#   gnuplot %s-%s.gp\nset encoding utf8\nset terminal svg size %d,%d "
                      "noenhanced font \"sans,%d\" background \"white\"\nset output "
                      "\"%s-%s.svg\"\nset title ",
                      key, kind, key, REPORT_CHART_W, REPORT_CHART_H, REPORT_CHART_FONT, kind, key);
    report_chart_script_str(&s, title);
    x_label(w, ax, xl, sizeof xl);
    report_buf_puts(&s,
                    "\nset grid xtics ytics lc rgb \"#dddddd\"\nset border 3\nset tics nomirror\n"
                    "set key outside right top vertical Left reverse\nset xlabel ");
    report_chart_script_str(&s, xl);
    report_buf_puts(&s, "\nset ylabel ");
    char yl[128];
    snprintf(yl, sizeof yl, "%s (%s)", js(w, "metric"), sc.name);
    report_chart_script_str(&s, yl);
    if (ax != SWEEP_AXIS_LINEAR)
        report_buf_printf(&s, "\nset logscale x %d", ax == SWEEP_AXIS_LOG2 ? 2 : 10);
    /* the x range a little past the ends, on the axis's own scale; the y range from zero (or
     * the lowest CI end below it) to past the highest CI end: every interval whole inside */
    double x0 = v[0], x1 = nv > 0 ? v[nv - 1] : 1;
    if (ax != SWEEP_AXIS_LINEAR)
        report_buf_printf(&s, "\nset xrange [%.17g:%.17g]", x0 / 1.25, x1 * 1.25);
    else
        report_buf_printf(&s, "\nset xrange [%.17g:%.17g]", x0 - (x1 - x0) * 0.05 - (x1 == x0),
                          x1 + (x1 - x0) * 0.05 + (x1 == x0));
    double ylo = lo / sc.div, yhi = hi / sc.div;
    if (!(yhi > ylo))
        yhi = ylo + 1;
    report_buf_printf(&s, "\nset yrange [%.6g:%.6g]\nset xtics (", ylo < 0 ? ylo * 1.05 : 0.0,
                      yhi * 1.08);
    int pi = journal_param_find(js(w, "param"));
    for (size_t i = 0; i < nv; i++) {
        char t[48];
        testspec_value_text((enum testspec_param)(pi >= 0 ? pi : 0), v[i], t, sizeof t);
        report_buf_printf(&s, "%s", i ? ", " : "");
        report_chart_script_str(&s, t);
        report_buf_printf(&s, " %.17g", v[i]);
    }
    report_buf_puts(&s, ")\nplot ");
    for (size_t c = from; c < to; c++) {
        const json_t *cv = json_array_get(list, c);
        char lab[300];
        snprintf(lab, sizeof lab, "%s → %s", pairs ? js(cv, "src") : js(cv, "src_zone"),
                 pairs ? js(cv, "dst") : js(cv, "dst_zone"));
        report_buf_printf(&s,
                          "%s'%s-%s.dat' index %zu using 1:2:3:4 with yerrorlines lw 2 pt 7 ps 0.6 "
                          "title ",
                          c > from ? ", \\\n     " : "", kind, key, c - from);
        report_chart_script_str(&s, lab);
    }
    report_buf_puts(&s, "\n");
    char caption[700];
    snprintf(caption, sizeof caption,
             "%s: %s (%s) against %s, per %s%s: trial means joined by lines, bars the 95 %% "
             "CI; %s x axis, y axis from %s",
             js(w, "name"), js(w, "metric"), sc.name, js(w, "param"),
             pairs ? "host pair" : "zone cell", to - from < json_array_size(list) ? " (part)" : "",
             ax == SWEEP_AXIS_LOG2    ? "log2"
             : ax == SWEEP_AXIS_LOG10 ? "log10"
                                      : "linear",
             ylo < 0 ? "below zero (a CI reaches under it)" : "zero");
    json_t *list_was = cx->list; /* this sweep's charts go to its own list */
    cx->list = charts;
    int rc = report_chart_emit(cx, key, kind, &s, &d, caption, e);
    cx->list = list_was;
    report_buf_release(&d);
    report_buf_release(&s);
    return rc;
}

static int
sweep_charts(struct rchart *cx, const json_t *sum, json_t *view, struct err *e)
{
    size_t i;
    const json_t *w;
    json_array_foreach(json_object_get(sum, "sweeps"), i, w)
    {
        json_t *vw = json_array_get(json_object_get(view, "sweeps"), i);
        json_t *charts = json_array();
        json_object_set_new(vw, "charts", charts);
        const json_t *cells = json_object_get(w, "cells"), *pairs = json_object_get(w, "pairs");
        double lo, hi, top;
        curves_range(cells, 0, json_array_size(cells), &lo, &hi, &top);
        if (hi == 0 && lo == 0) {
            json_object_set_new(vw, "charts_skipped",
                                json_string("No chart: no value of this sweep has an ok trial."));
            continue;
        }
        size_t nc = json_array_size(cells), part = 0;
        for (size_t from = 0; from < nc; from += REPORT_CHART_MAX_CURVES, part++) {
            size_t to = from + REPORT_CHART_MAX_CURVES < nc ? from + REPORT_CHART_MAX_CURVES : nc;
            char kind[32];
            snprintf(kind, sizeof kind, part == 0 ? "sweep" : "sweep%zu", part + 1);
            int rc = chart_curves(cx, w, cells, from, to, false, kind, charts, e);
            if (rc != 0)
                return rc;
        }
        /* per pair where a cell holds several (else the cells' chart is the pairs') */
        size_t np = json_array_size(pairs);
        if (np > nc && np <= REPORT_CHART_MAX_CURVES) {
            int rc = chart_curves(cx, w, pairs, 0, np, true, "sweeppairs", charts, e);
            if (rc != 0)
                return rc;
        }
    }
    return 0;
}

int
report_sweep_charts(const char *outdir, const json_t *sum, json_t *view, FILE *warn, struct err *e)
{
    if (json_array_size(json_object_get(sum, "sweeps")) == 0)
        return 0;
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/charts", outdir);
    struct rchart cx = {.dir = dir, .warn = warn};
    char why[512]; /* report_charts' note says it once for every chart */
    char *gp = report_chart_gnuplot_find("netsurvey report", why, sizeof why);
    cx.gp = gp;
    int rc = sweep_charts(&cx, sum, view, e);
    free(gp);
    if (rc == 0 && cx.failed > 0) { /* beside what report_charts said of the others */
        const char *before = js(view, "charts_note");
        json_object_set_new(view, "charts_note",
                            report_jprintf("%s%s%d sweep chart%s could not be drawn (%s); their "
                                           "scripts and data are in charts/.",
                                           before, *before ? " " : "", cx.failed,
                                           cx.failed == 1 ? "" : "s", cx.firsterr));
    }
    return rc;
}
