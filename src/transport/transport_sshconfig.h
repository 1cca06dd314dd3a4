/* transport_sshconfig.h - an ssh host name resolved through ~/.ssh/config and
 * /etc/ssh/ssh_config the way OpenSSH 9.2's ssh(1) resolves it (readconf.c and ssh.c main()),
 * so that netsurvey dials what `ssh HOST` dials: HostName (%h), Port, User, the IdentityFile
 * list (accumulated over blocks; OpenSSH's defaults when none), ProxyJump (chains, `none`),
 * UserKnownHostsFile, GlobalKnownHostsFile, HostKeyAlias, ConnectTimeout, IdentitiesOnly,
 * IdentityAgent; Host patterns (`*`, `?`, `!`, several per line), Match (host, originalhost,
 * user, localuser, all, canonical, final: the second pass as OpenSSH makes it), Include (globs,
 * relative to ~/.ssh/ or /etc/ssh/), first obtained value wins, tokens and `~` where OpenSSH
 * expands them. A value given in the override struct beats the files, as `ssh -o` does.
 *
 * What the config asks and netsurvey cannot do (Match exec, ProxyCommand, hostname
 * canonicalisation through DNS, a KnownHostsCommand, algorithm lists, ...) is a warning naming
 * the file and line, never ignored in silence. What ssh refuses (an unknown keyword, a bad
 * argument, a file with loose permissions) is an error naming the file and line.
 *
 * Pure apart from reading the files it is told about (no DNS, no command runs). Thread-safe:
 * no state outside the structs passed in. Errors are values: 0 or a negative NS_E* code with
 * detail in the caller's struct err. */
#ifndef NS_TRANSPORT_SSHCONFIG_H
#define NS_TRANSPORT_SSHCONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "common/errors.h"

/* Caps on every read. Those OpenSSH has are its own values. */
#define TRANSPORT_SSHCONFIG_FILE_MAX (1024 * 1024) /* bytes of one config file */
#define TRANSPORT_SSHCONFIG_DEPTH_MAX 16           /* Include nesting (READCONF_MAX_DEPTH) */
#define TRANSPORT_SSHCONFIG_FILES_MAX 512          /* files read for one resolution */
#define TRANSPORT_SSHCONFIG_GLOB_MAX 256           /* files one Include pattern may name */
#define TRANSPORT_SSHCONFIG_LINES_MAX 200000       /* lines read for one resolution */
#define TRANSPORT_SSHCONFIG_IDENTITIES_MAX 100     /* SSH_MAX_IDENTITY_FILES */
#define TRANSPORT_SSHCONFIG_HOSTFILES_MAX 32       /* SSH_MAX_HOSTS_FILES */
#define TRANSPORT_SSHCONFIG_HOPS_MAX 8             /* jump hosts before one target */
#define TRANSPORT_SSHCONFIG_WARNINGS_MAX 64        /* kept per resolution; more are counted */
#define TRANSPORT_SSHCONFIG_VALUE_MAX 4096         /* bytes of one expanded value */

/* Who is asking and which files to read. Every field may be NULL (the default said); strings
 * are borrowed for the call. */
struct transport_sshconfig_env {
    /* NULL: ~/.ssh/config (skipped when absent; owner and mode checked as ssh does), then the
     * system file. Otherwise the one file read, as `ssh -F FILE` (it must exist; "none": no
     * file at all). */
    const char *config;
    const char *system_config; /* NULL: /etc/ssh/ssh_config */
    const char *home;          /* the passwd home: "~", %d, ~/.ssh/; NULL: getpwuid(getuid()) */
    const char *home_env;      /* "~" in Include patterns (ssh's glob reads $HOME there);
                                  NULL: $HOME, or home when unset */
    const char *local_user;    /* %u, Match localuser, the default User; NULL: getpwuid */
    const char *this_host;     /* %l, %L, %C; NULL: gethostname() */
};

/* What the caller says explicitly, as `ssh -o` would: NULL / 0 = not given. */
struct transport_sshconfig_override {
    const char *user;
    unsigned port;
    const char *identity;    /* tried before the config's IdentityFile lines (ssh -i) */
    const char *jump;        /* ProxyJump: "[user@]host[:port][,...]" or "none" */
    const char *known_hosts; /* one UserKnownHostsFile path, or "none" */
};

/* A resolved host. Owned by the caller: transport_sshconfig_free. */
struct transport_sshconfig {
    char *host_arg; /* the name asked for */
    char *hostname; /* what to dial: HostName expanded, lower-cased unless an address */
    unsigned port;
    char *user;
    /* IdentityFile as `ssh -G` prints it (unexpanded) ... */
    char **identity_files;
    size_t n_identity_files;
    /* ... and as ssh loads it: "~", %tokens and ${VAR} expanded, "none" left out. */
    char **identity_paths;
    size_t n_identity_paths;
    /* UserKnownHostsFile, expanded (empty for "none"); GlobalKnownHostsFile likewise. */
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
    char *host_key_alias;  /* lower-cased; NULL: none */
    int connect_timeout_s; /* -1: none */
    bool identities_only;
    char *identity_agent; /* as `ssh -G` prints it (expanded); NULL: not set */
    char **warnings;      /* "FILE line N: ..." (what netsurvey will not do as ssh would) */
    size_t n_warnings;
    size_t n_warnings_dropped; /* beyond TRANSPORT_SSHCONFIG_WARNINGS_MAX */
};

/* The environment variable naming the config file netsurvey reads instead of ~/.ssh/config
 * and /etc/ssh/ssh_config (as `ssh -F` would; "none": no file). */
#define TRANSPORT_SSHCONFIG_ENV_VAR "NETSURVEY_SSH_CONFIG"

/* env for the running user: config from `config` if not NULL, else from the variable above,
 * else the defaults (every other field NULL). */
void transport_sshconfig_env_init(struct transport_sshconfig_env *env, const char *config);

/* Resolve host (a name, an alias or an address) as `ssh [-F env->config] [-o ...] host` would.
 * *out is the caller's on success. NS_EPARSE for what ssh would refuse ("FILE line N: ..."),
 * NS_ETOOBIG for a cap, NS_EIO for a file that cannot be read, NS_EINVAL for a bad override,
 * NS_ENOMEM. */
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
 * jump host, hop[n - 1] the target. A hop is resolved as ssh resolves a ProxyJump host (its
 * own Host blocks; the user and port of the jump spec as `-l`/`-p`; the hops before it as `-J`,
 * else its own ProxyJump), so chains through the config are followed. The override's identity
 * and known_hosts file are tried first for every hop too (netsurvey's choice: ssh would not pass
 * `-o` to the ProxyJump child), then each hop's own. NS_ETOOBIG beyond
 * TRANSPORT_SSHCONFIG_HOPS_MAX hops; NS_EINVAL for a jump back to the same endpoint. */
struct transport_sshconfig_chain {
    struct transport_sshconfig **hop;
    size_t n;
};

int transport_sshconfig_resolve_chain(const struct transport_sshconfig_env *env, const char *host,
                                      const struct transport_sshconfig_override *ov,
                                      struct transport_sshconfig_chain *out, struct err *e);

/* Free every hop; the struct itself is the caller's (embedded). */
void transport_sshconfig_chain_release(struct transport_sshconfig_chain *ch);

#endif
