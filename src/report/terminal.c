/* terminal.c - the zone matrices of a report as text for a terminal: what `netsurvey run` prints
 * when a survey ends, read from the summary the report has just built (the same numbers as
 * summary.json and report.md; nothing is computed again). One unit per matrix, chosen for its
 * largest mean; each cell is the mean of its ok trials and, with two or more, the half-width of
 * its 95 % confidence interval in the same unit. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/testspec.h"
#include "common/text.h"
#include "journal/record.h"
#include "report/reportint.h"

#define TERM_CELL 48 /* bytes of a cell's text */

/* The unit for values up to max of a kind's headline metric (in the reports' unit): the one
 * the reports would give a figure whose largest value is max (common/testspec.h's scales: time
 * in µs, ms or s, rates from kbit/s to Tbit/s, other figures in their own unit). */
struct report_unit
report_unit_for(const char *test, double max)
{
    int kind = testspec_kind_find(test);
    if (kind < 0)
        return (struct report_unit){"", 1.0};
    struct testspec_scale s =
        testspec_scale_for(testspec_kind_metric((enum testspec_kind)kind), max);
    return (struct report_unit){s.unit, s.factor};
}

/* Decimals that give a value of this size four significant digits, as the reports print. */
static int
term_decimals(double v)
{
    v = fabs(v);
    return v >= 1000.0 ? 0 : v >= 100.0 ? 1 : v >= 10.0 ? 2 : 3;
}

/* The cell of src -> dst in cells, or NULL. */
static const json_t *
term_cell(const json_t *cells, const char *src, const char *dst)
{
    size_t i;
    const json_t *c;
    json_array_foreach(cells, i, c)
    {
        if (strcmp(js(c, "src_zone"), src) == 0 && strcmp(js(c, "dst_zone"), dst) == 0)
            return c;
    }
    return NULL;
}

/* What a cell shows: "31.93 ± 5.55", "31.93" (one ok trial), with "(2/3 ok)" when not every
 * planned trial is ok; "failed", "not run", or "—" (no host pair) when it has no ok trial. */
static void
term_cell_text(const json_t *c, struct report_unit u, char *buf, size_t len)
{
    if (c == NULL) {
        snprintf(buf, len, "—");
        return;
    }
    json_int_t n = ji(c, "n"), planned = ji(c, "planned");
    if (n == 0) {
        snprintf(buf, len, "%s", ji(c, "failed") > 0 ? "failed" : "not run");
        return;
    }
    double mean = jd(c, "mean") / u.div;
    int dec = term_decimals(mean);
    int used = snprintf(buf, len, "%.*f", dec, mean);
    const json_t *hw = json_object_get(c, "ci95_halfwidth");
    if (n >= 2 && json_is_number(hw) && used > 0 && (size_t)used < len)
        used +=
            snprintf(buf + used, len - (size_t)used, " ± %.*f", dec, json_number_value(hw) / u.div);
    if (n < planned && used > 0 && (size_t)used < len)
        used += snprintf(buf + used, len - (size_t)used, " (%d/%d ok)", (int)n, (int)planned);
    (void)used; /* a cut cell is still a cell: TERM_CELL holds every figure a journal gives */
}

/* Characters a terminal shows for s (UTF-8: one per code point). */
static size_t
term_width(const char *s)
{
    size_t w = 0;
    for (; *s; s++)
        w += ((unsigned char)*s & 0xC0) != 0x80;
    return w;
}

static void
term_pad(FILE *out, const char *s, size_t width)
{
    fputs(s, out);
    for (size_t w = term_width(s); w < width; w++)
        fputc(' ', out);
}

/* The heading of a scenario's matrix. */
static void
term_heading(FILE *out, const json_t *s, struct report_unit u)
{
    char name[320], test[64], label[320];
    text_escape(js(s, "name"), name, sizeof name);
    const json_t *sw = json_object_get(s, "sweep"); /* a value of a sweep: which one */
    if (sw != NULL) {
        int p = journal_param_find(js(sw, "param"));
        snprintf(label, sizeof label, "%.255s %s %s", name,
                 p >= 0 ? testspec_key((enum testspec_param)p) : "?", js(sw, "text"));
        memcpy(name, label, sizeof name);
    }
    text_escape(js(s, "test"), test, sizeof test);
    const char *dir = json_is_true(json_object_get(s, "reverse")) ? "; data flows dst → src" : "";
    fprintf(out, "%s (%s, %s): %s in %s%s\n", name, test, js(s, "family"), js(s, "metric"), u.name,
            dir);
}

/* One scenario's zone matrix. */
static void
term_matrix(FILE *out, const json_t *s, const json_t *zones)
{
    const json_t *cells = json_object_get(s, "zone_cells"), *c;
    size_t nz = json_array_size(zones), i;
    double max = 0;
    json_array_foreach(cells, i, c)
    {
        if (ji(c, "n") > 0 && fabs(jd(c, "mean")) > max)
            max = fabs(jd(c, "mean"));
    }
    struct report_unit u = report_unit_for(js(s, "test"), max);
    term_heading(out, s, u);
    if (json_array_size(cells) == 0) {
        fprintf(out, "  no trial of this scenario was recorded\n");
        return;
    }
    char label[TERM_CELL], text[TERM_CELL];
    size_t w0 = strlen("src\\dst"), w = 0;
    for (size_t r = 0; r < nz; r++) {
        text_escape(js(json_array_get(zones, r), "label"), label, sizeof label);
        w0 = term_width(label) > w0 ? term_width(label) : w0;
        w = term_width(label) > w ? term_width(label) : w;
        for (size_t k = 0; k < nz; k++) {
            term_cell_text(term_cell(cells, js(json_array_get(zones, r), "label"),
                                     js(json_array_get(zones, k), "label")),
                           u, text, sizeof text);
            w = term_width(text) > w ? term_width(text) : w;
        }
    }
    fputs("  ", out);
    term_pad(out, "src\\dst", w0 + 2);
    for (size_t k = 0; k < nz; k++) {
        text_escape(js(json_array_get(zones, k), "label"), label, sizeof label);
        term_pad(out, label, k + 1 < nz ? w + 2 : 0);
    }
    fputc('\n', out);
    for (size_t r = 0; r < nz; r++) {
        const char *src = js(json_array_get(zones, r), "label");
        text_escape(src, label, sizeof label);
        fputs("  ", out);
        term_pad(out, label, w0 + 2);
        for (size_t k = 0; k < nz; k++) {
            term_cell_text(term_cell(cells, src, js(json_array_get(zones, k), "label")), u, text,
                           sizeof text);
            term_pad(out, text, k + 1 < nz ? w + 2 : 0);
        }
        fputc('\n', out);
    }
}

void
report_matrices_write(const json_t *sum, FILE *out)
{
    size_t i;
    const json_t *s;
    fprintf(out, "\nzone matrices: each cell the mean of its ok trials \u00b1 their 95 %% CI "
                 "half-width; rows src, columns dst\n");
    json_array_foreach(json_object_get(sum, "scenarios"), i, s)
    {
        fputc('\n', out);
        term_matrix(out, s, json_object_get(sum, "zones"));
    }
}
