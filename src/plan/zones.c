/* zones.c - the plan's `zones` map: what an inventory that knows no zones (an ssh config, an
 * Ansible inventory without zone variables, a regional Azure VM) cannot say.
 *
 *   zones:
 *     "zone1-*": "1"                                 # a zone alone
 *     "zone2-*": {zone: "2", region: westus3}
 *     "*": {region: westus3}                         # what the rules above left out
 *
 * Keys are fnmatch(3) globs on host names; every host (of `hosts` or of an inventory) gets each
 * of zone, region and zone_id it lacks from the first rule that matches it and gives that
 * value. A rule that matches no host is a warning: a glob written wrong.
 *
 * Also the rule every plan's zones follow, whatever gave them: the hosts of a region all have
 * a zone or none has one (plan_zones_check). */
#include <fnmatch.h>
#include <stdio.h>
#include <string.h>

#include "plan/fields.h"

struct zone_raw {
    const char *zone, *region, *zone_id;
};

static const struct fdesc zone_fields[] = {
    {.key = "zone", .type = FT_STR, .off = offsetof(struct zone_raw, zone)},
    {.key = "region", .type = FT_STR, .off = offsetof(struct zone_raw, region)},
    {.key = "zone_id", .type = FT_STR, .off = offsetof(struct zone_raw, zone_id)},
};

#define NZONE_FIELDS (sizeof zone_fields / sizeof zone_fields[0])

const struct fdesc *
plan_zone_fields(size_t *n)
{
    *n = NZONE_FIELDS;
    return zone_fields;
}

static void
zone_rule(struct vctx *c, const struct ynode *k, const struct ynode *v, struct plan_zone_rule *r)
{
    static const struct fdesc pattern = {.key = "zones pattern", .type = FT_STR};
    const char *pat = NULL;
    if (!plan_field_store(c, &pattern, k, &pat))
        return;
    char what[128];
    snprintf(what, sizeof what, "zones '%.64s'", pat);
    struct zone_raw raw = {0};
    if (v->kind == YNODE_SCALAR) {
        static const struct fdesc zone = {.key = "zone", .type = FT_STR};
        plan_field_store(c, &zone, v, &raw.zone);
    } else {
        struct fvals fv;
        if (!plan_fields_collect(c, v, zone_fields, NZONE_FIELDS, UINT32_MAX, &fv, what))
            return;
        plan_fields_store(c, zone_fields, NZONE_FIELDS, &fv, &raw);
        if (fv.key[0] == NULL && fv.key[1] == NULL && fv.key[2] == NULL)
            plan_verr(c, v, "%s gives no zone, region or zone_id", what);
    }
    *r = (struct plan_zone_rule){.pattern = pat,
                                 .zone = raw.zone,
                                 .region = raw.region,
                                 .zone_id = raw.zone_id,
                                 .pos = plan_node_pos(k)};
}

void
plan_validate_zones(struct vctx *c, const struct ynode *zones, struct plan_zone_rules *z)
{
    z->v = NULL;
    z->n = 0;
    if (zones == NULL || !plan_vexpect(c, zones, YNODE_MAP, "zones"))
        return;
    z->v = plan_vcalloc(c, zones->nkids / 2, sizeof *z->v);
    if (z->v == NULL)
        return;
    for (size_t i = 0; i + 1 < zones->nkids; i += 2) {
        const struct ynode *k = zones->kids[i];
        for (size_t j = 0; j < i && k->kind == YNODE_SCALAR; j += 2) {
            const struct ynode *prev = zones->kids[j];
            if (prev->kind == YNODE_SCALAR && strcmp(prev->str, k->str) == 0) {
                plan_verr(c, k, "duplicate key '%s' in zones (first at %u:%u)", k->str, prev->line,
                          prev->col);
                break;
            }
        }
        zone_rule(c, k, zones->kids[i + 1], &z->v[z->n]);
        if (z->v[z->n].pattern != NULL)
            z->n++;
    }
}

/* The first rule matching name that gives the member at off (of struct plan_zone_rule). */
static const char *
zone_value(struct plan_zone_rules *z, const char *name, size_t off)
{
    for (size_t i = 0; i < z->n; i++) {
        struct plan_zone_rule *r = &z->v[i];
        const char *v = *(const char *const *)((const char *)r + off);
        if (v != NULL && fnmatch(r->pattern, name, 0) == 0)
            return v;
    }
    return NULL;
}

void
plan_zones_fill(struct plan_zone_rules *z, struct plan_host *h)
{
    if (h->name == NULL)
        return;
    for (size_t i = 0; i < z->n; i++)
        if (fnmatch(z->v[i].pattern, h->name, 0) == 0)
            z->v[i].used = true;
    const char *v;
    if (h->zone[0] == '\0' && (v = zone_value(z, h->name, offsetof(struct plan_zone_rule, zone))))
        h->zone = v;
    if (h->region[0] == '\0' &&
        (v = zone_value(z, h->name, offsetof(struct plan_zone_rule, region))))
        h->region = v;
    if (h->zone_id[0] == '\0' &&
        (v = zone_value(z, h->name, offsetof(struct plan_zone_rule, zone_id))))
        h->zone_id = v;
}

void
plan_zones_unused(struct vctx *c, const struct plan_zone_rules *z)
{
    for (size_t i = 0; i < z->n; i++)
        if (!z->v[i].used)
            plan_vwarn_at(c, z->v[i].pos, "zones pattern '%s' matches no host", z->v[i].pattern);
}

/* The hosts of a region either all state a zone (or zone: auto) or none does: a host without
 * one among hosts with zones would be reported in a zone of no name beside theirs. A region
 * without zones (Azure's Japan West) is a place of its own beside zoned ones, and a plan none of
 * whose hosts has a zone is one of host pairs. region: auto is one region here: its hosts'
 * zones come with it. */
static bool
same_region(const struct plan_host *a, const struct plan_host *b)
{
    return strcmp(a->region, b->region) == 0;
}

/* Of the hosts of h's region: how many, how many state a zone, the first that does. */
static void
region_zones(const struct plan *p, const struct plan_host *h, size_t *n, size_t *zoned,
             size_t *first)
{
    *n = *zoned = *first = 0;
    for (size_t i = 0; i < p->nhosts; i++) {
        if (!same_region(&p->hosts[i], h))
            continue;
        (*n)++;
        if (p->hosts[i].zone[0] != '\0' && (*zoned)++ == 0)
            *first = i;
    }
}

void
plan_zones_check(struct vctx *c)
{
    const struct plan *p = c->p;
    for (size_t i = 0; i < p->nhosts; i++) {
        const struct plan_host *h = &p->hosts[i];
        if (h->zone[0] != '\0')
            continue;
        size_t n, zoned, first;
        region_zones(p, h, &n, &zoned, &first);
        if (zoned == 0)
            continue;
        char where[160] = "";
        if (h->region[0] != '\0')
            snprintf(where, sizeof where, " of region '%.100s'", h->region);
        plan_verr_at(c, p->host_pos[i],
                     "host '%s' has no zone, but %zu of the %zu hosts%s %s one ('%s'%s): give "
                     "every host a zone (or zone: auto), or none",
                     h->name ? h->name : "?", zoned, n, where, zoned == 1 ? "has" : "have",
                     p->hosts[first].name ? p->hosts[first].name : "?", zoned > 1 ? ", ..." : "");
    }
}

bool
plan_zones_partial(const struct plan *p)
{
    for (size_t i = 0; i < p->nhosts; i++) {
        size_t n, zoned, first;
        region_zones(p, &p->hosts[i], &n, &zoned, &first);
        if (zoned > 0 && zoned < n)
            return true;
    }
    return false;
}
