/* suggest.h - "did you mean": the likely intended word of a typo, among candidates. */
#ifndef NS_SUGGEST_H
#define NS_SUGGEST_H

#include <stddef.h>

/* The candidate closest to word by edit distance if close enough to be a likely typo, else
 * NULL. */
const char *suggest_closest(const char *word, const char *const *cands, size_t n);

#endif
