/* compare.c - what `netsurvey compare` shows: a baseline's zone cells against a candidate's,
 * Welch's t-test per matched cell, a verdict, and the release gate (a cell significantly worse
 * by more than PCT is a regression; the command line turns the count into its exit status).
 * Cells present on one side only are listed, never guessed. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/errors.h"
#include "common/stats.h"
#include "report/report.h"
#include "report/reportint.h"

#define COMPARE_ALPHA 0.05

static const char *
js(const json_t *o, const char *k)
{
    const char *s = json_string_value(json_object_get(o, k));
    return s ? s : "";
}

/* A summary scenario's kind. Its journal was read through journal/journal.h, which refuses a
 * kind testspec.h does not know, so every scenario has one (summaries_check). */
static enum testspec_kind
kind_of(const json_t *scen)
{
    return (enum testspec_kind)testspec_kind_find(js(scen, "test"));
}

/* Every scenario of sum has a known kind: otherwise an error, never a guess. */
static int
summaries_check(const json_t *sum, struct err *e)
{
    size_t i;
    const json_t *s;
    json_array_foreach(json_object_get(sum, "scenarios"), i, s)
    {
        if (testspec_kind_find(js(s, "test")) < 0)
            return err_set(e, NS_EPARSE, "scenario '%s': unknown test kind '%s'", js(s, "name"),
                           js(s, "test"));
    }
    return 0;
}

static int
load_summary(const char *dir, FILE *warn, json_t **sum, struct err *e)
{
    struct rmodel *m;
    int rc = rmodel_load(&dir, 1, warn, &m, e);
    if (rc != 0)
        return rc;
    json_t *view = NULL;
    rc = report_aggregate(m, sum, &view, e);
    json_decref(view);
    rmodel_free(m);
    if (rc == 0 && (rc = summaries_check(*sum, e)) != 0) {
        json_decref(*sum);
        *sum = NULL;
    }
    return rc;
}

static void
stats_from(const json_t *cell, struct stats *s)
{
    stats_init(s);
    s->n = (uint64_t)json_integer_value(json_object_get(cell, "n"));
    s->mean = json_number_value(json_object_get(cell, "mean"));
    double sd = json_number_value(json_object_get(cell, "stddev"));
    s->m2 = s->n > 1 ? sd * sd * (double)(s->n - 1) : 0.0;
    s->min = json_number_value(json_object_get(cell, "min"));
    s->max = json_number_value(json_object_get(cell, "max"));
}

static const json_t *
find_cell(const json_t *sum, const json_t *scen, const json_t *cell)
{
    size_t i, j;
    const json_t *s, *c;
    json_array_foreach(json_object_get(sum, "scenarios"), i, s)
    {
        if (strcmp(js(s, "name"), js(scen, "name")) || strcmp(js(s, "test"), js(scen, "test")) ||
            strcmp(js(s, "family"), js(scen, "family")))
            continue;
        json_array_foreach(json_object_get(s, "zone_cells"), j, c)
        {
            if (!strcmp(js(c, "src_zone"), js(cell, "src_zone")) &&
                !strcmp(js(c, "dst_zone"), js(cell, "dst_zone")) &&
                json_integer_value(json_object_get(c, "n")) > 0)
                return c;
        }
    }
    return NULL;
}

static json_t *
cell_id(const json_t *scen, const json_t *cell, const char *value)
{
    return json_pack("{s:s,s:s,s:s,s:s,s:s,s:s}", "scenario", js(scen, "name"), "test",
                     js(scen, "test"), "family", js(scen, "family"), "src_zone",
                     js(cell, "src_zone"), "dst_zone", js(cell, "dst_zone"), "value", value);
}

/* Cells of `a` not in `b`, into list. */
static void
list_unmatched(const json_t *a, const json_t *b, json_t *list)
{
    size_t i, j;
    const json_t *s, *c;
    json_array_foreach(json_object_get(a, "scenarios"), i, s)
    {
        enum testspec_kind k = kind_of(s);
        json_array_foreach(json_object_get(s, "zone_cells"), j, c)
        {
            if (json_integer_value(json_object_get(c, "n")) == 0 || find_cell(b, s, c) != NULL)
                continue;
            char v[64];
            report_fmt_metric(k, json_number_value(json_object_get(c, "mean")), v, sizeof v);
            json_array_append_new(list, cell_id(s, c, v));
        }
    }
}

/* Build the comparison view; *regressions counts cells failing the gate. */
static json_t *
compare_view(const json_t *base, const json_t *cand, const char *bdir, const char *ndir, double pct,
             int *regressions)
{
    json_t *cells = json_array(), *only_base = json_array(), *only_new = json_array();
    int nreg = 0, nworse = 0, nbetter = 0, nsame = 0;
    size_t i, j;
    const json_t *s, *c;
    json_array_foreach(json_object_get(base, "scenarios"), i, s)
    {
        enum testspec_kind k = kind_of(s);
        json_array_foreach(json_object_get(s, "zone_cells"), j, c)
        {
            const json_t *nc = find_cell(cand, s, c);
            if (json_integer_value(json_object_get(c, "n")) == 0 || nc == NULL)
                continue;
            struct stats a, b;
            stats_from(c, &a);
            stats_from(nc, &b);
            double delta = a.mean != 0.0 ? (b.mean - a.mean) / fabs(a.mean) * 100.0 : 0.0;
            bool lower_better = rkind_lower_is_better(k);
            double worse_by = lower_better ? delta : -delta;
            struct stats_welch w;
            const char *verdict;
            bool reg = false;
            char p[32];
            if (stats_welch_test(&a, &b, &w) != 0) {
                verdict = "too few trials";
                snprintf(p, sizeof p, "n/a");
            } else {
                snprintf(p, sizeof p, w.p < 0.0001 ? "< 0.0001" : "%.4f", w.p);
                if (w.p < COMPARE_ALPHA && worse_by > 0) {
                    verdict = "worse";
                    nworse++;
                    reg = worse_by > pct;
                } else if (w.p < COMPARE_ALPHA && worse_by < 0) {
                    verdict = "better";
                    nbetter++;
                } else {
                    verdict = "no significant change";
                    nsame++;
                }
            }
            nreg += reg;
            char bv[64], nv[64], d[32];
            report_fmt_metric(k, a.mean, bv, sizeof bv);
            report_fmt_metric(k, b.mean, nv, sizeof nv);
            snprintf(d, sizeof d, "%+.1f %%", delta);
            json_t *o = cell_id(s, c, "");
            json_object_del(o, "value");
            json_object_set_new(o, "metric", json_string(rkind_metric(k)));
            json_object_set_new(o, "base", json_string(bv));
            json_object_set_new(o, "base_n", json_integer((json_int_t)a.n));
            json_object_set_new(o, "new", json_string(nv));
            json_object_set_new(o, "new_n", json_integer((json_int_t)b.n));
            json_object_set_new(o, "delta", json_string(d));
            json_object_set_new(o, "p", json_string(p));
            json_object_set_new(o, "verdict", json_string(verdict));
            json_object_set_new(o, "regression", json_boolean(reg));
            json_array_append_new(cells, o);
        }
    }
    list_unmatched(base, cand, only_base);
    list_unmatched(cand, base, only_new);
    char line[512];
    snprintf(line, sizeof line,
             "%zu matched cell%s: %d worse, %d better, %d without significant change; %d "
             "regression%s beyond %.1f %% (gate %s)",
             json_array_size(cells), json_array_size(cells) == 1 ? "" : "s", nworse, nbetter, nsame,
             nreg, nreg == 1 ? "" : "s", pct, nreg ? "FAILED" : "passed");
    *regressions = nreg;
    char mr[32], al[32];
    snprintf(mr, sizeof mr, "%.1f %%", pct);
    snprintf(al, sizeof al, "%.2f", COMPARE_ALPHA);
    return json_pack("{s:s,s:s,s:s,s:s,s:O,s:O,s:s,s:s,s:o,s:o,s:o,s:s,s:b,s:s}", "base_dir", bdir,
                     "new_dir", ndir, "base_title", js(base, "title"), "new_title",
                     js(cand, "title"), "base_runs", json_object_get(base, "runs"), "new_runs",
                     json_object_get(cand, "runs"), "max_regression", mr, "alpha", al, "cells",
                     cells, "only_base", only_base, "only_new", only_new, "summary", line, "failed",
                     nreg > 0, "version", NS_VERSION);
}

int
report_compare(const struct report_compare_opts *o, struct report_compare_result *r, struct err *e)
{
    const char *bdir = o->base_dir, *ndir = o->new_dir, *out = o->out;
    FILE *echo = o->echo;
    r->regressions = 0;
    report_jarena_begin();
    json_t *base = NULL, *cand = NULL;
    int rc = load_summary(bdir, o->warn, &base, e);
    if (rc == 0)
        rc = load_summary(ndir, o->warn, &cand, e);
    if (rc != 0) {
        json_decref(base);
        report_jarena_end();
        return rc;
    }
    int nreg = 0;
    json_t *view = compare_view(base, cand, bdir, ndir, o->max_regression_pct, &nreg);
    json_decref(base);
    json_decref(cand);
    if (view == NULL) {
        report_jarena_end();
        return err_set(e, NS_ENOMEM, "out of memory comparing");
    }
    char *owned;
    const char *css = report_template("report.css", &owned);
    json_object_set_new(view, "css", json_string(css ? css : ""));
    free(owned);
    static const struct {
        const char *tmpl;
        enum tmpl_mode mode;
    } outs[] = {{"compare.md", TMPL_MARKDOWN}, {"compare.html", TMPL_HTML}};
    if (mkdir(out, 0755) != 0 && errno != EEXIST)
        rc = err_sys(e, NS_EIO, errno, "cannot create %s", out);
    for (size_t i = 0; rc == 0 && i < 2; i++) {
        const char *t = report_template(outs[i].tmpl, &owned);
        struct rbuf b;
        rbuf_init(&b);
        rc = t ? tmpl_render(t, view, outs[i].mode, &b, e)
               : err_set(e, NS_ENOTFOUND, "no template %s", outs[i].tmpl);
        free(owned);
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", out, outs[i].tmpl);
        if (rc == 0)
            rc = report_write_file(path, &b, e);
        if (rc == 0 && i == 0 && echo != NULL)
            fwrite(b.data, 1, b.len, echo);
        rbuf_release(&b);
    }
    json_decref(view);
    report_jarena_end();
    if (rc == 0)
        r->regressions = (unsigned)nreg;
    return rc;
}
