/* jscan.h - the fast path of the journal reader (see jscan.c). Internal to the report module. */
#ifndef NS_REPORT_JSCAN_H
#define NS_REPORT_JSCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct jscan_str {
    const char *s; /* NUL-terminated, in the record's arena; NULL for JSON null or absent */
    size_t n;
};

struct jscan_endpoint {
    struct jscan_str host, zone, region, addr;
};

struct jscan_bucket {
    uint32_t idx; /* hist_index() of the bucket's lower bound */
    uint64_t count;
};

struct jscan_rec {
    struct jscan_str schema, scen_name, scen_test, family, status, error;
    bool reverse;
    uint32_t trial;
    struct jscan_endpoint src, dst;
    bool has_result;
    double throughput_bps, connections_per_s, retransmits;
    bool has_throughput, has_connections, has_retransmits;
    double cpu_local, cpu_remote;
    bool has_cpu_local, has_cpu_remote;
    bool has_udp, has_udp_lost, has_udp_sent, has_udp_lost_pct, has_udp_jitter;
    double udp_lost, udp_sent, udp_lost_pct, udp_jitter;
    bool has_rtt, has_rtt_mean, has_rtt_min, has_rtt_max, has_rtt_m2, has_buckets;
    double rtt_mean, rtt_min, rtt_max, rtt_m2;
    int sub_bits;
    struct jscan_bucket *b; /* kept across records (capacity reused) */
    size_t nb, capb;
    size_t arena_len;
    char arena[8192]; /* must stay the last member (reset stops here) */
};

/* Parse one trial line into r (reusing r's bucket array). False when the line is not what the
 * fast path reads (torn, unusual escapes, very long strings): use jansson then. */
bool jscan_trial(const char *line, size_t len, struct jscan_rec *r);
void jscan_rec_reset(struct jscan_rec *r);
void jscan_rec_release(struct jscan_rec *r);

#endif
