/* transport_sshconfig_read.c - config files read line by line as readconf.c's
 * read_config_file_depth() and process_config_line_depth() read them: the keyword, its
 * arguments, Host / Match / Include, and every value stored only if none was before (first
 * obtained value wins; IdentityFile accumulates). What ssh calls a bad option is an error here
 * ("FILE line N: ..."); ssh reads the rest of the file before failing, netsurvey stops at once,
 * with the same outcome. */
#include "transport/transport_sshconfig_int.h"

#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/fileread.h"

#define SC_WS " \t\r\n"

/* One line being processed. */
struct sc_line {
    struct sc_ctx *c;
    const char *file;
    int lineno;
    int *active;
    unsigned flags;
    int depth;
    const struct sc_keyword *kw;
    const char *keyword; /* lower-cased, as written */
    char *str;           /* the arguments, raw (ProxyJump, ProxyCommand and Match read them) */
    struct sc_strv av;   /* the arguments, split */
    size_t pos;          /* next unread of av */
    char at[300];        /* "FILE line N" */
};

__attribute__((format(printf, 2, 3))) static int
line_err(struct sc_line *l, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return err_set(l->c->e, NS_EPARSE, "%s: %s", l->at, msg);
}

static const char *
next_arg(struct sc_line *l)
{
    return l->pos < l->av.n ? l->av.v[l->pos++] : NULL;
}

static void
consume(struct sc_line *l)
{
    l->pos = l->av.n;
}

static int
oom(struct sc_ctx *c)
{
    return err_set(c->e, NS_ENOMEM, "out of memory");
}

void
sc_warn(struct sc_ctx *c, const char *at, const char *msg)
{
    char line[600];
    snprintf(line, sizeof line, "%s: %s", at, msg);
    for (size_t i = 0; i < c->warnings.n; i++)
        if (strcmp(c->warnings.v[i], line) == 0)
            return; /* the final pass reads every line again */
    if (c->warnings.n >= TRANSPORT_SSHCONFIG_WARNINGS_MAX ||
        sc_strv_push(&c->warnings, line, (size_t)-1) != 0)
        c->dropped++;
}

/* true when s is one of the comma-separated words of list (any case) */
static bool
in_list(const char *s, const char *list)
{
    size_t n = strlen(s);
    for (const char *p = list; p != NULL && *p != '\0';) {
        const char *comma = strchr(p, ',');
        size_t len = comma != NULL ? (size_t)(comma - p) : strlen(p);
        if (len == n && strncasecmp(p, s, n) == 0)
            return true;
        p = comma != NULL ? comma + 1 : NULL;
    }
    return false;
}

/* The first line of a warned keyword that applies decides (as its value would). */
static void
maybe_warn(struct sc_line *l, const char *value)
{
    struct sc_ctx *c = l->c;
    if (l->kw->warn == NULL || !*l->active)
        return;
    for (size_t i = 0; i < c->warned.n; i++)
        if (strcmp(c->warned.v[i], l->kw->name) == 0)
            return;
    if (sc_strv_push(&c->warned, l->kw->name, (size_t)-1) != 0)
        return;
    if (value != NULL && l->kw->quiet != NULL && in_list(value, l->kw->quiet))
        return;
    sc_warn(c, l->at, l->kw->warn);
}

static int
set_string(struct sc_line *l, char **field, char **at)
{
    const char *arg = next_arg(l);
    if (arg == NULL || *arg == '\0')
        return line_err(l, "missing argument");
    if (*l->active && *field == NULL) {
        if ((*field = strdup(arg)) == NULL)
            return oom(l->c);
        if (at != NULL && (*at = strdup(l->at)) == NULL)
            return oom(l->c);
    }
    return 0;
}

/* multistate_flag (yes/no/true/false), with "always" (2) for CanonicalizeHostname. */
static int
parse_flag(const char *arg, bool allow_always)
{
    if (arg == NULL)
        return -1;
    if (strcasecmp(arg, "yes") == 0 || strcasecmp(arg, "true") == 0)
        return 1;
    if (strcasecmp(arg, "no") == 0 || strcasecmp(arg, "false") == 0)
        return 0;
    if (allow_always && strcasecmp(arg, "always") == 0)
        return 2;
    return -1;
}

static int
set_flag(struct sc_line *l, int *field, bool allow_always)
{
    const char *arg = next_arg(l);
    int v = parse_flag(arg, allow_always);
    if (v < 0)
        return arg == NULL ? line_err(l, "missing argument")
                           : line_err(l, "unsupported option \"%s\"", arg);
    if (*l->active && *field == -1)
        *field = v;
    return 0;
}

/* --- Host and Match ----------------------------------------------------------------------- */

static int
kw_host(struct sc_line *l)
{
    const char *arg;
    *l->active = 0;
    while ((arg = next_arg(l)) != NULL) {
        if (*arg == '\0')
            return line_err(l, "keyword host empty argument");
        if (l->flags & SC_F_NEVERMATCH) {
            consume(l);
            break;
        }
        bool negated = *arg == '!';
        if (sc_match_pattern(l->c->host, negated ? arg + 1 : arg)) {
            if (negated) {
                *l->active = 0;
                consume(l);
                break;
            }
            *l->active = 1;
        }
    }
    return 0;
}

/* The host Match tests: the hostname so far (%h expanded), as match_cfg_line() takes it. */
static int
match_host(struct sc_line *l, char **host)
{
    struct sc_ctx *c = l->c;
    char why[200];
    if (c->final_pass || c->o.hostname == NULL) {
        *host = strdup(c->final_pass ? c->o.hostname : c->host);
        return *host != NULL ? 0 : oom(c);
    }
    struct sc_token t = {'h', c->host};
    if (sc_expand(c->o.hostname, false, true, &t, 1, host, why, sizeof why) != 0)
        return err_set(c->e, NS_EPARSE, "%s: HostName '%.100s': %s", c->o.hostname_at,
                       c->o.hostname, why);
    return 0;
}

struct match_state {
    int result;     /* 1 so far matching, 0 not */
    int attributes; /* criteria seen, "all" aside */
    bool exec_unknown;
};

/* One criterion with its argument; 1 matched, 0 not, -1 unsupported. */
static int
match_criterion(struct sc_line *l, const char *attrib, const char *arg, const char *host,
                struct match_state *m)
{
    struct sc_ctx *c = l->c;
    const char *ruser = c->o.user != NULL ? c->o.user : c->local_user;
    if (strcasecmp(attrib, "host") == 0)
        return sc_match_hostname(host, arg) == 1;
    if (strcasecmp(attrib, "originalhost") == 0)
        return sc_match_hostname(c->host_arg, arg) == 1;
    if (strcasecmp(attrib, "user") == 0)
        return sc_match_pattern_list(ruser, arg, false) == 1;
    if (strcasecmp(attrib, "localuser") == 0)
        return sc_match_pattern_list(c->local_user, arg, false) == 1;
    if (strcasecmp(attrib, "exec") == 0) {
        /* ssh runs it only while the line still matches; netsurvey runs no commands */
        if (m->result == 1)
            m->exec_unknown = true;
        return 2;
    }
    return -1;
}

/* match_cfg_line(): *result 1 when the line matches. Reads l->str (strdelim, as ssh does). */
static int
match_line(struct sc_line *l, const char *host, int *result)
{
    struct match_state m = {.result = 1};
    char *cp = l->str, *attrib, *arg;
    bool all = false;
    while ((attrib = sc_strdelim(&cp)) != NULL && *attrib != '\0') {
        if (*attrib == '#') {
            cp = NULL;
            break;
        }
        const char *oattrib = attrib;
        bool negate = attrib[0] == '!';
        if (negate)
            attrib++;
        if (strcasecmp(attrib, "all") == 0) {
            arg = NULL;
            if (m.attributes > 1 ||
                ((arg = sc_strdelim(&cp)) != NULL && *arg != '\0' && *arg != '#'))
                return line_err(l, "'%s' cannot be combined with other Match attributes", oattrib);
            if (arg != NULL && *arg == '#')
                cp = NULL;
            if (m.result)
                m.result = negate ? 0 : 1;
            all = true;
            break;
        }
        m.attributes++;
        if (strcasecmp(attrib, "canonical") == 0 || strcasecmp(attrib, "final") == 0) {
            if (strcasecmp(attrib, "final") == 0)
                l->c->want_final = true;
            if ((l->c->final_pass ? 1 : 0) == (negate ? 1 : 0))
                m.result = 0;
            continue;
        }
        if ((arg = sc_strdelim(&cp)) == NULL || *arg == '\0' || *arg == '#')
            return line_err(l, "missing Match criteria for %s", attrib);
        int r = match_criterion(l, attrib, arg, host, &m);
        if (r < 0)
            return line_err(l, "unsupported Match attribute %s", attrib);
        if (r != 2 && r == (negate ? 1 : 0))
            m.result = 0;
    }
    if (!all && m.attributes == 0)
        return line_err(l, "one or more attributes required for Match");
    l->str = cp;
    if (m.exec_unknown && m.result == 1) {
        if (!(l->flags & SC_F_NEVERMATCH))
            sc_warn(l->c, l->at,
                    "Match exec is not evaluated (netsurvey runs no commands): the block is "
                    "taken as not matching");
        m.result = 0;
    }
    *result = m.result;
    return 0;
}

static int
kw_match(struct sc_line *l)
{
    char *host = NULL;
    int rc = match_host(l, &host);
    if (rc != 0)
        return rc;
    int result = 0;
    rc = match_line(l, host, &result);
    free(host);
    if (rc != 0)
        return rc;
    *l->active = (l->flags & SC_F_NEVERMATCH) ? 0 : result;
    if (l->str == NULL || *l->str == '\0')
        consume(l);
    return 0;
}

/* --- Include ------------------------------------------------------------------------------ */

/* The pattern an Include argument names: relative ones under ~/.ssh/ (user files) or
 * /etc/ssh/ (the system file); "~" as ssh's glob expands it, with $HOME. NULL: matches
 * nothing (an unknown ~user, as glob leaves it). */
static int
include_pattern(struct sc_line *l, const char *arg, char **out)
{
    char *raw = NULL, why[200];
    *out = NULL;
    size_t n = strlen(arg) + 16;
    if ((raw = malloc(n)) == NULL)
        return oom(l->c);
    if (arg[0] != '/' && arg[0] != '~')
        snprintf(raw, n, "%s/%s", (l->flags & SC_F_USERCONF) ? "~/.ssh" : "/etc/ssh", arg);
    else
        snprintf(raw, n, "%s", arg);
    int rc = 0;
    if (raw[0] == '~') {
        if (sc_tilde(raw, l->c->home_env, out, why, sizeof why) != 0)
            *out = NULL;
    } else if ((*out = strdup(raw)) == NULL) {
        rc = oom(l->c);
    }
    free(raw);
    return rc;
}

static int
include_files(struct sc_line *l, const char *pattern)
{
    glob_t gl;
    memset(&gl, 0, sizeof gl);
    int r = glob(pattern, 0, NULL, &gl);
    if (r == GLOB_NOMATCH)
        return 0;
    if (r != 0)
        return line_err(l, "glob failed for %s", pattern);
    int rc = 0, oactive = *l->active;
    if (gl.gl_pathc > TRANSPORT_SSHCONFIG_GLOB_MAX)
        rc = err_set(l->c->e, NS_ETOOBIG, "%s: Include %s names more than %d files", l->at, pattern,
                     TRANSPORT_SSHCONFIG_GLOB_MAX);
    for (size_t i = 0; rc == 0 && i < gl.gl_pathc; i++) {
        unsigned fl = l->flags | SC_F_CHECKPERM | (oactive ? 0 : SC_F_NEVERMATCH);
        int oe = 0;
        r = sc_read_file(l->c, gl.gl_pathv[i], fl, l->active, l->depth + 1, &oe);
        if (r < 0)
            rc = r;
        else if (r == 0 && oe != ENOENT)
            rc = err_set(l->c->e, NS_EIO, "%s: cannot open included file %s: %s", l->at,
                         gl.gl_pathv[i], strerror(oe));
        *l->active = oactive; /* Match in an included file ends with it */
    }
    globfree(&gl);
    return rc;
}

static int
kw_include(struct sc_line *l)
{
    const char *arg;
    while ((arg = next_arg(l)) != NULL) {
        if (*arg == '\0')
            return line_err(l, "keyword include empty argument");
        if (*arg == '~' && !(l->flags & SC_F_USERCONF))
            return line_err(l, "bad include path %s", arg);
        char *pattern = NULL;
        int rc = include_pattern(l, arg, &pattern);
        if (rc == 0 && pattern != NULL)
            rc = include_files(l, pattern);
        free(pattern);
        if (rc != 0)
            return rc;
    }
    return 0;
}

/* --- the values netsurvey uses ------------------------------------------------------------ */

int
sc_add_identity(struct sc_ctx *c, const char *path, bool userprovided, const char *at)
{
    struct sc_opts *o = &c->o;
    if (o->ids.n >= TRANSPORT_SSHCONFIG_IDENTITIES_MAX) /* before the duplicate check, as ssh */
        return err_set(c->e, NS_ETOOBIG, "%s: too many identity files specified (max %d)", at,
                       TRANSPORT_SSHCONFIG_IDENTITIES_MAX);
    for (size_t i = 0; i < o->ids.n; i++)
        if (o->ids_user[i] == userprovided && strcmp(o->ids.v[i], path) == 0)
            return 0;
    o->ids_user[o->ids.n] = userprovided;
    if (sc_strv_push(&o->ids, path, (size_t)-1) != 0 ||
        sc_strv_push(&o->ids_at, at, (size_t)-1) != 0)
        return oom(c);
    return 0;
}

static int
kw_identityfile(struct sc_line *l)
{
    const char *arg = next_arg(l);
    if (arg == NULL || *arg == '\0')
        return line_err(l, "missing argument");
    if (!*l->active)
        return 0;
    if (l->c->o.ids.n >= TRANSPORT_SSHCONFIG_IDENTITIES_MAX)
        return line_err(l, "too many identity files specified (max %d)",
                        TRANSPORT_SSHCONFIG_IDENTITIES_MAX);
    return sc_add_identity(l->c, arg, (l->flags & SC_F_USERCONF) != 0, l->at);
}

static int
kw_port(struct sc_line *l)
{
    const char *arg = next_arg(l);
    if (arg == NULL || *arg == '\0')
        return line_err(l, "missing argument");
    int v = sc_a2port(arg);
    if (v <= 0)
        return line_err(l, "bad port '%s'", arg);
    if (*l->active && l->c->o.port == -1)
        l->c->o.port = v;
    return 0;
}

static int
kw_connecttimeout(struct sc_line *l)
{
    const char *arg = next_arg(l);
    if (arg == NULL || *arg == '\0')
        return line_err(l, "missing time value");
    int v = strcmp(arg, "none") == 0 ? -1 : sc_convtime(arg);
    if (v == -1 && strcmp(arg, "none") != 0)
        return line_err(l, "invalid time value '%s'", arg);
    if (*l->active && l->c->o.connect_timeout == -1)
        l->c->o.connect_timeout = v; /* "none" leaves it unset: a later line may still set it */
    return 0;
}

static int
kw_identityagent(struct sc_line *l)
{
    const char *arg = next_arg(l);
    char *tmp = NULL, why[200];
    if (arg == NULL || *arg == '\0')
        return line_err(l, "missing argument");
    /* checked on every line, active or not, as ssh does */
    if (sc_expand(arg, true, false, NULL, 0, &tmp, why, sizeof why) != 0)
        return line_err(l, "invalid environment expansion %s", arg);
    free(tmp);
    if (arg[0] == '$' && arg[1] != '{' && !sc_valid_env_name(arg + 1))
        return line_err(l, "invalid environment name %s", arg);
    struct sc_opts *o = &l->c->o;
    if (*l->active && o->identity_agent == NULL &&
        ((o->identity_agent = strdup(arg)) == NULL || (o->agent_at = strdup(l->at)) == NULL))
        return oom(l->c);
    return 0;
}

/* parse_char_array(): UserKnownHostsFile, GlobalKnownHostsFile. */
static int
kw_hostfiles(struct sc_line *l, struct sc_strv *list, char **at)
{
    bool was_empty = list->n == 0;
    const char *arg;
    for (size_t i = 0; (arg = next_arg(l)) != NULL; i++) {
        if (*arg == '\0')
            return line_err(l, "keyword %s empty argument", l->keyword);
        if (strcasecmp(arg, "none") == 0 && (i > 0 || l->pos < l->av.n))
            return line_err(l, "keyword %s \"none\" argument must appear alone", l->keyword);
        if (!*l->active || !was_empty)
            continue;
        if (list->n >= TRANSPORT_SSHCONFIG_HOSTFILES_MAX)
            return line_err(l, "too many %s entries", l->keyword);
        if (sc_strv_push(list, arg, (size_t)-1) != 0)
            return oom(l->c);
        if (at != NULL && *at == NULL && (*at = strdup(l->at)) == NULL)
            return oom(l->c);
    }
    return 0;
}

/* The raw rest of the line after whitespace and '=' (ProxyJump, ProxyCommand). */
static const char *
raw_rest(struct sc_line *l)
{
    return l->str + strspn(l->str, SC_WS "=");
}

static int
kw_proxyjump(struct sc_line *l)
{
    const char *v = raw_rest(l);
    if (sc_parse_jump(l->c, v, *l->active != 0) != 0)
        return line_err(l, "invalid ProxyJump \"%s\"", v);
    consume(l);
    return 0;
}

static int
kw_proxycommand(struct sc_line *l)
{
    struct sc_opts *o = &l->c->o;
    const char *v = raw_rest(l);
    /* a ProxyJump obtained first wins over it (readconf.c points the value at jump_host) */
    if (*l->active && o->jump_host == NULL && o->proxy_command == NULL) {
        if ((o->proxy_command = strdup(v)) == NULL)
            return oom(l->c);
        if (strcasecmp(v, "none") != 0)
            sc_warn(l->c, l->at, l->kw->warn);
    }
    consume(l);
    return 0;
}

/* --- the rest: read as ssh reads them, not used ------------------------------------------- */

static int
kw_other(struct sc_line *l)
{
    const char *arg;
    switch (l->kw->kind) {
    case SC_FLAG:
        arg = next_arg(l);
        if (parse_flag(arg, false) < 0)
            return arg == NULL ? line_err(l, "missing argument")
                               : line_err(l, "unsupported option \"%s\"", arg);
        maybe_warn(l, arg);
        return 0;
    case SC_ONE:
        arg = next_arg(l);
        if (arg == NULL || *arg == '\0')
            return line_err(l, "missing argument");
        maybe_warn(l, arg);
        return 0;
    case SC_UNSUPPORTED:
        sc_warn(l->c, l->at, "unsupported option, ignored (as ssh does)");
        consume(l);
        return 0;
    default: /* SC_ANY, SC_CMD, SC_DEPRECATED */
        maybe_warn(l, l->av.n > 0 ? l->av.v[0] : NULL);
        consume(l);
        return 0;
    }
}

static int
kw_canonicalize(struct sc_line *l)
{
    const char *arg = l->pos < l->av.n ? l->av.v[l->pos] : NULL;
    int rc = set_flag(l, &l->c->o.canonicalize, true);
    if (rc == 0)
        maybe_warn(l, arg);
    return rc;
}

static int
dispatch(struct sc_line *l)
{
    struct sc_opts *o = &l->c->o;
    switch (l->kw->kind) {
    case SC_HOST:
        return kw_host(l);
    case SC_MATCH:
        return kw_match(l);
    case SC_INCLUDE:
        return kw_include(l);
    case SC_HOSTNAME:
        return set_string(l, &o->hostname, &o->hostname_at);
    case SC_USER:
        return set_string(l, &o->user, NULL);
    case SC_HOSTKEYALIAS:
        return set_string(l, &o->host_key_alias, NULL);
    case SC_IGNOREUNKNOWN:
        return set_string(l, &o->ignored_unknown, NULL);
    case SC_PORT:
        return kw_port(l);
    case SC_IDENTITYFILE:
        return kw_identityfile(l);
    case SC_IDENTITIESONLY:
        return set_flag(l, &o->identities_only, false);
    case SC_IDENTITYAGENT:
        return kw_identityagent(l);
    case SC_PROXYJUMP:
        return kw_proxyjump(l);
    case SC_PROXYCOMMAND:
        return kw_proxycommand(l);
    case SC_USERKNOWNHOSTS:
        return kw_hostfiles(l, &o->ukh, &o->ukh_at);
    case SC_GLOBALKNOWNHOSTS:
        return kw_hostfiles(l, &o->gkh, NULL);
    case SC_CONNECTTIMEOUT:
        return kw_connecttimeout(l);
    case SC_CANONICALIZEHOSTNAME:
        return kw_canonicalize(l);
    default:
        return kw_other(l);
    }
}

/* --- one line, one file ------------------------------------------------------------------- */

static void
strip_trailing(char *line)
{
    size_t len = strlen(line);
    if (len == 0)
        return;
    for (len--; len > 0; len--) {
        if (strchr(SC_WS "\f", line[len]) == NULL)
            break;
        line[len] = '\0';
    }
}

/* The keyword of a line, lower-cased; NULL for a blank line or a comment. l->str is left at
 * the arguments (never empty). */
static int
line_keyword(struct sc_line *l, char *line, char **keyword)
{
    char *str = line, *kw = sc_strdelim(&str);
    *keyword = NULL;
    if (kw != NULL && *kw == '\0')
        kw = sc_strdelim(&str);
    if (kw == NULL || *kw == '\0' || *kw == '\n' || *kw == '#')
        return 0;
    sc_lowercase(kw);
    if (str != NULL)
        str += strspn(str, SC_WS);
    if (str == NULL || *str == '\0')
        return line_err(l, "no argument after keyword \"%s\"", kw);
    *keyword = kw;
    l->str = str;
    return 0;
}

static int
process_line(struct sc_line *l, char *line)
{
    char *keyword;
    strip_trailing(line);
    int rc = line_keyword(l, line, &keyword);
    if (rc != 0 || keyword == NULL)
        return rc;
    l->keyword = keyword;
    l->kw = sc_keyword_find(keyword);
    const char *ign = l->c->o.ignored_unknown;
    bool ignored = l->kw == NULL && ign != NULL && sc_match_pattern_list(keyword, ign, true) == 1;
    if (l->kw == NULL && !ignored)
        return line_err(l, "bad configuration option: %s", keyword);
    if (sc_argv_split(l->str, &l->av) != 0)
        return line_err(l, "invalid quotes");
    if (ignored) /* IgnoreUnknown */
        consume(l);
    else
        rc = dispatch(l);
    if (rc == 0 && l->pos < l->av.n)
        rc = line_err(l, "keyword %s extra arguments at end of line", keyword);
    sc_strv_release(&l->av);
    l->pos = 0;
    return rc;
}

/* ssh's check of the user's files (sc_secure_permissions). */
static int
check_perm(struct sc_ctx *c, const char *path, const struct stat *st)
{
    if (!sc_secure_permissions(st, c->uid_val))
        return err_set(c->e, NS_EPARSE, "bad owner or permissions on %s", path);
    return 0;
}

/* Lines of buf (len bytes): a NUL byte ends its line's text, as with ssh's getline(). */
static int
read_lines(struct sc_ctx *c, char *buf, size_t len, const char *path, unsigned flags, int *active,
           int depth)
{
    struct sc_line l = {.c = c, .file = path, .active = active, .flags = flags, .depth = depth};
    char *p = buf, *end = buf + len;
    for (int lineno = 1; p < end; lineno++) {
        char *nl = memchr(p, '\n', (size_t)(end - p));
        if (nl != NULL)
            *nl = '\0';
        if (++c->lines > TRANSPORT_SSHCONFIG_LINES_MAX)
            return err_set(c->e, NS_ETOOBIG, "%s: more than %d config lines read", path,
                           TRANSPORT_SSHCONFIG_LINES_MAX);
        l.lineno = lineno;
        snprintf(l.at, sizeof l.at, "%s line %d", path, lineno);
        int rc = process_line(&l, p);
        if (rc != 0)
            return rc;
        if (nl == NULL)
            break;
        p = nl + 1;
    }
    return 0;
}

int
sc_read_file(struct sc_ctx *c, const char *path, unsigned flags, int *active, int depth,
             int *open_errno)
{
    if (depth > TRANSPORT_SSHCONFIG_DEPTH_MAX)
        return err_set(c->e, NS_ETOOBIG, "%s: too many recursive configuration includes", path);
    if (++c->files > TRANSPORT_SSHCONFIG_FILES_MAX)
        return err_set(c->e, NS_ETOOBIG, "more than %d config files read",
                       TRANSPORT_SSHCONFIG_FILES_MAX);
    /* O_NONBLOCK: a FIFO named by a glob must not hang the open */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0) {
        *open_errno = errno;
        return 0;
    }
    struct stat st;
    int rc = fstat(fd, &st) != 0 ? err_sys(c->e, NS_EIO, errno, "%s", path) : 0;
    if (rc == 0 && (flags & SC_F_CHECKPERM))
        rc = check_perm(c, path, &st);
    if (rc == 0 && S_ISDIR(st.st_mode)) {
        close(fd);
        return 1; /* ssh reads nothing from a directory */
    }
    if (rc == 0 && !S_ISREG(st.st_mode))
        rc = err_set(c->e, NS_EIO, "%s: not a regular file", path);
    char *buf = NULL;
    size_t len = 0;
    if (rc == 0 && (rc = fileread_fd(fd, TRANSPORT_SSHCONFIG_FILE_MAX, &buf, &len, c->e)) != 0)
        err_prefix(c->e, "%s", path);
    close(fd);
    if (rc == 0)
        rc = read_lines(c, buf, len, path, flags, active, depth);
    free(buf);
    return rc != 0 ? rc : 1;
}

/* --- ProxyJump ---------------------------------------------------------------------------- */

/* One hop: the last is parsed for keeps, the others only checked (the hop's own resolution
 * parses them, as ssh's child does). */
static int
jump_hop(const char *cp, bool keep, char **user, char **host, int *port)
{
    int r = keep ? sc_parse_ssh_uri(cp, user, host, port) : sc_parse_ssh_uri(cp, NULL, NULL, NULL);
    if (r == -1)
        return -1;
    if (r == 1)
        return keep ? sc_parse_user_host_port(cp, user, host, port)
                    : sc_parse_user_host_port(cp, NULL, NULL, NULL);
    return 0;
}

static int
jump_store(struct sc_ctx *c, const char *s, char **user, char **host, int port)
{
    struct sc_opts *o = &c->o;
    if (strcasecmp(s, "none") == 0) {
        o->jump_host = strdup("none");
        o->jump_port = 0;
        return o->jump_host != NULL ? 0 : -1;
    }
    o->jump_user = *user;
    o->jump_host = *host;
    o->jump_port = port;
    *user = *host = NULL;
    if ((o->proxy_command = strdup("none")) == NULL)
        return -1;
    const char *comma = strrchr(s, ',');
    if (comma != NULL && comma != s && (o->jump_extra = strndup(s, (size_t)(comma - s))) == NULL)
        return -1;
    return 0;
}

int
sc_parse_jump(struct sc_ctx *c, const char *s, bool active)
{
    active = active && c->o.proxy_command == NULL && c->o.jump_host == NULL;
    char *orig = strdup(s), *user = NULL, *host = NULL, *cp;
    int port = -1, ret = -1;
    if (orig == NULL)
        return -1;
    if ((cp = strchr(orig, '#')) != NULL)
        *cp = '\0';
    sc_rtrim(orig);
    bool first = active;
    do {
        if (strcasecmp(s, "none") == 0)
            break;
        if ((cp = strrchr(orig, ',')) == NULL)
            cp = orig;
        else
            *cp++ = '\0';
        if (jump_hop(cp, first, &user, &host, &port) != 0)
            goto out;
        first = false;
    } while (cp != orig);
    if (active && jump_store(c, s, &user, &host, port) != 0)
        goto out;
    ret = 0;
out:
    free(orig);
    free(user);
    free(host);
    return ret;
}
