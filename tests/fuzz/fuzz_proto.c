/* fuzz_proto.c - libFuzzer target for the nsperf control-frame parser (common/proto.h): the
 * input is a frame as it arrives, header then payload. Invariants besides memory safety: an
 * accepted header re-encodes to itself, an accepted payload is a JSON object. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/errors.h"
#include "common/proto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
payload(const uint8_t *buf, size_t len)
{
    json_t *o = NULL;
    struct err e;
    if (proto_payload_decode(buf, len, &o, &e) == 0) {
        if (!json_is_object(o))
            abort();
        json_decref(o);
    } else if (o != NULL || e.msg[0] == '\0') {
        abort();
    }
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    payload(data, size); /* any bytes as a payload */
    if (size < PROTO_HEADER_LEN)
        return 0;
    enum proto_type type;
    uint32_t len;
    struct err e;
    /* A small cap as well as the real one, so that ETOOBIG is reached. */
    uint32_t cap = data[0] & 1 ? PROTO_MAX_PAYLOAD : 64;
    if (proto_header_decode(data, cap, &type, &len, &e) != 0)
        return 0;
    if (type < 1 || type > PROTO_TYPE_MAX || len > cap)
        abort();
    uint8_t again[PROTO_HEADER_LEN];
    proto_header_encode(again, type, len);
    if (memcmp(again, data, PROTO_HEADER_LEN) != 0)
        abort();
    size_t avail = size - PROTO_HEADER_LEN;
    payload(data + PROTO_HEADER_LEN, len < avail ? len : avail);
    return 0;
}
