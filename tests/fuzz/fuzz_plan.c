/* fuzz_plan.c - libFuzzer target for the plan parser and validator (and, for plans that
 * load, the schedule and both dry-run writers). Invariants checked besides memory safety:
 * a plan loads if and only if there are no diagnostics, and every diagnostic names the file
 * and starts lower-case (git style). */
#include <ctype.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/plan.h"
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
check_diags(const struct plan_diags *d)
{
    for (size_t i = 0; i < plan_diags_count(d); i++) {
        const char *text = plan_diags_text(d, i);
        const char *msg = plan_diags_message(d, i, NULL, NULL);
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
    if (schedule_test_count(s) != plan_test_count(p))
        abort();
    schedule_write_text(s, devnull(), NULL);
    schedule_write_json(s, devnull(), NULL);
    schedule_free(s);
    char buf[128];
    plan_output_path(p, "20260101T000000Z", buf, sizeof buf);
    for (size_t i = 0; i < plan_scenario_count(p); i++)
        plan_scenario_nsperf_flags(plan_scenario(p, i), buf, sizeof buf);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct plan_diags *d = plan_diags_new();
    struct plan *p = NULL;
    int rc = plan_load_buffer("fuzz.yaml", (const char *)data, size, &p, d);
    /* A valid plan may carry warnings, never an error; an invalid one has an error. */
    size_t errors = 0;
    for (size_t i = 0; i < plan_diags_count(d); i++)
        if (strncmp(plan_diags_message(d, i, NULL, NULL), "warning: ", 9) != 0)
            errors++;
    if ((rc == 0) != (errors == 0) || (rc == 0) != (p != NULL))
        abort();
    check_diags(d);
    if (p != NULL)
        exercise(p);
    plan_free(p);
    plan_diags_free(d);
    return 0;
}
