/* cells.h - what compare and trend share (internal to src/history): the matching of
 * scenarios and zone cells between runs (each run read as its summary: report_summary_read),
 * and the module's templates.
 *
 * Runs are matched as netsurvey(1)'s COMPARE says: a scenario by its name, test kind and
 * address family (and a sweep's value); a zone cell of it by its source and destination zone
 * labels. Nothing else
 * (parameters, hosts, plan) takes part, so that the same plan surveyed twice matches cell for
 * cell, and runs of different plans match on what they share. */
#ifndef NS_HISTORY_CELLS_H
#define NS_HISTORY_CELLS_H

#include <jansson.h>
#include <stdbool.h>

/* Whether two summary scenarios are the same one: name, test and family, and for a value of a
 * sweep the parameter swept and the value (summary.json's "sweep"): a cell is scenario x
 * family x zone pair x value, so that the values of two sweeps are compared value by value and
 * a sweep's list is no parameter that differs. */
bool history_cell_same_scenario(const json_t *a, const json_t *b);
/* What people read a summary scenario by: "tput", a value of a sweep "tput msg_size 64K".
 * Returns buf. */
const char *history_scenario_label(const json_t *scen, char *buf, size_t len);
/* {"param", "value"} of a value of a sweep, for the outputs machines read (new reference), or
 * NULL for a scenario that is no sweep. */
json_t *history_sweep_json(const json_t *scen);
/* The value of a sweep as the history database keys it (schema.sql's "sweep" column): the
 * parameter's record key and the value as a plan writes it, "msg_size=1K", from a summary
 * scenario's "sweep" (history_sweep_key) or a trial record's scenario (history_trial_sweep_key,
 * the same text for a trial of that value); "" for no sweep. Returns buf. */
#define HISTORY_SWEEP_KEY_MAX 96
const char *history_sweep_key(const json_t *scen, char *buf, size_t len);
struct journal_scenario;
const char *history_trial_sweep_key(const struct journal_scenario *sc, char *buf, size_t len);
/* The scenario of sum that is scen's counterpart, or NULL (borrowed). */
const json_t *history_cell_find_scenario(const json_t *sum, const json_t *scen);
/* Whether two zone cells are the same cell: source and destination zone labels. */
bool history_cell_same_cell(const json_t *a, const json_t *b);
/* The zone cell of scen (may be NULL) matching cell, whatever its trial count, or NULL. */
const json_t *history_cell_find_cell(const json_t *scen, const json_t *cell);

struct rbuf;

/* The parameters summary scenario b ran with that differ from a's ("params"), each as "key old
 * → new", joined by ", " and appended to out (may be NULL: only counted); returns how many.
 * A key only one side records is not compared (a journal of a version that did not record it,
 * or a version-1 run's parameter of another kind), numbers are compared as numbers (3 is 3.0),
 * and a side whose parameters are not resolved ("params_resolved" false: run.json version 1
 * wrote the plan's words, 0 for the kind's default of its day) has its 0s stand for any value.
 * What compare refuses without --allow-param-change, and what trend notes. */
size_t history_params_diff(const json_t *a, const json_t *b, struct rbuf *out);

/* A template of the history module (compare.md, trend.html, ...), or the report's stylesheet
 * report.css, as report_template_in finds it (report/output.h). */
const char *history_template(const char *name, char **owned);

#endif
