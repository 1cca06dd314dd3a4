/* hostenv.h - `nsperf env`: what a survey records about a host (kernel, OS, CPU, memory, the
 * interface holding the data address with its MTU, qdisc and driver, the CPU frequency governor
 * and its bounds, TCP congestion control, clock source, and the cloud's word on where it runs:
 * provider, region, zone, physical zone, instance type and id) as one JSON object. The same code
 * runs locally and on a VM: files under /proc, /sys and /etc, rtnetlink and SIOCETHTOOL (netif.h),
 * no shell commands to parse. */
#ifndef NS_NSPERF_HOSTENV_H
#define NS_NSPERF_HOSTENV_H

#include <jansson.h>

#include "common/errors.h"
#include "nsperf/cloud.h"

/* The environment as a new JSON object (caller decrefs); address (may be NULL) selects the
 * interface; cloud says which metadata services fill "cloud" (cloud.h: null off-cloud), within
 * cloud_budget_ms.
 * Fields that cannot be read are null, never an error: NULL only without memory. */
json_t *hostenv_collect(const char *address, enum cloud_mode cloud, int cloud_budget_ms);

/* `nsperf env` once main.c has read its flags (each NULL when not given): the interface of
 * address, the cloud mode ("auto", "probe", "off"; else NSPERF_CLOUD) and budget in ms
 * (else NSPERF_CLOUD_BUDGET_MS). Prints the object and a newline on stdout. Returns an exit
 * status (0, 1 out of memory or not written, 2 a value refused). */
int hostenv_main(const char *address, const char *cloud, const char *cloud_budget);

#endif
