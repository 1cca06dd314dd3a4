/* tcp_crr.c - connect/request/response (netperf TCP_CRR): a new TCP connection per
 * transaction. The client times connect start -> last response byte; connections_per_s counts
 * whole cycles (connect, request, response, close) over the measured interval.
 *
 * Who closes first: the server. The side that closes first keeps the connection in TIME_WAIT
 * for 60 s. On the client that state pins the ephemeral port (the 4-tuple differs only by it),
 * so at tens of thousands of connections per second a client that closed first would run out
 * of its ~28000 ephemeral ports within a couple of seconds and connect() would fail with
 * EADDRNOTAVAIL. The server's TIME_WAIT entries sit on its one listening port and cost only a
 * small timewait bucket each. So the server writes the response and closes; the client reads
 * the response, then waits for the server's FIN (EOF) before its own close(), which makes it the
 * passive closer (CLOSE_WAIT -> LAST_ACK -> CLOSED, no TIME_WAIT). */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/errors.h"
#include "nsperf/nsperf.h"
#include "nsperf/rr_common.h"

/* Per connect attempt; a timed-out attempt is retried (and counted) while the test runs, and
 * the transaction's time keeps running, as a user's would. */
#define TCP_CRR_CONNECT_MS 150
/* How long the server waits for DONE after a client abandoned its connection in flight. */
#define TCP_CRR_EOF_GRACE_MS 2000

static int
tcp_crr_prepare(int fd, struct err *e)
{
    int one = 1;
    (void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    return rr_set_wake_timeouts(fd, e);
}

/* Connect, retrying timeouts until DONE. Returns a connected fd, or -1 with *done set when the
 * phase became DONE meanwhile, or a negative code. */
static int
tcp_crr_connect(struct ns_test *t, struct rr_state *s, bool *done, struct err *e)
{
    *done = false;
    for (;;) {
        int fd = t->conn->connect_data(t, 0, TCP_CRR_CONNECT_MS, e);
        if (fd >= 0)
            return fd;
        if (ns_test_phase(t) == NS_PHASE_DONE) {
            *done = true;
            err_clear(e);
            return -1;
        }
        if (fd != NS_ETIMEDOUT)
            return fd;
        s->connect_retries++;
    }
}

/* Wait for the server's FIN so that the server is the active closer (see the top comment). */
static int
tcp_crr_await_eof(const struct ns_test *t, int fd, struct rr_state *s, struct err *e)
{
    for (;;) {
        ssize_t k = recv(fd, s->buf, 1, 0);
        if (k == 0)
            return 0;
        if (k > 0)
            return err_set(e, NS_EPROTO, "%s server sent more than the response", ns_test_name(t));
        if (errno == EINTR)
            continue;
        if (errno == ECONNRESET)
            return 0; /* the cycle completed; a reset close is still a close */
        if (errno != EAGAIN)
            return err_sys(e, NS_EIO, errno, "cannot receive on a %s connection", ns_test_name(t));
        if (ns_test_phase(t) == NS_PHASE_DONE)
            return RR_DONE;
    }
}

/* One cycle on a connected fd: request, response (timed to t1), EOF. */
static int
tcp_crr_exchange(struct ns_test *t, struct rr_state *s, int fd, uint64_t *t1, struct err *e)
{
    int rc = tcp_crr_prepare(fd, e);
    if (rc == 0)
        rc = rr_send_all(t, fd, s->buf, s->req_len, e);
    if (rc == 0)
        rc = rr_recv_all(t, fd, s->buf, s->resp_len, e);
    if (rc != 0)
        return rc;
    *t1 = clock_now_ns();
    return tcp_crr_await_eof(t, fd, s, e);
}

static int
tcp_crr_client(struct ns_test *t, struct rr_state *s, struct err *e)
{
    for (;;) {
        int ph = ns_test_phase(t);
        if (ph == NS_PHASE_DONE)
            return 0;
        uint64_t t0 = clock_now_ns(), t1 = 0;
        bool done;
        int fd = tcp_crr_connect(t, s, &done, e);
        if (done)
            return 0;
        if (fd < 0)
            return fd;
        if (!rr_live_set(s, t, fd)) { /* DONE came while connecting */
            close(fd);
            return 0;
        }
        int rc = tcp_crr_exchange(t, s, fd, &t1, e);
        rr_live_clear(s);
        close(fd);
        if (t1 != 0 && rc >= 0)
            rr_record(s, t, ph, t0, t1);
        if (rc == RR_DONE)
            return 0;
        if (rc < 0 && ns_test_phase(t) == NS_PHASE_DONE) {
            err_clear(e); /* the server stopped answering because the test is over */
            return 0;
        }
        if (rc < 0)
            return rc == NS_ECLOSED ? err_wrap(e, rc, "%s server", ns_test_name(t)) : rc;
    }
}

static int
tcp_crr_serve_one(struct ns_test *t, struct rr_state *s, int fd, struct err *e)
{
    int rc = rr_set_wake_timeouts(fd, e);
    if (rc == 0)
        rc = rr_recv_all(t, fd, s->buf, s->req_len, e);
    if (rc == 0)
        rc = rr_send_all(t, fd, s->buf, s->resp_len, e);
    close(fd); /* the server closes first: its TIME_WAIT, not the client's */
    return rc;
}

static int
tcp_crr_server(struct ns_test *t, struct rr_state *s, struct err *e)
{
    for (;;) {
        int fd = t->conn->next_data(t, RR_WAKE_MS, e);
        if (fd == NS_ETIMEDOUT) {
            if (ns_test_phase(t) == NS_PHASE_DONE) {
                err_clear(e);
                return 0;
            }
            continue;
        }
        if (fd < 0) {
            if (ns_test_phase(t) != NS_PHASE_DONE)
                return fd;
            err_clear(e);
            return 0;
        }
        int rc = tcp_crr_serve_one(t, s, fd, e);
        if (rc == RR_DONE)
            return 0;
        /* A client gives up its connection in flight as it sends STOP: wait for ours. */
        if (rc == NS_ECLOSED)
            return rr_wait_done_after_eof(t, TCP_CRR_EOF_GRACE_MS, "client", e);
        if (rc < 0) {
            /* A client that gives up a connection at DONE is no error. */
            if (ns_test_phase(t) == NS_PHASE_DONE) {
                err_clear(e);
                return 0;
            }
            return rc;
        }
        if (ns_test_phase(t) == NS_PHASE_MEASURE)
            s->n++;
        else
            s->warmup_n++;
    }
}

static int
tcp_crr_run(struct ns_test *t, struct err *e)
{
    if (t->conn == NULL ||
        (t->role == NS_ROLE_CLIENT ? t->conn->connect_data == NULL : t->conn->next_data == NULL))
        return err_set(e, NS_EINVAL, "%s needs the control layer's connection services",
                       ns_test_name(t));
    int rc = rr_state_setup(t, rr_request_len(t), rr_response_len(t), e);
    if (rc < 0)
        return rc;
    struct rr_state *s = t->kind_state;
    s->is_crr = true;
    ns_test_set_ready(t);
    if (t->role == NS_ROLE_CLIENT)
        rc = tcp_crr_client(t, s, e);
    else
        rc = tcp_crr_server(t, s, e);
    rr_finish(s, t);
    return rc;
}

/* The client's connection in flight (its server may have stopped answering: it is at DONE
 * too). The server's thread waits in next_data, which the control layer wakes itself. */
static void
tcp_crr_stop(struct ns_test *t)
{
    if (t->role == NS_ROLE_CLIENT)
        rr_live_stop(t);
}

/* A transaction is a connection: connections_per_s and connections in the result. */
static const struct rr_words tcp_crr_words = {TESTSPEC_KEY_CONNECTIONS, "connections",
                                              "Connect+request+response", "Connections/s"};

static json_t *
tcp_crr_combine(const struct ns_test *t, const json_t *client, const json_t *server,
                const json_t *cpu)
{
    (void)t;
    return rr_combine_as(&tcp_crr_words, client, server, cpu);
}

static void
tcp_crr_print(const struct ns_test *t, const json_t *result, FILE *out)
{
    (void)t;
    rr_print_as(&tcp_crr_words, result, out);
}

const struct test_kind ns_kind_tcp_crr = {
    .socktype = SOCK_STREAM,
    .uses_streams = false,
    .sets_ready = true,
    .own_connections = true,
    .nodelay = true,
    .run = tcp_crr_run,
    .stop = tcp_crr_stop,
    .local_result = rr_local_json,
    .combine = tcp_crr_combine,
    .print_human = tcp_crr_print,
    .cleanup = rr_state_cleanup,
};
