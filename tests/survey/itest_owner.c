/* itest_owner.c - one owner per run directory and what run.json says of the run: a second run or
 * resume of a directory in use refused at once naming the owner's PID (and the first one
 * finishing every trial once), the lock not held by the processes a run starts, SIGTERM's exit
 * status and state, one directory per run for back-to-back runs, placeholders of -o, extra words
 * after --version, no ETA on the status line once the last test is done, and names as data
 * addresses resolved by check, and reports that cannot be written (exit 73). */
#include "itest.h"

#include <netdb.h>
#include <poll.h>
#include <pty.h>

static json_t *
run_json(const char *dir)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s/run.json", tmpdir, dir);
    json_t *run = json_load_file(path, 0, NULL);
    assert_non_null(run);
    return run;
}

/* Whether process pid has a descriptor open on path: 1 it has, 0 it has descriptors but not
 * that one, -1 it has none (gone, or a zombie: its files are closed). */
static int
proc_holds(const char *pid, const char *path)
{
    char fddir[300];
    snprintf(fddir, sizeof fddir, "/proc/%s/fd", pid);
    DIR *d = opendir(fddir);
    if (d == NULL)
        return -1;
    bool found = false, any = false;
    struct dirent *de;
    while (!found && (de = readdir(d)) != NULL) {
        char link[PATH_MAX], target[PATH_MAX];
        snprintf(link, sizeof link, "%s/%s", fddir, de->d_name);
        ssize_t n = readlink(link, target, sizeof target - 1);
        if (n > 0) {
            any = true;
            target[n] = '\0';
            found = strcmp(target, path) == 0;
        }
    }
    closedir(d);
    return found ? 1 : any ? 0 : -1;
}

/* A process seen holding the lock may be between fork and exec, or in its exec (the kernel
 * closes close-on-exec files late in it): fine if it lets the lock go while it still has its
 * other descriptors (alive, exec done); not if it keeps it until it ends, as a descriptor
 * inherited without close-on-exec is kept (10 s: longer than any test of the plan). */
static bool
lets_lock_go(const char *pid, const char *lock)
{
    int h = 1;
    for (int i = 0; i < 10000 && (h = proc_holds(pid, lock)) == 1; i++)
        nap_ms(1);
    return h == 0;
}

/* The marked processes other than owner (the nsperf a run started): how many were seen, and
 * fail if one holds the lock file. */
static int
children_without_lock(pid_t owner, const char *lock)
{
    DIR *d = opendir("/proc");
    assert_non_null(d);
    int seen = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] < '1' || de->d_name[0] > '9' || atol(de->d_name) == (long)owner ||
            !proc_has_mark(de->d_name) || !proc_running(de->d_name))
            continue;
        seen++;
        if (proc_holds(de->d_name, lock) == 1 && !lets_lock_go(de->d_name, lock)) {
            closedir(d);
            fail_msg("process %s, started by the run, holds %s", de->d_name, lock);
        }
    }
    closedir(d);
    return seen;
}

static long
pid_named(const char *text)
{
    const char *p = strstr(text, "(pid ");
    return p != NULL ? strtol(p + 5, NULL, 10) : -1;
}

static void
test_second_owner_refused(void **state)
{
    (void)state;
    write_four("four.yaml", "0.3s");
    char out[PATH_MAX], err[PATH_MAX];
    const char *args[] = {"run", "four.yaml", "-o", "owned", NULL};
    pid_t pid = ns_start(args, NULL, out, err, sizeof out);
    wait_lines(pid, "owned", 2);
    assert_string_equal(run_state("owned"), "running");
    /* A resume and a new run of the same directory, while the first goes on: refused at once
     * (before the first one ends), naming its PID. */
    char *o, *e;
    const char *resume[] = {"run", "four.yaml", "--resume", "owned", NULL};
    const char *again[] = {"run", "four.yaml", "-o", "owned", NULL};
    const char *bare[] = {"run", "--resume", "owned", NULL};
    const char *const *tries[] = {resume, again, bare};
    for (size_t i = 0; i < 3; i++) {
        assert_int_equal(ns_run(tries[i], NULL, &o, &e), 2);
        if (pid_named(e) != (long)pid)
            fail_msg("refusal %zu names no pid %d: %s", i, (int)pid, e);
        assert_non_null(strstr(e, "in use"));
        free(o);
        free(e);
        int st;
        assert_int_equal(waitpid(pid, &st, WNOHANG), 0); /* the first one is still running */
    }
    /* The nsperf processes it starts do not hold the lock (close-on-exec). */
    char lock[PATH_MAX];
    snprintf(lock, sizeof lock, "%s/owned/.lock", tmpdir);
    int seen = 0;
    for (int i = 0; i < 2000 && seen < 5; i++) {
        seen += children_without_lock(pid, lock);
        nap_ms(2);
    }
    assert_true(seen >= 5);
    int st = ns_wait(pid, RUN_TIMEOUT_S);
    if (st != 0)
        fail_msg("the first run exited %d\n%s", st, read_text(err));
    assert_nothing_left();
    struct journal_view v;
    journal_load("owned", &v);
    assert_int_equal(v.lines, 24);
    assert_int_equal(assert_ok_once(&v), 24);
    json_decref(v.recs);
    /* What run.json says: complete, when, what was planned. */
    json_t *run = run_json("owned");
    assert_string_equal(json_string_value(json_object_get(run, "state")), "complete");
    assert_non_null(json_string_value(json_object_get(run, "ended")));
    const json_t *sc = json_array_get(json_object_get(run, "scenarios"), 0);
    assert_int_equal(json_integer_value(json_object_get(sc, "trials")), 2);
    assert_int_equal(json_integer_value(json_object_get(sc, "planned")), 24);
    const json_t *pairs = json_object_get(run, "pairs");
    assert_int_equal(json_array_size(pairs), 12);
    /* What the estimate is calibrated from: every round measured, none shorter than its tests;
     * and the estimate is the dry run's. */
    const json_t *sched = json_object_get(run, "schedule");
    const json_t *local = json_object_get(json_object_get(run, "measured"), "local");
    assert_int_equal(json_integer_value(json_object_get(local, "rounds")),
                     json_integer_value(json_object_get(sched, "rounds")));
    assert_true(json_real_value(json_object_get(local, "setup_mean_s")) > 0);
    assert_true(json_real_value(json_object_get(local, "setup_max_s")) >=
                json_real_value(json_object_get(local, "setup_mean_s")));
    assert_null(json_object_get(json_object_get(run, "measured"), "ssh"));
    const char *plan_args[] = {"plan", "--json", "four.yaml", NULL};
    assert_int_equal(ns_run(plan_args, NULL, &o, &e), 0);
    json_t *dry = json_loads(o, 0, NULL);
    free(o);
    free(e);
    assert_true(fabs(json_real_value(json_object_get(sched, "estimate_s")) -
                     json_number_value(json_object_get(dry, "estimated_s"))) < 1e-9);
    json_decref(dry);
    bool seen_pair[4][4] = {{false}};
    size_t i;
    json_t *pr;
    json_array_foreach(pairs, i, pr)
    {
        json_int_t a = json_integer_value(json_array_get(pr, 0));
        json_int_t b = json_integer_value(json_array_get(pr, 1));
        assert_true(a >= 0 && a < 4 && b >= 0 && b < 4 && a != b && !seen_pair[a][b]);
        seen_pair[a][b] = true;
    }
    json_decref(run);
}

/* Wait until the kernel has handed signal sig, sent to pid, to one of its threads (no longer
 * in /proc/PID/status's ShdPnd): two signals pending at once are delivered lowest first
 * (SIGINT before SIGTERM), whatever order they were sent in. */
static void
wait_taken(pid_t pid, int sig)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    for (int i = 0; i < 10000; i++) {
        FILE *f = fopen(path, "re");
        if (f == NULL)
            return; /* reaped: nothing pending */
        char line[256];
        unsigned long long pend = 0;
        while (fgets(line, sizeof line, f) != NULL)
            if (sscanf(line, "ShdPnd: %llx", &pend) == 1)
                break;
        fclose(f);
        if ((pend & (1ULL << (sig - 1))) == 0)
            return;
        usleep(1000);
    }
    fail_msg("signal %d still pending at %d after 10 s", sig, (int)pid);
}

static void
test_sigterm(void **state)
{
    (void)state;
    write_four("four.yaml", "0.3s");
    char out[PATH_MAX], err[PATH_MAX];
    const char *args[] = {"run", "four.yaml", "-o", "terminated", NULL};
    pid_t pid = ns_start(args, NULL, out, err, sizeof out);
    wait_lines(pid, "terminated", 3);
    kill(pid, SIGTERM);
    wait_taken(pid, SIGTERM);
    kill(pid, SIGINT); /* a second signal changes nothing, the exit status included */
    assert_int_equal(ns_wait(pid, RUN_TIMEOUT_S), 143);
    assert_nothing_left();
    assert_string_equal(run_state("terminated"), "interrupted");
    char *o = read_text(out);
    assert_non_null(strstr(o, "--resume terminated"));
    free(o);
    char *e;
    const char *resume[] = {"run", "--resume", "terminated", "-q", NULL};
    int st = ns_run(resume, NULL, &o, &e);
    if (st != 0)
        fail_msg("resume exit %d\n%s\n%s", st, o, e);
    free(o);
    free(e);
    assert_string_equal(run_state("terminated"), "complete");
    json_t *run = run_json("terminated");
    assert_int_equal(json_array_size(json_object_get(run, "resumes")), 1);
    json_decref(run);
    struct journal_view v;
    journal_load("terminated", &v);
    assert_int_equal(assert_ok_once(&v), 24);
    json_decref(v.recs);
}

static const char tiny[] = "name: tiny\n"
                           "hosts:\n"
                           "  - {name: h1, transport: local, data_address: 127.0.0.21}\n"
                           "  - {name: h2, transport: local, data_address: 127.0.0.22}\n"
                           "scenarios:\n"
                           "  - {name: rr, test: tcp_rr, duration: 0.05s, warmup: 0s}\n"
                           "pairs: [[h1, h2]]\n"
                           "directions: one\n"
                           "output: runs/{name}-{timestamp}\n";

/* The run directories under tmpdir/runs, each checked to hold a complete run of one trial. */
static size_t
complete_runs(void)
{
    char path[PATH_MAX];
    tmp_path(path, sizeof path, "runs");
    DIR *d = opendir(path);
    assert_non_null(d);
    size_t n = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.')
            continue;
        char dir[300];
        snprintf(dir, sizeof dir, "runs/%s", de->d_name);
        assert_string_equal(run_state(dir), "complete");
        assert_int_equal(journal_lines(dir), 1);
        n++;
    }
    closedir(d);
    return n;
}

static void
test_one_directory_per_run(void **state)
{
    (void)state;
    write_file("tiny.yaml", tiny, 0644);
    char *o, *e;
    const char *args[] = {"run", "tiny.yaml", "-q", NULL};
    for (int i = 0; i < 3; i++) {
        int st = ns_run(args, NULL, &o, &e);
        if (st != 0)
            fail_msg("run %d exited %d\n%s\n%s", i + 1, st, o, e);
        free(o);
        free(e);
    }
    assert_int_equal(complete_runs(), 3);
    /* Two at once (the same millisecond or not: then the second takes a -2): two directories. */
    char out[2][PATH_MAX], err[2][PATH_MAX];
    pid_t a = ns_start(args, NULL, out[0], err[0], sizeof out[0]);
    pid_t b = ns_start(args, NULL, out[1], err[1], sizeof out[1]);
    assert_int_equal(ns_wait(a, RUN_TIMEOUT_S), 0);
    assert_int_equal(ns_wait(b, RUN_TIMEOUT_S), 0);
    assert_int_equal(complete_runs(), 5);
    /* A trailing slash names the same directory: no suffix is said to have been added. */
    const char *slash[] = {"run", "tiny.yaml", "-q", "-o", "runs/slash-{timestamp}/", NULL};
    assert_int_equal(ns_run(slash, NULL, &o, &e), 0);
    assert_non_null(strstr(o, "run directory: runs/slash-"));
    if (strstr(o, "suffix") != NULL)
        fail_msg("a suffix said to be added:\n%s", o);
    free(o);
    free(e);
    assert_int_equal(complete_runs(), 6);
    /* Unknown placeholders in -o are refused before anything runs. */
    const char *bad[] = {"run", "tiny.yaml", "-o", "runs/{nmae}-{foo}", NULL};
    assert_int_equal(ns_run(bad, NULL, &o, &e), 2);
    assert_non_null(strstr(e, "unknown placeholder '{nmae}'; did you mean '{name}'?"));
    free(o);
    free(e);
    assert_int_equal(complete_runs(), 6);
}

/* A resume takes only its own run's trials: a record of another run_id (a results.jsonl pieced
 * together by hand) is refused, naming it, before anything runs; without it the resume goes.
 * A run.json of an unknown version is refused naming it and the known ones. */
static void
test_resume_foreign_record(void **state)
{
    (void)state;
    write_file("tiny.yaml", tiny, 0644);
    char *o, *e;
    const char *args[] = {"run", "tiny.yaml", "-q", "-o", "mine", NULL};
    assert_int_equal(ns_run(args, NULL, &o, &e), 0);
    free(o);
    free(e);
    char path[PATH_MAX];
    tmp_path(path, sizeof path, "mine/results.jsonl");
    char *line = read_text(path);
    json_t *rec = json_loads(line, 0, NULL);
    assert_non_null(rec);
    free(line);
    json_object_set_new(rec, "run_id", json_string("20200101T000000.000Z-beef"));
    char *text = json_dumps(rec, JSON_COMPACT);
    json_decref(rec);
    FILE *f = fopen(path, "ae");
    assert_non_null(f);
    fprintf(f, "%s\n", text);
    assert_int_equal(fclose(f), 0);
    free(text);
    const char *resume[] = {"run", "--resume", "mine", NULL};
    assert_int_equal(ns_run(resume, NULL, &o, &e), 2);
    if (strstr(e, "holds 1 trial record of another run (run_id 20200101T000000.000Z-beef") == NULL)
        fail_msg("not refused for the foreign record:\n%s", e);
    free(o);
    free(e);
    assert_int_equal(journal_lines("mine"), 2);
    assert_string_equal(run_state("mine"), "complete");
    /* the foreign line gone: the finished run resumes (nothing to redo) */
    char *all = read_text(path);
    char *nl = strchr(all, '\n');
    assert_non_null(nl);
    nl[1] = '\0';
    write_file("mine/results.jsonl", all, 0644);
    free(all);
    assert_int_equal(ns_run(resume, NULL, &o, &e), 0);
    free(o);
    free(e);
    assert_int_equal(journal_lines("mine"), 1);
    /* a run.json of a version this netsurvey does not know (nor an older one): refused, both
     * named (run.json and results.jsonl left as they were) */
    json_t *run = run_json("mine");
    json_object_set_new(run, "schema", json_string("netsurvey.run/9"));
    char rpath[PATH_MAX];
    tmp_path(rpath, sizeof rpath, "mine/run.json");
    assert_int_equal(json_dump_file(run, rpath, JSON_COMPACT), 0);
    json_decref(run);
    assert_int_equal(ns_run(resume, NULL, &o, &e), 2);
    /* the journal's reader refuses it (record.c's run_schema_check), naming both */
    if (strstr(e, "cannot resume mine: mine/run.json: unsupported schema 'netsurvey.run/9' (this "
                  "netsurvey reads netsurvey.run/3, netsurvey.run/2 and netsurvey.run/1)") == NULL)
        fail_msg("not refused for the unknown version:\n%s", e);
    free(o);
    free(e);
    assert_int_equal(journal_lines("mine"), 1);
}

static void
test_version_takes_nothing(void **state)
{
    (void)state;
    char *o, *e;
    const char *version[] = {"--version", NULL};
    assert_int_equal(ns_run(version, NULL, &o, &e), 0);
    assert_non_null(strstr(o, "netsurvey "));
    free(o);
    free(e);
    const char *extra[] = {"--version", "extra", NULL};
    assert_int_equal(ns_run(extra, NULL, &o, &e), 2);
    assert_non_null(strstr(e, "unexpected argument 'extra' after --version"));
    assert_string_equal(o, "");
    free(o);
    free(e);
    const char *help_extra[] = {"--help", "extra", NULL};
    assert_int_equal(ns_run(help_extra, NULL, &o, &e), 2);
    free(o);
    free(e);
    const char *help_run[] = {"help", "run", NULL};
    assert_int_equal(ns_run(help_run, NULL, &o, &e), 0);
    assert_non_null(strstr(o, "usage: netsurvey run"));
    free(o);
    free(e);
}

/* The live status line (stderr on a terminal): an ETA while tests are left, none once the last
 * one is done. */
static void
test_no_eta_after_the_end(void **state)
{
    (void)state;
    write_four("four.yaml", "0.2s");
    int master = -1;
    pid_t pid = forkpty(&master, NULL, NULL, NULL);
    assert_true(pid >= 0);
    if (pid == 0) {
        putenv(mark);
        int nul = open("/dev/null", O_WRONLY);
        if (nul < 0 || dup2(nul, 1) < 0 || chdir(tmpdir) != 0)
            _exit(99);
        execl(NETSURVEY_BIN, NETSURVEY_BIN, "run", "four.yaml", "-o", "eta", (char *)NULL);
        _exit(98);
    }
    size_t cap = 1 << 20, len = 0;
    char *text = malloc(cap);
    assert_non_null(text);
    double end = now_s() + RUN_TIMEOUT_S;
    for (;;) {
        struct pollfd pfd = {.fd = master, .events = POLLIN};
        int r = poll(&pfd, 1, 100);
        if (r > 0) {
            ssize_t n = read(master, text + len, cap - 1 - len);
            if (n <= 0)
                break; /* EIO: the child's side is closed */
            len += (size_t)n;
        }
        assert_true(len < cap - 1);
        assert_true(now_s() < end);
    }
    text[len] = '\0';
    close(master);
    assert_int_equal(ns_wait(pid, RUN_TIMEOUT_S), 0);
    /* The status lines, each after "\r\033[K": with 24/24 tests no ETA, before that one. */
    size_t with_eta = 0, at_end = 0;
    for (char *p = strstr(text, "\r\033[K"); p != NULL; p = strstr(p + 1, "\r\033[K")) {
        char *next = strstr(p + 1, "\r\033[K");
        size_t n = next != NULL ? (size_t)(next - p) : strlen(p);
        char line[512];
        snprintf(line, sizeof line, "%.*s", (int)(n < sizeof line ? n : sizeof line - 1), p);
        if (strstr(line, "tests 24/24") != NULL) {
            at_end++;
            if (strstr(line, "ETA") != NULL)
                fail_msg("an ETA after the last test: %s", line + 4);
        } else if (strstr(line, "tests ") != NULL && strstr(line, "ETA") != NULL) {
            with_eta++;
        }
    }
    free(text);
    assert_true(at_end >= 1);
    assert_true(with_eta >= 1);
}

/* check resolves a host name given as a data address (getaddrinfo, here: localhost) and finds
 * the duplicate (or the mix of families) that only the resolved address shows. */
static void
test_check_resolves_names(void **state)
{
    (void)state;
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *res = NULL;
    assert_int_equal(getaddrinfo("localhost", "0", &hints, &res), 0);
    bool v4 = res->ai_family == AF_INET;
    freeaddrinfo(res);
    write_file("names.yaml",
               "name: names\n"
               "hosts:\n"
               "  - {name: a, transport: local, data_address: 127.0.0.1}\n"
               "  - {name: b, transport: local, data_address: localhost}\n"
               "scenarios:\n"
               "  - {name: rr, test: tcp_rr, duration: 1s}\n",
               0644);
    char *o, *e;
    const char *args[] = {"check", "names.yaml", NULL};
    assert_int_equal(ns_run(args, NULL, &o, &e), 2);
    if (v4)
        assert_non_null(strstr(e, "names.yaml:4:47: duplicate data address: 'localhost' of host "
                                  "'b' resolves to 127.0.0.1, the data address of host 'a'"));
    else
        assert_non_null(strstr(e, "names.yaml:4:47: host 'b' (IPv6 data address ::1)"));
    free(o);
    free(e);
    /* and plan and run refuse it the same way, before any host is contacted */
    const char *run[] = {"run", "names.yaml", "-o", "names", NULL};
    assert_int_equal(ns_run(run, NULL, &o, &e), 2);
    free(o);
    free(e);
    struct stat st;
    char path[PATH_MAX];
    tmp_path(path, sizeof path, "names");
    assert_int_not_equal(stat(path, &st), 0);
}

/* Reports that cannot be written are the exit status's (73), after a survey whose journal is
 * whole; `netsurvey report DIR` writes them once the way is clear. */
static void
test_reports_unwritable(void **state)
{
    (void)state;
    write_four("four.yaml", "0.2s");
    char out[PATH_MAX], err[PATH_MAX];
    const char *args[] = {"run", "four.yaml", "-o", "noreport", NULL};
    pid_t pid = ns_start(args, NULL, out, err, sizeof out);
    wait_lines(pid, "noreport", 1);
    /* a non-empty directory where report.md goes: no file can be written or renamed there */
    char path[PATH_MAX];
    tmp_path(path, sizeof path, "noreport/report.md");
    assert_int_equal(mkdir(path, 0755), 0);
    write_file("noreport/report.md/x", "", 0644);
    int st = ns_wait(pid, RUN_TIMEOUT_S);
    char *e = read_text(err);
    if (st != CLI_RUN_REPORTS)
        fail_msg("exit %d, want %d\n%s", st, CLI_RUN_REPORTS, e);
    assert_non_null(strstr(e, "the reports were not written"));
    free(e);
    assert_string_equal(run_state("noreport"), "complete");
    assert_int_equal(journal_lines("noreport"), 24);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_second_owner_refused),  cmocka_unit_test(test_sigterm),
        cmocka_unit_test(test_one_directory_per_run), cmocka_unit_test(test_version_takes_nothing),
        cmocka_unit_test(test_no_eta_after_the_end),  cmocka_unit_test(test_check_resolves_names),
        cmocka_unit_test(test_reports_unwritable),    cmocka_unit_test(test_resume_foreign_record),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
