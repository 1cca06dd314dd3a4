/* test_schedule.c - properties of the schedule for many host counts and selections: every
 * selected ordered pair exactly once per scenario and trial, no host twice in a round, the
 * circle method's round counts, trials spread out, determinism, shuffling a permutation. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "helpers.h"
#include "plan/plan.h"
#include "plan/plan_int.h"
#include "plan/schedule.h"

static struct plan *
gen_load(const struct gen_opts *o)
{
    char *text = helper_gen_plan(o);
    struct diags *d = diags_new();
    struct plan *p = NULL;
    if (plan_load_buffer("gen.yaml", text, strlen(text), &p, d) != 0) {
        diags_write(d, stderr);
        fail_msg("generated plan does not load:\n%s", text);
    }
    diags_free(d);
    free(text);
    return p;
}

static struct schedule *
sched(const struct plan *p)
{
    struct schedule *s = NULL;
    assert_int_equal(schedule_new(p, &s, NULL), 0);
    return s;
}

/* Which ordered pairs the test expects, as an n x n matrix. */
typedef bool want_fn(const struct plan *p, size_t a, size_t b, const void *ctx);

struct check {
    const struct plan *p;
    const struct schedule *s;
    size_t n;
    unsigned *seen;     /* [scenario][trial][a * n + b] */
    size_t *last_round; /* [scenario][a * n + b]: round of the previous trial + 1 */
    size_t *busy;       /* [host]: last round the host was in + 1 */
    unsigned max_trials;
};

static unsigned *
seen_at(struct check *c, size_t sc, size_t trial, size_t a, size_t b)
{
    return &c->seen[(sc * c->max_trials + trial - 1) * c->n * c->n + a * c->n + b];
}

static void
check_test(struct check *c, size_t r, const struct schedule_test *t)
{
    assert_true(t->src < c->n && t->dst < c->n && t->src != t->dst);
    assert_int_not_equal(c->busy[t->src], r + 1); /* no host twice in a round */
    assert_int_not_equal(c->busy[t->dst], r + 1);
    c->busy[t->src] = c->busy[t->dst] = r + 1;
    (*seen_at(c, t->scenario, t->trial, t->src, t->dst))++;
    size_t *last = &c->last_round[t->scenario * c->n * c->n + t->src * c->n + t->dst];
    if (*last != 0 && schedule_base_round_count(c->s) > 1)
        assert_true(r + 1 - *last >= 2); /* trials of a pair not back to back */
    *last = r + 1;
}

static void
check_round(struct check *c, size_t r)
{
    size_t size = schedule_round_size(c->s, r);
    assert_true(size >= 1);
    if (!plan_parallel(c->p))
        assert_int_equal(size, 1);
    for (size_t i = 0; i < size; i++) {
        struct schedule_test t;
        schedule_round_test(c->s, r, i, &t);
        assert_int_equal(t.scenario, schedule_round_scenario(c->s, r));
        assert_int_equal(t.trial, schedule_round_trial(c->s, r));
        check_test(c, r, &t);
    }
}

/* Everything a schedule promises, against want. */
static void
check_schedule(const struct plan *p, const struct schedule *s, want_fn *want, const void *ctx)
{
    struct check c = {.p = p, .s = s, .n = plan_host_count(p)};
    size_t ns = plan_scenario_count(p);
    for (size_t i = 0; i < ns; i++)
        if (plan_scenario(p, i)->trials.min > c.max_trials)
            c.max_trials = plan_scenario(p, i)->trials.min;
    c.seen = calloc(ns * c.max_trials * c.n * c.n, sizeof *c.seen);
    c.last_round = calloc(ns * c.n * c.n, sizeof *c.last_round);
    c.busy = calloc(c.n, sizeof *c.busy);
    size_t nr = schedule_round_count(s), tests = 0;
    for (size_t r = 0; r < nr; r++) {
        check_round(&c, r);
        tests += schedule_round_size(s, r);
    }
    assert_int_equal(tests, schedule_test_count(s));
    for (size_t sc = 0; sc < ns; sc++)
        for (unsigned t = 1; t <= plan_scenario(p, sc)->trials.min; t++)
            for (size_t a = 0; a < c.n; a++)
                for (size_t b = 0; b < c.n; b++)
                    assert_int_equal(*seen_at(&c, sc, t, a, b), a != b && want(p, a, b, ctx));
    free(c.seen);
    free(c.last_round);
    free(c.busy);
}

static bool
want_all(const struct plan *p, size_t a, size_t b, const void *ctx)
{
    (void)p;
    (void)ctx;
    return a != b;
}

static bool
want_one_way(const struct plan *p, size_t a, size_t b, const void *ctx)
{
    (void)p;
    (void)ctx;
    return a < b;
}

static size_t
circle_rounds(size_t n, bool one_way)
{
    size_t per_half = n % 2 == 0 ? n - 1 : n;
    return one_way ? per_half : 2 * per_half;
}

static void
test_all_pairs_every_n(void **state)
{
    (void)state;
    for (size_t n = 2; n <= 40; n++) {
        for (int variant = 0; variant < 4; variant++) {
            bool one_way = variant & 1, shuffled = variant & 2;
            struct gen_opts o = {.hosts = n,
                                 .one_way = one_way,
                                 .shuffled = shuffled,
                                 .seed = n * 7919,
                                 .trials = 2,
                                 .scenarios = 2};
            struct plan *p = gen_load(&o);
            struct schedule *s = sched(p);
            assert_int_equal(schedule_base_round_count(s), circle_rounds(n, one_way));
            assert_int_equal(schedule_round_count(s), circle_rounds(n, one_way) * 4);
            check_schedule(p, s, one_way ? want_one_way : want_all, NULL);
            schedule_free(s);
            plan_free(p);
        }
    }
}

/* With an even count every round is a perfect matching: everyone busy. */
static void
test_even_rounds_are_full(void **state)
{
    (void)state;
    for (size_t n = 2; n <= 40; n += 2) {
        struct gen_opts o = {.hosts = n};
        struct plan *p = gen_load(&o);
        struct schedule *s = sched(p);
        for (size_t r = 0; r < schedule_round_count(s); r++)
            assert_int_equal(schedule_round_size(s, r), n / 2);
        schedule_free(s);
        plan_free(p);
    }
}

static void
test_one_at_a_time(void **state)
{
    (void)state;
    for (size_t n = 2; n <= 12; n++) {
        struct gen_opts o = {
            .hosts = n, .sequential_only = true, .trials = 3, .shuffled = n % 2 == 1, .seed = 3};
        struct plan *p = gen_load(&o);
        struct schedule *s = sched(p);
        assert_int_equal(schedule_round_count(s), n * (n - 1) * 3);
        check_schedule(p, s, want_all, NULL);
        schedule_free(s);
        plan_free(p);
    }
}

/* Every test of a schedule in order, as one array. */
static struct schedule_test *
flatten(const struct schedule *s, size_t *count)
{
    size_t n = (size_t)schedule_test_count(s), k = 0;
    struct schedule_test *v = calloc(n + 1, sizeof *v);
    for (size_t r = 0; r < schedule_round_count(s); r++)
        for (size_t i = 0; i < schedule_round_size(s, r); i++)
            schedule_round_test(s, r, i, &v[k++]);
    *count = k;
    return v;
}

static int
test_cmp(const void *a, const void *b)
{
    return memcmp(a, b, sizeof(struct schedule_test));
}

static void
test_deterministic_and_shuffled(void **state)
{
    (void)state;
    for (size_t n = 4; n <= 30; n += 3) {
        struct gen_opts o = {.hosts = n, .trials = 2, .scenarios = 2, .seed = 99};
        struct plan *seq = gen_load(&o);
        o.shuffled = true;
        struct plan *sh1 = gen_load(&o), *sh2 = gen_load(&o);
        o.seed = 100;
        struct plan *sh3 = gen_load(&o);
        struct schedule *a = sched(seq), *b = sched(sh1), *c = sched(sh2), *d = sched(sh3);
        size_t na, nb, nc, nd;
        struct schedule_test *va = flatten(a, &na), *vb = flatten(b, &nb), *vc = flatten(c, &nc),
                             *vd = flatten(d, &nd);
        assert_true(na == nb && nb == nc && nc == nd);
        assert_memory_equal(vb, vc, nb * sizeof *vb);     /* same seed, same schedule */
        assert_memory_not_equal(va, vb, na * sizeof *va); /* shuffled differs */
        assert_memory_not_equal(vb, vd, nb * sizeof *vb); /* another seed differs */
        qsort(va, na, sizeof *va, test_cmp);
        qsort(vb, nb, sizeof *vb, test_cmp);
        assert_memory_equal(va, vb, na * sizeof *va); /* ... but is a permutation */
        free(va), free(vb), free(vc), free(vd);
        schedule_free(a), schedule_free(b), schedule_free(c), schedule_free(d);
        plan_free(seq), plan_free(sh1), plan_free(sh2), plan_free(sh3);
    }
}

#define PINNED_ROUND0 "3>5 0>1 2>4 "

/* A pinned schedule: the same on every platform and build (splitmix64, integer maths only).
 * If this changes, `netsurvey plan` output of existing plans changes: say so in the commit. */
static void
test_pinned_shuffle(void **state)
{
    (void)state;
    struct rng r;
    plan_rng_seed(&r, 1234567);
    assert_true(plan_rng_next(&r) == 6457827717110365317ULL); /* splitmix64's reference values */
    assert_true(plan_rng_next(&r) == 3203168211198807973ULL);
    struct gen_opts o = {.hosts = 6, .shuffled = true, .seed = 7};
    struct plan *p = gen_load(&o);
    struct schedule *s = sched(p);
    char got[256] = "";
    for (size_t i = 0; i < schedule_round_size(s, 0); i++) {
        struct schedule_test t;
        schedule_round_test(s, 0, i, &t);
        sprintf(got + strlen(got), "%u>%u ", t.src, t.dst);
    }
    assert_string_equal(got, PINNED_ROUND0);
    schedule_free(s);
    plan_free(p);
}

/* --- subsets ---------------------------------------------------------------------------- */

static uint64_t lcg_state = 12345;

static size_t
lcg_below(size_t n)
{
    lcg_state = lcg_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (size_t)((lcg_state >> 33) % n);
}

static const char *const zone_names[] = {"1", "2", "3", "4"};

static bool
want_zone(const struct plan *p, size_t a, size_t b, const void *ctx)
{
    bool cross = *(const bool *)ctx;
    bool same = strcmp(plan_host(p, a)->zone, plan_host(p, b)->zone) == 0;
    return cross ? !same : same;
}

/* The largest number of selected pairs one host is in: no schedule has fewer rounds. */
static size_t
max_degree(const struct plan *p, want_fn *want, const void *ctx)
{
    size_t n = plan_host_count(p), best = 0;
    for (size_t a = 0; a < n; a++) {
        size_t deg = 0;
        for (size_t b = 0; b < n; b++)
            deg += (size_t)(a != b && want(p, a, b, ctx)) + (size_t)(a != b && want(p, b, a, ctx));
        best = deg > best ? deg : best;
    }
    return best;
}

static void
check_bounds(const struct plan *p, const struct schedule *s, want_fn *want, const void *ctx)
{
    size_t deg = max_degree(p, want, ctx), base = schedule_base_round_count(s);
    size_t n = plan_host_count(p);
    assert_true(base >= deg);
    assert_true(base <= 2 * deg - 1 || deg == 0);
    assert_true(base <= circle_rounds(n, false));
    check_schedule(p, s, want, ctx);
}

static void
test_zone_selections(void **state)
{
    (void)state;
    const char *zones[40];
    for (size_t n = 4; n <= 40; n++) {
        for (int cross = 0; cross < 2; cross++) {
            size_t k = 2 + lcg_below(n / 2 < 4 ? n / 2 - 1 : 3); /* 2..4, at most n/2 */
            for (size_t i = 0; i < n; i++)
                zones[i] = zone_names[i < k ? i : lcg_below(k)]; /* every zone twice or more */
            for (size_t i = k; i < 2 * k && i < n; i++)
                zones[i] = zone_names[i - k];
            bool is_cross = cross;
            struct gen_opts o = {.hosts = n,
                                 .zones = zones,
                                 .pairs = cross ? "cross-zone" : "same-zone",
                                 .trials = 2,
                                 .shuffled = n % 3 == 0,
                                 .seed = n};
            struct plan *p = gen_load(&o);
            struct schedule *s = sched(p);
            check_bounds(p, s, want_zone, &is_cross);
            schedule_free(s);
            plan_free(p);
        }
    }
}

/* Same-zone with equal zones of k hosts takes the circle rounds of k, not of n. */
static void
test_same_zone_is_per_zone_circle(void **state)
{
    (void)state;
    const char *zones[24];
    for (size_t i = 0; i < 24; i++)
        zones[i] = zone_names[i % 3];
    struct gen_opts o = {.hosts = 24, .zones = zones, .pairs = "same-zone"};
    struct plan *p = gen_load(&o);
    struct schedule *s = sched(p);
    assert_int_equal(schedule_base_round_count(s), circle_rounds(8, false));
    schedule_free(s);
    plan_free(p);
}

struct explicit_set {
    size_t n;
    const bool *m;
};

static bool
want_explicit(const struct plan *p, size_t a, size_t b, const void *ctx)
{
    (void)p;
    const struct explicit_set *e = ctx;
    return e->m[a * e->n + b];
}

static void
test_explicit_pairs(void **state)
{
    (void)state;
    for (size_t n = 2; n <= 30; n++) {
        size_t(*pairs)[2] = calloc(n * n, sizeof *pairs), np = 0;
        bool *m = calloc(n * n, sizeof *m);
        for (size_t a = 0; a < n; a++)
            for (size_t b = 0; b < n; b++)
                if (a != b && (np == 0 || lcg_below(3) == 0)) {
                    pairs[np][0] = a;
                    pairs[np++][1] = b;
                    m[a * n + b] = true;
                }
        struct gen_opts o = {.hosts = n,
                             .explicit_pairs = (const size_t(*)[2])pairs,
                             .nexplicit = np,
                             .one_way = true,
                             .trials = 3};
        struct plan *p = gen_load(&o);
        struct schedule *s = sched(p);
        struct explicit_set e = {n, m};
        check_bounds(p, s, want_explicit, &e);
        schedule_free(s);
        plan_free(p);
        free(pairs);
        free(m);
    }
}

static void
test_estimate(void **state)
{
    (void)state;
    struct gen_opts o = {.hosts = 4, .trials = 2, .scenarios = 2};
    struct plan *p = gen_load(&o); /* s0 10 s, s1 20 s, warmup 1 s each */
    struct schedule *s = sched(p);
    assert_int_equal(schedule_base_round_count(s), 6);
    /* ssh hosts: each opened, then every round with the ssh setup */
    double want = 4 * PLAN_OPEN_SSH_S + 6.0 * 2 * (10 + 1 + PLAN_SETUP_SSH_S) +
                  6.0 * 2 * (20 + 1 + PLAN_SETUP_SSH_S);
    assert_true(fabs(schedule_estimate_s(s) - want) < 1e-9);
    assert_true(schedule_round_ssh(s, 0));
    assert_true(schedule_round_estimate_s(s, 0) == 10 + 1 + PLAN_SETUP_SSH_S);
    assert_true(schedule_open_estimate_s(s) == 4 * PLAN_OPEN_SSH_S);
    char buf[32];
    assert_string_equal(schedule_format_duration(3723, buf, sizeof buf), "1h 02m 03s");
    assert_string_equal(schedule_format_duration(245, buf, sizeof buf), "4m 05s");
    assert_string_equal(schedule_format_duration(12, buf, sizeof buf), "12 s");
    schedule_free(s);
    plan_free(p);
}

/* --- sweeps: each value its own scenario, trials and place in the schedule ------------------ */

static struct plan *
sweep_plan(size_t hosts, bool shuffled)
{
    char text[4096];
    size_t n = (size_t)snprintf(text, sizeof text, "name: sweep\nhosts:\n");
    for (size_t i = 0; i < hosts; i++)
        n += (size_t)snprintf(text + n, sizeof text - n,
                              "  - {name: h%zu, address: 192.0.2.%zu, zone: z%zu}\n", i, i + 1,
                              i % 3);
    snprintf(
        text + n, sizeof text - n,
        "scenarios:\n"
        "  - {name: sizes, test: tcp_stream, msg_size: [64, 1K, 16K], duration: 2s, warmup: 1s}\n"
        "  - {name: plain, test: tcp_rr, duration: 3s, warmup: 1s}\n"
        "  - {name: streams, test: tcp_stream, streams: [1, 4], duration: 4s, warmup: 1s}\n"
        "trials: 3\norder: %s\nseed: 7\n",
        shuffled ? "shuffled" : "sequential");
    struct diags *d = diags_new();
    struct plan *p = NULL;
    if (plan_load_buffer("sweep.yaml", text, strlen(text), &p, d) != 0) {
        diags_write(d, stderr);
        fail_msg("sweep plan does not load:\n%s", text);
    }
    diags_free(d);
    return p;
}

static void
test_sweep_schedule(void **state)
{
    (void)state;
    static const double sizes[] = {64, 1024, 16384}, streams[] = {1, 4};
    for (size_t hosts = 2; hosts <= 9; hosts++) {
        for (int shuffled = 0; shuffled < 2; shuffled++) {
            struct plan *p = sweep_plan(hosts, shuffled);
            /* the scenarios as run: 3 values of sizes, plain, 2 values of streams */
            assert_int_equal(plan_scenario_count(p), 6);
            for (size_t i = 0; i < 3; i++) {
                const struct plan_scenario *sc = plan_scenario(p, i);
                assert_true(plan_scenario_swept(sc));
                assert_int_equal(sc->sweep.param, TESTSPEC_P_MSG_SIZE);
                assert_int_equal(sc->sweep.index, i);
                assert_int_equal(sc->msg_size, (uint64_t)sizes[i]);
                assert_true(sc->spec.v[TESTSPEC_P_MSG_SIZE] == sizes[i]);
                assert_true(plan_scenario_value(sc) == sizes[i]);
                assert_int_equal(plan_scenario_find(p, "sizes", TESTSPEC_P_MSG_SIZE, sizes[i]),
                                 (long)i);
            }
            assert_false(plan_scenario_swept(plan_scenario(p, 3)));
            assert_int_equal(plan_scenario_find(p, "plain", -1, 0), 3);
            assert_int_equal(plan_scenario_find(p, "sizes", -1, 0), -1);
            assert_int_equal(plan_scenario_find(p, "sizes", TESTSPEC_P_MSG_SIZE, 100), -1);
            assert_int_equal(plan_scenario_find(p, "sizes", TESTSPEC_P_STREAMS, 64), -1);
            for (size_t i = 0; i < 2; i++)
                assert_int_equal(plan_scenario(p, 4 + i)->streams, (unsigned)streams[i]);
            char label[128];
            assert_string_equal(plan_scenario_label(plan_scenario(p, 1), label, sizeof label),
                                "sizes msg_size 1K");
            assert_string_equal(plan_scenario_label(plan_scenario(p, 3), label, sizeof label),
                                "plain");
            struct schedule *s = sched(p);
            /* every value x trial x pair exactly once, no host twice in a round, a pair's
             * trials of a value never back to back */
            check_schedule(p, s, want_all, NULL);
            size_t np = hosts * (hosts - 1);
            assert_int_equal(schedule_test_count(s), 6 * 3 * np);
            assert_int_equal(plan_test_count(p), 6 * 3 * np);
            /* each pass is one value and trial, trial-major: every value's trial 1 first */
            assert_int_equal(schedule_pass_count(s), 18);
            for (size_t k = 0; k < 18; k++) {
                assert_int_equal(schedule_pass_scenario(s, k), k % 6);
                assert_int_equal(schedule_pass_trial(s, k), k / 6 + 1);
            }
            /* the estimate counts every value: per pass its base rounds at its duration */
            size_t base = schedule_base_round_count(s);
            double want = (double)hosts * PLAN_OPEN_SSH_S +
                          3.0 * (double)base *
                              (3 * (2 + 1 + PLAN_SETUP_SSH_S) + (3 + 1 + PLAN_SETUP_SSH_S) +
                               2 * (4 + 1 + PLAN_SETUP_SSH_S));
            assert_true(fabs(schedule_estimate_s(s) - want) < 1e-6);
            schedule_free(s);
            plan_free(p);
        }
    }
}

/* The dry run shows a sweep as written: its values, the trials of each, its tests; each round
 * names its value; --json lists the scenario once with its list. */
static void
test_sweep_dry_run(void **state)
{
    (void)state;
    struct plan *p = sweep_plan(3, false);
    struct schedule *s = sched(p);
    char *text = NULL, *json = NULL;
    size_t tlen = 0, jlen = 0;
    FILE *f = open_memstream(&text, &tlen);
    assert_int_equal(schedule_write_text(s, f, NULL), 0);
    fclose(f);
    f = open_memstream(&json, &jlen);
    assert_int_equal(schedule_write_json(s, f, NULL), 0);
    fclose(f);
    assert_non_null(strstr(text, "scenario sizes: tcp_stream, 2 s + 1 s warmup, a sweep of "
                                 "msg_size over 3 values (nsperf -c HOST --test tcp_stream -t 2 "
                                 "--warmup 1 -l 64|1K|16K)\n"
                                 "  each value 3 trials over each of the 6 pairs: 54 tests\n"));
    assert_non_null(strstr(text, "scenario plain: tcp_rr, 3 s + 1 s warmup, 3 trials"));
    assert_non_null(strstr(text, ": sizes msg_size 16K, trial 1 of 3"));
    assert_non_null(strstr(text, ": streams streams 4, trial 3 of 3"));
    assert_non_null(strstr(text, "\n108 tests in "));
    assert_non_null(strstr(json, "\"msg_size\":[64,1024,16384]"));
    assert_non_null(strstr(json, "\"sweep\":{\"param\":\"msg_size\",\"values\":[64,1024,16384],"
                                 "\"tests\":54,\"tests_max\":54,\"runs\":[{\"value\":64,"
                                 "\"nsperf_args\":[\"--test\",\"tcp_stream\",\"-t\",\"2\","
                                 "\"--warmup\",\"1\",\"-l\",\"64\"]}"));
    assert_non_null(strstr(json, "\"scenario\":\"sizes\",\"value\":1024,\"trial\":1"));
    /* the scenarios as written: three, not six */
    size_t names = 0;
    for (const char *q = json; (q = strstr(q, "\"nsperf_args\"")) != NULL; q++)
        names++;
    assert_int_equal(names, 3 + 2 + 1); /* a run per value, and plain's own */
    free(text);
    free(json);
    schedule_free(s);
    plan_free(p);
}

/* --- adaptive trials: the passes after the fixed part, and the rounds of a pass -------------- */

static void
test_adaptive_passes(void **state)
{
    (void)state;
    struct gen_opts o = {
        .hosts = 4, .scenarios = 2, .trials_text = "{min: 2, max: 4, target_ci: 1%}"};
    struct plan *p = gen_load(&o); /* s0 10 s, s1 20 s */
    struct schedule *s = sched(p);
    /* the fixed part is the schedule of trials 1..min: what a fixed count of 2 gives */
    check_schedule(p, s, want_all, NULL);
    assert_int_equal(schedule_fixed_pass_count(s), 4);
    assert_int_equal(schedule_pass_count(s), 8);
    assert_int_equal(schedule_round_count(s), 4 * 6);
    const uint32_t sc[] = {0, 1, 0, 1, 0, 1, 0, 1}, tr[] = {1, 1, 2, 2, 3, 3, 4, 4};
    for (size_t k = 0; k < 8; k++)
        assert_true(schedule_pass_scenario(s, k) == sc[k] && schedule_pass_trial(s, k) == tr[k]);
    assert_int_equal(schedule_test_count(s), 12 * 4);
    assert_int_equal(schedule_test_count_max(s), 12 * 8);
    /* ssh hosts: opened once, then every round of a pass with the ssh setup, the fixed part's
     * and the adaptive passes' alike */
    double one = 6.0 * (10 + 1 + PLAN_SETUP_SSH_S) + 6.0 * (20 + 1 + PLAN_SETUP_SSH_S);
    double open = 4 * PLAN_OPEN_SSH_S;
    assert_true(fabs(schedule_estimate_s(s) - (open + 2 * one)) < 1e-9);
    assert_true(fabs(schedule_estimate_max_s(s) - (open + 4 * one)) < 1e-9);
    assert_true(fabs(schedule_pass_estimate_s(s, 4) - 6.0 * (10 + 1 + PLAN_SETUP_SSH_S)) < 1e-9);
    assert_true(schedule_pass_round_estimate_s(s, 5, true) == 20 + 1 + PLAN_SETUP_SSH_S);
    assert_true(schedule_pass_round_estimate_s(s, 5, false) == 20 + 1 + PLAN_SETUP_LOCAL_S);
    struct schedule_test t;
    schedule_round_test(s, 0, 0, &t);
    assert_true(schedule_tests_ssh(s, &t, 1) && !schedule_tests_ssh(s, &t, 0));
    schedule_free(s);
    plan_free(p);
}

/* Whether test t is one of prev. */
static bool
test_in(const struct schedule_test *t, const struct schedule_test *prev, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (prev[i].src == t->src && prev[i].dst == t->dst && prev[i].scenario == t->scenario)
            return true;
    return false;
}

/* The rounds of a pass for the pairs given: each of them once with its trial number, no host
 * twice in a round (one test a round when not parallel), at most one round more than the base
 * rounds, and a pair that ran just before kept out of the first round when another can open
 * it. */
static void
check_pass_rounds(const struct schedule *s, size_t k, const uint32_t *trial,
                  const struct schedule_test *prev, size_t nprev, bool parallel)
{
    size_t np = schedule_pair_count(s), want = 0, fresh = 0;
    struct schedule_rounds r;
    assert_int_equal(schedule_pass_rounds(s, k, trial, prev, nprev, &r, NULL), 0);
    unsigned *seen = calloc(np, sizeof *seen);
    assert_non_null(seen);
    for (size_t i = 0; i < np; i++) {
        uint32_t a, b;
        schedule_pair(s, i, &a, &b);
        struct schedule_test t = {a, b, schedule_pass_scenario(s, k), 0};
        want += trial[i] > 0;
        fresh += trial[i] > 0 && !test_in(&t, prev, nprev);
    }
    assert_int_equal(r.ntests, want);
    assert_true(r.nrounds <= schedule_base_round_count(s) + 1);
    for (size_t ri = 0; ri < r.nrounds; ri++) {
        assert_true(r.start[ri + 1] > r.start[ri]);
        assert_true(parallel || r.start[ri + 1] - r.start[ri] == 1);
        for (size_t x = r.start[ri]; x < r.start[ri + 1]; x++) {
            const struct schedule_test *t = &r.tests[x];
            assert_int_equal(t->scenario, schedule_pass_scenario(s, k));
            assert_false(ri == 0 && fresh > 0 && test_in(t, prev, nprev));
            for (size_t y = r.start[ri]; y < x; y++)
                assert_false(r.tests[y].src == t->src || r.tests[y].src == t->dst ||
                             r.tests[y].dst == t->src || r.tests[y].dst == t->dst);
            for (size_t i = 0; i < np; i++) {
                uint32_t a, b;
                schedule_pair(s, i, &a, &b);
                if (a == t->src && b == t->dst) {
                    assert_int_equal(t->trial, trial[i]);
                    seen[i]++;
                }
            }
        }
    }
    for (size_t i = 0; i < np; i++)
        assert_int_equal(seen[i], trial[i] > 0);
    free(seen);
    schedule_rounds_release(&r);
}

static void
test_pass_rounds(void **state)
{
    (void)state;
    for (size_t n = 2; n <= 9; n++) {
        for (int par = 0; par < 2; par++) {
            struct gen_opts o = {.hosts = n,
                                 .sequential_only = par == 0,
                                 .shuffled = n % 2 == 0,
                                 .seed = n,
                                 .trials_text = "{min: 2, max: 6, target_ci: 2%}"};
            struct plan *p = gen_load(&o);
            struct schedule *s = sched(p);
            size_t np = schedule_pair_count(s), k = schedule_fixed_pass_count(s);
            uint32_t *trial = calloc(np, sizeof *trial);
            assert_non_null(trial);
            /* every pair with the pass's trial, nothing before: the fixed layout */
            for (size_t i = 0; i < np; i++)
                trial[i] = schedule_pass_trial(s, k);
            struct schedule_rounds r;
            assert_int_equal(schedule_pass_rounds(s, k, trial, NULL, 0, &r, NULL), 0);
            assert_int_equal(r.nrounds, schedule_base_round_count(s));
            check_pass_rounds(s, k, trial, NULL, 0, par == 1);
            /* the last round of the fixed part just ran: its pairs go later */
            size_t last = schedule_round_count(s) - 1, nprev = schedule_round_size(s, last);
            struct schedule_test prev[8];
            for (size_t i = 0; i < nprev; i++)
                schedule_round_test(s, last, i, &prev[i]);
            check_pass_rounds(s, k, trial, prev, nprev, par == 1);
            /* subsets: pair i runs when bit i of the mask is set, a trial number of its own */
            for (uint64_t mask = 1; mask < 64; mask += 5) {
                for (size_t i = 0; i < np; i++)
                    trial[i] = (mask >> (i % 6) & 1) ? (uint32_t)(3 + i % 4) : 0;
                check_pass_rounds(s, k + 1, trial, prev, nprev, par == 1);
            }
            schedule_rounds_release(&r);
            free(trial);
            schedule_free(s);
            plan_free(p);
        }
    }
}

static void
test_large(void **state)
{
    (void)state;
    struct gen_opts o = {.hosts = 201, .shuffled = true, .seed = 5};
    struct plan *p = gen_load(&o);
    struct schedule *s = sched(p);
    assert_int_equal(schedule_base_round_count(s), 2 * 201);
    check_schedule(p, s, want_all, NULL);
    schedule_free(s);
    plan_free(p);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_all_pairs_every_n),
        cmocka_unit_test(test_even_rounds_are_full),
        cmocka_unit_test(test_one_at_a_time),
        cmocka_unit_test(test_deterministic_and_shuffled),
        cmocka_unit_test(test_pinned_shuffle),
        cmocka_unit_test(test_zone_selections),
        cmocka_unit_test(test_same_zone_is_per_zone_circle),
        cmocka_unit_test(test_explicit_pairs),
        cmocka_unit_test(test_estimate),
        cmocka_unit_test(test_adaptive_passes),
        cmocka_unit_test(test_pass_rounds),
        cmocka_unit_test(test_large),
        cmocka_unit_test(test_sweep_schedule),
        cmocka_unit_test(test_sweep_dry_run),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
