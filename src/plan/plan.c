/* plan.c - the read API of a loaded plan (loading is load.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/errors.h"
#include "plan/plan_int.h"

static const char *const pairs_names[] = {"all", "cross-zone", "same-zone", "explicit"};

/* --- reading the plan ---------------------------------------------------------------------- */

const char *
plan_name(const struct plan *p)
{
    return p->name;
}

const char *
plan_file(const struct plan *p)
{
    return p->file;
}

const char *
plan_description(const struct plan *p)
{
    return p->description;
}

const char *
plan_source(const struct plan *p, size_t *len)
{
    if (len != NULL)
        *len = p->source_len;
    return p->source;
}

size_t
plan_inventory_count(const struct plan *p)
{
    return p->ninventories;
}

const struct plan_inventory *
plan_inventory(const struct plan *p, size_t i)
{
    return i < p->ninventories ? &p->inventories[i] : NULL;
}

size_t
plan_host_count(const struct plan *p)
{
    return p->nhosts;
}

const struct plan_host *
plan_host(const struct plan *p, size_t i)
{
    return i < p->nhosts ? &p->hosts[i] : NULL;
}

long
plan_host_find(const struct plan *p, const char *name)
{
    for (size_t i = 0; i < p->nhosts; i++)
        if (p->hosts[i].name != NULL && strcmp(p->hosts[i].name, name) == 0)
            return (long)i;
    return -1;
}

size_t
plan_zone_count(const struct plan *p)
{
    return p->nzones;
}

bool
plan_has_zones(const struct plan *p)
{
    for (size_t i = 0; i < p->nhosts; i++)
        if (p->hosts[i].zone[0] != '\0')
            return true;
    return false;
}

size_t
plan_scenario_count(const struct plan *p)
{
    return p->nscenarios;
}

const struct plan_scenario *
plan_scenario(const struct plan *p, size_t i)
{
    return i < p->nscenarios ? &p->scenarios[i] : NULL;
}

bool
plan_scenario_swept(const struct plan_scenario *sc)
{
    return sc->sweep.param >= 0 && sc->sweep.nvalues > 0;
}

double
plan_scenario_value(const struct plan_scenario *sc)
{
    return plan_scenario_swept(sc) ? sc->sweep.values[sc->sweep.index] : 0.0;
}

char *
plan_scenario_label(const struct plan_scenario *sc, char *buf, size_t len)
{
    if (!plan_scenario_swept(sc)) {
        snprintf(buf, len, "%s", sc->name);
        return buf;
    }
    enum testspec_param p = (enum testspec_param)sc->sweep.param;
    char v[48];
    snprintf(buf, len, "%s %s %s", sc->name, testspec_key(p),
             testspec_value_text(p, plan_scenario_value(sc), v, sizeof v));
    return buf;
}

long
plan_scenario_find(const struct plan *p, const char *name, int param, double value)
{
    for (size_t i = 0; i < p->nscenarios; i++) {
        const struct plan_scenario *sc = &p->scenarios[i];
        if (strcmp(sc->name, name) != 0)
            continue;
        bool swept = plan_scenario_swept(sc);
        if (param < 0 ? !swept
                      : swept && sc->sweep.param == param && plan_scenario_value(sc) == value)
            return (long)i;
    }
    return -1;
}

enum plan_pairs
plan_pairs_kind(const struct plan *p)
{
    return (enum plan_pairs)p->pairs;
}

const char *
plan_pairs_name(const struct plan *p)
{
    return pairs_names[p->pairs];
}

bool
plan_both_directions(const struct plan *p)
{
    return p->directions == 0;
}

bool
plan_parallel(const struct plan *p)
{
    return p->parallel;
}

bool
plan_shuffled(const struct plan *p)
{
    return p->order == 1;
}

uint64_t
plan_seed(const struct plan *p)
{
    return p->seed;
}

unsigned
plan_retries(const struct plan *p)
{
    return p->retries;
}

double
plan_host_timeout(const struct plan *p)
{
    return p->host_timeout_s;
}

size_t
plan_pair_count(const struct plan *p)
{
    return p->npairs;
}

uint64_t
plan_test_count(const struct plan *p)
{
    return p->ntests;
}

uint64_t
plan_test_count_min(const struct plan *p)
{
    uint64_t trials = 0;
    for (size_t i = 0; i < p->nscenarios; i++)
        trials += p->scenarios[i].trials.min;
    return (uint64_t)p->npairs * trials;
}

const char *
plan_output_template(const struct plan *p)
{
    return p->output;
}

/* --- derived text ---------------------------------------------------------------------------- */

/* Append s to buf (snprintf-like bookkeeping in *used). */
static void
append(char *buf, size_t len, size_t *used, const char *s, size_t n)
{
    if (*used < len) {
        size_t room = len - *used - 1, k = n < room ? n : room;
        memcpy(buf + *used, s, k);
        buf[*used + k] = '\0';
    }
    *used += n;
}

size_t
plan_output_path(const struct plan *p, const char *timestamp, char *buf, size_t len)
{
    size_t used = 0;
    if (len > 0)
        buf[0] = '\0';
    for (const char *s = p->output; *s != '\0';) {
        if (strncmp(s, "{name}", 6) == 0) {
            append(buf, len, &used, p->name, strlen(p->name));
            s += 6;
        } else if (strncmp(s, "{timestamp}", 11) == 0) {
            append(buf, len, &used, timestamp, strlen(timestamp));
            s += 11;
        } else {
            append(buf, len, &used, s++, 1);
        }
    }
    return used;
}

size_t
plan_scenario_nsperf_flags(const struct plan_scenario *sc, char *buf, size_t len)
{
    size_t used = 0, argc = 0;
    if (len > 0)
        buf[0] = '\0';
    char **argv = testspec_client_argv(&sc->spec, &argc, NULL);
    for (size_t i = 0; argv != NULL && i < argc; i++) {
        if (i > 0)
            append(buf, len, &used, " ", 1);
        append(buf, len, &used, argv[i], strlen(argv[i]));
    }
    free(argv);
    return used;
}
