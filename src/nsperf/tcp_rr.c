/* tcp_rr.c - TCP request/response, one transaction in flight (netperf TCP_RR, sockperf
 * ping-pong --tcp, qperf tcp_lat): the client writes -l bytes, the server answers with
 * --response-size bytes, and the client times every round trip.
 *
 * The loop is sockperf's: blocking send() and recv() on one thread, nothing else per
 * transaction but two vDSO clock reads, an atomic phase load and a histogram increment. At DONE
 * stop() shuts the socket down; RR_WAKE_MS receive/send timeouts remain as the safety cap. */
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include "common/clock.h"
#include "common/errors.h"
#include "nsperf/nsperf.h"
#include "nsperf/rr_common.h"

/* How long a side waits for DONE after its peer closed the data connection: the client's
 * control layer may close the data socket just before its STOP reaches the server. */
#define TCP_RR_EOF_GRACE_MS 2000

static int
tcp_rr_client(struct ns_test *t, struct rr_state *s, int fd, struct err *e)
{
    for (;;) {
        int ph = ns_test_phase(t);
        if (ph == NS_PHASE_DONE)
            return 0;
        uint64_t t0 = clock_now_ns();
        int rc = rr_send_all(t, fd, s->buf, s->req_len, e);
        if (rc == 0)
            rc = rr_recv_all(t, fd, s->buf, s->resp_len, e);
        if (rc == RR_DONE)
            return 0;
        if (rc == NS_ECLOSED)
            return rr_wait_done_after_eof(t, TCP_RR_EOF_GRACE_MS, "server", e);
        if (rc < 0)
            return rc;
        rr_record(s, t, ph, t0, clock_now_ns());
    }
}

static int
tcp_rr_server(struct ns_test *t, struct rr_state *s, int fd, struct err *e)
{
    for (;;) {
        int rc = rr_recv_all(t, fd, s->buf, s->req_len, e);
        if (rc == 0)
            rc = rr_send_all(t, fd, s->buf, s->resp_len, e);
        if (rc == RR_DONE)
            return 0;
        if (rc == NS_ECLOSED)
            return rr_wait_done_after_eof(t, TCP_RR_EOF_GRACE_MS, "client", e);
        if (rc < 0)
            return rc;
        if (ns_test_phase(t) == NS_PHASE_MEASURE)
            s->n++;
        else
            s->warmup_n++;
    }
}

static int
tcp_rr_run(struct ns_test *t, struct err *e)
{
    if (t->nfds < 1)
        return err_set(e, NS_EINVAL, "%s needs a data connection", ns_test_name(t));
    int rc = rr_state_setup(t, rr_request_len(t), rr_response_len(t), e);
    if (rc < 0)
        return rc;
    struct rr_state *s = t->kind_state;
    int fd = t->fds[0];
    int one = 1;
    /* Without TCP_NODELAY a response smaller than the MSS could wait for the request's
     * delayed ACK (Nagle); every latency tool sets it. */
    (void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    rc = rr_set_wake_timeouts(fd, e);
    if (rc < 0)
        return rc;
    rc = rr_load_start(t, s, e);
    if (rc < 0)
        return rc;
    ns_test_set_ready(t);
    if (t->role == NS_ROLE_CLIENT)
        rc = tcp_rr_client(t, s, fd, e);
    else
        rc = tcp_rr_server(t, s, fd, e);
    rr_finish(s, t);
    struct err lerr; /* the kind's own failure is the one to tell */
    err_clear(&lerr);
    int lrc = rr_load_join(s, rc != 0 ? &lerr : e);
    return rc != 0 ? rc : lrc;
}

/* Both directions: a thread blocked in recv() sees EOF, one in send() EPIPE; the peer sees our
 * FIN and waits for its own DONE (rr_wait_done_after_eof). */
static void
tcp_rr_stop(struct ns_test *t)
{
    rr_stop_fds(t, SHUT_RDWR);
}

const struct test_kind ns_kind_tcp_rr = {
    .socktype = SOCK_STREAM,
    .uses_streams = false,
    .sets_ready = true,
    .nodelay = true,
    .run = tcp_rr_run,
    .stop = tcp_rr_stop,
    .mark = rr_mark,
    .local_result = rr_local_json,
    .combine = rr_combine_json,
    .print_human = rr_print_human,
    .cleanup = rr_state_cleanup,
};
