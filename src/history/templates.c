/* templates.c - the history module's compiled-in templates (templates/compare*, trend*). */
#include <stddef.h>

#include "history/cells.h"
#include "report/output.h"

extern const unsigned char ns_tmpl_compare_md[], ns_tmpl_compare_html[],
    ns_tmpl_compare_summary_md[], ns_tmpl_trend_md[], ns_tmpl_trend_html[];

static const struct report_builtin builtin[] = {
    {"compare.md", ns_tmpl_compare_md},
    {"compare.html", ns_tmpl_compare_html},
    {"compare-summary.md", ns_tmpl_compare_summary_md},
    {"trend.md", ns_tmpl_trend_md},
    {"trend.html", ns_tmpl_trend_html},
};

const char *
history_template(const char *name, char **owned)
{
    const char *t = report_template_in(builtin, sizeof builtin / sizeof builtin[0], name, owned);
    return t != NULL ? t : report_template(name, owned); /* report.css: the stylesheet is shared */
}
