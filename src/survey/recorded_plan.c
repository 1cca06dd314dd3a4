/* recorded_plan.c - the plan a run directory was started with, as run.json recorded it. */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "survey/journal.h"
#include "survey/run.h"

int
survey_load_recorded_plan(const char *dir, struct plan **out, struct plan_diags *d, struct err *e)
{
    *out = NULL;
    char path[PATH_MAX];
    if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, JOURNAL_RUN_FILE) >= sizeof path)
        return err_set(e, NS_ETOOBIG, "cannot resume %s: path too long", dir);
    json_t *run = NULL;
    int rc = journal_read_run(dir, &run, e);
    if (rc != 0)
        return err_prefix(e, "cannot resume %s", dir);
    const json_t *plan = json_object_get(run, "plan");
    const json_t *src = json_object_get(plan, "source");
    const char *file = json_string_value(json_object_get(plan, "file"));
    if (!json_is_string(src))
        rc = err_set(e, NS_EPARSE, "cannot resume %s: %s records no plan source; give PLAN", dir,
                     path);
    else
        rc = plan_load_buffer(file != NULL ? file : path, json_string_value(src),
                              json_string_length(src), out, d);
    json_decref(run);
    return rc;
}
