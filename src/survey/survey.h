/* survey.h - the survey module's one public header (curl's curl.h way): a run of a plan's
 * schedule over its hosts (run.h), the preflight of `netsurvey check --connect` (preflight.h),
 * `netsurvey clean`'s work on a host (clean.h) and a plan's ssh hosts resolved by `ssh -G`
 * (host_ssh.h). Outside src/survey, only "survey/survey.h" is included
 * (tests/seams/lib_arrows.py); the survey's other headers are its own. */
#ifndef NS_SURVEY_SURVEY_H
#define NS_SURVEY_SURVEY_H

#include "survey/clean.h"
#include "survey/host_ssh.h"
#include "survey/preflight.h"
#include "survey/run.h"

#endif
