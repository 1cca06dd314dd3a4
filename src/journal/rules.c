/* rules.c - what both decoders of a trial line share (journal/scan.h): the meaning of a status
 * and of a family, and the bucket list they fill. Its own file, so that record.c and scan.c
 * depend on it and not on each other. */
#include <stdlib.h>
#include <string.h>

#include "common/array.h"
#include "journal/scan.h"

enum journal_status
journal_status_from(const char *s)
{
    if (s != NULL && strcmp(s, "ok") == 0)
        return JOURNAL_OK;
    if (s != NULL && strcmp(s, "failed") == 0)
        return JOURNAL_FAILED;
    if (s != NULL && strcmp(s, "not_run") == 0)
        return JOURNAL_NOT_RUN;
    return JOURNAL_STATUS_OTHER;
}

const char *
journal_status_name(enum journal_status s)
{
    switch (s) {
    case JOURNAL_OK:
        return "ok";
    case JOURNAL_FAILED:
        return "failed";
    case JOURNAL_NOT_RUN:
        return "not_run";
    default:
        return NULL;
    }
}

enum journal_family
journal_family_from(const char *s)
{
    return s != NULL && strcmp(s, "ipv6") == 0 ? JOURNAL_IPV6 : JOURNAL_IPV4;
}

void
journal_buckets_release(struct journal_buckets *bb)
{
    free(bb->b);
    free(bb->r);
    free(bb->c);
    free(bb->a);
    memset(bb, 0, sizeof *bb);
}

bool
journal_buckets_grow(struct journal_buckets *bb)
{
    return ARRAY_GROW(&bb->b, &bb->cap, bb->n + 1) == 0;
}

bool
journal_buckets_push_run(struct journal_buckets *bb, uint32_t idx, uint64_t count)
{
    if (ARRAY_GROW(&bb->c, &bb->capc, bb->nc + 1) != 0)
        return false;
    struct journal_hrun *last = bb->nr > 0 ? &bb->r[bb->nr - 1] : NULL;
    if (last != NULL && (uint64_t)last->first + last->len == idx) {
        last->len++;
    } else {
        if (ARRAY_GROW(&bb->r, &bb->capr, bb->nr + 1) != 0)
            return false;
        bb->r[bb->nr++] = (struct journal_hrun){.first = idx, .len = 1};
    }
    bb->c[bb->nc++] = count;
    return true;
}

bool
journal_attempts_push(struct journal_buckets *bb, const struct journal_attempt *a)
{
    if (ARRAY_GROW(&bb->a, &bb->capa, bb->na + 1) != 0)
        return false;
    bb->a[bb->na++] = *a;
    return true;
}
