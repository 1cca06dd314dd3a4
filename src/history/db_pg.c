/* db_pg.c - the PostgreSQL engine of the history database (dbint.h), through libpq: what a team
 * shares, and what Grafana and every managed Postgres read.
 *
 * The target is libpq's connection URI as given (postgresql://user@host/db, a socket directory
 * as ?host=/dir); a connection that does not answer gives up after DB_PG_CONNECT_TIMEOUT seconds
 * unless the URI sets connect_timeout. Values travel as text: doubles at 17 digits and read back
 * with extra_float_digits 3, so that both ways are exact. Rows are read one at a time (libpq's
 * single-row mode), so one query's rows at a time on a connection. Bulk loads use COPY. libpq's
 * notices are dropped (a library prints nothing); its errors come back one line long: the server's
 * primary message, or the first line of libpq's own. */
#include <libpq-fe.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/errors.h"
#include "history/dbint.h"

#define DB_PG_CONNECT_TIMEOUT "10"
#define DB_PG_COPY_CHUNK (1u << 20)

struct pg {
    PGconn *c;
    char *buf; /* a COPY's rows not yet sent */
    size_t len, cap;
    size_t ncols; /* of the COPY under way */
    bool copy_failed;
};

/* A query's rows, one PGresult each (libpq's single-row mode): a 100 000-trial journal written
 * back is never held whole. */
struct db_rows {
    struct pg *p;
    PGresult *res; /* the current row */
    bool done;
    unsigned char *blob; /* the last col_blob, decoded */
};

/* The first line of s, without its "ERROR:  " and trailing blanks, into e. */
static int
pg_msg(struct err *e, int code, const char *s)
{
    if (s == NULL || *s == '\0')
        s = "unknown error";
    if (strncmp(s, "ERROR:  ", 8) == 0)
        s += 8;
    size_t n = strcspn(s, "\n");
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t'))
        n--;
    return err_set(e, code, "%.*s", (int)n, s);
}

static int
pg_code_of(const char *state)
{
    if (state == NULL)
        return NS_EIO;
    if (strncmp(state, "08", 2) == 0)
        return NS_ECONNECT;
    if (strcmp(state, "40001") == 0 || strcmp(state, "40P01") == 0 || strcmp(state, "55P03") == 0)
        return NS_EBUSY;
    if (strcmp(state, "53200") == 0)
        return NS_ENOMEM;
    return NS_EIO;
}

static int
pg_res_err(struct pg *p, PGresult *r, struct err *e)
{
    const char *m = r != NULL ? PQresultErrorField(r, PG_DIAG_MESSAGE_PRIMARY) : NULL;
    int code = pg_code_of(r != NULL ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : NULL);
    if (PQstatus(p->c) != CONNECTION_OK)
        code = NS_ECONNECT;
    return pg_msg(e, code, m != NULL ? m : PQerrorMessage(p->c));
}

static void
pg_quiet(void *arg, const char *message)
{
    (void)arg;
    (void)message;
}

static int
pg_open(const char *target, bool write, void **conn, struct err *e)
{
    (void)write;
    struct pg *p = calloc(1, sizeof *p);
    if (p == NULL)
        return err_set(e, NS_ENOMEM, "out of memory");
    /* later keywords win: the URI's own connect_timeout and application_name override these */
    const char *const keys[] = {"connect_timeout", "fallback_application_name", "dbname", NULL};
    const char *const vals[] = {DB_PG_CONNECT_TIMEOUT, "netsurvey", target, NULL};
    p->c = PQconnectdbParams(keys, vals, 1);
    if (p->c == NULL) {
        free(p);
        return err_set(e, NS_ENOMEM, "out of memory");
    }
    if (PQstatus(p->c) != CONNECTION_OK) {
        int rc = pg_msg(e, NS_ECONNECT, PQerrorMessage(p->c));
        PQfinish(p->c);
        free(p);
        return rc;
    }
    PQsetNoticeProcessor(p->c, pg_quiet, NULL);
    PGresult *r = PQexec(p->c, "SET extra_float_digits = 3; SET client_encoding = 'UTF8'; "
                               "SET client_min_messages = warning");
    int rc = PQresultStatus(r) == PGRES_COMMAND_OK ? 0 : pg_res_err(p, r, e);
    PQclear(r);
    if (rc != 0) {
        PQfinish(p->c);
        free(p);
        return rc;
    }
    /* A record with its histogram is 2-4 KiB, past TOAST's threshold: lz4 compresses the
     * journal's lines in a third of the server's time pglz takes (a 100 000-trial run: server
     * CPU 2.9 -> 2.0 s), to the same size. A server built without lz4, or older than 14,
     * refuses the setting and keeps its default: nothing else changes. */
    PQclear(PQexec(p->c, "SET default_toast_compression = 'lz4'"));
    *conn = p;
    return 0;
}

static void
pg_close(void *conn)
{
    struct pg *p = conn;
    if (p == NULL)
        return;
    PQfinish(p->c);
    free(p->buf);
    free(p);
}

static bool
pg_writable(void *conn)
{
    (void)conn;
    return true; /* a role's rights show at the first write, inside its transaction */
}

static int
pg_exec(void *conn, const char *sql, struct err *e)
{
    struct pg *p = conn;
    PGresult *r = PQexec(p->c, sql);
    ExecStatusType st = PQresultStatus(r);
    int rc = st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK ? 0 : pg_res_err(p, r, e);
    PQclear(r);
    return rc;
}

/* A parameter as libpq takes it: text (owned in *tmp when it had to be made) or, for a blob,
 * binary. */
static int
pg_param(const struct db_val *v, const char **out, int *len, int *fmt, char **tmp)
{
    char b[64];
    *tmp = NULL;
    *fmt = 0;
    *len = 0;
    switch (v->t) {
    case DB_NULL:
        *out = NULL;
        return 0;
    case DB_INT:
        snprintf(b, sizeof b, "%lld", (long long)v->i);
        break;
    case DB_BOOL:
        snprintf(b, sizeof b, "%s", v->i ? "t" : "f");
        break;
    case DB_REAL:
        if (isnan(v->d))
            snprintf(b, sizeof b, "NaN");
        else if (isinf(v->d))
            snprintf(b, sizeof b, "%sInfinity", v->d < 0 ? "-" : "");
        else
            snprintf(b, sizeof b, "%.17g", v->d);
        break;
    case DB_TEXT:
        *tmp = strndup(v->s != NULL ? v->s : "", v->n);
        *out = *tmp;
        return *tmp != NULL ? 0 : NS_ENOMEM;
    case DB_BLOB:
        *out = v->s;
        *len = (int)v->n;
        *fmt = 1;
        return 0;
    }
    *tmp = strdup(b);
    *out = *tmp;
    return *tmp != NULL ? 0 : NS_ENOMEM;
}

static int
pg_has_table(void *conn, const char *name, bool *yes, struct err *e)
{
    struct pg *p = conn;
    const char *v[] = {name};
    PGresult *r =
        PQexecParams(p->c, "SELECT to_regclass($1) IS NOT NULL", 1, NULL, v, NULL, NULL, 0);
    int rc = PQresultStatus(r) == PGRES_TUPLES_OK ? 0 : pg_res_err(p, r, e);
    if (rc == 0)
        *yes = PQntuples(r) == 1 && PQgetvalue(r, 0, 0)[0] == 't';
    PQclear(r);
    return rc;
}

static int
pg_query(void *conn, const char *sql, const struct db_val *pv, size_t n, struct db_rows **out,
         struct err *e)
{
    struct pg *p = conn;
    const char **vals = calloc(n ? n : 1, sizeof *vals);
    int *lens = calloc(n ? n : 1, sizeof *lens), *fmts = calloc(n ? n : 1, sizeof *fmts);
    char **tmps = calloc(n ? n : 1, sizeof *tmps);
    struct db_rows *rows = calloc(1, sizeof *rows);
    int rc = vals && lens && fmts && tmps && rows ? 0 : NS_ENOMEM;
    for (size_t i = 0; rc == 0 && i < n; i++)
        rc = pg_param(&pv[i], &vals[i], &lens[i], &fmts[i], &tmps[i]);
    if (rc != 0)
        err_set(e, rc, "out of memory");
    else if (PQsendQueryParams(p->c, sql, (int)n, NULL, vals, lens, fmts, 0) != 1)
        rc =
            pg_msg(e, PQstatus(p->c) == CONNECTION_OK ? NS_EIO : NS_ECONNECT, PQerrorMessage(p->c));
    else
        PQsetSingleRowMode(p->c);
    for (size_t i = 0; tmps != NULL && i < n; i++)
        free(tmps[i]);
    free(vals);
    free(lens);
    free(fmts);
    free(tmps);
    if (rc != 0) {
        free(rows);
        return rc;
    }
    rows->p = p;
    *out = rows;
    return 0;
}

/* What is left of the query's results read and dropped: the connection takes the next one. */
static void
pg_drain(struct db_rows *r)
{
    PQclear(r->res);
    r->res = NULL;
    PGresult *x;
    while ((x = PQgetResult(r->p->c)) != NULL)
        PQclear(x);
    r->done = true;
}

static int
pg_next(struct db_rows *r, struct err *e)
{
    PQfreemem(r->blob);
    r->blob = NULL;
    if (r->done)
        return 0;
    PQclear(r->res);
    r->res = PQgetResult(r->p->c);
    ExecStatusType st = r->res != NULL ? PQresultStatus(r->res) : PGRES_COMMAND_OK;
    if (st == PGRES_SINGLE_TUPLE)
        return 1;
    int rc = st == PGRES_TUPLES_OK || st == PGRES_COMMAND_OK ? 0 : pg_res_err(r->p, r->res, e);
    pg_drain(r);
    return rc;
}

static bool
pg_col_null(struct db_rows *r, int col)
{
    return PQgetisnull(r->res, 0, col) != 0;
}

static int64_t
pg_col_int(struct db_rows *r, int col)
{
    const char *v = PQgetvalue(r->res, 0, col);
    if (v[0] == 't' || v[0] == 'f') /* a boolean read as a number */
        return v[0] == 't';
    return strtoll(v, NULL, 10);
}

static double
pg_col_real(struct db_rows *r, int col)
{
    return strtod(PQgetvalue(r->res, 0, col), NULL); /* "NaN", "Infinity" read too */
}

static const char *
pg_col_text(struct db_rows *r, int col, size_t *n)
{
    if (PQgetisnull(r->res, 0, col)) {
        if (n != NULL)
            *n = 0;
        return NULL;
    }
    if (n != NULL)
        *n = (size_t)PQgetlength(r->res, 0, col);
    return PQgetvalue(r->res, 0, col);
}

static const void *
pg_col_blob(struct db_rows *r, int col, size_t *n)
{
    PQfreemem(r->blob);
    size_t len = 0;
    r->blob = PQunescapeBytea((const unsigned char *)PQgetvalue(r->res, 0, col), &len);
    *n = r->blob != NULL ? len : 0;
    return r->blob;
}

static void
pg_rows_free(struct db_rows *r)
{
    if (r == NULL)
        return;
    PQfreemem(r->blob);
    if (!r->done)
        pg_drain(r);
    free(r);
}

/* --- COPY ----------------------------------------------------------------------------------- */

static bool
buf_room(struct pg *p, size_t more)
{
    if (p->len + more <= p->cap)
        return true;
    size_t cap = p->cap ? p->cap : DB_PG_COPY_CHUNK * 2;
    while (cap < p->len + more)
        cap *= 2;
    char *b = realloc(p->buf, cap);
    if (b == NULL)
        return false;
    p->buf = b;
    p->cap = cap;
    return true;
}

/* COPY's text format: a backslash, tab, newline and carriage return escaped. */
static void
copy_text(struct pg *p, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        const char *esc = c == '\\'   ? "\\\\"
                          : c == '\t' ? "\\t"
                          : c == '\n' ? "\\n"
                          : c == '\r' ? "\\r"
                                      : NULL;
        if (esc != NULL) {
            memcpy(p->buf + p->len, esc, 2);
            p->len += 2;
        } else {
            p->buf[p->len++] = c;
        }
    }
}

static void
copy_blob(struct pg *p, const unsigned char *s, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    memcpy(p->buf + p->len, "\\\\x", 3); /* bytea's hex form, its backslash escaped for COPY */
    p->len += 3;
    for (size_t i = 0; i < n; i++) {
        p->buf[p->len++] = hex[s[i] >> 4];
        p->buf[p->len++] = hex[s[i] & 15];
    }
}

static int
pg_flush(struct pg *p, struct err *e)
{
    if (p->len == 0)
        return 0;
    if (PQputCopyData(p->c, p->buf, (int)p->len) != 1) {
        p->copy_failed = true;
        return pg_msg(e, NS_EIO, PQerrorMessage(p->c));
    }
    p->len = 0;
    return 0;
}

static int
pg_load_begin(void *conn, const char *table, const char *const *cols, size_t ncols, struct err *e)
{
    struct pg *p = conn;
    char sql[2048];
    size_t k = (size_t)snprintf(sql, sizeof sql, "COPY %s (", table);
    for (size_t i = 0; i < ncols && k < sizeof sql; i++)
        k += (size_t)snprintf(sql + k, sizeof sql - k, "%s%s", i ? ", " : "", cols[i]);
    if (k + 16 >= sizeof sql)
        return err_set(e, NS_ETOOBIG, "too many columns for %s", table);
    snprintf(sql + k, sizeof sql - k, ") FROM STDIN");
    PGresult *r = PQexec(p->c, sql);
    int rc = PQresultStatus(r) == PGRES_COPY_IN ? 0 : pg_res_err(p, r, e);
    PQclear(r);
    p->len = 0;
    p->ncols = ncols;
    p->copy_failed = false;
    return rc;
}

static int
pg_load_row(void *conn, const struct db_val *v, struct err *e)
{
    struct pg *p = conn;
    size_t need = 1;
    for (size_t i = 0; i < p->ncols; i++)
        need += 1 + (v[i].t == DB_TEXT ? 2 * v[i].n : v[i].t == DB_BLOB ? 2 * v[i].n + 3 : 40);
    if (!buf_room(p, need))
        return err_set(e, NS_ENOMEM, "out of memory");
    for (size_t i = 0; i < p->ncols; i++) {
        if (i > 0)
            p->buf[p->len++] = '\t';
        const struct db_val *x = &v[i];
        switch (x->t) {
        case DB_NULL:
            memcpy(p->buf + p->len, "\\N", 2);
            p->len += 2;
            break;
        case DB_INT:
            p->len += (size_t)snprintf(p->buf + p->len, 40, "%lld", (long long)x->i);
            break;
        case DB_BOOL:
            p->buf[p->len++] = x->i ? 't' : 'f';
            break;
        case DB_REAL:
            p->len += (size_t)(isnan(x->d)   ? snprintf(p->buf + p->len, 40, "NaN")
                               : isinf(x->d) ? snprintf(p->buf + p->len, 40, "%sInfinity",
                                                        x->d < 0 ? "-" : "")
                                             : snprintf(p->buf + p->len, 40, "%.17g", x->d));
            break;
        case DB_TEXT:
            copy_text(p, x->s != NULL ? x->s : "", x->n);
            break;
        case DB_BLOB:
            copy_blob(p, (const unsigned char *)x->s, x->n);
            break;
        }
    }
    p->buf[p->len++] = '\n';
    return p->len >= DB_PG_COPY_CHUNK ? pg_flush(p, e) : 0;
}

static int
pg_load_end(void *conn, bool ok, struct err *e)
{
    struct pg *p = conn;
    int rc = ok && !p->copy_failed ? pg_flush(p, e) : 0;
    if (PQputCopyEnd(p->c, ok && rc == 0 ? NULL : "netsurvey: load abandoned") != 1 && rc == 0)
        rc = pg_msg(e, NS_EIO, PQerrorMessage(p->c));
    PGresult *r;
    while ((r = PQgetResult(p->c)) != NULL) {
        if (PQresultStatus(r) != PGRES_COMMAND_OK && rc == 0 && ok)
            rc = pg_res_err(p, r, e);
        PQclear(r);
    }
    p->len = 0;
    return rc;
}

const struct db_ops history_db_pg_ops = {
    .scheme = "postgresql",
    .open = pg_open,
    .close = pg_close,
    .writable = pg_writable,
    .exec = pg_exec,
    .begin_write = "BEGIN",
    /* any constant: every netsurvey takes the same one */
    .lock_schema = "SELECT pg_advisory_xact_lock(7316802951)",
    .has_table = pg_has_table,
    .query = pg_query,
    .rows_next = pg_next,
    .col_null = pg_col_null,
    .col_int = pg_col_int,
    .col_real = pg_col_real,
    .col_text = pg_col_text,
    .col_blob = pg_col_blob,
    .rows_free = pg_rows_free,
    .load_begin = pg_load_begin,
    .load_row = pg_load_row,
    .load_end = pg_load_end,
};
