/* summary.c - a run directory's summary for the history module (report.h): the model loaded,
 * aggregated, and the model freed, so that history never holds one. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "common/errors.h"
#include "report/report.h"
#include "report/reportint.h"

/* Every scenario of sum has a known kind: otherwise an error, never a guess. Its journal was
 * read through journal/journal.h, which refuses a kind testspec.h does not know, so this holds
 * unless a reader changes. */
static int
summary_check(const json_t *sum, struct err *e)
{
    size_t i;
    const json_t *s;
    json_array_foreach(json_object_get(sum, "scenarios"), i, s)
    {
        if (testspec_kind_find(js(s, "test")) < 0)
            return err_set(e, NS_EPARSE, "scenario '%s': unknown test kind '%s'", js(s, "name"),
                           js(s, "test"));
    }
    return 0;
}

enum summary_form { SUMMARY_FULL, SUMMARY_CELLS, SUMMARY_HISTS };

static int
load(const char *dir, enum summary_form form, FILE *warn, json_t **sum, struct err *e)
{
    struct rmodel *m;
    struct rmodel_opts mo = {.warn = warn, .no_hist = form == SUMMARY_CELLS};
    int rc = report_model_load_with(&dir, 1, &mo, &m, e);
    if (rc != 0)
        return rc;
    if (form == SUMMARY_CELLS) {
        rc = report_aggregate_cells(m, sum, e);
    } else if (form == SUMMARY_HISTS) {
        rc = report_aggregate_hists(m, sum, e);
    } else {
        json_t *view = NULL;
        rc = report_aggregate(m, sum, &view, e);
        json_decref(view);
    }
    report_model_free(m);
    if (rc == 0 && (rc = summary_check(*sum, e)) != 0) {
        json_decref(*sum);
        *sum = NULL;
    }
    return rc;
}

int
report_summary_read(const char *dir, FILE *warn, json_t **sum, struct err *e)
{
    return load(dir, SUMMARY_FULL, warn, sum, e);
}

int
report_cells_read(const char *dir, FILE *warn, json_t **sum, struct err *e)
{
    return load(dir, SUMMARY_CELLS, warn, sum, e);
}

int
report_summary_hists_read(const char *dir, FILE *warn, json_t **sum, struct err *e)
{
    return load(dir, SUMMARY_HISTS, warn, sum, e);
}

void
report_matrix_value(struct rbuf *b, const json_t *cell)
{
    if (json_integer_value(json_object_get(cell, "n")) > 0)
        report_buf_printf(b, "%.3f", json_number_value(json_object_get(cell, "mean")));
}
