/* kinds.c - the registry of test kinds: enum ns_kind_id (common/testspec.h's order) to the code
 * that runs each kind. Kept apart from params.c so that parameters do not depend on the kinds'
 * code, and the kinds may use parameters without a file cycle. */
#include "nsperf/nsperf.h"

/* nsperf's kind ids are the table's (common/testspec.h). */
_Static_assert(NS_TCP_STREAM == (int)TESTSPEC_TCP_STREAM &&
                   NS_UDP_STREAM == (int)TESTSPEC_UDP_STREAM && NS_TCP_RR == (int)TESTSPEC_TCP_RR &&
                   NS_UDP_RR == (int)TESTSPEC_UDP_RR && NS_TCP_CRR == (int)TESTSPEC_TCP_CRR &&
                   NS_KIND_COUNT == (int)TESTSPEC_KIND_COUNT,
               "enum ns_kind_id follows TESTSPEC_KIND_MAP");

static const struct test_kind *const kinds[NS_KIND_COUNT] = {
    [NS_TCP_STREAM] = &ns_kind_tcp_stream, [NS_UDP_STREAM] = &ns_kind_udp_stream,
    [NS_TCP_RR] = &ns_kind_tcp_rr,         [NS_UDP_RR] = &ns_kind_udp_rr,
    [NS_TCP_CRR] = &ns_kind_tcp_crr,
};

const struct test_kind *
ns_kind_get(enum ns_kind_id id)
{
    if ((int)id < 0 || id >= NS_KIND_COUNT)
        return NULL;
    return kinds[id];
}

const struct test_kind *
ns_kind_find(const char *name, enum ns_kind_id *id)
{
    int i = testspec_kind_find(name);
    if (i < 0)
        return NULL;
    if (id != NULL)
        *id = (enum ns_kind_id)i;
    return kinds[i];
}
