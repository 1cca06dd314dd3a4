/* output.h - what the report module lends to src/history (compare, trend): growable buffers
 * and atomic file writes, the JSON accessors of summaries and views, how a kind's figure is
 * written for people, the template engine and its compiled-in templates, and gnuplot charts.
 * Everything else of the report module is internal to it (reportint.h). */
#ifndef NS_REPORT_OUTPUT_H
#define NS_REPORT_OUTPUT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/testspec.h"

struct err;
/* --- a growable byte buffer ------------------------------------------------------------- */
struct rbuf {
    char *data;
    size_t len, cap;
    bool oom;   /* sticky: every append after a failed one is ignored */
    FILE *sink; /* when set, all but the last RBUF_KEEP bytes go out past RBUF_FLUSH */
    bool sink_err;
};
#define RBUF_FLUSH (1u << 20)
#define RBUF_KEEP 4096u /* the template engine may trim trailing blanks of the current line */
void report_buf_init(struct rbuf *b);
void report_buf_release(struct rbuf *b);
void report_buf_add(struct rbuf *b, const char *s, size_t n);
void report_buf_puts(struct rbuf *b, const char *s);
void report_buf_printf(struct rbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* s as one CSV text field (RFC 4180: quoted when it holds a comma, quote or line break, its
 * quotes doubled), with a ' in front when it begins with '=', '+', '-', '@', a tab or a CR, so
 * that a spreadsheet shows it and never runs it as a formula (OWASP's advice on CSV injection):
 * every CSV the reports write writes its texts (labels, names, run ids) this one way. Figures
 * are not texts: written as numbers, a negative one stays a number. */
void report_buf_csv_field(struct rbuf *b, const char *s);

/* The printf-formatted text as a part of a file name, into out: every byte but letters, digits,
 * '.', '_' and '-' becomes '_' (a scenario's name in matrix-<key>.csv, trend-<key>.csv, ...). */
void report_file_key(char *out, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* A scenario's file key, the one place it is made: its name as report_file_key keeps it, then
 * for a value of a sweep '=' and the value as a plan writes it ("tput=64K"), then for a
 * scenario measured over both families '-' and the family ("tput=64K-ipv6"). No name gives
 * an '=' (report_file_key replaces it) and no value text a '-' or '=', so the values of a
 * sweep, and a sweep and any other scenario, never share a key: matrix-tput=64K.csv and
 * matrix-tput=1K.csv, and every chart of each, stay apart ('=' rather than '@', which Markdown
 * renderers take for an e-mail address). value and fam may be NULL (none). */
void report_scenario_key(char *buf, size_t len, const char *name, const char *value,
                         const char *fam);

/* Stream into path atomically: open path.tmp as b's sink; finish writes the rest and renames
 * (or removes the tmp file when rc != 0). Return 0 or NS_E*. */
int report_stream_open(const char *path, struct rbuf *b, struct err *e);
int report_stream_finish(const char *path, struct rbuf *b, int rc, struct err *e);

/* Write the buffer to path atomically (tmp + rename). Returns 0 or NS_EIO/NS_ENOMEM. */
int report_write_file(const char *path, const struct rbuf *b, struct err *e);
/* Read a whole file (caller frees *out, NUL-terminated). */
int report_read_file(const char *path, char **out, size_t *len, size_t cap, struct err *e);

/* Members of the JSON the reports build and read (summary.json, the views): a member that is
 * absent or of another type reads as "" or 0, as a template shows it. */
static inline const char *
js(const json_t *o, const char *k)
{
    const char *s = json_string_value(json_object_get(o, k));
    return s != NULL ? s : "";
}

static inline json_int_t
ji(const json_t *o, const char *k)
{
    return json_integer_value(json_object_get(o, k));
}

static inline double
jd(const json_t *o, const char *k)
{
    return json_number_value(json_object_get(o, k));
}

/* A JSON string of the printf-formatted text, cut at 1023 bytes (new reference). */
json_t *report_jprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Between begin and end, jansson allocates from big chunks freed all at once at the end (see
 * util.c); every JSON value made in between must be released before end. Process-wide: no
 * other thread may use jansson meanwhile. Nests. */
void report_jarena_begin(void);
void report_jarena_end(void);

/* The order of zone and region labels: "zone 2" < "zone 10" (digit runs compare as numbers,
 * the rest byte by byte). */
int report_natcmp(const char *a, const char *b);

/* What the reports say of a test kind is the table's (common/testspec.h: testspec_kind_unit,
 * testspec_kind_words, testspec_kind_value_text, ...; the journal refuses other kinds). */
const char *report_family_name(int family);

/* --- one unit per figure (figure.c) ----------------------------------------------------------- */

/* Values gathered for a figure, to choose its unit. */
struct rvals {
    double *v;
    size_t n, cap;
    bool oom; /* sticky: the values after a failed growth are dropped (the unit only) */
};
void report_vals_add(struct rvals *r, double v);
void report_vals_release(struct rvals *r);

/* The typical magnitude of a figure's values: the median of |v| over the finite values that are
 * not zero (0 when none). v is reordered and overwritten. */
double report_typical(double *v, size_t n);
/* The unit of metric m for a figure of the values v[0..n) (reordered): testspec_scale_for of
 * their typical magnitude. */
struct testspec_scale report_scale(enum testspec_metric m, double *v, size_t n);
/* A figure's unit in the view ({"unit", "factor", "decimals"}), new reference; and read back
 * (its unit borrowed from o; m's own unit when o is not one). */
json_t *report_scale_json(const struct testspec_scale *s);
struct testspec_scale report_scale_of_json(const json_t *o, enum testspec_metric m);
/* v in s without its unit (testspec_scale_text), as a new JSON string. */
json_t *report_scaled_json(const struct testspec_scale *s, double v);

/* --- templates ----------------------------------------------------------------------------- */
enum tmpl_mode { TMPL_TEXT, TMPL_MARKDOWN, TMPL_HTML };

/* Render a Mustache-like template over ctx:
 *   {{a.b}} value (escaped for the mode)   {{{a}}} raw   {{.}} the current item
 *   {{#a}}..{{/a}} loop over an array, enter an object, or show if true/non-empty
 *   {{^a}}..{{/a}} show if a is false, null, missing, "" or []     {{! comment}}
 * Errors (unbalanced sections) go to e with the template's line. */
int report_tmpl_render(const char *tmpl, const json_t *ctx, enum tmpl_mode mode, struct rbuf *out,
                       struct err *e);
/* Escape s for the mode into out. */
void report_tmpl_escape(struct rbuf *out, const char *s, enum tmpl_mode mode);

/* A template compiled into the binary (cmake's ns_embed_files). */
struct report_builtin {
    const char *name; /* the file name in templates/: "report.md" */
    const unsigned char *text;
};
/* The template of that name: from the directory NETSURVEY_TEMPLATES names when it has the
 * file (*owned then holds it: the caller frees), else from set[0..n); NULL when neither has
 * it. */
const char *report_template_in(const struct report_builtin *set, size_t n, const char *name,
                               char **owned);
/* report_template_in over the report's own templates: report.md, report.html, report.css. */
const char *report_template(const char *name, char **owned);

/* --- charts -------------------------------------------------------------------------------- */
/* Past these counts, charts draw zone cells instead of host pairs (a bar per pair of 9 900
 * would be unreadable). */
#define REPORT_CHART_MAX_BARS 40
#define REPORT_CHART_MAX_CURVES 12

/* What report's and trend's charts share: an SVG of 800 x 450 whose text is 15 px at that
 * size (shown in an 800 px window, the page's column scales it to about 0.95: 14 px). */
#define REPORT_CHART_W 800
#define REPORT_CHART_H 450
#define REPORT_CHART_FONT 15

/* gnuplot's executable (caller frees): NETSURVEY_GNUPLOT, a path or a name looked up on PATH as
 * a shell would, else "gnuplot" on PATH. NULL when there is none, why into why (len bytes): a
 * sentence for the reports' note, whose advice names cmd ("netsurvey report"). */
char *report_chart_gnuplot_find(const char *cmd, char *why, size_t len);
/* A label inside a gnuplot script: a single-quoted string, in which gnuplot performs no
 * backquote command substitution and no @macro expansion (a double-quoted string in a script
 * would run `...` from a zone or host name); a quote is doubled, a line break becomes a space. */
void report_chart_script_str(struct rbuf *b, const char *s);
/* A label inside a data file's double-quoted field (data is never substituted): no quote,
 * backslash or newline. */
void report_chart_data_str(struct rbuf *b, const char *s);

/* The head of a chart's script: how to run it again, UTF-8 text (a name's _ ^ { } as written:
 * no enhanced text), the SVG terminal at the shared size and font, the output, the title, a
 * light grid. tool: "report" or "trend", the command that wrote it. */
void report_chart_head(struct rbuf *b, const char *tool, const char *key, const char *kind,
                       const char *title);
/* A pair's or a cell's label: "src → dst". */
void report_chart_label(const char *src, const char *dst, char *buf, size_t len);
/* The y range of a chart whose length says the magnitude: from zero (lower only as far as lo, an
 * interval's low end, reaches below it) to a little above hi (the highest interval's top), so
 * that every interval is whole inside it. */
void report_chart_yrange(struct rbuf *b, double lo, double hi);

/* Charts being drawn into one folder. */
struct rchart {
    const char *dir; /* the charts/ folder */
    const char *gp;  /* gnuplot (report_chart_gnuplot_find), or NULL: scripts and data only */
    json_t *list;    /* the charts drawn, for the view: file, caption, b64, width, height */
    FILE *warn;      /* a chart gnuplot could not draw, one a line; NULL: not said */
    int ran, failed;
    char firsterr[256];
};

/* Write <kind>-<key>.dat and .gp into cx->dir, run gnuplot on the script there (a timeout of
 * 60 s) and append the SVG it drew to cx->list, base64 for inline use. A chart gnuplot could not
 * draw is counted in cx->failed (its first error kept), not an error. Returns 0 or NS_E* (a file
 * not written). */
int report_chart_emit(struct rchart *cx, const char *key, const char *kind, struct rbuf *script,
                      struct rbuf *data, const char *caption, struct err *e);

/* A summary's cell (or host pair) with ok trials that its hosts bent (its "flagged" object,
 * common/hostflags.h), for people: "2 of 3 trials flagged (drops 2, stall 1); 154.2 Mbit/s
 * without them". NULL (no reference) when none was flagged. New reference. */
json_t *report_flagged_text(enum testspec_kind k, const json_t *cell);

/* A zone cell's value as matrix-<scenario>.csv holds it (the mean of its ok trials, "%.3f"),
 * appended to b; nothing when it has no ok trial (trend-<scenario>.csv repeats it). */
void report_matrix_value(struct rbuf *b, const json_t *cell);

#endif
