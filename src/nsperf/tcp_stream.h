/* tcp_stream.h - tcp_stream's streams as another kind's load: tcp_rr and udp_rr measured while
 * bulk TCP streams run between the same two hosts (rr_load.c). The streams are the test's load
 * connections (ns_test.nload, the last of its fds), in the load's direction (half each way for
 * "both"); their senders write unpaced from start_off_ns into this side's MEASURE until DONE, and
 * what they move is counted, as tcp_stream counts it (the receiver's kernel count over its own
 * window), from window_off_ns into MEASURE until DONE.
 *
 * Internal to src/nsperf. */
#ifndef NS_TCP_STREAM_H
#define NS_TCP_STREAM_H

#include <stdint.h>

#include <jansson.h>

#include "nsperf/nsperf.h"

struct err;
struct ts_state;

/* Set up the load's streams and start their threads. *out is set also on failure (then the
 * started threads are told to stop): the caller joins and frees it. 0 or a negative code. */
int tcp_stream_load_start(struct ns_test *t, uint64_t start_off_ns, uint64_t window_off_ns,
                          struct ts_state **out, struct err *e);
/* The kind's mark at DONE (control thread): the receivers' kernel counts. */
void tcp_stream_load_mark(struct ts_state *l, enum ns_phase ph);
/* The kind's stop(): shut the load's sockets down so that its threads return now. */
void tcp_stream_load_stop(struct ts_state *l);
/* Join the load's threads (NULL-safe). 0 or the first stream's failure. */
int tcp_stream_load_join(struct ts_state *l, struct err *e);
/* This side's load figures (after the join). New reference. */
json_t *tcp_stream_load_local_json(struct ts_state *l);
/* The load's result from both sides' figures (borrowed): its throughput_bps (every direction's
 * receiver-counted sum), bytes, retransmits, streams, direction, and each direction's figures
 * under its name. New reference. */
json_t *tcp_stream_load_combine(const struct ns_params *p, const json_t *client,
                                const json_t *server);
void tcp_stream_load_free(struct ts_state *l);

#endif
