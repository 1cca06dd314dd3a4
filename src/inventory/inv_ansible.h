/* inv_ansible.h - an Ansible inventory as its two readers (inv_ansible_ini.c, inv_ansible_yaml.c)
 * build it, and what the plan takes from it (inv_ansible.c): groups with their variables,
 * children and hosts, hosts with their own variables, then every selected host's variables
 * merged as Ansible merges them. Internal to src/plan.
 *
 * Precedence, as Ansible's documentation ("How variables are merged") and its code
 * (ansible.inventory.helpers.sort_groups, get_group_vars) give it: a host's groups are its own
 * and all their ancestors, `all` included; they are ordered by depth (`all` 0, a group one more
 * than its deepest parent), then ansible_group_priority (default 1), then name, and merged in
 * that order, each over the ones before; the host's own variables come last. So host variables
 * beat group variables, a child group beats its parents, `all` loses to everything. */
#ifndef NS_INV_ANSIBLE_H
#define NS_INV_ANSIBLE_H

#include <stdbool.h>
#include <stddef.h>

#include "inventory/inventory.h"

struct ans_var {
    const char *key;
    const char *value; /* NULL: not text (a list or a mapping in YAML) */
};

struct ans_vars {
    struct ans_var *v;
    size_t n, cap;
};

struct inv_ans_group {
    const char *name;
    struct ans_vars vars;
    size_t *kids; /* child groups */
    size_t nkids, capkids;
    size_t *hosts;
    size_t nhosts, caphosts;
    size_t *parents;
    size_t nparents, capparents;
    int depth, priority;
    unsigned stamp; /* visit marks of the walks in inv_ansible.c */
    bool defined;   /* by a section or a YAML group, not only by a reference */
    unsigned line;  /* where it was first named, for "undefined group" messages */
};

struct ans_host {
    const char *name;
    unsigned line, col; /* its first mention */
    const char *port;   /* from "host:port" */
    struct ans_vars vars;
    size_t ngroups; /* groups naming it directly */
    unsigned stamp;
};

struct ans_table; /* name -> index, open addressing */

struct ans_inv {
    struct inv_ctx *x;
    struct inv_ans_group *g;
    size_t ng, capg;
    struct ans_host *h;
    size_t nh, caph;
    struct ans_table *gidx, *hidx;
    size_t all, ungrouped; /* the implicit groups */
    unsigned line, col;    /* the host pattern being read, for messages */
};

/* Set up a with the groups `all` and `ungrouped`; NS_ENOMEM. */
int inv_ans_init(struct ans_inv *a, struct inv_ctx *x);
void inv_ans_release(struct ans_inv *a);

/* Index of the group named name, created (undefined) when new; -1 past INV_MAX_GROUPS (said
 * once) or out of memory. */
long inv_ans_group(struct ans_inv *a, const char *name, unsigned line);

/* Every host a pattern names ("web[01:20].example.com", "db1:2222", "[2001:db8::1]:22"),
 * each put in group g with line:col as its first mention when new, and given the n variables
 * at vars (set in order, over what it had). False after reporting a bad pattern. */
bool inv_ans_hosts(struct ans_inv *a, const char *pattern, size_t g, unsigned line, unsigned col,
                   const struct ans_var *vars, size_t n);

/* Make child a child group of parent (once); false when out of memory. Cycles are found by
 * inv_ans_take. */
bool inv_ans_child(struct ans_inv *a, size_t parent, size_t child);

/* Set a variable (last one wins); value NULL: not text. */
bool inv_ans_set(struct ans_inv *a, struct ans_vars *vars, const char *key, const char *value);

/* Turn the inventory into x's machines: the hosts of the query's group (and of its children
 * at any depth; every host without one), in the order the file first names them, each with
 * its merged variables. Returns 0, NS_EPARSE after reporting (an unknown group, a cycle of
 * children), NS_ENOMEM. */
int inv_ans_take(struct ans_inv *a);

/* The readers of the two forms. */
int inv_ansible_ini(struct ans_inv *a, const char *buf, size_t len);
int inv_ansible_yaml(struct ans_inv *a, const char *buf, size_t len);

#endif
