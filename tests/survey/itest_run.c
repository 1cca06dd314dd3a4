/* itest_run.c - `netsurvey run` as users run it: real netsurvey and nsperf processes on
 * 127.0.0.21-24 with short plans. Every wait is bounded; the processes a run started are found
 * by a marker in their environment (NS_SURVEY_ITEST=<ours>), so "nothing left running" looks
 * only at what this test started, and the test signals only PIDs it started or found so. */
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

#include "common/testspec.h"

#define RUN_TIMEOUT_S 240.0 /* generous: sanitizers on a shared 2-core machine */

static char tmpdir[] = "/tmp/ns-itest-run-XXXXXX";
static char mark[64];
static unsigned run_counter;

static double
now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void
nap_ms(int ms)
{
    struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static void
tmp_path(char *buf, size_t len, const char *name)
{
    snprintf(buf, len, "%s/%s", tmpdir, name);
}

static void
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

static char *
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

static int
setup(void **state)
{
    (void)state;
    if (mkdtemp(tmpdir) == NULL)
        return -1;
    snprintf(mark, sizeof mark, "NS_SURVEY_ITEST=%d-%ld", (int)getpid(), (long)time(NULL));
    signal(SIGPIPE, SIG_IGN);
    return 0;
}

static int
teardown(void **state)
{
    (void)state;
    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

/* --- processes ----------------------------------------------------------------------------- */

/* Start netsurvey with args (NULL-terminated), stdout/stderr to out/err files, extra env. */
static pid_t
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
static int
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

static int
ns_run(const char *const *args, const char *extra_env, char **out_text, char **err_text)
{
    char out[PATH_MAX], err[PATH_MAX];
    int st = ns_wait(ns_start(args, extra_env, out, err, sizeof out), RUN_TIMEOUT_S);
    *out_text = read_text(out);
    *err_text = read_text(err);
    return st;
}

static bool
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

static bool
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
static int
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

static void
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

static void
journal_load(const char *dir, struct journal_view *v)
{
    char path[PATH_MAX];
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

static size_t
journal_lines(const char *dir)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s/results.jsonl", tmpdir, dir);
    char *text = read_text(path);
    size_t n = 0;
    for (char *p = text; *p != '\0'; p++)
        n += *p == '\n';
    free(text);
    return n;
}

static const char *
str_at(const json_t *rec, const char *a, const char *b)
{
    const json_t *v = json_object_get(rec, a);
    if (b != NULL)
        v = json_object_get(v, b);
    return json_string_value(v);
}

/* Every record has the trial record's fields (README "The journal", src/journal/record.h). */
static void
assert_record_shape(const json_t *rec)
{
    assert_string_equal(str_at(rec, "schema", NULL), "netsurvey.trial/2");
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
        assert_true(json_is_object(json_object_get(rec, "result")));
    } else {
        assert_string_equal(status, "failed");
        assert_non_null(str_at(rec, "error", NULL));
    }
}

static void
trial_key(const json_t *rec, char *buf, size_t len)
{
    snprintf(buf, len, "%s|%s|%s|%lld", str_at(rec, "scenario", "name"), str_at(rec, "src", "host"),
             str_at(rec, "dst", "host"),
             (long long)json_integer_value(json_object_get(rec, "trial")));
}

/* Every ok trial exactly once; returns the number of distinct ok trials. */
static size_t
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

static void
write_four(const char *name, const char *duration)
{
    char text[sizeof four_hosts + 16];
    snprintf(text, sizeof text, four_hosts, duration);
    write_file(name, text, 0644);
}

/* Wait until dir's journal has at least n lines (or the run ended). */
static void
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

/* --- tests ---------------------------------------------------------------------------------- */

static void
test_default_plan(void **state)
{
    (void)state;
    char *out, *err;
    const char *plan_args[] = {"plan", "--json", NULL};
    assert_int_equal(ns_run(plan_args, NULL, &out, &err), 0);
    json_t *sched = json_loads(out, 0, NULL);
    json_int_t tests = json_integer_value(json_object_get(sched, "tests"));
    assert_true(tests > 0);
    json_decref(sched);
    free(out);
    free(err);

    const char *args[] = {"run", "-o", "default", NULL};
    int st = ns_run(args, NULL, &out, &err);
    if (st != 0)
        fail_msg("exit %d\n%s\n%s", st, out, err);
    assert_non_null(strstr(out, "netsurvey report default"));
    free(out);
    free(err);
    assert_nothing_left();
    struct journal_view v;
    journal_load("default", &v);
    assert_true(v.ends_with_newline);
    assert_int_equal(v.lines, (size_t)tests);
    assert_int_equal(assert_ok_once(&v), (size_t)tests);
    json_decref(v.recs);

    char path[PATH_MAX];
    tmp_path(path, sizeof path, "default/run.json");
    json_t *run = json_load_file(path, 0, NULL);
    assert_non_null(run);
    assert_string_equal(str_at(run, "schema", NULL), "netsurvey.run/2");
    assert_string_equal(str_at(run, "plan", "name"), "localhost");
    assert_non_null(str_at(run, "plan", "source"));
    assert_int_equal(strlen(str_at(run, "tool", "nsperf_sha256")), 64);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(run, "schedule"), "tests")),
                     tests);
    const json_t *h0 = json_array_get(json_object_get(run, "hosts"), 0);
    const json_t *env = json_object_get(h0, "env");
    assert_non_null(str_at(env, "kernel", NULL));
    assert_string_equal(str_at(env, "interface", NULL), "lo");
    assert_true(json_integer_value(json_object_get(env, "cpus")) > 0);
    assert_true(json_integer_value(json_object_get(env, "mtu")) > 0);
    json_decref(run);
}

static void
test_kill_and_resume(void **state)
{
    (void)state;
    write_four("four.yaml", "0.3s");
    char out[PATH_MAX], err[PATH_MAX];
    const char *args[] = {"run", "four.yaml", "-o", "killed", NULL};
    pid_t pid = ns_start(args, NULL, out, err, sizeof out);
    wait_lines(pid, "killed", 5);
    kill(pid, SIGKILL);
    assert_int_equal(ns_wait(pid, RUN_TIMEOUT_S), 128 + SIGKILL);
    assert_nothing_left();
    /* A power cut in the middle of a line. */
    char path[PATH_MAX];
    tmp_path(path, sizeof path, "killed/results.jsonl");
    FILE *f = fopen(path, "a");
    fputs("{\"schema\":\"netsurvey.trial/1\",\"run_id\":\"x\",\"sta", f);
    fclose(f);

    char *o, *e;
    const char *resume[] = {"run", "four.yaml", "--resume", "killed", NULL};
    int st = ns_run(resume, NULL, &o, &e);
    if (st != 0)
        fail_msg("resume exit %d\n%s\n%s", st, o, e);
    assert_non_null(strstr(e, "torn"));
    free(o);
    free(e);
    assert_nothing_left();
    struct journal_view v;
    journal_load("killed", &v);
    assert_true(v.ends_with_newline);
    assert_int_equal(assert_ok_once(&v), 24);
    assert_int_equal(v.lines, 24); /* no failures, so nothing but the 24 ok records */
    json_decref(v.recs);

    /* The plan changed: refused, nothing run; --force goes on (and finds nothing to do). */
    write_four("four-changed.yaml", "0.4s");
    const char *changed[] = {"run", "four-changed.yaml", "--resume", "killed", NULL};
    assert_int_equal(ns_run(changed, NULL, &o, &e), 2);
    assert_non_null(strstr(e, "plan changed"));
    free(o);
    free(e);
    const char *forced[] = {"run", "four-changed.yaml", "--resume", "killed", "--force", NULL};
    assert_int_equal(ns_run(forced, NULL, &o, &e), 0);
    free(o);
    free(e);
    assert_int_equal(journal_lines("killed"), 24);
    /* A new run never writes into a directory that holds one. */
    const char *again[] = {"run", "four.yaml", "-o", "killed", NULL};
    assert_int_equal(ns_run(again, NULL, &o, &e), 2);
    free(o);
    free(e);
}

static void
test_sigint_and_resume(void **state)
{
    (void)state;
    write_four("four.yaml", "0.3s");
    char out[PATH_MAX], err[PATH_MAX];
    const char *args[] = {"run", "four.yaml", "-o", "interrupted", NULL};
    pid_t pid = ns_start(args, NULL, out, err, sizeof out);
    wait_lines(pid, "interrupted", 3);
    kill(pid, SIGINT);
    kill(pid, SIGINT); /* a second one changes nothing */
    assert_int_equal(ns_wait(pid, RUN_TIMEOUT_S), 130);
    assert_nothing_left();
    char *o = read_text(out);
    assert_non_null(strstr(o, "--resume interrupted"));
    free(o);
    struct journal_view v;
    journal_load("interrupted", &v);
    assert_true(v.ends_with_newline);
    size_t before = assert_ok_once(&v);
    assert_true(before < 24);
    json_decref(v.recs);

    char *e;
    /* Without PLAN, --resume takes the plan recorded in run.json (here four.yaml's text, whose
     * file is then rewritten: the recorded one is what runs, so no "plan changed"). */
    write_four("four.yaml", "0.5s");
    const char *missing[] = {"run", "--resume", "no-such-run", NULL};
    assert_int_equal(ns_run(missing, NULL, &o, &e), 2);
    assert_non_null(strstr(e, "cannot resume no-such-run"));
    free(o);
    free(e);
    const char *resume[] = {"run", "--resume", "interrupted", "-q", NULL};
    int st = ns_run(resume, NULL, &o, &e);
    if (st != 0)
        fail_msg("resume exit %d\n%s\n%s", st, o, e);
    free(o);
    free(e);
    journal_load("interrupted", &v);
    assert_int_equal(assert_ok_once(&v), 24);
    json_decref(v.recs);
    assert_nothing_left();
}

/* A documentation address that this machine does not hold (binding to it fails), so that no
 * packet is ever sent to it: nsperf binds before it connects or listens. */
static const char *
foreign_address(void)
{
    static const char *const candidates[] = {"192.0.2.1", "198.51.100.1", "203.0.113.1"};
    for (size_t i = 0; i < sizeof candidates / sizeof candidates[0]; i++) {
        struct sockaddr_in a = {.sin_family = AF_INET};
        inet_pton(AF_INET, candidates[i], &a.sin_addr);
        int fd = socket(AF_INET, SOCK_STREAM, 0);
        assert_true(fd >= 0);
        int rc = bind(fd, (struct sockaddr *)&a, sizeof a);
        close(fd);
        if (rc != 0)
            return candidates[i];
    }
    fail_msg("every candidate address is local here");
    return NULL;
}

static void
test_failures_recorded(void **state)
{
    (void)state;
    /* h3's nsperf cannot start as a server; "far" holds an address this machine does not have. */
    char wrapper[PATH_MAX + 256];
    snprintf(wrapper, sizeof wrapper,
             "#!/bin/sh\n"
             "case \" $* \" in *\" -s \"*\" 127.0.0.23 \"*) echo 'wrapper: broken nsperf' >&2; "
             "exit 126;; esac\n"
             "exec %s \"$@\"\n",
             NSPERF_BIN);
    write_file("nsperf-wrapper", wrapper, 0755);
    char plan[1024];
    snprintf(plan, sizeof plan,
             "name: failing\n"
             "hosts:\n"
             "  - {name: h1, transport: local, data_address: 127.0.0.21}\n"
             "  - {name: h2, transport: local, data_address: 127.0.0.22}\n"
             "  - {name: h3, transport: local, data_address: 127.0.0.23}\n"
             "  - {name: far, transport: local, data_address: %s}\n"
             "scenarios:\n"
             "  - {name: rr, test: tcp_rr, duration: 0.3s, warmup: 0.1s}\n"
             "pairs: all\n"
             "parallel: true\n",
             foreign_address());
    write_file("failing.yaml", plan, 0644);
    char *o, *e;
    const char *args[] = {"run",      "failing.yaml",   "-o", "failing",
                          "--nsperf", "nsperf-wrapper", NULL};
    int st = ns_run(args, NULL, &o, &e);
    if (st != 1)
        fail_msg("exit %d\n%s\n%s", st, o, e);
    assert_non_null(strstr(o, "failed: h1 -> h3 rr trial 1: server on h3 did not start"));
    free(o);
    free(e);
    assert_nothing_left();
    struct journal_view v;
    journal_load("failing", &v);
    assert_int_equal(v.lines, 12);
    size_t i, ok = 0;
    json_t *rec;
    json_array_foreach(v.recs, i, rec)
    {
        assert_record_shape(rec);
        const char *src = str_at(rec, "src", "host"), *dst = str_at(rec, "dst", "host");
        const char *error = str_at(rec, "error", NULL);
        if (strcmp(dst, "h3") == 0) {
            assert_non_null(strstr(error, "wrapper: broken nsperf"));
        } else if (strcmp(src, "far") == 0 || strcmp(dst, "far") == 0) {
            assert_non_null(strstr(error, "Cannot assign requested address"));
        } else {
            assert_string_equal(str_at(rec, "status", NULL), "ok");
            ok++;
            continue;
        }
        assert_string_equal(str_at(rec, "status", NULL), "failed");
        assert_int_equal(json_integer_value(json_object_get(rec, "attempts")), 3);
    }
    assert_int_equal(ok, 4); /* h1 <-> h2, h3 -> h1, h3 -> h2 */
    json_decref(v.recs);

    /* An nsperf that does not exist is a usage error: no host is contacted. */
    const char *bad[] = {"run",      "failing.yaml",        "-o", "none",
                         "--nsperf", "/nonexistent/nsperf", NULL};
    assert_int_equal(ns_run(bad, NULL, &o, &e), 2);
    assert_non_null(strstr(e, "--nsperf"));
    free(o);
    free(e);
}

static void
test_deadline_sigstop(void **state)
{
    (void)state;
    /* The server of every test to h2 is stopped with SIGSTOP right after it is listening (and
     * before the runner learns so): its client hangs in the handshake until the deadline. */
    char wrapper[2 * PATH_MAX + 512];
    snprintf(wrapper, sizeof wrapper,
             "#!/bin/sh\n"
             "case \" $* \" in *\" -s \"*\" 127.0.0.22 \"*)\n"
             "  fifo=%s/ready.$$; mkfifo \"$fifo\"; exec 4<&0\n"
             "  %s \"$@\" <&4 >\"$fifo\" & p=$!\n"
             "  exec 3<\"$fifo\"; rm -f \"$fifo\"; read -r line <&3\n"
             "  kill -STOP \"$p\"; echo \"$p\" >>%s/stopped.pids; echo \"$line\"\n"
             "  wait \"$p\"; exit $?;;\n"
             "esac\n"
             "exec %s \"$@\"\n",
             tmpdir, NSPERF_BIN, tmpdir, NSPERF_BIN);
    write_file("nsperf-stopper", wrapper, 0755);
    write_file("stop.yaml",
               "name: stop\n"
               "hosts:\n"
               "  - {name: h1, transport: local, data_address: 127.0.0.21}\n"
               "  - {name: h2, transport: local, data_address: 127.0.0.22}\n"
               "scenarios:\n"
               "  - {name: rr, test: tcp_rr, duration: 0.3s, warmup: 0.1s}\n"
               "pairs: all\n"
               "parallel: true\n",
               0644);
    char *o, *e;
    const char *args[] = {"run", "stop.yaml", "-o", "stopped", "--nsperf", "nsperf-stopper", NULL};
    /* A short setup margin so that the deadline (warmup + duration + margin) comes before the
     * client's own handshake timeout (5 s). */
    int st = ns_run(args, "NETSURVEY_DEADLINE_MARGIN=2", &o, &e);
    if (st != 1)
        fail_msg("exit %d\n%s\n%s", st, o, e);
    free(o);
    free(e);
    assert_nothing_left();
    char path[PATH_MAX];
    tmp_path(path, sizeof path, "stopped.pids");
    char *pids = read_text(path);
    int nstopped = 0;
    for (char *line = strtok(pids, "\n"); line != NULL; line = strtok(NULL, "\n")) {
        assert_false(proc_running(line)); /* killed and reaped, though stopped */
        nstopped++;
    }
    free(pids);
    assert_int_equal(nstopped, 3); /* the first attempt and two retries */
    struct journal_view v;
    journal_load("stopped", &v);
    assert_int_equal(v.lines, 2);
    size_t i;
    json_t *rec;
    json_array_foreach(v.recs, i, rec)
    {
        assert_record_shape(rec);
        const char *status = str_at(rec, "status", NULL), *error = str_at(rec, "error", NULL);
        json_int_t attempts = json_integer_value(json_object_get(rec, "attempts"));
        bool to_h2 = strcmp(str_at(rec, "dst", "host"), "h2") == 0;
        bool as_expected = to_h2 ? strcmp(status, "failed") == 0 && attempts == 3 &&
                                       strstr(error, "deadline exceeded") != NULL
                                 : strcmp(status, "ok") == 0;
        if (!as_expected)
            fail_msg("%s trial: status %s, attempts %lld, error %s",
                     to_h2 ? "h1 -> h2" : "h2 -> h1", status, (long long)attempts,
                     error != NULL ? error : "null");
    }
    json_decref(v.recs);
}

/* --- the record is the truth: plan --json, the journal and nsperf's own params agree ---------- */

/* A parameter's three names: the plan's (plan --json "params"), the journal's, nsperf -J's. */
static const struct {
    enum testspec_param p;
    const char *plan, *journal, *nsperf;
} param_names[] = {
    {TESTSPEC_P_DURATION, "duration", "duration_s", "duration_s"},
    {TESTSPEC_P_WARMUP, "warmup", "warmup_s", "warmup_s"},
    {TESTSPEC_P_STREAMS, "streams", "streams", "streams"},
    {TESTSPEC_P_MSG_SIZE, "msg_size", "msg_size", "msg_size"},
    {TESTSPEC_P_RESPONSE_SIZE, "response_size", "response_size", "response_size"},
    {TESTSPEC_P_RATE, "rate", "rate_bps", "rate_bps"},
    {TESTSPEC_P_INTERVAL, "interval", "interval_s", "interval_s"},
    {TESTSPEC_P_WINDOW, "window", "window", "sock_buf"},
    {TESTSPEC_P_REVERSE, "reverse", "reverse", "reverse"},
};
#define NPARAM_NAMES (sizeof param_names / sizeof param_names[0])

/* Every kind twice: at its defaults (only duration and warmup given, as every scenario must be
 * short here), and with every parameter that applies given a value that is not its default. */
static const char params_plan[] =
    "name: params\n"
    "hosts:\n"
    "  - {name: h1, transport: local, data_address: 127.0.0.21}\n"
    "  - {name: h2, transport: local, data_address: 127.0.0.22}\n"
    "pairs: [[h1, h2]]\n"
    "directions: one\n"
    "scenarios:\n"
    "  - {name: ts-def, test: tcp_stream, duration: 0.3s, warmup: 0s}\n"
    "  - {name: us-def, test: udp_stream, duration: 0.3s, warmup: 0s}\n"
    "  - {name: tr-def, test: tcp_rr, duration: 0.3s, warmup: 0s}\n"
    "  - {name: ur-def, test: udp_rr, duration: 0.3s, warmup: 0s}\n"
    "  - {name: tc-def, test: tcp_crr, duration: 0.3s, warmup: 0s}\n"
    "  - {name: ts-set, test: tcp_stream, duration: 0.4s, warmup: 0.1s, streams: 2, msg_size: "
    "64K,\n"
    "     rate: 200M, interval: 100ms, window: 256K, reverse: true}\n"
    "  - {name: us-set, test: udp_stream, duration: 0.4s, warmup: 0.1s, streams: 2,\n"
    "     msg_size: 1000, rate: 20M, interval: 200ms, window: 512K, reverse: true}\n"
    "  - {name: tr-set, test: tcp_rr, duration: 0.4s, warmup: 0.1s, msg_size: 100,\n"
    "     response_size: 300, interval: 100ms, window: 64K}\n"
    "  - {name: ur-set, test: udp_rr, duration: 0.4s, warmup: 0.1s, msg_size: 200,\n"
    "     interval: 200ms, window: 128K}\n"
    "  - {name: tc-set, test: tcp_crr, duration: 0.4s, warmup: 0.1s, msg_size: 10,\n"
    "     response_size: 20, interval: 100ms, window: 32K}\n";

/* The value a plan above gives parameter p of scenario name, else the kind's default. */
static double
params_expected(const char *name, int kind, enum testspec_param p)
{
    static const struct {
        const char *name;
        enum testspec_param p;
        double v;
    } given[] = {
        {"ts-set", TESTSPEC_P_STREAMS, 2},     {"ts-set", TESTSPEC_P_MSG_SIZE, 65536},
        {"ts-set", TESTSPEC_P_RATE, 200e6},    {"ts-set", TESTSPEC_P_INTERVAL, 0.1},
        {"ts-set", TESTSPEC_P_WINDOW, 262144}, {"ts-set", TESTSPEC_P_REVERSE, 1},
        {"us-set", TESTSPEC_P_STREAMS, 2},     {"us-set", TESTSPEC_P_MSG_SIZE, 1000},
        {"us-set", TESTSPEC_P_RATE, 20e6},     {"us-set", TESTSPEC_P_INTERVAL, 0.2},
        {"us-set", TESTSPEC_P_WINDOW, 524288}, {"us-set", TESTSPEC_P_REVERSE, 1},
        {"tr-set", TESTSPEC_P_MSG_SIZE, 100},  {"tr-set", TESTSPEC_P_RESPONSE_SIZE, 300},
        {"tr-set", TESTSPEC_P_INTERVAL, 0.1},  {"tr-set", TESTSPEC_P_WINDOW, 65536},
        {"ur-set", TESTSPEC_P_MSG_SIZE, 200},  {"ur-set", TESTSPEC_P_RESPONSE_SIZE, 200},
        {"ur-set", TESTSPEC_P_INTERVAL, 0.2},  {"ur-set", TESTSPEC_P_WINDOW, 131072},
        {"tc-set", TESTSPEC_P_MSG_SIZE, 10},   {"tc-set", TESTSPEC_P_RESPONSE_SIZE, 20},
        {"tc-set", TESTSPEC_P_INTERVAL, 0.1},  {"tc-set", TESTSPEC_P_WINDOW, 32768},
    };
    bool set = strstr(name, "-set") != NULL;
    if (p == TESTSPEC_P_DURATION)
        return set ? 0.4 : 0.3;
    if (p == TESTSPEC_P_WARMUP)
        return set ? 0.1 : 0.0;
    for (size_t i = 0; i < sizeof given / sizeof given[0]; i++)
        if (strcmp(given[i].name, name) == 0 && given[i].p == p)
            return given[i].v;
    return testspec_default(p, kind);
}

static double
json_param(const json_t *v)
{
    return json_is_boolean(v) ? (json_is_true(v) ? 1.0 : 0.0) : json_number_value(v);
}

/* obj holds exactly the parameters that apply to kind (under the names of column col: 0 plan,
 * 1 journal, 2 nsperf), each at want; extra lists the other keys it may have. */
static void
assert_params(const char *who, const char *scen, const json_t *obj, int col, int kind,
              const char *const *extra)
{
    assert_true(json_is_object(obj));
    size_t known = 0;
    for (size_t i = 0; i < NPARAM_NAMES; i++) {
        const char *key = col == 0   ? param_names[i].plan
                          : col == 1 ? param_names[i].journal
                                     : param_names[i].nsperf;
        const json_t *v = json_object_get(obj, key);
        enum testspec_param p = param_names[i].p;
        if (!testspec_applies(p, kind)) {
            if (v != NULL)
                fail_msg("%s %s: %s does not apply to the kind but is there", who, scen, key);
            continue;
        }
        if (v == NULL)
            fail_msg("%s %s: no %s", who, scen, key);
        double want = params_expected(scen, kind, p);
        if (fabs(json_param(v) - want) > 1e-9 * fabs(want))
            fail_msg("%s %s: %s is %.17g, want %.17g", who, scen, key, json_param(v), want);
        if (testspec_type(p) == TESTSPEC_BOOL ? !json_is_boolean(v) : !json_is_number(v))
            fail_msg("%s %s: %s has the wrong type", who, scen, key);
        known++;
    }
    const char *k;
    const json_t *v;
    json_object_foreach((json_t *)(uintptr_t)obj, k, v)
    {
        bool ok = false;
        for (size_t i = 0; i < NPARAM_NAMES && !ok; i++)
            ok = strcmp(k, col == 0   ? param_names[i].plan
                           : col == 1 ? param_names[i].journal
                                      : param_names[i].nsperf) == 0;
        for (size_t i = 0; extra != NULL && extra[i] != NULL && !ok; i++)
            ok = strcmp(k, extra[i]) == 0;
        if (!ok)
            fail_msg("%s %s: unexpected member %s", who, scen, k);
    }
    (void)known;
}

/* The client's -J document of the trial whose result is rec's: the runner records nsperf's
 * result unchanged, so the two match exactly. */
static json_t *
client_doc_of(const json_t *rec)
{
    DIR *d = opendir(tmpdir);
    assert_non_null(d);
    json_t *found = NULL;
    struct dirent *de;
    while (found == NULL && (de = readdir(d)) != NULL) {
        if (strncmp(de->d_name, "client.", 7) != 0)
            continue;
        char path[PATH_MAX];
        tmp_path(path, sizeof path, de->d_name);
        json_t *doc = json_load_file(path, 0, NULL);
        if (doc != NULL &&
            json_equal(json_object_get(doc, "result"), json_object_get(rec, "result")))
            found = doc;
        else
            json_decref(doc);
    }
    closedir(d);
    return found;
}

static void
test_params_recorded_as_run(void **state)
{
    (void)state;
    write_file("params.yaml", params_plan, 0644);
    char wrapper[PATH_MAX * 2 + 256];
    snprintf(wrapper, sizeof wrapper,
             "#!/bin/sh\n"
             "case \" $* \" in *\" -c \"*) out=%s/client.$$.json; %s \"$@\" >\"$out\"; st=$?;\n"
             "  cat \"$out\"; exit $st;; esac\n"
             "exec %s \"$@\"\n",
             tmpdir, NSPERF_BIN, NSPERF_BIN);
    write_file("nsperf-tee", wrapper, 0755);
    char *o, *e;
    const char *plan_args[] = {"plan", "--json", "params.yaml", NULL};
    assert_int_equal(ns_run(plan_args, NULL, &o, &e), 0);
    json_t *plan = json_loads(o, 0, NULL);
    assert_non_null(plan);
    free(o);
    free(e);
    const char *args[] = {"run",      "params.yaml", "-o", "params",
                          "--nsperf", "nsperf-tee",  "-q", NULL};
    int st = ns_run(args, NULL, &o, &e);
    if (st != 0)
        fail_msg("exit %d\n%s\n%s", st, o, e);
    free(o);
    free(e);
    char path[PATH_MAX];
    tmp_path(path, sizeof path, "params/run.json");
    json_t *run = json_load_file(path, 0, NULL);
    assert_non_null(run);
    struct journal_view v;
    journal_load("params", &v);
    assert_int_equal(v.lines, 10);
    const json_t *pscens = json_object_get(plan, "scenarios");
    const json_t *rscens = json_object_get(run, "scenarios");
    assert_int_equal(json_array_size(pscens), 10);
    assert_int_equal(json_array_size(rscens), 10);
    static const char *const journal_extra[] = {"name", "test", NULL};
    static const char *const run_extra[] = {"name", "test", "trials", "planned", NULL};
    static const char *const nsperf_extra[] = {"test", "family", "udp_recv_buf", NULL};
    for (size_t i = 0; i < 10; i++) {
        const json_t *ps = json_array_get(pscens, i), *rs = json_array_get(rscens, i);
        const char *name = str_at(ps, "name", NULL);
        int kind = testspec_kind_find(str_at(ps, "test", NULL));
        assert_true(kind >= 0);
        assert_string_equal(str_at(rs, "name", NULL), name);
        assert_params("plan --json", name, json_object_get(ps, "params"), 0, kind, NULL);
        assert_params("run.json", name, rs, 1, kind, run_extra);
        const json_t *rec = NULL;
        size_t j;
        json_t *r;
        json_array_foreach(v.recs, j, r) if (strcmp(str_at(r, "scenario", "name"), name) == 0) rec =
            r;
        assert_non_null(rec);
        assert_string_equal(str_at(rec, "status", NULL), "ok");
        assert_params("the trial record", name, json_object_get(rec, "scenario"), 1, kind,
                      journal_extra);
        json_t *doc = client_doc_of(rec);
        if (doc == NULL)
            fail_msg("%s: no client document with the recorded result", name);
        assert_params("nsperf -J", name, json_object_get(doc, "params"), 2, kind, nsperf_extra);
        json_decref(doc);
    }
    json_decref(v.recs);
    json_decref(run);
    json_decref(plan);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_failures_recorded), cmocka_unit_test(test_deadline_sigstop),
        cmocka_unit_test(test_kill_and_resume),   cmocka_unit_test(test_sigint_and_resume),
        cmocka_unit_test(test_default_plan),      cmocka_unit_test(test_params_recorded_as_run),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
