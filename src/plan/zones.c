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
 * value. A rule that matches no host is a warning: a glob written wrong. */
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
