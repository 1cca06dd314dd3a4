/* ns_slack.h - how much longer than nominal a timed step may take in a test: the suite runs on
 * a loaded 2-core machine and under ThreadSanitizer/AddressSanitizer, which slow threads down
 * several times. Bounds scaled by this check what the code promises (an order, a contract), not
 * how fast this machine is; speed claims live in tests/bench/. Header-only. */
#ifndef NS_SLACK_H
#define NS_SLACK_H

#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define NS_TEST_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer)
#define NS_TEST_SANITIZED 1
#endif
#endif

#ifdef NS_TEST_SANITIZED
#define NS_TEST_SLACK 8.0
#else
#define NS_TEST_SLACK 2.0
#endif

#endif
