/* load.c - loading a plan: read the file with a cap, parse, validate. Validation builds the
 * plan through its internals (plan_int.h), never through the read API of plan.c. This file is
 * the plan's only contact with the file system: the plan itself, and the reader and folders
 * its inventories (hosts_from) are read with, and the operator's ssh that resolves an ssh
 * config's aliases. */
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <pwd.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/errors.h"
#include "common/fileread.h"
#include "common/sshg.h"
#include "plan/plan_int.h"

/* Generated at build time from plans/localhost.yaml (embed.cmake). */
extern const unsigned char ns_plan_default_yaml[];
extern const size_t ns_plan_default_yaml_len;

const char *
plan_default_yaml(size_t *len)
{
    if (len != NULL)
        *len = ns_plan_default_yaml_len;
    return (const char *)ns_plan_default_yaml;
}

int
plan_load_default(struct plan **out, struct diags *diags)
{
    size_t len;
    const char *yaml = plan_default_yaml(&len);
    return plan_load_buffer(PLAN_DEFAULT_FILE, yaml, len, out, diags);
}

/* --- reading the file -------------------------------------------------------------------- */

static int
too_large(struct diags *d, const char *path)
{
    diag_add(d, path, 0, 0, "plan is larger than the limit of %u MiB", PLAN_MAX_FILE_SIZE >> 20);
    return NS_EPARSE;
}

int
plan_load_file(const char *path, struct plan **out, struct diags *diags)
{
    *out = NULL;
    char *buf = NULL;
    size_t len = 0;
    struct err e;
    int rc = fileread_path(path, PLAN_MAX_FILE_SIZE, &buf, &len, &e);
    if (rc == NS_ETOOBIG)
        return too_large(diags, path);
    if (rc == NS_ENOMEM) {
        diag_add(diags, path, 0, 0, "out of memory reading the plan");
        return NS_ENOMEM;
    }
    if (rc != 0) {
        diag_add(diags, path, 0, 0, "cannot read plan: %s", e.msg);
        return NS_EPARSE;
    }
    rc = plan_load_buffer(path, buf, len, out, diags);
    free(buf);
    return rc;
}

/* --- the environment inventories are read in ------------------------------------------ */

/* An inventory is read whole and hashed into the run's record, and read again on resume: a
 * regular file only, opened without blocking so that a FIFO or device named by mistake is
 * refused at once instead of hanging the load. */
static int
read_regular_file(void *arg, const char *path, size_t cap, char **buf, size_t *len, struct err *e)
{
    (void)arg;
    *buf = NULL;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0)
        return err_set(e, NS_EIO, "%s", strerror(errno));
    struct stat st;
    int rc;
    if (fstat(fd, &st) != 0)
        rc = err_set(e, NS_EIO, "%s", strerror(errno));
    else if (S_ISDIR(st.st_mode))
        rc = err_set(e, NS_EIO, "%s", strerror(EISDIR));
    else if (!S_ISREG(st.st_mode))
        rc = err_set(e, NS_EIO, "not a regular file");
    else
        rc = fileread_fd(fd, cap, buf, len, e);
    close(fd);
    return rc;
}

/* glob(3) as ssh's Include uses it, the pattern's "~" already expanded by the caller. */
static int
glob_files(void *arg, const char *pattern, size_t max, char ***paths, struct err *e)
{
    (void)arg;
    *paths = NULL;
    glob_t gl;
    memset(&gl, 0, sizeof gl);
    int r = glob(pattern, 0, NULL, &gl);
    if (r == GLOB_NOMATCH)
        return 0;
    if (r != 0)
        return err_set(e, r == GLOB_NOSPACE ? NS_ENOMEM : NS_EIO, "glob failed for %s", pattern);
    int rc = 0;
    if (gl.gl_pathc > max)
        rc = err_set(e, NS_ETOOBIG, "%s names more than %zu files", pattern, max);
    else if ((*paths = calloc(gl.gl_pathc + 1, sizeof **paths)) == NULL)
        rc = err_set(e, NS_ENOMEM, "out of memory");
    for (size_t i = 0; rc == 0 && i < gl.gl_pathc; i++)
        if (((*paths)[i] = strdup(gl.gl_pathv[i])) == NULL)
            rc = err_set(e, NS_ENOMEM, "out of memory");
    globfree(&gl);
    if (rc != 0 && *paths != NULL) {
        for (size_t i = 0; (*paths)[i] != NULL; i++)
            free((*paths)[i]);
        free(*paths);
        *paths = NULL;
    }
    return rc;
}

static const struct plan_reader file_reader = {.read = read_regular_file, .glob = glob_files};

/* The operator's ssh, one `ssh -G -F config alias` per alias, several at once. */
struct ssh_job {
    struct sshg *g;
    const char *config;
    const char *const *alias;
    char **host, **why;
    atomic_bool oom;
};

static void
ssh_one(void *arg, size_t i)
{
    struct ssh_job *j = arg;
    const char *args[] = {"-F", j->config, NULL};
    const struct sshg_answer *a = NULL;
    struct err e = {0};
    const char *h = NULL;
    if (sshg_query(j->g, args, j->alias[i], &a, &e) == 0 && (h = sshg_value(a, "hostname")) == NULL)
        err_set(&e, NS_EPARSE, "ssh -G printed no hostname");
    if (h != NULL)
        j->host[i] = strdup(h);
    else
        j->why[i] = strdup(e.msg);
    if (j->host[i] == NULL && j->why[i] == NULL)
        atomic_store(&j->oom, true);
}

static int
ssh_hostnames(void *arg, const char *config, const char *const *alias, size_t n, char **host,
              char **why)
{
    (void)arg;
    struct ssh_job j = {
        .g = sshg_new(), .config = config, .alias = alias, .host = host, .why = why};
    if (j.g == NULL)
        return NS_ENOMEM;
    atomic_init(&j.oom, false);
    sshg_parallel(n, ssh_one, &j);
    sshg_free(j.g);
    return atomic_load(&j.oom) ? NS_ENOMEM : 0;
}

static const struct plan_ssh_resolver ssh_resolver = {.hostnames = ssh_hostnames};

/* Names that are not a file's (standard input, the built-in plan) have no folder of their own:
 * their inventories are found from the current directory. */
static bool
name_has_folder(const char *name)
{
    return strchr(name, '/') != NULL && strcmp(name, "/dev/stdin") != 0 &&
           strncmp(name, "built-in:", 9) != 0;
}

/* The plan's folder, absolute, so that the paths recorded for its inventories are. */
static char *
plan_folder(struct arena *a, const char *name)
{
    char cwd[PATH_MAX];
    bool have_cwd = getcwd(cwd, sizeof cwd) != NULL;
    if (!have_cwd)
        snprintf(cwd, sizeof cwd, ".");
    if (!name_has_folder(name))
        return arena_strndup(a, cwd, strlen(cwd));
    size_t dlen = (size_t)(strrchr(name, '/') - name);
    if (name[0] == '/')
        return arena_strndup(a, name, dlen > 0 ? dlen : 1);
    size_t clen = strlen(cwd), n = clen + 1 + dlen;
    char *s = arena_alloc(a, n + 1);
    if (s != NULL)
        snprintf(s, n + 1, "%s/%.*s", cwd, (int)dlen, name);
    return s;
}

static const char *
home_folder(void)
{
    const char *h = getenv("HOME");
    if (h != NULL && h[0] != '\0')
        return h;
    const struct passwd *pw = getpwuid(getuid());
    return pw != NULL && pw->pw_dir != NULL ? pw->pw_dir : "/";
}

/* Every member of p->env set, the strings copied into the plan's arena. */
static int
plan_env_resolve(struct plan *p, const struct plan_load_env *env)
{
    const char *base = env != NULL ? env->base_dir : NULL;
    const char *home = env != NULL && env->home != NULL ? env->home : home_folder();
    p->env.base_dir = base != NULL ? arena_strndup(&p->arena, base, strlen(base))
                                   : plan_folder(&p->arena, p->file);
    p->env.home = arena_strndup(&p->arena, home, strlen(home));
    p->env.reader = env != NULL && env->reader != NULL ? env->reader : &file_reader;
    p->env.ssh = env != NULL && env->ssh != NULL ? env->ssh : &ssh_resolver;
    return p->env.base_dir != NULL && p->env.home != NULL ? 0 : NS_ENOMEM;
}

/* --- the plan -------------------------------------------------------------------------------- */

static struct plan *
plan_alloc(const char *name, const char *buf, size_t len)
{
    struct plan *p = calloc(1, sizeof *p);
    if (p == NULL)
        return NULL;
    p->file = arena_strndup(&p->arena, name, strlen(name));
    p->source = arena_strndup(&p->arena, buf, len);
    p->source_len = len;
    if (p->file == NULL || p->source == NULL) {
        plan_free(p);
        return NULL;
    }
    return p;
}

int
plan_load_buffer(const char *name, const char *buf, size_t len, struct plan **out,
                 struct diags *diags)
{
    return plan_load_buffer_env(name, buf, len, NULL, out, diags);
}

int
plan_load_buffer_env(const char *name, const char *buf, size_t len, const struct plan_load_env *env,
                     struct plan **out, struct diags *diags)
{
    *out = NULL;
    if (len > PLAN_MAX_FILE_SIZE)
        return too_large(diags, name);
    struct plan *p = plan_alloc(name, buf, len);
    if (p != NULL && plan_env_resolve(p, env) != 0) {
        plan_free(p);
        p = NULL;
    }
    if (p == NULL) {
        diag_add(diags, name, 0, 0, "out of memory loading the plan");
        return NS_ENOMEM;
    }
    struct ynode *root = NULL;
    int rc = inv_yaml_parse(p->file, "plan", buf, len, &root, diags);
    if (rc == 0)
        rc = plan_validate(p, root, diags);
    inv_yaml_free(root);
    diag_sort(diags);
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
    arena_release(&p->arena);
    free(p);
}
