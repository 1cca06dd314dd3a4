/* test_transport_quote.c - the POSIX single-quote quoter (common/shquote.h, as transport uses it
 * and as the printed commands use shquote_word): every argument comes back byte for byte
 * from a real /bin/sh, and no metacharacter executes anything. */
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

#include "transport/transport_quote.h"

static void
test_arg_forms(void **state)
{
    (void)state;
    char out[64];
    assert_int_equal(transport_quote_arg("abc", out, sizeof out), 5);
    assert_string_equal(out, "'abc'");
    assert_int_equal(transport_quote_arg("", out, sizeof out), 2);
    assert_string_equal(out, "''");
    assert_int_equal(transport_quote_arg("it's", out, sizeof out), 9);
    assert_string_equal(out, "'it'\\''s'");
    assert_int_equal(transport_quote_len("it's"), 10);
    assert_int_equal(transport_quote_arg("abcdef", out, 8), -1);
    assert_string_equal(out, "");
    assert_int_equal(transport_quote_arg("abcdef", out, 9), 8);
}

/* A word for people to paste: as it is when a shell leaves every byte alone, quoted else. */
static void
test_word_forms(void **state)
{
    (void)state;
    char out[64];
    static const struct {
        const char *in, *want;
    } cases[] = {
        {"run-1/dir_2.x", "run-1/dir_2.x"},
        {"--resume", "--resume"},
        {"a=b,c:d@e%f+g", "a=b,c:d@e%f+g"},
        {"", "''"},
        {"a b", "'a b'"},
        {"it's", "'it'\\''s'"},
        {"$HOME", "'$HOME'"},
        {"a;rm -rf b", "'a;rm -rf b'"},
        {"~x", "'~x'"},
        {"*", "'*'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        assert_true(shquote_word(cases[i].in, out, sizeof out) >= 0);
        assert_string_equal(out, cases[i].want);
    }
    assert_int_equal(shquote_word("abcdef", out, 6), -1);
    assert_string_equal(out, "");
    assert_int_equal(shquote_word("abcdef", out, 7), 6);
}

/* Run `printf '[%s]\n' QUOTED...` through sh and read what it printed. */
static void
roundtrip(const char *const *argv, const char *want)
{
    char *cmd = transport_quote_argv("printf '[%s]\\n'", argv);
    assert_non_null(cmd);
    FILE *f = popen(cmd, "r");
    free(cmd);
    assert_non_null(f);
    char got[4096];
    size_t n = fread(got, 1, sizeof got - 1, f);
    got[n] = '\0';
    assert_int_equal(pclose(f), 0);
    assert_string_equal(got, want);
}

static void
test_nothing_executes(void **state)
{
    (void)state;
    char dir[] = "/tmp/ns-quote-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char a[6][256];
    snprintf(a[0], sizeof a[0], "$(touch %s/p1)", dir);
    snprintf(a[1], sizeof a[1], "`touch %s/p2`", dir);
    snprintf(a[2], sizeof a[2], "x; touch %s/p3", dir);
    snprintf(a[3], sizeof a[3], "'; touch %s/p4; '", dir);
    snprintf(a[4], sizeof a[4], "\"$(touch %s/p5)\"\n| touch %s/p6 &", dir, dir);
    snprintf(a[5], sizeof a[5], "\\' * ? ~ $HOME ${x:-y} > %s/p7", dir);
    const char *argv[] = {a[0], a[1], a[2], a[3], a[4], a[5], "", NULL};
    char want[2048];
    snprintf(want, sizeof want, "[%s]\n[%s]\n[%s]\n[%s]\n[%s]\n[%s]\n[]\n", a[0], a[1], a[2], a[3],
             a[4], a[5]);
    roundtrip(argv, want);
    for (int i = 1; i <= 7; i++) {
        char p[300];
        snprintf(p, sizeof p, "%s/p%d", dir, i);
        struct stat st;
        assert_int_not_equal(stat(p, &st), 0);
    }
    rmdir(dir);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_arg_forms),
        cmocka_unit_test(test_word_forms),
        cmocka_unit_test(test_nothing_executes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
