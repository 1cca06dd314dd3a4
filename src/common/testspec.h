/* testspec.h - the ranges nsperf accepts for a test, in one place, so that `netsurvey check`
 * refuses exactly what an endpoint would refuse later (plan/scenarios.c, nsperf/params.c). */
#ifndef NS_TESTSPEC_H
#define NS_TESTSPEC_H

#define NS_MAX_STREAMS 128
#define NS_MAX_MSG_SIZE (64u << 20) /* 64 MiB write/request size */
#define NS_MAX_UDP_PAYLOAD 65507u
#define NS_UDP_STREAM_MIN 40u /* header: magic, phase, sequence, time, cookie */
#define NS_MAX_DURATION_S (24.0 * 3600.0)
#define NS_MAX_WARMUP_S 3600.0
#define NS_MIN_INTERVAL_S 0.01 /* -i: 0 (none) or at least 10 ms */
/* -i samples kept per test: ceil(duration / interval) x streams. Bounds the endpoint's memory
 * and keeps the RESULT frame well under PROTO_MAX_PAYLOAD (about 150 bytes a sample at most). */
#define NS_MAX_INTERVAL_CELLS 36000u
/* streams x write size of a stream kind: each stream owns a buffer of -l bytes. */
#define NS_MAX_STREAM_MEMORY (256ull << 20)

#endif
