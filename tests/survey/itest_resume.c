/* itest_resume.c - a run.json of a version this netsurvey does not know is refused by either
 * way of resuming it (`--resume DIR` alone, which reads the plan from run.json, and with PLAN,
 * which the runner checks against run.json), naming the version and the way out, and leaving
 * the directory as it was. A plan that differs from the run's is refused naming each
 * difference, or with --force recorded as the run's next plan revision: every trial then
 * stays with the parameters it ran, nothing counted twice. */
#include "itest.h"

static const char tiny[] = "name: tiny\n"
                           "hosts:\n"
                           "  - {name: h1, transport: local, data_address: 127.0.0.21}\n"
                           "  - {name: h2, transport: local, data_address: 127.0.0.22}\n"
                           "scenarios:\n"
                           "  - {name: rr, test: tcp_rr, duration: 0.05s, warmup: 0s}\n"
                           "pairs: [[h1, h2]]\n"
                           "directions: one\n";

static void
test_unknown_version_refused_with_hint(void **state)
{
    (void)state;
    write_file("tiny.yaml", tiny, 0644);
    char *o, *e;
    const char *args[] = {"run", "tiny.yaml", "-q", "-o", "newer", NULL};
    assert_int_equal(ns_run(args, NULL, &o, &e), 0);
    free(o);
    free(e);
    assert_int_equal(journal_lines("newer"), 1);
    char path[PATH_MAX];
    tmp_path(path, sizeof path, "newer/run.json");
    json_t *run = json_load_file(path, 0, NULL);
    assert_non_null(run);
    json_object_set_new(run, "schema", json_string("netsurvey.run/9"));
    assert_int_equal(json_dump_file(run, path, JSON_COMPACT), 0);
    json_decref(run);
    char *before = read_text(path);
    const char *alone[] = {"run", "--resume", "newer", NULL};
    const char *with_plan[] = {"run", "tiny.yaml", "--resume", "newer", NULL};
    const char *const *ways[] = {alone, with_plan};
    for (size_t i = 0; i < 2; i++) {
        assert_int_equal(ns_run(ways[i], NULL, &o, &e), 2);
        if (strstr(e, "cannot resume newer: newer/run.json: unsupported schema "
                      "'netsurvey.run/9' (this netsurvey reads netsurvey.run/3, "
                      "netsurvey.run/2 and netsurvey.run/1); resume it with the netsurvey that "
                      "wrote it") == NULL)
            fail_msg("%s: not refused with the way out:\n%s", i == 0 ? "alone" : "with PLAN", e);
        free(o);
        free(e);
        char *after = read_text(path);
        assert_string_equal(after, before);
        free(after);
        assert_int_equal(journal_lines("newer"), 1);
    }
    free(before);
}

/* A run of two scenarios over h1 <-> h2, 2 trials each, whose lat takes msg_size and test. */
static void
write_two(const char *name, const char *lat_test, int msg, bool with_tput, const char *h2_zone)
{
    char text[1024];
    snprintf(text, sizeof text,
             "name: two\n"
             "hosts:\n"
             "  - {name: h1, transport: local, data_address: 127.0.0.21, zone: a}\n"
             "  - {name: h2, transport: local, data_address: 127.0.0.22, zone: %s}\n"
             "scenarios:\n"
             "  - {name: lat, test: %s, msg_size: %d, duration: 0.05s, warmup: 0s}\n"
             "%s"
             "trials: 2\n"
             "pairs: all\n",
             h2_zone, lat_test, msg,
             with_tput ? "  - {name: tput, test: tcp_stream, duration: 0.05s, warmup: 0s}\n" : "");
    write_file(name, text, 0644);
}

static json_t *
load_json(const char *rel)
{
    char path[PATH_MAX];
    tmp_path(path, sizeof path, rel);
    json_t *j = json_load_file(path, 0, NULL);
    assert_non_null(j);
    return j;
}

/* The trials of a scenario in summary.json (name as the report names it): ok, planned. */
static void
scenario_trials(const json_t *sum, const char *name, json_int_t *ok, json_int_t *planned)
{
    size_t i;
    const json_t *s;
    *ok = *planned = -1;
    json_array_foreach(json_object_get(sum, "scenarios"), i, s)
    {
        if (strcmp(json_string_value(json_object_get(s, "name")), name) == 0) {
            *ok = json_integer_value(json_object_get(json_object_get(s, "trials"), "ok"));
            *planned = json_integer_value(json_object_get(json_object_get(s, "trials"), "planned"));
        }
    }
}

/* A changed plan: refused (exit 2) naming each difference; with --force, revision 2 of the
 * run's plan. Its trials of other parameters (a message size, a kind, a dropped scenario) stay
 * in the journal, each reported with the parameters it ran ("lat (revision 1)"), none counted
 * as the new plan's; the new plan runs in full; run.json keeps revision 1 beside it; a host
 * that moved is never continued, --force or not. */
static void
test_changed_plan_refused_or_revised(void **state)
{
    (void)state;
    write_two("v1.yaml", "tcp_rr", 250, true, "b");
    char *o, *e;
    const char *args[] = {"run", "v1.yaml", "-q", "-o", "rev", NULL};
    assert_int_equal(ns_run(args, NULL, &o, &e), 0);
    free(o);
    free(e);
    assert_int_equal(journal_lines("rev"), 8);
    /* the message size, the kind and a dropped scenario */
    write_two("v2.yaml", "udp_rr", 1000, false, "b");
    const char *plain[] = {"run", "v2.yaml", "--resume", "rev", "-q", NULL};
    assert_int_equal(ns_run(plain, NULL, &o, &e), CLI_RUN_USAGE);
    assert_non_null(strstr(e, "cannot resume rev: the plan differs from the run's in 2 ways"));
    assert_non_null(strstr(e, "\n  scenario 'lat': test tcp_rr → udp_rr\n"));
    assert_non_null(strstr(e, "\n  scenario 'tput' (tcp_stream) dropped\n"));
    free(o);
    free(e);
    assert_int_equal(journal_lines("rev"), 8);
    json_t *run = load_json("rev/run.json");
    assert_string_equal(json_string_value(json_object_get(run, "schema")), "netsurvey.run/2");
    json_decref(run);
    /* a host elsewhere: never, --force or not */
    write_two("moved.yaml", "tcp_rr", 250, true, "c");
    const char *moved[] = {"run", "moved.yaml", "--resume", "rev", "--force", "-q", NULL};
    assert_int_equal(ns_run(moved, NULL, &o, &e), CLI_RUN_USAGE);
    assert_non_null(strstr(e, "a host of the run is elsewhere"));
    assert_non_null(strstr(e, "\n  host 'h2': zone b → c\n"));
    free(o);
    free(e);
    const char *forced[] = {"run", "v2.yaml", "--resume", "rev", "--force", "-q", NULL};
    int st = ns_run(forced, NULL, &o, &e);
    if (st != 0)
        fail_msg("exit %d\n%s\n%s", st, o, e);
    assert_non_null(strstr(o, "plan:    revision 2 of the run's plan (--force)"));
    assert_non_null(strstr(o, "\n  scenario 'tput' (tcp_stream) dropped\n"));
    free(o);
    free(e);
    /* revision 2 ran in full: 4 more records, each saying its revision */
    struct journal_view v;
    journal_load("rev", &v);
    assert_int_equal(v.lines, 12);
    assert_int_equal(assert_ok_once(&v), 12);
    size_t i, rev2 = 0;
    json_t *rec;
    json_array_foreach(v.recs, i, rec)
    {
        bool two = json_integer_value(json_object_get(rec, "revision")) == 2;
        rev2 += two;
        assert_true(two == (strcmp(str_at(rec, "scenario", "test"), "udp_rr") == 0));
    }
    assert_int_equal(rev2, 4);
    json_decref(v.recs);
    run = load_json("rev/run.json");
    assert_string_equal(json_string_value(json_object_get(run, "schema")), "netsurvey.run/3");
    assert_int_equal(json_integer_value(json_object_get(run, "revision")), 2);
    const json_t *r1 = json_array_get(json_object_get(run, "revisions"), 0);
    assert_int_equal(json_integer_value(json_object_get(r1, "revision")), 1);
    assert_int_equal(json_array_size(json_object_get(r1, "scenarios")), 2);
    assert_int_equal(json_array_size(json_object_get(run, "scenarios")), 1);
    assert_string_equal(str_at(run, "state", NULL), "complete");
    json_decref(run);
    /* the report: every trial with the parameters it ran, the run complete */
    const char *rep[] = {"report", "rev", NULL};
    assert_int_equal(ns_run(rep, NULL, &o, &e), 0);
    free(o);
    free(e);
    json_t *sum = load_json("rev/summary.json");
    json_int_t ok, planned;
    scenario_trials(sum, "lat", &ok, &planned);
    assert_true(ok == 4 && planned == 4);
    scenario_trials(sum, "lat (revision 1)", &ok, &planned);
    assert_true(ok == 4 && planned == 4);
    scenario_trials(sum, "tput (revision 1)", &ok, &planned);
    assert_true(ok == 4 && planned == 4);
    const json_t *c = json_object_get(sum, "completeness");
    assert_true(json_is_true(json_object_get(c, "complete")));
    assert_int_equal(json_integer_value(json_object_get(c, "planned")), 12);
    assert_int_equal(json_array_size(json_object_get(json_object_get(sum, "journal"), "problems")),
                     0);
    json_decref(sum);
    /* back to the first plan's message size under udp_rr, and the same plan again: revision 3
     * runs what it lacks; resuming with revision 3's own plan changes nothing */
    write_two("v3.yaml", "udp_rr", 250, false, "b");
    const char *third[] = {"run", "v3.yaml", "--resume", "rev", "--force", "-q", NULL};
    assert_int_equal(ns_run(third, NULL, &o, &e), 0);
    free(o);
    free(e);
    assert_int_equal(journal_lines("rev"), 16);
    const char *again[] = {"run", "v3.yaml", "--resume", "rev", "-q", NULL};
    assert_int_equal(ns_run(again, NULL, &o, &e), 0);
    free(o);
    free(e);
    assert_int_equal(journal_lines("rev"), 16);
    run = load_json("rev/run.json");
    assert_int_equal(json_integer_value(json_object_get(run, "revision")), 3);
    assert_int_equal(json_array_size(json_object_get(run, "revisions")), 2);
    json_decref(run);
}

/* The commands a run prints for people to paste are shell words: a plan and a directory with a
 * space and a quote come back through sh as they were. */
static void
test_printed_commands_quoted(void **state)
{
    (void)state;
    write_file("my plan.yaml", tiny, 0644);
    write_file("badperf", "#!/bin/sh\nexit 1\n", 0755);
    char *o, *e;
    const char *args[] = {"run", "my plan.yaml", "-o", "it's dir", "--nsperf", "badperf", NULL};
    assert_int_equal(ns_run(args, NULL, &o, &e), CLI_RUN_NOTHING);
    assert_non_null(strstr(o, "\nresume:  netsurvey run 'my plan.yaml' --resume 'it'\\''s dir'\n"));
    assert_non_null(strstr(o, "(rebuild: netsurvey report 'it'\\''s dir')\n"));
    free(o);
    free(e);
    /* what run.json records as its command, and what the report says reproduces it */
    json_t *run = load_json("it's dir/run.json");
    assert_non_null(strstr(str_at(run, "command", NULL), "'my plan.yaml'"));
    assert_non_null(strstr(str_at(run, "command", NULL), "'it'\\''s dir'"));
    json_decref(run);
    char path[PATH_MAX];
    tmp_path(path, sizeof path, "it's dir/report.html");
    char *html = read_text(path);
    assert_non_null(strstr(html, "netsurvey report &#39;it&#39;\\&#39;&#39;s dir&#39;"));
    free(html);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_unknown_version_refused_with_hint),
        cmocka_unit_test(test_changed_plan_refused_or_revised),
        cmocka_unit_test(test_printed_commands_quoted),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
