/* test_plan.c - loading and validating plans: every bad fixture gives exactly its expected
 * messages at its expected line:col, every good fixture and shipped plan loads, values
 * resolve as plan.h promises, limits hold. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/errors.h"
#include "helpers.h"
#include "plan/plan.h"
#include "plan/plan_int.h"
#include "plan/schedule.h"

/* "L:C: message" or "message" for a diagnostic, as fixtures write expectations. */
static void
diag_short(const struct diags *d, size_t i, char *buf, size_t len)
{
    unsigned line, col;
    const char *msg = diags_message(d, i, &line, &col);
    if (line > 0)
        snprintf(buf, len, "%u:%u: %s", line, col, msg);
    else
        snprintf(buf, len, "%s", msg);
}

static void
check_bad_fixture(const char *dir, const char *name)
{
    char path[2100];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    char *text = helper_read_file(path, NULL);
    assert_non_null(text);
    size_t nexp;
    char **exp = helper_expectations(text, &nexp);
    if (nexp == 0)
        fail_msg("%s: no '# expect:' lines", name);
    struct diags *d = diags_new();
    struct plan *p = (struct plan *)1;
    int rc = plan_load_file(path, &p, d);
    if (rc != NS_EPARSE || p != NULL)
        fail_msg("%s: loaded (rc %d) but should fail", name, rc);
    for (size_t i = 0; i < nexp || i < diags_count(d); i++) {
        char got[1024] = "(none)";
        if (i < diags_count(d))
            diag_short(d, i, got, sizeof got);
        if (i >= nexp || strcmp(got, exp[i]) != 0)
            fail_msg("%s: message %zu\n  expected: %s\n  got:      %s", name, i + 1,
                     i < nexp ? exp[i] : "(none)", got);
    }
    diags_free(d);
    helper_names_free(exp, nexp);
    free(text);
}

static void
test_bad_fixtures(void **state)
{
    (void)state;
    char dir[1024];
    helper_source_path("tests/fixtures/plans/bad", dir, sizeof dir);
    size_t n;
    char **names = helper_list_dir(dir, ".yaml", &n);
    assert_true(n >= 25);
    for (size_t i = 0; i < n; i++)
        check_bad_fixture(dir, names[i]);
    print_message("%zu bad fixtures checked\n", n);
    helper_names_free(names, n);
}

/* Load a plan that must be valid, and schedule it. */
static struct plan *
load_ok(const char *path)
{
    struct diags *d = diags_new();
    struct plan *p = NULL;
    int rc = plan_load_file(path, &p, d);
    if (rc != 0) {
        diags_write(d, stderr);
        fail_msg("%s: does not load (rc %d)", path, rc);
    }
    /* warnings a good plan may have are its "# expect:" lines, exactly */
    char *text = helper_read_file(path, NULL);
    size_t nexp;
    char **exp = helper_expectations(text, &nexp);
    for (size_t i = 0; i < nexp || i < diags_count(d); i++) {
        char got[1024] = "(none)";
        if (i < diags_count(d))
            diag_short(d, i, got, sizeof got);
        if (i >= nexp || strcmp(got, exp[i]) != 0)
            fail_msg("%s: message %zu\n  expected: %s\n  got:      %s", path, i + 1,
                     i < nexp ? exp[i] : "(none)", got);
    }
    helper_names_free(exp, nexp);
    free(text);
    diags_free(d);
    struct schedule *s = NULL;
    assert_int_equal(schedule_new(p, &s, NULL), 0);
    assert_true(schedule_test_count(s) == plan_test_count_min(p));
    assert_true(schedule_test_count_max(s) == plan_test_count(p));
    assert_int_equal(schedule_pair_count(s), plan_pair_count(p));
    schedule_free(s);
    return p;
}

static void
load_dir(const char *rel, size_t min)
{
    char dir[1024], path[2048];
    helper_source_path(rel, dir, sizeof dir);
    size_t n;
    char **names = helper_list_dir(dir, ".yaml", &n);
    assert_true(n >= min);
    for (size_t i = 0; i < n; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        plan_free(load_ok(path));
    }
    helper_names_free(names, n);
}

static void
test_ok_fixtures(void **state)
{
    (void)state;
    load_dir("tests/fixtures/plans/ok", 5);
}

static void
test_shipped_plans(void **state)
{
    (void)state;
    load_dir("plans", 3);
}

static void
test_default_is_localhost_yaml(void **state)
{
    (void)state;
    char path[1024];
    size_t flen, dlen;
    char *file =
        helper_read_file(helper_source_path("plans/localhost.yaml", path, sizeof path), &flen);
    const char *def = plan_default_yaml(&dlen);
    assert_non_null(file);
    assert_int_equal(flen, dlen);
    assert_memory_equal(file, def, flen);
    assert_int_equal(def[dlen], '\0');
    struct plan *p = load_ok(path);
    assert_true(plan_host_count(p) >= 2);
    for (size_t i = 0; i < plan_host_count(p); i++)
        assert_int_equal(plan_host(p, i)->transport, PLAN_TRANSPORT_LOCAL);
    assert_true(plan_zone_count(p) >= 2);
    plan_free(p);
    free(file);
}

static struct plan *
load_fixture(const char *name)
{
    char rel[256], path[1024];
    snprintf(rel, sizeof rel, "tests/fixtures/plans/ok/%s", name);
    return load_ok(helper_source_path(rel, path, sizeof path));
}

static void
test_full_hosts(void **state)
{
    (void)state;
    struct plan *p = load_fixture("full.yaml");
    assert_string_equal(plan_name(p), "full.plan_1");
    assert_string_equal(plan_description(p), "every key, resolved");
    const struct plan_host *h = plan_host(p, 0);
    assert_string_equal(h->data_address, "198.51.100.1");
    assert_string_equal(h->zone_id, "westus3-az2");
    assert_int_equal(h->nlabels, 2);
    assert_string_equal(h->labels[1].key, "cores");
    assert_string_equal(h->labels[1].value, "4");
    assert_string_equal(h->ssh.user, "azureuser"); /* plan defaults */
    assert_int_equal(h->ssh.port, 2222);
    assert_true(h->ssh.connect_timeout_s == 15.0);
    h = plan_host(p, 1); /* every ssh value overridden */
    assert_string_equal(h->ssh.user, "admin");
    assert_int_equal(h->ssh.port, 22);
    assert_string_equal(h->ssh.identity, "~/.ssh/other");
    assert_string_equal(h->ssh.known_hosts, "/etc/ssh/known");
    assert_true(h->ssh.connect_timeout_s == 0.25);
    h = plan_host(p, 2);
    assert_int_equal(h->transport, PLAN_TRANSPORT_LOCAL);
    assert_null(h->address);
    assert_string_equal(h->data_address, "127.0.0.3");
    assert_string_equal(h->region, "");
    assert_int_equal(plan_host_find(p, "vm2"), 1);
    assert_int_equal(plan_host_find(p, "nope"), -1);
    plan_free(p);
}

/* ssh.jump resolves like the other ssh keys (chains and none as ssh -J takes them); retries
 * defaults to 2; scoped IPv6 loads. */
static void
test_jump_and_retries(void **state)
{
    (void)state;
    struct plan *p = load_fixture("scoped-ipv6-jump.yaml");
    assert_int_equal(plan_retries(p), 0);
    assert_string_equal(plan_host(p, 0)->address, "fe80::1%eth0");
    assert_string_equal(plan_host(p, 0)->ssh.jump, "admin@bastion.example.com:2222");
    assert_string_equal(plan_host(p, 0)->ssh.user, "azureuser");
    assert_string_equal(plan_host(p, 1)->ssh.jump, "[2001:db8::9]:22");
    assert_string_equal(plan_host(p, 2)->ssh.jump, "10.0.0.9");
    assert_string_equal(plan_host(p, 3)->ssh.jump, "ops@edge:2200,10.0.0.9,[2001:db8::9]:22");
    assert_string_equal(plan_host(p, 4)->ssh.jump, "none");
    plan_free(p);
    p = load_fixture("minimal.yaml");
    assert_int_equal(plan_retries(p), PLAN_DEFAULT_RETRIES);
    assert_null(plan_host(p, 0)->ssh.jump);
    plan_free(p);
}

/* What a runner hands nsperf: the scenario's table values as an argv. */
static void
test_scenario_argv(void **state)
{
    (void)state;
    struct plan *p = load_fixture("full.yaml");
    for (size_t i = 0; i < plan_scenario_count(p); i++) {
        const struct plan_scenario *sc = plan_scenario(p, i);
        size_t argc;
        char **argv = testspec_client_argv(&sc->spec, &argc, NULL);
        assert_non_null(argv);
        assert_string_equal(argv[0], "--test");
        assert_string_equal(argv[1], sc->test);
        char line[512], joined[512] = "";
        plan_scenario_nsperf_flags(sc, line, sizeof line);
        for (size_t k = 0, used = 0; k < argc; k++)
            used += (size_t)snprintf(joined + used, sizeof joined - used, "%s%s", k ? " " : "",
                                     argv[k]);
        assert_string_equal(line, joined);
        free(argv);
    }
    plan_free(p);
}

static void
test_full_scenarios(void **state)
{
    (void)state;
    struct plan *p = load_fixture("full.yaml");
    assert_int_equal(plan_scenario_count(p), 5);
    const struct plan_scenario *bulk = plan_scenario(p, 0), *rr = plan_scenario(p, 1);
    const struct plan_scenario *paced = plan_scenario(p, 2), *crr = plan_scenario(p, 3);
    /* bulk: everything from defaults that applies to tcp_stream, own trials */
    assert_true(bulk->trials.min == 5 && bulk->trials.max == 5 && bulk->trials.target == 0);
    assert_int_equal(bulk->streams, 4);
    assert_int_equal(bulk->msg_size, 128 * 1024);
    assert_int_equal(bulk->response_size, 0); /* does not apply to streams */
    assert_true(bulk->rate_bps == 2000000000ULL && bulk->reverse);
    assert_true(bulk->duration_s == 20.0 && bulk->warmup_s == 2.0 && bulk->interval_s == 1.0);
    assert_int_equal(bulk->window, 4u << 20);
    /* rr: own values win, stream-only defaults do not apply, plan-wide trials */
    assert_true(rr->trials.min == 2 && !trials_adaptive(&rr->trials));
    assert_int_equal(rr->msg_size, 64);
    assert_int_equal(rr->response_size, 2048);
    assert_true(rr->duration_s == 60.0 && rr->streams == 1 && rr->rate_bps == 0 && !rr->reverse);
    assert_int_equal(rr->kind, TESTSPEC_TCP_RR);
    assert_string_equal(rr->test, "tcp_rr");
    /* paced: every value its own */
    assert_true(paced->rate_bps == 900000000ULL && !paced->reverse && paced->streams == 2);
    assert_true(paced->warmup_s == 0.0 && paced->duration_s == 90.0 && paced->interval_s == 0.5);
    assert_int_equal(paced->window, 256 * 1024);
    assert_int_equal(crr->response_size, 1);
    assert_true(plan_shuffled(p) && plan_seed(p) == 42 && plan_parallel(p));
    assert_true(plan_both_directions(p));
    assert_int_equal(plan_pairs_kind(p), PLAN_PAIRS_ALL);
    assert_int_equal(plan_test_count(p), 6 * (5 + 2 + 2 + 2 + 2));
    plan_free(p);
}

/* trials: {min, max, target_ci}: plan-wide, a scenario's own, and a fixed count beside them;
 * the test counts are the range they give. */
static void
test_adaptive_trials(void **state)
{
    (void)state;
    struct plan *p = load_fixture("adaptive-trials.yaml");
    const struct plan_scenario *lat = plan_scenario(p, 0), *tput = plan_scenario(p, 1);
    const struct plan_scenario *crr = plan_scenario(p, 2);
    assert_true(trials_adaptive(&lat->trials) && lat->trials.min == 3 && lat->trials.max == 10);
    assert_true(fabs(lat->trials.target - 0.02) < 1e-15);
    assert_true(trials_adaptive(&tput->trials) && tput->trials.min == 2 && tput->trials.max == 5);
    assert_true(fabs(tput->trials.target - 0.005) < 1e-15);
    assert_false(trials_adaptive(&crr->trials));
    assert_true(crr->trials.min == 2 && crr->trials.max == 2);
    assert_int_equal(plan_pair_count(p), 6);
    assert_int_equal(plan_test_count_min(p), 6 * (3 + 2 + 2));
    assert_int_equal(plan_test_count(p), 6 * (10 + 5 + 2));
    plan_free(p);
}

static void
test_builtin_defaults(void **state)
{
    (void)state;
    struct plan *p = load_fixture("minimal.yaml");
    const struct plan_scenario *sc = plan_scenario(p, 0);
    assert_true(sc->duration_s == 10.0 && sc->warmup_s == 1.0 && sc->trials.max == 1);
    assert_true(sc->streams == 1 && sc->msg_size == 0 && sc->rate_bps == 0);
    const struct plan_host *h = plan_host(p, 0);
    assert_null(h->ssh.user);
    assert_int_equal(h->ssh.port, 0); /* not given: the ssh config decides, then 22 */
    assert_true(h->ssh.connect_timeout_s == 0);
    assert_string_equal(h->data_address, "192.0.2.1");
    assert_string_equal(h->zone, "");
    assert_int_equal(plan_zone_count(p), 1);
    assert_true(plan_parallel(p) && !plan_shuffled(p) && plan_both_directions(p));
    assert_string_equal(plan_output_template(p), "results/{name}-{timestamp}");
    plan_free(p);
}

static void
test_output_path(void **state)
{
    (void)state;
    struct plan *p = load_fixture("full.yaml");
    char buf[64];
    size_t n = plan_output_path(p, "20261129T183000Z", buf, sizeof buf);
    assert_string_equal(buf, "out/full.plan_1/20261129T183000Z");
    assert_int_equal(n, strlen(buf));
    char small[8];
    n = plan_output_path(p, "20261129T183000Z", small, sizeof small);
    assert_string_equal(small, "out/ful");
    assert_int_equal(n, strlen(buf));
    plan_free(p);
}

static void
test_nsperf_flags(void **state)
{
    (void)state;
    struct plan *p = load_fixture("full.yaml");
    char buf[256];
    plan_scenario_nsperf_flags(plan_scenario(p, 2), buf, sizeof buf);
    assert_string_equal(buf, "--test udp_stream -t 90 --warmup 0 -P 2 -l 1472 -b 900000000 "
                             "-i 0.5 -w 262144");
    plan_scenario_nsperf_flags(plan_scenario(p, 1), buf, sizeof buf);
    assert_string_equal(buf, "--test tcp_rr -t 60 --warmup 2 -l 64 --response-size 2048 -i 1 "
                             "-w 4194304");
    plan_free(p);
}

static void
test_source_kept(void **state)
{
    (void)state;
    const char yaml[] = "name: s\nhosts: [{name: a, address: 192.0.2.1}, {name: b, address: "
                        "192.0.2.2}]\nscenarios: [{name: x, test: tcp_rr}]\n";
    struct diags *d = diags_new();
    struct plan *p;
    assert_int_equal(plan_load_buffer("mem.yaml", yaml, sizeof yaml - 1, &p, d), 0);
    size_t len;
    const char *src = plan_source(p, &len);
    assert_int_equal(len, sizeof yaml - 1);
    assert_memory_equal(src, yaml, len);
    assert_string_equal(plan_file(p), "mem.yaml");
    plan_free(p);
    diags_free(d);
}

/* Load text that must fail; the first message must be want (short form). */
static void
expect_first(const char *text, size_t len, const char *want)
{
    struct diags *d = diags_new();
    struct plan *p = NULL;
    assert_int_not_equal(plan_load_buffer("t.yaml", text, len, &p, d), 0);
    assert_null(p);
    assert_true(diags_count(d) >= 1);
    char got[1024];
    diag_short(d, 0, got, sizeof got);
    assert_string_equal(got, want);
    diags_free(d);
}

static void
test_size_cap(void **state)
{
    (void)state;
    size_t len = PLAN_MAX_FILE_SIZE + 1;
    char *big = malloc(len);
    memset(big, '#', len);
    expect_first(big, len, "plan is larger than the limit of 4 MiB");
    char tmpl[] = "/tmp/ns_plan_big_XXXXXX";
    int fd = mkstemp(tmpl);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, big, len), (ssize_t)len);
    close(fd);
    struct diags *d = diags_new();
    struct plan *p;
    assert_int_equal(plan_load_file(tmpl, &p, d), NS_EPARSE);
    assert_string_equal(diags_message(d, 0, NULL, NULL), "plan is larger than the limit of 4 MiB");
    unlink(tmpl);
    diags_free(d);
    free(big);
}

static void
test_unreadable(void **state)
{
    (void)state;
    struct diags *d = diags_new();
    struct plan *p;
    assert_int_equal(plan_load_file("/nonexistent/plan.yaml", &p, d), NS_EPARSE);
    assert_string_equal(diags_text(d, 0),
                        "/nonexistent/plan.yaml: cannot read plan: No such file or directory");
    assert_int_equal(plan_load_file("/tmp", &p, d), NS_EPARSE);
    assert_string_equal(diags_text(d, 1), "/tmp: cannot read plan: Is a directory");
    diags_free(d);
}

static void
test_depth_cap(void **state)
{
    (void)state;
    char text[256] = "name: ";
    for (int i = 0; i < 40; i++)
        strcat(text, "[");
    expect_first(text, strlen(text), "1:38: plan is nested too deeply (more than 32 levels)");
    const char nul[] = "name: \"a\\0b\"\n";
    expect_first(nul, sizeof nul - 1, "1:7: invalid value: contains a NUL character");
}

static void
test_diag_cap(void **state)
{
    (void)state;
    char *text = malloc(64 * 1024);
    strcpy(text, "name: x\n");
    for (int i = 0; i < 300; i++)
        sprintf(text + strlen(text), "k%d: 1\n", i);
    struct diags *d = diags_new();
    struct plan *p;
    assert_int_equal(plan_load_buffer("t.yaml", text, strlen(text), &p, d), NS_EPARSE);
    assert_int_equal(diags_count(d), DIAG_MAX);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    diags_write(d, f);
    fclose(f);
    assert_non_null(strstr(buf, "102 more problems not shown\n")); /* + hosts, scenarios */
    free(buf);
    diags_free(d);
    free(text);
}

static void
test_suggest(void **state)
{
    (void)state;
    const char *const keys[] = {"duration", "warmup", "trials", "streams", "msg_size"};
    assert_string_equal(suggest_closest("duraton", keys, 5), "duration");
    assert_string_equal(suggest_closest("Duration", keys, 5), "duration");
    assert_string_equal(suggest_closest("wramup", keys, 5), "warmup"); /* a swap is one edit */
    assert_string_equal(suggest_closest("trails", keys, 5), "trials");
    assert_string_equal(suggest_closest("msgsize", keys, 5), "msg_size");
    assert_null(suggest_closest("colour", keys, 5));
    assert_null(suggest_closest("", keys, 5));
    assert_null(suggest_closest("x", keys, 5));
}

static void
test_free_null(void **state)
{
    (void)state;
    plan_free(NULL);
    diags_free(NULL);
    schedule_free(NULL);
}

/* zone: auto / region: auto: flagged, each its own zone until placed; placing numbers the zones
 * again (cross-zone pairs shrink), takes the metadata's zone_id only where the plan has none,
 * and leaves given values alone. */
static void
test_auto_places(void **state)
{
    (void)state;
    const char *y = "name: t\n"
                    "hosts:\n"
                    "  - {name: a, address: 10.0.0.1, zone: auto, region: auto}\n"
                    "  - {name: b, address: 10.0.0.2, zone: auto, region: r1, zone_id: phys-b}\n"
                    "  - {name: c, address: 10.0.0.3, zone: z1, region: r1}\n"
                    "scenarios: [{name: s, test: tcp_rr}]\n"
                    "pairs: cross-zone\n";
    struct diags *d = diags_new();
    struct plan *p = NULL;
    assert_int_equal(plan_load_buffer("t.yaml", y, strlen(y), &p, d), 0);
    const struct plan_host *a = plan_host(p, 0), *b = plan_host(p, 1), *c = plan_host(p, 2);
    assert_true(a->zone_from_host && a->region_from_host);
    assert_true(b->zone_from_host && !b->region_from_host);
    assert_false(c->zone_from_host || c->region_from_host);
    assert_string_equal(a->zone, "auto");
    assert_true(plan_has_auto_places(p));
    assert_int_equal(plan_zone_count(p), 3);
    assert_int_equal(plan_pair_count(p), 6);
    assert_int_equal(plan_host_place(p, 0, "z1", "r1", "phys-1"), 0);
    assert_true(plan_has_auto_places(p));
    assert_int_equal(plan_host_place(p, 1, "z1", "other", "phys-1"), 0);
    assert_false(plan_has_auto_places(p));
    assert_string_equal(a->zone, "z1");
    assert_string_equal(a->region, "r1");
    assert_string_equal(a->zone_id, "phys-1");
    assert_string_equal(b->region, "r1");      /* the plan's region stands */
    assert_string_equal(b->zone_id, "phys-b"); /* and its zone_id */
    assert_int_equal(plan_zone_count(p), 1);
    assert_int_equal(plan_pair_count(p), 0);
    assert_int_equal(plan_host_place(p, 2, "z9", "r9", "x"), 0); /* not auto: unchanged */
    assert_string_equal(c->zone, "z1");
    plan_free(p);
    diags_free(d);
}

/* --- names as data addresses (plan_resolve_names) --------------------------------------------- */

/* A resolver of fixed answers: "six" is ::1, "one" and "beta" are 127.0.0.1, "two" 127.0.0.2;
 * anything else does not resolve. Counts its calls. */
static int
fake_resolve(void *ctx, const char *name, char *buf, size_t len, enum plan_family *family,
             struct err *e)
{
    ++*(int *)ctx;
    static const struct {
        const char *name, *ip;
        enum plan_family fam;
    } table[] = {{"six", "::1", PLAN_FAMILY_IPV6},
                 {"one", "127.0.0.1", PLAN_FAMILY_IPV4},
                 {"beta", "127.0.0.1", PLAN_FAMILY_IPV4},
                 {"two", "127.0.0.2", PLAN_FAMILY_IPV4}};
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        if (strcmp(table[i].name, name) == 0) {
            snprintf(buf, len, "%s", table[i].ip);
            *family = table[i].fam;
            return 0;
        }
    }
    return err_set(e, NS_ENOTFOUND, "no such name");
}

/* Load hosts (the lines of a hosts: list) with one tcp_rr scenario, resolve with fake_resolve;
 * the result, the diagnostics (short form, joined by '|') into got, and the calls made. */
static int
resolve_plan(const char *hosts, char *got, size_t len, int *calls, struct plan **out)
{
    char text[2048];
    snprintf(text, sizeof text, "name: n\nhosts:\n%sscenarios:\n  - {name: rr, test: tcp_rr}\n",
             hosts);
    struct diags *d = diags_new();
    struct plan *p = NULL;
    assert_int_equal(plan_load_buffer("n.yaml", text, strlen(text), &p, d), 0);
    *calls = 0;
    int rc = plan_resolve_names(p, fake_resolve, calls, d);
    got[0] = '\0';
    for (size_t i = 0; i < diags_count(d); i++) {
        char one[600];
        diag_short(d, i, one, sizeof one);
        snprintf(got + strlen(got), len - strlen(got), "%s%s", i ? "|" : "", one);
    }
    diags_free(d);
    if (out != NULL)
        *out = p;
    else
        plan_free(p);
    return rc;
}

static void
test_resolve_names(void **state)
{
    (void)state;
    char got[4096];
    int calls;
    struct plan *p;
    /* Resolved: the family and the address are known, the name stays what nsperf is given. */
    assert_int_equal(resolve_plan("  - {name: a, transport: local, data_address: one}\n"
                                  "  - {name: b, transport: local, data_address: two}\n",
                                  got, sizeof got, &calls, &p),
                     0);
    assert_string_equal(got, "");
    assert_int_equal(calls, 2);
    assert_string_equal(plan_host(p, 0)->data_address, "one");
    assert_string_equal(plan_host(p, 0)->data_ip, "127.0.0.1");
    assert_int_equal(plan_host(p, 1)->data_family, PLAN_FAMILY_IPV4);
    plan_free(p);
    /* localhost beside 127.0.0.1: a duplicate once resolved; one beside beta: the later one. */
    assert_int_equal(resolve_plan("  - {name: a, transport: local, data_address: 127.0.0.1}\n"
                                  "  - {name: b, transport: local, data_address: beta}\n"
                                  "  - {name: c, transport: local, data_address: two}\n"
                                  "  - {name: d, transport: local, data_address: one}\n",
                                  got, sizeof got, &calls, NULL),
                     NS_EPARSE);
    assert_string_equal(got, "4:47: duplicate data address: 'beta' of host 'b' resolves to "
                             "127.0.0.1, the data address of host 'a' (at 3:47)|"
                             "6:47: duplicate data address: 'one' of host 'd' resolves to "
                             "127.0.0.1, the data address of host 'a' (at 3:47)");
    /* A name of the other family: the pair is refused, as for literal addresses. */
    assert_int_equal(resolve_plan("  - {name: a, transport: local, data_address: 127.0.0.1}\n"
                                  "  - {name: b, transport: local, data_address: six}\n",
                                  got, sizeof got, &calls, NULL),
                     NS_EPARSE);
    assert_string_equal(got, "4:47: host 'b' (IPv6 data address ::1) is paired with host 'a' "
                             "(IPv4, 127.0.0.1): a test cannot cross address families; give "
                             "every host an address of one family, or list pairs of one family");
    /* A local host's name must resolve here; an ssh host's data_address need not (a warning),
     * and its address, which doubles as data address, is ssh's to resolve (never asked). */
    assert_int_equal(resolve_plan("  - {name: a, transport: local, data_address: nowhere}\n"
                                  "  - {name: b, transport: local, data_address: 127.0.0.2}\n",
                                  got, sizeof got, &calls, NULL),
                     NS_EPARSE);
    assert_string_equal(got,
                        "3:47: cannot resolve data address 'nowhere' of host 'a': no such name");
    assert_int_equal(resolve_plan("  - {name: a, address: vm-a, data_address: internal-a}\n"
                                  "  - {name: b, address: vm-b}\n",
                                  got, sizeof got, &calls, NULL),
                     0);
    assert_int_equal(calls, 1);
    assert_string_equal(got, "3:44: warning: cannot resolve data address 'internal-a' of host "
                             "'a' here (no such name): its address family and duplicates are "
                             "not checked");
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_adaptive_trials),  cmocka_unit_test(test_bad_fixtures),
        cmocka_unit_test(test_ok_fixtures),      cmocka_unit_test(test_resolve_names),
        cmocka_unit_test(test_shipped_plans),    cmocka_unit_test(test_default_is_localhost_yaml),
        cmocka_unit_test(test_full_hosts),       cmocka_unit_test(test_jump_and_retries),
        cmocka_unit_test(test_scenario_argv),    cmocka_unit_test(test_full_scenarios),
        cmocka_unit_test(test_builtin_defaults), cmocka_unit_test(test_output_path),
        cmocka_unit_test(test_nsperf_flags),     cmocka_unit_test(test_source_kept),
        cmocka_unit_test(test_size_cap),         cmocka_unit_test(test_unreadable),
        cmocka_unit_test(test_depth_cap),        cmocka_unit_test(test_diag_cap),
        cmocka_unit_test(test_suggest),          cmocka_unit_test(test_free_null),
        cmocka_unit_test(test_auto_places),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
