/* inv_json.h - what the readers of the clouds' JSON (inv_azure.c, inv_aws.c, inv_gcp.c)
 * share, over jansson. Internal to src/plan. */
#ifndef NS_INV_JSON_H
#define NS_INV_JSON_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "inventory/inventory.h"

/* The document; NULL after reporting "invalid json in FILE at L:C: ..." or running out of
 * memory (x->oom). Duplicate keys are refused: no cloud's tool prints them. */
json_t *inv_json_load(struct inv_ctx *x, const char *buf, size_t len);

/* Whose output doc looks like (aws: an object with Reservations, or instances with an
 * InstanceId; gcp: "kind": "compute#instance"; azure: "type":
 * "Microsoft.Compute/virtualMachines"), or -1. */
int inv_json_guess(const json_t *doc);

/* If doc is another cloud's output than x->format's, say so (once) and return true. */
bool inv_json_other_cloud(struct inv_ctx *x, const json_t *doc);

/* "an object", "a list", "a string", "a number", "true", "false", "null". */
const char *inv_json_kind(const json_t *v);

/* Member key of o (an object; anything else has no members) as a string: NULL when absent or
 * null; when of another type, NULL after reporting "unexpected json in FILE WHERE: "KEY" is a
 * number, expected a string" (where names the entry, "[2]"). */
const char *inv_json_str(struct inv_ctx *x, const json_t *o, const char *key, const char *where);

/* Member key of o when it is an object (absent and null: NULL, silently; another type:
 * reported, NULL). */
const json_t *inv_json_obj(struct inv_ctx *x, const json_t *o, const char *key, const char *where);

/* Member key of o when it is a list (as inv_json_obj). */
const json_t *inv_json_list(struct inv_ctx *x, const json_t *o, const char *key, const char *where);

/* Do the query's tags all hold in tags, a {"key": "value"} object (NULL: the machine has no
 * tags)? */
bool inv_json_tags_match(const struct inv_ctx *x, const json_t *tags);

/* The last '/'-separated segment of s, into the arena (a zone or machine type URL's name). */
const char *inv_last_segment(struct inv_ctx *x, const char *s);

/* The first item of a comma-separated list, trimmed, into the arena; NULL when s is NULL or
 * its first item is empty. */
const char *inv_first_item(struct inv_ctx *x, const char *s);

#endif
