/* junit.h - compare's gate as JUnit XML (internal to src/history), for the test report pages of
 * CI systems (Jenkins, GitLab, GitHub actions that read JUnit).
 *
 * The shape is the one those readers share (Jenkins' junit-4.xsd, with every attribute the
 * Apache Ant schema requires): <testsuites> holding one <testsuite> per scenario (name, test,
 * family) with its <properties>, one <testcase> per zone cell (classname: the scenario; name:
 * "scenario: src → dst"), then the suite's <system-out> and <system-err>. A cell that fails
 * the gate holds a <failure message= type=>: type "regression" (worse by more than
 * --max-regression), "missing" (a baseline cell without counterpart), "too-few-trials" or
 * "failed-trials" (a matched cell with trials that failed or did not run on a side; the last
 * three unless --allow-partial). A case of a scenario compared across other parameters
 * (--allow-param-change) names each difference in its <system-out>. Cells of the new run only, and
 * with --allow-partial the baseline's unmatched ones, are <skipped/>; every other cell passes, its
 * figures in its <system-out>. When nothing could be compared at all, one more suite "netsurvey
 * compare" holds a failing test case that says so, so that the page never shows a green nothing. */
#ifndef NS_HISTORY_JUNIT_H
#define NS_HISTORY_JUNIT_H

#include <jansson.h>

struct rbuf;

/* Render the compare view (compare.c's: cells, only_base, only_new, the run and gate strings)
 * as JUnit XML into b. Every string is escaped for XML 1.0; characters XML cannot carry (C0
 * controls but tab and newlines, U+FFFE, U+FFFF) become U+FFFD. */
void history_junit_render(const json_t *view, struct rbuf *b);

#endif
