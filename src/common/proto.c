#include "common/proto.h"

#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/errors.h"
#include "common/net.h"

static const char *const proto_names[] = {"?",     "HELLO",   "AUTH", "PARAMS", "ACCEPT", "READY",
                                          "START", "MEASURE", "STOP", "RESULT", "ERROR",  "BYE"};

const char *
proto_type_name(enum proto_type type)
{
    int t = (int)type;
    if (t < 1 || t > PROTO_TYPE_MAX)
        return "UNKNOWN";
    return proto_names[t];
}

void
proto_header_encode(uint8_t hdr[PROTO_HEADER_LEN], enum proto_type type, uint32_t len)
{
    memcpy(hdr, PROTO_MAGIC, 4);
    hdr[4] = PROTO_VERSION;
    hdr[5] = (uint8_t)type;
    hdr[6] = 0;
    hdr[7] = 0;
    hdr[8] = (uint8_t)(len >> 24);
    hdr[9] = (uint8_t)(len >> 16);
    hdr[10] = (uint8_t)(len >> 8);
    hdr[11] = (uint8_t)len;
}

int
proto_header_decode(const uint8_t hdr[PROTO_HEADER_LEN], uint32_t max_payload,
                    enum proto_type *type, uint32_t *len, struct err *e)
{
    if (memcmp(hdr, PROTO_MAGIC, 4) != 0)
        return err_set(e, NS_EPROTO, "bad frame magic (not an nsperf peer?)");
    if (hdr[4] != PROTO_VERSION)
        return err_set(e, NS_EPROTO, "unsupported protocol version %u (this side speaks %u)",
                       hdr[4], PROTO_VERSION);
    if (hdr[5] < 1 || hdr[5] > PROTO_TYPE_MAX)
        return err_set(e, NS_EPROTO, "unknown frame type %u", hdr[5]);
    if (hdr[6] != 0 || hdr[7] != 0)
        return err_set(e, NS_EPROTO, "reserved frame flags are set");
    uint32_t n = (uint32_t)hdr[8] << 24 | (uint32_t)hdr[9] << 16 | (uint32_t)hdr[10] << 8 |
                 (uint32_t)hdr[11];
    if (n > max_payload)
        return err_set(e, NS_ETOOBIG, "frame of %u bytes exceeds the %u-byte limit", n,
                       max_payload);
    *type = (enum proto_type)hdr[5];
    *len = n;
    return 0;
}

int
proto_payload_decode(const uint8_t *buf, size_t len, json_t **out, struct err *e)
{
    if (len == 0) {
        *out = json_object();
        return 0;
    }
    json_error_t jerr;
    json_t *o = json_loadb((const char *)buf, len, JSON_REJECT_DUPLICATES, &jerr);
    if (o == NULL)
        return err_set(e, NS_EPROTO, "bad frame payload: %s", jerr.text);
    if (!json_is_object(o)) {
        json_decref(o);
        return err_set(e, NS_EPROTO, "frame payload is not a JSON object");
    }
    *out = o;
    return 0;
}

int
proto_send(int fd, enum proto_type type, const json_t *obj, int timeout_ms, struct err *e)
{
    char *payload = NULL;
    size_t len = 0;
    if (obj != NULL) {
        payload = json_dumps(obj, JSON_COMPACT);
        if (payload == NULL)
            return err_set(e, NS_ENOMEM, "cannot encode %s frame", proto_type_name(type));
        len = strlen(payload);
    }
    if (len > PROTO_MAX_PAYLOAD) {
        free(payload);
        return err_set(e, NS_ETOOBIG, "%s frame of %zu bytes exceeds the limit",
                       proto_type_name(type), len);
    }
    uint8_t *frame = malloc(PROTO_HEADER_LEN + len);
    if (frame == NULL) {
        free(payload);
        return err_set(e, NS_ENOMEM, "out of memory");
    }
    proto_header_encode(frame, type, (uint32_t)len);
    if (len > 0)
        memcpy(frame + PROTO_HEADER_LEN, payload, len);
    free(payload);
    int rc = net_write_full(fd, frame, PROTO_HEADER_LEN + len, timeout_ms, e);
    free(frame);
    return rc;
}

int
proto_recv(int fd, enum proto_type *type, json_t **out, int timeout_ms, struct err *e)
{
    return proto_recv_max(fd, PROTO_MAX_PAYLOAD, type, out, timeout_ms, e);
}

int
proto_recv_max(int fd, uint32_t max_payload, enum proto_type *type, json_t **out, int timeout_ms,
               struct err *e)
{
    uint64_t deadline = clock_deadline_ms(timeout_ms);
    uint8_t hdr[PROTO_HEADER_LEN];
    int rc = net_read_full(fd, hdr, sizeof hdr, timeout_ms, e);
    if (rc != 0)
        return rc;
    uint32_t len;
    rc = proto_header_decode(hdr, max_payload, type, &len, e);
    if (rc != 0)
        return rc;
    uint8_t *buf = len ? malloc(len) : NULL;
    if (len && buf == NULL)
        return err_set(e, NS_ENOMEM, "out of memory");
    rc = net_read_full(fd, buf, len, clock_ms_until(deadline), e);
    if (rc == 0)
        rc = proto_payload_decode(buf, len, out, e);
    free(buf);
    return rc;
}
