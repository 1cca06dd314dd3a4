/* cells.h - what compare and trend share (internal to src/report): a run directory read into
 * its summary (the numbers of its summary.json), the matching of scenarios and zone cells
 * between runs, the value a zone cell shows in matrix-<scenario>.csv, and the folders outputs
 * go in.
 *
 * Runs are matched as the README's "compare" says: a scenario by its name, test kind and
 * address family; a zone cell of it by its source and destination zone labels. Nothing else
 * (parameters, hosts, plan) takes part, so that the same plan surveyed twice matches cell for
 * cell, and runs of different plans match on what they share. */
#ifndef NS_REPORT_CELLS_H
#define NS_REPORT_CELLS_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

struct err;
struct rbuf;

/* The summary of one run directory, as `netsurvey report DIR` would write it to summary.json
 * (new reference in *sum). Warnings about skipped journal lines go to warn (NULL: dropped).
 * Returns 0 or NS_E* with detail in e. Call between report_jarena_begin and _end. */
int rcell_load_summary(const char *dir, FILE *warn, json_t **sum, struct err *e);
/* The same summary cut to its zone cells: per scenario its own members, trial counts and zone
 * cells, with the same numbers, but no host pairs, failures, region cells or latency
 * percentiles (the journal is read without its histograms). What a trend of many runs reads of
 * each: a fraction of the time and memory of rcell_load_summary. Same contract. */
int rcell_load_cells(const char *dir, FILE *warn, json_t **sum, struct err *e);

/* Whether two summary scenarios are the same one: name, test and family. */
bool rcell_same_scenario(const json_t *a, const json_t *b);
/* The scenario of sum that is scen's counterpart, or NULL (borrowed). */
const json_t *rcell_find_scenario(const json_t *sum, const json_t *scen);
/* Whether two zone cells are the same cell: source and destination zone labels. */
bool rcell_same_cell(const json_t *a, const json_t *b);
/* The zone cell of scen (may be NULL) matching cell, whatever its trial count, or NULL. */
const json_t *rcell_find_cell(const json_t *scen, const json_t *cell);

/* The cell's value as matrix-<scenario>.csv holds it (the mean of its ok trials, "%.3f"),
 * appended to b; nothing when it has no ok trial. */
void rcell_matrix_value(struct rbuf *b, const json_t *cell);

/* mkdir -p dir; and the same for the folder of the file path. Return 0 or NS_E*. */
int rcell_mkdirs(const char *dir, struct err *e);
int rcell_mkdirs_for(const char *path, struct err *e);

#endif
