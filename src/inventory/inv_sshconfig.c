/* inv_sshconfig.c - the Host aliases of an OpenSSH client config (ssh_config(5)) as hosts.
 *
 * An alias is a word of a `Host` line without a wildcard (`*`, `?`) or negation (`!`):
 * `Host zone1-vm zone2-vm` names two, `Host *.internal !bastion` none. Each alias the query's
 * glob selects becomes a host whose address is the alias itself, so that the ssh transport
 * resolves it at run time as `ssh zone1-vm` would (HostName, User, Port, ProxyJump,
 * IdentityFile, Match, Include: everything OpenSSH reads). The plan takes a single value from
 * the file on its own: the data address, which test traffic binds to (nsperf -B) and so must
 * be an address and not an alias: the first HostName (ssh's first-obtained-value rule) of the
 * Host blocks that apply to the alias, in file order, with %h and %% expanded; without one,
 * the alias. Match blocks and Include files are not read for it (an Include is noted). Zones
 * come from the plan's `zones` map.
 *
 * Syntax as OpenSSH's readconf.c reads it: "Keyword args" or "Keyword=args", keywords in any
 * case, '#' lines and '#' words as comments, double quotes around words with spaces. */
#include <ctype.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/array.h"
#include "common/errors.h"
#include "inventory/inventory.h"

#define SSHCFG_MAX_WORDS 256

struct word {
    const char *s; /* NUL-terminated, in the line copy */
    unsigned col;
};

/* One Host (or Match) block: its patterns and the first HostName in it. */
struct block {
    char **pats; /* NULL: the lines before the first Host, which apply to every host */
    size_t npats;
    bool match;           /* a Match block: not evaluated */
    char *hostname;       /* NULL: none */
    unsigned hline, hcol; /* where the HostName is */
};

struct sshcfg {
    struct inv_ctx *x;
    struct block *b;
    size_t nb, capb;
    unsigned line;
    unsigned match_line, match_col; /* the first HostName of a Match block, 0: none */
    bool failed;
};

static void
cfg_error(struct sshcfg *c, unsigned col, const char *msg)
{
    inv_error(c->x, "invalid ssh config in %s at %u:%u: %s", c->x->file, c->line, col, msg);
    c->failed = true;
}

/* Split the arguments at s (modified) into words; -1 after reporting. */
static int
cfg_words(struct sshcfg *c, char *s, unsigned col0, struct word *w, int max)
{
    int n = 0;
    char *p = s;
    while (*p != '\0') {
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p == '\0' || *p == '#')
            break;
        if (n == max) {
            cfg_error(c, col0 + (unsigned)(p - s), "too many words on a line");
            return -1;
        }
        w[n].col = col0 + (unsigned)(p - s);
        if (*p == '"') {
            char *q = strchr(p + 1, '"');
            if (q == NULL) {
                cfg_error(c, w[n].col, "no closing quotation");
                return -1;
            }
            *q = '\0';
            w[n++].s = p + 1;
            p = q + 1;
            continue;
        }
        w[n++].s = p;
        p += strcspn(p, " \t");
        if (*p != '\0')
            *p++ = '\0';
    }
    return n;
}

static bool
block_new(struct sshcfg *c, bool match)
{
    if (ARRAY_GROW(&c->b, &c->capb, c->nb + 1) != 0)
        return (c->x->oom = true, false);
    memset(&c->b[c->nb++], 0, sizeof *c->b);
    c->b[c->nb - 1].match = match;
    return true;
}

static bool
is_alias(const char *s)
{
    return s[0] != '!' && strpbrk(s, "*?") == NULL;
}

/* The first mention of each alias the query selects; a later Host line naming it again adds
 * nothing. */
static void
take_alias(struct sshcfg *c, const struct word *w)
{
    for (size_t i = 0; i < c->x->n; i++)
        if (strcmp(c->x->m[i].name, w->s) == 0)
            return;
    if (!inv_count(c->x) || !inv_name_wanted(c->x, w->s))
        return;
    struct inv_machine *m = inv_add(c->x, w->s, NULL, c->line, w->col);
    if (m != NULL)
        m->address = m->name;
}

static void
host_line(struct sshcfg *c, const struct word *w, int n)
{
    if (n == 0) {
        cfg_error(c, 1, "Host without a pattern");
        return;
    }
    if (!block_new(c, false))
        return;
    struct block *b = &c->b[c->nb - 1];
    b->pats = calloc((size_t)n, sizeof *b->pats);
    if (b->pats == NULL) {
        c->x->oom = true;
        return;
    }
    for (int i = 0; i < n && !c->x->oom; i++) {
        if ((b->pats[b->npats] = strdup(w[i].s)) == NULL)
            c->x->oom = true;
        else
            b->npats++;
        if (is_alias(w[i].s))
            take_alias(c, &w[i]);
    }
}

static void
hostname_line(struct sshcfg *c, const struct word *w, int n, unsigned col)
{
    if (n != 1) {
        cfg_error(c, col, "HostName takes one argument");
        return;
    }
    if (c->nb == 0 && !block_new(c, false))
        return;
    struct block *b = &c->b[c->nb - 1];
    if (b->match && c->match_line == 0) {
        c->match_line = c->line;
        c->match_col = col;
    }
    if (b->hostname != NULL)
        return; /* first obtained value */
    if ((b->hostname = strdup(w[0].s)) == NULL)
        c->x->oom = true;
    b->hline = c->line;
    b->hcol = w[0].col;
}

/* One line, without its leading blanks. */
static void
cfg_line(struct sshcfg *c, char *s, unsigned col0)
{
    size_t klen = strcspn(s, " \t=");
    char *args = s + klen;
    args += strspn(args, " \t");
    if (*args == '=')
        args++;
    struct word w[SSHCFG_MAX_WORDS];
    char key[32];
    snprintf(key, sizeof key, "%.*s", (int)(klen < sizeof key ? klen : 0), s);
    int n = cfg_words(c, args, col0 + (unsigned)(args - s), w, SSHCFG_MAX_WORDS);
    if (n < 0)
        return;
    if (strcasecmp(key, "Host") == 0)
        host_line(c, w, n);
    else if (strcasecmp(key, "Match") == 0)
        block_new(c, true);
    else if (strcasecmp(key, "HostName") == 0)
        hostname_line(c, w, n, col0);
    else if (strcasecmp(key, "Include") == 0)
        inv_note(c->x,
                 "%s:%u:%u: Include is not followed here; the Host aliases of the files it "
                 "names are not taken",
                 c->x->file, c->line, col0);
}

/* --- the data address -------------------------------------------------------------------- */

/* Does block b apply to host (ssh's match_host_and_ip over the Host line's patterns: a
 * matching !pattern rules the block out, else one matching pattern rules it in)? Host names
 * are compared without case, as ssh does. */
static bool
block_applies(const struct block *b, const char *host)
{
    if (b->match)
        return false;
    if (b->pats == NULL)
        return true;
    bool yes = false;
    for (size_t i = 0; i < b->npats; i++) {
        bool neg = b->pats[i][0] == '!';
        if (fnmatch(b->pats[i] + neg, host, FNM_CASEFOLD) != 0)
            continue;
        if (neg)
            return false;
        yes = true;
    }
    return yes;
}

/* HostName with %h (the alias) and %% expanded; NULL after reporting another token. */
static const char *
expand_hostname(struct sshcfg *c, const struct block *b, const char *alias)
{
    char out[1100];
    size_t o = 0;
    for (const char *p = b->hostname; *p != '\0' && o + 1 < sizeof out; p++) {
        if (*p != '%') {
            out[o++] = *p;
            continue;
        }
        if (p[1] == '%' || p[1] == 'h') {
            const char *ins = p[1] == '%' ? "%" : alias;
            size_t k = strlen(ins);
            if (o + k >= sizeof out)
                break;
            memcpy(out + o, ins, k);
            o += k;
            p++;
            continue;
        }
        char msg[256];
        snprintf(msg, sizeof msg,
                 "HostName '%.64s' uses %%%c, which only ssh expands; give '%.64s' in hosts",
                 b->hostname, p[1] != '\0' ? p[1] : ' ', alias);
        c->line = b->hline;
        cfg_error(c, b->hcol, msg);
        return NULL;
    }
    out[o] = '\0';
    return inv_strndup(c->x, out, o);
}

static void
data_addresses(struct sshcfg *c)
{
    for (size_t i = 0; i < c->x->n && !c->x->oom; i++) {
        struct inv_machine *m = &c->x->m[i];
        const struct block *b = NULL;
        for (size_t k = 0; k < c->nb && b == NULL; k++)
            if (c->b[k].hostname != NULL && block_applies(&c->b[k], m->name))
                b = &c->b[k];
        m->data_address = b != NULL ? expand_hostname(c, b, m->name) : m->name;
        m->bad = m->data_address == NULL;
    }
}

static void
cfg_release(struct sshcfg *c)
{
    for (size_t i = 0; i < c->nb; i++) {
        for (size_t k = 0; k < c->b[i].npats; k++)
            free(c->b[i].pats[k]);
        free(c->b[i].pats);
        free(c->b[i].hostname);
    }
    free(c->b);
}

int
inv_read_ssh_config(struct inv_ctx *x, const char *buf, size_t len)
{
    struct sshcfg c = {.x = x};
    char *line = NULL;
    for (size_t off = 0; off < len && !inv_give_up(x);) {
        const char *nl = memchr(buf + off, '\n', len - off);
        size_t n = nl != NULL ? (size_t)(nl - (buf + off)) : len - off;
        c.line++;
        char *copy = realloc(line, n + 1);
        if (copy == NULL) {
            x->oom = true;
            break;
        }
        line = copy;
        memcpy(line, buf + off, n);
        line[n] = '\0';
        off += n + 1;
        if (strlen(line) < n) {
            cfg_error(&c, (unsigned)strlen(line) + 1, "a NUL byte");
            continue;
        }
        size_t end = n, lead = strspn(line, " \t");
        while (end > lead && isspace((unsigned char)line[end - 1]))
            line[--end] = '\0';
        if (line[lead] != '\0' && line[lead] != '#')
            cfg_line(&c, line + lead, (unsigned)lead + 1);
    }
    free(line);
    if (!x->oom)
        data_addresses(&c);
    if (c.match_line != 0 && x->n > 0)
        inv_note(x,
                 "%s:%u:%u: a Match block sets HostName; the data addresses taken from this "
                 "file come from Host blocks alone",
                 x->file, c.match_line, c.match_col);
    cfg_release(&c);
    if (x->oom)
        return NS_ENOMEM;
    return c.failed ? NS_EPARSE : 0;
}
