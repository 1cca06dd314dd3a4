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
    const char *db, *plan, *scenario, *since, *until, *last;
};

static const struct cli_opt trend_opts[] = {
    {0, "max-regression", "PCT", CLI_OPT_STRING, offsetof(struct trend_args, max_regression), 0,
     "flag a cell whose mean lies beyond its first run's 95 % CI by more than PCT percent of "
     "that run's mean, the bad way (default 5; '5%' also reads)"},
    {'j', "jobs", "N", CLI_OPT_STRING, offsetof(struct trend_args, jobs), 0,
     "runs read at once, each by a process of its own (default: the CPUs online, at most 4; "
     "each holds one run's zone cells, about 30 MiB for 100 000 trials)"},
    {'o', "output", "OUT", CLI_OPT_STRING, offsetof(struct trend_args, out), 0,
     "where the outputs go, created if missing (default: the newest run's directory; with --db "
     "the current directory)"},
    {0, "db", "URL", CLI_OPT_STRING, offsetof(struct trend_args, db), 0,
     "read the runs from this history database (netsurvey publish) instead of directories: "
     "those the RUN_IDs and selectors below pick, every run when none is given"},
    {0, "plan", "NAME", CLI_OPT_STRING, offsetof(struct trend_args, plan), 0,
     "--db: runs of this plan"},
    {0, "scenario", "NAME", CLI_OPT_STRING, offsetof(struct trend_args, scenario), 0,
     "--db: runs that have this scenario, and only it trended"},
    {0, "since", "TIME", CLI_OPT_STRING, offsetof(struct trend_args, since), 0,
     "--db: runs started at or after TIME (2026-11-30, or 2026-11-30T15:00:00Z)"},
    {0, "until", "TIME", CLI_OPT_STRING, offsetof(struct trend_args, until), 0,
     "--db: runs started before TIME"},
    {0, "last", "N", CLI_OPT_STRING, offsetof(struct trend_args, last), 0,
     "--db: the newest N of the runs picked"},
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
    if (a->db == NULL) {
        const char *sel = a->plan       ? "--plan"
                          : a->scenario ? "--scenario"
                          : a->since    ? "--since"
                          : a->until    ? "--until"
                          : a->last     ? "--last"
                                        : NULL;
        if (sel != NULL)
            return cli_usage_error(&cli_trend, "%s selects runs of a database: it goes with --db",
                                   sel);
    }
    return CLI_GO_ON;
}

/* The database's selectors into q; a usage error's status, or CLI_GO_ON. */
static int
trend_select(const struct trend_args *a, const struct cli_operands *ops,
             struct history_db_select *q)
{
    *q = (struct history_db_select){.url = a->db,
                                    .plan = a->plan,
                                    .scenario = a->scenario,
                                    .since = a->since,
                                    .until = a->until,
                                    .run_ids = (const char *const *)ops->v,
                                    .n_run_ids = (size_t)ops->n};
    if (a->last != NULL) {
        char *end;
        long n = strtol(a->last, &end, 10);
        if (end == a->last || *end != '\0' || n < 2)
            return cli_usage_error(&cli_trend, "--last wants a number of runs, 2 or more, not '%s'",
                                   a->last);
        q->last = (size_t)n;
    }
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
    struct history_db_select q;
    if (a.db != NULL) {
        if ((rc = trend_select(&a, &ops, &q)) != CLI_GO_ON)
            return rc;
        o.db = &q;
        if (o.out == NULL)
            o.out = ".";
    } else if (ops.n < 2) {
        return cli_usage_error(&cli_trend, "want two run directories or more");
    }
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
        return r.failure == HISTORY_TREND_OUTPUT     ? CLI_TREND_OUTPUT
               : r.failure == HISTORY_TREND_DATABASE ? CLI_TREND_DATABASE
                                                     : CLI_TREND_JOURNAL;
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
    .synopsis = "DIR DIR... [--max-regression PCT] [-j N] [-o OUT] | --db URL [RUN_ID...] [--plan "
                "NAME] [--scenario NAME] [--since TIME] [--until TIME] [--last N]",
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
        "With --db URL the runs are read from a history database (netsurvey publish), each "
        "named by its run_id where a directory would be, with the outputs and verdicts the same "
        "runs give from their directories: the RUN_IDs given, or every run the selectors pick "
        "(all of them must hold), in time order.\n"
        "When several statuses apply, the status is the first of 2, 3 (or 7), 73, 1, 6, 5.",
    CLI_OPTS(trend_opts),
    CLI_EXITS(TREND),
    .usage = CLI_TREND_USAGE,
    .main = trend_main,
};
