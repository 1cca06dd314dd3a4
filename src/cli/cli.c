/* cli.c - the pieces every command shares: the option parser and --help, both read from the
 * command's description (cli.h), and the one plan loader. */
#include "cli/cli.h"

#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/errors.h"
#include "common/net.h"
#include "common/roff.h"
#include "common/suggest.h"
#include "plan/plan.h"
#include "survey/survey.h"

#define CLI_WIDTH 80
#define CLI_OPT_COLUMN 21 /* where an option's help starts */
#define CLI_MAX_OPTS 16
#define CLI_LONG_BASE 256 /* getopt_long's value of opts[i]: past every short option's */

/* --- help --------------------------------------------------------------------------------- */

/* Breaks at spaces outside [...]: an optional part of a synopsis stays on one line. */
void
cli_wrap(FILE *out, size_t col, size_t indent, const char *text)
{
    for (const char *p = text; *p != '\0';) {
        size_t n = 0;
        for (int depth = 0; p[n] != '\0' && (p[n] != ' ' || depth > 0); n++)
            depth += (p[n] == '[') - (p[n] == ']');
        if (p != text && col + 1 + n > CLI_WIDTH) {
            fprintf(out, "\n%*s", (int)indent, "");
            col = indent;
        } else if (p != text) {
            fputc(' ', out);
            col++;
        }
        fprintf(out, "%.*s", (int)n, p);
        col += n;
        p += n;
        while (*p == ' ')
            p++;
    }
    fputc('\n', out);
}

static void
help_option(FILE *out, char short_name, const char *name, const char *arg, const char *help)
{
    char left[128];
    size_t len =
        (size_t)(short_name != 0 ? snprintf(left, sizeof left, "  -%c, --%s", short_name, name)
                                 : snprintf(left, sizeof left, "  --%s", name));
    if (arg != NULL && len < sizeof left)
        len += (size_t)snprintf(left + len, sizeof left - len, " %s", arg);
    /* a long one keeps its help on its line, two blanks after it */
    size_t col = len + 2 > CLI_OPT_COLUMN ? len + 2 : CLI_OPT_COLUMN;
    fprintf(out, "%-*s", (int)col, left);
    cli_wrap(out, col, CLI_OPT_COLUMN, help);
}

/* Paragraphs are separated by "\n"; each one is wrapped, after a blank line. */
static void
help_paragraphs(FILE *out, const char *text)
{
    char para[2048];
    for (const char *p = text; *p != '\0';) {
        size_t n = strcspn(p, "\n");
        snprintf(para, sizeof para, "%.*s", (int)n, p);
        fputc('\n', out);
        cli_wrap(out, 0, 0, para);
        p += n + (p[n] == '\n');
    }
}

void
cli_help(const struct cli_command *c, FILE *out)
{
    char head[64];
    int n = snprintf(head, sizeof head, "usage: netsurvey %s", c->name);
    fputs(head, out);
    fputc(' ', out);
    cli_wrap(out, (size_t)n + 1, (size_t)n + 1, c->synopsis);
    fprintf(out, "%s\n\n", c->summary);
    for (size_t i = 0; i < c->nopts; i++) {
        const struct cli_opt *o = &c->opts[i];
        bool value = o->kind == CLI_OPT_STRING || o->kind == CLI_OPT_LIST;
        help_option(out, o->short_name, o->name, value ? o->arg : NULL, o->help);
    }
    help_option(out, 'h', "help", NULL, "print this help");
    if (c->details != NULL)
        help_paragraphs(out, c->details);
    fprintf(out, "\nexit status:\n");
    cli_help_exits(c->exits, c->nexits, out);
}

void
cli_help_exits(const struct cli_exit *exits, size_t n, FILE *out)
{
    for (size_t i = 0; i < n; i++) {
        fprintf(out, "  %-4d ", exits[i].status);
        cli_wrap(out, 7, 7, exits[i].meaning);
    }
}

/* --- the manual page ----------------------------------------------------------------------- */

void
cli_man(const struct cli_command *c, FILE *out)
{
    char name[64];
    snprintf(name, sizeof name, "%s synopsis", c->name);
    roff_block_begin(out, name);
    fprintf(out, ".SY \"netsurvey %s\"\n", c->name);
    roff_synopsis(out, c->synopsis);
    fputs(".YS\n", out);
    roff_block_end(out);
    snprintf(name, sizeof name, "%s options", c->name);
    roff_block_begin(out, name);
    for (size_t i = 0; i < c->nopts; i++) {
        const struct cli_opt *o = &c->opts[i];
        bool value = o->kind == CLI_OPT_STRING || o->kind == CLI_OPT_LIST;
        roff_option(out, o->short_name, o->name, value ? o->arg : NULL, o->help);
    }
    roff_option(out, 'h', "help", NULL, "print the command's help and exit 0");
    roff_block_end(out);
    snprintf(name, sizeof name, "%s exit", c->name);
    roff_block_begin(out, name);
    for (size_t i = 0; i < c->nexits; i++)
        roff_exit(out, c->exits[i].status, c->exits[i].meaning);
    roff_block_end(out);
}

/* --- options ------------------------------------------------------------------------------ */

/* The "try" line that follows every usage error: the error is one line, the help one command
 * away (45 lines of help after a typo bury the typo). */
static void
usage_try(const struct cli_command *c)
{
    fprintf(stderr, "try 'netsurvey %s --help'\n", c->name);
}

int
cli_usage_error(const struct cli_command *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "netsurvey %s: ", c->name);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    usage_try(c);
    return c->usage;
}

static const struct cli_opt *
opt_of(const struct cli_command *c, int ch)
{
    if (ch >= CLI_LONG_BASE && (size_t)(ch - CLI_LONG_BASE) < c->nopts)
        return &c->opts[ch - CLI_LONG_BASE];
    for (size_t i = 0; i < c->nopts; i++)
        if (c->opts[i].short_name != 0 && c->opts[i].short_name == ch)
            return &c->opts[i];
    return NULL;
}

/* false for a list given too many values */
static bool
opt_store(const struct cli_opt *o, void *args, const char *value)
{
    char *field = (char *)args + o->offset;
    struct cli_list *l = (struct cli_list *)(void *)field;
    switch (o->kind) {
    case CLI_OPT_TRUE:
        *(bool *)(void *)field = true;
        break;
    case CLI_OPT_SET:
        *(int *)(void *)field = o->value;
        break;
    case CLI_OPT_STRING:
        *(const char **)(void *)field = value;
        break;
    case CLI_OPT_LIST:
        if (l->n >= CLI_LIST_MAX)
            return false;
        l->v[l->n++] = value;
        l->v[l->n] = NULL;
        break;
    }
    return true;
}

/* How o is written on a command line: "-o/--output", or "--resume". */
static const char *
opt_text(const struct cli_opt *o, char *buf, size_t len)
{
    if (o->short_name != 0)
        snprintf(buf, len, "-%c/--%s", o->short_name, o->name);
    else
        snprintf(buf, len, "--%s", o->name);
    return buf;
}

/* What a value named DIR, PATH, ... is, for "--resume needs a directory". */
static const char *
arg_words(const char *arg)
{
    static const struct {
        const char *arg, *words;
    } w[] = {{"DIR", "a directory"}, {"OUT", "a directory"},  {"PATH", "a path"},
             {"FILE", "a file"},     {"PCT", "a percentage"}, {"N", "a number"}};
    for (size_t i = 0; i < CLI_LEN(w); i++)
        if (strcmp(arg, w[i].arg) == 0)
            return w[i].words;
    return "a value";
}

/* The long option of c that word (without "--", cut at '=') most likely meant: the one it
 * abbreviates when there is one, else the closest by spelling; NULL when none is close. */
static const char *
opt_suggest(const struct cli_command *c, const char *word)
{
    const char *names[CLI_MAX_OPTS + 1];
    size_t n = 0, wl = strcspn(word, "="), prefixed = 0;
    const char *prefix_of = NULL;
    char w[64];
    snprintf(w, sizeof w, "%.*s", (int)wl, word);
    for (size_t i = 0; i <= c->nopts && n < CLI_LEN(names); i++) {
        names[n] = i < c->nopts ? c->opts[i].name : "help";
        if (wl > 0 && strncmp(names[n], w, wl) == 0) {
            prefix_of = names[n];
            prefixed++;
        }
        n++;
    }
    return prefixed == 1 ? prefix_of : suggest_closest(w, names, n);
}

/* "unknown option '--ouput'; did you mean '--output'?" */
static int
opt_unknown(const struct cli_command *c, const char *text)
{
    const char *near = strncmp(text, "--", 2) == 0 ? opt_suggest(c, text + 2) : NULL;
    if (near != NULL)
        return cli_usage_error(c, "unknown option '%s'; did you mean '--%s'?", text, near);
    return cli_usage_error(c, "unknown option '%s'", text);
}

/* The argv element getopt_long took its last option from (optind is past it, and past its
 * value when that was the next element). */
static const char *
opt_element(char **argv)
{
    return optarg != NULL && optarg == argv[optind - 1] ? argv[optind - 2] : argv[optind - 1];
}

/* A long option written in full, as the tables spell it: getopt_long would also take any
 * unambiguous abbreviation ("--out" for --output), which a later option could make ambiguous
 * and so break a script; refused with the full name suggested. */
static bool
opt_written_in_full(const char *element, const char *name)
{
    if (strncmp(element, "--", 2) != 0)
        return true; /* the short form */
    size_t n = strcspn(element + 2, "=");
    return strlen(name) == n && strncmp(element + 2, name, n) == 0;
}

/* An option is given once: a second one is refused, not silently the last one's value, and so
 * are two options that set one thing (-q and -v). seen[i]: option i's text, when given. */
static int
opt_once(const struct cli_command *c, const struct cli_opt *o, const char **seen)
{
    char a[64], b[64];
    size_t i = (size_t)(o - c->opts);
    for (size_t k = 0; k < c->nopts; k++) {
        if (seen[k] == NULL || c->opts[k].offset != o->offset)
            continue;
        if (k == i)
            return cli_usage_error(c, "%s is given twice", opt_text(o, a, sizeof a));
        return cli_usage_error(c, "%s and %s cannot both be given",
                               opt_text(&c->opts[k], a, sizeof a), opt_text(o, b, sizeof b));
    }
    seen[i] = o->name;
    return CLI_GO_ON;
}

/* getopt_long's tables of c's options (the first character of so is ':', so that a missing
 * value is told from an unknown option). */
static void
opt_tables(const struct cli_command *c, struct option *lo, char *so)
{
    size_t ns = 0;
    so[ns++] = ':';
    for (size_t i = 0; i < c->nopts; i++) {
        const struct cli_opt *o = &c->opts[i];
        bool value = o->kind == CLI_OPT_STRING || o->kind == CLI_OPT_LIST;
        lo[i] = (struct option){o->name, value ? required_argument : no_argument, NULL,
                                CLI_LONG_BASE + (int)i};
        if (o->short_name != 0) {
            so[ns++] = o->short_name;
            if (value)
                so[ns++] = ':';
        }
    }
    lo[c->nopts] = (struct option){"help", no_argument, NULL, 'h'};
    lo[c->nopts + 1] = (struct option){NULL, 0, NULL, 0};
    so[ns++] = 'h';
    so[ns] = '\0';
}

/* One option getopt_long returned (ch): stored, or the usage error's status. */
static int
opt_take(const struct cli_command *c, int ch, char **argv, void *args, const char **seen)
{
    char text[64];
    const struct cli_opt *o;
    if (ch == ':') { /* a value is missing: optopt is the option's own value */
        o = opt_of(c, optopt);
        if (o == NULL)
            return cli_usage_error(c, "option '%s' needs a value", argv[optind - 1]);
        return cli_usage_error(c, "%s needs %s (--%s %s)", opt_text(o, text, sizeof text),
                               arg_words(o->arg), o->name, o->arg);
    }
    if (ch == '?' && optopt >= CLI_LONG_BASE && (o = opt_of(c, optopt)) != NULL) {
        /* a value given to an option that takes none: "--json=yes" */
        const char *element = argv[optind - 1];
        if (!opt_written_in_full(element, o->name))
            return cli_usage_error(c, "abbreviated option '%.*s'; write it in full: '--%s'",
                                   (int)strcspn(element, "="), element, o->name);
        return cli_usage_error(c, "--%s takes no value ('%s')", o->name, element);
    }
    o = ch == '?' ? NULL : opt_of(c, ch);
    if (o == NULL) {
        if (optopt != 0 && optopt < CLI_LONG_BASE && strncmp(argv[optind - 1], "--", 2) != 0) {
            snprintf(text, sizeof text, "-%c", optopt);
            return opt_unknown(c, text);
        }
        return opt_unknown(c, argv[optind - 1]);
    }
    const char *element = opt_element(argv);
    if (!opt_written_in_full(element, o->name))
        return cli_usage_error(c, "abbreviated option '%.*s'; write it in full: '--%s'",
                               (int)strcspn(element, "="), element, o->name);
    /* a list option (--nsperf-remote, once per architecture) is given as often as it has
     * values; every other option once */
    int rc = o->kind == CLI_OPT_LIST ? CLI_GO_ON : opt_once(c, o, seen);
    if (rc != CLI_GO_ON)
        return rc;
    if (!opt_store(o, args, optarg))
        return cli_usage_error(c, "--%s given more than %d times", o->name, CLI_LIST_MAX);
    return CLI_GO_ON;
}

int
cli_parse(const struct cli_command *c, int argc, char **argv, void *args, struct cli_operands *ops)
{
    struct option lo[CLI_MAX_OPTS + 2];
    char so[3 * CLI_MAX_OPTS + 3];
    const char *seen[CLI_MAX_OPTS] = {0};
    if (c->nopts > CLI_MAX_OPTS)
        return cli_usage_error(c, "more than %d options: raise CLI_MAX_OPTS", CLI_MAX_OPTS);
    opt_tables(c, lo, so);
    int ch;
    opterr = 0; /* the messages are ours */
    optind = 1;
    while ((ch = getopt_long(argc, argv, so, lo, NULL)) != -1) {
        if (ch == 'h') {
            if (!opt_written_in_full(opt_element(argv), "help"))
                return cli_usage_error(c, "abbreviated option '%s'; write it in full: '--help'",
                                       opt_element(argv));
            cli_help(c, stdout);
            return 0;
        }
        int rc = opt_take(c, ch, argv, args, seen);
        if (rc != CLI_GO_ON)
            return rc;
    }
    ops->n = argc - optind;
    ops->v = argv + optind;
    return CLI_GO_ON;
}

int
cli_parse_plan(const struct cli_command *c, int argc, char **argv, void *args,
               const char **plan_arg)
{
    struct cli_operands ops;
    int rc = cli_parse(c, argc, argv, args, &ops);
    if (rc != CLI_GO_ON)
        return rc;
    if (ops.n > 1)
        return cli_usage_error(c, "too many arguments");
    *plan_arg = ops.n == 1 ? ops.v[0] : NULL;
    return CLI_GO_ON;
}

/* --- the plan ----------------------------------------------------------------------------- */

int
cli_start_plan(const struct cli_command *c, int argc, char **argv, void *args, int nomem,
               struct plan **out)
{
    const char *arg = NULL;
    int rc = cli_parse_plan(c, argc, argv, args, &arg);
    if (rc != CLI_GO_ON)
        return rc;
    rc = cli_plan_load(c, arg, NULL, out);
    if (rc != 0)
        return rc == NS_ENOMEM ? nomem : c->usage;
    return CLI_GO_ON;
}

/* plan_resolve_fn on this machine: the first address getaddrinfo gives, as nsperf takes it. */
static int
cli_resolve(void *ctx, const char *name, char *buf, size_t len, enum plan_family *family,
            struct err *e)
{
    (void)ctx;
    struct sockaddr_storage ss;
    socklen_t sslen = 0;
    int rc = net_resolve(name, 0, AF_UNSPEC, SOCK_STREAM, 0, &ss, &sslen, e);
    if (rc != 0) {
        /* "cannot resolve 'x': reason": the plan's message names the address already */
        const char *colon = strstr(e->msg, "': ");
        if (colon != NULL)
            memmove(e->msg, colon + 3, strlen(colon + 3) + 1);
        return rc;
    }
    net_host_str(&ss, buf, len);
    *family = ss.ss_family == AF_INET6 ? PLAN_FAMILY_IPV6 : PLAN_FAMILY_IPV4;
    return 0;
}

int
cli_plan_load(const struct cli_command *c, const char *arg, const char *resume_dir,
              struct plan **out)
{
    *out = NULL;
    struct diags *d = diags_new();
    if (d == NULL) {
        fprintf(stderr, "netsurvey: out of memory\n");
        return NS_ENOMEM;
    }
    struct err e = {0};
    int rc;
    if (arg == NULL && resume_dir != NULL)
        rc = survey_load_recorded_plan(resume_dir, out, d, &e);
    else if (arg == NULL)
        rc = plan_load_default(out, d);
    else
        rc = plan_load_file(strcmp(arg, "-") == 0 ? "/dev/stdin" : arg, out, d);
    if (rc == 0 && (rc = plan_resolve_names(*out, cli_resolve, NULL, d)) != 0) {
        plan_free(*out);
        *out = NULL;
    }
    if (e.code != 0)
        fprintf(stderr, "netsurvey %s: %s\n", c->name, e.msg);
    diags_write(d, stderr);
    diags_free(d);
    return rc;
}

/* --- the programs ------------------------------------------------------------------------- */

static bool
cli_is_program(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* This executable's directory into buf; false when /proc/self/exe cannot say. */
static bool
cli_self_dir(char *buf, size_t len)
{
    ssize_t n = readlink("/proc/self/exe", buf, len - 1);
    if (n <= 0)
        return false;
    buf[n] = '\0';
    char *slash = strrchr(buf, '/');
    if (slash == NULL)
        return false;
    *slash = '\0';
    return true;
}

/* given, else name beside this executable, else (search_path) the first name in PATH. On
 * failure buf says where it was looked for last, for the message. */
static int
cli_find_program(const char *given, const char *name, bool search_path, char *buf, size_t len)
{
    if (given != NULL) {
        snprintf(buf, len, "%s", given);
        return cli_is_program(buf) ? 0 : -1;
    }
    char self[PATH_MAX - 32]; /* room for "/" name in buf */
    if (cli_self_dir(self, sizeof self)) {
        snprintf(buf, len, "%s/%s", self, name);
        if (cli_is_program(buf))
            return 0;
        if (!search_path)
            return -1;
    }
    for (const char *path = search_path ? getenv("PATH") : NULL; path != NULL && *path != '\0';) {
        size_t seg = strcspn(path, ":");
        snprintf(buf, len, "%.*s/%s", (int)seg, path, name);
        if (seg > 0 && cli_is_program(buf))
            return 0;
        path += seg + (path[seg] == ':');
    }
    snprintf(buf, len, "%s", name);
    return -1;
}

/* The static builds beside netsurvey: nsperf-static (this machine's) and nsperf-static-ARCH for
 * each other architecture the build cross-compiled (NS_ENDPOINT_ARCHES, from CMake). */
static int
find_builds(struct cli_nsperf *n)
{
    if (cli_find_program(NULL, "nsperf-static", false, n->remote[0], PATH_MAX) != 0)
        return -1;
    size_t k = 1;
    char arches[] = NS_ENDPOINT_ARCHES, *save = NULL;
    for (char *a = strtok_r(arches, ",", &save); a != NULL && k < CLI_NSPERF_BUILDS;
         a = strtok_r(NULL, ",", &save)) {
        char name[64];
        snprintf(name, sizeof name, "nsperf-static-%s", a);
        if (cli_find_program(NULL, name, false, n->remote[k], PATH_MAX) == 0)
            k++;
    }
    for (size_t i = 0; i < k; i++)
        n->builds[i] = n->remote[i];
    n->builds[k] = NULL;
    return 0;
}

int
cli_find_nsperf(const struct cli_command *c, const struct plan *p, const char *given_local,
                const struct cli_list *given_remote, struct cli_nsperf *n)
{
    /* the local one may come from PATH; an ssh host needs a statically linked nsperf, and the
     * deploy refuses any other: no guess past the ones beside netsurvey */
    if (cli_find_program(given_local, "nsperf", true, n->local, PATH_MAX) != 0) {
        fprintf(stderr, "netsurvey %s: no executable nsperf at '%s' (give --nsperf PATH)\n",
                c->name, n->local);
        return -1;
    }
    n->ssh = false;
    n->builds[0] = NULL;
    for (size_t i = 0; i < plan_host_count(p); i++)
        n->ssh |= plan_host(p, i)->transport != PLAN_TRANSPORT_LOCAL;
    if (!n->ssh)
        return 0;
    if (given_remote->n > CLI_NSPERF_BUILDS) {
        fprintf(stderr, "netsurvey %s: --nsperf-remote given %zu times: at most %d builds\n",
                c->name, given_remote->n, CLI_NSPERF_BUILDS);
        return -1;
    }
    for (size_t i = 0; i < given_remote->n; i++) {
        if (cli_find_program(given_remote->v[i], NULL, false, n->remote[i], PATH_MAX) != 0) {
            fprintf(stderr, "netsurvey %s: --nsperf-remote %s: no executable there\n", c->name,
                    given_remote->v[i]);
            return -1;
        }
        n->builds[i] = n->remote[i];
        n->builds[i + 1] = NULL;
    }
    if (given_remote->n == 0 && find_builds(n) != 0) {
        fprintf(stderr,
                "netsurvey %s: the plan has ssh hosts and there is no executable static nsperf "
                "at '%s'\n  every build makes nsperf-static beside netsurvey (cmake --build); "
                "or give one with --nsperf-remote PATH\n",
                c->name, n->remote[0]);
        return -1;
    }
    return 0;
}

/* --- ssh config warnings ------------------------------------------------------------------ */

#define CLI_WARNED_MAX 256 /* distinct warnings remembered; more are printed every time */

void
cli_ssh_warning(void *ctx, const char *host, const char *msg)
{
    static char *seen[CLI_WARNED_MAX];
    static size_t nseen;
    for (size_t i = 0; i < nseen; i++)
        if (strcmp(seen[i], msg) == 0)
            return;
    if (nseen < CLI_WARNED_MAX && (seen[nseen] = strdup(msg)) != NULL)
        nseen++;
    fprintf(stderr, "netsurvey %s: warning: %s: %s\n", (const char *)ctx, host, msg);
}

void
cli_catch_signals(void (*handler)(int))
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = handler; /* no SA_RESTART: the waits wake up */
    /* Each handler runs with both blocked: a SIGINT that comes just after a SIGTERM would
     * otherwise be handled first, nested on top of the SIGTERM's handler before it stored its
     * number, and the second signal would decide the exit status (seen once under ASan:
     * survey_itest_owner's test_sigterm exited 130, not 143). */
    sigemptyset(&sa.sa_mask);
    sigaddset(&sa.sa_mask, SIGINT);
    sigaddset(&sa.sa_mask, SIGTERM);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
}

int
cli_parse_pct(const char *text, double *pct)
{
    /* decimal digits only, as people write a percentage: strtod alone also takes hex ("0x10"
     * read 16), "inf", exponents and leading blanks or signs */
    size_t n = strspn(text, "0123456789");
    if (n == 0 || (text[n] == '.' && strspn(text + n + 1, "0123456789") == 0))
        return -1;
    if (text[n] == '.')
        n += 1 + strspn(text + n + 1, "0123456789");
    if (text[n] != '\0' && strcmp(text + n, "%") != 0)
        return -1;
    char *end;
    double v = strtod(text, &end);
    if (end == text || (*end != '\0' && strcmp(end, "%") != 0) || !isfinite(v) || v < 0)
        return -1;
    *pct = v;
    return 0;
}
