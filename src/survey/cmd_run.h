/* cmd_run.h - the `netsurvey run` command, dispatched from netsurvey.c. */
#ifndef NS_SURVEY_CMD_RUN_H
#define NS_SURVEY_CMD_RUN_H

/* Exit statuses of `netsurvey run` (also in its --help and the README). */
#define SURVEY_EXIT_SOME_FAILED 1 /* some trials failed, the rest completed */
#define SURVEY_EXIT_USAGE 2       /* plan or usage error: no host contacted */
#define SURVEY_EXIT_NOTHING 3     /* nothing could run */
#define SURVEY_EXIT_INTERRUPTED 130

struct err;

/* What renders a run directory's reports once the survey ends (netsurvey.c passes the report
 * module's report_render_dir; the survey module knows nothing of reports). 0 or NS_E*. */
typedef int (*survey_render_fn)(const char *dir, struct err *e);

/* argv[0] is "run"; returns the exit status. render (may be NULL) is called on the run
 * directory when the survey was not interrupted and recorded at least one trial; a failure to
 * render is reported but does not change the exit status, since the journal is complete. */
int survey_cmd_run(int argc, char **argv, survey_render_fn render);

#endif
