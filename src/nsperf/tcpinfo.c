/* tcpinfo.c - TCP_INFO access. */
#include "nsperf/tcpinfo.h"

#include <linux/tcp.h> /* glibc's struct tcp_info stops before tcpi_bytes_received */
#include <netinet/in.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>

/* tcpi_state's values after a FIN came in (the kernel's include/net/tcp_states.h; linux/tcp.h
 * does not export them, and glibc's copy clashes with its struct tcp_info). */
enum { TI_TIME_WAIT = 6, TI_CLOSE_WAIT = 8, TI_LAST_ACK = 9, TI_CLOSING = 11 };

int
tcpinfo_read(int fd, struct tcpinfo_snap *out)
{
    struct tcp_info ti;
    socklen_t len = sizeof ti;
    memset(&ti, 0, sizeof ti);
    memset(out, 0, sizeof *out);
    if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len) != 0)
        return -1;
    out->total_retrans = ti.tcpi_total_retrans;
    out->rtt_us = ti.tcpi_rtt;
    out->snd_cwnd = ti.tcpi_snd_cwnd;
    out->has_bytes_received =
        len >= offsetof(struct tcp_info, tcpi_bytes_received) + sizeof ti.tcpi_bytes_received;
    out->bytes_received = out->has_bytes_received ? ti.tcpi_bytes_received : 0;
    /* The kernel counts the peer's FIN as a byte (rcv_nxt moves past it). */
    out->fin_in = ti.tcpi_state == TI_CLOSE_WAIT || ti.tcpi_state == TI_LAST_ACK ||
                  ti.tcpi_state == TI_CLOSING || ti.tcpi_state == TI_TIME_WAIT;
    if (out->fin_in && out->bytes_received > 0)
        out->bytes_received--;
    return 0;
}

int
tcpinfo_bytes_received(int fd, uint64_t *out)
{
    struct tcpinfo_snap a, b;
    if (tcpinfo_read(fd, &a) != 0 || !a.has_bytes_received)
        return -1;
    *out = a.bytes_received;
    /* The kernel loads tcpi_state before it locks the socket for the counters, so a FIN that
     * came in between is in the count but not in the state: the next read's state tells. (A
     * FIN just after the count makes it one short, never one over.) */
    if (!a.fin_in && tcpinfo_read(fd, &b) == 0 && b.fin_in && *out > 0)
        (*out)--;
    return 0;
}
