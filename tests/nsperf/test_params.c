/* Unit tests of the control layer's pure parts: the kinds table, parameter defaults, ranges and
 * their JSON round trip, the token file, the authentication proofs, data hellos, CPU accounting
 * and the -i interval summary. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/errors.h"
#include "common/sha256.h"
#include "nsperf/control.h"
#include "nsperf/cpu.h"
#include "nsperf/stream_common.h"

static void
test_kind_table(void **state)
{
    (void)state;
    const char *names[] = {"tcp_stream", "udp_stream", "tcp_rr", "udp_rr", "tcp_crr", "udp_pps"};
    for (int i = 0; i < TESTSPEC_KIND_COUNT; i++) {
        enum testspec_kind id;
        const struct test_kind *k = ns_kind_find(names[i], &id);
        assert_non_null(k);
        assert_int_equal(id, i);
        assert_ptr_equal(ns_kind_get(id), k);
        assert_string_equal(testspec_kind_name((int)id), names[i]);
    }
    assert_null(ns_kind_find("tcp_bogus", NULL));
    assert_null(ns_kind_find(NULL, NULL));
    assert_null(ns_kind_get(TESTSPEC_KIND_COUNT));
    assert_int_equal(ns_kind_get(TESTSPEC_UDP_STREAM)->socktype, SOCK_DGRAM);
    /* what the control layer asks of a kind's ops, not of its id */
    for (int i = 0; i < TESTSPEC_KIND_COUNT; i++) {
        const struct test_kind *k = ns_kind_get((enum testspec_kind)i);
        assert_int_equal(k->own_connections, i == TESTSPEC_TCP_CRR);
        assert_int_equal(k->nodelay, i == TESTSPEC_TCP_RR || i == TESTSPEC_TCP_CRR);
        assert_int_equal(k->params_json != NULL, i == TESTSPEC_UDP_STREAM);
    }
}

static void
test_defaults_valid(void **state)
{
    (void)state;
    struct err e;
    for (int i = 0; i < TESTSPEC_KIND_COUNT; i++) {
        struct ns_params p;
        ns_params_default(&p, (enum testspec_kind)i);
        assert_int_equal(ns_params_validate(&p, &e), 0);
        assert_true(p.duration_s == 10.0);
        assert_int_equal(p.response_size, p.msg_size);
    }
    struct ns_params p;
    ns_params_default(&p, TESTSPEC_TCP_STREAM);
    assert_int_equal(p.msg_size, 1024 * 1024);
    assert_int_equal(p.rate_bps, 0);
    ns_params_default(&p, TESTSPEC_UDP_STREAM);
    assert_int_equal(p.rate_bps, 1000000);
}

static void
expect_invalid(struct ns_params *p, const char *needle)
{
    struct err e;
    err_clear(&e);
    assert_true(ns_params_validate(p, &e) < 0);
    if (strstr(e.msg, needle) == NULL)
        fprintf(stderr, "'%s' lacks '%s'\n", e.msg, needle);
    assert_non_null(strstr(e.msg, needle));
}

/* A peer's parameters must not make this side hold unbounded memory (server gets them by JSON). */
static void
test_memory_limits(void **state)
{
    (void)state;
    struct ns_params p;
    struct err e;
    ns_params_default(&p, TESTSPEC_TCP_STREAM);
    p.streams = 4;
    p.msg_size = 64u << 20; /* 256 MiB in all: the limit itself */
    assert_int_equal(ns_params_validate(&p, &e), 0);
    p.streams = 5;
    assert_int_equal(ns_params_validate(&p, &e), NS_ERANGE);
    assert_non_null(strstr(e.msg, "MiB of buffers"));
    ns_params_default(&p, TESTSPEC_TCP_STREAM);
    p.streams = 8;
    p.duration_s = 300;
    p.interval_s = 0.01;
    assert_int_equal(ns_params_validate(&p, &e), NS_ERANGE);
    assert_non_null(strstr(e.msg, "-i: interval 10ms gives 240000 samples"));
    p.interval_s = 0.1; /* 3000 x 8 = 24000 samples: fine */
    assert_int_equal(ns_params_validate(&p, &e), 0);
    json_t *o = ns_params_to_json(&p);
    json_object_set_new(o, "streams", json_integer(16));
    json_object_set_new(o, "msg_size", json_integer(64 << 20));
    struct ns_params q;
    assert_int_equal(ns_params_from_json(o, &q, &e), NS_ERANGE);
    json_decref(o);
}

static void
test_ranges(void **state)
{
    (void)state;
    struct ns_params p;
    ns_params_default(&p, TESTSPEC_TCP_STREAM);
    p.streams = 0;
    expect_invalid(&p, "streams");
    p.streams = NS_MAX_STREAMS + 1;
    expect_invalid(&p, "streams");
    ns_params_default(&p, TESTSPEC_TCP_RR);
    p.streams = 2; /* rr kinds: one transaction in flight, one stream */
    expect_invalid(&p, "-P does not apply to tcp_rr tests");
    ns_params_default(&p, TESTSPEC_UDP_STREAM);
    p.msg_size = 39; /* smaller than the datagram header */
    expect_invalid(&p, "message size");
    p.msg_size = NS_MAX_UDP_PAYLOAD + 1;
    expect_invalid(&p, "message size");
    ns_params_default(&p, TESTSPEC_UDP_STREAM);
    p.rate_bps = 0;
    expect_invalid(&p, "rate");
    ns_params_default(&p, TESTSPEC_TCP_STREAM);
    p.duration_s = 0;
    expect_invalid(&p, "duration");
    p.duration_s = 10;
    p.warmup_s = -1;
    expect_invalid(&p, "warmup");
    p.warmup_s = 1;
    p.interval_s = 0.001;
    expect_invalid(&p, "interval");
    p.interval_s = 0;
    p.sock_buf = -5;
    expect_invalid(&p, "socket buffer");
}

static void
test_params_json_roundtrip(void **state)
{
    (void)state;
    struct ns_params p, q;
    struct err e;
    ns_params_default(&p, TESTSPEC_UDP_STREAM);
    p.streams = 3;
    p.msg_size = 1200;
    p.rate_bps = 2500000000ULL;
    p.duration_s = 2.5;
    p.warmup_s = 0.25;
    p.interval_s = 0.5;
    p.reverse = true;
    p.sock_buf = 1 << 20;
    p.family = AF_INET6;
    json_t *o = ns_params_to_json(&p);
    assert_int_equal(ns_params_from_json(o, &q, &e), 0);
    json_decref(o);
    assert_int_equal(q.kind, TESTSPEC_UDP_STREAM);
    assert_int_equal(q.streams, 3);
    assert_int_equal(q.msg_size, 1200);
    assert_int_equal(q.rate_bps, 2500000000ULL);
    assert_true(q.duration_s == 2.5 && q.warmup_s == 0.25 && q.interval_s == 0.5);
    assert_true(q.reverse);
    assert_int_equal(q.sock_buf, 1 << 20);
    assert_int_equal(q.family, AF_INET6);
}

static void
test_params_json_rejects(void **state)
{
    (void)state;
    struct ns_params p;
    struct err e;
    const char *bad[] = {
        "[]",
        "{}",
        "{\"test\":\"tcp_bogus\"}",
        "{\"test\":\"tcp_stream\",\"streams\":-1}",
        "{\"test\":\"tcp_stream\",\"streams\":\"2\"}",
        "{\"test\":\"tcp_stream\",\"streams\":1000}",
        "{\"test\":\"tcp_stream\",\"duration_s\":\"10\"}",
        "{\"test\":\"tcp_stream\",\"duration_s\":1e300}",
        "{\"test\":\"tcp_stream\",\"reverse\":1}",
        "{\"test\":\"tcp_stream\",\"family\":\"ipx\"}",
        "{\"test\":\"tcp_stream\",\"msg_size\":0}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        json_t *o = json_loads(bad[i], 0, NULL);
        assert_non_null(o);
        err_clear(&e);
        if (ns_params_from_json(o, &p, &e) == 0)
            fprintf(stderr, "accepted: %s\n", bad[i]);
        assert_true(e.code < 0);
        json_decref(o);
    }
    /* Absent members take the kind's defaults. */
    json_t *o = json_loads("{\"test\":\"tcp_rr\"}", 0, NULL);
    assert_int_equal(ns_params_from_json(o, &p, &e), 0);
    assert_int_equal(p.msg_size, 1);
    json_decref(o);
}

static char *
temp_file(const void *data, size_t len)
{
    static char path[64];
    snprintf(path, sizeof path, "/tmp/nsperf-test-token-XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, data, len), (ssize_t)len);
    close(fd);
    return path;
}

static void
test_token_file(void **state)
{
    (void)state;
    struct ns_token t;
    struct err e;
    char *p = temp_file("s3cret \r\n\n", 10);
    assert_int_equal(ns_token_read(p, &t, &e), 0);
    assert_int_equal(t.len, 6);
    assert_memory_equal(t.bytes, "s3cret", 6);
    unlink(p);
    p = temp_file("\n\n", 2);
    assert_true(ns_token_read(p, &t, &e) < 0);
    assert_non_null(strstr(e.msg, "empty"));
    unlink(p);
    char *big = malloc(NS_TOKEN_MAX + 1);
    memset(big, 'a', NS_TOKEN_MAX + 1);
    p = temp_file(big, NS_TOKEN_MAX + 1);
    free(big);
    assert_int_equal(ns_token_read(p, &t, &e), NS_ETOOBIG);
    unlink(p);
    assert_int_equal(ns_token_read("/nonexistent/token", &t, &e), NS_EIO);
}

static void
test_auth_proofs(void **state)
{
    (void)state;
    struct ns_token a = {.len = 3}, b = {.len = 3};
    memcpy(a.bytes, "abc", 3);
    memcpy(b.bytes, "abd", 3);
    char sn[2 * NS_NONCE_LEN + 1], sn2[2 * NS_NONCE_LEN + 1], cn[2 * NS_NONCE_LEN + 1];
    struct err e;
    assert_int_equal(ns_nonce_new(sn, &e), 0);
    assert_int_equal(ns_nonce_new(sn2, &e), 0);
    assert_int_equal(ns_nonce_new(cn, &e), 0);
    assert_int_equal(strlen(sn), 2 * NS_NONCE_LEN);
    assert_string_not_equal(sn, sn2);
    char p1[65], p2[65], p3[65], p4[65], p5[65];
    ns_auth_proof(&a, "client", sn, cn, p1);
    ns_auth_proof(&a, "client", sn, cn, p2);
    ns_auth_proof(&b, "client", sn, cn, p3);  /* other token */
    ns_auth_proof(&a, "server", sn, cn, p4);  /* other direction: no reflection */
    ns_auth_proof(&a, "client", sn2, cn, p5); /* other server nonce: no replay */
    assert_int_equal(strlen(p1), 64);
    assert_string_equal(p1, p2);
    assert_string_not_equal(p1, p3);
    assert_string_not_equal(p1, p4);
    assert_string_not_equal(p1, p5);
    /* The proof is not the token in any form: neither its bytes as a string nor its hex. */
    char tok_hex[2 * 3 + 1];
    sha256_hex_encode(a.bytes, a.len, tok_hex);
    assert_string_not_equal(p1, tok_hex);
    char tok_str[3 + 1] = {0};
    memcpy(tok_str, a.bytes, a.len);
    assert_string_not_equal(p1, tok_str);
    for (size_t i = 0; i < 64; i++)
        assert_true(strchr("0123456789abcdef", p1[i]) != NULL);
}

static void
test_data_hello(void **state)
{
    (void)state;
    uint8_t cookie[PROTO_COOKIE_LEN], got[PROTO_COOKIE_LEN], buf[PROTO_DATA_HELLO_LEN];
    for (int i = 0; i < PROTO_COOKIE_LEN; i++)
        cookie[i] = (uint8_t)(i * 17);
    ns_data_hello_encode(buf, PROTO_DATA_MAGIC, cookie, 0x01020304u);
    assert_memory_equal(buf, "NSPD", 4);
    assert_int_equal(buf[20], 1);
    assert_int_equal(buf[23], 4);
    uint32_t idx = 0;
    assert_int_equal(ns_data_hello_decode(buf, PROTO_DATA_MAGIC, got, &idx), 0);
    assert_int_equal(idx, 0x01020304u);
    assert_memory_equal(got, cookie, sizeof cookie);
    assert_int_equal(ns_data_hello_decode(buf, NS_UDP_HELLO_MAGIC, got, &idx), -1);
}

static void
test_cpu_accounting(void **state)
{
    (void)state;
    struct cpu_snap a, b;
    struct timespec c0, c1;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
    cpu_snap_take(&a);
    volatile double x = 0;
    uint64_t spin_until = a.mono_ns + 200000000ULL; /* 200 ms of busy work */
    do {
        for (int i = 0; i < 100000; i++)
            x += i * 0.5;
        cpu_snap_take(&b);
    } while (b.mono_ns < spin_until);
    assert_true(x > 0);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
    json_t *u = cpu_usage_json(&a, &b);
    double pct = json_number_value(json_object_get(u, "pct"));
    /* Against the kernel's own per-process clock (the machine may be shared, so not ~100). */
    double cpu_s = (double)(c1.tv_sec - c0.tv_sec) + (double)(c1.tv_nsec - c0.tv_nsec) / 1e9;
    double expect = 100.0 * cpu_s / ((double)(b.mono_ns - a.mono_ns) / 1e9);
    if (pct < expect - 10 || pct > expect + 10)
        fprintf(stderr, "pct %.1f, expected %.1f\n", pct, expect);
    assert_true(pct > 0 && pct >= expect - 10 && pct <= expect + 10);
    assert_true(json_integer_value(json_object_get(u, "cpus")) >= 1);
    if (a.ok_sys) {
        double sys = json_number_value(json_object_get(u, "system_pct"));
        assert_true(sys > 0 && sys <= 100.0);
    }
    json_t *cpu = cpu_combine_json(u, u);
    assert_true(json_number_value(json_object_get(cpu, "remote_pct")) == pct);
    cpu_add_cycles_per_byte(cpu, u, u, 1e9);
    const json_t *cpb = json_object_get(cpu, "cycles_per_byte");
    assert_true(json_is_null(cpb) || json_number_value(cpb) > 0);
    json_decref(cpu);
    json_decref(u);
}

static void
test_intervals(void **state)
{
    (void)state;
    /* Two streams, 0.5 s bins, 1.01 s measured: the 10 ms sliver folds into the second. */
    json_t *streams =
        json_loads("[{\"intervals\":[100,200,7,0]},{\"intervals\":[1,2,3,0]}]", 0, NULL);
    json_t *iv = ns_intervals_json(streams, 0, 2, 0.5, 1.01);
    assert_int_equal(json_array_size(iv), 2);
    assert_int_equal(json_integer_value(json_object_get(json_array_get(iv, 0), "bytes")), 101);
    assert_int_equal(json_integer_value(json_object_get(json_array_get(iv, 1), "bytes")), 212);
    assert_true(json_number_value(json_object_get(json_array_get(iv, 1), "end_s")) == 1.01);
    json_decref(iv);
    /* 1.3 s: a real third interval of 0.3 s. */
    iv = ns_intervals_json(streams, 0, 2, 0.5, 1.3);
    assert_int_equal(json_array_size(iv), 3);
    double bps = json_number_value(json_object_get(json_array_get(iv, 2), "throughput_bps"));
    assert_true(bps > 10 * 8 / 0.3 - 1e-6 && bps < 10 * 8 / 0.3 + 1e-6);
    json_decref(iv);
    iv = ns_intervals_json(streams, 0, 2, 0, 1.3);
    assert_int_equal(json_array_size(iv), 0);
    json_decref(iv);
    /* The second stream alone (--bidir: a direction's streams), and two series summed. */
    iv = ns_intervals_json(streams, 1, 2, 0.5, 1.01);
    assert_int_equal(json_integer_value(json_object_get(json_array_get(iv, 1), "bytes")), 5);
    json_t *both = ns_intervals_sum(iv, iv);
    assert_int_equal(json_array_size(both), 2);
    assert_int_equal(json_integer_value(json_object_get(json_array_get(both, 1), "bytes")), 10);
    json_decref(both);
    json_decref(iv);
    json_decref(streams);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kind_table),
        cmocka_unit_test(test_defaults_valid),
        cmocka_unit_test(test_ranges),
        cmocka_unit_test(test_memory_limits),
        cmocka_unit_test(test_params_json_roundtrip),
        cmocka_unit_test(test_params_json_rejects),
        cmocka_unit_test(test_token_file),
        cmocka_unit_test(test_auth_proofs),
        cmocka_unit_test(test_data_hello),
        cmocka_unit_test(test_cpu_accounting),
        cmocka_unit_test(test_intervals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
