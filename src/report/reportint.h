/* reportint.h - internals of the report module, shared by its files (not for other modules).
 *
 * The data's way: model.c loads run directories (through journal/journal.h) into a `struct rmodel`
 * (hosts, scenarios, host pairs and their deduplicated trials), aggregate.c turns it into the
 * summary (JSON, numbers with units) and the view (same shape, strings for people), tmpl.c renders
 * templates over the view, charts.c writes gnuplot scripts and runs gnuplot, render.c writes the
 * files. */
#ifndef NS_REPORTINT_H
#define NS_REPORTINT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/hostflags.h"
#include "common/testspec.h"
#include "common/trials.h"
#include "report/output.h"

struct err;
struct journal_run;

/* --- the model of one or several journals ------------------------------------------------ */

/* A trial's latency distribution, as nsperf sent it, its sparse buckets (placed in hist.h's
 * layout, ascending) packed as LEB128 varints: the index's step from the previous bucket's,
 * then the count. A 100 000-trial journal holds ~60 million buckets (1 024 per octave): most
 * steps and counts take a byte each, so ~2.3 bytes a bucket instead of 8 (tests/bench/README.md,
 * "Reports and trends"). */
struct rrtt {
    uint64_t n;
    double min_ns, max_ns, mean_ns, m2;
    uint32_t nb;          /* buckets packed (the runs form: empty ones among them) */
    uint32_t len;         /* bytes at enc */
    uint32_t hlen;        /* the runs form: the bytes of its runs' heads, before the counts */
    uint32_t first, last; /* the lowest and highest bucket index that is not empty, when n > 0 */
    bool runs;            /* enc's packing (model.c): runs, or (step, count) pairs */
    const uint8_t *enc;
};

struct rtrial {
    uint32_t n;   /* trial number, 1-based */
    uint32_t run; /* the run (rmodel.runs) that recorded it: part of the key */
    bool ok;
    bool not_run; /* recorded not run (its host refused): counted as not run, not failed */
    char *error;  /* failed, not run: the reason */
    double value; /* the headline metric (us, Mbit/s, conn/s) */
    bool has_cpu, has_retrans, has_udp;
    bool has_cpb;    /* cycles per byte, both ends (stream kinds) */
    bool has_unsent; /* udp.unsent recorded (udp_stream) */
    double cpu_local, cpu_remote, retrans, lost_pct, jitter_us;
    double cpb_local, cpb_remote; /* CPU cycles per byte moved: src's, dst's */
    double udp_sent, udp_unsent;  /* datagrams sent, and those the sender's schedule called for
                                   * and it did not send (it fell behind) */
    struct rrtt rtt;              /* n == 0 when none */
    /* Its scenario's figures beside the headline (rscen.figs), in the reports' units: nfigs
     * doubles packed in the model's blocks (read them with report_trial_fig), NAN where the result
     * lacks one; NULL for a scenario without figures or a failed trial. */
    const uint8_t *figs;
    /* What the hosts did to an ok trial (journal_trial's flags, common/hostflags.h): whether its
     * record says (judged), the flags raised (1u << enum hostflag) and their reasons,
     * "drops: ...; stall: ..." (NULL when none raised). */
    bool judged;
    uint8_t flags;
    char *flag_why;
};
_Static_assert(HOSTFLAG_COUNT <= 8, "struct rtrial's flags hold every flag");

/* A trial's i-th figure (NAN when none). */
double report_trial_fig(const struct rtrial *t, int i);

struct rhost {
    char *name;       /* as the reports show it: the host's name, with "(run k)" after it when hosts
                       * of several runs have that name and the merge keeps them apart */
    char *key_name;   /* the name its run gives it */
    uint32_t key_run; /* with key_name, the key: its run, 0 for every run with same_hosts */
    size_t run;       /* the first run that names it */
    char *zone, *region, *addr;
    const json_t *env; /* borrowed from the run.json that named the host, or NULL */
    /* The physical zone (run.json's zone_id, else env.cloud.zone_id) and the run's warning
     * that the plan's place differs from the metadata's; borrowed like env, NULL when none. */
    const char *zone_id, *zone_warning;
    const char *arch; /* its `uname -m`: run.json's arch, else env.machine; borrowed, or NULL */
    int zone_idx;
};

struct rzone {
    char *region, *zone, *label;
    int region_idx;
};

/* What one run planned of a scenario. */
struct rscen_run {
    bool named; /* the run's run.json names the scenario */
    /* an earlier revision of the run's plan ran it (rscen.revision): it plans nothing more, and
     * a host pair planned the trials it recorded */
    bool superseded;
    uint32_t trials; /* trials per host pair (adaptive: its min, what every pair runs at least) */
    struct trials_policy policy; /* as run.json says (fixed: trials_fixed(trials)) */
    uint64_t planned; /* trials over all its host pairs, as run.json says (adaptive: min x pairs) */
    uint64_t pairs;   /* host pairs run.json planned (adaptive runs only) */
    uint64_t seen;    /* trials planned of the host pairs it recorded (rpair.planned's part) */
    uint64_t seen_pairs; /* those host pairs */
    uint64_t undecided;  /* of them, those whose adaptive rule has not decided (report_plan_pair) */
    uint64_t ok, failed;
};
/* Adaptive: planned host pairs of which nothing is known (no record, no family), each
 * undecided and planned at least min trials. */
static inline uint64_t
rscen_run_unseen_pairs(const struct rscen_run *r)
{
    return trials_adaptive(&r->policy) && r->pairs > r->seen_pairs ? r->pairs - r->seen_pairs : 0;
}
/* What a run planned of a scenario, all told: run.json's count, or more when it recorded more;
 * adaptive: what its pairs' rule decided, the least it takes for the undecided ones. */
static inline uint64_t
rscen_run_planned(const struct rscen_run *r)
{
    if (trials_adaptive(&r->policy))
        return r->seen + rscen_run_unseen_pairs(r) * r->policy.min;
    return r->planned > r->seen ? r->planned : r->seen;
}
/* Host pairs of the run's adaptive scenario that its rule has not decided. */
static inline uint64_t
rscen_run_undecided(const struct rscen_run *r)
{
    return r->undecided + rscen_run_unseen_pairs(r);
}

/* The most figures a scenario reports beside its headline (testspec.h's metrics that a kind
 * reports and its parameters make: a load's idle RTT and throughput, --bidir's directions). */
#define RFIG_MAX 4

struct rscen {
    char *name, *test;
    enum testspec_kind kind;
    bool reverse;
    enum testspec_metric figs[RFIG_MAX]; /* its figures beside the headline, in table order */
    int nfigs;
    struct testspec_values spec; /* its parameters as recorded (journal_scenario_spec) */
    json_t *def;                 /* the scenario object of the first run that named it (owned) */
    int def_run;                 /* that run (-1: no run.json names it; def is a record's) */
    struct rscen_run *runs;      /* one per run of the model */
    /* trials per pair as the first run that names it adaptive planned them (else fixed, zero):
     * what the reports' note on adaptive trials says */
    struct trials_policy policy;
    /* A value of a sweep (journal/record.h: scenario.sweep): each value of a scenario's sweep is
     * a scenario of its own here, of the same name, its def holding the value; a scenario is
     * its name, whether it is swept, and which value. */
    bool swept;
    enum testspec_param sweep;
    double value;
    /* 0: the scenario of the runs' current plans; k: revision k of a run's plan ran it, with
     * parameters a later revision (run --resume --force) changed: its name is "NAME (revision
     * k)" and its trials are reported apart, as they ran */
    uint32_t revision;
    uint32_t revised_to; /* then: the run's revision that replaced it */
};

struct rpair {
    int scen, src, dst, family; /* family: 0 ipv4, 1 ipv6 */
    struct rtrial *t;           /* sorted by (run, trial number) after loading */
    size_t nt, capt;
    uint64_t planned;    /* its trials planned: per run that recorded or planned it, that
                          * run's trials (more when it recorded more) */
    uint32_t nruns;      /* runs that recorded it */
    uint64_t *plan_only; /* bitset of the runs that planned it (run.json's pairs) and recorded
                          * none of its trials; NULL when none */
    /* adaptive runs of it, by how their rule stands (report_plan_pair): target met, max reached,
     * undecided (its planned count is then the least it takes) */
    uint32_t runs_met, runs_max, runs_undecided;
};

/* How many trials a run planned of one host pair. Fixed: the scenario's count (more when it
 * recorded more). Adaptive: what the rule (common/trials.h) decided over the run's ok trials
 * 1..max, as the runner decides: a pair that met its target or reached max planned the trials
 * it ran; one the rule has not decided (fewer than min ok trials, or the target not met below
 * max) planned at least what it ran and the trials it still takes: min's remainder, or one. */
enum rplan_how { RPLAN_FIXED, RPLAN_MET, RPLAN_MAX, RPLAN_UNDECIDED };
struct rplan {
    uint64_t planned;
    enum rplan_how how;
    struct stats ok; /* adaptive: the ok trials' figures the rule reads, in number order */
};
/* t[0..n): the run's trials of the pair, sorted by number (none: a pair it planned only). */
void report_plan_pair(const struct rscen_run *sr, const struct rtrial *t, size_t n,
                      struct rplan *out);

/* A journal line the reports did not take, listed in them ("Journal problems"); line 0: a
 * problem of the run's run.json (no run_id), not of a line. */
struct rproblem {
    size_t run;
    unsigned long line;
    int kind; /* enum journal_skip_kind */
    char *why;
};
#define REPORT_PROBLEMS_MAX 100 /* listed per run; the rest are counted */

struct rrun {
    char *dir;
    struct journal_run *run; /* run.json (owned) */
    bool in_progress;        /* its lock is held by a live process (journal_owner) */
    long owner_pid;
    uint64_t planned, ok, failed; /* trials: planned (run.json), and recorded (distinct keys) */
    uint64_t undecided;           /* host pairs of adaptive scenarios their rule left undecided */
    int *host_idx;                /* the model's host of each of run.json's hosts */
    size_t problems_more;         /* problems past REPORT_PROBLEMS_MAX, counted only */
};

struct rmodel {
    struct rrun *runs;
    size_t nruns, capruns; /* capruns: the directories given (every rscen.runs holds as many) */
    bool by_zone_id;       /* zones are the hosts' zone_id (report --by zone_id) */
    struct rhost *hosts;
    size_t nhosts, caphosts;
    bool same_hosts; /* a host name is one host in every run (report --same-hosts) */
    uint32_t *hidx;  /* open-addressing index of hosts by (run, name): host_key_run */
    size_t hidx_cap;
    struct rzone *zones;
    size_t nzones;
    char **regions;
    size_t nregions;
    struct rscen *scens;
    size_t nscens, capscens;
    struct rpair *pairs;
    size_t npairs, cappairs;
    /* open-addressing index of pairs by (scen, family, src, dst) */
    uint32_t *pidx;
    size_t pidx_cap;
    size_t torn_lines, skipped_lines, refused_lines; /* skipped: unreadable and invalid */
    struct rproblem *problems;                       /* in the order read */
    size_t nproblems, capproblems;
    FILE *warn;            /* where skipped journal lines are said; NULL: not said */
    bool lenient;          /* refused records are problems, not errors */
    size_t cur_run;        /* the run whose results are being read */
    struct rblock *blocks; /* where the trials' packed buckets live */
    uint64_t *sortbuf;     /* scratch: a trial's buckets, (index << 48 | count), to sort */
    size_t sortcap;
    struct journal_bucket *runbuf; /* scratch: runs that do not ascend, as buckets */
    size_t runcap;
    bool no_hist; /* the trials' buckets are not kept (rmodel_opts.no_hist) */
};

struct rmodel_opts {
    FILE *warn;           /* skipped journal lines, runs in progress; NULL: not said */
    bool lenient;         /* a refused record (journal_skip_kind) is listed, not an error */
    bool owned_by_caller; /* the caller owns the run directory (netsurvey run rendering its own
                           * run): its lock says nothing of the run */
    /* Without the trials' histograms: every figure but the latency percentiles is the same, at
     * a fraction of the memory and time (what a trend reads of each of its runs). */
    bool no_hist;
    /* The zones are the hosts' physical zones (zone_id: report --by zone_id); NS_EINVAL,
     * naming them, when some host has none. */
    bool by_zone_id;
    /* A host name is one host in every run: its trials of all runs are one host's, its pairs
     * pooled (a plan surveyed twice). NS_EINVAL, naming it, when a name is in another region,
     * zone, zone id or at another address in another run. Without it, each run's hosts are
     * its own, and a name several runs give is shown with its run ("a1 (run 2)"). */
    bool same_hosts;
};

/* Load the run directories (each holding run.json and results.jsonl). A line that is not a
 * trial record is skipped, counted and listed, with a warning to o->warn; a record the journal
 * refuses (another schema version, an unknown status, another run's) is an error unless
 * o->lenient. Two runs that give one scenario name different parameters are an error, and so
 * is one run given twice (one run_id: its trials would count twice). Returns 0
 * or NS_E*; *out is freed with report_model_free. */
int report_model_load_with(const char *const *dirs, int ndirs, const struct rmodel_opts *o,
                           struct rmodel **out, struct err *e);
/* report_model_load_with, strict, warnings to warn. */
int report_model_load(const char *const *dirs, int ndirs, FILE *warn, struct rmodel **out,
                      struct err *e);
void report_model_free(struct rmodel *m);

/* "torn", "unreadable", "refused", "invalid": a problem's kind (enum journal_skip_kind) in the
 * reports. */
const char *report_problem_kind_name(int kind);

/* Merge a trial's buckets into a dense scratch histogram (struct hist). */
struct hist;
void report_rtt_merge_into(struct hist *h, const struct rrtt *r);

/* --- statistics over the model ----------------------------------------------------------- */
#define REPORT_CV_THRESHOLD 0.10 /* a cell whose trials vary more than 10 % is flagged */

/* Percentiles read from merged histograms: common/histjson.h's histjson_pcts, in its order
 * (also the table's columns). */

/* Whether a run is complete: no process holds it, every planned trial has a record and no host
 * pair of adaptive trials is undecided. */
bool report_run_complete(const struct rrun *r);
/* Whether one of m's runs is still going, or not complete. */
void report_completeness(const struct rmodel *m, bool *in_progress, bool *incomplete);

/* A figure's caption from its scenario's view: "latency, mean RTT (µs), ipv4; src requests, dst
 * responds" (the scenario, what the figure shows and the one unit it is in, its family and which
 * way data flows). New reference. */
json_t *report_fig_caption(const json_t *sview, const char *words, const char *unit);

/* Build summary (numbers) and view (strings for the templates) of m. New references. */
int report_aggregate(const struct rmodel *m, json_t **summary, json_t **view, struct err *e);
/* The summary's head and, per scenario and family, its own members, trial counts and zone
 * cells, as report_aggregate computes them; no host pairs, failures, region cells, stat
 * matrices or asymmetry (matrixstat.h), or view (a
 * trend of many runs reads nothing else, and building those is most of report_aggregate's
 * time). New reference in *summary. */
int report_aggregate_cells(const struct rmodel *m, json_t **summary, struct err *e);
/* report_aggregate's summary with each zone and region cell's merged RTT histogram kept in its
 * rtt_us, as "hist" in common/histjson.h's buckets form (report_summary_hists_read). */
int report_aggregate_hists(const struct rmodel *m, json_t **summary, struct err *e);

/* The name of a scenario's matrix CSV, the one place it is spelled: "matrix-<file_key>.csv",
 * or with a suffix (a stat matrix's key, or REPORT_MATRIX_REGIONS)
 * "matrix-<file_key>-<suffix>.csv". snprintf's return value. */
#define REPORT_MATRIX_REGIONS "regions"
int report_matrix_file(char *buf, size_t len, const char *file_key, const char *suffix);
/* The top-left field of a matrix CSV: "src\dst (us)", the unit its numbers are in (the
 * summary's, machine-readable: testspec_metric_unit's, whatever unit the report shows them in). */
void report_csv_corner(struct rbuf *b, const char *unit);

/* The unit a figure is printed in: the summary's unit divided by div. */
struct report_unit {
    const char *name;
    double div;
};
/* The unit for values up to max of a kind's headline metric (in the reports' unit): the one
 * testspec_scale_for gives that metric at max (common/testspec.h's scales); one for a whole
 * figure (terminal.c's matrices, sweep.c's curves). */
struct report_unit report_unit_for(const char *test, double max);

/* Write charts/<name>.{dat,gp} for every scenario of view and run gnuplot on each (timeout
 * per script). Adds "charts" (file names and captions) to view and sets "charts_note"; a chart
 * gnuplot could not draw is also a line on warn (when not NULL). */
int report_charts(const char *outdir, const json_t *summary, json_t *view, FILE *warn,
                  struct err *e);

/* The zone matrix of every scenario of summary sum as text for a terminal (terminal.c): what
 * report_opts.matrices asks for. */
void report_matrices_write(const json_t *sum, FILE *out);

#endif
