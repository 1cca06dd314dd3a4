/* env.c - `nsperf env` on a host, and the data address learnt from it (env.h). */
#include "survey/env.h"

#include <stdio.h>
#include <string.h>

#include "common/clock.h"

int
survey_env_read(struct transport *t, const char *nsperf, const char *address, json_t **env,
                struct err *e)
{
    *env = NULL;
    const char *argv[] = {nsperf, "env", address != NULL ? "--address" : NULL, address, NULL};
    struct transport_proc *p = NULL;
    int rc = transport_spawn(t, argv, NULL, 0, &p, e);
    if (rc != 0)
        return rc;
    struct transport_output out;
    int64_t deadline = (int64_t)clock_now_ns() + (int64_t)(SURVEY_ENV_TIMEOUT_S * 1e9);
    rc = transport_wait(p, SURVEY_ENV_CAP, SURVEY_ENV_CAP, deadline, &out, e);
    if (rc == 0 && out.status != 0)
        rc = err_set(e, NS_EREMOTE, "%s: nsperf env exited with status %d%s%.200s",
                     transport_name(t), out.status, out.err_len > 0 ? ": " : "", out.err);
    json_t *j = rc == 0 ? json_loadb(out.out, out.out_len, 0, NULL) : NULL;
    if (rc == 0 && !json_is_object(j))
        rc = err_set(e, NS_EPROTO, "%s: nsperf env printed no JSON object", transport_name(t));
    transport_output_release(&out);
    transport_proc_free(p);
    if (rc != 0) {
        json_decref(j);
        return rc;
    }
    *env = j;
    return 0;
}

/* "a, b, c" of the array's strings into buf. */
static void
join_strings(const json_t *a, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < json_array_size(a) && used < len; i++) {
        const char *s = json_string_value(json_array_get(a, i));
        used += (size_t)snprintf(buf + used, len - used, "%s%s", i > 0 ? ", " : "", s ? s : "?");
    }
}

int
survey_env_learn_address(const json_t *env, char *out, size_t len, char *iface, size_t ilen,
                         struct err *e)
{
    out[0] = '\0';
    if (iface != NULL && ilen > 0)
        iface[0] = '\0';
    const json_t *route = json_object_get(env, "default_route");
    const char *name = json_string_value(json_object_get(route, "interface"));
    const char *family = json_string_value(json_object_get(route, "family"));
    const json_t *addrs = json_object_get(route, "addresses");
    if (!json_is_object(route) || name == NULL || !json_is_array(addrs))
        return err_set(e, NS_ENOTFOUND,
                       "no data address to learn: the host has no default route (set "
                       "data_address in the plan)");
    if (iface != NULL && ilen > 0)
        snprintf(iface, ilen, "%s", name);
    size_t n = json_array_size(addrs);
    if (n == 0)
        return err_set(e, NS_ENOTFOUND,
                       "no data address to learn: %s, the default route's interface, holds no "
                       "%s address (set data_address in the plan)",
                       name, family != NULL ? family : "");
    if (n > 1) {
        char list[300];
        join_strings(addrs, list, sizeof list);
        return err_set(e, NS_EINVAL,
                       "ambiguous data address: %s, the default route's interface, holds %zu "
                       "addresses (%s); set data_address in the plan to the one tests should use",
                       name, n, list);
    }
    const char *a = json_string_value(json_array_get(addrs, 0));
    if (a == NULL || *a == '\0' || strlen(a) >= len || strlen(a) >= SURVEY_ADDR_MAX)
        return err_set(e, NS_EPROTO, "no data address to learn: nsperf env gave a bad address");
    snprintf(out, len, "%s", a);
    return 0;
}
