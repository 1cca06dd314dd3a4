/* schedule.c - rounds of disjoint host pairs (see schedule.h for the method and its bounds). */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/bitset.h"
#include "common/errors.h"
#include "common/trials.h"
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
    size_t nfixed;  /* passes 0..nfixed-1 run every pair: the fixed part; the rest are adaptive */
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

/* Passes of trials lo..hi of every scenario (each scenario's trials clipped to 1..its cap),
 * trial-major, from pass k on. Returns the next k. */
static size_t
schedule_passes_add(struct schedule *s, size_t k, bool extra, uint32_t hi)
{
    const struct plan *p = s->p;
    for (uint32_t t = 1; t <= hi; t++) {
        for (size_t i = 0; i < p->nscenarios; i++) {
            const struct trials_policy *tp = &p->scenarios[i].trials;
            if (extra ? t > tp->min && t <= tp->max : t <= tp->min) {
                s->pass_scenario[k] = (uint32_t)i;
                s->pass_trial[k++] = t;
            }
        }
    }
    return k;
}

/* The fixed part first (every trial of a fixed count, the first min of adaptive trials), then
 * the adaptive passes, so that the fixed part is a schedule of its own (what `plan` shows). */
static int
schedule_passes(struct schedule *s)
{
    const struct plan *p = s->p;
    uint32_t max_trials = 0;
    for (size_t i = 0; i < p->nscenarios; i++) {
        const struct trials_policy *tp = &p->scenarios[i].trials;
        s->npasses += tp->max;
        s->nfixed += tp->min;
        max_trials = tp->max > max_trials ? tp->max : max_trials;
    }
    s->pass_scenario = malloc((s->npasses + 1) * sizeof *s->pass_scenario);
    s->pass_trial = malloc((s->npasses + 1) * sizeof *s->pass_trial);
    s->pass_offset = calloc(s->npasses + 1, sizeof *s->pass_offset);
    if (s->pass_scenario == NULL || s->pass_trial == NULL || s->pass_offset == NULL)
        return NS_ENOMEM;
    size_t k = schedule_passes_add(s, 0, false, max_trials);
    schedule_passes_add(s, k, true, max_trials);
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
    return s->nbase * s->nfixed;
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
    return (uint64_t)s->npairs * s->nfixed;
}

uint64_t
schedule_test_count_max(const struct schedule *s)
{
    return (uint64_t)s->npairs * s->npasses;
}

/* Estimated seconds of the hosts' opening and passes [from, to), every base round of each. */
static double
passes_estimate_s(const struct schedule *s, size_t from, size_t to)
{
    double total = schedule_open_estimate_s(s);
    for (size_t k = from; k < to; k++)
        total += schedule_pass_estimate_s(s, k);
    return total;
}

double
schedule_estimate_s(const struct schedule *s)
{
    return passes_estimate_s(s, 0, s->nfixed);
}

double
schedule_estimate_max_s(const struct schedule *s)
{
    return passes_estimate_s(s, 0, s->npasses);
}

/* --- passes, and the rounds of an adaptive one ------------------------------------------- */

size_t
schedule_pass_count(const struct schedule *s)
{
    return s->npasses;
}

size_t
schedule_fixed_pass_count(const struct schedule *s)
{
    return s->nfixed;
}

uint32_t
schedule_pass_scenario(const struct schedule *s, size_t k)
{
    return s->pass_scenario[k];
}

uint32_t
schedule_pass_trial(const struct schedule *s, size_t k)
{
    return s->pass_trial[k];
}

double
schedule_pass_round_estimate_s(const struct schedule *s, size_t k, bool ssh)
{
    const struct plan_scenario *sc = &s->p->scenarios[s->pass_scenario[k]];
    return sc->warmup_s + sc->duration_s + round_setup_s[ssh];
}

double
schedule_pass_estimate_s(const struct schedule *s, size_t k)
{
    const struct plan_scenario *sc = &s->p->scenarios[s->pass_scenario[k]];
    double setup = (double)s->nbase_ssh * PLAN_SETUP_SSH_S +
                   (double)(s->nbase - s->nbase_ssh) * PLAN_SETUP_LOCAL_S;
    return (double)s->nbase * (sc->warmup_s + sc->duration_s) + setup;
}

bool
schedule_tests_ssh(const struct schedule *s, const struct schedule_test *t, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s->p->hosts[t[i].src].transport == PLAN_TRANSPORT_SSH ||
            s->p->hosts[t[i].dst].transport == PLAN_TRANSPORT_SSH)
            return true;
    return false;
}

void
schedule_rounds_release(struct schedule_rounds *r)
{
    free(r->tests);
    free(r->start);
    memset(r, 0, sizeof *r);
}

/* The pair indexes of pass k's base rounds in the pass's order, those with trial[i] > 0. */
static size_t
pass_pairs_in_order(const struct schedule *s, size_t k, const uint32_t *trial, uint32_t *out)
{
    size_t n = 0;
    for (size_t b = 0; b < s->nbase; b++) {
        size_t base = s->order[(b + s->pass_offset[k]) % s->nbase];
        for (size_t i = s->base_start[base]; i < s->base_start[base + 1]; i++)
            if (trial[i] > 0)
                out[n++] = (uint32_t)i;
    }
    return n;
}

/* Whether pair i ran in the round before (prev, tests of the pass's scenario). */
static bool
pair_in(const struct schedule *s, uint32_t i, uint32_t sc, const struct schedule_test *prev,
        size_t nprev)
{
    for (size_t j = 0; j < nprev; j++)
        if (prev[j].scenario == sc && prev[j].src == s->pairs[i].src &&
            prev[j].dst == s->pairs[i].dst)
            return true;
    return false;
}

struct placing {
    const struct schedule *s;
    uint64_t *busy; /* per host: words bits, the rounds it is in */
    size_t words;
    uint32_t *round; /* per placed pair (in order) */
    size_t nrounds;
    size_t next; /* one test a round (parallel: false): the next round */
};

/* The first round from `from` on where neither host of pair i is busy. */
static size_t
placing_round(struct placing *pl, uint32_t i, size_t from)
{
    if (!pl->s->p->parallel)
        return pl->next++;
    const struct plan_pair *e = &pl->s->pairs[i];
    const uint64_t *x = &pl->busy[(size_t)e->src * pl->words];
    const uint64_t *y = &pl->busy[(size_t)e->dst * pl->words];
    /* Taken in base-round order, a fresh pair of base round b fits by round b (rounds after
     * the ones before hold only pairs of b); a recent one, disjoint from the other recent ones,
     * by round nbase. pl->words covers 2 x nbase + 2 rounds: the loop's bound never binds. */
    size_t r = from;
    while (r + 1 < pl->words * 64 && (bitset_test(x, r) || bitset_test(y, r)))
        r++;
    return r;
}

static void
placing_put(struct placing *pl, uint32_t i, size_t r, size_t slot)
{
    if (pl->s->p->parallel) {
        const struct plan_pair *e = &pl->s->pairs[i];
        bitset_set(&pl->busy[(size_t)e->src * pl->words], r);
        bitset_set(&pl->busy[(size_t)e->dst * pl->words], r);
    }
    pl->round[slot] = (uint32_t)r;
    pl->nrounds = r + 1 > pl->nrounds ? r + 1 : pl->nrounds;
}

/* Lay out the n pairs idx[] (in the pass's order) into rounds: first fit, those that ran in the
 * round before after the others and out of the first round when another pair is in it. */
static int
pass_place(const struct schedule *s, size_t k, uint32_t *idx, size_t n,
           const struct schedule_test *prev, size_t nprev, uint32_t *round)
{
    uint32_t sc = s->pass_scenario[k];
    /* stable partition: fresh pairs first, the recent ones after */
    size_t nfresh = 0;
    uint32_t *tmp = malloc((n + 1) * sizeof *tmp);
    if (tmp == NULL)
        return NS_ENOMEM;
    for (size_t j = 0; j < n; j++)
        if (!pair_in(s, idx[j], sc, prev, nprev))
            tmp[nfresh++] = idx[j];
    for (size_t j = 0, m = nfresh; j < n; j++)
        if (pair_in(s, idx[j], sc, prev, nprev))
            tmp[m++] = idx[j];
    memcpy(idx, tmp, n * sizeof *idx);
    free(tmp);
    struct placing pl = {.s = s, .words = bitset_words(2 * s->nbase + 2), .round = round};
    pl.busy = s->p->parallel ? calloc(s->p->nhosts * pl.words, sizeof *pl.busy) : NULL;
    if (s->p->parallel && pl.busy == NULL)
        return NS_ENOMEM;
    for (size_t j = 0; j < n; j++) {
        size_t from = j >= nfresh && nfresh > 0 ? 1 : 0;
        placing_put(&pl, idx[j], placing_round(&pl, idx[j], from), j);
    }
    free(pl.busy);
    return 0;
}

/* The placed pairs grouped by round (counting sort, stable) into out. */
static int
rounds_group(const struct schedule *s, const uint32_t *idx, const uint32_t *round, size_t n,
             const uint32_t *trial, uint32_t sc, struct schedule_rounds *out)
{
    size_t nr = 0;
    for (size_t j = 0; j < n; j++)
        nr = round[j] + 1 > nr ? round[j] + 1 : nr;
    out->tests = malloc((n + 1) * sizeof *out->tests);
    out->start = calloc(nr + 2, sizeof *out->start);
    if (out->tests == NULL || out->start == NULL)
        return NS_ENOMEM;
    for (size_t j = 0; j < n; j++)
        out->start[round[j] + 1]++;
    for (size_t r = 0; r < nr; r++)
        out->start[r + 1] += out->start[r];
    size_t *fill = calloc(nr + 1, sizeof *fill);
    if (fill == NULL)
        return NS_ENOMEM;
    for (size_t j = 0; j < n; j++) {
        const struct plan_pair *e = &s->pairs[idx[j]];
        out->tests[out->start[round[j]] + fill[round[j]]++] =
            (struct schedule_test){e->src, e->dst, sc, trial[idx[j]]};
    }
    free(fill);
    /* rounds left empty (a gap first fit never leaves, but the first one may be) go */
    size_t w = 0;
    for (size_t r = 0; r < nr; r++)
        if (out->start[r + 1] > out->start[r])
            out->start[++w] = out->start[r + 1];
    out->nrounds = w;
    out->ntests = n;
    return 0;
}

/* Whether the pass runs every pair with its own trial number and no pair of the round before
 * opens it: then its rounds are the fixed schedule's. */
static bool
pass_is_full(const struct schedule *s, size_t k, const uint32_t *trial,
             const struct schedule_test *prev, size_t nprev)
{
    for (size_t i = 0; i < s->npairs; i++)
        if (trial[i] != s->pass_trial[k])
            return false;
    if (s->nbase == 0)
        return true;
    size_t first = s->order[s->pass_offset[k] % s->nbase];
    for (size_t i = s->base_start[first]; i < s->base_start[first + 1]; i++)
        if (pair_in(s, (uint32_t)i, s->pass_scenario[k], prev, nprev))
            return false;
    return true;
}

/* The fixed layout of pass k: its base rounds in the pass's order (as schedule_round_test). */
static int
pass_full(const struct schedule *s, size_t k, struct schedule_rounds *out)
{
    out->tests = malloc((s->npairs + 1) * sizeof *out->tests);
    out->start = calloc(s->nbase + 1, sizeof *out->start);
    if (out->tests == NULL || out->start == NULL)
        return NS_ENOMEM;
    size_t n = 0;
    for (size_t b = 0; b < s->nbase; b++) {
        size_t base = s->order[(b + s->pass_offset[k]) % s->nbase];
        for (size_t i = s->base_start[base]; i < s->base_start[base + 1]; i++)
            out->tests[n++] = (struct schedule_test){s->pairs[i].src, s->pairs[i].dst,
                                                     s->pass_scenario[k], s->pass_trial[k]};
        out->start[b + 1] = n;
    }
    out->nrounds = s->nbase;
    out->ntests = n;
    return 0;
}

int
schedule_pass_rounds(const struct schedule *s, size_t k, const uint32_t *trial,
                     const struct schedule_test *prev, size_t nprev, struct schedule_rounds *out,
                     struct err *e)
{
    memset(out, 0, sizeof *out);
    if (pass_is_full(s, k, trial, prev, nprev)) {
        if (pass_full(s, k, out) == 0)
            return 0;
        schedule_rounds_release(out);
        return err_set(e, NS_ENOMEM, "out of memory building the rounds of a pass");
    }
    uint32_t *idx = malloc((s->npairs + 1) * sizeof *idx);
    uint32_t *round = malloc((s->npairs + 1) * sizeof *round);
    int rc = idx != NULL && round != NULL ? 0 : NS_ENOMEM;
    size_t n = rc == 0 ? pass_pairs_in_order(s, k, trial, idx) : 0;
    if (rc == 0)
        rc = pass_place(s, k, idx, n, prev, nprev, round);
    if (rc == 0)
        rc = rounds_group(s, idx, round, n, trial, s->pass_scenario[k], out);
    free(idx);
    free(round);
    if (rc != 0) {
        schedule_rounds_release(out);
        return err_set(e, rc, "out of memory building the rounds of a pass");
    }
    return 0;
}
