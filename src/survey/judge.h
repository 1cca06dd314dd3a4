/* judge.h - what a survey records of what the hosts did to a trial: nsperf's counters of each
 * end under the trial's src and dst, and the flags common/hostflags.h judges from them, the
 * hosts' cloud metadata (their run.json env) and the result's longest gap. */
#ifndef NS_SURVEY_JUDGE_H
#define NS_SURVEY_JUDGE_H

#include <jansson.h>

#include "journal/record.h"

struct survey_judge_in {
    const struct journal_scenario *sc;
    const char *src, *dst;           /* the hosts' names */
    const json_t *src_env, *dst_env; /* their `nsperf env` (borrowed; NULL when not read) */
    const json_t *result;            /* nsperf's result (borrowed; NULL when none) */
    const json_t *counters;          /* nsperf's "counters": {"local", "remote"} (borrowed) */
};

/* The record's "counters" ({"src", "dst"}: the client runs on the source) into *counters and its
 * "flags" into *flags (new references). Both NULL when nsperf counted nothing (an nsperf of
 * before, a trial that failed before its measured interval): the record then has neither. */
void survey_judge(const struct survey_judge_in *in, json_t **counters, json_t **flags);

#endif
