/* matrixstat.h - what a zone cell says beside its mean (issue 19 section 3): the median and p99
 * matrices of the latency kinds (read from the cell's merged histograms, never averaged
 * percentiles), the minimum matrix of the rate kinds (the cell's worst trial), and whether
 * A -> B and B -> A differ (Welch's t-test on the trial values). Internal to the report module. */
#ifndef NS_MATRIXSTAT_H
#define NS_MATRIXSTAT_H

#include <jansson.h>

struct err;

/* Asymmetry is said only where both hold: Welch p below the level and the higher direction's
 * mean above the lower's by more than the effect. */
#define REPORT_ASYM_ALPHA 0.05
#define REPORT_ASYM_MIN_EFFECT_PCT 5.0

/* Every scenario's "file_key" (summary and view) made to name its files apart from every other
 * scenario's: no two scenarios share a matrix CSV (matrix-<key>.csv, -regions, -p50, -p99,
 * -min) or chart (charts/<kind>-<key>.*), whatever their names (scenario lat's region matrix
 * and scenario lat-regions' own matrix; "a b" and "a_b", one key once sanitized). The first
 * scenario keeps its key; a later one that would share a name gets "-2", "-3", ..., and its view
 * a "key_note" that says so. Returns 0 or NS_ENOMEM. */
int report_file_keys_unique(json_t *sum, json_t *view);

/* For every scenario of the summary sum (and the same scenario, same index, of the view view)
 * add its stat matrices ("stat_matrices") and its directions' test ("asymmetry") from the
 * zone cells aggregate.c wrote. Returns 0 or NS_ENOMEM. */
int report_matrix_stats(json_t *sum, json_t *view);

/* Write matrix-<file_key>-<stat>.csv into dir for every stat matrix of the summary. Returns 0
 * or NS_E* with detail in e. */
int report_matrix_csvs(const char *dir, const json_t *sum, struct err *e);

#endif
