/* hosts.c - the plan's hosts: fields, ssh settings resolved against the plan's defaults,
 * labels, zones, and duplicate names or addresses. */
#include <arpa/inet.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/errors.h"
#include "common/net.h"
#include "plan/fields.h"

static const struct fdesc ssh_fields[] = {
    {.key = "user", .type = FT_STR, .off = offsetof(struct plan_ssh, user), .no_dash = true},
    {.key = "port",
     .type = FT_UINT,
     .off = offsetof(struct plan_ssh, port),
     .min = 1,
     .max = NET_PORT_MAX,
     .range = "1..65535"},
    {.key = "identity",
     .type = FT_STR,
     .off = offsetof(struct plan_ssh, identity),
     .no_dash = true},
    {.key = "known_hosts",
     .type = FT_STR,
     .off = offsetof(struct plan_ssh, known_hosts),
     .no_dash = true},
    {.key = "jump", .type = FT_JUMP, .off = offsetof(struct plan_ssh, jump), .no_dash = true},
    {.key = "connect_timeout",
     .type = FT_DUR,
     .off = offsetof(struct plan_ssh, connect_timeout_s),
     .min = 0.1,
     .max = 600,
     .range = "100ms..10m"},
};

#define NSSH_FIELDS (sizeof ssh_fields / sizeof ssh_fields[0])

/* Host fields land here first: transport is an int (FT_ENUM), not the public enum. */
struct host_raw {
    const char *name, *address, *data_address, *zone, *region, *zone_id;
    int transport;
};

static const char *const transport_choices[] = {"ssh", "local", NULL};

static const struct fdesc host_fields[] = {
    {.key = "name", .type = FT_NAME, .off = offsetof(struct host_raw, name), .required = true},
    {.key = "address", .type = FT_ADDR, .off = offsetof(struct host_raw, address)},
    {.key = "data_address", .type = FT_ADDR, .off = offsetof(struct host_raw, data_address)},
    {.key = "zone", .type = FT_STR, .off = offsetof(struct host_raw, zone)},
    {.key = "region", .type = FT_STR, .off = offsetof(struct host_raw, region)},
    {.key = "zone_id", .type = FT_STR, .off = offsetof(struct host_raw, zone_id)},
    {.key = "labels", .type = FT_NODE},
    {.key = "ssh", .type = FT_NODE},
    {.key = "transport",
     .type = FT_ENUM,
     .off = offsetof(struct host_raw, transport),
     .choices = transport_choices},
};

#define NHOST_FIELDS (sizeof host_fields / sizeof host_fields[0])

const struct fdesc *
plan_ssh_fields(size_t *n)
{
    *n = NSSH_FIELDS;
    return ssh_fields;
}

const struct fdesc *
plan_host_fields(size_t *n)
{
    *n = NHOST_FIELDS;
    return host_fields;
}

/* What the duplicate checks need to know about each host. */
struct host_aux {
    const struct ynode *name_node, *addr_node, *daddr_node;
    char addr_key[300], daddr_key[300]; /* canonical forms */
};

/* port and connect_timeout 0: not given, so that the ssh config (then OpenSSH's and the
 * transport's defaults) decide, as they do for user and the rest */
static const struct plan_ssh ssh_builtin = {.port = 0, .connect_timeout_s = 0};

/* Read an ssh block into out (which holds the values to override); returns the keys set. */
static uint32_t
ssh_read(struct vctx *c, const struct ynode *n, struct plan_ssh *out, const char *what)
{
    struct fvals v;
    if (!plan_fields_collect(c, n, ssh_fields, NSSH_FIELDS, UINT32_MAX, &v, what))
        return 0;
    plan_fields_store(c, ssh_fields, NSSH_FIELDS, &v, out);
    return v.set;
}

static void
label_read(struct vctx *c, const struct ynode *k, const struct ynode *v, struct plan_label *out)
{
    if (!plan_vexpect(c, k, YNODE_SCALAR, "a label name"))
        return;
    char what[96];
    snprintf(what, sizeof what, "label '%.64s'", k->str);
    if (!plan_vexpect(c, v, YNODE_SCALAR, what))
        return;
    if (diag_text_control(k->str, false) != 0 || diag_text_control(v->str, false) != 0) {
        plan_verr(
            c, diag_text_control(k->str, false) ? k : v,
            "invalid label '%s: %s': control or direction-changing characters are not allowed",
            k->str, v->str);
        return;
    }
    out->key = plan_vstrdup(c, k->str);
    out->value = plan_vstrdup(c, v->str);
}

static void
labels_read(struct vctx *c, const struct ynode *n, struct plan_host *h, const char *what)
{
    char lwhat[128];
    snprintf(lwhat, sizeof lwhat, "labels of %s", what);
    if (n == NULL || !plan_vexpect(c, n, YNODE_MAP, lwhat))
        return;
    size_t count = n->nkids / 2;
    struct plan_label *labels = plan_vcalloc(c, count, sizeof *labels);
    if (labels == NULL)
        return;
    for (size_t i = 0; i < count; i++) {
        const struct ynode *k = n->kids[2 * i];
        for (size_t j = 0; j < i && k->kind == YNODE_SCALAR; j++) {
            const struct ynode *prev = n->kids[2 * j];
            if (prev->kind == YNODE_SCALAR && strcmp(prev->str, k->str) == 0) {
                plan_verr(c, k, "duplicate label '%s' in %s (first at %u:%u)", k->str, what,
                          prev->line, prev->col);
                break;
            }
        }
        label_read(c, k, n->kids[2 * i + 1], &labels[i]);
    }
    h->labels = labels;
    h->nlabels = count;
}

static void
host_ssh(struct vctx *c, const struct ynode *n, struct plan_host *h, const struct host_raw *r,
         const char *what)
{
    if (n != NULL && r->transport == PLAN_TRANSPORT_LOCAL) {
        plan_verr(c, n, "ssh settings do not apply to %s (transport: local)", what);
        return;
    }
    if (n == NULL)
        return;
    char swhat[128];
    snprintf(swhat, sizeof swhat, "ssh of %s", what);
    struct plan_ssh own = {0};
    uint32_t set = ssh_read(c, n, &own, swhat);
    plan_fields_copy(ssh_fields, NSSH_FIELDS, set, &h->ssh, &own);
}

/* Addresses; a key that is present but invalid was reported already, not missing. */
static void
host_addresses(struct vctx *c, const struct ynode *map, struct plan_host *h,
               const struct host_raw *r, const struct fvals *v, const char *what)
{
    bool addr_given = v->key[1] != NULL, daddr_given = v->key[2] != NULL;
    h->address = r->address;
    h->data_address = r->data_address ? r->data_address : r->address;
    h->data_address_from_host =
        r->data_address == NULL && r->address != NULL && !plan_vaddress_is_ip(r->address);
    if (r->transport == PLAN_TRANSPORT_SSH && !addr_given)
        plan_verr(c, map, "missing required key 'address' in %s", what);
    else if (!addr_given && !daddr_given)
        plan_verr(c, map, "missing required key 'data_address' in %s (transport: local)", what);
}

/* The family of a numeric address (a scope after '%' allowed); UNKNOWN for a name. */
static enum plan_family
literal_family(const char *s)
{
    unsigned char bin[16];
    char addr[64];
    if (s == NULL)
        return PLAN_FAMILY_UNKNOWN;
    size_t len = strcspn(s, "%");
    if (len >= sizeof addr)
        return PLAN_FAMILY_UNKNOWN;
    snprintf(addr, sizeof addr, "%.*s", (int)len, s);
    if (s[len] == '\0' && inet_pton(AF_INET, addr, bin) == 1)
        return PLAN_FAMILY_IPV4;
    return inet_pton(AF_INET6, addr, bin) == 1 ? PLAN_FAMILY_IPV6 : PLAN_FAMILY_UNKNOWN;
}

/* A name that failed validation still names the host, so pairs naming it add no noise. */
static const char *
host_name_fallback(struct vctx *c, const struct ynode *n)
{
    return n != NULL && n->kind == YNODE_SCALAR ? plan_vstrdup(c, n->str) : NULL;
}

static void
host_read(struct vctx *c, const struct ynode *n, size_t i, const struct plan_ssh *ssh_defaults,
          struct host_aux *aux)
{
    struct plan_host *h = &c->p->hosts[i];
    char what[96];
    plan_node_what(n, "host", i, what, sizeof what);
    h->ssh = *ssh_defaults;
    h->zone = h->region = h->zone_id = "";
    struct fvals v;
    if (!plan_fields_collect(c, n, host_fields, NHOST_FIELDS, UINT32_MAX, &v, what))
        return;
    plan_fields_require(c, n, host_fields, NHOST_FIELDS, &v, what);
    struct host_raw r = {0};
    plan_fields_store(c, host_fields, NHOST_FIELDS, &v, &r);
    h->name = r.name ? r.name : host_name_fallback(c, v.val[0]);
    h->zone = r.zone ? r.zone : "";
    h->region = r.region ? r.region : "";
    h->zone_id = r.zone_id ? r.zone_id : "";
    h->transport = r.transport == 1 ? PLAN_TRANSPORT_LOCAL : PLAN_TRANSPORT_SSH;
    host_addresses(c, n, h, &r, &v, what);
    labels_read(c, plan_fields_get(host_fields, NHOST_FIELDS, &v, "labels"), h, what);
    host_ssh(c, plan_fields_get(host_fields, NHOST_FIELDS, &v, "ssh"), h, &r, what);
    aux->name_node = v.val[0];
    aux->addr_node = v.val[1];
    aux->daddr_node = v.val[2] ? v.val[2] : v.val[1];
    const struct ynode *at = aux->daddr_node != NULL ? aux->daddr_node : n;
    c->p->daddr_pos[i] = (struct plan_pos){at->line, at->col};
    c->p->daddr_given[i] = v.val[2] != NULL || h->transport == PLAN_TRANSPORT_LOCAL;
    plan_host_family_set(h);
}

void
plan_host_family_set(struct plan_host *h)
{
    h->data_family = literal_family(h->data_address);
    h->data_ip = h->data_family != PLAN_FAMILY_UNKNOWN ? h->data_address : NULL;
}

/* Canonical text of an address so that 2001:db8::1 and 2001:DB8:0::1 compare equal, and so do
 * ::ffff:10.0.0.1 and 10.0.0.1 (the same IPv4 host); a scope stays part of the address. */
void
plan_address_key(const char *s, char *out, size_t len)
{
    unsigned char bin[16];
    char addr[64];
    const char *pct = s != NULL ? strchr(s, '%') : NULL;
    size_t alen = pct != NULL ? (size_t)(pct - s) : s != NULL ? strlen(s) : 0;
    snprintf(addr, sizeof addr, "%.*s", (int)(alen < sizeof addr ? alen : 0), s ? s : "");
    static const unsigned char mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    if (s == NULL) {
        out[0] = '\0';
    } else if (alen < sizeof addr && inet_pton(AF_INET6, addr, bin) == 1) {
        if (memcmp(bin, mapped, sizeof mapped) == 0 && pct == NULL)
            inet_ntop(AF_INET, bin + 12, out, (socklen_t)len);
        else
            inet_ntop(AF_INET6, bin, out, (socklen_t)len);
        if (pct != NULL)
            snprintf(out + strlen(out), len - strlen(out), "%s", pct);
    } else {
        size_t i = 0;
        for (; s[i] != '\0' && i + 1 < len; i++)
            out[i] = (char)tolower((unsigned char)s[i]);
        out[i] = '\0';
    }
}

/* Host i against an earlier host j; reports at most one problem of each kind per host i
 * (*addr_done, *daddr_done), so a third copy of an address is one message, not two. */
static void
dup_check_pair(struct vctx *c, size_t i, size_t j, const struct host_aux *aux, bool *addr_done,
               bool *daddr_done)
{
    const struct plan_host *a = &c->p->hosts[j], *b = &c->p->hosts[i];
    const struct host_aux *x = &aux[j], *y = &aux[i];
    if (a->name && b->name && strcmp(a->name, b->name) == 0 && y->name_node)
        plan_verr(c, y->name_node, "duplicate host name '%s' (first at %u:%u)", b->name,
                  x->name_node->line, x->name_node->col);
    bool both_ssh = a->transport == PLAN_TRANSPORT_SSH && b->transport == PLAN_TRANSPORT_SSH;
    bool same_addr = both_ssh && y->addr_key[0] && strcmp(x->addr_key, y->addr_key) == 0 &&
                     (a->ssh.port ? a->ssh.port : 22) == (b->ssh.port ? b->ssh.port : 22);
    bool same_daddr = y->daddr_key[0] && strcmp(x->daddr_key, y->daddr_key) == 0;
    if (same_addr && !*addr_done) {
        plan_verr(c, y->addr_node,
                  "duplicate address '%s' (host '%s' at %u:%u has the same address "
                  "and ssh port)",
                  b->address, a->name ? a->name : "?", x->addr_node->line, x->addr_node->col);
        *addr_done = *daddr_done = true;
    } else if (same_daddr && !*daddr_done && !*addr_done) {
        plan_verr(c, y->daddr_node, "duplicate data address '%s' (also host '%s' at %u:%u)",
                  b->data_address, a->name ? a->name : "?", x->daddr_node->line,
                  x->daddr_node->col);
        *daddr_done = true;
    }
}

static void
hosts_dup_check(struct vctx *c, struct host_aux *aux)
{
    size_t n = c->p->nhosts;
    for (size_t i = 0; i < n; i++) {
        plan_address_key(c->p->hosts[i].address, aux[i].addr_key, sizeof aux[i].addr_key);
        plan_address_key(c->p->hosts[i].data_address, aux[i].daddr_key, sizeof aux[i].daddr_key);
    }
    for (size_t i = 1; i < n; i++) {
        bool addr_done = false, daddr_done = false;
        for (size_t j = 0; j < i; j++)
            dup_check_pair(c, i, j, aux, &addr_done, &daddr_done);
    }
}

static bool
host_unplaced(const struct plan_host *h)
{
    return h->zone_from_host || h->region_from_host;
}

/* Number the zones (region, zone) of p->host_zone; a host not yet placed (zone: auto) is a
 * zone of its own, so that cross-zone pairs include it until its metadata says otherwise. */
void
plan_zones_number(struct plan *p)
{
    p->nzones = 0;
    for (size_t i = 0; i < p->nhosts; i++) {
        const struct plan_host *h = &p->hosts[i];
        size_t j = 0;
        while (j < i && (host_unplaced(h) || host_unplaced(&p->hosts[j]) ||
                         strcmp(p->hosts[j].zone, h->zone) != 0 ||
                         strcmp(p->hosts[j].region, h->region) != 0))
            j++;
        p->host_zone[i] = j < i ? p->host_zone[j] : (uint32_t)p->nzones++;
    }
}

/* Zones are (region, zone); give each host its zone's index. Hosts of every origin (hosts,
 * an inventory's variables, the zones map) may say auto. */
void
plan_hosts_zones(struct vctx *c)
{
    struct plan *p = c->p;
    for (size_t i = 0; i < p->nhosts; i++) {
        struct plan_host *h = &p->hosts[i];
        h->zone_from_host = strcmp(h->zone, PLAN_AUTO) == 0;
        h->region_from_host = strcmp(h->region, PLAN_AUTO) == 0;
    }
    p->host_zone = plan_vcalloc(c, p->nhosts, sizeof *p->host_zone);
    if (p->host_zone != NULL)
        plan_zones_number(p);
}

bool
plan_has_auto_places(const struct plan *p)
{
    for (size_t i = 0; i < p->nhosts; i++)
        if (host_unplaced(&p->hosts[i]))
            return true;
    return false;
}

static int
place_value(struct plan *p, const char **field, bool *from_host, const char *value)
{
    if (!*from_host || value == NULL || *value == '\0')
        return 0;
    char *copy = arena_strndup(&p->arena, value, strlen(value));
    if (copy == NULL)
        return NS_ENOMEM;
    *field = copy;
    *from_host = false;
    return 0;
}

int
plan_host_place(struct plan *p, size_t i, const char *zone, const char *region, const char *zone_id)
{
    if (i >= p->nhosts)
        return NS_EINVAL;
    struct plan_host *h = &p->hosts[i];
    bool id_free = h->zone_from_host && h->zone_id[0] == '\0';
    int rc = place_value(p, &h->region, &h->region_from_host, region);
    if (rc == 0 && id_free)
        rc = place_value(p, &h->zone_id, &id_free, zone_id);
    if (rc == 0)
        rc = place_value(p, &h->zone, &h->zone_from_host, zone);
    plan_zones_number(p);
    return rc == 0 ? plan_pairs_recount(p) : rc;
}

static bool
hosts_list_ok(struct vctx *c, const struct ynode *hosts, bool inventories)
{
    if (hosts == NULL || !plan_vexpect(c, hosts, YNODE_SEQ, "hosts"))
        return false;
    if (hosts->nkids == 0 && !inventories) {
        plan_verr(c, hosts, "hosts must list at least two hosts, found none");
        return false;
    }
    if (hosts->nkids > PLAN_MAX_HOSTS) {
        plan_verr(c, hosts, "too many hosts: %zu, the limit is %d", hosts->nkids, PLAN_MAX_HOSTS);
        return false;
    }
    return true;
}

void
plan_validate_hosts(struct vctx *c, const struct ynode *hosts, const struct ynode *ssh,
                    bool inventories)
{
    struct plan *p = c->p;
    p->ssh_defaults = ssh_builtin;
    if (ssh != NULL) {
        struct plan_ssh own = {0};
        uint32_t set = ssh_read(c, ssh, &own, "ssh");
        plan_fields_copy(ssh_fields, NSSH_FIELDS, set, &p->ssh_defaults, &own);
    }
    if (!hosts_list_ok(c, hosts, inventories))
        return;
    p->hosts = plan_vcalloc(c, hosts->nkids, sizeof *p->hosts);
    p->host_pos = plan_vcalloc(c, hosts->nkids, sizeof *p->host_pos);
    p->daddr_pos = plan_vcalloc(c, hosts->nkids, sizeof *p->daddr_pos);
    p->daddr_given = plan_vcalloc(c, hosts->nkids, sizeof *p->daddr_given);
    struct host_aux *aux = calloc(hosts->nkids ? hosts->nkids : 1, sizeof *aux);
    if (p->hosts == NULL || p->host_pos == NULL || p->daddr_pos == NULL || p->daddr_given == NULL ||
        aux == NULL) {
        c->oom = true;
        free(aux);
        return;
    }
    p->nhosts = hosts->nkids;
    for (size_t i = 0; i < p->nhosts; i++) {
        host_read(c, hosts->kids[i], i, &p->ssh_defaults, &aux[i]);
        p->host_pos[i] = plan_node_pos(hosts->kids[i]);
    }
    hosts_dup_check(c, aux);
    free(aux);
}

/* --- names, resolved (plan_resolve_names) ----------------------------------------------------- */

/* Host i's name resolved: say so when it cannot be; true when it was. */
static bool
resolve_one(struct plan *p, size_t i, plan_resolve_fn fn, void *ctx, struct diags *d)
{
    struct plan_host *h = &p->hosts[i];
    const struct plan_pos *at = &p->daddr_pos[i];
    char ip[64];
    enum plan_family fam = PLAN_FAMILY_UNKNOWN;
    struct err e = {0};
    if (fn(ctx, h->data_address, ip, sizeof ip, &fam, &e) != 0 || fam == PLAN_FAMILY_UNKNOWN) {
        if (h->transport == PLAN_TRANSPORT_LOCAL)
            diag_add(d, p->file, at->line, at->col,
                     "cannot resolve data address '%s' of host '%s': %s", h->data_address, h->name,
                     e.msg);
        else
            diag_warn(d, p->file, at->line, at->col,
                      "cannot resolve data address '%s' of host '%s' here (%s): its address "
                      "family and duplicates are not checked",
                      h->data_address, h->name, e.msg);
        return false;
    }
    h->data_ip = arena_strndup(&p->arena, ip, strlen(ip));
    h->data_family = fam;
    return h->data_ip != NULL;
}

/* A resolved name that is another host's data address (or resolves to it). */
static void
resolved_dups(const struct plan *p, const bool *fresh, struct diags *d)
{
    size_t n = p->nhosts;
    for (size_t i = 0; i < n; i++) {
        if (!fresh[i])
            continue;
        char ki[300], kj[300];
        plan_address_key(p->hosts[i].data_ip, ki, sizeof ki);
        for (size_t j = 0; j < n; j++) {
            if (j == i || p->hosts[j].data_ip == NULL || (fresh[j] && j > i))
                continue;
            plan_address_key(p->hosts[j].data_ip, kj, sizeof kj);
            if (strcmp(ki, kj) != 0)
                continue;
            const struct plan_pos *at = &p->daddr_pos[i], *other = &p->daddr_pos[j];
            diag_add(d, p->file, at->line, at->col,
                     "duplicate data address: '%s' of host '%s' resolves to %s, the data "
                     "address of host '%s' (at %u:%u)",
                     p->hosts[i].data_address, p->hosts[i].name, p->hosts[i].data_ip,
                     p->hosts[j].name, other->line, other->col);
            break;
        }
    }
}

int
plan_resolve_names(struct plan *p, plan_resolve_fn fn, void *ctx, struct diags *d)
{
    size_t n = p->nhosts, before = diag_total(d);
    bool *fresh = calloc(n ? n : 1, sizeof *fresh);
    if (fresh == NULL)
        return NS_ENOMEM;
    bool any = false;
    for (size_t i = 0; i < n; i++) {
        if (p->hosts[i].data_family != PLAN_FAMILY_UNKNOWN || !p->daddr_given[i])
            continue;
        fresh[i] = resolve_one(p, i, fn, ctx, d);
        any = any || fresh[i];
    }
    if (any) {
        resolved_dups(p, fresh, d);
        plan_check_families(p, d, fresh);
    }
    free(fresh);
    diag_sort(d);
    if (diag_oom(d))
        return NS_ENOMEM;
    return diag_total(d) > before ? NS_EPARSE : 0;
}
