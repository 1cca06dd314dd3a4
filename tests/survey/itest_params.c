/* itest_params.c - the record is the truth: for every test kind, at its defaults and with every
 * parameter set, `plan --json`, run.json, each trial record and nsperf's own -J params hold the
 * same parameters with the same values (README "The journal"). */
#include "itest.h"

/* --- the record is the truth: plan --json, the journal and nsperf's own params agree ---------- */

/* A parameter's three names: the plan's (plan --json "params"), the journal's, nsperf -J's. */
static const struct {
    enum testspec_param p;
    const char *plan, *journal, *nsperf;
} param_names[] = {
    {TESTSPEC_P_DURATION, "duration", "duration_s", "duration_s"},
    {TESTSPEC_P_WARMUP, "warmup", "warmup_s", "warmup_s"},
    {TESTSPEC_P_STREAMS, "streams", "streams", "streams"},
    {TESTSPEC_P_MSG_SIZE, "msg_size", "msg_size", "msg_size"},
    {TESTSPEC_P_RESPONSE_SIZE, "response_size", "response_size", "response_size"},
    {TESTSPEC_P_RATE, "rate", "rate_bps", "rate_bps"},
    {TESTSPEC_P_INTERVAL, "interval", "interval_s", "interval_s"},
    {TESTSPEC_P_WINDOW, "window", "window", "sock_buf"},
    {TESTSPEC_P_REVERSE, "reverse", "reverse", "reverse"},
    {TESTSPEC_P_COPY, "copy", "copy", "copy"},
    {TESTSPEC_P_BUSY_POLL, "busy_poll", "busy_poll", "busy_poll"},
    {TESTSPEC_P_BIDIR, "bidir", "bidir", "bidir"},
    {TESTSPEC_P_PACKET_RATE, "packet_rate", "packet_rate", "packet_rate"},
    /* plan --json writes a group as the plan does: load: {streams, direction} */
    {TESTSPEC_P_LOAD_STREAMS, "load.streams", "load_streams", "load_streams"},
    {TESTSPEC_P_LOAD_DIRECTION, "load.direction", "load_direction", "load_direction"},
};
#define NPARAM_NAMES (sizeof param_names / sizeof param_names[0])

/* Every kind twice: at its defaults (only duration and warmup given, as every scenario must be
 * short here), and with every parameter that applies given a value that is not its default. */
static const char params_plan[] =
    "name: params\n"
    "hosts:\n"
    "  - {name: h1, transport: local, data_address: 127.0.0.21}\n"
    "  - {name: h2, transport: local, data_address: 127.0.0.22}\n"
    "pairs: [[h1, h2]]\n"
    "directions: one\n"
    "scenarios:\n"
    "  - {name: ts-def, test: tcp_stream, duration: 0.3s, warmup: 0s}\n"
    "  - {name: us-def, test: udp_stream, duration: 0.3s, warmup: 0s}\n"
    "  - {name: tr-def, test: tcp_rr, duration: 0.3s, warmup: 0s}\n"
    "  - {name: ur-def, test: udp_rr, duration: 0.3s, warmup: 0s}\n"
    "  - {name: tc-def, test: tcp_crr, duration: 0.3s, warmup: 0s}\n"
    "  - {name: ts-set, test: tcp_stream, duration: 0.4s, warmup: 0.1s, streams: 2, msg_size: "
    "64K,\n"
    "     rate: 200M, interval: 100ms, window: 256K, reverse: true,\n"
    "     copy: true}\n"
    "  - {name: us-set, test: udp_stream, duration: 0.4s, warmup: 0.1s, streams: 2,\n"
    "     msg_size: 1000, rate: 20M, interval: 200ms, window: 512K, reverse: true}\n"
    "  - {name: tr-set, test: tcp_rr, duration: 0.4s, warmup: 0.1s, msg_size: 100,\n"
    "     response_size: 300, interval: 100ms, window: 64K, busy_poll: true}\n"
    "  - {name: ur-set, test: udp_rr, duration: 0.4s, warmup: 0.1s, msg_size: 200,\n"
    "     interval: 200ms, window: 128K, busy_poll: true}\n"
    "  - {name: tc-set, test: tcp_crr, duration: 0.4s, warmup: 0.1s, msg_size: 10,\n"
    "     response_size: 20, interval: 100ms, window: 32K}\n"
    "  - {name: pp-def, test: udp_pps, duration: 0.3s, warmup: 0s}\n"
    "  - {name: pp-set, test: udp_pps, duration: 0.4s, warmup: 0.1s, streams: 2, msg_size: 100,\n"
    "     packet_rate: 20k, interval: 100ms, window: 1M, reverse: true}\n"
    "  - {name: tb-set, test: tcp_stream, duration: 0.4s, warmup: 0.1s, streams: 2, bidir: true}\n"
    "  - {name: ub-set, test: udp_stream, duration: 0.4s, warmup: 0.1s, rate: 10M, bidir: true}\n"
    "  - {name: tl-set, test: tcp_rr, duration: 0.8s, warmup: 0.1s,\n"
    "     load: {streams: 2, direction: both}}\n"
    "  - {name: ul-set, test: udp_rr, duration: 0.8s, warmup: 0.1s,\n"
    "     load: {streams: 1, direction: reverse}}\n";
#define NSCENARIOS 16

/* The value a plan above gives parameter p of scenario name, else the kind's default. */
static double
params_expected(const char *name, int kind, enum testspec_param p)
{
    static const struct {
        const char *name;
        enum testspec_param p;
        double v;
    } given[] = {
        {"ts-set", TESTSPEC_P_STREAMS, 2},
        {"ts-set", TESTSPEC_P_MSG_SIZE, 65536},
        {"ts-set", TESTSPEC_P_RATE, 200e6},
        {"ts-set", TESTSPEC_P_INTERVAL, 0.1},
        {"ts-set", TESTSPEC_P_WINDOW, 262144},
        {"ts-set", TESTSPEC_P_REVERSE, 1},
        {"ts-set", TESTSPEC_P_COPY, 1},
        {"us-set", TESTSPEC_P_STREAMS, 2},
        {"us-set", TESTSPEC_P_MSG_SIZE, 1000},
        {"us-set", TESTSPEC_P_RATE, 20e6},
        {"us-set", TESTSPEC_P_INTERVAL, 0.2},
        {"us-set", TESTSPEC_P_WINDOW, 524288},
        {"us-set", TESTSPEC_P_REVERSE, 1},
        {"tr-set", TESTSPEC_P_MSG_SIZE, 100},
        {"tr-set", TESTSPEC_P_RESPONSE_SIZE, 300},
        {"tr-set", TESTSPEC_P_INTERVAL, 0.1},
        {"tr-set", TESTSPEC_P_WINDOW, 65536},
        {"tr-set", TESTSPEC_P_BUSY_POLL, 1},
        {"ur-set", TESTSPEC_P_MSG_SIZE, 200},
        {"ur-set", TESTSPEC_P_RESPONSE_SIZE, 200},
        {"ur-set", TESTSPEC_P_INTERVAL, 0.2},
        {"ur-set", TESTSPEC_P_WINDOW, 131072},
        {"ur-set", TESTSPEC_P_BUSY_POLL, 1},
        {"tc-set", TESTSPEC_P_MSG_SIZE, 10},
        {"tc-set", TESTSPEC_P_RESPONSE_SIZE, 20},
        {"tc-set", TESTSPEC_P_INTERVAL, 0.1},
        {"tc-set", TESTSPEC_P_WINDOW, 32768},
        {"pp-set", TESTSPEC_P_STREAMS, 2},
        {"pp-set", TESTSPEC_P_MSG_SIZE, 100},
        {"pp-set", TESTSPEC_P_PACKET_RATE, 20000},
        {"pp-set", TESTSPEC_P_INTERVAL, 0.1},
        {"pp-set", TESTSPEC_P_WINDOW, 1048576},
        {"pp-set", TESTSPEC_P_REVERSE, 1},
        {"tb-set", TESTSPEC_P_STREAMS, 2},
        {"tb-set", TESTSPEC_P_BIDIR, 1},
        {"ub-set", TESTSPEC_P_RATE, 10e6},
        {"ub-set", TESTSPEC_P_BIDIR, 1},
        {"tl-set", TESTSPEC_P_LOAD_STREAMS, 2},
        {"tl-set", TESTSPEC_P_LOAD_DIRECTION, TESTSPEC_DIRECTION_BOTH},
        {"ul-set", TESTSPEC_P_LOAD_STREAMS, 1},
        {"ul-set", TESTSPEC_P_LOAD_DIRECTION, TESTSPEC_DIRECTION_REVERSE},
    };
    bool set = strstr(name, "-set") != NULL;
    if (p == TESTSPEC_P_DURATION)
        return name[1] == 'l' ? 0.8 : set ? 0.4 : 0.3; /* under load: room for its windows */
    if (p == TESTSPEC_P_WARMUP)
        return set ? 0.1 : 0.0;
    for (size_t i = 0; i < sizeof given / sizeof given[0]; i++)
        if (strcmp(given[i].name, name) == 0 && given[i].p == p)
            return given[i].v;
    return testspec_default(p, kind);
}

static double
json_param(const json_t *v)
{
    if (json_is_string(v)) /* a direction, by its name */
        return testspec_direction_find(json_string_value(v));
    return json_is_boolean(v) ? (json_is_true(v) ? 1.0 : 0.0) : json_number_value(v);
}

/* The member at key, "a.b" being b of the object at a. */
static const json_t *
member(const json_t *obj, const char *key)
{
    const char *dot = strchr(key, '.');
    if (dot == NULL)
        return json_object_get(obj, key);
    char group[64];
    snprintf(group, sizeof group, "%.*s", (int)(dot - key), key);
    return json_object_get(json_object_get(obj, group), dot + 1);
}

/* Whether k is one of the names of column col (a group's name: the object of "a.b" keys). */
static bool
known_name(const char *k, int col)
{
    for (size_t i = 0; i < NPARAM_NAMES; i++) {
        const char *name = col == 0   ? param_names[i].plan
                           : col == 1 ? param_names[i].journal
                                      : param_names[i].nsperf;
        const char *dot = strchr(name, '.');
        if (strcmp(k, name) == 0 ||
            (dot != NULL && strlen(k) == (size_t)(dot - name) && strncmp(k, name, strlen(k)) == 0))
            return true;
    }
    return false;
}

/* obj holds exactly the parameters that apply to kind (under the names of column col: 0 plan,
 * 1 journal, 2 nsperf), each at want; extra lists the other keys it may have. */
static void
assert_params(const char *who, const char *scen, const json_t *obj, int col, int kind,
              const char *const *extra)
{
    assert_true(json_is_object(obj));
    size_t known = 0;
    for (size_t i = 0; i < NPARAM_NAMES; i++) {
        const char *key = col == 0   ? param_names[i].plan
                          : col == 1 ? param_names[i].journal
                                     : param_names[i].nsperf;
        const json_t *v = member(obj, key);
        enum testspec_param p = param_names[i].p;
        if (!testspec_applies(p, kind)) {
            if (v != NULL)
                fail_msg("%s %s: %s does not apply to the kind but is there", who, scen, key);
            continue;
        }
        if (v == NULL)
            fail_msg("%s %s: no %s", who, scen, key);
        double want = params_expected(scen, kind, p);
        if (fabs(json_param(v) - want) > 1e-9 * fabs(want))
            fail_msg("%s %s: %s is %.17g, want %.17g", who, scen, key, json_param(v), want);
        if (testspec_type(p) == TESTSPEC_BOOL        ? !json_is_boolean(v)
            : testspec_type(p) == TESTSPEC_DIRECTION ? !json_is_string(v)
                                                     : !json_is_number(v))
            fail_msg("%s %s: %s has the wrong type", who, scen, key);
        known++;
    }
    const char *k;
    const json_t *v;
    json_object_foreach((json_t *)(uintptr_t)obj, k, v)
    {
        bool ok = known_name(k, col);
        for (size_t i = 0; extra != NULL && extra[i] != NULL && !ok; i++)
            ok = strcmp(k, extra[i]) == 0;
        if (!ok)
            fail_msg("%s %s: unexpected member %s", who, scen, k);
    }
    (void)known;
}

/* The client's -J document of the trial whose result is rec's: the runner records nsperf's
 * result unchanged, so the two match exactly. */
static json_t *
client_doc_of(const json_t *rec)
{
    DIR *d = opendir(tmpdir);
    assert_non_null(d);
    json_t *found = NULL;
    struct dirent *de;
    while (found == NULL && (de = readdir(d)) != NULL) {
        if (strncmp(de->d_name, "client.", 7) != 0)
            continue;
        char path[PATH_MAX];
        tmp_path(path, sizeof path, de->d_name);
        json_t *doc = json_load_file(path, 0, NULL);
        if (doc != NULL &&
            json_equal(json_object_get(doc, "result"), json_object_get(rec, "result")))
            found = doc;
        else
            json_decref(doc);
    }
    closedir(d);
    return found;
}

/* The report says how each figure was measured: summary.json's params of every scenario are
 * the recorded ones (tcp_stream's copy, the rr kinds' busy_poll among them), and report.md's
 * "Parameters:" line of a scenario names both where they apply. */
static void
assert_report_params(const json_t *rscens)
{
    const char *args[] = {"report", "params", NULL};
    char *o, *e;
    int st = ns_run(args, "NETSURVEY_GNUPLOT=/nonexistent", &o, &e);
    if (st != 0)
        fail_msg("report: exit %d\n%s\n%s", st, o, e);
    free(o);
    free(e);
    char path[PATH_MAX];
    tmp_path(path, sizeof path, "params/summary.json");
    json_t *sum = json_load_file(path, 0, NULL);
    assert_non_null(sum);
    tmp_path(path, sizeof path, "params/report.md");
    char *md = read_text(path);
    assert_non_null(md);
    static const char *const summary_extra[] = {"planned", NULL};
    const json_t *sscens = json_object_get(sum, "scenarios");
    assert_int_equal(json_array_size(sscens), json_array_size(rscens));
    for (size_t i = 0; i < json_array_size(sscens); i++) {
        const json_t *ss = json_array_get(sscens, i);
        const char *name = str_at(ss, "name", NULL);
        int kind = testspec_kind_find(str_at(ss, "test", NULL));
        assert_params("summary.json", name, json_object_get(ss, "params"), 1, kind, summary_extra);
        bool copy = testspec_applies(TESTSPEC_P_COPY, kind);
        bool busy = testspec_applies(TESTSPEC_P_BUSY_POLL, kind);
        bool set = params_expected(name, kind, copy ? TESTSPEC_P_COPY : TESTSPEC_P_BUSY_POLL) != 0;
        char heading[64], want[64];
        snprintf(heading, sizeof heading, "## Scenario %s:", name);
        const char *at = strstr(md, heading);
        if (at == NULL)
            fail_msg("report.md: no section %s", heading);
        const char *line = strstr(at, "Parameters: ");
        assert_non_null(line);
        const char *eol = strchr(line, '\n');
        snprintf(want, sizeof want, "%s %s", copy ? "copy" : "busy_poll", set ? "true" : "false");
        const char *hit = strstr(line, want);
        if ((copy || busy) && (hit == NULL || (eol != NULL && hit > eol)))
            fail_msg("report.md %s: no '%s' in its parameters", name, want);
    }
    free(md);
    json_decref(sum);
}

static void
test_params_recorded_as_run(void **state)
{
    (void)state;
    write_file("params.yaml", params_plan, 0644);
    char wrapper[PATH_MAX * 2 + 256];
    snprintf(wrapper, sizeof wrapper,
             "#!/bin/sh\n"
             "case \" $* \" in *\" -c \"*) out=%s/client.$$.json; %s \"$@\" >\"$out\"; st=$?;\n"
             "  cat \"$out\"; exit $st;; esac\n"
             "exec %s \"$@\"\n",
             tmpdir, NSPERF_BIN, NSPERF_BIN);
    write_file("nsperf-tee", wrapper, 0755);
    char *o, *e;
    const char *plan_args[] = {"plan", "--json", "params.yaml", NULL};
    assert_int_equal(ns_run(plan_args, NULL, &o, &e), 0);
    json_t *plan = json_loads(o, 0, NULL);
    assert_non_null(plan);
    free(o);
    free(e);
    const char *args[] = {"run",      "params.yaml", "-o", "params",
                          "--nsperf", "nsperf-tee",  "-q", NULL};
    int st = ns_run(args, NULL, &o, &e);
    if (st != 0)
        fail_msg("exit %d\n%s\n%s", st, o, e);
    free(o);
    free(e);
    char path[PATH_MAX];
    tmp_path(path, sizeof path, "params/run.json");
    json_t *run = json_load_file(path, 0, NULL);
    assert_non_null(run);
    struct journal_view v;
    journal_load("params", &v);
    assert_int_equal(v.lines, NSCENARIOS);
    const json_t *pscens = json_object_get(plan, "scenarios");
    const json_t *rscens = json_object_get(run, "scenarios");
    assert_int_equal(json_array_size(pscens), NSCENARIOS);
    assert_int_equal(json_array_size(rscens), NSCENARIOS);
    static const char *const journal_extra[] = {"name", "test", NULL};
    static const char *const run_extra[] = {"name", "test", "trials", "planned", NULL};
    static const char *const nsperf_extra[] = {"test", "family", "udp_recv_buf", NULL};
    for (size_t i = 0; i < NSCENARIOS; i++) {
        const json_t *ps = json_array_get(pscens, i), *rs = json_array_get(rscens, i);
        const char *name = str_at(ps, "name", NULL);
        int kind = testspec_kind_find(str_at(ps, "test", NULL));
        assert_true(kind >= 0);
        assert_string_equal(str_at(rs, "name", NULL), name);
        assert_params("plan --json", name, json_object_get(ps, "params"), 0, kind, NULL);
        assert_params("run.json", name, rs, 1, kind, run_extra);
        const json_t *rec = NULL;
        size_t j;
        json_t *r;
        json_array_foreach(v.recs, j, r) if (strcmp(str_at(r, "scenario", "name"), name) == 0) rec =
            r;
        assert_non_null(rec);
        assert_string_equal(str_at(rec, "status", NULL), "ok");
        assert_params("the trial record", name, json_object_get(rec, "scenario"), 1, kind,
                      journal_extra);
        json_t *doc = client_doc_of(rec);
        if (doc == NULL)
            fail_msg("%s: no client document with the recorded result", name);
        assert_params("nsperf -J", name, json_object_get(doc, "params"), 2, kind, nsperf_extra);
        json_decref(doc);
    }
    assert_report_params(rscens);
    json_decref(v.recs);
    json_decref(run);
    json_decref(plan);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_params_recorded_as_run),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
