/* clean.c - `netsurvey clean`: for now the survey module's own command (moved here next). */
#include "cli/cli.h"
#include "survey/cmd_clean.h"

static const struct cli_exit clean_exits[] = CLI_EXIT_TABLE(CLEAN);

const struct cli_command cli_clean = {
    .name = "clean",
    .synopsis = "[PLAN] [--accept-new-host-keys]",
    .summary =
        "kill what netsurvey left running on the plan's ssh hosts and remove its cache there",
    .exits = clean_exits,
    .nexits = CLI_LEN(clean_exits),
    .usage = CLI_CLEAN_USAGE,
    .main = survey_cmd_clean,
};
