/* The growing array's room (common/array.h): doubling from ARRAY_FIRST, a need past the double
 * taken exactly, the elements kept, and a size that does not fit a size_t refused with the
 * array untouched. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>

#include "common/array.h"
#include "common/errors.h"

struct rec {
    uint64_t a, b;
};

/* An empty array gets ARRAY_FIRST; each step past the capacity doubles it; the values stay. */
static void
test_grows_by_doubling(void **state)
{
    (void)state;
    struct rec *v = NULL;
    size_t cap = 0, n = 0;
    assert_int_equal(ARRAY_GROW(&v, &cap, 1), 0);
    assert_non_null(v);
    assert_int_equal(cap, ARRAY_FIRST);
    size_t last = cap;
    for (; n < 1000; n++) {
        assert_int_equal(ARRAY_GROW(&v, &cap, n + 1), 0);
        assert_true(cap >= n + 1);
        if (cap != last) {
            assert_int_equal(cap, 2 * last);
            last = cap;
        }
        v[n] = (struct rec){n, ~(uint64_t)n};
    }
    assert_int_equal(cap, 1024);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(v[i].a, i);
        assert_int_equal(v[i].b, ~(uint64_t)i);
    }
    free(v);
}

/* need <= cap is no change (not even a realloc); a need past the double is taken as it is. */
static void
test_exact_need(void **state)
{
    (void)state;
    int *v = NULL;
    size_t cap = 0;
    assert_int_equal(ARRAY_GROW(&v, &cap, 0), 0);
    assert_null(v);
    assert_int_equal(cap, 0);
    assert_int_equal(ARRAY_GROW(&v, &cap, 100), 0);
    assert_int_equal(cap, 100);
    v[99] = 7;
    int *before = v;
    assert_int_equal(ARRAY_GROW(&v, &cap, 100), 0);
    assert_int_equal(ARRAY_GROW(&v, &cap, 1), 0);
    assert_ptr_equal(v, before);
    assert_int_equal(cap, 100);
    assert_int_equal(ARRAY_GROW(&v, &cap, 101), 0);
    assert_int_equal(cap, 200);
    assert_int_equal(v[99], 7);
    assert_int_equal(ARRAY_GROW(&v, &cap, 1000), 0);
    assert_int_equal(cap, 1000);
    assert_int_equal(v[99], 7);
    free(v);
}

/* A need whose byte size does not fit a size_t is refused before any realloc: the array, its
 * contents and its capacity are as they were. */
static void
test_overflow_refused(void **state)
{
    (void)state;
    struct rec *v = NULL;
    size_t cap = 0;
    assert_int_equal(ARRAY_GROW(&v, &cap, 3), 0);
    v[2] = (struct rec){42, 43};
    struct rec *before = v;
    /* one past the limit: its byte count, unchecked, would wrap to 16 (a realloc that works) */
    size_t too_many = SIZE_MAX / sizeof *v + 2;
    assert_int_equal(ARRAY_GROW(&v, &cap, too_many), NS_ENOMEM);
    assert_int_equal(ARRAY_GROW(&v, &cap, too_many - 1), NS_ENOMEM);
    assert_int_equal(ARRAY_GROW(&v, &cap, SIZE_MAX), NS_ENOMEM);
    assert_int_equal(array_grow(&v, &cap, 9, 0), NS_ENOMEM);
    assert_ptr_equal(v, before);
    assert_int_equal(cap, ARRAY_FIRST);
    assert_int_equal(v[2].a, 42);
    assert_int_equal(v[2].b, 43);
    /* still usable: the refusal left nothing half done */
    assert_int_equal(ARRAY_GROW(&v, &cap, ARRAY_FIRST + 1), 0);
    assert_int_equal(cap, 2 * ARRAY_FIRST);
    assert_int_equal(v[2].a, 42);
    free(v);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_grows_by_doubling),
        cmocka_unit_test(test_exact_need),
        cmocka_unit_test(test_overflow_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
