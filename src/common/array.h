/* array.h - room in a growing heap array: the doubling every list of records, hosts and
 * diagnostics needs, written once with its size arithmetic checked. */
#ifndef NS_ARRAY_H
#define NS_ARRAY_H

#include <stddef.h>

/* The first capacity of an empty array: small, since most lists here hold a handful. */
#define ARRAY_FIRST 8

/* Room for at least need elements of elem bytes (elem > 0) in the array whose address is pp (a
 * `T **`, passed as void * so that any element type goes without a cast; ARRAY_GROW checks it)
 * and whose capacity, in elements, is *cap. When need > *cap the array is reallocated to the
 * larger of need, twice *cap and ARRAY_FIRST (need alone when twice would not fit a size_t),
 * and *cap set to that; the elements are kept. Returns 0, or NS_ENOMEM when need * elem does not
 * fit a size_t or realloc fails: then *pp and *cap are untouched (the array is still the
 * caller's to free). */
int array_grow(void *pp, size_t *cap, size_t need, size_t elem);

/* array_grow with elem from the array's type: `ARRAY_GROW(&m->hosts, &m->caphosts, n + 1)`.
 * pp must be the address of a pointer to a complete type (else `**(pp)` does not compile). */
#define ARRAY_GROW(pp, cap, need) array_grow((pp), (cap), (need), sizeof **(pp))

#endif
