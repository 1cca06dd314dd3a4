/* nsperf.h - internal interface of the nsperf endpoint: test parameters, the per-test runtime
 * shared by the control layer and the test kinds, and the test-kind operations table
 * (iperf3's `struct protocol`, wrk's `struct sock`).
 *
 * Division of labour:
 *  - the control layer (client.c, server.c, control.c) negotiates parameters, authenticates,
 *    establishes the data sockets, drives the phases (SETUP -> WARMUP -> MEASURE -> DONE) on
 *    both sides, measures CPU over the measured interval, exchanges results and prints;
 *  - a test kind (tcp_stream.c, udp_stream.c, tcp_rr.c, udp_rr.c, tcp_crr.c) moves data on the
 *    sockets it is given, counts only while phase == NS_PHASE_MEASURE, and turns its counters
 *    into a JSON result fragment using the names of nsperf(1)'s JSON OUTPUT
 *    (throughput_bps, rtt_us, ...). */
#ifndef NS_NSPERF_H
#define NS_NSPERF_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/socket.h>

#include <jansson.h>

#include "common/proto.h"
#include "common/testspec.h"

struct err;

#define NS_DEFAULT_PORT 5301
/* udp_stream's receive buffer without -w. iperf3 keeps the kernel default (212 KiB here) and so
 * reports as loss the bursts a small buffer cannot absorb; nsperf measures the path, not its
 * own socket: shown in --help and the JSON params as udp_recv_buf. */
#define NS_UDP_RECV_BUF (4 << 20)
/* Data sockets of one test at most: -P streams each way (--bidir), or an rr kind's socket and
 * its load both ways. */
#define NS_MAX_FDS (2 * NS_MAX_STREAMS + 1)
/* The data hello's index of the load's i-th connection: apart from the kind's own. */
#define NS_LOAD_IDX 65536u

/* Every parameter the client sends; the server answers with the same object as applied. */
struct ns_params {
    enum testspec_kind kind;
    int streams;            /* -P: parallel data connections/sockets, 1..NS_MAX_STREAMS */
    uint64_t msg_size;      /* -l: write size (stream kinds), request size (rr, crr) */
    uint64_t response_size; /* --response-size (rr, crr); default: msg_size */
    double duration_s;      /* -t: measured interval, excluding warmup */
    double warmup_s;        /* --warmup: traffic runs but is not counted */
    double interval_s;      /* -i: per-interval samples, 0 = none */
    uint64_t rate_bps;      /* -b: total target rate in bits/s; 0 = unpaced (TCP); UDP default 1M */
    bool reverse;           /* -R: server sends (stream kinds) */
    int sock_buf;           /* -w: SO_SNDBUF/SO_RCVBUF bytes, 0 = kernel autotuning */
    bool copy;              /* --copy: tcp_stream through user memory, not zero-copy */
    bool busy_poll;         /* --busy-poll: rr kinds spin on the socket instead of sleeping */
    bool bidir;             /* --bidir: stream kinds run -P streams each way at once */
    uint64_t packet_rate;   /* --packet-rate: udp_pps's packets/s, 0 = as fast as it goes */
    int load_streams;       /* --load: tcp_rr/udp_rr under that many bulk TCP streams, 0 = none */
    int load_direction;     /* --load-direction: enum testspec_direction */
    int family;             /* AF_UNSPEC, AF_INET (-4) or AF_INET6 (-6) */
};

enum ns_role { NS_ROLE_CLIENT, NS_ROLE_SERVER };

enum ns_phase { NS_PHASE_SETUP, NS_PHASE_WARMUP, NS_PHASE_MEASURE, NS_PHASE_DONE };

struct ns_test;
struct test_kind;

/* Services of the control layer that a kind may call. */
struct ns_conn_ops {
    /* Client side: open one more data connection (TCP) to the server, cookie presented,
     * stream index idx. Returns a blocking fd or a negative NS_E* code. Used by tcp_crr. */
    int (*connect_data)(struct ns_test *t, uint32_t idx, int timeout_ms, struct err *e);
    /* Server side: next data connection the acceptor routed to this test (cookie checked, hello
     * consumed), waiting at most timeout_ms. Returns fd, NS_ETIMEDOUT, or another negative code
     * when the test is over. Used by tcp_crr. */
    int (*next_data)(struct ns_test *t, int timeout_ms, struct err *e);
};

struct ns_test {
    struct ns_params p;
    enum ns_role role;
    _Atomic int phase; /* enum ns_phase, written by the control layer */
    /* Atomic: a receiving kind reads them while the control thread sets them (a UDP datagram
     * the sender marked as measured can arrive before this side's MEASURE; ThreadSanitizer). */
    _Atomic uint64_t measure_start_ns; /* local CLOCK_MONOTONIC when MEASURE began (0 = not yet) */
    _Atomic uint64_t measure_end_ns;   /* local CLOCK_MONOTONIC when DONE began (0 = not yet) */
    /* The longest time of the measured interval in which nothing arrived here (no byte, no
     * completed transaction): what shows a stalled trial, with or without -i. The counting
     * side's kind calls ns_test_progress as things arrive; ns_phase_set opens the count at
     * MEASURE and closes it at DONE (the time since the last arrival counts too). */
    _Atomic uint64_t gap_last_ns, gap_max_ns;
    _Atomic int gap_seen;   /* something arrived in the measured interval */
    _Atomic int gap_closed; /* the sender's end arrived (ns_test_progress_end) */
    /* Client side: the server's result arrived (or the client gave up on it), so a sender
     * there has sent all it ever will; a receiver here need not wait longer for it. */
    _Atomic int peer_done;
    /* Set once the kind is ready to move data (a stream kind: all its threads exist; with
     * ns_test_set_ready), so that the control layer starts the clock only then
     * (ns_runner_wait_ready) and may call the kind's stop(). */
    _Atomic int kind_ready;
    /* Data sockets established before run(): TCP kinds get connected stream sockets (one per
     * stream; none for tcp_crr); UDP kinds get, on the client, one connected UDP socket per
     * stream and, on the server, the same number of UDP sockets each connect()ed to the
     * client's matching socket (so both sides can send() and recv()). */
    int nfds;
    int fds[NS_MAX_FDS];
    /* The last nload of fds are the load's TCP connections (rr kinds with --load; ns_load_conns):
     * the kind's own data sockets are the first nfds - nload. */
    int nload;
    uint8_t cookie[PROTO_COOKIE_LEN]; /* per-test secret also carried in UDP datagrams */
    const struct ns_conn_ops *conn;
    const struct test_kind *kind; /* set by the runner as it starts the kind */
    void *conn_ctx;               /* control layer's private state */
    void *kind_state;             /* the kind's private state, freed by kind->cleanup */
};

/* Which side sends payload in a stream kind: the client unless -R (--bidir: both; each stream's
 * own is stream_common.h's stream_set_sender). */
static inline bool
ns_test_is_sender(const struct ns_test *t)
{
    return (t->role == NS_ROLE_CLIENT) != t->p.reverse;
}

/* The data sockets the control layer sets up for a kind before run(): -P streams (twice with
 * --bidir) for a kind that uses streams, none for one that opens its own connections, else 1. */
int ns_data_sockets(const struct test_kind *k, const struct ns_params *p);
/* The load's TCP connections (rr kinds with --load): load_streams, twice for both ways. */
int ns_load_conns(const struct ns_params *p);

static inline int
ns_test_phase(const struct ns_test *t)
{
    return atomic_load_explicit(&t->phase, memory_order_acquire);
}

/* How coarse the gap is: an arrival within this of the last one counted is not counted again, so
 * that a kind's threads do not write one shared word per datagram (a gap reads up to this much
 * long; a stall is hundreds of milliseconds). */
#define NS_GAP_GRAIN_NS 1000000u
void ns_test_progress_slow(struct ns_test *t, uint64_t now_ns);
/* Something arrived at now_ns (CLOCK_MONOTONIC) on the counting side: a byte or a completed
 * transaction. Costs one relaxed load unless a grain has passed. */
static inline void
ns_test_progress(struct ns_test *t, uint64_t now_ns)
{
    if (now_ns >= atomic_load_explicit(&t->gap_last_ns, memory_order_relaxed) + NS_GAP_GRAIN_NS)
        ns_test_progress_slow(t, now_ns);
}
/* The sender's end arrived at now_ns (a stream's EOF, udp_stream's end datagram): the gap up to
 * it counts, and the time after it does not. A receiver's DONE comes when STOP reaches it, after
 * its sender stopped by as long as the control frame took (seconds on a saturated path, behind
 * the test's own queue, or after a retransmission): that wait is no stall. */
void ns_test_progress_end(struct ns_test *t, uint64_t now_ns);
/* This side's longest gap in seconds; false when nothing arrived here (a sender). */
bool ns_test_longest_gap(const struct ns_test *t, double *seconds);

/* Sleep until the phase is no longer seen, or until deadline_ns (CLOCK_MONOTONIC, 0 = none);
 * woken by the phase change itself (wait.c), not by polling. Returns the phase. */
int ns_test_wait_phase(struct ns_test *t, int seen, uint64_t deadline_ns);

/* The kind's state exists and it is ready to move data: set t->kind_ready and wake the control
 * thread waiting for it. */
void ns_test_set_ready(struct ns_test *t);

/* A kind's name is the table's (common/testspec.h: testspec_kind_name, ns_test_name): the ops
 * of kind <name> are ns_kind_<name>, found through the table (kinds.c). */
struct test_kind {
    int socktype;      /* SOCK_STREAM or SOCK_DGRAM for the data sockets */
    bool uses_streams; /* -P meaningful (data sockets = streams); else exactly 1 (or 0) */
    bool sets_ready;   /* run() sets t->kind_ready itself; else the runner does as run() begins */
    /* TCP: the kind opens its data connections itself, one per transaction, through t->conn
     * (connect_data, next_data), none is set up before run(), and they take -w as they are made
     * (the listener keeps autotuning). Else one per stream, set up before run(). */
    bool own_connections;
    bool nodelay; /* TCP: data connections get TCP_NODELAY (one small message in flight) */
    /* Run on either side, in the calling thread (start more threads if needed), until the
     * phase is DONE; must notice DONE within 200 ms and return. The client calls it at WARMUP,
     * the server already in SETUP (before READY, so that its threads exist when the clock
     * starts): no payload moves before WARMUP. Returns 0 or a negative code with detail in e
     * (e.g. peer vanished). */
    int (*run)(struct ns_test *t, struct err *e);
    /* Optional. Called on the control thread once the phase is DONE, and only after the kind
     * set kind_ready (its state exists): make every call its threads are blocked in return now,
     * typically by shutdown() of the sockets they wait on, so that run() returns within
     * microseconds instead of at a timeout. The kind treats what that causes (EOF, EPIPE) as
     * the end when the phase is DONE; its socket timeouts remain only as a safety cap for a
     * caller that never calls stop(). */
    void (*stop)(struct ns_test *t);
    /* Optional. Called on the control thread as the phase becomes MEASURE, and DONE the first
     * time, just before measure_start_ns / measure_end_ns are taken, and only once the kind set
     * kind_ready: what this side's kernel has counted by then (tcp_stream's receiver: the bytes
     * TCP took in), so that the window's ends do not depend on when a data thread next runs. */
    void (*mark)(struct ns_test *t, enum ns_phase ph);
    /* This side's counters as a JSON object (new reference). Called after run() returned. */
    json_t *(*local_result)(struct ns_test *t);
    /* Combine both sides' fragments into the final "result" object (new reference), using
     * nsperf(1)'s -J names; `cpu` (already filled by the control layer: local_pct, remote_pct,
     * ...) is borrowed and may be used, e.g. for cycles_per_byte. */
    json_t *(*combine)(const struct ns_test *t, const json_t *client, const json_t *server,
                       const json_t *cpu);
    /* Optional. Figures of CPU per unit of work the kind adds to the final cpu object (udp_pps:
     * per packet), from each side's usage (cpu.h's cpu_usage_json: local this side's, remote
     * the server's; borrowed, remote may be NULL) and the combined result. Client side. */
    void (*cpu_figures)(const struct ns_test *t, const json_t *result, json_t *cpu,
                        const json_t *local, const json_t *remote);
    /* Human output of a final result, shaped like the tool users know (NTTTCP/iperf3 tables for
     * streams, sockperf's percentile block for latency). */
    void (*print_human)(const struct ns_test *t, const json_t *result, FILE *out);
    void (*cleanup)(struct ns_test *t);
    /* Optional. What the kind applies beyond the table's parameters, added to -J's "params"
     * (udp_stream: its receive buffer). */
    void (*params_json)(const struct ns_params *p, json_t *params);
};

/* The ops of every kind, ns_kind_<name>, one per row of TESTSPEC_KIND_MAP. */
#define NS_KIND_EXTERN(id, name, fam, metric, rtt, def_len, min_len, max_len, def_rate)            \
    extern const struct test_kind ns_kind_##name;
TESTSPEC_KIND_MAP(NS_KIND_EXTERN)
#undef NS_KIND_EXTERN

/* Kind by id / by name (NULL when unknown). */
const struct test_kind *ns_kind_get(enum testspec_kind id);
const struct test_kind *ns_kind_find(const char *name, enum testspec_kind *id);

/* The name of t's kind ("tcp_stream"). */
static inline const char *
ns_test_name(const struct ns_test *t)
{
    return testspec_kind_name((int)t->p.kind);
}

/* Defaults for a kind (msg_size, rate, duration 10 s, warmup 1 s, ...). */
void ns_params_default(struct ns_params *p, enum testspec_kind kind);
/* Store a parameter of common/testspec.h in its field (params.c maps the table to the struct). */
void ns_params_set(struct ns_params *p, enum testspec_param id, double value);
/* Every field of p as table values, all marked given. */
void ns_params_to_spec(const struct ns_params *p, struct testspec_values *v);
/* Validate by the table (testspec_values_check): ranges, kinds a flag applies to, limits; the
 * message names the flag ("-l: message size 0 out of range 1..64M"). 0 or NS_ERANGE/NS_EINVAL. */
int ns_params_validate(const struct ns_params *p, struct err *e);
/* The wire form (PARAMS, ACCEPT): every parameter, whether it applies to the kind or not. */
json_t *ns_params_to_json(const struct ns_params *p);
/* What -J shows: the parameters that apply to the kind (those the run journals), and family. */
json_t *ns_params_applied_json(const struct ns_params *p);
int ns_params_from_json(const json_t *o, struct ns_params *p, struct err *e);

/* The rtt_us object is built by hist_to_rtt_json() in common/histjson.h. */

#endif
