/* test_record.c - the journal's records (record.c): the writer and the reader round trip every
 * field of a trial record and of run.json (revisions, adaptive trials, sweeps, the new kinds,
 * the host flags), the key of a record, errors of run.json, and the fast decoder agreeing with
 * jansson on the writer's own lines. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "common/hist.h"
#include "common/histjson.h"
#include "journal/journal.h"
#include "journal/scan.h"

#include "jtest.h"

static struct hist *
sample_hist(void)
{
    struct hist *h = hist_new();
    assert_non_null(h);
    for (uint64_t i = 0; i < 5000; i++)
        hist_record(h, 20000 + (i * 7919) % 400000);
    return h;
}

static void
test_trial_round_trip_every_field(void **state)
{
    (void)state;
    char dir[PATH_MAX];
    struct journal *j = fresh("a/b/run", dir);
    struct err e = {0};
    struct hist *h = sample_hist();
    json_t *res = sample_result(h);
    struct collected c = {.h = h};
    c.want[0] = sample_trial(1, JOURNAL_OK);
    c.want[1] = sample_trial(2, JOURNAL_FAILED);
    c.want[2] = sample_trial(3, JOURNAL_NOT_RUN);
    c.want[2].attempt = NULL; /* the count alone, as records before the list */
    c.want[2].attempts = 0;
    assert_int_equal(journal_append(j, &c.want[0], res, &e), 0);
    assert_int_equal(journal_append(j, &c.want[1], res, &e), 0); /* a failed one's partial result */
    assert_int_equal(journal_append(j, &c.want[2], res, &e), 0);
    journal_free(j);
    for (int slow = 0; slow < 2; slow++) {
        if (slow)
            setenv("NETSURVEY_JOURNAL_SLOW", "1", 1);
        c.n = 0;
        struct journal_read_stats st;
        assert_int_equal(journal_read_trials(dir, NULL, collect, skipped, &c, &st, &e), 0);
        unsetenv("NETSURVEY_JOURNAL_SLOW");
        assert_int_equal(c.n, 3);
        assert_int_equal(st.records, 3);
        assert_int_equal(st.bad + st.torn, 0);
        assert_int_equal(c.skipped, 0);
    }
    /* A directory that holds anything is never reused by a new run. */
    assert_int_equal(journal_create(dir, &j, &e), NS_EBUSY);
    assert_null(j);
    assert_non_null(strstr(e.msg, "exists and is not empty"));
    json_decref(res);
    hist_free(h);
}

/* The writer's own lines are the fast decoder's: it takes them, and jansson agrees. */
static void
test_fast_decoder_takes_written_lines(void **state)
{
    (void)state;
    struct hist *h = sample_hist();
    json_t *res = sample_result(h);
    struct journal_scan *s = journal_scan_new();
    struct journal_buckets bb = {0};
    static const enum journal_status statuses[] = {JOURNAL_FAILED, JOURNAL_OK, JOURNAL_NOT_RUN};
    for (int k = 0; k < 3; k++) {
        bool ok = statuses[k] == JOURNAL_OK;
        struct journal_trial w = sample_trial(7, statuses[k]);
        json_t *rec = journal_trial_json(&w, ok ? res : NULL);
        char *line = json_dumps(rec, JSON_COMPACT);
        struct journal_trial fast, slow;
        assert_true(journal_scan_trial(s, line, strlen(line), &fast));
        assert_int_equal(journal_trial_from_json(rec, &bb, &slow), 0);
        struct err e;
        assert_int_equal(journal_trial_check(&fast, &e), 0);
        assert_int_equal(journal_trial_check(&slow, &e), 0);
        assert_true(journal_trial_equal(&fast, &slow));
        assert_trial_as_written(&fast, &w);
        if (ok)
            assert_result_of(&fast.result, h);
        free(line);
        json_decref(rec);
    }
    journal_buckets_release(&bb);
    journal_scan_free(s);
    json_decref(res);
    hist_free(h);
}

static void
test_run_round_trip_every_field(void **state)
{
    (void)state;
    char dir[PATH_MAX];
    struct journal *j = fresh("runjson", dir);
    struct err e = {0};
    json_t *env = json_pack("{s:s, s:i}", "kernel", "6.1", "cpus", 4);
    struct journal_run_host hosts[] = {{.name = "a",
                                        .zone = "1",
                                        .region = "r",
                                        .data_address = "10.0.0.1",
                                        .transport = "local",
                                        .env = env,
                                        .arch = "aarch64",
                                        .endpoint_build = "nsperf-static-aarch64",
                                        .endpoint_sha256 = "a4fc",
                                        .endpoint_path = "/h/.cache/netsurvey/nsperf-static-a4fc"},
                                       {.name = "b",
                                        .zone = "2",
                                        .region = "r",
                                        .data_address = "10.0.0.2",
                                        .transport = "ssh",
                                        .error = "cannot connect"}};
    struct journal_run_scenario scens[] = {
        {.sc = sample_trial(1, JOURNAL_OK).scenario, .trials = 3, .planned = 6},
        {.sc = {.name = "tput",
                .kind = TESTSPEC_TCP_STREAM,
                .streams = 4,
                .msg_size = 1 << 20,
                .response_size = 99, /* does not apply to tcp_stream: never written */
                .duration_s = 10,
                .rate_bps = 900000000,
                .reverse = true,
                .interval_s = 1},
         .trials = 1,
         .planned = 2}};
    struct journal_pair pairs[] = {{0, 1}, {1, 0}};
    static const char source[] = "name: p\nhosts: []\n\t\"x\": \xc3\xa9\n";
    struct journal_run_inventory invs[] = {
        {.file = "vms.json", .path = "/p/vms.json", .format = "azure", .sha256 = "aa11"},
        {.file = "~/.ssh/config",
         .path = "/h/.ssh/config",
         .format = "ssh_config",
         .sha256 = "bb"}};
    struct journal_run w = {.run_id = "r1",
                            .plan_name = "p",
                            .plan_description = "a \"plan\" & its words",
                            .plan_file = "p.yaml",
                            .plan_sha256 = "00ff",
                            .plan_source = source,
                            .plan_source_len = sizeof source - 1,
                            .netsurvey_version = "0.1.0",
                            .nsperf_version = NULL,
                            .nsperf_sha256 = "abab",
                            .started = "2026-11-30T15:00:00.123Z",
                            .command = "netsurvey run p.yaml",
                            .rounds = 4,
                            .tests = 12,
                            .pairs = 2,
                            .estimate_s = 28.5,
                            .hosts = hosts,
                            .nhosts = 2,
                            .scenarios = scens,
                            .nscenarios = 2,
                            .state = JOURNAL_RUN_INTERRUPTED,
                            .ended = "2026-11-30T15:01:00.000Z",
                            .pair_list = pairs,
                            .npair_list = 2,
                            .inventories = invs,
                            .ninventories = 2};
    assert_int_equal(journal_write_run(j, &w, &e), 0);
    journal_free(j);
    struct journal_run *r = NULL;
    assert_int_equal(journal_read_run(dir, &r, &e), 0);
    assert_string_equal(r->schema, JOURNAL_RUN_SCHEMA);
    assert_string_equal(r->run_id, "r1");
    assert_string_equal(r->plan_name, "p");
    assert_string_equal(r->plan_file, "p.yaml");
    assert_string_equal(r->plan_sha256, "00ff");
    assert_string_equal(r->plan_description, w.plan_description);
    assert_int_equal(r->plan_source_len, sizeof source - 1);
    assert_memory_equal(r->plan_source, source, sizeof source - 1);
    assert_string_equal(r->netsurvey_version, "0.1.0");
    assert_null(r->nsperf_version);
    assert_string_equal(r->nsperf_sha256, "abab");
    assert_non_null(json_object_get(r->tool, "nsperf_version"));
    assert_string_equal(r->started, w.started);
    assert_string_equal(r->command, w.command);
    assert_int_equal(r->rounds, 4);
    assert_int_equal(r->tests, 12);
    assert_int_equal(r->pairs, 2);
    assert_true(r->estimate_s == 28.5);
    assert_int_equal(r->state, JOURNAL_RUN_INTERRUPTED);
    assert_string_equal(r->ended, w.ended);
    assert_true(r->has_pairs);
    assert_int_equal(r->npair_list, 2);
    assert_int_equal(r->pair_list[0].src, 0);
    assert_int_equal(r->pair_list[0].dst, 1);
    assert_int_equal(r->pair_list[1].src, 1);
    assert_int_equal(r->pair_list[1].dst, 0);
    assert_int_equal(r->nhosts, 2);
    for (size_t i = 0; i < 2; i++) {
        assert_string_equal(r->hosts[i].name, hosts[i].name);
        assert_string_equal(r->hosts[i].zone, hosts[i].zone);
        assert_string_equal(r->hosts[i].region, hosts[i].region);
        assert_string_equal(r->hosts[i].data_address, hosts[i].data_address);
        assert_string_equal(r->hosts[i].transport, hosts[i].transport);
        assert_str(r->hosts[i].error, hosts[i].error);
        /* the architecture and the endpoint deployed: written where known, read back */
        assert_str(r->hosts[i].arch, hosts[i].arch);
        assert_str(r->hosts[i].endpoint_build, hosts[i].endpoint_build);
        assert_str(r->hosts[i].endpoint_sha256, hosts[i].endpoint_sha256);
        assert_str(r->hosts[i].endpoint_path, hosts[i].endpoint_path);
    }
    assert_null(r->hosts[1].arch);
    assert_null(json_object_get(json_array_get(json_object_get(r->json, "hosts"), 1), "endpoint"));
    assert_true(json_equal(r->hosts[0].env, env));
    assert_true(json_is_null(r->hosts[1].env));
    assert_int_equal(r->nscenarios, 2);
    for (size_t i = 0; i < 2; i++) {
        assert_scenario_as_written(&r->scenarios[i].sc, &scens[i].sc);
        assert_int_equal(r->scenarios[i].trials, scens[i].trials);
        assert_int_equal(r->scenarios[i].planned, scens[i].planned);
        assert_int_equal(json_integer_value(json_object_get(r->scenarios[i].recorded, "trials")),
                         scens[i].trials);
    }
    assert_int_equal(r->ninventories, 2);
    for (size_t i = 0; i < 2; i++) {
        assert_string_equal(r->inventories[i].file, invs[i].file);
        assert_string_equal(r->inventories[i].path, invs[i].path);
        assert_string_equal(r->inventories[i].format, invs[i].format);
        assert_string_equal(r->inventories[i].sha256, invs[i].sha256);
    }
    journal_run_free(r);
    /* a run without inventories writes none, and reads as none */
    w.ninventories = 0;
    json_t *doc = journal_run_json(&w);
    assert_null(json_object_get(json_object_get(doc, "plan"), "inventories"));
    assert_int_equal(journal_run_from_json(doc, &r, &e), 0);
    assert_int_equal(r->ninventories, 0);
    journal_run_free(r);
    json_decref(doc);
    json_decref(env);
}

/* Adaptive trials in run.json: the policy and the least and most trials planned, written as
 * objects and read back; a fixed count beside them keeps its numbers; an adaptive policy that
 * does not hold together reads as a fixed count of its min. */
static void
test_run_adaptive_trials(void **state)
{
    (void)state;
    struct err e = {0};
    struct journal_run_scenario scens[] = {
        {.sc = sample_trial(1, JOURNAL_OK).scenario,
         .policy = {3, 10, 0.02},
         .trials = 3,
         .planned = 6,
         .planned_max = 20},
        {.sc = sample_trial(1, JOURNAL_OK).scenario, .trials = 2, .planned = 4}};
    scens[1].sc.name = "fixed";
    struct journal_run w = {.run_id = "r1",
                            .plan_name = "p",
                            .plan_file = "p.yaml",
                            .plan_sha256 = "00ff",
                            .plan_source = "x",
                            .plan_source_len = 1,
                            .netsurvey_version = "0.1.0",
                            .nsperf_sha256 = "abab",
                            .started = "2026-11-30T15:00:00.123Z",
                            .command = "netsurvey run p.yaml",
                            .scenarios = scens,
                            .nscenarios = 2};
    json_t *doc = journal_run_json(&w);
    assert_non_null(doc);
    const json_t *s0 = json_array_get(json_object_get(doc, "scenarios"), 0);
    const json_t *s1 = json_array_get(json_object_get(doc, "scenarios"), 1);
    const json_t *t = json_object_get(s0, "trials"), *pl = json_object_get(s0, "planned");
    assert_int_equal(json_integer_value(json_object_get(t, "min")), 3);
    assert_int_equal(json_integer_value(json_object_get(t, "max")), 10);
    assert_true(json_real_value(json_object_get(t, "target_ci")) == 0.02);
    assert_int_equal(json_integer_value(json_object_get(pl, "min")), 6);
    assert_int_equal(json_integer_value(json_object_get(pl, "max")), 20);
    assert_int_equal(json_integer_value(json_object_get(s1, "trials")), 2);
    assert_int_equal(json_integer_value(json_object_get(s1, "planned")), 4);
    struct journal_run *r = NULL;
    assert_int_equal(journal_run_from_json(doc, &r, &e), 0);
    const struct journal_run_scenario *a = &r->scenarios[0], *f = &r->scenarios[1];
    assert_true(trials_adaptive(&a->policy) && a->policy.min == 3 && a->policy.max == 10);
    assert_true(a->policy.target == 0.02);
    assert_true(a->trials == 3 && a->planned == 6 && a->planned_max == 20);
    assert_false(trials_adaptive(&f->policy));
    assert_true(f->policy.min == 2 && f->policy.max == 2);
    assert_true(f->trials == 2 && f->planned == 4 && f->planned_max == 4);
    journal_run_free(r);
    /* max below min, or no target: a fixed count of min */
    json_t *bad = json_pack("{s:i, s:i, s:f}", "min", 5, "max", 3, "target_ci", 0.02);
    json_object_set_new(json_array_get(json_object_get(doc, "scenarios"), 0), "trials", bad);
    assert_int_equal(journal_run_from_json(doc, &r, &e), 0);
    assert_false(trials_adaptive(&r->scenarios[0].policy));
    assert_int_equal(r->scenarios[0].policy.max, 5);
    journal_run_free(r);
    json_object_del(bad, "target_ci");
    json_object_set_new(bad, "max", json_integer(8));
    assert_int_equal(journal_run_from_json(doc, &r, &e), 0);
    assert_false(trials_adaptive(&r->scenarios[0].policy));
    assert_int_equal(r->scenarios[0].policy.max, 5);
    journal_run_free(r);
    json_decref(doc);
}

static void
test_run_errors(void **state)
{
    (void)state;
    char dir[PATH_MAX], path[PATH_MAX];
    struct journal_run *r = NULL;
    struct err e = {0};
    path_in(dir, sizeof dir, "no-such-run", NULL);
    assert_int_equal(journal_read_run(dir, &r, &e), NS_ENOTFOUND);
    assert_non_null(strstr(e.msg, "unable to open"));
    assert_null(r);
    path_in(dir, sizeof dir, "badrun", NULL);
    struct journal *j = NULL;
    assert_int_equal(journal_create(dir, &j, &e), 0);
    journal_free(j);
    path_in(path, sizeof path, "badrun", JOURNAL_RUN_FILE);
    file_append(path, "{\"schema\":\"netsurvey.run/1\",\n \"x\":}");
    assert_int_equal(journal_read_run(dir, &r, &e), NS_EPARSE);
    assert_non_null(strstr(e.msg, "run.json:2:"));
    /* A kind testspec.h does not know is an error, never some other kind. */
    unlink(path);
    file_append(path, "{\"schema\":\"netsurvey.run/1\",\"scenarios\":[{\"name\":\"x\","
                      "\"test\":\"tcp_maerts\"}]}");
    assert_int_equal(journal_read_run(dir, &r, &e), NS_EPARSE);
    assert_non_null(strstr(e.msg, "scenario 'x': unknown test kind 'tcp_maerts'"));
    /* A schema this netsurvey does not read is refused by name, with the one it reads. */
    static const struct {
        const char *doc, *msg;
    } schemas[] = {
        {"{\"schema\":\"netsurvey.run/9\"}",
         "run.json: unsupported schema 'netsurvey.run/9' (this netsurvey reads netsurvey.run/3, "
         "netsurvey.run/2 and netsurvey.run/1)"},
        {"{\"schema\":\"netsurvey.summary/1\"}",
         "run.json: schema 'netsurvey.summary/1' is not a netsurvey run (this netsurvey reads "
         "netsurvey.run/3, netsurvey.run/2 and netsurvey.run/1)"},
        {"{\"scenarios\":[]}",
         "run.json: no schema: not a netsurvey run (this netsurvey reads netsurvey.run/3, "
         "netsurvey.run/2 and netsurvey.run/1)"},
    };
    for (size_t i = 0; i < sizeof schemas / sizeof schemas[0]; i++) {
        unlink(path);
        file_append(path, schemas[i].doc);
        assert_int_equal(journal_read_run(dir, &r, &e), NS_EPROTO);
        assert_null(r);
        assert_non_null(strstr(e.msg, schemas[i].msg));
    }
    /* The cap: one byte more than JOURNAL_RUN_MAX is refused without reading it all. */
    int fd = open(path, O_WRONLY | O_TRUNC);
    assert_true(fd >= 0);
    assert_int_equal(ftruncate(fd, (off_t)JOURNAL_RUN_MAX + 1), 0);
    close(fd);
    assert_int_equal(journal_read_run(dir, &r, &e), NS_ETOOBIG);
    assert_null(r);
}

static void
test_key(void **state)
{
    (void)state;
    struct journal_trial a = sample_trial(1, JOURNAL_OK), b = sample_trial(1, JOURNAL_FAILED);
    struct journal_key ka, kb;
    journal_trial_key(&a, &ka);
    journal_trial_key(&b, &kb);
    assert_string_equal(ka.run_id, "20261130T150000Z-7f3c");
    assert_string_equal(ka.scenario, "latency");
    assert_string_equal(ka.src, "zone1-vm");
    assert_string_equal(ka.dst, "zone2-vm");
    assert_int_equal(ka.family, JOURNAL_IPV6);
    assert_int_equal(ka.trial, 1);
    assert_true(journal_key_equal(&ka, &kb)); /* status, error, times are not the key */
    struct journal_key k = ka;
    k.trial = 2;
    assert_false(journal_key_equal(&ka, &k));
    k = ka;
    k.family = JOURNAL_IPV4;
    assert_false(journal_key_equal(&ka, &k));
    k = ka;
    k.src = "zone2-vm";
    assert_false(journal_key_equal(&ka, &k));
    k = ka;
    k.dst = NULL;
    assert_false(journal_key_equal(&ka, &k));
    k = ka;
    k.scenario = "throughput";
    assert_false(journal_key_equal(&ka, &k));
    /* the same trial of another run is another trial: a merge keeps both */
    k = ka;
    k.run_id = "20261201T150000Z-0001";
    assert_false(journal_key_equal(&ka, &k));
    /* the last ok record wins, else the last failed one */
    assert_true(journal_supersedes(true, true));
    assert_true(journal_supersedes(true, false));
    assert_true(journal_supersedes(false, false));
    assert_false(journal_supersedes(false, true));
    assert_int_equal(journal_family_of("fd00::1"), JOURNAL_IPV6);
    assert_int_equal(journal_family_of("10.0.0.1"), JOURNAL_IPV4);
}

/* A trial of a plan's revision 2 or later says it (version 4); one of the first does not (version
 * 3, as before revisions); both decoders read it. */
static void
test_trial_revision(void **state)
{
    (void)state;
    for (uint32_t rev = 0; rev <= 2; rev++) {
        struct journal_trial t = sample_trial(1, JOURNAL_FAILED);
        t.revision = rev;
        json_t *o = journal_trial_json(&t, NULL);
        assert_non_null(o);
        assert_string_equal(json_string_value(json_object_get(o, "schema")),
                            rev > 1 ? JOURNAL_TRIAL_SCHEMA_4 : JOURNAL_TRIAL_SCHEMA);
        assert_true((json_object_get(o, "revision") != NULL) == (rev > 1));
        char *line = json_dumps(o, JSON_COMPACT);
        char buf[8192];
        snprintf(buf, sizeof buf, "%s\n", line);
        free(line);
        json_decref(o);
        struct journal_trial got;
        bool took;
        char why[NS_ERR_MSG_MAX];
        assert_int_equal(decode(buf, &got, &took, why, sizeof why), 0);
        assert_true(took);
        assert_int_equal(got.revision, rev > 1 ? rev : 0);
    }
}

/* run.json of a revised run (version 3): its revision, and the earlier ones beside it, read
 * back with their hosts and scenarios; one of a single revision stays version 2. */
static void
test_run_revisions(void **state)
{
    (void)state;
    char dir[PATH_MAX];
    struct journal *j = fresh("revised", dir);
    struct err e = {0};
    struct journal_run_host hosts[] = {
        {.name = "a", .zone = "1", .region = "r", .data_address = "10.0.0.1", .transport = "ssh"}};
    struct journal_run_scenario scens[] = {
        {.sc = sample_trial(1, JOURNAL_OK).scenario, .trials = 3, .planned = 6}};
    json_t *revs = json_loads(
        "[{\"revision\":1,\"started\":\"t0\",\"command\":\"c0\",\"plan\":{\"sha256\":\"aa\","
        "\"file\":\"p.yaml\"},\"hosts\":[{\"name\":\"a\",\"zone\":\"1\"},{\"name\":\"gone\","
        "\"zone\":\"2\"}],\"scenarios\":[{\"name\":\"lat\",\"test\":\"tcp_rr\",\"msg_size\":"
        "250,\"trials\":2,\"planned\":4}],\"pairs\":[[0,1]]}]",
        0, NULL);
    json_t *resumes =
        json_loads("[{\"started\":\"t1\",\"command\":\"c1\",\"revision\":2}]", 0, NULL);
    assert_non_null(revs);
    assert_non_null(resumes);
    struct journal_run w = {.run_id = "r1",
                            .plan_name = "p",
                            .plan_file = "p.yaml",
                            .plan_sha256 = "bb",
                            .plan_source = "x",
                            .plan_source_len = 1,
                            .netsurvey_version = "0",
                            .nsperf_sha256 = "cc",
                            .started = "t0",
                            .command = "c0",
                            .state = JOURNAL_RUN_RUNNING,
                            .hosts = hosts,
                            .nhosts = 1,
                            .scenarios = scens,
                            .nscenarios = 1,
                            .revision = 2,
                            .revisions_json = revs,
                            .resumes_json = resumes};
    assert_int_equal(journal_write_run(j, &w, &e), 0);
    journal_free(j);
    struct journal_run *r = NULL;
    assert_int_equal(journal_read_run(dir, &r, &e), 0);
    assert_string_equal(r->schema, JOURNAL_RUN_SCHEMA_3);
    assert_int_equal(r->revision, 2);
    assert_int_equal(r->nrevisions, 1);
    assert_int_equal(r->revisions[0].revision, 1);
    assert_string_equal(r->revisions[0].plan_sha256, "aa");
    assert_string_equal(r->revisions[0].started, "t0");
    assert_int_equal(r->revisions[0].nhosts, 2);
    assert_string_equal(r->revisions[0].hosts[1].name, "gone");
    assert_int_equal(r->revisions[0].nscenarios, 1);
    assert_int_equal(r->revisions[0].scenarios[0].sc.kind, TESTSPEC_TCP_RR);
    assert_int_equal(r->revisions[0].scenarios[0].sc.msg_size, 250);
    assert_int_equal(r->revisions[0].scenarios[0].trials, 2);
    assert_int_equal(json_array_size(json_object_get(r->json, "resumes")), 1);
    journal_run_free(r);
    /* one revision: version 2, no revision members */
    w.revision = 1;
    j = fresh("single", dir);
    assert_int_equal(journal_write_run(j, &w, &e), 0);
    journal_free(j);
    assert_int_equal(journal_read_run(dir, &r, &e), 0);
    assert_string_equal(r->schema, JOURNAL_RUN_SCHEMA);
    assert_int_equal(r->revision, 1);
    assert_int_equal(r->nrevisions, 0);
    assert_null(json_object_get(r->json, "revisions"));
    journal_run_free(r);
    json_decref(revs);
    json_decref(resumes);
}

/* A sweep's trial: written as version 5 with "sweep" naming the parameter whose member holds
 * the value, read alike by both decoders, its value part of the key; a "sweep" that names no
 * sweepable parameter of the kind reads as no sweep; run.json keeps the list. */
static void
test_sweep_records(void **state)
{
    (void)state;
    struct journal_trial a = sample_trial(1, JOURNAL_OK);
    a.scenario.name = "sizes";
    a.scenario.test = "tcp_stream";
    a.scenario.kind = TESTSPEC_TCP_STREAM;
    a.scenario.msg_size = 65536;
    a.scenario.streams = 1;
    a.scenario.swept = true;
    a.scenario.sweep = TESTSPEC_P_MSG_SIZE;
    json_t *j = journal_trial_json(&a, NULL);
    assert_non_null(j);
    assert_string_equal(json_string_value(json_object_get(j, "schema")), JOURNAL_TRIAL_SCHEMA_5);
    const json_t *sc = json_object_get(j, "scenario");
    assert_string_equal(json_string_value(json_object_get(sc, "sweep")), "msg_size");
    assert_int_equal(json_integer_value(json_object_get(sc, "msg_size")), 65536);
    char *line = json_dumps(j, JSON_COMPACT);
    json_decref(j);
    struct journal_trial t;
    bool took;
    char why[NS_ERR_MSG_MAX];
    assert_int_equal(decode(line, &t, &took, why, sizeof why), 0);
    assert_true(took);
    assert_true(t.scenario.swept);
    assert_int_equal(t.scenario.sweep, TESTSPEC_P_MSG_SIZE);
    struct journal_key k1, k2;
    journal_trial_key(&t, &k1);
    assert_true(k1.swept && k1.sweep == TESTSPEC_P_MSG_SIZE && k1.value == 65536);
    /* the same scenario, pair and trial at another value is another trial */
    a.scenario.msg_size = 1024;
    journal_trial_key(&a, &k2);
    assert_true(k2.value == 1024);
    assert_false(journal_key_equal(&k1, &k2));
    a.scenario.msg_size = 65536;
    journal_trial_key(&a, &k2);
    assert_true(journal_key_equal(&k1, &k2));
    a.scenario.swept = false; /* a sweep's trial is not the unswept scenario's */
    journal_trial_key(&a, &k2);
    assert_false(journal_key_equal(&k1, &k2));
    free(line);
    /* what "sweep" may name: a parameter of the table that the kind takes and that may be
     * swept, by its record key; anything else reads as no sweep, by both decoders */
    static const struct {
        const char *scenario;
        bool swept;
        int param;
    } cases[] = {
        {"{\"test\":\"tcp_stream\",\"msg_size\":64,\"sweep\":\"msg_size\"}", true,
         TESTSPEC_P_MSG_SIZE},
        {"{\"test\":\"udp_stream\",\"rate_bps\":1000000,\"sweep\":\"rate_bps\"}", true,
         TESTSPEC_P_RATE},
        {"{\"test\":\"tcp_rr\",\"response_size\":1024,\"sweep\":\"response_size\"}", true,
         TESTSPEC_P_RESPONSE_SIZE},
        {"{\"test\":\"tcp_stream\",\"sweep\":\"rate\"}", false, 0},       /* the plan key */
        {"{\"test\":\"tcp_stream\",\"sweep\":\"duration_s\"}", false, 0}, /* not sweepable */
        {"{\"test\":\"tcp_rr\",\"sweep\":\"streams\"}", false, 0},        /* not tcp_rr's */
        {"{\"test\":\"tcp_stream\",\"sweep\":7}", false, 0},
        {"{\"test\":\"tcp_stream\",\"sweep\":null}", false, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char rec[512];
        snprintf(rec, sizeof rec,
                 "{\"schema\":\"%s\",\"scenario\":%s,\"trial\":1,\"status\":\"ok\"}\n",
                 JOURNAL_TRIAL_SCHEMA_5, cases[i].scenario);
        assert_int_equal(decode(rec, &t, &took, why, sizeof why), 0);
        if (t.scenario.swept != cases[i].swept ||
            (cases[i].swept && (int)t.scenario.sweep != cases[i].param))
            fail_msg("%s: swept %d param %d", cases[i].scenario, t.scenario.swept,
                     (int)t.scenario.sweep);
    }
    /* run.json: the list in the parameter's place, read back with the first value */
    struct journal_run_scenario rs = {.sc = sample_trial(1, JOURNAL_OK).scenario,
                                      .trials = 2,
                                      .planned = 24,
                                      .nvalues = 3,
                                      .values = {64, 1024, 65536}};
    rs.sc.name = "sizes";
    rs.sc.test = "tcp_stream";
    rs.sc.kind = TESTSPEC_TCP_STREAM;
    rs.sc.swept = true;
    rs.sc.sweep = TESTSPEC_P_MSG_SIZE;
    struct journal_run w = {.run_id = "r1",
                            .plan_name = "p",
                            .plan_file = "p.yaml",
                            .plan_sha256 = "00ff",
                            .plan_source = "x",
                            .plan_source_len = 1,
                            .netsurvey_version = "0.1.0",
                            .nsperf_sha256 = "abab",
                            .started = "2026-11-30T15:00:00.123Z",
                            .command = "netsurvey run p.yaml",
                            .scenarios = &rs,
                            .nscenarios = 1};
    json_t *doc = journal_run_json(&w);
    json_t *s0 = json_array_get(json_object_get(doc, "scenarios"), 0);
    char *list = json_dumps(json_object_get(s0, "msg_size"), JSON_COMPACT | JSON_ENCODE_ANY);
    assert_string_equal(list, "[64,1024,65536]");
    free(list);
    assert_string_equal(json_string_value(json_object_get(s0, "sweep")), "msg_size");
    struct journal_run *r = NULL;
    struct err e = {0};
    assert_int_equal(journal_run_from_json(doc, &r, &e), 0);
    assert_true(r->scenarios[0].sc.swept && r->scenarios[0].sc.sweep == TESTSPEC_P_MSG_SIZE);
    assert_int_equal(r->scenarios[0].nvalues, 3);
    assert_true(r->scenarios[0].values[2] == 65536);
    assert_int_equal(r->scenarios[0].sc.msg_size, 64);
    assert_int_equal(r->scenarios[0].planned, 24);
    journal_run_free(r);
    /* a list that is no sweep's: one value, a value twice, a value of another type */
    static const char *const bad[] = {"[64]", "[64,64]", "[64,\"1K\"]", "[64,1.5]", "7"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        json_object_set_new(s0, "msg_size", json_loads(bad[i], JSON_DECODE_ANY, NULL));
        assert_int_equal(journal_run_from_json(doc, &r, &e), NS_EPARSE);
        assert_non_null(strstr(e.msg, "scenario 'sizes'"));
    }
    json_decref(doc);
}

/* The parameters and figures of issue 30's kinds: a load's streams and direction (by its name:
 * another name, or not a string, reads as forward), --bidir and udp_pps's packet rate, and the
 * figures beside a headline that sit in objects of the result (idle_rtt_us's mean, the load's
 * and each direction's throughput_bps), each absent when its object or number is not one; the
 * fast decoder takes every line here and reads it as jansson does (decode). */
static void
test_new_kinds(void **state)
{
    (void)state;
    static const struct {
        const char *scenario;
        uint64_t load_streams, load_direction;
        bool bidir;
        uint64_t packet_rate;
    } scens[] = {
        {"{\"test\":\"tcp_rr\",\"load_streams\":4,\"load_direction\":\"both\"}", 4, 2, false, 0},
        {"{\"test\":\"udp_rr\",\"load_streams\":1,\"load_direction\":\"reverse\"}", 1, 1, false, 0},
        {"{\"test\":\"tcp_rr\",\"load_streams\":2,\"load_direction\":\"sideways\"}", 2, 0, false,
         0},
        {"{\"test\":\"tcp_rr\",\"load_direction\":2}", 0, 0, false, 0},
        {"{\"test\":\"tcp_stream\",\"bidir\":true}", 0, 0, true, 0},
        {"{\"test\":\"udp_pps\",\"packet_rate\":250000}", 0, 0, false, 250000},
    };
    for (size_t i = 0; i < sizeof scens / sizeof scens[0]; i++) {
        char line[512], why[NS_ERR_MSG_MAX];
        snprintf(line, sizeof line,
                 "{\"schema\":\"%s\",\"scenario\":%s,\"trial\":1,\"status\":\"ok\"}\n",
                 JOURNAL_TRIAL_SCHEMA, scens[i].scenario);
        struct journal_trial t;
        bool took;
        assert_int_equal(decode(line, &t, &took, why, sizeof why), 0);
        assert_true(took);
        if (t.scenario.load_streams != scens[i].load_streams ||
            t.scenario.load_direction != scens[i].load_direction ||
            t.scenario.bidir != scens[i].bidir || t.scenario.packet_rate != scens[i].packet_rate)
            fail_msg("%s: load %llu %llu bidir %d rate %llu", scens[i].scenario,
                     (unsigned long long)t.scenario.load_streams,
                     (unsigned long long)t.scenario.load_direction, t.scenario.bidir,
                     (unsigned long long)t.scenario.packet_rate);
    }
    /* what a record of each writes, read back (the writer names the direction) */
    struct testspec_values v;
    testspec_values_default(&v, TESTSPEC_UDP_RR);
    testspec_values_set(&v, TESTSPEC_P_LOAD_STREAMS, 3);
    testspec_values_set(&v, TESTSPEC_P_LOAD_DIRECTION, TESTSPEC_DIRECTION_BOTH);
    struct journal_scenario sc = journal_scenario_from_spec("lat", &v);
    json_t *o = journal_scenario_json(&sc);
    assert_string_equal(json_string_value(json_object_get(o, "load_direction")), "both");
    assert_int_equal(json_integer_value(json_object_get(o, "load_streams")), 3);
    assert_null(json_object_get(o, "bidir")); /* not udp_rr's */
    json_decref(o);
    static const struct {
        const char *test, *result;
        enum testspec_metric m;
        bool has;
        double value;
    } figs[] = {
        {"tcp_rr", "{\"rtt_us\":{\"mean\":900},\"idle_rtt_us\":{\"mean\":300.5,\"n\":7}}",
         TESTSPEC_M_IDLE_RTT_MEAN, true, 300.5},
        {"tcp_rr", "{\"idle_rtt_us\":300}", TESTSPEC_M_IDLE_RTT_MEAN, false, 0},
        {"tcp_rr", "{\"idle_rtt_us\":{\"mean\":\"300\"}}", TESTSPEC_M_IDLE_RTT_MEAN, false, 0},
        {"tcp_rr", "{\"load\":{\"streams\":4,\"throughput_bps\":9.5e9}}",
         TESTSPEC_M_LOAD_THROUGHPUT, true, 9.5e9},
        {"tcp_rr", "{\"load\":[1]}", TESTSPEC_M_LOAD_THROUGHPUT, false, 0},
        {"tcp_stream",
         "{\"throughput_bps\":3e9,\"forward\":{\"throughput_bps\":2e9},"
         "\"reverse\":{\"throughput_bps\":1e9}}",
         TESTSPEC_M_REVERSE_THROUGHPUT, true, 1e9},
        {"udp_pps", "{\"packets_per_s\":1234567.5,\"sent_packets_per_s\":2e6}", TESTSPEC_M_PACKETS,
         true, 1234567.5},
        {"udp_pps", "{\"packets_per_s\":1,\"sent_packets_per_s\":2e6}", TESTSPEC_M_SENT_PACKETS,
         true, 2e6},
    };
    for (size_t i = 0; i < sizeof figs / sizeof figs[0]; i++) {
        char line[512], why[NS_ERR_MSG_MAX];
        snprintf(line, sizeof line,
                 "{\"schema\":\"%s\",\"scenario\":{\"test\":\"%s\"},\"trial\":1,"
                 "\"status\":\"ok\",\"result\":%s}\n",
                 JOURNAL_TRIAL_SCHEMA, figs[i].test, figs[i].result);
        struct journal_trial t;
        bool took;
        assert_int_equal(decode(line, &t, &took, why, sizeof why), 0);
        assert_true(took);
        if (t.result.has_metric[figs[i].m] != figs[i].has ||
            (figs[i].has && t.result.metric[figs[i].m] != figs[i].value))
            fail_msg("%s: has %d value %g", figs[i].result, t.result.has_metric[figs[i].m],
                     t.result.metric[figs[i].m]);
    }
}

/* "flags" read alike by both decoders: a flag is raised by its name holding a string (its
 * reason); another type, an unknown name or "counters" (not read) raise nothing; a record without
 * an object there was not judged (one of before), {} was and is clean. */
static void
test_flags(void **state)
{
    (void)state;
    static const struct {
        const char *members;
        bool judged;
        unsigned mask;
    } cases[] = {
        {"", false, 0},
        {",\"flags\":null", false, 0},
        {",\"flags\":[\"drops\"]", false, 0},
        {",\"flags\":{}", true, 0},
        {",\"flags\":{\"drops\":\"a\",\"stall\":\"b\",\"steal\":5,\"throttled\":null,"
         "\"bogus\":\"c\"},\"counters\":{\"src\":{\"qdisc\":{\"drops\":1}}}",
         true, 1u << HOSTFLAG_DROPS | 1u << HOSTFLAG_STALL},
        {",\"counters\":{\"src\":null,\"dst\":[1,2]},\"flags\":{\"slow_path\":\"\\u00e9\","
         "\"throttled\":\"ens5 (ena) pps_allowance_exceeded 9\"}",
         true, 1u << HOSTFLAG_SLOW_PATH | 1u << HOSTFLAG_THROTTLED},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char line[512], why[NS_ERR_MSG_MAX];
        snprintf(line, sizeof line,
                 "{\"schema\":\"%s\",\"scenario\":{\"test\":\"udp_stream\"},\"trial\":1,"
                 "\"status\":\"ok\"%s}\n",
                 JOURNAL_TRIAL_SCHEMA, cases[i].members);
        struct journal_trial t;
        bool took;
        assert_int_equal(decode(line, &t, &took, why, sizeof why), 0);
        if (t.judged != cases[i].judged || t.flag_mask != cases[i].mask)
            fail_msg("%s: judged %d, flags %x", cases[i].members, t.judged, t.flag_mask);
        for (int f = 0; f < HOSTFLAG_COUNT; f++)
            assert_int_equal(t.flag_why[f] != NULL, (t.flag_mask >> f) & 1);
    }
    struct journal_trial t;
    bool took;
    char why[NS_ERR_MSG_MAX];
    assert_int_equal(decode("{\"schema\":\"netsurvey.trial/3\",\"scenario\":{\"test\":\"tcp_rr\"},"
                            "\"trial\":1,\"status\":\"ok\",\"flags\":{\"slow_path\":\"\\u00e9\"}}",
                            &t, &took, why, sizeof why),
                     0);
    assert_string_equal(t.flag_why[HOSTFLAG_SLOW_PATH], "\xc3\xa9");
}

/* run.json's completeness: the planned trials of each scenario and the run's state, as
 * recorded; absent, they read as 0 and NULL. */
static void
test_run_planned_and_state(void **state)
{
    (void)state;
    char dir[PATH_MAX], path[PATH_MAX];
    struct journal *j = fresh("planned", dir);
    journal_free(j);
    path_in(path, sizeof path, "planned", JOURNAL_RUN_FILE);
    file_append(path, "{\"schema\":\"netsurvey.run/1\",\"state\":\"interrupted\",\"scenarios\":["
                      "{\"name\":\"a\",\"test\":\"tcp_rr\",\"trials\":3,\"planned\":12},"
                      "{\"name\":\"b\",\"test\":\"tcp_rr\",\"trials\":2}]}");
    struct journal_run *r = NULL;
    struct err e = {0};
    assert_int_equal(journal_read_run(dir, &r, &e), 0);
    assert_int_equal(r->state, JOURNAL_RUN_INTERRUPTED);
    assert_int_equal(r->scenarios[0].trials, 3);
    assert_int_equal(r->scenarios[0].planned, 12);
    assert_int_equal(r->scenarios[1].planned, 0);
    assert_null(r->plan_description);
    journal_run_free(r);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_trial_round_trip_every_field),
        cmocka_unit_test(test_fast_decoder_takes_written_lines),
        cmocka_unit_test(test_run_round_trip_every_field),
        cmocka_unit_test(test_trial_revision),
        cmocka_unit_test(test_run_revisions),
        cmocka_unit_test(test_run_adaptive_trials),
        cmocka_unit_test(test_run_errors),
        cmocka_unit_test(test_key),
        cmocka_unit_test(test_sweep_records),
        cmocka_unit_test(test_flags),
        cmocka_unit_test(test_new_kinds),
        cmocka_unit_test(test_run_planned_and_state),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
