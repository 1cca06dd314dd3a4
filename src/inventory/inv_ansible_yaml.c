/* inv_ansible_yaml.c - Ansible's YAML inventory, read as Ansible's yaml plugin reads it
 * (ansible/plugins/inventory/yaml.py; "How to build your inventory"):
 *
 *   all:                          <- top-level keys are groups
 *     vars: {ansible_user: ops}
 *     children:
 *       web:
 *         hosts:
 *           web[01:03]: {zone: "1"}   <- host patterns, each with its variables or nothing
 *           db1:2222:
 *         vars: {region: westus3}
 *
 * A group's hosts, vars and children are mappings (a single name in place of one is taken
 * as that name, as Ansible does); other keys are skipped with a warning, as Ansible skips
 * them. Anchors and aliases are refused, as in plans. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/errors.h"
#include "inventory/inv_ansible.h"
#include "inventory/inv_yaml.h"

struct yr {
    struct ans_inv *a;
    bool failed;
};

static void yr_error(struct yr *r, const struct ynode *at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void
yr_error(struct yr *r, const struct ynode *at, const char *fmt, ...)
{
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    inv_error(r->a->x, "unexpected yaml in %s at %u:%u: %s", r->a->x->file, at->line, at->col, msg);
    r->failed = true;
}

/* A variable's value: scalar text, or NULL (a list, a mapping, null) that the plan cannot use. */
static const char *
yr_text(const struct ynode *v)
{
    return v->kind == YNODE_SCALAR && !inv_yaml_is_null(v) ? v->str : NULL;
}

static bool
yr_vars(struct yr *r, const struct ynode *map, struct ans_vars *out, struct ans_var *buf, size_t *n)
{
    for (size_t i = 0; i + 1 < map->nkids; i += 2) {
        const struct ynode *k = map->kids[i], *v = map->kids[i + 1];
        if (k->kind != YNODE_SCALAR) {
            yr_error(r, k, "a variable name must be text, found %s", inv_yaml_kind_text(k));
            continue;
        }
        if (out != NULL && !inv_ans_set(r->a, out, k->str, yr_text(v)))
            return false;
        if (buf != NULL)
            buf[(*n)++] = (struct ans_var){k->str, yr_text(v)};
    }
    return true;
}

static void
yr_hosts(struct yr *r, const struct ynode *hosts, size_t g)
{
    for (size_t i = 0; i + 1 < hosts->nkids && !inv_give_up(r->a->x); i += 2) {
        const struct ynode *k = hosts->kids[i], *v = hosts->kids[i + 1];
        if (k->kind != YNODE_SCALAR || k->len == 0) {
            yr_error(r, k, "a host pattern must be text, found %s", inv_yaml_kind_text(k));
            continue;
        }
        if (!inv_yaml_is_null(v) && v->kind != YNODE_MAP) {
            yr_error(r, v, "the variables of host '%s' must be a mapping, found %s", k->str,
                     inv_yaml_kind_text(v));
            continue;
        }
        size_t n = 0;
        struct ans_var *vars = calloc(v->nkids / 2 + 1, sizeof *vars);
        if (vars == NULL) {
            r->a->x->oom = true;
            return;
        }
        if (v->kind == YNODE_MAP)
            yr_vars(r, v, NULL, vars, &n);
        if (!inv_ans_hosts(r->a, k->str, g, k->line, k->col, vars, n))
            r->failed = true;
        free(vars);
    }
}

static long yr_group(struct yr *r, const struct ynode *key, const struct ynode *val);

static void
yr_children(struct yr *r, const struct ynode *kids, size_t g)
{
    for (size_t i = 0; i + 1 < kids->nkids && !inv_give_up(r->a->x); i += 2) {
        long c = yr_group(r, kids->kids[i], kids->kids[i + 1]);
        if (c >= 0 && !inv_ans_child(r->a, g, (size_t)c))
            return;
    }
}

/* hosts, vars or children: a mapping, nothing, or one name standing for {name: null}. */
static bool
yr_section_ok(struct yr *r, const struct ynode *k, const struct ynode *v, const char *group)
{
    if (v->kind == YNODE_MAP || v->kind == YNODE_SCALAR)
        return true;
    yr_error(r, v, "%s of group '%s' must be a mapping, found %s", k->str, group,
             inv_yaml_kind_text(v));
    return false;
}

/* A section written as one name: Ansible takes "hosts: web1" as {web1: null}. */
static void
yr_section_one(struct yr *r, const struct ynode *k, const struct ynode *v, size_t g)
{
    if (strcmp(k->str, "hosts") == 0) {
        if (!inv_ans_hosts(r->a, v->str, g, v->line, v->col, NULL, 0))
            r->failed = true;
    } else if (strcmp(k->str, "children") == 0) {
        long c = inv_ans_group(r->a, v->str, v->line);
        if (c >= 0)
            r->a->g[c].defined = true;
        if (c < 0 || !inv_ans_child(r->a, g, (size_t)c))
            r->failed = true;
    } else if (!inv_ans_set(r->a, &r->a->g[g].vars, v->str, NULL)) {
        r->failed = true;
    }
}

static void
yr_section(struct yr *r, const struct ynode *k, const struct ynode *v, size_t g)
{
    const char *name = r->a->g[g].name;
    if (inv_yaml_is_null(v) || !yr_section_ok(r, k, v, name))
        return;
    if (v->kind == YNODE_SCALAR)
        yr_section_one(r, k, v, g);
    else if (strcmp(k->str, "hosts") == 0)
        yr_hosts(r, v, g);
    else if (strcmp(k->str, "children") == 0)
        yr_children(r, v, g);
    else if (!yr_vars(r, v, &r->a->g[g].vars, NULL, NULL))
        r->failed = true;
}

static long
yr_group(struct yr *r, const struct ynode *key, const struct ynode *val)
{
    if (key->kind != YNODE_SCALAR || key->len == 0) {
        yr_error(r, key, "a group name must be text, found %s", inv_yaml_kind_text(key));
        return -1;
    }
    if (!inv_yaml_is_null(val) && val->kind != YNODE_MAP) {
        inv_warn(r->a->x, "group '%s' in %s at %u:%u is not a mapping; Ansible skips it too",
                 key->str, r->a->x->file, key->line, key->col);
        return -1;
    }
    long g = inv_ans_group(r->a, key->str, key->line);
    if (g < 0)
        return -1;
    r->a->g[g].defined = true;
    for (size_t i = 0; val->kind == YNODE_MAP && i + 1 < val->nkids && !inv_give_up(r->a->x);
         i += 2) {
        const struct ynode *k = val->kids[i], *v = val->kids[i + 1];
        bool known = k->kind == YNODE_SCALAR &&
                     (strcmp(k->str, "hosts") == 0 || strcmp(k->str, "vars") == 0 ||
                      strcmp(k->str, "children") == 0);
        if (known)
            yr_section(r, k, v, (size_t)g);
        else
            inv_warn(r->a->x,
                     "unexpected key '%s' in group '%s' of %s at %u:%u (hosts, vars and "
                     "children are read); Ansible skips it too",
                     k->kind == YNODE_SCALAR ? k->str : "?", key->str, r->a->x->file, k->line,
                     k->col);
    }
    return g;
}

/* The parser's diagnostic, restated as one about the inventory file. */
static void
yr_parse_failed(struct yr *r, const struct diags *d)
{
    for (size_t i = 0; i < diags_count(d); i++) {
        unsigned line, col;
        const char *msg = diags_message(d, i, &line, &col);
        if (strncmp(msg, "invalid yaml: ", 14) == 0)
            msg += 14;
        if (line > 0)
            inv_error(r->a->x, "invalid yaml in %s at %u:%u: %s", r->a->x->file, line, col, msg);
        else
            inv_error(r->a->x, "invalid yaml in %s: %s", r->a->x->file, msg);
    }
    r->failed = true;
}

int
inv_ansible_yaml(struct ans_inv *a, const char *buf, size_t len)
{
    struct yr r = {.a = a};
    struct diags *d = diags_new();
    struct ynode *root = NULL;
    if (d == NULL)
        return NS_ENOMEM;
    int rc = inv_yaml_parse(a->x->file, "inventory", buf, len, &root, d);
    if (rc == NS_ENOMEM)
        a->x->oom = true;
    else if (rc != 0)
        yr_parse_failed(&r, d);
    else if (root->kind != YNODE_MAP && !inv_yaml_is_null(root))
        yr_error(&r, root, "an inventory is a mapping of groups, found %s",
                 inv_yaml_kind_text(root));
    for (size_t i = 0; rc == 0 && root->kind == YNODE_MAP && i + 1 < root->nkids; i += 2)
        yr_group(&r, root->kids[i], root->kids[i + 1]);
    inv_yaml_free(root);
    diags_free(d);
    if (a->x->oom)
        return NS_ENOMEM;
    return r.failed ? NS_EPARSE : 0;
}
