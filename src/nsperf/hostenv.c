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

#define HOSTENV_LINE_MAX 512
#define HOSTENV_NL_BUF 16384

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

/* The name of the interface holding address (exact match of an interface address). */
static bool
interface_of(const char *address, char *name, size_t len)
{
    struct sockaddr_storage want;
    socklen_t wlen;
    if (address == NULL || net_resolve(address, 0, AF_UNSPEC, SOCK_STREAM, 0, &want, &wlen, NULL))
        return false;
    struct ifaddrs *ifa = NULL;
    if (getifaddrs(&ifa) != 0)
        return false;
    bool found = false;
    for (struct ifaddrs *i = ifa; i != NULL && !found; i = i->ifa_next) {
        if (i->ifa_addr == NULL || i->ifa_addr->sa_family != want.ss_family)
            continue;
        if (want.ss_family == AF_INET) {
            const struct sockaddr_in *a = (const struct sockaddr_in *)(void *)i->ifa_addr;
            const struct sockaddr_in *b = (const struct sockaddr_in *)(void *)&want;
            found = a->sin_addr.s_addr == b->sin_addr.s_addr;
        } else if (want.ss_family == AF_INET6) {
            const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)(void *)i->ifa_addr;
            const struct sockaddr_in6 *b = (const struct sockaddr_in6 *)(void *)&want;
            found = memcmp(&a->sin6_addr, &b->sin6_addr, sizeof a->sin6_addr) == 0;
        }
        if (found)
            snprintf(name, len, "%s", i->ifa_name);
    }
    /* Linux answers on all of 127.0.0.0/8 through lo, though lo holds only 127.0.0.1. */
    if (!found && want.ss_family == AF_INET &&
        (ntohl(((const struct sockaddr_in *)(void *)&want)->sin_addr.s_addr) >> 24) == 127) {
        snprintf(name, len, "lo");
        found = true;
    }
    freeifaddrs(ifa);
    return found;
}

/* The kind of the root qdisc of interface ifindex, by an RTM_GETQDISC dump. */
static bool
root_qdisc(unsigned ifindex, char *kind, size_t len)
{
    int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
    if (fd < 0)
        return false;
    struct timeval tv = {.tv_sec = 2};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    struct {
        struct nlmsghdr nh;
        struct tcmsg tc;
    } req = {.nh = {.nlmsg_len = NLMSG_LENGTH(sizeof(struct tcmsg)),
                    .nlmsg_type = RTM_GETQDISC,
                    .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP,
                    .nlmsg_seq = 1},
             .tc = {.tcm_family = AF_UNSPEC}};
    bool found = false, done = false;
    if (send(fd, &req, req.nh.nlmsg_len, 0) < 0)
        done = true;
    static char buf[HOSTENV_NL_BUF] __attribute__((aligned(NLMSG_ALIGNTO)));
    while (!done) {
        ssize_t n = recv(fd, buf, sizeof buf, 0);
        if (n <= 0)
            break;
        size_t left = (size_t)n;
        for (struct nlmsghdr *nh = (struct nlmsghdr *)(void *)buf; NLMSG_OK(nh, left);
             nh = NLMSG_NEXT(nh, left)) {
            if (nh->nlmsg_type == NLMSG_DONE || nh->nlmsg_type == NLMSG_ERROR) {
                done = true;
                break;
            }
            const struct tcmsg *tc = NLMSG_DATA(nh);
            if (found || (unsigned)tc->tcm_ifindex != ifindex || tc->tcm_parent != TC_H_ROOT)
                continue;
            size_t alen = NLMSG_PAYLOAD(nh, sizeof *tc);
            for (struct rtattr *a =
                     (struct rtattr *)(void *)((char *)NLMSG_DATA(nh) + NLMSG_ALIGN(sizeof *tc));
                 RTA_OK(a, alen); a = RTA_NEXT(a, alen)) {
                if (a->rta_type == TCA_KIND) {
                    snprintf(kind, len, "%.*s", (int)RTA_PAYLOAD(a), (const char *)RTA_DATA(a));
                    found = true;
                }
            }
        }
    }
    close(fd);
    return found;
}

/* The main table's default route of family (AF_INET, AF_INET6) with the lowest metric, by an
 * RTM_GETROUTE dump: its output interface and gateway. False when there is none (or it is
 * multipath: no one interface). */
struct default_route {
    int ifindex;
    uint32_t metric;
    char gateway[INET6_ADDRSTRLEN];
};

static void
route_consider(struct nlmsghdr *nh, int family, struct default_route *best, bool *found)
{
    struct rtmsg *rt = NLMSG_DATA(nh); /* not const: the rtnetlink macros cast to char * */
    if (nh->nlmsg_type != RTM_NEWROUTE || rt->rtm_family != family || rt->rtm_dst_len != 0 ||
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
            inet_ntop(family, RTA_DATA(a), r.gateway, sizeof r.gateway);
    }
    if (table != RT_TABLE_MAIN || r.ifindex <= 0 || (*found && r.metric >= best->metric))
        return;
    *best = r;
    *found = true;
}

static bool
default_route_of(int family, struct default_route *out)
{
    int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
    if (fd < 0)
        return false;
    struct timeval tv = {.tv_sec = 2};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    struct {
        struct nlmsghdr nh;
        struct rtmsg rt;
    } req = {.nh = {.nlmsg_len = NLMSG_LENGTH(sizeof(struct rtmsg)),
                    .nlmsg_type = RTM_GETROUTE,
                    .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP,
                    .nlmsg_seq = 2},
             .rt = {.rtm_family = (unsigned char)family}};
    bool found = false, done = send(fd, &req, req.nh.nlmsg_len, 0) < 0;
    static char buf[HOSTENV_NL_BUF] __attribute__((aligned(NLMSG_ALIGNTO)));
    while (!done) {
        ssize_t n = recv(fd, buf, sizeof buf, 0);
        if (n <= 0)
            break;
        size_t left = (size_t)n;
        for (struct nlmsghdr *nh = (struct nlmsghdr *)(void *)buf; NLMSG_OK(nh, left);
             nh = NLMSG_NEXT(nh, left)) {
            if (nh->nlmsg_type == NLMSG_DONE || nh->nlmsg_type == NLMSG_ERROR) {
                done = true;
                break;
            }
            route_consider(nh, family, out, &found);
        }
    }
    close(fd);
    return found;
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

static void
add_interface(json_t *o, const char *address)
{
    char name[IF_NAMESIZE + 1], path[128], line[HOSTENV_LINE_MAX];
    if (!interface_of(address, name, sizeof name)) {
        json_object_set_new(o, "interface", json_null());
        json_object_set_new(o, "mtu", json_null());
        json_object_set_new(o, "qdisc", json_null());
        return;
    }
    json_object_set_new(o, "interface", json_string(name));
    snprintf(path, sizeof path, "/sys/class/net/%s/mtu", name);
    json_object_set_new(o, "mtu",
                        read_line_file(path, line, sizeof line) ? json_integer(atoll(line))
                                                                : json_null());
    unsigned idx = if_nametoindex(name);
    char kind[64];
    /* No root qdisc entry means the kernel's default for a virtual device: noqueue. */
    bool ok = idx != 0 && root_qdisc(idx, kind, sizeof kind);
    json_object_set_new(o, "qdisc", json_string(ok ? kind : "noqueue"));
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
