/* cmd_run.h - the `netsurvey run` command, dispatched from netsurvey.c. */
#ifndef NS_SURVEY_CMD_RUN_H
#define NS_SURVEY_CMD_RUN_H

/* Exit statuses of `netsurvey run` (also in its --help and the README). */
#define SURVEY_EXIT_SOME_FAILED 1 /* some trials failed, the rest completed */
#define SURVEY_EXIT_USAGE 2       /* plan or usage error: no host contacted */
#define SURVEY_EXIT_NOTHING 3     /* nothing could run */
#define SURVEY_EXIT_INTERRUPTED 130

/* argv[0] is "run"; returns the exit status. */
int survey_cmd_run(int argc, char **argv);

#endif
