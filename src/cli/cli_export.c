/* cli_export.c - `netsurvey export DIR... [--format samples|csv] [-o FILE]`: the runs' trials as
 * PerfKitBenchmarker's samples. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "common/errors.h"
#include "history/history.h"
#include "journal/journal.h"

struct export_args {
    const char *format;
    const char *out;
};

static const struct cli_opt export_opts[] = {
    {0, "format", "FORMAT", CLI_OPT_STRING, offsetof(struct export_args, format), 0,
     "samples (JSON lines, the default) or csv"},
    {'o', "output", "FILE", CLI_OPT_STRING, offsetof(struct export_args, out), 0,
     "where they go (default: standard output)"},
};

static int
export_main(int argc, char **argv)
{
    struct export_args a = {0};
    struct cli_operands ops;
    int rc = cli_parse(&cli_export, argc, argv, &a, &ops);
    if (rc != CLI_GO_ON)
        return rc;
    struct history_export_opts o = {.dirs = (const char *const *)ops.v,
                                    .ndirs = ops.n,
                                    .format = HISTORY_EXPORT_SAMPLES,
                                    .warn = stderr};
    if (a.format != NULL && strcmp(a.format, "csv") == 0)
        o.format = HISTORY_EXPORT_CSV;
    else if (a.format != NULL && strcmp(a.format, "samples") != 0)
        return cli_usage_error(&cli_export, "--format wants samples or csv, not '%s'", a.format);
    if (ops.n < 1)
        return cli_usage_error(&cli_export, "no run directory given");
    if (a.out != NULL && journal_is_run_file(a.out))
        return cli_usage_error(&cli_export,
                               "-o %s is a run's own file: writing it would destroy the run's "
                               "journal (nothing written)",
                               a.out);
    FILE *out = stdout;
    if (a.out != NULL && strcmp(a.out, "-") != 0 && (out = fopen(a.out, "w")) == NULL) {
        fprintf(stderr, "netsurvey export: cannot write %s\n", a.out);
        return CLI_EXPORT_OUTPUT;
    }
    o.out = out;
    uint64_t rows;
    bool write_failed;
    struct err e = {0};
    rc = history_export(&o, &rows, &write_failed, &e);
    if (out != stdout && fclose(out) != 0 && rc == 0) {
        write_failed = true;
        rc = err_set(&e, NS_EIO, "cannot write %s", a.out);
    }
    if (rc != 0) {
        fprintf(stderr, "netsurvey export: %s\n", e.msg);
        return write_failed ? CLI_EXPORT_OUTPUT : CLI_EXPORT_JOURNAL;
    }
    return CLI_EXPORT_OK;
}

const struct cli_command cli_export = {
    .name = "export",
    .synopsis = "DIR... [--format samples|csv] [-o FILE]",
    .summary = "write the runs' trials as PerfKitBenchmarker samples (JSON lines) or CSV, for "
               "BigQuery, Elasticsearch/OpenSearch or any warehouse",
    .details = "One sample per ok trial and figure: its headline figure (mean RTT, throughput or "
               "connection rate) and, where it has a histogram, its RTT p50 and p99. Each has "
               "PerfKitBenchmarker's fields (test, metric, value, unit, metadata, timestamp, "
               "official, owner, run_uri = the run_id, sample_uri, product_name); metadata holds "
               "the plan, scenario and every parameter as run, both hosts with their zone, zone "
               "id, region, provider, instance type and architecture, and the versions. The CSV "
               "holds the same rows, one column per field and metadata key. The trials are those "
               "the reports count; failed ones have no figure.",
    CLI_OPTS(export_opts),
    CLI_EXITS(EXPORT),
    .usage = CLI_EXPORT_USAGE,
    .main = export_main,
};
