/* test_trend.c - `netsurvey trend` on crafted journals (tests/fixtures/journals, made by
 * gen_journal.py's fixture_trend and fixture_trend_hostile):
 *   trend-a..d   plan westus3-zones a week apart; latency 1->2 steps up 15 % at trend-c (run
 *                20261115T150000Z-t003) and stays; throughput 1->2 rises 20 % (better);
 *                latency 3->2 has one ok trial in trend-a; trend-b lacks throughput 2->1
 *   trend-other  plan other-plan, started between trend-c and trend-d, zones 1 and 2 only,
 *                sharing latency, with a scenario of its own (bulk)
 *   trend-hostile-1/2  plan, run ids, scenario and zones full of markup and quotes
 * and a copy of trend-c made a run stopped part way (run.json version 2), then held by a lock.
 * Golden outputs (tests/golden/trend/<case>/, NS_UPDATE_GOLDEN=1 rewrites them), the CSV against
 * each run's own matrix CSV, the flag on the right run and on the bad side only, time order
 * whatever the order given, child readers and in-process reading giving the same bytes, two
 * renders byte-identical (charts included), gnuplot running the scripts, the listing of what
 * runs of another plan do not share, incomplete and running runs marked, every exit status. */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "cli/cli.h"
#include "common/errors.h"
#include "history/cells.h"
#include "history/history.h"
#include "history/trendint.h"
#include "report/output.h"
#include "report/report.h"

#include "report/helpers.h"

#define A(s) ((char *)(uintptr_t)(s))

/* Given out of time order on purpose: d, a, other, c, b. */
static const char *const basic_dirs[] = {"trend-d", "trend-a", "trend-other", "trend-c", "trend-b"};
static const char *const hostile_dirs[] = {"trend-hostile-2", "trend-hostile-1"};

static int
setup(void **state)
{
    (void)state;
    char j[4096];
    snprintf(j, sizeof j, "%s/tests/fixtures/journals", th_srcdir());
    /* dirs relative to the fixtures, so that the outputs name them the same everywhere; the
     * command's summary on stdout is not what is tested here */
    return chdir(j) != 0 || freopen("/dev/null", "w", stdout) == NULL;
}

static bool
have_gnuplot(void)
{
    return access("/usr/bin/gnuplot", X_OK) == 0 || access("/usr/local/bin/gnuplot", X_OK) == 0;
}

/* history_trend into out; fails the test on an error. */
static void
trend(const char *const *dirs, int n, const char *out, double pct, int jobs,
      struct history_trend_result *r)
{
    struct history_trend_opts o = {
        .dirs = dirs, .ndirs = n, .out = out, .max_regression_pct = pct, .jobs = jobs};
    struct err e = {0};
    int rc = history_trend(&o, r, &e);
    if (rc != 0)
        fail_msg("trend: %s", e.msg);
}

static char *
read_out(const char *out, const char *name)
{
    char p[8192];
    snprintf(p, sizeof p, "%s/%s", out, name);
    char *s = th_read(p, NULL);
    if (s == NULL)
        fail_msg("%s: not written", p);
    return s;
}

/* Every file under a is the same under b (and b has no other): byte for byte. */
static int
same_tree(const char *a, const char *b)
{
    int n = 0;
    for (int pass = 0; pass < 2; pass++) {
        const char *x = pass ? b : a, *y = pass ? a : b;
        DIR *d = opendir(x);
        assert_non_null(d);
        struct dirent *de;
        while ((de = readdir(d)) != NULL) {
            if (de->d_name[0] == '.')
                continue;
            char px[8192], py[8192];
            snprintf(px, sizeof px, "%s/%s", x, de->d_name);
            snprintf(py, sizeof py, "%s/%s", y, de->d_name);
            struct stat st;
            assert_int_equal(stat(px, &st), 0);
            if (S_ISDIR(st.st_mode)) {
                if (pass == 0)
                    n += same_tree(px, py);
                continue;
            }
            size_t lx = 0, ly = 0;
            char *fx = th_read(px, &lx), *fy = th_read(py, &ly);
            if (fy == NULL || lx != ly || memcmp(fx, fy, lx) != 0)
                fail_msg("%s and %s differ", px, py);
            free(fx);
            free(fy);
            n += pass == 0;
        }
        closedir(d);
    }
    return n;
}

/* out against tests/golden/trend/<name>/, every file of both (charts' .svg aside: gnuplot is
 * not run for the golden files). */
static void
check_golden(const char *name, const char *out)
{
    char gdir[4096];
    snprintf(gdir, sizeof gdir, "%s/tests/golden/trend/%s", th_srcdir(), name);
    if (getenv("NS_UPDATE_GOLDEN") != NULL) {
        char cmd[16384];
        snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s' && cp -r '%s'/. '%s'/", gdir, gdir,
                 out, gdir);
        assert_int_equal(system(cmd), 0);
    }
    int n = same_tree(gdir, out);
    assert_true(n >= 5);
}

static void
test_golden_basic(void **state)
{
    (void)state;
    char *out = th_tempdir("trend-basic");
    setenv("NETSURVEY_GNUPLOT", "/nonexistent/gnuplot", 1);
    struct history_trend_result r;
    trend(basic_dirs, 5, out, 5.0, 0, &r);
    unsetenv("NETSURVEY_GNUPLOT");
    assert_int_equal(r.runs, 5);
    assert_int_equal(r.scenarios, 2);
    assert_int_equal(r.cells, 8);
    assert_int_equal(r.not_trended, 1);
    check_golden("basic", out);
    char *md = read_out(out, "trend.md");
    assert_non_null(strstr(md, "Charts were skipped: gnuplot was not found"));
    free(md);
    history_trend_result_release(&r);
    th_rmtree(out);
    free(out);
}

static void
test_golden_hostile(void **state)
{
    (void)state;
    char *out = th_tempdir("trend-hostile");
    setenv("NETSURVEY_GNUPLOT", "/nonexistent/gnuplot", 1);
    struct history_trend_result r;
    trend(hostile_dirs, 2, out, 5.0, 1, &r);
    unsetenv("NETSURVEY_GNUPLOT");
    check_golden("hostile", out);
    char *html = read_out(out, "trend.html"), *md = read_out(out, "trend.md");
    /* no string of the plan reaches either as markup */
    assert_null(strstr(html, "<b>"));
    assert_null(strstr(html, "<i>"));
    assert_null(strstr(html, "<z2>"));
    assert_null(strstr(md, "<b>"));
    assert_null(strstr(md, "<z2>"));
    assert_non_null(strstr(html, "lat&lt;b&gt;&#39;`touch pwned`@x|y"));
    /* Markdown: backslashes before markup, never entities (tmpl.c) */
    assert_non_null(strstr(md, "lat\\<b\\>'\\`touch pwned\\`@x\\|y"));
    /* the chart script: every plan string single-quoted, its quotes doubled */
    char *gp = read_out(out, "charts/trend-lat_b___touch_pwned__x_y.gp");
    assert_non_null(strstr(gp, "set title 'lat<b>''`touch pwned`@x|y: "));
    assert_non_null(strstr(gp, "'#1 20261101T150000Z-''`id`|<x>,\"y\"' 0"));
    assert_non_null(strstr(gp, "title 'a&b → \"q,1\" <z2>'"));
    assert_null(strstr(gp, "\"lat<b>"));
    free(gp);
    free(html);
    free(md);
    history_trend_result_release(&r);
    th_rmtree(out);
    free(out);
}

/* Field i (0-based) of a CSV line without quotes, into b; false past the last. */
static bool
csv_plain_field(const char *line, int i, char *b, size_t len)
{
    for (; i > 0; i--) {
        line = strchr(line, ',');
        if (line == NULL)
            return false;
        line++;
    }
    size_t n = strcspn(line, ",\n");
    if (n >= len)
        return false;
    memcpy(b, line, n);
    b[n] = '\0';
    return true;
}

/* The line of a CSV file that starts with prefix. */
static const char *
csv_line(const char *csv, const char *prefix)
{
    for (const char *p = csv; p != NULL && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
        if (strncmp(p, prefix, strlen(prefix)) == 0)
            return p;
    fail_msg("no line '%s' in\n%s", prefix, csv);
    return NULL;
}

/* A run's own matrix-<scenario>.csv value of src -> dst, as `netsurvey report` writes it. */
static void
matrix_value(const char *dir, const char *scen, const char *src, const char *dst, char *b,
             size_t len)
{
    char *out = th_tempdir("trend-matrix");
    struct err e = {0};
    const char *dirs[] = {dir};
    setenv("NETSURVEY_GNUPLOT", "/nonexistent/gnuplot", 1);
    assert_int_equal(report_render(&(struct report_opts){.dirs = dirs, .ndirs = 1, .out = out}, &e),
                     0);
    unsetenv("NETSURVEY_GNUPLOT");
    char name[256];
    snprintf(name, sizeof name, "matrix-%s.csv", scen);
    char *csv = read_out(out, name);
    /* header "src\dst,1,2,3": the column of dst */
    int col = -1;
    char f[64];
    for (int i = 1; csv_plain_field(csv, i, f, sizeof f) && strchr(f, '\n') == NULL; i++)
        if (strcmp(f, dst) == 0) {
            col = i;
            break;
        }
    assert_true(col > 0);
    char pfx[64];
    snprintf(pfx, sizeof pfx, "\n%s,", src);
    const char *row = strstr(csv, pfx);
    assert_non_null(row);
    assert_true(csv_plain_field(row + 1, col, b, len));
    free(csv);
    th_rmtree(out);
    free(out);
}

static void
test_csv_is_each_runs_matrix(void **state)
{
    (void)state;
    char *out = th_tempdir("trend-csv");
    setenv("NETSURVEY_GNUPLOT", "/nonexistent/gnuplot", 1);
    struct history_trend_result r;
    trend(basic_dirs, 5, out, 5.0, 0, &r);
    unsetenv("NETSURVEY_GNUPLOT");
    char *lat = read_out(out, "trend-latency.csv"), *tput = read_out(out, "trend-throughput.csv");
    /* oldest first, whatever the order given; headed by run_id; only runs that have it */
    assert_true(strncmp(lat,
                        "scenario,src,dst,20261101T150000Z-t001,20261108T150000Z-t002,"
                        "20261115T150000Z-t003,20261118T090000Z-o001,20261122T150000Z-t004\n",
                        strlen("scenario,src,dst,20261101T150000Z-t001,20261108T150000Z-t002,"
                               "20261115T150000Z-t003,20261118T090000Z-o001,"
                               "20261122T150000Z-t004\n")) == 0);
    assert_true(strncmp(tput,
                        "scenario,src,dst,20261101T150000Z-t001,20261108T150000Z-t002,"
                        "20261115T150000Z-t003,20261122T150000Z-t004\n",
                        strlen("scenario,src,dst,20261101T150000Z-t001,20261108T150000Z-t002,"
                               "20261115T150000Z-t003,20261122T150000Z-t004\n")) == 0);
    /* rows in zone order; a cell the run lacks is empty (trend-other has no zone 3, trend-b no
     * throughput 2->1) */
    static const char *const rows[] = {"latency,1,2,", "latency,1,3,", "latency,2,1,",
                                       "latency,2,3,", "latency,3,1,", "latency,3,2,"};
    const char *p = lat;
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        p = strchr(p, '\n') + 1;
        assert_true(strncmp(p, rows[i], strlen(rows[i])) == 0);
    }
    assert_null(strchr(strchr(p, '\n') + 1, '\n'));
    char f[64];
    assert_true(csv_plain_field(csv_line(lat, "latency,1,3,"), 6, f, sizeof f));
    assert_string_equal(f, "");
    assert_true(csv_plain_field(csv_line(tput, "throughput,2,1,"), 4, f, sizeof f));
    assert_string_equal(f, "");
    /* every value is the one the run's own report puts in its matrix */
    static const char *const order[] = {"trend-a", "trend-b", "trend-c", "trend-other", "trend-d"};
    static const char *const cells[][2] = {{"1", "2"}, {"2", "1"}, {"3", "2"}};
    for (size_t c = 0; c < 3; c++) {
        char pfx[64];
        snprintf(pfx, sizeof pfx, "latency,%s,%s,", cells[c][0], cells[c][1]);
        const char *line = csv_line(lat, pfx);
        for (int k = 0; k < 5; k++) {
            char want[64] = "";
            if (strcmp(order[k], "trend-other") != 0 || strcmp(cells[c][0], "3") != 0)
                matrix_value(order[k], "latency", cells[c][0], cells[c][1], want, sizeof want);
            assert_true(csv_plain_field(line, 3 + k, f, sizeof f));
            assert_string_equal(f, want);
            assert_true(strcmp(order[k], "trend-other") == 0 || strlen(want) > 0);
        }
    }
    char want[64];
    matrix_value("trend-c", "throughput", "1", "2", want, sizeof want);
    assert_true(csv_plain_field(csv_line(tput, "throughput,1,2,"), 5, f, sizeof f));
    assert_string_equal(f, want);
    free(lat);
    free(tput);
    history_trend_result_release(&r);
    th_rmtree(out);
    free(out);
}

static void
test_flag_on_the_right_run(void **state)
{
    (void)state;
    char *out = th_tempdir("trend-flag");
    setenv("NETSURVEY_GNUPLOT", "/nonexistent/gnuplot", 1);
    struct history_trend_result r;
    trend(basic_dirs, 5, out, 5.0, 0, &r);
    assert_int_equal(r.flagged, 1);
    assert_non_null(r.flags);
    /* flagged at trend-c (#3), not at the other plan's run or the last; its baseline trend-a */
    assert_non_null(strstr(r.flags, "latency (tcp_rr, ipv4) 1 → 2: "));
    assert_non_null(strstr(r.flags, "beyond the 95 % CI of run 20261101T150000Z-t001, at run "
                                    "20261115T150000Z-t003; still beyond in the latest run\n"));
    assert_string_equal(strchr(r.flags, '\n'), "\n"); /* that cell alone */
    char *md = read_out(out, "trend.md");
    /* one unit per table, said in its caption */
    assert_non_null(strstr(md, "*latency, mean RTT (µs), ipv4: each run's zone cell"));
    assert_non_null(strstr(md, "| 1 → 2 | 292.0 ± 0.7 | 292.7 ± 1.1 | **⚑ 338.5"));
    assert_non_null(strstr(md, "**left the CI of #1 by 15.7 % at #3; still beyond at #5**"));
    /* 3 -> 2 had one ok trial in trend-a: its baseline is trend-b */
    assert_non_null(strstr(md, "within the CI of #2 + 5.0 % (baseline: the first run with 2 ok "
                               "trials)"));
    free(md);
    history_trend_result_release(&r);
    /* a step of 15.7 % beyond the CI: flagged at 15, not at 16 */
    trend(basic_dirs, 5, out, 15.0, 0, &r);
    assert_int_equal(r.flagged, 1);
    history_trend_result_release(&r);
    trend(basic_dirs, 5, out, 16.0, 0, &r);
    assert_int_equal(r.flagged, 0);
    assert_null(r.flags);
    history_trend_result_release(&r);
    /* throughput up 20 % is better: never flagged, even at 0 */
    trend(basic_dirs, 5, out, 0.0, 0, &r);
    assert_non_null(r.flags);
    assert_null(strstr(r.flags, "throughput (tcp_stream, ipv4) 1 → 2"));
    assert_non_null(strstr(r.flags, "latency (tcp_rr, ipv4) 1 → 2"));
    history_trend_result_release(&r);
    unsetenv("NETSURVEY_GNUPLOT");
    th_rmtree(out);
    free(out);
}

/* A sweep's values are trended value by value: a cell per value (trend-tput=1K.csv ...), the new
 * run's 1K flagged alone; a value that one run alone swept is listed as such. */
static void
test_sweep_by_value(void **state)
{
    (void)state;
    char *out = th_tempdir("trend-sweep");
    setenv("NETSURVEY_GNUPLOT", "/nonexistent/gnuplot", 1);
    static const char *const dirs[] = {"sweep-new", "sweep-base", "sweep-other"};
    struct history_trend_result r;
    trend(dirs, 3, out, 5.0, 0, &r);
    assert_int_equal(r.scenarios, 3); /* 64 (three runs), 1K and 64K (two) */
    assert_int_equal(r.cells, 3);
    assert_int_equal(r.not_trended, 1); /* 16K: sweep-other alone */
    assert_int_equal(r.flagged, 1);
    assert_non_null(strstr(r.flags, "tput msg_size 1K (tcp_stream, ipv4) 1 → 2: "));
    assert_non_null(strstr(r.flags, "% beyond the 95 % CI of run 20261130T150000Z-swp0, at run "
                                    "20261201T150000Z-swp1"));
    assert_string_equal(strchr(r.flags, '\n'), "\n"); /* that cell alone */
    char *csv = read_out(out, "trend-tput=1K.csv");
    assert_non_null(strstr(csv, "tput msg_size 1K,1,2,1000.000,700.000\n"));
    free(csv);
    csv = read_out(out, "trend-tput=64.csv");
    assert_non_null(strstr(csv, "tput msg_size 64,1,2,100.000,100.000,100.000\n"));
    free(csv);
    char *md = read_out(out, "trend.md");
    assert_non_null(strstr(md, "tput msg_size 16K (tcp_stream, ipv4): only in #3"));
    free(md);
    history_trend_result_release(&r);
    unsetenv("NETSURVEY_GNUPLOT");
    th_rmtree(out);
    free(out);
}

/* Issue 30's kinds trend as the others do: the packet rate's drop and the RTT under load's
 * rise flag their cell, --bidir's rise does not. */
static void
test_new_kinds_flagged(void **state)
{
    (void)state;
    char *out = th_tempdir("trend-newkinds");
    setenv("NETSURVEY_GNUPLOT", "/nonexistent/gnuplot", 1);
    static const char *const dirs[] = {"newkinds-worse", "newkinds-base"};
    struct history_trend_result r;
    trend(dirs, 2, out, 5.0, 0, &r);
    assert_int_equal(r.flagged, 2);
    assert_non_null(strstr(r.flags, "pps (udp_pps, ipv4) 1 → 2: "));
    assert_non_null(strstr(r.flags, "rr-load (tcp_rr, ipv4) 1 → 2: "));
    assert_null(strstr(r.flags, "bidir"));
    char *md = read_out(out, "trend.md");
    assert_non_null(strstr(md, "pkt/s"));
    free(md);
    history_trend_result_release(&r);
    unsetenv("NETSURVEY_GNUPLOT");
    th_rmtree(out);
    free(out);
}

static void
test_other_plan_listed(void **state)
{
    (void)state;
    char *out = th_tempdir("trend-plans");
    setenv("NETSURVEY_GNUPLOT", "/nonexistent/gnuplot", 1);
    struct history_trend_result r;
    trend(basic_dirs, 5, out, 5.0, 0, &r);
    unsetenv("NETSURVEY_GNUPLOT");
    char *md = read_out(out, "trend.md");
    assert_non_null(strstr(md, "These runs are of 2 plans"));
    assert_non_null(strstr(md, "- westus3-zones (5e1f"));
    assert_non_null(strstr(md, "): #1–#3, #5\n"));
    assert_non_null(strstr(md, "): #4\n"));
    /* its own scenario listed, never trended; the scenario it lacks says so */
    assert_non_null(strstr(md, "- bulk (udp_stream, ipv4): only in #4 (20261118T090000Z-o001, "
                               "plan other-plan)\n"));
    assert_non_null(strstr(md, "In runs #1–#3, #5 (4 of 5 runs); not in #4 (20261118T090000Z-"
                               "o001, plan other-plan)."));
    assert_non_null(strstr(md, "- 1 → 3: not measured in #4\n"));
    assert_non_null(strstr(md, "- 2 → 1: not measured in #2\n"));
    char p[8192];
    snprintf(p, sizeof p, "%s/trend-bulk.csv", out);
    assert_int_not_equal(access(p, F_OK), 0);
    free(md);
    history_trend_result_release(&r);
    th_rmtree(out);
    free(out);
}

static void
test_order_and_readers_give_the_same_bytes(void **state)
{
    (void)state;
    static const char *const sorted[] = {"trend-a", "trend-b", "trend-c", "trend-other", "trend-d"};
    char *o1 = th_tempdir("trend-o1"), *o2 = th_tempdir("trend-o2"), *o3 = th_tempdir("trend-o3");
    setenv("NETSURVEY_GNUPLOT", "/nonexistent/gnuplot", 1);
    struct history_trend_result r;
    trend(basic_dirs, 5, o1, 5.0, 1, &r); /* in this process */
    history_trend_result_release(&r);
    trend(sorted, 5, o2, 5.0, 4, &r); /* four readers, another order */
    history_trend_result_release(&r);
    trend(basic_dirs, 5, o3, 5.0, 2, &r);
    history_trend_result_release(&r);
    unsetenv("NETSURVEY_GNUPLOT");
    assert_true(same_tree(o1, o2) >= 5);
    assert_true(same_tree(o1, o3) >= 5);
    th_rmtree(o1);
    th_rmtree(o2);
    th_rmtree(o3);
    free(o1);
    free(o2);
    free(o3);
}

/* With gnuplot: every chart drawn and inlined, the hostile script run without running what its
 * strings hold, and two renders byte-identical, charts included. */
static void
test_gnuplot_draws_and_renders_repeat(void **state)
{
    (void)state;
    if (!have_gnuplot())
        skip();
    char *o1 = th_tempdir("trend-gp1"), *o2 = th_tempdir("trend-gp2");
    struct history_trend_result r;
    trend(basic_dirs, 5, o1, 5.0, 0, &r);
    history_trend_result_release(&r);
    trend(basic_dirs, 5, o2, 5.0, 0, &r);
    history_trend_result_release(&r);
    assert_true(same_tree(o1, o2) >= 9);
    char *md = read_out(o1, "trend.md"), *html = read_out(o1, "trend.html");
    assert_null(strstr(md, "Charts were skipped"));
    assert_null(strstr(md, "could not be drawn"));
    assert_non_null(strstr(md, "![trend-latency.svg](charts/trend-latency.svg)\n\n*latency, mean "
                               "RTT (µs), ipv4: each zone cell's mean run by run"));
    assert_non_null(strstr(html, "<img src=\"data:image/svg+xml;base64,"));
    char *svg = read_out(o1, "charts/trend-latency.svg");
    assert_non_null(strstr(svg, "<svg"));
    free(svg);
    free(md);
    free(html);
    char *h = th_tempdir("trend-gph");
    trend(hostile_dirs, 2, h, 5.0, 0, &r);
    history_trend_result_release(&r);
    char *hm = read_out(h, "trend.md");
    assert_null(strstr(hm, "could not be drawn"));
    free(hm);
    char p[8192];
    snprintf(p, sizeof p, "%s/charts/pwned", h);
    assert_int_not_equal(access(p, F_OK), 0);
    assert_int_not_equal(access("pwned", F_OK), 0);
    svg = read_out(h, "charts/trend-lat_b___touch_pwned__x_y.svg");
    /* the title as given, backquotes and @ included (gnuplot escapes < and & only) */
    assert_non_null(strstr(svg, "<text>lat&lt;b>'`touch pwned`@x|y: mean RTT per zone cell"));
    free(svg);
    th_rmtree(o1);
    th_rmtree(o2);
    th_rmtree(h);
    free(o1);
    free(o2);
    free(h);
}

static void
test_gnuplot_failing_is_said(void **state)
{
    (void)state;
    char *tmp = th_tempdir("trend-fakegp");
    assert_int_equal(th_write(tmp, "gnuplot", "#!/bin/sh\nexit 3\n"), 0);
    char gp[8192], out[8192];
    snprintf(gp, sizeof gp, "%s/gnuplot", tmp);
    snprintf(out, sizeof out, "%s/out", tmp);
    chmod(gp, 0755);
    setenv("NETSURVEY_GNUPLOT", gp, 1);
    struct history_trend_result r;
    trend(hostile_dirs, 2, out, 5.0, 0, &r);
    unsetenv("NETSURVEY_GNUPLOT");
    history_trend_result_release(&r);
    char *html = read_out(out, "trend.html");
    assert_non_null(
        strstr(html, "1 chart could not be drawn (gnuplot trend-lat_b___touch_pwned__x_y.gp: exit "
                     "status 3)"));
    free(html);
    th_rmtree(tmp);
    free(tmp);
}

/* netsurvey trend ARGS... (NULL-terminated) */
static int
cli(const char *first, ...)
{
    char *argv[32] = {A("trend")};
    int argc = 1;
    va_list ap;
    va_start(ap, first);
    for (const char *x = first; argc < 31 && x != NULL; x = va_arg(ap, const char *))
        argv[argc++] = A(x);
    va_end(ap);
    argv[argc] = NULL;
    return cli_trend.main(argc, argv);
}

/* A copy of fixture dir in tmp/name, its run.json's "started" replaced when started is set. */
static void
copy_run(const char *dir, const char *tmp, const char *name, const char *started)
{
    char cmd[16384];
    snprintf(cmd, sizeof cmd, "cp -r '%s' '%s/%s'", dir, tmp, name);
    assert_int_equal(system(cmd), 0);
    if (started == NULL)
        return;
    snprintf(cmd, sizeof cmd,
             "sed -i 's/\"started\": \"2026-11-01T15:00:00.000Z\"/\"started\": \"%s\"/' "
             "'%s/%s/run.json' && grep -q '\"started\": \"%s\"' '%s/%s/run.json'",
             started, tmp, name, started, tmp, name);
    assert_int_equal(system(cmd), 0);
}

static void
test_exit_statuses(void **state)
{
    (void)state;
    char *tmp = th_tempdir("trend-exit");
    char out[8192], file[8192], bad[8192], copy[8192], unplaced[8192], local[8192];
    snprintf(out, sizeof out, "%s/out", tmp);
    snprintf(file, sizeof file, "%s/file", tmp);
    snprintf(bad, sizeof bad, "%s/file/out", tmp);
    snprintf(copy, sizeof copy, "%s/copy-a", tmp);
    snprintf(unplaced, sizeof unplaced, "%s/unplaced", tmp);
    snprintf(local, sizeof local, "%s/local", tmp);
    assert_int_equal(th_write(tmp, "file", "x"), 0);
    copy_run("trend-a", tmp, "copy-a", NULL);
    copy_run("trend-a", tmp, "unplaced", "yesterday");
    copy_run("trend-a", tmp, "local", "2026-11-01T15:00:00");
    setenv("NETSURVEY_GNUPLOT", "/nonexistent/gnuplot", 1);
    assert_int_equal(
        cli("trend-d", "trend-a", "trend-other", "trend-c", "trend-b", "-o", out, NULL),
        CLI_TREND_FLAGGED);
    assert_int_equal(
        cli("trend-d", "trend-a", "trend-c", "-o", out, "--max-regression", "50%", NULL),
        CLI_TREND_OK);
    assert_int_equal(cli("trend-a", "trend-b", "-o", out, NULL), CLI_TREND_OK);
    /* usage: one run, a run twice (the same directory, or a copy of it), bad options */
    assert_int_equal(cli("trend-a", "-o", out, NULL), CLI_TREND_USAGE);
    assert_int_equal(cli("trend-a", "trend-a", "-o", out, NULL), CLI_TREND_USAGE);
    assert_int_equal(cli("trend-a", "trend-b", copy, "-o", out, NULL), CLI_TREND_USAGE);
    assert_int_equal(cli("trend-a", "trend-b", "--max-regression", "-1", NULL), CLI_TREND_USAGE);
    assert_int_equal(cli("trend-a", "trend-b", "--max-regression", "5x", NULL), CLI_TREND_USAGE);
    assert_int_equal(cli("trend-a", "trend-b", "--max-regression", "0x10", NULL), CLI_TREND_USAGE);
    assert_int_equal(cli("trend-a", "trend-b", "-j", "0", NULL), CLI_TREND_USAGE);
    assert_int_equal(cli("trend-a", "trend-b", "--frobnicate", NULL), CLI_TREND_USAGE);
    /* a journal not there, or a run that cannot be placed in time */
    assert_int_equal(cli("trend-a", "no-such-run", "-o", out, NULL), CLI_TREND_JOURNAL);
    assert_int_equal(cli("trend-a", unplaced, "-o", out, NULL), CLI_TREND_JOURNAL);
    assert_int_equal(cli("trend-b", local, "-o", out, NULL), CLI_TREND_JOURNAL);
    /* a journal its reader cannot read (results.jsonl a folder): the child's error, or this
     * process's, is the run's */
    char broken[4096], rj[8192];
    snprintf(broken, sizeof broken, "%s/broken", tmp);
    copy_run("trend-b", tmp, "broken", NULL);
    snprintf(rj, sizeof rj, "%s/results.jsonl", broken);
    assert_int_equal(unlink(rj), 0);
    assert_int_equal(mkdir(rj, 0755), 0);
    assert_int_equal(cli("trend-a", broken, "trend-c", "-o", out, "-j", "3", NULL),
                     CLI_TREND_JOURNAL);
    assert_int_equal(cli("trend-a", broken, "trend-c", "-o", out, "-j", "1", NULL),
                     CLI_TREND_JOURNAL);
    /* another run's directory as the output folder: refused, nothing written there; one of the
     * trend's own runs' is fine */
    char tmd[8300];
    snprintf(tmd, sizeof tmd, "%s/trend.md", copy);
    assert_int_equal(cli("trend-b", "trend-c", "-o", copy, NULL), CLI_TREND_USAGE);
    assert_int_not_equal(access(tmd, F_OK), 0);
    assert_int_equal(cli("trend-b", copy, "-o", copy, NULL), CLI_TREND_OK);
    assert_int_equal(access(tmd, F_OK), 0);
    /* an output that cannot be written: a file where the folder would be */
    assert_int_equal(cli("trend-a", "trend-b", "-o", bad, NULL), CLI_TREND_OUTPUT);
    /* nothing shared: written, and said */
    assert_int_equal(cli("trend-other", "trend-hostile-1", "-o", out, NULL), CLI_TREND_NOTHING);
    char *md = read_out(out, "trend.md");
    assert_non_null(strstr(md, "No scenario is shared by two runs or more: nothing to trend."));
    assert_non_null(strstr(md, "- bulk (udp_stream, ipv4): only in #2"));
    free(md);
    /* a flag beats nothing-shared elsewhere: statuses by precedence 2, 3, 73, 1, 6, 5 */
    assert_int_equal(cli("trend-a", "trend-c", "trend-hostile-1", "-o", out, NULL),
                     CLI_TREND_FLAGGED);
    assert_int_equal(cli("trend-a", "trend-c", "no-such-run", "-o", out, NULL), CLI_TREND_JOURNAL);
    assert_int_equal(cli("trend-a", "trend-c", "-o", bad, "-j", "0", NULL), CLI_TREND_USAGE);
    unsetenv("NETSURVEY_GNUPLOT");
    th_rmtree(tmp);
    free(tmp);
}

/* A cell whose newest run has no ok trial (every latency trial 1 -> 2 of a copy of trend-d
 * failed) cannot be placed: listed, and exit 6 however the other cells stand. */
static void
test_newest_run_failed(void **state)
{
    (void)state;
    char *tmp = th_tempdir("trend-newest");
    copy_run("trend-d", tmp, "d", NULL);
    char d[4096], out[8192], cmd[16384];
    snprintf(d, sizeof d, "%s/d", tmp);
    snprintf(out, sizeof out, "%s/out", tmp);
    snprintf(
        cmd, sizeof cmd,
        "sed -i '/\"scenario\":{\"name\":\"latency\"/{/\"src\":{\"host\":\"[^\"]*\",\"zone\":"
        "\"1\",.*\"dst\":{\"host\":\"[^\"]*\",\"zone\":\"2\",/s/\"status\":\"ok\",\"error\":null/"
        "\"status\":\"failed\",\"error\":\"connect timed out\"/}' '%s/results.jsonl' && "
        "test $(grep -c '\"status\":\"failed\"' '%s/results.jsonl') -ge 1",
        d, d);
    assert_int_equal(system(cmd), 0);
    setenv("NETSURVEY_GNUPLOT", "/nonexistent/gnuplot", 1);
    assert_int_equal(cli("trend-a", "trend-b", d, "-o", out, NULL), CLI_TREND_NEWEST_FAILED);
    char *md = read_out(out, "trend.md");
    assert_non_null(strstr(md, "No ok trial in the newest run"));
    assert_non_null(
        strstr(md, "- ✗ latency (tcp_rr, ipv4) 1 → 2: none at #3 (20261122T150000Z-t004): "));
    assert_non_null(strstr(md, "1 cell without an ok trial in its newest run"));
    free(md);
    /* a cell of the newest run that measured is no failure, nor is one an older run lost */
    assert_int_equal(
        cli(d, "trend-a", "trend-b", "trend-c", "--max-regression", "50", "-o", out, NULL),
        CLI_TREND_NEWEST_FAILED);
    assert_int_equal(cli("trend-a", "trend-b", "-o", out, NULL), CLI_TREND_OK);
    /* a flag comes first (2, 3, 73, 1, 6, 5) */
    assert_int_equal(cli("trend-a", "trend-c", d, "-o", out, NULL), CLI_TREND_FLAGGED);
    unsetenv("NETSURVEY_GNUPLOT");
    th_rmtree(tmp);
    free(tmp);
}

static void
test_default_out_is_the_newest_run(void **state)
{
    (void)state;
    char *tmp = th_tempdir("trend-default");
    copy_run("trend-a", tmp, "a", NULL);
    copy_run("trend-c", tmp, "c", NULL);
    copy_run("trend-b", tmp, "b", NULL);
    char a[4096], b[4096], c[4096], p[8192];
    snprintf(a, sizeof a, "%s/a", tmp);
    snprintf(b, sizeof b, "%s/b", tmp);
    snprintf(c, sizeof c, "%s/c", tmp);
    setenv("NETSURVEY_GNUPLOT", "/nonexistent/gnuplot", 1);
    assert_int_equal(cli(c, a, b, NULL), CLI_TREND_FLAGGED);
    unsetenv("NETSURVEY_GNUPLOT");
    snprintf(p, sizeof p, "%s/trend.md", c);
    assert_int_equal(access(p, F_OK), 0);
    snprintf(p, sizeof p, "%s/trend.md", b);
    assert_int_not_equal(access(p, F_OK), 0);
    th_rmtree(tmp);
    free(tmp);
}

/* A copy of trend-c as a run stopped part way (run.json version 2 and a state; its planned
 * counts, 30 and 6, are the fixture's own: 3 of its 36 planned trials without a record), in
 * tmp/c. */
static void
interrupted_copy(const char *tmp, char *dir, size_t len)
{
    copy_run("trend-c", tmp, "c", NULL);
    snprintf(dir, len, "%s/c", tmp);
    char cmd[16384];
    snprintf(cmd, sizeof cmd,
             "cd '%s' && sed -i -e 's/\"schema\": \"netsurvey.run\\/1\"/\"schema\": "
             "\"netsurvey.run\\/2\"/' -e 's/^ \"command\": /"
             " \"state\": \"interrupted\", \"command\": /' run.json && "
             "grep -c '\"planned\": \\(30\\|6\\)$' run.json | grep -qx 2 && grep -q '\"state\": "
             "\"interrupted\"' run.json && sed -i 1,3d results.jsonl",
             dir);
    assert_int_equal(system(cmd), 0);
}

static void
test_incomplete_runs_marked(void **state)
{
    (void)state;
    char *tmp = th_tempdir("trend-incomplete");
    char c[4096], out[8192], lock[8192];
    interrupted_copy(tmp, c, sizeof c);
    snprintf(out, sizeof out, "%s/out", tmp);
    const char *dirs[] = {"trend-b", c, "trend-a"};
    setenv("NETSURVEY_GNUPLOT", "/nonexistent/gnuplot", 1);
    struct history_trend_result r;
    trend(dirs, 3, out, 5.0, 0, &r);
    assert_int_equal(r.incomplete, 1);
    assert_int_equal(r.flagged, 1); /* shown, not hidden: its cells still count */
    history_trend_result_release(&r);
    char *md = read_out(out, "trend.md");
    assert_non_null(strstr(md, "| 33 ok, 0 failed | **incomplete (interrupted): 3 of 36 planned "
                               "trials not run** |"));
    assert_non_null(strstr(md, "| src → dst | #1 | #2 | #3 (incomplete) | latest vs first |"));
    /* the complete runs of version 1 say nothing of a state */
    assert_non_null(strstr(md, "| 32 ok, 4 failed | — |"));
    free(md);
    char *gp = read_out(out, "charts/trend-latency.gp");
    assert_non_null(strstr(gp, "'#3 20261115T150000Z-t003 (incomplete)' 2"));
    free(gp);
    /* a run whose `netsurvey run` holds its lock is in progress */
    snprintf(lock, sizeof lock, "%s/.lock", c);
    FILE *lf = fopen(lock, "w");
    assert_non_null(lf);
    assert_int_equal(flock(fileno(lf), LOCK_EX), 0);
    trend(dirs, 3, out, 5.0, 0, &r);
    assert_int_equal(r.incomplete, 1);
    history_trend_result_release(&r);
    fclose(lf);
    md = read_out(out, "trend.md");
    assert_non_null(strstr(md, "**in progress: 33 of 36 planned trials recorded so far**"));
    assert_non_null(strstr(md, "| #3 (in progress) |"));
    free(md);
    unsetenv("NETSURVEY_GNUPLOT");
    th_rmtree(tmp);
    free(tmp);
}

/* What the trend reads of a run (report_cells_read: no histograms, no host pairs) holds the
 * numbers of the run's full summary (report_summary_read, what `netsurvey report` writes):
 * every member of every scenario and every zone cell the same, only the latency percentiles
 * (rtt_us, from the histograms), the pair, failure and region lists and the stat matrices and
 * asymmetry built from them (matrixstat.h) left out. On every
 * fixture journal, multi-region and failed trials included. */
static void
test_cells_are_the_summarys(void **state)
{
    (void)state;
    static const char *const dirs[] = {
        "trend-a",         "trend-b",         "trend-c",      "trend-d", "trend-other",
        "trend-hostile-1", "trend-hostile-2", "basic",        "multi-a", "multi-b",
        "gate-base",       "gate-partial",    "compare-base", "hostile", "flagged"};
    size_t ncells = 0, nrtt = 0, nfailed = 0;
    for (size_t d = 0; d < sizeof dirs / sizeof dirs[0]; d++) {
        report_jarena_begin();
        json_t *full = NULL, *lean = NULL;
        struct err e = {0};
        if (report_summary_read(dirs[d], NULL, &full, &e) != 0 ||
            report_cells_read(dirs[d], NULL, &lean, &e) != 0)
            fail_msg("%s: %s", dirs[d], e.msg);
        assert_true(json_equal(json_object_get(full, "runs"), json_object_get(lean, "runs")));
        assert_true(json_equal(json_object_get(full, "journal"), json_object_get(lean, "journal")));
        assert_true(json_equal(json_object_get(full, "title"), json_object_get(lean, "title")));
        const json_t *fs = json_object_get(full, "scenarios"),
                     *ls = json_object_get(lean, "scenarios");
        assert_true(json_array_size(fs) > 0);
        assert_int_equal(json_array_size(fs), json_array_size(ls));
        for (size_t i = 0; i < json_array_size(fs); i++) {
            json_t *f = json_array_get(fs, i), *l = json_array_get(ls, i);
            const char *k;
            json_t *v;
            json_object_foreach(f, k, v)
            {
                if (!strcmp(k, "pairs") || !strcmp(k, "failures") || !strcmp(k, "region_cells") ||
                    !strcmp(k, "stat_matrices") || !strcmp(k, "asymmetry") ||
                    !strcmp(k, "flagged_trials") || !strcmp(k, "zone_cells"))
                    continue;
                if (!json_equal(v, json_object_get(l, k)))
                    fail_msg("%s: scenario %zu: %s differs", dirs[d], i, k);
            }
            static const char *const left_out[] = {"pairs",         "failures",  "region_cells",
                                                   "stat_matrices", "asymmetry", "flagged_trials"};
            size_t nleft = 0;
            for (size_t q = 0; q < sizeof left_out / sizeof left_out[0]; q++) {
                assert_null(json_object_get(l, left_out[q]));
                nleft += json_object_get(f, left_out[q]) != NULL;
            }
            assert_int_equal(json_object_size(l), json_object_size(f) - nleft);
            const json_t *fc = json_object_get(f, "zone_cells"),
                         *lc = json_object_get(l, "zone_cells");
            assert_int_equal(json_array_size(fc), json_array_size(lc));
            for (size_t c = 0; c < json_array_size(fc); c++) {
                json_t *want = json_deep_copy(json_array_get(fc, c));
                const json_t *got = json_array_get(lc, c);
                nrtt += json_object_del(want, "rtt_us") == 0;
                nfailed += json_integer_value(json_object_get(got, "failed")) > 0;
                assert_null(json_object_get(got, "rtt_us"));
                if (!json_equal(want, got))
                    fail_msg("%s: scenario %zu: zone cell %zu differs", dirs[d], i, c);
                json_decref(want);
                ncells++;
            }
        }
        json_decref(full);
        json_decref(lean);
        report_jarena_end();
    }
    /* the test saw what it is about: many cells, percentiles that went, failures that stayed */
    assert_true(ncells >= 50);
    assert_true(nrtt >= 20);
    assert_true(nfailed >= 1);
}

/* A cell whose newest run holds trials its hosts bent is named with how many, which flags and
 * the figure without them, and its figure in that run is marked; in the older run (the same
 * trials, unflagged) it is not. */
static void
test_bent_cells_named(void **state)
{
    (void)state;
    char *out = th_tempdir("trend-bent");
    setenv("NETSURVEY_GNUPLOT", "/nonexistent/gnuplot", 1);
    struct history_trend_result r;
    const char *dirs[] = {"flagged", "basic"}; /* given out of order: flagged started later */
    trend(dirs, 2, out, 5.0, 0, &r);
    unsetenv("NETSURVEY_GNUPLOT");
    char *md = read_out(out, "trend.md");
    assert_non_null(strstr(md, "- ⚠ udp-loss (udp_stream, ipv4) 2 → 3 at #2 "
                               "(20261201T150000Z-8a1d): 2 of 2 trials flagged (drops 2); no "
                               "trial without them\n"));
    assert_non_null(strstr(md, "- ⚠ latency (tcp_rr, ipv4) 1 → 2 at #2 (20261201T150000Z-8a1d): 1 "
                               "of 6 trials flagged (steal 1, stall 1); 303.3 µs without them\n"));
    assert_non_null(strstr(md, "| 1 → 2 | 304.3 ± 7.8 | 304.3 ± 7.8 ⚠ |"));
    size_t n = 0;
    for (const char *p = strstr(md, "- ⚠ "); p != NULL; p = strstr(p + 1, "- ⚠ "))
        n++;
    assert_int_equal(n, 4);
    free(md);
    history_trend_result_release(&r);
    th_rmtree(out);
    free(out);
}

static void
test_time_parse(void **state)
{
    (void)state;
    int64_t s, s2;
    int32_t ns, ns2;
    assert_true(history_trend_parse_time("1970-01-01T00:00:00Z", &s, &ns));
    assert_int_equal(s, 0);
    assert_int_equal(ns, 0);
    assert_true(history_trend_parse_time("2026-11-30T15:00:00.123Z", &s, &ns));
    assert_int_equal(s, 1796050800);
    assert_int_equal(ns, 123000000);
    assert_true(history_trend_parse_time("2000-02-29T23:59:59.5Z", &s, &ns));
    assert_int_equal(s, 951868799);
    assert_int_equal(ns, 500000000);
    /* an offset: 16:00 at +02:00 came before 15:00 UTC */
    assert_true(history_trend_parse_time("2026-11-01T16:00:00+02:00", &s, &ns));
    assert_true(history_trend_parse_time("2026-11-01T15:00:00Z", &s2, &ns2));
    assert_int_equal(s2 - s, 3600);
    assert_true(history_trend_parse_time("2026-11-01T10:00:00-05:00", &s, &ns));
    assert_int_equal(s, s2);
    static const char *const bad[] = {"",
                                      "yesterday",
                                      "2026-11-01T15:00:00",
                                      "2026-11-01T15:00:00.Z",
                                      "2026-13-01T15:00:00Z",
                                      "2026-11-01T25:00:00Z",
                                      "2026-11-01T15:00:00Zx",
                                      "2026-11-01T15:00:00+2:00",
                                      "2026/11/01T15:00:00Z"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (history_trend_parse_time(bad[i], &s, &ns))
            fail_msg("'%s' read as a time", bad[i]);
}

/* Every template the history module ships renders (balanced sections), and report.css, the
 * report's stylesheet that compare.html and trend.html carry, is found through it too. */
static void
test_history_templates_render(void **state)
{
    (void)state;
    static const char *const names[] = {"compare.md", "compare.html", "compare-summary.md",
                                        "trend.md",   "trend.html",   "report.css"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char *owned;
        const char *t = history_template(names[i], &owned);
        assert_non_null(t);
        json_t *ctx = json_object();
        struct rbuf b;
        report_buf_init(&b);
        struct err e = {0};
        assert_int_equal(report_tmpl_render(t, ctx, TMPL_HTML, &b, &e), 0);
        report_buf_release(&b);
        json_decref(ctx);
        free(owned);
    }
    char *owned;
    assert_null(history_template("nope.md", &owned));
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_golden_basic),
        cmocka_unit_test(test_golden_hostile),
        cmocka_unit_test(test_csv_is_each_runs_matrix),
        cmocka_unit_test(test_flag_on_the_right_run),
        cmocka_unit_test(test_sweep_by_value),
        cmocka_unit_test(test_new_kinds_flagged),
        cmocka_unit_test(test_other_plan_listed),
        cmocka_unit_test(test_order_and_readers_give_the_same_bytes),
        cmocka_unit_test(test_gnuplot_draws_and_renders_repeat),
        cmocka_unit_test(test_gnuplot_failing_is_said),
        cmocka_unit_test(test_exit_statuses),
        cmocka_unit_test(test_newest_run_failed),
        cmocka_unit_test(test_default_out_is_the_newest_run),
        cmocka_unit_test(test_incomplete_runs_marked),
        cmocka_unit_test(test_cells_are_the_summarys),
        cmocka_unit_test(test_bent_cells_named),
        cmocka_unit_test(test_time_parse),
        cmocka_unit_test(test_history_templates_render),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
