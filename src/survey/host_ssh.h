/* host_ssh.h - a plan's ssh host as the ssh transport reaches it: its endpoint resolved through
 * the ssh config, what `netsurvey plan --json` shows. */
#ifndef NS_SURVEY_HOST_SSH_H
#define NS_SURVEY_HOST_SSH_H

struct plan_host;

/* The JSON of ph's resolved endpoint, as transport_sshconfig resolves it with the plan's values
 * beating the config: {"hostname","port","user","identity_files":[...],"proxy_jump":[...],
 * "known_hosts_files":[...]} plus "warnings":[...] when there are some, or {"error":"..."} when
 * the config cannot be resolved. malloc'd text; NULL for a host that is not ssh (or out of
 * memory). The signature of schedule_json_extra.ssh_resolved (ctx unused). */
char *survey_host_resolved_json(void *ctx, const struct plan_host *ph);

#endif
