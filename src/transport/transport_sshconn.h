/* transport_sshconn.h - one SSH session to a host, for the ssh transport: dialled directly or
 * through a jump host ("[user@]host[:port]", a direct-tcpip channel through the bastion),
 * ~/.ssh/config honoured (what the target says explicitly wins), the host key verified against
 * known_hosts (OK only; unknown recorded only when asked; changed or other-type keys always
 * refused), and authenticated with the agent, then the identity file (or libssh's defaults: the
 * agent, IdentityFile lines, ~/.ssh/id_*). TCP keepalives on the socket.
 *
 * Threads: a struct transport_sshconn is used by one thread at a time (the transport holds a
 * mutex); a jump host's session is driven by its own pump thread only. */
#ifndef NS_TRANSPORT_TRANSPORT_SSHCONN_H
#define NS_TRANSPORT_TRANSPORT_SSHCONN_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include <libssh/libssh.h>

#include "common/errors.h"
#include "transport/transport.h"

/* What to dial. Strings borrowed for the call. */
struct transport_sshconn_target {
    const char *name;        /* for messages */
    const char *address;     /* name or IP (a ~/.ssh/config Host alias works) */
    unsigned port;           /* 0 = config or 22 */
    const char *user;        /* NULL = config, then the local user */
    const char *identity;    /* NULL = agent, config IdentityFile, default keys */
    const char *known_hosts; /* a path, "~/" expanded by the caller */
    const char *jump;        /* "[user@]host[:port]" or NULL */
    double timeout_s;
    bool accept_new_host_keys;
    struct transport_verdict *verdict; /* NULL, or told what each hop's key and login gave */
};

struct transport_sshconn_jump {
    ssh_session s;
    ssh_channel ch;
    int fd; /* the pump's end of the socketpair */
    pthread_t th;
    bool running;
    atomic_bool stop;
};

struct transport_sshconn {
    ssh_session s; /* NULL when not connected */
    struct transport_sshconn_jump j;
    unsigned gen; /* the transport's count of sessions, for channels made on an older one */
};

/* Connect, verify, authenticate. On failure *c holds nothing to close. NS_EHOSTKEY (message
 * with the SHA256 fingerprint and how to accept it), NS_EAUTH, NS_ECONNECT, NS_ETIMEDOUT,
 * NS_EINVAL (bad jump spec). */
int transport_sshconn_open(const struct transport_sshconn_target *t, struct transport_sshconn *c,
                           struct err *e);

/* Disconnect and free everything (the session's channels too). */
void transport_sshconn_close(struct transport_sshconn *c);

/* Stop the jump host's pump and free its session, leaving c->s allocated (a dropped session
 * whose channels are still held). */
void transport_sshconn_stop_jump(struct transport_sshconn *c);

/* The timeout of blocking libssh calls on s. */
void transport_sshconn_set_timeout(ssh_session s, double secs);

/* path with a leading "~/" replaced by $HOME; malloc'd (NULL when out of memory). */
char *transport_sshconn_expand_home(const char *path);

#endif
