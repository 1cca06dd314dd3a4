/* hosts_merge.c - the plan's hosts once its inventories are read: its own `hosts` first, then
 * the imported ones in the order of hosts_from and of each file. A `hosts` entry replaces an
 * imported host of the same name (a note says so: that is how an operator corrects one machine
 * of an inventory); two inventories giving one name, or one giving it twice, is an error, as
 * are two hosts with one address. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/fields.h"

/* How messages name host k of the merged list (n0 hosts of the plan's own first). */
static void
host_where(const struct plan *p, size_t n0, const struct plan_import *const *from, size_t k,
           char *buf, size_t len)
{
    if (k < n0)
        snprintf(buf, len, "host '%.64s' at %u:%u", p->hosts[k].name ? p->hosts[k].name : "?",
                 p->host_pos[k].line, p->host_pos[k].col);
    else
        snprintf(buf, len, "host '%.64s' of %.300s", p->hosts[k].name, from[k - n0]->entry);
}

static long
own_host(const struct plan *p, size_t n0, const char *name)
{
    for (size_t i = 0; i < n0; i++)
        if (p->hosts[i].name != NULL && strcmp(p->hosts[i].name, name) == 0)
            return (long)i;
    return -1;
}

/* Imported hosts that a hosts entry replaces (noted), or that an earlier import already gave
 * (an error); keep[i] says which stay. */
static void
merge_names(struct vctx *c, const struct plan_imports *im, size_t n0, bool *keep)
{
    struct plan *p = c->p;
    for (size_t i = 0; i < im->n; i++) {
        const struct plan_import *a = &im->v[i];
        long own = own_host(p, n0, a->h.name);
        keep[i] = own < 0;
        if (own >= 0) {
            plan_vnote_at(c, a->pos, "host '%s' of %s is replaced by the hosts entry at %u:%u",
                          a->h.name, a->entry, p->host_pos[own].line, p->host_pos[own].col);
            continue;
        }
        for (size_t j = 0; j < i; j++) {
            const struct plan_import *b = &im->v[j];
            if (!keep[j] || strcmp(a->h.name, b->h.name) != 0)
                continue;
            if (a->source == b->source)
                plan_verr_at(c, a->pos, "duplicate host name '%s' (%s; also %s)", a->h.name,
                             a->entry, b->entry);
            else
                plan_verr_at(c, a->pos,
                             "duplicate host name '%s' (%s; also %s, of the hosts_from entry at "
                             "%u:%u)",
                             a->h.name, a->entry, b->entry, b->pos.line, b->pos.col);
            keep[i] = false;
            break;
        }
    }
}

static unsigned
ssh_port(const struct plan_host *h)
{
    return h->ssh.port != 0 ? h->ssh.port : 22;
}

/* Imported host k against every host before it, as hosts.c checks the plan's own. */
static void
merge_addresses(struct vctx *c, size_t n0, const struct plan_import *const *from, size_t k,
                char (*keys)[2][300])
{
    const struct plan *p = c->p;
    const struct plan_host *b = &p->hosts[k];
    const struct plan_import *im = from[k - n0];
    for (size_t j = 0; j < k; j++) {
        const struct plan_host *a = &p->hosts[j];
        bool ssh = a->transport == PLAN_TRANSPORT_SSH;
        bool same = ssh && strcmp(keys[j][0], keys[k][0]) == 0 && ssh_port(a) == ssh_port(b);
        bool same_data = strcmp(keys[j][1], keys[k][1]) == 0;
        if (!same && !same_data)
            continue;
        char other[400];
        host_where(p, n0, from, j, other, sizeof other);
        if (same)
            plan_verr_at(c, im->pos,
                         "duplicate address '%s' of '%s' (%s; %s has the same address and ssh "
                         "port)",
                         b->address, b->name, im->entry, other);
        else
            plan_verr_at(c, im->pos, "duplicate data address '%s' of '%s' (%s; also %s)",
                         b->data_address, b->name, im->entry, other);
        return;
    }
}

/* Each inventory's hosts (kept, by name) and the ones hosts entries replaced. */
static void
merge_lists(struct vctx *c, const struct plan_imports *im, const bool *keep, size_t n0)
{
    struct plan *p = c->p;
    for (size_t s = 0; s < p->ninventories; s++) {
        struct plan_inventory *inv = &p->inventories[s];
        size_t nk = 0, nr = 0;
        for (size_t i = 0; i < im->n; i++)
            if (im->v[i].source == s)
                keep[i] ? nk++ : nr++;
        const char **hosts = plan_vcalloc(c, nk, sizeof *hosts);
        const char **replaced = plan_vcalloc(c, nr, sizeof *replaced);
        if (hosts == NULL || replaced == NULL)
            return;
        for (size_t i = 0; i < im->n; i++) {
            if (im->v[i].source != s)
                continue;
            if (keep[i])
                hosts[inv->nhosts++] = im->v[i].h.name;
            else if (own_host(p, n0, im->v[i].h.name) >= 0)
                replaced[inv->nreplaced++] = im->v[i].h.name;
        }
        inv->hosts = hosts;
        inv->replaced = replaced;
    }
}

static bool
merge_append(struct vctx *c, const struct plan_imports *im, const bool *keep, size_t kept,
             const struct plan_import **from)
{
    struct plan *p = c->p;
    size_t n0 = p->nhosts, n = n0 + kept;
    struct plan_host *hosts = plan_vcalloc(c, n, sizeof *hosts);
    struct plan_pos *pos = plan_vcalloc(c, n, sizeof *pos);
    struct plan_pos *dpos = plan_vcalloc(c, n, sizeof *dpos);
    bool *dgiven = plan_vcalloc(c, n, sizeof *dgiven);
    if (hosts == NULL || pos == NULL || dpos == NULL || dgiven == NULL)
        return false;
    if (n0 > 0) {
        memcpy(hosts, p->hosts, n0 * sizeof *hosts);
        memcpy(pos, p->host_pos, n0 * sizeof *pos);
        memcpy(dpos, p->daddr_pos, n0 * sizeof *dpos);
        memcpy(dgiven, p->daddr_given, n0 * sizeof *dgiven);
    }
    for (size_t i = 0, k = n0; i < im->n; i++) {
        if (!keep[i])
            continue;
        from[k - n0] = &im->v[i];
        pos[k] = dpos[k] = im->v[i].pos;
        hosts[k] = im->v[i].h;
        /* an inventory's name is learnt from the host (data_address_from_host), not resolved */
        plan_host_family_set(&hosts[k++]);
    }
    p->hosts = hosts;
    p->host_pos = pos;
    p->daddr_pos = dpos;
    p->daddr_given = dgiven;
    p->nhosts = n;
    return true;
}

/* Every imported host's addresses against the hosts before it. */
static void
merge_checks(struct vctx *c, size_t n0, const struct plan_import *const *from)
{
    const struct plan *p = c->p;
    char(*keys)[2][300] = calloc(p->nhosts ? p->nhosts : 1, sizeof *keys);
    if (keys == NULL) {
        c->oom = true;
        return;
    }
    for (size_t k = 0; k < p->nhosts; k++) {
        plan_address_key(p->hosts[k].address, keys[k][0], sizeof keys[k][0]);
        plan_address_key(p->hosts[k].data_address, keys[k][1], sizeof keys[k][1]);
    }
    for (size_t k = n0; k < p->nhosts; k++)
        merge_addresses(c, n0, from, k, keys);
    free(keys);
}

static void
merge_imports(struct vctx *c, struct plan_imports *im)
{
    struct plan *p = c->p;
    size_t n0 = p->nhosts, kept = 0;
    if (im->n > PLAN_MAX_HOSTS + n0) {
        plan_verr_at(c, im->v[0].pos, "too many hosts: %zu from hosts_from, the limit is %d", im->n,
                     PLAN_MAX_HOSTS);
        return;
    }
    bool *keep = calloc(im->n, sizeof *keep);
    const struct plan_import **from = calloc(im->n, sizeof *from);
    if (keep == NULL || from == NULL) {
        c->oom = true;
    } else {
        merge_names(c, im, n0, keep);
        for (size_t i = 0; i < im->n; i++)
            kept += keep[i];
        if (n0 + kept > PLAN_MAX_HOSTS)
            plan_verr_at(c, im->v[0].pos,
                         "too many hosts: %zu (%zu from hosts_from), the limit is %d", n0 + kept,
                         kept, PLAN_MAX_HOSTS);
        else if (merge_append(c, im, keep, kept, from))
            merge_checks(c, n0, from);
        merge_lists(c, im, keep, n0);
    }
    free(from);
    free(keep);
}

void
plan_merge_hosts(struct vctx *c, struct plan_imports *im, struct plan_zone_rules *z)
{
    for (size_t i = 0; i < c->p->nhosts; i++)
        plan_zones_fill(z, &c->p->hosts[i]);
    if (im->n > 0)
        merge_imports(c, im);
    plan_zones_unused(c, z);
}
