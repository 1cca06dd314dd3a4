/* client.c - the requesting side: negotiate, open data sockets, drive the phases, collect both
 * sides' results and print one document. */
#include <errno.h>
#include <poll.h>
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

#define CLIENT_RESULT_TIMEOUT_MS 10000
#define CLIENT_UDP_HELLO_RETRY_MS 100
#define CLIENT_POLL_SLICE_MS 50

struct client {
    const struct ns_client_opts *o;
    const struct test_kind *k;
    struct sockaddr_storage srv;
    socklen_t srvlen;
    struct sockaddr_storage src; /* -B: where every connection leaves from */
    socklen_t srclen;            /* 0 = the kernel's choice */
    int ctl;
    struct ns_test t;
    struct ns_runner runner;
    struct err run_err;
    struct cpu_snap cpu0, cpu1;
    json_t *remote_host;
    char server_proof[65]; /* what the server must answer in ACCEPT ("" = no auth) */
    json_t *result;        /* final result (combined) */
    json_t *cpu;           /* final cpu object */
    struct hostcount *hc;  /* this host's counters over the measured interval */
    json_t *counters;      /* {"local", "remote"}: both ends' counters */
    bool leak_kind;        /* the kind did not stop: do not clean it up */
    int interrupted_by;    /* signal that cut the measured interval short (0 = none) */
};

static int
interrupted(const struct client *c)
{
    return c->o->interrupted != NULL ? (int)*c->o->interrupted : 0;
}

static int
interrupt_err(int sig, struct err *e)
{
    return err_set(e, NS_EINTR, "interrupted by %s",
                   sig == SIGINT ? "SIGINT" : (sig == SIGTERM ? "SIGTERM" : "a signal"));
}

static int
expect_frame(struct client *c, enum proto_type want, json_t **out, int timeout_ms, struct err *e)
{
    return ns_recv_expect(c->ctl, "server", want, PROTO_MAX_PAYLOAD, out, timeout_ms, e);
}

static int
client_connect(struct client *c, struct err *e)
{
    const struct ns_client_opts *o = c->o;
    int rc = net_resolve(o->host, o->port, o->p.family, SOCK_STREAM, 0, &c->srv, &c->srvlen, e);
    if (rc == 0 && o->bind != NULL)
        rc = net_resolve(o->bind, 0, c->srv.ss_family, SOCK_STREAM, 1, &c->src, &c->srclen, e);
    if (rc != 0)
        return rc;
    int fd =
        ns_connect_stream_from(&c->srv, c->srvlen, &c->src, c->srclen, 0, o->connect_timeout_ms, e);
    if (fd < 0)
        return err_wrap(e, fd, "cannot connect to %s port %u", o->host, (unsigned)o->port);
    net_set_nodelay(fd);
    c->ctl = fd;
    return 0;
}

/* HELLO both ways; then AUTH, refusing a server that would not check our token. */
static int
client_auth(struct client *c, struct err *e)
{
    json_t *hello = json_pack("{s:i, s:s, s:s}", "version", PROTO_VERSION, "role", "client",
                              "software", "nsperf " NS_VERSION);
    int rc = proto_send(c->ctl, PROTO_HELLO, hello, NS_HANDSHAKE_TIMEOUT_MS, e);
    json_decref(hello);
    json_t *sh = NULL;
    if (rc == 0)
        rc = expect_frame(c, PROTO_HELLO, &sh, NS_HANDSHAKE_TIMEOUT_MS, e);
    if (rc != 0)
        return rc;
    bool server_auth = json_is_true(json_object_get(sh, "auth"));
    const char *sn = json_string_value(json_object_get(sh, "server_nonce"));
    bool have_token = c->o->token != NULL && c->o->token->len > 0;
    if (have_token && !server_auth)
        rc = err_set(e, NS_EAUTH,
                     "server does not check tokens; refusing to run without "
                     "authentication (start it with --token-file)");
    else if (!have_token && server_auth)
        rc = err_set(e, NS_EAUTH, "server requires a token (--token-file)");
    else if (sn == NULL || strlen(sn) != 2 * NS_NONCE_LEN)
        rc = err_set(e, NS_EPROTO, "server hello without a valid nonce");
    char cn[2 * NS_NONCE_LEN + 1], proof[65] = "";
    if (rc == 0)
        rc = ns_nonce_new(cn, e);
    if (rc == 0 && have_token)
        ns_auth_proof(c->o->token, "client", sn, cn, proof);
    json_t *auth = rc == 0 ? json_pack("{s:s, s:s}", "client_nonce", cn, "proof", proof) : NULL;
    if (rc == 0)
        rc = proto_send(c->ctl, PROTO_AUTH, auth, NS_HANDSHAKE_TIMEOUT_MS, e);
    json_decref(auth);
    if (rc == 0 && have_token)
        ns_auth_proof(c->o->token, "server", sn, cn, c->server_proof);
    json_decref(sh);
    return rc;
}

static int
check_server_proof(struct client *c, const json_t *acc, struct err *e)
{
    const char *want = c->server_proof;
    if (want[0] == '\0')
        return 0;
    const char *got = json_string_value(json_object_get(acc, "server_proof"));
    int ok = got != NULL && strlen(got) == strlen(want) &&
             sha256_ct_memcmp(want, got, strlen(want)) == 0;
    return ok ? 0 : err_set(e, NS_EAUTH, "server failed to prove it knows the token");
}

/* The server must run the test that was asked for: a changed duration or size would make the
 * client run for hours or record another test under this one's name. */
static bool
params_same(const struct ns_params *a, const struct ns_params *b)
{
    json_t *ja = ns_params_to_json(a), *jb = ns_params_to_json(b);
    bool same = json_equal(ja, jb) != 0;
    json_decref(ja);
    json_decref(jb);
    return same;
}

static int
client_negotiate(struct client *c, struct err *e)
{
    json_t *params = ns_params_to_json(&c->o->p);
    int rc = proto_send(c->ctl, PROTO_PARAMS, params, NS_HANDSHAKE_TIMEOUT_MS, e);
    json_decref(params);
    json_t *acc = NULL;
    if (rc == 0)
        rc = expect_frame(c, PROTO_ACCEPT, &acc, NS_HANDSHAKE_TIMEOUT_MS, e);
    if (rc == 0)
        rc = check_server_proof(c, acc, e);
    if (rc == 0)
        rc = ns_params_from_json(json_object_get(acc, "params"), &c->t.p, e);
    const char *cookie = json_string_value(json_object_get(acc, "cookie"));
    if (rc == 0 &&
        (cookie == NULL || sha256_hex_decode(cookie, c->t.cookie, PROTO_COOKIE_LEN) != 0))
        rc = err_set(e, NS_EPROTO, "server sent no valid cookie");
    if (rc == 0 && !params_same(&c->t.p, &c->o->p))
        rc = err_set(e, NS_EPROTO, "server answered with other parameters than requested");
    if (rc == 0) {
        c->remote_host = json_incref(json_object_get(acc, "host"));
        c->t.p.family = c->o->p.family;
    }
    json_decref(acc);
    return rc;
}

/* struct ns_conn_ops.connect_data for the client. */
static int
client_connect_data(struct ns_test *t, uint32_t idx, int timeout_ms, struct err *e)
{
    struct client *c = t->conn_ctx;
    int fd = ns_connect_stream_from(&c->srv, c->srvlen, &c->src, c->srclen, t->p.sock_buf,
                                    timeout_ms, e);
    if (fd < 0)
        return err_wrap(e, fd, "data connection %u", (unsigned)idx);
    uint8_t hello[PROTO_DATA_HELLO_LEN];
    ns_data_hello_encode(hello, PROTO_DATA_MAGIC, t->cookie, idx);
    int rc = net_write_full(fd, hello, sizeof hello, timeout_ms, e);
    if (rc != 0) {
        close(fd);
        return rc;
    }
    if (ns_kind_get(t->p.kind)->nodelay)
        net_set_nodelay(fd);
    return fd;
}

static int
client_next_data(struct ns_test *t, int timeout_ms, struct err *e)
{
    (void)t;
    (void)timeout_ms;
    return err_set(e, NS_EINVAL, "next_data is a server-side operation");
}

static const struct ns_conn_ops client_conn_ops = {
    .connect_data = client_connect_data,
    .next_data = client_next_data,
};

/* Send the UDP hello until the server echoes it (it connect()s its socket to ours first). */
static int
udp_hello(struct client *c, int fd, uint32_t idx, struct err *e)
{
    uint8_t hello[NS_UDP_HELLO_LEN], buf[NS_UDP_HELLO_LEN + 1];
    ns_data_hello_encode(hello, NS_UDP_HELLO_MAGIC, c->t.cookie, idx);
    uint64_t deadline = clock_now_ns() + (uint64_t)NS_HANDSHAKE_TIMEOUT_MS * NS_PER_MS;
    while (clock_now_ns() < deadline) {
        if (send(fd, hello, sizeof hello, 0) < 0 && errno != ECONNREFUSED)
            return err_sys(e, NS_EIO, errno, "udp hello %u", (unsigned)idx);
        struct pollfd pfd = {.fd = fd, .events = POLLIN};
        if (poll(&pfd, 1, CLIENT_UDP_HELLO_RETRY_MS) <= 0)
            continue;
        ssize_t n = recv(fd, buf, sizeof buf, 0);
        if (n == (ssize_t)sizeof hello && memcmp(buf, hello, sizeof hello) == 0)
            return 0;
    }
    return err_set(e, NS_ETIMEDOUT, "server did not answer the udp hello of stream %u",
                   (unsigned)idx);
}

static int
open_udp(struct client *c, uint32_t idx, struct err *e)
{
    int fd = socket(c->srv.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return err_sys(e, NS_EIO, errno, "cannot create udp socket");
    if (c->t.p.sock_buf > 0)
        net_set_bufsize(fd, c->t.p.sock_buf);
    int rc = 0;
    if (c->srclen > 0 && bind(fd, (const struct sockaddr *)&c->src, c->srclen) != 0)
        rc = err_sys(e, NS_ECONNECT, errno, "cannot bind the udp source address");
    if (rc == 0 && connect(fd, (const struct sockaddr *)&c->srv, c->srvlen) != 0)
        rc = err_sys(e, NS_ECONNECT, errno, "cannot connect udp socket");
    if (rc == 0)
        rc = udp_hello(c, fd, idx, e);
    if (rc != 0) {
        close(fd);
        return rc;
    }
    return fd;
}

/* The kind's data sockets, then the load's TCP connections (the last nload of fds). */
static int
client_open_data(struct client *c, struct err *e)
{
    int n = ns_data_sockets(c->k, &c->t.p), nload = ns_load_conns(&c->t.p);
    for (int i = 0; i < n + nload; i++) {
        uint32_t idx = i < n ? (uint32_t)i : NS_LOAD_IDX + (uint32_t)(i - n);
        int fd = i < n && c->k->socktype == SOCK_DGRAM
                     ? open_udp(c, idx, e)
                     : client_connect_data(&c->t, idx, NS_HANDSHAKE_TIMEOUT_MS, e);
        if (fd < 0)
            return fd;
        c->t.fds[c->t.nfds++] = fd;
        c->t.nload += i >= n;
    }
    /* The data interface: the one the control connection leaves by (-B, or the route to the
     * server), as the data connections do. Read now, while the server gets ready. */
    c->hc = hostcount_new_for_socket(c->ctl);
    return expect_frame(c, PROTO_READY, NULL, NS_READY_WAIT_MS, e);
}

/* Anything arriving on the control connection mid-test is an error or a vanished server. */
static int
control_event(struct client *c, struct err *e)
{
    enum proto_type type;
    json_t *o = NULL;
    int rc = proto_recv(c->ctl, &type, &o, 1000, e);
    if (rc == NS_ECLOSED || rc == NS_EIO)
        rc = err_set(e, NS_ECLOSED, "server closed the control connection during the test");
    else if (rc == 0 && type == PROTO_ERROR)
        rc = ns_peer_error(o, "server", e);
    else if (rc == 0)
        rc = err_set(e, NS_EPROTO, "unexpected %s from server during the test",
                     proto_type_name(type));
    json_decref(o);
    return rc;
}

/* Wait until deadline while watching the control connection and the test thread. */
static int
wait_until(struct client *c, uint64_t deadline, struct err *e)
{
    for (;;) {
        if (ns_runner_finished(&c->runner) && c->runner.rc != 0)
            return err_set(e, c->runner.rc, "%s", c->run_err.msg);
        if (interrupted(c))
            return interrupt_err(interrupted(c), e);
        int ms = clock_ms_until(deadline);
        if (ms == 0)
            return 0;
        struct pollfd pfd = {.fd = c->ctl, .events = POLLIN};
        int rc = poll(&pfd, 1, ms < CLIENT_POLL_SLICE_MS ? ms : CLIENT_POLL_SLICE_MS);
        if (rc > 0)
            return control_event(c, e);
        if (rc < 0 && errno != EINTR)
            return err_sys(e, NS_EIO, errno, "poll");
    }
}

static int
send_phase(struct client *c, enum proto_type type, struct err *e)
{
    return proto_send(c->ctl, type, NULL, NS_HANDSHAKE_TIMEOUT_MS, e);
}

static int
client_phases(struct client *c, struct err *e)
{
    /* The kind starts in SETUP and all its threads (up to 128 with -P) exist before the clock
     * starts; the stream kinds move nothing before WARMUP. */
    int rc = ns_runner_start(&c->runner, c->k, &c->t, &c->run_err, e);
    if (rc == 0)
        rc = ns_runner_wait_ready(&c->runner, NS_KIND_READY_MS, e);
    if (rc == 0) {
        ns_phase_set(&c->t, NS_PHASE_WARMUP);
        rc = send_phase(c, PROTO_START, e);
    }
    uint64_t t0 = clock_now_ns();
    if (rc == 0)
        rc = wait_until(c, t0 + (uint64_t)(c->t.p.warmup_s * 1e9), e);
    if (rc == 0) {
        hostcount_take(c->hc, HOSTCOUNT_BEFORE);
        cpu_snap_take(&c->cpu0);
        ns_phase_set(&c->t, NS_PHASE_MEASURE);
        rc = send_phase(c, PROTO_MEASURE, e);
    }
    if (rc == 0)
        rc = wait_until(c, c->t.measure_start_ns + (uint64_t)(c->t.p.duration_s * 1e9), e);
    if (rc == NS_EINTR) {
        /* Cut short in the measured interval: end it here, as iperf3 does, and keep what both
         * sides measured so far; the error is reported with the partial result. */
        c->interrupted_by = interrupted(c);
        err_clear(e);
        rc = 0;
    }
    if (rc == 0) {
        ns_phase_set(&c->t, NS_PHASE_DONE);
        cpu_snap_take(&c->cpu1);
        rc = send_phase(c, PROTO_STOP, e);
        hostcount_take(c->hc, HOSTCOUNT_AFTER); /* while the server reads its own */
    }
    return rc;
}

static int
stop_runner(struct client *c, struct err *e)
{
    bool was_started = c->runner.started;
    ns_phase_set(&c->t, NS_PHASE_DONE);
    ns_runner_stop(&c->runner);
    atomic_store(&c->t.peer_done, 1);
    int rc = ns_runner_join(&c->runner, 3000, e);
    if (rc != 0)
        c->leak_kind = true;
    else if (was_started && c->runner.rc != 0)
        rc = err_set(e, c->runner.rc, "%s", c->run_err.msg);
    return rc;
}

/* Both ends' counters, and the result's longest gap: the counting end's (a stream's receiver,
 * a request/response client), the longer if both counted. */
static void
client_host_results(struct client *c, const json_t *msg)
{
    const json_t *remote = json_object_get(msg, "counters");
    c->counters =
        json_pack("{s:o, s:O}", "local", c->hc != NULL ? hostcount_json(c->hc, false) : json_null(),
                  "remote", json_is_object(remote) ? remote : json_null());
    double gap = -1, local;
    if (ns_test_longest_gap(&c->t, &local))
        gap = local;
    const json_t *rg = json_object_get(msg, "longest_gap_s");
    if (json_is_number(rg) && json_number_value(rg) > gap)
        gap = json_number_value(rg);
    if (c->result != NULL && gap >= 0)
        json_object_set_new(c->result, "longest_gap_s", json_real(gap));
}

/* A measured interval in which nothing arrived is a failed test, not a figure of zero: a
 * journal would otherwise keep it as a valid 0 bit/s or 0 transactions/s. */
static int
check_not_empty(const json_t *result, struct err *e)
{
    const json_t *bytes = json_object_get(result, "bytes");
    if (json_is_number(bytes) && json_number_value(bytes) <= 0)
        return err_set(e, NS_EIO, "no data arrived in the measured interval");
    const json_t *n = json_object_get(json_object_get(result, HISTJSON_RTT), "n");
    if (json_is_integer(n) && json_integer_value(n) <= 0)
        return err_set(e, NS_EIO, "no transaction completed in the measured interval");
    if (!json_is_number(bytes) && !json_is_integer(n))
        return err_set(e, NS_EPROTO, "the result holds neither bytes nor transactions");
    /* --bidir's directions and a load's each carried data, or the figure is not what it says */
    static const char *const parts[] = {TESTSPEC_DIR_FORWARD, TESTSPEC_DIR_REVERSE,
                                        TESTSPEC_KEY_LOAD};
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
        const json_t *part = json_object_get(result, parts[i]);
        const json_t *pb = json_object_get(part, "bytes");
        if (part != NULL && (!json_is_number(pb) || json_number_value(pb) <= 0))
            return err_set(e, NS_EIO, "no data arrived in the measured interval (%s)", parts[i]);
    }
    return 0;
}

static int
client_results(struct client *c, struct err *e)
{
    /* The kind stops first, but is joined only once the result is here: with -R, the server's
     * sender goes on until it reads STOP, however late a loaded host lets it, and a receiver
     * here that stopped reading before would count what it sent meanwhile as lost. */
    ns_runner_stop(&c->runner);
    json_t *msg = NULL;
    struct err res_err;
    err_clear(&res_err);
    int res_rc = expect_frame(c, PROTO_RESULT, &msg, CLIENT_RESULT_TIMEOUT_MS, &res_err);
    int rc = stop_runner(c, e); /* the kind's own failure first, as before */
    if (rc == 0 && res_rc != 0)
        rc = err_set(e, res_rc, "%s", res_err.msg);
    const char *serr = json_string_value(json_object_get(msg, "error"));
    char safe[NS_ERR_MSG_MAX];
    if (rc == 0 && serr != NULL)
        rc = err_set(e, NS_EPEER, "server: %s", text_escape(serr, safe, sizeof safe));
    if (rc == 0) {
        json_t *local = c->k->local_result(&c->t);
        json_t *lcpu = cpu_usage_json(&c->cpu0, &c->cpu1);
        const json_t *rcpu = json_object_get(msg, "cpu");
        c->cpu = cpu_combine_json(lcpu, rcpu);
        c->result = c->k->combine(&c->t, local, json_object_get(msg, "result"), c->cpu);
        const json_t *bytes = json_object_get(c->result, "bytes");
        if (json_is_number(bytes))
            cpu_add_cycles_per_byte(c->cpu, lcpu, rcpu, json_number_value(bytes));
        if (c->k->cpu_figures != NULL && c->result != NULL)
            c->k->cpu_figures(&c->t, c->result, c->cpu, lcpu, rcpu);
        if (c->result != NULL && json_object_get(c->result, "cpu") == NULL)
            json_object_set(c->result, "cpu", c->cpu);
        client_host_results(c, msg);
        json_decref(local);
        json_decref(lcpu);
        send_phase(c, PROTO_BYE, NULL);
        rc = check_not_empty(c->result, e);
        if (c->interrupted_by != 0) /* the reason, whatever was measured before it */
            rc = interrupt_err(c->interrupted_by, e);
    }
    json_decref(msg);
    return rc;
}

/* Between the set-up steps (each bounded by the handshake timeout): a signal stops here. */
static int
check_interrupt(const struct client *c, int rc, struct err *e)
{
    return rc == 0 && interrupted(c) ? interrupt_err(interrupted(c), e) : rc;
}

static int
client_session(struct client *c, struct err *e)
{
    int rc = check_interrupt(c, client_connect(c, e), e);
    if (rc == 0)
        rc = check_interrupt(c, client_auth(c, e), e);
    if (rc == 0)
        rc = check_interrupt(c, client_negotiate(c, e), e);
    if (rc == 0)
        rc = check_interrupt(c, client_open_data(c, e), e);
    if (rc == 0)
        rc = client_phases(c, e);
    if (rc == 0)
        return client_results(c, e);
    if (c->ctl >= 0)
        ns_send_error(c->ctl, e->msg);
    struct err ignored;
    err_clear(&ignored);
    stop_runner(c, &ignored);
    return rc;
}

static void
client_release(struct client *c)
{
    if (!c->leak_kind && c->k->cleanup != NULL)
        c->k->cleanup(&c->t);
    for (int i = 0; !c->leak_kind && i < c->t.nfds; i++) /* see session_release() */
        close(c->t.fds[i]);
    if (c->ctl >= 0)
        close(c->ctl);
    json_decref(c->remote_host);
    json_decref(c->result);
    json_decref(c->cpu);
    json_decref(c->counters);
    hostcount_free(c->hc);
}

static void
client_print(struct client *c, const char *start, int rc, const struct err *e, FILE *out)
{
    char end[40], server[300];
    snprintf(server, sizeof server, "%s port %u", c->o->host, (unsigned)c->o->port);
    /* A result that exists is kept, also when the run failed after it (interrupted). */
    bool have = c->result != NULL;
    struct ns_doc d = {
        .p = have || rc == 0 ? &c->t.p : &c->o->p,
        .start = start,
        .end = clock_wall_iso8601(end, sizeof end),
        .result = have ? c->result : NULL,
        .cpu = have ? c->cpu : NULL,
        .counters = have ? c->counters : NULL,
        .local_host = NULL,
        .remote_host = c->remote_host,
        .error = rc == 0 ? NULL : e->msg,
        .server = server,
    };
    json_t *local = ns_host_json();
    d.local_host = local;
    if (c->o->json) {
        json_t *doc = ns_doc_json(&d);
        json_dumpf(doc, out, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
        fputc('\n', out);
        json_decref(doc);
    } else {
        ns_doc_print_human(&d, &c->t, out);
    }
    json_decref(local);
    fflush(out);
}

int
ns_client_run(const struct ns_client_opts *o, FILE *out, struct err *e)
{
    struct client *c = calloc(1, sizeof *c);
    if (c == NULL)
        return err_set(e, NS_ENOMEM, "out of memory");
    c->o = o;
    c->k = ns_kind_get(o->p.kind);
    c->ctl = -1;
    c->t.p = o->p;
    c->t.role = NS_ROLE_CLIENT;
    c->t.conn = &client_conn_ops;
    c->t.conn_ctx = c;
    atomic_store(&c->t.phase, NS_PHASE_SETUP);
    err_clear(&c->run_err);
    char start[40];
    clock_wall_iso8601(start, sizeof start);
    int rc = client_session(c, e);
    client_print(c, start, rc, e, out);
    client_release(c);
    free(c);
    return rc;
}
