/* cli_compare.c - `netsurvey compare BASE_DIR NEW_DIR [options]`: the release gate. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "common/errors.h"
#include "history/history.h"

struct compare_args {
    const char *max_regression;
    const char *min_effect;
    const char *correction;
    bool allow_partial;
    bool allow_param_change;
    const char *junit;
    const char *md_summary;
    const char *out;
};

static const struct cli_opt compare_opts[] = {
    {0, "max-regression", "PCT", CLI_OPT_STRING, offsetof(struct compare_args, max_regression), 0,
     "a cell significantly worse by more than PCT percent fails the gate (default 5; '5%' "
     "also reads)"},
    {0, "min-effect", "PCT", CLI_OPT_STRING, offsetof(struct compare_args, min_effect), 0,
     "a change smaller than PCT percent is never worse or better, and a cell shown within "
     "+-PCT by two one-sided tests is 'same' (default 0: no such verdict)"},
    {0, "correction", "METHOD", CLI_OPT_STRING, offsetof(struct compare_args, correction), 0,
     "how the per-cell p-values are corrected for their number: holm (default), bonferroni or "
     "none"},
    {0, "allow-partial", NULL, CLI_OPT_TRUE, offsetof(struct compare_args, allow_partial), 0,
     "gate on the cells that matched: a cell or scenario of BASE without counterpart in NEW, "
     "and a matched cell with failed or not-run trials, do not fail the gate (nothing compared "
     "still does)"},
    {0, "allow-param-change", NULL, CLI_OPT_TRUE, offsetof(struct compare_args, allow_param_change),
     0,
     "compare a scenario of both runs that ran other parameters (refused without it), each "
     "difference named in every output"},
    {0, "junit", "FILE", CLI_OPT_STRING, offsetof(struct compare_args, junit), 0,
     "also write the gate as JUnit XML, one test case per cell, for CI test reports"},
    {0, "markdown-summary", "FILE", CLI_OPT_STRING, offsetof(struct compare_args, md_summary), 0,
     "also write a short Markdown summary (at most 40 cells, 64 KiB) for a pull-request comment"},
    {'o', "output", "OUT", CLI_OPT_STRING, offsetof(struct compare_args, out), 0,
     "where compare.md and compare.html go, created if missing (default NEW_DIR)"},
};

static int
compare_correction(const char *text, enum history_correction *c)
{
    static const struct {
        const char *name;
        enum history_correction c;
    } names[] = {{"holm", HISTORY_CORRECTION_HOLM},
                 {"bonferroni", HISTORY_CORRECTION_BONFERRONI},
                 {"none", HISTORY_CORRECTION_NONE}};
    for (size_t i = 0; i < CLI_LEN(names); i++)
        if (strcmp(text, names[i].name) == 0) {
            *c = names[i].c;
            return 0;
        }
    return -1;
}

/* The options into o; a usage error's status, or CLI_GO_ON. */
static int
compare_settings(const struct compare_args *a, struct history_compare_opts *o)
{
    o->max_regression_pct = CLI_DEFAULT_PCT;
    if (a->max_regression != NULL && cli_parse_pct(a->max_regression, &o->max_regression_pct) != 0)
        return cli_usage_error(&cli_compare, "--max-regression wants a percentage >= 0, not '%s'",
                               a->max_regression);
    if (a->min_effect != NULL && cli_parse_pct(a->min_effect, &o->min_effect_pct) != 0)
        return cli_usage_error(&cli_compare, "--min-effect wants a percentage >= 0, not '%s'",
                               a->min_effect);
    if (a->correction != NULL && compare_correction(a->correction, &o->correction) != 0)
        return cli_usage_error(
            &cli_compare, "--correction wants holm, bonferroni or none, not '%s'", a->correction);
    o->allow_partial = a->allow_partial;
    o->allow_param_change = a->allow_param_change;
    o->junit = a->junit;
    o->md_summary = a->md_summary;
    return CLI_GO_ON;
}

/* text's lines on stderr, each indented by two spaces. */
static void
compare_lines(const char *text)
{
    for (const char *p = text; p != NULL && *p;) {
        const char *nl = strchr(p, '\n');
        int len = nl ? (int)(nl - p) : (int)strlen(p);
        fprintf(stderr, "  %.*s\n", len, p);
        p += len + (nl != NULL);
    }
}

/* What was left uncompared, on stderr: why the gate cannot pass, or what it passed without. */
static void
compare_tell_unmatched(const struct history_compare_result *r, bool allow_partial)
{
    if (r->param_changes != NULL) {
        fprintf(stderr, "netsurvey compare: compared across other parameters "
                        "(--allow-param-change):\n");
        compare_lines(r->param_changes);
    }
    if (r->compared == 0)
        fprintf(stderr,
                "netsurvey compare: nothing compared: no cell of BASE has a counterpart in NEW "
                "with 2 trials or more a side (%zu matched, %zu without counterpart); the gate "
                "cannot pass%s\n",
                r->matched, r->base_missing, r->unmatched ? ":" : "");
    else if (r->unmatched != NULL)
        fprintf(stderr,
                "netsurvey compare: %s%zu cell%s of BASE without counterpart in NEW (%zu "
                "scenario%s missing), %zu with too few trials, %zu with failed or not-run "
                "trials%s:\n",
                r->gate == HISTORY_GATE_REGRESSION ? "also not compared: "
                : allow_partial                    ? "not compared (--allow-partial): "
                                                   : "incomplete: ",
                r->base_missing, r->base_missing == 1 ? "" : "s", r->base_scenarios_missing,
                r->base_scenarios_missing == 1 ? "" : "s", r->untested, r->partial,
                r->gate == HISTORY_GATE_INCOMPLETE
                    ? "; the gate cannot pass (--allow-partial gates on what matched)"
                    : "");
    compare_lines(r->unmatched);
}

static int
compare_main(int argc, char **argv)
{
    struct compare_args a = {0};
    struct cli_operands ops;
    int rc = cli_parse(&cli_compare, argc, argv, &a, &ops);
    if (rc != CLI_GO_ON)
        return rc;
    struct history_compare_opts o = {.echo = stdout, .warn = stderr};
    if ((rc = compare_settings(&a, &o)) != CLI_GO_ON)
        return rc;
    if (ops.n != 2)
        return cli_usage_error(&cli_compare, "want BASE_DIR and NEW_DIR");
    o.base_dir = ops.v[0];
    o.new_dir = ops.v[1];
    o.out = a.out ? a.out : ops.v[1];
    struct history_compare_result r;
    struct err e = {0};
    if (history_compare(&o, &r, &e) != 0) {
        fprintf(stderr, "netsurvey compare: %s%s\n", e.msg, r.param_changes != NULL ? ":" : "");
        compare_lines(r.param_changes);
        history_compare_result_release(&r);
        return r.failure == HISTORY_COMPARE_USAGE            ? CLI_COMPARE_USAGE
               : r.failure == HISTORY_COMPARE_NOT_COMPARABLE ? CLI_COMPARE_NOT_COMPARABLE
               : r.failure == HISTORY_COMPARE_OUTPUT         ? CLI_COMPARE_OUTPUT
                                                             : CLI_COMPARE_JOURNAL;
    }
    compare_tell_unmatched(&r, o.allow_partial);
    rc = r.gate == HISTORY_GATE_REGRESSION   ? CLI_COMPARE_REGRESSION
         : r.gate == HISTORY_GATE_INCOMPLETE ? CLI_COMPARE_INCOMPLETE
                                             : CLI_COMPARE_OK;
    history_compare_result_release(&r);
    return rc;
}

const struct cli_command cli_compare = {
    .name = "compare",
    .synopsis = "BASE_DIR NEW_DIR [--max-regression PCT] [--min-effect PCT] [--correction "
                "METHOD] [--allow-partial] [--allow-param-change] [--junit FILE] "
                "[--markdown-summary FILE] [-o OUT]",
    .summary = "compare two runs cell by cell (Welch's t-test); exit 1 on a regression",
    .details =
        "Compares matched zone cells (Welch's t-test on the trial values, p-values corrected over "
        "the compared cells by Holm-Bonferroni unless --correction says otherwise, alpha 0.05) "
        "and writes compare.md and compare.html into OUT; compare.md also goes to standard "
        "output. Verdicts: worse, better, same (within +-min-effect, by two one-sided tests), "
        "inconclusive (no significant change), too few trials.\n"
        "The gate fails on a regression (exit 1) and, without --allow-partial, when a cell or "
        "scenario of BASE has no counterpart in NEW, or a matched cell has trials that failed "
        "or did not run on a side (exit 5, listing them); it never passes when nothing was "
        "compared.\n"
        "Runs that cannot be compared are refused before anything is written (exit 6, the "
        "reason named): BASE and NEW holding one run (the same run_id: a directory given twice, "
        "or a copy of it), and a scenario of both that ran other parameters (each difference "
        "named, old → new; --allow-param-change compares them and names the differences in "
        "every output). When several apply, the status is the first of 2, 3, 6, 73, 1, 5.",
    CLI_OPTS(compare_opts),
    CLI_EXITS(COMPARE),
    .usage = CLI_COMPARE_USAGE,
    .main = compare_main,
};
