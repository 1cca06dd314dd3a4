/* report.h - the report module's interface: everything after the journal.
 *
 * Reads run directories (run.json + results.jsonl, as netsurvey-journal(5) defines them)
 * through journal/journal.h and nothing of the runner; writes summary.json,
 * matrix-<scenario>.csv, report.md, report.html and charts/ into an output directory. The same
 * journals give byte-identical outputs: no wall clock, no locale, no hash order reaches a file. */
#ifndef NS_REPORT_H
#define NS_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

struct err;

struct report_result;

struct report_opts {
    const char *const *dirs; /* run directories, merged into one report when several */
    int ndirs;
    const char *out; /* where the outputs go (created if missing); the run directory for one */
    FILE *warn;   /* warnings (a journal line skipped, a chart gnuplot could not draw, a run still
                   * going or incomplete), one a line; NULL: dropped */
    bool lenient; /* a journal record the journal refuses (another schema version, an
                   * unknown status, another run's) is listed, not an error */
    /* Group cells by physical zone (each host's zone_id) instead of the zone label; NS_EINVAL,
     * naming the hosts, when some host has no zone_id (`netsurvey report --by zone_id`). */
    bool by_zone_id;
    /* A host name is one host in every run (`netsurvey report --same-hosts`): a plan surveyed
     * twice, its host pairs pooled. NS_EINVAL, naming it, when a name is in another place or at
     * another address in another run. Without it, each run's hosts are its own. */
    bool same_hosts;
    bool owned_by_caller; /* the caller is the netsurvey run that holds the run directory */
    /* When not NULL, the zone matrix of each scenario is written there as text once the
     * outputs are in place (netsurvey run's end: the same numbers as summary.json's, mean and
     * 95 % CI half-width, one unit per matrix). */
    FILE *matrices;
    struct report_result *result; /* filled when not NULL */
};

/* What the reports found: the runs are complete, or not, or still going. */
struct report_result {
    bool in_progress;    /* a run's directory is held by a live netsurvey */
    bool incomplete;     /* a run is in progress, or has planned trials without a record */
    bool unwritten;      /* the journals were read, the outputs could not be written */
    bool output_refused; /* out is another run's directory: nothing read or written */
};

/* Render every report of o->dirs into o->out: what `netsurvey report` does, and `netsurvey
 * run` when a survey ends. Refused before anything is made or written: an input that is not a
 * run directory (NS_ENOTFOUND), and an o->out that is a run's directory, unless it is the one
 * run reported (NS_EINVAL, result->output_refused); o->out is made with its parents. Charts need
 * gnuplot (NETSURVEY_GNUPLOT names it, else PATH); without it the reports say that charts were
 * skipped. The outputs are built in a directory of their own inside o->out and moved into place;
 * the outputs of the previous build that this one does not make are removed (only those, as the
 * manifest .netsurvey-outputs lists them). Returns 0 or NS_E* with detail in e (NS_EPROTO: a record
 * the journal refuses; NS_EINVAL: runs that cannot be merged). Call it when no other thread uses
 * jansson: while it runs, jansson allocates from the report's own chunks (json_set_alloc_funcs is
 * process-wide); it restores the allocator. */
int report_render(const struct report_opts *o, struct err *e);

/* The summary of one run directory, as `netsurvey report DIR` would write it to summary.json
 * (new reference in *sum); every scenario in it has a kind testspec.h knows. Warnings about
 * skipped journal lines go to warn (NULL: dropped). Returns 0 or NS_E* with detail in e. Call
 * between report_jarena_begin and _end (report/output.h). */
int report_summary_read(const char *dir, FILE *warn, json_t **sum, struct err *e);
/* The same summary cut to its zone cells: per scenario its own members, trial counts and zone
 * cells, with the same numbers, but no host pairs, failures, region cells or latency
 * percentiles (the journal is read without its histograms): what a trend of many runs reads of
 * each, a fraction of the time and memory of report_summary_read. Same contract. */
int report_cells_read(const char *dir, FILE *warn, json_t **sum, struct err *e);

#endif
