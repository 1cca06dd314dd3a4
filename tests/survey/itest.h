/* itest.h - what the integration tests that run netsurvey share (tests/survey/itest_*.c,
 * tests/report/itest_incomplete.c): netsurvey and nsperf started as users start them (real
 * processes; four_hosts on 127.0.0.21-24), every wait bounded; the processes a run started
 * are found by a marker in their environment (NS_SURVEY_ITEST=<ours>), so "nothing left running"
 * looks only at what the test started, and a test signals only PIDs it started or found so; the
 * journal read back with jansson (independently of src/journal). Included by one test file each:
 * its functions are static, and a file uses those it needs. */
#ifndef NS_TESTS_SURVEY_ITEST_H
#define NS_TESTS_SURVEY_ITEST_H
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "cli/cli_exit.h"
#include "common/testspec.h"

#define RUN_TIMEOUT_S 240.0 /* generous: sanitizers on a shared 2-core machine */

static char tmpdir[] = "/tmp/ns-itest-XXXXXX";
static char mark[64];
static unsigned run_counter;

static __attribute__((unused)) double
now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static __attribute__((unused)) void
nap_ms(int ms)
{
    struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static __attribute__((unused)) void
tmp_path(char *buf, size_t len, const char *name)
{
    snprintf(buf, len, "%s/%s", tmpdir, name);
}

static __attribute__((unused)) void
write_file(const char *name, const char *text, mode_t mode)
{
    char path[PATH_MAX];
    tmp_path(path, sizeof path, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    chmod(path, mode);
}

static __attribute__((unused)) char *
read_text(const char *path)
{
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return strdup("");
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *buf = malloc((size_t)n + 1);
    assert_non_null(buf);
    size_t got = fread(buf, 1, (size_t)n, f);
    buf[got] = '\0';
    fclose(f);
    return buf;
}

static __attribute__((unused)) int
setup(void **state)
{
    (void)state;
    if (mkdtemp(tmpdir) == NULL)
        return -1;
    snprintf(mark, sizeof mark, "NS_SURVEY_ITEST=%d-%ld", (int)getpid(), (long)time(NULL));
    signal(SIGPIPE, SIG_IGN);
    return 0;
}

static __attribute__((unused)) int
teardown(void **state)
{
    (void)state;
    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

/* --- processes ----------------------------------------------------------------------------- */

/* Start netsurvey with args (NULL-terminated), stdout/stderr to out/err files, extra env. */
static __attribute__((unused)) pid_t
ns_start(const char *const *args, const char *extra_env, char *out, char *err, size_t len)
{
    unsigned n = ++run_counter;
    snprintf(out, len, "%s/out.%u", tmpdir, n);
    snprintf(err, len, "%s/err.%u", tmpdir, n);
    const char *argv[32] = {NETSURVEY_BIN};
    size_t i = 1;
    for (; args[i - 1] != NULL && i < 31; i++)
        argv[i] = args[i - 1];
    argv[i] = NULL;
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        putenv(mark);
        if (extra_env != NULL)
            putenv((char *)(uintptr_t)extra_env);
        int o = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int e = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int nul = open("/dev/null", O_RDONLY);
        if (o < 0 || e < 0 || nul < 0 || dup2(o, 1) < 0 || dup2(e, 2) < 0 || dup2(nul, 0) < 0)
            _exit(99);
        if (chdir(tmpdir) != 0)
            _exit(99);
        execv(argv[0], (char *const *)(uintptr_t)argv);
        _exit(98);
    }
    return pid;
}

/* Exit status (128 + signal when killed); fails the test past the timeout. */
static __attribute__((unused)) int
ns_wait(pid_t pid, double timeout_s)
{
    double end = now_s() + timeout_s;
    int st;
    for (;;) {
        pid_t r = waitpid(pid, &st, WNOHANG);
        if (r == pid)
            return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
        if (now_s() > end) {
            kill(pid, SIGKILL);
            waitpid(pid, &st, 0);
            fail_msg("netsurvey %d did not finish within %.0f s", (int)pid, timeout_s);
        }
        nap_ms(10);
    }
}

static __attribute__((unused)) int
ns_run(const char *const *args, const char *extra_env, char **out_text, char **err_text)
{
    char out[PATH_MAX], err[PATH_MAX];
    int st = ns_wait(ns_start(args, extra_env, out, err, sizeof out), RUN_TIMEOUT_S);
    *out_text = read_text(out);
    *err_text = read_text(err);
    return st;
}

static __attribute__((unused)) bool
proc_running(const char *pid_dir)
{
    char path[PATH_MAX], buf[512];
    snprintf(path, sizeof path, "/proc/%s/stat", pid_dir);
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return false;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    char *paren = strrchr(buf, ')');
    return paren != NULL && paren[1] == ' ' && paren[2] != 'Z' && paren[2] != 'X';
}

static __attribute__((unused)) bool
proc_has_mark(const char *pid_dir)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "/proc/%s/environ", pid_dir);
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return false;
    static char buf[1 << 16];
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return false;
    for (ssize_t i = 0; i < n; i += (ssize_t)strlen(buf + i) + 1) {
        buf[n] = '\0';
        if (strcmp(buf + i, mark) == 0)
            return true;
    }
    return false;
}

/* Processes still running that carry our marker (netsurvey or any nsperf it started). */
static __attribute__((unused)) int
marked_running(void)
{
    DIR *d = opendir("/proc");
    assert_non_null(d);
    int n = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL)
        if (de->d_name[0] >= '1' && de->d_name[0] <= '9' && proc_has_mark(de->d_name) &&
            proc_running(de->d_name))
            n++;
    closedir(d);
    return n;
}

static __attribute__((unused)) void
assert_nothing_left(void)
{
    int n = 0;
    for (int i = 0; i < 500 && (n = marked_running()) > 0; i++)
        nap_ms(10); /* PR_SET_PDEATHSIG delivery is immediate; allow a slow machine */
    assert_int_equal(n, 0);
}

/* --- the journal --------------------------------------------------------------------------- */

struct journal_view {
    json_t *recs; /* array of the records, in order */
    size_t lines;
    bool ends_with_newline;
};

static __attribute__((unused)) void
journal_load(const char *dir, struct journal_view *v)
{
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/%s/results.jsonl", tmpdir, dir);
    char *text = read_text(path);
    v->recs = json_array();
    v->lines = 0;
    size_t len = strlen(text);
    v->ends_with_newline = len == 0 || text[len - 1] == '\n';
    for (char *line = strtok(text, "\n"); line != NULL; line = strtok(NULL, "\n")) {
        json_error_t je;
        json_t *rec = json_loads(line, 0, &je);
        if (rec == NULL)
            fail_msg("%s: line %zu does not parse: %s", path, v->lines + 1, je.text);
        json_array_append_new(v->recs, rec);
        v->lines++;
    }
    free(text);
}

static __attribute__((unused)) size_t
journal_lines(const char *dir)
{
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/%s/results.jsonl", tmpdir, dir);
    char *text = read_text(path);
    size_t n = 0;
    for (char *p = text; *p != '\0'; p++)
        n += *p == '\n';
    free(text);
    return n;
}

static __attribute__((unused)) const char *
str_at(const json_t *rec, const char *a, const char *b)
{
    const json_t *v = json_object_get(rec, a);
    if (b != NULL)
        v = json_object_get(v, b);
    return json_string_value(v);
}

/* Every record has the trial record's fields (README "The journal", src/journal/record.h). */
static __attribute__((unused)) void
assert_record_shape(const json_t *rec)
{
    /* version 4 for the trials of a plan's revision 2 or later, which say theirs */
    json_int_t rev = json_integer_value(json_object_get(rec, "revision"));
    assert_string_equal(str_at(rec, "schema", NULL),
                        rev >= 2 ? "netsurvey.trial/4" : "netsurvey.trial/3");
    assert_non_null(str_at(rec, "run_id", NULL));
    assert_non_null(str_at(rec, "plan", "name"));
    assert_int_equal(strlen(str_at(rec, "plan", "sha256")), 64);
    assert_non_null(str_at(rec, "scenario", "name"));
    assert_non_null(str_at(rec, "scenario", "test"));
    assert_true(json_is_number(json_object_get(json_object_get(rec, "scenario"), "duration_s")));
    assert_true(json_integer_value(json_object_get(rec, "trial")) >= 1);
    assert_string_equal(str_at(rec, "family", NULL), "ipv4");
    for (int i = 0; i < 2; i++) {
        const char *end = i == 0 ? "src" : "dst";
        assert_non_null(str_at(rec, end, "host"));
        assert_non_null(str_at(rec, end, "zone"));
        assert_non_null(str_at(rec, end, "region"));
        assert_non_null(str_at(rec, end, "data_address"));
    }
    const char *status = str_at(rec, "status", NULL);
    assert_non_null(status);
    assert_non_null(str_at(rec, "started", NULL));
    assert_non_null(str_at(rec, "ended", NULL));
    assert_non_null(str_at(rec, "env", "src"));
    assert_non_null(str_at(rec, "tool", "version"));
    assert_true(json_is_integer(json_object_get(rec, "attempts")));
    if (strcmp(status, "ok") == 0) {
        assert_true(json_is_null(json_object_get(rec, "error")));
        const json_t *res = json_object_get(rec, "result");
        assert_true(json_is_object(res));
        /* nsperf's histogram in the runs form (common/histjson.h), which trial/3 names */
        const json_t *hj = json_object_get(json_object_get(res, "rtt_us"), "hist");
        if (hj != NULL) {
            assert_true(json_is_array(json_object_get(hj, "runs")));
            assert_null(json_object_get(hj, "buckets"));
        }
    } else {
        assert_string_equal(status, "failed");
        assert_non_null(str_at(rec, "error", NULL));
    }
}

static __attribute__((unused)) void
trial_key(const json_t *rec, char *buf, size_t len)
{
    json_int_t rev = json_integer_value(json_object_get(rec, "revision"));
    snprintf(buf, len, "%s|%s|%s|%lld|r%lld", str_at(rec, "scenario", "name"),
             str_at(rec, "src", "host"), str_at(rec, "dst", "host"),
             (long long)json_integer_value(json_object_get(rec, "trial")),
             (long long)(rev > 1 ? rev : 1));
}

/* Every ok trial exactly once; returns the number of distinct ok trials. */
static __attribute__((unused)) size_t
assert_ok_once(const struct journal_view *v)
{
    json_t *seen = json_object();
    size_t i;
    json_t *rec;
    json_array_foreach(v->recs, i, rec)
    {
        assert_record_shape(rec);
        if (strcmp(str_at(rec, "status", NULL), "ok") != 0)
            continue;
        char key[256];
        trial_key(rec, key, sizeof key);
        if (json_object_get(seen, key) != NULL)
            fail_msg("trial %s recorded ok twice", key);
        json_object_set_new(seen, key, json_true());
    }
    size_t n = json_object_size(seen);
    json_decref(seen);
    return n;
}

/* run.json's state of run directory dir (relative to tmpdir); "" when there is none. */
static __attribute__((unused)) const char *
run_state(const char *dir)
{
    static char state[32];
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/%s/run.json", tmpdir, dir);
    json_t *run = json_load_file(path, 0, NULL);
    snprintf(state, sizeof state, "%s",
             json_string_value(json_object_get(run, "state")) != NULL
                 ? json_string_value(json_object_get(run, "state"))
                 : "");
    json_decref(run);
    return state;
}

/* --- plans ---------------------------------------------------------------------------------- */

static const char four_hosts[] =
    "name: four\n"
    "hosts:\n"
    "  - {name: h1, transport: local, data_address: 127.0.0.21, zone: \"1\"}\n"
    "  - {name: h2, transport: local, data_address: 127.0.0.22, zone: \"2\"}\n"
    "  - {name: h3, transport: local, data_address: 127.0.0.23, zone: \"3\"}\n"
    "  - {name: h4, transport: local, data_address: 127.0.0.24, zone: \"1\"}\n"
    "scenarios:\n"
    "  - {name: rr, test: tcp_rr, duration: %s, warmup: 0.1s}\n"
    "trials: 2\n"
    "pairs: all\n"
    "parallel: true\n";

static __attribute__((unused)) void
write_four(const char *name, const char *duration)
{
    char text[sizeof four_hosts + 16];
    snprintf(text, sizeof text, four_hosts, duration);
    write_file(name, text, 0644);
}

/* Wait until dir's journal has at least n lines (or the run ended). */
static __attribute__((unused)) void
wait_lines(pid_t pid, const char *dir, size_t n)
{
    double end = now_s() + RUN_TIMEOUT_S;
    while (journal_lines(dir) < n) {
        int st;
        assert_int_equal(waitpid(pid, &st, WNOHANG), 0); /* still running */
        assert_true(now_s() < end);
        nap_ms(5);
    }
}

#endif
