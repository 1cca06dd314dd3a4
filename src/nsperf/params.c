/* params.c - the test-kind table and the parameters every test carries: defaults, range checks
 * and the JSON form exchanged in PARAMS/ACCEPT. */
#include "nsperf/nsperf.h"

#include <math.h>
#include <string.h>

#include "common/errors.h"

/* Smallest udp_stream datagram: the header of udp_stream.c (magic, phase, seq, time, cookie). */
#define NS_MAX_SOCK_BUF (1 << 30)

static const struct test_kind *const kinds[NS_KIND_COUNT] = {
    [NS_TCP_STREAM] = &ns_kind_tcp_stream, [NS_UDP_STREAM] = &ns_kind_udp_stream,
    [NS_TCP_RR] = &ns_kind_tcp_rr,         [NS_UDP_RR] = &ns_kind_udp_rr,
    [NS_TCP_CRR] = &ns_kind_tcp_crr,
};

const struct test_kind *
ns_kind_get(enum ns_kind_id id)
{
    if ((int)id < 0 || id >= NS_KIND_COUNT)
        return NULL;
    return kinds[id];
}

const struct test_kind *
ns_kind_find(const char *name, enum ns_kind_id *id)
{
    for (int i = 0; i < NS_KIND_COUNT && name != NULL; i++) {
        if (strcmp(kinds[i]->name, name) == 0) {
            if (id != NULL)
                *id = (enum ns_kind_id)i;
            return kinds[i];
        }
    }
    return NULL;
}

void
ns_params_default(struct ns_params *p, enum ns_kind_id kind)
{
    memset(p, 0, sizeof *p);
    p->kind = kind;
    p->streams = 1;
    p->duration_s = 10.0;
    p->warmup_s = 1.0;
    p->family = AF_UNSPEC;
    switch (kind) {
    case NS_TCP_STREAM:
        /* 1 MiB per send(): measured on loopback, 128K writes (iperf3's default) cap one
         * stream at ~14 Gbit/s on syscall cost alone, 1 MiB at ~26. The tool should measure
         * the path, not its own syscalls; paced streams write smaller pieces (tcp_stream.c). */
        p->msg_size = 1024u * 1024u;
        break;
    case NS_UDP_STREAM:
        p->msg_size = 1460;    /* iperf3's UDP default datagram */
        p->rate_bps = 1000000; /* 1 Mbit/s, as iperf3 -u */
        break;
    case NS_TCP_RR:
    case NS_UDP_RR:
    case NS_TCP_CRR:
    case NS_KIND_COUNT:
        p->msg_size = 1; /* netperf's request/response default */
        break;
    }
    p->response_size = p->msg_size;
}

static int
validate_msg_size(const struct ns_params *p, struct err *e)
{
    uint64_t lo = 1, hi = NS_MAX_MSG_SIZE;
    if (p->kind == NS_UDP_STREAM)
        lo = NS_UDP_STREAM_MIN;
    if (p->kind == NS_UDP_STREAM || p->kind == NS_UDP_RR)
        hi = NS_MAX_UDP_PAYLOAD;
    if (p->msg_size < lo || p->msg_size > hi)
        return err_set(e, NS_ERANGE, "message size %llu out of range [%llu, %llu] for %s",
                       (unsigned long long)p->msg_size, (unsigned long long)lo,
                       (unsigned long long)hi, kinds[p->kind]->name);
    if (p->kind >= NS_TCP_RR && (p->response_size < 1 || p->response_size > hi))
        return err_set(e, NS_ERANGE, "response size %llu out of range [1, %llu]",
                       (unsigned long long)p->response_size, (unsigned long long)hi);
    return 0;
}

static int
validate_times(const struct ns_params *p, struct err *e)
{
    if (!isfinite(p->duration_s) || p->duration_s <= 0 || p->duration_s > NS_MAX_DURATION_S)
        return err_set(e, NS_ERANGE, "duration %g s out of range (0, %g]", p->duration_s,
                       NS_MAX_DURATION_S);
    if (!isfinite(p->warmup_s) || p->warmup_s < 0 || p->warmup_s > NS_MAX_WARMUP_S)
        return err_set(e, NS_ERANGE, "warmup %g s out of range [0, %g]", p->warmup_s,
                       NS_MAX_WARMUP_S);
    if (!isfinite(p->interval_s) || p->interval_s < 0 ||
        (p->interval_s > 0 && p->interval_s < NS_MIN_INTERVAL_S))
        return err_set(e, NS_ERANGE, "interval %g s out of range (0 or >= %g)", p->interval_s,
                       NS_MIN_INTERVAL_S);
    return 0;
}

/* What a test may make the endpoint hold: stream buffers and interval samples. */
static int
validate_memory(const struct ns_params *p, struct err *e)
{
    if (kinds[p->kind]->uses_streams && (uint64_t)p->streams * p->msg_size > NS_MAX_STREAM_MEMORY)
        return err_set(e, NS_ERANGE, "%d streams x %llu-byte writes exceed %llu MiB of buffers",
                       p->streams, (unsigned long long)p->msg_size,
                       (unsigned long long)(NS_MAX_STREAM_MEMORY >> 20));
    if (p->interval_s > 0) {
        double cells = ceil(p->duration_s / p->interval_s) * p->streams;
        if (cells > NS_MAX_INTERVAL_CELLS)
            return err_set(e, NS_ERANGE,
                           "%.0f interval samples (duration / interval x streams) exceed %u; "
                           "use a longer interval",
                           cells, NS_MAX_INTERVAL_CELLS);
    }
    return 0;
}

int
ns_params_validate(const struct ns_params *p, struct err *e)
{
    if (ns_kind_get(p->kind) == NULL)
        return err_set(e, NS_EINVAL, "unknown test kind %d", (int)p->kind);
    int hi = kinds[p->kind]->uses_streams ? NS_MAX_STREAMS : 1;
    if (p->streams < 1 || p->streams > hi)
        return err_set(e, NS_ERANGE, "streams %d out of range [1, %d] for %s", p->streams, hi,
                       kinds[p->kind]->name);
    int rc = validate_msg_size(p, e);
    if (rc == 0)
        rc = validate_times(p, e);
    if (rc != 0)
        return rc;
    rc = validate_memory(p, e);
    if (rc != 0)
        return rc;
    if (p->kind == NS_UDP_STREAM && p->rate_bps == 0)
        return err_set(e, NS_ERANGE, "udp_stream needs a rate (-b) above 0");
    if (p->sock_buf < 0 || p->sock_buf > NS_MAX_SOCK_BUF)
        return err_set(e, NS_ERANGE, "socket buffer %d out of range [0, %d]", p->sock_buf,
                       NS_MAX_SOCK_BUF);
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
    const struct test_kind *k = ns_kind_get(p->kind);
    return json_pack("{s:s, s:i, s:I, s:I, s:f, s:f, s:f, s:I, s:b, s:i, s:s}", "test",
                     k != NULL ? k->name : "unknown", "streams", (json_int_t)p->streams, "msg_size",
                     (json_int_t)p->msg_size, "response_size", (json_int_t)p->response_size,
                     "duration_s", p->duration_s, "warmup_s", p->warmup_s, "interval_s",
                     p->interval_s, "rate_bps", (json_int_t)p->rate_bps, "reverse", p->reverse,
                     "sock_buf", p->sock_buf, "family", family_name(p->family));
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
    enum ns_kind_id id;
    const char *name = json_string_value(json_object_get(o, "test"));
    if (ns_kind_find(name, &id) == NULL)
        return err_set(e, NS_EINVAL, "params: unknown test '%s'", name ? name : "(missing)");
    ns_params_default(p, id);
    int rc = get_numbers(o, p, e);
    if (rc == 0)
        rc = get_family(o, &p->family, e);
    if (rc != 0)
        return rc;
    const json_t *rev = json_object_get(o, "reverse");
    if (rev != NULL && !json_is_boolean(rev))
        return err_set(e, NS_EPARSE, "params: 'reverse' must be a boolean");
    p->reverse = json_is_true(rev);
    return ns_params_validate(p, e);
}
