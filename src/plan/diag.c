/* diag.c - the list of problems found in a plan, each "file:line:col: message". */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/errors.h"
#include "plan/plan_int.h"

struct diag {
    unsigned line, col;
    size_t seq;    /* insertion order, keeps the sort stable */
    char *text;    /* "file:line:col: message" */
    size_t msgoff; /* where the message starts in text */
};

struct plan_diags {
    struct diag *v;
    size_t n, cap;
    size_t total; /* problems reported, kept or not */
    bool oom;
};

struct plan_diags *
plan_diags_new(void)
{
    return calloc(1, sizeof(struct plan_diags));
}

void
plan_diags_free(struct plan_diags *d)
{
    if (d == NULL)
        return;
    for (size_t i = 0; i < d->n; i++)
        free(d->v[i].text);
    free(d->v);
    free(d);
}

size_t
plan_diags_count(const struct plan_diags *d)
{
    return d->n;
}

const char *
plan_diags_text(const struct plan_diags *d, size_t i)
{
    return i < d->n ? d->v[i].text : NULL;
}

const char *
plan_diags_message(const struct plan_diags *d, size_t i, unsigned *line, unsigned *col)
{
    if (i >= d->n)
        return NULL;
    if (line != NULL)
        *line = d->v[i].line;
    if (col != NULL)
        *col = d->v[i].col;
    return d->v[i].text + d->v[i].msgoff;
}

void
plan_diags_write(const struct plan_diags *d, FILE *out)
{
    for (size_t i = 0; i < d->n; i++)
        fprintf(out, "%s\n", d->v[i].text);
    if (d->total > d->n)
        fprintf(out, "%zu more problems not shown\n", d->total - d->n);
}

static int
diag_grow(struct plan_diags *d)
{
    if (d->n < d->cap)
        return 0;
    size_t cap = d->cap ? d->cap * 2 : 16;
    struct diag *v = realloc(d->v, cap * sizeof *v);
    if (v == NULL)
        return NS_ENOMEM;
    d->v = v;
    d->cap = cap;
    return 0;
}

static char *diag_format(const char *file, unsigned line, unsigned col, const char *fmt, va_list ap,
                         size_t *msgoff) __attribute__((format(printf, 4, 0)));

static char *
diag_format(const char *file, unsigned line, unsigned col, const char *fmt, va_list ap,
            size_t *msgoff)
{
    char prefix[512];
    if (line > 0)
        snprintf(prefix, sizeof prefix, "%s:%u:%u: ", file, line, col);
    else
        snprintf(prefix, sizeof prefix, "%s: ", file);
    char msg[1024];
    vsnprintf(msg, sizeof msg, fmt, ap);
    size_t plen = strlen(prefix), mlen = strlen(msg);
    char *text = malloc(plen + mlen + 1);
    if (text == NULL)
        return NULL;
    memcpy(text, prefix, plen);
    memcpy(text + plen, msg, mlen + 1);
    *msgoff = plen;
    return text;
}

int
plan_diag_add(struct plan_diags *d, const char *file, unsigned line, unsigned col, const char *fmt,
              ...)
{
    d->total++;
    if (d->n >= PLAN_MAX_DIAGS)
        return 0;
    if (diag_grow(d) != 0) {
        d->oom = true;
        return NS_ENOMEM;
    }
    struct diag *g = &d->v[d->n];
    va_list ap;
    va_start(ap, fmt);
    g->text = diag_format(file, line, col, fmt, ap, &g->msgoff);
    va_end(ap);
    if (g->text == NULL) {
        d->oom = true;
        return NS_ENOMEM;
    }
    g->line = line;
    g->col = col;
    g->seq = d->total;
    d->n++;
    return 0;
}

static int
diag_cmp(const void *a, const void *b)
{
    const struct diag *x = a, *y = b;
    if (x->line != y->line)
        return x->line < y->line ? -1 : 1;
    if (x->col != y->col)
        return x->col < y->col ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

void
plan_diag_sort(struct plan_diags *d)
{
    if (d->n > 1)
        qsort(d->v, d->n, sizeof *d->v, diag_cmp);
}

size_t
plan_diag_total(const struct plan_diags *d)
{
    return d->total;
}

bool
plan_diag_oom(const struct plan_diags *d)
{
    return d->oom;
}
