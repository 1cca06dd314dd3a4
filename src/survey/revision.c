/* revision.c - what `run --resume` compares before it continues a run: the plan as run.json
 * records it (its newest revision) against the plan given now, difference by difference; and
 * the record of the revision a resume with --force replaces (resume.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/testspec.h"
#include "journal/journal.h"
#include "plan/plan.h"
#include "plan/schedule.h"
#include "survey/resume.h"

static void diff_add(struct survey_plan_diff *d, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
diff_add(struct survey_plan_diff *d, const char *fmt, ...)
{
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    size_t len = n < 0 ? 0 : (size_t)n < sizeof line ? (size_t)n : sizeof line - 1;
    d->n++;
    if (d->oom)
        return;
    char *t = realloc(d->text, d->len + len + 2);
    if (t == NULL) {
        d->oom = true;
        return;
    }
    d->text = t;
    memcpy(d->text + d->len, line, len);
    d->len += len;
    d->text[d->len++] = '\n';
    d->text[d->len] = '\0';
}

static const char *
str_or(const char *s)
{
    return s != NULL ? s : "";
}

/* "3" or "3..10 to 2 %" */
static void
policy_text(const struct trials_policy *p, char *b, size_t len)
{
    if (trials_adaptive(p))
        snprintf(b, len, "%u..%u to %g %%", p->min, p->max, p->target * 100.0);
    else
        snprintf(b, len, "%u", p->min);
}

static bool
policy_same(const struct trials_policy *a, const struct trials_policy *b)
{
    return a->min == b->min && a->max == b->max && a->target == b->target;
}

/* One scenario of both: its kind, each parameter that applies, its trials. */
static void
scenario_diff(const struct journal_run_scenario *was, const struct plan_scenario *ps,
              struct survey_plan_diff *d)
{
    struct journal_scenario now = journal_scenario_from_spec(ps->name, &ps->spec);
    if (was->sc.kind != now.kind) {
        diff_add(d, "scenario '%s': test %s → %s", ps->name, str_or(was->sc.test), ps->test);
        return;
    }
    for (int i = 0; i < TESTSPEC_PARAM_COUNT; i++) {
        enum testspec_param p = (enum testspec_param)i;
        double a = journal_scenario_value(&was->sc, p), b = journal_scenario_value(&now, p);
        if (!testspec_applies(p, now.kind) || a == b)
            continue;
        char ta[64], tb[64];
        diff_add(d, "scenario '%s': %s %s → %s", ps->name, testspec_record_key(p),
                 testspec_value_text(p, a, ta, sizeof ta),
                 testspec_value_text(p, b, tb, sizeof tb));
    }
    struct trials_policy wp =
        trials_adaptive(&was->policy)
            ? was->policy
            : trials_fixed((uint32_t)(was->trials > UINT32_MAX ? UINT32_MAX : was->trials));
    if (!policy_same(&wp, &ps->trials)) {
        char ta[64], tb[64];
        policy_text(&wp, ta, sizeof ta);
        policy_text(&ps->trials, tb, sizeof tb);
        diff_add(d, "scenario '%s': trials %s → %s", ps->name, ta, tb);
    }
}

static void
scenarios_diff(const struct journal_run *run, const struct plan *p, struct survey_plan_diff *d)
{
    size_t n = plan_scenario_count(p);
    for (size_t i = 0; i < run->nscenarios; i++) {
        const struct journal_run_scenario *was = &run->scenarios[i];
        const struct plan_scenario *ps = NULL;
        for (size_t k = 0; k < n && ps == NULL; k++)
            if (strcmp(plan_scenario(p, k)->name, str_or(was->sc.name)) == 0)
                ps = plan_scenario(p, k);
        if (ps == NULL)
            diff_add(d, "scenario '%s' (%s) dropped", str_or(was->sc.name), str_or(was->sc.test));
        else
            scenario_diff(was, ps, d);
    }
    for (size_t k = 0; k < n; k++) {
        const struct plan_scenario *ps = plan_scenario(p, k);
        bool had = false;
        for (size_t i = 0; i < run->nscenarios && !had; i++)
            had = strcmp(str_or(run->scenarios[i].sc.name), ps->name) == 0;
        if (!had)
            diff_add(d, "scenario '%s' (%s) added", ps->name, ps->test);
    }
}

/* A host of both: where it is (unless the survey learns it from the host) and its data
 * address (unless learnt). A host elsewhere is never continued: its trials would mix places. */
static void
host_diff(const struct journal_run_host *was, const struct plan_host *h, struct survey_plan_diff *d)
{
    if (!h->zone_from_host && strcmp(str_or(was->zone), h->zone) != 0) {
        diff_add(d, "host '%s': zone %s → %s", h->name, str_or(was->zone), h->zone);
        d->moved = true;
    }
    if (!h->region_from_host && strcmp(str_or(was->region), h->region) != 0) {
        diff_add(d, "host '%s': region %s → %s", h->name, str_or(was->region), h->region);
        d->moved = true;
    }
    if (!h->data_address_from_host && strcmp(str_or(was->data_address), h->data_address) != 0) {
        diff_add(d, "host '%s': data address %s → %s", h->name, str_or(was->data_address),
                 h->data_address);
        d->moved = true;
    }
}

static void
hosts_diff(const struct journal_run *run, const struct plan *p, struct survey_plan_diff *d)
{
    size_t n = plan_host_count(p);
    for (size_t i = 0; i < run->nhosts; i++) {
        long k = plan_host_find(p, str_or(run->hosts[i].name));
        if (k < 0)
            diff_add(d, "host '%s' dropped", str_or(run->hosts[i].name));
        else
            host_diff(&run->hosts[i], plan_host(p, (size_t)k), d);
    }
    for (size_t k = 0; k < n; k++) {
        const char *name = plan_host(p, k)->name;
        bool had = false;
        for (size_t i = 0; i < run->nhosts && !had; i++)
            had = strcmp(str_or(run->hosts[i].name), name) == 0;
        if (!had)
            diff_add(d, "host '%s' added", name);
    }
}

/* The planned pairs, by host names: how many each side has that the other does not. */
static void
pairs_diff(const struct journal_run *run, const struct plan *p, const struct schedule *s,
           struct survey_plan_diff *d)
{
    size_t np = schedule_pair_count(s), dropped = 0, added = 0;
    for (size_t i = 0; i < run->npair_list; i++) {
        const char *a = str_or(run->hosts[run->pair_list[i].src].name);
        const char *b = str_or(run->hosts[run->pair_list[i].dst].name);
        bool now = false;
        for (size_t k = 0; k < np && !now; k++) {
            uint32_t x, y;
            schedule_pair(s, k, &x, &y);
            now = strcmp(plan_host(p, x)->name, a) == 0 && strcmp(plan_host(p, y)->name, b) == 0;
        }
        dropped += !now;
    }
    /* every pair of the run is in both or dropped; the rest of the plan's are new */
    added = np - (run->npair_list - dropped);
    if (dropped > 0 || added > 0)
        diff_add(d, "planned host pairs: %zu then, %zu now (%zu added, %zu dropped)",
                 run->npair_list, np, added, dropped);
}

int
survey_plan_diff(const struct journal_run *run, const struct plan *p, const struct schedule *s,
                 struct survey_plan_diff *d)
{
    memset(d, 0, sizeof *d);
    scenarios_diff(run, p, d);
    hosts_diff(run, p, d);
    if (run->has_pairs)
        pairs_diff(run, p, s, d);
    return d->oom ? NS_ENOMEM : 0;
}

void
survey_plan_diff_release(struct survey_plan_diff *d)
{
    free(d->text);
    memset(d, 0, sizeof *d);
}

/* --- the revision a resume with --force replaces -------------------------------------------- */

/* The start and command of revision rev of doc: the run's own for revision 1, else those of the
 * resume that began it. */
static void
revision_start(const json_t *doc, uint32_t rev, const char **started, const char **command)
{
    *started = json_string_value(json_object_get(doc, "started"));
    *command = json_string_value(json_object_get(doc, "command"));
    size_t i;
    const json_t *r;
    json_array_foreach(json_object_get(doc, "resumes"), i, r)
    {
        if (rev > 1 && json_integer_value(json_object_get(r, "revision")) == (json_int_t)rev) {
            *started = json_string_value(json_object_get(r, "started"));
            *command = json_string_value(json_object_get(r, "command"));
        }
    }
}

json_t *
survey_revisions_json(const struct journal_run *run)
{
    const json_t *doc = run->json;
    json_t *all = json_deep_copy(json_object_get(doc, "revisions"));
    if (all == NULL)
        all = json_array();
    const char *started, *command;
    revision_start(doc, run->revision, &started, &command);
    const json_t *plan = json_object_get(doc, "plan");
    json_t *hosts = json_array();
    size_t i;
    const json_t *h;
    json_array_foreach(json_object_get(doc, "hosts"), i, h)
    {
        json_t *o = json_deep_copy(h);
        json_object_del(o, "env"); /* the run's hosts keep theirs; a place is what matters */
        json_array_append_new(hosts, o);
    }
    json_t *entry = json_pack(
        "{s:I, s:s?, s:s?, s:{s:O?, s:O?, s:O?, s:O?}, s:o, s:O?, s:O?}", "revision",
        (json_int_t)run->revision, "started", started, "command", command, "plan", "name",
        json_object_get(plan, "name"), "file", json_object_get(plan, "file"), "sha256",
        json_object_get(plan, "sha256"), "source", json_object_get(plan, "source"), "hosts", hosts,
        "scenarios", json_object_get(doc, "scenarios"), "pairs", json_object_get(doc, "pairs"));
    if (all == NULL || entry == NULL || json_array_append_new(all, entry) != 0) {
        json_decref(all);
        return NULL;
    }
    return all;
}
