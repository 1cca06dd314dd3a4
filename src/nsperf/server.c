/* server.c - the responding side.
 *
 * One listening TCP port takes both control and data connections. The acceptor (the main
 * thread) never blocks on a peer: it accepts, reads the first bytes of each new connection
 * without blocking and with a deadline, and classifies it: a frame magic starts a control
 * session in its own thread, a data hello with the running test's cookie is handed to that test,
 * anything else gets an error frame and a close. A session claims the single test slot only
 * after authentication and valid parameters, so strangers cannot make the server "busy". */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/errors.h"
#include "common/net.h"
#include "common/sha256.h"
#include "common/text.h"
#include "nsperf/control.h"
#include "nsperf/cpu.h"
#include "nsperf/hostcount.h"

/* Connections accepted but not yet classified. Room for every data connection of the largest
 * test (-P 128 both ways) twice over, so that a burst of one test never meets a full table. */
#define SRV_MAX_PENDING (2 * NS_MAX_FDS)
#define SRV_ACCEPT_BATCH 64     /* accepts per wake-up before the pending ones are read again */
#define SRV_LISTEN_BACKLOG 4096 /* capped by net.core.somaxconn */
#define SRV_EMFILE_PAUSE_NS (100 * NS_PER_MS)
#define SRV_SLOT_WAIT_MS 5000 /* a new test waits this long for a departed client's slot */
#define SRV_MAX_SESSIONS 16   /* control connections in handshake or test at once... */
#define SRV_HARD_SESSIONS 32  /* ...or briefly more while evicted strangers wind down */
#define SRV_EVICT_AGE_NS (200 * NS_PER_MS) /* a genuine handshake takes far less */
#define SRV_QUEUE_CAP 1024
#define SRV_FIRST_FRAME_MAX 4096 /* the client HELLO is small; cap it hard */
#define SRV_CTL_FRAME_MAX                                                                          \
    (64u << 10)                  /* nothing a client sends is large; results go the other way */
#define SRV_PHASE_SLACK_MS 10000 /* beyond the announced warmup/duration */

struct pending {
    int fd;
    uint64_t born, deadline;
    size_t have;
    uint8_t buf[PROTO_DATA_HELLO_LEN];
    char peer[80];
};

struct srv {
    const struct ns_server_opts *o;
    int lfd;
    int lfd_buf;                /* -w the listener was made with (acceptor only) */
    int want_buf;               /* -w the running test asks of the listener (mu) */
    int applied_buf;            /* lfd_buf as sessions see it (mu) */
    pthread_cond_t slot_cv;     /* the slot or the listener changed (mu) */
    uint64_t accept_paused_til; /* out of descriptors: accept again after this (acceptor) */
    struct sockaddr_storage laddr;
    socklen_t laddrlen;
    int wake[2]; /* sessions tell the acceptor they ended */
    pthread_mutex_t mu;
    struct session *active;    /* the test slot (mu) */
    int sessions;              /* live control threads (mu) */
    bool served;               /* -1: a test was accepted (mu) */
    struct session *live;      /* every session thread, newest first (mu) */
    uint64_t last_activity_ns; /* (mu) */
    struct pending pend[SRV_MAX_PENDING];
    int npend;
};

struct session {
    struct srv *s;
    int ctl;
    char peer[80];
    struct ns_test t;
    const struct test_kind *k;
    pthread_cond_t cv; /* data queue, guarded by s->mu */
    int q_fd[SRV_QUEUE_CAP];
    uint32_t q_idx[SRV_QUEUE_CAP];
    size_t q_head, q_len;
    bool q_closed;
    bool owns_slot;
    struct session *next, *prev; /* s->live list (mu) */
    uint64_t born_ns;
    bool evicted;  /* (mu) */
    int udp_spare; /* unconnected UDP socket awaiting a hello, or -1 */
    struct ns_runner runner;
    struct err run_err;
    struct cpu_snap cpu0, cpu1;
    struct hostcount *hc; /* this host's counters over the measured interval */
};

/* One line on stderr: "nsperf: <who>: <what>". Both may hold a peer's text (an error about
 * its parameters quotes them): control characters are escaped so that it cannot forge a line
 * or drive the terminal. */
static void
srv_log(const char *who, const char *what)
{
    char w[128], m[2 * NS_ERR_MSG_MAX];
    fprintf(stderr, "nsperf: %s: %s\n", text_escape(who, w, sizeof w),
            text_escape(what, m, sizeof m));
    fflush(stderr);
}

static void
srv_log_test(const struct session *ss)
{
    fprintf(stderr, "nsperf: %s: %s test, %d stream%s, %g s\n", ss->peer, ns_test_name(&ss->t),
            ss->t.p.streams, ss->t.p.streams == 1 ? "" : "s", ss->t.p.duration_s);
    fflush(stderr);
}

/* ---- the data queue: acceptor -> session ---- */

static void
queue_push(struct session *ss, int fd, uint32_t idx)
{
    if (ss->q_closed || ss->q_len == SRV_QUEUE_CAP) {
        close(fd);
        return;
    }
    size_t at = (ss->q_head + ss->q_len) % SRV_QUEUE_CAP;
    ss->q_fd[at] = fd;
    ss->q_idx[at] = idx;
    ss->q_len++;
    pthread_cond_signal(&ss->cv);
}

static void
deadline_ts(struct timespec *ts, uint64_t deadline_ns)
{
    ts->tv_sec = (time_t)(deadline_ns / NS_PER_SEC);
    ts->tv_nsec = (long)(deadline_ns % NS_PER_SEC);
}

/* Pop one data connection, waiting until deadline_ns. */
static int
queue_pop(struct session *ss, uint64_t deadline_ns, uint32_t *idx, struct err *e)
{
    struct timespec ts;
    deadline_ts(&ts, deadline_ns);
    pthread_mutex_lock(&ss->s->mu);
    int rc = 0;
    /* DONE ends the wait too (session_stop broadcasts): tcp_crr's server thread is in here. */
    while (ss->q_len == 0 && !ss->q_closed && ns_test_phase(&ss->t) != NS_PHASE_DONE && rc == 0)
        rc = pthread_cond_timedwait(&ss->cv, &ss->s->mu, &ts);
    int fd;
    if (ss->q_len > 0) {
        fd = ss->q_fd[ss->q_head];
        *idx = ss->q_idx[ss->q_head];
        ss->q_head = (ss->q_head + 1) % SRV_QUEUE_CAP;
        ss->q_len--;
    } else if (ss->q_closed || ns_test_phase(&ss->t) == NS_PHASE_DONE) {
        fd = err_set(e, NS_ECLOSED, "test is over");
    } else {
        fd = err_set(e, NS_ETIMEDOUT, "no data connection arrived in time");
    }
    pthread_mutex_unlock(&ss->s->mu);
    return fd;
}

static int
srv_connect_data(struct ns_test *t, uint32_t idx, int timeout_ms, struct err *e)
{
    (void)t;
    (void)idx;
    (void)timeout_ms;
    return err_set(e, NS_EINVAL, "connect_data is a client-side operation");
}

static int
srv_next_data(struct ns_test *t, int timeout_ms, struct err *e)
{
    struct session *ss = t->conn_ctx;
    if (ns_test_phase(t) == NS_PHASE_DONE)
        return err_set(e, NS_ECLOSED, "test is over");
    uint32_t idx;
    uint64_t deadline = clock_now_ns() + (uint64_t)(timeout_ms < 0 ? 0 : timeout_ms) * NS_PER_MS;
    return queue_pop(ss, deadline, &idx, e);
}

static const struct ns_conn_ops srv_conn_ops = {
    .connect_data = srv_connect_data,
    .next_data = srv_next_data,
};

/* ---- control frames ---- */

static int
recv_frame(struct session *ss, enum proto_type want, json_t **out, int timeout_ms, struct err *e)
{
    return ns_recv_expect(ss->ctl, "client", want, SRV_CTL_FRAME_MAX, out, timeout_ms, e);
}

/* The acceptor consumed the magic; read the rest of the client's HELLO. */
static int
recv_first_hello(struct session *ss, struct err *e)
{
    uint8_t hdr[PROTO_HEADER_LEN];
    memcpy(hdr, PROTO_MAGIC, 4);
    int rc = net_read_full(ss->ctl, hdr + 4, sizeof hdr - 4, NS_HANDSHAKE_TIMEOUT_MS, e);
    enum proto_type type;
    uint32_t len = 0;
    if (rc == 0)
        rc = proto_header_decode(hdr, SRV_FIRST_FRAME_MAX, &type, &len, e);
    if (rc == 0 && type != PROTO_HELLO)
        rc = err_set(e, NS_EPROTO, "expected HELLO, got %s", proto_type_name(type));
    uint8_t buf[SRV_FIRST_FRAME_MAX];
    if (rc == 0)
        rc = net_read_full(ss->ctl, buf, len, NS_HANDSHAKE_TIMEOUT_MS, e);
    json_t *o = NULL;
    if (rc == 0)
        rc = proto_payload_decode(buf, len, &o, e);
    json_decref(o);
    return rc;
}

static int
verify_auth(struct session *ss, const char *sn, const json_t *auth, char proof_out[65],
            struct err *e)
{
    const struct ns_token *tok = ss->s->o->token;
    const char *cn = json_string_value(json_object_get(auth, "client_nonce"));
    const char *got = json_string_value(json_object_get(auth, "proof"));
    if (cn == NULL || strlen(cn) != 2 * NS_NONCE_LEN)
        return err_set(e, NS_EPROTO, "auth without a valid client nonce");
    if (tok == NULL || tok->len == 0)
        return 0;
    char want[65];
    ns_auth_proof(tok, "client", sn, cn, want);
    if (got == NULL || strlen(got) != 64 || sha256_ct_memcmp(want, got, 64) != 0)
        return err_set(e, NS_EAUTH, "authentication failed");
    ns_auth_proof(tok, "server", sn, cn, proof_out);
    return 0;
}

static int
session_auth(struct session *ss, char proof[65], struct err *e)
{
    int rc = recv_first_hello(ss, e);
    char sn[2 * NS_NONCE_LEN + 1];
    if (rc == 0)
        rc = ns_nonce_new(sn, e);
    bool auth = ss->s->o->token != NULL && ss->s->o->token->len > 0;
    json_t *hello =
        rc == 0 ? json_pack("{s:i, s:s, s:b, s:s}", "version", PROTO_VERSION, "server_nonce", sn,
                            "auth", auth, "software", "nsperf " NS_VERSION)
                : NULL;
    if (rc == 0)
        rc = proto_send(ss->ctl, PROTO_HELLO, hello, NS_HANDSHAKE_TIMEOUT_MS, e);
    json_decref(hello);
    json_t *a = NULL;
    if (rc == 0)
        rc = recv_frame(ss, PROTO_AUTH, &a, NS_HANDSHAKE_TIMEOUT_MS, e);
    if (rc == 0)
        rc = verify_auth(ss, sn, a, proof, e);
    json_decref(a);
    return rc;
}

static int
session_params(struct session *ss, struct err *e)
{
    json_t *p = NULL;
    int rc = recv_frame(ss, PROTO_PARAMS, &p, NS_HANDSHAKE_TIMEOUT_MS, e);
    if (rc == 0)
        rc = ns_params_from_json(p, &ss->t.p, e);
    json_decref(p);
    if (rc == 0)
        ss->k = ns_kind_get(ss->t.p.kind);
    return rc;
}

/* The slot's holder has lost its client: the control connection is closed or reset. Its
 * session is then winding down (it sees the same event) and frees the slot within the kind's
 * stop time. Under s->mu, so that the holder's fd is still open. */
static bool
holder_gone(const struct session *h)
{
    struct pollfd p = {.fd = h->ctl, .events = POLLIN | POLLRDHUP};
    return poll(&p, 1, 0) > 0 && (p.revents & (POLLHUP | POLLRDHUP | POLLERR | POLLNVAL)) != 0;
}

/* Wait (under s->mu) while the slot is held by a session whose client is gone: a client that
 * was killed, or finished, must not make the next one "busy" for the time its session takes to
 * stop its kind (UDP receivers drain for a moment). */
static void
wait_departed_holder(struct srv *s)
{
    uint64_t deadline = clock_now_ns() + (uint64_t)SRV_SLOT_WAIT_MS * NS_PER_MS;
    struct timespec ts;
    deadline_ts(&ts, deadline);
    while (s->active != NULL && holder_gone(s->active) &&
           pthread_cond_timedwait(&s->slot_cv, &s->mu, &ts) == 0)
        ;
}

/* The cookie is made before the session becomes the active one, under the same lock as
 * route_data() reads it: no window in which an all-zero cookie would admit a data connection. */
static int
claim_slot(struct session *ss, struct err *e)
{
    struct srv *s = ss->s;
    uint8_t cookie[PROTO_COOKIE_LEN];
    if (sha256_random_bytes(cookie, sizeof cookie) != 0)
        return err_sys(e, NS_EIO, errno, "cannot get random bytes");
    pthread_mutex_lock(&s->mu);
    int rc = 0;
    wait_departed_holder(s);
    if (s->active != NULL)
        rc = err_set(e, NS_EBUSY, "server busy: another test is running");
    else if (s->o->one_shot && s->served)
        rc = err_set(e, NS_EBUSY, "server busy: it serves one test (-1) and has served it");
    else {
        memcpy(ss->t.cookie, cookie, sizeof cookie);
        s->active = ss;
        s->served = true;
        ss->owns_slot = true;
    }
    pthread_mutex_unlock(&s->mu);
    return rc;
}

/* -w on TCP: the data connections must inherit the buffers from the listener, since the
 * window scale is fixed in the SYN-ACK (tcp(7): set before listen()). Ask the acceptor to
 * remake the listener with them, and wait until it has, before the client is told to connect. */
static int
listener_buffers(struct session *ss, int sock_buf, struct err *e)
{
    struct srv *s = ss->s;
    uint64_t deadline = clock_now_ns() + (uint64_t)NS_HANDSHAKE_TIMEOUT_MS * NS_PER_MS;
    struct timespec ts;
    deadline_ts(&ts, deadline);
    pthread_mutex_lock(&s->mu);
    s->want_buf = sock_buf;
    if (write(s->wake[1], "x", 1) < 0) {
        /* a wake-up is pending already */
    }
    int rc = 0;
    while (s->applied_buf != sock_buf && rc == 0)
        rc = pthread_cond_timedwait(&s->slot_cv, &s->mu, &ts);
    bool ok = s->applied_buf == sock_buf;
    pthread_mutex_unlock(&s->mu);
    return ok ? 0 : err_set(e, NS_EIO, "cannot set the listener's buffers to %d bytes", sock_buf);
}

static int
session_accept(struct session *ss, const char proof[65], struct err *e)
{
    int rc = 0;
    /* Every TCP test sets the listener it needs (tcp_crr's connections keep autotuning there and
     * get -w after accept()), rather than the previous test resetting it as it leaves: a remade
     * listener resets what waits in its backlog, and by then the next client may be in it. */
    if (ss->k->socktype == SOCK_STREAM || ns_load_conns(&ss->t.p) > 0) /* a load is TCP */
        rc = listener_buffers(ss, ss->k->own_connections ? 0 : ss->t.p.sock_buf, e);
    if (rc == 0 && ss->k->socktype == SOCK_DGRAM) {
        ss->udp_spare = ns_udp_bind_shared(&ss->s->laddr, ss->s->laddrlen, e);
        rc = ss->udp_spare < 0 ? ss->udp_spare : 0;
    }
    if (rc != 0)
        return rc;
    char cookie[2 * PROTO_COOKIE_LEN + 1];
    sha256_hex_encode(ss->t.cookie, sizeof ss->t.cookie, cookie);
    json_t *acc = json_pack("{s:o, s:s, s:s, s:o}", "params", ns_params_to_json(&ss->t.p), "cookie",
                            cookie, "server_proof", proof, "host", ns_host_json());
    rc = proto_send(ss->ctl, PROTO_ACCEPT, acc, NS_HANDSHAKE_TIMEOUT_MS, e);
    json_decref(acc);
    return rc;
}

/* ---- data sockets ---- */

/* The data connections of fds [from, t.nfds): the kind's (index i at fds[i]) and the load's (index
 * NS_LOAD_IDX + j at fds[nfds - nload + j]). */
static int
collect_tcp(struct session *ss, int from, struct err *e)
{
    uint64_t deadline = clock_now_ns() + (uint64_t)NS_HANDSHAKE_TIMEOUT_MS * NS_PER_MS;
    int want = ss->t.nfds - from, have = 0, first_load = ss->t.nfds - ss->t.nload;
    for (int i = from; i < ss->t.nfds; i++)
        ss->t.fds[i] = -1;
    while (have < want) {
        uint32_t idx;
        int fd = queue_pop(ss, deadline, &idx, e);
        if (fd < 0)
            return err_wrap(e, fd, "%d of %d data connections", have, want);
        int at = idx >= NS_LOAD_IDX ? first_load + (int)(idx - NS_LOAD_IDX) : (int)idx;
        bool fits = idx >= NS_LOAD_IDX ? idx - NS_LOAD_IDX < (uint32_t)ss->t.nload
                                       : at < first_load && at >= from;
        if (!fits || ss->t.fds[at] >= 0) {
            close(fd);
            continue;
        }
        ss->t.fds[at] = fd;
        have++;
    }
    return 0;
}

/* Hello on the spare socket: connect it to the sender, echo, and open the next spare. */
static int
udp_take_hello(struct session *ss, int *have, int nudp, struct err *e)
{
    uint8_t buf[NS_UDP_HELLO_LEN + 1], cookie[PROTO_COOKIE_LEN];
    struct sockaddr_storage from;
    socklen_t fl = sizeof from;
    ssize_t n =
        recvfrom(ss->udp_spare, buf, sizeof buf, MSG_DONTWAIT, (struct sockaddr *)&from, &fl);
    uint32_t idx;
    if (n != NS_UDP_HELLO_LEN || ns_data_hello_decode(buf, NS_UDP_HELLO_MAGIC, cookie, &idx) != 0 ||
        sha256_ct_memcmp(cookie, ss->t.cookie, sizeof cookie) != 0 || idx >= (uint32_t)nudp ||
        ss->t.fds[idx] >= 0)
        return 0;
    if (connect(ss->udp_spare, (struct sockaddr *)&from, fl) != 0)
        return err_sys(e, NS_EIO, errno, "cannot connect udp socket");
    send(ss->udp_spare, buf, NS_UDP_HELLO_LEN, 0);
    if (ss->t.p.sock_buf > 0)
        net_set_bufsize(ss->udp_spare, ss->t.p.sock_buf);
    ss->t.fds[idx] = ss->udp_spare;
    ss->udp_spare = -1;
    if (++*have < nudp) {
        ss->udp_spare = ns_udp_bind_shared(&ss->s->laddr, ss->s->laddrlen, e);
        if (ss->udp_spare < 0)
            return ss->udp_spare;
    }
    return 0;
}

/* A repeated hello on a connected socket means our echo was lost: echo again. */
static void
udp_reecho(int fd)
{
    uint8_t buf[NS_UDP_HELLO_LEN + 1];
    ssize_t n = recv(fd, buf, sizeof buf, MSG_DONTWAIT);
    if (n == NS_UDP_HELLO_LEN && memcmp(buf, NS_UDP_HELLO_MAGIC, 4) == 0)
        send(fd, buf, NS_UDP_HELLO_LEN, MSG_DONTWAIT);
}

/* The kind's udp sockets, fds [0, nudp). */
static int
collect_udp(struct session *ss, int nudp, struct err *e)
{
    uint64_t deadline = clock_now_ns() + (uint64_t)NS_HANDSHAKE_TIMEOUT_MS * NS_PER_MS;
    for (int i = 0; i < nudp; i++)
        ss->t.fds[i] = -1;
    int have = 0;
    struct pollfd pfd[NS_MAX_FDS + 1];
    while (have < nudp) {
        int ms = clock_ms_until(deadline);
        if (ms == 0)
            return err_set(e, NS_ETIMEDOUT, "%d of %d udp hellos arrived", have, nudp);
        nfds_t n = 0;
        pfd[n++] = (struct pollfd){.fd = ss->udp_spare, .events = POLLIN};
        for (int i = 0; i < nudp; i++)
            if (ss->t.fds[i] >= 0)
                pfd[n++] = (struct pollfd){.fd = ss->t.fds[i], .events = POLLIN};
        if (poll(pfd, n, ms) <= 0)
            continue;
        for (nfds_t i = 1; i < n; i++)
            if (pfd[i].revents & POLLIN)
                udp_reecho(pfd[i].fd);
        int rc = (pfd[0].revents & POLLIN) ? udp_take_hello(ss, &have, nudp, e) : 0;
        if (rc != 0)
            return rc;
    }
    return 0;
}

static int
session_data(struct session *ss, struct err *e)
{
    int n = ns_data_sockets(ss->k, &ss->t.p), rc = 0;
    ss->t.nload = ns_load_conns(&ss->t.p);
    ss->t.nfds = n + ss->t.nload;
    for (int i = 0; i < ss->t.nfds; i++) /* session_release closes what was set */
        ss->t.fds[i] = -1;
    if (ss->k->socktype == SOCK_DGRAM)
        rc = collect_udp(ss, n, e);
    if (rc == 0 && ss->t.nfds > (ss->k->socktype == SOCK_DGRAM ? n : 0))
        rc = collect_tcp(ss, ss->k->socktype == SOCK_DGRAM ? n : 0, e);
    /* The kind starts now, before READY, so that its threads (one per stream: up to 128) exist
     * before the client starts the clock; started on START, with the client's senders already
     * filling the buffers, they could miss a short measured interval altogether on a busy
     * machine. The kinds wait for WARMUP before moving data (stream_set_wait_start). */
    /* The data interface is the one the control connection arrived on: a test's connections
     * all go to the one address this server was bound to. Its devices and statistic names are
     * read now, so that MEASURE and DONE read values only. */
    if (rc == 0)
        ss->hc = hostcount_new_for_socket(ss->ctl);
    if (rc == 0)
        rc = ns_runner_start(&ss->runner, ss->k, &ss->t, &ss->run_err, e);
    if (rc == 0)
        rc = ns_runner_wait_ready(&ss->runner, NS_KIND_READY_MS, e);
    if (rc == 0)
        rc = proto_send(ss->ctl, PROTO_READY, NULL, NS_HANDSHAKE_TIMEOUT_MS, e);
    return rc;
}

/* ---- phases and results ---- */

/* DONE for the kind's threads: the phase, a wake-up for one waiting on the data queue
 * (tcp_crr's next_data), and the kind's own stop() for those blocked on sockets. */
static void
session_stop(struct session *ss)
{
    ns_phase_set(&ss->t, NS_PHASE_DONE);
    pthread_mutex_lock(&ss->s->mu);
    pthread_cond_broadcast(&ss->cv);
    pthread_mutex_unlock(&ss->s->mu);
    ns_runner_stop(&ss->runner);
}

static int
ms_of(double s)
{
    return (int)(s * 1000.0) + SRV_PHASE_SLACK_MS;
}

static int
session_phases(struct session *ss, struct err *e)
{
    int rc = recv_frame(ss, PROTO_START, NULL, SRV_PHASE_SLACK_MS + NS_KIND_READY_MS, e);
    if (rc == 0)
        ns_phase_set(&ss->t, NS_PHASE_WARMUP);
    if (rc == 0)
        rc = recv_frame(ss, PROTO_MEASURE, NULL, ms_of(ss->t.p.warmup_s), e);
    if (rc == 0) {
        hostcount_take(ss->hc, HOSTCOUNT_BEFORE);
        cpu_snap_take(&ss->cpu0);
        ns_phase_set(&ss->t, NS_PHASE_MEASURE);
        rc = recv_frame(ss, PROTO_STOP, NULL, ms_of(ss->t.p.duration_s), e);
    }
    if (rc == 0) {
        ns_phase_set(&ss->t, NS_PHASE_DONE);
        cpu_snap_take(&ss->cpu1);
        hostcount_take(ss->hc, HOSTCOUNT_AFTER);
        session_stop(ss);
    }
    return rc;
}

static int
session_results(struct session *ss, struct err *e)
{
    int rc = ns_runner_join(&ss->runner, 3000, e);
    if (rc != 0)
        return rc;
    json_t *msg = json_object();
    if (ss->runner.rc != 0)
        json_object_set_new(msg, "error", json_string(ss->run_err.msg));
    else
        json_object_set_new(msg, "error", json_null());
    json_object_set_new(msg, "result", ss->k->local_result(&ss->t));
    json_object_set_new(msg, "cpu", cpu_usage_json(&ss->cpu0, &ss->cpu1));
    json_object_set_new(msg, "counters",
                        ss->hc != NULL ? hostcount_json(ss->hc, false) : json_null());
    double gap;
    json_object_set_new(msg, "longest_gap_s",
                        ns_test_longest_gap(&ss->t, &gap) ? json_real(gap) : json_null());
    rc = proto_send(ss->ctl, PROTO_RESULT, msg, NS_HANDSHAKE_TIMEOUT_MS, e);
    json_decref(msg);
    if (rc == 0)
        recv_frame(ss, PROTO_BYE, NULL, NS_HANDSHAKE_TIMEOUT_MS, NULL);
    return rc;
}

static int
session_run(struct session *ss, struct err *e)
{
    char proof[65] = "";
    int rc = session_auth(ss, proof, e);
    if (rc == 0)
        rc = session_params(ss, e);
    if (rc == 0)
        rc = claim_slot(ss, e);
    if (rc == 0) {
        srv_log_test(ss);
        rc = session_accept(ss, proof, e);
    }
    if (rc == 0)
        rc = session_data(ss, e);
    if (rc == 0)
        rc = session_phases(ss, e);
    if (rc == 0)
        rc = session_results(ss, e);
    return rc;
}

/* ---- the live list: strangers in handshake can be evicted, so they cannot lock clients out ----
 */

static void
live_link(struct srv *s, struct session *ss)
{
    ss->prev = NULL;
    ss->next = s->live;
    if (s->live != NULL)
        s->live->prev = ss;
    s->live = ss;
}

static void
live_unlink(struct srv *s, struct session *ss)
{
    if (ss->prev != NULL)
        ss->prev->next = ss->next;
    else if (s->live == ss)
        s->live = ss->next;
    if (ss->next != NULL)
        ss->next->prev = ss->prev;
    ss->next = ss->prev = NULL;
}

/* With every session taken, make room by cutting off the oldest connection that has not got
 * the test slot and has been in its handshake for a while (a stranger, or a half-open
 * connection): shutdown() wakes its blocked read and its thread winds down. Under s->mu. */
static bool
evict_oldest_stranger(struct srv *s)
{
    uint64_t now = clock_now_ns();
    struct session *old = NULL;
    for (struct session *x = s->live; x != NULL; x = x->next)
        if (!x->owns_slot && !x->evicted && now - x->born_ns > SRV_EVICT_AGE_NS &&
            (old == NULL || x->born_ns < old->born_ns))
            old = x;
    if (old == NULL)
        return false;
    old->evicted = true;
    shutdown(old->ctl, SHUT_RDWR);
    return true;
}

static void
session_release(struct session *ss)
{
    struct srv *s = ss->s;
    bool leak = false;
    if (ss->runner.started) {
        session_stop(ss);
        leak = ns_runner_join(&ss->runner, 3000, NULL) != 0;
    }
    if (!leak && ss->k != NULL && ss->owns_slot && ss->k->cleanup != NULL)
        ss->k->cleanup(&ss->t);
    pthread_mutex_lock(&s->mu);
    ss->q_closed = true;
    for (; ss->q_len > 0; ss->q_len--, ss->q_head = (ss->q_head + 1) % SRV_QUEUE_CAP)
        close(ss->q_fd[ss->q_head]);
    if (ss->owns_slot) {
        s->active = NULL;
        pthread_cond_broadcast(&s->slot_cv);
    }
    live_unlink(s, ss);
    /* Wake the acceptor before unpublishing: once sessions reaches 0 and the lock is released,
     * it may free s (srv_free), so s must not be touched after the unlock. */
    if (write(s->wake[1], "x", 1) < 0) {
        /* full pipe: a wake-up is already pending; the acceptor polls with a timeout anyway */
    }
    s->sessions--;
    s->last_activity_ns = clock_now_ns();
    pthread_mutex_unlock(&s->mu);
    /* A kind that missed the join may still be in recv() on these: closing them would let the
     * next test's sockets take the same numbers under its feet. Leak them with it instead. */
    for (int i = 0; !leak && i < ss->t.nfds; i++)
        if (ss->t.fds[i] >= 0)
            close(ss->t.fds[i]);
    if (ss->udp_spare >= 0)
        close(ss->udp_spare);
    ns_close_draining(ss->ctl);
    hostcount_free(ss->hc);
    if (!leak) {
        pthread_cond_destroy(&ss->cv);
        free(ss);
    }
}

static void *
session_main(void *arg)
{
    struct session *ss = arg;
    struct err e;
    err_clear(&e);
    int rc = session_run(ss, &e);
    if (rc != 0) {
        ns_send_error(ss->ctl, e.msg);
        srv_log(ss->peer, e.msg);
    } else {
        srv_log(ss->peer, "test done");
    }
    session_release(ss);
    return NULL;
}

static struct session *
session_new(struct srv *s, int fd, const char *peer)
{
    struct session *ss = calloc(1, sizeof *ss);
    if (ss == NULL)
        return NULL;
    ss->s = s;
    ss->ctl = fd;
    snprintf(ss->peer, sizeof ss->peer, "%s", peer);
    ss->udp_spare = -1;
    ss->born_ns = clock_now_ns();
    ss->t.role = NS_ROLE_SERVER;
    ss->t.conn = &srv_conn_ops;
    ss->t.conn_ctx = ss;
    atomic_store(&ss->t.phase, NS_PHASE_SETUP);
    pthread_condattr_t ca;
    int rc = pthread_condattr_init(&ca);
    if (rc == 0) {
        rc = pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
        if (rc == 0)
            rc = pthread_cond_init(&ss->cv, &ca);
        pthread_condattr_destroy(&ca);
    }
    if (rc != 0) {
        free(ss);
        return NULL;
    }
    err_clear(&ss->run_err);
    return ss;
}

/* ---- the acceptor ---- */

static int
session_spawn(struct session *ss)
{
    pthread_t th;
    pthread_attr_t at;
    pthread_attr_init(&at);
    pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
    int rc = pthread_create(&th, &at, session_main, ss);
    pthread_attr_destroy(&at);
    return rc;
}

static void
start_session(struct srv *s, int fd, const char *peer)
{
    /* Frames go out one by one and each waits for an answer: with Nagle, a small frame (READY,
     * RESULT) sent while the previous one is unacknowledged waits for the client's delayed ACK,
     * 40 ms per test on Linux. The client's end has TCP_NODELAY too. */
    net_set_nodelay(fd);
    struct session *ss = session_new(s, fd, peer);
    pthread_mutex_lock(&s->mu);
    bool full = s->sessions >= SRV_MAX_SESSIONS;
    if (full && s->sessions < SRV_HARD_SESSIONS && evict_oldest_stranger(s))
        full = false;
    if (!full && ss != NULL) {
        s->sessions++;
        live_link(s, ss);
    }
    pthread_mutex_unlock(&s->mu);
    if (full || ss == NULL) {
        ns_send_error(fd, "server busy: too many control connections");
        close(fd);
    } else if (session_spawn(ss) == 0) {
        return;
    } else {
        ns_send_error(fd, "server busy: cannot start a thread");
        close(fd);
        pthread_mutex_lock(&s->mu);
        live_unlink(s, ss);
        s->sessions--;
        pthread_mutex_unlock(&s->mu);
    }
    if (ss != NULL) {
        pthread_cond_destroy(&ss->cv);
        free(ss);
    }
}

static void
route_data(struct srv *s, int fd, const uint8_t hello[PROTO_DATA_HELLO_LEN])
{
    uint8_t cookie[PROTO_COOKIE_LEN];
    uint32_t idx;
    ns_data_hello_decode(hello, PROTO_DATA_MAGIC, cookie, &idx);
    net_set_nonblock(fd, 0);
    pthread_mutex_lock(&s->mu);
    struct session *ss = s->active;
    if (ss != NULL && sha256_ct_memcmp(cookie, ss->t.cookie, sizeof cookie) == 0) {
        if (ss->t.p.sock_buf > 0)
            net_set_bufsize(fd, ss->t.p.sock_buf);
        if (ss->k->nodelay)
            net_set_nodelay(fd);
        queue_push(ss, fd, idx);
        fd = -1;
    }
    pthread_mutex_unlock(&s->mu);
    if (fd >= 0)
        close(fd); /* wrong or stale cookie: no error frame on a data connection */
}

static void
pending_drop(struct srv *s, int i)
{
    s->pend[i] = s->pend[--s->npend];
}

/* Read what has arrived of the first bytes; classify once enough is there. */
static void
pending_read(struct srv *s, int i)
{
    struct pending *p = &s->pend[i];
    size_t need = p->have < 4 ? 4 : PROTO_DATA_HELLO_LEN;
    ssize_t n = recv(p->fd, p->buf + p->have, need - p->have, MSG_DONTWAIT);
    if (n < 0 && (errno == EAGAIN || errno == EINTR))
        return;
    if (n <= 0) {
        close(p->fd);
        pending_drop(s, i);
        return;
    }
    p->have += (size_t)n;
    if (p->have == 4 && memcmp(p->buf, PROTO_MAGIC, 4) == 0) {
        start_session(s, p->fd, p->peer);
    } else if (p->have >= 4 && memcmp(p->buf, PROTO_DATA_MAGIC, 4) != 0) {
        srv_log(p->peer, "not an nsperf connection");
        ns_send_error(p->fd, "not an nsperf connection");
        ns_close_draining(p->fd);
    } else if (p->have == PROTO_DATA_HELLO_LEN) {
        route_data(s, p->fd, p->buf);
    } else {
        return;
    }
    pending_drop(s, i);
}

/* Read again every pending connection: a data hello that arrived after the connection was
 * accepted gets routed, a closed one dropped. Backwards for pending_drop's swap. */
static void
pending_reread(struct srv *s)
{
    for (int i = s->npend - 1; i >= 0; i--)
        pending_read(s, i);
}

/* With the table full: cut off the oldest connection that has been pending longer than a
 * genuine peer needs (our clients send their hello with the connection; a data connection is
 * classified within microseconds). Young ones are never displaced, so a flood of strangers
 * cannot evict an admitted test's data connections: it only keeps newer connections waiting in
 * the kernel's backlog, and connections that close are dropped on the next read. */
static bool
pending_evict_stale(struct srv *s, uint64_t now)
{
    int old = -1;
    for (int i = 0; i < s->npend; i++)
        if (now - s->pend[i].born > SRV_EVICT_AGE_NS &&
            (old < 0 || s->pend[i].born < s->pend[old].born))
            old = i;
    if (old < 0)
        return false;
    close(s->pend[old].fd);
    pending_drop(s, old);
    return true;
}

/* Room for one more pending connection, or false: leave the rest in the backlog for now. */
static bool
pending_room(struct srv *s)
{
    if (s->npend < SRV_MAX_PENDING)
        return true;
    pending_reread(s);
    return s->npend < SRV_MAX_PENDING || pending_evict_stale(s, clock_now_ns());
}

static void
accept_all(struct srv *s)
{
    for (int n = 0; n < SRV_ACCEPT_BATCH && pending_room(s); n++) {
        struct sockaddr_storage ss;
        socklen_t sl = sizeof ss;
        int fd = accept4(s->lfd, (struct sockaddr *)&ss, &sl, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            /* Out of descriptors (or kernel memory): the connection stays queued and the
             * listener stays readable, so polling it again at once would spin. Pause. */
            if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)
                s->accept_paused_til = clock_now_ns() + SRV_EMFILE_PAUSE_NS;
            return;
        }
        struct pending *p = &s->pend[s->npend];
        memset(p, 0, sizeof *p);
        p->fd = fd;
        p->born = clock_now_ns();
        p->deadline = p->born + (uint64_t)NS_HANDSHAKE_TIMEOUT_MS * NS_PER_MS;
        net_addr_str(&ss, p->peer, sizeof p->peer);
        s->npend++;
        pending_read(s, s->npend - 1); /* a data hello often arrives with the connection */
    }
}

static void
expire_pending(struct srv *s, uint64_t now)
{
    for (int i = s->npend - 1; i >= 0; i--) {
        if (s->pend[i].deadline > now)
            continue;
        ns_send_error(s->pend[i].fd, "timed out waiting for a hello");
        ns_close_draining(s->pend[i].fd);
        pending_drop(s, i);
    }
}

/* 1: -1 has served its test; 2: idle timeout; 0: keep going. */
static int
should_exit(struct srv *s, uint64_t now)
{
    pthread_mutex_lock(&s->mu);
    bool idle = s->active == NULL && s->sessions == 0;
    int rc = 0;
    if (s->o->one_shot && s->served && idle)
        rc = 1;
    else if (idle && s->o->idle_timeout_s > 0 &&
             (double)(now - s->last_activity_ns) / 1e9 >= s->o->idle_timeout_s)
        rc = 2;
    pthread_mutex_unlock(&s->mu);
    return rc;
}

static int
poll_timeout(const struct srv *s, uint64_t now)
{
    int ms = 1000;
    if (s->accept_paused_til > now)
        ms = (int)((s->accept_paused_til - now + NS_PER_MS - 1) / NS_PER_MS);
    for (int i = 0; i < s->npend; i++) {
        int left = s->pend[i].deadline > now
                       ? (int)((s->pend[i].deadline - now + NS_PER_MS - 1) / NS_PER_MS)
                       : 0;
        ms = left < ms ? left : ms;
    }
    return ms;
}

static int listener_apply(struct srv *s);

static int
acceptor_loop(struct srv *s)
{
    struct pollfd pfd[SRV_MAX_PENDING + 2];
    for (;;) {
        uint64_t now = clock_now_ns();
        int ex = should_exit(s, now);
        if (ex != 0)
            return ex;
        if (listener_apply(s) != 0)
            return -1;
        /* A negative fd is ignored by poll(): the listener is not watched while paused. */
        bool paused = s->accept_paused_til > now;
        pfd[0] = (struct pollfd){.fd = paused ? -1 : s->lfd, .events = POLLIN};
        pfd[1] = (struct pollfd){.fd = s->wake[0], .events = POLLIN};
        for (int i = 0; i < s->npend; i++)
            pfd[i + 2] = (struct pollfd){.fd = s->pend[i].fd, .events = POLLIN};
        int npend = s->npend;
        int rc = poll(pfd, (nfds_t)npend + 2, poll_timeout(s, now));
        if (rc < 0 && errno != EINTR)
            return -1;
        if (pfd[1].revents & POLLIN) {
            char drain[64];
            if (read(s->wake[0], drain, sizeof drain) < 0) {
                /* nothing to drain */
            }
        }
        /* Backwards so that pending_drop's swap does not skip unvisited entries. */
        for (int i = npend - 1; i >= 0; i--)
            if (pfd[i + 2].revents != 0)
                pending_read(s, i);
        if (!paused && (pfd[0].revents & POLLIN))
            accept_all(s);
        expire_pending(s, clock_now_ns());
    }
}

/* Make the listener with sock_buf buffers (0 = autotuning), on the port already bound. */
static int
listener_make(struct srv *s, int sock_buf, struct err *e)
{
    uint16_t port = s->laddrlen > 0 ? net_port(&s->laddr) : s->o->port;
    s->lfd = net_listen_tcp_buf(s->o->bind, port, s->o->family, SRV_LISTEN_BACKLOG, sock_buf, e);
    if (s->lfd < 0)
        return s->lfd;
    s->lfd_buf = sock_buf;
    /* A blocking listener would stall the acceptor in accept4() whenever a connection is gone
     * between poll() and accept() (reset by its peer). */
    if (net_set_nonblock(s->lfd, 1) != 0)
        return err_sys(e, NS_EIO, errno, "cannot make the listener non-blocking");
    return 0;
}

/* Remake the listener when a starting test wants other buffers (listener_buffers()). The
 * port is ours throughout (SO_REUSEADDR; established connections keep it); the old backlog is
 * accepted first, and only a connection that arrives in the microseconds between that and
 * close() is reset, as one refused as busy would have been. */
static int
listener_apply(struct srv *s)
{
    pthread_mutex_lock(&s->mu);
    int want = s->want_buf;
    pthread_mutex_unlock(&s->mu);
    if (want == s->lfd_buf)
        return 0;
    accept_all(s); /* what waits in the old backlog now is not lost */
    close(s->lfd);
    struct err e;
    err_clear(&e);
    int rc = listener_make(s, want, &e);
    if (rc != 0 && want != 0) {
        srv_log("listener", e.msg);
        if (s->lfd >= 0)
            close(s->lfd);
        rc = listener_make(s, 0, &e);
    }
    if (rc != 0) {
        srv_log("listener", e.msg);
        return -1;
    }
    pthread_mutex_lock(&s->mu);
    s->applied_buf = s->lfd_buf;
    pthread_cond_broadcast(&s->slot_cv);
    pthread_mutex_unlock(&s->mu);
    return 0;
}

static int
srv_open(struct srv *s, struct err *e)
{
    int rc = listener_make(s, 0, e);
    if (rc != 0)
        return rc;
    s->laddrlen = sizeof s->laddr;
    if (getsockname(s->lfd, (struct sockaddr *)&s->laddr, &s->laddrlen) != 0)
        return err_sys(e, NS_EIO, errno, "getsockname");
    if (pipe2(s->wake, O_CLOEXEC | O_NONBLOCK) != 0)
        return err_sys(e, NS_EIO, errno, "pipe");
    return 0;
}

static void
srv_free(struct srv *s)
{
    for (int i = 0; i < s->npend; i++)
        close(s->pend[i].fd);
    if (s->lfd >= 0)
        close(s->lfd);
    if (s->wake[0] >= 0) {
        close(s->wake[0]);
        close(s->wake[1]);
    }
    pthread_cond_destroy(&s->slot_cv);
    pthread_mutex_destroy(&s->mu);
    free(s);
}

static int
srv_serve(struct srv *s, struct err *e)
{
    const struct ns_server_opts *o = s->o;
    char addr[80];
    srv_log(net_addr_str(&s->laddr, addr, sizeof addr),
            o->token != NULL && o->token->len > 0 ? "listening, token required" : "listening");
    if (o->ready != NULL) {
        /* The runner waits for this line instead of sleeping (-p 0: the kernel's port). */
        fprintf(o->ready, "{\"event\":\"listening\",\"port\":%u}\n", net_port(&s->laddr));
        fflush(o->ready);
    }
    int rc = acceptor_loop(s);
    if (rc < 0)
        return err_sys(e, NS_EIO, errno, "poll");
    if (rc == 2)
        fprintf(stderr, "nsperf: idle for %g s, exiting\n", o->idle_timeout_s);
    if (rc == 2 && o->one_shot)
        return err_set(e, NS_ETIMEDOUT, "no test within the idle timeout (%g s)",
                       o->idle_timeout_s);
    return 0;
}

int
ns_server_run(const struct ns_server_opts *o, struct err *e)
{
    struct srv *s = calloc(1, sizeof *s);
    if (s == NULL)
        return err_set(e, NS_ENOMEM, "out of memory");
    s->o = o;
    s->lfd = s->wake[0] = s->wake[1] = -1;
    int prc = pthread_mutex_init(&s->mu, NULL);
    if (prc != 0) {
        free(s);
        return err_sys(e, NS_EIO, prc, "cannot create a mutex");
    }
    pthread_condattr_t ca;
    prc = pthread_condattr_init(&ca);
    if (prc == 0) {
        prc = pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
        if (prc == 0)
            prc = pthread_cond_init(&s->slot_cv, &ca);
        pthread_condattr_destroy(&ca);
    }
    if (prc != 0) {
        pthread_mutex_destroy(&s->mu);
        free(s);
        return err_sys(e, NS_EIO, prc, "cannot create a condition variable");
    }
    s->last_activity_ns = clock_now_ns();
    int rc = srv_open(s, e);
    bool sessions_may_live = false;
    if (rc == 0) {
        rc = srv_serve(s, e);
        sessions_may_live = rc == NS_EIO; /* the loop otherwise ends with no session alive */
    }
    if (!sessions_may_live)
        srv_free(s);
    return rc;
}
