/* udp_common.c - see udp_common.h. */
#include "nsperf/udp_common.h"

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
    struct stream_io io; /* first: stream_common.c sees it as one; buf holds a batch */
    struct us_state *st;
    size_t slot;     /* bytes of one datagram's place in io.buf */
    unsigned nslots; /* places: a batch; a receiver timing each datagram (jitter) has one */
    struct mmsghdr *msgs;
    struct iovec *iov;
    /* sender */
    uint64_t sent, send_errors, wseq;
    uint64_t unsent; /* measured datagrams not sent: deadlines not met, refused, left at DONE */
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
    struct us_cfg cfg;
    struct us_stream s[];
};

unsigned
udp_batch_for(uint64_t size, unsigned max)
{
    uint64_t n = size > 0 ? US_BATCH_BYTES / size : max;
    return n < 1 ? 1 : n > max ? max : (unsigned)n;
}

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

static uint8_t *
us_slot(const struct us_stream *s, unsigned j)
{
    return s->io.buf + (size_t)j * s->slot;
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

/* Datagram j of the batch, measured or not: its header for the next sequence number of its
 * kind (measured ones take the sent count plus those before it in the batch). */
static void
us_header(struct us_stream *s, unsigned j, bool measured, uint64_t seq, uint64_t now)
{
    uint8_t *b = us_slot(s, j);
    b[4] = measured ? US_PHASE_MEASURE : US_PHASE_WARMUP;
    put_be64(b + 8, seq);
    put_be64(b + 16, now);
}

/* Send datagrams 0..n-1 of the batch (headers made). Returns how many went out (the count of
 * the ones given up when the kernel refused the first: ENOBUFS and the like), or -1 after a
 * failure. */
static int
us_send_batch(struct us_stream *s, unsigned n, const bool *measured)
{
    int k = sendmmsg(s->io.fd, s->msgs, n, 0);
    if (k > 0) {
        for (int j = 0; j < k; j++) {
            if (measured[j]) {
                s->sent++;
                s->bytes += s->msgs[j].msg_len;
            } else {
                s->wseq++;
            }
        }
        return k;
    }
    if (k < 0 && (errno == ENOBUFS || errno == EAGAIN || errno == EINTR || errno == ECONNREFUSED)) {
        s->send_errors++; /* the first datagram is given up, not retried */
        s->unsent += measured[0];
        return 1;
    }
    us_fail(s, errno, "send");
    return -1;
}

/* The end datagram: the measured count in the sequence field. Best effort, as UDP is. */
static void
us_send_end(struct us_stream *s)
{
    uint8_t *b = us_slot(s, 0);
    b[4] = US_PHASE_END;
    put_be64(b + 8, s->sent);
    put_be64(b + 16, clock_now_ns());
    size_t len = s->io.buflen < US_HDR ? s->io.buflen : US_HDR;
    for (int i = 0; i < US_END_COPIES; i++)
        (void)send(s->io.fd, b, len, MSG_DONTWAIT);
}

/* Paced: every deadline met so far at once (a batch at most), each datagram measured by its
 * deadline; a stall of more than US_MAX_BACKLOG_NS is skipped, and said as unsent. */
static void
us_send_paced(struct us_stream *s, uint64_t gap)
{
    const struct ns_test *t = s->st->set.t;
    bool measured[US_MAX_BATCH];
    uint64_t next = clock_now_ns();
    while (!us_over(s)) {
        uint64_t now = clock_now_ns();
        if (now < next) {
            stream_set_sleep_until(&s->st->set, next);
            continue;
        }
        if (s->io.cpu_marks == 0 && stream_set_measuring(&s->st->set, now))
            stream_io_cpu_mark(&s->io);
        uint64_t due = (now - next) / gap + 1;
        unsigned n = due < s->st->cfg.batch ? (unsigned)due : s->st->cfg.batch;
        uint64_t seq = s->sent, wseq = s->wseq;
        for (unsigned j = 0; j < n; j++) {
            uint64_t d = next + j * gap;
            measured[j] = us_deadlines_measured(t, d, d + 1, gap) > 0;
            us_header(s, j, measured[j], measured[j] ? seq++ : wseq++, now);
        }
        int k = us_send_batch(s, n, measured);
        if (k < 0)
            return;
        next += (uint64_t)k * gap;
        if (now > next + US_MAX_BACKLOG_NS) {
            /* stalled for long: do not burst a second's worth, but say what was skipped */
            s->unsent += us_deadlines_measured(t, next, now, gap);
            next = now;
        }
    }
    if (ns_test_phase(t) == NS_PHASE_DONE)
        s->unsent += us_deadlines_measured(t, next, UINT64_MAX, gap);
}

/* Unpaced: full batches, back to back; measured while this side measures. */
static void
us_send_unpaced(struct us_stream *s)
{
    bool measured[US_MAX_BATCH];
    unsigned n = s->st->cfg.batch;
    while (!us_over(s)) {
        uint64_t now = clock_now_ns();
        bool m = stream_set_measuring(&s->st->set, now);
        if (m && s->io.cpu_marks == 0)
            stream_io_cpu_mark(&s->io);
        uint64_t seq = s->sent, wseq = s->wseq;
        for (unsigned j = 0; j < n; j++) {
            measured[j] = m;
            us_header(s, j, m, m ? seq++ : wseq++, now);
        }
        if (us_send_batch(s, n, measured) < 0)
            return;
    }
}

static void
us_send_loop(struct us_stream *s)
{
    uint64_t gap = s->st->cfg.gap_ns;
    if (gap > 0)
        us_send_paced(s, gap);
    else
        us_send_unpaced(s);
    if (s->io.cpu_marks == 1)
        stream_io_cpu_mark(&s->io);
    if (ns_test_phase(s->st->set.t) == NS_PHASE_DONE)
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
    s->bytes += n;
    stream_io_count_bin(&s->io, &s->st->set, n, now);
    if (s->st->cfg.jitter)
        us_jitter(s, sent_ns, now);
}

static void
us_handle(struct us_stream *s, const uint8_t *b, size_t n, uint64_t now)
{
    if (n < US_HDR || memcmp(b, US_MAGIC, 4) != 0 ||
        sha256_ct_memcmp(b + 24, s->st->set.t->cookie, PROTO_COOKIE_LEN) != 0)
        return; /* a late hello, or not ours */
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
        us_account(s, get_be64(b + 8), get_be64(b + 16), n, now);
}

/* One receive of up to a batch (blocking up to the socket timeout unless flags say not):
 * datagrams handled, or -1 with errno. */
static int
us_receive(struct us_stream *s, int flags)
{
    unsigned n = s->nslots;
    for (unsigned j = 0; j < n; j++)
        s->msgs[j].msg_hdr.msg_flags = 0;
    int k = recvmmsg(s->io.fd, s->msgs, n, flags | MSG_WAITFORONE, NULL);
    if (k <= 0)
        return k;
    uint64_t now = clock_now_ns();
    for (int j = 0; j < k; j++)
        us_handle(s, us_slot(s, (unsigned)j), s->msgs[j].msg_len, now);
    return k;
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
    int k;
    for (int i = 0; i < US_DRAIN_MAX && !s->end_seen && (k = us_receive(s, MSG_DONTWAIT)) > 0;
         i += k)
        ;
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
        if (ph == NS_PHASE_MEASURE && s->io.cpu_marks == 0)
            stream_io_cpu_mark(&s->io);
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
        if (us_receive(s, 0) < 0 && errno != EAGAIN && errno != EINTR && errno != ECONNREFUSED) {
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
    if (s->io.sender) {
        us_send_loop(s);
        return NULL;
    }
    us_recv_loop(s);
    if (s->io.cpu_marks == 1)
        stream_io_cpu_mark(&s->io);
    return NULL;
}

/* The batch's messages, each datagram in its slot of io.buf. */
static int
us_msgs(struct us_stream *s, unsigned n, size_t len)
{
    s->msgs = calloc(n, sizeof *s->msgs);
    s->iov = calloc(n, sizeof *s->iov);
    if (s->msgs == NULL || s->iov == NULL)
        return NS_ENOMEM;
    for (unsigned j = 0; j < n; j++) {
        s->iov[j] = (struct iovec){.iov_base = us_slot(s, j), .iov_len = len};
        s->msgs[j].msg_hdr.msg_iov = &s->iov[j];
        s->msgs[j].msg_hdr.msg_iovlen = 1;
    }
    return 0;
}

static int
us_stream_init(struct us_state *st, int i, struct err *e)
{
    struct us_stream *s = &st->s[i];
    const struct ns_params *p = &st->set.t->p;
    s->st = st;
    bool sender = stream_set_sender(&st->set, i);
    /* A receiver's places take any datagram of the agreed size (a larger one is cut, its header
     * kept); one timing each datagram has a single place, as large as a datagram can be. */
    s->nslots = sender || !st->cfg.jitter ? st->cfg.batch : 1;
    s->slot = sender           ? (size_t)p->msg_size
              : st->cfg.jitter ? NS_MAX_UDP_PAYLOAD + 1
                               : (size_t)p->msg_size + 1;
    if (stream_io_alloc(&s->io, &st->set, i, s->slot * s->nslots) != 0 ||
        us_msgs(s, s->nslots, s->slot) != 0)
        return err_set(e, NS_ENOMEM, "out of memory");
    for (unsigned j = 0; j < s->nslots; j++) {
        memcpy(us_slot(s, j), US_MAGIC, 4);
        memcpy(us_slot(s, j) + 24, st->set.t->cookie, PROTO_COOKIE_LEN);
    }
    if (sender)
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

int
udp_run(struct ns_test *t, const struct us_cfg *cfg, struct err *e)
{
    int n = t->nfds - t->nload;
    struct us_state *st = calloc(1, sizeof *st + (size_t)(n > 0 ? n : 1) * sizeof st->s[0]);
    if (st == NULL)
        return err_set(e, NS_ENOMEM, "out of memory");
    t->kind_state = st;
    st->cfg = *cfg;
    if (st->cfg.batch < 1)
        st->cfg.batch = 1;
    if (st->cfg.batch > US_MAX_BATCH)
        st->cfg.batch = US_MAX_BATCH;
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
    json_t *o;
    if (s->io.sender) {
        o = json_pack("{s:I, s:I, s:I, s:I}", "sent", (json_int_t)s->sent, "unsent",
                      (json_int_t)s->unsent, "bytes", (json_int_t)s->bytes, "send_errors",
                      (json_int_t)s->send_errors);
    } else {
        o = json_pack("{s:I, s:I, s:I, s:I}", "received", (json_int_t)s->received, "bytes",
                      (json_int_t)s->bytes, "out_of_order", (json_int_t)s->out_of_order,
                      "duplicated", (json_int_t)s->duplicated);
        if (st->cfg.jitter)
            json_object_set_new(o, "jitter_us", json_real(s->jitter_ns / 1000.0));
        if (s->io.bins != NULL)
            json_object_set_new(o, "intervals", ns_bins_json(s->io.bins, st->set.nbins));
    }
    json_object_set_new(o, "thread_cpu_s", json_real(stream_io_cpu_s(&s->io)));
    return o;
}

json_t *
udp_local_result(struct ns_test *t)
{
    const struct us_state *st = t->kind_state;
    json_t *streams = json_array();
    bool snd = false, rcv = false;
    for (int i = 0; st != NULL && i < st->set.n; i++) {
        json_array_append_new(streams, us_stream_json(st, &st->s[i]));
        snd = snd || st->s[i].io.sender;
        rcv = rcv || !st->s[i].io.sender;
    }
    double elapsed = st != NULL ? stream_set_elapsed_s(&st->set) : 0.0;
    return json_pack("{s:s, s:f, s:o}", "role",
                     snd && rcv ? "both"
                     : snd      ? "sender"
                                : "receiver",
                     "elapsed_s", elapsed, "streams", streams);
}

void
udp_cleanup(struct ns_test *t)
{
    struct us_state *st = t->kind_state;
    for (int i = 0; st != NULL && i < st->set.n; i++) {
        stream_io_release(&st->s[i].io);
        free(st->s[i].seen);
        free(st->s[i].msgs);
        free(st->s[i].iov);
    }
    free(st);
    t->kind_state = NULL;
}

/* ---- the result ---- */

struct us_tot {
    uint64_t sent, unsent, received, ooo, dup, bytes, sbytes, send_errors;
    double jitter_weighted, scpu, rcpu;
};

/* unsent: what the sender's schedule called for in its measured interval but it did not send
 * (not lost: never on the wire); sent + unsent is the rate times duration_s. */
static json_t *
us_udp_json(const struct us_tot *x, bool jitter, double jitter_us)
{
    uint64_t lost = x->sent > x->received ? x->sent - x->received : 0;
    json_t *o =
        json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "sent", (json_int_t)x->sent, "unsent",
                  (json_int_t)x->unsent, "received", (json_int_t)x->received, "lost",
                  (json_int_t)lost, "out_of_order", (json_int_t)x->ooo, "duplicated",
                  (json_int_t)x->dup, "send_errors", (json_int_t)x->send_errors);
    if (jitter)
        json_object_set_new(o, "jitter_us", json_real(jitter_us));
    json_object_set_new(o, "lost_pct",
                        json_real(x->sent > 0 ? 100.0 * (double)lost / (double)x->sent : 0.0));
    return o;
}

static json_t *
us_combine_stream(const json_t *rs, const json_t *ss, double elapsed, int idx, bool jitter,
                  struct us_tot *tot)
{
    struct us_tot one = {
        .sent = ns_json_u64(ss, "sent"),
        .unsent = ns_json_u64(ss, "unsent"),
        .received = ns_json_u64(rs, "received"),
        .ooo = ns_json_u64(rs, "out_of_order"),
        .dup = ns_json_u64(rs, "duplicated"),
        .bytes = ns_json_u64(rs, "bytes"),
        .sbytes = ns_json_u64(ss, "bytes"),
        .send_errors = ns_json_u64(ss, "send_errors"),
    };
    double jit = json_number_value(json_object_get(rs, "jitter_us"));
    tot->sent += one.sent;
    tot->unsent += one.unsent;
    tot->received += one.received;
    tot->ooo += one.ooo;
    tot->dup += one.dup;
    tot->bytes += one.bytes;
    tot->sbytes += one.sbytes;
    tot->send_errors += one.send_errors;
    tot->jitter_weighted += jit * (double)one.received;
    tot->scpu += json_number_value(json_object_get(ss, "thread_cpu_s"));
    tot->rcpu += json_number_value(json_object_get(rs, "thread_cpu_s"));
    return json_pack("{s:i, s:I, s:f, s:I, s:o}", "index", idx, "bytes", (json_int_t)one.bytes,
                     TESTSPEC_KEY_THROUGHPUT, elapsed > 0 ? (double)one.bytes * 8.0 / elapsed : 0.0,
                     "sender_bytes", (json_int_t)one.sbytes, "udp", us_udp_json(&one, jitter, jit));
}

json_t *
udp_combine_dir(const json_t *snd, const json_t *rcv, size_t from, size_t to, bool client_receives,
                double interval_s, bool jitter)
{
    /* Measured datagrams are those the sender sent in its measured interval. */
    double elapsed = json_number_value(json_object_get(snd, "elapsed_s"));
    double relapsed = json_number_value(json_object_get(rcv, "elapsed_s"));
    const json_t *rstreams = json_object_get(rcv, "streams");
    const json_t *sstreams = json_object_get(snd, "streams");
    struct us_tot tot;
    memset(&tot, 0, sizeof tot);
    json_t *streams = json_array();
    for (size_t i = from; i < to && i < json_array_size(sstreams); i++)
        json_array_append_new(streams, us_combine_stream(json_array_get(rstreams, i),
                                                         json_array_get(sstreams, i), elapsed,
                                                         (int)(i - from), jitter, &tot));
    double jit = tot.received > 0 ? tot.jitter_weighted / (double)tot.received : 0.0;
    json_t *o = json_pack("{s:f, s:I, s:I, s:f, s:s, s:o, s:o, s:o}", TESTSPEC_KEY_THROUGHPUT,
                          elapsed > 0 ? (double)tot.bytes * 8.0 / elapsed : 0.0, "bytes",
                          (json_int_t)tot.bytes, "sender_bytes", (json_int_t)tot.sbytes,
                          "duration_s", elapsed, "receiver", client_receives ? "client" : "server",
                          "udp", us_udp_json(&tot, jitter, jit), "streams", streams, "intervals",
                          ns_intervals_json(rstreams, from, to, interval_s, relapsed));
    json_object_set_new(o, "thread_cpu_pct",
                        json_pack("{s:f, s:f}", "sender",
                                  elapsed > 0 ? 100.0 * tot.scpu / elapsed : 0.0, "receiver",
                                  relapsed > 0 ? 100.0 * tot.rcpu / relapsed : 0.0));
    return o;
}

json_t *
udp_sum(const json_t *a, const json_t *b)
{
    struct us_tot x = {
        .sent = ns_json_u64(a, "sent") + ns_json_u64(b, "sent"),
        .unsent = ns_json_u64(a, "unsent") + ns_json_u64(b, "unsent"),
        .received = ns_json_u64(a, "received") + ns_json_u64(b, "received"),
        .ooo = ns_json_u64(a, "out_of_order") + ns_json_u64(b, "out_of_order"),
        .dup = ns_json_u64(a, "duplicated") + ns_json_u64(b, "duplicated"),
        .send_errors = ns_json_u64(a, "send_errors") + ns_json_u64(b, "send_errors"),
    };
    const json_t *ja = json_object_get(a, "jitter_us"), *jb = json_object_get(b, "jitter_us");
    double ra = (double)ns_json_u64(a, "received"), rb = (double)ns_json_u64(b, "received");
    double jit =
        ra + rb > 0 ? (json_number_value(ja) * ra + json_number_value(jb) * rb) / (ra + rb) : 0.0;
    return us_udp_json(&x, ja != NULL, jit);
}
