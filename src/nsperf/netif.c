/* netif.c - interfaces, their counters and their root qdisc by getifaddrs, rtnetlink and
 * SIOCETHTOOL (see netif.h). */
#include "nsperf/netif.h"

#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <linux/ethtool.h>
#include <linux/gen_stats.h>
#include <linux/if_link.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <linux/sockios.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/time.h>
#include <unistd.h>

#include "common/net.h"

#define NETIF_NL_BUF 32768
#define NETIF_NL_TIMEOUT_S 2

/* ---- which interface holds an address ---- */

/* An IPv4-mapped IPv6 address (a dual-stack socket's view of an IPv4 peer) as the IPv4 one. */
static void
unmap_v4(const struct sockaddr_storage *in, struct sockaddr_storage *out)
{
    *out = *in;
    const struct sockaddr_in6 *a6 = (const struct sockaddr_in6 *)(const void *)in;
    if (in->ss_family != AF_INET6 || !IN6_IS_ADDR_V4MAPPED(&a6->sin6_addr))
        return;
    struct sockaddr_in *a4 = (struct sockaddr_in *)(void *)out;
    memset(out, 0, sizeof *out);
    a4->sin_family = AF_INET;
    memcpy(&a4->sin_addr, &a6->sin6_addr.s6_addr[12], 4);
}

static bool
same_address(const struct sockaddr *a, const struct sockaddr_storage *want)
{
    if (a == NULL || a->sa_family != want->ss_family)
        return false;
    if (want->ss_family == AF_INET)
        return ((const struct sockaddr_in *)(const void *)a)->sin_addr.s_addr ==
               ((const struct sockaddr_in *)(const void *)want)->sin_addr.s_addr;
    if (want->ss_family == AF_INET6)
        return memcmp(&((const struct sockaddr_in6 *)(const void *)a)->sin6_addr,
                      &((const struct sockaddr_in6 *)(const void *)want)->sin6_addr,
                      sizeof(struct in6_addr)) == 0;
    return false;
}

bool
netif_of_sockaddr(const struct sockaddr_storage *ss, char name[NETIF_NAME_MAX])
{
    struct sockaddr_storage want;
    unmap_v4(ss, &want);
    struct ifaddrs *ifa = NULL;
    if (getifaddrs(&ifa) != 0)
        return false;
    bool found = false;
    for (struct ifaddrs *i = ifa; i != NULL && !found; i = i->ifa_next) {
        found = same_address(i->ifa_addr, &want);
        /* An IPv4 label ("eth0:1") is the interface before its colon. */
        if (found)
            snprintf(name, NETIF_NAME_MAX, "%.*s", (int)strcspn(i->ifa_name, ":"), i->ifa_name);
    }
    freeifaddrs(ifa);
    /* Linux answers on all of 127.0.0.0/8 through lo, though lo holds only 127.0.0.1. */
    if (!found && want.ss_family == AF_INET &&
        (ntohl(((const struct sockaddr_in *)(void *)&want)->sin_addr.s_addr) >> 24) == 127) {
        snprintf(name, NETIF_NAME_MAX, "lo");
        found = true;
    }
    return found;
}

bool
netif_of_address(const char *address, char name[NETIF_NAME_MAX])
{
    struct sockaddr_storage want;
    socklen_t wlen;
    if (address == NULL || net_resolve(address, 0, AF_UNSPEC, SOCK_STREAM, 0, &want, &wlen, NULL))
        return false;
    return netif_of_sockaddr(&want, name);
}

/* ---- rtnetlink ---- */

bool
netif_dump(uint16_t type, const void *body, size_t body_len, netif_msg_fn fn, void *arg)
{
    int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
    if (fd < 0)
        return false;
    struct timeval tv = {.tv_sec = NETIF_NL_TIMEOUT_S};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    struct {
        struct nlmsghdr nh;
        char body[64];
    } req;
    memset(&req, 0, sizeof req);
    if (body_len > sizeof req.body) {
        close(fd);
        return false;
    }
    req.nh.nlmsg_len = (uint32_t)NLMSG_LENGTH(body_len);
    req.nh.nlmsg_type = type;
    req.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
    req.nh.nlmsg_seq = 1;
    memcpy(req.body, body, body_len);
    bool ok = send(fd, &req, req.nh.nlmsg_len, 0) >= 0, done = !ok;
    /* On the heap, not static: a server's sessions may read at once. */
    char *buf = done ? NULL : aligned_alloc(NLMSG_ALIGNTO, NETIF_NL_BUF);
    ok = ok && buf != NULL;
    while (ok && !done) {
        ssize_t n = recv(fd, buf, NETIF_NL_BUF, 0);
        if (n <= 0) {
            ok = n < 0 && errno == EINTR;
            continue;
        }
        size_t left = (size_t)n;
        for (struct nlmsghdr *nh = (struct nlmsghdr *)(void *)buf; NLMSG_OK(nh, left);
             nh = NLMSG_NEXT(nh, left)) {
            if (nh->nlmsg_type == NLMSG_DONE || nh->nlmsg_type == NLMSG_ERROR) {
                ok = nh->nlmsg_type == NLMSG_DONE;
                done = true;
                break;
            }
            fn(nh, arg);
        }
    }
    free(buf);
    close(fd);
    return ok;
}

/* struct rtnl_link_stats64's members in enum netif_stat's order (its layout is the UAPI's; a
 * kernel older than a member sends a shorter one, read as far as it goes). */
static const struct {
    const char *name;
    size_t offset;
} stat_fields[NETIF_STAT_COUNT] = {
#define F(e, m) [e] = {#m, offsetof(struct rtnl_link_stats64, m)}
    F(NETIF_RX_BYTES, rx_bytes),
    F(NETIF_TX_BYTES, tx_bytes),
    F(NETIF_RX_PACKETS, rx_packets),
    F(NETIF_TX_PACKETS, tx_packets),
    F(NETIF_RX_ERRORS, rx_errors),
    F(NETIF_TX_ERRORS, tx_errors),
    F(NETIF_RX_DROPPED, rx_dropped),
    F(NETIF_TX_DROPPED, tx_dropped),
    F(NETIF_RX_OVER_ERRORS, rx_over_errors),
    F(NETIF_RX_FIFO_ERRORS, rx_fifo_errors),
    F(NETIF_RX_MISSED_ERRORS, rx_missed_errors),
    F(NETIF_TX_FIFO_ERRORS, tx_fifo_errors),
    F(NETIF_TX_CARRIER_ERRORS, tx_carrier_errors),
    F(NETIF_RX_NOHANDLER, rx_nohandler),
#undef F
};

const char *
netif_stat_name(enum netif_stat s)
{
    return (int)s >= 0 && s < NETIF_STAT_COUNT ? stat_fields[s].name : NULL;
}

struct links_ctx {
    unsigned ifindex;
    struct netif_link *self, *lower;
    size_t nlower;
    bool found;
};

static void
link_stats(struct rtattr *a, struct netif_link *l)
{
    unsigned char raw[sizeof(struct rtnl_link_stats64)] = {0};
    size_t n = RTA_PAYLOAD(a) < sizeof raw ? RTA_PAYLOAD(a) : sizeof raw;
    memcpy(raw, RTA_DATA(a), n);
    for (int i = 0; i < NETIF_STAT_COUNT; i++)
        if (stat_fields[i].offset + sizeof(uint64_t) <= n)
            memcpy(&l->stat[i], raw + stat_fields[i].offset, sizeof(uint64_t));
    l->has_stats = true;
}

static void
link_msg(const struct nlmsghdr *cnh, void *arg)
{
    struct links_ctx *c = arg;
    /* the rtnetlink macros take and return pointers without const (as hostenv.c) */
    struct nlmsghdr *nh = (struct nlmsghdr *)(uintptr_t)cnh;
    if (nh->nlmsg_type != RTM_NEWLINK || nh->nlmsg_len < NLMSG_LENGTH(sizeof(struct ifinfomsg)))
        return;
    struct ifinfomsg *ifi = NLMSG_DATA(nh);
    struct netif_link l = {.ifindex = (unsigned)ifi->ifi_index};
    unsigned master = 0;
    size_t alen = NLMSG_PAYLOAD(nh, sizeof *ifi);
    for (struct rtattr *a = (struct rtattr *)(void *)((char *)ifi + NLMSG_ALIGN(sizeof *ifi));
         RTA_OK(a, alen); a = RTA_NEXT(a, alen)) {
        if (a->rta_type == IFLA_IFNAME)
            snprintf(l.name, sizeof l.name, "%.*s", (int)RTA_PAYLOAD(a), (const char *)RTA_DATA(a));
        else if (a->rta_type == IFLA_MASTER && RTA_PAYLOAD(a) >= sizeof(uint32_t))
            memcpy(&master, RTA_DATA(a), sizeof master);
        else if (a->rta_type == IFLA_STATS64)
            link_stats(a, &l);
    }
    if (l.ifindex == c->ifindex) {
        *c->self = l;
        c->found = true;
    } else if (master == c->ifindex && master != 0 && c->nlower < NETIF_LOWER_MAX) {
        c->lower[c->nlower++] = l;
    }
}

bool
netif_links(unsigned ifindex, struct netif_link *self, struct netif_link *lower, size_t *nlower)
{
    struct ifinfomsg ifi = {.ifi_family = AF_UNSPEC};
    struct links_ctx c = {.ifindex = ifindex, .self = self, .lower = lower};
    bool ok = ifindex != 0 && netif_dump(RTM_GETLINK, &ifi, sizeof ifi, link_msg, &c) && c.found;
    *nlower = ok ? c.nlower : 0;
    return ok;
}

struct qdisc_ctx {
    unsigned ifindex;
    struct netif_qdisc *q;
};

/* TCA_STATS2's nested TCA_STATS_BASIC and TCA_STATS_QUEUE. */
static void
qdisc_stats2(struct rtattr *nest, struct netif_qdisc *q)
{
    size_t alen = RTA_PAYLOAD(nest);
    for (struct rtattr *a = RTA_DATA(nest); RTA_OK(a, alen); a = RTA_NEXT(a, alen)) {
        if (a->rta_type == TCA_STATS_BASIC && RTA_PAYLOAD(a) >= 12) {
            struct gnet_stats_basic b = {0};
            memcpy(&b, RTA_DATA(a), RTA_PAYLOAD(a) < sizeof b ? RTA_PAYLOAD(a) : sizeof b);
            q->bytes = b.bytes;
            q->packets = b.packets;
            q->has_stats = true;
        } else if (a->rta_type == TCA_STATS_QUEUE &&
                   RTA_PAYLOAD(a) >= sizeof(struct gnet_stats_queue)) {
            struct gnet_stats_queue s;
            memcpy(&s, RTA_DATA(a), sizeof s);
            q->drops = s.drops;
            q->overlimits = s.overlimits;
            q->requeues = s.requeues;
            q->has_stats = true;
        }
    }
}

static void
qdisc_msg(const struct nlmsghdr *cnh, void *arg)
{
    struct qdisc_ctx *c = arg;
    struct nlmsghdr *nh = (struct nlmsghdr *)(uintptr_t)cnh; /* as link_msg */
    if (nh->nlmsg_type != RTM_NEWQDISC || nh->nlmsg_len < NLMSG_LENGTH(sizeof(struct tcmsg)))
        return;
    struct tcmsg *tc = NLMSG_DATA(nh);
    if (c->q->found || (unsigned)tc->tcm_ifindex != c->ifindex || tc->tcm_parent != TC_H_ROOT)
        return;
    struct netif_qdisc q = {.found = true};
    bool stats2 = false;
    size_t alen = NLMSG_PAYLOAD(nh, sizeof *tc);
    for (struct rtattr *a = (struct rtattr *)(void *)((char *)tc + NLMSG_ALIGN(sizeof *tc));
         RTA_OK(a, alen); a = RTA_NEXT(a, alen)) {
        if (a->rta_type == TCA_KIND) {
            snprintf(q.kind, sizeof q.kind, "%.*s", (int)RTA_PAYLOAD(a), (const char *)RTA_DATA(a));
        } else if (a->rta_type == TCA_STATS2) {
            qdisc_stats2(a, &q);
            stats2 = true;
        } else if (a->rta_type == TCA_STATS && !stats2 &&
                   RTA_PAYLOAD(a) >= sizeof(struct tc_stats)) {
            struct tc_stats s; /* what a kernel without TCA_STATS2 sends */
            memcpy(&s, RTA_DATA(a), sizeof s);
            q.bytes = s.bytes;
            q.packets = s.packets;
            q.drops = s.drops;
            q.overlimits = s.overlimits;
            q.has_stats = true;
        }
    }
    *c->q = q;
}

bool
netif_root_qdisc(unsigned ifindex, struct netif_qdisc *q)
{
    memset(q, 0, sizeof *q);
    struct tcmsg tc = {.tcm_family = AF_UNSPEC};
    struct qdisc_ctx c = {.ifindex = ifindex, .q = q};
    if (ifindex != 0)
        netif_dump(RTM_GETQDISC, &tc, sizeof tc, qdisc_msg, &c); /* what came, if cut short */
    return q->found;
}

/* ---- SIOCETHTOOL ---- */

static bool
ethtool_call(const char *name, void *cmd)
{
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        fd = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0); /* a host without IPv4 */
    if (fd < 0)
        return false;
    struct ifreq ifr;
    memset(&ifr, 0, sizeof ifr);
    snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "%s", name);
    ifr.ifr_data = cmd;
    bool ok = ioctl(fd, SIOCETHTOOL, &ifr) == 0;
    close(fd);
    return ok;
}

bool
netif_driver(const char *name, char driver[NETIF_DRIVER_MAX])
{
    struct ethtool_drvinfo di;
    memset(&di, 0, sizeof di);
    di.cmd = ETHTOOL_GDRVINFO;
    if (!ethtool_call(name, &di) || di.driver[0] == '\0')
        return false;
    snprintf(driver, NETIF_DRIVER_MAX, "%.*s", (int)sizeof di.driver, di.driver);
    return true;
}

/* How many statistics the device has (ETH_SS_STATS), by GSSET_INFO, else GDRVINFO's n_stats. */
static int
stat_count(const char *name)
{
    /* struct ethtool_sset_info and the one count it returns for the one set asked */
    uint64_t buf[(sizeof(struct ethtool_sset_info) + sizeof(uint32_t) + 7) / 8] = {0};
    struct ethtool_sset_info *si = (struct ethtool_sset_info *)(void *)buf;
    si->cmd = ETHTOOL_GSSET_INFO;
    si->sset_mask = 1ull << ETH_SS_STATS;
    if (ethtool_call(name, si))
        return (si->sset_mask & (1ull << ETH_SS_STATS)) ? (int)si->data[0] : 0;
    struct ethtool_drvinfo di;
    memset(&di, 0, sizeof di);
    di.cmd = ETHTOOL_GDRVINFO;
    return ethtool_call(name, &di) ? (int)di.n_stats : -1;
}

/* The kernel fills GSTRINGS and GSTATS with as many entries as the device has when it answers,
 * whatever count the caller gave: room for twice the count read just before, so that a device
 * that grew in between (queues added) cannot write past the buffer; the answer is then refused
 * by its count. */
#define NETIF_ROOM(n) (2 * (size_t)(n))

int
netif_stat_names(const char *name, char **names)
{
    *names = NULL;
    int n = stat_count(name);
    if (n <= 0 || n > NETIF_STATS_MAX)
        return n < 0 ? -1 : 0;
    struct ethtool_gstrings *gs = calloc(1, sizeof *gs + NETIF_ROOM(n) * ETH_GSTRING_LEN);
    if (gs == NULL)
        return -1;
    gs->cmd = ETHTOOL_GSTRINGS;
    gs->string_set = ETH_SS_STATS;
    gs->len = (uint32_t)n;
    if (!ethtool_call(name, gs) || gs->len != (uint32_t)n) {
        free(gs);
        return -1;
    }
    char *out = malloc((size_t)n * ETH_GSTRING_LEN);
    if (out != NULL) {
        memcpy(out, gs->data, (size_t)n * ETH_GSTRING_LEN);
        for (int i = 0; i < n; i++) /* a full-length name carries no NUL of its own */
            out[(size_t)i * ETH_GSTRING_LEN + ETH_GSTRING_LEN - 1] = '\0';
    }
    free(gs);
    *names = out;
    return out != NULL ? n : -1;
}

bool
netif_stat_values(const char *name, uint32_t n, uint64_t *values)
{
    if (n == 0 || n > NETIF_STATS_MAX || stat_count(name) != (int)n)
        return false;
    struct ethtool_stats *st = calloc(1, sizeof *st + NETIF_ROOM(n) * sizeof(uint64_t));
    if (st == NULL)
        return false;
    st->cmd = ETHTOOL_GSTATS;
    st->n_stats = n;
    bool ok = ethtool_call(name, st) && st->n_stats == n;
    if (ok)
        memcpy(values, st->data, (size_t)n * sizeof(uint64_t));
    free(st);
    return ok;
}
