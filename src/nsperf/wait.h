/* wait.h - one thread waits for a word that another thread changes (a test's phase, a kind's
 * ready flag, a runner's finished flag): a Linux futex on the _Atomic int itself, so that the
 * waiter wakes the moment the word changes instead of polling it in naps, and can still give up
 * at a deadline. The word's value is read with acquire ordering by the waiter after every wake;
 * the futex only saves the CPU in between, so ThreadSanitizer sees ordinary atomics. */
#ifndef NS_WAIT_H
#define NS_WAIT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

/* Sleep while *word == seen, until deadline_ns (CLOCK_MONOTONIC; 0 = no deadline) or a wake.
 * May return early (a wake for another change, a signal): callers re-check in a loop. */
void ns_word_wait(_Atomic int *word, int seen, uint64_t deadline_ns);

/* Wake every thread in ns_word_wait on word (after changing it). */
void ns_word_wake(_Atomic int *word);

/* Store value into word (release) and wake its waiters. */
void ns_word_set(_Atomic int *word, int value);

/* Wait until *word != seen or the deadline (0 = none). Returns true when it changed. */
bool ns_word_wait_change(_Atomic int *word, int seen, uint64_t deadline_ns);

#endif
