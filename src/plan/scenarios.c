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
    for (int f = SF_SPEC; f < SF_COUNT; f++) {
        if (out->v.val[f] == NULL || out->v.val[f]->kind != YNODE_SEQ)
            continue;
        plan_verr(c, out->v.val[f],
                  "defaults take one value for %s, not a list: a sweep is a scenario's",
                  scen_fields[f].key);
        out->v.val[f] = NULL; /* reported: not converted, not inherited */
        out->v.set &= ~BIT(f);
    }
    plan_fields_store(c, scen_fields, SF_COUNT, &out->v, &out->raw);
}

/* A list given for a test parameter: a sweep (plan.h struct plan_sweep). */
struct scen_sweep {
    int param;                /* -1: none */
    int field;                /* SPEC_FIELD(param) */
    const struct ynode *list; /* the list's node */
    double *values;           /* in the plan's arena, n of them */
    size_t n;
};

/* Take the scenario's list, if it gives one, out of v before the scalars are stored: a list
 * where a parameter takes none, and a second list, are reported here (their fields then count
 * as failed). The list's field keeps its bit set, and its value node is the list's. */
static bool
node_before(const struct ynode *a, const struct ynode *b)
{
    return a->line < b->line || (a->line == b->line && a->col < b->col);
}

static void
sweep_find(struct vctx *c, struct fvals *v, struct scen_sweep *sw)
{
    *sw = (struct scen_sweep){.param = -1, .field = -1};
    /* the first list in the file that a parameter may take is the sweep */
    for (int f = SF_SPEC; f < SF_COUNT; f++) {
        const struct ynode *n = v->val[f];
        if (n != NULL && n->kind == YNODE_SEQ &&
            testspec_sweepable((enum testspec_param)(f - SF_SPEC)) &&
            (sw->list == NULL || node_before(n, sw->list))) {
            sw->param = f - SF_SPEC;
            sw->field = f;
            sw->list = n;
        }
    }
    for (int f = SF_SPEC; f < SF_COUNT; f++) {
        const struct ynode *n = v->val[f];
        if (n == NULL || n->kind != YNODE_SEQ || f == sw->field)
            continue;
        char keys[128];
        if (!testspec_sweepable((enum testspec_param)(f - SF_SPEC)))
            plan_verr(c, n, "%s takes one value, not a list: a sweep is of %s", scen_fields[f].key,
                      testspec_sweepable_text(keys, sizeof keys));
        else
            plan_verr(c, n, "only one parameter may be swept in a scenario: %s here, %s at %u:%u",
                      scen_fields[f].key, scen_fields[sw->field].key, sw->list->line,
                      sw->list->col);
        v->val[f] = NULL; /* reported: present, not converted */
        v->set &= ~BIT(f);
    }
}

/* The sweep's values, each read as the parameter's one value would be (c->spec_kind's
 * range), duplicates refused. False after reporting a problem. */
static bool
sweep_read(struct vctx *c, struct scen_sweep *sw)
{
    const struct ynode *l = sw->list;
    const char *key = scen_fields[sw->field].key;
    if (l->nkids == 0) {
        plan_verr(c, l, "empty list for %s: a sweep needs two values or more", key);
        return false;
    }
    if (l->nkids == 1) {
        plan_verr(c, l,
                  "a list of one value for %s: write the value alone, or two or more to sweep",
                  key);
        return false;
    }
    if (l->nkids > TESTSPEC_SWEEP_MAX_VALUES) {
        plan_verr(c, l, "too many values for %s: %zu, the limit is %d", key, l->nkids,
                  TESTSPEC_SWEEP_MAX_VALUES);
        return false;
    }
    sw->values = plan_vcalloc(c, l->nkids, sizeof *sw->values);
    if (sw->values == NULL)
        return false;
    bool ok = true, read[TESTSPEC_SWEEP_MAX_VALUES] = {false};
    for (size_t i = 0; i < l->nkids; i++) {
        struct scen_raw one;
        if (!plan_field_store(c, &scen_fields[sw->field], l->kids[i], &one)) {
            ok = false;
            continue;
        }
        double x = one.v[sw->param];
        read[i] = true;
        for (size_t j = 0; j < i; j++) {
            if (read[j] && sw->values[j] == x) {
                plan_verr(c, l->kids[i], "duplicate %s %s in the sweep (first at %u:%u)", key,
                          l->kids[i]->str, l->kids[j]->line, l->kids[j]->col);
                ok = false;
                break;
            }
        }
        sw->values[i] = x;
    }
    sw->n = ok ? l->nkids : 0;
    return ok;
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
                const struct scen_defaults *def, const struct ynode *at,
                const struct scen_sweep *sw)
{
    int kind = (int)s->kind;
    uint32_t extra = own->set & ~kind_fields(kind);
    const struct ynode *said = NULL; /* a group (load) is said once, at its key */
    for (int f = 0; f < SF_COUNT; f++) {
        if (!(extra & BIT(f)) || (own->group[f] != NULL && own->group[f] == said))
            continue;
        said = own->group[f];
        plan_verr(c, said != NULL ? said : own->key[f], "%s does not apply to %s tests",
                  said != NULL ? said->str : scen_fields[f].key, kind_choices[kind]);
    }
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
    if (bad)
        return;
    /* the limits of several values, for each value of a sweep (s holds its first): a problem
     * that only some values have is said at each of them; one that every value has, at the
     * parameter the table blames (once, unless that is the swept one) */
    size_t nv = sw->n > 0 ? sw->n : 1, nbad = 0;
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < nv; i++) {
            struct testspec_values one = *s;
            if (sw->n > 0)
                testspec_values_set(&one, (enum testspec_param)sw->param, sw->values[i]);
            enum testspec_param b;
            struct err e;
            if (testspec_check_limits(&one, &b, &e) == 0)
                continue;
            if (pass == 0) {
                nbad++;
                continue;
            }
            bool at_value = sw->n > 0 && (nbad < nv || (int)b == sw->param);
            plan_verr(c, at_value ? sw->list->kids[i] : value_node(own, def, SPEC_FIELD(b), at),
                      "%s", e.msg);
            if (!at_value)
                return;
        }
    }
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

/* A scenario as written: its values (a sweep's first value among them) and its sweep. */
struct scen_out {
    struct plan_scenario sc;
    struct scen_sweep sw;
    bool read; /* sc is set */
};

/* The scalars of v into own, the sweep's list apart (sweep_read), its first value in own. */
static void
scen_store(struct vctx *c, struct fvals *v, struct scen_raw *own, struct scen_sweep *sw)
{
    sweep_find(c, v, sw);
    const struct ynode *test = v->val[SF_TEST];
    c->spec_kind = test != NULL && test->kind == YNODE_SCALAR ? testspec_kind_find(test->str) : -1;
    if (sw->list != NULL)
        v->val[sw->field] = NULL;
    plan_fields_store(c, scen_fields, SF_COUNT, v, own);
    if (sw->list != NULL) {
        v->val[sw->field] = sw->list;
        if (sweep_read(c, sw))
            own->v[sw->param] = sw->values[0];
        else
            v->set &= ~BIT(sw->field);
    }
    c->spec_kind = -1;
}

static void
scen_read(struct vctx *c, const struct ynode *n, size_t i, const struct scen_defaults *def,
          const struct ynode **name_nodes, struct scen_out *out)
{
    char what[96];
    plan_node_what(n, "scenario", i, what, sizeof what);
    struct fvals v;
    if (!plan_fields_collect(c, n, scen_fields, SF_COUNT, UINT32_MAX, &v, what))
        return;
    plan_fields_require(c, n, scen_fields, SF_COUNT, &v, what);
    struct scen_raw own = {.kind = -1}, s = {.kind = -1};
    scen_store(c, &v, &own, &out->sw);
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
    scen_check_kind(c, &vals, &v, def, v.val[SF_TEST], &out->sw);
    scen_publish(&out->sc, &s, &vals);
    out->read = true;
}

/* The plan's scenarios as the survey runs them: each written one, a sweep's once per value. */
static void
scen_expand(struct vctx *c, const struct scen_out *w, size_t nw)
{
    struct plan *p = c->p;
    size_t n = 0;
    for (size_t i = 0; i < nw; i++)
        n += w[i].sw.n > 0 ? w[i].sw.n : 1;
    p->scenarios = plan_vcalloc(c, n, sizeof *p->scenarios);
    if (p->scenarios == NULL)
        return;
    p->nscenarios = n;
    size_t k = 0;
    for (size_t i = 0; i < nw; i++) {
        size_t nv = w[i].sw.n > 0 ? w[i].sw.n : 1;
        for (size_t j = 0; j < nv; j++, k++) {
            struct plan_scenario *sc = &p->scenarios[k];
            *sc = w[i].sc;
            sc->sweep = (struct plan_sweep){.param = -1};
            if (w[i].sw.n == 0)
                continue;
            enum testspec_param sp = (enum testspec_param)w[i].sw.param;
            struct testspec_values v = w[i].sc.spec;
            testspec_values_set(&v, sp, w[i].sw.values[j]);
            struct scen_raw r = {.name = sc->name, .kind = (int)sc->kind, .trials = sc->trials};
            scen_publish(sc, &r, &v);
            sc->sweep = (struct plan_sweep){
                .param = w[i].sw.param, .values = w[i].sw.values, .nvalues = w[i].sw.n, .index = j};
        }
    }
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
    const struct ynode *names[PLAN_MAX_SCENARIOS] = {0};
    struct scen_out out[PLAN_MAX_SCENARIOS];
    memset(out, 0, list->nkids * sizeof *out);
    for (size_t i = 0; i < list->nkids; i++)
        scen_read(c, list->kids[i], i, &def, names, &out[i]);
    scen_dup_check(c, names, list->nkids);
    scen_expand(c, out, list->nkids);
}
