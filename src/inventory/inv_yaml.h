/* inv_yaml.h - YAML documents as a tree whose nodes know their line and column: what the
 * Ansible inventories and the plan itself (src/plan) are read through, so that every message
 * about either names file:line:col. libyaml parses; the tree is capped in depth and size. */
#ifndef NS_INV_YAML_H
#define NS_INV_YAML_H

#include <stdbool.h>
#include <stddef.h>

struct diags;

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

/* Parse len bytes into a tree (*out, freed with inv_yaml_free). On a YAML error returns
 * NS_EPARSE with one diagnostic added (noun, "plan" or "inventory", names the text in it);
 * NS_ENOMEM when out of memory. */
int inv_yaml_parse(const char *file, const char *noun, const char *buf, size_t len,
                   struct ynode **out, struct diags *d);
void inv_yaml_free(struct ynode *n);

/* "a mapping", "a list", "a string" - for "found ..." in messages. */
const char *inv_yaml_kind_text(const struct ynode *n);
/* Plain empty, ~ or null. */
bool inv_yaml_is_null(const struct ynode *n);

#endif
