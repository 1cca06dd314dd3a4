/* check.c - `netsurvey check [-q] [PLAN]`: validate a plan, one summary line. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cli/cli.h"
#include "common/errors.h"
#include "plan/plan.h"

struct check_args {
    bool quiet;
};

static const struct cli_opt check_opts[] = {
    {'q', "quiet", NULL, CLI_OPT_TRUE, offsetof(struct check_args, quiet), 0,
     "print nothing when the plan is valid (its problems are still printed)"},
};

static const char *
plural(uint64_t n)
{
    return n == 1 ? "" : "s";
}

static int
check_main(int argc, char **argv)
{
    struct check_args a = {0};
    struct plan *p;
    int rc = cli_start_plan(&cli_check, argc, argv, &a, CLI_CHECK_FAILED, &p);
    if (rc != CLI_GO_ON)
        return rc;
    if (!a.quiet)
        printf("%s: plan '%s' is valid: %zu host%s, %zu zone%s, %zu pair%s, %zu scenario%s, "
               "%llu test%s\n",
               plan_file(p), plan_name(p), plan_host_count(p), plural(plan_host_count(p)),
               plan_zone_count(p), plural(plan_zone_count(p)), plan_pair_count(p),
               plural(plan_pair_count(p)), plan_scenario_count(p), plural(plan_scenario_count(p)),
               (unsigned long long)plan_test_count(p), plural(plan_test_count(p)));
    plan_free(p);
    return fflush(stdout) == 0 ? CLI_CHECK_OK : CLI_CHECK_FAILED;
}

const struct cli_command cli_check = {
    .name = "check",
    .synopsis = "[-q] [PLAN]",
    .summary = "validate a plan and print a one-line summary",
    .details =
        "Every problem is printed at once, as file:line:col: message, before any host is "
        "contacted; warnings are printed too and do not change the exit status.\n" CLI_PLAN_HELP,
    CLI_OPTS(check_opts),
    CLI_EXITS(CHECK),
    .usage = CLI_CHECK_INVALID,
    .main = check_main,
};
