/* transport.h - how the survey reaches a host: run programs there, read what they print, stop
 * them, put files there. One operations table per variant (wrk's struct sock, iperf3's struct
 * protocol): `local` (processes on this machine) and `ssh` (libssh sessions).
 *
 * The runner, the journal and the scheduler only ever see struct transport and the functions
 * below; they never know which variant a host uses. Transport code knows nothing about plans:
 * struct transport_target is filled by the caller from whatever it read (survey/host_target.h).
 * The build holds that rule: ns_transport links without ns_plan, and tests/seams refuses the
 * arrow (a symbol or an include of plan in src/transport/).
 *
 * Threads: one struct transport (a host) may have several processes running at once, and its
 * processes may be driven from different threads; a variant serialises what it must inside.
 *
 * Every read has a cap and a deadline (absolute CLOCK_MONOTONIC nanoseconds, clock_now_ns()).
 * Errors are values: 0 or a negative NS_E* code, detail in the caller's struct err. */
#ifndef NS_TRANSPORT_TRANSPORT_H
#define NS_TRANSPORT_TRANSPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/errors.h"

struct sshg;
struct transport;      /* one connected host; opaque */
struct transport_proc; /* one program running on a host; opaque */

/* What transport_open learnt of a host's key and of the authentication, for a preflight
 * (`netsurvey check --connect`) that reports them per host: filled as far as the open got, on
 * success and on failure. With jump hosts it is about the last hop dialled (`hop` names it). */
enum transport_hostkey {
    TRANSPORT_HOSTKEY_UNCHECKED, /* no key seen: not connected, or a local host */
    TRANSPORT_HOSTKEY_KNOWN,     /* matches known_hosts */
    TRANSPORT_HOSTKEY_UNKNOWN,   /* not in known_hosts (not recorded) */
    TRANSPORT_HOSTKEY_RECORDED,  /* was unknown, recorded (accept_new_host_keys) */
    TRANSPORT_HOSTKEY_CHANGED,   /* known_hosts holds another key of that type */
    TRANSPORT_HOSTKEY_OTHER,     /* known_hosts holds a key of another type only */
    TRANSPORT_HOSTKEY_ERROR,     /* known_hosts could not be read */
};

enum transport_auth { TRANSPORT_AUTH_UNTRIED, TRANSPORT_AUTH_OK, TRANSPORT_AUTH_FAILED };

struct transport_verdict {
    char hop[320]; /* the host (its name) or "NAME (jump host J)" */
    enum transport_hostkey hostkey;
    char fingerprint[160]; /* "ssh-ed25519 SHA256:..." once a key was seen */
    enum transport_auth auth;
    char user[128];   /* the user authenticated as, or tried */
    char tried[1024]; /* when authentication failed: what was offered */
};

/* Where and how to reach a host. All strings borrowed for the duration of transport_open.
 *
 * ssh: address is resolved by the operator's own `ssh -G` (transport_sshconfig.h), from
 * ~/.ssh/config and /etc/ssh/ssh_config; port, user, identity, known_hosts and jump, when given,
 * are passed to it as ssh's command line gives them (-p, -l, -i, -o, -J) and so beat the config;
 * what neither says keeps OpenSSH's defaults. */
struct transport_target {
    const char *name;          /* for messages only: "zone1-vm" */
    const char *kind;          /* "local" or "ssh" */
    const char *address;       /* ssh: what to dial (a Host alias, name or IP); local: unused */
    unsigned port;             /* ssh: 0 = the config's Port, else 22 */
    const char *user;          /* ssh: NULL = the config's User, else the local user */
    const char *identity;      /* ssh: tried before the config's IdentityFile lines (or ssh's
                                  default keys); the agent first in any case */
    const char *known_hosts;   /* ssh: NULL = the config's UserKnownHostsFile (OpenSSH's
                                  ~/.ssh/known_hosts, known_hosts2 by default) */
    const char *jump;          /* ssh: ProxyJump "[user@]host[:port][,...]" or "none"; NULL = the
                                  config's */
    const char *ssh_config;    /* ssh: NULL = $NETSURVEY_SSH_CONFIG, else ~/.ssh/config and
                                  /etc/ssh/ssh_config; a path is read alone (`ssh -F`), "none"
                                  reads nothing */
    struct sshg *sshg;         /* ssh: the `ssh -G` answers shared by the hosts of one command
                                  (common/sshg.h; borrowed); NULL = asked for this host alone */
    double connect_timeout_s;  /* ssh: 0 = the config's ConnectTimeout, else 10 s */
    bool accept_new_host_keys; /* ssh: record an unknown key (trust on first use) */
    /* ssh: told each warning of the config's resolution ("FILE line N: ..."), may be NULL */
    void (*warn)(void *ctx, const char *name, const char *msg);
    void *warn_ctx;
    struct transport_verdict *verdict; /* ssh: NULL, or filled by transport_open (zeroed first) */
    /* ssh: told once each time the host's session is found dead (its keepalives unanswered for
     * ServerAliveInterval x ServerAliveCountMax, the connection closed, a channel that could not
     * be opened), with why, in one line: from the transport's own thread, no lock of it held,
     * while the transport lives. May be NULL. */
    void (*on_drop)(void *ctx, const char *name, const char *why);
    void *on_drop_ctx;
};

/* What a finished (or killed) program left behind. Buffers are owned by the struct and freed
 * with transport_output_release. A stream that went over its cap is truncated there and its
 * `*_truncated` flag set; the program is not stopped for that. */
struct transport_output {
    char *out; /* stdout, NUL-terminated, length out_len */
    size_t out_len;
    bool out_truncated;
    char *err; /* stderr, likewise */
    size_t err_len;
    bool err_truncated;
    int status; /* exit status 0..255, or 128 + signal number when killed by a signal */
};

void transport_output_release(struct transport_output *o);

/* Connect to a host (ssh: connect, verify the host key, authenticate; local: nothing to do).
 * On success *out owns the connection (caller closes). NS_EHOSTKEY for an unknown or changed
 * host key (the message has the SHA256 fingerprint and how to accept it), NS_EAUTH when no
 * credential was accepted, NS_ECONNECT / NS_ETIMEDOUT when the host cannot be reached. */
int transport_open(const struct transport_target *t, struct transport **out, struct err *e);

/* transport_open in two steps, for a caller that outlives a host's absence: transport_new makes
 * the transport without connecting (ssh: the host's config resolved; its errors as
 * transport_open's), transport_connect connects it. */
int transport_new(const struct transport_target *t, struct transport **out, struct err *e);

/* Connect t when it has no live session: the first time, or again once its session dropped
 * (ssh: one attempt within the connect timeout; the host key verified as the first time, so a
 * host that comes back with another key is refused). Once connected again, what t's processes
 * left running on the host through the dead session is ended (only processes proved to be
 * them), their pid files removed, and so is a partial upload. 0 when connected (at once when
 * it was), else transport_open's errors, or NS_EINTR after transport_cancel. local: 0. */
int transport_connect(struct transport *t, struct err *e);

/* Whether t has a live session (local: always), and in *drops (may be NULL) how many of t's
 * sessions were found dead so far: a count that moves whenever one drops. */
bool transport_connected(struct transport *t, unsigned *drops);

/* Why t's last session was found dead, into buf ("" when none did). */
void transport_drop_reason(struct transport *t, char *buf, size_t len);

/* From any thread: cut short t's connect in progress and make every later one fail with
 * NS_EINTR: for a caller that is stopping. local: nothing to do. */
void transport_cancel(struct transport *t);

/* Kill and reap every process still running on it, then disconnect. NULL is safe. */
void transport_close(struct transport *t);

/* The variant's name ("local", "ssh") and the host's name, for messages. Borrowed. */
const char *transport_kind(const struct transport *t);
const char *transport_name(const struct transport *t);

#define TRANSPORT_REMOTE_PATH_MAX 1200 /* a deployed program's path on its host */

/* What transport_deploy_for made runnable on a host. */
struct transport_deployed {
    char path[TRANSPORT_REMOTE_PATH_MAX]; /* where it is there */
    char machine[64];    /* the host's `uname -m` ("x86_64", "aarch64"), also when none fits */
    size_t build;        /* the index in builds of the one deployed */
    char sha256_hex[65]; /* ssh: its SHA-256, the content address of its path; local: "" */
    /* ssh: why it is not where it goes first (~/.cache/netsurvey), "" when it is: "no space
     * left on vm2:/root/.cache/netsurvey (12 KiB free, it needs 1.8 MiB)" */
    char note[512];
};

/* Make a program runnable on the host: of builds (a NULL-terminated list of paths, the one
 * program built for different architectures, at most TRANSPORT_DEPLOY_MAX_BUILDS of
 * transport_deploy.h), the one for the host's architecture. local: builds[0] itself, made
 * absolute (this machine runs it). ssh: the host's `uname -m` picks the build (each is a static
 * ELF executable whose header names its machine), which is uploaded once to a content-addressed
 * path (~/.cache/netsurvey/<basename>-<sha256>) and verified; where there is no room for it (or
 * no such directory can be made), to $XDG_RUNTIME_DIR/netsurvey, /dev/shm/netsurvey-UID or
 * /tmp/netsurvey-UID (d->note says why), the first that holds it or has room; the processes
 * transport_spawn starts then record their pid files there. NS_ENOTFOUND when no build is for
 * the host's machine: d->machine says which it is, the message names the missing build
 * (transport_deploy_set_missing). */
int transport_deploy_for(struct transport *t, const char *const *builds,
                         struct transport_deployed *d, struct err *e);

/* transport_deploy_for with one build, its path there into remote_path (len bytes). */
int transport_deploy(struct transport *t, const char *local_path, char *remote_path, size_t len,
                     struct err *e);

/* Start argv[0] with arguments argv[1..] (NULL-terminated) in a new process group (session),
 * never through a shell without quoting every argument. stdin_data (stdin_len bytes, may be
 * NULL) is written to its standard input, which is then closed. *out owns the process. */
int transport_spawn(struct transport *t, const char *const *argv, const void *stdin_data,
                    size_t stdin_len, struct transport_proc **out, struct err *e);

/* Read one line (up to and excluding '\n') of the process's stdout into buf (len bytes,
 * NUL-terminated); stderr is collected meanwhile. NS_ETIMEDOUT at the deadline, NS_ECLOSED when
 * stdout ended first, NS_ETOOBIG when the line does not fit. Bytes after the line are kept
 * for transport_wait. */
int transport_read_line(struct transport_proc *p, char *buf, size_t len, int64_t deadline_ns,
                        struct err *e);

/* Collect the rest of stdout and stderr (at most out_cap / err_cap bytes each) and wait for
 * the process to exit. On success returns 0 with *o filled (the caller releases it). At the
 * deadline returns NS_ETIMEDOUT with the process still running and what it printed so far in
 * *o (the caller kills it). What one call put in *o is handed over: a later call (after a
 * timeout) gives only what was printed since, capped again. */
int transport_wait(struct transport_proc *p, size_t out_cap, size_t err_cap, int64_t deadline_ns,
                   struct transport_output *o, struct err *e);

/* Send sig to the process's whole group. 0 when sent or when it had already exited. */
int transport_signal(struct transport_proc *p, int sig, struct err *e);

/* Kill the group (SIGKILL) if it still runs, reap it, free p. NULL is safe. Never leaves the
 * process or its group behind. */
void transport_proc_free(struct transport_proc *p);

/* --- the operations table a variant provides (transport_local.c, transport_ssh.c) --------- */

struct transport_ops {
    const char *kind;
    /* make the transport; a variant with connect does not connect here */
    int (*open)(const struct transport_target *t, struct transport **out, struct err *e);
    /* NULL for a variant that has nothing to connect (local) */
    int (*connect)(struct transport *t, struct err *e);
    bool (*connected)(struct transport *t, unsigned *drops);
    void (*drop_reason)(struct transport *t, char *buf, size_t len);
    void (*cancel)(struct transport *t);
    void (*close)(struct transport *t);
    int (*deploy)(struct transport *t, const char *const *builds, struct transport_deployed *d,
                  struct err *e);
    int (*spawn)(struct transport *t, const char *const *argv, const void *stdin_data,
                 size_t stdin_len, struct transport_proc **out, struct err *e);
    int (*read_line)(struct transport_proc *p, char *buf, size_t len, int64_t deadline_ns,
                     struct err *e);
    int (*wait)(struct transport_proc *p, size_t out_cap, size_t err_cap, int64_t deadline_ns,
                struct transport_output *o, struct err *e);
    int (*signal)(struct transport_proc *p, int sig, struct err *e);
    void (*proc_free)(struct transport_proc *p);
};

/* Every struct transport and struct transport_proc a variant allocates begins with this
 * header, so that the generic functions above dispatch on it. */
struct transport_base {
    const struct transport_ops *ops;
    char name[128];
};

extern const struct transport_ops transport_local_ops;
extern const struct transport_ops transport_ssh_ops;

/* What callers reach past the operations table, each part in a header of its own and all of
 * them through this one public header (curl's curl.h way): the endpoint builds deployed by
 * architecture (transport_deploy.h), the ssh variant's own calls, clean, probe and exec
 * (transport_ssh.h), and ssh_config as the operator's `ssh -G` resolves it
 * (transport_sshconfig.h). Outside src/transport, only "transport/transport.h" is included
 * (tests/seams/lib_arrows.py). */
#include "transport/transport_deploy.h"
#include "transport/transport_ssh.h"
#include "transport/transport_sshconfig.h"

#endif
