/* compare.c - what `netsurvey compare` shows: a baseline's zone cells against a candidate's,
 * Welch's t-test per matched cell corrected over the family of cells, a verdict (gate.h), and
 * the release gate: a regression (a cell worse by more than PCT) fails it, and so does a
 * comparison that compared nothing or left a baseline cell without counterpart (unless
 * allow_partial); the command line turns the outcome into its exit status. Cells present on one
 * side only are listed with the reason, never guessed. Outputs: compare.md, compare.html, and
 * when asked the JUnit XML (junit.c) and a Markdown summary bounded for a pull-request comment. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/array.h"
#include "common/errors.h"
#include "common/fsdir.h"
#include "common/stats.h"
#include "history/cells.h"
#include "history/dbint.h"
#include "history/gate.h"
#include "history/history.h"
#include "history/junit.h"
#include "journal/journal.h"
#include "report/output.h"
#include "report/report.h"

#define COMPARE_ALPHA 0.05
#define COMPARE_UNMATCHED_LINES 20 /* lines of r->unmatched before "... and N more" */
#define SUMMARY_MAX_ROWS 40        /* the Markdown summary's table, at most */
#define SUMMARY_MAX_BYTES (64u * 1024u)
#define SUMMARY_FIELD_MAX 200       /* bytes of one string in the summary, before escaping */
#define SUMMARY_MAX_PARAM_CHANGES 5 /* scenarios compared across other parameters, listed */

/* A summary scenario's kind. Its journal was read through journal/journal.h, which refuses a
 * kind testspec.h does not know, so every scenario has one (summaries_check). */
static enum testspec_kind
kind_of(const json_t *scen)
{
    return (enum testspec_kind)testspec_kind_find(js(scen, "test"));
}

static void
stats_from(const json_t *cell, struct stats *s)
{
    stats_init(s);
    s->n = (uint64_t)ji(cell, "n");
    s->mean = json_number_value(json_object_get(cell, "mean"));
    double sd = json_number_value(json_object_get(cell, "stddev"));
    s->m2 = s->n > 1 ? sd * sd * (double)(s->n - 1) : 0.0;
    s->min = json_number_value(json_object_get(cell, "min"));
    s->max = json_number_value(json_object_get(cell, "max"));
}

/* --- the cells of a comparison ----------------------------------------------------------- */

enum cside { CC_MATCHED, CC_ONLY_BASE, CC_ONLY_NEW };

struct ccell {
    const json_t *scen; /* the baseline's scenario; the new run's for CC_ONLY_NEW */
    const json_t *bc, *nc;
    enum testspec_kind kind;
    enum cside side;
    bool scen_missing; /* CC_ONLY_BASE: the new run has no such scenario */
    bool partial;      /* CC_MATCHED: a side has failed or not-run trials in the cell */
    size_t g;          /* CC_MATCHED: index in struct cmp's g */
    char why[192];     /* CC_ONLY_BASE / CC_ONLY_NEW: why it was not compared */
};

struct cmp {
    struct ccell *c;
    size_t n, cap;
    struct history_gate_cell *g;
    size_t ng;
    /* counts */
    unsigned nverdict[HISTORY_VERDICT_INCONCLUSIVE + 1], nreg;
    size_t only_base, only_new, scen_missing;
    size_t partial;                 /* matched cells with failed or not-run trials */
    uint64_t failed[2], not_run[2]; /* their trials: [0] the baseline's, [1] the new run's */
};

static struct ccell *
cmp_add(struct cmp *m, const json_t *scen, enum cside side)
{
    if (ARRAY_GROW(&m->c, &m->cap, m->n + 1) != 0)
        return NULL;
    struct ccell *c = &m->c[m->n++];
    memset(c, 0, sizeof *c);
    c->scen = scen;
    c->side = side;
    c->kind = kind_of(scen);
    return c;
}

/* Why the new run gives nothing to compare with: no scenario (perhaps one of the same name run
 * as another kind or family), no such cell, or no ok trial in it. */
static void
why_missing(const json_t *cand, const json_t *scen, const json_t *ns, const json_t *nc,
            struct ccell *c)
{
    if (ns == NULL) {
        c->scen_missing = true;
        size_t i;
        const json_t *s;
        json_array_foreach(json_object_get(cand, "scenarios"), i, s)
        {
            if (!strcmp(js(s, "name"), js(scen, "name"))) {
                char label[160];
                snprintf(c->why, sizeof c->why, "scenario not in the new run (it has %s as %s, %s)",
                         history_scenario_label(s, label, sizeof label), js(s, "test"),
                         js(s, "family"));
                return;
            }
        }
        snprintf(c->why, sizeof c->why, "scenario not in the new run");
    } else if (nc == NULL) {
        snprintf(c->why, sizeof c->why, "not in the new run");
    } else {
        snprintf(c->why, sizeof c->why, "no ok trial in the new run, %lld failed",
                 (long long)ji(nc, "failed"));
    }
}

/* A matched cell's failed and not-run trials, on either side: counted, and the cell marked (it
 * fails the gate unless allow_partial: its figures are of fewer trials than planned). */
static void
partial_count(struct cmp *m, struct ccell *x)
{
    const json_t *side[2] = {x->bc, x->nc};
    for (int k = 0; k < 2; k++) {
        json_int_t f = ji(side[k], "failed"), nr = ji(side[k], "not_run");
        m->failed[k] += f > 0 ? (uint64_t)f : 0;
        m->not_run[k] += nr > 0 ? (uint64_t)nr : 0;
        x->partial |= f > 0 || nr > 0;
    }
    m->partial += x->partial;
}

/* Every cell of base with ok trials, matched or not; then the new run's cells without one. */
static int
cmp_collect(struct cmp *m, const json_t *base, const json_t *cand)
{
    size_t i, j;
    const json_t *s, *c;
    json_array_foreach(json_object_get(base, "scenarios"), i, s)
    {
        const json_t *ns = history_cell_find_scenario(cand, s);
        bool counted = false; /* a scenario without ok cells has nothing to miss */
        json_array_foreach(json_object_get(s, "zone_cells"), j, c)
        {
            if (ji(c, "n") == 0)
                continue;
            if (ns == NULL && !counted) {
                m->scen_missing++;
                counted = true;
            }
            const json_t *nc = ns ? history_cell_find_cell(ns, c) : NULL;
            bool ok = nc != NULL && ji(nc, "n") > 0;
            struct ccell *x = cmp_add(m, s, ok ? CC_MATCHED : CC_ONLY_BASE);
            if (x == NULL)
                return NS_ENOMEM;
            x->bc = c;
            x->nc = ok ? nc : NULL;
            if (ok)
                partial_count(m, x);
            if (!ok) {
                why_missing(cand, s, ns, nc, x);
                m->only_base++;
            }
        }
    }
    json_array_foreach(json_object_get(cand, "scenarios"), i, s)
    {
        const json_t *bs = history_cell_find_scenario(base, s);
        json_array_foreach(json_object_get(s, "zone_cells"), j, c)
        {
            const json_t *bc = bs ? history_cell_find_cell(bs, c) : NULL;
            if (ji(c, "n") == 0 || (bc != NULL && ji(bc, "n") > 0))
                continue;
            struct ccell *x = cmp_add(m, s, CC_ONLY_NEW);
            if (x == NULL)
                return NS_ENOMEM;
            x->nc = c;
            snprintf(x->why, sizeof x->why, "%s",
                     bs == NULL ? "scenario not in the baseline" : "not in the baseline");
            m->only_new++;
        }
    }
    return 0;
}

static enum stats_adjust
adjust_of(enum history_correction c)
{
    return c == HISTORY_CORRECTION_NONE         ? STATS_ADJUST_NONE
           : c == HISTORY_CORRECTION_BONFERRONI ? STATS_ADJUST_BONFERRONI
                                                : STATS_ADJUST_HOLM;
}

static const char *
correction_name(enum history_correction c)
{
    return c == HISTORY_CORRECTION_NONE         ? "none"
           : c == HISTORY_CORRECTION_BONFERRONI ? "Bonferroni"
                                                : "Holm-Bonferroni";
}

static int
cmp_decide(struct cmp *m, const struct history_compare_opts *o)
{
    size_t nm = 0;
    for (size_t i = 0; i < m->n; i++)
        nm += m->c[i].side == CC_MATCHED;
    m->g = calloc(nm ? nm : 1, sizeof *m->g);
    if (m->g == NULL)
        return NS_ENOMEM;
    for (size_t i = 0; i < m->n; i++) {
        struct ccell *c = &m->c[i];
        if (c->side != CC_MATCHED)
            continue;
        c->g = m->ng++;
        stats_from(c->bc, &m->g[c->g].a);
        stats_from(c->nc, &m->g[c->g].b);
        m->g[c->g].lower_is_better = testspec_kind_lower_is_better(c->kind);
    }
    struct history_gate_params prm = {COMPARE_ALPHA, adjust_of(o->correction), o->min_effect_pct,
                                      o->max_regression_pct};
    int rc = history_gate_decide(m->g, m->ng, &prm);
    for (size_t i = 0; rc == 0 && i < m->ng; i++) {
        m->nverdict[m->g[i].verdict]++;
        m->nreg += m->g[i].regression;
    }
    return rc;
}

static void
cmp_release(struct cmp *m)
{
    free(m->c);
    free(m->g);
}

/* --- the view ------------------------------------------------------------------------------ */

static void
fmt_p(double p, char *b, size_t len)
{
    if (isnan(p))
        snprintf(b, len, "n/a");
    else
        snprintf(b, len, p < 0.0001 ? "< 0.0001" : "%.4f", p);
}

/* The verdict as people read it (gate.h's rules). */
static void
verdict_label(const struct history_gate_cell *g, const struct history_compare_opts *o, char *b,
              size_t len)
{
    switch (g->verdict) {
    case HISTORY_VERDICT_SAME:
        snprintf(b, len, "same within ±%.1f %%", o->min_effect_pct);
        break;
    case HISTORY_VERDICT_INCONCLUSIVE:
        snprintf(b, len, "%s",
                 g->p_adj < COMPARE_ALPHA ? "below min-effect, not shown equivalent"
                                          : "no significant change");
        break;
    default:
        snprintf(b, len, "%s",
                 g->verdict == HISTORY_VERDICT_TOO_FEW ? "too few trials"
                                                       : history_verdict_key(g->verdict));
    }
}

/* A cell as the outputs name it: "scenario" as people read it (a sweep's value in it), and a
 * sweep's "sweep" ({"param", "value"}) for machines. */
static json_t *
cell_id(const json_t *scen, const json_t *cell)
{
    char label[512];
    json_t *j = json_pack("{s:s,s:s,s:s,s:s,s:s}", "scenario",
                          history_scenario_label(scen, label, sizeof label), "test",
                          js(scen, "test"), "family", js(scen, "family"), "src_zone",
                          js(cell, "src_zone"), "dst_zone", js(cell, "dst_zone"));
    json_t *sw = history_sweep_json(scen);
    if (j != NULL && sw != NULL)
        json_object_set_new(j, "sweep", sw);
    else
        json_decref(sw);
    return j;
}

/* A matched cell's trials that failed or did not run, per side ("new 1 failed of 3 planned"),
 * into b; "" when there are none. */
static void
trials_note(const struct ccell *c, char *b, size_t len)
{
    const json_t *side[2] = {c->bc, c->nc};
    static const char *const names[2] = {"baseline", "new"};
    size_t k = 0;
    b[0] = '\0';
    for (int i = 0; i < 2 && k < len; i++) {
        long long f = (long long)ji(side[i], "failed"), nr = (long long)ji(side[i], "not_run");
        if (f <= 0 && nr <= 0)
            continue;
        int w = snprintf(b + k, len - k, "%s%s ", k ? "; " : "", names[i]);
        if (w > 0 && f > 0 && (size_t)w < len - k)
            w += snprintf(b + k + (size_t)w, len - k - (size_t)w, "%lld failed%s", f,
                          nr > 0 ? ", " : "");
        if (w > 0 && nr > 0 && (size_t)w < len - k)
            w += snprintf(b + k + (size_t)w, len - k - (size_t)w, "%lld not run", nr);
        if (w > 0 && (size_t)w < len - k)
            w += snprintf(b + k + (size_t)w, len - k - (size_t)w, " of %lld planned",
                          (long long)ji(side[i], "planned"));
        k += w > 0 ? (size_t)w : 0;
    }
}

static json_t *
matched_json(const struct ccell *c, const struct history_gate_cell *g,
             const struct history_compare_opts *o)
{
    char bv[64], nv[64], d[32], p[32], pa[32], pt[32], v[96];
    testspec_kind_value_text(c->kind, g->a.mean, bv, sizeof bv);
    testspec_kind_value_text(c->kind, g->b.mean, nv, sizeof nv);
    snprintf(d, sizeof d, "%+.1f %%", g->delta_pct);
    fmt_p(g->p, p, sizeof p);
    fmt_p(g->p_adj, pa, sizeof pa);
    fmt_p(g->p_tost_adj, pt, sizeof pt);
    verdict_label(g, o, v, sizeof v);
    json_t *j = cell_id(c->scen, c->bc);
    json_object_set_new(j, "metric", json_string(testspec_kind_words(c->kind)));
    json_object_set_new(j, "base", json_string(bv));
    json_object_set_new(j, "base_n", json_integer((json_int_t)g->a.n));
    json_object_set_new(j, "new", json_string(nv));
    json_object_set_new(j, "new_n", json_integer((json_int_t)g->b.n));
    json_object_set_new(j, "delta", json_string(d));
    json_object_set_new(j, "p", json_string(p));
    json_object_set_new(j, "p_adj", json_string(pa));
    json_object_set_new(j, "p_tost", json_string(pt));
    json_object_set_new(j, "verdict", json_string(v));
    json_object_set_new(j, "verdict_class", json_string(history_verdict_key(g->verdict)));
    json_object_set_new(j, "regression", json_boolean(g->regression));
    /* a cell with too few trials fails the gate as a missing one does (unless allowed) */
    json_object_set_new(j, "untested",
                        json_boolean(g->verdict == HISTORY_VERDICT_TOO_FEW && !o->allow_partial));
    /* and so does one whose trials failed or did not run on a side: its figures are of fewer
     * trials than planned */
    char tn[192];
    trials_note(c, tn, sizeof tn);
    json_object_set_new(j, "trials_note", json_string(tn));
    json_object_set_new(
        j, "partial",
        json_boolean(c->partial && !o->allow_partial && g->verdict != HISTORY_VERDICT_TOO_FEW));
    return j;
}

static json_t *
unmatched_json(const struct ccell *c, bool fails_gate)
{
    const json_t *cell = c->side == CC_ONLY_NEW ? c->nc : c->bc;
    char v[64];
    testspec_kind_value_text(c->kind, json_number_value(json_object_get(cell, "mean")), v,
                             sizeof v);
    json_t *j = cell_id(c->scen, cell);
    json_object_set_new(j, "metric", json_string(testspec_kind_words(c->kind)));
    json_object_set_new(j, "value", json_string(v));
    json_object_set_new(j, "n", json_integer(ji(cell, "n")));
    json_object_set_new(j, "reason", json_string(c->why));
    json_object_set_new(j, "missing", json_boolean(fails_gate));
    return j;
}

/* "2 cells" */
static const char *
plural(size_t n, const char *one, const char *many, char *b, size_t len)
{
    snprintf(b, len, "%zu %s", n, n == 1 ? one : many);
    return b;
}

/* What the comparison lacks, for the gate's line: "" when nothing. */
static void
lacks(const struct cmp *m, char *b, size_t len)
{
    char x[64], y[64], z[64];
    size_t k = 0;
    b[0] = '\0';
    if (m->only_base)
        k += (size_t)snprintf(b + k, len - k, "%s of the baseline not in the new run",
                              plural(m->only_base, "cell", "cells", x, sizeof x));
    if (m->scen_missing && k < len)
        k += (size_t)snprintf(b + k, len - k, "%s%s missing entirely", k ? " (" : "",
                              plural(m->scen_missing, "scenario", "scenarios", y, sizeof y));
    if (m->scen_missing && m->only_base && k < len)
        k += (size_t)snprintf(b + k, len - k, ")");
    if (m->nverdict[HISTORY_VERDICT_TOO_FEW] && k < len)
        k += (size_t)snprintf(b + k, len - k, "%s%s with fewer than 2 trials on a side",
                              k ? "; " : "",
                              plural(m->nverdict[HISTORY_VERDICT_TOO_FEW], "matched cell",
                                     "matched cells", z, sizeof z));
    if (m->partial && k < len)
        snprintf(b + k, len - k,
                 "%s%s with failed or not-run trials (baseline %llu failed, %llu not run; new "
                 "%llu failed, %llu not run)",
                 k ? "; " : "", plural(m->partial, "matched cell", "matched cells", z, sizeof z),
                 (unsigned long long)m->failed[0], (unsigned long long)m->not_run[0],
                 (unsigned long long)m->failed[1], (unsigned long long)m->not_run[1]);
}

static enum history_gate
gate_of(const struct cmp *m, bool allow_partial)
{
    size_t compared = m->ng - m->nverdict[HISTORY_VERDICT_TOO_FEW];
    if (m->nreg > 0)
        return HISTORY_GATE_REGRESSION;
    if (compared == 0)
        return HISTORY_GATE_INCOMPLETE;
    if (!allow_partial &&
        (m->only_base || m->scen_missing || m->nverdict[HISTORY_VERDICT_TOO_FEW] || m->partial))
        return HISTORY_GATE_INCOMPLETE;
    return HISTORY_GATE_PASSED;
}

static void
gate_line(const struct cmp *m, enum history_gate gate, const struct history_compare_opts *o,
          char *b, size_t len)
{
    char l[768];
    lacks(m, l, sizeof l);
    size_t compared = m->ng - m->nverdict[HISTORY_VERDICT_TOO_FEW];
    if (gate == HISTORY_GATE_REGRESSION)
        snprintf(b, len, "FAILED: %u regression%s beyond %.1f %%%s%s", m->nreg,
                 m->nreg == 1 ? "" : "s", o->max_regression_pct, l[0] ? "; also: " : "", l);
    else if (compared == 0)
        snprintf(b, len,
                 "FAILED: nothing compared: no cell of the baseline has a counterpart with 2 "
                 "trials or more a side in the new run%s%s",
                 l[0] ? "; " : "", l);
    else if (gate == HISTORY_GATE_INCOMPLETE)
        snprintf(b, len, "FAILED: incomplete: %s (--allow-partial gates on what matched)", l);
    else if (l[0])
        snprintf(b, len,
                 "passed with --allow-partial: no regression beyond %.1f %% among %zu "
                 "compared cells; not compared: %s",
                 o->max_regression_pct, compared, l);
    else
        snprintf(b, len, "passed: no regression beyond %.1f %% among %zu compared cells",
                 o->max_regression_pct, compared);
}

static void
summary_line(const struct cmp *m, enum history_gate gate, const struct history_compare_opts *o,
             char *b, size_t len)
{
    char t[96] = "";
    if (m->partial > 0)
        snprintf(t, sizeof t, " (%llu failed, %llu not run)",
                 (unsigned long long)(m->failed[0] + m->failed[1]),
                 (unsigned long long)(m->not_run[0] + m->not_run[1]));
    snprintf(b, len,
             "%zu matched cell%s: %u worse, %u better, %u same, %u inconclusive, %u with too few "
             "trials, %zu with failed or not-run trials%s; %u regression%s beyond %.1f %% (gate "
             "%s)",
             m->ng, m->ng == 1 ? "" : "s", m->nverdict[HISTORY_VERDICT_WORSE],
             m->nverdict[HISTORY_VERDICT_BETTER], m->nverdict[HISTORY_VERDICT_SAME],
             m->nverdict[HISTORY_VERDICT_INCONCLUSIVE], m->nverdict[HISTORY_VERDICT_TOO_FEW],
             m->partial, t, m->nreg, m->nreg == 1 ? "" : "s", o->max_regression_pct,
             gate == HISTORY_GATE_PASSED ? "passed" : "FAILED");
}

static void
method_line(const struct cmp *m, const struct history_compare_opts *o, char *b, size_t len)
{
    size_t compared = m->ng - m->nverdict[HISTORY_VERDICT_TOO_FEW];
    int k =
        snprintf(b, len,
                 "Welch's t-test on the trial values of each zone cell; p adj. is p adjusted "
                 "over the %zu compared cell%s (correction: %s); a change is significant when "
                 "p adj. < %.2f",
                 compared, compared == 1 ? "" : "s", correction_name(o->correction), COMPARE_ALPHA);
    if (k > 0 && (size_t)k < len && o->min_effect_pct > 0)
        k += snprintf(b + k, len - (size_t)k,
                      "; a change smaller than %.1f %% is never worse or better, and a cell whose "
                      "two one-sided tests (equiv. p, adjusted likewise) show it within ±%.1f %% "
                      "is the same",
                      o->min_effect_pct, o->min_effect_pct);
    if (k > 0 && (size_t)k < len)
        snprintf(b + k, len - (size_t)k,
                 "; the gate fails on a cell worse by more than %.1f %%, and on a baseline cell "
                 "left uncompared or a matched cell with failed or not-run trials%s",
                 o->max_regression_pct, o->allow_partial ? " (not here: --allow-partial)" : "");
}

/* The run's first start as JUnit's timestamp wants it (no zone, no fraction), or "". */
static void
junit_stamp(const json_t *runs, char *b, size_t len)
{
    const char *s = js(json_array_get(runs, 0), "started");
    b[0] = '\0';
    if (strlen(s) >= 19 && s[4] == '-' && s[7] == '-' && s[10] == 'T' && s[13] == ':' &&
        s[16] == ':')
        snprintf(b, len, "%.19s", s);
}

/* --- completeness of the two sides ------------------------------------------------------- */

/* A summary's runs, each with its state and trials in words ("state complete; trials: 24
 * planned: 24 ok, 0 failed, 0 not run"), as report.md says them. */
static json_t *
runs_with_tally(const json_t *runs)
{
    json_t *out = json_deep_copy(runs);
    size_t i;
    json_t *r;
    json_array_foreach(out, i, r)
    {
        const json_t *t = json_object_get(r, "trials");
        const char *st = json_is_true(json_object_get(r, "in_progress"))          ? "in progress"
                         : json_string_value(json_object_get(r, "state")) != NULL ? js(r, "state")
                                                                                  : "not recorded";
        char b[256];
        snprintf(b, sizeof b, "state %s; trials: %lld planned: %lld ok, %lld failed, %lld not run",
                 st, (long long)ji(t, "planned"), (long long)ji(t, "ok"),
                 (long long)ji(t, "failed"), (long long)ji(t, "not_run"));
        json_object_set_new(r, "tally", json_string(b));
    }
    return out;
}

/* What a side's summary says of its completeness, for people; "" when its runs are complete.
 * Its cells compare the trials recorded, and a reader of the gate must know there are fewer. */
static void
side_note(const char *side, const char *dir, const json_t *sum, char *b, size_t len)
{
    const json_t *c = json_object_get(sum, "completeness");
    long long planned = (long long)ji(c, "planned"), not_run = (long long)ji(c, "not_run");
    long long rec = (long long)ji(c, "ok") + (long long)ji(c, "failed");
    /* host pairs of adaptive trials their rule has not decided: planned is the least */
    const char *al = ji(c, "undecided") > 0 ? "at least " : "";
    b[0] = '\0';
    if (json_is_true(json_object_get(c, "in_progress")))
        snprintf(b, len,
                 "The %s run (%s) is still in progress: %lld of its %s%lld planned trials are "
                 "recorded so far, and its cells compare those.",
                 side, dir, rec, al, planned);
    else if (!json_is_true(json_object_get(c, "complete")))
        snprintf(b, len,
                 "The %s run (%s) is incomplete: %s%lld of its %s%lld planned trials were not "
                 "run, and its cells compare the %lld recorded.",
                 side, dir, al, not_run, al, planned, rec);
}

/* The notes of both sides (an array of strings, empty when both are complete); each also a
 * warning on warn. */
static json_t *
completeness_notes(const json_t *base, const json_t *cand, const struct history_compare_opts *o)
{
    json_t *notes = json_array();
    const json_t *sums[] = {base, cand};
    const char *sides[] = {"baseline", "new"}, *dirs[] = {o->base_dir, o->new_dir};
    for (size_t i = 0; i < 2; i++) {
        char b[1024];
        side_note(sides[i], dirs[i], sums[i], b, sizeof b);
        if (b[0] == '\0')
            continue;
        json_array_append_new(notes, json_string(b));
        if (o->warn != NULL)
            fprintf(o->warn, "netsurvey compare: warning: %s\n", b);
    }
    return notes;
}

/* The new run's zone cells holding trials its hosts bent (summary.json's "flagged"), each with
 * report_flagged_text's words: a figure that moved may be the hosts', not the network's. */
static json_t *
flagged_new(const json_t *cand)
{
    json_t *out = json_array();
    size_t i, j;
    const json_t *s, *c;
    json_array_foreach(json_object_get(cand, "scenarios"), i, s)
    {
        json_array_foreach(json_object_get(s, "zone_cells"), j, c)
        {
            json_t *text = report_flagged_text(kind_of(s), c);
            if (text == NULL)
                continue;
            json_array_append_new(out, json_pack("{s:s,s:s,s:s,s:s,s:s,s:o}", "scenario",
                                                 js(s, "name"), "test", js(s, "test"), "family",
                                                 js(s, "family"), "src_zone", js(c, "src_zone"),
                                                 "dst_zone", js(c, "dst_zone"), "text", text));
        }
    }
    return out;
}

/* --- what makes two runs not comparable -------------------------------------------------- */

/* A run both sides hold (a run against itself, or against a copy of its directory): its
 * run_id, or NULL. Each trial would be compared with itself and every cell pass. */
static const char *
shared_run(const json_t *base, const json_t *cand)
{
    size_t i, j;
    const json_t *a, *b;
    json_array_foreach(json_object_get(base, "runs"), i, a)
    {
        json_array_foreach(json_object_get(cand, "runs"), j, b)
        {
            if (*js(a, "run_id") != '\0' && !strcmp(js(a, "run_id"), js(b, "run_id")))
                return js(a, "run_id");
        }
    }
    return NULL;
}

/* The scenarios of both runs whose parameters differ, each with how (history_params_diff):
 * [{"scenario", "test", "family", "changes"}], in the baseline's order. */
static json_t *
param_changes(const json_t *base, const json_t *cand)
{
    json_t *out = json_array();
    size_t i;
    const json_t *s;
    json_array_foreach(json_object_get(base, "scenarios"), i, s)
    {
        const json_t *ns = history_cell_find_scenario(cand, s);
        struct rbuf b;
        report_buf_init(&b);
        if (ns != NULL && history_params_diff(s, ns, &b) > 0)
            json_array_append_new(out, json_pack("{s:s,s:s,s:s,s:s}", "scenario", js(s, "name"),
                                                 "test", js(s, "test"), "family", js(s, "family"),
                                                 "changes", b.oom ? "?" : b.data));
        report_buf_release(&b);
    }
    return out;
}

/* changes as lines ("latency (tcp_rr, ipv4): msg_size 250 → 65536"), or NULL when none. */
static char *
param_changes_text(const json_t *changes)
{
    struct rbuf b;
    report_buf_init(&b);
    size_t i;
    const json_t *c;
    json_array_foreach(changes, i, c)
    {
        report_buf_printf(&b, "%s (%s, %s): %s\n", js(c, "scenario"), js(c, "test"),
                          js(c, "family"), js(c, "changes"));
    }
    if (b.oom || b.len == 0) {
        report_buf_release(&b);
        return NULL;
    }
    return b.data;
}

/* Whether the two sides may be compared at all; NS_EINVAL with the reason in e when not. */
static int
comparable(const json_t *base, const json_t *cand, const json_t *changes,
           const struct history_compare_opts *o, struct err *e)
{
    const char *run = shared_run(base, cand);
    if (run != NULL)
        return err_set(e, NS_EINVAL,
                       "%s and %s hold the same run (%s): a run compared with itself (or a copy "
                       "of its directory) passes every cell; compare it with another run",
                       o->base_dir, o->new_dir, run);
    if (json_array_size(changes) == 0 || o->allow_param_change)
        return 0;
    return err_set(e, NS_EINVAL,
                   "not comparable: %zu scenario%s ran other parameters in %s than in %s, so "
                   "%s cells measure other things (--allow-param-change compares them on "
                   "purpose)",
                   json_array_size(changes), json_array_size(changes) == 1 ? "" : "s", o->new_dir,
                   o->base_dir, json_array_size(changes) == 1 ? "its" : "their");
}

/* The changes of the scenario of c (matched or not), for its JUnit case; "" when none. */
static const char *
cell_param_change(const json_t *changes, const json_t *scen)
{
    size_t i;
    const json_t *c;
    json_array_foreach(changes, i, c)
    {
        if (!strcmp(js(c, "scenario"), js(scen, "name")) &&
            !strcmp(js(c, "test"), js(scen, "test")) &&
            !strcmp(js(c, "family"), js(scen, "family")))
            return js(c, "changes");
    }
    return "";
}

static json_t *
compare_view(const struct cmp *m, const json_t *base, const json_t *cand, enum history_gate gate,
             json_t *changes, const struct history_compare_opts *o)
{
    json_t *cells = json_array(), *only_base = json_array(), *only_new = json_array();
    for (size_t i = 0; i < m->n; i++) {
        const struct ccell *c = &m->c[i];
        json_t *j = c->side == CC_MATCHED
                        ? matched_json(c, &m->g[c->g], o)
                        : unmatched_json(c, c->side == CC_ONLY_BASE && !o->allow_partial);
        json_object_set_new(
            j, "params_changed",
            json_string(c->side == CC_MATCHED ? cell_param_change(changes, c->scen) : ""));
        json_array_append_new(c->side == CC_MATCHED     ? cells
                              : c->side == CC_ONLY_BASE ? only_base
                                                        : only_new,
                              j);
    }
    char sum[512], gl[1024], meth[1024], mr[32], me[32], al[32], ts[32];
    summary_line(m, gate, o, sum, sizeof sum);
    gate_line(m, gate, o, gl, sizeof gl);
    method_line(m, o, meth, sizeof meth);
    snprintf(mr, sizeof mr, "%.1f %%", o->max_regression_pct);
    snprintf(me, sizeof me, "%.1f %%", o->min_effect_pct);
    snprintf(al, sizeof al, "%.2f", COMPARE_ALPHA);
    junit_stamp(json_object_get(cand, "runs"), ts, sizeof ts);
    size_t compared = m->ng - m->nverdict[HISTORY_VERDICT_TOO_FEW];
    return json_pack(
        "{s:s,s:s,s:s,s:s,s:o,s:o,s:s,s:s,s:s,s:s,s:b,s:b,s:o,s:o,s:o,s:s,s:s,s:s,"
        "s:b,s:b,s:I,s:s,s:s,s:o,s:o,s:o}",
        "base_dir", o->base_dir, "new_dir", o->new_dir, "base_title", js(base, "title"),
        "new_title", js(cand, "title"), "base_runs", runs_with_tally(json_object_get(base, "runs")),
        "new_runs", runs_with_tally(json_object_get(cand, "runs")), "max_regression", mr,
        "min_effect", me, "alpha", al, "correction", correction_name(o->correction), "tost_on",
        o->min_effect_pct > 0, "allow_partial", o->allow_partial, "cells", cells, "only_base",
        only_base, "only_new", only_new, "summary", sum, "gate_line", gl, "method", meth, "failed",
        gate != HISTORY_GATE_PASSED, "nothing_compared", compared == 0, "compared",
        (json_int_t)compared, "junit_timestamp", ts, "version", NS_VERSION, "notes",
        completeness_notes(base, cand, o), "flagged_new", flagged_new(cand), "param_changes",
        changes);
}

/* --- what did not match, for the command line -------------------------------------------- */

static char *
unmatched_text(const struct cmp *m)
{
    struct rbuf b;
    report_buf_init(&b);
    size_t lines = 0, more = 0;
    const json_t *last_scen = NULL;
    for (size_t i = 0; i < m->n; i++) {
        const struct ccell *c = &m->c[i];
        const struct history_gate_cell *g = c->side == CC_MATCHED ? &m->g[c->g] : NULL;
        if (c->side == CC_ONLY_NEW ||
            (g != NULL && g->verdict != HISTORY_VERDICT_TOO_FEW && !c->partial))
            continue;
        if (c->scen_missing && c->scen == last_scen)
            continue; /* one line for a scenario the new run lacks */
        if (lines == COMPARE_UNMATCHED_LINES) {
            more++;
            continue;
        }
        lines++;
        if (c->scen_missing) {
            last_scen = c->scen;
            const char *why = c->why;
            if (strncmp(why, "scenario ", 9) == 0)
                why += 9; /* "scenario X: not in the new run" */
            char label[512];
            report_buf_printf(&b, "scenario %s (%s, %s): %s\n",
                              history_scenario_label(c->scen, label, sizeof label),
                              js(c->scen, "test"), js(c->scen, "family"), why);
        } else {
            const json_t *cell = c->bc;
            char label[512];
            report_buf_printf(
                &b, "%s (%s, %s) %s → %s: ", history_scenario_label(c->scen, label, sizeof label),
                js(c->scen, "test"), js(c->scen, "family"), js(cell, "src_zone"),
                js(cell, "dst_zone"));
            char tn[192];
            if (g != NULL && c->partial)
                trials_note(c, tn, sizeof tn);
            if (g != NULL && g->verdict == HISTORY_VERDICT_TOO_FEW)
                report_buf_printf(&b, "too few trials (baseline %llu, new %llu ok)%s%s\n",
                                  (unsigned long long)g->a.n, (unsigned long long)g->b.n,
                                  c->partial ? "; " : "", c->partial ? tn : "");
            else if (g != NULL)
                report_buf_printf(&b, "trials failed or not run (%s)\n", tn);
            else
                report_buf_printf(&b, "%s\n", c->why);
        }
    }
    if (more)
        report_buf_printf(&b, "… and %zu more (compare.md lists every cell)\n", more);
    if (b.oom || b.len == 0) {
        report_buf_release(&b);
        return NULL;
    }
    return b.data;
}

/* --- writing ------------------------------------------------------------------------------- */

static int
render_to(const char *name, const json_t *view, enum tmpl_mode mode, struct rbuf *b, struct err *e)
{
    char *owned;
    const char *t = history_template(name, &owned);
    int rc = t ? report_tmpl_render(t, view, mode, b, e)
               : err_set(e, NS_ENOTFOUND, "no template %s", name);
    free(owned);
    if (rc == 0 && b->oom)
        rc = err_set(e, NS_ENOMEM, "out of memory rendering %s", name);
    return rc;
}

static int
write_rbuf(const char *path, const struct rbuf *b, struct err *e)
{
    int rc = fsdir_make_parent(path, e);
    return rc ? rc : report_write_file(path, b, e);
}

/* s cut to at most max bytes at a character boundary, "…" added when cut; into buf. */
static const char *
clip(const char *s, char *buf, size_t max)
{
    size_t n = strlen(s);
    if (n <= max)
        return s;
    while (n > 0 && (n > max - 3 || ((unsigned char)s[n] & 0xC0) == 0x80))
        n--;
    memcpy(buf, s, n);
    memcpy(buf + n, "…", 4); /* 3 bytes and the NUL */
    return buf;
}

static void
set_clipped(json_t *o, const char *key, const char *s)
{
    char buf[SUMMARY_FIELD_MAX + 4];
    json_object_set_new(o, key, json_string(clip(s, buf, SUMMARY_FIELD_MAX)));
}

/* A summary row: the cells that decide the gate first (regressions, then uncompared baseline
 * cells that fail it), then the other changes (worse, better). */
static int
summary_rank(const json_t *c, bool matched)
{
    if (!matched)
        return json_is_true(json_object_get(c, "missing")) ? 1 : -1;
    if (json_is_true(json_object_get(c, "regression")))
        return 0;
    if (json_is_true(json_object_get(c, "untested")) || json_is_true(json_object_get(c, "partial")))
        return 1;
    const char *v = js(c, "verdict_class");
    return !strcmp(v, "worse") ? 2 : !strcmp(v, "better") ? 3 : -1;
}

static json_t *
summary_row(const json_t *c, bool matched)
{
    json_t *r = json_object();
    char cell[2 * SUMMARY_FIELD_MAX + 16];
    char a[SUMMARY_FIELD_MAX + 4], b[SUMMARY_FIELD_MAX + 4];
    snprintf(cell, sizeof cell, "%s → %s", clip(js(c, "src_zone"), a, SUMMARY_FIELD_MAX / 2),
             clip(js(c, "dst_zone"), b, SUMMARY_FIELD_MAX / 2));
    set_clipped(r, "scenario", js(c, "scenario"));
    json_object_set_new(r, "cell", json_string(cell));
    bool fails = matched ? json_is_true(json_object_get(c, "regression")) ||
                               json_is_true(json_object_get(c, "untested")) ||
                               json_is_true(json_object_get(c, "partial"))
                         : true;
    json_object_set_new(r, "mark", json_string(fails ? "FAIL" : ""));
    if (matched) {
        char v[512];
        const char *tn = js(c, "trials_note");
        snprintf(v, sizeof v, "%s%s%s%s%s",
                 json_is_true(json_object_get(c, "regression")) ? "regression: " : "",
                 js(c, "verdict"), *tn ? " (trials failed or not run: " : "", tn, *tn ? ")" : "");
        json_object_set_new(r, "base", json_string(js(c, "base")));
        json_object_set_new(r, "new", json_string(js(c, "new")));
        json_object_set_new(r, "delta", json_string(js(c, "delta")));
        json_object_set_new(r, "p_adj", json_string(js(c, "p_adj")));
        json_object_set_new(r, "verdict", json_string(v));
    } else {
        json_object_set_new(r, "base", json_string(js(c, "value")));
        json_object_set_new(r, "new", json_string("—"));
        json_object_set_new(r, "delta", json_string("—"));
        json_object_set_new(r, "p_adj", json_string("—"));
        set_clipped(r, "verdict", js(c, "reason"));
    }
    return r;
}

/* The rows of the summary, best first, all of them (the caller keeps the first k). */
static json_t *
summary_rows(const json_t *view)
{
    json_t *rows = json_array();
    for (int rank = 0; rank <= 3; rank++) {
        size_t i;
        const json_t *c;
        json_array_foreach(json_object_get(view, "cells"), i, c)
        {
            if (summary_rank(c, true) == rank)
                json_array_append_new(rows, summary_row(c, true));
        }
        json_array_foreach(json_object_get(view, "only_base"), i, c)
        {
            if (summary_rank(c, false) == rank)
                json_array_append_new(rows, summary_row(c, false));
        }
    }
    return rows;
}

/* The scenarios compared across other parameters (--allow-param-change), the first
 * SUMMARY_MAX_PARAM_CHANGES, each string clipped. */
static json_t *
summary_param_changes(const json_t *view)
{
    json_t *pc = json_array();
    size_t i;
    const json_t *c;
    json_array_foreach(json_object_get(view, "param_changes"), i, c)
    {
        if (i == SUMMARY_MAX_PARAM_CHANGES)
            break;
        json_t *x = json_object();
        set_clipped(x, "scenario", js(c, "scenario"));
        set_clipped(x, "changes", js(c, "changes"));
        json_object_set_new(x, "test", json_string(js(c, "test")));
        json_object_set_new(x, "family", json_string(js(c, "family")));
        json_array_append_new(pc, x);
    }
    return pc;
}

/* The Markdown summary: the first k rows; shrink k until it fits SUMMARY_MAX_BYTES. Its other
 * lines are the template's (a string holds no newline once escaped), so the line count is
 * bounded by SUMMARY_MAX_ROWS too. */
static int
render_summary(const json_t *view, const char *out, struct rbuf *b, struct err *e)
{
    json_t *all = summary_rows(view);
    json_t *sv = json_object();
    static const char *const keys[] = {"new_title", "base_title", "gate_line", "summary"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        set_clipped(sv, keys[i], js(view, keys[i]));
    char cf[64];
    snprintf(cf, sizeof cf, "%s, alpha %s", js(view, "correction"), js(view, "alpha"));
    json_object_set_new(sv, "settings", json_string(cf));
    json_object_set_new(sv, "max_regression", json_string(js(view, "max_regression")));
    json_object_set_new(sv, "min_effect", json_string(js(view, "min_effect")));
    json_object_set_new(sv, "tost_on", json_incref(json_object_get(view, "tost_on")));
    json_object_set_new(sv, "passed", json_boolean(!json_is_true(json_object_get(view, "failed"))));
    /* at most two, each under 1 KiB (side_note) */
    json_object_set_new(sv, "notes", json_incref(json_object_get(view, "notes")));
    json_object_set_new(sv, "param_changes", summary_param_changes(view));
    size_t npc = json_array_size(json_object_get(view, "param_changes"));
    json_object_set_new(sv, "param_changes_more",
                        json_integer(npc > SUMMARY_MAX_PARAM_CHANGES
                                         ? (json_int_t)(npc - SUMMARY_MAX_PARAM_CHANGES)
                                         : 0));
    set_clipped(sv, "out", out);
    json_object_set_new(
        sv, "flagged_new",
        json_integer((json_int_t)json_array_size(json_object_get(view, "flagged_new"))));
    json_object_set_new(
        sv, "only_new",
        json_integer((json_int_t)json_array_size(json_object_get(view, "only_new"))));
    size_t k = json_array_size(all) < SUMMARY_MAX_ROWS ? json_array_size(all) : SUMMARY_MAX_ROWS;
    int rc = 0;
    for (;;) {
        json_t *rows = json_array();
        for (size_t i = 0; i < k; i++)
            json_array_append(rows, json_array_get(all, i));
        json_object_set_new(sv, "rows", rows);
        json_object_set_new(sv, "has_rows", json_boolean(k > 0));
        json_object_set_new(sv, "more", json_integer((json_int_t)(json_array_size(all) - k)));
        report_buf_release(b);
        report_buf_init(b);
        rc = render_to("compare-summary.md", sv, TMPL_MARKDOWN, b, e);
        if (rc != 0 || b->len <= SUMMARY_MAX_BYTES || k == 0)
            break;
        k /= 2;
    }
    json_decref(sv);
    json_decref(all);
    return rc;
}

static int
write_outputs(const json_t *view, const struct history_compare_opts *o, struct err *e)
{
    int rc = fsdir_make(o->out, NULL, e);
    static const struct {
        const char *tmpl;
        enum tmpl_mode mode;
    } outs[] = {{"compare.md", TMPL_MARKDOWN}, {"compare.html", TMPL_HTML}};
    for (size_t i = 0; rc == 0 && i < 2; i++) {
        struct rbuf b;
        report_buf_init(&b);
        rc = render_to(outs[i].tmpl, view, outs[i].mode, &b, e);
        char path[PATH_MAX];
        if (rc == 0 &&
            (size_t)snprintf(path, sizeof path, "%s/%s", o->out, outs[i].tmpl) >= sizeof path)
            rc = err_set(e, NS_ETOOBIG, "path too long: %s", o->out);
        if (rc == 0)
            rc = report_write_file(path, &b, e);
        if (rc == 0 && i == 0 && o->echo != NULL)
            fwrite(b.data, 1, b.len, o->echo);
        report_buf_release(&b);
    }
    if (rc == 0 && o->junit != NULL) {
        struct rbuf b;
        report_buf_init(&b);
        history_junit_render(view, &b);
        rc = b.oom ? err_set(e, NS_ENOMEM, "out of memory writing %s", o->junit)
                   : write_rbuf(o->junit, &b, e);
        report_buf_release(&b);
    }
    if (rc == 0 && o->md_summary != NULL) {
        struct rbuf b;
        report_buf_init(&b);
        rc = render_summary(view, o->out, &b, e);
        if (rc == 0)
            rc = write_rbuf(o->md_summary, &b, e);
        report_buf_release(&b);
    }
    return rc;
}

static void
result_from(const struct cmp *m, enum history_gate gate, struct history_compare_result *r)
{
    r->gate = gate;
    r->regressions = m->nreg;
    r->matched = m->ng;
    r->untested = m->nverdict[HISTORY_VERDICT_TOO_FEW];
    r->compared = m->ng - r->untested;
    r->base_missing = m->only_base;
    r->base_scenarios_missing = m->scen_missing;
    r->partial = m->partial;
}

/* Whether file (resolved) is path, resolved too. */
static bool
same_path(const char *file, const char *path)
{
    char a[PATH_MAX], b[PATH_MAX];
    return fsdir_resolve(file, a) && fsdir_resolve(path, b) && strcmp(a, b) == 0;
}

/* Whether OUT, a run directory, is BASE's or NEW's: one of the two directories, or with db a
 * directory of one of the two runs (report --db writes them back as such). */
static bool
out_is_sides(const struct history_compare_opts *o)
{
    if (o->db == NULL)
        return fsdir_same(o->out, o->base_dir) || fsdir_same(o->out, o->new_dir);
    char *id = history_db_dir_run_id(o->out);
    bool ours = id != NULL && (strcmp(id, o->base_dir) == 0 || strcmp(id, o->new_dir) == 0);
    free(id);
    return ours;
}

/* Before anything is read or written: no output file over a run's own files (--junit
 * B/results.jsonl overwrote B's journal) or over another output, and OUT no run's directory
 * but BASE's or NEW's. */
static int
outputs_check(const struct history_compare_opts *o, struct err *e)
{
    static const char *const opts[] = {"--junit", "--markdown-summary"};
    const char *files[] = {o->junit, o->md_summary};
    for (size_t i = 0; i < 2; i++) {
        if (files[i] == NULL)
            continue;
        bool input = journal_is_run_file(files[i]);
        if (o->db != NULL && history_db_is_file(o->db, files[i]))
            return err_set(e, NS_EINVAL,
                           "%s %s is the history database's own file: writing it would destroy "
                           "the database (nothing written)",
                           opts[i], files[i]);
        const char *dirs[] = {o->base_dir, o->new_dir};
        static const char *const names[] = {JOURNAL_RUN_FILE, JOURNAL_RESULTS_FILE};
        for (size_t d = 0; d < 2 && !input && o->db == NULL; d++) /* a hard link to one is one */
            for (size_t k = 0; k < 2 && !input; k++) {
                char p[PATH_MAX];
                input = (size_t)snprintf(p, sizeof p, "%s/%s", dirs[d], names[k]) < sizeof p &&
                        fsdir_same(files[i], p);
            }
        if (input)
            return err_set(e, NS_EINVAL,
                           "%s %s is a run's own file: writing it would destroy the run's "
                           "journal (nothing written)",
                           opts[i], files[i]);
        char md[PATH_MAX], html[PATH_MAX];
        snprintf(md, sizeof md, "%s/compare.md", o->out);
        snprintf(html, sizeof html, "%s/compare.html", o->out);
        if (same_path(files[i], md) || same_path(files[i], html) ||
            (i == 1 && files[0] != NULL && same_path(files[1], files[0])))
            return err_set(e, NS_EINVAL,
                           "%s %s is another output of this comparison (nothing "
                           "written)",
                           opts[i], files[i]);
    }
    if (journal_is_run_dir(o->out) && !out_is_sides(o))
        return err_set(e, NS_EINVAL,
                       "-o %s is the directory of another run than BASE and NEW: give the "
                       "comparison a folder of its own (nothing written)",
                       o->out);
    return 0;
}

/* A side's summary: its run directory's, or its run's in the history database. */
static int
compare_read(const struct history_compare_opts *o, const char *side, json_t **sum, bool *db_failed,
             struct err *e)
{
    *db_failed = false;
    if (o->db == NULL)
        return report_summary_read(side, o->warn, sum, e);
    int rc = history_db_summary(o->db, side, sum, db_failed, e);
    *db_failed = rc != 0 && *db_failed;
    return rc;
}

int
history_compare(const struct history_compare_opts *o, struct history_compare_result *r,
                struct err *e)
{
    memset(r, 0, sizeof *r);
    int rc0 = outputs_check(o, e);
    if (rc0 != 0) {
        r->failure = HISTORY_COMPARE_USAGE;
        return rc0;
    }
    report_jarena_begin();
    json_t *base = NULL, *cand = NULL;
    bool db_failed;
    int rc = compare_read(o, o->base_dir, &base, &db_failed, e);
    if (rc == 0)
        rc = compare_read(o, o->new_dir, &cand, &db_failed, e);
    if (rc != 0) {
        json_decref(base);
        report_jarena_end();
        r->failure = rc == NS_ENOMEM ? HISTORY_COMPARE_OUTPUT
                     : db_failed     ? HISTORY_COMPARE_DATABASE
                     : o->db != NULL ? HISTORY_COMPARE_USAGE
                                     : HISTORY_COMPARE_JOURNAL;
        return rc;
    }
    json_t *changes = param_changes(base, cand);
    if ((rc = comparable(base, cand, changes, o, e)) != 0) {
        r->param_changes = param_changes_text(changes);
        json_decref(changes);
        json_decref(base);
        json_decref(cand);
        report_jarena_end();
        r->failure = HISTORY_COMPARE_NOT_COMPARABLE;
        return rc;
    }
    struct cmp m = {0};
    rc = cmp_collect(&m, base, cand);
    if (rc == 0)
        rc = cmp_decide(&m, o);
    json_t *view = NULL;
    enum history_gate gate = gate_of(&m, o->allow_partial);
    if (rc == 0 && (view = compare_view(&m, base, cand, gate, json_incref(changes), o)) == NULL)
        rc = NS_ENOMEM;
    json_decref(base);
    json_decref(cand);
    if (rc == NS_ENOMEM)
        err_set(e, rc, "out of memory comparing");
    if (rc == 0) {
        char *owned;
        const char *css = history_template("report.css", &owned);
        json_object_set_new(view, "css", json_string(css ? css : ""));
        free(owned);
        rc = write_outputs(view, o, e);
    }
    if (rc == 0) {
        result_from(&m, gate, r);
        r->unmatched = unmatched_text(&m);
        r->param_changes = param_changes_text(changes);
    }
    r->failure = HISTORY_COMPARE_OUTPUT;
    json_decref(changes);
    json_decref(view);
    cmp_release(&m);
    report_jarena_end();
    return rc;
}

void
history_compare_result_release(struct history_compare_result *r)
{
    free(r->unmatched);
    free(r->param_changes);
    r->unmatched = NULL;
    r->param_changes = NULL;
}
