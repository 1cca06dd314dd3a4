/* resume.h - what the two readers of a resumed run's run.json share (internal to src/survey):
 * survey_load_recorded_plan (`--resume DIR` without PLAN) and the runner's own check. */
#ifndef NS_SURVEY_RESUME_H
#define NS_SURVEY_RESUME_H

struct err;
struct journal_run;

/* run.json of dir, a run to resume, into *out (journal_read_run's contract, caller frees with
 * journal_run_free). A refusal is prefixed "cannot resume DIR"; one for a run.json version this
 * netsurvey does not know ends with the way out: "resume it with the netsurvey that wrote it".
 * Returns journal_read_run's code. */
int survey_resume_read_run(const char *dir, struct journal_run **out, struct err *e);

#endif
