/* clean.h - `netsurvey clean`'s work on one host: undo what runs left there. */
#ifndef NS_SURVEY_CLEAN_H
#define NS_SURVEY_CLEAN_H

#include <stdbool.h>

#include "common/errors.h"
#include "plan/plan.h"

/* Reach the ssh host ph as a run would, kill every process group netsurvey started there that
 * is still recorded and provably its own (transport_ssh_clean), and remove its cache
 * (~/.cache/netsurvey and the places a full home made it use). 0 or NS_E* with detail in e.
 * Local hosts have nothing to clean (their processes end with the run): NS_EINVAL. */
int survey_clean_host(const struct plan_host *ph, bool accept_new_host_keys, struct err *e);

/* What a clean did on a host: process groups killed (provably netsurvey's), pid files removed
 * without acting on them (stale). */
struct survey_cleaned {
    unsigned long killed, stale;
};

/* As survey_clean_host, each warning of the host's ssh config told to warn (may be NULL), its
 * `ssh -G` answers from sshg (survey_ssh_prefetch of the plan; NULL: asked for this host), what
 * it did into *c (may be NULL). */
struct sshg;
int survey_clean_host_warn(const struct plan_host *ph, bool accept_new_host_keys, struct sshg *sshg,
                           void (*warn)(void *ctx, const char *name, const char *msg), void *ctx,
                           struct survey_cleaned *c, struct err *e);

#endif
