/* itest_run.c - `netsurvey run` as users run it: real netsurvey and nsperf processes on
 * 127.0.0.21-24 with short plans. Every wait is bounded; the processes a run started are found
 * by a marker in their environment (NS_SURVEY_ITEST=<ours>), so "nothing left running" looks
 * only at what this test started, and the test signals only PIDs it started or found so. */

#include "itest.h"

/* --- tests ---------------------------------------------------------------------------------- */

/* The a -> b cell of scenario name's zone matrix in the run's end text, as summary.json gives it:
 * "mean ± half-width" in the unit the matrix's heading names, four significant digits. */
/* The element of array a whose member key is the text value, or NULL. */
static const json_t *
find_by(const json_t *a, const char *key, const char *value)
{
    size_t i;
    const json_t *o;
    json_array_foreach(a, i, o)
    {
        if (strcmp(json_string_value(json_object_get(o, key)), value) == 0)
            return o;
    }
    return NULL;
}

static void
assert_matrix_cell(const char *out, const json_t *sum, const char *name)
{
    const json_t *s = find_by(json_object_get(sum, "scenarios"), "name", name);
    assert_non_null(s);
    const json_t *c = find_by(json_object_get(s, "zone_cells"), "src_zone", "a");
    assert_non_null(c);
    assert_int_equal(json_integer_value(json_object_get(c, "n")), 3);
    char head[128];
    snprintf(head, sizeof head, "\n%s (%s, ipv4): ", name,
             json_string_value(json_object_get(s, "test")));
    const char *h = strstr(out, head);
    if (h == NULL)
        fail_msg("no matrix headed '%s' in:\n%s", head + 1, out);
    /* the unit the heading names, against the summary's (us, Mbit/s) */
    static const struct {
        const char *unit;
        double div;
    } units[] = {
        {" in \u00b5s\n", 1}, {" in ms\n", 1e3}, {" in Mbit/s\n", 1}, {" in Gbit/s\n", 1e3}};
    double div = 0;
    const char *eol = strchr(h + 1, '\n');
    for (size_t u = 0; u < sizeof units / sizeof units[0]; u++) {
        const char *at = strstr(h, units[u].unit);
        if (at != NULL && at < eol + 1 && at + strlen(units[u].unit) == eol + 1)
            div = units[u].div;
    }
    assert_true(div > 0);
    double mean = json_number_value(json_object_get(c, "mean")) / div;
    double hw = json_number_value(json_object_get(c, "ci95_halfwidth")) / div;
    int dec = mean >= 1000 ? 0 : mean >= 100 ? 1 : mean >= 10 ? 2 : 3;
    char cell[128];
    snprintf(cell, sizeof cell, "%.*f \u00b1 %.*f\n", dec, mean, dec, hw);
    const char *row = strstr(h, "\n  a ");
    if (row == NULL || strstr(row, cell) == NULL || strstr(row, cell) > strchr(row + 1, '\n'))
        fail_msg("%s: a -> b is not '%s' (summary.json's) in:\n%s", name, cell, out);
}

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
    /* the figures first, from the summary the report built, then where everything is */
    const char *m = strstr(out, "\nzone matrices: "), *dir = strstr(out, "\nrun directory: ");
    assert_true(m != NULL && dir != NULL && m < dir);
    char path[PATH_MAX];
    tmp_path(path, sizeof path, "default/summary.json");
    json_t *sum = json_load_file(path, 0, NULL);
    assert_non_null(sum);
    assert_matrix_cell(out, sum, "latency");
    assert_matrix_cell(out, sum, "throughput");
    json_decref(sum);
    free(out);
    free(err);
    assert_nothing_left();
    struct journal_view v;
    journal_load("default", &v);
    assert_true(v.ends_with_newline);
    assert_int_equal(v.lines, (size_t)tests);
    assert_int_equal(assert_ok_once(&v), (size_t)tests);
    json_decref(v.recs);

    tmp_path(path, sizeof path, "default/run.json");
    json_t *run = json_load_file(path, 0, NULL);
    assert_non_null(run);
    assert_string_equal(str_at(run, "schema", NULL), "netsurvey.run/2");
    assert_string_equal(str_at(run, "plan", "name"), "localhost");
    /* the plan's description, for the reports to say what the run was for */
    assert_string_equal(str_at(run, "plan", "description"),
                        "two loopback endpoints, one latency and one throughput scenario");
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
    assert_string_equal(run_state("killed"), "running"); /* and nobody holds the lock: */
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
    assert_string_equal(run_state("killed"), "complete");
    free(o);
    free(e);
    assert_nothing_left();
    struct journal_view v;
    journal_load("killed", &v);
    assert_true(v.ends_with_newline);
    assert_int_equal(assert_ok_once(&v), 24);
    assert_int_equal(v.lines, 24); /* no failures, so nothing but the 24 ok records */
    json_decref(v.recs);

    /* The plan changed: refused, naming the difference, nothing run; --force records it as
     * the run's plan revision 2, which runs its 24 trials anew (the 24 of 0.3 s are not its
     * trials of 0.4 s). A plan whose text alone changed is refused too, and --force then
     * goes on in the same revision (and finds nothing to do). */
    write_four("four-changed.yaml", "0.4s");
    const char *changed[] = {"run", "four-changed.yaml", "--resume", "killed", NULL};
    assert_int_equal(ns_run(changed, NULL, &o, &e), 2);
    assert_non_null(strstr(e, "the plan differs from the run's in 1 way"));
    assert_non_null(strstr(e, "\n  scenario 'rr': duration_s "));
    free(o);
    free(e);
    char path2[PATH_MAX];
    tmp_path(path2, sizeof path2, "four-comment.yaml");
    write_four("four-comment.yaml", "0.3s");
    FILE *cf = fopen(path2, "a");
    fputs("# a comment changes the text, not the run\n", cf);
    fclose(cf);
    const char *comment[] = {"run", "four-comment.yaml", "--resume", "killed", NULL};
    assert_int_equal(ns_run(comment, NULL, &o, &e), 2);
    assert_non_null(strstr(e, "nothing it runs differs"));
    free(o);
    free(e);
    const char *comment_forced[] = {"run",    "four-comment.yaml", "--resume",
                                    "killed", "--force",           NULL};
    assert_int_equal(ns_run(comment_forced, NULL, &o, &e), 0);
    free(o);
    free(e);
    assert_int_equal(journal_lines("killed"), 24);
    const char *forced[] = {"run", "four-changed.yaml", "--resume", "killed", "--force", NULL};
    assert_int_equal(ns_run(forced, NULL, &o, &e), 0);
    free(o);
    free(e);
    assert_int_equal(journal_lines("killed"), 48);
    journal_load("killed", &v);
    assert_int_equal(assert_ok_once(&v), 48);
    json_decref(v.recs);
    /* A new run never writes into a directory that holds one. */
    const char *again[] = {"run", "four.yaml", "-o", "killed", NULL};
    assert_int_equal(ns_run(again, NULL, &o, &e), 2);
    assert_non_null(strstr(e, "holds a finished run"));
    assert_null(strstr(e, "resume")); /* never offered for a run that finished */
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
    assert_string_equal(run_state("interrupted"), "interrupted");
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

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_failures_recorded), cmocka_unit_test(test_deadline_sigstop),
        cmocka_unit_test(test_kill_and_resume),   cmocka_unit_test(test_sigint_and_resume),
        cmocka_unit_test(test_default_plan),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
