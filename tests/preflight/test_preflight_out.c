/* test_preflight_out.c - what `netsurvey check --connect` prints for a preflight report made by
 * hand (src/cli/cli_preflight_out.c): the table word for word, its problem lines, text from hosts
 * escaped, the JSON document's members; and the data address learnt from `nsperf env`'s
 * default route (src/survey/env.c): one address, none, several, no route. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <cmocka.h>

#include "cli/cli_preflight_out.h"
#include "survey/env.h"

/* --- a report ------------------------------------------------------------------------------ */

static void
set(struct preflight_check *c, enum preflight_status st, const char *detail)
{
    c->status = st;
    snprintf(c->detail, sizeof c->detail, "%s", detail);
}

/* Every check ok, an ssh host with its endpoint cached. */
static void
host_ok(struct preflight_host *h, const char *name, const char *addr)
{
    memset(h, 0, sizeof *h);
    h->name = name;
    h->ok = true;
    struct preflight_check *all[] = {&h->connect, &h->host_key,     &h->auth,
                                     &h->system,  &h->endpoint,     &h->space,
                                     &h->clock,   &h->data_address, &h->data_paths};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        set(all[i], PREFLIGHT_OK, "");
    h->verdict.hostkey = TRANSPORT_HOSTKEY_KNOWN;
    snprintf(h->verdict.fingerprint, sizeof h->verdict.fingerprint, "ssh-ed25519 SHA256:abc");
    snprintf(h->verdict.user, sizeof h->verdict.user, "root");
    snprintf(h->os, sizeof h->os, "Linux");
    snprintf(h->arch, sizeof h->arch, "x86_64");
    h->endpoint_state = PREFLIGHT_ENDPOINT_CACHED;
    snprintf(h->endpoint_path, sizeof h->endpoint_path, "/home/u/.cache/netsurvey/nsperf-static-x");
    h->endpoint_bytes = 1500000;
    h->have_space = true;
    h->space_avail = 3ull << 30;
    snprintf(h->space_path, sizeof h->space_path, "/home/u/.cache/netsurvey");
    h->clock_offset_s = 0.0015;
    h->clock_rtt_s = 0.002;
    snprintf(h->daddr, sizeof h->daddr, "%s", addr);
    snprintf(h->interface, sizeof h->interface, "eth0");
    h->paths_ok = 2;
}

struct fixture {
    struct preflight_host hosts[5];
    struct preflight_path paths[2];
    struct preflight_report r;
};

static void
fixture_make(struct fixture *f)
{
    memset(f, 0, sizeof *f);
    host_ok(&f->hosts[0], "lo", "127.0.0.1");
    struct preflight_host *h = &f->hosts[0];
    h->local = true;
    set(&h->host_key, PREFLIGHT_NA, "");
    set(&h->auth, PREFLIGHT_NA, "");
    set(&h->space, PREFLIGHT_NA, "");
    h->verdict.hostkey = TRANSPORT_HOSTKEY_UNCHECKED;
    h->endpoint_state = PREFLIGHT_ENDPOINT_LOCAL;
    h->clock_offset_s = h->clock_rtt_s = 0;
    snprintf(h->interface, sizeof h->interface, "lo");

    host_ok(&f->hosts[1], "vm1", "10.0.0.4");
    f->hosts[1].clock_offset_s = -0.25;

    /* unknown key: nothing after it was checked */
    h = &f->hosts[2];
    host_ok(h, "vm2", "");
    h->ok = false;
    h->os[0] = h->arch[0] = '\0';
    h->have_space = false;
    h->paths_ok = 0;
    h->verdict.hostkey = TRANSPORT_HOSTKEY_UNKNOWN;
    h->endpoint_state = PREFLIGHT_ENDPOINT_UNKNOWN;
    set(&h->host_key, PREFLIGHT_FAILED,
        "vm2: unknown host key for 10.0.0.5:22 (ssh-ed25519 SHA256:abc) not in kh");
    struct preflight_check *rest[] = {&h->auth,  &h->system,       &h->endpoint,  &h->space,
                                      &h->clock, &h->data_address, &h->data_paths};
    for (size_t i = 0; i < sizeof rest / sizeof rest[0]; i++)
        set(rest[i], PREFLIGHT_NOT_CHECKED, "");

    /* not cached, no --deploy; its OS name has an escape sequence */
    h = &f->hosts[3];
    host_ok(h, "vm3", "");
    h->ok = false;
    snprintf(h->os, sizeof h->os, "Evil\x1b[2J");
    h->endpoint_state = PREFLIGHT_ENDPOINT_UPLOAD;
    h->paths_ok = 0;
    set(&h->data_address, PREFLIGHT_NOT_CHECKED,
        "not checked: endpoint not deployed (use --deploy)");
    set(&h->data_paths, PREFLIGHT_NOT_CHECKED, "not checked: endpoint not deployed (use --deploy)");

    /* a learnt address, not reached from vm1 */
    h = &f->hosts[4];
    host_ok(h, "vm4", "10.0.0.7");
    h->ok = false;
    h->daddr_learnt = true;
    h->paths_ok = 1;
    h->paths_failed = 1;
    set(&h->data_paths, PREFLIGHT_FAILED, "10.0.0.7 is not reached from vm1: timed out");

    f->paths[0] = (struct preflight_path){.src = 0, .dst = 4, .status = PREFLIGHT_OK, .rtt_us = 50};
    f->paths[1] = (struct preflight_path){.src = 1, .dst = 4, .status = PREFLIGHT_FAILED};
    snprintf(f->paths[1].detail, sizeof f->paths[1].detail, "cannot connect: timed out");
    f->r = (struct preflight_report){.hosts = f->hosts,
                                     .nhosts = 5,
                                     .paths = f->paths,
                                     .npaths = 2,
                                     .ok = false,
                                     .elapsed_s = 1.25};
}

static char *
capture_table(const struct preflight_report *r)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    assert_int_equal(cli_preflight_table(f, r), 0);
    fclose(f);
    return buf;
}

/* --- the table ----------------------------------------------------------------------------- */

static void
test_table(void **state)
{
    (void)state;
    struct fixture f;
    fixture_make(&f);
    char *got = capture_table(&f.r);
    /* word for word: the header, a row per host, every column aligned (the "±" is one) */
    const char *want = "HOST  HOST KEY  AUTH       SYSTEM              ENDPOINT  FREE       CLOCK  "
                       "                DATA ADDRESS             DATA PATHS   RESULT\n"
                       "lo    n/a       n/a        Linux x86_64        local     n/a        0 "
                       "(local)              127.0.0.1 (lo)           2/2 ok       ok\n"
                       "vm1   known     ok (root)  Linux x86_64        cached    3.000 GiB  "
                       "-250.000 ms ±1.000 ms  10.0.0.4 (eth0)          2/2 ok       ok\n"
                       "vm2   unknown   -          -                   -         -          -      "
                       "                -                        -            FAILED\n"
                       "vm3   known     ok (root)  Evil\\x1b[2J x86_64  upload    3.000 GiB  "
                       "+1.500 ms ±1.000 ms    not checked              not checked  FAILED\n"
                       "vm4   known     ok (root)  Linux x86_64        cached    3.000 GiB  +1.500 "
                       "ms ±1.000 ms    10.0.0.7 (eth0, learnt)  1/2 ok       FAILED\n";
    if (strncmp(got, want, strlen(want)) != 0)
        fail_msg("table differs; got:\n%s\nwant:\n%s", got, want);
    /* the rows' cells, then the layout rules: header first, one row per host, aligned */
    assert_non_null(strstr(got, "HOST  HOST KEY  AUTH"));
    const char *rows[] = {"\nlo  ", "\nvm1  ", "\nvm2  ", "\nvm3  ", "\nvm4  "};
    for (size_t i = 0; i < 5; i++)
        assert_non_null(strstr(got, rows[i]));
    const char *cells[] = {
        "n/a       n/a        Linux x86_64",
        "known     ok (root)  Linux x86_64",
        "0 (local)",
        "+1.500 ms ±1.000 ms",
        "-250.000 ms ±1.000 ms",
        "127.0.0.1 (lo)",
        "10.0.0.7 (eth0, learnt)",
        "1/2 ok",
        "unknown   -          -",
        "Evil\\x1b[2J x86_64",
        "upload",
        "not checked",
        "3.000 GiB",
    };
    for (size_t i = 0; i < sizeof cells / sizeof cells[0]; i++)
        if (strstr(got, cells[i]) == NULL)
            fail_msg("no '%s' in:\n%s", cells[i], got);
    assert_null(strchr(got, '\x1b'));
    /* every row has its RESULT in the same column */
    const char *line = got;
    long col = -1;
    for (int i = 0; i < 6; i++) {
        const char *end = strchr(line, '\n');
        assert_non_null(end);
        long w = 0; /* display width of the row up to its last cell */
        const char *last = end;
        while (last > line && last[-1] != ' ')
            last--;
        for (const char *p = line; p < last; p++)
            w += ((unsigned char)*p & 0xc0) != 0x80;
        if (col < 0)
            col = w;
        assert_int_equal(w, col);
        line = end + 1;
    }
    free(got);
}

static void
test_problems(void **state)
{
    (void)state;
    struct fixture f;
    fixture_make(&f);
    char *got = capture_table(&f.r);
    const char *want[] = {
        "\nproblems:\n",
        /* the transport's leading "vm2: " is not repeated */
        "  vm2: host key: unknown host key for 10.0.0.5:22 (ssh-ed25519 SHA256:abc) not in kh\n",
        "  vm3: data address: not checked: endpoint not deployed (use --deploy)\n",
        "  vm4: data path vm1 -> vm4: cannot connect: timed out\n",
        "\n5 hosts: 2 passed, 3 failed (1.2 s)\n",
        "the endpoint is not cached on 1 host: --deploy uploads it",
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        if (strstr(got, want[i]) == NULL)
            fail_msg("no '%s' in:\n%s", want[i], got);
    /* consequences of vm2's key are not listed: one problem line for it */
    size_t n = 0;
    for (const char *p = got; (p = strstr(p, "  vm2: ")) != NULL; p++)
        n++;
    assert_int_equal(n, 1);
    /* the path that passed is no problem, nor are the hosts that passed */
    assert_null(strstr(got, "vm1: "));
    assert_null(strstr(got, "lo: "));
    free(got);
}

static void
test_all_ok(void **state)
{
    (void)state;
    struct fixture f;
    fixture_make(&f);
    f.r.nhosts = 2;
    f.r.npaths = 0;
    f.r.ok = true;
    char *got = capture_table(&f.r);
    assert_null(strstr(got, "problems:"));
    assert_null(strstr(got, "--deploy"));
    assert_non_null(strstr(got, "\n2 hosts: 2 passed, 0 failed (1.2 s)\n"));
    free(got);
}

/* --- the JSON ------------------------------------------------------------------------------ */

static void
test_json(void **state)
{
    (void)state;
    static const char yaml[] = "name: t\nhosts:\n  - {name: a, address: 10.0.0.1}\n"
                               "  - {name: b, address: 10.0.0.2}\n"
                               "scenarios:\n  - {name: rr, test: tcp_rr}\n";
    struct plan *p = NULL;
    struct diags *d = diags_new();
    assert_int_equal(plan_load_buffer("t.yaml", yaml, sizeof yaml - 1, &p, d), 0);
    diags_free(d);
    struct fixture f;
    fixture_make(&f);
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    assert_int_equal(cli_preflight_json(out, p, &f.r), 0);
    fclose(out);
    assert_true(len > 0 && buf[len - 1] == '\n');
    json_error_t je;
    json_t *doc = json_loads(buf, 0, &je);
    if (doc == NULL)
        fail_msg("not JSON (%s): %s", je.text, buf);
    assert_string_equal(json_string_value(json_object_get(doc, "schema")), "netsurvey.preflight/1");
    assert_string_equal(json_string_value(json_object_get(json_object_get(doc, "plan"), "file")),
                        "t.yaml");
    assert_true(json_is_false(json_object_get(doc, "ok")));
    json_t *hosts = json_object_get(doc, "hosts");
    assert_int_equal(json_array_size(hosts), 5);
    json_t *lo = json_array_get(hosts, 0), *vm1 = json_array_get(hosts, 1);
    json_t *vm2 = json_array_get(hosts, 2), *vm4 = json_array_get(hosts, 4);
    assert_string_equal(json_string_value(json_object_get(lo, "transport")), "local");
    assert_string_equal(
        json_string_value(json_object_get(json_object_get(lo, "host_key"), "status")), "n/a");
    json_t *key = json_object_get(vm2, "host_key");
    assert_string_equal(json_string_value(json_object_get(key, "status")), "failed");
    assert_string_equal(json_string_value(json_object_get(key, "state")), "unknown");
    assert_string_equal(json_string_value(json_object_get(key, "fingerprint")),
                        "ssh-ed25519 SHA256:abc");
    assert_string_equal(json_string_value(json_object_get(json_object_get(vm2, "auth"), "status")),
                        "not checked");
    json_t *clk = json_object_get(vm1, "clock");
    assert_true(json_number_value(json_object_get(clk, "offset_s")) == -0.25);
    assert_true(json_number_value(json_object_get(clk, "rtt_s")) == 0.002);
    json_t *ep = json_object_get(vm1, "endpoint");
    assert_string_equal(json_string_value(json_object_get(ep, "state")), "cached");
    assert_int_equal(json_integer_value(json_object_get(ep, "bytes")), 1500000);
    assert_int_equal(
        json_integer_value(json_object_get(json_object_get(vm1, "free_space"), "bytes")),
        3ll << 30);
    json_t *da = json_object_get(vm4, "data_address");
    assert_string_equal(json_string_value(json_object_get(da, "address")), "10.0.0.7");
    assert_true(json_is_true(json_object_get(da, "learnt")));
    json_t *dp = json_object_get(vm4, "data_paths");
    assert_string_equal(json_string_value(json_object_get(dp, "status")), "failed");
    assert_int_equal(json_integer_value(json_object_get(dp, "failed")), 1);
    json_t *paths = json_object_get(doc, "paths");
    assert_int_equal(json_array_size(paths), 2);
    json_t *bad = json_array_get(paths, 1);
    assert_string_equal(json_string_value(json_object_get(bad, "src")), "vm1");
    assert_string_equal(json_string_value(json_object_get(bad, "counted_against")), "dst");
    assert_true(json_is_null(json_object_get(json_array_get(paths, 0), "counted_against")));
    json_decref(doc);
    free(buf);
    plan_free(p);
}

/* A host of an architecture there is no nsperf build for: the table says so beside its arch,
 * the problem names the build missing, the JSON has its arch; a host served has its build. */
static void
test_no_build(void **state)
{
    (void)state;
    struct fixture f;
    fixture_make(&f);
    snprintf(f.hosts[1].endpoint_build, sizeof f.hosts[1].endpoint_build, "nsperf-static");
    memset(f.hosts[1].endpoint_sha256, 'e', 64);
    struct preflight_host *h = &f.hosts[2];
    host_ok(h, "arm1", "");
    h->ok = false;
    h->no_build = true;
    snprintf(h->arch, sizeof h->arch, "aarch64");
    h->endpoint_state = PREFLIGHT_ENDPOINT_UNKNOWN;
    h->have_space = false;
    h->paths_ok = 0;
    set(&h->system, PREFLIGHT_FAILED,
        "aarch64 host, but there is no aarch64 build of nsperf-static (nsperf-static-aarch64: "
        "the build makes it where gcc-aarch64-linux-gnu is installed)");
    struct preflight_check *rest[] = {&h->endpoint, &h->space, &h->clock, &h->data_address,
                                      &h->data_paths};
    for (size_t i = 0; i < sizeof rest / sizeof rest[0]; i++)
        set(rest[i], PREFLIGHT_NOT_CHECKED, "");
    f.r.nhosts = 3;
    f.r.npaths = 0;
    char *got = capture_table(&f.r);
    const char *want[] = {
        "\narm1  known     ok (root)  Linux aarch64 (no nsperf build)  -  ",
        "\nvm1   known     ok (root)  Linux x86_64                     cached  ",
        ("  arm1: system: aarch64 host, but there is no aarch64 build of nsperf-static "
         "(nsperf-static-aarch64: the build makes it where gcc-aarch64-linux-gnu is installed)\n"),
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        if (strstr(got, want[i]) == NULL)
            fail_msg("no '%s' in:\n%s", want[i], got);
    free(got);
    /* another failure of the system is "unsupported" as before */
    h->no_build = false;
    got = capture_table(&f.r);
    assert_non_null(strstr(got, "Linux aarch64 (unsupported)"));
    free(got);
    h->no_build = true;
    static const char yaml[] = "name: t\nhosts:\n  - {name: a, address: 10.0.0.1}\n"
                               "  - {name: b, address: 10.0.0.2}\n"
                               "scenarios:\n  - {name: rr, test: tcp_rr}\n";
    struct plan *p = NULL;
    struct diags *d = diags_new();
    assert_int_equal(plan_load_buffer("t.yaml", yaml, sizeof yaml - 1, &p, d), 0);
    diags_free(d);
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    assert_int_equal(cli_preflight_json(out, p, &f.r), 0);
    fclose(out);
    json_t *doc = json_loads(buf, 0, NULL);
    assert_non_null(doc);
    json_t *arm = json_array_get(json_object_get(doc, "hosts"), 2);
    json_t *sys = json_object_get(arm, "system");
    assert_string_equal(json_string_value(json_object_get(sys, "status")), "failed");
    assert_string_equal(json_string_value(json_object_get(sys, "arch")), "aarch64");
    assert_non_null(
        strstr(json_string_value(json_object_get(sys, "detail")), "nsperf-static-aarch64"));
    assert_true(json_is_null(json_object_get(json_object_get(arm, "endpoint"), "build")));
    json_t *ep = json_object_get(json_array_get(json_object_get(doc, "hosts"), 1), "endpoint");
    assert_string_equal(json_string_value(json_object_get(ep, "build")), "nsperf-static");
    assert_int_equal(strlen(json_string_value(json_object_get(ep, "sha256"))), 64);
    json_decref(doc);
    free(buf);
    plan_free(p);
}

/* --- the learnt data address --------------------------------------------------------------- */

static int
learn(const char *env_json, char *addr, struct err *e)
{
    json_t *env = json_loads(env_json, 0, NULL);
    assert_non_null(env);
    char iface[32];
    int rc = survey_env_learn_address(env, addr, SURVEY_ADDR_MAX, iface, sizeof iface, e);
    json_decref(env);
    return rc;
}

static void
test_learn(void **state)
{
    (void)state;
    char addr[SURVEY_ADDR_MAX];
    struct err e = {0};
    assert_int_equal(learn("{\"default_route\":{\"family\":\"ipv4\",\"interface\":\"eth0\","
                           "\"addresses\":[\"10.0.0.4\"]}}",
                           addr, &e),
                     0);
    assert_string_equal(addr, "10.0.0.4");

    assert_int_equal(learn("{\"default_route\":{\"family\":\"ipv4\",\"interface\":\"eth0\","
                           "\"addresses\":[\"10.0.0.4\",\"10.0.0.5\"]}}",
                           addr, &e),
                     NS_EINVAL);
    assert_non_null(strstr(e.msg, "ambiguous"));
    assert_non_null(strstr(e.msg, "eth0"));
    assert_non_null(strstr(e.msg, "10.0.0.4, 10.0.0.5"));
    assert_non_null(strstr(e.msg, "set data_address"));

    assert_int_equal(learn("{\"default_route\":{\"family\":\"ipv6\",\"interface\":\"ens5\","
                           "\"addresses\":[]}}",
                           addr, &e),
                     NS_ENOTFOUND);
    assert_non_null(strstr(e.msg, "ens5"));
    assert_non_null(strstr(e.msg, "no ipv6 address"));

    assert_int_equal(learn("{\"default_route\":null}", addr, &e), NS_ENOTFOUND);
    assert_non_null(strstr(e.msg, "no default route"));
    assert_int_equal(learn("{\"kernel\":\"6.1\"}", addr, &e), NS_ENOTFOUND); /* an old nsperf */
    assert_string_equal(addr, "");
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table),  cmocka_unit_test(test_problems),
        cmocka_unit_test(test_all_ok), cmocka_unit_test(test_json),
        cmocka_unit_test(test_learn),  cmocka_unit_test(test_no_build),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
