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
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/errors.h"
#include "common/proto.h"
#include "nsperf/control.h"
#include "nsperf/wait.h"

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
    ns_word_set(&r->done, 1);
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

/* The server's ready line ({"event":"listening","port":N}, what the runner waits for) from the
 * read end of the pipe given as its `ready` file: its port, once it listens. */
static uint16_t
wait_listening(int fd)
{
    char line[256];
    size_t have = 0;
    struct pollfd p = {.fd = fd, .events = POLLIN};
    while (have + 1 < sizeof line && poll(&p, 1, 10000) == 1 && read(fd, line + have, 1) == 1 &&
           line[have] != '\n')
        have++;
    line[have] = '\0';
    const char *at = strstr(line, "\"port\":");
    if (at == NULL)
        fail_msg("the server printed no ready line ('%s')", line);
    return (uint16_t)strtoul(at + 7, NULL, 10);
}

static void
one_round(void)
{
    static struct srv_run r; /* a leaked session (none expected) would still see valid opts */
    memset(&r, 0, sizeof r);
    int rp[2];
    assert_int_equal(pipe(rp), 0);
    FILE *ready = fdopen(rp[1], "w");
    assert_non_null(ready);
    r.o =
        (struct ns_server_opts){.port = 0, .one_shot = true, .idle_timeout_s = 60, .ready = ready};
    err_clear(&r.e);
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, srv_thread, &r), 0);
    uint16_t port = wait_listening(rp[0]);

    /* Strangers that start a control session (the frame magic) and then hold it open. */
    int strangers[STRANGERS];
    for (int i = 0; i < STRANGERS; i++) {
        strangers[i] = connect_port(port);
        assert_true(strangers[i] >= 0);
        assert_int_equal(write(strangers[i], PROTO_MAGIC, 4), 4);
    }

    /* One real test makes the one-shot server ready to exit once no session is left. */
    struct ns_client_opts co = {.host = "127.0.0.1", .port = port, .connect_timeout_ms = 5000};
    ns_params_default(&co.p, TESTSPEC_TCP_RR);
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

    ns_word_wait_change(&r.done, 0, clock_now_ns() + 60 * NS_PER_SEC);
    assert_true(atomic_load(&r.done));
    pthread_join(th, NULL);
    fclose(ready);
    close(rp[0]);
    assert_int_equal(r.rc, 0);
}

static void *
nothing_thread(void *arg)
{
    return arg;
}

/* Threads of this process now (/proc/self/status). */
static int
thread_count(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    int n = -1;
    while (f != NULL && fgets(line, sizeof line, f) != NULL)
        if (sscanf(line, "Threads: %d", &n) == 1)
            break;
    if (f != NULL)
        fclose(f);
    return n;
}

static void
test_shutdown_with_sessions_ending_together(void **state)
{
    (void)state;
    /* The threads there are without a server: this one, and ThreadSanitizer's own, which it
     * starts with the first pthread_create (hence a thread first). */
    pthread_t first;
    assert_int_equal(pthread_create(&first, NULL, nothing_thread, NULL), 0);
    pthread_join(first, NULL);
    int before = thread_count();
    for (int i = 0; i < ROUNDS; i++)
        one_round();
    /* Detached session threads finish their last frees after the acceptor returned: wait until
     * they are gone, so that the sanitizers see them end. */
    for (uint64_t end = clock_now_ns() + 30 * NS_PER_SEC;
         thread_count() > before && clock_now_ns() < end;)
        clock_sleep_ns(NS_PER_MS);
    assert_int_equal(thread_count(), before);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shutdown_with_sessions_ending_together),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
