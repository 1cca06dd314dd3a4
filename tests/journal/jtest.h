/* jtest.h - what the journal module's tests share: a scratch directory (setup, teardown), a
 * trial record with a distinct value in every field and its result, the checks that a record or
 * a scenario reads back as written, and the callbacks that collect what a reading passed. */
#ifndef NS_TESTS_JOURNAL_JTEST_H
#define NS_TESTS_JOURNAL_JTEST_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "common/errors.h"
#include "common/hist.h"
#include "journal/journal.h"
#include "journal/scan.h"

extern char tmpdir[];

int setup(void **state);

int teardown(void **state);

void path_in(char *buf, size_t len, const char *a, const char *b);

/* A new run directory tmpdir/name (its path into dir), open for writing. */
struct journal *fresh(const char *name, char dir[PATH_MAX]);

size_t file_text(const char *path, char *buf, size_t len);

void file_append(const char *path, const char *text);

/* Three attempts: one cut short by a host's absence, one failed, the last as the status says. */
extern const struct journal_attempt sample_attempts[3];

/* A trial record with a distinct value in every field. */
struct journal_trial sample_trial(uint32_t n, enum journal_status status);

json_t *sample_result(const struct hist *h);

void assert_str(const char *got, const char *want);

/* The parameters that apply to kind, as bits of enum testspec_param. */
unsigned applying(int kind);

/* A scenario read back: name, kind, and every parameter that applies to the kind as written;
 * the others are not written, so they read as 0, and their keys are absent. */
void assert_scenario_as_written(const struct journal_scenario *got,
                                const struct journal_scenario *w);

/* Every written member read back as written. */
void assert_trial_as_written(const struct journal_trial *got, const struct journal_trial *w);

/* The figures of sample_result(h), and h's buckets. */
void assert_result_of(const struct journal_result *r, const struct hist *h);

struct collected {
    int n;
    const struct hist *h;
    bool minimal; /* an ok trial holds minimal_result(), a failed one none */
    struct journal_trial want[4];
    size_t skipped;
    unsigned long skipped_line[4];
    enum journal_skip_kind kind[4];
    char why[4][256];
};

/* The least an ok record holds to be data (journal_trial_domain): its headline figure. */
#define MINIMAL_RTT_US 250.0

/* t appended with the least result an ok record needs (none for a failed one). */
int append_trial(struct journal *j, const struct journal_trial *t, struct err *e);

int collect(void *arg, const struct journal_trial *t, struct err *e);

int skipped(void *arg, const struct journal_skip *s, struct err *e);

/* One line through both decoders: same refusal, or the same record; and through both without
 * the buckets (journal_read_trials_nobuckets' readers): the same refusal, or the same record
 * but for its buckets. Returns the record (the fast one: *fast_took says whether it took the
 * line) with its check's code. */
int decode(const char *line, struct journal_trial *t, bool *fast_took, char *why, size_t whylen);

#endif
