/* inv_azure.c - the machines of `az vm list -d -o json` (`--show-details`).
 *
 * Shape, from the Azure CLI's own code (azure-cli, command_modules/vm/custom.py: get_vm_details
 * sets power_state, public_ips, fqdns, private_ips and mac_addresses, each a ','-joined string,
 * on the VM model; -o json prints the model's camelCase names) and its documented output: a
 * list of objects with "name", "location" (the region, "westus3"), "zones" (["1"], or null for
 * a regional VM), "powerState" ("VM running", "VM deallocated", "VM stopped", ...),
 * "privateIps" ("10.0.0.4" or "10.0.0.4,10.0.1.4"), "publicIps" ("" when none),
 * "osProfile": {"adminUsername"}, "hardwareProfile": {"vmSize"}, "tags" ({...} or null) and
 * "vmId". Without -d there is no powerState and no address: said once, with the fix. */
#include <stdio.h>
#include <string.h>

#include "common/errors.h"
#include "inventory/inv_json.h"

static void
azure_fill(struct inv_ctx *x, struct inv_machine *m, const json_t *vm, const char *where)
{
    const json_t *zones = inv_json_list(x, vm, "zones", where);
    const json_t *z0 = json_array_get(zones, 0);
    if (z0 != NULL && !json_is_string(z0))
        inv_error(x, "unexpected json in %s %s: \"zones\" holds %s, expected strings", x->file,
                  where, inv_json_kind(z0));
    m->zone = inv_strdup(x, json_string_value(z0));
    m->region = inv_strdup(x, inv_json_str(x, vm, "location", where));
    m->data_address = inv_first_item(x, inv_json_str(x, vm, "privateIps", where));
    m->address = inv_first_item(x, inv_json_str(x, vm, "publicIps", where));
    /* Without its private address the VM's tests would go to its public one: the path through
     * Azure's public front end, not the virtual network's path between zones that the survey
     * measures, and the report could not tell. An error rather than a warning: in a plan of a
     * hundred VMs a warning scrolls past, and one VM measured another way skews its cells. */
    if ((m->data_address == NULL || m->data_address[0] == '\0') && m->address != NULL &&
        m->address[0] != '\0')
        inv_error(x,
                  "%s %s '%s' has no private address (\"privateIps\" is empty): its tests would "
                  "go to its public address %s, another path than the virtual network's; give "
                  "it a hosts entry with its data_address, or leave it out (match:)",
                  x->file, where, m->name, m->address);
    const json_t *os = inv_json_obj(x, vm, "osProfile", where);
    m->user = inv_strdup(x, inv_json_str(x, os, "adminUsername", where));
    const json_t *hw = inv_json_obj(x, vm, "hardwareProfile", where);
    m->instance_type = inv_strdup(x, inv_json_str(x, hw, "vmSize", where));
    m->instance_id = inv_strdup(x, inv_json_str(x, vm, "vmId", where));
}

/* One entry of the list; false when the file is not az vm list -d's (stop reading). */
static bool
azure_machine(struct inv_ctx *x, const json_t *vm, size_t i)
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
    if (!inv_count(x))
        return false;
    const char *power = inv_json_str(x, vm, "powerState", where);
    if (power == NULL && json_object_get(vm, "powerState") == NULL) {
        inv_error(x,
                  "unexpected json in %s %s '%s': no \"powerState\"; list the machines with "
                  "az vm list -d (--show-details), which adds it and the addresses",
                  x->file, where, name);
        return false;
    }
    if (!inv_name_wanted(x, name) || !inv_json_tags_match(x, inv_json_obj(x, vm, "tags", where)))
        return true;
    struct inv_machine *m = inv_add(x, name, where, 0, 0);
    if (m == NULL)
        return false;
    if (power == NULL || strcmp(power, "VM running") != 0)
        m->state = inv_strdup(x, power != NULL && power[0] != '\0' ? power : "no power state");
    size_t before = x->errors;
    azure_fill(x, m, vm, where);
    m->bad = x->errors > before;
    return true;
}

int
inv_read_azure(struct inv_ctx *x, const char *buf, size_t len)
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
                  "unexpected json in %s: expected the list that az vm list -d -o json prints, "
                  "found %s",
                  x->file, inv_json_kind(doc));
    for (size_t i = 0; i < json_array_size(doc) && !inv_give_up(x); i++)
        if (!azure_machine(x, json_array_get(doc, i), i))
            break;
    json_decref(doc);
    return 0;
}
