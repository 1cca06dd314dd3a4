/* test_cli.c - the netsurvey binary as users run it: every bad fixture exits 2 with exactly its
 * expected stderr lines; the shipped and default plans check, dry-run, and give parseable
 * JSON; a usage mistake is one line and where the help is (exit 2), with "did you mean" for
 * commands and options; abbreviated and repeated options are refused; --help exits 0. */
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

#include "common/sha256.h"
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
    /* a number, or a sweep's list of them (its values' nsperf flags under "sweep") */
    const json_t *ms = json_object_get(params, "msg_size");
    assert_true(json_is_number(ms) ||
                (json_is_array(ms) && json_array_size(ms) >= 2 &&
                 json_is_array(json_object_get(json_object_get(sc0, "sweep"), "runs"))));
    const json_t *args = json_object_get(sc0, "nsperf_args");
    if (args == NULL) /* a sweep: each value's own */
        args = json_object_get(
            json_array_get(json_object_get(json_object_get(sc0, "sweep"), "runs"), 0),
            "nsperf_args");
    assert_string_equal(json_string_value(json_array_get(args, 0)), "--test");
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

static const json_t *json_host(const json_t *doc, const char *name);

static void
test_shipped_plans(void **state)
{
    (void)state;
    /* Every plan shipped in plans/, so that none escapes: the seeds' methods (sockperf zone
     * matrix, NTTTCP, netperf on KVM, qperf), the lab's, the default one, and the example of
     * hosts_from (aws-hosts-from.yaml reads aws-ec2.json beside it: checked and dry-run here
     * as a user would, from the plan's folder). */
    const char *expected[] = {"localhost.yaml",           "lab-region.yaml",
                              "azure-westus3-zones.yaml", "azure-ntttcp-throughput.yaml",
                              "kvm-netperf.yaml",         "azure-japaneast-survey.yaml",
                              "aws-hosts-from.yaml"};
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

/* The example of hosts_from: its hosts are the running instances of aws-ec2.json tagged
 * role=survey, each in the zone (and zone id) the CLI's JSON gives, dialled on its public
 * address and tested on its private one. */
static void
test_aws_example(void **state)
{
    (void)state;
    char path[1024];
    helper_source_path("plans/aws-hosts-from.yaml", path, sizeof path);
    struct run r;
    RUN(&r, NULL, "plan", "--json", path);
    assert_int_equal(r.status, 0);
    json_t *doc = json_loads(r.out, 0, NULL);
    assert_non_null(doc);
    static const char *const want[][5] = {
        {"survey-1a", "us-east-1a", "use1-az4", "203.0.113.11", "198.51.100.11"},
        {"survey-1b", "us-east-1b", "use1-az6", "203.0.113.12", "198.51.100.12"},
        {"survey-1c", "us-east-1c", "use1-az1", "203.0.113.13", "198.51.100.13"}};
    const json_t *hosts = json_object_get(doc, "hosts");
    assert_int_equal(json_array_size(hosts), 3);
    for (size_t i = 0; i < 3; i++) {
        const json_t *h = json_host(doc, want[i][0]);
        static const char *const keys[] = {"name", "zone", "zone_id", "address", "data_address"};
        for (size_t k = 1; k < 5; k++)
            assert_string_equal(json_string_value(json_object_get(h, keys[k])), want[i][k]);
        assert_string_equal(json_string_value(json_object_get(h, "region")), "us-east-1");
    }
    const json_t *inv = json_array_get(json_object_get(doc, "hosts_from"), 0);
    assert_string_equal(json_string_value(json_object_get(inv, "format")), "aws");
    json_decref(doc);
    run_free(&r);
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
                               "2 zones, 2 pairs, 2 scenarios, 12 tests\n");
    run_free(&r);
    RUN(&r, NULL, "plan", "--json");
    assert_int_equal(r.status, 0);
    check_json(r.out, "default plan");
    run_free(&r);
    RUN(&r, NULL, "plan");
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "plan 'localhost' from built-in:localhost.yaml\n"));
    assert_non_null(strstr(r.out, "12 tests in 12 rounds, estimated 32 s"));
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

/* The keys of a JSON object, sorted, as one string. */
static void
keys_text(const json_t *o, char *buf, size_t len)
{
    const char *k[32];
    size_t n = 0, used = 0;
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)(uintptr_t)o, key, v)
    {
        if (n < 32)
            k[n++] = key;
    }
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && strcmp(k[j - 1], k[j]) > 0; j--) {
            const char *t = k[j];
            k[j] = k[j - 1];
            k[j - 1] = t;
        }
    buf[0] = '\0';
    for (size_t i = 0; i < n && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? "," : "", k[i]);
}

static const json_t *
json_host(const json_t *doc, const char *name)
{
    size_t i;
    json_t *h;
    json_array_foreach(json_object_get(doc, "hosts"), i, h)
    {
        if (strcmp(json_string_value(json_object_get(h, "name")), name) == 0)
            return h;
    }
    fail_msg("no host %s in --json", name);
    return NULL;
}

/* An imported host reads in plan --json exactly as a hand-written one; hosts_from says where
 * the hosts came from. */
static void
test_hosts_from_json(void **state)
{
    (void)state;
    char dir[1024];
    helper_source_path("tests/fixtures/plans/ok", dir, sizeof dir);
    struct run r;
    RUN(&r, dir, "plan", "--json", "hosts-from-and-hosts.yaml");
    assert_int_equal(r.status, 0);
    json_error_t jerr;
    json_t *doc = json_loads(r.out, 0, &jerr);
    assert_non_null(doc);
    const json_t *mine = json_host(doc, "zone2-vm"), *imported = json_host(doc, "zone1-vm");
    char a[512], b[512];
    keys_text(mine, a, sizeof a);
    keys_text(imported, b, sizeof b);
    assert_string_equal(a, b);
    assert_string_equal(a, "address,data_address,labels,name,region,ssh,transport,zone,zone_id");
    keys_text(json_object_get(mine, "ssh"), a, sizeof a);
    keys_text(json_object_get(imported, "ssh"), b, sizeof b);
    assert_string_equal(a, b);
    assert_string_equal(json_string_value(json_object_get(imported, "address")), "203.0.113.4");
    assert_string_equal(json_string_value(json_object_get(imported, "data_address")), "10.0.0.4");
    assert_string_equal(json_string_value(json_object_get(imported, "zone")), "1");
    assert_string_equal(json_string_value(json_object_get(imported, "region")), "westus3");
    assert_string_equal(json_string_value(json_object_get(imported, "zone_id")), "");
    assert_string_equal(
        json_string_value(json_object_get(json_object_get(imported, "ssh"), "user")), "azureuser");
    assert_string_equal(
        json_string_value(json_object_get(json_object_get(imported, "labels"), "instance_type")),
        "Standard_D4s_v5");
    /* the replaced host is the plan's own */
    assert_string_equal(json_string_value(json_object_get(mine, "address")), "203.0.113.50");

    const json_t *from = json_object_get(doc, "hosts_from");
    assert_int_equal(json_array_size(from), 2);
    const json_t *az = json_array_get(from, 0);
    keys_text(az, a, sizeof a);
    assert_string_equal(a, "file,format,hosts,path,replaced,sha256,skipped");
    assert_string_equal(json_string_value(json_object_get(az, "format")), "azure");
    char inv[1024];
    helper_source_path("tests/fixtures/inventories/azure-vms.json", inv, sizeof inv);
    size_t len;
    char *bytes = helper_read_file(inv, &len);
    uint8_t d[SHA256_LEN];
    char hex[2 * SHA256_LEN + 1];
    sha256(bytes, len, d);
    assert_string_equal(json_string_value(json_object_get(az, "sha256")),
                        sha256_hex_encode(d, SHA256_LEN, hex));
    free(bytes);
    const char *path = json_string_value(json_object_get(az, "path"));
    assert_true(path[0] == '/' && strstr(path, "/tests/fixtures/inventories/azure-vms.json"));
    assert_int_equal(json_array_size(json_object_get(az, "hosts")), 2);
    assert_string_equal(json_string_value(json_array_get(json_object_get(az, "replaced"), 0)),
                        "zone2-vm");
    const json_t *sk = json_array_get(json_object_get(az, "skipped"), 0);
    assert_string_equal(json_string_value(json_object_get(sk, "name")), "zone3-old");
    assert_string_equal(json_string_value(json_object_get(sk, "state")), "VM deallocated");
    json_decref(doc);
    /* the notes go to stderr, the document alone to stdout */
    assert_non_null(strstr(r.err, "note: host 'zone2-vm' of ../../inventories/azure-vms.json [1] "
                                  "is replaced by the hosts entry at 6:5\n"));
    run_free(&r);
    /* a plan on standard input finds its inventories from the current directory */
    char plan[2048];
    snprintf(plan, sizeof plan, "%s/hosts-from-azure.yaml", dir);
    run_in(dir, plan, &r, (const char *const[]){"check", "-q", "-", NULL});
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.err, "/dev/stdin:7:5: note: 2 machines of"));
    run_free(&r);
}

/* An ssh config's aliases: the transport resolves each as ssh would, and the data address the
 * plan took from the file is the hostname it resolves to. */
static void
test_ssh_config_resolved(void **state)
{
    (void)state;
    char dir[1024], cfg[1200];
    helper_source_path("tests/fixtures/plans/ok", dir, sizeof dir);
    helper_source_path("tests/fixtures/inventories/ssh_config", cfg, sizeof cfg);
    setenv("NETSURVEY_SSH_CONFIG", cfg, 1);
    struct run r;
    RUN(&r, dir, "plan", "--json", "hosts-from-ssh-config.yaml");
    unsetenv("NETSURVEY_SSH_CONFIG");
    assert_int_equal(r.status, 0);
    json_t *doc = json_loads(r.out, 0, NULL);
    assert_non_null(doc);
    static const char *const names[] = {"zone1-vm", "zone2-vm", "zone3-vm", "zone4-vm"};
    for (size_t i = 0; i < 4; i++) {
        const json_t *h = json_host(doc, names[i]);
        const json_t *res = json_object_get(json_object_get(h, "ssh"), "resolved");
        const char *hostname = json_string_value(json_object_get(res, "hostname"));
        if (hostname == NULL ||
            strcmp(hostname, json_string_value(json_object_get(h, "data_address"))) != 0)
            fail_msg("%s: resolved to %s, data address %s", names[i], hostname ? hostname : "?",
                     json_string_value(json_object_get(h, "data_address")));
        assert_string_equal(json_string_value(json_object_get(h, "address")), names[i]);
    }
    const json_t *z2 =
        json_object_get(json_object_get(json_host(doc, "zone2-vm"), "ssh"), "resolved");
    assert_int_equal(json_integer_value(json_object_get(z2, "port")), 2222);
    assert_string_equal(json_string_value(json_object_get(z2, "user")), "azureuser");
    json_decref(doc);
    run_free(&r);
}

/* A usage error is one line, then where the help is: exit 2, nothing on stdout. */
static void
expect_usage(const char *const *args, const char *want_err)
{
    struct run r;
    run_in(NULL, NULL, &r, args);
    if (r.status != 2 || strcmp(r.err, want_err) != 0 || r.out[0] != '\0')
        fail_msg("netsurvey %s ...: exit %d\nstdout: %s\nexpected stderr:\n%sgot:\n%s", args[0],
                 r.status, r.out, want_err, r.err);
    run_free(&r);
}

#define USAGE(want, ...) expect_usage((const char *const[]){__VA_ARGS__, NULL}, (want))

static void
test_usage(void **state)
{
    (void)state;
    USAGE("netsurvey: unknown command 'chek'; did you mean 'check'?\n"
          "try 'netsurvey --help'\n",
          "chek");
    USAGE("netsurvey: unknown command 'frobnicate'\ntry 'netsurvey --help'\n", "frobnicate");
    USAGE("netsurvey: unknown command 'chek'; did you mean 'check'?\n"
          "try 'netsurvey --help'\n",
          "help", "chek");
    USAGE("netsurvey: unknown option '--hlp'; did you mean '--help'?\ntry 'netsurvey --help'\n",
          "--hlp");
    USAGE("netsurvey: unexpected argument 'run' after --version\ntry 'netsurvey --help'\n",
          "--version", "run");
    USAGE("netsurvey plan: unknown option '--jsn'; did you mean '--json'?\n"
          "try 'netsurvey plan --help'\n",
          "plan", "--jsn");
    USAGE("netsurvey run: unknown option '--ouput'; did you mean '--output'?\n"
          "try 'netsurvey run --help'\n",
          "run", "--ouput", "x");
    USAGE("netsurvey run: unknown option '-x'\ntry 'netsurvey run --help'\n", "run", "-x");
    USAGE("netsurvey check: too many arguments\ntry 'netsurvey check --help'\n", "check", "a.yaml",
          "b.yaml");
    USAGE("netsurvey run: --force goes with --resume\ntry 'netsurvey run --help'\n", "run",
          "--force");
    /* a value missing: said as what it is, not as an unknown option */
    USAGE("netsurvey run: --resume needs a directory (--resume DIR)\ntry 'netsurvey run --help'\n",
          "run", "--resume");
    USAGE("netsurvey run: -o/--output needs a directory (--output DIR)\n"
          "try 'netsurvey run --help'\n",
          "run", "-o");
    USAGE("netsurvey compare: --max-regression needs a percentage (--max-regression PCT)\n"
          "try 'netsurvey compare --help'\n",
          "compare", "a", "b", "--max-regression");
    /* abbreviations are refused: a later option could make one ambiguous */
    USAGE("netsurvey run: abbreviated option '--out'; write it in full: '--output'\n"
          "try 'netsurvey run --help'\n",
          "run", "--out", "x");
    USAGE("netsurvey check: abbreviated option '--conn'; write it in full: '--connect'\n"
          "try 'netsurvey check --help'\n",
          "check", "--conn");
    USAGE("netsurvey report: abbreviated option '--len'; write it in full: '--lenient'\n"
          "try 'netsurvey report --help'\n",
          "report", "--len=1", "d");
    USAGE("netsurvey plan: --json takes no value ('--json=yes')\ntry 'netsurvey plan --help'\n",
          "plan", "--json=yes");
    USAGE("netsurvey run: abbreviated option '--hel'; write it in full: '--help'\n"
          "try 'netsurvey run --help'\n",
          "run", "--hel");
    /* an option given twice is refused, whatever its form, and so are two that set one thing */
    USAGE("netsurvey run: -o/--output is given twice\ntry 'netsurvey run --help'\n", "run", "-o",
          "a", "--output=b");
    USAGE("netsurvey compare: --max-regression is given twice\ntry 'netsurvey compare --help'\n",
          "compare", "--max-regression=3", "a", "b", "--max-regression", "4");
    USAGE("netsurvey check: --connect is given twice\ntry 'netsurvey check --help'\n", "check",
          "--connect", "--connect");
    /* a list is given once per value: the parser takes both, the command then says why not */
    USAGE("netsurvey check: --json, --deploy, --nsperf and --nsperf-remote go with --connect\n"
          "try 'netsurvey check --help'\n",
          "check", "--nsperf-remote", "a", "--nsperf-remote", "b");
    USAGE("netsurvey run: -q/--quiet and -v/--verbose cannot both be given\n"
          "try 'netsurvey run --help'\n",
          "run", "-q", "-v");
    struct run r;
    RUN(&r, NULL, "check", "/nonexistent.yaml");
    assert_int_equal(r.status, 2);
    assert_string_equal(r.err, "/nonexistent.yaml: cannot read plan: No such file or directory\n");
    run_free(&r);
    RUN(&r, NULL, "--version");
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "netsurvey "));
    run_free(&r);
}

/* --help, of netsurvey and of every command, in every form: on stdout, exit 0, nothing on
 * stderr. */
static void
test_help(void **state)
{
    (void)state;
    static const char *const commands[] = {"check",   "plan",  "run",  "report",
                                           "compare", "trend", "clean"};
    struct run r;
    RUN(&r, NULL, "--help");
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "usage: netsurvey COMMAND"));
    assert_string_equal(r.err, "");
    run_free(&r);
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        char want[64];
        snprintf(want, sizeof want, "usage: netsurvey %s ", commands[i]);
        const char *const forms[][3] = {
            {commands[i], "--help", NULL}, {commands[i], "-h", NULL}, {"help", commands[i], NULL}};
        for (size_t f = 0; f < 3; f++) {
            run_in(NULL, NULL, &r, forms[f]);
            if (r.status != 0 || strncmp(r.out, want, strlen(want)) != 0 || r.err[0] != '\0')
                fail_msg("netsurvey %s %s: exit %d\n%s%s", forms[f][0], forms[f][1], r.status,
                         r.out, r.err);
            run_free(&r);
        }
    }
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bad_fixtures),
        cmocka_unit_test(test_shipped_plans),
        cmocka_unit_test(test_ok_fixtures),
        cmocka_unit_test(test_default_plan),
        cmocka_unit_test(test_stdin),
        cmocka_unit_test(test_usage),
        cmocka_unit_test(test_help),
        cmocka_unit_test(test_aws_example),
        cmocka_unit_test(test_hosts_from_json),
        cmocka_unit_test(test_ssh_config_resolved),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
