/* net.h - small socket helpers shared by nsperf and the orchestrator. All blocking operations
 * take a timeout; sockets are created non-blocking where a timeout is needed and left
 * blocking afterwards unless said otherwise. */
#ifndef NS_NET_H
#define NS_NET_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

struct err;

/* Resolve host:port (numeric or name) for family AF_UNSPEC/AF_INET/AF_INET6 and socktype.
 * passive=1 for bind (host may be NULL = any). Fills *ss and *sslen with the first result. */
int net_resolve(const char *host, uint16_t port, int family, int socktype, int passive,
                struct sockaddr_storage *ss, socklen_t *sslen, struct err *e);

/* Create a listening TCP socket bound to host:port (host NULL = any: dual-stack when family is
 * AF_UNSPEC, IPv6 only (IPV6_V6ONLY) when AF_INET6), with SO_SNDBUF/SO_RCVBUF of sock_buf bytes
 * (0 = autotuning) set before listen(), so that accepted connections inherit them and announce
 * a window scale that fits. Returns fd >= 0 or a negative NS_E* code. */
int net_listen_tcp_buf(const char *host, uint16_t port, int family, int backlog, int sock_buf,
                       struct err *e);

/* Write/read exactly len bytes within timeout_ms (total). Return 0, NS_ETIMEDOUT, NS_ECLOSED
 * (EOF before len bytes) or NS_EIO. Work on blocking or non-blocking fds. */
int net_write_full(int fd, const void *buf, size_t len, int timeout_ms, struct err *e);
int net_read_full(int fd, void *buf, size_t len, int timeout_ms, struct err *e);

/* "127.0.0.1:5201" / "[::1]:5201" into buf. Returns buf. */
char *net_addr_str(const struct sockaddr_storage *ss, char *buf, size_t len);
/* Numeric host part only ("::1"). Returns buf. */
char *net_host_str(const struct sockaddr_storage *ss, char *buf, size_t len);
/* Port of ss in host order. */
uint16_t net_port(const struct sockaddr_storage *ss);

/* A TCP or UDP port as people write it: decimal digits only, min..NET_PORT_MAX (min 0 where 0
 * means "any free port", else 1). Returns 0 with *port set, or -1 (*port untouched). The one
 * parser of ports: nsperf -p, the plan's host:port and an inventory's ssh port. */
#define NET_PORT_MAX 65535u
int net_parse_port(const char *s, unsigned min, uint16_t *port);

int net_set_nonblock(int fd, int on);
/* SO_SNDBUF and SO_RCVBUF to bytes (0 = leave the kernel's autotuning alone). */
int net_set_bufsize(int fd, int bytes);
int net_set_nodelay(int fd);
/* SO_SNDTIMEO / SO_RCVTIMEO in milliseconds (0 = leave that one alone). 0 or -1 (errno). */
int net_set_timeouts(int fd, int send_ms, int recv_ms);

#endif
