/* cloud.c - which cloud this host is in, by its firmware and its metadata service (cloud.h).
 * The paths, headers and fields are the ones each cloud documents:
 *  - Azure: "Azure Instance Metadata Service" (learn.microsoft.com/azure/virtual-machines/
 *    instance-metadata-service): GET /metadata/instance?api-version=2021-02-01 with the header
 *    "Metadata: true" (a request without it is refused), a JSON document (cloud_parse.c).
 *  - AWS: "Use the Instance Metadata Service to access instance metadata" and "Instance
 *    metadata categories" (docs.aws.amazon.com/AWSEC2/latest/UserGuide/instancedata-data-
 *    retrieval.html, instancedata-data-categories.html): IMDSv2, a session token from
 *    PUT /latest/api/token with "X-aws-ec2-metadata-token-ttl-seconds", then each of
 *    /latest/meta-data/placement/availability-zone, placement/availability-zone-id,
 *    placement/region, instance-type and instance-id with "X-aws-ec2-metadata-token"; each
 *    answer is the bare value.
 *  - GCP: "View and query VM metadata" (cloud.google.com/compute/docs/metadata/querying-
 *    metadata): GET /computeMetadata/v1/instance/zone, machine-type and id with the header
 *    "Metadata-Flavor: Google"; the server's answers carry "Metadata-Flavor: Google" too,
 *    which is checked, so that another service on the address is not taken for Google's.
 * One budget for everything, no retries: a host whose service does not answer in time is
 * off-cloud as far as the survey is concerned (its plan must then give its zone). */
#include "nsperf/cloud.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "nsperf/cloud_http.h"

#define CLOUD_AWS_TTL_S "60" /* the token lives a minute: long enough for five GETs */

const char *
cloud_provider_name(enum cloud_provider p)
{
    switch (p) {
    case CLOUD_AZURE:
        return "azure";
    case CLOUD_AWS:
        return "aws";
    case CLOUD_GCP:
        return "gcp";
    case CLOUD_NONE:
        break;
    }
    return NULL;
}

bool
cloud_mode_parse(const char *s, enum cloud_mode *mode)
{
    static const char *const names[] = {
        [CLOUD_MODE_AUTO] = "auto", [CLOUD_MODE_PROBE] = "probe", [CLOUD_MODE_OFF] = "off"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (strcmp(s, names[i]) == 0) {
            *mode = (enum cloud_mode)i;
            return true;
        }
    }
    return false;
}

/* --- the firmware's word ------------------------------------------------------------------ */

static bool
file_starts(const char *path, const char *prefix)
{
    char line[128];
    FILE *f = fopen(path, "re");
    if (f == NULL)
        return false;
    bool ok = fgets(line, sizeof line, f) != NULL && strncmp(line, prefix, strlen(prefix)) == 0;
    fclose(f);
    return ok;
}

/* The cloud the DMI tables name, as cloud-init's ds-identify tells them apart: Azure by its
 * chassis asset tag (sys_vendor "Microsoft Corporation" is any Hyper-V guest), AWS by "Amazon
 * EC2" (Nitro) or a Xen uuid starting "ec2", GCP by "Google Compute Engine" / "Google". */
static enum cloud_provider
cloud_from_firmware(void)
{
    static const char dmi[] = "/sys/class/dmi/id/";
    char p[96];
#define DMI(file, prefix) (snprintf(p, sizeof p, "%s%s", dmi, file), file_starts(p, prefix))
    if (DMI("chassis_asset_tag", "7783-7084-3265-9085-8269-3286-77"))
        return CLOUD_AZURE;
    if (DMI("sys_vendor", "Amazon EC2") || DMI("bios_vendor", "Amazon EC2") ||
        file_starts("/sys/hypervisor/uuid", "ec2"))
        return CLOUD_AWS;
    if (DMI("product_name", "Google Compute Engine") || DMI("sys_vendor", "Google"))
        return CLOUD_GCP;
#undef DMI
    return CLOUD_NONE;
}

/* --- the services ------------------------------------------------------------------------- */

struct probe {
    uint64_t deadline_ns;
    char *buf; /* CLOUD_RESPONSE_MAX bytes, reused by every request */
};

/* GET path with headers; the status-200 body as a plain value into out. */
static bool
get_value(struct probe *pr, const char *path, const char *headers, char out[CLOUD_VALUE_MAX],
          struct cloud_http_resp *resp)
{
    out[0] = '\0';
    return cloud_http_request("GET", path, headers, pr->deadline_ns, pr->buf, CLOUD_RESPONSE_MAX,
                              resp) == 0 &&
           resp->status == 200 && cloud_value(resp->body, resp->body_len, out);
}

static bool
ask_azure(struct probe *pr, struct cloud_identity *id)
{
    struct cloud_http_resp r;
    return cloud_http_request("GET", "/metadata/instance?api-version=2021-02-01",
                              "Metadata: true\r\n", pr->deadline_ns, pr->buf, CLOUD_RESPONSE_MAX,
                              &r) == 0 &&
           r.status == 200 && cloud_parse_azure(r.body, r.body_len, id) == 0;
}

static bool
ask_aws(struct probe *pr, struct cloud_identity *id)
{
    struct cloud_http_resp r;
    char token[CLOUD_VALUE_MAX], hdr[CLOUD_VALUE_MAX + 64];
    if (cloud_http_request("PUT", "/latest/api/token",
                           "X-aws-ec2-metadata-token-ttl-seconds: " CLOUD_AWS_TTL_S "\r\n",
                           pr->deadline_ns, pr->buf, CLOUD_RESPONSE_MAX, &r) != 0 ||
        r.status != 200 || !cloud_value(r.body, r.body_len, token))
        return false;
    snprintf(hdr, sizeof hdr, "X-aws-ec2-metadata-token: %s\r\n", token);
    memset(id, 0, sizeof *id);
    if (!get_value(pr, "/latest/meta-data/placement/availability-zone", hdr, id->zone, &r))
        return false;
    get_value(pr, "/latest/meta-data/placement/availability-zone-id", hdr, id->zone_id, &r);
    get_value(pr, "/latest/meta-data/placement/region", hdr, id->region, &r);
    get_value(pr, "/latest/meta-data/instance-type", hdr, id->instance_type, &r);
    get_value(pr, "/latest/meta-data/instance-id", hdr, id->instance_id, &r);
    id->provider = CLOUD_AWS;
    return true;
}

/* A GCP answer: status 200 and the server saying it is Google's. */
static bool
gcp_get(struct probe *pr, const char *path, struct cloud_http_resp *r)
{
    char flavor[16];
    return cloud_http_request("GET", path, "Metadata-Flavor: Google\r\n", pr->deadline_ns, pr->buf,
                              CLOUD_RESPONSE_MAX, r) == 0 &&
           r->status == 200 && cloud_http_header(r, "Metadata-Flavor", flavor, sizeof flavor) &&
           strcmp(flavor, "Google") == 0;
}

static bool
ask_gcp(struct probe *pr, struct cloud_identity *id)
{
    struct cloud_http_resp r;
    memset(id, 0, sizeof *id);
    if (!gcp_get(pr, "/computeMetadata/v1/instance/zone", &r) ||
        !cloud_parse_gcp_zone(r.body, r.body_len, id))
        return false;
    if (gcp_get(pr, "/computeMetadata/v1/instance/machine-type", &r))
        cloud_last_segment(r.body, r.body_len, id->instance_type);
    if (gcp_get(pr, "/computeMetadata/v1/instance/id", &r))
        cloud_value(r.body, r.body_len, id->instance_id);
    id->provider = CLOUD_GCP;
    return true;
}

bool
cloud_probe(enum cloud_mode mode, int budget_ms, struct cloud_identity *id)
{
    memset(id, 0, sizeof *id);
    enum cloud_provider only = CLOUD_NONE;
    if (mode == CLOUD_MODE_OFF ||
        (mode == CLOUD_MODE_AUTO && (only = cloud_from_firmware()) == CLOUD_NONE))
        return false;
    struct probe pr = {.deadline_ns = clock_deadline_ms(budget_ms),
                       .buf = malloc(CLOUD_RESPONSE_MAX)};
    if (pr.buf == NULL)
        return false;
    static bool (*const ask[])(struct probe *, struct cloud_identity *) = {
        [CLOUD_AZURE] = ask_azure, [CLOUD_AWS] = ask_aws, [CLOUD_GCP] = ask_gcp};
    bool found = false;
    for (int p = CLOUD_AZURE; p <= CLOUD_GCP && !found; p++) {
        if ((only == CLOUD_NONE || only == (enum cloud_provider)p) &&
            clock_ms_until(pr.deadline_ns) > 0)
            found = ask[p](&pr, id);
    }
    free(pr.buf);
    if (!found)
        memset(id, 0, sizeof *id);
    return found;
}

static json_t *
str_or_null(const char *s)
{
    return s[0] != '\0' ? json_string(s) : json_null();
}

json_t *
cloud_collect(enum cloud_mode mode, int budget_ms)
{
    struct cloud_identity id;
    if (!cloud_probe(mode, budget_ms, &id))
        return json_null();
    return json_pack("{s:s, s:o, s:o, s:o, s:o, s:o}", "provider", cloud_provider_name(id.provider),
                     "region", str_or_null(id.region), "zone", str_or_null(id.zone), "zone_id",
                     str_or_null(id.zone_id), "instance_type", str_or_null(id.instance_type),
                     "instance_id", str_or_null(id.instance_id));
}
