/* inv_yaml.c - YAML text to a tree of scalars, lists and mappings that remembers where each node
 * starts, built from libyaml's events so that the depth, the number of nodes and aliases are
 * under our control (a plan is small; anything huge or recursive is a mistake or an attack). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "common/diag.h"
#include "common/errors.h"
#include "inventory/inv_yaml.h"
#include "inventory/inv_yaml_hint.h"

struct yparser {
    yaml_parser_t yp;
    const char *file;
    const char *buf;
    size_t len;
    struct diags *d;
    const char *noun; /* "plan" or "inventory", for messages */
    size_t nodes;
    size_t aliases; /* refused, each where it is: the document is read on to find them all */
};

static void
offset_position(const char *buf, size_t len, size_t off, unsigned *line, unsigned *col)
{
    unsigned l = 1, c = 1;
    for (size_t i = 0; i < off && i < len; i++) {
        if (buf[i] == '\n') {
            l++;
            c = 1;
        } else if (((unsigned char)buf[i] & 0xC0) != 0x80) {
            c++;
        }
    }
    *line = l;
    *col = c;
}

static int
yp_oom(struct yparser *ps)
{
    diag_add(ps->d, ps->file, 0, 0, "out of memory while parsing the %s", ps->noun);
    return NS_ENOMEM;
}

/* libyaml's words, and before them a plain sentence about the line when the text around the
 * error shows the mistake (inv_yaml_hint.c): "this line is indented more than the key above
 * it" says what "mapping values are not allowed in this context" means. */
static int
yp_syntax_error(struct yparser *ps)
{
    const yaml_parser_t *y = &ps->yp;
    if (y->error == YAML_MEMORY_ERROR)
        return yp_oom(ps);
    const char *problem = y->problem ? y->problem : "syntax error";
    unsigned line, col;
    if (y->error == YAML_READER_ERROR) {
        offset_position(ps->buf, ps->len, y->problem_offset, &line, &col);
    } else {
        line = (unsigned)y->problem_mark.line + 1;
        col = (unsigned)y->problem_mark.column + 1;
    }
    char words[256], hint[512];
    if (y->context != NULL)
        snprintf(words, sizeof words, "%s (%s started at %u:%u)", problem, y->context,
                 (unsigned)y->context_mark.line + 1, (unsigned)y->context_mark.column + 1);
    else
        snprintf(words, sizeof words, "%s", problem);
    hint[0] = '\0';
    if (y->error != YAML_READER_ERROR) {
        struct inv_yaml_error ye = {.problem = y->problem,
                                    .context = y->context,
                                    .line = y->problem_mark.line,
                                    .col = y->problem_mark.column,
                                    .context_line = y->context_mark.line,
                                    .context_col = y->context_mark.column};
        inv_yaml_hint(ps->buf, ps->len, &ye, hint, sizeof hint);
    }
    if (hint[0] != '\0')
        diag_add(ps->d, ps->file, line, col, "invalid yaml: %s [libyaml: %s]", hint, words);
    else
        diag_add(ps->d, ps->file, line, col, "invalid yaml: %s", words);
    return NS_EPARSE;
}

static int
yp_next(struct yparser *ps, yaml_event_t *ev)
{
    if (!yaml_parser_parse(&ps->yp, ev))
        return yp_syntax_error(ps);
    return 0;
}

static int yp_error_at(struct yparser *ps, const yaml_event_t *ev, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int
yp_error_at(struct yparser *ps, const yaml_event_t *ev, const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    diag_add(ps->d, ps->file, (unsigned)ev->start_mark.line + 1,
             (unsigned)ev->start_mark.column + 1, "%s", msg);
    return NS_EPARSE;
}

void
inv_yaml_free(struct ynode *n)
{
    if (n == NULL)
        return;
    for (size_t i = 0; i < n->nkids; i++)
        inv_yaml_free(n->kids[i]);
    free(n->kids);
    free(n->str);
    free(n);
}

static struct ynode *
ynode_new(enum ynode_kind kind, const yaml_event_t *ev)
{
    struct ynode *n = calloc(1, sizeof *n);
    if (n == NULL)
        return NULL;
    n->kind = kind;
    n->line = (unsigned)ev->start_mark.line + 1;
    n->col = (unsigned)ev->start_mark.column + 1;
    return n;
}

static int
ynode_append(struct ynode *parent, struct ynode *kid)
{
    size_t n = parent->nkids;
    if ((n & (n - 1)) == 0) { /* capacity is the next power of two */
        struct ynode **v = realloc(parent->kids, (n ? n * 2 : 4) * sizeof *v);
        if (v == NULL)
            return NS_ENOMEM;
        parent->kids = v;
    }
    parent->kids[n] = kid;
    parent->nkids = n + 1;
    return 0;
}

static int
yp_scalar(struct yparser *ps, const yaml_event_t *ev, struct ynode **out)
{
    const char *val = (const char *)ev->data.scalar.value;
    size_t len = ev->data.scalar.length;
    if (memchr(val, '\0', len) != NULL)
        return yp_error_at(ps, ev, "invalid value: contains a NUL character");
    struct ynode *n = ynode_new(YNODE_SCALAR, ev);
    char *s = malloc(len + 1);
    if (n == NULL || s == NULL) {
        free(n);
        free(s);
        return yp_oom(ps);
    }
    memcpy(s, val, len);
    s[len] = '\0';
    n->str = s;
    n->len = len;
    n->plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
    *out = n;
    return 0;
}

static int yp_node(struct yparser *ps, yaml_event_t *ev, unsigned depth, struct ynode **out);

/* Children until the matching end event; ev is the start event (borrowed). */
static int
yp_collection(struct yparser *ps, const yaml_event_t *start, unsigned depth, struct ynode **out)
{
    bool map = start->type == YAML_MAPPING_START_EVENT;
    yaml_event_type_t end = map ? YAML_MAPPING_END_EVENT : YAML_SEQUENCE_END_EVENT;
    struct ynode *n = ynode_new(map ? YNODE_MAP : YNODE_SEQ, start);
    if (n == NULL)
        return yp_oom(ps);
    for (;;) {
        yaml_event_t ev;
        int rc = yp_next(ps, &ev);
        if (rc == 0 && ev.type == end) {
            yaml_event_delete(&ev);
            break;
        }
        struct ynode *kid = NULL;
        if (rc == 0)
            rc = yp_node(ps, &ev, depth + 1, &kid);
        if (rc == 0 && ynode_append(n, kid) != 0) {
            inv_yaml_free(kid);
            rc = yp_oom(ps);
        }
        if (rc != 0) {
            inv_yaml_free(n);
            return rc;
        }
    }
    *out = n;
    return 0;
}

/* An alias is refused where it is, and the parse goes on (every alias of the document is
 * reported at once) with an empty scalar in its place; the document then fails as a whole. */
static int
yp_alias(struct yparser *ps, const yaml_event_t *ev, struct ynode **out)
{
    yp_error_at(ps, ev, "aliases are not supported; write the value out in full");
    ps->aliases++;
    struct ynode *n = ynode_new(YNODE_SCALAR, ev);
    char *s = calloc(1, 1);
    if (n == NULL || s == NULL) {
        free(n);
        free(s);
        return yp_oom(ps);
    }
    n->str = s;
    *out = n;
    return 0;
}

/* Build the node that starts with ev; ev is consumed. */
static int
yp_node(struct yparser *ps, yaml_event_t *ev, unsigned depth, struct ynode **out)
{
    int rc;
    if (++ps->nodes > YNODE_MAX_NODES)
        rc =
            yp_error_at(ps, ev, "%s has too many values (more than %d)", ps->noun, YNODE_MAX_NODES);
    else if (depth > YNODE_MAX_DEPTH)
        rc = yp_error_at(ps, ev, "%s is nested too deeply (more than %d levels)", ps->noun,
                         YNODE_MAX_DEPTH);
    else if (ev->type == YAML_SCALAR_EVENT)
        rc = yp_scalar(ps, ev, out);
    else if (ev->type == YAML_SEQUENCE_START_EVENT || ev->type == YAML_MAPPING_START_EVENT)
        rc = yp_collection(ps, ev, depth, out);
    else if (ev->type == YAML_ALIAS_EVENT)
        rc = yp_alias(ps, ev, out);
    else
        rc = yp_error_at(ps, ev, "invalid yaml: unexpected event");
    yaml_event_delete(ev);
    return rc;
}

/* Read the next event and require its type. */
static int
yp_expect(struct yparser *ps, yaml_event_type_t type, yaml_event_t *ev)
{
    int rc = yp_next(ps, ev);
    if (rc != 0)
        return rc;
    if (ev->type == type)
        return 0;
    if (ev->type == YAML_DOCUMENT_START_EVENT)
        rc = yp_error_at(ps, ev, "unexpected second document; a%s %s is a single document",
                         ps->noun[0] == 'i' ? "n" : "", ps->noun);
    else
        rc = yp_error_at(ps, ev, "invalid yaml: unexpected content");
    yaml_event_delete(ev);
    return rc;
}

static int
yp_document(struct yparser *ps, struct ynode **out)
{
    yaml_event_t ev;
    int rc = yp_expect(ps, YAML_STREAM_START_EVENT, &ev);
    if (rc != 0)
        return rc;
    yaml_event_delete(&ev);
    if ((rc = yp_next(ps, &ev)) != 0)
        return rc;
    if (ev.type == YAML_STREAM_END_EVENT) {
        yaml_event_delete(&ev);
        diag_add(ps->d, ps->file, 0, 0, "%s is empty", ps->noun);
        return NS_EPARSE;
    }
    yaml_event_delete(&ev); /* document start */
    if ((rc = yp_next(ps, &ev)) != 0 || (rc = yp_node(ps, &ev, 1, out)) != 0)
        return rc;
    if ((rc = yp_expect(ps, YAML_DOCUMENT_END_EVENT, &ev)) == 0) {
        yaml_event_delete(&ev);
        rc = yp_expect(ps, YAML_STREAM_END_EVENT, &ev);
        if (rc == 0)
            yaml_event_delete(&ev);
    }
    if (rc == 0 && ps->aliases > 0)
        rc = NS_EPARSE;
    if (rc != 0) {
        inv_yaml_free(*out);
        *out = NULL;
    }
    return rc;
}

int
inv_yaml_parse(const char *file, const char *noun, const char *buf, size_t len, struct ynode **out,
               struct diags *d)
{
    struct yparser ps = {.file = file, .buf = buf, .len = len, .d = d, .noun = noun};
    *out = NULL;
    if (!yaml_parser_initialize(&ps.yp))
        return yp_oom(&ps);
    yaml_parser_set_input_string(&ps.yp, (const unsigned char *)buf, len);
    int rc = yp_document(&ps, out);
    yaml_parser_delete(&ps.yp);
    return rc;
}

const char *
inv_yaml_kind_text(const struct ynode *n)
{
    if (n->kind == YNODE_MAP)
        return "a mapping";
    if (n->kind == YNODE_SEQ)
        return "a list";
    return inv_yaml_is_null(n) ? "nothing" : "a string";
}

bool
inv_yaml_is_null(const struct ynode *n)
{
    if (n->kind != YNODE_SCALAR || !n->plain)
        return false;
    return n->len == 0 || strcmp(n->str, "~") == 0 || strcmp(n->str, "null") == 0 ||
           strcmp(n->str, "Null") == 0 || strcmp(n->str, "NULL") == 0;
}
