/* cells.c - what compare and trend share: a run's summary, matching scenarios and zone cells
 * across runs, a matrix cell's value and CSV fields, output folders (cells.h). */
#include "report/cells.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "common/errors.h"
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

static int
load(const char *dir, bool cells_only, FILE *warn, json_t **sum, struct err *e)
{
    struct rmodel *m;
    struct rmodel_opts mo = {.warn = warn, .no_hist = cells_only};
    int rc = rmodel_load_with(&dir, 1, &mo, &m, e);
    if (rc != 0)
        return rc;
    if (cells_only) {
        rc = report_aggregate_cells(m, sum, e);
    } else {
        json_t *view = NULL;
        rc = report_aggregate(m, sum, &view, e);
        json_decref(view);
    }
    rmodel_free(m);
    if (rc == 0 && (rc = summary_check(*sum, e)) != 0) {
        json_decref(*sum);
        *sum = NULL;
    }
    return rc;
}

int
rcell_load_summary(const char *dir, FILE *warn, json_t **sum, struct err *e)
{
    return load(dir, false, warn, sum, e);
}

int
rcell_load_cells(const char *dir, FILE *warn, json_t **sum, struct err *e)
{
    return load(dir, true, warn, sum, e);
}

bool
rcell_same_scenario(const json_t *a, const json_t *b)
{
    return !strcmp(js(a, "name"), js(b, "name")) && !strcmp(js(a, "test"), js(b, "test")) &&
           !strcmp(js(a, "family"), js(b, "family"));
}

const json_t *
rcell_find_scenario(const json_t *sum, const json_t *scen)
{
    size_t i;
    const json_t *s;
    json_array_foreach(json_object_get(sum, "scenarios"), i, s)
    {
        if (rcell_same_scenario(s, scen))
            return s;
    }
    return NULL;
}

bool
rcell_same_cell(const json_t *a, const json_t *b)
{
    return !strcmp(js(a, "src_zone"), js(b, "src_zone")) &&
           !strcmp(js(a, "dst_zone"), js(b, "dst_zone"));
}

const json_t *
rcell_find_cell(const json_t *scen, const json_t *cell)
{
    size_t j;
    const json_t *c;
    json_array_foreach(json_object_get(scen, "zone_cells"), j, c)
    {
        if (rcell_same_cell(c, cell))
            return c;
    }
    return NULL;
}

void
rcell_matrix_value(struct rbuf *b, const json_t *cell)
{
    if (json_integer_value(json_object_get(cell, "n")) > 0)
        rbuf_printf(b, "%.3f", json_number_value(json_object_get(cell, "mean")));
}

int
rcell_mkdirs(const char *dir, struct err *e)
{
    char buf[PATH_MAX];
    if ((size_t)snprintf(buf, sizeof buf, "%s", dir) >= sizeof buf)
        return err_set(e, NS_ETOOBIG, "path too long: %s", dir);
    for (char *p = buf + 1; *p != '\0'; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(buf, 0777) != 0 && errno != EEXIST)
            return err_sys(e, NS_EIO, errno, "cannot create %s", buf);
        *p = '/';
    }
    if (mkdir(buf, 0777) != 0 && errno != EEXIST)
        return err_sys(e, NS_EIO, errno, "cannot create %s", buf);
    return 0;
}

int
rcell_mkdirs_for(const char *path, struct err *e)
{
    char dir[PATH_MAX];
    if ((size_t)snprintf(dir, sizeof dir, "%s", path) >= sizeof dir)
        return err_set(e, NS_ETOOBIG, "path too long: %s", path);
    char *slash = strrchr(dir, '/');
    if (slash == NULL || slash == dir)
        return 0;
    *slash = '\0';
    return rcell_mkdirs(dir, e);
}
