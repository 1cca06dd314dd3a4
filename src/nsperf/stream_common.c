/* stream_common.c - what the two stream kinds (tcp_stream.c, udp_stream.c) share: one thread
 * per stream with the first failure reported, -i bins, the per-stream buffers, and the
 * iperf3/NTTTCP-shaped output. Depends on nothing of the control layer, so that the kinds do not
 * reach back into output.c or params.c. */
#include "nsperf/stream_common.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/errors.h"
#include "common/units.h"

static double
num(const json_t *o, const char *key)
{
    return json_number_value(json_object_get(o, key));
}

void
stream_set_init(struct stream_set *set, struct ns_test *t)
{
    set->t = t;
    set->fds = t->fds;
    set->n = t->nfds - t->nload;
    set->nfwd = t->p.bidir ? t->p.streams : t->p.reverse ? 0 : set->n;
    set->nbins = ns_interval_bins(&t->p);
    set->interval_ns = (uint64_t)(t->p.interval_s * 1e9);
    set->start_off_ns = set->window_off_ns = 0;
    atomic_init(&set->abort, 0);
}

void
stream_set_init_load(struct stream_set *set, struct ns_test *t, uint64_t start_off_ns,
                     uint64_t window_off_ns)
{
    set->t = t;
    set->n = t->nload;
    set->fds = t->fds + (t->nfds - t->nload);
    int d = t->p.load_direction;
    set->nfwd = d == TESTSPEC_DIRECTION_FORWARD   ? set->n
                : d == TESTSPEC_DIRECTION_REVERSE ? 0
                                                  : set->n / 2;
    set->nbins = 0; /* a load's figure is its total; -i samples are the kind's */
    set->interval_ns = 0;
    set->start_off_ns = start_off_ns;
    set->window_off_ns = window_off_ns;
    atomic_init(&set->abort, 0);
}

bool
stream_set_sender(const struct stream_set *set, int i)
{
    return (i < set->nfwd) == (set->t->role == NS_ROLE_CLIENT);
}

uint64_t
stream_set_window_start(const struct stream_set *set)
{
    uint64_t t0 = atomic_load(&set->t->measure_start_ns);
    return t0 != 0 ? t0 + set->window_off_ns : 0;
}

bool
stream_set_measuring(const struct stream_set *set, uint64_t now)
{
    if (ns_test_phase(set->t) != NS_PHASE_MEASURE)
        return false;
    uint64_t w = stream_set_window_start(set);
    return w != 0 && now >= w;
}

bool
stream_set_wait_send_start(struct stream_set *set)
{
    if (set->start_off_ns == 0)
        return !stream_set_over(set);
    while (!stream_set_over(set)) {
        uint64_t t0 = atomic_load(&set->t->measure_start_ns);
        if (t0 == 0) { /* WARMUP: the phase change wakes the wait */
            ns_test_wait_phase(set->t, NS_PHASE_WARMUP, clock_now_ns() + STREAM_ABORT_CAP_NS);
            continue;
        }
        if (clock_now_ns() >= t0 + set->start_off_ns)
            return true;
        stream_set_sleep_until(set, t0 + set->start_off_ns);
    }
    return false;
}

bool
stream_set_over(struct stream_set *set)
{
    return ns_test_phase(set->t) == NS_PHASE_DONE ||
           atomic_load_explicit(&set->abort, memory_order_relaxed);
}

void
stream_set_wait_start(struct stream_set *set)
{
    /* Woken by the phase change itself (a futex), so WARMUP starts every stream at once. The
     * cap only bounds how late a stream sees an abort (a thread that could not start). */
    while (ns_test_phase(set->t) == NS_PHASE_SETUP && !atomic_load(&set->abort))
        ns_test_wait_phase(set->t, NS_PHASE_SETUP, clock_now_ns() + STREAM_ABORT_CAP_NS);
}

void
stream_set_sleep_until(struct stream_set *set, uint64_t deadline_ns)
{
    uint64_t now = clock_now_ns();
    if (now >= deadline_ns || stream_set_over(set))
        return;
    uint64_t cap = now + STREAM_ABORT_CAP_NS;
    ns_test_wait_phase(set->t, ns_test_phase(set->t), deadline_ns < cap ? deadline_ns : cap);
}

int
stream_set_wait_done_after_eof(struct stream_set *set, int grace_ms)
{
    uint64_t deadline = clock_deadline_ms(grace_ms);
    while (ns_test_phase(set->t) != NS_PHASE_DONE && !atomic_load(&set->abort) &&
           clock_now_ns() < deadline)
        stream_set_sleep_until(set, deadline);
    return ns_test_phase(set->t) == NS_PHASE_DONE ? 0 : -1;
}

int
stream_io_alloc(struct stream_io *io, struct stream_set *set, int idx, size_t buflen)
{
    io->idx = idx;
    io->fd = set->fds[idx];
    io->sender = stream_set_sender(set, idx);
    err_clear(&io->e);
    io->buflen = buflen;
    io->buf = calloc(1, buflen);
    if (io->buf == NULL)
        return NS_ENOMEM;
    if (!io->sender && set->nbins > 0) {
        io->bins = calloc(set->nbins, sizeof *io->bins);
        if (io->bins == NULL)
            return NS_ENOMEM;
    }
    return 0;
}

void
stream_io_release(struct stream_io *io)
{
    free(io->buf);
    free(io->bins);
    io->buf = NULL;
    io->bins = NULL;
}

void
stream_io_count_bin(struct stream_io *io, const struct stream_set *set, uint64_t n, uint64_t now)
{
    uint64_t t0 = stream_set_window_start(set);
    if (io->bins == NULL || t0 == 0 || now < t0)
        return;
    uint64_t k = (now - t0) / set->interval_ns;
    if (k < set->nbins)
        io->bins[k] += n;
}

int
stream_io_fail(struct stream_io *io, struct stream_set *set, int code, int errnum, const char *what)
{
    io->rc = err_sys(&io->e, code, errnum, "stream %d: %s", io->idx, what);
    atomic_store(&set->abort, 1);
    return io->rc;
}

double
stream_set_elapsed_s(const struct stream_set *set)
{
    uint64_t t0 = stream_set_window_start(set), t1 = atomic_load(&set->t->measure_end_ns);
    return t0 != 0 && t1 > t0 ? (double)(t1 - t0) / 1e9 : 0.0;
}

void
stream_io_cpu_mark(struct stream_io *io)
{
    struct timespec ts;
    if (io->cpu_marks >= 2 || clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
        return;
    io->cpu_ns[io->cpu_marks++] = (uint64_t)ts.tv_sec * NS_PER_SEC + (uint64_t)ts.tv_nsec;
}

double
stream_io_cpu_s(const struct stream_io *io)
{
    return io->cpu_marks == 2 && io->cpu_ns[1] > io->cpu_ns[0]
               ? (double)(io->cpu_ns[1] - io->cpu_ns[0]) / 1e9
               : 0.0;
}

/* Start fn on the set's n threads, the i-th with argument streams + i * stride. A thread that
 * cannot start raises set->abort (so that the started ones end) and gives NS_EIO. */
int
stream_set_start(struct stream_set *set, void *streams, size_t stride, void *(*fn)(void *),
                 struct err *e)
{
    set->started = 0;
    set->threads = calloc(set->n > 0 ? (size_t)set->n : 1, sizeof *set->threads);
    if (set->threads == NULL)
        return err_set(e, NS_ENOMEM, "out of memory");
    for (; set->started < set->n; set->started++) {
        int prc = pthread_create(&set->threads[set->started], NULL, fn,
                                 (char *)streams + (size_t)set->started * stride);
        if (prc != 0) {
            atomic_store(&set->abort, 1);
            return err_sys(e, NS_EIO, prc, "cannot start stream thread");
        }
    }
    return 0;
}

int
stream_set_join(struct stream_set *set, void *streams, size_t stride, struct err *e)
{
    for (int i = 0; i < set->started; i++)
        pthread_join(set->threads[i], NULL);
    free(set->threads);
    set->threads = NULL;
    int rc = 0;
    for (int i = 0; i < set->started && rc == 0; i++) {
        const struct stream_io *io =
            (const struct stream_io *)((char *)streams + (size_t)i * stride);
        if (io->rc != 0)
            rc = err_set(e, io->rc, "%s", io->e.msg);
    }
    set->started = 0;
    return rc;
}

int
stream_set_run(struct stream_set *set, void *streams, size_t stride, void *(*fn)(void *),
               struct err *e)
{
    struct err ignored;
    int rc = stream_set_start(set, streams, stride, fn, e);
    ns_test_set_ready(set->t);
    int jrc = stream_set_join(set, streams, stride, rc == 0 ? e : &ignored);
    return rc != 0 ? rc : jrc;
}

uint64_t
ns_json_u64(const json_t *o, const char *key)
{
    json_int_t v = json_integer_value(json_object_get(o, key));
    return v < 0 ? 0 : (uint64_t)v;
}

size_t
ns_interval_bins(const struct ns_params *p)
{
    if (p->interval_s <= 0)
        return 0;
    double n = p->duration_s / p->interval_s + 2;
    return n > 1e6 ? 1000000 : (size_t)n;
}

json_t *
ns_intervals_json(const json_t *streams, size_t from, size_t to, double interval_s,
                  double elapsed_s)
{
    json_t *out = json_array();
    if (interval_s <= 0)
        return out;
    for (size_t k = 0;; k++) {
        double start = (double)k * interval_s;
        if (start >= elapsed_s - 1e-9)
            break;
        double end = start + interval_s < elapsed_s ? start + interval_s : elapsed_s;
        /* DONE lands just after the last boundary: fold that sliver into the last sample. */
        if (elapsed_s - end < 0.25 * interval_s)
            end = elapsed_s;
        uint64_t bytes = 0;
        for (size_t i = from; i < to && i < json_array_size(streams); i++) {
            const json_t *a = json_object_get(json_array_get(streams, i), "intervals");
            bool last = end >= elapsed_s; /* takes every later bin, however late */
            for (size_t j = k;
                 j < json_array_size(a) && (last || (double)j * interval_s < end - 1e-9); j++) {
                json_int_t v = json_integer_value(json_array_get(a, j));
                bytes += v > 0 ? (uint64_t)v : 0;
            }
        }
        json_array_append_new(out, json_pack("{s:f, s:f, s:I, s:f}", "start_s", start, "end_s", end,
                                             "bytes", (json_int_t)bytes, TESTSPEC_KEY_THROUGHPUT,
                                             (double)bytes * 8.0 / (end - start)));
        if (end >= elapsed_s)
            break;
    }
    return out;
}

static void
print_row(FILE *out, const char *id, const json_t *o)
{
    char rate[32], bytes[32];
    units_format_rate(num(o, TESTSPEC_KEY_THROUGHPUT), rate, sizeof rate);
    units_format_bytes(num(o, "bytes"), bytes, sizeof bytes);
    fprintf(out, "[%5s]  %12s  %14s", id, bytes, rate);
    const json_t *udp = json_object_get(o, "udp");
    if (udp != NULL)
        fprintf(out, "  %10.3f ms  %8llu/%-10llu (%.3g%%)", num(udp, "jitter_us") / 1000.0,
                (unsigned long long)ns_json_u64(udp, "lost"),
                (unsigned long long)ns_json_u64(udp, "sent"), num(udp, "lost_pct"));
    else
        fprintf(out, "  %8llu", (unsigned long long)ns_json_u64(o, "retransmits"));
    fputc('\n', out);
}

void
ns_print_stream_table(const json_t *result, FILE *out)
{
    const json_t *streams = json_object_get(result, "streams");
    bool udp = json_object_get(result, "udp") != NULL;
    fprintf(out, "[%5s]  %12s  %14s", "ID", "Transfer", "Throughput");
    if (udp)
        fprintf(out, "  %13s  %s\n", "Jitter", "Lost/Sent");
    else
        fprintf(out, "  %8s\n", "Retr");
    size_t i;
    const json_t *st;
    json_array_foreach(streams, i, st)
    {
        char id[24];
        snprintf(id, sizeof id, "%zu", i);
        print_row(out, id, st);
    }
    print_row(out, "SUM", result);
    if (udp) /* datagrams are marked measured by the sender: its interval is the one */
        fprintf(out,
                "over the sender's %.3f s measured interval; received, lost and jitter as "
                "the receiver counted them\n",
                num(result, "duration_s"));
    else
        fprintf(out, "receiver-counted over %.3f s\n", num(result, "duration_s"));
}

json_t *
ns_intervals_sum(const json_t *a, const json_t *b)
{
    const json_t *longer = json_array_size(a) >= json_array_size(b) ? a : b;
    const json_t *other = longer == a ? b : a;
    json_t *out = json_array();
    for (size_t k = 0; k < json_array_size(longer); k++) {
        const json_t *x = json_array_get(longer, k), *y = json_array_get(other, k);
        double start = num(x, "start_s"), end = num(x, "end_s");
        json_int_t bytes = json_integer_value(json_object_get(x, "bytes")) +
                           json_integer_value(json_object_get(y, "bytes"));
        json_array_append_new(
            out, json_pack("{s:f, s:f, s:I, s:f}", "start_s", start, "end_s", end, "bytes", bytes,
                           TESTSPEC_KEY_THROUGHPUT,
                           num(x, TESTSPEC_KEY_THROUGHPUT) + num(y, TESTSPEC_KEY_THROUGHPUT)));
    }
    return out;
}

json_t *
ns_bins_json(const uint64_t *bins, size_t n)
{
    json_t *a = json_array();
    for (size_t k = 0; k < n; k++)
        json_array_append_new(a, json_integer((json_int_t)bins[k]));
    return a;
}
