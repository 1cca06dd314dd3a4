/* dbjson.c - a summary's run, scenarios and cells as rows of the history database, and back
 * (dbint.h): the columns of schema.sql's runs, scenarios and cells tables, each the member of
 * the summary it holds, and a row's "extra" for the members without one. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/errors.h"
#include "history/dbint.h"

#define COL(c, k, t)                                                                               \
    {                                                                                              \
        c, k, DBJ_##t, false                                                                       \
    }
/* a member of the full form only (report_summary_read's), which the cells form lacks */
#define COL_F(c, k, t)                                                                             \
    {                                                                                              \
        c, k, DBJ_##t, true                                                                        \
    }

static const struct dbj_col run_cols[] = {
    COL("run_id", "run_id", TEXT),
    COL("plan_name", "plan.name", TEXT),
    COL("plan_file", "plan.file", TEXT),
    COL("plan_sha256", "plan.sha256", TEXT),
    COL("description", "plan.description", TEXT),
    COL("tool", "tool", JSON),
    COL("started", "started", TEXT),
    COL("command", "command", TEXT),
    COL("state", "state", TEXT),
    COL("in_progress", "in_progress", BOOL),
    COL("complete", "complete", BOOL),
    COL("planned", "trials.planned", INT),
    COL("ok", "trials.ok", INT),
    COL("failed", "trials.failed", INT),
    COL("not_run", "trials.not_run", INT),
    COL("undecided", "trials.undecided", INT),
};

static const struct dbj_col scenario_cols[] = {
    COL("name", "name", TEXT),
    COL("family", "family", TEXT),
    COL("kind", "test", TEXT),
    COL("file_key", "file_key", TEXT),
    COL("direction", "direction", TEXT),
    COL("reverse", "reverse", BOOL),
    COL("metric", "metric", TEXT),
    COL("unit", "unit", TEXT),
    COL("params", "params", JSON),
    COL("params_resolved", "params_resolved", BOOL),
    COL("planned", "trials.planned", INT),
    COL("ok", "trials.ok", INT),
    COL("failed", "trials.failed", INT),
    COL("not_run", "trials.not_run", INT),
    COL("runs", "trials.runs", INT),
    COL("undecided", "trials.undecided", INT),
    COL_F("stat_matrices", "stat_matrices", JSON),
    COL_F("asymmetry", "asymmetry", JSON),
};

static const struct dbj_col cell_cols[] = {
    COL("planned", "planned", INT),
    COL("n", "n", INT),
    COL("failed", "failed", INT),
    COL("not_run", "not_run", INT),
    COL("runs", "runs", INT),
    COL("undecided", "undecided", INT),
    COL("pairs", "pairs", INT),
    COL("mean", "mean", REAL),
    COL("median", "median", REAL),
    COL("stddev", "stddev", REAL),
    COL("min", "min", REAL),
    COL("max", "max", REAL),
    COL("ci95_halfwidth", "ci95_halfwidth", REAL),
    COL("ci95_low", "ci95_low", REAL),
    COL("ci95_high", "ci95_high", REAL),
    COL("cv", "cv", REAL),
    COL("high_variation", "high_variation", BOOL),
    COL_F("rtt_n", "rtt_us.n", INT),
    COL_F("rtt_mean", "rtt_us.mean", REAL),
    COL_F("rtt_min", "rtt_us.min", REAL),
    COL_F("rtt_p25", "rtt_us.p25", REAL),
    COL_F("rtt_p50", "rtt_us.p50", REAL),
    COL_F("rtt_p75", "rtt_us.p75", REAL),
    COL_F("rtt_p90", "rtt_us.p90", REAL),
    COL_F("rtt_p99", "rtt_us.p99", REAL),
    COL_F("rtt_p99_9", "rtt_us.p99_9", REAL),
    COL_F("rtt_p99_99", "rtt_us.p99_99", REAL),
    COL_F("rtt_p99_999", "rtt_us.p99_999", REAL),
    COL_F("rtt_max", "rtt_us.max", REAL),
    COL("cpu_local", "cpu_pct.local", REAL),
    COL("cpu_remote", "cpu_pct.remote", REAL),
    COL("retransmits_mean", "retransmits_mean", REAL),
    COL("udp_lost_pct", "udp.lost_pct", REAL),
    COL("udp_jitter_us", "udp.jitter_us", REAL),
};

#define TABLE(a)                                                                                   \
    {                                                                                              \
        a, sizeof a / sizeof a[0]                                                                  \
    }
const struct dbj_table history_dbj_run = TABLE(run_cols),
                       history_dbj_scenario = TABLE(scenario_cols),
                       history_dbj_cell = TABLE(cell_cols);

/* The object holding key's member (o itself, or its member before the dot when that is an
 * object; NULL otherwise), and the member's own name in *leaf. */
static json_t *
path_parent(const json_t *o, const char *key, char *leaf, size_t len)
{
    const char *dot = strchr(key, '.');
    if (dot == NULL) {
        snprintf(leaf, len, "%s", key);
        return (json_t *)(uintptr_t)o;
    }
    char head[64];
    snprintf(head, sizeof head, "%.*s", (int)(dot - key), key);
    snprintf(leaf, len, "%s", dot + 1);
    json_t *p = json_object_get(o, head);
    return json_is_object(p) ? p : NULL;
}

static bool
type_fits(const json_t *v, enum dbj_type t)
{
    switch (t) {
    case DBJ_TEXT: /* a NUL inside would not come back from a TEXT column */
        return json_is_string(v) && strlen(json_string_value(v)) == json_string_length(v);
    case DBJ_INT:
        return json_is_integer(v);
    case DBJ_REAL:
        return json_is_real(v);
    case DBJ_BOOL:
        return json_is_boolean(v);
    case DBJ_JSON:
        return v != NULL;
    }
    return false;
}

struct dumpbuf {
    char *p;
    size_t len, cap;
    bool oom;
};

static int
dump_add(const char *s, size_t n, void *arg)
{
    struct dumpbuf *b = arg;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + n + 1)
            cap *= 2;
        char *p = realloc(b->p, cap);
        if (p == NULL) {
            b->oom = true;
            return -1;
        }
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
    return 0;
}

char *
history_dbj_dump(const json_t *v)
{
    struct dumpbuf b = {0};
    if (json_dump_callback(v, dump_add, &b,
                           JSON_COMPACT | JSON_ENCODE_ANY | JSON_REAL_PRECISION(17)) != 0 ||
        b.oom || b.p == NULL) {
        free(b.p);
        return NULL;
    }
    return b.p;
}

void
history_dbj_texts_free(char **texts, size_t n, char *extra)
{
    for (size_t i = 0; texts != NULL && i < n; i++) {
        free(texts[i]);
        texts[i] = NULL;
    }
    free(extra);
}

int
history_dbj_split(const struct dbj_table *t, const json_t *o, struct db_val *vals, char **texts,
                  char **extra)
{
    json_t *work = json_deep_copy(o);
    *extra = NULL;
    memset(texts, 0, t->n * sizeof *texts);
    if (work == NULL)
        return NS_ENOMEM;
    for (size_t i = 0; i < t->n; i++) {
        const struct dbj_col *c = &t->cols[i];
        char leaf[64];
        const json_t *op = path_parent(o, c->key, leaf, sizeof leaf);
        const json_t *v = op != NULL ? json_object_get(op, leaf) : NULL;
        vals[i] = db_null();
        if (!type_fits(v, c->t))
            continue;
        switch (c->t) {
        case DBJ_TEXT:
            vals[i] = history_db_textn(json_string_value(v), json_string_length(v));
            break;
        case DBJ_INT:
            vals[i] = db_int(json_integer_value(v));
            break;
        case DBJ_REAL:
            vals[i] = db_real(json_real_value(v));
            break;
        case DBJ_BOOL:
            vals[i] = db_bool(json_is_true(v));
            break;
        case DBJ_JSON:
            if ((texts[i] = history_dbj_dump(v)) == NULL) {
                json_decref(work);
                history_dbj_texts_free(texts, t->n, NULL);
                return NS_ENOMEM;
            }
            vals[i] = history_db_text(texts[i]);
            break;
        }
        /* taken: out of what is left, with the object it was in once that is empty */
        json_t *wp = path_parent(work, c->key, leaf, sizeof leaf);
        json_object_del(wp, leaf);
        if (wp != work && json_object_size(wp) == 0) {
            char head[64];
            snprintf(head, sizeof head, "%.*s", (int)(strchr(c->key, '.') - c->key), c->key);
            json_object_del(work, head);
        }
    }
    int rc = 0;
    if (json_object_size(work) > 0 && (*extra = history_dbj_dump(work)) == NULL) {
        history_dbj_texts_free(texts, t->n, NULL);
        rc = NS_ENOMEM;
    }
    json_decref(work);
    return rc;
}

static json_t *
col_value(const struct dbj_col *c, struct db *db, struct db_rows *r, int col)
{
    size_t n;
    const char *s;
    switch (c->t) {
    case DBJ_TEXT:
        s = history_db_col_text(db, r, col, &n);
        return json_stringn(s != NULL ? s : "", n);
    case DBJ_INT:
        return json_integer((json_int_t)history_db_col_int(db, r, col));
    case DBJ_REAL:
        return json_real(history_db_col_real(db, r, col));
    case DBJ_BOOL:
        return json_boolean(history_db_col_int(db, r, col) != 0);
    case DBJ_JSON:
        s = history_db_col_text(db, r, col, &n);
        return s != NULL ? json_loadb(s, n, JSON_DECODE_ANY, NULL) : NULL;
    }
    return NULL;
}

json_t *
history_dbj_join_into(json_t *o, const struct dbj_table *t, enum dbj_form form, struct db *db,
                      struct db_rows *r, int col0, const char *extra)
{
    if (o == NULL && (o = json_object()) == NULL)
        return NULL;
    if (extra != NULL) {
        json_t *x = json_loads(extra, 0, NULL);
        int bad = !json_is_object(x) || json_object_update(o, x) != 0;
        json_decref(x);
        if (bad) {
            json_decref(o);
            return NULL;
        }
    }
    int col = col0;
    for (size_t i = 0; i < t->n; i++) {
        const struct dbj_col *c = &t->cols[i];
        if (c->full && form == DBJ_CELLS)
            continue;
        if (history_db_col_null(db, r, col)) {
            col++;
            continue;
        }
        json_t *v = col_value(c, db, r, col++);
        char leaf[64];
        json_t *p = path_parent(o, c->key, leaf, sizeof leaf);
        if (p == NULL) { /* the first member of a nested object makes it */
            char head[64];
            snprintf(head, sizeof head, "%.*s", (int)(strchr(c->key, '.') - c->key), c->key);
            p = json_object();
            if (json_object_set_new(o, head, p) != 0)
                p = NULL;
        }
        if (v == NULL || p == NULL || json_object_set_new(p, leaf, v) != 0) {
            json_decref(o);
            return NULL;
        }
    }
    return o;
}

void
history_dbj_select_list(const struct dbj_table *t, enum dbj_form form, char *buf, size_t len)
{
    size_t k = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < t->n && k < len; i++)
        if (!(t->cols[i].full && form == DBJ_CELLS))
            k += (size_t)snprintf(buf + k, len - k, "%s%s", k ? ", " : "", t->cols[i].col);
}
