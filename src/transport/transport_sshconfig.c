/* transport_sshconfig.c - one host resolved as ssh.c main() resolves it: the command line's
 * values first (the override struct), the user's file, the system file, the hostname expanded
 * and lower-cased, a final pass over the files when Match final/canonical or
 * CanonicalizeHostname asks for one, OpenSSH's defaults, then the tokens expanded in the values
 * ssh expands them in. See transport_sshconfig.h. */
#include "transport/transport_sshconfig.h"

#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "transport/transport_sshconfig_int.h"

#define SC_SYSTEM_CONFIG "/etc/ssh/ssh_config"

static int
oom(struct sc_ctx *c)
{
    return err_set(c->e, NS_ENOMEM, "out of memory");
}

static int
copy_field(char *dst, size_t len, const char *src)
{
    return (size_t)snprintf(dst, len, "%s", src) < len ? 0 : -1;
}

/* Who is asking: the passwd entry of the real uid unless the env struct says otherwise. */
static int
env_init(struct sc_ctx *c, const struct transport_sshconfig_env *env)
{
    struct passwd pw = {0}, *res = NULL;
    char buf[4096];
    c->uid_val = getuid();
    snprintf(c->uid, sizeof c->uid, "%lu", (unsigned long)c->uid_val);
    bool need_pw = env->home == NULL || env->local_user == NULL;
    if (need_pw && (getpwuid_r(c->uid_val, &pw, buf, sizeof buf, &res) != 0 || res == NULL))
        return err_set(c->e, NS_ENOTFOUND, "no passwd entry for uid %s", c->uid);
    const char *home = env->home != NULL ? env->home : pw.pw_dir;
    const char *user = env->local_user != NULL ? env->local_user : pw.pw_name;
    const char *henv = env->home_env != NULL ? env->home_env : getenv("HOME");
    if (henv == NULL)
        henv = home;
    char host[256] = "";
    if (env->this_host != NULL)
        snprintf(host, sizeof host, "%s", env->this_host);
    else if (gethostname(host, sizeof host - 1) != 0)
        return err_sys(c->e, NS_EIO, errno, "gethostname");
    if (copy_field(c->home, sizeof c->home, home) != 0 ||
        copy_field(c->home_env, sizeof c->home_env, henv) != 0 ||
        copy_field(c->local_user, sizeof c->local_user, user) != 0 ||
        copy_field(c->this_host, sizeof c->this_host, host) != 0)
        return err_set(c->e, NS_ETOOBIG, "home, user or host name too long");
    snprintf(c->short_host, sizeof c->short_host, "%s", host);
    c->short_host[strcspn(c->short_host, ".")] = '\0';
    c->config = env->config;
    c->system_config = env->system_config != NULL ? env->system_config : SC_SYSTEM_CONFIG;
    return 0;
}

/* The explicit values, set before any file as ssh sets its command line's. */
static int
apply_overrides(struct sc_ctx *c, const struct transport_sshconfig_override *ov)
{
    struct sc_opts *o = &c->o;
    if (ov == NULL)
        return 0;
    if (ov->user != NULL && (*ov->user == '\0' || (o->user = strdup(ov->user)) == NULL))
        return *ov->user == '\0' ? err_set(c->e, NS_EINVAL, "empty user") : oom(c);
    if (ov->port > 65535)
        return err_set(c->e, NS_EINVAL, "port %u out of range", ov->port);
    if (ov->port != 0)
        o->port = (int)ov->port;
    int rc = 0;
    if (ov->identity != NULL && *ov->identity != '\0')
        rc = sc_add_identity(c, ov->identity, true, "the identity given");
    if (rc == 0 && ov->jump != NULL && sc_parse_jump(c, ov->jump, true) != 0)
        rc = err_set(c->e, NS_EINVAL, "bad jump host '%s' (expected [user@]host[:port][,...])",
                     ov->jump);
    if (rc == 0 && ov->known_hosts != NULL && sc_strv_push(&o->ukh, ov->known_hosts, (size_t)-1))
        rc = oom(c);
    if (rc == 0 && ov->known_hosts != NULL && (o->ukh_at = strdup("the known_hosts given")) == NULL)
        rc = oom(c);
    return rc;
}

/* process_config_files(): the -F file alone, or the user's then the system's. */
static int
read_pass(struct sc_ctx *c)
{
    int active = 1, oe = 0, r;
    if (c->config != NULL) {
        if (strcasecmp(c->config, "none") == 0)
            return 0;
        r = sc_read_file(c, c->config, SC_F_USERCONF, &active, 0, &oe);
        if (r == 0)
            return err_set(c->e, NS_EIO, "cannot open config file %s: %s", c->config, strerror(oe));
        return r < 0 ? r : 0;
    }
    char path[4200];
    snprintf(path, sizeof path, "%s/.ssh/config", c->home);
    r = sc_read_file(c, path, SC_F_USERCONF | SC_F_CHECKPERM, &active, 0, &oe);
    if (r < 0)
        return r;
    active = 1;
    r = sc_read_file(c, c->system_config, 0, &active, 0, &oe);
    return r < 0 ? r : 0;
}

/* ssh.c after the first pass: HostName's %h expanded, lower-cased unless an address, an
 * address written canonically. c->host becomes it for the final pass. */
static int
settle_hostname(struct sc_ctx *c)
{
    struct sc_opts *o = &c->o;
    char *host = NULL, why[200];
    if (o->hostname != NULL) {
        struct sc_token t = {'h', c->host};
        if (sc_expand(o->hostname, false, true, &t, 1, &host, why, sizeof why) != 0)
            return err_set(c->e, NS_EPARSE, "%s: HostName '%.100s': %s", o->hostname_at,
                           o->hostname, why);
    } else if ((host = strdup(c->host)) == NULL) {
        return oom(c);
    }
    bool was_addr = sc_is_addr(host);
    if (!was_addr)
        sc_lowercase(host);
    if (o->canonicalize == -1)
        o->canonicalize = 0;
    char *ca = o->canonicalize != 0 || was_addr ? sc_canonical_addr(host) : NULL;
    if (ca != NULL && strcasecmp(ca, host) != 0) {
        free(host);
        host = ca;
    } else {
        free(ca);
    }
    free(o->hostname);
    o->hostname = host;
    if (o->canonicalize != 0)
        c->want_final = true;
    return 0;
}

static int
final_pass(struct sc_ctx *c)
{
    free(c->host);
    if ((c->host = strdup(c->o.hostname)) == NULL)
        return oom(c);
    c->final_pass = true;
    return read_pass(c);
}

/* OpenSSH's identities when no IdentityFile is given, in its order. */
static int
add_default_identities(struct sc_ctx *c)
{
    static const char *const ids[] = {
        "~/.ssh/id_rsa",        "~/.ssh/id_ecdsa", "~/.ssh/id_ecdsa_sk", "~/.ssh/id_ed25519",
        "~/.ssh/id_ed25519_sk", "~/.ssh/id_xmss",  "~/.ssh/id_dsa"};
    int rc = 0;
    for (size_t i = 0; i < sizeof ids / sizeof ids[0] && rc == 0; i++)
        rc = sc_add_identity(c, ids[i], false, "default");
    return rc;
}

static int
push2(struct sc_strv *sv, const char *a, const char *b)
{
    return sc_strv_push(sv, a, (size_t)-1) != 0 || sc_strv_push(sv, b, (size_t)-1) != 0 ? -1 : 0;
}

/* fill_default_options() and the checks of ssh.c main() that concern these values. */
static int
fill_defaults(struct sc_ctx *c)
{
    struct sc_opts *o = &c->o;
    int rc = o->ids.n == 0 ? add_default_identities(c) : 0;
    if (rc != 0)
        return rc;
    if (o->ukh.n == 0 && push2(&o->ukh, "~/.ssh/known_hosts", "~/.ssh/known_hosts2") != 0)
        return oom(c);
    if (o->gkh.n == 0 &&
        push2(&o->gkh, "/etc/ssh/ssh_known_hosts", "/etc/ssh/ssh_known_hosts2") != 0)
        return oom(c);
    if (o->identities_only == -1)
        o->identities_only = 0;
    if (o->user == NULL && (o->user = strdup(c->local_user)) == NULL)
        return oom(c);
    if (o->jump_host != NULL && strcmp(o->jump_host, "none") == 0 && o->jump_port == 0 &&
        o->jump_user == NULL) {
        free(o->jump_host);
        o->jump_host = NULL;
    }
    if (o->proxy_command != NULL && strcasecmp(o->proxy_command, "none") == 0) {
        free(o->proxy_command);
        o->proxy_command = NULL;
    }
    if (o->port <= 0)
        o->port = 22;
    if (o->host_key_alias != NULL)
        sc_lowercase(o->host_key_alias);
    return 0;
}

static int
check_jump_loop(struct sc_ctx *c)
{
    struct sc_opts *o = &c->o;
    if (o->jump_host == NULL)
        return 0;
    int jport = o->jump_port <= 0 ? 22 : o->jump_port;
    const char *juser = o->jump_user != NULL ? o->jump_user : o->user;
    if (strcmp(o->jump_host, o->hostname) == 0 && o->port == jport && strcmp(o->user, juser) == 0)
        return err_set(c->e, NS_EINVAL, "jumphost loop via %s", o->jump_host);
    return 0;
}

/* --- the result --------------------------------------------------------------------------- */

struct cinfo {
    char port[16], hash[41];
    struct sc_token t[11];
};

/* DEFAULT_CLIENT_PERCENT_EXPAND_ARGS of sshconnect.h: the tokens of IdentityFile,
 * UserKnownHostsFile, IdentityAgent. */
static void
cinfo_init(struct sc_ctx *c, struct cinfo *ci)
{
    struct sc_opts *o = &c->o;
    snprintf(ci->port, sizeof ci->port, "%d", o->port);
    size_t n = strlen(c->this_host) + strlen(o->hostname) + strlen(ci->port) + strlen(o->user);
    char *buf = malloc(n + 1);
    if (buf != NULL) {
        snprintf(buf, n + 1, "%s%s%s%s", c->this_host, o->hostname, ci->port, o->user);
        sc_sha1_hex(buf, n, ci->hash);
    } else {
        snprintf(ci->hash, sizeof ci->hash, "%s", "");
    }
    free(buf);
    const char *alias = o->host_key_alias != NULL ? o->host_key_alias : c->host_arg;
    struct sc_token t[11] = {{'C', ci->hash}, {'L', c->short_host}, {'i', c->uid},
                             {'k', alias},    {'l', c->this_host},  {'n', c->host_arg},
                             {'p', ci->port}, {'d', c->home},       {'h', o->hostname},
                             {'r', o->user},  {'u', c->local_user}};
    memcpy(ci->t, t, sizeof t);
}

/* tilde_expand_filename() then default_client_percent_dollar_expand(). */
static int
expand_path(struct sc_ctx *c, const struct cinfo *ci, const char *raw, const char *what,
            const char *at, char **out)
{
    char *tmp = NULL, why[200];
    *out = NULL;
    int rc = sc_tilde(raw, c->home, &tmp, why, sizeof why);
    if (rc == 0)
        rc = sc_expand(tmp, true, true, ci->t, 11, out, why, sizeof why);
    free(tmp);
    if (rc != 0)
        return err_set(c->e, NS_EPARSE, "%s: %s '%.100s': %s", at != NULL ? at : "config", what,
                       raw, why);
    return 0;
}

static int
dup_list(char ***dst, size_t *n, const struct sc_strv *src)
{
    *n = 0;
    *dst = calloc(src->n + 1, sizeof **dst);
    if (*dst == NULL)
        return -1;
    for (size_t i = 0; i < src->n; i++) {
        if (((*dst)[i] = strdup(src->v[i])) == NULL)
            return -1;
        *n = i + 1;
    }
    return 0;
}

static int
take_list(char ***dst, size_t *n, struct sc_strv *src)
{
    if (src->v == NULL)
        return dup_list(dst, n, src);
    *dst = src->v;
    *n = src->n;
    src->v = NULL;
    src->n = src->cap = 0;
    return 0;
}

static int
result_identities(struct sc_ctx *c, const struct cinfo *ci, struct transport_sshconfig *r)
{
    struct sc_strv paths = {0};
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < c->o.ids.n; i++) {
        if (strcasecmp(c->o.ids.v[i], "none") == 0)
            continue;
        char *p = NULL;
        rc = expand_path(c, ci, c->o.ids.v[i], "IdentityFile", c->o.ids_at.v[i], &p);
        if (rc == 0 && sc_strv_push(&paths, p, (size_t)-1) != 0)
            rc = oom(c);
        free(p);
    }
    if (rc == 0 && (dup_list(&r->identity_files, &r->n_identity_files, &c->o.ids) != 0 ||
                    take_list(&r->identity_paths, &r->n_identity_paths, &paths) != 0))
        rc = oom(c);
    sc_strv_release(&paths);
    return rc;
}

/* UserKnownHostsFile (tokens too) or GlobalKnownHostsFile ("~" only): "none" is no file. */
static int
result_hostfiles(struct sc_ctx *c, const struct cinfo *ci, struct sc_strv *list, bool tokens,
                 const char *what, char ***dst, size_t *n)
{
    struct sc_strv out = {0};
    int rc = 0;
    if (list->n > 0 && strcasecmp(list->v[0], "none") == 0) {
        if (list->n > 1)
            return err_set(c->e, NS_EPARSE, "invalid %s: \"none\" appears with other entries",
                           what);
        return take_list(dst, n, &out);
    }
    for (size_t i = 0; rc == 0 && i < list->n; i++) {
        char *p = NULL, why[200];
        if (tokens)
            rc = expand_path(c, ci, list->v[i], what, c->o.ukh_at, &p);
        else if (sc_tilde(list->v[i], c->home, &p, why, sizeof why) != 0)
            rc = err_set(c->e, NS_EPARSE, "%s '%s': %s", what, list->v[i], why);
        if (rc == 0 && sc_strv_push(&out, p, (size_t)-1) != 0)
            rc = oom(c);
        free(p);
    }
    if (rc == 0 && take_list(dst, n, &out) != 0)
        rc = oom(c);
    sc_strv_release(&out);
    return rc;
}

static bool
numeric_host(const char *h)
{
    return strchr(h, ':') != NULL || strspn(h, "1234567890.") == strlen(h);
}

/* ProxyJump as dump_client_config() prints it: the hops before as written, the last rebuilt. */
static int
result_jump(struct sc_ctx *c, struct transport_sshconfig *r)
{
    struct sc_opts *o = &c->o;
    struct sc_strv hops = {0};
    if (o->jump_host == NULL)
        return take_list(&r->proxy_jump, &r->n_proxy_jump, &hops) != 0 ? oom(c) : 0;
    int rc = 0;
    for (const char *p = o->jump_extra; rc == 0 && p != NULL;) {
        const char *comma = strchr(p, ',');
        size_t len = comma != NULL ? (size_t)(comma - p) : strlen(p);
        rc = sc_strv_push(&hops, p, len);
        p = comma != NULL ? comma + 1 : NULL;
    }
    char last[1200], port[16] = "";
    bool br = numeric_host(o->jump_host);
    if (o->jump_port > 0)
        snprintf(port, sizeof port, ":%d", o->jump_port);
    snprintf(last, sizeof last, "%s%s%s%s%s%s", o->jump_user != NULL ? o->jump_user : "",
             o->jump_user != NULL ? "@" : "", br ? "[" : "", o->jump_host, br ? "]" : "", port);
    if (rc == 0)
        rc = sc_strv_push(&hops, last, (size_t)-1);
    if (rc == 0)
        rc = take_list(&r->proxy_jump, &r->n_proxy_jump, &hops);
    sc_strv_release(&hops);
    if (rc != 0)
        return oom(c);
    r->jump_user = o->jump_user;
    r->jump_host = o->jump_host;
    r->jump_rest = o->jump_extra;
    r->jump_port = o->jump_port > 0 ? (unsigned)o->jump_port : 0;
    o->jump_user = o->jump_host = o->jump_extra = NULL;
    return 0;
}

static int
result_agent(struct sc_ctx *c, const struct cinfo *ci, struct transport_sshconfig *r)
{
    if (c->o.identity_agent == NULL)
        return 0;
    return expand_path(c, ci, c->o.identity_agent, "IdentityAgent", c->o.agent_at,
                       &r->identity_agent);
}

static int
build_result(struct sc_ctx *c, struct transport_sshconfig *r)
{
    struct sc_opts *o = &c->o;
    struct cinfo ci;
    cinfo_init(c, &ci);
    r->port = (unsigned)o->port;
    r->connect_timeout_s = o->connect_timeout;
    r->identities_only = o->identities_only == 1;
    if ((r->host_arg = strdup(c->host_arg)) == NULL)
        return oom(c);
    int rc = result_identities(c, &ci, r);
    if (rc == 0)
        rc = result_hostfiles(c, &ci, &o->ukh, true, "UserKnownHostsFile", &r->known_hosts_files,
                              &r->n_known_hosts_files);
    if (rc == 0)
        rc = result_hostfiles(c, &ci, &o->gkh, false, "GlobalKnownHostsFile",
                              &r->global_known_hosts_files, &r->n_global_known_hosts_files);
    if (rc == 0)
        rc = result_agent(c, &ci, r);
    if (rc == 0)
        rc = result_jump(c, r);
    if (rc != 0)
        return rc;
    r->hostname = o->hostname;
    r->user = o->user;
    r->host_key_alias = o->host_key_alias;
    o->hostname = o->user = o->host_key_alias = NULL;
    r->n_warnings_dropped = c->dropped;
    return take_list(&r->warnings, &r->n_warnings, &c->warnings) != 0 ? oom(c) : 0;
}

static void
opts_release(struct sc_opts *o)
{
    char **s[] = {&o->user,           &o->hostname,        &o->host_key_alias,
                  &o->identity_agent, &o->ignored_unknown, &o->proxy_command,
                  &o->jump_user,      &o->jump_host,       &o->jump_extra,
                  &o->hostname_at,    &o->ukh_at,          &o->agent_at};
    for (size_t i = 0; i < sizeof s / sizeof s[0]; i++) {
        free(*s[i]);
        *s[i] = NULL;
    }
    sc_strv_release(&o->ids);
    sc_strv_release(&o->ids_at);
    sc_strv_release(&o->ukh);
    sc_strv_release(&o->gkh);
}

static void
ctx_release(struct sc_ctx *c)
{
    opts_release(&c->o);
    sc_strv_release(&c->warnings);
    sc_strv_release(&c->warned);
    free(c->host);
    free(c);
}

/* What a hop of a chain adds in front of its own: the caller's identity and known_hosts. */
struct hop_extra {
    const char *identity;
    const char *known_hosts;
};

/* The caller's known_hosts file in front of the hop's own ("none" among those is dropped). */
static int
hop_known_hosts(struct sc_ctx *c, const char *first)
{
    struct sc_strv k = {0};
    int rc = sc_strv_push(&k, first, (size_t)-1);
    for (size_t i = 0; rc == 0 && i < c->o.ukh.n; i++)
        if (strcmp(c->o.ukh.v[i], first) != 0 && strcasecmp(c->o.ukh.v[i], "none") != 0)
            rc = sc_strv_push(&k, c->o.ukh.v[i], (size_t)-1);
    sc_strv_release(&c->o.ukh);
    c->o.ukh = k;
    return rc != 0 ? oom(c) : 0;
}

static int
resolve(const struct transport_sshconfig_env *env, const char *host,
        const struct transport_sshconfig_override *ov, const struct hop_extra *hx,
        struct transport_sshconfig **out, struct err *e)
{
    static const struct transport_sshconfig_env none = {0};
    *out = NULL;
    if (host == NULL || *host == '\0')
        return err_set(e, NS_EINVAL, "empty host name");
    struct sc_ctx *c = calloc(1, sizeof *c);
    struct transport_sshconfig *r = calloc(1, sizeof *r);
    if (c == NULL || r == NULL) {
        free(c);
        free(r);
        return err_set(e, NS_ENOMEM, "out of memory");
    }
    c->e = e;
    c->o.port = c->o.jump_port = c->o.connect_timeout = -1;
    c->o.identities_only = c->o.canonicalize = -1;
    c->host_arg = host;
    int rc = (c->host = strdup(host)) == NULL ? oom(c) : env_init(c, env != NULL ? env : &none);
    if (rc == 0 && hx != NULL && hx->identity != NULL)
        rc = sc_add_identity(c, hx->identity, true, "the identity given");
    if (rc == 0)
        rc = apply_overrides(c, ov);
    if (rc == 0)
        rc = read_pass(c);
    if (rc == 0)
        rc = settle_hostname(c);
    if (rc == 0 && c->want_final)
        rc = final_pass(c);
    /* a hop's own identities follow the caller's (which do not replace ssh's defaults) */
    if (rc == 0 && hx != NULL && hx->identity != NULL && c->o.ids.n == 1)
        rc = add_default_identities(c);
    if (rc == 0)
        rc = fill_defaults(c);
    if (rc == 0 && hx != NULL && hx->known_hosts != NULL)
        rc = hop_known_hosts(c, hx->known_hosts);
    if (rc == 0)
        rc = check_jump_loop(c);
    if (rc == 0)
        rc = build_result(c, r);
    ctx_release(c);
    if (rc != 0) {
        transport_sshconfig_free(r);
        return rc;
    }
    *out = r;
    return 0;
}

int
transport_sshconfig_resolve(const struct transport_sshconfig_env *env, const char *host,
                            const struct transport_sshconfig_override *ov,
                            struct transport_sshconfig **out, struct err *e)
{
    return resolve(env, host, ov, NULL, out, e);
}

static void
free_list(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

void
transport_sshconfig_free(struct transport_sshconfig *c)
{
    if (c == NULL)
        return;
    free(c->host_arg);
    free(c->hostname);
    free(c->user);
    free_list(c->identity_files, c->n_identity_files);
    free_list(c->identity_paths, c->n_identity_paths);
    free_list(c->known_hosts_files, c->n_known_hosts_files);
    free_list(c->global_known_hosts_files, c->n_global_known_hosts_files);
    free_list(c->proxy_jump, c->n_proxy_jump);
    free_list(c->warnings, c->n_warnings);
    free(c->jump_user);
    free(c->jump_host);
    free(c->jump_rest);
    free(c->host_key_alias);
    free(c->identity_agent);
    free(c);
}

void
transport_sshconfig_env_init(struct transport_sshconfig_env *env, const char *config)
{
    memset(env, 0, sizeof *env);
    env->config = config != NULL ? config : getenv(TRANSPORT_SSHCONFIG_ENV_VAR);
    if (env->config != NULL && *env->config == '\0')
        env->config = NULL;
}

const char *
transport_sshconfig_agent(const struct transport_sshconfig *c)
{
    const char *a = c->identity_agent;
    if (a == NULL || strcmp(a, "SSH_AUTH_SOCK") == 0)
        return getenv("SSH_AUTH_SOCK");
    if (strcmp(a, "none") == 0)
        return NULL;
    if (a[0] == '$' && a[1] != '{')
        return getenv(a + 1);
    return a;
}

/* --- chains ------------------------------------------------------------------------------- */

static int
chain_push_front(struct transport_sshconfig_chain *ch, struct transport_sshconfig *h)
{
    struct transport_sshconfig **v = realloc(ch->hop, (ch->n + 1) * sizeof *v);
    if (v == NULL)
        return -1;
    memmove(v + 1, v, ch->n * sizeof *v);
    v[0] = h;
    ch->hop = v;
    ch->n++;
    return 0;
}

int
transport_sshconfig_resolve_chain(const struct transport_sshconfig_env *env, const char *host,
                                  const struct transport_sshconfig_override *ov,
                                  struct transport_sshconfig_chain *out, struct err *e)
{
    struct transport_sshconfig *t = NULL;
    out->hop = NULL;
    out->n = 0;
    int rc = resolve(env, host, ov, NULL, &t, e);
    if (rc == 0 && chain_push_front(out, t) != 0) {
        transport_sshconfig_free(t);
        rc = err_set(e, NS_ENOMEM, "out of memory");
    }
    struct hop_extra hx = {ov != NULL ? ov->identity : NULL, ov != NULL ? ov->known_hosts : NULL};
    while (rc == 0 && out->hop[0]->jump_host != NULL) {
        const struct transport_sshconfig *next = out->hop[0];
        if (out->n > TRANSPORT_SSHCONFIG_HOPS_MAX) {
            rc = err_set(e, NS_ETOOBIG, "%s: more than %d jump hosts (a ProxyJump loop?)", host,
                         TRANSPORT_SSHCONFIG_HOPS_MAX);
            break;
        }
        struct transport_sshconfig_override hov = {
            .user = next->jump_user, .port = next->jump_port, .jump = next->jump_rest};
        struct transport_sshconfig *h = NULL;
        rc = resolve(env, next->jump_host, &hov, &hx, &h, e);
        if (rc != 0)
            err_prefix(e, "jump host %s of %s", next->jump_host, next->host_arg);
        else if (chain_push_front(out, h) != 0) {
            transport_sshconfig_free(h);
            rc = err_set(e, NS_ENOMEM, "out of memory");
        }
    }
    if (rc != 0)
        transport_sshconfig_chain_release(out);
    return rc;
}

void
transport_sshconfig_chain_release(struct transport_sshconfig_chain *ch)
{
    for (size_t i = 0; i < ch->n; i++)
        transport_sshconfig_free(ch->hop[i]);
    free(ch->hop);
    ch->hop = NULL;
    ch->n = 0;
}
