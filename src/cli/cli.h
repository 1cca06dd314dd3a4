/* cli.h - what the netsurvey commands share: a command's description (synopsis, options, exit
 * statuses), the one option parser and --help printer that read it, and the one plan loader.
 *
 * src/cli is the only place that parses arguments, prints for people and picks exit statuses;
 * the libraries under it take option structs and return 0 or NS_E* with a struct err, and
 * what they tell while working comes through a callback or a stream given here. */
#ifndef NS_CLI_H
#define NS_CLI_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "cli/cli_exit.h"
#include "transport/transport.h"

#define CLI_NSPERF_BUILDS TRANSPORT_DEPLOY_MAX_BUILDS

struct plan;

/* What an option stores into the command's argument struct, at .offset. */
enum cli_opt_kind {
    CLI_OPT_TRUE,   /* bool = true */
    CLI_OPT_SET,    /* int = .value; two options on one field (-q, -v) cannot both be given */
    CLI_OPT_STRING, /* const char * = the option's value (borrowed from argv) */
    CLI_OPT_LIST,   /* struct cli_list: each time given, its value appended */
};

#define CLI_LIST_MAX 8

/* The values of a CLI_OPT_LIST option, in the order given (borrowed from argv); NULL-terminated
 * for whoever takes a list of strings. More than CLI_LIST_MAX is a usage error. */
struct cli_list {
    const char *v[CLI_LIST_MAX + 1];
    size_t n;
};

struct cli_opt {
    char short_name;  /* 0: the long form only */
    const char *name; /* the long form, without "--" */
    const char *arg;  /* the value's name in --help ("DIR"): CLI_OPT_STRING and _LIST only */
    enum cli_opt_kind kind;
    size_t offset; /* offsetof(the command's argument struct, field) */
    int value;     /* CLI_OPT_SET */
    const char *help;
};

struct cli_command {
    const char *name;
    const char *synopsis; /* the operands and options after "netsurvey NAME" */
    const char *summary;  /* one line: the top-level list and the second line of --help */
    const char *details;  /* paragraphs ("\n" between) after the options in --help, or NULL */
    const struct cli_opt *opts;
    size_t nopts;
    const struct cli_exit *exits; /* the command's table of cli_exit.h */
    size_t nexits;
    int usage; /* the status of a usage error, from the same table */
    /* argv[0] is the command's name; returns the exit status. */
    int (*main)(int argc, char **argv);
};

#define CLI_LEN(array) (sizeof(array) / sizeof((array)[0]))

/* In a command's description: its option table, and its table of cli_exit.h by name. */
#define CLI_OPTS(array) .opts = (array), .nopts = CLI_LEN(array)
#define CLI_EXITS(CMD)                                                                             \
    .exits = (const struct cli_exit[])CLI_EXIT_TABLE(CMD),                                         \
    .nexits = 0 CLI_EXITS_##CMD(CLI_EXIT_COUNT)

/* Every command, in the order of the top-level help; netsurvey.c holds the one list. */
extern const struct cli_command cli_check, cli_plan, cli_run, cli_report, cli_compare, cli_trend,
    cli_clean, cli_publish, cli_export;

/* What PLAN means, said once for every command that takes one. */
#define CLI_PLAN_HELP                                                                              \
    "PLAN is a YAML test plan, '-' reads it from standard input; without PLAN the built-in "       \
    "default plan is used (plans/localhost.yaml: two local hosts on 127.0.0.1 and 127.0.0.2)."

/* The operands left once the options are parsed (borrowed from argv). */
struct cli_operands {
    int n;
    char **v;
};

/* cli_parse's "go on": no exit status is negative. */
#define CLI_GO_ON (-1)

/* Parse argv (argv[0] = c->name) by c->opts into args; -h/--help is always there. Long options
 * are taken written in full only (getopt_long's abbreviations are refused, naming the option),
 * and each option once (a second one, or a second option on the same field, is refused) but
 * a CLI_OPT_LIST, given once per value.
 * Returns CLI_GO_ON with the operands in *ops, or the status to exit with at once: 0 after
 * --help (on stdout), c->usage after a bad option (cli_usage_error's two lines on stderr, with
 * "did you mean" for a misspelt long option). */
int cli_parse(const struct cli_command *c, int argc, char **argv, void *args,
              struct cli_operands *ops);

/* cli_parse for a command whose one operand is an optional PLAN: *plan_arg is it or NULL. */
int cli_parse_plan(const struct cli_command *c, int argc, char **argv, void *args,
                   const char **plan_arg);

/* How a command on one optional PLAN starts: cli_parse_plan, then cli_plan_load. Returns
 * CLI_GO_ON with *out owned by the caller, or the status to exit with: cli_parse's, nomem
 * when memory ran out, c->usage for a plan that is invalid or cannot be read. */
int cli_start_plan(const struct cli_command *c, int argc, char **argv, void *args, int nomem,
                   struct plan **out);

/* "netsurvey NAME: message" and "try 'netsurvey NAME --help'" on stderr; returns c->usage. */
int cli_usage_error(const struct cli_command *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* c's --help: synopsis, summary, options, details, exit statuses. */
void cli_help(const struct cli_command *c, FILE *out);

/* c's synopsis, options and exit statuses in roff, each between the marker lines of a
 * generated block ("check synopsis", "check options", "check exit": common/roff.h), for the
 * manual page netsurvey(1); the same tables as cli_help. */
void cli_man(const struct cli_command *c, FILE *out);

/* The rows of an exit status table, one a line (wrapped). */
void cli_help_exits(const struct cli_exit *exits, size_t n, FILE *out);

/* Print text from column col on, breaking lines before column 80 (never inside [...]), the
 * continuation lines indented to column indent; then a newline. */
void cli_wrap(FILE *out, size_t col, size_t indent, const char *text);

/* handler for SIGINT and SIGTERM, without SA_RESTART so that the command's waits wake up and
 * it can end cleanly; SIGPIPE ignored (a closed pipe is an error of the write, not a death). */
void cli_catch_signals(void (*handler)(int));

/* --max-regression's default: a cell worse by more than 5 % (compare fails
 * its gate, trend flags it). */
#define CLI_DEFAULT_PCT 5.0

/* A percentage >= 0 in decimal digits ("5", "5%", "2.5") into *pct; -1 (and *pct unchanged) for
 * anything else ("0x10", "1e1", " 5", "+5", ".5", "inf"). */
int cli_parse_pct(const char *text, double *pct);

/* Load PLAN as a command is given it: a file, "-" for standard input, or NULL for the built-in
 * plan, or with resume_dir (and no PLAN) the plan that run directory recorded. Every problem
 * is printed on stderr (the plan's as file:line:col lines, others as "netsurvey NAME: ...").
 * Returns 0 with *out owned by the caller, NS_ENOMEM when memory ran out, another NS_E* for
 * an invalid or unreadable plan. */
int cli_plan_load(const struct cli_command *c, const char *arg, const char *resume_dir,
                  struct plan **out);

/* The nsperf programs of a command that reaches the plan's hosts. */
struct cli_nsperf {
    char local[PATH_MAX]; /* what `transport: local` hosts run */
    bool ssh;             /* the plan has ssh hosts */
    /* what they get, one build per architecture (each host the one for its `uname -m`) */
    char remote[CLI_NSPERF_BUILDS][PATH_MAX];
    const char
        *builds[CLI_NSPERF_BUILDS + 1]; /* into remote, NULL-terminated; {NULL} without ssh */
};

/* Find them: local (--nsperf, else the one beside netsurvey, else in PATH) and, when the plan
 * has ssh hosts, the static builds (each --nsperf-remote, else beside netsurvey nsperf-static
 * and nsperf-static-ARCH for each ARCH of the build's NS_ENDPOINT_ARCHES it made). Returns 0,
 * or -1 after saying on stderr which one is missing. */
int cli_find_nsperf(const struct cli_command *c, const struct plan *p, const char *given_local,
                    const struct cli_list *given_remote, struct cli_nsperf *n);

/* A warning of a host's ssh config on stderr, "netsurvey NAME: warning: HOST: MSG", each MSG
 * once per process however many hosts it concerns (a `Host *` line concerns them all). ctx is
 * the command's name; the signature of transport_target.warn. */
void cli_ssh_warning(void *ctx, const char *host, const char *msg);

#endif
