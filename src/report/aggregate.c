/* aggregate.c - the statistics of the reports: per scenario and address family, per host pair
 * and per (source zone, destination zone) cell (and region cell when runs span regions): trial
 * count, mean, median, stddev, min, max, Student-t 95 % CI, CV, failures, and latency
 * percentiles read from the trials' merged histograms (never averaged percentiles).
 *
 * Two JSON trees come out of one pass: the summary (numbers, units named once per field) that
 * becomes summary.json, and the view (strings scaled for people) that the templates render. */
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/array.h"
#include "common/bitset.h"
#include "common/errors.h"
#include "common/hist.h"
#include "common/histjson.h"
#include "common/shquote.h"
#include "common/stats.h"
#include "common/units.h"
#include "journal/record.h"
#include "report/matrixstat.h"
#include "report/reportint.h"
#include "report/sweep.h"

/* The figures of a set of trials (one pair, one zone cell or one region cell). */
struct agg {
    struct stats st;
    double *vals; /* ok values, sorted at the end (median) */
    size_t nv, capv;
    size_t failed, pairs;
    uint64_t planned;   /* trials planned of its pairs (nv + failed of them recorded) */
    uint64_t undecided; /* adaptive: its pairs' runs whose rule has not decided (planned, and
                         * not run, are then the least they take) */
    size_t runs;        /* runs that recorded its trials */
    struct stats cpu_l, cpu_r, retrans, lost, jitter;
    const struct rscen *sc; /* of its pairs: the figures below are its */
    struct stats fig[RFIG_MAX];
    struct stats cpb_l, cpb_r; /* cycles per byte: src's, dst's */
    /* udp_stream: ok trials that recorded udp.unsent, those whose sender fell behind (unsent >
     * 0), and the datagrams over them: unsent, and sent */
    size_t unsent_known, unsent_trials;
    double unsent_sum, sent_sum;
    size_t rtt_trials; /* ok trials whose histogram the percentiles merge */
    bool has_rtt;
    uint64_t rtt_n;
    size_t blo, bhi; /* the scratch histogram's buckets in use: only these are read and reset */
    double rtt_min, rtt_max, rtt_mean, pct[HISTJSON_NPCT];
    bool want_hist; /* keep the merged histogram as hist (report_aggregate_hists: a cell) */
    json_t *hist;   /* its buckets in common/histjson.h's buckets form, or NULL */
    /* What the hosts did to its ok trials (common/hostflags.h): those whose record says
     * (judged), those flagged, per flag, and the figures of the ok trials not flagged */
    size_t judged, flagged, flag_n[HOSTFLAG_COUNT];
    struct stats clean;
};

struct ctx {
    const struct rmodel *m;
    struct hist *scratch;
    uint64_t *runs_seen; /* the runs of the set being added up (reset by agg_finish) */
    bool cells_only;     /* report_aggregate_cells: no pairs, failures, region cells or view */
    bool keep_hists;     /* report_aggregate_hists: each cell's merged histogram in its rtt_us */
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
    for (int i = 0; i < RFIG_MAX; i++)
        stats_init(&a->fig[i]);
    stats_init(&a->cpb_l);
    stats_init(&a->cpb_r);
    stats_init(&a->clean);
    a->blo = SIZE_MAX;
}

/* An ok trial's flags into a's counts. */
static void
agg_flags(struct agg *a, const struct rtrial *t)
{
    a->judged += t->judged;
    if (t->flags == 0) {
        stats_add(&a->clean, t->value);
        return;
    }
    a->flagged++;
    for (int f = 0; f < HOSTFLAG_COUNT; f++)
        a->flag_n[f] += (t->flags >> f) & 1u;
}

static int
agg_add_pair(struct agg *a, const struct rpair *p, struct ctx *cx)
{
    struct hist *h = cx->scratch;
    a->sc = &cx->m->scens[p->scen];
    a->pairs++;
    a->planned += p->planned;
    a->undecided += p->runs_undecided;
    for (size_t i = 0; i < p->nt; i++) {
        const struct rtrial *t = &p->t[i];
        if (!bitset_test_set(cx->runs_seen, t->run))
            a->runs++;
        if (!t->ok) {
            a->failed += !t->not_run;
            continue;
        }
        if (ARRAY_GROW(&a->vals, &a->capv, a->nv + 1) != 0)
            return NS_ENOMEM;
        a->vals[a->nv++] = t->value;
        stats_add(&a->st, t->value);
        agg_flags(a, t);
        if (t->has_cpu) {
            stats_add(&a->cpu_l, t->cpu_local);
            stats_add(&a->cpu_r, t->cpu_remote);
        }
        if (t->has_retrans)
            stats_add(&a->retrans, t->retrans);
        if (t->has_udp) {
            stats_add(&a->lost, t->lost_pct);
            if (!isnan(t->jitter_us))
                stats_add(&a->jitter, t->jitter_us);
        }
        for (int f = 0; f < a->sc->nfigs; f++) {
            double v = report_trial_fig(t, f);
            if (!isnan(v))
                stats_add(&a->fig[f], v);
        }
        if (t->has_cpb) {
            stats_add(&a->cpb_l, t->cpb_local);
            stats_add(&a->cpb_r, t->cpb_remote);
        }
        if (t->has_unsent) {
            a->unsent_known++;
            a->unsent_trials += t->udp_unsent > 0;
            a->unsent_sum += t->udp_unsent;
            a->sent_sum += t->udp_sent;
        }
        a->rtt_trials += t->rtt.n > 0;
        report_rtt_merge_into(h, &t->rtt);
        if (t->rtt.n > 0) {
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

/* The merged histogram's buckets, as a journal's "hist" holds them in the buckets form
 * ({"unit": "ns", "sub_bits": 11, "buckets": [[lower_ns, count], ...]}): what its percentiles
 * were read from, for a reader that merges cells of several runs (the history database). */
static json_t *
agg_hist_json(const struct agg *a, const struct hist *h)
{
    json_t *b = json_array();
    for (size_t i = a->blo; i <= a->bhi; i++)
        if (h->buckets[i] > 0)
            json_array_append_new(
                b, json_pack("[I,I]", (json_int_t)hist_bucket_low(i), (json_int_t)h->buckets[i]));
    return json_pack("{s:s,s:i,s:o}", "unit", "ns", HISTJSON_SUB_BITS, HIST_SUB_BITS,
                     HISTJSON_BUCKETS, b);
}

/* One pass over the merged histogram reads every percentile (hist_percentile's rule). */
static void
agg_finish(struct agg *a, struct ctx *cx)
{
    struct hist *h = cx->scratch;
    memset(cx->runs_seen, 0, bitset_words(cx->m->nruns) * sizeof *cx->runs_seen);
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
        for (size_t i = a->blo; i <= a->bhi && q < HISTJSON_NPCT; i++) {
            seen += h->buckets[i];
            while (q < HISTJSON_NPCT) {
                uint64_t rank = (uint64_t)ceil(histjson_pcts[q].q / 100.0 * (double)h->count);
                if (rank < 1)
                    rank = 1;
                if (seen < rank)
                    break;
                double mid = fmin(fmax(hist_bucket_mid(i), (double)h->min), (double)h->max);
                a->pct[q++] = mid / 1e3;
            }
        }
        if (a->want_hist)
            a->hist = agg_hist_json(a, h);
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

/* Trials planned and not recorded: never negative, a pair's plan counts its records. */
static uint64_t
agg_not_run(const struct agg *a)
{
    uint64_t rec = a->nv + a->failed;
    return a->planned > rec ? a->planned - rec : 0;
}

/* The share of the datagrams the sender's schedule called for that it did not send, in %. */
static double
agg_unsent_pct(const struct agg *a)
{
    double sched = a->sent_sum + a->unsent_sum;
    return sched > 0.0 ? 100.0 * a->unsent_sum / sched : 0.0;
}

/* --- formatting for people ---------------------------------------------------------------- */

/* --- summary (numbers) ---------------------------------------------------------------------- */

/* The figures beside the headline (testspec.h's metrics the scenario reports), each over the
 * set's ok trials that have it: {"<name>": {n, mean, stddev, min, max, ci95_halfwidth}}, in the
 * metric's unit (summary.json's units legend names it); stddev and the interval null for n = 1. */
static void
figures_obj(json_t *o, const struct agg *a)
{
    if (a->sc == NULL || a->sc->nfigs == 0)
        return;
    json_t *figs = json_object();
    for (int f = 0; f < a->sc->nfigs; f++) {
        const struct stats *st = &a->fig[f];
        if (st->n == 0)
            continue;
        bool spread = st->n >= 2; /* one trial: no spread, no interval (null), as the headline */
        json_object_set_new(
            figs, testspec_metric_figure(a->sc->figs[f]),
            json_pack("{s:I,s:f,s:o,s:f,s:f,s:o}", "n", (json_int_t)st->n, "mean", st->mean,
                      "stddev", spread ? json_real(stats_stddev(st)) : json_null(), "min", st->min,
                      "max", st->max, "ci95_halfwidth",
                      spread ? json_real(stats_ci_halfwidth(st, 0.95)) : json_null()));
    }
    json_object_set_new(o, "figures", figs);
}

/* "flagged": how many of a's ok trials the hosts bent, of those whose record says, per flag
 * raised, and the mean of the others (null when every one was flagged). */
static json_t *
flagged_obj(const struct agg *a)
{
    json_t *o =
        json_pack("{s:I, s:I}", "trials", (json_int_t)a->flagged, "judged", (json_int_t)a->judged);
    for (int f = 0; f < HOSTFLAG_COUNT; f++)
        if (a->flag_n[f] > 0)
            json_object_set_new(o, hostflag_name((enum hostflag)f),
                                json_integer((json_int_t)a->flag_n[f]));
    json_object_set_new(o, "mean_without", a->clean.n > 0 ? json_real(a->clean.mean) : json_null());
    return o;
}

/* Add a's statistics to o; returns o. */
static json_t *
stats_obj(json_t *o, const struct agg *a)
{
    json_object_set_new(o, "planned", json_integer((json_int_t)a->planned));
    json_object_set_new(o, "n", json_integer((json_int_t)a->nv));
    json_object_set_new(o, "failed", json_integer((json_int_t)a->failed));
    json_object_set_new(o, "not_run", json_integer((json_int_t)agg_not_run(a)));
    json_object_set_new(o, "runs", json_integer((json_int_t)a->runs));
    if (a->undecided > 0) /* only then: the summaries of fixed trials read as before */
        json_object_set_new(o, "undecided", json_integer((json_int_t)a->undecided));
    if (a->nv > 0) {
        /* one trial has no spread and no interval: null, not 0 and the mean */
        bool spread = a->nv >= 2;
        double hw = spread ? stats_ci_halfwidth(&a->st, 0.95) : 0.0;
        json_object_set_new(o, "mean", json_real(a->st.mean));
        json_object_set_new(o, "median", json_real(agg_median(a)));
        json_object_set_new(o, "stddev", spread ? json_real(stats_stddev(&a->st)) : json_null());
        json_object_set_new(o, "min", json_real(a->st.min));
        json_object_set_new(o, "max", json_real(a->st.max));
        json_object_set_new(o, "ci95_halfwidth", spread ? json_real(hw) : json_null());
        json_object_set_new(o, "ci95_low", spread ? json_real(a->st.mean - hw) : json_null());
        json_object_set_new(o, "ci95_high", spread ? json_real(a->st.mean + hw) : json_null());
        json_object_set_new(o, "cv", spread ? json_real(agg_cv(a)) : json_null());
        json_object_set_new(o, "high_variation", json_boolean(agg_flag(a)));
    }
    if (a->has_rtt) {
        json_t *r = json_object();
        json_object_set_new(r, "n", json_integer((json_int_t)a->rtt_n));
        /* the ok trials whose histograms the percentiles merge (a trial may carry none) */
        json_object_set_new(r, "trials", json_integer((json_int_t)a->rtt_trials));
        json_object_set_new(r, "mean", json_real(a->rtt_mean));
        json_object_set_new(r, "min", json_real(a->rtt_min));
        for (size_t i = 0; i < HISTJSON_NPCT; i++)
            json_object_set_new(r, histjson_pcts[i].key, json_real(a->pct[i]));
        json_object_set_new(r, "max", json_real(a->rtt_max));
        if (a->hist != NULL)
            json_object_set(r, HISTJSON_HIST, a->hist);
        json_object_set_new(o, HISTJSON_RTT, r);
    }
    if (a->cpu_l.n > 0)
        json_object_set_new(
            o, "cpu_pct", json_pack("{s:f,s:f}", "local", a->cpu_l.mean, "remote", a->cpu_r.mean));
    if (a->cpb_l.n > 0)
        json_object_set_new(
            o, "cycles_per_byte",
            json_pack("{s:f,s:f}", "local", a->cpb_l.mean, "remote", a->cpb_r.mean));
    if (a->retrans.n > 0)
        json_object_set_new(o, "retransmits_mean", json_real(a->retrans.mean));
    if (a->lost.n > 0) {
        json_t *u = json_pack("{s:f}", "lost_pct", a->lost.mean);
        if (a->jitter.n > 0) /* udp_pps times no datagram: no jitter */
            json_object_set_new(u, "jitter_us", json_real(a->jitter.mean));
        if (a->unsent_known > 0) { /* what the sender's schedule called for and it did not send */
            json_object_set_new(u, "unsent", json_real(a->unsent_sum));
            json_object_set_new(u, "unsent_pct", json_real(agg_unsent_pct(a)));
            json_object_set_new(u, "trials_sender_behind",
                                json_integer((json_int_t)a->unsent_trials));
        }
        json_object_set_new(o, "udp", u);
    }
    figures_obj(o, a);
    if (a->judged > 0) /* only then: the summaries of journals of before read as before */
        json_object_set_new(o, "flagged", flagged_obj(a));
    return o;
}

/* --- the view (strings) ------------------------------------------------------------------- */

/* "12 planned: 10 ok, 1 failed, 1 not run"; with undecided adaptive pairs (their planned
 * trials the least they take): "at least 12 planned: 10 ok, 1 failed, at least 1 not run". */
static json_t *
tally_text(uint64_t planned, uint64_t ok, uint64_t failed, uint64_t not_run, bool least)
{
    const char *al = least ? "at least " : "";
    return report_jprintf("%s%llu planned: %llu ok, %llu failed, %s%llu not run", al,
                          (unsigned long long)planned, (unsigned long long)ok,
                          (unsigned long long)failed, al, (unsigned long long)not_run);
}

/* A set's completeness for people: its tally, and the short form a matrix cell carries when
 * not every planned trial is ok ("5/6 ok"; "" otherwise). */
static void
view_tally(json_t *o, const struct agg *a)
{
    bool least = a->undecided > 0;
    json_object_set_new(o, "tally",
                        tally_text(a->planned, a->nv, a->failed, agg_not_run(a), least));
    json_object_set_new(o, "planned", json_integer((json_int_t)a->planned));
    json_object_set_new(o, "not_run", json_integer((json_int_t)agg_not_run(a)));
    json_object_set_new(o, "nruns", json_integer(a->runs > 1 ? (json_int_t)a->runs : 0));
    json_object_set_new(o, "short_tally",
                        a->nv < a->planned || least
                            ? report_jprintf("%zu/%s%llu ok", a->nv, least ? "≥" : "",
                                             (unsigned long long)a->planned)
                            : json_string(""));
}

/* What the hosts did beside the figure: CPU, cycles per byte, retransmits, UDP loss and what
 * the sender did not send (jitter is the table's, in its unit: group_jitter). "—" where the
 * trials recorded none. */
static void
view_resources(json_t *o, const struct agg *a)
{
    if (a->cpu_l.n > 0) {
        json_object_set_new(o, "cpu_local", report_jprintf("%.1f %%", a->cpu_l.mean));
        json_object_set_new(o, "cpu_remote", report_jprintf("%.1f %%", a->cpu_r.mean));
    }
    /* only what was measured: a table row without it reads "" (the scenario has no such key) */
    if (a->cpb_l.n > 0) {
        json_object_set_new(o, "cpb_local", report_jprintf("%.2f", a->cpb_l.mean));
        json_object_set_new(o, "cpb_remote", report_jprintf("%.2f", a->cpb_r.mean));
    }
    json_object_set_new(o, "retransmits",
                        a->retrans.n > 0 ? report_jprintf("%.1f", a->retrans.mean)
                                         : json_string("—"));
    if (a->lost.n > 0)
        json_object_set_new(o, "lost", report_jprintf("%.3f %%", a->lost.mean));
    if (a->unsent_known > 0)
        json_object_set_new(o, "unsent",
                            a->unsent_sum > 0
                                ? report_jprintf("%.0f (%.2f %%)", a->unsent_sum, agg_unsent_pct(a))
                                : json_string("0"));
    /* the sender's host could not offer the rate asked for: said beside the rate */
    if (a->unsent_trials > 0)
        json_object_set_new(o, "behind",
                            report_jprintf("sender fell behind in %zu of %zu trial%s",
                                           a->unsent_trials, a->nv, a->nv == 1 ? "" : "s"));
}

/* A set with flagged trials, for people: "nflagged" and its text (report_flagged_text).
 * Nothing when none is flagged. */
static void
view_flagged(json_t *o, const struct agg *a, enum testspec_kind k)
{
    if (a->flagged == 0)
        return;
    json_t *cell = json_pack("{s:I, s:o}", "n", (json_int_t)a->nv, "flagged", flagged_obj(a));
    json_object_set_new(o, "nflagged", json_integer((json_int_t)a->flagged));
    json_object_set_new(o, "flagged_text", report_flagged_text(k, cell));
    json_decref(cell);
}

static json_t *
view_stats(json_t *o, const struct agg *a, const struct testspec_scale *sc)
{
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
    json_object_set_new(o, "mean", report_scaled_json(sc, a->st.mean));
    json_object_set_new(o, "median", report_scaled_json(sc, agg_median(a)));
    json_object_set_new(o, "min", report_scaled_json(sc, a->st.min));
    json_object_set_new(o, "max", report_scaled_json(sc, a->st.max));
    if (a->nv >= 2) { /* one trial has no spread: n/a, as summary.json's null */
        char b[64];
        json_object_set_new(
            o, "ci",
            report_jprintf("± %s",
                           testspec_scale_text(sc, stats_ci_halfwidth(&a->st, 0.95), b, sizeof b)));
        json_object_set_new(o, "stddev", report_scaled_json(sc, stats_stddev(&a->st)));
        json_object_set_new(o, "cv", report_jprintf("%.1f %%", agg_cv(a) * 100.0));
    } else {
        json_object_set_new(o, "ci", json_string("n/a"));
        json_object_set_new(o, "stddev", json_string("n/a"));
        json_object_set_new(o, "cv", json_string("n/a"));
    }
    json_object_set_new(o, "flag", json_boolean(agg_flag(a)));
    view_resources(o, a);
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

static json_t *
scen_params(const json_t *def)
{
    json_t *o = json_deep_copy(def);
    json_object_del(o, "name");
    json_object_del(o, "test");
    return o;
}

/* Whether the scenario's parameters are as nsperf ran them: a run.json of version 1 recorded
 * the plan's words, 0 where the plan said nothing (the kind's default, unrecorded). */
static bool
params_resolved(const struct rmodel *m, const struct rscen *sc)
{
    if (sc->def_run < 0 || (size_t)sc->def_run >= m->nruns)
        return true;
    const char *schema = m->runs[sc->def_run].run->schema;
    return schema == NULL || strcmp(schema, JOURNAL_RUN_SCHEMA_1) != 0;
}

/* The view's words when they are not (params_resolved). */
static void
params_note(json_t *view, bool resolved)
{
    if (!resolved)
        json_object_set_new(view, "params_note",
                            json_string("as " JOURNAL_RUN_FILE
                                        " version 1 recorded them: a 0 there may "
                                        "stand for the kind's default, which it did not record"));
}

/* A scenario an earlier revision of a run's plan ran (rscen.revision): said, in both trees. */
static void
revision_note(const struct rscen *sc, json_t *sum, json_t *view)
{
    if (sc->revision == 0)
        return;
    json_object_set_new(sum, "revision", json_integer((json_int_t)sc->revision));
    json_object_set_new(
        view, "revision_note",
        report_jprintf("Revision %u of the plan ran these trials; revision %u (netsurvey run "
                       "--resume --force with a changed plan) replaced its parameters, so they "
                       "are reported apart, as they ran, and nothing more was planned of them.",
                       sc->revision, sc->revised_to));
}

static json_t *
params_text(const json_t *def)
{
    struct rbuf b;
    report_buf_init(&b);
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)(uintptr_t)def, k, v)
    {
        if (!strcmp(k, "name") || !strcmp(k, "test") || !strcmp(k, "sweep"))
            continue; /* a sweep's value is in the heading (sweep_label) */
        if (b.len)
            report_buf_puts(&b, ", ");
        /* json_dumpb: no string from jansson's allocator to free (see report_jarena_begin) */
        char val[256];
        size_t n = json_dumpb(v, val, sizeof val - 1, JSON_ENCODE_ANY | JSON_REAL_PRECISION(10));
        val[n < sizeof val ? n : sizeof val - 1] = '\0';
        report_buf_printf(&b, "%s %s", k, n > 0 && n < sizeof val ? val : "?");
    }
    json_t *r = json_string(b.data ? b.data : "");
    report_buf_release(&b);
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
    struct rvals vals = {0};
    for (size_t i = 0; i < mt->n * mt->n; i++)
        if (mt->present[i] && mt->cells[i].nv > 0)
            report_vals_add(&vals, mt->cells[i].st.mean);
    struct testspec_scale sc = report_scale(testspec_kind_metric(k), vals.v, vals.n);
    report_vals_release(&vals);
    for (size_t c = 0; c < mt->n; c++)
        json_array_append_new(cols, json_pack("{s:s}", "label", labels[c]));
    for (size_t r = 0; r < mt->n; r++) {
        json_t *cells = json_array();
        for (size_t c = 0; c < mt->n; c++) {
            const struct agg *a = &mt->cells[r * mt->n + c];
            json_t *cell = json_object();
            bool present = mt->present[r * mt->n + c];
            /* every key set in every cell: a missing one would be looked up in the scenario */
            json_object_set_new(cell, "text",
                                !present        ? json_string("—")
                                : a->nv > 0     ? report_scaled_json(&sc, a->st.mean)
                                : a->failed > 0 ? json_string("failed")
                                                : json_string("not run"));
            json_object_set_new(cell, "empty", json_boolean(!present || a->nv == 0));
            json_object_set_new(cell, "npairs",
                                json_integer(a->pairs > 1 ? (json_int_t)a->pairs : 0));
            json_object_set_new(cell, "flag", json_boolean(a->nv > 0 && agg_flag(a)));
            json_object_set_new(cell, "nfailed", json_integer((json_int_t)a->failed));
            json_object_set_new(
                cell, "behind",
                a->unsent_trials > 0
                    ? report_jprintf("sender fell behind in %zu of %zu", a->unsent_trials, a->nv)
                    : json_string(""));
            view_tally(cell, a);
            view_flagged(cell, a, k);
            json_array_append_new(cells, cell);
        }
        json_array_append_new(rows, json_pack("{s:s,s:o}", "label", labels[r], "cells", cells));
    }
    json_object_set_new(o, "cols", cols);
    json_object_set_new(o, "rows", rows);
    json_object_set_new(o, "scale", report_scale_json(&sc));
    json_object_set_new(o, "unit", json_string(sc.unit));
    return o;
}

/* The matrix's measured cells, one a row: how many trials each planned and recorded, and how
 * many the hosts bent. */
static json_t *
cells_view(const struct mat *mt, const char *const *labels, enum testspec_kind k,
           const char **jitter_unit)
{
    json_t *list = json_array();
    struct rvals jit = {0};
    for (size_t i = 0; i < mt->n * mt->n; i++)
        if (mt->present[i] && mt->cells[i].jitter.n > 0)
            report_vals_add(&jit, mt->cells[i].jitter.mean);
    struct testspec_scale js = report_scale(TESTSPEC_M_RTT_MEAN, jit.v, jit.n);
    report_vals_release(&jit);
    *jitter_unit = js.unit;
    for (size_t r = 0; r < mt->n; r++)
        for (size_t c = 0; c < mt->n; c++) {
            if (!mt->present[r * mt->n + c])
                continue;
            const struct agg *a = &mt->cells[r * mt->n + c];
            json_t *o =
                json_pack("{s:s,s:s,s:i,s:i,s:i,s:i,s:i}", "src", labels[r], "dst", labels[c],
                          "pairs", (int)a->pairs, "runs", (int)a->runs, "ok", (int)a->nv, "failed",
                          (int)a->failed, "n_planned", (int)a->planned);
            view_tally(o, a);
            static const char *const dash[] = {"cpu_local",  "cpu_remote", "cpb_local",
                                               "cpb_remote", "lost",       "unsent"};
            for (size_t i = 0; i < sizeof dash / sizeof dash[0]; i++) /* none measured */
                json_object_set_new(o, dash[i], json_string("—"));
            view_resources(o, a);
            json_object_set_new(o, "jitter",
                                a->jitter.n > 0 ? report_scaled_json(&js, a->jitter.mean)
                                                : json_string("—"));
            view_flagged(o, a, k);
            json_array_append_new(list, o);
        }
    return list;
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
    for (size_t i = 0; i < mt->n * mt->n; i++) {
        free(mt->cells[i].vals);
        json_decref(mt->cells[i].hist);
    }
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
                if (agg_add_pair(a, &pairs[i], cx) != 0)
                    return NS_ENOMEM;
            }
            mt->present[r * mt->n + c] = any;
            a->want_hist = cx->keep_hists;
            agg_finish(a, cx);
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
    uint64_t maxn;         /* the most trials a pair of it planned: the trial columns */
    uint64_t unseen;       /* trials the runs planned of the scenario's pairs with no record */
    uint64_t unseen_pairs; /* adaptive: those pairs (each undecided), per run */
    bool fam_shared;       /* the scenario has groups of both families (unseen is in the first) */
    struct testspec_scale tsc; /* the unit of the trials per host pair table (and its charts) */
};

/* What a group's pairs add up to. */
struct group_acc {
    json_t *spairs, *vpairs, *fails, *sfails;
    json_t *flagged_v, *flagged_s; /* ok trials the hosts bent: the view's and the summary's */
    size_t nok, nfail;
    uint64_t planned;
    size_t met, at_max, short_of; /* adaptive trials: pairs by how they stopped */
    json_t *undecided;            /* adaptive trials: the view's pairs the rule has not decided */
    bool any_cpu, any_udp, any_retr, any_cpb, any_unsent;
    bool any_behind; /* a trial whose sender fell behind (marked in the trials table) */
};

/* A sweep's value as people and file names read it: "msg_size 64K" (label), "64K" (text). */
static void
sweep_words(const struct rscen *sc, char *label, size_t llen, char *text, size_t tlen)
{
    testspec_value_text(sc->sweep, sc->value, text, tlen);
    snprintf(label, llen, "%s %s", testspec_key(sc->sweep), text);
}

/* The summary's "sweep" of a value of a sweep: {"param": its record key, "value": in the record's
 * unit, "text": as a plan writes it}; NULL for a scenario that is no sweep. */
static json_t *
sweep_obj(const struct rscen *sc)
{
    if (!sc->swept)
        return NULL;
    char label[96], text[48];
    sweep_words(sc, label, sizeof label, text, sizeof text);
    return json_pack("{s:s,s:o,s:s}", "param", testspec_record_key(sc->sweep), "value",
                     testspec_value_json(sc->sweep, sc->value), "text", text);
}

/* A value of a sweep: "sweep" in the summary, "sweep_label" in the view. */
static void
sweep_head(const struct rscen *sc, json_t *sum, json_t *view)
{
    if (!sc->swept)
        return;
    char label[96], text[48];
    sweep_words(sc, label, sizeof label, text, sizeof text);
    json_object_set_new(sum, "sweep", sweep_obj(sc));
    json_object_set_new(view, "sweep_label", json_string(label));
}

/* The scenario's file key (report_scenario_key): its name, a sweep's value, the family when the
 * scenario has both (fam NULL: not). */
static void
scen_file_key(const struct rscen *sc, const char *fam, char *key, size_t len)
{
    char label[96], text[48] = "";
    if (sc->swept)
        sweep_words(sc, label, sizeof label, text, sizeof text);
    report_scenario_key(key, len, sc->name, sc->swept ? text : NULL, fam);
}

/* The figures a scenario reports beside its headline: [{name, metric, unit, note}]. */
static json_t *
figures_list(const struct rscen *sc)
{
    json_t *a = json_array();
    for (int i = 0; i < sc->nfigs; i++) {
        enum testspec_metric m = sc->figs[i];
        const char *note = testspec_metric_note(m);
        json_array_append_new(a, json_pack("{s:s,s:s,s:s,s:s?}", "name", testspec_metric_figure(m),
                                           "metric", testspec_metric_words(m), "unit",
                                           testspec_metric_unit(m), "note", note));
    }
    return a;
}

/* Which way a scenario's data flows: for people (dir) and summary.json's "direction" (key). A
 * load and both directions at once are said with it. */
static void
scen_direction(const struct rscen *sc, char *dir, size_t len, const char **key)
{
    const double *v = sc->spec.v;
    bool stream = testspec_kind_family(sc->kind) == TESTSPEC_FAMILY_STREAM;
    bool bidir = testspec_applies(TESTSPEC_P_BIDIR, (int)sc->kind) && v[TESTSPEC_P_BIDIR] != 0;
    double load =
        testspec_applies(TESTSPEC_P_LOAD_STREAMS, (int)sc->kind) ? v[TESTSPEC_P_LOAD_STREAMS] : 0;
    int ld = (int)v[TESTSPEC_P_LOAD_DIRECTION];
    *key = stream && bidir ? TESTSPEC_DIR_BOTH : stream && sc->reverse ? "dst->src" : "src->dst";
    if (stream)
        snprintf(dir, len, "%s",
                 bidir         ? "data flows src → dst and dst → src at once (bidir)"
                 : sc->reverse ? "data flows dst → src (reverse)"
                               : "data flows src → dst");
    else if (load > 0)
        snprintf(dir, len, "src requests, dst responds, under a load of %.0f TCP stream%s %s", load,
                 load == 1 ? "" : "s",
                 ld == TESTSPEC_DIRECTION_REVERSE ? "dst → src"
                 : ld == TESTSPEC_DIRECTION_BOTH  ? "each way"
                                                  : "src → dst");
    else
        snprintf(dir, len, "src requests, dst responds");
}

/* The group's own members, in the summary and in the view. */
static void
group_head(const struct group *g, bool fam_in_key, json_t **sum, json_t **view)
{
    const struct rscen *sc = g->sc;
    enum testspec_kind k = g->k;
    char key[256];
    scen_file_key(sc, fam_in_key ? g->fam : NULL, key, sizeof key);
    char dir[160];
    const char *dir_key;
    scen_direction(sc, dir, sizeof dir, &dir_key);
    char tail[256], label[96] = "", text[48], name[256];
    if (sc->swept)
        sweep_words(sc, label, sizeof label, text, sizeof text);
    snprintf(tail, sizeof tail, "%s; %s", g->fam, dir);
    snprintf(name, sizeof name, "%s%s%s", sc->name, sc->swept ? " " : "", label);
    *sum = json_pack("{s:s,s:s,s:s,s:s,s:s,s:b,s:s,s:s,s:o}", "name", sc->name, "file_key", key,
                     "test", sc->test, "family", g->fam, "direction", dir_key, "reverse",
                     sc->reverse, "metric", testspec_kind_words(k), "unit", testspec_kind_unit(k),
                     "params", scen_params(sc->def));
    /* "caption": what every figure of the scenario is of; each figure's adds its words and
     * unit (report_fig_caption) */
    *view = json_pack("{s:s,s:s,s:s,s:s,s:o,s:s,s:s,s:o,s:b,s:b}", "name", sc->name, "file_key",
                      key, "test", sc->test, "family", g->fam, "caption",
                      report_jprintf("%s, %s", name, tail), "cap_tail", tail, "words",
                      testspec_kind_words(k), "params", params_text(sc->def), "has_rtt",
                      testspec_kind_has_rtt(k), "unrecorded", false);
    json_object_set_new(*view, "cap_name", json_string(name)); /* a sweep's value after it */
    bool resolved = params_resolved(g->cx->m, sc);
    json_object_set_new(*sum, "params_resolved", json_boolean(resolved));
    if (sc->nfigs > 0)
        json_object_set_new(*sum, "figures", figures_list(sc));
    params_note(*view, resolved);
    sweep_head(sc, *sum, *view);
    revision_note(sc, *sum, *view);
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
    if (view != NULL) {
        const char *words = testspec_kind_words(g->k), *junit = NULL;
        json_t *mv = matrix_view(&zm, zl, g->k);
        json_object_set_new(mv, "caption", report_fig_caption(view, words, js(mv, "unit")));
        json_object_set_new(view, "matrix", mv);
        json_object_set_new(view, "cells", cells_view(&zm, zl, g->k, &junit));
        json_object_set_new(view, "cells_jitter_unit", json_string(junit));
    }
    if (m->nregions > 1 && view != NULL) {
        if (mat_fill(g->cx, &rm, g->pairs, g->np, false) != 0)
            goto out;
        json_object_set_new(sum, "region_cells", matrix_summary(&rm, rl, "region"));
        json_t *mv = matrix_view(&rm, rl, g->k);
        json_object_set_new(mv, "caption",
                            report_fig_caption(view, testspec_kind_words(g->k), js(mv, "unit")));
        json_object_set_new(view, "region_matrix", mv);
    }
    rc = 0;
out:
    mat_release(&zm);
    mat_release(&rm);
    free(zl);
    free(rl);
    return rc;
}

/* A flagged ok trial into the group's lists of them, with its reasons. */
static void
pair_flagged(const struct group *g, const struct rpair *p, const struct rtrial *t,
             struct group_acc *acc)
{
    const struct rmodel *m = g->cx->m;
    const char *run_id = m->runs[t->run].run->run_id;
    json_t *flags = json_array();
    for (int f = 0; f < HOSTFLAG_COUNT; f++)
        if ((t->flags >> f) & 1u)
            json_array_append_new(flags, json_string(hostflag_name((enum hostflag)f)));
    json_t *o = json_pack("{s:s,s:s,s:s,s:s,s:i,s:s,s:o,s:s}", "scenario", g->sc->name, "family",
                          g->fam, "src", m->hosts[p->src].name, "dst", m->hosts[p->dst].name,
                          "trial", (int)t->n, "run_id", run_id != NULL ? run_id : "", "flags",
                          flags, "why", t->flag_why != NULL ? t->flag_why : "");
    json_t *vo = json_copy(o);
    json_object_set_new(vo, "several_runs", json_boolean(m->nruns > 1));
    json_array_append_new(acc->flagged_v, vo);
    json_array_append_new(acc->flagged_s, o);
}

/* One trial of a pair into the lists: its value (summary) and text (view); a failure also into
 * the group's lists of failures, a flagged one into those of flagged trials. */
static void
pair_trial(const struct group *g, const struct rpair *p, const struct rtrial *t, json_t *st,
           json_t *vt, struct group_acc *acc)
{
    const struct rmodel *m = g->cx->m;
    char b[64];
    if (t->ok) {
        json_array_append_new(st, json_real(t->value));
        testspec_scale_text(&g->tsc, t->value, b, sizeof b);
        bool behind = t->has_unsent && t->udp_unsent > 0; /* the host's limit, not the path's */
        acc->any_behind |= behind;
        json_array_append_new(
            vt, report_jprintf("%s%s%s", b, behind ? " ‡" : "", t->flags != 0 ? " ⚠" : ""));
        if (t->flags != 0)
            pair_flagged(g, p, t, acc);
        return;
    }
    json_array_append_new(st, json_null());
    json_array_append_new(vt, json_string(t->not_run ? "not run" : "failed"));
    const char *run_id = m->runs[t->run].run->run_id;
    char why[1024];
    snprintf(why, sizeof why, "%s%s", t->not_run ? "not run: " : "", t->error);
    json_t *f = json_pack("{s:s,s:s,s:s,s:s,s:i,s:s,s:s}", "scenario", g->sc->name, "family",
                          g->fam, "src", m->hosts[p->src].name, "dst", m->hosts[p->dst].name,
                          "trial", (int)t->n, "error", why, "run_id", run_id != NULL ? run_id : "");
    json_t *vf = json_copy(f); /* the view's, with a word for the template */
    json_object_set_new(vf, "several_runs", json_boolean(m->nruns > 1));
    json_array_append_new(acc->fails, vf);
    json_array_append_new(acc->sfails, f);
}

/* A pair's planned trials, run by run (in the order the runs were given) and by number within
 * a run: the value (summary) and its text (view), null and "not run" where a planned trial has
 * no record (adaptive: as many as the rule decided, report_plan_pair; an undecided pair's least);
 * the view's row is padded to the group's widest. */
static void
pair_trials(const struct group *g, const struct rpair *p, json_t *st, json_t *vt,
            struct group_acc *acc)
{
    size_t cols = 0, i = 0;
    for (uint32_t run = 0; run < g->cx->m->nruns; run++) {
        size_t j = i;
        while (j < p->nt && p->t[j].run == run)
            j++;
        if (j == i && (p->plan_only == NULL || !bitset_test(p->plan_only, run)))
            continue; /* neither recorded nor planned by this run */
        struct rplan pl;
        report_plan_pair(&g->sc->runs[run], p->t + i, j - i, &pl);
        for (uint64_t n = 1; n <= pl.planned; n++, cols++) {
            if (i < j && p->t[i].n == n) {
                pair_trial(g, p, &p->t[i++], st, vt, acc);
                continue;
            }
            json_array_append_new(st, json_null());
            json_array_append_new(vt, json_string("not run"));
        }
        i = j;
    }
    for (; cols < g->maxn; cols++)
        json_array_append_new(vt, json_string(""));
}

/* Raw numbers for the charts, which draw host pairs only when they are few. */
static void
pair_chart_values(json_t *vo, const struct agg *a, const struct rpair *p)
{
    json_object_set_new(vo, "mean_v", json_real(a->st.mean));
    json_object_set_new(vo, "ci_v",
                        a->nv >= 2 ? json_real(stats_ci_halfwidth(&a->st, 0.95))
                                   : json_null()); /* no interval of one trial */
    json_t *vals = json_array();
    for (size_t j = 0; j < p->nt; j++)
        if (p->t[j].ok)
            json_array_append_new(vals, json_real(p->t[j].value));
    json_object_set_new(vo, "values_v", vals);
    if (a->has_rtt) {
        json_t *pv = json_array();
        for (size_t q = 0; q < HISTJSON_NPCT; q++)
            json_array_append_new(pv, json_real(a->pct[q]));
        json_object_set_new(vo, "pcts_v", pv);
    }
}

/* Adaptive trials: how pair p stands, decided as the runner decides (report_plan_pair, run by run):
 * "target met", "max reached", or "incomplete" (undecided in a run: short of both, from
 * failures or a run stopped early; its planned trials are then the least it takes). Adds
 * "adaptive" to the summary's pair, and an undecided pair to the view's list. */
static void
pair_adaptive(const struct group *g, const struct rpair *p, const struct agg *a, json_t *so,
              const json_t *vo, struct group_acc *acc)
{
    if (!trials_adaptive(&g->sc->policy))
        return;
    struct stats st; /* the figures the rules read, over the runs that ran it */
    stats_init(&st);
    for (size_t j = 0; j < p->nt; j++) {
        const struct trials_policy *pol = &g->sc->runs[p->t[j].run].policy;
        if (p->t[j].ok && (!trials_adaptive(pol) || p->t[j].n <= pol->max))
            stats_add(&st, p->t[j].value);
    }
    bool undecided = p->runs_undecided > 0, at_max = !undecided && p->runs_max > 0;
    const char *how = undecided ? "incomplete" : at_max ? "max reached" : "target met";
    acc->met += !undecided && !at_max;
    acc->at_max += at_max;
    acc->short_of += undecided;
    double rel = trials_ci_relative(&st);
    json_t *ad = json_pack("{s:I, s:o, s:s, s:b}", "trials", (json_int_t)st.n, "ci95_relative",
                           isfinite(rel) ? json_real(rel) : json_null(), "stopped", how,
                           "undecided", undecided);
    if (p->nruns + (p->plan_only != NULL) > 1) /* several runs: how each one's rule stands */
        json_object_set_new(ad, "runs",
                            json_pack("{s:i, s:i, s:i}", "target_met", (int)p->runs_met,
                                      "max_reached", (int)p->runs_max, "incomplete",
                                      (int)p->runs_undecided));
    json_object_set_new(so, "adaptive", ad);
    if (undecided)
        json_array_append_new(
            acc->undecided,
            json_pack("{s:O, s:O, s:O, s:O, s:o}", "src", json_object_get(vo, "src"), "dst",
                      json_object_get(vo, "dst"), "src_zone", json_object_get(vo, "src_zone"),
                      "dst_zone", json_object_get(vo, "dst_zone"), "tally",
                      tally_text(a->planned, a->nv, a->failed, agg_not_run(a), true)));
}

/* The scenario's adaptive policy and how its pairs stand, in the summary and as sentences; the
 * pairs the rule has not decided (a run stopped early, or failures) are named: the run is
 * incomplete for them. */
static void
group_adaptive(const struct group *g, json_t *sum, json_t *view, const struct group_acc *acc)
{
    const struct trials_policy *pol = &g->sc->policy;
    if (!trials_adaptive(pol)) {
        json_decref(acc->undecided);
        return;
    }
    size_t undecided = acc->short_of + (size_t)g->unseen_pairs;
    json_object_set_new(sum, "adaptive",
                        json_pack("{s:I, s:I, s:f, s:I, s:I, s:I}", "min", (json_int_t)pol->min,
                                  "max", (json_int_t)pol->max, "target_ci", pol->target,
                                  "pairs_target_met", (json_int_t)acc->met, "pairs_max_reached",
                                  (json_int_t)acc->at_max, "pairs_incomplete",
                                  (json_int_t)undecided));
    json_object_set_new(
        view, "adaptive_note",
        report_jprintf(
            "Adaptive trials: %u to %u per host pair, more of a pair while the 95 %% CI "
            "(Student t) of its mean is wider than ±%g %% of that mean; %zu pair%s met the "
            "target, %zu reached %u trials without meeting it, %zu undecided.",
            pol->min, pol->max, pol->target * 100.0, acc->met, acc->met == 1 ? "" : "s",
            acc->at_max, pol->max, undecided));
    if (undecided > 0) {
        json_object_set_new(
            view, "undecided_note",
            report_jprintf(
                "Incomplete for %zu host pair%s: the rule has not decided how many trials "
                "%s (%u to %u), so %s planned count is the least %s still %s — the rest "
                "of min, or one more past it — and the scenario's planned and not-run "
                "counts are lower bounds.%s",
                undecided, undecided == 1 ? "" : "s", undecided == 1 ? "it takes" : "they take",
                pol->min, pol->max, undecided == 1 ? "its" : "their",
                undecided == 1 ? "it" : "they", undecided == 1 ? "takes" : "take",
                g->unseen_pairs > 0 ? " Host pairs with no record yet are among them." : ""));
        json_object_set_new(view, "undecided", json_incref(acc->undecided));
        json_object_set_new(view, "has_undecided",
                            json_boolean(json_array_size(acc->undecided) > 0));
    }
    json_decref(acc->undecided);
}

/* One host pair: its statistics into the summary's and the view's pair lists. */
static int
group_pair(const struct group *g, const struct rpair *p, struct group_acc *acc)
{
    const struct rmodel *m = g->cx->m;
    const struct rhost *s = &m->hosts[p->src], *d = &m->hosts[p->dst];
    struct agg a;
    agg_init(&a);
    if (agg_add_pair(&a, p, g->cx) != 0) {
        free(a.vals);
        return NS_ENOMEM;
    }
    agg_finish(&a, g->cx);
    acc->nok += a.nv;
    acc->nfail += a.failed;
    acc->planned += a.planned;
    acc->any_cpu |= a.cpu_l.n > 0;
    acc->any_udp |= a.lost.n > 0;
    acc->any_retr |= a.retrans.n > 0;
    acc->any_cpb |= a.cpb_l.n > 0;
    acc->any_unsent |= a.unsent_known > 0;
    json_t *st = json_array(), *vt = json_array();
    pair_trials(g, p, st, vt, acc);
    const char *sz = m->zones[s->zone_idx].label, *dz = m->zones[d->zone_idx].label;
    json_t *so =
        json_pack("{s:s,s:s,s:s,s:s,s:s,s:s,s:o}", "src", s->name, "dst", d->name, "src_zone", sz,
                  "dst_zone", dz, "src_address", s->addr, "dst_address", d->addr, "values", st);
    stats_obj(so, &a);
    json_array_append_new(acc->spairs, so);
    json_t *vo = json_pack("{s:s,s:s,s:s,s:s,s:o}", "src", s->name, "dst", d->name, "src_zone", sz,
                           "dst_zone", dz, "trials", vt);
    pair_adaptive(g, p, &a, so, vo, acc);
    view_stats(vo, &a, &g->tsc);
    if (a.has_rtt) /* the percentiles merge these trials' histograms: all, or some */
        json_object_set_new(vo, "pct_trials",
                            a.rtt_trials < a.nv ? report_jprintf("%zu of %zu", a.rtt_trials, a.nv)
                                                : report_jprintf("%zu", a.nv));
    if (g->np <= REPORT_CHART_MAX_BARS)
        pair_chart_values(vo, &a, p);
    json_array_append_new(acc->vpairs, vo);
    free(a.vals);
    return 0;
}

/* The view's trial columns 1..maxn and percentile columns. */
static json_t *
trial_cols(uint64_t maxn)
{
    json_t *tcols = json_array();
    for (uint64_t n = 1; n <= maxn; n++)
        json_array_append_new(tcols, json_pack("{s:i}", "n", (int)n));
    return tcols;
}

static json_t *
pct_cols(void)
{
    json_t *pc = json_array();
    json_array_append_new(pc, json_pack("{s:s}", "name", "min"));
    for (size_t q = 0; q < HISTJSON_NPCT; q++)
        json_array_append_new(pc, json_pack("{s:s}", "name", histjson_pcts[q].name));
    json_array_append_new(pc, json_pack("{s:s}", "name", "max"));
    return pc;
}

/* The runs whose trials a group pools, in the order given: their number, and their names for
 * the view ("A, then B"). */
static size_t
group_runs(const struct group *g, struct rbuf *names)
{
    const struct rmodel *m = g->cx->m;
    uint64_t *seen = g->cx->runs_seen;
    for (size_t i = 0; i < g->np; i++)
        for (size_t j = 0; j < g->pairs[i].nt; j++)
            bitset_set(seen, g->pairs[i].t[j].run);
    size_t n = 0;
    for (size_t r = 0; r < m->nruns; r++) {
        if (!bitset_test(seen, r))
            continue;
        report_buf_printf(names, "%s%s", n++ ? ", then " : "", m->runs[r].dir);
    }
    memset(seen, 0, bitset_words(m->nruns) * sizeof *seen);
    return n;
}

/* Adaptive: the runs' host pairs of the group that their rule left undecided (with the
 * scenario's pairs of no record, in its first group). */
static uint64_t
group_undecided(const struct group *g)
{
    uint64_t n = g->unseen_pairs;
    for (size_t i = 0; i < g->np; i++)
        n += g->pairs[i].runs_undecided;
    return n;
}

/* The summary's trial counts of a scenario's group; "undecided" only when some are (the
 * summaries of fixed trials read as before). */
static json_t *
trials_obj(uint64_t planned, uint64_t ok, uint64_t failed, uint64_t not_run, size_t nruns,
           uint64_t undecided)
{
    json_t *o = json_pack("{s:I,s:I,s:I,s:I,s:I}", "planned", (json_int_t)planned, "ok",
                          (json_int_t)ok, "failed", (json_int_t)failed, "not_run",
                          (json_int_t)not_run, "runs", (json_int_t)nruns);
    if (undecided > 0)
        json_object_set_new(o, "undecided", json_integer((json_int_t)undecided));
    return o;
}

/* The latency percentiles and jitter of the group's pairs, for the view: each table in the one
 * unit of its values (read from the summary's pairs, which hold them as numbers). */
static void
group_pcts(const struct group_acc *acc, json_t *view)
{
    struct rvals pv = {0}, jv = {0};
    size_t i;
    const json_t *so;
    json_array_foreach(acc->spairs, i, so)
    {
        const json_t *r = json_object_get(so, HISTJSON_RTT), *u = json_object_get(so, "udp");
        if (r != NULL) {
            report_vals_add(&pv, jd(r, "min"));
            for (size_t q = 0; q < HISTJSON_NPCT; q++)
                report_vals_add(&pv, jd(r, histjson_pcts[q].key));
            report_vals_add(&pv, jd(r, "max"));
        }
        if (json_object_get(u, "jitter_us") != NULL) /* udp_pps times no datagram */
            report_vals_add(&jv, jd(u, "jitter_us"));
    }
    struct testspec_scale ps = report_scale(TESTSPEC_M_RTT_MEAN, pv.v, pv.n);
    struct testspec_scale jsc = report_scale(TESTSPEC_M_RTT_MEAN, jv.v, jv.n);
    report_vals_release(&pv);
    report_vals_release(&jv);
    json_array_foreach(acc->spairs, i, so)
    {
        json_t *vo = json_array_get(acc->vpairs, i);
        const json_t *r = json_object_get(so, HISTJSON_RTT), *u = json_object_get(so, "udp");
        if (r != NULL) {
            json_t *p = json_array();
            json_array_append_new(p, report_scaled_json(&ps, jd(r, "min")));
            for (size_t q = 0; q < HISTJSON_NPCT; q++)
                json_array_append_new(p, report_scaled_json(&ps, jd(r, histjson_pcts[q].key)));
            json_array_append_new(p, report_scaled_json(&ps, jd(r, "max")));
            json_object_set_new(vo, "pcts", p);
            json_object_set_new(vo, "has_pcts", json_true());
        }
        if (u != NULL)
            json_object_set_new(vo, "jitter",
                                json_object_get(u, "jitter_us") != NULL
                                    ? report_scaled_json(&jsc, jd(u, "jitter_us"))
                                    : json_string("—"));
    }
    json_object_set_new(view, "pcts_scale", report_scale_json(&ps));
    json_object_set_new(view, "pcts_unit", json_string(ps.unit));
    json_object_set_new(view, "pcts_caption", report_fig_caption(view, "RTT percentiles", ps.unit));
    json_object_set_new(view, "jitter_unit", json_string(jsc.unit));
}

static void
group_totals(const struct group *g, json_t *sum, json_t *view, const struct group_acc *acc)
{
    uint64_t planned = acc->planned + g->unseen, rec = acc->nok + acc->nfail;
    uint64_t not_run = planned > rec ? planned - rec : 0, undecided = group_undecided(g);
    struct rbuf names;
    report_buf_init(&names);
    size_t nruns = group_runs(g, &names);
    json_object_set_new(sum, "trials",
                        trials_obj(planned, acc->nok, acc->nfail, not_run, nruns, undecided));
    json_object_set_new(view, "tally",
                        tally_text(planned, acc->nok, acc->nfail, not_run, undecided > 0));
    bool pooled = false; /* a host pair with the trials of several runs */
    for (size_t i = 0; i < g->np; i++)
        pooled |= g->pairs[i].nruns > 1;
    if (pooled)
        json_object_set_new(view, "runs_note",
                            report_jprintf("The trials of %zu runs are pooled (%s); a host pair's "
                                           "trials are listed run by run, in that order.",
                                           nruns, names.data ? names.data : ""));
    if (g->unseen > 0)
        json_object_set_new(
            view, "unseen_note",
            report_jprintf(
                "%s%llu of the trials not run belong to host pairs with no record yet%s.",
                g->unseen_pairs > 0 ? "At least " : "", (unsigned long long)g->unseen,
                g->fam_shared ? " (counted here: their address family is not known)" : ""));
    report_buf_release(&names);
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
    json_object_set_new(view, "has_cpb", json_boolean(acc->any_cpb));
    json_object_set_new(view, "has_unsent", json_boolean(acc->any_unsent));
    json_object_set_new(view, "has_behind", json_boolean(acc->any_behind));
    json_object_set_new(view, "pct_cols", pct_cols());
    json_object_set_new(view, "pairs_scale", report_scale_json(&g->tsc));
    json_object_set_new(view, "pairs_unit", json_string(g->tsc.unit));
    json_object_set_new(view, "pairs_caption",
                        report_fig_caption(view, testspec_kind_words(g->k), g->tsc.unit));
    group_pcts(acc, view);
    /* only when some trial was flagged: the summaries of journals of before read as before */
    bool flagged = json_array_size(acc->flagged_s) > 0;
    if (flagged)
        json_object_set_new(sum, "flagged_trials", acc->flagged_s);
    else
        json_decref(acc->flagged_s);
    json_object_set_new(view, "flagged_trials", acc->flagged_v);
    json_object_set_new(view, "has_flagged", json_boolean(flagged));
}

/* The trial counts of a group's pairs, as group_pair and group_totals count them, for
 * report_aggregate_cells. */
static void
group_count(const struct group *g, json_t *sum)
{
    uint64_t ok = 0, failed = 0, planned = g->unseen;
    for (size_t i = 0; i < g->np; i++) {
        planned += g->pairs[i].planned;
        for (size_t j = 0; j < g->pairs[i].nt; j++) {
            ok += g->pairs[i].t[j].ok;
            failed += !g->pairs[i].t[j].ok && !g->pairs[i].t[j].not_run;
        }
    }
    uint64_t not_run = planned > ok + failed ? planned - ok - failed : 0;
    struct rbuf names;
    report_buf_init(&names);
    size_t nruns = group_runs(g, &names);
    report_buf_release(&names);
    json_object_set_new(sum, "trials",
                        trials_obj(planned, ok, failed, not_run, nruns, group_undecided(g)));
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

/* The unit of the trials per host pair table: of the group's ok trial values. */
static struct testspec_scale
group_trials_scale(const struct group *g)
{
    struct rvals v = {0};
    for (size_t i = 0; i < g->np; i++)
        for (size_t j = 0; j < g->pairs[i].nt; j++)
            if (g->pairs[i].t[j].ok)
                report_vals_add(&v, g->pairs[i].t[j].value);
    struct testspec_scale sc = report_scale(testspec_kind_metric(g->k), v.v, v.n);
    report_vals_release(&v);
    return sc;
}

/* The summary and the view of one (scenario, family): its matrices, pairs and failures. */
static int
group_build(struct ctx *cx, const struct rpair *pairs, size_t np, bool fam_in_key,
            const uint64_t unseen[2], struct group_out *out)
{
    const struct rscen *sc = &cx->m->scens[pairs[0].scen];
    struct group g = {.cx = cx,
                      .sc = sc,
                      .k = sc->kind,
                      .fam = report_family_name(pairs[0].family),
                      .pairs = pairs,
                      .np = np,
                      .unseen = unseen[0],
                      .unseen_pairs = unseen[1],
                      .fam_shared = fam_in_key};
    for (size_t i = 0; i < np; i++)
        g.maxn = pairs[i].planned > g.maxn ? pairs[i].planned : g.maxn;
    if (cx->cells_only)
        return group_build_cells(&g, fam_in_key, out);
    g.tsc = group_trials_scale(&g);
    json_t *sum, *view;
    group_head(&g, fam_in_key, &sum, &view);
    struct group_acc acc = {.spairs = json_array(),
                            .vpairs = json_array(),
                            .fails = json_array(),
                            .sfails = json_array(),
                            .flagged_v = json_array(),
                            .flagged_s = json_array(),
                            .undecided = json_array()};
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
        json_decref(acc.flagged_v);
        json_decref(acc.flagged_s);
        json_decref(acc.undecided);
        json_decref(sum);
        json_decref(view);
        return rc;
    }
    group_totals(&g, sum, view, &acc);
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
    const char *zone = m->zones[h->zone_idx].zone;
    json_t *o = json_pack("{s:s,s:s,s:s,s:s}", "name", h->name, "region",
                          h->region[0] != '\0' ? h->region : "—", "zone",
                          zone[0] != '\0' ? zone : "—", "address", h->addr);
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
    json_object_set_new(o, "arch", json_string(h->arch ? h->arch : "—"));
    const json_t *v = json_object_get(env, "cpus");
    json_object_set_new(o, "cpus",
                        json_is_integer(v)
                            ? report_jprintf("%lld", (long long)json_integer_value(v))
                            : json_string("—"));
    v = json_object_get(env, "mtu");
    json_object_set_new(o, "mtu",
                        json_is_integer(v)
                            ? report_jprintf("%lld", (long long)json_integer_value(v))
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

static const char *
str_or_empty_c(const char *s)
{
    return s != NULL ? s : "";
}

static uint64_t
run_not_run(const struct rrun *r)
{
    uint64_t rec = r->ok + r->failed;
    return r->planned > rec ? r->planned - rec : 0;
}

bool
report_run_complete(const struct rrun *r)
{
    return !r->in_progress && run_not_run(r) == 0 && r->undecided == 0;
}

/* The run's state for people: what its lock and run.json say, and what its records show. */
static const char *
run_state_text(const struct rrun *r, char *buf, size_t len)
{
    enum journal_run_state st = r->run->state;
    uint64_t nr = run_not_run(r);
    if (r->in_progress)
        return "in progress (netsurvey still holds its directory)";
    if (st == JOURNAL_RUN_UNKNOWN) /* version 1, or a state this reader does not know */
        return nr == 0 && r->undecided == 0 ? "complete" : "incomplete";
    if (st == JOURNAL_RUN_RUNNING)
        return "stopped before its end (recorded as running; no netsurvey holds its directory)";
    if (st == JOURNAL_RUN_COMPLETE && r->undecided > 0) { /* failures, or lines lost since */
        char more[96] = "failed trials, which a resume tries again";
        if (nr > 0)
            snprintf(more, sizeof more, "at least %llu planned trials without a record",
                     (unsigned long long)nr);
        snprintf(buf, len,
                 "recorded as complete, but the adaptive rule has not decided %llu host pair%s "
                 "(%s)",
                 (unsigned long long)r->undecided, r->undecided == 1 ? "" : "s", more);
        return buf;
    }
    if (st == JOURNAL_RUN_COMPLETE && nr > 0) { /* lines lost or refused since */
        snprintf(buf, len, "recorded as complete, but %llu planned trials have no record",
                 (unsigned long long)nr);
        return buf;
    }
    return journal_run_state_name(st);
}

static json_t *
run_obj(const struct rrun *r)
{
    const struct journal_run *run = r->run;
    json_t *o = json_pack(
        "{s:s, s:o, s:{s:o, s:o, s:o, s:o}, s:o, s:o, s:o}", "dir", r->dir, "run_id",
        str_or_empty(run->run_id), "plan", "name", str_or_empty(run->plan_name), "file",
        str_or_empty(run->plan_file), "sha256", str_or_empty(run->plan_sha256), "description",
        /* a run.json of netsurvey.run/2 writes "" for a plan without one: none, as absent */
        run->plan_description != NULL && *run->plan_description != '\0'
            ? json_string(run->plan_description)
            : json_null(),
        "tool", run->tool != NULL ? json_deep_copy(run->tool) : json_object(), "started",
        str_or_empty(run->started), "command", str_or_empty(run->command));
    const char *st = journal_run_state_name(run->state);
    json_object_set_new(o, "state", st != NULL ? json_string(st) : json_null());
    json_object_set_new(o, "in_progress", json_boolean(r->in_progress));
    json_object_set_new(o, "complete", json_boolean(report_run_complete(r)));
    json_t *t =
        json_pack("{s:I,s:I,s:I,s:I}", "planned", (json_int_t)r->planned, "ok", (json_int_t)r->ok,
                  "failed", (json_int_t)r->failed, "not_run", (json_int_t)run_not_run(r));
    if (r->undecided > 0) /* planned and not_run are then the least (adaptive trials) */
        json_object_set_new(t, "undecided", json_integer((json_int_t)r->undecided));
    json_object_set_new(o, "trials", t);
    if (run->revision > 1) /* only then: runs of one revision summarise as before */
        json_object_set_new(o, "revision", json_integer((json_int_t)run->revision));
    return o;
}

/* A revised run's plans, for people: "plan revision 2 (resumed with --force: revision 1 of
 * sha256 …, from …)"; NULL for a run of one revision. */
static json_t *
revisions_text(const struct journal_run *run)
{
    if (run->revision <= 1)
        return NULL;
    struct rbuf b;
    report_buf_init(&b);
    report_buf_printf(
        &b, "plan revision %u (a resume with --force changed the plan; earlier: ", run->revision);
    for (size_t i = 0; i < run->nrevisions; i++) {
        const struct journal_run_revision *v = &run->revisions[i];
        report_buf_printf(&b, "%srevision %u, plan sha256 %.12s, from %s", i ? "; " : "",
                          v->revision, str_or_empty_c(v->plan_sha256), str_or_empty_c(v->started));
    }
    report_buf_puts(&b, ")");
    json_t *s = json_string(b.oom ? "" : b.data);
    report_buf_release(&b);
    return s;
}

/* The run as the view shows it: run_obj's members and their words for people. */
static json_t *
run_view(const struct rrun *r)
{
    json_t *o = run_obj(r);
    char b[256];
    json_object_set_new(o, "state_text", json_string(run_state_text(r, b, sizeof b)));
    json_t *rev = revisions_text(r->run);
    if (rev != NULL)
        json_object_set_new(o, "revisions_text", rev);
    json_object_set_new(o, "tally",
                        tally_text(r->planned, r->ok, r->failed, run_not_run(r), r->undecided > 0));
    return o;
}

/* All runs together: the trials they planned and recorded, and whether one is still going or
 * stopped short. */
struct totals {
    uint64_t planned, ok, failed, not_run, undecided;
    bool in_progress, incomplete;
};

static void
totals_of(const struct rmodel *m, struct totals *t)
{
    memset(t, 0, sizeof *t);
    for (size_t i = 0; i < m->nruns; i++) {
        const struct rrun *r = &m->runs[i];
        t->planned += r->planned;
        t->ok += r->ok;
        t->failed += r->failed;
        t->not_run += run_not_run(r);
        t->undecided += r->undecided;
        t->in_progress |= r->in_progress;
        t->incomplete |= !report_run_complete(r);
    }
}

/* The title's mark and the note at the head of the reports, when the runs are not complete. */
static void
completeness_head(const struct rmodel *m, struct rbuf *title, json_t *sum, json_t *view)
{
    struct totals t;
    totals_of(m, &t);
    unsigned long long rec = t.ok + t.failed, planned = t.planned, nr = t.not_run;
    const char *which = m->nruns > 1 ? "one of the runs" : "the run";
    /* adaptive pairs the rule has not decided: their planned trials are the least they take */
    const char *al = t.undecided > 0 ? "at least " : "";
    char und[160] = "";
    if (t.undecided > 0)
        snprintf(und, sizeof und, "; %llu host pair%s of adaptive trials undecided",
                 (unsigned long long)t.undecided, t.undecided == 1 ? "" : "s");
    if (t.in_progress) {
        report_buf_printf(title, " (in progress: %llu of %s%llu planned trials recorded so far)",
                          rec, al, planned);
        json_object_set_new(
            view, "completeness_note",
            report_jprintf("In progress: %s is still going. Every figure below is of "
                           "the %llu trials recorded so far, of %s%llu planned%s; run "
                           "netsurvey report again once it has ended.",
                           which, rec, al, planned, und));
    } else if (t.incomplete && nr == 0) { /* every planned trial recorded, some pair undecided */
        report_buf_printf(title, " (incomplete: %llu host pair%s of adaptive trials undecided)",
                          (unsigned long long)t.undecided, t.undecided == 1 ? "" : "s");
        json_object_set_new(
            view, "completeness_note",
            report_jprintf("Incomplete: the adaptive rule has not decided %llu host "
                           "pair%s (failed trials, which netsurvey run --resume DIR "
                           "tries again; see the undecided pairs of each scenario). "
                           "Every figure below is of the %llu trials recorded.",
                           (unsigned long long)t.undecided, t.undecided == 1 ? "" : "s", rec));
    } else if (t.incomplete) {
        report_buf_printf(title, " (incomplete: %s%llu of %s%llu planned trials not run%s)", al, nr,
                          al, planned, und);
        json_object_set_new(
            view, "completeness_note",
            report_jprintf("Incomplete: %s%llu of the %s%llu planned trials were not "
                           "run%s (see the state of each run%s). Every figure below is "
                           "of the %llu trials recorded; netsurvey run --resume DIR "
                           "runs the others.",
                           al, nr, al, planned, und,
                           t.undecided > 0 ? ", and the undecided pairs of each "
                                             "scenario"
                                           : "",
                           rec));
    }
    json_t *c = json_pack("{s:b,s:b,s:I,s:I,s:I,s:I}", "complete", !t.incomplete, "in_progress",
                          t.in_progress, "planned", (json_int_t)t.planned, "ok", (json_int_t)t.ok,
                          "failed", (json_int_t)t.failed, "not_run", (json_int_t)t.not_run);
    if (t.undecided > 0) /* only then: the summaries of fixed trials read as before */
        json_object_set_new(c, "undecided", json_integer((json_int_t)t.undecided));
    json_object_set_new(sum, "completeness", c);
}

void
report_completeness(const struct rmodel *m, bool *in_progress, bool *incomplete)
{
    struct totals t;
    totals_of(m, &t);
    *in_progress = t.in_progress;
    *incomplete = t.incomplete;
}

/* The report's head: its runs, title, command line and units. */
/* summary.json's units of the headline figures, from the table (common/testspec.h): the kinds
 * of each metric, in its order, to its unit and note ("tcp_rr, udp_rr": "us (mean RTT)"). */
static json_t *
units_legend(void)
{
    json_t *o = json_object();
    for (int i = 0; i < TESTSPEC_METRIC_COUNT; i++) {
        enum testspec_metric m = (enum testspec_metric)i;
        unsigned mask = 0;
        for (int k = 0; k < TESTSPEC_KIND_COUNT; k++)
            mask |= testspec_kind_metric((enum testspec_kind)k) == m ? 1u << k : 0u;
        if (mask == 0)
            continue;
        char kinds[256], text[256];
        const char *note = testspec_metric_note(m);
        if (note != NULL)
            snprintf(text, sizeof text, "%s (%s)", testspec_metric_unit(m), note);
        else
            snprintf(text, sizeof text, "%s", testspec_metric_unit(m));
        json_object_set_new(o, testspec_kinds_text(mask, ", ", kinds, sizeof kinds),
                            json_string(text));
    }
    for (int i = 0; i < TESTSPEC_METRIC_COUNT; i++) { /* "figures.idle_rtt": "us (...)" */
        enum testspec_metric m = (enum testspec_metric)i;
        const char *fig = testspec_metric_figure(m), *note = testspec_metric_note(m);
        if (fig == NULL)
            continue;
        char key[96], text[256];
        snprintf(key, sizeof key, "figures.%s", fig);
        snprintf(text, sizeof text, note != NULL ? "%s (%s: %s)" : "%s (%s)",
                 testspec_metric_unit(m), testspec_metric_words(m), note);
        json_object_set_new(o, key, json_string(text));
    }
    return o;
}

static void
aggregate_head(const struct rmodel *m, json_t *sum, json_t *view)
{
    json_t *runs = json_array(), *vruns = json_array();
    struct rbuf title, cmd;
    report_buf_init(&title);
    report_buf_init(&cmd);
    report_buf_puts(&cmd, "netsurvey report");
    size_t named = 0;
    for (size_t i = 0; i < m->nruns; i++) {
        json_array_append_new(vruns, run_view(&m->runs[i]));
        json_array_append_new(runs, run_obj(&m->runs[i]));
        char q[2 * PATH_MAX + 8];
        report_buf_printf(&cmd, " %s",
                          shquote_word(m->runs[i].dir, q, sizeof q) >= 0 ? q : m->runs[i].dir);
        if (i + 1 == m->nruns && m->same_hosts)
            report_buf_puts(&cmd, " --same-hosts");
        if (i + 1 == m->nruns && m->by_zone_id)
            report_buf_puts(&cmd, " --by zone_id");
        const char *pn = m->runs[i].run->plan_name;
        bool again = false; /* a plan surveyed twice is named once */
        for (size_t j = 0; j < i && !again; j++) {
            const char *pj = m->runs[j].run->plan_name;
            again = pn == pj || (pn != NULL && pj != NULL && strcmp(pn, pj) == 0);
        }
        if (again)
            continue;
        if (named++)
            report_buf_puts(&title, " + ");
        report_buf_puts(&title, pn ? pn : "?");
    }
    if (named < m->nruns)
        report_buf_printf(&title, " (%zu runs)", m->nruns);
    completeness_head(m, &title, sum, view);
    json_object_set_new(sum, "schema", json_string("netsurvey.summary/1"));
    json_object_set_new(sum, "title", json_string(title.data ? title.data : ""));
    json_object_set_new(sum, "report_tool", json_pack("{s:s}", "netsurvey_version", NS_VERSION));
    json_object_set_new(sum, "runs", runs);
    json_object_set_new(sum, "cv_threshold", json_real(REPORT_CV_THRESHOLD));
    json_t *units = units_legend();
    json_object_set_new(units, HISTJSON_RTT,
                        json_string(testspec_metric_unit(TESTSPEC_M_RTT_MEAN)));
    json_object_set_new(units, "cpu_pct", json_string("% of one core (local: src, remote: dst)"));
    json_object_set_new(units, "udp.lost_pct", json_string("%"));
    json_object_set_new(units, "udp.jitter_us", json_string("us"));
    json_object_set_new(units, "udp.unsent",
                        json_string("datagrams the sender's schedule called for and it did not "
                                    "send (its host fell behind; not lost)"));
    json_object_set_new(units, "cycles_per_byte",
                        json_string("CPU cycles per byte moved (local: src, remote: dst)"));
    json_object_set_new(sum, "units", units);
    json_object_set_new(view, "title", json_string(title.data ? title.data : ""));
    json_object_set_new(view, "version", json_string(NS_VERSION));
    json_object_set_new(view, "runs", vruns);
    json_object_set_new(view, "command", json_string(cmd.data));
    json_object_set_new(view, "cv_threshold", report_jprintf("%.0f %%", REPORT_CV_THRESHOLD * 100));
    json_object_set_new(view, "multi_region", json_boolean(m->nregions > 1));
    report_buf_release(&title);
    report_buf_release(&cmd);
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
        if (ho->arch != NULL) /* likewise */
            json_object_set_new(o, "arch", json_string(ho->arch));
        if (ho->zone_warning != NULL) {
            json_object_set_new(o, "zone_warning", json_string(ho->zone_warning));
            json_array_append_new(
                warnings, json_pack("{s:s,s:s}", "host", ho->name, "warning", ho->zone_warning));
        }
        json_array_append_new(hosts, o);
        json_array_append_new(vhosts, host_view(ho, m));
    }
    json_object_set_new(view, "zone_warnings", warnings);
    /* a plan whose hosts state no zone: host pairs only, no zone matrix (the plan refuses a mix) */
    bool zoned = m->by_zone_id;
    for (size_t h = 0; h < m->nhosts && !zoned; h++)
        zoned = m->hosts[h].zone != NULL && m->hosts[h].zone[0] != '\0';
    json_object_set_new(sum, "zones_given", json_boolean(zoned || m->nhosts == 0));
    json_object_set_new(view, "zoned", json_boolean(zoned || m->nhosts == 0));
    json_object_set_new(view, "by_zone_id", json_boolean(m->by_zone_id));
    if (m->by_zone_id) /* absent otherwise: summaries of zone labels read as before */
        json_object_set_new(sum, "zones_by", json_string("zone_id"));
    json_object_set_new(sum, "regions", regions);
    json_object_set_new(sum, "zones", zones);
    json_object_set_new(sum, "hosts", hosts);
    json_object_set_new(view, "hosts", vhosts);
}

/* Trials the runs planned of a scenario's host pairs that recorded nothing (a run stopped
 * early): run.json's count beyond what the recorded pairs planned (adaptive: min for each
 * such pair), in unseen[0]; unseen[1]: adaptive, those pairs, each one undecided. */
static void
scen_unseen(const struct rmodel *m, const struct rscen *sc, uint64_t unseen[2])
{
    unseen[0] = unseen[1] = 0;
    for (size_t r = 0; r < m->nruns; r++) {
        const struct rscen_run *sr = &sc->runs[r];
        uint64_t planned = rscen_run_planned(sr);
        unseen[0] += planned > sr->seen ? planned - sr->seen : 0;
        unseen[1] += rscen_run_unseen_pairs(sr);
    }
}

/* A scenario without a single record: what it planned, and that nothing of it ran. */
static void
scen_unrecorded(const struct rmodel *m, const struct rscen *sc, json_t *scens, json_t *vscens)
{
    char key[256];
    scen_file_key(sc, NULL, key, sizeof key);
    enum testspec_kind k = sc->kind;
    char dir[160];
    const char *dir_key;
    scen_direction(sc, dir, sizeof dir, &dir_key);
    uint64_t unseen[2];
    scen_unseen(m, sc, unseen);
    uint64_t planned = unseen[0];
    json_t *sum =
        json_pack("{s:s,s:s,s:s,s:n,s:s,s:b,s:s,s:s,s:o,s:[],s:[],s:[]}", "name", sc->name,
                  "file_key", key, "test", sc->test, "family", "direction", dir_key, "reverse",
                  sc->reverse, "metric", testspec_kind_words(k), "unit", testspec_kind_unit(k),
                  "params", scen_params(sc->def), "zone_cells", "pairs", "failures");
    json_object_set_new(sum, "trials", trials_obj(planned, 0, 0, planned, 0, unseen[1]));
    json_t *view = json_pack(
        "{s:s,s:s,s:s,s:s,s:s,s:s,s:o,s:b,s:b,s:[],s:[],s:o}", "name", sc->name, "file_key", key,
        "test", sc->test, "family", "", "caption", sc->name, "unit", testspec_kind_unit(k),
        "params", params_text(sc->def), "has_rtt", false, "unrecorded", true, "pairs", "failures",
        "tally", tally_text(planned, 0, 0, planned, unseen[1] > 0));
    bool resolved = params_resolved(m, sc);
    json_object_set_new(sum, "params_resolved", json_boolean(resolved));
    params_note(view, resolved);
    sweep_head(sc, sum, view);
    struct group g = {.sc = sc, .unseen_pairs = unseen[1]}; /* no pair: every one unseen */
    struct group_acc acc = {.undecided = json_array()};
    group_adaptive(&g, sum, view, &acc);
    json_array_append_new(scens, sum);
    json_array_append_new(vscens, view);
}

/* One group per (scenario, family) of the sorted pairs, an entry for each scenario no trial of
 * which was recorded, and every failure in one list. */
static int
aggregate_groups(struct ctx *cx, const struct rpair *pairs, json_t *sum, json_t *view)
{
    const struct rmodel *m = cx->m;
    size_t np = m->npairs;
    json_t *scens = json_array(), *vscens = json_array(), *allfails = json_array();
    int rc = 0;
    size_t total_fail = 0, total_flagged = 0, i = 0;
    for (size_t s = 0; rc == 0 && s < m->nscens; s++) {
        if (i == np || pairs[i].scen != (int)s) {
            scen_unrecorded(m, &m->scens[s], scens, vscens);
            continue;
        }
        uint64_t unseen[2];
        scen_unseen(m, &m->scens[s], unseen);
        while (rc == 0 && i < np && pairs[i].scen == (int)s) {
            size_t j = i;
            while (j < np && pairs[j].scen == pairs[i].scen && pairs[j].family == pairs[i].family)
                j++;
            /* the family goes into file names only when the scenario has both */
            bool both = (i > 0 && pairs[i - 1].scen == pairs[i].scen) ||
                        (j < np && pairs[j].scen == pairs[i].scen);
            struct group_out g;
            rc = group_build(cx, pairs + i, j - i, both, unseen, &g);
            if (rc != 0)
                break;
            unseen[0] = unseen[1] = 0; /* said once, in the scenario's first group */
            size_t fi;
            json_t *f;
            json_array_foreach(json_object_get(g.view, "failures"), fi, f)
            {
                json_array_append(allfails, f);
                total_fail++;
            }
            total_flagged += json_array_size(json_object_get(g.view, "flagged_trials"));
            json_array_append_new(scens, g.sum);
            if (g.view != NULL)
                json_array_append_new(vscens, g.view);
            i = j;
        }
    }
    json_object_set_new(sum, "scenarios", scens);
    json_object_set_new(view, "scenarios", vscens);
    json_object_set_new(view, "failures", allfails);
    json_object_set_new(view, "failures_total", json_integer((json_int_t)total_fail));
    json_object_set_new(view, "flagged_total",
                        total_flagged > 0 ? report_jprintf("%zu trial%s flagged", total_flagged,
                                                           total_flagged == 1 ? "" : "s")
                                          : json_string(""));
    return rc;
}

/* Every journal line the reports did not take, in both trees. */
static void
aggregate_problems(const struct rmodel *m, json_t *sum, json_t *view)
{
    json_t *list = json_array(), *vlist = json_array();
    size_t more = 0;
    for (size_t i = 0; i < m->nproblems; i++) {
        const struct rproblem *p = &m->problems[i];
        const char *dir = m->runs[p->run].dir, *kind = report_problem_kind_name(p->kind);
        /* line 0: a problem of run.json itself */
        const char *file = p->line > 0 ? JOURNAL_RESULTS_FILE : JOURNAL_RUN_FILE;
        json_array_append_new(list,
                              json_pack("{s:s,s:s,s:I,s:s,s:s}", "dir", dir, "file", file, "line",
                                        (json_int_t)p->line, "kind", kind, "why", p->why));
        json_t *v = json_pack("{s:s,s:s,s:I,s:s,s:s}", "dir", dir, "file", file, "line",
                              (json_int_t)p->line, "kind", kind, "why", p->why);
        if (p->line == 0)
            json_object_set_new(v, "more", report_jprintf("%s (%s)", p->why, kind));
        json_array_append_new(vlist, v);
    }
    for (size_t r = 0; r < m->nruns; r++) {
        more += m->runs[r].problems_more;
        if (m->runs[r].problems_more > 0)
            json_array_append_new(
                vlist,
                json_pack("{s:s,s:s,s:i,s:s,s:s,s:o}", "dir", m->runs[r].dir, "file",
                          JOURNAL_RESULTS_FILE, "line", 0, "kind", "", "why", "", "more",
                          report_jprintf("%zu more lines not taken (not listed; every one was "
                                         "said on standard error)",
                                         m->runs[r].problems_more)));
    }
    json_object_set_new(sum, "journal",
                        json_pack("{s:I,s:I,s:I,s:o,s:I}", "torn_lines", (json_int_t)m->torn_lines,
                                  "skipped_lines", (json_int_t)m->skipped_lines, "refused_lines",
                                  (json_int_t)m->refused_lines, "problems", list, "unlisted",
                                  (json_int_t)more));
    json_object_set_new(view, "problems", vlist);
}

static int
aggregate(const struct rmodel *m, bool cells_only, bool keep_hists, json_t **summary_out,
          json_t **view_out, struct err *e)
{
    struct ctx cx = {
        .m = m, .scratch = hist_new(), .cells_only = cells_only, .keep_hists = keep_hists};
    cx.runs_seen = calloc(bitset_words(m->nruns), sizeof *cx.runs_seen);
    if (cx.scratch == NULL || cx.runs_seen == NULL) {
        hist_free(cx.scratch);
        free(cx.runs_seen);
        return err_set(e, NS_ENOMEM, "out of memory");
    }
    sort_m = m;
    struct rpair *pairs = (struct rpair *)(uintptr_t)m->pairs; /* order only: contents kept */
    if (m->npairs > 1)
        qsort(pairs, m->npairs, sizeof *pairs, cmp_pair);
    json_t *sum = json_object(), *view = json_object();
    aggregate_head(m, sum, view);
    aggregate_places(m, sum, view);
    int rc = aggregate_groups(&cx, pairs, sum, view);
    if (rc == 0) /* before anything reads a key: matrices, charts, anchors */
        rc = report_file_keys_unique(sum, view);
    if (rc == 0 && !cells_only) /* they read the view's matrices and the cells' percentiles */
        rc = report_matrix_stats(sum, view);
    if (rc == 0 && !cells_only)
        rc = report_sweeps(sum, view);
    aggregate_problems(m, sum, view);
    hist_free(cx.scratch);
    free(cx.runs_seen);
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
    return aggregate(m, false, false, summary_out, view_out, e);
}

int
report_aggregate_cells(const struct rmodel *m, json_t **summary_out, struct err *e)
{
    json_t *view = NULL;
    int rc = aggregate(m, true, false, summary_out, &view, e);
    json_decref(view);
    return rc;
}

int
report_aggregate_hists(const struct rmodel *m, json_t **summary_out, struct err *e)
{
    json_t *view = NULL;
    int rc = aggregate(m, false, true, summary_out, &view, e);
    json_decref(view);
    return rc;
}
