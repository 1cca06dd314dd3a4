/* bitset.h - bit arrays in 64-bit words: the pair matrices of the plan and the schedule's busy
 * rounds (and any other set of small integers). */
#ifndef NS_BITSET_H
#define NS_BITSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Words needed for n bits. */
static inline size_t
bitset_words(size_t n)
{
    return n / 64 + 1;
}

static inline bool
bitset_test(const uint64_t *v, size_t bit)
{
    return (v[bit / 64] >> (bit % 64)) & 1u;
}

static inline void
bitset_set(uint64_t *v, size_t bit)
{
    v[bit / 64] |= (uint64_t)1 << (bit % 64);
}

static inline void
bitset_clear(uint64_t *v, size_t bit)
{
    v[bit / 64] &= ~((uint64_t)1 << (bit % 64));
}

/* Set bit and say whether it was set before. */
static inline bool
bitset_test_set(uint64_t *v, size_t bit)
{
    bool was = bitset_test(v, bit);
    bitset_set(v, bit);
    return was;
}

#endif
