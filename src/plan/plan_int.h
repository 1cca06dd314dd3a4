/* plan_int.h - internals shared by the plan module's files (SQLite's btreeInt.h manner).
 * Nothing outside src/plan includes this. */
#ifndef NS_PLAN_INT_H
#define NS_PLAN_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/arena.h"
#include "common/suggest.h"
#include "inventory/inv_yaml.h"
#include "plan/plan.h"

/* --- where a plan's inventories come from ------------------------------------------------- */

struct err;

/* How a plan reads the files its hosts_from names: the file system (load.c) or, in tests and
 * fuzzers, memory. read puts at most cap bytes plus a NUL into *buf (caller frees) and returns
 * 0; NS_ETOOBIG past cap, NS_EIO (e's text alone says why: "No such file or directory"),
 * NS_ENOMEM. */
struct plan_reader {
    int (*read)(void *arg, const char *path, size_t cap, char **buf, size_t *len, struct err *e);
    /* The paths pattern (glob(7), absolute) matches, sorted, into *paths (a NULL-terminated
     * array of malloc'd strings, or NULL for none; caller frees). 0, NS_ETOOBIG past max
     * paths, NS_EIO, NS_ENOMEM. NULL: no pattern matches anything (an ssh config's Include
     * is then noted, not followed). */
    int (*glob)(void *arg, const char *pattern, size_t max, char ***paths, struct err *e);
    void *arg;
};

/* How an ssh_config inventory's aliases get their data address: the hostname the operator's
 * `ssh -G -F config ALIAS` resolves each to (common/sshg.h). hostnames puts into host[i]
 * (malloc'd) the hostname of alias[i], or leaves it NULL and puts ssh's refusal into why[i]
 * (malloc'd: "FILE line 3: Bad configuration option: foo"); both arrays have n entries,
 * zeroed by the caller. Returns 0, or NS_ENOMEM. */
struct plan_ssh_resolver {
    int (*hostnames)(void *arg, const char *config, const char *const *alias, size_t n, char **host,
                     char **why);
    void *arg;
};

/* What loading a plan needs from its surroundings; a NULL member takes the default. */
struct plan_load_env {
    const char *base_dir;                /* relative inventory paths: default the plan's folder */
    const char *home;                    /* what ~ is: default $HOME, else the passwd entry */
    const struct plan_reader *reader;    /* default: the file system, regular files only */
    const struct plan_ssh_resolver *ssh; /* default: ssh -G, several at once */
};

/* plan_load_buffer with an explicit environment (env may be NULL: every default). */
int plan_load_buffer_env(const char *name, const char *buf, size_t len,
                         const struct plan_load_env *env, struct plan **out, struct diags *diags);

/* --- the plan ------------------------------------------------------------------------------ */

struct plan_pair {
    uint32_t src, dst;
};

/* Where a host was given: its hosts entry, or the hosts_from entry it came from. */
struct plan_pos {
    unsigned line, col;
};

struct plan {
    struct arena arena;
    const char *file;
    const char *source;
    size_t source_len;
    const char *name;
    const char *description;
    const char *output;
    struct plan_load_env env;     /* resolved: every member set (strings in the arena) */
    struct plan_ssh ssh_defaults; /* the plan's ssh block over the built-in defaults */
    struct plan_host *hosts;
    size_t nhosts;
    struct plan_pos *host_pos; /* per host */
    struct plan_inventory *inventories;
    size_t ninventories;
    uint32_t *host_zone; /* zone index per host, 0..nzones-1 */
    size_t nzones;
    struct plan_scenario *scenarios;
    size_t nscenarios;
    struct trials_policy trials; /* the plan's `trials`, the scenarios' default */
    int pairs;                   /* enum plan_pairs */
    struct plan_pair *explicit_pairs;
    size_t nexplicit;
    int directions; /* 0 both, 1 one */
    bool parallel;
    int order; /* 0 sequential, 1 shuffled */
    uint64_t seed;
    unsigned retries;
    double host_timeout_s; /* how long an unreachable host is waited for */
    size_t npairs;         /* selected ordered pairs */
    uint64_t ntests;
    struct plan_pos *daddr_pos; /* per host: where its data address is written */
    bool *daddr_given;          /* per host: data_address given (not the ssh address's) */
};

/* Build p (already holding file, source and an arena) from the tree, adding every problem to
 * d. Returns 0 when the plan is valid, NS_EPARSE or NS_ENOMEM otherwise. */
int plan_validate(struct plan *p, const struct ynode *root, struct diags *d);

/* Is the ordered pair (a, b) selected by a non-explicit selection? */
bool plan_pair_selected(const struct plan *p, uint32_t a, uint32_t b);

/* Problems of selected pairs whose two data addresses are of two families (nsperf cannot
 * connect across them), hosts of unknown family left out: one per host (the later of a pair in
 * the plan), at its data address, naming the first host of the other family it is paired with
 * and how many more. fresh (NULL: all) limits them to pairs with a host i where fresh[i].
 * Returns how many were added. */
size_t plan_check_families(const struct plan *p, struct diags *d, const bool *fresh);

/* --- splitmix64 (schedule.c, exposed for tests) ----------------------------------------- */

struct rng {
    uint64_t state;
};

void plan_rng_seed(struct rng *r, uint64_t seed);
uint64_t plan_rng_next(struct rng *r);
/* Uniform in [0, n), n > 0, by rejection: the same sequence on every platform. */
uint64_t plan_rng_below(struct rng *r, uint64_t n);

#endif
