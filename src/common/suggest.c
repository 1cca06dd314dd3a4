/* suggest.c - "did you mean ...?": the closest candidate by edit distance (optimal string
 * alignment: insertions, deletions, substitutions and swaps of neighbours cost 1). */
#include <ctype.h>
#include <stdbool.h>
#include <string.h>

#include "common/suggest.h"

#define SUGGEST_MAX_LEN 64

static unsigned
min3(unsigned a, unsigned b, unsigned c)
{
    unsigned m = a < b ? a : b;
    return m < c ? m : c;
}

static bool
same_char(char a, char b)
{
    return tolower((unsigned char)a) == tolower((unsigned char)b);
}

/* Rolling rows i-2, i-1 and i of the distance table. */
static unsigned
edit_distance(const char *a, size_t n, const char *b, size_t m)
{
    unsigned r0[SUGGEST_MAX_LEN + 1], r1[SUGGEST_MAX_LEN + 1], r2[SUGGEST_MAX_LEN + 1];
    unsigned *prev2 = r0, *prev = r1, *cur = r2;
    for (size_t j = 0; j <= m; j++)
        prev[j] = (unsigned)j;
    for (size_t i = 1; i <= n; i++) {
        cur[0] = (unsigned)i;
        for (size_t j = 1; j <= m; j++) {
            unsigned cost = same_char(a[i - 1], b[j - 1]) ? 0 : 1;
            cur[j] = min3(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost);
            if (i > 1 && j > 1 && same_char(a[i - 1], b[j - 2]) && same_char(a[i - 2], b[j - 1]) &&
                prev2[j - 2] + 1 < cur[j])
                cur[j] = prev2[j - 2] + 1;
        }
        unsigned *t = prev2;
        prev2 = prev;
        prev = cur;
        cur = t;
    }
    return prev[m];
}

/* How many edits still look like a typo of a word of this length. */
static unsigned
suggest_budget(size_t len)
{
    if (len <= 3)
        return 1;
    if (len <= 6)
        return 2;
    return 3;
}

const char *
suggest_closest(const char *word, const char *const *cands, size_t n)
{
    size_t wlen = strlen(word);
    if (wlen == 0 || wlen > SUGGEST_MAX_LEN)
        return NULL;
    const char *best = NULL;
    unsigned best_d = suggest_budget(wlen) + 1;
    for (size_t i = 0; i < n; i++) {
        size_t clen = strlen(cands[i]);
        if (clen > SUGGEST_MAX_LEN)
            continue;
        unsigned dist = edit_distance(word, wlen, cands[i], clen);
        if (dist < best_d && dist < wlen) {
            best = cands[i];
            best_d = dist;
        }
    }
    return best;
}
