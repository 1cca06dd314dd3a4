/* netsurvey.c - main(): the one table of commands, the top-level help and --version.
 *
 * A command is a file of src/cli (check.c, plan.c, run.c, ...) exporting its description
 * (struct cli_command: synopsis, options, exit statuses, main) and a row in `commands`; the
 * exit statuses of every command are the tables of cli_exit.h. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

static const struct cli_command *const commands[] = {
    &cli_check, &cli_plan,  &cli_run,     &cli_report, &cli_compare,
    &cli_trend, &cli_clean, &cli_publish, &cli_export,
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

static int
unknown_command(const char *name)
{
    fprintf(stderr, "netsurvey: unknown command '%s'\n", name);
    usage(stderr);
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
        fprintf(stderr, "netsurvey: unexpected argument '%s' after %s\n", argv[2], argv[1]);
        usage(stderr);
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
    const struct cli_command *c = command_find(argv[1]);
    return c != NULL ? c->main(argc - 1, argv + 1) : unknown_command(argv[1]);
}
