/* fields.c - table-driven conversion of mapping values, reporting every problem. */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/errors.h"
#include "common/net.h"
#include "common/text.h"
#include "common/units.h"
#include "plan/fields.h"

void
plan_verr(struct vctx *c, const struct ynode *at, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    unsigned line = at ? at->line : 0, col = at ? at->col : 0;
    if (diag_add(c->d, c->file, line, col, "%s", msg) != 0)
        c->oom = true;
}

void
plan_vwarn(struct vctx *c, const struct ynode *at, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    unsigned line = at ? at->line : 0, col = at ? at->col : 0;
    if (diag_warn(c->d, c->file, line, col, "%s", msg) != 0)
        c->oom = true;
}

static void vreport_at(struct vctx *c, enum diag_severity sev, struct plan_pos at, const char *fmt,
                       va_list ap) __attribute__((format(printf, 4, 0)));

static void
vreport_at(struct vctx *c, enum diag_severity sev, struct plan_pos at, const char *fmt, va_list ap)
{
    char msg[1024];
    vsnprintf(msg, sizeof msg, fmt, ap);
    if (diag_report(c->d, sev, c->file, at.line, at.col, "%s", msg) != 0)
        c->oom = true;
}

void
plan_verr_at(struct vctx *c, struct plan_pos at, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vreport_at(c, DIAG_ERROR, at, fmt, ap);
    va_end(ap);
}

void
plan_vwarn_at(struct vctx *c, struct plan_pos at, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vreport_at(c, DIAG_WARNING, at, fmt, ap);
    va_end(ap);
}

void
plan_vnote_at(struct vctx *c, struct plan_pos at, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vreport_at(c, DIAG_NOTE, at, fmt, ap);
    va_end(ap);
}

struct plan_pos
plan_node_pos(const struct ynode *n)
{
    return n != NULL ? (struct plan_pos){n->line, n->col} : (struct plan_pos){0, 0};
}

const char *
plan_vstrdup(struct vctx *c, const char *s)
{
    char *r = arena_strndup(&c->p->arena, s, strlen(s));
    if (r == NULL)
        c->oom = true;
    return r;
}

void *
plan_vcalloc(struct vctx *c, size_t n, size_t size)
{
    if (n == 0)
        n = 1;
    if (n > SIZE_MAX / size) {
        c->oom = true;
        return NULL;
    }
    void *r = arena_alloc(&c->p->arena, n * size);
    if (r == NULL)
        c->oom = true;
    return r;
}

static const char *
kind_name(enum ynode_kind kind)
{
    return kind == YNODE_MAP ? "a mapping" : kind == YNODE_SEQ ? "a list" : "a string";
}

bool
plan_vexpect(struct vctx *c, const struct ynode *n, enum ynode_kind kind, const char *what)
{
    if (n->kind == kind && !(kind == YNODE_SCALAR && inv_yaml_is_null(n)))
        return true;
    if (inv_yaml_is_null(n))
        plan_verr(c, n, "missing value for %s", what);
    else
        plan_verr(c, n, "wrong type for %s: expected %s, found %s", what, kind_name(kind),
                  inv_yaml_kind_text(n));
    return false;
}

const char *
plan_vscalar(struct vctx *c, const struct ynode *n, const char *key)
{
    return plan_vexpect(c, n, YNODE_SCALAR, key) ? n->str : NULL;
}

void
plan_node_what(const struct ynode *n, const char *noun, size_t i, char *buf, size_t len)
{
    for (size_t k = 0; n->kind == YNODE_MAP && k + 1 < n->nkids; k += 2) {
        const struct ynode *key = n->kids[k], *val = n->kids[k + 1];
        if (key->kind == YNODE_SCALAR && strcmp(key->str, "name") == 0 &&
            val->kind == YNODE_SCALAR && val->len > 0) {
            snprintf(buf, len, "%s '%.64s'", noun, val->str);
            return;
        }
    }
    snprintf(buf, len, "%s %zu", noun, i + 1);
}

/* --- checks on text ------------------------------------------------------------------------ */

static bool
hostname_ok(const char *s)
{
    size_t len = strlen(s), label = 0;
    if (len == 0 || len > 253)
        return false;
    for (size_t i = 0; i < len; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch == '.') {
            if (label == 0)
                return false;
            label = 0;
        } else if ((isalnum(ch) || ch == '-' || ch == '_') && ++label <= 63) {
            continue;
        } else {
            return false;
        }
    }
    return s[0] != '-';
}

/* A last label that is a number (or 0x...) makes a resolver read the whole name as an IPv4
 * address in inet_aton's forms: octal 010, hex 0x7f, fewer or more than four parts. */
static bool
numeric_last_label(const char *s)
{
    const char *dot = strrchr(s, '.'), *l = dot ? dot + 1 : s;
    if ((l[0] == '0' && (l[1] == 'x' || l[1] == 'X')))
        return true;
    return l[0] != '\0' && strspn(l, "0123456789") == strlen(l);
}

/* fe80::1%eth0: an IPv6 address and an interface name or number. */
static bool
scoped_ipv6_ok(const char *s)
{
    const char *pct = strchr(s, '%');
    char addr[64];
    unsigned char buf[16];
    if (pct == NULL || (size_t)(pct - s) >= sizeof addr)
        return false;
    snprintf(addr, sizeof addr, "%.*s", (int)(pct - s), s);
    const char *scope = pct + 1;
    size_t n = strlen(scope);
    return inet_pton(AF_INET6, addr, buf) == 1 && n > 0 && n < 16 && scope[0] != '-' &&
           strspn(scope, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") == n;
}

bool
plan_vaddress_is_ip(const char *s)
{
    unsigned char buf[16];
    return inet_pton(AF_INET, s, buf) == 1 || inet_pton(AF_INET6, s, buf) == 1 || scoped_ipv6_ok(s);
}

const char *
plan_vaddress_problem(const char *s)
{
    if (plan_vaddress_is_ip(s))
        return NULL;
    if (s[0] == '-')
        return "must not start with '-' (ssh would take it for an option)";
    if (hostname_ok(s) && numeric_last_label(s))
        return "not a canonical IPv4 address (four numbers 0..255 without leading zeros); "
               "a host name cannot end in a number";
    if (hostname_ok(s))
        return NULL;
    return "expected an IP address or a host name";
}

/* [user@]host[:port], host an address ([...] around an IPv6 address with a port). */
/* One hop of a jump list. */
static const char *
hop_problem(const char *s)
{
    const char *at = strrchr(s, '@'), *host = at ? at + 1 : s;
    if (at != NULL && (at == s || s[0] == '-' || memchr(s, ' ', (size_t)(at - s)) != NULL))
        return "expected [user@]host[:port] with a user that does not start with '-'";
    char h[300];
    const char *port = NULL;
    if (host[0] == '[') {
        const char *close = strchr(host, ']');
        if (close == NULL || (close[1] != '\0' && close[1] != ':'))
            return "expected [user@]host[:port]; an IPv6 address with a port goes in [brackets]";
        snprintf(h, sizeof h, "%.*s", (int)(close - host - 1), host + 1);
        port = close[1] == ':' ? close + 2 : NULL;
    } else {
        const char *colon = strchr(host, ':');
        bool one_colon = colon != NULL && strchr(colon + 1, ':') == NULL;
        snprintf(h, sizeof h, "%.*s", one_colon ? (int)(colon - host) : (int)strlen(host), host);
        port = one_colon ? colon + 1 : NULL;
    }
    const char *why = plan_vaddress_problem(h);
    if (why != NULL)
        return why;
    uint16_t v;
    if (port != NULL && net_parse_port(port, 1, &v) != 0)
        return "the port after ':' must be a number 1..65535";
    return NULL;
}

/* ssh -J's argument: "none", or hops "[user@]host[:port]" separated by commas, the first dialled
 * first (each hop checked; what ssh itself accepts beyond that, ssh:// URIs, is refused). */
static const char *
jump_problem(const char *s)
{
    if (strcasecmp(s, "none") == 0)
        return NULL;
    char hop[600];
    for (const char *p = s;;) {
        const char *comma = strchr(p, ',');
        size_t len = comma != NULL ? (size_t)(comma - p) : strlen(p);
        if (len == 0 || len >= sizeof hop)
            return len == 0 ? "an empty hop in the list (hops are separated by ',')"
                            : "a hop longer than 600 bytes";
        memcpy(hop, p, len);
        hop[len] = '\0';
        const char *why = hop_problem(hop);
        if (why != NULL)
            return why;
        if (comma == NULL)
            return NULL;
        p = comma + 1;
    }
}

/* --- conversions, one per type ------------------------------------------------------------- */

static void *
field_ptr(void *obj, const struct fdesc *f)
{
    return (char *)obj + f->off;
}

/* One format for every range error, the table's (testspec_range_error). */
static void
report_range(struct vctx *c, const struct fdesc *f, const struct ynode *v)
{
    plan_verr(c, v, "%s %s out of range %s", f->key, v->str, f->range);
}

static bool
conv_str(struct vctx *c, const struct fdesc *f, const struct ynode *v, void *obj)
{
    const char *s = plan_vscalar(c, v, f->key);
    if (s == NULL)
        return false;
    if (*s == '\0') {
        plan_verr(c, v, "%s must not be empty", f->key);
        return false;
    }
    if (f->type == FT_NAME && !text_name_ok(s)) {
        plan_verr(c, v, "invalid %s '%s': use up to 64 letters, digits, '.', '_' and '-'", f->key,
                  s);
        return false;
    }
    if (diag_text_control(s, f->multiline) != 0) {
        plan_verr(c, v, "invalid %s '%s': control or direction-changing characters are not allowed",
                  f->key, s);
        return false;
    }
    if (f->no_dash && s[0] == '-') {
        plan_verr(c, v,
                  "invalid %s '%s': must not start with '-' (ssh would take it for an option)",
                  f->key, s);
        return false;
    }
    const char *why = f->type == FT_ADDR   ? plan_vaddress_problem(s)
                      : f->type == FT_JUMP ? jump_problem(s)
                                           : NULL;
    if (why != NULL) {
        plan_verr(c, v, "invalid %s '%s': %s", f->key, s, why);
        return false;
    }
    const char *copy = plan_vstrdup(c, s);
    *(const char **)field_ptr(obj, f) = copy;
    return copy != NULL;
}

/* Decimal digits only; *neg for "-digits" and *big for overflow (range errors, not syntax). */
static bool
parse_whole(const char *s, uint64_t *out, bool *neg, bool *big)
{
    *neg = s[0] == '-';
    const char *p = *neg ? s + 1 : s;
    if (*p == '\0' || strspn(p, "0123456789") != strlen(p))
        return false;
    errno = 0;
    unsigned long long v = strtoull(p, NULL, 10);
    *big = errno == ERANGE;
    *out = (uint64_t)v;
    return true;
}

static bool
conv_uint(struct vctx *c, const struct fdesc *f, const struct ynode *v, void *obj)
{
    const char *s = plan_vscalar(c, v, f->key);
    if (s == NULL)
        return false;
    uint64_t u;
    bool neg, big;
    if (!parse_whole(s, &u, &neg, &big)) {
        plan_verr(c, v, "invalid %s '%s': expected a whole number", f->key, s);
        return false;
    }
    if (f->type == FT_U64 && (neg || big)) {
        plan_verr(c, v, "%s %s out of range 0..18446744073709551615", f->key, s);
        return false;
    }
    if (f->type == FT_U64) {
        *(uint64_t *)field_ptr(obj, f) = u;
        return true;
    }
    if (neg || big || (double)u < f->min || (double)u > f->max) {
        report_range(c, f, v);
        return false;
    }
    *(unsigned *)field_ptr(obj, f) = (unsigned)u;
    return true;
}

static const char *
unit_example(enum ftype type)
{
    switch (type) {
    case FT_DUR:
        return "a duration such as 300s, 5m or 250ms";
    case FT_SIZE:
        return "a size in bytes such as 250, 64K or 1M";
    default:
        return "a rate in bits/s such as 900M or 10G";
    }
}

/* units.h parse of s by type into *d (and *u for sizes and rates). */
static int
units_parse(enum ftype type, const char *s, double *d, uint64_t *u)
{
    int rc;
    if (type == FT_DUR)
        return units_parse_duration(s, d, NULL);
    if (type == FT_SIZE)
        rc = units_parse_size(s, u, NULL);
    else
        rc = units_parse_rate(s, u, NULL);
    *d = (double)*u;
    return rc;
}

static bool
conv_unit(struct vctx *c, const struct fdesc *f, const struct ynode *v, void *obj)
{
    const char *s = plan_vscalar(c, v, f->key);
    if (s == NULL)
        return false;
    double d = 0;
    uint64_t u = 0;
    int rc = units_parse(f->type, s, &d, &u);
    /* A negative or overflowing value is out of range, not gibberish. */
    bool range =
        rc == NS_ERANGE || (rc != 0 && s[0] == '-' && units_parse(f->type, s + 1, &d, &u) == 0);
    if (rc != 0 && !range) {
        plan_verr(c, v, "invalid %s '%s': expected %s", f->key, s, unit_example(f->type));
        return false;
    }
    if (range || d < f->min || d > f->max) {
        report_range(c, f, v);
        return false;
    }
    if (f->type == FT_DUR)
        *(double *)field_ptr(obj, f) = d;
    else
        *(uint64_t *)field_ptr(obj, f) = u;
    return true;
}

/* A test parameter: the table's parser, then the range for the kind being read (c->spec_kind),
 * or the widest range when no kind is known yet (a kind narrows it later). */
static bool
conv_spec(struct vctx *c, const struct fdesc *f, const struct ynode *v, void *obj)
{
    const char *s = plan_vscalar(c, v, f->key);
    if (s == NULL)
        return false;
    enum testspec_param p = (enum testspec_param)f->spec;
    enum testspec_type type = testspec_type(p);
    double d = 0;
    struct err e;
    err_clear(&e);
    int rc = testspec_parse(p, s, &d, &e);
    bool range =
        rc == NS_ERANGE || (rc != 0 && s[0] == '-' && testspec_parse(p, s + 1, &d, NULL) == 0);
    if (rc != 0 && !range) {
        char choices[64];
        if (type == TESTSPEC_BOOL)
            plan_verr(c, v, "invalid %s '%s': expected true or false", f->key, s);
        else if (type == TESTSPEC_DIRECTION)
            plan_verr(c, v, "invalid %s '%s': expected %s", f->key, s,
                      testspec_range_text(p, -1, choices, sizeof choices));
        else if (type == TESTSPEC_SIZE && strstr(e.msg, "whole number") != NULL)
            plan_verr(c, v, "invalid %s '%s': sizes are whole bytes", f->key, s);
        else if (type == TESTSPEC_COUNT)
            plan_verr(c, v, "invalid %s '%s': expected a whole number", f->key, s);
        else
            plan_verr(c, v, "invalid %s '%s': expected %s", f->key, s,
                      unit_example(type == TESTSPEC_DURATION ? FT_DUR
                                   : type == TESTSPEC_SIZE   ? FT_SIZE
                                                             : FT_RATE));
        return false;
    }
    int kind = testspec_applies(p, c->spec_kind) ? c->spec_kind : -1;
    if (range || !testspec_in_range(p, kind, d)) {
        testspec_range_error(&e, p, kind, f->key, s);
        plan_verr(c, v, "%s", e.msg);
        return false;
    }
    *(double *)field_ptr(obj, f) = d;
    return true;
}

static bool
conv_bool(struct vctx *c, const struct fdesc *f, const struct ynode *v, void *obj)
{
    const char *s = plan_vscalar(c, v, f->key);
    if (s == NULL)
        return false;
    if (strcmp(s, "true") != 0 && strcmp(s, "false") != 0) {
        plan_verr(c, v, "invalid %s '%s': expected true or false", f->key, s);
        return false;
    }
    *(bool *)field_ptr(obj, f) = s[0] == 't';
    return true;
}

/* "a, b or c" */
static void
choices_text(const char *const *choices, char *buf, size_t len)
{
    size_t n = 0, used = 0;
    while (choices[n] != NULL)
        n++;
    buf[0] = '\0';
    for (size_t i = 0; i < n && used < len; i++) {
        const char *sep = i == 0 ? "" : i + 1 == n ? " or " : ", ";
        int w = snprintf(buf + used, len - used, "%s%s", sep, choices[i]);
        used += w > 0 ? (size_t)w : 0;
    }
}

static bool
conv_enum(struct vctx *c, const struct fdesc *f, const struct ynode *v, void *obj)
{
    const char *s = plan_vscalar(c, v, f->key);
    if (s == NULL)
        return false;
    size_t n = 0;
    for (; f->choices[n] != NULL; n++) {
        if (strcmp(s, f->choices[n]) == 0) {
            *(int *)field_ptr(obj, f) = (int)n;
            return true;
        }
    }
    char bad[64];
    if (f->bad != NULL)
        snprintf(bad, sizeof bad, "%s", f->bad);
    else
        snprintf(bad, sizeof bad, "invalid %s", f->key);
    const char *near = suggest_closest(s, f->choices, n);
    char list[256];
    choices_text(f->choices, list, sizeof list);
    if (near != NULL)
        plan_verr(c, v, "%s '%s'; did you mean '%s'?", bad, s, near);
    else
        plan_verr(c, v, "%s '%s'; expected %s", bad, s, list);
    return false;
}

bool
plan_field_store(struct vctx *c, const struct fdesc *f, const struct ynode *v, void *obj)
{
    switch (f->type) {
    case FT_STR:
    case FT_NAME:
    case FT_ADDR:
    case FT_JUMP:
        return conv_str(c, f, v, obj);
    case FT_UINT:
    case FT_U64:
        return conv_uint(c, f, v, obj);
    case FT_DUR:
    case FT_SIZE:
    case FT_RATE:
        return conv_unit(c, f, v, obj);
    case FT_BOOL:
        return conv_bool(c, f, v, obj);
    case FT_ENUM:
        return conv_enum(c, f, v, obj);
    case FT_SPEC:
        return conv_spec(c, f, v, obj);
    case FT_CONV:
        return f->conv(c, f, v, obj);
    case FT_NODE:
        break;
    }
    return true;
}

/* --- tables -------------------------------------------------------------------------------- */

int
plan_fields_index(const struct fdesc *t, size_t n, const char *key)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(t[i].key, key) == 0)
            return (int)i;
    return -1;
}

const struct ynode *
plan_fields_get(const struct fdesc *t, size_t n, const struct fvals *v, const char *key)
{
    int i = plan_fields_index(t, n, key);
    return i < 0 ? NULL : v->val[i];
}

/* The length of table key t's group ("load" of "load.streams"), 0 for a key of its own. */
static size_t
group_len(const char *key)
{
    const char *dot = strchr(key, '.');
    return dot != NULL ? (size_t)(dot - key) : 0;
}

/* Whether table key key is in group g (g "" for the mapping's own keys); its name there. */
static const char *
in_group(const char *key, const char *g)
{
    size_t gl = strlen(g), kl = group_len(key);
    if (gl == 0)
        return kl == 0 ? key : NULL;
    return kl == gl && strncmp(key, g, gl) == 0 ? key + gl + 1 : NULL;
}

/* The table entry of key name in group g, or -1. */
static int
group_index(const struct fdesc *t, size_t n, const char *g, const char *name)
{
    for (size_t i = 0; i < n; i++) {
        const char *own = in_group(t[i].key, g);
        if (own != NULL && strcmp(own, name) == 0)
            return (int)i;
    }
    return -1;
}

/* The names the mapping (group g) takes that allowed lets in: its keys, and a group's name once. */
static size_t
allowed_names(const struct fdesc *t, size_t n, uint32_t allowed, const char *g,
              const char *names[FIELDS_MAX], char store[FIELDS_MAX][32])
{
    size_t nk = 0;
    for (size_t i = 0; i < n; i++) {
        if (!(allowed & (1u << i)))
            continue;
        const char *own = in_group(t[i].key, g);
        size_t gl = group_len(t[i].key);
        if (own == NULL && g[0] == '\0' && gl > 0 && gl < 32) { /* a group: its name */
            snprintf(store[nk], sizeof store[nk], "%.*s", (int)gl, t[i].key);
            bool dup = false;
            for (size_t j = 0; j < nk && !dup; j++)
                dup = strcmp(names[j], store[nk]) == 0;
            if (!dup) {
                names[nk] = store[nk];
                nk++;
            }
        } else if (own != NULL) {
            names[nk++] = own;
        }
    }
    return nk;
}

static void
report_unknown_key(struct vctx *c, const struct ynode *k, const struct fdesc *t, size_t n,
                   uint32_t allowed, const char *g, const char *what)
{
    const char *keys[FIELDS_MAX];
    char store[FIELDS_MAX][32];
    size_t nk = allowed_names(t, n, allowed, g, keys, store);
    const char *near = suggest_closest(k->str, keys, nk);
    if (near != NULL)
        plan_verr(c, k, "unknown key '%s' in %s%s%s; did you mean '%s'?", k->str, g,
                  g[0] ? " of " : "", what, near);
    else
        plan_verr(c, k, "unknown key '%s' in %s%s%s", k->str, g, g[0] ? " of " : "", what);
}

/* Whether the table has a group named name (a key "name.x"). */
static bool
is_group(const struct fdesc *t, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (group_len(t[i].key) == strlen(name) && strncmp(t[i].key, name, strlen(name)) == 0)
            return true;
    return false;
}

static void collect_group(struct vctx *c, const struct ynode *k, const struct ynode *val,
                          const struct fdesc *t, size_t n, uint32_t allowed, struct fvals *v,
                          const char *what, size_t *dups);

/* Store key k and value val of a mapping (g: the group key whose mapping it is, NULL for the
 * mapping itself) by table t; a duplicate key is reported, unless *dups counts it (a forgotten
 * '-': collect_restart). */
static void
collect_one(struct vctx *c, const struct ynode *k, const struct ynode *val, const struct fdesc *t,
            size_t n, uint32_t allowed, struct fvals *v, const char *what, const struct ynode *g,
            size_t *dups)
{
    const char *gname = g != NULL ? g->str : "";
    if (k->kind != YNODE_SCALAR) {
        plan_verr(c, k, "wrong type for a key in %s%s%s: expected a string, found %s", gname,
                  g != NULL ? " of " : "", what, inv_yaml_kind_text(k));
        return;
    }
    int i = group_index(t, n, gname, k->str);
    if (i < 0 && g == NULL && is_group(t, n, k->str)) {
        collect_group(c, k, val, t, n, allowed, v, what, dups);
        return;
    }
    if (i >= 0 && !(allowed & (1u << i))) {
        plan_verr(c, k, "key '%s' is not allowed in %s", t[i].key, what);
        return;
    }
    if (i < 0) {
        report_unknown_key(c, k, t, n, allowed, gname, what);
        return;
    }
    if (v->key[i] != NULL && dups != NULL) {
        (*dups)++;
        return;
    }
    if (v->key[i] != NULL) {
        plan_verr(c, k, "duplicate key '%s' in %s (first at %u:%u)", t[i].key, what,
                  v->key[i]->line, v->key[i]->col);
        return;
    }
    v->key[i] = k;
    v->val[i] = val;
    v->group[i] = g;
    v->set |= 1u << i;
}

/* Key k's mapping val, whose keys are the table's "k.x". */
static void
collect_group(struct vctx *c, const struct ynode *k, const struct ynode *val, const struct fdesc *t,
              size_t n, uint32_t allowed, struct fvals *v, const char *what, size_t *dups)
{
    char gwhat[160];
    snprintf(gwhat, sizeof gwhat, "%s of %s", k->str, what);
    for (size_t i = 0; i < n; i++)
        if (v->group[i] != NULL && strcmp(v->group[i]->str, k->str) == 0) {
            if (dups != NULL)
                (*dups)++;
            else
                plan_verr(c, k, "duplicate key '%s' in %s (first at %u:%u)", k->str, what,
                          v->group[i]->line, v->group[i]->col);
            return;
        }
    if (!plan_vexpect(c, val, YNODE_MAP, gwhat))
        return;
    if (val->nkids == 0)
        plan_verr(c, val, "%s is empty", gwhat);
    for (size_t i = 0; i + 1 < val->nkids; i += 2)
        collect_one(c, val->kids[i], val->kids[i + 1], t, n, allowed, v, what, k, NULL);
}

/* Where the mapping's first key comes again (its index among the keys), or 0: the mark of a
 * list item whose '-' was forgotten, which makes two items one mapping with every key twice. */
static size_t
collect_restart(const struct ynode *map)
{
    const struct ynode *first = map->nkids >= 2 ? map->kids[0] : NULL;
    if (first == NULL || first->kind != YNODE_SCALAR)
        return 0;
    for (size_t i = 2; i + 1 < map->nkids; i += 2)
        if (map->kids[i]->kind == YNODE_SCALAR && strcmp(map->kids[i]->str, first->str) == 0)
            return i / 2;
    return 0;
}

bool
plan_fields_collect(struct vctx *c, const struct ynode *map, const struct fdesc *t, size_t n,
                    uint32_t allowed, struct fvals *v, const char *what)
{
    memset(v, 0, sizeof *v);
    if (!plan_vexpect(c, map, YNODE_MAP, what))
        return false;
    size_t restart = collect_restart(map), dups = 0;
    for (size_t i = 0; i + 1 < map->nkids; i += 2)
        collect_one(c, map->kids[i], map->kids[i + 1], t, n, allowed, v, what, NULL,
                    restart > 0 && i / 2 >= restart ? &dups : NULL);
    if (restart > 0) {
        /* one message for what would be a duplicate key line per key of the item */
        const struct ynode *k = map->kids[2 * restart], *first = map->kids[0];
        char more[48] = "";
        if (dups > 1)
            snprintf(more, sizeof more, ", and %zu more after it", dups - 1);
        plan_verr(c, k,
                  "duplicate key '%s' in %s (first at %u:%u)%s: is a '-' missing before '%s'? "
                  "each item of a list starts with '- '",
                  k->str, what, first->line, first->col, more, k->str);
    }
    return true;
}

void
plan_fields_require(struct vctx *c, const struct ynode *map, const struct fdesc *t, size_t n,
                    const struct fvals *v, const char *what)
{
    for (size_t i = 0; i < n; i++)
        if (t[i].required && v->key[i] == NULL)
            plan_verr(c, map, "missing required key '%s' in %s", t[i].key, what);
}

void
plan_fields_store(struct vctx *c, const struct fdesc *t, size_t n, struct fvals *v, void *obj)
{
    for (size_t i = 0; i < n; i++)
        if (v->val[i] != NULL && t[i].type != FT_NODE &&
            !plan_field_store(c, &t[i], v->val[i], obj))
            v->set &= ~(1u << i);
}

static size_t
ftype_size(const struct fdesc *f)
{
    switch (f->type) {
    case FT_STR:
    case FT_NAME:
    case FT_ADDR:
    case FT_JUMP:
        return sizeof(const char *);
    case FT_UINT:
        return sizeof(unsigned);
    case FT_U64:
    case FT_SIZE:
    case FT_RATE:
        return sizeof(uint64_t);
    case FT_DUR:
    case FT_SPEC:
        return sizeof(double);
    case FT_BOOL:
        return sizeof(bool);
    case FT_ENUM:
        return sizeof(int);
    case FT_CONV:
        return f->size;
    case FT_NODE:
        break;
    }
    return 0;
}

void
plan_fields_copy(const struct fdesc *t, size_t n, uint32_t mask, void *dst, const void *src)
{
    for (size_t i = 0; i < n; i++)
        if (mask & (1u << i))
            memcpy((char *)dst + t[i].off, (const char *)src + t[i].off, ftype_size(&t[i]));
}
