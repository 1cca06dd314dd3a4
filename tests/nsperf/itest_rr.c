/* The latency kinds end to end: real `nsperf -s -1` and `nsperf -c ... -J` processes on
 * 127.0.0.1 and ::1, the JSON document parsed and checked for plausibility. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "common/clock.h"

#ifndef NSPERF_BIN
#error NSPERF_BIN must name the nsperf binary
#endif

#define OUT_MAX (4u << 20)

/* A port free on both 127.0.0.1 and ::1 right now (the server listens dual-stack). */
static uint16_t
free_port(void)
{
    for (int tries = 0; tries < 50; tries++) {
        int fd = socket(AF_INET6, SOCK_STREAM, 0);
        assert_true(fd >= 0);
        int off = 0;
        setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof(off));
        struct sockaddr_in6 a = {.sin6_family = AF_INET6, .sin6_addr = in6addr_any};
        socklen_t al = sizeof(a);
        if (bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0 &&
            getsockname(fd, (struct sockaddr *)&a, &al) == 0) {
            close(fd);
            return ntohs(a.sin6_port);
        }
        close(fd);
    }
    fail_msg("no free port");
    return 0;
}

struct proc {
    pid_t pid;
    int out; /* read end of its stdout (client) or stderr (server) */
};

static struct proc
spawn(const char *const argv[], bool capture_stderr)
{
    int p[2];
    assert_int_equal(pipe2(p, O_CLOEXEC), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int devnull = open("/dev/null", O_RDWR);
        dup2(devnull, 0);
        dup2(capture_stderr ? devnull : p[1], 1);
        dup2(capture_stderr ? p[1] : devnull, 2);
        char *args[40]; /* execv wants writable strings; literals are const here */
        size_t n = 0;
        for (; argv[n] != NULL && n < 39; n++)
            args[n] = strdup(argv[n]);
        args[n] = NULL;
        execv(args[0], args);
        _exit(127);
    }
    close(p[1]);
    return (struct proc){.pid = pid, .out = p[0]};
}

/* Read p.out until EOF or the deadline; returns a NUL-terminated heap string. */
static char *
read_until_eof(struct proc *p, int timeout_ms)
{
    char *buf = malloc(OUT_MAX + 1);
    size_t len = 0;
    uint64_t deadline = clock_now_ns() + (uint64_t)timeout_ms * NS_PER_MS;
    assert_non_null(buf);
    for (;;) {
        struct pollfd pf = {.fd = p->out, .events = POLLIN};
        int ms = clock_ms_until(deadline);
        if (ms == 0 || poll(&pf, 1, ms) <= 0)
            break;
        ssize_t k = read(p->out, buf + len, OUT_MAX - len);
        if (k <= 0)
            break;
        len += (size_t)k;
    }
    buf[len] = '\0';
    return buf;
}

/* Wait for pid for at most timeout_ms, then kill it; returns the exit status (-1 if killed). */
static int
reap(pid_t pid, int timeout_ms)
{
    uint64_t deadline = clock_now_ns() + (uint64_t)timeout_ms * NS_PER_MS;
    int st;
    for (;;) {
        pid_t r = waitpid(pid, &st, WNOHANG);
        if (r == pid)
            return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
        if (clock_now_ns() >= deadline) {
            kill(pid, SIGKILL);
            waitpid(pid, &st, 0);
            return -1;
        }
        clock_sleep_ns(10 * NS_PER_MS);
    }
}

/* Start `nsperf -s -1 -p port` and wait until it says it listens. */
static struct proc
start_server(uint16_t port)
{
    char ps[16];
    snprintf(ps, sizeof(ps), "%u", port);
    const char *argv[] = {NSPERF_BIN, "-s", "-1", "-p", ps, NULL};
    struct proc s = spawn(argv, true);
    char line[4096] = "";
    size_t len = 0;
    uint64_t deadline = clock_now_ns() + 5 * NS_PER_SEC;
    while (strstr(line, "listening") == NULL) {
        struct pollfd pf = {.fd = s.out, .events = POLLIN};
        int ms = clock_ms_until(deadline);
        if (ms == 0 || poll(&pf, 1, ms) <= 0)
            fail_msg("nsperf server did not start listening on port %u", port);
        ssize_t k = read(s.out, line + len, sizeof(line) - 1 - len);
        if (k <= 0)
            fail_msg("nsperf server exited before listening on port %u", port);
        len += (size_t)k;
        line[len] = '\0';
    }
    return s;
}

static void
stop_server(struct proc *s)
{
    /* The -1 server exits by itself after its test; give it a moment, then make sure. */
    int rc = reap(s->pid, 3000);
    close(s->out);
    (void)rc;
}

/* Run a client with extra args; returns its stdout, *status its exit status. */
static char *
run_client(const char *host, uint16_t port, const char *const extra[], int *status)
{
    char ps[16];
    snprintf(ps, sizeof(ps), "%u", port);
    const char *argv[32] = {NSPERF_BIN, "-c", host, "-p", ps};
    int n = 5;
    for (int i = 0; extra[i] != NULL && n < 31; i++)
        argv[n++] = extra[i];
    argv[n] = NULL;
    struct proc c = spawn(argv, false);
    char *out = read_until_eof(&c, 30000);
    *status = reap(c.pid, 5000);
    close(c.out);
    return out;
}

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
    uint16_t port = free_port();
    struct proc s = start_server(port);
    const char *extra[24] = {"--test", kind, "-t", "1", "--warmup", "0.2", "-J"};
    int n = 7;
    for (int i = 0; more != NULL && more[i] != NULL; i++)
        extra[n++] = more[i];
    extra[n] = NULL;
    int status;
    char *out = run_client(host, port, extra, &status);
    stop_server(&s);
    json_error_t jerr;
    json_t *doc = json_loads(out, 0, &jerr);
    if (doc == NULL)
        fail_msg("%s: client output is not JSON (%s): %.300s", kind, jerr.text, out);
    free(out);
    const json_t *err = json_object_get(doc, "error");
    if (!json_is_null(err))
        fail_msg("%s: error %s", kind, json_string_value(err));
    assert_int_equal(status, 0);
    const json_t *r = json_object_get(doc, "result");
    assert_non_null(r);
    const json_t *rtt = json_object_get(r, "rtt_us");
    assert_true(num(rtt, "n", NULL) > 0);
    double mn = num(rtt, "min", NULL), p50 = num(rtt, "p50", NULL), p99 = num(rtt, "p99", NULL),
           mx = num(rtt, "max", NULL), mean = num(rtt, "mean", NULL);
    if (!(0 < mn && mn <= p50 && p50 <= p99 && p99 <= mx && mn <= mean && mean <= mx))
        fail_msg("%s: implausible rtt_us min %g p50 %g p99 %g max %g mean %g", kind, mn, p50, p99,
                 mx, mean);
    assert_true(json_is_array(json_object_get(json_object_get(rtt, "hist"), "buckets")));
    return doc;
}

static void
check_rate(const json_t *doc, const char *key, double lo, double hi)
{
    const json_t *r = json_object_get(doc, "result");
    double rate = num(r, key, NULL), want = 1e6 / num(r, "rtt_us", "mean");
    if (rate < lo * want || rate > hi * want)
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
    assert_true(num(json_object_get(doc, "result"), "connections", NULL) > 10);
    json_decref(doc);
}

static void
test_human_output(void **state)
{
    (void)state;
    uint16_t port = free_port();
    struct proc s = start_server(port);
    const char *extra[] = {"--test", "udp_rr", "-t", "0.5", "--warmup", "0.1", NULL};
    int status;
    char *out = run_client("127.0.0.1", port, extra, &status);
    stop_server(&s);
    assert_int_equal(status, 0);
    static const char *const want[] = {"avg-rtt=",
                                       "# dropped messages = ",
                                       "---> <MAX> observation",
                                       "---> percentile 99.999",
                                       "---> percentile 25.000",
                                       "---> <MIN> observation"};
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
        if (strstr(out, want[i]) == NULL)
            fail_msg("human output lacks '%s':\n%s", want[i], out);
    free(out);
}

/* The server dies mid-test: the client must end with an error, within seconds, not hang. */
static void
test_tcp_rr_server_killed(void **state)
{
    (void)state;
    uint16_t port = free_port();
    struct proc s = start_server(port);
    char ps[16];
    snprintf(ps, sizeof(ps), "%u", port);
    const char *argv[] = {NSPERF_BIN, "-c", "127.0.0.1", "-p",  ps,   "--test", "tcp_rr",
                          "-t",       "10", "--warmup",  "0.2", "-J", NULL};
    struct proc c = spawn(argv, false);
    clock_sleep_ns(700 * NS_PER_MS);
    kill(s.pid, SIGKILL);
    uint64_t t0 = clock_now_ns();
    char *out = read_until_eof(&c, 15000);
    int status = reap(c.pid, 1000);
    double took = (double)(clock_now_ns() - t0) / 1e9;
    reap(s.pid, 1000);
    close(s.out);
    close(c.out);
    if (took > 5.0)
        fail_msg("client took %.1f s to give up after the server died", took);
    assert_true(status > 0);
    json_t *doc = json_loads(out, 0, NULL);
    assert_non_null(doc);
    assert_true(json_is_string(json_object_get(doc, "error")));
    json_decref(doc);
    free(out);
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
