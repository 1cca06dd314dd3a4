/* array.c - room in a growing heap array. */
#include "common/array.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/errors.h"

/* The capacity to grow to: geometric, so that n appends cost O(n) copying. */
static size_t
array_next_cap(size_t cap, size_t need)
{
    size_t c = cap <= SIZE_MAX / 2 ? cap * 2 : need;
    if (c < ARRAY_FIRST)
        c = ARRAY_FIRST;
    return c > need ? c : need;
}

int
array_grow(void *pp, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    if (elem == 0 || need > SIZE_MAX / elem)
        return NS_ENOMEM; /* no memory could hold it */
    size_t c = array_next_cap(*cap, need);
    if (c > SIZE_MAX / elem)
        c = need;
    /* The pointer is copied in and out as bytes: pp points at a `T *`, not at a `void *`. */
    void *p;
    memcpy(&p, pp, sizeof p);
    void *np = realloc(p, c * elem);
    if (np == NULL)
        return NS_ENOMEM;
    memcpy(pp, &np, sizeof np);
    *cap = c;
    return 0;
}
