/* clock.h - time. CLOCK_MONOTONIC for every interval; the wall clock only for timestamps that
 * go into records (wrk's gettimeofday() intervals are the wart this avoids). */
#ifndef NS_CLOCK_H
#define NS_CLOCK_H

#include <stddef.h>
#include <stdint.h>

#define NS_PER_SEC UINT64_C(1000000000)
#define NS_PER_MS UINT64_C(1000000)
#define NS_PER_US UINT64_C(1000)

/* Monotonic nanoseconds since an arbitrary origin. */
uint64_t clock_now_ns(void);

/* Sleep until the monotonic instant deadline_ns (restarts on EINTR). */
void clock_sleep_until_ns(uint64_t deadline_ns);

/* Sleep for ns nanoseconds. */
void clock_sleep_ns(uint64_t ns);

/* Wall-clock UTC timestamp "2026-11-29T18:30:00.123Z" into buf (>= 32 bytes). Returns buf. */
char *clock_wall_iso8601(char *buf, size_t len);

/* Compact UTC stamp for file names: "20261129T183000Z" into buf (>= 17 bytes). Returns buf. */
char *clock_wall_stamp(char *buf, size_t len);

/* The same to the millisecond, "20261129T183000.123Z" (>= 21 bytes): run directories, so that
 * runs started one after the other get one each. Returns buf. */
char *clock_wall_stamp_ms(char *buf, size_t len);

/* The monotonic instant timeout_ms from now (negative counts as 0). */
uint64_t clock_deadline_ms(int timeout_ms);

/* Milliseconds left until deadline_ns, clamped to [0, INT32_MAX] (for poll()). */
int clock_ms_until(uint64_t deadline_ns);

#endif
