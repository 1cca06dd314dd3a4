/* trendout.c - the outputs of `netsurvey trend`: trend-<scenario>.csv (the runs' matrix values,
 * oldest first), charts/trend-<scenario>.{dat,gp,svg} (a line per zone cell with its 95 % CI
 * band, the flagged runs circled), and trend.md / trend.html rendered from templates/ over a
 * view built here. Every plan string reaches a file escaped for it: CSV quoting, gnuplot's
 * single quotes, the templates' Markdown and HTML escaping. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/errors.h"
#include "common/fsdir.h"
#include "history/cells.h"
#include "history/trendint.h"
#include "report/output.h"

static const json_t *
run_obj(const struct trun *r)
{
    return json_object_get(r->sum, "run");
}

/* --- CSV ------------------------------------------------------------------------------------ */

/* scenario,src,dst,<run_id>... then one line per zone cell: each run's matrix value. */
static int
write_csv(const struct trend *t, const struct tscen *s, const char *dir, struct err *e)
{
    struct rbuf b;
    report_buf_init(&b);
    report_buf_puts(&b, "scenario,src,dst");
    for (size_t k = 0; k < s->ncols; k++) {
        report_buf_puts(&b, ",");
        report_buf_csv_field(&b, t->runs[s->cols[k]].run_id);
    }
    report_buf_puts(&b, "\n");
    for (size_t j = 0; j < s->ncells; j++) {
        const struct tcell *c = &s->cells[j];
        char label[512];
        report_buf_csv_field(&b, history_scenario_label(s->def, label, sizeof label));
        report_buf_puts(&b, ",");
        report_buf_csv_field(&b, c->src);
        report_buf_puts(&b, ",");
        report_buf_csv_field(&b, c->dst);
        for (size_t k = 0; k < s->ncols; k++) {
            report_buf_puts(&b, ",");
            if (c->c[k] != NULL)
                report_matrix_value(&b, c->c[k]);
        }
        report_buf_puts(&b, "\n");
    }
    char path[4096];
    int rc;
    if ((size_t)snprintf(path, sizeof path, "%s/trend-%s.csv", dir, s->key) >= sizeof path)
        rc = err_set(e, NS_ETOOBIG, "path too long: %s", dir);
    else
        rc = b.oom ? err_set(e, NS_ENOMEM, "out of memory writing %s", path)
                   : report_write_file(path, &b, e);
    report_buf_release(&b);
    return rc;
}

/* --- one unit per scenario ------------------------------------------------------------------ */

/* The unit a scenario's table and chart give its figures in: of its cells' means in every run. */
static struct testspec_scale
tscen_scale(const struct tscen *s)
{
    struct rvals v = {0};
    for (size_t j = 0; j < s->ncells; j++)
        for (size_t k = 0; k < s->ncols; k++)
            if (s->cells[j].c[k] != NULL && ji(s->cells[j].c[k], "n") > 0)
                report_vals_add(&v, jd(s->cells[j].c[k], "mean"));
    struct testspec_scale sc = report_scale(testspec_kind_metric(s->kind), v.v, v.n);
    report_vals_release(&v);
    return sc;
}

/* --- the chart ------------------------------------------------------------------------------ */

/* "#3 20261201T150000Z-1a2b": how a run is named on the chart's axis. */
static void
run_label(const struct trend *t, size_t run, char *b, size_t len)
{
    const struct trun *r = &t->runs[run];
    snprintf(b, len, "#%zu %.120s%s", run + 1, r->run_id,
             r->in_progress  ? " (in progress)"
             : r->incomplete ? " (incomplete)"
                             : "");
}

/* One block per zone cell: column, mean, CI bounds (NaN with fewer than 2 ok trials; all NaN
 * without an ok trial, so gnuplot leaves the run out), and 1 where the mean is beyond the
 * first run's CI by more than the threshold. */
static void
chart_data(const struct tscen *s, double pct, const struct testspec_scale *sc, double *lo,
           double *hi, struct rbuf *d)
{
    report_buf_printf(
        d, "# per zone cell, one block: column (run) mean ci95_low ci95_high beyond; in %s\n",
        sc->unit);
    *lo = *hi = 0.0;
    for (size_t j = 0; j < s->ncells; j++) {
        const struct tcell *c = &s->cells[j];
        char label[512];
        report_chart_label(c->src, c->dst, label, sizeof label);
        report_buf_printf(d, "%s# %zu: ", j ? "\n\n" : "", j);
        report_chart_data_str(d, label);
        report_buf_puts(d, "\n");
        for (size_t k = 0; k < s->ncols; k++) {
            const json_t *x = c->c[k];
            json_int_t n = x ? ji(x, "n") : 0;
            int beyond = !isnan(c->beyond[k]) && c->beyond[k] > pct;
            double m = n >= 1 ? jd(x, "mean") / sc->factor : NAN;
            double l = n >= 2 ? jd(x, "ci95_low") / sc->factor : m;
            double h = n >= 2 ? jd(x, "ci95_high") / sc->factor : m;
            if (n < 1) {
                report_buf_printf(d, "%zu NaN NaN NaN 0\n", k);
                continue;
            }
            *lo = fmin(*lo, l);
            *hi = fmax(*hi, h);
            if (n < 2)
                report_buf_printf(d, "%zu %.10g NaN NaN %d\n", k, m, beyond);
            else
                report_buf_printf(d, "%zu %.10g %.10g %.10g %d\n", k, m, l, h, beyond);
        }
    }
}

static int
chart_write(const struct trend *t, const struct tscen *s, struct rchart *cx, const json_t *sv,
            struct err *e)
{
    struct testspec_scale sc = tscen_scale(s);
    struct rbuf g, d;
    report_buf_init(&g);
    report_buf_init(&d);
    char title[700], caption[1200], yl[200];
    snprintf(title, sizeof title, "%s: %s per zone cell and run (%s)", js(s->def, "name"),
             testspec_kind_words(s->kind), sc.unit);
    snprintf(caption, sizeof caption,
             "%s: each zone cell's mean run by run, its 95 %% confidence interval as a band "
             "(none where a run has one ok trial), circled where the mean lies beyond the CI of "
             "the cell's first run by more than %.1f %%; the axis starts at zero%s",
             js(sv, "caption"), t->o->max_regression_pct,
             s->ncells > REPORT_CHART_MAX_CURVES ? "; too many cells for a key"
                                                 : "; the key is "
                                                   "outside the plot");
    report_chart_head(&g, "trend", s->key, "trend", title);
    snprintf(yl, sizeof yl, "%s (%s)", testspec_kind_words(s->kind), sc.unit);
    report_buf_puts(&g, "set ylabel ");
    report_chart_script_str(&g, yl);
    report_buf_printf(
        &g,
        "\nset xrange [-0.5:%zu.5]\n"
        "set style fill transparent solid 0.15 noborder\n%s\nset xtics rotate by -30 (",
        s->ncols - 1,
        s->ncells > REPORT_CHART_MAX_CURVES ? "unset key" : "set key outside right samplen 2");
    for (size_t k = 0; k < s->ncols; k++) {
        char l[200];
        run_label(t, s->cols[k], l, sizeof l);
        if (k)
            report_buf_puts(&g, ", ");
        report_chart_script_str(&g, l);
        report_buf_printf(&g, " %zu", k);
    }
    report_buf_puts(&g, ")\n");
    double lo, hi;
    chart_data(s, t->o->max_regression_pct, &sc, &lo, &hi, &d);
    report_chart_yrange(&g, lo, hi);
    report_buf_puts(&g, "plot ");
    for (size_t j = 0; j < s->ncells; j++) {
        const struct tcell *c = &s->cells[j];
        char label[512];
        report_chart_label(c->src, c->dst, label, sizeof label);
        unsigned lc = (unsigned)(j % 8) + 1;
        report_buf_printf(
            &g,
            "%s\"trend-%s.dat\" index %zu using 1:3:4 with filledcurves lc %u notitle, "
            "\\\n     \"\" index %zu using 1:2 with linespoints lc %u pt 7 ps 0.6 title ",
            j ? ", \\\n     " : "", s->key, j, lc, j, lc);
        report_chart_script_str(&g, label);
        report_buf_printf(
            &g,
            ", \\\n     \"\" index %zu using 1:($5 > 0 ? $2 : NaN) with points pt 6 ps 2 "
            "lc rgb \"#b42318\" notitle",
            j);
    }
    report_buf_puts(&g, "\n");
    int rc = g.oom || d.oom ? err_set(e, NS_ENOMEM, "out of memory drawing a chart")
                            : report_chart_emit(cx, s->key, "trend", &g, &d, caption, e);
    report_buf_release(&g);
    report_buf_release(&d);
    return rc;
}

/* --- the view ------------------------------------------------------------------------------- */

/* "#1–#3, #5": runs (indices in time order) as people read them. */
static void
runs_text(struct rbuf *b, const size_t *runs, size_t n)
{
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j + 1 < n && runs[j + 1] == runs[j] + 1)
            j++;
        report_buf_printf(b, "%s#%zu", i ? ", " : "", runs[i] + 1);
        if (j > i)
            report_buf_printf(b, "%s#%zu", j == i + 1 ? ", " : "–", runs[j] + 1);
        i = j + 1;
    }
}

static json_t *
jrbuf(struct rbuf *b)
{
    json_t *s = json_string(b->data ? b->data : "");
    report_buf_release(b);
    return s;
}

/* A run's trials and state: what its run.json planned against what its journal holds. */
static void
run_state(const struct trun *r, char *trials, size_t tlen, char *state, size_t slen)
{
    json_int_t ok = 0, failed = 0;
    size_t i;
    const json_t *s;
    json_array_foreach(json_object_get(r->sum, "scenarios"), i, s)
    {
        ok += ji(json_object_get(s, "trials"), "ok");
        failed += ji(json_object_get(s, "trials"), "failed");
    }
    snprintf(trials, tlen, "%lld ok, %lld failed", (long long)ok, (long long)failed);
    /* adaptive pairs the rule has not decided: the planned count is the least they take */
    const char *al = r->undecided > 0 ? "at least " : "";
    char und[96] = "";
    if (r->undecided > 0)
        snprintf(und, sizeof und, ", %llu host pair%s of adaptive trials undecided",
                 (unsigned long long)r->undecided, r->undecided == 1 ? "" : "s");
    if (r->in_progress)
        snprintf(state, slen, "in progress: %llu of %s%llu planned trials recorded so far",
                 (unsigned long long)r->recorded, al, (unsigned long long)r->planned);
    else if (r->incomplete)
        snprintf(state, slen, "incomplete (%s): %s%llu of %s%llu planned trials not run%s",
                 r->state != NULL ? r->state : "no state recorded", al,
                 (unsigned long long)(r->planned > r->recorded ? r->planned - r->recorded : 0), al,
                 (unsigned long long)r->planned, und);
    else if (r->state != NULL && r->planned > 0)
        snprintf(state, slen, "%s", r->state);
    else
        snprintf(state, slen, "—"); /* a journal that does not say (run.json version 1) */
}

/* The runs, their plans and the title. */
static void
view_runs(const struct trend *t, json_t *v)
{
    json_t *runs = json_array(), *plans = json_array();
    struct rbuf title;
    report_buf_init(&title);
    size_t nplans = 0;
    for (size_t r = 0; r < t->nruns; r++) {
        const struct trun *x = &t->runs[r];
        const json_t *run = run_obj(x), *plan = json_object_get(run, "plan");
        char trials[96], state[224], sha[16];
        run_state(x, trials, sizeof trials, state, sizeof state);
        snprintf(sha, sizeof sha, "%.12s", js(plan, "sha256"));
        json_array_append_new(
            runs, json_pack("{s:I,s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:b,s:s}", "k", (json_int_t)r + 1,
                            "run_id", x->run_id, "started", x->started, "plan", js(plan, "name"),
                            "sha", sha, "dir", x->dir, "trials", trials, "state", state, "marked",
                            x->incomplete || x->in_progress, "netsurvey",
                            js(json_object_get(run, "tool"), "netsurvey_version")));
        /* a plan is its name and its bytes' sha256: an edited plan is another plan */
        bool seen = false;
        for (size_t q = 0; q < r && !seen; q++) {
            const json_t *p = json_object_get(run_obj(&t->runs[q]), "plan");
            seen = !strcmp(js(p, "name"), js(plan, "name")) &&
                   !strcmp(js(p, "sha256"), js(plan, "sha256"));
        }
        if (seen)
            continue;
        size_t *in = malloc(t->nruns * sizeof *in), nin = 0;
        for (size_t q = r; in != NULL && q < t->nruns; q++) {
            const json_t *p = json_object_get(run_obj(&t->runs[q]), "plan");
            if (!strcmp(js(p, "name"), js(plan, "name")) &&
                !strcmp(js(p, "sha256"), js(plan, "sha256")))
                in[nin++] = q;
        }
        struct rbuf rl;
        report_buf_init(&rl);
        runs_text(&rl, in, nin);
        free(in);
        json_array_append_new(plans, json_pack("{s:s,s:s,s:o}", "name", js(plan, "name"), "sha",
                                               js(plan, "sha256"), "runs", jrbuf(&rl)));
        bool named = false;
        for (size_t q = 0; q < r && !named; q++)
            named = !strcmp(js(json_object_get(run_obj(&t->runs[q]), "plan"), "name"),
                            js(plan, "name"));
        if (!named)
            report_buf_printf(&title, "%s%s", title.len ? " + " : "", js(plan, "name"));
        nplans++;
    }
    json_object_set_new(v, "title", jrbuf(&title));
    json_object_set_new(v, "runs", runs);
    json_object_set_new(v, "plans", plans);
    json_object_set_new(v, "several_plans", json_boolean(nplans > 1));
    json_object_set_new(v, "nplans", json_integer((json_int_t)nplans));
}

/* One run's value of a cell, for people. Every key in every value (a missing key would be
 * looked up in the enclosing row by the templates). */
static json_t *
val_json(const struct tscen *s, const struct tcell *c, size_t k, double pct,
         const struct testspec_scale *sc)
{
    const json_t *x = c->c[k];
    char text[192], m[64], h[64];
    json_int_t n = x ? ji(x, "n") : 0;
    if (x == NULL) {
        snprintf(text, sizeof text, "—");
    } else if (n == 0 && ji(x, "failed") == 0) { /* planned, nothing recorded: a run cut short */
        snprintf(text, sizeof text, "not run");
    } else if (n == 0) {
        snprintf(text, sizeof text, "failed (%lld)", (long long)ji(x, "failed"));
    } else { /* in the table's one unit, which its caption says */
        testspec_scale_text(sc, jd(x, "mean"), m, sizeof m);
        if (n >= 2)
            snprintf(text, sizeof text, "%s ± %s", m,
                     testspec_scale_text(sc, jd(x, "ci95_halfwidth"), h, sizeof h));
        else
            snprintf(text, sizeof text, "%s (1 trial)", m);
        const json_t *planned = json_object_get(x, "planned");
        size_t len = strlen(text);
        bool least = ji(x, "undecided") > 0; /* adaptive pairs undecided: the least planned */
        if (json_is_integer(planned) && (n < json_integer_value(planned) || least))
            snprintf(text + len, sizeof text - len, " (%lld/%s%lld ok)", (long long)n,
                     least ? "≥" : "", (long long)json_integer_value(planned));
    }
    json_t *bent = x != NULL ? report_flagged_text(s->kind, x) : NULL;
    if (bent != NULL) { /* its hosts bent some of its trials: view_bent says how */
        size_t len = strlen(text);
        snprintf(text + len, sizeof text - len, " ⚠");
        json_decref(bent);
    }
    bool beyond = !isnan(c->beyond[k]) && c->beyond[k] > pct;
    return json_pack("{s:s,s:b,s:b,s:b,s:b,s:b}", "text", text, "empty", x == NULL || n == 0,
                     "base", (int)k == c->base, "flag", (int)k == c->flag, "beyond",
                     beyond && (int)k != c->flag, "failed", x != NULL && n == 0);
}

/* What a row says in its last columns: the latest change, and the flag. */
static void
row_verdict(const struct tscen *s, const struct tcell *c, double pct, json_t *row)
{
    char v[256] = "", d[64] = "—";
    if (c->base < 0) {
        snprintf(v, sizeof v, "no baseline: fewer than 2 ok trials in every run");
    } else {
        size_t b = s->cols[c->base];
        double mb = jd(c->c[c->base], "mean");
        if (c->last > c->base && mb != 0.0)
            snprintf(d, sizeof d, "%+.1f %% (#%zu vs #%zu)",
                     (jd(c->c[c->last], "mean") - mb) / fabs(mb) * 100.0, s->cols[c->last] + 1,
                     b + 1);
        if (c->flag >= 0) {
            int k = snprintf(v, sizeof v, "left the CI of #%zu by %.1f %% at #%zu", b + 1,
                             c->flag_excess, s->cols[c->flag] + 1);
            if (c->last > c->flag && k > 0 && (size_t)k < sizeof v)
                snprintf(v + k, sizeof v - (size_t)k, "; %s at #%zu",
                         c->last_beyond ? "still beyond" : "back within", s->cols[c->last] + 1);
        } else if (c->last > c->base) {
            snprintf(v, sizeof v, "within the CI of #%zu + %.1f %%", b + 1, pct);
        } else {
            snprintf(v, sizeof v, "baseline #%zu; no later run measured it", b + 1);
        }
        if (c->first >= 0 && c->first < c->base) {
            size_t n = strlen(v);
            snprintf(v + n, sizeof v - n, " (baseline: the first run with 2 ok trials)");
        }
    }
    json_object_set_new(row, "change", json_string(d));
    json_object_set_new(row, "verdict", json_string(v));
    json_object_set_new(row, "flagged", json_boolean(c->flag >= 0));
}

/* The cells some runs of the scenario do not have, one note each. */
static json_t *
cell_notes(const struct tscen *s)
{
    json_t *notes = json_array();
    size_t *miss = malloc((s->ncols ? s->ncols : 1) * sizeof *miss);
    for (size_t j = 0; miss != NULL && j < s->ncells; j++) {
        const struct tcell *c = &s->cells[j];
        size_t nm = 0;
        for (size_t k = 0; k < s->ncols; k++)
            if (c->c[k] == NULL)
                miss[nm++] = s->cols[k];
        if (nm == 0)
            continue;
        struct rbuf b;
        report_buf_init(&b);
        report_buf_printf(&b, "%s → %s: not measured in ", c->src, c->dst);
        runs_text(&b, miss, nm);
        json_array_append_new(notes, json_pack("{s:o}", "text", jrbuf(&b)));
    }
    free(miss);
    return notes;
}

static const char *
run_plan(const struct trend *t, size_t r)
{
    return js(json_object_get(run_obj(&t->runs[r]), "plan"), "name");
}

/* Which runs lack the scenario ("#5 (plan other)"), or "". */
static json_t *
missing_runs(const struct trend *t, const struct tscen *s)
{
    struct rbuf b;
    report_buf_init(&b);
    for (size_t r = 0, k = 0; r < t->nruns; r++) {
        if (k < s->ncols && s->cols[k] == r) {
            k++;
            continue;
        }
        report_buf_printf(&b, "%s#%zu (%s, plan %s)", b.len ? ", " : "", r + 1, t->runs[r].run_id,
                          run_plan(t, r));
    }
    return jrbuf(&b);
}

static json_t *
view_scenario(const struct trend *t, const struct tscen *s)
{
    double pct = t->o->max_regression_pct;
    struct testspec_scale sc = tscen_scale(s);
    json_t *cols = json_array(), *rows = json_array();
    for (size_t k = 0; k < s->ncols; k++) {
        const struct trun *r = &t->runs[s->cols[k]];
        json_array_append_new(cols, json_pack("{s:I,s:s,s:b,s:s}", "k", (json_int_t)s->cols[k] + 1,
                                              "run_id", r->run_id, "marked",
                                              r->incomplete || r->in_progress, "mark",
                                              r->in_progress ? "in progress" : "incomplete"));
    }
    for (size_t j = 0; j < s->ncells; j++) {
        const struct tcell *c = &s->cells[j];
        json_t *vals = json_array();
        for (size_t k = 0; k < s->ncols; k++)
            json_array_append_new(vals, val_json(s, c, k, pct, &sc));
        json_t *row = json_pack("{s:s,s:s,s:o}", "src", c->src, "dst", c->dst, "vals", vals);
        row_verdict(s, c, pct, row);
        json_array_append_new(rows, row);
    }
    struct rbuf in;
    report_buf_init(&in);
    runs_text(&in, s->cols, s->ncols);
    report_buf_printf(&in, " (%zu of %zu runs)", s->ncols, t->nruns);
    char caption[600], pnote[800] = "";
    enum testspec_kind k = s->kind;
    char label[512];
    history_scenario_label(s->def, label, sizeof label);
    snprintf(caption, sizeof caption, "%s, %s (%s), %s", label, testspec_kind_words(k), sc.unit,
             js(s->def, "family"));
    if (s->first_param_diff > 0)
        snprintf(pnote, sizeof pnote,
                 "Parameters differ: #%zu ran it with other parameters than #%zu (%s); its "
                 "cells are matched by scenario name, test and family, as compare matches them.",
                 s->cols[s->first_param_diff] + 1, s->cols[0] + 1, s->param_diff);
    char flagged[64];
    snprintf(flagged, sizeof flagged, "%zu of %zu cells flagged", s->nflagged, s->ncells);
    json_t *notes = cell_notes(s);
    return json_pack("{s:s,s:s,s:s,s:s,s:s,s:s,s:o,s:o,s:s,s:o,s:o,s:b,s:o,s:s,s:b}", "name", label,
                     "test", js(s->def, "test"), "family", js(s->def, "family"), "key", s->key,
                     "caption", caption, "metric", testspec_kind_words(k), "in_runs", jrbuf(&in),
                     "missing", missing_runs(t, s), "param_note", pnote, "cols", cols, "rows", rows,
                     "has_notes", json_array_size(notes) > 0, "notes", notes, "flagged", flagged,
                     "any_flagged", s->nflagged > 0);
}

/* Scenarios found in one run only: listed with where they are, and under which test and family
 * the other runs have their name. */
static json_t *
view_not_trended(const struct trend *t)
{
    json_t *list = json_array();
    for (size_t i = 0; i < t->nscens; i++) {
        const struct tscen *s = &t->scens[i];
        if (tscen_trended(s))
            continue;
        size_t r = s->cols[0];
        struct rbuf b;
        report_buf_init(&b);
        char label[512];
        report_buf_printf(&b, "%s (%s, %s): only in #%zu (%s, plan %s)",
                          history_scenario_label(s->def, label, sizeof label), js(s->def, "test"),
                          js(s->def, "family"), r + 1, t->runs[r].run_id, run_plan(t, r));
        for (size_t j = 0; j < t->nscens; j++) {
            const struct tscen *o = &t->scens[j];
            if (j == i || strcmp(js(o->def, "name"), js(s->def, "name")) != 0)
                continue;
            report_buf_printf(&b, "; ");
            runs_text(&b, o->cols, o->ncols);
            report_buf_printf(&b, " %s it as %s, %s", o->ncols == 1 ? "has" : "have",
                              js(o->def, "test"), js(o->def, "family"));
            if (json_object_get(o->def, "sweep") != NULL)
                report_buf_printf(&b, " (%s)", history_scenario_label(o->def, label, sizeof label));
        }
        json_array_append_new(list, json_pack("{s:o}", "text", jrbuf(&b)));
    }
    return list;
}

static json_t *
view_flagged(const struct trend *t)
{
    json_t *list = json_array();
    for (size_t i = 0; i < t->nscens; i++) {
        const struct tscen *s = &t->scens[i];
        for (size_t j = 0; j < s->ncells; j++) {
            const struct tcell *c = &s->cells[j];
            if (c->flag < 0)
                continue;
            size_t at = s->cols[c->flag], b = s->cols[c->base];
            char m[64], m0[64];
            testspec_kind_value_text(s->kind, jd(c->c[c->flag], "mean"), m, sizeof m);
            testspec_kind_value_text(s->kind, jd(c->c[c->base], "mean"), m0, sizeof m0);
            char label[512];
            json_array_append_new(
                list,
                json_pack("{s:s,s:s,s:s,s:s,s:s,s:I,s:s,s:I,s:s,s:s,s:o}", "scenario",
                          history_scenario_label(s->def, label, sizeof label), "test",
                          js(s->def, "test"), "family", js(s->def, "family"), "src", c->src, "dst",
                          c->dst, "k", (json_int_t)at + 1, "run_id", t->runs[at].run_id, "base",
                          (json_int_t)b + 1, "value", m, "base_value", m0, "excess",
                          report_jprintf("%.1f %%", c->flag_excess)));
        }
    }
    return list;
}

/* The cells whose newest run holds trials its hosts bent (summary.json's "flagged"): what the
 * latest figure of each includes. */
static json_t *
view_bent(const struct trend *t)
{
    json_t *list = json_array();
    for (size_t i = 0; i < t->nscens; i++) {
        const struct tscen *s = &t->scens[i];
        if (!tscen_trended(s))
            continue;
        for (size_t j = 0; j < s->ncells; j++) {
            const struct tcell *c = &s->cells[j];
            size_t k = s->ncols;
            while (k > 0 && c->c[k - 1] == NULL)
                k--;
            json_t *text = k > 0 ? report_flagged_text(s->kind, c->c[k - 1]) : NULL;
            if (text == NULL)
                continue;
            size_t at = s->cols[k - 1];
            json_array_append_new(list, json_pack("{s:s,s:s,s:s,s:s,s:s,s:I,s:s,s:o}", "scenario",
                                                  js(s->def, "name"), "test", js(s->def, "test"),
                                                  "family", js(s->def, "family"), "src", c->src,
                                                  "dst", c->dst, "k", (json_int_t)at + 1, "run_id",
                                                  t->runs[at].run_id, "text", text));
        }
    }
    return list;
}

/* What the newest run of c says of its trials ("3 failed, 1 not run"), into b. */
void
history_trend_newest_why(const struct tcell *c, char *b, size_t len)
{
    const json_t *x = c->c[c->newest];
    long long f = (long long)ji(x, "failed"), nr = (long long)ji(x, "not_run");
    if (f > 0 && nr > 0)
        snprintf(b, len, "%lld failed, %lld not run", f, nr);
    else if (nr > 0)
        snprintf(b, len, "%lld not run", nr);
    else
        snprintf(b, len, "%lld failed", f);
}

/* The cells whose newest run has no ok trial: the trend cannot say where they stand now. */
static json_t *
view_newest_failed(const struct trend *t)
{
    json_t *list = json_array();
    for (size_t i = 0; i < t->nscens; i++) {
        const struct tscen *s = &t->scens[i];
        for (size_t j = 0; j < s->ncells; j++) {
            const struct tcell *c = &s->cells[j];
            if (!c->newest_failed)
                continue;
            size_t at = s->cols[c->newest];
            char why[96];
            history_trend_newest_why(c, why, sizeof why);
            json_array_append_new(list, json_pack("{s:s,s:s,s:s,s:s,s:s,s:I,s:s,s:s}", "scenario",
                                                  js(s->def, "name"), "test", js(s->def, "test"),
                                                  "family", js(s->def, "family"), "src", c->src,
                                                  "dst", c->dst, "k", (json_int_t)at + 1, "run_id",
                                                  t->runs[at].run_id, "why", why));
        }
    }
    return list;
}

static json_t *
trend_view(const struct trend *t)
{
    json_t *v = json_object();
    view_runs(t, v);
    json_t *scens = json_array();
    for (size_t i = 0; i < t->nscens; i++)
        if (tscen_trended(&t->scens[i]))
            json_array_append_new(scens, view_scenario(t, &t->scens[i]));
    json_object_set_new(v, "scenarios", scens);
    json_t *nt = view_not_trended(t), *fl = view_flagged(t);
    json_object_set_new(v, "has_not_trended", json_boolean(json_array_size(nt) > 0));
    json_object_set_new(v, "not_trended", nt);
    json_object_set_new(v, "has_flagged", json_boolean(json_array_size(fl) > 0));
    json_object_set_new(v, "flagged", fl);
    json_t *bent = view_bent(t);
    json_object_set_new(v, "has_bent", json_boolean(json_array_size(bent) > 0));
    json_object_set_new(v, "bent", bent);
    json_t *nf = view_newest_failed(t);
    json_object_set_new(v, "has_newest_failed", json_boolean(json_array_size(nf) > 0));
    json_object_set_new(v, "newest_failed", nf);
    json_object_set_new(v, "nruns", json_integer((json_int_t)t->nruns));
    json_object_set_new(v, "threshold", report_jprintf("%.1f %%", t->o->max_regression_pct));
    json_object_set_new(v, "first", json_string(t->runs[0].started));
    json_object_set_new(v, "last", json_string(t->runs[t->nruns - 1].started));
    json_object_set_new(
        v, "summary",
        report_jprintf(
            "%zu runs; %zu scenario%s trended (%zu zone cell%s), %zu in one run only; %zu "
            "cell%s flagged",
            t->nruns, t->ntrended, t->ntrended == 1 ? "" : "s", t->ncells,
            t->ncells == 1 ? "" : "s", t->nscens - t->ntrended, t->nflagged,
            t->nflagged == 1 ? "" : "s"));
    if (t->nnewest_failed >
        0) /* said only then: the outputs of runs that measured stay as they were */
        json_object_set_new(v, "summary",
                            report_jprintf("%s; %zu cell%s without an ok trial in %s newest run",
                                           js(v, "summary"), t->nnewest_failed,
                                           t->nnewest_failed == 1 ? "" : "s",
                                           t->nnewest_failed == 1 ? "its" : "their"));
    json_object_set_new(v, "nothing", json_boolean(t->ntrended == 0));
    json_object_set_new(v, "version", json_string(NS_VERSION));
    return v;
}

/* --- writing -------------------------------------------------------------------------------- */

static int
render_to(const char *name, const json_t *view, enum tmpl_mode mode, const char *dir, struct err *e)
{
    char *owned;
    const char *tm = history_template(name, &owned);
    struct rbuf b;
    report_buf_init(&b);
    int rc = tm ? report_tmpl_render(tm, view, mode, &b, e)
                : err_set(e, NS_ENOTFOUND, "no template %s", name);
    free(owned);
    char path[4096];
    if (rc == 0 && b.oom)
        rc = err_set(e, NS_ENOMEM, "out of memory rendering %s", name);
    if (rc == 0 && (size_t)snprintf(path, sizeof path, "%s/%s", dir, name) >= sizeof path)
        rc = err_set(e, NS_ETOOBIG, "path too long: %s", dir);
    if (rc == 0)
        rc = report_write_file(path, &b, e);
    report_buf_release(&b);
    return rc;
}

/* The charts of every trended scenario into its view; the note when some were not drawn. */
static int
charts_all(const struct trend *t, const char *dir, json_t *view, struct err *e)
{
    char cdir[4096];
    if ((size_t)snprintf(cdir, sizeof cdir, "%s/charts", dir) >= sizeof cdir)
        return err_set(e, NS_ETOOBIG, "path too long: %s", dir);
    int rc = fsdir_make(cdir, NULL, e);
    char why[512];
    char *gp = report_chart_gnuplot_find("netsurvey trend", why, sizeof why);
    struct rchart cx = {.dir = cdir, .gp = gp, .warn = t->o->warn};
    json_t *vs = json_object_get(view, "scenarios");
    for (size_t i = 0, v = 0; rc == 0 && i < t->nscens; i++) {
        const struct tscen *s = &t->scens[i];
        if (!tscen_trended(s))
            continue;
        json_t *sv = json_array_get(vs, v++);
        cx.list = json_array();
        rc = chart_write(t, s, &cx, sv, e);
        json_object_set_new(sv, "charts", cx.list);
    }
    free(gp);
    char note[640] = "";
    if (rc == 0 && cx.gp == NULL && t->ntrended > 0)
        snprintf(note, sizeof note,
                 "Charts were skipped: %s; their scripts and data are in charts/.", why);
    else if (rc == 0 && cx.failed > 0)
        snprintf(note, sizeof note,
                 "%d chart%s could not be drawn (%s); their scripts and data are in charts/.",
                 cx.failed, cx.failed == 1 ? "" : "s", cx.firsterr);
    if (note[0] != '\0')
        json_object_set_new(view, "charts_note", json_string(note));
    return rc;
}

int
history_trend_write(const struct trend *t, const char *dir, struct err *e)
{
    int rc = fsdir_make(dir, NULL, e);
    for (size_t i = 0; rc == 0 && i < t->nscens; i++)
        if (tscen_trended(&t->scens[i]))
            rc = write_csv(t, &t->scens[i], dir, e);
    json_t *view = rc == 0 ? trend_view(t) : NULL;
    if (rc == 0 && view == NULL)
        rc = err_set(e, NS_ENOMEM, "out of memory building the trend's view");
    if (rc == 0)
        rc = charts_all(t, dir, view, e);
    if (rc == 0) {
        char *owned;
        const char *css = history_template("report.css", &owned);
        json_object_set_new(view, "css", json_string(css ? css : ""));
        free(owned);
        rc = render_to("trend.md", view, TMPL_MARKDOWN, dir, e);
    }
    if (rc == 0)
        rc = render_to("trend.html", view, TMPL_HTML, dir, e);
    json_decref(view);
    return rc;
}
