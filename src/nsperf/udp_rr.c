/* udp_rr.c - UDP request/response, one transaction in flight (netperf UDP_RR, sockperf
 * ping-pong): the client sends a datagram of -l bytes, the server answers with
 * --response-size bytes, the client times the round trip.
 *
 * Every datagram starts with the per-test cookie and a 64-bit sequence number (big-endian):
 *   cookie 16 bytes | seq 8 bytes | padding up to the message size
 * so datagrams shorter than UDP_RR_HDR_LEN are sent at that size. The server echoes the header.
 * A reply that does not come within the loss timeout makes the request lost and the client
 * moves on with the next sequence number; a reply that arrives later is counted (out of order
 * or duplicated) and otherwise ignored, so it can never be taken for the current one. */
#include <errno.h>
#include <math.h>
#include <string.h>
#include <sys/socket.h>

#include "common/clock.h"
#include "common/errors.h"
#include "nsperf/nsperf.h"
#include "nsperf/rr_common.h"

#define UDP_RR_HDR_LEN (PROTO_COOKIE_LEN + 8)
/* The loss timeout adapts to the path: 8 x the mean round trip so far, at least 200 ms (far
 * above any in-region RTT, so queueing is not mistaken for loss), at most 3 s. */
#define UDP_RR_LOSS_MIN_NS (200 * NS_PER_MS)
#define UDP_RR_LOSS_MAX_NS (3000 * NS_PER_MS)
#define UDP_RR_LOSS_FACTOR 8
/* Pause after ICMP port unreachable so that a vanished server does not make us spin. */
#define UDP_RR_REFUSED_PAUSE_NS (10 * NS_PER_MS)

static void
udp_rr_put_seq(uint8_t *p, uint64_t seq)
{
    for (int i = 7; i >= 0; i--) {
        p[i] = (uint8_t)(seq & 0xff);
        seq >>= 8;
    }
}

static uint64_t
udp_rr_get_seq(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v = (v << 8) | p[i];
    return v;
}

static bool
udp_rr_valid(const struct ns_test *t, const uint8_t *p, ssize_t len)
{
    return len >= (ssize_t)UDP_RR_HDR_LEN && memcmp(p, t->cookie, PROTO_COOKIE_LEN) == 0;
}

static uint64_t
udp_rr_loss_timeout(const struct rr_state *s)
{
    uint64_t to = s->all_n ? s->all_sum_ns / s->all_n * UDP_RR_LOSS_FACTOR : 0;
    if (to < UDP_RR_LOSS_MIN_NS)
        to = UDP_RR_LOSS_MIN_NS;
    if (to > UDP_RR_LOSS_MAX_NS)
        to = UDP_RR_LOSS_MAX_NS;
    return to;
}

/* Client-side bookkeeping of one transaction. */
struct udp_rr_txn {
    uint64_t seq;
    uint64_t answered; /* bit i: the reply to seq - i has been received */
    uint64_t t0;
    int phase0;
};

enum udp_rr_wait { UDP_RR_GOT, UDP_RR_LOST, UDP_RR_STOP };

/* Sort out a datagram that is not the awaited reply. */
static void
udp_rr_count_other(struct rr_state *s, const struct udp_rr_txn *x, uint64_t rseq)
{
    if (rseq >= x->seq || x->seq - rseq >= 64) {
        s->udp.bad++; /* from the future, or too old to tell: not ours to judge */
        return;
    }
    if (x->answered & (1ull << (x->seq - rseq)))
        s->udp.duplicated++;
    else
        s->udp.out_of_order++;
}

/* Wait for the reply to x->seq. Returns a udp_rr_wait value or a negative code. */
static int
udp_rr_wait_reply(struct ns_test *t, struct rr_state *s, int fd, const struct udp_rr_txn *x,
                  struct err *e)
{
    uint64_t deadline = x->t0 + s->udp.loss_timeout_ns;
    /* --busy-poll: this loop spins on MSG_DONTWAIT, looking at DONE and the loss deadline on
     * every turn; else recv() sleeps, woken by the reply, stop() or the wake timeout. */
    int flags = t->p.busy_poll ? MSG_DONTWAIT : 0;
    for (;;) {
        ssize_t k = recv(fd, s->buf, s->buf_len, flags);
        if (k <= 0 && ns_test_phase(t) == NS_PHASE_DONE)
            return UDP_RR_STOP; /* stop()'s shutdown ends a blocked recv with 0 */
        if (k < 0) {
            if (errno == EINTR)
                continue;
            if (errno == ECONNREFUSED) {
                ns_test_wait_phase(t, ns_test_phase(t), clock_now_ns() + UDP_RR_REFUSED_PAUSE_NS);
                return ns_test_phase(t) == NS_PHASE_DONE ? UDP_RR_STOP : UDP_RR_LOST;
            }
            if (errno != EAGAIN)
                return err_sys(e, NS_EIO, errno, "cannot receive a %s reply", ns_test_name(t));
        } else if (!udp_rr_valid(t, s->buf, k)) {
            s->udp.bad++;
        } else {
            uint64_t rseq = udp_rr_get_seq(s->buf + PROTO_COOKIE_LEN);
            if (rseq == x->seq)
                return UDP_RR_GOT;
            udp_rr_count_other(s, x, rseq);
        }
        if (ns_test_phase(t) == NS_PHASE_DONE)
            return UDP_RR_STOP;
        if (clock_now_ns() >= deadline)
            return UDP_RR_LOST;
    }
}

/* A measured reply: counted, and the RFC 3550 jitter (J += (|D| - J) / 16) of successive round
 * trips, the figure udp_stream reports from transit times. */
static void
udp_rr_count_reply(struct rr_udp *u, uint64_t rtt)
{
    u->received++;
    if (u->prev_rtt_ns != 0) {
        double d = fabs((double)rtt - (double)u->prev_rtt_ns);
        u->jitter_ns += (d - u->jitter_ns) / 16.0;
    }
    u->prev_rtt_ns = rtt;
}

static int
udp_rr_client(struct ns_test *t, struct rr_state *s, int fd, struct err *e)
{
    struct udp_rr_txn x = {0};
    for (;;) {
        x.phase0 = ns_test_phase(t);
        if (x.phase0 == NS_PHASE_DONE)
            return 0;
        bool measured = x.phase0 == NS_PHASE_MEASURE;
        x.seq++;
        x.answered <<= 1;
        s->udp.loss_timeout_ns = udp_rr_loss_timeout(s);
        memcpy(s->buf, t->cookie, PROTO_COOKIE_LEN);
        udp_rr_put_seq(s->buf + PROTO_COOKIE_LEN, x.seq);
        x.t0 = clock_now_ns();
        ssize_t k = send(fd, s->buf, s->req_len, 0);
        /* A refused or dropped send (ICMP unreachable, ENOBUFS) is a request that got lost on
         * the way: it times out below like any other. */
        if (k < 0 && errno != ECONNREFUSED && errno != ENOBUFS && errno != EAGAIN && errno != EINTR)
            return err_sys(e, NS_EIO, errno, "cannot send a %s request", ns_test_name(t));
        int rc = udp_rr_wait_reply(t, s, fd, &x, e);
        if (rc < 0)
            return rc;
        if (rc == UDP_RR_STOP)
            return 0; /* abandoned in flight at DONE: neither sent nor lost */
        if (measured)
            s->udp.sent++;
        if (rc == UDP_RR_LOST) {
            if (measured)
                s->udp.lost++;
            continue;
        }
        uint64_t t1 = clock_now_ns();
        x.answered |= 1;
        if (measured)
            udp_rr_count_reply(&s->udp, t1 - x.t0);
        rr_record(s, t, x.phase0, x.t0, t1);
    }
}

static int
udp_rr_server(struct ns_test *t, struct rr_state *s, int fd, struct err *e)
{
    int flags = t->p.busy_poll ? MSG_DONTWAIT : 0; /* spins on EAGAIN, as the client's */
    for (;;) {
        ssize_t k = recv(fd, s->buf, s->buf_len, flags);
        if (k <= 0 && ns_test_phase(t) == NS_PHASE_DONE)
            return 0; /* stop()'s shutdown ends a blocked recv with 0 */
        if (k < 0) {
            if (errno == EINTR)
                continue;
            if (errno == ECONNREFUSED) { /* our last reply hit a closed client port */
                ns_test_wait_phase(t, ns_test_phase(t), clock_now_ns() + UDP_RR_REFUSED_PAUSE_NS);
                continue;
            }
            if (errno != EAGAIN)
                return err_sys(e, NS_EIO, errno, "cannot receive a %s request", ns_test_name(t));
            if (ns_test_phase(t) == NS_PHASE_DONE)
                return 0;
            continue;
        }
        if (!udp_rr_valid(t, s->buf, k)) {
            s->udp.bad++;
            continue;
        }
        /* The header (cookie, seq) is echoed in place; the rest of the buffer is padding. */
        if (send(fd, s->buf, s->resp_len, 0) < 0 && errno != ECONNREFUSED && errno != ENOBUFS &&
            errno != EAGAIN && errno != EINTR)
            return err_sys(e, NS_EIO, errno, "cannot send a %s reply", ns_test_name(t));
        if (ns_test_phase(t) == NS_PHASE_MEASURE) {
            s->n++;
            s->udp.received++;
        } else {
            s->warmup_n++;
        }
    }
}

static size_t
udp_rr_len(size_t len)
{
    return len < UDP_RR_HDR_LEN ? UDP_RR_HDR_LEN : len;
}

static int
udp_rr_run(struct ns_test *t, struct err *e)
{
    if (t->nfds < 1)
        return err_set(e, NS_EINVAL, "%s needs a data socket", ns_test_name(t));
    int rc = rr_state_setup(t, udp_rr_len(rr_request_len(t)), udp_rr_len(rr_response_len(t)), e);
    if (rc < 0)
        return rc;
    struct rr_state *s = t->kind_state;
    s->is_udp = true;
    s->udp.loss_timeout_ns = udp_rr_loss_timeout(s);
    int fd = t->fds[0];
    rc = rr_set_wake_timeouts(fd, e);
    if (rc < 0)
        return rc;
    rc = rr_load_start(t, s, e);
    if (rc < 0)
        return rc;
    ns_test_set_ready(t);
    if (t->role == NS_ROLE_CLIENT)
        rc = udp_rr_client(t, s, fd, e);
    else
        rc = udp_rr_server(t, s, fd, e);
    rr_finish(s, t);
    struct err lerr; /* the kind's own failure is the one to tell */
    err_clear(&lerr);
    int lrc = rr_load_join(s, rc != 0 ? &lerr : e);
    return rc != 0 ? rc : lrc;
}

/* Reading only: a recv() blocked for the next datagram returns 0 at once, while a reply being
 * sent still goes out. */
static void
udp_rr_stop(struct ns_test *t)
{
    rr_stop_fds(t, SHUT_RD);
}

const struct test_kind ns_kind_udp_rr = {
    .socktype = SOCK_DGRAM,
    .uses_streams = false,
    .sets_ready = true,
    .run = udp_rr_run,
    .stop = udp_rr_stop,
    .mark = rr_mark,
    .local_result = rr_local_json,
    .combine = rr_combine_json,
    .print_human = rr_print_human,
    .cleanup = rr_state_cleanup,
};
