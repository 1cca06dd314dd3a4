/* judge.c - a trial's counters and flags for its record (judge.h). */
#include "survey/judge.h"

#include <stdio.h>

#include "common/hostflags.h"
#include "common/testspec.h"

void
survey_judge(const struct survey_judge_in *in, json_t **counters, json_t **flags)
{
    *counters = *flags = NULL;
    const json_t *local = json_object_get(in->counters, "local");
    const json_t *remote = json_object_get(in->counters, "remote");
    if (!json_is_object(local) && !json_is_object(remote))
        return;
    /* Which end sends: a stream kind's source unless reversed; the request/response kinds'
     * source is their client. The reasons name the host by its role in the test. */
    bool streams = in->sc->kind >= 0 &&
                   testspec_kind_family((enum testspec_kind)in->sc->kind) == TESTSPEC_FAMILY_STREAM;
    bool src_sends = !in->sc->reverse;
    char src_label[160], dst_label[160];
    snprintf(src_label, sizeof src_label, "%s %s",
             !streams    ? "client"
             : src_sends ? "sender"
                         : "receiver",
             in->src);
    snprintf(dst_label, sizeof dst_label, "%s %s",
             !streams    ? "server"
             : src_sends ? "receiver"
                         : "sender",
             in->dst);
    const json_t *gap = json_object_get(in->result, "longest_gap_s");
    struct hostflags_trial t = {
        .side = {{.label = src_label,
                  .counters = local,
                  .cloud = json_object_get(in->src_env, "cloud")},
                 {.label = dst_label,
                  .counters = remote,
                  .cloud = json_object_get(in->dst_env, "cloud")}},
        .duration_s = json_number_value(json_object_get(in->result, "duration_s")),
        .longest_gap_s = json_is_number(gap) ? json_number_value(gap) : -1,
        .pace_gap_s = streams && in->sc->rate_bps > 0
                          ? (double)in->sc->msg_size * 8.0 / (double)in->sc->rate_bps
                          : 0,
    };
    struct hostflags f;
    hostflags_judge(&t, &f);
    *counters = json_pack("{s:O, s:O}", "src", json_is_object(local) ? local : json_null(), "dst",
                          json_is_object(remote) ? remote : json_null());
    *flags = hostflags_json(&f);
}
