/* ssh_oracle.c - run OpenSSH's ssh and read what it resolved (see ssh_oracle.h). */
#include "ssh_oracle.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define SSHG_OUT_MAX (1024 * 1024)

struct buf {
    char *b;
    size_t n;
};

static void
buf_add(struct buf *b, const char *p, size_t n)
{
    if (b->n + n > SSHG_OUT_MAX)
        n = SSHG_OUT_MAX - b->n;
    char *nb = realloc(b->b, b->n + n + 1);
    if (nb == NULL)
        return;
    b->b = nb;
    memcpy(b->b + b->n, p, n);
    b->n += n;
    b->b[b->n] = '\0';
}

static void
child(const char *home, const char *const *argv, int out, int err)
{
    int devnull = open("/dev/null", O_RDONLY);
    dup2(devnull, 0);
    dup2(out, 1);
    dup2(err, 2);
    setenv("HOME", home, 1);
    execvp(argv[0], (char *const *)(uintptr_t)argv);
    _exit(127);
}

/* Run argv; its stdout and stderr into o and e; its exit status. -1 when it cannot start. */
static int
run(const char *home, const char *const *argv, struct buf *o, struct buf *e)
{
    int po[2], pe[2];
    if (pipe(po) != 0 || pipe(pe) != 0)
        return -1;
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0)
        child(home, argv, po[1], pe[1]);
    close(po[1]);
    close(pe[1]);
    struct pollfd p[2] = {{.fd = po[0], .events = POLLIN}, {.fd = pe[0], .events = POLLIN}};
    struct buf *dst[2] = {o, e};
    int open_fds = 2;
    while (open_fds > 0) {
        if (poll(p, 2, 30000) <= 0)
            break;
        for (int i = 0; i < 2; i++) {
            if (p[i].fd < 0 || !(p[i].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            char tmp[4096];
            ssize_t n = read(p[i].fd, tmp, sizeof tmp);
            if (n > 0) {
                buf_add(dst[i], tmp, (size_t)n);
            } else if (n == 0 || errno != EINTR) {
                close(p[i].fd);
                p[i].fd = -1;
                open_fds--;
            }
        }
    }
    for (int i = 0; i < 2; i++)
        if (p[i].fd >= 0)
            close(p[i].fd);
    int st = 0;
    if (waitpid(pid, &st, 0) != pid)
        return -1;
    if (WIFEXITED(st) && WEXITSTATUS(st) == 127)
        return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static void
list_add(struct oracle_list *l, const char *s, size_t n)
{
    char **v = realloc(l->v, (l->n + 1) * sizeof *v);
    if (v == NULL)
        return;
    l->v = v;
    l->v[l->n++] = strndup(s, n);
}

static void
list_free(struct oracle_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
    l->v = NULL;
    l->n = 0;
}

static void
parse_g_line(struct oracle *g, const char *k, const char *v)
{
    if (strcmp(k, "user") == 0)
        g->user = strdup(v);
    else if (strcmp(k, "hostname") == 0)
        g->hostname = strdup(v);
    else if (strcmp(k, "port") == 0)
        g->port = atoi(v);
    else if (strcmp(k, "hostkeyalias") == 0)
        g->hostkeyalias = strdup(v);
    else if (strcmp(k, "identityagent") == 0)
        g->identityagent = strdup(v);
    else if (strcmp(k, "proxyjump") == 0)
        g->proxyjump = strdup(v);
    else if (strcmp(k, "connecttimeout") == 0)
        g->connecttimeout = strcmp(v, "none") == 0 ? -1 : atoi(v);
    else if (strcmp(k, "identitiesonly") == 0)
        g->identitiesonly = strcmp(v, "yes") == 0;
    else if (strcmp(k, "identityfile") == 0)
        list_add(&g->identityfile, v, strlen(v));
    else if (strcmp(k, "userknownhostsfile") == 0 && strcmp(v, "none") == 0)
        return; /* how -G prints an empty list */
    else if (strcmp(k, "userknownhostsfile") == 0)
        for (const char *p = v; *p != '\0';) {
            size_t n = strcspn(p, " ");
            list_add(&g->userknownhostsfile, p, n);
            p += n + strspn(p + n, " ");
        }
}

static void
parse_g(struct oracle *g, char *out)
{
    for (char *line = strtok(out, "\n"); line != NULL; line = strtok(NULL, "\n")) {
        char *sp = strchr(line, ' ');
        if (sp == NULL)
            continue;
        *sp = '\0';
        parse_g_line(g, line, sp + 1);
    }
}

/* "debug1: identity file PATH type N" lines; PATH-cert right after PATH is ssh's probe for a
 * certificate, not an identity of the config. */
static void
parse_v(struct oracle *g, char *err)
{
    static const char pre[] = "debug1: identity file ";
    char last[4200] = "";
    for (char *line = strtok(err, "\n"); line != NULL; line = strtok(NULL, "\n")) {
        if (strncmp(line, pre, sizeof pre - 1) != 0)
            continue;
        char *path = line + sizeof pre - 1, *type = strstr(path, " type ");
        char *t;
        while (type != NULL && (t = strstr(type + 1, " type ")) != NULL)
            type = t;
        if (type == NULL)
            continue;
        *type = '\0';
        char cert[4210];
        snprintf(cert, sizeof cert, "%s-cert", last);
        if (last[0] != '\0' && strcmp(path, cert) == 0) {
            last[0] = '\0';
            continue;
        }
        list_add(&g->identity_paths, path, strlen(path));
        snprintf(last, sizeof last, "%s", path);
    }
}

static size_t
build_argv(const char **argv, size_t max, const char *mode, const char *config,
           const char *const *args, const char *host)
{
    size_t n = 0;
    argv[n++] = "ssh";
    argv[n++] = mode;
    if (strcmp(mode, "-v") == 0) {
        argv[n++] = "-o";
        argv[n++] = "ProxyCommand=exec false";
        argv[n++] = "-o";
        argv[n++] = "BatchMode=yes";
    }
    if (config != NULL) {
        argv[n++] = "-F";
        argv[n++] = config;
    }
    for (size_t i = 0; args != NULL && args[i] != NULL && n + 3 < max; i++)
        argv[n++] = args[i];
    argv[n++] = "--";
    argv[n++] = host;
    argv[n] = NULL;
    return n;
}

int
oracle_run(const char *home, const char *config, const char *const *args, const char *host,
           struct oracle *g)
{
    memset(g, 0, sizeof *g);
    g->connecttimeout = -1;
    const char *argv[64];
    struct buf o = {0}, e = {0};
    build_argv(argv, 64, "-G", config, args, host);
    g->status = run(home, argv, &o, &e);
    if (g->status < 0) {
        free(o.b);
        free(e.b);
        return -1;
    }
    snprintf(g->err, sizeof g->err, "%s", e.b != NULL ? e.b : "");
    snprintf(g->gerr, sizeof g->gerr, "%s", g->err);
    if (o.b != NULL)
        parse_g(g, o.b);
    free(o.b);
    free(e.b);
    o = (struct buf){0};
    e = (struct buf){0};
    build_argv(argv, 64, "-v", config, args, host);
    int st = run(home, argv, &o, &e);
    /* past loading the identities, ssh greets the proxy, which has gone */
    g->connects = e.b != NULL && strstr(e.b, "kex_exchange_identification") != NULL;
    if (st >= 0 && e.b != NULL && !g->connects)
        snprintf(g->err, sizeof g->err, "%s", e.b);
    if (st >= 0 && e.b != NULL)
        parse_v(g, e.b);
    free(o.b);
    free(e.b);
    return st < 0 ? -1 : 0;
}

void
oracle_release(struct oracle *g)
{
    free(g->user);
    free(g->hostname);
    free(g->hostkeyalias);
    free(g->identityagent);
    free(g->proxyjump);
    list_free(&g->identityfile);
    list_free(&g->userknownhostsfile);
    list_free(&g->identity_paths);
    memset(g, 0, sizeof *g);
}

bool
oracle_available(void)
{
    const char *argv[] = {"ssh", "-V", NULL};
    struct buf o = {0}, e = {0};
    int st = run("/", argv, &o, &e);
    free(o.b);
    free(e.b);
    return st == 0;
}
