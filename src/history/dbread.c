/* dbread.c - runs read back from the history database as the summaries compare and trend read
 * from run directories: `trend --db` and `compare --db` answered by SQL.
 *
 * A summary is rebuilt from its rows (dbj_join: the columns and each row's extra), so that it
 * equals what report_summary_read (compare) or report_cells_read (trend) gives for the run's
 * directory, member for member, but for the run's directory, which becomes its run_id (the runs'
 * "dir" and the journal's problems'): the same runs give the same outputs and verdicts, byte
 * for byte. Three queries whatever the number of runs: their runs, scenarios and cells rows,
 * each through the runs the selectors pick (an index on plan and time, one on scenario). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/errors.h"
#include "common/histjson.h"
#include "history/cells.h"
#include "history/dbint.h"
#include "history/history.h"
#include "history/trendint.h"
#include "journal/record.h"
#include "report/output.h"

#define SEL_PARAMS_MAX 8

/* The selection as SQL: "SELECT run_id FROM runs WHERE ..." with its parameters. */
struct sel {
    struct rbuf sql;
    struct db_val p[SEL_PARAMS_MAX];
    char *owned[SEL_PARAMS_MAX];
    size_t n;
    const char *const *ids; /* run ids, bound after the parameters above */
    size_t nids;
};

static void
sel_release(struct sel *s)
{
    report_buf_release(&s->sql);
    for (size_t i = 0; i < s->n; i++)
        free(s->owned[i]);
}

/* A time selector as seconds and nanoseconds: an ISO 8601 time with its zone, or a date. */
static bool
sel_time(const char *text, int64_t *sec, int32_t *ns)
{
    char full[64];
    if (strlen(text) == 10) { /* 2026-11-30: that day's midnight, UTC */
        snprintf(full, sizeof full, "%sT00:00:00Z", text);
        text = full;
    }
    return history_trend_parse_time(text, sec, ns);
}

static int
sel_time_clause(struct sel *s, const char *text, const char *what, bool since, struct err *e)
{
    int64_t sec;
    int32_t ns;
    if (!sel_time(text, &sec, &ns))
        return err_set(e, NS_EINVAL,
                       "--%s wants a date (2026-11-30) or an ISO 8601 time with its zone "
                       "(2026-11-30T15:00:00Z), not '%.64s'",
                       what, text);
    size_t a = s->n + 1, b = s->n + 2;
    s->p[s->n++] = db_int(sec);
    s->p[s->n++] = db_int(ns);
    report_buf_printf(&s->sql,
                      since ? " AND (started_s > $%zu OR (started_s = $%zu AND started_ns >= $%zu))"
                            : " AND (started_s < $%zu OR (started_s = $%zu AND started_ns < $%zu))",
                      a, a, b);
    return 0;
}

static int
sel_build(struct sel *s, const struct history_db_select *q, struct err *e)
{
    memset(s, 0, sizeof *s);
    report_buf_init(&s->sql);
    report_buf_puts(&s->sql, "SELECT run_id FROM runs WHERE 1 = 1");
    int rc = 0;
    if (q->plan != NULL) {
        s->p[s->n++] = history_db_text(q->plan);
        report_buf_printf(&s->sql, " AND plan_name = $%zu", s->n);
    }
    if (q->scenario != NULL) {
        s->p[s->n++] = history_db_text(q->scenario);
        report_buf_printf(&s->sql,
                          " AND run_id IN (SELECT run_id FROM scenarios WHERE name = $%zu)", s->n);
    }
    if (q->since != NULL)
        rc = sel_time_clause(s, q->since, "since", true, e);
    if (rc == 0 && q->until != NULL)
        rc = sel_time_clause(s, q->until, "until", false, e);
    if (rc == 0 && q->n_run_ids > 0) {
        report_buf_puts(&s->sql, " AND run_id IN (");
        for (size_t i = 0; i < q->n_run_ids; i++)
            report_buf_printf(&s->sql, "%s$%zu", i ? ", " : "", s->n + i + 1);
        report_buf_puts(&s->sql, ")");
        s->ids = q->run_ids;
        s->nids = q->n_run_ids;
    }
    if (rc == 0 && q->last > 0)
        report_buf_printf(
            &s->sql, " ORDER BY started_s DESC, started_ns DESC, run_id DESC LIMIT %zu", q->last);
    if (rc == 0 && s->sql.oom)
        rc = err_set(e, NS_ENOMEM, "out of memory");
    return rc;
}

/* The parameters of a query made of the selection: its own, then the run ids, then extra. */
static struct db_val *
sel_params(const struct sel *s, const struct db_val *extra, size_t nextra, size_t *n)
{
    *n = s->n + s->nids + nextra;
    struct db_val *p = calloc(*n ? *n : 1, sizeof *p);
    if (p == NULL)
        return NULL;
    memcpy(p, s->p, s->n * sizeof *p);
    for (size_t i = 0; i < s->nids; i++)
        p[s->n + i] = history_db_text(s->ids[i]);
    if (nextra > 0)
        memcpy(p + s->n + s->nids, extra, nextra * sizeof *p);
    return p;
}

/* --- the summaries -------------------------------------------------------------------------- */

/* A run read back. */
struct dbrun {
    char *run_id, *started;
    int64_t t_s;
    int32_t t_ns;
    uint64_t rj_planned;
    bool adaptive, in_progress;
    const char *state; /* journal_run_state_name's static string, or NULL */
    json_t *sum;
    json_t *scens; /* sum's scenarios */
};

static int
cmp_dbrun(const void *a, const void *b)
{
    return strcmp(((const struct dbrun *)a)->run_id, ((const struct dbrun *)b)->run_id);
}

static struct dbrun *
dbrun_find(struct dbrun *runs, size_t n, const char *run_id)
{
    struct dbrun want = {.run_id = (char *)(uintptr_t)run_id};
    return n > 0 ? bsearch(&want, runs, n, sizeof *runs, cmp_dbrun) : NULL;
}

static void
dbruns_free(struct dbrun *runs, size_t n)
{
    for (size_t i = 0; runs != NULL && i < n; i++) {
        free(runs[i].run_id);
        free(runs[i].started);
        json_decref(runs[i].sum);
    }
    free(runs);
}

static char *
col_dup(struct db *db, struct db_rows *r, int col)
{
    size_t n;
    const char *s = history_db_col_text(db, r, col, &n);
    return s != NULL ? strndup(s, n) : NULL;
}

static json_t *
col_json(struct db *db, struct db_rows *r, int col)
{
    size_t n;
    const char *s = history_db_col_text(db, r, col, &n);
    return s != NULL ? json_loadb(s, n, JSON_DECODE_ANY, NULL) : NULL;
}

/* The journal's problems get the run's name back where the directory was. */
static json_t *
journal_of(struct db *db, struct db_rows *r, int col, const char *label)
{
    json_t *j = col_json(db, r, col);
    size_t i;
    json_t *p;
    json_array_foreach(json_object_get(j, "problems"), i, p)
    {
        json_t *c = json_object();
        json_object_set_new(c, "dir", json_string(label));
        json_object_update(c, p); /* dir first, as the summary has it */
        json_array_set_new(json_object_get(j, "problems"), i, c);
    }
    return j;
}

static int
read_runs(struct db *db, const struct sel *s, struct dbrun **out, size_t *nout, struct err *e)
{
    char cols[2048];
    history_dbj_select_list(&history_dbj_run, DBJ_FULL, cols, sizeof cols);
    struct rbuf q;
    report_buf_init(&q);
    report_buf_printf(&q,
                      "SELECT started_s, started_ns, rj_planned, adaptive, title, completeness, "
                      "journal, extra, %s FROM runs WHERE run_id IN (%s)",
                      cols, s->sql.data);
    size_t np;
    struct db_val *p = sel_params(s, NULL, 0, &np);
    struct db_rows *r = NULL;
    int rc = q.oom || p == NULL ? err_set(e, NS_ENOMEM, "out of memory")
                                : history_db_query(db, q.data, p, np, &r, e);
    free(p);
    report_buf_release(&q);
    struct dbrun *runs = NULL;
    size_t n = 0, cap = 0;
    while (rc == 0 && (rc = history_db_next(db, r, e)) == 1) {
        rc = 0;
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            struct dbrun *g = realloc(runs, cap * sizeof *runs);
            if (g == NULL) {
                rc = err_set(e, NS_ENOMEM, "out of memory");
                break;
            }
            runs = g;
        }
        struct dbrun *x = &runs[n++];
        memset(x, 0, sizeof *x);
        x->t_s = history_db_col_int(db, r, 0);
        x->t_ns = (int32_t)history_db_col_int(db, r, 1);
        x->rj_planned = (uint64_t)history_db_col_int(db, r, 2);
        x->adaptive = history_db_col_int(db, r, 3) != 0;
        size_t en;
        const char *extra = history_db_col_text(db, r, 7, &en);
        char *ex = extra != NULL ? strndup(extra, en) : NULL;
        json_t *run = history_dbj_join_into(NULL, &history_dbj_run, DBJ_FULL, db, r, 8, ex);
        free(ex);
        x->run_id = strdup(js(run, "run_id"));
        x->started = strdup(js(run, "started"));
        x->in_progress = json_is_true(json_object_get(run, "in_progress"));
        x->state = journal_run_state_name(
            journal_run_state_from(json_string_value(json_object_get(run, "state"))));
        x->scens = json_array();
        x->sum = json_object();
        char *title = col_dup(db, r, 4);
        json_t *runs_a = json_array();
        json_t *d = json_object();
        json_object_set_new(d, "dir", json_string(x->run_id ? x->run_id : ""));
        json_object_update(d, run); /* dir first, as the summary has it */
        json_array_append_new(runs_a, d);
        json_object_set_new(x->sum, "title", json_string(title ? title : ""));
        json_object_set_new(x->sum, "completeness", col_json(db, r, 5));
        json_object_set_new(x->sum, "runs", runs_a);
        json_object_set_new(x->sum, "scenarios", x->scens); /* x->scens borrowed from it */
        json_object_set_new(x->sum, "journal", journal_of(db, r, 6, x->run_id ? x->run_id : ""));
        free(title);
        json_decref(run);
        if (x->run_id == NULL || x->started == NULL || run == NULL)
            rc = err_set(e, NS_ENOMEM, "out of memory reading the runs");
    }
    if (r != NULL)
        history_db_rows_free(db, r);
    if (rc < 0) {
        dbruns_free(runs, n);
        return rc;
    }
    if (n > 1)
        qsort(runs, n, sizeof *runs, cmp_dbrun);
    *out = runs;
    *nout = n;
    return 0;
}

static const char *const cells_form_drop[] = {"stat_matrices", "asymmetry", NULL};

static int
read_scenarios(struct db *db, const struct sel *s, const char *scenario, enum dbj_form form,
               struct dbrun *runs, size_t n, struct err *e)
{
    char cols[2048];
    history_dbj_select_list(&history_dbj_scenario, form, cols, sizeof cols);
    struct rbuf q;
    report_buf_init(&q);
    report_buf_printf(&q, "SELECT run_id, extra, %s FROM scenarios WHERE run_id IN (%s)", cols,
                      s->sql.data);
    size_t np;
    struct db_val extra_p = history_db_text(scenario);
    struct db_val *p = sel_params(s, &extra_p, scenario != NULL, &np);
    if (scenario != NULL)
        report_buf_printf(&q, " AND name = $%zu", np);
    report_buf_puts(&q, " ORDER BY run_id, ord");
    struct db_rows *r = NULL;
    int rc = q.oom || p == NULL ? err_set(e, NS_ENOMEM, "out of memory")
                                : history_db_query(db, q.data, p, np, &r, e);
    free(p);
    report_buf_release(&q);
    while (rc == 0 && (rc = history_db_next(db, r, e)) == 1) {
        rc = 0;
        size_t len;
        const char *id = history_db_col_text(db, r, 0, &len);
        char *rid = id != NULL ? strndup(id, len) : NULL;
        struct dbrun *x = rid != NULL ? dbrun_find(runs, n, rid) : NULL;
        free(rid);
        if (x == NULL)
            continue; /* published while this read: not among the runs read */
        const char *extra = history_db_col_text(db, r, 1, &len);
        char *ex = extra != NULL ? strndup(extra, len) : NULL;
        json_t *sc = history_dbj_join_into(NULL, &history_dbj_scenario, form, db, r, 2, ex);
        free(ex);
        if (sc == NULL) {
            rc = err_set(e, NS_ENOMEM, "out of memory reading the scenarios");
            break;
        }
        for (size_t i = 0; form == DBJ_CELLS && cells_form_drop[i] != NULL; i++)
            json_object_del(sc, cells_form_drop[i]);
        json_object_set_new(sc, "zone_cells", json_array());
        json_array_append_new(x->scens, sc);
    }
    if (r != NULL)
        history_db_rows_free(db, r);
    return rc < 0 ? rc : 0;
}

/* The scenario of run x named name, family fam, value sweep of its sweep (history_sweep_key of
 * the scenario as read back: the key publish wrote). */
static json_t *
scen_of(struct dbrun *x, const char *name, const char *fam, const char *sweep)
{
    size_t i;
    json_t *s;
    json_array_foreach(x->scens, i, s)
    {
        char sw[HISTORY_SWEEP_KEY_MAX];
        if (strcmp(js(s, "name"), name) == 0 && strcmp(js(s, "family"), fam) == 0 &&
            strcmp(history_sweep_key(s, sw, sizeof sw), sweep) == 0)
            return s;
    }
    return NULL;
}

/* The cell of the row into its scenario's zone_cells or region_cells. */
static int
cell_add(struct db *db, struct db_rows *r, json_t *sc, const char *level, enum dbj_form form,
         struct err *e)
{
    char sk[16], dk[16], arr[24];
    snprintf(sk, sizeof sk, "src_%s", level);
    snprintf(dk, sizeof dk, "dst_%s", level);
    snprintf(arr, sizeof arr, "%s_cells", level);
    size_t len;
    const char *extra = history_db_col_text(db, r, 6, &len);
    char *ex = extra != NULL ? strndup(extra, len) : NULL;
    json_t *c = json_object();
    const char *src = history_db_col_text(db, r, 4, NULL),
               *dst = history_db_col_text(db, r, 5, NULL);
    if (c != NULL && src != NULL && dst != NULL) { /* the zones first, as the summary has them */
        json_object_set_new(c, sk, json_string(src));
        json_object_set_new(c, dk, json_string(dst));
        c = history_dbj_join_into(c, &history_dbj_cell, form, db, r, 8, ex);
    } else {
        json_decref(c);
        c = NULL;
    }
    free(ex);
    if (c == NULL)
        return err_set(e, NS_ENOMEM, "out of memory reading the cells");
    if (form == DBJ_CELLS) /* the cells form reads no histogram: not even from an extra */
        json_object_del(c, HISTJSON_RTT);
    json_t *a = json_object_get(sc, arr);
    if (a == NULL)
        json_object_set_new(sc, arr, a = json_array());
    json_array_append_new(a, c);
    return 0;
}

static int
read_cells(struct db *db, const struct sel *s, const char *scenario, enum dbj_form form,
           struct dbrun *runs, size_t n, struct err *e)
{
    char cols[4096];
    history_dbj_select_list(&history_dbj_cell, form, cols, sizeof cols);
    struct rbuf q;
    report_buf_init(&q);
    report_buf_printf(
        &q,
        "SELECT run_id, scenario, family, level, src_zone, dst_zone, extra, sweep, %s "
        "FROM cells WHERE run_id IN (%s)",
        cols, s->sql.data);
    size_t np;
    struct db_val extra_p = history_db_text(scenario);
    struct db_val *p = sel_params(s, &extra_p, scenario != NULL, &np);
    if (scenario != NULL)
        report_buf_printf(&q, " AND scenario = $%zu", np);
    if (form == DBJ_CELLS)
        report_buf_puts(&q, " AND level = 'zone'");
    report_buf_puts(&q, " ORDER BY run_id, scenario, family, sweep, level, ord");
    struct db_rows *r = NULL;
    int rc = q.oom || p == NULL ? err_set(e, NS_ENOMEM, "out of memory")
                                : history_db_query(db, q.data, p, np, &r, e);
    free(p);
    report_buf_release(&q);
    while (rc == 0 && (rc = history_db_next(db, r, e)) == 1) {
        rc = 0;
        char *id = col_dup(db, r, 0), *name = col_dup(db, r, 1), *fam = col_dup(db, r, 2),
             *level = col_dup(db, r, 3), *sweep = col_dup(db, r, 7);
        struct dbrun *x = id != NULL ? dbrun_find(runs, n, id) : NULL;
        json_t *sc = x != NULL && name != NULL && fam != NULL && sweep != NULL
                         ? scen_of(x, name, fam, sweep)
                         : NULL;
        if (id == NULL || name == NULL || fam == NULL || level == NULL || sweep == NULL)
            rc = err_set(e, NS_ENOMEM, "out of memory reading the cells");
        else if (sc != NULL)
            rc = cell_add(db, r, sc, level, form, e);
        free(id);
        free(name);
        free(fam);
        free(level);
        free(sweep);
    }
    if (r != NULL)
        history_db_rows_free(db, r);
    return rc < 0 ? rc : 0;
}

/* The selected runs' summaries, in run_id order. */
static int
read_summaries(struct db *db, const struct history_db_select *q, enum dbj_form form,
               struct dbrun **out, size_t *n, struct err *e)
{
    struct sel s;
    int rc = sel_build(&s, q, e);
    if (rc == 0)
        rc = read_runs(db, &s, out, n, e);
    if (rc == 0)
        rc = read_scenarios(db, &s, q->scenario, form, *out, *n, e);
    if (rc == 0)
        rc = read_cells(db, &s, q->scenario, form, *out, *n, e);
    if (rc != 0 && rc != NS_EINVAL && strncmp(e->msg, db->shown, strlen(db->shown)) != 0)
        err_prefix(e, "%s", db->shown);
    sel_release(&s);
    return rc;
}

/* --- trend and compare ---------------------------------------------------------------------- */

int
history_trend_db_runs(const struct history_db_select *q, struct trun **out, size_t *nout,
                      bool *db_failed, struct err *e)
{
    struct db *db;
    *db_failed = true;
    int rc = history_db_open(q->url, false, &db, e);
    if (rc != 0) {
        *db_failed = rc != NS_EINVAL;
        return rc;
    }
    struct dbrun *runs = NULL;
    size_t n = 0;
    rc = read_summaries(db, q, DBJ_CELLS, &runs, &n, e);
    *db_failed = rc != NS_EINVAL;
    for (size_t i = 0; rc == 0 && i < q->n_run_ids; i++)
        if (dbrun_find(runs, n, q->run_ids[i]) == NULL)
            rc = err_set(e, NS_ENOTFOUND, "%s: no run %s", db->shown, q->run_ids[i]);
    struct trun *t = rc == 0 ? calloc(n ? n : 1, sizeof *t) : NULL;
    if (rc == 0 && t == NULL)
        rc = err_set(e, NS_ENOMEM, "out of memory");
    for (size_t i = 0; rc == 0 && i < n; i++) {
        struct dbrun *x = &runs[i];
        t[i].given = i;
        t[i].dir = strdup(x->run_id);
        t[i].run_id = x->run_id;
        t[i].started = x->started;
        x->run_id = x->started = NULL;
        t[i].t_s = x->t_s;
        t[i].t_ns = x->t_ns;
        t[i].state = x->state;
        t[i].planned = x->rj_planned;
        t[i].adaptive = x->adaptive;
        t[i].in_progress = x->in_progress;
        t[i].sum = history_trend_reduce(x->sum);
        if (t[i].dir == NULL || t[i].sum == NULL)
            rc = err_set(e, NS_ENOMEM, "out of memory");
    }
    dbruns_free(runs, n);
    history_db_close(db);
    if (rc != 0) {
        history_trend_runs_free(t, n);
        return rc;
    }
    history_trend_runs_sort(t, n);
    *out = t;
    *nout = n;
    return 0;
}

int
history_db_summary(const char *url, const char *run_id, json_t **sum, bool *db_failed,
                   struct err *e)
{
    struct db *db;
    *db_failed = true;
    int rc = history_db_open(url, false, &db, e);
    if (rc != 0) {
        *db_failed = rc != NS_EINVAL;
        return rc;
    }
    const char *ids[] = {run_id};
    struct history_db_select q = {.url = url, .run_ids = ids, .n_run_ids = 1};
    struct dbrun *runs = NULL;
    size_t n = 0;
    rc = read_summaries(db, &q, DBJ_FULL, &runs, &n, e);
    if (rc == 0 && n != 1)
        rc = err_set(e, NS_ENOTFOUND, "%s: no run %s", db->shown, run_id);
    if (rc == 0)
        *sum = json_incref(runs[0].sum);
    dbruns_free(runs, n);
    history_db_close(db);
    return rc;
}
