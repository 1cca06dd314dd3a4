/* test_hostcount: nsperf's host counters (src/nsperf/hostcount.h, netif.h) against the real
 * kernel, each against an oracle that reads the same thing another way:
 *  - /proc/stat and /proc/net/softnet_stat of this machine: each count read by a parser of the
 *    test's own between two snapshots lies between them (the counters only grow);
 *  - in a network namespace of the test's own (root), where nothing else sends:
 *    - a tbf qdisc on lo that drops a burst of UDP datagrams: the root qdisc's drops and the UDP
 *      SndbufErrors nsperf records equal what `tc -s qdisc` counted, and the packets what lo
 *      counted;
 *    - a veth pair with an XDP program on one end (so that veth counts per-queue statistics)
 *      and frames sent into the other by a packet socket: the driver is what `ethtool -i` says
 *      and every statistic that changed is what `ethtool -S` shows changed, by the same amount;
 *    - a bridge over that veth: its lower device is found, with its driver and counters.
 * The file parsers are also held to fixed texts (a long intr line, IPv6's counters). */
#include <errno.h>
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/if_link.h>
#include <linux/if_packet.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <jansson.h>
#include <cmocka.h>

#include "nsperf/hostcount.h"
#include "nsperf/netif.h"

/* ---- the parsers on fixed texts ---- */

static FILE *
text(const char *s)
{
    FILE *f = fmemopen((void *)(uintptr_t)s, strlen(s), "r");
    assert_non_null(f);
    return f;
}

static void
test_stat_text(void **state)
{
    (void)state;
    /* An intr line longer than the reader's buffer, and in it "cpu" after a chunk's end. */
    char *s = malloc(20000);
    assert_non_null(s);
    strcpy(s, "cpu  100 5 50 1000 7 3 11 13 0 0\n"
              "cpu0 60 5 30 500 4 2 6 9 0 0\n"
              "cpu1 40 0 20 500 3 1 5 4 0 0\n"
              "intr 12345");
    size_t n = strlen(s);
    while (n < 19000)
        n += (size_t)sprintf(s + n, " 0");
    strcpy(s + 4094 - 1, "\ncpu9 1 1 1 1 1 1 1 999\n"); /* not at a line's start: inside intr */
    s[4093] = ' ';
    strcat(s, "ctxt 5\n");
    FILE *f = text(s);
    struct hostcount_cpu c;
    assert_true(hostcount_read_stat(f, &c));
    fclose(f);
    free(s);
    assert_int_equal(c.ticks, 100 + 5 + 50 + 1000 + 7 + 3 + 11 + 13);
    assert_int_equal(c.busy, 100 + 5 + 50 + 3 + 11 + 13);
    assert_int_equal(c.softirq, 11);
    assert_int_equal(c.steal, 13);
    assert_int_equal(c.ncpu, 2);
    assert_int_equal(c.cpu_steal[0], 9);
    assert_int_equal(c.cpu_steal[1], 4);
    hostcount_cpu_release(&c);
    f = text("intr 1 2 3\n");
    assert_false(hostcount_read_stat(f, &c));
    fclose(f);
}

static void
test_softnet_snmp_text(void **state)
{
    (void)state;
    uint64_t d, sq;
    FILE *f = text("0430e969 00000002 0000000b 00000000\n042a35b3 00000010 000000a0 00000000\n");
    assert_true(hostcount_read_softnet(f, &d, &sq));
    fclose(f);
    assert_int_equal(d, 0x12);
    assert_int_equal(sq, 0xab);
    uint64_t v[3] = {0};
    f = text("Ip: Forwarding DefaultTTL\nIp: 1 64\n"
             "Udp: InDatagrams NoPorts InErrors OutDatagrams RcvbufErrors SndbufErrors\n"
             "Udp: 10 2 7 9 5 317141\n"
             "UdpLite: InDatagrams NoPorts InErrors OutDatagrams RcvbufErrors SndbufErrors\n"
             "UdpLite: 0 0 99 0 99 99\n");
    assert_true(hostcount_read_snmp(f, v));
    fclose(f);
    assert_int_equal(v[0], 7);
    assert_int_equal(v[1], 5);
    assert_int_equal(v[2], 317141);
    f = text("Udp6InDatagrams                 \t3\nUdp6InErrors 1\nUdp6RcvbufErrors 2\n"
             "Udp6SndbufErrors 4\nUdpLite6InErrors 50\n");
    assert_true(hostcount_read_snmp6(f, v));
    fclose(f);
    assert_int_equal(v[0], 8);
    assert_int_equal(v[1], 7);
    assert_int_equal(v[2], 317145);
}

/* ---- this machine's /proc ---- */

/* The test's own reading of /proc/stat's first line (fields 1..8). */
static void
oracle_stat(unsigned long long v[8])
{
    FILE *f = fopen("/proc/stat", "r");
    assert_non_null(f);
    char word[16];
    assert_int_equal(fscanf(f, "%15s", word), 1);
    assert_string_equal(word, "cpu");
    for (int i = 0; i < 8; i++)
        assert_int_equal(fscanf(f, "%llu", &v[i]), 1);
    fclose(f);
}

static uint64_t
oracle_softnet_col(int col)
{
    FILE *f = fopen("/proc/net/softnet_stat", "r");
    assert_non_null(f);
    char line[512];
    uint64_t sum = 0;
    while (fgets(line, sizeof line, f) != NULL) {
        char *p = line;
        for (int i = 0; i < col; i++)
            strtoull(p, &p, 16);
        sum += strtoull(p, NULL, 16);
    }
    fclose(f);
    return sum;
}

static void
read_file(const char *path, bool (*fn)(FILE *, struct hostcount_cpu *), struct hostcount_cpu *c)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    assert_true(fn(f, c));
    fclose(f);
}

static void
test_proc_stat_real(void **state)
{
    (void)state;
    struct hostcount_cpu a, b;
    unsigned long long o[8];
    read_file("/proc/stat", hostcount_read_stat, &a);
    oracle_stat(o);
    read_file("/proc/stat", hostcount_read_stat, &b);
    assert_in_range(o[7], a.steal, b.steal);
    assert_in_range(o[6], a.softirq, b.softirq);
    uint64_t busy = o[0] + o[1] + o[2] + o[5] + o[6] + o[7];
    assert_in_range(busy, a.busy, b.busy);
    assert_in_range(busy + o[3] + o[4], a.ticks, b.ticks);
    assert_in_range(a.ncpu, 1, (size_t)sysconf(_SC_NPROCESSORS_CONF));
    /* The kernel converts the total from the CPUs' nanoseconds summed and each CPU's line from
     * its own, each rounded down to a tick: the lines sum to less than a tick per CPU under the
     * total, and to no more than the next reading's. */
    uint64_t sum = 0;
    for (size_t i = 0; i < a.ncpu; i++)
        sum += a.cpu_steal[i];
    assert_in_range(sum, a.steal > a.ncpu ? a.steal - a.ncpu : 0, b.steal);
    hostcount_cpu_release(&a);
    hostcount_cpu_release(&b);
}

static void
test_softnet_real(void **state)
{
    (void)state;
    uint64_t d0, s0, d1, s1;
    FILE *f = fopen("/proc/net/softnet_stat", "r");
    assert_true(hostcount_read_softnet(f, &d0, &s0));
    fclose(f);
    uint64_t od = oracle_softnet_col(1), os = oracle_softnet_col(2);
    f = fopen("/proc/net/softnet_stat", "r");
    assert_true(hostcount_read_softnet(f, &d1, &s1));
    fclose(f);
    assert_in_range(od, d0, d1);
    assert_in_range(os, s0, s1);
}

/* The host-wide counters of a trial, without an interface: the CPU's deltas are what the two
 * snapshots' files said, so they only say the time went on. */
static void
test_host_wide_json(void **state)
{
    (void)state;
    struct hostcount *h = hostcount_new(NULL);
    assert_non_null(h);
    hostcount_take(h, HOSTCOUNT_BEFORE);
    for (volatile unsigned long i = 0; i < 50000000ul; i++)
        ;
    hostcount_take(h, HOSTCOUNT_AFTER);
    json_t *o = hostcount_json(h, false);
    hostcount_free(h);
    assert_true(json_is_null(json_object_get(o, "interface")));
    assert_null(json_object_get(o, "link"));
    const json_t *cpu = json_object_get(o, "cpu");
    assert_true(json_is_object(cpu));
    assert_true(json_integer_value(json_object_get(cpu, "cpus")) >= 1);
    assert_true(json_integer_value(json_object_get(cpu, "busy")) <=
                json_integer_value(json_object_get(cpu, "ticks")));
    assert_true(json_integer_value(json_object_get(cpu, "steal_max")) <=
                json_integer_value(json_object_get(cpu, "steal")));
    assert_true(json_real_value(json_object_get(o, "interval_s")) > 0);
    assert_true(json_is_object(json_object_get(o, "softnet")));
    json_decref(o);
}

/* ---- a network namespace of the test's own ---- */

static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int
sh(const char *fmt, ...)
{
    char cmd[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    return system(cmd);
}

/* One line of a command's output that starts (after blanks) with prefix: the number after it. */
static uint64_t
cmd_number(const char *cmd, const char *prefix)
{
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    char line[512];
    uint64_t v = UINT64_MAX;
    while (fgets(line, sizeof line, p) != NULL) {
        const char *s = line + strspn(line, " \t");
        if (strncmp(s, prefix, strlen(prefix)) == 0)
            v = strtoull(s + strlen(prefix), NULL, 10);
    }
    pclose(p);
    return v;
}

/* `tc -s qdisc show dev lo`'s " (dropped N," */
static uint64_t
oracle_tc_dropped(void)
{
    FILE *p = popen("tc -s qdisc show dev lo", "r");
    assert_non_null(p);
    char line[512];
    uint64_t v = UINT64_MAX;
    while (fgets(line, sizeof line, p) != NULL) {
        const char *d = strstr(line, "(dropped ");
        if (d != NULL)
            v = strtoull(d + 9, NULL, 10);
    }
    pclose(p);
    return v;
}

static int64_t
jint(const json_t *o, const char *k)
{
    return json_integer_value(json_object_get(o, k));
}

/* /proc/net/snmp's Udp SndbufErrors, by awk: the seventh field of the second "Udp:" line. */
#define SNDBUF_ERRORS "awk '/^Udp:/ { if (++n == 2) print \"x \" $7 }' /proc/net/snmp"

/* Wait (at most 10 s) until cmd prints a line holding want: the kernel has finished what the
 * test started (a queued packet sent, a NAPI poll run), whatever the machine's load. */
static void
await_line(const char *cmd, const char *want)
{
    char last[512] = "";
    for (int i = 0; i < 1000; i++) {
        FILE *p = popen(cmd, "r");
        assert_non_null(p);
        char line[512];
        bool found = false;
        while (fgets(line, sizeof line, p) != NULL) {
            found = found || strstr(line, want) != NULL;
            snprintf(last, sizeof last, "%s", line);
        }
        pclose(p);
        if (found)
            return;
        usleep(10000);
    }
    fail_msg("'%s' never printed '%s' (its last line: %s)", cmd, want, last);
}

/* A tbf on lo that takes 1 600 bytes at once: a burst of datagrams is dropped by it, and each
 * drop is a UDP send buffer error of the sender (the kernel's ENOBUFS, which UDP counts and
 * does not return). */
static void
test_qdisc_drops_lo(void **state)
{
    (void)state;
    assert_int_equal(sh("tc qdisc replace dev lo root tbf rate 1mbit burst 1600 limit 1600"), 0);
    uint64_t tc0 = oracle_tc_dropped();
    uint64_t sb0 = cmd_number(SNDBUF_ERRORS, "x ");
    struct hostcount *h = hostcount_new("lo");
    assert_non_null(h);
    /* A receiver that never reads, so that no datagram is answered by an ICMP error. */
    int rx = socket(AF_INET, SOCK_DGRAM, 0);
    struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons(9)};
    to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(bind(rx, (struct sockaddr *)&to, sizeof to), 0);
    hostcount_take(h, HOSTCOUNT_BEFORE);
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    char buf[1000] = {0};
    for (int i = 0; i < 200; i++)
        sendto(fd, buf, sizeof buf, 0, (struct sockaddr *)&to, sizeof to);
    close(fd);
    await_line("tc -s qdisc show dev lo", "backlog 0b 0p");
    hostcount_take(h, HOSTCOUNT_AFTER);
    close(rx);
    uint64_t tc1 = oracle_tc_dropped();
    uint64_t sb1 = cmd_number(SNDBUF_ERRORS, "x ");
    json_t *o = hostcount_json(h, false);
    hostcount_free(h);
    const json_t *q = json_object_get(o, "qdisc");
    assert_string_equal(json_string_value(json_object_get(q, "kind")), "tbf");
    assert_true(tc1 > tc0); /* the burst was dropped in part */
    assert_int_equal(jint(q, "drops"), (int64_t)(tc1 - tc0));
    assert_int_equal(jint(json_object_get(o, "udp"), "sndbuf_errors"), (int64_t)(sb1 - sb0));
    assert_int_equal(jint(q, "packets") + jint(q, "drops"), 200);
    /* What passed the qdisc went through lo, and nothing else did. */
    const json_t *link = json_object_get(o, "link");
    assert_int_equal(jint(link, "tx_packets"), jint(q, "packets"));
    assert_string_equal(json_string_value(json_object_get(o, "interface")), "lo");
    assert_true(json_is_null(json_object_get(o, "driver")));
    json_decref(o);
    assert_int_equal(sh("tc qdisc del dev lo root"), 0);
}

/* struct bpf_insn's two instructions of an XDP program that passes every packet on. */
static int
xdp_pass_prog(void)
{
    struct bpf_insn insns[2];
    memset(insns, 0, sizeof insns);
    insns[0].code = BPF_ALU64 | BPF_MOV | BPF_K;
    insns[0].dst_reg = BPF_REG_0;
    insns[0].imm = XDP_PASS;
    insns[1].code = BPF_JMP | BPF_EXIT;
    union bpf_attr attr;
    memset(&attr, 0, sizeof attr);
    attr.prog_type = BPF_PROG_TYPE_XDP;
    attr.insns = (uint64_t)(uintptr_t)insns;
    attr.insn_cnt = 2;
    attr.license = (uint64_t)(uintptr_t) "GPL";
    return (int)syscall(__NR_bpf, BPF_PROG_LOAD, &attr, sizeof attr);
}

/* Attach program fd to ifindex in native (driver) mode by RTM_SETLINK IFLA_XDP. */
static void
xdp_attach(unsigned ifindex, int prog)
{
    struct {
        struct nlmsghdr nh;
        struct ifinfomsg ifi;
        char attrs[64];
    } req;
    memset(&req, 0, sizeof req);
    req.nh.nlmsg_type = RTM_SETLINK;
    req.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
    req.ifi.ifi_family = AF_UNSPEC;
    req.ifi.ifi_index = (int)ifindex;
    struct rtattr *xdp = (struct rtattr *)(void *)req.attrs;
    xdp->rta_type = IFLA_XDP | NLA_F_NESTED;
    struct rtattr *a = (struct rtattr *)(void *)((char *)xdp + RTA_LENGTH(0));
    a->rta_type = IFLA_XDP_FD;
    a->rta_len = RTA_LENGTH(sizeof(int));
    memcpy(RTA_DATA(a), &prog, sizeof prog);
    struct rtattr *b = (struct rtattr *)(void *)((char *)a + RTA_ALIGN(a->rta_len));
    b->rta_type = IFLA_XDP_FLAGS;
    b->rta_len = RTA_LENGTH(sizeof(uint32_t));
    uint32_t flags = XDP_FLAGS_DRV_MODE;
    memcpy(RTA_DATA(b), &flags, sizeof flags);
    xdp->rta_len = (unsigned short)(RTA_LENGTH(0) + RTA_ALIGN(a->rta_len) + RTA_ALIGN(b->rta_len));
    req.nh.nlmsg_len = (uint32_t)(NLMSG_LENGTH(sizeof req.ifi) + RTA_ALIGN(xdp->rta_len));
    int fd = socket(AF_NETLINK, SOCK_RAW, NETLINK_ROUTE);
    assert_true(fd >= 0);
    assert_true(send(fd, &req, req.nh.nlmsg_len, 0) >= 0);
    char ack[4096];
    ssize_t n = recv(fd, ack, sizeof ack, 0);
    close(fd);
    assert_true(n >= (ssize_t)NLMSG_LENGTH(sizeof(struct nlmsgerr)));
    const struct nlmsgerr *err = NLMSG_DATA((struct nlmsghdr *)(void *)ack);
    assert_int_equal(err->error, 0);
}

/* `ethtool -S dev` as name: value pairs into a JSON object. */
static json_t *
oracle_ethtool_stats(const char *dev)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "ethtool -S %s", dev);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    json_t *o = json_object();
    char line[512];
    while (fgets(line, sizeof line, p) != NULL) {
        char name[128];
        unsigned long long v;
        if (sscanf(line, " %127[^:]: %llu", name, &v) == 2)
            json_object_set_new(o, name, json_integer((json_int_t)v));
    }
    pclose(p);
    return o;
}

/* Frames of 300 bytes sent into va by a packet socket: they come out of vb. */
static void
send_frames(const char *dev, int n)
{
    int fd = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL));
    assert_true(fd >= 0);
    struct sockaddr_ll to = {
        .sll_family = AF_PACKET, .sll_ifindex = (int)if_nametoindex(dev), .sll_halen = ETH_ALEN};
    unsigned char frame[300];
    memset(frame, 0, sizeof frame);
    memset(frame, 0xff, ETH_ALEN);      /* broadcast */
    frame[12] = 0x88, frame[13] = 0xb5; /* a local experimental ethertype: nobody's */
    for (int i = 0; i < n; i++)
        assert_int_equal(sendto(fd, frame, sizeof frame, 0, (struct sockaddr *)&to, sizeof to),
                         (ssize_t)sizeof frame);
    close(fd);
}

static void
test_veth_ethtool(void **state)
{
    (void)state;
    assert_int_equal(sh("ip link add va type veth peer name vb && ip link set va up && "
                        "ip link set vb up"),
                     0);
    /* Until the kernel's link watch has run, a device that came up still has the noop qdisc,
     * which drops what is sent: wait for both ends' own (noqueue) and their carrier. */
    await_line("ip -o link show va", "qdisc noqueue state UP");
    await_line("ip -o link show vb", "qdisc noqueue state UP");
    int prog = xdp_pass_prog();
    assert_true(prog >= 0);
    xdp_attach(if_nametoindex("vb"), prog);
    struct hostcount *h = hostcount_new("vb");
    assert_non_null(h);
    hostcount_take(h, HOSTCOUNT_BEFORE);
    json_t *e0 = oracle_ethtool_stats("vb");
    send_frames("va", 37);
    /* vb's RX packets reach 37 once the NAPI poll ran */
    await_line("ip -j -s link show vb | jq -r '\"n=\\(.[0].stats64.rx.packets)\"'", "n=37\n");
    json_t *e1 = oracle_ethtool_stats("vb");
    hostcount_take(h, HOSTCOUNT_AFTER);
    json_t *o = hostcount_json(h, false);
    hostcount_free(h);
    assert_string_equal(json_string_value(json_object_get(o, "driver")), "veth");
    await_line("ethtool -i vb", "driver: veth"); /* what ethtool says of it */
    /* Every statistic that changed by ethtool's count, by the same amount, and no other. */
    const json_t *ours = json_object_get(o, "ethtool");
    json_t *want = json_object();
    const char *k;
    json_t *v1;
    json_object_foreach(e1, k, v1)
    {
        json_int_t d = json_integer_value(v1) - json_integer_value(json_object_get(e0, k));
        if (d != 0)
            json_object_set_new(want, k, json_integer(d));
    }
    assert_true(json_object_size(want) > 0); /* the XDP program makes veth count */
    assert_true(json_equal(ours, want));
    assert_int_equal(jint(json_object_get(o, "link"), "rx_packets"), 37);
    json_decref(want);
    json_decref(e0);
    json_decref(e1);
    json_decref(o);
    close(prog);
}

/* A bridge over va: va is its lower device, found with its driver and what it carried. */
static void
test_lower_device(void **state)
{
    (void)state;
    assert_int_equal(sh("ip link add br0 type bridge && ip link set va master br0 && "
                        "ip link set br0 up"),
                     0);
    struct hostcount *h = hostcount_new("br0");
    assert_non_null(h);
    hostcount_take(h, HOSTCOUNT_BEFORE);
    send_frames("vb", 11); /* into vb, out of va: received by the bridge's port */
    hostcount_take(h, HOSTCOUNT_AFTER);
    json_t *o = hostcount_json(h, false);
    hostcount_free(h);
    assert_string_equal(json_string_value(json_object_get(o, "driver")), "bridge");
    const json_t *lower = json_object_get(o, "lower");
    assert_int_equal(json_array_size(lower), 1);
    const json_t *va = json_array_get(lower, 0);
    assert_string_equal(json_string_value(json_object_get(va, "interface")), "va");
    assert_string_equal(json_string_value(json_object_get(va, "driver")), "veth");
    assert_int_equal(jint(json_object_get(va, "link"), "rx_packets"), 11);
    json_decref(o);
    assert_int_equal(sh("ip link del br0 && ip link del va"), 0);
}

static int
own_netns(void **state)
{
    (void)state;
    if (unshare(CLONE_NEWNET) != 0)
        return -1;
    /* IPv6 off: no router solicitation or DAD packet in the counts. */
    return sh("sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1 "
              ">/dev/null 2>&1; ip link set lo up") == 0
               ? 0
               : -1;
}

int
main(void)
{
    const struct CMUnitTest files[] = {
        cmocka_unit_test(test_stat_text),      cmocka_unit_test(test_softnet_snmp_text),
        cmocka_unit_test(test_proc_stat_real), cmocka_unit_test(test_softnet_real),
        cmocka_unit_test(test_host_wide_json),
    };
    const struct CMUnitTest netns[] = {
        cmocka_unit_test(test_qdisc_drops_lo),
        cmocka_unit_test(test_veth_ethtool),
        cmocka_unit_test(test_lower_device),
    };
    int failed = cmocka_run_group_tests_name("files", files, NULL, NULL);
    if (geteuid() != 0) {
        fprintf(stderr, "test_hostcount: not root: the network namespace tests are skipped\n");
        return failed != 0 ? 1 : 77;
    }
    return failed + cmocka_run_group_tests_name("netns", netns, own_netns, NULL) != 0;
}
