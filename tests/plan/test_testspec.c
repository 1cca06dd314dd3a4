/* test_testspec.c - `netsurvey check` refuses exactly what nsperf refuses: for every kind and
 * every parameter of common/testspec.h, values at and just beyond each end of the range (and 0,
 * and the default) are accepted or refused alike by plan validation, by nsperf's parameter
 * validation and by the nsperf binary's command line, and refusals name the same range. Every
 * argv testspec_client_argv builds from a valid plan is one nsperf accepts. */
#include <arpa/inet.h>
#include <fcntl.h>
#include <math.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/errors.h"
#include "common/testspec.h"
#include "helpers.h"
#include "nsperf/nsperf.h"
#include "plan/plan.h"

#ifndef NSPERF_BIN
#error "NSPERF_BIN must name the nsperf binary"
#endif

/* A loopback port that refuses connections: bound, never listening (kept for the whole run). */
static int refuse_fd = -1;
static char refuse_port[16];

static int
setup(void **state)
{
    (void)state;
    refuse_fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    if (refuse_fd < 0 || bind(refuse_fd, (struct sockaddr *)&a, sizeof a) != 0 ||
        getsockname(refuse_fd, (struct sockaddr *)&a, &len) != 0)
        return -1;
    snprintf(refuse_port, sizeof refuse_port, "%u", ntohs(a.sin_port));
    return 0;
}

static int
teardown(void **state)
{
    (void)state;
    close(refuse_fd);
    return 0;
}

/* --- the three readers ---------------------------------------------------------------------- */

/* Plan with one scenario of kind with "key: text"; the first message into msg. */
static bool
plan_accepts(int kind, const char *key, const char *text, char *msg, size_t len)
{
    char yaml[1024], pair[256];
    const char *dot = strchr(key, '.'); /* "load.streams": `load: {streams: ...}` */
    if (dot != NULL)
        snprintf(pair, sizeof pair, "%.*s: {%s: \"%s\"}", (int)(dot - key), key, dot + 1, text);
    else
        snprintf(pair, sizeof pair, "%s: \"%s\"", key, text);
    snprintf(yaml, sizeof yaml,
             "name: t\nhosts:\n  - {name: a, address: 192.0.2.1}\n"
             "  - {name: b, address: 192.0.2.2}\nscenarios:\n"
             "  - {name: s, test: %s, %s}\n",
             testspec_kind_name(kind), pair);
    struct diags *d = diags_new();
    struct plan *p = NULL;
    int rc = plan_load_buffer("t.yaml", yaml, strlen(yaml), &p, d);
    snprintf(msg, len, "%s", diags_count(d) > 0 ? diags_message(d, 0, NULL, NULL) : "");
    diags_free(d);
    plan_free(p);
    return rc == 0;
}

/* nsperf's validation of the parameters a client sends (and a server receives). */
static bool
params_accept(int kind, enum testspec_param id, double value, char *msg, size_t len)
{
    struct ns_params p;
    ns_params_default(&p, (enum testspec_kind)kind);
    ns_params_set(&p, id, value);
    if (id == TESTSPEC_P_MSG_SIZE)
        p.response_size = p.msg_size;
    struct err e;
    err_clear(&e);
    int rc = ns_params_validate(&p, &e);
    snprintf(msg, len, "%s", e.msg);
    return rc == 0;
}

/* The nsperf binary: exit 2 is a usage error; 1 means it parsed everything and then failed to
 * connect to the refusing port. */
static int
nsperf_exit_err(char *const argv[], char *err, size_t errlen)
{
    char path[] = "/tmp/ns_testspec_err_XXXXXX";
    int efd = mkstemp(path);
    assert_true(efd >= 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int fd = open("/dev/null", O_RDWR);
        if (fd < 0 || dup2(fd, 0) < 0 || dup2(fd, 1) < 0 || dup2(efd, 2) < 0)
            _exit(126);
        execv(NSPERF_BIN, argv);
        _exit(127);
    }
    int st;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    ssize_t n = pread(efd, err, errlen - 1, 0);
    err[n > 0 ? n : 0] = '\0';
    close(efd);
    unlink(path);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int
nsperf_exit(char *const argv[])
{
    char err[2048];
    return nsperf_exit_err(argv, err, sizeof err);
}

/* execv wants mutable strings: copies of words in store, pointers in argv. */
static void
argv_from(const char *const *words, size_t n, char store[][64], char **argv)
{
    for (size_t i = 0; i < n; i++) {
        snprintf(store[i], 64, "%s", words[i]);
        argv[i] = store[i];
    }
    argv[n] = NULL;
}

static bool
cli_accepts(int kind, enum testspec_param id, const char *text)
{
    const char *words[] = {
        "nsperf",          "-c", "127.0.0.1", "-p", refuse_port, "--test", testspec_kind_name(kind),
        testspec_flag(id), text};
    size_t n = sizeof words / sizeof *words - (testspec_type(id) == TESTSPEC_BOOL);
    char store[16][64], *argv[16];
    argv_from(words, n, store, argv);
    int status = nsperf_exit(argv);
    if (status != 1 && status != 2)
        fail_msg("nsperf %s %s %s: exit %d", testspec_kind_name(kind), testspec_flag(id), text,
                 status);
    return status == 1;
}

/* --- candidates ----------------------------------------------------------------------------- */

static bool
whole(enum testspec_param id)
{
    return testspec_type(id) != TESTSPEC_DURATION;
}

/* Values at and beyond each end of kind's range, 0 and the default (each once). */
static size_t
candidates(enum testspec_param id, int kind, double *v)
{
    double lo = testspec_min(id, kind), hi = testspec_max(id, kind);
    size_t n = 0;
    v[n++] = lo;
    v[n++] = hi;
    v[n++] = whole(id) ? lo - 1 : lo > 0 ? lo * 0.999 : -1;
    v[n++] = whole(id) ? hi + 1 : hi * 1.001;
    double extra[2] = {0, testspec_default(id, kind)};
    for (size_t k = 0; k < 2; k++) {
        size_t j = 0;
        while (j < n && v[j] != extra[k])
            j++;
        if (j == n)
            v[n++] = extra[k];
    }
    return n;
}

static void
text_of(double v, char *buf, size_t len)
{
    snprintf(buf, len, "%.15g", v);
    if (strtod(buf, NULL) != v)
        snprintf(buf, len, "%.17g", v);
}

/* "... out of range X" -> "X" (NULL when the message is of another kind). */
static const char *
range_part(const char *msg)
{
    const char *s = strstr(msg, " out of range ");
    return s != NULL ? s + strlen(" out of range ") : NULL;
}

static void
check_value(int kind, enum testspec_param id, double v, size_t *agreed)
{
    char text[64], pmsg[512], nmsg[512];
    text_of(v, text, sizeof text);
    if (testspec_type(id) == TESTSPEC_BOOL)
        snprintf(text, sizeof text, "%s", v != 0 ? "true" : "false");
    if (testspec_type(id) == TESTSPEC_DIRECTION) /* a name, or one that is none */
        snprintf(text, sizeof text, "%s",
                 testspec_direction_name((int)v) != NULL ? testspec_direction_name((int)v)
                                                         : "sideways");
    bool plan_ok = plan_accepts(kind, testspec_key(id), text, pmsg, sizeof pmsg);
    bool cli_ok = cli_accepts(kind, id, text);
    if (plan_ok != cli_ok)
        fail_msg("%s %s=%s: plan %s (%s), nsperf command line %s", testspec_kind_name(kind),
                 testspec_key(id), text, plan_ok ? "accepts" : "refuses", pmsg,
                 cli_ok ? "accepts" : "refuses");
    if (v < 0 || (testspec_type(id) == TESTSPEC_BOOL && v != 0 && v != 1) ||
        (testspec_type(id) == TESTSPEC_DIRECTION && testspec_direction_name((int)v) == NULL))
        return; /* not representable in struct ns_params */
    bool params_ok = params_accept(kind, id, v, nmsg, sizeof nmsg);
    if (plan_ok != params_ok)
        fail_msg("%s %s=%s: plan %s (%s), ns_params_validate %s (%s)", testspec_kind_name(kind),
                 testspec_key(id), text, plan_ok ? "accepts" : "refuses", pmsg,
                 params_ok ? "accepts" : "refuses", nmsg);
    const char *pr = range_part(pmsg), *nr = range_part(nmsg);
    if (!plan_ok && pr != NULL && nr != NULL && strcmp(pr, nr) != 0)
        fail_msg("%s %s=%s: plan says range '%s', nsperf '%s'", testspec_kind_name(kind),
                 testspec_key(id), text, pr, nr);
    (*agreed)++;
}

static void
test_plan_and_nsperf_agree(void **state)
{
    (void)state;
    size_t agreed = 0, refused_both = 0;
    for (int kind = 0; kind < TESTSPEC_KIND_COUNT; kind++) {
        for (int i = 0; i < TESTSPEC_PARAM_COUNT; i++) {
            enum testspec_param id = (enum testspec_param)i;
            if (!testspec_applies(id, kind)) {
                char text[64], pmsg[512];
                testspec_value_text(id, testspec_default(id, kind), text, sizeof text);
                if (testspec_type(id) == TESTSPEC_BOOL)
                    snprintf(text, sizeof text, "true");
                assert_false(plan_accepts(kind, testspec_key(id), text, pmsg, sizeof pmsg));
                assert_non_null(strstr(pmsg, "does not apply"));
                assert_false(cli_accepts(kind, id, text));
                refused_both++;
                continue;
            }
            double v[8];
            size_t n = candidates(id, kind, v);
            if (testspec_type(id) == TESTSPEC_BOOL)
                n = 2; /* false and true */
            for (size_t k = 0; k < n; k++)
                check_value(kind, id, v[k], &agreed);
        }
    }
    print_message("%zu values agreed, %zu inapplicable parameters refused by both\n", agreed,
                  refused_both);
    assert_true(agreed > 150);
}

/* --- the argv builder ------------------------------------------------------------------------ */

static void
check_argv_runs(const struct plan_scenario *sc)
{
    size_t argc = 0;
    struct err e;
    char **argv = testspec_client_argv(&sc->spec, &argc, &e);
    assert_non_null(argv);
    assert_null(argv[argc]);
    const char *words[64] = {"nsperf", "-c", "127.0.0.1", "-p", refuse_port};
    size_t n = 5;
    for (size_t i = 0; i < argc && n + 1 < 64; i++)
        words[n++] = argv[i];
    char store[64][64], *full[65];
    argv_from(words, n, store, full);
    int status = nsperf_exit(full);
    if (status != 1)
        fail_msg("scenario '%s': nsperf refused its argv (exit %d)", sc->name, status);
    free(argv);
}

static void
test_argv_of_every_shipped_scenario_runs(void **state)
{
    (void)state;
    const char *dirs[] = {"plans", "tests/fixtures/plans/ok"};
    size_t checked = 0;
    for (size_t d = 0; d < 2; d++) {
        char dir[1024], path[2048];
        helper_source_path(dirs[d], dir, sizeof dir);
        size_t n;
        char **names = helper_list_dir(dir, ".yaml", &n);
        for (size_t i = 0; i < n; i++) {
            snprintf(path, sizeof path, "%s/%s", dir, names[i]);
            struct diags *diags = diags_new();
            struct plan *p = NULL;
            assert_int_equal(plan_load_file(path, &p, diags), 0);
            for (size_t s = 0; s < plan_scenario_count(p); s++, checked++)
                check_argv_runs(plan_scenario(p, s));
            plan_free(p);
            diags_free(diags);
        }
        helper_names_free(names, n);
    }
    assert_true(checked >= 10);
}

static void
test_argv_shape(void **state)
{
    (void)state;
    struct testspec_values v;
    testspec_values_default(&v, TESTSPEC_UDP_STREAM);
    testspec_values_set(&v, TESTSPEC_P_DURATION, 0.1);
    testspec_values_set(&v, TESTSPEC_P_MSG_SIZE, 1472);
    testspec_values_set(&v, TESTSPEC_P_RATE, 9e8);
    testspec_values_set(&v, TESTSPEC_P_REVERSE, 1);
    size_t argc;
    char **argv = testspec_client_argv(&v, &argc, NULL);
    const char *want[] = {"--test", "udp_stream", "-t",        "0.1", "-l",
                          "1472",   "-b",         "900000000", "-R"};
    assert_int_equal(argc, sizeof want / sizeof *want);
    for (size_t i = 0; i < argc; i++)
        assert_string_equal(argv[i], want[i]);
    assert_null(argv[argc]);
    free(argv);
    /* refused values give no argv, and say why */
    testspec_values_set(&v, TESTSPEC_P_MSG_SIZE, 70000);
    struct err e;
    assert_null(testspec_client_argv(&v, NULL, &e));
    assert_string_equal(e.msg, "-l: message size 70000 out of range 40..65507 for udp_stream");
}

/* One line naming the flag, exit 2, before anything is contacted (issue 7). */
static void
test_nsperf_usage_errors(void **state)
{
    (void)state;
    static const struct {
        const char *args[8];
        const char *line;
    } cases[] = {
        {{"-s", "-t", "5"}, "-t is a client option (not with -s)"},
        {{"-s", "-R"}, "-R is a client option (not with -s)"},
        {{"-s", "--response-size", "5"}, "--response-size is a client option (not with -s)"},
        {{"-c", "127.0.0.1", "-1"}, "-1 is a server option (not with -c)"},
        {{"-c", "127.0.0.1", "--test", "tcp_rr", "-R"}, "-R does not apply to tcp_rr tests"},
        {{"-c", "127.0.0.1", "--test", "tcp_crr", "-R"}, "-R does not apply to tcp_crr tests"},
        {{"-c", "127.0.0.1", "--test", "udp_rr", "-b", "1M"}, "-b does not apply to udp_rr tests"},
        {{"-c", "127.0.0.1", "--response-size", "10"},
         "--response-size does not apply to tcp_stream tests"},
        {{"-c", "127.0.0.1", "-l", "0"}, "-l: message size 0 out of range 1..64M"},
        {{"-c", "127.0.0.1", "-t", "1e-12"}, "-t: duration 1e-12 out of range 1ms..24h"},
        {{"-c", "127.0.0.1", "-l", "1.5"}, "-l: size '1.5' is not a whole number of bytes"},
        {{"-c", "127.0.0.1", "-P", "129"}, "-P: streams 129 out of range 1..128"},
        {{"-u"}, "-u: nsperf has no -u; use --test udp_stream"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const char *words[10] = {"nsperf"};
        size_t n = 1;
        for (; cases[i].args[n - 1] != NULL; n++)
            words[n] = cases[i].args[n - 1];
        char store[10][64], *argv[11], err[2048], want[256];
        argv_from(words, n, store, argv);
        int status = nsperf_exit_err(argv, err, sizeof err);
        snprintf(want, sizeof want, "nsperf: %s\n", cases[i].line);
        if (status != 2 || strcmp(err, want) != 0)
            fail_msg("case %zu: exit %d, stderr '%s', want '%s'", i, status, err, want);
    }
}

static void
test_range_texts(void **state)
{
    (void)state;
    char b[128];
    assert_string_equal(testspec_range_text(TESTSPEC_P_DURATION, TESTSPEC_TCP_RR, b, sizeof b),
                        "1ms..24h");
    assert_string_equal(testspec_range_text(TESTSPEC_P_MSG_SIZE, TESTSPEC_TCP_STREAM, b, sizeof b),
                        "1..64M");
    assert_string_equal(testspec_range_text(TESTSPEC_P_MSG_SIZE, TESTSPEC_UDP_RR, b, sizeof b),
                        "1..65507 for udp_rr");
    assert_string_equal(testspec_range_text(TESTSPEC_P_INTERVAL, TESTSPEC_TCP_RR, b, sizeof b),
                        "0 or 10ms..1h");
    assert_string_equal(testspec_range_text(TESTSPEC_P_RATE, TESTSPEC_UDP_STREAM, b, sizeof b),
                        "1..1T for udp_stream");
    assert_string_equal(testspec_range_text(TESTSPEC_P_WINDOW, -1, b, sizeof b), "0 or 1K..1G");
    assert_string_equal(testspec_value_text(TESTSPEC_P_WARMUP, 0.25, b, sizeof b), "250ms");
    assert_string_equal(testspec_value_text(TESTSPEC_P_DURATION, 1.5, b, sizeof b), "1500ms");
    assert_int_equal(testspec_kind_find("tcp_crr"), TESTSPEC_TCP_CRR);
    assert_int_equal(testspec_kind_find("tcp_crrr"), -1);
    for (int k = 0; k < TESTSPEC_KIND_COUNT; k++)
        assert_non_null(ns_kind_get((enum testspec_kind)k)); /* its ops, ns_kind_<name> */
    double d;
    assert_int_equal(testspec_parse(TESTSPEC_P_MSG_SIZE, "1.5", &d, NULL), NS_EPARSE);
    assert_int_equal(testspec_parse(TESTSPEC_P_MSG_SIZE, "1.5K", &d, NULL), 0);
    assert_true(d == 1536);
    assert_int_equal(testspec_parse(TESTSPEC_P_STREAMS, "-3", &d, NULL), NS_ERANGE);
}

/* The table of kinds: families make the masks the parameters use, each kind's headline reads
 * and prints by its metric, and the journal's fast reader may take RTT_MEAN alone from inside
 * an object (the rtt_us histogram's mean). */
static void
test_kind_table(void **state)
{
    (void)state;
    assert_int_equal(TESTSPEC_STREAM_KINDS,
                     TESTSPEC_K(TCP_STREAM) | TESTSPEC_K(UDP_STREAM) | TESTSPEC_K(UDP_PPS));
    assert_int_equal(TESTSPEC_RR_KINDS,
                     TESTSPEC_K(TCP_RR) | TESTSPEC_K(UDP_RR) | TESTSPEC_K(TCP_CRR));
    assert_int_equal(TESTSPEC_ALL_KINDS, TESTSPEC_STREAM_KINDS | TESTSPEC_RR_KINDS);
    assert_int_equal(testspec_kind_family(TESTSPEC_UDP_STREAM), TESTSPEC_FAMILY_STREAM);
    assert_int_equal(testspec_kind_family(TESTSPEC_UDP_RR), TESTSPEC_FAMILY_RR);
    assert_int_equal(testspec_kind_family(TESTSPEC_TCP_CRR), TESTSPEC_FAMILY_CONNECT);
    char b[128];
    assert_string_equal(testspec_kinds_text(TESTSPEC_RR_KINDS, ", ", b, sizeof b),
                        "tcp_rr, udp_rr, tcp_crr");
    assert_string_equal(testspec_kinds_text(0, ", ", b, sizeof b), "");
    assert_string_equal(testspec_kinds_text(TESTSPEC_ALL_KINDS, "/", b, 12), "tcp_stream/");
    for (int k = 0; k < TESTSPEC_KIND_COUNT; k++) {
        enum testspec_kind kind = (enum testspec_kind)k;
        bool rr = testspec_kind_family(kind) != TESTSPEC_FAMILY_STREAM;
        assert_int_equal(testspec_kind_has_rtt(kind), rr); /* every request is timed */
        assert_int_equal(testspec_kind_lower_is_better(kind),
                         testspec_kind_metric(kind) == TESTSPEC_M_RTT_MEAN);
    }
    assert_string_equal(testspec_kind_unit(TESTSPEC_TCP_STREAM), "Mbit/s");
    assert_string_equal(testspec_kind_words(TESTSPEC_UDP_RR), "mean RTT");
    assert_string_equal(testspec_kind_unit(TESTSPEC_TCP_CRR), "conn/s");
    assert_string_equal(testspec_kind_words(TESTSPEC_TCP_CRR), "connection rate");
    assert_string_equal(testspec_kind_value_text(TESTSPEC_TCP_STREAM, 12100, b, sizeof b),
                        "12.10 Gbit/s");
    assert_string_equal(testspec_kind_value_text(TESTSPEC_TCP_RR, 329.3, b, sizeof b), "329.3 µs");
    assert_string_equal(testspec_kind_value_text(TESTSPEC_UDP_RR, 4080, b, sizeof b), "4.080 ms");
    assert_string_equal(testspec_kind_value_text(TESTSPEC_TCP_CRR, 4301.03, b, sizeof b),
                        "4301 conn/s");
    assert_string_equal(testspec_kind_value_text(TESTSPEC_TCP_CRR, 557.34, b, sizeof b),
                        "557.3 conn/s");
    assert_string_equal(testspec_kind_value_text(TESTSPEC_TCP_CRR, 999.96, b, sizeof b),
                        "1000.0 conn/s"); /* one decimal below 1000, as the reports had it */
    assert_string_equal(testspec_kind_value_text(TESTSPEC_TCP_STREAM, 0.5, b, sizeof b),
                        "500.0 kbit/s");
    assert_string_equal(testspec_kind_value_text(TESTSPEC_TCP_STREAM, 0, b, sizeof b),
                        "0.000 Mbit/s"); /* zero in the reports' own unit */
    assert_string_equal(testspec_kind_value_text(TESTSPEC_TCP_RR, 5.25, b, sizeof b), "5.2 µs");
    for (int i = 0; i < TESTSPEC_METRIC_COUNT; i++) {
        enum testspec_metric m = (enum testspec_metric)i;
        assert_non_null(testspec_metric_key(m));
        assert_true(testspec_metric_divisor(m) > 0);
        if (m == TESTSPEC_M_RTT_MEAN) {
            assert_string_equal(testspec_metric_key(m), HISTJSON_RTT);
            assert_string_equal(testspec_metric_member(m), "mean");
        }
        /* a figure beside the headline is no kind's headline, and a headline no figure */
        bool headline = false;
        for (int k = 0; k < TESTSPEC_KIND_COUNT; k++)
            headline = headline || testspec_kind_metric((enum testspec_kind)k) == m;
        assert_int_equal(headline, testspec_metric_figure(m) == NULL);
        for (int j = 0; j < i; j++) /* the fast reader finds a metric by its key */
            assert_string_not_equal(testspec_metric_key(m),
                                    testspec_metric_key((enum testspec_metric)j));
    }
    assert_int_equal(TESTSPEC_DEFAULT_KIND, testspec_kind_find("tcp_stream"));
    assert_string_equal(testspec_kind_unit(TESTSPEC_UDP_PPS), "pkt/s");
    assert_false(testspec_kind_lower_is_better(TESTSPEC_UDP_PPS));
    assert_string_equal(testspec_kind_value_text(TESTSPEC_UDP_PPS, 1234567.4, b, sizeof b),
                        "1234567 pkt/s");
    assert_true(testspec_default(TESTSPEC_P_MSG_SIZE, TESTSPEC_UDP_PPS) == 64);
    /* which figures a test reports: by kind and by the parameter that makes them */
    struct testspec_values v;
    testspec_values_default(&v, TESTSPEC_TCP_RR);
    assert_false(testspec_metric_reported(TESTSPEC_M_IDLE_RTT_MEAN, &v));
    assert_false(testspec_metric_reported(TESTSPEC_M_RTT_MEAN, &v)); /* the headline */
    testspec_values_set(&v, TESTSPEC_P_LOAD_STREAMS, 4);
    assert_true(testspec_metric_reported(TESTSPEC_M_IDLE_RTT_MEAN, &v));
    assert_true(testspec_metric_reported(TESTSPEC_M_LOAD_THROUGHPUT, &v));
    assert_false(testspec_metric_reported(TESTSPEC_M_FORWARD_THROUGHPUT, &v));
    testspec_values_default(&v, TESTSPEC_UDP_STREAM);
    assert_false(testspec_metric_reported(TESTSPEC_M_REVERSE_THROUGHPUT, &v));
    testspec_values_set(&v, TESTSPEC_P_BIDIR, 1);
    assert_true(testspec_metric_reported(TESTSPEC_M_REVERSE_THROUGHPUT, &v));
    testspec_values_default(&v, TESTSPEC_UDP_PPS);
    assert_true(testspec_metric_reported(TESTSPEC_M_SENT_PACKETS, &v));
    /* directions by name, and the limits that tie parameters together */
    assert_int_equal(testspec_direction_find("both"), TESTSPEC_DIRECTION_BOTH);
    assert_int_equal(testspec_direction_find("sideways"), -1);
    assert_string_equal(
        testspec_range_text(TESTSPEC_P_LOAD_DIRECTION, TESTSPEC_TCP_RR, b, sizeof b),
        "forward, reverse or both");
    struct err e;
    enum testspec_param blame;
    testspec_values_default(&v, TESTSPEC_TCP_RR);
    testspec_values_set(&v, TESTSPEC_P_LOAD_DIRECTION, TESTSPEC_DIRECTION_BOTH);
    assert_int_equal(testspec_check_limits(&v, &blame, &e), NS_EINVAL);
    assert_int_equal(blame, TESTSPEC_P_LOAD_DIRECTION);
    testspec_values_default(&v, TESTSPEC_TCP_STREAM);
    testspec_values_set(&v, TESTSPEC_P_BIDIR, 1);
    testspec_values_set(&v, TESTSPEC_P_REVERSE, 1);
    assert_int_equal(testspec_check_limits(&v, &blame, &e), NS_EINVAL);
    testspec_values_set(&v, TESTSPEC_P_REVERSE, 0);
    testspec_values_set(&v, TESTSPEC_P_STREAMS, 100);
    testspec_values_set(&v, TESTSPEC_P_MSG_SIZE, 2 << 20); /* 200 MiB of writes each way */
    assert_int_equal(testspec_check_limits(&v, &blame, &e), NS_ERANGE);
    assert_int_equal(blame, TESTSPEC_P_STREAMS);
    testspec_values_set(&v, TESTSPEC_P_BIDIR, 0);
    assert_int_equal(testspec_check_limits(&v, &blame, &e), 0);
}

/* A figure's unit: chosen for the magnitude the caller gives (a table's median), the same for
 * every value of the figure, which are then printed without their unit. */
static void
test_scale(void **state)
{
    (void)state;
    char b[64];
    struct testspec_scale s = testspec_scale_for(TESTSPEC_M_THROUGHPUT, 49200.0);
    assert_string_equal(s.unit, "Gbit/s");
    assert_true(s.factor == 1e3);
    assert_int_equal(s.decimals, 2);
    assert_string_equal(testspec_scale_text(&s, 49200.0, b, sizeof b), "49.20");
    assert_string_equal(testspec_scale_text(&s, 900.0, b, sizeof b), "0.90"); /* same unit */
    assert_string_equal(testspec_scale_text(&s, 0.4, b, sizeof b), "< 0.01"); /* not zero */
    assert_string_equal(testspec_scale_text(&s, -0.4, b, sizeof b), "> -0.01");
    assert_string_equal(testspec_scale_text(&s, 0.0, b, sizeof b), "0.00");
    assert_string_equal(testspec_scale_text(&s, NAN, b, sizeof b), "n/a");
    s = testspec_scale_for(TESTSPEC_M_RTT_MEAN, 558.8);
    assert_string_equal(s.unit, "µs");
    assert_int_equal(s.decimals, 1);
    assert_string_equal(testspec_scale_text(&s, 3310.2, b, sizeof b), "3310.2");
    s = testspec_scale_for(TESTSPEC_M_RTT_MEAN, 1663.5);
    assert_string_equal(s.unit, "ms");
    assert_int_equal(s.decimals, 3);
    assert_string_equal(testspec_scale_text(&s, 88.1, b, sizeof b), "0.088");
    s = testspec_scale_for(TESTSPEC_M_RTT_MEAN, 2.5e7);
    assert_string_equal(s.unit, "s");
    assert_int_equal(s.decimals, 2);
    s = testspec_scale_for(TESTSPEC_M_RTT_MEAN, 0.05); /* below the smallest: the smallest */
    assert_string_equal(s.unit, "µs");
    assert_int_equal(s.decimals, 1); /* at most the unit's */
    s = testspec_scale_for(TESTSPEC_M_THROUGHPUT, 0.0);
    assert_string_equal(s.unit, "Mbit/s");
    s = testspec_scale_for(TESTSPEC_M_THROUGHPUT, INFINITY);
    assert_string_equal(s.unit, "Mbit/s");
    s = testspec_scale_for(TESTSPEC_M_CONNECTIONS, 4301.0);
    assert_string_equal(s.unit, "conn/s");
    assert_int_equal(s.decimals, 0);
    /* the figures beside a headline read in the units of their reports' unit: a load's idle RTT
     * as the RTT, a load's and each --bidir direction's rate as throughput, the sent packet rate
     * as the packet rate */
    s = testspec_scale_for(TESTSPEC_M_IDLE_RTT_MEAN, 1663.5);
    assert_string_equal(s.unit, "ms");
    s = testspec_scale_for(TESTSPEC_M_IDLE_RTT_MEAN, 300.7);
    assert_string_equal(s.unit, "µs");
    static const enum testspec_metric rates[] = {
        TESTSPEC_M_LOAD_THROUGHPUT, TESTSPEC_M_FORWARD_THROUGHPUT, TESTSPEC_M_REVERSE_THROUGHPUT};
    for (size_t i = 0; i < sizeof rates / sizeof rates[0]; i++) {
        s = testspec_scale_for(rates[i], 11539.0);
        assert_string_equal(s.unit, "Gbit/s");
        assert_true(s.factor == 1e3);
        s = testspec_scale_for(rates[i], 0.5);
        assert_string_equal(s.unit, "kbit/s");
    }
    s = testspec_scale_for(TESTSPEC_M_PACKETS, 356588.0);
    assert_string_equal(s.unit, "pkt/s");
    assert_int_equal(s.decimals, 0);
    s = testspec_scale_for(TESTSPEC_M_SENT_PACKETS, 64.5);
    assert_string_equal(s.unit, "pkt/s");
    assert_int_equal(s.decimals, 1);
    /* every metric has its reports' unit among its scales, the smallest first */
    for (int i = 0; i < TESTSPEC_METRIC_COUNT; i++) {
        enum testspec_metric m = (enum testspec_metric)i;
        s = testspec_scale_for(m, 1.0);
        assert_true(s.factor == 1.0);
        double last = 0.0;
        for (double ref = 1e-9; ref < 1e12; ref *= 10.0) {
            s = testspec_scale_for(m, ref);
            assert_true(s.factor >= last);
            last = s.factor;
        }
    }
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_range_texts),
        cmocka_unit_test(test_kind_table),
        cmocka_unit_test(test_scale),
        cmocka_unit_test(test_argv_shape),
        cmocka_unit_test(test_nsperf_usage_errors),
        cmocka_unit_test(test_plan_and_nsperf_agree),
        cmocka_unit_test(test_argv_of_every_shipped_scenario_runs),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
