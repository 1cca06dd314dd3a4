/* transport_sshconn.c - one SSH session to a host for the ssh transport (see
 * transport_sshconn.h): every hop of a resolved chain dialled, its host key verified, the user
 * authenticated.
 *
 * Jump hosts: libssh 0.10 has no SSH_OPTIONS_PROXYJUMP (0.11 has), and its own reading of
 * ~/.ssh/config turns ProxyJump into a ProxyCommand running `ssh -W` (which needs the OpenSSH
 * client) and misses what later blocks set: libssh's config processing is switched off, every
 * value comes from transport_sshconfig. Each jump host gets its own session; a direct-tcpip
 * channel through it reaches the next hop, and a pump thread copies bytes between that channel
 * and a socketpair whose other end is the next session's socket (SSH_OPTIONS_FD). A jump host's
 * session belongs to its pump thread alone once the next hop is reached. */
#include "transport/transport_sshconn.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/clock.h"

#define SSH_CONN_PUMP_BUF 32768
#define SSH_CONN_DEFAULT_TIMEOUT_S 10.0
#define SSH_CONN_SLICE_MS 50 /* a connect in progress looks at its cancel this often */

/* One hop being dialled. */
struct dial {
    const char *name;                     /* "zone1-vm" or "zone1-vm (jump host bastion)" */
    const struct transport_sshconfig *ep; /* where and how */
    double timeout_s;
    bool accept_new;
    int fd; /* -1 or a connected socket to use instead of dialing */
    char where[300];
    struct transport_verdict *v;             /* NULL, or filled as the hop goes */
    struct transport_sshconn_cancel *cancel; /* the first hop's: NULL, or its dial's */
};

/* --- cancel ------------------------------------------------------------------------------- */

void
transport_sshconn_cancel_init(struct transport_sshconn_cancel *c)
{
    pthread_mutex_init(&c->mu, NULL);
    c->fd = -1;
    c->cancelled = false;
}

void
transport_sshconn_cancel_release(struct transport_sshconn_cancel *c)
{
    if (c->fd >= 0)
        close(c->fd);
    pthread_mutex_destroy(&c->mu);
}

void
transport_sshconn_cancel(struct transport_sshconn_cancel *c)
{
    pthread_mutex_lock(&c->mu);
    c->cancelled = true;
    if (c->fd >= 0)
        shutdown(c->fd, SHUT_RDWR); /* the blocked call sees its socket end */
    pthread_mutex_unlock(&c->mu);
}

/* The dial's socket, for transport_sshconn_cancel to shut down; false when cancelled already.
 * The cancel keeps a descriptor of its own (shutdown acts on the socket, whichever descriptor
 * names it), so that libssh may close its own at any time without the number being reused
 * under the cancel. */
static bool
cancel_watch(struct transport_sshconn_cancel *c, int fd)
{
    if (c == NULL)
        return true;
    pthread_mutex_lock(&c->mu);
    bool ok = !c->cancelled;
    if (ok && c->fd < 0)
        c->fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
    pthread_mutex_unlock(&c->mu);
    return ok;
}

/* Once the dial is over (the socket closed, or handed over to a live session). */
static void
cancel_forget(struct transport_sshconn_cancel *c)
{
    if (c == NULL)
        return;
    pthread_mutex_lock(&c->mu);
    if (c->fd >= 0)
        close(c->fd);
    c->fd = -1;
    pthread_mutex_unlock(&c->mu);
}

static bool
cancelled(struct transport_sshconn_cancel *c)
{
    if (c == NULL)
        return false;
    pthread_mutex_lock(&c->mu);
    bool yes = c->cancelled;
    pthread_mutex_unlock(&c->mu);
    return yes;
}

static void
mkdir_parent(const char *path)
{
    char tmp[PATH_MAX];
    if ((size_t)snprintf(tmp, sizeof tmp, "%s", path) >= sizeof tmp)
        return;
    for (char *q = tmp + 1; *q != '\0'; q++) {
        if (*q != '/')
            continue;
        *q = '\0';
        mkdir(tmp, 0700);
        *q = '/';
    }
}

void
transport_sshconn_set_timeout(ssh_session s, double secs)
{
    if (secs <= 0)
        secs = SSH_CONN_DEFAULT_TIMEOUT_S;
    long whole = (long)secs;
    long usec = (long)((secs - (double)whole) * 1e6);
    if (whole == 0 && usec == 0)
        usec = 1000;
    ssh_options_set(s, SSH_OPTIONS_TIMEOUT, &whole);
    ssh_options_set(s, SSH_OPTIONS_TIMEOUT_USEC, &usec);
}

static void
set_keepalive(int fd)
{
    /* TCP keepalives: libssh 0.10 sends no SSH-level ones by itself; these keep NAT and load
     * balancer state alive between tests and notice a dead peer. */
    int on = 1, idle = 30, intvl = 10, cnt = 3;
    setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &on, sizeof on);
    setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof idle);
    setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &intvl, sizeof intvl);
    setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof cnt);
}

/* --- host keys ---------------------------------------------------------------------------- */

static void
key_fingerprint(ssh_session s, char *out, size_t len)
{
    ssh_key key = NULL;
    unsigned char *hash = NULL;
    size_t hlen = 0;
    char *fp = NULL;
    if (ssh_get_server_publickey(s, &key) == SSH_OK &&
        ssh_get_publickey_hash(key, SSH_PUBLICKEY_HASH_SHA256, &hash, &hlen) == 0)
        fp = ssh_get_fingerprint_hash(SSH_PUBLICKEY_HASH_SHA256, hash, hlen);
    const char *type = key != NULL ? ssh_key_type_to_char(ssh_key_type(key)) : NULL;
    snprintf(out, len, "%s %s", type != NULL ? type : "?", fp != NULL ? fp : "?");
    ssh_clean_pubkey_hash(&hash);
    ssh_string_free_char(fp);
    ssh_key_free(key);
}

/* The strongest verdict of the files, as OpenSSH combines them: a match in any file is OK; else
 * a different key of the type offered is CHANGED; else another type is OTHER. libssh checks one
 * user and one global file per call: each file is given as both in turn. */
static enum ssh_known_hosts_e
known_in_files(ssh_session s, const struct transport_sshconfig *ep, const char **errfile)
{
    enum ssh_known_hosts_e best = SSH_KNOWN_HOSTS_UNKNOWN;
    size_t nu = ep->n_known_hosts_files, n = nu + ep->n_global_known_hosts_files;
    *errfile = NULL;
    for (size_t i = 0; i < n; i++) {
        const char *f = i < nu ? ep->known_hosts_files[i] : ep->global_known_hosts_files[i - nu];
        ssh_options_set(s, SSH_OPTIONS_KNOWNHOSTS, f);
        ssh_options_set(s, SSH_OPTIONS_GLOBAL_KNOWNHOSTS, f);
        enum ssh_known_hosts_e st = ssh_session_is_known_server(s);
        if (st == SSH_KNOWN_HOSTS_OK)
            return st;
        if (st == SSH_KNOWN_HOSTS_CHANGED)
            best = st;
        else if (st == SSH_KNOWN_HOSTS_OTHER && best != SSH_KNOWN_HOSTS_CHANGED)
            best = st;
        else if (st == SSH_KNOWN_HOSTS_ERROR && *errfile == NULL)
            *errfile = f;
    }
    return best;
}

static int
record_key(ssh_session s, const struct dial *d, const char *fpr, struct err *e)
{
    const struct transport_sshconfig *ep = d->ep;
    if (ep->n_known_hosts_files == 0)
        return err_set(e, NS_EHOSTKEY,
                       "%s: unknown host key for %s (%s) and no UserKnownHostsFile to record it "
                       "in (UserKnownHostsFile none)",
                       d->name, d->where, fpr);
    const char *f = ep->known_hosts_files[0]; /* where ssh adds new keys */
    mkdir_parent(f);
    ssh_options_set(s, SSH_OPTIONS_KNOWNHOSTS, f);
    if (ssh_session_update_known_hosts(s) != SSH_OK)
        return err_set(e, NS_EHOSTKEY, "%s: cannot record the host key of %s in %s: %s", d->name,
                       d->where, f, ssh_get_error(s));
    return 0;
}

/* The verdict's view of a known_hosts answer. */
static enum transport_hostkey
hostkey_state(enum ssh_known_hosts_e st)
{
    switch (st) {
    case SSH_KNOWN_HOSTS_OK:
        return TRANSPORT_HOSTKEY_KNOWN;
    case SSH_KNOWN_HOSTS_UNKNOWN:
    case SSH_KNOWN_HOSTS_NOT_FOUND:
        return TRANSPORT_HOSTKEY_UNKNOWN;
    case SSH_KNOWN_HOSTS_CHANGED:
        return TRANSPORT_HOSTKEY_CHANGED;
    case SSH_KNOWN_HOSTS_OTHER:
        return TRANSPORT_HOSTKEY_OTHER;
    default:
        return TRANSPORT_HOSTKEY_ERROR;
    }
}

/* The name known_hosts files know the host by: the HostKeyAlias (set on s as the host, port
 * 22), else "host" on port 22 and "[host]:port" on another, as ssh writes it. */
static void
known_lookup_name(ssh_session s, const struct transport_sshconfig *ep, char *buf, size_t len)
{
    (void)s;
    if (ep->host_key_alias != NULL)
        snprintf(buf, len, "%s", ep->host_key_alias);
    else if (ep->port == 22)
        snprintf(buf, len, "%s", ep->hostname);
    else
        snprintf(buf, len, "[%s]:%u", ep->hostname, ep->port);
}

/* Whether line (no newline) of a known_hosts file is an entry for name holding a key of type
 * (a key of another type counts when want_type is false). */
static bool
known_line_matches(const char *name, const char *line, enum ssh_keytypes_e type, bool want_type)
{
    if (line[0] == '#' || line[0] == '@' || line[0] == '\0')
        return false; /* comments, markers (@revoked, @cert-authority), blank lines */
    struct ssh_knownhosts_entry *entry = NULL;
    if (ssh_known_hosts_parse_line(name, line, &entry) != SSH_OK || entry == NULL)
        return false;
    bool match = !want_type || (entry->publickey != NULL && ssh_key_type(entry->publickey) == type);
    ssh_knownhosts_entry_free(entry);
    return match;
}

/* The first line of path (1-based) that is an entry of name as known_line_matches says, or 0. */
static unsigned long
known_file_line(const char *path, const char *name, enum ssh_keytypes_e type, bool want_type)
{
    FILE *f = fopen(path, "re");
    if (f == NULL)
        return 0;
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    unsigned long no = 0, found = 0;
    while (found == 0 && (n = getline(&line, &cap, f)) >= 0) {
        no++;
        while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
            line[--n] = '\0';
        if (n < 65536 && known_line_matches(name, line, type, want_type))
            found = no;
    }
    free(line);
    fclose(f);
    return found;
}

/* Where the known key of the host is: "FILE:LINE" of the entry with a key of the type the host
 * offers (the one that changed), else of its first entry, into buf; false when none is found. */
static bool
known_entry(ssh_session s, const struct transport_sshconfig *ep, char *buf, size_t len)
{
    char name[400];
    known_lookup_name(s, ep, name, sizeof name);
    ssh_key key = NULL;
    enum ssh_keytypes_e type = SSH_KEYTYPE_UNKNOWN;
    if (ssh_get_server_publickey(s, &key) == SSH_OK)
        type = ssh_key_type(key);
    ssh_key_free(key);
    size_t nu = ep->n_known_hosts_files, n = nu + ep->n_global_known_hosts_files;
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < n; i++) {
            const char *f =
                i < nu ? ep->known_hosts_files[i] : ep->global_known_hosts_files[i - nu];
            unsigned long line = known_file_line(f, name, type, pass == 0);
            if (line > 0) {
                snprintf(buf, len, "%s:%lu", f, line);
                return true;
            }
        }
    }
    return false;
}

static void
verdict_key(struct transport_verdict *v, enum transport_hostkey k, const char *fpr)
{
    if (v == NULL)
        return;
    v->hostkey = k;
    snprintf(v->fingerprint, sizeof v->fingerprint, "%s", fpr);
}

static int
hostkey_verify(ssh_session s, const struct dial *d, struct err *e)
{
    const struct transport_sshconfig *ep = d->ep;
    char fpr[160];
    key_fingerprint(s, fpr, sizeof fpr);
    if (ep->host_key_alias != NULL) {
        /* the alias is looked up (and recorded) without a port, as ssh does */
        unsigned p22 = 22;
        ssh_options_set(s, SSH_OPTIONS_HOST, ep->host_key_alias);
        ssh_options_set(s, SSH_OPTIONS_PORT, &p22);
    }
    const char *errfile = NULL;
    const char *files = ep->n_known_hosts_files > 0 ? ep->known_hosts_files[0] : "(none)";
    enum ssh_known_hosts_e st = known_in_files(s, ep, &errfile);
    enum transport_hostkey k = hostkey_state(st);
    verdict_key(d->v,
                k == TRANSPORT_HOSTKEY_UNKNOWN && errfile != NULL && !d->accept_new
                    ? TRANSPORT_HOSTKEY_ERROR
                    : k,
                fpr);
    switch (st) {
    case SSH_KNOWN_HOSTS_OK:
        return 0;
    case SSH_KNOWN_HOSTS_CHANGED: {
        char entry[PATH_MAX + 32];
        if (!known_entry(s, ep, entry, sizeof entry))
            snprintf(entry, sizeof entry, "%s", files);
        return err_set(e, NS_EHOSTKEY,
                       "%s: host key for %s has CHANGED (now %s) from the one in %s; refusing "
                       "(possible man-in-the-middle; remove that entry only if you know why it "
                       "changed)",
                       d->name, d->where, fpr, entry);
    }
    case SSH_KNOWN_HOSTS_OTHER:
        return err_set(e, NS_EHOSTKEY,
                       "%s: %s offered a %s key but the known_hosts files hold a key of another "
                       "type for it; refusing",
                       d->name, d->where, fpr);
    default:
        if (errfile != NULL && !d->accept_new)
            return err_set(e, NS_EHOSTKEY, "%s: cannot check the host key of %s against %s: %s",
                           d->name, d->where, errfile, ssh_get_error(s));
        if (!d->accept_new)
            return err_set(e, NS_EHOSTKEY,
                           "%s: unknown host key for %s (%s) not in %s; check the fingerprint "
                           "and accept it with --accept-new-host-keys (or add it to that file)",
                           d->name, d->where, fpr, files);
        int rc = record_key(s, d, fpr, e);
        if (rc == 0 && d->v != NULL)
            d->v->hostkey = TRANSPORT_HOSTKEY_RECORDED;
        return rc;
    }
}

/* --- authentication ----------------------------------------------------------------------- */

static void
tried_add(char *tried, size_t len, const char *what)
{
    size_t n = strlen(tried);
    snprintf(tried + n, len - n, "%s%s", n ? ", " : "", what);
}

static bool
try_agent(ssh_session s, const char *agent, char *tried, size_t len)
{
    if (agent == NULL || *agent == '\0')
        return false;
    ssh_options_set(s, SSH_OPTIONS_IDENTITY_AGENT, agent);
    if (ssh_userauth_agent(s, NULL) == SSH_AUTH_SUCCESS)
        return true;
    tried_add(tried, len, "the agent's keys");
    return false;
}

/* The identity files as ssh tries them: a missing file is skipped, one that cannot be read
 * without a passphrase is named. */
static bool
try_files(ssh_session s, const struct transport_sshconfig *ep, char *tried, size_t len)
{
    size_t missing = 0;
    for (size_t i = 0; i < ep->n_identity_paths; i++) {
        const char *path = ep->identity_paths[i];
        struct stat st;
        if (stat(path, &st) != 0) {
            missing++;
            continue;
        }
        ssh_key key = NULL;
        char what[PATH_MAX + 40];
        if (ssh_pki_import_privkey_file(path, NULL, NULL, NULL, &key) != SSH_OK) {
            snprintf(what, sizeof what, "%s (unreadable or passphrase-protected)", path);
            tried_add(tried, len, what);
            continue;
        }
        int rc = ssh_userauth_publickey(s, NULL, key);
        ssh_key_free(key);
        if (rc == SSH_AUTH_SUCCESS)
            return true;
        snprintf(what, sizeof what, "identity %s", path);
        tried_add(tried, len, what);
    }
    if (missing == ep->n_identity_paths) {
        char what[64];
        snprintf(what, sizeof what, "no identity file found (%zu looked for)", missing);
        tried_add(tried, len, what);
    }
    return false;
}

/* The agent first, then the files; with IdentitiesOnly the files first (libssh 0.10 cannot
 * limit the agent to their keys, so it comes after them). */
static int
auth_session(ssh_session s, const struct dial *d, struct err *e)
{
    const struct transport_sshconfig *ep = d->ep;
    const char *agent = transport_sshconfig_agent(ep);
    char tried[1024] = "";
    bool ok =
        ep->identities_only
            ? try_files(s, ep, tried, sizeof tried) || try_agent(s, agent, tried, sizeof tried)
            : try_agent(s, agent, tried, sizeof tried) || try_files(s, ep, tried, sizeof tried);
    if (d->v != NULL) {
        d->v->auth = ok ? TRANSPORT_AUTH_OK : TRANSPORT_AUTH_FAILED;
        snprintf(d->v->user, sizeof d->v->user, "%s", ep->user);
        snprintf(d->v->tried, sizeof d->v->tried, "%s", ok ? "" : tried);
    }
    if (ok)
        return 0;
    return err_set(e, NS_EAUTH, "%s: authentication failed as %s at %s (tried %s)", d->name,
                   ep->user, d->where, tried);
}

/* --- sessions ----------------------------------------------------------------------------- */

static int
connect_error(ssh_session s, const struct dial *d, struct err *e)
{
    const char *msg = ssh_get_error(s);
    if (msg == NULL || *msg == '\0')
        msg = "the connection ended during the ssh handshake";
    int code = strstr(msg, "imeout") != NULL || strstr(msg, "timed out") != NULL ? NS_ETIMEDOUT
                                                                                 : NS_ECONNECT;
    return err_set(e, code, "%s: cannot connect to %s: %s", d->name, d->where, msg);
}

static void
dial_where(struct dial *d)
{
    const struct transport_sshconfig *ep = d->ep;
    snprintf(d->where, sizeof d->where, strchr(ep->hostname, ':') ? "[%s]:%u" : "%s:%u",
             ep->hostname, ep->port);
}

/* One address: a non-blocking connect, watched for its cancel and its deadline. Returns the
 * connected socket (blocking again), or -1 with errno (ETIMEDOUT at the deadline, EINTR when
 * cancelled). */
static int
tcp_try(const struct addrinfo *ai, struct transport_sshconn_cancel *cancel, uint64_t deadline)
{
    int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, ai->ai_protocol);
    if (fd < 0)
        return -1;
    if (!cancel_watch(cancel, fd)) {
        close(fd);
        errno = EINTR;
        return -1;
    }
    int err = 0;
    if (connect(fd, ai->ai_addr, ai->ai_addrlen) != 0)
        err = errno;
    while (err == EINPROGRESS) {
        if (cancelled(cancel)) {
            err = EINTR;
            break;
        }
        int ms = clock_ms_until(deadline);
        if (ms <= 0) {
            err = ETIMEDOUT;
            break;
        }
        struct pollfd pf = {.fd = fd, .events = POLLOUT};
        int n = poll(&pf, 1, ms < SSH_CONN_SLICE_MS ? ms : SSH_CONN_SLICE_MS);
        if (n > 0) {
            socklen_t sl = sizeof err;
            if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &sl) != 0)
                err = errno;
        } else if (n < 0 && errno != EINTR) {
            err = errno;
        }
    }
    if (cancelled(cancel))
        err = EINTR; /* whatever the shut-down socket said */
    if (err != 0) {
        cancel_forget(cancel);
        close(fd);
        errno = err;
        return -1;
    }
    /* left non-blocking, as libssh leaves the sockets it connects itself */
    return fd;
}

/* The first hop's TCP connection, dialled here rather than by libssh so that it can be cut
 * short (transport_sshconn_cancel): every address the name has, in getaddrinfo's order, within
 * the hop's timeout. d->fd is the socket on success; it stays watched by the cancel. */
static int
tcp_dial(struct dial *d, struct err *e)
{
    const struct transport_sshconfig *ep = d->ep;
    char port[16];
    snprintf(port, sizeof port, "%u", ep->port);
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM};
    struct addrinfo *res = NULL;
    int g = getaddrinfo(ep->hostname, port, &hints, &res);
    if (g != 0)
        return err_set(e, NS_ECONNECT, "%s: cannot connect to %s: cannot resolve '%s': %s", d->name,
                       d->where, ep->hostname, g == EAI_SYSTEM ? strerror(errno) : gai_strerror(g));
    uint64_t deadline = clock_now_ns() + (uint64_t)(d->timeout_s * 1e9);
    int err = ENOENT;
    for (const struct addrinfo *ai = res; ai != NULL && d->fd < 0; ai = ai->ai_next) {
        d->fd = tcp_try(ai, d->cancel, deadline);
        err = d->fd < 0 ? errno : 0;
        if (err == EINTR || err == ETIMEDOUT)
            break;
    }
    freeaddrinfo(res);
    if (d->fd >= 0) {
        set_keepalive(d->fd);
        return 0;
    }
    if (err == EINTR)
        return err_set(e, NS_EINTR, "%s: connecting to %s interrupted", d->name, d->where);
    if (err == ETIMEDOUT)
        return err_set(e, NS_ETIMEDOUT,
                       "%s: cannot connect to %s: connection timed out after %.3g s", d->name,
                       d->where, d->timeout_s);
    return err_sys(e, NS_ECONNECT, err, "%s: cannot connect to %s", d->name, d->where);
}

static ssh_session
session_new(struct dial *d, struct err *e)
{
    const struct transport_sshconfig *ep = d->ep;
    ssh_session s = ssh_new();
    if (s == NULL) {
        err_set(e, NS_ENOMEM, "%s: out of memory", d->name);
        return NULL;
    }
    int verbosity = SSH_LOG_NOLOG, yes = 1;
    bool process_config = false;
    ssh_options_set(s, SSH_OPTIONS_LOG_VERBOSITY, &verbosity);
    /* every value is transport_sshconfig's: libssh must not read the config files itself */
    ssh_options_set(s, SSH_OPTIONS_PROCESS_CONFIG, &process_config);
    ssh_options_set(s, SSH_OPTIONS_HOST, ep->hostname);
    ssh_options_set(s, SSH_OPTIONS_PORT, &ep->port);
    ssh_options_set(s, SSH_OPTIONS_USER, ep->user);
    ssh_options_set(s, SSH_OPTIONS_NODELAY, &yes);
    transport_sshconn_set_timeout(s, d->timeout_s);
    socket_t fd = d->fd;
    ssh_options_set(s, SSH_OPTIONS_FD, &fd);
    return s;
}

/* Dial (the first hop: its socket; a later one comes with d->fd), verify, authenticate one
 * hop; the session owns d->fd from here, even on failure. */
static int
session_open(struct dial *d, ssh_session *out, struct err *e)
{
    *out = NULL;
    if (d->v != NULL) { /* this hop's, from scratch: a jump host's verdict was all ok */
        memset(d->v, 0, sizeof *d->v);
        snprintf(d->v->hop, sizeof d->v->hop, "%s", d->name);
    }
    dial_where(d);
    if (d->fd < 0) {
        int rc = tcp_dial(d, e);
        if (rc != 0)
            return rc;
    }
    ssh_session s = session_new(d, e);
    if (s == NULL) {
        cancel_forget(d->cancel);
        close(d->fd);
        return NS_ENOMEM;
    }
    int rc = 0;
    if (ssh_connect(s) != SSH_OK)
        rc = connect_error(s, d, e);
    if (rc == 0)
        rc = hostkey_verify(s, d, e);
    if (rc == 0)
        rc = auth_session(s, d, e);
    if (rc != 0 && cancelled(d->cancel))
        rc = err_set(e, NS_EINTR, "%s: connecting to %s interrupted", d->name, d->where);
    if (rc != 0) {
        cancel_forget(d->cancel); /* ssh_free closes the socket */
        ssh_disconnect(s);
        ssh_free(s);
        return rc;
    }
    *out = s;
    return 0;
}

/* --- jump host pump ----------------------------------------------------------------------- */

static void *
jump_pump(void *arg)
{
    struct transport_sshconn_jump *j = arg;
    char buf[SSH_CONN_PUMP_BUF];
    int bfd = ssh_get_fd(j->s);
    while (!atomic_load(&j->stop)) {
        bool moved = false;
        ssize_t n = read(j->fd, buf, sizeof buf);
        if (n == 0)
            break; /* the next session closed its end */
        if (n > 0) {
            if (ssh_channel_write(j->ch, buf, (uint32_t)n) != (int)n)
                break;
            moved = true;
        } else if (errno != EAGAIN && errno != EINTR) {
            break;
        }
        int m = ssh_channel_read_nonblocking(j->ch, buf, sizeof buf, 0);
        if (m == SSH_ERROR || m == SSH_EOF)
            break;
        if (m > 0)
            atomic_store(&j->last_rx_ns, clock_now_ns());
        for (ssize_t off = 0; off < m;) {
            ssize_t w = write(j->fd, buf + off, (size_t)(m - off));
            if (w < 0 && errno == EAGAIN) {
                struct pollfd pw = {.fd = j->fd, .events = POLLOUT};
                poll(&pw, 1, 20);
                continue;
            }
            if (w < 0 && errno != EINTR)
                goto out;
            if (w > 0)
                off += w;
        }
        if (m > 0)
            moved = true;
        if (ssh_channel_is_closed(j->ch) || ssh_is_connected(j->s) == 0)
            break;
        if (!moved) {
            struct pollfd p[2] = {{.fd = j->fd, .events = POLLIN}, {.fd = bfd, .events = POLLIN}};
            poll(p, 2, 100);
        }
    }
out:
    shutdown(j->fd, SHUT_RDWR); /* the next session sees the end at once */
    return NULL;
}

static void
jump_close(struct transport_sshconn_jump *j)
{
    if (j->running) {
        atomic_store(&j->stop, true);
        shutdown(j->fd, SHUT_RDWR);
        pthread_join(j->th, NULL);
        j->running = false;
    }
    if (j->fd >= 0)
        close(j->fd);
    j->fd = -1;
    if (j->ch != NULL)
        ssh_channel_free(j->ch);
    j->ch = NULL;
    if (j->s != NULL) {
        ssh_disconnect(j->s);
        ssh_free(j->s);
    }
    j->s = NULL;
}

/* Through the jump host's session s (taken over by j), a channel to next and the pump thread
 * behind it; *fd_out is the socket the next session uses. */
static int
jump_start(struct transport_sshconn_jump *j, ssh_session s, const struct dial *d,
           const struct transport_sshconfig *next, int *fd_out, struct err *e)
{
    j->s = s;
    j->fd = -1;
    j->ch = ssh_channel_new(s);
    if (j->ch == NULL || ssh_channel_open_forward(j->ch, next->hostname, (int)next->port,
                                                  "127.0.0.1", 0) != SSH_OK) {
        int rc = err_set(e, NS_ECONNECT, "%s: it cannot reach %s:%u: %s", d->name, next->hostname,
                         next->port, ssh_get_error(s));
        jump_close(j);
        return rc;
    }
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
        int rc = err_sys(e, NS_EIO, errno, "%s: socketpair", d->name);
        jump_close(j);
        return rc;
    }
    fcntl(sv[1], F_SETFL, O_NONBLOCK);
    j->fd = sv[1];
    atomic_store(&j->stop, false);
    atomic_store(&j->last_rx_ns, clock_now_ns());
    if (pthread_create(&j->th, NULL, jump_pump, j) != 0) {
        close(sv[0]);
        jump_close(j);
        return err_set(e, NS_EIO, "%s: cannot start the jump host thread", d->name);
    }
    j->running = true;
    *fd_out = sv[0];
    return 0;
}

/* Close the jump hosts from the one nearest the host back to the first dialled: each pump drives
 * a session whose socket the one before it feeds. */
static void
jumps_close(struct transport_sshconn *c)
{
    while (c->nj > 0)
        jump_close(&c->j[--c->nj]);
    free(c->j);
    c->j = NULL;
}

static double
hop_timeout(const struct transport_sshconn_target *t, const struct transport_sshconfig *ep)
{
    if (t->timeout_s > 0)
        return t->timeout_s;
    return ep->connect_timeout_s > 0 ? ep->connect_timeout_s : SSH_CONN_DEFAULT_TIMEOUT_S;
}

int
transport_sshconn_open(const struct transport_sshconn_target *t, struct transport_sshconn *c,
                       struct err *e)
{
    memset(c, 0, sizeof *c);
    const struct transport_sshconfig_chain *ch = t->chain;
    if (ch == NULL || ch->n == 0 || ch->n > TRANSPORT_SSHCONFIG_HOPS_MAX + 1)
        return err_set(e, NS_EINVAL, "%s: no host to dial", t->name);
    int fd = -1;
    for (size_t i = 0; i < ch->n; i++) {
        char name[300];
        if (i + 1 == ch->n)
            snprintf(name, sizeof name, "%s", t->name);
        else
            snprintf(name, sizeof name, "%s (jump host %s)", t->name, ch->hop[i]->host_arg);
        struct dial d = {.name = name,
                         .ep = ch->hop[i],
                         .timeout_s = hop_timeout(t, ch->hop[i]),
                         .accept_new = t->accept_new_host_keys,
                         .fd = fd,
                         .v = t->verdict,
                         .cancel = i == 0 ? t->cancel : NULL};
        ssh_session s = NULL;
        int rc = session_open(&d, &s, e);
        if (rc == 0 && i + 1 == ch->n) {
            cancel_forget(t->cancel); /* the session's socket from here */
            c->s = s;
            return 0;
        }
        fd = -1;
        if (rc == 0 && c->j == NULL &&
            (c->j = calloc(TRANSPORT_SSHCONFIG_HOPS_MAX, sizeof *c->j)) == NULL) {
            ssh_disconnect(s);
            ssh_free(s);
            rc = err_set(e, NS_ENOMEM, "out of memory");
        }
        if (rc == 0)
            rc = jump_start(&c->j[c->nj], s, &d, ch->hop[i + 1], &fd, e);
        if (rc != 0) {
            if (rc != NS_EINTR && cancelled(t->cancel))
                rc = err_set(e, NS_EINTR, "%s: connecting interrupted", t->name);
            cancel_forget(t->cancel); /* the first jump host's session closes it */
            jumps_close(c);
            return rc;
        }
        c->nj++;
    }
    return err_set(e, NS_EINVAL, "%s: no host to dial", t->name); /* not reached */
}

int64_t
transport_sshconn_rx_idle_ms(const struct transport_sshconn *c)
{
    if (c->s == NULL)
        return -1;
    if (c->nj > 0) {
        uint64_t last = atomic_load(&c->j[c->nj - 1].last_rx_ns), now = clock_now_ns();
        return now > last ? (int64_t)((now - last) / NS_PER_MS) : 0;
    }
    struct tcp_info ti;
    socklen_t len = sizeof ti;
    if (getsockopt(ssh_get_fd(c->s), IPPROTO_TCP, TCP_INFO, &ti, &len) != 0)
        return -1;
    return (int64_t)ti.tcpi_last_data_recv;
}

void
transport_sshconn_close(struct transport_sshconn *c)
{
    if (c->s != NULL) {
        ssh_disconnect(c->s);
        ssh_free(c->s); /* also closes the socketpair end given with SSH_OPTIONS_FD */
        c->s = NULL;
    }
    jumps_close(c);
}

void
transport_sshconn_stop_jump(struct transport_sshconn *c)
{
    jumps_close(c);
}
