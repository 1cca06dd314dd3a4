/* arena.c - bump allocation, released in one go (arena.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/arena.h"

#define ARENA_CHUNK 16384u
#define ARENA_ALIGN 16u

struct arena_chunk {
    struct arena_chunk *next;
    size_t used, cap;
    _Alignas(16) unsigned char data[];
};

static struct arena_chunk *
arena_chunk_new(size_t need)
{
    size_t cap = need > ARENA_CHUNK ? need : ARENA_CHUNK;
    struct arena_chunk *c = malloc(sizeof *c + cap);
    if (c == NULL)
        return NULL;
    c->next = NULL;
    c->used = 0;
    c->cap = cap;
    return c;
}

void *
arena_alloc(struct arena *a, size_t n)
{
    if (n > SIZE_MAX / 2)
        return NULL;
    size_t size = (n + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
    struct arena_chunk *c = a->head;
    if (c == NULL || c->cap - c->used < size) {
        c = arena_chunk_new(size);
        if (c == NULL)
            return NULL;
        c->next = a->head;
        a->head = c;
    }
    void *p = c->data + c->used;
    c->used += size;
    memset(p, 0, n);
    return p;
}

char *
arena_strndup(struct arena *a, const char *s, size_t len)
{
    char *p = arena_alloc(a, len + 1);
    if (p != NULL && len > 0)
        memcpy(p, s, len);
    return p;
}

void
arena_release(struct arena *a)
{
    struct arena_chunk *c = a->head;
    while (c != NULL) {
        struct arena_chunk *next = c->next;
        free(c);
        c = next;
    }
    a->head = NULL;
}
