/* cli_check.c - `netsurvey check [-q] [PLAN]`: validate a plan, one summary line; with
 * --connect, then the preflight of every host (survey/preflight.h) as a table or JSON
 * (cli_preflight_out.h). */
#include <errno.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_preflight_out.h"
#include "common/errors.h"
#include "plan/plan.h"
#include "survey/survey.h"

struct check_args {
    bool quiet;
    bool connect;
    bool json;
    bool deploy;
    const char *nsperf;
    struct cli_list nsperf_remote;
};

static const struct cli_opt check_opts[] = {
    {'q', "quiet", NULL, CLI_OPT_TRUE, offsetof(struct check_args, quiet), 0,
     "print nothing when the plan is valid (its problems are still printed); with --connect, "
     "no summary line before the table"},
    {0, "connect", NULL, CLI_OPT_TRUE, offsetof(struct check_args, connect), 0,
     "then reach every host at once and check what a survey needs there (the preflight: host "
     "key, login, system, endpoint, free space, clock, data address, data paths)"},
    {0, "json", NULL, CLI_OPT_TRUE, offsetof(struct check_args, json), 0,
     "with --connect: one JSON document on stdout instead of the table"},
    {0, "deploy", NULL, CLI_OPT_TRUE, offsetof(struct check_args, deploy), 0,
     "with --connect: upload the endpoint into the cache of ssh hosts that lack it (as a run "
     "would), so that the data address and data paths are checked there too"},
    {0, "nsperf", "PATH", CLI_OPT_STRING, offsetof(struct check_args, nsperf), 0,
     "with --connect: the nsperf run on `transport: local` hosts (default: beside netsurvey, "
     "else in PATH)"},
    {0, "nsperf-remote", "PATH", CLI_OPT_LIST, offsetof(struct check_args, nsperf_remote), 0,
     "with --connect: a static nsperf for ssh hosts, one per architecture (default: "
     "nsperf-static and nsperf-static-aarch64 beside netsurvey)"},
};

static const char *
plural(uint64_t n)
{
    return n == 1 ? "" : "s";
}

/* --- signals: what stops a preflight ------------------------------------------------------ */

static atomic_int check_interrupted;
static char cli_check_name[] = "check"; /* cli_ssh_warning's ctx */

static void
check_on_signal(int sig)
{
    (void)sig;
    int saved = errno;
    atomic_store(&check_interrupted, 1);
    errno = saved;
}

/* --- --connect ---------------------------------------------------------------------------- */

static int
check_connect(const struct check_args *a, const struct plan *p)
{
    struct cli_nsperf n;
    if (cli_find_nsperf(&cli_check, p, a->nsperf, &a->nsperf_remote, &n) != 0)
        return CLI_CHECK_INVALID;
    struct preflight_opts o = {.plan = p,
                               .nsperf = n.local,
                               .nsperf_remote = n.ssh ? n.builds : NULL,
                               .deploy = a->deploy,
                               .interrupted = &check_interrupted,
                               .warn = cli_ssh_warning,
                               .warn_ctx = cli_check_name};
    cli_catch_signals(check_on_signal);
    struct preflight_report *r = NULL;
    struct err e = {0};
    int rc = preflight_run(&o, &r, &e);
    if (rc != 0) {
        fprintf(stderr, "netsurvey check: %s\n", e.msg);
        return rc == NS_ENOMEM ? CLI_CHECK_FAILED : CLI_CHECK_INVALID;
    }
    int wr = a->json ? cli_preflight_json(stdout, p, r) : cli_preflight_table(stdout, r);
    int status = r->interrupted ? CLI_CHECK_INTERRUPTED
                 : r->ok        ? CLI_CHECK_OK
                                : CLI_CHECK_HOSTS_FAILED;
    preflight_report_free(r);
    if (wr != 0 || fflush(stdout) != 0) {
        fprintf(stderr, "netsurvey check: the %s could not be written\n",
                a->json ? "JSON" : "table");
        return CLI_CHECK_FAILED;
    }
    return status;
}

static int
check_main(int argc, char **argv)
{
    struct check_args a = {0};
    const char *arg = NULL;
    int rc = cli_parse_plan(&cli_check, argc, argv, &a, &arg);
    if (rc != CLI_GO_ON)
        return rc;
    if (!a.connect && (a.json || a.deploy || a.nsperf != NULL || a.nsperf_remote.n > 0))
        return cli_usage_error(&cli_check, "--json, --deploy, --nsperf and --nsperf-remote go "
                                           "with --connect");
    struct plan *p = NULL;
    rc = cli_plan_load(&cli_check, arg, NULL, &p);
    if (rc != 0)
        return rc == NS_ENOMEM ? CLI_CHECK_FAILED : CLI_CHECK_INVALID;
    uint64_t lo = plan_test_count_min(p), hi = plan_test_count(p);
    char range[48] = "";
    if (lo != hi) /* adaptive trials: the least there may be, then the most */
        snprintf(range, sizeof range, "%llu to ", (unsigned long long)lo);
    size_t nwritten = 0, nsweeps = 0; /* the scenarios as written; a sweep's values in one */
    for (size_t i = 0; i < plan_scenario_count(p); i++) {
        const struct plan_scenario *sc = plan_scenario(p, i);
        nwritten += sc->sweep.index == 0;
        nsweeps += sc->sweep.index == 0 && plan_scenario_swept(sc);
    }
    char sweeps[96] = "";
    if (nsweeps > 0)
        snprintf(sweeps, sizeof sweeps, " (%zu sweep%s: %zu scenarios as run)", nsweeps,
                 plural(nsweeps), plan_scenario_count(p));
    char zones[64] = "no zones (host pairs only)";
    if (plan_has_zones(p))
        snprintf(zones, sizeof zones, "%zu zone%s", plan_zone_count(p), plural(plan_zone_count(p)));
    if (!a.quiet && !a.json)
        printf("%s: plan '%s' is valid: %zu host%s, %s, %zu pair%s, %zu scenario%s%s, "
               "%s%llu test%s\n",
               plan_file(p), plan_name(p), plan_host_count(p), plural(plan_host_count(p)), zones,
               plan_pair_count(p), plural(plan_pair_count(p)), nwritten, plural(nwritten), sweeps,
               range, (unsigned long long)hi, plural(hi));
    int status = fflush(stdout) == 0 ? CLI_CHECK_OK : CLI_CHECK_FAILED;
    if (status == CLI_CHECK_OK && a.connect) {
        if (!a.json && !a.quiet)
            putchar('\n');
        status = check_connect(&a, p);
    }
    plan_free(p);
    return status;
}

const struct cli_command cli_check = {
    .name = "check",
    .synopsis = "[-q] [PLAN] [--connect [--json] [--deploy] [--nsperf PATH] [--nsperf-remote "
                "PATH]]",
    .summary = "validate a plan and print a one-line summary; with --connect, check every host "
               "before a survey",
    .details =
        "Every problem is printed at once, as file:line:col: message, before any host is "
        "contacted; warnings are printed too and do not change the exit status. Without "
        "--connect, check reads the plan only.\n"
        "--connect then reaches every host at once (16 at a time, each within its connect "
        "timeout) and prints a row per host: host key (known, unknown, changed), "
        "authentication, OS and architecture, whether the endpoint is cached or would be "
        "uploaded, free space where it goes, clock offset to this machine, the data address "
        "(or the one learnt from the host's default route when the plan gives none) and the "
        "data paths into it from the other hosts (a short nsperf TCP round-trip test over each of "
        "the plan's pairs). Problems are listed below the table. Nothing is left running or "
        "changed on a "
        "host, but the endpoint cache with --deploy; where the endpoint is not cached and "
        "--deploy is not given, the data address and paths are not checked.\n" CLI_PLAN_HELP,
    CLI_OPTS(check_opts),
    CLI_EXITS(CHECK),
    .usage = CLI_CHECK_INVALID,
    .main = check_main,
};
