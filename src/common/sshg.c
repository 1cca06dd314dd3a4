/* sshg.c - `ssh -G` run, capped, timed and cached (see sshg.h). */
#include "common/sshg.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/array.h"
#include "common/clock.h"

/* One argument vector and what ssh answered to it. */
struct entry {
    char *key; /* the vector, each argument NUL-terminated, one after the other */
    size_t keylen;
    uint64_t hash;
    bool done; /* false while a thread runs it */
    int code;  /* 0, or the NS_E* of the run */
    char *msg; /* code != 0: why */
    char *out; /* stdout, split into lines in place */
    struct sshg_line *line;
    char *notes; /* what a.notes shows */
    struct sshg_answer a;
};

struct sshg {
    pthread_mutex_t mu;
    pthread_cond_t done; /* an entry became done */
    char *program;       /* NULL: $NETSURVEY_SSH, else "ssh" */
    double timeout_s;
    struct entry **v;
    size_t n, cap;
};

struct sshg *
sshg_new(void)
{
    struct sshg *g = calloc(1, sizeof *g);
    if (g == NULL)
        return NULL;
    pthread_mutex_init(&g->mu, NULL);
    pthread_cond_init(&g->done, NULL);
    g->timeout_s = SSHG_TIMEOUT_S;
    return g;
}

static void
entry_free(struct entry *en)
{
    free(en->key);
    free(en->msg);
    free(en->out);
    free(en->line);
    free(en->notes);
    free(en);
}

void
sshg_free(struct sshg *g)
{
    if (g == NULL)
        return;
    for (size_t i = 0; i < g->n; i++)
        entry_free(g->v[i]);
    free(g->v);
    free(g->program);
    pthread_cond_destroy(&g->done);
    pthread_mutex_destroy(&g->mu);
    free(g);
}

int
sshg_set_program(struct sshg *g, const char *program)
{
    char *p = program != NULL ? strdup(program) : NULL;
    if (program != NULL && p == NULL)
        return NS_ENOMEM;
    free(g->program);
    g->program = p;
    return 0;
}

void
sshg_set_timeout(struct sshg *g, double seconds)
{
    if (seconds > 0)
        g->timeout_s = seconds;
}

/* --- one run ------------------------------------------------------------------------------- */

struct cbuf {
    char *b;
    size_t n, cap, max;
};

/* Append n bytes; -1 past the cap or out of memory. */
static int
cbuf_add(struct cbuf *c, const char *p, size_t n)
{
    if (c->n + n > c->max)
        return -1;
    if (ARRAY_GROW(&c->b, &c->cap, c->n + n + 1) != 0)
        return -1;
    memcpy(c->b + c->n, p, n);
    c->n += n;
    c->b[c->n] = '\0';
    return 0;
}

/* How a run ended, before its output is read. */
struct run {
    struct cbuf out, err;
    const struct cbuf *over; /* the stream past its cap */
    int status;              /* exit status, or 128 + signal */
};

static const char *
program_of(const struct sshg *g, bool *from_env)
{
    const char *env = getenv(SSHG_PROGRAM_ENV);
    *from_env = g->program == NULL && env != NULL && *env != '\0';
    return g->program != NULL ? g->program : *from_env ? env : "ssh";
}

static int
spawn_error(int rc, const char *prog, bool from_env, struct err *e)
{
    if (rc == ENOENT && from_env)
        return err_set(e, NS_ENOTFOUND, "ssh -G: %s not found (named by $%s)", prog,
                       SSHG_PROGRAM_ENV);
    if (rc == ENOENT)
        return err_set(e, NS_ENOTFOUND, "ssh -G: %s not found: install the %s package", prog,
                       SSHG_PACKAGE);
    return err_sys(e, NS_EIO, rc, "ssh -G: cannot run %s", prog);
}

/* posix_spawnp prog with argv: stdin /dev/null, stdout and stderr into the pipes' write ends,
 * no other descriptor of ours, default signal mask, a process group of its own. */
static int
spawn(const char *prog, char *const *argv, int out_w, int err_w, pid_t *pid)
{
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t at;
    int rc = posix_spawn_file_actions_init(&fa);
    if (rc != 0)
        return rc;
    if ((rc = posix_spawnattr_init(&at)) != 0) {
        posix_spawn_file_actions_destroy(&fa);
        return rc;
    }
    sigset_t none, dfl;
    sigemptyset(&none);
    sigemptyset(&dfl);
    sigaddset(&dfl, SIGPIPE);
    rc = posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    if (rc == 0)
        rc = posix_spawn_file_actions_adddup2(&fa, out_w, 1);
    if (rc == 0)
        rc = posix_spawn_file_actions_adddup2(&fa, err_w, 2);
#if defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 34)
    if (rc == 0) /* sockets of other threads' sessions are none of ssh's business */
        rc = posix_spawn_file_actions_addclosefrom_np(&fa, 3);
#endif
    if (rc == 0)
        rc = posix_spawnattr_setsigmask(&at, &none);
    if (rc == 0)
        rc = posix_spawnattr_setsigdefault(&at, &dfl);
    if (rc == 0) /* a group of its own: a timeout kills what Match exec started too */
        rc = posix_spawnattr_setpgroup(&at, 0);
    if (rc == 0)
        rc = posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF |
                                               POSIX_SPAWN_SETPGROUP);
    if (rc == 0)
        rc = posix_spawnp(pid, prog, &fa, &at, argv, environ);
    posix_spawnattr_destroy(&at);
    posix_spawn_file_actions_destroy(&fa);
    return rc;
}

static int
reap(pid_t pid)
{
    int st = 0;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* Read both pipes to their ends, each within its cap, by the deadline. 0, NS_ETIMEDOUT,
 * NS_ETOOBIG or NS_EIO. */
static int
drain(int fds[2], struct run *r, uint64_t deadline)
{
    struct pollfd p[2] = {{.fd = fds[0], .events = POLLIN}, {.fd = fds[1], .events = POLLIN}};
    struct cbuf *dst[2] = {&r->out, &r->err};
    int open = 2;
    while (open > 0) {
        int ms = clock_ms_until(deadline);
        if (ms == 0)
            return NS_ETIMEDOUT;
        int k = poll(p, 2, ms);
        if (k < 0 && errno != EINTR)
            return NS_EIO;
        for (int i = 0; k > 0 && i < 2; i++) {
            if (p[i].fd < 0 || p[i].revents == 0)
                continue;
            char tmp[8192];
            ssize_t got = read(p[i].fd, tmp, sizeof tmp);
            if (got < 0 && (errno == EINTR || errno == EAGAIN))
                continue;
            if (got <= 0) {
                p[i].fd = -1;
                open--;
            } else if (cbuf_add(dst[i], tmp, (size_t)got) != 0) {
                r->over = dst[i];
                return NS_ETOOBIG;
            }
        }
    }
    return 0;
}

static int
run_ssh(const struct sshg *g, char *const *argv, struct run *r, struct err *e)
{
    bool from_env;
    const char *prog = program_of(g, &from_env);
    int po[2], pe[2];
    if (pipe2(po, O_CLOEXEC) != 0)
        return err_sys(e, NS_EIO, errno, "ssh -G: pipe");
    if (pipe2(pe, O_CLOEXEC) != 0) {
        int saved = errno;
        close(po[0]);
        close(po[1]);
        return err_sys(e, NS_EIO, saved, "ssh -G: pipe");
    }
    pid_t pid = 0;
    int rc = spawn(prog, argv, po[1], pe[1], &pid);
    close(po[1]);
    close(pe[1]);
    if (rc != 0) {
        close(po[0]);
        close(pe[0]);
        return spawn_error(rc, prog, from_env, e);
    }
    int fds[2] = {po[0], pe[0]};
    rc = drain(fds, r, clock_now_ns() + (uint64_t)(g->timeout_s * (double)NS_PER_SEC));
    close(po[0]);
    close(pe[0]);
    if (rc != 0)
        kill(-pid, SIGKILL); /* ours, its group by its pid: it would not end by itself */
    r->status = reap(pid);
    if (rc == NS_ETIMEDOUT)
        return err_set(e, rc, "ssh -G: no answer from %s within %g s (killed)", prog, g->timeout_s);
    if (rc == NS_ETOOBIG)
        return err_set(e, rc, "ssh -G: %s printed more than %zu KiB on %s (killed)", prog,
                       r->over->max / 1024, r->over == &r->out ? "stdout" : "stderr");
    if (rc != 0)
        return err_set(e, NS_EIO, "ssh -G: cannot read what %s prints", prog);
    if (r->status < 0)
        return err_sys(e, NS_EIO, errno, "ssh -G: waiting for %s", prog);
    return 0;
}

/* --- the answer ---------------------------------------------------------------------------- */

/* Text's lines trimmed, the empty ones dropped, joined with sep: malloc'd, NULL when none is
 * left (or out of memory). text is cut into its lines. */
static char *
join_lines(char *text, const char *sep)
{
    if (text == NULL)
        return NULL;
    size_t o = 0, k = strlen(sep);
    char *out = malloc(strlen(text) * (k + 1) + 1);
    if (out == NULL)
        return NULL;
    for (char *line = text, *next; line != NULL; line = next) {
        next = strchr(line, '\n');
        if (next != NULL)
            *next++ = '\0';
        size_t n = strlen(line);
        while (n > 0 && (line[n - 1] == '\r' || line[n - 1] == ' ' || line[n - 1] == '\t'))
            n--;
        if (n == 0)
            continue;
        if (o > 0) {
            memcpy(out + o, sep, k);
            o += k;
        }
        memcpy(out + o, line, n);
        o += n;
    }
    out[o] = '\0';
    if (o == 0) {
        free(out);
        return NULL;
    }
    return out;
}

/* stdout into lines "key value"; 0 or NS_ENOMEM. */
static int
split_lines(struct entry *en)
{
    size_t cap = 0;
    for (char *p = en->out, *next; p != NULL && *p != '\0'; p = next) {
        next = strchr(p, '\n');
        if (next != NULL)
            *next++ = '\0';
        size_t n = strlen(p);
        if (n > 0 && p[n - 1] == '\r')
            p[--n] = '\0';
        if (n == 0)
            continue;
        if (ARRAY_GROW(&en->line, &cap, en->a.n + 1) != 0)
            return NS_ENOMEM;
        char *sp = strchr(p, ' ');
        if (sp != NULL)
            *sp = '\0';
        en->line[en->a.n++] = (struct sshg_line){p, sp != NULL ? sp + 1 : ""};
    }
    en->a.line = en->line;
    return 0;
}

/* The run of en's vector, its outcome into en (code, msg or the answer). */
static void
entry_run(const struct sshg *g, struct entry *en, char *const *argv)
{
    struct run r = {.out.max = SSHG_OUT_MAX, .err.max = SSHG_ERR_MAX};
    struct err e = {0};
    int rc = run_ssh(g, argv, &r, &e);
    /* a refusal is one message; notes stay one a line */
    char *why = rc == 0 ? join_lines(r.err.b, r.status != 0 ? "; " : "\n") : NULL;
    if (rc == 0 && r.status != 0) {
        rc = r.status == 255 ? NS_EPARSE : NS_EIO;
        if (why != NULL)
            err_set(&e, rc, "ssh -G: %s", why);
        else
            err_set(&e, rc, "ssh -G: exit status %d", r.status);
    }
    if (rc == 0) {
        en->out = r.out.b != NULL ? r.out.b : strdup("");
        r.out.b = NULL;
        rc = en->out == NULL ? NS_ENOMEM : split_lines(en);
        en->a.notes = en->notes = why;
        why = NULL;
        if (rc != 0)
            err_set(&e, rc, "out of memory");
    }
    en->code = rc;
    en->msg = rc != 0 ? strdup(e.msg) : NULL;
    free(why);
    free(r.out.b);
    free(r.err.b);
}

/* --- the cache ----------------------------------------------------------------------------- */

static uint64_t
fnv1a(const char *p, size_t n)
{
    uint64_t h = UINT64_C(14695981039346656037);
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)p[i]) * UINT64_C(1099511628211);
    return h;
}

/* Under g->mu: the entry of key, or NULL. */
static struct entry *
lookup(const struct sshg *g, const char *key, size_t len, uint64_t hash)
{
    for (size_t i = 0; i < g->n; i++)
        if (g->v[i]->hash == hash && g->v[i]->keylen == len && memcmp(g->v[i]->key, key, len) == 0)
            return g->v[i];
    return NULL;
}

/* argv (NULL-terminated) as one key, malloc'd. */
static char *
key_of(char *const *argv, size_t *len)
{
    size_t n = 0;
    for (size_t i = 0; argv[i] != NULL; i++)
        n += strlen(argv[i]) + 1;
    char *k = malloc(n ? n : 1);
    if (k == NULL)
        return NULL;
    size_t o = 0;
    for (size_t i = 0; argv[i] != NULL; i++) {
        size_t m = strlen(argv[i]) + 1;
        memcpy(k + o, argv[i], m);
        o += m;
    }
    *len = n;
    return k;
}

/* Under g->mu: the entry of argv, run by this thread if nobody has (the lock is let go for the
 * run), waited for if another thread runs it. NULL when out of memory. */
static struct entry *
entry_get(struct sshg *g, char *const *argv)
{
    size_t len = 0;
    char *key = key_of(argv, &len);
    if (key == NULL)
        return NULL;
    uint64_t hash = fnv1a(key, len);
    struct entry *en = lookup(g, key, len, hash);
    if (en != NULL) {
        free(key);
        while (!en->done)
            pthread_cond_wait(&g->done, &g->mu);
        return en;
    }
    en = calloc(1, sizeof *en);
    if (en == NULL || ARRAY_GROW(&g->v, &g->cap, g->n + 1) != 0) {
        free(en);
        free(key);
        return NULL;
    }
    *en = (struct entry){.key = key, .keylen = len, .hash = hash};
    g->v[g->n++] = en;
    pthread_mutex_unlock(&g->mu);
    entry_run(g, en, argv);
    pthread_mutex_lock(&g->mu);
    en->done = true;
    pthread_cond_broadcast(&g->done);
    return en;
}

int
sshg_query(struct sshg *g, const char *const *args, const char *dest,
           const struct sshg_answer **out, struct err *e)
{
    *out = NULL;
    const char *argv[SSHG_ARGS_MAX + 6];
    bool from_env;
    size_t n = 0;
    argv[n++] = program_of(g, &from_env);
    argv[n++] = "-G";
    argv[n++] = "-T"; /* or ssh notes that stdin (/dev/null) is no terminal */
    for (size_t i = 0; args != NULL && args[i] != NULL; i++) {
        if (i == SSHG_ARGS_MAX)
            return err_set(e, NS_EINVAL, "ssh -G: more than %d arguments", SSHG_ARGS_MAX);
        argv[n++] = args[i];
    }
    argv[n++] = "--";
    argv[n++] = dest;
    argv[n] = NULL;
    /* posix_spawnp takes char *const[]; the strings are not written to */
    char *const *av = (char *const *)(uintptr_t)argv;
    pthread_mutex_lock(&g->mu);
    const struct entry *en = entry_get(g, av);
    pthread_mutex_unlock(&g->mu);
    if (en == NULL)
        return err_set(e, NS_ENOMEM, "out of memory");
    if (en->code != 0)
        return err_set(e, en->code, "%s", en->msg != NULL ? en->msg : "out of memory");
    *out = &en->a;
    return 0;
}

/* --- reading an answer --------------------------------------------------------------------- */

const char *
sshg_next(const struct sshg_answer *a, const char *key, size_t *pos)
{
    for (; *pos < a->n; (*pos)++)
        if (strcmp(a->line[*pos].key, key) == 0)
            return a->line[(*pos)++].value;
    return NULL;
}

const char *
sshg_value(const struct sshg_answer *a, const char *key)
{
    size_t pos = 0;
    return sshg_next(a, key, &pos);
}

/* --- many at once -------------------------------------------------------------------------- */

struct pool {
    void (*fn)(void *ctx, size_t i);
    void *ctx;
    size_t n;
    atomic_size_t next;
};

static void *
pool_work(void *arg)
{
    struct pool *p = arg;
    for (size_t i; (i = atomic_fetch_add(&p->next, 1)) < p->n;)
        p->fn(p->ctx, i);
    return NULL;
}

void
sshg_parallel(size_t n, void (*fn)(void *ctx, size_t i), void *ctx)
{
    struct pool p = {.fn = fn, .ctx = ctx, .n = n};
    atomic_init(&p.next, 0);
    pthread_t th[SSHG_PARALLEL_MAX - 1];
    size_t want = n < SSHG_PARALLEL_MAX ? n : SSHG_PARALLEL_MAX, made = 0;
    while (made + 1 < want && pthread_create(&th[made], NULL, pool_work, &p) == 0)
        made++;
    pool_work(&p);
    for (size_t i = 0; i < made; i++)
        pthread_join(th[i], NULL);
}
