/* test_transport_buf.c - the capped buffer both transports collect output in: the limit and
 * the truncated flag, lines taken across appends, a line longer than the caller's buffer, and
 * giving the contents away (empty buffer included). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "common/errors.h"
#include "transport/transport.h"
#include "transport/transport_buf.h"

static void
append(struct transport_buf *b, const char *s, size_t limit)
{
    assert_int_equal(transport_buf_append(b, s, strlen(s), limit), 0);
}

static void
test_limit_truncates(void **state)
{
    (void)state;
    struct transport_buf b = {0};
    append(&b, "", 10);
    assert_null(b.data); /* nothing kept, nothing allocated */
    append(&b, "abcdef", 10);
    assert_false(b.truncated);
    append(&b, "ghij", 10); /* exactly at the limit: still whole */
    assert_false(b.truncated);
    assert_int_equal(b.len, 10);
    append(&b, "k", 10);
    assert_true(b.truncated);
    assert_int_equal(b.len, 10);
    assert_string_equal(b.data, "abcdefghij");
    transport_buf_release(&b);

    /* An append that crosses the limit keeps the part that fits. */
    append(&b, "1234", 6);
    append(&b, "5678", 6);
    assert_true(b.truncated);
    assert_string_equal(b.data, "123456");
    /* A smaller limit later does not cut what is held. */
    append(&b, "9", 3);
    assert_string_equal(b.data, "123456");
    transport_buf_release(&b);
    assert_null(b.data);
    assert_int_equal(b.len, 0);
    assert_false(b.truncated);
    transport_buf_release(NULL);
}

static void
test_grows_past_first_allocation(void **state)
{
    (void)state;
    struct transport_buf b = {0};
    char chunk[1000];
    memset(chunk, 'x', sizeof chunk);
    for (int i = 0; i < 20; i++)
        assert_int_equal(transport_buf_append(&b, chunk, sizeof chunk, 1 << 20), 0);
    assert_int_equal(b.len, 20000);
    assert_true(b.alloc > b.len);
    assert_int_equal(b.data[b.len], '\0');
    assert_int_equal(strspn(b.data, "x"), 20000);
    transport_buf_release(&b);
}

static void
test_lines_across_appends(void **state)
{
    (void)state;
    struct transport_buf b = {0};
    char line[16];
    bool got = true;
    /* empty buffer: no line, no error */
    assert_int_equal(transport_buf_take_line(&b, line, sizeof line, &got), 0);
    assert_false(got);
    append(&b, "hel", 100);
    assert_int_equal(transport_buf_take_line(&b, line, sizeof line, &got), 0);
    assert_false(got);
    append(&b, "lo\nwor", 100);
    assert_int_equal(transport_buf_take_line(&b, line, sizeof line, &got), 0);
    assert_true(got);
    assert_string_equal(line, "hello");
    assert_string_equal(b.data, "wor"); /* the rest stays */
    assert_int_equal(transport_buf_take_line(&b, line, sizeof line, &got), 0);
    assert_false(got);
    append(&b, "ld\n\nlast\n", 100);
    assert_int_equal(transport_buf_take_line(&b, line, sizeof line, &got), 0);
    assert_true(got);
    assert_string_equal(line, "world");
    assert_int_equal(transport_buf_take_line(&b, line, sizeof line, &got), 0);
    assert_true(got);
    assert_string_equal(line, ""); /* an empty line is a line */
    assert_int_equal(transport_buf_take_line(&b, line, sizeof line, &got), 0);
    assert_true(got);
    assert_string_equal(line, "last");
    assert_int_equal(b.len, 0);
    assert_string_equal(b.data, "");
    assert_int_equal(transport_buf_take_line(&b, line, sizeof line, &got), 0);
    assert_false(got);
    transport_buf_release(&b);
}

static void
test_line_longer_than_caller_buffer(void **state)
{
    (void)state;
    struct transport_buf b = {0};
    char line[8]; /* 7 bytes of text and the NUL */
    bool got = true;
    /* 7 bytes fit exactly */
    append(&b, "1234567\n", 100);
    assert_int_equal(transport_buf_take_line(&b, line, sizeof line, &got), 0);
    assert_true(got);
    assert_string_equal(line, "1234567");
    /* 8 bytes do not: refused, and the buffer keeps them */
    append(&b, "12345678\nnext\n", 100);
    assert_int_equal(transport_buf_take_line(&b, line, sizeof line, &got), NS_ETOOBIG);
    assert_false(got);
    assert_string_equal(b.data, "12345678\nnext\n");
    /* a larger caller buffer then gets both lines */
    char big[64];
    assert_int_equal(transport_buf_take_line(&b, big, sizeof big, &got), 0);
    assert_string_equal(big, "12345678");
    assert_int_equal(transport_buf_take_line(&b, big, sizeof big, &got), 0);
    assert_string_equal(big, "next");
    /* an incomplete line that can no longer fit is refused before its '\n' arrives */
    append(&b, "1234567", 100);
    assert_int_equal(transport_buf_take_line(&b, line, sizeof line, &got), 0);
    assert_false(got);
    append(&b, "8", 100);
    assert_int_equal(transport_buf_take_line(&b, line, sizeof line, &got), NS_ETOOBIG);
    assert_false(got);
    assert_int_equal(b.len, 8);
    transport_buf_release(&b);
}

static void
test_give(void **state)
{
    (void)state;
    struct transport_buf b = {0};
    struct transport_output o = {0};
    /* an empty buffer gives "" (never NULL), not truncated */
    assert_int_equal(transport_buf_give(&b, 100, &o.out, &o.out_len, &o.out_truncated), 0);
    assert_non_null(o.out);
    assert_string_equal(o.out, "");
    assert_int_equal(o.out_len, 0);
    assert_false(o.out_truncated);
    /* everything held, with the flag from the appends; the buffer is empty afterwards */
    append(&b, "abcdef", 4);
    assert_int_equal(transport_buf_give(&b, 100, &o.err, &o.err_len, &o.err_truncated), 0);
    assert_string_equal(o.err, "abcd");
    assert_int_equal(o.err_len, 4);
    assert_true(o.err_truncated);
    assert_null(b.data);
    assert_int_equal(b.len, 0);
    assert_false(b.truncated);
    transport_output_release(&o);
    assert_null(o.out);
    assert_null(o.err);
    /* the cap of the give cuts what is held beyond it */
    append(&b, "0123456789", 100);
    assert_int_equal(transport_buf_give(&b, 3, &o.out, &o.out_len, &o.out_truncated), 0);
    assert_string_equal(o.out, "012");
    assert_int_equal(o.out_len, 3);
    assert_true(o.out_truncated);
    transport_output_release(&o);
    /* exactly at the cap: whole */
    append(&b, "012", 100);
    assert_int_equal(transport_buf_give(&b, 3, &o.out, &o.out_len, &o.out_truncated), 0);
    assert_string_equal(o.out, "012");
    assert_false(o.out_truncated);
    transport_output_release(&o);
    transport_output_release(NULL);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_limit_truncates),
        cmocka_unit_test(test_grows_past_first_allocation),
        cmocka_unit_test(test_lines_across_appends),
        cmocka_unit_test(test_line_longer_than_caller_buffer),
        cmocka_unit_test(test_give),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
