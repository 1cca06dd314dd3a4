/* trial.c - one test: server ready line, client, deadline, JSON. */
#include "survey/trial.h"

#include "common/testspec.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"

#define TRIAL_LINE_MAX 512
#define TRIAL_REAP_S 5.0 /* how long a server may take to exit after its client finished */

/* Adds one argument; the numbers live in store[*ns]. */
struct argv_builder {
    const char **argv;
    int n;
    char (*store)[32];
    int ns;
    bool overflow;
};

static void
arg_add(struct argv_builder *b, const char *a)
{
    if (b->n + 1 >= TRIAL_ARGV_MAX) {
        b->overflow = true;
        return;
    }
    b->argv[b->n++] = a;
    b->argv[b->n] = NULL;
}

static void
arg_num(struct argv_builder *b, const char *flag, const char *fmt, double v, unsigned long long u)
{
    if (b->ns >= TRIAL_ARGV_MAX) {
        b->overflow = true;
        return;
    }
    char *slot = b->store[b->ns++];
    if (fmt[1] == 'g')
        snprintf(slot, 32, "%.9g", v);
    else
        snprintf(slot, 32, "%llu", u);
    arg_add(b, flag);
    arg_add(b, slot);
}

/* The client's flags come from the one parameter table (common/testspec.h), so the runner
 * passes exactly what `netsurvey check` validated and nsperf accepts; the connection flags
 * (host, port, source, token on stdin, JSON) are added here. */
int
survey_trial_client_argv(const struct plan_scenario *sc, const char *nsperf, const char *dst,
                         unsigned port, const char *src, char store[][32], const char **argv)
{
    struct argv_builder b = {.argv = argv, .store = store};
    arg_add(&b, nsperf);
    arg_add(&b, "-c");
    arg_add(&b, dst);
    arg_num(&b, "-p", "%u", 0, port);
    arg_add(&b, "-B");
    arg_add(&b, src);
    arg_add(&b, "--token-file");
    arg_add(&b, "-");
    arg_add(&b, "-J");
    struct err e = {0};
    size_t n = 0;
    char **flags = testspec_client_argv(&sc->spec, &n, &e);
    if (flags == NULL)
        return -1;
    for (size_t i = 0; i < n; i++) {
        if (b.ns >= TRIAL_ARGV_MAX || strlen(flags[i]) >= 32) {
            b.overflow = true;
            break;
        }
        char *slot = b.store[b.ns++];
        snprintf(slot, 32, "%s", flags[i]);
        arg_add(&b, slot);
    }
    free(flags);
    return b.overflow ? -1 : b.n;
}

static void
log_argv(const struct trial_spec *s, const char *host, const char *const *argv)
{
    if (s->on_command != NULL)
        s->on_command(s->on_command_arg, host, argv);
}

static int64_t
deadline_after(double seconds)
{
    return (int64_t)clock_now_ns() + (int64_t)(seconds * 1e9);
}

/* Register a running process for survey_trial_ctl_kill; kill it at once if an interrupt came. */
static void
ctl_set(struct trial_ctl *c, int i, struct transport_proc *p)
{
    pthread_mutex_lock(&c->mu);
    c->procs[i] = p;
    if (p != NULL && atomic_load(c->interrupted))
        transport_signal(p, SIGKILL, NULL);
    pthread_mutex_unlock(&c->mu);
}

void
survey_trial_ctl_kill(struct trial_ctl *c)
{
    pthread_mutex_lock(&c->mu);
    for (int i = 0; i < 2; i++)
        if (c->procs[i] != NULL)
            transport_signal(c->procs[i], SIGKILL, NULL);
    pthread_mutex_unlock(&c->mu);
}

static void
proc_end(struct trial_ctl *c, int i, struct transport_proc **p)
{
    ctl_set(c, i, NULL);
    transport_proc_free(*p);
    *p = NULL;
}

/* The last non-empty line of a program's stderr, for a one-line reason. */
static void
last_line(const char *text, char *buf, size_t len)
{
    buf[0] = '\0';
    if (text == NULL)
        return;
    size_t n = strlen(text);
    while (n > 0 && (text[n - 1] == '\n' || text[n - 1] == ' '))
        n--;
    size_t start = n;
    while (start > 0 && text[start - 1] != '\n')
        start--;
    snprintf(buf, len, "%.*s", (int)(n - start), text + start);
}

static void outcome_fail(struct trial_outcome *o, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* A one-line reason (cut to TRIAL_ERROR_MAX). */
static void
outcome_fail(struct trial_outcome *o, const char *fmt, ...)
{
    o->ok = false;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(o->error, sizeof o->error, fmt, ap);
    va_end(ap);
    for (char *p = o->error; *p != '\0'; p++)
        if (*p == '\n' || *p == '\r')
            *p = ' ';
}

/* Start the server on dst and read its port; on failure say why (its stderr). */
static int
server_start(const struct trial_spec *s, struct trial_ctl *c, struct transport_proc **srv,
             unsigned *port, struct trial_outcome *o)
{
    char idle[32];
    snprintf(idle, sizeof idle, "%.9g", s->margin_s);
    const char *argv[] = {s->dst->nsperf, "-s", "-1",           "-B", s->dst->data_address,
                          "-p",           "0",  "--token-file", "-",  "--idle-timeout",
                          idle,           NULL};
    log_argv(s, s->dst->name, argv);
    struct err e = {0};
    int rc = transport_spawn(s->dst->t, argv, s->token, strlen(s->token), srv, &e);
    if (rc != 0) {
        outcome_fail(o, "server on %s did not start: %s", s->dst->name, e.msg);
        return rc;
    }
    ctl_set(c, 0, *srv);
    char line[TRIAL_LINE_MAX];
    rc = transport_read_line(*srv, line, sizeof line, deadline_after(s->margin_s), &e);
    json_t *j = rc == 0 ? json_loads(line, 0, NULL) : NULL;
    json_int_t p = json_integer_value(json_object_get(j, "port"));
    json_decref(j);
    if (rc == 0 && p > 0 && p < 65536) {
        *port = (unsigned)p;
        return 0;
    }
    /* It exited (bind failed, bad binary) or hung: its stderr says why. */
    transport_signal(*srv, SIGKILL, NULL);
    struct transport_output out;
    transport_wait(*srv, TRIAL_ERR_CAP, TRIAL_ERR_CAP, deadline_after(TRIAL_REAP_S), &out, NULL);
    char why[TRIAL_ERROR_MAX];
    last_line(out.err, why, sizeof why);
    if (rc == NS_ETIMEDOUT)
        outcome_fail(o, "server on %s not ready within the deadline (%.3g s)", s->dst->name,
                     s->margin_s);
    else if (why[0] == '\0')
        outcome_fail(o, "server on %s did not start: %s", s->dst->name,
                     rc != 0 ? e.msg : "no listening line");
    else
        outcome_fail(o, "server on %s did not start: %s", s->dst->name, why);
    transport_output_release(&out);
    return rc != 0 ? rc : NS_EPROTO;
}

/* The client's document: ok when it has a result and no error. */
static void
client_outcome(const struct trial_spec *s, const struct transport_output *out,
               struct trial_outcome *o)
{
    json_t *doc = out->out_truncated ? NULL : json_loadb(out->out, out->out_len, 0, NULL);
    json_t *result = json_object_get(doc, "result");
    const char *err = json_string_value(json_object_get(doc, "error"));
    if (json_is_object(result))
        o->result = json_incref(result);
    const json_t *counters = json_object_get(doc, "counters");
    if (json_is_object(counters))
        o->counters = json_incref((json_t *)(uintptr_t)counters);
    char why[TRIAL_ERROR_MAX];
    if (doc == NULL) {
        last_line(out->err, why, sizeof why);
        char st[48];
        snprintf(st, sizeof st, "exit status %d", out->status);
        outcome_fail(o, "client on %s printed no result (%s)", s->src->name,
                     why[0] != '\0' ? why : st);
    } else if (err != NULL) {
        outcome_fail(o, "%s", err);
    } else if (out->status != 0 || o->result == NULL) {
        outcome_fail(o, "client on %s exited with status %d and no result", s->src->name,
                     out->status);
    } else {
        o->ok = true;
    }
    json_decref(doc);
}

static void
run_client(const struct trial_spec *s, struct trial_ctl *c, unsigned port, struct trial_outcome *o)
{
    char store[TRIAL_ARGV_MAX][32];
    const char *argv[TRIAL_ARGV_MAX];
    if (survey_trial_client_argv(s->sc, s->src->nsperf, s->dst->data_address, port,
                                 s->src->data_address, store, argv) < 0) {
        outcome_fail(o, "too many client arguments");
        return;
    }
    log_argv(s, s->src->name, argv);
    struct err e = {0};
    struct transport_proc *cli = NULL;
    if (transport_spawn(s->src->t, argv, s->token, strlen(s->token), &cli, &e) != 0) {
        outcome_fail(o, "client on %s did not start: %s", s->src->name, e.msg);
        return;
    }
    ctl_set(c, 1, cli);
    double limit = s->sc->warmup_s + s->sc->duration_s + s->margin_s;
    struct transport_output out;
    int rc = transport_wait(cli, TRIAL_OUT_CAP, TRIAL_ERR_CAP, deadline_after(limit), &out, &e);
    if (atomic_load(c->interrupted)) {
        o->interrupted = true;
    } else if (rc == NS_ETIMEDOUT) {
        char lim[48];
        snprintf(lim, sizeof lim, "%.3g s", limit);
        outcome_fail(o, "deadline exceeded: no result within %s (warmup + duration + margin)", lim);
    } else if (rc != 0) {
        outcome_fail(o, "client on %s: %s", s->src->name, e.msg);
    } else {
        client_outcome(s, &out, o);
    }
    transport_output_release(&out);
    proc_end(c, 1, &cli);
}

void
survey_trial_outcome_release(struct trial_outcome *o)
{
    json_decref(o->result);
    json_decref(o->counters);
    o->result = o->counters = NULL;
}

void
survey_trial_attempt(const struct trial_spec *s, struct trial_ctl *c, struct trial_outcome *o)
{
    memset(o, 0, sizeof *o);
    if (s->src->t == NULL || s->dst->t == NULL) {
        const struct trial_host *h = s->src->t == NULL ? s->src : s->dst;
        outcome_fail(o, "host %s %s: %s", h->name,
                     h->deploy_failed ? "has no endpoint" : "unreachable", h->error);
        return;
    }
    struct transport_proc *srv = NULL;
    unsigned port = 0;
    if (server_start(s, c, &srv, &port, o) == 0) {
        run_client(s, c, port, o);
        if (o->ok) {
            /* The one-shot server exits by itself once the test is over. */
            struct transport_output out;
            transport_wait(srv, TRIAL_ERR_CAP, TRIAL_ERR_CAP, deadline_after(TRIAL_REAP_S), &out,
                           NULL);
            transport_output_release(&out);
        }
    }
    if (atomic_load(c->interrupted)) {
        o->interrupted = true;
        o->ok = false;
    }
    if (srv != NULL)
        proc_end(c, 0, &srv);
}
