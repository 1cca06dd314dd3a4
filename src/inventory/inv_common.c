/* inv_common.c - what every inventory reader shares: where problems go, the list of selected
 * machines, the arena, the caps. */
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/array.h"
#include "common/errors.h"
#include "inventory/inventory.h"

const char *const inv_format_names[INV_FORMAT_COUNT + 1] = {
    [INV_AZURE] = "azure",
    [INV_AWS] = "aws",
    [INV_GCP] = "gcp",
    [INV_ANSIBLE] = "ansible",
    [INV_SSH_CONFIG] = "ssh_config",
    [INV_FORMAT_COUNT] = NULL,
};

const char *
inv_format_name(enum inv_format f)
{
    return (unsigned)f < INV_FORMAT_COUNT ? inv_format_names[f] : NULL;
}

static void inv_report(struct inv_ctx *x, enum diag_severity sev, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));

static void
inv_report(struct inv_ctx *x, enum diag_severity sev, const char *fmt, va_list ap)
{
    char msg[1024];
    vsnprintf(msg, sizeof msg, fmt, ap);
    int rc;
    if (sev == DIAG_ERROR && ++x->errors > INV_MAX_ERRORS) {
        rc = x->errors == INV_MAX_ERRORS + 1
                 ? diag_add(x->d, x->plan_file, x->line, x->col,
                            "more problems in %s not shown; is it in the %s format?", x->file,
                            inv_format_names[x->format])
                 : 0;
    } else {
        rc = diag_report(x->d, sev, x->plan_file, x->line, x->col, "%s", msg);
    }
    if (rc != 0)
        x->oom = true;
}

void
inv_error(struct inv_ctx *x, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    inv_report(x, DIAG_ERROR, fmt, ap);
    va_end(ap);
}

void
inv_warn(struct inv_ctx *x, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    inv_report(x, DIAG_WARNING, fmt, ap);
    va_end(ap);
}

void
inv_note(struct inv_ctx *x, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    inv_report(x, DIAG_NOTE, fmt, ap);
    va_end(ap);
}

const char *
inv_strndup(struct inv_ctx *x, const char *s, size_t len)
{
    char *r = arena_strndup(x->arena, s, len);
    if (r == NULL)
        x->oom = true;
    return r;
}

const char *
inv_strdup(struct inv_ctx *x, const char *s)
{
    return s != NULL ? inv_strndup(x, s, strlen(s)) : NULL;
}

struct inv_machine *
inv_add(struct inv_ctx *x, const char *name, const char *where, unsigned line, unsigned col)
{
    char entry[600];
    if (line > 0)
        snprintf(entry, sizeof entry, "%s:%u:%u", x->file, line, col);
    else
        snprintf(entry, sizeof entry, "%s %s", x->file, where);
    if (ARRAY_GROW(&x->m, &x->cap, x->n + 1) != 0) {
        x->oom = true;
        return NULL;
    }
    struct inv_machine *m = &x->m[x->n];
    memset(m, 0, sizeof *m);
    m->name = inv_strdup(x, name);
    m->entry = inv_strdup(x, entry);
    if (m->name == NULL || m->entry == NULL)
        return NULL;
    x->n++;
    return m;
}

bool
inv_give_up(const struct inv_ctx *x)
{
    return x->oom || x->errors > INV_MAX_ERRORS;
}

bool
inv_count(struct inv_ctx *x)
{
    if (++x->nread <= INV_MAX_MACHINES)
        return true;
    if (x->nread == INV_MAX_MACHINES + 1)
        inv_error(x, "inventory %s lists more than %d machines; select fewer when you write it",
                  x->file, INV_MAX_MACHINES);
    return false;
}

bool
inv_name_wanted(const struct inv_ctx *x, const char *name)
{
    return x->q->match == NULL || fnmatch(x->q->match, name, 0) == 0;
}

void
inv_ctx_release(struct inv_ctx *x)
{
    free(x->m);
    x->m = NULL;
    x->n = x->cap = 0;
}
