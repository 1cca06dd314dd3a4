/* db_sqlite.c - the SQLite engine of the history database (dbint.h): one file, no server.
 *
 * A writer waits up to DB_SQLITE_BUSY_MS for another one to finish (BEGIN IMMEDIATE takes the
 * write lock at once, so two publishers queue rather than fail halfway). Statements are written
 * with PostgreSQL's $N parameters; SQLite reads "$N" as a named parameter, bound here by name. */
#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/errors.h"
#include "history/dbint.h"

#define DB_SQLITE_BUSY_MS 60000

struct sq {
    sqlite3 *db;
    sqlite3_stmt *load; /* the INSERT of a bulk load */
    size_t load_cols;
};

struct db_rows {
    sqlite3 *db;
    sqlite3_stmt *st;
};

static int
sq_err(sqlite3 *db, int rc, struct err *e)
{
    int code = rc == SQLITE_NOMEM                            ? NS_ENOMEM
               : rc == SQLITE_BUSY || rc == SQLITE_LOCKED    ? NS_EBUSY
               : rc == SQLITE_NOTADB || rc == SQLITE_CORRUPT ? NS_EPROTO
                                                             : NS_EIO;
    const char *msg = db != NULL ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    return err_set(e, code, "%s", msg);
}

static int
sq_open(const char *target, bool write, void **conn, struct err *e)
{
    struct sq *s = calloc(1, sizeof *s);
    if (s == NULL)
        return err_set(e, NS_ENOMEM, "out of memory");
    struct stat st;
    if (!write && stat(target, &st) != 0) {
        free(s);
        return err_sys(e, errno == ENOENT ? NS_ENOTFOUND : NS_EIO, errno, "no database");
    }
    int flags = write ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE : SQLITE_OPEN_READONLY;
    int rc = sqlite3_open_v2(target, &s->db, flags | SQLITE_OPEN_NOMUTEX, NULL);
    if (rc != SQLITE_OK) {
        int r = sq_err(s->db, rc, e);
        sqlite3_close(s->db);
        free(s);
        return r;
    }
    sqlite3_busy_timeout(s->db, DB_SQLITE_BUSY_MS);
    sqlite3_extended_result_codes(s->db, 0);
    /* not a database at all is found here, not at the first statement that reads it */
    rc = sqlite3_exec(s->db, "PRAGMA foreign_keys = ON; SELECT count(*) FROM sqlite_master", NULL,
                      NULL, NULL);
    if (rc != SQLITE_OK) {
        int r = sq_err(s->db, rc, e);
        sqlite3_close(s->db);
        free(s);
        return r;
    }
    *conn = s;
    return 0;
}

static void
sq_close(void *conn)
{
    struct sq *s = conn;
    if (s == NULL)
        return;
    sqlite3_finalize(s->load);
    sqlite3_close(s->db);
    free(s);
}

static bool
sq_writable(void *conn)
{
    return sqlite3_db_readonly(((struct sq *)conn)->db, "main") == 0;
}

static int
sq_exec(void *conn, const char *sql, struct err *e)
{
    struct sq *s = conn;
    int rc = sqlite3_exec(s->db, sql, NULL, NULL, NULL);
    return rc == SQLITE_OK ? 0 : sq_err(s->db, rc, e);
}

static int
sq_bind(sqlite3_stmt *st, int idx, const struct db_val *v)
{
    switch (v->t) {
    case DB_NULL:
        return sqlite3_bind_null(st, idx);
    case DB_INT:
    case DB_BOOL:
        return sqlite3_bind_int64(st, idx, v->i);
    case DB_REAL:
        return sqlite3_bind_double(st, idx, v->d);
    case DB_TEXT:
        return sqlite3_bind_text64(st, idx, v->s, v->n, SQLITE_STATIC, SQLITE_UTF8);
    case DB_BLOB:
        return sqlite3_bind_blob64(st, idx, v->s, v->n, SQLITE_STATIC);
    }
    return SQLITE_MISUSE;
}

/* Parameter $k of the statement is p[k - 1], wherever it appears. */
static int
sq_bind_all(sqlite3_stmt *st, const struct db_val *p, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        char name[24];
        snprintf(name, sizeof name, "$%zu", k + 1);
        int idx = sqlite3_bind_parameter_index(st, name);
        if (idx == 0)
            continue; /* a parameter the statement does not use */
        int rc = sq_bind(st, idx, &p[k]);
        if (rc != SQLITE_OK)
            return rc;
    }
    return SQLITE_OK;
}

static int
sq_has_table(void *conn, const char *name, bool *yes, struct err *e)
{
    struct sq *s = conn;
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(
        s->db, "SELECT 1 FROM sqlite_master WHERE type IN ('table', 'view') AND name = ?1", -1, &st,
        NULL);
    if (rc != SQLITE_OK)
        return sq_err(s->db, rc, e);
    sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
    rc = sqlite3_step(st);
    *yes = rc == SQLITE_ROW;
    sqlite3_finalize(st);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : sq_err(s->db, rc, e);
}

static int
sq_query(void *conn, const char *sql, const struct db_val *p, size_t n, struct db_rows **out,
         struct err *e)
{
    struct sq *s = conn;
    struct db_rows *r = calloc(1, sizeof *r);
    if (r == NULL)
        return err_set(e, NS_ENOMEM, "out of memory");
    r->db = s->db;
    int rc = sqlite3_prepare_v2(s->db, sql, -1, &r->st, NULL);
    if (rc == SQLITE_OK)
        rc = sq_bind_all(r->st, p, n);
    if (rc != SQLITE_OK) {
        int x = sq_err(s->db, rc, e);
        sqlite3_finalize(r->st);
        free(r);
        return x;
    }
    *out = r;
    return 0;
}

static int
sq_next(struct db_rows *r, struct err *e)
{
    int rc = sqlite3_step(r->st);
    if (rc == SQLITE_ROW)
        return 1;
    return rc == SQLITE_DONE ? 0 : sq_err(r->db, rc, e);
}

static bool
sq_col_null(struct db_rows *r, int col)
{
    return sqlite3_column_type(r->st, col) == SQLITE_NULL;
}

static int64_t
sq_col_int(struct db_rows *r, int col)
{
    return sqlite3_column_int64(r->st, col);
}

static double
sq_col_real(struct db_rows *r, int col)
{
    return sqlite3_column_double(r->st, col);
}

static const char *
sq_col_text(struct db_rows *r, int col, size_t *n)
{
    const char *t = (const char *)sqlite3_column_text(r->st, col);
    if (n != NULL)
        *n = t != NULL ? (size_t)sqlite3_column_bytes(r->st, col) : 0;
    return t;
}

static const void *
sq_col_blob(struct db_rows *r, int col, size_t *n)
{
    const void *b = sqlite3_column_blob(r->st, col);
    *n = (size_t)sqlite3_column_bytes(r->st, col);
    return b != NULL ? b : "";
}

static void
sq_rows_free(struct db_rows *r)
{
    if (r == NULL)
        return;
    sqlite3_finalize(r->st);
    free(r);
}

static int
sq_load_begin(void *conn, const char *table, const char *const *cols, size_t ncols, struct err *e)
{
    struct sq *s = conn;
    char sql[2048];
    size_t k = (size_t)snprintf(sql, sizeof sql, "INSERT INTO %s (", table);
    for (size_t i = 0; i < ncols && k < sizeof sql; i++)
        k += (size_t)snprintf(sql + k, sizeof sql - k, "%s%s", i ? ", " : "", cols[i]);
    for (size_t i = 0; i < ncols && k < sizeof sql; i++)
        k += (size_t)snprintf(sql + k, sizeof sql - k, "%s?%zu", i ? ", " : ") VALUES (", i + 1);
    if (k + 2 >= sizeof sql)
        return err_set(e, NS_ETOOBIG, "too many columns for %s", table);
    memcpy(sql + k, ")", 2);
    sqlite3_finalize(s->load);
    s->load = NULL;
    int rc = sqlite3_prepare_v2(s->db, sql, -1, &s->load, NULL);
    if (rc != SQLITE_OK)
        return sq_err(s->db, rc, e);
    s->load_cols = ncols;
    return 0;
}

static int
sq_load_row(void *conn, const struct db_val *v, struct err *e)
{
    struct sq *s = conn;
    int rc = SQLITE_OK;
    for (size_t i = 0; i < s->load_cols && rc == SQLITE_OK; i++)
        rc = sq_bind(s->load, (int)i + 1, &v[i]);
    if (rc == SQLITE_OK)
        rc = sqlite3_step(s->load);
    sqlite3_reset(s->load);
    return rc == SQLITE_DONE ? 0 : sq_err(s->db, rc, e);
}

static int
sq_load_end(void *conn, bool ok, struct err *e)
{
    (void)ok;
    (void)e;
    struct sq *s = conn;
    sqlite3_finalize(s->load);
    s->load = NULL;
    return 0;
}

const struct db_ops history_db_sqlite_ops = {
    .scheme = "sqlite",
    .open = sq_open,
    .close = sq_close,
    .writable = sq_writable,
    .exec = sq_exec,
    .begin_write = "BEGIN IMMEDIATE",
    .lock_schema = NULL,
    .has_table = sq_has_table,
    .query = sq_query,
    .rows_next = sq_next,
    .col_null = sq_col_null,
    .col_int = sq_col_int,
    .col_real = sq_col_real,
    .col_text = sq_col_text,
    .col_blob = sq_col_blob,
    .rows_free = sq_rows_free,
    .load_begin = sq_load_begin,
    .load_row = sq_load_row,
    .load_end = sq_load_end,
};
