/* cmd_clean.h - the `netsurvey clean` command, dispatched from netsurvey.c. */
#ifndef NS_SURVEY_CMD_CLEAN_H
#define NS_SURVEY_CMD_CLEAN_H

/* argv[0] is "clean". For every ssh host of the plan: kill what netsurvey left running there
 * and remove its cache (transport_ssh_clean). Exit 0 every ssh host cleaned, 1 some could not
 * be reached or cleaned, 2 plan or usage error. */
int survey_cmd_clean(int argc, char **argv);

#endif
