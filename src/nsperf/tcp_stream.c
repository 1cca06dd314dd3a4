/* tcp_stream.c - bulk TCP throughput (netperf TCP_STREAM, iperf3, NTTTCP).
 *
 * One thread per stream so that -P streams spread over cores. The sender writes -l bytes at a
 * time (optionally paced to -b); the receiver counts what it reads while its own phase is
 * MEASURE, and that count over its own measured interval is the throughput. The sender counts
 * too (bytes written in its measured interval, and in total) and reads TCP_INFO's
 * tcpi_total_retrans at the start and end of its measured interval. At DONE stop() shuts the
 * sockets down, which ends a blocked write or read at once; 100 ms send and receive timeouts
 * remain as the safety cap (no poll per call). */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>

#include "common/clock.h"
#include "common/errors.h"
#include "common/net.h"
#include "nsperf/stream_common.h"
#include "nsperf/tcpinfo.h"

#define TS_RECV_BUF (1024u * 1024u)
#define TS_IO_TIMEOUT_MS 100
/* How long a receiver waits for its DONE after the sender closed (it closes as it sends STOP). */
#define TS_EOF_GRACE_MS 2000

struct ts_state;

struct ts_stream {
    struct stream_io io; /* first: stream_common.c sees it as one */
    struct ts_state *st;
    bool in_measure;
    uint64_t bytes;        /* during this side's measured interval */
    uint64_t total;        /* whole test, warmup included */
    uint32_t retr0, retr1; /* sender: tcpi_total_retrans at MEASURE and at the end */
};

struct ts_state {
    struct stream_set set; /* first */
    struct ts_stream s[];
};

static bool
ts_over(const struct ts_stream *s)
{
    return stream_set_over(&s->st->set);
}

static int
ts_fail(struct ts_stream *s, int code, int errnum, const char *what)
{
    return stream_io_fail(&s->io, &s->st->set, code, errnum, what);
}

/* Sleep to the paced instant for `sent` bytes; DONE wakes the sleep at once. */
static void
ts_pace(struct ts_stream *s, uint64_t start_ns, uint64_t sent, double per_stream_bps)
{
    uint64_t due = start_ns + (uint64_t)((double)sent * 8.0 * 1e9 / per_stream_bps);
    while (clock_now_ns() < due && !ts_over(s))
        stream_set_sleep_until(&s->st->set, due);
}

static void
ts_mark_measure(struct ts_stream *s)
{
    struct tcpinfo_snap ti;
    s->in_measure = true;
    if (tcpinfo_read(s->io.fd, &ti) == 0)
        s->retr0 = ti.total_retrans;
}

/* Bytes per send(): the whole -l buffer unpaced; paced, about a millisecond's worth, so that a
 * 1 MiB default write does not turn a slow rate into bursts (at 1 kbit/s: single bytes), but not
 * less than a segment (or 10 ms worth, if that is less): 128 paced streams each waking 1000
 * times a second would spend two cores on wake-ups and starve the control frames. */
#define TS_PACE_MIN_CHUNK 1448u /* one Ethernet TCP segment's payload */
static size_t
ts_chunk(size_t buflen, double per_stream_bps)
{
    if (per_stream_bps <= 0)
        return buflen;
    double ms_worth = per_stream_bps / 8.0 / 1000.0;
    double floor = 10.0 * ms_worth < TS_PACE_MIN_CHUNK ? 10.0 * ms_worth : TS_PACE_MIN_CHUNK;
    double want = ms_worth > floor ? ms_worth : floor;
    size_t chunk = want < 1.0 ? 1u : (size_t)want;
    return chunk < buflen ? chunk : buflen;
}

static void
ts_send_loop(struct ts_stream *s)
{
    const struct ns_params *p = &s->st->set.t->p;
    double per_stream = p->rate_bps > 0 ? (double)p->rate_bps / p->streams : 0;
    uint64_t start = clock_now_ns(), paced = 0;
    size_t chunk = ts_chunk(s->io.buflen, per_stream);
    while (!ts_over(s)) {
        if (!s->in_measure && ns_test_phase(s->st->set.t) == NS_PHASE_MEASURE)
            ts_mark_measure(s);
        ssize_t n = send(s->io.fd, s->io.buf, chunk, MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EAGAIN || errno == EINTR || ts_over(s))
                continue; /* at DONE: stop()'s shutdown, EPIPE */
            ts_fail(s, NS_ECLOSED, errno, "send");
            return;
        }
        s->total += (uint64_t)n;
        if (s->in_measure)
            s->bytes += (uint64_t)n;
        if (per_stream > 0)
            ts_pace(s, start, paced += (uint64_t)n, per_stream);
    }
    struct tcpinfo_snap ti;
    if (s->in_measure && tcpinfo_read(s->io.fd, &ti) == 0)
        s->retr1 = ti.total_retrans;
}

static void
ts_count(struct ts_stream *s, uint64_t n)
{
    s->bytes += n;
    stream_io_count_bin(&s->io, &s->st->set, n, clock_now_ns());
}

static void
ts_recv_loop(struct ts_stream *s)
{
    for (;;) {
        ssize_t n = recv(s->io.fd, s->io.buf, s->io.buflen, 0);
        int ph = ns_test_phase(s->st->set.t);
        if (ph == NS_PHASE_DONE || atomic_load(&s->st->set.abort))
            return;
        if (n > 0) {
            s->total += (uint64_t)n;
            if (ph == NS_PHASE_MEASURE)
                ts_count(s, (uint64_t)n);
        } else if (n == 0) {
            if (stream_set_wait_done_after_eof(&s->st->set, TS_EOF_GRACE_MS) != 0)
                ts_fail(s, NS_ECLOSED, ECONNRESET, "peer closed the data connection");
            return;
        } else if (errno != EAGAIN && errno != EINTR) {
            ts_fail(s, NS_ECLOSED, errno, "recv");
            return;
        }
    }
}

static void *
ts_thread(void *arg)
{
    struct ts_stream *s = arg;
    stream_set_wait_start(&s->st->set);
    if (s->st->set.sender)
        ts_send_loop(s);
    else
        ts_recv_loop(s);
    return NULL;
}

/* Not all zeros, so nothing on the path can compress the payload; one 4 KiB pattern copied. */
static void
ts_fill(uint8_t *buf, size_t len)
{
    size_t first = len < 4096 ? len : 4096;
    for (size_t j = 0; j < first; j++)
        buf[j] = (uint8_t)(j * 31u + 7u);
    for (size_t at = first; at < len; at += first)
        memcpy(buf + at, buf, len - at < first ? len - at : first);
}

static int
ts_stream_init(struct ts_state *st, int i, struct err *e)
{
    struct ts_stream *s = &st->s[i];
    s->st = st;
    /* The receiver reads into a fixed buffer whatever the sender's -l: a peer's parameters
     * must not decide how much memory this side commits (validated: streams x -l capped). */
    size_t len = st->set.sender ? (size_t)st->set.t->p.msg_size : TS_RECV_BUF;
    if (stream_io_alloc(&s->io, &st->set, i, len) != 0)
        return err_set(e, NS_ENOMEM, "out of memory");
    if (st->set.sender)
        ts_fill(s->io.buf, s->io.buflen);
    /* The 200 ms DONE contract rests on these: a blocked send or recv must come back. */
    if (net_set_timeouts(s->io.fd, TS_IO_TIMEOUT_MS, TS_IO_TIMEOUT_MS) != 0)
        return err_sys(e, NS_EIO, errno, "stream %d: cannot set socket timeouts", i);
    return 0;
}

static int
ts_run(struct ns_test *t, struct err *e)
{
    struct ts_state *st = calloc(1, sizeof *st + (size_t)t->nfds * sizeof st->s[0]);
    if (st == NULL)
        return err_set(e, NS_ENOMEM, "out of memory");
    t->kind_state = st;
    stream_set_init(&st->set, t);
    for (int i = 0; i < st->set.n; i++) {
        int rc = ts_stream_init(st, i, e);
        if (rc != 0)
            return rc;
    }
    return stream_set_run(&st->set, st->s, sizeof st->s[0], ts_thread, e);
}

static json_t *
ts_stream_json(const struct ts_state *st, const struct ts_stream *s)
{
    json_t *o =
        json_pack("{s:I, s:I}", "bytes", (json_int_t)s->bytes, "total_bytes", (json_int_t)s->total);
    if (st->set.sender) {
        json_object_set_new(o, "retransmits", json_integer((json_int_t)(s->retr1 - s->retr0)));
    } else if (s->io.bins != NULL) {
        json_object_set_new(o, "intervals", ns_bins_json(s->io.bins, st->set.nbins));
    }
    return o;
}

static json_t *
ts_local_result(struct ns_test *t)
{
    const struct ts_state *st = t->kind_state;
    bool sender = ns_test_is_sender(t);
    json_t *streams = json_array();
    for (int i = 0; st != NULL && i < st->set.n; i++)
        json_array_append_new(streams, ts_stream_json(st, &st->s[i]));
    return json_pack("{s:s, s:f, s:o}", "role", sender ? "sender" : "receiver", "elapsed_s",
                     stream_elapsed_s(t), "streams", streams);
}

/* bytes: the receiver's count over its own measured interval (authoritative); sender_bytes:
 * the sender's over its own. The windows differ by the control frames' latency, so either may be
 * slightly larger; the *_total_bytes (whole connection) always satisfy receiver <= sender. */
static json_t *
ts_combine_stream(const json_t *rs, const json_t *ss, double elapsed, int idx)
{
    uint64_t bytes = ns_json_u64(rs, "bytes");
    json_t *o = json_pack("{s:i, s:I, s:f, s:I, s:I}", "index", idx, "bytes", (json_int_t)bytes,
                          "throughput_bps", elapsed > 0 ? (double)bytes * 8.0 / elapsed : 0.0,
                          "sender_bytes", (json_int_t)ns_json_u64(ss, "bytes"), "retransmits",
                          (json_int_t)ns_json_u64(ss, "retransmits"));
    json_object_set_new(o, "receiver_total_bytes",
                        json_integer((json_int_t)ns_json_u64(rs, "total_bytes")));
    json_object_set_new(o, "sender_total_bytes",
                        json_integer((json_int_t)ns_json_u64(ss, "total_bytes")));
    return o;
}

static json_t *
ts_combine(const struct ns_test *t, const json_t *client, const json_t *server, const json_t *cpu)
{
    (void)cpu;
    const json_t *snd = t->p.reverse ? server : client;
    const json_t *rcv = t->p.reverse ? client : server;
    double elapsed = json_number_value(json_object_get(rcv, "elapsed_s"));
    const json_t *rstreams = json_object_get(rcv, "streams");
    const json_t *sstreams = json_object_get(snd, "streams");
    json_t *streams = json_array();
    uint64_t bytes = 0, sbytes = 0, retr = 0;
    for (size_t i = 0; i < json_array_size(rstreams); i++) {
        json_t *o = ts_combine_stream(json_array_get(rstreams, i), json_array_get(sstreams, i),
                                      elapsed, (int)i);
        bytes += ns_json_u64(o, "bytes");
        sbytes += ns_json_u64(o, "sender_bytes");
        retr += ns_json_u64(o, "retransmits");
        json_array_append_new(streams, o);
    }
    return json_pack("{s:f, s:I, s:I, s:I, s:f, s:f, s:s, s:o, s:o}", "throughput_bps",
                     elapsed > 0 ? (double)bytes * 8.0 / elapsed : 0.0, "bytes", (json_int_t)bytes,
                     "sender_bytes", (json_int_t)sbytes, "retransmits", (json_int_t)retr,
                     "duration_s", elapsed, "sender_duration_s",
                     json_number_value(json_object_get(snd, "elapsed_s")), "receiver",
                     t->p.reverse ? "client" : "server", "streams", streams, "intervals",
                     ns_intervals_json(rstreams, t->p.interval_s, elapsed));
}

static void
ts_print_human(const struct ns_test *t, const json_t *result, FILE *out)
{
    (void)t;
    ns_print_stream_table(result, out);
}

static void
ts_cleanup(struct ns_test *t)
{
    struct ts_state *st = t->kind_state;
    for (int i = 0; st != NULL && i < st->set.n; i++)
        stream_io_release(&st->s[i].io);
    free(st);
    t->kind_state = NULL;
}

/* The sender's end for writing (a blocked send() fails with EPIPE, the receiver reads the rest
 * and then EOF), the receiver's for reading (a blocked recv() returns 0; what the sender still
 * writes until its own DONE is queued, not reset). */
static void
ts_stop(struct ns_test *t)
{
    int how = ns_test_is_sender(t) ? SHUT_WR : SHUT_RD;
    for (int i = 0; i < t->nfds; i++)
        shutdown(t->fds[i], how);
}

const struct test_kind ns_kind_tcp_stream = {
    .name = "tcp_stream",
    .socktype = SOCK_STREAM,
    .uses_streams = true,
    .sets_ready = true,
    .run = ts_run,
    .stop = ts_stop,
    .local_result = ts_local_result,
    .combine = ts_combine,
    .print_human = ts_print_human,
    .cleanup = ts_cleanup,
};
