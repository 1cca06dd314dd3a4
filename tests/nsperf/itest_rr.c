/* The latency kinds end to end: real `nsperf -s -1` and `nsperf -c ... -J` processes on
 * 127.0.0.1 and ::1 (the harness of nsperf_spawn.h), the JSON document parsed and checked for
 * plausibility. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>

#include "ns_slack.h"
#include "nsperf_spawn.h"

#ifndef NSPERF_BIN
#error NSPERF_BIN must name the nsperf binary
#endif

/* A one-shot server on a free port (listening when this returns). */
static pid_t
start_server(char ps[16])
{
    unsigned port = sp_free_port();
    snprintf(ps, 16, "%u", port);
    const char *extra[] = {"-1", NULL};
    pid_t pid = sp_server(port, extra, NULL);
    if (pid <= 0)
        fail_msg("nsperf server did not start listening on port %u", port);
    return pid;
}

/* The -1 server exits by itself after its test; give it a moment, then make sure. */
static void
stop_server(pid_t pid)
{
    if (sp_wait(pid, 3.0) < 0)
        sp_kill(pid);
}

/* Run a client against host:ps with extra args. */
static void
run_client(struct sp_result *r, const char *host, const char *ps, const char *const extra[])
{
    const char *argv[32] = {"-c", host, "-p", ps};
    int n = 4;
    for (int i = 0; extra[i] != NULL && n < 31; i++)
        argv[n++] = extra[i];
    argv[n] = NULL;
    sp_client(r, argv, NULL, 30.0);
}

#include "common/clock.h"

static double
num(const json_t *o, const char *k1, const char *k2)
{
    const json_t *v = json_object_get(o, k1);
    if (k2 != NULL)
        v = json_object_get(v, k2);
    if (!json_is_number(v))
        fail_msg("missing number %s%s%s", k1, k2 ? "." : "", k2 ? k2 : "");
    return json_number_value(v);
}

/* One JSON run of kind on host; checks the plausibility every latency result must have. */
static json_t *
run_json(const char *kind, const char *host, const char *const more[])
{
    char ps[16];
    pid_t srv = start_server(ps);
    const char *extra[24] = {"--test", kind, "-t", "1", "--warmup", "0.2", "-J"};
    int n = 7;
    for (int i = 0; more != NULL && more[i] != NULL; i++)
        extra[n++] = more[i];
    extra[n] = NULL;
    static struct sp_result r;
    run_client(&r, host, ps, extra);
    stop_server(srv);
    json_t *doc = r.doc;
    if (doc == NULL)
        fail_msg("%s: client output is not JSON: %.300s", kind, r.out);
    const json_t *err = json_object_get(doc, "error");
    if (!json_is_null(err))
        fail_msg("%s: error %s", kind, json_string_value(err));
    assert_int_equal(r.status, 0);
    const json_t *res = json_object_get(doc, "result");
    assert_non_null(res);
    const json_t *rtt = json_object_get(res, "rtt_us");
    assert_true(num(rtt, "n", NULL) > 0);
    double mn = num(rtt, "min", NULL), p50 = num(rtt, "p50", NULL), p99 = num(rtt, "p99", NULL),
           mx = num(rtt, "max", NULL), mean = num(rtt, "mean", NULL);
    if (!(0 < mn && mn <= p50 && p50 <= p99 && p99 <= mx && mn <= mean && mean <= mx))
        fail_msg("%s: implausible rtt_us min %g p50 %g p99 %g max %g mean %g", kind, mn, p50, p99,
                 mx, mean);
    assert_true(json_is_array(json_object_get(json_object_get(rtt, "hist"), "runs")));
    assert_null(json_object_get(json_object_get(rtt, "hist"), "buckets"));
    return doc;
}

/* One transaction in flight: the rate is at most about 1e6/mean, and below it only by the gaps
 * between transactions (which load and sanitizers stretch: lo is divided by the slack). */
static void
check_rate(const json_t *doc, const char *key, double lo, double hi)
{
    const json_t *r = json_object_get(doc, "result");
    double rate = num(r, key, NULL), want = 1e6 / num(r, "rtt_us", "mean");
    if (rate < lo / NS_TEST_SLACK * want || rate > hi * want)
        fail_msg("%s %.1f vs 1e6/mean-rtt %.1f", key, rate, want);
}

static void
test_tcp_rr_v4(void **state)
{
    (void)state;
    const char *more[] = {"-l", "64", "-i", "0.5", NULL};
    json_t *doc = run_json("tcp_rr", "127.0.0.1", more);
    check_rate(doc, "transactions_per_s", 0.9, 1.1);
    const json_t *r = json_object_get(doc, "result");
    assert_int_equal(json_integer_value(json_object_get(r, "request_bytes")), 64);
    assert_true(json_array_size(json_object_get(r, "intervals")) >= 2);
    assert_non_null(json_object_get(r, "cpu"));
    json_decref(doc);
}

static void
test_tcp_rr_v6(void **state)
{
    (void)state;
    const char *more[] = {"--response-size", "1000", NULL};
    json_t *doc = run_json("tcp_rr", "::1", more);
    check_rate(doc, "transactions_per_s", 0.9, 1.1);
    assert_int_equal(
        json_integer_value(json_object_get(json_object_get(doc, "result"), "response_bytes")),
        1000);
    json_decref(doc);
}

static void
test_udp_rr(void **state)
{
    (void)state;
    const char *more[] = {"-l", "64", NULL};
    json_t *doc = run_json("udp_rr", "127.0.0.1", more);
    check_rate(doc, "transactions_per_s", 0.9, 1.1);
    const json_t *u = json_object_get(json_object_get(doc, "result"), "udp");
    assert_non_null(u);
    double sent = num(u, "sent", NULL), recvd = num(u, "received", NULL);
    assert_true(sent > 0);
    assert_true(recvd + num(u, "lost", NULL) == sent);
    assert_true(num(u, "lost", NULL) <= 0.001 * sent); /* loopback */
    json_decref(doc);
}

static void
test_tcp_crr(void **state)
{
    (void)state;
    json_t *doc = run_json("tcp_crr", "127.0.0.1", NULL);
    /* a cycle also holds the close, which the timed part does not */
    check_rate(doc, "connections_per_s", 0.3, 1.1);
    assert_true(num(json_object_get(doc, "result"), "connections", NULL) > 0);
    json_decref(doc);
}

static void
test_human_output(void **state)
{
    (void)state;
    char ps[16];
    pid_t srv = start_server(ps);
    const char *extra[] = {"--test", "udp_rr", "-t", "0.5", "--warmup", "0.1", NULL};
    static struct sp_result r;
    run_client(&r, "127.0.0.1", ps, extra);
    stop_server(srv);
    assert_int_equal(r.status, 0);
    static const char *const want[] = {"avg-rtt=",
                                       "# dropped messages = ",
                                       "---> <MAX> observation",
                                       "---> percentile 99.999",
                                       "---> percentile 25.000",
                                       "---> <MIN> observation"};
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
        if (strstr(r.out, want[i]) == NULL)
            fail_msg("human output lacks '%s':\n%s", want[i], r.out);
    json_decref(r.doc);
}

/* The server dies mid-test: the client must end with an error, within seconds, not hang. */
static void
test_tcp_rr_server_killed(void **state)
{
    (void)state;
    char ps[16];
    pid_t srv = start_server(ps);
    const char *args[] = {"-c", "127.0.0.1", "-p",       ps,    "--test", "tcp_rr",
                          "-t", "10",        "--warmup", "0.2", "-J",     NULL};
    struct sp_proc c = sp_client_start(args, NULL);
    /* Mid-test: the server holds the control connection and the data connection (a kill
     * before them would test a refused connect instead). */
    assert_true(sp_wait_established((unsigned)atoi(ps), 2, 10.0 * NS_TEST_SLACK));
    kill(srv, SIGKILL);
    sp_wait(srv, 3.0);
    double t0 = sp_now();
    static struct sp_result r;
    sp_client_finish(&c, &r, 30.0);
    double took = sp_now() - t0;
    /* The control connection's reset ends the test at once; 5 s is the handshake limit. */
    if (took > 5.0)
        fail_msg("client took %.1f s to give up after the server died", took);
    assert_true(r.status > 0);
    assert_non_null(r.doc);
    assert_true(json_is_string(json_object_get(r.doc, "error")));
    json_decref(r.doc);
}

int
main(void)
{
    signal(SIGPIPE, SIG_IGN);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tcp_rr_v4),    cmocka_unit_test(test_tcp_rr_v6),
        cmocka_unit_test(test_udp_rr),       cmocka_unit_test(test_tcp_crr),
        cmocka_unit_test(test_human_output), cmocka_unit_test(test_tcp_rr_server_killed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
