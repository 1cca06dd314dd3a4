/* itest_adaptive.c - trials until the interval is tight (`trials: {min, max, target_ci}`), run
 * as users run it, with figures the test chooses: a stand-in nsperf (a shell script given with
 * --nsperf) makes no traffic and prints a mean RTT that is a pure function of the pair and of
 * how many times that pair ran before: 100 us for a quiet pair, 95 and 105 us alternating for a
 * noisy one (tests/survey/itest.h runs netsurvey; the journal is read back with jansson).
 *
 * Three trials of a noisy pair have a 95 % half-width of 4.303 x 5.77 / sqrt(3) = 14.3 us, 14.6 %
 * of their mean; 3 to 6 of them stay above 5 % (6 alternating: 5.8 %; with one value repeated,
 * as a trial lost to a kill leaves them: 5.5 %), and a quiet pair's is 0. So a 20 % target stops
 * every pair at min, 1 % runs every noisy pair to max and stops every quiet one at min, 0.001 %
 * runs every noisy pair to max: no outcome depends on timing. */
#include "itest.h"

static const char fake_nsperf[] =
    "#!/bin/sh\n"
    "here=$(dirname \"$0\")\n"
    "case \"$1\" in\n"
    "env) echo '{\"nsperf_version\":\"fake\"}'; exit 0 ;;\n"
    "-s) read -r tok; echo '{\"event\":\"listening\",\"port\":9}'; exit 0 ;;\n"
    "-c) ;;\n"
    "*) exit 2 ;;\n"
    "esac\n"
    "read -r tok\n"
    "dst=$2 src=\n"
    "while [ $# -gt 0 ]; do [ \"$1\" = -B ] && src=$2; shift; done\n"
    "f=\"$here/count-$src-$dst\"\n"
    "n=$(( $(cat \"$f\" 2>/dev/null || echo 0) + 1 ))\n"
    "echo $n > \"$f\"\n"
    "v=100\n"
    "case \" $(cat \"$here/noisy\") \" in *\" $dst \"*) v=$(( n % 2 == 0 ? 105 : 95 )) ;; esac\n"
    "printf '{\"params\":{},\"result\":{\"rtt_us\":{\"n\":1000,\"mean\":%s,\"min\":%s,"
    "\"max\":%s},\"transactions_per_s\":1000},\"error\":null}\\n' $v $v $v\n";

static const char plan_fmt[] =
    "name: adaptive\n"
    "hosts:\n"
    "  - {name: a, transport: local, data_address: 127.0.0.41, zone: \"1\"}\n"
    "  - {name: b, transport: local, data_address: 127.0.0.42, zone: \"2\"}\n"
    "  - {name: c, transport: local, data_address: 127.0.0.43, zone: \"3\"}\n"
    "scenarios:\n"
    "  - {name: rr, test: tcp_rr, duration: 0.1s, warmup: 0s}\n"
    "trials: {min: 3, max: 6, target_ci: %s}\n";

/* The plan with target_ci `target`, and the destinations whose figures are noisy. */
static void
prepare(const char *plan, const char *target, const char *noisy)
{
    char text[sizeof plan_fmt + 32];
    snprintf(text, sizeof text, plan_fmt, target);
    write_file(plan, text, 0644);
    write_file("noisy", noisy, 0644);
    write_file("fake-nsperf", fake_nsperf, 0755);
    char cmd[PATH_MAX + 32];
    snprintf(cmd, sizeof cmd, "rm -f '%s'/count-*", tmpdir);
    assert_int_equal(system(cmd), 0);
}

static const char *
fake_path(void)
{
    static char path[PATH_MAX];
    tmp_path(path, sizeof path, "fake-nsperf");
    return path;
}

static void
run_ok(const char *const *args)
{
    char *o, *e;
    int st = ns_run(args, NULL, &o, &e);
    if (st != 0)
        fail_msg("netsurvey exit %d\n%s\n%s", st, o, e);
    free(o);
    free(e);
}

/* Per ordered pair "src>dst": how many ok trials the journal holds (each once). */
static json_t *
trial_counts(const char *dir)
{
    struct journal_view v;
    journal_load(dir, &v);
    assert_int_equal(assert_ok_once(&v), v.lines); /* no failures in these runs */
    json_t *counts = json_object(), *rec;
    size_t i;
    json_array_foreach(v.recs, i, rec)
    {
        char key[64];
        snprintf(key, sizeof key, "%s>%s", str_at(rec, "src", "host"), str_at(rec, "dst", "host"));
        json_int_t n = json_integer_value(json_object_get(counts, key)) + 1;
        json_object_set_new(counts, key, json_integer(n));
    }
    json_decref(v.recs);
    return counts;
}

static void
assert_counts(const json_t *counts, const char *noisy_dst, json_int_t quiet, json_int_t noisy)
{
    const char *h[] = {"a", "b", "c"};
    for (size_t s = 0; s < 3; s++) {
        for (size_t d = 0; d < 3; d++) {
            if (s == d)
                continue;
            char key[16];
            snprintf(key, sizeof key, "%s>%s", h[s], h[d]);
            json_int_t want = noisy_dst == NULL || strcmp(h[d], noisy_dst) == 0 ? noisy : quiet;
            json_int_t got = json_integer_value(json_object_get(counts, key));
            if (got != want)
                fail_msg("pair %s: %lld trials, expected %lld", key, (long long)got,
                         (long long)want);
        }
    }
}

static json_t *
load_json(const char *dir, const char *name)
{
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/%s/%s", tmpdir, dir, name);
    json_t *j = json_load_file(path, 0, NULL);
    if (j == NULL)
        fail_msg("%s does not parse", path);
    return j;
}

/* summary.json: the scenario's policy and verdicts, and each pair's. */
static void
assert_summary(const char *dir, json_int_t met, json_int_t at_max)
{
    json_t *sum = load_json(dir, "summary.json");
    const json_t *sc = json_array_get(json_object_get(sum, "scenarios"), 0);
    const json_t *ad = json_object_get(sc, "adaptive");
    assert_int_equal(json_integer_value(json_object_get(ad, "min")), 3);
    assert_int_equal(json_integer_value(json_object_get(ad, "max")), 6);
    assert_int_equal(json_integer_value(json_object_get(ad, "pairs_target_met")), met);
    assert_int_equal(json_integer_value(json_object_get(ad, "pairs_max_reached")), at_max);
    assert_int_equal(json_integer_value(json_object_get(ad, "pairs_incomplete")), 0);
    size_t i;
    const json_t *p;
    json_array_foreach(json_object_get(sc, "pairs"), i, p)
    {
        const json_t *pa = json_object_get(p, "adaptive");
        json_int_t n = json_integer_value(json_object_get(pa, "trials"));
        const char *how = json_string_value(json_object_get(pa, "stopped"));
        assert_non_null(how);
        assert_true(strcmp(how, "target met") == 0 ? n >= 3 : n == 6);
        assert_int_equal(json_integer_value(json_object_get(p, "n")), n);
    }
    json_decref(sum);
}

static void
test_loose_target_stops_at_min(void **state)
{
    (void)state;
    prepare("loose.yaml", "20%", "127.0.0.41 127.0.0.42 127.0.0.43");
    const char *args[] = {"run", "loose.yaml", "-o", "loose", "--nsperf", fake_path(), "-q", NULL};
    run_ok(args);
    json_t *c = trial_counts("loose");
    assert_counts(c, NULL, 3, 3);
    json_decref(c);
    assert_summary("loose", 6, 0);
}

static void
test_impossible_target_runs_to_max(void **state)
{
    (void)state;
    prepare("tight.yaml", "0.001%", "127.0.0.41 127.0.0.42 127.0.0.43");
    const char *args[] = {"run", "tight.yaml", "-o", "tight", "--nsperf", fake_path(), "-q", NULL};
    run_ok(args);
    json_t *c = trial_counts("tight");
    assert_counts(c, NULL, 6, 6);
    json_decref(c);
    assert_summary("tight", 0, 6);
}

/* run.json says what was planned: the policy, and the least and most trials. */
static void
assert_run_json(const char *dir)
{
    json_t *run = load_json(dir, "run.json");
    const json_t *sc = json_array_get(json_object_get(run, "scenarios"), 0);
    const json_t *t = json_object_get(sc, "trials"), *pl = json_object_get(sc, "planned");
    assert_int_equal(json_integer_value(json_object_get(t, "min")), 3);
    assert_int_equal(json_integer_value(json_object_get(t, "max")), 6);
    assert_true(fabs(json_number_value(json_object_get(t, "target_ci")) - 0.01) < 1e-12);
    assert_int_equal(json_integer_value(json_object_get(pl, "min")), 18);
    assert_int_equal(json_integer_value(json_object_get(pl, "max")), 36);
    /* and, once it ended, what ran: per pair its ok trials and how it stopped */
    const json_t *ad = json_array_get(json_object_get(run, "adaptive"), 0);
    assert_string_equal(json_string_value(json_object_get(ad, "scenario")), "rr");
    const json_t *pairs = json_object_get(ad, "pairs");
    assert_int_equal(json_array_size(pairs), 6);
    size_t i;
    const json_t *p;
    json_array_foreach(pairs, i, p)
    {
        bool noisy = json_integer_value(json_object_get(p, "dst")) == 2; /* c */
        assert_int_equal(json_integer_value(json_object_get(p, "trials")), noisy ? 6 : 3);
        assert_string_equal(json_string_value(json_object_get(p, "stopped")),
                            noisy ? "max reached" : "target met");
    }
    json_decref(run);
}

/* The noisy pairs (into c) get more trials than the quiet ones; never one pair twice in a row
 * in the journal (two noisy pairs alternate); the report says how the pairs stopped. */
static void
test_noisy_pair_gets_more(void **state)
{
    (void)state;
    prepare("mixed.yaml", "1%", "127.0.0.43");
    const char *args[] = {"run", "mixed.yaml", "-o", "mixed", "--nsperf", fake_path(), NULL};
    run_ok(args);
    json_t *c = trial_counts("mixed");
    assert_counts(c, "c", 3, 6);
    json_decref(c);
    assert_run_json("mixed");
    /* the adaptive passes' rounds are timed as the fixed part's: run.json's "measured" counts
     * them all (local hosts), beyond the fixed part's rounds by at least c's 3 more trials */
    json_t *run = load_json("mixed", "run.json");
    const json_t *sch = json_object_get(run, "schedule"), *me = json_object_get(run, "measured");
    json_int_t fixed = json_integer_value(json_object_get(sch, "rounds"));
    json_int_t timed = json_integer_value(json_object_get(json_object_get(me, "local"), "rounds"));
    assert_true(fixed > 0 && timed >= fixed + 3);
    assert_null(json_object_get(me, "ssh"));
    json_decref(run);
    assert_summary("mixed", 4, 2);
    struct journal_view v;
    journal_load("mixed", &v);
    for (size_t i = 1; i < v.lines; i++) {
        const json_t *a = json_array_get(v.recs, i - 1), *b = json_array_get(v.recs, i);
        assert_false(strcmp(str_at(a, "src", "host"), str_at(b, "src", "host")) == 0 &&
                     strcmp(str_at(a, "dst", "host"), str_at(b, "dst", "host")) == 0);
    }
    json_decref(v.recs);
    char path[PATH_MAX];
    tmp_path(path, sizeof path, "mixed/report.md");
    char *md = read_text(path);
    assert_non_null(strstr(md, "Adaptive trials: 3 to 6 per host pair"));
    assert_non_null(strstr(md, "4 pairs met the target, 2 reached 6 trials without meeting it"));
    free(md);
}

/* Killed at any point and resumed, the run ends with the trial counts an uninterrupted one
 * decides (the values a lost in-flight trial would have had go to the next one, which keeps a
 * noisy pair noisy: see the top). */
static void
test_kill_and_resume_same_counts(void **state)
{
    (void)state;
    for (size_t at = 4; at <= 22; at += 9) {
        prepare("resume.yaml", "1%", "127.0.0.43");
        char dir[32], out[PATH_MAX], err[PATH_MAX];
        snprintf(dir, sizeof dir, "killed-%zu", at);
        const char *args[] = {"run", "resume.yaml", "-o", dir, "--nsperf", fake_path(), NULL};
        pid_t pid = ns_start(args, NULL, out, err, sizeof out);
        double end = now_s() + RUN_TIMEOUT_S;
        int st;
        bool reaped = false;
        while (!reaped && journal_lines(dir) < at && now_s() < end) {
            reaped = waitpid(pid, &st, WNOHANG) == pid; /* ended first: never signalled */
            nap_ms(1);
        }
        if (!reaped) {
            kill(pid, SIGKILL);
            ns_wait(pid, RUN_TIMEOUT_S); /* killed, or done if it was quicker */
        }
        assert_nothing_left();
        const char *resume[] = {"run",      "resume.yaml", "--resume", dir,
                                "--nsperf", fake_path(),   NULL};
        run_ok(resume);
        assert_string_equal(run_state(dir), "complete");
        json_t *c = trial_counts(dir);
        assert_counts(c, "c", 3, 6);
        json_decref(c);
        assert_run_json(dir);
    }
}

/* `netsurvey plan` bounds the run by max: the least and the most tests and time. */
static void
test_plan_shows_range(void **state)
{
    (void)state;
    prepare("range.yaml", "1%", "");
    char *o, *e;
    const char *args[] = {"plan", "range.yaml", NULL};
    assert_int_equal(ns_run(args, NULL, &o, &e), 0);
    assert_non_null(strstr(o, "3 to 6 trials"));
    assert_non_null(strstr(o, "with the adaptive trials: 18 to 36 tests"));
    free(o);
    free(e);
    const char *json[] = {"plan", "--json", "range.yaml", NULL};
    assert_int_equal(ns_run(json, NULL, &o, &e), 0);
    json_t *doc = json_loads(o, 0, NULL);
    assert_non_null(doc);
    assert_int_equal(json_integer_value(json_object_get(doc, "tests")), 18);
    assert_int_equal(json_integer_value(json_object_get(doc, "tests_max")), 36);
    assert_true(json_number_value(json_object_get(doc, "estimated_max_s")) >
                json_number_value(json_object_get(doc, "estimated_s")));
    json_decref(doc);
    free(o);
    free(e);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_loose_target_stops_at_min),
        cmocka_unit_test(test_impossible_target_runs_to_max),
        cmocka_unit_test(test_noisy_pair_gets_more),
        cmocka_unit_test(test_kill_and_resume_same_counts),
        cmocka_unit_test(test_plan_shows_range),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
