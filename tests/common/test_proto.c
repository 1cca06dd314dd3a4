/* Control frames: round trip, truncated, oversize, wrong magic/version/type, garbage JSON. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/errors.h"
#include "common/proto.h"

static void
test_header_round_trip(void **state)
{
    (void)state;
    uint8_t hdr[PROTO_HEADER_LEN];
    proto_header_encode(hdr, PROTO_PARAMS, 1234);
    enum proto_type t;
    uint32_t len;
    struct err e;
    assert_int_equal(proto_header_decode(hdr, PROTO_MAX_PAYLOAD, &t, &len, &e), 0);
    assert_int_equal(t, PROTO_PARAMS);
    assert_int_equal(len, 1234);
}

static void
test_header_rejects_bad_frames(void **state)
{
    (void)state;
    uint8_t hdr[PROTO_HEADER_LEN];
    enum proto_type t;
    uint32_t len;
    struct err e;
    proto_header_encode(hdr, PROTO_PARAMS, 10);
    hdr[0] = 'X';
    assert_int_equal(proto_header_decode(hdr, PROTO_MAX_PAYLOAD, &t, &len, &e), NS_EPROTO);
    assert_non_null(strstr(e.msg, "magic"));
    proto_header_encode(hdr, PROTO_PARAMS, 10);
    hdr[4] = PROTO_VERSION + 1;
    assert_int_equal(proto_header_decode(hdr, PROTO_MAX_PAYLOAD, &t, &len, &e), NS_EPROTO);
    assert_non_null(strstr(e.msg, "version"));
    proto_header_encode(hdr, PROTO_PARAMS, 10);
    hdr[5] = 200;
    assert_int_equal(proto_header_decode(hdr, PROTO_MAX_PAYLOAD, &t, &len, &e), NS_EPROTO);
    proto_header_encode(hdr, PROTO_PARAMS, 10);
    hdr[7] = 1;
    assert_int_equal(proto_header_decode(hdr, PROTO_MAX_PAYLOAD, &t, &len, &e), NS_EPROTO);
    proto_header_encode(hdr, PROTO_RESULT, PROTO_MAX_PAYLOAD + 1);
    assert_int_equal(proto_header_decode(hdr, PROTO_MAX_PAYLOAD, &t, &len, &e), NS_ETOOBIG);
}

static void
test_payload_must_be_object(void **state)
{
    (void)state;
    json_t *o = NULL;
    struct err e;
    assert_int_equal(proto_payload_decode((const uint8_t *)"[1,2]", 5, &o, &e), NS_EPROTO);
    assert_int_equal(proto_payload_decode((const uint8_t *)"{\"a\":", 5, &o, &e), NS_EPROTO);
    assert_int_equal(proto_payload_decode((const uint8_t *)"{\"a\":1,\"a\":2}", 13, &o, &e),
                     NS_EPROTO);
    assert_int_equal(proto_payload_decode((const uint8_t *)"{\"a\":1}", 7, &o, &e), 0);
    assert_int_equal(json_integer_value(json_object_get(o, "a")), 1);
    json_decref(o);
    assert_int_equal(proto_payload_decode(NULL, 0, &o, &e), 0);
    assert_true(json_is_object(o));
    json_decref(o);
}

static void
test_send_recv_over_socketpair(void **state)
{
    (void)state;
    int sv[2];
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    struct err e;
    json_t *o = json_pack("{s:s, s:i}", "test", "tcp_rr", "streams", 4);
    assert_int_equal(proto_send(sv[0], PROTO_PARAMS, o, 1000, &e), 0);
    json_decref(o);
    enum proto_type t;
    json_t *got = NULL;
    assert_int_equal(proto_recv(sv[1], &t, &got, 1000, &e), 0);
    assert_int_equal(t, PROTO_PARAMS);
    assert_string_equal(json_string_value(json_object_get(got, "test")), "tcp_rr");
    json_decref(got);
    close(sv[0]);
    close(sv[1]);
}

static void
test_truncated_frame_times_out_or_closes(void **state)
{
    (void)state;
    int sv[2];
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    uint8_t hdr[PROTO_HEADER_LEN];
    proto_header_encode(hdr, PROTO_PARAMS, 100);
    assert_int_equal(write(sv[0], hdr, sizeof hdr), (ssize_t)sizeof hdr);
    assert_int_equal(write(sv[0], "{\"a\"", 4), 4);
    enum proto_type t;
    json_t *got = NULL;
    struct err e;
    uint64_t t0 = clock_now_ns();
    assert_int_equal(proto_recv(sv[1], &t, &got, 200, &e), NS_ETIMEDOUT);
    assert_true(clock_now_ns() - t0 < 1000 * NS_PER_MS);
    close(sv[0]); /* now the rest never comes: closed */
    assert_int_equal(proto_recv(sv[1], &t, &got, 200, &e), NS_ECLOSED);
    close(sv[1]);
}

static void
test_oversize_frame_is_refused_before_reading(void **state)
{
    (void)state;
    int sv[2];
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    uint8_t hdr[PROTO_HEADER_LEN];
    proto_header_encode(hdr, PROTO_RESULT, 0x7fffffffu);
    assert_int_equal(write(sv[0], hdr, sizeof hdr), (ssize_t)sizeof hdr);
    enum proto_type t;
    json_t *got = NULL;
    struct err e;
    assert_int_equal(proto_recv(sv[1], &t, &got, 200, &e), NS_ETOOBIG);
    assert_null(got);
    close(sv[0]);
    close(sv[1]);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_header_round_trip),
        cmocka_unit_test(test_header_rejects_bad_frames),
        cmocka_unit_test(test_payload_must_be_object),
        cmocka_unit_test(test_send_recv_over_socketpair),
        cmocka_unit_test(test_truncated_frame_times_out_or_closes),
        cmocka_unit_test(test_oversize_frame_is_refused_before_reading),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
