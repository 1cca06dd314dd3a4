/* test_charts.c - the charts as a reader of the SVG sees them, drawn by gnuplot from the fixture
 * journals basic and measures (skipped without gnuplot; CI has it), checked against summary.json:
 *  - the trial dot plot draws one glyph per ok trial and nothing more (no legend key that reads
 *    as a trial), each over its own pair's label, and its .dat has each pair's ok trials;
 *  - the bar chart's y range, as its script sets it, holds every 95 % CI whole and starts at
 *    zero or below; a pair of one trial has no interval (NaN);
 *  - every chart names one unit per dimension, the same in its axis or colour bar, its title and
 *    its caption (the script's first line), and its .dat holds its values in that unit (the
 *    summary's means over the unit's factor; the heat map's cell labels are those numbers, the
 *    cells of report.md's zone matrix, whose caption names the same unit);
 *  - pair labels use "→", and the percentile axis's p25 and p50 labels do not overlap. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>
#include <cmocka.h>

#include "common/errors.h"
#include "common/testspec.h"
#include "report/output.h"
#include "report/report.h"

#include "helpers.h"

static char *tmp;

static int
setup(void **state)
{
    (void)state;
    char j[4096];
    snprintf(j, sizeof j, "%s/tests/fixtures/journals", th_srcdir());
    tmp = th_tempdir("charts");
    return tmp == NULL || chdir(j) != 0;
}

static int
teardown(void **state)
{
    (void)state;
    th_rmtree(tmp);
    free(tmp);
    return 0;
}

/* Render the fixture with gnuplot into tmp/<fixture>; its summary (caller decrefs). */
static json_t *
render(const char *fixture, char *out, size_t len)
{
    snprintf(out, len, "%.4000s/%s", tmp, fixture);
    struct err e = {0};
    const char *dirs[] = {fixture};
    if (report_render(&(struct report_opts){.dirs = dirs, .ndirs = 1, .out = out}, &e) != 0)
        fail_msg("render %s: %s", fixture, e.msg);
    char p[8300];
    snprintf(p, sizeof p, "%.8000s/summary.json", out);
    json_error_t je;
    json_t *sum = json_load_file(p, 0, &je);
    assert_non_null(sum);
    return sum;
}

static char *
chart_file(const char *out, const char *kind, const char *key, const char *ext)
{
    char p[8192];
    snprintf(p, sizeof p, "%s/charts/%s-%s.%s", out, kind, key, ext);
    char *s = th_read(p, NULL);
    if (s == NULL)
        fail_msg("%s: not written", p);
    return s;
}

/* --- what the SVG says ---------------------------------------------------------------------- */

struct svgtext {
    double x, y;
    char t[256];
};

/* Every <text> of an SVG of gnuplot's, with the position of the <g> that holds it. */
static size_t
svg_texts(const char *svg, struct svgtext *out, size_t cap)
{
    size_t n = 0;
    double x = 0, y = 0;
    for (const char *p = svg; (p = strstr(p, "<")) != NULL && n < cap; p++) {
        if (strncmp(p, "<g transform=\"translate(", 24) == 0)
            sscanf(p + 24, "%lf,%lf", &x, &y);
        if (strncmp(p, "<text>", 6) != 0)
            continue;
        const char *e = strstr(p, "</text>");
        assert_non_null(e);
        size_t len = (size_t)(e - p - 6);
        if (len >= sizeof out[n].t)
            len = sizeof out[n].t - 1;
        memcpy(out[n].t, p + 6, len);
        out[n].t[len] = '\0';
        out[n].x = x;
        out[n].y = y;
        n++;
    }
    return n;
}

/* The units of every metric, as TESTSPEC_SCALE_MAP names them. */
static size_t
all_units(const char **u, size_t cap)
{
    size_t n = 0;
    for (int m = 0; m < TESTSPEC_METRIC_COUNT; m++)
        for (double ref = 1e-6; ref < 1e12; ref *= 10) {
            const char *unit = testspec_scale_for((enum testspec_metric)m, ref).unit;
            size_t i = 0;
            while (i < n && strcmp(u[i], unit) != 0)
                i++;
            if (i == n && n < cap)
                u[n++] = unit;
        }
    return n;
}

/* The units named in s as "(unit)": each one once into found. */
static size_t
units_in(const char *s, const char **found, size_t cap)
{
    const char *u[32];
    size_t nu = all_units(u, 32), n = 0;
    for (size_t i = 0; i < nu; i++) {
        char pat[64];
        snprintf(pat, sizeof pat, "(%s)", u[i]);
        if (strstr(s, pat) != NULL && n < cap)
            found[n++] = u[i];
    }
    return n;
}

/* The one unit of a chart: in its SVG's texts (axis or colour bar label, title), in its
 * caption (the script's first line) and nowhere another; returns it, with its factor in *f. */
static const char *
one_unit(const char *out, const char *kind, const char *key, enum testspec_metric m, double *f)
{
    char *svg = chart_file(out, kind, key, "svg"), *gp = chart_file(out, kind, key, "gp");
    struct svgtext *t = calloc(4096, sizeof *t);
    assert_non_null(t);
    size_t nt = svg_texts(svg, t, 4096);
    struct rbuf all;
    report_buf_init(&all);
    for (size_t i = 0; i < nt; i++) {
        report_buf_puts(&all, t[i].t);
        report_buf_puts(&all, "\n");
    }
    const char *u[8], *cu[8];
    size_t n = units_in(all.data, u, 8);
    char *nl = strchr(gp, '\n');
    assert_non_null(nl);
    *nl = '\0'; /* the caption line */
    size_t nc = units_in(gp, cu, 8);
    if (n != 1 || nc != 1 || strcmp(u[0], cu[0]) != 0)
        fail_msg("%s-%s: units %zu in the SVG (%s), %zu in the caption (%s): want one, the same",
                 kind, key, n, n ? u[0] : "-", nc, nc ? cu[0] : "-");
    /* the factor of that unit */
    *f = NAN;
    for (double ref = 1e-6; ref < 1e12; ref *= 10) {
        struct testspec_scale s = testspec_scale_for(m, ref);
        if (strcmp(s.unit, u[0]) == 0)
            *f = s.factor;
    }
    assert_true(!isnan(*f));
    const char *unit = u[0];
    report_buf_release(&all);
    free(t);
    free(svg);
    free(gp);
    return unit;
}

static enum testspec_metric
metric_of(const json_t *s)
{
    int k = testspec_kind_find(json_string_value(json_object_get(s, "test")));
    assert_true(k >= 0);
    return testspec_kind_metric((enum testspec_kind)k);
}

static const json_t *
pair_of(const json_t *s, const char *label)
{
    size_t i;
    const json_t *p;
    json_array_foreach(json_object_get(s, "pairs"), i, p)
    {
        char l[512];
        snprintf(l, sizeof l, "%s → %s", json_string_value(json_object_get(p, "src")),
                 json_string_value(json_object_get(p, "dst")));
        if (strcmp(l, label) == 0)
            return p;
    }
    fail_msg("no pair '%s'", label);
    return NULL;
}

/* --- the checks ----------------------------------------------------------------------------- */

/* One glyph per ok trial, over its pair's label; the .dat has the same. */
static void
check_trials(const char *out, const json_t *s, const char *key)
{
    char *svg = chart_file(out, "trials", key, "svg"), *dat = chart_file(out, "trials", key, "dat");
    assert_null(strstr(svg, " > "));
    struct svgtext *t = calloc(4096, sizeof *t);
    assert_non_null(t);
    size_t nt = svg_texts(svg, t, 4096);
    size_t nlab = 0, labs[64];
    for (size_t i = 0; i < nt && nlab < 64; i++)
        if (strstr(t[i].t, " → ") != NULL)
            labs[nlab++] = i;
    assert_int_equal(nlab, json_array_size(json_object_get(s, "pairs")));
    size_t per[64] = {0}, glyphs = 0;
    const char *g = "<use xlink:href='#gpPt6' transform='translate(";
    for (const char *p = svg; (p = strstr(p, g)) != NULL; p++) {
        double x, y;
        assert_int_equal(sscanf(p + strlen(g), "%lf,%lf", &x, &y), 2);
        size_t best = 0;
        for (size_t l = 1; l < nlab; l++)
            if (fabs(t[labs[l]].x - x) < fabs(t[labs[best]].x - x))
                best = l;
        per[best]++;
        glyphs++;
    }
    json_int_t ok = 0;
    for (size_t l = 0; l < nlab; l++) {
        json_int_t n = json_integer_value(json_object_get(pair_of(s, t[labs[l]].t), "n"));
        if ((json_int_t)per[l] != n)
            fail_msg("trials-%s.svg: %zu glyphs over '%s', which has %lld ok trials", key, per[l],
                     t[labs[l]].t, (long long)n);
        ok += n;
    }
    assert_int_equal(glyphs, ok); /* and none anywhere else (a legend's) */
    /* the data: a line per ok trial, its pair's index last */
    size_t rows[64] = {0};
    for (char *line = dat; line && *line;
         line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        double x, v;
        unsigned idx;
        if (*line != '#' && sscanf(line, "%lf %lf %u", &x, &v, &idx) == 3 && idx < 64)
            rows[idx]++;
    }
    for (size_t l = 0; l < nlab; l++)
        assert_int_equal(rows[l], per[l]);
    free(t);
    free(svg);
    free(dat);
}

/* The y range holds every interval whole, from zero or below; its values are the summary's in
 * the chart's unit; one trial: no interval. */
static void
check_bars(const char *out, const json_t *s, const char *key)
{
    double f;
    one_unit(out, "bars", key, metric_of(s), &f);
    char *gp = chart_file(out, "bars", key, "gp"), *dat = chart_file(out, "bars", key, "dat");
    const char *yr = strstr(gp, "\nset yrange [");
    assert_non_null(yr);
    double lo, hi;
    assert_int_equal(sscanf(yr, "\nset yrange [%lf:%lf]", &lo, &hi), 2);
    assert_true(lo <= 0.0);
    size_t rows = 0;
    for (char *line = dat; line && *line;
         line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        unsigned i;
        char mean[64], ci[64], label[512];
        if (*line == '#' || sscanf(line, "%u %63s %63s \"%511[^\"]\"", &i, mean, ci, label) != 4)
            continue;
        rows++;
        const json_t *p = pair_of(s, label);
        double m = strtod(mean, NULL), c = strtod(ci, NULL);
        assert_true(fabs(m * f - json_number_value(json_object_get(p, "mean"))) <=
                    1e-5 * fabs(m * f) + 1e-9);
        const json_t *hw = json_object_get(p, "ci95_halfwidth");
        if (json_integer_value(json_object_get(p, "n")) < 2) {
            assert_true(json_is_null(hw)); /* summary.json: no interval of one trial */
            assert_true(isnan(c));
            continue;
        }
        assert_true(fabs(c * f - json_number_value(hw)) <= 1e-5 * fabs(c * f) + 1e-9);
        if (m - c < lo || m + c > hi)
            fail_msg("bars-%s: %s's interval [%g, %g] outside the axis [%g, %g]", key, label, m - c,
                     m + c, lo, hi);
    }
    assert_int_equal(rows, json_array_size(json_object_get(s, "pairs")));
    free(gp);
    free(dat);
}

/* report.md's zone matrix of scenario name: from its heading to the next (caller frees). */
static char *
md_matrix(const char *out, const char *name)
{
    char p[8300], head[512];
    snprintf(p, sizeof p, "%.8000s/report.md", out);
    char *md = th_read(p, NULL);
    assert_non_null(md);
    snprintf(head, sizeof head, "## Scenario %s:", name);
    char *a = strstr(md, head), *m = a ? strstr(a, "### Zone matrix\n") : NULL;
    assert_non_null(m);
    char *end = strstr(m + 4, "\n### ");
    if (end != NULL)
        *end = '\0';
    char *sec = strdup(m);
    free(md);
    return sec;
}

/* The heat map's cells are the summary's means in the colour bar's unit, its labels those
 * numbers without a unit, and the report's zone matrix says the same numbers in the same
 * unit. */
static void
check_heatmap(const char *out, const json_t *s, const char *key)
{
    double f;
    const char *unit = one_unit(out, "heatmap", key, metric_of(s), &f);
    char *sec = md_matrix(out, json_string_value(json_object_get(s, "name"))), want[96];
    snprintf(want, sizeof want, "(%s), ", unit); /* its caption: "..., mean RTT (µs), ipv4" */
    if (strstr(sec, want) == NULL)
        fail_msg("heatmap-%s in %s; the zone matrix's caption does not say it", key, unit);
    char *dat = chart_file(out, "heatmap", key, "dat");
    size_t cells = 0;
    for (char *line = dat; line && *line;
         line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        unsigned x, y;
        char v[64], label[64];
        if (*line == '#' || sscanf(line, "%u %u %63s \"%63[^\"]\"", &x, &y, v, label) != 4 ||
            strcmp(v, "NaN") == 0)
            continue;
        const json_t *c = json_array_get(json_object_get(s, "zone_cells"), cells++);
        while (c != NULL && json_integer_value(json_object_get(c, "n")) == 0)
            c = json_array_get(json_object_get(s, "zone_cells"), cells++);
        assert_non_null(c);
        double mean = json_number_value(json_object_get(c, "mean")) / f;
        assert_true(fabs(strtod(v, NULL) - mean) <= 1e-5 * fabs(mean));
        const char *dot = strchr(label, '.');
        double tol = 0.5 * pow(10.0, -(dot ? (double)strlen(dot + 1) : 0.0)) + 1e-9;
        if (fabs(strtod(label, NULL) - mean) > tol)
            fail_msg("heatmap-%s: label '%s' for a mean of %g", key, label, mean);
        snprintf(want, sizeof want, "| %s", label); /* the table's cell, as the chart's */
        if (strstr(sec, want) == NULL)
            fail_msg("heatmap-%s: label '%s' is no cell of the report's zone matrix", key, label);
    }
    assert_true(cells > 0);
    free(sec);
    free(dat);
}

/* The percentiles in one unit; p25 and p50, 0.18 apart on the axis, do not overlap. */
static void
check_percentiles(const char *out, const json_t *s, const char *key)
{
    double f;
    one_unit(out, "percentiles", key, TESTSPEC_M_RTT_MEAN, &f);
    char *svg = chart_file(out, "percentiles", key, "svg");
    struct svgtext *t = calloc(4096, sizeof *t);
    assert_non_null(t);
    size_t nt = svg_texts(svg, t, 4096);
    const struct svgtext *a = NULL, *b = NULL;
    for (size_t i = 0; i < nt; i++) {
        a = strcmp(t[i].t, "p25") == 0 ? &t[i] : a;
        b = strcmp(t[i].t, "p50") == 0 ? &t[i] : b;
    }
    if (a == NULL || b == NULL) {
        fail_msg("percentiles-%s: no p25 or p50 label", key);
        return;
    }
    /* centred labels of 3 characters: apart when their boxes are, sideways or a line down */
    double w = 3 * REPORT_CHART_FONT * 0.6;
    if (fabs(a->x - b->x) < w && fabs(a->y - b->y) < REPORT_CHART_FONT)
        fail_msg("percentiles-%s: p25 at (%.0f, %.0f) and p50 at (%.0f, %.0f) overlap", key, a->x,
                 a->y, b->x, b->y);
    (void)s;
    free(t);
    free(svg);
}

/* gnuplot is a dependency of the reports' charts: its absence fails these tests, never skips */
static void
need_gnuplot(void)
{
    char why[512] = "";
    char *gp = report_chart_gnuplot_find("test_charts", why, sizeof why);
    if (gp == NULL)
        fail_msg("no gnuplot: %s", why[0] != '\0' ? why : "not on PATH");
    free(gp);
}

static void
check_fixture(const char *fixture)
{
    char out[8192];
    json_t *sum = render(fixture, out, sizeof out);
    size_t i, ncharts = 0;
    const json_t *s;
    json_array_foreach(json_object_get(sum, "scenarios"), i, s)
    {
        const char *key = json_string_value(json_object_get(s, "file_key"));
        if (json_integer_value(json_object_get(json_object_get(s, "trials"), "ok")) == 0)
            continue;
        check_heatmap(out, s, key);
        check_bars(out, s, key);
        check_trials(out, s, key);
        if (testspec_kind_has_rtt((enum testspec_kind)testspec_kind_find(
                json_string_value(json_object_get(s, "test")))))
            check_percentiles(out, s, key);
        ncharts++;
    }
    assert_true(ncharts >= 3);
    json_decref(sum);
}

static void
test_basic(void **state)
{
    (void)state;
    need_gnuplot();
    check_fixture("basic");
}

static void
test_measures(void **state)
{
    (void)state;
    need_gnuplot();
    check_fixture("measures");
}

int
main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_basic),
                                       cmocka_unit_test(test_measures)};
    return cmocka_run_group_tests(tests, setup, teardown);
}
