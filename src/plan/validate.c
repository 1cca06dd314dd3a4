/* validate.c - the plan's top level: build a struct plan from the tree, reporting every
 * problem; hosts, scenarios and pairs have their own files. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "common/errors.h"
#include "plan/fields.h"

static const char *const directions_choices[] = {"both", "one", NULL};
static const char *const order_choices[] = {"sequential", "shuffled", NULL};

static const struct fdesc plan_fields[] = {
    {.key = "name", .type = FT_NAME, .off = offsetof(struct plan, name), .required = true},
    {.key = "description",
     .type = FT_STR,
     .off = offsetof(struct plan, description),
     .multiline = true},
    {.key = "ssh", .type = FT_NODE},
    {.key = "hosts", .type = FT_NODE, .required = true}, /* or hosts_from */
    {.key = "hosts_from", .type = FT_NODE},
    {.key = "zones", .type = FT_NODE},
    {.key = "defaults", .type = FT_NODE},
    {.key = "scenarios", .type = FT_NODE, .required = true},
    {.key = "trials",
     .type = FT_CONV,
     .off = offsetof(struct plan, trials),
     .conv = plan_trials_store,
     .size = sizeof(struct trials_policy)},
    {.key = "pairs", .type = FT_NODE},
    {.key = "directions",
     .type = FT_ENUM,
     .off = offsetof(struct plan, directions),
     .choices = directions_choices},
    {.key = "parallel", .type = FT_BOOL, .off = offsetof(struct plan, parallel)},
    {.key = "order",
     .type = FT_ENUM,
     .off = offsetof(struct plan, order),
     .choices = order_choices},
    {.key = "seed", .type = FT_U64, .off = offsetof(struct plan, seed)},
    {.key = "retries",
     .type = FT_UINT,
     .off = offsetof(struct plan, retries),
     .min = 0,
     .max = PLAN_MAX_RETRIES,
     .range = "0..10"},
    {.key = "output", .type = FT_STR, .off = offsetof(struct plan, output)},
};

#define NPLAN_FIELDS (sizeof plan_fields / sizeof plan_fields[0])

const struct fdesc *
plan_root_fields(size_t *n)
{
    *n = NPLAN_FIELDS;
    return plan_fields;
}

static const char *const placeholders[] = {"name", "timestamp"};

/* The text between { and } at s (s points after the '{'); its length, or -1 when unclosed. */
static long
placeholder_len(const char *s)
{
    const char *end = strchr(s, '}');
    return end == NULL ? -1 : (long)(end - s);
}

/* The problem of placeholder word ("unknown placeholder '{x}'<where>; ..." into why), or 0. */
static int
placeholder_problem(const char *word, const char *where, char *why, size_t len)
{
    if (strcmp(word, "name") == 0 || strcmp(word, "timestamp") == 0)
        return 0;
    const char *near = suggest_closest(word, placeholders, 2);
    if (near != NULL)
        snprintf(why, len, "unknown placeholder '{%s}'%s; did you mean '{%s}'?", word, where, near);
    else
        snprintf(why, len, "unknown placeholder '{%s}'%s; expected {name} or {timestamp}", word,
                 where);
    return NS_EINVAL;
}

/* The placeholders of tmpl: with c, every problem is reported at n; without, the first one is
 * left in why. Returns 0 or NS_EINVAL. */
static int
template_check(const char *tmpl, const char *where, struct vctx *c, const struct ynode *n,
               char *why, size_t len)
{
    int rc = 0;
    for (const char *open = strchr(tmpl, '{'); open != NULL; open = strchr(open + 1, '{')) {
        long wl = placeholder_len(open + 1);
        if (wl < 0) {
            snprintf(why, len, "unclosed '{'%s", where);
            if (c != NULL)
                plan_verr(c, n, "%s", why);
            return NS_EINVAL;
        }
        char word[64];
        snprintf(word, sizeof word, "%.*s", (int)wl, open + 1);
        if (placeholder_problem(word, where, why, len) == 0)
            continue;
        rc = NS_EINVAL;
        if (c == NULL)
            return rc; /* the first one is enough for a command line */
        plan_verr(c, n, "%s", why);
    }
    return rc;
}

int
plan_output_template_check(const char *tmpl, char *why, size_t len)
{
    return template_check(tmpl, "", NULL, NULL, why, len);
}

static void
validate_output(struct vctx *c, const struct ynode *n)
{
    const char *s = c->p->output;
    char why[200];
    if (n != NULL && s != NULL && n->kind == YNODE_SCALAR)
        template_check(s, " in output", c, n, why, sizeof why);
}

static void
plan_set_defaults(struct plan *p)
{
    p->description = "";
    p->output = "results/{name}-{timestamp}";
    p->trials = trials_fixed(1);
    p->parallel = true;
    p->pairs = PLAN_PAIRS_ALL;
    p->retries = PLAN_DEFAULT_RETRIES;
}

static void
validate_totals(struct vctx *c, const struct ynode *root)
{
    struct plan *p = c->p;
    uint64_t trials = 0;
    for (size_t i = 0; i < p->nscenarios; i++)
        trials += p->scenarios[i].trials.max;
    p->ntests = (uint64_t)p->npairs * trials;
    if (p->ntests > PLAN_MAX_TESTS)
        plan_verr(c, root,
                  "plan has %llu tests, more than the limit of %llu; select fewer pairs, "
                  "scenarios or trials",
                  (unsigned long long)p->ntests, PLAN_MAX_TESTS);
}

/* The hosts: the plan's own, those of its inventories, merged; their zones numbered. */
static void
validate_all_hosts(struct vctx *c, const struct fvals *v)
{
    const struct ynode *hosts = plan_fields_get(plan_fields, NPLAN_FIELDS, v, "hosts");
    const struct ynode *from = plan_fields_get(plan_fields, NPLAN_FIELDS, v, "hosts_from");
    plan_validate_hosts(c, hosts, plan_fields_get(plan_fields, NPLAN_FIELDS, v, "ssh"),
                        from != NULL);
    struct plan_zone_rules zones;
    plan_validate_zones(c, plan_fields_get(plan_fields, NPLAN_FIELDS, v, "zones"), &zones);
    struct plan_imports im = {0};
    plan_validate_hosts_from(c, from, &zones, &im);
    plan_merge_hosts(c, &im, &zones);
    plan_imports_release(&im);
    plan_hosts_zones(c);
}

static void
validate_root(struct vctx *c, const struct ynode *root)
{
    struct fvals v;
    if (!plan_fields_collect(c, root, plan_fields, NPLAN_FIELDS, UINT32_MAX, &v, "the plan"))
        return;
    /* hosts_from stands for hosts: a plan may have either or both */
    struct fvals req = v;
    int hi = plan_fields_index(plan_fields, NPLAN_FIELDS, "hosts");
    if (req.key[hi] == NULL)
        req.key[hi] = req.key[plan_fields_index(plan_fields, NPLAN_FIELDS, "hosts_from")];
    plan_fields_require(c, root, plan_fields, NPLAN_FIELDS, &req, "the plan");
    plan_fields_store(c, plan_fields, NPLAN_FIELDS, &v, c->p);
    validate_output(c, plan_fields_get(plan_fields, NPLAN_FIELDS, &v, "output"));
    const struct ynode *seed = plan_fields_get(plan_fields, NPLAN_FIELDS, &v, "seed");
    if (seed != NULL && c->p->order == 0)
        plan_vwarn(c, seed, "seed has no effect with order: sequential (use order: shuffled)");
    const struct ynode *hosts = plan_fields_get(plan_fields, NPLAN_FIELDS, &v, "hosts");
    if (hosts == NULL)
        hosts = plan_fields_get(plan_fields, NPLAN_FIELDS, &v, "hosts_from");
    size_t before = diag_total(c->d);
    validate_all_hosts(c, &v);
    bool hosts_ok = diag_total(c->d) == before;
    if (hosts_ok)
        plan_zones_check(c);
    plan_validate_scenarios(c, plan_fields_get(plan_fields, NPLAN_FIELDS, &v, "scenarios"),
                            plan_fields_get(plan_fields, NPLAN_FIELDS, &v, "defaults"));
    plan_validate_pairs(c, plan_fields_get(plan_fields, NPLAN_FIELDS, &v, "pairs"), hosts,
                        hosts_ok);
    validate_totals(c, root);
}

int
plan_validate(struct plan *p, const struct ynode *root, struct diags *d)
{
    struct vctx c = {.p = p, .d = d, .file = p->file, .spec_kind = -1};
    size_t before = diag_total(d);
    plan_set_defaults(p);
    if (inv_yaml_is_null(root))
        plan_verr(&c, NULL, "plan is empty");
    else
        validate_root(&c, root);
    if (c.oom || diag_oom(d))
        return NS_ENOMEM;
    return diag_total(d) > before ? NS_EPARSE : 0;
}
