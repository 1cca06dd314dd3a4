/* itest_diskfull.c - a disk that fills in the middle of a run (a small tmpfs, mounted by the
 * test: root only, skipped otherwise): the run stops with exit 4, the end summary counts exactly
 * what the journal holds (a trial whose line could not be written is "not recorded"), every line
 * on disk is whole, and a resume once space is freed completes every trial exactly once. */
#include "itest.h"

#include <sys/mount.h>

static char mnt[PATH_MAX];
static bool mounted;

static int
mount_setup(void **state)
{
    if (setup(state) != 0)
        return -1;
    snprintf(mnt, sizeof mnt, "%s/small", tmpdir);
    if (mkdir(mnt, 0755) != 0)
        return -1;
    if (geteuid() == 0 && mount("tmpfs", mnt, "tmpfs", MS_NOSUID | MS_NODEV, "size=8m") == 0)
        mounted = true;
    return 0;
}

static int
mount_teardown(void **state)
{
    if (mounted && umount2(mnt, MNT_DETACH) != 0)
        return -1;
    return teardown(state);
}

/* Fill the file system of path until a write fails; returns the bytes written. */
static size_t
fill(const char *path)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    assert_true(fd >= 0);
    static char block[4096];
    size_t total = 0;
    ssize_t n;
    while ((n = write(fd, block, sizeof block)) > 0)
        total += (size_t)n;
    assert_int_equal(errno, ENOSPC);
    close(fd);
    return total;
}

/* "trials: X ok, Y failed this run[, Z not recorded]" of a summary. */
static void
summary_counts(const char *out, long *ok, long *failed, long *unrecorded)
{
    const char *p = strstr(out, "trials: ");
    assert_non_null(p);
    assert_int_equal(sscanf(p, "trials: %ld ok, %ld failed this run", ok, failed), 2);
    const char *u = strstr(p, " not recorded");
    const char *eol = strchr(p, '\n');
    *unrecorded = 0;
    if (u != NULL && (eol == NULL || u < eol)) {
        const char *q = u;
        while (q > p && q[-1] >= '0' && q[-1] <= '9')
            q--;
        *unrecorded = strtol(q, NULL, 10);
    }
}

static void
test_disk_fills_mid_run(void **state)
{
    (void)state;
    if (!mounted)
        skip(); /* needs root to mount a tmpfs */
    write_four("four.yaml", "0.2s");
    char out[PATH_MAX], err[PATH_MAX];
    const char *args[] = {"run", "four.yaml", "-o", "small/run", NULL};
    pid_t pid = ns_start(args, NULL, out, err, sizeof out);
    wait_lines(pid, "small/run", 4);
    char filler[PATH_MAX + 16];
    snprintf(filler, sizeof filler, "%s/filler", mnt);
    assert_true(fill(filler) > 0);
    int st = ns_wait(pid, RUN_TIMEOUT_S);
    char *o = read_text(out), *e = read_text(err);
    if (st != 4)
        fail_msg("exit %d, want 4 (the journal could not be written)\n%s\n%s", st, o, e);
    assert_nothing_left();
    long ok, failed, unrecorded;
    summary_counts(o, &ok, &failed, &unrecorded);
    assert_true(unrecorded >= 1);
    assert_non_null(strstr(o, "not recorded: "));
    assert_non_null(strstr(o, "--resume small/run"));
    free(o);
    free(e);
    /* The summary's counts are the journal's, and every line on it is whole. */
    struct journal_view v;
    journal_load("small/run", &v);
    assert_true(v.ends_with_newline);
    assert_int_equal((long)v.lines, ok + failed);
    assert_int_equal((long)assert_ok_once(&v), ok);
    assert_true(v.lines < 24);
    json_decref(v.recs);
    /* Nobody holds the directory; free the space and resume: every trial once. */
    assert_int_equal(unlink(filler), 0);
    const char *resume[] = {"run", "four.yaml", "--resume", "small/run", "-q", NULL};
    st = ns_run(resume, NULL, &o, &e);
    if (st != 0)
        fail_msg("resume exit %d\n%s\n%s", st, o, e);
    free(o);
    free(e);
    assert_nothing_left();
    journal_load("small/run", &v);
    assert_int_equal(v.lines, 24);
    assert_int_equal(assert_ok_once(&v), 24);
    json_decref(v.recs);
    assert_string_equal(run_state("small/run"), "complete");
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_disk_fills_mid_run),
    };
    return cmocka_run_group_tests(tests, mount_setup, mount_teardown);
}
