/* run.c - `netsurvey run`: for now the survey module's own command (moved here next). */
#include "cli/cli.h"
#include "report/report.h"
#include "survey/cmd_run.h"

static const struct cli_exit run_exits[] = CLI_EXIT_TABLE(RUN);

static int
run_render(const char *dir, struct err *e)
{
    struct report_opts o = {.dirs = &dir, .ndirs = 1, .out = dir, .warn = stderr};
    return report_render(&o, e);
}

static int
run_main(int argc, char **argv)
{
    return survey_cmd_run(argc, argv, run_render);
}

const struct cli_command cli_run = {
    .name = "run",
    .synopsis = "[PLAN] [-o DIR] [--resume DIR [--force]] [-q|-v] [--nsperf PATH] "
                "[--nsperf-remote PATH] [--accept-new-host-keys]",
    .summary = "run the survey: every test of the plan's schedule, each trial journaled in DIR",
    .exits = run_exits,
    .nexits = CLI_LEN(run_exits),
    .usage = CLI_RUN_USAGE,
    .main = run_main,
};
