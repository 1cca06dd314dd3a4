/* cli_plan.c - `netsurvey plan [--json] [PLAN]`: the dry run, the schedule as text or JSON. */
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "cli/cli.h"
#include "common/errors.h"
#include "common/sshg.h"
#include "plan/plan.h"
#include "plan/schedule.h"
#include "survey/survey.h"

struct plan_args {
    bool json;
};

static const struct cli_opt plan_opts[] = {
    {0, "json", NULL, CLI_OPT_TRUE, offsetof(struct plan_args, json), 0,
     "one JSON document: the plan's settings, hosts, every scenario's resolved parameters and "
     "nsperf arguments, then the rounds"},
};

static int
plan_main(int argc, char **argv)
{
    struct plan_args a = {0};
    struct plan *p;
    int rc = cli_start_plan(&cli_plan, argc, argv, &a, CLI_PLAN_FAILED, &p);
    if (rc != CLI_GO_ON)
        return rc;
    struct schedule *s = NULL;
    struct err e = {0};
    /* JSON: each ssh host's endpoint as ssh -G resolves it (hosts[].ssh.resolved), every host
     * asked at once first */
    struct sshg *g = a.json ? survey_ssh_prefetch(p) : NULL;
    const struct schedule_json_extra resolved = {.ssh_resolved = survey_host_resolved_json,
                                                 .ctx = g};
    rc = schedule_new(p, &s, &e);
    if (rc == 0)
        rc = a.json ? schedule_write_json_extra(s, stdout, &resolved, &e)
                    : schedule_write_text(s, stdout, &e);
    schedule_free(s);
    sshg_free(g);
    plan_free(p);
    if (rc != 0) {
        fprintf(stderr, "netsurvey: %s\n", e.msg);
        return CLI_PLAN_FAILED;
    }
    return CLI_PLAN_OK;
}

const struct cli_command cli_plan = {
    .name = "plan",
    .synopsis = "[--json] [PLAN]",
    .summary = "dry run: the rounds of tests, their count and estimated time",
    .details = CLI_PLAN_HELP,
    CLI_OPTS(plan_opts),
    CLI_EXITS(PLAN),
    .usage = CLI_PLAN_INVALID,
    .main = plan_main,
};
