/* clean.c - undo what runs left on a plan's ssh host (clean.h). */
#include "survey/clean.h"

#include "survey/host_target.h"
#include "transport/transport.h"

int
survey_clean_host(const struct plan_host *ph, bool accept_new_host_keys, struct err *e)
{
    return survey_clean_host_warn(ph, accept_new_host_keys, NULL, NULL, NULL, NULL, e);
}

int
survey_clean_host_warn(const struct plan_host *ph, bool accept_new_host_keys, struct sshg *sshg,
                       void (*warn)(void *ctx, const char *name, const char *msg), void *ctx,
                       struct survey_cleaned *out, struct err *e)
{
    if (ph->transport == PLAN_TRANSPORT_LOCAL)
        return err_set(e, NS_EINVAL, "%s: a local host has nothing to clean", ph->name);
    struct transport_target tt = survey_host_target(ph, accept_new_host_keys, sshg);
    tt.warn = warn;
    tt.warn_ctx = ctx;
    struct transport *t = NULL;
    int rc = transport_open(&tt, &t, e);
    struct transport_ssh_cleaned c = {0};
    if (rc == 0)
        rc = transport_ssh_clean(t, &c, e);
    if (out != NULL)
        *out = (struct survey_cleaned){.killed = c.killed, .stale = c.stale};
    transport_close(t);
    return rc;
}
