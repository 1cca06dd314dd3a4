/* diag.c - lists of diagnostics, each "file:line:col: message" (diag.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/array.h"
#include "common/diag.h"
#include "common/errors.h"

struct diag {
    unsigned line, col;
    size_t seq;    /* insertion order, keeps the sort stable */
    char *text;    /* "file:line:col: message" */
    size_t msgoff; /* where the message starts in text */
};

struct diags {
    struct diag *v;
    size_t n, cap;
    size_t total;    /* problems (errors) reported, kept or not */
    size_t warnings; /* warnings and notes reported, kept or not */
    bool oom;
};

struct diags *
diags_new(void)
{
    return calloc(1, sizeof(struct diags));
}

void
diags_free(struct diags *d)
{
    if (d == NULL)
        return;
    for (size_t i = 0; i < d->n; i++)
        free(d->v[i].text);
    free(d->v);
    free(d);
}

size_t
diags_count(const struct diags *d)
{
    return d->n;
}

const char *
diags_text(const struct diags *d, size_t i)
{
    return i < d->n ? d->v[i].text : NULL;
}

const char *
diags_message(const struct diags *d, size_t i, unsigned *line, unsigned *col)
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
diags_write(const struct diags *d, FILE *out)
{
    for (size_t i = 0; i < d->n; i++)
        fprintf(out, "%s\n", d->v[i].text);
    if (d->total + d->warnings > d->n)
        fprintf(out, "%zu more problems not shown\n", d->total + d->warnings - d->n);
}

static int
diag_grow(struct diags *d)
{
    return ARRAY_GROW(&d->v, &d->cap, d->n + 1);
}

/* Length of the invisible or reordering character at s (UTF-8), else 0: C1 controls, LRM/RLM,
 * the bidi embeddings and overrides (U+202A..U+202E) and isolates (U+2066..U+2069). */
static size_t
sneaky_len(const unsigned char *s)
{
    if (s[0] == 0xC2 && s[1] >= 0x80 && s[1] <= 0x9F)
        return 2;
    if (s[0] == 0xE2 && s[1] == 0x80 &&
        (s[2] == 0x8E || s[2] == 0x8F || (s[2] >= 0xAA && s[2] <= 0xAE)))
        return 3;
    if (s[0] == 0xE2 && s[1] == 0x81 && s[2] >= 0xA6 && s[2] <= 0xA9)
        return 3;
    return 0;
}

size_t
diag_text_control(const char *text, bool multiline)
{
    const unsigned char *s = (const unsigned char *)text;
    for (size_t i = 0; s[i] != '\0'; i++) {
        if (multiline && (s[i] == '\n' || s[i] == '\t'))
            continue;
        if (s[i] < 0x20 || s[i] == 0x7F || sneaky_len(s + i) > 0)
            return i + 1;
    }
    return 0;
}

/* Copy in to out with control and bidi characters written as escapes, so that a message about
 * a hostile value cannot forge or reorder what the terminal shows. */
static void
escape_text(const char *in, char *out, size_t len)
{
    const unsigned char *s = (const unsigned char *)in;
    size_t o = 0;
    for (size_t i = 0; s[i] != '\0' && o + 12 < len;) {
        size_t k = sneaky_len(s + i);
        if (k == 2) {
            o += (size_t)snprintf(out + o, len - o, "\\u%04x", s[i + 1]);
        } else if (k == 3) {
            unsigned cp = ((s[i] & 0x0Fu) << 12) | ((s[i + 1] & 0x3Fu) << 6) | (s[i + 2] & 0x3Fu);
            o += (size_t)snprintf(out + o, len - o, "\\u%04x", cp);
        } else if (s[i] == '\n') {
            o += (size_t)snprintf(out + o, len - o, "\\n");
        } else if (s[i] < 0x20 || s[i] == 0x7F) {
            o += (size_t)snprintf(out + o, len - o, "\\x%02x", s[i]);
        } else {
            out[o++] = (char)s[i];
        }
        i += k > 0 ? k : 1;
    }
    out[o] = '\0';
}

static const char *const diag_prefix[] = {"", "warning: ", "note: "};

static char *diag_format(const char *file, unsigned line, unsigned col, enum diag_severity kind,
                         const char *fmt, va_list ap, size_t *msgoff)
    __attribute__((format(printf, 5, 0)));

static char *
diag_format(const char *file, unsigned line, unsigned col, enum diag_severity kind, const char *fmt,
            va_list ap, size_t *msgoff)
{
    char prefix[512];
    if (line > 0)
        snprintf(prefix, sizeof prefix, "%s:%u:%u: ", file, line, col);
    else
        snprintf(prefix, sizeof prefix, "%s: ", file);
    char raw[1024], msg[1100];
    int w = snprintf(msg, sizeof msg, "%s", diag_prefix[kind]);
    vsnprintf(raw, sizeof raw, fmt, ap);
    escape_text(raw, msg + w, sizeof msg - (size_t)w);
    size_t plen = strlen(prefix), mlen = strlen(msg);
    char *text = malloc(plen + mlen + 1);
    if (text == NULL)
        return NULL;
    memcpy(text, prefix, plen);
    memcpy(text + plen, msg, mlen + 1);
    *msgoff = plen;
    return text;
}

static int vdiag_add(struct diags *d, enum diag_severity kind, const char *file, unsigned line,
                     unsigned col, const char *fmt, va_list ap)
    __attribute__((format(printf, 6, 0)));

static int
vdiag_add(struct diags *d, enum diag_severity kind, const char *file, unsigned line, unsigned col,
          const char *fmt, va_list ap)
{
    if (kind != DIAG_ERROR)
        d->warnings++;
    else
        d->total++;
    if (d->n >= DIAG_MAX)
        return 0;
    if (diag_grow(d) != 0) {
        d->oom = true;
        return NS_ENOMEM;
    }
    struct diag *g = &d->v[d->n];
    g->text = diag_format(file, line, col, kind, fmt, ap, &g->msgoff);
    if (g->text == NULL) {
        d->oom = true;
        return NS_ENOMEM;
    }
    g->line = line;
    g->col = col;
    g->seq = d->total + d->warnings;
    d->n++;
    return 0;
}

int
diag_report(struct diags *d, enum diag_severity sev, const char *file, unsigned line, unsigned col,
            const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = vdiag_add(d, sev, file, line, col, fmt, ap);
    va_end(ap);
    return rc;
}

int
diag_add(struct diags *d, const char *file, unsigned line, unsigned col, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = vdiag_add(d, DIAG_ERROR, file, line, col, fmt, ap);
    va_end(ap);
    return rc;
}

int
diag_warn(struct diags *d, const char *file, unsigned line, unsigned col, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = vdiag_add(d, DIAG_WARNING, file, line, col, fmt, ap);
    va_end(ap);
    return rc;
}

int
diag_note(struct diags *d, const char *file, unsigned line, unsigned col, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = vdiag_add(d, DIAG_NOTE, file, line, col, fmt, ap);
    va_end(ap);
    return rc;
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
diag_sort(struct diags *d)
{
    if (d->n > 1)
        qsort(d->v, d->n, sizeof *d->v, diag_cmp);
}

size_t
diag_total(const struct diags *d)
{
    return d->total;
}

bool
diag_oom(const struct diags *d)
{
    return d->oom;
}
