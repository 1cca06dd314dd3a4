/* load.c - loading a plan: read the file with a cap, parse, validate. Validation builds the
 * plan through its internals (plan_int.h), never through the read API of plan.c. */
#include <stdlib.h>
#include <string.h>

#include "common/errors.h"
#include "common/fileread.h"
#include "plan/plan_int.h"

/* Generated at build time from plans/localhost.yaml (embed.cmake). */
extern const unsigned char ns_plan_default_yaml[];
extern const size_t ns_plan_default_yaml_len;

const char *
plan_default_yaml(size_t *len)
{
    if (len != NULL)
        *len = ns_plan_default_yaml_len;
    return (const char *)ns_plan_default_yaml;
}

int
plan_load_default(struct plan **out, struct plan_diags *diags)
{
    size_t len;
    const char *yaml = plan_default_yaml(&len);
    return plan_load_buffer(PLAN_DEFAULT_FILE, yaml, len, out, diags);
}

/* --- reading the file -------------------------------------------------------------------- */

static int
too_large(struct plan_diags *d, const char *path)
{
    plan_diag_add(d, path, 0, 0, "plan is larger than the limit of %u MiB",
                  PLAN_MAX_FILE_SIZE >> 20);
    return NS_EPARSE;
}

int
plan_load_file(const char *path, struct plan **out, struct plan_diags *diags)
{
    *out = NULL;
    char *buf = NULL;
    size_t len = 0;
    struct err e;
    int rc = fileread_path(path, PLAN_MAX_FILE_SIZE, &buf, &len, &e);
    if (rc == NS_ETOOBIG)
        return too_large(diags, path);
    if (rc == NS_ENOMEM) {
        plan_diag_add(diags, path, 0, 0, "out of memory reading the plan");
        return NS_ENOMEM;
    }
    if (rc != 0) {
        plan_diag_add(diags, path, 0, 0, "cannot read plan: %s", e.msg);
        return NS_EPARSE;
    }
    rc = plan_load_buffer(path, buf, len, out, diags);
    free(buf);
    return rc;
}

static struct plan *
plan_alloc(const char *name, const char *buf, size_t len)
{
    struct plan *p = calloc(1, sizeof *p);
    if (p == NULL)
        return NULL;
    p->file = plan_arena_strndup(&p->arena, name, strlen(name));
    p->source = plan_arena_strndup(&p->arena, buf, len);
    p->source_len = len;
    if (p->file == NULL || p->source == NULL) {
        plan_free(p);
        return NULL;
    }
    return p;
}

int
plan_load_buffer(const char *name, const char *buf, size_t len, struct plan **out,
                 struct plan_diags *diags)
{
    *out = NULL;
    if (len > PLAN_MAX_FILE_SIZE)
        return too_large(diags, name);
    struct plan *p = plan_alloc(name, buf, len);
    if (p == NULL) {
        plan_diag_add(diags, name, 0, 0, "out of memory loading the plan");
        return NS_ENOMEM;
    }
    struct ynode *root = NULL;
    int rc = plan_ynode_parse(p->file, buf, len, &root, diags);
    if (rc == 0)
        rc = plan_validate(p, root, diags);
    plan_ynode_free(root);
    plan_diag_sort(diags);
    if (rc != 0)
        plan_free(p);
    else
        *out = p;
    return rc;
}

void
plan_free(struct plan *p)
{
    if (p == NULL)
        return;
    plan_arena_release(&p->arena);
    free(p);
}
