/* main.c - nsperf's command line: parse flags into options, run the client or the server, map
 * the outcome to an exit status (0 ok, 1 test failed, 2 usage). Flags are a table, one small
 * handler each (not one 900-line parser). */
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "common/errors.h"
#include "common/units.h"
#include "nsperf/control.h"
#include "nsperf/hostenv.h"

#define EXIT_TEST_FAILED 1
#define EXIT_USAGE 2
#define DEFAULT_ONE_SHOT_IDLE_S 600.0

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
    /* raw values applied after the kind's defaults are known */
    const char *duration, *warmup, *interval, *len, *response, *rate, *window;
    int streams;
};

typedef int (*opt_fn)(struct cli *c, const char *arg, struct err *e);

struct opt {
    const char *name;
    int key; /* short option letter, or >= 256 for long-only */
    int has_arg;
    opt_fn fn;
    const char *help;
};

static int
opt_server(struct cli *c, const char *arg, struct err *e)
{
    (void)arg;
    (void)e;
    c->server = true;
    return 0;
}

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
    char *end;
    long v = strtol(arg, &end, 10);
    if (*arg == '\0' || *end != '\0' || v < 0 || v > 65535)
        return err_set(e, NS_ERANGE, "invalid port '%s'", arg);
    c->port = (uint16_t)v;
    return 0;
}

static int
opt_bind(struct cli *c, const char *arg, struct err *e)
{
    (void)e;
    c->bind = arg;
    return 0;
}

static int
opt_one(struct cli *c, const char *arg, struct err *e)
{
    (void)arg;
    (void)e;
    c->one_shot = true;
    return 0;
}

static int
opt_idle(struct cli *c, const char *arg, struct err *e)
{
    c->idle_set = true;
    return units_parse_duration(arg, &c->idle_timeout_s, e);
}

static int
opt_token(struct cli *c, const char *arg, struct err *e)
{
    (void)e;
    c->token_file = arg;
    return 0;
}

static int
opt_test(struct cli *c, const char *arg, struct err *e)
{
    if (ns_kind_find(arg, NULL) == NULL)
        return err_set(e, NS_EINVAL,
                       "unknown test '%s' (tcp_stream, udp_stream, tcp_rr, "
                       "udp_rr, tcp_crr)",
                       arg);
    c->test = arg;
    return 0;
}

#define STORE_RAW(fname, field)                                                                    \
    static int fname(struct cli *c, const char *arg, struct err *e)                                \
    {                                                                                              \
        (void)e;                                                                                   \
        c->field = arg;                                                                            \
        return 0;                                                                                  \
    }
STORE_RAW(opt_time, duration)
STORE_RAW(opt_warmup, warmup)
STORE_RAW(opt_interval, interval)
STORE_RAW(opt_len, len)
STORE_RAW(opt_response, response)
STORE_RAW(opt_rate, rate)
STORE_RAW(opt_window, window)

static int
opt_parallel(struct cli *c, const char *arg, struct err *e)
{
    char *end;
    long v = strtol(arg, &end, 10);
    if (*arg == '\0' || *end != '\0' || v < 1 || v > NS_MAX_STREAMS)
        return err_set(e, NS_ERANGE, "invalid stream count '%s' (1..%d)", arg, NS_MAX_STREAMS);
    c->streams = (int)v;
    return 0;
}

static int
opt_reverse(struct cli *c, const char *arg, struct err *e)
{
    (void)arg;
    (void)e;
    c->p.reverse = true;
    return 0;
}

static int
opt_json(struct cli *c, const char *arg, struct err *e)
{
    (void)arg;
    (void)e;
    c->json = true;
    return 0;
}

static int
opt_inet(struct cli *c, const char *arg, struct err *e)
{
    (void)arg;
    (void)e;
    c->p.family = AF_INET;
    return 0;
}

static int
opt_inet6(struct cli *c, const char *arg, struct err *e)
{
    (void)arg;
    (void)e;
    c->p.family = AF_INET6;
    return 0;
}

enum {
    OPT_TEST = 256,
    OPT_WARMUP,
    OPT_RESPONSE,
    OPT_TOKEN,
    OPT_IDLE,
    OPT_HELP = 'h',
    OPT_VERSION = 'V'
};

static const struct opt opts[] = {
    {"server", 's', no_argument, opt_server, "run as server"},
    {"client", 'c', required_argument, opt_client, "HOST: run as client, connect to HOST"},
    {"port", 'p', required_argument, opt_port,
     "PORT: server port (default 5301; server: 0 = any free port)"},
    {"bind", 'B', required_argument, opt_bind,
     "ADDR: server: listen on ADDR only; client: leave from ADDR"},
    {"one-off", '1', no_argument, opt_one, "server: serve one test, then exit"},
    {"idle-timeout", OPT_IDLE, required_argument, opt_idle,
     "SEC: server: exit after SEC without a test (default 600 with -1, never without; 0 = never)"},
    {"token-file", OPT_TOKEN, required_argument, opt_token,
     "FILE: shared secret from FILE ('-' = stdin); both sides must use the same"},
    {"test", OPT_TEST, required_argument, opt_test,
     "KIND: tcp_stream (default), udp_stream, tcp_rr, udp_rr, tcp_crr"},
    {"time", 't', required_argument, opt_time, "SEC: measured duration (default 10s)"},
    {"warmup", OPT_WARMUP, required_argument, opt_warmup,
     "SEC: traffic before measuring, discarded (default 1s)"},
    {"parallel", 'P', required_argument, opt_parallel, "N: parallel streams (stream kinds)"},
    {"length", 'l', required_argument, opt_len,
     "BYTES: write size (1M tcp_stream, 1460 udp_stream) or request size (1)"},
    {"response-size", OPT_RESPONSE, required_argument, opt_response,
     "BYTES: response size of rr/crr kinds (default: request size)"},
    {"bitrate", 'b', required_argument, opt_rate,
     "RATE: total target rate, bits/s (udp_stream default 1M; tcp default unpaced)"},
    {"reverse", 'R', no_argument, opt_reverse, "server sends (stream kinds)"},
    {"json", 'J', no_argument, opt_json, "print one JSON document"},
    {"interval", 'i', required_argument, opt_interval, "SEC: per-interval samples in the JSON"},
    {"window", 'w', required_argument, opt_window, "BYTES: socket buffer size"},
    {"ipv4", '4', no_argument, opt_inet, "IPv4 only"},
    {"ipv6", '6', no_argument, opt_inet6, "IPv6 only"},
    {"help", OPT_HELP, no_argument, NULL, "this help"},
    {"version", OPT_VERSION, no_argument, NULL, "print the version"},
};
#define NOPTS (sizeof opts / sizeof opts[0])

static void
usage(FILE *out)
{
    fprintf(out, "usage: nsperf -s [-B ADDR] [-p PORT] [-1] [--token-file F] [--idle-timeout SEC]\n"
                 "       nsperf -c HOST [-p PORT] --test KIND [-t SEC] [--warmup SEC] [-P N]\n"
                 "              [-l BYTES] [--response-size BYTES] [-b RATE] [-R] [-J] [-i SEC]\n"
                 "              [-w BYTES] [-4|-6] [-B ADDR] [--token-file F]\n"
                 "       nsperf env [--address ADDR]   (this host as JSON)\n\n");
    for (size_t i = 0; i < NOPTS; i++) {
        char flag[40];
        if (opts[i].key < 256)
            snprintf(flag, sizeof flag, "-%c, --%s", opts[i].key, opts[i].name);
        else
            snprintf(flag, sizeof flag, "    --%s", opts[i].name);
        fprintf(out, "  %-22s %s\n", flag, opts[i].help);
    }
    fprintf(out, "\nsizes take K/M/G (binary: 64K), rates k/M/G (decimal: 1.5G), durations "
                 "s/ms/m (250ms).\nexit status: 0 ok, 1 test failed, 2 usage error.\n");
}

static void
build_getopt(struct option *lo, char *so, size_t solen)
{
    size_t n = 0;
    for (size_t i = 0; i < NOPTS; i++) {
        lo[i] = (struct option){opts[i].name, opts[i].has_arg, NULL, opts[i].key};
        if (opts[i].key < 256 && n + 3 < solen) {
            so[n++] = (char)opts[i].key;
            if (opts[i].has_arg == required_argument)
                so[n++] = ':';
        }
    }
    lo[NOPTS] = (struct option){NULL, 0, NULL, 0};
    so[n] = '\0';
}

static const struct opt *
find_opt(int key)
{
    for (size_t i = 0; i < NOPTS; i++)
        if (opts[i].key == key)
            return &opts[i];
    return NULL;
}

/* 0 = go on, 1 = done (help/version printed), <0 = usage error. */
static int
parse_flags(struct cli *c, int argc, char **argv, struct err *e)
{
    struct option lo[NOPTS + 1];
    char so[2 * NOPTS + 2];
    build_getopt(lo, so, sizeof so);
    int key;
    while ((key = getopt_long(argc, argv, so, lo, NULL)) != -1) {
        if (key == OPT_HELP) {
            usage(stdout);
            return 1;
        }
        if (key == OPT_VERSION) {
            printf("nsperf %s\n", NS_VERSION);
            return 1;
        }
        const struct opt *o = find_opt(key);
        if (o == NULL)
            return err_set(e, NS_EINVAL, "see 'nsperf --help'");
        int rc = o->fn(c, optarg, e);
        if (rc != 0)
            return rc;
    }
    if (optind < argc)
        return err_set(e, NS_EINVAL, "unexpected argument '%s'", argv[optind]);
    if (c->server == c->client)
        return err_set(e, NS_EINVAL, "give exactly one of -s and -c HOST");
    if (c->client && c->port == 0)
        return err_set(e, NS_ERANGE, "invalid port '0'");
    return 0;
}

static int
apply_size(const char *raw, uint64_t *out, const char *what, struct err *e)
{
    if (raw == NULL)
        return 0;
    int rc = units_parse_size(raw, out, e);
    return rc != 0 ? err_prefix(e, "%s", what) : 0;
}

static int
apply_duration(const char *raw, double *out, const char *what, struct err *e)
{
    if (raw == NULL)
        return 0;
    int rc = units_parse_duration(raw, out, e);
    return rc != 0 ? err_prefix(e, "%s", what) : 0;
}

/* Kind defaults first, then what the user gave. */
static int
client_params(struct cli *c, struct err *e)
{
    enum ns_kind_id id = NS_TCP_STREAM;
    if (c->test != NULL)
        ns_kind_find(c->test, &id);
    struct ns_params given = c->p;
    ns_params_default(&c->p, id);
    c->p.reverse = given.reverse;
    c->p.family = given.family;
    if (c->streams > 0)
        c->p.streams = c->streams;
    uint64_t window = 0;
    int rc = apply_size(c->len, &c->p.msg_size, "-l", e);
    c->p.response_size = c->p.msg_size;
    if (rc == 0)
        rc = apply_size(c->response, &c->p.response_size, "--response-size", e);
    if (rc == 0)
        rc = apply_size(c->window, &window, "-w", e);
    if (rc == 0 && c->rate != NULL && units_parse_rate(c->rate, &c->p.rate_bps, e) != 0)
        rc = err_prefix(e, "-b");
    if (rc == 0)
        rc = apply_duration(c->duration, &c->p.duration_s, "-t", e);
    if (rc == 0)
        rc = apply_duration(c->warmup, &c->p.warmup_s, "--warmup", e);
    if (rc == 0)
        rc = apply_duration(c->interval, &c->p.interval_s, "-i", e);
    if (rc == 0 && window > (uint64_t)INT32_MAX)
        rc = err_set(e, NS_ERANGE, "-w: %llu bytes is too large", (unsigned long long)window);
    c->p.sock_buf = (int)window;
    return rc != 0 ? rc : ns_params_validate(&c->p, e);
}

static int
load_token(const struct cli *c, struct ns_token *tok, struct err *e)
{
    tok->len = 0;
    if (c->token_file == NULL)
        return 0;
    return ns_token_read(c->token_file, tok, e);
}

static int
run_client(struct cli *c, const struct ns_token *tok)
{
    struct err e;
    err_clear(&e);
    struct ns_client_opts o = {
        .host = c->host,
        .port = c->port,
        .p = c->p,
        .json = c->json,
        .token = tok,
        .connect_timeout_ms = 5000,
        .bind = c->bind,
    };
    int rc = ns_client_run(&o, stdout, &e);
    if (rc != 0 && !c->json)
        fprintf(stderr, "nsperf: %s\n", e.msg);
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

int
main(int argc, char **argv)
{
    signal(SIGPIPE, SIG_IGN);
    if (argc > 1 && strcmp(argv[1], "env") == 0)
        return hostenv_main(argc - 1, argv + 1);
    struct cli c;
    memset(&c, 0, sizeof c);
    c.port = NS_DEFAULT_PORT;
    c.p.family = AF_UNSPEC;
    struct err e;
    err_clear(&e);
    int rc = parse_flags(&c, argc, argv, &e);
    if (rc == 1)
        return 0;
    if (rc == 0 && c.client)
        rc = client_params(&c, &e);
    static struct ns_token tok;
    if (rc == 0)
        rc = load_token(&c, &tok, &e);
    if (rc != 0) {
        fprintf(stderr, "nsperf: %s\n", e.msg);
        return EXIT_USAGE;
    }
    return c.server ? run_server(&c, &tok) : run_client(&c, &tok);
}
