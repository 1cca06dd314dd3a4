/* inventory.c - one entry point over the readers of every inventory format. */
#include "inventory/inventory.h"
#include "common/errors.h"

static int (*const readers[INV_FORMAT_COUNT])(struct inv_ctx *x, const char *buf, size_t len) = {
    [INV_AZURE] = inv_read_azure,
    [INV_AWS] = inv_read_aws,
    [INV_GCP] = inv_read_gcp,
    [INV_ANSIBLE] = inv_read_ansible,
    [INV_SSH_CONFIG] = inv_read_ssh_config,
};

int
inv_read(struct inv_ctx *x, const char *buf, size_t len)
{
    size_t before = x->errors;
    int rc = readers[x->format](x, buf, len);
    if (x->oom)
        return NS_ENOMEM;
    if (rc == 0 && x->errors > before)
        rc = NS_EPARSE;
    return rc;
}
