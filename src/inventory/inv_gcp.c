/* inv_gcp.c - the machines of `gcloud compute instances list --format=json`.
 *
 * Shape, from the Compute Engine API's Instance resource (REST reference, instances): a list of
 * objects with "name", "id" (a decimal string), "zone" and "machineType" as URLs
 * (".../projects/P/zones/us-central1-a", ".../zones/us-central1-a/machineTypes/e2-medium"),
 * "status" ("RUNNING", "TERMINATED", "SUSPENDED", ...), "labels" ({...}, absent without), and
 * "networkInterfaces": [{"networkIP": "10.128.0.2", "accessConfigs": [{"natIP": "34.x.y.z",
 * "name": "External NAT", "type": "ONE_TO_ONE_NAT"}]}] (no accessConfigs, or no natIP, without
 * an external address). A GCP zone name means the same place in every project (unlike AWS and
 * Azure zone names), so it is the host's zone id as well. */
#include <stdio.h>
#include <string.h>

#include "common/errors.h"
#include "inventory/inv_json.h"

bool
inv_gcp_region(const char *zone, char *buf, size_t len)
{
    const char *dash = strrchr(zone, '-');
    if (dash == NULL || dash == zone || dash[1] == '\0' || (size_t)(dash - zone) >= len)
        return false;
    snprintf(buf, len, "%.*s", (int)(dash - zone), zone);
    return true;
}

static void
gcp_addresses(struct inv_ctx *x, struct inv_machine *m, const json_t *vm, const char *where)
{
    const json_t *nic = json_array_get(inv_json_list(x, vm, "networkInterfaces", where), 0);
    char nwhere[128];
    snprintf(nwhere, sizeof nwhere, "%s.networkInterfaces[0]", where);
    m->data_address = inv_strdup(x, inv_json_str(x, nic, "networkIP", nwhere));
    const json_t *ac = json_array_get(inv_json_list(x, nic, "accessConfigs", nwhere), 0);
    snprintf(nwhere, sizeof nwhere, "%s.networkInterfaces[0].accessConfigs[0]", where);
    m->address = inv_strdup(x, inv_json_str(x, ac, "natIP", nwhere));
}

static void
gcp_fill(struct inv_ctx *x, struct inv_machine *m, const json_t *vm, const char *where)
{
    m->zone = inv_last_segment(x, inv_json_str(x, vm, "zone", where));
    m->zone_id = m->zone;
    char region[64];
    if (m->zone != NULL && inv_gcp_region(m->zone, region, sizeof region))
        m->region = inv_strdup(x, region);
    else if (m->zone != NULL)
        inv_error(x, "cannot tell the region of zone '%s' of machine '%s' (%s %s)", m->zone,
                  m->name, x->file, where);
    gcp_addresses(x, m, vm, where);
    m->instance_type = inv_last_segment(x, inv_json_str(x, vm, "machineType", where));
    const json_t *id = json_object_get(vm, "id");
    char num[32];
    if (json_is_integer(id))
        snprintf(num, sizeof num, "%lld", (long long)json_integer_value(id));
    m->instance_id =
        json_is_integer(id) ? inv_strdup(x, num) : inv_strdup(x, inv_json_str(x, vm, "id", where));
}

static bool
gcp_machine(struct inv_ctx *x, const json_t *vm, size_t i)
{
    char where[32];
    snprintf(where, sizeof where, "[%zu]", i);
    if (!json_is_object(vm)) {
        inv_error(x, "unexpected json in %s %s: expected a machine (an object), found %s", x->file,
                  where, inv_json_kind(vm));
        return true;
    }
    const char *name = inv_json_str(x, vm, "name", where);
    if (name == NULL) { /* then the rest is no list of machines either */
        inv_error(x, "unexpected json in %s %s: a machine without a \"name\"", x->file, where);
        return false;
    }
    if (!inv_name_wanted(x, name) || !inv_json_tags_match(x, inv_json_obj(x, vm, "labels", where)))
        return true;
    struct inv_machine *m = inv_add(x, name, where, 0, 0);
    if (m == NULL)
        return false;
    const char *status = inv_json_str(x, vm, "status", where);
    if (status == NULL || strcmp(status, "RUNNING") != 0)
        m->state = inv_strdup(x, status != NULL ? status : "no status");
    size_t before = x->errors;
    gcp_fill(x, m, vm, where);
    m->bad = x->errors > before;
    return true;
}

int
inv_read_gcp(struct inv_ctx *x, const char *buf, size_t len)
{
    json_t *doc = inv_json_load(x, buf, len);
    if (doc == NULL)
        return x->oom ? NS_ENOMEM : NS_EPARSE;
    if (inv_json_other_cloud(x, doc)) {
        json_decref(doc);
        return NS_EPARSE;
    }
    if (!json_is_array(doc))
        inv_error(x,
                  "unexpected json in %s: expected the list that gcloud compute instances list "
                  "--format=json prints, found %s",
                  x->file, inv_json_kind(doc));
    for (size_t i = 0; i < json_array_size(doc) && !inv_give_up(x) && inv_count(x); i++)
        if (!gcp_machine(x, json_array_get(doc, i), i))
            break;
    json_decref(doc);
    return 0;
}
