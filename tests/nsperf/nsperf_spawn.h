/* nsperf_spawn.h - helpers of the nsperf integration tests (itest_*.c): run the real binary
 * (NSPERF_BIN) as server and client processes on loopback, with every wait bounded and every
 * child killed and reaped by its PID. Header-only: each itest is one executable. */
#ifndef NSPERF_SPAWN_H
#define NSPERF_SPAWN_H

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

static inline double
sp_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A port free for TCP and UDP right now (the kernel picks it). */
static inline unsigned
sp_free_port(void)
{
    for (int tries = 0; tries < 20; tries++) {
        int t = socket(AF_INET6, SOCK_STREAM, 0);
        struct sockaddr_in6 a = {.sin6_family = AF_INET6, .sin6_addr = IN6ADDR_ANY_INIT};
        socklen_t al = sizeof a;
        if (t < 0 || bind(t, (struct sockaddr *)&a, sizeof a) != 0 ||
            getsockname(t, (struct sockaddr *)&a, &al) != 0) {
            if (t >= 0)
                close(t);
            continue;
        }
        int u = socket(AF_INET6, SOCK_DGRAM, 0);
        int ok = u >= 0 && bind(u, (struct sockaddr *)&a, sizeof a) == 0;
        if (u >= 0)
            close(u);
        close(t);
        if (ok)
            return ntohs(a.sin6_port);
    }
    return 0;
}

/* Connected TCP socket to 127.0.0.1:port, or -1. */
static inline int
sp_connect(unsigned port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET,
                            .sin_port = htons((uint16_t)port),
                            .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    if (fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof a) == 0)
        return fd;
    if (fd >= 0)
        close(fd);
    return -1;
}

/* Spawn argv (argv[0] ignored: NSPERF_BIN) with stdout to out_fd (-1 = /dev/null), stderr to
 * log (may be NULL = /dev/null), stdin from in_path (NULL = /dev/null). */
static inline pid_t
sp_spawn(const char *const argv_in[], int out_fd, const char *log, const char *in_path)
{
    char *argv[48];
    int n = 0;
    for (; argv_in[n] != NULL && n < 47; n++)
        argv[n] = strdup(argv_in[n]);
    argv[n] = NULL;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, in_path ? in_path : "/dev/null", O_RDONLY, 0);
    if (out_fd >= 0)
        posix_spawn_file_actions_adddup2(&fa, out_fd, 1);
    else
        posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, log ? log : "/dev/null", O_WRONLY | O_CREAT | O_APPEND,
                                     0644);
    pid_t pid = -1;
    /* NSPERF_TEST_BIN runs the same tests against another build (an older one, to see a test
     * fail before its fix). */
    const char *bin = getenv("NSPERF_TEST_BIN") != NULL ? getenv("NSPERF_TEST_BIN") : NSPERF_BIN;
    if (posix_spawn(&pid, bin, &fa, NULL, argv, environ) != 0)
        pid = -1;
    posix_spawn_file_actions_destroy(&fa);
    for (int i = 0; i < n; i++)
        free(argv[i]);
    return pid;
}

/* Wait for pid up to timeout_s; returns the exit status, 128+signal, or -1 on timeout. */
static inline int
sp_wait(pid_t pid, double timeout_s)
{
    double end = sp_now() + timeout_s;
    for (;;) {
        int st;
        pid_t r = waitpid(pid, &st, WNOHANG);
        if (r == pid)
            return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
        if (r < 0)
            return -1;
        if (sp_now() > end)
            return -1;
        usleep(10000);
    }
}

/* Kill pid (ours) and reap it. */
static inline void
sp_kill(pid_t pid)
{
    if (pid <= 0)
        return;
    kill(pid, SIGTERM);
    if (sp_wait(pid, 3.0) < 0) {
        kill(pid, SIGKILL);
        sp_wait(pid, 3.0);
    }
}

/* Whether a TCP connection of port (either end) holds queued data in the kernel: a stream test
 * on it is moving data (its tiny control frames are consumed at once). */
static inline bool
sp_tcp_flowing(unsigned port)
{
    const char *files[] = {"/proc/net/tcp", "/proc/net/tcp6"};
    bool found = false;
    for (int i = 0; i < 2 && !found; i++) {
        FILE *f = fopen(files[i], "r");
        char line[512];
        while (f != NULL && !found && fgets(line, sizeof line, f) != NULL) {
            char local[64], remote[64];
            unsigned st, tx, rx;
            if (sscanf(line, " %*d: %63s %63s %x %x:%x", local, remote, &st, &tx, &rx) != 5)
                continue;
            const char *lp = strrchr(local, ':'), *rp = strrchr(remote, ':');
            unsigned l = lp ? (unsigned)strtoul(lp + 1, NULL, 16) : 0;
            unsigned r = rp ? (unsigned)strtoul(rp + 1, NULL, 16) : 0;
            found = st == 0x01 && (l == port || r == port) && (tx > 0 || rx > 0);
        }
        if (f != NULL)
            fclose(f);
    }
    return found;
}

/* Wait (bounded) until a stream test to port moves data; false on timeout. */
static inline bool
sp_wait_flowing(unsigned port, double timeout_s)
{
    for (double end = sp_now() + timeout_s; sp_now() < end; usleep(1000))
        if (sp_tcp_flowing(port))
            return true;
    return false;
}

/* Established TCP sockets whose local port is port: on a server, its control connection and
 * its data connections. */
static inline int
sp_tcp_established(unsigned port)
{
    const char *files[] = {"/proc/net/tcp", "/proc/net/tcp6"};
    int n = 0;
    for (int i = 0; i < 2; i++) {
        FILE *f = fopen(files[i], "r");
        char line[512];
        while (f != NULL && fgets(line, sizeof line, f) != NULL) {
            char local[64];
            unsigned st;
            if (sscanf(line, " %*d: %63s %*s %x", local, &st) != 2)
                continue;
            const char *lp = strrchr(local, ':');
            n += st == 0x01 && lp != NULL && (unsigned)strtoul(lp + 1, NULL, 16) == port;
        }
        if (f != NULL)
            fclose(f);
    }
    return n;
}

/* Wait (bounded) until a server on port holds at least n established connections; false on
 * timeout. */
static inline bool
sp_wait_established(unsigned port, int n, double timeout_s)
{
    for (double end = sp_now() + timeout_s; sp_now() < end; usleep(1000))
        if (sp_tcp_established(port) >= n)
            return true;
    return false;
}

/* Wait (bounded) until the file at path holds needle in its first 64 KiB (a server's log line
 * that says it reached a state); false on timeout. */
static inline bool
sp_log_wait(const char *path, const char *needle, double timeout_s)
{
    static char buf[65536];
    for (double end = sp_now() + timeout_s; sp_now() < end; usleep(20000)) {
        FILE *f = fopen(path, "r");
        size_t n = f != NULL ? fread(buf, 1, sizeof buf - 1, f) : 0;
        if (f != NULL)
            fclose(f);
        buf[n] = '\0';
        if (strstr(buf, needle) != NULL)
            return true;
    }
    return false;
}

/* Spawn argv as sp_spawn does, with its stdout on a pipe whose read end goes to *out. */
static inline pid_t
sp_spawn_out(const char *const argv_in[], int *out, const char *log)
{
    int pfd[2];
    *out = -1;
    if (pipe2(pfd, O_CLOEXEC) != 0)
        return -1;
    pid_t pid = sp_spawn(argv_in, pfd[1], log, NULL);
    close(pfd[1]);
    if (pid < 0)
        close(pfd[0]);
    else
        *out = pfd[0];
    return pid;
}

/* Read one line (without its newline) from fd until the deadline; "" when none came. */
static inline void
sp_drain_line(int fd, char *buf, size_t cap, double end)
{
    size_t have = 0;
    while (have + 1 < cap) {
        int ms = (int)((end - sp_now()) * 1000);
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (ms <= 0 || poll(&p, 1, ms) <= 0 || read(fd, buf + have, 1) != 1)
            break;
        if (buf[have] == '\n')
            break;
        have++;
    }
    buf[have] = '\0';
}

/* Start "nsperf -s -p PORT extra..." and wait for its ready line: the server prints
 * {"event":"listening",...} on stdout once it accepts connections (what the runner waits for). */
static inline pid_t
sp_server(unsigned port, const char *const *extra, const char *log)
{
    char portbuf[16];
    snprintf(portbuf, sizeof portbuf, "%u", port);
    const char *argv[16] = {"nsperf", "-s", "-p", portbuf};
    int n = 4;
    for (int i = 0; extra != NULL && extra[i] != NULL && n < 15; i++)
        argv[n++] = extra[i];
    argv[n] = NULL;
    int out;
    pid_t pid = sp_spawn_out(argv, &out, log);
    if (pid < 0)
        return -1;
    char line[256];
    sp_drain_line(out, line, sizeof line, sp_now() + 20.0);
    close(out);
    if (strstr(line, "\"event\":\"listening\"") != NULL)
        return pid;
    sp_kill(pid);
    return -1;
}

struct sp_result {
    int status;     /* exit status, -1 = did not finish in time (killed) */
    double seconds; /* wall time the client took */
    json_t *doc;    /* parsed stdout when it is JSON, else NULL */
    /* raw stdout (truncated): room for -J with a dense histogram (28 672 buckets, ~630 KB) */
    char out[1 << 20];
};

/* Read everything from fd until EOF or the deadline; returns the bytes kept (NUL added). */
static inline size_t
sp_drain(int fd, char *buf, size_t cap, double end)
{
    size_t have = 0;
    for (;;) {
        int ms = (int)((end - sp_now()) * 1000);
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (ms <= 0 || poll(&p, 1, ms) <= 0)
            break;
        char tmp[4096];
        ssize_t n = read(fd, tmp, sizeof tmp);
        if (n <= 0)
            break;
        size_t take = (size_t)n < cap - 1 - have ? (size_t)n : cap - 1 - have;
        memcpy(buf + have, tmp, take);
        have += take;
    }
    buf[have] = '\0';
    return have;
}

struct sp_proc {
    pid_t pid;
    int out; /* read end of its stdout */
    double t0;
};

/* Start the client "nsperf args..." (NULL-terminated, without argv[0]). */
static inline struct sp_proc
sp_client_start(const char *const *args, const char *in_path)
{
    struct sp_proc p = {.pid = -1, .out = -1, .t0 = sp_now()};
    const char *argv[40] = {"nsperf"};
    int n = 1;
    for (int i = 0; args[i] != NULL && n < 39; i++)
        argv[n++] = args[i];
    argv[n] = NULL;
    int pfd[2];
    if (pipe(pfd) != 0)
        return p;
    p.pid = sp_spawn(argv, pfd[1], "/dev/null", in_path);
    close(pfd[1]);
    p.out = pfd[0];
    return p;
}

/* Collect its output and status within timeout_s of its start (killed when late). */
static inline void
sp_client_finish(struct sp_proc *p, struct sp_result *r, double timeout_s)
{
    memset(r, 0, sizeof *r);
    r->status = -1;
    if (p->out >= 0) {
        sp_drain(p->out, r->out, sizeof r->out, p->t0 + timeout_s);
        close(p->out);
    }
    if (p->pid > 0) {
        double left = p->t0 + timeout_s - sp_now();
        r->status = sp_wait(p->pid, left > 0.5 ? left : 0.5);
        if (r->status < 0)
            sp_kill(p->pid);
    }
    r->seconds = sp_now() - p->t0;
    r->doc = json_loads(r->out, 0, NULL);
}

static inline void
sp_client(struct sp_result *r, const char *const *args, const char *in_path, double timeout_s)
{
    struct sp_proc p = sp_client_start(args, in_path);
    sp_client_finish(&p, r, timeout_s);
}

static inline double
sp_num(const json_t *o, const char *path1, const char *path2)
{
    const json_t *v = json_object_get(o, path1);
    if (path2 != NULL)
        v = json_object_get(v, path2);
    return json_number_value(v);
}

#endif
