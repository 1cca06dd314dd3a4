/* sweep.h - a sweep's curves: the headline figure of each zone cell (and host pair) against the
 * swept value (issue 30 item 1). aggregate.c makes each value of a sweep a scenario of its own
 * (its own matrices, pairs and charts, its summary's "sweep" naming the value); this file reads
 * those scenarios back, value by value, into one curve per cell and pair: summary.json's
 * "sweeps", the view's sweep tables, sweep-<key>.csv and the curve charts. Internal to the report
 * module.
 *
 * summary.json's "sweeps": one per (scenario, family, parameter swept):
 *   {"name", "test", "family", "file_key", "param" (the record key: "msg_size", "rate_bps"),
 *    "metric", "unit", "values": [ascending, in the record's unit], "axis": "log2" | "log10" |
 *    "linear", "cells": [{"src_zone", "dst_zone", "points": [{"value", "n", "mean", "ci95_low",
 *    "ci95_high", "median"}, ...]}], "pairs": [{"src", "dst", "src_zone", "dst_zone",
 *    "points": [...]}]}
 * a point for every value (n 0 and no figures where the value has no ok trial of the cell). */
#ifndef NS_REPORT_SWEEP_H
#define NS_REPORT_SWEEP_H

#include <jansson.h>
#include <stdio.h>

#include "report/output.h"

struct err;

/* The axis a sweep's values are drawn on: log base 2 when every value is a power of two (byte
 * sizes, stream counts), log base 10 when they are positive and span two decades or more, else
 * linear (a list with 0 in it: unpaced, autotuned). */
enum sweep_axis { SWEEP_AXIS_LINEAR, SWEEP_AXIS_LOG2, SWEEP_AXIS_LOG10 };
enum sweep_axis report_sweep_axis(const double *values, size_t n);
/* "linear", "log2", "log10". */
const char *report_sweep_axis_name(enum sweep_axis a);

/* Add "sweeps" to sum and view from their "scenarios" (aggregate.c's; the view's scenarios in
 * the summary's order). Returns 0 or NS_ENOMEM. */
int report_sweeps(json_t *sum, json_t *view);

/* Write sweep-<file_key>.csv into dir for every sweep of sum: one row per zone cell and value
 * (src_zone, dst_zone, the parameter, n, mean, ci95_low, ci95_high, median, unit). Returns 0
 * or NS_E* with detail in e. */
int report_sweep_csvs(const char *dir, const json_t *sum, struct err *e);

/* The curve charts of every sweep into outdir/charts (after report_charts made it, and said
 * whether gnuplot is there): per zone cell (REPORT_CHART_MAX_CURVES a chart, more charts past
 * that: sweep-, sweep2-, ...), and per host pair when a cell holds several pairs and the pairs
 * fit one chart (sweeppairs-);
 * each view sweep gets its "charts"; a chart gnuplot could not draw is a line on warn and in
 * the view's charts_note. Returns 0 or NS_E*. */
int report_sweep_charts(const char *outdir, const json_t *sum, json_t *view, FILE *warn,
                        struct err *e);

#endif
