/* test_compare.c - `netsurvey compare` on crafted journals (tests/fixtures/journals):
 * compare-*: latency 1->2 is 22 % worse (significant), 1->3 9 % better, 2->3 unchanged,
 * throughput 0.7 % lower (not significant); 2->1 only in the baseline, 3->1 only in the new run.
 * gate-*: 12 throughput cells of exact trial values (gen_journal.py's GATE_CELLS): 1->2 6 %
 * lower at Welch p 0.021 (worse uncorrected, not after Holm over 13 cells), 1->3 3 % lower and
 * 1->4 1 % higher beyond doubt, 2->1 too noisy to say; gate-partial lacks the latency scenario
 * and three throughput cells (absent, all failed, one ok trial).
 * Verdicts, the corrections, min-effect and equivalence, the gate's exit status (regression,
 * incomplete, nothing compared, --allow-partial), each side's completeness stated, output
 * folders, usage errors. The JUnit XML and
 * the Markdown summary are checked by test_compare_outputs.py. */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include <cmocka.h>

#include "cli/cli.h"

#include "report/helpers.h"

/* argv strings are not const in C; -Wwrite-strings makes literals const */
#define A(s) ((char *)(uintptr_t)(s))

static char *out;

static int
setup(void **state)
{
    (void)state;
    char j[4096];
    snprintf(j, sizeof j, "%s/tests/fixtures/journals", th_srcdir());
    out = th_tempdir("compare");
    /* stdout carries the Markdown: keep the test log readable */
    return chdir(j) != 0 || freopen("/dev/null", "w", stdout) == NULL;
}

static int
teardown(void **state)
{
    (void)state;
    th_rmtree(out);
    free(out);
    return 0;
}

/* netsurvey compare BASE NEW -o out [extra options...] */
static int
run(const char *base, const char *cand, ...)
{
    char *argv[32] = {A("compare"), A(base), A(cand), A("-o"), out};
    int argc = 5;
    va_list ap;
    va_start(ap, cand);
    for (const char *x; argc < 31 && (x = va_arg(ap, const char *)) != NULL;)
        argv[argc++] = A(x);
    va_end(ap);
    argv[argc] = NULL;
    return cli_compare.main(argc, argv);
}

/* compare-base against compare-new, its one partial cell allowed, at PCT (or the default). */
static int
compare(const char *pct)
{
    if (pct == NULL)
        return run("compare-base", "compare-new", "--allow-partial", NULL);
    return run("compare-base", "compare-new", "--allow-partial", "--max-regression", pct, NULL);
}

static char *
md(void)
{
    char p[8192];
    snprintf(p, sizeof p, "%s/compare.md", out);
    char *s = th_read(p, NULL);
    assert_non_null(s);
    return s;
}

/* The table row of a zone cell, or NULL. */
static const char *
row(const char *text, const char *scenario, const char *cell)
{
    char key[128];
    snprintf(key, sizeof key, "| %s | ", scenario);
    for (const char *p = strstr(text, key); p != NULL; p = strstr(p + 1, key)) {
        const char *end = strchr(p, '\n');
        const char *c = strstr(p, cell);
        if (c != NULL && end != NULL && c < end)
            return p;
    }
    return NULL;
}

static bool
row_has(const char *text, const char *scenario, const char *cell, const char *what)
{
    const char *r = row(text, scenario, cell);
    assert_non_null(r);
    const char *end = strchr(r, '\n');
    const char *w = strstr(r, what);
    return w != NULL && w < end;
}

static void
test_verdicts(void **state)
{
    (void)state;
    assert_int_equal(compare(NULL), 1); /* default 5 %: 1->2 is 22 % worse */
    char *s = md();
    assert_true(row_has(s, "latency", "1 → 2", "**REGRESSION**: worse |"));
    assert_true(row_has(s, "latency", "1 → 2", "+22."));
    assert_true(row_has(s, "latency", "1 → 3", "| better |"));
    assert_true(row_has(s, "latency", "2 → 3", "| no significant change |"));
    assert_true(row_has(s, "throughput", "1 → 2", "| no significant change |"));
    /* p, then Holm's: 0.1152 is the third smallest of 4, times 2 */
    assert_true(row_has(s, "throughput", "1 → 2", "| 0.1152 | 0.2304 |"));
    assert_non_null(strstr(s, "only in the baseline: latency (tcp_rr, ipv4) 2 → 1"));
    assert_non_null(strstr(s, "only in the new run: latency (tcp_rr, ipv4) 3 → 1"));
    assert_null(row(s, "latency", "2 → 1")); /* not guessed */
    assert_non_null(strstr(s, "4 matched cells: 1 worse, 1 better, 0 same, 2 inconclusive, 0 "
                              "with too few trials; 1 regression beyond 5.0 % (gate FAILED)"));
    assert_non_null(strstr(s, "correction: Holm-Bonferroni"));
    free(s);
    char p[8192];
    snprintf(p, sizeof p, "%s/compare.html", out);
    char *h = th_read(p, NULL);
    assert_non_null(h);
    assert_non_null(strstr(h, "<td class=\"worse\">REGRESSION: worse</td>"));
    free(h);
}

static void
test_gate_threshold(void **state)
{
    (void)state;
    assert_int_equal(compare("21"), 1);
    assert_int_equal(compare("30"), 0); /* worse, but not by more than 30 % */
    char *s = md();
    assert_true(row_has(s, "latency", "1 → 2", "| worse |"));
    assert_non_null(strstr(s, "0 regressions beyond 30.0 % (gate passed)"));
    assert_non_null(strstr(s, "Gate: passed with --allow-partial"));
    free(s);
    assert_int_equal(compare("30%"), 0);
}

static void
test_same_run_passes(void **state)
{
    (void)state;
    assert_int_equal(run("compare-base", "compare-base", NULL), 0);
    char *s = md();
    assert_non_null(strstr(s, "0 worse, 0 better, 0 same, 5 inconclusive"));
    assert_non_null(strstr(s, "Gate: passed: no regression beyond 5.0 % among 5 compared cells"));
    free(s);
}

/* A gate never passes on nothing: two runs of different plans share no cell. */
static void
test_nothing_matched(void **state)
{
    (void)state;
    assert_int_equal(run("compare-base", "multi-a", NULL), 5);
    char *s = md();
    assert_non_null(strstr(s, "0 matched cells"));
    assert_non_null(strstr(s, "Gate: FAILED: nothing compared"));
    assert_null(strstr(s, "passed"));
    /* why each cell was not compared: here the new run has its latency as another kind */
    assert_non_null(strstr(s, "only in the baseline: latency (tcp_rr, ipv4) 1 → 2: 292.7 us "
                              "(scenario not in the new run (it has latency as udp_rr, ipv4); "
                              "fails the gate)"));
    free(s);
    assert_int_equal(run("compare-base", "multi-a", "--allow-partial", NULL), 5); /* still */
    /* a journal without a single ok cell compares nothing either */
    assert_int_equal(run("multi-a", "compare-base", NULL), 5);
}

static void
test_partial(void **state)
{
    (void)state;
    assert_int_equal(run("gate-base", "gate-partial", NULL), 5);
    char *s = md();
    assert_non_null(strstr(s, "Gate: FAILED: incomplete: 3 cells of the baseline not in the new "
                              "run (1 scenario missing entirely); 1 matched cell with fewer than "
                              "2 trials on a side"));
    assert_non_null(strstr(s, "tput (tcp_stream, ipv4) 3 → 4: 1.000 Gbit/s (no ok trial in the "
                              "new run, 3 failed; fails the gate)"));
    assert_non_null(strstr(s, "tput (tcp_stream, ipv4) 4 → 3: 1.000 Gbit/s (not in the new "
                              "run; fails the gate)"));
    assert_non_null(strstr(s, "lat (tcp_rr, ipv4) 1 → 2"));
    assert_true(row_has(s, "tput", "4 → 1", "**NOT COMPARED**: too few trials |"));
    free(s);
    assert_int_equal(run("gate-base", "gate-partial", "--allow-partial", NULL), 0);
    s = md();
    assert_non_null(strstr(s, "Gate: passed with --allow-partial: no regression beyond 5.0 % "
                              "among 9 compared cells; not compared: 3 cells"));
    assert_true(row_has(s, "tput", "4 → 1", "| too few trials |"));
    assert_null(strstr(s, "fails the gate"));
    free(s);
    /* a regression is said as such even when the comparison is incomplete too */
    assert_int_equal(run("gate-base", "gate-partial", "--max-regression", "2", NULL), 1);
    /* the complete pair passes without --allow-partial */
    assert_int_equal(run("gate-base", "gate-new", NULL), 0);
}

/* A sweep is compared value by value: a cell is scenario x family x zone pair x value. The new
 * run's 1K is 30 % worse (a regression of that value alone), 64 and 64K are the same; a run
 * that swept other values matches on the values both have, and says which are missing. */
static void
test_sweep_by_value(void **state)
{
    (void)state;
    assert_int_equal(run("sweep-base", "sweep-new", NULL), 1);
    char *s = md();
    assert_true(row_has(s, "tput msg_size 1K", "1 → 2", "**REGRESSION**: worse |"));
    assert_true(row_has(s, "tput msg_size 1K", "1 → 2", "-30.0 %"));
    assert_true(row_has(s, "tput msg_size 64", "1 → 2", "+0.0 %"));
    assert_false(row_has(s, "tput msg_size 64", "1 → 2", "REGRESSION"));
    assert_true(row_has(s, "tput msg_size 64K", "1 → 2", "+0.0 %"));
    assert_non_null(strstr(s, "3 matched cells"));
    free(s);
    /* the values both runs have are compared; the others are said, never pooled */
    assert_int_equal(run("sweep-base", "sweep-other", NULL), 5);
    assert_int_equal(run("sweep-base", "sweep-other", "--allow-partial", NULL), 0);
    s = md();
    assert_non_null(strstr(s, "1 matched cell"));
    assert_true(row_has(s, "tput msg_size 64", "1 → 2", "| no significant change |"));
    assert_null(row(s, "tput msg_size 1K", "1 → 2"));
    assert_non_null(strstr(s, "only in the baseline: tput msg_size 1K (tcp_stream, ipv4) 1 → 2"));
    assert_non_null(strstr(s, "only in the baseline: tput msg_size 64K (tcp_stream, ipv4) 1 → 2"));
    assert_non_null(strstr(s, "only in the new run: tput msg_size 16K (tcp_stream, ipv4) 1 → 2"));
    assert_non_null(strstr(s, "(scenario not in the new run (it has tput msg_size 64 as "
                              "tcp_stream, ipv4)"));
    free(s);
}

/* Holm by default; none finds the marginal 1->2 "worse" that Holm and Bonferroni do not. */
static void
test_corrections(void **state)
{
    (void)state;
    assert_int_equal(run("gate-base", "gate-new", NULL), 0);
    char *s = md();
    assert_true(
        row_has(s, "tput", "1 → 2", "| -6.0 % | 0.0213 | 0.2344 | no significant change |"));
    assert_true(row_has(s, "tput", "1 → 3", "| worse |")); /* clear, but 3 % < 5 % */
    assert_true(row_has(s, "tput", "1 → 4", "| better |"));
    assert_non_null(strstr(s, "13 compared cells (correction: Holm-Bonferroni)"));
    free(s);
    assert_int_equal(run("gate-base", "gate-new", "--correction", "none", NULL), 1);
    s = md();
    assert_true(row_has(s, "tput", "1 → 2", "| 0.0213 | 0.0213 | **REGRESSION**: worse |"));
    assert_non_null(strstr(s, "(correction: none)"));
    free(s);
    assert_int_equal(run("gate-base", "gate-new", "--correction", "bonferroni", NULL), 0);
    s = md();
    assert_true(row_has(s, "tput", "1 → 2", "| 0.0213 | 0.2771 | no significant change |"));
    free(s);
}

/* --min-effect: smaller changes are never worse (or better), and equivalence is shown where the
 * data supports it; --max-regression still decides which worse cells fail. */
static void
test_min_effect_and_equivalence(void **state)
{
    (void)state;
    assert_int_equal(run("gate-base", "gate-new", "--max-regression", "2", NULL), 1);
    char *s = md();
    assert_true(row_has(s, "tput", "1 → 3", "**REGRESSION**: worse |"));
    assert_null(strstr(s, "equiv. p")); /* no margin, no equivalence column */
    free(s);
    assert_int_equal(
        run("gate-base", "gate-new", "--max-regression", "2", "--min-effect", "4", NULL), 0);
    s = md();
    assert_non_null(strstr(s, "| p adj. | equiv. p | verdict |"));
    assert_true(row_has(s, "tput", "1 → 3", "| same within ±4.0 % |"));    /* -3 %, tight */
    assert_true(row_has(s, "tput", "1 → 4", "| same within ±4.0 % |"));    /* +1 %, tight */
    assert_true(row_has(s, "tput", "3 → 4", "| same within ±4.0 % |"));    /* unchanged */
    assert_true(row_has(s, "tput", "2 → 1", "| no significant change |")); /* too noisy */
    assert_true(row_has(s, "tput", "1 → 2", "| no significant change |"));
    assert_non_null(strstr(s, "a change smaller than 4.0 % is never worse or better"));
    free(s);
    /* at 2.5 %, the tight -3 % is worse again, the +1 % still the same */
    assert_int_equal(
        run("gate-base", "gate-new", "--max-regression", "2", "--min-effect", "2.5", NULL), 1);
    s = md();
    assert_true(row_has(s, "tput", "1 → 3", "**REGRESSION**: worse |"));
    assert_true(row_has(s, "tput", "1 → 4", "| same within ±2.5 % |"));
    free(s);
    /* a significant change below min-effect that equivalence cannot cover: the 6 % of 1->2,
     * uncorrected, at min-effect 7 (margin 70 Mbit/s, its own spread too wide) */
    assert_int_equal(
        run("gate-base", "gate-new", "--correction", "none", "--min-effect", "7", NULL), 0);
    s = md();
    assert_true(row_has(s, "tput", "1 → 2", "| below min-effect, not shown equivalent |"));
    free(s);
}

static void
test_output_folder(void **state)
{
    (void)state;
    char sub[8192];
    snprintf(sub, sizeof sub, "%s/not/yet/there", out);
    char *argv[] = {A("compare"), A("gate-base"), A("gate-new"), A("-o"), sub, NULL};
    assert_int_equal(cli_compare.main(5, argv), 0); /* created, not exit 3 */
    char p[8300];
    snprintf(p, sizeof p, "%s/compare.html", sub);
    assert_int_equal(access(p, R_OK), 0);
    /* a folder that cannot be made: an output error, 4, not a journal error */
    snprintf(p, sizeof p, "%s/compare.md/below", out);
    char *bad[] = {A("compare"), A("gate-base"), A("gate-new"), A("-o"), p, NULL};
    assert_int_equal(cli_compare.main(5, bad), 4);
    snprintf(p, sizeof p, "%s/compare.md/x.xml", out);
    assert_int_equal(run("gate-base", "gate-new", "--junit", p, NULL), 4);
}

/* The gate-new journal copied into a directory of its own, run.json planning more trials of
 * its tput scenario than it holds (45 of which 36 recorded): an incomplete run. */
static char *
incomplete_copy(void)
{
    char *dir = th_tempdir("cmp-incomplete");
    assert_non_null(dir);
    char *results = th_read("gate-new/results.jsonl", NULL);
    char *run = th_read("gate-new/run.json", NULL);
    assert_non_null(results);
    assert_non_null(run);
    char *at = strstr(run, "\"planned\": 36");
    assert_non_null(at);
    memcpy(at, "\"planned\": 45", 13);
    assert_int_equal(th_write(dir, "results.jsonl", results), 0);
    assert_int_equal(th_write(dir, "run.json", run), 0);
    free(results);
    free(run);
    return dir;
}

static bool
has(const char *text, const char *what)
{
    if (strstr(text, what) != NULL)
        return true;
    print_error("lacks: %s\n", what);
    return false;
}

/* Each side's runs with their state and trials planned / ok / failed / not run; a side that is
 * incomplete is said above the table (and in the short summary), even when the gate passes. */
static void
test_completeness_stated(void **state)
{
    (void)state;
    assert_int_equal(run("gate-base", "gate-new", NULL), 0);
    char *s = md();
    assert_true(has(s, "- Baseline: gate-base (run 20261202T150000Z-base, started "
                       "2026-11-30T15:00:00.000Z; state complete; trials: 39 planned: 39 ok, 0 "
                       "failed, 0 not run)\n"));
    assert_true(has(s, "- New: gate-new (run 20261202T150000Z-new, started "
                       "2026-11-30T15:00:00.000Z; state complete; trials: 39 planned: 39 ok, 0 "
                       "failed, 0 not run)\n"));
    assert_null(strstr(s, "incomplete"));
    free(s);
    char *dir = incomplete_copy();
    char summary[8192];
    snprintf(summary, sizeof summary, "%s/summary.md", out);
    int rc = run("gate-base", dir, "--markdown-summary", summary, NULL);
    if (rc != 0)
        fail_msg("exit %d", rc);
    s = md();
    char want[8192];
    snprintf(want, sizeof want,
             "**The new run (%s) is incomplete: 9 of its 48 planned trials were not run, and its "
             "cells compare the 39 recorded.**\n",
             dir);
    assert_true(has(s, want));
    assert_true(has(s, "; state complete; trials: 48 planned: 39 ok, 0 failed, 9 not run)\n"));
    assert_true(has(s, "(incomplete: 9 of 48 planned trials not run) against gate\n"));
    free(s);
    char *sm = th_read(summary, NULL);
    assert_non_null(sm);
    assert_true(has(sm, want));
    free(sm);
    char html[8192];
    snprintf(html, sizeof html, "%s/compare.html", out);
    char *h = th_read(html, NULL);
    assert_non_null(h);
    assert_true(has(h, "<p class=\"note\"><b>The new run ("));
    free(h);
    /* the baseline's side too */
    assert_int_equal(run(dir, "gate-new", NULL), 0);
    s = md();
    snprintf(want, sizeof want, "**The baseline run (%s) is incomplete: 9 of its 48", dir);
    assert_true(has(s, want));
    free(s);
    /* a run whose netsurvey still holds its directory */
    char lock[8192];
    snprintf(lock, sizeof lock, "%s/.lock", dir);
    int fd = open(lock, O_RDWR | O_CREAT, 0644);
    assert_true(fd >= 0);
    char pid[32];
    snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
    assert_int_equal(write(fd, pid, strlen(pid)), (ssize_t)strlen(pid));
    assert_int_equal(flock(fd, LOCK_EX), 0);
    assert_int_equal(run("gate-base", dir, NULL), 0);
    close(fd);
    s = md();
    snprintf(want, sizeof want,
             "**The new run (%s) is still in progress: 39 of its 48 planned trials are recorded "
             "so far, and its cells compare those.**\n",
             dir);
    assert_true(has(s, want));
    assert_true(has(s, "; state in progress; trials: 48 planned: 39 ok, 0 failed, 9 not run)\n"));
    free(s);
    th_rmtree(dir);
    free(dir);
}

static void
test_usage_and_errors(void **state)
{
    (void)state;
    char *one[] = {A("compare"), A("compare-base"), NULL};
    assert_int_equal(cli_compare.main(2, one), 2);
    char *bad[] = {A("compare"), A("a"), A("b"), A("--max-regression"), A("lots"), NULL};
    assert_int_equal(cli_compare.main(5, bad), 2);
    char *neg[] = {A("compare"), A("a"), A("b"), A("--min-effect"), A("-1"), NULL};
    assert_int_equal(cli_compare.main(5, neg), 2);
    char *corr[] = {A("compare"), A("a"), A("b"), A("--correction"), A("sidak"), NULL};
    assert_int_equal(cli_compare.main(5, corr), 2);
    char *missing[] = {A("compare"), A("compare-base"), A("no-such-dir"), A("-o"), out, NULL};
    assert_int_equal(cli_compare.main(5, missing), 3); /* not 1: no regression was seen */
}

int
main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_verdicts),
                                       cmocka_unit_test(test_gate_threshold),
                                       cmocka_unit_test(test_same_run_passes),
                                       cmocka_unit_test(test_nothing_matched),
                                       cmocka_unit_test(test_partial),
        cmocka_unit_test(test_sweep_by_value),
                                       cmocka_unit_test(test_corrections),
                                       cmocka_unit_test(test_min_effect_and_equivalence),
                                       cmocka_unit_test(test_output_folder),
                                       cmocka_unit_test(test_completeness_stated),
                                       cmocka_unit_test(test_usage_and_errors)};
    return cmocka_run_group_tests(tests, setup, teardown);
}
