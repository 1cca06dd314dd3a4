/* output.c - the one JSON document of -J and the human-readable report. */
#include <string.h>

#include "common/clock.h"
#include "common/hostflags.h"
#include "common/units.h"
#include "nsperf/control.h"
#include "nsperf/stream_common.h"

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
    const char *name = testspec_kind_name((int)d->p->kind);
    json_object_set_new(doc, "test", json_string(name != NULL ? name : "unknown"));
    json_object_set_new(doc, "server", json_string(d->server != NULL ? d->server : ""));
    json_t *params = ns_params_applied_json(d->p);
    /* The choices a user compares against iperf3 (see --help), beside the applied write size
     * (msg_size): what the kind applies beyond the table's parameters. */
    if (k != NULL && k->params_json != NULL)
        k->params_json(d->p, params);
    json_object_set_new(doc, "params", params);
    json_object_set_new(doc, "start", json_string(d->start != NULL ? d->start : ""));
    json_object_set_new(doc, "end", json_string(d->end != NULL ? d->end : ""));
    json_object_set_new(doc, "host",
                        json_pack("{s:o, s:o}", "local", or_null(d->local_host), "remote",
                                  or_null(d->remote_host)));
    json_object_set_new(doc, "result", or_null(d->result));
    json_object_set_new(doc, "cpu", or_null(d->cpu));
    json_object_set_new(doc, "counters", or_null(d->counters));
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

/* -i lines before the summary, as iperf3 prints them (here once the test is over). */
static void
print_intervals(const json_t *result, FILE *out)
{
    const json_t *iv = json_object_get(result, "intervals");
    size_t i;
    const json_t *o;
    json_array_foreach(iv, i, o)
    {
        char rate[32], bytes[32];
        fprintf(out, "[%5s]  %6.2f-%-6.2f sec", "SUM", num(o, "start_s"), num(o, "end_s"));
        if (json_object_get(o, "bytes") != NULL) {
            units_format_bytes(num(o, "bytes"), bytes, sizeof bytes);
            units_format_rate(num(o, TESTSPEC_KEY_THROUGHPUT), rate, sizeof rate);
            fprintf(out, "  %12s  %14s\n", bytes, rate);
        } else {
            fprintf(out, "  %10.0f transactions/s  mean rtt %.3f us\n",
                    num(o, TESTSPEC_KEY_TRANSACTIONS),
                    num(json_object_get(o, HISTJSON_RTT), "mean"));
        }
    }
}

/* What bent the test, judged as netsurvey judges a trial (common/hostflags.h) but without the
 * cloud's metadata, which nsperf does not ask for during a test: one line per flag raised. */
static void
print_flags(const struct ns_doc *d, FILE *out)
{
    if (d->counters == NULL || d->result == NULL)
        return;
    bool streams = testspec_kind_family((enum testspec_kind)d->p->kind) == TESTSPEC_FAMILY_STREAM;
    bool local_sends = !d->p->reverse;
    struct hostflags_trial in = {
        .side = {{.label = !streams      ? "local (client)"
                           : local_sends ? "local (sender)"
                                         : "local (receiver)",
                  .counters = json_object_get(d->counters, "local")},
                 {.label = !streams      ? "remote (server)"
                           : local_sends ? "remote (receiver)"
                                         : "remote (sender)",
                  .counters = json_object_get(d->counters, "remote")}},
        .duration_s = num(d->result, "duration_s"),
        .longest_gap_s = json_is_number(json_object_get(d->result, "longest_gap_s"))
                             ? num(d->result, "longest_gap_s")
                             : -1,
        .pace_gap_s = streams && d->p->rate_bps > 0
                          ? (double)d->p->msg_size * 8.0 / (double)d->p->rate_bps
                          : 0,
    };
    struct hostflags f;
    hostflags_judge(&in, &f);
    for (int i = 0; i < HOSTFLAG_COUNT; i++)
        if (f.mask & (1u << i))
            fprintf(out, "flagged %s: %s\n", hostflag_name((enum hostflag)i), f.why[i]);
}

void
ns_doc_print_human(const struct ns_doc *d, const struct ns_test *t, FILE *out)
{
    const struct test_kind *k = ns_kind_get(d->p->kind);
    const char *name = testspec_kind_name((int)d->p->kind);
    if (d->error != NULL && d->result == NULL)
        return; /* nothing was measured: main() reports the error alone, on stderr */
    fprintf(out, "nsperf %s: %s to %s, %g s measured after %g s warmup", NS_VERSION,
            name != NULL ? name : "?", d->server != NULL ? d->server : "?", d->p->duration_s,
            d->p->warmup_s);
    if (k != NULL && k->uses_streams)
        fprintf(out, ", %d stream%s%s", d->p->streams, d->p->streams == 1 ? "" : "s",
                d->p->reverse ? ", reverse"
                : d->p->bidir ? " each way (bidir)"
                              : "");
    fputc('\n', out);
    if (d->result != NULL)
        print_intervals(d->result, out);
    if (k != NULL && k->print_human != NULL && d->result != NULL)
        k->print_human(t, d->result, out);
    print_cpu(d->cpu, out);
    print_flags(d, out);
    if (d->error != NULL)
        fprintf(out, "partial result: the test ended early (%s)\n", d->error);
}

void
ns_doc_print_error_json(const struct ns_params *p, const char *server, const char *error, FILE *out)
{
    struct ns_params def;
    if (p == NULL) {
        ns_params_default(&def, TESTSPEC_DEFAULT_KIND);
        p = &def;
    }
    char now[40];
    clock_wall_iso8601(now, sizeof now);
    json_t *local = ns_host_json();
    struct ns_doc d = {
        .p = p, .start = now, .end = now, .local_host = local, .error = error, .server = server};
    json_t *doc = ns_doc_json(&d);
    json_dumpf(doc, out, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
    fputc('\n', out);
    fflush(out);
    json_decref(doc);
    json_decref(local);
}
