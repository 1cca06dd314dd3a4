/* udp_stream.c - paced UDP stream (iperf3 -u, netperf UDP_STREAM): loss, reordering,
 * duplication and RFC 3550 jitter, over the datagram streams of udp_common.h (its header says
 * how datagrams are marked, counted and paced). --bidir runs -P streams each way at once, the
 * first -P forward (client -> server); the result keeps each direction under its name and sums
 * their throughput and counts. */
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "common/units.h"
#include "nsperf/stream_common.h"
#include "nsperf/udp_common.h"

static int
udp_stream_run(struct ns_test *t, struct err *e)
{
    const struct ns_params *p = &t->p;
    double per_stream = (double)p->rate_bps / p->streams; /* -b is each direction's */
    uint64_t gap = (uint64_t)((double)p->msg_size * 8.0 * 1e9 / per_stream);
    struct us_cfg cfg = {
        .gap_ns = gap > 0 ? gap : 1,
        .batch = udp_batch_for(p->msg_size, US_MAX_BATCH),
        .jitter = true,
    };
    return udp_run(t, &cfg, e);
}

static json_t *
udp_stream_combine(const struct ns_test *t, const json_t *client, const json_t *server,
                   const json_t *cpu)
{
    (void)cpu;
    size_t n = json_array_size(json_object_get(client, "streams"));
    double iv = t->p.interval_s;
    if (!t->p.bidir) {
        json_t *o = t->p.reverse ? udp_combine_dir(server, client, 0, n, true, iv, true)
                                 : udp_combine_dir(client, server, 0, n, false, iv, true);
        json_object_del(o, "thread_cpu_pct"); /* the processes' CPU is this direction's */
        return o;
    }
    size_t nfwd = (size_t)t->p.streams;
    json_t *fwd = udp_combine_dir(client, server, 0, nfwd, false, iv, true);
    json_t *rev = udp_combine_dir(server, client, nfwd, n, true, iv, true);
    const json_t *fu = json_object_get(fwd, "udp"), *ru = json_object_get(rev, "udp");
    double fbps = json_number_value(json_object_get(fwd, TESTSPEC_KEY_THROUGHPUT));
    double rbps = json_number_value(json_object_get(rev, TESTSPEC_KEY_THROUGHPUT));
    double fdur = json_number_value(json_object_get(fwd, "duration_s"));
    double rdur = json_number_value(json_object_get(rev, "duration_s"));
    return json_pack(
        "{s:f, s:I, s:I, s:f, s:o, s:o, s:o, s:o}", TESTSPEC_KEY_THROUGHPUT, fbps + rbps, "bytes",
        (json_int_t)(ns_json_u64(fwd, "bytes") + ns_json_u64(rev, "bytes")), "sender_bytes",
        (json_int_t)(ns_json_u64(fwd, "sender_bytes") + ns_json_u64(rev, "sender_bytes")),
        "duration_s", fdur > rdur ? fdur : rdur, "udp", udp_sum(fu, ru), "intervals",
        ns_intervals_sum(json_object_get(fwd, "intervals"), json_object_get(rev, "intervals")),
        TESTSPEC_DIR_FORWARD, fwd, TESTSPEC_DIR_REVERSE, rev);
}

static void
udp_stream_print_dir(const char *name, const json_t *dir, FILE *out)
{
    const json_t *cpu = json_object_get(dir, "thread_cpu_pct");
    fprintf(out, "%s (receiver: %s; data threads' CPU: sender %.1f%%, receiver %.1f%%)\n", name,
            json_string_value(json_object_get(dir, "receiver")),
            json_number_value(json_object_get(cpu, "sender")),
            json_number_value(json_object_get(cpu, "receiver")));
    ns_print_stream_table(dir, out);
}

static void
udp_stream_print_human(const struct ns_test *t, const json_t *result, FILE *out)
{
    if (t->p.bidir) {
        udp_stream_print_dir(TESTSPEC_DIR_FORWARD, json_object_get(result, TESTSPEC_DIR_FORWARD),
                             out);
        udp_stream_print_dir(TESTSPEC_DIR_REVERSE, json_object_get(result, TESTSPEC_DIR_REVERSE),
                             out);
        char rate[32];
        fprintf(
            out, "both directions: %s\n",
            units_format_rate(json_number_value(json_object_get(result, TESTSPEC_KEY_THROUGHPUT)),
                              rate, sizeof rate));
    } else {
        ns_print_stream_table(result, out);
    }
    const json_t *u = json_object_get(result, "udp");
    fprintf(out, "out of order %llu, duplicated %llu\n",
            (unsigned long long)ns_json_u64(u, "out_of_order"),
            (unsigned long long)ns_json_u64(u, "duplicated"));
    uint64_t unsent = ns_json_u64(u, "unsent");
    if (unsent > 0) /* the rate asked for was not offered: say so beside the figures */
        fprintf(out, "unsent %llu: the sender fell behind its schedule (not given the CPU)\n",
                (unsigned long long)unsent);
}

/* The choice a user compares against iperf3 (see --help): the receiver asks for a 4 MiB buffer
 * unless -w gives one (iperf3 leaves the kernel default, and so reports the loss a small
 * buffer causes). */
static void
udp_stream_params_json(const struct ns_params *p, json_t *params)
{
    json_object_set_new(params, "udp_recv_buf",
                        json_integer(p->sock_buf > 0 ? p->sock_buf : NS_UDP_RECV_BUF));
}

const struct test_kind ns_kind_udp_stream = {
    .socktype = SOCK_DGRAM,
    .uses_streams = true,
    .sets_ready = true,
    .run = udp_stream_run,
    .local_result = udp_local_result,
    .combine = udp_stream_combine,
    .print_human = udp_stream_print_human,
    .cleanup = udp_cleanup,
    .params_json = udp_stream_params_json,
};
