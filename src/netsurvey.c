/* netsurvey.c - the command line: parse arguments, call the libraries, print, exit.
 * One entry per subcommand in `commands`; later commands (run, report, compare) add a row.
 *
 * PLAN arguments: a YAML file, '-' for standard input, or nothing for the built-in default
 * plan (plans/localhost.yaml, compiled in: two local hosts on 127.0.0.1 and 127.0.0.2).
 * Exit status: 0 success, 1 failure (out of memory, write error), 2 invalid plan or usage. */
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/errors.h"
#include "plan/plan.h"
#include "plan/schedule.h"
#include "report/report.h"
#include "survey/cmd_clean.h"
#include "survey/cmd_run.h"

#define EXIT_INVALID 2
#define DEFAULT_PLAN_NAME "built-in:localhost.yaml"

struct opts {
    const char *plan; /* NULL: the built-in default */
    bool json;
    bool quiet;
};

struct command {
    const char *name;
    const char *args;
    const char *summary;
    const char *shortopts;
    const struct option *longopts;
    int (*run)(const struct opts *o);
};

/* --- shared steps ----------------------------------------------------------------------- */

/* Load the plan named by arg, printing every problem to stderr. Returns an exit status. */
static int
load_plan(const char *arg, struct plan **out)
{
    struct plan_diags *d = plan_diags_new();
    if (d == NULL) {
        fprintf(stderr, "netsurvey: out of memory\n");
        return EXIT_FAILURE;
    }
    int rc;
    if (arg == NULL) {
        size_t len;
        const char *yaml = plan_default_yaml(&len);
        rc = plan_load_buffer(DEFAULT_PLAN_NAME, yaml, len, out, d);
    } else {
        rc = plan_load_file(strcmp(arg, "-") == 0 ? "/dev/stdin" : arg, out, d);
    }
    plan_diags_write(d, stderr);
    plan_diags_free(d);
    if (rc == 0)
        return EXIT_SUCCESS;
    return rc == NS_ENOMEM ? EXIT_FAILURE : EXIT_INVALID;
}

static int
fail(const struct err *e)
{
    fprintf(stderr, "netsurvey: %s\n", e->msg);
    return EXIT_FAILURE;
}

static const char *
plural(uint64_t n)
{
    return n == 1 ? "" : "s";
}

/* --- commands --------------------------------------------------------------------------- */

static int
cmd_check(const struct opts *o)
{
    struct plan *p;
    int rc = load_plan(o->plan, &p);
    if (rc != 0)
        return rc;
    if (!o->quiet)
        printf("%s: plan '%s' is valid: %zu host%s, %zu zone%s, %zu pair%s, %zu scenario%s, "
               "%llu test%s\n",
               plan_file(p), plan_name(p), plan_host_count(p), plural(plan_host_count(p)),
               plan_zone_count(p), plural(plan_zone_count(p)), plan_pair_count(p),
               plural(plan_pair_count(p)), plan_scenario_count(p), plural(plan_scenario_count(p)),
               (unsigned long long)plan_test_count(p), plural(plan_test_count(p)));
    plan_free(p);
    return fflush(stdout) == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

static int
cmd_plan(const struct opts *o)
{
    struct plan *p;
    int rc = load_plan(o->plan, &p);
    if (rc != 0)
        return rc;
    struct schedule *s = NULL;
    struct err e = {0};
    rc = schedule_new(p, &s, &e);
    if (rc == 0)
        rc = o->json ? schedule_write_json(s, stdout, &e) : schedule_write_text(s, stdout, &e);
    schedule_free(s);
    plan_free(p);
    return rc == 0 ? EXIT_SUCCESS : fail(&e);
}

static const struct option check_options[] = {
    {"quiet", no_argument, NULL, 'q'}, {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};

static const struct option plan_options[] = {
    {"json", no_argument, NULL, 'j'}, {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};

static const struct command commands[] = {
    {"check", "[-q] [PLAN]", "validate a plan and print a one-line summary", "qh", check_options,
     cmd_check},
    {"plan", "[--json] [PLAN]", "dry run: the rounds of tests, their count and estimated time", "h",
     plan_options, cmd_plan},
};

#define NCOMMANDS (sizeof commands / sizeof commands[0])

static int
render_dir(const char *dir, struct err *e)
{
    struct report_opts o = {.dirs = &dir, .ndirs = 1, .out = dir, .warn = stderr};
    return report_render(&o, e);
}

/* run ▶ survey, then report: the survey module journals, the report module renders. */
static int
netsurvey_cmd_run(int argc, char **argv)
{
    return survey_cmd_run(argc, argv, render_dir);
}

/* Commands implemented in their module, which parse their own arguments (argv[0] = the name). */
static const struct {
    const char *name;
    const char *args;
    const char *summary;
    int (*main)(int argc, char **argv);
} module_commands[] = {
    {"run",
     "[PLAN] [-o DIR] [--resume DIR [--force]] [-q|-v] [--nsperf PATH] [--nsperf-remote PATH] "
     "[--accept-new-host-keys]",
     "run the survey, journaling every trial (exit 0 ok, 1 some failed, 3 none ran, 130 "
     "interrupted)",
     netsurvey_cmd_run},
    {"report", "DIR... [-o OUT]", "rebuild the reports from the journals of run directories",
     report_cmd_report},
    {"compare", "BASE NEW [--max-regression PCT]",
     "compare two runs cell by cell (Welch's t-test); exit 1 on a regression", report_cmd_compare},
    {"clean", "[PLAN] [--accept-new-host-keys]",
     "kill what netsurvey left running on the plan's ssh hosts and remove its cache there",
     survey_cmd_clean},
};

#define NMODULE_COMMANDS (sizeof module_commands / sizeof module_commands[0])

/* --- arguments -------------------------------------------------------------------------- */

static void
usage(FILE *out)
{
    fprintf(out, "usage: netsurvey COMMAND [OPTIONS] [ARGS]\n\ncommands:\n");
    for (size_t i = 0; i < NCOMMANDS; i++)
        fprintf(out, "  %-6s %-16s %s\n", commands[i].name, commands[i].args, commands[i].summary);
    for (size_t i = 0; i < NMODULE_COMMANDS; i++)
        fprintf(out, "  %-7s %s\n          %s\n", module_commands[i].name, module_commands[i].args,
                module_commands[i].summary);
    fprintf(out, "\nPLAN is a YAML test plan, '-' reads it from standard input; without PLAN "
                 "the built-in\ndefault plan is used (plans/localhost.yaml: two local hosts "
                 "on 127.0.0.1 and 127.0.0.2).\nExit status: 0 ok, 1 failure, 2 invalid plan "
                 "or usage.\n");
}

static void
command_usage(const struct command *c, FILE *out)
{
    fprintf(out, "usage: netsurvey %s %s\n%s\n", c->name, c->args, c->summary);
}

/* Options and at most one PLAN operand. Returns -1 to go on, else an exit status. */
static int
parse_opts(const struct command *c, int argc, char **argv, struct opts *o)
{
    int ch;
    opterr = 0;
    optind = 1;
    while ((ch = getopt_long(argc, argv, c->shortopts, c->longopts, NULL)) != -1) {
        if (ch == 'h') {
            command_usage(c, stdout);
            return EXIT_SUCCESS;
        } else if (ch == 'q') {
            o->quiet = true;
        } else if (ch == 'j') {
            o->json = true;
        } else {
            fprintf(stderr, "netsurvey %s: unknown option '%s'\n", c->name, argv[optind - 1]);
            command_usage(c, stderr);
            return EXIT_INVALID;
        }
    }
    if (argc - optind > 1) {
        fprintf(stderr, "netsurvey %s: too many arguments\n", c->name);
        command_usage(c, stderr);
        return EXIT_INVALID;
    }
    o->plan = optind < argc ? argv[optind] : NULL;
    return -1;
}

static const struct command *
command_find(const char *name)
{
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (strcmp(commands[i].name, name) == 0)
            return &commands[i];
    return NULL;
}

int
main(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
        strcmp(argv[1], "help") == 0) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? EXIT_INVALID : EXIT_SUCCESS;
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("netsurvey %s\n", NS_VERSION);
        return EXIT_SUCCESS;
    }
    for (size_t i = 0; i < NMODULE_COMMANDS; i++)
        if (strcmp(argv[1], module_commands[i].name) == 0)
            return module_commands[i].main(argc - 1, argv + 1);
    const struct command *c = command_find(argv[1]);
    if (c == NULL) {
        fprintf(stderr, "netsurvey: unknown command '%s'\n", argv[1]);
        usage(stderr);
        return EXIT_INVALID;
    }
    struct opts o = {0};
    int rc = parse_opts(c, argc - 1, argv + 1, &o);
    return rc >= 0 ? rc : c->run(&o);
}
