/* recorded_plan.c - the plan a run directory was started with, as run.json recorded it. */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "journal/journal.h"
#include "survey/resume.h"
#include "survey/run.h"

int
survey_resume_read_run(const char *dir, struct journal_run **out, struct err *e)
{
    bool unknown = false;
    int rc = journal_read_run_v(dir, out, &unknown, e);
    if (rc == 0)
        return 0;
    err_prefix(e, "cannot resume %s", dir);
    if (unknown && e != NULL) {
        size_t n = strlen(e->msg);
        snprintf(e->msg + n, sizeof e->msg - n, "; resume it with the netsurvey that wrote it");
    }
    return rc;
}

int
survey_load_recorded_plan(const char *dir, struct plan **out, struct diags *d, struct err *e)
{
    *out = NULL;
    char path[PATH_MAX];
    if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, JOURNAL_RUN_FILE) >= sizeof path)
        return err_set(e, NS_ETOOBIG, "cannot resume %s: path too long", dir);
    struct journal_run *run = NULL;
    int rc = survey_resume_read_run(dir, &run, e);
    if (rc != 0)
        return rc;
    if (run->plan_source == NULL)
        rc = err_set(e, NS_EPARSE, "cannot resume %s: %s records no plan source; give PLAN", dir,
                     path);
    else
        rc = plan_load_buffer(run->plan_file != NULL ? run->plan_file : path, run->plan_source,
                              run->plan_source_len, out, d);
    journal_run_free(run);
    return rc;
}
