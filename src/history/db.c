/* db.c - the history database's URLs, its schema and versions, and the calls every user of it
 * makes (dbint.h), whatever the engine.
 *
 * The schema is a list of migrations, each a compiled-in SQL file applied in one transaction
 * with its row in schema_version (schema.sql is version 1). A database is refused, before
 * anything is read or written, when it holds a newer version than this netsurvey's, or tables
 * of netsurvey's names that another schema made; a reader never creates or migrates one. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/errors.h"
#include "common/fsdir.h"
#include "history/dbint.h"
#include "history/history.h"
#include "journal/journal.h"

extern const unsigned char ns_sql_schema_sql[];

static const struct {
    int version;
    const unsigned char *sql;
} migrations[] = {
    {1, ns_sql_schema_sql},
};

const char *const history_db_run_tables[DB_RUN_TABLES] = {
    "journal_lines", "trials", "cell_buckets", "cells", "scenarios", "hosts", "runs"};

/* The tables and views of the schema, to tell a database of another schema. */
static const char *const schema_names[] = {
    "runs",
    "hosts",
    "scenarios",
    "cells",
    "cell_buckets",
    "trials",
    "journal_lines",
    "zone_pair_history",
    "zone_matrix_latest",
    "cell_rtt_buckets",
};

struct db_val
history_db_text(const char *s)
{
    return s != NULL ? (struct db_val){.t = DB_TEXT, .s = s, .n = strlen(s)} : db_null();
}

struct db_val
history_db_textn(const char *s, size_t n)
{
    return s != NULL ? (struct db_val){.t = DB_TEXT, .s = s, .n = n} : db_null();
}

struct db_val
history_db_blob(const void *p, size_t n)
{
    return (struct db_val){.t = DB_BLOB, .s = p, .n = n};
}

/* --- URLs ----------------------------------------------------------------------------------- */

#define DB_URL_FORMS "sqlite:PATH, sqlite:///ABSOLUTE/PATH or postgresql://[USER@]HOST[:PORT]/DB"

int
history_db_url_parse(const char *url, const struct db_ops **ops, const char **target, struct err *e)
{
    if (strncmp(url, "sqlite:", 7) == 0) {
        const char *t = url + 7;
        if (strncmp(t, "//", 2) == 0) {
            if (t[2] != '/')
                return err_set(e, NS_EINVAL,
                               "'%.200s': a sqlite URL names a file, not a host: sqlite:PATH or "
                               "sqlite:///ABSOLUTE/PATH",
                               url);
            t += 2;
        }
        if (*t == '\0')
            return err_set(e, NS_EINVAL, "'%.200s': no file after sqlite:", url);
        *ops = &history_db_sqlite_ops;
        *target = t;
        return 0;
    }
    if (strncmp(url, "postgresql://", 13) == 0 || strncmp(url, "postgres://", 11) == 0) {
        *ops = &history_db_pg_ops;
        *target = url;
        return 0;
    }
    char *shown = history_db_url_redact(url);
    int rc = err_set(e, NS_EINVAL, "'%.200s' is not a database URL: %s", shown ? shown : "",
                     DB_URL_FORMS);
    free(shown);
    return rc;
}

bool
history_db_is_file(const char *url, const char *path)
{
    const struct db_ops *ops;
    const char *target;
    struct err e = {0};
    if (url == NULL || path == NULL || history_db_url_parse(url, &ops, &target, &e) != 0 ||
        ops != &history_db_sqlite_ops)
        return false;
    static const char *const suffixes[] = {"", "-journal", "-wal", "-shm"};
    for (size_t i = 0; i < sizeof suffixes / sizeof *suffixes; i++) {
        char p[PATH_MAX];
        if ((size_t)snprintf(p, sizeof p, "%s%s", target, suffixes[i]) < sizeof p &&
            fsdir_same(path, p))
            return true;
    }
    return false;
}

char *
history_db_dir_run_id(const char *dir)
{
    struct journal_run *run = NULL;
    struct err e = {0};
    char *id = NULL;
    if (journal_read_run(dir, &run, &e) == 0 && run->run_id != NULL)
        id = strdup(run->run_id);
    journal_run_free(run);
    return id;
}

/* Mask from s up to the first of stops (or the end) with "***"; returns where the mask ends in
 * the output. */
static void
mask_until(char **out, const char **s, const char *stops)
{
    size_t n = strcspn(*s, stops);
    memcpy(*out, "***", 3);
    *out += 3;
    *s += n;
}

char *
history_db_url_redact(const char *url)
{
    size_t len = strlen(url);
    char *r = malloc(len + 4 * (len / 9 + 2)); /* "***" may be longer than what it masks */
    if (r == NULL)
        return NULL;
    char *o = r;
    const char *s = url;
    const char *scheme = strstr(url, "://");
    if (scheme != NULL && strncmp(url, "sqlite:", 7) != 0) {
        const char *auth = scheme + 3;
        size_t alen = strcspn(auth, "/?#");
        const char *at = NULL;
        for (const char *p = auth; p < auth + alen; p++)
            if (*p == '@')
                at = p;
        const char *colon = at != NULL ? memchr(auth, ':', (size_t)(at - auth)) : NULL;
        if (colon != NULL) {
            memcpy(o, url, (size_t)(colon + 1 - url));
            o += colon + 1 - url;
            memcpy(o, "***", 3);
            o += 3;
            s = at;
        }
    }
    while (*s != '\0') {
        /* password=... in a query string or a conninfo's words */
        if (strncmp(s, "password=", 9) == 0 && (s == url || strchr("?& \t", s[-1]) != NULL)) {
            memcpy(o, s, 9);
            o += 9;
            s += 9;
            mask_until(&o, &s, "& \t#");
            continue;
        }
        *o++ = *s++;
    }
    *o = '\0';
    return r;
}

/* --- wrappers ------------------------------------------------------------------------------- */

static int
db_fail(struct db *db, int rc, struct err *e)
{
    return err_wrap(e, rc, "%s", db->shown);
}

int
history_db_exec(struct db *db, const char *sql, struct err *e)
{
    int rc = db->ops->exec(db->conn, sql, e);
    return rc != 0 ? db_fail(db, rc, e) : 0;
}

int
history_db_query(struct db *db, const char *sql, const struct db_val *p, size_t n,
                 struct db_rows **out, struct err *e)
{
    int rc = db->ops->query(db->conn, sql, p, n, out, e);
    return rc != 0 ? db_fail(db, rc, e) : 0;
}

int
history_db_next(struct db *db, struct db_rows *r, struct err *e)
{
    int rc = db->ops->rows_next(r, e);
    return rc < 0 ? db_fail(db, rc, e) : rc;
}

void
history_db_rows_free(struct db *db, struct db_rows *r)
{
    if (r != NULL)
        db->ops->rows_free(r);
}

bool
history_db_col_null(struct db *db, struct db_rows *r, int col)
{
    return db->ops->col_null(r, col);
}

int64_t
history_db_col_int(struct db *db, struct db_rows *r, int col)
{
    return db->ops->col_int(r, col);
}

double
history_db_col_real(struct db *db, struct db_rows *r, int col)
{
    return db->ops->col_real(r, col);
}

const char *
history_db_col_text(struct db *db, struct db_rows *r, int col, size_t *n)
{
    return db->ops->col_text(r, col, n);
}

const void *
history_db_col_blob(struct db *db, struct db_rows *r, int col, size_t *n)
{
    return db->ops->col_blob(r, col, n);
}

int
history_db_run(struct db *db, const char *sql, const struct db_val *p, size_t n, struct err *e)
{
    struct db_rows *r = NULL;
    int rc = history_db_query(db, sql, p, n, &r, e);
    if (rc != 0)
        return rc;
    while ((rc = history_db_next(db, r, e)) == 1)
        ;
    history_db_rows_free(db, r);
    return rc;
}

int
history_db_query_int(struct db *db, const char *sql, const struct db_val *p, size_t n, int64_t *v,
                     bool *found, struct err *e)
{
    struct db_rows *r;
    int rc = history_db_query(db, sql, p, n, &r, e);
    if (rc != 0)
        return rc;
    *found = false;
    rc = history_db_next(db, r, e);
    if (rc == 1 && !history_db_col_null(db, r, 0)) {
        *v = history_db_col_int(db, r, 0);
        *found = true;
    }
    history_db_rows_free(db, r);
    return rc < 0 ? rc : 0;
}

int
history_db_load_begin(struct db *db, const char *table, const char *const *cols, size_t ncols,
                      struct err *e)
{
    int rc = db->ops->load_begin(db->conn, table, cols, ncols, e);
    return rc != 0 ? db_fail(db, rc, e) : 0;
}

int
history_db_load_row(struct db *db, const struct db_val *v, struct err *e)
{
    int rc = db->ops->load_row(db->conn, v, e);
    return rc != 0 ? db_fail(db, rc, e) : 0;
}

int
history_db_load_end(struct db *db, bool ok, struct err *e)
{
    int rc = db->ops->load_end(db->conn, ok, e);
    return rc != 0 ? db_fail(db, rc, e) : 0;
}

int
history_db_begin(struct db *db, struct err *e)
{
    return history_db_exec(db, db->ops->begin_write, e);
}

int
history_db_commit(struct db *db, struct err *e)
{
    return history_db_exec(db, "COMMIT", e);
}

void
history_db_rollback(struct db *db)
{
    struct err ignored = {0};
    db->ops->exec(db->conn, "ROLLBACK", &ignored);
}

/* --- the schema ----------------------------------------------------------------------------- */

int
history_db_schema_version(struct db *db, int *version, struct err *e)
{
    bool has;
    *version = 0;
    int rc = db->ops->has_table(db->conn, "schema_version", &has, e);
    if (rc != 0)
        return db_fail(db, rc, e);
    if (!has) {
        for (size_t i = 0; i < sizeof schema_names / sizeof schema_names[0]; i++) {
            if ((rc = db->ops->has_table(db->conn, schema_names[i], &has, e)) != 0)
                return db_fail(db, rc, e);
            if (has)
                return err_set(e, NS_EPROTO,
                               "%s: holds a table '%s' but no schema_version: not a netsurvey "
                               "history database (another schema)",
                               db->shown, schema_names[i]);
        }
        return 0;
    }
    /* the table read at all (a role without rights, a damaged file: said as they are) ... */
    int64_t v = 0, foreign = 0;
    bool found;
    rc = history_db_query_int(db, "SELECT count(*) FROM schema_version", NULL, 0, &v, &found, e);
    if (rc != 0)
        return rc;
    /* ... then another tool's: other columns, or rows of its own */
    struct db_val app = history_db_text(DB_APPLICATION);
    struct err qe = {0};
    if (history_db_query_int(db, "SELECT count(*) FROM schema_version WHERE application <> $1",
                             &app, 1, &foreign, &found, &qe) != 0 ||
        foreign > 0)
        return err_set(e, NS_EPROTO,
                       "%s: its schema_version table is not netsurvey's (another schema)",
                       db->shown);
    rc =
        history_db_query_int(db, "SELECT max(version) FROM schema_version", NULL, 0, &v, &found, e);
    if (rc != 0)
        return rc;
    *version = found ? (int)v : 0;
    return 0;
}

/* Apply the migrations after version, in one transaction that every other netsurvey migrating
 * the same database waits for (and then finds nothing left to do). */
static int
db_migrate(struct db *db, struct err *e)
{
    int rc = history_db_begin(db, e);
    if (rc != 0)
        return rc;
    if (db->ops->lock_schema != NULL)
        rc = history_db_exec(db, db->ops->lock_schema, e);
    int version = 0;
    if (rc == 0)
        rc = history_db_schema_version(db, &version, e);
    char now[40];
    clock_wall_iso8601(now, sizeof now);
    for (size_t i = 0; rc == 0 && i < sizeof migrations / sizeof migrations[0]; i++) {
        if (migrations[i].version <= version)
            continue;
        rc = history_db_exec(db, (const char *)migrations[i].sql, e);
        struct db_val v[] = {db_int(migrations[i].version), history_db_text(DB_APPLICATION),
                             history_db_text(now), history_db_text(NS_VERSION)};
        if (rc == 0)
            rc = history_db_run(db,
                                "INSERT INTO schema_version (version, application, applied_at, "
                                "netsurvey) VALUES ($1, $2, $3, $4)",
                                v, 4, e);
    }
    if (rc == 0)
        rc = history_db_commit(db, e);
    if (rc != 0) {
        history_db_rollback(db);
        err_prefix(e, "creating the schema");
    }
    return rc;
}

void
history_db_close(struct db *db)
{
    if (db == NULL)
        return;
    if (db->conn != NULL)
        db->ops->close(db->conn);
    free(db->shown);
    free(db);
}

/* Whether every table takes rows and gives them up (a PostgreSQL role's rights, a read-only
 * file), found in a transaction that writes nothing and is rolled back: before a run is read,
 * and before a survey that will publish. */
static int
db_probe_write(struct db *db, struct err *e)
{
    int rc = db->ops->exec(db->conn, db->ops->begin_write, e);
    for (size_t i = 0; rc == 0 && i < DB_RUN_TABLES; i++) {
        char sql[256];
        const char *t = history_db_run_tables[i];
        int k = snprintf(sql, sizeof sql,
                         "INSERT INTO %s SELECT * FROM %s WHERE 1 = 0; DELETE FROM %s WHERE 1 = 0",
                         t, t, t);
        if (strcmp(t, "runs") == 0 && k > 0 &&
            (size_t)k < sizeof sql) /* its line count is updated */
            snprintf(sql + k, sizeof sql - (size_t)k, "; UPDATE %s SET run_id = run_id WHERE 1 = 0",
                     t);
        rc = db->ops->exec(db->conn, sql, e);
    }
    history_db_rollback(db);
    return rc != 0 ? err_wrap(e, rc, "%s: cannot be written", db->shown) : 0;
}

static int
db_check_version(struct db *db, struct err *e)
{
    int version;
    int rc = history_db_schema_version(db, &version, e);
    if (rc != 0)
        return rc;
    if (version > DB_SCHEMA_VERSION)
        return err_set(e, NS_EPROTO,
                       "%s: its schema is version %d, newer than this netsurvey's (%d): read "
                       "and publish to it with the netsurvey that wrote it, or a newer one",
                       db->shown, version, DB_SCHEMA_VERSION);
    if (db->write) {
        if (!db->ops->writable(db->conn))
            return err_set(e, NS_EIO, "%s: cannot be written: the database is read-only",
                           db->shown);
        rc = version < DB_SCHEMA_VERSION ? db_migrate(db, e) : 0;
        return rc != 0 ? rc : db_probe_write(db, e);
    }
    if (version == 0)
        return err_set(e, NS_ENOTFOUND, "%s: holds no netsurvey history (nothing published)",
                       db->shown);
    if (version < DB_SCHEMA_VERSION)
        return err_set(e, NS_EPROTO,
                       "%s: its schema is version %d, older than this netsurvey's (%d): "
                       "publish to it once with this netsurvey to upgrade it",
                       db->shown, version, DB_SCHEMA_VERSION);
    return 0;
}

int
history_db_open(const char *url, bool write, struct db **out, struct err *e)
{
    const struct db_ops *ops;
    const char *target;
    int rc = history_db_url_parse(url, &ops, &target, e);
    if (rc != 0)
        return rc;
    struct db *db = calloc(1, sizeof *db);
    if (db == NULL || (db->shown = history_db_url_redact(url)) == NULL) {
        free(db);
        return err_set(e, NS_ENOMEM, "out of memory");
    }
    db->ops = ops;
    db->write = write;
    rc = ops->open(target, write, &db->conn, e);
    if (rc != 0) {
        db->conn = NULL;
        db_fail(db, rc, e);
    } else {
        rc = db_check_version(db, e);
    }
    if (rc != 0) {
        history_db_close(db);
        return rc;
    }
    *out = db;
    return 0;
}

int
history_db_check(const char *url, struct err *e)
{
    struct db *db;
    int rc = history_db_open(url, true, &db, e);
    if (rc == 0)
        history_db_close(db);
    return rc;
}
