/* cloud_http.h - the metadata services' HTTP client (internal to cloud.c). */
#ifndef NS_NSPERF_CLOUD_HTTP_H
#define NS_NSPERF_CLOUD_HTTP_H

#include <stddef.h>
#include <stdint.h>

#include "nsperf/cloud.h"

/* method path HTTP/1.1 to CLOUD_ADDRESS:CLOUD_PORT with the extra header lines headers (each
 * ending in "\r\n"; "" for none) and Connection: close, all of it (connect, write, read) by
 * deadline_ns (clock_now_ns() time). The response is read into buf (cap bytes, at most
 * CLOUD_RESPONSE_MAX) and parsed into *resp, which points into buf. Returns 0 (whatever the
 * status), NS_ECONNECT (no connection), NS_ETIMEDOUT, NS_EIO (reset, or more than cap bytes),
 * NS_EPROTO (not HTTP). */
int cloud_http_request(const char *method, const char *path, const char *headers,
                       uint64_t deadline_ns, char *buf, size_t cap, struct cloud_http_resp *resp);

#endif
