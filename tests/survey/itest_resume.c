/* itest_resume.c - a run.json of a version this netsurvey does not know is refused by either
 * way of resuming it (`--resume DIR` alone, which reads the plan from run.json, and with PLAN,
 * which the runner checks against run.json), naming the version and the way out, and leaving
 * the directory as it was. */
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
                      "'netsurvey.run/9' (this netsurvey reads netsurvey.run/2 and "
                      "netsurvey.run/1); resume it with the netsurvey that wrote it") == NULL)
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

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_unknown_version_refused_with_hint),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
