/* The control layer against hostile and failing peers: wrong tokens, garbage, oversize frames,
 * half-open connections, floods, a busy server, a server killed mid-test. Each case checks that
 * the server answers (error frame and close, within seconds) and then still serves a good
 * client in bounded time. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>

#include "ns_slack.h"
#include "nsperf_spawn.h"

#define GOOD_CLIENT_TIMEOUT_S 15.0

struct server {
    unsigned port;
    char port_s[16];
    pid_t pid;
};

static void
server_start_log(struct server *s, const char *const *extra, const char *log)
{
    s->port = sp_free_port();
    snprintf(s->port_s, sizeof s->port_s, "%u", s->port);
    s->pid = sp_server(s->port, extra, log);
    assert_true(s->pid > 0);
}

static void
server_start(struct server *s, const char *const *extra)
{
    server_start_log(s, extra, "/dev/null");
}

/* A short good test must succeed (the server is alive and not stalled). With retry_busy, a
 * "server busy" answer is retried until a deadline, as a real client would after another
 * client's test: the server frees its slot a moment after that client exits. */
static void
good_client_run(const struct server *s, const char *token_file, bool retry_busy)
{
    const char *args[16] = {"-c", "127.0.0.1", "-p", s->port_s, "-t", "0.3", "--warmup", "0", "-J"};
    int n = 9;
    if (token_file != NULL) {
        args[n++] = "--token-file";
        args[n++] = token_file;
    }
    args[n] = NULL;
    struct sp_result r;
    double give_up = sp_now() + GOOD_CLIENT_TIMEOUT_S;
    for (;;) {
        sp_client(&r, args, NULL, GOOD_CLIENT_TIMEOUT_S);
        const char *err = json_string_value(json_object_get(r.doc, "error"));
        if (!retry_busy || r.status == 0 || err == NULL || strstr(err, "busy") == NULL ||
            sp_now() > give_up)
            break;
        json_decref(r.doc);
        usleep(50000);
    }
    if (r.status != 0)
        fprintf(stderr, "good client failed (%d):\n%s\n", r.status, r.out);
    assert_int_equal(r.status, 0);
    assert_true(json_is_null(json_object_get(r.doc, "error")));
    assert_true(sp_num(json_object_get(r.doc, "result"), "throughput_bps", NULL) > 0);
    json_decref(r.doc);
}

static void
good_client(const struct server *s, const char *token_file)
{
    good_client_run(s, token_file, false);
}

static const char *
write_token(const char *name, const char *secret)
{
    static char paths[4][128];
    static int next;
    char *p = paths[next++ % 4];
    snprintf(p, 128, "/tmp/nsperf-itest-%d-%s", (int)getpid(), name);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fprintf(f, "%s\n", secret);
    fclose(f);
    return p;
}

/* A client expected to fail: exit 1 and a JSON error containing needle. */
static void
failing_client(const struct server *s, const char *token_file, const char *needle)
{
    const char *args[16] = {"-c", "127.0.0.1", "-p", s->port_s, "-t", "0.3", "-J"};
    int n = 7;
    if (token_file != NULL) {
        args[n++] = "--token-file";
        args[n++] = token_file;
    }
    args[n] = NULL;
    struct sp_result r;
    sp_client(&r, args, NULL, GOOD_CLIENT_TIMEOUT_S);
    assert_int_equal(r.status, 1);
    const char *err = json_string_value(json_object_get(r.doc, "error"));
    assert_non_null(err);
    if (strstr(err, needle) == NULL)
        fprintf(stderr, "error '%s' lacks '%s'\n", err, needle);
    assert_non_null(strstr(err, needle));
    json_decref(r.doc);
}

static void
test_wrong_token_refused(void **state)
{
    (void)state;
    const char *good = write_token("good", "correct horse battery staple");
    const char *bad = write_token("bad", "correct horse battery stapler");
    const char *extra[] = {"--token-file", good, NULL};
    struct server s;
    server_start(&s, extra);
    failing_client(&s, bad, "authentication failed");
    failing_client(&s, NULL, "requires a token");
    good_client(&s, good);
    /* The secret can come from stdin too. */
    const char *args[] = {"-c",       "127.0.0.1", "-p", s.port_s,       "-t", "0.3",
                          "--warmup", "0",         "-J", "--token-file", "-",  NULL};
    struct sp_result r;
    sp_client(&r, args, good, GOOD_CLIENT_TIMEOUT_S);
    assert_int_equal(r.status, 0);
    json_decref(r.doc);
    sp_kill(s.pid);
    unlink(good);
    unlink(bad);
}

/* A client with a token must not talk to a server that checks none. */
static void
test_no_silent_downgrade(void **state)
{
    (void)state;
    const char *tok = write_token("t", "s3cret");
    struct server s;
    server_start(&s, NULL);
    failing_client(&s, tok, "does not check tokens");
    good_client(&s, NULL);
    sp_kill(s.pid);
    unlink(tok);
}

/* Send bytes on a fresh connection; expect an ERROR frame (if want_frame) and the server's
 * close within limit_s. */
static void
expect_rejected(const struct server *s, const void *bytes, size_t len, bool want_frame,
                double limit_s)
{
    int fd = sp_connect(s->port);
    assert_true(fd >= 0);
    if (len > 0)
        assert_int_equal(write(fd, bytes, len), (ssize_t)len);
    char buf[2048];
    double t0 = sp_now();
    size_t have = sp_drain(fd, buf, sizeof buf, t0 + limit_s + 1.0);
    double took = sp_now() - t0;
    /* Drained to EOF (not the deadline): the server closed. */
    assert_true(took < limit_s);
    if (want_frame) {
        assert_true(have >= 12);
        assert_memory_equal(buf, "NSPF", 4);
        assert_int_equal((unsigned char)buf[5], 10); /* PROTO_ERROR */
    }
    close(fd);
}

static void
test_garbage_and_bad_frames(void **state)
{
    (void)state;
    struct server s;
    server_start(&s, NULL);
    const char http[] = "GET / HTTP/1.0\r\n\r\n";
    expect_rejected(&s, http, sizeof http - 1, true, 3.0);
    /* Oversize: a HELLO header announcing 2 GiB. */
    const unsigned char big[12] = {'N', 'S', 'P', 'F', 1, 1, 0, 0, 0x7f, 0xff, 0xff, 0xff};
    expect_rejected(&s, big, sizeof big, true, 3.0);
    /* Wrong version and wrong type. */
    const unsigned char ver[12] = {'N', 'S', 'P', 'F', 99, 1, 0, 0, 0, 0, 0, 2};
    expect_rejected(&s, ver, sizeof ver, true, 3.0);
    const unsigned char type[14] = {'N', 'S', 'P', 'F', 1, 6, 0, 0, 0, 0, 0, 2, '{', '}'};
    expect_rejected(&s, type, sizeof type, true, 3.0);
    /* A valid HELLO whose payload is not JSON. */
    const unsigned char junk[15] = {'N', 'S', 'P', 'F', 1, 1, 0, 0, 0, 0, 0, 3, 'x', 'y', 'z'};
    expect_rejected(&s, junk, sizeof junk, true, 3.0);
    /* A data connection with a cookie no test has. */
    unsigned char data[24] = {'N', 'S', 'P', 'D', 1, 2, 3};
    expect_rejected(&s, data, sizeof data, false, 3.0);
    good_client(&s, NULL);
    sp_kill(s.pid);
}

/* Silent connections (nothing, or only a magic) are closed within the handshake timeout and do
 * not hold up a good client meanwhile. */
static void
test_half_open_does_not_stall(void **state)
{
    (void)state;
    struct server s;
    server_start(&s, NULL);
    int idle = sp_connect(s.port);
    int magic_only = sp_connect(s.port);
    assert_true(idle >= 0 && magic_only >= 0);
    assert_int_equal(write(magic_only, "NSPF", 4), 4);
    double t0 = sp_now();
    good_client(&s, NULL);
    assert_true(sp_now() - t0 < 5.0);
    char buf[1024];
    sp_drain(idle, buf, sizeof buf, t0 + 9.0);
    sp_drain(magic_only, buf, sizeof buf, t0 + 9.0);
    assert_true(sp_now() - t0 < 8.0); /* both closed by the server (5 s handshake limit) */
    close(idle);
    close(magic_only);
    good_client(&s, NULL);
    sp_kill(s.pid);
}

/* Strangers that send a frame magic and then nothing hold a control session each: more of them
 * than the server runs sessions must not lock out a client with the right token. */
static void
test_half_open_sessions_cannot_lock_out(void **state)
{
    (void)state;
    const char *tok = "/tmp/nsperf-itest-lockout.token";
    FILE *f = fopen(tok, "w");
    assert_non_null(f);
    fputs("lockout-secret", f);
    fclose(f);
    struct server s;
    const char *extra[] = {"--token-file", tok, NULL};
    server_start(&s, extra);
    enum { N = 40 };
    int fds[N];
    for (int i = 0; i < N; i++) {
        fds[i] = sp_connect(s.port);
        assert_true(fds[i] >= 0);
        assert_int_equal(write(fds[i], "NSPF", 4), 4);
    }
    /* Time, not synchronisation: older than the server's 200 ms eviction age, they are
     * strangers now. */
    usleep(400 * 1000);
    double t0 = sp_now();
    good_client(&s, tok);
    good_client(&s, tok);
    /* A lock-out would refuse them ("too many control connections"); their success is the
     * proof, and their time shows they did not wait out the strangers' handshake timeout. */
    assert_true(sp_now() - t0 < 4.0 * NS_TEST_SLACK / 2);
    for (int i = 0; i < N; i++)
        close(fds[i]);
    sp_kill(s.pid);
    unlink(tok);
}

/* More idle connections than the acceptor tracks: it sheds the oldest and keeps serving. */
static void
test_connection_flood(void **state)
{
    (void)state;
    struct server s;
    server_start(&s, NULL);
    int fds[100];
    for (int i = 0; i < 100; i++)
        fds[i] = sp_connect(s.port);
    good_client(&s, NULL);
    for (int i = 0; i < 100; i++)
        if (fds[i] >= 0)
            close(fds[i]);
    sp_kill(s.pid);
}

/* One test at a time: a second client is told the server is busy. */
static void
test_busy(void **state)
{
    (void)state;
    struct server s;
    char log[128];
    snprintf(log, sizeof log, "/tmp/nsperf-itest-%d-busy.log", (int)getpid());
    unlink(log);
    server_start_log(&s, NULL, log);
    const char *args[] = {"-c", "127.0.0.1", "-p", s.port_s, "-t",
                          "4",  "--warmup",  "0",  "-J",     NULL};
    struct sp_proc first = sp_client_start(args, NULL);
    /* The first test holds the slot once the server has logged it (not after a guessed delay). */
    assert_true(sp_log_wait(log, "tcp_stream test", 10.0));
    failing_client(&s, NULL, "busy");
    struct sp_result r;
    sp_client_finish(&first, &r, 15.0);
    assert_int_equal(r.status, 0);
    json_decref(r.doc);
    good_client_run(&s, NULL, true);
    sp_kill(s.pid);
}

/* A server killed mid-test ends the client quickly, non-zero, with a JSON error. */
static void
test_server_killed(void **state)
{
    (void)state;
    struct server s;
    server_start(&s, NULL);
    const char *args[] = {"-c", "127.0.0.1", "-p", s.port_s, "-t",
                          "20", "--warmup",  "0",  "-J",     NULL};
    struct sp_proc c = sp_client_start(args, NULL);
    /* Mid-test: data is moving (queued on the test's connection), not after a guessed delay. */
    assert_true(sp_wait_flowing(s.port, 10.0 * NS_TEST_SLACK));
    kill(s.pid, SIGKILL);
    assert_true(sp_wait(s.pid, 3.0) >= 0);
    double killed_at = sp_now();
    struct sp_result r;
    sp_client_finish(&c, &r, 15.0);
    assert_int_equal(r.status, 1);
    assert_true(sp_now() - killed_at < 5.0);
    assert_non_null(r.doc);
    const char *err = json_string_value(json_object_get(r.doc, "error"));
    assert_non_null(err);
    assert_true(strlen(err) > 0);
    json_decref(r.doc);
}

/* A client that dies mid-test frees the server for the next one. */
static void
test_client_killed(void **state)
{
    (void)state;
    struct server s;
    server_start(&s, NULL);
    const char *args[] = {"-c",       "127.0.0.1", "-p", s.port_s, "-t", "20",
                          "--warmup", "0",         "-P", "2",      NULL};
    struct sp_proc c = sp_client_start(args, NULL);
    assert_true(sp_wait_flowing(s.port, 10.0 * NS_TEST_SLACK)); /* mid-test */
    kill(c.pid, SIGKILL);
    struct sp_result r;
    sp_client_finish(&c, &r, 5.0);
    json_decref(r.doc);
    good_client_run(&s, NULL, true);
    sp_kill(s.pid);
}

/* No server at all: a prompt, clean failure. */
static void
test_no_server(void **state)
{
    (void)state;
    struct server s = {.port = sp_free_port()};
    snprintf(s.port_s, sizeof s.port_s, "%u", s.port);
    failing_client(&s, NULL, "cannot connect");
}

/* Usage errors exit 2 with a message. */
static void
test_usage_errors(void **state)
{
    (void)state;
    const char *cases[][8] = {
        {"-c", "127.0.0.1", "-t", "ten", NULL},
        {"-c", "127.0.0.1", "--test", "tcp_bogus", NULL},
        {"-c", "127.0.0.1", "-P", "0", NULL},
        {"-s", "-c", "127.0.0.1", NULL},
        {"-c", "127.0.0.1", "--test", "udp_stream", "-l", "8", NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct sp_result r;
        sp_client(&r, cases[i], NULL, 5.0);
        assert_int_equal(r.status, 2);
        json_decref(r.doc);
    }
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_wrong_token_refused),
        cmocka_unit_test(test_no_silent_downgrade),
        cmocka_unit_test(test_garbage_and_bad_frames),
        cmocka_unit_test(test_half_open_does_not_stall),
        cmocka_unit_test(test_connection_flood),
        cmocka_unit_test(test_half_open_sessions_cannot_lock_out),
        cmocka_unit_test(test_busy),
        cmocka_unit_test(test_server_killed),
        cmocka_unit_test(test_client_killed),
        cmocka_unit_test(test_no_server),
        cmocka_unit_test(test_usage_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
