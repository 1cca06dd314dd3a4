/* itest_incomplete.c - the reports of runs that did not end well, as users make them: real
 * `netsurvey run` and nsperf processes on 127.0.0.31-34, stopped by SIGINT or SIGKILL part way,
 * then `netsurvey report DIR`: it exits 4 and says in its title, its summary and on stderr how
 * many planned trials are missing, until a resume completes the run. Also: a run all of whose
 * trials failed writes its reports without running gnuplot on empty data, and a run whose
 * reports cannot be written says so in its exit status. Every wait is bounded; the test signals
 * only the PIDs it started. */
#include "survey/itest.h" /* the process runner, files and waits of the survey's itests */

#define PLANNED 24 /* four_far: 12 ordered pairs x 2 trials */

static char *
read_in(const char *dir, const char *name)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s/%s", tmpdir, dir, name);
    return read_text(path);
}

/* Not itest.h's four_hosts: on 127.0.0.31-34, apart from the survey itests' .21-24. */
static const char four_far[] =
    "name: four\n"
    "description: four local hosts, stopped part way\n"
    "hosts:\n"
    "  - {name: h1, transport: local, data_address: 127.0.0.31, zone: \"1\"}\n"
    "  - {name: h2, transport: local, data_address: 127.0.0.32, zone: \"2\"}\n"
    "  - {name: h3, transport: local, data_address: 127.0.0.33, zone: \"3\"}\n"
    "  - {name: h4, transport: local, data_address: 127.0.0.34, zone: \"1\"}\n"
    "scenarios:\n"
    "  - {name: rr, test: tcp_rr, duration: 0.3s, warmup: 0.1s}\n"
    "trials: 2\n"
    "pairs: all\n"
    "parallel: true\n";

/* `netsurvey report DIR` of a run stopped with `lines` trials in its journal: exit 4, and the
 * same count in its title, its summary and on stderr. */
static void
assert_reported_incomplete(const char *dir, size_t lines)
{
    char *o, *e;
    const char *report[] = {"report", dir, NULL};
    int st = ns_run(report, NULL, &o, &e);
    if (st != 4)
        fail_msg("report exit %d\n%s\n%s", st, o, e);
    char want[512];
    snprintf(want, sizeof want, "%s: the run is incomplete", dir);
    assert_non_null(strstr(e, want));
    snprintf(want, sizeof want, "%zu of %d planned trials not run", PLANNED - lines, PLANNED);
    assert_non_null(strstr(e, want));
    free(o);
    free(e);
    char *md = read_in(dir, "report.md");
    snprintf(want, sizeof want,
             "# netsurvey report: four (incomplete: %zu of %d planned trials "
             "not run)\n",
             PLANNED - lines, PLANNED);
    if (strstr(md, want) == NULL)
        fail_msg("report.md does not start with the mark: %.300s", md);
    assert_non_null(strstr(md, "  - Plan: four local hosts, stopped part way"));
    free(md);
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s/summary.json", tmpdir, dir);
    json_t *sum = json_load_file(path, 0, NULL);
    assert_non_null(sum);
    const json_t *c = json_object_get(sum, "completeness");
    assert_true(json_is_false(json_object_get(c, "complete")));
    assert_int_equal(json_integer_value(json_object_get(c, "planned")), PLANNED);
    assert_int_equal(json_integer_value(json_object_get(c, "not_run")), PLANNED - (int)lines);
    json_decref(sum);
}

/* After a resume the same report is complete: exit 0, no mark. */
static void
assert_resumed_complete(const char *dir)
{
    char *o, *e;
    const char *resume[] = {"run", "--resume", dir, "-q", NULL};
    int st = ns_run(resume, NULL, &o, &e);
    if (st != 0)
        fail_msg("resume exit %d\n%s\n%s", st, o, e);
    free(o);
    free(e);
    const char *report[] = {"report", dir, NULL};
    st = ns_run(report, NULL, &o, &e);
    if (st != 0)
        fail_msg("report exit %d\n%s\n%s", st, o, e);
    free(o);
    free(e);
    char *md = read_in(dir, "report.md");
    assert_non_null(strstr(md, "# netsurvey report: four\n"));
    assert_non_null(strstr(md, "trials: 24 planned: 24 ok, 0 failed, 0 not run"));
    free(md);
}

static void
stop_part_way(const char *dir, int sig, int want_status)
{
    write_file("four.yaml", four_far, 0644);
    char out[PATH_MAX], err[PATH_MAX];
    const char *args[] = {"run", "four.yaml", "-o", dir, NULL};
    pid_t pid = ns_start(args, NULL, out, err, sizeof out);
    wait_lines(pid, dir, 3);
    kill(pid, sig);
    assert_int_equal(ns_wait(pid, RUN_TIMEOUT_S), want_status);
    size_t lines = journal_lines(dir);
    assert_true(lines >= 3 && lines < PLANNED);
    assert_reported_incomplete(dir, lines);
    assert_resumed_complete(dir);
}

static void
test_sigint_then_report(void **state)
{
    (void)state;
    stop_part_way("interrupted", SIGINT, 130);
}

static void
test_sigkill_then_report(void **state)
{
    (void)state;
    stop_part_way("killed", SIGKILL, 128 + SIGKILL);
}

/* `netsurvey report DIR` while the run is going (held there: h4's servers wait for a file the
 * test makes once the report is done): it reads the complete lines, says the run is still
 * going (its PID), marks the title and exits 4; the run's own reports at its end replace those,
 * complete. */
static void
test_report_while_running(void **state)
{
    (void)state;
    char wrapper[2 * PATH_MAX + 256];
    snprintf(wrapper, sizeof wrapper,
             "#!/bin/sh\n"
             "case \" $* \" in *\" -s \"*\" 127.0.0.34 \"*)\n"
             "  n=0; while [ ! -e %s/release ] && [ $n -lt 1200 ]; do sleep 0.05; n=$((n+1)); "
             "done;;\n"
             "esac\n"
             "exec %s \"$@\"\n",
             tmpdir, NSPERF_BIN);
    write_file("nsperf-held", wrapper, 0755);
    write_file("four.yaml", four_far, 0644);
    char out[PATH_MAX], err[PATH_MAX];
    const char *args[] = {"run", "four.yaml", "-o", "running", "--nsperf", "nsperf-held", NULL};
    pid_t pid = ns_start(args, NULL, out, err, sizeof out);
    wait_lines(pid, "running", 1);
    char *o, *e;
    const char *report[] = {"report", "running", NULL};
    int st = ns_run(report, NULL, &o, &e);
    assert_int_equal(waitpid(pid, &(int){0}, WNOHANG), 0); /* held: still going */
    write_file("release", "", 0644);
    if (st != 4)
        fail_msg("report exit %d\n%s\n%s", st, o, e);
    char want[256];
    snprintf(want, sizeof want, "running: the run is still going (netsurvey pid %ld holds it)",
             (long)pid);
    if (strstr(e, want) == NULL)
        fail_msg("stderr: %s", e);
    free(o);
    free(e);
    char *md = read_in("running", "report.md");
    assert_non_null(strstr(md, "# netsurvey report: four (in progress: "));
    assert_non_null(strstr(md, " of 24 planned trials recorded so far)\n"));
    assert_non_null(strstr(md, "State: in progress"));
    free(md);
    st = ns_wait(pid, RUN_TIMEOUT_S);
    if (st != 0)
        fail_msg("run exit %d\n%s", st, read_text(err));
    md = read_in("running", "report.md");
    assert_non_null(strstr(md, "# netsurvey report: four\n"));
    assert_non_null(strstr(md, "State: complete; trials: 24 planned: 24 ok, 0 failed, 0 not run"));
    free(md);
    const char *again[] = {"report", "running", NULL};
    assert_int_equal(ns_run(again, NULL, &o, &e), 0);
    free(o);
    free(e);
}

/* Every trial failed: the reports are written, no chart is tried, the report says why. */
static void
test_all_failed_no_gnuplot(void **state)
{
    (void)state;
    char wrapper[PATH_MAX + 256];
    snprintf(wrapper, sizeof wrapper,
             "#!/bin/sh\n"
             "case \" $* \" in *\" -s \"*) echo 'wrapper: no server' >&2; exit 126;; esac\n"
             "exec %s \"$@\"\n",
             NSPERF_BIN);
    write_file("nsperf-broken", wrapper, 0755);
    write_file("two.yaml",
               "name: two\n"
               "hosts:\n"
               "  - {name: h1, transport: local, data_address: 127.0.0.31}\n"
               "  - {name: h2, transport: local, data_address: 127.0.0.32}\n"
               "scenarios:\n"
               "  - {name: rr, test: tcp_rr, duration: 0.3s, warmup: 0.1s}\n"
               "pairs: all\n"
               "retries: 0\n",
               0644);
    char *o, *e;
    const char *args[] = {"run", "two.yaml", "-o", "allfailed", "--nsperf", "nsperf-broken", NULL};
    int st = ns_run(args, NULL, &o, &e);
    if (st != 3)
        fail_msg("exit %d\n%s\n%s", st, o, e);
    if (strstr(e, "gnuplot") != NULL || strstr(e, "the reports were not written") != NULL)
        fail_msg("stderr: %s", e);
    free(o);
    free(e);
    char *md = read_in("allfailed", "report.md");
    assert_non_null(strstr(md, "No charts: no trial of this scenario succeeded."));
    assert_non_null(strstr(md, "trials: 2 planned: 0 ok, 2 failed, 0 not run"));
    free(md);
    char path[PATH_MAX];
    tmp_path(path, sizeof path, "allfailed/charts");
    struct stat sb;
    assert_int_equal(stat(path, &sb), -1);
}

/* Reports that cannot be written (here a template that does not render): the survey's exit
 * status says so (5), the journal is whole, and `netsurvey report` writes them later. */
static void
test_reports_unwritten(void **state)
{
    (void)state;
    char tdir[PATH_MAX];
    tmp_path(tdir, sizeof tdir, "broken-templates");
    assert_int_equal(mkdir(tdir, 0755), 0);
    write_file("broken-templates/report.md", "{{#never}} closed\n", 0644);
    write_file("one.yaml",
               "name: one\n"
               "hosts:\n"
               "  - {name: h1, transport: local, data_address: 127.0.0.31}\n"
               "  - {name: h2, transport: local, data_address: 127.0.0.32}\n"
               "scenarios:\n"
               "  - {name: rr, test: tcp_rr, duration: 0.3s, warmup: 0.1s}\n"
               "pairs: all\n",
               0644);
    char env[PATH_MAX + 32];
    snprintf(env, sizeof env, "NETSURVEY_TEMPLATES=%s", tdir);
    char *o, *e;
    const char *args[] = {"run", "one.yaml", "-o", "unwritten", NULL};
    int st = ns_run(args, env, &o, &e);
    if (st != CLI_RUN_REPORTS)
        fail_msg("exit %d\n%s\n%s", st, o, e);
    assert_non_null(strstr(e, "netsurvey run: the reports were not written"));
    free(o);
    free(e);
    assert_int_equal(journal_lines("unwritten"), 2);
    const char *report[] = {"report", "unwritten", NULL};
    assert_int_equal(ns_run(report, env, &o, &e), CLI_REPORT_UNWRITTEN);
    free(o);
    free(e);
    assert_int_equal(ns_run(report, NULL, &o, &e), 0);
    free(o);
    free(e);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sigint_then_report),   cmocka_unit_test(test_sigkill_then_report),
        cmocka_unit_test(test_report_while_running), cmocka_unit_test(test_all_failed_no_gnuplot),
        cmocka_unit_test(test_reports_unwritten),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
