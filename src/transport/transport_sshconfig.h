/* transport_sshconfig.h - an ssh host as the operator's own OpenSSH resolves it: `ssh -G`
 * (common/sshg.h) for the host and for every hop of its ProxyJump chain, read into what the
 * ssh transport dials with libssh: HostName, Port, User, the IdentityFile list, ProxyJump,
 * UserKnownHostsFile, GlobalKnownHostsFile, HostKeyAlias, ConnectTimeout, ServerAliveInterval,
 * ServerAliveCountMax, IdentitiesOnly, IdentityAgent. netsurvey parses no ssh_config itself:
 * whatever the operator's ssh accepts (its version's keywords, Include, Match, exec included)
 * resolves as ssh resolves it, and what it refuses fails with OpenSSH's own message naming the file
 * and line.
 *
 * What `ssh -G` leaves to the connection is done here as ssh does it: IdentityFile expanded
 * ("~/" with the passwd home here; %tokens, ${VAR} and ~user by ssh itself, through a second
 * `ssh -G` that expands the path as ControlPath, which ssh expands with the same function and
 * tokens), "~" in GlobalKnownHostsFile, the agent socket (transport_sshconfig_agent).
 *
 * What the resolved options ask and netsurvey does not do (ProxyCommand, StrictHostKeyChecking
 * no, algorithm lists that differ from ssh's defaults, CertificateFile, ...) is a warning, and
 * so is what ssh itself printed while accepting the config ("FILE line 9: Unsupported option").
 *
 * Thread-safe: no state outside the structs passed in (the struct sshg serialises itself).
 * Errors are values: 0 or a negative NS_E* code with detail in the caller's struct err. */
#ifndef NS_TRANSPORT_SSHCONFIG_H
#define NS_TRANSPORT_SSHCONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "common/errors.h"

struct sshg;

#define TRANSPORT_SSHCONFIG_HOPS_MAX 8 /* jump hosts before one target */

/* The environment variable naming the config file netsurvey has ssh read instead of
 * ~/.ssh/config and /etc/ssh/ssh_config (`ssh -F`; "none": no file). */
#define TRANSPORT_SSHCONFIG_ENV_VAR "NETSURVEY_SSH_CONFIG"

/* Which ssh answers, from which files. Borrowed for the call. */
struct transport_sshconfig_env {
    struct sshg *sshg;  /* the runner and its cache; NULL: one of the call's own */
    const char *config; /* `ssh -F config`; NULL: ssh's own files */
};

/* env with sshg NULL and config from `config` if not NULL, else from the variable above. */
void transport_sshconfig_env_init(struct transport_sshconfig_env *env, const char *config);

/* What the caller says explicitly, passed to ssh as its command line would: NULL / 0 = not
 * given. */
struct transport_sshconfig_override {
    const char *user;        /* -l */
    unsigned port;           /* -p */
    const char *identity;    /* -i: tried before the config's IdentityFile lines */
    const char *jump;        /* -J "[user@]host[:port][,...]" or "none" */
    const char *known_hosts; /* -o UserKnownHostsFile: one path, or "none" */
};

/* A resolved host. Owned by the caller: transport_sshconfig_free. */
struct transport_sshconfig {
    char *host_arg; /* the name asked for */
    char *hostname; /* what to dial, as ssh -G prints it */
    unsigned port;
    char *user;
    /* IdentityFile as `ssh -G` prints it (unexpanded) ... */
    char **identity_files;
    size_t n_identity_files;
    /* ... and as ssh loads it: "~", %tokens and ${VAR} expanded, "none" left out. */
    char **identity_paths;
    size_t n_identity_paths;
    /* UserKnownHostsFile as ssh -G expands it (none for "none"); GlobalKnownHostsFile with "~"
     * expanded. */
    char **known_hosts_files;
    size_t n_known_hosts_files;
    char **global_known_hosts_files;
    size_t n_global_known_hosts_files;
    /* ProxyJump as `ssh -G` prints it, split at ',': the first dialled first. n = 0: none. */
    char **proxy_jump;
    size_t n_proxy_jump;
    /* The hop next to the target, parsed (ssh dials it with `ssh [-l user] [-p port]
     * [-J jump_rest] jump_host`): jump_host NULL when there is no jump, jump_port 0 when not
     * given, jump_rest NULL when it is the only hop. */
    char *jump_user;
    char *jump_host;
    unsigned jump_port;
    char *jump_rest;
    char *host_key_alias;  /* NULL: none */
    int connect_timeout_s; /* -1: none */
    /* ServerAliveInterval (seconds, 0: none set) and ServerAliveCountMax as ssh -G prints them:
     * the ssh transport's keepalives (transport_ssh.c gives an interval of 0 its default) */
    int server_alive_interval_s;
    int server_alive_count_max;
    bool identities_only;
    char *identity_agent; /* as `ssh -G` prints it (expanded); NULL: not set */
    char **warnings;      /* what netsurvey will not do as ssh would, and ssh's own notes */
    size_t n_warnings;
};

/* Resolve host (a name, an alias or an address) as `ssh [-F env->config] [ov...] host` would.
 * *out is the caller's on success. NS_EPARSE for what ssh refuses (its message: "FILE line N:
 * ..."), NS_ENOTFOUND when there is no ssh client (the message names the package),
 * NS_ETIMEDOUT, NS_EINVAL for a bad override, NS_ENOMEM. */
int transport_sshconfig_resolve(const struct transport_sshconfig_env *env, const char *host,
                                const struct transport_sshconfig_override *ov,
                                struct transport_sshconfig **out, struct err *e);

/* NULL is safe. */
void transport_sshconfig_free(struct transport_sshconfig *c);

/* The agent socket ssh would use: IdentityAgent ("none": NULL, "SSH_AUTH_SOCK" or "$VAR": that
 * variable, else the path), else $SSH_AUTH_SOCK. Borrowed (from c or the environment); NULL
 * when there is no agent. */
const char *transport_sshconfig_agent(const struct transport_sshconfig *c);

/* Every host dialled to reach one target, in the order they are dialled: hop[0] is the first
 * jump host, hop[n - 1] the target. A hop is resolved as ssh resolves its ProxyJump child
 * (`ssh -l user -p port -J hops-before host` of the jump spec), so chains through the config
 * are followed. The override's identity and known_hosts file are tried first for every hop too
 * (netsurvey's choice: ssh would not pass them to the ProxyJump child), then each hop's own.
 * NS_ETOOBIG beyond TRANSPORT_SSHCONFIG_HOPS_MAX hops. */
struct transport_sshconfig_chain {
    struct transport_sshconfig **hop;
    size_t n;
};

int transport_sshconfig_resolve_chain(const struct transport_sshconfig_env *env, const char *host,
                                      const struct transport_sshconfig_override *ov,
                                      struct transport_sshconfig_chain *out, struct err *e);

/* Free every hop; the struct itself is the caller's (embedded). */
void transport_sshconfig_chain_release(struct transport_sshconfig_chain *ch);

/* Resolve the chains of n hosts (host[i] with ov[i]; ov may be NULL) at once into env->sshg's
 * cache (sshg_parallel), so that the resolutions after it, one host at a time, run no ssh.
 * Failures are not reported here: each is cached and given again to that host's resolution. */
void transport_sshconfig_prefetch(const struct transport_sshconfig_env *env,
                                  const char *const *host,
                                  const struct transport_sshconfig_override *ov, size_t n);

#endif
