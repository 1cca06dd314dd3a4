/* hostcount.h - what the host did to a trial, counted by each end over its measured interval:
 * the counters a network engineer reads by hand when a figure looks odd (/proc/stat's steal and
 * softirq, `ip -s link`, `tc -s qdisc`, /proc/net/softnet_stat, the UDP sockets' buffer errors,
 * `ethtool -S`), read from files, rtnetlink and SIOCETHTOOL (netif.h) before and after, and
 * reported as the deltas, only those that changed where a device has many.
 *
 * The deltas as JSON (one end's "counters" in nsperf -J and in the trial record; the README's
 * section on nsperf -J names each member):
 *   {"interval_s": seconds between the two snapshots,
 *    "cpu": {"cpus", "ticks" (all CPUs' clock ticks), "busy", "softirq", "steal",
 *            "steal_max" (the most steal ticks of any one CPU)},
 *    "softnet": {"dropped", "time_squeeze"}, "udp": {"in_errors", "rcvbuf_errors",
 *            "sndbuf_errors"} (IPv4 and IPv6 together; zeros left out),
 *    "interface": the data interface (null: none, only the host-wide counters),
 *    "driver": its driver (ETHTOOL_GDRVINFO; null: none, as lo),
 *    "link": {rtnl_link_stats64's counters that changed: "rx_bytes", "tx_dropped", ...},
 *    "qdisc": {"kind", and "bytes", "packets", "drops", "overlimits", "requeues" that changed}
 *             (null: no root qdisc, noqueue),
 *    "ethtool": {every NIC statistic that changed: its delta},
 *    "lower": [{"interface", "driver", "link", "ethtool"}] the devices it is master of (the VF of
 *             an Azure accelerated interface), absent when none}
 * A counter that cannot be read is absent; an object that cannot be read at all is null. */
#ifndef NS_NSPERF_HOSTCOUNT_H
#define NS_NSPERF_HOSTCOUNT_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/socket.h>

/* NIC statistics that changed, kept per device at most (a multiqueue NIC has thousands, a few
 * hundred of which change in a busy trial); the number left out is "ethtool_more". */
#define HOSTCOUNT_CHANGED_MAX 512

struct hostcount;

/* Counters of interface ifname (NULL or unknown: the host-wide ones only). Reads the device's
 * driver, lower devices and statistic names now, so that the snapshots read only values.
 * NULL only without memory. */
struct hostcount *hostcount_new(const char *ifname);
/* The interface holding the local address of socket fd (getsockname): the data interface of
 * a test whose connections leave from it. */
struct hostcount *hostcount_new_for_socket(int fd);
/* hostcount_free(NULL) is safe. */
void hostcount_free(struct hostcount *h);

enum hostcount_when { HOSTCOUNT_BEFORE, HOSTCOUNT_AFTER };
/* Take the snapshot now (h NULL: nothing). */
void hostcount_take(struct hostcount *h, enum hostcount_when when);

/* After - before (new reference; NULL without memory). With absolute, the "after" snapshot's
 * values since boot instead (interval_s null): `nsperf counters`. */
json_t *hostcount_json(const struct hostcount *h, bool absolute);

/* `nsperf counters`: the absolute counters of the interface named ifname, or holding address
 * (at most one given; neither: the host's alone), printed as one JSON object and a newline.
 * Returns an exit status (0; 1 out of memory; 2 no such interface). main.c parses the flags. */
int hostcount_main(const char *ifname, const char *address);

/* --- the files' readers (from a stream, so that a test can hand them a text) ---------------- */

/* /proc/stat's CPU lines: the totals of all CPUs, and each CPU's steal. */
struct hostcount_cpu {
    uint64_t ticks, busy, softirq, steal;
    size_t ncpu, cap;
    uint64_t *cpu_steal; /* ncpu, in the file's order (owned) */
};
bool hostcount_read_stat(FILE *f, struct hostcount_cpu *c);
void hostcount_cpu_release(struct hostcount_cpu *c);
/* /proc/net/softnet_stat: the dropped and time_squeeze columns summed over its CPUs. */
bool hostcount_read_softnet(FILE *f, uint64_t *dropped, uint64_t *time_squeeze);
/* The UDP buffer errors: IPv4's from /proc/net/snmp ("Udp:" lines) or IPv6's from
 * /proc/net/snmp6 ("Udp6InErrors N" lines), added to v[3] = {in_errors, rcvbuf_errors,
 * sndbuf_errors}. False when the file holds none of them. */
bool hostcount_read_snmp(FILE *f, uint64_t v[3]);
bool hostcount_read_snmp6(FILE *f, uint64_t v[3]);

#endif
