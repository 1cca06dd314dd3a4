/* proto.h - nsperf control frames.
 *
 * A frame on the control connection:
 *   magic   4 bytes  "NSPF"
 *   version 1 byte   PROTO_VERSION
 *   type    1 byte   enum proto_type
 *   flags   2 bytes  0 (reserved, must be zero)
 *   length  4 bytes  big-endian payload length, <= PROTO_MAX_PAYLOAD
 *   payload length bytes of UTF-8 JSON (an object), possibly empty
 * Every read is bounded in size and in time; anything else is NS_EPROTO / NS_ETOOBIG and the
 * connection is closed by the caller. */
#ifndef NS_PROTO_H
#define NS_PROTO_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

struct err;

#define PROTO_MAGIC "NSPF"
#define PROTO_VERSION 1
#define PROTO_HEADER_LEN 12
#define PROTO_MAX_PAYLOAD                                                                          \
    (16u << 20) /* 16 MiB: a result with histograms and the most interval                          \
                   samples limits.h allows fits with room */

/* First 4 bytes of a data connection, followed by the 16-byte per-test cookie and a 4-byte
 * big-endian stream index. Lets one listening port take both kinds of connection. */
#define PROTO_DATA_MAGIC "NSPD"
#define PROTO_COOKIE_LEN 16
#define PROTO_DATA_HELLO_LEN (4 + PROTO_COOKIE_LEN + 4)

enum proto_type {
    PROTO_HELLO = 1,   /* client -> server first ({"version","role"}: lets the acceptor tell a
                          control connection from a data one), then server -> client
                          {"version","server_nonce","auth":bool}; see nsperf/control.h */
    PROTO_AUTH = 2,    /* client -> server: {"client_nonce","proof"} */
    PROTO_PARAMS = 3,  /* client -> server: every test parameter */
    PROTO_ACCEPT = 4,  /* server -> client: parameters as applied, cookie, server_proof */
    PROTO_READY = 5,   /* server -> client: data connections accepted, ready to start */
    PROTO_START = 6,   /* client -> server: traffic starts (warmup phase) */
    PROTO_MEASURE = 7, /* client -> server: warmup over, measured interval begins */
    PROTO_STOP = 8,    /* client -> server: measured interval ends */
    PROTO_RESULT = 9,  /* either way: one side's results */
    PROTO_ERROR = 10,  /* either way: {"error": "..."}; the connection closes after it */
    PROTO_BYE = 11,    /* client -> server: done */
    PROTO_TYPE_MAX = 11
};

/* Encode a frame header for a payload of len bytes into hdr. */
void proto_header_encode(uint8_t hdr[PROTO_HEADER_LEN], enum proto_type type, uint32_t len);

/* Validate a received header; on success sets *type and *len. Returns 0, NS_EPROTO (magic,
 * version, type, flags) or NS_ETOOBIG (length > max_payload). */
int proto_header_decode(const uint8_t hdr[PROTO_HEADER_LEN], uint32_t max_payload,
                        enum proto_type *type, uint32_t *len, struct err *e);

/* Parse a payload (len bytes, not NUL-terminated) into a JSON object (caller decrefs).
 * Empty payload gives an empty object. Returns 0 or NS_EPROTO. */
int proto_payload_decode(const uint8_t *buf, size_t len, json_t **out, struct err *e);

/* Send a frame with obj (borrowed; NULL = empty payload) on fd, within timeout_ms. */
int proto_send(int fd, enum proto_type type, const json_t *obj, int timeout_ms, struct err *e);

/* Receive one frame of at most max_payload bytes within timeout_ms. On success *type is set
 * and *out holds the object (caller decrefs). A PROTO_ERROR frame is returned as such. */
int proto_recv_max(int fd, uint32_t max_payload, enum proto_type *type, json_t **out,
                   int timeout_ms, struct err *e);

/* proto_recv_max with PROTO_MAX_PAYLOAD. */
int proto_recv(int fd, enum proto_type *type, json_t **out, int timeout_ms, struct err *e);

/* Name of a frame type ("PARAMS"), for messages. */
const char *proto_type_name(enum proto_type type);

#endif
