/* rr_common.h - machinery shared by the request/response kinds (tcp_rr, udp_rr, tcp_crr):
 * per-transaction accounting into a log-linear histogram, the measured interval, -i samples,
 * blocking socket I/O that wakes up to look at the phase, and the JSON/human output.
 *
 * Internal to src/nsperf; the kinds' only public face is their struct test_kind. */
#ifndef NS_RR_COMMON_H
#define NS_RR_COMMON_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include <jansson.h>

#include "nsperf/nsperf.h"

struct err;
struct hist;

/* At DONE the control layer calls the kind's stop(), which shuts the sockets down: a blocked
 * send/recv returns at once. These socket timeouts are only the safety cap for a caller that does
 * not (DONE noticed within this plus one syscall, inside the kind contract's 200 ms); a working
 * transaction costs no extra syscall (no poll() per transaction, as in sockperf). */
#define RR_WAKE_MS 100

/* EAGAIN alone is tested after a wake timeout: Linux defines EWOULDBLOCK as the same value (and
 * gcc's -Wlogical-op rejects testing both). */

/* rr_send_all / rr_recv_all return this (positive) when they stopped because the phase is DONE. */
#define RR_DONE 1

/* One -i sample: transactions completed in [start_ns, end_ns) of the measured interval. */
struct rr_interval {
    uint64_t start_ns, end_ns; /* local monotonic */
    uint64_t n;
    uint64_t sum_ns, min_ns, max_ns;
};

/* UDP accounting of udp_rr (client: requests and replies; server: requests seen). */
struct rr_udp {
    uint64_t sent;         /* measured requests sent */
    uint64_t received;     /* replies matched to their request */
    uint64_t lost;         /* requests whose reply did not come within the loss timeout */
    uint64_t out_of_order; /* replies to a request already given up as lost (late) */
    uint64_t duplicated;   /* replies to a request already answered */
    uint64_t bad;          /* wrong cookie, short or unknown datagrams, dropped */
    uint64_t loss_timeout_ns;
    double jitter_ns;     /* RFC 3550 estimator over successive measured round trips */
    uint64_t prev_rtt_ns; /* 0 = none yet */
};

struct ts_state;

/* Per-run state of a request/response kind (t->kind_state). */
struct rr_state {
    bool is_udp;
    bool is_crr;
    struct hist *h;            /* measured round trips, ns */
    uint64_t n;                /* measured transactions */
    uint64_t warmup_n;         /* transactions done outside MEASURE (discarded) */
    uint64_t first_t0_ns;      /* start of the first measured transaction */
    uint64_t last_t1_ns;       /* end of the last measured transaction */
    uint64_t start_ns, end_ns; /* measured interval, set by rr_finish() */
    /* -i samples (client) */
    uint64_t iv_len_ns, iv_next_ns;
    struct rr_interval cur;
    struct rr_interval *iv;
    size_t niv, iv_cap;
    /* all completed round trips incl. warmup: a scale for udp_rr's loss timeout */
    uint64_t all_n, all_sum_ns;
    struct rr_udp udp;
    uint64_t connect_retries; /* tcp_crr: connect attempts that timed out and were retried */
    /* tcp_crr client: the connection in flight, which stop() shuts down (-1 = none); under
     * live_mu so that stop() never touches a descriptor number the thread already closed */
    pthread_mutex_t live_mu;
    int live_fd;
    /* --load (rr_load_*): the bulk streams, and where this side's windows are as offsets into
     * its MEASURE: the idle RTT before idle_end_ns, the load from idle_end_ns on, the RTT
     * under load from loaded_ns on (a ramp between, which neither window counts) */
    struct ts_state *load;
    uint64_t idle_end_ns, loaded_ns;
    struct hist *idle_h; /* the idle window's round trips, ns (client) */
    uint64_t idle_n, ramp_n;
    /* payload buffer */
    uint8_t *buf;
    size_t buf_len;
    size_t req_len, resp_len;
};

/* Allocate t->kind_state with a buffer of max(req_len, resp_len) bytes. Returns 0/NS_ENOMEM. */
int rr_state_setup(struct ns_test *t, size_t req_len, size_t resp_len, struct err *e);
/* Free t->kind_state (NULL-safe); the kinds' cleanup. */
void rr_state_cleanup(struct ns_test *t);

/* Request and response sizes from the parameters (response 0 = same as request). */
size_t rr_request_len(const struct ns_test *t);
size_t rr_response_len(const struct ns_test *t);

/* Record one transaction that started at t0 (phase then: phase0) and completed at t1. Only
 * transactions begun in MEASURE enter the histogram (and count as t's progress: its longest
 * gap); the others are counted as warmup. */
void rr_record(struct rr_state *s, struct ns_test *t, int phase0, uint64_t t0, uint64_t t1);

/* Close the measured interval after run(): [measure_start_ns or first t0, max(last t1,
 * measure_end_ns)], and flush the last -i sample. */
void rr_finish(struct rr_state *s, const struct ns_test *t);

/* SO_RCVTIMEO and SO_SNDTIMEO of RR_WAKE_MS on fd. Returns 0 or NS_EIO. */
int rr_set_wake_timeouts(int fd, struct err *e);

/* Send / receive exactly len bytes on a blocking stream socket with wake timeouts, coming back
 * to the phase on every timeout. Returns 0, RR_DONE (the phase is DONE: also when stop() made
 * the call fail or see EOF), NS_ECLOSED (the peer closed or reset) or NS_EIO. */
int rr_send_all(const struct ns_test *t, int fd, const void *buf, size_t len, struct err *e);
int rr_recv_all(const struct ns_test *t, int fd, void *buf, size_t len, struct err *e);

/* recv() as the kind's loops do it: under --busy-poll spinning on MSG_DONTWAIT until something
 * arrives or the phase is DONE (then -1, EAGAIN), else a plain blocking recv() with flags. */
ssize_t rr_recv(const struct ns_test *t, int fd, void *buf, size_t len, int flags);

/* After a peer's EOF outside DONE: wait (up to grace_ms) for the control layer to move to DONE,
 * since the peer may simply have finished first (its stop() closes its end as it sends STOP).
 * Woken by the phase change. Returns 0 when DONE came, else NS_ECLOSED. */
int rr_wait_done_after_eof(struct ns_test *t, int grace_ms, const char *what, struct err *e);

/* stop() of tcp_rr and udp_rr: shut the data socket down (how: SHUT_RDWR, SHUT_RD), and the
 * load's. */
void rr_stop_fds(struct ns_test *t, int how);

/* tcp_crr client: publish fd as the connection in flight. Returns false (fd not published)
 * when the phase is already DONE, so that stop() cannot miss it. */
bool rr_live_set(struct rr_state *s, const struct ns_test *t, int fd);
/* No connection in flight any more (before closing it). */
void rr_live_clear(struct rr_state *s);
/* stop() of tcp_crr: shut the connection in flight down. */
void rr_live_stop(struct ns_test *t);

/* --- under load (tcp_rr and udp_rr with --load) ---
 * One trial measures both RTTs of the pair, the idle one first, as flent's RRUL measures its
 * baseline inside the run: the first quarter of the measured interval without load, then the
 * load's streams start, ramp for the warmup (at most another quarter) and the rest is measured
 * under load. The same connection, path and minute give both figures: a cloud path's RTT moves
 * between minutes, and the load's effect is their difference. */

/* Start the load's streams if the test has a load (t->nload): 0 or a failure, after which the
 * load is stopped and joined. Before ns_test_set_ready. */
int rr_load_start(struct ns_test *t, struct rr_state *s, struct err *e);
/* After the kind's loop: join the load (its first stream's failure, or 0). */
int rr_load_join(struct rr_state *s, struct err *e);
/* mark of tcp_rr and udp_rr: the load's kernel counts at DONE. */
void rr_mark(struct ns_test *t, enum ns_phase ph);

/* The operations of struct test_kind that the three kinds share as they are. */

/* local_result: this side's counters (new reference). */
json_t *rr_local_json(struct ns_test *t);

/* What a kind calls its transactions in its result and its human output. */
struct rr_words {
    const char *rate_key;  /* the result's rate: TESTSPEC_KEY_TRANSACTIONS */
    const char *count_key; /* the result's count: "transactions" */
    const char *summary;   /* what the mean RTT times: "Round trip" */
    const char *rate_name; /* "Transactions/s" */
};
/* tcp_rr's and udp_rr's: transactions_per_s, transactions. */
extern const struct rr_words rr_transactions;

/* combine: final result, the rate and count named by w. */
json_t *rr_combine_as(const struct rr_words *w, const json_t *client, const json_t *server,
                      const json_t *cpu);
/* combine of tcp_rr and udp_rr: rr_combine_as(&rr_transactions, ...). */
json_t *rr_combine_json(const struct ns_test *t, const json_t *client, const json_t *server,
                        const json_t *cpu);

/* print_human: sockperf's statistics block, in w's words. */
void rr_print_as(const struct rr_words *w, const json_t *result, FILE *out);
/* print_human of tcp_rr and udp_rr: rr_print_as(&rr_transactions, ...). */
void rr_print_human(const struct ns_test *t, const json_t *result, FILE *out);

#endif
