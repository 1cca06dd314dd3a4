/* trend.c - `netsurvey trend`: the runs in time order (trendload.c), their scenarios matched
 * by name, test and family and their zone cells by source and destination zone, as compare
 * matches them (cells.h); per cell, whether a later run's mean left the first run's 95 % CI by
 * more than the threshold, and where. Runs of different plans are compared on what they share;
 * a scenario found in one run only is listed, never matched to another by a guess. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/errors.h"
#include "common/fsdir.h"
#include "history/cells.h"
#include "history/dbint.h"
#include "history/trendint.h"
#include "journal/journal.h"
#include "report/output.h"

#define TREND_FLAG_LINES 20 /* lines of r->flags before "... and N more" */

/* --- scenarios and cells across the runs ---------------------------------------------------- */

static struct tscen *
scen_find(struct trend *t, const json_t *s)
{
    for (size_t i = 0; i < t->nscens; i++)
        if (history_cell_same_scenario(t->scens[i].def, s))
            return &t->scens[i];
    return NULL;
}

/* Every scenario of every run, in the order first seen (runs in time order, each in its plan's
 * order); each with the runs that have it as its columns. */
static int
scens_collect(struct trend *t)
{
    size_t cap = 0;
    for (size_t r = 0; r < t->nruns; r++)
        cap += json_array_size(json_object_get(t->runs[r].sum, "scenarios"));
    t->scens = calloc(cap ? cap : 1, sizeof *t->scens);
    if (t->scens == NULL)
        return NS_ENOMEM;
    for (size_t r = 0; r < t->nruns; r++) {
        size_t i;
        const json_t *s;
        json_array_foreach(json_object_get(t->runs[r].sum, "scenarios"), i, s)
        {
            struct tscen *ts = scen_find(t, s);
            if (ts == NULL) {
                ts = &t->scens[t->nscens++];
                ts->def = s;
                ts->kind = (enum testspec_kind)testspec_kind_find(js(s, "test"));
                ts->cols = calloc(t->nruns, sizeof *ts->cols);
                ts->sc = calloc(t->nruns, sizeof *ts->sc);
                if (ts->cols == NULL || ts->sc == NULL)
                    return NS_ENOMEM;
            }
            if (ts->ncols > 0 && ts->cols[ts->ncols - 1] == r)
                continue; /* a summary holds a scenario once; never count a run twice */
            ts->cols[ts->ncols] = r;
            ts->sc[ts->ncols++] = s;
        }
    }
    return 0;
}

/* One zone cell of one run, while the cells of a scenario are gathered. */
struct tentry {
    const char *src, *dst;
    size_t col;
    const json_t *cell;
};

static int
cmp_zones(const char *as, const char *ad, const char *bs, const char *bd)
{
    int c = report_natcmp(as, bs);
    if (c == 0)
        c = report_natcmp(ad, bd);
    if (c == 0)
        c = strcmp(as, bs); /* "01" and "1": the same to report_natcmp, not to a match */
    return c != 0 ? c : strcmp(ad, bd);
}

static int
cmp_entry(const void *a, const void *b)
{
    const struct tentry *x = a, *y = b;
    int c = cmp_zones(x->src, x->dst, y->src, y->dst);
    return c != 0 ? c : x->col < y->col ? -1 : x->col > y->col;
}

/* The zone cells of a scenario: every cell any of its runs has, in zone order, each with its
 * value in every column. Sorted rather than searched: a survey of many regions has thousands
 * of cells. */
static int
cells_collect(struct tscen *ts)
{
    size_t cap = 0;
    for (size_t k = 0; k < ts->ncols; k++)
        cap += json_array_size(json_object_get(ts->sc[k], "zone_cells"));
    struct tentry *en = malloc((cap ? cap : 1) * sizeof *en);
    ts->cells = calloc(cap ? cap : 1, sizeof *ts->cells);
    if (en == NULL || ts->cells == NULL) {
        free(en);
        return NS_ENOMEM;
    }
    size_t n = 0;
    for (size_t k = 0; k < ts->ncols; k++) {
        size_t i;
        const json_t *c;
        json_array_foreach(json_object_get(ts->sc[k], "zone_cells"), i, c)
        {
            en[n++] = (struct tentry){js(c, "src_zone"), js(c, "dst_zone"), k, c};
        }
    }
    if (n > 1)
        qsort(en, n, sizeof *en, cmp_entry);
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        struct tcell *tc = ts->ncells > 0 ? &ts->cells[ts->ncells - 1] : NULL;
        /* compare's rule (cells.h) decides; the order only puts a cell's runs side by side */
        if (tc == NULL || !history_cell_same_cell(en[i - 1].cell, en[i].cell)) {
            tc = &ts->cells[ts->ncells++];
            tc->src = en[i].src;
            tc->dst = en[i].dst;
            tc->c = calloc(ts->ncols, sizeof *tc->c);
            tc->beyond = malloc(ts->ncols * sizeof *tc->beyond);
            if (tc->c == NULL || tc->beyond == NULL)
                rc = NS_ENOMEM;
        }
        if (rc == 0 && tc->c[en[i].col] == NULL) /* a summary holds a cell once */
            tc->c[en[i].col] = en[i].cell;
    }
    free(en);
    return rc;
}

/* The first run whose parameters differ from the first run's, and how (each difference). */
static void
params_check(struct tscen *ts)
{
    for (size_t k = 1; k < ts->ncols; k++) {
        struct rbuf b;
        report_buf_init(&b);
        if (history_params_diff(ts->sc[0], ts->sc[k], &b) > 0) {
            snprintf(ts->param_diff, sizeof ts->param_diff, "%s", b.oom ? "?" : b.data);
            ts->first_param_diff = k;
        }
        report_buf_release(&b);
        if (ts->first_param_diff > 0)
            return;
    }
}

/* --- the flag ------------------------------------------------------------------------------- */

/* How far a mean lies beyond the baseline's CI in the bad direction, in % of the baseline's
 * mean (negative: inside, or beyond on the good side). */
static double
beyond_pct(const json_t *base, double mean, bool lower_is_better)
{
    double m0 = jd(base, "mean");
    double out = lower_is_better ? mean - jd(base, "ci95_high") : jd(base, "ci95_low") - mean;
    if (m0 == 0.0)
        return out > 0 ? INFINITY : out < 0 ? -INFINITY : 0.0;
    return out / fabs(m0) * 100.0;
}

static void
cell_decide(struct tcell *tc, size_t ncols, bool lower_is_better, double pct)
{
    tc->base = tc->first = tc->flag = tc->last = tc->newest = -1;
    for (size_t k = 0; k < ncols; k++) {
        tc->beyond[k] = NAN;
        json_int_t n = tc->c[k] ? ji(tc->c[k], "n") : 0;
        if (tc->c[k] != NULL)
            tc->newest = (int)k;
        if (n >= 1 && tc->first < 0)
            tc->first = (int)k;
        if (n >= 1)
            tc->last = (int)k;
        if (n >= 2 && tc->base < 0)
            tc->base = (int)k;
    }
    /* the newest measurement of the cell is none: its trials failed or did not run */
    tc->newest_failed = tc->newest >= 0 && ji(tc->c[tc->newest], "n") == 0;
    if (tc->base < 0)
        return;
    const json_t *b = tc->c[tc->base];
    for (size_t k = (size_t)tc->base + 1; k < ncols; k++) {
        if (tc->c[k] == NULL || ji(tc->c[k], "n") < 1)
            continue;
        double x = beyond_pct(b, jd(tc->c[k], "mean"), lower_is_better);
        tc->beyond[k] = x;
        bool beyond = x > pct;
        tc->nbeyond += beyond;
        if (beyond && tc->flag < 0) {
            tc->flag = (int)k;
            tc->flag_excess = x;
        }
        if ((int)k == tc->last)
            tc->last_beyond = beyond;
    }
}

/* --- file keys ------------------------------------------------------------------------------ */

/* Whether a trended scenario before i has that key. */
static bool
key_taken(const struct trend *t, size_t i, const char *key)
{
    for (size_t j = 0; j < i; j++)
        if (tscen_trended(&t->scens[j]) && strcmp(t->scens[j].key, key) == 0)
            return true;
    return false;
}

/* trend-<key>.csv: the scenario's name as the report's file names have it, with its test and
 * family when another trended scenario would take the same name, and a number when even
 * that collides (two names the same once sanitized). */
static void
keys_assign(struct trend *t)
{
    for (size_t i = 0; i < t->nscens; i++) {
        struct tscen *s = &t->scens[i];
        const json_t *sw = json_object_get(s->def, "sweep");
        char name[201];
        snprintf(name, sizeof name, "%s", js(s->def, "name"));
        report_scenario_key(s->key, sizeof s->key, name, sw != NULL ? js(sw, "text") : NULL, NULL);
    }
    for (size_t i = 0; i < t->nscens; i++) {
        struct tscen *s = &t->scens[i];
        if (!tscen_trended(s))
            continue;
        for (size_t j = 0; j < t->nscens; j++) {
            const struct tscen *o = &t->scens[j];
            if (j != i && tscen_trended(o) && !strcmp(o->key, s->key)) {
                char k[300], name[201];
                const json_t *sw = json_object_get(s->def, "sweep");
                snprintf(name, sizeof name, "%s", js(s->def, "name"));
                report_scenario_key(k, sizeof k, name, sw != NULL ? js(sw, "text") : NULL, NULL);
                size_t n = strlen(k);
                report_file_key(k + n, sizeof k - n, "-%s-%s", js(s->def, "test"),
                                js(s->def, "family"));
                memcpy(s->key, k, sizeof k);
                break;
            }
        }
    }
    for (size_t i = 0; i < t->nscens; i++) {
        struct tscen *s = &t->scens[i];
        if (!tscen_trended(s))
            continue;
        char base[300];
        memcpy(base, s->key, sizeof base);
        for (unsigned n = 2; key_taken(t, i, s->key); n++)
            snprintf(s->key, sizeof s->key, "%.280s-%u", base, n);
    }
}

/* --- the whole ------------------------------------------------------------------------------ */

/* A run is incomplete when trials it planned have no record (stopped by Ctrl-C, killed, failed)
 * or host pairs of its adaptive trials are undecided, as the reports call it: the planned count
 * is its summary's (the adaptive rule's decisions, the least for undecided pairs; run.json's
 * "planned" is only min x pairs there). One whose `netsurvey run` still holds it is in
 * progress. Neither is left out: the outputs mark them. */
static void
runs_state(struct trend *t)
{
    for (size_t r = 0; r < t->nruns; r++) {
        struct trun *x = &t->runs[r];
        size_t i;
        const json_t *s;
        json_array_foreach(json_object_get(x->sum, "scenarios"), i, s)
        {
            const json_t *tr = json_object_get(s, "trials");
            x->recorded += (uint64_t)ji(tr, "ok") + (uint64_t)ji(tr, "failed");
        }
        const json_t *c = json_object_get(x->sum, "completeness");
        x->undecided = (uint64_t)ji(c, "undecided");
        if (x->adaptive && c != NULL)
            x->planned = (uint64_t)ji(c, "planned");
        x->incomplete = !x->in_progress && (x->planned > x->recorded || x->undecided > 0);
    }
}

static int
trend_build(struct trend *t)
{
    runs_state(t);
    int rc = scens_collect(t);
    for (size_t i = 0; rc == 0 && i < t->nscens; i++) {
        struct tscen *s = &t->scens[i];
        if (!tscen_trended(s))
            continue;
        t->ntrended++;
        rc = cells_collect(s);
        if (rc != 0)
            break;
        params_check(s);
        for (size_t j = 0; j < s->ncells; j++) {
            cell_decide(&s->cells[j], s->ncols, testspec_kind_lower_is_better(s->kind),
                        t->o->max_regression_pct);
            s->nflagged += s->cells[j].flag >= 0;
            s->nnewest_failed += s->cells[j].newest_failed;
        }
        t->ncells += s->ncells;
        t->nflagged += s->nflagged;
        t->nnewest_failed += s->nnewest_failed;
    }
    if (rc == 0)
        keys_assign(t);
    return rc;
}

static void
trend_release(struct trend *t)
{
    for (size_t i = 0; i < t->nscens; i++) {
        for (size_t j = 0; j < t->scens[i].ncells; j++) {
            free(t->scens[i].cells[j].c);
            free(t->scens[i].cells[j].beyond);
        }
        free(t->scens[i].cells);
        free(t->scens[i].cols);
        free(t->scens[i].sc);
    }
    free(t->scens);
}

/* The cells whose newest run has no ok trial, one a line, for the command line. */
static char *
newest_failed_text(const struct trend *t)
{
    struct rbuf b;
    report_buf_init(&b);
    size_t lines = 0;
    for (size_t i = 0; i < t->nscens; i++) {
        const struct tscen *s = &t->scens[i];
        for (size_t j = 0; j < s->ncells; j++) {
            const struct tcell *c = &s->cells[j];
            if (!c->newest_failed || lines++ >= TREND_FLAG_LINES)
                continue;
            char why[96];
            history_trend_newest_why(c, why, sizeof why);
            report_buf_printf(&b, "%s (%s, %s) %s → %s: no ok trial in run %s (%s)\n",
                              js(s->def, "name"), js(s->def, "test"), js(s->def, "family"), c->src,
                              c->dst, t->runs[s->cols[c->newest]].run_id, why);
        }
    }
    if (lines > TREND_FLAG_LINES)
        report_buf_printf(&b, "… and %zu more (trend.md lists every cell)\n",
                          lines - TREND_FLAG_LINES);
    if (b.oom || b.len == 0) {
        report_buf_release(&b);
        return NULL;
    }
    return b.data;
}

/* The flagged cells, one a line, for the command line. */
static char *
flags_text(const struct trend *t)
{
    struct rbuf b;
    report_buf_init(&b);
    size_t lines = 0;
    for (size_t i = 0; i < t->nscens; i++) {
        const struct tscen *s = &t->scens[i];
        for (size_t j = 0; j < s->ncells; j++) {
            const struct tcell *c = &s->cells[j];
            if (c->flag < 0 || lines++ >= TREND_FLAG_LINES)
                continue;
            const struct trun *at = &t->runs[s->cols[c->flag]];
            const struct trun *bs = &t->runs[s->cols[c->base]];
            const char *after = "";
            if (c->last > c->flag)
                after = c->last_beyond ? "; still beyond in the latest run"
                                       : "; back within in the latest run";
            char label[512];
            report_buf_printf(
                &b, "%s (%s, %s) %s → %s: %.1f %% beyond the 95 %% CI of run %s, at run %s%s\n",
                history_scenario_label(s->def, label, sizeof label), js(s->def, "test"),
                js(s->def, "family"), c->src, c->dst, c->flag_excess, bs->run_id, at->run_id,
                after);
        }
    }
    if (lines > TREND_FLAG_LINES)
        report_buf_printf(&b, "… and %zu more (trend.md lists every cell)\n",
                          lines - TREND_FLAG_LINES);
    if (b.oom || b.len == 0) {
        report_buf_release(&b);
        return NULL;
    }
    return b.data;
}

static void
warnings_tell(const struct trend *t, FILE *warn)
{
    if (warn == NULL)
        return;
    for (size_t r = 0; r < t->nruns; r++)
        if (t->runs[r].warnings != NULL)
            fputs(t->runs[r].warnings, warn);
}

static int
fail(struct history_trend_result *r, enum history_trend_failure f, int rc)
{
    r->failure = rc == NS_ENOMEM ? HISTORY_TREND_OUTPUT : f;
    return rc;
}

/* An output folder that is a run's directory is one of the trend's runs' (the default: the
 * newest's), never another run's: with directories, before anything is read (t NULL); with a
 * database, once its runs are read (t), a directory that holds one of them (report --db writes
 * them back as such). */
static int
out_check(const struct history_trend_opts *o, const struct trend *t, struct err *e)
{
    if (o->out == NULL || !journal_is_run_dir(o->out))
        return 0;
    bool ours = false;
    if (o->db == NULL) {
        for (int i = 0; !ours && i < o->ndirs; i++)
            ours = fsdir_same(o->out, o->dirs[i]);
    } else if (t != NULL) {
        char *id = history_db_dir_run_id(o->out);
        for (size_t i = 0; id != NULL && !ours && i < t->nruns; i++)
            ours = strcmp(id, t->runs[i].run_id) == 0;
        free(id);
    } else {
        return 0;
    }
    if (ours)
        return 0;
    return err_set(e, NS_EINVAL,
                   "-o %s is the directory of a run not in this trend: give the trend a folder "
                   "of its own (nothing written)",
                   o->out);
}

/* The runs, read and in time order: from their directories, or from a history database. */
static int
trend_runs(const struct history_trend_opts *o, struct trend *t, struct history_trend_result *r,
           struct err *e)
{
    int rc;
    if (o->db != NULL) {
        bool db_failed;
        rc = history_trend_db_runs(o->db, &t->runs, &t->nruns, &db_failed, e);
        if (rc != 0)
            return fail(r, db_failed ? HISTORY_TREND_DATABASE : HISTORY_TREND_USAGE, rc);
        if (t->nruns < 2) {
            history_trend_runs_free(t->runs, t->nruns);
            t->runs = NULL;
            return fail(r, HISTORY_TREND_USAGE,
                        err_set(e, NS_EINVAL,
                                "a trend needs two runs or more: the database has %zu that the "
                                "selectors pick",
                                t->nruns));
        }
        return 0;
    }
    rc = history_trend_runs_open(o->dirs, (size_t)o->ndirs, &t->runs, e);
    if (rc != 0)
        return fail(r, rc == NS_EINVAL ? HISTORY_TREND_USAGE : HISTORY_TREND_JOURNAL, rc);
    t->nruns = (size_t)o->ndirs;
    rc = history_trend_runs_load(t->runs, t->nruns, o->jobs, e);
    warnings_tell(t, o->warn);
    if (rc != 0) {
        fail(r, HISTORY_TREND_JOURNAL, rc);
        history_trend_runs_free(t->runs, t->nruns);
        t->runs = NULL;
    }
    return rc;
}

int
history_trend(const struct history_trend_opts *o, struct history_trend_result *r, struct err *e)
{
    memset(r, 0, sizeof *r);
    if (o->db == NULL && o->ndirs < 2)
        return fail(r, HISTORY_TREND_USAGE,
                    err_set(e, NS_EINVAL, "a trend needs two run directories or more"));
    int rc = out_check(o, NULL, e);
    if (rc != 0)
        return fail(r, HISTORY_TREND_USAGE, rc);
    struct trend t = {.o = o};
    if ((rc = trend_runs(o, &t, r, e)) != 0)
        return rc;
    if (o->db != NULL && (rc = out_check(o, &t, e)) != 0) {
        fail(r, HISTORY_TREND_USAGE, rc);
    } else if ((rc = trend_build(&t)) != 0) {
        fail(r, HISTORY_TREND_OUTPUT, err_set(e, rc, "out of memory building the trend"));
    } else {
        const char *out = o->out != NULL ? o->out : t.runs[t.nruns - 1].dir;
        r->out = strdup(out);
        rc = r->out == NULL ? err_set(e, NS_ENOMEM, "out of memory")
                            : history_trend_write(&t, out, e);
        if (rc != 0)
            fail(r, HISTORY_TREND_OUTPUT, rc);
    }
    if (rc == 0) {
        r->runs = t.nruns;
        r->scenarios = t.ntrended;
        r->cells = t.ncells;
        r->flagged = t.nflagged;
        r->not_trended = t.nscens - t.ntrended;
        for (size_t i = 0; i < t.nruns; i++)
            r->incomplete += t.runs[i].incomplete || t.runs[i].in_progress;
        r->flags = flags_text(&t);
        r->newest_failed = t.nnewest_failed;
        r->newest_failed_cells = newest_failed_text(&t);
    }
    trend_release(&t);
    history_trend_runs_free(t.runs, t.nruns);
    return rc;
}

void
history_trend_result_release(struct history_trend_result *r)
{
    free(r->out);
    free(r->flags);
    free(r->newest_failed_cells);
    r->out = r->flags = r->newest_failed_cells = NULL;
}
