/* cli_report.c - `netsurvey report DIR [DIR...] [-o OUT]`: rebuild the reports from journals. */
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "common/errors.h"
#include "journal/record.h"
#include "report/report.h"

struct report_args {
    const char *out;
    bool lenient;
    const char *by;
    bool same_hosts;
};

static const struct cli_opt report_opts[] = {
    {'o', "output", "OUT", CLI_OPT_STRING, offsetof(struct report_args, out), 0,
     "where the outputs go (created if missing; default: DIR, when there is one)"},
    {0, "lenient", NULL, CLI_OPT_TRUE, offsetof(struct report_args, lenient), 0,
     "a journal record of another schema version, an unknown status or another run is passed "
     "over and listed under \"Journal problems\" in the reports, instead of an error"},
    {0, "by", "KEY", CLI_OPT_STRING, offsetof(struct report_args, by), 0,
     "what makes a zone: zone (the plan's labels, the default) or zone_id (the physical zone: "
     "every host must have one)"},
    {0, "same-hosts", NULL, CLI_OPT_TRUE, offsetof(struct report_args, same_hosts), 0,
     "a host name is one host in every run merged (a plan surveyed twice: its host pairs pooled "
     "run by run); refused when a name is in another region, zone, zone id or at another "
     "address in another run. Without it each run's hosts are its own"},
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
    if (a.by != NULL && strcmp(a.by, "zone") != 0 && strcmp(a.by, "zone_id") != 0)
        return cli_usage_error(&cli_report, "--by: expected zone or zone_id");
    const char *const *dirs = (const char *const *)ops.v;
    struct report_result r;
    struct report_opts o = {.dirs = dirs,
                            .ndirs = ops.n,
                            .out = a.out ? a.out : dirs[0],
                            .warn = stderr,
                            .lenient = a.lenient,
                            .by_zone_id = a.by != NULL && strcmp(a.by, "zone_id") == 0,
                            .same_hosts = a.same_hosts,
                            .result = &r};
    struct err e = {0};
    rc = report_render(&o, &e);
    if (rc != 0) {
        fprintf(stderr, "netsurvey report: %s\n", e.msg);
        if (r.unwritten)
            return CLI_REPORT_UNWRITTEN;
        if (r.output_refused)
            return CLI_REPORT_USAGE;
        return rc == NS_EINVAL && (o.by_zone_id || o.same_hosts) ? CLI_REPORT_USAGE
                                                                 : CLI_REPORT_FAILED;
    }
    return r.incomplete ? CLI_REPORT_INCOMPLETE : CLI_REPORT_OK;
}

const struct cli_command cli_report = {
    .name = "report",
    .synopsis = "DIR [DIR...] [-o OUT] [--lenient] [--by zone|zone_id] [--same-hosts]",
    .summary = "rebuild the reports from the journals of run directories",
    .details = "Rebuilds summary.json, matrix-<scenario>.csv, report.md, report.html and charts/ "
               "from the journals (" JOURNAL_RUN_FILE " + " JOURNAL_RESULTS_FILE
               ") of the run directories; with one DIR "
               "the outputs go into DIR, with several (merged into one report) -o OUT is "
               "required. Runs of one plan merged pool their trials cell by cell; a scenario of "
               "one name run with other parameters, or one run given twice, is refused. Each "
               "run's hosts are its own, whatever their names (two accounts may both have a "
               "'vm1', in other zones): a name several runs give is shown with its run, 'vm1 "
               "(run 2)', unless --same-hosts says they are one host.\nA run "
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
