/* The kinds of issue 30 end to end on loopback: a real `nsperf -s` and `nsperf -c ... -J`, 1-2 s
 * each. What is asserted holds whatever the machine's load: how the figures are made from the
 * counts (packets_per_s is the received datagrams over the measured interval, the loss is sent
 * minus received, --bidir's total is the sum of what each direction's receiver counted, a
 * paced sender's sent + unsent is its schedule), which direction each stream went, and that a
 * test under load measured both windows. How fast, and how much the load raises the RTT, are
 * the bench's and the lab's questions (tests/bench/bench_newkinds.sh, tests/lab/). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>

#include "ns_slack.h"
#include "nsperf_spawn.h"

struct fixture {
    unsigned port;
    char port_s[16];
    pid_t server;
};

static int
group_setup(void **state)
{
    static struct fixture f;
    f.port = sp_free_port();
    snprintf(f.port_s, sizeof f.port_s, "%u", f.port);
    f.server = sp_server(f.port, NULL, "/dev/null");
    *state = &f;
    return f.server > 0 ? 0 : -1;
}

static int
group_teardown(void **state)
{
    struct fixture *f = *state;
    sp_kill(f->server);
    return 0;
}

/* Run a client with the fixture's port plus args; assert success and return the result. */
static const json_t *
run_ok(struct fixture *f, struct sp_result *r, const char *const *args)
{
    const char *argv[40] = {"-c", "127.0.0.1", "-p", f->port_s, "-J"};
    int n = 5;
    for (int i = 0; args[i] != NULL; i++)
        argv[n++] = args[i];
    argv[n] = NULL;
    struct sp_proc p = sp_client_start(argv, NULL);
    sp_client_finish(&p, r, 60.0);
    if (r->doc == NULL || r->status != 0)
        fprintf(stderr, "client status %d, output:\n%s\n", r->status, r->out);
    assert_int_equal(r->status, 0);
    assert_non_null(r->doc);
    assert_true(json_is_null(json_object_get(r->doc, "error")));
    const json_t *res = json_object_get(r->doc, "result");
    assert_true(json_is_object(res));
    return res;
}

static uint64_t
u64(const json_t *o, const char *k)
{
    return (uint64_t)json_integer_value(json_object_get(o, k));
}

static double
num(const json_t *o, const char *k)
{
    const json_t *v = json_object_get(o, k);
    if (!json_is_number(v))
        fail_msg("'%s' is not a number", k);
    return json_number_value(v);
}

/* a == b within rounding of the printed reals (the -J document keeps 10 digits) */
static void
assert_close(double a, double b)
{
    if (fabs(a - b) > 1e-6 * fmax(fabs(a), fabs(b)) + 1e-9)
        fail_msg("%.12g != %.12g", a, b);
}

/* --- udp_pps -------------------------------------------------------------------------------- */

/* The udp object's counts and the rates made of them over the sender's measured interval. */
static void
check_pps_counts(const json_t *res)
{
    const json_t *u = json_object_get(res, "udp");
    uint64_t sent = u64(u, "sent"), rcvd = u64(u, "received"), lost = u64(u, "lost");
    double s = num(res, "duration_s");
    assert_true(s > 0);
    assert_true(rcvd > 0);
    assert_true(rcvd <= sent + u64(u, "duplicated"));
    assert_int_equal(lost, sent - (rcvd < sent ? rcvd : sent));
    assert_close(num(res, "packets_per_s"), (double)rcvd / s);
    assert_close(num(res, "sent_packets_per_s"), (double)sent / s);
    assert_close(num(res, "lost_packets_per_s"), (double)lost / s);
    assert_int_equal(u64(res, "packets"), rcvd);
    assert_int_equal(u64(res, "bytes"), 64 * rcvd); /* every measured datagram is -l bytes */
    /* the streams add up to the total */
    const json_t *streams = json_object_get(res, "streams");
    uint64_t ssent = 0, srcvd = 0;
    for (size_t i = 0; i < json_array_size(streams); i++) {
        const json_t *su = json_object_get(json_array_get(streams, i), "udp");
        ssent += u64(su, "sent");
        srcvd += u64(su, "received");
    }
    assert_int_equal(ssent, sent);
    assert_int_equal(srcvd, rcvd);
}

/* As fast as it goes, two streams: the counts and the CPU per packet on both ends. */
static void
test_pps_unpaced(void **state)
{
    struct sp_result r;
    const char *args[] = {"--test", "udp_pps", "-P", "2", "-t", "1", "--warmup", "0.3", NULL};
    const json_t *res = run_ok(*state, &r, args);
    check_pps_counts(res);
    assert_int_equal(json_array_size(json_object_get(res, "streams")), 2);
    assert_null(json_object_get(res, "intended_packets_per_s")); /* unpaced: no schedule */
    assert_null(json_object_get(json_object_get(res, "udp"), "jitter_us"));
    const json_t *cpu = json_object_get(res, "cpu");
    assert_true(num(cpu, "ns_per_packet") > 0);
    assert_true(num(cpu, "remote_ns_per_packet") > 0);
    const json_t *params = json_object_get(r.doc, "params");
    assert_int_equal(u64(params, "msg_size"), 64);
    assert_int_equal(u64(params, "packet_rate"), 0);
    json_decref(r.doc);
}

/* A receive buffer of a few datagrams against batches of 64: the receiver's socket drops, so
 * sent and received differ and the rates are each their own count's (a batch arriving while the
 * receiver thread is not running overflows it; not asserted, so that a run where it kept up
 * does not fail, but said). */
static void
test_pps_lossy(void **state)
{
    struct sp_result r;
    const char *args[] = {"--test", "udp_pps", "-w", "4K", "-t", "1", "--warmup", "0.3", NULL};
    const json_t *res = run_ok(*state, &r, args);
    check_pps_counts(res);
    if (u64(json_object_get(res, "udp"), "lost") == 0)
        print_message("no datagram lost with a 4 KiB receive buffer this time\n");
    json_decref(r.doc);
}

/* Paced, reversed: the server sends; what it sent and what its schedule called for and it did not
 * send (unsent) are its schedule over its measured interval, whatever the CPU it got. */
static void
test_pps_paced_reverse(void **state)
{
    struct sp_result r;
    const char *args[] = {"--test", "udp_pps", "--packet-rate", "20k", "-R",
                          "-t",     "1",       "--warmup",      "0.3", NULL};
    const json_t *res = run_ok(*state, &r, args);
    check_pps_counts(res);
    assert_string_equal(json_string_value(json_object_get(res, "receiver")), "client");
    const json_t *u = json_object_get(res, "udp");
    double s = num(res, "duration_s");
    double scheduled = (double)(u64(u, "sent") + u64(u, "unsent"));
    /* one deadline every 50 us over s seconds: at most one more or less at each end */
    if (fabs(scheduled - 20000.0 * s) > 2.0)
        fail_msg("sent %llu + unsent %llu over %.6f s at 20000/s",
                 (unsigned long long)u64(u, "sent"), (unsigned long long)u64(u, "unsent"), s);
    assert_close(num(res, "intended_packets_per_s"), scheduled / s);
    json_decref(r.doc);
}

/* --- --bidir -------------------------------------------------------------------------------- */

/* One direction of a --bidir result: its streams add up, its receiver is the side it names. */
static void
check_direction(const json_t *d, const char *receiver, size_t nstreams, bool udp)
{
    assert_non_null(d);
    assert_string_equal(json_string_value(json_object_get(d, "receiver")), receiver);
    const json_t *streams = json_object_get(d, "streams");
    assert_int_equal(json_array_size(streams), nstreams);
    uint64_t bytes = 0;
    for (size_t i = 0; i < nstreams; i++) {
        const json_t *st = json_array_get(streams, i);
        assert_true(u64(st, "bytes") > 0); /* every stream of each direction moved data */
        bytes += u64(st, "bytes");
    }
    assert_int_equal(bytes, u64(d, "bytes"));
    assert_close(num(d, "throughput_bps"), (double)bytes * 8.0 / num(d, "duration_s"));
    const json_t *cpu = json_object_get(d, "thread_cpu_pct");
    assert_true(num(cpu, "sender") >= 0 && num(cpu, "receiver") >= 0);
    if (!udp)
        assert_true(json_is_integer(json_object_get(d, "retransmits")));
}

static void
check_bidir(const json_t *res, size_t nstreams, bool udp)
{
    const json_t *fwd = json_object_get(res, "forward"), *rev = json_object_get(res, "reverse");
    check_direction(fwd, "server", nstreams, udp);
    check_direction(rev, "client", nstreams, udp);
    /* the matrix's figure: the sum of what each receiver counted, exactly */
    assert_int_equal(u64(res, "bytes"), u64(fwd, "bytes") + u64(rev, "bytes"));
    assert_int_equal(u64(res, "sender_bytes"), u64(fwd, "sender_bytes") + u64(rev, "sender_bytes"));
    assert_close(num(res, "throughput_bps"),
                 num(fwd, "throughput_bps") + num(rev, "throughput_bps"));
    if (!udp)
        assert_int_equal(u64(res, "retransmits"),
                         u64(fwd, "retransmits") + u64(rev, "retransmits"));
}

static void
test_tcp_bidir(void **state)
{
    struct sp_result r;
    const char *args[] = {"--test", "tcp_stream", "--bidir",  "-P",  "2",
                          "-t",     "1",          "--warmup", "0.3", NULL};
    const json_t *res = run_ok(*state, &r, args);
    check_bidir(res, 2, false);
    assert_true(json_is_true(json_object_get(json_object_get(r.doc, "params"), "bidir")));
    json_decref(r.doc);
}

/* udp_stream both ways, each way at -b: each direction's datagrams are its own. */
static void
test_udp_bidir(void **state)
{
    struct sp_result r;
    const char *args[] = {"--test", "udp_stream", "--bidir",  "-b",  "20M",
                          "-t",     "1",          "--warmup", "0.3", NULL};
    const json_t *res = run_ok(*state, &r, args);
    check_bidir(res, 1, true);
    const json_t *u = json_object_get(res, "udp");
    const json_t *fu = json_object_get(json_object_get(res, "forward"), "udp");
    const json_t *ru = json_object_get(json_object_get(res, "reverse"), "udp");
    assert_int_equal(u64(u, "sent"), u64(fu, "sent") + u64(ru, "sent"));
    assert_int_equal(u64(u, "received"), u64(fu, "received") + u64(ru, "received"));
    assert_int_equal(u64(u, "lost"), u64(fu, "lost") + u64(ru, "lost"));
    json_decref(r.doc);
}

/* --- under load ----------------------------------------------------------------------------- */

/* A test under load: the idle window (the first quarter), the load's figures, each direction of
 * it adding up. */
static void
check_load(const json_t *res, int streams, const char *dir)
{
    const json_t *idle = json_object_get(res, "idle_rtt_us"), *rtt = json_object_get(res, "rtt_us");
    assert_true(u64(idle, "n") > 0); /* round trips before the load */
    assert_true(u64(rtt, "n") > 0);  /* and under it */
    const json_t *w = json_object_get(res, "idle");
    assert_int_equal(u64(w, "transactions"), u64(idle, "n"));
    assert_close(num(w, "duration_s"), 2.0 / 4); /* -t 2 */
    assert_close(num(w, "load_start_s"), 0.5);
    assert_close(num(w, "loaded_start_s"), 0.5 + 0.3); /* then the warmup's ramp */
    const json_t *load = json_object_get(res, "load");
    assert_int_equal(u64(load, "streams"), (uint64_t)streams);
    assert_string_equal(json_string_value(json_object_get(load, "direction")), dir);
    bool f = strcmp(dir, "reverse") != 0, b = strcmp(dir, "forward") != 0;
    const json_t *fwd = json_object_get(load, "forward"), *rev = json_object_get(load, "reverse");
    assert_int_equal(fwd != NULL, f);
    assert_int_equal(rev != NULL, b);
    double sum = 0;
    uint64_t bytes = 0;
    if (fwd != NULL) {
        check_direction(fwd, "server", (size_t)streams, false);
        sum += num(fwd, "throughput_bps");
        bytes += u64(fwd, "bytes");
    }
    if (rev != NULL) {
        check_direction(rev, "client", (size_t)streams, false);
        sum += num(rev, "throughput_bps");
        bytes += u64(rev, "bytes");
    }
    assert_true(bytes > 0);
    assert_int_equal(u64(load, "bytes"), bytes);
    assert_close(num(load, "throughput_bps"), sum);
}

static void
test_tcp_rr_under_load_both(void **state)
{
    struct sp_result r;
    const char *args[] = {"--test", "tcp_rr",   "--load", "2", "--load-direction", "both", "-t",
                          "2",      "--warmup", "0.3",    NULL};
    const json_t *res = run_ok(*state, &r, args);
    check_load(res, 2, "both");
    const json_t *params = json_object_get(r.doc, "params");
    assert_int_equal(u64(params, "load_streams"), 2);
    assert_string_equal(json_string_value(json_object_get(params, "load_direction")), "both");
    json_decref(r.doc);
}

static void
test_udp_rr_under_load_reverse(void **state)
{
    struct sp_result r;
    const char *args[] = {"--test", "udp_rr",   "--load", "1", "--load-direction", "reverse", "-t",
                          "2",      "--warmup", "0.3",    NULL};
    const json_t *res = run_ok(*state, &r, args);
    check_load(res, 1, "reverse");
    assert_true(u64(json_object_get(res, "udp"), "sent") > 0);
    json_decref(r.doc);
}

/* Without a load the rr kinds' results are as they were: nothing of a load in them. */
static void
test_tcp_rr_without_load(void **state)
{
    struct sp_result r;
    const char *args[] = {"--test", "tcp_rr", "-t", "0.5", "--warmup", "0.1", NULL};
    const json_t *res = run_ok(*state, &r, args);
    assert_null(json_object_get(res, "load"));
    assert_null(json_object_get(res, "idle_rtt_us"));
    assert_null(json_object_get(res, "idle"));
    assert_int_equal(u64(json_object_get(r.doc, "params"), "load_streams"), 0);
    json_decref(r.doc);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pps_unpaced),
        cmocka_unit_test(test_pps_lossy),
        cmocka_unit_test(test_pps_paced_reverse),
        cmocka_unit_test(test_tcp_bidir),
        cmocka_unit_test(test_udp_bidir),
        cmocka_unit_test(test_tcp_rr_under_load_both),
        cmocka_unit_test(test_udp_rr_under_load_reverse),
        cmocka_unit_test(test_tcp_rr_without_load),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
