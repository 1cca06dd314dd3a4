/* jscan.c - a fast reader for trial records: walks one results.jsonl line once and keeps only
 * the fields the reports use, without building a JSON tree (jansson's tree costs ~25x more on
 * a 100 000-trial journal, most of it for histogram buckets). Anything it does not expect -
 * a torn line, a type it does not know - makes it return false, and the caller falls back to
 * jansson, which then decides (and names the problem). */
#include <stdlib.h>
#include <string.h>

#include "common/hist.h"
#include "report/jscan.h"

struct jp {
    const char *p, *end;
    struct jscan_rec *r;
    bool bad;
};

static void
ws(struct jp *j)
{
    while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r'))
        j->p++;
}

static bool
eat(struct jp *j, char c)
{
    ws(j);
    if (j->p < j->end && *j->p == c) {
        j->p++;
        return true;
    }
    return false;
}

/* A string's raw bytes (escapes untouched) between its quotes. memchr finds the closing quote;
 * a quote preceded by an odd run of backslashes is escaped and the search goes on. */
static bool
raw_string(struct jp *j, const char **s, size_t *n)
{
    ws(j);
    if (j->p >= j->end || *j->p != '"')
        return false;
    const char *b = j->p + 1, *q = b;
    for (;;) {
        q = memchr(q, '"', (size_t)(j->end - q));
        if (q == NULL)
            return false;
        size_t bs = 0;
        while (q - bs > b && q[-1 - (ptrdiff_t)bs] == '\\')
            bs++;
        if (bs % 2 == 0)
            break;
        q++;
    }
    *s = b;
    *n = (size_t)(q - b);
    j->p = q + 1;
    return true;
}

static int
hexval(char c)
{
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
}

static unsigned
hex4(const char *s)
{
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        int h = hexval(s[i]);
        if (h < 0)
            return 0xFFFFFFFFu;
        v = v << 4 | (unsigned)h;
    }
    return v;
}

/* Unescape a string value into the record's string arena; NULL for null. */
static bool
string_value(struct jp *j, struct jscan_str *out)
{
    ws(j);
    if (j->end - j->p >= 4 && memcmp(j->p, "null", 4) == 0) {
        j->p += 4;
        out->s = NULL;
        out->n = 0;
        return true;
    }
    const char *s;
    size_t n;
    if (!raw_string(j, &s, &n))
        return false;
    struct jscan_rec *r = j->r;
    if (r->arena_len + n + 1 > sizeof r->arena)
        return false; /* unusually long: the slow path takes it */
    char *o = r->arena + r->arena_len;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c != '\\') {
            o[k++] = c;
            continue;
        }
        if (++i >= n)
            return false;
        switch (s[i]) {
        case 'n':
            o[k++] = '\n';
            break;
        case 't':
            o[k++] = '\t';
            break;
        case 'r':
            o[k++] = '\r';
            break;
        case 'b':
            o[k++] = '\b';
            break;
        case 'f':
            o[k++] = '\f';
            break;
        case 'u': {
            if (i + 4 >= n)
                return false;
            unsigned cp = hex4(s + i + 1);
            if (cp == 0xFFFFFFFFu || cp == 0 || (cp >= 0xD800 && cp <= 0xDFFF))
                return false; /* NUL and surrogate pairs: left to jansson */
            i += 4;
            if (cp < 0x80) {
                o[k++] = (char)cp;
            } else if (cp < 0x800) {
                o[k++] = (char)(0xC0 | cp >> 6);
                o[k++] = (char)(0x80 | (cp & 0x3F));
            } else {
                o[k++] = (char)(0xE0 | cp >> 12);
                o[k++] = (char)(0x80 | (cp >> 6 & 0x3F));
                o[k++] = (char)(0x80 | (cp & 0x3F));
            }
            break;
        }
        default: /* \" \\ \/ */
            o[k++] = s[i];
            break;
        }
    }
    o[k] = '\0';
    out->s = o;
    out->n = k;
    r->arena_len += k + 1;
    return true;
}

static bool
number(struct jp *j, double *v)
{
    ws(j);
    char *e;
    if (j->p >= j->end || !(*j->p == '-' || (*j->p >= '0' && *j->p <= '9')))
        return false;
    *v = strtod(j->p, &e);
    if (e == j->p || e > j->end)
        return false;
    j->p = e;
    return true;
}

/* Skip any value, nested ones included. */
static bool
skip(struct jp *j)
{
    ws(j);
    if (j->p >= j->end)
        return false;
    char c = *j->p;
    if (c == '"') {
        const char *s;
        size_t n;
        return raw_string(j, &s, &n);
    }
    if (c == '{' || c == '[') {
        int depth = 0;
        while (j->p < j->end) {
            c = *j->p;
            if (c == '"') {
                const char *s;
                size_t n;
                if (!raw_string(j, &s, &n))
                    return false;
                continue;
            }
            if (c == '{' || c == '[')
                depth++;
            else if (c == '}' || c == ']')
                depth--;
            j->p++;
            if (depth == 0)
                return true;
        }
        return false;
    }
    /* number, true, false, null */
    while (j->p < j->end && *j->p != ',' && *j->p != '}' && *j->p != ']' && *j->p != ' ')
        j->p++;
    return true;
}

static bool
boolean(struct jp *j, bool *v)
{
    ws(j);
    if (j->end - j->p >= 4 && memcmp(j->p, "true", 4) == 0) {
        j->p += 4;
        *v = true;
        return true;
    }
    if (j->end - j->p >= 5 && memcmp(j->p, "false", 5) == 0) {
        j->p += 5;
        *v = false;
        return true;
    }
    return false;
}

#define KEY(k) (n == sizeof(k) - 1 && memcmp(key, k, sizeof(k) - 1) == 0)

typedef bool (*member_fn)(struct jp *j, const char *key, size_t n, void *ctx);

/* Walk an object, calling fn for each member (fn parses or skips the value). */
static bool
object(struct jp *j, member_fn fn, void *ctx)
{
    if (!eat(j, '{'))
        return false;
    if (eat(j, '}'))
        return true;
    do {
        const char *key;
        size_t n;
        if (!raw_string(j, &key, &n) || !eat(j, ':'))
            return false;
        if (!fn(j, key, n, ctx))
            return false;
    } while (eat(j, ','));
    return eat(j, '}');
}

static bool
opt_number(struct jp *j, double *v, bool *has)
{
    ws(j);
    if (j->end - j->p >= 4 && memcmp(j->p, "null", 4) == 0) {
        j->p += 4;
        return true;
    }
    if (!number(j, v))
        return false;
    *has = true;
    return true;
}

static bool
m_endpoint(struct jp *j, const char *key, size_t n, void *ctx)
{
    struct jscan_endpoint *e = ctx;
    if (KEY("host"))
        return string_value(j, &e->host);
    if (KEY("zone"))
        return string_value(j, &e->zone);
    if (KEY("region"))
        return string_value(j, &e->region);
    if (KEY("data_address"))
        return string_value(j, &e->addr);
    return skip(j);
}

static bool
m_scenario(struct jp *j, const char *key, size_t n, void *ctx)
{
    struct jscan_rec *r = ctx;
    if (KEY("name"))
        return string_value(j, &r->scen_name);
    if (KEY("test"))
        return string_value(j, &r->scen_test);
    if (KEY("reverse"))
        return boolean(j, &r->reverse);
    return skip(j);
}

static bool
m_cpu(struct jp *j, const char *key, size_t n, void *ctx)
{
    struct jscan_rec *r = ctx;
    if (KEY("local_pct"))
        return opt_number(j, &r->cpu_local, &r->has_cpu_local);
    if (KEY("remote_pct"))
        return opt_number(j, &r->cpu_remote, &r->has_cpu_remote);
    return skip(j);
}

static bool
m_udp(struct jp *j, const char *key, size_t n, void *ctx)
{
    struct jscan_rec *r = ctx;
    r->has_udp = true;
    if (KEY("lost"))
        return opt_number(j, &r->udp_lost, &r->has_udp_lost);
    if (KEY("sent"))
        return opt_number(j, &r->udp_sent, &r->has_udp_sent);
    if (KEY("lost_pct"))
        return opt_number(j, &r->udp_lost_pct, &r->has_udp_lost_pct);
    if (KEY("jitter_us"))
        return opt_number(j, &r->udp_jitter, &r->has_udp_jitter);
    return skip(j);
}

/* [[lower_ns, count], ...]: integers only, read without strtod. */
static bool
buckets(struct jp *j)
{
    struct jscan_rec *r = j->r;
    if (!eat(j, '['))
        return false;
    r->has_buckets = true;
    if (eat(j, ']'))
        return true;
    do {
        uint64_t v[2];
        ws(j);
        /* nsperf writes "[low,count]" without spaces: read that inline, else the general way */
        const char *p = j->p;
        if (p < j->end && *p == '[') {
            const char *q = p + 1;
            uint64_t a = 0, c = 0;
            const char *d0 = q;
            while (q < j->end && *q >= '0' && *q <= '9' && q - d0 < 19)
                a = a * 10 + (uint64_t)(*q++ - '0');
            if (q > d0 && q < j->end && *q == ',') {
                const char *d1 = ++q;
                while (q < j->end && *q >= '0' && *q <= '9' && q - d1 < 19)
                    c = c * 10 + (uint64_t)(*q++ - '0');
                if (q > d1 && q < j->end && *q == ']') {
                    j->p = q + 1;
                    v[0] = a;
                    v[1] = c;
                    goto have;
                }
            }
        }
        if (!eat(j, '['))
            return false;
        for (int k = 0; k < 2; k++) {
            if (k == 1 && !eat(j, ','))
                return false;
            ws(j);
            const char *s = j->p;
            uint64_t x = 0;
            while (j->p < j->end && *j->p >= '0' && *j->p <= '9' && j->p - s < 19)
                x = x * 10 + (uint64_t)(*j->p++ - '0');
            if (j->p == s || (j->p < j->end && (*j->p == '.' || *j->p == 'e' || *j->p == 'E' ||
                                                (*j->p >= '0' && *j->p <= '9'))))
                return false; /* not a plain integer: slow path */
            v[k] = x;
        }
        if (!eat(j, ']'))
            return false;
    have:
        if (v[1] == 0)
            continue;
        if (r->nb == r->capb) {
            size_t cap = r->capb ? r->capb * 2 : 256;
            struct jscan_bucket *b = realloc(r->b, cap * sizeof *b);
            if (b == NULL)
                return false;
            r->b = b;
            r->capb = cap;
        }
        r->b[r->nb].idx = (uint32_t)hist_index(v[0]);
        r->b[r->nb].count = v[1];
        r->nb++;
    } while (eat(j, ','));
    return eat(j, ']');
}

static bool
m_hist(struct jp *j, const char *key, size_t n, void *ctx)
{
    struct jscan_rec *r = ctx;
    if (KEY("sub_bits")) {
        double v;
        if (!number(j, &v))
            return false;
        r->sub_bits = (int)v;
        return true;
    }
    if (KEY("buckets"))
        return buckets(j);
    return skip(j);
}

static bool
m_rtt(struct jp *j, const char *key, size_t n, void *ctx)
{
    struct jscan_rec *r = ctx;
    r->has_rtt = true;
    if (KEY("mean"))
        return opt_number(j, &r->rtt_mean, &r->has_rtt_mean);
    if (KEY("min"))
        return opt_number(j, &r->rtt_min, &r->has_rtt_min);
    if (KEY("max"))
        return opt_number(j, &r->rtt_max, &r->has_rtt_max);
    if (KEY("m2_ns2"))
        return opt_number(j, &r->rtt_m2, &r->has_rtt_m2);
    if (KEY("hist"))
        return object(j, m_hist, r);
    return skip(j);
}

static bool
m_result(struct jp *j, const char *key, size_t n, void *ctx)
{
    struct jscan_rec *r = ctx;
    if (KEY("throughput_bps"))
        return opt_number(j, &r->throughput_bps, &r->has_throughput);
    if (KEY("connections_per_s"))
        return opt_number(j, &r->connections_per_s, &r->has_connections);
    if (KEY("retransmits"))
        return opt_number(j, &r->retransmits, &r->has_retransmits);
    if (KEY("cpu"))
        return object(j, m_cpu, r);
    if (KEY("udp"))
        return object(j, m_udp, r);
    if (KEY("rtt_us"))
        return object(j, m_rtt, r);
    return skip(j);
}

static bool
m_record(struct jp *j, const char *key, size_t n, void *ctx)
{
    struct jscan_rec *r = ctx;
    if (KEY("schema"))
        return string_value(j, &r->schema);
    if (KEY("scenario"))
        return object(j, m_scenario, r);
    if (KEY("trial")) {
        double v;
        if (!number(j, &v))
            return false;
        r->trial = v >= 1 && v < 4e9 ? (uint32_t)v : 0;
        return true;
    }
    if (KEY("family"))
        return string_value(j, &r->family);
    if (KEY("src"))
        return object(j, m_endpoint, &r->src);
    if (KEY("dst"))
        return object(j, m_endpoint, &r->dst);
    if (KEY("status"))
        return string_value(j, &r->status);
    if (KEY("error"))
        return string_value(j, &r->error);
    if (KEY("result")) {
        ws(j);
        if (j->end - j->p >= 4 && memcmp(j->p, "null", 4) == 0) {
            j->p += 4;
            return true;
        }
        r->has_result = true;
        return object(j, m_result, r);
    }
    return skip(j);
}

void
jscan_rec_reset(struct jscan_rec *r)
{
    struct jscan_bucket *b = r->b;
    size_t cap = r->capb;
    memset(r, 0, offsetof(struct jscan_rec, arena));
    r->b = b;
    r->capb = cap;
}

void
jscan_rec_release(struct jscan_rec *r)
{
    free(r->b);
    r->b = NULL;
    r->capb = 0;
}

bool
jscan_trial(const char *line, size_t len, struct jscan_rec *r)
{
    jscan_rec_reset(r);
    struct jp j = {.p = line, .end = line + len, .r = r};
    if (!object(&j, m_record, r))
        return false;
    ws(&j);
    return j.p == j.end;
}
