/* inv_ansible.c - an Ansible inventory's groups and hosts, host patterns with their ranges and
 * ports, and each selected host's variables merged in Ansible's order (inv_ansible.h). */
#include <arpa/inet.h>
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/array.h"
#include "common/errors.h"
#include "common/suggest.h"
#include "inventory/inv_ansible.h"

/* --- name -> index ----------------------------------------------------------------------- */

struct ans_slot {
    const char *name; /* NULL: empty */
    size_t idx;
};

struct ans_table {
    struct ans_slot *slot;
    size_t cap, n; /* cap a power of two, at most half full */
};

static uint64_t
name_hash(const char *s)
{
    uint64_t h = 1469598103934665603ULL; /* FNV-1a */
    for (; *s != '\0'; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

static struct ans_slot *
table_find(const struct ans_table *t, const char *name)
{
    size_t mask = t->cap - 1;
    for (size_t i = (size_t)name_hash(name) & mask;; i = (i + 1) & mask)
        if (t->slot[i].name == NULL || strcmp(t->slot[i].name, name) == 0)
            return &t->slot[i];
}

static bool
table_grow(struct ans_table *t)
{
    size_t cap = t->cap ? t->cap * 2 : 64;
    struct ans_slot *old = t->slot;
    size_t oldcap = t->cap;
    t->slot = calloc(cap, sizeof *t->slot);
    if (t->slot == NULL) {
        t->slot = old;
        return false;
    }
    t->cap = cap;
    for (size_t i = 0; i < oldcap; i++)
        if (old[i].name != NULL)
            *table_find(t, old[i].name) = old[i];
    free(old);
    return true;
}

/* Index of name, or -1. */
static long
table_get(const struct ans_table *t, const char *name)
{
    if (t->cap == 0)
        return -1;
    const struct ans_slot *s = table_find(t, name);
    return s->name != NULL ? (long)s->idx : -1;
}

static bool
table_put(struct ans_table *t, const char *name, size_t idx)
{
    if ((t->n + 1) * 2 > t->cap && !table_grow(t))
        return false;
    struct ans_slot *s = table_find(t, name);
    s->name = name;
    s->idx = idx;
    t->n++;
    return true;
}

static void
table_free(struct ans_table *t)
{
    if (t != NULL)
        free(t->slot);
    free(t);
}

/* --- groups, hosts, variables ------------------------------------------------------------ */

/* Room for one more element of size in the array at v (a `T **`; n used of *cap). */
static bool
grow(struct ans_inv *a, void *v, size_t *cap, size_t n, size_t size)
{
    if (array_grow(v, cap, n + 1, size) == 0)
        return true;
    a->x->oom = true;
    return false;
}

static bool
index_add(struct ans_inv *a, size_t **v, size_t *n, size_t *cap, size_t idx)
{
    for (size_t i = 0; i < *n; i++)
        if ((*v)[i] == idx)
            return true;
    if (!grow(a, v, cap, *n, sizeof **v))
        return false;
    (*v)[(*n)++] = idx;
    return true;
}

bool
inv_ans_set(struct ans_inv *a, struct ans_vars *vars, const char *key, const char *value)
{
    const char *k = inv_strdup(a->x, key), *val = value ? inv_strdup(a->x, value) : NULL;
    if (k == NULL || (value != NULL && val == NULL) ||
        !grow(a, &vars->v, &vars->cap, vars->n, sizeof *vars->v))
        return false;
    vars->v[vars->n++] = (struct ans_var){k, val};
    return true;
}

long
inv_ans_group(struct ans_inv *a, const char *name, unsigned line)
{
    long i = table_get(a->gidx, name);
    if (i >= 0)
        return i;
    if (a->ng >= INV_MAX_GROUPS) {
        if (a->ng++ == INV_MAX_GROUPS)
            inv_error(a->x, "inventory %s has more than %d groups", a->x->file, INV_MAX_GROUPS);
        return -1;
    }
    if (!grow(a, &a->g, &a->capg, a->ng, sizeof *a->g))
        return -1;
    struct inv_ans_group *g = &a->g[a->ng];
    memset(g, 0, sizeof *g);
    g->name = inv_strdup(a->x, name);
    g->priority = 1;
    g->line = line;
    if (g->name == NULL || !table_put(a->gidx, g->name, a->ng)) {
        a->x->oom = true;
        return -1;
    }
    return (long)a->ng++;
}

bool
inv_ans_child(struct ans_inv *a, size_t parent, size_t child)
{
    struct inv_ans_group *p = &a->g[parent], *c = &a->g[child];
    return index_add(a, &p->kids, &p->nkids, &p->capkids, child) &&
           index_add(a, &c->parents, &c->nparents, &c->capparents, parent);
}

static long
host_get(struct ans_inv *a, const char *name, unsigned line, unsigned col)
{
    long i = table_get(a->hidx, name);
    if (i >= 0)
        return i;
    if (!inv_count(a->x) || !grow(a, &a->h, &a->caph, a->nh, sizeof *a->h))
        return -1;
    struct ans_host *h = &a->h[a->nh];
    memset(h, 0, sizeof *h);
    h->name = inv_strdup(a->x, name);
    h->line = line;
    h->col = col;
    if (h->name == NULL || !table_put(a->hidx, h->name, a->nh)) {
        a->x->oom = true;
        return -1;
    }
    return (long)a->nh++;
}

int
inv_ans_init(struct ans_inv *a, struct inv_ctx *x)
{
    memset(a, 0, sizeof *a);
    a->x = x;
    a->gidx = calloc(1, sizeof *a->gidx);
    a->hidx = calloc(1, sizeof *a->hidx);
    if (a->gidx == NULL || a->hidx == NULL)
        return NS_ENOMEM;
    long all = inv_ans_group(a, "all", 0), ungrouped = inv_ans_group(a, "ungrouped", 0);
    if (all < 0 || ungrouped < 0)
        return NS_ENOMEM;
    a->all = (size_t)all;
    a->ungrouped = (size_t)ungrouped;
    a->g[all].defined = a->g[ungrouped].defined = true;
    return 0;
}

static void
vars_free(struct ans_vars *v)
{
    free(v->v);
}

void
inv_ans_release(struct ans_inv *a)
{
    for (size_t i = 0; i < a->ng && a->g != NULL; i++) {
        vars_free(&a->g[i].vars);
        free(a->g[i].kids);
        free(a->g[i].hosts);
        free(a->g[i].parents);
    }
    for (size_t i = 0; i < a->nh; i++)
        vars_free(&a->h[i].vars);
    free(a->g);
    free(a->h);
    table_free(a->gidx);
    table_free(a->hidx);
    memset(a, 0, sizeof *a);
}

/* --- host patterns: ranges and ports ------------------------------------------------------ */

/* Names a pattern expands to, as Ansible's expand_hostname_range does: the first [beg:end] or
 * [beg:end:step] range (numbers, zero-padded when beg is, or single letters) is replaced by
 * each of its values, and the rest expanded again. */
struct names {
    char **v;
    size_t n, cap;
};

static bool
names_add(struct ans_inv *a, struct names *ns, const char *s, size_t len)
{
    if (ns->n >= INV_MAX_MACHINES) {
        inv_error(a->x, "the host pattern in %s at %u:%u names more than %d hosts", a->x->file,
                  a->line, a->col, INV_MAX_MACHINES);
        return false;
    }
    char *c = malloc(len + 1);
    if (c == NULL || !grow(a, &ns->v, &ns->cap, ns->n, sizeof *ns->v)) {
        free(c);
        a->x->oom = true;
        return false;
    }
    memcpy(c, s, len);
    c[len] = '\0';
    ns->v[ns->n++] = c;
    return true;
}

static void
names_free(struct names *ns)
{
    for (size_t i = 0; i < ns->n; i++)
        free(ns->v[i]);
    free(ns->v);
}

struct range {
    long beg, end, step;
    int width; /* zero padding; 0: none */
    bool letters;
};

/* Python's string.ascii_letters, whose order Ansible's letter ranges follow: [x:B] is x, y, z,
 * A, B. */
static const char ascii_letters[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";

static bool
range_bound(const char *s, size_t len, long *v, bool *letter)
{
    *letter = len == 1 && isalpha((unsigned char)s[0]);
    if (*letter) {
        *v = (long)(strchr(ascii_letters, s[0]) - ascii_letters);
        return true;
    }
    if (len == 0 || len > 9 || strspn(s, "0123456789") < len)
        return false;
    *v = strtol(s, NULL, 10);
    return true;
}

/* Parse "beg:end[:step]" (len bytes at s); NULL, or why not. */
static const char *
range_parse(const char *s, size_t len, struct range *r)
{
    const char *c1 = memchr(s, ':', len);
    if (c1 == NULL)
        return "a host range must be [begin:end] or [begin:end:step]";
    const char *rest = c1 + 1, *end = s + len;
    const char *c2 = memchr(rest, ':', (size_t)(end - rest));
    size_t blen = (size_t)(c1 - s), elen = (size_t)((c2 ? c2 : end) - rest);
    bool lb = false, le = false, ls = false;
    r->beg = 0;
    r->step = 1;
    if (blen > 0 && !range_bound(s, blen, &r->beg, &lb))
        return "a host range's begin must be a number or a letter";
    if (elen == 0 || !range_bound(rest, elen, &r->end, &le))
        return "a host range's end must be a number or a letter";
    if (c2 != NULL &&
        (!range_bound(c2 + 1, (size_t)(end - c2 - 1), &r->step, &ls) || ls || r->step < 1))
        return "a host range's step must be a number of 1 or more";
    if ((blen > 0 && lb != le) || (blen == 0 && le))
        return "a host range must be of numbers or of letters, not both";
    r->letters = le;
    r->width = !le && blen > 1 && s[0] == '0' ? (int)blen : 0;
    if (r->width > 0 && (size_t)r->width != elen)
        return "a zero-padded host range needs a begin and an end of the same length";
    if (r->beg > r->end)
        return "a host range must have begin <= end";
    return NULL;
}

static bool expand(struct ans_inv *a, const char *pat, struct names *out, unsigned depth);

static bool
expand_range(struct ans_inv *a, const char *pat, const char *open, const char *close,
             const struct range *r, struct names *out, unsigned depth)
{
    size_t head = (size_t)(open - pat), tlen = strlen(close + 1);
    char *buf = malloc(head + 16 + tlen + 1);
    if (buf == NULL) {
        a->x->oom = true;
        return false;
    }
    bool ok = true;
    for (long v = r->beg; ok && v <= r->end; v += r->step) {
        int w = r->letters ? snprintf(buf + head, 16, "%c", ascii_letters[v])
                           : snprintf(buf + head, 16, "%0*ld", r->width, v);
        memcpy(buf, pat, head);
        memcpy(buf + head + w, close + 1, tlen + 1);
        ok = expand(a, buf, out, depth + 1);
    }
    free(buf);
    return ok;
}

static bool
expand(struct ans_inv *a, const char *pat, struct names *out, unsigned depth)
{
    const char *open = strchr(pat, '[');
    if (open == NULL)
        return names_add(a, out, pat, strlen(pat));
    const char *close = strchr(open, ']');
    struct range r;
    const char *why = close == NULL ? "a host range without its ']'"
                      : depth > 8   ? "more than 8 host ranges in one pattern"
                                    : range_parse(open + 1, (size_t)(close - open - 1), &r);
    if (why != NULL) {
        inv_error(a->x, "invalid host pattern '%s' in %s at %u:%u: %s", pat, a->x->file, a->line,
                  a->col, why);
        return false;
    }
    return expand_range(a, pat, open, close, &r, out, depth);
}

/* The last ':' outside [...] with only digits after it, or NULL. */
static const char *
port_colon(const char *s)
{
    const char *last = NULL;
    int nest = 0, colons = 0;
    for (const char *p = s; *p != '\0'; p++) {
        nest += *p == '[' ? 1 : *p == ']' ? -1 : 0;
        if (*p == ':' && nest == 0) {
            last = p;
            colons++;
        }
    }
    if (last == NULL || colons > 1 || last[1] == '\0' ||
        strspn(last + 1, "0123456789") != strlen(last + 1))
        return NULL;
    return last;
}

/* Split "host:port" and "[v6]:port"; a bare IPv6 address keeps its colons. *name is malloc'd. */
static bool
pattern_split(struct ans_inv *a, const char *pat, char **name, char port[8], bool *literal)
{
    unsigned char bin[16];
    char inner[64];
    const char *close = pat[0] == '[' ? strstr(pat, "]:") : NULL;
    port[0] = '\0';
    *literal = false;
    if (close != NULL && (size_t)(close - pat - 1) < sizeof inner) {
        snprintf(inner, sizeof inner, "%.*s", (int)(close - pat - 1), pat + 1);
        if (inet_pton(AF_INET6, inner, bin) == 1 && strlen(close + 2) < 8 &&
            strspn(close + 2, "0123456789") == strlen(close + 2)) {
            snprintf(port, 8, "%s", close + 2);
            *literal = true;
            *name = strdup(inner);
            return *name != NULL || (a->x->oom = true, false);
        }
    }
    *literal = inet_pton(AF_INET6, pat, bin) == 1;
    const char *colon = *literal ? NULL : port_colon(pat);
    if (colon != NULL && strlen(colon + 1) < 8)
        snprintf(port, 8, "%s", colon + 1);
    size_t len = colon != NULL ? (size_t)(colon - pat) : strlen(pat);
    *name = strndup(pat, len);
    return *name != NULL || (a->x->oom = true, false);
}

static bool
host_put(struct ans_inv *a, const char *name, size_t g, unsigned line, unsigned col,
         const char *port, const struct ans_var *vars, size_t n)
{
    long hi = host_get(a, name, line, col);
    if (hi < 0)
        return false;
    struct ans_host *h = &a->h[hi];
    struct inv_ans_group *gr = &a->g[g];
    size_t before = gr->nhosts;
    if (!index_add(a, &gr->hosts, &gr->nhosts, &gr->caphosts, (size_t)hi))
        return false;
    if (gr->nhosts > before)
        h->ngroups++;
    /* As Ansible's INI and YAML readers do: the pattern's port is the host's ansible_port,
     * which the variables written with it then override. */
    if (port[0] != '\0' && !inv_ans_set(a, &h->vars, "ansible_port", port))
        return false;
    for (size_t i = 0; i < n; i++)
        if (!inv_ans_set(a, &h->vars, vars[i].key, vars[i].value))
            return false;
    return true;
}

bool
inv_ans_hosts(struct ans_inv *a, const char *pattern, size_t g, unsigned line, unsigned col,
              const struct ans_var *vars, size_t n)
{
    char *name = NULL, port[8];
    bool literal;
    a->line = line;
    a->col = col;
    if (!pattern_split(a, pattern, &name, port, &literal))
        return false;
    struct names ns = {0};
    bool ok = literal ? names_add(a, &ns, name, strlen(name)) : expand(a, name, &ns, 0);
    for (size_t i = 0; ok && i < ns.n; i++)
        ok = host_put(a, ns.v[i], g, line, col, port, vars, n);
    names_free(&ns);
    free(name);
    return ok;
}

/* --- what the plan takes ----------------------------------------------------------------- */

/* Groups no other group names hang under `all`; hosts in no group but `all` are `ungrouped`,
 * and a host also in another group is not (Ansible's reconcile_inventory). */
static bool
reconcile(struct ans_inv *a)
{
    for (size_t g = 0; g < a->ng; g++)
        if (g != a->all && a->g[g].nparents == 0 && !inv_ans_child(a, a->all, g))
            return false;
    size_t *others = calloc(a->nh ? a->nh : 1, sizeof *others);
    if (others == NULL)
        return (a->x->oom = true, false);
    for (size_t g = 0; g < a->ng; g++)
        for (size_t i = 0; g != a->all && g != a->ungrouped && i < a->g[g].nhosts; i++)
            others[a->g[g].hosts[i]]++;
    struct inv_ans_group *u = &a->g[a->ungrouped];
    size_t w = 0;
    for (size_t i = 0; i < u->nhosts; i++)
        if (others[u->hosts[i]] == 0)
            u->hosts[w++] = u->hosts[i];
    u->nhosts = w;
    bool ok = true;
    for (size_t h = 0; ok && h < a->nh; h++)
        if (others[h] == 0)
            ok = index_add(a, &u->hosts, &u->nhosts, &u->caphosts, h);
    free(others);
    return ok;
}

/* Depth of every group (the longest way down from `all`), in topological order; false after
 * reporting the groups of a cycle of children, which Ansible refuses too. */
static bool
depths(struct ans_inv *a)
{
    size_t *queue = malloc((a->ng ? a->ng : 1) * sizeof *queue);
    size_t *indeg = calloc(a->ng ? a->ng : 1, sizeof *indeg);
    if (queue == NULL || indeg == NULL) {
        free(queue);
        free(indeg);
        return (a->x->oom = true, false);
    }
    size_t head = 0, tail = 0;
    for (size_t g = 0; g < a->ng; g++)
        if ((indeg[g] = a->g[g].nparents) == 0)
            queue[tail++] = g;
    while (head < tail) {
        const struct inv_ans_group *p = &a->g[queue[head++]];
        for (size_t k = 0; k < p->nkids; k++) {
            struct inv_ans_group *c = &a->g[p->kids[k]];
            if (c->depth < p->depth + 1)
                c->depth = p->depth + 1;
            if (--indeg[p->kids[k]] == 0)
                queue[tail++] = p->kids[k];
        }
    }
    if (tail < a->ng) {
        size_t g = 0;
        while (indeg[g] == 0)
            g++;
        inv_error(a->x, "group '%s' of %s is its own descendant through its children", a->g[g].name,
                  a->x->file);
    }
    free(queue);
    free(indeg);
    return tail == a->ng;
}

/* The last value key has in vars, or NULL. */
static const struct ans_var *
var_find(const struct ans_vars *vars, const char *key)
{
    for (size_t i = vars->n; i-- > 0;)
        if (strcmp(vars->v[i].key, key) == 0)
            return &vars->v[i];
    return NULL;
}

static void
priorities(struct ans_inv *a)
{
    for (size_t g = 0; g < a->ng; g++) {
        const struct ans_var *v = var_find(&a->g[g].vars, "ansible_group_priority");
        char *end;
        long p = v != NULL && v->value != NULL ? strtol(v->value, &end, 10) : 1;
        if (v != NULL && v->value != NULL && end != v->value && *end == '\0' && p > -1000000 &&
            p < 1000000)
            a->g[g].priority = (int)p;
    }
}

/* --- one host's merged variables ------------------------------------------------------------ */

struct merge {
    size_t *rank;   /* per group: its place in the merge order */
    size_t *byrank; /* rank -> group */
    size_t *mine;   /* the ranks of one host's groups, sorted */
    size_t nmine;
    size_t *stack;   /* for the walk up */
    size_t *hgroups; /* host -> its direct groups (CSR) */
    size_t *hoff;
    unsigned stamp;
};

static int
group_order(const void *pa, const void *pb, void *arg)
{
    const struct ans_inv *a = arg;
    const struct inv_ans_group *x = &a->g[*(const size_t *)pa], *y = &a->g[*(const size_t *)pb];
    if (x->depth != y->depth)
        return x->depth < y->depth ? -1 : 1;
    if (x->priority != y->priority)
        return x->priority < y->priority ? -1 : 1;
    return strcmp(x->name, y->name);
}

static int
size_cmp(const void *pa, const void *pb)
{
    size_t x = *(const size_t *)pa, y = *(const size_t *)pb;
    return x < y ? -1 : x > y;
}

/* Ranks of the groups by (depth, priority, name), host -> groups, and the scratch arrays. */
static bool
merge_init(struct ans_inv *a, struct merge *m)
{
    size_t ng = a->ng ? a->ng : 1, links = 0;
    for (size_t g = 0; g < a->ng; g++)
        links += a->g[g].nhosts;
    m->rank = malloc(ng * sizeof *m->rank);
    m->byrank = malloc(ng * sizeof *m->byrank);
    m->mine = malloc(ng * sizeof *m->mine);
    m->stack = malloc(ng * sizeof *m->stack);
    m->hoff = calloc(a->nh + 1, sizeof *m->hoff);
    m->hgroups = malloc((links ? links : 1) * sizeof *m->hgroups);
    if (!m->rank || !m->byrank || !m->mine || !m->stack || !m->hoff || !m->hgroups)
        return (a->x->oom = true, false);
    for (size_t g = 0; g < a->ng; g++)
        m->byrank[g] = g;
    qsort_r(m->byrank, a->ng, sizeof *m->byrank, group_order, a);
    for (size_t r = 0; r < a->ng; r++)
        m->rank[m->byrank[r]] = r;
    for (size_t g = 0; g < a->ng; g++)
        for (size_t i = 0; i < a->g[g].nhosts; i++)
            m->hoff[a->g[g].hosts[i] + 1]++;
    for (size_t h = 0; h < a->nh; h++)
        m->hoff[h + 1] += m->hoff[h];
    size_t *fill = calloc(a->nh ? a->nh : 1, sizeof *fill);
    if (fill == NULL)
        return (a->x->oom = true, false);
    for (size_t g = 0; g < a->ng; g++)
        for (size_t i = 0; i < a->g[g].nhosts; i++) {
            size_t h = a->g[g].hosts[i];
            m->hgroups[m->hoff[h] + fill[h]++] = g;
        }
    free(fill);
    return true;
}

static void
merge_release(struct merge *m)
{
    free(m->rank);
    free(m->byrank);
    free(m->mine);
    free(m->stack);
    free(m->hoff);
    free(m->hgroups);
}

/* The ranks of host h's groups: its own and all their ancestors, `all` included. */
static void
merge_groups(struct ans_inv *a, struct merge *m, size_t h)
{
    size_t top = 0;
    m->nmine = 0;
    m->stamp++;
    for (size_t i = m->hoff[h]; i < m->hoff[h + 1]; i++)
        m->stack[top++] = m->hgroups[i];
    while (top > 0) {
        struct inv_ans_group *g = &a->g[m->stack[--top]];
        if (g->stamp == m->stamp)
            continue;
        g->stamp = m->stamp;
        m->mine[m->nmine++] = m->rank[g - a->g];
        for (size_t p = 0; p < g->nparents; p++)
            if (a->g[g->parents[p]].stamp != m->stamp)
                m->stack[top++] = g->parents[p];
    }
    qsort(m->mine, m->nmine, sizeof *m->mine, size_cmp);
}

/* Host variables first, then the groups from the last merged (the strongest) down. */
static const struct ans_var *
merged(const struct ans_inv *a, const struct merge *m, size_t h, const char *key)
{
    const struct ans_var *v = var_find(&a->h[h].vars, key);
    for (size_t i = m->nmine; v == NULL && i-- > 0;)
        v = var_find(&a->g[m->byrank[m->mine[i]]].vars, key);
    return v;
}

/* A variable the plan uses, text or nothing. An alias listed after the name in Ansible's
 * connection options (ansible_ssh_host after ansible_host) wins when both are set. */
static const char *
merged_text(struct ans_inv *a, const struct merge *m, size_t h, const char *key, const char *alias,
            bool *bad)
{
    const struct ans_var *v = alias != NULL ? merged(a, m, h, alias) : NULL;
    if (v == NULL)
        v = merged(a, m, h, key);
    if (v != NULL && v->value == NULL) {
        inv_error(a->x, "variable '%s' of host '%s' (%s:%u:%u) is not text", v->key, a->h[h].name,
                  a->x->file, a->h[h].line, a->h[h].col);
        *bad = true;
    }
    return v != NULL ? v->value : NULL;
}

static bool
take_host(struct ans_inv *a, struct merge *m, size_t h)
{
    merge_groups(a, m, h);
    const struct ans_host *ah = &a->h[h];
    struct inv_machine *mc = inv_add(a->x, ah->name, NULL, ah->line, ah->col);
    if (mc == NULL)
        return false;
    bool bad = false;
    const char *addr = merged_text(a, m, h, "ansible_host", "ansible_ssh_host", &bad);
    mc->address = addr != NULL ? addr : mc->name; /* Ansible dials the inventory name */
    mc->user = merged_text(a, m, h, "ansible_user", "ansible_ssh_user", &bad);
    mc->port = merged_text(a, m, h, "ansible_port", "ansible_ssh_port", &bad);
    mc->data_address = merged_text(a, m, h, "data_address", NULL, &bad);
    mc->zone = merged_text(a, m, h, "zone", NULL, &bad);
    mc->region = merged_text(a, m, h, "region", NULL, &bad);
    mc->zone_id = merged_text(a, m, h, "zone_id", NULL, &bad);
    mc->bad = bad;
    return true;
}

/* Mark (stamp) the hosts of group g and of its descendants. */
static bool
select_group(struct ans_inv *a, size_t g0, unsigned stamp)
{
    size_t *stack = malloc((a->ng ? a->ng : 1) * sizeof *stack), top = 0;
    if (stack == NULL)
        return (a->x->oom = true, false);
    for (size_t g = 0; g < a->ng; g++)
        a->g[g].stamp = 0;
    stack[top++] = g0;
    a->g[g0].stamp = stamp;
    while (top > 0) {
        const struct inv_ans_group *g = &a->g[stack[--top]];
        for (size_t i = 0; i < g->nhosts; i++)
            a->h[g->hosts[i]].stamp = stamp;
        for (size_t k = 0; k < g->nkids; k++)
            if (a->g[g->kids[k]].stamp != stamp) {
                a->g[g->kids[k]].stamp = stamp;
                stack[top++] = g->kids[k];
            }
    }
    free(stack);
    return true;
}

static void
unknown_group(struct ans_inv *a, const char *name)
{
    const char **names = malloc((a->ng ? a->ng : 1) * sizeof *names);
    if (names == NULL) {
        a->x->oom = true;
        return;
    }
    for (size_t g = 0; g < a->ng; g++)
        names[g] = a->g[g].name;
    const char *near = suggest_closest(name, names, a->ng);
    if (near != NULL)
        inv_error(a->x, "no group '%s' in %s; did you mean '%s'?", name, a->x->file, near);
    else
        inv_error(a->x, "no group '%s' in %s", name, a->x->file);
    free(names);
}

static bool
select_hosts(struct ans_inv *a)
{
    const char *want = a->x->q->group;
    long g = want != NULL ? table_get(a->gidx, want) : (long)a->all;
    if (g < 0) {
        unknown_group(a, want);
        return false;
    }
    return select_group(a, (size_t)g, 1);
}

int
inv_ans_take(struct ans_inv *a)
{
    if (!reconcile(a) || !depths(a))
        return a->x->oom ? NS_ENOMEM : NS_EPARSE;
    priorities(a);
    if (!select_hosts(a))
        return a->x->oom ? NS_ENOMEM : NS_EPARSE;
    struct merge m = {0};
    bool ok = merge_init(a, &m);
    for (size_t g = 0; g < a->ng; g++)
        a->g[g].stamp = 0; /* the selection's marks are on the hosts now */
    for (size_t h = 0; ok && h < a->nh; h++)
        if (a->h[h].stamp == 1 && inv_name_wanted(a->x, a->h[h].name))
            ok = take_host(a, &m, h);
    merge_release(&m);
    return a->x->oom ? NS_ENOMEM : 0;
}
