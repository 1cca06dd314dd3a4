/* export.c - `netsurvey export DIR... --format samples|csv`: every ok trial of the runs as
 * PerfKitBenchmarker's samples, the rows the warehouses that teams already run take as they are
 * (BigQuery's and Elasticsearch/OpenSearch's bulk loaders, PKB's own publishers).
 *
 * A sample is one JSON object a line, as PKB's NewlineDelimitedJSONPublisher writes it: test
 * (the kind), metric, value, unit, metadata (run, plan, scenario and every parameter as run,
 * both hosts with their zone, zone id, region, provider, instance type and architecture, the
 * versions), timestamp (the trial's end, seconds since the epoch), official, owner, run_uri
 * (the run_id), sample_uri (run_id/line/metric: the same sample always has the same one, so a
 * loader can drop what it already holds) and product_name. Each ok trial gives its headline
 * figure and, where it has a histogram, its RTT p50 and p99. The CSV holds the same rows, as
 * PKB's CSVPublisher lays them out: its fields, then every metadata key (one column each). The
 * trials are those the reports count (jtrials.h); failed ones have no figure and give none.
 * Numbers are written in their shortest exact form. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/errors.h"
#include "common/histjson.h"
#include "common/testspec.h"
#include "history/history.h"
#include "history/jtrials.h"
#include "history/trendint.h"
#include "journal/journal.h"
#include "report/output.h"

#define EXPORT_PRODUCT "netsurvey"

/* Metadata keys, in the order of the CSV's columns (after PKB's own fields); the scenario's
 * parameters (journal_param_key) follow. */
enum mkey {
    MK_PLAN,
    MK_PLAN_SHA256,
    MK_SCENARIO,
    MK_FAMILY,
    MK_TRIAL,
    MK_ATTEMPTS,
    MK_SRC_HOST,
    MK_DST_HOST,
    MK_SRC_ZONE,
    MK_DST_ZONE,
    MK_SRC_ZONE_ID,
    MK_DST_ZONE_ID,
    MK_SRC_REGION,
    MK_DST_REGION,
    MK_SRC_PROVIDER,
    MK_DST_PROVIDER,
    MK_SRC_INSTANCE_TYPE,
    MK_DST_INSTANCE_TYPE,
    MK_SRC_ARCH,
    MK_DST_ARCH,
    MK_STARTED,
    MK_ENDED,
    MK_NETSURVEY_VERSION,
    MK_NSPERF_VERSION,
    MK_COUNT
};

static const char *const mkey_names[MK_COUNT] = {"plan",
                                                 "plan_sha256",
                                                 "scenario",
                                                 "family",
                                                 "trial",
                                                 "attempts",
                                                 "src_host",
                                                 "dst_host",
                                                 "src_zone",
                                                 "dst_zone",
                                                 "src_zone_id",
                                                 "dst_zone_id",
                                                 "src_region",
                                                 "dst_region",
                                                 "src_provider",
                                                 "dst_provider",
                                                 "src_instance_type",
                                                 "dst_instance_type",
                                                 "src_arch",
                                                 "dst_arch",
                                                 "started",
                                                 "ended",
                                                 "netsurvey_version",
                                                 "nsperf_version"};

/* PKB's own fields, as its CSVPublisher orders them. */
static const char *const pkb_fields[] = {"timestamp", "test",         "metric",   "value",
                                         "unit",      "product_name", "official", "owner",
                                         "run_uri",   "sample_uri"};
#define NPKB (sizeof pkb_fields / sizeof pkb_fields[0])

/* A metadata value: a string, or a number (its text). */
struct mval {
    const char *s;
    bool num;
};

struct ex {
    const struct history_export_opts *o;
    const char *dir;
    const struct journal_run *run;
    const char *scenario; /* the trial's, as the reports name it (jtrials_cb) */
    struct jpct pct;
    struct rbuf b;
    uint64_t rows;
};

/* The shortest text that reads back as v. */
static void
num_text(double v, char *buf, size_t len)
{
    for (int p = 15; p <= 17; p++) {
        snprintf(buf, len, "%.*g", p, v);
        if (strtod(buf, NULL) == v)
            return;
    }
}

/* s as a JSON string (UTF-8 kept; quotes, backslashes and control characters escaped). */
static void
json_str(struct rbuf *b, const char *s)
{
    report_buf_add(b, "\"", 1);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            report_buf_printf(b, "\\%c", *p);
        else if (*p == '\n')
            report_buf_puts(b, "\\n");
        else if (*p == '\t')
            report_buf_puts(b, "\\t");
        else if (*p < 0x20)
            report_buf_printf(b, "\\u%04x", *p);
        else
            report_buf_add(b, (const char *)p, 1);
    }
    report_buf_add(b, "\"", 1);
}

/* The host of run.json named name (its env: cloud and machine), or NULL. */
static const struct journal_run_host *
host_of(const struct journal_run *run, const char *name)
{
    for (size_t i = 0; name != NULL && i < run->nhosts; i++)
        if (run->hosts[i].name != NULL && strcmp(run->hosts[i].name, name) == 0)
            return &run->hosts[i];
    return NULL;
}

static const char *
cloud_str(const struct journal_run_host *h, const char *key)
{
    const json_t *env = h != NULL ? h->env : NULL;
    return json_string_value(json_object_get(json_object_get(env, "cloud"), key));
}

static const char *
zone_id_of(const struct journal_run_host *h)
{
    if (h != NULL && h->zone_id != NULL && *h->zone_id != '\0')
        return h->zone_id;
    return cloud_str(h, "zone_id");
}

static const char *
arch_of(const struct journal_run_host *h)
{
    return h != NULL ? json_string_value(json_object_get(h->env, "machine")) : NULL;
}

/* The metadata of a trial, into v (numbers' texts in nums). */
static void
meta_of(const struct ex *x, const struct journal_trial *t, struct mval *v, char nums[2][24])
{
    const struct journal_run *run = x->run;
    const struct journal_run_host *s = host_of(run, t->src.host), *d = host_of(run, t->dst.host);
    snprintf(nums[0], 24, "%u", (unsigned)t->trial);
    snprintf(nums[1], 24, "%u", (unsigned)t->attempts);
    const char *str[MK_COUNT] = {
        [MK_PLAN] = run->plan_name,
        [MK_PLAN_SHA256] = run->plan_sha256,
        [MK_SCENARIO] = x->scenario != NULL ? x->scenario : t->scenario.name,
        [MK_FAMILY] = journal_family_name(t->family),
        [MK_SRC_HOST] = t->src.host,
        [MK_DST_HOST] = t->dst.host,
        [MK_SRC_ZONE] = t->src.zone,
        [MK_DST_ZONE] = t->dst.zone,
        [MK_SRC_ZONE_ID] = zone_id_of(s),
        [MK_DST_ZONE_ID] = zone_id_of(d),
        [MK_SRC_REGION] = t->src.region,
        [MK_DST_REGION] = t->dst.region,
        [MK_SRC_PROVIDER] = cloud_str(s, "provider"),
        [MK_DST_PROVIDER] = cloud_str(d, "provider"),
        [MK_SRC_INSTANCE_TYPE] = cloud_str(s, "instance_type"),
        [MK_DST_INSTANCE_TYPE] = cloud_str(d, "instance_type"),
        [MK_SRC_ARCH] = arch_of(s),
        [MK_DST_ARCH] = arch_of(d),
        [MK_STARTED] = t->started,
        [MK_ENDED] = t->ended,
        [MK_NETSURVEY_VERSION] = run->netsurvey_version,
        [MK_NSPERF_VERSION] = run->nsperf_version,
    };
    for (size_t i = 0; i < MK_COUNT; i++)
        v[i] = (struct mval){.s = str[i]};
    v[MK_TRIAL] = (struct mval){.s = nums[0], .num = true};
    v[MK_ATTEMPTS] = (struct mval){.s = nums[1], .num = true};
}

/* The scenario's parameter p as the trial ran it, when it applies to its kind. */
static bool
param_text(const struct journal_trial *t, enum testspec_param p, char *buf, size_t len,
           bool *is_bool)
{
    if (!testspec_applies(p, t->scenario.kind))
        return false;
    double v = journal_scenario_value(&t->scenario, p);
    *is_bool = testspec_type(p) == TESTSPEC_BOOL;
    if (*is_bool)
        snprintf(buf, len, "%s", v != 0 ? "true" : "false");
    else
        num_text(v, buf, len);
    return true;
}

static void
sample_json(struct ex *x, const struct journal_trial *t, uint64_t line, const char *metric,
            double value, const char *unit, double stamp)
{
    struct rbuf *b = &x->b;
    char num[40], nums[2][24];
    struct mval mv[MK_COUNT];
    meta_of(x, t, mv, nums);
    report_buf_puts(b, "{\"test\":");
    json_str(b, t->scenario.test != NULL ? t->scenario.test : "");
    report_buf_puts(b, ",\"metric\":");
    json_str(b, metric);
    num_text(value, num, sizeof num);
    report_buf_printf(b, ",\"value\":%s,\"unit\":", num);
    json_str(b, unit);
    report_buf_puts(b, ",\"metadata\":{");
    bool first = true;
    for (size_t i = 0; i < MK_COUNT; i++) {
        if (mv[i].s == NULL)
            continue;
        report_buf_puts(b, first ? "" : ",");
        first = false;
        json_str(b, mkey_names[i]);
        report_buf_add(b, ":", 1);
        if (mv[i].num)
            report_buf_puts(b, mv[i].s);
        else
            json_str(b, mv[i].s);
    }
    for (int p = 0; p < TESTSPEC_PARAM_COUNT; p++) {
        bool is_bool;
        if (!param_text(t, (enum testspec_param)p, num, sizeof num, &is_bool))
            continue;
        report_buf_puts(b, first ? "" : ",");
        first = false;
        json_str(b, journal_param_key((enum testspec_param)p));
        report_buf_printf(b, ":%s", num);
    }
    num_text(stamp, num, sizeof num);
    report_buf_printf(b, "},\"timestamp\":%s,\"official\":false,\"owner\":\"\",\"run_uri\":", num);
    json_str(b, x->run->run_id);
    report_buf_puts(b, ",\"sample_uri\":");
    char uri[512];
    snprintf(uri, sizeof uri, "%s/%llu/%s", x->run->run_id, (unsigned long long)line, metric);
    json_str(b, uri);
    report_buf_puts(b, ",\"product_name\":\"" EXPORT_PRODUCT "\"}\n");
}

static void
csv_header(struct rbuf *b)
{
    for (size_t i = 0; i < NPKB; i++)
        report_buf_printf(b, "%s%s", i ? "," : "", pkb_fields[i]);
    for (size_t i = 0; i < MK_COUNT; i++)
        report_buf_printf(b, ",%s", mkey_names[i]);
    for (int p = 0; p < TESTSPEC_PARAM_COUNT; p++)
        report_buf_printf(b, ",%s", journal_param_key((enum testspec_param)p));
    report_buf_puts(b, "\n");
}

static void
sample_csv(struct ex *x, const struct journal_trial *t, uint64_t line, const char *metric,
           double value, const char *unit, double stamp)
{
    struct rbuf *b = &x->b;
    char num[40], nums[2][24], uri[512];
    struct mval mv[MK_COUNT];
    meta_of(x, t, mv, nums);
    num_text(stamp, num, sizeof num);
    report_buf_printf(b, "%s,", num);
    report_buf_csv_field(b, t->scenario.test != NULL ? t->scenario.test : "");
    report_buf_puts(b, ",");
    report_buf_csv_field(b, metric);
    num_text(value, num, sizeof num);
    report_buf_printf(b, ",%s,", num);
    report_buf_csv_field(b, unit);
    report_buf_puts(b, "," EXPORT_PRODUCT ",false,,");
    report_buf_csv_field(b, x->run->run_id);
    report_buf_puts(b, ",");
    snprintf(uri, sizeof uri, "%s/%llu/%s", x->run->run_id, (unsigned long long)line, metric);
    report_buf_csv_field(b, uri);
    for (size_t i = 0; i < MK_COUNT; i++) {
        report_buf_puts(b, ",");
        if (mv[i].s != NULL)
            report_buf_csv_field(b, mv[i].s);
    }
    for (int p = 0; p < TESTSPEC_PARAM_COUNT; p++) {
        bool is_bool;
        report_buf_puts(b, ",");
        if (param_text(t, (enum testspec_param)p, num, sizeof num, &is_bool))
            report_buf_puts(b, num);
    }
    report_buf_puts(b, "\n");
}

static void
sample(struct ex *x, const struct journal_trial *t, uint64_t line, const char *metric, double value,
       const char *unit, double stamp)
{
    if (x->o->format == HISTORY_EXPORT_CSV)
        sample_csv(x, t, line, metric, value, unit, stamp);
    else
        sample_json(x, t, line, metric, value, unit, stamp);
    x->rows++;
}

/* The trial's end as seconds since the epoch (its start when it has no end; 0 without). */
static double
trial_stamp(const struct journal_trial *t)
{
    int64_t s;
    int32_t ns;
    if (history_trend_parse_time(t->ended, &s, &ns) ||
        history_trend_parse_time(t->started, &s, &ns))
        return (double)s + (double)ns / 1e9;
    return 0.0;
}

/* The name of percentile q (histjson_pcts': "p50"). */
static const char *
pct_name(double q)
{
    for (size_t i = 0; i < HISTJSON_NPCT; i++)
        if (histjson_pcts[i].q == q)
            return histjson_pcts[i].name;
    return "?";
}

static int
trial_samples(void *arg, const struct journal_trial *t, const char *scenario, uint64_t line,
              const char *text, size_t len, struct err *e)
{
    (void)text;
    (void)len;
    struct ex *x = arg;
    x->scenario = scenario;
    double v, p50, p99;
    if (!journal_trial_value(t, &v))
        return 0;
    enum testspec_kind k = (enum testspec_kind)t->scenario.kind;
    double stamp = trial_stamp(t);
    sample(x, t, line, testspec_kind_words(k), v, testspec_kind_unit(k), stamp);
    int pc = history_jpct_rtt(&x->pct, &t->result, &p50, &p99);
    if (pc < 0)
        return err_set(e, NS_ENOMEM, "out of memory");
    if (pc == 1) { /* "RTT p50", "RTT p99", in the unit of the RTT figures */
        const char *us = testspec_metric_unit(TESTSPEC_M_RTT_MEAN);
        char m50[32], m99[32];
        snprintf(m50, sizeof m50, "RTT %s", pct_name(50.0));
        snprintf(m99, sizeof m99, "RTT %s", pct_name(99.0));
        sample(x, t, line, m50, p50, us, stamp);
        sample(x, t, line, m99, p99, us, stamp);
    }
    return x->b.oom ? err_set(e, NS_ENOMEM, "out of memory") : 0;
}

/* A line that gives no sample, said as the report says it (a record a later one of the same
 * trial replaced is not worth a word). */
static int
line_skipped(void *arg, uint64_t line, const char *kind, const char *why, const char *text,
             size_t len, struct err *e)
{
    (void)text;
    (void)len;
    (void)e;
    struct ex *x = arg;
    if (x->o->warn != NULL && strcmp(kind, "superseded") != 0)
        fprintf(x->o->warn, "netsurvey: warning: %s/%s:%llu: %s, line ignored\n", x->dir,
                JOURNAL_RESULTS_FILE, (unsigned long long)line, why);
    return 0;
}

int
history_export(const struct history_export_opts *o, uint64_t *rows, bool *write_failed,
               struct err *e)
{
    struct ex x = {.o = o};
    report_buf_init(&x.b);
    x.b.sink = o->out; /* written as it grows, past RBUF_FLUSH */
    *rows = 0;
    *write_failed = false;
    if (o->format == HISTORY_EXPORT_CSV)
        csv_header(&x.b);
    int rc = 0;
    static const struct jtrials_cb cb = {.trial = trial_samples, .other = line_skipped};
    for (int i = 0; rc == 0 && i < o->ndirs; i++) {
        struct journal_run *run = NULL;
        rc = journal_read_run(o->dirs[i], &run, e);
        if (rc == 0) {
            x.run = run;
            x.dir = o->dirs[i];
            struct jtrials_stats st;
            rc = history_jtrials_read(o->dirs[i], run, &cb, &x, &st, e);
        }
        journal_run_free(run);
        x.run = NULL;
    }
    if (x.b.len > 0 && !x.b.oom)
        fwrite(x.b.data, 1, x.b.len, o->out);
    if (rc == 0 && (x.b.sink_err || fflush(o->out) != 0 || ferror(o->out))) {
        *write_failed = true;
        rc = err_set(e, NS_EIO, "the samples could not be written");
    }
    *rows = x.rows;
    history_jpct_release(&x.pct);
    report_buf_release(&x.b);
    return rc;
}
