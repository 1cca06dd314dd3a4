/* itest_inventory.c - a run whose hosts come from an inventory (hosts_from) records the file's
 * path and sha256 in run.json beside the plan's, and --resume refuses the run when the file has
 * changed since, with or without PLAN, unless --force; the same bytes again resume. The hosts
 * are ssh hosts on loopback ports where nothing listens: every connection is refused at once,
 * no packet leaves the machine, and the run ends "nothing could run" (exit 3) once their 1 s
 * host_timeout is over. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "common/sha256.h"

static char tmpdir[] = "/tmp/ns-itest-inventory-XXXXXX";

static void
write_file(const char *name, const char *text)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

static char *
read_text(const char *path)
{
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return strdup("");
    char *buf = calloc(1, 1 << 16);
    assert_non_null(buf);
    size_t n = fread(buf, 1, (1 << 16) - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

/* netsurvey with args in tmpdir; its exit status, and its stderr in *err (caller frees). */
static int
ns_run(const char *const *args, char **err)
{
    char errpath[PATH_MAX];
    snprintf(errpath, sizeof errpath, "%s/stderr", tmpdir);
    const char *argv[16] = {NETSURVEY_BIN};
    size_t i = 1;
    for (; args[i - 1] != NULL && i < 15; i++)
        argv[i] = args[i - 1];
    argv[i] = NULL;
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int e = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int nul = open("/dev/null", O_RDWR);
        if (e < 0 || nul < 0 || dup2(nul, 0) < 0 || dup2(nul, 1) < 0 || dup2(e, 2) < 0 ||
            chdir(tmpdir) != 0)
            _exit(99);
        execv(argv[0], (char *const *)(uintptr_t)argv);
        _exit(98);
    }
    int st;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    *err = read_text(errpath);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static const char inventory[] = "[survey]\n"
                                "inv-a ansible_host=127.0.0.1 ansible_port=1 zone=a\n"
                                "inv-b ansible_host=127.0.0.2 ansible_port=1 zone=b\n";

static const char plan[] = "name: inventory\n"
                           "ssh: {known_hosts: known_hosts, connect_timeout: 2s}\n"
                           "hosts_from:\n"
                           "  - {file: hosts.ini, format: ansible, group: survey}\n"
                           "scenarios:\n"
                           "  - {name: latency, test: tcp_rr, duration: 200ms, warmup: 0s}\n"
                           "retries: 0\n"
                           /* the hosts never come: given up on after 1 s, not 5 min */
                           "host_timeout: 1s\n";

static int
setup(void **state)
{
    (void)state;
    return mkdtemp(tmpdir) != NULL ? 0 : -1;
}

static int
teardown(void **state)
{
    (void)state;
    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

static void
expect_exit(const char *const *args, int want, const char *in_stderr)
{
    char *err;
    int st = ns_run(args, &err);
    if (st != want || (in_stderr != NULL && strstr(err, in_stderr) == NULL))
        fail_msg("netsurvey %s %s...: exit %d (want %d)\n%s", args[0], args[1], st, want, err);
    free(err);
}

static void
test_recorded_and_resume(void **state)
{
    (void)state;
    write_file("hosts.ini", inventory);
    write_file("inventory.yaml", plan);
    expect_exit((const char *[]){"run", "inventory.yaml", "-o", "run1", "-q", NULL}, 3, NULL);

    char path[PATH_MAX], want_path[PATH_MAX], hex[2 * SHA256_LEN + 1];
    snprintf(path, sizeof path, "%s/run1/run.json", tmpdir);
    json_t *run = json_load_file(path, 0, NULL);
    assert_non_null(run);
    const json_t *invs = json_object_get(json_object_get(run, "plan"), "inventories");
    assert_int_equal(json_array_size(invs), 1);
    const json_t *inv = json_array_get(invs, 0);
    uint8_t d[SHA256_LEN];
    sha256(inventory, strlen(inventory), d);
    sha256_hex_encode(d, SHA256_LEN, hex);
    snprintf(want_path, sizeof want_path, "%s/hosts.ini", tmpdir);
    assert_string_equal(json_string_value(json_object_get(inv, "sha256")), hex);
    assert_string_equal(json_string_value(json_object_get(inv, "path")), want_path);
    assert_string_equal(json_string_value(json_object_get(inv, "file")), "hosts.ini");
    assert_string_equal(json_string_value(json_object_get(inv, "format")), "ansible");
    const json_t *hosts = json_object_get(run, "hosts");
    assert_int_equal(json_array_size(hosts), 2);
    assert_string_equal(json_string_value(json_object_get(json_array_get(hosts, 1), "name")),
                        "inv-b");
    json_decref(run);

    /* The inventory changes (the plan does not): refused with PLAN and without, before any
     * host is contacted; --force goes on. */
    write_file("hosts.ini", "# edited\n[survey]\ninv-a ansible_host=127.0.0.1 ansible_port=1 "
                            "zone=a\ninv-b ansible_host=127.0.0.2 ansible_port=1 zone=b\n");
    const char *changed = "inventory hosts.ini changed since the run started";
    expect_exit((const char *[]){"run", "inventory.yaml", "--resume", "run1", NULL}, 2, changed);
    expect_exit((const char *[]){"run", "--resume", "run1", NULL}, 2, changed);
    expect_exit(
        (const char *[]){"run", "inventory.yaml", "--resume", "run1", "--force", "-q", NULL}, 3,
        NULL);
    /* The same bytes as recorded: resumed (and again nothing can run). */
    write_file("hosts.ini", inventory);
    expect_exit((const char *[]){"run", "--resume", "run1", "-q", NULL}, 3, NULL);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_recorded_and_resume),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
