/* fuzz_plan.c - libFuzzer target for the plan parser and validator (and, for plans that
 * load, the schedule and both dry-run writers). Invariants checked besides memory safety:
 * a plan loads if and only if there are no diagnostics, and every diagnostic names the file
 * and starts lower-case (git style).
 *
 * An input is a plan, optionally followed by a line "#%inventory" and the bytes that every
 * inventory its hosts_from names reads as (from memory: the fuzzer never opens a file), so that
 * the plan's side of hosts_from is fuzzed with the readers behind it. */
#include <ctype.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/errors.h"
#include "plan/plan.h"
#include "plan/plan_int.h"
#include "plan/schedule.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Schedules of more tests than this cost the fuzzer time without new paths. */
#define FUZZ_MAX_TESTS 20000u

static FILE *
devnull(void)
{
    static FILE *f;
    if (f == NULL)
        f = fopen("/dev/null", "w");
    if (f == NULL)
        abort();
    return f;
}

static void
check_diags(const struct diags *d)
{
    for (size_t i = 0; i < diags_count(d); i++) {
        const char *text = diags_text(d, i);
        const char *msg = diags_message(d, i, NULL, NULL);
        if (strncmp(text, "fuzz.yaml:", 10) != 0 || msg[0] == '\0' ||
            isupper((unsigned char)msg[0]))
            abort();
    }
}

static void
exercise(const struct plan *p)
{
    if (plan_test_count(p) > FUZZ_MAX_TESTS)
        return;
    struct schedule *s = NULL;
    if (schedule_new(p, &s, NULL) != 0)
        abort();
    /* adaptive trials: the schedule's fixed part is every scenario at its min, its whole at
     * its max; the plan counts the same two (plan_test_count is the most there may be) */
    if (schedule_test_count(s) != plan_test_count_min(p) ||
        schedule_test_count_max(s) != plan_test_count(p))
        abort();
    schedule_write_text(s, devnull(), NULL);
    schedule_write_json(s, devnull(), NULL);
    schedule_free(s);
    char buf[128];
    plan_output_path(p, "20260101T000000Z", buf, sizeof buf);
    for (size_t i = 0; i < plan_inventory_count(p); i++) {
        const struct plan_inventory *inv = plan_inventory(p, i);
        if (inv->sha256 == NULL || strlen(inv->sha256) != 64 || inv->path[0] != '/')
            abort();
    }
    for (size_t i = 0; i < plan_scenario_count(p); i++)
        plan_scenario_nsperf_flags(plan_scenario(p, i), buf, sizeof buf);
}

struct inventory {
    const char *buf;
    size_t len;
    bool present;
};

static int
inventory_read(void *arg, const char *path, size_t cap, char **buf, size_t *len, struct err *e)
{
    (void)path;
    const struct inventory *inv = arg;
    if (!inv->present)
        return err_set(e, NS_EIO, "No such file or directory");
    if (inv->len > cap)
        return err_set(e, NS_ETOOBIG, "too big");
    *buf = malloc(inv->len + 1);
    if (*buf == NULL)
        return err_set(e, NS_ENOMEM, "out of memory");
    memcpy(*buf, inv->buf, inv->len);
    (*buf)[inv->len] = '\0';
    *len = inv->len;
    return 0;
}

/* An ssh config's aliases resolve to themselves: a fuzzer runs no ssh. */
static int
alias_hostnames(void *arg, const char *config, const char *const *alias, size_t n, char **host,
                char **why)
{
    (void)arg;
    (void)config;
    (void)why;
    for (size_t i = 0; i < n; i++)
        if ((host[i] = strdup(alias[i])) == NULL)
            return NS_ENOMEM;
    return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char marker[] = "\n#%inventory\n";
    const char *text = (const char *)data;
    const char *at = memmem(text, size, marker, sizeof marker - 1);
    size_t plan_len = at != NULL ? (size_t)(at - text) + 1 : size;
    struct inventory inv = {.present = at != NULL};
    if (at != NULL) {
        inv.buf = at + sizeof marker - 1;
        inv.len = size - (size_t)(inv.buf - text);
    }
    struct plan_reader rd = {.read = inventory_read, .arg = &inv};
    static const struct plan_ssh_resolver ssh = {.hostnames = alias_hostnames};
    struct plan_load_env env = {
        .base_dir = "/fuzz", .home = "/home/fuzz", .reader = &rd, .ssh = &ssh};
    struct diags *d = diags_new();
    struct plan *p = NULL;
    int rc = plan_load_buffer_env("fuzz.yaml", text, plan_len, &env, &p, d);
    /* A valid plan may carry warnings, never an error; an invalid one has an error. */
    size_t errors = 0;
    for (size_t i = 0; i < diags_count(d); i++) {
        const char *msg = diags_message(d, i, NULL, NULL);
        if (strncmp(msg, "warning: ", 9) != 0 && strncmp(msg, "note: ", 6) != 0)
            errors++;
    }
    if ((rc == 0) != (errors == 0) || (rc == 0) != (p != NULL))
        abort();
    check_diags(d);
    if (p != NULL)
        exercise(p);
    plan_free(p);
    diags_free(d);
    return 0;
}
