/* netif.h - what nsperf reads of a network interface through the kernel's own interfaces, no
 * shell command: which interface holds an address (getifaddrs), an rtnetlink dump (the links'
 * counters and masters, the root qdisc's kind and counters: what `ip -s link` and `tc -s qdisc`
 * print) and the NIC's driver and statistics by SIOCETHTOOL (what `ethtool -i` and
 * `ethtool -S` print). Everything is read in the caller's network namespace, which is the one
 * the test's sockets live in: that is why a link's counters come from rtnetlink (IFLA_STATS64,
 * the same numbers as /sys/class/net/IF/statistics) and its lower devices from IFLA_MASTER
 * (what /sys/class/net/IF/lower_* links show), since sysfs shows the devices of the namespace
 * that mounted it, which a process started inside another (ip netns exec without a remount, a
 * container) does not share. Only kernel UAPI headers are used, so it builds for every
 * architecture nsperf is made for. */
#ifndef NS_NSPERF_NETIF_H
#define NS_NSPERF_NETIF_H

#include <linux/netlink.h>
#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#define NETIF_NAME_MAX (IF_NAMESIZE + 1)
#define NETIF_DRIVER_MAX 32   /* struct ethtool_drvinfo's driver[] */
#define NETIF_LOWER_MAX 8     /* lower devices of one interface (a VF, bond slaves) kept */
#define NETIF_STATS_MAX 65536 /* ethtool statistics of one device read at most */

/* The interface holding address ss (exact match of an interface address; any of 127.0.0.0/8
 * is lo, which answers for all of it). False when no interface holds it. */
bool netif_of_sockaddr(const struct sockaddr_storage *ss, char name[NETIF_NAME_MAX]);
/* The same for a numeric address in text (NULL: false). */
bool netif_of_address(const char *address, char name[NETIF_NAME_MAX]);

/* One rtnetlink dump request of type (RTM_GETLINK, RTM_GETQDISC, RTM_GETROUTE) whose body
 * (body_len bytes: an ifinfomsg, tcmsg or rtmsg) follows the header; fn sees every message of
 * the answer. Returns false when the socket cannot be made or the dump fails. */
typedef void (*netif_msg_fn)(const struct nlmsghdr *nh, void *arg);
bool netif_dump(uint16_t type, const void *body, size_t body_len, netif_msg_fn fn, void *arg);

/* A link's counters (struct rtnl_link_stats64's, as /sys/class/net/IF/statistics shows them). */
enum netif_stat {
    NETIF_RX_BYTES,
    NETIF_TX_BYTES,
    NETIF_RX_PACKETS,
    NETIF_TX_PACKETS,
    NETIF_RX_ERRORS,
    NETIF_TX_ERRORS,
    NETIF_RX_DROPPED,
    NETIF_TX_DROPPED,
    NETIF_RX_OVER_ERRORS,
    NETIF_RX_FIFO_ERRORS,
    NETIF_RX_MISSED_ERRORS,
    NETIF_TX_FIFO_ERRORS,
    NETIF_TX_CARRIER_ERRORS,
    NETIF_RX_NOHANDLER,
    NETIF_STAT_COUNT
};
/* The counter's name as sysfs and the trial record spell it ("rx_dropped"). */
const char *netif_stat_name(enum netif_stat s);

struct netif_link {
    unsigned ifindex;
    char name[NETIF_NAME_MAX];
    uint64_t stat[NETIF_STAT_COUNT];
    bool has_stats;
};

/* The link ifindex and its lower devices (those whose master it is: the VF an Azure hv_netvsc
 * interface enslaves, a bond's slaves), from one RTM_GETLINK dump. *self is the link; lower
 * gets up to NETIF_LOWER_MAX others, *nlower how many. False when the link is not there. */
bool netif_links(unsigned ifindex, struct netif_link *self, struct netif_link *lower,
                 size_t *nlower);

/* The root qdisc of a link and its counters (`tc -s qdisc`'s): bytes and packets sent, drops,
 * overlimits and requeues (a multiqueue root such as mq sums its children's). found is false
 * when the link has no root qdisc entry (noqueue, the default of virtual devices). */
struct netif_qdisc {
    bool found, has_stats;
    char kind[32];
    uint64_t bytes, packets;
    uint32_t drops, overlimits, requeues;
};
bool netif_root_qdisc(unsigned ifindex, struct netif_qdisc *q);

/* The driver of interface name (ETHTOOL_GDRVINFO) into driver; false when the device has none
 * (lo) or SIOCETHTOOL fails. */
bool netif_driver(const char *name, char driver[NETIF_DRIVER_MAX]);

/* The names of a device's statistics (ETHTOOL_GSSET_INFO, ETHTOOL_GSTRINGS): *names holds n
 * NUL-terminated names of ETH_GSTRING_LEN bytes each (caller frees). Returns n (0 when the
 * driver has none), -1 on failure. */
int netif_stat_names(const char *name, char **names);
/* The values of the device's n statistics (ETHTOOL_GSTATS) into values[n]. False when the
 * count changed (the caller reads the names again) or the call fails. */
bool netif_stat_values(const char *name, uint32_t n, uint64_t *values);

#endif
