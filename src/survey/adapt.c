/* adapt.c - adaptive trials' state and decision (see adapt.h). */
#include "survey/adapt.h"

#include <stdlib.h>
#include <string.h>

#include "common/bitset.h"
#include "common/errors.h"
#include "common/trials.h"
#include "plan/plan.h"
#include "plan/schedule.h"

/* One adaptive scenario: per pair, max trial numbers. */
struct adapt_scen {
    struct trials_policy pol;
    size_t words;    /* per pair in ok and tried */
    double *value;   /* [pair * max + n - 1]: trial n's figure when ok */
    uint64_t *ok;    /* trial n holds an ok record with its figure */
    uint64_t *tried; /* trial n was run by this invocation */
    uint32_t *nok;   /* per pair: bits set in ok */
};

struct survey_adapt {
    size_t nscen, npairs, nhosts;
    struct adapt_scen *sc; /* per scenario; value NULL for a fixed one */
    uint64_t *keys;        /* src * nhosts + dst of the pairs, sorted */
    uint32_t *key_pair;    /* the pair index of keys[i] */
};

static int
u64_cmp(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static int
adapt_index(struct survey_adapt *a, const struct schedule *s)
{
    a->keys = malloc((a->npairs + 1) * sizeof *a->keys);
    a->key_pair = malloc((a->npairs + 1) * sizeof *a->key_pair);
    if (a->keys == NULL || a->key_pair == NULL)
        return NS_ENOMEM;
    /* key in the high bits, pair index in the low 32: one sort orders both */
    for (size_t i = 0; i < a->npairs; i++) {
        uint32_t src, dst;
        schedule_pair(s, i, &src, &dst);
        a->keys[i] = ((uint64_t)src * a->nhosts + dst) << 32 | (uint64_t)i;
    }
    qsort(a->keys, a->npairs, sizeof *a->keys, u64_cmp);
    for (size_t i = 0; i < a->npairs; i++) {
        a->key_pair[i] = (uint32_t)(a->keys[i] & UINT32_MAX);
        a->keys[i] >>= 32;
    }
    return 0;
}

static int
scen_init(struct adapt_scen *c, const struct trials_policy *pol, size_t npairs)
{
    c->pol = *pol;
    c->words = bitset_words(pol->max + 1);
    c->value = calloc(npairs * pol->max + 1, sizeof *c->value);
    c->ok = calloc(npairs * c->words + 1, sizeof *c->ok);
    c->tried = calloc(npairs * c->words + 1, sizeof *c->tried);
    c->nok = calloc(npairs + 1, sizeof *c->nok);
    return c->value && c->ok && c->tried && c->nok ? 0 : NS_ENOMEM;
}

int
survey_adapt_new(const struct plan *p, const struct schedule *s, struct survey_adapt **out)
{
    *out = NULL;
    size_t ns = plan_scenario_count(p), nadapt = 0;
    for (size_t i = 0; i < ns; i++)
        nadapt += trials_adaptive(&plan_scenario(p, i)->trials);
    if (nadapt == 0)
        return 0;
    struct survey_adapt *a = calloc(1, sizeof *a);
    if (a == NULL)
        return NS_ENOMEM;
    a->nscen = ns;
    a->npairs = schedule_pair_count(s);
    a->nhosts = plan_host_count(p);
    a->sc = calloc(ns, sizeof *a->sc);
    int rc = a->sc != NULL ? adapt_index(a, s) : NS_ENOMEM;
    for (size_t i = 0; rc == 0 && i < ns; i++)
        if (trials_adaptive(&plan_scenario(p, i)->trials))
            rc = scen_init(&a->sc[i], &plan_scenario(p, i)->trials, a->npairs);
    if (rc != 0) {
        survey_adapt_free(a);
        return rc;
    }
    *out = a;
    return 0;
}

void
survey_adapt_free(struct survey_adapt *a)
{
    if (a == NULL)
        return;
    for (size_t i = 0; a->sc != NULL && i < a->nscen; i++) {
        free(a->sc[i].value);
        free(a->sc[i].ok);
        free(a->sc[i].tried);
        free(a->sc[i].nok);
    }
    free(a->sc);
    free(a->keys);
    free(a->key_pair);
    free(a);
}

bool
survey_adapt_on(const struct survey_adapt *a, uint32_t sc)
{
    return a != NULL && sc < a->nscen && a->sc[sc].value != NULL;
}

long
survey_adapt_pair(const struct survey_adapt *a, uint32_t src, uint32_t dst)
{
    uint64_t k = (uint64_t)src * a->nhosts + dst;
    const uint64_t *hit = bsearch(&k, a->keys, a->npairs, sizeof k, u64_cmp);
    return hit != NULL ? (long)a->key_pair[hit - a->keys] : -1;
}

void
survey_adapt_record(struct survey_adapt *a, uint32_t sc, size_t i, uint32_t trial, bool status_ok,
                    bool has_value, double value)
{
    if (!survey_adapt_on(a, sc) || !status_ok)
        return;
    struct adapt_scen *c = &a->sc[sc];
    if (trial < 1 || trial > c->pol.max || i >= a->npairs)
        return;
    uint64_t *ok = &c->ok[i * c->words];
    bool was = bitset_test(ok, trial);
    if (has_value) {
        c->value[i * c->pol.max + trial - 1] = value;
        bitset_set(ok, trial);
        c->nok[i] += !was;
    } else if (was) {
        bitset_clear(ok, trial);
        c->nok[i]--;
    }
}

bool
survey_adapt_done(const struct survey_adapt *a, uint32_t sc, size_t i, struct stats *st)
{
    const struct adapt_scen *c = &a->sc[sc];
    const uint64_t *ok = &c->ok[i * c->words];
    stats_init(st);
    for (uint32_t n = 1; n <= c->pol.max; n++)
        if (bitset_test(ok, n))
            stats_add(st, c->value[i * c->pol.max + n - 1]);
    return trials_done(&c->pol, st);
}

uint32_t
survey_adapt_next(const struct survey_adapt *a, uint32_t sc, size_t i)
{
    struct stats st;
    if (survey_adapt_done(a, sc, i, &st))
        return 0;
    const struct adapt_scen *c = &a->sc[sc];
    const uint64_t *ok = &c->ok[i * c->words], *tried = &c->tried[i * c->words];
    for (uint32_t n = 1; n <= c->pol.max; n++)
        if (!bitset_test(ok, n) && !bitset_test(tried, n))
            return n;
    return 0;
}

void
survey_adapt_tried(struct survey_adapt *a, uint32_t sc, size_t i, uint32_t trial)
{
    struct adapt_scen *c = &a->sc[sc];
    if (trial >= 1 && trial <= c->pol.max)
        bitset_set(&c->tried[i * c->words], trial);
}

void
survey_adapt_left(const struct survey_adapt *a, uint32_t sc, size_t i, uint32_t passes,
                  uint32_t *lo, uint32_t *hi)
{
    *lo = *hi = 0;
    struct stats st;
    if (survey_adapt_done(a, sc, i, &st))
        return;
    const struct adapt_scen *c = &a->sc[sc];
    const uint64_t *ok = &c->ok[i * c->words], *tried = &c->tried[i * c->words];
    uint32_t untried = 0;
    for (uint32_t n = 1; n <= c->pol.max; n++)
        untried += !bitset_test(ok, n) && !bitset_test(tried, n);
    uint32_t need = st.n < c->pol.min ? c->pol.min - (uint32_t)st.n : 1;
    *hi = untried < passes ? untried : passes;
    *lo = need < *hi ? need : *hi;
}

uint32_t
survey_adapt_ok_count(const struct survey_adapt *a, uint32_t sc, size_t i)
{
    return a->sc[sc].nok[i];
}
