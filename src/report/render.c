/* render.c - write the outputs of a report: summary.json, matrix-<scenario>.csv, charts/,
 * report.md and report.html, each atomically. Nothing here reads a clock. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/errors.h"
#include "report/cells.h"
#include "report/matrixstat.h"
#include "report/report.h"
#include "report/reportint.h"

extern const unsigned char ns_tmpl_report_md[], ns_tmpl_report_html[], ns_tmpl_report_css[],
    ns_tmpl_compare_md[], ns_tmpl_compare_html[], ns_tmpl_compare_summary_md[], ns_tmpl_trend_md[],
    ns_tmpl_trend_html[];

static const struct {
    const char *name;
    const unsigned char *text;
} builtin[] = {
    {"report.md", ns_tmpl_report_md},       {"report.html", ns_tmpl_report_html},
    {"report.css", ns_tmpl_report_css},     {"compare.md", ns_tmpl_compare_md},
    {"compare.html", ns_tmpl_compare_html}, {"compare-summary.md", ns_tmpl_compare_summary_md},
    {"trend.md", ns_tmpl_trend_md},         {"trend.html", ns_tmpl_trend_html}};

const char *
report_template(const char *name, char **owned)
{
    *owned = NULL;
    const char *dir = getenv("NETSURVEY_TEMPLATES");
    if (dir != NULL && *dir) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, name);
        if (report_read_file(path, owned, NULL, 4u << 20, NULL) == 0)
            return *owned;
    }
    for (size_t i = 0; i < sizeof builtin / sizeof builtin[0]; i++)
        if (strcmp(builtin[i].name, name) == 0)
            return (const char *)builtin[i].text;
    return NULL;
}

static int
render_template(const char *name, const json_t *view, enum tmpl_mode mode, const char *path,
                struct err *e)
{
    char *owned;
    const char *t = report_template(name, &owned);
    if (t == NULL)
        return err_set(e, NS_ENOTFOUND, "no template %s", name);
    struct rbuf b;
    rbuf_init(&b);
    int rc = report_stream_open(path, &b, e);
    if (rc == 0) {
        rc = tmpl_render(t, view, mode, &b, e);
        if (rc != 0)
            err_prefix(e, "%s", name);
        rc = report_stream_finish(path, &b, rc, e);
    }
    rbuf_release(&b);
    free(owned);
    return rc;
}

/* matrix CSV: "src\dst,<label>,..." then one row per source; empty where nothing measured. */
static int
write_csv(const char *path, const json_t *labels, const json_t *cells, const char *srckey,
          const char *dstkey, struct err *e)
{
    struct rbuf b;
    rbuf_init(&b);
    rbuf_puts(&b, "src\\dst");
    size_t n = json_array_size(labels);
    for (size_t c = 0; c < n; c++) {
        rbuf_puts(&b, ",");
        rcell_csv_field(&b, json_string_value(json_array_get(labels, c)));
    }
    rbuf_puts(&b, "\n");
    for (size_t r = 0; r < n; r++) {
        const char *rl = json_string_value(json_array_get(labels, r));
        rcell_csv_field(&b, rl);
        for (size_t c = 0; c < n; c++) {
            const char *cl = json_string_value(json_array_get(labels, c));
            rbuf_puts(&b, ",");
            size_t i;
            const json_t *cell;
            json_array_foreach(cells, i, cell)
            {
                if (strcmp(json_string_value(json_object_get(cell, srckey)), rl) == 0 &&
                    strcmp(json_string_value(json_object_get(cell, dstkey)), cl) == 0)
                    rcell_matrix_value(&b, cell); /* the value trend-<scenario>.csv repeats */
            }
        }
        rbuf_puts(&b, "\n");
    }
    int rc = report_write_file(path, &b, e);
    rbuf_release(&b);
    return rc;
}

static int
write_csvs(const char *out, const json_t *sum, struct err *e)
{
    json_t *zl = json_array();
    size_t i;
    const json_t *z, *s;
    json_array_foreach(json_object_get(sum, "zones"), i, z)
        json_array_append(zl, json_object_get(z, "label"));
    int rc = 0;
    json_array_foreach(json_object_get(sum, "scenarios"), i, s)
    {
        char path[4096];
        const char *key = json_string_value(json_object_get(s, "file_key"));
        snprintf(path, sizeof path, "%s/matrix-%s.csv", out, key);
        rc = write_csv(path, zl, json_object_get(s, "zone_cells"), "src_zone", "dst_zone", e);
        if (rc == 0 && json_object_get(s, "region_cells") != NULL) {
            snprintf(path, sizeof path, "%s/matrix-%s-regions.csv", out, key);
            rc = write_csv(path, json_object_get(sum, "regions"),
                           json_object_get(s, "region_cells"), "src_region", "dst_region", e);
        }
        if (rc != 0)
            break;
    }
    json_decref(zl);
    return rc;
}

static int
json_to_rbuf(const char *buffer, size_t size, void *data)
{
    rbuf_add(data, buffer, size);
    return ((struct rbuf *)data)->oom ? -1 : 0;
}

/* Streamed: a 100 000-trial summary is ~10 MB of text that need not sit in memory. */
static int
write_json(const char *path, const json_t *j, struct err *e)
{
    struct rbuf b;
    rbuf_init(&b);
    int rc = report_stream_open(path, &b, e);
    if (rc == 0) {
        if (json_dump_callback(j, json_to_rbuf, &b, JSON_INDENT(1) | JSON_REAL_PRECISION(10)) != 0)
            rc = err_set(e, NS_ENOMEM, "out of memory writing %s", path);
        rbuf_puts(&b, "\n");
        rc = report_stream_finish(path, &b, rc, e);
    }
    rbuf_release(&b);
    return rc;
}

int
report_render(const struct report_opts *o, struct err *e)
{
    const char *out = o->out;
    if (mkdir(out, 0755) != 0 && errno != EEXIST)
        return err_sys(e, NS_EIO, errno, "cannot create %s", out);
    report_jarena_begin();
    struct rmodel *m;
    int rc = o->by_zone_id ? rmodel_load_by_zone_id(o->dirs, o->ndirs, o->warn, &m, e)
                           : rmodel_load(o->dirs, o->ndirs, o->warn, &m, e);
    if (rc != 0) {
        report_jarena_end();
        return rc;
    }
    json_t *sum = NULL, *view = NULL;
    rc = report_aggregate(m, &sum, &view, e);
    rmodel_free(m);
    char path[4096];
    if (rc == 0) {
        snprintf(path, sizeof path, "%s/summary.json", out);
        rc = write_json(path, sum, e);
    }
    if (rc == 0)
        rc = write_csvs(out, sum, e);
    if (rc == 0)
        rc = report_matrix_csvs(out, sum, e);
    if (rc == 0)
        rc = report_charts(out, sum, view, o->warn, e);
    if (rc == 0) {
        char *owned;
        const char *css = report_template("report.css", &owned);
        json_object_set_new(view, "css", json_string(css ? css : ""));
        free(owned);
        snprintf(path, sizeof path, "%s/report.md", out);
        rc = render_template("report.md", view, TMPL_MARKDOWN, path, e);
    }
    if (rc == 0) {
        snprintf(path, sizeof path, "%s/report.html", out);
        rc = render_template("report.html", view, TMPL_HTML, path, e);
    }
    json_decref(sum);
    json_decref(view);
    report_jarena_end();
    return rc;
}
