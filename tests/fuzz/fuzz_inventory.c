/* fuzz_inventory.c - libFuzzer target for the inventory readers of hosts_from: every input is
 * read as each format (azure, aws, gcp, ansible in both forms, ssh_config), once selecting
 * everything and once with a tag, a group and a glob. Invariants checked besides memory
 * safety: a read succeeds if and only if it reported no problem; a machine its reader marked
 * bad comes with a problem; every machine has a name and an entry naming the file; every
 * diagnostic is at the hosts_from entry and starts lower-case (git style). */
#include <ctype.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/errors.h"
#include "inventory/inventory.h"
#include "plan/plan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static size_t
errors_in(const struct diags *d)
{
    size_t n = 0;
    for (size_t i = 0; i < diags_count(d); i++) {
        const char *text = diags_text(d, i);
        const char *msg = diags_message(d, i, NULL, NULL);
        if (strncmp(text, "fuzz.yaml:3:5: ", 15) != 0 || msg[0] == '\0' ||
            isupper((unsigned char)msg[0]))
            abort();
        if (strncmp(msg, "warning: ", 9) != 0 && strncmp(msg, "note: ", 6) != 0)
            n++;
    }
    return n;
}

static void
read_as(enum inv_format f, const char *file, const struct inv_query *q, const char *buf, size_t len)
{
    struct arena a = {0};
    struct diags *d = diags_new();
    if (d == NULL)
        abort();
    struct inv_ctx x = {.format = f,
                        .file = file,
                        .plan_file = "fuzz.yaml",
                        .line = 3,
                        .col = 5,
                        .q = q,
                        .arena = &a,
                        .d = d};
    int rc = inv_read(&x, buf, len);
    size_t errors = errors_in(d);
    if (rc != NS_ENOMEM && (rc == 0) != (errors == 0))
        abort();
    for (size_t i = 0; i < x.n; i++) {
        const struct inv_machine *m = &x.m[i];
        if (m->name == NULL || m->entry == NULL || strncmp(m->entry, file, strlen(file)) != 0 ||
            (m->bad && errors == 0))
            abort();
    }
    if (x.n > INV_MAX_MACHINES || x.n > x.nread) /* every machine taken was counted */
        abort();
    inv_ctx_release(&x);
    arena_release(&a);
    diags_free(d);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *buf = (const char *)data;
    static const struct inv_label tag = {"role", "survey"};
    const struct inv_query all = {0};
    const struct inv_query some = {.tags = &tag, .ntags = 1, .group = "survey", .match = "*a*"};
    for (int f = 0; f < INV_FORMAT_COUNT; f++) {
        read_as((enum inv_format)f, "inv", &all, buf, size);
        read_as((enum inv_format)f, "inv", &some, buf, size);
    }
    /* Ansible's YAML form is chosen by the file's extension, whatever the first line says. */
    read_as(INV_ANSIBLE, "inv.yaml", &all, buf, size);
    read_as(INV_ANSIBLE, "inv.ini", &some, buf, size);
    return 0;
}
