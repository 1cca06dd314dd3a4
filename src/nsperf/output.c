/* output.c - the one JSON document of -J and the human-readable report. */
#include <string.h>

#include "common/units.h"
#include "nsperf/control.h"

static json_t *
or_null(const json_t *v)
{
    return v != NULL ? json_deep_copy(v) : json_null();
}

json_t *
ns_doc_json(const struct ns_doc *d)
{
    const struct test_kind *k = ns_kind_get(d->p->kind);
    json_t *doc = json_object();
    json_object_set_new(doc, "version", json_string(NS_VERSION));
    json_object_set_new(doc, "tool", json_string("nsperf"));
    json_object_set_new(doc, "test", json_string(k != NULL ? k->name : "unknown"));
    json_object_set_new(doc, "server", json_string(d->server != NULL ? d->server : ""));
    json_object_set_new(doc, "params", ns_params_to_json(d->p));
    json_object_set_new(doc, "start", json_string(d->start != NULL ? d->start : ""));
    json_object_set_new(doc, "end", json_string(d->end != NULL ? d->end : ""));
    json_object_set_new(doc, "host",
                        json_pack("{s:o, s:o}", "local", or_null(d->local_host), "remote",
                                  or_null(d->remote_host)));
    json_object_set_new(doc, "result", or_null(d->result));
    json_object_set_new(doc, "cpu", or_null(d->cpu));
    json_object_set_new(doc, "error", d->error != NULL ? json_string(d->error) : json_null());
    return doc;
}

static double
num(const json_t *o, const char *key)
{
    return json_number_value(json_object_get(o, key));
}

static void
print_cpu(const json_t *cpu, FILE *out)
{
    if (cpu == NULL)
        return;
    /* Process % is of one core (as top shows it); system % is of all the host's CPUs. */
    fprintf(out,
            "cpu: local nsperf %.1f%% of a core (host %.1f%% of %d cpus), "
            "remote nsperf %.1f%% (host %.1f%% of %d cpus)",
            num(cpu, "local_pct"), num(cpu, "local_system_pct"), (int)num(cpu, "local_cpus"),
            num(cpu, "remote_pct"), num(cpu, "remote_system_pct"), (int)num(cpu, "remote_cpus"));
    const json_t *cpb = json_object_get(cpu, "cycles_per_byte");
    if (json_is_number(cpb))
        fprintf(out, ", %.2f cycles/byte", json_number_value(cpb));
    fputc('\n', out);
}

void
ns_doc_print_human(const struct ns_doc *d, const struct ns_test *t, FILE *out)
{
    const struct test_kind *k = ns_kind_get(d->p->kind);
    fprintf(out, "nsperf %s: %s to %s, %g s measured after %g s warmup", NS_VERSION,
            k != NULL ? k->name : "?", d->server != NULL ? d->server : "?", d->p->duration_s,
            d->p->warmup_s);
    if (k != NULL && k->uses_streams)
        fprintf(out, ", %d stream%s%s", d->p->streams, d->p->streams == 1 ? "" : "s",
                d->p->reverse ? ", reverse" : "");
    fputc('\n', out);
    if (d->error != NULL)
        return; /* main() reports it on stderr */
    if (k != NULL && k->print_human != NULL && d->result != NULL)
        k->print_human(t, d->result, out);
    print_cpu(d->cpu, out);
}

uint64_t
ns_json_u64(const json_t *o, const char *key)
{
    json_int_t v = json_integer_value(json_object_get(o, key));
    return v < 0 ? 0 : (uint64_t)v;
}

size_t
ns_interval_bins(const struct ns_params *p)
{
    if (p->interval_s <= 0)
        return 0;
    double n = p->duration_s / p->interval_s + 2;
    return n > 1e6 ? 1000000 : (size_t)n;
}

json_t *
ns_intervals_json(const json_t *streams, double interval_s, double elapsed_s)
{
    json_t *out = json_array();
    if (interval_s <= 0)
        return out;
    for (size_t k = 0;; k++) {
        double start = (double)k * interval_s;
        if (start >= elapsed_s - 1e-9)
            break;
        double end = start + interval_s < elapsed_s ? start + interval_s : elapsed_s;
        /* DONE lands just after the last boundary: fold that sliver into the last sample. */
        if (elapsed_s - end < 0.25 * interval_s)
            end = elapsed_s;
        uint64_t bytes = 0;
        size_t i;
        const json_t *st;
        json_array_foreach(streams, i, st)
        {
            const json_t *a = json_object_get(st, "intervals");
            bool last = end >= elapsed_s; /* takes every later bin, however late */
            for (size_t j = k;
                 j < json_array_size(a) && (last || (double)j * interval_s < end - 1e-9); j++) {
                json_int_t v = json_integer_value(json_array_get(a, j));
                bytes += v > 0 ? (uint64_t)v : 0;
            }
        }
        json_array_append_new(out, json_pack("{s:f, s:f, s:I, s:f}", "start_s", start, "end_s", end,
                                             "bytes", (json_int_t)bytes, "throughput_bps",
                                             (double)bytes * 8.0 / (end - start)));
        if (end >= elapsed_s)
            break;
    }
    return out;
}

static void
print_row(FILE *out, const char *id, const json_t *o)
{
    char rate[32], bytes[32];
    units_format_rate(num(o, "throughput_bps"), rate, sizeof rate);
    units_format_bytes(num(o, "bytes"), bytes, sizeof bytes);
    fprintf(out, "[%5s]  %12s  %14s", id, bytes, rate);
    const json_t *udp = json_object_get(o, "udp");
    if (udp != NULL)
        fprintf(out, "  %10.3f ms  %8llu/%-10llu (%.3g%%)", num(udp, "jitter_us") / 1000.0,
                (unsigned long long)ns_json_u64(udp, "lost"),
                (unsigned long long)ns_json_u64(udp, "sent"), num(udp, "lost_pct"));
    else
        fprintf(out, "  %8llu", (unsigned long long)ns_json_u64(o, "retransmits"));
    fputc('\n', out);
}

void
ns_print_stream_table(const json_t *result, FILE *out)
{
    const json_t *streams = json_object_get(result, "streams");
    bool udp = json_object_get(result, "udp") != NULL;
    fprintf(out, "[%5s]  %12s  %14s", "ID", "Transfer", "Throughput");
    if (udp)
        fprintf(out, "  %13s  %s\n", "Jitter", "Lost/Sent");
    else
        fprintf(out, "  %8s\n", "Retr");
    size_t i;
    const json_t *st;
    json_array_foreach(streams, i, st)
    {
        char id[24];
        snprintf(id, sizeof id, "%zu", i);
        print_row(out, id, st);
    }
    print_row(out, "SUM", result);
    fprintf(out, "receiver-counted over %.3f s\n", num(result, "duration_s"));
}

json_t *
ns_bins_json(const uint64_t *bins, size_t n)
{
    json_t *a = json_array();
    for (size_t k = 0; k < n; k++)
        json_array_append_new(a, json_integer((json_int_t)bins[k]));
    return a;
}
