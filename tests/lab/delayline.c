/* nslab_delay - the lab's data path: a user-space delay line between TUN devices.
 *
 * The kernel of the CI machine has no netem, so the one-way delay between two simulated zones is
 * made here: one process owns one TUN device in every host's network namespace, reads each
 * packet the host sends, and writes it into the destination host's TUN device when it is due
 * (arrival + the configured one-way delay of the zone pair).
 *
 * Why it is built this way (measured on a 2-core VM, see tests/lab/README.md):
 *  - one queue per ordered zone pair; every packet of a queue has the same delay, so FIFO order
 *    is deadline order, and the next packet to release is the earliest queue head (EDF);
 *  - sleep on a timerfd (timer slack 1 ns) until SPIN_NS before the due time, then spin on
 *    CLOCK_MONOTONIC while polling the TUN devices without blocking, so that arrivals are still
 *    timestamped on time; longer spinning, busy polling or real-time priority made it worse;
 *  - IFF_VNET_HDR and TSO offloads on: the host stacks hand over GSO super-packets (up to
 *    64 KiB), which pass through unchanged; per-MTU packets cannot reach 800 Mbit/s here.
 *
 * Usage: nslab_delay CONFIG [READY_FILE [STATS_FILE]]
 *   CONFIG lines:  host NETNS IFNAME ZONE IPV4     (a TUN device IFNAME in /run/netns/NETNS)
 *                  delay ZONE_A ZONE_B NANOSECONDS (one way, both directions)
 *                  cut ZONE_A ZONE_B               (drop this pair's packets, both directions)
 *                  # comment
 *   SIGHUP re-reads the delay and cut lines of CONFIG; SIGUSR1 writes statistics to STATS_FILE;
 *   SIGUSR2 resets them; SIGTERM/SIGINT stop. The TUN devices are not persistent: they vanish
 *   with this process, so nothing is left behind by a crash.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#define DL_MAX_HOSTS 128
#define DL_MAX_ZONES 16
#define DL_VNET_HDR 10                   /* sizeof(struct virtio_net_hdr) */
#define DL_BUF_SIZE (128 * 1024)         /* a GSO super-packet is at most 64 KiB + headers */
#define DL_SPIN_NS 100000                /* sleep until 100 us before due, then spin */
#define DL_MAX_QUEUED (64 * 1024 * 1024) /* bytes held at once; more is dropped */
#define DL_READ_BUDGET 64                /* packets read from one device per wake-up */
#define DL_HIST_STEP_NS 100
#define DL_HIST_BUCKETS 10000 /* 100 ns buckets up to 1 ms, the last one is "1 ms or more" */

struct dl_pkt {
    struct dl_pkt *next;
    int64_t due_ns;
    int out_fd;
    size_t len;
    unsigned char data[];
};

struct dl_queue {
    struct dl_pkt *head;
    struct dl_pkt *tail;
};

struct dl_host {
    char netns[64];
    char ifname[IFNAMSIZ];
    int zone;
    uint32_t addr; /* network order */
    int fd;
};

struct dl_stats {
    uint64_t packets;
    uint64_t bytes;
    uint64_t gso_packets;
    uint64_t drop_nohost;
    uint64_t drop_full;
    uint64_t drop_write;
    uint64_t drop_cut;
    uint64_t hist[DL_HIST_BUCKETS];
    int64_t max_err_ns;
};

struct dl_state {
    const char *config;
    const char *stats_file;
    struct dl_host hosts[DL_MAX_HOSTS];
    int nhosts;
    int64_t delay_ns[DL_MAX_ZONES][DL_MAX_ZONES];
    unsigned char cut[DL_MAX_ZONES][DL_MAX_ZONES];
    struct dl_queue queues[DL_MAX_ZONES][DL_MAX_ZONES];
    size_t queued_bytes;
    int epfd;
    int timerfd;
    int sigfd;
    int64_t timer_armed_ns;
    struct dl_stats st;
    unsigned char buf[DL_BUF_SIZE];
};

static int64_t
dl_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void
dl_die(const char *what)
{
    fprintf(stderr, "nslab_delay: %s: %s\n", what, strerror(errno));
    exit(1);
}

static int
dl_parse_host(struct dl_state *s, const char *line)
{
    char netns[64], ifname[IFNAMSIZ], addr[32];
    int zone;
    struct in_addr in;
    if (s->nhosts >= DL_MAX_HOSTS)
        return -1;
    if (sscanf(line, "host %63s %15s %d %31s", netns, ifname, &zone, addr) != 4)
        return -1;
    if (zone < 0 || zone >= DL_MAX_ZONES || inet_pton(AF_INET, addr, &in) != 1)
        return -1;
    struct dl_host *h = &s->hosts[s->nhosts++];
    snprintf(h->netns, sizeof h->netns, "%s", netns);
    snprintf(h->ifname, sizeof h->ifname, "%s", ifname);
    h->zone = zone;
    h->addr = in.s_addr;
    h->fd = -1;
    return 0;
}

static int
dl_parse_delay(struct dl_state *s, const char *line)
{
    int a, b;
    long long ns;
    if (sscanf(line, "delay %d %d %lld", &a, &b, &ns) != 3)
        return -1;
    if (a < 0 || a >= DL_MAX_ZONES || b < 0 || b >= DL_MAX_ZONES || ns < 0 || ns > 10000000000LL)
        return -1;
    s->delay_ns[a][b] = ns;
    s->delay_ns[b][a] = ns;
    return 0;
}

static int
dl_parse_cut(struct dl_state *s, const char *line)
{
    int a, b;
    if (sscanf(line, "cut %d %d", &a, &b) != 2)
        return -1;
    if (a < 0 || a >= DL_MAX_ZONES || b < 0 || b >= DL_MAX_ZONES)
        return -1;
    s->cut[a][b] = 1;
    s->cut[b][a] = 1;
    return 0;
}

/* Reads CONFIG; hosts only when want_hosts (they cannot change while running). */
static int
dl_read_config(struct dl_state *s, int want_hosts)
{
    FILE *f = fopen(s->config, "r");
    char line[256];
    int lineno = 0;
    if (f == NULL) {
        fprintf(stderr, "nslab_delay: cannot open %s: %s\n", s->config, strerror(errno));
        return -1;
    }
    memset(s->delay_ns, 0, sizeof s->delay_ns);
    memset(s->cut, 0, sizeof s->cut);
    while (fgets(line, sizeof line, f) != NULL) {
        int rc = 0;
        lineno++;
        if (strncmp(line, "host ", 5) == 0) {
            if (want_hosts)
                rc = dl_parse_host(s, line);
        } else if (strncmp(line, "delay ", 6) == 0) {
            rc = dl_parse_delay(s, line);
        } else if (strncmp(line, "cut ", 4) == 0) {
            rc = dl_parse_cut(s, line);
        } else if (line[0] != '#' && line[0] != '\n') {
            rc = -1;
        }
        if (rc < 0) {
            fprintf(stderr, "nslab_delay: %s:%d: bad line\n", s->config, lineno);
            fclose(f);
            return -1;
        }
    }
    fclose(f);
    return 0;
}

/* Creates the TUN device of h inside its network namespace, then comes back. */
static void
dl_open_tun(struct dl_host *h, int home_ns)
{
    char path[128];
    snprintf(path, sizeof path, "/run/netns/%s", h->netns);
    int nsfd = open(path, O_RDONLY | O_CLOEXEC);
    if (nsfd < 0)
        dl_die(path);
    if (setns(nsfd, CLONE_NEWNET) < 0)
        dl_die("setns");
    close(nsfd);
    h->fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
    if (h->fd < 0)
        dl_die("/dev/net/tun");
    struct ifreq ifr;
    memset(&ifr, 0, sizeof ifr);
    ifr.ifr_flags = IFF_TUN | IFF_NO_PI | IFF_VNET_HDR;
    snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "%s", h->ifname);
    if (ioctl(h->fd, TUNSETIFF, &ifr) < 0)
        dl_die("TUNSETIFF");
    /* Offloads let the stack hand over GSO super-packets with partial checksums. */
    unsigned long off = TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6;
    if (ioctl(h->fd, TUNSETOFFLOAD, off) < 0)
        dl_die("TUNSETOFFLOAD");
    if (setns(home_ns, CLONE_NEWNET) < 0)
        dl_die("setns home");
}

static void
dl_add_fd(struct dl_state *s, int fd, uint64_t tag)
{
    struct epoll_event ev = {.events = EPOLLIN, .data.u64 = tag};
    if (epoll_ctl(s->epfd, EPOLL_CTL_ADD, fd, &ev) < 0)
        dl_die("epoll_ctl");
}

#define DL_TAG_TIMER 1000u
#define DL_TAG_SIGNAL 1001u

static void
dl_setup(struct dl_state *s)
{
    int home = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
    if (home < 0)
        dl_die("/proc/self/ns/net");
    s->epfd = epoll_create1(EPOLL_CLOEXEC);
    if (s->epfd < 0)
        dl_die("epoll_create1");
    for (int i = 0; i < s->nhosts; i++) {
        dl_open_tun(&s->hosts[i], home);
        dl_add_fd(s, s->hosts[i].fd, (uint64_t)i);
    }
    close(home);
    s->timerfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    if (s->timerfd < 0)
        dl_die("timerfd_create");
    dl_add_fd(s, s->timerfd, DL_TAG_TIMER);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGHUP);
    sigaddset(&set, SIGUSR1);
    sigaddset(&set, SIGUSR2);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    if (sigprocmask(SIG_BLOCK, &set, NULL) < 0)
        dl_die("sigprocmask");
    s->sigfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
    if (s->sigfd < 0)
        dl_die("signalfd");
    dl_add_fd(s, s->sigfd, DL_TAG_SIGNAL);
    /* The default 50 us timer slack would make every timed wake-up late by up to 50 us. */
    if (prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL) < 0)
        dl_die("PR_SET_TIMERSLACK");
}

static int
dl_find_host(const struct dl_state *s, uint32_t addr)
{
    for (int i = 0; i < s->nhosts; i++)
        if (s->hosts[i].addr == addr)
            return i;
    return -1;
}

static void
dl_enqueue(struct dl_state *s, int src, const unsigned char *pkt, size_t len, int64_t now)
{
    const unsigned char *ip = pkt + DL_VNET_HDR;
    if (len < DL_VNET_HDR + 20 || (ip[0] >> 4) != 4) {
        s->st.drop_nohost++; /* IPv6 and others: the lab's data path is IPv4 only */
        return;
    }
    uint32_t dst_addr;
    memcpy(&dst_addr, ip + 16, sizeof dst_addr);
    int dst = dl_find_host(s, dst_addr);
    if (dst < 0) {
        s->st.drop_nohost++;
        return;
    }
    int zs = s->hosts[src].zone, zd = s->hosts[dst].zone;
    if (s->cut[zs][zd]) {
        s->st.drop_cut++; /* a cut link drops silently, as a failed path does */
        return;
    }
    if (s->queued_bytes + len > DL_MAX_QUEUED) {
        s->st.drop_full++;
        return;
    }
    struct dl_pkt *p = malloc(sizeof *p + len);
    if (p == NULL) {
        s->st.drop_full++;
        return;
    }
    p->next = NULL;
    p->due_ns = now + s->delay_ns[zs][zd];
    p->out_fd = s->hosts[dst].fd;
    p->len = len;
    memcpy(p->data, pkt, len);
    struct dl_queue *q = &s->queues[zs][zd];
    if (q->tail != NULL)
        q->tail->next = p;
    else
        q->head = p;
    q->tail = p;
    s->queued_bytes += len;
}

static void
dl_read_host(struct dl_state *s, int i)
{
    for (int n = 0; n < DL_READ_BUDGET; n++) {
        ssize_t r = read(s->hosts[i].fd, s->buf, sizeof s->buf);
        if (r <= 0)
            return; /* EAGAIN: drained; errors are transient on a TUN device */
        dl_enqueue(s, i, s->buf, (size_t)r, dl_now_ns());
    }
}

/* The queue whose head is due first, or NULL when nothing is queued. */
static struct dl_queue *
dl_earliest(struct dl_state *s)
{
    struct dl_queue *best = NULL;
    for (int a = 0; a < DL_MAX_ZONES; a++)
        for (int b = 0; b < DL_MAX_ZONES; b++) {
            struct dl_queue *q = &s->queues[a][b];
            if (q->head != NULL && (best == NULL || q->head->due_ns < best->head->due_ns))
                best = q;
        }
    return best;
}

static void
dl_record(struct dl_stats *st, const struct dl_pkt *p, int64_t err_ns)
{
    size_t b = (size_t)(err_ns / DL_HIST_STEP_NS);
    if (b >= DL_HIST_BUCKETS)
        b = DL_HIST_BUCKETS - 1;
    st->hist[b]++;
    if (err_ns > st->max_err_ns)
        st->max_err_ns = err_ns;
    st->packets++;
    st->bytes += p->len - DL_VNET_HDR;
    if (p->data[1] != 0) /* virtio_net_hdr.gso_type */
        st->gso_packets++;
}

/* Writes every packet that is due; returns the next due time (INT64_MAX when none). */
static int64_t
dl_release(struct dl_state *s)
{
    for (;;) {
        struct dl_queue *q = dl_earliest(s);
        if (q == NULL)
            return INT64_MAX;
        int64_t now = dl_now_ns();
        struct dl_pkt *p = q->head;
        if (p->due_ns > now)
            return p->due_ns;
        if (write(p->out_fd, p->data, p->len) < 0)
            s->st.drop_write++;
        else
            dl_record(&s->st, p, now - p->due_ns);
        q->head = p->next;
        if (q->head == NULL)
            q->tail = NULL;
        s->queued_bytes -= p->len;
        free(p);
    }
}

static int64_t
dl_percentile(const struct dl_stats *st, double frac)
{
    uint64_t total = 0, seen = 0;
    for (size_t b = 0; b < DL_HIST_BUCKETS; b++)
        total += st->hist[b];
    if (total == 0)
        return 0;
    uint64_t want = (uint64_t)(frac * (double)total);
    for (size_t b = 0; b < DL_HIST_BUCKETS; b++) {
        seen += st->hist[b];
        if (seen > want)
            return (int64_t)(b * DL_HIST_STEP_NS + DL_HIST_STEP_NS / 2);
    }
    return (int64_t)(DL_HIST_BUCKETS * DL_HIST_STEP_NS);
}

static void
dl_write_stats(const struct dl_state *s)
{
    if (s->stats_file == NULL)
        return;
    char tmp[512];
    snprintf(tmp, sizeof tmp, "%s.tmp", s->stats_file);
    FILE *f = fopen(tmp, "w");
    if (f == NULL)
        return;
    const struct dl_stats *st = &s->st;
    fprintf(f,
            "packets %llu\nbytes %llu\ngso_packets %llu\ndrop_nohost %llu\ndrop_full %llu\n"
            "drop_write %llu\ndrop_cut %llu\nrelease_err_ns_p50 %lld\nrelease_err_ns_p90 %lld\n"
            "release_err_ns_p99 %lld\nrelease_err_ns_p999 %lld\nrelease_err_ns_max %lld\n",
            (unsigned long long)st->packets, (unsigned long long)st->bytes,
            (unsigned long long)st->gso_packets, (unsigned long long)st->drop_nohost,
            (unsigned long long)st->drop_full, (unsigned long long)st->drop_write,
            (unsigned long long)st->drop_cut, (long long)dl_percentile(st, 0.5),
            (long long)dl_percentile(st, 0.9), (long long)dl_percentile(st, 0.99),
            (long long)dl_percentile(st, 0.999), (long long)st->max_err_ns);
    fclose(f);
    rename(tmp, s->stats_file);
}

/* Returns 1 when the process must stop. */
static int
dl_on_signal(struct dl_state *s)
{
    struct signalfd_siginfo si;
    while (read(s->sigfd, &si, sizeof si) == (ssize_t)sizeof si) {
        switch (si.ssi_signo) {
        case SIGHUP:
            if (dl_read_config(s, 0) < 0)
                fprintf(stderr, "nslab_delay: reload failed, delays now all 0\n");
            break;
        case SIGUSR1:
            dl_write_stats(s);
            break;
        case SIGUSR2:
            memset(&s->st, 0, sizeof s->st);
            break;
        default:
            return 1;
        }
    }
    return 0;
}

static void
dl_arm_timer(struct dl_state *s, int64_t at_ns)
{
    if (at_ns == s->timer_armed_ns)
        return;
    struct itimerspec its;
    memset(&its, 0, sizeof its);
    if (at_ns != INT64_MAX) {
        its.it_value.tv_sec = at_ns / 1000000000;
        its.it_value.tv_nsec = at_ns % 1000000000;
    }
    timerfd_settime(s->timerfd, TFD_TIMER_ABSTIME, &its, NULL);
    s->timer_armed_ns = at_ns;
}

static void
dl_run(struct dl_state *s)
{
    struct epoll_event evs[DL_MAX_HOSTS + 2];
    for (;;) {
        int64_t next = dl_release(s);
        int64_t now = dl_now_ns();
        int timeout = 0; /* spinning: poll without blocking */
        if (next == INT64_MAX || next - now > DL_SPIN_NS) {
            dl_arm_timer(s, next == INT64_MAX ? INT64_MAX : next - DL_SPIN_NS);
            timeout = -1;
        }
        int n = epoll_wait(s->epfd, evs, DL_MAX_HOSTS + 2, timeout);
        if (n < 0 && errno != EINTR)
            dl_die("epoll_wait");
        for (int i = 0; i < n; i++) {
            uint64_t tag = evs[i].data.u64;
            if (tag == DL_TAG_TIMER) {
                uint64_t ticks;
                if (read(s->timerfd, &ticks, sizeof ticks) < 0 && errno != EAGAIN)
                    dl_die("timerfd read");
                s->timer_armed_ns = INT64_MAX;
            } else if (tag == DL_TAG_SIGNAL) {
                if (dl_on_signal(s))
                    return;
            } else {
                dl_read_host(s, (int)tag);
            }
        }
    }
}

static void
dl_free_queues(struct dl_state *s)
{
    for (int a = 0; a < DL_MAX_ZONES; a++)
        for (int b = 0; b < DL_MAX_ZONES; b++) {
            struct dl_pkt *p = s->queues[a][b].head;
            while (p != NULL) {
                struct dl_pkt *next = p->next;
                free(p);
                p = next;
            }
            s->queues[a][b].head = s->queues[a][b].tail = NULL;
        }
    s->queued_bytes = 0;
}

int
main(int argc, char **argv)
{
    static struct dl_state s;
    if (argc < 2 || argc > 4) {
        fprintf(stderr, "usage: nslab_delay CONFIG [READY_FILE [STATS_FILE]]\n");
        return 2;
    }
    s.config = argv[1];
    s.stats_file = argc > 3 ? argv[3] : NULL;
    s.timer_armed_ns = INT64_MAX;
    if (dl_read_config(&s, 1) < 0)
        return 2;
    dl_setup(&s);
    if (argc > 2) {
        FILE *f = fopen(argv[2], "w");
        if (f == NULL)
            dl_die(argv[2]);
        fprintf(f, "%ld\n", (long)getpid());
        fclose(f);
    }
    dl_run(&s);
    dl_write_stats(&s);
    dl_free_queues(&s);
    return 0;
}
