/* control.c - pieces shared by the client and the server: the secret, proofs, hellos of data
 * connections, data sockets, host information. */
#include "nsperf/control.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/errors.h"
#include "common/fileread.h"
#include "common/net.h"
#include "common/sha256.h"
#include "common/text.h"
#include "nsperf/cpu.h"
#include "nsperf/wait.h"

static void
token_trim(struct ns_token *t)
{
    while (t->len > 0) {
        uint8_t c = t->bytes[t->len - 1];
        if (c != '\n' && c != '\r' && c != ' ' && c != '\t')
            break;
        t->len--;
    }
}

int
ns_token_read(const char *path, struct ns_token *t, struct err *e)
{
    char *buf = NULL;
    size_t len = 0;
    int rc = fileread_path(path, sizeof t->bytes, &buf, &len, e);
    if (rc == NS_ETOOBIG)
        return err_set(e, NS_ETOOBIG, "token file '%s' is larger than %d bytes", path,
                       NS_TOKEN_MAX);
    if (rc != 0)
        return err_prefix(e, "cannot read token file '%s'", path);
    memcpy(t->bytes, buf, len);
    t->len = len;
    free(buf);
    token_trim(t);
    if (t->len == 0)
        return err_set(e, NS_EINVAL, "token file '%s' is empty", path);
    return 0;
}

void
ns_auth_proof(const struct ns_token *t, const char *role, const char *server_nonce,
              const char *client_nonce, char out[2 * 32 + 1])
{
    char msg[256];
    int n = snprintf(msg, sizeof msg, "nsperf-auth-v1|%s|%s|%s", role, server_nonce, client_nonce);
    size_t len = n < 0 ? 0 : (size_t)n >= sizeof msg ? sizeof msg - 1 : (size_t)n;
    uint8_t mac[SHA256_LEN];
    sha256_hmac(t->bytes, t->len, msg, len, mac);
    sha256_hex_encode(mac, sizeof mac, out);
}

int
ns_nonce_new(char out[2 * NS_NONCE_LEN + 1], struct err *e)
{
    uint8_t raw[NS_NONCE_LEN];
    if (sha256_random_bytes(raw, sizeof raw) != 0)
        return err_sys(e, NS_EIO, errno, "cannot get random bytes");
    sha256_hex_encode(raw, sizeof raw, out);
    return 0;
}

void
ns_data_hello_encode(uint8_t out[PROTO_DATA_HELLO_LEN], const char magic[4],
                     const uint8_t cookie[PROTO_COOKIE_LEN], uint32_t idx)
{
    memcpy(out, magic, 4);
    memcpy(out + 4, cookie, PROTO_COOKIE_LEN);
    uint8_t *p = out + 4 + PROTO_COOKIE_LEN;
    p[0] = (uint8_t)(idx >> 24);
    p[1] = (uint8_t)(idx >> 16);
    p[2] = (uint8_t)(idx >> 8);
    p[3] = (uint8_t)idx;
}

int
ns_data_hello_decode(const uint8_t buf[PROTO_DATA_HELLO_LEN], const char magic[4],
                     uint8_t cookie[PROTO_COOKIE_LEN], uint32_t *idx)
{
    if (memcmp(buf, magic, 4) != 0)
        return -1;
    memcpy(cookie, buf + 4, PROTO_COOKIE_LEN);
    const uint8_t *p = buf + 4 + PROTO_COOKIE_LEN;
    *idx = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
    return 0;
}

static int
wait_connected(int fd, int timeout_ms, struct err *e)
{
    struct pollfd pfd = {.fd = fd, .events = POLLOUT};
    int rc;
    do
        rc = poll(&pfd, 1, timeout_ms);
    while (rc < 0 && errno == EINTR);
    if (rc == 0)
        return err_set(e, NS_ETIMEDOUT, "connect timed out after %d ms", timeout_ms);
    int soerr = 0;
    socklen_t sl = sizeof soerr;
    if (rc < 0 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) != 0)
        return err_sys(e, NS_ECONNECT, errno, "connect failed");
    if (soerr != 0)
        return err_sys(e, NS_ECONNECT, soerr, "connect failed");
    return 0;
}

int
ns_connect_stream_from(const struct sockaddr_storage *ss, socklen_t len,
                       const struct sockaddr_storage *src, socklen_t srclen, int sock_buf,
                       int timeout_ms, struct err *e)
{
    int fd = socket(ss->ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0)
        return err_sys(e, NS_EIO, errno, "cannot create socket");
    if (sock_buf > 0)
        net_set_bufsize(fd, sock_buf);
    int rc = 0;
    if (srclen > 0 && bind(fd, (const struct sockaddr *)src, srclen) != 0)
        rc = err_sys(e, NS_ECONNECT, errno, "cannot bind the source address");
    if (rc == 0 && connect(fd, (const struct sockaddr *)ss, len) != 0) {
        if (errno != EINPROGRESS)
            rc = err_sys(e, NS_ECONNECT, errno, "connect failed");
        else
            rc = wait_connected(fd, timeout_ms, e);
    }
    if (rc == 0)
        rc = net_set_nonblock(fd, 0) == 0 ? 0 : err_sys(e, NS_EIO, errno, "fcntl");
    if (rc != 0) {
        close(fd);
        return rc;
    }
    return fd;
}

int
ns_udp_bind_shared(const struct sockaddr_storage *ss, socklen_t len, struct err *e)
{
    int fd = socket(ss->ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return err_sys(e, NS_EIO, errno, "cannot create udp socket");
    int one = 1, zero = 0;
    if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) != 0 ||
        setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof one) != 0 ||
        (ss->ss_family == AF_INET6 &&
         setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero) != 0)) {
        int saved = errno;
        close(fd);
        return err_sys(e, NS_EIO, saved, "cannot share the udp port");
    }
    if (bind(fd, (const struct sockaddr *)ss, len) != 0) {
        int saved = errno;
        close(fd);
        return err_sys(e, NS_EIO, saved, "cannot bind udp socket");
    }
    return fd;
}

void
ns_send_error(int fd, const char *msg)
{
    json_t *o = json_pack("{s:s}", "error", msg);
    proto_send(fd, PROTO_ERROR, o, 1000, NULL);
    json_decref(o);
}

void
ns_close_draining(int fd)
{
    shutdown(fd, SHUT_WR);
    char buf[4096];
    for (int i = 0; i < 16 && recv(fd, buf, sizeof buf, MSG_DONTWAIT) > 0; i++)
        ;
    close(fd);
}

int
ns_peer_error(const json_t *payload, const char *who, struct err *e)
{
    const char *text = json_string_value(json_object_get(payload, "error"));
    char safe[NS_ERR_MSG_MAX];
    text_escape(text != NULL ? text : "unspecified error", safe, sizeof safe);
    return err_set(e, NS_EPEER, "%s: %s", who, safe);
}

int
ns_recv_expect(int fd, const char *who, enum proto_type want, uint32_t max_payload, json_t **out,
               int timeout_ms, struct err *e)
{
    enum proto_type type;
    json_t *o = NULL;
    int rc = proto_recv_max(fd, max_payload, &type, &o, timeout_ms, e);
    if (rc == NS_ECLOSED)
        return err_set(e, rc, "%s closed the control connection", who);
    if (rc != 0)
        return err_wrap(e, rc, "waiting for %s", proto_type_name(want));
    if (type == PROTO_ERROR) {
        rc = ns_peer_error(o, who, e);
        json_decref(o);
        return rc;
    }
    if (type != want) {
        json_decref(o);
        return err_set(e, NS_EPROTO, "expected %s from %s, got %s", proto_type_name(want), who,
                       proto_type_name(type));
    }
    if (out != NULL)
        *out = o;
    else
        json_decref(o);
    return 0;
}

json_t *
ns_host_json(void)
{
    struct utsname u;
    if (uname(&u) != 0)
        memset(&u, 0, sizeof u);
    return json_pack("{s:s, s:s, s:i, s:s}", "kernel", u.release, "machine", u.machine, "cpus",
                     cpu_count(), "hostname", u.nodename);
}

/* max(*m, v), whichever thread wins. */
static void
atomic_max_u64(_Atomic uint64_t *m, uint64_t v)
{
    uint64_t cur = atomic_load_explicit(m, memory_order_relaxed);
    while (v > cur && !atomic_compare_exchange_weak_explicit(m, &cur, v, memory_order_relaxed,
                                                             memory_order_relaxed))
        ;
}

void
ns_test_progress_slow(struct ns_test *t, uint64_t now_ns)
{
    uint64_t t0 = atomic_load(&t->measure_start_ns);
    if (t0 == 0 || now_ns < t0 || atomic_load(&t->measure_end_ns) != 0 ||
        atomic_load(&t->gap_closed))
        return; /* outside this side's measured interval, or after the sender's end */
    uint64_t prev = atomic_exchange_explicit(&t->gap_last_ns, now_ns, memory_order_relaxed);
    if (prev < t0) /* the arrival raced MEASURE's own store */
        prev = t0;
    if (now_ns > prev)
        atomic_max_u64(&t->gap_max_ns, now_ns - prev);
    atomic_store_explicit(&t->gap_seen, 1, memory_order_relaxed);
}

void
ns_test_progress_end(struct ns_test *t, uint64_t now_ns)
{
    uint64_t t0 = atomic_load(&t->measure_start_ns);
    if (t0 == 0 || atomic_load(&t->measure_end_ns) != 0)
        return;
    uint64_t last = atomic_load(&t->gap_last_ns);
    if (now_ns > last && last >= t0)
        atomic_max_u64(&t->gap_max_ns, now_ns - last);
    atomic_store(&t->gap_closed, 1);
}

bool
ns_test_longest_gap(const struct ns_test *t, double *seconds)
{
    if (!atomic_load(&t->gap_seen))
        return false;
    *seconds = (double)atomic_load(&t->gap_max_ns) / 1e9;
    return true;
}

void
ns_phase_set(struct ns_test *t, enum ns_phase ph)
{
    bool edge = ph == NS_PHASE_MEASURE || (ph == NS_PHASE_DONE && t->measure_end_ns == 0);
    if (edge && t->kind != NULL && t->kind->mark != NULL &&
        atomic_load_explicit(&t->kind_ready, memory_order_acquire))
        t->kind->mark(t, ph);
    if (ph == NS_PHASE_MEASURE) {
        uint64_t now = clock_now_ns();
        atomic_store(&t->gap_closed, 0);
        atomic_store(&t->gap_max_ns, 0);
        atomic_store(&t->gap_last_ns, now);
        t->measure_start_ns = now;
    }
    if (ph == NS_PHASE_DONE && t->measure_end_ns == 0) {
        uint64_t now = clock_now_ns();
        t->measure_end_ns = now;
        /* The time since the last arrival is a gap too (a stall that lasts to the end), unless
         * the sender's end arrived: then the rest is this side waiting for STOP. */
        uint64_t last = atomic_load(&t->gap_last_ns);
        if (t->measure_start_ns != 0 && now > last && !atomic_load(&t->gap_closed))
            atomic_max_u64(&t->gap_max_ns, now - last);
    }
    ns_word_set(&t->phase, (int)ph);
}

static void *
runner_main(void *arg)
{
    struct ns_runner *r = arg;
    if (!r->k->sets_ready)
        ns_test_set_ready(r->t);
    r->rc = r->k->run(r->t, r->e);
    ns_test_set_ready(r->t);
    ns_word_set(&r->finished, 1);
    return NULL;
}

int
ns_runner_start(struct ns_runner *r, const struct test_kind *k, struct ns_test *t,
                struct err *run_err, struct err *e)
{
    r->k = k;
    r->t = t;
    t->kind = k;
    r->e = run_err;
    r->rc = 0;
    atomic_store(&r->finished, 0);
    int rc = pthread_create(&r->thread, NULL, runner_main, r);
    if (rc != 0)
        return err_sys(e, NS_EIO, rc, "cannot start test thread");
    r->started = true;
    return 0;
}

int
ns_runner_wait_ready(struct ns_runner *r, int timeout_ms, struct err *e)
{
    if (!ns_word_wait_change(&r->t->kind_ready, 0, clock_deadline_ms(timeout_ms)))
        return err_set(e, NS_ETIMEDOUT, "%s was not ready within %d ms", ns_test_name(r->t),
                       timeout_ms);
    return 0;
}

void
ns_runner_stop(struct ns_runner *r)
{
    if (!r->started)
        return;
    ns_phase_set(r->t, NS_PHASE_DONE);
    /* Only once the kind said it is ready may its stop() look at its state. */
    if (r->k->stop != NULL && atomic_load_explicit(&r->t->kind_ready, memory_order_acquire))
        r->k->stop(r->t);
}

bool
ns_runner_finished(const struct ns_runner *r)
{
    return r->started && atomic_load_explicit(&r->finished, memory_order_acquire);
}

int
ns_runner_join(struct ns_runner *r, int timeout_ms, struct err *e)
{
    if (!r->started)
        return 0;
    /* On the monotonic clock, as every interval here: a wall-clock step must not cut the wait
     * short (and leak a kind that was about to stop) or stretch it. pthread_timedjoin_np only
     * knows CLOCK_REALTIME (and ThreadSanitizer does not know pthread_clockjoin_np), so wait
     * for the thread's last act, then join it, which is then immediate. */
    if (!ns_word_wait_change(&r->finished, 0, clock_deadline_ms(timeout_ms)))
        return err_set(e, NS_ETIMEDOUT, "%s did not stop within %d ms", ns_test_name(r->t),
                       timeout_ms);
    pthread_join(r->thread, NULL);
    r->started = false;
    return 0;
}
