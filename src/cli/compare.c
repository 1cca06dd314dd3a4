/* compare.c - `netsurvey compare BASE_DIR NEW_DIR [--max-regression PCT] [-o OUT]`: the
 * release gate. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "common/errors.h"
#include "report/report.h"

#define COMPARE_DEFAULT_PCT 5.0

struct compare_args {
    const char *max_regression;
    const char *out;
};

static const struct cli_opt compare_opts[] = {
    {0, "max-regression", "PCT", CLI_OPT_STRING, offsetof(struct compare_args, max_regression), 0,
     "a cell significantly worse by more than PCT percent fails the gate (default 5; '5%' "
     "also reads)"},
    {'o', "output", "OUT", CLI_OPT_STRING, offsetof(struct compare_args, out), 0,
     "where compare.md and compare.html go (default NEW_DIR)"},
};

/* A percentage >= 0, "%" allowed after it. */
static int
compare_pct(const char *text, double *pct)
{
    char *end;
    *pct = strtod(text, &end);
    if (end == text || (*end != '\0' && strcmp(end, "%") != 0) || !isfinite(*pct) || *pct < 0)
        return -1;
    return 0;
}

static int
compare_main(int argc, char **argv)
{
    struct compare_args a = {0};
    struct cli_operands ops;
    int rc = cli_parse(&cli_compare, argc, argv, &a, &ops);
    if (rc != CLI_GO_ON)
        return rc;
    double pct = COMPARE_DEFAULT_PCT;
    if (a.max_regression != NULL && compare_pct(a.max_regression, &pct) != 0) {
        fprintf(stderr, "netsurvey compare: --max-regression wants a percentage >= 0, not '%s'\n",
                a.max_regression);
        return CLI_COMPARE_USAGE;
    }
    if (ops.n != 2)
        return cli_usage_error(&cli_compare, "want BASE_DIR and NEW_DIR");
    struct report_compare_opts o = {
        .base_dir = ops.v[0],
        .new_dir = ops.v[1],
        .out = a.out ? a.out : ops.v[1],
        .max_regression_pct = pct,
        .echo = stdout,
        .warn = stderr,
    };
    struct report_compare_result r;
    struct err e = {0};
    if (report_compare(&o, &r, &e) != 0) {
        fprintf(stderr, "netsurvey compare: %s\n", e.msg);
        return CLI_COMPARE_ERROR;
    }
    return r.regressions > 0 ? CLI_COMPARE_REGRESSION : CLI_COMPARE_OK;
}

const struct cli_command cli_compare = {
    .name = "compare",
    .synopsis = "BASE_DIR NEW_DIR [--max-regression PCT] [-o OUT]",
    .summary = "compare two runs cell by cell (Welch's t-test); exit 1 on a regression",
    .details = "Compares matched zone cells (Welch's t-test, alpha 0.05) and writes compare.md and "
               "compare.html into OUT; compare.md also goes to standard output.",
    CLI_OPTS(compare_opts),
    CLI_EXITS(COMPARE),
    .usage = CLI_COMPARE_USAGE,
    .main = compare_main,
};
