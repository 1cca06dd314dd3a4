/* test_cli.c - the netsurvey binary as users run it: every bad fixture exits 2 with exactly its
 * expected stderr lines; the shipped and default plans check, dry-run, and give parseable
 * JSON; usage mistakes exit 2. */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>
#include <cmocka.h>

#include "helpers.h"

#ifndef NETSURVEY_BIN
#error "NETSURVEY_BIN must name the netsurvey binary"
#endif

struct run {
    int status; /* exit status, or -1 */
    char *out, *err;
};

static int
temp_file(char *tmpl)
{
    int fd = mkstemp(tmpl);
    assert_true(fd >= 0);
    return fd;
}

static void
child(const char *cwd, const char *in, int out, int err, char *const argv[])
{
    int fd = open(in ? in : "/dev/null", O_RDONLY);
    if (fd < 0 || dup2(fd, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0)
        _exit(126);
    if (cwd != NULL && chdir(cwd) != 0)
        _exit(125);
    execv(NETSURVEY_BIN, argv);
    _exit(127);
}

/* Run netsurvey with args (NULL-terminated, without argv[0]) in cwd, stdin from in. */
static void
run_in(const char *cwd, const char *in, struct run *r, const char *const *args)
{
    char *argv[16] = {strdup("netsurvey")}; /* execv wants mutable strings */
    size_t n = 1;
    for (; args[n - 1] != NULL && n < 15; n++)
        argv[n] = strdup(args[n - 1]);
    argv[n] = NULL;
    char out_path[] = "/tmp/ns_cli_out_XXXXXX", err_path[] = "/tmp/ns_cli_err_XXXXXX";
    int out = temp_file(out_path), err = temp_file(err_path);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0)
        child(cwd, in, out, err, argv);
    int st;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    r->status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    for (size_t i = 0; i < n; i++)
        free(argv[i]);
    r->out = helper_read_file(out_path, NULL);
    r->err = helper_read_file(err_path, NULL);
    close(out);
    close(err);
    unlink(out_path);
    unlink(err_path);
}

#define RUN(r, cwd, ...) run_in((cwd), NULL, (r), (const char *const[]){__VA_ARGS__, NULL})

static void
run_free(struct run *r)
{
    free(r->out);
    free(r->err);
}

/* What fixtures write after "# expect: " is what follows "NAME:" on stderr. */
static char *
expected_stderr(const char *name, char **exp, size_t n)
{
    size_t cap = 1, len = 0;
    for (size_t i = 0; i < n; i++)
        cap += strlen(name) + strlen(exp[i]) + 3;
    char *s = calloc(cap, 1);
    for (size_t i = 0; i < n; i++) {
        bool positioned = exp[i][0] >= '0' && exp[i][0] <= '9';
        len += (size_t)sprintf(s + len, "%s:%s%s\n", name, positioned ? "" : " ", exp[i]);
    }
    return s;
}

static void
check_bad(const char *dir, const char *name, const char *command)
{
    char path[2100];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    char *text = helper_read_file(path, NULL);
    size_t n;
    char **exp = helper_expectations(text, &n);
    char *want = expected_stderr(name, exp, n);
    struct run r;
    RUN(&r, dir, command, name);
    if (r.status != 2 || strcmp(r.err, want) != 0 || r.out[0] != '\0')
        fail_msg("netsurvey %s %s: exit %d\nstdout: %s\nexpected stderr:\n%sgot:\n%s", command,
                 name, r.status, r.out, want, r.err);
    run_free(&r);
    free(want);
    helper_names_free(exp, n);
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
        check_bad(dir, names[i], i % 2 ? "plan" : "check"); /* both validate first */
    helper_names_free(names, n);
}

/* The JSON dry run: shape, counts, no host twice in a round. */
static void
check_json(const char *text, const char *what)
{
    json_error_t jerr;
    json_t *doc = json_loads(text, 0, &jerr);
    if (doc == NULL)
        fail_msg("%s: --json output does not parse: %s", what, jerr.text);
    /* what the plan is: its name, hosts, and each scenario's resolved parameters */
    assert_true(json_is_string(json_object_get(json_object_get(doc, "plan"), "name")));
    json_t *hosts_list = json_object_get(doc, "hosts"), *scens = json_object_get(doc, "scenarios");
    assert_true(json_is_array(hosts_list) && json_array_size(hosts_list) >= 2);
    assert_true(json_is_string(json_object_get(json_array_get(hosts_list, 0), "data_address")));
    assert_true(json_is_array(scens) && json_array_size(scens) >= 1);
    json_t *sc0 = json_array_get(scens, 0), *params = json_object_get(sc0, "params");
    assert_true(json_is_number(json_object_get(params, "duration")));
    assert_true(json_is_number(json_object_get(params, "msg_size")));
    assert_string_equal(json_string_value(json_array_get(json_object_get(sc0, "nsperf_args"), 0)),
                        "--test");
    json_t *rounds = json_object_get(doc, "rounds");
    assert_true(json_is_array(rounds) && json_array_size(rounds) > 0);
    size_t tests = 0, i, j;
    json_t *round, *t;
    json_array_foreach(rounds, i, round)
    {
        assert_true(json_is_array(round) && json_array_size(round) > 0);
        json_t *hosts = json_object();
        json_array_foreach(round, j, t)
        {
            const char *src = json_string_value(json_object_get(t, "src"));
            const char *dst = json_string_value(json_object_get(t, "dst"));
            assert_true(src && dst && json_is_string(json_object_get(t, "scenario")));
            assert_true(json_integer_value(json_object_get(t, "trial")) >= 1);
            assert_null(json_object_get(hosts, src));
            json_object_set_new(hosts, src, json_true());
            assert_null(json_object_get(hosts, dst));
            json_object_set_new(hosts, dst, json_true());
            tests++;
        }
        json_decref(hosts);
    }
    assert_int_equal(json_integer_value(json_object_get(doc, "tests")), tests);
    assert_true(json_number_value(json_object_get(doc, "estimated_s")) > 0);
    json_decref(doc);
}

static void
check_good(const char *path)
{
    struct run r;
    /* a good plan may have warnings ("# expect:" lines): printed, exit 0 */
    char *text = helper_read_file(path, NULL), want[4096] = "";
    size_t nexp, used = 0;
    char **exp = helper_expectations(text, &nexp);
    for (size_t i = 0; i < nexp && used < sizeof want; i++)
        used += (size_t)snprintf(want + used, sizeof want - used, "%s:%s\n", path, exp[i]);
    helper_names_free(exp, nexp);
    free(text);
    RUN(&r, NULL, "check", path);
    if (r.status != 0 || strstr(r.out, "is valid: ") == NULL || strcmp(r.err, want) != 0)
        fail_msg("netsurvey check %s: exit %d\n%s%s", path, r.status, r.out, r.err);
    run_free(&r);
    RUN(&r, NULL, "plan", path);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "round 1 of "));
    assert_non_null(strstr(r.out, " tests in "));
    run_free(&r);
    RUN(&r, NULL, "plan", "--json", path);
    assert_int_equal(r.status, 0);
    check_json(r.out, path);
    run_free(&r);
}

static void
test_shipped_plans(void **state)
{
    (void)state;
    /* Every plan shipped in plans/, so that none escapes: the seeds' methods (sockperf zone
     * matrix, NTTTCP, netperf on KVM, qperf), the lab's and the default one. */
    const char *expected[] = {"localhost.yaml",           "lab-region.yaml",
                              "azure-westus3-zones.yaml", "azure-ntttcp-throughput.yaml",
                              "kvm-netperf.yaml",         "azure-japaneast-survey.yaml"};
    char dir[1024], path[2048];
    helper_source_path("plans", dir, sizeof dir);
    size_t n;
    char **names = helper_list_dir(dir, ".yaml", &n);
    for (size_t i = 0; i < sizeof expected / sizeof expected[0]; i++) {
        bool found = false;
        for (size_t k = 0; k < n; k++)
            found = found || strcmp(names[k], expected[i]) == 0;
        if (!found)
            fail_msg("plans/%s is not shipped", expected[i]);
    }
    for (size_t i = 0; i < n; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        check_good(path);
    }
    helper_names_free(names, n);
}

static void
test_ok_fixtures(void **state)
{
    (void)state;
    char dir[1024], path[2048];
    helper_source_path("tests/fixtures/plans/ok", dir, sizeof dir);
    size_t n;
    char **names = helper_list_dir(dir, ".yaml", &n);
    for (size_t i = 0; i < n; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        check_good(path);
    }
    helper_names_free(names, n);
}

static void
test_default_plan(void **state)
{
    (void)state;
    struct run r;
    RUN(&r, NULL, "check");
    assert_int_equal(r.status, 0);
    assert_string_equal(r.out, "built-in:localhost.yaml: plan 'localhost' is valid: 2 hosts, "
                               "2 zones, 2 pairs, 2 scenarios, 4 tests\n");
    run_free(&r);
    RUN(&r, NULL, "plan", "--json");
    assert_int_equal(r.status, 0);
    check_json(r.out, "default plan");
    run_free(&r);
    RUN(&r, NULL, "plan");
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "plan 'localhost' from built-in:localhost.yaml\n"));
    assert_non_null(strstr(r.out, "4 tests in 4 rounds, estimated 17 s"));
    run_free(&r);
}

static void
test_stdin(void **state)
{
    (void)state;
    char path[1024];
    helper_source_path("plans/azure-westus3-zones.yaml", path, sizeof path);
    struct run r;
    run_in(NULL, path, &r, (const char *const[]){"check", "-", NULL});
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "/dev/stdin: plan 'westus3-zones' is valid: 3 hosts"));
    run_free(&r);
}

static void
test_usage(void **state)
{
    (void)state;
    struct run r;
    RUN(&r, NULL, "chek");
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "netsurvey: unknown command 'chek'\n"));
    run_free(&r);
    RUN(&r, NULL, "plan", "--jsn");
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "netsurvey plan: unknown option '--jsn'\n"));
    run_free(&r);
    RUN(&r, NULL, "check", "a.yaml", "b.yaml");
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "too many arguments"));
    run_free(&r);
    RUN(&r, NULL, "check", "/nonexistent.yaml");
    assert_int_equal(r.status, 2);
    assert_string_equal(r.err, "/nonexistent.yaml: cannot read plan: No such file or directory\n");
    run_free(&r);
    RUN(&r, NULL, "--help");
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "usage: netsurvey COMMAND"));
    run_free(&r);
    RUN(&r, NULL, "plan", "--help");
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "usage: netsurvey plan [--json] [PLAN]"));
    run_free(&r);
    RUN(&r, NULL, "--version");
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "netsurvey "));
    run_free(&r);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bad_fixtures), cmocka_unit_test(test_shipped_plans),
        cmocka_unit_test(test_ok_fixtures),  cmocka_unit_test(test_default_plan),
        cmocka_unit_test(test_stdin),        cmocka_unit_test(test_usage),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
