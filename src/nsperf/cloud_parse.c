/* cloud_parse.c - what a metadata service answered, taken apart (cloud.h). Pure functions on
 * untrusted bytes: every length is checked before it is used, nothing is read past len, and a
 * value is kept only when it is a plain token (a zone, a size, an id), never text that a
 * terminal, a report or a shell could misread. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/errors.h"
#include "nsperf/cloud.h"

/* The end of the header block ("\r\n\r\n"): the offset of the body, or 0 when not there yet. */
static size_t
header_end(const char *buf, size_t len)
{
    size_t n = len < CLOUD_HEADER_MAX ? len : CLOUD_HEADER_MAX;
    for (size_t i = 0; i + 4 <= n; i++)
        if (memcmp(buf + i, "\r\n\r\n", 4) == 0)
            return i + 4;
    return 0;
}

/* Header name's value in the header lines h[0..hlen) (each ending in CRLF), trimmed. */
static bool
header_find(const char *h, size_t hlen, const char *name, const char **val, size_t *vlen)
{
    size_t nlen = strlen(name);
    while (hlen > 0) {
        const char *eol = memchr(h, '\n', hlen);
        size_t llen = eol != NULL ? (size_t)(eol - h) : hlen;
        if (llen > nlen && h[nlen] == ':' && strncasecmp(h, name, nlen) == 0) {
            const char *v = h + nlen + 1, *end = h + llen;
            while (v < end && (*v == ' ' || *v == '\t'))
                v++;
            while (end > v && (end[-1] == '\r' || end[-1] == ' ' || end[-1] == '\t'))
                end--;
            *val = v;
            *vlen = (size_t)(end - v);
            return true;
        }
        if (eol == NULL)
            break;
        hlen -= llen + 1;
        h = eol + 1;
    }
    return false;
}

/* The status line "HTTP/1.x NNN ...": the status, and the offset of the header lines. */
static bool
status_line(const char *buf, size_t hend, int *status, size_t *lines)
{
    if (hend < 14 || (memcmp(buf, "HTTP/1.1 ", 9) != 0 && memcmp(buf, "HTTP/1.0 ", 9) != 0))
        return false;
    if (!isdigit((unsigned char)buf[9]) || !isdigit((unsigned char)buf[10]) ||
        !isdigit((unsigned char)buf[11]) || (buf[12] != ' ' && buf[12] != '\r'))
        return false;
    *status = (buf[9] - '0') * 100 + (buf[10] - '0') * 10 + (buf[11] - '0');
    const char *eol = memchr(buf, '\n', hend);
    if (eol == NULL)
        return false;
    *lines = (size_t)(eol - buf) + 1;
    return true;
}

/* A decimal Content-Length; false when it is not one (or is absurd). */
static bool
content_length(const char *v, size_t vlen, size_t *out)
{
    if (vlen == 0 || vlen > 9)
        return false;
    size_t n = 0;
    for (size_t i = 0; i < vlen; i++) {
        if (!isdigit((unsigned char)v[i]))
            return false;
        n = n * 10 + (size_t)(v[i] - '0');
    }
    *out = n;
    return true;
}

static bool
is_chunked(const char *h, size_t hlen)
{
    const char *v;
    size_t vlen;
    return header_find(h, hlen, "Transfer-Encoding", &v, &vlen) && vlen == 7 &&
           strncasecmp(v, "chunked", 7) == 0;
}

/* Decode a chunked body at b[0..len) in place; *out the decoded length. */
static bool
dechunk(char *b, size_t len, size_t *out)
{
    size_t r = 0, w = 0;
    for (;;) {
        size_t size = 0, digits = 0;
        while (r < len && isxdigit((unsigned char)b[r]) && digits < 8) {
            char c = b[r++];
            size =
                size * 16 + (size_t)(isdigit((unsigned char)c) ? c - '0' : (c | 0x20) - 'a' + 10);
            digits++;
        }
        if (digits == 0)
            return false;
        while (r < len && b[r] != '\n') /* chunk extensions, then CRLF */
            r++;
        if (r >= len)
            return false;
        r++;
        if (size == 0)
            break; /* trailers are not read */
        if (size > len - r || len - r - size < 2 || b[r + size] != '\r' || b[r + size + 1] != '\n')
            return false;
        memmove(b + w, b + r, size);
        w += size;
        r += size + 2;
    }
    *out = w;
    return true;
}

int
cloud_http_parse(char *buf, size_t len, struct cloud_http_resp *r)
{
    memset(r, 0, sizeof *r);
    if (len > CLOUD_RESPONSE_MAX)
        return NS_EPROTO;
    size_t hend = header_end(buf, len), lines = 0;
    if (hend == 0 || !status_line(buf, hend, &r->status, &lines) || lines > hend - 2)
        return NS_EPROTO;
    r->headers = buf + lines;
    r->headers_len = hend - 2 - lines;
    char *body = buf + hend;
    size_t blen = len - hend, cl;
    const char *v;
    size_t vlen;
    if (is_chunked(r->headers, r->headers_len)) {
        if (!dechunk(body, blen, &blen))
            return NS_EPROTO;
    } else if (header_find(r->headers, r->headers_len, "Content-Length", &v, &vlen)) {
        if (!content_length(v, vlen, &cl) || cl > blen)
            return NS_EPROTO;
        blen = cl;
    }
    r->body = body;
    r->body_len = blen;
    return 0;
}

bool
cloud_http_complete(const char *buf, size_t len)
{
    size_t hend = header_end(buf, len), lines = 0, cl;
    int status;
    const char *v;
    size_t vlen;
    if (hend == 0 || !status_line(buf, hend, &status, &lines) || lines > hend - 2)
        return false;
    const char *h = buf + lines;
    size_t hlen = hend - 2 - lines;
    if (is_chunked(h, hlen) || !header_find(h, hlen, "Content-Length", &v, &vlen))
        return false; /* read to the end: the request said Connection: close */
    return content_length(v, vlen, &cl) && len - hend >= cl;
}

bool
cloud_http_header(const struct cloud_http_resp *r, const char *name, char *out, size_t len)
{
    const char *v;
    size_t vlen;
    if (len == 0 || !header_find(r->headers, r->headers_len, name, &v, &vlen) || vlen >= len)
        return false;
    memcpy(out, v, vlen);
    out[vlen] = '\0';
    return true;
}

bool
cloud_value(const char *s, size_t len, char out[CLOUD_VALUE_MAX])
{
    out[0] = '\0';
    while (len > 0 &&
           (s[len - 1] == '\n' || s[len - 1] == '\r' || s[len - 1] == ' ' || s[len - 1] == '\t'))
        len--;
    if (len == 0 || len >= CLOUD_VALUE_MAX)
        return false;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c <= 0x20 || c >= 0x7f || strchr("\"'\\<>`&", c) != NULL)
            return false;
    }
    memcpy(out, s, len);
    out[len] = '\0';
    return true;
}

/* compute.<key> as a plain value into out ("" when absent, empty or not plain). */
static void
azure_value(const json_t *compute, const char *key, char out[CLOUD_VALUE_MAX])
{
    const json_t *v = json_object_get(compute, key);
    out[0] = '\0';
    if (json_is_string(v))
        cloud_value(json_string_value(v), json_string_length(v), out);
}

/* The document of GET /metadata/instance?api-version=2021-02-01 ("Azure Instance Metadata
 * Service", learn.microsoft.com/azure/virtual-machines/instance-metadata-service): an object
 * whose "compute" holds "location" (the region), "zone" (the logical zone, "" for a VM
 * without one), "vmSize" and "vmId". */
int
cloud_parse_azure(const char *body, size_t len, struct cloud_identity *id)
{
    memset(id, 0, sizeof *id);
    json_t *doc = json_loadb(body, len, JSON_REJECT_DUPLICATES, NULL);
    const json_t *compute = json_object_get(doc, "compute");
    int rc = NS_EPROTO;
    if (json_is_object(compute)) {
        azure_value(compute, "location", id->region);
        azure_value(compute, "zone", id->zone);
        azure_value(compute, "vmSize", id->instance_type);
        azure_value(compute, "vmId", id->instance_id);
        if (id->region[0] != '\0') {
            id->provider = CLOUD_AZURE;
            rc = 0;
        }
    }
    json_decref(doc);
    if (rc != 0)
        memset(id, 0, sizeof *id);
    return rc;
}

bool
cloud_last_segment(const char *s, size_t len, char out[CLOUD_VALUE_MAX])
{
    char whole[CLOUD_VALUE_MAX];
    out[0] = '\0';
    if (!cloud_value(s, len, whole))
        return false;
    const char *last = strrchr(whole, '/');
    last = last != NULL ? last + 1 : whole;
    if (*last == '\0')
        return false;
    memcpy(out, last, strlen(last) + 1);
    return true;
}

/* GET /computeMetadata/v1/instance/zone ("About VM metadata", cloud.google.com/compute/docs/
 * metadata/predefined-metadata-keys): "projects/PROJECT_NUMBER/zones/ZONE". */
bool
cloud_parse_gcp_zone(const char *s, size_t len, struct cloud_identity *id)
{
    char whole[CLOUD_VALUE_MAX], zone[CLOUD_VALUE_MAX];
    if (!cloud_value(s, len, whole) || strncmp(whole, "projects/", 9) != 0 ||
        !cloud_last_segment(s, len, zone))
        return false;
    size_t zlen = strlen(zone), wlen = strlen(whole);
    if (wlen < zlen + 7 || memcmp(whole + wlen - zlen - 7, "/zones/", 7) != 0)
        return false;
    const char *dash = strrchr(zone, '-');
    if (dash == NULL || dash == zone || dash[1] == '\0')
        return false;
    memcpy(id->zone, zone, zlen + 1);
    memcpy(id->zone_id, zone, zlen + 1);
    memcpy(id->region, zone, (size_t)(dash - zone));
    id->region[dash - zone] = '\0';
    return true;
}
