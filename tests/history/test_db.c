/* test_db.c - the history database, in-process, on SQLite files (tests/history/test_db.py drives
 * the command line against SQLite and a real PostgreSQL):
 *  - URLs: the forms taken and refused, and a password never shown (userinfo, ?password=,
 *    password= words);
 *  - what compare and trend read back: every fixture journal published, then read back as
 *    compare reads it (history_db_summary) and as trend reads it (history_trend_db_runs), equals
 *    member for member what report_summary_read and report_cells_read give from its directory,
 *    the directory named by the run_id. A member the summaries gain that the database does not
 *    keep, or a column read back as another value or type, fails here;
 *  - a row's JSON split into columns and back is the object it came from, whatever the types of
 *    its members. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/errors.h"
#include "history/dbint.h"
#include "history/history.h"
#include "history/trendint.h"
#include "journal/journal.h"
#include "report/output.h"
#include "report/report.h"

#include "report/helpers.h"

static char *tmp;

static int
setup(void **state)
{
    (void)state;
    tmp = th_tempdir("db");
    char j[4096];
    snprintf(j, sizeof j, "%s/tests/fixtures/journals", th_srcdir());
    return tmp == NULL || chdir(j) != 0;
}

static int
teardown(void **state)
{
    (void)state;
    th_rmtree(tmp);
    free(tmp);
    return 0;
}

/* --- URLs ------------------------------------------------------------------------------------ */

static void
test_url_forms(void **state)
{
    (void)state;
    const struct db_ops *ops;
    const char *target;
    struct err e = {0};
    assert_int_equal(history_db_url_parse("sqlite:h.db", &ops, &target, &e), 0);
    assert_ptr_equal(ops, &history_db_sqlite_ops);
    assert_string_equal(target, "h.db");
    assert_int_equal(history_db_url_parse("sqlite:///var/lib/ns/h.db", &ops, &target, &e), 0);
    assert_string_equal(target, "/var/lib/ns/h.db");
    assert_int_equal(history_db_url_parse("sqlite:/abs/h.db", &ops, &target, &e), 0);
    assert_string_equal(target, "/abs/h.db");
    assert_int_equal(history_db_url_parse("postgresql://u@db.example/ns", &ops, &target, &e), 0);
    assert_ptr_equal(ops, &history_db_pg_ops);
    assert_string_equal(target, "postgresql://u@db.example/ns");
    assert_int_equal(history_db_url_parse("postgres:///ns?host=/run/pg", &ops, &target, &e), 0);
    assert_ptr_equal(ops, &history_db_pg_ops);
    static const char *const bad[] = {
        "h.db", "sqlite:", "sqlite://host/h.db", "mysql://x/y", "postgresql:/x", "", "SQLITE:h.db"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err_clear(&e);
        assert_int_equal(history_db_url_parse(bad[i], &ops, &target, &e), NS_EINVAL);
        assert_non_null(strstr(e.msg, "sqlite:"));
        assert_null(strchr(e.msg, '\n'));
    }
    /* a URL that is not one, with a password in it, is not shown with it either */
    err_clear(&e);
    assert_int_equal(history_db_url_parse("mysql://me:hunter2@x/y", &ops, &target, &e), NS_EINVAL);
    assert_null(strstr(e.msg, "hunter2"));
}

static void
test_url_redact(void **state)
{
    (void)state;
    static const char *const cases[][2] = {
        {"postgresql://me:s3cret@db.example:5432/ns", "postgresql://me:***@db.example:5432/ns"},
        {"postgres://me:p@ss@w0rd@db/ns", "postgres://me:***@db/ns"},
        {"postgresql://me@db/ns?password=s3cret&sslmode=require",
         "postgresql://me@db/ns?password=***&sslmode=require"},
        {"postgresql:///ns?host=/tmp/x&password=s3cret",
         "postgresql:///ns?host=/tmp/x&password=***"},
        {"postgresql://db/ns", "postgresql://db/ns"},
        {"postgresql://me@db/ns", "postgresql://me@db/ns"},
        {"sqlite:/tmp/pass:word@x.db", "sqlite:/tmp/pass:word@x.db"},
        {"host=db password=s3cret dbname=ns", "host=db password=*** dbname=ns"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *r = history_db_url_redact(cases[i][0]);
        assert_non_null(r);
        assert_string_equal(r, cases[i][1]);
        free(r);
    }
}

/* A database that does not answer is named with its password masked. */
static void
test_unreachable_masked(void **state)
{
    (void)state;
    char url[4096];
    snprintf(url, sizeof url, "postgresql://me:hunter2@/ns?host=%s/nowhere", tmp);
    struct db *db = NULL;
    struct err e = {0};
    assert_int_not_equal(history_db_open(url, false, &db, &e), 0);
    assert_null(strstr(e.msg, "hunter2"));
    assert_non_null(strstr(e.msg, "postgresql://me:***@"));
    assert_null(strchr(e.msg, '\n'));
}

/* --- rows and back --------------------------------------------------------------------------- */

/* Publish dir into url; fails the test on an error. */
static void
publish(const char *url, const char *dir)
{
    const char *dirs[] = {dir};
    struct history_publish_opts o = {.db = url, .dirs = dirs, .ndirs = 1};
    struct history_publish_result r;
    struct err e = {0};
    if (history_publish(&o, &r, &e) != 0)
        fail_msg("publish %s: %s", dir, e.msg);
}

/* The summary as the database keeps it: the run's directory is its run_id. */
static void
relabel(json_t *sum, const char *label)
{
    json_t *run = json_array_get(json_object_get(sum, "runs"), 0);
    if (run == NULL)
        run = json_object_get(sum, "run");
    json_object_set_new(run, "dir", json_string(label));
    size_t i;
    json_t *p;
    json_array_foreach(json_object_get(json_object_get(sum, "journal"), "problems"), i, p)
        json_object_set_new(p, "dir", json_string(label));
}

/* What compare reads of a summary, as history_db_summary keeps it. */
static void
compare_part(json_t *sum)
{
    static const char *const top[] = {"schema",  "report_tool", "cv_threshold", "units",
                                      "regions", "zones",       "hosts",        "zones_given"};
    for (size_t i = 0; i < sizeof top / sizeof top[0]; i++)
        json_object_del(sum, top[i]);
    size_t i;
    json_t *s;
    json_array_foreach(json_object_get(sum, "scenarios"), i, s)
    {
        json_object_del(s, "pairs");
        json_object_del(s, "failures");
    }
}

/* The first difference of a and b, for the failure's message. */
static void
first_diff(const json_t *a, const json_t *b, const char *path, char *out, size_t len)
{
    if (json_equal(a, b) || out[0] != '\0')
        return;
    if (json_is_object(a) && json_is_object(b)) {
        const char *k;
        json_t *v;
        json_object_foreach((json_t *)(uintptr_t)a, k, v)
        {
            char sub[512];
            snprintf(sub, sizeof sub, "%s.%s", path, k);
            first_diff(v, json_object_get(b, k), sub, out, len);
        }
        json_object_foreach((json_t *)(uintptr_t)b, k,
                            v) if (json_object_get(a, k) == NULL && out[0] == '\0')
            snprintf(out, len, "%s.%s: only in the database's", path, k);
        return;
    }
    if (json_is_array(a) && json_is_array(b) && json_array_size(a) == json_array_size(b)) {
        for (size_t i = 0; i < json_array_size(a); i++) {
            char sub[512];
            snprintf(sub, sizeof sub, "%s[%zu]", path, i);
            first_diff(json_array_get(a, i), json_array_get(b, i), sub, out, len);
        }
        return;
    }
    char *x = a ? json_dumps(a, JSON_ENCODE_ANY | JSON_REAL_PRECISION(17)) : NULL;
    char *y = b ? json_dumps(b, JSON_ENCODE_ANY | JSON_REAL_PRECISION(17)) : NULL;
    snprintf(out, len, "%s: directory %.200s, database %.200s", path, x ? x : "(absent)",
             y ? y : "(absent)");
    json_free_t jfree; /* the reports' arena may be jansson's allocator (report_jarena_begin) */
    json_get_alloc_funcs(NULL, &jfree);
    jfree(x);
    jfree(y);
}

static void
assert_same(const json_t *want, const json_t *got, const char *what)
{
    char d[1024] = "";
    first_diff(want, got, "", d, sizeof d);
    if (d[0] != '\0')
        fail_msg("%s: %s", what, d);
}

static void
check_run(const char *url, const char *dir)
{
    struct journal_run *run = NULL;
    struct err e = {0};
    assert_int_equal(journal_read_run(dir, &run, &e), 0);
    char *id = strdup(run->run_id);
    journal_run_free(run);
    publish(url, dir);

    /* compare's reading */
    report_jarena_begin();
    json_t *want = NULL, *got = NULL;
    bool dbf;
    if (report_summary_read(dir, NULL, &want, &e) != 0)
        fail_msg("%s: %s", dir, e.msg);
    if (history_db_summary(url, id, &got, &dbf, &e) != 0)
        fail_msg("%s: %s", dir, e.msg);
    relabel(want, id);
    compare_part(want);
    char what[256];
    snprintf(what, sizeof what, "%s as compare reads it", dir);
    assert_same(want, got, what);
    json_decref(want);
    json_decref(got);

    /* trend's reading */
    want = NULL;
    if (report_cells_read(dir, NULL, &want, &e) != 0)
        fail_msg("%s: %s", dir, e.msg);
    json_t *rw = history_trend_reduce(want);
    relabel(rw, id);
    const char *ids[] = {id};
    struct history_db_select q = {.url = url, .run_ids = ids, .n_run_ids = 1};
    struct trun *runs = NULL;
    size_t n = 0;
    if (history_trend_db_runs(&q, &runs, &n, &dbf, &e) != 0)
        fail_msg("%s: %s", dir, e.msg);
    assert_int_equal(n, 1);
    assert_string_equal(runs[0].dir, id);
    assert_string_equal(runs[0].run_id, id);
    snprintf(what, sizeof what, "%s as trend reads it", dir);
    assert_same(rw, runs[0].sum, what);
    history_trend_runs_free(runs, n);
    json_decref(rw);
    json_decref(want);
    report_jarena_end(); /* every value made since it began is released */
    free(id);
}

static void
test_summaries_back(void **state)
{
    (void)state;
    static const char *const dirs[] = {
        "basic",     "allfailed", "hostile",      "incomplete",      "multi-a",
        "multi-b",   "pooled-a",  "pooled-b",     "compare-base",    "compare-new",
        "gate-base", "gate-new",  "gate-partial", "trend-a",         "trend-b",
        "trend-c",   "trend-d",   "trend-other",  "trend-hostile-1", "trend-hostile-2"};
    char url[4096];
    snprintf(url, sizeof url, "sqlite:%s/back.db", tmp);
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++)
        check_run(url, dirs[i]);
}

/* history_dbj_split then dbj_join, through a table, gives the object back whatever its members'
 * types: a member of another type than its column's, an empty nested object, a nested object that
 * is not one, members unknown to the schema. */
static void
test_split_join(void **state)
{
    (void)state;
    char url[4096];
    snprintf(url, sizeof url, "sqlite:%s/split.db", tmp);
    struct db *db;
    struct err e = {0};
    assert_int_equal(history_db_open(url, true, &db, &e), 0);
    char cols[4096];
    history_dbj_select_list(&history_dbj_cell, DBJ_FULL, cols, sizeof cols);
    char sql[8192];
    /* columns without types: SQLite keeps what it is given, as schema.sql's typed ones do */
    snprintf(sql, sizeof sql, "CREATE TABLE t (extra JSON, %s)", cols);
    assert_int_equal(history_db_exec(db, sql, &e), 0);
    static const char *const objs[] = {
        ("{\"n\": 3, \"mean\": 1.5, \"high_variation\": true, \"rtt_us\": {\"p50\": 2.25, "
         "\"hist\": [1, 2]}, \"cpu_pct\": {\"local\": 0.1, \"remote\": 0.2}, \"new\": [1]}"),
        "{\"n\": 1.0, \"mean\": 7, \"rtt_us\": {}, \"udp\": \"x\", \"cpu_pct\": {\"local\": 1}}",
        "{\"mean\": -0.0, \"min\": 1e300, \"max\": 5e-324, \"high_variation\": null}",
        "{}",
    };
    for (size_t i = 0; i < sizeof objs / sizeof objs[0]; i++) {
        json_t *o = json_loads(objs[i], 0, NULL);
        assert_non_null(o);
        struct db_val v[64];
        char *texts[64], *extra;
        assert_int_equal(history_dbj_split(&history_dbj_cell, o, v + 1, texts, &extra), 0);
        v[0] = history_db_text(extra);
        assert_int_equal(history_db_exec(db, "DELETE FROM t", &e), 0);
        char ins[8192];
        size_t k = (size_t)snprintf(ins, sizeof ins, "INSERT INTO t VALUES ($1");
        for (size_t c = 0; c < history_dbj_cell.n; c++)
            k += (size_t)snprintf(ins + k, sizeof ins - k, ", $%zu", c + 2);
        snprintf(ins + k, sizeof ins - k, ")");
        assert_int_equal(history_db_run(db, ins, v, history_dbj_cell.n + 1, &e), 0);
        struct db_rows *r;
        snprintf(sql, sizeof sql, "SELECT extra, %s FROM t", cols);
        assert_int_equal(history_db_query(db, sql, NULL, 0, &r, &e), 0);
        assert_int_equal(history_db_next(db, r, &e), 1);
        json_t *back = history_dbj_join_into(NULL, &history_dbj_cell, DBJ_FULL, db, r, 1,
                                             history_db_col_text(db, r, 0, NULL));
        history_db_rows_free(db, r);
        assert_same(o, back, objs[i]);
        history_dbj_texts_free(texts, history_dbj_cell.n, extra);
        json_decref(back);
        json_decref(o);
    }
    history_db_close(db);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_url_forms),          cmocka_unit_test(test_url_redact),
        cmocka_unit_test(test_unreachable_masked), cmocka_unit_test(test_split_join),
        cmocka_unit_test(test_summaries_back),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
