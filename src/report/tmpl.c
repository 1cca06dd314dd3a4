/* tmpl.c - a small Mustache-like template engine over a JSON context (see reportint.h).
 *
 * Every {{value}} is escaped for the output mode: in HTML & < > " ' become entities, so a host
 * named <script>alert(1)</script> is shown as text. Markdown is plain text that a renderer may
 * read: a value is never turned into entities there (report.md is read as it is as often as it
 * is rendered), only the characters CommonMark and GitHub's tables would take as markup get a
 * backslash before them (CommonMark's escape for any ASCII punctuation), and a line break
 * becomes a space. Only {{{raw}}} is not escaped, and the templates use it for content the
 * program made (CSS, base64 charts). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/errors.h"
#include "report/reportint.h"

#define TMPL_MAX_DEPTH 32

static const char *
html_entity(char c)
{
    switch (c) {
    case '&':
        return "&amp;";
    case '<':
        return "&lt;";
    case '>':
        return "&gt;";
    case '"':
        return "&quot;";
    case '\'':
        return "&#39;";
    default:
        return NULL;
    }
}

/* A letter, a digit or a byte of a UTF-8 sequence: what an intraword '_' sits between. */
static bool
md_word(unsigned char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c >= 0x80;
}

/* Whether the '&' at s starts what CommonMark reads as an entity: &name; &#123; &#x1f;. */
static bool
md_entity(const char *s)
{
    const char *p = s + 1 + (s[1] == '#');
    const char *q = p;
    while ((*q >= '0' && *q <= '9') || (*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z'))
        q++;
    return q > p && *q == ';';
}

/* Whether c at s (start: the value's first byte) would be read as Markdown: emphasis, code, a
 * link or an image, raw HTML, a table's cell border, strikethrough, an entity, an escape. An
 * '_' inside a word (tcp_rr) is no emphasis in CommonMark, and an '&' is markup only when an
 * entity follows. */
static bool
md_special(const char *start, const char *s)
{
    switch (*s) {
    case '\\':
    case '`':
    case '*':
    case '[':
    case ']':
    case '<':
    case '>':
    case '|':
    case '~':
        return true;
    case '_':
        return s == start || !md_word((unsigned char)s[-1]) || !md_word((unsigned char)s[1]);
    case '&':
        return md_entity(s);
    default:
        return false;
    }
}

void
report_tmpl_escape(struct rbuf *out, const char *s, enum tmpl_mode mode)
{
    if (mode == TMPL_TEXT) {
        report_buf_puts(out, s);
        return;
    }
    const char *run = s, *start = s;
    for (; *s; s++) {
        const char *rep = NULL;
        char esc[3] = {'\\', *s, '\0'};
        if (mode == TMPL_HTML)
            rep = html_entity(*s);
        else if (*s == '\n' || *s == '\r')
            rep = " ";
        else if (md_special(start, s))
            rep = esc;
        if (rep == NULL)
            continue;
        report_buf_add(out, run, (size_t)(s - run));
        report_buf_puts(out, rep);
        run = s + 1;
    }
    report_buf_add(out, run, (size_t)(s - run));
}

struct tstate {
    const char *tmpl;
    enum tmpl_mode mode;
    struct rbuf *out;
    const json_t *stack[TMPL_MAX_DEPTH];
    int depth;
    struct err *e;
};

static unsigned
line_of(const char *tmpl, const char *at)
{
    unsigned n = 1;
    for (const char *p = tmpl; p < at; p++)
        n += *p == '\n';
    return n;
}

/* Resolve a dotted name against the context stack, innermost first (Mustache's rule). */
static const json_t *
lookup(const struct tstate *st, const char *name, size_t len)
{
    if (len == 1 && name[0] == '.')
        return st->stack[st->depth - 1];
    const char *dot = memchr(name, '.', len);
    size_t first = dot ? (size_t)(dot - name) : len;
    char key[128];
    if (first >= sizeof key)
        return NULL;
    memcpy(key, name, first);
    key[first] = '\0';
    const json_t *v = NULL;
    for (int i = st->depth - 1; i >= 0 && v == NULL; i--)
        v = json_object_get(st->stack[i], key);
    while (v != NULL && dot != NULL) {
        const char *rest = dot + 1;
        size_t left = len - (size_t)(rest - name);
        dot = memchr(rest, '.', left);
        size_t k = dot ? (size_t)(dot - rest) : left;
        if (k >= sizeof key)
            return NULL;
        memcpy(key, rest, k);
        key[k] = '\0';
        v = json_object_get(v, key);
    }
    return v;
}

static bool
truthy(const json_t *v)
{
    if (v == NULL || json_is_null(v) || json_is_false(v))
        return false;
    if (json_is_string(v))
        return json_string_length(v) > 0;
    if (json_is_array(v))
        return json_array_size(v) > 0;
    if (json_is_integer(v))
        return json_integer_value(v) != 0;
    return true;
}

static void
emit_value(struct tstate *st, const json_t *v, bool raw)
{
    char b[64];
    const char *s = NULL;
    if (json_is_string(v))
        s = json_string_value(v);
    else if (json_is_integer(v))
        snprintf(b, sizeof b, "%lld", (long long)json_integer_value(v)), s = b;
    else if (json_is_real(v))
        snprintf(b, sizeof b, "%.6g", json_real_value(v)), s = b;
    else if (json_is_true(v))
        s = "true";
    else if (json_is_false(v))
        s = "false";
    if (s == NULL)
        return;
    if (raw)
        report_buf_puts(st->out, s);
    else
        report_tmpl_escape(st->out, s, st->mode);
}

/* Find the {{/name}} closing the section whose body starts at p; nested same-name sections
 * count. Returns the position of "{{/" or NULL. */
static const char *
section_end(const char *p, const char *name, size_t len, const char **after)
{
    int level = 1;
    while ((p = strstr(p, "{{")) != NULL) {
        const char *q = p + 2;
        char kind = *q;
        if (kind == '#' || kind == '^' || kind == '/') {
            const char *n = q + 1;
            while (*n == ' ')
                n++;
            const char *close = strstr(n, "}}");
            if (close == NULL)
                return NULL;
            size_t nl = (size_t)(close - n);
            while (nl > 0 && n[nl - 1] == ' ')
                nl--;
            if (nl == len && memcmp(n, name, len) == 0) {
                level += kind == '/' ? -1 : 1;
                if (level == 0) {
                    *after = close + 2;
                    return p;
                }
            }
            p = close + 2;
        } else {
            p = q;
        }
    }
    return NULL;
}

static int render(struct tstate *st, const char *p, const char *end);

/* A section tag that stands alone on its line takes the line with it (Mustache "standalone"),
 * so templates can put {{#x}} on its own line without leaving blank lines in Markdown. */
static const char *
skip_standalone(const char *start_of_tag, const char *after_tag, const char *tmpl, struct rbuf *out,
                bool trim_out)
{
    const char *ls = start_of_tag;
    while (ls > tmpl && (ls[-1] == ' ' || ls[-1] == '\t'))
        ls--;
    if (ls != tmpl && ls[-1] != '\n')
        return after_tag;
    const char *q = after_tag;
    while (*q == ' ' || *q == '\t')
        q++;
    if (*q == '\n') {
        if (trim_out) /* drop the indentation already copied */
            while (out->len > 0 &&
                   (out->data[out->len - 1] == ' ' || out->data[out->len - 1] == '\t'))
                out->data[--out->len] = '\0';
        return q + 1;
    }
    if (*q == '\0')
        return q;
    return after_tag;
}

/* A section's body [body, body_end) over v: inverted ('^'), once when v is false; else once
 * per item of an array, once inside any other true value. open is the tag, for messages. */
static int
render_section(struct tstate *st, char kind, const json_t *v, const char *body,
               const char *body_end, const char *open)
{
    if (kind == '^')
        return truthy(v) ? 0 : render(st, body, body_end);
    if (!truthy(v))
        return 0;
    if (st->depth >= TMPL_MAX_DEPTH)
        return err_set(st->e, NS_EPARSE, "template line %u: sections nested too deep",
                       line_of(st->tmpl, open));
    if (!json_is_array(v)) {
        st->stack[st->depth++] = v;
        int rc = render(st, body, body_end);
        st->depth--;
        return rc;
    }
    size_t i;
    const json_t *item;
    json_array_foreach(v, i, item)
    {
        st->stack[st->depth++] = item;
        int rc = render(st, body, body_end);
        st->depth--;
        if (rc != 0)
            return rc;
    }
    return 0;
}

static int
render(struct tstate *st, const char *p, const char *end)
{
    while (p < end) {
        const char *open = strstr(p, "{{");
        if (open == NULL || open >= end) {
            report_buf_add(st->out, p, (size_t)(end - p));
            return 0;
        }
        report_buf_add(st->out, p, (size_t)(open - p));
        bool triple = open[2] == '{';
        const char *n = open + (triple ? 3 : 2);
        char kind = *n;
        if (kind == '#' || kind == '^' || kind == '/' || kind == '!')
            n++;
        while (*n == ' ')
            n++;
        const char *close = strstr(n, triple ? "}}}" : "}}");
        if (close == NULL)
            return err_set(st->e, NS_EPARSE, "template line %u: '{{' without '}}'",
                           line_of(st->tmpl, open));
        size_t len = (size_t)(close - n);
        while (len > 0 && n[len - 1] == ' ')
            len--;
        const char *after = close + (triple ? 3 : 2);
        if (kind == '!') {
            p = skip_standalone(open, after, st->tmpl, st->out, true);
            continue;
        }
        if (kind == '/')
            return err_set(st->e, NS_EPARSE, "template line %u: '{{/%.*s}}' without its opening",
                           line_of(st->tmpl, open), (int)len, n);
        if (kind != '#' && kind != '^') {
            emit_value(st, lookup(st, n, len), triple);
            p = after;
            continue;
        }
        const char *body = skip_standalone(open, after, st->tmpl, st->out, true);
        const char *past;
        const char *stop = section_end(body, n, len, &past);
        if (stop == NULL || stop > end)
            return err_set(st->e, NS_EPARSE, "template line %u: section '%.*s' is not closed",
                           line_of(st->tmpl, open), (int)len, n);
        const char *resume = skip_standalone(stop, past, st->tmpl, st->out, false);
        /* the closing tag's own indentation belongs to the body's last line: cut it there */
        const char *body_end = stop;
        if (resume != past)
            while (body_end > body && (body_end[-1] == ' ' || body_end[-1] == '\t'))
                body_end--;
        int rc = render_section(st, kind, lookup(st, n, len), body, body_end, open);
        if (rc != 0)
            return rc;
        p = resume;
    }
    return 0;
}

int
report_tmpl_render(const char *tmpl, const json_t *ctx, enum tmpl_mode mode, struct rbuf *out,
                   struct err *e)
{
    struct tstate st = {.tmpl = tmpl, .mode = mode, .out = out, .depth = 1, .e = e};
    st.stack[0] = ctx;
    int rc = render(&st, tmpl, tmpl + strlen(tmpl));
    if (rc == 0 && out->oom)
        rc = err_set(e, NS_ENOMEM, "out of memory rendering a template");
    return rc;
}
