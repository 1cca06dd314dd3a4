/* plan.c - loading (read with a cap, parse, validate) and the read API. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/errors.h"
#include "plan/plan_int.h"

/* Generated at build time from plans/localhost.yaml (embed.cmake). */
extern const unsigned char ns_plan_default_yaml[];
extern const size_t ns_plan_default_yaml_len;

static const char *const pairs_names[] = {"all", "cross-zone", "same-zone", "explicit"};

const char *
plan_default_yaml(size_t *len)
{
    if (len != NULL)
        *len = ns_plan_default_yaml_len;
    return (const char *)ns_plan_default_yaml;
}

/* --- reading the file -------------------------------------------------------------------- */

static int
read_fail(struct plan_diags *d, const char *path, int errnum)
{
    plan_diag_add(d, path, 0, 0, "cannot read plan: %s", strerror(errnum));
    return NS_EPARSE;
}

static int
too_large(struct plan_diags *d, const char *path)
{
    plan_diag_add(d, path, 0, 0, "plan is larger than the limit of %u MiB",
                  PLAN_MAX_FILE_SIZE >> 20);
    return NS_EPARSE;
}

static int
read_oom(struct plan_diags *d, const char *path)
{
    plan_diag_add(d, path, 0, 0, "out of memory reading the plan");
    return NS_ENOMEM;
}

/* Whole file into *buf (caller frees), at most PLAN_MAX_FILE_SIZE bytes. */
static int
read_capped(int fd, const char *path, char **buf, size_t *len, struct plan_diags *d)
{
    size_t cap = 65536, n = 0;
    char *b = malloc(cap);
    int rc = b == NULL ? read_oom(d, path) : 0;
    while (rc == 0) {
        if (n == cap) {
            char *nb = realloc(b, cap * 2);
            if (nb == NULL) {
                rc = read_oom(d, path);
                break;
            }
            b = nb;
            cap *= 2;
        }
        ssize_t got = read(fd, b + n, cap - n);
        if (got == 0)
            break;
        if (got < 0 && errno != EINTR)
            rc = read_fail(d, path, errno);
        n += got > 0 ? (size_t)got : 0;
        if (n > PLAN_MAX_FILE_SIZE)
            rc = too_large(d, path);
    }
    if (rc != 0) {
        free(b);
        return rc;
    }
    *buf = b;
    *len = n;
    return 0;
}

int
plan_load_file(const char *path, struct plan **out, struct plan_diags *diags)
{
    *out = NULL;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return read_fail(diags, path, errno);
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
        close(fd);
        return read_fail(diags, path, EISDIR);
    }
    char *buf = NULL;
    size_t len = 0;
    int rc = read_capped(fd, path, &buf, &len, diags);
    close(fd);
    if (rc == 0)
        rc = plan_load_buffer(path, buf, len, out, diags);
    free(buf);
    return rc;
}

static struct plan *
plan_alloc(const char *name, const char *buf, size_t len)
{
    struct plan *p = calloc(1, sizeof *p);
    if (p == NULL)
        return NULL;
    p->file = plan_arena_strndup(&p->arena, name, strlen(name));
    p->source = plan_arena_strndup(&p->arena, buf, len);
    p->source_len = len;
    if (p->file == NULL || p->source == NULL) {
        plan_free(p);
        return NULL;
    }
    return p;
}

int
plan_load_buffer(const char *name, const char *buf, size_t len, struct plan **out,
                 struct plan_diags *diags)
{
    *out = NULL;
    if (len > PLAN_MAX_FILE_SIZE)
        return too_large(diags, name);
    struct plan *p = plan_alloc(name, buf, len);
    if (p == NULL) {
        plan_diag_add(diags, name, 0, 0, "out of memory loading the plan");
        return NS_ENOMEM;
    }
    struct ynode *root = NULL;
    int rc = plan_ynode_parse(p->file, buf, len, &root, diags);
    if (rc == 0)
        rc = plan_validate(p, root, diags);
    plan_ynode_free(root);
    plan_diag_sort(diags);
    if (rc != 0)
        plan_free(p);
    else
        *out = p;
    return rc;
}

void
plan_free(struct plan *p)
{
    if (p == NULL)
        return;
    plan_arena_release(&p->arena);
    free(p);
}

/* --- reading the plan ---------------------------------------------------------------------- */

const char *
plan_name(const struct plan *p)
{
    return p->name;
}

const char *
plan_file(const struct plan *p)
{
    return p->file;
}

const char *
plan_description(const struct plan *p)
{
    return p->description;
}

const char *
plan_source(const struct plan *p, size_t *len)
{
    if (len != NULL)
        *len = p->source_len;
    return p->source;
}

size_t
plan_host_count(const struct plan *p)
{
    return p->nhosts;
}

const struct plan_host *
plan_host(const struct plan *p, size_t i)
{
    return i < p->nhosts ? &p->hosts[i] : NULL;
}

long
plan_host_find(const struct plan *p, const char *name)
{
    for (size_t i = 0; i < p->nhosts; i++)
        if (p->hosts[i].name != NULL && strcmp(p->hosts[i].name, name) == 0)
            return (long)i;
    return -1;
}

size_t
plan_zone_count(const struct plan *p)
{
    return p->nzones;
}

size_t
plan_scenario_count(const struct plan *p)
{
    return p->nscenarios;
}

const struct plan_scenario *
plan_scenario(const struct plan *p, size_t i)
{
    return i < p->nscenarios ? &p->scenarios[i] : NULL;
}

enum plan_pairs
plan_pairs_kind(const struct plan *p)
{
    return (enum plan_pairs)p->pairs;
}

const char *
plan_pairs_name(const struct plan *p)
{
    return pairs_names[p->pairs];
}

bool
plan_both_directions(const struct plan *p)
{
    return p->directions == 0;
}

bool
plan_parallel(const struct plan *p)
{
    return p->parallel;
}

bool
plan_shuffled(const struct plan *p)
{
    return p->order == 1;
}

uint64_t
plan_seed(const struct plan *p)
{
    return p->seed;
}

size_t
plan_pair_count(const struct plan *p)
{
    return p->npairs;
}

uint64_t
plan_test_count(const struct plan *p)
{
    return p->ntests;
}

const char *
plan_output_template(const struct plan *p)
{
    return p->output;
}

const char *
plan_test_kind_name(enum plan_test_kind kind)
{
    return testspec_kind_name((int)kind);
}

/* --- derived text ---------------------------------------------------------------------------- */

/* Append s to buf (snprintf-like bookkeeping in *used). */
static void
append(char *buf, size_t len, size_t *used, const char *s, size_t n)
{
    if (*used < len) {
        size_t room = len - *used - 1, k = n < room ? n : room;
        memcpy(buf + *used, s, k);
        buf[*used + k] = '\0';
    }
    *used += n;
}

size_t
plan_output_path(const struct plan *p, const char *timestamp, char *buf, size_t len)
{
    size_t used = 0;
    if (len > 0)
        buf[0] = '\0';
    for (const char *s = p->output; *s != '\0';) {
        if (strncmp(s, "{name}", 6) == 0) {
            append(buf, len, &used, p->name, strlen(p->name));
            s += 6;
        } else if (strncmp(s, "{timestamp}", 11) == 0) {
            append(buf, len, &used, timestamp, strlen(timestamp));
            s += 11;
        } else {
            append(buf, len, &used, s++, 1);
        }
    }
    return used;
}

size_t
plan_scenario_nsperf_flags(const struct plan_scenario *sc, char *buf, size_t len)
{
    size_t used = 0, argc = 0;
    if (len > 0)
        buf[0] = '\0';
    char **argv = testspec_client_argv(&sc->spec, &argc, NULL);
    for (size_t i = 0; argv != NULL && i < argc; i++) {
        if (i > 0)
            append(buf, len, &used, " ", 1);
        append(buf, len, &used, argv[i], strlen(argv[i]));
    }
    free(argv);
    return used;
}
