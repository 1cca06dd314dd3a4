/* transport.c - the generic transport functions: pick a variant by kind, then dispatch every
 * call through the operations table at the head of each object (struct transport_base).
 * Dispatch goes one way only: the variants never call back in here (what they share with each
 * other, the capped buffer and transport_output_release, is in transport_buf.c). */
#include "transport/transport.h"

#include <string.h>

static const struct transport_ops *const transport_variants[] = {
    &transport_local_ops,
    &transport_ssh_ops,
};

static const struct transport_ops *
base_ops(const void *obj)
{
    return ((const struct transport_base *)obj)->ops;
}

int
transport_new(const struct transport_target *t, struct transport **out, struct err *e)
{
    *out = NULL;
    const char *kind = t->kind != NULL ? t->kind : "ssh";
    for (size_t i = 0; i < sizeof transport_variants / sizeof transport_variants[0]; i++) {
        if (strcmp(transport_variants[i]->kind, kind) == 0)
            return transport_variants[i]->open(t, out, e);
    }
    return err_set(e, NS_EINVAL, "%s: transport '%s' is not built in", t->name, kind);
}

int
transport_open(const struct transport_target *t, struct transport **out, struct err *e)
{
    int rc = transport_new(t, out, e);
    if (rc == 0)
        rc = transport_connect(*out, e);
    if (rc != 0) {
        transport_close(*out);
        *out = NULL;
    }
    return rc;
}

int
transport_connect(struct transport *t, struct err *e)
{
    const struct transport_ops *ops = base_ops(t);
    return ops->connect != NULL ? ops->connect(t, e) : 0;
}

bool
transport_connected(struct transport *t, unsigned *drops)
{
    const struct transport_ops *ops = base_ops(t);
    if (ops->connected != NULL)
        return ops->connected(t, drops);
    if (drops != NULL)
        *drops = 0;
    return true;
}

void
transport_drop_reason(struct transport *t, char *buf, size_t len)
{
    const struct transport_ops *ops = base_ops(t);
    if (ops->drop_reason != NULL)
        ops->drop_reason(t, buf, len);
    else if (len > 0)
        buf[0] = '\0';
}

void
transport_cancel(struct transport *t)
{
    const struct transport_ops *ops = base_ops(t);
    if (ops->cancel != NULL)
        ops->cancel(t);
}

void
transport_close(struct transport *t)
{
    if (t != NULL)
        base_ops(t)->close(t);
}

const char *
transport_kind(const struct transport *t)
{
    return base_ops(t)->kind;
}

const char *
transport_name(const struct transport *t)
{
    return ((const struct transport_base *)t)->name;
}

int
transport_deploy_for(struct transport *t, const char *const *builds, struct transport_deployed *d,
                     struct err *e)
{
    memset(d, 0, sizeof *d);
    return base_ops(t)->deploy(t, builds, d, e);
}

int
transport_deploy(struct transport *t, const char *local_path, char *remote_path, size_t len,
                 struct err *e)
{
    const char *const builds[] = {local_path, NULL};
    struct transport_deployed d;
    int rc = transport_deploy_for(t, builds, &d, e);
    if (rc != 0)
        return rc;
    if (strlen(d.path) >= len)
        return err_set(e, NS_ERANGE, "%s: remote path does not fit", transport_name(t));
    memcpy(remote_path, d.path, strlen(d.path) + 1);
    return 0;
}

int
transport_spawn(struct transport *t, const char *const *argv, const void *stdin_data,
                size_t stdin_len, struct transport_proc **out, struct err *e)
{
    *out = NULL;
    return base_ops(t)->spawn(t, argv, stdin_data, stdin_len, out, e);
}

int
transport_read_line(struct transport_proc *p, char *buf, size_t len, int64_t deadline_ns,
                    struct err *e)
{
    return base_ops(p)->read_line(p, buf, len, deadline_ns, e);
}

int
transport_wait(struct transport_proc *p, size_t out_cap, size_t err_cap, int64_t deadline_ns,
               struct transport_output *o, struct err *e)
{
    memset(o, 0, sizeof *o);
    return base_ops(p)->wait(p, out_cap, err_cap, deadline_ns, o, e);
}

int
transport_signal(struct transport_proc *p, int sig, struct err *e)
{
    return base_ops(p)->signal(p, sig, e);
}

void
transport_proc_free(struct transport_proc *p)
{
    if (p != NULL)
        base_ops(p)->proc_free(p);
}
