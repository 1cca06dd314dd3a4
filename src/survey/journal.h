/* journal.h - the run directory: run.json (rewritten atomically) and results.jsonl (one
 * fsync'd line per finished trial), as /work/wt/JOURNAL.md and the README's "The journal"
 * section define them. Nothing here knows about plans or transports: records are JSON. */
#ifndef NS_SURVEY_JOURNAL_H
#define NS_SURVEY_JOURNAL_H

#include <jansson.h>
#include <stddef.h>

#include "common/errors.h"

#define JOURNAL_RUN_FILE "run.json"
#define JOURNAL_RESULTS_FILE "results.jsonl"
#define JOURNAL_RUN_SCHEMA "netsurvey.run/1"
#define JOURNAL_TRIAL_SCHEMA "netsurvey.trial/1"

struct journal; /* an open run directory; thread-safe appends */

/* Create dir (and its parents), refusing a directory that exists and is not empty, fsync
 * it and its parent, create an empty results.jsonl. *out owned by the caller. */
int journal_create(const char *dir, struct journal **out, struct err *e);

/* Open an existing run directory to continue it. A torn last line of results.jsonl (no
 * newline at its end) is cut off so that the next record starts on a line of its own;
 * *torn_bytes says how many bytes were dropped (0 when none). */
int journal_resume(const char *dir, size_t *torn_bytes, struct journal **out, struct err *e);

/* Write run.json atomically (tmp file, fsync, rename, fsync of the directory). */
int journal_write_run(struct journal *j, const json_t *run, struct err *e);

/* Append one record as one line with one write(2), then fsync. Safe from several threads. */
int journal_append(struct journal *j, const json_t *rec, struct err *e);

/* The directory's path as given (borrowed). */
const char *journal_dir(const struct journal *j);

/* journal_free(NULL) is safe. */
void journal_free(struct journal *j);

/* run.json of dir as a new JSON object (caller decrefs). */
int journal_read_run(const char *dir, json_t **out, struct err *e);

/* Call fn for every complete record line of dir's results.jsonl, in order. Lines that do not
 * parse as a JSON object are skipped and counted in *bad (a torn last line among them, also
 * counted in *torn). */
int journal_read_trials(const char *dir, void (*fn)(const json_t *rec, void *arg), void *arg,
                        size_t *bad, size_t *torn, struct err *e);

#endif
