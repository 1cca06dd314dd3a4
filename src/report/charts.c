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

/* name (no '/') found on PATH as a shell finds it; NULL when it is not there. */
static char *
path_find(const char *name)
{
    const char *path = getenv("PATH");
    if (path == NULL)
        path = "/usr/bin:/bin";
    while (*path) {
        size_t n = strcspn(path, ":");
        char cand[4096];
        snprintf(cand, sizeof cand, "%.*s/%s", (int)n, path, name);
        if (n > 0 && access(cand, X_OK) == 0)
            return strdup(cand);
        path += n + (path[n] == ':');
    }
    return NULL;
}

char *
report_chart_gnuplot_find(const char *cmd, char *why, size_t len)
{
    const char *env = getenv("NETSURVEY_GNUPLOT");
    char *gp = NULL;
    if (env != NULL && env[0] != '\0' && strchr(env, '/') == NULL) {
        /* a name, as NETSURVEY_GNUPLOT=gnuplot: on PATH, as a shell would run it */
        if ((gp = path_find(env)) == NULL)
            snprintf(why, len,
                     "NETSURVEY_GNUPLOT names '%.200s', which is no program on PATH (give it a "
                     "path, or a name on PATH, then run %s again)",
                     env, cmd);
        return gp;
    }
    if (env != NULL)
        gp = access(env, X_OK) == 0 ? strdup(env) : NULL;
    else
        gp = path_find("gnuplot");
    if (gp == NULL)
        snprintf(why, len, "gnuplot was not found (install gnuplot, then run %s again)", cmd);
    return gp;
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
report_chart_script_str(struct rbuf *b, const char *s)
{
    report_buf_puts(b, "'");
    for (; *s; s++) {
        if (*s == '\'')
            report_buf_puts(b, "''");
        else
            report_buf_add(b, *s == '\n' || *s == '\r' ? " " : s, 1);
    }
    report_buf_puts(b, "'");
}

void
report_chart_data_str(struct rbuf *b, const char *s)
{
    report_buf_puts(b, "\"");
    for (; *s; s++)
        report_buf_add(b, *s == '"' || *s == '\\' || *s == '\n' ? "'" : s, 1);
    report_buf_puts(b, "\"");
}

void
report_chart_head(struct rbuf *b, const char *tool, const char *key, const char *kind,
                  const char *title)
{
    report_buf_printf(
        b,
        "# %s chart of scenario %s, written by netsurvey %s; edit and run\n"
        "#   gnuplot %s-%s.gp\nset encoding utf8\n"
        "set terminal svg size %d,%d noenhanced font \"sans,%d\" background \"white\"\n"
        "set output \"%s-%s.svg\"\nset title ",
        kind, key, tool, kind, key, CHART_W, CHART_H, REPORT_CHART_FONT, kind, key);
    report_chart_script_str(b, title);
    report_buf_puts(b, "\nset grid ytics lc rgb \"#dddddd\"\nset border 3\nset tics nomirror\n");
}

int
report_chart_emit(struct rchart *cx, const char *key, const char *kind, struct rbuf *script,
                  struct rbuf *data, const char *caption, struct err *e)
{
    char path[4096], name[512];
    snprintf(path, sizeof path, "%s/%s-%s.dat", cx->dir, kind, key);
    int rc = report_write_file(path, data, e);
    snprintf(path, sizeof path, "%s/%s-%s.gp", cx->dir, kind, key);
    if (rc == 0) { /* the caption heads the script: what the chart says, for its reader */
        struct rbuf full;
        report_buf_init(&full);
        report_buf_puts(&full, "# ");
        for (const char *c = caption; *c; c++)
            report_buf_add(&full, *c == '\n' ? " " : c, 1);
        report_buf_puts(&full, "\n");
        report_buf_add(&full, script->data ? script->data : "", script->len);
        rc = full.oom ? err_set(e, NS_ENOMEM, "out of memory writing %s", path)
                      : report_write_file(path, &full, e);
        report_buf_release(&full);
    }
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
    report_buf_init(&b64);
    for (size_t i = 0; i < len; i += 3) {
        unsigned v = (unsigned)(unsigned char)svg[i] << 16;
        if (i + 1 < len)
            v |= (unsigned)(unsigned char)svg[i + 1] << 8;
        if (i + 2 < len)
            v |= (unsigned)(unsigned char)svg[i + 2];
        char q[4] = {tab[v >> 18 & 63], tab[v >> 12 & 63], i + 1 < len ? tab[v >> 6 & 63] : '=',
                     i + 2 < len ? tab[v & 63] : '='};
        report_buf_add(&b64, q, 4);
    }
    free(svg);
    snprintf(name, sizeof name, "%s-%s.svg", kind, key);
    json_array_append_new(cx->list, json_pack("{s:s,s:s,s:s,s:i,s:i}", "file", name, "caption",
                                              caption, "b64", b64.data ? b64.data : "", "width",
                                              CHART_W, "height", CHART_H));
    report_buf_release(&b64);
    return 0;
}

void
report_chart_label(const char *src, const char *dst, char *buf, size_t len)
{
    snprintf(buf, len, "%s → %s", src, dst);
}

void
report_chart_yrange(struct rbuf *b, double lo, double hi)
{
    /* from zero (length is magnitude), below it only as far as an interval reaches, 5 % of room
     * past the highest interval so that its cap stays inside the frame */
    double top = hi > 0.0 ? hi * 1.05 : 1.0, bottom = lo < 0.0 ? lo - 0.05 * (top - lo) : 0.0;
    report_buf_printf(b, "set yrange [%.6g:%.6g]\n", bottom, top);
    if (bottom < 0.0)
        report_buf_puts(b, "set xzeroaxis lt -1\n");
}

/* The chart's unit from the view ("scale": report_scale_json) and its figures' metric. */
static struct testspec_scale
view_scale(const json_t *o, const char *key, const json_t *ssum)
{
    int k = testspec_kind_find(js(ssum, "test"));
    return report_scale_of_json(json_object_get(o, key),
                                k >= 0 ? testspec_kind_metric((enum testspec_kind)k)
                                       : TESTSPEC_M_RTT_MEAN);
}

/* The heat map of the zone matrix: the cells' means in the matrix's unit (the table's), on one
 * sequential scale from 0 (white) to the largest cell (dark blue) whatever the metric, so that
 * darker always means larger; cells nobody measured are grey and marked "—". */
static int
chart_heatmap(struct rchart *cx, const json_t *ssum, const json_t *sview, const json_t *zones,
              const char *key, struct err *e)
{
    const json_t *mv = json_object_get(sview, "matrix");
    struct testspec_scale sc = view_scale(mv, "scale", ssum);
    struct rbuf s, d;
    report_buf_init(&s);
    report_buf_init(&d);
    size_t nz = json_array_size(zones);
    char title[600], cb[300];
    snprintf(title, sizeof title, "%s: %s (%s), rows src zone, columns dst zone", js(sview, "name"),
             js(sview, "words"), sc.unit);
    report_chart_head(&s, "report", key, "heatmap", title);
    snprintf(cb, sizeof cb, "%s (%s)", js(sview, "words"), sc.unit);
    report_buf_printf(&s,
                      "set xrange [-0.5:%zu.5]\nset yrange [%zu.5:-0.5]\nset xlabel \"dst zone\"\n"
                      "set ylabel \"src zone\"\nset cblabel ",
                      nz ? nz - 1 : 0, nz ? nz - 1 : 0);
    report_chart_script_str(&s, cb);
    report_buf_puts(&s,
                    "\nunset grid\nset tics scale 0\n"
                    "set palette defined (0 \"#f7fbff\", 1 \"#c6dbef\", 2 \"#6baed6\", "
                    "3 \"#2171b5\", 4 \"#08306b\")\n"
                    /* grey where no cell is drawn: not measured, not mistaken for a zero */
                    "set object 1 rectangle from graph 0,0 to graph 1,1 behind fc rgb \"#d9d9d9\" "
                    "fs solid 1.0 noborder\n");
    for (int axis = 0; axis < 2; axis++) {
        report_buf_puts(&s, axis ? "set ytics (" : "set xtics (");
        for (size_t z = 0; z < nz; z++) {
            if (z)
                report_buf_puts(&s, ", ");
            report_chart_script_str(&s, js(json_array_get(zones, z), "label"));
            report_buf_printf(&s, " %zu", z);
        }
        report_buf_puts(&s, ")\n");
    }
    double hi = 0.0;
    size_t i;
    const json_t *c;
    json_array_foreach(json_object_get(ssum, "zone_cells"), i, c)
    {
        if (json_integer_value(json_object_get(c, "n")) > 0)
            hi = fmax(hi, jd(c, "mean") / sc.factor);
    }
    report_buf_printf(&d,
                      "# zone matrix of scenario %s, %s in %s\n"
                      "# x (dst zone) y (src zone) mean label label-colour (dark cells: white)\n",
                      key, js(sview, "words"), sc.unit);
    bool *drawn = calloc(nz * nz + 1, sizeof *drawn);
    if (drawn == NULL)
        return err_set(e, NS_ENOMEM, "out of memory drawing a chart");
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
        double v = jd(c, "mean") / sc.factor;
        drawn[y * nz + x] = true;
        report_buf_printf(&d, "%zu %zu %.6g ", x, y, v);
        report_chart_data_str(&d, testspec_scale_text(&sc, jd(c, "mean"), b, sizeof b));
        report_buf_printf(&d, " %d\n", v > 0.55 * hi ? 0xffffff : 0);
    }
    report_buf_puts(&d, "\n\n# cells not measured (no ok trial)\n");
    size_t blank = 0;
    for (size_t y = 0; y < nz; y++)
        for (size_t x = 0; x < nz; x++)
            if (!drawn[y * nz + x]) {
                report_buf_printf(&d, "%zu %zu NaN \"—\" 0\n", x, y);
                blank++;
            }
    free(drawn);
    report_buf_printf(&s, "set cbrange [0:%.6g]\n", hi > 0.0 ? hi : 1.0);
    report_buf_printf(
        &s,
        "plot \"heatmap-%s.dat\" index 0 using 1:2:(0.5):(0.5):3 with boxxyerror "
        "fs solid 1.0 noborder lc palette notitle, \\\n     \"\" index 0 using 1:2:4:5 "
        "with labels tc rgb variable notitle",
        key);
    if (blank > 0)
        report_buf_puts(
            &s, ", \\\n     \"\" index 1 using 1:2:4 with labels tc rgb \"#59636e\" notitle");
    report_buf_puts(&s, "\n");
    char caption[1200], lo_t[64], hi_t[64];
    double lo = INFINITY, hv = -INFINITY;
    json_array_foreach(json_object_get(ssum, "zone_cells"), i, c)
    {
        if (json_integer_value(json_object_get(c, "n")) > 0) {
            lo = fmin(lo, jd(c, "mean"));
            hv = fmax(hv, jd(c, "mean"));
        }
    }
    snprintf(caption, sizeof caption,
             "%s: the zone matrix as a heat map, rows the source zone, columns the destination "
             "zone; colour runs from 0 (white) to the largest cell (dark blue) on one scale for "
             "every metric, darker meaning a larger value (for %s, %s); cells %s to %s %s "
             "(highest %.1f %% above lowest); grey, marked —: not measured",
             js(mv, "caption"), js(sview, "words"),
             testspec_metric_lower_is_better(
                 testspec_kind_metric((enum testspec_kind)testspec_kind_find(js(ssum, "test"))))
                 ? "worse"
                 : "better",
             testspec_scale_text(&sc, lo, lo_t, sizeof lo_t),
             testspec_scale_text(&sc, hv, hi_t, sizeof hi_t), sc.unit,
             lo > 0.0 ? 100.0 * (hv - lo) / lo : 0.0);
    int rc = report_chart_emit(cx, key, "heatmap", &s, &d, caption, e);
    report_buf_release(&s);
    report_buf_release(&d);
    return rc;
}

/* "src → dst" of a host pair or a zone cell. */
static void
unit_label(const json_t *u, bool by_pair, char *buf, size_t len)
{
    if (by_pair)
        report_chart_label(js(u, "src"), js(u, "dst"), buf, len);
    else
        report_chart_label(js(u, "src_zone"), js(u, "dst_zone"), buf, len);
}

/* A bar's mean and CI half-width (NaN: none, one trial) in the reports' unit; false when
 * nothing was measured. */
static bool
bar_value(const json_t *u, bool by_pair, double *mean, double *ci)
{
    const json_t *m = json_object_get(u, by_pair ? "mean_v" : "mean");
    const json_t *h = json_object_get(u, by_pair ? "ci_v" : "ci95_halfwidth");
    if (json_integer_value(json_object_get(u, "n")) == 0 || !json_is_number(m))
        return false;
    *mean = json_number_value(m);
    *ci = json_is_number(h) ? json_number_value(h) : NAN;
    return true;
}

/* The ok trials of a bar: a pair's trial values, or a zone cell's pairs' means. */
static size_t
dots_of(const json_t *u, bool by_pair, const json_t *ssum, double *out, size_t cap)
{
    size_t j, n = 0;
    const json_t *v;
    if (by_pair) {
        json_array_foreach(json_object_get(u, "values_v"), j, v) if (n < cap) out[n++] =
            json_number_value(v);
        return n;
    }
    json_array_foreach(json_object_get(ssum, "pairs"), j, v)
    {
        if (!strcmp(js(v, "src_zone"), js(u, "src_zone")) &&
            !strcmp(js(v, "dst_zone"), js(u, "dst_zone")) &&
            json_integer_value(json_object_get(v, "n")) > 0 && n < cap)
            out[n++] = jd(v, "mean");
    }
    return n;
}

/* x tics of the pairs (or cells): their labels, rotated when many. */
static void
xtics_units(struct rbuf *s, const json_t *units, bool by_pair)
{
    size_t n = json_array_size(units), i;
    const json_t *u;
    report_buf_printf(s, "set xrange [-0.6:%zu.6]\nset xtics %s(", n ? n - 1 : 0,
                      n > 4 ? "rotate by -35 left " : "");
    json_array_foreach(units, i, u)
    {
        char label[512];
        unit_label(u, by_pair, label, sizeof label);
        if (i)
            report_buf_puts(s, ", ");
        report_chart_script_str(s, label);
        report_buf_printf(s, " %zu", i);
    }
    report_buf_puts(s, ")\n");
}

#define CHART_MAX_DOTS 4096 /* dots over one bar: a pair's trials, a cell's pairs */

/* Bars of the means with their 95 % CIs, from zero, the axis holding every interval whole. */
static int
chart_bars(struct rchart *cx, const json_t *sview, const json_t *units, bool by_pair,
           const struct testspec_scale *sc, const char *key, struct err *e)
{
    struct rbuf s, d;
    report_buf_init(&s);
    report_buf_init(&d);
    const char *per = by_pair ? "host pair" : "zone cell";
    char title[600], yl[300];
    snprintf(title, sizeof title, "%s: %s per %s with 95 %% CI (%s)", js(sview, "name"),
             js(sview, "words"), per, sc->unit);
    report_chart_head(&s, "report", key, "bars", title);
    snprintf(yl, sizeof yl, "%s (%s)", js(sview, "words"), sc->unit);
    report_buf_puts(&s, "set ylabel ");
    report_chart_script_str(&s, yl);
    report_buf_puts(&s, "\nset style fill solid 1.0 noborder\nset boxwidth 0.6\n");
    xtics_units(&s, units, by_pair);
    report_buf_printf(&d,
                      "# %s of scenario %s per %s, in %s: index mean ci95_halfwidth (NaN: one "
                      "trial, no interval) label\n",
                      js(sview, "words"), key, per, sc->unit);
    double lo = 0.0, hi = 0.0;
    size_t i;
    const json_t *u;
    json_array_foreach(units, i, u)
    {
        char label[512];
        unit_label(u, by_pair, label, sizeof label);
        double mean, ci;
        if (bar_value(u, by_pair, &mean, &ci)) {
            mean /= sc->factor;
            ci /= sc->factor;
            report_buf_printf(&d, "%zu %.6g %.6g ", i, mean, ci);
            hi = fmax(hi, isnan(ci) ? mean : mean + ci);
            lo = fmin(lo, isnan(ci) ? mean : mean - ci);
        } else {
            report_buf_printf(&d, "%zu NaN NaN ", i);
        }
        report_chart_data_str(&d, label);
        report_buf_puts(&d, "\n");
    }
    report_chart_yrange(&s, lo, hi);
    /* whiskers and their caps as lines (errorbars would draw a point over each mean) */
    report_buf_printf(
        &s,
        "plot \"bars-%s.dat\" using 1:2 with boxes lc rgb \"#4c78a8\" notitle, \\\n"
        "     \"\" using 1:($2-$3):(0):(2*$3) with vectors nohead lw 1.5 lc rgb "
        "\"#1b1f24\" notitle, \\\n"
        "     \"\" using ($1-0.1):($2-$3):(0.2):(0) with vectors nohead lw 1.5 lc rgb "
        "\"#1b1f24\" notitle, \\\n"
        "     \"\" using ($1-0.1):($2+$3):(0.2):(0) with vectors nohead lw 1.5 lc rgb "
        "\"#1b1f24\" notitle\n",
        key);
    char caption[1200];
    json_t *fc = report_fig_caption(sview, js(sview, "words"), sc->unit);
    snprintf(caption, sizeof caption,
             "%s: the mean of each %s as a bar from zero, its 95 %% confidence interval "
             "(Student t) as a whisker, none where one trial gives no interval; the axis holds "
             "every interval whole%s",
             json_string_value(fc), per,
             lo < 0.0 ? ", below zero where an interval reaches there" : "");
    json_decref(fc);
    int rc = report_chart_emit(cx, key, "bars", &s, &d, caption, e);
    report_buf_release(&s);
    report_buf_release(&d);
    return rc;
}
/* Every ok trial of each pair (or each pair's mean of a zone cell) as one dot, from zero: a
 * dot per trial and nothing else (no legend key that could be read as one), the dots of a bar
 * spread sideways so that equal values stay apart. */
static int
chart_trials(struct rchart *cx, const json_t *sview, const json_t *ssum, const json_t *units,
             bool by_pair, const struct testspec_scale *sc, const char *key, struct err *e)
{
    struct rbuf s, d;
    report_buf_init(&s);
    report_buf_init(&d);
    double *dots = malloc(CHART_MAX_DOTS * sizeof *dots);
    if (dots == NULL)
        return err_set(e, NS_ENOMEM, "out of memory drawing a chart");
    const char *per = by_pair ? "host pair" : "zone cell";
    const char *what = by_pair ? "trial" : "host pair's mean";
    char title[600], yl[300];
    snprintf(title, sizeof title, "%s: every %s per %s (%s)", js(sview, "name"), what, per,
             sc->unit);
    report_chart_head(&s, "report", key, "trials", title);
    snprintf(yl, sizeof yl, "%s (%s)", js(sview, "words"), sc->unit);
    report_buf_puts(&s, "set ylabel ");
    report_chart_script_str(&s, yl);
    report_buf_puts(&s, "\n");
    xtics_units(&s, units, by_pair);
    report_buf_printf(&d,
                      "# every %s of scenario %s per %s, in %s: x (index, spread) value index\n",
                      what, key, per, sc->unit);
    double hi = 0.0;
    size_t i, total = 0;
    const json_t *u;
    json_array_foreach(units, i, u)
    {
        size_t n = dots_of(u, by_pair, ssum, dots, CHART_MAX_DOTS);
        double w = n > 1 ? fmin(0.6, 0.15 * (double)(n - 1)) : 0.0;
        for (size_t j = 0; j < n; j++) {
            double x = (double)i + (n > 1 ? w * ((double)j / (double)(n - 1) - 0.5) : 0.0);
            report_buf_printf(&d, "%.4f %.6g %zu\n", x, dots[j] / sc->factor, i);
            hi = fmax(hi, dots[j] / sc->factor);
        }
        total += n;
    }
    free(dots);
    report_chart_yrange(&s, 0.0, hi);
    report_buf_printf(&s,
                      "plot \"trials-%s.dat\" using 1:2 with points pt 7 ps 0.8 lc rgb \"#e45756\" "
                      "notitle\n",
                      key);
    char caption[1200];
    json_t *fc = report_fig_caption(sview, js(sview, "words"), sc->unit);
    snprintf(caption, sizeof caption,
             "%s: every %s of each %s as one dot (%zu in all), spread sideways within its %s "
             "so that equal values stay apart; the axis starts at zero",
             json_string_value(fc), by_pair ? "ok trial" : "host pair's mean", per, total, per);
    json_decref(fc);
    int rc = total > 0 ? report_chart_emit(cx, key, "trials", &s, &d, caption, e) : 0;
    report_buf_release(&s);
    report_buf_release(&d);
    return rc;
}

/* The percentiles' positions on the "nines" axis: -log10(1 - q). */
static double
nines(double q)
{
    return -log10(1.0 - q / 100.0);
}

/* The x tics of the percentiles: a label that would touch the one before it on the line goes
 * one line lower (p25 and p50 sit 0.18 apart). plot_px: the plot's width in pixels, about. */
static void
pct_xtics(struct rbuf *s, double plot_px)
{
    double xmax = nines(histjson_pcts[HISTJSON_NPCT - 1].q);
    double per = plot_px / (xmax + 0.2), last = -1e9;
    bool low = false;
    report_buf_printf(s, "set xrange [0:%.4f]\nset xtics (", xmax + 0.2);
    for (size_t q = 0; q < HISTJSON_NPCT; q++) {
        double x = nines(histjson_pcts[q].q);
        double width = (double)strlen(histjson_pcts[q].name) * REPORT_CHART_FONT * 0.62;
        low = !low && (x - last) * per < width + 6.0;
        if (!low)
            last = x;
        report_buf_printf(s, "%s\"%s%s\" %.4f", q ? ", " : "", low ? "\\n" : "",
                          histjson_pcts[q].name, x);
    }
    report_buf_puts(s, ")\n");
}

static int
chart_percentiles(struct rchart *cx, const json_t *sview, const json_t *units, bool by_pair,
                  const char *key, struct err *e)
{
    struct testspec_scale sc =
        report_scale_of_json(json_object_get(sview, "pcts_scale"), TESTSPEC_M_RTT_MEAN);
    struct rbuf s, d;
    report_buf_init(&s);
    report_buf_init(&d);
    const char *per = by_pair ? "host pair" : "zone cell";
    char title[600];
    snprintf(title, sizeof title, "%s: RTT percentiles per %s (%s)", js(sview, "name"), per,
             sc.unit);
    report_chart_head(&s, "report", key, "percentiles", title);
    report_buf_printf(&s,
                      "set logscale y\nset ylabel \"RTT (%s)\"\nset xlabel \"percentile\"\n"
                      "set key outside right top samplen 2\n",
                      sc.unit);
    pct_xtics(&s, REPORT_CHART_W * 0.5);
    report_buf_puts(&s, "plot ");
    size_t i, curve = 0;
    const json_t *u;
    json_array_foreach(units, i, u)
    {
        const json_t *rtt = json_object_get(u, HISTJSON_RTT);
        if ((by_pair && json_object_get(u, "pcts_v") == NULL) || (!by_pair && rtt == NULL))
            continue;
        char label[512];
        unit_label(u, by_pair, label, sizeof label);
        report_buf_printf(&d, "%s# %zu: ", curve ? "\n\n" : "", curve);
        report_chart_data_str(&d, label);
        report_buf_printf(&d, " (x: -log10(1 - q), RTT in %s)\n", sc.unit);
        for (size_t q = 0; q < HISTJSON_NPCT; q++) {
            double v = by_pair ? json_number_value(json_array_get(json_object_get(u, "pcts_v"), q))
                               : jd(rtt, histjson_pcts[q].key);
            report_buf_printf(&d, "%.4f %.6g\n", nines(histjson_pcts[q].q), v / sc.factor);
        }
        report_buf_printf(&s,
                          "%s\"percentiles-%s.dat\" index %zu using 1:2 with linespoints lw 1.5 "
                          "ps 0.8 title ",
                          curve ? ", \\\n     " : "", key, curve);
        report_chart_script_str(&s, label);
        if (++curve >= CHART_MAX_CURVES && !by_pair)
            break;
    }
    report_buf_puts(&s, "\n");
    char caption[1200];
    json_t *fc = report_fig_caption(sview, "RTT percentiles", sc.unit);
    snprintf(caption, sizeof caption,
             "%s: the percentiles of each %s's merged histograms, on a log scale of RTT; the "
             "percentile axis spreads the tail (its position is -log10(1 - q): p90 at 1, p99 "
             "at 2, ...); the key is outside the plot",
             json_string_value(fc), per);
    json_decref(fc);
    int rc = 0;
    if (curve > 0)
        rc = report_chart_emit(cx, key, "percentiles", &s, &d, caption, e);
    report_buf_release(&s);
    report_buf_release(&d);
    return rc;
}

/* A scenario's charts: the heat map (zones only), bars and dots of its pairs, or of its zone
 * cells when the pairs are too many to read, and its percentile curves. */
static int
scenario_charts(struct rchart *cx, const json_t *sv, const json_t *ss, const json_t *zones,
                bool zoned, struct err *e)
{
    const char *key = js(sv, "file_key");
    const json_t *pairs = json_object_get(sv, "pairs");
    size_t np = json_array_size(pairs);
    int rc = 0;
    if (zoned)
        rc = chart_heatmap(cx, ss, sv, zones, key, e);
    bool by_pair = np <= CHART_MAX_BARS;
    if (rc == 0 && (by_pair || zoned)) {
        const json_t *units = by_pair ? pairs : json_object_get(ss, "zone_cells");
        struct testspec_scale sc = view_scale(by_pair ? sv : json_object_get(sv, "matrix"),
                                              by_pair ? "pairs_scale" : "scale", ss);
        rc = chart_bars(cx, sv, units, by_pair, &sc, key, e);
        if (rc == 0)
            rc = chart_trials(cx, sv, ss, units, by_pair, &sc, key, e);
    }
    by_pair = np <= CHART_MAX_CURVES;
    if (rc == 0 && json_is_true(json_object_get(sv, "has_rtt")) && (by_pair || zoned))
        rc = chart_percentiles(cx, sv, by_pair ? pairs : json_object_get(ss, "zone_cells"), by_pair,
                               key, e);
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
    char why[512];
    char *gp = report_chart_gnuplot_find("netsurvey report", why, sizeof why);
    cx.gp = gp;
    const json_t *zones = json_object_get(sum, "zones");
    bool zoned = !json_is_false(json_object_get(sum, "zones_given"));
    size_t i, drawable = 0;
    json_t *sv;
    int rc = 0;
    json_array_foreach(json_object_get(view, "scenarios"), i, sv)
    {
        const json_t *ss = json_array_get(json_object_get(sum, "scenarios"), i);
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
        rc = scenario_charts(&cx, sv, ss, zones, zoned, e);
        json_object_set_new(sv, "charts", cx.list);
        if (rc != 0)
            break;
    }
    free(gp);
    if (rc == 0 && cx.gp == NULL && drawable > 0)
        json_object_set_new(view, "charts_note",
                            report_jprintf("Charts were skipped: %s; their scripts and data are "
                                           "in charts/.",
                                           why));
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
