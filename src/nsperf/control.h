/* control.h - internal interface of nsperf's control layer (client.c, server.c, control.c,
 * output.c): options of both roles, the authentication proof, data-connection hellos and the
 * final document. Not used by the test kinds (they see only nsperf.h).
 *
 * Control protocol (frames of common/proto.h, each read with a timeout):
 *   client                                  server
 *   HELLO {"version","role":"client"}  -->        (lets the acceptor classify the connection)
 *                                      <--  HELLO {"version","server_nonce","auth"}
 *   AUTH {"client_nonce","proof"}      -->        (proof empty without a token)
 *   PARAMS {...}                       -->
 *                                      <--  ACCEPT {"params","cookie","server_proof","host"}
 *   data connections / UDP hellos      -->
 *                                      <--  READY
 *   START, MEASURE, STOP               -->        (phases WARMUP, MEASURE, DONE)
 *                                      <--  RESULT {"result","cpu","counters","longest_gap_s",
 *                                                    "error"}
 *   BYE                                -->
 * Either side may send ERROR {"error": "..."} and close.
 * proof = HMAC-SHA256(token, "nsperf-auth-v1|client|" server_nonce "|" client_nonce) and
 * server_proof the same with "server": mutual, nothing secret on the wire, no replay across
 * connections (fresh nonces on both sides). */
#ifndef NS_CONTROL_H
#define NS_CONTROL_H

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/socket.h>

#include <jansson.h>

#include "nsperf/nsperf.h"

struct err;

#define NS_TOKEN_MAX 4096
#define NS_NONCE_LEN 16
#define NS_HANDSHAKE_TIMEOUT_MS 5000 /* each handshake frame, and a classifying first packet */
/* A kind's threads (up to 128) exist within this on a loaded machine: the server waits this
 * long before READY (the client waits for READY NS_READY_WAIT_MS), the client this long before
 * START (the server waits for START SRV_PHASE_SLACK_MS, 10 s). */
#define NS_KIND_READY_MS 20000
#define NS_READY_WAIT_MS (NS_HANDSHAKE_TIMEOUT_MS + NS_KIND_READY_MS)
#define NS_UDP_HELLO_MAGIC "NSPU"
#define NS_UDP_HELLO_LEN PROTO_DATA_HELLO_LEN

struct ns_token {
    uint8_t bytes[NS_TOKEN_MAX];
    size_t len; /* 0 = no token */
};

struct ns_client_opts {
    const char *host;
    uint16_t port;
    struct ns_params p;
    bool json;
    const struct ns_token *token; /* borrowed; len 0 = none */
    int connect_timeout_ms;
    /* Set (to the signal number) by a SIGINT/SIGTERM handler; NULL = not watched. Interrupted
     * in the measured interval, the client stops the test there, keeps what both sides
     * measured, and fails with NS_EINTR; earlier, it just fails with NS_EINTR. */
    const volatile sig_atomic_t *interrupted;
    const char *bind; /* source address of every connection (-B), NULL = the kernel's choice */
};

struct ns_server_opts {
    const char *bind; /* NULL = any (dual-stack) */
    uint16_t port;
    int family;
    bool one_shot;         /* -1 */
    double idle_timeout_s; /* 0 = never */
    const struct ns_token *token;
    FILE *ready; /* once listening: {"event":"listening","port":N} and a newline here; NULL = no */
};

/* Run one test as a client; prints the document (JSON or human) to out, also on failure (in
 * JSON always one document, "error" set; in human form nothing but a partial result, the error
 * being the caller's to print). Returns 0 or a negative code (detail in e). */
int ns_client_run(const struct ns_client_opts *o, FILE *out, struct err *e);

/* The -J document of a run that never started (usage error, unreadable token file): p's
 * parameters (NULL = tcp_stream defaults), error set, printed to out. */
void ns_doc_print_error_json(const struct ns_params *p, const char *server, const char *error,
                             FILE *out);

/* Serve until -1's test is done, the idle timeout, or a fatal error (bind). Logs to stderr. */
int ns_server_run(const struct ns_server_opts *o, struct err *e);

/* --- control.c: shared pieces of both roles --- */

/* Read a secret from path ("-" = stdin), at most NS_TOKEN_MAX bytes, trailing newline/blanks
 * stripped; empty is an error. */
int ns_token_read(const char *path, struct ns_token *t, struct err *e);

/* Proof for role "client" or "server" over the two hex nonces, as lower-case hex (65 bytes). */
void ns_auth_proof(const struct ns_token *t, const char *role, const char *server_nonce,
                   const char *client_nonce, char out[2 * 32 + 1]);

/* Fresh random nonce as hex (2 * NS_NONCE_LEN + 1 bytes). Returns 0 or NS_EIO. */
int ns_nonce_new(char out[2 * NS_NONCE_LEN + 1], struct err *e);

/* Data hello: magic (4) + cookie + big-endian index. */
void ns_data_hello_encode(uint8_t out[PROTO_DATA_HELLO_LEN], const char magic[4],
                          const uint8_t cookie[PROTO_COOKIE_LEN], uint32_t idx);
/* Returns 0 when buf holds a hello with this magic (cookie and index copied out). */
int ns_data_hello_decode(const uint8_t buf[PROTO_DATA_HELLO_LEN], const char magic[4],
                         uint8_t cookie[PROTO_COOKIE_LEN], uint32_t *idx);

/* Socket with -w buffers set before connect (so that window scaling sees them), leaving from src
 * (srclen 0 = the kernel's choice), connected within timeout_ms, returned blocking. */
int ns_connect_stream_from(const struct sockaddr_storage *ss, socklen_t len,
                           const struct sockaddr_storage *src, socklen_t srclen, int sock_buf,
                           int timeout_ms, struct err *e);

/* UDP socket bound to ss with SO_REUSEADDR/SO_REUSEPORT (dual-stack for ::). */
int ns_udp_bind_shared(const struct sockaddr_storage *ss, socklen_t len, struct err *e);

/* Send {"error": msg} and give up quietly if that fails. */
void ns_send_error(int fd, const char *msg);

/* Close after sending our last frame: unread input would make close() send a reset that can
 * destroy that frame before the peer reads it, so discard what has arrived first. */
void ns_close_draining(int fd);

/* Turn an ERROR frame's payload into e (NS_EPEER, "server: <text>"). */
int ns_peer_error(const json_t *payload, const char *who, struct err *e);

/* Receive one frame (at most max_payload bytes) of type want from peer `who` on fd within
 * timeout_ms.
 * An ERROR frame becomes NS_EPEER, another type NS_EPROTO, a close NS_ECLOSED. On success *out
 * (if not NULL) holds the payload (caller decrefs). */
int ns_recv_expect(int fd, const char *who, enum proto_type want, uint32_t max_payload,
                   json_t **out, int timeout_ms, struct err *e);

/* {"kernel","cpus","hostname"} of this machine. New reference. */
json_t *ns_host_json(void);

/* Phase change with the local timestamps the kinds read (measure_start_ns on MEASURE,
 * measure_end_ns on DONE), published with release ordering. */
void ns_phase_set(struct ns_test *t, enum ns_phase ph);

/* The thread that runs kind->run() while the control thread drives the phases. */
struct ns_runner {
    pthread_t thread;
    bool started;
    _Atomic int finished;
    int rc;
    struct err *e; /* points into caller storage; valid after finished */
    const struct test_kind *k;
    struct ns_test *t;
};
int ns_runner_start(struct ns_runner *r, const struct test_kind *k, struct ns_test *t,
                    struct err *run_err, struct err *e);
bool ns_runner_finished(const struct ns_runner *r);
/* Wait until the kind is ready to move data (t->kind_ready; also when run() returned early).
 * Returns 0 or NS_ETIMEDOUT. */
int ns_runner_wait_ready(struct ns_runner *r, int timeout_ms, struct err *e);
/* End a started kind's run: phase DONE, then the kind's stop() (when it is ready) so that its
 * threads return now rather than at a socket timeout. Idempotent; nothing when not started. */
void ns_runner_stop(struct ns_runner *r);
/* Join within timeout_ms (the kind must notice DONE within 200 ms). Returns 0 or
 * NS_ETIMEDOUT, in which case the kind's state must be leaked, not cleaned up. */
int ns_runner_join(struct ns_runner *r, int timeout_ms, struct err *e);

/* --- output.c --- */

/* The -J document. params, result, cpu, local_host, remote_host are borrowed (may be NULL);
 * error NULL = success. New reference. */
struct ns_doc {
    const struct ns_params *p;
    const char *start, *end; /* ISO-8601 wall times */
    const json_t *result, *cpu, *local_host, *remote_host;
    const json_t *counters; /* {"local","remote"}: each end's hostcount.h deltas */
    const char *error;
    const char *server; /* "host:port" dialled */
};
json_t *ns_doc_json(const struct ns_doc *d);

/* Human output: a header, the kind's table (print_human), the CPU line; or the error. */
void ns_doc_print_human(const struct ns_doc *d, const struct ns_test *t, FILE *out);

#endif
