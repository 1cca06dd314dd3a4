/* hostcount.c - the host's counters before and after a trial, and their deltas (hostcount.h). */
#include "nsperf/hostcount.h"

#include <inttypes.h>
#include <linux/ethtool.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>

#include "common/array.h"
#include "common/clock.h"
#include "nsperf/netif.h"

#define HC_LINE_MAX 4096
#define HC_DEV_MAX (1 + NETIF_LOWER_MAX)

/* One device: the data interface (dev[0]) or one it is master of. */
struct hc_dev {
    struct netif_link link[2];
    bool link_ok[2];
    char driver[NETIF_DRIVER_MAX];
    bool has_driver;
    char *names; /* nstats names of ETH_GSTRING_LEN bytes */
    int nstats;
    uint64_t *val[2];
    bool val_ok[2];
};

struct hostcount {
    uint64_t t_ns[2];
    struct hostcount_cpu cpu[2];
    bool cpu_ok[2];
    uint64_t softnet[2][2];
    bool softnet_ok[2];
    uint64_t udp[2][3];
    bool udp_ok[2];
    struct netif_qdisc q[2];
    bool has_if;
    unsigned ifindex;
    struct hc_dev dev[HC_DEV_MAX];
    size_t ndev;
};

/* ---- the files ---- */

void
hostcount_cpu_release(struct hostcount_cpu *c)
{
    free(c->cpu_steal);
    memset(c, 0, sizeof *c);
}

/* One "cpu..." line: user nice system idle iowait irq softirq steal (guest and guest_nice are in
 * user and nice already). Busy as cpu.c counts it: all but idle and iowait. */
static bool
stat_line(const char *rest, uint64_t *ticks, uint64_t *busy, uint64_t *softirq, uint64_t *steal)
{
    unsigned long long v[8] = {0};
    int n = sscanf(rest, "%llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
                   &v[4], &v[5], &v[6], &v[7]);
    if (n < 4)
        return false;
    *busy = v[0] + v[1] + v[2] + v[5] + v[6] + v[7];
    *ticks = *busy + v[3] + v[4];
    *softirq = v[6];
    *steal = v[7];
    return true;
}

static bool
cpu_push(struct hostcount_cpu *c, uint64_t steal)
{
    if (ARRAY_GROW(&c->cpu_steal, &c->cap, c->ncpu + 1) != 0)
        return false;
    c->cpu_steal[c->ncpu++] = steal;
    return true;
}

bool
hostcount_read_stat(FILE *f, struct hostcount_cpu *c)
{
    memset(c, 0, sizeof *c);
    char line[HC_LINE_MAX];
    bool total = false, at_start = true;
    while (fgets(line, sizeof line, f) != NULL) {
        /* Only whole lines' starts: the intr line is longer than the buffer. */
        bool start = at_start;
        at_start = strchr(line, '\n') != NULL;
        if (!start || strncmp(line, "cpu", 3) != 0)
            continue;
        uint64_t ticks, busy, softirq, steal;
        if (line[3] == ' ') {
            total = stat_line(line + 3, &c->ticks, &c->busy, &c->softirq, &c->steal);
        } else if (line[3] >= '0' && line[3] <= '9') {
            const char *rest = line + 3 + strspn(line + 3, "0123456789");
            if (stat_line(rest, &ticks, &busy, &softirq, &steal) && !cpu_push(c, steal)) {
                hostcount_cpu_release(c);
                return false;
            }
        }
    }
    if (!total)
        hostcount_cpu_release(c);
    return total;
}

bool
hostcount_read_softnet(FILE *f, uint64_t *dropped, uint64_t *time_squeeze)
{
    *dropped = *time_squeeze = 0;
    char line[HC_LINE_MAX];
    bool any = false;
    while (fgets(line, sizeof line, f) != NULL) {
        unsigned long long processed, drop, squeeze;
        if (sscanf(line, "%llx %llx %llx", &processed, &drop, &squeeze) != 3)
            continue;
        *dropped += drop;
        *time_squeeze += squeeze;
        any = true;
    }
    return any;
}

static const char *const udp_names[3] = {"InErrors", "RcvbufErrors", "SndbufErrors"};

/* A "Udp: name name ..." line and the "Udp: value value ..." line after it. */
static bool
snmp_pair(char *names, char *values, uint64_t v[3])
{
    bool any = false;
    char *sn = NULL, *sv = NULL;
    char *n = strtok_r(names, " \n", &sn), *val = strtok_r(values, " \n", &sv);
    for (; n != NULL && val != NULL;
         n = strtok_r(NULL, " \n", &sn), val = strtok_r(NULL, " \n", &sv))
        for (int i = 0; i < 3; i++)
            if (strcmp(n, udp_names[i]) == 0) {
                v[i] += strtoull(val, NULL, 10);
                any = true;
            }
    return any;
}

bool
hostcount_read_snmp(FILE *f, uint64_t v[3])
{
    char names[HC_LINE_MAX], values[HC_LINE_MAX];
    bool any = false;
    while (fgets(names, sizeof names, f) != NULL) {
        if (strncmp(names, "Udp: ", 5) != 0)
            continue;
        if (fgets(values, sizeof values, f) == NULL || strncmp(values, "Udp: ", 5) != 0)
            break;
        any = snmp_pair(names + 5, values + 5, v) || any;
    }
    return any;
}

bool
hostcount_read_snmp6(FILE *f, uint64_t v[3])
{
    char line[HC_LINE_MAX];
    bool any = false;
    while (fgets(line, sizeof line, f) != NULL) {
        char name[64];
        unsigned long long val;
        if (sscanf(line, "Udp6%63s %llu", name, &val) != 2)
            continue;
        for (int i = 0; i < 3; i++)
            if (strcmp(name, udp_names[i]) == 0) {
                v[i] += val;
                any = true;
            }
    }
    return any;
}

static bool
read_path(const char *path, bool (*fn)(FILE *, void *), void *arg)
{
    FILE *f = fopen(path, "re");
    if (f == NULL)
        return false;
    bool ok = fn(f, arg);
    fclose(f);
    return ok;
}

static bool
rd_stat(FILE *f, void *arg)
{
    return hostcount_read_stat(f, arg);
}

static bool
rd_softnet(FILE *f, void *arg)
{
    uint64_t *v = arg;
    return hostcount_read_softnet(f, &v[0], &v[1]);
}

static bool
rd_snmp(FILE *f, void *arg)
{
    return hostcount_read_snmp(f, arg);
}

static bool
rd_snmp6(FILE *f, void *arg)
{
    return hostcount_read_snmp6(f, arg);
}

/* ---- the devices ---- */

static void
dev_init(struct hc_dev *d, const char *name)
{
    d->has_driver = netif_driver(name, d->driver);
    d->nstats = netif_stat_names(name, &d->names);
    if (d->nstats <= 0) {
        d->nstats = 0;
        return;
    }
    d->val[0] = calloc((size_t)d->nstats, sizeof(uint64_t));
    d->val[1] = calloc((size_t)d->nstats, sizeof(uint64_t));
    if (d->val[0] == NULL || d->val[1] == NULL)
        d->nstats = 0;
}

static void
dev_release(struct hc_dev *d)
{
    free(d->names);
    free(d->val[0]);
    free(d->val[1]);
}

static struct hostcount *
hc_alloc(void)
{
    return calloc(1, sizeof(struct hostcount));
}

struct hostcount *
hostcount_new(const char *ifname)
{
    struct hostcount *h = hc_alloc();
    if (h == NULL)
        return NULL;
    h->ifindex = ifname != NULL && ifname[0] != '\0' ? if_nametoindex(ifname) : 0;
    struct netif_link self, lower[NETIF_LOWER_MAX];
    size_t nlower = 0;
    h->has_if = h->ifindex != 0 && netif_links(h->ifindex, &self, lower, &nlower);
    if (!h->has_if)
        return h;
    h->dev[0].link[0] = self;
    for (size_t i = 0; i < nlower; i++)
        h->dev[1 + i].link[0] = lower[i];
    h->ndev = 1 + nlower;
    for (size_t i = 0; i < h->ndev; i++)
        dev_init(&h->dev[i], h->dev[i].link[0].name);
    return h;
}

struct hostcount *
hostcount_new_for_socket(int fd)
{
    struct sockaddr_storage ss;
    socklen_t len = sizeof ss;
    char name[NETIF_NAME_MAX];
    bool found = getsockname(fd, (struct sockaddr *)&ss, &len) == 0 && netif_of_sockaddr(&ss, name);
    return hostcount_new(found ? name : NULL);
}

void
hostcount_free(struct hostcount *h)
{
    if (h == NULL)
        return;
    for (int w = 0; w < 2; w++)
        hostcount_cpu_release(&h->cpu[w]);
    for (size_t i = 0; i < h->ndev; i++)
        dev_release(&h->dev[i]);
    free(h);
}

static void
take_devices(struct hostcount *h, int w)
{
    struct netif_link self, lower[NETIF_LOWER_MAX];
    size_t nlower = 0;
    bool ok = netif_links(h->ifindex, &self, lower, &nlower);
    for (size_t i = 0; i < h->ndev; i++) {
        struct hc_dev *d = &h->dev[i];
        d->link_ok[w] = false;
        if (ok && i == 0) {
            d->link[w] = self;
            d->link_ok[w] = self.has_stats;
        }
        for (size_t k = 0; ok && i > 0 && k < nlower; k++)
            if (lower[k].ifindex == d->link[0].ifindex) {
                d->link[w] = lower[k];
                d->link_ok[w] = lower[k].has_stats;
            }
        /* Still this device's (a VF removed and another added may take its name): only then
         * are its statistics the same list. */
        d->val_ok[w] = d->nstats > 0 && (w == 0 || d->link_ok[w]) &&
                       netif_stat_values(d->link[0].name, (uint32_t)d->nstats, d->val[w]);
    }
    netif_root_qdisc(h->ifindex, &h->q[w]);
}

void
hostcount_take(struct hostcount *h, enum hostcount_when when)
{
    if (h == NULL)
        return;
    int w = when == HOSTCOUNT_AFTER;
    h->t_ns[w] = clock_now_ns();
    hostcount_cpu_release(&h->cpu[w]);
    h->cpu_ok[w] = read_path("/proc/stat", rd_stat, &h->cpu[w]);
    h->softnet_ok[w] = read_path("/proc/net/softnet_stat", rd_softnet, h->softnet[w]);
    memset(h->udp[w], 0, sizeof h->udp[w]);
    bool v4 = read_path("/proc/net/snmp", rd_snmp, h->udp[w]);
    bool v6 = read_path("/proc/net/snmp6", rd_snmp6, h->udp[w]);
    h->udp_ok[w] = v4 || v6;
    if (h->has_if)
        take_devices(h, w);
}

/* ---- the deltas ---- */

/* Add key: value when value is not 0. */
static void
put_nonzero(json_t *o, const char *key, int64_t v)
{
    if (v != 0)
        json_object_set_new(o, key, json_integer((json_int_t)v));
}

static json_t *
cpu_json(const struct hostcount_cpu *a, const struct hostcount_cpu *b)
{
    uint64_t steal_max = 0;
    for (size_t i = 0; i < b->ncpu; i++) {
        uint64_t before = i < a->ncpu ? a->cpu_steal[i] : 0;
        uint64_t d = b->cpu_steal[i] > before ? b->cpu_steal[i] - before : 0;
        steal_max = d > steal_max ? d : steal_max;
    }
    return json_pack("{s:I, s:I, s:I, s:I, s:I, s:I}", "cpus", (json_int_t)b->ncpu, "ticks",
                     (json_int_t)(b->ticks - a->ticks), "busy", (json_int_t)(b->busy - a->busy),
                     "softirq", (json_int_t)(b->softirq - a->softirq), "steal",
                     (json_int_t)(b->steal - a->steal), "steal_max", (json_int_t)steal_max);
}

static json_t *
link_json(const struct netif_link *a, const struct netif_link *b)
{
    json_t *o = json_object();
    for (int i = 0; i < NETIF_STAT_COUNT; i++)
        put_nonzero(o, netif_stat_name((enum netif_stat)i), (int64_t)(b->stat[i] - a->stat[i]));
    return o;
}

static json_t *
qdisc_json(const struct netif_qdisc *a, const struct netif_qdisc *b)
{
    if (!b->found)
        return json_null();
    json_t *o = json_pack("{s:s}", "kind", b->kind);
    if (!a->has_stats || !b->has_stats || strcmp(a->kind, b->kind) != 0)
        return o; /* replaced in between: its counters started again */
    put_nonzero(o, "bytes", (int64_t)(b->bytes - a->bytes));
    put_nonzero(o, "packets", (int64_t)(b->packets - a->packets));
    /* 32-bit counters in the kernel: the difference modulo 2^32 survives one wrap */
    put_nonzero(o, "drops", (uint32_t)(b->drops - a->drops));
    put_nonzero(o, "overlimits", (uint32_t)(b->overlimits - a->overlimits));
    put_nonzero(o, "requeues", (uint32_t)(b->requeues - a->requeues));
    return o;
}

/* Every statistic that changed; a name the driver gives twice adds up. */
static void
ethtool_json(json_t *dev, const struct hc_dev *d, const uint64_t *before)
{
    if (d->nstats == 0 || !d->val_ok[1] || (before != NULL && !d->val_ok[0]))
        return;
    json_t *o = json_object();
    size_t kept = 0, more = 0;
    for (int i = 0; i < d->nstats; i++) {
        int64_t delta = (int64_t)(d->val[1][i] - (before != NULL ? before[i] : 0));
        if (delta == 0)
            continue;
        const char *name = d->names + (size_t)i * ETH_GSTRING_LEN;
        json_t *had = json_object_get(o, name);
        if (had != NULL) {
            json_integer_set(had, json_integer_value(had) + (json_int_t)delta);
        } else if (kept < HOSTCOUNT_CHANGED_MAX) {
            json_object_set_new(o, name, json_integer((json_int_t)delta));
            kept++;
        } else {
            more++;
        }
    }
    json_object_set_new(dev, "ethtool", o);
    if (more > 0)
        json_object_set_new(dev, "ethtool_more", json_integer((json_int_t)more));
}

static void
device_json(json_t *o, const struct hc_dev *d, bool absolute)
{
    static const struct netif_link zero;
    json_object_set_new(o, "driver", d->has_driver ? json_string(d->driver) : json_null());
    bool ok = d->link_ok[1] && (absolute || d->link_ok[0]);
    json_object_set_new(o, "link",
                        ok ? link_json(absolute ? &zero : &d->link[0], &d->link[1]) : json_null());
    ethtool_json(o, d, absolute ? NULL : d->val[0]);
}

static json_t *
lower_json(const struct hostcount *h, bool absolute)
{
    json_t *a = json_array();
    for (size_t i = 1; i < h->ndev; i++) {
        json_t *o = json_pack("{s:s}", "interface", h->dev[i].link[0].name);
        device_json(o, &h->dev[i], absolute);
        json_array_append_new(a, o);
    }
    return a;
}

static void
host_wide_json(json_t *o, const struct hostcount *h, bool absolute)
{
    static const struct hostcount_cpu no_cpu;
    bool cpu = h->cpu_ok[1] && (absolute || h->cpu_ok[0]);
    json_object_set_new(o, "cpu",
                        cpu ? cpu_json(absolute ? &no_cpu : &h->cpu[0], &h->cpu[1]) : json_null());
    const uint64_t *sn0 = absolute ? (const uint64_t[2]){0, 0} : h->softnet[0];
    json_t *sn = json_object();
    put_nonzero(sn, "dropped", (int64_t)(h->softnet[1][0] - sn0[0]));
    put_nonzero(sn, "time_squeeze", (int64_t)(h->softnet[1][1] - sn0[1]));
    bool sn_ok = h->softnet_ok[1] && (absolute || h->softnet_ok[0]);
    json_object_set_new(o, "softnet", sn_ok ? sn : json_null());
    if (!sn_ok)
        json_decref(sn);
    static const char *const udp_keys[3] = {"in_errors", "rcvbuf_errors", "sndbuf_errors"};
    json_t *u = json_object();
    for (int i = 0; i < 3; i++)
        put_nonzero(u, udp_keys[i], (int64_t)(h->udp[1][i] - (absolute ? 0 : h->udp[0][i])));
    bool u_ok = h->udp_ok[1] && (absolute || h->udp_ok[0]);
    json_object_set_new(o, "udp", u_ok ? u : json_null());
    if (!u_ok)
        json_decref(u);
}

json_t *
hostcount_json(const struct hostcount *h, bool absolute)
{
    json_t *o = json_object();
    if (o == NULL)
        return NULL;
    json_object_set_new(o, "interval_s",
                        absolute ? json_null()
                                 : json_real((double)(h->t_ns[1] - h->t_ns[0]) / 1e9));
    host_wide_json(o, h, absolute);
    if (!h->has_if) {
        json_object_set_new(o, "interface", json_null());
        return o;
    }
    json_object_set_new(o, "interface", json_string(h->dev[0].link[0].name));
    device_json(o, &h->dev[0], absolute);
    static const struct netif_qdisc no_q = {.has_stats = true};
    struct netif_qdisc q0 = h->q[0];
    if (absolute) {
        q0 = no_q;
        snprintf(q0.kind, sizeof q0.kind, "%s", h->q[1].kind);
    }
    json_object_set_new(o, "qdisc", qdisc_json(&q0, &h->q[1]));
    if (h->ndev > 1)
        json_object_set_new(o, "lower", lower_json(h, absolute));
    return o;
}

int
hostcount_main(const char *ifname, const char *address)
{
    char name[NETIF_NAME_MAX];
    if (address != NULL && !netif_of_address(address, name)) {
        fprintf(stderr, "nsperf: no interface holds %s\n", address);
        return 2;
    }
    if (address != NULL)
        ifname = name;
    if (ifname != NULL && if_nametoindex(ifname) == 0) {
        fprintf(stderr, "nsperf: no interface %s\n", ifname);
        return 2;
    }
    struct hostcount *h = hostcount_new(ifname);
    json_t *o = NULL;
    if (h != NULL) {
        hostcount_take(h, HOSTCOUNT_AFTER);
        o = hostcount_json(h, true);
    }
    hostcount_free(h);
    if (o == NULL) {
        fprintf(stderr, "nsperf: out of memory\n");
        return 1;
    }
    int rc = json_dumpf(o, stdout, JSON_COMPACT) == 0 && puts("") >= 0 ? 0 : 1;
    json_decref(o);
    return fflush(stdout) == 0 ? rc : 1;
}
