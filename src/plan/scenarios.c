/* scenarios.c - the plan's scenarios, resolved against the plan's `defaults` block: a value
 * from defaults applies only where it means something for the test kind, while a scenario
 * setting a value its kind ignores is a mistake worth reporting. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/testspec.h"
#include "plan/fields.h"

#define UDP_MAX_PAYLOAD 65507u

/* Scenario fields land here first: kind is an int (FT_ENUM). */
struct scen_raw {
    const char *name;
    int kind;
    unsigned trials, streams;
    uint64_t msg_size, response_size;
    double duration_s, warmup_s, interval_s;
    uint64_t rate_bps;
    bool reverse;
    uint64_t window;
};

static const char *const kind_choices[] = {"tcp_stream", "udp_stream", "tcp_rr",
                                           "udp_rr",     "tcp_crr",    NULL};

enum {
    SF_NAME,
    SF_TEST,
    SF_DURATION,
    SF_WARMUP,
    SF_TRIALS,
    SF_STREAMS,
    SF_MSG_SIZE,
    SF_RESPONSE_SIZE,
    SF_RATE,
    SF_INTERVAL,
    SF_REVERSE,
    SF_WINDOW,
    SF_COUNT
};

#define BIT(f) (1u << (f))

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
    [SF_DURATION] = {.key = "duration",
                     .type = FT_DUR,
                     .off = offsetof(struct scen_raw, duration_s),
                     .min = 0.001,
                     .max = 86400,
                     .range = "between 1ms and 24h"},
    [SF_WARMUP] = {.key = "warmup",
                   .type = FT_DUR,
                   .off = offsetof(struct scen_raw, warmup_s),
                   .min = 0,
                   .max = 3600,
                   .range = "between 0s and 1h"},
    [SF_TRIALS] = {.key = "trials",
                   .type = FT_UINT,
                   .off = offsetof(struct scen_raw, trials),
                   .min = 1,
                   .max = PLAN_MAX_TRIALS,
                   .range = "between 1 and 1000"},
    [SF_STREAMS] = {.key = "streams",
                    .type = FT_UINT,
                    .off = offsetof(struct scen_raw, streams),
                    .min = 1,
                    .max = PLAN_MAX_STREAMS,
                    .range = "between 1 and 128"},
    [SF_MSG_SIZE] = {.key = "msg_size",
                     .type = FT_SIZE,
                     .off = offsetof(struct scen_raw, msg_size),
                     .min = 1,
                     .max = 64 << 20,
                     .range = "between 1 and 64M"},
    [SF_RESPONSE_SIZE] = {.key = "response_size",
                          .type = FT_SIZE,
                          .off = offsetof(struct scen_raw, response_size),
                          .min = 1,
                          .max = 64 << 20,
                          .range = "between 1 and 64M"},
    [SF_RATE] = {.key = "rate",
                 .type = FT_RATE,
                 .off = offsetof(struct scen_raw, rate_bps),
                 .min = 1000,
                 .max = 1e12,
                 .range = "between 1k and 1T"},
    [SF_INTERVAL] = {.key = "interval",
                     .type = FT_DUR,
                     .off = offsetof(struct scen_raw, interval_s),
                     .min = 0,
                     .max = 3600,
                     .range = "between 0s and 1h"},
    [SF_REVERSE] = {.key = "reverse", .type = FT_BOOL, .off = offsetof(struct scen_raw, reverse)},
    [SF_WINDOW] = {.key = "window",
                   .type = FT_SIZE,
                   .off = offsetof(struct scen_raw, window),
                   .min = 1024,
                   .max = 1 << 30,
                   .range = "between 1K and 1G"},
};

#define DEFAULTS_ALLOWED (BIT(SF_COUNT) - 1 - BIT(SF_NAME) - BIT(SF_TEST) - BIT(SF_TRIALS))

static const struct scen_raw scen_builtin = {
    .kind = -1, .streams = 1, .duration_s = 10.0, .warmup_s = 1.0};

/* The fields that mean something for a kind. */
static uint32_t
kind_fields(int kind)
{
    uint32_t all = BIT(SF_NAME) | BIT(SF_TEST) | BIT(SF_DURATION) | BIT(SF_WARMUP) |
                   BIT(SF_TRIALS) | BIT(SF_MSG_SIZE) | BIT(SF_INTERVAL) | BIT(SF_WINDOW);
    if (kind == PLAN_TCP_STREAM || kind == PLAN_UDP_STREAM)
        return all | BIT(SF_STREAMS) | BIT(SF_RATE) | BIT(SF_REVERSE);
    return all | BIT(SF_RESPONSE_SIZE);
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

/* What nsperf would refuse because of the memory a test makes an endpoint hold
 * (common/limits.h): interval samples, and stream buffers. */
static void
scen_check_budget(struct vctx *c, const struct scen_raw *s, const struct fvals *own,
                  const struct scen_defaults *def, const struct ynode *at)
{
    const struct ynode *iv = value_node(own, def, SF_INTERVAL, at);
    bool bad_duration = own->key[SF_DURATION] != NULL && !(own->set & BIT(SF_DURATION));
    if (s->interval_s > 0 && s->interval_s < NS_MIN_INTERVAL_S)
        plan_verr(c, iv, "interval must be 0 or at least 10ms, not %s", iv->str);
    else if (s->interval_s > s->duration_s && !bad_duration)
        plan_verr(c, iv, "interval %s is longer than the duration (%gs)", iv->str, s->duration_s);
    else if (s->interval_s > 0 && !bad_duration &&
             ceil(s->duration_s / s->interval_s) * s->streams > NS_MAX_INTERVAL_CELLS)
        plan_verr(c, iv,
                  "interval %s gives %.0f samples (duration / interval x streams); at most %u",
                  iv->str, ceil(s->duration_s / s->interval_s) * s->streams, NS_MAX_INTERVAL_CELLS);
    bool stream = s->kind == PLAN_TCP_STREAM || s->kind == PLAN_UDP_STREAM;
    uint64_t size = s->msg_size > 0 ? s->msg_size : s->kind == PLAN_TCP_STREAM ? 1u << 20 : 1460u;
    if (stream && (uint64_t)s->streams * size > NS_MAX_STREAM_MEMORY)
        plan_verr(c, value_node(own, def, SF_STREAMS, at),
                  "%u streams x %llu-byte writes exceed %llu MiB of buffers", s->streams,
                  (unsigned long long)size, (unsigned long long)(NS_MAX_STREAM_MEMORY >> 20));
}

static void
scen_check_kind(struct vctx *c, const struct scen_raw *s, const struct fvals *own,
                const struct scen_defaults *def, const struct ynode *at)
{
    const char *kname = kind_choices[s->kind];
    uint32_t extra = own->set & ~kind_fields(s->kind);
    for (int f = 0; f < SF_COUNT; f++)
        if (extra & BIT(f))
            plan_verr(c, own->key[f], "%s does not apply to %s tests", scen_fields[f].key, kname);
    bool udp = s->kind == PLAN_UDP_STREAM || s->kind == PLAN_UDP_RR;
    if (udp && s->msg_size > UDP_MAX_PAYLOAD)
        plan_verr(c, value_node(own, def, SF_MSG_SIZE, at),
                  "msg_size must be at most 65507 for %s tests, not %s", kname,
                  value_node(own, def, SF_MSG_SIZE, at)->str);
    if (udp && s->response_size > UDP_MAX_PAYLOAD)
        plan_verr(c, value_node(own, def, SF_RESPONSE_SIZE, at),
                  "response_size must be at most 65507 for %s tests, not %s", kname,
                  value_node(own, def, SF_RESPONSE_SIZE, at)->str);
    if (s->kind == PLAN_UDP_STREAM && s->msg_size > 0 && s->msg_size < NS_UDP_STREAM_MIN)
        plan_verr(c, value_node(own, def, SF_MSG_SIZE, at),
                  "msg_size must be at least %u for udp_stream tests, not %s", NS_UDP_STREAM_MIN,
                  value_node(own, def, SF_MSG_SIZE, at)->str);
    scen_check_budget(c, s, own, def, at);
}

static void
scen_publish(struct plan_scenario *out, const struct scen_raw *s)
{
    out->name = s->name;
    out->kind = (enum plan_test_kind)s->kind;
    out->test = kind_choices[s->kind];
    out->trials = s->trials;
    out->streams = s->streams;
    out->msg_size = s->msg_size;
    out->response_size = s->response_size;
    out->duration_s = s->duration_s;
    out->warmup_s = s->warmup_s;
    out->interval_s = s->interval_s;
    out->rate_bps = s->rate_bps;
    out->reverse = s->reverse;
    out->window = s->window;
}

static void
scen_what(const struct ynode *n, size_t i, char *buf, size_t len)
{
    for (size_t k = 0; n->kind == YNODE_MAP && k + 1 < n->nkids; k += 2) {
        const struct ynode *key = n->kids[k], *val = n->kids[k + 1];
        if (key->kind == YNODE_SCALAR && strcmp(key->str, "name") == 0 &&
            val->kind == YNODE_SCALAR && val->len > 0) {
            snprintf(buf, len, "scenario '%.64s'", val->str);
            return;
        }
    }
    snprintf(buf, len, "scenario %zu", i + 1);
}

static void
scen_read(struct vctx *c, const struct ynode *n, size_t i, const struct scen_defaults *def,
          const struct ynode **name_nodes)
{
    char what[96];
    scen_what(n, i, what, sizeof what);
    struct fvals v;
    if (!plan_fields_collect(c, n, scen_fields, SF_COUNT, UINT32_MAX, &v, what))
        return;
    plan_fields_require(c, n, scen_fields, SF_COUNT, &v, what);
    struct scen_raw own = scen_builtin, s = scen_builtin;
    plan_fields_store(c, scen_fields, SF_COUNT, &v, &own);
    name_nodes[i] = (v.set & BIT(SF_NAME)) ? v.val[SF_NAME] : NULL;
    if (!(v.set & BIT(SF_TEST)))
        return; /* without a kind nothing else can be checked */
    plan_fields_copy(scen_fields, SF_COUNT, def->v.set & kind_fields(own.kind), &s, &def->raw);
    plan_fields_copy(scen_fields, SF_COUNT, v.set, &s, &own);
    if (!(v.set & BIT(SF_TRIALS)))
        s.trials = c->p->trials;
    scen_check_kind(c, &s, &v, def, v.val[SF_TEST]);
    scen_publish(&c->p->scenarios[i], &s);
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
