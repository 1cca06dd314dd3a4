/* test_argv.c - the nsperf client argv of a scenario and the run directory template (the run
 * directory itself is tests/journal's). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "common/testspec.h"
#include "survey/run.h"
#include "survey/trial.h"

static void
test_client_argv(void **state)
{
    (void)state;
    struct plan_scenario sc = {.name = "t",
                               .kind = TESTSPEC_TCP_STREAM,
                               .test = "tcp_stream",
                               .trials = {1, 1, 0.0},
                               .streams = 4,
                               .duration_s = 0.5,
                               .warmup_s = 0.1,
                               .window = 65536,
                               .reverse = true};
    /* What the plan loader fills: the table's values, given ones marked. */
    testspec_values_default(&sc.spec, TESTSPEC_TCP_STREAM);
    testspec_values_set(&sc.spec, TESTSPEC_P_DURATION, 0.5);
    testspec_values_set(&sc.spec, TESTSPEC_P_WARMUP, 0.1);
    testspec_values_set(&sc.spec, TESTSPEC_P_STREAMS, 4);
    testspec_values_set(&sc.spec, TESTSPEC_P_WINDOW, 65536);
    testspec_values_set(&sc.spec, TESTSPEC_P_REVERSE, 1);
    char store[TRIAL_ARGV_MAX][32];
    const char *argv[TRIAL_ARGV_MAX];
    int n = survey_trial_client_argv(&sc, "/x/nsperf", "10.0.0.4", 4242, "10.0.0.5", store, argv);
    const char *want[] = {"/x/nsperf", "-c",           "10.0.0.4", "-p",  "4242",   "-B",
                          "10.0.0.5",  "--token-file", "-",        "-J",  "--test", "tcp_stream",
                          "-t",        "0.5",          "--warmup", "0.1", "-P",     "4",
                          "-w",        "65536",        "-R"};
    assert_int_equal(n, (int)(sizeof want / sizeof want[0]));
    for (int i = 0; i < n; i++)
        assert_string_equal(argv[i], want[i]);
    assert_null(argv[n]);
}

static void
test_expand_dir(void **state)
{
    (void)state;
    char buf[64];
    assert_int_equal(
        survey_expand_dir("results/{name}-{timestamp}", "lab", "20261130T150000Z", buf, sizeof buf),
        strlen("results/lab-20261130T150000Z"));
    assert_string_equal(buf, "results/lab-20261130T150000Z");
    survey_expand_dir("{nam}{name}", "x", "s", buf, sizeof buf);
    assert_string_equal(buf, "{nam}x");
    char small[5];
    assert_int_equal(survey_expand_dir("{name}", "abcdefgh", "s", small, sizeof small), 8);
    assert_string_equal(small, "abcd");
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_client_argv),
        cmocka_unit_test(test_expand_dir),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
