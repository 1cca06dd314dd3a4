/* reportint.h - internals of the report module, shared by its files (not for other modules).
 *
 * The data's way: model.c loads run directories (through journal/journal.h) into a `struct rmodel`
 * (hosts, scenarios, host pairs and their deduplicated trials), aggregate.c turns it into the
 * summary (JSON, numbers with units) and the view (same shape, strings for people), tmpl.c renders
 * templates over the view, charts.c writes gnuplot scripts and runs gnuplot, render.c writes the
 * files. */
#ifndef NS_REPORTINT_H
#define NS_REPORTINT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/testspec.h"
#include "common/trials.h"

struct err;
struct journal_run;

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
void rbuf_init(struct rbuf *b);
void rbuf_release(struct rbuf *b);
void rbuf_add(struct rbuf *b, const char *s, size_t n);
void rbuf_puts(struct rbuf *b, const char *s);
void rbuf_printf(struct rbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Stream into path atomically: open path.tmp as b's sink; finish writes the rest and renames
 * (or removes the tmp file when rc != 0). Return 0 or NS_E*. */
int report_stream_open(const char *path, struct rbuf *b, struct err *e);
int report_stream_finish(const char *path, struct rbuf *b, int rc, struct err *e);

/* Write the buffer to path atomically (tmp + rename). Returns 0 or NS_EIO/NS_ENOMEM. */
int report_write_file(const char *path, const struct rbuf *b, struct err *e);
/* Read a whole file (caller frees *out, NUL-terminated). */
int report_read_file(const char *path, char **out, size_t *len, size_t cap, struct err *e);

/* Between begin and end, jansson allocates from big chunks freed all at once at the end (see
 * util.c); every JSON value made in between must be released before end. Process-wide: no
 * other thread may use jansson meanwhile. Nests. */
void report_jarena_begin(void);
void report_jarena_end(void);

/* --- the model of one or several journals ------------------------------------------------ */

/* A trial's latency distribution, as nsperf sent it, its sparse buckets (placed in hist.h's
 * layout, ascending) packed as LEB128 varints: the index's step from the previous bucket's,
 * then the count. A 100 000-trial journal holds ~60 million buckets (1 024 per octave): most
 * steps and counts take a byte each, so ~2.3 bytes a bucket instead of 8 (README "Reports"). */
struct rrtt {
    uint64_t n;
    double min_ns, max_ns, mean_ns, m2;
    uint32_t nb;          /* buckets */
    uint32_t len;         /* bytes at enc */
    uint32_t first, last; /* the lowest and highest bucket index, when nb > 0 */
    const uint8_t *enc;
};

struct rtrial {
    uint32_t n; /* trial number, 1-based */
    bool ok;
    char *error;  /* failed: the reason */
    double value; /* the headline metric (us, Mbit/s, conn/s) */
    bool has_cpu, has_retrans, has_udp;
    double cpu_local, cpu_remote, retrans, lost_pct, jitter_us;
    struct rrtt rtt; /* n == 0 when none */
};

struct rhost {
    char *name, *zone, *region, *addr;
    const json_t *env; /* borrowed from the run.json that named the host, or NULL */
    /* The physical zone (run.json's zone_id, else env.cloud.zone_id) and the run's warning
     * that the plan's place differs from the metadata's; borrowed like env, NULL when none. */
    const char *zone_id, *zone_warning;
    int zone_idx;
};

struct rzone {
    char *region, *zone, *label;
    int region_idx;
};

struct rscen {
    char *name, *test;
    enum testspec_kind kind;
    bool reverse;
    json_t *def; /* the scenario object of the first run that named it (owned) */
    /* trials per pair as the first run that names it (run.json) planned them; adaptive ones
     * get a verdict per pair (target met, max reached) */
    struct trials_policy policy;
};

struct rpair {
    int scen, src, dst, family; /* family: 0 ipv4, 1 ipv6 */
    struct rtrial *t;           /* sorted by trial number after loading */
    size_t nt, capt;
};

struct rrun {
    char *dir;
    struct journal_run *run; /* run.json (owned) */
};

struct rmodel {
    struct rrun *runs;
    size_t nruns;
    bool by_zone_id; /* zones are the hosts' zone_id (report --by zone_id) */
    struct rhost *hosts;
    size_t nhosts, caphosts;
    uint32_t *hidx; /* open-addressing index of hosts by (name, region) */
    size_t hidx_cap;
    struct rzone *zones;
    size_t nzones;
    char **regions;
    size_t nregions;
    struct rscen *scens;
    size_t nscens, capscens;
    struct rpair *pairs;
    size_t npairs, cappairs;
    /* open-addressing index of pairs by (scen, family, src, dst) */
    uint32_t *pidx;
    size_t pidx_cap;
    size_t torn_lines, skipped_lines;
    FILE *warn;            /* where skipped journal lines are said; NULL: not said */
    struct rblock *blocks; /* where the trials' packed buckets live */
    uint64_t *sortbuf;     /* scratch: a trial's buckets, (index << 48 | count), to sort */
    size_t sortcap;
    bool no_hist; /* the trials' buckets are not kept (rmodel_load_nohist) */
};

/* Load the run directories (each holding run.json and results.jsonl). A line that is not a
 * trial record is skipped and counted, with a warning to warn (NULL: none). Returns 0 or NS_E*;
 * *out is freed with rmodel_free. */
int rmodel_load(const char *const *dirs, int ndirs, FILE *warn, struct rmodel **out, struct err *e);
/* The same model without the trials' histograms: every figure but the latency percentiles is
 * the same, at a fraction of the memory and time (what a trend reads of each of its runs). */
int rmodel_load_nohist(const char *const *dirs, int ndirs, FILE *warn, struct rmodel **out,
                       struct err *e);
/* As rmodel_load, the zones being the hosts' physical zones (zone_id: report --by zone_id);
 * NS_EINVAL, naming them, when some host has none. */
int rmodel_load_by_zone_id(const char *const *dirs, int ndirs, FILE *warn, struct rmodel **out,
                           struct err *e);
void rmodel_free(struct rmodel *m);

/* The order of zone and region labels: "zone 2" < "zone 10" (digit runs compare as numbers,
 * the rest byte by byte). */
int rnatcmp(const char *a, const char *b);

/* What the reports say of a test kind (testspec.h's; the journal refuses others). */
const char *rkind_unit(enum testspec_kind k);   /* "us", "Mbit/s", "conn/s" */
const char *rkind_metric(enum testspec_kind k); /* "mean RTT", "throughput", "connections/s" */
bool rkind_lower_is_better(enum testspec_kind k);
bool rkind_has_rtt(enum testspec_kind k);
const char *rfamily_name(int family);

/* Merge a trial's buckets into a dense scratch histogram (struct hist). */
struct hist;
void rrtt_merge_into(struct hist *h, const struct rrtt *r);

/* --- statistics over the model ----------------------------------------------------------- */
#define REPORT_CV_THRESHOLD 0.10 /* a cell whose trials vary more than 10 % is flagged */

/* Percentiles read from merged histograms, in this order (also the table's columns). */
#define REPORT_NPCT 8
extern const double report_pcts[REPORT_NPCT];
extern const char *const report_pct_keys[REPORT_NPCT];
extern const char *const report_pct_names[REPORT_NPCT];

/* Build summary (numbers) and view (strings for the templates) of m. New references. */
int report_aggregate(const struct rmodel *m, json_t **summary, json_t **view, struct err *e);
/* The summary's head and, per scenario and family, its own members, trial counts and zone
 * cells, as report_aggregate computes them; no host pairs, failures, region cells, stat
 * matrices or asymmetry (matrixstat.h), or view (a
 * trend of many runs reads nothing else, and building those is most of report_aggregate's
 * time). New reference in *summary. */
int report_aggregate_cells(const struct rmodel *m, json_t **summary, struct err *e);

/* Format helpers shared by aggregate and compare ("329.3 us", "12.10 Gbit/s", "4301 conn/s"). */
char *report_fmt_metric(enum testspec_kind k, double v, char *buf, size_t len);

/* --- templates ----------------------------------------------------------------------------- */
enum tmpl_mode { TMPL_TEXT, TMPL_MARKDOWN, TMPL_HTML };

/* Render a Mustache-like template over ctx:
 *   {{a.b}} value (escaped for the mode)   {{{a}}} raw   {{.}} the current item
 *   {{#a}}..{{/a}} loop over an array, enter an object, or show if true/non-empty
 *   {{^a}}..{{/a}} show if a is false, null, missing, "" or []     {{! comment}}
 * Errors (unbalanced sections) go to e with the template's line. */
int tmpl_render(const char *tmpl, const json_t *ctx, enum tmpl_mode mode, struct rbuf *out,
                struct err *e);
/* Escape s for the mode into out. */
void tmpl_escape(struct rbuf *out, const char *s, enum tmpl_mode mode);

/* The templates compiled into the binary, by file name ("report.md", "report.html", ...);
 * NULL when unknown. A directory named by NETSURVEY_TEMPLATES overrides them. */
const char *report_template(const char *name, char **owned);

/* --- charts -------------------------------------------------------------------------------- */
/* Past these counts, charts draw zone cells instead of host pairs (a bar per pair of 9 900
 * would be unreadable). */
#define REPORT_CHART_MAX_BARS 40
#define REPORT_CHART_MAX_CURVES 12

/* What report's and trend's charts share. */
#define REPORT_CHART_W 760
#define REPORT_CHART_H 420

/* gnuplot's executable: NETSURVEY_GNUPLOT, else "gnuplot" found on PATH; NULL if none (caller
 * frees). */
char *rchart_gnuplot_find(void);
/* A label inside a gnuplot script: a single-quoted string, in which gnuplot performs no
 * backquote command substitution and no @macro expansion (a double-quoted string in a script
 * would run `...` from a zone or host name); a quote is doubled, a line break becomes a space. */
void rchart_script_str(struct rbuf *b, const char *s);
/* A label inside a data file's double-quoted field (data is never substituted): no quote,
 * backslash or newline. */
void rchart_data_str(struct rbuf *b, const char *s);

/* Charts being drawn into one folder. */
struct rchart {
    const char *dir; /* the charts/ folder */
    const char *gp;  /* gnuplot (rchart_gnuplot_find), or NULL: scripts and data only */
    json_t *list;    /* the charts drawn, for the view: file, caption, b64, width, height */
    FILE *warn;      /* a chart gnuplot could not draw, one a line; NULL: not said */
    int ran, failed;
    char firsterr[256];
};

/* Write <kind>-<key>.dat and .gp into cx->dir, run gnuplot on the script there (a timeout of
 * 60 s) and append the SVG it drew to cx->list, base64 for inline use. A chart gnuplot could not
 * draw is counted in cx->failed (its first error kept), not an error. Returns 0 or NS_E* (a file
 * not written). */
int rchart_emit(struct rchart *cx, const char *key, const char *kind, struct rbuf *script,
                struct rbuf *data, const char *caption, struct err *e);

/* Write charts/<name>.{dat,gp} for every scenario of view and run gnuplot on each (timeout
 * per script). Adds "charts" (file names and captions) to view and sets "charts_note"; a chart
 * gnuplot could not draw is also a line on warn (when not NULL). */
int report_charts(const char *outdir, const json_t *summary, json_t *view, FILE *warn,
                  struct err *e);

#endif
