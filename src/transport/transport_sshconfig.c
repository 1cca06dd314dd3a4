/* transport_sshconfig.c - a host and its jump hops from the operator's `ssh -G`, and what ssh
 * does after it: IdentityFile expanded, known_hosts files, warnings. See transport_sshconfig.h. */
#include "transport/transport_sshconfig.h"

#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "common/array.h"
#include "common/sshg.h"

/* --- a growable vector of malloc'd strings ------------------------------------------------- */

struct strv {
    char **v;
    size_t n, cap;
};

/* Append a copy of len bytes of s ((size_t)-1: all of it). 0, or -1 when out of memory. */
static int
strv_push(struct strv *sv, const char *s, size_t len)
{
    if (len == (size_t)-1)
        len = strlen(s);
    char *c = strndup(s, len);
    if (c == NULL || ARRAY_GROW(&sv->v, &sv->cap, sv->n + 1) != 0) {
        free(c);
        return -1;
    }
    sv->v[sv->n++] = c;
    return 0;
}

static void
strv_release(struct strv *sv)
{
    for (size_t i = 0; i < sv->n; i++)
        free(sv->v[i]);
    free(sv->v);
    *sv = (struct strv){0};
}

/* sv's strings handed to *dst, *n (an empty array, not NULL, when there are none). */
static int
strv_take(struct strv *sv, char ***dst, size_t *n)
{
    if (sv->v == NULL && (sv->v = calloc(1, sizeof *sv->v)) == NULL)
        return -1;
    *dst = sv->v;
    *n = sv->n;
    *sv = (struct strv){0};
    return 0;
}

static bool
strv_has(const struct strv *sv, const char *s)
{
    for (size_t i = 0; i < sv->n; i++)
        if (strcmp(sv->v[i], s) == 0)
            return true;
    return false;
}

/* --- the command line of one query ---------------------------------------------------------- */

#define QARGS_MAX 14

/* The options of `ssh -G OPTIONS -- host`, borrowed from the env and override but for the
 * buffers here. */
struct qargs {
    const char *v[QARGS_MAX + 1];
    size_t n;
    char port[16];
    char known_hosts[4200];
    char control_path[4200];
};

/* "Key=\"value\"" quoted for ssh's argv_split (a '\\' or '"' escaped): -o takes a config line.
 * -1 when it does not fit. */
static int
quote_option(char *dst, size_t len, const char *key, const char *val)
{
    size_t o = (size_t)snprintf(dst, len, "%s=\"", key);
    for (const char *p = val; o < len && *p != '\0'; p++) {
        if ((*p == '\\' || *p == '"') && o + 1 < len)
            dst[o++] = '\\';
        dst[o++] = *p;
    }
    if (o + 2 > len)
        return -1;
    dst[o++] = '"';
    dst[o] = '\0';
    return 0;
}

static int
qargs_init(struct qargs *q, const struct transport_sshconfig_env *env,
           const struct transport_sshconfig_override *ov, struct err *e)
{
    memset(q, 0, sizeof *q);
    if (env->config != NULL)
        q->v[q->n++] = "-F", q->v[q->n++] = env->config;
    if (ov == NULL)
        return 0;
    if (ov->user != NULL && *ov->user == '\0')
        return err_set(e, NS_EINVAL, "empty user");
    if (ov->user != NULL)
        q->v[q->n++] = "-l", q->v[q->n++] = ov->user;
    if (ov->port > 65535)
        return err_set(e, NS_EINVAL, "port %u out of range", ov->port);
    if (ov->port != 0) {
        snprintf(q->port, sizeof q->port, "%u", ov->port);
        q->v[q->n++] = "-p", q->v[q->n++] = q->port;
    }
    if (ov->identity != NULL && *ov->identity != '\0')
        q->v[q->n++] = "-i", q->v[q->n++] = ov->identity;
    if (ov->jump != NULL && *ov->jump != '\0')
        q->v[q->n++] = "-J", q->v[q->n++] = ov->jump;
    if (ov->known_hosts != NULL) {
        if (quote_option(q->known_hosts, sizeof q->known_hosts, "UserKnownHostsFile",
                         ov->known_hosts) != 0)
            return err_set(e, NS_EINVAL, "known_hosts path too long");
        q->v[q->n++] = "-o", q->v[q->n++] = q->known_hosts;
    }
    return 0;
}

/* --- one resolution ------------------------------------------------------------------------- */

struct res {
    struct sshg *g;
    const struct transport_sshconfig_env *env;
    const struct transport_sshconfig_override *ov;
    struct qargs q;
    const char *host;
    const struct sshg_answer *a;
    struct transport_sshconfig *r;
    struct strv warnings;
    struct err *e;
};

static int
oom(struct res *c)
{
    return err_set(c->e, NS_ENOMEM, "out of memory");
}

/* "~/x" as ssh's tilde_expand_filename makes it: the passwd home (not $HOME), '/', x. */
static int
tilde_home(struct res *c, const char *raw, char **out)
{
    struct passwd pw, *res = NULL;
    char buf[4096];
    if (getpwuid_r(getuid(), &pw, buf, sizeof buf, &res) != 0 || res == NULL)
        return err_set(c->e, NS_ENOTFOUND, "%s: no passwd entry for uid %lu", raw,
                       (unsigned long)getuid());
    size_t hl = strlen(pw.pw_dir);
    const char *slash = hl == 0 || pw.pw_dir[hl - 1] != '/' ? "/" : "";
    size_t n = hl + strlen(raw) + 2;
    if ((*out = malloc(n)) == NULL)
        return oom(c);
    snprintf(*out, n, "%s%s%s", pw.pw_dir, slash, raw + 2);
    return 0;
}

/* An IdentityFile as ssh loads it. ssh -G prints it unexpanded; what needs more than the home
 * (%tokens, ${VAR}, ~user, "~" alone) is expanded by ssh itself, asked again with the path as
 * its ControlPath: ssh expands both with the same function and the same tokens. */
static int
identity_path(struct res *c, const char *raw, char **out)
{
    *out = NULL;
    bool home = raw[0] == '~' && raw[1] == '/';
    if (strpbrk(raw, "%$") == NULL && (raw[0] != '~' || home))
        return home ? tilde_home(c, raw, out) : ((*out = strdup(raw)) == NULL ? oom(c) : 0);
    struct qargs q;
    int rc = qargs_init(&q, c->env, c->ov, c->e);
    if (rc != 0)
        return rc;
    if (quote_option(q.control_path, sizeof q.control_path, "ControlPath", raw) != 0)
        return err_set(c->e, NS_EINVAL, "IdentityFile '%.100s': too long", raw);
    q.v[q.n++] = "-o";
    q.v[q.n++] = q.control_path;
    q.v[q.n] = NULL;
    const struct sshg_answer *a = NULL;
    if (sshg_query(c->g, q.v, c->host, &a, c->e) != 0)
        return err_prefix(c->e, "IdentityFile '%.100s'", raw);
    const char *p = sshg_value(a, "controlpath");
    if (p == NULL)
        return err_set(c->e, NS_EPARSE, "IdentityFile '%.100s': ssh -G did not expand it", raw);
    return (*out = strdup(p)) == NULL ? oom(c) : 0;
}

static int
read_identities(struct res *c)
{
    struct strv files = {0}, paths = {0};
    int rc = 0;
    size_t pos = 0;
    for (const char *f; rc == 0 && (f = sshg_next(c->a, "identityfile", &pos)) != NULL;) {
        char *p = NULL;
        if (strv_push(&files, f, (size_t)-1) != 0)
            rc = oom(c);
        else if (strcasecmp(f, "none") != 0 && (rc = identity_path(c, f, &p)) == 0 &&
                 strv_push(&paths, p, (size_t)-1) != 0)
            rc = oom(c);
        free(p);
    }
    struct transport_sshconfig *r = c->r;
    if (rc == 0 && (strv_take(&files, &r->identity_files, &r->n_identity_files) != 0 ||
                    strv_take(&paths, &r->identity_paths, &r->n_identity_paths) != 0))
        rc = oom(c);
    strv_release(&files);
    strv_release(&paths);
    return rc;
}

/* A list ssh -G prints on one line, split at ' ' ("none": empty); "~/" expanded when asked. */
static int
read_list(struct res *c, const char *key, bool tilde, char ***dst, size_t *n)
{
    struct strv out = {0};
    const char *v = sshg_value(c->a, key);
    int rc = 0;
    if (v != NULL && strcmp(v, "none") == 0)
        v = NULL;
    for (const char *p = v; rc == 0 && p != NULL && *p != '\0';) {
        size_t len = strcspn(p, " ");
        char *one = strndup(p, len), *x = NULL;
        if (one == NULL)
            rc = oom(c);
        else if (tilde && one[0] == '~' && one[1] == '/')
            rc = tilde_home(c, one, &x);
        if (rc == 0 && strv_push(&out, x != NULL ? x : one, (size_t)-1) != 0)
            rc = oom(c);
        free(one);
        free(x);
        p += len + strspn(p + len, " ");
    }
    if (rc == 0 && strv_take(&out, dst, n) != 0)
        rc = oom(c);
    strv_release(&out);
    return rc;
}

/* The last hop of "a,b,[user@]host[:port]" (ssh -G brackets a numeric host) into r->jump_*. */
static int
read_jump_last(struct res *c, const char *last)
{
    struct transport_sshconfig *r = c->r;
    const char *at = strrchr(last, '@'), *h = at != NULL ? at + 1 : last;
    const char *end, *colon;
    if (*h == '[') {
        end = strchr(h, ']');
        if (end == NULL)
            return err_set(c->e, NS_EPARSE, "ssh -G printed proxyjump '%s'", last);
        colon = end[1] == ':' ? end + 1 : NULL;
        h++;
    } else {
        colon = strchr(h, ':');
        end = colon != NULL ? colon : h + strlen(h);
    }
    if (end == h)
        return err_set(c->e, NS_EPARSE, "ssh -G printed proxyjump '%s'", last);
    if (colon != NULL) {
        char *stop;
        unsigned long port = strtoul(colon + 1, &stop, 10);
        if (*stop != '\0' || port == 0 || port > 65535)
            return err_set(c->e, NS_EPARSE, "ssh -G printed proxyjump '%s'", last);
        r->jump_port = (unsigned)port;
    }
    r->jump_host = strndup(h, (size_t)(end - h));
    if (at != NULL)
        r->jump_user = strndup(last, (size_t)(at - last));
    return r->jump_host == NULL || (at != NULL && r->jump_user == NULL) ? oom(c) : 0;
}

static int
read_jump(struct res *c)
{
    struct transport_sshconfig *r = c->r;
    struct strv hops = {0};
    const char *v = sshg_value(c->a, "proxyjump");
    int rc = 0;
    for (const char *p = v; rc == 0 && p != NULL;) {
        const char *comma = strchr(p, ',');
        rc =
            strv_push(&hops, p, comma != NULL ? (size_t)(comma - p) : (size_t)-1) != 0 ? oom(c) : 0;
        p = comma != NULL ? comma + 1 : NULL;
    }
    if (rc == 0 && hops.n > 0)
        rc = read_jump_last(c, hops.v[hops.n - 1]);
    const char *last_comma = v != NULL ? strrchr(v, ',') : NULL;
    if (rc == 0 && last_comma != NULL &&
        (r->jump_rest = strndup(v, (size_t)(last_comma - v))) == NULL)
        rc = oom(c);
    if (rc == 0 && strv_take(&hops, &r->proxy_jump, &r->n_proxy_jump) != 0)
        rc = oom(c);
    strv_release(&hops);
    return rc;
}

static int
dup_value(struct res *c, const char *key, char **dst)
{
    const char *v = sshg_value(c->a, key);
    if (v == NULL)
        return 0;
    return (*dst = strdup(v)) == NULL ? oom(c) : 0;
}

/* ServerAliveInterval and ServerAliveCountMax (ssh -G prints both, 0 and 3 when unset). */
static int
read_alive(struct res *c)
{
    static const char *const keys[2] = {"serveraliveinterval", "serveralivecountmax"};
    int *dst[2] = {&c->r->server_alive_interval_s, &c->r->server_alive_count_max};
    static const int unset[2] = {0, 3};
    for (int i = 0; i < 2; i++) {
        const char *v = sshg_value(c->a, keys[i]);
        char *end = NULL;
        long n = v != NULL ? strtol(v, &end, 10) : unset[i];
        if (v != NULL && (*end != '\0' || end == v || n < 0 || n > 86400))
            return err_set(c->e, NS_EPARSE, "ssh -G printed %s '%s'", keys[i], v);
        *dst[i] = (int)n;
    }
    return 0;
}

static int
read_scalars(struct res *c)
{
    struct transport_sshconfig *r = c->r;
    const char *port = sshg_value(c->a, "port"), *ct = sshg_value(c->a, "connecttimeout");
    const char *io = sshg_value(c->a, "identitiesonly");
    if (sshg_value(c->a, "hostname") == NULL || sshg_value(c->a, "user") == NULL || port == NULL)
        return err_set(c->e, NS_EPARSE, "ssh -G printed no hostname, user or port");
    char *end;
    unsigned long p = strtoul(port, &end, 10);
    if (*end != '\0' || p == 0 || p > 65535)
        return err_set(c->e, NS_EPARSE, "ssh -G printed port '%s'", port);
    r->port = (unsigned)p;
    long t = ct != NULL && strcmp(ct, "none") != 0 ? strtol(ct, &end, 10) : -1;
    if (t != -1 && (*end != '\0' || t < 0 || t > 86400 * 365))
        return err_set(c->e, NS_EPARSE, "ssh -G printed connecttimeout '%s'", ct);
    r->connect_timeout_s = (int)t;
    int rc = read_alive(c);
    if (rc != 0)
        return rc;
    r->identities_only = io != NULL && strcmp(io, "yes") == 0;
    rc = dup_value(c, "hostname", &r->hostname);
    if (rc == 0)
        rc = dup_value(c, "user", &r->user);
    if (rc == 0)
        rc = dup_value(c, "hostkeyalias", &r->host_key_alias);
    if (rc == 0)
        rc = dup_value(c, "identityagent", &r->identity_agent);
    return rc;
}

/* --- warnings ------------------------------------------------------------------------------- */

/* An option netsurvey does not follow, and the values (comma-separated; NULL: none) with which
 * that changes nothing. */
struct advice {
    const char *key; /* as ssh -G prints it */
    const char *fine;
    const char *msg;
};

static const struct advice advice[] = {
    {"proxycommand", "none",
     "ProxyCommand is not run: netsurvey dials the host itself (ProxyJump is followed)"},
    {"stricthostkeychecking", "true,yes,ask",
     "StrictHostKeyChecking is not followed: an unknown host key is refused unless "
     "--accept-new-host-keys, a changed one always"},
    {"knownhostscommand", "none",
     "KnownHostsCommand is not run: host keys are checked against the known_hosts files only"},
    {"revokedhostkeys", "none", "RevokedHostKeys is not checked"},
    {"verifyhostkeydns", "false,no", "VerifyHostKeyDNS (SSHFP records) is not used"},
    {"certificatefile", "none",
     "CertificateFile is not used: only keys (IdentityFile, the agent) are offered"},
    {"pkcs11provider", "none", "PKCS#11 keys are not used"},
    {"securitykeyprovider", "internal,none", "SecurityKeyProvider is not used"},
    {"pubkeyauthentication", "true,yes,unbound,host-bound",
     "PubkeyAuthentication is not followed: netsurvey authenticates with keys only"},
    {"bindaddress", NULL, "BindAddress is not applied"},
    {"bindinterface", NULL, "BindInterface is not applied"},
    {"addressfamily", "any", "AddressFamily is not applied"},
};

/* Algorithm lists, by ssh -G's key and the keyword's name. */
static const char *const algorithms[][2] = {
    {"ciphers", "Ciphers"},
    {"macs", "MACs"},
    {"kexalgorithms", "KexAlgorithms"},
    {"hostkeyalgorithms", "HostKeyAlgorithms"},
    {"casignaturealgorithms", "CASignatureAlgorithms"},
    {"pubkeyacceptedalgorithms", "PubkeyAcceptedAlgorithms"},
};

static bool
in_list(const char *v, const char *list)
{
    size_t n = strlen(v);
    for (const char *p = list; p != NULL && *p != '\0';) {
        size_t k = strcspn(p, ",");
        if (k == n && strncasecmp(p, v, n) == 0)
            return true;
        p += k + (p[k] == ',');
    }
    return false;
}

static int
warn(struct res *c, const char *msg)
{
    if (strv_has(&c->warnings, msg))
        return 0;
    return strv_push(&c->warnings, msg, (size_t)-1) != 0 ? oom(c) : 0;
}

/* The lists that differ from this ssh's own defaults (`ssh -G -F none`): libssh negotiates
 * its own. No warning when the defaults cannot be had. */
static int
warn_algorithms(struct res *c)
{
    static const char *const none[] = {"-F", "none", NULL};
    const struct sshg_answer *d = NULL;
    struct err ignored = {0};
    if (sshg_query(c->g, none, "netsurvey.invalid", &d, &ignored) != 0)
        return 0;
    char names[256] = "";
    for (size_t i = 0; i < sizeof algorithms / sizeof algorithms[0]; i++) {
        const char *mine = sshg_value(c->a, algorithms[i][0]);
        const char *dflt = sshg_value(d, algorithms[i][0]);
        if (mine != NULL && dflt != NULL && strcmp(mine, dflt) != 0)
            snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s",
                     names[0] != '\0' ? ", " : "", algorithms[i][1]);
    }
    if (names[0] == '\0')
        return 0;
    char msg[400];
    snprintf(msg, sizeof msg, "algorithm lists are not applied (%s): libssh negotiates its own",
             names);
    return warn(c, msg);
}

static int
read_warnings(struct res *c)
{
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < sizeof advice / sizeof advice[0]; i++) {
        const char *v = sshg_value(c->a, advice[i].key);
        if (v != NULL && (advice[i].fine == NULL || !in_list(v, advice[i].fine)))
            rc = warn(c, advice[i].msg);
    }
    if (rc == 0)
        rc = warn_algorithms(c);
    /* what ssh printed while accepting the config, as it said it */
    for (const char *p = c->a->notes; rc == 0 && p != NULL && *p != '\0';) {
        size_t len = strcspn(p, "\n");
        char msg[600];
        snprintf(msg, sizeof msg, "ssh -G: %.*s", (int)(len < 580 ? len : 580), p);
        rc = warn(c, msg);
        p += len + (p[len] == '\n');
    }
    if (rc == 0 && strv_take(&c->warnings, &c->r->warnings, &c->r->n_warnings) != 0)
        rc = oom(c);
    return rc;
}

/* --- hosts ---------------------------------------------------------------------------------- */

/* What a hop of a chain adds in front of its own: the caller's identity and the target's
 * known_hosts file (expanded for the target). */
struct hop_extra {
    const char *identity;
    const char *known_hosts;
};

static int
prepend(char ***v, size_t *n, const char *s)
{
    for (size_t i = 0; i < *n; i++)
        if (strcmp((*v)[i], s) == 0)
            return 0;
    char **nv = realloc(*v, (*n + 2) * sizeof *nv);
    if (nv == NULL)
        return -1;
    memmove(nv + 1, nv, (*n + 1) * sizeof *nv);
    *v = nv;
    if ((nv[0] = strdup(s)) == NULL) {
        memmove(nv, nv + 1, (*n + 1) * sizeof *nv);
        return -1;
    }
    (*n)++;
    return 0;
}

static int
hop_files(struct res *c, const struct hop_extra *hx)
{
    struct transport_sshconfig *r = c->r;
    int rc = 0;
    if (hx->identity != NULL && *hx->identity != '\0') {
        char *p = NULL;
        rc = identity_path(c, hx->identity, &p);
        if (rc == 0 && (prepend(&r->identity_paths, &r->n_identity_paths, p) != 0 ||
                        prepend(&r->identity_files, &r->n_identity_files, hx->identity) != 0))
            rc = oom(c);
        free(p);
    }
    if (rc == 0 && hx->known_hosts != NULL &&
        prepend(&r->known_hosts_files, &r->n_known_hosts_files, hx->known_hosts) != 0)
        rc = oom(c);
    return rc;
}

static int
read_answer(struct res *c)
{
    struct transport_sshconfig *r = c->r;
    int rc = (r->host_arg = strdup(c->host)) == NULL ? oom(c) : read_scalars(c);
    if (rc == 0)
        rc = read_identities(c);
    if (rc == 0)
        rc = read_list(c, "userknownhostsfile", false, &r->known_hosts_files,
                       &r->n_known_hosts_files);
    if (rc == 0)
        rc = read_list(c, "globalknownhostsfile", true, &r->global_known_hosts_files,
                       &r->n_global_known_hosts_files);
    if (rc == 0)
        rc = read_jump(c);
    if (rc == 0)
        rc = read_warnings(c);
    return rc;
}

static int
resolve(const struct transport_sshconfig_env *env, const char *host,
        const struct transport_sshconfig_override *ov, const struct hop_extra *hx,
        struct transport_sshconfig **out, struct err *e)
{
    *out = NULL;
    if (host == NULL || *host == '\0')
        return err_set(e, NS_EINVAL, "empty host name");
    struct res c = {.g = env->sshg, .env = env, .ov = ov, .host = host, .e = e};
    int rc = qargs_init(&c.q, env, ov, e);
    if (rc == 0)
        rc = sshg_query(c.g, c.q.v, host, &c.a, e);
    if (rc == 0 && (c.r = calloc(1, sizeof *c.r)) == NULL)
        rc = oom(&c);
    if (rc == 0)
        rc = read_answer(&c);
    if (rc == 0 && hx != NULL)
        rc = hop_files(&c, hx);
    strv_release(&c.warnings);
    if (rc != 0) {
        transport_sshconfig_free(c.r);
        return rc;
    }
    *out = c.r;
    return 0;
}

/* env with a struct sshg: the caller's, else a new one into *own (freed by the caller). */
static int
env_with_sshg(const struct transport_sshconfig_env *env, struct transport_sshconfig_env *use,
              struct sshg **own, struct err *e)
{
    static const struct transport_sshconfig_env none = {0};
    *use = env != NULL ? *env : none;
    *own = NULL;
    if (use->sshg != NULL)
        return 0;
    if ((*own = use->sshg = sshg_new()) == NULL)
        return err_set(e, NS_ENOMEM, "out of memory");
    return 0;
}

int
transport_sshconfig_resolve(const struct transport_sshconfig_env *env, const char *host,
                            const struct transport_sshconfig_override *ov,
                            struct transport_sshconfig **out, struct err *e)
{
    struct transport_sshconfig_env use;
    struct sshg *own;
    *out = NULL;
    int rc = env_with_sshg(env, &use, &own, e);
    if (rc == 0)
        rc = resolve(&use, host, ov, NULL, out, e);
    sshg_free(own);
    return rc;
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

/* --- chains --------------------------------------------------------------------------------- */

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

static int
chain(const struct transport_sshconfig_env *env, const char *host,
      const struct transport_sshconfig_override *ov, struct transport_sshconfig_chain *out,
      struct err *e)
{
    struct transport_sshconfig *t = NULL;
    int rc = resolve(env, host, ov, NULL, &t, e);
    if (rc == 0 && chain_push_front(out, t) != 0) {
        transport_sshconfig_free(t);
        rc = err_set(e, NS_ENOMEM, "out of memory");
    }
    /* the plan's known_hosts file as the target resolved it, in front of each hop's own */
    const char *kh = rc == 0 && ov != NULL && ov->known_hosts != NULL && t->n_known_hosts_files > 0
                         ? t->known_hosts_files[0]
                         : NULL;
    struct hop_extra hx = {ov != NULL ? ov->identity : NULL, kh};
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
    return rc;
}

int
transport_sshconfig_resolve_chain(const struct transport_sshconfig_env *env, const char *host,
                                  const struct transport_sshconfig_override *ov,
                                  struct transport_sshconfig_chain *out, struct err *e)
{
    out->hop = NULL;
    out->n = 0;
    struct transport_sshconfig_env use;
    struct sshg *own;
    int rc = env_with_sshg(env, &use, &own, e);
    if (rc == 0)
        rc = chain(&use, host, ov, out, e);
    sshg_free(own);
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

/* --- many hosts at once --------------------------------------------------------------------- */

struct prefetch {
    const struct transport_sshconfig_env *env;
    const char *const *host;
    const struct transport_sshconfig_override *ov;
};

static void
prefetch_one(void *arg, size_t i)
{
    const struct prefetch *p = arg;
    struct transport_sshconfig_chain ch;
    struct err e = {0};
    if (transport_sshconfig_resolve_chain(p->env, p->host[i], p->ov != NULL ? &p->ov[i] : NULL, &ch,
                                          &e) == 0)
        transport_sshconfig_chain_release(&ch);
}

void
transport_sshconfig_prefetch(const struct transport_sshconfig_env *env, const char *const *host,
                             const struct transport_sshconfig_override *ov, size_t n)
{
    if (env == NULL || env->sshg == NULL)
        return; /* nothing would keep the answers */
    struct prefetch p = {env, host, ov};
    sshg_parallel(n, prefetch_one, &p);
}
