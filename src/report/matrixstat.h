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

/* For every scenario of the summary sum (and the same scenario, same index, of the view view)
 * add its stat matrices ("stat_matrices") and its directions' test ("asymmetry") from the
 * zone cells aggregate.c wrote. Returns 0 or NS_ENOMEM. */
int report_matrix_stats(json_t *sum, json_t *view);

/* Write matrix-<file_key>-<stat>.csv into dir for every stat matrix of the summary. Returns 0
 * or NS_E* with detail in e. */
int report_matrix_csvs(const char *dir, const json_t *sum, struct err *e);

#endif
