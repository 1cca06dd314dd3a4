/* host_target.h - how a plan's host is reached: its transport_target. One mapping for
 * `netsurvey run` and `netsurvey clean`, so that both dial a host the same way. */
#ifndef NS_SURVEY_HOST_TARGET_H
#define NS_SURVEY_HOST_TARGET_H

#include <stdbool.h>

#include "plan/plan.h"
#include "transport/transport.h"

/* sshg: the `ssh -G` answers shared by the command's hosts (survey_ssh_prefetch), or NULL. */
static inline struct transport_target
survey_host_target(const struct plan_host *ph, bool accept_new_host_keys, struct sshg *sshg)
{
    return (struct transport_target){
        .name = ph->name,
        .kind = ph->transport == PLAN_TRANSPORT_LOCAL ? "local" : "ssh",
        .address = ph->address,
        .port = ph->ssh.port,
        .user = ph->ssh.user,
        .identity = ph->ssh.identity,
        .known_hosts = ph->ssh.known_hosts,
        .jump = ph->ssh.jump,
        .connect_timeout_s = ph->ssh.connect_timeout_s,
        .accept_new_host_keys = accept_new_host_keys,
        .sshg = sshg,
    };
}

#endif
