/* test_transport_deploy.c - local checks before a deploy: dynamic vs static ELF (PT_INTERP), the
 * machine, the content hash, non-ELF files refused, `uname -m` spellings; the builds of one
 * program for several machines, each host's pick among them, the build named when none fits. */
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

/* --- the builds of one program, one per architecture ---------------------------------------- */

/* A minimal 64-bit ELF executable header for machine (no program header: static), written to
 * dir/name; its path into out. */
static void
fake_elf(const char *dir, const char *name, uint16_t machine, char *out, size_t len)
{
    unsigned char h[64] = {0x7f, 'E', 'L', 'F', 2 /* 64-bit */, 1 /* little-endian */, 1};
    h[16] = 2; /* ET_EXEC */
    h[18] = (unsigned char)(machine & 0xff);
    h[19] = (unsigned char)(machine >> 8);
    h[32] = 64; /* e_phoff: right after the header, none there (e_phnum 0) */
    h[54] = 56; /* e_phentsize */
    snprintf(out, len, "%s/%s", dir, name);
    FILE *f = fopen(out, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(h, 1, sizeof h, f), sizeof h);
    assert_int_equal(fclose(f), 0);
}

struct builds {
    char dir[64];
    char x86[128], arm[128], arm2[128], riscv[128];
};

static int
builds_setup(void **state)
{
    struct builds *b = calloc(1, sizeof *b);
    snprintf(b->dir, sizeof b->dir, "/tmp/ns-builds-XXXXXX");
    if (b == NULL || mkdtemp(b->dir) == NULL)
        return -1;
    fake_elf(b->dir, "nsperf-static", 62 /* EM_X86_64 */, b->x86, sizeof b->x86);
    fake_elf(b->dir, "nsperf-static-aarch64", 183 /* EM_AARCH64 */, b->arm, sizeof b->arm);
    fake_elf(b->dir, "other-aarch64", 183, b->arm2, sizeof b->arm2);
    fake_elf(b->dir, "nsperf-static-riscv64", 243 /* EM_RISCV */, b->riscv, sizeof b->riscv);
    *state = b;
    return 0;
}

static int
builds_teardown(void **state)
{
    struct builds *b = *state;
    unlink(b->x86);
    unlink(b->arm);
    unlink(b->arm2);
    unlink(b->riscv);
    rmdir(b->dir);
    free(b);
    return 0;
}

/* Each host's `uname -m` picks its build; a machine none is for gets -1. */
static void
test_set_find(void **state)
{
    struct builds *b = *state;
    const char *paths[] = {b->x86, b->arm, NULL};
    struct transport_deploy_set s;
    struct err e = {0};
    if (transport_deploy_set_load(paths, &s, &e) != 0)
        fail_msg("%s", e.msg);
    assert_int_equal(s.n, 2);
    assert_string_equal(s.f[0].machine, "x86_64");
    assert_string_equal(s.f[1].machine, "aarch64");
    assert_int_equal(transport_deploy_set_find(&s, "x86_64"), 0);
    assert_int_equal(transport_deploy_set_find(&s, "amd64"), 0);
    assert_int_equal(transport_deploy_set_find(&s, "aarch64"), 1);
    assert_int_equal(transport_deploy_set_find(&s, "arm64"), 1);
    assert_int_equal(transport_deploy_set_find(&s, "riscv64"), -1);
    assert_int_equal(transport_deploy_set_find(&s, ""), -1);
    char why[512];
    transport_deploy_set_missing(&s, "riscv64", why, sizeof why);
    assert_string_equal(why, "riscv64 host, but there is no riscv64 build of nsperf-static "
                             "(nsperf-static-riscv64: the build makes it where "
                             "gcc-riscv64-linux-gnu is installed)");
    transport_deploy_set_release(&s);
    assert_int_equal(s.n, 0);
}

/* The build missing is named as the build names it (nsperf-static-ARCH, Debian's cross
 * compiler gcc-ARCH-linux-gnu with '_' as '-'), also when only a cross build was given. */
static void
test_set_missing(void **state)
{
    struct builds *b = *state;
    struct transport_deploy_set s;
    struct err e = {0};
    char why[512];
    const char *x86_only[] = {b->x86, NULL};
    assert_int_equal(transport_deploy_set_load(x86_only, &s, &e), 0);
    assert_int_equal(transport_deploy_set_find(&s, "aarch64"), -1);
    transport_deploy_set_missing(&s, "aarch64", why, sizeof why);
    assert_string_equal(why, "aarch64 host, but there is no aarch64 build of nsperf-static "
                             "(nsperf-static-aarch64: the build makes it where "
                             "gcc-aarch64-linux-gnu is installed)");
    transport_deploy_set_release(&s);
    const char *arm_only[] = {b->arm, NULL};
    assert_int_equal(transport_deploy_set_load(arm_only, &s, &e), 0);
    transport_deploy_set_missing(&s, "x86_64", why, sizeof why);
    assert_string_equal(why, "x86_64 host, but there is no x86_64 build of nsperf-static "
                             "(nsperf-static-x86_64: the build makes it where "
                             "gcc-x86-64-linux-gnu is installed)");
    transport_deploy_set_release(&s);
}

/* Refused: two builds for one machine, a dynamic one, none or too many, a missing file. */
static void
test_set_refused(void **state)
{
    struct builds *b = *state;
    struct transport_deploy_set s;
    struct err e = {0};
    const char *twice[] = {b->x86, b->arm, b->arm2, NULL};
    assert_int_equal(transport_deploy_set_load(twice, &s, &e), NS_EINVAL);
    assert_non_null(strstr(e.msg, "both built for aarch64"));
    assert_int_equal(s.n, 0);
    const char *dynamic[] = {b->arm, "/proc/self/exe", NULL};
    assert_int_equal(transport_deploy_set_load(dynamic, &s, &e), NS_EINVAL);
    assert_non_null(strstr(e.msg, "dynamically linked"));
    assert_non_null(strstr(e.msg, "nsperf-static"));
    const char *none[] = {NULL};
    assert_int_equal(transport_deploy_set_load(none, &s, &e), NS_EINVAL);
    const char *many[] = {b->x86, b->arm, b->riscv, b->x86, b->arm, NULL};
    assert_int_equal(transport_deploy_set_load(many, &s, &e), NS_EINVAL);
    const char *gone[] = {b->x86, "/nonexistent/nsperf-static-aarch64", NULL};
    assert_int_equal(transport_deploy_set_load(gone, &s, &e), NS_EIO);
    assert_int_equal(s.n, 0);
}

/* The aarch64 nsperf-static this build cross-compiled (cmake/endpoints.cmake): static, for
 * aarch64, and a set with the native one serves both machines. */
static void
test_aarch64_build(void **state)
{
    (void)state;
#ifdef NS_AARCH64_BUILD
    const char *bin = getenv("NS_BINARY_DIR");
    assert_non_null(bin);
    char st[512], arm[512];
    snprintf(st, sizeof st, "%s/bin/nsperf-static", bin);
    snprintf(arm, sizeof arm, "%s/bin/nsperf-static-aarch64", bin);
    const char *paths[] = {st, arm, NULL};
    struct transport_deploy_set s;
    struct err e = {0};
    if (transport_deploy_set_load(paths, &s, &e) != 0)
        fail_msg("%s", e.msg);
    assert_false(s.f[1].dynamic);
    assert_string_equal(s.f[1].machine, "aarch64");
    assert_int_equal(transport_deploy_set_find(&s, "aarch64"), 1);
    assert_int_equal(transport_deploy_set_find(&s, "x86_64"), 0);
    assert_string_not_equal(s.f[0].sha256_hex, s.f[1].sha256_hex);
    transport_deploy_set_release(&s);
#else
    skip(); /* this build made no nsperf-static-aarch64: its configure said why */
#endif
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dynamic_and_static),
        cmocka_unit_test(test_not_elf),
        cmocka_unit_test(test_arch),
        cmocka_unit_test_setup_teardown(test_set_find, builds_setup, builds_teardown),
        cmocka_unit_test_setup_teardown(test_set_missing, builds_setup, builds_teardown),
        cmocka_unit_test_setup_teardown(test_set_refused, builds_setup, builds_teardown),
        cmocka_unit_test(test_aarch64_build),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
