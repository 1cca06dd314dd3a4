#include "common/clock.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

uint64_t
clock_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * NS_PER_SEC + (uint64_t)ts.tv_nsec;
}

void
clock_sleep_until_ns(uint64_t deadline_ns)
{
    struct timespec ts = {.tv_sec = (time_t)(deadline_ns / NS_PER_SEC),
                          .tv_nsec = (long)(deadline_ns % NS_PER_SEC)};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
        ;
}

void
clock_sleep_ns(uint64_t ns)
{
    clock_sleep_until_ns(clock_now_ns() + ns);
}

char *
clock_wall_iso8601(char *buf, size_t len)
{
    struct timespec ts;
    struct tm tm;
    clock_gettime(CLOCK_REALTIME, &ts);
    gmtime_r(&ts.tv_sec, &tm);
    snprintf(buf, len, "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ", tm.tm_year + 1900, tm.tm_mon + 1,
             tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, ts.tv_nsec / 1000000L);
    return buf;
}

char *
clock_wall_stamp(char *buf, size_t len)
{
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(buf, len, "%Y%m%dT%H%M%SZ", &tm);
    return buf;
}

char *
clock_wall_stamp_ms(char *buf, size_t len)
{
    struct timespec ts;
    struct tm tm;
    clock_gettime(CLOCK_REALTIME, &ts);
    gmtime_r(&ts.tv_sec, &tm);
    snprintf(buf, len, "%04d%02d%02dT%02d%02d%02d.%03ldZ", tm.tm_year + 1900, tm.tm_mon + 1,
             tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, ts.tv_nsec / 1000000L);
    return buf;
}

int
clock_ms_until(uint64_t deadline_ns)
{
    uint64_t now = clock_now_ns();
    if (now >= deadline_ns)
        return 0;
    uint64_t ms = (deadline_ns - now + NS_PER_MS - 1) / NS_PER_MS;
    return ms > INT32_MAX ? INT32_MAX : (int)ms;
}

uint64_t
clock_deadline_ms(int timeout_ms)
{
    uint64_t ms = timeout_ms < 0 ? 0 : (uint64_t)timeout_ms;
    return clock_now_ns() + ms * NS_PER_MS;
}
