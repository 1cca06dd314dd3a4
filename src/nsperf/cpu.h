/* cpu.h - CPU accounting over the measured interval, as NTTTCP reports it: this process's CPU
 * time (getrusage, all threads) and the system-wide busy share from /proc/stat (user, nice,
 * system, irq, softirq and steal count as busy; idle and iowait do not). */
#ifndef NS_CPU_H
#define NS_CPU_H

#include <stdint.h>

#include <jansson.h>

struct cpu_snap {
    uint64_t mono_ns;  /* CLOCK_MONOTONIC when taken */
    uint64_t proc_ns;  /* user + system CPU time of this process */
    uint64_t sys_busy; /* /proc/stat ticks, all CPUs */
    uint64_t sys_total;
    int ok_sys; /* /proc/stat could be read */
};

/* Take a snapshot now. Never fails: unreadable /proc/stat leaves ok_sys = 0. */
void cpu_snap_take(struct cpu_snap *s);

/* Online CPUs (>= 1). */
int cpu_count(void);

/* CPU clock in Hz and where it came from ("proc_cpuinfo" cpu MHz, "cpufreq" max frequency);
 * 0 and "unknown" when neither can be read. */
double cpu_hz(const char **source);

/* One side's usage between a and b (new reference):
 *   {"pct": process CPU % of one core (200 = two cores busy), "system_pct": system-wide busy %
 *    of all CPUs, "cpus": n, "busy_cpu_s": system busy CPU-seconds, "hz": clock,
 *    "hz_source": "...", "interval_s": seconds} */
json_t *cpu_usage_json(const struct cpu_snap *a, const struct cpu_snap *b);

/* The final "cpu" object from both sides' usage objects (borrowed; remote may be NULL):
 * {local_pct, remote_pct, local_system_pct, remote_system_pct, local_cpus, remote_cpus,
 *  local_hz, remote_hz, hz_source}. New reference. */
json_t *cpu_combine_json(const json_t *local, const json_t *remote);

/* Add cycles_per_byte (client side's busy cycles / bytes, NTTTCP's definition: busy CPU-seconds
 * x Hz / bytes) and remote_cycles_per_byte to cpu for a transfer of bytes. */
void cpu_add_cycles_per_byte(json_t *cpu, const json_t *local, const json_t *remote, double bytes);

/* Add what each side spent per unit (udp_pps: "packet") of what it handled (local_n, remote_n:
 * a sender's sent, a receiver's received): cycles_per_<unit> and remote_cycles_per_<unit> (busy
 * cycles, as cycles_per_byte), ns_per_<unit> and remote_ns_per_<unit> (nsperf's own CPU time);
 * null where a side's figures or count are missing. */
void cpu_add_per_unit(json_t *cpu, const char *unit, const json_t *local, double local_n,
                      const json_t *remote, double remote_n);

#endif
