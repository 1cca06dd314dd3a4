/* main.c - nsperf's command line: parse flags into options, run the client or the server, map
 * the outcome to an exit status (0 ok, 1 test failed, 2 usage). Flags are a table: most set a
 * field or keep a test parameter by their row alone, the others call a small handler (not one
 * 900-line parser). */
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "common/errors.h"
#include "common/net.h"
#include "common/roff.h"
#include "common/suggest.h"
#include "common/units.h"
#include "nsperf/control.h"
#include "nsperf/hostcount.h"
#include "nsperf/hostenv.h"

#define EXIT_TEST_FAILED 1
#define EXIT_USAGE 2
#define DEFAULT_ONE_SHOT_IDLE_S 600.0

struct opt;

struct cli {
    bool server, client;
    const char *host;
    const char *bind;
    uint16_t port;
    bool one_shot;
    double idle_timeout_s;
    bool idle_set;
    const char *token_file;
    const char *test;
    struct ns_params p;
    bool json;
    /* test parameters as written, applied once the kind is known (common/testspec.h) */
    const char *raw[TESTSPEC_PARAM_COUNT];
    const struct opt *client_only, *server_only; /* first such flag given */
    /* nsperf env's flags (env_opts), as written */
    const char *env_address, *env_cloud, *env_budget;
    /* nsperf counters' flags (counters_opts), as written */
    const char *cnt_interface, *cnt_address;
    bool try_help; /* the usage error is one of the flags themselves */
};

typedef int (*opt_fn)(struct cli *c, const char *arg, struct err *e);

/* What a flag does: call its handler, set a bool or a string of struct cli, or keep a test
 * parameter of common/testspec.h as written (applied once the kind is known). */
enum opt_kind { OPT_CALL, OPT_TRUE, OPT_STRING, OPT_PARAM };

/* Which side a flag is for: given to the other, it is refused rather than ignored. */
enum opt_side { OPT_BOTH, OPT_CLIENT, OPT_SERVER };

struct opt {
    const char *name; /* NULL: the table's long flag of param (opt_name) */
    int key;          /* short option letter, or >= 256 for long-only */
    int has_arg;
    enum opt_kind kind;
    opt_fn fn;     /* OPT_CALL */
    size_t offset; /* OPT_TRUE (bool), OPT_STRING (const char *): offsetof(struct cli, ...) */
    enum testspec_param param; /* OPT_PARAM */
    enum opt_side side;
    const char *help;
    bool help_kinds; /* OPT_PARAM: help starts with the kinds it applies to ("tcp_rr, udp_rr: ") */
};

#define O_CALL(f) .kind = OPT_CALL, .fn = (f)
#define O_TRUE(field) .kind = OPT_TRUE, .offset = offsetof(struct cli, field)
#define O_STRING(field) .kind = OPT_STRING, .offset = offsetof(struct cli, field)
#define O_PARAM(id) .kind = OPT_PARAM, .param = TESTSPEC_P_##id, .side = OPT_CLIENT

static int
opt_client(struct cli *c, const char *arg, struct err *e)
{
    (void)e;
    c->client = true;
    c->host = arg;
    return 0;
}

static int
opt_port(struct cli *c, const char *arg, struct err *e)
{
    if (net_parse_port(arg, 0, &c->port) != 0)
        return err_set(e, NS_ERANGE, "invalid port '%s'", arg);
    return 0;
}

static int
opt_idle(struct cli *c, const char *arg, struct err *e)
{
    c->idle_set = true;
    return units_parse_duration(arg, &c->idle_timeout_s, e);
}

static int
opt_test(struct cli *c, const char *arg, struct err *e)
{
    char list[128];
    if (ns_kind_find(arg, NULL) == NULL)
        return err_set(e, NS_EINVAL, "--test: unknown test '%s' (%s)", arg,
                       testspec_kind_list(list, sizeof list));
    c->test = arg;
    return 0;
}

static int
opt_udp(struct cli *c, const char *arg, struct err *e)
{
    (void)c;
    (void)arg;
    return err_set(e, NS_EINVAL, "-u: nsperf has no -u; use --test %s",
                   testspec_kind_name(TESTSPEC_UDP_STREAM));
}

/* -4 and -6 set one thing: given both, neither silently wins. */
static int
opt_family(struct cli *c, int family, struct err *e)
{
    if (c->p.family != AF_UNSPEC && c->p.family != family)
        return err_set(e, NS_EINVAL, "-4 and -6 cannot both be given");
    c->p.family = family;
    return 0;
}

static int
opt_inet(struct cli *c, const char *arg, struct err *e)
{
    (void)arg;
    return opt_family(c, AF_INET, e);
}

static int
opt_inet6(struct cli *c, const char *arg, struct err *e)
{
    (void)arg;
    return opt_family(c, AF_INET6, e);
}

enum {
    OPT_TEST = 256,
    OPT_WARMUP,
    OPT_RESPONSE,
    OPT_TOKEN,
    OPT_IDLE,
    OPT_COPY,
    OPT_BUSY_POLL,
    OPT_BIDIR,
    OPT_PACKET_RATE,
    OPT_LOAD,
    OPT_LOAD_DIRECTION,
    OPT_ADDRESS,
    OPT_CLOUD,
    OPT_CLOUD_BUDGET,
    OPT_INTERFACE,
    OPT_HELP = 'h',
    OPT_VERSION = 'V'
};

static const struct opt opts[] = {
    {"server", 's', no_argument, O_TRUE(server), .help = "run as server"},
    {"client", 'c', required_argument, O_CALL(opt_client), .side = OPT_CLIENT,
     .help = "HOST: run as client, connect to HOST"},
    {"port", 'p', required_argument, O_CALL(opt_port),
     .help = "PORT: server port (default 5301; server: 0 = any free port)"},
    {"bind", 'B', required_argument, O_STRING(bind),
     .help = "ADDR: server: listen on ADDR only; client: leave from ADDR"},
    {"one-off", '1', no_argument, O_TRUE(one_shot), .side = OPT_SERVER,
     .help = "server: serve one test, then exit"},
    {"idle-timeout", OPT_IDLE, required_argument, O_CALL(opt_idle), .side = OPT_SERVER,
     .help = "SEC: server: exit after SEC without a test (default 600 with -1, never without; 0 "
             "= never)"},
    {"token-file", OPT_TOKEN, required_argument, O_STRING(token_file),
     .help = "FILE: shared secret from FILE ('-' = stdin); both sides must use the same"},
    {"test", OPT_TEST, required_argument, O_CALL(opt_test), .side = OPT_CLIENT,
     .help = "KIND: "}, /* then the kinds (help_test) */
    {"time", 't', required_argument, O_PARAM(DURATION),
     .help = "SEC: measured duration (default 10s)"},
    {"warmup", OPT_WARMUP, required_argument, O_PARAM(WARMUP),
     .help = "SEC: traffic before measuring, discarded (default 1s)"},
    {"parallel", 'P', required_argument, O_PARAM(STREAMS),
     .help = "N: parallel streams (stream kinds)"},
    {"length", 'l', required_argument, O_PARAM(MSG_SIZE), .help = "BYTES: "}, /* help_length */
    {"response-size", OPT_RESPONSE, required_argument, O_PARAM(RESPONSE_SIZE),
     .help = "BYTES: response size of rr/crr kinds (default: request size)"},
    {"bitrate", 'b', required_argument, O_PARAM(RATE),
     .help = "RATE: total target rate, bits/s"}, /* then the defaults (help_rate) */
    {"reverse", 'R', no_argument, O_PARAM(REVERSE), .help = "server sends (stream kinds)"},
    {"copy", OPT_COPY, no_argument, O_PARAM(COPY),
     .help = "send() from and recv() into user memory, as iperf3 (see below)", .help_kinds = true},
    {"busy-poll", OPT_BUSY_POLL, no_argument, O_PARAM(BUSY_POLL),
     .help = "spin on the socket instead of sleeping, a core per side (see below)",
     .help_kinds = true},
    {NULL, OPT_BIDIR, no_argument, O_PARAM(BIDIR),
     .help = "both directions at once, -P streams each way (iperf3 --bidir)", .help_kinds = true},
    {NULL, OPT_PACKET_RATE, required_argument, O_PARAM(PACKET_RATE),
     .help = "PPS: packets/s (default: as fast as the sender goes)", .help_kinds = true},
    {NULL, OPT_LOAD, required_argument, O_PARAM(LOAD_STREAMS),
     .help = "N: measure under N bulk TCP streams between the same hosts (see below)",
     .help_kinds = true},
    {NULL, OPT_LOAD_DIRECTION, required_argument, O_PARAM(LOAD_DIRECTION),
     .help = "DIR: the load's way (default forward): ", .help_kinds = true}, /* + directions */
    {"json", 'J', no_argument, O_TRUE(json), .side = OPT_CLIENT, .help = "print one JSON document"},
    {"interval", 'i', required_argument, O_PARAM(INTERVAL),
     .help = "SEC: per-interval lines (and samples in the JSON)"},
    {"window", 'w', required_argument, O_PARAM(WINDOW), .help = "BYTES: socket buffer size"},
    {"ipv4", '4', no_argument, O_CALL(opt_inet), .help = "IPv4 only"},
    {"ipv6", '6', no_argument, O_CALL(opt_inet6), .help = "IPv6 only"},
    {"udp", 'u', no_argument, O_CALL(opt_udp), .help = "iperf3's -u: use --test "}, /* + kind */
    {"help", OPT_HELP, no_argument, .help = "this help"},
    {"version", OPT_VERSION, no_argument, .help = "print the version"},
};
#define NOPTS (sizeof opts / sizeof opts[0])

/* A flag's long name: its row's, or the table's ("--load" of load.streams, without "--"). */
static const char *
opt_name(const struct opt *o)
{
    return o->name != NULL ? o->name : testspec_flag(o->param) + 2;
}

/* `nsperf env`'s flags; NSPERF_CLOUD and NSPERF_CLOUD_BUDGET_MS say the same for a caller that
 * cannot pass them (the flags win). */
static const struct opt env_opts[] = {
    {"address", OPT_ADDRESS, required_argument, O_STRING(env_address),
     .help = "ADDR: describe the interface that holds ADDR (its name, MTU and root qdisc)"},
    {"cloud", OPT_CLOUD, required_argument, O_STRING(env_cloud),
     .help = "MODE: which instance metadata services fill \"cloud\": auto (the default: only "
             "the cloud the firmware names), probe (Azure, AWS and GCP in turn), off (none)"},
    {"cloud-budget", OPT_CLOUD_BUDGET, required_argument, O_STRING(env_budget),
     .help = "MS: the whole metadata probe's time, 1..10000 ms (default 500)"},
    {"help", OPT_HELP, no_argument, .help = "this help"},
};
#define NENV_OPTS (sizeof env_opts / sizeof env_opts[0])

/* `nsperf counters`' flags. */
static const struct opt counters_opts[] = {
    {"interface", OPT_INTERFACE, required_argument, O_STRING(cnt_interface),
     .help = "IF: the interface whose link, qdisc and NIC counters to read"},
    {"address", OPT_ADDRESS, required_argument, O_STRING(cnt_address),
     .help = "ADDR: the interface that holds ADDR (instead of --interface)"},
    {"help", OPT_HELP, no_argument, .help = "this help"},
};
#define NCOUNTERS_OPTS (sizeof counters_opts / sizeof counters_opts[0])

/* What nsperf exits with; the same words in --help and nsperf(1). */
static const struct {
    const char *status, *meaning;
} exits[] = {
    {"0", "the test (or env) ran; with -s, the server ended as asked"},
    {"1", "the test failed (a refused connection, a peer's error, a timeout)"},
    {"2", "usage error (with -J, also as one JSON document with its error)"},
    {"128+N", "stopped by signal N: 130 after SIGINT, 143 after SIGTERM (with -J the partial "
              "result is printed)"},
};

/* --test: every kind of the table, nsperf's default marked. */
static void
help_test(char *buf, size_t len, size_t used)
{
    for (int k = 0; k < TESTSPEC_KIND_COUNT && used < len; k++) {
        int w = snprintf(buf + used, len - used, "%s%s%s", k ? ", " : "", testspec_kind_name(k),
                         k == TESTSPEC_DEFAULT_KIND ? " (default)" : "");
        used += w > 0 ? (size_t)w : 0;
    }
}

/* -l: the default write size of each stream kind, then the request size of the others (one
 * figure when they share it, as netperf's kinds do). */
static void
help_length(char *buf, size_t len, size_t used)
{
    char v[32];
    const char *sep = "write size (";
    double req = -1;
    bool one_req = true;
    for (int k = 0; k < TESTSPEC_KIND_COUNT && used < len; k++) {
        double d = testspec_default(TESTSPEC_P_MSG_SIZE, k);
        if (testspec_kind_family((enum testspec_kind)k) != TESTSPEC_FAMILY_STREAM) {
            one_req = one_req && (req < 0 || req == d);
            req = d;
            continue;
        }
        int w = snprintf(buf + used, len - used, "%s%s %s", sep,
                         testspec_value_text(TESTSPEC_P_MSG_SIZE, d, v, sizeof v),
                         testspec_kind_name(k));
        used += w > 0 ? (size_t)w : 0;
        sep = ", ";
    }
    if (used < len && req >= 0 && one_req)
        snprintf(buf + used, len - used, ") or request size (%s)",
                 testspec_value_text(TESTSPEC_P_MSG_SIZE, req, v, sizeof v));
    else if (used < len)
        snprintf(buf + used, len - used, ") or request size");
}

/* -b: each kind's default rate (0: unpaced). */
static void
help_rate(char *buf, size_t len, size_t used)
{
    char v[32];
    const char *sep = " (";
    for (int k = 0; k < TESTSPEC_KIND_COUNT && used < len; k++) {
        if (!testspec_applies(TESTSPEC_P_RATE, k))
            continue;
        double d = testspec_default(TESTSPEC_P_RATE, k);
        int w = snprintf(buf + used, len - used, "%s%s default %s", sep, testspec_kind_name(k),
                         d > 0 ? testspec_value_text(TESTSPEC_P_RATE, d, v, sizeof v) : "unpaced");
        used += w > 0 ? (size_t)w : 0;
        sep = "; ";
    }
    if (used < len && used > 0)
        snprintf(buf + used, len - used, ")");
}

/* An option's help line: the parts that name kinds come from the table (common/testspec.h). */
static const char *
opt_help(const struct opt *o, char *buf, size_t len)
{
    size_t used = 0;
    const char *help = o->help;
    if (o->help_kinds) {
        /* "ARG: kinds: the rest" for a flag with a value, "kinds: the rest" without */
        const char *colon = strstr(help, ": ");
        int arg = o->has_arg && colon != NULL ? (int)(colon - help) + 2 : 0;
        char kinds[128];
        unsigned mask = 0;
        for (int k = 0; k < TESTSPEC_KIND_COUNT; k++)
            mask |= testspec_applies(o->param, k) ? 1u << k : 0u;
        int w = snprintf(buf, len, "%.*s%s: ", arg, help,
                         testspec_kinds_text(mask, ", ", kinds, sizeof kinds));
        used = w > 0 && (size_t)w < len ? (size_t)w : 0;
        help += arg;
    }
    int w = snprintf(buf + used, len - used, "%s", help);
    used += w > 0 && (size_t)w < len - used ? (size_t)w : 0;
    if (o->key == OPT_TEST)
        help_test(buf, len, used);
    else if (o->key == 'l')
        help_length(buf, len, used);
    else if (o->key == 'b')
        help_rate(buf, len, used);
    else if (o->key == 'u')
        snprintf(buf + used, len - used, "%s instead", testspec_kind_name(TESTSPEC_UDP_STREAM));
    else if (o->key == OPT_LOAD_DIRECTION)
        testspec_range_text(TESTSPEC_P_LOAD_DIRECTION, -1, buf + used, len - used);
    return buf;
}

#define KIND(id) testspec_kind_name(TESTSPEC_##id)

/* "-c, --client HOST" and the help without its "HOST: " (a capitalised value name), the help
 * written into buf (opt_help: the parts that name kinds from the table). Returns whether the
 * flag takes a value that has a name. */
static bool
opt_split(const struct opt *o, char *flag, size_t flen, char *buf, size_t blen, const char **help)
{
    const char *h = opt_help(o, buf, blen), *colon = strstr(h, ": ");
    bool named = o->has_arg == required_argument && colon != NULL;
    for (const char *p = h; named && p < colon; p++)
        named = (*p >= 'A' && *p <= 'Z') || *p == '_';
    int n = o->key < 256 ? snprintf(flag, flen, "-%c, --%s", o->key, opt_name(o))
                         : snprintf(flag, flen, "    --%s", opt_name(o));
    if (named && n > 0 && (size_t)n < flen)
        snprintf(flag + n, flen - (size_t)n, " %.*s", (int)(colon - h), h);
    *help = named ? colon + 2 : h;
    return named;
}

#define HELP_WIDTH 80
#define HELP_COLUMN 27 /* where a flag's help starts */

/* text from column col on, broken at blanks before HELP_WIDTH, continued at column indent. */
static void
wrap(FILE *out, size_t col, size_t indent, const char *text)
{
    for (const char *p = text; *p != '\0';) {
        size_t n = strcspn(p, " ");
        if (p != text && col + 1 + n > HELP_WIDTH) {
            fprintf(out, "\n%*s", (int)indent, "");
            col = indent;
        } else if (p != text) {
            fputc(' ', out);
            col++;
        }
        fprintf(out, "%.*s", (int)n, p);
        col += n;
        p += n;
        while (*p == ' ')
            p++;
    }
    fputc('\n', out);
}

static void
usage_opts(FILE *out, const struct opt *t, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char flag[64], text[256];
        const char *help;
        opt_split(&t[i], flag, sizeof flag, text, sizeof text, &help);
        /* a long flag keeps its help on its line, two blanks after it */
        size_t len = 2 + strlen(flag), col = len + 2 > HELP_COLUMN ? len + 2 : HELP_COLUMN;
        fprintf(out, "  %-*s", (int)(col - 2), flag);
        wrap(out, col, HELP_COLUMN, help);
    }
}

static void
usage(FILE *out)
{
    fprintf(out, "usage: nsperf -s [-B ADDR] [-p PORT] [-1] [--token-file F] [--idle-timeout SEC]\n"
                 "       nsperf -c HOST [-p PORT] --test KIND [-t SEC] [--warmup SEC] [-P N]\n"
                 "              [-l BYTES] [--response-size BYTES] [-b RATE] [-R] [--copy]\n"
                 "              [--busy-poll] [-J] [-i SEC] [-w BYTES] [-4|-6] [-B ADDR]\n"
                 "              [--token-file F] [--bidir] [--packet-rate PPS]\n"
                 "              [--load N [--load-direction DIR]]\n"
                 "       nsperf env [--address ADDR] [--cloud auto|probe|off] "
                 "[--cloud-budget MS]\n"
                 "       nsperf counters [--interface IF | --address ADDR]\n\n");
    usage_opts(out, opts, NOPTS);
    fprintf(out, "\n");
    wrap(out, 0, 0,
         "nsperf env: this host as one JSON object (kernel, OS, CPU, memory, the interface "
         "holding ADDR, TCP congestion control, clock source, the cloud's word on where it "
         "runs):");
    usage_opts(out, env_opts, NENV_OPTS - 1);
    fprintf(out, "\n");
    wrap(out, 0, 0,
         "nsperf counters: the host's and an interface's counters since boot as one JSON object "
         "(what a test records as deltas: CPU, softnet, UDP errors, the link, its root qdisc, "
         "the NIC's statistics and driver, lower devices):");
    usage_opts(out, counters_opts, NCOUNTERS_OPTS - 1);
    fprintf(out, "\n");
    wrap(out, 0, 0,
         "Sizes take K/M/G (binary: 64K), rates k/M/G (decimal: 1.5G), durations s/ms/m "
         "(250ms). Long options are written in full, and each is given once.");
    fprintf(out, "\nexit status:\n");
    for (size_t i = 0; i < sizeof exits / sizeof exits[0]; i++) {
        fprintf(out, "  %-6s ", exits[i].status);
        wrap(out, 9, 9, exits[i].meaning);
    }
    char differ[5][200];
    snprintf(differ[0], sizeof differ[0],
             "%s writes 1 MiB per send() (iperf3: 128 KiB); -l 128K compares equal.",
             KIND(TCP_STREAM));
    snprintf(differ[1], sizeof differ[1],
             "%s's receiver asks for a %d MiB receive buffer unless -w is given (iperf3 keeps "
             "the kernel default); -w 208K compares equal (params.udp_recv_buf).",
             KIND(UDP_STREAM), NS_UDP_RECV_BUF >> 20);
    snprintf(differ[2], sizeof differ[2],
             "%s does not copy its payload through user memory (sendfile() from a memfd, "
             "splice() to /dev/null; result.io says which); --copy does, as iperf3.",
             KIND(TCP_STREAM));
    snprintf(differ[3], sizeof differ[3],
             "a paced %s writes about 1 ms of data per wake-up, as iperf3's pacing timer does.",
             KIND(TCP_STREAM));
    snprintf(differ[4], sizeof differ[4],
             "--busy-poll (%s, %s) spins on recv(MSG_DONTWAIT) as sockperf --nonblocked: a full "
             "core per side, only where each side has one to itself.",
             KIND(TCP_RR), KIND(UDP_RR));
    fprintf(out, "\ndefaults that differ from iperf3 (shown in the -J params; nsperf(1) says "
                 "why):\n");
    for (size_t i = 0; i < sizeof differ / sizeof differ[0]; i++) {
        fputs("  ", out);
        wrap(out, 2, 4, differ[i]);
    }
    char load[400];
    snprintf(load, sizeof load,
             "under load (--load N, %s and %s): one test measures both RTTs of the pair: the "
             "first quarter of the measured interval idle (result.idle_rtt_us), then N bulk TCP "
             "streams start (N each way for both), ramp for the warmup (at most another "
             "quarter), and the rest is measured under load (rtt_us; result.load).",
             KIND(TCP_RR), KIND(UDP_RR));
    fputc('\n', out);
    wrap(out, 0, 0, load);
    snprintf(load, sizeof load,
             "%s sends with sendmmsg() in batches (one socket and thread per -P stream), as fast "
             "as it goes unless --packet-rate; packets_per_s counts what the receiver took in.",
             KIND(UDP_PPS));
    wrap(out, 0, 0, load);
}

/* `nsperf counters --help`. */
static void
usage_counters(FILE *out)
{
    fprintf(out, "usage: nsperf counters [--interface IF | --address ADDR]\nthe host's and the "
                 "interface's counters since boot as one JSON object on stdout\n\n");
    usage_opts(out, counters_opts, NCOUNTERS_OPTS);
    fprintf(out, "\nexit status: 0 printed, 1 out of memory or not written, 2 usage error (or "
                 "no such interface)\n");
}

/* `nsperf env --help`. */
static void
usage_env(FILE *out)
{
    fprintf(out, "usage: nsperf env [--address ADDR] [--cloud auto|probe|off] [--cloud-budget "
                 "MS]\nthis host as one JSON object on stdout\n\n");
    usage_opts(out, env_opts, NENV_OPTS);
    fprintf(out, "\nNSPERF_CLOUD and NSPERF_CLOUD_BUDGET_MS set --cloud and --cloud-budget for a "
                 "caller that\ncannot pass them; the flags win.\n\nexit status: 0 printed, 1 "
                 "out of memory or not written, 2 usage error\n");
}

/* The roff of an option list (nsperf --man-options). */
static void
man_opts(const struct opt *t, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char flag[64], text[256];
        const char *help;
        bool has_arg = opt_split(&t[i], flag, sizeof flag, text, sizeof text, &help);
        const char *arg = strrchr(flag, ' ');
        char argname[32];
        snprintf(argname, sizeof argname, "%s", has_arg ? arg + 1 : "");
        roff_option(stdout, t[i].key < 256 ? (char)t[i].key : 0, opt_name(&t[i]),
                    has_arg ? argname : NULL, help);
    }
}

/* `nsperf --man-options`: the generated blocks of nsperf(1), from the tables --help prints. */
static int
man_options(void)
{
    roff_block_begin(stdout, "nsperf options");
    man_opts(opts, NOPTS);
    roff_block_end(stdout);
    roff_block_begin(stdout, "nsperf env options");
    man_opts(env_opts, NENV_OPTS);
    roff_block_end(stdout);
    roff_block_begin(stdout, "nsperf counters options");
    man_opts(counters_opts, NCOUNTERS_OPTS);
    roff_block_end(stdout);
    roff_block_begin(stdout, "nsperf exit");
    for (size_t i = 0; i < sizeof exits / sizeof exits[0]; i++) {
        fprintf(stdout, ".TP\n.B %s\n", exits[i].status);
        roff_text(stdout, exits[i].meaning);
    }
    roff_block_end(stdout);
    return fflush(stdout) == 0 ? 0 : EXIT_TEST_FAILED;
}

/* getopt_long's tables of t (the option string starts with ':', so that a missing value is
 * told from an unknown flag). */
static void
build_getopt(const struct opt *t, size_t n, struct option *lo, char *so, size_t solen)
{
    size_t k = 0;
    so[k++] = ':';
    for (size_t i = 0; i < n; i++) {
        lo[i] = (struct option){opt_name(&t[i]), t[i].has_arg, NULL, t[i].key};
        if (t[i].key < 256 && k + 3 < solen) {
            so[k++] = (char)t[i].key;
            if (t[i].has_arg == required_argument)
                so[k++] = ':';
        }
    }
    lo[n] = (struct option){NULL, 0, NULL, 0};
    so[k] = '\0';
}

static const struct opt *
find_opt_in(const struct opt *t, size_t n, int key)
{
    for (size_t i = 0; i < n; i++)
        if (t[i].key == key)
            return &t[i];
    return NULL;
}

/* What flag o does with its value arg (NULL for a flag without one). */
static int
opt_apply(struct cli *c, const struct opt *o, const char *arg, struct err *e)
{
    switch (o->kind) {
    case OPT_TRUE:
        *(bool *)(void *)((char *)c + o->offset) = true;
        return 0;
    case OPT_STRING:
        *(const char **)(void *)((char *)c + o->offset) = arg;
        return 0;
    case OPT_PARAM:
        c->raw[o->param] = arg != NULL ? arg : "true";
        return 0;
    case OPT_CALL:
        break;
    }
    return o->fn(c, arg, e);
}

static void
opt_flag_text(const struct opt *o, char *buf, size_t len)
{
    if (o->key < 256)
        snprintf(buf, len, "-%c", o->key);
    else
        snprintf(buf, len, "--%s", opt_name(o));
}

/* A flag for the other side is a mistake, not something to ignore. */
static int
check_roles(const struct cli *c, struct err *e)
{
    char flag[40];
    if (c->server && c->client_only != NULL) {
        opt_flag_text(c->client_only, flag, sizeof flag);
        return err_set(e, NS_EINVAL, "%s is a client option (not with -s)", flag);
    }
    if (c->client && c->server_only != NULL) {
        opt_flag_text(c->server_only, flag, sizeof flag);
        return err_set(e, NS_EINVAL, "%s is a server option (not with -c)", flag);
    }
    return 0;
}

/* The long flag of t closest to word (without "--", cut at '='): the one it abbreviates when
 * there is one, else the closest by spelling; NULL when none is close. */
static const char *
flag_suggest(const struct opt *t, size_t n, const char *word)
{
    const char *names[NOPTS], *prefix_of = NULL;
    size_t wl = strcspn(word, "="), prefixed = 0, k = 0;
    char w[64];
    snprintf(w, sizeof w, "%.*s", (int)wl, word);
    for (size_t i = 0; i < n && k < NOPTS; i++) {
        names[k++] = opt_name(&t[i]);
        if (wl > 0 && strncmp(opt_name(&t[i]), w, wl) == 0) {
            prefix_of = opt_name(&t[i]);
            prefixed++;
        }
    }
    return prefixed == 1 ? prefix_of : suggest_closest(w, names, k);
}

/* The argv element getopt_long took its last flag from. */
static const char *
flag_element(char **argv)
{
    return optarg != NULL && optarg == argv[optind - 1] ? argv[optind - 2] : argv[optind - 1];
}

/* Why getopt_long returned ':' or '?', in words. */
static int
flag_error(const struct opt *t, size_t n, int key, char **argv, struct err *e)
{
    const struct opt *o = find_opt_in(t, n, optopt);
    const char *text = argv[optind - 1];
    char flag[64];
    if (key == ':' && o != NULL) {
        const char *help;
        char usage_text[64], help_text[256];
        opt_flag_text(o, flag, sizeof flag);
        bool named =
            opt_split(o, usage_text, sizeof usage_text, help_text, sizeof help_text, &help);
        const char *arg = named ? strrchr(usage_text, ' ') : NULL;
        return err_set(e, NS_EINVAL, "%s needs a value%s%s%s%s", flag, arg ? " (" : "",
                       arg ? flag : "", arg ? arg : "", arg ? ")" : "");
    }
    if (o != NULL && strncmp(text, "--", 2) == 0)
        return err_set(e, NS_EINVAL, "--%s takes no value ('%s')", opt_name(o), text);
    if (strncmp(text, "--", 2) != 0)
        return err_set(e, NS_EINVAL, "unknown option '-%c'", optopt);
    const char *near = flag_suggest(t, n, text + 2);
    if (near != NULL)
        return err_set(e, NS_EINVAL, "unknown option '%s'; did you mean '--%s'?", text, near);
    return err_set(e, NS_EINVAL, "unknown option '%s'", text);
}

/* Long flags are written in full (getopt_long takes any unambiguous abbreviation, which a later
 * flag could make ambiguous), and each flag is given once (not the last one winning). */
static int
flag_check(const struct opt *o, const char *element, const struct opt **seen, size_t *nseen,
           struct err *e)
{
    size_t n = strcspn(element + 2, "=");
    if (strncmp(element, "--", 2) == 0 &&
        (strlen(opt_name(o)) != n || strncmp(element + 2, opt_name(o), n) != 0))
        return err_set(e, NS_EINVAL, "abbreviated option '%.*s'; write it in full: '--%s'",
                       (int)n + 2, element, opt_name(o));
    for (size_t i = 0; i < *nseen; i++)
        if (seen[i] == o) {
            char flag[64];
            opt_flag_text(o, flag, sizeof flag);
            return err_set(e, NS_EINVAL, "%s is given twice", flag);
        }
    seen[(*nseen)++] = o;
    return 0;
}

/* Parse argv by table t into c. 0 = go on, 1 = help or version printed, <0 = usage error. */
static int
parse_table(struct cli *c, const struct opt *t, size_t n, void (*help)(FILE *), int argc,
            char **argv, struct err *e)
{
    struct option lo[NOPTS + 1];
    char so[2 * NOPTS + 3];
    const struct opt *seen[NOPTS];
    size_t nseen = 0;
    build_getopt(t, n, lo, so, sizeof so);
    opterr = 0; /* the messages are ours */
    optind = 1;
    int key;
    while ((key = getopt_long(argc, argv, so, lo, NULL)) != -1) {
        /* a flag not understood, or given wrong: the help says what there is */
        c->try_help = true;
        if (key == ':' || key == '?')
            return flag_error(t, n, key, argv, e);
        const struct opt *o = find_opt_in(t, n, key);
        int rc = flag_check(o, flag_element(argv), seen, &nseen, e);
        if (rc != 0)
            return rc;
        c->try_help = false;
        if (key == OPT_HELP || key == OPT_VERSION) {
            if (key == OPT_HELP)
                help(stdout);
            else
                printf("nsperf %s\n", NS_VERSION);
            return 1;
        }
        if ((rc = opt_apply(c, o, optarg, e)) != 0)
            return rc;
        if (o->side == OPT_CLIENT && c->client_only == NULL)
            c->client_only = o;
        if (o->side == OPT_SERVER && c->server_only == NULL)
            c->server_only = o;
    }
    if (optind < argc) {
        c->try_help = true;
        return err_set(e, NS_EINVAL, "unexpected argument '%s'", argv[optind]);
    }
    return 0;
}

/* 0 = go on, 1 = done (help/version printed), <0 = usage error. */
static int
parse_flags(struct cli *c, int argc, char **argv, struct err *e)
{
    int rc = parse_table(c, opts, NOPTS, usage, argc, argv, e);
    if (rc != 0)
        return rc;
    if (c->server == c->client)
        return err_set(e, NS_EINVAL, "give exactly one of -s and -c HOST");
    if (c->client && c->port == 0)
        return err_set(e, NS_ERANGE, "invalid port '0'");
    return check_roles(c, e);
}

/* `nsperf env`: argv[0] is "env". */
static int
env_main(int argc, char **argv)
{
    struct cli c;
    memset(&c, 0, sizeof c);
    struct err e;
    err_clear(&e);
    int rc = parse_table(&c, env_opts, NENV_OPTS, usage_env, argc, argv, &e);
    if (rc == 1)
        return 0;
    if (rc != 0) {
        fprintf(stderr, "nsperf env: %s\n%s", e.msg, c.try_help ? "try 'nsperf env --help'\n" : "");
        return EXIT_USAGE;
    }
    return hostenv_main(c.env_address, c.env_cloud, c.env_budget);
}

static int
counters_main(int argc, char **argv)
{
    struct cli c;
    memset(&c, 0, sizeof c);
    struct err e;
    err_clear(&e);
    int rc = parse_table(&c, counters_opts, NCOUNTERS_OPTS, usage_counters, argc, argv, &e);
    if (rc == 1)
        return 0;
    if (rc == 0 && c.cnt_interface != NULL && c.cnt_address != NULL)
        rc = err_set(&e, NS_EINVAL, "--interface and --address name the same thing: give one");
    if (rc != 0) {
        fprintf(stderr, "nsperf counters: %s\ntry 'nsperf counters --help'\n", e.msg);
        return EXIT_USAGE;
    }
    return hostcount_main(c.cnt_interface, c.cnt_address);
}

/* One parameter as written: for this kind at all, then its type, then its range. */
static int
apply_param(struct cli *c, enum testspec_param id, struct err *e)
{
    const char *raw = c->raw[id], *flag = testspec_flag(id);
    int kind = (int)c->p.kind;
    if (raw == NULL)
        return 0;
    if (!testspec_applies(id, kind))
        return err_set(e, NS_EINVAL, "%s does not apply to %s tests", flag,
                       testspec_kind_name(kind));
    double v;
    if (testspec_parse(id, raw, &v, e) != 0)
        return err_prefix(e, "%s", flag);
    if (!testspec_in_range(id, kind, v)) {
        char who[64];
        snprintf(who, sizeof who, "%s: %s", flag, testspec_words(id));
        return testspec_range_error(e, id, kind, who, raw);
    }
    ns_params_set(&c->p, id, v);
    if (id == TESTSPEC_P_MSG_SIZE)
        c->p.response_size = c->p.msg_size; /* --response-size, later in the table, overrides */
    return 0;
}

/* Kind defaults first, then what the user gave. */
static int
client_params(struct cli *c, struct err *e)
{
    enum testspec_kind id = TESTSPEC_DEFAULT_KIND;
    if (c->test != NULL)
        ns_kind_find(c->test, &id);
    int family = c->p.family;
    ns_params_default(&c->p, id);
    c->p.family = family;
    for (int i = 0; i < TESTSPEC_PARAM_COUNT; i++) {
        int rc = apply_param(c, (enum testspec_param)i, e);
        if (rc != 0)
            return rc;
    }
    return ns_params_validate(&c->p, e);
}

static int
load_token(const struct cli *c, struct ns_token *tok, struct err *e)
{
    tok->len = 0;
    if (c->token_file == NULL)
        return 0;
    return ns_token_read(c->token_file, tok, e);
}

/* The signal that interrupts a client run (0 = none). */
static volatile sig_atomic_t client_signal;

static void
on_client_signal(int sig)
{
    client_signal = sig;
}

/* SIGINT/SIGTERM end the run early with what was measured (one JSON document with -J); not
 * SA_RESTART, so that a blocked poll() returns; a second signal kills (SA_RESETHAND). */
static void
catch_client_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_client_signal;
    sa.sa_flags = (int)SA_RESETHAND;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

static int
run_client(struct cli *c, const struct ns_token *tok)
{
    struct err e;
    err_clear(&e);
    catch_client_signals();
    struct ns_client_opts o = {
        .host = c->host,
        .port = c->port,
        .p = c->p,
        .json = c->json,
        .token = tok,
        .connect_timeout_ms = 5000,
        .interrupted = &client_signal,
        .bind = c->bind,
    };
    int rc = ns_client_run(&o, stdout, &e);
    if (rc != 0 && !c->json)
        fprintf(stderr, "nsperf: %s\n", e.msg);
    if (rc == NS_EINTR && client_signal != 0)
        return 128 + client_signal;
    return rc == 0 ? 0 : EXIT_TEST_FAILED;
}

static int
run_server(struct cli *c, const struct ns_token *tok)
{
    struct err e;
    err_clear(&e);
    struct ns_server_opts o = {
        .bind = c->bind,
        .port = c->port,
        .family = c->p.family,
        .one_shot = c->one_shot,
        .idle_timeout_s =
            c->idle_set ? c->idle_timeout_s : (c->one_shot ? DEFAULT_ONE_SHOT_IDLE_S : 0.0),
        .token = tok,
        .ready = stdout,
    };
    int rc = ns_server_run(&o, &e);
    if (rc != 0)
        fprintf(stderr, "nsperf: %s\n", e.msg);
    return rc == 0 ? 0 : EXIT_TEST_FAILED;
}

/* -J anywhere on the command line, seen before parsing so that a usage error is reported as a
 * JSON document too (the orchestrator parses every outcome). */
static bool
json_wanted(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0)
            break;
        if (strcmp(argv[i], "-J") == 0 || strcmp(argv[i], "--json") == 0)
            return true;
    }
    return false;
}

int
main(int argc, char **argv)
{
    signal(SIGPIPE, SIG_IGN);
    if (argc > 1 && strcmp(argv[1], "env") == 0)
        return env_main(argc - 1, argv + 1);
    if (argc > 1 && strcmp(argv[1], "counters") == 0)
        return counters_main(argc - 1, argv + 1);
    if (argc == 2 && strcmp(argv[1], "--man-options") == 0)
        return man_options(); /* not in --help: what nsperf(1) is made from */
    struct cli c;
    memset(&c, 0, sizeof c);
    c.port = NS_DEFAULT_PORT;
    c.p.family = AF_UNSPEC;
    struct err e;
    err_clear(&e);
    int rc = parse_flags(&c, argc, argv, &e);
    if (rc == 1)
        return 0;
    bool params_built = rc == 0 && c.client;
    if (rc == 0 && c.client)
        rc = client_params(&c, &e);
    static struct ns_token tok;
    if (rc == 0)
        rc = load_token(&c, &tok, &e);
    if (rc != 0) {
        fprintf(stderr, "nsperf: %s\n", e.msg);
        if (c.try_help)
            fprintf(stderr, "try 'nsperf --help'\n");
        if (json_wanted(argc, argv) && !c.server)
            ns_doc_print_error_json(params_built ? &c.p : NULL, c.host, e.msg, stdout);
        return EXIT_USAGE;
    }
    return c.server ? run_server(&c, &tok) : run_client(&c, &tok);
}
