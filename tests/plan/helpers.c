/* helpers.c - see helpers.h. */
#include "helpers.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *
helper_source_path(const char *rel, char *buf, size_t len)
{
    const char *root = getenv("NS_SOURCE_DIR");
    snprintf(buf, len, "%s/%s", root ? root : ".", rel);
    return buf;
}

char *
helper_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    size_t got;
    while (buf != NULL && (got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
        n += got;
        if (cap - n - 1 == 0) {
            char *nb = realloc(buf, cap *= 2);
            if (nb == NULL)
                free(buf);
            buf = nb;
        }
    }
    fclose(f);
    if (buf != NULL)
        buf[n] = '\0';
    if (len != NULL)
        *len = n;
    return buf;
}

static int
name_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool
ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

char **
helper_list_dir(const char *dir, const char *suffix, size_t *n)
{
    DIR *d = opendir(dir);
    char **names = NULL;
    *n = 0;
    if (d == NULL)
        return NULL;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (e->d_name[0] == '.' || !ends_with(e->d_name, suffix))
            continue;
        names = realloc(names, (*n + 1) * sizeof *names);
        names[(*n)++] = strdup(e->d_name);
    }
    closedir(d);
    if (*n > 1)
        qsort(names, *n, sizeof *names, name_cmp);
    return names;
}

void
helper_names_free(char **names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

char **
helper_expectations(const char *text, size_t *n)
{
    static const char tag[] = "# expect: ";
    char **v = NULL;
    *n = 0;
    for (const char *line = text; line != NULL && *line != '\0';) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        if (strncmp(line, tag, sizeof tag - 1) == 0) {
            v = realloc(v, (*n + 1) * sizeof *v);
            v[(*n)++] = strndup(line + sizeof tag - 1, len - (sizeof tag - 1));
        }
        line = end ? end + 1 : NULL;
    }
    return v;
}

/* --- generated plans ------------------------------------------------------------------- */

struct sbuf {
    char *s;
    size_t n, cap;
};

static void sb_printf(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#include <stdarg.h>

static void
sb_printf(struct sbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int need = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (need < 0)
        return;
    while (b->n + (size_t)need + 1 > b->cap) {
        b->cap = b->cap ? b->cap * 2 : 1024;
        b->s = realloc(b->s, b->cap);
    }
    va_start(ap, fmt);
    vsnprintf(b->s + b->n, b->cap - b->n, fmt, ap);
    va_end(ap);
    b->n += (size_t)need;
}

static const char *const kinds[] = {"tcp_rr", "tcp_stream", "udp_rr", "tcp_crr", "udp_stream"};

static void
gen_pairs(struct sbuf *b, const struct gen_opts *o)
{
    if (o->explicit_pairs != NULL) {
        sb_printf(b, "pairs:\n");
        for (size_t i = 0; i < o->nexplicit; i++)
            sb_printf(b, "  - [h%zu, h%zu]\n", o->explicit_pairs[i][0], o->explicit_pairs[i][1]);
    } else if (o->pairs != NULL) {
        sb_printf(b, "pairs: %s\n", o->pairs);
    }
}

char *
helper_gen_plan(const struct gen_opts *o)
{
    struct sbuf b = {0};
    sb_printf(&b, "name: generated\nhosts:\n");
    for (size_t i = 0; i < o->hosts; i++) {
        sb_printf(&b, "  - {name: h%zu, address: 10.%zu.%zu.%zu", i, i / 65536, i / 256 % 256,
                  i % 256);
        if (o->zones != NULL && o->zones[i] != NULL)
            sb_printf(&b, ", zone: \"%s\"", o->zones[i]);
        sb_printf(&b, "}\n");
    }
    sb_printf(&b, "scenarios:\n");
    for (size_t i = 0; i < (o->scenarios ? o->scenarios : 1); i++)
        sb_printf(&b, "  - {name: s%zu, test: %s, duration: %zus, warmup: 1s}\n", i, kinds[i % 5],
                  10 * (i + 1));
    if (o->trials_text != NULL)
        sb_printf(&b, "trials: %s\n", o->trials_text);
    else
        sb_printf(&b, "trials: %u\n", o->trials ? o->trials : 1);
    sb_printf(&b, "directions: %s\nparallel: %s\norder: %s\nseed: %llu\n",
              o->one_way ? "one" : "both", o->sequential_only ? "false" : "true",
              o->shuffled ? "shuffled" : "sequential", o->seed);
    gen_pairs(&b, o);
    return b.s;
}
