/* cells.c - what compare and trend share: matching scenarios and zone cells across runs
 * (cells.h). */
#include "history/cells.h"

#include <stdint.h>
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

const char *
history_sweep_key(const json_t *scen, char *buf, size_t len)
{
    const json_t *sw = json_object_get(scen, "sweep");
    if (sw == NULL)
        snprintf(buf, len, "%s", "");
    else
        snprintf(buf, len, "%s=%s", js(sw, "param"), js(sw, "text"));
    return buf;
}

const char *
history_trial_sweep_key(const struct journal_scenario *sc, char *buf, size_t len)
{
    if (!sc->swept) {
        snprintf(buf, len, "%s", "");
        return buf;
    }
    char text[48];
    testspec_value_text(sc->sweep, journal_scenario_value(sc, sc->sweep), text, sizeof text);
    snprintf(buf, len, "%s=%s", testspec_record_key(sc->sweep), text);
    return buf;
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

/* Whether v may stand for any value: a 0 of a side whose parameters are not resolved. */
static bool
param_unknown(const json_t *scen, const json_t *v)
{
    return json_is_false(json_object_get(scen, "params_resolved")) && json_is_number(v) &&
           json_number_value(v) == 0.0;
}

static bool
param_same(const json_t *v, const json_t *w)
{
    if (json_is_number(v) && json_is_number(w))
        return json_number_value(v) == json_number_value(w);
    return json_equal(v, w);
}

static void
param_text(const json_t *v, char *buf, size_t len)
{
    /* json_dumpb: no string from jansson's allocator to free (see report_jarena_begin) */
    size_t n = json_dumpb(v, buf, len - 1, JSON_ENCODE_ANY | JSON_REAL_PRECISION(10));
    buf[n < len ? n : 0] = '\0';
}

size_t
history_params_diff(const json_t *a, const json_t *b, struct rbuf *out)
{
    const json_t *pa = json_object_get(a, "params"), *pb = json_object_get(b, "params");
    size_t n = 0;
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)(uintptr_t)pa, k, v)
    {
        const json_t *w = json_object_get(pb, k);
        if (w == NULL || param_same(v, w) || param_unknown(a, v) || param_unknown(b, w))
            continue;
        if (out != NULL) {
            char x[64], y[64];
            param_text(v, x, sizeof x);
            param_text(w, y, sizeof y);
            report_buf_printf(out, "%s%.40s %s → %s", n ? ", " : "", k, x, y);
        }
        n++;
    }
    return n;
}
