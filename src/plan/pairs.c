/* pairs.c - which ordered (src, dst) host pairs the survey measures: all, cross-zone,
 * same-zone or an explicit list; and, when the answer is "none", why. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/bitset.h"
#include "common/errors.h"
#include "plan/fields.h"

static const char *const pairs_choices[] = {"all", "cross-zone", "same-zone", NULL};

static const struct fdesc pairs_field = {
    .key = "pairs", .type = FT_ENUM, .off = 0, .choices = pairs_choices, .bad = "invalid pairs"};

bool
plan_pair_selected(const struct plan *p, uint32_t a, uint32_t b)
{
    if (a == b)
        return false;
    if (p->pairs == PLAN_PAIRS_CROSS_ZONE)
        return p->host_zone[a] != p->host_zone[b];
    if (p->pairs == PLAN_PAIRS_SAME_ZONE)
        return p->host_zone[a] == p->host_zone[b];
    return true;
}

/* --- explicit lists -------------------------------------------------------------------------- */

struct pair_ctx {
    const char **names;         /* host names for suggestions */
    uint64_t *seen;             /* nhosts x nhosts bits: directed pairs listed so far */
    const struct ynode **first; /* per listed pair, its node (for "first at") */
};

static long
pair_host(struct vctx *c, struct pair_ctx *pc, const struct ynode *n)
{
    if (!plan_vexpect(c, n, YNODE_SCALAR, "a host in a pair"))
        return -1;
    for (size_t i = 0; i < c->p->nhosts; i++)
        if (c->p->hosts[i].name != NULL && strcmp(c->p->hosts[i].name, n->str) == 0)
            return (long)i;
    const char *near = suggest_closest(n->str, pc->names, c->p->nhosts);
    if (near != NULL)
        plan_verr(c, n, "unknown host '%s' in pairs; did you mean '%s'?", n->str, near);
    else
        plan_verr(c, n, "unknown host '%s' in pairs", n->str);
    return -1;
}

static bool
seen_test(const struct pair_ctx *pc, size_t n, uint32_t a, uint32_t b)
{
    return bitset_test(pc->seen, (size_t)a * n + b);
}

/* Index of the earlier listed pair (a, b). */
static size_t
pair_find(const struct plan *p, uint32_t a, uint32_t b)
{
    size_t i = 0;
    while (i < p->nexplicit && !(p->explicit_pairs[i].src == a && p->explicit_pairs[i].dst == b))
        i++;
    return i;
}

static bool
pair_repeats(struct vctx *c, struct pair_ctx *pc, const struct ynode *item, uint32_t a, uint32_t b)
{
    struct plan *p = c->p;
    const char *an = p->hosts[a].name, *bn = p->hosts[b].name;
    if (seen_test(pc, p->nhosts, a, b)) {
        const struct ynode *f = pc->first[pair_find(p, a, b)];
        plan_verr(c, item, "duplicate pair [%s, %s] (first at %u:%u)", an, bn, f->line, f->col);
        return true;
    }
    if (p->directions == 0 && seen_test(pc, p->nhosts, b, a)) {
        const struct ynode *f = pc->first[pair_find(p, b, a)];
        plan_verr(c, item,
                  "pair [%s, %s] repeats [%s, %s] at %u:%u; directions: both already runs "
                  "both ways",
                  an, bn, bn, an, f->line, f->col);
        return true;
    }
    return false;
}

static void
pair_read(struct vctx *c, struct pair_ctx *pc, const struct ynode *item)
{
    if (!plan_vexpect(c, item, YNODE_SEQ, "a pair")) /* "expected a list" says [src, dst] */
        return;
    if (item->nkids != 2) {
        plan_verr(c, item, "a pair must name two hosts [src, dst], found %zu", item->nkids);
        return;
    }
    long a = pair_host(c, pc, item->kids[0]), b = pair_host(c, pc, item->kids[1]);
    if (a < 0 || b < 0)
        return;
    if (a == b) {
        plan_verr(c, item, "pair names host '%s' twice", item->kids[0]->str);
        return;
    }
    struct plan *p = c->p;
    if (pair_repeats(c, pc, item, (uint32_t)a, (uint32_t)b))
        return;
    bitset_set(pc->seen, (size_t)a * p->nhosts + (size_t)b);
    pc->first[p->nexplicit] = item;
    p->explicit_pairs[p->nexplicit++] = (struct plan_pair){(uint32_t)a, (uint32_t)b};
}

static void
pairs_explicit(struct vctx *c, const struct ynode *list)
{
    struct plan *p = c->p;
    p->pairs = PLAN_PAIRS_EXPLICIT;
    if (list->nkids == 0) {
        plan_verr(c, list, "pairs must list at least one [src, dst] pair, found none");
        return;
    }
    size_t n = p->nhosts;
    struct pair_ctx pc = {
        .names = calloc(n ? n : 1, sizeof *pc.names),
        .seen = calloc(bitset_words(n * n), sizeof *pc.seen),
        .first = calloc(list->nkids, sizeof *pc.first),
    };
    p->explicit_pairs = plan_vcalloc(c, list->nkids, sizeof *p->explicit_pairs);
    if (pc.names && pc.seen && pc.first && p->explicit_pairs) {
        for (size_t i = 0; i < n; i++)
            pc.names[i] = p->hosts[i].name ? p->hosts[i].name : "";
        for (size_t i = 0; i < list->nkids; i++)
            pair_read(c, &pc, list->kids[i]);
    } else {
        c->oom = true;
    }
    free(pc.names);
    free(pc.seen);
    free(pc.first);
}

/* --- counting, and saying why there is nothing to count ------------------------------------- */

static void
zone_sizes(const struct plan *p, size_t *sizes)
{
    for (size_t z = 0; z < p->nzones; z++)
        sizes[z] = 0;
    for (size_t i = 0; i < p->nhosts; i++)
        sizes[p->host_zone[i]]++;
}

static size_t
pairs_count(const struct plan *p, const size_t *sizes)
{
    size_t n = p->nhosts, same = 0;
    if (p->pairs == PLAN_PAIRS_EXPLICIT)
        return p->nexplicit * (p->directions == 0 ? 2 : 1);
    for (size_t z = 0; z < p->nzones; z++)
        same += sizes[z] * (sizes[z] - (sizes[z] > 0));
    size_t ordered = p->pairs == PLAN_PAIRS_ALL         ? n * (n - (n > 0))
                     : p->pairs == PLAN_PAIRS_SAME_ZONE ? same
                                                        : n * (n - (n > 0)) - same;
    return p->directions == 0 ? ordered : ordered / 2;
}

static void
zone_text(const struct plan *p, char *buf, size_t len)
{
    const struct plan_host *h = &p->hosts[0];
    if (h->region[0] != '\0')
        snprintf(buf, len, "zone '%.64s' of region '%.64s'", h->zone, h->region);
    else
        snprintf(buf, len, "zone '%.64s'", h->zone);
}

static void
pairs_explain_none(struct vctx *c, const struct ynode *at)
{
    const struct plan *p = c->p;
    char zone[160];
    if (p->pairs == PLAN_PAIRS_ALL) {
        plan_verr(c, at, "no pairs to test: pairs: all needs at least two hosts, found %zu",
                  p->nhosts);
    } else if (p->pairs == PLAN_PAIRS_CROSS_ZONE) {
        zone_text(p, zone, sizeof zone);
        plan_verr(c, at,
                  "no pairs to test: pairs: cross-zone needs hosts in two zones, but every "
                  "host is in %s",
                  zone);
    } else if (p->pairs == PLAN_PAIRS_SAME_ZONE) {
        plan_verr(c, at,
                  "no pairs to test: pairs: same-zone needs a zone with two hosts, but each "
                  "of the %zu zones has one",
                  p->nzones);
    }
}

/* cross-zone and same-zone need every host's zone (a plan where only some hosts have one is
 * refused whatever its pairs: plan_hosts_zones said so, host by host). */
static bool
pairs_zones_given(struct vctx *c)
{
    const struct plan *p = c->p;
    if (plan_zones_partial(p))
        return false;
    bool ok = true;
    for (size_t i = 0; i < p->nhosts; i++) {
        if (p->hosts[i].zone[0] != '\0')
            continue;
        plan_verr_at(c, p->host_pos[i], "host '%s' has no zone, which pairs: %s needs",
                     p->hosts[i].name ? p->hosts[i].name : "?", pairs_choices[p->pairs]);
        ok = false;
    }
    return ok;
}

static void
pairs_total(struct vctx *c, const struct ynode *pairs, const struct ynode *hosts_at, bool hosts_ok)
{
    struct plan *p = c->p;
    size_t *sizes = calloc(p->nzones ? p->nzones : 1, sizeof *sizes);
    if (sizes == NULL) {
        c->oom = true;
        return;
    }
    zone_sizes(p, sizes);
    p->npairs = pairs_count(p, sizes);
    free(sizes);
    bool zoned = p->pairs == PLAN_PAIRS_CROSS_ZONE || p->pairs == PLAN_PAIRS_SAME_ZONE;
    if (zoned && !pairs_zones_given(c))
        return;
    if (p->npairs == 0 && hosts_ok && p->pairs != PLAN_PAIRS_EXPLICIT)
        pairs_explain_none(c, pairs != NULL ? pairs : hosts_at);
}

int
plan_pairs_recount(struct plan *p)
{
    size_t *sizes = calloc(p->nzones ? p->nzones : 1, sizeof *sizes);
    if (sizes == NULL)
        return NS_ENOMEM;
    zone_sizes(p, sizes);
    p->npairs = pairs_count(p, sizes);
    free(sizes);
    uint64_t trials = 0;
    for (size_t i = 0; i < p->nscenarios; i++)
        trials += p->scenarios[i].trials.max; /* adaptive: the most there may be */
    p->ntests = (uint64_t)p->npairs * trials;
    return 0;
}

void
plan_validate_pairs(struct vctx *c, const struct ynode *pairs, const struct ynode *hosts_at,
                    bool hosts_ok)
{
    struct plan *p = c->p;
    bool ok = true;
    if (pairs != NULL && pairs->kind == YNODE_SEQ) {
        pairs_explicit(c, pairs);
    } else if (pairs != NULL && pairs->kind == YNODE_MAP) {
        plan_verr(c, pairs,
                  "wrong type for pairs: expected all, cross-zone, same-zone or a list of "
                  "[src, dst], found a mapping");
        ok = false;
    } else if (pairs != NULL) {
        int sel = PLAN_PAIRS_ALL;
        ok = plan_field_store(c, &pairs_field, pairs, &sel);
        p->pairs = sel;
    }
    if (ok && p->nhosts > 0 && p->host_zone != NULL)
        pairs_total(c, pairs, hosts_at, hosts_ok);
    if (ok && hosts_ok && p->nhosts > 0 && p->host_zone != NULL)
        plan_check_families(p, c->d, NULL);
}

/* --- address families ------------------------------------------------------------------------ */

struct fam_report {
    uint32_t first; /* the first host of the other family it is paired with */
    size_t more;    /* and how many others */
    bool any;
};

static const char *
family_name(enum plan_family f)
{
    return f == PLAN_FAMILY_IPV6 ? "IPv6" : "IPv4";
}

/* The pair (a, b) mixes families: noted at the later host of the two. */
static void
fam_note(const struct plan *p, struct fam_report *r, const bool *fresh, uint32_t a, uint32_t b)
{
    enum plan_family fa = p->hosts[a].data_family, fb = p->hosts[b].data_family;
    if (fa == PLAN_FAMILY_UNKNOWN || fb == PLAN_FAMILY_UNKNOWN || fa == fb)
        return;
    if (fresh != NULL && !fresh[a] && !fresh[b])
        return;
    uint32_t later = a > b ? a : b, other = a > b ? b : a;
    struct fam_report *x = &r[later];
    if (!x->any) {
        x->any = true;
        x->first = other;
    } else if (other != x->first) {
        x->more++;
    }
}

size_t
plan_check_families(const struct plan *p, struct diags *d, const bool *fresh)
{
    size_t n = p->nhosts, added = 0;
    struct fam_report *r = calloc(n ? n : 1, sizeof *r);
    if (r == NULL) {
        diag_add(d, p->file, 0, 0, "out of memory checking address families");
        return 1;
    }
    if (p->pairs == PLAN_PAIRS_EXPLICIT) {
        for (size_t i = 0; i < p->nexplicit; i++)
            fam_note(p, r, fresh, p->explicit_pairs[i].src, p->explicit_pairs[i].dst);
    } else {
        for (uint32_t a = 0; a < n; a++)
            for (uint32_t b = a + 1; b < n; b++)
                if (plan_pair_selected(p, a, b) || plan_pair_selected(p, b, a))
                    fam_note(p, r, fresh, a, b);
    }
    for (size_t i = 0; i < n; i++) {
        if (!r[i].any)
            continue;
        const struct plan_host *h = &p->hosts[i], *o = &p->hosts[r[i].first];
        char more[64] = "";
        if (r[i].more > 0)
            snprintf(more, sizeof more, " and %zu more", r[i].more);
        diag_add(d, p->file, p->daddr_pos[i].line, p->daddr_pos[i].col,
                 "host '%s' (%s data address %s) is paired with host '%s' (%s, %s)%s: a "
                 "test cannot cross address families; give every host an address of one "
                 "family, or list pairs of one family",
                 h->name, family_name(h->data_family), h->data_ip, o->name,
                 family_name(o->data_family), o->data_ip, more);
        added++;
    }
    free(r);
    return added;
}
