/* test_compare.c - `netsurvey compare` on crafted journals (tests/fixtures/journals):
 * compare-*: latency 1->2 is 22 % worse (significant), 1->3 9 % better, 2->3 unchanged,
 * throughput 0.7 % lower (not significant); 2->1 only in the baseline, 3->1 only in the new run.
 * gate-*: 12 throughput cells of exact trial values (gen_journal.py's GATE_CELLS): 1->2 6 %
 * lower at Welch p 0.021 (worse uncorrected, not after Holm over 13 cells), 1->3 3 % lower and
 * 1->4 1 % higher beyond doubt, 2->1 too noisy to say; gate-partial lacks the latency scenario
 * and three throughput cells (absent, all failed, one ok trial).
 * Verdicts, the corrections, min-effect and equivalence, the gate's exit status (regression,
 * incomplete, nothing compared, --allow-partial), each side's completeness stated, output
 * folders, usage errors; a run compared with itself or a copy, and a scenario run with other
 * parameters, refused (--allow-param-change). The JUnit XML and
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
                              "with too few trials, 0 with failed or not-run trials; 1 "
                              "regression beyond 5.0 % (gate FAILED)"));
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

/* The gate-X journal copied into a directory of its own, each of its files' text passed
 * through edit (NULL: as it is); the caller removes it. */
static char *
fixture_copy(const char *name, void (*edit)(char *text))
{
    char *dir = th_tempdir("cmp-copy");
    assert_non_null(dir);
    static const char *const files[] = {"results.jsonl", "run.json"};
    for (size_t i = 0; i < 2; i++) {
        char p[4096];
        snprintf(p, sizeof p, "%s/%s", name, files[i]);
        char *text = th_read(p, NULL);
        assert_non_null(text);
        if (edit != NULL)
            edit(text);
        assert_int_equal(th_write(dir, files[i], text), 0);
        free(text);
    }
    return dir;
}

static bool
exists(const char *dir, const char *name)
{
    char p[8300];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return access(p, F_OK) == 0;
}

/* A run compared with itself, or with a copy of its directory, would pass every cell: refused
 * (exit 6) before anything is written, as trend and report refuse it. */
static void
test_same_run_refused(void **state)
{
    (void)state;
    th_rmtree(out);
    assert_int_equal(run("compare-base", "compare-base", NULL), CLI_COMPARE_NOT_COMPARABLE);
    assert_false(exists(out, "compare.md"));
    char *copy = fixture_copy("compare-base", NULL);
    assert_int_equal(run("compare-base", copy, NULL), CLI_COMPARE_NOT_COMPARABLE);
    assert_int_equal(run(copy, "compare-base", "--allow-partial", "--allow-param-change", NULL),
                     CLI_COMPARE_NOT_COMPARABLE);
    assert_false(exists(out, "compare.md"));
    assert_false(exists(copy, "compare.md"));
    th_rmtree(copy);
    free(copy);
}

/* tput's messages of 128 KiB become 256 KiB: the scenario ran other parameters */
static void
larger_messages(char *text)
{
    static const char *const keys[] = {"\"msg_size\":131072", "\"msg_size\": 131072"};
    for (size_t i = 0; i < 2; i++)
        for (char *p = text; (p = strstr(p, keys[i])) != NULL; p++)
            memcpy(p + strlen(keys[i]) - 6, "262144", 6);
}

/* A scenario of both runs that ran other parameters is not comparable: refused (exit 6) with
 * each difference named, unless --allow-param-change, which compares it and says so. */
static void
test_param_change(void **state)
{
    (void)state;
    char *dir = fixture_copy("gate-new", larger_messages);
    th_rmtree(out);
    assert_int_equal(run("gate-base", dir, NULL), CLI_COMPARE_NOT_COMPARABLE);
    assert_false(exists(out, "compare.md"));
    assert_int_equal(run("gate-base", dir, "--allow-param-change", NULL), CLI_COMPARE_OK);
    char *s = md();
    assert_non_null(strstr(s, "**Parameters changed** (compared on purpose: "
                              "--allow-param-change): tput (tcp_stream, ipv4): msg_size 131072 → "
                              "262144\n"));
    assert_null(strstr(s, "lat (tcp_rr, ipv4): msg_size")); /* only the scenario that changed */
    free(s);
    th_rmtree(dir);
    free(dir);
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
    assert_non_null(strstr(s, "only in the baseline: latency (tcp_rr, ipv4) 1 → 2: 292.7 µs "
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
    assert_true(row_has(s, "tput", "4 → 1",
                        "**NOT COMPARED**: too few trials (failed or not run: new 2 failed of 3 "
                        "planned) |"));
    assert_non_null(strstr(s, "; 1 matched cell with failed or not-run trials (baseline 0 failed, "
                              "0 not run; new 2 failed, 0 not run)"));
    free(s);
    assert_int_equal(run("gate-base", "gate-partial", "--allow-partial", NULL), 0);
    s = md();
    assert_non_null(strstr(s, "Gate: passed with --allow-partial: no regression beyond 5.0 % "
                              "among 9 compared cells; not compared: 3 cells"));
    assert_true(row_has(s, "tput", "4 → 1",
                        "| too few trials (failed or not run: new 2 failed of 3 planned) |"));
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
    /* a folder that cannot be made: an output error (73, as in every command), not a journal
     * error */
    snprintf(p, sizeof p, "%s/compare.md/below", out);
    char *bad[] = {A("compare"), A("gate-base"), A("gate-new"), A("-o"), p, NULL};
    assert_int_equal(cli_compare.main(5, bad), CLI_COMPARE_OUTPUT);
    snprintf(p, sizeof p, "%s/compare.md/x.xml", out);
    assert_int_equal(run("gate-base", "gate-new", "--junit", p, NULL), CLI_COMPARE_OUTPUT);
}

/* The gate-new journal copied into a directory of its own, run.json planning more trials of
 * its tput scenario than it holds (45 of which 36 recorded): an incomplete run. */
static void
plan_more(char *text)
{
    char *at = strstr(text, "\"planned\": 36");
    if (at != NULL)
        memcpy(at, "\"planned\": 45", 13);
}

static char *
incomplete_copy(const char *name)
{
    char *dir = fixture_copy(name, plan_more);
    char p[8300];
    snprintf(p, sizeof p, "%s/run.json", dir);
    char *run = th_read(p, NULL);
    assert_non_null(strstr(run, "\"planned\": 45"));
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
    char *dir = incomplete_copy("gate-new");
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
    /* the baseline's side too (a copy of gate-base: gate-new's would be the same run) */
    char *bdir = incomplete_copy("gate-base");
    assert_int_equal(run(bdir, "gate-new", NULL), 0);
    s = md();
    snprintf(want, sizeof want, "**The baseline run (%s) is incomplete: 9 of its 48", bdir);
    assert_true(has(s, want));
    free(s);
    th_rmtree(bdir);
    free(bdir);
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

/* No output over a run's own files (--junit B/results.jsonl overwrote B's journal), over
 * another output, or into another run's directory: refused, exit 2, before anything is
 * written. */
static void
test_outputs_never_inputs(void **state)
{
    (void)state;
    char *b = fixture_copy("gate-new", NULL);
    char *c = fixture_copy("compare-base", NULL);
    char journal[8300], runjson[8300], link[8300], s1[8300];
    snprintf(journal, sizeof journal, "%s/results.jsonl", b);
    snprintf(runjson, sizeof runjson, "%s/run.json", b);
    snprintf(link, sizeof link, "%s/j.xml", out);
    char *before = th_read(journal, NULL);
    th_rmtree(out);
    assert_int_equal(mkdir(out, 0755), 0);
    assert_int_equal(symlink(journal, link), 0);
    const char *bad[] = {journal, runjson, link};
    for (size_t i = 0; i < 3; i++) {
        assert_int_equal(run("gate-base", b, "--junit", bad[i], NULL), CLI_COMPARE_USAGE);
        assert_int_equal(run("gate-base", b, "--markdown-summary", bad[i], NULL),
                         CLI_COMPARE_USAGE);
    }
    char *after = th_read(journal, NULL);
    assert_string_equal(before, after);
    free(after);
    assert_false(exists(out, "compare.md"));
    /* two outputs in one file */
    snprintf(s1, sizeof s1, "%s/s.md", out);
    assert_int_equal(run("gate-base", b, "--junit", s1, "--markdown-summary", s1, NULL),
                     CLI_COMPARE_USAGE);
    snprintf(s1, sizeof s1, "%s/compare.md", out);
    assert_int_equal(run("gate-base", b, "--junit", s1, NULL), CLI_COMPARE_USAGE);
    assert_false(exists(out, "compare.md"));
    /* another run's directory as OUT: refused; BASE's or NEW's: written */
    char *argv[] = {A("compare"), A("gate-base"), b, A("-o"), c, NULL};
    assert_int_equal(cli_compare.main(5, argv), CLI_COMPARE_USAGE);
    assert_false(exists(c, "compare.md"));
    char *argv2[] = {A("compare"), A("gate-base"), b, A("-o"), b, NULL};
    assert_int_equal(cli_compare.main(5, argv2), CLI_COMPARE_OK);
    assert_true(exists(b, "compare.md"));
    free(before);
    th_rmtree(b);
    th_rmtree(c);
    free(b);
    free(c);
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
    /* a percentage is decimal digits: strtod alone read 0x10 as 16 */
    static const char *const not_pct[] = {"0x10", "1e1", "inf", " 5", "+5", ".5", "5.", "5%%"};
    for (size_t i = 0; i < sizeof not_pct / sizeof not_pct[0]; i++) {
        char *hex[] = {A("compare"), A("a"), A("b"), A("--max-regression"), A(not_pct[i]), NULL};
        assert_int_equal(cli_compare.main(5, hex), 2);
        char *eff[] = {A("compare"), A("a"), A("b"), A("--min-effect"), A(not_pct[i]), NULL};
        assert_int_equal(cli_compare.main(5, eff), 2);
    }
    char *corr[] = {A("compare"), A("a"), A("b"), A("--correction"), A("sidak"), NULL};
    assert_int_equal(cli_compare.main(5, corr), 2);
    char *missing[] = {A("compare"), A("compare-base"), A("no-such-dir"), A("-o"), out, NULL};
    assert_int_equal(cli_compare.main(5, missing), 3); /* not 1: no regression was seen */
}

/* Issue 30's kinds are cells like the others: a lower packet rate (higher is better) and a higher
 * RTT under load (lower is better) are regressions, --bidir's higher full-duplex sum is better,
 * each said in its unit (newkinds-base against newkinds-worse, gen_journal.py). */
static void
test_new_kinds(void **state)
{
    (void)state;
    assert_int_equal(run("newkinds-base", "newkinds-worse", NULL), 1);
    char *s = md();
    assert_true(row_has(s, "pps", "1 → 2", "**REGRESSION**: worse |"));
    assert_true(row_has(s, "pps", "1 → 2", "pkt/s"));
    assert_true(row_has(s, "rr-load", "1 → 2", "**REGRESSION**: worse |"));
    assert_true(row_has(s, "bidir", "2 → 3", "| better |"));
    assert_true(row_has(s, "bidir", "2 → 3", "Gbit/s"));
    assert_false(row_has(s, "pps", "2 → 3", "REGRESSION"));
    free(s);
    /* the other way round, the full-duplex sum is the regression and the packet rate better */
    assert_int_equal(run("newkinds-worse", "newkinds-base", NULL), 1);
    s = md();
    assert_true(row_has(s, "bidir", "2 → 3", "**REGRESSION**: worse |"));
    assert_true(row_has(s, "pps", "1 → 2", "| better |"));
    free(s);
}

/* The new run's cells whose trials its hosts bent are named with how many, which flags and the
 * figure without them (basic against flagged, the same trials with flags); the baseline's own
 * flags (flagged as the baseline) name nothing. */
static void
test_flagged_new_named(void **state)
{
    (void)state;
    char summary[8192];
    snprintf(summary, sizeof summary, "%s/summary.md", out);
    assert_int_equal(
        run("basic", "flagged", "--allow-partial", "--markdown-summary", summary, NULL), 0);
    char *s = md();
    assert_true(has(s, "- ⚠ the new run's hosts bent trials of udp-loss (udp_stream, ipv4) 2 → 3: "
                       "2 of 2 trials flagged (drops 2); no trial without them\n"));
    assert_true(has(s, "- ⚠ the new run's hosts bent trials of latency (tcp_rr, ipv4) 1 → 2: 1 "
                       "of 6 trials flagged (steal 1, stall 1); 303.3 µs without them\n"));
    size_t n = 0;
    for (const char *p = strstr(s, "- ⚠ the new run's hosts bent"); p != NULL;
         p = strstr(p + 1, "- ⚠ the new run's hosts bent"))
        n++;
    assert_int_equal(n, 4);
    free(s);
    char *sm = th_read(summary, NULL);
    assert_non_null(sm);
    assert_true(has(sm, "⚠ 4 cells of the new run hold trials its hosts bent (see compare.md)"));
    free(sm);
    assert_int_equal(run("flagged", "basic", "--allow-partial", NULL), 0);
    s = md();
    assert_null(strstr(s, "hosts bent"));
    free(s);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_verdicts),          cmocka_unit_test(test_new_kinds),
        cmocka_unit_test(test_gate_threshold),    cmocka_unit_test(test_same_run_refused),
        cmocka_unit_test(test_param_change),      cmocka_unit_test(test_nothing_matched),
        cmocka_unit_test(test_partial),           cmocka_unit_test(test_sweep_by_value),
        cmocka_unit_test(test_corrections),       cmocka_unit_test(test_min_effect_and_equivalence),
        cmocka_unit_test(test_output_folder),     cmocka_unit_test(test_completeness_stated),
        cmocka_unit_test(test_flagged_new_named), cmocka_unit_test(test_outputs_never_inputs),
        cmocka_unit_test(test_usage_and_errors)};
    return cmocka_run_group_tests(tests, setup, teardown);
}
