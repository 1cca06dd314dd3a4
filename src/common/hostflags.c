/* hostflags.c - a trial's flags from its hosts' counters (hostflags.h), and the documented table
 * of what each cloud's counters and drivers mean. */
#include "common/hostflags.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* ---- the documented table ------------------------------------------------------------------
 * One row per fact, each with the page of the provider that states it. */

#define DOC_AWS_ENA                                                                                \
    "AWS, Amazon EC2 User Guide, \"Monitor network performance for ENA settings on your EC2 "      \
    "instance\" (docs.aws.amazon.com/AWSEC2/latest/UserGuide/monitoring-network-performance-"      \
    "ena.html)"
#define DOC_AZURE_AN                                                                               \
    "Azure, \"How Accelerated Networking works in Linux and FreeBSD VMs\" "                        \
    "(learn.microsoft.com/azure/virtual-network/accelerated-networking-how-it-works); Linux's "    \
    "Documentation/networking/device_drivers/ethernet/microsoft/netvsc.rst (the VF is enslaved "   \
    "by the netvsc device)"
#define DOC_GCP_GVNIC                                                                              \
    "Google Cloud, \"Using Google Virtual NIC\" (cloud.google.com/compute/docs/networking/using-"  \
    "gvnic) and the machine series pages (cloud.google.com/compute/docs/machine-resource): the "   \
    "series listed in hostflags_gvnic_series support gVNIC only; the gve driver's README: "        \
    "\"required ... for using certain VM shapes\""

const struct hostflags_counter hostflags_throttle[] = {
    {"aws", "ena", "bw_in_allowance_exceeded",
     "packets queued or dropped: the inbound aggregate bandwidth exceeded the instance's maximum",
     DOC_AWS_ENA},
    {"aws", "ena", "bw_out_allowance_exceeded",
     "packets queued or dropped: the outbound aggregate bandwidth exceeded the instance's maximum",
     DOC_AWS_ENA},
    {"aws", "ena", "pps_allowance_exceeded",
     "packets queued or dropped: the bidirectional packets per second exceeded the instance's "
     "maximum",
     DOC_AWS_ENA},
    {"aws", "ena", "conntrack_allowance_exceeded",
     "packets dropped: connection tracking exceeded the instance's maximum (no new connection "
     "could be tracked)",
     DOC_AWS_ENA},
    {"aws", "ena", "linklocal_allowance_exceeded",
     "packets dropped: traffic to local proxy services (DNS, the instance metadata service, the "
     "time sync service) exceeded the network interface's packets per second maximum",
     DOC_AWS_ENA},
};
const size_t hostflags_nthrottle = sizeof hostflags_throttle / sizeof hostflags_throttle[0];

const struct hostflags_slow hostflags_slow_path[] = {
    {"azure", "hv_netvsc",
     "the synthetic interface has no VF under it (no accelerated networking), or its VFs "
     "(mlx4_core, mlx5_core, mana) carried less than HOSTFLAGS_VF_SHARE of the interface's "
     "bytes: the packets went through the host's virtual switch",
     DOC_AZURE_AN},
    {"gcp", "virtio_net",
     "the instance's machine series has gVNIC (gve) only, yet the data interface is virtio_net",
     DOC_GCP_GVNIC},
};
const size_t hostflags_nslow_path = sizeof hostflags_slow_path / sizeof hostflags_slow_path[0];

const char *const hostflags_gvnic_series[] = {"a3", "a4", "c3", "c3d", "c4", "c4a", "c4d",
                                              "h3", "m4", "n4", "t2a", "x4", "z3"};
const size_t hostflags_ngvnic_series =
    sizeof hostflags_gvnic_series / sizeof hostflags_gvnic_series[0];

/* ---- names ---- */

static const char *const flag_names[HOSTFLAG_COUNT] = {
#define HOSTFLAG_NAME(id, name) [HOSTFLAG_##id] = name,
    HOSTFLAG_MAP(HOSTFLAG_NAME)
#undef HOSTFLAG_NAME
};

const char *
hostflag_name(enum hostflag f)
{
    return (int)f >= 0 && f < HOSTFLAG_COUNT ? flag_names[f] : NULL;
}

int
hostflag_find(const char *name)
{
    for (int i = 0; name != NULL && i < HOSTFLAG_COUNT; i++)
        if (strcmp(name, flag_names[i]) == 0)
            return i;
    return -1;
}

/* ---- reasons ---- */

/* One flag's reason being written: "label: item, item; label: item". */
struct why {
    char *buf;
    size_t len;
    const char *side; /* the label of the side whose items come now */
    bool side_open;   /* its label is written */
};

static void why_add(struct why *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
why_add(struct why *w, const char *fmt, ...)
{
    char item[HOSTFLAGS_WHY_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(item, sizeof item, fmt, ap);
    va_end(ap);
    const char *sep = w->side_open ? ", " : w->len > 0 ? "; " : "";
    int n =
        w->side_open || w->side == NULL
            ? snprintf(w->buf + w->len, HOSTFLAGS_WHY_MAX - w->len, "%s%s", sep, item)
            : snprintf(w->buf + w->len, HOSTFLAGS_WHY_MAX - w->len, "%s%s: %s", sep, w->side, item);
    w->side_open = w->side != NULL;
    size_t room = HOSTFLAGS_WHY_MAX - 1 - w->len; /* a reason too long is cut */
    if (n > 0)
        w->len += (size_t)n < room ? (size_t)n : room;
}

static void
why_side(struct why *w, const char *label)
{
    w->side = label != NULL ? label : "a host";
    w->side_open = false;
}

/* ---- reading the counters ---- */

static double
num(const json_t *o, const char *key)
{
    return json_number_value(json_object_get(o, key));
}

static const char *
str(const json_t *o, const char *key)
{
    return json_string_value(json_object_get(o, key));
}

static bool
str_is(const char *s, const char *want)
{
    return s != NULL && strcmp(s, want) == 0;
}

/* ---- the rules ---- */

static void
judge_steal(const struct hostflags_side *s, struct why *w)
{
    const json_t *cpu = json_object_get(s->counters, "cpu");
    double cpus = num(cpu, "cpus"), ticks = num(cpu, "ticks");
    if (cpus < 1 || ticks <= 0)
        return;
    double worst = num(cpu, "steal_max") / (ticks / cpus);
    if (worst > HOSTFLAGS_STEAL_SHARE)
        why_add(w, "a vCPU lost %.1f %% of the trial to steal (all %g vCPUs %.1f %%)",
                100.0 * worst, cpus, 100.0 * num(cpu, "steal") / ticks);
}

/* The interface counters that are the host's own drops and errors (rx_nohandler is not: those
 * are frames no protocol wanted). */
static const char *const link_drop_keys[] = {
    "rx_dropped",     "tx_dropped",     "rx_errors",      "tx_errors",        "rx_missed_errors",
    "rx_over_errors", "rx_fifo_errors", "tx_fifo_errors", "tx_carrier_errors"};

static void
link_drops(const char *ifname, const json_t *link, struct why *w)
{
    for (size_t i = 0; i < sizeof link_drop_keys / sizeof link_drop_keys[0]; i++) {
        double v = num(link, link_drop_keys[i]);
        if (v > 0)
            why_add(w, "interface %s %s %.0f", ifname != NULL ? ifname : "?", link_drop_keys[i], v);
    }
}

static void
judge_drops(const struct hostflags_side *s, struct why *w)
{
    const json_t *c = s->counters;
    link_drops(str(c, "interface"), json_object_get(c, "link"), w);
    size_t i;
    const json_t *low;
    json_array_foreach(json_object_get(c, "lower"), i, low)
        link_drops(str(low, "interface"), json_object_get(low, "link"), w);
    const json_t *q = json_object_get(c, "qdisc");
    if (num(q, "drops") > 0)
        why_add(w, "qdisc %s dropped %.0f", str(q, "kind") != NULL ? str(q, "kind") : "?",
                num(q, "drops"));
    double sn = num(json_object_get(c, "softnet"), "dropped");
    if (sn > 0)
        why_add(w, "softnet backlog dropped %.0f", sn);
    const json_t *u = json_object_get(c, "udp");
    double rcv = num(u, "rcvbuf_errors"), snd = num(u, "sndbuf_errors"), in = num(u, "in_errors");
    if (rcv > 0)
        why_add(w, "UDP RcvbufErrors %.0f", rcv);
    if (snd > 0)
        why_add(w, "UDP SndbufErrors %.0f", snd);
    if (in > rcv) /* InErrors holds RcvbufErrors */
        why_add(w, "UDP InErrors %.0f", in);
}

/* The documented counters of one device (the data interface or a lower one) that rose. */
static void
throttle_device(const json_t *dev, const char *ifname, struct why *w)
{
    const char *driver = str(dev, "driver");
    const json_t *et = json_object_get(dev, "ethtool");
    for (size_t i = 0; driver != NULL && et != NULL && i < hostflags_nthrottle; i++) {
        double v = num(et, hostflags_throttle[i].counter);
        if (strcmp(driver, hostflags_throttle[i].driver) == 0 && v > 0)
            why_add(w, "%s (%s) %s %.0f", ifname != NULL ? ifname : "?", driver,
                    hostflags_throttle[i].counter, v);
    }
}

static void
judge_throttled(const struct hostflags_side *s, struct why *w)
{
    throttle_device(s->counters, str(s->counters, "interface"), w);
    size_t i;
    const json_t *low;
    json_array_foreach(json_object_get(s->counters, "lower"), i, low)
        throttle_device(low, str(low, "interface"), w);
}

static double
link_bytes(const json_t *dev)
{
    const json_t *link = json_object_get(dev, "link");
    return num(link, "rx_bytes") + num(link, "tx_bytes");
}

/* Azure: the VF is the accelerated path; without it, or with it idle, the synthetic interface
 * (whose counters include the VF's) carried the trial. */
static void
slow_azure(const struct hostflags_side *s, const char *ifname, struct why *w)
{
    const json_t *lower = json_object_get(s->counters, "lower");
    if (json_array_size(lower) == 0) {
        why_add(w, "%s (hv_netvsc) has no VF: the trial went by the synthetic interface", ifname);
        return;
    }
    double total = link_bytes(s->counters), vf = 0;
    size_t i;
    const json_t *low;
    json_array_foreach(lower, i, low) vf += link_bytes(low);
    if (!json_is_object(json_object_get(s->counters, "link")) || total <= 0 ||
        vf >= HOSTFLAGS_VF_SHARE * total)
        return;
    const json_t *first = json_array_get(lower, 0);
    why_add(w, "its VF %s (%s) carried %.1f %% of %s's %.0f bytes",
            str(first, "interface") != NULL ? str(first, "interface") : "?",
            str(first, "driver") != NULL ? str(first, "driver") : "?", 100.0 * vf / total, ifname,
            total);
}

/* GCP: a series with gVNIC only, and virtio_net in the guest. */
static void
slow_gcp(const struct hostflags_side *s, const char *ifname, struct why *w)
{
    const char *type = str(s->cloud, "instance_type");
    if (type == NULL)
        return;
    size_t n = strcspn(type, "-");
    for (size_t i = 0; i < hostflags_ngvnic_series; i++)
        if (strlen(hostflags_gvnic_series[i]) == n &&
            strncmp(type, hostflags_gvnic_series[i], n) == 0) {
            why_add(w, "%s is virtio_net on a %s, whose series has gVNIC (gve) only", ifname, type);
            return;
        }
}

static void
judge_slow_path(const struct hostflags_side *s, struct why *w)
{
    const char *provider = str(s->cloud, "provider"), *driver = str(s->counters, "driver");
    const char *ifname = str(s->counters, "interface");
    if (provider == NULL || driver == NULL || ifname == NULL)
        return;
    if (str_is(provider, "azure") && str_is(driver, "hv_netvsc"))
        slow_azure(s, ifname, w);
    else if (str_is(provider, "gcp") && str_is(driver, "virtio_net"))
        slow_gcp(s, ifname, w);
}

static void
judge_stall(const struct hostflags_trial *in, struct why *w)
{
    if (in->longest_gap_s < 0 || in->duration_s <= 0)
        return;
    double limit = HOSTFLAGS_STALL_SHARE * in->duration_s;
    if (limit < HOSTFLAGS_STALL_MIN_S)
        limit = HOSTFLAGS_STALL_MIN_S;
    if (limit < HOSTFLAGS_STALL_PACE * in->pace_gap_s)
        limit = HOSTFLAGS_STALL_PACE * in->pace_gap_s;
    if (in->longest_gap_s > limit)
        why_add(w, "nothing arrived for %.3g s of the %.3g s measured (%.0f %%)", in->longest_gap_s,
                in->duration_s, 100.0 * in->longest_gap_s / in->duration_s);
}

typedef void (*side_rule)(const struct hostflags_side *s, struct why *w);

void
hostflags_judge(const struct hostflags_trial *in, struct hostflags *out)
{
    memset(out, 0, sizeof *out);
    static const side_rule rules[HOSTFLAG_COUNT] = {
        [HOSTFLAG_STEAL] = judge_steal,
        [HOSTFLAG_DROPS] = judge_drops,
        [HOSTFLAG_THROTTLED] = judge_throttled,
        [HOSTFLAG_SLOW_PATH] = judge_slow_path,
    };
    for (int f = 0; f < HOSTFLAG_COUNT; f++) {
        struct why w = {.buf = out->why[f]};
        if (rules[f] != NULL) {
            for (int k = 0; k < 2; k++) {
                if (!json_is_object(in->side[k].counters))
                    continue;
                why_side(&w, in->side[k].label);
                rules[f](&in->side[k], &w);
            }
        } else {
            judge_stall(in, &w);
        }
        if (w.len > 0)
            out->mask |= 1u << f;
    }
}

json_t *
hostflags_json(const struct hostflags *f)
{
    json_t *o = json_object();
    for (int i = 0; o != NULL && i < HOSTFLAG_COUNT; i++)
        if (f->mask & (1u << i))
            json_object_set_new(o, flag_names[i], json_string(f->why[i]));
    return o;
}
