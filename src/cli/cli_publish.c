/* cli_publish.c - `netsurvey publish DIR... --db URL`: runs into the history database. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "common/errors.h"
#include "history/history.h"

struct publish_args {
    const char *db;
};

static const struct cli_opt publish_opts[] = {
    {0, "db", "URL", CLI_OPT_STRING, offsetof(struct publish_args, db), 0,
     "the database: sqlite:PATH (a file, created if missing) or postgresql://[USER@]HOST[:PORT]/DB "
     "(libpq's URI: ?host=/DIR for a Unix socket); required"},
};

static void
publish_told(void *arg, const struct history_published *p)
{
    (void)arg;
    printf("published %s from %s: %llu trials (%llu ok), %llu journal lines%s\n", p->run_id, p->dir,
           (unsigned long long)p->trials, (unsigned long long)p->ok, (unsigned long long)p->lines,
           p->replaced ? ", replacing the copy before" : "");
    fflush(stdout);
}

static int
publish_main(int argc, char **argv)
{
    struct publish_args a = {0};
    struct cli_operands ops;
    int rc = cli_parse(&cli_publish, argc, argv, &a, &ops);
    if (rc != CLI_GO_ON)
        return rc;
    if (a.db == NULL)
        return cli_usage_error(&cli_publish, "--db URL is required");
    if (ops.n < 1)
        return cli_usage_error(&cli_publish, "no run directory given");
    struct history_publish_opts o = {.db = a.db,
                                     .dirs = (const char *const *)ops.v,
                                     .ndirs = ops.n,
                                     .warn = stderr,
                                     .done = publish_told};
    struct history_publish_result r;
    struct err e = {0};
    if (history_publish(&o, &r, &e) == 0)
        return CLI_PUBLISH_OK;
    if (r.failure == HISTORY_PUBLISH_USAGE)
        return cli_usage_error(&cli_publish, "%s", e.msg);
    fprintf(stderr, "netsurvey publish: %s\n", e.msg);
    if (r.published > 0 || ops.n > 1)
        fprintf(stderr, "netsurvey publish: %zu of %d runs published\n", r.published, ops.n);
    return r.failure == HISTORY_PUBLISH_JOURNAL ? CLI_PUBLISH_JOURNAL : CLI_PUBLISH_DATABASE;
}

const struct cli_command cli_publish = {
    .name = "publish",
    .synopsis = "DIR... --db URL",
    .summary = "write runs into a history database (SQLite or PostgreSQL) for trend, compare and "
               "report --db and any SQL client",
    .details = "Each run directory is read as netsurvey report reads it and written in one "
               "transaction: its run, hosts, scenarios with their parameters, zone cells "
               "(summary.json's figures, and each cell's merged RTT histogram), and every line of "
               "its journal (the trials the reports count, with their figures, and the others "
               "byte for byte). A run is its run_id: publishing it again replaces it whole, so an "
               "incomplete run can be published and republished once complete. The schema "
               "(schema.sql in the sources, with its views) is created or upgraded the first "
               "time; a database of a newer netsurvey, or of another schema, is refused. "
               "Passwords in URLs are never printed.",
    CLI_OPTS(publish_opts),
    CLI_EXITS(PUBLISH),
    .usage = CLI_PUBLISH_USAGE,
    .main = publish_main,
};
