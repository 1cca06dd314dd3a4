/* record.h - the journal's one definition: the names of its files, its schema strings and caps,
 * the trial record and run.json as C structs, their one writer (to JSON) and their one reader.
 * The manual page netsurvey-journal(5) is the specification; this header is its code, and no
 * other module names a record field: survey writes through journal_trial_json and
 * journal_run_json, report and survey's resume read through journal/journal.h.
 *
 * Reading follows the same rules for every reader, as netsurvey-journal(5) describes: a field of
 * the wrong type reads as absent (NULL, 0, has_* false); a line is passed over when it is not JSON,
 * not a trial record (no netsurvey.trial/ schema) or names a test kind testspec.h does not know;
 * a trial record this reader must not take (another schema version, a status that is neither
 * ok nor failed, another run's run_id) is refused, and its reader's caller decides whether that
 * stops the reading (journal/journal.h). */
#ifndef NS_JOURNAL_RECORD_H
#define NS_JOURNAL_RECORD_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/hostflags.h"
#include "common/testspec.h"
#include "common/trials.h"

struct err;

#define JOURNAL_RUN_FILE "run.json"
#define JOURNAL_RESULTS_FILE "results.jsonl"
/* The run directory's lock: `netsurvey run` holds an exclusive flock(2) on it while it owns the
 * directory (journal/journal.h: journal_owner); the file holds the owner's PID. */
#define JOURNAL_LOCK_FILE ".lock"
#define JOURNAL_RUN_SCHEMA "netsurvey.run/2"
/* Version 3: a run whose plan a resume with --force changed (struct journal_run's revision and
 * revisions): its plan, hosts, scenarios and pairs are the newest revision's, the earlier ones
 * are kept beside them, and a reader of version 2 would file the earlier revisions' trials
 * under the newest's parameters: it refuses the run by its schema instead. Written only for a
 * revised run; a run of one revision is still version 2. */
#define JOURNAL_RUN_SCHEMA_3 "netsurvey.run/3"
/* Version 3: the result's histogram may be in the runs form (common/histjson.h), which a reader
 * of versions 1 and 2 would not read: it refuses the record by its schema instead. */
#define JOURNAL_TRIAL_SCHEMA "netsurvey.trial/3"
/* Version 4: a trial of a plan's revision 2 or later says its revision ("revision"), which a
 * reader of version 3 would ignore; written only then, version 3 otherwise. */
#define JOURNAL_TRIAL_SCHEMA_4 "netsurvey.trial/4"
/* Version 5: a trial of a sweep (scenario.sweep: one of the scenario's values, each a trial of
 * its own under the same scenario name and trial number), which a reader of versions 1 to 4
 * would take for the same trial run again and keep one of: it refuses the record by its schema
 * instead (a revised sweep's trial says its revision too). Records of scenarios that sweep
 * nothing stay version 3 (or 4). */
#define JOURNAL_TRIAL_SCHEMA_5 "netsurvey.trial/5"
#define JOURNAL_TRIAL_SCHEMA_2 "netsurvey.trial/2"
/* The first versions, still read: their scenario parameters are the plan's as written, 0 standing
 * for nsperf's default of the version that ran (netsurvey-journal(5)); a run.json of version 1
 * has no state, no planned counts and no pairs. A version-1 run is never resumed. */
#define JOURNAL_RUN_SCHEMA_1 "netsurvey.run/1"
#define JOURNAL_TRIAL_SCHEMA_1 "netsurvey.trial/1"
/* What every version of each schema starts with: a record that has it and a version this
 * reader does not know is refused by name, never read as something it may not be. */
#define JOURNAL_RUN_SCHEMA_FAMILY "netsurvey.run/"
#define JOURNAL_TRIAL_SCHEMA_FAMILY "netsurvey.trial/"

/* Caps on what readers take in (every read has a limit). run.json holds the plan's
 * text (<= 4 MiB) and one environment per host; a trial line holds nsperf's result, which the
 * runner reads with a cap of 64 MiB; a results.jsonl past 16 GiB is a broken file. */
#define JOURNAL_RUN_MAX (64u << 20)
/* The largest figure a result may hold, in the reports' unit (us, Mbit/s, conn/s) and for its
 * other numbers (CPU %, retransmits, UDP counts, jitter us, RTT min and max us): 10^12 is 11
 * days of round trip, an exabit per second, far past anything measured, and small enough that
 * the statistics of any number of them stay finite (a mean of ±1e300 made a stddev infinite). */
#define JOURNAL_FIGURE_MAX 1e12
#define JOURNAL_LINE_MAX (128u << 20)
#define JOURNAL_RESULTS_MAX (1ull << 34)

enum journal_family { JOURNAL_IPV4, JOURNAL_IPV6 };

/* OTHER: a status that is none of "ok", "failed", "not_run" (or none); readers refuse such a
 * record. NOT_RUN: the trial was planned and never tried, for a reason that is the host's, not
 * the test's (a host refused for its changed key); the reports count it as not run and say
 * why. */
enum journal_status { JOURNAL_STATUS_OTHER, JOURNAL_OK, JOURNAL_FAILED, JOURNAL_NOT_RUN };

/* "ok", "failed", "not_run" (OTHER: NULL). */
const char *journal_status_name(enum journal_status s);

/* "ipv4", "ipv6". */
const char *journal_family_name(enum journal_family f);
/* The family of a data address: ipv6 when it holds a ':'. */
enum journal_family journal_family_of(const char *address);

/* A trial's source or destination ("src", "dst"): the host's name and placement. */
struct journal_endpoint {
    const char *host, *zone, *region, *data_address;
};

/* A scenario as recorded: every parameter that reaches nsperf, resolved (testspec.h's default
 * for the kind where the plan gave none), those that do not apply to the kind absent. kind is
 * testspec's; a reader refuses a test name testspec does not know. Reading: an absent
 * parameter is 0; a version-1 record holds the plan's values, 0 standing for nsperf's default
 * of its day. 0 is a value of its own only where testspec.h accepts it: rate_bps of tcp_stream
 * (unpaced), interval_s (no samples), window (the kernel's autotuning). */
struct journal_scenario {
    const char *name;
    const char *test; /* reading: as recorded; writing: NULL takes testspec_kind_name(kind) */
    int kind;         /* enum testspec_kind */
    uint64_t msg_size, response_size, streams;
    double duration_s, warmup_s, interval_s;
    uint64_t rate_bps;
    bool reverse;
    uint64_t window;
    /* tcp_stream: through user memory (send/recv) rather than nsperf's zero-copy path. Reading:
     * absent is true, the only path nsperf had before it recorded the choice. */
    bool copy;
    bool busy_poll; /* tcp_rr, udp_rr: spinning on the socket rather than sleeping in recv() */
    bool bidir;     /* tcp_stream, udp_stream: both directions at once */
    uint64_t packet_rate; /* udp_pps: packets/s, 0 = as fast as the sender went */
    /* tcp_rr, udp_rr under load: its streams (0: none) and direction (enum testspec_direction,
     * recorded by its name; reading: an unknown name is forward, as absent) */
    uint64_t load_streams, load_direction;
    /* A sweep's trial ("sweep": the record key of the parameter swept): the scenario runs a list
     * of values of sweep (plan.h struct plan_sweep) and this record is of the value its member
     * holds (journal_scenario_value). A trial's key holds the value. Reading: false unless
     * "sweep" names a parameter that applies to the kind and may be swept. */
    bool swept;
    enum testspec_param sweep;
    const char *sweep_key; /* reading: "sweep" as recorded (NULL: absent or no string) */
};

/* A recorded direction's enum testspec_direction: its name's, 0 (forward) for NULL or an unknown
 * name. */
uint64_t journal_direction(const char *name);

/* The record's name of a parameter of testspec.h, its record key column: "duration_s",
 * "warmup_s", "streams", "msg_size", "response_size", "rate_bps", "interval_s", "window",
 * "reverse", "copy", "busy_poll", "bidir", "packet_rate", "load_streams", "load_direction"
 * (nsperf -J's names, but "window" for its "sock_buf"); NULL out of range. */
const char *journal_param_key(enum testspec_param p);
/* The parameter whose record key is key, or -1. */
int journal_param_find(const char *key);
/* The parameter a record's "sweep" names, when it may be one of a kind's sweeps (applies to
 * kind, testspec_sweepable), else -1. */
int journal_sweep_param(const char *key, int kind);
/* A scenario's parameter p as a number (reverse, copy, busy_poll, bidir: 0 or 1; a direction:
 * its enum testspec_direction). */
double journal_scenario_value(const struct journal_scenario *sc, enum testspec_param p);
/* The member of sc that holds parameter p, typed by testspec_type(p): bool for TESTSPEC_BOOL,
 * double for TESTSPEC_DURATION, uint64_t for the others (a direction: its enum value). What the
 * readers fill. */
void *journal_scenario_field(struct journal_scenario *sc, enum testspec_param p);
/* The first parameter that applies to a's kind on which a and b disagree (TESTSPEC_PARAM_COUNT
 * when none does; -1 when their kinds differ): whether two scenarios ran the same test, names
 * aside. */
int journal_scenario_diff(const struct journal_scenario *a, const struct journal_scenario *b);
/* sc as a reader starts it: nothing recorded (kind -1, copy true as the struct says). */
void journal_scenario_absent(struct journal_scenario *sc);

/* The scenario named name that runs v (every parameter v holds, given or default: testspec's
 * values of a plan scenario). name is borrowed. */
struct journal_scenario journal_scenario_from_spec(const char *name,
                                                   const struct testspec_values *v);

/* The table's values of sc (every parameter as recorded, given or not): what testspec.h's
 * functions of a test's parameters read (testspec_metric_reported). */
void journal_scenario_spec(const struct journal_scenario *sc, struct testspec_values *v);

/* A trial record's "scenario" object (new reference; NULL when out of memory): name, test, then
 * the parameters that apply to the kind in testspec.h's order, "sweep" last for a sweep's trial;
 * run.json's adds "trials" and "planned" (and holds a sweep's list in its parameter's place). */
json_t *journal_scenario_json(const struct journal_scenario *sc);

/* One bucket of a trial's latency histogram (common/histjson.h): its lower bound and count. */
struct journal_bucket {
    uint64_t low_ns, count;
};

/* One run of a histogram in the runs form: the buckets first .. first + len - 1 of layout
 * HIST_SUB_BITS (common/hist.h), whose counts are the result's next len counts. */
struct journal_hrun {
    uint32_t first, len;
};

/* What readers take of a trial's "result", nsperf -J's result object recorded unchanged (names in
 * nsperf(1)'s JSON OUTPUT and common/histjson.h). has_* is false for a figure that is
 * absent or not a number. */
struct journal_result {
    bool present; /* "result" is an object */
    /* The headline metrics of common/testspec.h by enum testspec_metric, as nsperf wrote them:
     * the number at the metric's -J key, or its member's (TESTSPEC_M_RTT_MEAN: rtt_us's mean,
     * us, which the histogram's merge uses too). */
    bool has_metric[TESTSPEC_METRIC_COUNT];
    double metric[TESTSPEC_METRIC_COUNT];
    bool has_retransmits;
    double retransmits;
    bool has_cpu_local, has_cpu_remote;
    double cpu_local_pct, cpu_remote_pct;
    /* cpu.cycles_per_byte and cpu.remote_cycles_per_byte (stream kinds; null when unknown) */
    bool has_cpu_cpb_local, has_cpu_cpb_remote;
    double cpu_cpb_local, cpu_cpb_remote;
    bool has_udp; /* "udp" is an object */
    bool has_udp_sent, has_udp_lost, has_udp_lost_pct, has_udp_jitter;
    double udp_sent, udp_lost, udp_lost_pct, udp_jitter_us;
    /* udp.unsent: datagrams the sender's schedule called for and it did not send (its host fell
     * behind: never on the wire, so not lost) */
    bool has_udp_unsent;
    double udp_unsent;
    bool has_rtt; /* "rtt_us" is an object */
    bool has_rtt_min, has_rtt_max, has_rtt_m2;
    double rtt_min_us, rtt_max_us, rtt_m2_ns2;
    /* The histogram: in one of the two forms of common/histjson.h (hist_rtt_json_form), and
     * hist.sub_bits a layout common/hist.h reads (hist_layout_known: 11, or 7 as nsperf wrote
     * before; the runs form: 11 only), kept in hist_sub_bits (0 without a histogram).
     * - buckets form (hist_runs false): buckets holds its entries that are [lower_ns >= 0,
     *   count > 0] (integers), in order, as written (place them with hist_index_layout); others
     *   are skipped.
     * - runs form (hist_runs true): runs holds the runs as written, a run that starts where the
     *   one before ended joined to it, and counts their counts in order, zeros included, as
     *   hist_rtt_json_buckets gives them (what it skips ends a run). buckets is then empty. */
    bool has_hist, hist_runs;
    int hist_sub_bits;
    const struct journal_bucket *buckets;
    size_t nbuckets;
    const struct journal_hrun *runs;
    size_t nruns;
    const uint64_t *counts; /* the sum of the runs' len */
    size_t ncounts;
};

/* The headline figure of a result of kind (enum testspec_kind), in the reports' unit: its
 * metric's -J value over the metric's divisor (common/testspec.h: mean RTT in us, throughput in
 * Mbit/s, connections/s). What the reports' matrices show and adaptive trials decide on; false
 * when the result lacks it or kind is out of range. */
bool journal_headline(int kind, const struct journal_result *res, double *value);

/* As journal_headline for nsperf's result object (borrowed; NULL for none) as the runner holds
 * it before recording it: the same fields read the same way. */
bool journal_headline_json(int kind, const json_t *result, double *value);

/* One attempt of a trial ("attempts": [...], in the order they ran): when it started and ended,
 * why it failed (NULL: it did not), and the host whose absence cut it short (its session
 * dropped or it could not be reached: such an attempt is not counted against the plan's
 * retries, and the trial waits for the host), NULL when none did. Reading: an element that is
 * not an object reads as all NULL. */
struct journal_attempt {
    const char *started, *ended, *error, *host_away;
};

/* One line of results.jsonl. Writing: every member but schema and result is written (result is
 * nsperf's object, passed beside). Reading: strings are NULL when absent or not strings;
 * numbers follow JSON integers (a real reads as 0). */
struct journal_trial {
    const char *schema; /* reading only: the writer writes JOURNAL_TRIAL_SCHEMA */
    const char *run_id;
    const char *plan_name, *plan_sha256;
    struct journal_scenario scenario;
    uint32_t trial; /* 1-based; reading: 0 unless an integer 1..UINT32_MAX-1 */
    /* The plan's revision the trial ran in (journal_run.revision): 0 or 1 for the first, which
     * the writer leaves out; reading: 0 unless an integer 1..UINT32_MAX-1 ("revision"). */
    uint32_t revision;
    enum journal_family family;
    const char *family_text; /* reading only: "family" as recorded (NULL: absent, not a string) */
    struct journal_endpoint src, dst;
    enum journal_status status;
    const char *status_text; /* reading only: "status" as recorded (NULL: absent, not a string) */
    const char *error;       /* why it failed (not run); NULL when ok */
    /* The attempts: writing, attempt[0..nattempt) ("attempts": [...]; attempt NULL writes the
     * count alone, as records before the list did). Reading: the list, attempts its length; a
     * record with a count ("attempts": N) has that count and no list (attempt NULL). 0: none
     * ran (a host unreachable from the start, a trial not run). */
    uint32_t attempts;
    const struct journal_attempt *attempt;
    size_t nattempt;
    const char *started, *ended;
    const char *env_src, *env_dst; /* the hosts whose run.json env applies */
    const char *tool_version, *nsperf_sha256;
    struct journal_result result; /* reading only */
    /* What the hosts did to the trial (README "The journal"; common/hostflags.h). Writing:
     * "counters" ({"src", "dst"}: each end's nsperf counters) and "flags" ({"drops": "why",
     * ...}) as the survey judged them (survey/judge.h), each left out when NULL. Reading: the
     * flags alone: judged when "flags" is an object (a record of before has none), a flag
     * raised when its name holds a string, its reason, in flag_why[f] and bit f of flags. */
    const json_t *counters, *flags; /* writing only */
    bool judged;
    unsigned flag_mask;
    const char *flag_why[HOSTFLAG_COUNT];
};

/* The key of a trial: a resumed run records a trial again under the same key, and readers keep
 * for each key its last ok record, else its last failed one. The run is part of it, so that
 * the same trial of two runs (a plan surveyed twice, the reports merged) are two trials. */
struct journal_key {
    const char *run_id;
    const char *scenario;
    enum journal_family family;
    const char *src, *dst; /* host names */
    uint32_t trial;
    /* a sweep's trial: the parameter swept and the value the record ran */
    bool swept;
    enum testspec_param sweep;
    double value;
};

void journal_trial_key(const struct journal_trial *t, struct journal_key *k);
/* Whether a record is an ok trial in the reports' sense, its headline figure in *value: status
 * ok, a result, and the figure in it (an "ok" record without its figure counts as failed). */
bool journal_trial_value(const struct journal_trial *t, double *value);
/* Whether two keys name the same trial (NULL strings equal only NULL). */
bool journal_key_equal(const struct journal_key *a, const struct journal_key *b);
/* Whether a record of status now replaces an earlier one of the same key whose status was
 * before: the last ok record wins, else the last failed (or not run) one. */
bool journal_supersedes(bool now_ok, bool before_ok);

/* The record as one JSON object (new reference; NULL when out of memory). result (borrowed,
 * NULL for none) is nsperf's result object, recorded unchanged. */
json_t *journal_trial_json(const struct journal_trial *t, const json_t *result);

/* --- run.json -------------------------------------------------------------------------------- */

/* How a run stands ("state"): written RUNNING when it starts (and when a resume starts), one of
 * the others when it ends. UNKNOWN when reading a run.json without a state (version 1) or with
 * another value. A run whose process was killed stays RUNNING with nobody holding its lock:
 * readers call that incomplete (journal_owner tells a live owner from none). */
enum journal_run_state {
    JOURNAL_RUN_UNKNOWN,
    JOURNAL_RUN_RUNNING,     /* "running" */
    JOURNAL_RUN_COMPLETE,    /* "complete": the schedule ran to its end (trials may have failed) */
    JOURNAL_RUN_INTERRUPTED, /* "interrupted": stopped by SIGINT or SIGTERM */
    JOURNAL_RUN_FAILED,      /* "failed": stopped by an error (the journal could not be written) */
};

/* "running", ...; NULL for UNKNOWN. */
const char *journal_run_state_name(enum journal_run_state s);
/* The state named s (NULL too: UNKNOWN). */
enum journal_run_state journal_run_state_from(const char *s);

/* A planned ordered pair ("pairs"): indexes into the run's hosts. Every scenario runs over
 * every planned pair, its "trials" times. */
struct journal_pair {
    uint32_t src, dst;
};

struct journal_run_host {
    const char *name, *zone, *region, *data_address;
    /* The physical zone (the plan's zone_id, else the host's cloud metadata's) and a warning
     * that the plan's place differs from the metadata's; NULL when none (written only then,
     * so that run.json reads as before where there is none) */
    const char *zone_id, *zone_warning;
    const char *transport; /* "local" or "ssh" */
    const json_t *env;     /* `nsperf env` of the host; writing: NULL writes null; reading: as
                            * recorded (JSON null when it was not read, NULL when absent) */
    const char *error;     /* why the host could not be reached; NULL when it was */
    /* Its `uname -m` ("x86_64", "aarch64") and the nsperf it ran: the build ("nsperf-static",
     * "nsperf-static-aarch64", a local host's "nsperf"), its sha256 and its path there. NULL
     * when not known (a host not reached; a run of an older netsurvey: written only when known,
     * so that such a run.json reads as before) */
    const char *arch;
    const char *endpoint_build, *endpoint_sha256, *endpoint_path;
};

struct journal_run_scenario {
    struct journal_scenario sc;
    /* How many trials a pair gets. Fixed ("trials": N): trials_fixed(N). Adaptive ("trials":
     * {"min", "max", "target_ci"}): min, then more while the 95 % interval of the pair's mean is
     * wider than target_ci of it, up to max (common/trials.h). Writing: the form follows
     * trials_adaptive(&policy); reading: from either form (a version-1 run: fixed). */
    struct trials_policy policy;
    uint64_t trials; /* per pair: the fixed count; adaptive: min, what every pair runs at least */
    /* Trials of the scenario over all pairs ("planned": trials x pairs; 0 in version 1), the
     * least a complete run holds; adaptive ("planned": {"min", "max"}): min x pairs, and
     * planned_max max x pairs, the most it may hold (fixed: planned_max == planned). */
    uint64_t planned, planned_max;
    /* Reading: the scenario object as recorded (its members in their order and JSON types), for
     * reports that show the parameters as the run wrote them. */
    const json_t *recorded;
    /* A sweep (sc.swept): its values in the plan's order, in sc.sweep's member as a list; the
     * counts above are of all of them (planned: trials x pairs x values), sc holds the first. */
    size_t nvalues;
    double values[TESTSPEC_SWEEP_MAX_VALUES];
};

/* An inventory the plan's hosts came from (the plan's hosts_from), recorded beside the plan so
 * that the run says which files gave it its hosts and a resume can refuse changed ones. */
struct journal_run_inventory {
    const char *file;   /* as the plan writes it */
    const char *path;   /* the file read */
    const char *format; /* "azure", "aws", "gcp", "ansible", "ssh_config" */
    const char *sha256; /* of the bytes read */
};

/* An earlier revision of a run's plan (run.json version 3, "revisions"): what `run --resume
 * --force` with a changed plan replaced, kept so that the trials it ran are read with the
 * parameters they ran with. */
struct journal_run_revision {
    uint32_t revision; /* 1, 2, ... */
    const char *plan_file, *plan_sha256;
    const char *started, *command; /* when and how it began: the run's start, or a resume's */
    const struct journal_run_host *hosts;
    size_t nhosts;
    const struct journal_run_scenario *scenarios;
    size_t nscenarios;
};

/* run.json. Reading: strings as for a trial; json owns everything the others point into. */
struct journal_run {
    const char *schema; /* reading only: the writer writes JOURNAL_RUN_SCHEMA */
    const char *run_id;
    const char *plan_name, *plan_file, *plan_sha256;
    const char *plan_description; /* the plan's, "" when none; reading: NULL when absent */
    const char *plan_source;      /* the plan's text (plan_source_len bytes, may hold NULs) */
    size_t plan_source_len;
    const char *netsurvey_version, *nsperf_version, *nsperf_sha256; /* nsperf_version may be NULL */
    const json_t *tool; /* reading: the "tool" object as recorded (reports copy it) */
    const char *started, *command;
    enum journal_run_state state;
    const char *ended; /* when the state became final; NULL while running */
    uint64_t rounds, tests, pairs;
    double estimate_s;
    /* How long a host that dropped out was waited for (the plan's host_timeout): written when
     * > 0; reading: 0 when absent (runs of before it) */
    double host_timeout_s;
    const struct journal_run_host *hosts;
    size_t nhosts;
    const struct journal_run_scenario *scenarios;
    size_t nscenarios;
    /* The planned pairs ("pairs"); reading: those whose indexes are in range (none in version 1,
     * has_pairs false). */
    const struct journal_pair *pair_list;
    size_t npair_list;
    bool has_pairs;
    /* plan.inventories; written only when there is one, so that a plan without hosts_from
     * writes run.json as before; read as none when absent */
    const struct journal_run_inventory *inventories;
    size_t ninventories;
    /* The plan's revision that plan, hosts, scenarios and pairs are (1 when absent): a resume
     * with --force and a changed plan makes the next one (JOURNAL_RUN_SCHEMA_3 then). */
    uint32_t revision;
    /* Reading: the earlier revisions ("revisions"), oldest first; none when absent. */
    const struct journal_run_revision *revisions;
    size_t nrevisions;
    /* Writing: "revisions" and "resumes" as they are to be written (borrowed; NULL: none), the
     * members a new revision carries over from the run.json it replaces. */
    const json_t *revisions_json, *resumes_json;
    json_t *json; /* reading: the document (owned, freed by journal_run_free) */
};

/* run.json's document (new reference; NULL when out of memory). */
json_t *journal_run_json(const struct journal_run *r);

/* Read a run.json document (borrowed; kept alive by the result) into *out (caller frees with
 * journal_run_free). Returns 0, NS_EPROTO (a schema this reader does not read: another version,
 * another document, none; e names it and JOURNAL_RUN_SCHEMA), NS_EPARSE (a scenario's test kind
 * is unknown; e says which) or NS_ENOMEM. */
int journal_run_from_json(json_t *doc, struct journal_run **out, struct err *e);
/* Whether schema is a run.json version this netsurvey does not know ("netsurvey.run/9"): a
 * run of another netsurvey, which journal_run_from_json refuses (NS_EPROTO) and only that
 * netsurvey reads. False for the versions it reads, for other documents and for NULL. */
bool journal_run_schema_unknown(const char *schema);
/* journal_run_free(NULL) is safe. */
void journal_run_free(struct journal_run *r);

#endif
