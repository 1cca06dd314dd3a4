/* tcpinfo.c - TCP_INFO access. */
#include "nsperf/tcpinfo.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <string.h>
#include <sys/socket.h>

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
    return 0;
}
