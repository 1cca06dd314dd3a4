/* What a test costs beyond its warmup and duration, per kind: `nsperf -s -1 -p 0` and
 * `nsperf -c ... -t 0.5 --warmup 0 -J` as the runner starts them, timed from spawning the server
 * to both exits. The goal is 20 ms (tests/bench/bench_nsperf.sh measures it); this test only
 * guards against a regression to waits that end at timeouts (a 100 ms socket timeout per
 * test, a drain of 120 ms), with a bound ten times the goal, scaled like every bound here for
 * a loaded machine and sanitizers (ns_slack.h), and the best of a few tries, since load can only
 * add time. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "ns_slack.h"
#include "nsperf_spawn.h"

#define FIXED_GOAL_S 0.020
#define FIXED_BOUND_S (10 * FIXED_GOAL_S * NS_TEST_SLACK / 2.0)
#define FIXED_TRIES 3
#define FIXED_DURATION "0.5"
#define FIXED_DURATION_S 0.5

/* The server's port from its ready line ({"event":"listening","port":N}), or 0. */
static unsigned
ready_port(int fd, double timeout_s)
{
    char line[256];
    sp_drain_line(fd, line, sizeof line, sp_now() + timeout_s);
    const char *p = strstr(line, "\"port\":");
    return p != NULL ? (unsigned)strtoul(p + 7, NULL, 10) : 0;
}

/* One test of kind with extra client flags; returns seconds beyond the duration, or a negative
 * value when it failed (the failure is reported). */
static double
fixed_cost_once(const char *kind, const char *const *extra)
{
    double t0 = sp_now();
    int out;
    const char *sargv[] = {"nsperf", "-s", "-1", "-p", "0", "-B", "127.0.0.1", NULL};
    pid_t srv = sp_spawn_out(sargv, &out, NULL);
    assert_true(srv > 0);
    unsigned port = ready_port(out, 10.0 * NS_TEST_SLACK);
    close(out);
    if (port == 0) {
        sp_kill(srv);
        fail_msg("%s: the server printed no ready line", kind);
    }
    char ps[16];
    snprintf(ps, sizeof ps, "%u", port);
    const char *args[24] = {"-c", "127.0.0.1",    "-p",       ps,  "--test", kind,
                            "-t", FIXED_DURATION, "--warmup", "0", "-J"};
    int n = 11;
    for (int i = 0; extra != NULL && extra[i] != NULL && n < 23; i++)
        args[n++] = extra[i];
    args[n] = NULL;
    struct sp_result r;
    sp_client(&r, args, NULL, 30.0 * NS_TEST_SLACK);
    int sst = sp_wait(srv, 10.0 * NS_TEST_SLACK);
    double took = sp_now() - t0 - FIXED_DURATION_S;
    if (sst < 0)
        sp_kill(srv);
    const char *err = json_string_value(json_object_get(r.doc, "error"));
    if (r.status != 0 || sst != 0 || err != NULL)
        fail_msg("%s: client %d, server %d: %s", kind, r.status, sst, err != NULL ? err : r.out);
    json_decref(r.doc);
    return took;
}

static void
check_kind(const char *kind, const char *const *extra)
{
    double best = 1e9;
    for (int i = 0; i < FIXED_TRIES && best > FIXED_BOUND_S; i++) {
        double took = fixed_cost_once(kind, extra);
        best = took < best ? took : best;
    }
    fprintf(stderr, "%s: fixed cost %.1f ms (bound %.0f ms)\n", kind, best * 1e3,
            FIXED_BOUND_S * 1e3);
    if (best > FIXED_BOUND_S)
        fail_msg("%s costs %.0f ms beyond its duration (bound %.0f ms, goal %.0f ms)", kind,
                 best * 1e3, FIXED_BOUND_S * 1e3, FIXED_GOAL_S * 1e3);
}

static void
test_tcp_stream(void **state)
{
    (void)state;
    check_kind("tcp_stream", NULL);
    const char *reverse[] = {"-R", NULL};
    check_kind("tcp_stream", reverse);
}

static void
test_udp_stream(void **state)
{
    (void)state;
    check_kind("udp_stream", NULL);
    const char *reverse[] = {"-R", NULL};
    check_kind("udp_stream", reverse);
}

static void
test_tcp_rr(void **state)
{
    (void)state;
    check_kind("tcp_rr", NULL);
}

static void
test_udp_rr(void **state)
{
    (void)state;
    check_kind("udp_rr", NULL);
}

static void
test_tcp_crr(void **state)
{
    (void)state;
    check_kind("tcp_crr", NULL);
}

int
main(void)
{
    signal(SIGPIPE, SIG_IGN);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tcp_stream), cmocka_unit_test(test_udp_stream),
        cmocka_unit_test(test_tcp_rr),     cmocka_unit_test(test_udp_rr),
        cmocka_unit_test(test_tcp_crr),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
