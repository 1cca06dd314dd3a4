#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "common/errors.h"
#include "common/net.h"
#include "common/units.h"

static void
test_durations(void **state)
{
    (void)state;
    struct {
        const char *s;
        double want;
    } ok[] = {{"10s", 10}, {"250ms", 0.25}, {"5m", 300},   {"1.5h", 5400}, {"100us", 1e-4},
              {"10", 10},  {"0", 0},        {"2min", 120}, {"300 s", 300}, {"1d", 86400}};
    for (size_t i = 0; i < sizeof ok / sizeof *ok; i++) {
        double v = -1;
        struct err e;
        assert_int_equal(units_parse_duration(ok[i].s, &v, &e), 0);
        assert_true(fabs(v - ok[i].want) < 1e-12);
    }
    const char *bad[] = {"", "-1s", "10x", "s", "1.5.5s", "nan", "inf", "10s junk", "+3s", "0x10s"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        double v;
        struct err e;
        err_clear(&e);
        assert_true(units_parse_duration(bad[i], &v, &e) < 0);
        assert_true(strlen(e.msg) > 0);
    }
}

static void
test_sizes_are_binary(void **state)
{
    (void)state;
    uint64_t v;
    struct err e;
    assert_int_equal(units_parse_size("64K", &v, &e), 0);
    assert_int_equal(v, 65536);
    assert_int_equal(units_parse_size("1G", &v, &e), 0);
    assert_int_equal(v, 1073741824ULL);
    assert_int_equal(units_parse_size("250", &v, &e), 0);
    assert_int_equal(v, 250);
    assert_int_equal(units_parse_size("1.5k", &v, &e), 0);
    assert_int_equal(v, 1536);
    assert_int_equal(units_parse_size("64KiB", &v, &e), 0);
    assert_int_equal(v, 65536);
    assert_int_equal(units_parse_size("64Q", &v, &e), NS_EPARSE);
    assert_non_null(strstr(e.msg, "unknown unit 'Q'"));
    assert_int_equal(units_parse_size("99999999999999999999G", &v, &e), NS_ERANGE);
}

static void
test_rates_are_decimal_bits(void **state)
{
    (void)state;
    uint64_t v;
    struct err e;
    assert_int_equal(units_parse_rate("1.5G", &v, &e), 0);
    assert_int_equal(v, 1500000000ULL);
    assert_int_equal(units_parse_rate("900M", &v, &e), 0);
    assert_int_equal(v, 900000000ULL);
    assert_int_equal(units_parse_rate("10Gbit", &v, &e), 0);
    assert_int_equal(v, 10000000000ULL);
    assert_int_equal(units_parse_rate("100k", &v, &e), 0);
    assert_int_equal(v, 100000);
    assert_int_equal(units_parse_rate("1e9", &v, &e), 0);
    assert_int_equal(v, 1000000000ULL);
    assert_int_equal(units_parse_rate("-5M", &v, &e), NS_ERANGE);
}

static void
test_formatting(void **state)
{
    (void)state;
    char buf[32];
    assert_string_equal(units_format_rate(12.1e9, buf, sizeof buf), "12.10 Gbit/s");
    assert_string_equal(units_format_rate(941.4e6, buf, sizeof buf), "941.4 Mbit/s");
    assert_string_equal(units_format_usec(329.278, buf, sizeof buf), "329.3 us");
    assert_string_equal(units_format_usec(4080, buf, sizeof buf), "4.080 ms");
    assert_string_equal(units_format_bytes(65536, buf, sizeof buf), "64.00 KiB");
}

static void
test_err_helpers(void **state)
{
    (void)state;
    struct err e;
    err_clear(&e);
    assert_int_equal(err_set(&e, NS_ETIMEDOUT, "read %d bytes", 12), NS_ETIMEDOUT);
    assert_string_equal(e.msg, "read 12 bytes");
    assert_int_equal(err_prefix(&e, "control %s", "connection"), NS_ETIMEDOUT);
    assert_string_equal(e.msg, "control connection: read 12 bytes");
    assert_string_equal(err_name(NS_ETIMEDOUT), "timed out");
    assert_int_equal(err_set(NULL, NS_EIO, "x"), NS_EIO);
}

/* Ports as people write them: the one parser nsperf -p, the plan and the inventories use. */
static void
test_ports(void **state)
{
    (void)state;
    uint16_t p = 7;
    assert_int_equal(net_parse_port("22", 1, &p), 0);
    assert_int_equal(p, 22);
    assert_int_equal(net_parse_port("65535", 1, &p), 0);
    assert_int_equal(p, 65535);
    assert_int_equal(net_parse_port("0", 0, &p), 0); /* nsperf -s -p 0: any free port */
    assert_int_equal(p, 0);
    assert_int_equal(net_parse_port("000080", 1, &p), 0);
    assert_int_equal(p, 80);
    p = 7;
    const char *bad[] = {
        "0", "65536", "99999999999999999999", "", "-1", "+80", " 80", "80 ", "8o", "0x50", "1e3"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(net_parse_port(bad[i], 1, &p), -1);
    assert_int_equal(net_parse_port(NULL, 0, &p), -1);
    assert_int_equal(p, 7); /* untouched by a refusal */
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_durations),
        cmocka_unit_test(test_sizes_are_binary),
        cmocka_unit_test(test_rates_are_decimal_bits),
        cmocka_unit_test(test_formatting),
        cmocka_unit_test(test_err_helpers),
        cmocka_unit_test(test_ports),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
