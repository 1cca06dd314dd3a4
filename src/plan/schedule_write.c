/* schedule_write.c - the dry run as text or JSON. A 500-host survey has over a million tests,
 * so output goes through a local buffer rather than a printf per field. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/errors.h"
#include "plan/plan_int.h"
#include "plan/schedule.h"

struct wbuf {
    FILE *f;
    size_t n;
    bool failed;
    const struct schedule_json_extra *x; /* JSON only; may be NULL */
    char buf[1 << 16];
};

static void
wb_flush(struct wbuf *w)
{
    if (w->n > 0 && fwrite(w->buf, 1, w->n, w->f) != w->n)
        w->failed = true;
    w->n = 0;
}

static void
wb_write(struct wbuf *w, const char *s, size_t len)
{
    if (len > sizeof w->buf - w->n)
        wb_flush(w);
    if (len > sizeof w->buf) {
        if (fwrite(s, 1, len, w->f) != len)
            w->failed = true;
        return;
    }
    memcpy(w->buf + w->n, s, len);
    w->n += len;
}

static void
wb_puts(struct wbuf *w, const char *s)
{
    wb_write(w, s, strlen(s));
}

static void wb_printf(struct wbuf *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
wb_printf(struct wbuf *w, const char *fmt, ...)
{
    char tmp[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n > 0)
        wb_write(w, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

static void
wb_u64(struct wbuf *w, uint64_t v)
{
    char tmp[24];
    size_t i = sizeof tmp;
    do
        tmp[--i] = (char)('0' + v % 10);
    while ((v /= 10) != 0);
    wb_write(w, tmp + i, sizeof tmp - i);
}

static bool
json_plain(const char *s, size_t *len)
{
    size_t i = 0;
    for (; s[i] != '\0'; i++)
        if (s[i] == '"' || s[i] == '\\' || (unsigned char)s[i] < 0x20)
            return false;
    *len = i;
    return true;
}

/* A JSON string; names are validated to need no escaping, but be safe anyway. */
static void
wb_json_str(struct wbuf *w, const char *s)
{
    size_t len;
    wb_write(w, "\"", 1);
    if (json_plain(s, &len)) {
        wb_write(w, s, len);
    } else {
        for (const char *p = s; *p != '\0'; p++) {
            unsigned char ch = (unsigned char)*p;
            if (ch == '"' || ch == '\\')
                wb_printf(w, "\\%c", ch);
            else if (ch < 0x20)
                wb_printf(w, "\\u%04x", ch);
            else
                wb_write(w, p, 1);
        }
    }
    wb_write(w, "\"", 1);
}

static struct wbuf *
wb_new(FILE *f)
{
    struct wbuf *w = malloc(sizeof *w);
    if (w != NULL) {
        w->f = f;
        w->n = 0;
        w->failed = false;
        w->x = NULL;
    }
    return w;
}

/* Flush and free w; 0 or NS_EIO. */
static int
wb_finish(struct wbuf *w, struct err *e)
{
    wb_flush(w);
    bool failed = w->failed || fflush(w->f) != 0 || ferror(w->f);
    free(w);
    return failed ? err_set(e, NS_EIO, "cannot write the schedule") : 0;
}

char *
schedule_format_duration(double seconds, char *buf, size_t len)
{
    unsigned long long t = (unsigned long long)llround(seconds);
    unsigned long long h = t / 3600, m = t / 60 % 60, s = t % 60;
    if (h > 0)
        snprintf(buf, len, "%lluh %02llum %02llus", h, m, s);
    else if (m > 0)
        snprintf(buf, len, "%llum %02llus", m, s);
    else
        snprintf(buf, len, "%llu s", s);
    return buf;
}

/* --- text ----------------------------------------------------------------------------------------
 */

/* "3 trials", or "3 to 10 trials, more while the 95 % CI is wider than +-2 % of the mean". */
static void
text_trials(struct wbuf *w, const struct trials_policy *t)
{
    if (!trials_adaptive(t)) {
        wb_printf(w, "%u trial%s", t->min, t->min == 1 ? "" : "s");
        return;
    }
    wb_printf(w,
              "%u to %u trials, more of a pair while its 95 %% CI is wider than +-%g %% of its "
              "mean",
              t->min, t->max, t->target * 100.0);
}

/* A swept scenario's value as the plan writes it ("64K"), into buf. */
static const char *
sweep_value_text(const struct plan_scenario *sc, size_t i, char *buf, size_t len)
{
    return testspec_value_text((enum testspec_param)sc->sweep.param, sc->sweep.values[i], buf, len);
}

/* The nsperf flags of a scenario as one line; a sweep's with its values in place of the swept
 * parameter's one (-l 64|1K|64K). */
static void
text_flags(struct wbuf *w, const struct plan_scenario *sc)
{
    size_t argc = 0;
    char **argv = testspec_client_argv(&sc->spec, &argc, NULL);
    const char *flag =
        plan_scenario_swept(sc) ? testspec_flag((enum testspec_param)sc->sweep.param) : NULL;
    for (size_t i = 0; argv != NULL && i < argc; i++) {
        wb_printf(w, "%s%s", i ? " " : "", argv[i]);
        if (flag == NULL || strcmp(argv[i], flag) != 0 || i + 1 == argc)
            continue;
        for (size_t k = 0; k < sc->sweep.nvalues; k++) {
            char v[48];
            wb_printf(w, "%s%s", k ? "|" : " ", sweep_value_text(sc, k, v, sizeof v));
        }
        i++;
    }
    free(argv);
}

/* A scenario as written: a sweep's first value stands for it; a sweep says its values and the
 * trials of each. */
static void
text_scenario(struct wbuf *w, const struct schedule *s, const struct plan_scenario *sc)
{
    if (sc->sweep.index > 0)
        return;
    wb_printf(w, "scenario %s: %s, %g s + %g s warmup, ", sc->name, sc->test, sc->duration_s,
              sc->warmup_s);
    const struct plan_sweep *sw = &sc->sweep;
    if (plan_scenario_swept(sc))
        wb_printf(w, "a sweep of %s over %zu values", testspec_key((enum testspec_param)sw->param),
                  sw->nvalues);
    else
        text_trials(w, &sc->trials);
    wb_puts(w, " (nsperf -c HOST ");
    text_flags(w, sc);
    wb_puts(w, ")\n");
    if (!plan_scenario_swept(sc))
        return;
    size_t np = schedule_pair_count(s);
    wb_puts(w, "  each value ");
    text_trials(w, &sc->trials);
    wb_printf(w, " over each of the %zu pairs: %llu tests", np,
              (unsigned long long)sw->nvalues * sc->trials.min * np);
    if (trials_adaptive(&sc->trials))
        wb_printf(w, " to %llu", (unsigned long long)sw->nvalues * sc->trials.max * np);
    wb_puts(w, "\n");
}

/* "tput" or, for a value of a sweep, "tput msg_size 64K". */
static void
text_scenario_name(struct wbuf *w, const struct plan_scenario *sc)
{
    char label[320];
    wb_puts(w, plan_scenario_label(sc, label, sizeof label));
}

static void
text_inventory(struct wbuf *w, const struct plan_inventory *inv)
{
    wb_puts(w, "hosts from ");
    wb_puts(w, inv->file);
    wb_printf(w, " (%s, sha256 %.12s): %zu host%s", inv->format, inv->sha256, inv->nhosts,
              inv->nhosts == 1 ? "" : "s");
    if (inv->nskipped > 0)
        wb_printf(w, ", %zu not running", inv->nskipped);
    if (inv->nreplaced > 0)
        wb_printf(w, ", %zu replaced by hosts entries", inv->nreplaced);
    wb_puts(w, "\n");
}

static void
text_header(struct wbuf *w, const struct schedule *s)
{
    const struct plan *p = schedule_plan(s);
    wb_printf(w, "plan '%s' from %s\n", p->name, p->file);
    wb_printf(w, "%zu hosts in %zu zones; pairs: %s, %s: %zu ordered pairs\n", p->nhosts, p->nzones,
              plan_pairs_name(p), p->directions == 0 ? "both directions" : "one way",
              schedule_pair_count(s));
    size_t nauto = 0;
    for (size_t i = 0; i < p->nhosts; i++)
        nauto += p->hosts[i].zone_from_host || p->hosts[i].region_from_host;
    if (nauto > 0)
        wb_printf(w,
                  "%zu host%s placed by %s cloud metadata (zone: auto or region: auto) when "
                  "the run starts; until then each is a zone of its own\n",
                  nauto, nauto == 1 ? "" : "s", nauto == 1 ? "its" : "their");
    for (size_t i = 0; i < p->ninventories; i++)
        text_inventory(w, &p->inventories[i]);
    for (size_t i = 0; i < p->nscenarios; i++)
        text_scenario(w, s, &p->scenarios[i]);
    wb_printf(w, "schedule: %s, ",
              p->parallel ? "parallel (a host is in one test at a time)" : "one test at a time");
    if (plan_shuffled(p))
        wb_printf(w, "shuffled order (seed %llu)", (unsigned long long)p->seed);
    else
        wb_puts(w, "sequential order");
    wb_printf(w, "; %zu rounds per trial of a scenario\n", schedule_base_round_count(s));
}

static void
text_round(struct wbuf *w, const struct schedule *s, size_t r, size_t nrounds)
{
    const struct plan *p = schedule_plan(s);
    const struct plan_scenario *sc = &p->scenarios[schedule_round_scenario(s, r)];
    wb_printf(w, "\nround %zu of %zu: ", r + 1, nrounds);
    text_scenario_name(w, sc);
    wb_printf(w, ", trial %u of %u", schedule_round_trial(s, r), sc->trials.min);
    if (trials_adaptive(&sc->trials))
        wb_printf(w, "..%u", sc->trials.max);
    wb_printf(w, ", %g s\n", schedule_round_estimate_s(s, r));
    size_t n = schedule_round_size(s, r);
    for (size_t i = 0; i < n; i++) {
        struct schedule_test t;
        schedule_round_test(s, r, i, &t);
        wb_write(w, "  ", 2);
        wb_puts(w, p->hosts[t.src].name);
        wb_write(w, " -> ", 4);
        wb_puts(w, p->hosts[t.dst].name);
        wb_write(w, "\n", 1);
    }
}

/* What follows the fixed part: per adaptive scenario, its passes and what they may take. */
static void
text_adaptive(struct wbuf *w, const struct schedule *s)
{
    const struct plan *p = schedule_plan(s);
    size_t nfixed = schedule_fixed_pass_count(s), npass = schedule_pass_count(s);
    for (size_t i = 0; i < p->nscenarios && npass > nfixed; i++) {
        const struct plan_scenario *sc = &p->scenarios[i];
        size_t passes = 0;
        double secs = 0;
        for (size_t k = nfixed; k < npass; k++) {
            if (schedule_pass_scenario(s, k) != i)
                continue;
            passes++;
            secs += schedule_pass_estimate_s(s, k);
        }
        if (passes == 0)
            continue;
        char est[64];
        wb_puts(w, "\nthen ");
        text_scenario_name(w, sc);
        wb_printf(w,
                  ", trials %u..%u: up to %zu more passes, each with the pairs whose 95 %% "
                  "CI is still wider than +-%g %% of the mean, in at most %zu rounds; at most "
                  "%llu tests, %s\n",
                  sc->trials.min + 1, sc->trials.max, passes, sc->trials.target * 100.0,
                  schedule_base_round_count(s), (unsigned long long)passes * schedule_pair_count(s),
                  schedule_format_duration(secs, est, sizeof est));
    }
}

int
schedule_write_text(const struct schedule *s, FILE *out, struct err *e)
{
    struct wbuf *w = wb_new(out);
    if (w == NULL)
        return err_set(e, NS_ENOMEM, "out of memory writing the schedule");
    text_header(w, s);
    size_t nrounds = schedule_round_count(s);
    for (size_t r = 0; r < nrounds; r++)
        text_round(w, s, r, nrounds);
    text_adaptive(w, s);
    char est[64], est2[64];
    wb_printf(w,
              "\n%llu tests in %zu rounds, estimated %s (opening the hosts %g s, then per "
              "round warmup + duration + %g s setup, %g s with ssh hosts)\n",
              (unsigned long long)schedule_test_count(s), nrounds,
              schedule_format_duration(schedule_estimate_s(s), est, sizeof est),
              schedule_open_estimate_s(s), PLAN_SETUP_LOCAL_S, PLAN_SETUP_SSH_S);
    if (schedule_pass_count(s) > schedule_fixed_pass_count(s))
        wb_printf(w, "with the adaptive trials: %llu to %llu tests, estimated %s to %s\n",
                  (unsigned long long)schedule_test_count(s),
                  (unsigned long long)schedule_test_count_max(s), est,
                  schedule_format_duration(schedule_estimate_max_s(s), est2, sizeof est2));
    return wb_finish(w, e);
}

/* --- JSON ----------------------------------------------------------------------------------------
 */

static void
json_test(struct wbuf *w, const struct plan *p, const struct schedule_test *t)
{
    wb_puts(w, "{\"src\":");
    wb_json_str(w, p->hosts[t->src].name);
    wb_puts(w, ",\"dst\":");
    wb_json_str(w, p->hosts[t->dst].name);
    const struct plan_scenario *sc = &p->scenarios[t->scenario];
    wb_puts(w, ",\"scenario\":");
    wb_json_str(w, sc->name);
    if (plan_scenario_swept(sc))
        wb_printf(w, ",\"value\":%.17g", plan_scenario_value(sc));
    wb_puts(w, ",\"trial\":");
    wb_u64(w, t->trial);
    wb_write(w, "}", 1);
}

static void
json_round(struct wbuf *w, const struct schedule *s, size_t r)
{
    size_t n = schedule_round_size(s, r);
    wb_write(w, "[", 1);
    for (size_t i = 0; i < n; i++) {
        struct schedule_test t;
        schedule_round_test(s, r, i, &t);
        if (i > 0)
            wb_write(w, ",", 1);
        json_test(w, schedule_plan(s), &t);
    }
    wb_write(w, "]", 1);
}

/* A number (a fixed count) or {"min", "max", "target_ci"} (a fraction of the mean), as run.json
 * records it. */
static void
json_trials(struct wbuf *w, const struct trials_policy *t)
{
    if (trials_adaptive(t))
        wb_printf(w, "{\"min\":%u,\"max\":%u,\"target_ci\":%.17g}", t->min, t->max, t->target);
    else
        wb_printf(w, "%u", t->min);
}

/* A string member, or null. */
static void
json_member(struct wbuf *w, const char *sep, const char *key, const char *v)
{
    wb_printf(w, "%s\"%s\":", sep, key);
    if (v == NULL)
        wb_puts(w, "null");
    else
        wb_json_str(w, v);
}

static void
json_plan(struct wbuf *w, const struct plan *p)
{
    json_member(w, "\"plan\":{", "name", p->name);
    json_member(w, ",", "file", p->file);
    json_member(w, ",", "description", p->description);
    json_member(w, ",", "output", p->output);
    json_member(w, ",", "pairs", plan_pairs_name(p));
    wb_printf(w, ",\"directions\":\"%s\",\"parallel\":%s,\"order\":\"%s\",\"seed\":\"",
              p->directions == 0 ? "both" : "one", p->parallel ? "true" : "false",
              p->order == 1 ? "shuffled" : "sequential");
    wb_u64(w, p->seed); /* a string: 64 bits do not survive most JSON readers' numbers */
    wb_puts(w, "\",\"trials\":");
    json_trials(w, &p->trials);
    wb_printf(w, ",\"retries\":%u,\"host_timeout_s\":%.15g}", p->retries, p->host_timeout_s);
}

/* The caller's "resolved" member of an ssh host (schedule_json_extra). */
static void
json_resolved(struct wbuf *w, const struct plan_host *h)
{
    if (w->x == NULL || w->x->ssh_resolved == NULL)
        return;
    char *v = w->x->ssh_resolved(w->x->ctx, h);
    if (v == NULL)
        return;
    wb_puts(w, ",\"resolved\":");
    wb_puts(w, v);
    free(v);
}

static void
json_host(struct wbuf *w, const struct plan_host *h)
{
    json_member(w, "{", "name", h->name);
    json_member(w, ",", "address", h->address);
    json_member(w, ",", "data_address", h->data_address);
    if (h->data_address_from_host) /* learnt from the host by the survey (plan.h) */
        wb_puts(w, ",\"data_address_from_host\":true");
    json_member(w, ",", "zone", h->zone);
    json_member(w, ",", "region", h->region);
    json_member(w, ",", "zone_id", h->zone_id);
    if (h->zone_from_host) /* "auto" until the survey reads the host's cloud metadata */
        wb_puts(w, ",\"zone_from_host\":true");
    if (h->region_from_host)
        wb_puts(w, ",\"region_from_host\":true");
    wb_printf(w, ",\"transport\":\"%s\",\"labels\":{",
              h->transport == PLAN_TRANSPORT_LOCAL ? "local" : "ssh");
    for (size_t i = 0; i < h->nlabels; i++)
        json_member(w, i ? "," : "", h->labels[i].key, h->labels[i].value);
    wb_puts(w, "}");
    if (h->transport == PLAN_TRANSPORT_SSH) {
        json_member(w, ",\"ssh\":{", "user", h->ssh.user);
        if (h->ssh.port != 0) /* 0: not given (null), the ssh config's or 22 */
            wb_printf(w, ",\"port\":%u", h->ssh.port);
        else
            wb_puts(w, ",\"port\":null");
        json_member(w, ",", "identity", h->ssh.identity);
        json_member(w, ",", "known_hosts", h->ssh.known_hosts);
        json_member(w, ",", "jump", h->ssh.jump);
        if (h->ssh.connect_timeout_s > 0)
            wb_printf(w, ",\"connect_timeout_s\":%.15g", h->ssh.connect_timeout_s);
        else
            wb_puts(w, ",\"connect_timeout_s\":null");
        json_resolved(w, h);
        wb_puts(w, "}");
    }
    wb_puts(w, "}");
}

static void
json_names(struct wbuf *w, const char *key, const char *const *names, size_t n)
{
    wb_printf(w, ",\"%s\":[", key);
    for (size_t i = 0; i < n; i++) {
        wb_puts(w, i ? "," : "");
        wb_json_str(w, names[i]);
    }
    wb_puts(w, "]");
}

/* Where the hosts came from: each inventory's file, hash, and what it gave. */
static void
json_inventory(struct wbuf *w, const struct plan_inventory *inv)
{
    json_member(w, "{", "file", inv->file);
    json_member(w, ",", "path", inv->path);
    json_member(w, ",", "format", inv->format);
    json_member(w, ",", "sha256", inv->sha256);
    json_names(w, "hosts", inv->hosts, inv->nhosts);
    wb_puts(w, ",\"skipped\":[");
    for (size_t i = 0; i < inv->nskipped; i++) {
        json_member(w, i ? ",{" : "{", "name", inv->skipped[i].name);
        json_member(w, ",", "state", inv->skipped[i].state);
        wb_puts(w, "}");
    }
    wb_puts(w, "]");
    json_names(w, "replaced", inv->replaced, inv->nreplaced);
    wb_puts(w, "}");
}

/* One parameter's value as JSON: a boolean, a direction's name, or a number. */
static void
json_param_value(struct wbuf *w, enum testspec_param id, double v)
{
    char num[40];
    if (testspec_type(id) == TESTSPEC_BOOL)
        wb_puts(w, v != 0 ? "true" : "false");
    else if (testspec_type(id) == TESTSPEC_DIRECTION)
        wb_json_str(w, testspec_value_text(id, v, num, sizeof num));
    else if (snprintf(num, sizeof num, "%.15g", v) > 0 && strtod(num, NULL) == v)
        wb_puts(w, num);
    else
        wb_printf(w, "%.17g", v);
}

static void
json_nsperf_args(struct wbuf *w, const struct testspec_values *spec)
{
    wb_puts(w, "\"nsperf_args\":[");
    size_t argc = 0;
    char **argv = testspec_client_argv(spec, &argc, NULL);
    for (size_t i = 0; argv != NULL && i < argc; i++) {
        wb_puts(w, i ? "," : "");
        wb_json_str(w, argv[i]);
    }
    free(argv);
    wb_puts(w, "]");
}

/* A sweep: "sweep":{"param", "values":[...], "tests", "tests_max", "runs":[{"value",
 * "nsperf_args"}, ...]} (sc is its first value's scenario; its others follow it). */
static void
json_sweep(struct wbuf *w, const struct schedule *s, const struct plan_scenario *sc)
{
    enum testspec_param id = (enum testspec_param)sc->sweep.param;
    size_t nv = sc->sweep.nvalues, np = schedule_pair_count(s);
    json_member(w, ",\"sweep\":{", "param", testspec_key(id));
    wb_puts(w, ",\"values\":[");
    for (size_t i = 0; i < nv; i++) {
        wb_puts(w, i ? "," : "");
        json_param_value(w, id, sc->sweep.values[i]);
    }
    wb_printf(w, "],\"tests\":%llu,\"tests_max\":%llu,\"runs\":[",
              (unsigned long long)nv * sc->trials.min * np,
              (unsigned long long)nv * sc->trials.max * np);
    for (size_t i = 0; i < nv; i++) {
        wb_puts(w, i ? ",{\"value\":" : "{\"value\":");
        json_param_value(w, id, sc->sweep.values[i]);
        wb_puts(w, ",");
        json_nsperf_args(w, &sc[i].spec);
        wb_puts(w, "}");
    }
    wb_puts(w, "]}");
}

/* A scenario as written: every parameter that applies to the kind, resolved, in base units (s,
 * bytes, bit/s), under its plan key (a key "a.b" as b of an object a, as the plan writes it), a
 * sweep's list in its parameter's place; and the nsperf flags the runner will
 * pass (a sweep: per value, under "sweep"). */
static void
json_scenario(struct wbuf *w, const struct schedule *s, const struct plan_scenario *sc)
{
    json_member(w, "{", "name", sc->name);
    json_member(w, ",", "test", sc->test);
    wb_puts(w, ",\"trials\":");
    json_trials(w, &sc->trials);
    wb_puts(w, ",\"params\":{");
    const char *sep = "", *group = NULL; /* the group open, NULL for none */
    size_t glen = 0;
    for (int i = 0; i < TESTSPEC_PARAM_COUNT; i++) {
        enum testspec_param id = (enum testspec_param)i;
        if (!testspec_applies(id, (int)sc->kind))
            continue;
        const char *key = testspec_key(id), *dot = strchr(key, '.');
        size_t len = dot != NULL ? (size_t)(dot - key) : 0;
        if (group != NULL && (len != glen || strncmp(key, group, glen) != 0)) {
            wb_puts(w, "}"); /* the group's last member was before */
            group = NULL;
        }
        if (dot != NULL && group == NULL) {
            wb_printf(w, "%s\"%.*s\":{", sep, (int)len, key);
            group = key;
            glen = len;
            sep = "";
        }
        wb_puts(w, sep);
        wb_json_str(w, dot != NULL ? dot + 1 : key);
        wb_puts(w, ":");
        sep = ",";
        if (sc->sweep.param != i) {
            json_param_value(w, id, sc->spec.v[i]);
            continue;
        }
        for (size_t k = 0; k < sc->sweep.nvalues; k++) {
            wb_puts(w, k ? "," : "[");
            json_param_value(w, id, sc->sweep.values[k]);
        }
        wb_puts(w, "]");
    }
    if (group != NULL)
        wb_puts(w, "}");
    wb_puts(w, "}");
    if (plan_scenario_swept(sc)) {
        json_sweep(w, s, sc);
    } else {
        wb_puts(w, ",");
        json_nsperf_args(w, &sc->spec);
    }
    wb_puts(w, "}");
}

int
schedule_write_json(const struct schedule *s, FILE *out, struct err *e)
{
    return schedule_write_json_extra(s, out, NULL, e);
}

int
schedule_write_json_extra(const struct schedule *s, FILE *out, const struct schedule_json_extra *x,
                          struct err *e)
{
    struct wbuf *w = wb_new(out);
    if (w == NULL)
        return err_set(e, NS_ENOMEM, "out of memory writing the schedule");
    w->x = x;
    const struct plan *p = schedule_plan(s);
    wb_puts(w, "{");
    json_plan(w, p);
    wb_puts(w, ",\n\"hosts\":[");
    for (size_t i = 0; i < p->nhosts; i++) {
        wb_puts(w, i ? ",\n" : "");
        json_host(w, &p->hosts[i]);
    }
    wb_puts(w, "],\n\"hosts_from\":[");
    for (size_t i = 0; i < p->ninventories; i++) {
        wb_puts(w, i ? ",\n" : "");
        json_inventory(w, &p->inventories[i]);
    }
    wb_puts(w, "],\n\"scenarios\":[");
    for (size_t i = 0, n = 0; i < p->nscenarios; i++) {
        if (p->scenarios[i].sweep.index > 0)
            continue; /* a value of the sweep json_scenario wrote */
        wb_puts(w, n++ ? ",\n" : "");
        json_scenario(w, s, &p->scenarios[i]);
    }
    wb_puts(w, "],\n\"rounds\":[");
    size_t nrounds = schedule_round_count(s);
    for (size_t r = 0; r < nrounds; r++) {
        if (r > 0)
            wb_write(w, ",\n", 2);
        json_round(w, s, r);
    }
    wb_puts(w, "],\"tests\":");
    wb_u64(w, schedule_test_count(s));
    wb_puts(w, ",\"tests_max\":");
    wb_u64(w, schedule_test_count_max(s));
    wb_printf(w,
              ",\"estimated_s\":%.15g,\"estimated_max_s\":%.15g,\"open_hosts_s\":%.15g,"
              "\"setup_s\":{\"local\":%.15g,\"ssh\":%.15g}}\n",
              schedule_estimate_s(s), schedule_estimate_max_s(s), schedule_open_estimate_s(s),
              PLAN_SETUP_LOCAL_S, PLAN_SETUP_SSH_S);
    return wb_finish(w, e);
}
