/* keys.c - every key the plan validator accepts, read from its own tables (fields.h), so that
 * the documentation of the plan format can be checked against what `check` takes. */
#include <stdio.h>
#include <string.h>

#include "plan/fields.h"

/* The keys whose value the validator reads as a node of its own (FT_NODE), by name. */
static const struct {
    const char *key, *type;
} node_types[] = {
    {"ssh", "mapping: the ssh.* keys"},
    {"hosts", "list of mappings: the hosts[].* keys"},
    {"hosts_from", "list of mappings: the hosts_from[].* keys"},
    {"zones", "mapping of glob: zone, or {zone, region, zone_id}"},
    {"defaults", "mapping of scenario parameters"},
    {"scenarios", "list of mappings: the scenarios[].* keys"},
    {"pairs", "all|cross-zone|same-zone, or a list of [src, dst]"},
    {"labels", "mapping of text"},
    {"tags", "mapping of text"},
    {"target_ci", "percentage of the mean (above 0 up to 100%)"},
};

/* What a value of f is, in words: "text", "1..65535", "both|one", ... into buf. */
static const char *
key_type(const struct fdesc *f, char *buf, size_t len)
{
    if (f->type == FT_NODE)
        for (size_t i = 0; i < sizeof node_types / sizeof node_types[0]; i++)
            if (strcmp(f->key, node_types[i].key) == 0)
                return node_types[i].type;
    static const char *const words[] = {
        [FT_NODE] = "mapping or list",
        [FT_STR] = "text",
        [FT_NAME] = "name (letters, digits, . _ -)",
        [FT_ADDR] = "address or host name",
        [FT_JUMP] = "[user@]host[:port],... or none",
        [FT_UINT] = "integer",
        [FT_U64] = "integer",
        [FT_DUR] = "duration",
        [FT_SIZE] = "size",
        [FT_RATE] = "rate",
        [FT_BOOL] = "true|false",
        [FT_ENUM] = "",
        [FT_SPEC] = "",
        [FT_CONV] = "integer 1..1000 or {min, max, target_ci}",
    };
    if (f->type == FT_ENUM) {
        size_t used = 0;
        buf[0] = '\0';
        for (size_t i = 0; f->choices[i] != NULL && used < len; i++)
            used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? "|" : "", f->choices[i]);
        return buf;
    }
    if (f->type == FT_SPEC) {
        char range[64];
        static const char *const types[] = {
            [TESTSPEC_DURATION] = "duration", [TESTSPEC_SIZE] = "size",
            [TESTSPEC_RATE] = "rate",         [TESTSPEC_COUNT] = "integer",
            [TESTSPEC_BOOL] = "true|false",   [TESTSPEC_DIRECTION] = "direction"};
        enum testspec_param p = (enum testspec_param)f->spec;
        enum testspec_type t = testspec_type(p);
        if (t == TESTSPEC_BOOL)
            return types[t];
        if (t == TESTSPEC_DIRECTION) { /* its names, as the enum keys' */
            size_t used = 0;
            buf[0] = '\0';
            for (int d = 0; testspec_direction_name(d) != NULL && used < len; d++)
                used += (size_t)snprintf(buf + used, len - used, "%s%s", d ? "|" : "",
                                         testspec_direction_name(d));
            return buf;
        }
        snprintf(buf, len, "%s %s", types[t], testspec_range_text(p, -1, range, sizeof range));
        return buf;
    }
    if (f->range != NULL) {
        snprintf(buf, len, "%s %s", words[f->type], f->range);
        return buf;
    }
    return words[f->type];
}

/* The keys of table t under prefix ("hosts[]."). */
static void
keys_of(plan_key_fn *fn, void *ctx, const char *prefix, const struct fdesc *t, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char path[128], type[256];
        snprintf(path, sizeof path, "%s%s", prefix, t[i].key);
        fn(ctx, path, key_type(&t[i], type, sizeof type));
    }
}

void
plan_keys_list(plan_key_fn *fn, void *ctx)
{
    size_t n;
    const struct fdesc *t = plan_root_fields(&n);
    keys_of(fn, ctx, "", t, n);
    t = plan_ssh_fields(&n);
    keys_of(fn, ctx, "ssh.", t, n);
    t = plan_host_fields(&n);
    keys_of(fn, ctx, "hosts[].", t, n);
    t = plan_source_fields(&n);
    keys_of(fn, ctx, "hosts_from[].", t, n);
    t = plan_zone_fields(&n);
    keys_of(fn, ctx, "zones.PATTERN.", t, n);
    t = plan_scenario_fields(&n);
    keys_of(fn, ctx, "scenarios[].", t, n);
    t = plan_trial_fields(&n);
    keys_of(fn, ctx, "trials.", t, n);
}
