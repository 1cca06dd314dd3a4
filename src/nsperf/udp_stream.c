/* udp_stream.c - paced UDP stream (iperf3 -u, netperf UDP_STREAM): loss, reordering,
 * duplication and RFC 3550 jitter.
 *
 * Every datagram starts with a 40-byte header (network byte order):
 *   0  magic "NSPu"   4  phase (1 warmup, 2 measured, 3 end), 3 bytes zero
 *   8  sequence (64-bit, per stream; measured datagrams numbered from 0)
 *   16 sender CLOCK_MONOTONIC ns   24 the test cookie (16 bytes)
 * The measured phase is marked in-band, so sent and received count exactly the same datagrams
 * whatever the control frames' latency. At its DONE the sender sends an end datagram (a few
 * times) whose sequence field is the count of measured datagrams it sent: the receiver is done
 * once it holds that many (or saw the end and its own DONE), and otherwise drains for at most
 * US_DRAIN_NS after its DONE so that datagrams still in flight are not called lost. The sender
 * paces with absolute CLOCK_MONOTONIC deadlines, catching up after oversleeping; a phase
 * change wakes its sleep. A datagram is measured when its deadline falls in the sender's
 * measured interval, not when the thread happens to send it: a backlog left from the warmup
 * does not count as measured, and deadlines of the interval the thread had not met by its DONE
 * (it was not given the CPU) are reported as unsent, so that sent + unsent is the rate times
 * the sender's duration_s whatever the load. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>

#include "common/clock.h"
#include "common/errors.h"
#include "common/net.h"
#include "common/sha256.h"
#include "nsperf/stream_common.h"

#define US_MAGIC "NSPu"
#define US_HDR 40u
#define US_PHASE_WARMUP 1
#define US_PHASE_MEASURE 2
#define US_PHASE_END 3
#define US_END_COPIES 3       /* end datagrams sent: one lost must not cost the drain cap */
#define US_WINDOW_BITS 65536u /* duplicate detection reaches this far back */
#define US_DRAIN_NS (120 * NS_PER_MS)
#define US_RECV_TIMEOUT_MS 40
#define US_MAX_BACKLOG_NS (1000 * NS_PER_MS)
#define US_DRAIN_MAX 1000000 /* datagrams: more than a receive buffer holds; a flood ends too */

struct us_state;

struct us_stream {
    struct stream_io io; /* first: stream_common.c sees it as one */
    struct us_state *st;
    /* sender */
    uint64_t sent, send_errors, wseq;
    uint64_t unsent; /* measured deadlines not met: skipped after a stall, failed, left at DONE */
    /* receiver */
    uint64_t received, out_of_order, duplicated, next_seq;
    bool end_seen;     /* the sender's end datagram arrived */
    uint64_t end_sent; /* ...with the count of measured datagrams it sent */
    double jitter_ns;
    int64_t prev_transit;
    bool have_transit;
    uint64_t *seen; /* US_WINDOW_BITS bits */
    /* both */
    uint64_t bytes;
};

struct us_state {
    struct stream_set set; /* first */
    struct us_stream s[];
};

static void
put_be64(uint8_t *p, uint64_t v)
{
    for (int i = 7; i >= 0; i--, v >>= 8)
        p[i] = (uint8_t)v;
}

static uint64_t
get_be64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v = v << 8 | p[i];
    return v;
}

static bool
us_over(const struct us_stream *s)
{
    return stream_set_over(&s->st->set);
}

static void
us_fail(struct us_stream *s, int errnum, const char *what)
{
    stream_io_fail(&s->io, &s->st->set, NS_EIO, errnum, what);
}

/* ---- sender ---- */

/* How many of the deadlines next, next + gap, ... before until fall in the measured interval
 * (as far as it is known yet: its start 0 = none, its end 0 = still running). */
static uint64_t
us_deadlines_measured(const struct ns_test *t, uint64_t next, uint64_t until, uint64_t gap)
{
    uint64_t t0 = atomic_load(&t->measure_start_ns), t1 = atomic_load(&t->measure_end_ns);
    if (t0 == 0 || gap == 0)
        return 0;
    if (t1 != 0 && until > t1)
        until = t1;
    if (next < t0)
        next += (t0 - next + gap - 1) / gap * gap;
    return until > next ? (until - next - 1) / gap + 1 : 0;
}

static int
us_send_one(struct us_stream *s, bool measured)
{
    s->io.buf[4] = measured ? US_PHASE_MEASURE : US_PHASE_WARMUP;
    put_be64(s->io.buf + 8, measured ? s->sent : s->wseq);
    put_be64(s->io.buf + 16, clock_now_ns());
    ssize_t n = send(s->io.fd, s->io.buf, s->io.buflen, 0);
    if (n < 0) {
        if (errno == ENOBUFS || errno == EAGAIN || errno == EINTR || errno == ECONNREFUSED) {
            s->send_errors++;
            s->unsent += measured;
            return 0;
        }
        us_fail(s, errno, "send");
        return -1;
    }
    if (measured) {
        s->sent++;
        s->bytes += (uint64_t)n;
    } else {
        s->wseq++;
    }
    return 0;
}

/* The end datagram: the measured count in the sequence field. Best effort, as UDP is. */
static void
us_send_end(struct us_stream *s)
{
    s->io.buf[4] = US_PHASE_END;
    put_be64(s->io.buf + 8, s->sent);
    put_be64(s->io.buf + 16, clock_now_ns());
    size_t len = s->io.buflen < US_HDR ? s->io.buflen : US_HDR;
    for (int i = 0; i < US_END_COPIES; i++)
        (void)send(s->io.fd, s->io.buf, len, MSG_DONTWAIT);
}

static void
us_send_loop(struct us_stream *s)
{
    const struct ns_params *p = &s->st->set.t->p;
    double per_stream = (double)p->rate_bps / p->streams;
    uint64_t gap = (uint64_t)((double)s->io.buflen * 8.0 * 1e9 / per_stream);
    if (gap == 0)
        gap = 1;
    const struct ns_test *t = s->st->set.t;
    uint64_t next = clock_now_ns();
    while (!us_over(s)) {
        uint64_t now = clock_now_ns();
        if (now < next) {
            stream_set_sleep_until(&s->st->set, next);
            continue;
        }
        if (us_send_one(s, us_deadlines_measured(t, next, next + 1, gap) > 0) != 0)
            return;
        next += gap;
        if (now > next + US_MAX_BACKLOG_NS) {
            /* stalled for long: do not burst a second's worth, but say what was skipped */
            s->unsent += us_deadlines_measured(t, next, now, gap);
            next = now;
        }
    }
    if (ns_test_phase(t) != NS_PHASE_DONE)
        return;
    s->unsent += us_deadlines_measured(t, next, UINT64_MAX, gap);
    us_send_end(s);
}

/* ---- receiver ---- */

static bool
bit_test_set(uint64_t *bits, uint64_t seq)
{
    uint64_t i = seq % US_WINDOW_BITS;
    bool was = (bits[i / 64] >> (i % 64)) & 1u;
    bits[i / 64] |= (uint64_t)1 << (i % 64);
    return was;
}

static void
bit_clear(uint64_t *bits, uint64_t seq)
{
    uint64_t i = seq % US_WINDOW_BITS;
    bits[i / 64] &= ~((uint64_t)1 << (i % 64));
}

/* RFC 3550 6.4.1: J += (|D| - J) / 16 over transit-time differences (clock offsets cancel). */
static void
us_jitter(struct us_stream *s, uint64_t sent_ns, uint64_t now)
{
    int64_t transit = (int64_t)(now - sent_ns);
    if (s->have_transit) {
        int64_t d = transit - s->prev_transit;
        double ad = d < 0 ? -(double)d : (double)d;
        s->jitter_ns += (ad - s->jitter_ns) / 16.0;
    }
    s->prev_transit = transit;
    s->have_transit = true;
}

static void
us_count_bytes(struct us_stream *s, uint64_t n, uint64_t now)
{
    s->bytes += n;
    stream_io_count_bin(&s->io, &s->st->set, n, now);
}

static void
us_account(struct us_stream *s, uint64_t seq, uint64_t sent_ns, uint64_t n, uint64_t now)
{
    if (seq >= s->next_seq) {
        uint64_t gap = seq - s->next_seq;
        if (gap >= US_WINDOW_BITS)
            memset(s->seen, 0, US_WINDOW_BITS / 8);
        else
            for (uint64_t q = s->next_seq; q < seq; q++)
                bit_clear(s->seen, q);
        bit_clear(s->seen, seq);
        bit_test_set(s->seen, seq);
        s->next_seq = seq + 1;
    } else if (s->next_seq - seq <= US_WINDOW_BITS && bit_test_set(s->seen, seq)) {
        s->duplicated++;
        return;
    } else {
        s->out_of_order++;
    }
    s->received++;
    us_count_bytes(s, n, now);
    us_jitter(s, sent_ns, now);
}

static void
us_handle(struct us_stream *s, ssize_t n)
{
    const uint8_t *b = s->io.buf;
    if (n < (ssize_t)US_HDR || memcmp(b, US_MAGIC, 4) != 0 ||
        sha256_ct_memcmp(b + 24, s->st->set.t->cookie, PROTO_COOKIE_LEN) != 0)
        return; /* a late hello, or not ours */
    uint64_t now = clock_now_ns();
    if (b[4] == US_PHASE_END) {
        s->end_seen = true;
        s->end_sent = get_be64(b + 8);
        ns_test_progress_end(s->st->set.t, now);
        return;
    }
    /* Whatever its phase, a datagram arrived: a sender's warmup backlog draining into this
     * side's measured interval is no stall of the path. */
    ns_test_progress(s->st->set.t, now);
    if (b[4] == US_PHASE_MEASURE)
        us_account(s, get_be64(b + 8), get_be64(b + 16), (uint64_t)n, now);
}

/* Every measured datagram the sender counted is here: nothing more can arrive but duplicates. */
static bool
us_complete(const struct us_stream *s)
{
    return s->end_seen && s->received >= s->end_sent;
}

/* What is queued on the socket now, without waiting: the sender has sent all it will. */
static void
us_drain_queued(struct us_stream *s)
{
    ssize_t n;
    for (int i = 0; i < US_DRAIN_MAX && !s->end_seen &&
                    (n = recv(s->io.fd, s->io.buf, s->io.buflen, MSG_DONTWAIT)) >= 0;
         i++)
        us_handle(s, n);
}

static void
us_recv_loop(struct us_stream *s)
{
    uint64_t drain_until = 0;
    /* A client's receiver (-R) waits for its server's result instead of a drain cap: the
     * server's sender goes on until it reads STOP, however late that is on a loaded host. */
    bool wait_peer = s->st->set.t->role == NS_ROLE_CLIENT;
    for (;;) {
        if (atomic_load(&s->st->set.abort))
            return;
        int ph = ns_test_phase(s->st->set.t);
        if (ph == NS_PHASE_DONE) {
            uint64_t now = clock_now_ns();
            if (s->end_seen)
                return; /* complete, or what is missing was lost (or comes too late) */
            if (wait_peer) {
                if (atomic_load(&s->st->set.t->peer_done)) {
                    us_drain_queued(s);
                    return;
                }
            } else if (drain_until == 0)
                drain_until = now + US_DRAIN_NS;
            else if (now >= drain_until)
                return;
        } else if (us_complete(s)) {
            /* The sender is done before our DONE (forward: its STOP is on the way). */
            stream_set_sleep_until(&s->st->set, clock_now_ns() + STREAM_ABORT_CAP_NS);
            continue;
        }
        ssize_t n = recv(s->io.fd, s->io.buf, s->io.buflen, 0);
        if (n >= 0)
            us_handle(s, n);
        else if (errno != EAGAIN && errno != EINTR && errno != ECONNREFUSED) {
            us_fail(s, errno, "recv");
            return;
        }
    }
}

static void *
us_thread(void *arg)
{
    struct us_stream *s = arg;
    stream_set_wait_start(&s->st->set);
    if (s->st->set.sender)
        us_send_loop(s);
    else
        us_recv_loop(s);
    return NULL;
}

static int
us_stream_init(struct us_state *st, int i, struct err *e)
{
    struct us_stream *s = &st->s[i];
    const struct ns_params *p = &st->set.t->p;
    s->st = st;
    size_t len = st->set.sender ? (size_t)p->msg_size : NS_MAX_UDP_PAYLOAD + 1;
    if (stream_io_alloc(&s->io, &st->set, i, len) != 0)
        return err_set(e, NS_ENOMEM, "out of memory");
    memcpy(s->io.buf, US_MAGIC, 4);
    memcpy(s->io.buf + 24, st->set.t->cookie, PROTO_COOKIE_LEN);
    if (st->set.sender)
        return 0;
    s->seen = calloc(US_WINDOW_BITS / 64, sizeof *s->seen);
    if (s->seen == NULL)
        return err_set(e, NS_ENOMEM, "out of memory");
    /* The receiver's buffer: -w, or NS_UDP_RECV_BUF (documented in --help and the JSON). A
     * kernel cap (net.core.rmem_max) may give less, which is not an error. */
    int rcvbuf = p->sock_buf > 0 ? p->sock_buf : NS_UDP_RECV_BUF;
    if (setsockopt(s->io.fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf) != 0)
        return err_sys(e, NS_EIO, errno, "udp stream %d: cannot set the receive buffer", i);
    /* The receiver's DONE and drain checks rest on this timeout. */
    if (net_set_timeouts(s->io.fd, 0, US_RECV_TIMEOUT_MS) != 0)
        return err_sys(e, NS_EIO, errno, "udp stream %d: cannot set socket timeouts", i);
    return 0;
}

static int
us_run(struct ns_test *t, struct err *e)
{
    struct us_state *st = calloc(1, sizeof *st + (size_t)t->nfds * sizeof st->s[0]);
    if (st == NULL)
        return err_set(e, NS_ENOMEM, "out of memory");
    t->kind_state = st;
    stream_set_init(&st->set, t);
    for (int i = 0; i < st->set.n; i++) {
        int rc = us_stream_init(st, i, e);
        if (rc != 0)
            return rc;
    }
    return stream_set_run(&st->set, st->s, sizeof st->s[0], us_thread, e);
}

static json_t *
us_stream_json(const struct us_state *st, const struct us_stream *s)
{
    if (st->set.sender)
        return json_pack("{s:I, s:I, s:I, s:I}", "sent", (json_int_t)s->sent, "unsent",
                         (json_int_t)s->unsent, "bytes", (json_int_t)s->bytes, "send_errors",
                         (json_int_t)s->send_errors);
    json_t *o =
        json_pack("{s:I, s:I, s:I, s:I, s:f}", "received", (json_int_t)s->received, "bytes",
                  (json_int_t)s->bytes, "out_of_order", (json_int_t)s->out_of_order, "duplicated",
                  (json_int_t)s->duplicated, "jitter_us", s->jitter_ns / 1000.0);
    if (s->io.bins != NULL)
        json_object_set_new(o, "intervals", ns_bins_json(s->io.bins, st->set.nbins));
    return o;
}

static json_t *
us_local_result(struct ns_test *t)
{
    const struct us_state *st = t->kind_state;
    json_t *streams = json_array();
    for (int i = 0; st != NULL && i < st->set.n; i++)
        json_array_append_new(streams, us_stream_json(st, &st->s[i]));
    double elapsed = stream_elapsed_s(t);
    return json_pack("{s:s, s:f, s:o}", "role", ns_test_is_sender(t) ? "sender" : "receiver",
                     "elapsed_s", elapsed, "streams", streams);
}

struct us_tot {
    uint64_t sent, unsent, received, lost, ooo, dup, bytes, sbytes;
    double jitter_weighted;
};

/* unsent: what the sender's schedule called for in its measured interval but it did not send
 * (not lost: never on the wire); sent + unsent is the rate times duration_s. */
static json_t *
us_udp_json(uint64_t sent, uint64_t unsent, uint64_t received, uint64_t ooo, uint64_t dup,
            double jitter_us)
{
    uint64_t lost = sent > received ? sent - received : 0;
    return json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:f, s:f}", "sent", (json_int_t)sent, "unsent",
                     (json_int_t)unsent, "received", (json_int_t)received, "lost", (json_int_t)lost,
                     "out_of_order", (json_int_t)ooo, "duplicated", (json_int_t)dup, "jitter_us",
                     jitter_us, "lost_pct", sent > 0 ? 100.0 * (double)lost / (double)sent : 0.0);
}

static json_t *
us_combine_stream(const json_t *rs, const json_t *ss, double elapsed, int idx, struct us_tot *tot)
{
    uint64_t sent = ns_json_u64(ss, "sent"), rcvd = ns_json_u64(rs, "received");
    uint64_t unsent = ns_json_u64(ss, "unsent");
    uint64_t ooo = ns_json_u64(rs, "out_of_order"), dup = ns_json_u64(rs, "duplicated");
    uint64_t bytes = ns_json_u64(rs, "bytes");
    double jit = json_number_value(json_object_get(rs, "jitter_us"));
    tot->sent += sent;
    tot->unsent += unsent;
    tot->received += rcvd;
    tot->ooo += ooo;
    tot->dup += dup;
    tot->bytes += bytes;
    tot->sbytes += ns_json_u64(ss, "bytes");
    tot->jitter_weighted += jit * (double)rcvd;
    return json_pack("{s:i, s:I, s:f, s:I, s:o}", "index", idx, "bytes", (json_int_t)bytes,
                     TESTSPEC_KEY_THROUGHPUT, elapsed > 0 ? (double)bytes * 8.0 / elapsed : 0.0,
                     "sender_bytes", (json_int_t)ns_json_u64(ss, "bytes"), "udp",
                     us_udp_json(sent, unsent, rcvd, ooo, dup, jit));
}

static json_t *
us_combine(const struct ns_test *t, const json_t *client, const json_t *server, const json_t *cpu)
{
    (void)cpu;
    const json_t *snd = t->p.reverse ? server : client;
    const json_t *rcv = t->p.reverse ? client : server;
    /* Measured datagrams are those the sender sent in its measured interval. */
    double elapsed = json_number_value(json_object_get(snd, "elapsed_s"));
    const json_t *rstreams = json_object_get(rcv, "streams");
    const json_t *sstreams = json_object_get(snd, "streams");
    struct us_tot tot;
    memset(&tot, 0, sizeof tot);
    json_t *streams = json_array();
    for (size_t i = 0; i < json_array_size(sstreams); i++)
        json_array_append_new(streams, us_combine_stream(json_array_get(rstreams, i),
                                                         json_array_get(sstreams, i), elapsed,
                                                         (int)i, &tot));
    double jitter = tot.received > 0 ? tot.jitter_weighted / (double)tot.received : 0.0;
    return json_pack("{s:f, s:I, s:I, s:f, s:s, s:o, s:o, s:o}", TESTSPEC_KEY_THROUGHPUT,
                     elapsed > 0 ? (double)tot.bytes * 8.0 / elapsed : 0.0, "bytes",
                     (json_int_t)tot.bytes, "sender_bytes", (json_int_t)tot.sbytes, "duration_s",
                     elapsed, "receiver", t->p.reverse ? "client" : "server", "udp",
                     us_udp_json(tot.sent, tot.unsent, tot.received, tot.ooo, tot.dup, jitter),
                     "streams", streams, "intervals",
                     ns_intervals_json(rstreams, t->p.interval_s,
                                       json_number_value(json_object_get(rcv, "elapsed_s"))));
}

static void
us_print_human(const struct ns_test *t, const json_t *result, FILE *out)
{
    (void)t;
    ns_print_stream_table(result, out);
    const json_t *u = json_object_get(result, "udp");
    fprintf(out, "out of order %llu, duplicated %llu\n",
            (unsigned long long)ns_json_u64(u, "out_of_order"),
            (unsigned long long)ns_json_u64(u, "duplicated"));
    uint64_t unsent = ns_json_u64(u, "unsent");
    if (unsent > 0) /* the rate asked for was not offered: say so beside the figures */
        fprintf(out, "unsent %llu: the sender fell behind its schedule (not given the CPU)\n",
                (unsigned long long)unsent);
}

static void
us_cleanup(struct ns_test *t)
{
    struct us_state *st = t->kind_state;
    for (int i = 0; st != NULL && i < st->set.n; i++) {
        stream_io_release(&st->s[i].io);
        free(st->s[i].seen);
    }
    free(st);
    t->kind_state = NULL;
}

/* The choice a user compares against iperf3 (see --help): the receiver asks for a 4 MiB buffer
 * unless -w gives one (iperf3 leaves the kernel default, and so reports the loss a small
 * buffer causes). */
static void
us_params_json(const struct ns_params *p, json_t *params)
{
    json_object_set_new(params, "udp_recv_buf",
                        json_integer(p->sock_buf > 0 ? p->sock_buf : NS_UDP_RECV_BUF));
}

const struct test_kind ns_kind_udp_stream = {
    .socktype = SOCK_DGRAM,
    .uses_streams = true,
    .sets_ready = true,
    .run = us_run,
    .local_result = us_local_result,
    .combine = us_combine,
    .print_human = us_print_human,
    .cleanup = us_cleanup,
    .params_json = us_params_json,
};
