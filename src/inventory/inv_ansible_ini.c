/* inv_ansible_ini.c - Ansible's INI inventory, read as Ansible's ini plugin reads it
 * (ansible/plugins/inventory/ini.py; "How to build your inventory" in Ansible's documentation):
 *
 *   # comment, ; comment
 *   host0 ansible_host=192.0.2.9        <- before any section: group `ungrouped`
 *   [web]                               <- a group and its hosts, one host pattern a line,
 *   web[01:03] zone=1 ansible_user=ops     with key=value variables split as a POSIX shell
 *   db1:2222 ansible_host="10.0.0.5"       would (quotes, backslashes, # comments)
 *   [web:vars]                          <- key=value a line, the value as written, a string
 *   region=westus3
 *   [region:children]                   <- group names a line
 *   web
 *
 * A [g:vars] or a child name of a group that no [g] or [g:children] section defines is an
 * error, as in Ansible. Host-line values are Python literals to Ansible: a list or a mapping
 * there ('[' or '{' first) is not text to the plan. */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/errors.h"
#include "inventory/inv_ansible.h"

struct ini {
    struct ans_inv *a;
    unsigned line;
    long group; /* the section's group */
    enum { HOSTS, VARS, CHILDREN } state;
    unsigned *child_line; /* per group: where a [p:children] first named it, 0: never */
    size_t *child_parent;
    size_t nchild;
    bool failed;
};

static void ini_error(struct ini *r, unsigned col, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void
ini_error(struct ini *r, unsigned col, const char *fmt, ...)
{
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    inv_error(r->a->x, "invalid ini in %s at %u:%u: %s", r->a->x->file, r->line, col, msg);
    r->failed = true;
}

/* --- words as shlex.split(line, comments=True) makes them ---------------------------------- */

/* Split s (modified in place) into words; returns how many, or -1 after reporting an unclosed
 * quote. cols gets each word's 1-based column. */
static int
ini_words(struct ini *r, char *s, unsigned col0, char **words, unsigned *cols, int max)
{
    int n = 0;
    char *in = s, *out = s;
    while (*in != '\0') {
        while (*in == ' ' || *in == '\t')
            in++;
        if (*in == '\0' || *in == '#')
            break;
        if (n == max) {
            ini_error(r, col0, "more than %d words on a line", max);
            return -1;
        }
        cols[n] = col0 + (unsigned)(in - s);
        words[n++] = out;
        for (char q = 0; *in != '\0' && (q != 0 || (*in != ' ' && *in != '\t' && *in != '#'));) {
            if (q == 0 && (*in == '\'' || *in == '"')) {
                q = *in++;
            } else if (q != 0 && *in == q) {
                q = 0;
                in++;
            } else if (*in == '\\' && q != '\'' && in[1] != '\0' &&
                       (q == 0 || in[1] == '"' || in[1] == '\\')) {
                *out++ = in[1];
                in += 2;
            } else {
                *out++ = *in++;
            }
            if (q != 0 && *in == '\0') {
                ini_error(r, cols[n - 1], "no closing quotation");
                return -1;
            }
        }
        bool more = *in != '\0' && *in != '#';
        if (more)
            in++;
        *out++ = '\0';
        if (!more)
            break;
    }
    return n;
}

/* --- the three kinds of section ------------------------------------------------------------ */

#define INI_MAX_WORDS 256

static void
ini_host_line(struct ini *r, char *s, unsigned col0)
{
    char *words[INI_MAX_WORDS];
    unsigned cols[INI_MAX_WORDS];
    int n = ini_words(r, s, col0, words, cols, INI_MAX_WORDS);
    if (n <= 0)
        return;
    struct ans_var vars[INI_MAX_WORDS];
    for (int i = 1; i < n; i++) {
        char *eq = strchr(words[i], '=');
        if (eq == NULL || eq == words[i]) {
            ini_error(r, cols[i], "expected key=value host variable, found '%s'", words[i]);
            return;
        }
        *eq = '\0';
        bool literal = eq[1] == '[' || eq[1] == '{';
        vars[i - 1] = (struct ans_var){words[i], literal ? NULL : eq + 1};
    }
    if (!inv_ans_hosts(r->a, words[0], (size_t)r->group, r->line, cols[0], vars, (size_t)(n - 1)))
        r->failed = true;
}

static void
ini_var_line(struct ini *r, const char *s, unsigned col0)
{
    const char *eq = strchr(s, '=');
    if (eq == NULL) {
        ini_error(r, col0, "expected key=value, found '%s'", s);
        return;
    }
    size_t klen = (size_t)(eq - s);
    while (klen > 0 && isspace((unsigned char)s[klen - 1]))
        klen--;
    const char *v = eq + 1;
    while (isspace((unsigned char)*v))
        v++;
    char *key = strndup(s, klen);
    if (key == NULL) {
        r->a->x->oom = true;
        return;
    }
    if (klen == 0)
        ini_error(r, col0, "expected key=value, found '%s'", s);
    else if (!inv_ans_set(r->a, &r->a->g[r->group].vars, key, v))
        r->failed = true;
    free(key);
}

static bool
ini_remember_child(struct ini *r, size_t child)
{
    size_t ng = r->a->ng;
    if (ng > r->nchild) {
        unsigned *l = realloc(r->child_line, ng * sizeof *l);
        size_t *p = l != NULL ? realloc(r->child_parent, ng * sizeof *p) : NULL;
        if (l != NULL)
            r->child_line = l;
        if (p == NULL)
            return (r->a->x->oom = true, false);
        r->child_parent = p;
        memset(r->child_line + r->nchild, 0, (ng - r->nchild) * sizeof *l);
        r->nchild = ng;
    }
    if (r->child_line[child] == 0) {
        r->child_line[child] = r->line;
        r->child_parent[child] = (size_t)r->group;
    }
    return true;
}

static void
ini_child_line(struct ini *r, char *s, unsigned col0)
{
    size_t len = strcspn(s, " \t#");
    const char *rest = s + len + strspn(s + len, " \t");
    if (len == 0 || memchr(s, ':', len) != NULL || memchr(s, ']', len) != NULL ||
        (*rest != '\0' && *rest != '#')) {
        ini_error(r, col0, "expected a group name, found '%s'", s);
        return;
    }
    s[len] = '\0';
    long child = inv_ans_group(r->a, s, r->line);
    if (child < 0 || !ini_remember_child(r, (size_t)child) ||
        !inv_ans_child(r->a, (size_t)r->group, (size_t)child))
        r->failed = true;
}

/* Does s match Ansible's section pattern ^\[([^:\]\s]+)(?::(\w+))?\]\s*(?:#.*)?$ ? Then name
 * and kind (NULL: none) point into s, NUL-terminated. */
static bool
section_match(char *s, char **name, char **kind)
{
    if (s[0] != '[')
        return false;
    size_t nlen = strcspn(s + 1, ":] \t\r\n\f\v");
    char *p = s + 1 + nlen, *k = NULL;
    if (nlen == 0)
        return false;
    if (*p == ':') {
        k = p + 1;
        size_t klen = 0;
        while (isalnum((unsigned char)k[klen]) || k[klen] == '_')
            klen++;
        if (klen == 0)
            return false;
        p = k + klen;
    }
    if (*p != ']')
        return false;
    const char *after = p + 1 + strspn(p + 1, " \t");
    if (*after != '\0' && *after != '#')
        return false;
    s[1 + nlen] = '\0';
    *p = '\0';
    *name = s + 1;
    *kind = k;
    return true;
}

static void
ini_section(struct ini *r, char *name, const char *kind, unsigned col0)
{
    if (kind == NULL)
        kind = "hosts";
    if (strcmp(kind, "hosts") != 0 && strcmp(kind, "vars") != 0 && strcmp(kind, "children") != 0) {
        ini_error(r, col0, "section [%s:%s] has unknown type '%s' (hosts, vars or children)", name,
                  kind, kind);
        r->group = (long)r->a->ungrouped;
        r->state = HOSTS;
        return;
    }
    long g = inv_ans_group(r->a, name, r->line);
    r->group = g >= 0 ? g : (long)r->a->ungrouped;
    r->failed |= g < 0;
    r->state = kind[0] == 'v' ? VARS : kind[0] == 'c' ? CHILDREN : HOSTS;
    if (g >= 0 && r->state != VARS)
        r->a->g[g].defined = true;
}

static void
ini_line(struct ini *r, char *s, unsigned col0)
{
    char *name, *kind;
    size_t n = strlen(s);
    if (section_match(s, &name, &kind))
        ini_section(r, name, kind, col0);
    else if (s[0] == '[' && s[n - 1] == ']')
        ini_error(r, col0, "invalid section '%s': no spaces or other characters around its name",
                  s);
    else if (r->state == HOSTS)
        ini_host_line(r, s, col0);
    else if (r->state == VARS)
        ini_var_line(r, s, col0);
    else
        ini_child_line(r, s, col0);
}

/* Groups named but never defined: as Ansible, the first such reference is an error. */
static void
ini_undefined(struct ini *r)
{
    for (size_t g = 0; g < r->a->ng; g++) {
        const struct inv_ans_group *gr = &r->a->g[g];
        if (gr->defined)
            continue;
        bool as_child = g < r->nchild && r->child_line[g] != 0;
        r->line = as_child ? r->child_line[g] : gr->line;
        if (as_child)
            ini_error(r, 1, "[%s:children] names group '%s', which no section defines",
                      r->a->g[r->child_parent[g]].name, gr->name);
        else
            ini_error(r, 1, "[%s:vars] is for group '%s', which no section defines", gr->name,
                      gr->name);
        return;
    }
}

int
inv_ansible_ini(struct ans_inv *a, const char *buf, size_t len)
{
    struct ini r = {.a = a, .group = (long)a->ungrouped, .state = HOSTS};
    char *line = NULL;
    for (size_t off = 0; off < len && !inv_give_up(a->x);) {
        const char *nl = memchr(buf + off, '\n', len - off);
        size_t n = nl != NULL ? (size_t)(nl - (buf + off)) : len - off;
        r.line++;
        char *copy = realloc(line, n + 1);
        if (copy == NULL) {
            a->x->oom = true;
            break;
        }
        line = copy;
        memcpy(line, buf + off, n);
        line[n] = '\0';
        off += n + 1;
        if (strlen(line) < n) {
            ini_error(&r, (unsigned)strlen(line) + 1, "a NUL byte");
            continue;
        }
        size_t lead = strspn(line, " \t\r\f\v"), end = n;
        while (end > lead && isspace((unsigned char)line[end - 1]))
            line[--end] = '\0';
        if (line[lead] == '\0' || line[lead] == '#' || line[lead] == ';')
            continue;
        ini_line(&r, line + lead, (unsigned)lead + 1);
    }
    free(line);
    if (!r.failed && !a->x->oom)
        ini_undefined(&r);
    free(r.child_line);
    free(r.child_parent);
    if (a->x->oom)
        return NS_ENOMEM;
    return r.failed ? NS_EPARSE : 0;
}
