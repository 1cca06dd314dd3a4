/* plan.h - a survey's test plan: load a YAML file, validate it completely, read it back.
 *
 * Loading either yields a valid, fully resolved plan or none at all plus every problem found,
 * each as "file:line:col: message" (1-based, git style). A plan is immutable once loaded: every
 * pointer a read function returns is borrowed and lives as long as the plan.
 *
 * Resolution rules (what the read API returns):
 *  - a host's ssh settings: the host's own `ssh` block, else the plan's `ssh` block, else not
 *    given (NULL or 0): the ssh transport then takes the value from ~/.ssh/config as OpenSSH
 *    would, else OpenSSH's default (port 22, the local user, ~/.ssh/known_hosts; a connect
 *    timeout of 10 s). Paths are returned as written (no ~ expansion).
 *  - a scenario's values: the scenario's own keys, else the plan's `defaults` block (only the
 *    values that apply to the scenario's test kind), else the built-in defaults (duration 10 s,
 *    warmup 1 s, streams 1, and 0 = "nsperf's default for the kind" for msg_size,
 *    response_size, rate and window); trials: the scenario's, else the plan's, else 1 (a
 *    number, or {min, max, target_ci}: see struct plan_scenario).
 *
 * Hosts may come from inventories (`hosts_from`: the JSON of `az vm list -d`, `aws ec2
 * describe-instances` and `gcloud compute instances list`, an Ansible inventory, the Host
 * aliases of an ssh config) as well as from `hosts`; once loaded, every host reads alike
 * whatever its origin, and plan_inventory() says which files were read (their sha256, for the
 * run's record) and what they gave.
 *
 * The schedule of a plan lives in schedule.h. */
#ifndef NS_PLAN_H
#define NS_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/diag.h"
#include "common/testspec.h"
#include "common/trials.h"

struct plan; /* opaque; from plan_load_*, freed with plan_free */

#define PLAN_MAX_FILE_SIZE (4u << 20) /* plan files are read with this cap */
#define PLAN_MAX_HOSTS 2000
#define PLAN_MAX_SCENARIOS 64
#define PLAN_MAX_TRIALS 1000
#define PLAN_MAX_TESTS 10000000ULL /* trials of all scenarios over all selected pairs */
#define PLAN_MAX_INVENTORIES 32    /* hosts_from entries */
#define PLAN_INVENTORY_MAX_FILE_SIZE (16u << 20) /* inventory files are read with this cap */
#define PLAN_MAX_RETRIES 10
#define PLAN_DEFAULT_RETRIES 2
/* How long a host that dropped out of a run (its session lost, or down at the start) is
 * reconnected before its remaining trials are recorded failed (`host_timeout`). */
#define PLAN_DEFAULT_HOST_TIMEOUT_S 300.0
#define PLAN_HOST_TIMEOUT_RANGE "1s..24h"
#define PLAN_MIN_HOST_TIMEOUT_S 1.0
#define PLAN_MAX_HOST_TIMEOUT_S 86400.0
#define PLAN_AUTO "auto" /* zone: auto, region: auto: from the host's cloud metadata */

/* The wall-time estimate of `netsurvey plan` and of run.json: the fixed cost of one round on
 * top of its warmup and duration (starting the one-shot nsperf server, its ready line, the
 * client, the control handshake, the result, the server's exit), for a round of local hosts
 * and one with ssh hosts (their sessions' channels); and of opening a host before the first
 * round (an ssh session, the endpoint's hash check, `nsperf env`). Measured: run.json's
 * "measured" holds what a run took (netsurvey-journal(5) says how these were set). */
#define PLAN_SETUP_LOCAL_S 0.2
#define PLAN_SETUP_SSH_S 0.25
#define PLAN_OPEN_LOCAL_S 0.01
#define PLAN_OPEN_SSH_S 0.3

enum plan_transport { PLAN_TRANSPORT_SSH, PLAN_TRANSPORT_LOCAL };

/* The address family of a data address: known for a literal address, for a name once
 * plan_resolve_names resolved it. */
enum plan_family { PLAN_FAMILY_UNKNOWN, PLAN_FAMILY_IPV4, PLAN_FAMILY_IPV6 };

enum plan_pairs {
    PLAN_PAIRS_ALL,
    PLAN_PAIRS_CROSS_ZONE,
    PLAN_PAIRS_SAME_ZONE,
    PLAN_PAIRS_EXPLICIT
};

struct plan_ssh {
    const char *user;        /* NULL: the config's User, else the local user */
    unsigned port;           /* 1..65535; 0: the config's Port, else 22 */
    const char *identity;    /* NULL: the agent, the config's IdentityFile or ssh's defaults */
    const char *known_hosts; /* NULL: the config's UserKnownHostsFile, else ~/.ssh/known_hosts */
    const char *jump;        /* NULL: the config's ProxyJump; "[user@]host[:port][,...]" (ssh -J) */
    double connect_timeout_s; /* 0: the config's ConnectTimeout, else 10 s */
};

struct plan_label {
    const char *key;
    const char *value;
};

struct plan_host {
    const char *name;
    const char *address;      /* what ssh dials; for transport local it may be NULL */
    const char *data_address; /* what test traffic uses; defaults to address; never NULL */
    const char *zone;         /* "" when not given; "auto" until the survey places the host */
    const char *region;       /* "" when not given; "auto" likewise */
    const char *zone_id;      /* physical zone, "" when not given */
    const struct plan_label *labels;
    size_t nlabels;
    enum plan_transport transport;
    struct plan_ssh ssh; /* resolved; meaningless for transport local */
    enum plan_family data_family;
    /* data_address as a numeric address: itself when it is one, what plan_resolve_names found
     * for a name, NULL for a name not resolved */
    const char *data_ip;
    /* No data_address, and address is a name (a ~/.ssh/config alias, a DNS name) rather than an
     * IP address: the survey learns the data address from the host (the address on its default
     * route's interface, `nsperf env`); data_address holds address until then. */
    bool data_address_from_host;
    /* `zone: auto` / `region: auto`: the survey takes them from the host's cloud metadata
     * (`nsperf env`'s "cloud") before the first test, with plan_host_place(); until then zone
     * (region) reads "auto", and for pairs each such host is a zone of its own. zone: auto takes
     * the metadata's zone_id too when the plan gives none. */
    bool zone_from_host, region_from_host;
};

/* A sweep: a scenario that gives a list of values for one parameter (`msg_size: [64, 1K, 64K]`,
 * a parameter of TESTSPEC_SWEEP_PARAMS) runs each value as a scenario of its own. The plan's
 * scenario list holds them one after the other in the list's order, all of the scenario's name:
 * each value has its own trials over every pair, its own adaptive decision, its own place in
 * the schedule, and its spec holds the value; what tells them apart is the value. */
struct plan_sweep {
    int param;            /* enum testspec_param swept; -1: the scenario is no sweep */
    const double *values; /* the list as written, nvalues of them (NULL: no sweep) */
    size_t nvalues;
    size_t index; /* this scenario's value is values[index]; 0 for the first (and no sweep) */
};

/* A scenario's values, resolved, as nsperf client parameters. */
struct plan_scenario {
    const char *name;
    enum testspec_kind kind; /* common/testspec.h's, as nsperf's */
    const char *test;        /* the kind's name (testspec_kind_name) */
    /* How many trials each pair gets: a fixed count (min == max), or min, then more while the
     * pair's 95 % interval is wider than target of its mean, up to max (common/trials.h). */
    struct trials_policy trials;
    unsigned streams;       /* -P */
    uint64_t msg_size;      /* -l bytes; 0 = nsperf default */
    uint64_t response_size; /* --response-size bytes (rr, crr); 0 = nsperf default */
    double duration_s;      /* -t, measured interval */
    double warmup_s;        /* --warmup */
    double interval_s;      /* -i, 0 = no interval samples */
    uint64_t rate_bps;      /* -b bits/s; 0 = nsperf default */
    bool reverse;           /* -R */
    uint64_t window;        /* -w socket buffer bytes; 0 = kernel autotuning */
    /* The same values as the table's (duration and warmup always set, the others set when the
     * scenario or the defaults gave them): what testspec_client_argv turns into nsperf flags. */
    struct testspec_values spec;
    struct plan_sweep sweep; /* the sweep this scenario is a value of (param -1: none) */
};

/* --- loading --------------------------------------------------------------------------- */

/* Diagnostics go to a list of common/diag.h (diags_new, diags_write, ...). */

/* Read (at most PLAN_MAX_FILE_SIZE bytes), parse and validate the plan at path; path also
 * names the file in messages. On success returns 0 and *out owns a plan (caller frees). On
 * failure *out is NULL, every problem is in diags (appended), and the result is NS_EPARSE for
 * an invalid or unreadable plan, NS_ENOMEM when memory ran out. */
int plan_load_file(const char *path, struct plan **out, struct diags *diags);

/* As plan_load_file for len bytes at buf (need not be NUL-terminated; borrowed); name is
 * what messages call the file. */
int plan_load_buffer(const char *name, const char *buf, size_t len, struct plan **out,
                     struct diags *diags);

/* The plans/localhost.yaml text embedded at build time (NUL-terminated, static). */
const char *plan_default_yaml(size_t *len);

/* What messages and run.json call the built-in plan. */
#define PLAN_DEFAULT_FILE "built-in:localhost.yaml"

/* As plan_load_buffer for the built-in plan, named PLAN_DEFAULT_FILE: every command that
 * runs without PLAN loads this one. */
int plan_load_default(struct plan **out, struct diags *diags);

/* How plan_resolve_names resolves a name: the first numeric address (what a connection tries
 * first, as nsperf's getaddrinfo does) into buf, its family into *family. Returns 0, or a
 * negative NS_E* with why in e. */
typedef int (*plan_resolve_fn)(void *ctx, const char *name, char *buf, size_t len,
                               enum plan_family *family, struct err *e);

/* The checks a plan's host names need, part of loading it for a command that goes on with it
 * (check, plan, run): each data address that is a name is resolved with fn on this machine -
 * those of local hosts, and those given as data_address to ssh hosts (an ssh host's address
 * that doubles as its data address is often an ssh alias, resolved by ssh alone). A local
 * host's name that does not resolve is a problem, an ssh host's a warning (that host resolves
 * it itself). Then, with the resolved addresses: duplicate data addresses, and pairs that mix
 * address families (as the loader checks literal ones). Every problem is added to d at the
 * data address. Returns 0, NS_EPARSE (problems added; the plan must not be used) or
 * NS_ENOMEM. nsperf is still given the name: it resolves it the same way. */
int plan_resolve_names(struct plan *p, plan_resolve_fn fn, void *ctx, struct diags *d);

/* plan_free(NULL) is safe. */
void plan_free(struct plan *p);

/* --- reading ----------------------------------------------------------------------------- */

/* A machine an inventory listed and the plan selected, but that was not running. */
struct plan_skipped {
    const char *name;
    const char *state; /* as the inventory says it: "VM deallocated", "stopped", "TERMINATED" */
};

/* One hosts_from entry, as read. */
struct plan_inventory {
    const char *file;   /* as the plan writes it */
    const char *path;   /* the file read: ~ expanded, relative paths against the plan's folder */
    const char *format; /* "azure", "aws", "gcp", "ansible" or "ssh_config" */
    const char *sha256; /* lower-case hex of the bytes read */
    const char *const *hosts; /* the hosts it gave the plan, by name, in the plan's order */
    size_t nhosts;
    const struct plan_skipped *skipped; /* selected but not running, in the file's order */
    size_t nskipped;
    const char *const *replaced; /* its hosts that a `hosts` entry of the same name replaced */
    size_t nreplaced;
};

const char *plan_name(const struct plan *p);
const char *plan_file(const struct plan *p);        /* name used in messages */
const char *plan_description(const struct plan *p); /* "" when none */

/* The exact bytes the plan was parsed from (for hashing into records). */
const char *plan_source(const struct plan *p, size_t *len);

/* The hosts_from entries, in the plan's order (0 when it has none). */
size_t plan_inventory_count(const struct plan *p);
const struct plan_inventory *plan_inventory(const struct plan *p, size_t i);

size_t plan_host_count(const struct plan *p);
const struct plan_host *plan_host(const struct plan *p, size_t i);
/* Index of the host named name, or -1. */
long plan_host_find(const struct plan *p, const char *name);

/* Zones are (region, zone) pairs: zone "1" of two regions are two zones. A host whose zone or
 * region is still auto is a zone of its own. */
size_t plan_zone_count(const struct plan *p);
/* Whether some host states a zone (in a valid plan, the hosts of a region all do or none does).
 * A plan without zones is surveyed and reported as host pairs, without a zone matrix. */
bool plan_has_zones(const struct plan *p);

/* Whether some host has zone: auto or region: auto not yet placed. */
bool plan_has_auto_places(const struct plan *p);

/* The one change a loaded plan takes: host i's place as its cloud metadata gives it, for a
 * host with zone: auto or region: auto (the survey calls it once the host's environment is
 * known, before the first test and before the schedule is made). zone and region replace the
 * auto ones only (NULL or "" leaves them auto); zone_id is taken when the plan has none. The
 * zones are numbered again, and the pairs and tests counted again. Returns 0 or NS_ENOMEM. */
int plan_host_place(struct plan *p, size_t i, const char *zone, const char *region,
                    const char *zone_id);

/* The scenarios as the survey runs them: a sweep's values each a scenario of its own (struct
 * plan_sweep), so that plan_scenario_count counts every value of every sweep; the plan's
 * scenarios as written are those with sweep.index 0. */
size_t plan_scenario_count(const struct plan *p);
const struct plan_scenario *plan_scenario(const struct plan *p, size_t i);
/* Whether sc is a value of a sweep. */
bool plan_scenario_swept(const struct plan_scenario *sc);
/* The value a swept scenario runs (sc->sweep.values[sc->sweep.index]). */
double plan_scenario_value(const struct plan_scenario *sc);
/* What people read a scenario by: "tput", a sweep's value "tput msg_size 64K". Returns buf. */
char *plan_scenario_label(const struct plan_scenario *sc, char *buf, size_t len);
/* The scenario of name that runs value of the sweep of param (param -1: the scenario of name
 * that is no sweep), or -1. */
long plan_scenario_find(const struct plan *p, const char *name, int param, double value);

enum plan_pairs plan_pairs_kind(const struct plan *p);
const char *plan_pairs_name(const struct plan *p); /* "all", ..., "explicit" */
bool plan_both_directions(const struct plan *p);
bool plan_parallel(const struct plan *p);
bool plan_shuffled(const struct plan *p);
uint64_t plan_seed(const struct plan *p);
/* Times a failed test is run again before it is recorded as failed (`retries`, 0..10). */
unsigned plan_retries(const struct plan *p);
/* Seconds a host that became unreachable during a run, or was at its start, is reconnected (with
 * backoff) before its remaining trials are recorded failed (`host_timeout`, 1s..24h; default
 * PLAN_DEFAULT_HOST_TIMEOUT_S). */
double plan_host_timeout(const struct plan *p);

/* Number of ordered (src, dst) pairs the selection yields. */
size_t plan_pair_count(const struct plan *p);

/* Tests in the whole survey: pairs x sum of the scenarios' trials; for adaptive trials the most
 * there may be (their max). */
uint64_t plan_test_count(const struct plan *p);
/* The fewest tests there may be: as plan_test_count, adaptive trials at their min. */
uint64_t plan_test_count_min(const struct plan *p);

/* The output path template, as written ("results/{name}-{timestamp}" by default). */
const char *plan_output_template(const struct plan *p);

/* Whether an output template (the plan's, or one given on a command line) names only {name}
 * and {timestamp}: 0, or NS_EINVAL with the first problem in why ("unknown placeholder '{foo}';
 * expected {name} or {timestamp}", "unclosed '{'"). */
int plan_output_template_check(const char *tmpl, char *why, size_t len);

/* Expand the output template with the plan's name and timestamp into buf. Returns the length
 * the expansion needs (snprintf-like; it was truncated if >= len). */
size_t plan_output_path(const struct plan *p, const char *timestamp, char *buf, size_t len);

/* nsperf client flags for a scenario ("--test tcp_rr -t 100 --warmup 1 -l 250"), values
 * left at nsperf's defaults omitted, as one line for people (testspec_client_argv(&sc->spec)
 * gives the argv a program runs). snprintf-like return value. */
size_t plan_scenario_nsperf_flags(const struct plan_scenario *sc, char *buf, size_t len);

/* Every key the validator accepts, for documentation and its tests (`netsurvey --plan-keys`):
 * fn(ctx, path, type) once per key, in the tables' order. path is written as the plan nests it:
 * "name", "ssh.user", "hosts[].zone", "hosts_from[].tags", "zones.PATTERN.zone_id",
 * "scenarios[].msg_size" (`defaults` takes the same parameters), "trials.min"; type says what
 * the value is ("text", "duration 100ms..10m", "both|one", "mapping of text", ...). */
typedef void plan_key_fn(void *ctx, const char *path, const char *type);
void plan_keys_list(plan_key_fn *fn, void *ctx);

#endif
