/* test_golden.c - the outputs of fixed journals (tests/fixtures/journals) against golden files
 * (tests/golden/report/<case>/), rendered without gnuplot so that they do not depend on its
 * version: a run with failures, a resumed trial, a missing cell and a same-zone diagonal
 * (basic), hostile names (hostile), two runs merged into zone and region matrices (multi) and
 * two runs of one plan pooled (pooled), both merged with --same-hosts (their hosts are one).
 * NS_UPDATE_GOLDEN=1 rewrites the golden files instead of comparing.
 * Also: two renders of the same journal, charts included, are byte-identical; gnuplot missing
 * or failing is said in the report. */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>
#include <math.h>
#include <cmocka.h>

#include "common/errors.h"
#include "report/report.h"

#include "helpers.h"

static char journals[4096];

static int
setup(void **state)
{
    (void)state;
    snprintf(journals, sizeof journals, "%s/tests/fixtures/journals", th_srcdir());
    /* dirs are given relative to the fixtures, so the outputs name them the same everywhere */
    return chdir(journals);
}

static struct report_result last; /* of the last render */
static bool same_hosts;           /* the renders' --same-hosts */

static void
render(const char *const *dirs, int n, const char *out)
{
    struct err e = {0};
    int rc = report_render(
        &(struct report_opts){
            .dirs = dirs, .ndirs = n, .out = out, .result = &last, .same_hosts = same_hosts},
        &e);
    if (rc != 0)
        fail_msg("render: %s", e.msg);
}

/* The case's outputs against its golden files; min_gp: chart scripts it must leave. */
static void
check_case_charts(const char *name, const char *const *dirs, int n, int min_gp)
{
    char *out = th_tempdir(name);
    assert_non_null(out);
    setenv("NETSURVEY_GNUPLOT", "/nonexistent/gnuplot", 1);
    render(dirs, n, out);
    same_hosts = false; /* for this case only, whatever its comparison says */
    unsetenv("NETSURVEY_GNUPLOT");
    char gdir[4096];
    snprintf(gdir, sizeof gdir, "%s/tests/golden/report/%s", th_srcdir(), name);
    bool update = getenv("NS_UPDATE_GOLDEN") != NULL;
    if (update)
        mkdir(gdir, 0755);
    DIR *d = opendir(update ? out : gdir);
    assert_non_null(d);
    struct dirent *de;
    int compared = 0;
    while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.' || !strcmp(de->d_name, "charts"))
            continue;
        char gp[8192], op[8192];
        snprintf(gp, sizeof gp, "%s/%s", gdir, de->d_name);
        snprintf(op, sizeof op, "%s/%s", out, de->d_name);
        size_t gl = 0, ol = 0;
        char *got = th_read(op, &ol);
        assert_non_null(got);
        if (update) {
            FILE *f = fopen(gp, "wb");
            assert_non_null(f);
            fwrite(got, 1, ol, f);
            fclose(f);
        } else {
            char *want = th_read(gp, &gl);
            assert_non_null(want);
            if (gl != ol || memcmp(want, got, gl) != 0)
                fail_msg("%s/%s differs from the golden file %s (NS_UPDATE_GOLDEN=1 rewrites)", out,
                         de->d_name, gp);
            free(want);
        }
        free(got);
        compared++;
    }
    closedir(d);
    assert_true(compared >= 3);
    /* the report says charts were skipped, and left their scripts */
    char p[16384];
    snprintf(p, sizeof p, "%s/report.md", out);
    char *md = th_read(p, NULL);
    assert_true((strstr(md, "Charts were skipped: gnuplot was not found") != NULL) == (min_gp > 0));
    if (min_gp == 0) /* nothing to draw: said, and no charts/ made */
        assert_non_null(strstr(md, "No charts: no trial of this scenario succeeded."));
    free(md);
    snprintf(p, sizeof p, "%s/charts", out);
    DIR *cd = opendir(p);
    if (min_gp == 0) {
        assert_null(cd);
        th_rmtree(out);
        free(out);
        return;
    }
    assert_non_null(cd);
    int gps = 0;
    while ((de = readdir(cd)) != NULL)
        gps += strstr(de->d_name, ".gp") != NULL;
    closedir(cd);
    assert_true(gps >= min_gp);
    th_rmtree(out);
    free(out);
}

static void
check_case(const char *name, const char *const *dirs, int n)
{
    check_case_charts(name, dirs, n, 3);
}

static void
test_golden_basic(void **state)
{
    (void)state;
    const char *dirs[] = {"basic"};
    check_case("basic", dirs, 1);
}

static void
test_golden_hostile(void **state)
{
    (void)state;
    const char *dirs[] = {"hostile"};
    check_case("hostile", dirs, 1);
}

static void
test_golden_multi(void **state)
{
    (void)state;
    const char *dirs[] = {"multi-a", "multi-b"};
    same_hosts = true; /* e1 is in both runs, the same host */
    check_case("multi", dirs, 2);
    assert_false(last.incomplete);
}

/* The kinds of issue 30 (udp_pps, tcp_rr under load, tcp_stream --bidir): each figure beside the
 * headline in a stat matrix of its own, with its unit, in the summary, the CSVs and the reports. */
static void
test_golden_newkinds(void **state)
{
    (void)state;
    const char *dirs[] = {"newkinds"};
    check_case("newkinds", dirs, 1);
}

/* A run stopped part way: its title, summary and reports say how much of it ran, and a
 * complete run (basic, with failures) is not taken for one. */
static void
test_golden_incomplete(void **state)
{
    (void)state;
    const char *dirs[] = {"incomplete"};
    check_case("incomplete", dirs, 1);
    assert_true(last.incomplete);
    assert_false(last.in_progress);
    const char *basic[] = {"basic"};
    check_case("basic", basic, 1);
    assert_false(last.incomplete);
}

/* Two runs of one plan merged: every trial of both is in the cells. */
static void
test_golden_pooled(void **state)
{
    (void)state;
    const char *dirs[] = {"pooled-a", "pooled-b"};
    same_hosts = true; /* a plan surveyed twice on its hosts */
    check_case("pooled", dirs, 2);
    assert_false(last.incomplete);
}

/* The basic run with what its hosts did to some trials (flags: drops, steal and stall,
 * slow_path), and zone1-vm-b's records as a netsurvey of before wrote them (no flags): each
 * flagged trial stays in its cell's figure, is marked and listed with why, and each cell with
 * flagged trials says how many of its judged trials were flagged, by which flag, and its mean
 * without them (the mean of the others, unjudged ones included). */
static void
test_golden_flagged(void **state)
{
    (void)state;
    const char *dirs[] = {"flagged"};
    check_case("flagged", dirs, 1);
    char *out = th_tempdir("flagged-sum");
    setenv("NETSURVEY_GNUPLOT", "/nonexistent/gnuplot", 1);
    render(dirs, 1, out);
    unsetenv("NETSURVEY_GNUPLOT");
    char p[8192];
    snprintf(p, sizeof p, "%s/summary.json", out);
    json_error_t je;
    json_t *sum = json_load_file(p, 0, &je);
    assert_non_null(sum);
    const json_t *lat = json_array_get(json_object_get(sum, "scenarios"), 0);
    assert_string_equal(json_string_value(json_object_get(lat, "name")), "latency");
    /* zone 1 -> 2: zone1-vm -> zone2-vm (judged; trial 3 flagged) and zone1-vm-b -> zone2-vm
     * (unjudged) */
    const json_t *cell = NULL, *c;
    size_t i;
    json_array_foreach(json_object_get(lat, "zone_cells"), i, c)
    {
        if (!strcmp(json_string_value(json_object_get(c, "src_zone")), "1") &&
            !strcmp(json_string_value(json_object_get(c, "dst_zone")), "2"))
            cell = c;
    }
    assert_non_null(cell);
    const json_t *fl = json_object_get(cell, "flagged");
    assert_int_equal(json_integer_value(json_object_get(fl, "trials")), 1);
    assert_int_equal(json_integer_value(json_object_get(fl, "judged")), 3);
    assert_int_equal(json_integer_value(json_object_get(fl, "steal")), 1);
    assert_int_equal(json_integer_value(json_object_get(fl, "stall")), 1);
    assert_null(json_object_get(fl, "drops"));
    double sum_all = 0, flagged = 0;
    int n = 0;
    json_array_foreach(json_object_get(lat, "pairs"), i, c)
    {
        if (strcmp(json_string_value(json_object_get(c, "dst")), "zone2-vm") != 0 ||
            strncmp(json_string_value(json_object_get(c, "src")), "zone1-vm", 8) != 0)
            continue;
        size_t k;
        const json_t *v;
        json_array_foreach(json_object_get(c, "values"), k, v)
        {
            sum_all += json_number_value(v);
            n++;
            if (!strcmp(json_string_value(json_object_get(c, "src")), "zone1-vm") && k == 2)
                flagged = json_number_value(v);
        }
    }
    assert_int_equal(n, 6);
    assert_int_equal(json_integer_value(json_object_get(cell, "n")), 6);
    double without = json_number_value(json_object_get(fl, "mean_without"));
    assert_true(fabs(without - (sum_all - flagged) / 5.0) < 1e-6 * without);
    assert_true(fabs(json_number_value(json_object_get(cell, "mean")) - sum_all / 6.0) <
                1e-6 * without);
    /* udp-loss zone 2 -> 3: every trial flagged drops, no figure without them */
    const json_t *udp = json_array_get(json_object_get(sum, "scenarios"), 3);
    assert_string_equal(json_string_value(json_object_get(udp, "name")), "udp-loss");
    json_array_foreach(json_object_get(udp, "zone_cells"), i, c)
    {
        fl = json_object_get(c, "flagged");
        bool z23 = !strcmp(json_string_value(json_object_get(c, "src_zone")), "2") &&
                   !strcmp(json_string_value(json_object_get(c, "dst_zone")), "3");
        assert_int_equal(json_integer_value(json_object_get(fl, "trials")), z23 ? 2 : 0);
        assert_int_equal(json_is_null(json_object_get(fl, "mean_without")), z23);
    }
    const json_t *ft = json_object_get(udp, "flagged_trials");
    assert_int_equal(json_array_size(ft), 2);
    assert_string_equal(json_string_value(json_object_get(json_array_get(ft, 0), "why")),
                        "drops: sender zone2-vm: qdisc htb dropped 317141, UDP SndbufErrors "
                        "317141");
    json_decref(sum);
    snprintf(p, sizeof p, "%s/report.md", out);
    char *md = th_read(p, NULL);
    assert_non_null(strstr(md, "- zone cell 2 → 3: 2 of 2 trials flagged (drops 2); no trial "
                               "without them\n- trial 1, zone2-vm → zone3-vm: drops: sender "
                               "zone2-vm: qdisc htb dropped 317141"));
    assert_non_null(strstr(md, "5 trials flagged steal, drops, throttled, slow_path or stall"));
    free(md);
    th_rmtree(out);
    free(out);
}

/* Every trial failed: no chart at all, and the report says why. */
static void
test_golden_allfailed(void **state)
{
    (void)state;
    const char *dirs[] = {"allfailed"};
    check_case_charts("allfailed", dirs, 1, 0);
}

/* A sweep: a matrix per value (matrix-tput=64.csv, ...), the sweep's table and its CSV. */
static void
test_golden_sweep(void **state)
{
    (void)state;
    const char *dirs[] = {"sweep-base"};
    check_case("sweep", dirs, 1);
}

/* Every file under a and b, recursively, byte for byte. Returns the number compared. */
static int
same_tree(const char *a, const char *b)
{
    DIR *d = opendir(a);
    assert_non_null(d);
    struct dirent *de;
    int n = 0;
    while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.')
            continue;
        char pa[8192], pb[8192];
        snprintf(pa, sizeof pa, "%s/%s", a, de->d_name);
        snprintf(pb, sizeof pb, "%s/%s", b, de->d_name);
        struct stat st;
        assert_int_equal(stat(pa, &st), 0);
        if (S_ISDIR(st.st_mode)) {
            n += same_tree(pa, pb);
            continue;
        }
        size_t la = 0, lb = 0;
        char *x = th_read(pa, &la), *y = th_read(pb, &lb);
        assert_non_null(x);
        if (y == NULL || la != lb || memcmp(x, y, la) != 0)
            fail_msg("%s and %s differ", pa, pb);
        free(x);
        free(y);
        n++;
    }
    closedir(d);
    return n;
}

static void
test_byte_identical_reruns(void **state)
{
    (void)state;
    const char *dirs[] = {"basic"};
    char *o1 = th_tempdir("rerun1"), *o2 = th_tempdir("rerun2");
    render(dirs, 1, o1);
    render(dirs, 1, o2);
    int n = same_tree(o1, o2);
    assert_true(n >= 8);
    th_rmtree(o1);
    th_rmtree(o2);
    free(o1);
    free(o2);
}

/* The fast journal reader and jansson give the same reports, to the byte. */
static void
test_fast_and_slow_readers_agree(void **state)
{
    (void)state;
    static const char *const cases[][2] = {
        {"basic", NULL},      {"hostile", NULL},        {"multi-a", "multi-b"},
        {"incomplete", NULL}, {"pooled-a", "pooled-b"}, {"allfailed", NULL},
        {"newkinds", NULL},   {"flagged", NULL},        {"sweep-base", NULL}};
    setenv("NETSURVEY_GNUPLOT", "/nonexistent/gnuplot", 1);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *dirs[] = {cases[i][0], cases[i][1]};
        int n = cases[i][1] ? 2 : 1;
        char *o1 = th_tempdir("fast"), *o2 = th_tempdir("slow");
        render(dirs, n, o1);
        setenv("NETSURVEY_JOURNAL_SLOW", "1", 1);
        render(dirs, n, o2);
        unsetenv("NETSURVEY_JOURNAL_SLOW");
        assert_true(same_tree(o1, o2) >= 3);
        th_rmtree(o1);
        th_rmtree(o2);
        free(o1);
        free(o2);
    }
    unsetenv("NETSURVEY_GNUPLOT");
}

static void
test_gnuplot_failing_is_reported(void **state)
{
    (void)state;
    char *tmp = th_tempdir("fakegp");
    assert_int_equal(th_write(tmp, "gnuplot", "#!/bin/sh\nexit 3\n"), 0);
    char gp[8192];
    snprintf(gp, sizeof gp, "%s/gnuplot", tmp);
    chmod(gp, 0755);
    setenv("NETSURVEY_GNUPLOT", gp, 1);
    const char *dirs[] = {"hostile"};
    char out[8192];
    snprintf(out, sizeof out, "%s/out", tmp);
    render(dirs, 1, out);
    unsetenv("NETSURVEY_GNUPLOT");
    char p[16384];
    snprintf(p, sizeof p, "%s/report.html", out);
    char *html = th_read(p, NULL);
    assert_non_null(html);
    assert_non_null(strstr(html, "could not be drawn (gnuplot heatmap-lat_b_.gp: exit status 3)"));
    free(html);
    th_rmtree(tmp);
    free(tmp);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_golden_basic),
                                       cmocka_unit_test(test_golden_hostile),
                                       cmocka_unit_test(test_golden_multi),
                                       cmocka_unit_test(test_golden_incomplete),
                                       cmocka_unit_test(test_golden_pooled),
                                       cmocka_unit_test(test_golden_allfailed),
                                       cmocka_unit_test(test_golden_sweep),
                                       cmocka_unit_test(test_golden_newkinds),
                                       cmocka_unit_test(test_golden_flagged),
                                       cmocka_unit_test(test_byte_identical_reruns),
                                       cmocka_unit_test(test_fast_and_slow_readers_agree),
                                       cmocka_unit_test(test_gnuplot_failing_is_reported)};
    return cmocka_run_group_tests(tests, setup, NULL);
}
