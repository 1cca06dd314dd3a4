/* params.c - the parameters every test carries: defaults, range checks and the JSON form
 * exchanged in PARAMS/ACCEPT. Kinds are named by common/testspec.h; their code is reached
 * through kinds.c, which this file does not need. */
#include "nsperf/nsperf.h"

#include <string.h>

#include "common/errors.h"

void
ns_params_set(struct ns_params *p, enum testspec_param id, double value)
{
    switch (id) {
    case TESTSPEC_P_DURATION:
        p->duration_s = value;
        break;
    case TESTSPEC_P_WARMUP:
        p->warmup_s = value;
        break;
    case TESTSPEC_P_INTERVAL:
        p->interval_s = value;
        break;
    case TESTSPEC_P_STREAMS:
        p->streams = value > NS_MAX_STREAMS + 1 ? NS_MAX_STREAMS + 1 : (int)value;
        break;
    case TESTSPEC_P_MSG_SIZE:
        p->msg_size = (uint64_t)value;
        break;
    case TESTSPEC_P_RESPONSE_SIZE:
        p->response_size = (uint64_t)value;
        break;
    case TESTSPEC_P_RATE:
        p->rate_bps = (uint64_t)value;
        break;
    case TESTSPEC_P_REVERSE:
        p->reverse = value != 0;
        break;
    case TESTSPEC_P_WINDOW:
        p->sock_buf = value > (double)INT32_MAX ? INT32_MAX : (int)value;
        break;
    case TESTSPEC_P_COPY:
        p->copy = value != 0;
        break;
    case TESTSPEC_P_BUSY_POLL:
        p->busy_poll = value != 0;
        break;
    case TESTSPEC_P_BIDIR:
        p->bidir = value != 0;
        break;
    case TESTSPEC_P_PACKET_RATE:
        p->packet_rate = (uint64_t)value;
        break;
    case TESTSPEC_P_LOAD_STREAMS:
        p->load_streams = value > NS_MAX_STREAMS + 1 ? NS_MAX_STREAMS + 1 : (int)value;
        break;
    case TESTSPEC_P_LOAD_DIRECTION:
        p->load_direction = (int)value;
        break;
    case TESTSPEC_PARAM_COUNT:
        break;
    }
}

/* Parameter id's field as a number (reverse, copy, busy_poll, bidir: 0 or 1). */
static double
params_get(const struct ns_params *p, enum testspec_param id)
{
    switch (id) {
    case TESTSPEC_P_DURATION:
        return p->duration_s;
    case TESTSPEC_P_WARMUP:
        return p->warmup_s;
    case TESTSPEC_P_INTERVAL:
        return p->interval_s;
    case TESTSPEC_P_STREAMS:
        return p->streams;
    case TESTSPEC_P_MSG_SIZE:
        return (double)p->msg_size;
    case TESTSPEC_P_RESPONSE_SIZE:
        return (double)p->response_size;
    case TESTSPEC_P_RATE:
        return (double)p->rate_bps;
    case TESTSPEC_P_REVERSE:
        return p->reverse;
    case TESTSPEC_P_WINDOW:
        return p->sock_buf;
    case TESTSPEC_P_COPY:
        return p->copy;
    case TESTSPEC_P_BUSY_POLL:
        return p->busy_poll;
    case TESTSPEC_P_BIDIR:
        return p->bidir;
    case TESTSPEC_P_PACKET_RATE:
        return (double)p->packet_rate;
    case TESTSPEC_P_LOAD_STREAMS:
        return p->load_streams;
    case TESTSPEC_P_LOAD_DIRECTION:
        return p->load_direction;
    case TESTSPEC_PARAM_COUNT:
        break;
    }
    return 0;
}

void
ns_params_to_spec(const struct ns_params *p, struct testspec_values *v)
{
    testspec_values_default(v, (enum testspec_kind)p->kind);
    for (int i = 0; i < TESTSPEC_PARAM_COUNT; i++)
        testspec_values_set(v, (enum testspec_param)i, params_get(p, (enum testspec_param)i));
}

void
ns_params_default(struct ns_params *p, enum testspec_kind kind)
{
    memset(p, 0, sizeof *p);
    p->kind = kind;
    p->family = AF_UNSPEC;
    for (int i = 0; i < TESTSPEC_PARAM_COUNT; i++)
        ns_params_set(p, (enum testspec_param)i,
                      testspec_default((enum testspec_param)i, (int)kind));
}

int
ns_params_validate(const struct ns_params *p, struct err *e)
{
    if ((int)p->kind < 0 || p->kind >= TESTSPEC_KIND_COUNT)
        return err_set(e, NS_EINVAL, "unknown test kind %d", (int)p->kind);
    struct testspec_values v;
    ns_params_to_spec(p, &v);
    int rc = testspec_values_check(&v, e);
    if (rc != 0)
        return rc;
    if (p->family != AF_UNSPEC && p->family != AF_INET && p->family != AF_INET6)
        return err_set(e, NS_EINVAL, "unknown address family %d", p->family);
    return 0;
}

static const char *
family_name(int family)
{
    return family == AF_INET ? "inet" : family == AF_INET6 ? "inet6" : "any";
}

/* Every parameter under its wire key (testspec.h), typed by its type column. */
json_t *
ns_params_to_json(const struct ns_params *p)
{
    const char *kind = testspec_kind_name((int)p->kind);
    json_t *o = json_pack("{s:s}", "test", kind != NULL ? kind : "unknown");
    for (int i = 0; o != NULL && i < TESTSPEC_PARAM_COUNT; i++) {
        enum testspec_param id = (enum testspec_param)i;
        json_t *jv = testspec_value_json(id, params_get(p, id));
        if (json_object_set_new(o, testspec_wire_key(id), jv) != 0) {
            json_decref(o);
            return NULL;
        }
    }
    if (o != NULL && json_object_set_new(o, "family", json_string(family_name(p->family))) != 0) {
        json_decref(o);
        return NULL;
    }
    return o;
}

json_t *
ns_params_applied_json(const struct ns_params *p)
{
    json_t *o = ns_params_to_json(p);
    for (int i = 0; o != NULL && i < TESTSPEC_PARAM_COUNT; i++)
        if (!testspec_applies((enum testspec_param)i, (int)p->kind))
            json_object_del(o, testspec_wire_key((enum testspec_param)i));
    return o;
}

/* Optional non-negative integer member; absent keeps *out. */
static int
get_uint(const json_t *o, const char *key, uint64_t max, uint64_t *out, struct err *e)
{
    const json_t *v = json_object_get(o, key);
    if (v == NULL)
        return 0;
    if (!json_is_integer(v) || json_integer_value(v) < 0 || (uint64_t)json_integer_value(v) > max)
        return err_set(e, NS_EPARSE, "params: '%s' must be an integer in [0, %llu]", key,
                       (unsigned long long)max);
    *out = (uint64_t)json_integer_value(v);
    return 0;
}

static int
get_real(const json_t *o, const char *key, double *out, struct err *e)
{
    const json_t *v = json_object_get(o, key);
    if (v == NULL)
        return 0;
    if (!json_is_number(v))
        return err_set(e, NS_EPARSE, "params: '%s' must be a number", key);
    *out = json_number_value(v);
    return 0;
}

/* Optional boolean member; absent is false (what a peer without the parameter runs). */
static int
get_bool(const json_t *o, const char *key, bool *out, struct err *e)
{
    const json_t *v = json_object_get(o, key);
    if (v != NULL && !json_is_boolean(v))
        return err_set(e, NS_EPARSE, "params: '%s' must be a boolean", key);
    *out = json_is_true(v);
    return 0;
}

static int
get_family(const json_t *o, int *family, struct err *e)
{
    const json_t *v = json_object_get(o, "family");
    if (v == NULL)
        return 0;
    const char *s = json_string_value(v);
    if (s != NULL && strcmp(s, "any") == 0)
        *family = AF_UNSPEC;
    else if (s != NULL && strcmp(s, "inet") == 0)
        *family = AF_INET;
    else if (s != NULL && strcmp(s, "inet6") == 0)
        *family = AF_INET6;
    else
        return err_set(e, NS_EPARSE, "params: 'family' must be \"any\", \"inet\" or \"inet6\"");
    return 0;
}

/* The largest integer the wire carries for id: what its field holds (streams, sock_buf: an
 * int); the table's range is checked after, by ns_params_validate. */
static uint64_t
wire_max(enum testspec_param id)
{
    return id == TESTSPEC_P_STREAMS || id == TESTSPEC_P_LOAD_STREAMS ? NS_MAX_STREAMS
           : id == TESTSPEC_P_WINDOW                                 ? NS_MAX_SOCK_BUF
           : id == TESTSPEC_P_RATE                                   ? INT64_MAX
                                                                     : UINT32_MAX;
}

/* Parameter id's member of o, by its type column; absent keeps the default already in p. */
static int
get_param(const json_t *o, enum testspec_param id, struct ns_params *p, struct err *e)
{
    const char *key = testspec_wire_key(id);
    int rc;
    if (testspec_type(id) == TESTSPEC_BOOL) {
        bool b = false;
        rc = get_bool(o, key, &b, e);
        if (rc == 0)
            ns_params_set(p, id, b);
    } else if (testspec_type(id) == TESTSPEC_DIRECTION) {
        const json_t *v = json_object_get(o, key);
        int d = v != NULL ? testspec_direction_find(json_string_value(v)) : (int)params_get(p, id);
        if (d < 0)
            return err_set(e, NS_EPARSE, "params: '%s' must be a direction", key);
        ns_params_set(p, id, d);
        rc = 0;
    } else if (testspec_type(id) == TESTSPEC_DURATION) {
        double d = params_get(p, id);
        rc = get_real(o, key, &d, e);
        if (rc == 0)
            ns_params_set(p, id, d);
    } else {
        uint64_t u = (uint64_t)params_get(p, id);
        rc = get_uint(o, key, wire_max(id), &u, e);
        if (rc == 0)
            ns_params_set(p, id, (double)u);
    }
    return rc;
}

int
ns_params_from_json(const json_t *o, struct ns_params *p, struct err *e)
{
    if (!json_is_object(o))
        return err_set(e, NS_EPARSE, "params: not an object");
    const char *name = json_string_value(json_object_get(o, "test"));
    int id = testspec_kind_find(name);
    if (id < 0)
        return err_set(e, NS_EINVAL, "params: unknown test '%s'", name ? name : "(missing)");
    ns_params_default(p, (enum testspec_kind)id);
    int rc = 0;
    for (int i = 0; rc == 0 && i < TESTSPEC_PARAM_COUNT; i++)
        rc = get_param(o, (enum testspec_param)i, p, e);
    if (rc == 0)
        rc = get_family(o, &p->family, e);
    if (rc != 0)
        return rc;
    return ns_params_validate(p, e);
}
