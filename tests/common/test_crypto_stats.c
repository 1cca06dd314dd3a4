/* SHA-256 (FIPS 180-4 vectors), HMAC-SHA-256 (RFC 4231), hex, and trial statistics. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "common/sha256.h"
#include "common/stats.h"

static void
hex_of_sha(const char *msg, size_t len, char out[65])
{
    uint8_t d[SHA256_LEN];
    sha256(msg, len, d);
    sha256_hex_encode(d, SHA256_LEN, out);
}

static void
test_sha256_vectors(void **state)
{
    (void)state;
    char hex[65];
    hex_of_sha("abc", 3, hex);
    assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    hex_of_sha("", 0, hex);
    assert_string_equal(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    const char *m = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    hex_of_sha(m, strlen(m), hex);
    assert_string_equal(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    /* one million 'a' fed in uneven pieces exercises the buffering */
    struct sha256 c;
    sha256_init(&c);
    char a[1001];
    memset(a, 'a', sizeof a);
    for (int i = 0; i < 1000; i++)
        sha256_update(&c, a, (size_t)(i % 2 ? 999 : 1001));
    uint8_t d[SHA256_LEN];
    sha256_final(&c, d);
    assert_string_equal(sha256_hex_encode(d, SHA256_LEN, hex),
                        "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

static void
test_hmac_rfc4231(void **state)
{
    (void)state;
    uint8_t key[20];
    memset(key, 0x0b, sizeof key);
    uint8_t mac[SHA256_LEN];
    char hex[65];
    sha256_hmac(key, sizeof key, "Hi There", 8, mac);
    assert_string_equal(sha256_hex_encode(mac, SHA256_LEN, hex),
                        "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
    sha256_hmac("Jefe", 4, "what do ya want for nothing?", 28, mac);
    assert_string_equal(sha256_hex_encode(mac, SHA256_LEN, hex),
                        "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
    uint8_t longkey[131];
    memset(longkey, 0xaa, sizeof longkey);
    const char *m = "Test Using Larger Than Block-Size Key - Hash Key First";
    sha256_hmac(longkey, sizeof longkey, m, strlen(m), mac);
    assert_string_equal(sha256_hex_encode(mac, SHA256_LEN, hex),
                        "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
}

static void
test_hex_and_ct(void **state)
{
    (void)state;
    uint8_t b[4];
    assert_int_equal(sha256_hex_decode("00ff10Ab", b, 4), 0);
    assert_int_equal(b[1], 0xff);
    assert_int_equal(b[3], 0xab);
    assert_int_equal(sha256_hex_decode("00ff1", b, 3), -1);
    assert_int_equal(sha256_hex_decode("zz", b, 1), -1);
    assert_int_equal(sha256_ct_memcmp("abc", "abc", 3), 0);
    assert_int_not_equal(sha256_ct_memcmp("abc", "abd", 3), 0);
    uint8_t r1[16], r2[16];
    assert_int_equal(sha256_random_bytes(r1, sizeof r1), 0);
    assert_int_equal(sha256_random_bytes(r2, sizeof r2), 0);
    assert_memory_not_equal(r1, r2, sizeof r1);
}

static void
test_stats_and_ci(void **state)
{
    (void)state;
    /* qperf article, cross-AZ latency trials: 318, 316, 324 -> mean 319.33 */
    struct stats s;
    stats_init(&s);
    stats_add(&s, 318);
    stats_add(&s, 316);
    stats_add(&s, 324);
    assert_true(fabs(stats_mean(&s) - 319.3333333) < 1e-6);
    assert_true(fabs(stats_stddev(&s) - 4.1633320) < 1e-6);
    /* t(0.975, 2) = 4.303 -> half-width 4.303 * 4.1633 / sqrt(3) */
    assert_true(fabs(stats_ci_halfwidth(&s, 0.95) - 4.303 * 4.1633320 / sqrt(3.0)) < 1e-3);
    assert_true(s.min == 316 && s.max == 324);
    struct stats a, b;
    stats_init(&a);
    stats_init(&b);
    stats_add(&a, 318);
    stats_add(&b, 316);
    stats_add(&b, 324);
    stats_merge(&a, &b);
    assert_true(fabs(stats_mean(&a) - stats_mean(&s)) < 1e-9);
    assert_true(fabs(stats_variance(&a) - stats_variance(&s)) < 1e-9);
    /* the moments alone, as hist_merge and the report model merge them: the same bits as
     * stats_merge gives */
    double mean = 318, m2 = 0;
    stats_merge_moments(1, &mean, &m2, 2, b.mean, b.m2);
    assert_true(mean == a.mean && m2 == a.m2);
    assert_true(fabs(stats_t_critical(1000, 0.95) - 1.96) < 0.01);
    struct stats one;
    stats_init(&one);
    stats_add(&one, 5);
    assert_true(stats_ci_halfwidth(&one, 0.95) == 0.0);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sha256_vectors),
        cmocka_unit_test(test_hmac_rfc4231),
        cmocka_unit_test(test_hex_and_ct),
        cmocka_unit_test(test_stats_and_ci),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
