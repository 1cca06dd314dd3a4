/* tcpinfo.h - the few TCP_INFO fields nsperf reports (Linux). */
#ifndef NS_TCPINFO_H
#define NS_TCPINFO_H

#include <stdbool.h>
#include <stdint.h>

struct tcpinfo_snap {
    uint32_t total_retrans;  /* tcpi_total_retrans: segments retransmitted over the life */
    uint32_t rtt_us;         /* smoothed RTT */
    uint32_t snd_cwnd;       /* segments */
    uint64_t bytes_received; /* tcpi_bytes_received: in-order payload TCP took in (Linux 4.1+),
                              * without the sequence number a received FIN takes */
    bool has_bytes_received; /* the kernel filled it */
    bool fin_in;             /* the peer's FIN has come in (tcpi_state) */
};

/* Read TCP_INFO of fd. Returns 0 or -1 (not a TCP socket, closed). */
int tcpinfo_read(int fd, struct tcpinfo_snap *out);
/* tcpi_bytes_received of fd without the FIN, also when the FIN races the read: 0, or -1 (not
 * TCP, or a kernel before 4.1). */
int tcpinfo_bytes_received(int fd, uint64_t *out);

#endif
