/* The defects of issue 7, one test each, against real nsperf processes on loopback: every -P up
 * to 128, a connect flood against a token server, small -w forward, one JSON document for
 * every -J outcome, the slot after a killed UDP client, -6 refusing IPv4, no spin without file
 * descriptors, and a peer's control characters kept off the terminal. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <sys/resource.h>

#include "common/proto.h"
#include "ns_slack.h"
#include "nsperf_spawn.h"

struct server {
    unsigned port;
    char port_s[16];
    pid_t pid;
    char log[128];
};

static void
server_start(struct server *s, const char *const *extra)
{
    static int n;
    s->port = sp_free_port();
    snprintf(s->port_s, sizeof s->port_s, "%u", s->port);
    snprintf(s->log, sizeof s->log, "/tmp/nsperf-defects-%d-%d.log", (int)getpid(), n++);
    unlink(s->log);
    s->pid = sp_server(s->port, extra, s->log);
    assert_true(s->pid > 0);
}

static void
server_stop(struct server *s)
{
    sp_kill(s->pid);
    unlink(s->log);
}

/* The whole of a (small) file, NUL-terminated, in buf. */
static size_t
slurp(const char *path, char *buf, size_t cap)
{
    FILE *f = fopen(path, "r");
    size_t n = f != NULL ? fread(buf, 1, cap - 1, f) : 0;
    if (f != NULL)
        fclose(f);
    buf[n] = '\0';
    return n;
}

static const char *
write_token(const char *secret)
{
    static char path[128];
    snprintf(path, sizeof path, "/tmp/nsperf-defects-%d-token", (int)getpid());
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "%s\n", secret);
    fclose(f);
    return path;
}

/* Client args after "-c 127.0.0.1 -p PORT -J". */
static void
client_json(struct sp_result *r, const struct server *s, const char *host, const char *const *more)
{
    const char *argv[40] = {"-c", host, "-p", s->port_s, "-J"};
    int n = 5;
    for (int i = 0; more[i] != NULL && n < 39; i++)
        argv[n++] = more[i];
    argv[n] = NULL;
    sp_client(r, argv, NULL, 60.0);
}

static void
expect_ok(const struct sp_result *r)
{
    const char *err = json_string_value(json_object_get(r->doc, "error"));
    if (r->status != 0 || err != NULL)
        fail_msg("client failed (status %d): %s", r->status, err != NULL ? err : r->out);
}

/* 1. Every advertised -P works every time: 128 streams connect in one burst. */
static void
test_128_streams(void **state)
{
    (void)state;
    struct server s;
    server_start(&s, NULL);
    /* Paced (2 Mbit/s a stream): the burst of 128 connections is the point; unpaced, 128
     * senders on 2 cores can starve the control frames that bound the measured interval. */
    const char *more[] = {"-t", "1",   "--warmup", "0.2", "-b", "256M",
                          "-l", "64K", "-P",       "128", NULL};
    for (int i = 0; i < 3; i++) {
        struct sp_result r;
        client_json(&r, &s, "127.0.0.1", more);
        expect_ok(&r);
        assert_int_equal(
            json_array_size(json_object_get(json_object_get(r.doc, "result"), "streams")), 128);
        json_decref(r.doc);
    }
    server_stop(&s);
}

/* 2. A flood of connect/close from a stranger (bounded in time and count, loopback only) does
 * not displace an admitted test's data connections, on a token server. */
#define FLOODERS 2

struct flood {
    unsigned port;
    _Atomic int stop;
    _Atomic long made;
};

static void *
flood_thread(void *arg)
{
    struct flood *f = arg;
    struct linger lg = {.l_onoff = 1, .l_linger = 0}; /* reset: no TIME_WAIT, no port drain */
    double end = sp_now() + 30.0;
    for (; !atomic_load(&f->stop) && f->made < 400000 && sp_now() < end; f->made++) {
        /* At most ~5000 a second a thread: enough to keep connections arriving faster than
         * a test's own, without making the shared 2-core machine the thing under test. */
        usleep(200);
        int fd = sp_connect(f->port);
        if (fd < 0)
            continue;
        setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof lg);
        close(fd);
    }
    return NULL;
}

static void
test_connect_flood_token_server(void **state)
{
    (void)state;
    const char *tok = write_token("flood-test-secret");
    const char *extra[] = {"--token-file", tok, NULL};
    struct server s;
    server_start(&s, extra);
    struct flood f = {.port = s.port};
    atomic_init(&f.stop, 0);
    pthread_t th[FLOODERS];
    for (int i = 0; i < FLOODERS; i++)
        assert_int_equal(pthread_create(&th[i], NULL, flood_thread, &f), 0);
    /* The flood is on before the tests begin: the threads have connected a first batch. */
    for (double end = sp_now() + 10.0 * NS_TEST_SLACK;
         atomic_load(&f.made) < 200 && sp_now() < end;)
        usleep(1000);
    assert_true(atomic_load(&f.made) >= 200);
    const char *rr[] = {"--token-file", tok, "--test", "tcp_rr", "-t", "1", "--warmup", "0", NULL};
    const char *p32[] = {"--token-file", tok,  "-P", "32",       "-l", "64K", "-b",
                         "320M",         "-t", "1",  "--warmup", "0",  NULL};
    const char *crr[] = {"--token-file", tok, "--test", "tcp_crr", "-t", "1",
                         "--warmup",     "0", NULL};
    const char *const *runs[] = {rr, p32, crr};
    /* All runs first, then the flood is stopped, then the verdict (a failed assertion must not
     * leave threads using this frame). */
    static struct sp_result r[3];
    for (size_t i = 0; i < 3; i++)
        client_json(&r[i], &s, "127.0.0.1", runs[i]);
    atomic_store(&f.stop, 1);
    for (int i = 0; i < FLOODERS; i++)
        pthread_join(th[i], NULL);
    server_stop(&s);
    unlink(tok);
    fprintf(stderr, "flood: %ld connections\n", (long)atomic_load(&f.made));
    for (size_t i = 0; i < 3; i++) {
        if (r[i].status != 0)
            fprintf(stderr, "run %zu (%s) under the flood failed\n", i, runs[i][3]);
        expect_ok(&r[i]);
        json_decref(r[i].doc);
    }
}

/* 3. -w on forward TCP takes effect where it must (before listen on the server): a 4K window
 * forward moves data at the order of the same window reversed, not ~1000x slower (the persist
 * timer's pace). The ratio, not a speed, is asserted; iperf3 figures are in the bench. */
static double
window_run(const struct server *s, const char *w, bool reverse)
{
    const char *more[] = {"-t", "1", "--warmup", "0.2", "-w", w, reverse ? "-R" : NULL, NULL};
    struct sp_result r;
    client_json(&r, s, "127.0.0.1", more);
    expect_ok(&r);
    double bps = sp_num(json_object_get(r.doc, "result"), "throughput_bps", NULL);
    json_decref(r.doc);
    return bps;
}

static void
test_small_window_forward(void **state)
{
    (void)state;
    struct server s;
    server_start(&s, NULL);
    /* A window this small is paced by wake-ups, which other load on the machine stretches by
     * 20x and more for a second at a time (a failure at load 7, forward and reverse measured
     * one after the other): a round of the two passes when forward is within 20x of reverse,
     * and a size passes when one of 3 rounds does. The defect fails every round by ~1000x. */
    for (int i = 0; i < 2; i++) {
        const char *w = i == 0 ? "4K" : "8K";
        double fwd[3] = {0}, rev[3] = {0};
        bool ok = false;
        for (int k = 0; k < 3 && !ok; k++) {
            fwd[k] = window_run(&s, w, false);
            rev[k] = window_run(&s, w, true);
            ok = fwd[k] >= rev[k] / 20;
        }
        if (!ok)
            fail_msg("-w %s: forward vs reverse bit/s in 3 rounds: %.3g/%.3g %.3g/%.3g %.3g/%.3g",
                     w, fwd[0], rev[0], fwd[1], rev[1], fwd[2], rev[2]);
    }
    /* The next test without -w gets an autotuning listener again. */
    const char *more[] = {"-t", "0.3", "--warmup", "0", NULL};
    struct sp_result r;
    client_json(&r, &s, "127.0.0.1", more);
    expect_ok(&r);
    json_decref(r.doc);
    server_stop(&s);
}

/* 4. With -J every outcome is one JSON document with "error" set; SIGINT exits 130 and SIGTERM
 * 143 with what was measured so far. */
static void
expect_json_error(const struct sp_result *r, int status, const char *needle)
{
    if (r->doc == NULL)
        fail_msg("not one JSON document (status %d): %s", r->status, r->out);
    const char *err = json_string_value(json_object_get(r->doc, "error"));
    assert_int_equal(r->status, status);
    assert_non_null(err);
    if (strstr(err, needle) == NULL)
        fail_msg("error '%s' lacks '%s'", err, needle);
    assert_true(json_is_object(json_object_get(r->doc, "params")));
}

static void
interrupt_run(const struct server *s, int sig, int want_status, const char *name)
{
    const char *args[] = {"-c",       "127.0.0.1", "-p", s->port_s, "-t", "30",
                          "--warmup", "0",         "-i", "0.2",     "-J", NULL};
    struct sp_proc c = sp_client_start(args, NULL);
    /* In the measured interval for sure: data is moving, and then some of the interval must
     * pass (a duration the result needs, not synchronisation: bytes and a sample). */
    assert_true(sp_wait_flowing(s->port, 10.0 * NS_TEST_SLACK));
    usleep((useconds_t)(300000 * NS_TEST_SLACK));
    kill(c.pid, sig);
    struct sp_result r;
    sp_client_finish(&c, &r, 20.0);
    expect_json_error(&r, want_status, name);
    const json_t *res = json_object_get(r.doc, "result");
    assert_true(json_is_object(res));
    assert_true(sp_num(res, "bytes", NULL) > 0);
    assert_true(json_array_size(json_object_get(res, "intervals")) >= 1);
    json_decref(r.doc);
}

static void
test_json_on_every_outcome(void **state)
{
    (void)state;
    struct sp_result r;
    const char *const usage[][8] = {
        {"-c", "127.0.0.1", "-t", "abc", "-J", NULL},
        {"-c", "127.0.0.1", "--test", "foo", "-J", NULL},
        {"-c", "127.0.0.1", "-J", "--token-file", "/nonexistent/nsperf-token", NULL},
    };
    const char *needles[] = {"abc", "foo", "token"};
    for (size_t i = 0; i < 3; i++) {
        sp_client(&r, usage[i], NULL, 10.0);
        expect_json_error(&r, 2, needles[i]);
        json_decref(r.doc);
    }
    char port_s[16];
    snprintf(port_s, sizeof port_s, "%u", sp_free_port()); /* nobody listens there */
    const char *refused[] = {"-c", "127.0.0.1", "-p", port_s, "-J", NULL};
    sp_client(&r, refused, NULL, 10.0);
    expect_json_error(&r, 1, "cannot connect");
    json_decref(r.doc);

    struct server s;
    server_start(&s, NULL);
    interrupt_run(&s, SIGINT, 130, "SIGINT");
    server_stop(&s);
    server_start(&s, NULL);
    interrupt_run(&s, SIGTERM, 143, "SIGTERM");
    server_stop(&s);
}

/* 5. After a client is SIGKILLed mid-UDP test, the next client is served, not told "busy":
 * the slot is the departed client's no longer than its session takes to stop. No retry here. */
static void
test_udp_client_killed_frees_slot(void **state)
{
    (void)state;
    struct server s;
    server_start(&s, NULL);
    const char *kinds[] = {"udp_stream", "udp_rr"};
    for (size_t i = 0; i < 2; i++) {
        const char *args[] = {"-c", "127.0.0.1", "-p",  s.port_s,   "--test", kinds[i], "-t",
                              "30", "-b",        "10M", "--warmup", "0",      NULL};
        if (strcmp(kinds[i], "udp_rr") == 0)
            args[8] = NULL; /* no -b for rr */
        char needle[64];
        snprintf(needle, sizeof needle, "%s test", kinds[i]);
        struct sp_proc c = sp_client_start(args, NULL);
        assert_true(sp_log_wait(s.log, needle, 10.0 * NS_TEST_SLACK));
        /* A duration, not synchronisation: datagrams have been flowing for a while (UDP leaves no
         * queue to watch, as sp_wait_flowing does for TCP). */
        usleep(300000);
        kill(c.pid, SIGKILL);
        struct sp_result r;
        sp_client_finish(&c, &r, 10.0);
        json_decref(r.doc);
        const char *more[] = {"--test", kinds[i], "-t", "0.3", "--warmup", "0", NULL};
        client_json(&r, &s, "127.0.0.1", more);
        expect_ok(&r);
        json_decref(r.doc);
    }
    server_stop(&s);
}

/* 6. nsperf -s -6 is IPv6 only, as its help says (and iperf3 -s -6 is). */
static void
test_server_v6only(void **state)
{
    (void)state;
    const char *extra[] = {"-6", NULL};
    struct server s;
    s.port = sp_free_port();
    snprintf(s.port_s, sizeof s.port_s, "%u", s.port);
    snprintf(s.log, sizeof s.log, "/tmp/nsperf-defects-%d-v6.log", (int)getpid());
    char ps[16];
    snprintf(ps, sizeof ps, "%u", s.port);
    const char *argv[] = {"nsperf", "-s", "-p", ps, "-6", NULL};
    (void)extra;
    s.pid = sp_spawn(argv, -1, s.log, NULL);
    assert_true(s.pid > 0);
    assert_true(sp_log_wait(s.log, "listening", 10.0 * NS_TEST_SLACK));
    const char *more[] = {"-t", "0.3", "--warmup", "0", NULL};
    struct sp_result r;
    client_json(&r, &s, "127.0.0.1", more);
    expect_json_error(&r, 1, "cannot connect");
    json_decref(r.doc);
    client_json(&r, &s, "::1", more);
    expect_ok(&r);
    json_decref(r.doc);
    server_stop(&s);
}

/* 7. Out of file descriptors, the server waits instead of spinning on accept4(). */
static double
cpu_seconds(pid_t pid)
{
    char path[64], buf[2048];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    slurp(path, buf, sizeof buf);
    const char *p = strrchr(buf, ')');
    unsigned long ut = 0, st = 0;
    if (p == NULL ||
        sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st) != 2)
        fail_msg("cannot read %s", path);
    return (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
}

/* Descriptors below limit that pid has open now (it may hold inherited ones above it). */
static int
open_fds(pid_t pid, int limit)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/fd", (int)pid);
    DIR *d = opendir(path);
    int n = 0;
    for (struct dirent *de; d != NULL && (de = readdir(d)) != NULL;)
        n += de->d_name[0] != '.' && atoi(de->d_name) < limit;
    if (d != NULL)
        closedir(d);
    return n;
}

static void
test_no_spin_without_fds(void **state)
{
    (void)state;
    struct rlimit old, low = {.rlim_cur = 40, .rlim_max = 0};
    assert_int_equal(getrlimit(RLIMIT_NOFILE, &old), 0);
    low.rlim_max = old.rlim_max;
    assert_int_equal(setrlimit(RLIMIT_NOFILE, &low), 0); /* inherited by the server */
    struct server s;
    s.port = sp_free_port();
    snprintf(s.port_s, sizeof s.port_s, "%u", s.port);
    snprintf(s.log, sizeof s.log, "/tmp/nsperf-defects-%d-fd.log", (int)getpid());
    const char *argv[] = {"nsperf", "-s", "-p", s.port_s, NULL};
    s.pid = sp_spawn(argv, -1, s.log, NULL);
    assert_int_equal(setrlimit(RLIMIT_NOFILE, &old), 0);
    assert_true(s.pid > 0);
    assert_true(sp_log_wait(s.log, "listening", 10.0 * NS_TEST_SLACK));
    int fds[60];
    for (int i = 0; i < 60; i++)
        fds[i] = sp_connect(s.port); /* idle: each holds a pending slot until it expires */
    /* Out of descriptors for sure: the server holds every number below its limit. */
    for (double end = sp_now() + 10.0 * NS_TEST_SLACK; open_fds(s.pid, 40) < 40 && sp_now() < end;)
        usleep(1000);
    assert_int_equal(open_fds(s.pid, 40), 40);
    double c0 = cpu_seconds(s.pid);
    usleep(2000000);
    double used = cpu_seconds(s.pid) - c0;
    for (int i = 0; i < 60; i++)
        if (fds[i] >= 0)
            close(fds[i]);
    server_stop(&s);
    /* Spinning burns the whole 2 s; waiting costs a few wake-ups (10 a second). */
    if (used > 0.25)
        fail_msg("server used %.2f s of CPU in 2 s while out of descriptors", used);
}

/* 8. A peer's text reaches the terminal with its control characters escaped. */
#define EVIL "\x1b[31m\nnsperf: forged line\r"

static void
test_server_log_escapes_client_text(void **state)
{
    (void)state;
    struct server s;
    server_start(&s, NULL);
    int fd = sp_connect(s.port);
    assert_true(fd >= 0);
    json_t *hello = json_pack("{s:i, s:s}", "version", PROTO_VERSION, "role", "client");
    assert_int_equal(proto_send(fd, PROTO_HELLO, hello, 5000, NULL), 0);
    json_decref(hello);
    enum proto_type type;
    json_t *sh = NULL;
    assert_int_equal(proto_recv(fd, &type, &sh, 5000, NULL), 0);
    json_decref(sh);
    json_t *auth =
        json_pack("{s:s, s:s}", "client_nonce", "00112233445566778899aabbccddeeff", "proof", "");
    assert_int_equal(proto_send(fd, PROTO_AUTH, auth, 5000, NULL), 0);
    json_decref(auth);
    json_t *params = json_pack("{s:s}", "test", EVIL);
    assert_int_equal(proto_send(fd, PROTO_PARAMS, params, 5000, NULL), 0);
    json_decref(params);
    json_t *reply = NULL;
    proto_recv(fd, &type, &reply, 5000, NULL); /* the server's ERROR */
    json_decref(reply);
    close(fd);
    /* The server logs the refusal (after sending it): the text is there, made harmless. */
    assert_true(sp_log_wait(s.log, "forged line", 10.0 * NS_TEST_SLACK));
    sp_kill(s.pid);
    static char buf[65536];
    slurp(s.log, buf, sizeof buf);
    unlink(s.log);
    assert_null(strchr(buf, '\x1b'));
    assert_null(strchr(buf, '\r'));
    assert_null(strstr(buf, "\nnsperf: forged line"));
}

static void *
evil_server_thread(void *arg)
{
    int lfd = *(int *)arg;
    int fd = accept(lfd, NULL, NULL);
    if (fd < 0)
        return NULL;
    enum proto_type type;
    json_t *o = NULL;
    proto_recv(fd, &type, &o, 5000, NULL); /* the client's HELLO */
    json_decref(o);
    json_t *err = json_pack("{s:s}", "error", EVIL);
    proto_send(fd, PROTO_ERROR, err, 5000, NULL);
    json_decref(err);
    /* Close once the client has read the frame and closed its end, so that no reset of ours can
     * destroy the frame before it is read. */
    char buf[256];
    struct pollfd p = {.fd = fd, .events = POLLIN};
    while (poll(&p, 1, 20000) == 1 && recv(fd, buf, sizeof buf, 0) > 0)
        ;
    close(fd);
    return NULL;
}

static void
test_client_escapes_server_text(void **state)
{
    (void)state;
    int lfd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t al = sizeof a;
    assert_int_equal(bind(lfd, (struct sockaddr *)&a, sizeof a), 0);
    assert_int_equal(listen(lfd, 4), 0);
    assert_int_equal(getsockname(lfd, (struct sockaddr *)&a, &al), 0);
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, evil_server_thread, &lfd), 0);
    char ps[16], log[128];
    snprintf(ps, sizeof ps, "%u", ntohs(a.sin_port));
    snprintf(log, sizeof log, "/tmp/nsperf-defects-%d-client.log", (int)getpid());
    unlink(log);
    const char *argv[] = {"nsperf", "-c", "127.0.0.1", "-p", ps, "-t", "0.3", NULL};
    pid_t pid = sp_spawn(argv, -1, log, NULL);
    assert_true(pid > 0);
    int st = sp_wait(pid, 20.0);
    if (st < 0)
        sp_kill(pid);
    pthread_join(th, NULL);
    close(lfd);
    static char buf[65536];
    slurp(log, buf, sizeof buf);
    unlink(log);
    assert_int_equal(st, 1);
    assert_non_null(strstr(buf, "forged line")); /* the text is there, made harmless */
    assert_null(strchr(buf, '\x1b'));
    assert_null(strchr(buf, '\r'));
    assert_null(strstr(buf, "\nnsperf: forged line"));
}

int
main(void)
{
    signal(SIGPIPE, SIG_IGN);
    if (getenv("NSPERF_TEST_FILTER") != NULL) /* one test by name, e.g. test_128_streams */
        cmocka_set_test_filter(getenv("NSPERF_TEST_FILTER"));
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_128_streams),
        cmocka_unit_test(test_connect_flood_token_server),
        cmocka_unit_test(test_small_window_forward),
        cmocka_unit_test(test_json_on_every_outcome),
        cmocka_unit_test(test_udp_client_killed_frees_slot),
        cmocka_unit_test(test_server_v6only),
        cmocka_unit_test(test_no_spin_without_fds),
        cmocka_unit_test(test_server_log_escapes_client_text),
        cmocka_unit_test(test_client_escapes_server_text),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
