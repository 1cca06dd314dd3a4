/* preflight_out.h - how `netsurvey check --connect` shows a preflight (survey/preflight.h): a
 * table with one row per host and its problems below it, or one JSON document (--json). Both
 * are functions of the report alone, so that tests/preflight/test_preflight_out.c checks them
 * on reports made by hand. Text from hosts (their OS name, error messages with their stderr)
 * is escaped before it reaches a terminal (common/text.h). */
#ifndef NS_CLI_PREFLIGHT_OUT_H
#define NS_CLI_PREFLIGHT_OUT_H

#include <stdio.h>

#include "plan/plan.h"
#include "survey/survey.h"

/* The table's columns, in order (netsurvey(1), PREFLIGHT, describes each). */
#define CLI_PREFLIGHT_COLUMNS                                                                      \
    "HOST", "HOST KEY", "AUTH", "SYSTEM", "ENDPOINT", "FREE", "CLOCK", "DATA ADDRESS",             \
        "DATA PATHS", "RESULT"

/* The table, then "problems:" with one line per failed check or path (and per check not made
 * for a reason of its own), then one summary line. Returns 0, or -1 when out could not be
 * written. */
int cli_preflight_table(FILE *out, const struct preflight_report *r);

/* {"schema":"netsurvey.preflight/1", "plan":{...}, "ok", "interrupted", "elapsed_s",
 *  "hosts":[...], "paths":[...]} and a newline (netsurvey(1), PREFLIGHT, gives its members).
 * Returns 0, or -1 when out of memory or out could not be written. */
int cli_preflight_json(FILE *out, const struct plan *p, const struct preflight_report *r);

#endif
