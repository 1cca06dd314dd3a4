/* scan.c - the fast decoder of a trial line (see scan.h): one pass over the bytes, the fields of
 * journal/record.h decoded as journal_trial_from_json decodes them, every other value checked
 * as strictly as jansson checks it (so that a line taken here is a line jansson takes) and
 * skipped. When in doubt it returns false: jansson then decides, so a doubt costs time, never
 * a different result. tests/fuzz/fuzz_journal.c holds it to that. */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "common/array.h"
#include "common/hist.h"
#include "common/histjson.h"
#include "journal/scan.h"

#define SCAN_MAX_DEPTH 64     /* jansson refuses past 2048; deeper than this is left to it */
#define SCAN_ARENA 16384      /* decoded strings of one record; more is left to jansson */
#define SCAN_NUMBER_MAX 64    /* a real's text, for strtod */
#define SCAN_INLINE_DIGITS 18 /* fewer digits than this never overflow an int64 */

struct journal_scan {
    struct journal_buckets bb;
    bool no_buckets; /* journal_scan_keep_buckets(s, false) */
    size_t arena_len;
    char arena[SCAN_ARENA];
};

struct jp {
    const unsigned char *p, *end;
    struct journal_scan *s;
    int depth;
};

static void plain_init(void);

struct journal_scan *
journal_scan_new(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, plain_init);
    return calloc(1, sizeof(struct journal_scan));
}

void
journal_scan_free(struct journal_scan *s)
{
    if (s == NULL)
        return;
    journal_buckets_release(&s->bb);
    free(s);
}

void
journal_scan_keep_buckets(struct journal_scan *s, bool keep)
{
    s->no_buckets = !keep;
}

/* --- eight bytes at a time ----------------------------------------------------------------------
 * A journal is mostly digits (histogram buckets, reals) and plain strings: on a little-endian
 * machine their runs are found 8 bytes at a time (SWAR), the first byte that ends one by the
 * lowest flag of a word, instead of a branch per byte that mispredicts where the run ends. Each
 * flag below is exact for the lowest byte it marks (a borrow only starts at a marked byte), which
 * is the only one read. Elsewhere, and near the end of a line, byte by byte. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define SCAN_SWAR 1
#define SWAR_ONES UINT64_C(0x0101010101010101)
#define SWAR_HIGHS UINT64_C(0x8080808080808080)

static inline uint64_t
swar_load(const unsigned char *p)
{
    uint64_t w;
    memcpy(&w, p, 8);
    return w;
}

/* The top bit of every byte of a that is above 9 (a: w ^ '0' in every byte, a digit's byte now
 * its value): its low 7 bits plus 0x76 reach bit 7 without carrying into the next byte. */
static inline uint64_t
swar_nondigits(uint64_t a)
{
    return (((a & ~SWAR_HIGHS) + SWAR_ONES * 0x76) | a) & SWAR_HIGHS;
}

/* The top bit of every byte of w that a string does not hold as it is: the quote, the backslash,
 * a control character, a byte >= 0x80 (the plain[] table's rule). */
static inline uint64_t
swar_unplain(uint64_t w)
{
    uint64_t quote = w ^ (SWAR_ONES * '"'), bslash = w ^ (SWAR_ONES * '\\');
    return (((quote - SWAR_ONES) & ~quote) | ((bslash - SWAR_ONES) & ~bslash) |
            ((w - SWAR_ONES * 0x20) & ~w) | w) &
           SWAR_HIGHS;
}

/* The index of the lowest byte flagged in m (not 0). */
static inline size_t
swar_first(uint64_t m)
{
    return (size_t)__builtin_ctzll(m) >> 3;
}

/* The n (1..8) digits in the lowest bytes of a (w ^ '0' in every byte, the first digit lowest)
 * as a number: moved up so that zeros lead (the bytes past the run fall off the top), then pairs,
 * quads and the halves joined by multiplications (the well-known 8-digit parse): no loop. */
static inline uint64_t
swar_digits(uint64_t a, size_t n)
{
    a <<= 8 * (8 - n);
    a = (a * 10 + (a >> 8)) & UINT64_C(0x00FF00FF00FF00FF);
    a = (a * 100 + (a >> 16)) & UINT64_C(0x0000FFFF0000FFFF);
    return (a * 10000 + (a >> 32)) & UINT64_C(0xFFFFFFFF);
}
#else
#define SCAN_SWAR 0
#endif

/* The length of the run of decimal digits at q. */
static inline size_t
digit_run(const unsigned char *q, const unsigned char *end)
{
    const unsigned char *p = q;
#if SCAN_SWAR
    for (; end - p >= 8; p += 8) {
        uint64_t m = swar_nondigits(swar_load(p) ^ (SWAR_ONES * '0'));
        if (m != 0)
            return (size_t)(p - q) + swar_first(m);
    }
#endif
    while (p < end && *p >= '0' && *p <= '9')
        p++;
    return (size_t)(p - q);
}

/* --- tokens ------------------------------------------------------------------------------------
 */

static inline void
ws(struct jp *j)
{
    while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r'))
        j->p++;
}

/* The next token is c (consumed). nsperf and the writer put no blanks between tokens: that
 * case first. */
static inline bool
eat(struct jp *j, char c)
{
    if (j->p < j->end && *j->p == (unsigned char)c) {
        j->p++;
        return true;
    }
    ws(j);
    if (j->p < j->end && *j->p == (unsigned char)c) {
        j->p++;
        return true;
    }
    return false;
}

static bool
literal(struct jp *j, const char *word, size_t n)
{
    if ((size_t)(j->end - j->p) < n || memcmp(j->p, word, n) != 0)
        return false;
    j->p += n;
    return true;
}

/* Length of the UTF-8 sequence at p (its first byte >= 0x80), 0 when jansson would refuse it:
 * overlong forms, surrogates, past U+10FFFF, a cut sequence. */
static size_t
utf8_len(const unsigned char *p, const unsigned char *end)
{
    unsigned c = p[0];
    size_t n = c >= 0xC2 && c <= 0xDF   ? 2
               : c >= 0xE0 && c <= 0xEF ? 3
               : c >= 0xF0 && c <= 0xF4 ? 4
                                        : 0;
    if (n == 0 || (size_t)(end - p) < n)
        return 0;
    uint32_t cp = c & (n == 2 ? 0x1Fu : n == 3 ? 0x0Fu : 0x07u);
    for (size_t i = 1; i < n; i++) {
        if ((p[i] & 0xC0) != 0x80)
            return 0;
        cp = cp << 6 | (p[i] & 0x3Fu);
    }
    if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) || cp > 0x10FFFF ||
        (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return n;
}

static int
hexval(unsigned c)
{
    return c >= '0' && c <= '9'   ? (int)(c - '0')
           : c >= 'a' && c <= 'f' ? (int)(c - 'a' + 10)
           : c >= 'A' && c <= 'F' ? (int)(c - 'A' + 10)
                                  : -1;
}

/* \uXXXX's code point, or 0 when it is one the fast path leaves to jansson: a bad digit, NUL
 * (refused without JSON_ALLOW_NUL) or half of a surrogate pair. */
static unsigned
hex4(const unsigned char *s)
{
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        int h = hexval(s[i]);
        if (h < 0)
            return 0;
        v = v << 4 | (unsigned)h;
    }
    return v >= 0xD800 && v <= 0xDFFF ? 0 : v;
}

/* Bytes a string holds as they are (printable ASCII but the quote and the backslash), looked up
 * in a table: most of a line's strings are nothing else. Filled once, by journal_scan_new. */
static bool plain[256];

static void
plain_init(void)
{
    for (unsigned c = 0; c < 256; c++)
        plain[c] = c >= 0x20 && c < 0x80 && c != '"' && c != '\\';
}

/* string_token's way for any string (p at its quote). */
static bool
string_token_any(struct jp *j, const unsigned char **s, size_t *n, bool *esc)
{
    const unsigned char *q = j->p + 1, *end = j->end;
    *esc = false;
    for (;;) {
#if SCAN_SWAR
        uint64_t m = 0;
        while (end - q >= 8 && (m = swar_unplain(swar_load(q))) == 0)
            q += 8;
        if (m != 0) /* at the byte that ends the run: no byte loop to mispredict */
            q += swar_first(m);
        else
#endif
            while (q < end && plain[*q])
                q++;
        if (q >= end || *q == '"')
            break;
        unsigned c = *q;
        if (c < 0x20)
            return false;
        if (c >= 0x80) {
            size_t l = utf8_len(q, end);
            if (l == 0)
                return false;
            q += l;
            continue;
        }
        if (c != '\\') {
            q++;
            continue;
        }
        *esc = true;
        if (end - q < 2)
            return false;
        c = q[1];
        if (c == 'u') {
            if (end - q < 6 || hex4(q + 2) == 0)
                return false;
            q += 6;
        } else if (c == '"' || c == '\\' || c == '/' || c == 'b' || c == 'f' || c == 'n' ||
                   c == 'r' || c == 't') {
            q += 2;
        } else {
            return false;
        }
    }
    if (q >= end)
        return false;
    *s = j->p + 1;
    *n = (size_t)(q - *s);
    j->p = q + 1;
    return true;
}

/* A string token: its raw bytes between the quotes in *s and *n, *esc when it holds escapes.
 * False unless jansson would take it and decode it as unescape() does. Inline for the strings
 * of a line (its keys first): plain bytes up to the quote, found in 8-byte words; anything else
 * from the start the way of any string. */
static inline bool
string_token(struct jp *j, const unsigned char **s, size_t *n, bool *esc)
{
    ws(j);
    if (j->p >= j->end || *j->p != '"')
        return false;
#if SCAN_SWAR
    const unsigned char *q = j->p + 1, *end = j->end;
    uint64_t m = 0;
    while (end - q >= 8 && (m = swar_unplain(swar_load(q))) == 0)
        q += 8;
    if (m != 0 && q[swar_first(m)] == '"') {
        q += swar_first(m);
        *esc = false;
        *s = j->p + 1;
        *n = (size_t)(q - *s);
        j->p = q + 1;
        return true;
    }
#endif
    return string_token_any(j, s, n, esc);
}

/* Decode a checked string token into the arena. */
static const char *
unescape(struct journal_scan *s, const unsigned char *raw, size_t n, bool esc)
{
    if (s->arena_len + n + 1 > sizeof s->arena)
        return NULL;
    char *o = s->arena + s->arena_len;
    if (!esc) { /* most strings */
        memcpy(o, raw, n);
        o[n] = '\0';
        s->arena_len += n + 1;
        return o;
    }
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned c = raw[i];
        if (!esc || c != '\\') {
            o[k++] = (char)c;
            continue;
        }
        c = raw[++i];
        switch (c) {
        case 'b':
            o[k++] = '\b';
            break;
        case 'f':
            o[k++] = '\f';
            break;
        case 'n':
            o[k++] = '\n';
            break;
        case 'r':
            o[k++] = '\r';
            break;
        case 't':
            o[k++] = '\t';
            break;
        case 'u': {
            unsigned cp = hex4(raw + i + 1);
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
            o[k++] = (char)c;
            break;
        }
    }
    o[k] = '\0';
    s->arena_len += k + 1;
    return o;
}

struct num {
    bool is_int;
    int64_t i; /* integers */
    double d;  /* both: the value json_number_value gives */
};

static bool
is_digit(const unsigned char *p, const unsigned char *end)
{
    return p < end && *p >= '0' && *p <= '9';
}

/* A checked real token [b, q) converted exactly without strtod, when it can be (Clinger's fast
 * path: a mantissa of at most 2^53 and a power of ten up to 10^22 are both exact doubles, so one
 * multiplication or division rounds once, as strtod does). False: use strtod. */
static bool
real_exact(const unsigned char *b, const unsigned char *q, double *out)
{
    static const double p10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                 1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    const uint64_t max = UINT64_C(1) << 53;
    bool neg = *b == '-';
    uint64_t m = 0;
    long k = 0;
    bool frac = false;
    const unsigned char *p = b + neg;
    for (; p < q && *p != 'e' && *p != 'E'; p++) {
        if (*p == '.') {
            frac = true;
            continue;
        }
        if (m > (max - 9) / 10)
            return false;
        m = m * 10 + (uint64_t)(*p - '0');
        k -= frac;
    }
    if (p < q) { /* the exponent */
        p++;
        bool eneg = *p == '-';
        p += *p == '-' || *p == '+';
        long ex = 0;
        for (; p < q; p++)
            if ((ex = ex * 10 + (*p - '0')) > 400)
                return false;
        k += eneg ? -ex : ex;
    }
    if (k < -22 || k > 22)
        return false;
    double d = (double)m;
    d = k < 0 ? d / p10[-k] : d * p10[k];
    *out = neg ? -d : d;
    return true;
}

/* A number token, JSON's grammar exactly; false for one jansson refuses (an integer outside
 * int64, a real that overflows) or that is too long to read here. want: the value is read (else
 * only checked: a real too small to overflow is not converted). */
static bool
number_token(struct jp *j, struct num *out, bool want)
{
    const unsigned char *b = j->p, *q = b, *end = j->end;
    bool neg = q < end && *q == '-';
    q += neg;
    if (!is_digit(q, end))
        return false;
    if (*q == '0')
        q++;
    else
        q += digit_run(q, end);
    long magnitude = q - b - neg; /* decimal digits before the point: < 10^magnitude */
    bool is_int = true;
    if (q < end && *q == '.') {
        q++;
        if (!is_digit(q, end))
            return false;
        q += digit_run(q, end);
        is_int = false;
    }
    if (q < end && (*q == 'e' || *q == 'E')) {
        q++;
        bool eneg = q < end && *q == '-';
        if (q < end && (*q == '+' || *q == '-'))
            q++;
        if (!is_digit(q, end))
            return false;
        long ex = 0;
        while (is_digit(q, end)) {
            ex = ex < 100000 ? ex * 10 + (*q - '0') : ex;
            q++;
        }
        magnitude += eneg ? -ex : ex;
        is_int = false;
    }
    out->is_int = is_int;
    if (is_int) {
        uint64_t v = 0, limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
        for (const unsigned char *d = b + neg; d < q; d++) {
            uint64_t digit = (uint64_t)(*d - '0');
            if (v > (limit - digit) / 10)
                return false; /* jansson: "too big integer" */
            v = v * 10 + digit;
        }
        out->i = neg ? (v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v) : (int64_t)v;
        out->d = (double)out->i;
    } else if (!want && magnitude <= 300) {
        out->i = 0; /* DBL_MAX is 1.8e308: this one cannot overflow, no need to convert it */
        out->d = 0.0;
    } else if (real_exact(b, q, &out->d)) {
        out->i = 0;
    } else {
        size_t len = (size_t)(q - b);
        char buf[SCAN_NUMBER_MAX];
        if (len >= sizeof buf)
            return false;
        memcpy(buf, b, len);
        buf[len] = '\0';
        char *e;
        errno = 0;
        out->d = strtod(buf, &e);
        if (e != buf + len || (errno == ERANGE && isinf(out->d)))
            return false; /* jansson: "real number overflow" */
        out->i = 0;
    }
    j->p = q;
    return true;
}

static bool
starts_number(const struct jp *j)
{
    return j->p < j->end && (*j->p == '-' || (*j->p >= '0' && *j->p <= '9'));
}

/* --- values -------------------------------------------------------------------------------------
 */

static bool skip_value(struct jp *j);

static bool
skip_members(struct jp *j)
{
    if (eat(j, '}'))
        return true;
    do {
        const unsigned char *k;
        size_t n;
        bool esc;
        if (!string_token(j, &k, &n, &esc) || !eat(j, ':') || !skip_value(j))
            return false;
    } while (eat(j, ','));
    return eat(j, '}');
}

static bool
skip_elements(struct jp *j)
{
    if (eat(j, ']'))
        return true;
    do {
        if (!skip_value(j))
            return false;
    } while (eat(j, ','));
    return eat(j, ']');
}

/* Check and pass over any value. */
static bool
skip_value(struct jp *j)
{
    ws(j);
    if (j->p >= j->end)
        return false;
    unsigned c = *j->p;
    if (c == '"') {
        const unsigned char *s;
        size_t n;
        bool esc;
        return string_token(j, &s, &n, &esc);
    }
    if (c == '{' || c == '[') {
        if (++j->depth > SCAN_MAX_DEPTH)
            return false;
        j->p++;
        bool ok = c == '{' ? skip_members(j) : skip_elements(j);
        j->depth--;
        return ok;
    }
    if (c == 't')
        return literal(j, "true", 4);
    if (c == 'f')
        return literal(j, "false", 5);
    if (c == 'n')
        return literal(j, "null", 4);
    struct num v;
    return number_token(j, &v, false);
}

/* A string as json_string_value reads it: anything but a string is NULL. */
static bool
v_string(struct jp *j, const char **out)
{
    ws(j);
    if (j->p >= j->end || *j->p != '"') {
        *out = NULL;
        return skip_value(j);
    }
    const unsigned char *raw;
    size_t n;
    bool esc;
    if (!string_token(j, &raw, &n, &esc))
        return false;
    *out = unescape(j->s, raw, n, esc);
    return *out != NULL;
}

/* An integer as json_integer_value reads it: a real or anything else is 0. */
static bool
v_int(struct jp *j, int64_t *out)
{
    ws(j);
    *out = 0;
    if (!starts_number(j))
        return skip_value(j);
    struct num v;
    if (!number_token(j, &v, false))
        return false;
    *out = v.is_int ? v.i : 0;
    return true;
}

/* A number as json_number_value and json_is_number read it. */
static bool
v_number(struct jp *j, double *out, bool *has)
{
    ws(j);
    if (!starts_number(j))
        return skip_value(j);
    struct num v;
    if (!number_token(j, &v, true))
        return false;
    *out = v.d;
    *has = true;
    return true;
}

/* json_is_true. */
static bool
v_true(struct jp *j, bool *out)
{
    ws(j);
    *out = j->end - j->p >= 4 && memcmp(j->p, "true", 4) == 0;
    return skip_value(j);
}

/* An object's members: fn reads the value of the i-th key of keys; other keys are skipped. A
 * key that holds an escape, or one of keys given twice (jansson keeps the last), is left to
 * jansson. A value that is not an object is skipped with *is_obj false (it reads as absent). */
typedef bool (*member_fn)(struct jp *j, size_t i, void *ctx);

struct key {
    const char *s;
    size_t n;
};
#define K(name)                                                                                    \
    {                                                                                              \
        name, sizeof(name) - 1                                                                     \
    }

/* The index of key k (n bytes) in keys, or nkeys. Keys are short: compared inline. */
static inline size_t
key_find(const struct key *keys, size_t nkeys, const unsigned char *k, size_t n)
{
    for (size_t i = 0; i < nkeys; i++) {
        if (keys[i].n != n || (unsigned char)keys[i].s[0] != k[0])
            continue;
        size_t c = 1;
        while (c < n && (unsigned char)keys[i].s[c] == k[c])
            c++;
        if (c == n)
            return i;
    }
    return nkeys;
}

static bool
object(struct jp *j, const struct key *keys, size_t nkeys, member_fn fn, void *ctx, bool *is_obj)
{
    ws(j);
    *is_obj = false;
    if (j->p >= j->end || *j->p != '{')
        return skip_value(j);
    if (++j->depth > SCAN_MAX_DEPTH)
        return false;
    j->p++;
    uint32_t seen = 0;
    if (!eat(j, '}')) {
        do {
            const unsigned char *k;
            size_t n;
            bool esc;
            if (!string_token(j, &k, &n, &esc) || esc || !eat(j, ':'))
                return false;
            size_t i = key_find(keys, nkeys, k, n);
            if (i == nkeys) {
                if (!skip_value(j))
                    return false;
                continue;
            }
            if (seen & (1u << i))
                return false;
            seen |= 1u << i;
            if (!fn(j, i, ctx))
                return false;
        } while (eat(j, ','));
        if (!eat(j, '}'))
            return false;
    }
    j->depth--;
    *is_obj = true;
    return true;
}

#define NKEYS(a) (sizeof(a) / sizeof(a)[0])

/* --- the record's members ------------------------------------------------------------------------
 */

static const struct key endpoint_keys[] = {K("host"), K("zone"), K("region"), K("data_address")};

static bool
m_endpoint(struct jp *j, size_t i, void *ctx)
{
    struct journal_endpoint *ep = ctx;
    const char **f[] = {&ep->host, &ep->zone, &ep->region, &ep->data_address};
    return v_string(j, f[i]);
}

/* name, test, sweep, then testspec.h's parameters by their record keys, in its order. */
enum { SCEN_NAME, SCEN_TEST, SCEN_SWEEP, SCEN_PARAMS };
static const struct key scenario_keys[] = {K("name"), K("test"), K("sweep"),
#define SCAN_PARAM_KEY(id, key, rkey, wkey, flag, words, type, lo, hi, zero, def, kinds) K(rkey),
                                           TESTSPEC_PARAM_MAP(SCAN_PARAM_KEY)
#undef SCAN_PARAM_KEY
};

static bool
m_scenario(struct jp *j, size_t i, void *ctx)
{
    struct journal_scenario *sc = ctx;
    if (i == SCEN_NAME)
        return v_string(j, &sc->name);
    if (i == SCEN_TEST)
        return v_string(j, &sc->test);
    if (i == SCEN_SWEEP)
        return v_string(j, &sc->sweep_key);
    enum testspec_param p = (enum testspec_param)(i - SCEN_PARAMS);
    void *f = journal_scenario_field(sc, p);
    bool has;
    int64_t v;
    switch (testspec_type(p)) {
    case TESTSPEC_BOOL:
        return v_true(j, f);
    case TESTSPEC_DURATION:
        return v_number(j, f, &has);
    case TESTSPEC_DIRECTION: {
        const char *name;
        bool ok = v_string(j, &name);
        *(uint64_t *)f = journal_direction(name);
        return ok;
    }
    default: {
        bool ok = v_int(j, &v);
        *(uint64_t *)f = journal_count(v);
        return ok;
    }
    }
}

static const struct key pair_keys_plan[] = {K("name"), K("sha256")};
static const struct key pair_keys_env[] = {K("src"), K("dst")};
static const struct key pair_keys_tool[] = {K("version"), K("nsperf_sha256")};

/* Two string members into ctx[0] and ctx[1]. */
static bool
m_pair(struct jp *j, size_t i, void *ctx)
{
    const char **two = ctx;
    return v_string(j, &two[i]);
}

static const struct key cpu_keys[] = {K("local_pct"), K("remote_pct"), K("cycles_per_byte"),
                                      K("remote_cycles_per_byte")};

static bool
m_cpu(struct jp *j, size_t i, void *ctx)
{
    struct journal_result *r = ctx;
    switch (i) {
    case 0:
        return v_number(j, &r->cpu_local_pct, &r->has_cpu_local);
    case 1:
        return v_number(j, &r->cpu_remote_pct, &r->has_cpu_remote);
    case 2:
        return v_number(j, &r->cpu_cpb_local, &r->has_cpu_cpb_local);
    default:
        return v_number(j, &r->cpu_cpb_remote, &r->has_cpu_cpb_remote);
    }
}

static const struct key udp_keys[] = {K("sent"), K("lost"), K("lost_pct"), K("jitter_us"),
                                      K("unsent")};

static bool
m_udp(struct jp *j, size_t i, void *ctx)
{
    struct journal_result *r = ctx;
    switch (i) {
    case 0:
        return v_number(j, &r->udp_sent, &r->has_udp_sent);
    case 1:
        return v_number(j, &r->udp_lost, &r->has_udp_lost);
    case 2:
        return v_number(j, &r->udp_lost_pct, &r->has_udp_lost_pct);
    case 3:
        return v_number(j, &r->udp_jitter_us, &r->has_udp_jitter);
    default:
        return v_number(j, &r->udp_unsent, &r->has_udp_unsent);
    }
}

/* [lower_ns, count] written by nsperf as "[123,45]": read inline, else the general way. */
static inline bool
bucket_inline(struct jp *j, int64_t v[2])
{
    const unsigned char *q = j->p, *end = j->end;
    if (q >= end || *q != '[')
        return false;
    q++;
    for (int k = 0; k < 2; k++) {
        const unsigned char *d = q;
        uint64_t x = 0;
        while (q < end && *q >= '0' && *q <= '9' && q - d < SCAN_INLINE_DIGITS)
            x = x * 10 + (uint64_t)(*q++ - '0');
        if (q == d || (*d == '0' && q - d > 1) || q >= end || *q != (k == 0 ? ',' : ']'))
            return false;
        v[k] = (int64_t)x;
        q++;
    }
    j->p = q;
    return true;
}

/* One entry the way hist_rtt_json_buckets reads it: members 0 and 1 as integers (absent or
 * another type: 0), further ones ignored; an entry that is not an array is (0, 0). */
static bool
bucket_general(struct jp *j, int64_t v[2])
{
    v[0] = v[1] = 0;
    ws(j);
    if (j->p >= j->end || *j->p != '[')
        return skip_value(j);
    if (++j->depth > SCAN_MAX_DEPTH)
        return false;
    j->p++;
    if (!eat(j, ']')) {
        size_t k = 0;
        do {
            bool ok = k < 2 ? v_int(j, &v[k]) : skip_value(j);
            if (!ok)
                return false;
            k++;
        } while (eat(j, ','));
        if (!eat(j, ']'))
            return false;
    }
    j->depth--;
    return true;
}

static inline bool
bucket_push(struct journal_buckets *bb, const int64_t v[2])
{
    if (v[0] < 0 || v[1] <= 0)
        return true; /* skipped, as hist_rtt_json_buckets skips it */
    return journal_buckets_push(bb, (uint64_t)v[0], (uint64_t)v[1]);
}

struct hist_ctx {
    struct journal_buckets *bb; /* NULL: the buckets are checked, not kept */
    int64_t sub_bits;
    bool has_buckets, has_runs; /* the members are there (of any type) */
    bool buckets_array, runs_array;
};

/* Checking buckets, and reading those that are kept: 64 bytes at a time (SSE2), as bit masks of
 * the byte classes instead of a branch per byte (a report of 100 000 loopback trials reads 120
 * million buckets: a branch per byte was half of its reading). What it takes is one form of
 * nsperf's, [[N,N...],...,[N,N...]] without blanks, N an integer without sign or leading zero of at
 * most 16 digits: valid JSON (each rule below pins a byte's neighbours, and together they leave no
 * other string), arrays two deep. Anything else, or fewer than 65 bytes left past a block, is left
 * to the general way from the start. */
#if defined(__SSE2__)
#include <emmintrin.h>

struct bclass {
    uint64_t d, c, o, x, z; /* digits, commas, '[', ']', '0' */
};

static inline uint64_t
bclass_eq(__m128i v, char c)
{
    return (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(c)));
}

static inline void
bclass_of(const unsigned char *p, struct bclass *k)
{
    *k = (struct bclass){0};
    for (unsigned i = 0; i < 4; i++) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + 16 * i));
        __m128i dig = _mm_and_si128(_mm_cmpgt_epi8(v, _mm_set1_epi8('0' - 1)),
                                    _mm_cmplt_epi8(v, _mm_set1_epi8('9' + 1)));
        k->d |= (uint64_t)(unsigned)_mm_movemask_epi8(dig) << (16 * i);
        k->c |= bclass_eq(v, ',') << (16 * i);
        k->o |= bclass_eq(v, '[') << (16 * i);
        k->x |= bclass_eq(v, ']') << (16 * i);
        k->z |= bclass_eq(v, '0') << (16 * i);
    }
}

/* m's bits moved up by n (1..63), the bits below from the block before (before). */
static inline uint64_t
up(uint64_t m, uint64_t before, unsigned n)
{
    return m << n | before >> (64 - n);
}

/* The n (1..16) digits at s, which check_fast found, as a number: 8 bytes at a time where 16
 * bytes are left before end, else byte by byte. */
static inline uint64_t
run_value(const unsigned char *s, size_t n, const unsigned char *end)
{
#if SCAN_SWAR
    if (end - s >= 16) {
        uint64_t a = swar_load(s) ^ (SWAR_ONES * '0');
        if (n <= 8)
            return swar_digits(a, n);
        static const uint64_t p10[] = {1,      10,      100,      1000,     10000,
                                       100000, 1000000, 10000000, 100000000};
        return swar_digits(a, 8) * p10[n - 8] +
               swar_digits(swar_load(s + 8) ^ (SWAR_ONES * '0'), n - 8);
    }
#endif
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++)
        v = v * 10 + (uint64_t)(s[i] - '0');
    return v;
}

/* run_value for a count of the runs form, most of which have 1 to 4 digits: those in two
 * multiplications, not three. */
static inline uint64_t
count_value(const unsigned char *s, size_t n, const unsigned char *end)
{
#if SCAN_SWAR
    if (n <= 4 && end - s >= 8) {
        uint32_t x = (uint32_t)(swar_load(s) ^ (SWAR_ONES * '0')) << (8 * (4 - n));
        x = (x * 10 + (x >> 8)) & 0x00FF00FFu;
        return (x * 100 + (x >> 16)) & 0xFFFFu;
    }
#endif
    return run_value(s, n, end);
}

/* The buckets' reading from the checked blocks: where t marks the bytes that end a number (a
 * byte after a digit that is none), found by its bits, not by a branch per byte. Every entry must
 * be [N,N] (the first number ends at a comma, the second at ']', which the checks put before
 * ",[" or "]]"): false for any other, and the general way reads the array. */
struct bread {
    struct journal_buckets *bb;
    const unsigned char *start; /* the number being read */
    uint64_t low;               /* the entry's first number, when k is 1 */
    unsigned k;                 /* which of the entry's two */
};

/* A block holds at most 11 entries ("[0,0]," is 6 bytes): room for them is made first, so that
 * the loop appends without a check (a count of 0 is not kept: hist_rtt_json_buckets skips it). */
#define BREAD_BLOCK_MAX 11

static inline bool
bread_block(struct bread *r, const unsigned char *q, uint64_t t, const unsigned char *end)
{
    struct journal_buckets *bb = r->bb;
    if (ARRAY_GROW(&bb->b, &bb->cap, bb->n + BREAD_BLOCK_MAX) != 0)
        return false;
    const unsigned char *s = r->start;
    struct journal_bucket *o = bb->b + bb->n;
    uint64_t low = r->low;
    unsigned k = r->k;
    bool ok = true;
    for (; t != 0; t &= t - 1) {
        const unsigned char *e = q + __builtin_ctzll(t);
        uint64_t v = run_value(s, (size_t)(e - s), end);
        if (k == 0) {
            ok = *e == ',';
            low = v;
            s = e + 1;
        } else {
            ok = *e == ']';
            o->low_ns = low;
            o->count = v;
            o += v != 0;
            s = e + 3;
        }
        if (!ok)
            break;
        k ^= 1;
    }
    bb->n = (size_t)(o - bb->b);
    r->start = s;
    r->low = low;
    r->k = k;
    return ok;
}

/* The runs form's reading from the checked blocks, by the same bits: a run's head ends at a
 * comma (a run without a count is refused), a count at a comma or at the run's ']' (which the
 * checks put before ",[" or "]]"). A run that starts where the one before ended is joined to it,
 * as journal_buckets_push_run joins them; a run past the last bucket is refused (false: the line
 * goes to jansson, which skips it). */
struct rread {
    struct journal_buckets *bb;
    const unsigned char *start; /* the number being read */
    bool head;                  /* it is a run's first */
};

/* A block holds at most 32 counts ("0," is 2 bytes) and 11 runs ("[0,0]," is 6). */
#define RREAD_BLOCK_COUNTS 32
#define RREAD_BLOCK_RUNS 11

static inline bool
rread_block(struct rread *r, const unsigned char *q, uint64_t t, const unsigned char *end)
{
    struct journal_buckets *bb = r->bb;
    if (ARRAY_GROW(&bb->c, &bb->capc, bb->nc + RREAD_BLOCK_COUNTS) != 0 ||
        ARRAY_GROW(&bb->r, &bb->capr, bb->nr + RREAD_BLOCK_RUNS) != 0)
        return false;
    const unsigned char *s = r->start;
    uint64_t *o = bb->c + bb->nc;
    struct journal_hrun *run = bb->nr > 0 ? bb->r + bb->nr - 1 : NULL;
    bool head = r->head, ok = true;
    for (; t != 0; t &= t - 1) {
        const unsigned char *e = q + __builtin_ctzll(t);
        uint64_t v = count_value(s, (size_t)(e - s), end);
        s = e + 1;
        if (head) {
            size_t idx = hist_index(v);
            ok = *e == ',';
            if (run == NULL || (size_t)run->first + run->len != idx) {
                run = bb->r + bb->nr++;
                *run = (struct journal_hrun){.first = (uint32_t)idx, .len = 0};
            }
            head = false;
        } else {
            *o++ = v;
            run->len++;
            if (*e == ']') {
                ok = (size_t)run->first + run->len <= HIST_NBUCKETS;
                s = e + 3;
                head = true;
            }
        }
        if (!ok)
            break;
    }
    bb->nc = (size_t)(o - bb->c);
    r->start = s;
    r->head = head;
    return ok;
}

/* p: just after the array's '['. True: checked (and, bb not NULL, its entries appended to bb),
 * *out just after its ']'. False: bb as it was. */
static bool
buckets_check_fast(const unsigned char *p, const unsigned char *end, struct journal_buckets *bb,
                   bool runs, const unsigned char **out)
{
    if (end - p < 65 || *p != '[')
        return false;
    size_t n0 = bb != NULL ? bb->n : 0, nr0 = bb != NULL ? bb->nr : 0;
    size_t nc0 = bb != NULL ? bb->nc : 0;
    struct bread r = {.bb = bb, .start = p + 1};
    struct rread rr = {.bb = bb, .start = p + 1, .head = true};
    /* the block before: the array's '[' reads as a comma before the first entry's '[' */
    struct bclass b = {.c = UINT64_C(1) << 63};
    uint64_t r2 = 0, r4 = 0, r8 = 0; /* the block before's runs of >= 2, 4, 8 digits */
    for (const unsigned char *q = p; end - q >= 65; q += 64) {
        struct bclass k;
        bclass_of(q, &k);
        unsigned char n = q[64]; /* the next block's first byte */
        uint64_t nd = (uint64_t)(n >= '0' && n <= '9') << 63, nc = (uint64_t)(n == ',') << 63;
        uint64_t no = (uint64_t)(n == '[') << 63, nx = (uint64_t)(n == ']') << 63;
        uint64_t pd = up(k.d, b.d, 1), pc = up(k.c, b.c, 1), px = up(k.x, b.x, 1);
        uint64_t xd = k.d >> 1 | nd, xc = k.c >> 1 | nc, xo = k.o >> 1 | no, xx = k.x >> 1 | nx;
        /* the array ends at its first "]]": the second ']' */
        uint64_t ends = k.x & px;
        uint64_t region = ends != 0 ? (ends & -ends) - 1 : ~UINT64_C(0);
        /* a digit's run of >= 2, 4, 8, 16, 17 digits ending at it */
        uint64_t q2 = k.d & pd, q4 = q2 & up(q2, r2, 2), q8 = q4 & up(q4, r4, 4);
        uint64_t q16 = q8 & up(q8, r8, 8), q17 = q16 & up(k.d, b.d, 16);
        uint64_t bad = ~(k.d | k.c | k.o | k.x) /* another byte */
                       | (k.o & ~(pc & xd))     /* '[' after ',' (or the array's '['), before N */
                       | (k.x & ~(pd & (xc | xx)))        /* ']' after N, before ',' or ']' */
                       | (k.c & ~((pd & xd) | (px & xo))) /* ',' in N,N or ],[ */
                       | (k.z & ~pd & xd)                 /* a leading zero */
                       | q17;
        uint64_t t = ~k.d & pd & region;
        if ((bad & region) != 0 ||
            (bb != NULL && !(runs ? rread_block(&rr, q, t, end) : bread_block(&r, q, t, end)))) {
            if (bb != NULL) {
                bb->n = n0;
                bb->nr = nr0;
                bb->nc = nc0;
            }
            return false;
        }
        if (ends != 0) {
            *out = q + __builtin_ctzll(ends) + 1;
            return true;
        }
        b = k;
        r2 = q2;
        r4 = q4;
        r8 = q8;
    }
    if (bb != NULL) {
        bb->n = n0;
        bb->nr = nr0;
        bb->nc = nc0;
    }
    return false;
}
#else
static bool
buckets_check_fast(const unsigned char *p, const unsigned char *end, struct journal_buckets *bb,
                   bool runs, const unsigned char **out)
{
    (void)p, (void)end, (void)bb, (void)runs, (void)out;
    return false;
}
#endif

/* The runs form (histjson.h) in nsperf's form only, which buckets_check_fast takes: anything
 * else, but the empty array, is left to jansson. */
static bool
runs_read(struct jp *j, struct hist_ctx *h)
{
    ws(j);
    h->has_runs = true;
    if (j->p >= j->end || *j->p != '[')
        return skip_value(j);
    h->runs_array = true;
    j->p++;
    const unsigned char *after;
    if (eat(j, ']'))
        return true;
    if (j->depth + 1 >= SCAN_MAX_DEPTH || !buckets_check_fast(j->p, j->end, h->bb, true, &after))
        return false;
    j->p = after;
    return true;
}

static bool
m_hist(struct jp *j, size_t i, void *ctx)
{
    struct hist_ctx *h = ctx;
    if (i == 0)
        return v_int(j, &h->sub_bits);
    if (i == 2)
        return runs_read(j, h);
    ws(j);
    h->has_buckets = true;
    if (j->p >= j->end || *j->p != '[')
        return skip_value(j);
    h->buckets_array = true;
    if (++j->depth > SCAN_MAX_DEPTH)
        return false;
    j->p++;
    const unsigned char *after;
    if (j->depth < SCAN_MAX_DEPTH && buckets_check_fast(j->p, j->end, h->bb, false, &after)) {
        j->p = after;
        j->depth--;
        return true;
    }
    if (!eat(j, ']')) {
        do {
            int64_t v[2];
            if (!bucket_inline(j, v) && !bucket_general(j, v))
                return false;
            if (h->bb != NULL && !bucket_push(h->bb, v))
                return false;
        } while (eat(j, ','));
        if (!eat(j, ']'))
            return false;
    }
    j->depth--;
    return true;
}

static const struct key hist_keys[] = {K(HISTJSON_SUB_BITS), K(HISTJSON_BUCKETS), K(HISTJSON_RUNS)};
static const struct key rtt_keys[] = {K("mean"), K("min"), K("max"), K(HISTJSON_M2),
                                      K(HISTJSON_HIST)};

struct rtt_ctx {
    struct journal_result *r;
    struct journal_buckets *bb;
    const struct journal_scan *s;
};

static bool
m_rtt(struct jp *j, size_t i, void *ctx)
{
    struct rtt_ctx *c = ctx;
    struct journal_result *r = c->r;
    switch (i) {
    case 0:
        return v_number(j, &r->metric[TESTSPEC_M_RTT_MEAN], &r->has_metric[TESTSPEC_M_RTT_MEAN]);
    case 1:
        return v_number(j, &r->rtt_min_us, &r->has_rtt_min);
    case 2:
        return v_number(j, &r->rtt_max_us, &r->has_rtt_max);
    case 3:
        return v_number(j, &r->rtt_m2_ns2, &r->has_rtt_m2);
    default: {
        struct hist_ctx h = {.bb = c->s->no_buckets ? NULL : c->bb};
        bool is_obj;
        if (!object(j, hist_keys, NKEYS(hist_keys), m_hist, &h, &is_obj))
            return false;
        /* as hist_rtt_json_form and hist_rtt_json_buckets decide */
        bool runs = h.runs_array && !h.has_buckets && h.sub_bits == HIST_SUB_BITS;
        bool buckets = h.buckets_array && !h.has_runs && hist_layout_known(h.sub_bits);
        r->has_hist = is_obj && (runs || buckets);
        r->hist_runs = r->has_hist && runs;
        r->hist_sub_bits = r->has_hist ? (int)h.sub_bits : 0;
        return true;
    }
    }
}

/* The metrics' -J keys first, by enum testspec_metric (common/testspec.h: each a number of the
 * result, or its member's in the object at the key; TESTSPEC_M_RTT_MEAN's is the rtt_us object,
 * whose mean and histogram this reads), then the others. */
static const struct key result_keys[] = {
#define METRIC_KEY(id, key, member, div, unit, words, note, lower, fig, kinds, when) K(key),
    TESTSPEC_METRIC_MAP(METRIC_KEY)
#undef METRIC_KEY
        K("retransmits"),
    K("cpu"), K("udp")};
enum { R_RETRANSMITS = TESTSPEC_METRIC_COUNT, R_CPU, R_UDP };

/* Each metric's member (unused where it has none). */
static const struct key member_keys[TESTSPEC_METRIC_COUNT] = {
#define MEMBER_KEY(id, key, member, div, unit, words, note, lower, fig, kinds, when)               \
    [TESTSPEC_M_##id] = K(member),
    TESTSPEC_METRIC_MAP(MEMBER_KEY)
#undef MEMBER_KEY
};

struct member_ctx {
    double *v;
    bool *has;
};

static bool
m_member(struct jp *j, size_t i, void *ctx)
{
    (void)i;
    struct member_ctx *c = ctx;
    return v_number(j, c->v, c->has);
}

static bool
m_result(struct jp *j, size_t i, void *ctx)
{
    struct rtt_ctx *c = ctx;
    struct journal_result *r = c->r;
    bool is_obj;
    if (i < TESTSPEC_METRIC_COUNT && i != TESTSPEC_M_RTT_MEAN) {
        if (testspec_metric_member((enum testspec_metric)i) == NULL)
            return v_number(j, &r->metric[i], &r->has_metric[i]);
        struct member_ctx mc = {&r->metric[i], &r->has_metric[i]};
        return object(j, &member_keys[i], 1, m_member, &mc, &is_obj);
    }
    switch (i) {
    case R_RETRANSMITS:
        return v_number(j, &r->retransmits, &r->has_retransmits);
    case R_CPU:
        return object(j, cpu_keys, NKEYS(cpu_keys), m_cpu, r, &is_obj);
    case R_UDP:
        if (!object(j, udp_keys, NKEYS(udp_keys), m_udp, r, &is_obj))
            return false;
        r->has_udp = is_obj;
        return true;
    default: /* TESTSPEC_M_RTT_MEAN: the rtt_us object */
        if (!object(j, rtt_keys, NKEYS(rtt_keys), m_rtt, c, &is_obj))
            return false;
        r->has_rtt = is_obj;
        return true;
    }
}

static const struct key attempt_keys[] = {K("started"), K("ended"), K("error"), K("host_away")};

static bool
m_attempt(struct jp *j, size_t i, void *ctx)
{
    struct journal_attempt *a = ctx;
    const char **f[] = {&a->started, &a->ended, &a->error, &a->host_away};
    return v_string(j, f[i]);
}

/* "attempts": a list of objects as attempts_from reads it (an element that is not an object
 * reads as all NULL), or else a count (v_int). */
static bool
v_attempts(struct jp *j, struct journal_buckets *bb, struct journal_trial *t)
{
    ws(j);
    if (j->p >= j->end || *j->p != '[') {
        int64_t v;
        if (!v_int(j, &v))
            return false;
        t->attempts = journal_attempts(v);
        return true;
    }
    if (++j->depth > SCAN_MAX_DEPTH)
        return false;
    j->p++;
    if (!eat(j, ']')) {
        do {
            struct journal_attempt a = {0};
            bool is_obj;
            if (!object(j, attempt_keys, NKEYS(attempt_keys), m_attempt, &a, &is_obj) ||
                !journal_attempts_push(bb, &a))
                return false;
        } while (eat(j, ','));
        if (!eat(j, ']'))
            return false;
    }
    j->depth--;
    t->attempt = bb->a;
    t->nattempt = bb->na;
    t->attempts = journal_attempts_listed(bb->na);
    return true;
}

/* "flags": the names of common/hostflags.h, in enum hostflag's order. */
static const struct key flag_keys[] = {
#define SCAN_FLAG_KEY(id, name) K(name),
    HOSTFLAG_MAP(SCAN_FLAG_KEY)
#undef SCAN_FLAG_KEY
};

static bool
m_flags(struct jp *j, size_t i, void *ctx)
{
    struct journal_trial *t = ctx;
    if (!v_string(j, &t->flag_why[i]))
        return false;
    if (t->flag_why[i] != NULL)
        t->flag_mask |= 1u << i;
    return true;
}

static const struct key record_keys[] = {
    K("schema"), K("run_id"), K("plan"),   K("scenario"), K("trial"),    K("family"),
    K("src"),    K("dst"),    K("status"), K("error"),    K("attempts"), K("started"),
    K("ended"),  K("result"), K("env"),    K("tool"),     K("flags"),    K("revision")};

struct record_ctx {
    struct journal_trial *t;
    struct journal_buckets *bb;
    const struct journal_scan *s;
    const char *family, *status;
    const char *plan[2], *env[2], *tool[2];
};

static bool
m_record(struct jp *j, size_t i, void *ctx)
{
    struct record_ctx *c = ctx;
    struct journal_trial *t = c->t;
    int64_t v;
    bool is_obj;
    switch (i) {
    case 0:
        return v_string(j, &t->schema);
    case 1:
        return v_string(j, &t->run_id);
    case 2:
        return object(j, pair_keys_plan, 2, m_pair, c->plan, &is_obj);
    case 3:
        return object(j, scenario_keys, NKEYS(scenario_keys), m_scenario, &t->scenario, &is_obj);
    case 4:
        if (!v_int(j, &v))
            return false;
        t->trial = journal_trial_number(v);
        return true;
    case 5:
        return v_string(j, &c->family);
    case 6:
        return object(j, endpoint_keys, NKEYS(endpoint_keys), m_endpoint, &t->src, &is_obj);
    case 7:
        return object(j, endpoint_keys, NKEYS(endpoint_keys), m_endpoint, &t->dst, &is_obj);
    case 8:
        return v_string(j, &c->status);
    case 9:
        return v_string(j, &t->error);
    case 10:
        return v_attempts(j, c->bb, t);
    case 11:
        return v_string(j, &t->started);
    case 12:
        return v_string(j, &t->ended);
    case 13: {
        struct rtt_ctx rc = {.r = &t->result, .bb = c->bb, .s = c->s};
        if (!object(j, result_keys, NKEYS(result_keys), m_result, &rc, &is_obj))
            return false;
        t->result.present = is_obj;
        return true;
    }
    case 14:
        return object(j, pair_keys_env, 2, m_pair, c->env, &is_obj);
    case 15:
        return object(j, pair_keys_tool, 2, m_pair, c->tool, &is_obj);
    case 16:
        if (!object(j, flag_keys, NKEYS(flag_keys), m_flags, t, &is_obj))
            return false;
        t->judged = is_obj;
        return true;
    default:
        if (!v_int(j, &v))
            return false;
        t->revision = journal_trial_number(v);
        return true;
    }
}

bool
journal_scan_trial(struct journal_scan *s, const char *line, size_t len, struct journal_trial *t)
{
    memset(t, 0, sizeof *t);
    journal_scenario_absent(&t->scenario);
    s->arena_len = 0;
    s->bb.n = s->bb.nr = s->bb.nc = s->bb.na = 0;
    struct jp j = {
        .p = (const unsigned char *)line, .end = (const unsigned char *)line + len, .s = s};
    struct record_ctx c = {.t = t, .bb = &s->bb, .s = s};
    bool is_obj;
    ws(&j);
    if (j.p >= j.end || *j.p != '{')
        return false; /* jansson takes a top-level array; the record is an object */
    if (!object(&j, record_keys, NKEYS(record_keys), m_record, &c, &is_obj))
        return false;
    ws(&j);
    if (j.p != j.end)
        return false;
    t->plan_name = c.plan[0];
    t->plan_sha256 = c.plan[1];
    t->env_src = c.env[0];
    t->env_dst = c.env[1];
    t->tool_version = c.tool[0];
    t->nsperf_sha256 = c.tool[1];
    t->family_text = c.family;
    t->family = journal_family_from(c.family);
    t->status_text = c.status;
    t->status = journal_status_from(c.status);
    bool hist = t->result.has_hist && !s->no_buckets;
    t->result.buckets = s->no_buckets ? NULL : s->bb.b;
    t->result.nbuckets = hist ? s->bb.n : 0;
    t->result.runs = s->no_buckets ? NULL : s->bb.r;
    t->result.nruns = hist ? s->bb.nr : 0;
    t->result.counts = s->no_buckets ? NULL : s->bb.c;
    t->result.ncounts = hist ? s->bb.nc : 0;
    return true;
}
