/* test_dir.c - the run directory (dir.c, active.c): one directory per run, its lock and state,
 * the runs in progress, appends that are whole lines or nothing, and a resume that cuts a torn
 * last line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "common/hist.h"
#include "common/histjson.h"
#include "journal/journal.h"
#include "journal/scan.h"

#include "jtest.h"

static const struct journal_run minimal_run = {.run_id = "r1",
                                               .plan_name = "p",
                                               .plan_file = "p.yaml",
                                               .plan_sha256 = "00ff",
                                               .plan_source = "",
                                               .netsurvey_version = "0.1.0",
                                               .nsperf_sha256 = "abab",
                                               .started = "2026-11-30T15:00:00.123Z",
                                               .command = "netsurvey run p.yaml",
                                               .state = JOURNAL_RUN_RUNNING};

/* A run.json with what every run has, state running, through j. */
static void
write_minimal_run_locked(struct journal *j)
{
    struct err e = {0};
    assert_int_equal(journal_write_run(j, &minimal_run, &e), 0);
}

/* The same into the existing directory dir, which nobody holds. */
static void
write_minimal_run(const char *dir)
{
    struct journal *j = NULL;
    struct err e = {0};
    /* journal_open_locked takes only a directory that holds a run.json */
    char path[PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/%s", dir, JOURNAL_RUN_FILE);
    file_append(path, "{}");
    assert_int_equal(journal_open_locked(dir, &j, &e), 0);
    write_minimal_run_locked(j);
    journal_free(j);
}

static void
test_resume_cuts_torn_line(void **state)
{
    (void)state;
    char dir[PATH_MAX], path[PATH_MAX], buf[8192];
    struct journal *j = fresh("torn", dir);
    struct err e = {0};
    struct journal_trial t = sample_trial(1, JOURNAL_FAILED);
    assert_int_equal(journal_append(j, &t, NULL, &e), 0);
    journal_free(j);
    path_in(path, sizeof path, "torn", JOURNAL_RESULTS_FILE);
    size_t first = file_text(path, buf, sizeof buf);
    /* a bad middle line, a line of another schema, a trial record of another version, and a
     * torn last one */
    static const char middle[] =
        "not json\n{\"schema\":\"other/1\"}\n{\"schema\":\"netsurvey.trial/9\"}\n";
    file_append(path, middle);
    file_append(path, "{\"schema\":\"netsurvey.tr");
    struct collected c = {0};
    c.want[0] = t;
    struct journal_read_stats st;
    assert_int_equal(journal_read_trials(dir, NULL, collect, skipped, &c, &st, &e), 0);
    assert_int_equal(c.n, 1);
    assert_int_equal(st.records, 1);
    assert_int_equal(st.bad, 2);
    assert_int_equal(st.refused, 1);
    assert_int_equal(st.torn, 1);
    assert_int_equal(c.skipped, 4);
    assert_int_equal(c.skipped_line[0], 2);
    assert_int_equal(c.kind[0], JOURNAL_SKIP_BAD);
    assert_int_equal(c.skipped_line[1], 3);
    assert_int_equal(c.kind[1], JOURNAL_SKIP_BAD);
    assert_string_equal(c.why[1], "not a trial record");
    assert_int_equal(c.skipped_line[2], 4);
    assert_int_equal(c.kind[2], JOURNAL_SKIP_REFUSED);
    assert_string_equal(c.why[2], "unsupported schema 'netsurvey.trial/9' (this netsurvey reads "
                                  "netsurvey.trial/1 to netsurvey.trial/5)");
    assert_int_equal(c.skipped_line[3], 5);
    assert_int_equal(c.kind[3], JOURNAL_SKIP_TORN);
    assert_string_equal(c.why[3], "torn last line");
    size_t cut = 0;
    assert_int_equal(journal_open_locked(dir, &j, &e), NS_ENOTFOUND); /* no run.json */
    write_minimal_run(dir);
    assert_int_equal(journal_open_locked(dir, &j, &e), 0);
    assert_int_equal(journal_resume(j, &cut, &e), 0);
    assert_int_equal(cut, strlen("{\"schema\":\"netsurvey.tr"));
    assert_int_equal(journal_append(j, &t, NULL, &e), 0);
    journal_free(j);
    size_t n = file_text(path, buf, sizeof buf);
    assert_int_equal(n, 2 * first + strlen(middle));
    assert_int_equal(buf[n - 1], '\n');
    c = (struct collected){.want = {t, t}};
    assert_int_equal(journal_read_trials(dir, NULL, collect, NULL, &c, &st, &e), 0);
    assert_int_equal(c.n, 2);
    assert_int_equal(st.torn, 0);
    /* No results.jsonl at all: a run that has not recorded a trial yet. */
    unlink(path);
    assert_int_equal(journal_read_trials(dir, NULL, collect, NULL, &c, &st, &e), NS_ENOTFOUND);
}

/* --- the lock, the state, one directory per run, whole lines --------------------------------- */

static long
pid_in_message(const char *msg)
{
    const char *p = strstr(msg, "(pid ");
    return p != NULL ? strtol(p + 5, NULL, 10) : -1;
}

struct seen_run {
    int n;
    char dir[PATH_MAX];
    long pid;
};

static void
seen_run(void *arg, const char *dir, long pid)
{
    struct seen_run *s = arg;
    s->n++;
    snprintf(s->dir, sizeof s->dir, "%s", dir);
    s->pid = pid;
}

/* A run says it is in progress; `clean` finds it by its plan while its lock is held, and the
 * entry of a run that ended (its lock released, the entry left behind) goes. */
static void
test_runs_in_progress(void **state)
{
    (void)state;
    char xdg[PATH_MAX];
    path_in(xdg, sizeof xdg, "xdg", NULL);
    assert_int_equal(mkdir(xdg, 0700), 0);
    setenv("XDG_RUNTIME_DIR", xdg, 1);
    char dir[PATH_MAX], entry[PATH_MAX + 64];
    struct journal *j = fresh("active-run", dir);
    struct err e = {0};
    assert_int_equal(journal_active_add(dir, "plan-a", entry, sizeof entry, &e), 0);
    assert_int_equal(strncmp(entry, xdg, strlen(xdg)), 0);
    struct seen_run s = {0};
    assert_int_equal(journal_runs_in_progress("plan-a", seen_run, &s, &e), 1);
    assert_int_equal(s.n, 1);
    char abs[PATH_MAX];
    assert_non_null(realpath(dir, abs));
    assert_string_equal(s.dir, abs);
    assert_int_equal(s.pid, (long)getpid());
    assert_int_equal(journal_runs_in_progress("plan-b", NULL, NULL, &e), 0);
    journal_free(j); /* ended without removing its entry (a SIGKILL) */
    struct stat st;
    assert_int_equal(stat(entry, &st), 0);
    assert_int_equal(journal_runs_in_progress("plan-a", NULL, NULL, &e), 0);
    assert_int_not_equal(stat(entry, &st), 0);
    unsetenv("XDG_RUNTIME_DIR");
}

static void
test_lock(void **state)
{
    (void)state;
    char dir[PATH_MAX];
    struct journal *j = fresh("locked", dir), *k = NULL;
    write_minimal_run_locked(j);
    struct err e = {0};
    long pid = -1;
    assert_int_equal(journal_owner(dir, &pid, &e), 1);
    assert_int_equal(pid, (long)getpid());
    /* A second owner is refused at once, by a new run and by a resume, naming the PID. */
    assert_int_equal(journal_create(dir, &k, &e), NS_EBUSY);
    assert_null(k);
    assert_int_equal(pid_in_message(e.msg), (long)getpid());
    assert_non_null(strstr(e.msg, "in use"));
    assert_int_equal(journal_open_locked(dir, &k, &e), NS_EBUSY);
    assert_int_equal(pid_in_message(e.msg), (long)getpid());
    journal_free(j);
    assert_int_equal(journal_owner(dir, &pid, &e), 0);
    /* No lock file, no directory: nobody owns it. */
    char none[PATH_MAX];
    path_in(none, sizeof none, "no-such-dir", NULL);
    assert_int_equal(journal_owner(none, &pid, &e), 0);

    /* An owner that dies (SIGKILL) leaves the lock to the kernel, which drops it; a program it
     * started (exec) does not inherit it. */
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    pid_t child = fork();
    assert_true(child >= 0);
    if (child == 0) {
        struct journal *cj = NULL;
        struct err ce = {0};
        if (journal_open_locked(dir, &cj, &ce) != 0)
            _exit(1);
        pid_t grand = fork();
        if (grand == 0) {
            execl("/bin/sleep", "sleep", "30", (char *)NULL);
            _exit(2);
        }
        long both[2] = {(long)getpid(), (long)grand};
        if (write(fds[1], both, sizeof both) != (ssize_t)sizeof both)
            _exit(3);
        pause();
        _exit(0);
    }
    close(fds[1]);
    long both[2] = {0, 0};
    assert_int_equal(read(fds[0], both, sizeof both), (ssize_t)sizeof both);
    close(fds[0]);
    assert_int_equal(journal_owner(dir, &pid, &e), 1);
    assert_int_equal(pid, (long)child);
    kill(child, SIGKILL);
    int st;
    assert_int_equal(waitpid(child, &st, 0), child);
    /* The sleep the owner started still runs, and holds no lock. Its exec closes the inherited
     * lock file (close-on-exec) after the process has taken its new name, and the kernel drops
     * the lock only when that close completes, so "it is sleep now" is no signal: wait for the
     * lock to go, up to 10 s. Had the sleep (30 s) inherited it, the lock would stay held. */
    int owned = 1;
    for (int i = 0; i < 10000 && (owned = journal_owner(dir, &pid, &e)) == 1; i++)
        usleep(1000);
    assert_int_equal(owned, 0);
    assert_int_equal(kill((pid_t)both[1], 0), 0); /* the sleep is still there */
    assert_int_equal(journal_open_locked(dir, &k, &e), 0);
    journal_free(k);
    kill((pid_t)both[1], SIGKILL);
    waitpid((pid_t)both[1], &st, 0); /* reparented to init or to us (a subreaper): either way */
}

static void
test_state(void **state)
{
    (void)state;
    char dir[PATH_MAX];
    struct journal *j = fresh("state", dir), *k = NULL;
    write_minimal_run_locked(j);
    struct err e = {0};
    struct journal_run *r = NULL;
    assert_int_equal(journal_read_run(dir, &r, &e), 0);
    assert_int_equal(r->state, JOURNAL_RUN_RUNNING);
    assert_null(r->ended);
    assert_false(r->has_pairs && r->npair_list > 0);
    journal_run_free(r);
    /* Each final state, read back; everything else kept. */
    for (int s = JOURNAL_RUN_COMPLETE; s <= JOURNAL_RUN_FAILED; s++) {
        assert_int_equal(journal_set_state(j, (enum journal_run_state)s, NULL, NULL, &e), 0);
        assert_int_equal(journal_read_run(dir, &r, &e), 0);
        assert_int_equal(r->state, s);
        assert_non_null(r->ended);
        assert_string_equal(r->run_id, "r1");
        assert_string_equal(r->command, "netsurvey run p.yaml");
        assert_string_equal(journal_run_state_name(r->state),
                            json_string_value(json_object_get(r->json, "state")));
        journal_run_free(r);
    }
    json_t *resumed = json_pack("{s:s, s:s}", "started", "x", "command", "netsurvey run --resume");
    assert_int_equal(journal_set_state(j, JOURNAL_RUN_RUNNING, resumed, NULL, &e), 0);
    assert_int_equal(journal_set_state(j, JOURNAL_RUN_INTERRUPTED, resumed, resumed, &e), 0);
    assert_int_equal(journal_read_run(dir, &r, &e), 0);
    assert_int_equal(r->state, JOURNAL_RUN_INTERRUPTED);
    assert_int_equal(json_array_size(json_object_get(r->json, "resumes")), 2);
    assert_true(json_equal(json_object_get(r->json, "measured"), resumed));
    json_decref(resumed);
    journal_run_free(r);
    journal_free(j);
    /* A new run in the directory of one that did not finish: told to resume it. */
    assert_int_equal(journal_create(dir, &k, &e), NS_EBUSY);
    assert_non_null(strstr(e.msg, "--resume"));
    /* Of a finished one: never. */
    assert_int_equal(journal_open_locked(dir, &k, &e), 0);
    assert_int_equal(journal_set_state(k, JOURNAL_RUN_COMPLETE, NULL, NULL, &e), 0);
    journal_free(k);
    assert_int_equal(journal_create(dir, &k, &e), NS_EBUSY);
    assert_non_null(strstr(e.msg, "finished run"));
    assert_null(strstr(e.msg, "resume"));
    /* Names and back. */
    assert_int_equal(journal_run_state_from("complete"), JOURNAL_RUN_COMPLETE);
    assert_int_equal(journal_run_state_from("weird"), JOURNAL_RUN_UNKNOWN);
    assert_int_equal(journal_run_state_from(NULL), JOURNAL_RUN_UNKNOWN);
    assert_null(journal_run_state_name(JOURNAL_RUN_UNKNOWN));
}

static void
test_unique_dir(void **state)
{
    (void)state;
    char dir[PATH_MAX], want[PATH_MAX + 8];
    struct journal *a = fresh("uniq", dir), *b = NULL, *c = NULL;
    struct err e = {0};
    assert_int_equal(journal_create_unique(dir, &b, &e), 0);
    snprintf(want, sizeof want, "%s-2", dir);
    assert_string_equal(journal_dir(b), want);
    assert_int_equal(journal_create_unique(dir, &c, &e), 0);
    snprintf(want, sizeof want, "%s-3", dir);
    assert_string_equal(journal_dir(c), want);
    assert_string_equal(journal_dir(a), dir);
    journal_free(a);
    journal_free(b);
    journal_free(c);
    /* A directory that does not exist is taken as it is named; one that exists empty is not
     * (another process may be about to use it). */
    path_in(dir, sizeof dir, "uniq-new", NULL);
    assert_int_equal(journal_create_unique(dir, &a, &e), 0);
    assert_string_equal(journal_dir(a), dir);
    journal_free(a);
    path_in(dir, sizeof dir, "uniq-empty", NULL);
    assert_int_equal(mkdir(dir, 0777), 0);
    assert_int_equal(journal_create_unique(dir, &a, &e), 0);
    snprintf(want, sizeof want, "%s-2", dir);
    assert_string_equal(journal_dir(a), want);
    journal_free(a);
}

/* A line that does not fit (here RLIMIT_FSIZE, as a full disk would do it) leaves no part of
 * itself: the file is cut back, and the next record starts on a line of its own. */
static void
test_append_whole_or_nothing(void **state)
{
    (void)state;
    char dir[PATH_MAX], path[PATH_MAX];
    struct journal *j = fresh("full", dir);
    struct err e = {0};
    struct journal_trial t = sample_trial(1, JOURNAL_OK);
    assert_int_equal(append_trial(j, &t, &e), 0);
    path_in(path, sizeof path, "full", JOURNAL_RESULTS_FILE);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    off_t one = st.st_size;
    struct rlimit old, lim;
    assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
    lim = old;
    lim.rlim_cur = (rlim_t)(one + one / 2); /* half a line more */
    signal(SIGXFSZ, SIG_IGN);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
    t.trial = 2;
    int rc = append_trial(j, &t, &e);
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
    assert_int_equal(rc, NS_EIO);
    assert_non_null(strstr(e.msg, "cannot append"));
    assert_int_equal(st.st_size, one);
    t.trial = 3;
    assert_int_equal(append_trial(j, &t, &e), 0);
    journal_free(j);
    struct journal_trial a = sample_trial(1, JOURNAL_OK), b = sample_trial(3, JOURNAL_OK);
    struct collected c = {.minimal = true, .want = {a, b}};
    struct journal_read_stats rs;
    assert_int_equal(journal_read_trials(dir, NULL, collect, skipped, &c, &rs, &e), 0);
    assert_int_equal(c.n, 2);
    assert_int_equal(rs.bad + rs.torn, 0);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_resume_cuts_torn_line),
        cmocka_unit_test(test_lock),
        cmocka_unit_test(test_runs_in_progress),
        cmocka_unit_test(test_state),
        cmocka_unit_test(test_unique_dir),
        cmocka_unit_test(test_append_whole_or_nothing),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
