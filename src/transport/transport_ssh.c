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
 * Processes: every command line is built from fixed text plus arguments quoted by transport_quote.
 * A program runs under a small POSIX sh wrapper that starts it with setsid(1) in a new session
 * and process group, prints that group's id as the first line of stdout, records it in
 * ~/.cache/netsurvey/pids/ (what `clean` kills) and reports the program's exit status. The
 * token goes to the program's standard input; the command line never holds it.
 */
#include "transport/transport_ssh.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libssh/libssh.h>
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
#define SSH_MAX_DEAD 4                       /* dropped sessions kept until close */
#define SSH_CMD_TIMEOUT_NS (30 * NS_PER_SEC) /* helper commands (kill, probe, hash) */
#define SSH_CACHE_DIR ".cache/netsurvey"

/* The wrapper (see the top of the file). $1 is the inner script; the rest is the program.
 * The inner sh is the setsid'd process itself (a background job of a shell without job control
 * is not a group leader, so setsid(1) does not fork): its $$ is the new group's id. */
static const char ssh_wrap_outer[] =
    "i=$1; shift; command -v setsid >/dev/null || { echo 'netsurvey: setsid not found' >&2; "
    "exit 127; }; d=\"$HOME/" SSH_CACHE_DIR
    "/pids\"; [ -d \"$d\" ] || mkdir -p \"$d\" || exit 125; "
    "exec 3<&0; setsid sh -c \"$i\" netsurvey-job \"$d\" \"$@\" <&3 3<&- & p=$!; exec 3<&-; "
    "wait \"$p\"; s=$?; rm -f \"$d/$p\" </dev/null >/dev/null 2>&1 & exit \"$s\"";
/* The pid file is written before the group id is printed, so that once spawn returns, `clean`
 * finds it. */
static const char ssh_wrap_inner[] =
    "d=$1; shift; echo \"$$\" >\"$d/$$\"; echo \"$$\"; exec \"$@\"";

struct sshx {
    struct transport_base base;
    pthread_mutex_t mu;
    struct transport_sshconn c;
    bool dropped;     /* the session died; the next command reconnects */
    bool unreachable; /* a reconnect failed: no more attempts */
    int reconnects;
    struct transport_sshconn dead[SSH_MAX_DEAD];
    int ndead;
    struct sproc *procs; /* live processes, for close */
    /* the host and every hop before it, resolved once, for reconnects */
    struct transport_sshconfig_chain chain;
    double timeout_s;      /* the caller's, or 0: each hop's ConnectTimeout (else 10 s) */
    double call_timeout_s; /* of blocking libssh calls once connected */
    bool accept_new;
    int uploads; /* files uploaded by deploy (tests: the cache skips uploads) */
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
    int status;
};

static pthread_once_t ssh_once = PTHREAD_ONCE_INIT;

static void
sshx_init_once(void)
{
    ssh_init();
}

/* --- small helpers ------------------------------------------------------------------------ */

static int
sshx_dial(const struct sshx *x, struct transport_sshconn *c, struct transport_verdict *v,
          struct err *e)
{
    const struct transport_sshconn_target t = {.name = x->base.name,
                                               .chain = &x->chain,
                                               .timeout_s = x->timeout_s,
                                               .accept_new_host_keys = x->accept_new,
                                               .verdict = v};
    return transport_sshconn_open(&t, c, e);
}

/* Under x->mu: replace a dropped session by a new one. One attempt per drop; after a failed
 * attempt the host counts as gone (every later call fails at once instead of waiting for
 * another connect timeout). */
static int
reconnect_locked(struct sshx *x, struct err *e)
{
    if (x->unreachable || x->ndead >= SSH_MAX_DEAD)
        return err_set(e, NS_ECLOSED, "%s: session dropped and not reconnected", x->base.name);
    struct transport_sshconn old = x->c;
    /* no ssh_disconnect: it would free the channels the procs of that session still hold;
     * the dead session is freed at close, after them */
    transport_sshconn_stop_jump(&old);
    x->dead[x->ndead++] = old;
    memset(&x->c, 0, sizeof x->c);
    x->reconnects++;
    int rc = sshx_dial(x, &x->c, NULL, e);
    x->c.gen = old.gen + 1;
    if (rc == 0)
        x->dropped = false;
    else
        x->unreachable = true;
    return rc;
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
    return 0;
}

static void
sshx_free(struct sshx *x)
{
    transport_sshconfig_chain_release(&x->chain);
    pthread_mutex_destroy(&x->mu);
    free(x);
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
    x->accept_new = t->accept_new_host_keys;
    if (t->verdict != NULL)
        memset(t->verdict, 0, sizeof *t->verdict);
    int rc = sshx_resolve(x, t, e);
    if (rc == 0)
        rc = sshx_dial(x, &x->c, t->verdict, e);
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
    transport_sshconn_close(&x->c);
    for (int i = 0; i < x->ndead; i++) {
        ssh_free(x->dead[i].s);
        x->dead[i].s = NULL;
    }
    sshx_free(x);
}

/* --- processes ---------------------------------------------------------------------------- */

/* Under x->mu: open a channel and exec cmd; reconnects once when the session had dropped. */
static int
channel_start_locked(struct sshx *x, const char *cmd, ssh_channel *out, struct err *e)
{
    for (int attempt = 0; attempt < 2; attempt++) {
        if (x->dropped || ssh_is_connected(x->c.s) == 0) {
            x->dropped = true;
            if (attempt > 0)
                break;
            int rc = reconnect_locked(x, e);
            if (rc != 0)
                return rc;
        }
        ssh_channel ch = ssh_channel_new(x->c.s);
        if (ch != NULL && ssh_channel_open_session(ch) == SSH_OK &&
            ssh_channel_request_exec(ch, cmd) == SSH_OK) {
            *out = ch;
            return 0;
        }
        if (ch != NULL)
            ssh_channel_free(ch);
        if (ssh_is_connected(x->c.s) != 0)
            return err_set(e, NS_EREMOTE, "%s: cannot start a command: %s", x->base.name,
                           ssh_get_error(x->c.s));
        x->dropped = true;
    }
    return err_set(e, NS_ECLOSED, "%s: session dropped: %s", x->base.name, ssh_get_error(x->c.s));
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
        if (inlen > 0 && ssh_channel_write(p->ch, in, (uint32_t)inlen) != (int)inlen)
            rc = err_set(e, NS_EREMOTE, "%s: cannot write standard input: %s", x->base.name,
                         ssh_get_error(x->c.s));
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
        return err_set(e, NS_ECLOSED, "%s: session dropped while the command ran", x->base.name);
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
                if (ssh_is_connected(x->c.s) == 0) {
                    x->dropped = true;
                    return err_set(e, NS_ECLOSED, "%s: session dropped while the command ran: %s",
                                   x->base.name, ssh_get_error(x->c.s));
                }
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
            p->status = st & 0xff;
            moved = 1;
        } else if (ssh_channel_is_closed(p->ch)) {
            p->exited = true;
            p->status = 255;
            moved = 1;
        } else if (ssh_is_connected(x->c.s) == 0) {
            x->dropped = true;
            return err_set(e, NS_ECLOSED, "%s: session dropped while the command ran",
                           x->base.name);
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

static int
sshx_spawn(struct transport *t, const char *const *argv, const void *stdin_data, size_t stdin_len,
           struct transport_proc **out, struct err *e)
{
    struct sshx *x = (struct sshx *)t;
    if (argv == NULL || argv[0] == NULL)
        return err_set(e, NS_EINVAL, "%s: nothing to run", x->base.name);
    char outer[sizeof ssh_wrap_outer * 2], inner[sizeof ssh_wrap_inner * 2];
    transport_quote_arg(ssh_wrap_outer, outer, sizeof outer);
    transport_quote_arg(ssh_wrap_inner, inner, sizeof inner);
    size_t plen = strlen(outer) + strlen(inner) + 32;
    char *prefix = malloc(plen);
    if (prefix == NULL)
        return err_set(e, NS_ENOMEM, "out of memory");
    snprintf(prefix, plen, "exec sh -c %s netsurvey %s", outer, inner);
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
 * session dropped), wait until it is gone, remove its pid file. */
static void
proc_kill_group(struct sproc *p)
{
    if (p->x == NULL || p->pgid <= 0 || p->exited) /* exited: its status came, it is gone */
        return;
    char cmd[400];
    snprintf(cmd, sizeof cmd,
             "kill -s KILL -- -%ld 2>/dev/null; i=0; while kill -0 -- -%ld 2>/dev/null; do "
             "i=$((i+1)); [ $i -gt 200 ] && exit 1; sleep 0.05; done; rm -f \"$HOME/" SSH_CACHE_DIR
             "/pids/%ld\"; exit 0",
             p->pgid, p->pgid, p->pgid);
    struct transport_output o;
    struct err e;
    run_cmd(p->x, cmd, &o, &e);
    transport_output_release(&o);
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
        }
        pthread_mutex_unlock(&x->mu);
    }
    transport_buf_release(&p->out);
    transport_buf_release(&p->err);
    free(p);
}

/* --- deploy ------------------------------------------------------------------------------- */

static int
upload_locked(struct sshx *x, const struct transport_deploy_file *f, const char *tmp, struct err *e)
{
    sftp_session sf = sftp_new(x->c.s);
    if (sf == NULL || sftp_init(sf) != SSH_OK) {
        int rc = err_set(e, NS_EREMOTE, "%s: cannot start sftp: %s", x->base.name,
                         ssh_get_error(x->c.s));
        if (sf != NULL)
            sftp_free(sf);
        return rc;
    }
    int rc = 0;
    sftp_file fh = sftp_open(sf, tmp, O_WRONLY | O_CREAT | O_EXCL, 0700);
    if (fh == NULL) {
        rc = err_set(e, NS_EREMOTE, "%s: cannot create %s: sftp error %d", x->base.name, tmp,
                     sftp_get_error(sf));
    } else {
        /* the mode given to open is masked by the server's umask */
        if (sftp_chmod(sf, tmp, 0755) != 0)
            rc = err_set(e, NS_EREMOTE, "%s: cannot chmod %s", x->base.name, tmp);
        for (size_t off = 0; rc == 0 && off < f->len; off += SSH_SFTP_CHUNK) {
            size_t n = f->len - off < SSH_SFTP_CHUNK ? f->len - off : SSH_SFTP_CHUNK;
            if (sftp_write(fh, f->data + off, n) != (ssize_t)n)
                rc = err_set(e, NS_EREMOTE, "%s: write to %s failed: %s", x->base.name, tmp,
                             ssh_get_error(x->c.s));
        }
        if (sftp_close(fh) != SSH_NO_ERROR && rc == 0)
            rc = err_set(e, NS_EREMOTE, "%s: closing %s failed", x->base.name, tmp);
    }
    sftp_free(sf);
    return rc;
}

/* Parse the probe's output: uname -m, $HOME, then per cached name "hash  path" or "-". */
static int
parse_probe(const struct sshx *x, char *out, char *arch, size_t alen, char *home, size_t hlen,
            char have[][80], size_t n, struct err *e)
{
    char *save = NULL;
    char *l1 = strtok_r(out, "\n", &save);
    char *l2 = l1 != NULL ? strtok_r(NULL, "\n", &save) : NULL;
    if (l1 == NULL || l2 == NULL || l2[0] != '/')
        return err_set(e, NS_EREMOTE, "%s: unexpected answer from uname/HOME on the host",
                       x->base.name);
    snprintf(arch, alen, "%s", l1);
    snprintf(home, hlen, "%s", l2);
    for (size_t i = 0; i < n; i++) {
        char *l = strtok_r(NULL, "\n", &save);
        snprintf(have[i], sizeof have[i], "%.64s", l != NULL && strcmp(l, "-") != 0 ? l : "");
    }
    return 0;
}

/* Ask the host for its architecture and $HOME, make ~/SSH_CACHE_DIR, and hash the cached copy
 * of each of the n names there is one of (have[i]: its sha256, "" when none). */
static int
deploy_probe(struct sshx *x, char names[][NAME_MAX + 1], size_t n, char *arch, size_t alen,
             char *home, size_t hlen, char have[][80], struct err *e)
{
    char cmd[1024 + TRANSPORT_DEPLOY_MAX_BUILDS * (2 * NAME_MAX + 9)];
    int len = snprintf(cmd, sizeof cmd,
                       "uname -m; printf '%%s\\n' \"$HOME\"; d=\"$HOME/" SSH_CACHE_DIR
                       "\"; [ -d \"$d\" ] || "
                       "{ mkdir -p \"$d\" && chmod 700 \"$d\"; } || exit 1; for n in");
    for (size_t i = 0; i < n && len > 0 && (size_t)len < sizeof cmd; i++) {
        char qname[2 * NAME_MAX + 8];
        transport_quote_arg(names[i], qname, sizeof qname);
        len += snprintf(cmd + len, sizeof cmd - (size_t)len, " %s", qname);
    }
    if (len > 0 && (size_t)len < sizeof cmd)
        snprintf(cmd + len, sizeof cmd - (size_t)len,
                 "; do f=\"$d/$n\"; if [ -x \"$f\" ]; then sha256sum \"$f\" || echo -; "
                 "else echo -; fi; done; exit 0");
    struct transport_output o;
    int rc = run_cmd(x, cmd, &o, e);
    if (rc == 0 && o.status != 0)
        rc = err_set(e, NS_EREMOTE, "%s: cannot create ~/" SSH_CACHE_DIR " on the host: %s",
                     x->base.name, o.err);
    if (rc == 0)
        rc = parse_probe(x, o.out, arch, alen, home, hlen, have, n, e);
    transport_output_release(&o);
    return rc;
}

/* Upload f to a temporary name beside final, then rename it over final and check the host's
 * hash of what landed; the temporary file is removed when anything fails. */
static int
deploy_upload(struct sshx *x, const struct transport_deploy_file *f, const char *home,
              const char *name, const char *final, struct err *e)
{
    uint8_t rnd[8];
    char rhex[17] = "0";
    if (sha256_random_bytes(rnd, sizeof rnd) == 0)
        sha256_hex_encode(rnd, sizeof rnd, rhex);
    char tmp[PATH_MAX];
    if ((size_t)snprintf(tmp, sizeof tmp, "%s/" SSH_CACHE_DIR "/.%.150s.%s.tmp", home, name,
                         rhex) >= sizeof tmp)
        tmp[0] = '\0';
    pthread_mutex_lock(&x->mu);
    int rc = x->dropped ? err_set(e, NS_ECLOSED, "%s: session dropped", x->base.name)
                        : upload_locked(x, f, tmp, e);
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
        run_cmd(x, mv, &o, &ignored);
        transport_output_release(&o);
    }
    return rc;
}

/* The build of s for the host (d->build), uploaded unless the cache holds it. */
static int
deploy_set(struct sshx *x, const struct transport_deploy_set *s, struct transport_deployed *d,
           struct err *e)
{
    char names[TRANSPORT_DEPLOY_MAX_BUILDS][NAME_MAX + 1];
    char have[TRANSPORT_DEPLOY_MAX_BUILDS][80];
    for (size_t i = 0; i < s->n; i++)
        transport_deploy_cache_name(s->path[i], s->f[i].sha256_hex, names[i], sizeof names[i]);
    char home[PATH_MAX];
    int rc =
        deploy_probe(x, names, s->n, d->machine, sizeof d->machine, home, sizeof home, have, e);
    if (rc != 0)
        return rc;
    int i = transport_deploy_set_find(s, d->machine);
    if (i < 0) {
        char why[NS_ERR_MSG_MAX];
        transport_deploy_set_missing(s, d->machine, why, sizeof why);
        return err_set(e, NS_ENOTFOUND, "%s: %s", x->base.name, why);
    }
    const struct transport_deploy_file *f = &s->f[i];
    char final[PATH_MAX];
    if ((size_t)snprintf(final, sizeof final, "%s/" SSH_CACHE_DIR "/%s", home, names[i]) >=
            sizeof final ||
        strlen(final) >= sizeof d->path)
        return err_set(e, NS_ERANGE, "%s: remote path too long", x->base.name);
    if (strcmp(have[i], f->sha256_hex) != 0 &&
        (rc = deploy_upload(x, f, home, names[i], final, e)) != 0)
        return rc;
    memcpy(d->path, final, strlen(final) + 1);
    memcpy(d->sha256_hex, f->sha256_hex, sizeof d->sha256_hex);
    d->build = (size_t)i;
    return 0;
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
transport_ssh_clean(struct transport *t, struct err *e)
{
    struct sshx *x = (struct sshx *)t;
    if (x->base.ops != &transport_ssh_ops)
        return err_set(e, NS_EINVAL, "%s: not an ssh transport", x->base.name);
    /* kill every recorded group, then wait (10 s at most) until all are gone: a killed leader
     * stays a zombie until its wrapper reaps it */
    static const char cmd[] =
        "d=\"$HOME/" SSH_CACHE_DIR "\"; g=; for f in \"$d\"/pids/*; do [ -f \"$f\" ] || continue; "
        "p=${f##*/}; case $p in ''|*[!0-9]*) continue;; esac; kill -s KILL -- \"-$p\" "
        "2>/dev/null && g=\"$g $p\"; done; i=0; for p in $g; do while kill -0 -- \"-$p\" "
        "2>/dev/null; do i=$((i+1)); [ $i -gt 200 ] && exit 1; sleep 0.05; done; done; "
        "rm -rf \"$d\"";
    struct transport_output o;
    int rc = run_cmd(x, cmd, &o, e);
    if (rc == 0 && o.status != 0)
        rc = err_set(e, NS_EREMOTE, "%s: clean failed: %s", x->base.name, o.err);
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
    .close = sshx_close,
    .deploy = sshx_deploy,
    .spawn = sshx_spawn,
    .read_line = sshx_read_line,
    .wait = sshx_wait,
    .signal = sshx_signal,
    .proc_free = sshx_proc_free,
};
