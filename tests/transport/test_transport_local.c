/* test_transport_local.c - the local transport with /bin/sh as the program: stdin delivery,
 * line reads, caps, exit statuses, deadlines, group kills, a program that cannot start. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>
#include <cmocka.h>

#include "common/clock.h"
#include "transport/transport.h"

#define LONG_S 30.0 /* generous: only a broken transport waits this long */

static int64_t
after(double s)
{
    return (int64_t)clock_now_ns() + (int64_t)(s * 1e9);
}

static struct transport *
open_local(void)
{
    struct transport_target tt = {.name = "here", .kind = "local"};
    struct transport *t = NULL;
    struct err e = {0};
    assert_int_equal(transport_open(&tt, &t, &e), 0);
    assert_string_equal(transport_kind(t), "local");
    assert_string_equal(transport_name(t), "here");
    return t;
}

static struct transport_proc *
sh(struct transport *t, const char *script, const char *in)
{
    const char *argv[] = {"/bin/sh", "-c", script, NULL};
    struct transport_proc *p = NULL;
    struct err e = {0};
    assert_int_equal(transport_spawn(t, argv, in, in != NULL ? strlen(in) : 0, &p, &e), 0);
    return p;
}

static void
test_stdin_lines_and_status(void **state)
{
    (void)state;
    struct transport *t = open_local();
    struct transport_proc *p =
        sh(t, "read x; echo \"first $x\"; echo second; echo oops >&2; printf rest; exit 3",
           "secret\n");
    char line[64];
    struct err e = {0};
    assert_int_equal(transport_read_line(p, line, sizeof line, after(LONG_S), &e), 0);
    assert_string_equal(line, "first secret");
    assert_int_equal(transport_read_line(p, line, sizeof line, after(LONG_S), &e), 0);
    assert_string_equal(line, "second");
    struct transport_output o;
    assert_int_equal(transport_wait(p, 1024, 1024, after(LONG_S), &o, &e), 0);
    assert_string_equal(o.out, "rest");
    assert_string_equal(o.err, "oops\n");
    assert_int_equal(o.status, 3);
    transport_output_release(&o);
    transport_proc_free(p);
    transport_close(t);
}

static void
test_caps_and_closed(void **state)
{
    (void)state;
    struct transport *t = open_local();
    struct transport_proc *p = sh(t, "printf 0123456789abcdef", NULL);
    char line[8];
    struct err e = {0};
    assert_int_equal(transport_read_line(p, line, sizeof line, after(LONG_S), &e), NS_ETOOBIG);
    struct transport_output o;
    assert_int_equal(transport_wait(p, 10, 10, after(LONG_S), &o, &e), 0);
    assert_true(o.out_truncated);
    assert_int_equal(o.out_len, 10);
    assert_string_equal(o.out, "0123456789");
    transport_output_release(&o);
    transport_proc_free(p);
    /* stderr kept while stdout was read line by line is cut to wait's cap too */
    p = sh(t, "printf 0123456789 >&2; echo line; printf x >&2", NULL);
    assert_int_equal(transport_read_line(p, line, sizeof line, after(LONG_S), &e), 0);
    assert_string_equal(line, "line");
    assert_int_equal(transport_wait(p, 10, 4, after(LONG_S), &o, &e), 0);
    assert_true(o.err_truncated);
    assert_int_equal(o.err_len, 4);
    assert_string_equal(o.err, "0123");
    assert_false(o.out_truncated);
    assert_string_equal(o.out, "");
    transport_output_release(&o);
    transport_proc_free(p);
    p = sh(t, "printf no-newline", NULL);
    char big[64];
    assert_int_equal(transport_read_line(p, big, sizeof big, after(LONG_S), &e), NS_ECLOSED);
    transport_proc_free(p);
    transport_close(t);
}

static bool
alive(pid_t pid)
{
    /* A zombie is not running: look at the state in /proc. */
    char path[64], buf[256];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return false;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    char *paren = strrchr(buf, ')');
    return paren != NULL && paren[1] == ' ' && paren[2] != 'Z' && paren[2] != 'X';
}

static void
test_deadline_and_group_kill(void **state)
{
    (void)state;
    struct transport *t = open_local();
    /* The shell starts a grandchild in the same group and reports its pid. */
    struct transport_proc *p = sh(t, "sleep 60 & echo $!; wait", NULL);
    char line[32];
    struct err e = {0};
    assert_int_equal(transport_read_line(p, line, sizeof line, after(LONG_S), &e), 0);
    pid_t grandchild = (pid_t)atoi(line);
    assert_true(grandchild > 0);
    struct transport_output o;
    assert_int_equal(transport_wait(p, 1024, 1024, after(0.05), &o, &e), NS_ETIMEDOUT);
    transport_output_release(&o);
    assert_int_equal(transport_signal(p, SIGKILL, &e), 0);
    assert_int_equal(transport_wait(p, 1024, 1024, after(LONG_S), &o, &e), 0);
    assert_int_equal(o.status, 128 + SIGKILL);
    transport_output_release(&o);
    transport_proc_free(p);
    for (int i = 0; i < 3000 && alive(grandchild); i++)
        clock_sleep_ns(NS_PER_MS);
    assert_false(alive(grandchild));
    /* proc_free alone kills a running program; close kills what is left. */
    p = sh(t, "echo up; exec sleep 60", NULL);
    assert_int_equal(transport_read_line(p, line, sizeof line, after(LONG_S), &e), 0);
    transport_proc_free(p);
    transport_close(t);
}

static void
test_cannot_start(void **state)
{
    (void)state;
    struct transport *t = open_local();
    const char *argv[] = {"/nonexistent/nsperf", "-s", NULL};
    struct transport_proc *p = NULL;
    struct err e = {0};
    assert_int_equal(transport_spawn(t, argv, NULL, 0, &p, &e), NS_EREMOTE);
    assert_null(p);
    assert_non_null(strstr(e.msg, "No such file"));
    char path[256];
    assert_int_equal(transport_deploy(t, "/nonexistent/nsperf", path, sizeof path, &e),
                     NS_ENOTFOUND);
    assert_int_equal(transport_deploy(t, "/bin/sh", path, sizeof path, &e), 0);
    assert_int_equal(path[0], '/');
    struct transport_target tt = {.name = "x", .kind = "carrier-pigeon"};
    struct transport *none = NULL;
    assert_int_equal(transport_open(&tt, &none, &e), NS_EINVAL);
    transport_close(t);
}

int
main(void)
{
    signal(SIGPIPE, SIG_IGN);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stdin_lines_and_status),
        cmocka_unit_test(test_caps_and_closed),
        cmocka_unit_test(test_deadline_and_group_kill),
        cmocka_unit_test(test_cannot_start),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
