/* helpers.h - shared by the plan tests: files, fixture expectations, generated plans. */
#ifndef NS_TEST_PLAN_HELPERS_H
#define NS_TEST_PLAN_HELPERS_H

#include <stdbool.h>
#include <stddef.h>

/* $NS_SOURCE_DIR/rel into buf (the source tree, set by ctest). Returns buf. */
char *helper_source_path(const char *rel, char *buf, size_t len);

/* Whole file, NUL-terminated (caller frees); NULL if unreadable. */
char *helper_read_file(const char *path, size_t *len);

/* Sorted names in dir ending in suffix (caller frees with helper_names_free). */
char **helper_list_dir(const char *dir, const char *suffix, size_t *n);
void helper_names_free(char **names, size_t n);

/* The "# expect: ..." lines of a fixture, in order (caller frees with helper_names_free). */
char **helper_expectations(const char *text, size_t *n);

/* Options for a generated plan. zones: zone of host i is zones[i] (NULL: no zone). */
struct gen_opts {
    size_t hosts;
    const char *const *zones;
    const char *pairs; /* "all", "cross-zone", "same-zone", or NULL; explicit: below */
    const size_t (*explicit_pairs)[2];
    size_t nexplicit;
    bool one_way;
    bool sequential_only; /* parallel: false */
    bool shuffled;
    unsigned long long seed;
    unsigned trials;
    const char *trials_text; /* when set, `trials:` is this text ("{min: 2, max: 4, ...}") */
    size_t scenarios;        /* 1..: s0 tcp_rr, s1 tcp_stream, ... */
};

/* YAML text of such a plan (caller frees). */
char *helper_gen_plan(const struct gen_opts *o);

#endif
