/* cells.c - what compare and trend share: matching scenarios and zone cells across runs
 * (cells.h). */
#include "history/cells.h"

#include <string.h>

#include "report/output.h"

bool
history_cell_same_scenario(const json_t *a, const json_t *b)
{
    return !strcmp(js(a, "name"), js(b, "name")) && !strcmp(js(a, "test"), js(b, "test")) &&
           !strcmp(js(a, "family"), js(b, "family"));
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
