/* rr_common.c - see rr_common.h. */
#include "nsperf/rr_common.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>

#include "common/array.h"
#include "common/clock.h"
#include "common/errors.h"
#include "common/hist.h"
#include "common/histjson.h"
#include "common/units.h"
#include "nsperf/tcp_stream.h"

int
rr_state_setup(struct ns_test *t, size_t req_len, size_t resp_len, struct err *e)
{
    rr_state_cleanup(t);
    struct rr_state *s = calloc(1, sizeof(*s));
    if (s == NULL)
        return err_set(e, NS_ENOMEM, "cannot allocate rr state");
    s->req_len = req_len;
    s->resp_len = resp_len;
    s->buf_len = req_len > resp_len ? req_len : resp_len;
    s->buf = calloc(1, s->buf_len);
    s->h = hist_new();
    if (s->buf == NULL || s->h == NULL) {
        hist_free(s->h);
        free(s->buf);
        free(s);
        return err_set(e, NS_ENOMEM, "cannot allocate a %zu-byte message buffer", req_len);
    }
    if (t->p.interval_s > 0)
        s->iv_len_ns = (uint64_t)(t->p.interval_s * (double)NS_PER_SEC);
    s->live_fd = -1;
    int prc = pthread_mutex_init(&s->live_mu, NULL);
    if (prc != 0) {
        hist_free(s->h);
        free(s->buf);
        free(s);
        return err_sys(e, NS_EIO, prc, "cannot create a mutex");
    }
    t->kind_state = s;
    return 0;
}

void
rr_state_cleanup(struct ns_test *t)
{
    struct rr_state *s = t->kind_state;
    if (s == NULL)
        return;
    hist_free(s->h);
    hist_free(s->idle_h);
    free(s->buf);
    free(s->iv);
    if (s->load != NULL) {
        tcp_stream_load_join(s->load, NULL); /* joined already, but for a run that failed early */
        tcp_stream_load_free(s->load);
    }
    pthread_mutex_destroy(&s->live_mu);
    free(s);
    t->kind_state = NULL;
}

size_t
rr_request_len(const struct ns_test *t)
{
    return t->p.msg_size > 0 ? (size_t)t->p.msg_size : 1;
}

size_t
rr_response_len(const struct ns_test *t)
{
    return t->p.response_size > 0 ? (size_t)t->p.response_size : rr_request_len(t);
}

/* Append a finished -i sample; on allocation failure the sample is dropped (samples are a
 * convenience, the histogram and the totals stay exact). */
static void
rr_interval_push(struct rr_state *s, const struct rr_interval *iv)
{
    if (ARRAY_GROW(&s->iv, &s->iv_cap, s->niv + 1) != 0)
        return;
    s->iv[s->niv++] = *iv;
}

static void
rr_interval_open(struct rr_state *s, uint64_t start)
{
    memset(&s->cur, 0, sizeof(s->cur));
    s->cur.start_ns = start;
    s->iv_next_ns = start + s->iv_len_ns;
}

/* A transaction belongs to the sample in which it completed. */
static void
rr_interval_add(struct rr_state *s, uint64_t t1, uint64_t d)
{
    while (t1 >= s->iv_next_ns) {
        s->cur.end_ns = s->iv_next_ns;
        rr_interval_push(s, &s->cur);
        rr_interval_open(s, s->iv_next_ns);
    }
    if (s->cur.n == 0 || d < s->cur.min_ns)
        s->cur.min_ns = d;
    if (d > s->cur.max_ns)
        s->cur.max_ns = d;
    s->cur.n++;
    s->cur.sum_ns += d;
}

/* Where the measured interval starts: the control layer's MEASURE instant when it is known and
 * consistent, else the start of the first measured transaction. */
static uint64_t
rr_measure_start(const struct rr_state *s, const struct ns_test *t)
{
    uint64_t ms = t->measure_start_ns;
    if (ms != 0 && s->load != NULL)
        ms += s->loaded_ns; /* the RTT under load is the kind's figure */
    if (ms != 0 && (s->n == 0 || ms <= s->first_t0_ns))
        return ms;
    return s->first_t0_ns;
}

/* Under load, which window a measured transaction begun at t0 falls in: -1 idle, 0 the ramp,
 * 1 the load's (and every transaction without a load). */
static int
rr_window(const struct rr_state *s, const struct ns_test *t, uint64_t t0)
{
    uint64_t m = atomic_load(&t->measure_start_ns);
    if (s->load == NULL || m == 0 || t0 < m)
        return 1;
    return t0 - m < s->idle_end_ns ? -1 : t0 - m < s->loaded_ns ? 0 : 1;
}

void
rr_record(struct rr_state *s, struct ns_test *t, int phase0, uint64_t t0, uint64_t t1)
{
    uint64_t d = t1 - t0;
    s->all_n++;
    s->all_sum_ns += d;
    if (phase0 != NS_PHASE_MEASURE) {
        s->warmup_n++;
        return;
    }
    int w = rr_window(s, t, t0);
    if (w < 0) {
        hist_record(s->idle_h, d);
        s->idle_n++;
        return;
    }
    if (w == 0) {
        s->ramp_n++;
        return;
    }
    if (s->n == 0) {
        s->first_t0_ns = t0;
        if (s->iv_len_ns)
            rr_interval_open(s, rr_measure_start(s, t));
    }
    hist_record(s->h, d);
    s->n++;
    s->last_t1_ns = t1;
    ns_test_progress(t, t1);
    if (s->iv_len_ns)
        rr_interval_add(s, t1, d);
}

/* The stub of a sample that DONE cut short (the control layer stops a little after the last
 * boundary) goes into the sample before it, as iperf3 does, instead of a noisy rate from a
 * millisecond of traffic. */
static void
rr_interval_fold(struct rr_interval *last, const struct rr_interval *tail)
{
    last->end_ns = tail->end_ns;
    if (tail->n == 0)
        return;
    if (last->n == 0 || tail->min_ns < last->min_ns)
        last->min_ns = tail->min_ns;
    if (tail->max_ns > last->max_ns)
        last->max_ns = tail->max_ns;
    last->n += tail->n;
    last->sum_ns += tail->sum_ns;
}

/* The samples tile the measured interval to its end: samples after the last completed
 * transaction, in which nothing completed (the client stalled, the path went dark), are samples
 * of 0 transactions, not missing ones. Without this a stall from 0.32 s to DONE at 0.5 s left 4
 * samples of 0.1 s for a 0.5 s interval, and hid the outage a user asks -i to show. */
static void
rr_interval_close_empty(struct rr_state *s)
{
    while (s->end_ns > s->iv_next_ns) {
        s->cur.end_ns = s->iv_next_ns;
        rr_interval_push(s, &s->cur);
        rr_interval_open(s, s->iv_next_ns);
    }
}

void
rr_finish(struct rr_state *s, const struct ns_test *t)
{
    s->start_ns = rr_measure_start(s, t);
    s->end_ns = s->last_t1_ns;
    if (t->measure_end_ns > s->end_ns)
        s->end_ns = t->measure_end_ns;
    if (s->start_ns == 0 || s->end_ns < s->start_ns)
        s->end_ns = s->start_ns;
    if (s->iv_len_ns && s->n > 0)
        rr_interval_close_empty(s);
    if (s->iv_len_ns && s->n > 0 && (s->cur.n > 0 || s->end_ns > s->cur.start_ns)) {
        s->cur.end_ns = s->end_ns > s->cur.start_ns ? s->end_ns : s->cur.start_ns;
        if (s->cur.end_ns > s->iv_next_ns)
            s->cur.end_ns = s->iv_next_ns;
        if (s->niv > 0 && s->cur.end_ns - s->cur.start_ns < s->iv_len_ns / 10)
            rr_interval_fold(&s->iv[s->niv - 1], &s->cur);
        else
            rr_interval_push(s, &s->cur);
        memset(&s->cur, 0, sizeof(s->cur));
    }
}

static bool
rr_is_done(const struct ns_test *t)
{
    return ns_test_phase(t) == NS_PHASE_DONE;
}

int
rr_set_wake_timeouts(int fd, struct err *e)
{
    struct timeval tv = {.tv_sec = 0, .tv_usec = RR_WAKE_MS * 1000};
    if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0 ||
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) < 0)
        return err_sys(e, NS_EIO, errno, "cannot set socket timeouts");
    return 0;
}

ssize_t
rr_recv(const struct ns_test *t, int fd, void *buf, size_t len, int flags)
{
    if (!t->p.busy_poll)
        return recv(fd, buf, len, flags);
    /* Spin as sockperf --nonblocked does: no sleep, so no wake-up on the path; the phase is
     * looked at on every turn, so DONE ends the spin at once. */
    for (;;) {
        ssize_t k = recv(fd, buf, len, (flags & ~MSG_WAITALL) | MSG_DONTWAIT);
        if (k >= 0 || errno != EAGAIN || rr_is_done(t))
            return k;
    }
}

int
rr_send_all(const struct ns_test *t, int fd, const void *buf, size_t len, struct err *e)
{
    const uint8_t *p = buf;
    size_t done = 0;
    while (done < len) {
        ssize_t k = send(fd, p + done, len - done, MSG_NOSIGNAL);
        if (k >= 0) {
            done += (size_t)k;
            continue;
        }
        if (errno == EINTR)
            continue;
        if (errno == EAGAIN) {
            if (rr_is_done(t))
                return RR_DONE;
            continue;
        }
        if (rr_is_done(t))
            return RR_DONE; /* stop() shut the socket down */
        if (errno == EPIPE || errno == ECONNRESET)
            return err_sys(e, NS_ECLOSED, errno, "data connection closed while sending");
        return err_sys(e, NS_EIO, errno, "cannot send on the data connection");
    }
    return 0;
}

int
rr_recv_all(const struct ns_test *t, int fd, void *buf, size_t len, struct err *e)
{
    uint8_t *p = buf;
    size_t done = 0;
    while (done < len) {
        /* MSG_WAITALL: one syscall for the whole message in the common case; a wake timeout
         * still returns what has arrived so far. Busy polling never sleeps in the kernel. */
        ssize_t k = rr_recv(t, fd, p + done, len - done, MSG_WAITALL);
        if (k > 0) {
            done += (size_t)k;
            continue;
        }
        if (k < 0 && errno == EINTR)
            continue;
        if (rr_is_done(t))
            return RR_DONE; /* also the EOF of stop()'s shutdown */
        if (k == 0)
            return err_set(e, NS_ECLOSED, "data connection closed by peer");
        if (errno == EAGAIN)
            continue;
        if (errno == ECONNRESET)
            return err_sys(e, NS_ECLOSED, errno, "data connection reset");
        return err_sys(e, NS_EIO, errno, "cannot receive on the data connection");
    }
    return 0;
}

int
rr_wait_done_after_eof(struct ns_test *t, int grace_ms, const char *what, struct err *e)
{
    uint64_t deadline = clock_deadline_ms(grace_ms);
    for (int ph = ns_test_phase(t); ph != NS_PHASE_DONE && clock_now_ns() < deadline;)
        ph = ns_test_wait_phase(t, ph, deadline);
    if (rr_is_done(t)) {
        err_clear(e);
        return 0;
    }
    if (e != NULL && e->code != NS_OK)
        return err_prefix(e, "%s went away mid-test", what);
    return err_set(e, NS_ECLOSED, "%s went away mid-test", what);
}

void
rr_stop_fds(struct ns_test *t, int how)
{
    for (int i = 0; i < t->nfds - t->nload; i++)
        if (t->fds[i] >= 0)
            shutdown(t->fds[i], how);
    const struct rr_state *s = t->kind_state;
    if (s != NULL && s->load != NULL)
        tcp_stream_load_stop(s->load);
}

/* --- under load ------------------------------------------------------------------------------ */

int
rr_load_start(struct ns_test *t, struct rr_state *s, struct err *e)
{
    if (t->nload == 0)
        return 0;
    double d = t->p.duration_s, quarter = d / 4.0;
    double ramp = t->p.warmup_s < quarter ? t->p.warmup_s : quarter;
    s->idle_end_ns = (uint64_t)(quarter * 1e9);
    s->loaded_ns = (uint64_t)((quarter + ramp) * 1e9);
    if (s->idle_end_ns == 0)
        s->idle_end_ns = 1;
    s->idle_h = hist_new();
    if (s->idle_h == NULL)
        return err_set(e, NS_ENOMEM, "out of memory");
    int rc = tcp_stream_load_start(t, s->idle_end_ns, s->loaded_ns, &s->load, e);
    if (rc != 0 && s->load != NULL) {
        tcp_stream_load_stop(s->load);
        tcp_stream_load_join(s->load, NULL);
    }
    return rc;
}

int
rr_load_join(struct rr_state *s, struct err *e)
{
    return s->load != NULL ? tcp_stream_load_join(s->load, e) : 0;
}

void
rr_mark(struct ns_test *t, enum ns_phase ph)
{
    struct rr_state *s = t->kind_state;
    if (s != NULL && s->load != NULL)
        tcp_stream_load_mark(s->load, ph);
}

bool
rr_live_set(struct rr_state *s, const struct ns_test *t, int fd)
{
    pthread_mutex_lock(&s->live_mu);
    bool ok = !rr_is_done(t); /* rr_live_stop sets DONE before it takes the lock */
    if (ok)
        s->live_fd = fd;
    pthread_mutex_unlock(&s->live_mu);
    return ok;
}

void
rr_live_clear(struct rr_state *s)
{
    pthread_mutex_lock(&s->live_mu);
    s->live_fd = -1;
    pthread_mutex_unlock(&s->live_mu);
}

void
rr_live_stop(struct ns_test *t)
{
    struct rr_state *s = t->kind_state;
    if (s == NULL)
        return;
    pthread_mutex_lock(&s->live_mu);
    if (s->live_fd >= 0)
        shutdown(s->live_fd, SHUT_RDWR);
    pthread_mutex_unlock(&s->live_mu);
}

/* ---- JSON ---- */

static double
rr_elapsed_s(const struct rr_state *s)
{
    return (double)(s->end_ns - s->start_ns) / (double)NS_PER_SEC;
}

static json_t *
rr_intervals_json(const struct rr_state *s)
{
    json_t *a = json_array();
    for (size_t i = 0; a != NULL && i < s->niv; i++) {
        const struct rr_interval *iv = &s->iv[i];
        double len_s = (double)(iv->end_ns - iv->start_ns) / (double)NS_PER_SEC;
        json_t *rtt = json_pack("{s:f,s:f,s:f}", "mean",
                                iv->n ? (double)iv->sum_ns / (double)iv->n / 1e3 : 0.0, "min",
                                (double)iv->min_ns / 1e3, "max", (double)iv->max_ns / 1e3);
        json_t *o =
            json_pack("{s:f,s:f,s:I,s:f,s:o*}", "start_s",
                      (double)(iv->start_ns - s->start_ns) / (double)NS_PER_SEC, "end_s",
                      (double)(iv->end_ns - s->start_ns) / (double)NS_PER_SEC, "transactions",
                      (json_int_t)iv->n, TESTSPEC_KEY_TRANSACTIONS,
                      len_s > 0 ? (double)iv->n / len_s : 0.0, HISTJSON_RTT, iv->n ? rtt : NULL);
        if (iv->n == 0)
            json_decref(rtt);
        json_array_append_new(a, o);
    }
    return a;
}

static json_t *
rr_udp_json(const struct rr_udp *u)
{
    return json_pack("{s:I,s:I,s:I,s:I,s:I,s:I,s:f,s:f}", "sent", (json_int_t)u->sent, "received",
                     (json_int_t)u->received, "lost", (json_int_t)u->lost, "out_of_order",
                     (json_int_t)u->out_of_order, "duplicated", (json_int_t)u->duplicated, "bad",
                     (json_int_t)u->bad, "jitter_us", u->jitter_ns / 1e3, "loss_timeout_ms",
                     (double)u->loss_timeout_ns / (double)NS_PER_MS);
}

json_t *
rr_local_json(struct ns_test *t)
{
    const struct rr_state *s = t->kind_state;
    bool client = t->role == NS_ROLE_CLIENT;
    json_t *o = json_pack("{s:s}", "role", client ? "client" : "server");
    if (o == NULL || s == NULL)
        return o;
    json_object_set_new(o, "transactions", json_integer((json_int_t)s->n));
    json_object_set_new(o, "warmup_transactions", json_integer((json_int_t)s->warmup_n));
    json_object_set_new(o, "request_bytes", json_integer((json_int_t)s->req_len));
    json_object_set_new(o, "response_bytes", json_integer((json_int_t)s->resp_len));
    if (s->is_udp)
        json_object_set_new(o, "udp", rr_udp_json(&s->udp));
    if (s->load != NULL)
        json_object_set_new(o, TESTSPEC_KEY_LOAD, tcp_stream_load_local_json(s->load));
    if (!client)
        return o;
    if (s->load != NULL) {
        double idle_s = (double)s->idle_end_ns / 1e9;
        json_object_set_new(o, TESTSPEC_KEY_IDLE_RTT, hist_to_rtt_json(s->idle_h));
        json_object_set_new(o, "idle",
                            json_pack("{s:I, s:f, s:f, s:I, s:f, s:f}", "transactions",
                                      (json_int_t)s->idle_n, "duration_s", idle_s,
                                      TESTSPEC_KEY_TRANSACTIONS,
                                      idle_s > 0 ? (double)s->idle_n / idle_s : 0.0,
                                      "ramp_transactions", (json_int_t)s->ramp_n, "load_start_s",
                                      idle_s, "loaded_start_s", (double)s->loaded_ns / 1e9));
    }
    double el = rr_elapsed_s(s);
    json_object_set_new(o, "elapsed_s", json_real(el));
    json_object_set_new(o, TESTSPEC_KEY_TRANSACTIONS, json_real(el > 0 ? (double)s->n / el : 0.0));
    json_object_set_new(o, HISTJSON_RTT, hist_to_rtt_json(s->h));
    if (s->iv_len_ns)
        json_object_set_new(o, "intervals", rr_intervals_json(s));
    if (s->is_crr)
        json_object_set_new(o, "connect_retries", json_integer((json_int_t)s->connect_retries));
    return o;
}

static json_int_t
rr_jint(const json_t *o, const char *key)
{
    return json_integer_value(json_object_get(o, key));
}

static double
rr_jnum(const json_t *o, const char *key)
{
    return json_number_value(json_object_get(o, key));
}

static void
rr_copy_key(json_t *dst, const char *dkey, const json_t *src, const char *skey)
{
    json_t *v = json_object_get(src, skey);
    if (v != NULL)
        json_object_set_new(dst, dkey, json_deep_copy(v));
}

static json_t *
rr_combine_udp(const json_t *client, const json_t *server)
{
    const json_t *cu = json_object_get(client, "udp");
    if (cu == NULL)
        return NULL;
    json_t *u = json_deep_copy(cu);
    const json_t *su = json_object_get(server, "udp");
    if (u != NULL && su != NULL) {
        /* Requests the server answered while it was in MEASURE, and strangers it dropped: lets
         * a reader tell lost requests from lost replies, roughly (phases differ by a RTT). */
        json_object_set_new(u, "server_received", json_integer(rr_jint(su, "received")));
        json_object_set_new(u, "server_bad", json_integer(rr_jint(su, "bad")));
    }
    return u;
}

const struct rr_words rr_transactions = {TESTSPEC_KEY_TRANSACTIONS, "transactions", "Round trip",
                                         "Transactions/s"};

json_t *
rr_combine_as(const struct rr_words *w, const json_t *client, const json_t *server,
              const json_t *cpu)
{
    json_t *r = json_object();
    if (r == NULL)
        return NULL;
    json_int_t n = rr_jint(client, "transactions");
    double el = rr_jnum(client, "elapsed_s");
    json_object_set_new(r, w->rate_key, json_real(el > 0 ? (double)n / el : 0.0));
    json_object_set_new(r, w->count_key, json_integer(n));
    json_object_set_new(r, "duration_s", json_real(el));
    rr_copy_key(r, HISTJSON_RTT, client, HISTJSON_RTT);
    rr_copy_key(r, "request_bytes", client, "request_bytes");
    rr_copy_key(r, "response_bytes", client, "response_bytes");
    rr_copy_key(r, "warmup_transactions", client, "warmup_transactions");
    rr_copy_key(r, "connect_retries", client, "connect_retries");
    json_t *u = rr_combine_udp(client, server);
    if (u != NULL)
        json_object_set_new(r, "udp", u);
    if (server != NULL)
        json_object_set_new(r, "server_transactions",
                            json_integer(rr_jint(server, "transactions")));
    if (cpu != NULL)
        json_object_set_new(r, "cpu", json_deep_copy(cpu));
    rr_copy_key(r, "intervals", client, "intervals");
    return r;
}

json_t *
rr_combine_json(const struct ns_test *t, const json_t *client, const json_t *server,
                const json_t *cpu)
{
    json_t *r = rr_combine_as(&rr_transactions, client, server, cpu);
    const json_t *cl = json_object_get(client, TESTSPEC_KEY_LOAD);
    if (r == NULL || cl == NULL)
        return r;
    rr_copy_key(r, TESTSPEC_KEY_IDLE_RTT, client, TESTSPEC_KEY_IDLE_RTT);
    rr_copy_key(r, "idle", client, "idle");
    json_object_set_new(
        r, TESTSPEC_KEY_LOAD,
        tcp_stream_load_combine(&t->p, cl, json_object_get(server, TESTSPEC_KEY_LOAD)));
    return r;
}

/* ---- human output ---- */

static void
rr_print_pct(FILE *out, const struct hist *h, bool have_hist, const json_t *rtt, double q,
             const char *key)
{
    double v = have_hist ? hist_percentile(h, q) / 1e3 : rr_jnum(rtt, key);
    if (!have_hist && json_object_get(rtt, key) == NULL)
        return;
    fprintf(out, "nsperf: ---> percentile %6.3f = %8.3f\n", q, v);
}

static void
rr_print_percentiles(FILE *out, const json_t *rtt)
{
    /* Read the percentiles from the buckets (sockperf's order: the highest first); fall back
     * to the JSON figures. */
    struct hist *h = hist_new();
    struct err e;
    err_clear(&e);
    bool have_hist = h != NULL && hist_merge_rtt_json(h, rtt, &e) == 0 && h->count > 0;
    fprintf(out, "nsperf: ---> <MAX> observation = %8.3f\n", rr_jnum(rtt, "max"));
    for (size_t i = HISTJSON_NPCT; i-- > 0;)
        rr_print_pct(out, h, have_hist, rtt, histjson_pcts[i].q, histjson_pcts[i].key);
    fprintf(out, "nsperf: ---> <MIN> observation = %8.3f\n", rr_jnum(rtt, "min"));
    hist_free(h);
}

void
rr_print_as(const struct rr_words *w, const json_t *result, FILE *out)
{
    const json_t *rtt = json_object_get(result, HISTJSON_RTT);
    const json_t *u = json_object_get(result, "udp");
    json_int_t n = rr_jint(result, w->count_key);
    json_int_t sent = u ? rr_jint(u, "sent") : n, recvd = u ? rr_jint(u, "received") : n;
    fprintf(out,
            "nsperf: [Valid Duration] RunTime=%.3f sec; SentMessages=%" JSON_INTEGER_FORMAT
            "; ReceivedMessages=%" JSON_INTEGER_FORMAT "\n",
            rr_jnum(result, "duration_s"), sent, recvd);
    json_int_t obs = rr_jint(rtt, "n");
    if (rtt == NULL || obs <= 0) {
        fprintf(out, "nsperf: no transaction completed in the measured interval\n");
        return;
    }
    double mean = rr_jnum(rtt, "mean");
    fprintf(out, "nsperf: ====> avg-rtt=%.3f (std-dev=%.3f)\n", mean, rr_jnum(rtt, "stddev"));
    fprintf(out,
            "nsperf: # dropped messages = %" JSON_INTEGER_FORMAT
            "; # duplicated messages = %" JSON_INTEGER_FORMAT
            "; # out-of-order messages = %" JSON_INTEGER_FORMAT "\n",
            u ? rr_jint(u, "lost") : 0, u ? rr_jint(u, "duplicated") : 0,
            u ? rr_jint(u, "out_of_order") : 0);
    fprintf(out, "nsperf: Summary: %s is %.3f usec\n", w->summary, mean);
    fprintf(out, "nsperf: %s = %.1f\n", w->rate_name, rr_jnum(result, w->rate_key));
    fprintf(out,
            "nsperf: Total %" JSON_INTEGER_FORMAT
            " observations; each percentile contains %.2f observations\n",
            obs, (double)obs / 100.0);
    rr_print_percentiles(out, rtt);
}

/* Under load: the idle RTT beside the one under load, and the load's throughput. */
static void
rr_print_load(const json_t *result, FILE *out)
{
    const json_t *idle = json_object_get(result, TESTSPEC_KEY_IDLE_RTT);
    const json_t *load = json_object_get(result, TESTSPEC_KEY_LOAD);
    const json_t *rtt = json_object_get(result, HISTJSON_RTT);
    char rate[32];
    json_int_t n = rr_jint(load, "streams");
    const char *dir = json_string_value(json_object_get(load, "direction"));
    bool both = dir != NULL && strcmp(dir, TESTSPEC_DIR_BOTH) == 0;
    fprintf(out,
            "nsperf: under load: %" JSON_INTEGER_FORMAT
            " TCP stream%s %s, %s receiver-counted, %" JSON_INTEGER_FORMAT " retransmits\n",
            n, n == 1 ? "" : "s",
            both          ? "each way"
            : dir != NULL ? dir
                          : "?",
            units_format_rate(rr_jnum(load, TESTSPEC_KEY_THROUGHPUT), rate, sizeof rate),
            rr_jint(load, "retransmits"));
    fprintf(out, "nsperf: %-12s %12s %12s %12s %12s\n", "RTT (usec)", "mean", "p50", "p99", "max");
    fprintf(out, "nsperf: %-12s %12.3f %12.3f %12.3f %12.3f\n", "idle", rr_jnum(idle, "mean"),
            rr_jnum(idle, "p50"), rr_jnum(idle, "p99"), rr_jnum(idle, "max"));
    fprintf(out, "nsperf: %-12s %12.3f %12.3f %12.3f %12.3f\n", "under load", rr_jnum(rtt, "mean"),
            rr_jnum(rtt, "p50"), rr_jnum(rtt, "p99"), rr_jnum(rtt, "max"));
}

void
rr_print_human(const struct ns_test *t, const json_t *result, FILE *out)
{
    (void)t;
    rr_print_as(&rr_transactions, result, out);
    if (json_object_get(result, TESTSPEC_KEY_LOAD) != NULL)
        rr_print_load(result, out);
}
