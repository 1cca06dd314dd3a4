/* aggregate.c - the statistics of the reports: per scenario and address family, per host pair
 * and per (source zone, destination zone) cell (and region cell when runs span regions): trial
 * count, mean, median, stddev, min, max, Student-t 95 % CI, CV, failures, and latency
 * percentiles read from the trials' merged histograms (never averaged percentiles).
 *
 * Two JSON trees come out of one pass: the summary (numbers, units named once per field) that
 * becomes summary.json, and the view (strings scaled for people) that the templates render. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/errors.h"
#include "common/hist.h"
#include "common/stats.h"
#include "common/units.h"
#include "journal/record.h"
#include "report/matrixstat.h"
#include "report/reportint.h"

const double report_pcts[REPORT_NPCT] = {25, 50, 75, 90, 99, 99.9, 99.99, 99.999};
const char *const report_pct_keys[REPORT_NPCT] = {"p25", "p50",   "p75",    "p90",
                                                  "p99", "p99_9", "p99_99", "p99_999"};
const char *const report_pct_names[REPORT_NPCT] = {"p25", "p50",   "p75",    "p90",
                                                   "p99", "p99.9", "p99.99", "p99.999"};

/* The figures of a set of trials (one pair, one zone cell or one region cell). */
struct agg {
    struct stats st;
    double *vals; /* ok values, sorted at the end (median) */
    size_t nv, capv;
    size_t failed, pairs;
    struct stats cpu_l, cpu_r, retrans, lost, jitter;
    bool has_rtt;
    uint64_t rtt_n;
    size_t blo, bhi; /* the scratch histogram's buckets in use: only these are read and reset */
    double rtt_min, rtt_max, rtt_mean, pct[REPORT_NPCT];
};

struct ctx {
    const struct rmodel *m;
    struct hist *scratch;
    bool cells_only; /* report_aggregate_cells: no pairs, failures, region cells or view */
    char buf[128];
};

static void
agg_init(struct agg *a)
{
    memset(a, 0, sizeof *a);
    stats_init(&a->st);
    stats_init(&a->cpu_l);
    stats_init(&a->cpu_r);
    stats_init(&a->retrans);
    stats_init(&a->lost);
    stats_init(&a->jitter);
    a->blo = SIZE_MAX;
}

static int
agg_add_pair(struct agg *a, const struct rpair *p, struct hist *h)
{
    a->pairs++;
    for (size_t i = 0; i < p->nt; i++) {
        const struct rtrial *t = &p->t[i];
        if (!t->ok) {
            a->failed++;
            continue;
        }
        if (a->nv == a->capv) {
            size_t cap = a->capv ? a->capv * 2 : 8;
            double *v = realloc(a->vals, cap * sizeof *v);
            if (v == NULL)
                return NS_ENOMEM;
            a->vals = v;
            a->capv = cap;
        }
        a->vals[a->nv++] = t->value;
        stats_add(&a->st, t->value);
        if (t->has_cpu) {
            stats_add(&a->cpu_l, t->cpu_local);
            stats_add(&a->cpu_r, t->cpu_remote);
        }
        if (t->has_retrans)
            stats_add(&a->retrans, t->retrans);
        if (t->has_udp) {
            stats_add(&a->lost, t->lost_pct);
            stats_add(&a->jitter, t->jitter_us);
        }
        rrtt_merge_into(h, &t->rtt);
        if (t->rtt.nb > 0) {
            a->blo = t->rtt.first < a->blo ? t->rtt.first : a->blo;
            a->bhi = t->rtt.last > a->bhi ? t->rtt.last : a->bhi;
        }
    }
    return 0;
}

static int
cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b;
}

/* One pass over the merged histogram reads every percentile (hist_percentile's rule). */
static void
agg_finish(struct agg *a, struct hist *h)
{
    if (a->nv > 1)
        qsort(a->vals, a->nv, sizeof *a->vals, cmp_double);
    a->has_rtt = h->count > 0;
    if (a->has_rtt) {
        a->rtt_n = h->count;
        a->rtt_min = (double)h->min / 1e3;
        a->rtt_max = (double)h->max / 1e3;
        a->rtt_mean = h->mean / 1e3;
        uint64_t seen = 0;
        size_t q = 0;
        for (size_t i = a->blo; i <= a->bhi && q < REPORT_NPCT; i++) {
            seen += h->buckets[i];
            while (q < REPORT_NPCT) {
                uint64_t rank = (uint64_t)ceil(report_pcts[q] / 100.0 * (double)h->count);
                if (rank < 1)
                    rank = 1;
                if (seen < rank)
                    break;
                double mid = fmin(fmax(hist_bucket_mid(i), (double)h->min), (double)h->max);
                a->pct[q++] = mid / 1e3;
            }
        }
    }
    if (a->blo <= a->bhi)
        memset(h->buckets + a->blo, 0, (a->bhi - a->blo + 1) * sizeof h->buckets[0]);
    h->count = h->min = h->max = 0;
    h->mean = h->m2 = 0.0;
    a->blo = SIZE_MAX;
    a->bhi = 0;
}

static double
agg_median(const struct agg *a)
{
    if (a->nv == 0)
        return 0.0;
    return a->nv % 2 ? a->vals[a->nv / 2] : (a->vals[a->nv / 2 - 1] + a->vals[a->nv / 2]) / 2.0;
}

static double
agg_cv(const struct agg *a)
{
    return a->nv >= 2 && a->st.mean != 0.0 ? stats_stddev(&a->st) / fabs(a->st.mean) : 0.0;
}

static bool
agg_flag(const struct agg *a)
{
    return agg_cv(a) > REPORT_CV_THRESHOLD;
}

/* --- formatting for people ---------------------------------------------------------------- */

static json_t *
jfmt(enum testspec_kind k, double v)
{
    char b[64];
    return json_string(report_fmt_metric(k, v, b, sizeof b));
}

static json_t *jprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static json_t *
jprintf(const char *fmt, ...)
{
    char b[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(b, sizeof b, fmt, ap);
    va_end(ap);
    return json_string(b);
}

/* --- summary (numbers) ---------------------------------------------------------------------- */

/* Add a's statistics to o; returns o. */
static json_t *
stats_obj(json_t *o, const struct agg *a)
{
    json_object_set_new(o, "n", json_integer((json_int_t)a->nv));
    json_object_set_new(o, "failed", json_integer((json_int_t)a->failed));
    if (a->nv > 0) {
        double hw = stats_ci_halfwidth(&a->st, 0.95);
        json_object_set_new(o, "mean", json_real(a->st.mean));
        json_object_set_new(o, "median", json_real(agg_median(a)));
        json_object_set_new(o, "stddev", json_real(stats_stddev(&a->st)));
        json_object_set_new(o, "min", json_real(a->st.min));
        json_object_set_new(o, "max", json_real(a->st.max));
        json_object_set_new(o, "ci95_halfwidth", json_real(hw));
        json_object_set_new(o, "ci95_low", json_real(a->st.mean - hw));
        json_object_set_new(o, "ci95_high", json_real(a->st.mean + hw));
        json_object_set_new(o, "cv", json_real(agg_cv(a)));
        json_object_set_new(o, "high_variation", json_boolean(agg_flag(a)));
    }
    if (a->has_rtt) {
        json_t *r = json_object();
        json_object_set_new(r, "n", json_integer((json_int_t)a->rtt_n));
        json_object_set_new(r, "mean", json_real(a->rtt_mean));
        json_object_set_new(r, "min", json_real(a->rtt_min));
        for (size_t i = 0; i < REPORT_NPCT; i++)
            json_object_set_new(r, report_pct_keys[i], json_real(a->pct[i]));
        json_object_set_new(r, "max", json_real(a->rtt_max));
        json_object_set_new(o, "rtt_us", r);
    }
    if (a->cpu_l.n > 0)
        json_object_set_new(
            o, "cpu_pct", json_pack("{s:f,s:f}", "local", a->cpu_l.mean, "remote", a->cpu_r.mean));
    if (a->retrans.n > 0)
        json_object_set_new(o, "retransmits_mean", json_real(a->retrans.mean));
    if (a->lost.n > 0)
        json_object_set_new(
            o, "udp",
            json_pack("{s:f,s:f}", "lost_pct", a->lost.mean, "jitter_us", a->jitter.mean));
    return o;
}

/* --- the view (strings) ------------------------------------------------------------------- */

static json_t *
view_stats(json_t *o, const struct agg *a, enum testspec_kind k)
{
    char b[64];
    json_object_set_new(o, "n", json_integer((json_int_t)a->nv));
    json_object_set_new(o, "failed", json_integer((json_int_t)a->failed));
    json_object_set_new(o, "npairs", json_integer((json_int_t)a->pairs));
    json_object_set_new(o, "flag", json_false());
    json_object_set_new(o, "has_pcts", json_false());
    json_object_set_new(o, "cpu_local", json_string(""));
    if (a->nv == 0) {
        json_object_set_new(o, "mean", json_string("—"));
        return o;
    }
    json_object_set_new(o, "mean", jfmt(k, a->st.mean));
    json_object_set_new(o, "median", jfmt(k, agg_median(a)));
    json_object_set_new(o, "stddev", jfmt(k, stats_stddev(&a->st)));
    json_object_set_new(o, "min", jfmt(k, a->st.min));
    json_object_set_new(o, "max", jfmt(k, a->st.max));
    if (a->nv >= 2)
        json_object_set_new(
            o, "ci",
            jprintf("± %s", report_fmt_metric(k, stats_ci_halfwidth(&a->st, 0.95), b, sizeof b)));
    else
        json_object_set_new(o, "ci", json_string("n/a"));
    json_object_set_new(o, "cv", jprintf("%.1f %%", agg_cv(a) * 100.0));
    json_object_set_new(o, "flag", json_boolean(agg_flag(a)));
    if (a->has_rtt) {
        json_t *p = json_array();
        json_array_append_new(p, json_string(units_format_usec(a->rtt_min, b, 64)));
        for (size_t i = 0; i < REPORT_NPCT; i++)
            json_array_append_new(p, json_string(units_format_usec(a->pct[i], b, 64)));
        json_array_append_new(p, json_string(units_format_usec(a->rtt_max, b, 64)));
        json_object_set_new(o, "pcts", p);
        json_object_set_new(o, "has_pcts", json_true());
    }
    if (a->cpu_l.n > 0) {
        json_object_set_new(o, "cpu_local", jprintf("%.1f %%", a->cpu_l.mean));
        json_object_set_new(o, "cpu_remote", jprintf("%.1f %%", a->cpu_r.mean));
    }
    json_object_set_new(o, "retransmits",
                        a->retrans.n > 0 ? jprintf("%.1f", a->retrans.mean) : json_string("—"));
    if (a->lost.n > 0) {
        json_object_set_new(o, "lost", jprintf("%.3f %%", a->lost.mean));
        json_object_set_new(o, "jitter", jprintf("%s", units_format_usec(a->jitter.mean, b, 64)));
    }
    return o;
}

/* --- groups: one (scenario, family) ------------------------------------------------------- */

static const struct rmodel *sort_m;

static int
cmp_pair(const void *x, const void *y)
{
    const struct rpair *a = x, *b = y;
    const struct rmodel *m = sort_m;
    if (a->scen != b->scen)
        return a->scen < b->scen ? -1 : 1;
    if (a->family != b->family)
        return a->family < b->family ? -1 : 1;
    int za = m->hosts[a->src].zone_idx, zb = m->hosts[b->src].zone_idx;
    if (za != zb)
        return za < zb ? -1 : 1;
    za = m->hosts[a->dst].zone_idx;
    zb = m->hosts[b->dst].zone_idx;
    if (za != zb)
        return za < zb ? -1 : 1;
    int c = strcmp(m->hosts[a->src].name, m->hosts[b->src].name);
    if (c == 0)
        c = strcmp(m->hosts[a->dst].name, m->hosts[b->dst].name);
    return c;
}

static void
file_key(char *out, size_t len, const char *name, const char *fam, bool with_fam)
{
    snprintf(out, len, "%s%s%s", name, with_fam ? "-" : "", with_fam ? fam : "");
    for (char *p = out; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
              *p == '.' || *p == '_' || *p == '-'))
            *p = '_';
}

static json_t *
scen_params(const json_t *def)
{
    json_t *o = json_deep_copy(def);
    json_object_del(o, "name");
    json_object_del(o, "test");
    return o;
}

static json_t *
params_text(const json_t *def)
{
    struct rbuf b;
    rbuf_init(&b);
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)(uintptr_t)def, k, v)
    {
        if (!strcmp(k, "name") || !strcmp(k, "test"))
            continue;
        if (b.len)
            rbuf_puts(&b, ", ");
        /* json_dumpb: no string from jansson's allocator to free (see report_jarena_begin) */
        char val[256];
        size_t n = json_dumpb(v, val, sizeof val - 1, JSON_ENCODE_ANY | JSON_REAL_PRECISION(10));
        val[n < sizeof val ? n : sizeof val - 1] = '\0';
        rbuf_printf(&b, "%s %s", k, n > 0 && n < sizeof val ? val : "?");
    }
    json_t *r = json_string(b.data ? b.data : "");
    rbuf_release(&b);
    return r;
}

/* A zone (or region) matrix: cells[r * n + c], NULL where no pair was measured. */
struct mat {
    size_t n;
    struct agg *cells;
    bool *present;
};

static json_t *
matrix_view(const struct mat *mt, const char *const *labels, enum testspec_kind k)
{
    json_t *o = json_object(), *cols = json_array(), *rows = json_array();
    for (size_t c = 0; c < mt->n; c++)
        json_array_append_new(cols, json_pack("{s:s}", "label", labels[c]));
    for (size_t r = 0; r < mt->n; r++) {
        json_t *cells = json_array();
        for (size_t c = 0; c < mt->n; c++) {
            const struct agg *a = &mt->cells[r * mt->n + c];
            json_t *cell = json_object();
            char b[64];
            bool present = mt->present[r * mt->n + c];
            /* every key set in every cell: a missing one would be looked up in the scenario */
            json_object_set_new(cell, "text",
                                json_string(!present ? "—"
                                            : a->nv == 0
                                                ? "failed"
                                                : report_fmt_metric(k, a->st.mean, b, sizeof b)));
            json_object_set_new(cell, "empty", json_boolean(!present || a->nv == 0));
            json_object_set_new(cell, "npairs",
                                json_integer(a->pairs > 1 ? (json_int_t)a->pairs : 0));
            json_object_set_new(cell, "flag", json_boolean(a->nv > 0 && agg_flag(a)));
            json_object_set_new(cell, "nfailed", json_integer((json_int_t)a->failed));
            json_array_append_new(cells, cell);
        }
        json_array_append_new(rows, json_pack("{s:s,s:o}", "label", labels[r], "cells", cells));
    }
    json_object_set_new(o, "cols", cols);
    json_object_set_new(o, "rows", rows);
    return o;
}

static json_t *
matrix_summary(const struct mat *mt, const char *const *labels, const char *what)
{
    json_t *cells = json_array();
    for (size_t r = 0; r < mt->n; r++)
        for (size_t c = 0; c < mt->n; c++) {
            if (!mt->present[r * mt->n + c])
                continue;
            const struct agg *a = &mt->cells[r * mt->n + c];
            char sk[32], dk[32];
            snprintf(sk, sizeof sk, "src_%s", what);
            snprintf(dk, sizeof dk, "dst_%s", what);
            json_t *cell = json_pack("{s:s,s:s}", sk, labels[r], dk, labels[c]);
            stats_obj(cell, a);
            json_object_set_new(cell, "pairs", json_integer((json_int_t)a->pairs));
            json_array_append_new(cells, cell);
        }
    return cells;
}

static void
mat_release(struct mat *mt)
{
    for (size_t i = 0; i < mt->n * mt->n; i++)
        free(mt->cells[i].vals);
    free(mt->cells);
    free(mt->present);
}

static int
mat_init(struct mat *mt, size_t n)
{
    mt->n = n;
    mt->cells = calloc(n > 0 ? n * n : 1, sizeof *mt->cells);
    mt->present = calloc(n > 0 ? n * n : 1, sizeof *mt->present);
    if (mt->cells == NULL || mt->present == NULL)
        return NS_ENOMEM;
    for (size_t i = 0; i < n * n; i++)
        agg_init(&mt->cells[i]);
    return 0;
}

/* Fill matrix cells from the group's pairs; zone==true keys by zone, else by region. Pairs are
 * sorted by (src zone, dst zone), so the pairs of a zone cell are contiguous, and the scratch
 * histogram holds one cell at a time; region cells merge their pairs' histograms one by one. */
static int
mat_fill(struct ctx *cx, struct mat *mt, const struct rpair *pairs, size_t np, bool zone)
{
    const struct rmodel *m = cx->m;
    for (size_t r = 0; r < mt->n; r++)
        for (size_t c = 0; c < mt->n; c++) {
            struct agg *a = &mt->cells[r * mt->n + c];
            bool any = false;
            for (size_t i = 0; i < np; i++) {
                const struct rhost *s = &m->hosts[pairs[i].src], *d = &m->hosts[pairs[i].dst];
                size_t rs = zone ? (size_t)s->zone_idx : (size_t)m->zones[s->zone_idx].region_idx;
                size_t rd = zone ? (size_t)d->zone_idx : (size_t)m->zones[d->zone_idx].region_idx;
                if (rs != r || rd != c)
                    continue;
                any = true;
                if (agg_add_pair(a, &pairs[i], cx->scratch) != 0)
                    return NS_ENOMEM;
            }
            mt->present[r * mt->n + c] = any;
            agg_finish(a, cx->scratch);
        }
    return 0;
}

struct group_out {
    json_t *sum, *view;
};

/* One (scenario, family) group being built. */
struct group {
    struct ctx *cx;
    const struct rscen *sc;
    enum testspec_kind k;
    const char *fam;
    const struct rpair *pairs;
    size_t np;
    uint32_t maxn; /* the highest trial number of its pairs */
};

/* What a group's pairs add up to. */
struct group_acc {
    json_t *spairs, *vpairs, *fails, *sfails;
    size_t nok, nfail;
    size_t met, at_max, short_of; /* adaptive trials: pairs by how they stopped */
    bool any_cpu, any_udp, any_retr;
};

/* The group's own members, in the summary and in the view. */
static void
group_head(const struct group *g, bool fam_in_key, json_t **sum, json_t **view)
{
    const struct rscen *sc = g->sc;
    enum testspec_kind k = g->k;
    char key[256];
    file_key(key, sizeof key, sc->name, g->fam, fam_in_key);
    bool stream = k == TESTSPEC_TCP_STREAM || k == TESTSPEC_UDP_STREAM;
    const char *dir = stream && sc->reverse ? "data flows dst → src (reverse)"
                      : stream              ? "data flows src → dst"
                                            : "src requests, dst responds";
    char caption[512];
    snprintf(caption, sizeof caption, "%s, %s (%s), %s; %s", sc->name, rkind_metric(k),
             rkind_unit(k), g->fam, dir);
    *sum =
        json_pack("{s:s,s:s,s:s,s:s,s:s,s:b,s:s,s:s,s:o}", "name", sc->name, "file_key", key,
                  "test", sc->test, "family", g->fam, "direction",
                  stream && sc->reverse ? "dst->src" : "src->dst", "reverse", sc->reverse, "metric",
                  rkind_metric(k), "unit", rkind_unit(k), "params", scen_params(sc->def));
    *view = json_pack("{s:s,s:s,s:s,s:s,s:s,s:s,s:o,s:b}", "name", sc->name, "file_key", key,
                      "test", sc->test, "family", g->fam, "caption", caption, "unit", rkind_unit(k),
                      "params", params_text(sc->def), "has_rtt", rkind_has_rtt(k));
}

/* The zone matrix, and the region matrix when the runs span regions. */
static int
group_matrices(const struct group *g, json_t *sum, json_t *view)
{
    const struct rmodel *m = g->cx->m;
    size_t nz = m->nzones;
    const char **zl = calloc(nz ? nz : 1, sizeof *zl);
    const char **rl = calloc(m->nregions ? m->nregions : 1, sizeof *rl);
    struct mat zm = {0}, rm = {0};
    int rc = NS_ENOMEM;
    if (zl == NULL || rl == NULL || mat_init(&zm, nz) != 0 || mat_init(&rm, m->nregions) != 0)
        goto out;
    for (size_t z = 0; z < nz; z++)
        zl[z] = m->zones[z].label;
    for (size_t r = 0; r < m->nregions; r++)
        rl[r] = m->regions[r];
    if (mat_fill(g->cx, &zm, g->pairs, g->np, true) != 0)
        goto out;
    json_object_set_new(sum, "zone_cells", matrix_summary(&zm, zl, "zone"));
    if (view != NULL)
        json_object_set_new(view, "matrix", matrix_view(&zm, zl, g->k));
    if (m->nregions > 1 && view != NULL) {
        if (mat_fill(g->cx, &rm, g->pairs, g->np, false) != 0)
            goto out;
        json_object_set_new(sum, "region_cells", matrix_summary(&rm, rl, "region"));
        json_object_set_new(view, "region_matrix", matrix_view(&rm, rl, g->k));
    }
    rc = 0;
out:
    mat_release(&zm);
    mat_release(&rm);
    free(zl);
    free(rl);
    return rc;
}

/* A pair's trials by number, 1..maxn: the value (summary) and its text (view), null and ""
 * where a number has no record; each failure also into the group's lists. */
static void
pair_trials(const struct group *g, const struct rpair *p, json_t *st, json_t *vt,
            struct group_acc *acc)
{
    const struct rmodel *m = g->cx->m;
    uint32_t n = 1;
    for (size_t j = 0; j < p->nt; j++) {
        const struct rtrial *t = &p->t[j];
        for (; n < t->n; n++) {
            json_array_append_new(vt, json_string(""));
            json_array_append_new(st, json_null());
        }
        n = t->n + 1;
        char b[64];
        if (t->ok) {
            json_array_append_new(st, json_real(t->value));
            json_array_append_new(vt, json_string(report_fmt_metric(g->k, t->value, b, sizeof b)));
            continue;
        }
        json_array_append_new(st, json_null());
        json_array_append_new(vt, json_string("failed"));
        json_t *f = json_pack("{s:s,s:s,s:s,s:s,s:i,s:s}", "scenario", g->sc->name, "family",
                              g->fam, "src", m->hosts[p->src].name, "dst", m->hosts[p->dst].name,
                              "trial", (int)t->n, "error", t->error);
        json_array_append(acc->fails, f);
        json_array_append_new(acc->sfails, f);
    }
    for (; n <= g->maxn; n++)
        json_array_append_new(vt, json_string(""));
}

/* Raw numbers for the charts, which draw host pairs only when they are few. */
static void
pair_chart_values(json_t *vo, const struct agg *a, const struct rpair *p)
{
    json_object_set_new(vo, "mean_v", json_real(a->st.mean));
    json_object_set_new(vo, "ci_v", json_real(stats_ci_halfwidth(&a->st, 0.95)));
    json_t *vals = json_array();
    for (size_t j = 0; j < p->nt; j++)
        if (p->t[j].ok)
            json_array_append_new(vals, json_real(p->t[j].value));
    json_object_set_new(vo, "values_v", vals);
    if (a->has_rtt) {
        json_t *pv = json_array();
        for (size_t q = 0; q < REPORT_NPCT; q++)
            json_array_append_new(pv, json_real(a->pct[q]));
        json_object_set_new(vo, "pcts_v", pv);
    }
}

/* Adaptive trials: how pair p stopped, decided as the runner decides (common/trials.h) over
 * its ok trials' figures in trial-number order: "target met", "max reached", or "incomplete"
 * (short of both: failures, or a run interrupted). Adds "adaptive" to the summary's pair. */
static void
pair_adaptive(const struct group *g, const struct rpair *p, json_t *so, struct group_acc *acc)
{
    const struct trials_policy *pol = &g->sc->policy;
    if (!trials_adaptive(pol))
        return;
    struct stats st;
    stats_init(&st);
    for (size_t j = 0; j < p->nt; j++)
        if (p->t[j].ok && p->t[j].n >= 1 && p->t[j].n <= pol->max)
            stats_add(&st, p->t[j].value);
    bool met = trials_target_met(pol, &st), at_max = !met && st.n >= pol->max;
    const char *how = met ? "target met" : at_max ? "max reached" : "incomplete";
    acc->met += met;
    acc->at_max += at_max;
    acc->short_of += !met && !at_max;
    double rel = trials_ci_relative(&st);
    json_object_set_new(so, "adaptive",
                        json_pack("{s:I, s:o, s:s}", "trials", (json_int_t)st.n, "ci95_relative",
                                  isfinite(rel) ? json_real(rel) : json_null(), "stopped", how));
}

/* The scenario's adaptive policy and how its pairs stopped, in the summary and as a sentence. */
static void
group_adaptive(const struct group *g, json_t *sum, json_t *view, const struct group_acc *acc)
{
    const struct trials_policy *pol = &g->sc->policy;
    if (!trials_adaptive(pol))
        return;
    json_object_set_new(sum, "adaptive",
                        json_pack("{s:I, s:I, s:f, s:I, s:I, s:I}", "min", (json_int_t)pol->min,
                                  "max", (json_int_t)pol->max, "target_ci", pol->target,
                                  "pairs_target_met", (json_int_t)acc->met, "pairs_max_reached",
                                  (json_int_t)acc->at_max, "pairs_incomplete",
                                  (json_int_t)acc->short_of));
    json_object_set_new(
        view, "adaptive_note",
        jprintf("Adaptive trials: %u to %u per host pair, more of a pair while the 95 %% CI "
                "(Student t) of its mean is wider than ±%g %% of that mean; %zu pair%s met the "
                "target, %zu "
                "reached %u trials without meeting it%s%zu incomplete.",
                pol->min, pol->max, pol->target * 100.0, acc->met, acc->met == 1 ? "" : "s",
                acc->at_max, pol->max, ", ", acc->short_of));
}

/* One host pair: its statistics into the summary's and the view's pair lists. */
static int
group_pair(const struct group *g, const struct rpair *p, struct group_acc *acc)
{
    const struct rmodel *m = g->cx->m;
    const struct rhost *s = &m->hosts[p->src], *d = &m->hosts[p->dst];
    struct agg a;
    agg_init(&a);
    if (agg_add_pair(&a, p, g->cx->scratch) != 0) {
        free(a.vals);
        return NS_ENOMEM;
    }
    agg_finish(&a, g->cx->scratch);
    acc->nok += a.nv;
    acc->nfail += a.failed;
    acc->any_cpu |= a.cpu_l.n > 0;
    acc->any_udp |= a.lost.n > 0;
    acc->any_retr |= a.retrans.n > 0;
    json_t *st = json_array(), *vt = json_array();
    pair_trials(g, p, st, vt, acc);
    const char *sz = m->zones[s->zone_idx].label, *dz = m->zones[d->zone_idx].label;
    json_t *so =
        json_pack("{s:s,s:s,s:s,s:s,s:s,s:s,s:o}", "src", s->name, "dst", d->name, "src_zone", sz,
                  "dst_zone", dz, "src_address", s->addr, "dst_address", d->addr, "values", st);
    stats_obj(so, &a);
    pair_adaptive(g, p, so, acc);
    json_array_append_new(acc->spairs, so);
    json_t *vo = json_pack("{s:s,s:s,s:s,s:s,s:o}", "src", s->name, "dst", d->name, "src_zone", sz,
                           "dst_zone", dz, "trials", vt);
    view_stats(vo, &a, g->k);
    if (g->np <= REPORT_CHART_MAX_BARS)
        pair_chart_values(vo, &a, p);
    json_array_append_new(acc->vpairs, vo);
    free(a.vals);
    return 0;
}

/* The view's trial columns 1..maxn and percentile columns. */
static json_t *
trial_cols(uint32_t maxn)
{
    json_t *tcols = json_array();
    for (uint32_t n = 1; n <= maxn; n++)
        json_array_append_new(tcols, json_pack("{s:i}", "n", (int)n));
    return tcols;
}

static json_t *
pct_cols(void)
{
    json_t *pc = json_array();
    json_array_append_new(pc, json_pack("{s:s}", "name", "min"));
    for (size_t q = 0; q < REPORT_NPCT; q++)
        json_array_append_new(pc, json_pack("{s:s}", "name", report_pct_names[q]));
    json_array_append_new(pc, json_pack("{s:s}", "name", "max"));
    return pc;
}

static void
group_totals(json_t *sum, json_t *view, const struct group_acc *acc)
{
    json_object_set_new(sum, "trials",
                        json_pack("{s:i,s:i}", "ok", (int)acc->nok, "failed", (int)acc->nfail));
    json_object_set_new(sum, "pairs", acc->spairs);
    json_object_set_new(sum, "failures", acc->sfails);
    json_object_set_new(view, "pairs", acc->vpairs);
    json_object_set_new(view, "failures", acc->fails);
    json_object_set_new(view, "trials_ok", json_integer((json_int_t)acc->nok));
    json_object_set_new(view, "trials_failed", json_integer((json_int_t)acc->nfail));
    json_object_set_new(view, "has_failures", json_boolean(acc->nfail > 0));
    json_object_set_new(view, "has_cpu", json_boolean(acc->any_cpu));
    json_object_set_new(view, "has_udp", json_boolean(acc->any_udp));
    json_object_set_new(view, "has_retransmits", json_boolean(acc->any_retr));
    json_object_set_new(view, "pct_cols", pct_cols());
}

/* The trial counts of a group's pairs, as group_pair counts them, for report_aggregate_cells. */
static void
group_count(const struct group *g, json_t *sum)
{
    size_t ok = 0, failed = 0;
    for (size_t i = 0; i < g->np; i++)
        for (size_t j = 0; j < g->pairs[i].nt; j++) {
            ok += g->pairs[i].t[j].ok;
            failed += !g->pairs[i].t[j].ok;
        }
    json_object_set_new(sum, "trials",
                        json_pack("{s:i,s:i}", "ok", (int)ok, "failed", (int)failed));
}

/* The summary of one (scenario, family) for report_aggregate_cells: its own members, trial
 * counts and zone cells. */
static int
group_build_cells(const struct group *g, bool fam_in_key, struct group_out *out)
{
    json_t *sum, *view;
    group_head(g, fam_in_key, &sum, &view);
    json_decref(view);
    int rc = group_matrices(g, sum, NULL);
    if (rc != 0) {
        json_decref(sum);
        return rc;
    }
    group_count(g, sum);
    out->sum = sum;
    out->view = NULL;
    return 0;
}

/* The summary and the view of one (scenario, family): its matrices, pairs and failures. */
static int
group_build(struct ctx *cx, const struct rpair *pairs, size_t np, bool fam_in_key,
            struct group_out *out)
{
    const struct rscen *sc = &cx->m->scens[pairs[0].scen];
    struct group g = {.cx = cx,
                      .sc = sc,
                      .k = sc->kind,
                      .fam = rfamily_name(pairs[0].family),
                      .pairs = pairs,
                      .np = np};
    for (size_t i = 0; i < np; i++)
        for (size_t j = 0; j < pairs[i].nt; j++)
            if (pairs[i].t[j].n > g.maxn)
                g.maxn = pairs[i].t[j].n;
    if (cx->cells_only)
        return group_build_cells(&g, fam_in_key, out);
    json_t *sum, *view;
    group_head(&g, fam_in_key, &sum, &view);
    struct group_acc acc = {.spairs = json_array(),
                            .vpairs = json_array(),
                            .fails = json_array(),
                            .sfails = json_array()};
    int rc = group_matrices(&g, sum, view);
    if (rc == 0)
        json_object_set_new(view, "trial_cols", trial_cols(g.maxn));
    for (size_t i = 0; rc == 0 && i < np; i++)
        rc = group_pair(&g, &pairs[i], &acc);
    if (rc != 0) {
        json_decref(acc.spairs);
        json_decref(acc.vpairs);
        json_decref(acc.fails);
        json_decref(acc.sfails);
        json_decref(sum);
        json_decref(view);
        return rc;
    }
    group_totals(sum, view, &acc);
    group_adaptive(&g, sum, view, &acc);
    out->sum = sum;
    out->view = view;
    return 0;
}

/* --- the whole report --------------------------------------------------------------------- */

static json_t *
host_view(const struct rhost *h, const struct rmodel *m)
{
    char b[64];
    const json_t *env = h->env;
    json_t *o = json_pack("{s:s,s:s,s:s,s:s}", "name", h->name, "region", h->region, "zone",
                          m->zones[h->zone_idx].zone, "address", h->addr);
    static const char *const keys[] = {"os",    "kernel", "cpu_model",  "interface",
                                       "qdisc", "tcp_cc", "clocksource"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        const char *s = json_string_value(json_object_get(env, keys[i]));
        json_object_set_new(o, keys[i], json_string(s ? s : "—"));
    }
    const json_t *cloud = json_object_get(env, "cloud");
    static const char *const cloud_keys[] = {"provider", "instance_type"};
    for (size_t i = 0; i < sizeof cloud_keys / sizeof cloud_keys[0]; i++) {
        const char *s = json_string_value(json_object_get(cloud, cloud_keys[i]));
        json_object_set_new(o, cloud_keys[i], json_string(s ? s : "—"));
    }
    json_object_set_new(o, "zone_id", json_string(h->zone_id ? h->zone_id : "—"));
    const json_t *v = json_object_get(env, "cpus");
    json_object_set_new(o, "cpus",
                        json_is_integer(v) ? jprintf("%lld", (long long)json_integer_value(v))
                                           : json_string("—"));
    v = json_object_get(env, "mtu");
    json_object_set_new(o, "mtu",
                        json_is_integer(v) ? jprintf("%lld", (long long)json_integer_value(v))
                                           : json_string("—"));
    v = json_object_get(env, "mem_bytes");
    json_object_set_new(o, "mem",
                        json_is_number(v)
                            ? json_string(units_format_bytes(json_number_value(v), b, sizeof b))
                            : json_string("—"));
    return o;
}

static json_t *
str_or_empty(const char *s)
{
    return json_string(s != NULL ? s : "");
}

static json_t *
run_obj(const struct rrun *r)
{
    const struct journal_run *run = r->run;
    return json_pack("{s:s, s:o, s:{s:o, s:o, s:o}, s:o, s:o, s:o}", "dir", r->dir, "run_id",
                     str_or_empty(run->run_id), "plan", "name", str_or_empty(run->plan_name),
                     "file", str_or_empty(run->plan_file), "sha256", str_or_empty(run->plan_sha256),
                     "tool", run->tool != NULL ? json_deep_copy(run->tool) : json_object(),
                     "started", str_or_empty(run->started), "command", str_or_empty(run->command));
}

/* The report's head: its runs, title, command line and units. */
static void
aggregate_head(const struct rmodel *m, json_t *sum, json_t *view)
{
    json_t *runs = json_array(), *vruns = json_array();
    struct rbuf title, cmd;
    rbuf_init(&title);
    rbuf_init(&cmd);
    rbuf_puts(&cmd, "netsurvey report");
    for (size_t i = 0; i < m->nruns; i++) {
        json_t *r = run_obj(&m->runs[i]);
        json_array_append(vruns, r);
        json_array_append_new(runs, r);
        const char *pn = m->runs[i].run->plan_name;
        if (i)
            rbuf_puts(&title, " + ");
        rbuf_puts(&title, pn ? pn : "?");
        rbuf_printf(&cmd, " %s", m->runs[i].dir);
    }
    json_object_set_new(sum, "schema", json_string("netsurvey.summary/1"));
    json_object_set_new(sum, "title", json_string(title.data ? title.data : ""));
    json_object_set_new(sum, "report_tool", json_pack("{s:s}", "netsurvey_version", NS_VERSION));
    json_object_set_new(sum, "runs", runs);
    json_object_set_new(sum, "cv_threshold", json_real(REPORT_CV_THRESHOLD));
    json_object_set_new(sum, "units",
                        json_pack("{s:s,s:s,s:s,s:s,s:s,s:s,s:s}", "tcp_rr, udp_rr",
                                  "us (mean RTT)", "tcp_stream, udp_stream",
                                  "Mbit/s (receiver-counted)", "tcp_crr", "connections/s", "rtt_us",
                                  "us", "cpu_pct", "% of one core (local: src, remote: dst)",
                                  "udp.lost_pct", "%", "udp.jitter_us", "us"));
    json_object_set_new(view, "title", json_string(title.data ? title.data : ""));
    json_object_set_new(view, "version", json_string(NS_VERSION));
    json_object_set_new(view, "runs", vruns);
    json_object_set_new(view, "command", json_string(cmd.data));
    json_object_set_new(view, "cv_threshold", jprintf("%.0f %%", REPORT_CV_THRESHOLD * 100));
    json_object_set_new(view, "multi_region", json_boolean(m->nregions > 1));
    rbuf_release(&title);
    rbuf_release(&cmd);
}

/* Regions, zones (with their host counts) and hosts. */
static void
aggregate_places(const struct rmodel *m, json_t *sum, json_t *view)
{
    json_t *regions = json_array(), *zones = json_array(), *hosts = json_array();
    json_t *vhosts = json_array();
    for (size_t r = 0; r < m->nregions; r++)
        json_array_append_new(regions, json_string(m->regions[r]));
    for (size_t z = 0; z < m->nzones; z++) {
        int nh = 0;
        for (size_t h = 0; h < m->nhosts; h++)
            nh += m->hosts[h].zone_idx == (int)z;
        json_array_append_new(zones,
                              json_pack("{s:s,s:s,s:s,s:i}", "label", m->zones[z].label, "region",
                                        m->zones[z].region, "zone", m->zones[z].zone, "hosts", nh));
    }
    json_t *warnings = json_array();
    for (size_t h = 0; h < m->nhosts; h++) {
        const struct rhost *ho = &m->hosts[h];
        json_t *o =
            json_pack("{s:s,s:s,s:s,s:s,s:O}", "name", ho->name, "region", ho->region, "zone",
                      ho->zone, "data_address", ho->addr, "env", ho->env ? ho->env : json_null());
        if (ho->zone_id != NULL) /* only where known, so that older runs summarise as before */
            json_object_set_new(o, "zone_id", json_string(ho->zone_id));
        if (ho->zone_warning != NULL) {
            json_object_set_new(o, "zone_warning", json_string(ho->zone_warning));
            json_array_append_new(
                warnings, json_pack("{s:s,s:s}", "host", ho->name, "warning", ho->zone_warning));
        }
        json_array_append_new(hosts, o);
        json_array_append_new(vhosts, host_view(ho, m));
    }
    json_object_set_new(view, "zone_warnings", warnings);
    json_object_set_new(view, "by_zone_id", json_boolean(m->by_zone_id));
    if (m->by_zone_id) /* absent otherwise: summaries of zone labels read as before */
        json_object_set_new(sum, "zones_by", json_string("zone_id"));
    json_object_set_new(sum, "regions", regions);
    json_object_set_new(sum, "zones", zones);
    json_object_set_new(sum, "hosts", hosts);
    json_object_set_new(view, "hosts", vhosts);
}

/* One group per (scenario, family) of the sorted pairs, and every failure in one list. */
static int
aggregate_groups(struct ctx *cx, const struct rpair *pairs, json_t *sum, json_t *view)
{
    size_t np = cx->m->npairs;
    json_t *scens = json_array(), *vscens = json_array(), *allfails = json_array();
    int rc = 0;
    size_t total_fail = 0;
    for (size_t i = 0; rc == 0 && i < np;) {
        size_t j = i;
        while (j < np && pairs[j].scen == pairs[i].scen && pairs[j].family == pairs[i].family)
            j++;
        /* the family goes into file names only when the scenario has both */
        bool both = (i > 0 && pairs[i - 1].scen == pairs[i].scen) ||
                    (j < np && pairs[j].scen == pairs[i].scen);
        struct group_out g;
        rc = group_build(cx, pairs + i, j - i, both, &g);
        if (rc != 0)
            break;
        size_t fi;
        json_t *f;
        json_array_foreach(json_object_get(g.view, "failures"), fi, f)
        {
            json_array_append(allfails, f);
            total_fail++;
        }
        json_array_append_new(scens, g.sum);
        if (g.view != NULL)
            json_array_append_new(vscens, g.view);
        i = j;
    }
    json_object_set_new(sum, "scenarios", scens);
    json_object_set_new(view, "scenarios", vscens);
    json_object_set_new(view, "failures", allfails);
    json_object_set_new(view, "failures_total", json_integer((json_int_t)total_fail));
    return rc;
}

static int
aggregate(const struct rmodel *m, bool cells_only, json_t **summary_out, json_t **view_out,
          struct err *e)
{
    struct ctx cx = {.m = m, .scratch = hist_new(), .cells_only = cells_only};
    if (cx.scratch == NULL)
        return err_set(e, NS_ENOMEM, "out of memory");
    sort_m = m;
    struct rpair *pairs = (struct rpair *)(uintptr_t)m->pairs; /* order only: contents kept */
    if (m->npairs > 1)
        qsort(pairs, m->npairs, sizeof *pairs, cmp_pair);
    json_t *sum = json_object(), *view = json_object();
    aggregate_head(m, sum, view);
    aggregate_places(m, sum, view);
    int rc = aggregate_groups(&cx, pairs, sum, view);
    if (rc == 0 && !cells_only) /* they read the view's matrices and the cells' percentiles */
        rc = report_matrix_stats(sum, view);
    json_object_set_new(sum, "journal",
                        json_pack("{s:i,s:i}", "torn_lines", (int)m->torn_lines, "skipped_lines",
                                  (int)m->skipped_lines));
    hist_free(cx.scratch);
    if (rc != 0) {
        json_decref(sum);
        json_decref(view);
        return err_set(e, rc, "out of memory aggregating trials");
    }
    *summary_out = sum;
    *view_out = view;
    return 0;
}

int
report_aggregate(const struct rmodel *m, json_t **summary_out, json_t **view_out, struct err *e)
{
    return aggregate(m, false, summary_out, view_out, e);
}

int
report_aggregate_cells(const struct rmodel *m, json_t **summary_out, struct err *e)
{
    json_t *view = NULL;
    int rc = aggregate(m, true, summary_out, &view, e);
    json_decref(view);
    return rc;
}
