/* cmd_run.c - `netsurvey run`: arguments, the plan, signals, the end summary, the exit status.
 * The work is survey_run() (run.c). */
#include "survey/cmd_run.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/errors.h"
#include "common/units.h"
#include "journal/journal.h"
#include "plan/plan.h"
#include "plan/schedule.h"
#include "survey/run.h"

#define RUN_DEFAULT_PLAN_NAME "built-in:localhost.yaml"
#define RUN_MARGIN_ENV "NETSURVEY_DEADLINE_MARGIN"

/* Read by the runner's threads: a lock-free atomic, which a signal handler may also store. */
static atomic_int run_interrupted;

static void
on_signal(int sig)
{
    (void)sig;
    int saved = errno;
    atomic_store(&run_interrupted, 1);
    errno = saved;
}

struct run_args {
    const char *plan;
    const char *out;
    const char *resume;
    const char *nsperf;
    const char *nsperf_remote;
    bool force;
    bool accept_new_host_keys;
    enum survey_verbosity verbosity;
};

static void
run_usage(FILE *out)
{
    fprintf(
        out,
        "usage: netsurvey run [PLAN] [-o DIR] [--resume DIR [--force]] [-q|-v] [--nsperf PATH]\n"
        "                     [--nsperf-remote PATH] [--accept-new-host-keys]\n"
        "run the survey: every test of the plan's schedule, each trial journaled in DIR\n\n"
        "  -o, --output DIR   run directory ({name}, {timestamp} expanded; default: the\n"
        "                     plan's output); never one that is not empty\n"
        "  --resume DIR       continue the run in DIR: keep its ok trials, redo the rest;\n"
        "                     without PLAN, with the plan recorded in DIR/run.json\n"
        "  --force            resume even though the plan changed since the run started\n"
        "  -q, --quiet        print only errors and the end summary\n"
        "  -v, --verbose      also print every command run on a host\n"
        "  --nsperf PATH      the nsperf run on `transport: local` hosts (default: beside\n"
        "                     netsurvey, else in PATH)\n"
        "  --nsperf-remote PATH  the statically linked nsperf deployed to ssh hosts (default:\n"
        "                     nsperf-static beside netsurvey; build it with\n"
        "                     `cmake --workflow --preset static`)\n"
        "  --accept-new-host-keys  record the key of an ssh host missing from known_hosts\n"
        "                     (trust on first use); a changed key is still refused\n\n"
        "PLAN is a YAML plan, '-' for standard input, none for the built-in default.\n"
        "exit status: 0 every trial ok; 1 some trials failed (the rest completed);\n"
        "2 plan or usage error (nothing contacted); 3 nothing could run; 130 interrupted.\n");
}

enum { OPT_RESUME = 256, OPT_FORCE, OPT_NSPERF, OPT_NSPERF_REMOTE, OPT_ACCEPT_NEW };

static int
run_parse(int argc, char **argv, struct run_args *a)
{
    static const struct option lo[] = {
        {"output", required_argument, NULL, 'o'},
        {"resume", required_argument, NULL, OPT_RESUME},
        {"force", no_argument, NULL, OPT_FORCE},
        {"quiet", no_argument, NULL, 'q'},
        {"verbose", no_argument, NULL, 'v'},
        {"nsperf", required_argument, NULL, OPT_NSPERF},
        {"nsperf-remote", required_argument, NULL, OPT_NSPERF_REMOTE},
        {"accept-new-host-keys", no_argument, NULL, OPT_ACCEPT_NEW},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    int ch;
    opterr = 0;
    optind = 1;
    while ((ch = getopt_long(argc, argv, "o:qvh", lo, NULL)) != -1) {
        switch (ch) {
        case 'o':
            a->out = optarg;
            break;
        case OPT_RESUME:
            a->resume = optarg;
            break;
        case OPT_FORCE:
            a->force = true;
            break;
        case 'q':
            a->verbosity = SURVEY_QUIET;
            break;
        case 'v':
            a->verbosity = SURVEY_VERBOSE;
            break;
        case OPT_NSPERF:
            a->nsperf = optarg;
            break;
        case OPT_NSPERF_REMOTE:
            a->nsperf_remote = optarg;
            break;
        case OPT_ACCEPT_NEW:
            a->accept_new_host_keys = true;
            break;
        case 'h':
            run_usage(stdout);
            return EXIT_SUCCESS;
        default:
            fprintf(stderr, "netsurvey run: unknown option or missing value '%s'\n",
                    argv[optind - 1]);
            run_usage(stderr);
            return SURVEY_EXIT_USAGE;
        }
    }
    const char *bad = NULL;
    if (argc - optind > 1)
        bad = "too many arguments";
    else if (a->force && a->resume == NULL)
        bad = "--force goes with --resume";
    else if (a->out != NULL && a->resume != NULL)
        bad = "give -o DIR or --resume DIR, not both";
    if (bad != NULL) {
        fprintf(stderr, "netsurvey run: %s\n", bad);
        run_usage(stderr);
        return SURVEY_EXIT_USAGE;
    }
    a->plan = optind < argc ? argv[optind] : NULL;
    return -1;
}

/* The plan a run started with, from its run.json ("plan": {"file", "source"}): `--resume DIR`
 * without PLAN continues with exactly that plan, so the sha256 check passes by construction. */
static int
run_load_recorded_plan(const char *dir, struct plan **out, struct plan_diags *d)
{
    struct journal_run *run = NULL;
    struct err e = {0};
    int rc = journal_read_run(dir, &run, &e);
    if (rc != 0) {
        fprintf(stderr, "netsurvey run: cannot resume %s: %s\n", dir, e.msg);
        return rc;
    }
    if (run->plan_source == NULL) {
        fprintf(stderr,
                "netsurvey run: cannot resume %s: %s/%s records no plan source; give PLAN\n", dir,
                dir, JOURNAL_RUN_FILE);
        rc = NS_EPARSE;
    } else {
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/%s", dir, JOURNAL_RUN_FILE);
        rc = plan_load_buffer(run->plan_file != NULL ? run->plan_file : path, run->plan_source,
                              run->plan_source_len, out, d);
    }
    journal_run_free(run);
    return rc;
}

static int
run_load_plan(const char *arg, const char *resume, struct plan **out)
{
    struct plan_diags *d = plan_diags_new();
    if (d == NULL)
        return SURVEY_EXIT_NOTHING;
    int rc;
    if (arg == NULL && resume != NULL) {
        rc = run_load_recorded_plan(resume, out, d);
    } else if (arg == NULL) {
        size_t len;
        const char *yaml = plan_default_yaml(&len);
        rc = plan_load_buffer(RUN_DEFAULT_PLAN_NAME, yaml, len, out, d);
    } else {
        rc = plan_load_file(strcmp(arg, "-") == 0 ? "/dev/stdin" : arg, out, d);
    }
    plan_diags_write(d, stderr);
    plan_diags_free(d);
    return rc == 0 ? -1 : SURVEY_EXIT_USAGE;
}

static bool
run_is_program(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* --nsperf, else the nsperf beside this executable, else the first in PATH. */
static int
run_find_nsperf(const char *given, char *buf, size_t len)
{
    if (given != NULL) {
        snprintf(buf, len, "%s", given);
        return run_is_program(buf) ? 0 : -1;
    }
    char self[PATH_MAX - 16]; /* room for "/nsperf" in buf */
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n > 0) {
        self[n] = '\0';
        char *slash = strrchr(self, '/');
        if (slash != NULL) {
            *slash = '\0';
            snprintf(buf, len, "%s/nsperf", self);
            if (run_is_program(buf))
                return 0;
        }
    }
    const char *path = getenv("PATH");
    while (path != NULL && *path != '\0') {
        size_t seg = strcspn(path, ":");
        snprintf(buf, len, "%.*s/nsperf", (int)seg, path);
        if (seg > 0 && run_is_program(buf))
            return 0;
        path += seg + (path[seg] == ':');
    }
    snprintf(buf, len, "nsperf");
    return -1;
}

static bool
run_has_ssh_host(const struct plan *p)
{
    for (size_t i = 0; i < plan_host_count(p); i++)
        if (plan_host(p, i)->transport != PLAN_TRANSPORT_LOCAL)
            return true;
    return false;
}

/* --nsperf-remote, else nsperf-static beside this executable. No guess further: an ssh host
 * needs a statically linked nsperf, and the deploy refuses any other. */
static int
run_find_nsperf_remote(const char *given, char *buf, size_t len)
{
    if (given != NULL) {
        snprintf(buf, len, "%s", given);
        return run_is_program(buf) ? 0 : -1;
    }
    char self[PATH_MAX - 16]; /* room for "/nsperf-static" in buf */
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    char *slash = n > 0 ? (self[n] = '\0', strrchr(self, '/')) : NULL;
    if (slash == NULL) {
        snprintf(buf, len, "nsperf-static");
        return -1;
    }
    *slash = '\0';
    snprintf(buf, len, "%s/nsperf-static", self);
    return run_is_program(buf) ? 0 : -1;
}

static void
run_command_text(int argc, char **argv, char *buf, size_t len)
{
    size_t used = (size_t)snprintf(buf, len, "netsurvey");
    for (int i = 0; i < argc && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, " %s", argv[i]);
}

static void
run_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal; /* no SA_RESTART: the waits wake up */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
}

static void
run_summary(const struct run_args *a, const char *dir, const struct survey_run_result *r,
            bool rendered)
{
    char el[32];
    printf("\nrun directory: %s\n", dir);
    printf("trials: %llu ok, %llu failed this run", (unsigned long long)r->ok,
           (unsigned long long)r->failed);
    if (r->done_before > 0)
        printf(", %llu ok from before", (unsigned long long)r->done_before);
    if (r->not_run > 0)
        printf(", %llu not run", (unsigned long long)r->not_run);
    printf(" (%llu in the plan), %s\n", (unsigned long long)r->tests,
           schedule_format_duration(r->elapsed_s, el, sizeof el));
    for (size_t i = 0; i < r->nfailures; i++)
        printf("  failed: %s\n", r->failures[i].text);
    if (r->interrupted || r->failed > 0)
        printf("resume:  netsurvey run%s%s --resume %s\n", a->plan != NULL ? " " : "",
               a->plan != NULL ? a->plan : "", dir);
    if (rendered)
        printf("report:  %s/report.md, %s/report.html (rebuild: netsurvey report %s)\n", dir, dir,
               dir);
    else
        printf("report:  netsurvey report %s\n", dir);
    fflush(stdout);
}

/* The reports, once the journal holds the whole run (not after an interrupt: the resume
 * renders them). The journal is complete either way, so a failure here is only reported. */
static bool
run_render(survey_render_fn render, const char *dir, const struct survey_run_result *r)
{
    if (render == NULL || r->interrupted || r->ok + r->failed + r->done_before == 0)
        return false;
    struct err e = {0};
    if (render(dir, &e) != 0) {
        fprintf(stderr, "netsurvey run: the reports were not written: %s\n", e.msg);
        return false;
    }
    return true;
}

static int
run_exit_status(const struct survey_run_result *r)
{
    if (r->interrupted)
        return SURVEY_EXIT_INTERRUPTED;
    if (r->failed == 0)
        return EXIT_SUCCESS;
    return r->ok + r->done_before == 0 ? SURVEY_EXIT_NOTHING : SURVEY_EXIT_SOME_FAILED;
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

static int
run_with_plan(const struct run_args *a, struct plan *p, int argc, char **argv,
              survey_render_fn render)
{
    char nsperf[PATH_MAX], remote[PATH_MAX], dir[PATH_MAX], command[4096], stamp[32];
    if (run_find_nsperf(a->nsperf, nsperf, sizeof nsperf) != 0) {
        fprintf(stderr, "netsurvey run: no executable nsperf at '%s' (give --nsperf PATH)\n",
                nsperf);
        return SURVEY_EXIT_USAGE;
    }
    bool ssh = run_has_ssh_host(p);
    if (ssh && run_find_nsperf_remote(a->nsperf_remote, remote, sizeof remote) != 0) {
        fprintf(stderr,
                "netsurvey run: the plan has ssh hosts and there is no executable static nsperf "
                "at '%s'\n  build one with `cmake --workflow --preset static` and give it with "
                "--nsperf-remote PATH\n",
                remote);
        return SURVEY_EXIT_USAGE;
    }
    clock_wall_stamp(stamp, sizeof stamp);
    const char *tmpl = a->resume != NULL ? a->resume
                       : a->out != NULL  ? a->out
                                         : plan_output_template(p);
    if (survey_expand_dir(tmpl, plan_name(p), stamp, dir, sizeof dir) >= sizeof dir) {
        fprintf(stderr, "netsurvey run: run directory name too long\n");
        return SURVEY_EXIT_USAGE;
    }
    run_command_text(argc, argv, command, sizeof command);
    struct survey_run_opts o = {
        .plan = p,
        .plan_arg = a->plan,
        .command = command,
        .nsperf = nsperf,
        .nsperf_remote = ssh ? remote : NULL,
        .accept_new_host_keys = a->accept_new_host_keys,
        .dir = dir,
        .resume = a->resume != NULL,
        .force = a->force,
        .retries = plan_retries(p),
        .margin_s = run_margin(),
        .verbosity = a->verbosity,
        .tty = isatty(STDERR_FILENO) == 1,
        .interrupted = &run_interrupted,
    };
    run_signals();
    struct survey_run_result r;
    struct err e = {0};
    int rc = survey_run(&o, &r, &e);
    if (r.torn_bytes > 0)
        fprintf(stderr, "netsurvey run: warning: dropped a torn last line (%zu bytes) of %s\n",
                r.torn_bytes, dir);
    if (r.bad_lines > 0)
        fprintf(stderr, "netsurvey run: warning: %zu unreadable line%s in %s/%s\n", r.bad_lines,
                r.bad_lines == 1 ? "" : "s", dir, JOURNAL_RESULTS_FILE);
    int status;
    if (rc != 0) {
        fprintf(stderr, "netsurvey run: %s\n", e.msg);
        status = rc == NS_EBUSY || rc == NS_EINVAL ? SURVEY_EXIT_USAGE : SURVEY_EXIT_NOTHING;
        if (r.ok + r.failed > 0)
            run_summary(a, dir, &r, false);
    } else {
        run_summary(a, dir, &r, run_render(render, dir, &r));
        status = run_exit_status(&r);
        if (r.interrupted)
            fprintf(stderr, "netsurvey run: interrupted\n");
    }
    survey_run_result_release(&r);
    return status;
}

int
survey_cmd_run(int argc, char **argv, survey_render_fn render)
{
    struct run_args a = {.verbosity = SURVEY_NORMAL};
    int rc = run_parse(argc, argv, &a);
    if (rc >= 0)
        return rc;
    struct plan *p = NULL;
    rc = run_load_plan(a.plan, a.resume, &p);
    if (rc >= 0)
        return rc;
    rc = run_with_plan(&a, p, argc, argv, render);
    plan_free(p);
    return rc;
}
