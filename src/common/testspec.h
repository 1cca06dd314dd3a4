/* testspec.h - the one definition of nsperf's test kinds and test parameters: names, families,
 * headline metrics with their -J keys, units and words, plan keys, flags, types, ranges,
 * defaults and which kinds each parameter applies to. nsperf, the plan validator, the journal,
 * the reports, compare and trend all read these tables, so that `netsurvey check` refuses
 * exactly what nsperf refuses, with the same range text, and a kind's figure is read and said
 * the same way in every layer.
 *
 * Adding a parameter: one row in TESTSPEC_PARAM_MAP (the plan, the journal's records and
 * nsperf's frames pick it up, by its keys; nsperf's main.c needs a flag row, params.c and
 * journal/record.c a field).
 *
 * Adding a kind:
 *  1. one row in TESTSPEC_KIND_MAP: its id and name, family, headline metric, whether it has RTT
 *     percentiles, its message sizes and default rate; its bit in TESTSPEC_PARAM_MAP's last
 *     column where a parameter applies beyond what its family gives (copy, busy_poll). A new
 *     headline metric is one row in TESTSPEC_METRIC_MAP (a number of nsperf's result, or a
 *     number in one of its objects: its key, a TESTSPEC_KEY_* macro, member, divisor, unit,
 *     words, note, direction, format); the journal's readers and the reports take it from there.
 *     A figure the kind reports beside its headline is such a row too, with a name, the kinds
 *     that report it and the parameter that makes it (the reports give it a stat matrix);
 *  2. one ops file, src/nsperf/<name>.c, defining `const struct test_kind ns_kind_<name>`
 *     (nsperf/nsperf.h: how it runs, combines and prints; what the control layer must do for it
 *     is data there: own_connections, nodelay, params_json), added to nsperf_core in
 *     src/nsperf/CMakeLists.txt. The registry (nsperf/kinds.c) is made from the table: without
 *     the file nsperf does not link;
 *  3. its tests: the kind on loopback (tests/nsperf/itest_*.c), a sample of its -J result
 *     (tests/fixtures/journals/nsperf/<name>.json) and its result in a journal the reports read
 *     (tests/report/gen_journal.py's make_result, which fills each kind's own figures).
 * Nothing else names a kind or spells its figure: tests/seams/kind_literals.py fails on a kind's
 * name, a metric's unit, words or note, or a TESTSPEC_KEY_* key in a string literal anywhere in
 * src/ but here and in testspec.c.
 *
 * Who reads the tables, and what:
 *  - common/testspec.c: the accessors below, ranges and their text, nsperf's client argv;
 *  - nsperf: kinds.c (the registry, ns_kind_<name> by id), params.c (defaults and checks),
 *    main.c (--test, and --help's kinds, defaults and the kinds a flag is for), output.c (the
 *    kind's name), the ops files (-J keys: TESTSPEC_KEY_*, HISTJSON_RTT);
 *  - plan: scenarios.c (`test:`'s choices; a scenario's parameters by kind), fields.c (ranges),
 *    plan.c and schedule_write.c (a scenario's parameters and nsperf flags);
 *  - journal: record.c (journal_headline: a kind's metric by its key and divisor; the metrics
 *    and the scenario's parameters read by the table's keys), scan.c (its result keys);
 *  - survey: trial.c (testspec_client_argv), run.c (journal_headline_json, for adaptive
 *    trials), preflight_paths.c (its probe is a tcp_rr);
 *  - report: model.c (the headline; RTT histograms where testspec_kind_has_rtt), aggregate.c
 *    (family: which way data flows; the metric's words, unit and text; summary.json's units
 *    legend), matrixstat.c (which stat matrices a kind has), charts.c (values), summary.c (the
 *    kind of a summary's scenario);
 *  - history: compare.c, trend.c and trendout.c (whether lower is better, words, unit, values). */
#ifndef NS_TESTSPEC_H
#define NS_TESTSPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/histjson.h"

struct err;

#define NS_MAX_STREAMS 128
#define NS_MAX_MSG_SIZE (64u << 20) /* 64 MiB write/request size */
#define NS_MAX_UDP_PAYLOAD 65507u
#define NS_UDP_STREAM_MIN 40u /* header: magic, phase, sequence, time, cookie */
#define NS_MAX_DURATION_S (24.0 * 3600.0)
#define NS_MAX_WARMUP_S 3600.0
#define NS_MIN_INTERVAL_S 0.01 /* -i: 0 (none) or at least 10 ms */
#define NS_MAX_INTERVAL_S 3600.0
#define NS_MAX_RATE_BPS 1e12
#define NS_MAX_PACKET_RATE 1e9 /* packets/s: well above what one host sends */
#define NS_MIN_RATE_BPS 1.0
#define NS_MIN_SOCK_BUF 1024.0
#define NS_MAX_SOCK_BUF (1 << 30)
/* -i samples kept per test: ceil(duration / interval) x streams. Bounds the endpoint's memory
 * and keeps the RESULT frame well under PROTO_MAX_PAYLOAD (about 150 bytes a sample at most). */
#define NS_MAX_INTERVAL_CELLS 36000u
/* streams x write size of a stream kind: each stream owns a buffer of -l bytes. */
#define NS_MAX_STREAM_MEMORY (256ull << 20)

/* The rates of nsperf -J's result object (README "nsperf -J"), by these names in every layer;
 * the RTT histogram is HISTJSON_RTT (common/histjson.h). */
#define TESTSPEC_KEY_THROUGHPUT "throughput_bps"       /* receiver-counted, all streams */
#define TESTSPEC_KEY_TRANSACTIONS "transactions_per_s" /* request/response kinds */
#define TESTSPEC_KEY_CONNECTIONS "connections_per_s"   /* connect kinds */
#define TESTSPEC_KEY_PACKETS "packets_per_s"           /* udp_pps: receiver-counted datagrams */
#define TESTSPEC_KEY_SENT_PACKETS "sent_packets_per_s" /* udp_pps: what the sender sent */
#define TESTSPEC_KEY_IDLE_RTT "idle_rtt_us" /* rr kinds with load: the RTT before the load */
#define TESTSPEC_KEY_LOAD "load"            /* rr kinds with load: the load's own figures */

/* Which way data flows, as a stream kind's -R or a load's direction says it, and the names of
 * a result's objects that keep each direction's figures (--bidir, a load both ways): forward is
 * client -> server (src -> dst in a survey), reverse the other way. */
#define TESTSPEC_DIR_FORWARD "forward"
#define TESTSPEC_DIR_REVERSE "reverse"
#define TESTSPEC_DIR_BOTH "both"
#define TESTSPEC_DIRECTION_MAP(X)                                                                  \
    X(FORWARD, TESTSPEC_DIR_FORWARD) X(REVERSE, TESTSPEC_DIR_REVERSE) X(BOTH, TESTSPEC_DIR_BOTH)

enum testspec_direction {
#define TESTSPEC_DIRECTION_ENUM(id, name) TESTSPEC_DIRECTION_##id,
    TESTSPEC_DIRECTION_MAP(TESTSPEC_DIRECTION_ENUM)
#undef TESTSPEC_DIRECTION_ENUM
        TESTSPEC_DIRECTION_COUNT
};

/* Families of kinds: how a test moves data, which says which parameters apply (streams and -R
 * to STREAM; response_size to RR and CONNECT) and how the reports describe a pair (data flows
 * src -> dst, or src requests and dst responds). */
enum testspec_family {
    TESTSPEC_FAMILY_STREAM,  /* bulk data one way, receiver-counted */
    TESTSPEC_FAMILY_RR,      /* one transaction in flight on a standing connection or socket */
    TESTSPEC_FAMILY_CONNECT, /* a new connection per transaction */
};

/* Metrics: a kind's headline, the one figure that the matrices show, compare gates and adaptive
 * trials decide on, and the figures some kinds report beside it (a load's throughput, each
 * direction of --bidir), each with a stat matrix of its own in the reports. Columns: id, -J key,
 * member (NULL: the key is a number of the result object; else the number of that name in the
 * object at the key), divisor from the -J value to the reports' unit, that unit
 * (machine-readable: summary.json's and the CSVs' numbers are in it), the words for the figure,
 * a note for summary.json's units legend and the reports (NULL: none), whether lower is better;
 * then, for a figure beside the headline, its name in summary.json and the reports' files, the
 * kinds that report it and the parameter that must be set (not 0) for them to (TESTSPEC_ALWAYS:
 * none); a headline metric has NULL, 0, TESTSPEC_ALWAYS there. People read the figures in the
 * units of TESTSPEC_SCALE_MAP (those of the metrics of the same reports' unit).
 *  - udp_pps: packets_per_s is the measured datagrams received over the sender's measured
 *    interval (the interval that decides which datagrams are measured); sent_packets_per_s the
 *    same of those sent, so that the sender's own shortfall is not read as loss;
 *  - tcp_rr and udp_rr with load: rtt_us is the RTT under load; idle_rtt_us the same pair's
 *    RTT in the same trial before the load started (nsperf/rr_common.c says when);
 *  - --bidir: throughput_bps is the sum of both directions, each receiver-counted. */
#define TESTSPEC_ALWAYS (-1)
#define TESTSPEC_METRIC_MAP(X)                                                                     \
    X(RTT_MEAN, HISTJSON_RTT, "mean", 1.0, "us", "mean RTT", "mean RTT", true, NULL, 0u,           \
      TESTSPEC_ALWAYS)                                                                             \
    X(THROUGHPUT, TESTSPEC_KEY_THROUGHPUT, NULL, 1e6, "Mbit/s", "throughput", "receiver-counted",  \
      false, NULL, 0u, TESTSPEC_ALWAYS)                                                            \
    X(CONNECTIONS, TESTSPEC_KEY_CONNECTIONS, NULL, 1.0, "conn/s", "connection rate", NULL, false,  \
      NULL, 0u, TESTSPEC_ALWAYS)                                                                   \
    X(PACKETS, TESTSPEC_KEY_PACKETS, NULL, 1.0, "pkt/s", "packet rate",                            \
      "receiver-counted datagrams", false, NULL, 0u, TESTSPEC_ALWAYS)                              \
    X(SENT_PACKETS, TESTSPEC_KEY_SENT_PACKETS, NULL, 1.0, "pkt/s", "sent packet rate",             \
      "datagrams the sender sent", false, "sent_rate", TESTSPEC_K(UDP_PPS), TESTSPEC_ALWAYS)       \
    X(IDLE_RTT_MEAN, TESTSPEC_KEY_IDLE_RTT, "mean", 1.0, "us", "idle mean RTT",                    \
      "the same trial's RTT before its load started", true, "idle_rtt", TESTSPEC_LOAD_KINDS,       \
      TESTSPEC_P_LOAD_STREAMS)                                                                     \
    X(LOAD_THROUGHPUT, TESTSPEC_KEY_LOAD, TESTSPEC_KEY_THROUGHPUT, 1e6, "Mbit/s",                  \
      "load throughput", "the load's streams, receiver-counted", false, "load_throughput",         \
      TESTSPEC_LOAD_KINDS, TESTSPEC_P_LOAD_STREAMS)                                                \
    X(FORWARD_THROUGHPUT, TESTSPEC_DIR_FORWARD, TESTSPEC_KEY_THROUGHPUT, 1e6, "Mbit/s",            \
      "forward throughput", "src to dst, receiver-counted", false, "forward",                      \
      TESTSPEC_BIDIR_KINDS, TESTSPEC_P_BIDIR)                                                      \
    X(REVERSE_THROUGHPUT, TESTSPEC_DIR_REVERSE, TESTSPEC_KEY_THROUGHPUT, 1e6, "Mbit/s",            \
      "reverse throughput", "dst to src, receiver-counted", false, "reverse",                      \
      TESTSPEC_BIDIR_KINDS, TESTSPEC_P_BIDIR)

enum testspec_metric {
#define TESTSPEC_METRIC_ENUM(id, key, member, div, unit, words, note, lower, fig, kinds, when)     \
    TESTSPEC_M_##id,
    TESTSPEC_METRIC_MAP(TESTSPEC_METRIC_ENUM)
#undef TESTSPEC_METRIC_ENUM
        TESTSPEC_METRIC_COUNT
};

/* The units people read a metric's figures in, smallest first, per metric: a figure (a table, a
 * chart, a value in a sentence) is in one of them, chosen for its range (testspec_scale_for), the
 * same in its cells, axis, colour bar and caption. Columns: metric, unit (UTF-8), how many of
 * the reports' unit one of it is, the most decimals it shows. A metric is read in the units of
 * the rows whose metric has its reports' unit: RTT_MEAN's are the reports' times of
 * microseconds (UDP jitter's and IDLE_RTT_MEAN's too), THROUGHPUT's every rate in Mbit/s (a
 * load's, each --bidir direction's), PACKETS' the sent packet rate's. */
#define TESTSPEC_SCALE_MAP(X)                                                                      \
    X(RTT_MEAN, "µs", 1.0, 1)                                                                      \
    X(RTT_MEAN, "ms", 1e3, 3)                                                                      \
    X(RTT_MEAN, "s", 1e6, 3)                                                                       \
    X(THROUGHPUT, "kbit/s", 1e-3, 3)                                                               \
    X(THROUGHPUT, "Mbit/s", 1.0, 3)                                                                \
    X(THROUGHPUT, "Gbit/s", 1e3, 3)                                                                \
    X(THROUGHPUT, "Tbit/s", 1e6, 3)                                                                \
    X(CONNECTIONS, "conn/s", 1.0, 1)                                                               \
    X(PACKETS, "pkt/s", 1.0, 1)

/* A unit of TESTSPEC_SCALE_MAP with the decimals a figure shows in it. */
struct testspec_scale {
    const char *unit; /* "µs", "Gbit/s" */
    double factor;    /* the reports' unit per one of it (Gbit/s: 1000 Mbit/s) */
    int decimals;
};

/* Test kinds, named after netperf's. Columns: id, name (a token: the string is #name, and
 * nsperf's ops of the kind are ns_kind_<name>), family, headline metric, whether it has RTT
 * percentiles (a histogram of every transaction), default -l (write size of the stream kinds,
 * request size of the others), smallest -l, largest -l and --response-size, default -b
 * (0 = unpaced).
 *  - tcp_stream writes 1 MiB per send(): measured on loopback, 128K writes (iperf3's default)
 *    cap one stream at ~14 Gbit/s on syscall cost alone, 1 MiB at ~26; paced streams write
 *    smaller pieces (tcp_stream.c);
 *  - udp_stream: iperf3's UDP datagram (1460) and rate (1 Mbit/s); smaller than its header is
 *    refused;
 *  - the request/response kinds: netperf's 1-byte default;
 *  - udp_pps: 64-byte datagrams (iperf3 -u -l 64), as fast as the sender goes unless
 *    --packet-rate (its rate is in packets/s, not -b's bits/s). */
#define TESTSPEC_KIND_MAP(X)                                                                       \
    X(TCP_STREAM, tcp_stream, STREAM, THROUGHPUT, false, 1048576.0, 1.0, NS_MAX_MSG_SIZE, 0.0)     \
    X(UDP_STREAM, udp_stream, STREAM, THROUGHPUT, false, 1460.0, NS_UDP_STREAM_MIN,                \
      NS_MAX_UDP_PAYLOAD, 1e6)                                                                     \
    X(TCP_RR, tcp_rr, RR, RTT_MEAN, true, 1.0, 1.0, NS_MAX_MSG_SIZE, 0.0)                          \
    X(UDP_RR, udp_rr, RR, RTT_MEAN, true, 1.0, 1.0, NS_MAX_UDP_PAYLOAD, 0.0)                       \
    X(TCP_CRR, tcp_crr, CONNECT, CONNECTIONS, true, 1.0, 1.0, NS_MAX_MSG_SIZE, 0.0)                \
    X(UDP_PPS, udp_pps, STREAM, PACKETS, false, 64.0, NS_UDP_STREAM_MIN, NS_MAX_UDP_PAYLOAD, 0.0)

enum testspec_kind {
#define TESTSPEC_KIND_ENUM(id, name, fam, metric, rtt, def_len, min_len, max_len, def_rate)        \
    TESTSPEC_##id,
    TESTSPEC_KIND_MAP(TESTSPEC_KIND_ENUM)
#undef TESTSPEC_KIND_ENUM
        TESTSPEC_KIND_COUNT
};

/* What nsperf runs without --test. */
#define TESTSPEC_DEFAULT_KIND TESTSPEC_TCP_STREAM

/* Sets of kinds, as bit masks of enum testspec_kind: one kind, and the kinds of families. */
#define TESTSPEC_K(id) (1u << TESTSPEC_##id)
#define TESTSPEC_STREAM_BIT_(id, name, fam, metric, rtt, def_len, min_len, max_len, def_rate)      \
    | (TESTSPEC_FAMILY_##fam == TESTSPEC_FAMILY_STREAM ? TESTSPEC_K(id) : 0u)
#define TESTSPEC_RR_BIT_(id, name, fam, metric, rtt, def_len, min_len, max_len, def_rate)          \
    | (TESTSPEC_FAMILY_##fam == TESTSPEC_FAMILY_RR ||                                              \
               TESTSPEC_FAMILY_##fam == TESTSPEC_FAMILY_CONNECT                                    \
           ? TESTSPEC_K(id)                                                                        \
           : 0u)
/* STREAM */
#define TESTSPEC_STREAM_KINDS (0u TESTSPEC_KIND_MAP(TESTSPEC_STREAM_BIT_))
/* RR and CONNECT: a request and its response */
#define TESTSPEC_RR_KINDS (0u TESTSPEC_KIND_MAP(TESTSPEC_RR_BIT_))
#define TESTSPEC_ALL_KINDS ((1u << TESTSPEC_KIND_COUNT) - 1u)
/* The kinds that take a load (load.streams, load.direction) and --bidir. */
#define TESTSPEC_LOAD_KINDS (TESTSPEC_K(TCP_RR) | TESTSPEC_K(UDP_RR))
#define TESTSPEC_BIDIR_KINDS (TESTSPEC_K(TCP_STREAM) | TESTSPEC_K(UDP_STREAM))

enum testspec_type {
    TESTSPEC_DURATION, /* seconds; units.h durations ("250ms") */
    TESTSPEC_SIZE,     /* bytes, whole; units.h sizes ("64K") */
    TESTSPEC_RATE,     /* bits/s; units.h rates ("900M") */
    TESTSPEC_COUNT,    /* whole number */
    TESTSPEC_BOOL,     /* flag without value; plan: true or false */
    TESTSPEC_DIRECTION /* enum testspec_direction; its name ("forward", "reverse", "both") */
};

/* Column values that depend on the kind (looked up in TESTSPEC_KIND_MAP). */
#define TESTSPEC_BY_KIND (-1.0)
/* response_size's default: the request size. */
#define TESTSPEC_FOLLOWS_MSG (-2.0)

/* Test parameters. Columns: id, plan key, record key (the journal's trial record and run.json,
 * and nsperf -J's "params"), wire key (nsperf's PARAMS and ACCEPT frames: the record's but
 * "sock_buf" for window, as nsperf has always sent it), nsperf flag, words for messages, type,
 * smallest, largest, kinds where 0 is also accepted (meaning "none": no interval samples, unpaced,
 * kernel-tuned buffers), default, kinds it applies to (a plan key or flag for another kind is
 * refused: "-R does not apply to tcp_rr tests").
 *  - copy: tcp_stream moves its payload through user memory (send() from a buffer, recv() into
 *    one) as iperf3 does, instead of nsperf's zero-copy path (sendfile, splice);
 *  - busy_poll: tcp_rr and udp_rr spin on their socket instead of sleeping in recv(), a core
 *    per side for the lowest round trip (sockperf --nonblocked);
 *  - bidir: streams both ways at once (iperf3 --bidir): -P streams each way, -b each way;
 *  - packet_rate: udp_pps's rate in packets/s (k/M/G as rates), 0 = as fast as it goes;
 *  - load.streams, load.direction: tcp_rr and udp_rr measured while that many bulk TCP streams
 *    run between the same two hosts, forward (client -> server), reverse or both (that many
 *    each way); 0 streams: no load. The plan writes them as one mapping, `load: {streams: 4,
 *    direction: both}`: a plan key "a.b" is key b of the mapping at key a. */
#define TESTSPEC_PARAM_MAP(X)                                                                      \
    X(DURATION, "duration", "duration_s", "duration_s", "-t", "duration", TESTSPEC_DURATION,       \
      0.001, NS_MAX_DURATION_S, 0u, 10.0, TESTSPEC_ALL_KINDS)                                      \
    X(WARMUP, "warmup", "warmup_s", "warmup_s", "--warmup", "warmup", TESTSPEC_DURATION, 0.0,      \
      NS_MAX_WARMUP_S, 0u, 1.0, TESTSPEC_ALL_KINDS)                                                \
    X(STREAMS, "streams", "streams", "streams", "-P", "streams", TESTSPEC_COUNT, 1.0,              \
      NS_MAX_STREAMS, 0u, 1.0, TESTSPEC_STREAM_KINDS)                                              \
    X(MSG_SIZE, "msg_size", "msg_size", "msg_size", "-l", "message size", TESTSPEC_SIZE,           \
      TESTSPEC_BY_KIND, TESTSPEC_BY_KIND, 0u, TESTSPEC_BY_KIND, TESTSPEC_ALL_KINDS)                \
    X(RESPONSE_SIZE, "response_size", "response_size", "response_size", "--response-size",         \
      "response size", TESTSPEC_SIZE, 1.0, TESTSPEC_BY_KIND, 0u, TESTSPEC_FOLLOWS_MSG,             \
      TESTSPEC_RR_KINDS)                                                                           \
    X(RATE, "rate", "rate_bps", "rate_bps", "-b", "rate", TESTSPEC_RATE, NS_MIN_RATE_BPS,          \
      NS_MAX_RATE_BPS, TESTSPEC_K(TCP_STREAM), TESTSPEC_BY_KIND,                                   \
      TESTSPEC_K(TCP_STREAM) | TESTSPEC_K(UDP_STREAM))                                             \
    X(INTERVAL, "interval", "interval_s", "interval_s", "-i", "interval", TESTSPEC_DURATION,       \
      NS_MIN_INTERVAL_S, NS_MAX_INTERVAL_S, TESTSPEC_ALL_KINDS, 0.0, TESTSPEC_ALL_KINDS)           \
    X(WINDOW, "window", "window", "sock_buf", "-w", "socket buffer", TESTSPEC_SIZE,                \
      NS_MIN_SOCK_BUF, NS_MAX_SOCK_BUF, TESTSPEC_ALL_KINDS, 0.0, TESTSPEC_ALL_KINDS)               \
    X(REVERSE, "reverse", "reverse", "reverse", "-R", "reverse", TESTSPEC_BOOL, 0.0, 1.0,          \
      TESTSPEC_ALL_KINDS, 0.0, TESTSPEC_STREAM_KINDS)                                              \
    X(COPY, "copy", "copy", "copy", "--copy", "copy", TESTSPEC_BOOL, 0.0, 1.0, TESTSPEC_ALL_KINDS, \
      0.0, TESTSPEC_K(TCP_STREAM))                                                                 \
    X(BUSY_POLL, "busy_poll", "busy_poll", "busy_poll", "--busy-poll", "busy poll", TESTSPEC_BOOL, \
      0.0, 1.0, TESTSPEC_ALL_KINDS, 0.0, TESTSPEC_K(TCP_RR) | TESTSPEC_K(UDP_RR))                  \
    X(BIDIR, "bidir", "bidir", "bidir", "--bidir", "bidir", TESTSPEC_BOOL, 0.0, 1.0,               \
      TESTSPEC_ALL_KINDS, 0.0, TESTSPEC_BIDIR_KINDS)                                               \
    X(PACKET_RATE, "packet_rate", "packet_rate", "packet_rate", "--packet-rate", "packet rate",    \
      TESTSPEC_RATE, 1.0, NS_MAX_PACKET_RATE, TESTSPEC_K(UDP_PPS), 0.0, TESTSPEC_K(UDP_PPS))       \
    X(LOAD_STREAMS, "load.streams", "load_streams", "load_streams", "--load", "load streams",      \
      TESTSPEC_COUNT, 1.0, NS_MAX_STREAMS, TESTSPEC_LOAD_KINDS, 0.0, TESTSPEC_LOAD_KINDS)          \
    X(LOAD_DIRECTION, "load.direction", "load_direction", "load_direction", "--load-direction",    \
      "load direction", TESTSPEC_DIRECTION, 0.0, TESTSPEC_DIRECTION_COUNT - 1, 0u,                 \
      TESTSPEC_DIRECTION_FORWARD, TESTSPEC_LOAD_KINDS)

enum testspec_param {
#define TESTSPEC_PARAM_ENUM(id, key, rkey, wkey, flag, words, type, lo, hi, zero, def, kinds)      \
    TESTSPEC_P_##id,
    TESTSPEC_PARAM_MAP(TESTSPEC_PARAM_ENUM)
#undef TESTSPEC_PARAM_ENUM
        TESTSPEC_PARAM_COUNT
};

/* A test's parameter values (a scenario's, a command line's). v[] holds every value as a double
 * (sizes and rates are exact: all limits are below 2^53); set has bit i when parameter i was
 * given, the others hold the kind's defaults. */
struct testspec_values {
    enum testspec_kind kind;
    double v[TESTSPEC_PARAM_COUNT];
    uint32_t set;
};

#define TESTSPEC_BIT(param) (1u << (param))

/* Parameters a scenario may sweep (a list of values, each run as a scenario of its own): those
 * that change what the network and the hosts are asked to carry - the streams, the write or
 * request size, the response size, the pacing rate, the socket buffer - so that the headline
 * figure against the value is a curve worth drawing (netperf's message-size loops, PKB's stream
 * counts, NTTTCP's threads). Not duration, warmup or interval (how long and how finely a test
 * measures, not what it measures), nor the flags (two values are two scenarios, not a curve). */
#define TESTSPEC_SWEEP_PARAMS                                                                      \
    (TESTSPEC_BIT(TESTSPEC_P_STREAMS) | TESTSPEC_BIT(TESTSPEC_P_MSG_SIZE) |                        \
     TESTSPEC_BIT(TESTSPEC_P_RESPONSE_SIZE) | TESTSPEC_BIT(TESTSPEC_P_RATE) |                      \
     TESTSPEC_BIT(TESTSPEC_P_WINDOW))
/* The most values one sweep lists. */
#define TESTSPEC_SWEEP_MAX_VALUES 64

/* --- kinds --------------------------------------------------------------------------------- */

/* "tcp_stream"; NULL when out of range. */
const char *testspec_kind_name(int kind);
/* Kind named name, or -1 (name may be NULL). */
int testspec_kind_find(const char *name);
/* "tcp_stream, udp_stream, tcp_rr, udp_rr, tcp_crr or udp_pps" into buf; returns buf. */
char *testspec_kind_list(char *buf, size_t len);
/* The kinds of mask (TESTSPEC_K bits) in the table's order, joined by sep: "tcp_rr, udp_rr"
 * (sep ", "). Returns buf. */
char *testspec_kinds_text(unsigned mask, const char *sep, char *buf, size_t len);

/* The columns of a kind's row; kind must be in range. */
enum testspec_family testspec_kind_family(enum testspec_kind kind);
enum testspec_metric testspec_kind_metric(enum testspec_kind kind);
bool testspec_kind_has_rtt(enum testspec_kind kind); /* RTT percentiles (a histogram) */

/* --- headline metrics ---------------------------------------------------------------------- */

const char *testspec_metric_key(enum testspec_metric m);    /* "throughput_bps", "rtt_us" */
const char *testspec_metric_member(enum testspec_metric m); /* NULL, "mean" */
double testspec_metric_divisor(enum testspec_metric m);     /* -J value / divisor: reports' */
const char *testspec_metric_unit(enum testspec_metric m);   /* "Mbit/s", "us", "conn/s" */
const char *testspec_metric_words(enum testspec_metric m);  /* "throughput", "mean RTT" */
const char *testspec_metric_note(enum testspec_metric m);   /* "receiver-counted", or NULL */
bool testspec_metric_lower_is_better(enum testspec_metric m);
/* value (in the reports' unit) for people, in the unit of its own range (testspec_scale_for of
 * value): "329.3 µs", "4.080 ms", "12.10 Gbit/s", "4301 conn/s". Returns buf. */
char *testspec_metric_text(enum testspec_metric m, double value, char *buf, size_t len);

/* The unit of m for a figure whose typical magnitude, in the reports' unit, is ref (the caller
 * chooses it: a table's median value): the largest of TESTSPEC_SCALE_MAP's units of m of which
 * ref is at least one (the smallest when ref is below all; the reports' own unit when ref is 0 or
 * not finite), and the decimals that give ref four significant digits (1 000 and up: none, 100:
 * one, 10: two, else three), at most the unit's. */
struct testspec_scale testspec_scale_for(enum testspec_metric m, double ref);
/* value (the reports' unit) in s without the unit: "%.*f" of value / s->factor, "12.10"; a value
 * that is not zero but would print as zero says so ("< 0.01", "> -0.01"); "n/a" when not
 * finite. Returns buf. */
char *testspec_scale_text(const struct testspec_scale *s, double value, char *buf, size_t len);

/* A figure beside the headline (TESTSPEC_METRIC_MAP's last columns): its name in summary.json
 * and the reports' files ("idle_rtt"; NULL for a headline metric), and whether a test of v's
 * kind and parameters reports it. */
const char *testspec_metric_figure(enum testspec_metric m);
bool testspec_metric_reported(enum testspec_metric m, const struct testspec_values *v);

/* The same, of a kind's headline metric. */
const char *testspec_kind_unit(enum testspec_kind kind);
const char *testspec_kind_words(enum testspec_kind kind);
bool testspec_kind_lower_is_better(enum testspec_kind kind);
char *testspec_kind_value_text(enum testspec_kind kind, double value, char *buf, size_t len);

/* --- directions ---------------------------------------------------------------------------- */

/* "forward", "reverse", "both"; NULL out of range. */
const char *testspec_direction_name(int d);
/* Direction named name, or -1 (name may be NULL). */
int testspec_direction_find(const char *name);

/* --- parameters ---------------------------------------------------------------------------- */

const char *testspec_key(enum testspec_param p);        /* "msg_size", "rate" */
const char *testspec_record_key(enum testspec_param p); /* "msg_size", "rate_bps" */
const char *testspec_wire_key(enum testspec_param p);   /* "msg_size", "rate_bps", "sock_buf" */
const char *testspec_flag(enum testspec_param p);       /* "-l" */
const char *testspec_words(enum testspec_param p);      /* "message size" */
enum testspec_type testspec_type(enum testspec_param p);

bool testspec_applies(enum testspec_param p, int kind);
/* Whether a scenario may give a list of values for p (TESTSPEC_SWEEP_PARAMS). */
bool testspec_sweepable(enum testspec_param p);
/* "streams, msg_size, response_size, rate or window": the plan keys of the sweepable
 * parameters, in the table's order. Returns buf. */
char *testspec_sweepable_text(char *buf, size_t len);
/* Smallest and largest value for kind; kind -1: over every kind the parameter applies to. */
double testspec_min(enum testspec_param p, int kind);
double testspec_max(enum testspec_param p, int kind);
/* Whether 0 ("none") is also accepted for kind (kind -1: for some kind). */
bool testspec_zero_ok(enum testspec_param p, int kind);
/* Default for kind (response_size: msg_size's default; see testspec_values_default). */
double testspec_default(enum testspec_param p, int kind);

/* Whether value is accepted for kind (kind -1: for some kind); ignores applicability. */
bool testspec_in_range(enum testspec_param p, int kind, double value);

/* The accepted values as text, the same for every reader: "1..64M", "0 or 10ms..1h",
 * "40..65507 for udp_stream" (the kind is named when the range depends on it). Returns buf. */
char *testspec_range_text(enum testspec_param p, int kind, char *buf, size_t len);

/* A value as a user would write it, in the parameter's unit: "10ms", "64M", "1460", "900M",
 * "true". Exact (sizes and rates in whole units only when exact). Returns buf. */
char *testspec_value_text(enum testspec_param p, double value, char *buf, size_t len);

/* value as the JSON the journal and nsperf's frames hold: a boolean (TESTSPEC_BOOL), a real
 * (TESTSPEC_DURATION) or an integer (the others). New reference; NULL when out of memory. */
struct json_t *testspec_value_json(enum testspec_param p, double value);

/* Parse text as parameter p's type (units.h; sizes and counts must be whole, bools are
 * "true"/"false"). Returns 0, NS_EPARSE (not a value of that type) or NS_ERANGE (negative or
 * too large for any use); e says why, naming the parameter by its words. No range check. */
int testspec_parse(enum testspec_param p, const char *text, double *out, struct err *e);

/* "<who> <value_text> out of range <range>" into e (NS_ERANGE); returns NS_ERANGE. who is how
 * the reader names the parameter ("msg_size" in a plan, "-l: message size" in nsperf). */
int testspec_range_error(struct err *e, enum testspec_param p, int kind, const char *who,
                         const char *value_text);

/* --- values -------------------------------------------------------------------------------- */

/* Every parameter at kind's default, none set. */
void testspec_values_default(struct testspec_values *v, enum testspec_kind kind);
/* Set parameter p (marks it given). response_size follows msg_size while not given. */
void testspec_values_set(struct testspec_values *v, enum testspec_param p, double value);

/* The limits that involve several parameters (what a test makes an endpoint hold, and interval
 * sampling): returns 0, or NS_ERANGE with the message in e and the parameter to blame in
 * *param. Checks only what applies to v->kind. */
int testspec_check_limits(const struct testspec_values *v, enum testspec_param *param,
                          struct err *e);

/* Check every value of v: ranges for its kind, then testspec_check_limits. A parameter that
 * does not apply must be at its default. Messages name parameters by flag, as nsperf's
 * command line does ("-l: message size 0 out of range 1..64M"). Returns 0 or NS_ERANGE. */
int testspec_values_check(const struct testspec_values *v, struct err *e);

/* The nsperf client flags for a test: "--test", the kind, then flag and value of every
 * parameter set in v that applies to the kind, in table order ("--test tcp_rr -t 100 --warmup 1
 * -l 250"). Host, port, -J and the token file are the caller's to add. Returns a
 * NULL-terminated vector whose pointers and strings live in one heap block: the caller frees
 * it with free() alone; *argc (may be NULL) gets the count. NULL when out of memory or when v
 * does not pass testspec_values_check (e says why). */
char **testspec_client_argv(const struct testspec_values *v, size_t *argc, struct err *e);

#endif
