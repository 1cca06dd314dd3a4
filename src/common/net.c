#include "common/net.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/errors.h"

int
net_resolve(const char *host, uint16_t port, int family, int socktype, int passive,
            struct sockaddr_storage *ss, socklen_t *sslen, struct err *e)
{
    struct addrinfo hints = {.ai_family = family, .ai_socktype = socktype};
    hints.ai_flags = AI_NUMERICSERV | (passive ? AI_PASSIVE : 0);
    if (passive && host == NULL && family == AF_UNSPEC)
        hints.ai_family = AF_INET6; /* dual-stack listener */
    char portstr[8];
    snprintf(portstr, sizeof portstr, "%u", port);
    struct addrinfo *res = NULL;
    int rc = getaddrinfo(host, portstr, &hints, &res);
    if (rc != 0)
        return err_set(e, NS_ENOTFOUND, "cannot resolve '%s': %s", host ? host : "*",
                       gai_strerror(rc));
    memset(ss, 0, sizeof *ss);
    memcpy(ss, res->ai_addr, res->ai_addrlen);
    *sslen = res->ai_addrlen;
    freeaddrinfo(res);
    return 0;
}

static int
net_bound_socket(const char *host, uint16_t port, int family, int socktype, int sock_buf,
                 struct err *e)
{
    struct sockaddr_storage ss;
    socklen_t sslen = 0;
    int rc = net_resolve(host, port, family, socktype, 1, &ss, &sslen, e);
    if (rc != 0)
        return rc;
    int fd = socket(ss.ss_family, socktype | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return err_sys(e, NS_EIO, errno, "socket");
    int one = 1;
    /* IPv6 only when asked for it (-6), as iperf3 -s -6; dual-stack when the family is open. */
    int v6only = family == AF_INET6;
    rc = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (rc == 0 && ss.ss_family == AF_INET6)
        rc = setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &v6only, sizeof v6only);
    /* Buffers before listen(): accepted sockets inherit them, and the window scale a SYN-ACK
     * announces is chosen from them (tcp(7)); set after accept() they starve the window. */
    if (rc == 0 && sock_buf > 0)
        rc = net_set_bufsize(fd, sock_buf);
    if (rc != 0) {
        int saved = errno;
        close(fd);
        return err_sys(e, NS_EIO, saved, "setsockopt");
    }
    if (bind(fd, (struct sockaddr *)&ss, sslen) != 0) {
        char buf[80];
        int saved = errno;
        close(fd);
        return err_sys(e, NS_EIO, saved, "cannot bind %s", net_addr_str(&ss, buf, sizeof buf));
    }
    return fd;
}
int
net_listen_tcp_buf(const char *host, uint16_t port, int family, int backlog, int sock_buf,
                   struct err *e)
{
    int fd = net_bound_socket(host, port, family, SOCK_STREAM, sock_buf, e);
    if (fd < 0)
        return fd;
    if (listen(fd, backlog) != 0) {
        int saved = errno;
        close(fd);
        return err_sys(e, NS_EIO, saved, "listen");
    }
    return fd;
}
int
net_set_nonblock(int fd, int on)
{
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0)
        return -1;
    fl = on ? fl | O_NONBLOCK : fl & ~O_NONBLOCK;
    return fcntl(fd, F_SETFL, fl);
}
/* Wait for fd to become ready for events before deadline. 0 ready, NS_ETIMEDOUT, NS_EIO. */
static int
net_wait(int fd, short events, uint64_t deadline, struct err *e)
{
    for (;;) {
        struct pollfd pfd = {.fd = fd, .events = events};
        int n = poll(&pfd, 1, clock_ms_until(deadline));
        if (n > 0)
            return 0;
        if (n == 0)
            return err_set(e, NS_ETIMEDOUT, "timed out");
        if (errno != EINTR)
            return err_sys(e, NS_EIO, errno, "poll");
    }
}

int
net_write_full(int fd, const void *buf, size_t len, int timeout_ms, struct err *e)
{
    uint64_t deadline = clock_deadline_ms(timeout_ms);
    const char *p = buf;
    while (len > 0) {
        int rc = net_wait(fd, POLLOUT, deadline, e);
        if (rc != 0)
            return rc == NS_ETIMEDOUT ? err_set(e, rc, "write timed out") : rc;
        ssize_t n = send(fd, p, len, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n < 0) {
            if (errno == EINTR || errno == EAGAIN)
                continue;
            if (errno == EPIPE || errno == ECONNRESET)
                return err_set(e, NS_ECLOSED, "connection closed by peer");
            return err_sys(e, NS_EIO, errno, "write");
        }
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

int
net_read_full(int fd, void *buf, size_t len, int timeout_ms, struct err *e)
{
    uint64_t deadline = clock_deadline_ms(timeout_ms);
    char *p = buf;
    while (len > 0) {
        int rc = net_wait(fd, POLLIN, deadline, e);
        if (rc != 0)
            return rc == NS_ETIMEDOUT ? err_set(e, rc, "read timed out") : rc;
        ssize_t n = recv(fd, p, len, MSG_DONTWAIT);
        if (n == 0)
            return err_set(e, NS_ECLOSED, "connection closed by peer");
        if (n < 0) {
            if (errno == EINTR || errno == EAGAIN)
                continue;
            if (errno == ECONNRESET)
                return err_set(e, NS_ECLOSED, "connection reset by peer");
            return err_sys(e, NS_EIO, errno, "read");
        }
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

char *
net_host_str(const struct sockaddr_storage *ss, char *buf, size_t len)
{
    const void *addr = ss->ss_family == AF_INET6
                           ? (const void *)&((const struct sockaddr_in6 *)ss)->sin6_addr
                           : (const void *)&((const struct sockaddr_in *)ss)->sin_addr;
    if (inet_ntop(ss->ss_family, addr, buf, (socklen_t)len) == NULL)
        snprintf(buf, len, "?");
    return buf;
}

char *
net_addr_str(const struct sockaddr_storage *ss, char *buf, size_t len)
{
    char host[INET6_ADDRSTRLEN];
    net_host_str(ss, host, sizeof host);
    if (ss->ss_family == AF_INET6)
        snprintf(buf, len, "[%s]:%u", host, net_port(ss));
    else
        snprintf(buf, len, "%s:%u", host, net_port(ss));
    return buf;
}

uint16_t
net_port(const struct sockaddr_storage *ss)
{
    if (ss->ss_family == AF_INET6)
        return ntohs(((const struct sockaddr_in6 *)ss)->sin6_port);
    return ntohs(((const struct sockaddr_in *)ss)->sin_port);
}
int
net_set_bufsize(int fd, int bytes)
{
    if (bytes <= 0)
        return 0;
    int rc = setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &bytes, sizeof bytes);
    rc |= setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &bytes, sizeof bytes);
    return rc;
}

int
net_set_timeouts(int fd, int send_ms, int recv_ms)
{
    struct timeval snd = {.tv_sec = send_ms / 1000, .tv_usec = (send_ms % 1000) * 1000};
    struct timeval rcv = {.tv_sec = recv_ms / 1000, .tv_usec = (recv_ms % 1000) * 1000};
    if (send_ms > 0 && setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &snd, sizeof snd) != 0)
        return -1;
    if (recv_ms > 0 && setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &rcv, sizeof rcv) != 0)
        return -1;
    return 0;
}

int
net_set_nodelay(int fd)
{
    int one = 1;
    return setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

int
net_parse_port(const char *s, unsigned min, uint16_t *port)
{
    unsigned v = 0;
    if (s == NULL || *s == '\0')
        return -1;
    for (; *s != '\0'; s++) {
        if (*s < '0' || *s > '9')
            return -1;
        v = v * 10 + (unsigned)(*s - '0');
        if (v > NET_PORT_MAX)
            return -1;
    }
    if (v < min)
        return -1;
    *port = (uint16_t)v;
    return 0;
}
