/* udp_pps.c - packets per second: small UDP datagrams (64 bytes by default, iperf3 -u -l 64) as
 * fast as the sender goes, or at --packet-rate, counted sent, received and lost (a cloud VM's
 * PPS allowance is a limit of its own, apart from its bandwidth).
 *
 * The datagram streams of udp_common.h (one socket and thread per -P stream): the sender hands
 * the kernel up to US_MAX_BATCH datagrams per sendmmsg() call and the receiver takes as many per
 * recvmmsg(), since at a million packets a second the system call per datagram is the limit,
 * not the network. packets_per_s is the measured datagrams the receiver took in over the
 * sender's measured interval (the interval that marks datagrams measured, udp_common.h);
 * sent_packets_per_s the same of those sent, and the sender's own shortfall is said apart from
 * loss: paced, what its schedule called for and it did not send (intended_packets_per_s = sent
 * + unsent over the interval); unpaced, what the kernel refused (udp.send_errors, ENOBUFS). No
 * jitter: a batch is timed as one. The CPU each side spent per packet it handled (sent or
 * received) is in cpu: cycles_per_packet (busy cycles, as cycles_per_byte) and ns_per_packet
 * (nsperf's own CPU time), with their remote_ twins. */
#include <sys/socket.h>

#include "nsperf/cpu.h"
#include "nsperf/stream_common.h"
#include "nsperf/udp_common.h"

static int
udp_pps_run(struct ns_test *t, struct err *e)
{
    const struct ns_params *p = &t->p;
    struct us_cfg cfg = {
        .gap_ns =
            p->packet_rate > 0 ? (uint64_t)(1e9 * (double)p->streams / (double)p->packet_rate) : 0,
        .batch = udp_batch_for(p->msg_size, US_MAX_BATCH),
        .jitter = false,
    };
    if (p->packet_rate > 0 && cfg.gap_ns == 0)
        cfg.gap_ns = 1;
    return udp_run(t, &cfg, e);
}

static double
per_s(uint64_t n, double s)
{
    return s > 0 ? (double)n / s : 0.0;
}

static json_t *
udp_pps_combine(const struct ns_test *t, const json_t *client, const json_t *server,
                const json_t *cpu)
{
    (void)cpu;
    size_t n = json_array_size(json_object_get(client, "streams"));
    json_t *o = t->p.reverse ? udp_combine_dir(server, client, 0, n, true, t->p.interval_s, false)
                             : udp_combine_dir(client, server, 0, n, false, t->p.interval_s, false);
    json_object_del(o, "thread_cpu_pct");
    const json_t *u = json_object_get(o, "udp");
    double s = json_number_value(json_object_get(o, "duration_s"));
    uint64_t sent = ns_json_u64(u, "sent"), rcvd = ns_json_u64(u, "received");
    json_object_set_new(o, TESTSPEC_KEY_PACKETS, json_real(per_s(rcvd, s)));
    json_object_set_new(o, TESTSPEC_KEY_SENT_PACKETS, json_real(per_s(sent, s)));
    json_object_set_new(o, "lost_packets_per_s", json_real(per_s(ns_json_u64(u, "lost"), s)));
    json_object_set_new(o, "packets", json_integer((json_int_t)rcvd));
    if (t->p.packet_rate > 0)
        json_object_set_new(o, "intended_packets_per_s",
                            json_real(per_s(sent + ns_json_u64(u, "unsent"), s)));
    return o;
}

/* Each side per packet it handled: the sender's sent, the receiver's received. */
static void
udp_pps_cpu(const struct ns_test *t, const json_t *result, json_t *cpu, const json_t *local,
            const json_t *remote)
{
    const json_t *u = json_object_get(result, "udp");
    double sent = (double)ns_json_u64(u, "sent"), rcvd = (double)ns_json_u64(u, "received");
    bool client_sends = !t->p.reverse;
    cpu_add_per_unit(cpu, "packet", local, client_sends ? sent : rcvd, remote,
                     client_sends ? rcvd : sent);
}

static void
udp_pps_print_human(const struct ns_test *t, const json_t *result, FILE *out)
{
    (void)t;
    const json_t *u = json_object_get(result, "udp");
    double s = json_number_value(json_object_get(result, "duration_s"));
    fprintf(out, "%14s  %14s  %14s  %14s  %8s\n", "sent", "received", "lost", "received/s", "lost");
    fprintf(out, "%14llu  %14llu  %14llu  %14.0f  %7.3f%%\n",
            (unsigned long long)ns_json_u64(u, "sent"),
            (unsigned long long)ns_json_u64(u, "received"),
            (unsigned long long)ns_json_u64(u, "lost"),
            json_number_value(json_object_get(result, TESTSPEC_KEY_PACKETS)),
            json_number_value(json_object_get(u, "lost_pct")));
    fprintf(out, "sender: %.0f datagrams/s over its %.3f s measured interval",
            json_number_value(json_object_get(result, TESTSPEC_KEY_SENT_PACKETS)), s);
    const json_t *intended = json_object_get(result, "intended_packets_per_s");
    if (intended != NULL)
        fprintf(out, " of %.0f/s scheduled (%llu unsent: not given the CPU)",
                json_number_value(intended), (unsigned long long)ns_json_u64(u, "unsent"));
    else if (ns_json_u64(u, "send_errors") > 0)
        fprintf(out, " (%llu refused by its kernel: ENOBUFS)",
                (unsigned long long)ns_json_u64(u, "send_errors"));
    fputc('\n', out);
    const json_t *cpu = json_object_get(result, "cpu");
    const json_t *l = json_object_get(cpu, "ns_per_packet"),
                 *r = json_object_get(cpu, "remote_ns_per_packet");
    if (json_is_number(l) && json_is_number(r))
        fprintf(out, "nsperf's CPU per packet: local %.0f ns, remote %.0f ns\n",
                json_number_value(l), json_number_value(r));
}

const struct test_kind ns_kind_udp_pps = {
    .socktype = SOCK_DGRAM,
    .uses_streams = true,
    .sets_ready = true,
    .run = udp_pps_run,
    .local_result = udp_local_result,
    .combine = udp_pps_combine,
    .cpu_figures = udp_pps_cpu,
    .print_human = udp_pps_print_human,
    .cleanup = udp_cleanup,
};
