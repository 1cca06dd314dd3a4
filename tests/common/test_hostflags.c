/* test_hostflags: the rules of common/hostflags.h, each on the counters that raise it and on
 * those just short of it: every documented throttle counter by its name (and not under another
 * driver), both slow-path conditions (Azure's VF absent or idle, GCP's virtio_net on each
 * gVNIC-only series), steal and stall at their thresholds, each kind of drop. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>
#include <cmocka.h>

#include "common/hostflags.h"

static json_t *
J(const char *text)
{
    json_error_t err;
    json_t *o = json_loads(text, JSON_DECODE_ANY, &err);
    if (o == NULL)
        fail_msg("bad fixture: %s: %s", err.text, text);
    return o;
}

/* Judge a trial whose first host counted c0 on cloud k0 and whose second host counted c1 on
 * k1 (NULL: not read / no cloud). */
static unsigned
judge(const char *c0, const char *k0, const char *c1, const char *k1, struct hostflags *f)
{
    json_t *j[4] = {c0 ? J(c0) : NULL, k0 ? J(k0) : NULL, c1 ? J(c1) : NULL, k1 ? J(k1) : NULL};
    struct hostflags_trial in = {
        .side = {{.label = "sender a", .counters = j[0], .cloud = j[1]},
                 {.label = "receiver b", .counters = j[2], .cloud = j[3]}},
        .duration_s = 10,
        .longest_gap_s = -1,
    };
    hostflags_judge(&in, f);
    for (int i = 0; i < 4; i++)
        json_decref(j[i]);
    return f->mask;
}

#define BIT(f) (1u << (f))

static void
test_names(void **state)
{
    (void)state;
    for (int i = 0; i < HOSTFLAG_COUNT; i++)
        assert_int_equal(hostflag_find(hostflag_name((enum hostflag)i)), i);
    assert_string_equal(hostflag_name(HOSTFLAG_SLOW_PATH), "slow_path");
    assert_int_equal(hostflag_find("nope"), -1);
    assert_null(hostflag_name(HOSTFLAG_COUNT));
}

/* Clean counters raise nothing; unread ones neither. */
static void
test_clean(void **state)
{
    (void)state;
    struct hostflags f;
    const char *clean = "{\"cpu\":{\"cpus\":4,\"ticks\":4000,\"busy\":900,\"softirq\":40,\"steal\":"
                        "20,\"steal_max\":10},\"softnet\":{\"time_squeeze\":9},\"udp\":{},"
                        "\"interface\":\"eth0\",\"driver\":\"ena\",\"link\":{\"rx_bytes\":9,"
                        "\"rx_nohandler\":3},\"qdisc\":{\"kind\":\"mq\",\"overlimits\":5},"
                        "\"ethtool\":{\"conntrack_allowance_available\":-4,\"tx_queue_0_"
                        "packets\":9}}";
    assert_int_equal(judge(clean, NULL, clean, NULL, &f), 0);
    assert_int_equal(judge(NULL, NULL, "null", NULL, &f), 0);
    json_t *o = hostflags_json(&f);
    assert_int_equal(json_object_size(o), 0);
    json_decref(o);
}

/* Every row of the documented table, by its own name and driver, on either host. */
static void
test_throttle_table(void **state)
{
    (void)state;
    assert_int_equal(hostflags_nthrottle, 5);
    static const char *const documented[] = {
        "bw_in_allowance_exceeded", "bw_out_allowance_exceeded", "pps_allowance_exceeded",
        "conntrack_allowance_exceeded", "linklocal_allowance_exceeded"};
    for (size_t i = 0; i < sizeof documented / sizeof documented[0]; i++) {
        assert_string_equal(hostflags_throttle[i].counter, documented[i]);
        assert_string_equal(hostflags_throttle[i].driver, "ena");
        assert_non_null(strstr(hostflags_throttle[i].doc, "docs.aws.amazon.com"));
        char c[256];
        struct hostflags f;
        snprintf(c, sizeof c, "{\"interface\":\"ens5\",\"driver\":\"ena\",\"ethtool\":{\"%s\":7}}",
                 documented[i]);
        for (int side = 0; side < 2; side++) {
            unsigned m =
                side == 0 ? judge(c, NULL, NULL, NULL, &f) : judge(NULL, NULL, c, NULL, &f);
            assert_int_equal(m, BIT(HOSTFLAG_THROTTLED));
            assert_non_null(strstr(f.why[HOSTFLAG_THROTTLED], documented[i]));
            assert_non_null(
                strstr(f.why[HOSTFLAG_THROTTLED], side == 0 ? "sender a" : "receiver b"));
            assert_non_null(strstr(f.why[HOSTFLAG_THROTTLED], "ens5 (ena)"));
        }
        /* the same name under another driver is not ENA's counter; unchanged is no event */
        snprintf(c, sizeof c,
                 "{\"interface\":\"eth0\",\"driver\":\"mlx5_core\",\"ethtool\":{\"%s\":"
                 "7}}",
                 documented[i]);
        assert_int_equal(judge(c, NULL, NULL, NULL, &f), 0);
        snprintf(c, sizeof c, "{\"interface\":\"ens5\",\"driver\":\"ena\",\"ethtool\":{\"%s\":0}}",
                 documented[i]);
        assert_int_equal(judge(c, NULL, NULL, NULL, &f), 0);
    }
}

static const char *const azure = "{\"provider\":\"azure\",\"instance_type\":\"Standard_D4s_v5\"}";

static void
test_slow_path_azure(void **state)
{
    (void)state;
    struct hostflags f;
    /* no VF under the synthetic interface */
    const char *novf = "{\"interface\":\"eth0\",\"driver\":\"hv_netvsc\",\"link\":{\"rx_bytes\":"
                       "1000000,\"tx_bytes\":5000}}";
    assert_int_equal(judge(novf, azure, NULL, NULL, &f), BIT(HOSTFLAG_SLOW_PATH));
    assert_non_null(strstr(f.why[HOSTFLAG_SLOW_PATH], "eth0 (hv_netvsc) has no VF"));
    /* a VF that carried the trial (the synthetic interface's counters include it) */
    const char *vf = "{\"interface\":\"eth0\",\"driver\":\"hv_netvsc\",\"link\":{\"rx_bytes\":"
                     "1000000,\"tx_bytes\":5000},\"lower\":[{\"interface\":\"enP1s1\",\"driver\":"
                     "\"mlx5_core\",\"link\":{\"rx_bytes\":999000,\"tx_bytes\":5000}}]}";
    assert_int_equal(judge(NULL, NULL, vf, azure, &f), 0);
    /* a VF present but idle while the synthetic interface carried it */
    const char *idle = "{\"interface\":\"eth0\",\"driver\":\"hv_netvsc\",\"link\":{\"rx_bytes\":"
                       "1000000,\"tx_bytes\":5000},\"lower\":[{\"interface\":\"enP1s1\",\"driver\":"
                       "\"mana\",\"link\":{\"rx_bytes\":300}}]}";
    assert_int_equal(judge(NULL, NULL, idle, azure, &f), BIT(HOSTFLAG_SLOW_PATH));
    assert_non_null(strstr(f.why[HOSTFLAG_SLOW_PATH], "receiver b: its VF enP1s1 (mana) carried "
                                                      "0.0 % of eth0's 1005000 bytes"));
    /* just at the share: not slow */
    const char *half = "{\"interface\":\"eth0\",\"driver\":\"hv_netvsc\",\"link\":{\"rx_bytes\":"
                       "1000},\"lower\":[{\"interface\":\"enP1s1\",\"driver\":\"mlx4_core\","
                       "\"link\":{\"rx_bytes\":500}}]}";
    assert_int_equal(judge(half, azure, NULL, NULL, &f), 0);
    /* hv_netvsc off Azure (on-premises Hyper-V), or the cloud unknown: no rule applies */
    assert_int_equal(judge(novf, NULL, NULL, NULL, &f), 0);
    assert_int_equal(judge(novf, "{\"provider\":\"aws\"}", NULL, NULL, &f), 0);
}

static void
test_slow_path_gcp(void **state)
{
    (void)state;
    struct hostflags f;
    const char *virtio = "{\"interface\":\"ens4\",\"driver\":\"virtio_net\"}";
    const char *gve = "{\"interface\":\"ens4\",\"driver\":\"gve\"}";
    assert_true(hostflags_ngvnic_series > 0);
    for (size_t i = 0; i < hostflags_ngvnic_series; i++) {
        char cloud[128];
        snprintf(cloud, sizeof cloud, "{\"provider\":\"gcp\",\"instance_type\":\"%s-standard-8\"}",
                 hostflags_gvnic_series[i]);
        assert_int_equal(judge(virtio, cloud, NULL, NULL, &f), BIT(HOSTFLAG_SLOW_PATH));
        assert_non_null(strstr(f.why[HOSTFLAG_SLOW_PATH], "ens4 is virtio_net on a"));
        assert_int_equal(judge(gve, cloud, NULL, NULL, &f), 0);
    }
    /* series that have virtio_net too, and a prefix that is not a series of the list */
    assert_int_equal(
        judge(virtio, "{\"provider\":\"gcp\",\"instance_type\":\"n2-standard-4\"}", NULL, NULL, &f),
        0);
    assert_int_equal(judge(virtio, "{\"provider\":\"gcp\",\"instance_type\":\"c3x-standard-4\"}",
                           NULL, NULL, &f),
                     0);
    assert_int_equal(judge(virtio, "{\"provider\":\"gcp\"}", NULL, NULL, &f), 0);
}

static void
test_steal(void **state)
{
    (void)state;
    struct hostflags f;
    /* 4 vCPUs, 1000 ticks each: 51 ticks of one is over 5 %, 50 is not */
    const char *over = "{\"cpu\":{\"cpus\":4,\"ticks\":4000,\"steal\":60,\"steal_max\":51}}";
    const char *at = "{\"cpu\":{\"cpus\":4,\"ticks\":4000,\"steal\":199,\"steal_max\":50}}";
    assert_int_equal(judge(over, NULL, NULL, NULL, &f), BIT(HOSTFLAG_STEAL));
    assert_string_equal(f.why[HOSTFLAG_STEAL],
                        "sender a: a vCPU lost 5.1 % of the trial to steal (all 4 vCPUs 1.5 %)");
    assert_int_equal(judge(at, NULL, at, NULL, &f), 0);
    assert_int_equal(
        judge("{\"cpu\":{\"cpus\":0,\"ticks\":0,\"steal_max\":9}}", NULL, NULL, NULL, &f), 0);
}

/* Each of the host's own drops, alone, raises drops and names itself. */
static void
test_drops(void **state)
{
    (void)state;
    static const struct {
        const char *counters, *why;
    } cases[] = {
        {"{\"interface\":\"dl0\",\"link\":{\"tx_dropped\":3}}",
         "sender a: interface dl0 tx_dropped 3"},
        {"{\"interface\":\"eth0\",\"link\":{\"rx_missed_errors\":2,\"rx_errors\":2}}",
         "sender a: interface eth0 rx_errors 2, interface eth0 rx_missed_errors 2"},
        {"{\"interface\":\"dl0\",\"qdisc\":{\"kind\":\"htb\",\"drops\":317141,\"overlimits\":9}}",
         "sender a: qdisc htb dropped 317141"},
        {"{\"softnet\":{\"dropped\":12,\"time_squeeze\":400}}",
         "sender a: softnet backlog dropped 12"},
        {"{\"udp\":{\"in_errors\":5,\"rcvbuf_errors\":5}}", "sender a: UDP RcvbufErrors 5"},
        {"{\"udp\":{\"in_errors\":7,\"rcvbuf_errors\":5}}",
         "sender a: UDP RcvbufErrors 5, UDP InErrors 7"},
        {"{\"udp\":{\"sndbuf_errors\":4}}", "sender a: UDP SndbufErrors 4"},
        {"{\"interface\":\"eth0\",\"lower\":[{\"interface\":\"enP1s1\",\"link\":{\"rx_dropped\":1}}"
         "]}",
         "sender a: interface enP1s1 rx_dropped 1"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct hostflags f;
        assert_int_equal(judge(cases[i].counters, NULL, NULL, NULL, &f), BIT(HOSTFLAG_DROPS));
        assert_string_equal(f.why[HOSTFLAG_DROPS], cases[i].why);
    }
    /* both hosts, one reason */
    struct hostflags f;
    assert_int_equal(judge("{\"qdisc\":{\"kind\":\"tbf\",\"drops\":1}}", NULL,
                           "{\"udp\":{\"rcvbuf_errors\":2}}", NULL, &f),
                     BIT(HOSTFLAG_DROPS));
    assert_string_equal(f.why[HOSTFLAG_DROPS],
                        "sender a: qdisc tbf dropped 1; receiver b: UDP RcvbufErrors 2");
    json_t *o = hostflags_json(&f);
    assert_string_equal(json_string_value(json_object_get(o, "drops")), f.why[HOSTFLAG_DROPS]);
    assert_int_equal(json_object_size(o), 1);
    json_decref(o);
}

static unsigned
judge_gap(double duration, double gap, double pace, struct hostflags *f)
{
    struct hostflags_trial in = {.duration_s = duration, .longest_gap_s = gap, .pace_gap_s = pace};
    hostflags_judge(&in, f);
    return f->mask;
}

static void
test_stall(void **state)
{
    (void)state;
    struct hostflags f;
    /* 5 % of 100 s is 5 s */
    assert_int_equal(judge_gap(100, 5.01, 0, &f), BIT(HOSTFLAG_STALL));
    assert_string_equal(f.why[HOSTFLAG_STALL],
                        "nothing arrived for 5.01 s of the 100 s measured (5 %)");
    assert_int_equal(judge_gap(100, 5.0, 0, &f), 0);
    /* never under 100 ms: a 1 s test's 60 ms gap is not a stall, its 150 ms gap is */
    assert_int_equal(judge_gap(1, 0.06, 0, &f), 0);
    assert_int_equal(judge_gap(1, 0.15, 0, &f), BIT(HOSTFLAG_STALL));
    /* a paced test's own gap between writes, ten times over, is not a stall */
    assert_int_equal(judge_gap(10, 0.9, 0.1, &f), 0);
    assert_int_equal(judge_gap(10, 1.1, 0.1, &f), BIT(HOSTFLAG_STALL));
    /* unknown */
    assert_int_equal(judge_gap(10, -1, 0, &f), 0);
    assert_int_equal(judge_gap(0, 3, 0, &f), 0);
}

/* A reason longer than the room is cut, not overflowed. */
static void
test_long_reason(void **state)
{
    (void)state;
    char c[8192] = "{\"interface\":\"eth0\",\"link\":{\"rx_dropped\":1},\"lower\":[";
    for (int i = 0; i < 40; i++)
        snprintf(c + strlen(c), sizeof c - strlen(c),
                 "%s{\"interface\":\"a-rather-long-lower-%02d\",\"link\":{\"rx_dropped\":%d}}",
                 i > 0 ? "," : "", i, i + 1);
    strcat(c, "]}");
    struct hostflags f;
    assert_int_equal(judge(c, NULL, c, NULL, &f), BIT(HOSTFLAG_DROPS));
    assert_int_equal(strlen(f.why[HOSTFLAG_DROPS]), HOSTFLAGS_WHY_MAX - 1);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names),          cmocka_unit_test(test_clean),
        cmocka_unit_test(test_throttle_table), cmocka_unit_test(test_slow_path_azure),
        cmocka_unit_test(test_slow_path_gcp),  cmocka_unit_test(test_steal),
        cmocka_unit_test(test_drops),          cmocka_unit_test(test_stall),
        cmocka_unit_test(test_long_reason),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
