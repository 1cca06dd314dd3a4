/* inv_sshconfig.c - the Host aliases of an OpenSSH client config (ssh_config(5)) as hosts.
 *
 * An alias is a word of a `Host` line without a wildcard (`*`, `?`) or negation (`!`):
 * `Host zone1-vm zone2-vm` names two, `Host *.internal !bastion` none. The files an `Include`
 * names are read for theirs where the Include stands (relative paths under ~/.ssh/, as ssh
 * takes those of a file given with -F; globs; 16 deep at most). That is all netsurvey reads of
 * the file itself. Each alias the query's glob selects becomes a host whose address is the alias,
 * so that the ssh transport resolves it at run time as `ssh zone1-vm` would, and whose data
 * address (what nsperf -B binds, which must be an address and not an alias) is the hostname the
 * operator's own ssh resolves the alias to: `ssh -G -F FILE ALIAS` (x->ssh; HostName, Match,
 * Include, tokens: whatever that ssh reads). What ssh refuses in the file is reported in its own
 * words, naming the file and line. Zones come from the plan's `zones` map.
 *
 * Lines as ssh splits them: "Keyword args" or "Keyword=args", keywords in any case, '#' lines
 * and '#' words as comments, quotes around words with spaces. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/errors.h"
#include "inventory/inventory.h"

#define SSHCFG_MAX_WORDS 256
#define SSHCFG_MAX_DEPTH 16  /* Include nesting, ssh's own limit */
#define SSHCFG_MAX_FILES 512 /* files Included into one inventory */
#define SSHCFG_MAX_GLOB 256  /* files one Include pattern may name */

struct word {
    const char *s; /* NUL-terminated, in the line copy */
    unsigned col;
};

/* One file being read; the inventory's own or an Included one. */
struct sshcfg {
    struct inv_ctx *x;
    unsigned line;
    int depth;
    size_t *files; /* Included so far, shared down the nesting */
    bool failed;
};

static int read_buffer(struct sshcfg *c, const char *buf, size_t len);

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
        if (*p == '"' || *p == '\'') {
            char *q = strchr(p + 1, *p);
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
        m->address = m->data_address = m->name;
}

static void
host_line(struct sshcfg *c, const struct word *w, int n)
{
    if (n == 0) {
        cfg_error(c, 1, "Host without a pattern");
        return;
    }
    for (int i = 0; i < n && !c->x->oom; i++)
        if (is_alias(w[i].s))
            take_alias(c, &w[i]);
}

/* --- Include -------------------------------------------------------------------------------- */

/* An Include pattern as ssh anchors a user file's: "~/" the home, relative under ~/.ssh/. */
static bool
include_pattern(const struct sshcfg *c, const char *arg, char *buf, size_t len)
{
    const char *home = c->x->ssh->home != NULL ? c->x->ssh->home : "";
    int n;
    if (arg[0] == '~' && (arg[1] == '/' || arg[1] == '\0'))
        n = snprintf(buf, len, "%s%s", home, arg + 1);
    else if (arg[0] == '/' || arg[0] == '~')
        n = snprintf(buf, len, "%s", arg); /* ~user: the reader's glob expands it */
    else
        n = snprintf(buf, len, "%s/.ssh/%s", home, arg);
    return n >= 0 && (size_t)n < len;
}

/* One Included file, read where its Include stands, under its own name in messages. */
static void
include_file(struct sshcfg *c, const char *path, unsigned col)
{
    struct inv_ctx *x = c->x;
    const struct inv_ssh *ssh = x->ssh;
    char *buf = NULL, msg[600];
    size_t len = 0;
    struct err e = {0};
    if (++*c->files > SSHCFG_MAX_FILES) {
        snprintf(msg, sizeof msg, "more than %d files Included", SSHCFG_MAX_FILES);
        cfg_error(c, col, msg);
        return;
    }
    int rc = ssh->read(ssh->files, path, ssh->cap, &buf, &len, &e);
    if (rc == NS_ENOMEM)
        x->oom = true;
    if (rc != 0) {
        snprintf(msg, sizeof msg, "cannot read Included %.300s: %.250s", path, e.msg);
        cfg_error(c, col, msg);
        return;
    }
    const char *file = x->file;
    x->file = inv_strdup(x, path);
    struct sshcfg in = {.x = x, .depth = c->depth + 1, .files = c->files};
    if (x->file != NULL && read_buffer(&in, buf, len) != 0)
        c->failed = true;
    x->file = file;
    free(buf);
}

static void
include_line(struct sshcfg *c, const struct word *w, int n, unsigned col)
{
    struct inv_ctx *x = c->x;
    if (x->ssh == NULL || x->ssh->read == NULL || x->ssh->glob == NULL) {
        inv_note(x,
                 "%s:%u:%u: Include is not followed here; the Host aliases of the files it "
                 "names are not taken",
                 x->file, c->line, col);
        return;
    }
    if (c->depth >= SSHCFG_MAX_DEPTH) {
        cfg_error(c, col, "Includes nested too deep (a file that includes itself?)");
        return;
    }
    for (int i = 0; i < n && !inv_give_up(x); i++) {
        char pattern[4200], msg[600], **paths = NULL;
        struct err e = {0};
        if (!include_pattern(c, w[i].s, pattern, sizeof pattern)) {
            cfg_error(c, w[i].col, "Include path too long");
            continue;
        }
        int rc = x->ssh->glob(x->ssh->files, pattern, SSHCFG_MAX_GLOB, &paths, &e);
        if (rc == NS_ENOMEM)
            x->oom = true;
        if (rc != 0) {
            snprintf(msg, sizeof msg, "Include %.300s: %.250s", w[i].s, e.msg);
            cfg_error(c, w[i].col, msg);
        }
        for (size_t k = 0; paths != NULL && paths[k] != NULL; k++) {
            if (!inv_give_up(x))
                include_file(c, paths[k], w[i].col);
            free(paths[k]);
        }
        free(paths);
    }
}

/* --- lines ---------------------------------------------------------------------------------- */

/* One line, without its leading blanks. */
static void
cfg_line(struct sshcfg *c, char *s, unsigned col0)
{
    size_t klen = strcspn(s, " \t=");
    char *args = s + klen;
    args += strspn(args, " \t");
    if (*args == '=')
        args++;
    char key[32];
    snprintf(key, sizeof key, "%.*s", (int)(klen < sizeof key ? klen : 0), s);
    bool host = strcasecmp(key, "Host") == 0, include = strcasecmp(key, "Include") == 0;
    if (!host && !include)
        return; /* ssh reads the rest */
    struct word w[SSHCFG_MAX_WORDS];
    int n = cfg_words(c, args, col0 + (unsigned)(args - s), w, SSHCFG_MAX_WORDS);
    if (n >= 0 && host)
        host_line(c, w, n);
    else if (n >= 0)
        include_line(c, w, n, col0);
}

/* The lines of one file; 0, or NS_EPARSE when one of them (or of its Includes) is wrong. */
static int
read_buffer(struct sshcfg *c, const char *buf, size_t len)
{
    struct inv_ctx *x = c->x;
    char *line = NULL;
    for (size_t off = 0; off < len && !inv_give_up(x);) {
        const char *nl = memchr(buf + off, '\n', len - off);
        size_t n = nl != NULL ? (size_t)(nl - (buf + off)) : len - off;
        c->line++;
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
            cfg_error(c, (unsigned)strlen(line) + 1, "a NUL byte");
            continue;
        }
        size_t end = n, lead = strspn(line, " \t");
        while (end > lead && isspace((unsigned char)line[end - 1]))
            line[--end] = '\0';
        if (line[lead] != '\0' && line[lead] != '#')
            cfg_line(c, line + lead, (unsigned)lead + 1);
    }
    free(line);
    return c->failed ? NS_EPARSE : 0;
}

/* --- the data addresses --------------------------------------------------------------------- */

/* Each alias's hostname as ssh resolves it; a refusal reported once per message, its aliases
 * marked bad. */
static void
data_addresses(struct inv_ctx *x)
{
    size_t n = x->n;
    const char **alias = calloc(n, sizeof *alias);
    char **host = calloc(n, sizeof *host), **why = calloc(n, sizeof *why);
    int rc = alias != NULL && host != NULL && why != NULL ? 0 : NS_ENOMEM;
    for (size_t i = 0; rc == 0 && i < n; i++)
        alias[i] = x->m[i].name;
    if (rc == 0)
        rc = x->ssh->hostnames(x->ssh->resolver, x->ssh->path, alias, n, host, why);
    for (size_t i = 0; rc == 0 && i < n; i++) {
        struct inv_machine *m = &x->m[i];
        if (host[i] != NULL) {
            m->data_address = inv_strdup(x, host[i]);
            continue;
        }
        m->bad = true;
        bool said = false;
        for (size_t k = 0; k < i && !said; k++)
            said = why[k] != NULL && strcmp(why[k], why[i]) == 0;
        if (!said)
            inv_error(x, "cannot resolve '%s' of %s: %s", m->name, x->file,
                      why[i] != NULL ? why[i] : "no answer");
    }
    if (rc != 0)
        x->oom = true;
    for (size_t i = 0; host != NULL && why != NULL && i < n; i++) {
        free(host[i]);
        free(why[i]);
    }
    free(alias);
    free(host);
    free(why);
}

int
inv_read_ssh_config(struct inv_ctx *x, const char *buf, size_t len)
{
    size_t files = 0;
    struct sshcfg c = {.x = x, .files = &files};
    int rc = read_buffer(&c, buf, len);
    /* a file the listing finds wrong is not handed to ssh as well */
    if (rc == 0 && !x->oom && x->n > 0 && x->ssh != NULL && x->ssh->hostnames != NULL &&
        x->ssh->path != NULL)
        data_addresses(x);
    if (x->oom)
        return NS_ENOMEM;
    return rc;
}
