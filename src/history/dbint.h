/* dbint.h - the history database (internal to src/history): a connection to SQLite or
 * PostgreSQL behind one table of operations per engine (db_sqlite.c, db_pg.c), in the manner of
 * transport's struct transport_ops, and what every user of it shares: URLs, the schema and its
 * versions (schema.sql), statements with parameters, rows, bulk loads, transactions.
 *
 * What differs between the engines is here and in the two drivers only: statements are written
 * once, with PostgreSQL's $1, $2 ... parameters (SQLite reads them as named parameters), and the
 * schema's types are PostgreSQL's names, which SQLite reads by their affinity. Values go in and
 * come out typed (struct db_val; the drivers convert), doubles exactly (PostgreSQL's text form
 * is read with extra_float_digits 3, written at 17 digits). */
#ifndef NS_HISTORY_DBINT_H
#define NS_HISTORY_DBINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

struct err;

/* The schema version this netsurvey writes and reads (schema.sql is version 1). */
#define DB_SCHEMA_VERSION 1
#define DB_APPLICATION "netsurvey"

/* The tables that hold a run's rows, each referring to the ones after it (runs last): the order
 * its rows are deleted in when it is published again. */
#define DB_RUN_TABLES 7
extern const char *const history_db_run_tables[DB_RUN_TABLES];

enum db_type { DB_NULL, DB_INT, DB_REAL, DB_TEXT, DB_BOOL, DB_BLOB };

/* A parameter or a loaded value. s is borrowed (n bytes; DB_TEXT need not end in NUL). */
struct db_val {
    enum db_type t;
    int64_t i; /* DB_INT; DB_BOOL: 0 or 1 */
    double d;  /* DB_REAL */
    const char *s;
    size_t n;
};

static inline struct db_val
db_null(void)
{
    return (struct db_val){.t = DB_NULL};
}
static inline struct db_val
db_int(int64_t i)
{
    return (struct db_val){.t = DB_INT, .i = i};
}
static inline struct db_val
db_real(double d)
{
    return (struct db_val){.t = DB_REAL, .d = d};
}
static inline struct db_val
db_bool(bool b)
{
    return (struct db_val){.t = DB_BOOL, .i = b};
}
/* s may be NULL: a NULL value. */
struct db_val history_db_text(const char *s);
struct db_val history_db_textn(const char *s, size_t n);
struct db_val history_db_blob(const void *p, size_t n);

/* A query's rows, read one at a time. */
struct db_rows;

/* One engine. conn and rows are the driver's own. Every function returns 0 or NS_E* with the
 * engine's message (one line) in e; the caller prefixes the database. */
struct db_ops {
    const char *scheme; /* "sqlite", "postgresql" */
    /* Open target (what follows the scheme: a path, or libpq's conninfo URI), for writing (a
     * missing SQLite file is created) or reading only (a missing one is NS_ENOTFOUND). */
    int (*open)(const char *target, bool write, void **conn, struct err *e);
    void (*close)(void *conn);
    /* Whether the connection can write at all (a read-only SQLite file: false). */
    bool (*writable)(void *conn);
    /* One or more statements without parameters or rows (the schema, BEGIN, COMMIT). */
    int (*exec)(void *conn, const char *sql, struct err *e);
    /* The statement that starts a transaction that writes: SQLite takes the write lock at once
     * (BEGIN IMMEDIATE), so that two writers queue instead of failing halfway. */
    const char *begin_write;
    /* The statement, run first inside it, that makes two netsurveys migrating one database at
     * once take turns (PostgreSQL: an advisory lock; SQLite: nothing, BEGIN IMMEDIATE did). */
    const char *lock_schema;
    /* Whether a table of that name exists. */
    int (*has_table)(void *conn, const char *name, bool *yes, struct err *e);
    /* One statement with parameters $1..$n; rows are read with rows_next. */
    int (*query)(void *conn, const char *sql, const struct db_val *p, size_t n,
                 struct db_rows **out, struct err *e);
    /* 1: a row is there, 0: no more, or NS_E*. */
    int (*rows_next)(struct db_rows *r, struct err *e);
    bool (*col_null)(struct db_rows *r, int col);
    int64_t (*col_int)(struct db_rows *r, int col);
    double (*col_real)(struct db_rows *r, int col);
    /* Text (borrowed until the next row; NULL for NULL), its length in *n when n is not NULL. */
    const char *(*col_text)(struct db_rows *r, int col, size_t *n);
    /* A BYTEA/BLOB column, decoded, owned by the rows until the next row. */
    const void *(*col_blob)(struct db_rows *r, int col, size_t *n);
    void (*rows_free)(struct db_rows *r);
    /* Rows into table, many at once (PostgreSQL: COPY; SQLite: one prepared INSERT). */
    int (*load_begin)(void *conn, const char *table, const char *const *cols, size_t ncols,
                      struct err *e);
    int (*load_row)(void *conn, const struct db_val *v, struct err *e);
    int (*load_end)(void *conn, bool ok, struct err *e);
};

extern const struct db_ops history_db_sqlite_ops;
extern const struct db_ops history_db_pg_ops;

/* An open database. */
struct db {
    const struct db_ops *ops;
    void *conn;
    char *shown; /* the URL as messages show it: its password masked */
    bool write;
};

/* The URL's password masked with "***" (userinfo, password= and ?password=): what every
 * message shows of a URL. Caller frees; NULL when out of memory. */
char *history_db_url_redact(const char *url);

/* The engine of a URL and what follows its scheme: sqlite:PATH, sqlite:///ABS/PATH,
 * postgresql://..., postgres://... . NS_EINVAL (e says what a URL looks like) for anything else;
 * *target points into url. */
int history_db_url_parse(const char *url, const struct db_ops **ops, const char **target,
                         struct err *e);

/* Open url for writing (the schema created or migrated, in one transaction) or reading (the
 * schema must be there and not newer than DB_SCHEMA_VERSION). *out owned: history_db_close. Errors
 * name the database as shown. */
int history_db_open(const char *url, bool write, struct db **out, struct err *e);
void history_db_close(struct db *db);

/* The schema version the database holds (0: none), NS_EPROTO when it holds tables of another
 * schema. */
int history_db_schema_version(struct db *db, int *version, struct err *e);

/* Thin wrappers over db->ops, with the database's name prefixed to a message. */
int history_db_exec(struct db *db, const char *sql, struct err *e);
int history_db_query(struct db *db, const char *sql, const struct db_val *p, size_t n,
                     struct db_rows **out, struct err *e);
int history_db_next(struct db *db, struct db_rows *r, struct err *e);
void history_db_rows_free(struct db *db, struct db_rows *r);
bool history_db_col_null(struct db *db, struct db_rows *r, int col);
int64_t history_db_col_int(struct db *db, struct db_rows *r, int col);
double history_db_col_real(struct db *db, struct db_rows *r, int col);
const char *history_db_col_text(struct db *db, struct db_rows *r, int col, size_t *n);
const void *history_db_col_blob(struct db *db, struct db_rows *r, int col, size_t *n);
/* A statement with parameters whose rows, if any, are not read (INSERT, DELETE). */
int history_db_run(struct db *db, const char *sql, const struct db_val *p, size_t n, struct err *e);
/* The one value of a query that returns one row and column: an integer (*found false when
 * there is no row or it is NULL). */
int history_db_query_int(struct db *db, const char *sql, const struct db_val *p, size_t n,
                         int64_t *v, bool *found, struct err *e);

int history_db_load_begin(struct db *db, const char *table, const char *const *cols, size_t ncols,
                          struct err *e);
int history_db_load_row(struct db *db, const struct db_val *v, struct err *e);
int history_db_load_end(struct db *db, bool ok, struct err *e);

/* A writing transaction: begin, then commit or roll back (rollback never fails loudly). */
int history_db_begin(struct db *db, struct err *e);
int history_db_commit(struct db *db, struct err *e);
void history_db_rollback(struct db *db);

/* The run_id run.json gives in the run directory dir, or NULL (none, unreadable, out of memory):
 * whose directory an output folder of a --db command is (it may be one of the runs read, never
 * another run's). Caller frees. */
char *history_db_dir_run_id(const char *dir);

/* The summary of the run run_id of the database url, as report_summary_read gives it for the
 * run's directory (without pairs and failures: compare reads neither), that directory named by
 * the run_id. New reference in *sum, made in jansson's current allocator. *db_failed: the
 * database was the problem (or has no such run), not the URL. */
int history_db_summary(const char *url, const char *run_id, json_t **sum, bool *db_failed,
                       struct err *e);

/* --- a summary's objects as rows ------------------------------------------------------------- */

/* A column of a table that holds a JSON object's members (runs: a summary's run; scenarios:
 * its scenarios; cells: their zone and region cells): the member key (a path, "a.b": member b
 * of object a) of the type t. What a row has no column for is kept as the row's JSON "extra",
 * so that the object comes back whole (dbj_join(history_dbj_split(o)) equals o): a member of
 * another type than its column's, and members a later netsurvey adds, survive a database of this
 * schema. */
enum dbj_type { DBJ_TEXT, DBJ_INT, DBJ_REAL, DBJ_BOOL, DBJ_JSON };

struct dbj_col {
    const char *col, *key;
    enum dbj_type t;
    bool full; /* a member of the full form only (report_summary_read's summary), which the
                * cells form (report_cells_read's) lacks: the RTT percentiles, stat matrices */
};

/* Which summary a row is read back as: compare's (report_summary_read) or trend's
 * (report_cells_read), which lacks the full form's members (and never pays for them). */
enum dbj_form { DBJ_FULL, DBJ_CELLS };

struct dbj_table {
    const struct dbj_col *cols;
    size_t n;
};

/* The columns of a summary's run (and its plan, tool and trials), of a scenario (but its cells,
 * pairs and failures) and of a cell (but its zone labels). */
extern const struct dbj_table history_dbj_run, history_dbj_scenario, history_dbj_cell;

/* o's members into vals[0..t->n) (borrowing o's strings; JSON columns' text owned in
 * texts[i]), and what has no column as JSON text in *extra (NULL when nothing is left). texts
 * has t->n entries; free them and *extra with history_dbj_texts_free. Returns 0 or NS_ENOMEM. */
int history_dbj_split(const struct dbj_table *t, const json_t *o, struct db_val *vals, char **texts,
                      char **extra);
void history_dbj_texts_free(char **texts, size_t n, char *extra);

/* The object of a row: o (a new one when NULL: o's own members are kept), extra's members (JSON
 * text or NULL), then each non-NULL column of t in form, read from the row's columns from col0
 * on in the order of history_dbj_select_list. NULL (o released) when out of memory or extra is not
 * an object. */
json_t *history_dbj_join_into(json_t *o, const struct dbj_table *t, enum dbj_form form,
                              struct db *db, struct db_rows *r, int col0, const char *extra);

/* v as compact JSON text, reals at 17 digits (exact), in memory of malloc's (not jansson's,
 * which may be the report's arena: report/output.h): the caller frees. NULL when out of memory. */
char *history_dbj_dump(const json_t *v);

/* The columns of t in form as SQL: "a, b, c". */
void history_dbj_select_list(const struct dbj_table *t, enum dbj_form form, char *buf, size_t len);

#endif
