/* kinds.c - the registry of test kinds: each row of common/testspec.h's TESTSPEC_KIND_MAP to
 * the ops of its kind, ns_kind_<name> (one file per kind in this folder). Kept apart from
 * params.c so that parameters do not depend on the kinds' code, and the kinds may use
 * parameters without a file cycle. */
#include "nsperf/nsperf.h"

static const struct test_kind *const kinds[TESTSPEC_KIND_COUNT] = {
#define KIND_OPS(id, name, fam, metric, rtt, def_len, min_len, max_len, def_rate)                  \
    [TESTSPEC_##id] = &ns_kind_##name,
    TESTSPEC_KIND_MAP(KIND_OPS)
#undef KIND_OPS
};

const struct test_kind *
ns_kind_get(enum testspec_kind id)
{
    if ((int)id < 0 || id >= TESTSPEC_KIND_COUNT)
        return NULL;
    return kinds[id];
}

const struct test_kind *
ns_kind_find(const char *name, enum testspec_kind *id)
{
    int i = testspec_kind_find(name);
    if (i < 0)
        return NULL;
    if (id != NULL)
        *id = (enum testspec_kind)i;
    return kinds[i];
}

int
ns_data_sockets(const struct test_kind *k, const struct ns_params *p)
{
    if (k->own_connections)
        return 0;
    if (!k->uses_streams)
        return 1;
    return p->streams * (p->bidir ? 2 : 1);
}

int
ns_load_conns(const struct ns_params *p)
{
    if (!testspec_applies(TESTSPEC_P_LOAD_STREAMS, (int)p->kind))
        return 0;
    return p->load_streams * (p->load_direction == TESTSPEC_DIRECTION_BOTH ? 2 : 1);
}
