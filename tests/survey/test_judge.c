/* test_judge: what a survey records of what the hosts did (survey/judge.h): nsperf's local
 * counters are the source's (the client runs there) and its remote ones the destination's, and
 * each flag's reason names the host by its role in the kind: a stream's sender and receiver (the
 * other way round with reverse), a request/response kind's client and server; the hosts' cloud
 * metadata reaches the rules (an Azure host's missing VF), and nothing is recorded when nsperf
 * counted nothing. The rules themselves are tests/common/test_hostflags.c's. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <jansson.h>
#include <cmocka.h>

#include "survey/judge.h"

static json_t *
J(const char *text)
{
    json_t *o = json_loads(text, JSON_DECODE_ANY, NULL);
    assert_non_null(o);
    return o;
}

/* Judge kind (reverse or not) where the client's host counted a qdisc drop and the server's an
 * idle hv_netvsc interface on Azure; its flags into *flags, the record's counters checked. */
static void
judge(int kind, bool reverse, json_t **flags)
{
    struct journal_scenario sc = {
        .name = "s", .kind = kind, .reverse = reverse, .msg_size = 1460, .rate_bps = 1000000};
    json_t *counters =
        J("{\"local\":{\"interface\":\"dl0\",\"qdisc\":{\"kind\":\"htb\",\"drops\":5}},"
          "\"remote\":{\"interface\":\"eth0\",\"driver\":\"hv_netvsc\","
          "\"link\":{\"rx_bytes\":100}}}");
    json_t *dst_env = J("{\"cloud\":{\"provider\":\"azure\"}}");
    json_t *result = J("{\"duration_s\":10,\"longest_gap_s\":0.01}");
    struct survey_judge_in in = {.sc = &sc,
                                 .src = "a",
                                 .dst = "b",
                                 .src_env = NULL,
                                 .dst_env = dst_env,
                                 .result = result,
                                 .counters = counters};
    json_t *rec_counters;
    survey_judge(&in, &rec_counters, flags);
    assert_non_null(rec_counters);
    assert_true(
        json_equal(json_object_get(rec_counters, "src"), json_object_get(counters, "local")));
    assert_true(
        json_equal(json_object_get(rec_counters, "dst"), json_object_get(counters, "remote")));
    json_decref(rec_counters);
    json_decref(counters);
    json_decref(dst_env);
    json_decref(result);
}

static void
test_roles(void **state)
{
    (void)state;
    static const struct {
        int kind;
        bool reverse;
        const char *drops, *slow;
    } cases[] = {
        {TESTSPEC_UDP_STREAM, false, "sender a: qdisc htb dropped 5",
         "receiver b: eth0 (hv_netvsc) has no VF: the trial went by the synthetic interface"},
        {TESTSPEC_TCP_STREAM, true, "receiver a: qdisc htb dropped 5",
         "sender b: eth0 (hv_netvsc) has no VF: the trial went by the synthetic interface"},
        {TESTSPEC_TCP_RR, false, "client a: qdisc htb dropped 5",
         "server b: eth0 (hv_netvsc) has no VF: the trial went by the synthetic interface"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        json_t *flags;
        judge(cases[i].kind, cases[i].reverse, &flags);
        assert_string_equal(json_string_value(json_object_get(flags, "drops")), cases[i].drops);
        assert_string_equal(json_string_value(json_object_get(flags, "slow_path")), cases[i].slow);
        assert_int_equal(json_object_size(flags), 2);
        json_decref(flags);
    }
}

/* nsperf counted nothing (one of before, or a trial that failed before MEASURE): no counters,
 * no flags, so that the record says it was not judged. */
static void
test_nothing_counted(void **state)
{
    (void)state;
    struct journal_scenario sc = {.name = "s", .kind = TESTSPEC_TCP_RR};
    json_t *none = J("{\"local\":null,\"remote\":null}");
    json_t *counters = NULL, *flags = NULL;
    struct survey_judge_in in = {.sc = &sc, .src = "a", .dst = "b", .counters = none};
    survey_judge(&in, &counters, &flags);
    assert_null(counters);
    assert_null(flags);
    in.counters = NULL;
    survey_judge(&in, &counters, &flags);
    assert_null(counters);
    assert_null(flags);
    json_decref(none);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_roles),
                                       cmocka_unit_test(test_nothing_counted)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
