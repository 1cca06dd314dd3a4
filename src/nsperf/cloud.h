/* cloud.h - the cloud's own word on where this host runs: `nsperf env`'s "cloud" object, asked
 * of the instance metadata service at 169.254.169.254 (Azure IMDS, AWS IMDSv2, GCP's metadata
 * server) with a small HTTP/1.1 client of its own (cloud_http.c): the static endpoint links no
 * HTTP library, and the three services need one GET or PUT each, with Connection: close.
 *
 * Every step is bounded: one budget of CLOUD_BUDGET_MS for the whole probe (connects, writes,
 * reads), a response read with a cap of CLOUD_RESPONSE_MAX, no retries, no proxy (the socket
 * dials the address itself; http_proxy and friends are never read), and no other address.
 * A zone *label* is not a place (Azure's logical zones and AWS's zone names are per
 * subscription/account), so the physical zone is kept apart, as zone_id, where the cloud
 * gives it (AWS's availability-zone-id; a GCP zone name, which is the same place in every
 * project). Azure's IMDS gives no physical zone: its zone_id stays empty. */
#ifndef NS_NSPERF_CLOUD_H
#define NS_NSPERF_CLOUD_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CLOUD_ADDRESS "169.254.169.254"
#define CLOUD_PORT 80
#define CLOUD_BUDGET_MS 500            /* the whole probe, answered or not (the default) */
#define CLOUD_BUDGET_MAX_MS 10000      /* --cloud-budget's upper bound */
#define CLOUD_RESPONSE_MAX (64u << 10) /* a response, headers included (Azure's is ~5 KB) */
#define CLOUD_HEADER_MAX 8192          /* the status line and headers */
#define CLOUD_VALUE_MAX 128            /* one value (a zone, an instance id) */

/* Which services `nsperf env` asks. AUTO: the one the machine's firmware names (DMI
 * sys_vendor / product_name / chassis_asset_tag, /sys/hypervisor/uuid, as cloud-init's
 * ds-identify reads them), none when it names none, so that an on-premises host never sends a
 * packet to a link-local address through its gateway (where an OpenStack metadata service
 * speaking AWS's paths may answer). PROBE: all three in turn, within the one budget (for a
 * machine whose firmware is hidden, and for the tests). OFF: none. */
enum cloud_mode { CLOUD_MODE_AUTO, CLOUD_MODE_PROBE, CLOUD_MODE_OFF };

enum cloud_provider { CLOUD_NONE, CLOUD_AZURE, CLOUD_AWS, CLOUD_GCP };

/* What a service said; "" where it said nothing (or something that is not a plain value). */
struct cloud_identity {
    enum cloud_provider provider;
    char region[CLOUD_VALUE_MAX];
    char zone[CLOUD_VALUE_MAX];
    char zone_id[CLOUD_VALUE_MAX];
    char instance_type[CLOUD_VALUE_MAX];
    char instance_id[CLOUD_VALUE_MAX];
};

/* A parsed HTTP/1.x response; pointers into the buffer given to cloud_http_parse. */
struct cloud_http_resp {
    int status;
    const char *headers; /* the header lines, after the status line */
    size_t headers_len;
    const char *body;
    size_t body_len;
};

/* --- the parsers (pure; fuzzed by tests/fuzz/fuzz_cloud.c) ------------------------------ */

/* Parse a whole response of len bytes at buf (the connection closed, or the read stopped at
 * its Content-Length). Chunked bodies are decoded in place, so buf is written. Returns 0, or
 * NS_EPROTO for anything that is not a complete HTTP/1.0 or 1.1 response within the caps. */
int cloud_http_parse(char *buf, size_t len, struct cloud_http_resp *r);

/* Whether the bytes at buf hold a complete response already: the headers ended and the body has
 * its Content-Length (a server that keeps the connection open is not waited for). */
bool cloud_http_complete(const char *buf, size_t len);

/* The value of header name (case-insensitive, surrounding blanks trimmed) into out; false when
 * absent or longer than len - 1. */
bool cloud_http_header(const struct cloud_http_resp *r, const char *name, char *out, size_t len);

/* A plain value of a metadata text answer into out (trailing newline and blanks cut): printable
 * ASCII without blanks, quotes, backslashes or angle brackets, 1..CLOUD_VALUE_MAX-1 bytes;
 * false otherwise (out is then ""). */
bool cloud_value(const char *s, size_t len, char out[CLOUD_VALUE_MAX]);

/* Azure IMDS's /metadata/instance document into id (provider CLOUD_AZURE): compute.location,
 * compute.zone, compute.vmSize, compute.vmId. Returns 0, or NS_EPROTO when it is not a JSON
 * object with a "compute" object naming a location. */
int cloud_parse_azure(const char *body, size_t len, struct cloud_identity *id);

/* GCP's zone answer "projects/NUM/zones/us-central1-a" into zone (the last segment), region
 * (the zone without its last "-x": "us-central1") and zone_id (the zone: GCP zone names are the
 * same place in every project). False when it is not of that form. */
bool cloud_parse_gcp_zone(const char *s, size_t len, struct cloud_identity *id);

/* The last "/" segment of a GCP answer ("projects/NUM/machineTypes/e2-medium": "e2-medium"). */
bool cloud_last_segment(const char *s, size_t len, char out[CLOUD_VALUE_MAX]);

/* --- the probe (cloud.c) ---------------------------------------------------------------- */

/* The provider's name ("azure", "aws", "gcp"; NULL for CLOUD_NONE). */
const char *cloud_provider_name(enum cloud_provider p);

/* "auto", "probe", "off" into *mode; false for anything else. */
bool cloud_mode_parse(const char *s, enum cloud_mode *mode);

/* Ask the metadata services that mode selects, within budget_ms (CLOUD_BUDGET_MS unless the
 * caller was told otherwise: a loaded VM, a test's stand-in service). Returns true with *id
 * filled when one answered as its cloud documents; false off-cloud (or when none answered in
 * time, or answered garbage). */
bool cloud_probe(enum cloud_mode mode, int budget_ms, struct cloud_identity *id);

/* env.cloud: {"provider", "region", "zone", "zone_id", "instance_type", "instance_id"} (null
 * where the service said nothing), or JSON null off-cloud. New reference; NULL without memory. */
json_t *cloud_collect(enum cloud_mode mode, int budget_ms);

#endif
