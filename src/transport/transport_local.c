/* transport_local.c - the `local` transport: hosts that are processes on this machine.
 *
 * Each program is started with fork + exec in a session of its own (setsid), so a
 * terminal's Ctrl-C reaches only netsurvey, which then stops the programs itself, and killpg
 * takes the program with anything it started. Its stdout and stderr are non-blocking pipes read
 * with poll() against a CLOCK_MONOTONIC deadline, each with a cap.
 *
 * Threads: a process is driven by one thread (read_line, wait, proc_free) while another may
 * signal it (an interrupt); the pid is only signalled before it is reaped, under the process's
 * lock, so that a recycled pid is never hit. The caller ignores SIGPIPE (a program that exits
 * before reading its stdin). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/clock.h"
#include "transport/transport.h"
#include "transport/transport_buf.h"

/* stderr kept while a caller reads stdout line by line, before transport_wait gives caps. */
#define LOCAL_EARLY_ERR_CAP (1u << 20)
#define LOCAL_READ_CHUNK 65536

struct local_proc;

struct local_transport {
    struct transport_base base;
    pthread_mutex_t mu;
    struct local_proc *procs; /* still owned by callers; killed and detached at close */
};

struct local_proc {
    struct transport_base base;
    struct local_transport *owner; /* NULL once the transport closed */
    struct local_proc *next;
    pthread_mutex_t mu; /* guards pid/reaped against a concurrent signal */
    pid_t pid;
    bool reaped;
    int status;
    int out_fd, err_fd; /* -1 once at end of file */
    struct transport_buf out, err;
};

/* --- pipes ------------------------------------------------------------------------------- */

/* Read what is available on *fd into b; closes and sets *fd = -1 at end of file. */
static int
drain_fd(int *fd, struct transport_buf *b, size_t limit, struct err *e)
{
    char chunk[LOCAL_READ_CHUNK];
    for (;;) {
        ssize_t n = read(*fd, chunk, sizeof chunk);
        if (n > 0) {
            if (transport_buf_append(b, chunk, (size_t)n, limit) != 0)
                return err_set(e, NS_ENOMEM, "out of memory");
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN)
            return 0;
        close(*fd); /* end of file, or a read error that ends the stream the same way */
        *fd = -1;
        return 0;
    }
}

/* One poll over the open pipes until deadline_ns; reads whatever arrived. NS_ETIMEDOUT when
 * the deadline passed with nothing to read. */
static int
pump(struct local_proc *p, size_t out_cap, size_t err_cap, int64_t deadline_ns, struct err *e)
{
    struct pollfd pfd[2];
    int n = 0;
    if (p->out_fd >= 0)
        pfd[n++] = (struct pollfd){.fd = p->out_fd, .events = POLLIN};
    if (p->err_fd >= 0)
        pfd[n++] = (struct pollfd){.fd = p->err_fd, .events = POLLIN};
    if (n == 0)
        return 0;
    int ms = clock_ms_until(deadline_ns < 0 ? 0 : (uint64_t)deadline_ns);
    int r = poll(pfd, (nfds_t)n, ms);
    if (r < 0 && errno != EINTR)
        return err_sys(e, NS_EIO, errno, "%s: poll", p->base.name);
    if (r == 0)
        return err_set(e, NS_ETIMEDOUT, "%s: no output before the deadline", p->base.name);
    int rc = 0;
    for (int i = 0; i < n && r > 0 && rc == 0; i++) {
        if (pfd[i].revents == 0)
            continue;
        if (pfd[i].fd == p->out_fd)
            rc = drain_fd(&p->out_fd, &p->out, out_cap, e);
        else
            rc = drain_fd(&p->err_fd, &p->err, err_cap, e);
    }
    return rc;
}

/* --- the transport ------------------------------------------------------------------------- */

static int
local_open(const struct transport_target *t, struct transport **out, struct err *e)
{
    struct local_transport *lt = calloc(1, sizeof *lt);
    if (lt == NULL)
        return err_set(e, NS_ENOMEM, "out of memory");
    lt->base.ops = &transport_local_ops;
    snprintf(lt->base.name, sizeof lt->base.name, "%s", t->name != NULL ? t->name : "local");
    pthread_mutex_init(&lt->mu, NULL);
    *out = (struct transport *)lt;
    return 0;
}

static void
proc_reap(struct local_proc *p, bool kill_first)
{
    pthread_mutex_lock(&p->mu);
    if (!p->reaped) {
        if (kill_first)
            killpg(p->pid, SIGKILL);
        int st = 0;
        pid_t r;
        do
            r = waitpid(p->pid, &st, 0);
        while (r < 0 && errno == EINTR);
        p->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
        p->reaped = true;
        /* Anything the program left in its group goes with it. */
        killpg(p->pid, SIGKILL);
    }
    pthread_mutex_unlock(&p->mu);
}

static void
local_close(struct transport *t)
{
    struct local_transport *lt = (struct local_transport *)t;
    pthread_mutex_lock(&lt->mu);
    for (struct local_proc *p = lt->procs; p != NULL; p = p->next) {
        proc_reap(p, true);
        p->owner = NULL;
    }
    lt->procs = NULL;
    pthread_mutex_unlock(&lt->mu);
    pthread_mutex_destroy(&lt->mu);
    free(lt);
}

/* The first build runs here: the caller gives this machine's program first. */
static int
local_deploy(struct transport *t, const char *const *builds, struct transport_deployed *d,
             struct err *e)
{
    const struct local_transport *lt = (const struct local_transport *)t;
    struct utsname u;
    if (uname(&u) == 0)
        snprintf(d->machine, sizeof d->machine, "%.63s", u.machine);
    if (builds == NULL || builds[0] == NULL)
        return err_set(e, NS_EINVAL, "%s: no program to deploy", lt->base.name);
    char abs[PATH_MAX];
    if (realpath(builds[0], abs) == NULL)
        return err_sys(e, NS_ENOTFOUND, errno, "%s: %s", lt->base.name, builds[0]);
    if (access(abs, X_OK) != 0)
        return err_sys(e, NS_EINVAL, errno, "%s: %s", lt->base.name, abs);
    if (strlen(abs) >= sizeof d->path)
        return err_set(e, NS_ETOOBIG, "%s: path too long: %s", lt->base.name, abs);
    memcpy(d->path, abs, strlen(abs) + 1);
    d->build = 0;
    return 0;
}

static int
make_pipe(int fds[2], struct err *e)
{
    if (pipe2(fds, O_CLOEXEC) != 0)
        return err_sys(e, NS_EIO, errno, "pipe");
    return 0;
}

static void
close_pipes(int fds[3][2])
{
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 2; j++)
            if (fds[i][j] >= 0)
                close(fds[i][j]);
}

/* In the child, between fork and exec: only async-signal-safe calls. */
static void
child_exec(const char *const *argv, int fds[3][2], pid_t parent, int report_fd)
{
    /* A session of its own, and no outliving us: if netsurvey dies in any way (SIGKILL
     * included) the kernel kills the program (the spawning thread waits for it anyway). */
    setsid();
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
        _exit(127);
    sigset_t none;
    sigemptyset(&none);
    for (int sig = 1; sig < NSIG; sig++)
        signal(sig, SIG_DFL);
    sigprocmask(SIG_SETMASK, &none, NULL);
    if (dup2(fds[0][0], STDIN_FILENO) < 0 || dup2(fds[1][1], STDOUT_FILENO) < 0 ||
        dup2(fds[2][1], STDERR_FILENO) < 0)
        _exit(127);
    if (strchr(argv[0], '/') != NULL)
        execv(argv[0], (char *const *)(uintptr_t)argv);
    else
        execvp(argv[0], (char *const *)(uintptr_t)argv);
    int err = errno;
    (void)!write(report_fd, &err, sizeof err);
    _exit(127);
}

/* fork + exec, not posix_spawn: only a forked child can ask for PR_SET_PDEATHSIG. An exec
 * failure comes back through a close-on-exec pipe, so it is an error here, not an exit 127. */
static int
spawn_child(const char *const *argv, int fds[3][2], pid_t *pid, struct err *e)
{
    int rep[2];
    if (pipe2(rep, O_CLOEXEC) != 0)
        return err_sys(e, NS_EIO, errno, "pipe");
    pid_t parent = getpid();
    pid_t child = fork();
    if (child < 0) {
        int saved = errno;
        close(rep[0]);
        close(rep[1]);
        return err_sys(e, NS_EIO, saved, "fork");
    }
    if (child == 0)
        child_exec(argv, fds, parent, rep[1]);
    close(rep[1]);
    int child_errno = 0;
    ssize_t n;
    do
        n = read(rep[0], &child_errno, sizeof child_errno);
    while (n < 0 && errno == EINTR);
    close(rep[0]);
    if (n == (ssize_t)sizeof child_errno) {
        int st;
        while (waitpid(child, &st, 0) < 0 && errno == EINTR)
            ;
        return err_sys(e, NS_EREMOTE, child_errno, "cannot start %s", argv[0]);
    }
    *pid = child;
    return 0;
}

static int
write_stdin(int fd, const void *data, size_t len)
{
    const char *p = data;
    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -1; /* EPIPE: it exited without reading; its exit status tells why */
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

static int
local_spawn(struct transport *t, const char *const *argv, const void *stdin_data, size_t stdin_len,
            struct transport_proc **out, struct err *e)
{
    struct local_transport *lt = (struct local_transport *)t;
    int fds[3][2] = {{-1, -1}, {-1, -1}, {-1, -1}};
    int rc = 0;
    for (int i = 0; i < 3 && rc == 0; i++)
        rc = make_pipe(fds[i], e);
    struct local_proc *p = rc == 0 ? calloc(1, sizeof *p) : NULL;
    if (rc == 0 && p == NULL)
        rc = err_set(e, NS_ENOMEM, "out of memory");
    pid_t pid = 0;
    if (rc == 0)
        rc = spawn_child(argv, fds, &pid, e);
    if (rc != 0) {
        close_pipes(fds);
        free(p);
        return err_prefix(e, "%s", lt->base.name);
    }
    close(fds[0][0]);
    close(fds[1][1]);
    close(fds[2][1]);
    if (stdin_len > 0)
        (void)write_stdin(fds[0][1], stdin_data, stdin_len);
    close(fds[0][1]);
    p->base.ops = &transport_local_ops;
    snprintf(p->base.name, sizeof p->base.name, "%s", lt->base.name);
    pthread_mutex_init(&p->mu, NULL);
    p->pid = pid;
    p->out_fd = fds[1][0];
    p->err_fd = fds[2][0];
    fcntl(p->out_fd, F_SETFL, O_NONBLOCK);
    fcntl(p->err_fd, F_SETFL, O_NONBLOCK);
    p->owner = lt;
    pthread_mutex_lock(&lt->mu);
    p->next = lt->procs;
    lt->procs = p;
    pthread_mutex_unlock(&lt->mu);
    *out = (struct transport_proc *)p;
    return 0;
}

static int
local_read_line(struct transport_proc *tp, char *buf, size_t len, int64_t deadline_ns,
                struct err *e)
{
    struct local_proc *p = (struct local_proc *)tp;
    for (;;) {
        bool got;
        if (transport_buf_take_line(&p->out, buf, len, &got) != 0)
            return err_set(e, NS_ETOOBIG, "%s: line longer than %zu bytes", p->base.name, len - 1);
        if (got)
            return 0;
        if (p->out_fd < 0)
            return err_set(e, NS_ECLOSED, "%s: output ended before a complete line", p->base.name);
        int rc = pump(p, len + LOCAL_READ_CHUNK, LOCAL_EARLY_ERR_CAP, deadline_ns, e);
        if (rc != 0)
            return rc;
    }
}

/* Wait for the exit without blocking past the deadline: the pipes are closed by now, so the
 * program is exiting or has closed them on purpose; poll waitpid with a growing nap. */
static int
wait_exit(struct local_proc *p, int64_t deadline_ns, struct err *e)
{
    uint64_t nap = 200 * NS_PER_US;
    for (;;) {
        pthread_mutex_lock(&p->mu);
        int st = 0;
        pid_t r = p->reaped ? p->pid : waitpid(p->pid, &st, WNOHANG);
        if (r == p->pid && !p->reaped) {
            p->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
            p->reaped = true;
            killpg(p->pid, SIGKILL);
        }
        bool done = p->reaped;
        pthread_mutex_unlock(&p->mu);
        if (done)
            return 0;
        if (r < 0 && errno != EINTR)
            return err_sys(e, NS_EIO, errno, "%s: waitpid", p->base.name);
        if ((int64_t)clock_now_ns() >= deadline_ns)
            return err_set(e, NS_ETIMEDOUT, "%s: still running at the deadline", p->base.name);
        clock_sleep_ns(nap);
        if (nap < 20 * NS_PER_MS)
            nap *= 2;
    }
}

static int
local_wait(struct transport_proc *tp, size_t out_cap, size_t err_cap, int64_t deadline_ns,
           struct transport_output *o, struct err *e)
{
    struct local_proc *p = (struct local_proc *)tp;
    int rc = 0;
    while (rc == 0 && (p->out_fd >= 0 || p->err_fd >= 0))
        rc = pump(p, out_cap, err_cap, deadline_ns, e);
    if (rc == 0)
        rc = wait_exit(p, deadline_ns, e);
    o->status = p->reaped ? p->status : -1;
    if (transport_buf_give(&p->out, out_cap, &o->out, &o->out_len, &o->out_truncated) != 0 ||
        transport_buf_give(&p->err, err_cap, &o->err, &o->err_len, &o->err_truncated) != 0)
        return err_set(e, NS_ENOMEM, "out of memory");
    return rc;
}

static int
local_signal(struct transport_proc *tp, int sig, struct err *e)
{
    struct local_proc *p = (struct local_proc *)tp;
    int rc = 0;
    pthread_mutex_lock(&p->mu);
    if (!p->reaped && killpg(p->pid, sig) != 0 && errno != ESRCH)
        rc = err_sys(e, NS_EIO, errno, "%s: cannot signal process group %d", p->base.name,
                     (int)p->pid);
    pthread_mutex_unlock(&p->mu);
    return rc;
}

static void
local_proc_free(struct transport_proc *tp)
{
    struct local_proc *p = (struct local_proc *)tp;
    struct local_transport *lt = p->owner;
    if (lt != NULL) {
        pthread_mutex_lock(&lt->mu);
        for (struct local_proc **pp = &lt->procs; *pp != NULL; pp = &(*pp)->next) {
            if (*pp == p) {
                *pp = p->next;
                break;
            }
        }
        pthread_mutex_unlock(&lt->mu);
    }
    proc_reap(p, true);
    if (p->out_fd >= 0)
        close(p->out_fd);
    if (p->err_fd >= 0)
        close(p->err_fd);
    transport_buf_release(&p->out);
    transport_buf_release(&p->err);
    pthread_mutex_destroy(&p->mu);
    free(p);
}

const struct transport_ops transport_local_ops = {
    .kind = "local",
    .open = local_open,
    .close = local_close,
    .deploy = local_deploy,
    .spawn = local_spawn,
    .read_line = local_read_line,
    .wait = local_wait,
    .signal = local_signal,
    .proc_free = local_proc_free,
};
