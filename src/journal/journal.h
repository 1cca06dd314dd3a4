/* journal.h - a run directory on disk: run.json (rewritten atomically) and results.jsonl (one
 * fsync'd line per finished trial), as netsurvey-journal(5) defines them. The
 * one writer (survey's) and the one reader (report's, and survey's resume). The records
 * themselves are journal/record.h's. */
#ifndef NS_JOURNAL_JOURNAL_H
#define NS_JOURNAL_JOURNAL_H

#include <jansson.h>
#include <stddef.h>

#include "common/errors.h"
#include "journal/record.h"

/* --- writing ---------------------------------------------------------------------------------- */

struct journal; /* an open run directory, its lock held; thread-safe appends */

/* Create dir (and its parents) for a new run, refusing a directory that holds anything but a
 * lock file; take its lock (JOURNAL_LOCK_FILE) for as long as *out lives; fsync dir and its
 * parent; create an empty results.jsonl. *out owned by the caller. NS_EBUSY: dir is in use
 * (e names the owner's PID) or holds a run or other files (e says which, and whether
 * --resume can continue it). */
int journal_create(const char *dir, struct journal **out, struct err *e);

/* As journal_create, but when dir exists (empty or not) the first of dir-2, dir-3, ... that does
 * not is created instead: one directory per run for templates with {timestamp}.
 * journal_dir(*out) says which. */
int journal_create_unique(const char *dir, struct journal **out, struct err *e);

/* Take the lock of an existing run directory to continue its run; nothing is written. The
 * caller reads run.json (journal_read_run) and, when it may go on, calls journal_resume.
 * NS_EBUSY: another process holds the lock (e names its PID); NS_ENOTFOUND: no such
 * directory. */
int journal_open_locked(const char *dir, struct journal **out, struct err *e);

/* Open results.jsonl of a directory opened by journal_open_locked for appending. A torn last
 * line (no newline at its end) is cut off so that the next record starts on a line of its own;
 * *torn_bytes says how many bytes were dropped (0 when none). */
int journal_resume(struct journal *j, size_t *torn_bytes, struct err *e);

/* The run directory (borrowed from j). */
const char *journal_dir(const struct journal *j);

/* Write run.json atomically (tmp file, fsync, rename, fsync of the directory). */
int journal_write_run(struct journal *j, const struct journal_run *run, struct err *e);

/* Rewrite run.json's top-level member key with a copy of value (borrowed), keeping the rest as
 * it is, atomically: what a run adds once it knows it (the adaptive trials' outcome). */
int journal_set_member(struct journal *j, const char *key, const json_t *value, struct err *e);

/* Rewrite run.json's "state" (and "ended": now for a final state, null for RUNNING) keeping
 * the rest as it is, atomically. When resumed is not NULL ({"started", "command"} of a
 * resume, borrowed), it is appended to run.json's "resumes"; when measured is not NULL (the
 * timings of the invocation that ends, borrowed), it becomes run.json's "measured". */
int journal_set_state(struct journal *j, enum journal_run_state state, const json_t *resumed,
                      const json_t *measured, struct err *e);

/* Whether a live process holds dir's lock: 1 (*pid its PID, 0 if it has not written it yet),
 * 0 when none does (no lock file, or its holder died: the kernel dropped the lock), or a
 * negative NS_E* (e says why). Takes a shared lock for an instant to know, which
 * journal_create and journal_open_locked wait out. */
int journal_owner(const char *dir, long *pid, struct err *e);

/* --- runs in progress on this machine (active.c) ---------------------------------------------- */

/* Say that the run in dir (its lock held by the caller), of the plan named plan_name, is in
 * progress: an entry in the user's list of them ($XDG_RUNTIME_DIR/netsurvey/runs, else
 * ~/.cache/netsurvey/runs), whose path goes into entry (len bytes) for the caller to remove
 * (unlink) when the run ends. 0, or NS_E* with why (a run goes on without it). */
int journal_active_add(const char *dir, const char *plan_name, char *entry, size_t len,
                       struct err *e);

/* Told of a run in progress: its directory and the PID that holds its lock (0: not written
 * yet). Borrowed for the call. */
typedef void (*journal_active_fn)(void *arg, const char *dir, long pid);

/* The runs of the plan named plan_name in progress on this machine (their directory's lock held
 * by a live process), each told to fn (may be NULL); entries of runs that ended are removed.
 * Returns how many. */
int journal_runs_in_progress(const char *plan_name, journal_active_fn fn, void *arg, struct err *e);

/* Append one trial record (result: nsperf's object, borrowed, or NULL) as one line with one
 * write(2), then fsync. Safe from several threads. On failure (a full disk) the file is cut
 * back to where the line began, so the record is either wholly on disk or not at all and the
 * next line starts clean; returns NS_EIO (e says why). */
int journal_append(struct journal *j, const struct journal_trial *t, const json_t *result,
                   struct err *e);

/* Close the files and release the lock. journal_free(NULL) is safe. */
void journal_free(struct journal *j);

/* --- what is a run's ------------------------------------------------------------------------- */

/* Whether dir is a run directory: it holds run.json or results.jsonl. What the commands that
 * write outputs refuse to write into (but for the run they report) and refuse as an input
 * that is not one. */
bool journal_is_run_dir(const char *dir);

/* Whether path names one of a run directory's own files, through any links: run.json,
 * results.jsonl or the lock file, in a folder that is a run directory. What no output may
 * be written over. */
bool journal_is_run_file(const char *path);

/* --- reading ---------------------------------------------------------------------------------- */

/* run.json of dir, read with the cap JOURNAL_RUN_MAX, into *out (caller frees with
 * journal_run_free). Returns 0, NS_ENOTFOUND (no run.json: "unable to open PATH: ..."),
 * NS_EIO, NS_ETOOBIG, NS_EPARSE ("PATH:LINE:COL: ..." or a scenario of unknown kind),
 * NS_EPROTO (a schema it does not read: journal_run_from_json) or NS_ENOMEM. */
int journal_read_run(const char *dir, struct journal_run **out, struct err *e);
/* journal_read_run, and *unknown_version (may be NULL) set when run.json was refused for a
 * version this netsurvey does not know (journal_run_schema_unknown): its reader may say which
 * netsurvey can go on with it. */
int journal_read_run_v(const char *dir, struct journal_run **out, bool *unknown_version,
                       struct err *e);

/* What journal_read_trials met besides the records it handed on. */
struct journal_read_stats {
    size_t records; /* trial records handed to the callback */
    size_t torn;    /* a last line without its newline (a run still writing, or killed) */
    size_t bad;     /* complete lines that are not trial records */
    size_t refused; /* trial records this reader must not take (see journal_skip_kind) */
    size_t invalid; /* trial records whose values are no data (JOURNAL_SKIP_INVALID) */
};

enum journal_skip_kind {
    JOURNAL_SKIP_TORN,    /* the last line, without its newline */
    JOURNAL_SKIP_BAD,     /* not JSON, longer than the cap, not a trial record, an unknown kind */
    JOURNAL_SKIP_REFUSED, /* a trial record of another schema version, of a status that is
                           * neither ok nor failed, or of another run than the one asked for */
    JOURNAL_SKIP_INVALID, /* a trial record whose values are no data: a figure outside its
                           * domain (negative, past JOURNAL_FIGURE_MAX), status ok without a
                           * result or its headline figure, an unknown family
                           * (journal_trial_domain); or one its reader found out of place (the
                           * callback's JOURNAL_PASS_OVER: a trial past the plan, a host that
                           * run.json does not name) */
};

/* A line that was not handed on: where it is, and why ("torn last line", jansson's message,
 * "not a trial record", "unknown test kind 'x'", "unknown status 'x' ...", ...). */
struct journal_skip {
    const char *path;
    unsigned long line; /* 1-based */
    enum journal_skip_kind kind;
    const char *why;
};

/* Hears of a line that was not handed on. Returns 0 to go on, or NS_E* with e set to stop
 * reading (journal_read_trials returns it). */
typedef int (*journal_skip_fn)(void *arg, const struct journal_skip *s, struct err *e);

/* A trial record (borrowed until the callback returns). Returns 0 to go on, JOURNAL_PASS_OVER to
 * have the line passed over as JOURNAL_SKIP_INVALID (why in e: the skip callback hears of it),
 * or NS_E* to stop reading (journal_read_trials returns it). */
typedef int (*journal_trial_fn)(void *arg, const struct journal_trial *t, struct err *e);
#define JOURNAL_PASS_OVER 1

/* Call fn for every trial record of dir's results.jsonl, in order; skip (may be NULL: such
 * lines are only counted) hears of every line that is not one. run_id (NULL: any) is the run
 * whose records are taken: a record of another run is refused. Each line is read with the cap
 * JOURNAL_LINE_MAX. The fast reader (journal/scan.h) takes the lines it knows and hands the
 * others to jansson; the environment variable NETSURVEY_JOURNAL_SLOW=1 sends every line to
 * jansson (the tests compare both). Returns 0, NS_ENOTFOUND (no results.jsonl), NS_EIO,
 * NS_ETOOBIG, NS_ENOMEM, or fn's or skip's code. */
int journal_read_trials(const char *dir, const char *run_id, journal_trial_fn fn,
                        journal_skip_fn skip, void *arg, struct journal_read_stats *st,
                        struct err *e);

/* journal_read_trials without the histograms' buckets: every record reads as there but for
 * result.buckets (NULL) and result.nbuckets (0); has_hist and hist_sub_bits are as read, and a
 * line is taken or passed over exactly as there (the buckets are checked, only not kept). For a
 * reader that needs no percentiles (a trend), which spends most of its time otherwise storing
 * nsperf's 1 024 buckets per octave. */
int journal_read_trials_nobuckets(const char *dir, const char *run_id, journal_trial_fn fn,
                                  journal_skip_fn skip, void *arg, struct journal_read_stats *st,
                                  struct err *e);

/* One line's reader, for journal_read_trials and its tests: scratch space (the fast reader's
 * strings and buckets, jansson's tree) reused line after line. */
struct journal_reader;

/* slow: every line through jansson. NULL when out of memory. */
struct journal_reader *journal_reader_new(bool slow);
void journal_reader_free(struct journal_reader *rd);
/* The run whose records rd takes (borrowed; NULL, the default: any run's). */
void journal_reader_set_run(struct journal_reader *rd, const char *run_id);
/* Whether rd's records hold their histogram's buckets (the default) or not
 * (journal_read_trials_nobuckets). */
void journal_reader_keep_buckets(struct journal_reader *rd, bool keep);

/* Read one line (its newline may be included) into *t, whose pointers stay valid until the
 * next call with rd. Returns 0, NS_EPARSE (a line passed over: JOURNAL_SKIP_BAD) or NS_EPROTO
 * (a record refused: JOURNAL_SKIP_REFUSED) with why in e, or NS_ENOMEM. journal_read_trials
 * then holds the record to its domain (journal/scan.h: journal_trial_domain). */
int journal_reader_parse(struct journal_reader *rd, const char *line, size_t len,
                         struct journal_trial *t, struct err *e);

#endif
