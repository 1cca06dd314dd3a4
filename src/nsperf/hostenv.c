/* hostenv.c - `nsperf env`: the host's environment as JSON, read from files and rtnetlink. */
#include "nsperf/hostenv.h"

#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <linux/netlink.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/sysinfo.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "common/net.h"
#include "nsperf/cloud.h"
#include "nsperf/netif.h"

#define HOSTENV_LINE_MAX 512

/* First line of a small file, trailing whitespace removed; false when unreadable. */
static bool
read_line_file(const char *path, char *buf, size_t len)
{
    FILE *f = fopen(path, "re");
    if (f == NULL)
        return false;
    bool ok = fgets(buf, (int)len, f) != NULL;
    fclose(f);
    if (!ok)
        return false;
    size_t n = strlen(buf);
    while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' ' || buf[n - 1] == '\t'))
        buf[--n] = '\0';
    return true;
}

/* The value of "key<sep>value" lines (os-release, cpuinfo), unquoted, into buf. */
static bool
find_key_value(const char *path, const char *key, char sep, char *buf, size_t len)
{
    FILE *f = fopen(path, "re");
    if (f == NULL)
        return false;
    char line[HOSTENV_LINE_MAX];
    size_t klen = strlen(key);
    bool found = false;
    while (!found && fgets(line, sizeof line, f) != NULL) {
        if (strncmp(line, key, klen) != 0)
            continue;
        char *v = line + klen;
        while (*v == ' ' || *v == '\t')
            v++;
        if (*v != sep)
            continue;
        v++;
        while (*v == ' ' || *v == '\t' || *v == '"')
            v++;
        size_t n = strcspn(v, "\"\n");
        v[n] = '\0';
        snprintf(buf, len, "%s", v);
        found = true;
    }
    fclose(f);
    return found;
}

static json_t *
str_or_null(bool ok, const char *s)
{
    return ok ? json_string(s) : json_null();
}

/* The main table's default route of family (AF_INET, AF_INET6) with the lowest metric, by an
 * RTM_GETROUTE dump: its output interface and gateway. False when there is none (or it is
 * multipath: no one interface). */
struct default_route {
    int ifindex;
    uint32_t metric;
    char gateway[INET6_ADDRSTRLEN];
};

struct route_ctx {
    int family;
    struct default_route *best;
    bool found;
};

static void
route_consider(const struct nlmsghdr *nh, void *arg)
{
    struct route_ctx *c = arg;
    /* not const: the rtnetlink macros cast to char * */
    struct rtmsg *rt = NLMSG_DATA((struct nlmsghdr *)(uintptr_t)nh);
    if (nh->nlmsg_type != RTM_NEWROUTE || rt->rtm_family != c->family || rt->rtm_dst_len != 0 ||
        rt->rtm_type != RTN_UNICAST)
        return;
    struct default_route r = {.ifindex = 0};
    uint32_t table = rt->rtm_table;
    size_t alen = RTM_PAYLOAD(nh);
    for (struct rtattr *a = RTM_RTA(rt); RTA_OK(a, alen); a = RTA_NEXT(a, alen)) {
        if (a->rta_type == RTA_OIF && RTA_PAYLOAD(a) >= sizeof(int))
            memcpy(&r.ifindex, RTA_DATA(a), sizeof(int));
        else if (a->rta_type == RTA_PRIORITY && RTA_PAYLOAD(a) >= sizeof(uint32_t))
            memcpy(&r.metric, RTA_DATA(a), sizeof(uint32_t));
        else if (a->rta_type == RTA_TABLE && RTA_PAYLOAD(a) >= sizeof(uint32_t))
            memcpy(&table, RTA_DATA(a), sizeof(uint32_t));
        else if (a->rta_type == RTA_GATEWAY)
            inet_ntop(c->family, RTA_DATA(a), r.gateway, sizeof r.gateway);
    }
    if (table != RT_TABLE_MAIN || r.ifindex <= 0 || (c->found && r.metric >= c->best->metric))
        return;
    *c->best = r;
    c->found = true;
}

static bool
default_route_of(int family, struct default_route *out)
{
    struct rtmsg rt = {.rtm_family = (unsigned char)family};
    struct route_ctx c = {.family = family, .best = out};
    netif_dump(RTM_GETROUTE, &rt, sizeof rt, route_consider, &c); /* what came, if cut short */
    return c.found;
}

/* The addresses of interface name in family, as text: IPv4 labels ("eth0:1") count as the
 * interface; IPv6 link-local ones do not (they need a scope to be used). */
static json_t *
interface_addresses(const char *name, int family)
{
    json_t *a = json_array();
    struct ifaddrs *ifa = NULL;
    if (a == NULL || getifaddrs(&ifa) != 0)
        return a;
    size_t nlen = strlen(name);
    for (struct ifaddrs *i = ifa; i != NULL; i = i->ifa_next) {
        if (i->ifa_addr == NULL || i->ifa_addr->sa_family != family ||
            strncmp(i->ifa_name, name, nlen) != 0 ||
            (i->ifa_name[nlen] != '\0' && i->ifa_name[nlen] != ':'))
            continue;
        char text[INET6_ADDRSTRLEN];
        const void *bin;
        if (family == AF_INET6) {
            const struct in6_addr *v6 =
                &((const struct sockaddr_in6 *)(void *)i->ifa_addr)->sin6_addr;
            if (IN6_IS_ADDR_LINKLOCAL(v6))
                continue;
            bin = v6;
        } else {
            bin = &((const struct sockaddr_in *)(void *)i->ifa_addr)->sin_addr;
        }
        if (inet_ntop(family, bin, text, sizeof text) != NULL)
            json_array_append_new(a, json_string(text));
    }
    freeifaddrs(ifa);
    return a;
}

/* "default_route": the interface of the default route (IPv4's, else IPv6's) and the addresses
 * it holds, from which a survey learns a host's data address when the plan names none; null
 * when the host has no default route. */
static void
add_default_route(json_t *o)
{
    static const int families[] = {AF_INET, AF_INET6};
    for (size_t i = 0; i < sizeof families / sizeof families[0]; i++) {
        struct default_route r;
        char name[IF_NAMESIZE + 1];
        if (!default_route_of(families[i], &r) || if_indextoname((unsigned)r.ifindex, name) == NULL)
            continue;
        json_object_set_new(o, "default_route",
                            json_pack("{s:s, s:s, s:s?, s:o}", "family",
                                      families[i] == AF_INET ? "ipv4" : "ipv6", "interface", name,
                                      "gateway", r.gateway[0] != '\0' ? r.gateway : NULL,
                                      "addresses", interface_addresses(name, families[i])));
        return;
    }
    json_object_set_new(o, "default_route", json_null());
}

/* "cpufreq": the frequency governor and its bounds (cpufreq's scaling_governor, scaling_driver,
 * scaling_min_freq and scaling_max_freq of cpu0, in kHz): a VM whose governor lets its clock
 * fall between packets answers a ping-pong more slowly. Null without cpufreq (most cloud VMs:
 * the hypervisor owns the clock). */
static void
add_cpufreq(json_t *o)
{
    static const char dir[] = "/sys/devices/system/cpu/cpu0/cpufreq/";
    static const struct {
        const char *file, *key;
        bool number;
    } f[] = {{"scaling_governor", "governor", false},
             {"scaling_driver", "driver", false},
             {"scaling_min_freq", "min_khz", true},
             {"scaling_max_freq", "max_khz", true}};
    json_t *c = json_object();
    size_t read = 0;
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
        char path[128], line[HOSTENV_LINE_MAX];
        snprintf(path, sizeof path, "%s%s", dir, f[i].file);
        bool ok = read_line_file(path, line, sizeof line);
        read += ok;
        json_object_set_new(c, f[i].key,
                            !ok           ? json_null()
                            : f[i].number ? json_integer(atoll(line))
                                          : json_string(line));
    }
    if (read == 0) {
        json_decref(c);
        c = json_null();
    }
    json_object_set_new(o, "cpufreq", c);
}

static void
add_interface(json_t *o, const char *address)
{
    char name[NETIF_NAME_MAX], path[128], line[HOSTENV_LINE_MAX];
    if (!netif_of_address(address, name)) {
        json_object_set_new(o, "interface", json_null());
        json_object_set_new(o, "mtu", json_null());
        json_object_set_new(o, "qdisc", json_null());
        json_object_set_new(o, "driver", json_null());
        return;
    }
    json_object_set_new(o, "interface", json_string(name));
    char driver[NETIF_DRIVER_MAX];
    json_object_set_new(o, "driver",
                        netif_driver(name, driver) ? json_string(driver) : json_null());
    snprintf(path, sizeof path, "/sys/class/net/%s/mtu", name);
    json_object_set_new(o, "mtu",
                        read_line_file(path, line, sizeof line) ? json_integer(atoll(line))
                                                                : json_null());
    struct netif_qdisc q;
    /* No root qdisc entry means the kernel's default for a virtual device: noqueue. */
    bool ok = netif_root_qdisc(if_nametoindex(name), &q);
    json_object_set_new(o, "qdisc", json_string(ok ? q.kind : "noqueue"));
}

json_t *
hostenv_collect(const char *address, enum cloud_mode cloud, int cloud_budget_ms)
{
    json_t *o = json_object();
    if (o == NULL)
        return NULL;
    struct utsname u;
    bool have_uname = uname(&u) == 0;
    char buf[HOSTENV_LINE_MAX];
    json_object_set_new(o, "hostname", str_or_null(have_uname, u.nodename));
    json_object_set_new(o, "kernel", str_or_null(have_uname, u.release));
    json_object_set_new(o, "machine", str_or_null(have_uname, u.machine));
    bool ok = find_key_value("/etc/os-release", "PRETTY_NAME", '=', buf, sizeof buf);
    json_object_set_new(o, "os", str_or_null(ok, buf));
    ok = find_key_value("/proc/cpuinfo", "model name", ':', buf, sizeof buf);
    json_object_set_new(o, "cpu_model", str_or_null(ok, buf));
    json_object_set_new(o, "cpus", json_integer(sysconf(_SC_NPROCESSORS_ONLN)));
    add_cpufreq(o);
    struct sysinfo si;
    json_object_set_new(o, "mem_bytes",
                        sysinfo(&si) == 0 ? json_integer((json_int_t)si.totalram * si.mem_unit)
                                          : json_null());
    add_interface(o, address);
    add_default_route(o);
    ok = read_line_file("/proc/sys/net/ipv4/tcp_congestion_control", buf, sizeof buf);
    json_object_set_new(o, "tcp_cc", str_or_null(ok, buf));
    ok = read_line_file("/sys/devices/system/clocksource/clocksource0/current_clocksource", buf,
                        sizeof buf);
    json_object_set_new(o, "clocksource", str_or_null(ok, buf));
    json_object_set_new(o, "nsperf_version", json_string(NS_VERSION));
    json_object_set_new(o, "cloud", cloud_collect(cloud, cloud_budget_ms));
    return o;
}

/* A budget in milliseconds, 1..CLOUD_BUDGET_MAX_MS. */
static bool
budget_parse(const char *s, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0' || v < 1 || v > CLOUD_BUDGET_MAX_MS)
        return false;
    *out = (int)v;
    return true;
}

int
hostenv_main(const char *address, const char *cloud, const char *cloud_budget)
{
    /* NSPERF_CLOUD and NSPERF_CLOUD_BUDGET_MS are how a caller that cannot add a flag (a
     * survey's local hosts, a test) chooses; the flags win. */
    const char *mode_text = cloud != NULL ? cloud : getenv("NSPERF_CLOUD");
    const char *budget_text =
        cloud_budget != NULL ? cloud_budget : getenv("NSPERF_CLOUD_BUDGET_MS");
    const char *mode_from = cloud != NULL ? "--cloud" : "NSPERF_CLOUD";
    const char *budget_from = cloud_budget != NULL ? "--cloud-budget" : "NSPERF_CLOUD_BUDGET_MS";
    enum cloud_mode mode = CLOUD_MODE_AUTO;
    int budget = CLOUD_BUDGET_MS;
    if (mode_text != NULL && (cloud != NULL || *mode_text != '\0') &&
        !cloud_mode_parse(mode_text, &mode)) {
        fprintf(stderr, "nsperf env: %s: expected auto, probe or off, not '%s'\n", mode_from,
                mode_text);
        return 2;
    }
    if (budget_text != NULL && (cloud_budget != NULL || *budget_text != '\0') &&
        !budget_parse(budget_text, &budget)) {
        fprintf(stderr, "nsperf env: %s: expected 1..%d (milliseconds), not '%s'\n", budget_from,
                CLOUD_BUDGET_MAX_MS, budget_text);
        return 2;
    }
    json_t *o = hostenv_collect(address, mode, budget);
    if (o == NULL) {
        fprintf(stderr, "nsperf: out of memory\n");
        return 1;
    }
    int rc = json_dumpf(o, stdout, JSON_COMPACT) == 0 && puts("") >= 0 ? 0 : 1;
    json_decref(o);
    return fflush(stdout) == 0 ? rc : 1;
}
