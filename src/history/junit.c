/* junit.c - compare's view as JUnit XML (junit.h says the shape and why). */
#include "history/junit.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "report/output.h"

#define JUNIT_NOTHING "netsurvey compare"

static bool
jb(const json_t *o, const char *k)
{
    return json_is_true(json_object_get(o, k));
}

/* One UTF-8 sequence at s: its code point and length; -1 when it is not one. */
static int32_t
utf8_next(const unsigned char *s, size_t *len)
{
    static const int32_t min[] = {0, 0, 0x80, 0x800, 0x10000};
    size_t n = s[0] < 0x80             ? 1
               : (s[0] & 0xE0) == 0xC0 ? 2
               : (s[0] & 0xF0) == 0xE0 ? 3
               : (s[0] & 0xF8) == 0xF0 ? 4
                                       : 0;
    *len = 1;
    if (n == 0)
        return -1;
    int32_t c = n == 1 ? s[0] : s[0] & (0x7F >> n);
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return -1;
        c = c << 6 | (s[i] & 0x3F);
    }
    *len = n;
    return c < min[n] || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF) ? -1 : c;
}

/* XML 1.0's Char production. */
static bool
xml_char(int32_t c)
{
    return c == 0x9 || c == 0xA || c == 0xD || (c >= 0x20 && c <= 0xD7FF) ||
           (c >= 0xE000 && c <= 0xFFFD) || (c >= 0x10000 && c <= 0x10FFFF);
}

/* s escaped for XML: in an attribute value (quoted with ") also the white space that attribute
 * normalisation would fold; what XML cannot carry at all becomes U+FFFD. */
static void
xml_escape(struct rbuf *b, const char *s, bool attr)
{
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        size_t len;
        int32_t c = utf8_next(p, &len);
        const char *rep = NULL;
        if (c < 0 || !xml_char(c))
            rep = "\xEF\xBF\xBD";
        else if (c == '&')
            rep = "&amp;";
        else if (c == '<')
            rep = "&lt;";
        else if (c == '>')
            rep = "&gt;";
        else if (attr && c == '"')
            rep = "&quot;";
        else if (attr && c == '\'')
            rep = "&apos;";
        else if (attr && c == '\n')
            rep = "&#10;";
        else if (attr && c == '\r')
            rep = "&#13;";
        else if (attr && c == '\t')
            rep = "&#9;";
        else if (c == '\r')
            rep = "&#13;"; /* text keeps a CR only as a reference */
        if (rep)
            report_buf_puts(b, rep);
        else
            report_buf_add(b, (const char *)p, len);
        p += len;
    }
}

static void
attr(struct rbuf *b, const char *name, const char *value)
{
    report_buf_printf(b, " %s=\"", name);
    xml_escape(b, value, true);
    report_buf_puts(b, "\"");
}

static void
attr_n(struct rbuf *b, const char *name, size_t n)
{
    report_buf_printf(b, " %s=\"%zu\"", name, n);
}

/* --- suites: one per (scenario, test, family) -------------------------------------------- */

static bool
same_suite(const json_t *a, const json_t *b)
{
    return !strcmp(js(a, "scenario"), js(b, "scenario")) && !strcmp(js(a, "test"), js(b, "test")) &&
           !strcmp(js(a, "family"), js(b, "family"));
}

enum jkind { J_MATCHED, J_ONLY_BASE, J_ONLY_NEW };
static const char *const jlists[] = {"cells", "only_base", "only_new"};

/* What a test case says: NULL type for a pass; "skipped" for a skip; else a failure's type. */
static const char *
case_outcome(const json_t *c, enum jkind k)
{
    if (k == J_MATCHED) {
        if (jb(c, "regression"))
            return "regression";
        if (jb(c, "untested"))
            return "too-few-trials";
        if (jb(c, "partial"))
            return "failed-trials";
        if (!strcmp(js(c, "verdict_class"), "too-few-trials"))
            return "skipped";
        return NULL;
    }
    return k == J_ONLY_BASE && jb(c, "missing") ? "missing" : "skipped";
}

struct jcount {
    size_t tests, failures, skipped;
};

static void
suite_count(const json_t *view, const json_t *key, struct jcount *n)
{
    for (int k = 0; k < 3; k++) {
        size_t i;
        const json_t *c;
        json_array_foreach(json_object_get(view, jlists[k]), i, c)
        {
            if (key != NULL && !same_suite(c, key))
                continue;
            const char *o = case_outcome(c, (enum jkind)k);
            n->tests++;
            n->failures += o != NULL && strcmp(o, "skipped") != 0;
            n->skipped += o != NULL && !strcmp(o, "skipped");
        }
    }
}

/* Whether another suite has key's scenario name (then case names say test and family). */
static bool
name_shared(const json_t *const *suites, size_t n, const json_t *key)
{
    for (size_t i = 0; i < n; i++)
        if (!same_suite(suites[i], key) && !strcmp(js(suites[i], "scenario"), js(key, "scenario")))
            return true;
    return false;
}

static void
figures(struct rbuf *b, const json_t *view, const json_t *c, enum jkind k)
{
    if (k == J_MATCHED) {
        report_buf_printf(b, "%s\nbaseline: %s (n=%lld) in %s\nnew: %s (n=%lld) in %s\ndelta: %s\n",
                          js(c, "metric"), js(c, "base"),
                          (long long)json_integer_value(json_object_get(c, "base_n")),
                          js(view, "base_dir"), js(c, "new"),
                          (long long)json_integer_value(json_object_get(c, "new_n")),
                          js(view, "new_dir"), js(c, "delta"));
        report_buf_printf(b, "p: %s (Welch), p adj.: %s (%s)\n", js(c, "p"), js(c, "p_adj"),
                          js(view, "correction"));
        if (jb(view, "tost_on"))
            report_buf_printf(b, "equiv. p (within ±%s): %s\n", js(view, "min_effect"),
                              js(c, "p_tost"));
        report_buf_printf(b, "verdict: %s\n", js(c, "verdict"));
        if (*js(c, "trials_note"))
            report_buf_printf(b, "trials failed or not run: %s\n", js(c, "trials_note"));
    } else {
        report_buf_printf(b, "%s %s (n=%lld) in %s; %s\n", js(c, "metric"), js(c, "value"),
                          (long long)json_integer_value(json_object_get(c, "n")),
                          k == J_ONLY_BASE ? js(view, "base_dir") : js(view, "new_dir"),
                          js(c, "reason"));
    }
    if (*js(c, "params_changed"))
        report_buf_printf(b, "parameters changed (compared on purpose, --allow-param-change): %s\n",
                          js(c, "params_changed"));
}

static void
failure_message(struct rbuf *m, const json_t *view, const json_t *c, const char *type)
{
    if (!strcmp(type, "regression"))
        report_buf_printf(m, "%s %s -> %s (%s): worse by more than %s (p adj. %s, %s)",
                          js(c, "metric"), js(c, "base"), js(c, "new"), js(c, "delta"),
                          js(view, "max_regression"), js(c, "p_adj"), js(view, "correction"));
    else if (!strcmp(type, "failed-trials"))
        report_buf_printf(m,
                          "trials failed or not run: %s (the cell's figures are of fewer trials "
                          "than planned)",
                          js(c, "trials_note"));
    else if (!strcmp(type, "too-few-trials"))
        report_buf_printf(m, "too few trials to compare (baseline %lld, new %lld; 2 a side needed)",
                          (long long)json_integer_value(json_object_get(c, "base_n")),
                          (long long)json_integer_value(json_object_get(c, "new_n")));
    else
        report_buf_printf(m, "baseline cell not compared: %s", js(c, "reason"));
}

static void
testcase(struct rbuf *b, const json_t *view, const json_t *c, enum jkind k, bool shared)
{
    struct rbuf name;
    report_buf_init(&name);
    report_buf_printf(&name, "%s", js(c, "scenario"));
    if (shared)
        report_buf_printf(&name, " (%s, %s)", js(c, "test"), js(c, "family"));
    report_buf_printf(&name, ": %s → %s", js(c, "src_zone"), js(c, "dst_zone"));
    report_buf_puts(b, "    <testcase");
    attr(b, "name", name.data ? name.data : "");
    attr(b, "classname", js(c, "scenario"));
    report_buf_puts(b, " time=\"0\">\n");
    report_buf_release(&name);

    struct rbuf fig;
    report_buf_init(&fig);
    figures(&fig, view, c, k);
    const char *o = case_outcome(c, k);
    if (o != NULL && !strcmp(o, "skipped")) {
        report_buf_puts(b, "      <skipped");
        attr(b, "message", k == J_MATCHED ? "too few trials (--allow-partial)" : js(c, "reason"));
        report_buf_puts(b, "/>\n");
    } else if (o != NULL) {
        struct rbuf m;
        report_buf_init(&m);
        failure_message(&m, view, c, o);
        report_buf_puts(b, "      <failure");
        attr(b, "message", m.data ? m.data : "");
        attr(b, "type", o);
        report_buf_puts(b, ">");
        xml_escape(b, fig.data ? fig.data : "", false);
        report_buf_puts(b, "</failure>\n");
        b->oom |= m.oom;
        report_buf_release(&m);
    }
    report_buf_puts(b, "      <system-out>");
    xml_escape(b, fig.data ? fig.data : "", false);
    report_buf_puts(b, "</system-out>\n    </testcase>\n");
    b->oom |= fig.oom;
    report_buf_release(&fig);
}

static void
property(struct rbuf *b, const char *name, const char *value)
{
    report_buf_puts(b, "      <property");
    attr(b, "name", name);
    attr(b, "value", value);
    report_buf_puts(b, "/>\n");
}

static void
run_ids(struct rbuf *b, const json_t *runs)
{
    size_t i;
    const json_t *r;
    json_array_foreach(runs, i, r)
    {
        report_buf_printf(b, "%s%s", i ? " " : "", js(r, "run_id"));
    }
}

static void
suite_open(struct rbuf *b, const json_t *view, const char *name, const struct jcount *n, size_t id)
{
    report_buf_puts(b, "  <testsuite");
    attr(b, "name", name);
    attr_n(b, "tests", n->tests);
    attr_n(b, "failures", n->failures);
    report_buf_puts(b, " errors=\"0\"");
    attr_n(b, "skipped", n->skipped);
    report_buf_puts(b, " time=\"0\"");
    if (*js(view, "junit_timestamp"))
        attr(b, "timestamp", js(view, "junit_timestamp"));
    report_buf_puts(b, " hostname=\"localhost\"");
    attr_n(b, "id", id);
    report_buf_puts(b, " package=\"netsurvey.compare\">\n    <properties>\n");
    property(b, "base_dir", js(view, "base_dir"));
    property(b, "new_dir", js(view, "new_dir"));
    struct rbuf ids;
    report_buf_init(&ids);
    run_ids(&ids, json_object_get(view, "base_runs"));
    property(b, "base_runs", ids.data ? ids.data : "");
    report_buf_release(&ids);
    report_buf_init(&ids);
    run_ids(&ids, json_object_get(view, "new_runs"));
    property(b, "new_runs", ids.data ? ids.data : "");
    report_buf_release(&ids);
    property(b, "correction", js(view, "correction"));
    property(b, "alpha", js(view, "alpha"));
    property(b, "min_effect", js(view, "min_effect"));
    property(b, "max_regression", js(view, "max_regression"));
    property(b, "allow_partial", jb(view, "allow_partial") ? "true" : "false");
    report_buf_puts(b, "    </properties>\n");
}

static void
suite_close(struct rbuf *b, const json_t *view)
{
    report_buf_puts(b, "    <system-out>");
    xml_escape(b, js(view, "summary"), false);
    report_buf_puts(b, "\n");
    xml_escape(b, js(view, "gate_line"), false);
    report_buf_puts(b, "\n</system-out>\n    <system-err></system-err>\n  </testsuite>\n");
}

static void
suite(struct rbuf *b, const json_t *view, const json_t *const *suites, size_t ns, size_t id)
{
    const json_t *key = suites[id];
    struct jcount n = {0};
    suite_count(view, key, &n);
    struct rbuf name;
    report_buf_init(&name);
    report_buf_printf(&name, "%s (%s, %s)", js(key, "scenario"), js(key, "test"),
                      js(key, "family"));
    suite_open(b, view, name.data ? name.data : "", &n, id);
    report_buf_release(&name);
    bool shared = name_shared(suites, ns, key);
    for (int k = 0; k < 3; k++) {
        size_t i;
        const json_t *c;
        json_array_foreach(json_object_get(view, jlists[k]), i, c)
        {
            if (same_suite(c, key))
                testcase(b, view, c, (enum jkind)k, shared);
        }
    }
    suite_close(b, view);
}

/* The suite that says nothing could be compared. */
static void
nothing_suite(struct rbuf *b, const json_t *view, size_t id)
{
    struct jcount n = {1, 1, 0};
    suite_open(b, view, JUNIT_NOTHING, &n, id);
    report_buf_puts(b, "    <testcase name=\"gate: cells compared\" classname=\"" JUNIT_NOTHING
                       "\" time=\"0\">\n      <failure");
    attr(b, "message", js(view, "gate_line"));
    report_buf_puts(b, " type=\"nothing-compared\">");
    xml_escape(b, js(view, "summary"), false);
    report_buf_puts(b, "</failure>\n    </testcase>\n");
    suite_close(b, view);
}

void
history_junit_render(const json_t *view, struct rbuf *b)
{
    size_t total = 0;
    for (int k = 0; k < 3; k++)
        total += json_array_size(json_object_get(view, jlists[k]));
    const json_t **suites = calloc(total ? total : 1, sizeof *suites);
    if (suites == NULL) {
        b->oom = true;
        return;
    }
    size_t ns = 0;
    for (int k = 0; k < 3; k++) {
        size_t i, s;
        const json_t *c;
        json_array_foreach(json_object_get(view, jlists[k]), i, c)
        {
            for (s = 0; s < ns && !same_suite(suites[s], c); s++)
                ;
            if (s == ns)
                suites[ns++] = c;
        }
    }
    bool nothing = jb(view, "nothing_compared");
    struct jcount n = {0};
    suite_count(view, NULL, &n);
    n.tests += nothing;
    n.failures += nothing;
    report_buf_puts(
        b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"" JUNIT_NOTHING "\"");
    attr_n(b, "tests", n.tests);
    attr_n(b, "failures", n.failures);
    report_buf_puts(b, " errors=\"0\"");
    attr_n(b, "skipped", n.skipped);
    report_buf_puts(b, " time=\"0\">\n");
    for (size_t s = 0; s < ns; s++)
        suite(b, view, suites, ns, s);
    if (nothing)
        nothing_suite(b, view, ns);
    report_buf_puts(b, "</testsuites>\n");
    free((void *)suites);
}
