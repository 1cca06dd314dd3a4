/* test_terminal.c - the zone matrices `netsurvey run` prints at its end (report/terminal.c):
 * every cell's figures are the summary's, in one unit per matrix chosen for its largest mean,
 * the interval only from two ok trials on, cells without an ok trial said as what they are,
 * and the plan's labels escaped before they reach a terminal. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "report/reportint.h"

/* The text report_matrices_write gives for summary text sum_json (caller frees). */
static char *
matrices(const char *sum_json)
{
    json_error_t je;
    json_t *sum = json_loads(sum_json, 0, &je);
    if (sum == NULL)
        fail_msg("test summary does not parse: %s at %d", je.text, je.line);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_non_null(f);
    report_matrices_write(sum, f);
    assert_int_equal(fclose(f), 0);
    json_decref(sum);
    return text;
}

/* text holds want, or the test fails showing both. */
static void
expect_has(const char *text, const char *want)
{
    if (strstr(text, want) == NULL)
        fail_msg("no\n%s\nin:\n%s", want, text);
}

#define ZONES "\"zones\": [{\"label\": \"1\"}, {\"label\": \"2\"}]"

static void
test_latency_cells(void **state)
{
    (void)state;
    char *t = matrices(
        "{" ZONES
        ", \"scenarios\": [{\"name\": \"lat\", \"test\": \"tcp_rr\", \"family\": \"ipv4\", "
        "\"metric\": \"mean RTT\", \"unit\": \"us\", \"zone_cells\": ["
        "{\"src_zone\": \"1\", \"dst_zone\": \"2\", \"n\": 3, \"planned\": 3, \"failed\": 0, "
        " \"mean\": 329.34, \"ci95_halfwidth\": 4.56},"
        "{\"src_zone\": \"2\", \"dst_zone\": \"1\", \"n\": 1, \"planned\": 3, \"failed\": 2, "
        " \"mean\": 331.0, \"ci95_halfwidth\": 0},"
        "{\"src_zone\": \"1\", \"dst_zone\": \"1\", \"n\": 0, \"planned\": 3, \"failed\": 3},"
        "{\"src_zone\": \"2\", \"dst_zone\": \"2\", \"n\": 0, \"planned\": 3, \"failed\": 0}]}]}");
    const char *want = "\nzone matrices: each cell the mean of its ok trials \u00b1 their 95 % CI "
                       "half-width; rows src, columns dst\n"
                       "\n"
                       "lat (tcp_rr, ipv4): mean RTT in \u00b5s\n"
                       "  src\\dst  1               2\n"
                       "  1        failed          329.3 \u00b1 4.6\n"
                       "  2        331.0 (1/3 ok)  not run\n";
    if (strcmp(t, want) != 0)
        fail_msg("got:\n%s\nwanted:\n%s", t, want);
    free(t);
}

/* One unit per matrix: Gbit/s when a cell reaches 1000 Mbit/s, the smaller cells in it too;
 * a cell no host pair gives is a dash; a reversed stream says which way data flows. */
static void
test_rate_unit_and_missing(void **state)
{
    (void)state;
    char *t = matrices(
        "{" ZONES ", \"scenarios\": [{\"name\": \"bulk\", \"test\": \"tcp_stream\", \"family\": "
        "\"ipv6\", \"reverse\": true, \"metric\": \"throughput\", \"unit\": \"Mbit/s\", "
        "\"zone_cells\": ["
        "{\"src_zone\": \"1\", \"dst_zone\": \"2\", \"n\": 2, \"planned\": 2, \"failed\": 0, "
        " \"mean\": 49200.0, \"ci95_halfwidth\": 812.0},"
        "{\"src_zone\": \"2\", \"dst_zone\": \"1\", \"n\": 2, \"planned\": 2, \"failed\": 0, "
        " \"mean\": 950.0, \"ci95_halfwidth\": 12.5}]}]}");
    expect_has(t, "bulk (tcp_stream, ipv6): throughput in Gbit/s; data flows dst "
                  "\u2192 src\n");
    expect_has(t, "  1        \u2014              49.20 \u00b1 0.81\n");
    expect_has(t, "  2        0.950 \u00b1 0.013  \u2014\n");
    free(t);
    /* milliseconds once a latency cell reaches 1000 us */
    t = matrices("{" ZONES ", \"scenarios\": [{\"name\": \"far\", \"test\": \"udp_rr\", "
                 "\"family\": \"ipv4\", \"metric\": \"mean RTT\", \"unit\": \"us\", "
                 "\"zone_cells\": [{\"src_zone\": \"1\", \"dst_zone\": \"2\", \"n\": 2, "
                 "\"planned\": 2, \"failed\": 0, \"mean\": 4080.0, \"ci95_halfwidth\": 20.0}]}]}");
    expect_has(t, "far (udp_rr, ipv4): mean RTT in ms\n");
    expect_has(t, "4.080 \u00b1 0.020");
    free(t);
}

/* Nothing ran; a label with a terminal escape is printed escaped. */
static void
test_empty_and_hostile(void **state)
{
    (void)state;
    char *t = matrices("{\"zones\": [], \"scenarios\": [{\"name\": \"x\\u001b[2J\", \"test\": "
                       "\"tcp_rr\", \"family\": null, \"metric\": \"mean RTT\", \"unit\": \"us\", "
                       "\"zone_cells\": []}]}");
    assert_null(strchr(t, '\033'));
    expect_has(t, "x\\x1b[2J (tcp_rr, ): mean RTT in \u00b5s\n"
                  "  no trial of this scenario was recorded\n");
    free(t);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_latency_cells),
        cmocka_unit_test(test_rate_unit_and_missing),
        cmocka_unit_test(test_empty_and_hostile),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
