/* test_compare.c - `netsurvey compare` on crafted journals (tests/fixtures/journals/compare-*):
 * latency 1->2 is 22 % worse (significant), 1->3 9 % better, 2->3 unchanged, throughput 0.7 %
 * lower (not significant); 2->1 only in the baseline, 3->1 only in the new run. Verdicts, the
 * gate's exit status at several PCT, and usage errors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "cli/cli.h"

#include "helpers.h"

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

static int
compare(const char *pct)
{
    char *argv[8] = {A("compare"), A("compare-base"), A("compare-new"), A("-o"), out, NULL, NULL,
                     NULL};
    int argc = 5;
    if (pct != NULL) {
        argv[argc++] = A("--max-regression");
        argv[argc++] = A(pct);
    }
    return cli_compare.main(argc, argv);
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
    assert_non_null(strstr(s, "only in the baseline: latency (tcp_rr, ipv4) 2 → 1"));
    assert_non_null(strstr(s, "only in the new run: latency (tcp_rr, ipv4) 3 → 1"));
    assert_null(row(s, "latency", "2 → 1")); /* not guessed */
    assert_non_null(strstr(s, "4 matched cells: 1 worse, 1 better, 2 without significant change; "
                              "1 regression beyond 5.0 % (gate FAILED)"));
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
    free(s);
    assert_int_equal(compare("30%"), 0);
}

static void
test_same_run_passes(void **state)
{
    (void)state;
    char *argv[] = {A("compare"), A("compare-base"), A("compare-base"), A("-o"), out, NULL};
    assert_int_equal(cli_compare.main(5, argv), 0);
    char *s = md();
    assert_non_null(strstr(s, "0 worse, 0 better, 5 without significant change"));
    free(s);
}

static void
test_usage_and_errors(void **state)
{
    (void)state;
    char *one[] = {A("compare"), A("compare-base"), NULL};
    assert_int_equal(cli_compare.main(2, one), 2);
    char *bad[] = {A("compare"), A("a"), A("b"), A("--max-regression"), A("lots"), NULL};
    assert_int_equal(cli_compare.main(5, bad), 2);
    char *missing[] = {A("compare"), A("compare-base"), A("no-such-dir"), A("-o"), out, NULL};
    assert_int_equal(cli_compare.main(5, missing), 3); /* not 1: no regression was seen */
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_verdicts), cmocka_unit_test(test_gate_threshold),
        cmocka_unit_test(test_same_run_passes), cmocka_unit_test(test_usage_and_errors)};
    return cmocka_run_group_tests(tests, setup, teardown);
}
