/* history.h - the history module's interface: many runs read and judged against each other.
 * `netsurvey compare` (a baseline gate over two runs: Welch per zone cell, Holm, TOST, JUnit)
 * and `netsurvey trend` (each cell across runs in time order). Runs are read through the report
 * module's summaries (report/report.h), never through its internals.
 *
 * trend: `netsurvey trend`: runs of one plan (or of several, on what they share) in time
 * order, cell by cell, as netsurvey(1)'s TREND defines it.
 *
 * A run directory is read as `netsurvey report` reads it, its zone cells only (report_cells_read:
 * the summary's numbers without its histograms and host pairs); scenarios and zone cells
 * are matched across runs as `compare` matches them (report/cells.h). Runs are put in the order
 * of run.json's start time, whatever order they are given in. Outputs: trend.md, trend.html,
 * trend-<scenario>.csv and charts/trend-<scenario>.{gp,dat,svg}, the same bytes for the same
 * journals (no wall clock, locale or hash order reaches a file). */
#ifndef NS_HISTORY_H
#define NS_HISTORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct err;

#define HISTORY_TREND_JOBS_MAX 4 /* runs read at once by default: each holds its journal */

/* Runs of a history database (`--db URL`), as trend selects them: every selector given must
 * hold; the newest `last` of those when it is not 0. */
struct history_db_select {
    const char *url;
    const char *plan;           /* the plan's name; NULL: any */
    const char *scenario;       /* runs that have it, and only it trended; NULL: every */
    const char *since, *until;  /* started at or after since, before until: ISO 8601
                                 * times with their zone, or dates (UTC midnight); NULL */
    size_t last;                /* the newest N of those; 0: all */
    const char *const *run_ids; /* these runs only (n_run_ids of them); NULL: any */
    size_t n_run_ids;
};

struct history_trend_opts {
    const char *const *dirs; /* run directories, in any order, at least two */
    int ndirs;
    const struct history_db_select *db; /* not NULL: the runs come from this database instead
                                         * of dirs, each named by its run_id where a directory
                                         * would be */
    const char *out;           /* where the outputs go (created with its parents); NULL: the
                                * newest run's directory */
    double max_regression_pct; /* a cell whose mean leaves its first run's 95 % CI by more than
                                * this (in % of that run's mean, the bad way) is flagged */
    int jobs;                  /* runs read at once, each by a child process of its own; 0: the
                                * CPUs online, at most HISTORY_TREND_JOBS_MAX; 1: in this process */
    FILE *warn;                /* a journal line skipped, a chart not drawn; NULL: dropped */
};

/* Why history_trend failed, for the command line's exit status. */
enum history_trend_failure {
    HISTORY_TREND_JOURNAL,  /* a run could not be read (or has no start time) */
    HISTORY_TREND_OUTPUT,   /* an output could not be written, or memory ran out */
    HISTORY_TREND_USAGE,    /* fewer than two runs, or one run given twice; with db: a URL or
                             * selector that is not one */
    HISTORY_TREND_DATABASE, /* with db: the database could not be read */
};

struct history_trend_result {
    size_t runs;               /* runs read */
    size_t scenarios;          /* scenarios trended (shared by two runs or more) */
    size_t cells;              /* their zone cells */
    size_t flagged;            /* cells that left their first run's CI by more than the threshold */
    size_t not_trended;        /* scenarios found in one run only */
    size_t incomplete;         /* runs that are not complete (or still in progress) */
    char *out;                 /* where the outputs went (owned) */
    char *flags;               /* one line per flagged cell, capped; or NULL */
    size_t newest_failed;      /* cells whose newest run has no ok trial (failed or not run) */
    char *newest_failed_cells; /* one line per such cell, capped; or NULL */
    enum history_trend_failure failure; /* on error */
};

/* Read o->dirs, put them in time order and write the trend into o->out. Returns 0 with r filled,
 * or NS_E* with r->failure and detail in e. Release r with history_trend_result_release either
 * way. Call it when no other thread uses jansson: while a run is read, jansson allocates from
 * the report's own chunks (report_render says why). */
int history_trend(const struct history_trend_opts *o, struct history_trend_result *r,
                  struct err *e);
void history_trend_result_release(struct history_trend_result *r);

/* How compare corrects its per-cell tests for their number (netsurvey(1)'s COMPARE). */
enum history_correction {
    HISTORY_CORRECTION_HOLM, /* Holm-Bonferroni step-down: the default */
    HISTORY_CORRECTION_BONFERRONI,
    HISTORY_CORRECTION_NONE,
};

struct history_compare_opts {
    const char *base_dir, *new_dir; /* with db: the two runs' run_ids */
    const char *db;                 /* a history database's URL, or NULL: directories */
    const char *out;           /* compare.md and compare.html go here (created with its parents) */
    double max_regression_pct; /* a worse cell beyond this is a regression */
    double min_effect_pct;     /* smaller changes are never worse or better; the margin of
                                * "same" (0: no equivalence verdict) */
    enum history_correction correction;
    bool allow_partial;      /* baseline cells without a counterpart, and matched cells with
                              * failed or not-run trials, do not fail the gate */
    bool allow_param_change; /* a scenario of both runs whose parameters differ is compared
                              * (each difference named in every output), not refused */
    const char *junit;       /* JUnit XML written here when not NULL (parents created) */
    const char *md_summary;  /* the short Markdown summary written here when not NULL */
    FILE *echo;              /* compare.md is also written here; NULL: not echoed */
    FILE *warn;              /* a journal line skipped, one a line; NULL: dropped */
};

/* Why history_compare failed, for the command line's exit status. */
enum history_compare_failure {
    HISTORY_COMPARE_JOURNAL,        /* a run could not be read */
    HISTORY_COMPARE_OUTPUT,         /* an output could not be written, or memory ran out */
    HISTORY_COMPARE_NOT_COMPARABLE, /* the two sides hold one run, or a scenario of both ran
                                     * other parameters (without allow_param_change) */
    HISTORY_COMPARE_USAGE,          /* an output over a run's own file or another output, or
                                     * out another run's directory: nothing read or written */
    HISTORY_COMPARE_DATABASE,       /* with db: the database could not be read, or has no such
                                     * run */
};

/* What the gate says. */
enum history_gate {
    HISTORY_GATE_PASSED,
    HISTORY_GATE_REGRESSION, /* some cell is worse by more than max_regression_pct */
    HISTORY_GATE_INCOMPLETE, /* no regression, but nothing was compared, or a baseline cell had
                              * no counterpart to be compared with (without allow_partial) */
};

struct history_compare_result {
    enum history_gate gate;
    enum history_compare_failure failure; /* on error */
    unsigned regressions;                 /* cells worse by more than max_regression_pct */
    size_t matched, compared;      /* cells in both runs; of them, with 2 trials or more a side */
    size_t base_missing;           /* baseline cells without ok trials in the new run */
    size_t base_scenarios_missing; /* baseline scenarios the new run does not have */
    size_t untested;               /* matched cells with fewer than 2 trials on a side */
    size_t partial;                /* matched cells with failed or not-run trials on a side */
    char *param_changes;           /* each scenario of both runs that ran other parameters and
                                    * how ("lat (tcp_rr, ipv4): msg_size 250 → 65536"), one a
                                    * line, also when refused for them; or NULL */
    char *unmatched;               /* what had no counterpart, one a line, capped; or NULL */
};

/* Compare the zone cells of two run directories into o->out/compare.{md,html} (and the JUnit
 * XML and Markdown summary when asked): Welch's t-test per matched cell at alpha 0.05, the
 * family of cells corrected as o->correction says, verdicts and the gate as netsurvey(1)'s
 * "compare" defines them. Two sides that hold one run (a run against itself or a copy), and a
 * scenario of both whose parameters differ (unless o->allow_param_change), are refused before
 * anything is written, the reason in e; so are an output file over a run's own journal files
 * or over another output, and an o->out that is another run's directory than BASE's and NEW's.
 * Returns 0 with r filled, or NS_E* with r->failure and detail in e. Release r with
 * history_compare_result_release either way. */
int history_compare(const struct history_compare_opts *o, struct history_compare_result *r,
                    struct err *e);
void history_compare_result_release(struct history_compare_result *r);

/* --- the history database (src/history/schema.sql) --------------------------------------- */

/* One run published. */
struct history_published {
    const char *dir;
    char *run_id;
    uint64_t trials, ok; /* trials rows (the records the reports count), and the ok ones */
    uint64_t lines;      /* lines of results.jsonl */
    bool replaced;       /* the database held the run before: its rows were replaced */
    bool journal_error;  /* on error: the run directory could not be read */
};

struct history_publish_opts {
    const char *db; /* URL: sqlite:PATH or postgresql://... */
    const char *const *dirs;
    int ndirs;
    FILE *warn; /* a journal line skipped while reading a run, one a line; NULL: dropped */
    /* Told of each run once it is committed (p borrowed for the call); NULL: nothing told. */
    void (*done)(void *arg, const struct history_published *p);
    void *arg;
};

enum history_publish_failure {
    HISTORY_PUBLISH_USAGE,    /* no run directory, or the URL is not one */
    HISTORY_PUBLISH_JOURNAL,  /* a run directory could not be read: nothing of it written */
    HISTORY_PUBLISH_DATABASE, /* the database could not be opened or written (another schema, a
                               * newer one, read-only, refused): nothing of that run written */
};

struct history_publish_result {
    size_t published; /* runs committed, in the order given, before any failure */
    enum history_publish_failure failure;
};

/* Publish o->dirs into the database o->db, in order, each run in one transaction that replaces
 * whatever the database held of the same run_id (creating or upgrading the schema first). Stops
 * at the first run that fails, the runs before it committed. Returns 0 or NS_E* with r->failure
 * and detail in e (the URL shown with its password masked). Call it when no other thread uses
 * jansson (a run is read as report_render reads it). */
int history_publish(const struct history_publish_opts *o, struct history_publish_result *r,
                    struct err *e);

/* Whether the database url can take runs: reached, its schema created or upgraded, and every
 * table it writes writable (tried in a transaction rolled back). What `netsurvey run --db`
 * makes sure of before a survey. NS_EINVAL: url is not a database URL. */
int history_db_check(const char *url, struct err *e);

/* Whether path is one of the database url's own files, through any links: a sqlite: URL's file
 * or its -journal, -wal or -shm (a PostgreSQL database has none here). What no output of a --db
 * command may be written over. */
bool history_db_is_file(const char *url, const char *path);

/* Write the run run_id of the database url back into the run directory dir: run.json and
 * results.jsonl byte for byte as they were published (dir and its parents created; a dir that
 * exists must be empty or hold that same run, whose two files are then replaced). What
 * `netsurvey report --db` renders. Returns 0, NS_ENOTFOUND (no such run), NS_EBUSY (dir holds
 * something else) or another NS_E* with detail in e; *database_failed says whether the
 * database was the problem. */
int history_db_restore(const char *url, const char *run_id, const char *dir, bool *database_failed,
                       struct err *e);

/* PerfKitBenchmarker's sample: one JSON object a line (metric, value, unit, metadata,
 * timestamp, run_uri, ...); or the same rows as CSV. */
enum history_export_format { HISTORY_EXPORT_SAMPLES, HISTORY_EXPORT_CSV };

struct history_export_opts {
    const char *const *dirs;
    int ndirs;
    enum history_export_format format;
    FILE *out;
    FILE *warn; /* a journal line skipped, one a line; NULL: dropped */
};

/* Write every trial of o->dirs, in order, as samples to o->out (*rows of them). Returns 0 or
 * NS_E* (NS_EIO with *write_failed when o->out could not be written). */
int history_export(const struct history_export_opts *o, uint64_t *rows, bool *write_failed,
                   struct err *e);

#endif
