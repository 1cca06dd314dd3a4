/* matrixstat.c - the stat matrices beside a scenario's mean matrix, and its directions' test.
 *
 * A mean hides a tail and a bad trial: the latency kinds get the median and p99 of each cell's
 * merged histogram (the cell's distribution over every sample of its trials, so that a tail one
 * trial had stays in the p99), the rate kinds the cell's lowest trial. A matrix published as
 * symmetric (seed 001 assumes it) can be checked, since every direction was measured: the
 * trial values of A -> B and B -> A go through Welch's t-test, and a pair is said asymmetric
 * only where the difference is both significant and large enough to matter.
 *
 * Everything here reads the zone cells aggregate.c put into the summary (their numbers are the
 * doubles it computed, not text), so the mean matrix and these agree by construction. */
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/errors.h"
#include "common/stats.h"
#include "common/units.h"
#include "report/matrixstat.h"
#include "report/reportint.h"

/* One stat matrix: the kinds that have it and where a summary zone cell holds its value. */
struct mstat {
    const char *key;     /* summary "stat", and the file's suffix: matrix-<scenario>-<key>.csv */
    const char *title;   /* the report's heading */
    const char *words;   /* what a cell is, in captions; NULL: the worst trial's figure */
    const char *source;  /* what a cell's value is ("each cell is ..."), summary.json too */
    const char *rtt_key; /* its key in the cell's rtt_us (microseconds); NULL: cell_key */
    const char *cell_key;
    int fig; /* a figure beside the headline (enum testspec_metric): the mean of its trials' value,
              * the cell's figures.<key>.mean; -1 for the others */
};

static const struct mstat mstats[] = {
    {"p50", "Median latency (p50)", "median RTT (p50)",
     "the median of every sample of its trials (their merged histograms, no averaged percentile)",
     "p50", NULL, -1},
    {"p99", "p99 latency", "p99 RTT",
     "the 99th percentile of every sample of its trials (merged histograms)", "p99", NULL, -1},
    {"min", "Minimum (worst trial)", NULL,
     "the lowest trial value of its host pairs: the least the path delivered in a trial", NULL,
     "min", -1},
};
#define NMSTATS (sizeof mstats / sizeof mstats[0])

static bool
mstat_applies(const struct mstat *s, enum testspec_kind k)
{
    return s->rtt_key != NULL ? testspec_kind_has_rtt(k) : !testspec_kind_lower_is_better(k);
}

/* The stat of a summary zone cell; NAN when it has none (no ok trial, no histogram). */
static double
mstat_value(const struct mstat *s, const json_t *cell)
{
    const json_t *v =
        s->fig >= 0
            ? json_object_get(json_object_get(json_object_get(cell, "figures"), s->key), "mean")
        : s->rtt_key != NULL ? json_object_get(json_object_get(cell, HISTJSON_RTT), s->rtt_key)
                             : json_object_get(cell, s->cell_key);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

static size_t
label_index(const char *const *labels, size_t n, const char *l)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(labels[i], l) == 0)
            return i;
    return n;
}

/* A scenario's zone cells by (src, dst) index: grid[r * n + c], NULL where none. */
struct grid {
    size_t n;
    const char **labels;
    const json_t **cell;
};

static void
grid_release(struct grid *g)
{
    free(g->labels);
    free(g->cell);
}

/* From the labels of the view's matrix columns (the zones, in the matrix's order) and the
 * summary's zone cells, which carry the same labels. */
static int
grid_init(struct grid *g, const json_t *cols, const json_t *cells)
{
    size_t n = json_array_size(cols);
    g->n = n;
    g->labels = calloc(n ? n : 1, sizeof *g->labels);
    g->cell = calloc(n ? n * n : 1, sizeof *g->cell);
    if (g->labels == NULL || g->cell == NULL)
        return NS_ENOMEM;
    for (size_t i = 0; i < n; i++)
        g->labels[i] = js(json_array_get(cols, i), "label");
    size_t i;
    const json_t *c;
    json_array_foreach(cells, i, c)
    {
        size_t r = label_index(g->labels, n, js(c, "src_zone"));
        size_t d = label_index(g->labels, n, js(c, "dst_zone"));
        if (r < n && d < n)
            g->cell[r * n + d] = c;
    }
    return 0;
}

/* --- stat matrices ------------------------------------------------------------------------ */

/* A cell without the stat, in the words of the mean matrix: nothing measured, no trial ok,
 * or (latency) ok trials that carried no histogram. */
static const char *
cell_missing_text(const json_t *cell)
{
    if (cell == NULL)
        return "—";
    if (json_integer_value(json_object_get(cell, "n")) > 0)
        return "no histogram";
    return json_integer_value(json_object_get(cell, "failed")) > 0 ? "failed" : "not run";
}

/* One stat matrix into the summary (numbers, measured cells only) and the view (every cell). */
static void
stat_matrix(const struct mstat *s, const struct grid *g, enum testspec_kind k, const json_t *ssum,
            const json_t *sview, json_t *slist, json_t *vlist)
{
    char file[512], b[64], words[128];
    report_matrix_file(file, sizeof file, js(ssum, "file_key"), s->key);
    /* a percentile of the RTT reads as the mean RTT does, a figure beside the headline as its
     * metric */
    enum testspec_metric metric = s->fig >= 0          ? (enum testspec_metric)s->fig
                                  : s->rtt_key != NULL ? TESTSPEC_M_RTT_MEAN
                                                       : testspec_kind_metric(k);
    const char *unit = testspec_metric_unit(metric);
    struct rvals vals = {0};
    for (size_t i = 0; i < g->n * g->n; i++)
        if (g->cell[i] != NULL && !isnan(mstat_value(s, g->cell[i])))
            report_vals_add(&vals, mstat_value(s, g->cell[i]));
    struct testspec_scale sc = report_scale(metric, vals.v, vals.n);
    report_vals_release(&vals);
    json_t *cells = json_array(), *rows = json_array();
    size_t partial = 0;
    for (size_t r = 0; r < g->n; r++) {
        json_t *vcells = json_array();
        for (size_t c = 0; c < g->n; c++) {
            const json_t *cell = g->cell[r * g->n + c];
            double v = cell != NULL ? mstat_value(s, cell) : NAN;
            bool has = !isnan(v);
            /* percentiles merge the trials that carried a histogram: all, or some (said) */
            json_int_t n = cell != NULL ? json_integer_value(json_object_get(cell, "n")) : 0;
            json_int_t from = s->rtt_key != NULL
                                  ? json_integer_value(json_object_get(
                                        json_object_get(cell, HISTJSON_RTT), "trials"))
                                  : n;
            if (has) {
                json_t *o = json_pack("{s:s,s:s,s:f}", "src_zone", g->labels[r], "dst_zone",
                                      g->labels[c], "value", v);
                if (s->rtt_key != NULL)
                    json_object_set_new(o, "trials", json_integer(from));
                json_array_append_new(cells, o);
            }
            json_t *text = has ? report_scaled_json(&sc, v) : json_string(cell_missing_text(cell));
            if (has && from < n) {
                partial++;
                json_decref(text);
                text = report_jprintf("%s · from %lld of %lld trials",
                                      testspec_scale_text(&sc, v, b, sizeof b), (long long)from,
                                      (long long)n);
            }
            /* every key in every cell: a missing one would be looked up in the scenario */
            json_array_append_new(vcells, json_pack("{s:o,s:b}", "text", text, "empty", !has));
        }
        json_array_append_new(rows, json_pack("{s:s,s:o}", "label", g->labels[r], "cells", vcells));
    }
    json_array_append_new(slist, json_pack("{s:s,s:s,s:s,s:s,s:s,s:o}", "stat", s->key, "title",
                                           s->title, "unit", unit, "source", s->source, "file",
                                           file, "cells", cells));
    if (s->words != NULL)
        snprintf(words, sizeof words, "%s", s->words);
    else /* a trial's figure: the kind's */
        snprintf(words, sizeof words, "worst trial's %s", testspec_kind_words(k));
    json_array_append_new(
        vlist,
        json_pack("{s:s,s:s,s:o,s:s,s:s,s:o,s:O,s:o,s:o}", "stat", s->key, "title", s->title,
                  "caption", report_fig_caption(sview, words, sc.unit), "source", s->source, "file",
                  file, "note",
                  partial > 0 ? report_jprintf("The percentiles of %zu cell%s come from part of "
                                               "%s trials (a trial that carried no histogram): "
                                               "each says from how many.",
                                               partial, partial == 1 ? "" : "s",
                                               partial == 1 ? "its" : "their")
                              : json_string(""),
                  "cols", json_object_get(json_object_get(sview, "matrix"), "cols"), "rows", rows,
                  "scale", report_scale_json(&sc)));
}

/* The figures the scenario reports beside its headline (group_head's "figures": their names
 * from testspec.h), each a stat matrix of its trials' mean: "Idle mean RTT", "Load throughput",
 * "Forward throughput" and "Reverse throughput" of --bidir. */
static void
figure_matrices(const struct grid *g, enum testspec_kind k, const json_t *ssum, const json_t *sview,
                json_t *slist, json_t *vlist)
{
    size_t i;
    const json_t *f;
    json_array_foreach(json_object_get(ssum, "figures"), i, f)
    {
        int m = -1;
        for (int j = 0; j < TESTSPEC_METRIC_COUNT && m < 0; j++) {
            const char *name = testspec_metric_figure((enum testspec_metric)j);
            m = name != NULL && strcmp(name, js(f, "name")) == 0 ? j : -1;
        }
        if (m < 0)
            continue;
        const char *words = testspec_metric_words((enum testspec_metric)m);
        const char *note = testspec_metric_note((enum testspec_metric)m);
        char title[128], source[512];
        snprintf(title, sizeof title, "%c%s", toupper((unsigned char)words[0]), words + 1);
        snprintf(source, sizeof source, note != NULL ? "the mean of its trials' %s (%s)" : "%s%s",
                 note != NULL ? words : "the mean of its trials' figure", note != NULL ? note : "");
        struct mstat s = {js(f, "name"), title, words, source, NULL, NULL, m};
        stat_matrix(&s, g, k, ssum, sview, slist, vlist);
    }
}

/* --- asymmetry ---------------------------------------------------------------------------- */

/* A direction's trial values as Welch needs them: count, mean and the sum of squared
 * deviations, from the cell's n, mean and (sample) stddev; n 0 for no cell. */
static struct stats
cell_moments(const json_t *cell)
{
    struct stats st;
    stats_init(&st);
    json_int_t n = cell != NULL ? json_integer_value(json_object_get(cell, "n")) : 0;
    if (n <= 0)
        return st;
    double sd = json_number_value(json_object_get(cell, "stddev"));
    st.n = (uint64_t)n;
    st.mean = json_number_value(json_object_get(cell, "mean"));
    st.m2 = n > 1 ? sd * sd * (double)(n - 1) : 0.0;
    st.min = json_number_value(json_object_get(cell, "min"));
    st.max = json_number_value(json_object_get(cell, "max"));
    return st;
}

/* The difference of the means relative to the lower one, signed (+: a -> b higher): "the
 * higher direction exceeds the lower by x %" reads the same whichever way the pair is named. */
static double
diff_pct(double ab, double ba)
{
    double lo = fmin(fabs(ab), fabs(ba)), hi = fmax(fabs(ab), fabs(ba));
    double den = lo > 0.0 ? lo : hi;
    return den > 0.0 ? 100.0 * (ab - ba) / den : 0.0;
}

static void
fmt_p(double p, char *buf, size_t len)
{
    if (p == 0.0)
        snprintf(buf, len, "0");
    else if (p >= 0.001)
        snprintf(buf, len, "%.3f", p);
    else
        snprintf(buf, len, "%.1e", p);
}

/* "Welch t = 3.87, df = 2.9, p = 0.032" */
static void
welch_text(const struct stats_welch *w, char *buf, size_t len)
{
    char p[32];
    fmt_p(w->p, p, sizeof p);
    if (isfinite(w->t))
        snprintf(buf, len, "Welch t = %.2f, df = %.1f, p = %s", fabs(w->t), w->df, p);
    else
        snprintf(buf, len, "no variation within either direction, p = %s", p);
}

/* What the tests of a scenario add up to. */
struct asym_acc {
    json_t *pairs, *flags;
    size_t both, tested, flagged;
    size_t oneway;        /* zone pairs with ok trials in one direction only */
    struct rbuf untested; /* "1 ↔ 3, ..." capped */
    size_t nuntested;
};

#define ASYM_UNTESTED_SHOWN 10

/* Test zones r and c (r < c) of g when both directions have ok trials. */
static void
asym_pair(const struct grid *g, size_t r, size_t c, enum testspec_kind k, struct asym_acc *acc)
{
    const json_t *cab = g->cell[r * g->n + c], *cba = g->cell[c * g->n + r];
    struct stats ab = cell_moments(cab), ba = cell_moments(cba);
    if (ab.n == 0 || ba.n == 0) {
        acc->oneway += ab.n > 0 || ba.n > 0;
        return;
    }
    acc->both++;
    const char *la = g->labels[r], *lb = g->labels[c];
    double d = diff_pct(ab.mean, ba.mean);
    json_t *o = json_pack("{s:s,s:s,s:I,s:I,s:f,s:f,s:f}", "zone_a", la, "zone_b", lb, "n_ab",
                          (json_int_t)ab.n, "n_ba", (json_int_t)ba.n, "mean_ab", ab.mean, "mean_ba",
                          ba.mean, "diff_pct", d);
    struct stats_welch w;
    if (stats_welch_test(&ba, &ab, &w) != 0) {
        json_object_set_new(o, "tested", json_false());
        json_object_set_new(o, "asymmetric", json_false());
        json_array_append_new(acc->pairs, o);
        if (acc->nuntested++ < ASYM_UNTESTED_SHOWN)
            report_buf_printf(&acc->untested, "%s%s ↔ %s", acc->nuntested > 1 ? ", " : "", la, lb);
        return;
    }
    acc->tested++;
    bool asym = w.p < REPORT_ASYM_ALPHA && fabs(d) > REPORT_ASYM_MIN_EFFECT_PCT;
    json_object_set_new(o, "tested", json_true());
    /* trials without variation on both sides: t is infinite, which JSON cannot hold */
    json_object_set_new(o, "t", isfinite(w.t) ? json_real(w.t) : json_null());
    json_object_set_new(o, "df", json_real(w.df));
    json_object_set_new(o, "p", json_real(w.p));
    json_object_set_new(o, "asymmetric", json_boolean(asym));
    json_array_append_new(acc->pairs, o);
    if (!asym)
        return;
    acc->flagged++;
    bool abhi = d > 0;
    char hi[64], lo[64], test[96];
    testspec_kind_value_text(k, abhi ? ab.mean : ba.mean, hi, sizeof hi);
    testspec_kind_value_text(k, abhi ? ba.mean : ab.mean, lo, sizeof lo);
    welch_text(&w, test, sizeof test);
    json_array_append_new(
        acc->flags,
        json_pack("{s:s,s:s,s:o}", "zone_a", abhi ? la : lb, "zone_b", abhi ? lb : la, "text",
                  report_jprintf("%s → %s is %.1f %% higher than %s → %s: %s against %s (means "
                                 "of %llu and %llu trials; %s)",
                                 abhi ? la : lb, abhi ? lb : la, fabs(d), abhi ? lb : la,
                                 abhi ? la : lb, hi, lo, (unsigned long long)(abhi ? ab.n : ba.n),
                                 (unsigned long long)(abhi ? ba.n : ab.n), test)));
}

/* The sentence under the matrix: what was tested, and what was found. */
static json_t *
asym_text(const struct asym_acc *acc)
{
    struct rbuf b;
    report_buf_init(&b);
    if (acc->both == 0)
        report_buf_printf(&b,
                          "No zone pair has ok trials in both directions: whether the matrix is "
                          "symmetric was not tested.");
    else if (acc->flagged == 0 && acc->tested > 0)
        report_buf_printf(
            &b,
            "No asymmetry found: in none of the %zu zone pairs tested do A → B and B → A "
            "differ significantly (Welch t-test on the trial values, p under %.2f) by "
            "more than %.0f %%.",
            acc->tested, REPORT_ASYM_ALPHA, REPORT_ASYM_MIN_EFFECT_PCT);
    else if (acc->flagged > 0)
        report_buf_printf(
            &b,
            "Asymmetric: %zu of the %zu zone pairs tested differ%s significantly "
            "between directions (Welch t-test on the trial values, p under %.2f) by more "
            "than %.0f %%; the matrix is not symmetric there.",
            acc->flagged, acc->tested, acc->flagged == 1 ? "s" : "", REPORT_ASYM_ALPHA,
            REPORT_ASYM_MIN_EFFECT_PCT);
    if (acc->oneway > 0)
        report_buf_printf(&b, "%s%zu zone pair%s ok trials in one direction only.",
                          b.len ? " " : "", acc->oneway, acc->oneway > 1 ? "s have" : " has");
    if (acc->nuntested > 0)
        report_buf_printf(
            &b,
            "%s%zu zone pair%s with fewer than 2 ok trials in a direction could not be "
            "tested: %s%s.",
            b.len ? " " : "", acc->nuntested, acc->nuntested > 1 ? "s" : "",
            acc->untested.data ? acc->untested.data : "",
            acc->nuntested > ASYM_UNTESTED_SHOWN ? ", ..." : "");
    json_t *t = json_string(b.data ? b.data : "");
    report_buf_release(&b);
    return t;
}

/* Every zone pair of g (each unordered pair once, the diagonal has no other direction). */
static void
asymmetry(const struct grid *g, enum testspec_kind k, json_t *ssum, json_t *sview)
{
    struct asym_acc acc = {.pairs = json_array(), .flags = json_array()};
    report_buf_init(&acc.untested);
    for (size_t r = 0; r < g->n; r++)
        for (size_t c = r + 1; c < g->n; c++)
            asym_pair(g, r, c, k, &acc);
    json_object_set_new(
        ssum, "asymmetry",
        json_pack("{s:s,s:s,s:f,s:f,s:I,s:I,s:I,s:I,s:o}", "test",
                  "Welch's t-test (two-sided) on the trial values of A -> B and B -> A", "effect",
                  "diff_pct: (mean_ab - mean_ba) / the lower mean, in %", "alpha",
                  REPORT_ASYM_ALPHA, "min_effect_pct", REPORT_ASYM_MIN_EFFECT_PCT, "zone_pairs",
                  (json_int_t)acc.both, "one_way", (json_int_t)acc.oneway, "tested",
                  (json_int_t)acc.tested, "asymmetric", (json_int_t)acc.flagged, "pairs",
                  acc.pairs));
    /* the view says nothing where there is no other zone to differ from */
    if (g->n >= 2)
        json_object_set_new(sview, "asymmetry",
                            json_pack("{s:o,s:o,s:b}", "text", asym_text(&acc), "flags", acc.flags,
                                      "has_flags", acc.flagged > 0));
    else
        json_decref(acc.flags);
    report_buf_release(&acc.untested);
}

/* --- per scenario ------------------------------------------------------------------------- */

static int
scenario_stats(json_t *ssum, json_t *sview)
{
    int ki = testspec_kind_find(js(ssum, "test"));
    if (ki < 0)
        return 0; /* the journal refuses unknown kinds: nothing to say of one */
    enum testspec_kind k = (enum testspec_kind)ki;
    struct grid g = {0};
    if (grid_init(&g, json_object_get(json_object_get(sview, "matrix"), "cols"),
                  json_object_get(ssum, "zone_cells")) != 0) {
        grid_release(&g);
        return NS_ENOMEM;
    }
    json_t *slist = json_array(), *vlist = json_array();
    for (size_t i = 0; i < NMSTATS; i++)
        if (mstat_applies(&mstats[i], k))
            stat_matrix(&mstats[i], &g, k, ssum, sview, slist, vlist);
    figure_matrices(&g, k, ssum, sview, slist, vlist);
    json_object_set_new(ssum, "stat_matrices", slist);
    json_object_set_new(sview, "stat_matrices", vlist);
    asymmetry(&g, k, ssum, sview);
    grid_release(&g);
    return 0;
}

/* The names a file key gives a scenario's matrices: its own, its regions', its stats'. */
#define KEY_NAMES (2 + NMSTATS)

static void
key_names(const char *key, char names[KEY_NAMES][320])
{
    snprintf(names[0], sizeof names[0], "%.300s", key);
    snprintf(names[1], sizeof names[1], "%.300s-%s", key, REPORT_MATRIX_REGIONS);
    for (size_t i = 0; i < NMSTATS; i++)
        snprintf(names[2 + i], sizeof names[2 + i], "%.300s-%s", key, mstats[i].key);
}

/* Whether one of names is among taken[0..n). */
static bool
key_taken(char (*taken)[320], size_t n, char names[KEY_NAMES][320])
{
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < KEY_NAMES; k++)
            if (strcmp(taken[i], names[k]) == 0)
                return true;
    return false;
}

int
report_file_keys_unique(json_t *sum, json_t *view)
{
    const json_t *ss = json_object_get(sum, "scenarios"), *vs = json_object_get(view, "scenarios");
    size_t n = json_array_size(ss);
    char(*taken)[320] = calloc(n * KEY_NAMES + 1, sizeof *taken);
    if (taken == NULL)
        return NS_ENOMEM;
    size_t nt = 0;
    for (size_t i = 0; i < n; i++) {
        json_t *s = json_array_get(ss, i), *v = json_array_get(vs, i);
        char base[300], key[320], names[KEY_NAMES][320];
        snprintf(base, sizeof base, "%s", js(s, "file_key"));
        snprintf(key, sizeof key, "%s", base);
        key_names(key, names);
        for (unsigned k = 2; key_taken(taken, nt, names); k++) {
            snprintf(key, sizeof key, "%.290s-%u", base, k);
            key_names(key, names);
        }
        memcpy(taken[nt], names, sizeof names);
        nt += KEY_NAMES;
        if (strcmp(key, base) == 0)
            continue;
        json_object_set_new(s, "file_key", json_string(key));
        json_object_set_new(v, "file_key", json_string(key));
        json_object_set_new(
            v, "key_note",
            report_jprintf("Its files are named %s: %s would share a name with another "
                           "scenario's matrix or chart.",
                           key, base));
    }
    free(taken);
    return 0;
}

int
report_matrix_stats(json_t *sum, json_t *view)
{
    const json_t *ss = json_object_get(sum, "scenarios"), *vs = json_object_get(view, "scenarios");
    for (size_t i = 0; i < json_array_size(ss) && i < json_array_size(vs); i++) {
        int rc = scenario_stats(json_array_get(ss, i), json_array_get(vs, i));
        if (rc != 0)
            return rc;
    }
    return 0;
}

/* --- CSV ---------------------------------------------------------------------------------- */

/* The same layout as matrix-<scenario>.csv: "src\dst (<unit>),<zone>,..." then one row per
 * source zone, the value with 3 decimals, empty where the cell has none. */
static int
write_stat_csv(const char *path, const json_t *zones, const json_t *m, struct err *e)
{
    size_t n = json_array_size(zones);
    const char **labels = calloc(n ? n : 1, sizeof *labels);
    double *v = malloc((n ? n * n : 1) * sizeof *v);
    if (labels == NULL || v == NULL) {
        free(labels);
        free(v);
        return err_set(e, NS_ENOMEM, "out of memory writing %s", path);
    }
    for (size_t i = 0; i < n; i++)
        labels[i] = js(json_array_get(zones, i), "label");
    for (size_t i = 0; i < n * n; i++)
        v[i] = NAN;
    size_t i;
    const json_t *c;
    json_array_foreach(json_object_get(m, "cells"), i, c)
    {
        size_t r = label_index(labels, n, js(c, "src_zone"));
        size_t d = label_index(labels, n, js(c, "dst_zone"));
        if (r < n && d < n)
            v[r * n + d] = json_number_value(json_object_get(c, "value"));
    }
    struct rbuf b;
    report_buf_init(&b);
    report_csv_corner(&b, js(m, "unit"));
    for (size_t col = 0; col < n; col++) {
        report_buf_puts(&b, ",");
        report_buf_csv_field(&b, labels[col]);
    }
    report_buf_puts(&b, "\n");
    for (size_t r = 0; r < n; r++) {
        report_buf_csv_field(&b, labels[r]);
        for (size_t col = 0; col < n; col++) {
            report_buf_puts(&b, ",");
            if (!isnan(v[r * n + col]))
                report_buf_printf(&b, "%.3f", v[r * n + col]);
        }
        report_buf_puts(&b, "\n");
    }
    int rc = report_write_file(path, &b, e);
    report_buf_release(&b);
    free(labels);
    free(v);
    return rc;
}

int
report_matrix_csvs(const char *dir, const json_t *sum, struct err *e)
{
    size_t i, j;
    const json_t *s, *m;
    json_array_foreach(json_object_get(sum, "scenarios"), i, s)
    {
        json_array_foreach(json_object_get(s, "stat_matrices"), j, m)
        {
            if (json_is_null(json_object_get(m, "file")))
                continue; /* its name is another scenario's matrix */
            char path[4096];
            snprintf(path, sizeof path, "%s/%s", dir, js(m, "file"));
            int rc = write_stat_csv(path, json_object_get(sum, "zones"), m, e);
            if (rc != 0)
                return rc;
        }
    }
    return 0;
}
