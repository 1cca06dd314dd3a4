/* inv_yaml_hint.h - a plain sentence for a YAML syntax error (inv_yaml_hint.c), internal to
 * src/inventory: inv_yaml.c prints it beside libyaml's own words. */
#ifndef NS_INV_YAML_HINT_H
#define NS_INV_YAML_HINT_H

#include <stddef.h>

/* libyaml's error, positions 0-based as libyaml gives them. */
struct inv_yaml_error {
    const char *problem, *context; /* libyaml's texts (context may be NULL) */
    size_t line, col;              /* where the problem was found */
    size_t context_line, context_col;
};

/* What the writer of buf most likely did, as a sentence about their text, into out ("" when the
 * text around the error does not look like a mistake a hint is known for). */
void inv_yaml_hint(const char *buf, size_t len, const struct inv_yaml_error *ye, char *out,
                   size_t outlen);

#endif
