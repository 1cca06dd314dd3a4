/* tcp_stream.c - bulk TCP throughput (netperf TCP_STREAM, iperf3, NTTTCP).
 *
 * One thread per stream so that -P streams spread over cores. The sender writes -l bytes at a
 * time (optionally paced to -b); the receiver's count is what its TCP took in between its own
 * MEASURE and DONE (tcpi_bytes_received at those instants, ts_mark), and that count over its
 * own measured interval is the throughput. The sender counts too (bytes written in its
 * measured interval, and in total) and reads TCP_INFO's tcpi_total_retrans at the start and
 * end of its measured interval. At DONE stop() shuts the sockets down, which ends a blocked
 * write or read at once; 100 ms send and receive timeouts remain as the safety cap (no poll per
 * call).
 *
 * Zero copy unless --copy: on fast paths the copies between user memory and the socket are most
 * of a stream's CPU, and a survey measures the network, not memcpy. The sender sendfile()s its
 * payload from a memfd filled once (page-cache pages handed to TCP by reference); the receiver
 * splice()s what arrives into a pipe and on to /dev/null (TCP still receives, acknowledges and
 * counts every byte; only the copy into user memory is skipped). Either side falls back to
 * send()/recv() when the kernel refuses a step, and says which it used in its result.
 *
 * --bidir runs -P streams each way at once (iperf3 --bidir): the first -P data connections
 * forward (client -> server), the next -P reverse, each stream's receiver counting as above; the
 * result keeps each direction's figures under its name and sums them. The same streams serve as
 * the load of tcp_rr and udp_rr (tcp_stream.h): on the test's load connections, starting and
 * counting at points inside the measured interval. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/errors.h"
#include "common/net.h"
#include "common/units.h"
#include "nsperf/stream_common.h"
#include "nsperf/tcp_stream.h"
#include "nsperf/tcpinfo.h"

#define TS_RECV_BUF (1024u * 1024u)
#define TS_LOAD_WRITE (256u * 1024u) /* a load's write size: bulk, whatever the kind's -l */
#define TS_IO_TIMEOUT_MS 100
/* How long a receiver waits for its DONE after the sender closed (it closes as it sends STOP). */
#define TS_EOF_GRACE_MS 2000
/* A paced sender sleeps only once it is this far ahead of its schedule, so it writes about a
 * millisecond's worth per wake-up (iperf3's pacing timer is 1 ms too) instead of sleeping after
 * every write: at 5 Gbit/s with 128 KiB writes, 1000 wake-ups a second instead of 5000. The
 * average rate over the measured interval is exact (the schedule is absolute, and what the
 * warmup left unwritten is given up at MEASURE); bursts last at most this long. */
#define TS_PACE_QUANTUM_NS NS_PER_MS

struct ts_state;

struct ts_stream {
    struct stream_io io; /* first: stream_common.c sees it as one */
    struct ts_state *st;
    bool in_measure;
    uint64_t bytes;        /* during this side's measured interval */
    uint64_t total;        /* whole test, warmup included */
    uint32_t retr0, retr1; /* sender: tcpi_total_retrans at MEASURE and at the end */
    uint64_t pace_start;   /* sender: the schedule's origin (CLOCK_MONOTONIC) */
    uint64_t paced;        /* sender: bytes of the schedule written, or given up at MEASURE */
    /* Receiver: tcpi_bytes_received at this side's MEASURE and DONE (ts_mark, on the control
     * thread), rx_marks saying which were taken; rx_binned what the -i bins hold up to. */
    _Atomic uint64_t rx_at_measure, rx_at_done;
    _Atomic int rx_marks;
    uint64_t rx_binned;
    uint64_t rx_base; /* tcpi_bytes_received before any payload: the control layer's hello */
    int memfd;        /* sender: the payload for sendfile(), -1 = send() from io.buf */
    int pipe[2];      /* receiver: splice() through this to devnull, -1 = recv() */
    int devnull;
    size_t pipe_len;
};

struct ts_state {
    struct stream_set set; /* first */
    struct ts_stream s[];
};

#define TS_MARK_MEASURE 1
#define TS_MARK_DONE 2

static bool
ts_over(const struct ts_stream *s)
{
    return stream_set_over(&s->st->set);
}

static int
ts_fail(struct ts_stream *s, int code, int errnum, const char *what)
{
    return stream_io_fail(&s->io, &s->st->set, code, errnum, what);
}

/* Sleep to the paced instant for s->paced bytes; DONE wakes the sleep at once. */
static void
ts_pace(struct ts_stream *s, double per_stream_bps)
{
    uint64_t due = s->pace_start + (uint64_t)((double)s->paced * 8.0 * 1e9 / per_stream_bps);
    if (clock_now_ns() + TS_PACE_QUANTUM_NS > due)
        return; /* less than a quantum ahead: write on */
    while (clock_now_ns() < due && !ts_over(s))
        stream_set_sleep_until(&s->st->set, due);
}

/* How many bytes the schedule had called for by at_ns. */
static uint64_t
ts_sched_bytes(const struct ts_stream *s, uint64_t at_ns, double per_stream_bps)
{
    if (at_ns <= s->pace_start)
        return 0;
    return (uint64_t)((double)(at_ns - s->pace_start) * per_stream_bps / 8e9);
}

/* What the schedule called for before MEASURE and the thread had not written (its host did not
 * run it) belongs to the warmup: given up, not written as a burst at the start of the measured
 * interval, where both sides would count it (a sender stopped 0.5 s across MEASURE wrote 150
 * Mbit/s in its 1 s at -b 100M). Deadlines inside the interval are still caught up. */
static void
ts_mark_measure(struct ts_stream *s, double per_stream_bps)
{
    struct tcpinfo_snap ti;
    s->in_measure = true;
    stream_io_cpu_mark(&s->io);
    if (tcpinfo_read(s->io.fd, &ti) == 0)
        s->retr0 = ti.total_retrans;
    if (per_stream_bps > 0) {
        uint64_t due = ts_sched_bytes(s, stream_set_window_start(&s->st->set), per_stream_bps);
        if (s->paced < due)
            s->paced = due;
    }
}

/* In the warmup the schedule is not caught up: a sender its host stopped would write the
 * backlog at line rate as soon as it runs again, and if MEASURE comes meanwhile the burst lands
 * in the receiver's measured interval, not in the sender's (a client stopped 0.3-0.8 s read
 * 58.8 Mbit/s at -b 50M). Nothing measures the warmup's average. */
static void
ts_warmup_no_backlog(struct ts_stream *s, double per_stream_bps)
{
    uint64_t due = ts_sched_bytes(s, clock_now_ns(), per_stream_bps);
    if (s->paced < due)
        s->paced = due;
}

/* Bytes per send(): the whole -l buffer unpaced; paced, about a millisecond's worth, so that a
 * 1 MiB default write does not turn a slow rate into bursts (at 1 kbit/s: single bytes), but not
 * less than a segment (or 10 ms worth, if that is less): 128 paced streams each waking 1000
 * times a second would spend two cores on wake-ups and starve the control frames. */
#define TS_PACE_MIN_CHUNK 1448u /* one Ethernet TCP segment's payload */
static size_t
ts_chunk(size_t buflen, double per_stream_bps)
{
    if (per_stream_bps <= 0)
        return buflen;
    double ms_worth = per_stream_bps / 8.0 / 1000.0;
    double floor = 10.0 * ms_worth < TS_PACE_MIN_CHUNK ? 10.0 * ms_worth : TS_PACE_MIN_CHUNK;
    double want = ms_worth > floor ? ms_worth : floor;
    size_t chunk = want < 1.0 ? 1u : (size_t)want;
    return chunk < buflen ? chunk : buflen;
}

/* One write of len bytes of the payload. sendfile() cannot take MSG_NOSIGNAL: nsperf ignores
 * SIGPIPE (main.c), so a peer's reset is EPIPE here as with send(). */
static ssize_t
ts_write(struct ts_stream *s, size_t len)
{
    if (s->memfd < 0)
        return send(s->io.fd, s->io.buf, len, MSG_NOSIGNAL);
    off_t off = 0; /* always the payload's first len bytes: the file position stays put */
    return sendfile(s->io.fd, s->memfd, &off, len);
}

/* Each stream's share of -b (with --bidir -b is each direction's; a load is unpaced). */
static double
ts_per_stream_bps(const struct ts_stream *s)
{
    const struct stream_set *set = &s->st->set;
    const struct ns_params *p = &set->t->p;
    if (p->rate_bps == 0 || set->is_load)
        return 0;
    return (double)p->rate_bps / p->streams;
}

static void
ts_send_loop(struct ts_stream *s)
{
    double per_stream = ts_per_stream_bps(s);
    if (!stream_set_wait_send_start(&s->st->set))
        return;
    s->pace_start = clock_now_ns();
    s->paced = 0;
    size_t chunk = ts_chunk(s->io.buflen, per_stream);
    while (!ts_over(s)) {
        if (!s->in_measure && stream_set_measuring(&s->st->set, clock_now_ns()))
            ts_mark_measure(s, per_stream);
        else if (!s->in_measure && per_stream > 0)
            ts_warmup_no_backlog(s, per_stream);
        ssize_t n = ts_write(s, chunk);
        if (n < 0) {
            if (errno == EAGAIN || errno == EINTR || ts_over(s))
                continue; /* at DONE: stop()'s shutdown, EPIPE */
            ts_fail(s, NS_ECLOSED, errno, "send");
            return;
        }
        s->total += (uint64_t)n;
        if (s->in_measure)
            s->bytes += (uint64_t)n;
        if (per_stream > 0) {
            s->paced += (uint64_t)n;
            ts_pace(s, per_stream);
        }
    }
    struct tcpinfo_snap ti;
    if (s->in_measure && tcpinfo_read(s->io.fd, &ti) == 0)
        s->retr1 = ti.total_retrans;
    if (s->in_measure)
        stream_io_cpu_mark(&s->io);
}

/* The receiver's measured bytes: what TCP took in between this side's MEASURE and DONE, as
 * the kernel counted it at those instants. What a reader counts while its phase is MEASURE also
 * holds what sat in the receive queue when MEASURE came (autotuned up to tcp_rmem's 32 MB here):
 * a receiver stopped across MEASURE read it at once and counted it as measured. Without both
 * marks (a kernel before 4.1, or no MEASURE), what was read in the window. */
static uint64_t
ts_rx_measured(const struct ts_stream *s)
{
    if (atomic_load(&s->rx_marks) != (TS_MARK_MEASURE | TS_MARK_DONE))
        return s->bytes;
    uint64_t a = atomic_load(&s->rx_at_measure), b = atomic_load(&s->rx_at_done);
    return b > a ? b - a : 0;
}

/* -i: with the marks, the bins hold what TCP took in, sampled as the reads come (one TCP_INFO
 * per read, only with -i); ts_bins_reconcile() makes their sum the measured count. */
static void
ts_count(struct ts_stream *s, uint64_t n)
{
    s->bytes += n;
    uint64_t now = clock_now_ns();
    ns_test_progress(s->st->set.t, now);
    if (s->io.bins == NULL)
        return;
    if (!(atomic_load(&s->rx_marks) & TS_MARK_MEASURE)) {
        stream_io_count_bin(&s->io, &s->st->set, n, now);
        return;
    }
    struct tcpinfo_snap ti;
    if (tcpinfo_read(s->io.fd, &ti) != 0 || !ti.has_bytes_received)
        return; /* the next sample takes it */
    uint64_t base = atomic_load(&s->rx_at_measure);
    if (s->rx_binned > base)
        base = s->rx_binned;
    if (ti.bytes_received > base) {
        stream_io_count_bin(&s->io, &s->st->set, ti.bytes_received - base, now);
        s->rx_binned = ti.bytes_received;
    }
}

/* What arrived after the last sample goes to the sample DONE fell in; what a sample racing DONE
 * took beyond its mark is given back from the last samples. */
static void
ts_bins_reconcile(struct ts_stream *s)
{
    const struct stream_set *set = &s->st->set;
    if (s->io.bins == NULL || set->nbins == 0 ||
        atomic_load(&s->rx_marks) != (TS_MARK_MEASURE | TS_MARK_DONE))
        return;
    uint64_t want = ts_rx_measured(s), have = 0;
    for (size_t k = 0; k < set->nbins; k++)
        have += s->io.bins[k];
    if (have < want) {
        uint64_t t0 = atomic_load(&set->t->measure_start_ns);
        uint64_t t1 = atomic_load(&set->t->measure_end_ns);
        uint64_t k = t1 > t0 ? (t1 - t0) / set->interval_ns : 0;
        s->io.bins[k < set->nbins ? k : set->nbins - 1] += want - have;
    }
    for (size_t k = set->nbins; have > want && k-- > 0;) {
        uint64_t take = s->io.bins[k] < have - want ? s->io.bins[k] : have - want;
        s->io.bins[k] -= take;
        have -= take;
    }
}

/* The kind's mark (control thread): the receiver's kernel counts at its window's ends. */
/* One receiving stream's kernel count at its window's start or end. */
static void
ts_mark_stream(struct ts_stream *s, int which)
{
    uint64_t v;
    if (tcpinfo_bytes_received(s->io.fd, &v) != 0)
        return;
    atomic_store(which == TS_MARK_MEASURE ? &s->rx_at_measure : &s->rx_at_done, v);
    atomic_fetch_or(&s->rx_marks, which);
}

/* The receivers' kernel counts at the window's ends: MEASURE (a kind's own streams; a load's
 * window starts later, and its threads mark that themselves) and DONE. */
static void
ts_set_mark(struct ts_state *st, enum ns_phase ph)
{
    if (st == NULL || (ph != NS_PHASE_MEASURE && ph != NS_PHASE_DONE) ||
        (ph == NS_PHASE_MEASURE && st->set.window_off_ns != 0))
        return;
    for (int i = 0; i < st->set.n; i++) {
        struct ts_stream *s = &st->s[i];
        if (s->io.buf == NULL || s->io.sender) /* not set up (run() failed), or not receiving */
            continue;
        ts_mark_stream(s, ph == NS_PHASE_MEASURE ? TS_MARK_MEASURE : TS_MARK_DONE);
    }
}

/* The kind's mark (control thread): the receivers' kernel counts at its window's ends. */
static void
ts_mark(struct ns_test *t, enum ns_phase ph)
{
    ts_set_mark(t->kind_state, ph);
}

/* Empty the pipe into /dev/null: drops the pages' references, nothing is copied. */
static int
ts_discard(struct ts_stream *s, size_t len)
{
    while (len > 0) {
        ssize_t k = splice(s->pipe[0], NULL, s->devnull, NULL, len, SPLICE_F_MOVE);
        if (k <= 0 && errno != EINTR)
            return -1;
        len -= k > 0 ? (size_t)k : 0;
    }
    return 0;
}

/* One read: what arrived, up to the buffer (or pipe) size; recv()'s conventions. */
static ssize_t
ts_read(struct ts_stream *s)
{
    if (s->pipe[0] < 0)
        return recv(s->io.fd, s->io.buf, s->io.buflen, 0);
    ssize_t n = splice(s->io.fd, NULL, s->pipe[1], NULL, s->pipe_len, SPLICE_F_MOVE);
    if (n > 0 && ts_discard(s, (size_t)n) != 0)
        return -1;
    return n;
}

/* A load's receiver: its window starts inside MEASURE, where no control event marks it; the
 * first read past its start takes the kernel's count (a read returns every few hundred KiB
 * under load, so within a millisecond or so). */
static void
ts_window_mark(struct ts_stream *s)
{
    if (s->st->set.window_off_ns != 0 && !(atomic_load(&s->rx_marks) & TS_MARK_MEASURE))
        ts_mark_stream(s, TS_MARK_MEASURE);
}

static void
ts_recv_loop(struct ts_stream *s)
{
    for (;;) {
        ssize_t n = ts_read(s);
        int ph = ns_test_phase(s->st->set.t);
        if (ph == NS_PHASE_DONE || atomic_load(&s->st->set.abort))
            return;
        bool measuring =
            ph == NS_PHASE_MEASURE && stream_set_measuring(&s->st->set, clock_now_ns());
        if (measuring && s->io.cpu_marks == 0) {
            ts_window_mark(s);
            stream_io_cpu_mark(&s->io);
        }
        if (n > 0) {
            s->total += (uint64_t)n;
            if (measuring)
                ts_count(s, (uint64_t)n);
        } else if (n == 0) {
            ns_test_progress_end(s->st->set.t, clock_now_ns()); /* the sender stopped */
            if (stream_set_wait_done_after_eof(&s->st->set, TS_EOF_GRACE_MS) != 0)
                ts_fail(s, NS_ECLOSED, ECONNRESET, "peer closed the data connection");
            return;
        } else if (errno != EAGAIN && errno != EINTR) {
            ts_fail(s, NS_ECLOSED, errno, "recv");
            return;
        }
    }
}

static void *
ts_thread(void *arg)
{
    struct ts_stream *s = arg;
    stream_set_wait_start(&s->st->set);
    if (s->io.sender) {
        ts_send_loop(s);
        return NULL;
    }
    ts_recv_loop(s);
    if (s->io.cpu_marks == 1)
        stream_io_cpu_mark(&s->io);
    /* The connection's payload as TCP took it in: the reader stops at DONE, the kernel does not. */
    uint64_t v;
    if (tcpinfo_bytes_received(s->io.fd, &v) == 0 && v > s->rx_base && v - s->rx_base > s->total)
        s->total = v - s->rx_base;
    return NULL;
}

/* Not all zeros, so nothing on the path can compress the payload; one 4 KiB pattern copied. */
static void
ts_fill(uint8_t *buf, size_t len)
{
    size_t first = len < 4096 ? len : 4096;
    for (size_t j = 0; j < first; j++)
        buf[j] = (uint8_t)(j * 31u + 7u);
    for (size_t at = first; at < len; at += first)
        memcpy(buf + at, buf, len - at < first ? len - at : first);
}

/* The payload in a memfd for sendfile(); false (and send() from io.buf) when not possible. */
static bool
ts_zero_copy_sender(struct ts_stream *s)
{
    s->memfd = memfd_create("nsperf-payload", MFD_CLOEXEC);
    size_t done = 0;
    while (s->memfd >= 0 && done < s->io.buflen) {
        ssize_t k = write(s->memfd, s->io.buf + done, s->io.buflen - done);
        if (k <= 0)
            break;
        done += (size_t)k;
    }
    if (s->memfd >= 0 && done < s->io.buflen) {
        close(s->memfd);
        s->memfd = -1;
    }
    return s->memfd >= 0;
}

/* A pipe (as large as the receive buffer, if the kernel lets us) and /dev/null for splice();
 * false (and recv() into io.buf) when not possible. */
static bool
ts_zero_copy_receiver(struct ts_stream *s)
{
    if (pipe2(s->pipe, O_CLOEXEC) != 0) {
        s->pipe[0] = s->pipe[1] = -1;
        return false;
    }
    (void)fcntl(s->pipe[1], F_SETPIPE_SZ, (int)TS_RECV_BUF); /* the default 64 KiB otherwise */
    int len = fcntl(s->pipe[1], F_GETPIPE_SZ);
    s->pipe_len = len > 0 ? (size_t)len : 65536;
    s->devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (s->devnull >= 0)
        return true;
    close(s->pipe[0]);
    close(s->pipe[1]);
    s->pipe[0] = s->pipe[1] = -1;
    return false;
}

static void
ts_zero_copy_release(struct ts_stream *s)
{
    int fds[] = {s->memfd, s->pipe[0], s->pipe[1], s->devnull};
    for (size_t i = 0; i < sizeof fds / sizeof fds[0]; i++)
        if (fds[i] >= 0)
            close(fds[i]);
    s->memfd = s->pipe[0] = s->pipe[1] = s->devnull = -1;
}

static int
ts_stream_init(struct ts_state *st, int i, struct err *e)
{
    struct ts_stream *s = &st->s[i];
    s->st = st;
    /* The receiver reads into a fixed buffer whatever the sender's -l: a peer's parameters
     * must not decide how much memory this side commits (validated: streams x -l capped). */
    bool sender = stream_set_sender(&st->set, i);
    size_t len = !sender           ? TS_RECV_BUF
                 : st->set.is_load ? TS_LOAD_WRITE
                                   : (size_t)st->set.t->p.msg_size;
    if (stream_io_alloc(&s->io, &st->set, i, len) != 0)
        return err_set(e, NS_ENOMEM, "out of memory");
    if (sender)
        ts_fill(s->io.buf, s->io.buflen);
    if (!st->set.t->p.copy)
        (void)(sender ? ts_zero_copy_sender(s) : ts_zero_copy_receiver(s));
    if (!sender) /* before WARMUP: the data connection's hello only */
        (void)tcpinfo_bytes_received(s->io.fd, &s->rx_base);
    /* The 200 ms DONE contract rests on these: a blocked send or recv must come back. */
    if (net_set_timeouts(s->io.fd, TS_IO_TIMEOUT_MS, TS_IO_TIMEOUT_MS) != 0)
        return err_sys(e, NS_EIO, errno, "stream %d: cannot set socket timeouts", i);
    return 0;
}

/* The state of a set of n streams, each stream set up; *out is the caller's to free with
 * ts_state_free also when this fails. */
static int
ts_state_new(int n, struct ts_state **out, struct err *e)
{
    struct ts_state *st = calloc(1, sizeof *st + (size_t)(n > 0 ? n : 1) * sizeof st->s[0]);
    *out = st;
    if (st == NULL)
        return err_set(e, NS_ENOMEM, "out of memory");
    for (int i = 0; i < n; i++) /* cleanup closes only what a stream opened */
        st->s[i].memfd = st->s[i].pipe[0] = st->s[i].pipe[1] = st->s[i].devnull = -1;
    return 0;
}

static int
ts_state_setup(struct ts_state *st, struct err *e)
{
    for (int i = 0; i < st->set.n; i++) {
        int rc = ts_stream_init(st, i, e);
        if (rc != 0)
            return rc;
    }
    return 0;
}

static void
ts_state_free(struct ts_state *st)
{
    for (int i = 0; st != NULL && i < st->set.n; i++) {
        stream_io_release(&st->s[i].io);
        ts_zero_copy_release(&st->s[i]);
    }
    if (st != NULL)
        free(st->set.threads);
    free(st);
}

static int
ts_run(struct ns_test *t, struct err *e)
{
    struct ts_state *st;
    int rc = ts_state_new(t->nfds - t->nload, &st, e);
    t->kind_state = st;
    if (rc != 0)
        return rc;
    stream_set_init(&st->set, t);
    rc = ts_state_setup(st, e);
    if (rc != 0)
        return rc;
    return stream_set_run(&st->set, st->s, sizeof st->s[0], ts_thread, e);
}

static json_t *
ts_stream_json(const struct ts_state *st, const struct ts_stream *s)
{
    uint64_t bytes = s->io.sender ? s->bytes : ts_rx_measured(s);
    json_t *o = json_pack("{s:I, s:I, s:f}", "bytes", (json_int_t)bytes, "total_bytes",
                          (json_int_t)s->total, "thread_cpu_s", stream_io_cpu_s(&s->io));
    if (s->io.sender) {
        json_object_set_new(o, "retransmits", json_integer((json_int_t)(s->retr1 - s->retr0)));
    } else if (s->io.bins != NULL) {
        json_object_set_new(o, "intervals", ns_bins_json(s->io.bins, st->set.nbins));
    }
    return o;
}

/* How this side moved the payload on its sending (or receiving) streams: "sendfile"/"splice"
 * (zero copy), "send"/"recv" (copied; --copy, or the kernel refused a step on some stream);
 * NULL when it has no such stream. */
static const char *
ts_io_name(const struct ts_state *st, bool sender)
{
    bool any = false, zero = true;
    for (int i = 0; st != NULL && i < st->set.n; i++) {
        if (st->s[i].io.sender != sender)
            continue;
        any = true;
        zero = zero && (sender ? st->s[i].memfd >= 0 : st->s[i].pipe[0] >= 0);
    }
    if (!any)
        return NULL;
    return zero ? (sender ? "sendfile" : "splice") : (sender ? "send" : "recv");
}

/* This side's streams and measured window; "role" says which way its streams go ("sender",
 * "receiver", or "both" with --bidir and a load both ways). */
static json_t *
ts_state_json(struct ts_state *st)
{
    json_t *streams = json_array();
    bool snd = false, rcv = false;
    for (int i = 0; st != NULL && i < st->set.n; i++) {
        ts_bins_reconcile(&st->s[i]);
        json_array_append_new(streams, ts_stream_json(st, &st->s[i]));
        snd = snd || st->s[i].io.sender;
        rcv = rcv || !st->s[i].io.sender;
    }
    const char *sio = ts_io_name(st, true), *rio = ts_io_name(st, false);
    json_t *o = json_pack("{s:s, s:f, s:o}", "role",
                          snd && rcv ? "both"
                          : snd      ? "sender"
                                     : "receiver",
                          "elapsed_s", st != NULL ? stream_set_elapsed_s(&st->set) : 0.0, "streams",
                          streams);
    if (sio != NULL)
        json_object_set_new(o, "send_io", json_string(sio));
    if (rio != NULL)
        json_object_set_new(o, "recv_io", json_string(rio));
    return o;
}

static json_t *
ts_local_result(struct ns_test *t)
{
    return ts_state_json(t->kind_state);
}

/* bytes: the receiver's count over its own measured interval (authoritative); sender_bytes:
 * the sender's over its own. The windows differ by the control frames' latency, so either may be
 * slightly larger; the *_total_bytes (whole connection) always satisfy receiver <= sender. */
static json_t *
ts_combine_stream(const json_t *rs, const json_t *ss, double elapsed, int idx)
{
    uint64_t bytes = ns_json_u64(rs, "bytes");
    json_t *o =
        json_pack("{s:i, s:I, s:f, s:I, s:I}", "index", idx, "bytes", (json_int_t)bytes,
                  TESTSPEC_KEY_THROUGHPUT, elapsed > 0 ? (double)bytes * 8.0 / elapsed : 0.0,
                  "sender_bytes", (json_int_t)ns_json_u64(ss, "bytes"), "retransmits",
                  (json_int_t)ns_json_u64(ss, "retransmits"));
    json_object_set_new(o, "receiver_total_bytes",
                        json_integer((json_int_t)ns_json_u64(rs, "total_bytes")));
    json_object_set_new(o, "sender_total_bytes",
                        json_integer((json_int_t)ns_json_u64(ss, "total_bytes")));
    return o;
}

static double
ts_num(const json_t *o, const char *key)
{
    return json_number_value(json_object_get(o, key));
}

/* One direction: streams [from, to) of both sides' results, snd the side that sent them (the
 * client forward), rcv the other. Its figures as a result without --bidir has them. */
static json_t *
ts_combine_dir(const json_t *snd, const json_t *rcv, size_t from, size_t to, bool client_receives,
               double interval_s)
{
    double elapsed = ts_num(rcv, "elapsed_s");
    const json_t *rstreams = json_object_get(rcv, "streams");
    const json_t *sstreams = json_object_get(snd, "streams");
    json_t *streams = json_array();
    uint64_t bytes = 0, sbytes = 0, retr = 0;
    double scpu = 0, rcpu = 0;
    for (size_t i = from; i < to && i < json_array_size(rstreams); i++) {
        const json_t *rs = json_array_get(rstreams, i), *ss = json_array_get(sstreams, i);
        json_t *o = ts_combine_stream(rs, ss, elapsed, (int)(i - from));
        bytes += ns_json_u64(o, "bytes");
        sbytes += ns_json_u64(o, "sender_bytes");
        retr += ns_json_u64(o, "retransmits");
        scpu += ts_num(ss, "thread_cpu_s");
        rcpu += ts_num(rs, "thread_cpu_s");
        json_array_append_new(streams, o);
    }
    const char *sio = json_string_value(json_object_get(snd, "send_io"));
    const char *rio = json_string_value(json_object_get(rcv, "recv_io"));
    double selapsed = ts_num(snd, "elapsed_s");
    json_t *o = json_pack(
        "{s:f, s:I, s:I, s:I, s:f, s:f, s:s, s:o, s:o, s:{s:s, s:s}}", TESTSPEC_KEY_THROUGHPUT,
        elapsed > 0 ? (double)bytes * 8.0 / elapsed : 0.0, "bytes", (json_int_t)bytes,
        "sender_bytes", (json_int_t)sbytes, "retransmits", (json_int_t)retr, "duration_s", elapsed,
        "sender_duration_s", selapsed, "receiver", client_receives ? "client" : "server", "streams",
        streams, "intervals", ns_intervals_json(rstreams, from, to, interval_s, elapsed), "io",
        "sender", sio != NULL ? sio : "unknown", "receiver", rio != NULL ? rio : "unknown");
    /* Each side's data threads' own CPU over the window (a core is 100): what --bidir can tell
     * of each direction, the processes' CPU being both directions' at once. */
    json_object_set_new(o, "thread_cpu_pct",
                        json_pack("{s:f, s:f}", "sender",
                                  selapsed > 0 ? 100.0 * scpu / selapsed : 0.0, "receiver",
                                  elapsed > 0 ? 100.0 * rcpu / elapsed : 0.0));
    return o;
}

/* Both directions: each one's object under its name, and their sums, which are what the matrix
 * shows (every byte counted by the receiver of its direction). */
static json_t *
ts_combine_both(json_t *fwd, json_t *rev)
{
    uint64_t bytes = ns_json_u64(fwd, "bytes") + ns_json_u64(rev, "bytes");
    uint64_t sbytes = ns_json_u64(fwd, "sender_bytes") + ns_json_u64(rev, "sender_bytes");
    uint64_t retr = ns_json_u64(fwd, "retransmits") + ns_json_u64(rev, "retransmits");
    json_t *iv =
        ns_intervals_sum(json_object_get(fwd, "intervals"), json_object_get(rev, "intervals"));
    return json_pack("{s:f, s:I, s:I, s:I, s:f, s:o, s:o, s:o}", TESTSPEC_KEY_THROUGHPUT,
                     ts_num(fwd, TESTSPEC_KEY_THROUGHPUT) + ts_num(rev, TESTSPEC_KEY_THROUGHPUT),
                     "bytes", (json_int_t)bytes, "sender_bytes", (json_int_t)sbytes, "retransmits",
                     (json_int_t)retr, "duration_s",
                     fmax(ts_num(fwd, "duration_s"), ts_num(rev, "duration_s")), "intervals", iv,
                     TESTSPEC_DIR_FORWARD, fwd, TESTSPEC_DIR_REVERSE, rev);
}

/* Streams [0, nfwd) forward (the client sent them), the rest reverse, of n. */
static json_t *
ts_combine_split(const json_t *client, const json_t *server, size_t nfwd, size_t n,
                 double interval_s)
{
    json_t *fwd = ts_combine_dir(client, server, 0, nfwd, false, interval_s);
    json_t *rev = ts_combine_dir(server, client, nfwd, n, true, interval_s);
    return ts_combine_both(fwd, rev);
}

static json_t *
ts_combine(const struct ns_test *t, const json_t *client, const json_t *server, const json_t *cpu)
{
    (void)cpu;
    size_t n = json_array_size(json_object_get(client, "streams"));
    if (t->p.bidir)
        return ts_combine_split(client, server, (size_t)t->p.streams, n, t->p.interval_s);
    json_t *o = t->p.reverse ? ts_combine_dir(server, client, 0, n, true, t->p.interval_s)
                             : ts_combine_dir(client, server, 0, n, false, t->p.interval_s);
    json_object_del(o, "thread_cpu_pct"); /* the processes' CPU is this direction's */
    return o;
}

static void
ts_print_dir(const char *name, const json_t *dir, FILE *out)
{
    const json_t *cpu = json_object_get(dir, "thread_cpu_pct");
    fprintf(out, "%s (receiver: %s; data threads' CPU: sender %.1f%%, receiver %.1f%%)\n", name,
            json_string_value(json_object_get(dir, "receiver")), ts_num(cpu, "sender"),
            ts_num(cpu, "receiver"));
    ns_print_stream_table(dir, out);
}

static void
ts_print_human(const struct ns_test *t, const json_t *result, FILE *out)
{
    if (!t->p.bidir) {
        ns_print_stream_table(result, out);
        return;
    }
    ts_print_dir(TESTSPEC_DIR_FORWARD, json_object_get(result, TESTSPEC_DIR_FORWARD), out);
    ts_print_dir(TESTSPEC_DIR_REVERSE, json_object_get(result, TESTSPEC_DIR_REVERSE), out);
    char rate[32];
    fprintf(out, "both directions: %s, %llu retransmits\n",
            units_format_rate(ts_num(result, TESTSPEC_KEY_THROUGHPUT), rate, sizeof rate),
            (unsigned long long)ns_json_u64(result, "retransmits"));
}

static void
ts_cleanup(struct ns_test *t)
{
    ts_state_free(t->kind_state);
    t->kind_state = NULL;
}

/* A sender's end for writing (a blocked send() fails with EPIPE, the receiver reads the rest
 * and then EOF), a receiver's for reading (a blocked recv() returns 0; what the sender still
 * writes until its own DONE is queued, not reset). */
static void
ts_set_stop(const struct ts_state *st)
{
    for (int i = 0; st != NULL && i < st->set.n; i++)
        shutdown(st->set.fds[i], stream_set_sender(&st->set, i) ? SHUT_WR : SHUT_RD);
}

static void
ts_stop(struct ns_test *t)
{
    ts_set_stop(t->kind_state);
}

const struct test_kind ns_kind_tcp_stream = {
    .socktype = SOCK_STREAM,
    .uses_streams = true,
    .sets_ready = true,
    .run = ts_run,
    .stop = ts_stop,
    .mark = ts_mark,
    .local_result = ts_local_result,
    .combine = ts_combine,
    .print_human = ts_print_human,
    .cleanup = ts_cleanup,
};

/* --- tcp_stream.h: the streams as another kind's load ---------------------------------------- */

int
tcp_stream_load_start(struct ns_test *t, uint64_t start_off_ns, uint64_t window_off_ns,
                      struct ts_state **out, struct err *e)
{
    struct ts_state *st;
    int rc = ts_state_new(t->nload, &st, e);
    *out = st;
    if (rc != 0)
        return rc;
    stream_set_init_load(&st->set, t, start_off_ns, window_off_ns);
    st->set.is_load = true;
    rc = ts_state_setup(st, e);
    if (rc == 0)
        rc = stream_set_start(&st->set, st->s, sizeof st->s[0], ts_thread, e);
    return rc;
}

void
tcp_stream_load_mark(struct ts_state *l, enum ns_phase ph)
{
    ts_set_mark(l, ph);
}

void
tcp_stream_load_stop(struct ts_state *l)
{
    ts_set_stop(l);
}

int
tcp_stream_load_join(struct ts_state *l, struct err *e)
{
    if (l == NULL || l->set.threads == NULL)
        return 0;
    return stream_set_join(&l->set, l->s, sizeof l->s[0], e);
}

json_t *
tcp_stream_load_local_json(struct ts_state *l)
{
    return ts_state_json(l);
}

json_t *
tcp_stream_load_combine(const struct ns_params *p, const json_t *client, const json_t *server)
{
    size_t n = json_array_size(json_object_get(client, "streams"));
    size_t nfwd = p->load_direction == TESTSPEC_DIRECTION_FORWARD   ? n
                  : p->load_direction == TESTSPEC_DIRECTION_REVERSE ? 0
                                                                    : n / 2;
    json_t *fwd = ts_combine_dir(client, server, 0, nfwd, false, 0);
    json_t *rev = ts_combine_dir(server, client, nfwd, n, true, 0);
    json_t *o = ts_combine_both(fwd, rev);
    json_object_del(o, "intervals");
    if (nfwd == 0)
        json_object_del(o, TESTSPEC_DIR_FORWARD);
    if (nfwd == n)
        json_object_del(o, TESTSPEC_DIR_REVERSE);
    json_object_set_new(o, "streams", json_integer(p->load_streams));
    json_object_set_new(o, "direction", json_string(testspec_direction_name(p->load_direction)));
    return o;
}

void
tcp_stream_load_free(struct ts_state *l)
{
    ts_state_free(l);
}
