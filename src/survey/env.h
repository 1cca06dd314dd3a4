/* env.h - a host's `nsperf env` (its environment as JSON, nsperf/hostenv.h) read through its
 * transport, and the data address learnt from it for a plan host that names none
 * (plan_host.data_address_from_host). One reading for `netsurvey run` and for the preflight of
 * `netsurvey check --connect`, so that both learn the same address. */
#ifndef NS_SURVEY_ENV_H
#define NS_SURVEY_ENV_H

#include <jansson.h>
#include <stddef.h>

#include "common/errors.h"
#include "transport/transport.h"

#define SURVEY_ENV_TIMEOUT_S 30.0
#define SURVEY_ENV_CAP (64u << 10) /* what is read of its output */
#define SURVEY_ADDR_MAX 64         /* an address as text, scope included */

/* Run `NSPERF env [--address ADDRESS]` on t (address NULL: without it). Returns 0 with *env a
 * new JSON object (caller decrefs), or NS_E* with why in e (it did not start, did not end
 * within SURVEY_ENV_TIMEOUT_S, exited non-zero, or printed no JSON object). */
int survey_env_read(struct transport *t, const char *nsperf, const char *address, json_t **env,
                    struct err *e);

/* The data address of a host that names none: the one address on its default route's
 * interface, from env's "default_route" (IPv4's route first, as nsperf reports it). Returns 0
 * with the address in out (len >= SURVEY_ADDR_MAX) and the interface in iface (ilen bytes, may
 * be NULL); NS_ENOTFOUND when the host has no default route or its interface holds no address,
 * NS_EINVAL when it holds several (ambiguous: the plan must say which), each with a message
 * that says so and names the interface and addresses. */
int survey_env_learn_address(const json_t *env, char *out, size_t len, char *iface, size_t ilen,
                             struct err *e);

#endif
