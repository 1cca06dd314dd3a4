/* test_journal.c - the run directory: creation refuses a non-empty directory, appends are
 * whole lines, a resume cuts a torn last line, readers skip bad lines; the client argv and the
 * run directory template. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "common/testspec.h"
#include "survey/journal.h"
#include "survey/run.h"
#include "survey/trial.h"

static char tmpdir[] = "/tmp/ns-journal-XXXXXX";

static int
setup(void **state)
{
    (void)state;
    return mkdtemp(tmpdir) != NULL ? 0 : -1;
}

static int
teardown(void **state)
{
    (void)state;
    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

static void
path_in(char *buf, size_t len, const char *a, const char *b)
{
    snprintf(buf, len, "%s/%s%s%s", tmpdir, a, b != NULL ? "/" : "", b != NULL ? b : "");
}

static size_t
file_text(const char *path, char *buf, size_t len)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    size_t n = fread(buf, 1, len - 1, f);
    buf[n] = '\0';
    fclose(f);
    return n;
}

static void
count_rec(const json_t *rec, void *arg)
{
    (void)rec;
    (*(int *)arg)++;
}

static void
test_create_append_read(void **state)
{
    (void)state;
    char dir[PATH_MAX], path[PATH_MAX], buf[4096];
    path_in(dir, sizeof dir, "a/b/run", NULL);
    struct journal *j = NULL;
    struct err e = {0};
    assert_int_equal(journal_create(dir, &j, &e), 0);
    json_t *run = json_pack("{s:s, s:s}", "schema", JOURNAL_RUN_SCHEMA, "run_id", "x");
    assert_int_equal(journal_write_run(j, run, &e), 0);
    json_t *rec = json_pack("{s:s, s:i}", "status", "ok", "trial", 1);
    assert_int_equal(journal_append(j, rec, &e), 0);
    assert_int_equal(journal_append(j, rec, &e), 0);
    journal_free(j);
    path_in(path, sizeof path, "a/b/run", JOURNAL_RESULTS_FILE);
    file_text(path, buf, sizeof buf);
    assert_string_equal(buf, "{\"status\":\"ok\",\"trial\":1}\n{\"status\":\"ok\",\"trial\":1}\n");
    json_t *back = NULL;
    assert_int_equal(journal_read_run(dir, &back, &e), 0);
    assert_true(json_equal(back, run));
    json_decref(back);
    /* A directory that holds anything is never reused by a new run. */
    assert_int_equal(journal_create(dir, &j, &e), NS_EBUSY);
    assert_null(j);
    assert_non_null(strstr(e.msg, "--resume"));
    int n = 0;
    size_t bad, torn;
    assert_int_equal(journal_read_trials(dir, count_rec, &n, &bad, &torn, &e), 0);
    assert_int_equal(n, 2);
    assert_int_equal(bad, 0);
    json_decref(rec);
    json_decref(run);
}

static void
test_resume_cuts_torn_line(void **state)
{
    (void)state;
    char dir[PATH_MAX], path[PATH_MAX], buf[4096];
    path_in(dir, sizeof dir, "torn", NULL);
    struct journal *j = NULL;
    struct err e = {0};
    assert_int_equal(journal_create(dir, &j, &e), 0);
    json_t *rec = json_pack("{s:s}", "status", "ok");
    assert_int_equal(journal_append(j, rec, &e), 0);
    journal_free(j);
    path_in(path, sizeof path, "torn", JOURNAL_RESULTS_FILE);
    FILE *f = fopen(path, "a");
    fputs("not json\n{\"status\":\"o", f); /* a bad middle line and a torn last one */
    fclose(f);
    int n = 0;
    size_t bad, torn;
    assert_int_equal(journal_read_trials(dir, count_rec, &n, &bad, &torn, &e), 0);
    assert_int_equal(n, 1);
    assert_int_equal(bad, 2);
    assert_int_equal(torn, 1);
    size_t cut = 0;
    assert_int_equal(journal_resume(dir, &cut, &j, &e), 0);
    assert_int_equal(cut, strlen("{\"status\":\"o"));
    assert_int_equal(journal_append(j, rec, &e), 0);
    journal_free(j);
    file_text(path, buf, sizeof buf);
    assert_string_equal(buf, "{\"status\":\"ok\"}\nnot json\n{\"status\":\"ok\"}\n");
    json_decref(rec);
}

static void
test_client_argv(void **state)
{
    (void)state;
    struct plan_scenario sc = {.name = "t",
                               .kind = PLAN_TCP_STREAM,
                               .test = "tcp_stream",
                               .trials = 1,
                               .streams = 4,
                               .duration_s = 0.5,
                               .warmup_s = 0.1,
                               .window = 65536,
                               .reverse = true};
    /* What the plan loader fills: the table's values, given ones marked. */
    testspec_values_default(&sc.spec, TESTSPEC_TCP_STREAM);
    testspec_values_set(&sc.spec, TESTSPEC_P_DURATION, 0.5);
    testspec_values_set(&sc.spec, TESTSPEC_P_WARMUP, 0.1);
    testspec_values_set(&sc.spec, TESTSPEC_P_STREAMS, 4);
    testspec_values_set(&sc.spec, TESTSPEC_P_WINDOW, 65536);
    testspec_values_set(&sc.spec, TESTSPEC_P_REVERSE, 1);
    char store[TRIAL_ARGV_MAX][32];
    const char *argv[TRIAL_ARGV_MAX];
    int n = trial_client_argv(&sc, "/x/nsperf", "10.0.0.4", 4242, "10.0.0.5", store, argv);
    const char *want[] = {"/x/nsperf", "-c",           "10.0.0.4", "-p",  "4242",   "-B",
                          "10.0.0.5",  "--token-file", "-",        "-J",  "--test", "tcp_stream",
                          "-t",        "0.5",          "--warmup", "0.1", "-P",     "4",
                          "-w",        "65536",        "-R"};
    assert_int_equal(n, (int)(sizeof want / sizeof want[0]));
    for (int i = 0; i < n; i++)
        assert_string_equal(argv[i], want[i]);
    assert_null(argv[n]);
}

static void
test_expand_dir(void **state)
{
    (void)state;
    char buf[64];
    assert_int_equal(
        survey_expand_dir("results/{name}-{timestamp}", "lab", "20261130T150000Z", buf, sizeof buf),
        strlen("results/lab-20261130T150000Z"));
    assert_string_equal(buf, "results/lab-20261130T150000Z");
    survey_expand_dir("{nam}{name}", "x", "s", buf, sizeof buf);
    assert_string_equal(buf, "{nam}x");
    char small[5];
    assert_int_equal(survey_expand_dir("{name}", "abcdefgh", "s", small, sizeof small), 8);
    assert_string_equal(small, "abcd");
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_create_append_read),
        cmocka_unit_test(test_resume_cuts_torn_line),
        cmocka_unit_test(test_client_argv),
        cmocka_unit_test(test_expand_dir),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
