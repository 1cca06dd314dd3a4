/* transport_ssh.c - the `ssh` transport: one libssh session per host, one channel per command.
 *
 * Threads and libssh (0.10): libssh initialises itself in a library constructor; ssh_init() is
 * still called once (pthread_once) before the first session. Sessions are independent, so
 * hosts are opened and driven from as many threads as the caller likes; one session is never
 * used by two threads at once: every libssh call on a host's session (and its channels, its
 * SFTP handle) is made under that host's mutex. Waiting for data happens outside the mutex, in
 * poll(2) on the session's socket with a short slice, so that several processes of one host can
 * be driven from different threads. Sessions are made in transport_sshconn.c (jump hosts there).
 *
 * A dead session: libssh has no keepalive of its own, so each transport has a thread of its own
 * that sends one (a keepalive@openssh.com request, which sshd answers) every ServerAliveInterval
 * (15 s where the config sets none) under the mutex, and counts the session dead once the host
 * has sent nothing for ServerAliveInterval x ServerAliveCountMax (the kernel's count of the
 * socket's last byte in). A session is also dead when its connection ends, or when the host does
 * not answer a channel's opening within the call timeout. A dead session is never replaced behind
 * the caller's back: every command on it fails at once (NS_ECLOSED, with why), the transport's
 * thread tells the caller (transport_target.on_drop), and transport_connect makes a new one
 * when the caller asks, outside the mutex and cut short by transport_cancel. What the dead
 * session's processes left on the host is ended once a new one is made.
 *
 * Processes: every command line is built from fixed text plus arguments quoted by transport_quote.
 * A program runs under a small POSIX sh wrapper that starts it with setsid(1) in a new session
 * and process group, prints that group's id as the first line of stdout, records it in a pid
 * file (what `clean` and a reconnect end) and reports the program's exit status. The pid file
 * holds "PGID STARTTIME BOOT_ID PROGRAM": the leader's start time (/proc/PID/stat field 22) and
 * the host's boot id, so that a process is killed later only when it is provably the one started
 * (same boot, same start time, its executable the program). The token goes to the program's
 * standard input; the command line never holds it.
 */
#include "transport/transport_ssh.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libssh/libssh.h>
#include <libssh/server.h> /* ssh_send_keepalive: declared there, works on a client session */
#include <libssh/sftp.h>

#include "common/clock.h"
#include "common/sha256.h"
#include "transport/transport.h"
#include "transport/transport_buf.h"
#include "transport/transport_deploy.h"
#include "transport/transport_quote.h"
#include "transport/transport_sshconn.h"

#define SSH_SLICE_MS 20                      /* longest wait before looking again */
#define SSH_PRE_CAP (1u << 20)               /* what is kept of a stream before wait's caps */
#define SSH_SFTP_CHUNK (32u * 1024u)         /* sftp_write does not split; 256 KiB broke */
#define SSH_CMD_TIMEOUT_NS (30 * NS_PER_SEC) /* helper commands (kill, probe, hash) */
#define SSH_CACHE_DIR ".cache/netsurvey"
#define SSH_ALIVE_INTERVAL_S 15      /* ServerAliveInterval where the config sets none */
#define SSH_ALIVE_TICK_NS NS_PER_SEC /* how often the keepalive thread looks at the session */

/* The wrapper (see the top of the file). $1 is the inner script, $2 the pid directory ("": the
 * default); the rest is the program. The inner sh is the setsid'd process itself (a background
 * job of a shell without job control is not a group leader, so setsid(1) does not fork): its $$
 * is the new group's id. */
static const char ssh_wrap_outer[] =
    "i=$1; d=$2; shift 2; [ -n \"$d\" ] || d=\"$HOME/" SSH_CACHE_DIR
    "/pids\"; command -v setsid >/dev/null || { echo 'netsurvey: setsid not found' >&2; "
    "exit 127; }; [ -d \"$d\" ] || mkdir -p \"$d\" || exit 125; "
    "exec 3<&0; setsid sh -c \"$i\" netsurvey-job \"$d\" \"$@\" <&3 3<&- & p=$!; exec 3<&-; "
    "wait \"$p\"; s=$?; rm -f \"$d/$p\" </dev/null >/dev/null 2>&1 & exit \"$s\"";
/* The pid file ("PGID STARTTIME BOOT_ID PROGRAM") is written before the group id is printed, so
 * that once spawn returns, `clean` finds it; with read and shell builtins only. */
static const char ssh_wrap_inner[] =
    "d=$1; shift; s=; b=; read -r l </proc/$$/stat && { l=${l##*) }; set -f; "
    "t() { shift 19; s=$1; }; t $l; set +f; }; read -r b </proc/sys/kernel/random/boot_id; "
    "case $1 in /*) x=$1;; *) x=$(command -v \"$1\");; esac; "
    "echo \"$$ $s $b $x\" >\"$d/$$\"; echo \"$$\"; exec \"$@\"";

/* Ends the process groups named by pid files of directory $1 that are provably netsurvey's:
 * $2... the groups (none: every pid file there). A group is killed only when its leader has the
 * start time and boot id its pid file recorded and its executable is the program recorded (the
 * same file, or the same path: a file replaced or removed since reads "PATH (deleted)"); every
 * pid file named is removed,
 * acted on or not (a stale one - the host rebooted, the process ended, its number reused - is
 * only removed). Waits up to 10 s for the killed groups to be gone; prints "killed N". */
static const char ssh_end_groups[] =
    "d=$1; shift; [ -d \"$d\" ] || { echo 'killed 0'; exit 0; }; b=; "
    "read -r b </proc/sys/kernel/random/boot_id; set -f; t() { shift 19; s=$1; }; "
    "[ $# -gt 0 ] || set -- $(ls \"$d\"); k=; n=0; for g; do case $g in ''|*[!0-9]*) continue;; "
    "esac; f=\"$d/$g\"; rg=; rs=; rb=; re=; [ -f \"$f\" ] && read -r rg rs rb re <\"$f\"; s=; "
    "l=; read -r l </proc/$g/stat 2>/dev/null && { l=${l##*) }; t $l; }; "
    "e=$(readlink /proc/$g/exe 2>/dev/null); e=${e% (deleted)}; "
    "if [ \"$rg\" = \"$g\" ] && [ -n \"$rs\" ] && [ \"$rs\" = \"$s\" ] && [ -n \"$rb\" ] && "
    "[ \"$rb\" = \"$b\" ] && [ -n \"$re\" ] && { [ \"$e\" = \"$re\" ] || "
    "[ /proc/$g/exe -ef \"$re\" ]; } && "
    "kill -s KILL -- \"-$g\" 2>/dev/null; then k=\"$k $g\"; n=$((n+1)); fi; done; i=0; "
    "for g in $k; do while kill -s 0 -- \"-$g\" 2>/dev/null; do i=$((i+1)); [ $i -gt 200 ] && "
    "exit 1; sleep 0.05; done; done; for g; do case $g in ''|*[!0-9]*) continue;; esac; "
    "rm -f \"$d/$g\"; done; echo \"killed $n\"";

struct sshx {
    struct transport_base base;
    pthread_mutex_t mu;
    struct transport_sshconn c; /* c.s NULL: never connected */
    unsigned gen;               /* sessions made so far: c.gen of the current one */
    bool dropped;               /* the session died; transport_connect makes a new one */
    unsigned drops;             /* sessions found dead */
    char why[NS_ERR_MSG_MAX];   /* why the last one died ("" before any did) */
    bool told;                  /* on_drop heard of the current drop */
    bool connecting;            /* a transport_connect is dialling */
    int reconnects;
    /* dead sessions whose channels procs still hold (freed with the last of them) */
    struct transport_sshconn *dead;
    size_t ndead, capdead;
    /* what dead sessions left on the host, ended once a new session is made: process groups
     * still running then, and a partial upload */
    long *orphans;
    size_t norphans, caporphans;
    char stale_tmp[PATH_MAX];
    char pids[PATH_MAX]; /* the pid directory on the host ("": ~/SSH_CACHE_DIR/pids) */
    struct sproc *procs; /* live processes, for close */
    /* the host and every hop before it, resolved once, for reconnects */
    struct transport_sshconfig_chain chain;
    double timeout_s;      /* the caller's, or 0: each hop's ConnectTimeout (else 10 s) */
    double call_timeout_s; /* of blocking libssh calls once connected */
    bool accept_new;
    struct transport_verdict *verdict; /* the target's, until the first connect */
    int uploads; /* files uploaded by deploy (tests: the cache skips uploads) */
    struct transport_sshconn_cancel cancel;
    /* keepalives and drop notices: the transport's own thread */
    int alive_interval_s, alive_count;
    pthread_t ka;
    bool ka_running, ka_stop;
    pthread_cond_t ka_cv;
    void (*on_drop)(void *ctx, const char *name, const char *why);
    void *on_drop_ctx;
};

struct sproc {
    struct transport_base base;
    struct sshx *x;
    struct sproc *next;
    ssh_channel ch;
    unsigned gen;
    long pgid; /* 0 for helper commands that run without the wrapper */
    struct transport_buf out, err;
    bool out_eof, err_eof, exited;
    /* exited with a status: the wrapper ran to its end (it removes the pid file); a channel
     * closed without one is a wrapper killed (a host's processes killed): its pid file stays */
    bool status_seen;
    int status;
};

static pthread_once_t ssh_once = PTHREAD_ONCE_INIT;

static void
sshx_init_once(void)
{
    ssh_init();
}

/* --- a session's end ---------------------------------------------------------------------- */

/* libssh's last error on the session, or what to say when it has none (a call that timed out
 * leaves it empty: a reason is never printed empty). */
static const char *
ssh_error_or(const struct sshx *x, const char *otherwise)
{
    const char *m = x->c.s != NULL ? ssh_get_error(x->c.s) : NULL;
    return m != NULL && *m != '\0' ? m : otherwise;
}

static void mark_dropped_locked(struct sshx *x, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Under x->mu: the session is dead, for why; the transport's thread tells the caller. */
static void
mark_dropped_locked(struct sshx *x, const char *fmt, ...)
{
    if (x->dropped || x->c.s == NULL)
        return;
    x->dropped = true;
    x->drops++;
    x->told = false;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(x->why, sizeof x->why, fmt, ap);
    va_end(ap);
    for (char *q = x->why; *q != '\0'; q++)
        if (*q == '\n' || *q == '\r')
            *q = ' ';
    pthread_cond_signal(&x->ka_cv);
}

/* Under x->mu: a session the connection of which ended. */
static void
check_connected_locked(struct sshx *x)
{
    if (x->c.s != NULL && !x->dropped && ssh_is_connected(x->c.s) == 0)
        mark_dropped_locked(x, "the connection ended: %s", ssh_error_or(x, "closed by the host"));
}

static int
dropped_error(const struct sshx *x, struct err *e)
{
    if (x->c.s == NULL)
        return err_set(e, NS_ECLOSED, "%s: not connected%s%s", x->base.name,
                       x->why[0] != '\0' ? ": " : "", x->why);
    return err_set(e, NS_ECLOSED, "%s: session dropped: %s", x->base.name, x->why);
}

/* Under x->mu: a keepalive, and the verdict on the session. sshd answers keepalive@openssh.com
 * with a failure, which is all that is needed: a byte from the host. libssh waits for the
 * answer of a request before it sends another; waited for 1 ms here, the first call takes the
 * answer to the last one (or sends), the second sends once the last was answered. */
static void
keepalive_locked(struct sshx *x, bool send)
{
    if (send) {
        transport_sshconn_set_timeout(x->c.s, 0.001);
        ssh_send_keepalive(x->c.s);
        ssh_send_keepalive(x->c.s);
        transport_sshconn_set_timeout(x->c.s, x->call_timeout_s);
    }
    check_connected_locked(x);
    if (x->dropped)
        return;
    int64_t idle = transport_sshconn_rx_idle_ms(&x->c);
    int64_t limit = (int64_t)x->alive_interval_s * x->alive_count * 1000;
    if (idle > limit)
        mark_dropped_locked(x,
                            "no answer from the host for %.0f s (ServerAliveInterval %d s x "
                            "ServerAliveCountMax %d)",
                            (double)idle / 1000.0, x->alive_interval_s, x->alive_count);
}

/* The transport's thread: keepalives, and each drop told to the caller once, outside the
 * mutex. */
static void *
ka_main(void *arg)
{
    struct sshx *x = arg;
    pthread_mutex_lock(&x->mu);
    uint64_t next_send = clock_now_ns() + (uint64_t)x->alive_interval_s * NS_PER_SEC;
    uint64_t next_look = clock_now_ns() + SSH_ALIVE_TICK_NS;
    while (!x->ka_stop) {
        if (x->dropped && !x->told) {
            x->told = true;
            char why[NS_ERR_MSG_MAX];
            memcpy(why, x->why, sizeof why);
            pthread_mutex_unlock(&x->mu);
            if (x->on_drop != NULL)
                x->on_drop(x->on_drop_ctx, x->base.name, why);
            pthread_mutex_lock(&x->mu);
            continue;
        }
        uint64_t now = clock_now_ns();
        if (now >= next_look) {
            bool send = now >= next_send;
            if (x->c.s != NULL && !x->dropped)
                keepalive_locked(x, send);
            if (send)
                next_send = now + (uint64_t)x->alive_interval_s * NS_PER_SEC;
            next_look = now + SSH_ALIVE_TICK_NS;
            continue;
        }
        struct timespec ts = {.tv_sec = (time_t)(next_look / NS_PER_SEC),
                              .tv_nsec = (long)(next_look % NS_PER_SEC)};
        pthread_cond_timedwait(&x->ka_cv, &x->mu, &ts);
    }
    pthread_mutex_unlock(&x->mu);
    return NULL;
}

/* --- sessions ----------------------------------------------------------------------------- */

static int
sshx_dial(struct sshx *x, struct transport_sshconn *c, struct transport_verdict *v, struct err *e)
{
    const struct transport_sshconn_target t = {.name = x->base.name,
                                               .chain = &x->chain,
                                               .timeout_s = x->timeout_s,
                                               .accept_new_host_keys = x->accept_new,
                                               .verdict = v,
                                               .cancel = &x->cancel};
    return transport_sshconn_open(&t, c, e);
}

/* Under x->mu: whether a proc still holds a channel of session gen. */
static bool
gen_in_use_locked(const struct sshx *x, unsigned gen)
{
    for (const struct sproc *p = x->procs; p != NULL; p = p->next)
        if (p->gen == gen && p->ch != NULL)
            return true;
    return false;
}

/* Under x->mu: a dead session goes, now or with the last channel of it a proc holds (no
 * ssh_disconnect: it would free those channels under the procs). Its jump hosts go now. */
static void
dead_add_locked(struct sshx *x, struct transport_sshconn *old)
{
    transport_sshconn_stop_jump(old);
    if (!gen_in_use_locked(x, old->gen)) {
        ssh_free(old->s);
        return;
    }
    if (x->ndead == x->capdead) {
        size_t cap = x->capdead ? 2 * x->capdead : 4;
        struct transport_sshconn *d = realloc(x->dead, cap * sizeof *d);
        if (d == NULL)
            return; /* leaked until exit rather than freed under a proc */
        x->dead = d;
        x->capdead = cap;
    }
    x->dead[x->ndead++] = *old;
}

/* Under x->mu: free the dead session gen once no proc holds a channel of it. */
static void
dead_release_locked(struct sshx *x, unsigned gen)
{
    if (gen_in_use_locked(x, gen))
        return;
    for (size_t i = 0; i < x->ndead; i++) {
        if (x->dead[i].gen != gen)
            continue;
        ssh_free(x->dead[i].s);
        x->dead[i] = x->dead[--x->ndead];
        return;
    }
}

static void
orphan_add_locked(struct sshx *x, long pgid)
{
    if (x->norphans == x->caporphans) {
        size_t cap = x->caporphans ? 2 * x->caporphans : 8;
        long *o = realloc(x->orphans, cap * sizeof *o);
        if (o == NULL)
            return; /* left to `netsurvey clean` */
        x->orphans = o;
        x->caporphans = cap;
    }
    x->orphans[x->norphans++] = pgid;
}

static int run_cmd(struct sshx *x, const char *cmd, struct transport_output *o, struct err *e);
static int run_argv(struct sshx *x, const char *const *argv, struct transport_output *o,
                    struct err *e);

/* The pid directory on the host, as the wrapper and the scripts take it ("" for the default,
 * which they spell "$HOME/..." themselves). */
static void
pids_dir(struct sshx *x, char *buf, size_t len)
{
    pthread_mutex_lock(&x->mu);
    snprintf(buf, len, "%s", x->pids);
    pthread_mutex_unlock(&x->mu);
}

/* Once a new session is made: end the groups the dead sessions left running (only those
 * provably theirs), remove their pid files and a partial upload. Best effort: what is left
 * is `netsurvey clean`'s. */
static void
after_reconnect(struct sshx *x)
{
    pthread_mutex_lock(&x->mu);
    size_t n = x->norphans;
    long *g = n > 0 ? malloc(n * sizeof *g) : NULL;
    if (g != NULL)
        memcpy(g, x->orphans, n * sizeof *g);
    x->norphans = 0;
    char tmp[PATH_MAX];
    memcpy(tmp, x->stale_tmp, sizeof tmp);
    x->stale_tmp[0] = '\0';
    pthread_mutex_unlock(&x->mu);
    struct transport_output o;
    struct err e;
    if (g != NULL) {
        char dir[PATH_MAX];
        pids_dir(x, dir, sizeof dir); /* "": the default, $HOME the host's to expand */
        char num[64][24];
        const char *argv[4 + 64 + 1] = {"sh", "-c", NULL, "netsurvey-end"};
        char script[sizeof ssh_end_groups + 128];
        snprintf(script, sizeof script, "%s%s",
                 dir[0] == '\0' ? "set -- \"$HOME/" SSH_CACHE_DIR "/pids\" \"$@\"; " : "",
                 ssh_end_groups);
        argv[2] = script;
        for (size_t done = 0; done < n;) {
            size_t k = 4, m = 0;
            if (dir[0] != '\0')
                argv[k++] = dir;
            for (; done < n && m < 64; done++, m++) {
                snprintf(num[m], sizeof num[m], "%ld", g[done]);
                argv[k++] = num[m];
            }
            argv[k] = NULL;
            if (run_argv(x, argv, &o, &e) != 0) {
                transport_output_release(&o);
                break;
            }
            transport_output_release(&o);
        }
        free(g);
    }
    if (tmp[0] != '\0') {
        const char *argv[] = {"rm", "-f", tmp, NULL};
        run_argv(x, argv, &o, &e);
        transport_output_release(&o);
    }
}

static int
sshx_connect(struct transport *t, struct err *e)
{
    struct sshx *x = (struct sshx *)t;
    pthread_mutex_lock(&x->mu);
    check_connected_locked(x);
    if (x->c.s != NULL && !x->dropped) {
        pthread_mutex_unlock(&x->mu);
        return 0;
    }
    if (x->connecting) {
        pthread_mutex_unlock(&x->mu);
        return err_set(e, NS_EBUSY, "%s: another thread is connecting", x->base.name);
    }
    x->connecting = true;
    struct transport_verdict *v = x->verdict;
    x->verdict = NULL; /* the target's pointer lives only through the first connect */
    pthread_mutex_unlock(&x->mu);
    struct transport_sshconn c;
    int rc = sshx_dial(x, &c, v, e);
    pthread_mutex_lock(&x->mu);
    x->connecting = false;
    bool again = false;
    if (rc == 0) {
        if (x->c.s != NULL) {
            again = true;
            x->reconnects++;
            dead_add_locked(x, &x->c);
        }
        c.gen = ++x->gen;
        x->c = c;
        x->dropped = false;
    }
    pthread_mutex_unlock(&x->mu);
    if (again)
        after_reconnect(x);
    return rc;
}

static bool
sshx_connected(struct transport *t, unsigned *drops)
{
    struct sshx *x = (struct sshx *)t;
    pthread_mutex_lock(&x->mu);
    bool up = x->c.s != NULL && !x->dropped;
    if (drops != NULL)
        *drops = x->drops;
    pthread_mutex_unlock(&x->mu);
    return up;
}

static void
sshx_drop_reason(struct transport *t, char *buf, size_t len)
{
    struct sshx *x = (struct sshx *)t;
    pthread_mutex_lock(&x->mu);
    snprintf(buf, len, "%s", x->why);
    pthread_mutex_unlock(&x->mu);
}

static void
sshx_cancel(struct transport *t)
{
    transport_sshconn_cancel(&((struct sshx *)t)->cancel);
}

/* --- open / close ------------------------------------------------------------------------- */

/* The host and its jump hosts through the ssh config, the target's values beating it; each
 * warning told to the caller. */
static int
sshx_resolve(struct sshx *x, const struct transport_target *t, struct err *e)
{
    struct transport_sshconfig_env env;
    transport_sshconfig_env_init(&env, t->ssh_config);
    env.sshg = t->sshg;
    const struct transport_sshconfig_override ov = {
        .user = t->user,
        .port = t->port,
        .identity = t->identity,
        .jump = t->jump != NULL && *t->jump != '\0' ? t->jump : NULL,
        .known_hosts = t->known_hosts};
    int rc = transport_sshconfig_resolve_chain(&env, t->address, &ov, &x->chain, e);
    if (rc != 0)
        return err_prefix(e, "%s", x->base.name);
    for (size_t i = 0; t->warn != NULL && i < x->chain.n; i++)
        for (size_t k = 0; k < x->chain.hop[i]->n_warnings; k++)
            t->warn(t->warn_ctx, x->base.name, x->chain.hop[i]->warnings[k]);
    const struct transport_sshconfig *host = x->chain.hop[x->chain.n - 1];
    x->timeout_s = t->connect_timeout_s > 0 ? t->connect_timeout_s : 0;
    x->call_timeout_s = x->timeout_s > 0              ? x->timeout_s
                        : host->connect_timeout_s > 0 ? host->connect_timeout_s
                                                      : 10;
    x->alive_interval_s =
        host->server_alive_interval_s > 0 ? host->server_alive_interval_s : SSH_ALIVE_INTERVAL_S;
    x->alive_count = host->server_alive_count_max > 0 ? host->server_alive_count_max : 1;
    return 0;
}

static void
sshx_free(struct sshx *x)
{
    transport_sshconfig_chain_release(&x->chain);
    transport_sshconn_cancel_release(&x->cancel);
    pthread_cond_destroy(&x->ka_cv);
    pthread_mutex_destroy(&x->mu);
    free(x->dead);
    free(x->orphans);
    free(x);
}

/* The transport's thread, with the caller's signals blocked (they are the main thread's). */
static int
ka_start(struct sshx *x, struct err *e)
{
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    int rc = pthread_create(&x->ka, NULL, ka_main, x);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0)
        return err_set(e, NS_ENOMEM, "%s: cannot start a thread", x->base.name);
    x->ka_running = true;
    return 0;
}

static int
sshx_open(const struct transport_target *t, struct transport **out, struct err *e)
{
    pthread_once(&ssh_once, sshx_init_once);
    if (t->address == NULL || *t->address == '\0')
        return err_set(e, NS_EINVAL, "%s: no address to connect to", t->name);
    struct sshx *x = calloc(1, sizeof *x);
    if (x == NULL)
        return err_set(e, NS_ENOMEM, "out of memory");
    x->base.ops = &transport_ssh_ops;
    snprintf(x->base.name, sizeof x->base.name, "%s", t->name != NULL ? t->name : t->address);
    pthread_mutex_init(&x->mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&x->ka_cv, &ca);
    pthread_condattr_destroy(&ca);
    transport_sshconn_cancel_init(&x->cancel);
    x->accept_new = t->accept_new_host_keys;
    x->on_drop = t->on_drop;
    x->on_drop_ctx = t->on_drop_ctx;
    x->verdict = t->verdict;
    if (t->verdict != NULL)
        memset(t->verdict, 0, sizeof *t->verdict);
    int rc = sshx_resolve(x, t, e);
    if (rc == 0)
        rc = ka_start(x, e);
    if (rc != 0) {
        sshx_free(x);
        return rc;
    }
    *out = (struct transport *)x;
    return 0;
}

static void proc_kill_group(struct sproc *p);

static void
sshx_close(struct transport *t)
{
    struct sshx *x = (struct sshx *)t;
    if (x->ka_running) {
        pthread_mutex_lock(&x->mu);
        x->ka_stop = true;
        pthread_cond_signal(&x->ka_cv);
        pthread_mutex_unlock(&x->mu);
        pthread_join(x->ka, NULL);
    }
    /* procs still alive: kill their groups, free their channels; the structs stay with the
     * caller, detached (proc_free then only frees memory) */
    while (x->procs != NULL) {
        struct sproc *p = x->procs;
        proc_kill_group(p);
        pthread_mutex_lock(&x->mu);
        x->procs = p->next;
        if (p->ch != NULL)
            ssh_channel_free(p->ch);
        p->ch = NULL;
        p->x = NULL;
        pthread_mutex_unlock(&x->mu);
    }
    /* what dead sessions left, while this one can still end it */
    if (x->c.s != NULL && !x->dropped && (x->norphans > 0 || x->stale_tmp[0] != '\0'))
        after_reconnect(x);
    if (x->c.s != NULL && x->dropped) {
        /* no disconnect message into a dead connection */
        transport_sshconn_stop_jump(&x->c);
        ssh_free(x->c.s);
        x->c.s = NULL;
    }
    transport_sshconn_close(&x->c);
    for (size_t i = 0; i < x->ndead; i++)
        ssh_free(x->dead[i].s);
    sshx_free(x);
}

/* --- processes ---------------------------------------------------------------------------- */

/* Under x->mu: open a channel and exec cmd on the live session. A session that is dead, or
 * found dead here (its connection ended, or the host did not answer within the call timeout),
 * is NS_ECLOSED with why; a refusal of a live host is NS_EREMOTE with libssh's words. */
static int
channel_start_locked(struct sshx *x, const char *cmd, ssh_channel *out, struct err *e)
{
    check_connected_locked(x);
    if (x->c.s == NULL || x->dropped)
        return dropped_error(x, e);
    const char *what = "opening a channel";
    ssh_channel ch = ssh_channel_new(x->c.s);
    int rc = ch != NULL ? ssh_channel_open_session(ch) : SSH_ERROR;
    if (rc == SSH_OK) {
        what = "starting a command";
        rc = ssh_channel_request_exec(ch, cmd);
    }
    if (rc == SSH_OK) {
        *out = ch;
        return 0;
    }
    char msg[NS_ERR_MSG_MAX];
    snprintf(msg, sizeof msg, "%s", ssh_error_or(x, ""));
    if (ch != NULL)
        ssh_channel_free(ch);
    if (ssh_is_connected(x->c.s) == 0 || rc == SSH_AGAIN || msg[0] == '\0') {
        if (rc == SSH_AGAIN || msg[0] == '\0')
            mark_dropped_locked(x, "no answer from the host within %.3g s (%s)", x->call_timeout_s,
                                what);
        else
            mark_dropped_locked(x, "the connection ended (%s): %s", what, msg);
        return dropped_error(x, e);
    }
    return err_set(e, NS_EREMOTE, "%s: cannot start a command (%s): %s", x->base.name, what, msg);
}

static int
proc_start(struct sshx *x, const char *cmd, const void *in, size_t inlen, struct sproc **out,
           struct err *e)
{
    struct sproc *p = calloc(1, sizeof *p);
    if (p == NULL)
        return err_set(e, NS_ENOMEM, "out of memory");
    p->base.ops = &transport_ssh_ops;
    memcpy(p->base.name, x->base.name, sizeof p->base.name);
    p->x = x;
    p->status = -1;
    pthread_mutex_lock(&x->mu);
    int rc = channel_start_locked(x, cmd, &p->ch, e);
    if (rc == 0) {
        p->gen = x->c.gen;
        if (inlen > 0 && ssh_channel_write(p->ch, in, (uint32_t)inlen) != (int)inlen) {
            check_connected_locked(x);
            rc = x->dropped ? dropped_error(x, e)
                            : err_set(e, NS_EREMOTE, "%s: cannot write standard input: %s",
                                      x->base.name, ssh_error_or(x, "the channel closed"));
        }
        if (rc == 0)
            ssh_channel_send_eof(p->ch);
        p->next = x->procs;
        x->procs = p;
    }
    pthread_mutex_unlock(&x->mu);
    if (rc != 0 && p->ch == NULL) {
        free(p);
        return rc;
    }
    *out = p;
    return rc;
}

/* Under x->mu: move what arrived on p's channel into its buffers. Returns >0 when something
 * moved, 0 when not, or an error (the session dropped). */
static int
proc_drain_locked(struct sproc *p, size_t out_cap, size_t err_cap, struct err *e)
{
    struct sshx *x = p->x;
    if (p->gen != x->c.gen || x->dropped)
        return err_set(e, NS_ECLOSED, "%s: session dropped while the command ran: %s", x->base.name,
                       x->why[0] != '\0' ? x->why : "a new session replaced it");
    char buf[16384];
    int moved = 0;
    for (int stream = 0; stream < 2; stream++) {
        bool *eof = stream ? &p->err_eof : &p->out_eof;
        struct transport_buf *b = stream ? &p->err : &p->out;
        size_t cap = stream ? err_cap : out_cap;
        while (!*eof) {
            int n = ssh_channel_read_nonblocking(p->ch, buf, sizeof buf, stream);
            if (n == SSH_EOF) {
                *eof = true;
            } else if (n == SSH_ERROR) {
                check_connected_locked(x);
                if (x->dropped)
                    return err_set(e, NS_ECLOSED, "%s: session dropped while the command ran: %s",
                                   x->base.name, x->why);
                *eof = true;
            } else if (n > 0) {
                if (transport_buf_append(b, buf, (size_t)n, cap) != 0)
                    return err_set(e, NS_ENOMEM, "out of memory");
                moved = 1;
            } else {
                break;
            }
        }
    }
    if (p->out_eof && p->err_eof && !p->exited) {
        /* the exit status follows the EOFs; wait for it a slice at a time */
        transport_sshconn_set_timeout(x->c.s, SSH_SLICE_MS / 1000.0);
        int st = ssh_channel_get_exit_status(p->ch);
        transport_sshconn_set_timeout(x->c.s, x->call_timeout_s);
        if (st >= 0) {
            p->exited = true;
            p->status_seen = true;
            p->status = st & 0xff;
            moved = 1;
        } else if (ssh_channel_is_closed(p->ch)) {
            p->exited = true;
            p->status = 255;
            moved = 1;
        } else {
            check_connected_locked(x);
            if (x->dropped)
                return err_set(e, NS_ECLOSED, "%s: session dropped while the command ran: %s",
                               x->base.name, x->why);
        }
    }
    return moved;
}

static int
proc_poll(struct sproc *p, size_t out_cap, size_t err_cap, int64_t deadline_ns, struct err *e)
{
    struct sshx *x = p->x;
    if (x == NULL)
        return err_set(e, NS_ECLOSED, "%s: transport closed", p->base.name);
    pthread_mutex_lock(&x->mu);
    int rc = proc_drain_locked(p, out_cap, err_cap, e);
    int fd = ssh_get_fd(x->c.s);
    pthread_mutex_unlock(&x->mu);
    if (rc < 0)
        return rc;
    if (rc > 0)
        return 0; /* something moved: look again before waiting */
    int64_t now = (int64_t)clock_now_ns();
    if (now >= deadline_ns)
        return err_set(e, NS_ETIMEDOUT, "%s: remote command timed out", p->base.name);
    int ms = clock_ms_until((uint64_t)deadline_ns);
    if (ms > SSH_SLICE_MS)
        ms = SSH_SLICE_MS;
    if (p->out_eof && p->err_eof)
        return 0; /* the exit-status wait above already took its slice */
    struct pollfd pf = {.fd = fd, .events = POLLIN};
    poll(&pf, 1, ms);
    return 0;
}

static int
sshx_read_line(struct transport_proc *tp, char *buf, size_t len, int64_t deadline_ns, struct err *e)
{
    struct sproc *p = (struct sproc *)tp;
    for (;;) {
        bool got;
        if (transport_buf_take_line(&p->out, buf, len, &got) != 0)
            return err_set(e, NS_ETOOBIG, "%s: output line longer than %zu bytes", p->base.name,
                           len - 1);
        if (got)
            return 0;
        if (p->out_eof) {
            return err_set(e, NS_ECLOSED, "%s: output ended before a full line%s%s", p->base.name,
                           p->err.len ? ": " : "", p->err.len ? p->err.data : "");
        }
        int rc = proc_poll(p, SSH_PRE_CAP, SSH_PRE_CAP, deadline_ns, e);
        if (rc != 0)
            return rc;
    }
}

static int
sshx_wait(struct transport_proc *tp, size_t out_cap, size_t err_cap, int64_t deadline_ns,
          struct transport_output *o, struct err *e)
{
    struct sproc *p = (struct sproc *)tp;
    int rc = 0;
    while (!p->exited) {
        rc = proc_poll(p, out_cap, err_cap, deadline_ns, e);
        if (rc != 0)
            break;
    }
    if (transport_buf_give(&p->out, out_cap, &o->out, &o->out_len, &o->out_truncated) != 0 ||
        transport_buf_give(&p->err, err_cap, &o->err, &o->err_len, &o->err_truncated) != 0) {
        transport_output_release(o);
        return err_set(e, NS_ENOMEM, "out of memory");
    }
    o->status = p->exited ? p->status : -1;
    if (rc == 0 && p->pgid > 0 && p->status == 125)
        return err_set(e, NS_EREMOTE, "%s: cannot create ~/" SSH_CACHE_DIR "/pids on the host",
                       p->base.name);
    return rc;
}

static void sshx_proc_free(struct transport_proc *tp);

/* Run a helper command to the end (no wrapper). */
static int
run_cmd(struct sshx *x, const char *cmd, struct transport_output *o, struct err *e)
{
    memset(o, 0, sizeof *o);
    struct sproc *p = NULL;
    int rc = proc_start(x, cmd, NULL, 0, &p, e);
    if (rc == 0)
        rc = sshx_wait((struct transport_proc *)p, SSH_PRE_CAP, 64 * 1024,
                       (int64_t)(clock_now_ns() + SSH_CMD_TIMEOUT_NS), o, e);
    if (p != NULL)
        sshx_proc_free((struct transport_proc *)p);
    return rc;
}

/* run_cmd of argv, every argument quoted. */
static int
run_argv(struct sshx *x, const char *const *argv, struct transport_output *o, struct err *e)
{
    memset(o, 0, sizeof *o);
    char *cmd = transport_quote_argv(NULL, argv);
    if (cmd == NULL)
        return err_set(e, NS_ENOMEM, "out of memory");
    int rc = run_cmd(x, cmd, o, e);
    free(cmd);
    return rc;
}

static int
sshx_spawn(struct transport *t, const char *const *argv, const void *stdin_data, size_t stdin_len,
           struct transport_proc **out, struct err *e)
{
    struct sshx *x = (struct sshx *)t;
    if (argv == NULL || argv[0] == NULL)
        return err_set(e, NS_EINVAL, "%s: nothing to run", x->base.name);
    char outer[sizeof ssh_wrap_outer * 2], inner[sizeof ssh_wrap_inner * 2];
    char dir[PATH_MAX], qdir[2 * PATH_MAX + 8];
    transport_quote_arg(ssh_wrap_outer, outer, sizeof outer);
    transport_quote_arg(ssh_wrap_inner, inner, sizeof inner);
    pids_dir(x, dir, sizeof dir);
    transport_quote_arg(dir, qdir, sizeof qdir);
    size_t plen = strlen(outer) + strlen(inner) + strlen(qdir) + 32;
    char *prefix = malloc(plen);
    if (prefix == NULL)
        return err_set(e, NS_ENOMEM, "out of memory");
    snprintf(prefix, plen, "exec sh -c %s netsurvey %s %s", outer, inner, qdir);
    char *cmd = transport_quote_argv(prefix, argv);
    free(prefix);
    if (cmd == NULL)
        return err_set(e, NS_ENOMEM, "out of memory");
    struct sproc *p = NULL;
    int rc = proc_start(x, cmd, stdin_data, stdin_len, &p, e);
    free(cmd);
    if (p == NULL)
        return rc;
    char line[32];
    if (rc == 0)
        rc = sshx_read_line(
            (struct transport_proc *)p, line, sizeof line,
            (int64_t)(clock_now_ns() + (uint64_t)(x->call_timeout_s * 1e9) + 5 * NS_PER_SEC), e);
    if (rc == 0) {
        char *end;
        long g = strtol(line, &end, 10);
        if (*end != '\0' || g <= 1)
            rc = err_set(e, NS_EREMOTE, "%s: the process wrapper said '%s' instead of its group",
                         x->base.name, line);
        else
            p->pgid = g;
    } else {
        err_prefix(e, "cannot start %s", argv[0]);
    }
    if (rc != 0) {
        sshx_proc_free((struct transport_proc *)p);
        return rc;
    }
    *out = (struct transport_proc *)p;
    return 0;
}

static const char *
signal_name(int sig)
{
    static const struct {
        int n;
        const char *s;
    } tab[] = {{1, "HUP"},   {2, "INT"},   {3, "QUIT"},  {9, "KILL"}, {10, "USR1"},
               {12, "USR2"}, {15, "TERM"}, {18, "CONT"}, {19, "STOP"}};
    for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++)
        if (tab[i].n == sig)
            return tab[i].s;
    return NULL;
}

static int
sshx_signal(struct transport_proc *tp, int sig, struct err *e)
{
    struct sproc *p = (struct sproc *)tp;
    if (p->exited || p->pgid <= 0)
        return 0;
    if (p->x == NULL)
        return err_set(e, NS_ECLOSED, "%s: transport closed", p->base.name);
    const char *name = signal_name(sig);
    if (name == NULL)
        return err_set(e, NS_EINVAL, "%s: signal %d not supported", p->base.name, sig);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "kill -s %s -- -%ld 2>/dev/null; exit 0", name, p->pgid);
    struct transport_output o;
    int rc = run_cmd(p->x, cmd, &o, e);
    transport_output_release(&o);
    return rc;
}

/* Kill p's group with SIGKILL on the host (through the current session, even when p's own
 * session dropped), wait until it is gone, remove its pid file. When there is no live session,
 * the group is an orphan: ended (if still there and provably p's) once a new one is made. A
 * channel that closed without an exit status is no proof: the wrapper was killed before it
 * could remove the pid file (and its group may live on). */
static void
proc_kill_group(struct sproc *p)
{
    if (p->x == NULL || p->pgid <= 0 || (p->exited && p->status_seen)) /* it is gone */
        return;
    char dir[PATH_MAX], qdir[2 * PATH_MAX + 8], cmd[3 * PATH_MAX];
    pids_dir(p->x, dir, sizeof dir);
    if (dir[0] != '\0')
        transport_quote_arg(dir, qdir, sizeof qdir);
    else
        snprintf(qdir, sizeof qdir, "\"$HOME/%s/pids\"", SSH_CACHE_DIR);
    snprintf(cmd, sizeof cmd,
             "kill -s KILL -- -%ld 2>/dev/null; i=0; while kill -s 0 -- -%ld 2>/dev/null; do "
             "i=$((i+1)); [ $i -gt 200 ] && exit 1; sleep 0.05; done; rm -f %s/%ld; exit 0",
             p->pgid, p->pgid, qdir, p->pgid);
    struct transport_output o;
    struct err e;
    int rc = run_cmd(p->x, cmd, &o, &e);
    transport_output_release(&o);
    if (rc == NS_ECLOSED) {
        pthread_mutex_lock(&p->x->mu);
        orphan_add_locked(p->x, p->pgid);
        pthread_mutex_unlock(&p->x->mu);
    }
}

static void
sshx_proc_free(struct transport_proc *tp)
{
    struct sproc *p = (struct sproc *)tp;
    struct sshx *x = p->x;
    if (x != NULL) {
        proc_kill_group(p);
        pthread_mutex_lock(&x->mu);
        for (struct sproc **pp = &x->procs; *pp != NULL; pp = &(*pp)->next) {
            if (*pp == p) {
                *pp = p->next;
                break;
            }
        }
        if (p->ch != NULL) {
            if (p->gen == x->c.gen && !x->dropped)
                ssh_channel_close(p->ch);
            ssh_channel_free(p->ch);
            p->ch = NULL;
        }
        if (p->gen != x->c.gen)
            dead_release_locked(x, p->gen);
        pthread_mutex_unlock(&x->mu);
    }
    transport_buf_release(&p->out);
    transport_buf_release(&p->err);
    free(p);
}

/* --- deploy ------------------------------------------------------------------------------- */

/* Under x->mu: an sftp step failed; the session's end, when that is why, is the reason. */
static int
upload_failed_locked(struct sshx *x, const char *what, const char *path, const char *detail,
                     struct err *e)
{
    check_connected_locked(x);
    if (x->dropped)
        return err_set(e, NS_ECLOSED, "%s: session dropped while %s %s: %s", x->base.name, what,
                       path, x->why);
    return err_set(e, NS_EREMOTE, "%s: %s %s failed: %s", x->base.name, what, path, detail);
}

static int
upload_locked(struct sshx *x, const struct transport_deploy_file *f, const char *tmp, struct err *e)
{
    if (x->c.s == NULL || x->dropped)
        return dropped_error(x, e);
    sftp_session sf = sftp_new(x->c.s);
    if (sf == NULL || sftp_init(sf) != SSH_OK) {
        int rc = upload_failed_locked(x, "starting", "sftp",
                                      ssh_error_or(x, "no answer from the sftp server"), e);
        if (sf != NULL)
            sftp_free(sf);
        return rc;
    }
    int rc = 0;
    sftp_file fh = sftp_open(sf, tmp, O_WRONLY | O_CREAT | O_EXCL, 0700);
    if (fh == NULL) {
        char d[64];
        snprintf(d, sizeof d, "sftp error %d", sftp_get_error(sf));
        rc = upload_failed_locked(x, "creating", tmp, d, e);
    } else {
        /* the mode given to open is masked by the server's umask */
        if (sftp_chmod(sf, tmp, 0755) != 0)
            rc = upload_failed_locked(x, "chmod of", tmp, ssh_error_or(x, "refused"), e);
        for (size_t off = 0; rc == 0 && off < f->len; off += SSH_SFTP_CHUNK) {
            size_t n = f->len - off < SSH_SFTP_CHUNK ? f->len - off : SSH_SFTP_CHUNK;
            if (sftp_write(fh, f->data + off, n) != (ssize_t)n)
                rc = upload_failed_locked(x, "writing", tmp,
                                          ssh_error_or(x, "the sftp server refused the write"), e);
        }
        if (sftp_close(fh) != SSH_NO_ERROR && rc == 0)
            rc = upload_failed_locked(x, "closing", tmp, ssh_error_or(x, "refused"), e);
    }
    sftp_free(sf);
    return rc;
}

#define SSH_CACHE_DIRS_MAX 4

/* The places the endpoint may be cached on a host, in order: ~/SSH_CACHE_DIR (it survives a
 * reboot), then for a home without room $XDG_RUNTIME_DIR/netsurvey, /dev/shm/netsurvey-UID and
 * /tmp/netsurvey-UID. A shell word list ($u: the user's id); the first that holds the build is
 * used, else the first with room for it. */
#define SSH_CACHE_DIRS_SH                                                                          \
    "\"$HOME/" SSH_CACHE_DIR "\" \"${XDG_RUNTIME_DIR:+$XDG_RUNTIME_DIR/netsurvey}\" "              \
    "\"/dev/shm/netsurvey-$u\" \"/tmp/netsurvey-$u\""

/* The deploy's probe: uname -m, $HOME, then per place "D PATH" and, for each name given ($1
 * ...), the sha256 of the executable of that name there or "-" (a place that is a symlink or
 * not the user's counts as holding nothing). Changes nothing. */
static const char ssh_deploy_probe[] =
    "uname -m; printf '%s\\n' \"$HOME\"; u=$(id -u); for d in " SSH_CACHE_DIRS_SH "; do "
    "[ -n \"$d\" ] || continue; printf 'D %s\\n' \"$d\"; for n; do f=\"$d/$n\"; "
    "if [ -f \"$f\" ] && [ -x \"$f\" ] && [ -O \"$d\" ] && [ ! -L \"$d\" ]; then "
    "sha256sum \"$f\" | cut -c1-64; else echo -; fi; done; done";

/* One place made ready for an upload: created (mode 700), the user's and not a symlink, then
 * df's line for it. $1 the place. */
static const char ssh_deploy_place[] =
    "d=$1; mkdir -p \"$d\" && chmod 700 \"$d\" && [ -O \"$d\" ] && [ ! -L \"$d\" ] || "
    "{ [ -e \"$d\" ] && echo \"$d is not the user's own directory\" >&2; exit 1; }; "
    "df -Pk \"$d\" | tail -n 1";

struct deploy_places {
    char arch[64], home[PATH_MAX];
    char dir[SSH_CACHE_DIRS_MAX][PATH_MAX];
    char have[SSH_CACHE_DIRS_MAX][TRANSPORT_DEPLOY_MAX_BUILDS][80];
    size_t n;
};

static bool probe_df_avail(char *line, uint64_t *bytes);

static int
parse_deploy_probe(const struct sshx *x, char *out, size_t nnames, struct deploy_places *pl,
                   struct err *e)
{
    char *save = NULL;
    char *l1 = strtok_r(out, "\n", &save);
    char *l2 = l1 != NULL ? strtok_r(NULL, "\n", &save) : NULL;
    if (l1 == NULL || l2 == NULL || l2[0] != '/')
        return err_set(e, NS_EREMOTE, "%s: unexpected answer from uname/HOME on the host",
                       x->base.name);
    snprintf(pl->arch, sizeof pl->arch, "%s", l1);
    snprintf(pl->home, sizeof pl->home, "%s", l2);
    pl->n = 0;
    for (char *l = strtok_r(NULL, "\n", &save); l != NULL && pl->n < SSH_CACHE_DIRS_MAX;
         l = strtok_r(NULL, "\n", &save)) {
        if (strncmp(l, "D ", 2) != 0 || l[2] != '/')
            return err_set(e, NS_EREMOTE, "%s: unexpected answer from the deploy's probe",
                           x->base.name);
        size_t k = pl->n++;
        snprintf(pl->dir[k], sizeof pl->dir[k], "%s", l + 2);
        for (size_t i = 0; i < nnames; i++) {
            char *h = strtok_r(NULL, "\n", &save);
            snprintf(pl->have[k][i], sizeof pl->have[k][i], "%.64s",
                     h != NULL && strcmp(h, "-") != 0 ? h : "");
        }
    }
    if (pl->n == 0)
        return err_set(e, NS_EREMOTE, "%s: the deploy's probe named no place", x->base.name);
    return 0;
}

static int
deploy_probe(struct sshx *x, char names[][NAME_MAX + 1], size_t n, struct deploy_places *pl,
             struct err *e)
{
    const char *argv[4 + TRANSPORT_DEPLOY_MAX_BUILDS + 1] = {"sh", "-c", ssh_deploy_probe,
                                                             "netsurvey-deploy"};
    for (size_t i = 0; i < n; i++)
        argv[4 + i] = names[i];
    struct transport_output o;
    int rc = run_argv(x, argv, &o, e);
    if (rc == 0 && o.status != 0)
        rc = err_set(e, NS_EREMOTE, "%s: the deploy's probe failed (exit status %d)%s%s",
                     x->base.name, o.status, o.err_len ? ": " : "", o.err);
    if (rc == 0)
        rc = parse_deploy_probe(x, o.out, n, pl, e);
    transport_output_release(&o);
    return rc;
}

/* "1.8 MiB", "12 KiB". */
static void
kib_text(uint64_t bytes, char *buf, size_t len)
{
    if (bytes >= (1u << 20))
        snprintf(buf, len, "%.1f MiB", (double)bytes / (1 << 20));
    else
        snprintf(buf, len, "%llu KiB", (unsigned long long)(bytes + 1023) / 1024);
}

/* The last line of a command's stderr, for a one-line reason. */
static const char *
last_err_line(char *err)
{
    size_t n = strlen(err);
    while (n > 0 && (err[n - 1] == '\n' || err[n - 1] == ' '))
        err[--n] = '\0';
    char *nl = strrchr(err, '\n');
    return nl != NULL ? nl + 1 : err;
}

/* Make place dir ready for an upload of size bytes: 0, or why it cannot take it in why (the
 * session's end is NS_ECLOSED, with e set). */
static int
deploy_place_ready(struct sshx *x, const char *dir, uint64_t size, char *why, size_t wlen,
                   struct err *e)
{
    const char *argv[] = {"sh", "-c", ssh_deploy_place, "netsurvey-deploy", dir, NULL};
    struct transport_output o;
    int rc = run_argv(x, argv, &o, e);
    if (rc != 0) {
        transport_output_release(&o);
        return rc;
    }
    uint64_t avail = 0;
    char sz[32], fr[32];
    kib_text(size, sz, sizeof sz);
    if (o.status != 0) {
        const char *l = last_err_line(o.err);
        if (strstr(l, "No space left") != NULL)
            snprintf(why, wlen, "no space left on %s:%s (%s)", x->base.name, dir, l);
        else
            snprintf(why, wlen, "cannot use %s:%s: %s", x->base.name, dir,
                     l[0] != '\0' ? l : "mkdir failed");
        rc = NS_EREMOTE;
    } else if (probe_df_avail(o.out, &avail) && avail < size + 64 * 1024) {
        kib_text(avail, fr, sizeof fr);
        snprintf(why, wlen, "no space left on %s:%s (%s free, it needs %s)", x->base.name, dir, fr,
                 sz);
        rc = NS_EREMOTE;
    }
    transport_output_release(&o);
    return rc;
}

/* Upload f to a temporary name in dir beside final, then rename it over final and check the
 * host's hash of what landed; the temporary file is removed when anything fails. A write that
 * fails on a live session is told in the host's terms when the place has no room for it. */
static int
deploy_upload(struct sshx *x, const struct transport_deploy_file *f, const char *dir,
              const char *name, const char *final, struct err *e)
{
    uint8_t rnd[8];
    char rhex[17] = "0";
    if (sha256_random_bytes(rnd, sizeof rnd) == 0)
        sha256_hex_encode(rnd, sizeof rnd, rhex);
    char tmp[PATH_MAX];
    if ((size_t)snprintf(tmp, sizeof tmp, "%s/.%.150s.%s.tmp", dir, name, rhex) >= sizeof tmp)
        tmp[0] = '\0';
    pthread_mutex_lock(&x->mu);
    int rc = upload_locked(x, f, tmp, e);
    if (rc == 0)
        x->uploads++;
    pthread_mutex_unlock(&x->mu);
    /* atomic rename over whatever a concurrent upload of the same bytes left there */
    char qtmp[2 * PATH_MAX], qfinal[2 * PATH_MAX], mv[6 * PATH_MAX + 64];
    transport_quote_arg(tmp, qtmp, sizeof qtmp);
    transport_quote_arg(final, qfinal, sizeof qfinal);
    struct transport_output o;
    if (rc == 0) {
        /* the probe re-hashes a cached file before trusting it, so a bad one is replaced */
        snprintf(mv, sizeof mv, "mv -f %s %s && exec sha256sum %s", qtmp, qfinal, qfinal);
        rc = run_cmd(x, mv, &o, e);
        if (rc == 0 && (o.status != 0 || o.out_len < 64 || memcmp(o.out, f->sha256_hex, 64)))
            rc = err_set(e, NS_EREMOTE,
                         "%s: upload not verified on the host (sha256sum said '%.64s'%s%s)",
                         x->base.name, o.out, o.err_len ? ": " : "", o.err);
        transport_output_release(&o);
    }
    if (rc != 0) {
        struct err ignored;
        snprintf(mv, sizeof mv, "rm -f %s", qtmp);
        if (run_cmd(x, mv, &o, &ignored) == NS_ECLOSED) {
            /* the session went with the upload: removed once a new one is made */
            pthread_mutex_lock(&x->mu);
            snprintf(x->stale_tmp, sizeof x->stale_tmp, "%s", tmp);
            pthread_mutex_unlock(&x->mu);
        }
        transport_output_release(&o);
    }
    if (rc == NS_EREMOTE) {
        /* an sftp server says only "Failure" for a full disk: ask the place itself */
        char why[NS_ERR_MSG_MAX];
        struct err ignored;
        if (deploy_place_ready(x, dir, f->len, why, sizeof why, &ignored) == NS_EREMOTE)
            rc = err_set(e, NS_EREMOTE, "%s", why);
    }
    return rc;
}

/* The build of s for the host (d->build): where a place holds it already, else uploaded to
 * the first place with room (d->note says why it is not the first place). */
static int
deploy_set(struct sshx *x, const struct transport_deploy_set *s, struct transport_deployed *d,
           struct err *e)
{
    char names[TRANSPORT_DEPLOY_MAX_BUILDS][NAME_MAX + 1];
    for (size_t i = 0; i < s->n; i++)
        transport_deploy_cache_name(s->path[i], s->f[i].sha256_hex, names[i], sizeof names[i]);
    struct deploy_places *pl = calloc(1, sizeof *pl);
    if (pl == NULL)
        return err_set(e, NS_ENOMEM, "out of memory");
    int rc = deploy_probe(x, names, s->n, pl, e);
    int i = -1;
    if (rc == 0) {
        snprintf(d->machine, sizeof d->machine, "%s", pl->arch);
        i = transport_deploy_set_find(s, d->machine);
    }
    if (rc == 0 && i < 0) {
        char why[NS_ERR_MSG_MAX];
        transport_deploy_set_missing(s, d->machine, why, sizeof why);
        rc = err_set(e, NS_ENOTFOUND, "%s: %s", x->base.name, why);
    }
    const struct transport_deploy_file *f = i >= 0 ? &s->f[i] : NULL;
    size_t at = SSH_CACHE_DIRS_MAX;
    for (size_t k = 0; rc == 0 && k < pl->n && at == SSH_CACHE_DIRS_MAX; k++)
        if (strcmp(pl->have[k][i], f->sha256_hex) == 0)
            at = k;
    char notes[NS_ERR_MSG_MAX] = "", final[PATH_MAX] = "";
    for (size_t k = 0; rc == 0 && at == SSH_CACHE_DIRS_MAX && k < pl->n; k++) {
        char why[NS_ERR_MSG_MAX] = "";
        int prc = snprintf(final, sizeof final, "%s/%s", pl->dir[k], names[i]) < (int)sizeof final
                      ? 0
                      : err_set(e, NS_EREMOTE, "%s: remote path too long", pl->dir[k]);
        if (prc == 0)
            prc = deploy_place_ready(x, pl->dir[k], f->len, why, sizeof why, e);
        if (prc == 0)
            prc = deploy_upload(x, f, pl->dir[k], names[i], final, e);
        if (prc == 0) {
            at = k;
        } else if (prc == NS_EREMOTE) {
            if (why[0] == '\0')
                snprintf(why, sizeof why, "%s", e->msg);
            size_t used = strlen(notes);
            snprintf(notes + used, sizeof notes - used, "%s%s", used > 0 ? "; " : "", why);
        } else {
            rc = prc; /* the session's end, or out of memory: not the place's */
        }
    }
    if (rc == 0 && at == SSH_CACHE_DIRS_MAX)
        rc = err_set(e, NS_EREMOTE, "%s: nowhere to put the endpoint: %s", x->base.name, notes);
    if (rc == 0) {
        if (snprintf(final, sizeof final, "%s/%s", pl->dir[at], names[i]) >= (int)sizeof final ||
            strlen(final) >= sizeof d->path)
            rc = err_set(e, NS_ERANGE, "%s: remote path too long", x->base.name);
    }
    if (rc == 0) {
        memcpy(d->path, final, strlen(final) + 1);
        memcpy(d->sha256_hex, f->sha256_hex, sizeof d->sha256_hex);
        d->build = (size_t)i;
        snprintf(d->note, sizeof d->note, "%s", at > 0 ? notes : "");
        pthread_mutex_lock(&x->mu);
        if (snprintf(x->pids, sizeof x->pids, "%s/pids", pl->dir[at]) >= (int)sizeof x->pids)
            rc = err_set(e, NS_ERANGE, "%s: remote path too long", x->base.name);
        pthread_mutex_unlock(&x->mu);
    }
    free(pl);
    return rc;
}

static int
sshx_deploy(struct transport *t, const char *const *builds, struct transport_deployed *d,
            struct err *e)
{
    struct transport_deploy_set s;
    int rc = transport_deploy_set_load(builds, &s, e);
    if (rc != 0)
        return rc;
    rc = deploy_set((struct sshx *)t, &s, d, e);
    transport_deploy_set_release(&s);
    return rc;
}

/* --- extras ------------------------------------------------------------------------------- */

int
transport_ssh_clean(struct transport *t, struct transport_ssh_cleaned *c, struct err *e)
{
    struct sshx *x = (struct sshx *)t;
    memset(c, 0, sizeof *c);
    if (x->base.ops != &transport_ssh_ops)
        return err_set(e, NS_EINVAL, "%s: not an ssh transport", x->base.name);
    /* in every place the endpoint may be cached (the user's own directories, not symlinks):
     * the groups provably netsurvey's end (ssh_end_groups), every pid file goes, then the place:
     * "killed N" per place, then "files N" */
    char script[sizeof ssh_end_groups + 1024];
    snprintf(script, sizeof script,
             "u=$(id -u); p=0; for c in " SSH_CACHE_DIRS_SH "; do [ -n \"$c\" ] && [ -d \"$c\" ] "
             "&& [ -O \"$c\" ] && [ ! -L \"$c\" ] || continue; if [ -d \"$c/pids\" ]; then "
             "p=$((p + $(ls \"$c/pids\" | grep -c '^[0-9][0-9]*$'))); r=$(set -- \"$c/pids\"; %s) "
             "|| exit 1; echo \"$r\"; fi; rm -rf \"$c\"; done; echo \"files $p\"",
             ssh_end_groups);
    const char *argv[] = {"sh", "-c", script, NULL};
    struct transport_output o;
    int rc = run_argv(x, argv, &o, e);
    if (rc == 0 && o.status != 0)
        rc = err_set(e, NS_EREMOTE, "%s: clean failed (exit status %d)%s%s", x->base.name, o.status,
                     o.err_len > 0 ? ": " : "", o.err);
    unsigned long killed = 0, files = 0;
    for (const char *k = rc == 0 ? strstr(o.out, "killed ") : NULL; k != NULL;
         k = strstr(k + 7, "killed "))
        killed += strtoul(k + 7, NULL, 10);
    const char *f = rc == 0 ? strstr(o.out, "files ") : NULL;
    if (f != NULL)
        files = strtoul(f + 6, NULL, 10);
    c->killed = killed;
    c->stale = files > killed ? files - killed : 0;
    transport_output_release(&o);
    return rc;
}

int
transport_ssh_uploads(const struct transport *t)
{
    return ((const struct sshx *)t)->uploads;
}

int
transport_ssh_reconnects(const struct transport *t)
{
    return ((const struct sshx *)t)->reconnects;
}

long
transport_ssh_pgid(const struct transport_proc *p)
{
    return ((const struct sproc *)p)->pgid;
}

int
transport_ssh_exec(struct transport *t, const char *const *argv, size_t out_cap,
                   int64_t deadline_ns, struct transport_output *o, struct err *e)
{
    struct sshx *x = (struct sshx *)t;
    memset(o, 0, sizeof *o);
    if (x->base.ops != &transport_ssh_ops)
        return err_set(e, NS_EINVAL, "%s: not an ssh transport", x->base.name);
    if (argv == NULL || argv[0] == NULL)
        return err_set(e, NS_EINVAL, "%s: nothing to run", x->base.name);
    char *cmd = transport_quote_argv(NULL, argv);
    if (cmd == NULL)
        return err_set(e, NS_ENOMEM, "out of memory");
    struct sproc *p = NULL;
    int rc = proc_start(x, cmd, NULL, 0, &p, e);
    free(cmd);
    if (rc == 0)
        rc = sshx_wait((struct transport_proc *)p, out_cap, 64 * 1024, deadline_ns, o, e);
    if (p != NULL)
        sshx_proc_free((struct transport_proc *)p); /* no group to kill: closes the channel */
    return rc;
}

/* What the probe prints, a line each: uname -s, uname -m, $HOME, then for each file name
 * given ($1, $2 ...: from the caller, quoted like every argument) its cache path and its sha256
 * or "-", then the nearest existing directory of the cache, and df's line for it. Reads only. */
static const char ssh_probe_script[] =
    "uname -s; uname -m; printf '%s\\n' \"$HOME\"; d=\"$HOME/" SSH_CACHE_DIR "\"; for n; do "
    "f=\"$d/$n\"; printf '%s\\n' \"$f\"; if [ -f \"$f\" ] && [ -x \"$f\" ]; then "
    "sha256sum \"$f\" | cut -c1-64; else echo -; fi; done; w=$d; "
    "while [ -n \"$w\" ] && [ ! -d \"$w\" ]; do w=${w%/*}; done; [ -n \"$w\" ] || w=/; "
    "printf '%s\\n' \"$w\"; df -Pk \"$w\" | tail -n 1";

/* df -Pk's data line: "FS 1024-blocks Used Available Capacity% Mount"; the figure before the
 * first "NN%" field (a file system's name may hold no blank, a mount point may). */
static bool
probe_df_avail(char *line, uint64_t *bytes)
{
    char *save = NULL, *prev = NULL;
    for (char *tok = strtok_r(line, " \t", &save); tok != NULL;
         tok = strtok_r(NULL, " \t", &save)) {
        size_t n = strlen(tok);
        if (prev != NULL && n >= 2 && tok[n - 1] == '%' && strspn(tok, "0123456789") == n - 1) {
            char *end;
            unsigned long long kb = strtoull(prev, &end, 10);
            if (*end != '\0' || end == prev)
                return false;
            *bytes = (uint64_t)kb * 1024u;
            return true;
        }
        prev = tok;
    }
    return false;
}

#define PROBE_LINES_MAX (5 + 2 * TRANSPORT_DEPLOY_MAX_BUILDS)

static int
probe_parse(const struct sshx *x, char *out, const struct transport_deploy_set *s,
            struct transport_ssh_probe *p, struct err *e)
{
    char *line[PROBE_LINES_MAX + 1] = {0}, *save = NULL;
    size_t n = 0, want = 5 + 2 * s->n; /* the df line may be missing */
    for (char *l = strtok_r(out, "\n", &save); l != NULL && n < want;
         l = strtok_r(NULL, "\n", &save))
        line[n++] = l;
    if (n < want - 1 || line[2][0] != '/')
        return err_set(e, NS_EREMOTE, "%s: unexpected answer from uname, HOME and df on the host",
                       x->base.name);
    snprintf(p->sysname, sizeof p->sysname, "%s", line[0]);
    snprintf(p->machine, sizeof p->machine, "%s", line[1]);
    snprintf(p->home, sizeof p->home, "%s", line[2]);
    p->build = transport_deploy_set_find(s, p->machine);
    if (p->build >= 0) {
        const char *path = line[3 + 2 * p->build], *hash = line[4 + 2 * p->build];
        snprintf(p->cache_path, sizeof p->cache_path, "%s", path);
        p->cached = strlen(hash) == 64 && strcmp(hash, s->f[p->build].sha256_hex) == 0;
    }
    snprintf(p->space_path, sizeof p->space_path, "%s", line[3 + 2 * s->n]);
    p->have_space = n == want && probe_df_avail(line[4 + 2 * s->n], &p->space_avail);
    return 0;
}

int
transport_ssh_probe(struct transport *t, const struct transport_deploy_set *s,
                    struct transport_ssh_probe *p, struct err *e)
{
    memset(p, 0, sizeof *p);
    p->build = -1;
    char names[TRANSPORT_DEPLOY_MAX_BUILDS][NAME_MAX + 1];
    const char *argv[4 + TRANSPORT_DEPLOY_MAX_BUILDS] = {"sh", "-c", ssh_probe_script,
                                                         "netsurvey-check"};
    for (size_t i = 0; i < s->n; i++) {
        transport_deploy_cache_name(s->path[i], s->f[i].sha256_hex, names[i], sizeof names[i]);
        argv[4 + i] = names[i];
    }
    struct transport_output o;
    int rc = transport_ssh_exec(t, argv, 64 * 1024, (int64_t)(clock_now_ns() + SSH_CMD_TIMEOUT_NS),
                                &o, e);
    if (rc == 0 && o.status != 0 && o.out_len == 0)
        rc = err_set(e, NS_EREMOTE, "%s: the probe failed (exit status %d): %s",
                     ((const struct sshx *)t)->base.name, o.status, o.err);
    if (rc == 0)
        rc = probe_parse((const struct sshx *)t, o.out, s, p, e);
    transport_output_release(&o);
    return rc;
}

const struct transport_ops transport_ssh_ops = {
    .kind = "ssh",
    .open = sshx_open,
    .connect = sshx_connect,
    .connected = sshx_connected,
    .drop_reason = sshx_drop_reason,
    .cancel = sshx_cancel,
    .close = sshx_close,
    .deploy = sshx_deploy,
    .spawn = sshx_spawn,
    .read_line = sshx_read_line,
    .wait = sshx_wait,
    .signal = sshx_signal,
    .proc_free = sshx_proc_free,
};
