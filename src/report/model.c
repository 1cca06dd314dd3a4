/* model.c - load run directories into the report model, through the journal's reader
 * (journal/journal.h; the format is netsurvey-journal(5)).
 *
 * Each trial record is reduced at once to the figures the reports use (headline value, CPU,
 * retransmits, UDP loss, the RTT histogram's sparse buckets) and dropped, so memory follows the
 * number of trials, not the journal's size. A trial seen twice under one key (journal_key: a
 * resumed run) keeps its last ok record, else its last failed one (journal_supersedes); the key
 * holds the run, so that the trials of two runs of one plan are pooled, never one dropped for
 * the other. */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <sys/mman.h>

#include "common/array.h"
#include "common/bitset.h"
#include "common/errors.h"
#include "common/hist.h"
#include "common/stats.h"
#include "journal/journal.h"
#include "report/report.h"
#include "report/reportint.h"

const char *
report_family_name(int family)
{
    return journal_family_name(family == 1 ? JOURNAL_IPV6 : JOURNAL_IPV4);
}

/* LEB128: 7 bits a byte, low first, the top bit set on all but the last. */
static uint64_t
rvarint_get(const uint8_t **q)
{
    const uint8_t *p = *q;
    uint64_t v = *p & 0x7f;
    for (unsigned shift = 7; *p++ & 0x80; shift += 7)
        v |= (uint64_t)(*p & 0x7f) << shift;
    *q = p;
    return v;
}

static uint8_t *
rvarint_put(uint8_t *p, uint64_t v)
{
    while (v >= 0x80) {
        *p++ = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    *p++ = (uint8_t)v;
    return p;
}

/* b[0..7] += the 8 bytes of w, lowest first. */
static inline void
rrtt_add8(uint64_t *b, uint64_t w)
{
#if defined(__SSE2__)
    __m128i z = _mm_setzero_si128(), v = _mm_cvtsi64_si128((long long)w);
    __m128i w16 = _mm_unpacklo_epi8(v, z);
    __m128i lo32 = _mm_unpacklo_epi16(w16, z), hi32 = _mm_unpackhi_epi16(w16, z);
    __m128i q[4] = {_mm_unpacklo_epi32(lo32, z), _mm_unpackhi_epi32(lo32, z),
                    _mm_unpacklo_epi32(hi32, z), _mm_unpackhi_epi32(hi32, z)};
    for (unsigned j = 0; j < 4; j++) {
        __m128i *p = (__m128i *)(void *)(b + 2 * j);
        _mm_storeu_si128(p, _mm_add_epi64(_mm_loadu_si128(p), q[j]));
    }
#else
    for (unsigned j = 0; j < 8; j++)
        b[j] += (w >> (8 * j)) & 0xff;
#endif
}

void
report_rtt_merge_into(struct hist *h, const struct rrtt *r)
{
    if (r->n == 0)
        return;
    struct hist part;
    /* Only the summary fields: the buckets are added straight into h below. */
    part.count = r->n;
    part.min = (uint64_t)llround(r->min_ns);
    part.max = (uint64_t)llround(r->max_ns);
    part.mean = r->mean_ns;
    part.m2 = r->m2;
    if (h->count == 0 || part.min < h->min)
        h->min = part.min;
    if (h->count == 0 || part.max > h->max)
        h->max = part.max;
    stats_merge_moments((double)h->count, &h->mean, &h->m2, (double)part.count, part.mean, part.m2);
    h->count += part.count;
    const uint8_t *q = r->enc, *end = r->enc + r->len;
    size_t idx = 0;
    if (r->runs) {
        const uint8_t *c = r->enc + r->hlen; /* the counts, after the heads */
        end = c;
        while (q < end) {
            idx += (size_t)rvarint_get(&q);
            unsigned len = *q++;
            uint64_t *b = h->buckets + idx;
            unsigned k = 0;
            /* 8 counts of one byte each at a time (most are: ~20 a bucket; the short gaps'
             * zeros make runs of ~9); 8 left in the run are at least 8 bytes to read */
            for (; k + 8 <= len; k += 8, c += 8) {
                uint64_t w;
                memcpy(&w, c, 8);
                if ((w & UINT64_C(0x8080808080808080)) != 0)
                    break;
                rrtt_add8(b + k, w);
            }
            for (; k < len; k++) {
                if (*c < 0x80)
                    b[k] += *c++;
                else
                    b[k] += rvarint_get(&c);
            }
            idx += len - 1;
        }
        return;
    }
    while (q < end) {
        idx += (size_t)rvarint_get(&q);
        h->buckets[idx] += rvarint_get(&q);
    }
}

/* --- small helpers -------------------------------------------------------------------------- */

static char *
xstrdup(const char *s)
{
    return strdup(s != NULL ? s : "");
}

int
report_natcmp(const char *a, const char *b)
{
    while (*a && *b) {
        if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
            while (*a == '0')
                a++;
            while (*b == '0')
                b++;
            size_t la = 0, lb = 0;
            while (isdigit((unsigned char)a[la]))
                la++;
            while (isdigit((unsigned char)b[lb]))
                lb++;
            if (la != lb)
                return la < lb ? -1 : 1;
            int c = strncmp(a, b, la);
            if (c != 0)
                return c;
            a += la;
            b += lb;
            continue;
        }
        if (*a != *b)
            return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
        a++;
        b++;
    }
    return *a ? 1 : *b ? -1 : 0;
}

/* --- hosts, scenarios, pairs -------------------------------------------------------------------
 */

/* Hosts are keyed by run and name: two runs' hosts are two hosts, whatever their names, so that
 * a merge of runs whose host names repeat in other places (two accounts, two regions) keeps
 * each run's zones. With same_hosts (report --same-hosts) a name is one host in every run,
 * which run_host checks: the same place and address wherever it is named. */
static uint32_t
host_key_run(const struct rmodel *m, size_t run)
{
    return m->same_hosts ? 0 : (uint32_t)run;
}

static uint32_t
host_hash(const char *name, uint32_t run)
{
    uint32_t h = 2166136261u; /* FNV-1a over name, then the run's four bytes */
    for (const char *p = name; *p != '\0'; p++)
        h = (h ^ (unsigned char)*p) * 16777619u;
    for (int i = 0; i < 4; i++)
        h = (h ^ ((run >> (8 * i)) & 0xff)) * 16777619u;
    return h;
}

static const char *
str_or(const char *s)
{
    return s != NULL ? s : "";
}

/* Whether a record's text (NULL: it says nothing) is the run's. */
static bool
str_same_or_absent(const char *run, const char *rec)
{
    return rec == NULL || strcmp(run, rec) == 0;
}

/* The host named name of run (of any run, with same_hosts), or -1. */
static int
host_find(const struct rmodel *m, const char *name, size_t run)
{
    if (m->hidx_cap == 0)
        return -1;
    size_t j = host_hash(name != NULL ? name : "", host_key_run(m, run)) & (m->hidx_cap - 1);
    while (m->hidx[j] != UINT32_MAX) {
        const struct rhost *h = &m->hosts[m->hidx[j]];
        if (h->key_run == host_key_run(m, run) &&
            strcmp(h->key_name, name != NULL ? name : "") == 0)
            return (int)m->hidx[j];
        j = (j + 1) & (m->hidx_cap - 1);
    }
    return -1;
}

/* The slot of (name, run) in the hosts' index: its host, or the empty slot to take. Two
 * lookups a record: a linear search over 100 hosts was a tenth of a report's time. */
static size_t
host_slot(const struct rmodel *m, const char *name, uint32_t run)
{
    size_t j = host_hash(name, run) & (m->hidx_cap - 1);
    while (m->hidx[j] != UINT32_MAX) {
        const struct rhost *h = &m->hosts[m->hidx[j]];
        if (h->key_run == run && strcmp(h->key_name, name) == 0)
            break;
        j = (j + 1) & (m->hidx_cap - 1);
    }
    return j;
}

static int
hidx_grow(struct rmodel *m)
{
    size_t cap = m->hidx_cap ? m->hidx_cap * 2 : 256;
    uint32_t *t = malloc(cap * sizeof *t);
    if (t == NULL)
        return NS_ENOMEM;
    memset(t, 0xff, cap * sizeof *t);
    free(m->hidx);
    m->hidx = t;
    m->hidx_cap = cap;
    for (size_t i = 0; i < m->nhosts; i++)
        m->hidx[host_slot(m, m->hosts[i].key_name, m->hosts[i].key_run)] = (uint32_t)i;
    return 0;
}

/* The host named name of run (NULL reads as ""), added when new; env (borrowed, may be NULL)
 * is the first one a run.json gives it. *added says whether it is new. */
static int
host_get(struct rmodel *m, size_t run, const char *name, const char *zone, const char *region,
         const char *addr, const json_t *env, bool *added)
{
    if (name == NULL)
        name = "";
    if (zone == NULL)
        zone = "";
    if (region == NULL)
        region = "";
    if (addr == NULL)
        addr = "";
    *added = false;
    if ((m->nhosts + 1) * 2 > m->hidx_cap && hidx_grow(m) != 0)
        return NS_ENOMEM;
    uint32_t kr = host_key_run(m, run);
    size_t slot = host_slot(m, name, kr);
    if (m->hidx[slot] != UINT32_MAX) {
        struct rhost *h = &m->hosts[m->hidx[slot]];
        if (h->env == NULL)
            h->env = env;
        return (int)m->hidx[slot];
    }
    if (ARRAY_GROW(&m->hosts, &m->caphosts, m->nhosts + 1) != 0)
        return NS_ENOMEM;
    struct rhost *h = &m->hosts[m->nhosts];
    memset(h, 0, sizeof *h);
    h->name = xstrdup(name);
    h->key_name = xstrdup(name);
    h->zone = xstrdup(zone);
    h->region = xstrdup(region);
    h->addr = xstrdup(addr);
    h->env = env;
    h->key_run = kr;
    h->run = run;
    h->zone_idx = -1;
    m->nhosts++; /* freed with the model from here on */
    if (!h->name || !h->key_name || !h->zone || !h->region || !h->addr)
        return NS_ENOMEM;
    m->hidx[slot] = (uint32_t)(m->nhosts - 1);
    *added = true;
    return (int)m->nhosts - 1;
}

/* The scenario object without what is not a parameter of the measurement: its name, how often
 * it was repeated. */
static bool
param_key(const char *k)
{
    return strcmp(k, "name") != 0 && strcmp(k, "trials") != 0 && strcmp(k, "planned") != 0;
}

static void
param_text(const json_t *v, char *buf, size_t len)
{
    /* json_dumpb: no string from jansson's allocator to free (see report_jarena_begin) */
    size_t n =
        v != NULL ? json_dumpb(v, buf, len - 1, JSON_ENCODE_ANY | JSON_REAL_PRECISION(10)) : 0;
    if (v == NULL)
        snprintf(buf, len, "none");
    else
        buf[n < len ? n : len - 1] = '\0';
}

/* The first parameter a and b disagree on, said into why; false when they agree. */
static bool
params_differ(const json_t *a, const json_t *b, char *why, size_t len)
{
    const json_t *objs[2] = {a, b};
    for (int side = 0; side < 2; side++) {
        const char *k;
        const json_t *v;
        json_object_foreach((json_t *)(uintptr_t)objs[side], k, v)
        {
            const json_t *w = json_object_get(objs[!side], k);
            if (!param_key(k) || (w != NULL && json_equal(v, w)))
                continue;
            char va[96], vb[96];
            param_text(json_object_get(a, k), va, sizeof va);
            param_text(json_object_get(b, k), vb, sizeof vb);
            snprintf(why, len, "%s %s against %s", k, va, vb);
            return true;
        }
    }
    return false;
}

static const char *
run_dir(const struct rmodel *m, int run)
{
    return run >= 0 && (size_t)run < m->nruns ? m->runs[run].dir : "a trial record";
}

/* A scenario named again: by a run, whose parameters must be the first's (a merged report pools
 * the trials of a scenario, which must then measure the same thing), or by a trial record. */
static int
scen_again(struct rmodel *m, struct rscen *s, const struct journal_scenario *sc, const json_t *def,
           int run, struct err *e)
{
    const char *name = s->name;
    if (strcmp(s->test, sc->test) != 0)
        return err_set(e, NS_EPARSE, "scenario '%s' is %s in one run and %s in another", name,
                       s->test, sc->test);
    if (def == NULL || run < 0)
        return 0;
    char why[256];
    if (s->def_run >= 0 && s->def_run != run && params_differ(s->def, def, why, sizeof why))
        return err_set(e, NS_EINVAL,
                       "scenario '%s' was run with other parameters in %s than in %s (%s): a "
                       "merged report pools the trials of a scenario, so merge runs whose "
                       "scenarios of one name agree, or rename one",
                       name, run_dir(m, s->def_run), run_dir(m, run), why);
    if (s->def_run < 0) { /* first named by a trial record: the run's words win */
        json_decref(s->def);
        s->def = json_deep_copy(def);
        s->def_run = run;
        if (s->def == NULL)
            return err_set(e, NS_ENOMEM, "out of memory");
        json_object_del(s->def, "trials");
        json_object_del(s->def, "planned");
    }
    return 0;
}

/* The scenario of that name, added when new. def is how run recorded its parameters (NULL, run
 * -1: a trial names a scenario its run.json does not; its parameters are the record's). Two runs
 * that give one name to two kinds, or to other parameters, cannot be merged. */
/* The scenario of that name and sweep value (swept false: of that name, no sweep), or -1. */
static int
scen_find(const struct rmodel *m, const char *name, bool swept, enum testspec_param sweep,
          double value)
{
    for (size_t i = 0; i < m->nscens; i++) {
        const struct rscen *s = &m->scens[i];
        if (strcmp(s->name, name) == 0 && s->swept == swept &&
            (!swept || (s->sweep == sweep && s->value == value)))
            return (int)i;
    }
    return -1;
}

static int
scen_get(struct rmodel *m, const struct journal_scenario *sc, const json_t *def, int run,
         struct err *e)
{
    const char *name = sc->name != NULL ? sc->name : "";
    double value = sc->swept ? journal_scenario_value(sc, sc->sweep) : 0.0;
    int found = scen_find(m, name, sc->swept, sc->sweep, value);
    if (found >= 0) {
        int rc = scen_again(m, &m->scens[found], sc, def, run, e);
        return rc != 0 ? rc : found;
    }
    if (ARRAY_GROW(&m->scens, &m->capscens, m->nscens + 1) != 0)
        return err_set(e, NS_ENOMEM, "out of memory");
    struct rscen *s = &m->scens[m->nscens];
    memset(s, 0, sizeof *s);
    s->runs = calloc(m->capruns, sizeof *s->runs);
    s->name = xstrdup(name);
    s->test = xstrdup(sc->test);
    s->kind = (enum testspec_kind)sc->kind;
    s->reverse = sc->reverse;
    s->swept = sc->swept;
    s->sweep = sc->sweep;
    s->value = value;
    journal_scenario_spec(sc, &s->spec);
    for (int i = 0; i < TESTSPEC_METRIC_COUNT && s->nfigs < RFIG_MAX; i++)
        if (testspec_metric_reported((enum testspec_metric)i, &s->spec))
            s->figs[s->nfigs++] = (enum testspec_metric)i;
    s->policy = (struct trials_policy){0};
    s->def = def != NULL ? json_deep_copy(def) : journal_scenario_json(sc);
    s->def_run = def != NULL ? run : -1;
    m->nscens++; /* freed with the model from here on */
    if (!s->runs || !s->name || !s->test || !s->def)
        return err_set(e, NS_ENOMEM, "out of memory");
    json_object_del(s->def, "trials");
    json_object_del(s->def, "planned");
    return (int)m->nscens - 1;
}

static uint32_t
pair_hash(int scen, int fam, int src, int dst)
{
    uint64_t h = (uint64_t)(uint32_t)scen * 0x9E3779B97F4A7C15u;
    h ^= (uint64_t)(uint32_t)fam + 0x632BE59BD9B4E019u + (h << 6) + (h >> 2);
    h ^= (uint64_t)(uint32_t)src * 0xC2B2AE3D27D4EB4Fu + (h << 6) + (h >> 2);
    h ^= (uint64_t)(uint32_t)dst * 0x165667B19E3779F9u + (h << 6) + (h >> 2);
    return (uint32_t)(h ^ (h >> 29));
}

static int
pidx_grow(struct rmodel *m)
{
    size_t cap = m->pidx_cap ? m->pidx_cap * 2 : 1024;
    uint32_t *t = malloc(cap * sizeof *t);
    if (t == NULL)
        return NS_ENOMEM;
    memset(t, 0xff, cap * sizeof *t);
    for (size_t i = 0; i < m->npairs; i++) {
        const struct rpair *p = &m->pairs[i];
        size_t j = pair_hash(p->scen, p->family, p->src, p->dst) & (cap - 1);
        while (t[j] != UINT32_MAX)
            j = (j + 1) & (cap - 1);
        t[j] = (uint32_t)i;
    }
    free(m->pidx);
    m->pidx = t;
    m->pidx_cap = cap;
    return 0;
}

/* The pair, or NULL when it has no record and no plan. */
static struct rpair *
pair_find(const struct rmodel *m, int scen, int fam, int src, int dst)
{
    if (m->pidx_cap == 0)
        return NULL;
    size_t j = pair_hash(scen, fam, src, dst) & (m->pidx_cap - 1);
    while (m->pidx[j] != UINT32_MAX) {
        struct rpair *p = &m->pairs[m->pidx[j]];
        if (p->scen == scen && p->family == fam && p->src == src && p->dst == dst)
            return p;
        j = (j + 1) & (m->pidx_cap - 1);
    }
    return NULL;
}

static struct rpair *
pair_get(struct rmodel *m, int scen, int fam, int src, int dst)
{
    if ((m->npairs + 1) * 2 > m->pidx_cap && pidx_grow(m) != 0)
        return NULL;
    size_t j = pair_hash(scen, fam, src, dst) & (m->pidx_cap - 1);
    while (m->pidx[j] != UINT32_MAX) {
        struct rpair *p = &m->pairs[m->pidx[j]];
        if (p->scen == scen && p->family == fam && p->src == src && p->dst == dst)
            return p;
        j = (j + 1) & (m->pidx_cap - 1);
    }
    if (ARRAY_GROW(&m->pairs, &m->cappairs, m->npairs + 1) != 0)
        return NULL;
    struct rpair *p = &m->pairs[m->npairs];
    memset(p, 0, sizeof *p);
    p->scen = scen;
    p->family = fam;
    p->src = src;
    p->dst = dst;
    m->pidx[j] = (uint32_t)m->npairs++;
    return p;
}

/* Packed buckets come from big blocks (a 100 000-trial journal holds ~50 000 histograms; one
 * malloc each would cost more than reading them), freed with the model. */
#define RBLOCK_BYTES (8u << 20) /* mapped and marked for huge pages (fewer faults) */

struct rblock {
    struct rblock *next;
    size_t used, cap;
    uint8_t b[];
};

/* Room for up to n bytes; rmodel_bytes_used() then says how many were taken. */
static uint8_t *
rmodel_bytes(struct rmodel *m, size_t n)
{
    struct rblock *blk = m->blocks;
    if (blk == NULL || blk->used + n > blk->cap) {
        size_t cap = n > RBLOCK_BYTES ? n : RBLOCK_BYTES;
        size_t bytes = sizeof *blk + cap;
        void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED)
            return NULL;
        madvise(p, bytes, MADV_HUGEPAGE); /* advice only */
        blk = p;
        blk->next = m->blocks;
        blk->used = 0;
        blk->cap = cap;
        m->blocks = blk;
    }
    return blk->b + blk->used;
}

static void
rmodel_bytes_used(struct rmodel *m, size_t n)
{
    m->blocks->used += n;
}

static int
cmp_u64(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return a < b ? -1 : a > b;
}

/* --- one trial record ----------------------------------------------------------------------- */

static void
trial_release(struct rtrial *t)
{
    free(t->error);
    free(t->flag_why);
    memset(t, 0, sizeof *t);
}

#define RRTT_COUNT_MAX                                                                             \
    ((UINT64_C(1) << 48) - 1) /* counts past it (no test sends so many) saturate */

/* The buckets of res placed in this layout and packed at p, in one pass, while they ascend (as
 * nsperf writes them: by index, then count); false at the first that does not (p's bytes are
 * then void). */
static bool
rtt_pack_sorted(const struct journal_result *res, uint8_t **pp, struct rrtt *r)
{
    uint8_t *p = *pp;
    uint64_t prev = 0, n = 0; /* prev: the last (index << 48 | count), as rtt_fill sorts them */
    for (size_t i = 0; i < res->nbuckets; i++) {
        uint64_t c = res->buckets[i].count;
        c = c > RRTT_COUNT_MAX ? RRTT_COUNT_MAX : c;
        uint64_t idx = hist_index_layout(res->hist_sub_bits, res->buckets[i].low_ns);
        uint64_t key = idx << 48 | c;
        if (key < prev)
            return false;
        p = rvarint_put(rvarint_put(p, idx - (prev >> 48)), c);
        prev = key;
        n += c;
    }
    *pp = p;
    r->n = n;
    r->first = (uint32_t)hist_index_layout(res->hist_sub_bits, res->buckets[0].low_ns);
    r->last = (uint32_t)(prev >> 48);
    return true;
}

/* rtt_pack_sorted's packing of buckets in any order: placed, sorted, then packed at p0. */
static int
rtt_pack_unsorted(struct rmodel *m, const struct journal_result *res, uint8_t *p0, uint8_t **pp,
                  struct rrtt *r)
{
    size_t nb = res->nbuckets;
    if (ARRAY_GROW(&m->sortbuf, &m->sortcap, nb) != 0)
        return NS_ENOMEM;
    for (size_t i = 0; i < nb; i++) {
        uint64_t c = res->buckets[i].count;
        uint64_t idx = hist_index_layout(res->hist_sub_bits, res->buckets[i].low_ns);
        m->sortbuf[i] = idx << 48 | (c > RRTT_COUNT_MAX ? RRTT_COUNT_MAX : c);
    }
    qsort(m->sortbuf, nb, sizeof *m->sortbuf, cmp_u64);
    uint8_t *p = p0;
    uint64_t prev = 0, n = 0;
    for (size_t i = 0; i < nb; i++) {
        uint64_t idx = m->sortbuf[i] >> 48, c = m->sortbuf[i] & RRTT_COUNT_MAX;
        p = rvarint_put(rvarint_put(p, idx - prev), c);
        prev = idx;
        n += c;
    }
    *pp = p;
    r->n = n;
    r->first = (uint32_t)(m->sortbuf[0] >> 48);
    r->last = (uint32_t)(m->sortbuf[nb - 1] >> 48);
    return 0;
}

/* Whether the runs of res ascend without overlapping, as nsperf writes them. */
static bool
rtt_runs_ascend(const struct journal_result *res)
{
    uint64_t end = 0; /* the index after the last run */
    for (size_t i = 0; i < res->nruns; i++) {
        if (res->runs[i].first < end)
            return false;
        end = (uint64_t)res->runs[i].first + res->runs[i].len;
    }
    return true;
}

/* The counts of the runs form, a varint each: 8 at a time while all 8 take one byte (most do:
 * a trial of 20 000 round trips over ~1 200 buckets); *sum gets their sum. */
static uint8_t *
rtt_pack_counts(uint8_t *p, const uint64_t *c, size_t nc, uint64_t *sum)
{
    uint64_t n = 0;
    size_t k = 0;
    while (k < nc) {
        if (nc - k >= 8) {
            uint64_t o = 0, s = 0;
            for (unsigned j = 0; j < 8; j++) {
                o |= c[k + j];
                s += c[k + j];
            }
            if (o < 0x80) {
                for (unsigned j = 0; j < 8; j++)
                    p[j] = (uint8_t)c[k + j];
                p += 8;
                n += s;
                k += 8;
                continue;
            }
        }
        uint64_t v = c[k] > RRTT_COUNT_MAX ? RRTT_COUNT_MAX : c[k];
        p = rvarint_put(p, v);
        n += v;
        k++;
    }
    *sum = n;
    return p;
}

/* The runs form packed as it is read: first each run's head, the step from the last run's last
 * index (from 0 for the first) and its length (1..255, longer runs split) in one byte; then all
 * the counts, empty buckets included, a varint each. A count is one varint, not two, packed and
 * merged in a row. */
static int
rtt_pack_runs(struct rmodel *m, const struct journal_result *res, struct rrtt *r)
{
    size_t nc = res->ncounts, chunks = res->nruns + nc / 255 + 1;
    if (nc > UINT32_MAX / 8 || chunks > UINT32_MAX / 8)
        return NS_ENOMEM;             /* more than a journal line can hold */
    size_t cap = nc * 7 + chunks * 4; /* a count <= 7 bytes, a step <= 3, a length 1 */
    uint8_t *p0 = rmodel_bytes(m, cap), *p = p0;
    if (p0 == NULL)
        return NS_ENOMEM;
    uint64_t last = 0;
    for (size_t i = 0; i < res->nruns; i++) {
        uint64_t idx = res->runs[i].first;
        for (uint32_t left = res->runs[i].len; left > 0;) {
            unsigned len = left > 255 ? 255 : left;
            p = rvarint_put(p, idx - last);
            *p++ = (uint8_t)len;
            last = idx + len - 1;
            idx += len;
            left -= len;
        }
    }
    r->hlen = (uint32_t)(p - p0);
    p = rtt_pack_counts(p, res->counts, nc, &r->n);
    rmodel_bytes_used(m, (size_t)(p - p0));
    r->enc = p0;
    r->len = (uint32_t)(p - p0);
    r->runs = true;
    r->nb = (uint32_t)nc;
    /* the lowest and highest bucket that is not empty: nsperf's runs start and end at one */
    size_t lo = 0, hi = nc;
    while (lo < nc && res->counts[lo] == 0)
        lo++;
    while (hi > lo && res->counts[hi - 1] == 0)
        hi--;
    r->first = r->last = 0;
    for (size_t i = 0, k = 0; i < res->nruns && r->n > 0; k += res->runs[i++].len) {
        if (lo >= k && lo < k + res->runs[i].len)
            r->first = (uint32_t)(res->runs[i].first + (lo - k));
        if (hi - 1 >= k && hi - 1 < k + res->runs[i].len)
            r->last = (uint32_t)(res->runs[i].first + (hi - 1 - k));
    }
    return 0;
}

/* Runs that do not ascend (not nsperf's writing), as the buckets form's pairs. */
static int
rtt_runs_as_buckets(struct rmodel *m, const struct journal_result *res, struct journal_result *out)
{
    if (ARRAY_GROW(&m->runbuf, &m->runcap, res->ncounts) != 0)
        return NS_ENOMEM;
    size_t nb = 0;
    const uint64_t *c = res->counts;
    for (size_t i = 0; i < res->nruns; i++)
        for (uint32_t k = 0; k < res->runs[i].len; k++, c++)
            if (*c != 0)
                m->runbuf[nb++] = (struct journal_bucket){
                    .low_ns = hist_bucket_low((size_t)res->runs[i].first + k), .count = *c};
    *out = *res;
    out->hist_runs = false;
    out->hist_sub_bits = HIST_SUB_BITS;
    out->buckets = m->runbuf;
    out->nbuckets = nb;
    return 0;
}

static int rtt_fill(struct rmodel *m, struct rrtt *r, const struct journal_result *res);

static void
rtt_summary(struct rrtt *r, const struct journal_result *res)
{
    r->min_ns = res->rtt_min_us * 1e3;
    r->max_ns = res->rtt_max_us * 1e3;
    r->mean_ns = res->metric[TESTSPEC_M_RTT_MEAN] * 1e3;
    r->m2 = res->rtt_m2_ns2;
}

static int
rtt_fill_runs(struct rmodel *m, struct rrtt *r, const struct journal_result *res)
{
    if (!rtt_runs_ascend(res)) {
        struct journal_result b;
        int rc = rtt_runs_as_buckets(m, res, &b);
        return rc != 0 ? rc : rtt_fill(m, r, &b);
    }
    int rc = rtt_pack_runs(m, res, r);
    if (rc == 0)
        rtt_summary(r, res);
    return rc;
}

/* The trial's latency distribution, for the kinds that have one. */
static int
rtt_fill(struct rmodel *m, struct rrtt *r, const struct journal_result *res)
{
    if (res->has_rtt && res->has_hist && res->hist_runs && res->nruns > 0)
        return rtt_fill_runs(m, r, res);
    if (!res->has_rtt || !res->has_hist || res->nbuckets == 0)
        return 0; /* no usable histogram: percentiles are left out, the mean still counts */
    size_t nb = res->nbuckets;
    if (nb > UINT32_MAX / 13)
        return NS_ENOMEM;                            /* more than a journal line can hold */
    uint8_t *p0 = rmodel_bytes(m, nb * 13), *p = p0; /* a step takes <= 3 bytes, a count 7 */
    if (p0 == NULL)
        return NS_ENOMEM;
    if (!rtt_pack_sorted(res, &p, r)) {
        int rc = rtt_pack_unsorted(m, res, p0, &p, r);
        if (rc != 0)
            return rc;
    }
    rmodel_bytes_used(m, (size_t)(p - p0));
    r->enc = p0;
    r->len = (uint32_t)(p - p0);
    r->nb = (uint32_t)nb;
    rtt_summary(r, res);
    return 0;
}

double
report_trial_fig(const struct rtrial *t, int i)
{
    double v = NAN;
    if (t->figs != NULL)
        memcpy(&v, t->figs + (size_t)i * sizeof v, sizeof v);
    return v;
}

/* The record's flags, their reasons in one string ("drops: ...; stall: ..."). */
static int
trial_flags(struct rtrial *t, const struct journal_trial *rec)
{
    t->judged = rec->judged;
    t->flags = (uint8_t)rec->flag_mask;
    if (rec->flag_mask == 0)
        return 0;
    struct rbuf b;
    report_buf_init(&b);
    for (int f = 0; f < HOSTFLAG_COUNT; f++)
        if (rec->flag_mask & (1u << f))
            report_buf_printf(&b, "%s%s: %s", b.len > 0 ? "; " : "",
                              hostflag_name((enum hostflag)f), rec->flag_why[f]);
    t->flag_why = b.oom ? NULL : xstrdup(b.data); /* its own size, not the buffer's */
    report_buf_release(&b);
    return t->flag_why != NULL ? 0 : NS_ENOMEM;
}

/* The scenario's figures of a result (in the reports' units), into the model's blocks. */
static int
figs_fill(struct rmodel *m, struct rtrial *t, const struct rscen *sc,
          const struct journal_result *res)
{
    if (sc->nfigs == 0)
        return 0;
    uint8_t *p = rmodel_bytes(m, (size_t)sc->nfigs * sizeof(double));
    if (p == NULL)
        return NS_ENOMEM;
    for (int i = 0; i < sc->nfigs; i++) {
        enum testspec_metric f = sc->figs[i];
        double v = res->has_metric[f] ? res->metric[f] / testspec_metric_divisor(f) : NAN;
        memcpy(p + (size_t)i * sizeof v, &v, sizeof v);
    }
    rmodel_bytes_used(m, (size_t)sc->nfigs * sizeof(double));
    t->figs = p;
    return 0;
}

static int
trial_fill(struct rmodel *m, struct rtrial *t, const struct rscen *sc,
           const struct journal_trial *rec)
{
    enum testspec_kind kind = sc->kind;
    const struct journal_result *res = &rec->result;
    t->ok = rec->status == JOURNAL_OK && res->present;
    t->not_run = rec->status == JOURNAL_NOT_RUN;
    if (!t->ok) {
        t->error = xstrdup(rec->error != NULL ? rec->error : "failed without a reason");
        return t->error ? 0 : NS_ENOMEM;
    }
    if (!journal_headline((int)kind, res, &t->value)) { /* an "ok" record without it is a failure */
        t->ok = false;
        t->error = xstrdup("result has no headline figure");
        return t->error ? 0 : NS_ENOMEM;
    }
    if (trial_flags(t, rec) != 0)
        return NS_ENOMEM;
    t->cpu_local = res->cpu_local_pct;
    t->cpu_remote = res->cpu_remote_pct;
    t->has_cpu = res->has_cpu_local && res->has_cpu_remote;
    t->retrans = res->retransmits;
    t->has_retrans = res->has_retransmits;
    if (res->has_udp) {
        t->lost_pct = res->udp_lost_pct;
        if (!res->has_udp_lost_pct && res->has_udp_lost && res->has_udp_sent && res->udp_sent > 0)
            t->lost_pct = 100.0 * res->udp_lost / res->udp_sent;
        t->jitter_us = res->has_udp_jitter ? res->udp_jitter_us : NAN; /* udp_pps: none */
        t->has_udp = true;
        t->udp_sent = res->has_udp_sent ? res->udp_sent : 0.0;
        t->has_unsent = res->has_udp_unsent;
        t->udp_unsent = res->has_udp_unsent ? res->udp_unsent : 0.0;
    }
    if (figs_fill(m, t, sc, res) != 0)
        return NS_ENOMEM;
    t->has_cpb = res->has_cpu_cpb_local && res->has_cpu_cpb_remote;
    t->cpb_local = res->cpu_cpb_local;
    t->cpb_remote = res->cpu_cpb_remote;
    return testspec_kind_has_rtt(kind) && !m->no_hist ? rtt_fill(m, &t->rtt, res) : 0;
}

/* Keep t (moved in) as trial t.n of its run in p, by journal_supersedes. */
static int
trial_insert(struct rpair *p, struct rtrial *tp, struct err *e)
{
    struct rtrial t = *tp;
    for (size_t i = p->nt; i-- > 0;) { /* a run's records come together: from the end */
        if (p->t[i].n != t.n || p->t[i].run != t.run)
            continue;
        if (journal_supersedes(t.ok, p->t[i].ok)) {
            trial_release(&p->t[i]);
            p->t[i] = t;
        } else {
            trial_release(&t);
        }
        return 0;
    }
    if (ARRAY_GROW(&p->t, &p->capt, p->nt + 1) != 0) {
        trial_release(&t);
        return err_set(e, NS_ENOMEM, "out of memory");
    }
    p->t[p->nt++] = t;
    return 0;
}

/* The host of the run being read that an endpoint names, placed where run.json places it, into
 * *out; or JOURNAL_PASS_OVER saying why not (a host run.json does not name is no data: its
 * pair would be one nobody planned). */
static int
record_host(struct rmodel *m, const struct journal_endpoint *ep, int *out, struct err *e)
{
    int h = *out = host_find(m, ep->host, m->cur_run);
    if (h < 0)
        return err_set(e, JOURNAL_PASS_OVER, "host '%.64s' is not in %s",
                       ep->host != NULL ? ep->host : "", JOURNAL_RUN_FILE);
    const struct rhost *rh = &m->hosts[h];
    if (!str_same_or_absent(rh->region, ep->region) || !str_same_or_absent(rh->zone, ep->zone))
        return err_set(e, JOURNAL_PASS_OVER,
                       "host '%.64s' in zone '%.64s' of region '%.64s', where %s puts it in "
                       "'%.64s' of '%.64s'",
                       rh->key_name, str_or(ep->zone), str_or(ep->region), JOURNAL_RUN_FILE,
                       rh->zone, rh->region);
    return 0;
}

/* Whether v is one of the values of rs's sweep. */
static bool
sweep_value_listed(const struct journal_run_scenario *rs, double v)
{
    for (size_t i = 0; i < rs->nvalues; i++)
        if (rs->values[i] == v)
            return true;
    return false;
}

/* sc's parameter p set to v (a sweepable parameter: a number, of its member's type). */
static void
scenario_value_set(struct journal_scenario *sc, enum testspec_param p, double v)
{
    void *f = journal_scenario_field(sc, p);
    if (testspec_type(p) == TESTSPEC_DURATION)
        *(double *)f = v;
    else
        *(uint64_t *)f = (uint64_t)v;
}

/* Whether scenario rs (of a revision of the run being read) is the one a record ran: NULL, or
 * why not (into why). */
static const char *
scenario_ran(const struct journal_run_scenario *rs, const struct journal_trial *rec, char *why,
             size_t len)
{
    const struct journal_scenario *sc = &rs->sc;
    const char *name = str_or(rec->scenario.name);
    if (rec->scenario.swept != sc->swept || (sc->swept && rec->scenario.sweep != sc->sweep)) {
        snprintf(why, len, "scenario '%.64s' sweeps %s here, %s in %s", name,
                 rec->scenario.swept ? testspec_record_key(rec->scenario.sweep) : "nothing",
                 sc->swept ? testspec_record_key(sc->sweep) : "nothing", JOURNAL_RUN_FILE);
        return why;
    }
    /* a sweep's record ran one of its values: the others of its parameters are compared */
    struct journal_scenario want = *sc;
    if (sc->swept) {
        double v = journal_scenario_value(&rec->scenario, sc->sweep);
        if (!sweep_value_listed(rs, v)) {
            snprintf(why, len, "scenario '%.64s' ran %s %g here, not a value of its sweep in %s",
                     name, testspec_record_key(sc->sweep), v, JOURNAL_RUN_FILE);
            return why;
        }
        scenario_value_set(&want, sc->sweep, v);
    }
    int d = journal_scenario_diff(&want, &rec->scenario);
    uint32_t most = trials_adaptive(&rs->policy) ? rs->policy.max
                    : rs->trials > UINT32_MAX    ? UINT32_MAX
                                                 : (uint32_t)rs->trials;
    if (d < 0)
        snprintf(why, len, "scenario '%.64s' is %s here, %s in %s", name,
                 str_or(rec->scenario.test), str_or(sc->test), JOURNAL_RUN_FILE);
    else if (d < TESTSPEC_PARAM_COUNT)
        snprintf(why, len, "scenario '%.64s' ran %s %g here, %g in %s: not its parameters", name,
                 testspec_record_key((enum testspec_param)d),
                 journal_scenario_value(&rec->scenario, (enum testspec_param)d),
                 journal_scenario_value(&want, (enum testspec_param)d), JOURNAL_RUN_FILE);
    else if (most > 0 && rec->trial > most)
        snprintf(why, len, "trial %u past the plan (%u a host pair in %s)", rec->trial, most,
                 JOURNAL_RUN_FILE);
    else
        return NULL;
    return why;
}

static const struct journal_run_scenario *
scenario_named(const struct journal_run_scenario *v, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(str_or(v[i].sc.name), name) == 0)
            return &v[i];
    return NULL;
}

const char *
report_scenario_label(const char *name, const struct journal_run_revision *rev, char *buf,
                      size_t len)
{
    if (rev == NULL)
        snprintf(buf, len, "%s", str_or(name));
    else
        snprintf(buf, len, "%.200s (revision %u)", str_or(name), rev->revision);
    return buf;
}

/* The scenario of revision rev of the run being read, "NAME (revision K)": added when new,
 * planning nothing more than it ran. */
static int
scen_of_revision(struct rmodel *m, const struct journal_run_revision *rev,
                 const struct journal_run_scenario *rs, struct err *e)
{
    char label[REPORT_SCENARIO_LABEL_MAX];
    report_scenario_label(rs->sc.name, rev, label, sizeof label);
    struct journal_scenario sc = rs->sc;
    sc.name = label;
    bool fresh = true;
    for (size_t i = 0; i < m->nscens && fresh; i++)
        fresh = strcmp(m->scens[i].name, label) != 0;
    int s = scen_get(m, &sc, rs->recorded, (int)m->cur_run, e);
    if (s < 0)
        return s;
    struct rscen *x = &m->scens[s];
    if (fresh) {
        x->revision = rev->revision;
        x->revised_to = m->runs[m->cur_run].run->revision;
    }
    x->runs[m->cur_run].superseded = true;
    return s;
}

int
report_record_scenario(const struct journal_run *run, const struct journal_trial *rec,
                       const struct journal_run_revision **rev,
                       const struct journal_run_scenario **scen, struct err *e)
{
    const char *name = str_or(rec->scenario.name);
    char why[NS_ERR_MSG_MAX], other[NS_ERR_MSG_MAX];
    const struct journal_run_scenario *rs = scenario_named(run->scenarios, run->nscenarios, name);
    *rev = NULL;
    *scen = rs;
    if (rs != NULL && scenario_ran(rs, rec, why, sizeof why) == NULL)
        return 0;
    if (rs == NULL)
        snprintf(why, sizeof why, "scenario '%.64s' is not in %s", name, JOURNAL_RUN_FILE);
    /* the earlier revisions, the record's own first, then the newest first */
    for (size_t k = 0; k <= run->nrevisions; k++) {
        const struct journal_run_revision *v = NULL;
        if (k == 0) {
            for (size_t i = 0; i < run->nrevisions && v == NULL; i++)
                if (run->revisions[i].revision == (rec->revision > 0 ? rec->revision : 1))
                    v = &run->revisions[i];
        } else {
            v = &run->revisions[run->nrevisions - k];
        }
        const struct journal_run_scenario *old =
            v != NULL ? scenario_named(v->scenarios, v->nscenarios, name) : NULL;
        if (old != NULL && scenario_ran(old, rec, other, sizeof other) == NULL) {
            *rev = v;
            *scen = old;
            return 0;
        }
    }
    return err_set(e, JOURNAL_PASS_OVER, "%s", why);
}

/* The scenario a record ran, into *s (report_record_scenario): the run's current one of its
 * name, or "NAME (revision K)" of the earlier revision of the plan that ran it. */
static int
record_scenario(struct rmodel *m, const struct journal_trial *rec, int *s, struct err *e)
{
    const struct journal_run_revision *rev;
    const struct journal_run_scenario *rs;
    int rc = report_record_scenario(m->runs[m->cur_run].run, rec, &rev, &rs, e);
    if (rc != 0)
        return rc;
    *s = rev == NULL ? scen_get(m, &rec->scenario, NULL, -1, e) : scen_of_revision(m, rev, rs, e);
    return *s < 0 ? *s : 0;
}

/* One record into the model: its scenario and hosts, its pair, its trial. The run, pair and
 * trial number make the journal's key (journal_key); hosts are told apart by run and name
 * (host_key_run). What run.json does not plan (a host or scenario it does not name, other
 * parameters, a trial number past its trials) is a journal problem, never data. */
static int
record_add(void *arg, const struct journal_trial *rec, struct err *e)
{
    struct rmodel *m = arg;
    int s = -1, src = -1, dst = -1, rc = record_scenario(m, rec, &s, e);
    if (rc == 0)
        rc = record_host(m, &rec->src, &src, e);
    if (rc == 0)
        rc = record_host(m, &rec->dst, &dst, e);
    if (rc != 0)
        return rc;
    struct rpair *p = pair_get(m, s, rec->family == JOURNAL_IPV6, src, dst);
    if (p == NULL)
        return err_set(e, NS_ENOMEM, "out of memory");
    struct rtrial t;
    memset(&t, 0, sizeof t);
    t.n = rec->trial;
    t.run = (uint32_t)m->cur_run;
    if (trial_fill(m, &t, &m->scens[s], rec) != 0) {
        trial_release(&t);
        return err_set(e, NS_ENOMEM, "out of memory");
    }
    return trial_insert(p, &t, e);
}

/* --- files ------------------------------------------------------------------------------------ */

/* A problem of run ri listed in the reports (line 0: its run.json's), or counted once
 * REPORT_PROBLEMS_MAX of the run are. */
static int
problem_add(struct rmodel *m, size_t ri, unsigned long line, enum journal_skip_kind kind,
            const char *why, struct err *e)
{
    struct rrun *r = &m->runs[ri];
    size_t listed = 0;
    for (size_t i = m->nproblems; i-- > 0 && m->problems[i].run == ri;)
        listed++;
    if (listed >= REPORT_PROBLEMS_MAX) {
        r->problems_more++;
        return 0;
    }
    if (ARRAY_GROW(&m->problems, &m->capproblems, m->nproblems + 1) != 0)
        return err_set(e, NS_ENOMEM, "out of memory");
    struct rproblem *p = &m->problems[m->nproblems];
    *p = (struct rproblem){.run = ri, .line = line, .kind = (int)kind};
    p->why = xstrdup(why);
    if (p->why == NULL)
        return err_set(e, NS_ENOMEM, "out of memory");
    m->nproblems++;
    return 0;
}

/* Whether a live process still writes dir (netsurvey run holds its lock). A lock that cannot
 * be tested is said, and the run taken as it reads. */
static void
run_owner(const struct rmodel_opts *o, struct rrun *r)
{
    if (o->owned_by_caller)
        return;
    struct err e = {0};
    int rc = journal_owner(r->dir, &r->owner_pid, &e);
    r->in_progress = rc == 1;
    if (rc < 0 && o->warn != NULL)
        fprintf(o->warn, "netsurvey: warning: %s\n", e.msg);
}

/* What the run planned of each scenario: run.json's count, else (a run.json from before it was
 * recorded) every host pair of the schedule times the scenario's trials. */
static int
run_plan_one(struct rmodel *m, size_t ri, const struct journal_run_scenario *rs,
             const struct journal_scenario *sc, const json_t *def, uint64_t nvalues, struct err *e)
{
    const struct journal_run *run = m->runs[ri].run;
    int s = scen_get(m, sc, def, (int)ri, e);
    if (s < 0)
        return s;
    struct rscen_run *sr = &m->scens[s].runs[ri];
    sr->named = true;
    sr->trials = rs->trials > UINT32_MAX ? UINT32_MAX : (uint32_t)rs->trials;
    /* a sweep's counts are of all its values, each planned alike */
    sr->planned = rs->planned > 0 ? rs->planned / nvalues : run->pairs * rs->trials;
    sr->policy = trials_adaptive(&rs->policy) ? rs->policy : trials_fixed(sr->trials);
    if (trials_adaptive(&sr->policy)) /* "planned": {"min"} is min x pairs */
        sr->pairs = sr->trials > 0 ? sr->planned / sr->trials : run->pairs;
    if (!trials_adaptive(&m->scens[s].policy))
        m->scens[s].policy = rs->policy;
    return 0;
}

/* A sweep's value k as the scenario of its own the reports read (sc and def with the value in
 * the list's place); def is a new reference. */
static json_t *
sweep_value_def(const struct journal_run_scenario *rs, size_t k, struct journal_scenario *sc)
{
    *sc = rs->sc;
    enum testspec_param p = rs->sc.sweep;
    void *f = journal_scenario_field(sc, p);
    if (testspec_type(p) == TESTSPEC_DURATION)
        *(double *)f = rs->values[k];
    else
        *(uint64_t *)f = (uint64_t)rs->values[k];
    json_t *def = json_deep_copy(rs->recorded);
    if (def != NULL)
        json_object_set_new(def, testspec_record_key(p), testspec_value_json(p, rs->values[k]));
    return def;
}

static int
run_plans(struct rmodel *m, size_t ri, struct err *e)
{
    const struct journal_run *run = m->runs[ri].run;
    for (size_t i = 0; i < run->nscenarios; i++) {
        const struct journal_run_scenario *rs = &run->scenarios[i];
        if (!rs->sc.swept) {
            int rc = run_plan_one(m, ri, rs, &rs->sc, rs->recorded, 1, e);
            if (rc < 0)
                return rc;
            continue;
        }
        for (size_t k = 0; k < rs->nvalues; k++) {
            struct journal_scenario sc;
            json_t *def = sweep_value_def(rs, k, &sc);
            int rc = def != NULL ? run_plan_one(m, ri, rs, &sc, def, rs->nvalues, e)
                                 : err_set(e, NS_ENOMEM, "out of memory");
            json_decref(def);
            if (rc < 0)
                return rc;
        }
    }
    return 0;
}

/* --same-hosts: whether run.json host h names the same host as rh, which another run named;
 * NS_EINVAL saying how they differ when not. */
static int
same_host_check(const struct rmodel *m, const struct rhost *rh, const struct journal_run_host *h,
                const char *zone_id, size_t run, struct err *e)
{
    const char *what = NULL, *was = NULL, *is = NULL;
    if (strcmp(rh->region, str_or(h->region)) != 0)
        what = "region", was = rh->region, is = str_or(h->region);
    else if (strcmp(rh->zone, str_or(h->zone)) != 0)
        what = "zone", was = rh->zone, is = str_or(h->zone);
    else if (strcmp(rh->addr, str_or(h->data_address)) != 0)
        what = "data address", was = rh->addr, is = str_or(h->data_address);
    else if (rh->zone_id != NULL && zone_id != NULL && strcmp(rh->zone_id, zone_id) != 0)
        what = "zone id", was = rh->zone_id, is = zone_id;
    if (what == NULL)
        return 0;
    return err_set(e, NS_EINVAL,
                   "--same-hosts: host '%s' has %s '%s' in %s and '%s' in %s: not the same host "
                   "(merge without --same-hosts, and each run's hosts are its own)",
                   rh->key_name, what, was, m->runs[rh->run].dir, is, m->runs[run].dir);
}

/* A host of run ri's run.json into the model: its index, or NS_E*. */
static int
run_host(struct rmodel *m, size_t ri, const struct journal_run_host *h, struct err *e)
{
    bool added;
    int hi = host_get(m, ri, h->name, h->zone, h->region, h->data_address, h->env, &added);
    if (hi < 0)
        return err_set(e, NS_ENOMEM, "out of memory");
    struct rhost *rh = &m->hosts[hi];
    const char *cloud_id =
        json_string_value(json_object_get(json_object_get(h->env, "cloud"), "zone_id"));
    const char *zone_id = h->zone_id != NULL && *h->zone_id != '\0' ? h->zone_id
                          : cloud_id != NULL && *cloud_id != '\0'   ? cloud_id
                                                                    : NULL;
    if (!added && rh->run != ri) {
        int rc = same_host_check(m, rh, h, zone_id, ri, e);
        if (rc != 0)
            return rc;
    }
    if (rh->zone_id == NULL)
        rh->zone_id = zone_id;
    if (rh->zone_warning == NULL)
        rh->zone_warning = h->zone_warning;
    const char *machine = json_string_value(json_object_get(h->env, "machine"));
    if (rh->arch == NULL)
        rh->arch = h->arch != NULL && *h->arch != '\0'   ? h->arch
                   : machine != NULL && *machine != '\0' ? machine
                                                         : NULL;
    return hi;
}

/* Hosts of several runs that share a name, kept apart (no same_hosts): each is shown with its
 * run, "a1 (run 2)", the run's number in the reports' list of runs. */
static int
hosts_label(struct rmodel *m)
{
    if (m->same_hosts || m->nruns < 2)
        return 0;
    for (size_t i = 0; i < m->nhosts; i++) {
        struct rhost *h = &m->hosts[i];
        bool shared = false;
        for (size_t j = 0; j < m->nhosts && !shared; j++)
            shared = j != i && strcmp(m->hosts[j].key_name, h->key_name) == 0;
        if (!shared)
            continue;
        size_t n = strlen(h->key_name) + 32;
        char *label = malloc(n);
        if (label == NULL)
            return NS_ENOMEM;
        snprintf(label, n, "%s (run %zu)", h->key_name, h->run + 1);
        free(h->name);
        h->name = label;
    }
    return 0;
}

static int
run_load(struct rmodel *m, const struct rmodel_opts *o, const char *dir, struct err *e)
{
    struct journal_run *run = NULL;
    int rc = journal_read_run(dir, &run, e);
    if (rc != 0)
        return rc;
    /* one run given twice (or a copy of its directory) would count each trial twice */
    for (size_t i = 0; run->run_id != NULL && i < m->nruns; i++) {
        if (m->runs[i].run->run_id != NULL && strcmp(m->runs[i].run->run_id, run->run_id) == 0) {
            rc = err_set(e, NS_EINVAL,
                         "%s and %s hold the same run (%s): a run is merged once, or its "
                         "trials would count twice",
                         m->runs[i].dir, dir, run->run_id);
            journal_run_free(run);
            return rc;
        }
    }
    size_t ri = m->nruns++;
    struct rrun *r = &m->runs[ri];
    r->dir = xstrdup(dir);
    r->run = run;
    if (r->dir == NULL)
        return err_set(e, NS_ENOMEM, "out of memory");
    run_owner(o, r);
    r->host_idx = calloc(run->nhosts ? run->nhosts : 1, sizeof *r->host_idx);
    if (r->host_idx == NULL)
        return err_set(e, NS_ENOMEM, "out of memory");
    for (size_t i = 0; i < run->nhosts; i++) {
        int hi = run_host(m, ri, &run->hosts[i], e);
        if (hi < 0)
            return hi;
        r->host_idx[i] = hi;
    }
    /* the hosts of the plan's earlier revisions, for the trials they ran */
    for (size_t k = 0; k < run->nrevisions; k++)
        for (size_t i = 0; i < run->revisions[k].nhosts; i++) {
            int hi = run_host(m, ri, &run->revisions[k].hosts[i], e);
            if (hi < 0)
                return hi;
        }
    /* without its id, no record can be told from another run's: none is taken (each is
     * refused, results_load), and the reports say why */
    if (run->run_id == NULL) {
        int prc = problem_add(m, ri, 0, JOURNAL_SKIP_REFUSED,
                              "no run_id: no record can be told from another run's, so none is "
                              "taken",
                              e);
        if (prc != 0)
            return prc;
    }
    return run_plans(m, ri, e);
}

/* The family (0 ipv4, 1 ipv6) of an address written as one, else -1: a host name's family is
 * the resolved address's, which only the records know. */
static int
literal_family(const char *addr)
{
    unsigned char buf[sizeof(struct in6_addr)];
    char a[INET6_ADDRSTRLEN + 1];
    if (addr == NULL || snprintf(a, sizeof a, "%s", addr) >= (int)sizeof a)
        return -1;
    a[strcspn(a, "%")] = '\0'; /* a scoped address's zone */
    if (inet_pton(AF_INET, a, buf) == 1)
        return 0;
    return inet_pton(AF_INET6, a, buf) == 1 ? 1 : -1;
}

/* One planned pair of run ri for scenario s: the pair it is (of the family its records have,
 * else of its literal addresses' one), marked as planned by the run when the run recorded none
 * of its trials. A pair of names whose family nothing tells stays counted in its scenario
 * alone (scen_unseen). */
static int
plan_pair(struct rmodel *m, size_t ri, int s, const struct journal_pair *pp)
{
    const struct rrun *r = &m->runs[ri];
    const struct journal_run *run = r->run;
    int src = r->host_idx[pp->src], dst = r->host_idx[pp->dst];
    struct rpair *p = pair_find(m, s, 0, src, dst);
    if (p == NULL)
        p = pair_find(m, s, 1, src, dst);
    if (p == NULL) {
        int fa = literal_family(run->hosts[pp->src].data_address);
        int fb = literal_family(run->hosts[pp->dst].data_address);
        if (fa < 0 || fa != fb)
            return 0;
        if ((p = pair_get(m, s, fa, src, dst)) == NULL)
            return NS_ENOMEM;
    }
    for (size_t i = 0; i < p->nt; i++)
        if (p->t[i].run == ri)
            return 0;
    if (p->plan_only == NULL &&
        (p->plan_only = calloc(bitset_words(m->capruns), sizeof *p->plan_only)) == NULL)
        return NS_ENOMEM;
    bitset_set(p->plan_only, ri);
    return 0;
}

/* The pairs each run planned (run.json's "pairs", version 2), for every scenario it names:
 * those of which nothing was recorded join the model, so that a cell or pair not reached is
 * shown as planned and not run. */
static int
runs_planned_pairs(struct rmodel *m, struct err *e)
{
    for (size_t ri = 0; ri < m->nruns; ri++) {
        const struct journal_run *run = m->runs[ri].run;
        for (size_t k = 0; run->has_pairs && k < run->nscenarios; k++) {
            const struct journal_run_scenario *rs = &run->scenarios[k];
            const char *name = rs->sc.name != NULL ? rs->sc.name : "";
            size_t nv = rs->sc.swept ? rs->nvalues : 1;
            for (size_t v = 0; v < nv; v++) {
                int s = scen_find(m, name, rs->sc.swept, rs->sc.sweep,
                                  rs->sc.swept ? rs->values[v] : 0.0);
                for (size_t i = 0; s >= 0 && i < run->npair_list; i++)
                    if (plan_pair(m, ri, s, &run->pair_list[i]) != 0)
                        return err_set(e, NS_ENOMEM, "out of memory");
            }
        }
    }
    return 0;
}

static const char *const problem_kinds[] = {"torn", "unreadable", "refused", "invalid"};

/* A line the reports do not take: an error when the journal refuses the record and the reader
 * was not asked to be lenient; otherwise said, and listed in the reports. */
static int
line_skipped(void *arg, const struct journal_skip *s, struct err *e)
{
    struct rmodel *m = arg;
    if (s->kind == JOURNAL_SKIP_REFUSED && !m->lenient)
        return err_set(e, NS_EPROTO,
                       "%s:%lu: %s (netsurvey report --lenient reads the other lines and lists "
                       "this one in the report)",
                       s->path, s->line, s->why);
    if (m->warn != NULL)
        fprintf(m->warn, "netsurvey: warning: %s:%lu: %s, line ignored\n", s->path, s->line,
                s->why);
    return problem_add(m, m->cur_run, s->line, s->kind, s->why, e);
}

const char *
report_problem_kind_name(int kind)
{
    return kind >= 0 && (size_t)kind < sizeof problem_kinds / sizeof problem_kinds[0]
               ? problem_kinds[kind]
               : "unreadable";
}

static int
results_load(struct rmodel *m, size_t ri, struct err *e)
{
    struct journal_read_stats st;
    const struct rrun *r = &m->runs[ri];
    m->cur_run = ri;
    /* a run.json without run_id takes no record (run_load lists why): every one is refused */
    const char *id = r->run->run_id != NULL ? r->run->run_id : "(none in " JOURNAL_RUN_FILE ")";
    /* without histograms, the buckets are only checked: storing them was most of the reading */
    int rc = m->no_hist
                 ? journal_read_trials_nobuckets(r->dir, id, record_add, line_skipped, m, &st, e)
                 : journal_read_trials(r->dir, id, record_add, line_skipped, m, &st, e);
    if (rc == NS_ENOTFOUND) { /* a run that has not finished a trial yet */
        if (m->warn != NULL)
            fprintf(m->warn, "netsurvey: warning: %s/%s: no trial recorded yet\n", r->dir,
                    JOURNAL_RESULTS_FILE);
        return 0;
    }
    m->torn_lines += st.torn;
    m->skipped_lines += st.bad + st.invalid;
    m->refused_lines += st.refused;
    return rc;
}

static int
cmp_trial(const void *a, const void *b)
{
    const struct rtrial *x = a, *y = b;
    if (x->run != y->run)
        return x->run < y->run ? -1 : 1;
    return x->n < y->n ? -1 : x->n > y->n;
}

/* What a run planned of pair p, into both. */
static void
pair_plan_add(struct rscen_run *sr, struct rpair *p, const struct rplan *pl)
{
    sr->seen += pl->planned;
    sr->seen_pairs++;
    sr->undecided += pl->how == RPLAN_UNDECIDED;
    p->planned += pl->planned;
    p->runs_met += pl->how == RPLAN_MET;
    p->runs_max += pl->how == RPLAN_MAX;
    p->runs_undecided += pl->how == RPLAN_UNDECIDED;
}

void
report_plan_pair(const struct rscen_run *sr, const struct rtrial *t, size_t n, struct rplan *out)
{
    const struct trials_policy *pol = &sr->policy;
    uint32_t maxn = 0;
    for (size_t i = 0; i < n; i++)
        maxn = t[i].n > maxn ? t[i].n : maxn;
    stats_init(&out->ok);
    if (sr->superseded) { /* a revision since replaced planned what it ran, nothing more */
        out->how = RPLAN_FIXED;
        out->planned = n;
        return;
    }
    if (!trials_adaptive(pol)) {
        out->how = RPLAN_FIXED;
        out->planned = sr->trials > maxn ? sr->trials : maxn;
        return;
    }
    /* the runner's figures: ok trials numbered 1..max, added in number order (t is sorted) */
    for (size_t i = 0; i < n; i++)
        if (t[i].ok && t[i].n >= 1 && t[i].n <= pol->max)
            stats_add(&out->ok, t[i].value);
    if (trials_done(pol, &out->ok)) {
        out->how = trials_target_met(pol, &out->ok) ? RPLAN_MET : RPLAN_MAX;
        out->planned = maxn; /* what it ran: numbers are taken from 1 up, each once */
        return;
    }
    /* Undecided: it takes min's remainder (failed trials count toward neither bound), or one
     * more past min; never more than max numbers, and never fewer than the ones it holds. */
    uint64_t nok = out->ok.n, need = nok < pol->min ? pol->min - nok : 1, least = n + need;
    out->how = RPLAN_UNDECIDED;
    out->planned = least < pol->max ? least : pol->max;
    if (out->planned < maxn)
        out->planned = maxn;
}

/* A sorted pair's plan: for each run that recorded it or planned it, what that run planned of
 * it (report_plan_pair); and what each run recorded. */
static void
pair_count(struct rmodel *m, struct rpair *p)
{
    const struct rscen *sc = &m->scens[p->scen];
    p->planned = 0;
    p->nruns = 0;
    p->runs_met = p->runs_max = p->runs_undecided = 0;
    struct rplan pl;
    for (size_t i = 0; i < p->nt;) {
        uint32_t run = p->t[i].run;
        struct rscen_run *sr = &sc->runs[run];
        size_t j = i;
        for (; j < p->nt && p->t[j].run == run; j++) {
            if (p->t[j].ok)
                sr->ok++;
            else if (!p->t[j].not_run)
                sr->failed++;
        }
        report_plan_pair(sr, p->t + i, j - i, &pl);
        pair_plan_add(sr, p, &pl);
        p->nruns++;
        i = j;
    }
    for (size_t r = 0; p->plan_only != NULL && r < m->nruns; r++) {
        if (!bitset_test(p->plan_only, r))
            continue;
        report_plan_pair(&sc->runs[r], NULL, 0, &pl);
        pair_plan_add(&sc->runs[r], p, &pl);
    }
}

/* Each run's trials over its scenarios: planned, ok, failed. */
static void
runs_count(struct rmodel *m)
{
    for (size_t s = 0; s < m->nscens; s++) {
        for (size_t r = 0; r < m->nruns; r++) {
            const struct rscen_run *sr = &m->scens[s].runs[r];
            m->runs[r].planned += rscen_run_planned(sr);
            m->runs[r].undecided += rscen_run_undecided(sr);
            m->runs[r].ok += sr->ok;
            m->runs[r].failed += sr->failed;
        }
    }
}

static int
cmp_zone(const void *a, const void *b)
{
    const struct rzone *x = a, *y = b;
    int c = report_natcmp(x->region, y->region);
    return c != 0 ? c : report_natcmp(x->zone, y->zone);
}

static int
cmp_str(const void *a, const void *b)
{
    return report_natcmp(*(char *const *)a, *(char *const *)b);
}

/* s into p with a backslash before each '/' and backslash (room: twice its length); the end. A
 * label "region/zone" is then one zone's only: region r zone a/b is "r/a\/b", region r/a zone
 * b "r\/a/b" (both were "r/a/b", and a pair between them landed on the diagonal). */
static char *
label_part(char *p, const char *s)
{
    for (; *s != '\0'; s++) {
        if (*s == '/' || *s == '\\')
            *p++ = '\\';
        *p++ = *s;
    }
    return p;
}

/* Zones and regions from the hosts, in natural order; labels carry the region when there are
 * several ("westus3/1"; a region whose hosts have no zone: "japanwest"). */
static int
zones_build(struct rmodel *m)
{
    m->zones = calloc(m->nhosts ? m->nhosts : 1, sizeof *m->zones);
    m->regions = calloc(m->nhosts ? m->nhosts : 1, sizeof *m->regions);
    if (m->zones == NULL || m->regions == NULL)
        return NS_ENOMEM;
    for (size_t i = 0; i < m->nhosts; i++) {
        const struct rhost *h = &m->hosts[i];
        size_t z = 0;
        while (z < m->nzones &&
               (strcmp(m->zones[z].region, h->region) || strcmp(m->zones[z].zone, h->zone)))
            z++;
        if (z == m->nzones) {
            m->zones[z].region = h->region;
            m->zones[z].zone = h->zone;
            m->nzones++;
        }
        size_t r = 0;
        while (r < m->nregions && strcmp(m->regions[r], h->region))
            r++;
        if (r == m->nregions)
            m->regions[m->nregions++] = h->region;
    }
    if (m->nzones > 1)
        qsort(m->zones, m->nzones, sizeof *m->zones, cmp_zone);
    if (m->nregions > 1)
        qsort(m->regions, m->nregions, sizeof *m->regions, cmp_str);
    for (size_t z = 0; z < m->nzones; z++) {
        struct rzone *zn = &m->zones[z];
        size_t n = 2 * (strlen(zn->region) + strlen(zn->zone)) + 2;
        zn->label = malloc(n);
        if (zn->label == NULL)
            return NS_ENOMEM;
        if (m->nregions > 1) { /* "region/zone", a '/' or '\' of either escaped */
            char *p = label_part(zn->label, zn->region);
            if (zn->zone[0] != '\0') { /* else a region without zones (Azure's Japan West) */
                *p++ = '/';
                p = label_part(p, zn->zone);
            }
            *p = '\0';
        } else {
            snprintf(zn->label, n, "%s", zn->zone);
        }
        for (size_t r = 0; r < m->nregions; r++)
            if (strcmp(m->regions[r], zn->region) == 0)
                zn->region_idx = (int)r;
    }
    for (size_t i = 0; i < m->nhosts; i++)
        for (size_t z = 0; z < m->nzones; z++)
            if (!strcmp(m->zones[z].region, m->hosts[i].region) &&
                !strcmp(m->zones[z].zone, m->hosts[i].zone))
                m->hosts[i].zone_idx = (int)z;
    return 0;
}

/* --by zone_id: every host's zone becomes its physical zone; a host without one is named. */
static int
zones_by_id(struct rmodel *m, struct err *e)
{
    char names[400] = "";
    size_t n = 0, used = 0;
    for (size_t i = 0; i < m->nhosts; i++) {
        if (m->hosts[i].zone_id != NULL)
            continue;
        if (used + 1 < sizeof names)
            used += (size_t)snprintf(names + used, sizeof names - used, "%s'%s'", n ? ", " : "",
                                     m->hosts[i].name);
        n++;
    }
    if (n > 0)
        return err_set(e, NS_EINVAL,
                       "--by zone_id: no zone id for host%s %s (the plan gives no zone_id and the "
                       "cloud metadata none: an Azure VM's IMDS has no physical zone, give it "
                       "zone_id in the plan)",
                       n == 1 ? "" : "s", names);
    for (size_t i = 0; i < m->nhosts; i++) {
        char *id = xstrdup(m->hosts[i].zone_id);
        if (id == NULL)
            return err_set(e, NS_ENOMEM, "out of memory");
        free(m->hosts[i].zone);
        m->hosts[i].zone = id;
    }
    return 0;
}

int
report_model_load_with(const char *const *dirs, int ndirs, const struct rmodel_opts *o,
                       struct rmodel **out, struct err *e)
{
    struct rmodel *m = calloc(1, sizeof *m);
    if (m == NULL || ndirs <= 0 || (m->runs = calloc((size_t)ndirs, sizeof *m->runs)) == NULL) {
        free(m);
        return err_set(e, ndirs <= 0 ? NS_EINVAL : NS_ENOMEM,
                       ndirs <= 0 ? "no run directory" : "out of memory");
    }
    m->capruns = (size_t)ndirs;
    m->warn = o->warn;
    m->lenient = o->lenient;
    m->no_hist = o->no_hist;
    m->by_zone_id = o->by_zone_id;
    m->same_hosts = o->same_hosts;
    int rc = 0;
    for (int i = 0; rc == 0 && i < ndirs; i++)
        rc = run_load(m, o, dirs[i], e);
    for (size_t i = 0; rc == 0 && i < m->nruns; i++)
        rc = results_load(m, i, e);
    if (rc == 0)
        rc = runs_planned_pairs(m, e);
    if (rc == 0 && hosts_label(m) != 0)
        rc = err_set(e, NS_ENOMEM, "out of memory");
    if (rc == 0 && o->by_zone_id)
        rc = zones_by_id(m, e);
    if (rc == 0 && zones_build(m) != 0)
        rc = err_set(e, NS_ENOMEM, "out of memory");
    for (size_t i = 0; rc == 0 && i < m->npairs; i++) {
        if (m->pairs[i].nt > 1)
            qsort(m->pairs[i].t, m->pairs[i].nt, sizeof *m->pairs[i].t, cmp_trial);
        pair_count(m, &m->pairs[i]);
    }
    if (rc == 0)
        runs_count(m);
    if (rc != 0) {
        report_model_free(m);
        return rc;
    }
    *out = m;
    return 0;
}

int
report_model_load(const char *const *dirs, int ndirs, FILE *warn, struct rmodel **out,
                  struct err *e)
{
    return report_model_load_with(dirs, ndirs, &(struct rmodel_opts){.warn = warn}, out, e);
}

void
report_model_free(struct rmodel *m)
{
    if (m == NULL)
        return;
    for (size_t i = 0; i < m->npairs; i++) {
        for (size_t j = 0; j < m->pairs[i].nt; j++)
            trial_release(&m->pairs[i].t[j]);
        free(m->pairs[i].t);
        free(m->pairs[i].plan_only);
    }
    free(m->pairs);
    free(m->pidx);
    free(m->hidx);
    while (m->blocks != NULL) {
        struct rblock *next = m->blocks->next;
        munmap(m->blocks, sizeof *m->blocks + m->blocks->cap);
        m->blocks = next;
    }
    free(m->sortbuf);
    free(m->runbuf);
    for (size_t i = 0; i < m->nhosts; i++) {
        free(m->hosts[i].name);
        free(m->hosts[i].key_name);
        free(m->hosts[i].zone);
        free(m->hosts[i].region);
        free(m->hosts[i].addr);
    }
    free(m->hosts);
    for (size_t i = 0; i < m->nzones; i++)
        free(m->zones[i].label);
    free(m->zones);
    free(m->regions);
    for (size_t i = 0; i < m->nscens; i++) {
        free(m->scens[i].name);
        free(m->scens[i].test);
        free(m->scens[i].runs);
        json_decref(m->scens[i].def);
    }
    free(m->scens);
    for (size_t i = 0; i < m->nproblems; i++)
        free(m->problems[i].why);
    free(m->problems);
    for (size_t i = 0; i < m->nruns; i++) {
        free(m->runs[i].dir);
        free(m->runs[i].host_idx);
        journal_run_free(m->runs[i].run);
    }
    free(m->runs);
    free(m);
}
