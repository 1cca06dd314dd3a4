/* Server shutdown while its sessions end at the same moment: the acceptor of a one-shot server
 * frees its state as soon as it sees no session left, and every ending session wakes it. Run
 * in-process (server in a thread, an in-process client) so that AddressSanitizer sees a
 * use-after-free and ThreadSanitizer a race between a session's last touch of the server and
 * srv_free; the suite runs it under both (presets asan and tsan). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/errors.h"
#include "common/proto.h"
#include "nsperf/control.h"

#define ROUNDS 12
#define STRANGERS 12 /* below the server's session limit, so that none is evicted */

struct srv_run {
    struct ns_server_opts o;
    int rc;
    struct err e;
    _Atomic int done;
};

static void *
srv_thread(void *arg)
{
    struct srv_run *r = arg;
    r->rc = ns_server_run(&r->o, &r->e);
    atomic_store(&r->done, 1);
    return NULL;
}

static int
connect_port(uint16_t port)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a = {
        .sin_family = AF_INET, .sin_port = htons(port), .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    if (fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof a) == 0)
        return fd;
    if (fd >= 0)
        close(fd);
    return -1;
}

static uint16_t
free_port(void)
{
    int fd = socket(AF_INET6, SOCK_STREAM, 0);
    struct sockaddr_in6 a = {.sin6_family = AF_INET6, .sin6_addr = IN6ADDR_ANY_INIT};
    socklen_t al = sizeof a;
    assert_true(fd >= 0);
    assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
    assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &al), 0);
    close(fd);
    return ntohs(a.sin6_port);
}

/* Wait (bounded) until a connection to port succeeds: the server is listening. */
static void
wait_listening(uint16_t port)
{
    for (uint64_t end = clock_now_ns() + 10 * NS_PER_SEC; clock_now_ns() < end;) {
        int fd = connect_port(port);
        if (fd >= 0) {
            close(fd);
            return;
        }
        clock_sleep_ns(10 * NS_PER_MS);
    }
    fail_msg("server did not listen on %u", (unsigned)port);
}

static void
one_round(void)
{
    static struct srv_run r; /* a leaked session (none expected) would still see valid opts */
    memset(&r, 0, sizeof r);
    uint16_t port = free_port();
    r.o = (struct ns_server_opts){.port = port, .one_shot = true, .idle_timeout_s = 60};
    err_clear(&r.e);
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, srv_thread, &r), 0);
    wait_listening(port);

    /* Strangers that start a control session (the frame magic) and then hold it open. */
    int strangers[STRANGERS];
    for (int i = 0; i < STRANGERS; i++) {
        strangers[i] = connect_port(port);
        assert_true(strangers[i] >= 0);
        assert_int_equal(write(strangers[i], PROTO_MAGIC, 4), 4);
    }

    /* One real test makes the one-shot server ready to exit once no session is left. */
    struct ns_client_opts co = {.host = "127.0.0.1", .port = port, .connect_timeout_ms = 5000};
    ns_params_default(&co.p, NS_TCP_RR);
    co.p.duration_s = 0.1;
    co.p.warmup_s = 0;
    FILE *out = fopen("/dev/null", "w");
    assert_non_null(out);
    struct err ce;
    err_clear(&ce);
    int crc = ns_client_run(&co, out, &ce);
    fclose(out);
    if (crc != 0)
        fail_msg("client: %s", ce.msg);

    /* Now every stranger's session ends at once; the last one lets the acceptor free the
     * server while the others may still be winding down. */
    for (int i = 0; i < STRANGERS; i++)
        shutdown(strangers[i], SHUT_RDWR);
    for (int i = 0; i < STRANGERS; i++)
        close(strangers[i]);

    for (uint64_t end = clock_now_ns() + 60 * NS_PER_SEC;
         !atomic_load(&r.done) && clock_now_ns() < end;)
        clock_sleep_ns(5 * NS_PER_MS);
    assert_true(atomic_load(&r.done));
    pthread_join(th, NULL);
    assert_int_equal(r.rc, 0);
}

static void
test_shutdown_with_sessions_ending_together(void **state)
{
    (void)state;
    for (int i = 0; i < ROUNDS; i++)
        one_round();
    /* Detached session threads finish their last frees after the acceptor returned. */
    clock_sleep_ns(200 * NS_PER_MS);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shutdown_with_sessions_ending_together),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
