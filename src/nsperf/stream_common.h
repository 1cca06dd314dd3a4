/* stream_common.h - machinery shared by the stream kinds (tcp_stream, udp_stream), as
 * rr_common.h is for the request/response kinds: the per-run set of streams, one thread each,
 * the per-stream buffer and -i bins, and the table output.
 *
 * Internal to src/nsperf; the kinds' only public face is their struct test_kind. A kind's state
 * starts with a struct stream_set and each of its streams with a struct stream_io, so that the
 * run/cleanup code here serves both. */
#ifndef NS_STREAM_COMMON_H
#define NS_STREAM_COMMON_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "common/clock.h"
#include "common/errors.h"
#include "nsperf/nsperf.h"

/* How late a waiting stream thread may see another stream's failure (set->abort is not the word
 * it waits on). Not on any path of a working test: phase changes wake the waits at once. */
#define STREAM_ABORT_CAP_NS (50 * NS_PER_MS)

/* What every stream of a run owns (first member of the kind's stream struct). */
struct stream_io {
    int idx, fd;
    bool sender;  /* this side sends on it (stream_set_sender) */
    uint8_t *buf; /* -l bytes (sender) or the receive buffer */
    size_t buflen;
    uint64_t *bins; /* receiver: bytes per -i interval, NULL without -i */
    /* The thread's own CPU time (CLOCK_THREAD_CPUTIME_ID) as its measured interval began and
     * ended (stream_io_cpu_mark), what a direction of --bidir reports as its CPU. */
    uint64_t cpu_ns[2];
    int cpu_marks;
    int rc; /* 0 or the stream's failure, detail in e */
    struct err e;
};

/* What a run of streams shares (first member of the kind's state). A kind's streams are its data
 * sockets; a load's (nsperf/tcp_stream.h) the test's load connections, which start at a point of
 * the measured interval and count from a later one. */
struct stream_set {
    struct ns_test *t;
    const int *fds; /* the streams' sockets, n of them */
    /* Streams [0, nfwd) are forward (the client sends), the others reverse: all forward
     * without -R, none with it; with --bidir and a load both ways, half each. */
    int nfwd;
    size_t nbins;
    uint64_t interval_ns;
    /* A load's senders start writing this long after this side's MEASURE (0: at WARMUP), and
     * its measured window starts this long after MEASURE (0: at MEASURE). */
    uint64_t start_off_ns, window_off_ns;
    bool is_load;
    _Atomic int abort; /* one stream failed: the others stop too */
    int n;
    pthread_t *threads; /* between stream_set_start and stream_set_join */
    int started;
};

/* A kind's streams: the test's data sockets, forward, reverse or both as -R and --bidir say. */
void stream_set_init(struct stream_set *set, struct ns_test *t);
/* A load's streams (rr kinds under load): the test's load connections, in the load's
 * direction, senders starting at start_off_ns into MEASURE, measured from window_off_ns. */
void stream_set_init_load(struct stream_set *set, struct ns_test *t, uint64_t start_off_ns,
                          uint64_t window_off_ns);
/* Whether this side sends on stream i. */
bool stream_set_sender(const struct stream_set *set, int i);
/* Whether a stream counts what it moves at now: MEASURE, and past the window's start. */
bool stream_set_measuring(const struct stream_set *set, uint64_t now);
/* Where this side's measured window starts (CLOCK_MONOTONIC), 0 when MEASURE has not come. */
uint64_t stream_set_window_start(const struct stream_set *set);
/* A load's sender: sleep until its start (start_off_ns into MEASURE); false when the test ended
 * (or a stream failed) before. Immediately true for a kind's own streams. */
bool stream_set_wait_send_start(struct stream_set *set);
/* A stream thread's first step: the server starts the kind before READY (phase SETUP); wait
 * there until WARMUP (or DONE). */
void stream_set_wait_start(struct stream_set *set);
/* DONE, or another stream failed. */
bool stream_set_over(struct stream_set *set);
/* Sleep until deadline_ns (CLOCK_MONOTONIC) or a phase change, whichever is first (a paced
 * sender's wait: DONE wakes it at once); an abort is seen within STREAM_ABORT_CAP_NS. May
 * return early: callers re-check the time. */
void stream_set_sleep_until(struct stream_set *set, uint64_t deadline_ns);
/* The peer closed its end outside DONE: it may have reached DONE first (its stop() closes as it
 * sends STOP). Wait up to grace_ms for our DONE. 0 when it came, -1 when not (or an abort). */
int stream_set_wait_done_after_eof(struct stream_set *set, int grace_ms);
/* Buffer of buflen bytes (zeroed) and, on the receiver with -i, the bins. 0 or NS_ENOMEM. */
int stream_io_alloc(struct stream_io *io, struct stream_set *set, int idx, size_t buflen);
void stream_io_release(struct stream_io *io);
/* Add n bytes received at now (monotonic) to the -i bin it falls in (measured interval only). */
void stream_io_count_bin(struct stream_io *io, const struct stream_set *set, uint64_t n,
                         uint64_t now);
/* Record the stream's failure ("stream i: what: strerror") and stop the others. Returns code. */
int stream_io_fail(struct stream_io *io, struct stream_set *set, int code, int errnum,
                   const char *what);
/* Take the thread's CPU time: at the start of its measured interval (first call) and at its end
 * (second call). Its CPU seconds between them, 0 without both. */
void stream_io_cpu_mark(struct stream_io *io);
double stream_io_cpu_s(const struct stream_io *io);
/* Run fn on each of the set's n streams (streams + i * stride) in its own thread, join them all,
 * and return 0 or the first stream's failure; t is ready once they all exist. */
int stream_set_run(struct stream_set *set, void *streams, size_t stride, void *(*fn)(void *),
                   struct err *e);
/* The same in two steps, for a load beside a kind's own loop: start the threads (0, or NS_EIO
 * with the started ones told to stop), and join them (0 or the first stream's failure). */
int stream_set_start(struct stream_set *set, void *streams, size_t stride, void *(*fn)(void *),
                     struct err *e);
int stream_set_join(struct stream_set *set, void *streams, size_t stride, struct err *e);
/* This side's measured window in seconds (0 when it never began). */
double stream_set_elapsed_s(const struct stream_set *set);

/* Sum the per-stream "intervals" arrays (bytes per interval, receiver side) of streams [from, to)
 * of the array streams into [{"start_s","end_s","bytes","throughput_bps"}, ...]; the last
 * interval ends at elapsed_s. Empty array when interval_s is 0. New reference. */
json_t *ns_intervals_json(const json_t *streams, size_t from, size_t to, double interval_s,
                          double elapsed_s);
/* Sum two such series sample by sample (--bidir: both directions' receivers, each sample on its
 * own side's clock). New reference. */
json_t *ns_intervals_sum(const json_t *a, const json_t *b);

/* iperf3/NTTTCP-shaped table of result["streams"] and the total line. */
void ns_print_stream_table(const json_t *result, FILE *out);

/* Bin count for -i over a measured interval (with room for the receiver's later stop). */
size_t ns_interval_bins(const struct ns_params *p);

/* The per-stream interval bins as a JSON array of integers. New reference. */
json_t *ns_bins_json(const uint64_t *bins, size_t n);

/* Integer member as uint64 (0 when absent). */
uint64_t ns_json_u64(const json_t *o, const char *key);

#endif
