/* cli_trend.c - `netsurvey trend DIR... [--max-regression PCT] [-j N] [-o OUT]`: runs in time
 * order, cell by cell; exit 1 when a cell left its first run's CI. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "common/errors.h"
#include "history/history.h"
#include "journal/record.h"

#define TREND_JOBS_LIMIT 64

struct trend_args {
    const char *max_regression;
    const char *jobs;
    const char *out;
};

static const struct cli_opt trend_opts[] = {
    {0, "max-regression", "PCT", CLI_OPT_STRING, offsetof(struct trend_args, max_regression), 0,
     "flag a cell whose mean lies beyond its first run's 95 % CI by more than PCT percent of "
     "that run's mean, the bad way (default 5; '5%' also reads)"},
    {'j', "jobs", "N", CLI_OPT_STRING, offsetof(struct trend_args, jobs), 0,
     "runs read at once, each by a process of its own (default: the CPUs online, at most 4; "
     "each holds one run's zone cells, about 30 MiB for 100 000 trials)"},
    {'o', "output", "OUT", CLI_OPT_STRING, offsetof(struct trend_args, out), 0,
     "where the outputs go, created if missing (default: the newest run's directory)"},
};

static int
trend_settings(const struct trend_args *a, struct history_trend_opts *o)
{
    o->max_regression_pct = CLI_DEFAULT_PCT;
    if (a->max_regression != NULL && cli_parse_pct(a->max_regression, &o->max_regression_pct) != 0)
        return cli_usage_error(&cli_trend, "--max-regression wants a percentage >= 0, not '%s'",
                               a->max_regression);
    if (a->jobs != NULL) {
        char *end;
        long j = strtol(a->jobs, &end, 10);
        if (end == a->jobs || *end != '\0' || j < 1 || j > TREND_JOBS_LIMIT)
            return cli_usage_error(&cli_trend, "--jobs wants a number 1..%d, not '%s'",
                                   TREND_JOBS_LIMIT, a->jobs);
        o->jobs = (int)j;
    }
    o->out = a->out;
    return CLI_GO_ON;
}

static void
trend_tell(const struct history_trend_result *r)
{
    printf("netsurvey trend: %zu runs, %zu scenario%s trended (%zu zone cell%s), %zu cell%s "
           "flagged, %zu without an ok trial in %s newest run; %s/trend.md\n",
           r->runs, r->scenarios, r->scenarios == 1 ? "" : "s", r->cells, r->cells == 1 ? "" : "s",
           r->flagged, r->flagged == 1 ? "" : "s", r->newest_failed,
           r->newest_failed == 1 ? "its" : "their", r->out);
    if (r->flags != NULL)
        for (const char *p = r->flags; *p;) {
            const char *nl = strchr(p, '\n');
            int len = nl ? (int)(nl - p) : (int)strlen(p);
            printf("  flagged: %.*s\n", len, p);
            p += len + (nl != NULL);
        }
    if (r->newest_failed_cells != NULL)
        for (const char *p = r->newest_failed_cells; *p;) {
            const char *nl = strchr(p, '\n');
            int len = nl ? (int)(nl - p) : (int)strlen(p);
            printf("  failed: %.*s\n", len, p);
            p += len + (nl != NULL);
        }
    if (r->not_trended > 0)
        printf("  %zu scenario%s in one run only, not trended (listed in trend.md)\n",
               r->not_trended, r->not_trended == 1 ? "" : "s");
    if (r->incomplete > 0)
        printf("  %zu run%s not complete, marked so in trend.md\n", r->incomplete,
               r->incomplete == 1 ? "" : "s");
    if (r->scenarios == 0)
        fprintf(stderr, "netsurvey trend: no scenario is shared by two runs or more: nothing to "
                        "trend\n");
}

static int
trend_main(int argc, char **argv)
{
    struct trend_args a = {0};
    struct cli_operands ops;
    int rc = cli_parse(&cli_trend, argc, argv, &a, &ops);
    if (rc != CLI_GO_ON)
        return rc;
    struct history_trend_opts o = {.warn = stderr};
    if ((rc = trend_settings(&a, &o)) != CLI_GO_ON)
        return rc;
    if (ops.n < 2)
        return cli_usage_error(&cli_trend, "want two run directories or more");
    o.dirs = (const char *const *)ops.v;
    o.ndirs = ops.n;
    struct history_trend_result r;
    struct err e = {0};
    fflush(stdout); /* the readers are forked: nothing buffered may be written twice */
    if (history_trend(&o, &r, &e) != 0) {
        history_trend_result_release(&r);
        if (r.failure == HISTORY_TREND_USAGE)
            return cli_usage_error(&cli_trend, "%s", e.msg);
        fprintf(stderr, "netsurvey trend: %s\n", e.msg);
        return r.failure == HISTORY_TREND_OUTPUT ? CLI_TREND_OUTPUT : CLI_TREND_JOURNAL;
    }
    trend_tell(&r);
    rc = r.flagged > 0         ? CLI_TREND_FLAGGED
         : r.newest_failed > 0 ? CLI_TREND_NEWEST_FAILED
         : r.scenarios == 0    ? CLI_TREND_NOTHING
                               : CLI_TREND_OK;
    history_trend_result_release(&r);
    return rc;
}

const struct cli_command cli_trend = {
    .name = "trend",
    .synopsis = "DIR DIR... [--max-regression PCT] [-j N] [-o OUT]",
    .summary = "runs of a plan in time order, cell by cell; exit 1 when a cell left its first "
               "run's CI",
    .details =
        "Puts the runs in the order of their start (" JOURNAL_RUN_FILE
        "'s started), whatever order they "
        "are given in, matches their scenarios (name, test, family) and zone cells (source and "
        "destination zone) as compare does, and writes trend.md, trend.html, "
        "trend-<scenario>.csv (each run's matrix value, oldest first) and "
        "charts/trend-<scenario>.svg (a line per cell with its 95 % CI band) into OUT.\n"
        "A cell's baseline is its first run with 2 ok trials or more (a CI needs two); the cell "
        "is flagged at the first later run whose mean lies beyond the baseline's 95 % CI by more "
        "than PCT percent of the baseline's mean, the bad way (higher RTT, lower throughput or "
        "connection rate): a change for the better is never flagged. Runs of different plans are "
        "compared on the scenarios and cells they share; a scenario in one run only, and a cell "
        "some runs lack, are listed in trend.md, never matched by a guess. A run that is "
        "incomplete (planned trials without a record, or host pairs of adaptive trials whose "
        "rule has not decided) or still in progress is marked so, not left out.\n"
        "A cell whose newest run (the latest that has it) holds no ok trial, its trials failed "
        "or not run, cannot be placed: it is listed (trend.md, standard output) and the status "
        "is 6.\n"
        "When several statuses apply, the status is the first of 2, 3, 73, 1, 6, 5.",
    CLI_OPTS(trend_opts),
    CLI_EXITS(TREND),
    .usage = CLI_TREND_USAGE,
    .main = trend_main,
};
