/* scenarios.c - the plan's scenarios, resolved against the plan's `defaults` block: a value
 * from defaults applies only where it means something for the test kind, while a scenario
 * setting a value its kind ignores is a mistake worth reporting. */
#include <stdio.h>
#include <string.h>

#include "common/errors.h"
#include "common/testspec.h"
#include "plan/fields.h"

/* Scenario fields land here first: kind is an int (FT_ENUM), test parameters are the table's
 * doubles (FT_SPEC). */
struct scen_raw {
    const char *name;
    int kind;
    struct trials_policy trials;
    double v[TESTSPEC_PARAM_COUNT];
};

static const char *const kind_choices[TESTSPEC_KIND_COUNT + 1] = {
#define KIND_NAME(id, name, fam, metric, rtt, def_len, min_len, max_len, def_rate)                 \
    [TESTSPEC_##id] = #name,
    TESTSPEC_KIND_MAP(KIND_NAME)
#undef KIND_NAME
};

/* name, test, trials, then one field per test parameter, in the table's order. */
enum { SF_NAME, SF_TEST, SF_TRIALS, SF_SPEC, SF_COUNT = SF_SPEC + TESTSPEC_PARAM_COUNT };

_Static_assert(SF_COUNT <= FIELDS_MAX, "scenario fields fit a struct fvals");

#define BIT(f) (1u << (f))
#define SPEC_FIELD(param) (SF_SPEC + (int)(param))

static const struct fdesc scen_fields[SF_COUNT] = {
    [SF_NAME] = {.key = "name",
                 .type = FT_NAME,
                 .off = offsetof(struct scen_raw, name),
                 .required = true},
    [SF_TEST] = {.key = "test",
                 .type = FT_ENUM,
                 .off = offsetof(struct scen_raw, kind),
                 .required = true,
                 .choices = kind_choices,
                 .bad = "unknown test kind"},
    [SF_TRIALS] = {.key = "trials",
                   .type = FT_CONV,
                   .off = offsetof(struct scen_raw, trials),
                   .conv = plan_trials_store,
                   .size = sizeof(struct trials_policy)},
#define SPEC_ROW(id, key_, rkey, wkey, flag, words, type_, lo, hi, zero, def, kinds)               \
    [SF_SPEC + TESTSPEC_P_##                                                                       \
        id] = {.key = key_,                                                                        \
               .type = FT_SPEC,                                                                    \
               .off = offsetof(struct scen_raw, v) + TESTSPEC_P_##id * sizeof(double),             \
               .spec = TESTSPEC_P_##id},
    TESTSPEC_PARAM_MAP(SPEC_ROW)
#undef SPEC_ROW
};

const struct fdesc *
plan_scenario_fields(size_t *n)
{
    *n = SF_COUNT;
    return scen_fields;
}

#define SPEC_BITS ((BIT(SF_COUNT) - 1) & ~(BIT(SF_SPEC) - 1))
#define DEFAULTS_ALLOWED SPEC_BITS

/* The fields that mean something for a kind. */
static uint32_t
kind_fields(int kind)
{
    uint32_t f = BIT(SF_NAME) | BIT(SF_TEST) | BIT(SF_TRIALS);
    for (int i = 0; i < TESTSPEC_PARAM_COUNT; i++)
        if (testspec_applies((enum testspec_param)i, kind))
            f |= BIT(SPEC_FIELD(i));
    return f;
}

struct scen_defaults {
    struct scen_raw raw;
    struct fvals v;
};

static void
defaults_read(struct vctx *c, const struct ynode *n, struct scen_defaults *out)
{
    memset(out, 0, sizeof *out);
    if (n == NULL ||
        !plan_fields_collect(c, n, scen_fields, SF_COUNT, DEFAULTS_ALLOWED, &out->v, "defaults"))
        return;
    plan_fields_store(c, scen_fields, SF_COUNT, &out->v, &out->raw);
}

/* The node a resolved value came from: the scenario's own, else the defaults', else at. */
static const struct ynode *
value_node(const struct fvals *own, const struct scen_defaults *def, int f, const struct ynode *at)
{
    if (own->set & BIT(f))
        return own->val[f];
    if (def->v.set & BIT(f))
        return def->v.val[f];
    return at;
}

/* Fields present but not converted (already reported), own or from defaults, for kind. */
static bool
scen_any_failed(const struct fvals *own, const struct scen_defaults *def, int kind)
{
    uint32_t mine = 0, inherited = 0;
    for (int f = 0; f < SF_COUNT; f++) {
        mine |= own->key[f] != NULL ? BIT(f) : 0;
        inherited |= def->v.key[f] != NULL ? BIT(f) : 0;
    }
    uint32_t failed = (mine & ~own->set) | (inherited & ~def->v.set & kind_fields(kind));
    return (failed & SPEC_BITS) != 0;
}

/* The table's checks for the scenario's kind: keys that do not apply, ranges that depend on
 * the kind, and the limits involving several values: what nsperf would refuse. */
static void
scen_check_kind(struct vctx *c, const struct testspec_values *s, const struct fvals *own,
                const struct scen_defaults *def, const struct ynode *at)
{
    int kind = (int)s->kind;
    uint32_t extra = own->set & ~kind_fields(kind);
    for (int f = 0; f < SF_COUNT; f++)
        if (extra & BIT(f))
            plan_verr(c, own->key[f], "%s does not apply to %s tests", scen_fields[f].key,
                      kind_choices[kind]);
    bool bad = scen_any_failed(own, def, kind) || extra != 0;
    for (int i = 0; i < TESTSPEC_PARAM_COUNT; i++) {
        enum testspec_param p = (enum testspec_param)i;
        bool own_value = own->set & BIT(SPEC_FIELD(p)); /* checked for kind when read */
        if (!(s->set & TESTSPEC_BIT(p)) || own_value || testspec_in_range(p, kind, s->v[p]))
            continue;
        const struct ynode *n = value_node(own, def, SPEC_FIELD(p), at);
        struct err e;
        testspec_range_error(&e, p, kind, testspec_key(p), n->str);
        plan_verr(c, n, "%s", e.msg);
        bad = true;
    }
    enum testspec_param blame;
    struct err e;
    if (!bad && testspec_check_limits(s, &blame, &e) != 0)
        plan_verr(c, value_node(own, def, SPEC_FIELD(blame), at), "%s", e.msg);
}

/* The resolved values; duration and warmup are always given (the plan's defaults are nsperf's,
 * written out so that a record says what ran). */
static void
scen_values(const struct scen_raw *s, uint32_t set, struct testspec_values *out)
{
    testspec_values_default(out, (enum testspec_kind)s->kind);
    uint32_t given = set;
    set |= BIT(SPEC_FIELD(TESTSPEC_P_DURATION)) | BIT(SPEC_FIELD(TESTSPEC_P_WARMUP));
    for (int i = 0; i < TESTSPEC_PARAM_COUNT; i++)
        if (set & BIT(SPEC_FIELD(i)))
            testspec_values_set(out, (enum testspec_param)i,
                                given & BIT(SPEC_FIELD(i)) ? s->v[i] : out->v[i]);
}

static void
scen_publish(struct plan_scenario *out, const struct scen_raw *s, const struct testspec_values *v)
{
    const double *x = v->v;
    bool stream = testspec_applies(TESTSPEC_P_STREAMS, s->kind);
    out->name = s->name;
    out->kind = (enum testspec_kind)s->kind;
    out->test = kind_choices[s->kind];
    out->trials = s->trials;
    out->streams = (unsigned)x[TESTSPEC_P_STREAMS];
    out->msg_size =
        v->set & TESTSPEC_BIT(TESTSPEC_P_MSG_SIZE) ? (uint64_t)x[TESTSPEC_P_MSG_SIZE] : 0;
    out->response_size = !stream && (v->set & TESTSPEC_BIT(TESTSPEC_P_RESPONSE_SIZE))
                             ? (uint64_t)x[TESTSPEC_P_RESPONSE_SIZE]
                             : 0;
    out->duration_s = x[TESTSPEC_P_DURATION];
    out->warmup_s = x[TESTSPEC_P_WARMUP];
    out->interval_s = x[TESTSPEC_P_INTERVAL];
    out->rate_bps = v->set & TESTSPEC_BIT(TESTSPEC_P_RATE) ? (uint64_t)x[TESTSPEC_P_RATE] : 0;
    out->reverse = x[TESTSPEC_P_REVERSE] != 0;
    out->window = (uint64_t)x[TESTSPEC_P_WINDOW];
    out->spec = *v;
}

static void
scen_read(struct vctx *c, const struct ynode *n, size_t i, const struct scen_defaults *def,
          const struct ynode **name_nodes)
{
    char what[96];
    plan_node_what(n, "scenario", i, what, sizeof what);
    struct fvals v;
    if (!plan_fields_collect(c, n, scen_fields, SF_COUNT, UINT32_MAX, &v, what))
        return;
    plan_fields_require(c, n, scen_fields, SF_COUNT, &v, what);
    struct scen_raw own = {.kind = -1}, s = {.kind = -1};
    const struct ynode *test = v.val[SF_TEST];
    c->spec_kind = test != NULL && test->kind == YNODE_SCALAR ? testspec_kind_find(test->str) : -1;
    plan_fields_store(c, scen_fields, SF_COUNT, &v, &own);
    c->spec_kind = -1;
    name_nodes[i] = (v.set & BIT(SF_NAME)) ? v.val[SF_NAME] : NULL;
    if (!(v.set & BIT(SF_TEST)))
        return; /* without a kind nothing else can be checked */
    uint32_t inherited = def->v.set & kind_fields(own.kind) & ~v.set;
    plan_fields_copy(scen_fields, SF_COUNT, inherited, &s, &def->raw);
    plan_fields_copy(scen_fields, SF_COUNT, v.set, &s, &own);
    if (!(v.set & BIT(SF_TRIALS)))
        s.trials = c->p->trials;
    struct testspec_values vals;
    scen_values(&s, (v.set | inherited) & kind_fields(own.kind), &vals);
    scen_check_kind(c, &vals, &v, def, v.val[SF_TEST]);
    scen_publish(&c->p->scenarios[i], &s, &vals);
}

static void
scen_dup_check(struct vctx *c, const struct ynode **names, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        for (size_t j = 0; j < i && names[i] != NULL; j++) {
            if (names[j] != NULL && strcmp(names[i]->str, names[j]->str) == 0) {
                plan_verr(c, names[i], "duplicate scenario name '%s' (first at %u:%u)",
                          names[i]->str, names[j]->line, names[j]->col);
                break;
            }
        }
    }
}

static bool
scen_list_ok(struct vctx *c, const struct ynode *list)
{
    if (list == NULL || !plan_vexpect(c, list, YNODE_SEQ, "scenarios"))
        return false;
    if (list->nkids == 0) {
        plan_verr(c, list, "scenarios must list at least one scenario, found none");
        return false;
    }
    if (list->nkids > PLAN_MAX_SCENARIOS) {
        plan_verr(c, list, "too many scenarios: %zu, the limit is %d", list->nkids,
                  PLAN_MAX_SCENARIOS);
        return false;
    }
    return true;
}

void
plan_validate_scenarios(struct vctx *c, const struct ynode *list, const struct ynode *defaults)
{
    struct scen_defaults def;
    defaults_read(c, defaults, &def);
    if (!scen_list_ok(c, list))
        return;
    struct plan *p = c->p;
    const struct ynode *names[PLAN_MAX_SCENARIOS] = {0};
    p->scenarios = plan_vcalloc(c, list->nkids, sizeof *p->scenarios);
    if (p->scenarios == NULL)
        return;
    p->nscenarios = list->nkids;
    for (size_t i = 0; i < p->nscenarios; i++)
        scen_read(c, list->kids[i], i, &def, names);
    scen_dup_check(c, names, p->nscenarios);
}
