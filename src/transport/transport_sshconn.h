/* transport_sshconn.h - one SSH session to a host, for the ssh transport, along a chain of hosts
 * resolved as OpenSSH resolves them (transport_sshconfig.h): the first hop dialled directly,
 * every later one through a direct-tcpip channel of the one before (ProxyJump, chains included;
 * no OpenSSH client needed). On every hop: its host key verified against its known_hosts files
 * (OK only; unknown recorded only when asked; changed or other-type keys always refused;
 * HostKeyAlias honoured), then authentication with the agent (IdentityAgent or SSH_AUTH_SOCK)
 * and the hop's identity files. TCP keepalives on the first hop's socket, which is dialled here
 * (not by libssh) so that a dial in progress can be cut short from another thread.
 *
 * Threads: a struct transport_sshconn is used by one thread at a time (the transport holds a
 * mutex); each jump host's session is driven by its own pump thread only; a struct
 * transport_sshconn_cancel is for any thread. */
#ifndef NS_TRANSPORT_TRANSPORT_SSHCONN_H
#define NS_TRANSPORT_TRANSPORT_SSHCONN_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <libssh/libssh.h>

#include "common/errors.h"
#include "transport/transport.h"
#include "transport/transport_sshconfig.h"

/* How another thread stops a dial: transport_sshconn_cancel shuts the first hop's socket down,
 * which ends whatever blocking libssh call waits on it, and makes every later dial return
 * NS_EINTR at once (sticky: the caller is stopping). */
struct transport_sshconn_cancel {
    pthread_mutex_t mu;
    int fd;         /* the first hop's socket while a dial is in progress, else -1 */
    bool cancelled; /* under mu */
};

void transport_sshconn_cancel_init(struct transport_sshconn_cancel *c);
void transport_sshconn_cancel_release(struct transport_sshconn_cancel *c);
void transport_sshconn_cancel(struct transport_sshconn_cancel *c);

/* What to dial. Borrowed for the call. */
struct transport_sshconn_target {
    const char *name;                              /* for messages */
    const struct transport_sshconfig_chain *chain; /* hop[0] dialled first, hop[n-1] the host */
    double timeout_s; /* > 0: for every hop; 0: each hop's ConnectTimeout, else 10 s */
    bool accept_new_host_keys;
    struct transport_verdict *verdict;       /* NULL, or told what each hop's key and login gave */
    struct transport_sshconn_cancel *cancel; /* NULL: the dial cannot be cut short */
};

struct transport_sshconn_jump {
    ssh_session s;
    ssh_channel ch;
    int fd; /* the pump's end of the socketpair */
    pthread_t th;
    bool running;
    atomic_bool stop;
    _Atomic uint64_t last_rx_ns; /* when the pump last passed bytes from the host toward us */
};

struct transport_sshconn {
    ssh_session s; /* the host's; NULL when not connected */
    /* TRANSPORT_SSHCONFIG_HOPS_MAX of them when there is a jump host, NULL without: on the
     * heap, since the pumps point into it while the struct itself is copied about */
    struct transport_sshconn_jump *j;
    size_t nj;    /* jump hosts in use, j[0] the first dialled */
    unsigned gen; /* the transport's count of sessions, for channels made on an older one */
};

/* Connect, verify, authenticate every hop. On failure *c holds nothing to close. NS_EHOSTKEY
 * (message with the SHA256 fingerprint and how to accept it; a changed key names the
 * known_hosts entry it differs from, FILE:LINE), NS_EAUTH, NS_ECONNECT, NS_ETIMEDOUT, NS_EINTR
 * (cancelled); the message names the hop and is never without its reason. */
int transport_sshconn_open(const struct transport_sshconn_target *t, struct transport_sshconn *c,
                           struct err *e);

/* Disconnect and free everything (the session's channels too). */
void transport_sshconn_close(struct transport_sshconn *c);

/* Stop the jump hosts' pumps and free their sessions, leaving c->s allocated (a dropped session
 * whose channels are still held). */
void transport_sshconn_stop_jump(struct transport_sshconn *c);

/* Milliseconds since the host last sent us a byte on c's session (the kernel's count of the
 * first hop's TCP socket, or the pump's of the last jump host), -1 when unknown: what tells a
 * session whose keepalives go unanswered. */
int64_t transport_sshconn_rx_idle_ms(const struct transport_sshconn *c);

/* The timeout of blocking libssh calls on s. */
void transport_sshconn_set_timeout(ssh_session s, double secs);

#endif
