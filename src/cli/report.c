/* report.c - `netsurvey report DIR [DIR...] [-o OUT]`: rebuild the reports from journals. */
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "cli/cli.h"
#include "common/errors.h"
#include "report/report.h"

struct report_args {
    const char *out;
    bool lenient;
};

static const struct cli_opt report_opts[] = {
    {'o', "output", "OUT", CLI_OPT_STRING, offsetof(struct report_args, out), 0,
     "where the outputs go (created if missing; default: DIR, when there is one)"},
    {0, "lenient", NULL, CLI_OPT_TRUE, offsetof(struct report_args, lenient), 0,
     "a journal record of another schema version, an unknown status or another run is passed "
     "over and listed under \"Journal problems\" in the reports, instead of an error"},
};

static int
report_main(int argc, char **argv)
{
    struct report_args a = {0};
    struct cli_operands ops;
    int rc = cli_parse(&cli_report, argc, argv, &a, &ops);
    if (rc != CLI_GO_ON)
        return rc;
    if (ops.n < 1)
        return cli_usage_error(&cli_report, "no run directory given");
    if (ops.n > 1 && a.out == NULL)
        return cli_usage_error(&cli_report, "several run directories need -o OUT");
    const char *const *dirs = (const char *const *)ops.v;
    struct report_result r;
    struct report_opts o = {.dirs = dirs,
                            .ndirs = ops.n,
                            .out = a.out ? a.out : dirs[0],
                            .warn = stderr,
                            .lenient = a.lenient,
                            .result = &r};
    struct err e = {0};
    if (report_render(&o, &e) != 0) {
        fprintf(stderr, "netsurvey report: %s\n", e.msg);
        return r.unwritten ? CLI_REPORT_UNWRITTEN : CLI_REPORT_FAILED;
    }
    return r.incomplete ? CLI_REPORT_INCOMPLETE : CLI_REPORT_OK;
}

const struct cli_command cli_report = {
    .name = "report",
    .synopsis = "DIR [DIR...] [-o OUT] [--lenient]",
    .summary = "rebuild the reports from the journals of run directories",
    .details = "Rebuilds summary.json, matrix-<scenario>.csv, report.md, report.html and charts/ "
               "from the journals (run.json + results.jsonl) of the run directories; with one DIR "
               "the outputs go into DIR, with several (merged into one report) -o OUT is "
               "required. Runs of one plan merged pool their trials cell by cell; a scenario of "
               "one name run with other parameters, or one run given twice, is refused.\nA run "
               "that is incomplete or "
               "still going (its netsurvey holds the directory) is reported from the trials "
               "recorded, marked so in the title, and exits 4. A rebuild replaces its previous "
               "outputs and removes those it does not make again (as .netsurvey-outputs lists "
               "them).",
    CLI_OPTS(report_opts),
    CLI_EXITS(REPORT),
    .usage = CLI_REPORT_USAGE,
    .main = report_main,
};
