/* cpu.c - process and system-wide CPU use over an interval (see cpu.h). */
#include "nsperf/cpu.h"

#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "common/clock.h"

static uint64_t
timeval_ns(struct timeval tv)
{
    return (uint64_t)tv.tv_sec * NS_PER_SEC + (uint64_t)tv.tv_usec * NS_PER_US;
}

/* First line of /proc/stat: "cpu  user nice system idle iowait irq softirq steal ...". */
static int
read_proc_stat(uint64_t *busy, uint64_t *total)
{
    FILE *f = fopen("/proc/stat", "r");
    if (f == NULL)
        return -1;
    unsigned long long v[8] = {0};
    int n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
                   &v[4], &v[5], &v[6], &v[7]);
    fclose(f);
    if (n < 4)
        return -1;
    *busy = v[0] + v[1] + v[2] + v[5] + v[6] + v[7];
    *total = *busy + v[3] + v[4];
    return 0;
}

void
cpu_snap_take(struct cpu_snap *s)
{
    struct rusage ru;
    memset(s, 0, sizeof *s);
    s->mono_ns = clock_now_ns();
    if (getrusage(RUSAGE_SELF, &ru) == 0)
        s->proc_ns = timeval_ns(ru.ru_utime) + timeval_ns(ru.ru_stime);
    s->ok_sys = read_proc_stat(&s->sys_busy, &s->sys_total) == 0;
}

int
cpu_count(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : (int)n;
}

static double
hz_from_cpuinfo(void)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f == NULL)
        return 0;
    char line[256];
    double mhz = 0;
    while (fgets(line, sizeof line, f) != NULL) {
        if (strncmp(line, "cpu MHz", 7) == 0) {
            const char *colon = strchr(line, ':');
            if (colon != NULL && sscanf(colon + 1, "%lf", &mhz) == 1)
                break;
        }
    }
    fclose(f);
    return mhz > 0 ? mhz * 1e6 : 0;
}

static double
hz_from_cpufreq(void)
{
    FILE *f = fopen("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq", "r");
    if (f == NULL)
        return 0;
    double khz = 0;
    if (fscanf(f, "%lf", &khz) != 1)
        khz = 0;
    fclose(f);
    return khz > 0 ? khz * 1e3 : 0;
}

double
cpu_hz(const char **source)
{
    double hz = hz_from_cpuinfo();
    const char *src = "proc_cpuinfo";
    if (hz <= 0) {
        hz = hz_from_cpufreq();
        src = hz > 0 ? "cpufreq" : "unknown";
    }
    if (source != NULL)
        *source = src;
    return hz;
}

json_t *
cpu_usage_json(const struct cpu_snap *a, const struct cpu_snap *b)
{
    double wall = (double)(b->mono_ns - a->mono_ns) / 1e9;
    double proc = (double)(b->proc_ns - a->proc_ns) / 1e9;
    int cpus = cpu_count();
    const char *src;
    double hz = cpu_hz(&src);
    json_t *o = json_pack("{s:f, s:i, s:f, s:s}", "pct", wall > 0 ? 100.0 * proc / wall : 0.0,
                          "cpus", cpus, "hz", hz, "hz_source", src);
    json_object_set_new(o, "interval_s", json_real(wall));
    if (a->ok_sys && b->ok_sys && b->sys_total > a->sys_total) {
        double share = (double)(b->sys_busy - a->sys_busy) / (double)(b->sys_total - a->sys_total);
        json_object_set_new(o, "system_pct", json_real(100.0 * share));
        json_object_set_new(o, "busy_cpu_s", json_real(share * cpus * wall));
    } else {
        json_object_set_new(o, "system_pct", json_null());
        json_object_set_new(o, "busy_cpu_s", json_null());
    }
    return o;
}

static void
copy_member(json_t *dst, const char *dkey, const json_t *src, const char *skey)
{
    const json_t *v = src != NULL ? json_object_get(src, skey) : NULL;
    json_object_set_new(dst, dkey, v != NULL ? json_deep_copy(v) : json_null());
}

json_t *
cpu_combine_json(const json_t *local, const json_t *remote)
{
    json_t *o = json_object();
    copy_member(o, "local_pct", local, "pct");
    copy_member(o, "remote_pct", remote, "pct");
    copy_member(o, "local_system_pct", local, "system_pct");
    copy_member(o, "remote_system_pct", remote, "system_pct");
    copy_member(o, "local_cpus", local, "cpus");
    copy_member(o, "remote_cpus", remote, "cpus");
    copy_member(o, "local_hz", local, "hz");
    copy_member(o, "remote_hz", remote, "hz");
    copy_member(o, "hz_source", local, "hz_source");
    return o;
}

static json_t *
cycles_per_byte(const json_t *side, double bytes)
{
    const json_t *busy = side != NULL ? json_object_get(side, "busy_cpu_s") : NULL;
    double hz = side != NULL ? json_number_value(json_object_get(side, "hz")) : 0;
    if (!json_is_number(busy) || hz <= 0 || bytes <= 0)
        return json_null();
    return json_real(json_number_value(busy) * hz / bytes);
}

void
cpu_add_cycles_per_byte(json_t *cpu, const json_t *local, const json_t *remote, double bytes)
{
    json_object_set_new(cpu, "cycles_per_byte", cycles_per_byte(local, bytes));
    json_object_set_new(cpu, "remote_cycles_per_byte", cycles_per_byte(remote, bytes));
}

/* nsperf's own CPU time per unit, ns: its share of a core over the interval. */
static json_t *
process_ns_per(const json_t *side, double n)
{
    const json_t *pct = side != NULL ? json_object_get(side, "pct") : NULL;
    double s = side != NULL ? json_number_value(json_object_get(side, "interval_s")) : 0;
    if (!json_is_number(pct) || s <= 0 || n <= 0)
        return json_null();
    return json_real(json_number_value(pct) / 100.0 * s * 1e9 / n);
}

void
cpu_add_per_unit(json_t *cpu, const char *unit, const json_t *local, double local_n,
                 const json_t *remote, double remote_n)
{
    char key[64];
    snprintf(key, sizeof key, "cycles_per_%s", unit);
    json_object_set_new(cpu, key, cycles_per_byte(local, local_n));
    snprintf(key, sizeof key, "remote_cycles_per_%s", unit);
    json_object_set_new(cpu, key, cycles_per_byte(remote, remote_n));
    snprintf(key, sizeof key, "ns_per_%s", unit);
    json_object_set_new(cpu, key, process_ns_per(local, local_n));
    snprintf(key, sizeof key, "remote_ns_per_%s", unit);
    json_object_set_new(cpu, key, process_ns_per(remote, remote_n));
}
