/* cmd.c - the `report` and `compare` commands: arguments in, exit status out. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/errors.h"
#include "report/report.h"
#include "report/reportint.h"

#define EXIT_USAGE 2
#define COMPARE_DEFAULT_PCT 5.0
#define COMPARE_EXIT_ERROR 3 /* not 1: a broken journal must not read as a regression */

static const char report_usage[] =
    "usage: netsurvey report DIR [DIR...] [-o OUT]\n"
    "rebuild summary.json, matrix-<scenario>.csv, report.md, report.html and charts/ from the\n"
    "journals (run.json + results.jsonl) of the run directories; with one DIR the outputs go\n"
    "into DIR, with several (merged into one report) -o OUT is required\n";

static const char compare_usage[] =
    "usage: netsurvey compare BASE_DIR NEW_DIR [--max-regression PCT] [-o OUT]\n"
    "compare matched zone cells (Welch's t-test, alpha 0.05) and write compare.md and\n"
    "compare.html into OUT (default NEW_DIR); exit status 1 when a cell is significantly worse\n"
    "by more than PCT percent (default 5), 3 when a journal cannot be read\n";

int
report_cmd_report(int argc, char **argv)
{
    static const struct option longopts[] = {{"output", required_argument, NULL, 'o'},
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    const char *out = NULL;
    int ch;
    opterr = 0;
    optind = 1;
    while ((ch = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
        if (ch == 'o') {
            out = optarg;
        } else if (ch == 'h') {
            fputs(report_usage, stdout);
            return EXIT_SUCCESS;
        } else {
            fprintf(stderr, "netsurvey report: unknown option or missing value '%s'\n%s",
                    argv[optind - 1], report_usage);
            return EXIT_USAGE;
        }
    }
    int ndirs = argc - optind;
    if (ndirs < 1 || (ndirs > 1 && out == NULL)) {
        fprintf(stderr, "netsurvey report: %s\n%s",
                ndirs < 1 ? "no run directory given" : "several run directories need -o OUT",
                report_usage);
        return EXIT_USAGE;
    }
    struct err e = {0};
    const char *const *dirs = (const char *const *)(argv + optind);
    struct report_opts o = {
        .dirs = dirs, .ndirs = ndirs, .out = out ? out : dirs[0], .warn = stderr};
    if (report_render(&o, &e) != 0) {
        fprintf(stderr, "netsurvey report: %s\n", e.msg);
        return EXIT_FAILURE;
    }
    return EXIT_SUCCESS;
}

int
report_cmd_compare(int argc, char **argv)
{
    static const struct option longopts[] = {{"max-regression", required_argument, NULL, 'm'},
                                             {"output", required_argument, NULL, 'o'},
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    const char *out = NULL;
    double pct = COMPARE_DEFAULT_PCT;
    int ch;
    opterr = 0;
    optind = 1;
    while ((ch = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
        if (ch == 'o') {
            out = optarg;
        } else if (ch == 'm') {
            char *end;
            pct = strtod(optarg, &end);
            if (end == optarg || (*end != '\0' && strcmp(end, "%") != 0) || !isfinite(pct) ||
                pct < 0) {
                fprintf(stderr,
                        "netsurvey compare: --max-regression wants a percentage >= 0, "
                        "not '%s'\n",
                        optarg);
                return EXIT_USAGE;
            }
        } else if (ch == 'h') {
            fputs(compare_usage, stdout);
            return EXIT_SUCCESS;
        } else {
            fprintf(stderr, "netsurvey compare: unknown option or missing value '%s'\n%s",
                    argv[optind - 1], compare_usage);
            return EXIT_USAGE;
        }
    }
    if (argc - optind != 2) {
        fprintf(stderr, "netsurvey compare: want BASE_DIR and NEW_DIR\n%s", compare_usage);
        return EXIT_USAGE;
    }
    struct err e = {0};
    const char *bdir = argv[optind], *ndir = argv[optind + 1];
    struct report_compare_opts o = {.base_dir = bdir,
                                    .new_dir = ndir,
                                    .out = out ? out : ndir,
                                    .max_regression_pct = pct,
                                    .echo = stdout};
    struct report_compare_result r;
    if (report_compare(&o, &r, &e) != 0) {
        fprintf(stderr, "netsurvey compare: %s\n", e.msg);
        return COMPARE_EXIT_ERROR;
    }
    return r.regressions > 0;
}
