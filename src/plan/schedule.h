/* schedule.h - the order in which a plan's tests run.
 *
 * A schedule is a list of rounds. The tests of a round run at the same time; with
 * `parallel: true` they involve disjoint hosts (a host is in one test at a time), with
 * `parallel: false` each round holds one test. Every test of a round belongs to the same
 * scenario and trial, so a round lasts warmup + duration (+ setup).
 *
 * How it is built (deterministic for a plan and its seed):
 *  1. The selected ordered pairs are coloured into "base rounds" of disjoint pairs: candidate
 *     pairs are taken in the order of the circle method (round robin; N even: N-1 perfect
 *     matchings, N odd: N matchings with one host idle each) - first every pair as
 *     (earlier host in the plan -> later), then reversed - and each goes into the first base
 *     round where both hosts are free (first fit). For `pairs: all` this reproduces the
 *     circle method exactly: 2(N-1) base rounds for even N, 2N for odd N (half with
 *     `directions: one`). For any subset (cross-zone, same-zone, explicit) it never needs
 *     more rounds than that, and never more than 2D-1 where D is the largest number of
 *     selected pairs one host takes part in (D itself is the lower bound).
 *  2. The survey is a sequence of passes, one per (trial, scenario), trial-major: trial 1 of
 *     every scenario, then trial 2, ... Each pass runs all base rounds, so the trials of a
 *     pair are a whole pass or more apart instead of back to back. Adaptive trials
 *     (`trials: {min, max, target_ci}`) have their first min passes in this fixed part; their
 *     passes min+1..max come after the whole fixed part (trial-major again), and which pairs
 *     run in each is decided when it starts (survey/run.c, common/trials.h):
 *     schedule_pass_rounds lays out those pairs alone, in the pass's order, first fit into
 *     rounds of disjoint pairs (at most one round more than the pass's base rounds), a pair
 *     that ran in the round just before kept out of the first round when another can open it.
 *  3. `order: shuffled` permutes the hosts before step 1, permutes the base rounds, and starts
 *     each pass at a different rotation of that order, all from `seed` (splitmix64, so the
 *     same on every platform); the tests are the same as with `sequential`, in another order.
 *
 * Memory is O(selected pairs + passes); rounds are not materialised per pass. The flat round
 * list (schedule_round_*) is the fixed part; schedule_pass_* see every pass. */
#ifndef NS_SCHEDULE_H
#define NS_SCHEDULE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct err;
struct plan;
struct plan_host;
struct schedule;

/* One test: host and scenario indexes into the plan, trial 1-based. */
struct schedule_test {
    uint32_t src;
    uint32_t dst;
    uint32_t scenario;
    uint32_t trial;
};

/* Build the schedule of a valid plan. p is borrowed and must outlive the schedule.
 * Returns 0 (*out owned by the caller) or NS_ENOMEM. */
int schedule_new(const struct plan *p, struct schedule **out, struct err *e);

/* schedule_free(NULL) is safe. */
void schedule_free(struct schedule *s);

/* The plan the schedule was built from (borrowed). */
const struct plan *schedule_plan(const struct schedule *s);

size_t schedule_round_count(const struct schedule *s);
size_t schedule_round_size(const struct schedule *s, size_t round);

/* The i-th test (0 <= i < round size) of a round. */
void schedule_round_test(const struct schedule *s, size_t round, size_t i,
                         struct schedule_test *out);

/* Scenario index and trial (1-based) that every test of the round runs. */
uint32_t schedule_round_scenario(const struct schedule *s, size_t round);
uint32_t schedule_round_trial(const struct schedule *s, size_t round);

/* Whether a test of the round has an ssh host (else all are local). */
bool schedule_round_ssh(const struct schedule *s, size_t round);

/* Estimated seconds of the round: warmup + duration + the setup of its transport
 * (PLAN_SETUP_SSH_S when it has an ssh host, else PLAN_SETUP_LOCAL_S). */
double schedule_round_estimate_s(const struct schedule *s, size_t round);

/* Estimated seconds to open the hosts before the first round (one after the other). */
double schedule_open_estimate_s(const struct schedule *s);

/* The i-th distinct ordered pair (0 <= i < schedule_pair_count), host indexes into the plan. */
void schedule_pair(const struct schedule *s, size_t i, uint32_t *src, uint32_t *dst);

/* Rounds per pass (the base rounds), distinct ordered pairs, the tests of the fixed part and
 * their estimated seconds (the hosts opened, then every round of the fixed part). Without
 * adaptive trials the fixed part is the whole survey. */
size_t schedule_base_round_count(const struct schedule *s);
size_t schedule_pair_count(const struct schedule *s);
uint64_t schedule_test_count(const struct schedule *s);
double schedule_estimate_s(const struct schedule *s);
/* The most tests and seconds there may be: every adaptive pass with every pair in it (the
 * seconds as schedule_estimate_s counts them: the hosts opened, each round's setup by its
 * transport). */
uint64_t schedule_test_count_max(const struct schedule *s);
double schedule_estimate_max_s(const struct schedule *s);

/* --- passes ------------------------------------------------------------------------------ */

/* All passes, fixed and adaptive, in run order; the first schedule_fixed_pass_count of them
 * are the fixed part (pass k's rounds are the flat rounds k x base .. (k+1) x base - 1). */
size_t schedule_pass_count(const struct schedule *s);
size_t schedule_fixed_pass_count(const struct schedule *s);
uint32_t schedule_pass_scenario(const struct schedule *s, size_t k);
/* The trial number a pair takes in pass k when none of its trials failed. */
uint32_t schedule_pass_trial(const struct schedule *s, size_t k);
/* Estimated seconds of one round of pass k: warmup + duration + the setup of its transport
 * (ssh: the round has a test with an ssh host, as schedule_tests_ssh says). */
double schedule_pass_round_estimate_s(const struct schedule *s, size_t k, bool ssh);
/* Estimated seconds of pass k with every pair in it: its base rounds, each with the setup of
 * its own transport (what schedule_estimate_max_s counts for it). */
double schedule_pass_estimate_s(const struct schedule *s, size_t k);
/* Whether one of the n tests has an ssh host (a round of them has an ssh setup). */
bool schedule_tests_ssh(const struct schedule *s, const struct schedule_test *t, size_t n);

/* The rounds of one pass as laid out for the pairs that run in it: round r is
 * tests[start[r] .. start[r + 1]). */
struct schedule_rounds {
    struct schedule_test *tests;
    size_t ntests;
    size_t *start; /* nrounds + 1 */
    size_t nrounds;
};

/* Lay out pass k for the pairs that run in it: trial[i] is the trial number pair i (0 <= i <
 * schedule_pair_count) takes, 0 when it does not run. When every pair runs with the pass's own
 * trial number and none of them opened the round before, these are the pass's rounds of the
 * fixed schedule. Otherwise the pairs that run, in the order of the pass's base rounds, go
 * first fit into rounds of disjoint pairs (one test a round when not parallel): at most one
 * round more than the pass's base rounds (a pair of the round before waits behind the others,
 * which fit in the base rounds), and a pair that is in prev (the tests of the round run
 * just before, nprev of them; NULL/0: none; only tests of the pass's scenario matter) is kept
 * out of the first round when a pair not in prev runs too - so that a pair's trials are back
 * to back only when nothing else is left to run first. Returns 0 (*out to release with
 * schedule_rounds_release) or NS_ENOMEM. */
int schedule_pass_rounds(const struct schedule *s, size_t k, const uint32_t *trial,
                         const struct schedule_test *prev, size_t nprev,
                         struct schedule_rounds *out, struct err *e);
void schedule_rounds_release(struct schedule_rounds *r);

/* The dry run as text: a header, every round with its tests, the totals. Returns 0 or
 * NS_EIO (write error on out). */
int schedule_write_text(const struct schedule *s, FILE *out, struct err *e);

/* The dry run as one JSON document: {"plan":{...settings},"hosts":[{name, address,
 * data_address, zone, region, zone_id, transport, labels, ssh{...}}, ...] (every host alike,
 * whether written in the plan or imported), "hosts_from":[{"file", "path", "format", "sha256",
 * "hosts":[names], "skipped":[{"name", "state"}], "replaced":[names]}, ...], "scenarios":[...],
 * "rounds":[[{"src":..,"dst":..,"scenario":..,"trial":..},..],..] (the fixed part),"tests":N,
 * "tests_max":M,"estimated_s":S,"estimated_max_s":X,"open_hosts_s":T,
 * "setup_s":{"local":L,"ssh":S}} (tests_max and estimated_max_s: with every adaptive pass
 * run by every pair; equal to tests and estimated_s without adaptive trials). Returns 0 or
 * NS_EIO. */
int schedule_write_json(const struct schedule *s, FILE *out, struct err *e);

/* What the JSON of an ssh host gains from outside the plan module (the ssh config is read by
 * the transport, which the plan does not know): ssh_resolved(ctx, host) returns one JSON value as
 * malloc'd text, written as the host's "ssh":{"resolved":...}; NULL writes nothing. */
struct schedule_json_extra {
    char *(*ssh_resolved)(void *ctx, const struct plan_host *h);
    void *ctx;
};

/* schedule_write_json with x (NULL: none). */
int schedule_write_json_extra(const struct schedule *s, FILE *out,
                              const struct schedule_json_extra *x, struct err *e);

/* "1h 02m 03s", "4m 05s", "12 s" into buf. Returns buf. */
char *schedule_format_duration(double seconds, char *buf, size_t len);

#endif
