/* journal.c - load run directories (JOURNAL.md) into the report model.
 *
 * Each results.jsonl line is parsed, reduced at once to the figures the reports use (headline
 * value, CPU, retransmits, UDP loss, the RTT histogram's sparse buckets) and dropped, so memory
 * follows the number of trials, not the journal's size. A trial (scenario, family, src, dst,
 * number) seen twice keeps its last ok record, else its last failed one (a resumed run). */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "common/errors.h"
#include "common/hist.h"
#include "report/jscan.h"
#include "report/reportint.h"

#define RUN_JSON_MAX (64u << 20)

static const struct {
    const char *name;
    enum rkind kind;
} rkinds[] = {{"tcp_stream", RK_TCP_STREAM},
              {"udp_stream", RK_UDP_STREAM},
              {"tcp_rr", RK_TCP_RR},
              {"udp_rr", RK_UDP_RR},
              {"tcp_crr", RK_TCP_CRR}};

static enum rkind
rkind_from(const char *s)
{
    for (size_t i = 0; i < sizeof rkinds / sizeof rkinds[0]; i++)
        if (s != NULL && strcmp(s, rkinds[i].name) == 0)
            return rkinds[i].kind;
    return RK_UNKNOWN;
}

const char *
rkind_unit(enum rkind k)
{
    switch (k) {
    case RK_TCP_STREAM:
    case RK_UDP_STREAM:
        return "Mbit/s";
    case RK_TCP_CRR:
        return "conn/s";
    default:
        return "us";
    }
}

const char *
rkind_metric(enum rkind k)
{
    switch (k) {
    case RK_TCP_STREAM:
    case RK_UDP_STREAM:
        return "throughput";
    case RK_TCP_CRR:
        return "connections/s";
    default:
        return "mean RTT";
    }
}

bool
rkind_lower_is_better(enum rkind k)
{
    return k == RK_TCP_RR || k == RK_UDP_RR || k == RK_UNKNOWN;
}

bool
rkind_has_rtt(enum rkind k)
{
    return k == RK_TCP_RR || k == RK_UDP_RR || k == RK_TCP_CRR;
}

const char *
rfamily_name(int family)
{
    return family == 1 ? "ipv6" : "ipv4";
}

void
rrtt_merge_into(struct hist *h, const struct rrtt *r)
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
    double na = (double)h->count, nb = (double)part.count, n = na + nb;
    double delta = part.mean - h->mean;
    h->mean += delta * nb / n;
    h->m2 += part.m2 + delta * delta * na * nb / n;
    h->count += part.count;
    for (uint32_t i = 0; i < r->nb; i++)
        h->buckets[RBUCKET_IDX(r->b[i])] += RBUCKET_COUNT(r->b[i]);
}

/* --- small helpers -------------------------------------------------------------------------- */

static char *
xstrdup(const char *s)
{
    return strdup(s != NULL ? s : "");
}

static const char *
jstr(const json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    return s != NULL ? s : "";
}

static double
jnum(const json_t *o, const char *key, bool *has)
{
    const json_t *v = json_object_get(o, key);
    if (has != NULL)
        *has = json_is_number(v);
    return json_is_number(v) ? json_number_value(v) : 0.0;
}

/* "zone 2" < "zone 10": digit runs compare as numbers. */
static int
natcmp(const char *a, const char *b)
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

static int
host_find(struct rmodel *m, const char *name, const char *region)
{
    for (size_t i = 0; i < m->nhosts; i++)
        if (strcmp(m->hosts[i].name, name) == 0 && strcmp(m->hosts[i].region, region) == 0)
            return (int)i;
    return -1;
}

/* The host of a run.json entry or a trial's src/dst object ("name" or "host"). */
static int host_get_str(struct rmodel *m, const char *name, const char *zone, const char *region,
                        const char *addr, json_t *env);

static int
host_get(struct rmodel *m, const json_t *o, json_t *env)
{
    const char *name = json_object_get(o, "host") ? jstr(o, "host") : jstr(o, "name");
    return host_get_str(m, name, jstr(o, "zone"), jstr(o, "region"), jstr(o, "data_address"), env);
}

static int
host_get_str(struct rmodel *m, const char *name, const char *zone, const char *region,
             const char *addr, json_t *env)
{
    if (zone == NULL)
        zone = "";
    if (region == NULL)
        region = "";
    if (addr == NULL)
        addr = "";
    int i = host_find(m, name, region);
    if (i >= 0) {
        if (m->hosts[i].env == NULL)
            m->hosts[i].env = env;
        return i;
    }
    if (m->nhosts == m->caphosts) {
        size_t cap = m->caphosts ? m->caphosts * 2 : 64;
        struct rhost *p = realloc(m->hosts, cap * sizeof *p);
        if (p == NULL)
            return NS_ENOMEM;
        m->hosts = p;
        m->caphosts = cap;
    }
    struct rhost *h = &m->hosts[m->nhosts];
    h->name = xstrdup(name);
    h->zone = xstrdup(zone);
    h->region = xstrdup(region);
    h->addr = xstrdup(addr);
    h->env = env;
    h->zone_idx = -1;
    if (!h->name || !h->zone || !h->region || !h->addr)
        return NS_ENOMEM;
    return (int)m->nhosts++;
}

static int
scen_get(struct rmodel *m, const json_t *def, struct err *e)
{
    const char *name = jstr(def, "name");
    for (size_t i = 0; i < m->nscens; i++) {
        if (strcmp(m->scens[i].name, name) != 0)
            continue;
        if (strcmp(m->scens[i].test, jstr(def, "test")) != 0)
            return err_set(e, NS_EPARSE, "scenario '%s' is %s in one run and %s in another", name,
                           m->scens[i].test, jstr(def, "test"));
        return (int)i;
    }
    if (m->nscens == m->capscens) {
        size_t cap = m->capscens ? m->capscens * 2 : 8;
        struct rscen *p = realloc(m->scens, cap * sizeof *p);
        if (p == NULL)
            return err_set(e, NS_ENOMEM, "out of memory");
        m->scens = p;
        m->capscens = cap;
    }
    struct rscen *s = &m->scens[m->nscens];
    s->name = xstrdup(name);
    s->test = xstrdup(jstr(def, "test"));
    s->kind = rkind_from(s->test);
    s->reverse = json_is_true(json_object_get(def, "reverse"));
    s->def = json_deep_copy(def);
    if (!s->name || !s->test || !s->def)
        return err_set(e, NS_ENOMEM, "out of memory");
    json_object_del(s->def, "trials");
    return (int)m->nscens++;
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
    if (m->npairs == m->cappairs) {
        size_t cap = m->cappairs ? m->cappairs * 2 : 256;
        struct rpair *p = realloc(m->pairs, cap * sizeof *p);
        if (p == NULL)
            return NULL;
        m->pairs = p;
        m->cappairs = cap;
    }
    struct rpair *p = &m->pairs[m->npairs];
    memset(p, 0, sizeof *p);
    p->scen = scen;
    p->family = fam;
    p->src = src;
    p->dst = dst;
    m->pidx[j] = (uint32_t)m->npairs++;
    return p;
}

/* Bucket arrays come from big blocks (a 100 000-trial journal holds ~50 000 of them; one
 * malloc each would cost more than reading them), freed with the model. */
#define RBLOCK_BUCKETS (1u << 20) /* 8 MiB, mapped and marked for huge pages (fewer faults) */

struct rblock {
    struct rblock *next;
    size_t used, cap;
    rbucket_t b[];
};

static rbucket_t *
rmodel_buckets(struct rmodel *m, size_t n)
{
    struct rblock *blk = m->blocks;
    if (blk == NULL || blk->used + n > blk->cap) {
        size_t cap = n > RBLOCK_BUCKETS ? n : RBLOCK_BUCKETS;
        size_t bytes = sizeof *blk + cap * sizeof(rbucket_t);
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
    rbucket_t *b = blk->b + blk->used;
    blk->used += n;
    return b;
}

/* --- one trial record ----------------------------------------------------------------------- */

static void
trial_release(struct rtrial *t)
{
    free(t->error);
    memset(t, 0, sizeof *t);
}

static int
rtt_load(struct rmodel *m, struct rrtt *r, const json_t *rtt)
{
    const json_t *buckets = json_object_get(json_object_get(rtt, "hist"), "buckets");
    json_int_t sub_bits =
        json_integer_value(json_object_get(json_object_get(rtt, "hist"), "sub_bits"));
    if (!json_is_array(buckets) || sub_bits != HIST_SUB_BITS)
        return 0; /* no usable histogram: percentiles are left out, the mean still counts */
    size_t nb = json_array_size(buckets);
    r->b = rmodel_buckets(m, nb ? nb : 1);
    if (r->b == NULL)
        return NS_ENOMEM;
    size_t i;
    json_t *b;
    json_array_foreach(buckets, i, b)
    {
        json_int_t low = json_integer_value(json_array_get(b, 0));
        json_int_t cnt = json_integer_value(json_array_get(b, 1));
        if (low < 0 || cnt <= 0)
            continue;
        r->b[r->nb] = RBUCKET(hist_index((uint64_t)low), (uint64_t)cnt);
        r->n += RBUCKET_COUNT(r->b[r->nb]);
        r->nb++;
    }
    if (r->n > 0) {
        r->min_ns = jnum(rtt, "min", NULL) * 1e3;
        r->max_ns = jnum(rtt, "max", NULL) * 1e3;
        r->mean_ns = jnum(rtt, "mean", NULL) * 1e3;
        r->m2 = jnum(rtt, "m2_ns2", NULL);
    }
    return 0;
}

static int
trial_fill(struct rmodel *m, struct rtrial *t, enum rkind kind, const json_t *rec)
{
    const json_t *res = json_object_get(rec, "result");
    t->ok = strcmp(jstr(rec, "status"), "ok") == 0 && json_is_object(res);
    if (!t->ok) {
        const char *why = json_string_value(json_object_get(rec, "error"));
        t->error = xstrdup(why != NULL ? why : "failed without a reason");
        return t->error ? 0 : NS_ENOMEM;
    }
    bool has = false;
    const json_t *rtt = json_object_get(res, "rtt_us");
    switch (kind) {
    case RK_TCP_STREAM:
    case RK_UDP_STREAM:
        t->value = jnum(res, "throughput_bps", &has) / 1e6;
        break;
    case RK_TCP_CRR:
        t->value = jnum(res, "connections_per_s", &has);
        break;
    default:
        t->value = jnum(rtt, "mean", &has);
        break;
    }
    if (!has) { /* an "ok" record without its figure is a failure the reader must see */
        t->ok = false;
        t->error = xstrdup("result has no headline figure");
        return t->error ? 0 : NS_ENOMEM;
    }
    const json_t *cpu = json_object_get(res, "cpu");
    bool h1, h2;
    t->cpu_local = jnum(cpu, "local_pct", &h1);
    t->cpu_remote = jnum(cpu, "remote_pct", &h2);
    t->has_cpu = h1 && h2;
    t->retrans = jnum(res, "retransmits", &t->has_retrans);
    const json_t *udp = json_object_get(res, "udp");
    if (json_is_object(udp)) {
        bool hl, hs;
        double lost = jnum(udp, "lost", &hl), sent = jnum(udp, "sent", &hs);
        t->lost_pct = jnum(udp, "lost_pct", &has);
        if (!has && hl && hs && sent > 0)
            t->lost_pct = 100.0 * lost / sent;
        t->jitter_us = jnum(udp, "jitter_us", NULL);
        t->has_udp = true;
    }
    if (rkind_has_rtt(kind) && json_is_object(rtt))
        return rtt_load(m, &t->rtt, rtt);
    return 0;
}

static int trial_insert(struct rpair *p, struct rtrial *tp, struct err *e);

static int
record_add(struct rmodel *m, const json_t *rec, struct err *e)
{
    const json_t *sdef = json_object_get(rec, "scenario");
    int s = scen_get(m, sdef, e);
    if (s < 0)
        return s;
    int src = host_get(m, json_object_get(rec, "src"), NULL);
    int dst = host_get(m, json_object_get(rec, "dst"), NULL);
    if (src < 0 || dst < 0)
        return err_set(e, NS_ENOMEM, "out of memory");
    int fam = strcmp(jstr(rec, "family"), "ipv6") == 0 ? 1 : 0;
    struct rpair *p = pair_get(m, s, fam, src, dst);
    if (p == NULL)
        return err_set(e, NS_ENOMEM, "out of memory");
    json_int_t n = json_integer_value(json_object_get(rec, "trial"));
    struct rtrial t;
    memset(&t, 0, sizeof t);
    t.n = n > 0 && n < UINT32_MAX ? (uint32_t)n : 0;
    if (trial_fill(m, &t, m->scens[s].kind, rec) != 0) {
        trial_release(&t);
        return err_set(e, NS_ENOMEM, "out of memory");
    }
    return trial_insert(p, &t, e);
}

/* Keep t (moved in) as trial t.n of p: the last ok record wins, else the last failed one. */
static int
trial_insert(struct rpair *p, struct rtrial *tp, struct err *e)
{
    struct rtrial t = *tp;
    for (size_t i = 0; i < p->nt; i++) {
        if (p->t[i].n != t.n)
            continue;
        if (t.ok || !p->t[i].ok) {
            trial_release(&p->t[i]);
            p->t[i] = t;
        } else {
            trial_release(&t);
        }
        return 0;
    }
    if (p->nt == p->capt) {
        size_t cap = p->capt ? p->capt * 2 : 4;
        struct rtrial *q = realloc(p->t, cap * sizeof *q);
        if (q == NULL) {
            trial_release(&t);
            return err_set(e, NS_ENOMEM, "out of memory");
        }
        p->t = q;
        p->capt = cap;
    }
    p->t[p->nt++] = t;
    return 0;
}

/* The fast path: a record read by jscan whose scenario is known. Returns 1 when added, 0 when
 * the slow path must take the line, or a negative NS_E*. */
static int
record_add_fast(struct rmodel *m, const struct jscan_rec *r, struct err *e)
{
    if (r->schema.s == NULL || strcmp(r->schema.s, "netsurvey.trial/1") != 0 ||
        r->scen_name.s == NULL || r->scen_test.s == NULL || r->src.host.s == NULL ||
        r->dst.host.s == NULL)
        return 0;
    int s = -1;
    for (size_t i = 0; i < m->nscens; i++)
        if (strcmp(m->scens[i].name, r->scen_name.s) == 0 &&
            strcmp(m->scens[i].test, r->scen_test.s) == 0)
            s = (int)i;
    if (s < 0 || (r->has_rtt && r->has_buckets && r->sub_bits != HIST_SUB_BITS))
        return 0;
    int src = host_get_str(m, r->src.host.s, r->src.zone.s, r->src.region.s, r->src.addr.s, NULL);
    int dst = host_get_str(m, r->dst.host.s, r->dst.zone.s, r->dst.region.s, r->dst.addr.s, NULL);
    if (src < 0 || dst < 0)
        return err_set(e, NS_ENOMEM, "out of memory");
    int fam = r->family.s != NULL && strcmp(r->family.s, "ipv6") == 0 ? 1 : 0;
    struct rpair *p = pair_get(m, s, fam, src, dst);
    if (p == NULL)
        return err_set(e, NS_ENOMEM, "out of memory");
    struct rtrial t;
    memset(&t, 0, sizeof t);
    t.n = r->trial;
    enum rkind kind = m->scens[s].kind;
    t.ok = r->status.s != NULL && strcmp(r->status.s, "ok") == 0 && r->has_result;
    bool has = false;
    if (t.ok) {
        switch (kind) {
        case RK_TCP_STREAM:
        case RK_UDP_STREAM:
            t.value = r->throughput_bps / 1e6;
            has = r->has_throughput;
            break;
        case RK_TCP_CRR:
            t.value = r->connections_per_s;
            has = r->has_connections;
            break;
        default:
            t.value = r->rtt_mean;
            has = r->has_rtt_mean;
            break;
        }
    }
    if (!t.ok || !has) {
        const char *why = !t.ok ? (r->error.s ? r->error.s : "failed without a reason")
                                : "result has no headline figure";
        t.ok = false;
        t.error = strdup(why);
        if (t.error == NULL)
            return err_set(e, NS_ENOMEM, "out of memory");
        return trial_insert(p, &t, e) == 0 ? 1 : NS_ENOMEM;
    }
    t.has_cpu = r->has_cpu_local && r->has_cpu_remote;
    t.cpu_local = r->cpu_local;
    t.cpu_remote = r->cpu_remote;
    t.has_retrans = r->has_retransmits;
    t.retrans = r->retransmits;
    if (r->has_udp) {
        t.has_udp = true;
        t.lost_pct = r->udp_lost_pct;
        if (!r->has_udp_lost_pct && r->has_udp_lost && r->has_udp_sent && r->udp_sent > 0)
            t.lost_pct = 100.0 * r->udp_lost / r->udp_sent;
        t.jitter_us = r->udp_jitter;
    }
    if (rkind_has_rtt(kind) && r->has_buckets && r->nb > 0) {
        t.rtt.b = rmodel_buckets(m, r->nb);
        if (t.rtt.b == NULL)
            return err_set(e, NS_ENOMEM, "out of memory");
        for (size_t i = 0; i < r->nb; i++) {
            t.rtt.b[i] = RBUCKET(r->b[i].idx, r->b[i].count);
            t.rtt.n += RBUCKET_COUNT(t.rtt.b[i]);
        }
        t.rtt.nb = (uint32_t)r->nb;
        t.rtt.min_ns = r->rtt_min * 1e3;
        t.rtt.max_ns = r->rtt_max * 1e3;
        t.rtt.mean_ns = r->rtt_mean * 1e3;
        t.rtt.m2 = r->rtt_m2;
    }
    return trial_insert(p, &t, e) == 0 ? 1 : NS_ENOMEM;
}

/* --- files ------------------------------------------------------------------------------------ */

static int
run_load(struct rmodel *m, const char *dir, struct err *e)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/run.json", dir);
    json_error_t je;
    json_t *run = json_load_file(path, 0, &je);
    if (run == NULL && je.line < 1)
        return err_set(e, NS_ENOTFOUND, "%s", je.text);
    if (run == NULL)
        return err_set(e, NS_EPARSE, "%s:%d:%d: %s", path, je.line, je.column, je.text);
    struct rrun *r = &m->runs[m->nruns++];
    r->dir = xstrdup(dir);
    r->run = run;
    if (r->dir == NULL)
        return err_set(e, NS_ENOMEM, "out of memory");
    size_t i;
    json_t *h;
    json_array_foreach(json_object_get(run, "hosts"), i, h)
    {
        if (host_get(m, h, json_object_get(h, "env")) < 0)
            return err_set(e, NS_ENOMEM, "out of memory");
    }
    json_array_foreach(json_object_get(run, "scenarios"), i, h)
    {
        int rc = scen_get(m, h, e);
        if (rc < 0)
            return rc;
    }
    return 0;
}

static int
results_load(struct rmodel *m, const char *dir, struct err *e)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/results.jsonl", dir);
    FILE *f = fopen(path, "r");
    if (f == NULL && errno == ENOENT) { /* a run that has not finished a trial yet */
        fprintf(stderr, "netsurvey: warning: %s: no trial recorded yet\n", path);
        return 0;
    }
    if (f == NULL)
        return err_sys(e, NS_EIO, errno, "cannot open %s", path);
    setvbuf(f, NULL, _IOFBF, 1u << 20); /* 4 KiB reads of a 200 MB journal cost 0.1 s of system */
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    unsigned long lineno = 0;
    int rc = 0;
    /* NETSURVEY_JOURNAL_SLOW=1 reads every line with jansson: the tests compare both readers */
    const char *slow_env = getenv("NETSURVEY_JOURNAL_SLOW");
    bool slow = slow_env != NULL && strcmp(slow_env, "1") == 0;
    struct jscan_rec *fast = calloc(1, sizeof *fast);
    if (fast == NULL) {
        fclose(f);
        return err_set(e, NS_ENOMEM, "out of memory");
    }
    while (rc == 0 && (len = getline(&line, &cap, f)) > 0) {
        lineno++;
        bool complete = line[len - 1] == '\n';
        if (!slow && complete && jscan_trial(line, (size_t)len, fast)) {
            rc = record_add_fast(m, fast, e);
            if (rc != 0) {
                rc = rc > 0 ? 0 : rc;
                continue;
            }
        }
        json_error_t je;
        json_t *rec = json_loadb(line, (size_t)len, 0, &je);
        if (rec == NULL || !complete || strcmp(jstr(rec, "schema"), "netsurvey.trial/1") != 0) {
            if (!complete)
                m->torn_lines++;
            else
                m->skipped_lines++;
            fprintf(stderr, "netsurvey: warning: %s:%lu: %s, line ignored\n", path, lineno,
                    !complete     ? "torn last line"
                    : rec == NULL ? je.text
                                  : "not a trial record");
            json_decref(rec);
            continue;
        }
        rc = record_add(m, rec, e);
        json_decref(rec);
    }
    jscan_rec_release(fast);
    free(fast);
    free(line);
    fclose(f);
    return rc;
}

static int
cmp_trial(const void *a, const void *b)
{
    const struct rtrial *x = a, *y = b;
    return x->n < y->n ? -1 : x->n > y->n;
}

static int
cmp_zone(const void *a, const void *b)
{
    const struct rzone *x = a, *y = b;
    int c = natcmp(x->region, y->region);
    return c != 0 ? c : natcmp(x->zone, y->zone);
}

static int
cmp_str(const void *a, const void *b)
{
    return natcmp(*(char *const *)a, *(char *const *)b);
}

/* Zones and regions from the hosts, in natural order; labels carry the region when there are
 * several ("westus3/1"). */
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
        size_t n = strlen(zn->region) + strlen(zn->zone) + 2;
        zn->label = malloc(n);
        if (zn->label == NULL)
            return NS_ENOMEM;
        if (m->nregions > 1)
            snprintf(zn->label, n, "%s/%s", zn->region, zn->zone);
        else
            snprintf(zn->label, n, "%s", zn->zone);
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

int
rmodel_load(const char *const *dirs, int ndirs, struct rmodel **out, struct err *e)
{
    struct rmodel *m = calloc(1, sizeof *m);
    if (m == NULL || ndirs <= 0 || (m->runs = calloc((size_t)ndirs, sizeof *m->runs)) == NULL) {
        free(m);
        return err_set(e, ndirs <= 0 ? NS_EINVAL : NS_ENOMEM,
                       ndirs <= 0 ? "no run directory" : "out of memory");
    }
    int rc = 0;
    for (int i = 0; rc == 0 && i < ndirs; i++)
        rc = run_load(m, dirs[i], e);
    for (int i = 0; rc == 0 && i < ndirs; i++)
        rc = results_load(m, dirs[i], e);
    if (rc == 0 && zones_build(m) != 0)
        rc = err_set(e, NS_ENOMEM, "out of memory");
    for (size_t i = 0; rc == 0 && i < m->npairs; i++)
        if (m->pairs[i].nt > 1)
            qsort(m->pairs[i].t, m->pairs[i].nt, sizeof *m->pairs[i].t, cmp_trial);
    if (rc != 0) {
        rmodel_free(m);
        return rc;
    }
    *out = m;
    return 0;
}

void
rmodel_free(struct rmodel *m)
{
    if (m == NULL)
        return;
    for (size_t i = 0; i < m->npairs; i++) {
        for (size_t j = 0; j < m->pairs[i].nt; j++)
            trial_release(&m->pairs[i].t[j]);
        free(m->pairs[i].t);
    }
    free(m->pairs);
    free(m->pidx);
    while (m->blocks != NULL) {
        struct rblock *next = m->blocks->next;
        munmap(m->blocks, sizeof *m->blocks + m->blocks->cap * sizeof(rbucket_t));
        m->blocks = next;
    }
    for (size_t i = 0; i < m->nhosts; i++) {
        free(m->hosts[i].name);
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
        json_decref(m->scens[i].def);
    }
    free(m->scens);
    for (size_t i = 0; i < m->nruns; i++) {
        free(m->runs[i].dir);
        json_decref(m->runs[i].run);
    }
    free(m->runs);
    free(m);
}
