/* transport_buf.c - the capped output buffer of both transport variants, and the release of
 * what they give away (struct transport_output). It depends on nothing else in the module, so
 * the variants use it without calling back into the generic dispatch of transport.c. */
#include "transport/transport_buf.h"

#include <stdlib.h>
#include <string.h>

#include "common/errors.h"
#include "transport/transport.h"

#define TRANSPORT_BUF_FIRST_ALLOC 4096

int
transport_buf_append(struct transport_buf *b, const void *data, size_t n, size_t limit)
{
    if (b->len + n > limit) {
        b->truncated = true;
        n = b->len < limit ? limit - b->len : 0;
    }
    if (n == 0)
        return 0;
    if (b->len + n + 1 > b->alloc) {
        size_t alloc = b->alloc != 0 ? b->alloc : TRANSPORT_BUF_FIRST_ALLOC;
        while (alloc < b->len + n + 1)
            alloc *= 2;
        char *p = realloc(b->data, alloc);
        if (p == NULL)
            return NS_ENOMEM;
        b->data = p;
        b->alloc = alloc;
    }
    memcpy(b->data + b->len, data, n);
    b->len += n;
    b->data[b->len] = '\0';
    return 0;
}

int
transport_buf_take_line(struct transport_buf *b, char *line, size_t len, bool *got)
{
    *got = false;
    const char *nl = b->len > 0 ? memchr(b->data, '\n', b->len) : NULL;
    size_t n = nl != NULL ? (size_t)(nl - b->data) : b->len;
    if (n >= len)
        return NS_ETOOBIG;
    if (nl == NULL)
        return 0;
    memcpy(line, b->data, n);
    line[n] = '\0';
    memmove(b->data, nl + 1, b->len - n - 1);
    b->len -= n + 1;
    b->data[b->len] = '\0';
    *got = true;
    return 0;
}

int
transport_buf_give(struct transport_buf *b, size_t cap, char **data, size_t *len, bool *truncated)
{
    char *p = b->data;
    if (p == NULL && (p = malloc(1)) == NULL)
        return NS_ENOMEM;
    size_t n = b->len;
    bool cut = b->truncated;
    if (n > cap) {
        n = cap;
        cut = true;
    }
    p[n] = '\0';
    *data = p;
    *len = n;
    *truncated = cut;
    memset(b, 0, sizeof *b);
    return 0;
}

void
transport_buf_release(struct transport_buf *b)
{
    if (b == NULL)
        return;
    free(b->data);
    memset(b, 0, sizeof *b);
}

void
transport_output_release(struct transport_output *o)
{
    if (o == NULL)
        return;
    free(o->out);
    free(o->err);
    memset(o, 0, sizeof *o);
}
