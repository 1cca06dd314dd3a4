/* wait.c - see wait.h. */
#include "nsperf/wait.h"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "nsperf/nsperf.h"

_Static_assert(sizeof(_Atomic int) == sizeof(int), "a futex is a plain 32-bit int");

/* The kernel sees the word's address only (through an integer: C has no cast from an _Atomic
 * pointer that -Wcast-qual accepts). */
static long
futex(_Atomic int *word, int op, int val, const struct timespec *ts, unsigned val3)
{
    return syscall(SYS_futex, (uintptr_t)word, op, val, ts, NULL, val3);
}

void
ns_word_wait(_Atomic int *word, int seen, uint64_t deadline_ns)
{
    struct timespec ts, *tsp = NULL;
    if (deadline_ns != 0) {
        ts.tv_sec = (time_t)(deadline_ns / NS_PER_SEC);
        ts.tv_nsec = (long)(deadline_ns % NS_PER_SEC);
        tsp = &ts;
    }
    /* FUTEX_WAIT_BITSET takes an absolute CLOCK_MONOTONIC deadline (plain FUTEX_WAIT a relative
     * one): no drift over repeated early returns. It returns at once when *word != seen. */
    futex(word, FUTEX_WAIT_BITSET | FUTEX_PRIVATE_FLAG, seen, tsp, FUTEX_BITSET_MATCH_ANY);
}

void
ns_word_wake(_Atomic int *word)
{
    futex(word, FUTEX_WAKE | FUTEX_PRIVATE_FLAG, INT32_MAX, NULL, 0);
}

void
ns_word_set(_Atomic int *word, int value)
{
    atomic_store_explicit(word, value, memory_order_release);
    ns_word_wake(word);
}

bool
ns_word_wait_change(_Atomic int *word, int seen, uint64_t deadline_ns)
{
    for (;;) {
        if (atomic_load_explicit(word, memory_order_acquire) != seen)
            return true;
        if (deadline_ns != 0 && clock_now_ns() >= deadline_ns)
            return false;
        ns_word_wait(word, seen, deadline_ns);
    }
}

int
ns_test_wait_phase(struct ns_test *t, int seen, uint64_t deadline_ns)
{
    ns_word_wait_change(&t->phase, seen, deadline_ns);
    return ns_test_phase(t);
}

void
ns_test_set_ready(struct ns_test *t)
{
    ns_word_set(&t->kind_ready, 1);
}
