/* arena.h - bump allocation for many small strings and arrays released in one go: a plan's,
 * an inventory's machines. */
#ifndef NS_ARENA_H
#define NS_ARENA_H

#include <stddef.h>

struct arena_chunk;

struct arena {
    struct arena_chunk *head;
};

/* Zeroed memory, aligned for any type; NULL when out of memory. */
void *arena_alloc(struct arena *a, size_t n);
/* Copy of len bytes of s plus a NUL; NULL when out of memory. */
char *arena_strndup(struct arena *a, const char *s, size_t len);
/* Free every chunk; a is empty again (and may be used again). */
void arena_release(struct arena *a);

#endif
