/* schedule.c - rounds of disjoint host pairs (see schedule.h for the method and its bounds). */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/bitset.h"
#include "common/errors.h"
#include "plan/plan_int.h"
#include "plan/schedule.h"

struct schedule {
    const struct plan *p;
    struct plan_pair *pairs; /* grouped by base round */
    size_t npairs;
    size_t *base_start; /* nbase + 1 offsets into pairs */
    size_t nbase;
    uint32_t *order; /* base rounds in run order */
    uint32_t *pass_scenario, *pass_trial;
    size_t *pass_offset; /* each pass starts at this rotation of order */
    size_t npasses;
    bool *base_ssh; /* per base round: it has a test with an ssh host */
    size_t nbase_ssh;
};

/* --- splitmix64: tiny, fast, and the same sequence on every platform ------------------- */

void
plan_rng_seed(struct rng *r, uint64_t seed)
{
    r->state = seed;
}

uint64_t
plan_rng_next(struct rng *r)
{
    uint64_t z = (r->state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

uint64_t
plan_rng_below(struct rng *r, uint64_t n)
{
    uint64_t limit = UINT64_MAX - UINT64_MAX % n; /* reject the biased tail */
    uint64_t x;
    do
        x = plan_rng_next(r);
    while (x >= limit);
    return x % n;
}

static void
rng_shuffle(struct rng *r, uint32_t *v, size_t n)
{
    for (size_t i = n; i > 1; i--) {
        size_t j = (size_t)plan_rng_below(r, i);
        uint32_t t = v[i - 1];
        v[i - 1] = v[j];
        v[j] = t;
    }
}

/* --- colouring: circle-method order, first fit ------------------------------------------- */

struct colouring {
    const struct plan *p;
    const uint32_t *perm;   /* slot -> host */
    const uint64_t *wanted; /* explicit selections: nhosts x nhosts bits, else NULL */
    uint64_t *busy;         /* per host: words bits, rounds the host is in */
    size_t words;
    struct plan_pair *edges;
    uint32_t *round;
    size_t n, cap;
    size_t nrounds;
};

static bool
colouring_wants(const struct colouring *c, uint32_t a, uint32_t b)
{
    if (c->wanted != NULL)
        return bitset_test(c->wanted, (size_t)a * c->p->nhosts + b);
    return plan_pair_selected(c->p, a, b);
}

/* The first round in which neither host is busy. */
static size_t
first_free(const struct colouring *c, uint32_t a, uint32_t b)
{
    const uint64_t *x = &c->busy[(size_t)a * c->words], *y = &c->busy[(size_t)b * c->words];
    for (size_t w = 0; w < c->words; w++) {
        uint64_t free_bits = ~(x[w] | y[w]);
        if (free_bits != 0)
            return w * 64 + (size_t)__builtin_ctzll(free_bits);
    }
    return c->words * 64; /* unreachable: the circle colour itself is always free */
}

static void
colouring_add(struct colouring *c, uint32_t a, uint32_t b)
{
    if (!colouring_wants(c, a, b) || c->n >= c->cap)
        return;
    size_t r = first_free(c, a, b);
    bitset_set(&c->busy[(size_t)a * c->words], r);
    bitset_set(&c->busy[(size_t)b * c->words], r);
    c->edges[c->n] = (struct plan_pair){a, b};
    c->round[c->n++] = (uint32_t)r;
    if (r + 1 > c->nrounds)
        c->nrounds = r + 1;
}

/* The pair of circle slots x and y in a half: half 0 runs earlier -> later host. */
static void
colouring_slot_pair(struct colouring *c, size_t x, size_t y, int half)
{
    size_t nh = c->p->nhosts;
    if (x >= nh || y >= nh) /* the idle slot of an odd host count */
        return;
    uint32_t a = c->perm[x], b = c->perm[y];
    uint32_t lo = a < b ? a : b, hi = a < b ? b : a;
    if (half == 0)
        colouring_add(c, lo, hi);
    else
        colouring_add(c, hi, lo);
}

/* Circle method over m slots (m even): slot m-1 fixed, the others rotate. */
static void
colouring_circle(struct colouring *c, int halves)
{
    size_t nh = c->p->nhosts, m = nh + (nh & 1), h = m - 1;
    for (int half = 0; half < halves; half++) {
        for (size_t r = 0; r < h; r++) {
            colouring_slot_pair(c, m - 1, r, half);
            for (size_t k = 1; k < m / 2; k++)
                colouring_slot_pair(c, (r + k) % h, (r + h - k) % h, half);
        }
    }
}

/* Directed pairs of an explicit list (both ways for directions: both) as a bit matrix. */
static uint64_t *
explicit_wanted(const struct plan *p)
{
    size_t n = p->nhosts;
    uint64_t *w = calloc(bitset_words(n * n), sizeof *w);
    for (size_t i = 0; w != NULL && i < p->nexplicit; i++) {
        const struct plan_pair *e = &p->explicit_pairs[i];
        bitset_set(w, (size_t)e->src * n + e->dst);
        if (p->directions == 0)
            bitset_set(w, (size_t)e->dst * n + e->src);
    }
    return w;
}

static int
colouring_run(struct colouring *c)
{
    const struct plan *p = c->p;
    size_t nh = p->nhosts;
    c->words = bitset_words(2 * (nh + 1));
    c->cap = p->npairs;
    c->busy = calloc(nh * c->words, sizeof *c->busy);
    c->edges = malloc((c->cap ? c->cap : 1) * sizeof *c->edges);
    c->round = malloc((c->cap ? c->cap : 1) * sizeof *c->round);
    uint64_t *wanted = p->pairs == PLAN_PAIRS_EXPLICIT ? explicit_wanted(p) : NULL;
    c->wanted = wanted;
    int rc = 0;
    if (c->busy == NULL || c->edges == NULL || c->round == NULL ||
        (p->pairs == PLAN_PAIRS_EXPLICIT && wanted == NULL))
        rc = NS_ENOMEM;
    else if (nh >= 2)
        colouring_circle(c, p->directions == 0 || wanted != NULL ? 2 : 1);
    free(wanted);
    free(c->busy);
    c->busy = NULL;
    return rc;
}

/* Group the coloured edges into base rounds (counting sort, stable). */
static int
schedule_group(struct schedule *s, const struct colouring *c)
{
    size_t nb = s->p->parallel ? c->nrounds : c->n;
    s->pairs = malloc((c->n ? c->n : 1) * sizeof *s->pairs);
    s->base_start = calloc(nb + 2, sizeof *s->base_start);
    if (s->pairs == NULL || s->base_start == NULL)
        return NS_ENOMEM;
    size_t *count = calloc(c->nrounds + 1, sizeof *count);
    if (count == NULL)
        return NS_ENOMEM;
    for (size_t i = 0; i < c->n; i++)
        count[c->round[i] + 1]++;
    for (size_t r = 0; r < c->nrounds; r++)
        count[r + 1] += count[r];
    for (size_t i = 0; i < c->n; i++)
        s->pairs[count[c->round[i]]++] = c->edges[i];
    free(count);
    s->npairs = c->n;
    s->nbase = nb;
    return 0;
}

static void
schedule_bases(struct schedule *s, const struct colouring *c)
{
    if (!s->p->parallel) { /* one test at a time: every pair is its own round */
        for (size_t i = 0; i <= s->nbase; i++)
            s->base_start[i] = i;
        return;
    }
    for (size_t i = 0; i < c->n; i++)
        s->base_start[c->round[i] + 1]++;
    for (size_t r = 0; r < s->nbase; r++)
        s->base_start[r + 1] += s->base_start[r];
}

/* --- passes and order --------------------------------------------------------------------------
 */

static int
schedule_passes(struct schedule *s)
{
    const struct plan *p = s->p;
    unsigned max_trials = 0;
    for (size_t i = 0; i < p->nscenarios; i++) {
        s->npasses += p->scenarios[i].trials;
        if (p->scenarios[i].trials > max_trials)
            max_trials = p->scenarios[i].trials;
    }
    s->pass_scenario = malloc((s->npasses + 1) * sizeof *s->pass_scenario);
    s->pass_trial = malloc((s->npasses + 1) * sizeof *s->pass_trial);
    s->pass_offset = calloc(s->npasses + 1, sizeof *s->pass_offset);
    if (s->pass_scenario == NULL || s->pass_trial == NULL || s->pass_offset == NULL)
        return NS_ENOMEM;
    size_t k = 0;
    for (unsigned t = 1; t <= max_trials; t++) {
        for (size_t i = 0; i < p->nscenarios; i++) {
            if (t <= p->scenarios[i].trials) {
                s->pass_scenario[k] = (uint32_t)i;
                s->pass_trial[k++] = t;
            }
        }
    }
    return 0;
}

/* Random rotations, except one that would run the same base round twice in a row. */
static void
schedule_rotate(struct schedule *s, struct rng *r)
{
    size_t nb = s->nbase;
    for (size_t k = 0; k < s->npasses && nb > 1; k++) {
        size_t off = (size_t)plan_rng_below(r, nb);
        if (k > 0 && s->pass_scenario[k] == s->pass_scenario[k - 1]) {
            size_t last = s->order[(nb - 1 + s->pass_offset[k - 1]) % nb];
            if (s->order[off] == last)
                off = (off + 1) % nb;
        }
        s->pass_offset[k] = off;
    }
}

static int
schedule_order(struct schedule *s, struct rng *r)
{
    s->order = malloc((s->nbase + 1) * sizeof *s->order);
    if (s->order == NULL)
        return NS_ENOMEM;
    for (size_t i = 0; i < s->nbase; i++)
        s->order[i] = (uint32_t)i;
    if (plan_shuffled(s->p)) {
        rng_shuffle(r, s->order, s->nbase);
        schedule_rotate(s, r);
    }
    return 0;
}

/* Which base rounds reach an ssh host: their setup is an ssh session's, not a local spawn's. */
static int
schedule_transports(struct schedule *s)
{
    s->base_ssh = calloc(s->nbase + 1, sizeof *s->base_ssh);
    if (s->base_ssh == NULL)
        return NS_ENOMEM;
    for (size_t b = 0; b < s->nbase; b++) {
        for (size_t i = s->base_start[b]; i < s->base_start[b + 1] && !s->base_ssh[b]; i++)
            s->base_ssh[b] = s->p->hosts[s->pairs[i].src].transport == PLAN_TRANSPORT_SSH ||
                             s->p->hosts[s->pairs[i].dst].transport == PLAN_TRANSPORT_SSH;
        s->nbase_ssh += s->base_ssh[b];
    }
    return 0;
}

/* --- building ----------------------------------------------------------------------------------
 */

static int
schedule_build(struct schedule *s, struct rng *r)
{
    const struct plan *p = s->p;
    uint32_t *perm = malloc((p->nhosts + 1) * sizeof *perm);
    if (perm == NULL)
        return NS_ENOMEM;
    for (size_t i = 0; i < p->nhosts; i++)
        perm[i] = (uint32_t)i;
    if (plan_shuffled(p))
        rng_shuffle(r, perm, p->nhosts);
    struct colouring c = {.p = p, .perm = perm};
    int rc = colouring_run(&c);
    if (rc == 0)
        rc = schedule_group(s, &c);
    if (rc == 0)
        schedule_bases(s, &c);
    free(c.edges);
    free(c.round);
    free(perm);
    if (rc == 0)
        rc = schedule_passes(s);
    if (rc == 0)
        rc = schedule_order(s, r);
    if (rc == 0)
        rc = schedule_transports(s);
    return rc;
}

int
schedule_new(const struct plan *p, struct schedule **out, struct err *e)
{
    *out = NULL;
    struct schedule *s = calloc(1, sizeof *s);
    if (s == NULL)
        return err_set(e, NS_ENOMEM, "out of memory building the schedule");
    s->p = p;
    struct rng r;
    plan_rng_seed(&r, p->seed);
    int rc = schedule_build(s, &r);
    if (rc != 0) {
        schedule_free(s);
        return err_set(e, rc, "out of memory building the schedule");
    }
    *out = s;
    return 0;
}

void
schedule_free(struct schedule *s)
{
    if (s == NULL)
        return;
    free(s->pairs);
    free(s->base_start);
    free(s->order);
    free(s->pass_scenario);
    free(s->pass_trial);
    free(s->pass_offset);
    free(s->base_ssh);
    free(s);
}

/* --- reading ------------------------------------------------------------------------------------
 */

const struct plan *
schedule_plan(const struct schedule *s)
{
    return s->p;
}

size_t
schedule_round_count(const struct schedule *s)
{
    return s->nbase * s->npasses;
}

static size_t
schedule_base_of(const struct schedule *s, size_t round)
{
    size_t pass = round / s->nbase, i = round % s->nbase;
    return s->order[(i + s->pass_offset[pass]) % s->nbase];
}

size_t
schedule_round_size(const struct schedule *s, size_t round)
{
    size_t b = schedule_base_of(s, round);
    return s->base_start[b + 1] - s->base_start[b];
}

uint32_t
schedule_round_scenario(const struct schedule *s, size_t round)
{
    return s->pass_scenario[round / s->nbase];
}

uint32_t
schedule_round_trial(const struct schedule *s, size_t round)
{
    return s->pass_trial[round / s->nbase];
}

void
schedule_round_test(const struct schedule *s, size_t round, size_t i, struct schedule_test *out)
{
    const struct plan_pair *e = &s->pairs[s->base_start[schedule_base_of(s, round)] + i];
    out->src = e->src;
    out->dst = e->dst;
    out->scenario = schedule_round_scenario(s, round);
    out->trial = schedule_round_trial(s, round);
}

bool
schedule_round_ssh(const struct schedule *s, size_t round)
{
    return s->base_ssh[schedule_base_of(s, round)];
}

/* A round's setup, by whether it has an ssh host; a table, not a choice between two constants
 * that may well be equal. */
static const double round_setup_s[2] = {PLAN_SETUP_LOCAL_S, PLAN_SETUP_SSH_S};

double
schedule_round_estimate_s(const struct schedule *s, size_t round)
{
    const struct plan_scenario *sc = &s->p->scenarios[schedule_round_scenario(s, round)];
    return sc->warmup_s + sc->duration_s + round_setup_s[schedule_round_ssh(s, round)];
}

double
schedule_open_estimate_s(const struct schedule *s)
{
    double t = 0;
    for (size_t i = 0; i < s->p->nhosts; i++)
        t += s->p->hosts[i].transport == PLAN_TRANSPORT_SSH ? PLAN_OPEN_SSH_S : PLAN_OPEN_LOCAL_S;
    return t;
}

size_t
schedule_base_round_count(const struct schedule *s)
{
    return s->nbase;
}

void
schedule_pair(const struct schedule *s, size_t i, uint32_t *src, uint32_t *dst)
{
    *src = s->pairs[i].src;
    *dst = s->pairs[i].dst;
}

size_t
schedule_pair_count(const struct schedule *s)
{
    return s->npairs;
}

uint64_t
schedule_test_count(const struct schedule *s)
{
    return (uint64_t)s->npairs * s->npasses;
}

double
schedule_estimate_s(const struct schedule *s)
{
    double setup = (double)s->nbase_ssh * PLAN_SETUP_SSH_S +
                   (double)(s->nbase - s->nbase_ssh) * PLAN_SETUP_LOCAL_S;
    double total = schedule_open_estimate_s(s);
    for (size_t k = 0; k < s->npasses; k++) {
        const struct plan_scenario *sc = &s->p->scenarios[s->pass_scenario[k]];
        total += (double)s->nbase * (sc->warmup_s + sc->duration_s) + setup;
    }
    return total;
}
