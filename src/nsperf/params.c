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
    case TESTSPEC_PARAM_COUNT:
        break;
    }
}

void
ns_params_to_spec(const struct ns_params *p, struct testspec_values *v)
{
    testspec_values_default(v, (enum testspec_kind)p->kind);
    testspec_values_set(v, TESTSPEC_P_DURATION, p->duration_s);
    testspec_values_set(v, TESTSPEC_P_WARMUP, p->warmup_s);
    testspec_values_set(v, TESTSPEC_P_INTERVAL, p->interval_s);
    testspec_values_set(v, TESTSPEC_P_STREAMS, p->streams);
    testspec_values_set(v, TESTSPEC_P_MSG_SIZE, (double)p->msg_size);
    testspec_values_set(v, TESTSPEC_P_RESPONSE_SIZE, (double)p->response_size);
    testspec_values_set(v, TESTSPEC_P_RATE, (double)p->rate_bps);
    testspec_values_set(v, TESTSPEC_P_REVERSE, p->reverse);
    testspec_values_set(v, TESTSPEC_P_WINDOW, p->sock_buf);
    testspec_values_set(v, TESTSPEC_P_COPY, p->copy);
    testspec_values_set(v, TESTSPEC_P_BUSY_POLL, p->busy_poll);
}

void
ns_params_default(struct ns_params *p, enum ns_kind_id kind)
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
    if ((int)p->kind < 0 || p->kind >= NS_KIND_COUNT)
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

json_t *
ns_params_to_json(const struct ns_params *p)
{
    const char *kind = testspec_kind_name((int)p->kind);
    return json_pack("{s:s, s:i, s:I, s:I, s:f, s:f, s:f, s:I, s:b, s:i, s:s, s:b, s:b}", "test",
                     kind != NULL ? kind : "unknown", "streams", (json_int_t)p->streams, "msg_size",
                     (json_int_t)p->msg_size, "response_size", (json_int_t)p->response_size,
                     "duration_s", p->duration_s, "warmup_s", p->warmup_s, "interval_s",
                     p->interval_s, "rate_bps", (json_int_t)p->rate_bps, "reverse", p->reverse,
                     "sock_buf", p->sock_buf, "family", family_name(p->family), "copy", p->copy,
                     "busy_poll", p->busy_poll);
}

/* The wire names of testspec.h's parameters. */
static const char *const wire_keys[TESTSPEC_PARAM_COUNT] = {
    [TESTSPEC_P_DURATION] = "duration_s",
    [TESTSPEC_P_WARMUP] = "warmup_s",
    [TESTSPEC_P_STREAMS] = "streams",
    [TESTSPEC_P_MSG_SIZE] = "msg_size",
    [TESTSPEC_P_RESPONSE_SIZE] = "response_size",
    [TESTSPEC_P_RATE] = "rate_bps",
    [TESTSPEC_P_INTERVAL] = "interval_s",
    [TESTSPEC_P_WINDOW] = "sock_buf",
    [TESTSPEC_P_REVERSE] = "reverse",
    [TESTSPEC_P_COPY] = "copy",
    [TESTSPEC_P_BUSY_POLL] = "busy_poll",
};

json_t *
ns_params_applied_json(const struct ns_params *p)
{
    json_t *o = ns_params_to_json(p);
    for (int i = 0; o != NULL && i < TESTSPEC_PARAM_COUNT; i++)
        if (!testspec_applies((enum testspec_param)i, (int)p->kind))
            json_object_del(o, wire_keys[i]);
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

static int
get_numbers(const json_t *o, struct ns_params *p, struct err *e)
{
    uint64_t streams = (uint64_t)p->streams, sock_buf = (uint64_t)p->sock_buf;
    int rc = get_uint(o, "streams", NS_MAX_STREAMS, &streams, e);
    if (rc == 0)
        rc = get_uint(o, "msg_size", UINT32_MAX, &p->msg_size, e);
    if (rc == 0)
        rc = get_uint(o, "response_size", UINT32_MAX, &p->response_size, e);
    if (rc == 0)
        rc = get_uint(o, "rate_bps", INT64_MAX, &p->rate_bps, e);
    if (rc == 0)
        rc = get_uint(o, "sock_buf", NS_MAX_SOCK_BUF, &sock_buf, e);
    if (rc == 0)
        rc = get_real(o, "duration_s", &p->duration_s, e);
    if (rc == 0)
        rc = get_real(o, "warmup_s", &p->warmup_s, e);
    if (rc == 0)
        rc = get_real(o, "interval_s", &p->interval_s, e);
    p->streams = (int)streams;
    p->sock_buf = (int)sock_buf;
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
    ns_params_default(p, (enum ns_kind_id)id);
    int rc = get_numbers(o, p, e);
    if (rc == 0)
        rc = get_family(o, &p->family, e);
    if (rc == 0)
        rc = get_bool(o, "reverse", &p->reverse, e);
    if (rc == 0)
        rc = get_bool(o, "copy", &p->copy, e);
    if (rc == 0)
        rc = get_bool(o, "busy_poll", &p->busy_poll, e);
    if (rc != 0)
        return rc;
    return ns_params_validate(p, e);
}
