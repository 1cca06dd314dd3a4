/* publish.c - `netsurvey publish DIR... --db URL`: each run directory into the history
 * database, whole or not at all, replacing what the database held of the same run.
 *
 * A run is read as `netsurvey report` reads it: its summary (report_summary_hists_read: the
 * summary.json the report would write, each cell with the merged histogram of its round trips)
 * gives the runs, scenarios, cells and cell_buckets rows; run.json gives hosts; and the journal
 * is read line by line with the journal's own reader (jtrials.h) for the trials and
 * journal_lines rows: every line of results.jsonl goes into one of the two, byte for byte, so
 * that `netsurvey report --db` can write the journal back as it was. Of the records of one trial
 * (a resumed run records a trial again) trials holds the one the reports keep
 * (journal_supersedes); the others are journal_lines "superseded".
 *
 * One transaction per run: the old rows deleted, the new ones loaded (COPY on PostgreSQL), then
 * committed; any failure rolls it all back. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/errors.h"
#include "common/hist.h"
#include "common/histjson.h"
#include "history/cells.h"
#include "history/dbint.h"
#include "history/history.h"
#include "history/jtrials.h"
#include "history/trendint.h"
#include "journal/journal.h"
#include "report/output.h"
#include "report/report.h"

/* --- what the summary says of each host pair ---------------------------------------------- */

/* The cell of a host pair of a scenario (its zone labels), and its scenario's unit. */
struct pairzone {
    char *key; /* scenario, family, sweep (history_sweep_key), src, dst: length-prefixed */
    char *src_zone, *dst_zone, *unit;
};

static int
cmp_pz(const void *a, const void *b)
{
    return strcmp(((const struct pairzone *)a)->key, ((const struct pairzone *)b)->key);
}

static char *
pz_key(const char *scen, const char *fam, const char *sweep, const char *src, const char *dst)
{
    const char *parts[] = {scen, fam, sweep, src, dst};
    struct rbuf b;
    report_buf_init(&b);
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
        report_buf_printf(&b, "%zu:%s", strlen(parts[i] ? parts[i] : ""), parts[i] ? parts[i] : "");
    char *k = b.oom ? NULL : strdup(b.data); /* an rbuf holds far more than a key needs */
    report_buf_release(&b);
    return k;
}

struct pzmap {
    struct pairzone *v;
    size_t n;
};

static void
pzmap_free(struct pzmap *m)
{
    for (size_t i = 0; i < m->n; i++) {
        free(m->v[i].key);
        free(m->v[i].src_zone);
        free(m->v[i].dst_zone);
        free(m->v[i].unit);
    }
    free(m->v);
    memset(m, 0, sizeof *m);
}

/* Every host pair of every scenario of sum, with its zone cell: malloc's memory, which outlives
 * the report's arena the summary lives in. A scenario without pairs (none recorded) gets one
 * entry with empty hosts, for its unit. */
static int
pzmap_build(struct pzmap *m, const json_t *sum)
{
    size_t cap = 0, i, j;
    const json_t *s, *p;
    json_array_foreach(json_object_get(sum, "scenarios"), i, s) cap +=
        json_array_size(json_object_get(s, "pairs")) + 1;
    m->v = calloc(cap ? cap : 1, sizeof *m->v);
    if (m->v == NULL)
        return NS_ENOMEM;
    json_array_foreach(json_object_get(sum, "scenarios"), i, s)
    {
        const char *sn = js(s, "name"), *fam = js(s, "family"), *unit = js(s, "unit");
        char sw[HISTORY_SWEEP_KEY_MAX];
        history_sweep_key(s, sw, sizeof sw);
        struct pairzone *z = &m->v[m->n++];
        z->key = pz_key(sn, fam, sw, "", "");
        z->unit = strdup(unit);
        if (z->key == NULL || z->unit == NULL)
            return NS_ENOMEM;
        json_array_foreach(json_object_get(s, "pairs"), j, p)
        {
            z = &m->v[m->n++];
            z->key = pz_key(sn, fam, sw, js(p, "src"), js(p, "dst"));
            z->src_zone = strdup(js(p, "src_zone"));
            z->dst_zone = strdup(js(p, "dst_zone"));
            z->unit = strdup(unit);
            if (!z->key || !z->src_zone || !z->dst_zone || !z->unit)
                return NS_ENOMEM;
        }
    }
    qsort(m->v, m->n, sizeof *m->v, cmp_pz);
    return 0;
}

static const struct pairzone *
pzmap_find(const struct pzmap *m, const char *scen, const char *fam, const char *sweep,
           const char *src, const char *dst)
{
    char *k = pz_key(scen, fam, sweep, src, dst);
    if (k == NULL)
        return NULL;
    struct pairzone want = {.key = k};
    const struct pairzone *z = m->n > 0 ? bsearch(&want, m->v, m->n, sizeof *m->v, cmp_pz) : NULL;
    free(k);
    return z;
}

/* --- rows from the summary ----------------------------------------------------------------------
 */

struct pub {
    struct db *db;
    const char *dir;
    const struct journal_run *run;
    const char *run_text;
    size_t run_len;
    int64_t t_s;
    int32_t t_ns;
    uint64_t nlines;
    bool torn;
    struct pzmap pz;
    uint64_t trials, ok;
    bool journal_error; /* the failure is the run directory's, not the database's */
};

#define NCOLS_MAX 64

/* One load of rows: column names, then rows of values. */
struct load {
    const char *cols[NCOLS_MAX];
    size_t n;
};

static void
load_cols(struct load *l, const char *const *names, size_t n)
{
    for (size_t i = 0; i < n && l->n < NCOLS_MAX; i++)
        l->cols[l->n++] = names[i];
}

static void
load_table(struct load *l, const struct dbj_table *t)
{
    for (size_t i = 0; i < t->n && l->n < NCOLS_MAX; i++)
        l->cols[l->n++] = t->cols[i].col;
}

/* A copy of o without the members named in drop (NULL-terminated). */
static json_t *
without(const json_t *o, const char *const *drop)
{
    json_t *c = json_copy((json_t *)(uintptr_t)o);
    for (size_t i = 0; c != NULL && drop[i] != NULL; i++)
        json_object_del(c, drop[i]);
    return c;
}

/* The summary's journal object, its problems without the directory (the run's label is put
 * back when read). */
static char *
journal_text(const json_t *j)
{
    if (j == NULL)
        return NULL;
    json_t *c = json_deep_copy(j);
    size_t i;
    json_t *p;
    json_array_foreach(json_object_get(c, "problems"), i, p) json_object_del(p, "dir");
    char *t = c != NULL ? history_dbj_dump(c) : NULL;
    json_decref(c);
    return t;
}

static int
run_row(struct pub *p, const json_t *sum, const char *now, struct err *e)
{
    static const char *const head[] = {
        "title",        "completeness", "journal",           "started_at",     "started_s",
        "started_ns",   "ended",        "netsurvey_version", "nsperf_version", "nsperf_sha256",
        "rj_planned",   "adaptive",     "run_json",          "journal_lines",  "journal_torn",
        "published_at", "published_by", "source_dir",        "extra"};
    const struct journal_run *run = p->run;
    uint64_t planned = 0;
    bool adaptive = false;
    for (size_t i = 0; i < run->nscenarios; i++) {
        planned += run->scenarios[i].planned;
        adaptive |= trials_adaptive(&run->scenarios[i].policy);
    }
    static const char *const drop[] = {"dir", NULL};
    json_t *ro = without(json_array_get(json_object_get(sum, "runs"), 0), drop);
    struct load l = {0};
    load_cols(&l, head, sizeof head / sizeof head[0]);
    load_table(&l, &history_dbj_run);
    struct db_val v[NCOLS_MAX];
    char *texts[NCOLS_MAX], *extra = NULL;
    char *compl = history_dbj_dump(json_object_get(sum, "completeness"));
    char *jt = journal_text(json_object_get(sum, "journal"));
    int rc = ro == NULL || compl == NULL ? NS_ENOMEM : 0;
    size_t k = sizeof head / sizeof head[0];
    if (rc == 0)
        rc = history_dbj_split(&history_dbj_run, ro, v + k, texts, &extra);
    if (rc == 0) {
        v[0] = history_db_text(js(sum, "title"));
        v[1] = history_db_text(compl );
        v[2] = history_db_text(jt);
        v[3] = history_db_text(run->started);
        v[4] = db_int(p->t_s);
        v[5] = db_int(p->t_ns);
        v[6] = history_db_text(run->ended);
        v[7] = history_db_text(run->netsurvey_version);
        v[8] = history_db_text(run->nsperf_version);
        v[9] = history_db_text(run->nsperf_sha256);
        v[10] = db_int((int64_t)planned);
        v[11] = db_bool(adaptive);
        v[12] = history_db_textn(p->run_text, p->run_len);
        v[13] = db_int((int64_t)p->nlines);
        v[14] = db_bool(p->torn);
        v[15] = history_db_text(now);
        v[16] = history_db_text(NS_VERSION);
        v[17] = history_db_text(p->dir);
        v[18] = history_db_text(extra);
        rc = history_db_load_begin(p->db, "runs", l.cols, l.n, e);
        if (rc == 0) {
            rc = history_db_load_row(p->db, v, e);
            int rc2 = history_db_load_end(p->db, rc == 0, e);
            rc = rc != 0 ? rc : rc2;
        }
        history_dbj_texts_free(texts, history_dbj_run.n, extra);
    } else {
        rc = err_set(e, NS_ENOMEM, "out of memory");
    }
    free(compl );
    free(jt);
    json_decref(ro);
    return rc;
}

static int
scenario_rows(struct pub *p, const json_t *sum, struct err *e)
{
    static const char *const head[] = {"run_id", "ord", "extra", "sweep"};
    const size_t nh = sizeof head / sizeof head[0];
    static const char *const drop[] = {"zone_cells", "region_cells", "pairs", "failures", NULL};
    struct load l = {0};
    load_cols(&l, head, nh);
    load_table(&l, &history_dbj_scenario);
    int rc = history_db_load_begin(p->db, "scenarios", l.cols, l.n, e);
    size_t i;
    const json_t *s;
    json_array_foreach(json_object_get(sum, "scenarios"), i, s)
    {
        if (rc != 0)
            break;
        struct db_val v[NCOLS_MAX];
        char *texts[NCOLS_MAX], *extra = NULL;
        json_t *c = without(s, drop);
        if (c == NULL || history_dbj_split(&history_dbj_scenario, c, v + nh, texts, &extra) != 0) {
            json_decref(c);
            rc = err_set(e, NS_ENOMEM, "out of memory");
            break;
        }
        v[0] = history_db_text(p->run->run_id);
        v[1] = db_int((int64_t)i);
        v[2] = history_db_text(extra);
        char sw[HISTORY_SWEEP_KEY_MAX];
        v[3] = history_db_text(history_sweep_key(s, sw, sizeof sw));
        rc = history_db_load_row(p->db, v, e);
        history_dbj_texts_free(texts, history_dbj_scenario.n, extra);
        json_decref(c);
    }
    int rc2 = history_db_load_end(p->db, rc == 0, e);
    return rc != 0 ? rc : rc2;
}

/* The rows of a cell's merged histogram ("hist" of its rtt_us, as report_summary_hists_read
 * keeps it). */
struct bucket_ctx {
    struct db *db;
    struct db_val *v; /* the key columns, then low, high, count */
    int rc;
    struct err *e;
};

static int
bucket_row(uint64_t low, uint64_t count, void *arg)
{
    struct bucket_ctx *b = arg;
    if (count == 0)
        return 0;
    size_t idx = hist_index(low);
    uint64_t high = hist_bucket_high(idx);
    b->v[5] = db_int((int64_t)low);
    b->v[6] = db_int(high > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)high);
    b->v[7] = db_int((int64_t)count);
    b->rc = history_db_load_row(b->db, b->v, b->e);
    return b->rc;
}

static int
cell_buckets_rows(struct pub *p, const json_t *sum, struct err *e)
{
    static const char *const cols[] = {"run_id", "scenario", "family", "level",    "src_zone",
                                       "low_ns", "high_ns",  "count",  "dst_zone", "sweep"};
    int rc = history_db_load_begin(p->db, "cell_buckets", cols, 10, e);
    static const char *const levels[] = {"zone", "region"};
    size_t i, j;
    const json_t *s, *c;
    json_array_foreach(json_object_get(sum, "scenarios"), i, s)
    {
        char sw[HISTORY_SWEEP_KEY_MAX];
        history_sweep_key(s, sw, sizeof sw);
        for (size_t lv = 0; rc == 0 && lv < 2; lv++) {
            char sk[16], dk[16], key[24];
            snprintf(sk, sizeof sk, "src_%s", levels[lv]);
            snprintf(dk, sizeof dk, "dst_%s", levels[lv]);
            snprintf(key, sizeof key, "%s_cells", levels[lv]);
            json_array_foreach(json_object_get(s, key), j, c)
            {
                const json_t *rtt = json_object_get(c, HISTJSON_RTT);
                if (rc != 0 || json_object_get(rtt, HISTJSON_HIST) == NULL)
                    continue;
                struct db_val v[10] = {history_db_text(p->run->run_id),
                                       history_db_text(js(s, "name")),
                                       history_db_text(js(s, "family")),
                                       history_db_text(levels[lv]),
                                       history_db_text(js(c, sk)),
                                       db_null(),
                                       db_null(),
                                       db_null(),
                                       history_db_text(js(c, dk)),
                                       history_db_text(sw)};
                struct bucket_ctx b = {.db = p->db, .v = v, .e = e};
                size_t skipped = 0;
                struct err he = {0};
                int hr = hist_rtt_json_buckets(rtt, bucket_row, &b, NULL, &skipped, NULL, &he);
                rc = b.rc != 0 ? b.rc : hr != 0 ? err_set(e, hr, "%s", he.msg) : 0;
            }
        }
    }
    int rc2 = history_db_load_end(p->db, rc == 0, e);
    return rc != 0 ? rc : rc2;
}

static int
cell_rows(struct pub *p, const json_t *sum, struct err *e)
{
    static const char *const head[] = {"run_id",     "scenario", "family",   "level",
                                       "ord",        "src_zone", "dst_zone", "rtt_min_ns",
                                       "rtt_max_ns", "extra",    "sweep"};
    const size_t nh = sizeof head / sizeof head[0];
    struct load l = {0};
    load_cols(&l, head, nh);
    load_table(&l, &history_dbj_cell);
    int rc = history_db_load_begin(p->db, "cells", l.cols, l.n, e);
    static const char *const levels[] = {"zone", "region"};
    size_t i, j;
    const json_t *s, *c;
    json_array_foreach(json_object_get(sum, "scenarios"), i, s)
    {
        char sw[HISTORY_SWEEP_KEY_MAX];
        history_sweep_key(s, sw, sizeof sw);
        for (size_t lv = 0; rc == 0 && lv < 2; lv++) {
            char sk[16], dk[16], key[24];
            snprintf(sk, sizeof sk, "src_%s", levels[lv]);
            snprintf(dk, sizeof dk, "dst_%s", levels[lv]);
            snprintf(key, sizeof key, "%s_cells", levels[lv]);
            json_array_foreach(json_object_get(s, key), j, c)
            {
                if (rc != 0)
                    break;
                const char *const drop[] = {sk, dk, NULL};
                json_t *cc = without(c, drop);
                json_t *rtt = json_object_get(cc, HISTJSON_RTT);
                struct db_val v[NCOLS_MAX];
                v[7] = v[8] = db_null();
                if (json_is_object(rtt)) { /* the histogram goes to cell_buckets */
                    json_t *r2 = json_copy(rtt);
                    json_object_del(r2, HISTJSON_HIST);
                    json_object_set_new(cc, HISTJSON_RTT, r2);
                    const json_t *mn = json_object_get(r2, "min"), *mx = json_object_get(r2, "max");
                    if (json_is_real(mn) && json_is_real(mx)) {
                        v[7] = db_int(llround(json_real_value(mn) * 1e3));
                        v[8] = db_int(llround(json_real_value(mx) * 1e3));
                    }
                }
                char *texts[NCOLS_MAX], *extra = NULL;
                if (cc == NULL ||
                    history_dbj_split(&history_dbj_cell, cc, v + nh, texts, &extra) != 0) {
                    json_decref(cc);
                    rc = err_set(e, NS_ENOMEM, "out of memory");
                    break;
                }
                v[0] = history_db_text(p->run->run_id);
                v[1] = history_db_text(js(s, "name"));
                v[2] = history_db_text(js(s, "family"));
                v[3] = history_db_text(levels[lv]);
                v[4] = db_int((int64_t)j);
                v[5] = history_db_text(js(c, sk));
                v[6] = history_db_text(js(c, dk));
                v[9] = history_db_text(extra);
                v[10] = history_db_text(sw);
                rc = history_db_load_row(p->db, v, e);
                history_dbj_texts_free(texts, history_dbj_cell.n, extra);
                json_decref(cc);
            }
        }
    }
    int rc2 = history_db_load_end(p->db, rc == 0, e);
    return rc != 0 ? rc : rc2;
}

/* The rows the summary gives (runs, scenarios, cells, cell_buckets), and what the trials need
 * of it (pzmap). The summary lives in the report's arena for as long as this takes. */
static int
summary_rows(struct pub *p, FILE *warn, struct err *e)
{
    report_jarena_begin();
    json_t *sum = NULL;
    int rc = report_summary_hists_read(p->dir, warn, &sum, e);
    if (rc != 0) {
        p->journal_error = true;
        if (strncmp(e->msg, p->dir, strlen(p->dir)) != 0)
            err_prefix(e, "%s", p->dir);
    }
    char now[40];
    clock_wall_iso8601(now, sizeof now);
    if (rc == 0)
        rc = run_row(p, sum, now, e);
    if (rc == 0)
        rc = scenario_rows(p, sum, e);
    if (rc == 0)
        rc = cell_rows(p, sum, e);
    if (rc == 0)
        rc = cell_buckets_rows(p, sum, e);
    if (rc == 0 && pzmap_build(&p->pz, sum) != 0)
        rc = err_set(e, NS_ENOMEM, "out of memory");
    json_decref(sum);
    report_jarena_end();
    return rc;
}

/* --- hosts ----------------------------------------------------------------------------------- */

static const char *
env_str(const json_t *env, const char *obj, const char *key)
{
    const json_t *o = obj != NULL ? json_object_get(env, obj) : env;
    return json_string_value(json_object_get(o, key));
}

static int
host_rows(struct pub *p, struct err *e)
{
    static const char *const cols[] = {
        "run_id",        "ord",  "name",    "zone",      "zone_id", "region", "provider",
        "instance_type", "arch", "address", "transport", "error",   "env"};
    int rc = history_db_load_begin(p->db, "hosts", cols, 13, e);
    for (size_t i = 0; rc == 0 && i < p->run->nhosts; i++) {
        const struct journal_run_host *h = &p->run->hosts[i];
        const json_t *env = h->env;
        char *envt = env != NULL && !json_is_null(env) ? history_dbj_dump(env) : NULL;
        const char *zid = h->zone_id != NULL ? h->zone_id : env_str(env, "cloud", "zone_id");
        struct db_val v[13] = {history_db_text(p->run->run_id),
                               db_int((int64_t)i),
                               history_db_text(h->name != NULL ? h->name : ""),
                               history_db_text(h->zone),
                               history_db_text(zid),
                               history_db_text(h->region),
                               history_db_text(env_str(env, "cloud", "provider")),
                               history_db_text(env_str(env, "cloud", "instance_type")),
                               history_db_text(env_str(env, NULL, "machine")),
                               history_db_text(h->data_address),
                               history_db_text(h->transport),
                               history_db_text(h->error),
                               history_db_text(envt)};
        rc = history_db_load_row(p->db, v, e);
        free(envt);
    }
    int rc2 = history_db_load_end(p->db, rc == 0, e);
    return rc != 0 ? rc : rc2;
}

/* --- trials and the other lines -----------------------------------------------------------------
 */

enum { TR_COLS = 25 };
static const char *const trial_cols[TR_COLS] = {
    "run_id",   "line",     "scenario",   "family",     "kind",  "src_host", "dst_host",
    "src_zone", "dst_zone", "src_region", "dst_region", "trial", "status",   "ok",
    "error",    "attempts", "started",    "ended",      "value", "unit",     "rtt_p50",
    "rtt_p99",  "record",   "flags",      "sweep"};

/* A line that is not a trial the reports count, kept until the trials are loaded (they are
 * few: a resumed run's superseded records, a torn last line). */
struct other {
    uint64_t line;
    const char *kind;
    char *why;
    char *text;
    size_t len;
};

struct lines_ctx {
    struct pub *p;
    struct jpct pct;
    struct other *oth;
    size_t n, cap;
};

/* The record's own "flags" (what the host and the cloud did to the trial, issue 28), as JSON
 * text into *out, or NULL when it has none: the line is parsed only when it names one. */
static int
record_flags(const char *text, size_t len, char **out)
{
    static const char key[] = "\"flags\"";
    *out = NULL;
    if (memmem(text, len, key, sizeof key - 1) == NULL)
        return 0;
    json_t *rec = json_loadb(text, len, 0, NULL);
    const json_t *f = json_object_get(rec, "flags");
    int rc = 0;
    if (f != NULL && (*out = history_dbj_dump(f)) == NULL)
        rc = NS_ENOMEM;
    json_decref(rec);
    return rc;
}

static int
trial_row(void *arg, const struct journal_trial *t, const char *scenario, uint64_t line,
          const char *text, size_t len, struct err *e)
{
    struct lines_ctx *x = arg;
    struct pub *p = x->p;
    const char *fam = journal_family_name(t->family);
    const char *sn = scenario;
    char sw[HISTORY_SWEEP_KEY_MAX];
    history_trial_sweep_key(&t->scenario, sw, sizeof sw);
    const struct pairzone *z = pzmap_find(&p->pz, sn, fam, sw, t->src.host, t->dst.host);
    const struct pairzone *u = pzmap_find(&p->pz, sn, fam, sw, "", "");
    double v, p50 = 0, p99 = 0;
    bool ok = journal_trial_value(t, &v);
    int pct = history_jpct_rtt(&x->pct, &t->result, &p50, &p99);
    char *flags = NULL;
    if (pct < 0 || record_flags(text, len, &flags) != 0) {
        free(flags);
        return err_set(e, NS_ENOMEM, "out of memory");
    }
    struct db_val r[TR_COLS] = {
        history_db_text(p->run->run_id),
        db_int((int64_t)line),
        history_db_text(sn),
        history_db_text(fam),
        history_db_text(t->scenario.test != NULL ? t->scenario.test : ""),
        history_db_text(t->src.host),
        history_db_text(t->dst.host),
        history_db_text(z != NULL ? z->src_zone : t->src.zone),
        history_db_text(z != NULL ? z->dst_zone : t->dst.zone),
        history_db_text(t->src.region),
        history_db_text(t->dst.region),
        db_int(t->trial),
        history_db_text(t->status_text),
        db_bool(ok),
        history_db_text(t->error),
        db_int(t->attempts),
        history_db_text(t->started),
        history_db_text(t->ended),
        ok ? db_real(v) : db_null(),
        history_db_text(u != NULL ? u->unit : NULL),
        pct == 1 ? db_real(p50) : db_null(),
        pct == 1 ? db_real(p99) : db_null(),
        history_db_textn(text, len),
        history_db_text(flags),
        history_db_text(sw),
    };
    p->trials++;
    p->ok += ok;
    int rc = history_db_load_row(p->db, r, e);
    free(flags);
    return rc;
}

static int
other_line(void *arg, uint64_t line, const char *kind, const char *why, const char *text,
           size_t len, struct err *e)
{
    struct lines_ctx *x = arg;
    if (x->n == x->cap) {
        size_t cap = x->cap ? x->cap * 2 : 16;
        struct other *g = realloc(x->oth, cap * sizeof *g);
        if (g == NULL)
            return err_set(e, NS_ENOMEM, "out of memory");
        x->oth = g;
        x->cap = cap;
    }
    struct other *o = &x->oth[x->n++];
    *o = (struct other){
        .line = line, .kind = kind, .why = strdup(why), .text = malloc(len + 1), .len = len};
    if (o->why == NULL || o->text == NULL)
        return err_set(e, NS_ENOMEM, "out of memory");
    memcpy(o->text, text, len);
    return 0;
}

/* Every line of results.jsonl: the records the reports count into trials (one load), the
 * others into journal_lines. */
static int
trial_lines(struct pub *p, struct err *e)
{
    struct lines_ctx x = {.p = p};
    static const struct jtrials_cb cb = {.trial = trial_row, .other = other_line};
    struct jtrials_stats st;
    int rc = history_db_load_begin(p->db, "trials", trial_cols, TR_COLS, e);
    if (rc == 0) {
        rc = history_jtrials_read(p->dir, p->run, &cb, &x, &st, e);
        p->journal_error = st.journal_error;
        p->nlines = st.lines;
        p->torn = st.torn;
        int rc2 = history_db_load_end(p->db, rc == 0, e);
        rc = rc != 0 ? rc : rc2;
    }
    static const char *const cols[] = {"run_id", "line", "kind", "why", "text"};
    if (rc == 0 && x.n > 0) {
        rc = history_db_load_begin(p->db, "journal_lines", cols, 5, e);
        for (size_t i = 0; rc == 0 && i < x.n; i++) {
            struct db_val v[5] = {history_db_text(p->run->run_id), db_int((int64_t)x.oth[i].line),
                                  history_db_text(x.oth[i].kind), history_db_text(x.oth[i].why),
                                  history_db_blob(x.oth[i].text, x.oth[i].len)};
            rc = history_db_load_row(p->db, v, e);
        }
        int rc2 = history_db_load_end(p->db, rc == 0, e);
        rc = rc != 0 ? rc : rc2;
    }
    for (size_t i = 0; i < x.n; i++) {
        free(x.oth[i].why);
        free(x.oth[i].text);
    }
    free(x.oth);
    history_jpct_release(&x.pct);
    return rc;
}

/* The run's row, once the journal has been read (its line count and whether it is torn). */
static int
run_lines_update(struct pub *p, struct err *e)
{
    struct db_val v[] = {db_int((int64_t)p->nlines), db_bool(p->torn),
                         history_db_text(p->run->run_id)};
    return history_db_run(
        p->db, "UPDATE runs SET journal_lines = $1, journal_torn = $2 WHERE run_id = $3", v, 3, e);
}

/* --- one run ---------------------------------------------------------------------------------- */

/* The database's rows of the run gone (inside the caller's transaction); *had says whether it
 * held it. */
static int
run_delete(struct db *db, const char *run_id, bool *had, struct err *e)
{
    struct db_val id = history_db_text(run_id);
    int64_t n = 0;
    bool found;
    int rc = history_db_query_int(db, "SELECT count(*) FROM runs WHERE run_id = $1", &id, 1, &n,
                                  &found, e);
    *had = n > 0;
    for (size_t i = 0; rc == 0 && *had && i < DB_RUN_TABLES; i++) {
        char sql[128];
        snprintf(sql, sizeof sql, "DELETE FROM %s WHERE run_id = $1", history_db_run_tables[i]);
        rc = history_db_run(db, sql, &id, 1, e);
    }
    return rc;
}

static int
run_read(struct pub *p, struct journal_run **run, char **text, struct err *e)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", p->dir, JOURNAL_RUN_FILE);
    int rc = journal_read_run(p->dir, run, e);
    if (rc == 0)
        rc = report_read_file(path, text, &p->run_len, JOURNAL_RUN_MAX, e);
    if (rc != 0)
        return rc;
    p->run = *run;
    p->run_text = *text;
    if ((*run)->run_id == NULL || *(*run)->run_id == '\0')
        return err_set(e, NS_EPARSE, "%s: no run_id", path);
    if (!history_trend_parse_time((*run)->started, &p->t_s, &p->t_ns))
        return err_set(e, NS_EPARSE,
                       "%s: start time '%.64s' is not an ISO 8601 time with its zone: the run "
                       "cannot be placed in time",
                       path, (*run)->started != NULL ? (*run)->started : "");
    return 0;
}

static int
publish_one(struct db *db, const char *dir, FILE *warn, struct history_published *out,
            struct err *e)
{
    struct pub p = {.db = db, .dir = dir};
    struct journal_run *run = NULL;
    char *text = NULL;
    int rc = run_read(&p, &run, &text, e);
    if (rc != 0) {
        journal_run_free(run);
        free(text);
        out->journal_error = true;
        return rc;
    }
    bool had = false;
    rc = history_db_begin(db, e);
    if (rc == 0) {
        rc = run_delete(db, run->run_id, &had, e);
        if (rc == 0)
            rc = summary_rows(&p, warn, e);
        if (rc == 0)
            rc = host_rows(&p, e);
        if (rc == 0)
            rc = trial_lines(&p, e);
        if (rc == 0)
            rc = run_lines_update(&p, e);
        if (rc == 0)
            rc = history_db_commit(db, e);
        if (rc != 0)
            history_db_rollback(db);
    }
    out->journal_error = p.journal_error;
    if (rc == 0) {
        out->run_id = strdup(run->run_id);
        out->trials = p.trials;
        out->ok = p.ok;
        out->lines = p.nlines;
        out->replaced = had;
        if (out->run_id == NULL)
            rc = err_set(e, NS_ENOMEM, "out of memory");
    }
    pzmap_free(&p.pz);
    free(text);
    journal_run_free(run);
    return rc;
}

int
history_publish(const struct history_publish_opts *o, struct history_publish_result *r,
                struct err *e)
{
    memset(r, 0, sizeof *r);
    if (o->ndirs < 1) {
        r->failure = HISTORY_PUBLISH_USAGE;
        return err_set(e, NS_EINVAL, "nothing to publish: give a run directory");
    }
    struct db *db;
    int rc = history_db_open(o->db, true, &db, e);
    if (rc != 0) {
        r->failure = rc == NS_EINVAL ? HISTORY_PUBLISH_USAGE : HISTORY_PUBLISH_DATABASE;
        return rc;
    }
    for (int i = 0; rc == 0 && i < o->ndirs; i++) {
        struct history_published p = {.dir = o->dirs[i]};
        rc = publish_one(db, o->dirs[i], o->warn, &p, e);
        if (rc != 0) {
            r->failure = p.journal_error ? HISTORY_PUBLISH_JOURNAL : HISTORY_PUBLISH_DATABASE;
            if (!p.journal_error)
                err_prefix(e, "%s not published", o->dirs[i]);
        } else {
            r->published++;
            if (o->done != NULL)
                o->done(o->arg, &p);
        }
        free(p.run_id);
    }
    history_db_close(db);
    return rc;
}
