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
