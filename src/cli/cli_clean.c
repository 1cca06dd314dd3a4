/* cli_clean.c - `netsurvey clean [PLAN] [--accept-new-host-keys]`: undo what runs left on the
 * plan's ssh hosts (process groups still recorded, the deployed nsperf), one line a host. */
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "cli/cli.h"
#include "common/errors.h"
#include "common/sshg.h"
#include "journal/journal.h"
#include "plan/plan.h"
#include "survey/survey.h"

struct clean_args {
    bool accept_new_host_keys;
};

static const struct cli_opt clean_opts[] = {
    {0, "accept-new-host-keys", NULL, CLI_OPT_TRUE,
     offsetof(struct clean_args, accept_new_host_keys), 0,
     "record the key of an ssh host missing from known_hosts (trust on first use); a changed "
     "key is still refused"},
};

static char cli_clean_name[] = "clean"; /* cli_ssh_warning's ctx */

/* journal_runs_in_progress: a run of the plan (ctx: its name) holds its directory. */
static void
clean_busy(void *ctx, const char *dir, long pid)
{
    fprintf(stderr,
            "netsurvey clean: a run of plan '%s' is in progress in %s (pid %ld): cleaning would "
            "kill its endpoints and remove the one it runs; nothing done (clean once it ended)\n",
            (const char *)ctx, dir, pid);
}

static int
clean_main(int argc, char **argv)
{
    struct clean_args a = {0};
    struct plan *p;
    int rc = cli_start_plan(&cli_clean, argc, argv, &a, CLI_CLEAN_USAGE, &p);
    if (rc != CLI_GO_ON)
        return rc;
    /* a run of this plan in progress: its endpoints would be killed, its cache removed */
    struct err be = {0};
    char name[256];
    snprintf(name, sizeof name, "%s", plan_name(p));
    if (journal_runs_in_progress(name, clean_busy, name, &be) > 0) {
        plan_free(p);
        return CLI_CLEAN_BUSY;
    }
    int status = CLI_CLEAN_OK;
    struct sshg *g = survey_ssh_prefetch(p); /* every host's ssh -G at once */
    for (size_t i = 0; i < plan_host_count(p); i++) {
        const struct plan_host *ph = plan_host(p, i);
        if (ph->transport == PLAN_TRANSPORT_LOCAL)
            continue;
        struct err e = {0};
        struct survey_cleaned c = {0};
        if (survey_clean_host_warn(ph, a.accept_new_host_keys, g, cli_ssh_warning, cli_clean_name,
                                   &c, &e) != 0) {
            fprintf(stderr, "netsurvey clean: %s: %s\n", ph->name, e.msg);
            status = CLI_CLEAN_SOME_FAILED;
        } else {
            printf("%s: cleaned (%lu process group%s killed, %lu stale pid file%s removed)\n",
                   ph->name, c.killed, c.killed == 1 ? "" : "s", c.stale, c.stale == 1 ? "" : "s");
        }
    }
    sshg_free(g);
    plan_free(p);
    return status;
}

const struct cli_command cli_clean = {
    .name = "clean",
    .synopsis = "[PLAN] [--accept-new-host-keys]",
    .summary = "kill what netsurvey left running on the plan's ssh hosts and remove its cache "
               "there",
    .details = "For every ssh host of the plan: every process group netsurvey started there, still "
               "recorded and provably its own (same boot, same start time, its executable the "
               "deployed nsperf) is killed, every pid file removed (a stale one without acting on "
               "it), and ~/.cache/netsurvey (the deployed nsperf; also $XDG_RUNTIME_DIR/netsurvey, "
               "/dev/shm/netsurvey-UID, /tmp/netsurvey-UID where a full home put it) removed. "
               "Refused while a run of the same plan is in progress on this machine (it names the "
               "run). Local hosts have nothing to clean: their processes end with the "
               "run.\n" CLI_PLAN_HELP,
    CLI_OPTS(clean_opts),
    CLI_EXITS(CLEAN),
    .usage = CLI_CLEAN_USAGE,
    .main = clean_main,
};
