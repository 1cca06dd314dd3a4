/* netsurvey.c - main(): the one table of commands, the top-level help and --version.
 *
 * A command is a file of src/cli (check.c, plan.c, run.c, ...) exporting its description
 * (struct cli_command: synopsis, options, exit statuses, main) and a row in `commands`; the
 * exit statuses of every command are the tables of cli_exit.h. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "common/roff.h"
#include "common/suggest.h"
#include "plan/plan.h"

static const struct cli_command *const commands[] = {
    &cli_check, &cli_plan, &cli_run, &cli_report, &cli_compare, &cli_trend, &cli_clean,
};

static const struct cli_exit top_exits[] = CLI_EXIT_TABLE(TOP);

static void
usage(FILE *out)
{
    fprintf(out, "usage: netsurvey COMMAND [OPTIONS] [ARGS]\n\ncommands:\n");
    for (size_t i = 0; i < CLI_LEN(commands); i++) {
        const struct cli_command *c = commands[i];
        /* the name, its synopsis and summary: what `netsurvey COMMAND --help` starts with */
        fprintf(out, "  %-8s", c->name);
        cli_wrap(out, 10, 10, c->synopsis);
        fprintf(out, "%10s", "");
        cli_wrap(out, 10, 10, c->summary);
    }
    fputc('\n', out);
    cli_wrap(out, 0, 0, CLI_PLAN_HELP);
    fprintf(out, "\n`netsurvey COMMAND --help` lists a command's options and exit statuses.\n"
                 "exit status of netsurvey itself:\n");
    cli_help_exits(top_exits, CLI_LEN(top_exits), out);
}

static const struct cli_command *
command_find(const char *name)
{
    for (size_t i = 0; i < CLI_LEN(commands); i++)
        if (strcmp(name, commands[i]->name) == 0)
            return commands[i];
    return NULL;
}

/* "unknown command 'chek'; did you mean 'check'?", then where the list is. */
static int
unknown_command(const char *name)
{
    const char *names[CLI_LEN(commands)];
    for (size_t i = 0; i < CLI_LEN(commands); i++)
        names[i] = commands[i]->name;
    const char *near = suggest_closest(name, names, CLI_LEN(names));
    if (near != NULL)
        fprintf(stderr, "netsurvey: unknown command '%s'; did you mean '%s'?\n", name, near);
    else
        fprintf(stderr, "netsurvey: unknown command '%s'\n", name);
    fprintf(stderr, "try 'netsurvey --help'\n");
    return CLI_TOP_USAGE;
}

/* `netsurvey --man-options`: the generated blocks of netsurvey(1) (common/roff.h), from the
 * tables --help prints; tests/cli/man_pages.py splices them into the page and checks it. */
static int
man_options(void)
{
    roff_block_begin(stdout, "netsurvey synopsis");
    for (size_t i = 0; i < CLI_LEN(commands); i++) {
        printf(".SY \"netsurvey %s\"\n", commands[i]->name);
        roff_synopsis(stdout, commands[i]->synopsis);
        printf(".YS\n");
    }
    roff_block_end(stdout);
    roff_block_begin(stdout, "netsurvey exit");
    for (size_t i = 0; i < CLI_LEN(top_exits); i++)
        roff_exit(stdout, top_exits[i].status, top_exits[i].meaning);
    roff_block_end(stdout);
    for (size_t i = 0; i < CLI_LEN(commands); i++)
        cli_man(commands[i], stdout);
    return fflush(stdout) == 0 ? CLI_TOP_OK : CLI_TOP_USAGE;
}

static void
plan_key(void *ctx, const char *path, const char *type)
{
    fprintf(ctx, "%s\t%s\n", path, type);
}

/* `netsurvey --plan-keys`: every key the plan validator accepts, "path<TAB>type" a line, so
 * that netsurvey-plan(5) and the README's table of keys can be checked against it. */
static int
plan_keys(void)
{
    plan_keys_list(plan_key, stdout);
    return fflush(stdout) == 0 ? CLI_TOP_OK : CLI_TOP_USAGE;
}

/* An option of netsurvey itself that it does not have: "--hlp"; did you mean "--help"? */
static int
unknown_top_option(const char *word)
{
    static const char *const names[] = {"--help", "--version"};
    const char *near = suggest_closest(word, names, CLI_LEN(names));
    if (near != NULL)
        fprintf(stderr, "netsurvey: unknown option '%s'; did you mean '%s'?\n", word, near);
    else
        fprintf(stderr, "netsurvey: unknown option '%s'\n", word);
    fprintf(stderr, "try 'netsurvey --help'\n");
    return CLI_TOP_USAGE;
}

/* --help, -h, --version and help take nothing more (help: one command's name). */
static int
top_option(int argc, char **argv)
{
    bool help = strcmp(argv[1], "help") == 0;
    if (help && argc == 3) {
        const struct cli_command *c = command_find(argv[2]);
        if (c == NULL)
            return unknown_command(argv[2]);
        cli_help(c, stdout);
        return CLI_TOP_OK;
    }
    if (argc > 2) {
        fprintf(stderr, "netsurvey: unexpected argument '%s' after %s\ntry 'netsurvey --help'\n",
                argv[2], argv[1]);
        return CLI_TOP_USAGE;
    }
    if (strcmp(argv[1], "--version") == 0)
        printf("netsurvey %s\n", NS_VERSION);
    else
        usage(stdout);
    return CLI_TOP_OK;
}

int
main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return CLI_TOP_USAGE;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
        strcmp(argv[1], "help") == 0 || strcmp(argv[1], "--version") == 0)
        return top_option(argc, argv);
    /* not in --help: what the manual pages and their tests are made from */
    if (argc == 2 && strcmp(argv[1], "--man-options") == 0)
        return man_options();
    if (argc == 2 && strcmp(argv[1], "--plan-keys") == 0)
        return plan_keys();
    const struct cli_command *c = command_find(argv[1]);
    if (c == NULL && argv[1][0] == '-')
        return unknown_top_option(argv[1]);
    return c != NULL ? c->main(argc - 1, argv + 1) : unknown_command(argv[1]);
}
