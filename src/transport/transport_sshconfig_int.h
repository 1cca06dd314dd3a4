/* transport_sshconfig_int.h - the pieces of transport_sshconfig.c: OpenSSH's lexing and
 * matching (transport_sshconfig_text.c: ports of misc.c and match.c), expansions
 * (transport_sshconfig_expand.c), the keyword table (transport_sshconfig_keys.c). Internal to
 * ns_transport. Each function says which OpenSSH 9.2 function it follows; where OpenSSH has a
 * quirk that changes what a config means, the port keeps it and says so. */
#ifndef NS_TRANSPORT_SSHCONFIG_INT_H
#define NS_TRANSPORT_SSHCONFIG_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "transport/transport_sshconfig.h"

/* --- a growable vector of malloc'd strings ------------------------------------------------ */

struct sc_strv {
    char **v;
    size_t n;
    size_t cap;
};

/* Append a copy of s (len bytes; (size_t)-1: strlen). 0, or -1 when out of memory. */
int sc_strv_push(struct sc_strv *sv, const char *s, size_t len);
void sc_strv_release(struct sc_strv *sv);

/* --- lexing (misc.c) ---------------------------------------------------------------------- */

/* strdelim(): the next token of *s, split at whitespace or one '=', a leading '"' quoting up
 * to the next '"'. Modifies the string; *s is NULL after the last token. NULL when *s was NULL
 * or a quote is not closed. */
char *sc_strdelim(char **s);

/* argv_split(s, ..., terminate_on_comment=1): words with '"' and '\'' quotes and backslash
 * escapes, stopping at a '#' that begins a word. 0, or -1 for an unclosed quote (or memory). */
int sc_argv_split(const char *s, struct sc_strv *out);

/* rtrim() as OpenSSH 9.2 has it: every whitespace byte after the first is cut, not only the
 * trailing ones, so the string ends before its first inner blank. */
void sc_rtrim(char *s);

void sc_lowercase(char *s);

/* --- matching (match.c) ------------------------------------------------------------------- */

/* match_pattern(): '*' and '?' wildcards, case-sensitive, the whole string. */
bool sc_match_pattern(const char *s, const char *pattern);

/* match_pattern_list(): comma-separated patterns, each may be negated with '!': -1 when a
 * negated one matches, 1 when a positive one does, else 0. dolower lower-cases the patterns. */
int sc_match_pattern_list(const char *s, const char *list, bool dolower);

/* match_hostname(): match_pattern_list on the lower-cased host, patterns lower-cased too. */
int sc_match_hostname(const char *host, const char *list);

/* --- values (misc.c) ---------------------------------------------------------------------- */

/* a2port(): 0..65535 or a service name; -1 when neither. */
int sc_a2port(const char *s);

/* convtime(): "90", "1h30m", ...: seconds, or -1 when invalid. */
int sc_convtime(const char *s);

/* parse_user_host_port(): "[user@]host[:port]" (host may be "[v6]"). Outputs may be NULL
 * (syntax check); *user NULL and *port -1 when absent. 0 or -1. Strings malloc'd. */
int sc_parse_user_host_port(const char *s, char **user, char **host, int *port);

/* parse_ssh_uri(): "ssh://[user@]host[:port]": 0 parsed, 1 not such a URI, -1 invalid. */
int sc_parse_ssh_uri(const char *uri, char **user, char **host, int *port);

/* is_addr() of ssh.c: a name that can only be an address ('%' or ':' in it, only digits and
 * dots, or one numeric address). */
bool sc_is_addr(const char *name);

/* An address in the canonical text form (resolve_addr(): getaddrinfo AI_NUMERICHOST, then
 * getnameinfo NI_NUMERICHOST; no DNS). malloc'd, or NULL when name is not one address. */
char *sc_canonical_addr(const char *name);

/* valid_env_name() */
bool sc_valid_env_name(const char *name);

struct stat;

/* Debian's secure_permissions(): may ssh read a user config file with this owner and mode, for
 * the user uid? (transport_sshconfig_perm.c) */
bool sc_secure_permissions(const struct stat *st, uid_t uid);

/* --- expansions --------------------------------------------------------------------------- */

/* One %-token and its value. */
struct sc_token {
    char key;
    const char *val;
};

/* vdollar_percent_expand(): when percent, %X from tokens (nt of them; "%%" is '%'); when
 * dollar, ${VAR} from the environment. *out malloc'd. 0; -1 with why filled ("unknown token
 * %x", "environment variable ${X} is not set", "longer than N bytes") on failure. */
int sc_expand(const char *s, bool dollar, bool percent, const struct sc_token *t, size_t nt,
              char **out, char *why, size_t whylen);

/* tilde_expand(): "~", "~/x" with home (passwd's, not $HOME), "~user/x" with that user's. *out
 * malloc'd. 0, or -1 with why filled (no such user, too long). */
int sc_tilde(const char *s, const char *home, char **out, char *why, size_t whylen);

/* SHA-1 of data as 40 lower-case hex digits and a NUL (%C, ssh_connection_hash()). */
void sc_sha1_hex(const void *data, size_t len, char out[41]);

/* --- the keyword table (readconf.c keywords[], with Debian 9.2's additions) --------------- */

enum sc_kw {
    SC_HOST,
    SC_MATCH,
    SC_INCLUDE,
    SC_HOSTNAME,
    SC_PORT,
    SC_USER,
    SC_IDENTITYFILE,
    SC_IDENTITIESONLY,
    SC_IDENTITYAGENT,
    SC_PROXYJUMP,
    SC_PROXYCOMMAND,
    SC_USERKNOWNHOSTS,
    SC_GLOBALKNOWNHOSTS,
    SC_HOSTKEYALIAS,
    SC_CONNECTTIMEOUT,
    SC_IGNOREUNKNOWN,
    SC_CANONICALIZEHOSTNAME,
    /* the rest: read (and checked as far as said) but not used by netsurvey */
    SC_FLAG,        /* one of yes/no/true/false */
    SC_ONE,         /* exactly one argument */
    SC_ANY,         /* one or more */
    SC_CMD,         /* the rest of the line */
    SC_DEPRECATED,  /* consumed (debug in ssh) */
    SC_UNSUPPORTED, /* consumed, with ssh's "unsupported option" as a warning */
};

struct sc_keyword {
    const char *name; /* lower case */
    enum sc_kw kind;
    /* Non-NULL: netsurvey does not do what this keyword asks; warned once when a line of it
     * applies to the host ... */
    const char *warn;
    /* ... unless its first argument is one of these (comma-separated, any case): the values
     * that ask for nothing netsurvey leaves undone. */
    const char *quiet;
};

/* The entry for a lower-case keyword, or NULL. */
const struct sc_keyword *sc_keyword_find(const char *name);

/* --- one resolution in progress (transport_sshconfig.c drives it, _read.c fills it) ------ */

/* The options as readconf.c's Options holds them: -1 / NULL = not set yet (first wins). */
struct sc_opts {
    char *user, *hostname, *host_key_alias, *identity_agent, *ignored_unknown, *proxy_command;
    char *jump_user, *jump_host, *jump_extra;
    int jump_port;
    int port, connect_timeout, identities_only, canonicalize;
    struct sc_strv ids;    /* IdentityFile, in order */
    struct sc_strv ids_at; /* where each came from ("FILE line N"), for expansion errors */
    unsigned char ids_user[TRANSPORT_SSHCONFIG_IDENTITIES_MAX]; /* userprovided (dedup key) */
    struct sc_strv ukh, gkh;
    char *hostname_at, *ukh_at, *agent_at;
};

struct sc_ctx {
    /* who: filled from the env struct before the first line */
    char home[4096], home_env[4096], local_user[256], this_host[256], short_host[256];
    char uid[32];
    uid_t uid_val;
    const char *config, *system_config;
    /* what Host lines match (the name asked for; in the final pass the hostname) */
    char *host;
    const char *host_arg; /* %n, Match originalhost */
    bool final_pass, want_final;
    struct sc_opts o;
    struct sc_strv warnings, warned; /* warned: keywords already judged (first line decides) */
    size_t dropped;
    size_t files, lines;
    struct err *e;
};

/* Flags of one file read (readconf.h SSHCONF_*). */
#define SC_F_USERCONF 1u
#define SC_F_CHECKPERM 2u
#define SC_F_NEVERMATCH 4u

/* read_config_file_depth(): 1 when read, 0 when it cannot be opened (*open_errno says why),
 * else a negative NS_E* code with c->e set. *active is the Host/Match state. */
int sc_read_file(struct sc_ctx *c, const char *path, unsigned flags, int *active, int depth,
                 int *open_errno);

/* add_identity_file(): a duplicate (same path, same userprovided) is dropped. */
int sc_add_identity(struct sc_ctx *c, const char *path, bool userprovided, const char *at);

/* parse_jump(): a ProxyJump value into c->o when active (and nothing set it before). 0, or -1
 * when malformed. */
int sc_parse_jump(struct sc_ctx *c, const char *s, bool active);

/* A warning "at: msg" kept for the result (capped). */
void sc_warn(struct sc_ctx *c, const char *at, const char *msg);

#endif
