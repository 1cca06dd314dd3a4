/* cli_run.c - `netsurvey run`: arguments, the plan, signals, the progress a survey tells, the end
 * summary, the reports, the exit status. The work is survey_run() (survey/run.h), the reports
 * report_render() (report/report.h): run ▶ survey, then report. */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "common/clock.h"
#include "common/errors.h"
#include "common/shquote.h"
#include "common/units.h"
#include "history/history.h"
#include "journal/record.h"
#include "plan/plan.h"
#include "plan/schedule.h"
#include "report/report.h"
#include "survey/survey.h"

#define RUN_MARGIN_ENV "NETSURVEY_DEADLINE_MARGIN"

enum run_verbosity { RUN_QUIET = -1, RUN_NORMAL = 0, RUN_VERBOSE = 1 };

struct run_args {
    const char *plan; /* the PLAN operand, NULL when none */
    const char *out;
    const char *resume;
    const char *nsperf;
    struct cli_list nsperf_remote;
    bool force;
    bool accept_new_host_keys;
    int verbosity; /* enum run_verbosity */
    const char *db;
};

static const struct cli_opt run_opts[] = {
    {'o', "output", "DIR", CLI_OPT_STRING, offsetof(struct run_args, out), 0,
     "run directory ({name}, {timestamp} expanded; default: the plan's output); never one that "
     "is not empty"},
    {0, "resume", "DIR", CLI_OPT_STRING, offsetof(struct run_args, resume), 0,
     "continue the run in DIR: keep its ok trials, redo the rest; without PLAN, with the plan "
     "recorded in DIR/" JOURNAL_RUN_FILE},
    {0, "force", NULL, CLI_OPT_TRUE, offsetof(struct run_args, force), 0,
     "resume with a plan that differs from the run's (refused without it, each difference "
     "named): its scenarios become the run's next plan revision, its trials of other "
     "parameters are kept apart, never counted as the new plan's"},
    {'q', "quiet", NULL, CLI_OPT_SET, offsetof(struct run_args, verbosity), RUN_QUIET,
     "print only errors and the end summary"},
    {'v', "verbose", NULL, CLI_OPT_SET, offsetof(struct run_args, verbosity), RUN_VERBOSE,
     "also print every command run on a host"},
    {0, "nsperf", "PATH", CLI_OPT_STRING, offsetof(struct run_args, nsperf), 0,
     "the nsperf run on `transport: local` hosts (default: beside netsurvey, else in PATH)"},
    {0, "nsperf-remote", "PATH", CLI_OPT_LIST, offsetof(struct run_args, nsperf_remote), 0,
     "a statically linked nsperf deployed to ssh hosts, each host getting the one for its "
     "architecture; give one per architecture (default: nsperf-static and nsperf-static-aarch64 "
     "beside netsurvey, which the build makes)"},
    {0, "accept-new-host-keys", NULL, CLI_OPT_TRUE, offsetof(struct run_args, accept_new_host_keys),
     0,
     "record the key of an ssh host missing from known_hosts (trust on first use); a changed "
     "key is still refused"},
    {0, "db", "URL", CLI_OPT_STRING, offsetof(struct run_args, db), 0,
     "publish the run into this history database as it ends (netsurvey publish DIR --db URL); "
     "the database is checked before the survey starts"},
};

/* --- signals ------------------------------------------------------------------------------ */

/* Read by the runner's threads: a lock-free atomic, which a signal handler may also store. The
 * first signal's number: it decides the exit status (a second one changes nothing). */
static atomic_int run_interrupted;

static void
on_signal(int sig)
{
    int saved = errno;
    int none = 0;
    atomic_compare_exchange_strong(&run_interrupted, &none, sig);
    errno = saved;
}

/* --- progress: what survey_run tells, shown ------------------------------------------------ */

/* On a terminal one live status line on stderr, else one line per trial on stdout. */
struct run_view {
    int verbosity;
    bool tty;
    bool status_shown;
};

/* The live line; no ETA once no test is left to run. */
static void
view_status(struct run_view *v, const struct survey_progress *p)
{
    char el[32], eta[32];
    fprintf(stderr, "\r\033[Kround %zu/%zu  tests %llu/%llu  failed %llu  elapsed %s", p->round,
            p->nrounds, (unsigned long long)p->finished, (unsigned long long)p->to_run,
            (unsigned long long)p->failed, schedule_format_duration(p->elapsed_s, el, sizeof el));
    if (p->eta_s >= 0)
        fprintf(stderr, "  ETA %s", schedule_format_duration(p->eta_s, eta, sizeof eta));
    fflush(stderr);
    v->status_shown = true;
}

static void
view_clear(struct run_view *v)
{
    if (v->status_shown) {
        fprintf(stderr, "\r\033[K");
        fflush(stderr);
        v->status_shown = false;
    }
}

static void
view_trial(struct run_view *v, const struct survey_progress *p)
{
    if (v->verbosity == RUN_QUIET) {
        if (!p->ok && !p->not_run)
            fprintf(stderr, "netsurvey: %s -> %s %s trial %u failed: %s\n", p->src, p->dst,
                    p->scenario, p->trial, p->error);
        return;
    }
    if (v->tty) {
        if (!p->ok && !p->not_run) {
            view_clear(v);
            fprintf(stderr, "failed: %s -> %s %s trial %u: %s\n", p->src, p->dst, p->scenario,
                    p->trial, p->error);
        }
        view_status(v, p);
        return;
    }
    if (p->not_run) { /* its host's refusal was said once, above */
        printf("[%llu/%llu] %-6s %s -> %s %s trial %u: its host was refused\n",
               (unsigned long long)p->finished, (unsigned long long)p->to_run, "NOTRUN", p->src,
               p->dst, p->scenario, p->trial);
        fflush(stdout);
        return;
    }
    printf("[%llu/%llu] %-6s %s -> %s %s trial %u (%.2f s)%s%s\n", (unsigned long long)p->finished,
           (unsigned long long)p->to_run, p->ok ? "ok" : "FAILED", p->src, p->dst, p->scenario,
           p->trial, p->seconds, p->ok ? "" : ": ", p->ok ? "" : p->error);
    fflush(stdout);
}

static void
view_command(const struct run_view *v, const struct survey_progress *p)
{
    if (v->verbosity != RUN_VERBOSE)
        return;
    fprintf(stderr, "%s$", p->host);
    for (size_t i = 0; p->argv[i] != NULL; i++)
        fprintf(stderr, " %s", p->argv[i]);
    fputc('\n', stderr);
    fflush(stderr);
}

static char cli_run_name[] = "run"; /* cli_ssh_warning's ctx */

static void
run_progress(const struct survey_progress *p, void *arg)
{
    struct run_view *v = arg;
    switch (p->kind) {
    case SURVEY_PROGRESS_TICK:
        if (v->tty && v->verbosity != RUN_QUIET)
            view_status(v, p);
        break;
    case SURVEY_PROGRESS_TRIAL:
        view_trial(v, p);
        break;
    case SURVEY_PROGRESS_COMMAND:
        view_command(v, p);
        break;
    case SURVEY_PROGRESS_END:
        view_clear(v);
        break;
    case SURVEY_PROGRESS_WARNING:
        view_clear(v);
        cli_ssh_warning(cli_run_name, p->host, p->warning);
        break;
    case SURVEY_PROGRESS_HOST: /* rare, and what explains the waits and failures after it */
        view_clear(v);
        fprintf(stderr, "netsurvey run: %s: %s\n", p->host, p->warning);
        fflush(stderr);
        break;
    }
}

/* --- the end ------------------------------------------------------------------------------ */

/* The command line as a shell would take it back: each word quoted where it must be (a plan
 * or directory with a space or a quote, say), so that it can be pasted as it is printed. */
static void
run_command_text(int argc, char **argv, char *buf, size_t len)
{
    size_t used = (size_t)snprintf(buf, len, "netsurvey");
    for (int i = 0; i < argc && used + 1 < len; i++) {
        buf[used++] = ' ';
        long n = shquote_word(argv[i], buf + used, len - used);
        if (n < 0) { /* cut: what fits of the words before it */
            buf[used - 1] = '\0';
            return;
        }
        used += (size_t)n;
    }
}

/* s as one word for a shell, for a line of the summary. */
static const char *
run_word(const char *s, char *buf, size_t len)
{
    return shquote_word(s, buf, len) >= 0 ? buf : s;
}

static double
run_margin(void)
{
    const char *v = getenv(RUN_MARGIN_ENV);
    double s;
    if (v != NULL && units_parse_duration(v, &s, NULL) == 0 && s > 0)
        return s;
    return SURVEY_DEFAULT_MARGIN_S;
}

/* text's lines on out, each indented by two spaces. */
static void
run_lines(FILE *out, const char *text)
{
    for (const char *p = text; p != NULL && *p;) {
        const char *nl = strchr(p, '\n');
        int len = nl ? (int)(nl - p) : (int)strlen(p);
        fprintf(out, "  %.*s\n", len, p);
        p += len + (nl != NULL);
    }
}

/* The end: the plan's revision when a resume made one, the counts and failures, the zone
 * matrices (matrices: the report's text, or NULL), then where everything is. */
static void
run_summary(const struct run_args *a, const char *dir, const struct survey_run_result *r,
            bool rendered, const char *matrices)
{
    char el[32];
    if (r->revised) {
        printf("\nplan:    revision %u of the run's plan (--force), which differs from the one "
               "before in these ways; the trials of other parameters and of dropped scenarios "
               "stay in the journal and are reported apart, as they ran:\n",
               r->revision);
        run_lines(stdout, r->plan_diff);
    }
    printf("\ntrials: %llu ok, %llu failed this run", (unsigned long long)r->ok,
           (unsigned long long)r->failed);
    if (r->unrecorded > 0)
        printf(", %llu not recorded", (unsigned long long)r->unrecorded);
    if (r->done_before > 0)
        printf(", %llu ok from before", (unsigned long long)r->done_before);
    if (r->refused + r->not_run > 0)
        printf(", %llu not run", (unsigned long long)(r->refused + r->not_run));
    printf(" (%llu in the plan), %s\n", (unsigned long long)r->tests,
           schedule_format_duration(r->elapsed_s, el, sizeof el));
    for (size_t i = 0; i < r->nfailures; i++)
        printf("  %s: %s\n", r->failures[i].unrecorded ? "not recorded" : "failed",
               r->failures[i].text);
    for (size_t i = 0; i < r->nrefusals; i++)
        printf("  not run: %s\n", r->refusals[i]);
    if (matrices != NULL)
        fputs(matrices, stdout);
    printf("\nrun directory: %s%s\n", dir,
           r->dir_suffixed ? " (the expanded name existed: a suffix was added)" : "");
    char qd[2 * PATH_MAX + 8], qp[2 * PATH_MAX + 8];
    run_word(dir, qd, sizeof qd);
    if (r->interrupted || r->failed > 0 || r->unrecorded > 0 || r->not_run > 0 || r->refused > 0)
        printf("resume:  netsurvey run%s%s --resume %s%s\n", a->plan != NULL ? " " : "",
               a->plan != NULL ? run_word(a->plan, qp, sizeof qp) : "", qd,
               a->db != NULL ? " --db URL" : ""); /* the URL may hold a password */
    if (rendered)
        printf("report:  %s/report.md, %s/report.html (rebuild: netsurvey report %s)\n", dir, dir,
               qd);
    else
        printf("report:  netsurvey report %s\n", qd);
    fflush(stdout);
}

/* The reports, once the journal holds the whole run (not after an interrupt: the resume
 * renders them). The journal is complete either way: a failure here is the exit status's
 * (CLI_RUN_REPORTS) and `netsurvey report DIR` writes them later. False when they were not
 * written; *wanted says whether they were to be. *matrices: the zone matrices as text, from
 * the summary the reports were built from (the caller frees; NULL when none). */
static bool
run_render(const char *dir, const struct survey_run_result *r, bool *wanted, char **matrices)
{
    *matrices = NULL;
    *wanted = !r->interrupted && r->ok + r->failed + r->refused + r->done_before > 0;
    if (!*wanted)
        return false;
    size_t len;
    FILE *text = open_memstream(matrices, &len);
    /* this process may still own the directory: its lock says nothing of the run */
    struct report_opts o = {.dirs = &dir,
                            .ndirs = 1,
                            .out = dir,
                            .warn = stderr,
                            .owned_by_caller = true,
                            .matrices = text};
    struct err e = {0};
    int rc = report_render(&o, &e);
    if (text != NULL && fclose(text) != 0) {
        free(*matrices);
        *matrices = NULL;
    }
    if (rc != 0) {
        fprintf(stderr, "netsurvey run: the reports were not written: %s\n", e.msg);
        return false;
    }
    return true;
}

static void
run_published(void *arg, const struct history_published *p)
{
    (void)arg;
    printf("published %s into the database: %llu trials (%llu ok)%s\n", p->run_id,
           (unsigned long long)p->trials, (unsigned long long)p->ok,
           p->replaced ? ", replacing the copy before" : "");
}

/* The run into the database (--db), once it has ended: the journal stays the source of truth,
 * and a failure leaves it whole and says how to publish it later. */
static bool
run_publish(const struct run_args *a, const char *dir, const struct survey_run_result *r,
            bool *wanted)
{
    *wanted = a->db != NULL && !r->interrupted && r->ok + r->failed + r->done_before > 0;
    if (!*wanted)
        return false;
    const char *dirs[] = {dir};
    struct history_publish_opts o = {
        .db = a->db, .dirs = dirs, .ndirs = 1, .warn = stderr, .done = run_published};
    struct history_publish_result pr;
    struct err e = {0};
    if (history_publish(&o, &pr, &e) != 0) {
        fprintf(stderr,
                "netsurvey run: the run was not published: %s\n"
                "netsurvey run: %s is whole; publish it later: netsurvey publish %s --db URL\n",
                e.msg, dir, dir);
        return false;
    }
    return true;
}

static int
run_exit_status(const struct survey_run_result *r, bool rendered)
{
    if (r->interrupted)
        return atomic_load(&run_interrupted) == SIGTERM ? CLI_RUN_TERMINATED : CLI_RUN_INTERRUPTED;
    if (r->failed + r->refused > 0 && r->ok + r->done_before == 0)
        return CLI_RUN_NOTHING;
    if (!rendered)
        return CLI_RUN_REPORTS;
    return r->failed + r->refused == 0 ? CLI_RUN_OK : CLI_RUN_SOME_FAILED;
}

static int
run_result(const struct run_args *a, const char *dir, int rc, const struct err *e,
           const struct survey_run_result *r)
{
    if (r->torn_bytes > 0)
        fprintf(stderr, "netsurvey run: warning: dropped a torn last line (%zu bytes) of %s\n",
                r->torn_bytes, dir);
    if (r->bad_lines > 0)
        fprintf(stderr, "netsurvey run: warning: %zu unreadable line%s in %s/%s\n", r->bad_lines,
                r->bad_lines == 1 ? "" : "s", dir, JOURNAL_RESULTS_FILE);
    if (rc != 0) {
        fprintf(stderr, "netsurvey run: %s\n", e->msg);
        run_lines(stderr, r->plan_diff);
        if (r->ok + r->failed + r->unrecorded > 0)
            run_summary(a, dir, r, false, NULL);
        if (r->journal_failed)
            return CLI_RUN_JOURNAL;
        return rc == NS_EBUSY || rc == NS_EINVAL ? CLI_RUN_USAGE : CLI_RUN_NOTHING;
    }
    bool wanted, pub_wanted;
    char *matrices;
    bool rendered = run_render(dir, r, &wanted, &matrices);
    bool published = run_publish(a, dir, r, &pub_wanted);
    run_summary(a, dir, r, rendered, matrices);
    free(matrices);
    if (r->interrupted)
        fprintf(stderr, "netsurvey run: %s\n",
                atomic_load(&run_interrupted) == SIGTERM ? "terminated" : "interrupted");
    int status = run_exit_status(r, rendered || !wanted);
    /* the survey's own statuses first: an interrupt, nothing run, the reports */
    if (pub_wanted && !published && (status == CLI_RUN_OK || status == CLI_RUN_SOME_FAILED))
        status = CLI_RUN_PUBLISH;
    return status;
}

/* --- the run ------------------------------------------------------------------------------ */

static int
run_with_plan(const struct run_args *a, struct plan *p, int argc, char **argv)
{
    char dir[PATH_MAX], command[4096], stamp[32];
    struct cli_nsperf n;
    if (cli_find_nsperf(&cli_run, p, a->nsperf, &a->nsperf_remote, &n) != 0)
        return CLI_RUN_USAGE;
    struct err de = {0};
    if (a->db != NULL && history_db_check(a->db, &de) != 0) { /* before hours of survey */
        if (de.code == NS_EINVAL)
            return cli_usage_error(&cli_run, "--db: %s", de.msg);
        fprintf(stderr, "netsurvey run: %s: nothing run\n", de.msg);
        return CLI_RUN_PUBLISH;
    }
    clock_wall_stamp_ms(stamp, sizeof stamp);
    const char *tmpl = a->resume != NULL ? a->resume
                       : a->out != NULL  ? a->out
                                         : plan_output_template(p);
    char why[200];
    if (a->resume == NULL && plan_output_template_check(tmpl, why, sizeof why) != 0) {
        /* the plan's own template was checked with the plan, so this is -o's */
        fprintf(stderr, "netsurvey run: -o %s: %s\n", tmpl, why);
        return CLI_RUN_USAGE;
    }
    if (survey_expand_dir(tmpl, plan_name(p), stamp, dir, sizeof dir) >= sizeof dir) {
        fprintf(stderr, "netsurvey run: run directory name too long\n");
        return CLI_RUN_USAGE;
    }
    run_command_text(argc, argv, command, sizeof command);
    struct run_view view = {.verbosity = a->verbosity, .tty = isatty(STDERR_FILENO) == 1};
    struct survey_run_opts o = {
        .plan = p,
        .command = command,
        .nsperf = n.local,
        .nsperf_remote = n.ssh ? n.builds : NULL,
        .accept_new_host_keys = a->accept_new_host_keys,
        .dir = dir,
        .unique_dir = a->resume == NULL && strstr(tmpl, "{timestamp}") != NULL,
        .resume = a->resume != NULL,
        .force = a->force,
        .retries = plan_retries(p),
        .margin_s = run_margin(),
        .progress = run_progress,
        .progress_arg = &view,
        .interrupted = &run_interrupted,
    };
    cli_catch_signals(on_signal);
    struct survey_run_result r;
    struct err e = {0};
    int rc = survey_run(&o, &r, &e);
    int status = run_result(a, r.dir, rc, &e, &r);
    survey_run_result_release(&r);
    return status;
}

static int
run_main(int argc, char **argv)
{
    struct run_args a = {.verbosity = RUN_NORMAL};
    int rc = cli_parse_plan(&cli_run, argc, argv, &a, &a.plan);
    if (rc != CLI_GO_ON)
        return rc;
    if (a.force && a.resume == NULL)
        return cli_usage_error(&cli_run, "--force goes with --resume");
    if (a.out != NULL && a.resume != NULL)
        return cli_usage_error(&cli_run, "give -o DIR or --resume DIR, not both");
    struct plan *p = NULL;
    rc = cli_plan_load(&cli_run, a.plan, a.resume, &p);
    if (rc != 0)
        return rc == NS_ENOMEM ? CLI_RUN_NOTHING : CLI_RUN_USAGE;
    rc = run_with_plan(&a, p, argc, argv);
    plan_free(p);
    return rc;
}

const struct cli_command cli_run = {
    .name = "run",
    .synopsis = "[PLAN] [-o DIR] [--resume DIR [--force]] [-q|-v] [--nsperf PATH] "
                "[--nsperf-remote PATH] [--accept-new-host-keys] [--db URL]",
    .summary = "run the survey: every test of the plan's schedule, each trial journaled in DIR",
    .details = "Progress: on a terminal one live status line on stderr, otherwise one line per "
               "finished test on stdout. At the end: the counts, each failure, the zone matrix of "
               "each scenario (mean and 95 % CI half-width of its trials), the run directory and "
               "the commands that resume and report the run; the reports are written into the run "
               "directory.\n" CLI_PLAN_HELP,
    CLI_OPTS(run_opts),
    CLI_EXITS(RUN),
    .usage = CLI_RUN_USAGE,
    .main = run_main,
};
