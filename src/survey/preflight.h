/* preflight.h - `netsurvey check --connect`: before a long survey, reach every host of a plan
 * at once and check what the survey will need there, changing nothing on the hosts (but the
 * endpoint cache, with `deploy`):
 *
 *   reaching it   the connection, the host key against known_hosts (known / unknown, with its
 *                 SHA256 fingerprint / changed), the authentication (what was tried);
 *   the system    `uname -s` / `uname -m` (and the OS from `nsperf env`): Linux on an
 *                 architecture there is a static nsperf build for (nsperf-static,
 *                 nsperf-static-aarch64: a host of another one fails, naming the build missing);
 *   the endpoint  whether the cached build for the host's architecture (its sha256 in its name)
 *                 is there or would be uploaded, and the free space where it goes;
 *   the clock     its offset to this machine, measured as NTP does (this machine's time before
 *                 and after the host's), the round trip bounding the error: never a failure,
 *                 since every time a survey records is this machine's;
 *   the data      the data address is one of the host's (`nsperf env --address`), or, for a host
 *                 the plan gives none, learnt from its default route (env.h); and every ordered
 *                 pair of the plan's schedule reaches the destination's data address from the
 *                 source's: a short nsperf tcp_rr between them (not ICMP), bounded in time.
 *
 * A host passes when every check passed or does not apply. Checks that need the endpoint (the
 * data address, the data paths) are not made where it is not cached and `deploy` is not given:
 * that host does not pass ("not checked: endpoint not deployed").
 *
 * Hosts are checked on up to `concurrency` threads at once, then the data paths (each host in
 * at most two probes as a source and two as a destination at a time, so that an sshd's
 * MaxSessions is never approached). Nothing is left running: every probe's processes are
 * killed and reaped when it ends, and an interrupt stops the probes running. */
#ifndef NS_SURVEY_PREFLIGHT_H
#define NS_SURVEY_PREFLIGHT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/errors.h"
#include "plan/plan.h"
#include "survey/env.h"
#include "survey/trial.h"
#include "transport/transport.h"

#define PREFLIGHT_CONCURRENCY 16 /* hosts (and probes) at once */
#define PREFLIGHT_PROBE_S 0.2    /* duration of the tcp_rr probe of a data path */
#define PREFLIGHT_PROBE_MARGIN_S                                                                   \
    8.0                           /* its setup allowance: past nsperf's 5 s connect timeout,       \
                                     so that a blocked path fails with nsperf's reason */
#define PREFLIGHT_CLOCK_SAMPLES 3 /* the one with the shortest round trip is kept */
#define PREFLIGHT_DETAIL_MAX 512

enum preflight_status {
    PREFLIGHT_OK,
    PREFLIGHT_FAILED,      /* detail says why */
    PREFLIGHT_NOT_CHECKED, /* detail says why, or is "" when an earlier failure is the reason */
    PREFLIGHT_NA,          /* does not apply (a local host has no host key) */
};

struct preflight_check {
    enum preflight_status status;
    char detail[PREFLIGHT_DETAIL_MAX];
};

enum preflight_endpoint {
    PREFLIGHT_ENDPOINT_UNKNOWN,  /* the host was not reached */
    PREFLIGHT_ENDPOINT_LOCAL,    /* a local host runs the local nsperf in place */
    PREFLIGHT_ENDPOINT_CACHED,   /* the host's cache holds it */
    PREFLIGHT_ENDPOINT_UPLOAD,   /* not there: a run (or --deploy) uploads it */
    PREFLIGHT_ENDPOINT_UPLOADED, /* `deploy` put it there */
};

struct preflight_host {
    const char *name; /* borrowed from the plan */
    bool local;       /* transport: local */
    bool ok;          /* passed: every check but the clock ok or not applying */

    struct preflight_check connect;  /* the connection (a key or login failure is not this) */
    struct preflight_check host_key; /* ok: detail is the fingerprint */
    struct preflight_check auth;
    struct transport_verdict verdict; /* ssh: the key's status and fingerprint, user, tried */

    struct preflight_check system;
    char os[128];  /* "Debian GNU/Linux 12 (bookworm)" from nsperf env, else `uname -s` */
    char arch[72]; /* `uname -m` */
    bool no_build; /* system failed: Linux, but no nsperf build is for its architecture */

    struct preflight_check endpoint;
    enum preflight_endpoint endpoint_state;
    char endpoint_path[1200]; /* where it is, or would be uploaded to */
    char endpoint_build[256]; /* ssh: the build for the host's architecture
                                 ("nsperf-static-aarch64") */
    char endpoint_sha256[65]; /* ssh: its sha256 */
    uint64_t endpoint_bytes;  /* its size */
    struct preflight_check space;
    bool have_space;
    uint64_t space_avail; /* bytes free to the user where the cache is (or would be) */
    char space_path[1024];

    struct preflight_check clock; /* ok once measured; not checked otherwise; never failed */
    double clock_offset_s;        /* the host's clock minus this machine's */
    double clock_rtt_s;           /* round trip of the measurement: |error| <= rtt / 2 */

    struct preflight_check data_address;
    char daddr[SURVEY_ADDR_MAX]; /* the plan's, or learnt ("" when not learnt) */
    bool daddr_learnt;
    char interface[64]; /* the interface holding it, when found */

    struct preflight_check data_paths; /* the paths into it (or out of it, see blame_src) */
    size_t paths_ok, paths_failed;     /* of the pairs counted for this host */
};

struct preflight_path {
    uint32_t src, dst; /* host indexes */
    enum preflight_status status;
    char detail[TRIAL_ERROR_MAX]; /* why it failed or was not checked */
    double rtt_us;                /* the probe's mean round trip, when ok */
    bool blame_src; /* failed, counted against the source: it reached no host, while the
                       destinations were reached from elsewhere */
};

struct preflight_report {
    struct preflight_host *hosts; /* one per plan host, in the plan's order */
    size_t nhosts;
    struct preflight_path *paths; /* the plan's ordered pairs, in the schedule's first pass */
    size_t npaths;
    bool ok;          /* every host passed */
    bool interrupted; /* stopped by *interrupted: the rest is not checked */
    double elapsed_s;
};

struct preflight_opts {
    const struct plan *plan;
    const char *nsperf; /* run in place on `transport: local` hosts */
    /* the static nsperf builds for ssh hosts, one per architecture (NULL-terminated, at most
     * TRANSPORT_DEPLOY_MAX_BUILDS): each host gets the one for its `uname -m`; NULL when the
     * plan has no ssh host */
    const char *const *nsperf_remote;
    bool deploy;             /* upload it into the cache of hosts that lack it */
    unsigned concurrency;    /* 0: PREFLIGHT_CONCURRENCY */
    double probe_margin_s;   /* 0: PREFLIGHT_PROBE_MARGIN_S */
    atomic_int *interrupted; /* NULL, or set (by a signal handler) to stop */
    /* told each warning of a host's ssh config resolution (never two at once), may be NULL */
    void (*warn)(void *ctx, const char *host, const char *msg);
    void *warn_ctx;
};

/* Check every host of o->plan. Returns 0 with *out owned by the caller (hosts that fail are
 * in the report, not an error), or NS_E* before any host is contacted: NS_EINVAL when
 * nsperf_remote is missing for ssh hosts or one of them is not a static ELF executable (or two
 * are for one architecture), NS_ENOMEM. */
int preflight_run(const struct preflight_opts *o, struct preflight_report **out, struct err *e);

/* NULL is safe. */
void preflight_report_free(struct preflight_report *r);

#endif
