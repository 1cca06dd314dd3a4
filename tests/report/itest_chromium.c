/* itest_chromium.c - the HTML report in headless Chromium (Debian's chromium; root needs
 * --no-sandbox): it loads with no console message, its charts are visible in a screenshot (many
 * coloured pixels, against the same report rendered without gnuplot as a control), and the
 * hostile names of tests/fixtures/journals/hostile are text in the DOM, not elements. */
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

#include "common/errors.h"
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
chromium(const char *out, const char *mode, const char *tag)
{
    char url[8192], so[8192], se[8192], prof[8192];
    snprintf(url, sizeof url, "file://%s/report.html", out);
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
               "--no-first-run", "--hide-scrollbars", "--enable-logging=stderr", "--v=0",
               "--window-size=1200,2400", prof, mode, url, (char *)NULL);
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

int
main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_charts_visible),
                                       cmocka_unit_test(test_hostile_names_are_text)};
    return cmocka_run_group_tests(tests, setup, teardown);
}
