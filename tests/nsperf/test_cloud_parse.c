/* Unit tests of the metadata answers' parsers (src/nsperf/cloud_parse.c): HTTP responses
 * (Content-Length, chunked, truncated, not HTTP), header lookup, plain values, Azure's
 * document and GCP's zone. The services themselves are tests/nsperf/env_cloud.py's. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "common/errors.h"
#include "nsperf/cloud.h"

/* Parse a copy of text (the parser writes chunked bodies in place). */
static int
parse(const char *text, char *buf, size_t cap, struct cloud_http_resp *r)
{
    size_t len = strlen(text);
    assert_true(len < cap);
    memcpy(buf, text, len + 1);
    return cloud_http_parse(buf, len, r);
}

static void
test_http_content_length(void **state)
{
    (void)state;
    char buf[512], v[64];
    struct cloud_http_resp r;
    const char *ok = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nmetadata-flavor:  Google \r\n"
                     "Content-Length: 10\r\n\r\nus-east-1aEXTRA";
    assert_int_equal(parse(ok, buf, sizeof buf, &r), 0);
    assert_int_equal(r.status, 200);
    assert_int_equal(r.body_len, 10);
    assert_memory_equal(r.body, "us-east-1a", 10);
    assert_true(cloud_http_header(&r, "Metadata-Flavor", v, sizeof v));
    assert_string_equal(v, "Google");
    assert_false(cloud_http_header(&r, "Metadata", v, sizeof v)); /* a prefix is not the name */
    assert_false(cloud_http_header(&r, "Content-Type", v, 5));    /* too long for out */
    assert_true(cloud_http_complete(ok, strlen(ok)));
    assert_false(cloud_http_complete(ok, strlen(ok) - 10)); /* the body is not all there */
    /* no Content-Length: the body runs to the end (the connection closed) */
    assert_int_equal(parse("HTTP/1.0 404 Not Found\r\n\r\nnope", buf, sizeof buf, &r), 0);
    assert_int_equal(r.status, 404);
    assert_int_equal(r.body_len, 4);
    assert_false(cloud_http_complete("HTTP/1.0 404 Not Found\r\n\r\nnope", 28));
    assert_int_equal(parse("HTTP/1.1 204\r\n\r\n", buf, sizeof buf, &r), 0);
    assert_int_equal(r.body_len, 0);
}

static void
test_http_chunked(void **state)
{
    (void)state;
    char buf[512];
    struct cloud_http_resp r;
    assert_int_equal(parse("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                           "4\r\nus-c\r\nA;ext=1\r\nentral1-a-\r\n0\r\n\r\n",
                           buf, sizeof buf, &r),
                     0);
    assert_int_equal(r.body_len, 14);
    assert_memory_equal(r.body, "us-central1-a-", 14);
    const char *bad[] = {
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab\r\n0\r\n\r\n", /* short */
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",               /* not hex */
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabXX0\r\n\r\n",   /* no CRLF */
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nffffffff\r\nab\r\n",   /* huge */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(parse(bad[i], buf, sizeof buf, &r), NS_EPROTO);
}

static void
test_http_rejects(void **state)
{
    (void)state;
    char buf[512];
    struct cloud_http_resp r;
    const char *bad[] = {
        "",
        "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n", /* headers never end */
        "HTTP/1.1 200 OK\r\nContent-Length: 50\r\n\r\nshort",
        "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n",
        "HTTP/1.1 200 OK\r\nContent-Length: 99999999999\r\n\r\n",
        "HTTP/2 200\r\n\r\n",
        "HTTP/1.1 2x0 OK\r\n\r\n",
        "SSH-2.0-OpenSSH_9.2\r\n\r\n",
        "\r\n\r\nHTTP/1.1 200 OK\r\n\r\n",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(parse(bad[i], buf, sizeof buf, &r), NS_EPROTO);
    /* headers longer than CLOUD_HEADER_MAX are not read */
    static char big[CLOUD_HEADER_MAX + 64];
    memset(big, 'a', sizeof big);
    memcpy(big, "HTTP/1.1 200 OK\r\nX: ", 20);
    memcpy(big + sizeof big - 4, "\r\n\r\n", 4);
    assert_int_equal(cloud_http_parse(big, sizeof big, &r), NS_EPROTO);
}

static void
test_values(void **state)
{
    (void)state;
    char out[CLOUD_VALUE_MAX];
    assert_true(cloud_value("use1-az6\n", 9, out));
    assert_string_equal(out, "use1-az6");
    assert_true(cloud_value("AQAEA+/token==", 14, out));
    const char *bad[] = {"",    "\n",       "two words", "quo\"te", "back\\slash",
                         "<b>", "a\033[2J", "tab\tin"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_false(cloud_value(bad[i], strlen(bad[i]), out));
        assert_string_equal(out, "");
    }
    char long_value[CLOUD_VALUE_MAX + 1];
    memset(long_value, 'a', sizeof long_value);
    assert_false(cloud_value(long_value, CLOUD_VALUE_MAX, out));
    assert_true(cloud_value(long_value, CLOUD_VALUE_MAX - 1, out));
    assert_true(cloud_last_segment("projects/1/machineTypes/e2-medium", 33, out));
    assert_string_equal(out, "e2-medium");
    assert_false(cloud_last_segment("projects/1/machineTypes/", 24, out));
}

static void
test_azure(void **state)
{
    (void)state;
    struct cloud_identity id;
    const char *doc = "{\"compute\":{\"location\":\"westus3\",\"zone\":\"3\",\"vmSize\":"
                      "\"Standard_D4s_v5\",\"vmId\":\"02aab8a4-74ef-476e-8182-f6d2ba4166a6\"},"
                      "\"network\":{}}";
    assert_int_equal(cloud_parse_azure(doc, strlen(doc), &id), 0);
    assert_int_equal(id.provider, CLOUD_AZURE);
    assert_string_equal(id.region, "westus3");
    assert_string_equal(id.zone, "3");
    assert_string_equal(id.zone_id, ""); /* IMDS gives no physical zone */
    assert_string_equal(id.instance_type, "Standard_D4s_v5");
    assert_string_equal(id.instance_id, "02aab8a4-74ef-476e-8182-f6d2ba4166a6");
    /* a regional VM: zone "" */
    const char *regional = "{\"compute\":{\"location\":\"eastus\",\"zone\":\"\",\"vmSize\":7}}";
    assert_int_equal(cloud_parse_azure(regional, strlen(regional), &id), 0);
    assert_string_equal(id.zone, "");
    assert_string_equal(id.instance_type, "");
    const char *bad[] = {"",
                         "[]",
                         "{\"compute\":[]}",
                         "{\"compute\":{\"zone\":\"1\"}}",
                         "{\"compute\":{\"location\":\"west us\"}}",
                         "{\"compute\":{\"location\":\"a\",\"location\":\"b\"}}",
                         "{\"compute\":"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(cloud_parse_azure(bad[i], strlen(bad[i]), &id), NS_EPROTO);
        assert_int_equal(id.provider, CLOUD_NONE);
    }
}

static void
test_gcp_zone(void **state)
{
    (void)state;
    struct cloud_identity id = {0};
    const char *z = "projects/123456789012/zones/europe-west4-b";
    assert_true(cloud_parse_gcp_zone(z, strlen(z), &id));
    assert_string_equal(id.zone, "europe-west4-b");
    assert_string_equal(id.zone_id, "europe-west4-b");
    assert_string_equal(id.region, "europe-west4");
    const char *bad[] = {"us-central1-a",       "projects/1/regions/us-central1-a",
                         "projects/1/zones/",   "projects/1/zones/central",
                         "projects/1/zones/-a", "projects/1/zones/us-"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_false(cloud_parse_gcp_zone(bad[i], strlen(bad[i]), &id));
}

static void
test_modes(void **state)
{
    (void)state;
    enum cloud_mode m;
    assert_true(cloud_mode_parse("probe", &m));
    assert_int_equal(m, CLOUD_MODE_PROBE);
    assert_true(cloud_mode_parse("off", &m));
    assert_int_equal(m, CLOUD_MODE_OFF);
    assert_false(cloud_mode_parse("on", &m));
    struct cloud_identity id;
    assert_false(cloud_probe(CLOUD_MODE_OFF, CLOUD_BUDGET_MS, &id)); /* sends nothing */
    assert_int_equal(id.provider, CLOUD_NONE);
    assert_string_equal(cloud_provider_name(CLOUD_AWS), "aws");
    assert_null(cloud_provider_name(CLOUD_NONE));
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_http_content_length),
        cmocka_unit_test(test_http_chunked),
        cmocka_unit_test(test_http_rejects),
        cmocka_unit_test(test_values),
        cmocka_unit_test(test_azure),
        cmocka_unit_test(test_gcp_zone),
        cmocka_unit_test(test_modes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
