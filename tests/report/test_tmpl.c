/* test_tmpl.c - the template engine: values, escaping per mode, sections over arrays, objects
 * and booleans, inverted sections, standalone lines, context lookup, and errors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/errors.h"
#include "report/reportint.h"

static char *
render(const char *t, const char *ctx_json, enum tmpl_mode mode, int *rc)
{
    json_error_t je;
    json_t *ctx = json_loads(ctx_json, 0, &je);
    assert_non_null(ctx);
    struct rbuf b;
    report_buf_init(&b);
    struct err e = {0};
    *rc = report_tmpl_render(t, ctx, mode, &b, &e);
    json_decref(ctx);
    if (*rc != 0) {
        report_buf_release(&b);
        return strdup(e.msg);
    }
    return b.data ? b.data : strdup("");
}

static void
expect(const char *t, const char *ctx, enum tmpl_mode mode, const char *want)
{
    int rc;
    char *got = render(t, ctx, mode, &rc);
    assert_int_equal(rc, 0);
    assert_string_equal(got, want);
    free(got);
}

static void
test_values_and_escaping(void **state)
{
    (void)state;
    const char *ctx = "{\"h\":\"<script>alert(1)</script>\",\"q\":\"a\\\"b&c'|d\",\"n\":3,"
                      "\"x\":1.5,\"o\":{\"k\":\"v\"}}";
    expect("{{h}}", ctx, TMPL_HTML, "&lt;script&gt;alert(1)&lt;/script&gt;");
    expect("{{q}}", ctx, TMPL_HTML, "a&quot;b&amp;c&#39;|d");
    /* Markdown is plain text: no entity, a backslash before what would be markup */
    expect("{{q}}", ctx, TMPL_MARKDOWN, "a\"b&c'\\|d");
    expect("{{h}}", ctx, TMPL_MARKDOWN, "\\<script\\>alert(1)\\</script\\>");
    expect("{{{h}}}", ctx, TMPL_HTML, "<script>alert(1)</script>");
    expect("{{h}}", ctx, TMPL_TEXT, "<script>alert(1)</script>");
    expect("[{{n}}|{{x}}|{{o.k}}|{{missing}}|{{ o.k }}]", ctx, TMPL_HTML, "[3|1.5|v||v]");
    expect("{{! a comment }}x", ctx, TMPL_HTML, "x");
}

/* report.md is plain text: what would be markup gets CommonMark's backslash escape, nothing
 * else changes (no entity for a quote, an '_' inside a word, a lone '&'). */
static void
test_markdown_plain_text(void **state)
{
    (void)state;
    static const struct {
        const char *value, *want;
    } cases[] = {
        {"tcp_rr zone1_vm-b", "tcp_rr zone1_vm-b"},
        {"_x_ a_ _b __c__", "\\_x\\_ a\\_ \\_b \\_\\_c\\_\\_"},
        {"it's \"ok\" & fine", "it's \"ok\" & fine"},
        {"a&amp;b &#39; &#x1F; &x &x y;", "a\\&amp;b \\&#39; \\&#x1F; &x &x y;"},
        {"*b* `c` [l](u) ~~s~~ ![i](u)", "\\*b\\* \\`c\\` \\[l\\](u) \\~\\~s\\~\\~ !\\[i\\](u)"},
        {"a\\b | c", "a\\\\b \\| c"},
        {"two\nlines\r", "two lines "},
        {"\xc3\xa9_\xc3\xa9", "\xc3\xa9_\xc3\xa9"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        json_t *o = json_pack("{s:s}", "v", cases[i].value);
        char *ctx = json_dumps(o, 0);
        expect("{{v}}", ctx, TMPL_MARKDOWN, cases[i].want);
        free(ctx);
        json_decref(o);
    }
}

static void
test_sections(void **state)
{
    (void)state;
    const char *ctx = "{\"a\":[{\"v\":1},{\"v\":2}],\"t\":true,\"f\":false,\"e\":[],\"s\":\"\","
                      "\"o\":{\"v\":9},\"name\":\"top\",\"l\":[\"x\",\"y\"]}";
    expect("{{#a}}<{{v}}>{{/a}}", ctx, TMPL_HTML, "<1><2>");
    expect("{{#t}}yes{{/t}}{{#f}}no{{/f}}{{#e}}no{{/e}}{{#s}}no{{/s}}{{#zz}}no{{/zz}}", ctx,
           TMPL_HTML, "yes");
    expect("{{^f}}F{{/f}}{{^e}}E{{/e}}{{^t}}T{{/t}}{{^zz}}Z{{/zz}}", ctx, TMPL_HTML, "FEZ");
    expect("{{#o}}{{v}} {{name}}{{/o}}", ctx, TMPL_HTML, "9 top"); /* outer names visible */
    expect("{{#l}}[{{.}}]{{/l}}", ctx, TMPL_HTML, "[x][y]");
    expect("{{#a}}{{#a}}{{v}}{{/a}};{{/a}}", ctx, TMPL_HTML, "12;12;"); /* nested, same name */
}

static void
test_standalone_lines(void **state)
{
    (void)state;
    const char *ctx = "{\"a\":[{\"v\":1},{\"v\":2}],\"f\":false}";
    expect("head\n{{#a}}\n- {{v}}\n{{/a}}\ntail\n", ctx, TMPL_MARKDOWN, "head\n- 1\n- 2\ntail\n");
    expect("head\n  {{#f}}\nx\n  {{/f}}\ntail\n", ctx, TMPL_MARKDOWN, "head\ntail\n");
    expect("head\n{{! note }}\ntail", ctx, TMPL_MARKDOWN, "head\ntail");
    expect("a {{#a}}{{v}}{{/a}} b\n", ctx, TMPL_MARKDOWN, "a 12 b\n"); /* inline: kept */
}

static void
test_errors(void **state)
{
    (void)state;
    int rc;
    char *msg = render("line\n{{#a}}never closed", "{}", TMPL_HTML, &rc);
    assert_int_equal(rc, NS_EPARSE);
    assert_non_null(strstr(msg, "line 2"));
    free(msg);
    msg = render("{{/a}}", "{}", TMPL_HTML, &rc);
    assert_int_equal(rc, NS_EPARSE);
    free(msg);
    msg = render("{{a", "{}", TMPL_HTML, &rc);
    assert_int_equal(rc, NS_EPARSE);
    free(msg);
}

static void
test_builtin_templates_render(void **state)
{
    (void)state;
    /* compare's and trend's are tests/history/test_trend.c's */
    static const char *const names[] = {"report.md", "report.html", "report.css"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char *owned;
        const char *t = report_template(names[i], &owned);
        assert_non_null(t);
        int rc;
        char *out = render(t, "{}", TMPL_HTML, &rc);
        assert_int_equal(rc, 0); /* balanced sections in every shipped template */
        free(out);
        free(owned);
    }
    char *owned;
    assert_null(report_template("nope.md", &owned));
    assert_null(report_template("compare.md", &owned)); /* the history module's */
}

int
main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_values_and_escaping),
                                       cmocka_unit_test(test_markdown_plain_text),
                                       cmocka_unit_test(test_sections),
                                       cmocka_unit_test(test_standalone_lines),
                                       cmocka_unit_test(test_errors),
                                       cmocka_unit_test(test_builtin_templates_render)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
