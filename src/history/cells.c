/* cells.c - what compare and trend share: matching scenarios and zone cells across runs
 * (cells.h). */
#include "history/cells.h"

#include <stdio.h>
#include <string.h>

#include "journal/record.h"
#include "report/output.h"

/* Whether two scenarios are the same value of one sweep, or both no sweep. */
static bool
same_sweep(const json_t *a, const json_t *b)
{
    const json_t *sa = json_object_get(a, "sweep"), *sb = json_object_get(b, "sweep");
    if (sa == NULL || sb == NULL)
        return sa == sb;
    return !strcmp(js(sa, "param"), js(sb, "param")) &&
           json_is_number(json_object_get(sa, "value")) &&
           json_is_number(json_object_get(sb, "value")) && jd(sa, "value") == jd(sb, "value");
}

bool
history_cell_same_scenario(const json_t *a, const json_t *b)
{
    return !strcmp(js(a, "name"), js(b, "name")) && !strcmp(js(a, "test"), js(b, "test")) &&
           !strcmp(js(a, "family"), js(b, "family")) && same_sweep(a, b);
}

const char *
history_scenario_label(const json_t *scen, char *buf, size_t len)
{
    const json_t *sw = json_object_get(scen, "sweep");
    if (sw == NULL) {
        snprintf(buf, len, "%s", js(scen, "name"));
        return buf;
    }
    int p = journal_param_find(js(sw, "param"));
    snprintf(buf, len, "%s %s %s", js(scen, "name"),
             p >= 0 ? testspec_key((enum testspec_param)p) : js(sw, "param"), js(sw, "text"));
    return buf;
}

json_t *
history_sweep_json(const json_t *scen)
{
    const json_t *sw = json_object_get(scen, "sweep");
    return sw != NULL ? json_pack("{s:s,s:O}", "param", js(sw, "param"), "value",
                                  json_object_get(sw, "value"))
                      : NULL;
}

const json_t *
history_cell_find_scenario(const json_t *sum, const json_t *scen)
{
    size_t i;
    const json_t *s;
    json_array_foreach(json_object_get(sum, "scenarios"), i, s)
    {
        if (history_cell_same_scenario(s, scen))
            return s;
    }
    return NULL;
}

bool
history_cell_same_cell(const json_t *a, const json_t *b)
{
    return !strcmp(js(a, "src_zone"), js(b, "src_zone")) &&
           !strcmp(js(a, "dst_zone"), js(b, "dst_zone"));
}

const json_t *
history_cell_find_cell(const json_t *scen, const json_t *cell)
{
    size_t j;
    const json_t *c;
    json_array_foreach(json_object_get(scen, "zone_cells"), j, c)
    {
        if (history_cell_same_cell(c, cell))
            return c;
    }
    return NULL;
}
