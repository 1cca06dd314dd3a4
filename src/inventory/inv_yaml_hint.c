/* inv_yaml_hint.c - libyaml's syntax errors said in a plain sentence about the line the reader
 * wrote ("this line is indented more than the key above it"), found by looking at the text
 * around the error: libyaml's words ("mapping values are not allowed in this context") name
 * the parser's state, not the mistake. Each hint is for one of libyaml's problem texts and is
 * given only when the text around it looks like the mistake it describes. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "inventory/inv_yaml_hint.h"

/* The text around the error: the document and the 0-based lines and columns libyaml gave. */
struct htext {
    const char *buf;
    size_t len;
};

/* Line i (0-based) of t: its start in *s and length; false past the end. */
static bool
line_at(const struct htext *t, size_t i, const char **s, size_t *n)
{
    const char *p = t->buf, *end = t->buf + t->len;
    for (size_t k = 0; k < i; k++) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (nl == NULL)
            return false;
        p = nl + 1;
    }
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    *s = p;
    *n = nl != NULL ? (size_t)(nl - p) : (size_t)(end - p);
    return true;
}

static size_t
indent_of(const char *s, size_t n)
{
    size_t i = 0;
    while (i < n && s[i] == ' ')
        i++;
    return i;
}

/* Whether line s holds nothing but blanks or a comment. */
static bool
line_empty(const char *s, size_t n)
{
    size_t i = indent_of(s, n);
    return i == n || s[i] == '#' || s[i] == '\r';
}

/* The nearest line before line i that holds something (0-based into *prev); false if none. */
static bool
line_before(const struct htext *t, size_t i, size_t *prev, const char **s, size_t *n)
{
    while (i-- > 0)
        if (line_at(t, i, s, n) && !line_empty(*s, *n)) {
            *prev = i;
            return true;
        }
    return false;
}

/* A line "[- ]key: value" (value not empty, not a comment): the key into key (cut), the column
 * (0-based) where the key starts into *col. */
static bool
line_key_value(const char *s, size_t n, char *key, size_t klen, size_t *col)
{
    size_t i = indent_of(s, n);
    if (i + 1 < n && s[i] == '-' && s[i + 1] == ' ')
        i = i + 1 + indent_of(s + i + 1, n - i - 1);
    const char *colon = NULL;
    for (size_t k = i; k + 1 < n && colon == NULL; k++)
        if (s[k] == ':' && s[k + 1] == ' ')
            colon = s + k;
    if (colon == NULL || s[i] == '"' || s[i] == '\'' || s[i] == '{' || s[i] == '[')
        return false;
    size_t v = (size_t)(colon - s) + 1;
    v += indent_of(s + v, n - v);
    if (v >= n || s[v] == '#')
        return false;
    snprintf(key, klen, "%.*s", (int)(colon - s - (long)i), s + i);
    *col = i;
    return true;
}

/* "mapping values are not allowed in this context": a line indented under a key that has a
 * value already, or a value holding ": " that is not quoted. */
static bool
hint_mapping_values(const struct htext *t, size_t line, size_t col, char *out, size_t len)
{
    const char *s, *p;
    size_t n, pn, prev, kcol;
    char key[64];
    if (!line_at(t, line, &s, &n))
        return false;
    size_t ind = indent_of(s, n);
    if (line_before(t, line, &prev, &p, &pn) && ind > indent_of(p, pn) &&
        line_key_value(p, pn, key, sizeof key, &kcol) && ind > kcol) {
        snprintf(out, len,
                 "this line is indented more than the key above it ('%s', line %zu), which has "
                 "a value already: give it the indentation of that key (column %zu) if it is a "
                 "key of the same mapping",
                 key, prev + 1, kcol + 1);
        return true;
    }
    if (line_key_value(s, n, key, sizeof key, &kcol) && col > kcol + strlen(key) + 1) {
        snprintf(out, len,
                 "the value of '%s' holds ': ', which YAML reads as another key: put the value in "
                 "quotes",
                 key);
        return true;
    }
    return false;
}

/* "did not find expected '-' indicator" or "did not find expected key": a line whose
 * indentation matches no list or mapping above it. cline/ccol: where the collection the parser
 * was in started (0-based). */
static bool
hint_stray_indent(const struct htext *t, size_t line, size_t cline, size_t ccol, bool list,
                  char *out, size_t len)
{
    const char *s, *p;
    size_t n, pn, prev, kcol;
    char key[64];
    if (!line_at(t, line, &s, &n) || line_empty(s, n))
        return false;
    size_t ind = indent_of(s, n);
    if (list && line_before(t, line, &prev, &p, &pn) &&
        line_key_value(p, pn, key, sizeof key, &kcol) && kcol > ccol && ind < kcol) {
        snprintf(out, len,
                 "this line is indented less than the key above it ('%s', line %zu) and is no "
                 "new item of the list that starts at %zu:%zu: indent it to column %zu to make "
                 "it a key of that item, or start a new item with '- ' at column %zu",
                 key, prev + 1, cline + 1, ccol + 1, kcol + 1, ccol + 1);
        return true;
    }
    if (!list && ind != ccol) {
        snprintf(out, len,
                 "this line is indented to column %zu, but the keys of the mapping it belongs to "
                 "(from %zu:%zu) start at column %zu: line them up",
                 ind + 1, cline + 1, ccol + 1, ccol + 1);
        return true;
    }
    return false;
}

/* "found character that cannot start any token" (and libyaml's tab messages): a tab, or a
 * character YAML reserves at the start of a value. */
static bool
hint_bad_start(const struct htext *t, size_t line, size_t col, char *out, size_t len)
{
    const char *s;
    size_t n;
    if (!line_at(t, line, &s, &n) || col >= n)
        return false;
    if (memchr(s, '\t', col + 1) != NULL) {
        snprintf(out, len, "a tab indents this line: YAML indents with spaces only");
        return true;
    }
    if (s[col] == '@' || s[col] == '`') {
        snprintf(out, len, "a value cannot start with '%c': put the value in quotes", s[col]);
        return true;
    }
    return false;
}

void
inv_yaml_hint(const char *buf, size_t len, const struct inv_yaml_error *ye, char *out,
              size_t outlen)
{
    const struct htext t = {buf, len};
    const char *pr = ye->problem != NULL ? ye->problem : "";
    const char *cx = ye->context != NULL ? ye->context : "";
    bool ok = false;
    out[0] = '\0';
    if (strcmp(pr, "mapping values are not allowed in this context") == 0)
        ok = hint_mapping_values(&t, ye->line, ye->col, out, outlen);
    else if (strcmp(pr, "did not find expected '-' indicator") == 0 ||
             strcmp(pr, "did not find expected key") == 0)
        ok = hint_stray_indent(&t, ye->line, ye->context_line, ye->context_col,
                               pr[sizeof "did not find expected " - 1] == '\'', out, outlen);
    else if (strcmp(pr, "found character that cannot start any token") == 0 ||
             strstr(pr, "tab") != NULL)
        ok = hint_bad_start(&t, ye->line, ye->col, out, outlen);
    else if (strcmp(pr, "could not find expected ':'") == 0)
        ok = snprintf(out, outlen,
                      "line %zu has no ': ' after its key (a key and its value are written "
                      "'key: value', with a blank after the colon)",
                      ye->context_line + 1) > 0;
    else if (strncmp(pr, "did not find expected ',' or ", 29) == 0 && strstr(cx, "flow") != NULL)
        ok = snprintf(out, outlen,
                      "the %s opened with '%c' at %zu:%zu is not closed before this point: close "
                      "it with '%c', and separate its items with ','",
                      strstr(cx, "sequence") != NULL ? "list" : "mapping",
                      strstr(cx, "sequence") != NULL ? '[' : '{', ye->context_line + 1,
                      ye->context_col + 1, strstr(cx, "sequence") != NULL ? ']' : '}') > 0;
    else if (strcmp(pr, "found unexpected end of stream") == 0 && strstr(cx, "quoted") != NULL)
        ok = snprintf(out, outlen, "the quote at %zu:%zu is never closed", ye->context_line + 1,
                      ye->context_col + 1) > 0;
    else if (strcmp(pr, "block sequence entries are not allowed in this context") == 0)
        ok = snprintf(out, outlen,
                      "a list item ('- ') cannot follow a key on its line: start the list on the "
                      "next line, indented") > 0;
    if (!ok)
        out[0] = '\0';
}
