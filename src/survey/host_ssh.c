/* host_ssh.c - see host_ssh.h. */
#include "survey/host_ssh.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/sshg.h"
#include "plan/plan.h"
#include "transport/transport.h"

static struct transport_sshconfig_override
override_of(const struct plan_host *ph)
{
    return (struct transport_sshconfig_override){.user = ph->ssh.user,
                                                 .port = ph->ssh.port,
                                                 .identity = ph->ssh.identity,
                                                 .jump = ph->ssh.jump,
                                                 .known_hosts = ph->ssh.known_hosts};
}

struct sshg *
survey_ssh_prefetch(const struct plan *p)
{
    size_t n = plan_host_count(p), k = 0;
    const char **host = calloc(n ? n : 1, sizeof *host);
    struct transport_sshconfig_override *ov = calloc(n ? n : 1, sizeof *ov);
    struct sshg *g = host != NULL && ov != NULL ? sshg_new() : NULL;
    for (size_t i = 0; g != NULL && i < n; i++) {
        const struct plan_host *ph = plan_host(p, i);
        if (ph->transport != PLAN_TRANSPORT_SSH)
            continue;
        host[k] = ph->address;
        ov[k++] = override_of(ph);
    }
    if (k > 0) {
        struct transport_sshconfig_env env;
        transport_sshconfig_env_init(&env, NULL);
        env.sshg = g;
        transport_sshconfig_prefetch(&env, host, ov, k);
    } else {
        sshg_free(g);
        g = NULL;
    }
    free(host);
    free(ov);
    return g;
}

static json_t *
str_array(char *const *v, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; a != NULL && i < n; i++)
        json_array_append_new(a, json_string(v[i]));
    return a;
}

static json_t *
resolved_json(const struct transport_sshconfig *r)
{
    json_t *o = json_pack("{s:s, s:i, s:s, s:o, s:o, s:o}", "hostname", r->hostname, "port",
                          (int)r->port, "user", r->user, "identity_files",
                          str_array(r->identity_paths, r->n_identity_paths), "proxy_jump",
                          str_array(r->proxy_jump, r->n_proxy_jump), "known_hosts_files",
                          str_array(r->known_hosts_files, r->n_known_hosts_files));
    if (o != NULL && r->n_warnings > 0)
        json_object_set_new(o, "warnings", str_array(r->warnings, r->n_warnings));
    return o;
}

char *
survey_host_resolved_json(void *ctx, const struct plan_host *ph)
{
    if (ph->transport != PLAN_TRANSPORT_SSH)
        return NULL;
    struct transport_sshconfig_env env;
    transport_sshconfig_env_init(&env, NULL);
    env.sshg = ctx;
    const struct transport_sshconfig_override ov = override_of(ph);
    struct transport_sshconfig *r = NULL;
    struct err e = {0};
    json_t *o = transport_sshconfig_resolve(&env, ph->address, &ov, &r, &e) == 0
                    ? resolved_json(r)
                    : json_pack("{s:s}", "error", e.msg);
    transport_sshconfig_free(r);
    char *text = o != NULL ? json_dumps(o, JSON_COMPACT) : NULL;
    json_decref(o);
    return text;
}
