/* fields.h - table-driven reading of YAML mappings into C structs, for the validator.
 * A table lists a mapping's keys with their type, range and place in the target struct; the
 * helpers report every problem (unknown key with a suggestion, duplicate key, wrong type,
 * bad value, out of range, missing key) and store what is valid. Internal to src/plan. */
#ifndef NS_PLAN_FIELDS_H
#define NS_PLAN_FIELDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/testspec.h"
#include "plan/plan_int.h"

/* Validation context: the plan being built and where problems go. */
struct vctx {
    struct plan *p;
    struct diags *d;
    const char *file;
    bool oom;
    int spec_kind; /* FT_SPEC ranges are this kind's; -1: the widest over all kinds */
};

/* Report a problem at node at (NULL: no position). */
void plan_verr(struct vctx *c, const struct ynode *at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Report a problem, a warning or a note at a position (line 0: none). */
void plan_verr_at(struct vctx *c, struct plan_pos at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void plan_vwarn_at(struct vctx *c, struct plan_pos at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void plan_vnote_at(struct vctx *c, struct plan_pos at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Where node n starts (n may be NULL: no position). */
struct plan_pos plan_node_pos(const struct ynode *n);

/* Copy s into the plan's arena (NULL, with oom set, when out of memory). */
const char *plan_vstrdup(struct vctx *c, const char *s);
/* Zeroed array from the plan's arena. */
void *plan_vcalloc(struct vctx *c, size_t n, size_t size);

enum ftype {
    FT_NODE, /* kept as a node for the caller */
    FT_STR,  /* const char *, non-empty */
    FT_NAME, /* const char *, letters, digits, . _ - */
    FT_ADDR, /* const char *, IP address (IPv6 may be scoped: fe80::1%eth0) or host name */
    FT_JUMP, /* const char *, an ssh jump host: [user@]host[:port] */
    FT_UINT, /* unsigned, range min..max */
    FT_U64,  /* uint64_t, any */
    FT_DUR,  /* double seconds, units.h, range min..max */
    FT_SIZE, /* uint64_t bytes, units.h, range min..max */
    FT_RATE, /* uint64_t bits/s, units.h, range min..max */
    FT_BOOL, /* bool, true or false */
    FT_ENUM, /* int, index into choices */
    FT_SPEC, /* double, a test parameter of common/testspec.h: its type and its range */
    FT_CONV  /* conv converts: a value with a grammar of its own (trials.c's `trials`) */
};

struct vctx;
struct ynode;
struct fdesc;
/* An FT_CONV conversion of val into obj at f->off; false after reporting a problem. */
typedef bool plan_field_conv(struct vctx *c, const struct fdesc *f, const struct ynode *val,
                             void *obj);

struct fdesc {
    const char *key;
    enum ftype type;
    size_t off; /* offset of the value in the target struct */
    bool required;
    double min, max;
    const char *range;          /* "1..1000", for messages (FT_SPEC: from the table) */
    const char *const *choices; /* FT_ENUM: NULL-terminated */
    const char *bad;            /* FT_ENUM: "unknown test kind"; default "invalid <key>" */
    int spec;                   /* FT_SPEC: enum testspec_param */
    bool no_dash;               /* text handed to ssh: a leading '-' would be an option */
    bool multiline;             /* FT_STR: newlines and tabs allowed (other controls never) */
    plan_field_conv *conv;      /* FT_CONV: the conversion (its module, not this one, owns it) */
    size_t size;                /* FT_CONV: the value's size */
};

#define FIELDS_MAX 24

/* What a mapping held: key and value nodes per table entry; set has bit i when field i was
 * present (and, after plan_fields_store, converted without error). A table key "a.b" is key b
 * of a mapping at key a (testspec.h's load.streams: `load: {streams: 4}`): its key node is
 * b's, and group[i] a's (NULL for a key of the mapping itself). */
struct fvals {
    const struct ynode *key[FIELDS_MAX];
    const struct ynode *val[FIELDS_MAX];
    const struct ynode *group[FIELDS_MAX];
    uint32_t set;
};

/* Report a node that is not of the expected kind: "wrong type for WHAT: expected a mapping,
 * found a list". Returns whether n has that kind. */
bool plan_vexpect(struct vctx *c, const struct ynode *n, enum ynode_kind kind, const char *what);

/* Scalar text of n, or NULL after reporting null values or wrong types (key names it). */
const char *plan_vscalar(struct vctx *c, const struct ynode *n, const char *key);

/* Read map against table t (n entries) into v, reporting keys not in t or not in allowed (a
 * mask of t's entries), duplicate keys and non-scalar keys; what names the mapping in
 * messages ("scenario 'latency'"). A key a whose table has keys "a.b" takes a mapping, whose
 * keys are read the same way. Returns false (after reporting) if map is no mapping. */
bool plan_fields_collect(struct vctx *c, const struct ynode *map, const struct fdesc *t, size_t n,
                         uint32_t allowed, struct fvals *v, const char *what);

/* Report required entries of t that v lacks, at map. */
void plan_fields_require(struct vctx *c, const struct ynode *map, const struct fdesc *t, size_t n,
                         const struct fvals *v, const char *what);

/* Convert every present non-FT_NODE entry into obj; clears the bits of those that failed. */
void plan_fields_store(struct vctx *c, const struct fdesc *t, size_t n, struct fvals *v, void *obj);

/* Convert one value by its descriptor into obj; false after reporting a problem. */
bool plan_field_store(struct vctx *c, const struct fdesc *f, const struct ynode *val, void *obj);

/* `trials` (trials.c): a whole number 1..1000 or {min, max, target_ci} into a struct
 * trials_policy; the FT_CONV conversion of the plan's and the scenarios' `trials`. */
plan_field_conv plan_trials_store;

/* Copy the entries in mask from src to dst (both structs of the table's type). */
void plan_fields_copy(const struct fdesc *t, size_t n, uint32_t mask, void *dst, const void *src);

/* Index of key in t, or -1. */
int plan_fields_index(const struct fdesc *t, size_t n, const char *key);

/* Value node of key (NULL when absent). */
const struct ynode *plan_fields_get(const struct fdesc *t, size_t n, const struct fvals *v,
                                    const char *key);

/* "host 'vm1'" when the mapping n has a scalar name, else "host 3" (i is 0-based); noun is
 * "host" or "scenario". */
void plan_node_what(const struct ynode *n, const char *noun, size_t i, char *buf, size_t len);

/* NULL when s is an address ssh and the resolver read as written, else why not. */
const char *plan_vaddress_problem(const char *s);
/* Whether s is an IP address (IPv4, IPv6, scoped IPv6) rather than a name. */
bool plan_vaddress_is_ip(const char *s);
/* Report a warning at node at. */
void plan_vwarn(struct vctx *c, const struct ynode *at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Canonical text of an address, so that equal addresses compare equal as strings
 * (2001:DB8:0::1 and 2001:db8::1; ::ffff:10.0.0.1 and 10.0.0.1; names without case). */
void plan_address_key(const char *s, char *out, size_t len);

/* --- hosts from inventories (zones.c, hosts_from.c, hosts_merge.c) ------------------------ */

/* One entry of the plan's `zones` map: a glob on host names and what it fills in. */
struct plan_zone_rule {
    const char *pattern;
    const char *zone, *region, *zone_id; /* NULL: not given */
    struct plan_pos pos;
    bool used;
};

struct plan_zone_rules {
    struct plan_zone_rule *v; /* in the plan's arena */
    size_t n;
};

/* Read the `zones` map (NULL: none) into z. */
void plan_validate_zones(struct vctx *c, const struct ynode *zones, struct plan_zone_rules *z);
/* Fill the zone, region and zone id that h lacks, each from the first rule that matches h's
 * name and gives it. */
void plan_zones_fill(struct plan_zone_rules *z, struct plan_host *h);
/* Warn about rules that matched no host. */
void plan_zones_unused(struct vctx *c, const struct plan_zone_rules *z);

/* A host read from an inventory, before it joins the plan. */
struct plan_import {
    struct plan_host h;
    size_t source;       /* its index in p->inventories */
    const char *entry;   /* the file and the entry in it: "vms.json [2]" */
    struct plan_pos pos; /* its hosts_from entry */
};

struct plan_imports {
    struct plan_import *v; /* malloc'd; plan_imports_release */
    size_t n, cap;
};

void plan_imports_release(struct plan_imports *im);

/* Read every hosts_from entry (NULL: none), setting p->inventories, and the hosts they give
 * into im (zones filled from z). */
void plan_validate_hosts_from(struct vctx *c, const struct ynode *list, struct plan_zone_rules *z,
                              struct plan_imports *im);
/* The plan's hosts: its own, then the imported ones a hosts entry of the same name does not
 * replace; every duplicate name or address reported; zones filled from z for hosts that lack
 * them; each inventory's list of hosts set. */
void plan_merge_hosts(struct vctx *c, struct plan_imports *im, struct plan_zone_rules *z);

/* The validator's key tables, for plan_keys_list (keys.c): the top level (validate.c), an ssh
 * block and a host (hosts.c), a hosts_from entry (hosts_from.c), a zones rule (zones.c), a
 * scenario (scenarios.c: name, test, trials, then every parameter; `defaults` takes the
 * parameters) and adaptive trials (trials.c). */
const struct fdesc *plan_root_fields(size_t *n);
const struct fdesc *plan_ssh_fields(size_t *n);
const struct fdesc *plan_host_fields(size_t *n);
const struct fdesc *plan_source_fields(size_t *n);
const struct fdesc *plan_zone_fields(size_t *n);
const struct fdesc *plan_scenario_fields(size_t *n);
const struct fdesc *plan_trial_fields(size_t *n);

/* Validation steps (validate.c, hosts.c, scenarios.c, pairs.c). */
/* The plan's own hosts (hosts may be NULL, or empty, when inventories give the rest). */
void plan_validate_hosts(struct vctx *c, const struct ynode *hosts, const struct ynode *ssh,
                         bool inventories);
/* h's data_family and data_ip from its data address when that is a numeric one (a name's are
 * plan_resolve_names's). */
void plan_host_family_set(struct plan_host *h);
/* Give each host its zone's index (after plan_merge_hosts). */
void plan_hosts_zones(struct vctx *c);
/* A region some of whose hosts have a zone and others none is an error at each host without one
 * (once the hosts themselves are valid: a zone refused reads as none). */
void plan_zones_check(struct vctx *c);
/* Whether some hosts of a region have a zone (or zone: auto) and others none. */
bool plan_zones_partial(const struct plan *p);
void plan_zones_number(struct plan *p);
/* npairs and ntests again, after the zones changed (plan_host_place). 0 or NS_ENOMEM. */
int plan_pairs_recount(struct plan *p);
void plan_validate_scenarios(struct vctx *c, const struct ynode *list,
                             const struct ynode *defaults);
/* hosts_ok: the hosts had no problem, so "no pair" can be explained without noise; hosts_at:
 * where the plan gives its hosts (hosts, else hosts_from). */
void plan_validate_pairs(struct vctx *c, const struct ynode *pairs, const struct ynode *hosts_at,
                         bool hosts_ok);

#endif
