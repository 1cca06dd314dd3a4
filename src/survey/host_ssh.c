/* host_ssh.c - see host_ssh.h. */
#include "survey/host_ssh.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/plan.h"
#include "transport/transport_sshconfig.h"

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
    (void)ctx;
    if (ph->transport != PLAN_TRANSPORT_SSH)
        return NULL;
    struct transport_sshconfig_env env;
    transport_sshconfig_env_init(&env, NULL);
    const struct transport_sshconfig_override ov = {.user = ph->ssh.user,
                                                    .port = ph->ssh.port,
                                                    .identity = ph->ssh.identity,
                                                    .jump = ph->ssh.jump,
                                                    .known_hosts = ph->ssh.known_hosts};
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
