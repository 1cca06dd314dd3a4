/* hostflags.h - what bent a trial, judged from what both of its hosts counted: the one place
 * where a trial's host counters (nsperf's "counters", src/nsperf/hostcount.h), its hosts' cloud
 * metadata (`nsperf env`'s "cloud") and its longest gap become flags. A pure function of its
 * input: netsurvey judges each trial with it as it records it, nsperf its own test, the tests
 * every documented counter; nothing in it knows of a lab or of a test.
 *
 * The flags, and when each is raised (the thresholds are the HOSTFLAGS_* below):
 *  - steal: the hypervisor took a vCPU away: on either host, the vCPU that lost most lost more
 *    than HOSTFLAGS_STEAL_SHARE of the measured interval (/proc/stat steal).
 *  - drops: either host dropped packets itself: its interface (or a lower device) counted
 *    drops or errors, its root qdisc dropped, softnet's backlog dropped, or UDP sockets' buffers
 *    were full (RcvbufErrors, SndbufErrors).
 *  - throttled: the cloud shaped the VM's traffic: a NIC counter of the documented table
 *    (hostflags_throttle) rose on either host.
 *  - slow_path: the traffic left by the slow interface: one of the documented conditions
 *    (hostflags_slow_path) held on either host.
 *  - stall: nothing arrived (no byte, no transaction) for longer than HOSTFLAGS_STALL_SHARE of
 *    the measured interval, and at least HOSTFLAGS_STALL_MIN_S and HOSTFLAGS_STALL_PACE times
 *    the gap the test's own pacing leaves between writes.
 * A flag keeps its reason, one line naming the host and the counters: "sender z1h1: qdisc htb
 * dropped 317141". Counters that were not read raise nothing: a flag is evidence, never a
 * guess. */
#ifndef NS_COMMON_HOSTFLAGS_H
#define NS_COMMON_HOSTFLAGS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#define HOSTFLAGS_STEAL_SHARE 0.05 /* of one vCPU's time in the measured interval */
#define HOSTFLAGS_STALL_SHARE 0.05 /* of the measured interval */
#define HOSTFLAGS_STALL_MIN_S 0.1
#define HOSTFLAGS_STALL_PACE 10.0
/* An accelerated interface's VF carried less than this share of the interface's bytes. */
#define HOSTFLAGS_VF_SHARE 0.5
#define HOSTFLAGS_WHY_MAX 320

/* The flags: id and name (the record's and the reports'), in the order above. */
#define HOSTFLAG_MAP(X)                                                                            \
    X(STEAL, "steal")                                                                              \
    X(DROPS, "drops") X(THROTTLED, "throttled") X(SLOW_PATH, "slow_path") X(STALL, "stall")

enum hostflag {
#define HOSTFLAG_ENUM(id, name) HOSTFLAG_##id,
    HOSTFLAG_MAP(HOSTFLAG_ENUM)
#undef HOSTFLAG_ENUM
        HOSTFLAG_COUNT
};

/* The flag's name ("slow_path"); NULL out of range. */
const char *hostflag_name(enum hostflag f);
/* The flag named name, or -1. */
int hostflag_find(const char *name);

/* One host of a trial. */
struct hostflags_side {
    const char *label;      /* how the reasons name it: "sender z1h1" (borrowed) */
    const json_t *counters; /* its "counters" (borrowed; NULL or not an object: not read) */
    const json_t *cloud;    /* its env.cloud (borrowed; NULL or null: none known) */
};

struct hostflags_trial {
    struct hostflags_side side[2];
    double duration_s;    /* the measured interval */
    double longest_gap_s; /* the result's longest_gap_s; negative when unknown */
    double pace_gap_s;    /* the gap a paced test leaves by design (msg_size x 8 / rate), or 0 */
};

struct hostflags {
    unsigned mask; /* 1u << enum hostflag for each flag raised */
    char why[HOSTFLAG_COUNT][HOSTFLAGS_WHY_MAX];
};

/* Judge one trial. */
void hostflags_judge(const struct hostflags_trial *in, struct hostflags *out);

/* {"drops": "why", ...}, the flags raised in the order above (new reference; {} when none). */
json_t *hostflags_json(const struct hostflags *f);

/* --- the documented table: what each cloud documents, one row each ----------------------- */

/* A NIC statistic (ethtool -S) whose rise means the cloud throttled the VM. */
struct hostflags_counter {
    const char *provider; /* "aws" */
    const char *driver;   /* the NIC driver that counts it ("ena") */
    const char *counter;  /* the statistic's name */
    const char *meaning;
    const char *doc; /* the provider's documentation that says so */
};
extern const struct hostflags_counter hostflags_throttle[];
extern const size_t hostflags_nthrottle;

/* A condition under which the traffic took the slow path. */
struct hostflags_slow {
    const char *provider; /* env.cloud.provider */
    const char *driver;   /* the data interface's driver it applies to */
    const char *condition;
    const char *doc;
};
extern const struct hostflags_slow hostflags_slow_path[];
extern const size_t hostflags_nslow_path;

/* GCP machine series (the machine type's first segment, "c3" of "c3-standard-8") that have
 * gVNIC only, so that a virtio_net interface there is not the NIC the type documents. */
extern const char *const hostflags_gvnic_series[];
extern const size_t hostflags_ngvnic_series;

#endif
