/* resume.h - what the two readers of a resumed run's run.json share (internal to src/survey):
 * survey_load_recorded_plan (`--resume DIR` without PLAN) and the runner's own check. */
#ifndef NS_SURVEY_RESUME_H
#define NS_SURVEY_RESUME_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

struct err;
struct journal_run;
struct plan;
struct schedule;

/* run.json of dir, a run to resume, into *out (journal_read_run's contract, caller frees with
 * journal_run_free). A refusal is prefixed "cannot resume DIR"; one for a run.json version this
 * netsurvey does not know ends with the way out: "resume it with the netsurvey that wrote it".
 * Returns journal_read_run's code. */
int survey_resume_read_run(const char *dir, struct journal_run **out, struct err *e);

/* How a plan differs from a run's (run.json's newest revision): what `run --resume` refuses
 * without --force and records as a new revision with it. */
struct survey_plan_diff {
    size_t n;   /* differences */
    bool moved; /* a host of both is in another zone or region, or at another data address: a
                 * run is never continued on it, --force or not */
    bool oom;
    char *text; /* one difference a line ("scenario 'lat': msg_size 250 → 64K"), or NULL */
    size_t len;
};

/* Compare run's scenarios (dropped, added, another kind, each parameter that applies, the
 * trials), hosts (dropped, added, placed or addressed elsewhere) and planned pairs with plan p
 * and its schedule s. Returns 0 or NS_ENOMEM; release d with survey_plan_diff_release. */
int survey_plan_diff(const struct journal_run *run, const struct plan *p, const struct schedule *s,
                     struct survey_plan_diff *d);
void survey_plan_diff_release(struct survey_plan_diff *d);

/* run.json's "revisions" once a resume with --force replaces run's newest revision: its earlier
 * ones, then it ({"revision", "started", "command", "plan": {name, file, sha256, source},
 * "hosts" without their env, "scenarios", "pairs"}). New reference; NULL when out of memory. */
json_t *survey_revisions_json(const struct journal_run *run);

#endif
