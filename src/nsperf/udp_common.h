/* udp_common.h - the datagram streams of udp_stream and udp_pps: in-band measured marking,
 * sequence numbers, loss, reordering, duplication, jitter, the sender's pacing (or none) in
 * batches, and their JSON. The kinds differ in how fast they send and what they make of the
 * counts: udp_stream paces to -b and reports throughput and jitter, udp_pps sends as fast as it
 * can (or to --packet-rate) in sendmmsg() batches and reports packets per second.
 *
 * Every datagram starts with a 40-byte header (network byte order):
 *   0  magic "NSPu"   4  phase (1 warmup, 2 measured, 3 end), 3 bytes zero
 *   8  sequence (64-bit, per stream; measured datagrams numbered from 0)
 *   16 sender CLOCK_MONOTONIC ns   24 the test cookie (16 bytes)
 * The measured phase is marked in-band, so sent and received count exactly the same datagrams
 * whatever the control frames' latency. At its DONE the sender sends an end datagram (a few
 * times) whose sequence field is the count of measured datagrams it sent: the receiver is done
 * once it holds that many (or saw the end and its own DONE), and otherwise drains for at most
 * US_DRAIN_NS after its DONE so that datagrams still in flight are not called lost. A paced
 * sender keeps absolute CLOCK_MONOTONIC deadlines, catching up after oversleeping (the
 * datagrams due at once go out in one batch); a phase change wakes its sleep. A paced datagram
 * is measured when its deadline falls in the sender's measured interval, not when the thread
 * happens to send it: a backlog left from the warmup does not count as measured, and deadlines
 * of the interval the thread had not met by its DONE (it was not given the CPU) are reported as
 * unsent, so that sent + unsent is the rate times the sender's duration_s whatever the load. An
 * unpaced datagram is measured when it is sent in the sender's measured interval; one the kernel
 * refused (ENOBUFS) is unsent.
 *
 * Internal to src/nsperf. */
#ifndef NS_UDP_COMMON_H
#define NS_UDP_COMMON_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "nsperf/nsperf.h"

struct err;

#define US_HDR 40u
/* Memory of one stream's batch: a batch holds this many bytes of datagrams at most. */
#define US_BATCH_BYTES (256u * 1024u)
#define US_MAX_BATCH 64u

struct us_cfg {
    uint64_t gap_ns; /* per stream: the time between two datagrams' deadlines; 0 = unpaced */
    unsigned batch;  /* datagrams per sendmmsg() and recvmmsg() at most (1..US_MAX_BATCH) */
    /* The receiver's RFC 3550 jitter: it reads the clock per datagram (so receives one at a
     * time); without, it times a batch as one. */
    bool jitter;
};

/* The datagrams of a batch of size bytes each: as many as US_BATCH_BYTES holds, 1..max. */
unsigned udp_batch_for(uint64_t size, unsigned max);

/* run() of a datagram kind. */
int udp_run(struct ns_test *t, const struct us_cfg *cfg, struct err *e);
/* local_result: this side's per-stream counts and measured interval. */
json_t *udp_local_result(struct ns_test *t);
void udp_cleanup(struct ns_test *t);

/* The datagrams of streams [from, to) of both sides' results, snd the side that sent them:
 * {throughput_bps, bytes, sender_bytes, duration_s (the sender's), receiver, udp {sent, unsent,
 * received, lost, out_of_order, duplicated, jitter_us (with jitter), lost_pct, send_errors},
 * streams, intervals}. New reference. */
json_t *udp_combine_dir(const json_t *snd, const json_t *rcv, size_t from, size_t to,
                        bool client_receives, double interval_s, bool jitter);

/* The udp object's counts summed over two directions' (--bidir). New reference. */
json_t *udp_sum(const json_t *a, const json_t *b);

#endif
