/* test_matrix.c - what a zone cell says beside its mean (issue 19 section 3), on a crafted
 * journal whose answers are known: the p50 and p99 matrices read from the cells' merged
 * histograms (not the average of the trials' percentiles), the minimum matrix of a rate kind,
 * each in summary.json, matrix-<scenario>-<stat>.csv and report.md; the directions' Welch test
 * against p-values computed independently (mpmath, below), flagged only where significant and
 * larger than 5 %; the heat map's colour scale from zero, labelled with range and spread.
 *
 * Zones 1, 2, 3 hold hosts a, b, c. Trial values (us, or Mbit/s for tput):
 *   lat a->b 400 410 420 | b->a 380 385 390   6.5 % apart, p 0.0316: asymmetric
 *   lat a->c 500 501 502 | c->a 490 491 492   2.0 % apart, p 0.000255: significant, too small
 *   lat b->c 300 (3 trials) | c->b none          one direction only
 *   tput a->b 100 110 120 | b->a 100 101 102  8.9 % apart, p 0.259: large, not significant
 *   tput a->c 200 (1 trial) | c->a 3 trials     fewer than 2 trials: not tested
 *   tput b->c 50 50 50 | c->b 60 60 60        no variance: t infinite, p 0, asymmetric
 * The p-values, from Welch's t and df through the regularized incomplete beta function:
 *   from mpmath import mp, mpf, betainc, sqrt   # mp.dps = 30
 *   t = (ma - mb) / sqrt(va/na + vb/nb); df = (va/na + vb/nb)**2 / ((va/na)**2/(na-1) + ...)
 *   p = betainc(df/2, 0.5, 0, df/(df + t*t), regularized=True)
 * gives t 3.87298334621, df 2.94117647059, p 0.0315622316257 (a<->b); t 12.2474487139, df 4,
 * p 0.000255216749442 (a<->c); t 1.55110947198, df 2.0399960004, p 0.258664346695 (tput a<->b).
 *
 * Every lat trial has 1000 samples at one value, but a->b's third: 960 at 330 us and 40 at
 * 2580 us (mean 420). Merged, a->b's 3000 samples have p50 400 us and p99 2580 us (40 > 30 in
 * the tail); the trials' own p50s average 380 us and their p99s 1130 us. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/errors.h"
#include "common/hist.h"
#include "common/histjson.h"
#include "report/report.h"
#include "report/reportint.h"

#include "helpers.h"

static const char run_json[] =
    "{\"schema\":\"netsurvey.run/1\",\"run_id\":\"m1\",\"plan\":{\"name\":\"m\",\"file\":"
    "\"m.yaml\",\"sha256\":\"00\"},\"tool\":{\"netsurvey_version\":\"0.1.0\",\"nsperf_version\":"
    "\"0.1.0\"},\"started\":\"2026-12-01T10:00:00.000Z\",\"command\":\"netsurvey run m.yaml\","
    "\"hosts\":[{\"name\":\"a\",\"zone\":\"1\",\"region\":\"r\",\"data_address\":\"10.0.0.1\"},"
    "{\"name\":\"b\",\"zone\":\"2\",\"region\":\"r\",\"data_address\":\"10.0.0.2\"},"
    "{\"name\":\"c\",\"zone\":\"3\",\"region\":\"r\",\"data_address\":\"10.0.0.3\"}],"
    "\"scenarios\":[{\"name\":\"lat\",\"test\":\"tcp_rr\",\"reverse\":false,\"trials\":3},"
    "{\"name\":\"tput\",\"test\":\"tcp_stream\",\"reverse\":false,\"trials\":3}]}\n";

static const char *const zone_of[] = {"1", "2", "3"}; /* hosts a, b, c */

static void
line(struct rbuf *b, const char *scen, const char *test, int n, char src, char dst,
     const char *result)
{
    report_buf_printf(
        b,
        "{\"schema\":\"netsurvey.trial/1\",\"run_id\":\"m1\",\"scenario\":{\"name\":\"%s\","
        "\"test\":\"%s\",\"reverse\":false},\"trial\":%d,\"family\":\"ipv4\","
        "\"src\":{\"host\":\"%c\",\"zone\":\"%s\",\"region\":\"r\",\"data_address\":\"x\"},"
        "\"dst\":{\"host\":\"%c\",\"zone\":\"%s\",\"region\":\"r\",\"data_address\":\"y\"},"
        "\"status\":\"ok\",\"error\":null,\"result\":%s}\n",
        scen, test, n, src, zone_of[src - 'a'], dst, zone_of[dst - 'a'], result);
}

/* A tcp_rr trial: `n1` samples at v1 us and `n2` at v2 us. */
static void
lat_trial(struct rbuf *b, int n, char src, char dst, int n1, double v1, int n2, double v2)
{
    struct hist h;
    hist_init(&h);
    for (int i = 0; i < n1; i++)
        hist_record(&h, (uint64_t)llround(v1 * 1e3));
    for (int i = 0; i < n2; i++)
        hist_record(&h, (uint64_t)llround(v2 * 1e3));
    json_t *res = json_pack("{s:o,s:f}", "rtt_us", hist_to_rtt_json(&h), "transactions_per_s", 1.0);
    char *rs = json_dumps(res, JSON_COMPACT);
    line(b, "lat", "tcp_rr", n, src, dst, rs);
    free(rs);
    json_decref(res);
}

static void
tput_trial(struct rbuf *b, int n, char src, char dst, double mbps)
{
    char r[96];
    snprintf(r, sizeof r, "{\"throughput_bps\":%.1f}", mbps * 1e6);
    line(b, "tput", "tcp_stream", n, src, dst, r);
}

struct fixture {
    char *dir, *out;
    json_t *sum;
};

static void
write_journal(const char *dir)
{
    struct rbuf b;
    report_buf_init(&b);
    static const double ab[] = {400, 410}, ba[] = {380, 385, 390};
    for (int t = 0; t < 2; t++)
        lat_trial(&b, t + 1, 'a', 'b', 1000, ab[t], 0, 0);
    lat_trial(&b, 3, 'a', 'b', 960, 330, 40, 2580);
    for (int t = 0; t < 3; t++) {
        lat_trial(&b, t + 1, 'b', 'a', 1000, ba[t], 0, 0);
        lat_trial(&b, t + 1, 'a', 'c', 1000, 500 + t, 0, 0);
        lat_trial(&b, t + 1, 'c', 'a', 1000, 490 + t, 0, 0);
        lat_trial(&b, t + 1, 'b', 'c', 1000, 300, 0, 0);
        tput_trial(&b, t + 1, 'a', 'b', 100 + 10 * t);
        tput_trial(&b, t + 1, 'b', 'a', 100 + t);
        tput_trial(&b, t + 1, 'c', 'a', 190 + t);
        tput_trial(&b, t + 1, 'b', 'c', 50);
        tput_trial(&b, t + 1, 'c', 'b', 60);
    }
    tput_trial(&b, 1, 'a', 'c', 200);
    assert_int_equal(th_write(dir, "results.jsonl", b.data), 0);
    report_buf_release(&b);
}

static int
setup(void **state)
{
    struct fixture *f = calloc(1, sizeof *f);
    f->dir = th_tempdir("matrix");
    f->out = th_tempdir("matrix-out");
    assert_non_null(f->dir);
    assert_non_null(f->out);
    assert_int_equal(th_write(f->dir, "run.json", run_json), 0);
    write_journal(f->dir);
    setenv("NETSURVEY_GNUPLOT", "/nonexistent/gnuplot", 1); /* the scripts are written anyway */
    struct err e = {0};
    const char *dirs[] = {f->dir};
    int rc = report_render(&(struct report_opts){.dirs = dirs, .ndirs = 1, .out = f->out}, &e);
    unsetenv("NETSURVEY_GNUPLOT");
    if (rc != 0)
        fail_msg("render: %s", e.msg);
    char p[4096];
    snprintf(p, sizeof p, "%s/summary.json", f->out);
    f->sum = json_load_file(p, 0, NULL);
    assert_non_null(f->sum);
    *state = f;
    return 0;
}

static int
teardown(void **state)
{
    struct fixture *f = *state;
    th_rmtree(f->dir);
    th_rmtree(f->out);
    free(f->dir);
    free(f->out);
    json_decref(f->sum);
    free(f);
    return 0;
}

static const json_t *
scen(const struct fixture *f, const char *name)
{
    size_t i;
    const json_t *s;
    json_array_foreach(json_object_get(f->sum, "scenarios"), i, s)
    {
        if (!strcmp(json_string_value(json_object_get(s, "name")), name))
            return s;
    }
    fail_msg("no scenario %s", name);
    return NULL;
}

static const json_t *
stat_matrix(const json_t *s, const char *stat)
{
    size_t i;
    const json_t *m;
    json_array_foreach(json_object_get(s, "stat_matrices"), i, m)
    {
        if (!strcmp(json_string_value(json_object_get(m, "stat")), stat))
            return m;
    }
    return NULL;
}

/* The stat's value of cell src -> dst; NAN when the matrix has no such cell. */
static double
stat_cell(const json_t *m, const char *src, const char *dst)
{
    size_t i;
    const json_t *c;
    json_array_foreach(json_object_get(m, "cells"), i, c)
    {
        if (!strcmp(json_string_value(json_object_get(c, "src_zone")), src) &&
            !strcmp(json_string_value(json_object_get(c, "dst_zone")), dst))
            return json_number_value(json_object_get(c, "value"));
    }
    return NAN;
}

static double
num(const json_t *o, const char *k)
{
    const json_t *v = json_object_get(o, k);
    if (!json_is_number(v))
        fail_msg("%s is not a number", k);
    return json_number_value(v);
}

static char *
out_file(const struct fixture *f, const char *name)
{
    char p[4096];
    snprintf(p, sizeof p, "%s/%s", f->out, name);
    return th_read(p, NULL);
}

static bool
near(double got, double want, double rel)
{
    return fabs(got - want) <= fabs(want) * rel;
}

static void
test_percentile_matrices_from_merged_histograms(void **state)
{
    struct fixture *f = *state;
    const json_t *lat = scen(f, "lat");
    const json_t *p50 = stat_matrix(lat, "p50"), *p99 = stat_matrix(lat, "p99");
    assert_non_null(p50);
    assert_non_null(p99);
    assert_null(stat_matrix(lat, "min")); /* latency: its minimum trial is not the worst */
    /* exact order statistics of the cell's 3000 samples, within the histogram's resolution */
    assert_true(near(stat_cell(p50, "1", "2"), 400.0, 0.01));
    assert_true(near(stat_cell(p99, "1", "2"), 2580.0, 0.01));
    /* not the trials' percentiles averaged (380 us and 1130 us) */
    assert_false(near(stat_cell(p50, "1", "2"), 380.0, 0.02));
    assert_false(near(stat_cell(p99, "1", "2"), 1130.0, 0.5));
    assert_true(near(stat_cell(p50, "2", "1"), 385.0, 0.01));
    assert_true(near(stat_cell(p99, "1", "3"), 502.0, 0.01));
    assert_true(isnan(stat_cell(p50, "3", "2"))); /* never measured */
    assert_string_equal(json_string_value(json_object_get(p50, "unit")), "us");
    assert_string_equal(json_string_value(json_object_get(p99, "file")), "matrix-lat-p99.csv");
}

static void
test_min_matrix_of_a_rate_kind(void **state)
{
    struct fixture *f = *state;
    const json_t *tput = scen(f, "tput");
    assert_null(stat_matrix(tput, "p50"));
    const json_t *mn = stat_matrix(tput, "min");
    assert_non_null(mn);
    assert_true(fabs(stat_cell(mn, "1", "2") - 100.0) < 1e-9);
    assert_true(fabs(stat_cell(mn, "3", "1") - 190.0) < 1e-9);
    assert_true(fabs(stat_cell(mn, "1", "3") - 200.0) < 1e-9);
    assert_string_equal(json_string_value(json_object_get(mn, "unit")), "Mbit/s");
}

/* The CSV repeats summary.json's values, 3 decimals, empty where nothing was measured, in the
 * summary's machine unit that its corner names. */
static void
test_stat_csvs(void **state)
{
    struct fixture *f = *state;
    char *csv = out_file(f, "matrix-tput-min.csv");
    assert_non_null(csv);
    assert_string_equal(
        csv, "src\\dst (Mbit/s),1,2,3\n1,,100.000,200.000\n2,100.000,,50.000\n3,190.000,60.000,\n");
    free(csv);
    csv = out_file(f, "matrix-lat-p99.csv");
    assert_non_null(csv);
    const json_t *p99 = stat_matrix(scen(f, "lat"), "p99");
    char want[512];
    snprintf(want, sizeof want, "src\\dst (us),1,2,3\n1,,%.3f,%.3f\n2,%.3f,,%.3f\n3,%.3f,,\n",
             stat_cell(p99, "1", "2"), stat_cell(p99, "1", "3"), stat_cell(p99, "2", "1"),
             stat_cell(p99, "2", "3"), stat_cell(p99, "3", "1"));
    assert_string_equal(csv, want);
    free(csv);
    char *none = out_file(f, "matrix-lat-min.csv");
    assert_null(none);
    none = out_file(f, "matrix-tput-p50.csv");
    assert_null(none);
}

static const json_t *
asym_pair(const json_t *s, const char *a, const char *b)
{
    size_t i;
    const json_t *p;
    json_array_foreach(json_object_get(json_object_get(s, "asymmetry"), "pairs"), i, p)
    {
        if (!strcmp(json_string_value(json_object_get(p, "zone_a")), a) &&
            !strcmp(json_string_value(json_object_get(p, "zone_b")), b))
            return p;
    }
    fail_msg("no zone pair %s, %s", a, b);
    return NULL;
}

static void
test_asymmetry_welch(void **state)
{
    struct fixture *f = *state;
    const json_t *lat = scen(f, "lat"), *as = json_object_get(lat, "asymmetry");
    assert_int_equal(json_integer_value(json_object_get(as, "zone_pairs")), 2);
    assert_int_equal(json_integer_value(json_object_get(as, "one_way")), 1);
    assert_int_equal(json_integer_value(json_object_get(as, "tested")), 2);
    assert_int_equal(json_integer_value(json_object_get(as, "asymmetric")), 1);
    const json_t *ab = asym_pair(lat, "1", "2");
    assert_true(near(num(ab, "t"), 3.87298334621, 1e-9));
    assert_true(near(num(ab, "df"), 2.94117647059, 1e-9));
    assert_true(near(num(ab, "p"), 0.0315622316257, 1e-6));
    assert_true(near(num(ab, "diff_pct"), 100.0 * 25.0 / 385.0, 1e-9));
    assert_true(json_is_true(json_object_get(ab, "asymmetric")));
    /* significant, but 2 %: not said */
    const json_t *ac = asym_pair(lat, "1", "3");
    assert_true(near(num(ac, "p"), 0.000255216749442, 1e-6));
    assert_false(json_is_true(json_object_get(ac, "asymmetric")));

    const json_t *tput = scen(f, "tput"), *ts = json_object_get(tput, "asymmetry");
    /* 8.9 % apart, but p 0.26: not said; 1 <-> 3 has one trial a -> c: not tested */
    const json_t *tab = asym_pair(tput, "1", "2");
    assert_true(near(num(tab, "p"), 0.258664346695, 1e-6));
    assert_true(num(tab, "diff_pct") > 5.0);
    assert_false(json_is_true(json_object_get(tab, "asymmetric")));
    const json_t *tac = asym_pair(tput, "1", "3");
    assert_false(json_is_true(json_object_get(tac, "tested")));
    assert_null(json_object_get(tac, "p"));
    /* 2 <-> 3 without variance: p 0, t null in JSON (infinite), and said */
    const json_t *tbc = asym_pair(tput, "2", "3");
    assert_true(json_is_null(json_object_get(tbc, "t")));
    assert_true(num(tbc, "p") == 0.0);
    assert_true(near(num(tbc, "diff_pct"), -20.0, 1e-9));
    assert_true(json_is_true(json_object_get(tbc, "asymmetric")));
    assert_int_equal(json_integer_value(json_object_get(ts, "tested")), 2);
    assert_int_equal(json_integer_value(json_object_get(ts, "asymmetric")), 1);
}

/* report.md says the flagged pair beside the matrix, with p and effect, and nothing of the
 * others; the stat matrices are there, in the cells' units. */
static void
test_report_says_it(void **state)
{
    struct fixture *f = *state;
    char *md = out_file(f, "report.md");
    assert_non_null(md);
    const char *lat = strstr(md, "## Scenario lat:"), *tput = strstr(md, "## Scenario tput:");
    assert_non_null(lat);
    assert_non_null(tput);
    const char *flag = strstr(lat, "- ⇄ 1 → 2 is 6.5 % higher than 2 → 1: 410.0 µs against "
                                   "385.0 µs (means of 3 and 3 trials; Welch t = 3.87, df = 2.9, "
                                   "p = 0.032)");
    assert_non_null(flag);
    assert_true(flag < tput);
    assert_null(strstr(md, "1 → 3 is"));
    assert_null(strstr(md, "3 → 1 is"));
    assert_non_null(strstr(lat, "Asymmetric: 1 of the 2 zone pairs tested"));
    assert_non_null(strstr(lat, "1 zone pair has ok trials in one direction only."));
    assert_non_null(strstr(tput, "Asymmetric: 1 of the 2 zone pairs tested"));
    assert_null(strstr(tput, "1 → 2 is"));
    assert_null(strstr(tput, "2 → 1 is"));
    assert_non_null(strstr(tput, "- ⇄ 3 → 2 is 20.0 % higher than 2 → 3: 60.00 Mbit/s against "
                                 "50.00 Mbit/s (means of 3 and 3 trials; no variation within "
                                 "either direction, p = 0)"));
    assert_non_null(strstr(tput, "1 zone pair with fewer than 2 ok trials in a direction could "
                                 "not be tested: 1 ↔ 3."));
    /* each matrix in one unit, chosen for its cells, named in its caption */
    assert_non_null(strstr(lat, "### Median latency (p50) matrix\n\n*lat, median RTT (p50) (µs), "
                                "ipv4; src requests, dst responds.*"));
    assert_non_null(strstr(lat, "### p99 latency matrix\n\n*lat, p99 RTT (µs), ipv4;"));
    assert_non_null(strstr(tput, "### Minimum (worst trial) matrix\n\n*tput, worst trial's "
                                 "throughput (Mbit/s), ipv4; data flows src → dst.*"));
    assert_non_null(strstr(tput, "| **3** | 190.0 | 60.0 | — |"));
    char *html = out_file(f, "report.html");
    assert_non_null(html);
    assert_non_null(strstr(html, "<li><span class=\"flag\">⇄</span> 1 → 2 is 6.5 % higher"));
    assert_non_null(strstr(html, "<h3>p99 latency matrix</h3>"));
    free(html);
    free(md);
}

/* The heat map's colours start at zero and its caption says the range and spread. */
static void
test_heatmap_scale_from_zero(void **state)
{
    struct fixture *f = *state;
    char *gp = out_file(f, "charts/heatmap-lat.gp");
    assert_non_null(gp);
    /* cells 300 us (2 -> 3) to 501 us (1 -> 3): (501 - 300) / 300 = 67.0 % */
    assert_non_null(strstr(gp, "\nset cbrange [0:501]\n"));
    assert_non_null(strstr(gp, "\nset cblabel 'mean RTT (µs)'\n"));
    /* the caption, at the script's head */
    assert_non_null(strstr(gp, "cells 300.0 to 501.0 µs (highest 67.0 % above lowest)"));
    free(gp);
}

/* Scenarios whose files would share names: lat's p99 and region matrices and the own matrices
 * of scenarios lat-p99 and lat-regions; "a b" and "a_b", one key once sanitized. Each gets its
 * own files: the first keeps its key, a later one "-2" and a note. */
static const char clash_run_json[] =
    "{\"schema\":\"netsurvey.run/1\",\"run_id\":\"m1\",\"plan\":{\"name\":\"m\",\"file\":"
    "\"m.yaml\",\"sha256\":\"00\"},\"tool\":{\"netsurvey_version\":\"0.1.0\",\"nsperf_version\":"
    "\"0.1.0\"},\"started\":\"2026-12-01T10:00:00.000Z\",\"command\":\"netsurvey run m.yaml\","
    "\"hosts\":[{\"name\":\"a\",\"zone\":\"1\",\"region\":\"r\",\"data_address\":\"10.0.0.1\"},"
    "{\"name\":\"b\",\"zone\":\"2\",\"region\":\"s\",\"data_address\":\"10.0.0.2\"}],"
    "\"scenarios\":[{\"name\":\"lat\",\"test\":\"tcp_rr\",\"reverse\":false,\"trials\":1},"
    "{\"name\":\"lat-p99\",\"test\":\"tcp_stream\",\"reverse\":false,\"trials\":1},"
    "{\"name\":\"lat-regions\",\"test\":\"tcp_stream\",\"reverse\":false,\"trials\":1},"
    "{\"name\":\"a b\",\"test\":\"tcp_stream\",\"reverse\":false,\"trials\":1},"
    "{\"name\":\"a_b\",\"test\":\"tcp_stream\",\"reverse\":false,\"trials\":1}]}\n";

/* One trial a -> b of scen, its result res, the hosts in their two regions. */
static void
clash_line(struct rbuf *b, const char *scen, const char *test, const char *res)
{
    report_buf_printf(
        b,
        "{\"schema\":\"netsurvey.trial/1\",\"run_id\":\"m1\",\"scenario\":{\"name\":\"%s\","
        "\"test\":\"%s\",\"reverse\":false},\"trial\":1,\"family\":\"ipv4\","
        "\"src\":{\"host\":\"a\",\"zone\":\"1\",\"region\":\"r\",\"data_address\":\"x\"},"
        "\"dst\":{\"host\":\"b\",\"zone\":\"2\",\"region\":\"s\",\"data_address\":\"y\"},"
        "\"status\":\"ok\",\"error\":null,\"result\":%s}\n",
        scen, test, res);
}

static void
test_file_keys_apart(void **state)
{
    (void)state;
    char *dir = th_tempdir("matrix-clash"), *out = th_tempdir("matrix-clash-out");
    assert_non_null(dir);
    assert_non_null(out);
    assert_int_equal(th_write(dir, "run.json", clash_run_json), 0);
    struct rbuf b;
    report_buf_init(&b);
    struct hist h;
    hist_init(&h);
    hist_record(&h, 400000);
    json_t *res = json_pack("{s:o}", "rtt_us", hist_to_rtt_json(&h));
    char *rs = json_dumps(res, JSON_COMPACT);
    clash_line(&b, "lat", "tcp_rr", rs);
    free(rs);
    json_decref(res);
    static const char *const rates[] = {"lat-p99", "lat-regions", "a b", "a_b"};
    for (size_t i = 0; i < 4; i++) {
        char r[96];
        snprintf(r, sizeof r, "{\"throughput_bps\":%.1f}", (double)(i + 1) * 100e6);
        clash_line(&b, rates[i], "tcp_stream", r);
    }
    assert_int_equal(th_write(dir, "results.jsonl", b.data), 0);
    report_buf_release(&b);
    setenv("NETSURVEY_GNUPLOT", "/nonexistent/gnuplot", 1);
    struct err e = {0};
    const char *dirs[] = {dir};
    int rc = report_render(&(struct report_opts){.dirs = dirs, .ndirs = 1, .out = out}, &e);
    unsetenv("NETSURVEY_GNUPLOT");
    assert_int_equal(rc, 0);
    struct fixture f = {.out = out};
    char p[4096];
    snprintf(p, sizeof p, "%s/summary.json", out);
    f.sum = json_load_file(p, 0, NULL);
    assert_non_null(f.sum);
    static const char *const names[] = {"lat", "lat-p99", "lat-regions", "a b", "a_b"};
    static const char *const keys[] = {"lat", "lat-p99-2", "lat-regions-2", "a_b", "a_b-2"};
    for (size_t i = 0; i < 5; i++)
        assert_string_equal(json_string_value(json_object_get(scen(&f, names[i]), "file_key")),
                            keys[i]);
    /* every scenario's own matrices, none written over */
    static const struct {
        const char *file, *text;
    } csvs[] = {
        {"matrix-lat-regions.csv",
         "src\\dst (us),r,s\nr,,400.000\ns,,\n"}, /* lat's region matrix */
        {"matrix-lat-p99.csv", "src\\dst (us),r/1,s/2\nr/1,,400.000\ns/2,,\n"}, /* lat's p99 */
        {"matrix-lat-p99-2.csv", "src\\dst (Mbit/s),r/1,s/2\nr/1,,100.000\ns/2,,\n"},
        {"matrix-lat-regions-2.csv", "src\\dst (Mbit/s),r/1,s/2\nr/1,,200.000\ns/2,,\n"},
        {"matrix-a_b.csv", "src\\dst (Mbit/s),r/1,s/2\nr/1,,300.000\ns/2,,\n"},
        {"matrix-a_b-2.csv", "src\\dst (Mbit/s),r/1,s/2\nr/1,,400.000\ns/2,,\n"},
    };
    for (size_t i = 0; i < sizeof csvs / sizeof csvs[0]; i++) {
        char *csv = out_file(&f, csvs[i].file);
        if (csv == NULL || strcmp(csv, csvs[i].text) != 0)
            fail_msg("%s: %s", csvs[i].file, csv != NULL ? csv : "missing");
        free(csv);
    }
    char *md = out_file(&f, "report.md");
    assert_non_null(md);
    assert_non_null(strstr(md, "Its files are named lat-p99-2: lat-p99 would share a name"));
    free(md);
    json_decref(f.sum);
    th_rmtree(dir);
    th_rmtree(out);
    free(dir);
    free(out);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_percentile_matrices_from_merged_histograms),
        cmocka_unit_test(test_min_matrix_of_a_rate_kind),
        cmocka_unit_test(test_stat_csvs),
        cmocka_unit_test(test_asymmetry_welch),
        cmocka_unit_test(test_report_says_it),
        cmocka_unit_test(test_heatmap_scale_from_zero),
    };
    const struct CMUnitTest alone[] = {cmocka_unit_test(test_file_keys_apart)};
    int failed = cmocka_run_group_tests(tests, setup, teardown);
    return failed + cmocka_run_group_tests(alone, NULL, NULL);
}
