/* fuzz_cloud.c - libFuzzer target for the metadata answers' parsers (nsperf/cloud.h): the input
 * is what a service at 169.254.169.254 sent, whole. Invariants besides memory safety: a parsed
 * response's body and headers lie inside the input; a response cloud_http_complete calls
 * complete parses; every value kept is a plain token (no blank, quote or control byte), and an
 * Azure document either names a region or leaves the identity empty. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/errors.h"
#include "nsperf/cloud.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
plain(const char *v)
{
    size_t n = strlen(v);
    if (n >= CLOUD_VALUE_MAX)
        abort();
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)v[i] <= 0x20 || (unsigned char)v[i] >= 0x7f || v[i] == '"')
            abort();
}

static void
identity(const struct cloud_identity *id)
{
    plain(id->region);
    plain(id->zone);
    plain(id->zone_id);
    plain(id->instance_type);
    plain(id->instance_id);
}

static void
body(const char *b, size_t len)
{
    struct cloud_identity id;
    if (cloud_parse_azure(b, len, &id) == 0) {
        if (id.provider != CLOUD_AZURE || id.region[0] == '\0')
            abort();
    } else if (id.provider != CLOUD_NONE || id.region[0] != '\0') {
        abort();
    }
    identity(&id);
    memset(&id, 0, sizeof id);
    if (cloud_parse_gcp_zone(b, len, &id) && (id.zone[0] == '\0' || id.region[0] == '\0'))
        abort();
    identity(&id);
    char v[CLOUD_VALUE_MAX];
    if (cloud_value(b, len, v))
        plain(v);
    if (cloud_last_segment(b, len, v))
        plain(v);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > CLOUD_RESPONSE_MAX)
        return 0;
    char *buf = malloc(size + 1);
    if (buf == NULL)
        return 0;
    memcpy(buf, data, size);
    bool complete = cloud_http_complete(buf, size);
    struct cloud_http_resp r;
    int rc = cloud_http_parse(buf, size, &r);
    if (complete && rc != 0)
        abort();
    if (rc == 0) {
        if (r.body < buf || r.body + r.body_len > buf + size || r.headers < buf ||
            r.headers + r.headers_len > buf + size || r.status < 0 || r.status > 999)
            abort();
        char v[64];
        if (cloud_http_header(&r, "Metadata-Flavor", v, sizeof v) && strlen(v) >= sizeof v)
            abort();
        body(r.body, r.body_len);
    }
    body((const char *)data, size); /* any bytes as a body */
    free(buf);
    return 0;
}
