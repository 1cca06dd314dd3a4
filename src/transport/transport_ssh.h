/* transport_ssh.h - what the ssh variant offers beyond struct transport_ops (transport.h).
 * Each function takes a transport opened with kind "ssh" (NS_EINVAL / undefined otherwise, as
 * said per function). */
#ifndef NS_TRANSPORT_TRANSPORT_SSH_H
#define NS_TRANSPORT_TRANSPORT_SSH_H

#include <stdbool.h>
#include <stdint.h>

#include "common/errors.h"
#include "transport/transport.h"
#include "transport/transport_deploy.h"

/* What transport_ssh_clean did: groups killed, and pid files removed without acting on them
 * (stale: the process ended, the host rebooted, or the number now belongs to another
 * process). */
struct transport_ssh_cleaned {
    unsigned long killed, stale;
};

/* `netsurvey clean`: kill (SIGKILL) every process group netsurvey started on the host that is
 * still recorded in ~/.cache/netsurvey/pids/ and provably the one started (its leader's start
 * time and the boot id as recorded, its executable the program recorded), remove every pid file,
 * then ~/.cache/netsurvey. NS_EINVAL when t is not an ssh transport. */
int transport_ssh_clean(struct transport *t, struct transport_ssh_cleaned *c, struct err *e);

/* How many files transport_deploy uploaded through t (0 when every deploy hit the cache). */
int transport_ssh_uploads(const struct transport *t);

/* How many times t replaced a dropped session. */
int transport_ssh_reconnects(const struct transport *t);

/* The process group id of p on its host (what transport_signal kills). */
long transport_ssh_pgid(const struct transport_proc *p);

/* Run argv on the host to its end, every argument quoted as transport_spawn quotes them, but
 * without the process-group wrapper and its pid file in ~/.cache/netsurvey: for short commands
 * that end by themselves and must leave nothing on the host (`netsurvey check --connect`).
 * Keeps at most out_cap bytes of stdout (64 KiB of stderr). 0 with *o filled (the caller
 * releases it), NS_ETIMEDOUT at deadline_ns (the channel is closed, the command's output ends
 * there), or another NS_E*. */
int transport_ssh_exec(struct transport *t, const char *const *argv, size_t out_cap,
                       int64_t deadline_ns, struct transport_output *o, struct err *e);

/* What the host says about running one of the builds of s there, asked in one command that
 * changes nothing: its `uname -s` and `uname -m`, $HOME, whether transport_deploy_for's cache
 * holds the build for its machine already (hash checked), and the free space where the cache is
 * or would be. */
struct transport_ssh_probe {
    char sysname[64];      /* "Linux" */
    char machine[64];      /* "x86_64" */
    char home[1024];       /* $HOME */
    int build;             /* the index in s of the build for machine, -1 when none is */
    bool cached;           /* cache_path holds that build, executable, with its sha256 */
    char cache_path[1200]; /* where transport_deploy_for puts (or finds) it; "" when none */
    char space_path[1024]; /* the cache directory, or its nearest existing parent */
    bool have_space;       /* df answered */
    uint64_t space_avail;  /* bytes available to the user there */
};

int transport_ssh_probe(struct transport *t, const struct transport_deploy_set *s,
                        struct transport_ssh_probe *p, struct err *e);

#endif
