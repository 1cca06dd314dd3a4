/* test_transport_deploy.c - local checks before a deploy: dynamic vs static ELF (PT_INTERP), the
 * machine, the content hash, non-ELF files refused, `uname -m` spellings. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/sha256.h"
#include "transport/transport_deploy.h"

static void
test_dynamic_and_static(void **state)
{
    (void)state;
    const char *bin = getenv("NS_BINARY_DIR");
    assert_non_null(bin);
    char st[512];
    snprintf(st, sizeof st, "%s/bin/nsperf-static", bin);
    struct transport_deploy_file f;
    struct err e = {0};
    /* this test binary itself is dynamically linked in every preset */
    assert_int_equal(transport_deploy_load("/proc/self/exe", &f, &e), 0);
    assert_true(f.dynamic);
    assert_string_equal(f.machine, "x86_64");
    uint8_t d[SHA256_LEN];
    char hex[65];
    sha256(f.data, f.len, d);
    assert_string_equal(f.sha256_hex, sha256_hex_encode(d, SHA256_LEN, hex));
    transport_deploy_release(&f);
    /* nsperf-static, which every build makes: what ssh hosts get */
    if (transport_deploy_load(st, &f, &e) != 0)
        fail_msg("%s: %s", st, e.msg);
    assert_false(f.dynamic);
    assert_string_equal(f.machine, "x86_64");
    transport_deploy_release(&f);
}

static void
test_not_elf(void **state)
{
    (void)state;
    char path[] = "/tmp/ns-deploy-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "#!/bin/sh\necho hi\n", 18), 18);
    close(fd);
    struct transport_deploy_file f;
    struct err e = {0};
    assert_int_equal(transport_deploy_load(path, &f, &e), NS_EINVAL);
    assert_non_null(strstr(e.msg, "ELF"));
    unlink(path);
    assert_int_equal(transport_deploy_load("/nonexistent/nsperf", &f, &e), NS_EIO);
}

static void
test_arch(void **state)
{
    (void)state;
    assert_true(transport_deploy_arch_matches("x86_64", "x86_64"));
    assert_true(transport_deploy_arch_matches("x86_64", "amd64"));
    assert_true(transport_deploy_arch_matches("aarch64", "arm64"));
    assert_false(transport_deploy_arch_matches("x86_64", "aarch64"));
    assert_false(transport_deploy_arch_matches("aarch64", "x86_64"));
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dynamic_and_static),
        cmocka_unit_test(test_not_elf),
        cmocka_unit_test(test_arch),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
