/* cloud_http.c - one HTTP/1.1 request to the metadata address, bounded in every step (cloud.h):
 * a non-blocking connect, write and read, each waiting in poll() for no longer than what is
 * left of the caller's deadline (CLOCK_MONOTONIC); the response read up to CLOUD_RESPONSE_MAX
 * and no further. The socket dials CLOUD_ADDRESS itself: no proxy variable is read (the three
 * clouds document that a proxy must not be used for their metadata), no name is resolved. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/errors.h"
#include "nsperf/cloud_http.h"

/* Wait for events on fd until deadline; false when the time ran out or poll failed. */
static bool
wait_fd(int fd, short events, uint64_t deadline_ns)
{
    for (;;) {
        int ms = clock_ms_until(deadline_ns);
        if (ms <= 0)
            return false;
        struct pollfd p = {.fd = fd, .events = events};
        int n = poll(&p, 1, ms);
        if (n > 0)
            return true;
        if (n < 0 && errno != EINTR)
            return false;
    }
}

static int
dial(uint64_t deadline_ns)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(CLOUD_PORT)};
    inet_pton(AF_INET, CLOUD_ADDRESS, &sa.sin_addr);
    if (connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0)
        return fd;
    int err = errno;
    socklen_t elen = sizeof err;
    if (err == EINPROGRESS && wait_fd(fd, POLLOUT, deadline_ns) &&
        getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &elen) == 0 && err == 0)
        return fd;
    close(fd);
    return -1;
}

static bool
send_all(int fd, const char *buf, size_t len, uint64_t deadline_ns)
{
    while (len > 0) {
        ssize_t n = send(fd, buf, len, MSG_NOSIGNAL);
        if (n > 0) {
            buf += n;
            len -= (size_t)n;
        } else if (n < 0 && errno != EAGAIN && errno != EINTR) {
            return false;
        } else if (!wait_fd(fd, POLLOUT, deadline_ns)) {
            return false;
        }
    }
    return true;
}

/* Read until the peer closes, the response is complete, the cap is reached (an error) or the
 * deadline passes (an error). */
static bool
recv_response(int fd, char *buf, size_t cap, size_t *len, uint64_t deadline_ns)
{
    *len = 0;
    for (;;) {
        if (*len == cap)
            return false;
        ssize_t n = recv(fd, buf + *len, cap - *len, 0);
        if (n == 0)
            return true;
        if (n > 0) {
            *len += (size_t)n;
            if (cloud_http_complete(buf, *len))
                return true;
        } else if (errno != EAGAIN && errno != EINTR) {
            return false;
        } else if (!wait_fd(fd, POLLIN, deadline_ns)) {
            return false;
        }
    }
}

int
cloud_http_request(const char *method, const char *path, const char *headers, uint64_t deadline_ns,
                   char *buf, size_t cap, struct cloud_http_resp *resp)
{
    char req[1024];
    int n =
        snprintf(req, sizeof req,
                 "%s %s HTTP/1.1\r\nHost: " CLOUD_ADDRESS "\r\nUser-Agent: nsperf/" NS_VERSION
                 "\r\nAccept: */*\r\n%sConnection: close\r\n%s\r\n",
                 method, path, headers, strcmp(method, "PUT") == 0 ? "Content-Length: 0\r\n" : "");
    if (n < 0 || (size_t)n >= sizeof req)
        return NS_EINVAL;
    int fd = dial(deadline_ns);
    if (fd < 0)
        return NS_ECONNECT;
    size_t len = 0;
    bool ok =
        send_all(fd, req, (size_t)n, deadline_ns) && recv_response(fd, buf, cap, &len, deadline_ns);
    close(fd);
    if (!ok)
        return clock_ms_until(deadline_ns) <= 0 ? NS_ETIMEDOUT : NS_EIO;
    return cloud_http_parse(buf, len, resp);
}
