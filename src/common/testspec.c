/* testspec.c - readers of the kind and parameter tables of testspec.h. */
#include "common/testspec.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "common/errors.h"
#include "common/units.h"

struct kind_row {
    const char *name;
    enum testspec_family family;
    enum testspec_metric metric;
    bool rtt;
    double def_len, min_len, max_len, def_rate;
};

static const struct kind_row kinds[TESTSPEC_KIND_COUNT] = {
#define KIND_ROW(id, name, fam, metric, rtt, def_len, min_len, max_len, def_rate)                  \
    [TESTSPEC_##id] = {                                                                            \
        #name,   TESTSPEC_FAMILY_##fam, TESTSPEC_M_##metric, rtt, def_len, min_len, max_len,       \
        def_rate},
    TESTSPEC_KIND_MAP(KIND_ROW)
#undef KIND_ROW
};

struct metric_row {
    const char *key, *member;
    double divisor;
    const char *unit, *words, *note;
    bool lower;
    const char *figure;
    unsigned fig_kinds;
    int when;
};

static const struct metric_row metrics[TESTSPEC_METRIC_COUNT] = {
#define METRIC_ROW(id, key, member, div, unit, words, note, lower, fig, kinds, when)               \
    [TESTSPEC_M_##id] = {key, member, div, unit, words, note, lower, fig, kinds, when},
    TESTSPEC_METRIC_MAP(METRIC_ROW)
#undef METRIC_ROW
};

struct scale_row {
    enum testspec_metric metric;
    const char *unit;
    double factor;
    int max_decimals;
};

static const struct scale_row scales[] = {
#define SCALE_ROW(metric, unit, factor, dec) {TESTSPEC_M_##metric, unit, factor, dec},
    TESTSPEC_SCALE_MAP(SCALE_ROW)
#undef SCALE_ROW
};
#define NSCALES (sizeof scales / sizeof scales[0])

struct param_row {
    const char *key, *rkey, *wkey, *flag, *words;
    enum testspec_type type;
    double lo, hi;
    unsigned zero_kinds;
    double def;
    unsigned kinds;
};

static const struct param_row params[TESTSPEC_PARAM_COUNT] = {
#define PARAM_ROW(id, key, rkey, wkey, flag, words, type, lo, hi, zero, def, kinds)                \
    [TESTSPEC_P_##id] = {key, rkey, wkey, flag, words, type, lo, hi, zero, def, kinds},
    TESTSPEC_PARAM_MAP(PARAM_ROW)
#undef PARAM_ROW
};

/* --- kinds --------------------------------------------------------------------------------- */

const char *
testspec_kind_name(int kind)
{
    return kind >= 0 && kind < TESTSPEC_KIND_COUNT ? kinds[kind].name : NULL;
}

int
testspec_kind_find(const char *name)
{
    for (int i = 0; i < TESTSPEC_KIND_COUNT && name != NULL; i++)
        if (strcmp(kinds[i].name, name) == 0)
            return i;
    return -1;
}

char *
testspec_kind_list(char *buf, size_t len)
{
    size_t used = 0;
    if (len > 0)
        buf[0] = '\0';
    for (int i = 0; i < TESTSPEC_KIND_COUNT && used < len; i++) {
        const char *sep = i == 0 ? "" : i + 1 == TESTSPEC_KIND_COUNT ? " or " : ", ";
        int w = snprintf(buf + used, len - used, "%s%s", sep, kinds[i].name);
        used += w > 0 ? (size_t)w : 0;
    }
    return buf;
}

char *
testspec_kinds_text(unsigned mask, const char *sep, char *buf, size_t len)
{
    size_t used = 0;
    if (len > 0)
        buf[0] = '\0';
    for (int i = 0; i < TESTSPEC_KIND_COUNT && used < len; i++) {
        if (!((mask >> i) & 1u))
            continue;
        int w = snprintf(buf + used, len - used, "%s%s", used > 0 ? sep : "", kinds[i].name);
        used += w > 0 ? (size_t)w : 0;
    }
    return buf;
}

enum testspec_family
testspec_kind_family(enum testspec_kind kind)
{
    return kinds[kind].family;
}

enum testspec_metric
testspec_kind_metric(enum testspec_kind kind)
{
    return kinds[kind].metric;
}

bool
testspec_kind_has_rtt(enum testspec_kind kind)
{
    return kinds[kind].rtt;
}

const char *
testspec_kind_unit(enum testspec_kind kind)
{
    return metrics[kinds[kind].metric].unit;
}

const char *
testspec_kind_words(enum testspec_kind kind)
{
    return metrics[kinds[kind].metric].words;
}

bool
testspec_kind_lower_is_better(enum testspec_kind kind)
{
    return metrics[kinds[kind].metric].lower;
}

char *
testspec_kind_value_text(enum testspec_kind kind, double value, char *buf, size_t len)
{
    return testspec_metric_text(kinds[kind].metric, value, buf, len);
}

/* --- headline metrics ---------------------------------------------------------------------- */

const char *
testspec_metric_key(enum testspec_metric m)
{
    return metrics[m].key;
}

const char *
testspec_metric_member(enum testspec_metric m)
{
    return metrics[m].member;
}

double
testspec_metric_divisor(enum testspec_metric m)
{
    return metrics[m].divisor;
}

const char *
testspec_metric_unit(enum testspec_metric m)
{
    return metrics[m].unit;
}

const char *
testspec_metric_words(enum testspec_metric m)
{
    return metrics[m].words;
}

const char *
testspec_metric_note(enum testspec_metric m)
{
    return metrics[m].note;
}

bool
testspec_metric_lower_is_better(enum testspec_metric m)
{
    return metrics[m].lower;
}

struct testspec_scale
testspec_scale_for(enum testspec_metric m, double ref)
{
    const struct scale_row *pick = NULL, *own = NULL;
    double a = fabs(ref);
    for (size_t i = 0; i < NSCALES; i++) {
        if (strcmp(metrics[scales[i].metric].unit, metrics[m].unit) != 0)
            continue; /* the units of another reports' unit */
        if (pick == NULL || (isfinite(a) && a > 0.0 && a >= scales[i].factor))
            pick = &scales[i];
        if (scales[i].factor == 1.0)
            own = &scales[i];
    }
    if (!(isfinite(a) && a > 0.0) && own != NULL)
        pick = own;
    if (pick == NULL) /* a metric without units in the table: its own, as the reports hold it */
        return (struct testspec_scale){metrics[m].unit, 1.0, 3};
    double v = isfinite(a) ? a / pick->factor : 0.0;
    int dec = v >= 1000.0 ? 0 : v >= 100.0 ? 1 : v >= 10.0 ? 2 : 3;
    return (struct testspec_scale){pick->unit, pick->factor,
                                   dec < pick->max_decimals ? dec : pick->max_decimals};
}

char *
testspec_scale_text(const struct testspec_scale *s, double value, char *buf, size_t len)
{
    if (!isfinite(value)) {
        snprintf(buf, len, "n/a");
        return buf;
    }
    double v = value / s->factor, least = 0.5 * pow(10.0, -s->decimals);
    if (v != 0.0 && fabs(v) < least)
        snprintf(buf, len, "%s %.*f", v > 0 ? "<" : ">", s->decimals, (v > 0 ? 2.0 : -2.0) * least);
    else
        snprintf(buf, len, "%.*f", s->decimals, v);
    return buf;
}

char *
testspec_metric_text(enum testspec_metric m, double value, char *buf, size_t len)
{
    struct testspec_scale s = testspec_scale_for(m, value);
    char num[64];
    snprintf(buf, len, "%s %s", testspec_scale_text(&s, value, num, sizeof num), s.unit);
    return buf;
}

const char *
testspec_metric_figure(enum testspec_metric m)
{
    return metrics[m].figure;
}

bool
testspec_metric_reported(enum testspec_metric m, const struct testspec_values *v)
{
    const struct metric_row *r = &metrics[m];
    if (r->figure == NULL || (int)v->kind < 0 || v->kind >= TESTSPEC_KIND_COUNT ||
        !((r->fig_kinds >> v->kind) & 1u))
        return false;
    return r->when == TESTSPEC_ALWAYS || v->v[r->when] != 0;
}

/* --- directions ---------------------------------------------------------------------------- */

static const char *const directions[TESTSPEC_DIRECTION_COUNT] = {
#define DIRECTION_NAME(id, name) [TESTSPEC_DIRECTION_##id] = name,
    TESTSPEC_DIRECTION_MAP(DIRECTION_NAME)
#undef DIRECTION_NAME
};

const char *
testspec_direction_name(int d)
{
    return d >= 0 && d < TESTSPEC_DIRECTION_COUNT ? directions[d] : NULL;
}

int
testspec_direction_find(const char *name)
{
    for (int i = 0; i < TESTSPEC_DIRECTION_COUNT && name != NULL; i++)
        if (strcmp(directions[i], name) == 0)
            return i;
    return -1;
}

/* "forward, reverse or both" into buf. */
static char *
direction_list(char *buf, size_t len)
{
    size_t used = 0;
    if (len > 0)
        buf[0] = '\0';
    for (int i = 0; i < TESTSPEC_DIRECTION_COUNT && used < len; i++) {
        const char *sep = i == 0 ? "" : i + 1 == TESTSPEC_DIRECTION_COUNT ? " or " : ", ";
        int w = snprintf(buf + used, len - used, "%s%s", sep, directions[i]);
        used += w > 0 ? (size_t)w : 0;
    }
    return buf;
}

/* --- parameters ---------------------------------------------------------------------------- */

const char *
testspec_key(enum testspec_param p)
{
    return params[p].key;
}

const char *
testspec_record_key(enum testspec_param p)
{
    return params[p].rkey;
}

const char *
testspec_wire_key(enum testspec_param p)
{
    return params[p].wkey;
}

const char *
testspec_flag(enum testspec_param p)
{
    return params[p].flag;
}

const char *
testspec_words(enum testspec_param p)
{
    return params[p].words;
}

enum testspec_type
testspec_type(enum testspec_param p)
{
    return params[p].type;
}

bool
testspec_applies(enum testspec_param p, int kind)
{
    return kind >= 0 && kind < TESTSPEC_KIND_COUNT && (params[p].kinds >> kind) & 1u;
}

bool
testspec_sweepable(enum testspec_param p)
{
    return (unsigned)p < TESTSPEC_PARAM_COUNT && (TESTSPEC_SWEEP_PARAMS >> p) & 1u;
}

char *
testspec_sweepable_text(char *buf, size_t len)
{
    size_t n = 0, total = 0, used = 0;
    for (int i = 0; i < TESTSPEC_PARAM_COUNT; i++)
        total += testspec_sweepable((enum testspec_param)i);
    if (len > 0)
        buf[0] = '\0';
    for (int i = 0; i < TESTSPEC_PARAM_COUNT && used < len; i++) {
        if (!testspec_sweepable((enum testspec_param)i))
            continue;
        const char *sep = n == 0 ? "" : n + 1 == total ? " or " : ", ";
        int k = snprintf(buf + used, len - used, "%s%s", sep, params[i].key);
        used += k > 0 ? (size_t)k : 0;
        n++;
    }
    return buf;
}

/* A column value for one kind (kind >= 0). */
static double
column(enum testspec_param p, double v, int kind, bool lo)
{
    if (v == TESTSPEC_BY_KIND && p == TESTSPEC_P_MSG_SIZE)
        return lo ? kinds[kind].min_len : kinds[kind].max_len;
    if (v == TESTSPEC_BY_KIND)
        return kinds[kind].max_len; /* response_size: the request's largest size */
    return v;
}

double
testspec_min(enum testspec_param p, int kind)
{
    if (kind >= 0)
        return column(p, params[p].lo, kind, true);
    double m = INFINITY;
    for (int k = 0; k < TESTSPEC_KIND_COUNT; k++)
        if (testspec_applies(p, k))
            m = fmin(m, column(p, params[p].lo, k, true));
    return m;
}

double
testspec_max(enum testspec_param p, int kind)
{
    if (kind >= 0)
        return column(p, params[p].hi, kind, false);
    double m = -INFINITY;
    for (int k = 0; k < TESTSPEC_KIND_COUNT; k++)
        if (testspec_applies(p, k))
            m = fmax(m, column(p, params[p].hi, k, false));
    return m;
}

bool
testspec_zero_ok(enum testspec_param p, int kind)
{
    if (kind < 0)
        return (params[p].zero_kinds & params[p].kinds) != 0;
    return (params[p].zero_kinds >> kind) & 1u;
}

double
testspec_default(enum testspec_param p, int kind)
{
    double d = params[p].def;
    if (kind < 0 || kind >= TESTSPEC_KIND_COUNT)
        kind = 0;
    if (d == TESTSPEC_FOLLOWS_MSG)
        p = TESTSPEC_P_MSG_SIZE, d = params[p].def;
    if (d == TESTSPEC_BY_KIND)
        return p == TESTSPEC_P_MSG_SIZE ? kinds[kind].def_len : kinds[kind].def_rate;
    return d;
}

bool
testspec_in_range(enum testspec_param p, int kind, double value)
{
    if (isnan(value))
        return false;
    if (value == 0 && testspec_zero_ok(p, kind))
        return true;
    return value >= testspec_min(p, kind) && value <= testspec_max(p, kind);
}

/* --- text ---------------------------------------------------------------------------------- */

struct unit_step {
    double factor;
    const char *suffix;
};

static const struct unit_step dur_steps[] = {
    {3600, "h"}, {60, "m"}, {1, "s"}, {1e-3, "ms"}, {1e-6, "us"}};
static const struct unit_step size_steps[] = {{1073741824.0, "G"}, {1048576.0, "M"}, {1024, "K"}};
static const struct unit_step rate_steps[] = {{1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}};

/* The largest unit in which value is a whole number, else NULL. */
static const struct unit_step *
whole_unit(double value, const struct unit_step *steps, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        double x = value / steps[i].factor;
        if (x >= 1 && fabs(x - round(x)) <= 1e-9 * x)
            return &steps[i];
    }
    return NULL;
}

char *
testspec_value_text(enum testspec_param p, double value, char *buf, size_t len)
{
    const struct unit_step *u = NULL;
    switch (params[p].type) {
    case TESTSPEC_BOOL:
        snprintf(buf, len, "%s", value != 0 ? "true" : "false");
        return buf;
    case TESTSPEC_DIRECTION: {
        const char *name = testspec_direction_name((int)value);
        snprintf(buf, len, "%s", name != NULL ? name : "?");
        return buf;
    }
    case TESTSPEC_DURATION:
        u = whole_unit(value, dur_steps, sizeof dur_steps / sizeof *dur_steps);
        if (u == NULL)
            snprintf(buf, len, "%.15gs", value);
        break;
    case TESTSPEC_SIZE:
        u = whole_unit(value, size_steps, sizeof size_steps / sizeof *size_steps);
        break;
    case TESTSPEC_RATE:
        u = whole_unit(value, rate_steps, sizeof rate_steps / sizeof *rate_steps);
        break;
    case TESTSPEC_COUNT:
        break;
    }
    if (u != NULL)
        snprintf(buf, len, "%.0f%s", round(value / u->factor), u->suffix);
    else if (params[p].type != TESTSPEC_DURATION)
        snprintf(buf, len, "%.15g", value);
    else if (value == 0)
        snprintf(buf, len, "0s");
    return buf;
}

static void
range_only(enum testspec_param p, int kind, char *buf, size_t len)
{
    char lo[32], hi[32];
    if (params[p].type == TESTSPEC_DIRECTION) {
        direction_list(buf, len);
        return;
    }
    double min = testspec_min(p, kind);
    testspec_value_text(p, min, lo, sizeof lo);
    testspec_value_text(p, testspec_max(p, kind), hi, sizeof hi);
    if (testspec_zero_ok(p, kind) && min > 0)
        snprintf(buf, len, "0 or %s..%s", lo, hi);
    else
        snprintf(buf, len, "%s..%s", lo, hi);
}

char *
testspec_range_text(enum testspec_param p, int kind, char *buf, size_t len)
{
    char own[80], any[80];
    range_only(p, kind, own, sizeof own);
    range_only(p, -1, any, sizeof any);
    if (kind >= 0 && strcmp(own, any) != 0)
        snprintf(buf, len, "%s for %s", own, kinds[kind].name);
    else
        snprintf(buf, len, "%s", own);
    return buf;
}

int
testspec_range_error(struct err *e, enum testspec_param p, int kind, const char *who,
                     const char *value_text)
{
    char range[128];
    testspec_range_text(p, kind, range, sizeof range);
    return err_set(e, NS_ERANGE, "%s %s out of range %s", who, value_text, range);
}

/* --- parsing ------------------------------------------------------------------------------- */

static int
parse_count(const char *text, double *out, struct err *e)
{
    if (text[0] == '-' && strspn(text + 1, "0123456789") == strlen(text + 1) && text[1] != '\0')
        return err_set(e, NS_ERANGE, "count '%s' must not be negative", text);
    if (text[0] == '\0' || strspn(text, "0123456789") != strlen(text))
        return err_set(e, NS_EPARSE, "invalid count '%s': expected a whole number", text);
    errno = 0;
    unsigned long long v = strtoull(text, NULL, 10);
    if (errno == ERANGE || v > (1ull << 53))
        return err_set(e, NS_ERANGE, "count '%s' is too large", text);
    *out = (double)v;
    return 0;
}

json_t *
testspec_value_json(enum testspec_param p, double value)
{
    switch (testspec_type(p)) {
    case TESTSPEC_BOOL:
        return json_boolean(value != 0);
    case TESTSPEC_DIRECTION: {
        const char *name = testspec_direction_name((int)value);
        return name != NULL ? json_string(name) : NULL;
    }
    case TESTSPEC_DURATION:
        return json_real(value);
    default:
        return json_integer((json_int_t)value);
    }
}

int
testspec_parse(enum testspec_param p, const char *text, double *out, struct err *e)
{
    uint64_t u = 0;
    int rc = 0;
    switch (params[p].type) {
    case TESTSPEC_DURATION:
        return units_parse_duration(text, out, e);
    case TESTSPEC_SIZE:
        rc = units_parse_size(text, &u, e);
        break;
    case TESTSPEC_RATE:
        rc = units_parse_rate(text, &u, e);
        break;
    case TESTSPEC_COUNT:
        return parse_count(text, out, e);
    case TESTSPEC_DIRECTION: {
        char list[64];
        int d = testspec_direction_find(text);
        if (d < 0)
            return err_set(e, NS_EPARSE, "invalid %s '%s': expected %s", params[p].words, text,
                           direction_list(list, sizeof list));
        *out = d;
        return 0;
    }
    case TESTSPEC_BOOL:
        if (strcmp(text, "true") != 0 && strcmp(text, "false") != 0)
            return err_set(e, NS_EPARSE, "invalid %s '%s': expected true or false", params[p].key,
                           text);
        *out = text[0] == 't';
        return 0;
    }
    if (rc == 0 && u > (1ull << 53))
        rc = err_set(e, NS_ERANGE, "%s '%s' is too large", params[p].words, text);
    if (rc == 0)
        *out = (double)u;
    return rc;
}

/* --- values -------------------------------------------------------------------------------- */

void
testspec_values_default(struct testspec_values *v, enum testspec_kind kind)
{
    memset(v, 0, sizeof *v);
    v->kind = kind;
    for (int i = 0; i < TESTSPEC_PARAM_COUNT; i++)
        v->v[i] = testspec_default((enum testspec_param)i, (int)kind);
}

void
testspec_values_set(struct testspec_values *v, enum testspec_param p, double value)
{
    v->v[p] = value;
    v->set |= TESTSPEC_BIT(p);
    if (p == TESTSPEC_P_MSG_SIZE && !(v->set & TESTSPEC_BIT(TESTSPEC_P_RESPONSE_SIZE)))
        v->v[TESTSPEC_P_RESPONSE_SIZE] = value;
}

/* The streams a test runs: -P of a stream kind (twice with --bidir: that many each way), else 1. */
static double
data_streams(const struct testspec_values *v)
{
    if (!testspec_applies(TESTSPEC_P_STREAMS, (int)v->kind))
        return 1.0;
    bool bidir = testspec_applies(TESTSPEC_P_BIDIR, (int)v->kind) && v->v[TESTSPEC_P_BIDIR] != 0;
    return v->v[TESTSPEC_P_STREAMS] * (bidir ? 2.0 : 1.0);
}

static int
check_interval(const struct testspec_values *v, struct err *e)
{
    double iv = v->v[TESTSPEC_P_INTERVAL], dur = v->v[TESTSPEC_P_DURATION];
    double streams = data_streams(v);
    char a[32], b[32];
    testspec_value_text(TESTSPEC_P_INTERVAL, iv, a, sizeof a);
    if (iv > dur)
        return err_set(e, NS_ERANGE, "interval %s is longer than the duration (%s)", a,
                       testspec_value_text(TESTSPEC_P_DURATION, dur, b, sizeof b));
    double cells = ceil(dur / iv) * streams;
    if (cells > NS_MAX_INTERVAL_CELLS)
        return err_set(e, NS_ERANGE,
                       "interval %s gives %.0f samples (duration / interval x streams); at most %u",
                       a, cells, NS_MAX_INTERVAL_CELLS);
    return 0;
}

int
testspec_check_limits(const struct testspec_values *v, enum testspec_param *param, struct err *e)
{
    if (v->v[TESTSPEC_P_INTERVAL] > 0 && check_interval(v, e) != 0) {
        *param = TESTSPEC_P_INTERVAL;
        return NS_ERANGE;
    }
    double streams = data_streams(v), size = v->v[TESTSPEC_P_MSG_SIZE];
    if (testspec_applies(TESTSPEC_P_STREAMS, (int)v->kind) &&
        streams * size > (double)NS_MAX_STREAM_MEMORY) {
        *param = TESTSPEC_P_STREAMS;
        return err_set(e, NS_ERANGE, "%.0f streams x %.0f-byte writes exceed %llu MiB of buffers",
                       streams, size, (unsigned long long)(NS_MAX_STREAM_MEMORY >> 20));
    }
    int kind = (int)v->kind;
    if (testspec_applies(TESTSPEC_P_BIDIR, kind) && v->v[TESTSPEC_P_BIDIR] != 0 &&
        v->v[TESTSPEC_P_REVERSE] != 0) {
        *param = TESTSPEC_P_REVERSE;
        return err_set(e, NS_EINVAL, "%s and %s exclude each other: %s runs both directions",
                       params[TESTSPEC_P_REVERSE].key, params[TESTSPEC_P_BIDIR].key,
                       params[TESTSPEC_P_BIDIR].key);
    }
    if (testspec_applies(TESTSPEC_P_LOAD_STREAMS, kind) && v->v[TESTSPEC_P_LOAD_STREAMS] == 0 &&
        v->v[TESTSPEC_P_LOAD_DIRECTION] != testspec_default(TESTSPEC_P_LOAD_DIRECTION, kind)) {
        *param = TESTSPEC_P_LOAD_DIRECTION;
        return err_set(e, NS_EINVAL, "a %s without %s: there is no load",
                       params[TESTSPEC_P_LOAD_DIRECTION].words,
                       params[TESTSPEC_P_LOAD_STREAMS].words);
    }
    return 0;
}

int
testspec_values_check(const struct testspec_values *v, struct err *e)
{
    int kind = (int)v->kind;
    if (testspec_kind_name(kind) == NULL)
        return err_set(e, NS_EINVAL, "unknown test kind %d", kind);
    for (int i = 0; i < TESTSPEC_PARAM_COUNT; i++) {
        enum testspec_param p = (enum testspec_param)i;
        char who[64], val[32];
        snprintf(who, sizeof who, "%s: %s", params[p].flag, params[p].words);
        testspec_value_text(p, v->v[p], val, sizeof val);
        if (!testspec_applies(p, kind)) {
            if (p != TESTSPEC_P_RESPONSE_SIZE && v->v[p] != testspec_default(p, kind))
                return err_set(e, NS_EINVAL, "%s does not apply to %s tests", params[p].flag,
                               kinds[kind].name);
        } else if (!testspec_in_range(p, kind, v->v[p])) {
            return testspec_range_error(e, p, kind, who, val);
        }
    }
    enum testspec_param bad;
    if (testspec_check_limits(v, &bad, e) != 0)
        return err_prefix(e, "%s", params[bad].flag);
    return 0;
}

/* Seconds exactly as strtod reads them back, shortest first. */
static void
exact_number(double value, char *buf, size_t len)
{
    snprintf(buf, len, "%.15g", value);
    if (strtod(buf, NULL) != value)
        snprintf(buf, len, "%.17g", value);
}

char **
testspec_client_argv(const struct testspec_values *v, size_t *argc, struct err *e)
{
    if (testspec_values_check(v, e) != 0)
        return NULL;
    const char *words[2 + 2 * TESTSPEC_PARAM_COUNT];
    char vals[TESTSPEC_PARAM_COUNT][40];
    size_t n = 0, bytes = 0;
    words[n++] = "--test";
    words[n++] = kinds[v->kind].name;
    for (int i = 0; i < TESTSPEC_PARAM_COUNT; i++) {
        if (!(v->set & TESTSPEC_BIT(i)) || !testspec_applies((enum testspec_param)i, (int)v->kind))
            continue;
        if (params[i].type == TESTSPEC_BOOL) {
            if (v->v[i] != 0)
                words[n++] = params[i].flag;
            continue;
        }
        if (params[i].type == TESTSPEC_DIRECTION)
            testspec_value_text((enum testspec_param)i, v->v[i], vals[i], sizeof vals[i]);
        else
            exact_number(v->v[i], vals[i], sizeof vals[i]);
        words[n++] = params[i].flag;
        words[n++] = vals[i];
    }
    for (size_t i = 0; i < n; i++)
        bytes += strlen(words[i]) + 1;
    char **out = malloc((n + 1) * sizeof *out + bytes);
    if (out == NULL) {
        err_set(e, NS_ENOMEM, "out of memory building an nsperf command line");
        return NULL;
    }
    char *s = (char *)(out + n + 1);
    for (size_t i = 0; i < n; i++) {
        size_t l = strlen(words[i]) + 1;
        memcpy(s, words[i], l);
        out[i] = s;
        s += l;
    }
    out[n] = NULL;
    if (argc != NULL)
        *argc = n;
    return out;
}
