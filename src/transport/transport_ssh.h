/* transport_ssh.h - what the ssh variant offers beyond struct transport_ops (transport.h).
 * Each function takes a transport opened with kind "ssh" (NS_EINVAL / undefined otherwise, as
 * said per function). */
#ifndef NS_TRANSPORT_TRANSPORT_SSH_H
#define NS_TRANSPORT_TRANSPORT_SSH_H

#include "common/errors.h"
#include "transport/transport.h"

/* `netsurvey clean`: kill (SIGKILL) every process group netsurvey started on the host that is
 * still recorded in ~/.cache/netsurvey/pids/, then remove ~/.cache/netsurvey. NS_EINVAL when t
 * is not an ssh transport. */
int transport_ssh_clean(struct transport *t, struct err *e);

/* How many files transport_deploy uploaded through t (0 when every deploy hit the cache). */
int transport_ssh_uploads(const struct transport *t);

/* How many times t replaced a dropped session. */
int transport_ssh_reconnects(const struct transport *t);

/* The process group id of p on its host (what transport_signal kills). */
long transport_ssh_pgid(const struct transport_proc *p);

#endif
