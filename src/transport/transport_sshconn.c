/* transport_sshconn.c - one SSH session to a host for the ssh transport (see transport_sshconn.h):
 * dial, directly or through a jump host; verify the host key against known_hosts; authenticate.
 *
 * Jump hosts: libssh 0.10 has no SSH_OPTIONS_PROXYJUMP (0.11 has). The bastion gets its own
 * session (host key verified against the same known_hosts, same authentication); a
 * direct-tcpip channel through it reaches the target, and a pump thread copies bytes between
 * that channel and a socketpair whose other end is the target session's socket
 * (SSH_OPTIONS_FD). The bastion's session belongs to the pump thread alone. ProxyJump lines in
 * ~/.ssh/config are turned by libssh itself into a ProxyCommand running `ssh -W`, which needs
 * the OpenSSH client. */
#include "transport/transport_sshconn.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#define SSH_CONN_PUMP_BUF 32768

struct dial {
    const char *name;
    const char *address;
    const char *user;
    unsigned port;
    const char *identity;
    const char *known_hosts; /* expanded */
    double timeout_s;
    bool accept_new;
    int fd;                      /* -1 or a connected socket to use instead of dialing */
    struct transport_verdict *v; /* NULL, or filled as the hop goes */
};

/* "~/x" with the local home; returns malloc'd. */
char *
transport_sshconn_expand_home(const char *p)
{
    if (p[0] != '~' || p[1] != '/')
        return strdup(p);
    const char *home = getenv("HOME");
    if (home == NULL)
        home = "/";
    size_t n = strlen(home) + strlen(p);
    char *r = malloc(n);
    if (r != NULL)
        snprintf(r, n, "%s%s", home, p + 1);
    return r;
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
        secs = 10;
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

/* "[user@]host[:port]" or "[user@][v6]:port" into parts (host is malloc'd). */
static int
parse_jump(const char *spec, char **user, char **host, unsigned *port, struct err *e)
{
    *user = NULL;
    *host = NULL;
    *port = 0;
    const char *at = strrchr(spec, '@');
    const char *h = at != NULL ? at + 1 : spec;
    if (at != NULL)
        *user = strndup(spec, (size_t)(at - spec));
    const char *colon = NULL;
    size_t hlen;
    if (h[0] == '[') {
        const char *close = strchr(h, ']');
        if (close == NULL)
            goto bad;
        hlen = (size_t)(close - h - 1);
        h++;
        if (close[1] == ':')
            colon = close + 1;
        else if (close[1] != '\0')
            goto bad;
    } else {
        colon = strchr(h, ':');
        hlen = colon != NULL ? (size_t)(colon - h) : strlen(h);
    }
    if (hlen == 0)
        goto bad;
    if (colon != NULL) {
        char *end;
        unsigned long p = strtoul(colon + 1, &end, 10);
        if (*end != '\0' || p == 0 || p > 65535)
            goto bad;
        *port = (unsigned)p;
    }
    *host = strndup(h, hlen);
    return 0;
bad:
    free(*user);
    *user = NULL;
    return err_set(e, NS_EINVAL, "bad jump host '%s' (expected [user@]host[:port])", spec);
}

/* --- host keys ---------------------------------------------------------------------------- */

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

static void
verdict_key(struct transport_verdict *v, const char *name, enum ssh_known_hosts_e st,
            const char *fpr)
{
    if (v == NULL)
        return;
    snprintf(v->hop, sizeof v->hop, "%s", name);
    v->hostkey = hostkey_state(st);
    snprintf(v->fingerprint, sizeof v->fingerprint, "%s", fpr);
}

static int
hostkey_verify(ssh_session s, const char *name, const char *where, const char *known_hosts,
               bool accept_new, struct transport_verdict *v, struct err *e)
{
    ssh_key key = NULL;
    if (ssh_get_server_publickey(s, &key) != SSH_OK)
        return err_set(e, NS_EHOSTKEY, "%s: no host key from %s: %s", name, where,
                       ssh_get_error(s));
    unsigned char *hash = NULL;
    size_t hlen = 0;
    char *fp = NULL;
    if (ssh_get_publickey_hash(key, SSH_PUBLICKEY_HASH_SHA256, &hash, &hlen) == 0)
        fp = ssh_get_fingerprint_hash(SSH_PUBLICKEY_HASH_SHA256, hash, hlen);
    const char *type = ssh_key_type_to_char(ssh_key_type(key));
    char fpr[160];
    snprintf(fpr, sizeof fpr, "%s %s", type != NULL ? type : "?", fp != NULL ? fp : "?");
    ssh_clean_pubkey_hash(&hash);
    ssh_string_free_char(fp);
    ssh_key_free(key);

    enum ssh_known_hosts_e st = ssh_session_is_known_server(s);
    verdict_key(v, name, st, fpr);
    switch (st) {
    case SSH_KNOWN_HOSTS_OK:
        return 0;
    case SSH_KNOWN_HOSTS_UNKNOWN:
    case SSH_KNOWN_HOSTS_NOT_FOUND:
        if (!accept_new)
            return err_set(e, NS_EHOSTKEY,
                           "%s: unknown host key for %s (%s) not in %s; check the fingerprint "
                           "and accept it with --accept-new-host-keys (or add it to that file)",
                           name, where, fpr, known_hosts);
        mkdir_parent(known_hosts);
        if (ssh_session_update_known_hosts(s) != SSH_OK)
            return err_set(e, NS_EHOSTKEY, "%s: cannot record the host key of %s in %s: %s", name,
                           where, known_hosts, ssh_get_error(s));
        if (v != NULL)
            v->hostkey = TRANSPORT_HOSTKEY_RECORDED;
        return 0;
    case SSH_KNOWN_HOSTS_CHANGED:
        return err_set(e, NS_EHOSTKEY,
                       "%s: host key for %s has CHANGED (now %s) from the one in %s; refusing "
                       "(possible man-in-the-middle; remove the old entry only if you know why "
                       "it changed)",
                       name, where, fpr, known_hosts);
    case SSH_KNOWN_HOSTS_OTHER:
        return err_set(e, NS_EHOSTKEY,
                       "%s: %s offered a %s key but %s holds a key of another type for it; "
                       "refusing",
                       name, where, fpr, known_hosts);
    case SSH_KNOWN_HOSTS_ERROR:
    default:
        return err_set(e, NS_EHOSTKEY, "%s: cannot check the host key of %s against %s: %s", name,
                       where, known_hosts, ssh_get_error(s));
    }
}

/* --- authentication ----------------------------------------------------------------------- */

/* Returns 0, for `return verdict_auth(...)` on success. */
static int
verdict_auth(struct transport_verdict *v, ssh_session s, bool ok, const char *tried)
{
    if (v == NULL)
        return 0;
    char *user = NULL;
    ssh_options_get(s, SSH_OPTIONS_USER, &user);
    v->auth = ok ? TRANSPORT_AUTH_OK : TRANSPORT_AUTH_FAILED;
    snprintf(v->user, sizeof v->user, "%s", user != NULL ? user : "?");
    snprintf(v->tried, sizeof v->tried, "%s", tried != NULL ? tried : "");
    ssh_string_free_char(user);
    return 0;
}

static int
auth_session(ssh_session s, const char *name, const char *where, const char *identity,
             struct transport_verdict *v, struct err *e)
{
    char tried[256] = "";
    const char *sock = getenv("SSH_AUTH_SOCK");
    if (sock != NULL && *sock != '\0') {
        if (ssh_userauth_agent(s, NULL) == SSH_AUTH_SUCCESS)
            return verdict_auth(v, s, true, NULL);
        snprintf(tried, sizeof tried, "the agent's keys");
    }
    if (identity != NULL) {
        char *path = transport_sshconn_expand_home(identity);
        ssh_key key = NULL;
        if (path == NULL || ssh_pki_import_privkey_file(path, NULL, NULL, NULL, &key) != SSH_OK) {
            verdict_auth(v, s, false, "an identity file that cannot be read");
            int rc = err_set(e, NS_EAUTH, "%s: cannot read identity file '%s'", name,
                             path != NULL ? path : identity);
            free(path);
            return rc;
        }
        int rc = ssh_userauth_publickey(s, NULL, key);
        ssh_key_free(key);
        size_t n = strlen(tried);
        snprintf(tried + n, sizeof tried - n, "%sidentity %s", n ? ", " : "", path);
        free(path);
        if (rc == SSH_AUTH_SUCCESS)
            return verdict_auth(v, s, true, NULL);
    } else {
        /* agent again, then ~/.ssh/config IdentityFile and the default keys */
        if (ssh_userauth_publickey_auto(s, NULL, NULL) == SSH_AUTH_SUCCESS)
            return verdict_auth(v, s, true, NULL);
        size_t n = strlen(tried);
        snprintf(tried + n, sizeof tried - n, "%sthe default keys", n ? ", " : "");
    }
    verdict_auth(v, s, false, tried);
    char *user = NULL;
    ssh_options_get(s, SSH_OPTIONS_USER, &user);
    int rc = err_set(e, NS_EAUTH, "%s: authentication failed as %s at %s (tried %s)", name,
                     user != NULL ? user : "?", where, tried);
    ssh_string_free_char(user);
    return rc;
}

/* --- sessions ----------------------------------------------------------------------------- */

static int
connect_error(ssh_session s, const char *name, const char *where, struct err *e)
{
    const char *msg = ssh_get_error(s);
    int code = strstr(msg, "imeout") != NULL || strstr(msg, "timed out") != NULL ? NS_ETIMEDOUT
                                                                                 : NS_ECONNECT;
    return err_set(e, code, "%s: cannot connect to %s: %s", name, where, msg);
}

static ssh_session
session_new(const struct dial *d, char *where, size_t wlen, struct err *e)
{
    ssh_session s = ssh_new();
    if (s == NULL) {
        err_set(e, NS_ENOMEM, "%s: out of memory", d->name);
        return NULL;
    }
    int verbosity = SSH_LOG_NOLOG;
    ssh_options_set(s, SSH_OPTIONS_LOG_VERBOSITY, &verbosity);
    ssh_options_set(s, SSH_OPTIONS_HOST, d->address);
    /* ~/.ssh/config first, so that what the plan says explicitly is set after and wins */
    ssh_options_parse_config(s, NULL);
    if (d->user != NULL)
        ssh_options_set(s, SSH_OPTIONS_USER, d->user);
    if (d->port != 0)
        ssh_options_set(s, SSH_OPTIONS_PORT, &d->port);
    ssh_options_set(s, SSH_OPTIONS_KNOWNHOSTS, d->known_hosts);
    int yes = 1;
    ssh_options_set(s, SSH_OPTIONS_NODELAY, &yes);
    transport_sshconn_set_timeout(s, d->timeout_s);
    char *host = NULL;
    unsigned port = 22;
    ssh_options_get(s, SSH_OPTIONS_HOST, &host);
    ssh_options_get_port(s, &port);
    snprintf(where, wlen, strchr(host != NULL ? host : "", ':') ? "[%s]:%u" : "%s:%u",
             host != NULL ? host : d->address, port);
    ssh_string_free_char(host);
    if (d->fd >= 0) {
        socket_t fd = d->fd;
        ssh_options_set(s, SSH_OPTIONS_FD, &fd);
    }
    return s;
}

static int
session_open(const struct dial *d, ssh_session *out, struct err *e)
{
    char where[300];
    *out = NULL;
    ssh_session s = session_new(d, where, sizeof where, e);
    if (s == NULL)
        return NS_ENOMEM;
    int rc = 0;
    if (d->v != NULL) { /* this hop's, from scratch: a jump host's verdict was all ok */
        memset(d->v, 0, sizeof *d->v);
        snprintf(d->v->hop, sizeof d->v->hop, "%s", d->name);
    }
    if (ssh_connect(s) != SSH_OK)
        rc = connect_error(s, d->name, where, e);
    if (rc == 0)
        rc = hostkey_verify(s, d->name, where, d->known_hosts, d->accept_new, d->v, e);
    if (rc == 0)
        rc = auth_session(s, d->name, where, d->identity, d->v, e);
    if (rc != 0) {
        ssh_disconnect(s);
        ssh_free(s);
        return rc;
    }
    if (d->fd < 0)
        set_keepalive(ssh_get_fd(s));
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
            break; /* the target session closed its end */
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
    shutdown(j->fd, SHUT_RDWR); /* the target session sees the end at once */
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

/* Connect to the bastion and open a direct-tcpip channel to host:port; *fd_out is the socket
 * the target session uses. */
static int
jump_open(const struct transport_sshconn_target *x, struct transport_sshconn_jump *j,
          const char *host, unsigned port, int *fd_out, struct err *e)
{
    char *juser = NULL, *jhost = NULL;
    unsigned jport = 0;
    int rc = parse_jump(x->jump, &juser, &jhost, &jport, e);
    if (rc != 0)
        return rc;
    char jname[200];
    snprintf(jname, sizeof jname, "%s (jump host %s)", x->name, jhost);
    struct dial d = {.name = jname,
                     .address = jhost,
                     .user = juser,
                     .port = jport,
                     .identity = x->identity,
                     .known_hosts = x->known_hosts,
                     .timeout_s = x->timeout_s,
                     .accept_new = x->accept_new_host_keys,
                     .fd = -1,
                     .v = x->verdict};
    rc = session_open(&d, &j->s, e);
    free(juser);
    free(jhost);
    if (rc != 0)
        return rc;
    j->ch = ssh_channel_new(j->s);
    if (j->ch == NULL ||
        ssh_channel_open_forward(j->ch, host, (int)port, "127.0.0.1", 0) != SSH_OK) {
        rc = err_set(e, NS_ECONNECT, "%s: the jump host cannot reach %s:%u: %s", x->name, host,
                     port, ssh_get_error(j->s));
        jump_close(j);
        return rc;
    }
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
        rc = err_sys(e, NS_EIO, errno, "%s: socketpair", x->name);
        jump_close(j);
        return rc;
    }
    fcntl(sv[1], F_SETFL, O_NONBLOCK);
    j->fd = sv[1];
    atomic_store(&j->stop, false);
    if (pthread_create(&j->th, NULL, jump_pump, j) != 0) {
        close(sv[0]);
        jump_close(j);
        return err_set(e, NS_EIO, "%s: cannot start the jump host thread", x->name);
    }
    j->running = true;
    *fd_out = sv[0];
    return 0;
}

int
transport_sshconn_open(const struct transport_sshconn_target *x, struct transport_sshconn *c,
                       struct err *e)
{
    memset(c, 0, sizeof *c);
    c->j.fd = -1;
    struct dial d = {.name = x->name,
                     .address = x->address,
                     .user = x->user,
                     .port = x->port,
                     .identity = x->identity,
                     .known_hosts = x->known_hosts,
                     .timeout_s = x->timeout_s,
                     .accept_new = x->accept_new_host_keys,
                     .fd = -1,
                     .v = x->verdict};
    if (x->jump != NULL && *x->jump != '\0') {
        /* where the target session would dial, after ~/.ssh/config */
        char where[300];
        ssh_session probe = session_new(&d, where, sizeof where, e);
        if (probe == NULL)
            return NS_ENOMEM;
        char *host = NULL;
        unsigned port = 22;
        ssh_options_get(probe, SSH_OPTIONS_HOST, &host);
        ssh_options_get_port(probe, &port);
        int rc = jump_open(x, &c->j, host != NULL ? host : x->address, port, &d.fd, e);
        ssh_string_free_char(host);
        ssh_free(probe);
        if (rc != 0)
            return rc;
    }
    int rc = session_open(&d, &c->s, e); /* owns d.fd from here, even on failure */
    if (rc != 0)
        jump_close(&c->j);
    return rc;
}

void
transport_sshconn_close(struct transport_sshconn *c)
{
    if (c->s != NULL) {
        ssh_disconnect(c->s);
        ssh_free(c->s); /* also closes the socketpair end given with SSH_OPTIONS_FD */
        c->s = NULL;
    }
    jump_close(&c->j);
}

void
transport_sshconn_stop_jump(struct transport_sshconn *c)
{
    jump_close(&c->j);
}
