/* ssh_bench.c - the driver of tests/bench/bench_ssh.sh (not a test: prints figures).
 *
 *   ssh_bench HOSTS_FILE NSPERF IDENTITY KNOWN_HOSTS TESTS
 *
 * HOSTS_FILE has one "address port" a line (sshd's on loopback). Phase 1 opens every host at
 * once (one thread each: connect, verify or record the host key, authenticate) and deploys
 * NSPERF to it, and reports the wall time. Phase 2 runs TESTS short nsperf tests (tcp_rr,
 * -t 0.25 s) with the server on the first host and the client on the second over the sessions
 * already open, then the same tests as local processes, and reports both medians and their
 * difference: the orchestration overhead of running a test over SSH. */
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/clock.h"
#include "transport/transport.h"
#include "transport/transport_ssh.h"

#define MAX_HOSTS 256
#define TEST_SECONDS 0.25

struct host {
    char addr[64];
    unsigned port;
    const char *nsperf, *identity, *known_hosts;
    struct transport *t;
    char remote[1024];
    int rc;
    char msg[NS_ERR_MSG_MAX];
    uint64_t opened_ns; /* when transport_open returned */
};

static void *
host_ready(void *arg)
{
    struct host *h = arg;
    struct transport_target tg = {.name = h->addr,
                                  .kind = "ssh",
                                  .address = h->addr,
                                  .port = h->port,
                                  .user = "root",
                                  .identity = h->identity,
                                  .known_hosts = h->known_hosts,
                                  .connect_timeout_s = 30,
                                  .accept_new_host_keys = true};
    struct err e = {0};
    h->rc = transport_open(&tg, &h->t, &e);
    h->opened_ns = clock_now_ns();
    if (h->rc == 0)
        h->rc = transport_deploy(h->t, h->nsperf, h->remote, sizeof h->remote, &e);
    snprintf(h->msg, sizeof h->msg, "%s", e.msg);
    return NULL;
}

/* A loopback TCP port nobody listens on right now (the hosts are this machine). */
static unsigned
free_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    unsigned port = 0;
    if (fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof a) == 0 &&
        getsockname(fd, (struct sockaddr *)&a, &len) == 0)
        port = ntohs(a.sin_port);
    if (fd >= 0)
        close(fd);
    return port;
}

/* The same test as one_test with both sides local processes: the time nsperf itself takes. */
static int
local_test(const char *nsperf, const char *tokfile, unsigned port)
{
    char ps[16], ts[16];
    snprintf(ps, sizeof ps, "%u", port);
    snprintf(ts, sizeof ts, "%g", TEST_SECONDS);
    int pfd[2];
    if (pipe(pfd) != 0)
        return -1;
    pid_t srv = fork();
    if (srv == 0) {
        dup2(pfd[1], 2);
        close(pfd[0]);
        execl(nsperf, nsperf, "-s", "-1", "-B", "127.0.0.1", "-p", ps, "--token-file", tokfile,
              (char *)NULL);
        _exit(127);
    }
    close(pfd[1]);
    char buf[512];
    size_t got = 0;
    ssize_t n;
    while (got < sizeof buf - 1 && (n = read(pfd[0], buf + got, sizeof buf - 1 - got)) > 0) {
        got += (size_t)n;
        buf[got] = '\0';
        if (strstr(buf, "listening") != NULL)
            break;
    }
    pid_t cli = fork();
    if (cli == 0) {
        int null = open("/dev/null", O_WRONLY);
        dup2(null, 1);
        dup2(null, 2);
        execl(nsperf, nsperf, "-c", "127.0.0.1", "-p", ps, "--test", "tcp_rr", "-t", ts, "--warmup",
              "0", "-J", "--token-file", tokfile, (char *)NULL);
        _exit(127);
    }
    int st1 = 0, st2 = 0;
    waitpid(cli, &st1, 0);
    waitpid(srv, &st2, 0);
    close(pfd[0]);
    return st1 == 0 && st2 == 0 ? 0 : -1;
}

static int
cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* One test: server on a, client on b. Returns 0 or -1. */
static int
one_test(struct host *a, struct host *b, unsigned port)
{
    char ps[16], ts[16];
    snprintf(ps, sizeof ps, "%u", port);
    snprintf(ts, sizeof ts, "%g", TEST_SECONDS);
    const char *srv[] = {"sh",      "-c",           "exec \"$0\" \"$@\" 2>&1",
                         a->remote, "-s",           "-1",
                         "-B",      "127.0.0.1",    "-p",
                         ps,        "--token-file", "-",
                         NULL};
    const char *cli[] = {b->remote, "-c",     "127.0.0.1",    "-p", ps,
                         "--test",  "tcp_rr", "-t",           ts,   "--warmup",
                         "0",       "-J",     "--token-file", "-",  NULL};
    const char *tok = "bench-token";
    struct err e = {0};
    struct transport_proc *s = NULL, *c = NULL;
    struct transport_output o;
    char line[256];
    uint64_t t[6];
    t[0] = clock_now_ns();
    int rc = transport_spawn(a->t, srv, tok, strlen(tok), &s, &e);
    t[1] = clock_now_ns();
    if (rc == 0)
        rc = transport_read_line(s, line, sizeof line, (int64_t)clock_deadline_ms(20000), &e);
    t[2] = clock_now_ns();
    if (rc == 0)
        rc = transport_spawn(b->t, cli, tok, strlen(tok), &c, &e);
    t[3] = clock_now_ns();
    if (rc == 0) {
        rc = transport_wait(c, 1 << 20, 1 << 16, (int64_t)clock_deadline_ms(20000), &o, &e);
        t[4] = clock_now_ns();
        if (getenv("BENCH_VERBOSE") != NULL)
            fprintf(stderr, "spawn %.1f line %.1f spawn %.1f wait %.1f ms\n",
                    (double)(t[1] - t[0]) / 1e6, (double)(t[2] - t[1]) / 1e6,
                    (double)(t[3] - t[2]) / 1e6, (double)(t[4] - t[3]) / 1e6);
        if (rc == 0 && o.status != 0) {
            fprintf(stderr, "client status %d: %s%s (server said: %s)\n", o.status, o.out, o.err,
                    line);
            rc = -1;
        }
        transport_output_release(&o);
    }
    if (rc == 0) {
        rc = transport_wait(s, 1 << 16, 1 << 16, (int64_t)clock_deadline_ms(20000), &o, &e);
        transport_output_release(&o);
    }
    transport_proc_free(c);
    transport_proc_free(s);
    if (rc != 0)
        fprintf(stderr, "test failed: %s\n", e.msg);
    return rc == 0 ? 0 : -1;
}

int
main(int argc, char **argv)
{
    if (argc != 6) {
        fprintf(stderr, "usage: ssh_bench HOSTS_FILE NSPERF IDENTITY KNOWN_HOSTS TESTS\n");
        return 2;
    }
    static struct host hosts[MAX_HOSTS];
    size_t n = 0;
    FILE *f = fopen(argv[1], "r");
    if (f == NULL)
        return 2;
    while (n < MAX_HOSTS && fscanf(f, "%63s %u", hosts[n].addr, &hosts[n].port) == 2) {
        hosts[n].nsperf = argv[2];
        hosts[n].identity = argv[3];
        hosts[n].known_hosts = argv[4];
        n++;
    }
    fclose(f);
    int tests = atoi(argv[5]);
    if (n < 2 || tests < 1)
        return 2;

    pthread_t th[MAX_HOSTS];
    uint64_t t0 = clock_now_ns();
    for (size_t i = 0; i < n; i++)
        pthread_create(&th[i], NULL, host_ready, &hosts[i]);
    for (size_t i = 0; i < n; i++)
        pthread_join(th[i], NULL);
    uint64_t ready_ns = clock_now_ns() - t0;
    int failed = 0, uploads = 0;
    uint64_t opened_ns = 0;
    for (size_t i = 0; i < n; i++)
        if (hosts[i].opened_ns - t0 > opened_ns)
            opened_ns = hosts[i].opened_ns - t0;
    for (size_t i = 0; i < n; i++) {
        if (hosts[i].rc != 0) {
            fprintf(stderr, "%s:%u: %s\n", hosts[i].addr, hosts[i].port, hosts[i].msg);
            failed++;
        } else {
            uploads += transport_ssh_uploads(hosts[i].t);
        }
    }
    printf("hosts=%zu connected_and_deployed_s=%.3f (all connected at %.3f) uploads=%d "
           "failed=%d\n",
           n, (double)ready_ns / 1e9, (double)opened_ns / 1e9, uploads, failed);
    if (failed != 0)
        return 1;

    uint64_t *lat = calloc((size_t)tests, sizeof *lat);
    int bad = 0;
    for (int i = 0; i < tests; i++) {
        uint64_t s = clock_now_ns();
        if (one_test(&hosts[0], &hosts[1], free_port()) != 0 && ++bad > tests / 4)
            return 1; /* a few failures of nsperf itself on a loaded machine are tolerated */
        lat[i] = clock_now_ns() - s;
    }
    qsort(lat, (size_t)tests, sizeof *lat, cmp_u64);
    double med = (double)lat[tests / 2] / 1e6, lo = (double)lat[0] / 1e6,
           hi = (double)lat[tests - 1] / 1e6;
    /* the same tests run as local processes */
    char tokfile[] = "/tmp/ns-bench-tok-XXXXXX";
    int tfd = mkstemp(tokfile);
    if (tfd < 0 || write(tfd, "bench-token", 11) != 11)
        return 1;
    close(tfd);
    for (int i = 0; i < tests; i++) {
        uint64_t s = clock_now_ns();
        if (local_test(hosts[0].nsperf, tokfile, free_port()) != 0) {
            unlink(tokfile);
            return 1;
        }
        lat[i] = clock_now_ns() - s;
    }
    unlink(tokfile);
    qsort(lat, (size_t)tests, sizeof *lat, cmp_u64);
    double lmed = (double)lat[tests / 2] / 1e6;
    printf("tests=%d over_ssh_ms median=%.1f min=%.1f max=%.1f local_ms median=%.1f "
           "overhead_ms median=%.1f (-t %.0f ms tcp_rr; overhead = ssh - local)\n",
           tests, med, lo, hi, lmed, med - lmed, TEST_SECONDS * 1e3);
    free(lat);
    for (size_t i = 0; i < n; i++)
        transport_close(hosts[i].t);
    return 0;
}
