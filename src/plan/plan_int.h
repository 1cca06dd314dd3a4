/* plan_int.h - internals shared by the plan module's files (SQLite's btreeInt.h manner).
 * Nothing outside src/plan includes this. */
#ifndef NS_PLAN_INT_H
#define NS_PLAN_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "plan/plan.h"

/* --- arena: every string and array of a plan lives in one, freed at once ---------------- */

struct arena_chunk;

struct arena {
    struct arena_chunk *head;
};

/* Zeroed memory, aligned for any type; NULL when out of memory. */
void *plan_arena_alloc(struct arena *a, size_t n);
/* Copy of len bytes of s plus a NUL; NULL when out of memory. */
char *plan_arena_strndup(struct arena *a, const char *s, size_t len);
void plan_arena_release(struct arena *a);

/* --- YAML tree with positions (parse.c) -------------------------------------------------- */

enum ynode_kind { YNODE_SCALAR, YNODE_SEQ, YNODE_MAP };

struct ynode {
    enum ynode_kind kind;
    unsigned line, col; /* 1-based start of the node */
    bool plain;         /* unquoted scalar */
    char *str;          /* scalar text, NUL-terminated (no NUL inside) */
    size_t len;
    struct ynode **kids; /* seq: items; map: key0, value0, key1, value1, ... */
    size_t nkids;
};

#define YNODE_MAX_DEPTH 32
#define YNODE_MAX_NODES 500000

/* Parse len bytes into a tree (*out, freed with plan_ynode_free). On a YAML error returns
 * NS_EPARSE with one diagnostic added (noun, "plan" or "inventory", names the text in it);
 * NS_ENOMEM when out of memory. */
int plan_ynode_parse(const char *file, const char *noun, const char *buf, size_t len,
                     struct ynode **out, struct plan_diags *d);
void plan_ynode_free(struct ynode *n);

/* "a mapping", "a list", "a string" - for "found ..." in messages. */
const char *plan_ynode_kind_text(const struct ynode *n);
/* Plain empty, ~ or null. */
bool plan_ynode_is_null(const struct ynode *n);

/* --- diagnostics (diag.c) ---------------------------------------------------------------- */

/* Add "file:line:col: message" (line 0: "file: message"). Returns NS_ENOMEM if it could not
 * be stored, else 0. */
int plan_diag_add(struct plan_diags *d, const char *file, unsigned line, unsigned col,
                  const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* As plan_diag_add for a warning ("file:line:col: warning: message"): printed with the
 * problems but not one of them (a plan with warnings loads). */
int plan_diag_warn(struct plan_diags *d, const char *file, unsigned line, unsigned col,
                   const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* As plan_diag_warn for a note ("file:line:col: note: message"): what the plan made of its
 * inputs that a reader should know (machines skipped, an imported host replaced). */
int plan_diag_note(struct plan_diags *d, const char *file, unsigned line, unsigned col,
                   const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* 1 + the byte offset of the first control, C1 or bidi-override character of text; 0 if none
 * (multiline: newlines and tabs are fine). */
size_t plan_text_control(const char *text, bool multiline);
/* Stable sort by position; file-level messages first. */
void plan_diag_sort(struct plan_diags *d);
/* Total problems (not warnings) reported, including those beyond PLAN_MAX_DIAGS. */
size_t plan_diag_total(const struct plan_diags *d);
bool plan_diag_oom(const struct plan_diags *d);

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
                         const struct plan_load_env *env, struct plan **out,
                         struct plan_diags *diags);

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
    size_t npairs; /* selected ordered pairs */
    uint64_t ntests;
    struct plan_pos *daddr_pos; /* per host: where its data address is written */
    bool *daddr_given;          /* per host: data_address given (not the ssh address's) */
};

/* Build p (already holding file, source and an arena) from the tree, adding every problem to
 * d. Returns 0 when the plan is valid, NS_EPARSE or NS_ENOMEM otherwise. */
int plan_validate(struct plan *p, const struct ynode *root, struct plan_diags *d);

/* Is the ordered pair (a, b) selected by a non-explicit selection? */
bool plan_pair_selected(const struct plan *p, uint32_t a, uint32_t b);

/* Problems of selected pairs whose two data addresses are of two families (nsperf cannot
 * connect across them), hosts of unknown family left out: one per host (the later of a pair in
 * the plan), at its data address, naming the first host of the other family it is paired with
 * and how many more. fresh (NULL: all) limits them to pairs with a host i where fresh[i].
 * Returns how many were added. */
size_t plan_check_families(const struct plan *p, struct plan_diags *d, const bool *fresh);

/* --- suggestions (suggest.c) ------------------------------------------------------------- */

/* The candidate closest to word by edit distance if close enough to be a likely typo, else
 * NULL. */
const char *plan_suggest_closest(const char *word, const char *const *cands, size_t n);

/* --- splitmix64 (schedule.c, exposed for tests) ----------------------------------------- */

struct rng {
    uint64_t state;
};

void plan_rng_seed(struct rng *r, uint64_t seed);
uint64_t plan_rng_next(struct rng *r);
/* Uniform in [0, n), n > 0, by rejection: the same sequence on every platform. */
uint64_t plan_rng_below(struct rng *r, uint64_t n);

#endif
