/* charts.c - gnuplot charts for the reports, drawn as SVG by a gnuplot subprocess.
 *
 * Per scenario: a heatmap of the zone matrix with the values in the cells, bars of the host
 * pairs' (or, past CHART_MAX_BARS pairs, the zone cells') means with 95 % CI error bars, a dot
 * plot of every trial's value, and for latency kinds the percentile curves on a "nines" axis.
 * Each chart's script (.gp) and data (.dat) stay in charts/ beside its .svg so anyone can
 * restyle it; gnuplot runs with a timeout; without gnuplot the reports say charts were skipped. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/errors.h"
#include "report/reportint.h"

#define CHART_TIMEOUT_MS 60000
#define CHART_MAX_BARS REPORT_CHART_MAX_BARS
#define CHART_MAX_CURVES REPORT_CHART_MAX_CURVES
#define CHART_W REPORT_CHART_W
#define CHART_H REPORT_CHART_H

char *
rchart_gnuplot_find(void)
{
    const char *env = getenv("NETSURVEY_GNUPLOT");
    if (env != NULL)
        return access(env, X_OK) == 0 ? strdup(env) : NULL;
    const char *path = getenv("PATH");
    if (path == NULL)
        path = "/usr/bin:/bin";
    while (*path) {
        size_t n = strcspn(path, ":");
        char cand[4096];
        snprintf(cand, sizeof cand, "%.*s/gnuplot", (int)n, path);
        if (n > 0 && access(cand, X_OK) == 0)
            return strdup(cand);
        path += n + (path[n] == ':');
    }
    return NULL;
}

/* Run gnuplot on script inside dir; kill it after the timeout. Returns 0 or NS_E*. */
static int
gnuplot_run(const char *gp, const char *dir, const char *script, struct err *e)
{
    pid_t pid = fork();
    if (pid < 0)
        return err_sys(e, NS_EIO, errno, "cannot start gnuplot");
    if (pid == 0) {
        int fd = open("/dev/null", O_RDWR);
        if (fd >= 0) {
            dup2(fd, 0);
            dup2(fd, 1);
            dup2(fd, 2); /* its warnings ("empty cb range") are noise; the exit status counts */
        }
        if (chdir(dir) != 0)
            _exit(126);
        execl(gp, "gnuplot", script, (char *)NULL);
        _exit(127);
    }
    uint64_t deadline = clock_deadline_ms(CHART_TIMEOUT_MS);
    int status;
    for (;;) {
        pid_t r = waitpid(pid, &status, WNOHANG);
        if (r == pid)
            break;
        if (r < 0 && errno != EINTR)
            return err_sys(e, NS_EIO, errno, "waiting for gnuplot");
        if (clock_ms_until(deadline) == 0) {
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            return err_set(e, NS_ETIMEDOUT, "gnuplot %s: killed after %d s", script,
                           CHART_TIMEOUT_MS / 1000);
        }
        clock_sleep_ns(5 * NS_PER_MS);
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return err_set(e, NS_EREMOTE, "gnuplot %s: exit status %d", script,
                       WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
    return 0;
}

void
rchart_script_str(struct rbuf *b, const char *s)
{
    rbuf_puts(b, "'");
    for (; *s; s++) {
        if (*s == '\'')
            rbuf_puts(b, "''");
        else
            rbuf_add(b, *s == '\n' || *s == '\r' ? " " : s, 1);
    }
    rbuf_puts(b, "'");
}

void
rchart_data_str(struct rbuf *b, const char *s)
{
    rbuf_puts(b, "\"");
    for (; *s; s++)
        rbuf_add(b, *s == '"' || *s == '\\' || *s == '\n' ? "'" : s, 1);
    rbuf_puts(b, "\"");
}

static void
gp_head(struct rbuf *b, const char *key, const char *kind, const char *title)
{
    rbuf_printf(b,
                "# %s chart of scenario %s, written by netsurvey report; edit and run\n"
                "#   gnuplot %s-%s.gp\nset terminal svg size %d,%d noenhanced font "
                "\"sans,11\" background \"white\"\nset output \"%s-%s.svg\"\nset title ",
                kind, key, kind, key, CHART_W, CHART_H, kind, key);
    rchart_script_str(b, title);
    rbuf_puts(b, "\nset grid ytics lc rgb \"#dddddd\"\nset border 3\nset tics nomirror\n");
}

int
rchart_emit(struct rchart *cx, const char *key, const char *kind, struct rbuf *script,
            struct rbuf *data, const char *caption, struct err *e)
{
    char path[4096], name[512];
    snprintf(path, sizeof path, "%s/%s-%s.dat", cx->dir, kind, key);
    int rc = report_write_file(path, data, e);
    snprintf(path, sizeof path, "%s/%s-%s.gp", cx->dir, kind, key);
    if (rc == 0)
        rc = report_write_file(path, script, e);
    if (rc != 0 || cx->gp == NULL)
        return rc;
    snprintf(name, sizeof name, "%s-%s.gp", kind, key);
    struct err ge = {0};
    if (gnuplot_run(cx->gp, cx->dir, name, &ge) != 0) {
        cx->failed++;
        if (cx->firsterr[0] == '\0')
            snprintf(cx->firsterr, sizeof cx->firsterr, "%.200s", ge.msg);
        if (cx->warn != NULL)
            fprintf(cx->warn, "netsurvey: warning: %s\n", ge.msg);
        return 0;
    }
    cx->ran++;
    snprintf(path, sizeof path, "%s/%s-%s.svg", cx->dir, kind, key);
    char *svg;
    size_t len;
    if (report_read_file(path, &svg, &len, 64u << 20, e) != 0)
        return e->code;
    static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    struct rbuf b64;
    rbuf_init(&b64);
    for (size_t i = 0; i < len; i += 3) {
        unsigned v = (unsigned)(unsigned char)svg[i] << 16;
        if (i + 1 < len)
            v |= (unsigned)(unsigned char)svg[i + 1] << 8;
        if (i + 2 < len)
            v |= (unsigned)(unsigned char)svg[i + 2];
        char q[4] = {tab[v >> 18 & 63], tab[v >> 12 & 63], i + 1 < len ? tab[v >> 6 & 63] : '=',
                     i + 2 < len ? tab[v & 63] : '='};
        rbuf_add(&b64, q, 4);
    }
    free(svg);
    snprintf(name, sizeof name, "%s-%s.svg", kind, key);
    json_array_append_new(cx->list, json_pack("{s:s,s:s,s:s,s:i,s:i}", "file", name, "caption",
                                              caption, "b64", b64.data ? b64.data : "", "width",
                                              CHART_W, "height", CHART_H));
    rbuf_release(&b64);
    return 0;
}

/* The heat map's colour scale starts at zero, so that a colour's depth is the value's share of
 * the largest cell: with gnuplot's autoscale (lowest to highest cell) a 4 % spread spanned the
 * whole palette, and neighbours 4 % apart looked hot and cold. The x axis's label says the
 * cells' range and their spread (highest over lowest) in per cent, which colours cannot show. */
static void
heatmap_scale(struct rbuf *s, const json_t *ssum)
{
    double lo = INFINITY, hi = -INFINITY;
    size_t i;
    const json_t *c;
    json_array_foreach(json_object_get(ssum, "zone_cells"), i, c)
    {
        if (json_integer_value(json_object_get(c, "n")) == 0)
            continue;
        lo = fmin(lo, jd(c, "mean"));
        hi = fmax(hi, jd(c, "mean"));
    }
    if (!(hi > 0.0))
        return; /* nothing measured, or nothing above zero: gnuplot's own range */
    enum testspec_kind k = (enum testspec_kind)testspec_kind_find(js(ssum, "test"));
    char label[256], a[64], b[64];
    snprintf(label, sizeof label, "dst zone (colour scale from 0; cells %s to %s, spread %.1f %%)",
             testspec_kind_value_text(k, lo, a, sizeof a),
             testspec_kind_value_text(k, hi, b, sizeof b),
             lo > 0.0 ? 100.0 * (hi - lo) / lo : 100.0);
    rbuf_printf(s, "set cbrange [0:%.6g]\nset xlabel ", hi);
    rchart_script_str(s, label);
    /* white is 0 now: cells nobody measured are grey, not mistaken for a zero */
    rbuf_puts(s, "\nset object 1 rectangle from graph 0,0 to graph 1,1 behind fc rgb \"#e5e5e5\" "
                 "fs solid 1.0 noborder\n");
}

static int
chart_heatmap(struct rchart *cx, const json_t *ssum, const json_t *zones, const char *key,
              const char *caption, const char *unit, struct err *e)
{
    struct rbuf s, d;
    rbuf_init(&s);
    rbuf_init(&d);
    size_t nz = json_array_size(zones);
    char title[600];
    snprintf(title, sizeof title, "zone matrix: %s (rows src, columns dst)", caption);
    gp_head(&s, key, "heatmap", title);
    rbuf_printf(&s,
                "set xrange [-0.5:%zu.5]\nset yrange [%zu.5:-0.5]\nset xlabel \"dst zone\"\n"
                "set ylabel \"src zone\"\nset cblabel \"%s\"\nunset grid\n"
                "set palette defined (0 \"#ffffff\", 1 \"#fee08b\", 2 \"#f46d43\")\n",
                nz ? nz - 1 : 0, nz ? nz - 1 : 0, unit);
    for (int axis = 0; axis < 2; axis++) {
        rbuf_puts(&s, axis ? "set ytics (" : "set xtics (");
        for (size_t z = 0; z < nz; z++) {
            if (z)
                rbuf_puts(&s, ", ");
            rchart_script_str(&s, js(json_array_get(zones, z), "label"));
            rbuf_printf(&s, " %zu", z);
        }
        rbuf_puts(&s, ")\n");
    }
    rbuf_puts(&d, "# x(dst zone) y(src zone) mean label\n");
    size_t i;
    const json_t *c;
    json_array_foreach(json_object_get(ssum, "zone_cells"), i, c)
    {
        if (json_integer_value(json_object_get(c, "n")) == 0)
            continue;
        size_t x = 0, y = 0;
        for (size_t z = 0; z < nz; z++) {
            const char *l = js(json_array_get(zones, z), "label");
            if (!strcmp(l, js(c, "dst_zone")))
                x = z;
            if (!strcmp(l, js(c, "src_zone")))
                y = z;
        }
        char b[64];
        rbuf_printf(&d, "%zu %zu %.6g ", x, y, jd(c, "mean"));
        enum testspec_kind k = (enum testspec_kind)testspec_kind_find(js(ssum, "test"));
        rchart_data_str(&d, testspec_kind_value_text(k, jd(c, "mean"), b, sizeof b));
        rbuf_puts(&d, "\n");
    }
    heatmap_scale(&s, ssum);
    rbuf_printf(&s,
                "plot \"heatmap-%s.dat\" using 1:2:(0.5):(0.5):3 with boxxyerror "
                "fs solid 1.0 noborder lc palette notitle, \\\n     \"\" using 1:2:4 with "
                "labels notitle\n",
                key);
    int rc = rchart_emit(cx, key, "heatmap", &s, &d, title, e);
    rbuf_release(&s);
    rbuf_release(&d);
    return rc;
}

/* "src > dst" of a host pair or a zone cell. */
static void
unit_label(const json_t *u, bool by_pair, char *buf, size_t len)
{
    if (by_pair)
        snprintf(buf, len, "%s > %s", js(u, "src"), js(u, "dst"));
    else
        snprintf(buf, len, "%s > %s", js(u, "src_zone"), js(u, "dst_zone"));
}

/* One bar: the mean and its CI half-width (NaN where nothing was measured). */
static void
bars_row(struct rbuf *d, size_t i, const json_t *u, bool by_pair)
{
    char label[512];
    unit_label(u, by_pair, label, sizeof label);
    double mean = by_pair ? jd(u, "mean_v") : jd(u, "mean");
    double ci = by_pair ? jd(u, "ci_v") : jd(u, "ci95_halfwidth");
    if (json_integer_value(json_object_get(u, "n")) > 0 || (by_pair && mean > 0))
        rbuf_printf(d, "%zu %.6g %.6g ", i, mean, ci);
    else
        rbuf_printf(d, "%zu NaN NaN ", i);
    rchart_data_str(d, label);
    rbuf_puts(d, "\n");
}

/* The dots over bar i: a pair's trials, or a zone cell's pairs (each pair's mean). */
static void
dots_rows(struct rbuf *d2, size_t i, const json_t *u, bool by_pair, const json_t *ssum)
{
    size_t j;
    const json_t *v;
    if (by_pair) {
        json_array_foreach(json_object_get(u, "values_v"), j, v)
            rbuf_printf(d2, "%zu %.6g\n", i, json_number_value(v));
        return;
    }
    json_array_foreach(json_object_get(ssum, "pairs"), j, v)
    {
        if (!strcmp(js(v, "src_zone"), js(u, "src_zone")) &&
            !strcmp(js(v, "dst_zone"), js(u, "dst_zone")) &&
            json_integer_value(json_object_get(v, "n")) > 0)
            rbuf_printf(d2, "%zu %.6g\n", i, jd(v, "mean"));
    }
}

/* The dot plot's x tics: the bars' labels. */
static void
dots_xtics(struct rbuf *s2, const json_t *units, bool by_pair)
{
    rbuf_puts(s2, "set xtics (");
    size_t i;
    const json_t *u;
    json_array_foreach(units, i, u)
    {
        char label[512];
        unit_label(u, by_pair, label, sizeof label);
        if (i)
            rbuf_puts(s2, ", ");
        rchart_script_str(s2, label);
        rbuf_printf(s2, " %zu", i);
    }
    rbuf_puts(s2, ")\n");
}

/* Bars with CI error bars, and the trial dot plot, over the pairs (or the zone cells when the
 * pairs are too many to read). */
static int
chart_bars_dots(struct rchart *cx, const json_t *sview, const json_t *ssum, const char *key,
                const char *caption, const char *unit, struct err *e)
{
    const json_t *pairs = json_object_get(sview, "pairs");
    bool by_pair = json_array_size(pairs) <= CHART_MAX_BARS;
    const json_t *units = by_pair ? pairs : json_object_get(ssum, "zone_cells");
    struct rbuf s, d, s2, d2;
    rbuf_init(&s);
    rbuf_init(&d);
    rbuf_init(&s2);
    rbuf_init(&d2);
    char t1[600], t2[600];
    snprintf(t1, sizeof t1, "mean per %s with 95 %% CI: %s", by_pair ? "host pair" : "zone cell",
             caption);
    snprintf(t2, sizeof t2, "every trial per %s: %s", by_pair ? "host pair" : "zone cell", caption);
    gp_head(&s, key, "bars", t1);
    gp_head(&s2, key, "trials", t2);
    size_t n = json_array_size(units);
    const char *rot = n > 6 ? "rotate by -35 left" : "";
    rbuf_printf(&s,
                "set ylabel \"%s\"\nset yrange [0:*]\nset xrange [-0.6:%zu.6]\nset style fill "
                "solid 0.6\nset boxwidth 0.6\nset xtics %s\n",
                unit, n ? n - 1 : 0, rot);
    rbuf_printf(&s2, "set ylabel \"%s\"\nset xrange [-0.6:%zu.6]\nset xtics %s\n", unit,
                n ? n - 1 : 0, rot);
    rbuf_puts(&d, "# index mean ci95_halfwidth label\n");
    rbuf_puts(&d2, "# index value label\n");
    size_t i;
    const json_t *u;
    json_array_foreach(units, i, u)
    {
        bars_row(&d, i, u, by_pair);
        dots_rows(&d2, i, u, by_pair, ssum);
    }
    rbuf_printf(&s,
                "plot \"bars-%s.dat\" using 1:2:3:xtic(4) with boxerrorbars lc rgb "
                "\"#4c78a8\" notitle\n",
                key);
    dots_xtics(&s2, units, by_pair);
    rbuf_printf(&s2,
                "plot \"trials-%s.dat\" using 1:2 with points pt 7 ps 0.6 lc rgb "
                "\"#e45756\" title \"%s\"\n",
                key, by_pair ? "trial" : "host pair mean");
    int rc = rchart_emit(cx, key, "bars", &s, &d, t1, e);
    if (rc == 0)
        rc = rchart_emit(cx, key, "trials", &s2, &d2, t2, e);
    rbuf_release(&s);
    rbuf_release(&d);
    rbuf_release(&s2);
    rbuf_release(&d2);
    return rc;
}

static int
chart_percentiles(struct rchart *cx, const json_t *sview, const json_t *ssum, const char *key,
                  const char *caption, struct err *e)
{
    const json_t *pairs = json_object_get(sview, "pairs");
    bool by_pair = json_array_size(pairs) <= CHART_MAX_CURVES;
    const json_t *units = by_pair ? pairs : json_object_get(ssum, "zone_cells");
    struct rbuf s, d;
    rbuf_init(&s);
    rbuf_init(&d);
    char title[600];
    snprintf(title, sizeof title, "latency percentiles per %s (merged histograms): %s",
             by_pair ? "host pair" : "zone cell", caption);
    gp_head(&s, key, "percentiles", title);
    rbuf_puts(&s, "set logscale y\nset ylabel \"RTT (us)\"\nset xlabel \"percentile\"\n"
                  "set key outside right\nset xtics (");
    for (size_t q = 0; q < HISTJSON_NPCT; q++)
        rbuf_printf(&s, "%s\"%s\" %.4f", q ? ", " : "", histjson_pcts[q].name,
                    -log10(1.0 - histjson_pcts[q].q / 100.0));
    rbuf_puts(&s, ")\nplot ");
    size_t i, curve = 0;
    const json_t *u;
    json_array_foreach(units, i, u)
    {
        const json_t *rtt = json_object_get(u, HISTJSON_RTT);
        if ((by_pair && json_object_get(u, "pcts_v") == NULL) || (!by_pair && rtt == NULL))
            continue;
        char label[512];
        if (by_pair)
            snprintf(label, sizeof label, "%s > %s", js(u, "src"), js(u, "dst"));
        else
            snprintf(label, sizeof label, "%s > %s", js(u, "src_zone"), js(u, "dst_zone"));
        rbuf_printf(&d, "%s# %zu: ", curve ? "\n\n" : "", curve);
        rchart_data_str(&d, label);
        rbuf_puts(&d, "\n");
        for (size_t q = 0; q < HISTJSON_NPCT; q++) {
            double v = by_pair ? json_number_value(json_array_get(json_object_get(u, "pcts_v"), q))
                               : jd(rtt, histjson_pcts[q].key);
            rbuf_printf(&d, "%.4f %.6g\n", -log10(1.0 - histjson_pcts[q].q / 100.0), v);
        }
        rbuf_printf(&s, "%s\"percentiles-%s.dat\" index %zu using 1:2 with linespoints title ",
                    curve ? ", \\\n     " : "", key, curve);
        rchart_script_str(&s, label);
        if (++curve >= CHART_MAX_CURVES && !by_pair)
            break;
    }
    rbuf_puts(&s, "\n");
    int rc = 0;
    if (curve > 0)
        rc = rchart_emit(cx, key, "percentiles", &s, &d, title, e);
    rbuf_release(&s);
    rbuf_release(&d);
    return rc;
}

int
report_charts(const char *outdir, const json_t *sum, json_t *view, FILE *warn, struct err *e)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/charts", outdir);
    if (mkdir(dir, 0755) != 0 && errno != EEXIST)
        return err_sys(e, NS_EIO, errno, "cannot create %s", dir);
    struct rchart cx = {.dir = dir, .warn = warn};
    char *gp = rchart_gnuplot_find();
    cx.gp = gp;
    const json_t *zones = json_object_get(sum, "zones");
    size_t i, drawable = 0;
    json_t *sv;
    int rc = 0;
    json_array_foreach(json_object_get(view, "scenarios"), i, sv)
    {
        const json_t *ss = json_array_get(json_object_get(sum, "scenarios"), i);
        const char *key = js(sv, "file_key"), *cap = js(sv, "caption"), *unit = js(sv, "unit");
        const json_t *tr = json_object_get(ss, "trials");
        if (json_integer_value(json_object_get(tr, "ok")) == 0) {
            /* nothing to draw: gnuplot would only fail on empty data */
            json_object_set_new(sv, "charts_skipped",
                                json_string(json_integer_value(json_object_get(tr, "failed")) > 0
                                                ? "No charts: no trial of this scenario succeeded."
                                                : "No charts: no trial of this scenario was "
                                                  "recorded."));
            json_object_set_new(sv, "charts", json_array());
            continue;
        }
        drawable++;
        cx.list = json_array();
        rc = chart_heatmap(&cx, ss, zones, key, cap, unit, e);
        if (rc == 0)
            rc = chart_bars_dots(&cx, sv, ss, key, cap, unit, e);
        if (rc == 0 && json_is_true(json_object_get(sv, "has_rtt")))
            rc = chart_percentiles(&cx, sv, ss, key, cap, e);
        json_object_set_new(sv, "charts", cx.list);
        if (rc != 0)
            break;
    }
    free(gp);
    if (rc == 0 && cx.gp == NULL && drawable > 0)
        json_object_set_new(view, "charts_note",
                            json_string("Charts were skipped: gnuplot was not found (install "
                                        "gnuplot, then run netsurvey report again); their "
                                        "scripts and data are in charts/."));
    else if (rc == 0 && cx.failed > 0)
        json_object_set_new(view, "charts_note",
                            json_pack("{s:s}", "text", cx.firsterr)); /* replaced below */
    if (rc == 0 && cx.failed > 0) {
        char note[512];
        snprintf(note, sizeof note,
                 "%d chart%s could not be drawn (%s); their scripts and data "
                 "are in charts/.",
                 cx.failed, cx.failed == 1 ? "" : "s", cx.firsterr);
        json_object_set_new(view, "charts_note", json_string(note));
    }
    return rc;
}
