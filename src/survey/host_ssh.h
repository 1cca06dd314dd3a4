/* host_ssh.h - a plan's ssh hosts as the ssh transport reaches them: their endpoints resolved by
 * the operator's `ssh -G` (transport_sshconfig.h), all at once for a command that opens or shows
 * many, and what `netsurvey plan --json` shows of each. */
#ifndef NS_SURVEY_HOST_SSH_H
#define NS_SURVEY_HOST_SSH_H

struct plan;
struct plan_host;
struct sshg;

/* Every ssh host of p and its jump hosts resolved at once, in parallel, the plan's ssh values
 * passed as each host's transport passes them: a new struct sshg holding the answers (its
 * cache), for transport_target.sshg and survey_host_resolved_json, so that opening 200 hosts
 * one after the other runs no `ssh -G` of its own. NULL when p has no ssh host or memory ran
 * out (each host then asks for itself). The caller frees it with sshg_free. Failures are kept
 * in it and reported by the host's own open or resolution. */
struct sshg *survey_ssh_prefetch(const struct plan *p);

/* The JSON of ph's resolved endpoint, as transport_sshconfig resolves it with the plan's values
 * beating the config: {"hostname","port","user","identity_files":[...],"proxy_jump":[...],
 * "known_hosts_files":[...]} plus "warnings":[...] when there are some, or {"error":"..."} when
 * ssh refuses the config (its message names the file and line). malloc'd text; NULL for a host
 * that is not ssh (or out of memory). The signature of schedule_json_extra.ssh_resolved: ctx is
 * a struct sshg from survey_ssh_prefetch, or NULL. */
char *survey_host_resolved_json(void *ctx, const struct plan_host *ph);

#endif
