/* itest_chromium.c - the HTML report in headless Chromium (Debian's chromium; root needs
 * --no-sandbox): it loads with no console message, its charts are visible in a screenshot (many
 * coloured pixels, against the same report rendered without gnuplot as a control), the hostile
 * names of tests/fixtures/journals/hostile are text in the DOM, not elements, and its layout
 * holds at 1 400 and 800 px and on paper: measured in the browser by a script the test adds to
 * a copy of the page (the report has none), which writes what it measured into the DOM that
 * --dump-dom prints. No table is cut off (it fits, or scrolls inside the text column; at
 * 1 400 px every table of the fixtures fits), every caption spans the text column, text columns
 * are left-aligned and figures right-aligned, chart text is at least 13 px, and with the print
 * stylesheet every table fits a page's width. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include <cmocka.h>

#include <jansson.h>

#include "common/errors.h"
#include "report/output.h"
#include "report/report.h"

#include "helpers.h"

#define CHROMIUM_TIMEOUT_S 120

static char *tmp;

static int
setup(void **state)
{
    (void)state;
    char j[4096];
    snprintf(j, sizeof j, "%s/tests/fixtures/journals", th_srcdir());
    tmp = th_tempdir("chromium");
    return tmp == NULL || chdir(j) != 0;
}

static int
teardown(void **state)
{
    (void)state;
    th_rmtree(tmp);
    free(tmp);
    return 0;
}

static void
render(const char *dir, const char *out, bool charts)
{
    if (!charts)
        setenv("NETSURVEY_GNUPLOT", "/nonexistent/gnuplot", 1);
    struct err e = {0};
    const char *dirs[] = {dir};
    int rc = report_render(&(struct report_opts){.dirs = dirs, .ndirs = 1, .out = out}, &e);
    unsetenv("NETSURVEY_GNUPLOT");
    if (rc != 0)
        fail_msg("render %s: %s", dir, e.msg);
}

/* Run chromium with one extra mode argument on out/report.html; stdout to out/<tag>.out,
 * stderr to out/<tag>.err. Killed (by its pid) after the timeout. */
static void
chromium_page(const char *out, const char *page, const char *size, const char *mode,
              const char *tag)
{
    char url[8192], so[8192], se[8192], prof[8192], win[64];
    snprintf(url, sizeof url, "file://%s/%s", out, page);
    snprintf(win, sizeof win, "--window-size=%s", size);
    snprintf(so, sizeof so, "%s/%s.out", out, tag);
    snprintf(se, sizeof se, "%s/%s.err", out, tag);
    snprintf(prof, sizeof prof, "--user-data-dir=%s/profile-%s", tmp, tag);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int fo = open(so, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int fe = open(se, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fo < 0 || fe < 0 || chdir(out) != 0)
            _exit(126);
        dup2(fo, 1);
        dup2(fe, 2);
        setpgid(0, 0);
        execlp("chromium", "chromium", "--headless", "--no-sandbox", "--disable-gpu",
               "--no-first-run", "--hide-scrollbars", "--enable-logging=stderr", "--v=0", win, prof,
               mode, url, (char *)NULL);
        _exit(127);
    }
    int status = 0;
    for (int i = 0; i < CHROMIUM_TIMEOUT_S * 20; i++) {
        if (waitpid(pid, &status, WNOHANG) == pid)
            goto done;
        struct timespec ts = {0, 50 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    kill(-pid, SIGKILL);
    waitpid(pid, &status, 0);
    fail_msg("chromium %s did not finish in %d s", mode, CHROMIUM_TIMEOUT_S);
done:
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        fail_msg("chromium %s failed (status %d); see %s", mode, status, se);
    /* any console message (an error, a blocked fetch) is a failure: the page has no script */
    char *err = th_read(se, NULL);
    assert_non_null(err);
    if (strstr(err, ":CONSOLE") != NULL)
        fail_msg("chromium console output in %s", se);
    free(err);
}

static void
chromium(const char *out, const char *mode, const char *tag)
{
    chromium_page(out, "report.html", "1200,2400", mode, tag);
}

/* --- a minimal PNG reader (8-bit RGB/RGBA, not interlaced), enough for a screenshot ---- */

static uint32_t
be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int
paeth(int a, int b, int c)
{
    int p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c);
    return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/* Pixels whose channels spread by more than 80 (colour, not grey text or white). */
static long
coloured_pixels(const char *png_path)
{
    size_t len = 0;
    unsigned char *png = (unsigned char *)th_read(png_path, &len);
    if (png == NULL || len < 33)
        fail_msg("cannot read %s", png_path);
    if (png == NULL)
        abort(); /* for the compiler: fail_msg does not return */
    assert_true(len > 33 && memcmp(png, "\x89PNG\r\n\x1a\n", 8) == 0);
    uint32_t w = be32(png + 16), h = be32(png + 20);
    int depth = png[24], ctype = png[25], interlace = png[28];
    assert_int_equal(depth, 8);
    assert_true(ctype == 2 || ctype == 6);
    assert_int_equal(interlace, 0);
    size_t bpp = ctype == 6 ? 4 : 3, stride = w * bpp;
    unsigned char *idat = malloc(len), *raw = malloc((stride + 1) * h);
    unsigned char *prev = calloc(stride, 1), *cur = malloc(stride);
    if (idat == NULL || raw == NULL || prev == NULL || cur == NULL)
        abort();
    size_t ilen = 0;
    for (size_t off = 8; off + 12 <= len;) {
        uint32_t clen = be32(png + off);
        if (memcmp(png + off + 4, "IDAT", 4) == 0) {
            memcpy(idat + ilen, png + off + 8, clen);
            ilen += clen;
        }
        off += 12 + clen;
    }
    uLongf rlen = (uLongf)((stride + 1) * h);
    assert_int_equal(uncompress(raw, &rlen, idat, (uLong)ilen), Z_OK);
    assert_true(rlen == (stride + 1) * h);
    long n = 0;
    for (uint32_t y = 0; y < h; y++) {
        const unsigned char *row = raw + y * (stride + 1);
        int f = row[0];
        for (size_t x = 0; x < stride; x++) {
            int a = x >= bpp ? cur[x - bpp] : 0, b = prev[x], c = x >= bpp ? prev[x - bpp] : 0;
            int v = row[1 + x];
            v += f == 1 ? a : f == 2 ? b : f == 3 ? (a + b) / 2 : f == 4 ? paeth(a, b, c) : 0;
            cur[x] = (unsigned char)v;
        }
        for (size_t x = 0; x < stride; x += bpp) {
            int r = cur[x], g = cur[x + 1], bl = cur[x + 2];
            int mx = r > g ? (r > bl ? r : bl) : (g > bl ? g : bl);
            int mn = r < g ? (r < bl ? r : bl) : (g < bl ? g : bl);
            n += mx - mn > 80;
        }
        unsigned char *t = prev;
        prev = cur;
        cur = t;
    }
    free(prev);
    free(cur);
    free(raw);
    free(idat);
    free(png);
    return n;
}

static void
static_checks(const char *out)
{
    char p[8192];
    snprintf(p, sizeof p, "%s/report.html", out);
    char *html = th_read(p, NULL);
    assert_non_null(html);
    /* self-contained: no script, no stylesheet or image fetched from anywhere */
    assert_null(strstr(html, "<script"));
    assert_null(strstr(html, "<link"));
    assert_null(strstr(html, "src=\"http"));
    assert_null(strstr(html, "href=\"http"));
    assert_null(strstr(html, "url("));
    for (const char *s = strstr(html, " src=\""); s; s = strstr(s + 1, " src=\""))
        assert_true(strncmp(s + 6, "data:image/svg+xml;base64,", 26) == 0);
    assert_non_null(strstr(html, "<meta name=\"viewport\""));
    free(html);
}

static void
test_charts_visible(void **state)
{
    (void)state;
    char with[8192], without[8192], shot[16384];
    snprintf(with, sizeof with, "%s/with", tmp);
    snprintf(without, sizeof without, "%s/without", tmp);
    render("basic", with, true);
    render("basic", without, false);
    static_checks(with);
    chromium(with, "--screenshot", "shot");
    chromium(without, "--screenshot", "shot");
    snprintf(shot, sizeof shot, "%s/screenshot.png", with);
    long c_with = coloured_pixels(shot);
    snprintf(shot, sizeof shot, "%s/screenshot.png", without);
    long c_without = coloured_pixels(shot);
    print_message("coloured pixels: %ld with charts, %ld without\n", c_with, c_without);
    /* the heatmap alone is ~300x160 px of colour; the text-only page has a few links */
    assert_true(c_with > 60000);
    assert_true(c_without < 20000);
}

static void
test_hostile_names_are_text(void **state)
{
    (void)state;
    char out[8192], dom[16384];
    snprintf(out, sizeof out, "%s/hostile", tmp);
    render("hostile", out, true);
    static_checks(out);
    chromium(out, "--dump-dom", "dom");
    snprintf(dom, sizeof dom, "%s/dom.out", out);
    char *d = th_read(dom, NULL);
    assert_non_null(d);
    /* the serialized DOM escapes text nodes: the name is text, and no element was made of it */
    assert_non_null(strstr(d, "<td>&lt;script&gt;alert(1)&lt;/script&gt;</td>"));
    assert_non_null(strstr(d, "&lt;img src=x onerror=alert(2)&gt; &amp; \"quoted\""));
    assert_null(strstr(d, "<script"));
    assert_null(strstr(d, "<img src=\"x\""));
    assert_non_null(strstr(d, "<title>netsurvey report: &lt;i&gt;plan&lt;/i&gt; &amp; \"co\""));
    free(d);
}

/* --- layout, measured in the browser ------------------------------------------------------ */

/* What the script measures: the viewport and text column; per table its box and its scroll
 * container's; per caption its box; per cell its text, alignment and column header; per chart
 * its displayed and natural width. Written as JSON into <pre id="ns-metrics">. */
static const char measure_js[] =
    "<script>(function(){"
    "var vw=document.documentElement.clientWidth,m=document.querySelector('main');"
    "var col=m.getBoundingClientRect();"
    "var r={vw:vw,col_left:col.left,col_width:col.width,tables:[],captions:[],cells:[],"
    "charts:[]};"
    "document.querySelectorAll('table').forEach(function(t){var s=t.closest('.scroll'),"
    "b=t.getBoundingClientRect(),sb=s?s.getBoundingClientRect():b;"
    "var h=t.querySelector('thead th');"
    "r.tables.push({head:h?h.textContent:'',right:b.right,width:b.width,scroll:!!s,"
    "sw:s?s.scrollWidth:0,cw:s?s.clientWidth:0,sright:sb.right,"
    "ox:s?getComputedStyle(s).overflowX:''});});"
    "document.querySelectorAll('figcaption').forEach(function(c){var b=c.getBoundingClientRect();"
    "r.captions.push({w:b.width,left:b.left,t:c.textContent.slice(0,50)});});"
    "document.querySelectorAll('table').forEach(function(t){var hs=[];"
    "t.querySelectorAll('thead th').forEach(function(h){hs.push(h.textContent.trim());});"
    "t.querySelectorAll('tbody td, tbody th').forEach(function(c){"
    "r.cells.push({t:c.textContent.trim().slice(0,60),a:getComputedStyle(c).textAlign,"
    "th:c.tagName=='TH',col:hs[c.cellIndex]||''});});});"
    "document.querySelectorAll('figure.chart img').forEach(function(i){"
    "r.charts.push({w:i.getBoundingClientRect().width,nat:i.naturalWidth});});"
    "var p=document.createElement('pre');p.id='ns-metrics';p.textContent=JSON.stringify(r);"
    "document.body.appendChild(p);})();</script>";

/* A copy of out/report.html as out/<name>, the script before </body>; print: the print
 * stylesheet applied on screen ("@media print" read as "@media all"). */
static void
measured_copy(const char *out, const char *name, bool print)
{
    char p[8192];
    snprintf(p, sizeof p, "%s/report.html", out);
    char *html = th_read(p, NULL);
    assert_non_null(html);
    char *end = strstr(html, "</body>");
    assert_non_null(end);
    if (print) {
        char *m = strstr(html, "@media print");
        assert_non_null(m); /* the report has a print stylesheet */
        memcpy(m, "@media all  ", 12);
    }
    snprintf(p, sizeof p, "%s/%s", out, name);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fwrite(html, 1, (size_t)(end - html), f);
    fputs(measure_js, f);
    fputs(end, f);
    assert_int_equal(fclose(f), 0);
    free(html);
}

/* The metrics the script wrote into the DOM chromium dumped. */
static json_t *
metrics_of(const char *out, const char *tag)
{
    char p[8192];
    snprintf(p, sizeof p, "%s/%s.out", out, tag);
    char *dom = th_read(p, NULL);
    assert_non_null(dom);
    char *a = strstr(dom, "<pre id=\"ns-metrics\">"), *b = a ? strstr(a, "</pre>") : NULL;
    if (a == NULL || b == NULL)
        fail_msg("%s: no metrics in the DOM (did the script run?)", p);
    a += strlen("<pre id=\"ns-metrics\">");
    struct rbuf j;
    report_buf_init(&j);
    for (const char *c = a; c < b; c++) { /* the text node's entities */
        static const char *const ent[][2] = {{"&amp;", "&"}, {"&lt;", "<"}, {"&gt;", ">"}};
        size_t e = 0;
        while (e < 3 && strncmp(c, ent[e][0], strlen(ent[e][0])) != 0)
            e++;
        if (e < 3) {
            report_buf_puts(&j, ent[e][1]);
            c += strlen(ent[e][0]) - 1;
        } else {
            report_buf_add(&j, c, 1);
        }
    }
    json_error_t je;
    json_t *m = json_loads(j.data ? j.data : "", 0, &je);
    if (m == NULL)
        fail_msg("%s: metrics are not JSON: %s", p, je.text);
    report_buf_release(&j);
    free(dom);
    return m;
}

static double
num(const json_t *o, const char *k)
{
    return json_number_value(json_object_get(o, k));
}

/* Columns of words: their cells are left-aligned; every other column holds figures. */
static bool
text_column(const char *col)
{
    static const char *const words[] = {
        "src",     "dst",      "zones",         "host",    "region",    "zone",
        "zone id", "provider", "instance type", "address", "arch",      "OS",
        "kernel",  "CPU",      "qdisc",         "TCP CC",  "src \\ dst"};
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (strcmp(col, words[i]) == 0)
            return true;
    return false;
}

/* What a page at this width must hold (all_fit: no table needs its scroll bar). */
static void
check_layout(const json_t *m, const char *what, bool all_fit)
{
    double vw = num(m, "vw"), colw = num(m, "col_width");
    assert_true(vw > 0 && colw > 0);
    size_t i;
    const json_t *t;
    json_array_foreach(json_object_get(m, "tables"), i, t)
    {
        bool fits = num(t, "right") <= vw + 0.5;
        bool scrolls = json_is_true(json_object_get(t, "scroll")) &&
                       (strcmp(json_string_value(json_object_get(t, "ox")), "auto") == 0 ||
                        strcmp(json_string_value(json_object_get(t, "ox")), "scroll") == 0) &&
                       num(t, "sright") <= vw + 0.5;
        if (!fits && !scrolls)
            fail_msg("%s: table %zu ('%s...') is cut off: its right edge %.0f px, the window %.0f",
                     what, i, json_string_value(json_object_get(t, "head")), num(t, "right"), vw);
        if (all_fit && num(t, "sw") > num(t, "cw") + 0.5)
            fail_msg("%s: table %zu ('%s...') is %.0f px wide in a %.0f px column", what, i,
                     json_string_value(json_object_get(t, "head")), num(t, "sw"), num(t, "cw"));
    }
    const json_t *c;
    json_array_foreach(json_object_get(m, "captions"), i, c)
    {
        if (num(c, "w") < 0.97 * colw)
            fail_msg("%s: caption '%s...' is %.0f px wide, the text column %.0f", what,
                     json_string_value(json_object_get(c, "t")), num(c, "w"), colw);
    }
    size_t nnum = 0, ntext = 0;
    json_array_foreach(json_object_get(m, "cells"), i, c)
    {
        const char *col = json_string_value(json_object_get(c, "col"));
        const char *a = json_string_value(json_object_get(c, "a"));
        bool text = json_is_true(json_object_get(c, "th")) || text_column(col);
        const char *want = text ? "left" : "right";
        if (strcmp(a, want) != 0 && strcmp(a, text ? "start" : "end") != 0)
            fail_msg("%s: cell '%s' of column '%s' is aligned %s, not %s", what,
                     json_string_value(json_object_get(c, "t")), col, a, want);
        nnum += !text;
        ntext += text;
    }
    assert_true(nnum > 50 && ntext > 50);
    json_array_foreach(json_object_get(m, "charts"), i, c)
    {
        /* the SVG's text is REPORT_CHART_FONT px at its natural width */
        double px = REPORT_CHART_FONT * num(c, "w") / num(c, "nat");
        if (px < 13.0)
            fail_msg("%s: chart %zu's text is %.1f px", what, i, px);
    }
}

static void
layout_case(const char *fixture, bool charts)
{
    char out[8192];
    snprintf(out, sizeof out, "%s/layout-%s%s", tmp, fixture, charts ? "" : "-plain");
    render(fixture, out, charts);
    measured_copy(out, "measure.html", false);
    measured_copy(out, "measure-print.html", true);
    static const struct {
        const char *size, *tag;
        bool all_fit;
    } widths[] = {{"1400,1000", "w1400", true}, {"800,1000", "w800", false}};
    for (size_t w = 0; w < 2; w++) {
        chromium_page(out, "measure.html", widths[w].size, "--dump-dom", widths[w].tag);
        json_t *m = metrics_of(out, widths[w].tag);
        char what[256];
        snprintf(what, sizeof what, "%s at %s px", fixture, widths[w].size);
        check_layout(m, what, widths[w].all_fit);
        json_decref(m);
    }
    /* paper: about an A4 page's text width at 96 dpi (210 mm less 2 x 15 mm margins) */
    chromium_page(out, "measure-print.html", "680,1000", "--dump-dom", "print");
    json_t *m = metrics_of(out, "print");
    char what[256];
    snprintf(what, sizeof what, "%s printed", fixture);
    size_t i;
    const json_t *t;
    json_array_foreach(json_object_get(m, "tables"), i, t)
    {
        if (num(t, "right") > num(m, "vw") + 0.5)
            fail_msg("%s: table %zu ('%s...') runs off the page: %.0f px of %.0f", what, i,
                     json_string_value(json_object_get(t, "head")), num(t, "right"), num(m, "vw"));
    }
    json_decref(m);
}

static void
test_layout_basic(void **state)
{
    (void)state;
    layout_case("basic", true);
}

static void
test_layout_measures(void **state)
{
    (void)state;
    layout_case("measures", true);
}

/* A sweep's table (figures per value) and its curve chart, beside the matrices of each value */
static void
test_layout_sweep(void **state)
{
    (void)state;
    layout_case("sweep-base", true);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_charts_visible), cmocka_unit_test(test_hostile_names_are_text),
        cmocka_unit_test(test_layout_basic), cmocka_unit_test(test_layout_measures),
        cmocka_unit_test(test_layout_sweep)};
    return cmocka_run_group_tests(tests, setup, teardown);
}
