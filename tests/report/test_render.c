/* test_render.c - what `netsurvey report` does with a run directory beyond the figures: a
 * rebuild owns its outputs (what the previous build made and this one does not is removed,
 * nothing else, whatever the manifest says; a build stopped half way is cleaned up), journals
 * are read strictly (refused records stop it, --lenient lists them; every line passed over is
 * in the report), merges pool runs of one plan and refuse scenarios that differ or one run given
 * twice, a scenario without an ok trial gets no chart and no gnuplot run, a run still
 * going or incomplete is said in the title and the exit status (adaptive trials: a run whose
 * every pair the rule decided is complete, one with undecided pairs is not and names them, in
 * the report and in trend), and each exit status of
 * cli_exit.h's report table is reached. Journals are the fixtures' (tests/fixtures/journals),
 * copied into a temporary directory and changed there, or (adaptive trials) built here. */
#include <dirent.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>
#include <cmocka.h>

#include "cli/cli.h"
#include "common/errors.h"
#include "report/report.h"

#include "helpers.h"

#define A(s) ((char *)(uintptr_t)(s))

static char *tmp;

static int
setup(void **state)
{
    (void)state;
    tmp = th_tempdir("render");
    setenv("NETSURVEY_GNUPLOT", "/nonexistent/gnuplot", 1); /* the scripts, not gnuplot's svg */
    return tmp == NULL || chdir(tmp) != 0 || freopen("/dev/null", "w", stderr) == NULL;
}

static int
teardown(void **state)
{
    (void)state;
    th_rmtree(tmp);
    free(tmp);
    return 0;
}

/* The fixture journal named from (run.json, results.jsonl) written into tmp/name. */
static void
put_fixture(const char *from, const char *name)
{
    static const char *const files[] = {"run.json", "results.jsonl"};
    for (size_t i = 0; i < 2; i++) {
        char p[4096];
        snprintf(p, sizeof p, "%s/tests/fixtures/journals/%s/%s", th_srcdir(), from, files[i]);
        char *text = th_read(p, NULL);
        assert_non_null(text);
        assert_int_equal(th_write(name, files[i], text), 0);
        free(text);
    }
}

/* tmp/name afresh, holding a copy of the fixture journal named from. */
static void
copy_fixture(const char *from, const char *name)
{
    th_rmtree(name);
    assert_int_equal(mkdir(name, 0755), 0);
    put_fixture(from, name);
}

/* Whether dir holds a build directory (.netsurvey-build-*). */
static bool
has_build_dir(const char *dir)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    struct dirent *de;
    bool found = false;
    while ((de = readdir(d)) != NULL)
        found |= strncmp(de->d_name, ".netsurvey-build-", 17) == 0;
    closedir(d);
    return found;
}

static bool
exists(const char *dir, const char *name)
{
    char p[4096];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    struct stat st;
    return lstat(p, &st) == 0;
}

static char *
read_in(const char *dir, const char *name)
{
    char p[4096];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    char *text = th_read(p, NULL);
    assert_non_null(text);
    return text;
}

static json_t *
summary_of(const char *dir)
{
    char p[4096];
    snprintf(p, sizeof p, "%s/summary.json", dir);
    json_error_t je;
    json_t *s = json_load_file(p, 0, &je);
    if (s == NULL)
        fail_msg("%s: %s", p, je.text);
    return s;
}

static int
render(const char *const *dirs, int n, const char *out, bool lenient, struct report_result *r,
       struct err *e)
{
    return report_render(
        &(struct report_opts){
            .dirs = dirs, .ndirs = n, .out = out, .lenient = lenient, .result = r},
        e);
}

/* `netsurvey report ARGS...` in-process; its exit status. */
static int
report_cmd(const char *a1, const char *a2, const char *a3, const char *a4)
{
    char *argv[6] = {A("report"), A(a1), A(a2), A(a3), A(a4), NULL};
    int argc = 1;
    while (argc < 5 && argv[argc] != NULL)
        argc++;
    return cli_report.main(argc, argv);
}

/* `netsurvey report ARGS... NULL` in-process; its exit status. */
static int
report_cmdv(const char *a1, ...)
{
    char *argv[16] = {A("report"), A(a1)};
    int argc = 2;
    va_list ap;
    va_start(ap, a1);
    for (const char *x; argc < 15 && (x = va_arg(ap, const char *)) != NULL;)
        argv[argc++] = A(x);
    va_end(ap);
    argv[argc] = NULL;
    return cli_report.main(argc, argv);
}

/* The manifest's names, one a line, as one string ("a\nb\n"), its comment left out. */
static char *
manifest(const char *dir)
{
    char *text = read_in(dir, ".netsurvey-outputs");
    char *out = calloc(1, strlen(text) + 1);
    for (char *line = strtok(text, "\n"); line != NULL; line = strtok(NULL, "\n"))
        if (line[0] != '#')
            strcat(strcat(out, line), "\n");
    free(text);
    return out;
}

/* --- a rebuild owns its outputs ------------------------------------------------------------ */

static void
test_rebuild_removes_what_it_no_longer_makes(void **state)
{
    (void)state;
    copy_fixture("basic", "rb");
    assert_int_equal(th_write("rb", "notes.txt", "mine\n"), 0);
    assert_int_equal(report_cmd("rb", NULL, NULL, NULL), CLI_REPORT_OK);
    assert_true(exists("rb", "matrix-throughput.csv"));
    assert_true(exists("rb", "charts/bars-throughput.gp"));
    assert_true(exists("rb", "charts/heatmap-latency.dat"));
    char *m = manifest("rb");
    assert_non_null(strstr(m, "matrix-throughput.csv\n"));
    assert_non_null(strstr(m, "charts/bars-throughput.gp\n"));
    assert_non_null(strstr(m, "report.html\n"));
    assert_null(strstr(m, "notes.txt"));
    assert_null(strstr(m, "run.json"));
    free(m);
    /* the plan now has the latency scenario alone, and no trial of it is recorded */
    json_t *run = json_load_file("rb/run.json", 0, NULL);
    json_array_remove(json_object_get(run, "scenarios"), 1);
    json_array_remove(json_object_get(run, "scenarios"), 1);
    json_array_remove(json_object_get(run, "scenarios"), 1);
    assert_int_equal(json_dump_file(run, "rb/run.json", 0), 0);
    json_decref(run);
    assert_int_equal(th_write("rb", "results.jsonl", ""), 0);
    assert_int_equal(th_write("rb", "charts/mine.txt", "also mine\n"), 0);
    assert_int_equal(report_cmd("rb", NULL, NULL, NULL), CLI_REPORT_INCOMPLETE);
    assert_false(exists("rb", "matrix-throughput.csv"));
    assert_false(exists("rb", "matrix-crr.csv"));
    assert_false(exists("rb", "charts/bars-throughput.gp"));
    assert_false(exists("rb", "charts/heatmap-latency.dat")); /* nothing of it to draw */
    assert_true(exists("rb", "matrix-latency.csv"));
    assert_true(exists("rb", "summary.json"));
    assert_true(exists("rb", "notes.txt"));
    assert_true(exists("rb", "charts/mine.txt")); /* and so charts/ stays */
    assert_true(exists("rb", "run.json"));
    assert_true(exists("rb", "results.jsonl"));
    m = manifest("rb");
    /* the stat matrices of a scenario with nothing recorded are empty, as its matrix is */
    assert_string_equal(m, "matrix-latency-p50.csv\nmatrix-latency-p99.csv\nmatrix-latency.csv\n"
                           "summary.json\nreport.html\nreport.md\n");
    free(m);
    /* the manifest lists exactly the outputs: nothing else but ours and the journal is there */
    char *md = read_in("rb", "report.md");
    assert_non_null(strstr(md, "# netsurvey report: westus3-zones (incomplete: 36 of 36 planned "
                               "trials not run)"));
    assert_non_null(strstr(md, "No trial of this scenario was recorded."));
    free(md);
    /* the journal back: the charts return, and without anything of ours left in charts/ the
     * next build that makes none removes the directory */
    unlink("rb/charts/mine.txt");
    put_fixture("allfailed", "rb");
    assert_int_equal(report_cmd("rb", NULL, NULL, NULL), CLI_REPORT_OK);
    assert_false(exists("rb", "charts"));
    assert_true(exists("rb", "notes.txt"));
}

/* Whatever a manifest says, a rebuild removes only what a report may have written. */
static void
test_manifest_names_nothing_else(void **state)
{
    (void)state;
    copy_fixture("hostile", "mf");
    assert_int_equal(mkdir("mf/sub", 0755), 0);
    static const char *const victims[] = {"mf/sub/x", "mf/.hidden", "victim", "mf/charts-x"};
    for (size_t i = 0; i < sizeof victims / sizeof victims[0]; i++) {
        FILE *f = fopen(victims[i], "w");
        assert_non_null(f);
        fclose(f);
    }
    char absolute[4096];
    snprintf(absolute, sizeof absolute, "%s/victim", tmp);
    char text[8192];
    snprintf(
        text, sizeof text,
        "# crafted\nrun.json\nresults.jsonl\n../victim\n%s\nsub/x\n.hidden\ncharts/../run.json\n"
        "charts/.x\ncharts-x/\n\n",
        absolute);
    assert_int_equal(th_write("mf", ".netsurvey-outputs", text), 0);
    assert_int_equal(report_cmd("mf", NULL, NULL, NULL), CLI_REPORT_OK);
    for (size_t i = 0; i < sizeof victims / sizeof victims[0]; i++)
        assert_true(exists(".", victims[i]));
    assert_true(exists("mf", "run.json"));
    assert_true(exists("mf", "results.jsonl"));
}

/* A build stopped before it was moved into place (killed) is removed by the next one; the
 * outputs in place stay the last whole build's. */
static void
test_stopped_build_cleaned(void **state)
{
    (void)state;
    copy_fixture("hostile", "sb");
    assert_int_equal(report_cmd("sb", NULL, NULL, NULL), CLI_REPORT_OK);
    char *before = read_in("sb", "report.md");
    assert_int_equal(mkdir("sb/.netsurvey-build-AbC123", 0755), 0);
    assert_int_equal(mkdir("sb/.netsurvey-build-AbC123/charts", 0755), 0);
    assert_int_equal(th_write("sb/.netsurvey-build-AbC123", "report.md", "half"), 0);
    assert_int_equal(th_write("sb/.netsurvey-build-AbC123/charts", "x.gp", "half"), 0);
    assert_int_equal(report_cmd("sb", NULL, NULL, NULL), CLI_REPORT_OK);
    assert_false(has_build_dir("sb"));
    char *after = read_in("sb", "report.md");
    assert_string_equal(before, after);
    free(before);
    free(after);
}

/* Outputs that cannot be written: exit 3, not 1 (the journal was read). */
static void
test_unwritable_outputs(void **state)
{
    (void)state;
    copy_fixture("hostile", "uw");
    assert_int_equal(th_write(".", "a-file", "x"), 0);
    assert_int_equal(report_cmd("uw", "-o", "a-file/out", NULL), CLI_REPORT_UNWRITTEN);
    /* a template that does not render: the reports are not written, the old ones stay */
    assert_int_equal(report_cmd("uw", NULL, NULL, NULL), CLI_REPORT_OK);
    char *before = read_in("uw", "report.md");
    assert_int_equal(mkdir("tmpl", 0755), 0);
    assert_int_equal(th_write("tmpl", "report.md", "{{#open}} never closed\n"), 0);
    setenv("NETSURVEY_TEMPLATES", "tmpl", 1);
    assert_int_equal(report_cmd("uw", NULL, NULL, NULL), CLI_REPORT_UNWRITTEN);
    unsetenv("NETSURVEY_TEMPLATES");
    char *after = read_in("uw", "report.md");
    assert_string_equal(before, after);
    free(before);
    free(after);
    assert_false(has_build_dir("uw"));
}

/* Outputs never destroy inputs: a merge into another run's directory (or into one of its own
 * runs') is refused before anything is written, a missing run directory is said and not made,
 * and -o's missing parents are made, as --help says. */
static void
test_outputs_never_inputs(void **state)
{
    (void)state;
    copy_fixture("pooled-a", "oa");
    copy_fixture("pooled-b", "ob");
    copy_fixture("basic", "oc");
    assert_int_equal(report_cmd("oc", NULL, NULL, NULL), CLI_REPORT_OK);
    char *before = read_in("oc", "report.md");
    assert_int_equal(report_cmdv("oa", "ob", "-o", "oc", NULL), CLI_REPORT_USAGE);
    assert_int_equal(report_cmdv("oa", "ob", "-o", "oa", NULL), CLI_REPORT_USAGE);
    assert_int_equal(report_cmdv("oa", "-o", "oc", NULL), CLI_REPORT_USAGE);
    char *after = read_in("oc", "report.md");
    assert_string_equal(before, after);
    free(before);
    free(after);
    assert_false(exists("oa", "report.md"));
    /* a run into its own directory, through another spelling of its path */
    assert_int_equal(report_cmdv("oa", "-o", "./oa/", NULL), CLI_REPORT_OK);
    /* a missing run directory: said, nothing made (neither it nor -o's) */
    th_rmtree("no-run");
    assert_int_equal(report_cmd("no-run", NULL, NULL, NULL), CLI_REPORT_FAILED);
    assert_false(exists(".", "no-run"));
    assert_int_equal(report_cmdv("oa", "no-run", "-o", "merged-x", NULL), CLI_REPORT_FAILED);
    assert_false(exists(".", "merged-x"));
    assert_int_equal(mkdir("empty", 0755), 0);
    assert_int_equal(report_cmd("empty", NULL, NULL, NULL), CLI_REPORT_FAILED);
    assert_false(exists("empty", "report.md"));
    /* -o's missing parents are made */
    th_rmtree("deep");
    assert_int_equal(report_cmdv("oa", "-o", "deep/new/dir", NULL), CLI_REPORT_OK);
    assert_true(exists("deep/new/dir", "report.md"));
}

/* --- charts -------------------------------------------------------------------------------- */

/* A gnuplot that logs the script it is given and writes an empty SVG where the script says. */
static void
put_logging_gnuplot(void)
{
    char text[8192];
    snprintf(text, sizeof text,
             "#!/bin/sh\n"
             "echo \"$1\" >>%s/gnuplot.log\n"
             "out=$(sed -n 's/^set output \"\\(.*\\)\"$/\\1/p' \"$1\")\n"
             "printf '<svg/>' >\"$out\"\n",
             tmp);
    assert_int_equal(th_write(".", "gnuplot-log", text), 0);
    assert_int_equal(chmod("gnuplot-log", 0755), 0);
    char gp[4096];
    snprintf(gp, sizeof gp, "%s/gnuplot-log", tmp);
    setenv("NETSURVEY_GNUPLOT", gp, 1);
    unlink("gnuplot.log");
}

/* NETSURVEY_GNUPLOT naming a program rather than a path: looked up on PATH, as a shell would
 * (it said gnuplot "was not found"); a name that is no program on PATH is said as such. */
static void
test_gnuplot_by_name(void **state)
{
    (void)state;
    put_logging_gnuplot(); /* tmp/gnuplot-log; the name alone is looked up in tmp/gpbin */
    assert_int_equal(mkdir("gpbin", 0755), 0);
    assert_int_equal(rename("gnuplot-log", "gpbin/gnuplot-log"), 0);
    const char *old = getenv("PATH");
    char path[8192];
    snprintf(path, sizeof path, "%s/gpbin:%s", tmp, old != NULL ? old : "/usr/bin:/bin");
    char *saved = old != NULL ? strdup(old) : NULL;
    setenv("PATH", path, 1);
    setenv("NETSURVEY_GNUPLOT", "gnuplot-log", 1);
    copy_fixture("pooled-a", "gn");
    assert_int_equal(report_cmd("gn", NULL, NULL, NULL), CLI_REPORT_OK);
    char *log = read_in(".", "gnuplot.log");
    assert_non_null(strstr(log, "bars-latency.gp\n"));
    free(log);
    assert_true(exists("gn", "charts/bars-latency.svg"));
    setenv("NETSURVEY_GNUPLOT", "no-such-gnuplot-here", 1);
    assert_int_equal(report_cmd("gn", NULL, NULL, NULL), CLI_REPORT_OK);
    char *md = read_in("gn", "report.md");
    assert_non_null(strstr(md, "Charts were skipped: NETSURVEY_GNUPLOT names "
                               "'no-such-gnuplot-here', which is no program on PATH"));
    free(md);
    if (saved != NULL)
        setenv("PATH", saved, 1);
    free(saved);
    unsetenv("NETSURVEY_GNUPLOT");
}

/* Each ok record of scenario in dir's results.jsonl made a failure (its result stays). */
static void
fail_scenario(const char *dir, const char *scenario)
{
    static const char ok[] = "\"status\":\"ok\",\"error\":null";
    static const char failed[] = "\"status\":\"failed\",\"error\":\"made to fail\"";
    char *text = read_in(dir, "results.jsonl");
    char name[256];
    snprintf(name, sizeof name, "\"scenario\":{\"name\":\"%s\"", scenario);
    struct {
        char *data;
        size_t len, cap;
    } out = {calloc(1, strlen(text) * 2 + 1), 0, strlen(text) * 2 + 1};
    assert_non_null(out.data);
    size_t changed = 0;
    for (char *line = strtok(text, "\n"); line != NULL; line = strtok(NULL, "\n")) {
        char *at = strstr(line, ok);
        if (strstr(line, name) != NULL && at != NULL) {
            out.len += (size_t)snprintf(out.data + out.len, out.cap - out.len, "%.*s%s%s\n",
                                        (int)(at - line), line, failed, at + strlen(ok));
            changed++;
        } else {
            out.len += (size_t)snprintf(out.data + out.len, out.cap - out.len, "%s\n", line);
        }
    }
    assert_true(changed > 0);
    assert_int_equal(th_write(dir, "results.jsonl", out.data), 0);
    free(out.data);
    free(text);
}

/* A scenario without an ok trial gets no chart and gnuplot is not run for it; the others' charts
 * are drawn as usual (so the logging gnuplot is the one used). */
static void
test_no_chart_without_ok_trials(void **state)
{
    (void)state;
    put_logging_gnuplot();
    copy_fixture("allfailed", "af");
    assert_int_equal(report_cmd("af", NULL, NULL, NULL), CLI_REPORT_OK);
    assert_false(exists(".", "gnuplot.log"));
    assert_false(exists("af", "charts"));
    char *md = read_in("af", "report.md");
    assert_non_null(strstr(md, "No charts: no trial of this scenario succeeded."));
    assert_null(strstr(md, "could not be drawn"));
    free(md);
    copy_fixture("basic", "mixed");
    fail_scenario("mixed", "udp-loss");
    assert_int_equal(report_cmd("mixed", NULL, NULL, NULL), CLI_REPORT_OK);
    char *log = read_in(".", "gnuplot.log");
    assert_non_null(strstr(log, "bars-latency.gp\n"));
    assert_non_null(strstr(log, "bars-throughput.gp\n"));
    assert_null(strstr(log, "udp-loss"));
    assert_null(strstr(log, "udp_loss"));
    free(log);
    assert_false(exists("mixed", "charts/bars-udp-loss.gp"));
    assert_true(exists("mixed", "charts/bars-latency.svg"));
    md = read_in("mixed", "report.md");
    assert_non_null(strstr(md, "No charts: no trial of this scenario succeeded."));
    assert_null(strstr(md, "could not be drawn"));
    free(md);
    json_t *sum = summary_of("mixed");
    const json_t *udp = json_array_get(json_object_get(sum, "scenarios"), 3);
    assert_string_equal(json_string_value(json_object_get(udp, "name")), "udp-loss");
    assert_int_equal(json_integer_value(json_object_get(json_object_get(udp, "trials"), "ok")), 0);
    json_decref(sum);
    setenv("NETSURVEY_GNUPLOT", "/nonexistent/gnuplot", 1);
}

/* --- strict reading, loud reporting -------------------------------------------------------- */

static void
append_line(const char *dir, const char *line)
{
    char p[4096];
    snprintf(p, sizeof p, "%s/results.jsonl", dir);
    FILE *f = fopen(p, "a");
    assert_non_null(f);
    fputs(line, f);
    fclose(f);
}

/* A line of the fixture's own (its first), with one member's text replaced. */
static char *
first_line_with(const char *dir, const char *from, const char *to)
{
    char *text = read_in(dir, "results.jsonl");
    char *nl = strchr(text, '\n');
    nl[1] = '\0';
    char *at = strstr(text, from);
    assert_non_null(at);
    size_t n = strlen(text) - strlen(from) + strlen(to) + 1;
    char *out = malloc(n);
    snprintf(out, n, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
    free(text);
    return out;
}

static void
test_refused_records_stop_or_are_listed(void **state)
{
    (void)state;
    static const struct {
        const char *from, *to, *why;
    } cases[] = {
        {"\"status\":\"ok\"", "\"status\":\"weird\"",
         "unknown status 'weird' (a trial is ok, failed or not_run)"},
        {"\"schema\":\"netsurvey.trial/1\"", "\"schema\":\"netsurvey.trial/9\"",
         "unsupported schema 'netsurvey.trial/9' (this netsurvey reads netsurvey.trial/1 to "
         "netsurvey.trial/5)"},
        {"\"run_id\":\"20261130T150000Z-0bad\"", "\"run_id\":\"20261201T000000Z-f00d\"",
         "a record of another run ('20261201T000000Z-f00d'; the run is "
         "'20261130T150000Z-0bad')"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        copy_fixture("hostile", "st");
        char *line = first_line_with("st", cases[i].from, cases[i].to);
        append_line("st", line);
        append_line("st", "{\"not\":\"a trial\"}\n");
        free(line);
        const char *dirs[] = {"st"};
        struct report_result r;
        struct err e = {0};
        assert_int_equal(render(dirs, 1, "st", false, &r, &e), NS_EPROTO);
        char want[1024];
        snprintf(want, sizeof want, "st/results.jsonl:5: %s (netsurvey report --lenient",
                 cases[i].why);
        if (strstr(e.msg, want) == NULL)
            fail_msg("%s\nwanted %s", e.msg, want);
        assert_false(r.unwritten);
        assert_false(exists("st", "report.md")); /* nothing written */
        assert_int_equal(report_cmd("st", NULL, NULL, NULL), CLI_REPORT_FAILED);
        /* --lenient: read, and the report lists it beside the line passed over */
        assert_int_equal(report_cmd("st", "--lenient", NULL, NULL), CLI_REPORT_OK);
        char *md = read_in("st", "report.md");
        snprintf(want, sizeof want, "- st/results.jsonl line 5 (refused): %s", cases[i].why);
        char esc[1024]; /* report.md escapes what Markdown would read: the quotes stay */
        snprintf(esc, sizeof esc, "%s", want);
        if (strstr(md, esc) == NULL)
            fail_msg("report.md lacks '%s'", esc);
        assert_non_null(strstr(md, "- st/results.jsonl line 6 (unreadable): not a trial record"));
        free(md);
        char *html = read_in("st", "report.html"); /* the page's section too */
        const char *sec = strstr(html, "<h2>Journal problems</h2>");
        assert_non_null(sec);
        assert_non_null(strstr(sec, "<li>st/results.jsonl line 5 (refused): "));
        assert_non_null(
            strstr(sec, "<li>st/results.jsonl line 6 (unreadable): not a trial record"));
        free(html);
        json_t *sum = summary_of("st");
        const json_t *j = json_object_get(sum, "journal");
        assert_int_equal(json_integer_value(json_object_get(j, "refused_lines")), 1);
        assert_int_equal(json_integer_value(json_object_get(j, "skipped_lines")), 1);
        const json_t *p0 = json_array_get(json_object_get(j, "problems"), 0);
        assert_string_equal(json_string_value(json_object_get(p0, "kind")), "refused");
        assert_int_equal(json_integer_value(json_object_get(p0, "line")), 5);
        assert_string_equal(json_string_value(json_object_get(p0, "why")), cases[i].why);
        /* and its trials are not counted: the two ok of the fixture */
        const json_t *s0 = json_array_get(json_object_get(sum, "scenarios"), 0);
        assert_int_equal(json_integer_value(json_object_get(json_object_get(s0, "trials"), "ok")),
                         2);
        json_decref(sum);
    }
}

/* run.json of a schema this netsurvey does not read: refused by name, whatever --lenient. */
static void
test_run_schema_refused(void **state)
{
    (void)state;
    copy_fixture("hostile", "rs");
    char *text = read_in("rs", "run.json");
    char *at = strstr(text, "netsurvey.run/1");
    assert_non_null(at);
    at[strlen("netsurvey.run/")] = '9';
    assert_int_equal(th_write("rs", "run.json", text), 0);
    free(text);
    const char *dirs[] = {"rs"};
    struct err e = {0};
    assert_int_equal(render(dirs, 1, "rs", true, NULL, &e), NS_EPROTO);
    assert_non_null(strstr(e.msg, "rs/run.json: unsupported schema 'netsurvey.run/9' (this "
                                  "netsurvey reads netsurvey.run/3, netsurvey.run/2 and "
                                  "netsurvey.run/1)"));
    assert_int_equal(report_cmd("rs", "--lenient", NULL, NULL), CLI_REPORT_FAILED);
}

/* Past 100 lines passed over in a run, the report lists 100 and counts the rest. */
static void
test_problems_listed_then_counted(void **state)
{
    (void)state;
    copy_fixture("hostile", "pc");
    for (int i = 0; i < 130; i++)
        append_line("pc", "garbage\n");
    assert_int_equal(report_cmd("pc", NULL, NULL, NULL), CLI_REPORT_OK);
    char *md = read_in("pc", "report.md");
    assert_non_null(strstr(md, "- pc/results.jsonl line 104 (unreadable)"));
    assert_null(strstr(md, "line 105 (unreadable)"));
    assert_non_null(strstr(md, "- pc/results.jsonl: 30 more lines not taken"));
    free(md);
    json_t *sum = summary_of("pc");
    const json_t *j = json_object_get(sum, "journal");
    assert_int_equal(json_array_size(json_object_get(j, "problems")), 100);
    assert_int_equal(json_integer_value(json_object_get(j, "unlisted")), 30);
    assert_int_equal(json_integer_value(json_object_get(j, "skipped_lines")), 130);
    json_decref(sum);
}

/* dir's first journal line, edited by the JSON members of patch (each set; "a.b" sets member b
 * of member a), appended to its journal. */
static void
append_edited(const char *dir, const char *patch)
{
    char *text = read_in(dir, "results.jsonl");
    char *nl = strchr(text, '\n');
    assert_non_null(nl);
    *nl = '\0';
    json_t *rec = json_loads(text, 0, NULL), *p = json_loads(patch, 0, NULL);
    assert_non_null(rec);
    assert_non_null(p);
    const char *k;
    json_t *v;
    json_object_foreach(p, k, v)
    {
        json_t *into = rec;
        const char *dot = strchr(k, '.'), *member = k;
        char top[64];
        if (dot != NULL) { /* k itself stays: json_object_foreach goes on from it */
            snprintf(top, sizeof top, "%.*s", (int)(dot - k), k);
            into = json_object_get(rec, top);
            assert_non_null(into);
            member = dot + 1;
        }
        json_object_set(into, member, v);
    }
    char *line = json_dumps(rec, JSON_COMPACT);
    append_line(dir, line);
    append_line(dir, "\n");
    free(line);
    json_decref(rec);
    json_decref(p);
    free(text);
}

/* Edited or foreign lines are journal problems, listed, never data: values outside their domain
 * (a negative mean, means of ±1e300 that made a stddev infinite, ok without a result, an
 * unknown family), a trial past the plan (it made the report claim more planned), a host and a
 * scenario run.json does not name, a host elsewhere than run.json puts it, and other
 * parameters than run.json's. The figures are the journal's own, as if the lines were not
 * there. */
static void
test_edited_lines_are_problems(void **state)
{
    (void)state;
    copy_fixture("pooled-a", "ed0");
    assert_int_equal(report_cmd("ed0", NULL, NULL, NULL), CLI_REPORT_OK);
    copy_fixture("pooled-a", "ed");
    static const char *const patches[] = {
        "{\"result\":{\"rtt_us\":{\"mean\":-5}}}",
        "{\"result\":{\"rtt_us\":{\"mean\":1e300}}}",
        "{\"result\":{\"rtt_us\":{\"mean\":-1e300}}}",
        "{\"result\":null}",
        "{\"family\":\"ipx\"}",
        "{\"trial\":50}",
        "{\"src.host\":\"ghost\"}",
        "{\"scenario.msg_size\":999}",
        "{\"scenario.name\":\"elsewhere\"}",
        "{\"dst.zone\":\"q\"}",
    };
    static const char *const whys[] = {
        "headline figure -5 out of its domain",
        "headline figure 1e+300 out of its domain",
        "headline figure -1e+300 out of its domain",
        "status ok without a result",
        "unknown family 'ipx'",
        "trial 50 past the plan (2 a host pair in run.json)",
        "host 'ghost' is not in run.json",
        "scenario 'latency' ran msg_size 999 here, 250 in run.json",
        "scenario 'elsewhere' is not in run.json",
        "host 'b1' in zone 'q' of region 'lab', where run.json puts it in 'b' of 'lab'",
    };
    size_t n = sizeof patches / sizeof patches[0];
    for (size_t i = 0; i < n; i++)
        append_edited("ed", patches[i]);
    assert_int_equal(report_cmd("ed", NULL, NULL, NULL), CLI_REPORT_OK);
    json_t *a = summary_of("ed0"), *b = summary_of("ed");
    const json_t *sa = json_array_get(json_object_get(a, "scenarios"), 0);
    const json_t *sb = json_array_get(json_object_get(b, "scenarios"), 0);
    assert_true(json_equal(json_object_get(sa, "trials"), json_object_get(sb, "trials")));
    assert_true(json_equal(json_object_get(sa, "zone_cells"), json_object_get(sb, "zone_cells")));
    assert_true(json_equal(json_object_get(a, "zones"), json_object_get(b, "zones")));
    const json_t *probs = json_object_get(json_object_get(b, "journal"), "problems");
    assert_int_equal(json_array_size(probs), n);
    for (size_t i = 0; i < n; i++) {
        const json_t *p = json_array_get(probs, i);
        assert_string_equal(json_string_value(json_object_get(p, "kind")), "invalid");
        const char *why = json_string_value(json_object_get(p, "why"));
        if (strstr(why, whys[i]) == NULL)
            fail_msg("problem %zu: '%s', want '%s'", i, why, whys[i]);
    }
    json_decref(a);
    json_decref(b);
    char *md = read_in("ed", "report.md");
    assert_non_null(strstr(md, "(invalid): trial 50 past the plan"));
    free(md);
}

/* A sweep's record is its scenario's when it sweeps the same parameter and ran one of run.json's
 * values (each value its own trials): a value the list does not hold, or a record that sweeps
 * nothing, is a journal problem, never a trial of the sweep. */
static void
test_sweep_records_checked(void **state)
{
    (void)state;
    copy_fixture("sweep-base", "sw0");
    assert_int_equal(report_cmd("sw0", NULL, NULL, NULL), CLI_REPORT_OK);
    copy_fixture("sweep-base", "sw");
    append_edited("sw", "{\"scenario.msg_size\":2048}");
    append_edited("sw", "{\"scenario.sweep\":null}");
    assert_int_equal(report_cmd("sw", NULL, NULL, NULL), CLI_REPORT_OK);
    json_t *a = summary_of("sw0"), *b = summary_of("sw");
    assert_true(json_equal(json_object_get(a, "sweeps"), json_object_get(b, "sweeps")));
    const json_t *probs = json_object_get(json_object_get(b, "journal"), "problems");
    assert_int_equal(json_array_size(probs), 2);
    assert_non_null(strstr(json_string_value(json_object_get(json_array_get(probs, 0), "why")),
                           "scenario 'tput' ran msg_size 2048 here, not a value of its sweep"));
    assert_non_null(strstr(json_string_value(json_object_get(json_array_get(probs, 1), "why")),
                           "scenario 'tput' sweeps nothing here, msg_size in run.json"));
    json_decref(a);
    json_decref(b);
}

/* A run.json without run_id cannot tell its records from another run's: none is taken, the
 * report refuses it (and with --lenient lists why, and every record it did not take). */
static void
test_run_without_run_id(void **state)
{
    (void)state;
    copy_fixture("pooled-a", "noid");
    json_t *run = json_load_file("noid/run.json", 0, NULL);
    json_object_set_new(run, "run_id", json_null());
    assert_int_equal(json_dump_file(run, "noid/run.json", 0), 0);
    json_decref(run);
    assert_int_equal(report_cmd("noid", NULL, NULL, NULL), CLI_REPORT_FAILED);
    assert_int_equal(report_cmd("noid", "--lenient", NULL, NULL), CLI_REPORT_INCOMPLETE);
    json_t *sum = summary_of("noid");
    const json_t *s0 = json_array_get(json_object_get(sum, "scenarios"), 0);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(s0, "trials"), "ok")), 0);
    const json_t *p0 =
        json_array_get(json_object_get(json_object_get(sum, "journal"), "problems"), 0);
    assert_string_equal(json_string_value(json_object_get(p0, "file")), "run.json");
    assert_non_null(strstr(json_string_value(json_object_get(p0, "why")), "no run_id"));
    json_decref(sum);
    char *md = read_in("noid", "report.md");
    assert_non_null(strstr(md, "- noid/run.json: no run_id: no record can be told"));
    free(md);
}

/* Every line of dir's journal with its hosts' zone and region replaced (a1's by za, ra; b1's by
 * zb, rb), and run.json's hosts likewise. */
static void
replace_places(const char *dir, const char *za, const char *ra, const char *zb, const char *rb)
{
    char p[4096];
    snprintf(p, sizeof p, "%s/run.json", dir);
    json_t *run = json_load_file(p, 0, NULL);
    assert_non_null(run);
    size_t i;
    json_t *h;
    json_array_foreach(json_object_get(run, "hosts"), i, h)
    {
        bool a = strcmp(json_string_value(json_object_get(h, "name")), "a1") == 0;
        json_object_set_new(h, "zone", json_string(a ? za : zb));
        json_object_set_new(h, "region", json_string(a ? ra : rb));
    }
    assert_int_equal(json_dump_file(run, p, 0), 0);
    json_decref(run);
    char *text = read_in(dir, "results.jsonl");
    snprintf(p, sizeof p, "%s/results.jsonl", dir);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    for (char *line = strtok(text, "\n"); line != NULL; line = strtok(NULL, "\n")) {
        json_t *rec = json_loads(line, 0, NULL);
        assert_non_null(rec);
        static const char *const ends[] = {"src", "dst"};
        for (int k = 0; k < 2; k++) {
            json_t *ep = json_object_get(rec, ends[k]);
            bool a = strcmp(json_string_value(json_object_get(ep, "host")), "a1") == 0;
            json_object_set_new(ep, "zone", json_string(a ? za : zb));
            json_object_set_new(ep, "region", json_string(a ? ra : rb));
        }
        char *out = json_dumps(rec, JSON_COMPACT);
        fprintf(f, "%s\n", out);
        free(out);
        json_decref(rec);
    }
    fclose(f);
    free(text);
}

/* Region r zone a/b and region r/a zone b: two zones, labelled apart (they were both r/a/b,
 * their CSV rows glued, and the pair between them sat on the diagonal). */
static void
test_zone_labels_apart(void **state)
{
    (void)state;
    copy_fixture("pooled-a", "zl");
    replace_places("zl", "a/b", "r", "b", "r/a");
    assert_int_equal(report_cmd("zl", NULL, NULL, NULL), CLI_REPORT_OK);
    json_t *sum = summary_of("zl");
    const json_t *zones = json_object_get(sum, "zones");
    assert_int_equal(json_array_size(zones), 2);
    const char *l0 = json_string_value(json_object_get(json_array_get(zones, 0), "label"));
    const char *l1 = json_string_value(json_object_get(json_array_get(zones, 1), "label"));
    assert_string_equal(l0, "r/a\\/b");
    assert_string_equal(l1, "r\\/a/b");
    size_t i;
    const json_t *c;
    const json_t *s0 = json_array_get(json_object_get(sum, "scenarios"), 0);
    json_array_foreach(json_object_get(s0, "zone_cells"), i, c)
    {
        assert_string_not_equal(json_string_value(json_object_get(c, "src_zone")),
                                json_string_value(json_object_get(c, "dst_zone")));
    }
    const json_t *p99 = NULL;
    json_array_foreach(json_object_get(s0, "stat_matrices"), i, c)
    {
        if (strcmp(json_string_value(json_object_get(c, "stat")), "p99") == 0)
            p99 = c;
    }
    assert_non_null(p99);
    json_array_foreach(json_object_get(p99, "cells"), i, c)
    {
        assert_string_not_equal(json_string_value(json_object_get(c, "src_zone")),
                                json_string_value(json_object_get(c, "dst_zone")));
    }
    json_decref(sum);
    char *csv = read_in("zl", "matrix-latency.csv");
    /* two rows and two columns, each cell off the diagonal */
    assert_non_null(strstr(csv, "src\\dst (us),r/a\\/b,r\\/a/b\n"));
    assert_non_null(strstr(csv, "\nr/a\\/b,,"));
    assert_non_null(strstr(csv, "\nr\\/a/b,"));
    char *d = strstr(csv, "\nr\\/a/b,");
    assert_true(d != NULL && strstr(d, ",\n") != NULL); /* its own column empty */
    free(csv);
}

/* A zone named like a formula (=1+2, -1, @SUM(A1)) is a text in every CSV, with a ' in front
 * (a spreadsheet would otherwise run it); the figures stay numbers. */
static void
test_csv_texts_never_formulas(void **state)
{
    (void)state;
    copy_fixture("pooled-a", "fx");
    replace_places("fx", "=1+2", "lab", "-1", "lab");
    assert_int_equal(report_cmd("fx", NULL, NULL, NULL), CLI_REPORT_OK);
    char *csv = read_in("fx", "matrix-latency.csv");
    /* natural order: -1 before =1+2 */
    assert_non_null(strstr(csv, "src\\dst (us),'-1,'=1+2\n"));
    assert_non_null(strstr(csv, "\n'-1,,2"));
    assert_non_null(strstr(csv, "\n'=1+2,2"));
    free(csv);
    csv = read_in("fx", "matrix-latency-p99.csv");
    assert_non_null(strstr(csv, "src\\dst (us),'-1,'=1+2\n"));
    free(csv);
    copy_fixture("pooled-a", "fy");
    replace_places("fy", "@SUM(A1)", "lab", "+x,y", "lab");
    assert_int_equal(report_cmd("fy", NULL, NULL, NULL), CLI_REPORT_OK);
    csv = read_in("fy", "matrix-latency.csv");
    assert_non_null(strstr(csv, "src\\dst (us),\"'+x,y\",'@SUM(A1)\n"));
    free(csv);
}

/* --- merges -------------------------------------------------------------------------------- */

/* Two runs of one plan: every trial of both is counted, one value per planned trial. */
static void
test_merge_pools_runs(void **state)
{
    (void)state;
    copy_fixture("pooled-a", "pa");
    copy_fixture("pooled-b", "pb");
    /* one plan surveyed twice on the same hosts: said so, its host pairs pool */
    assert_int_equal(report_cmdv("pa", "pb", "-o", "pooled", "--same-hosts", NULL), CLI_REPORT_OK);
    json_t *sum = summary_of("pooled");
    const json_t *s0 = json_array_get(json_object_get(sum, "scenarios"), 0);
    const json_t *tr = json_object_get(s0, "trials");
    assert_int_equal(json_integer_value(json_object_get(tr, "planned")), 8);
    assert_int_equal(json_integer_value(json_object_get(tr, "ok")), 7);
    assert_int_equal(json_integer_value(json_object_get(tr, "failed")), 1);
    assert_int_equal(json_integer_value(json_object_get(tr, "runs")), 2);
    size_t i;
    const json_t *c;
    json_array_foreach(json_object_get(s0, "zone_cells"), i, c)
    {
        assert_int_equal(json_integer_value(json_object_get(c, "runs")), 2);
        assert_int_equal(json_integer_value(json_object_get(c, "planned")), 4);
    }
    const json_t *p;
    json_array_foreach(json_object_get(s0, "pairs"), i, p)
    {
        const json_t *v = json_object_get(p, "values");
        assert_int_equal(json_array_size(v), 4); /* run A's two, then run B's two */
        bool b_failed = strcmp(json_string_value(json_object_get(p, "src")), "b1") == 0;
        assert_true(json_is_null(json_array_get(v, 3)) == b_failed);
        assert_true(json_is_real(json_array_get(v, 0)));
    }
    const json_t *f = json_array_get(json_object_get(s0, "failures"), 0);
    assert_string_equal(json_string_value(json_object_get(f, "run_id")), "20261201T150000Z-bbbb");
    json_decref(sum);
    char *md = read_in("pooled", "report.md");
    assert_non_null(strstr(md, "· 2 runs"));
    free(md);
}

/* The zone labels of a summary, joined by spaces ("a b c d "), into b. */
static void
zone_labels(const json_t *sum, char *b, size_t len)
{
    size_t i, k = 0;
    const json_t *z;
    b[0] = '\0';
    json_array_foreach(json_object_get(sum, "zones"), i, z)
    {
        k +=
            (size_t)snprintf(b + k, len - k, "%s ", json_string_value(json_object_get(z, "label")));
    }
}

/* Two runs whose hosts have the same names in other zones (two accounts, each with its a1 and
 * b1): each run's hosts are its own, so both runs' zones appear and each zone cell holds its
 * own run's trials; --same-hosts, which would make them one, is refused naming the host. A plan
 * surveyed twice keeps its host pairs apart by run too, unless --same-hosts. */
static void
test_merge_keeps_each_runs_hosts(void **state)
{
    (void)state;
    copy_fixture("pooled-a", "za");
    copy_fixture("pooled-b", "zb");
    assert_int_equal(
        system("sed -i 's/\"zone\": \"a\"/\"zone\": \"c\"/; s/\"zone\": \"b\"/\"zone\": "
               "\"d\"/' zb/run.json && sed -i 's/\"zone\":\"a\"/\"zone\":\"c\"/g; "
               "s/\"zone\":\"b\"/\"zone\":\"d\"/g' zb/results.jsonl && grep -q "
               "'\"zone\": \"d\"' zb/run.json"),
        0);
    assert_int_equal(report_cmdv("za", "zb", "-o", "zm", NULL), CLI_REPORT_OK);
    json_t *sum = summary_of("zm");
    char zones[256];
    zone_labels(sum, zones, sizeof zones);
    assert_string_equal(zones, "a b c d ");
    const json_t *s0 = json_array_get(json_object_get(sum, "scenarios"), 0);
    size_t i;
    const json_t *c;
    int cells = 0;
    json_array_foreach(json_object_get(s0, "zone_cells"), i, c)
    {
        const char *sz = json_string_value(json_object_get(c, "src_zone"));
        const char *dz = json_string_value(json_object_get(c, "dst_zone"));
        /* a run's own zones only: never run B's trials under run A's zones */
        assert_true((strchr("ab", *sz) != NULL) == (strchr("ab", *dz) != NULL));
        assert_int_equal(json_integer_value(json_object_get(c, "runs")), 1);
        cells++;
    }
    assert_int_equal(cells, 4);
    json_decref(sum);
    char *md = read_in("zm", "report.md");
    assert_non_null(strstr(md, "| a1 (run 1) | b1 (run 1) |"));
    assert_non_null(strstr(md, "| a1 (run 2) | b1 (run 2) |"));
    free(md);
    th_rmtree("zm");
    assert_int_equal(report_cmdv("za", "zb", "-o", "zm", "--same-hosts", NULL), CLI_REPORT_USAGE);
    assert_false(exists("zm", "report.md"));
    /* the same plan twice: its host pairs by run, its zone cells pooled */
    copy_fixture("pooled-a", "pa");
    copy_fixture("pooled-b", "pb");
    assert_int_equal(report_cmdv("pa", "pb", "-o", "pooled-apart", NULL), CLI_REPORT_OK);
    sum = summary_of("pooled-apart");
    s0 = json_array_get(json_object_get(sum, "scenarios"), 0);
    assert_int_equal(json_array_size(json_object_get(s0, "pairs")), 4);
    json_array_foreach(json_object_get(s0, "zone_cells"), i, c)
    {
        assert_int_equal(json_integer_value(json_object_get(c, "runs")), 2);
        assert_int_equal(json_integer_value(json_object_get(c, "pairs")), 2);
    }
    json_decref(sum);
}

/* One scenario name, other parameters: refused, naming what differs; nothing written. */
static void
test_merge_refuses_other_parameters(void **state)
{
    (void)state;
    copy_fixture("pooled-a", "pa");
    copy_fixture("pooled-b", "pc2");
    json_t *run = json_load_file("pc2/run.json", 0, NULL);
    json_object_set_new(json_array_get(json_object_get(run, "scenarios"), 0), "msg_size",
                        json_integer(1000));
    assert_int_equal(json_dump_file(run, "pc2/run.json", 0), 0);
    json_decref(run);
    const char *dirs[] = {"pa", "pc2"};
    struct err e = {0};
    assert_int_equal(render(dirs, 2, "refused", false, NULL, &e), NS_EINVAL);
    assert_non_null(strstr(e.msg, "scenario 'latency' was run with other parameters in pa than "
                                  "in pc2 (msg_size 250 against 1000)"));
    assert_false(exists("refused", "report.md"));
    assert_int_equal(report_cmd("pa", "pc2", "-o", "refused"), CLI_REPORT_FAILED);
    /* the trial count is no parameter of the measurement: runs of 2 and 3 trials per pair
     * pool, 5 planned per pair (run B's third trials not run) */
    copy_fixture("pooled-b", "pc3");
    run = json_load_file("pc3/run.json", 0, NULL);
    json_t *sc = json_array_get(json_object_get(run, "scenarios"), 0);
    json_object_set_new(sc, "trials", json_integer(3));
    json_object_set_new(sc, "planned", json_integer(6));
    assert_int_equal(json_dump_file(run, "pc3/run.json", 0), 0);
    json_decref(run);
    assert_int_equal(report_cmdv("pa", "pc3", "-o", "pooled3", "--same-hosts", NULL),
                     CLI_REPORT_INCOMPLETE);
    json_t *sum = summary_of("pooled3");
    const json_t *p0 = json_array_get(
        json_object_get(json_array_get(json_object_get(sum, "scenarios"), 0), "pairs"), 0);
    assert_int_equal(json_array_size(json_object_get(p0, "values")), 5);
    assert_true(json_is_null(json_array_get(json_object_get(p0, "values"), 4)));
    assert_int_equal(json_integer_value(json_object_get(p0, "not_run")), 1);
    json_decref(sum);
}

/* One run given twice, or a copy of its directory: refused, not its trials counted twice. */
static void
test_merge_refuses_one_run_twice(void **state)
{
    (void)state;
    copy_fixture("pooled-a", "ta");
    copy_fixture("pooled-a", "ta-copy");
    const char *dirs[] = {"ta", "ta-copy"};
    struct err e = {0};
    assert_int_equal(render(dirs, 2, "twice", false, NULL, &e), NS_EINVAL);
    assert_non_null(strstr(e.msg, "ta and ta-copy hold the same run (20261130T150000Z-aaaa)"));
    assert_false(exists("twice", "report.md"));
    assert_int_equal(report_cmd("ta", "ta", "-o", "twice"), CLI_REPORT_FAILED);
    assert_false(exists("twice", "summary.json"));
    /* another run of the plan still pools */
    copy_fixture("pooled-b", "tb");
    assert_int_equal(report_cmd("ta", "tb", "-o", "twice"), CLI_REPORT_OK);
}

/* --- completeness -------------------------------------------------------------------------- */

/* A run whose directory a live netsurvey holds: in progress, in the title and exit status;
 * the netsurvey that holds it (rendering its own run) is not taken for another. */
static void
test_in_progress(void **state)
{
    (void)state;
    copy_fixture("basic", "ip");
    int fd = open("ip/.lock", O_RDWR | O_CREAT, 0644);
    assert_true(fd >= 0);
    char pid[32];
    snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
    assert_int_equal(write(fd, pid, strlen(pid)), (ssize_t)strlen(pid));
    assert_int_equal(flock(fd, LOCK_EX), 0);
    const char *dirs[] = {"ip"};
    struct report_result r;
    struct err e = {0};
    assert_int_equal(render(dirs, 1, "ip", false, &r, &e), 0);
    assert_true(r.in_progress);
    assert_true(r.incomplete);
    char *md = read_in("ip", "report.md");
    assert_non_null(strstr(md, "# netsurvey report: westus3-zones (in progress: 109 of 109 "
                               "planned trials recorded so far)"));
    assert_non_null(strstr(md, "State: in progress"));
    free(md);
    json_t *sum = summary_of("ip");
    const json_t *c = json_object_get(sum, "completeness");
    assert_true(json_is_true(json_object_get(c, "in_progress")));
    assert_true(json_is_false(json_object_get(c, "complete")));
    json_decref(sum);
    assert_int_equal(report_cmd("ip", NULL, NULL, NULL), CLI_REPORT_INCOMPLETE);
    assert_int_equal(
        report_render(
            &(struct report_opts){
                .dirs = dirs, .ndirs = 1, .out = "ip", .owned_by_caller = true, .result = &r},
            &e),
        0);
    assert_false(r.incomplete);
    close(fd); /* the owner is gone: complete again */
    assert_int_equal(report_cmd("ip", NULL, NULL, NULL), CLI_REPORT_OK);
}

/* Stopped part way: planned / ok / failed / not run per run, scenario, cell and pair, and one
 * value per planned trial. */
/* A trial recorded not run (its host refused for a changed key) counts as not run, not failed,
 * and the report says why; as the later record of its trial it stands for it, as a later
 * failure would. */
static void
test_not_run_records(void **state)
{
    (void)state;
    copy_fixture("incomplete", "nr");
    char *text = read_in("nr", "results.jsonl");
    char *at = strstr(text, "\"status\":\"failed\"");
    assert_non_null(at);
    char *start = at;
    while (start > text && start[-1] != '\n')
        start--;
    char *end = strchr(at, '\n');
    assert_non_null(end);
    char line[65536];
    snprintf(line, sizeof line, "%.*s\"status\":\"not_run\"%.*s\n", (int)(at - start), start,
             (int)(end - at) - (int)strlen("\"status\":\"failed\""),
             at + strlen("\"status\":\"failed\""));
    char *err = strstr(line, "nsperf on a1: connection refused");
    assert_non_null(err);
    char fixed[65536];
    /* after a newline: the fixture ends with a torn line, which stays one */
    snprintf(fixed, sizeof fixed, "\n%.*sa1: host key changed (kh:3)%s", (int)(err - line), line,
             err + strlen("nsperf on a1: connection refused"));
    append_line("nr", fixed);
    free(text);
    assert_int_equal(report_cmd("nr", NULL, NULL, NULL), CLI_REPORT_INCOMPLETE);
    json_t *sum = summary_of("nr");
    const json_t *c = json_object_get(sum, "completeness");
    assert_int_equal(json_integer_value(json_object_get(c, "planned")), 24);
    assert_int_equal(json_integer_value(json_object_get(c, "ok")), 5);
    assert_int_equal(json_integer_value(json_object_get(c, "failed")), 0);
    assert_int_equal(json_integer_value(json_object_get(c, "not_run")), 19);
    json_decref(sum);
    char *md = read_in("nr", "report.md");
    if (strstr(md, "not run: a1: host key changed (kh:3)") == NULL)
        fail_msg("report.md does not say why the trial was not run");
    assert_null(strstr(md, "nsperf on a1: connection refused"));
    free(md);
}

static void
test_incomplete_counts(void **state)
{
    (void)state;
    copy_fixture("incomplete", "ic");
    assert_int_equal(report_cmd("ic", NULL, NULL, NULL), CLI_REPORT_INCOMPLETE);
    json_t *sum = summary_of("ic");
    const json_t *c = json_object_get(sum, "completeness");
    assert_int_equal(json_integer_value(json_object_get(c, "planned")), 24);
    assert_int_equal(json_integer_value(json_object_get(c, "ok")), 5);
    assert_int_equal(json_integer_value(json_object_get(c, "failed")), 1);
    assert_int_equal(json_integer_value(json_object_get(c, "not_run")), 18);
    const json_t *run = json_array_get(json_object_get(sum, "runs"), 0);
    assert_string_equal(json_string_value(json_object_get(run, "state")), "interrupted");
    assert_true(json_is_false(json_object_get(run, "complete")));
    const json_t *lat = json_array_get(json_object_get(sum, "scenarios"), 0);
    const json_t *tp = json_array_get(json_object_get(sum, "scenarios"), 1);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(lat, "trials"), "not_run")),
                     6);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(tp, "trials"), "not_run")),
                     12);
    /* run.json's planned pairs: the pairs and cells not reached are there, planned, not run */
    assert_string_equal(json_string_value(json_object_get(tp, "family")), "ipv4");
    assert_int_equal(json_array_size(json_object_get(tp, "zone_cells")), 3);
    assert_int_equal(json_array_size(json_object_get(tp, "pairs")), 6);
    assert_int_equal(json_array_size(json_object_get(lat, "pairs")), 6);
    size_t k;
    const json_t *cell;
    json_array_foreach(json_object_get(lat, "zone_cells"), k, cell)
        assert_int_equal(json_integer_value(json_object_get(cell, "planned")), 4);
    size_t i;
    const json_t *p;
    json_array_foreach(json_object_get(lat, "pairs"), i, p)
    {
        assert_int_equal(json_array_size(json_object_get(p, "values")), 2);
        assert_int_equal(json_integer_value(json_object_get(p, "planned")), 2);
        assert_int_equal(json_integer_value(json_object_get(p, "n")) +
                             json_integer_value(json_object_get(p, "failed")) +
                             json_integer_value(json_object_get(p, "not_run")),
                         2);
    }
    json_decref(sum);
    /* without the planned pairs (a run.json of version 1), the trials of the pair never reached
     * are counted in their scenario, and said so */
    json_t *doc = json_load_file("ic/run.json", 0, NULL);
    json_object_del(doc, "pairs");
    json_object_set_new(doc, "schema", json_string("netsurvey.run/1"));
    assert_int_equal(json_dump_file(doc, "ic/run.json", 0), 0);
    json_decref(doc);
    assert_int_equal(report_cmd("ic", NULL, NULL, NULL), CLI_REPORT_INCOMPLETE);
    sum = summary_of("ic");
    lat = json_array_get(json_object_get(sum, "scenarios"), 0);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(lat, "trials"), "not_run")),
                     6);
    assert_int_equal(json_array_size(json_object_get(lat, "pairs")), 5);
    json_decref(sum);
    char *md = read_in("ic", "report.md");
    assert_non_null(strstr(md, "2 of the trials not run belong to host pairs with no record yet."));
    assert_non_null(strstr(md, "No trial of this scenario was recorded."));
    free(md);
}

/* --- adaptive trials: what the rule decided, and what it has not ----------------------------- */

#define AD_PAIRS 6 /* the ordered pairs of three hosts, run.json's "pairs" order */
static const char *const ad_host[3] = {"a1", "b1", "c1"};
static const int ad_pair[AD_PAIRS][2] = {{0, 1}, {0, 2}, {1, 0}, {1, 2}, {2, 0}, {2, 1}};

/* One pair's recorded trials (numbered 1..n): mean RTTs in us; trial k + 1 failed where bit k
 * of failed is set. */
struct ad_trials {
    size_t n;
    double v[6];
    unsigned failed;
};

static json_t *
ad_endpoint(int h)
{
    char zone[2] = {(char)('a' + h), '\0'}, addr[24];
    snprintf(addr, sizeof addr, "10.9.0.%d", h + 1);
    return json_pack("{s:s,s:s,s:s,s:s}", "host", ad_host[h], "zone", zone, "region", "lab",
                     "data_address", addr);
}

/* dir afresh: a run of an adaptive scenario (tcp_rr, trials {min 3, max 6, target_ci 2 %}) over
 * three hosts in zones a, b, c, every ordered pair planned, in run.json's state; pair k holds
 * the trials t[k] (its figures in trial order). Built here, as netsurvey run writes them. */
static void
adaptive_run(const char *dir, const char *run_id, const char *started, const char *state,
             const struct ad_trials t[AD_PAIRS])
{
    th_rmtree(dir);
    assert_int_equal(mkdir(dir, 0755), 0);
    json_t *hosts = json_array(), *pairs = json_array();
    for (int h = 0; h < 3; h++) {
        json_t *e = ad_endpoint(h);
        json_object_set_new(e, "name", json_string(ad_host[h]));
        json_object_del(e, "host");
        json_object_set_new(e, "transport", json_string("ssh"));
        json_object_set_new(e, "env", json_object());
        json_array_append_new(hosts, e);
    }
    for (int k = 0; k < AD_PAIRS; k++)
        json_array_append_new(pairs, json_pack("[i,i]", ad_pair[k][0], ad_pair[k][1]));
    json_t *scen = json_pack("{s:s,s:s,s:i,s:i,s:i,s:i,s:i,s:f}", "name", "rr", "test", "tcp_rr",
                             "msg_size", 1, "response_size", 1, "duration_s", 10, "warmup_s", 1,
                             "window", 0, "interval_s", 0.0);
    json_t *rec_scen = json_deep_copy(scen);
    json_object_set_new(scen, "trials",
                        json_pack("{s:i,s:i,s:f}", "min", 3, "max", 6, "target_ci", 0.02));
    json_object_set_new(scen, "planned",
                        json_pack("{s:i,s:i}", "min", 3 * AD_PAIRS, "max", 6 * AD_PAIRS));
    json_t *run =
        json_pack("{s:s,s:s,s:{s:s,s:s,s:s,s:s,s:s},s:{s:s,s:s,s:s},s:s,s:s,s:s,"
                  "s:{s:i,s:i,s:i,s:f},s:o,s:[o],s:o}",
                  "schema", "netsurvey.run/2", "run_id", run_id, "plan", "name", "adaptive", "file",
                  "plans/adaptive.yaml", "sha256",
                  "5e1f000000000000000000000000000000000000000000000000000000000ada", "source",
                  "name: adaptive\n", "description", "", "tool", "netsurvey_version", "0.1.0",
                  "nsperf_version", "0.1.0", "nsperf_sha256",
                  "abababababababababababababababababababababababababababababababab", "started",
                  started, "command", "netsurvey run plans/adaptive.yaml", "state", state,
                  "schedule", "rounds", 12, "tests", 3 * AD_PAIRS, "pairs", AD_PAIRS, "estimate_s",
                  123.0, "hosts", hosts, "scenarios", scen, "pairs", pairs);
    char p[4096];
    snprintf(p, sizeof p, "%s/run.json", dir);
    assert_int_equal(json_dump_file(run, p, JSON_INDENT(1)), 0);
    json_decref(run);
    snprintf(p, sizeof p, "%s/results.jsonl", dir);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    for (int k = 0; k < AD_PAIRS; k++) {
        for (size_t n = 0; n < t[k].n; n++) {
            json_t *r = json_pack(
                "{s:s,s:s,s:{s:s,s:s},s:O,s:i,s:s,s:o,s:o,s:s,s:n,s:i,s:s,s:s,s:{s:f,s:{s:f}}}",
                "schema", "netsurvey.trial/2", "run_id", run_id, "plan", "name", "adaptive",
                "sha256", "5e1f000000000000000000000000000000000000000000000000000000000ada",
                "scenario", rec_scen, "trial", (int)n + 1, "family", "ipv4", "src",
                ad_endpoint(ad_pair[k][0]), "dst", ad_endpoint(ad_pair[k][1]), "status", "ok",
                "error", "attempts", 1, "started", started, "ended", started, "result",
                "duration_s", 10.0, "rtt_us", "mean", t[k].v[n]);
            if (t[k].failed & 1u << n) {
                json_object_set_new(r, "status", json_string("failed"));
                json_object_set_new(r, "error", json_string("connection refused"));
                json_object_del(r, "result");
            }
            char *line = json_dumps(r, JSON_COMPACT);
            fprintf(f, "%s\n", line);
            free(line);
            json_decref(r);
        }
    }
    assert_int_equal(fclose(f), 0);
    json_decref(rec_scen);
}

/* The trials that meet 2 % at min (3), and those that never do (95 % half-widths of 24.8, 13.0,
 * 8.8 and 6.6 % after 3, 4, 5 and 6 trials). */
#define AD_QUIET                                                                                   \
    {                                                                                              \
        .n = 3, .v = { 100, 101, 100 }                                                             \
    }
#define AD_NOISY(count)                                                                            \
    {                                                                                              \
        .n = (count), .v = { 100, 110, 90, 100, 100, 100 }                                         \
    }
#define AD_NONE                                                                                    \
    {                                                                                              \
        .n = 0                                                                                     \
    }

static const json_t *
ad_pair_of(const json_t *scen, const char *src, const char *dst)
{
    size_t i;
    const json_t *p;
    json_array_foreach(json_object_get(scen, "pairs"), i, p)
    {
        if (strcmp(json_string_value(json_object_get(p, "src")), src) == 0 &&
            strcmp(json_string_value(json_object_get(p, "dst")), dst) == 0)
            return p;
    }
    fail_msg("no pair %s -> %s", src, dst);
    return NULL;
}

static json_int_t
jint(const json_t *o, const char *k)
{
    const json_t *v = json_object_get(o, k);
    if (!json_is_integer(v))
        fail_msg("'%s' is not an integer", k);
    return json_integer_value(v);
}

/* A run every pair of which the rule decided (5 met the target at min, 1 reached max): its
 * planned count is what they ran, 21 (neither min x pairs, 18, nor max x pairs, 36), and it is
 * complete - in the title, the summary, the run's state and the exit status. */
static void
test_adaptive_complete(void **state)
{
    (void)state;
    const struct ad_trials t[AD_PAIRS] = {AD_QUIET, AD_NOISY(6), AD_QUIET,
                                          AD_QUIET, AD_QUIET,    AD_QUIET};
    adaptive_run("adc", "20261201T100000Z-adc1", "2026-12-01T10:00:00.000Z", "complete", t);
    assert_int_equal(report_cmd("adc", NULL, NULL, NULL), CLI_REPORT_OK);
    json_t *sum = summary_of("adc");
    const json_t *c = json_object_get(sum, "completeness");
    assert_true(json_is_true(json_object_get(c, "complete")));
    assert_int_equal(jint(c, "planned"), 21);
    assert_int_equal(jint(c, "ok"), 21);
    assert_int_equal(jint(c, "not_run"), 0);
    assert_null(json_object_get(c, "undecided"));
    const json_t *run = json_array_get(json_object_get(sum, "runs"), 0);
    assert_true(json_is_true(json_object_get(run, "complete")));
    const json_t *sc = json_array_get(json_object_get(sum, "scenarios"), 0);
    const json_t *ad = json_object_get(sc, "adaptive");
    assert_int_equal(jint(ad, "pairs_target_met"), 5);
    assert_int_equal(jint(ad, "pairs_max_reached"), 1);
    assert_int_equal(jint(ad, "pairs_incomplete"), 0);
    assert_int_equal(jint(json_object_get(sc, "trials"), "planned"), 21);
    assert_int_equal(jint(json_object_get(sc, "trials"), "not_run"), 0);
    const json_t *noisy = ad_pair_of(sc, "a1", "c1"), *quiet = ad_pair_of(sc, "a1", "b1");
    assert_int_equal(json_array_size(json_object_get(noisy, "values")), 6);
    assert_int_equal(json_array_size(json_object_get(quiet, "values")), 3);
    assert_string_equal(
        json_string_value(json_object_get(json_object_get(noisy, "adaptive"), "stopped")),
        "max reached");
    assert_string_equal(
        json_string_value(json_object_get(json_object_get(quiet, "adaptive"), "stopped")),
        "target met");
    json_decref(sum);
    char *md = read_in("adc", "report.md");
    assert_non_null(strstr(md, "# netsurvey report: adaptive\n"));
    assert_null(strstr(md, "ncomplete"));
    assert_null(strstr(md, "undecided:"));
    assert_non_null(strstr(md, "State: complete; trials: 21 planned: 21 ok, 0 failed, 0 not run"));
    assert_non_null(strstr(md, "5 pairs met the target, 1 reached 6 trials without meeting it, "
                               "0 undecided."));
    free(md);
}

/* A run stopped before the rule decided three pairs: one below min (2 trials), one past it
 * without meeting the target (4 of at most 6), one never reached. Every one of its trials that
 * min asks for has a record (18 = min x pairs), yet it is incomplete: planned is at least 23,
 * at least 5 not run, and the report names the undecided pairs. */
static void
test_adaptive_incomplete(void **state)
{
    (void)state;
    const struct ad_trials t[AD_PAIRS] = {AD_QUIET, AD_NOISY(2), AD_NOISY(4),
                                          AD_NONE,  AD_QUIET,    AD_NOISY(6)};
    adaptive_run("adi", "20261201T110000Z-adi1", "2026-12-01T11:00:00.000Z", "interrupted", t);
    struct report_result r;
    struct err e = {0};
    const char *dirs[] = {"adi"};
    assert_int_equal(render(dirs, 1, "adi", false, &r, &e), 0);
    assert_true(r.incomplete);
    assert_false(r.in_progress);
    assert_int_equal(report_cmd("adi", NULL, NULL, NULL), CLI_REPORT_INCOMPLETE);
    json_t *sum = summary_of("adi");
    const json_t *c = json_object_get(sum, "completeness");
    assert_true(json_is_false(json_object_get(c, "complete")));
    assert_int_equal(jint(c, "planned"), 23);
    assert_int_equal(jint(c, "ok"), 18);
    assert_int_equal(jint(c, "not_run"), 5);
    assert_int_equal(jint(c, "undecided"), 3);
    const json_t *sc = json_array_get(json_object_get(sum, "scenarios"), 0);
    const json_t *ad = json_object_get(sc, "adaptive");
    assert_int_equal(jint(ad, "pairs_target_met"), 2);
    assert_int_equal(jint(ad, "pairs_max_reached"), 1);
    assert_int_equal(jint(ad, "pairs_incomplete"), 3);
    /* per pair: the values follow the planned count, null where a trial has no record */
    static const struct {
        const char *src, *dst;
        json_int_t planned, n;
        bool undecided;
    } want[] = {{"a1", "b1", 3, 3, false}, {"a1", "c1", 3, 2, true},  {"b1", "a1", 5, 4, true},
                {"b1", "c1", 3, 0, true},  {"c1", "a1", 3, 3, false}, {"c1", "b1", 6, 6, false}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const json_t *p = ad_pair_of(sc, want[i].src, want[i].dst);
        const json_t *vals = json_object_get(p, "values");
        assert_int_equal(jint(p, "planned"), want[i].planned);
        assert_int_equal(jint(p, "n"), want[i].n);
        assert_int_equal(jint(p, "not_run"), want[i].planned - want[i].n);
        assert_int_equal(json_array_size(vals), (size_t)want[i].planned);
        for (size_t k = 0; k < json_array_size(vals); k++)
            assert_int_equal(json_is_null(json_array_get(vals, k)), (json_int_t)k >= want[i].n);
        const json_t *pa = json_object_get(p, "adaptive");
        assert_int_equal(json_is_true(json_object_get(pa, "undecided")), want[i].undecided);
        assert_int_equal(strcmp(json_string_value(json_object_get(pa, "stopped")), "incomplete") ==
                             0,
                         want[i].undecided);
    }
    json_decref(sum);
    char *md = read_in("adi", "report.md");
    assert_non_null(strstr(md, "# netsurvey report: adaptive (incomplete: at least 5 of at least "
                               "23 planned trials not run; 3 host pairs of adaptive trials "
                               "undecided)\n"));
    assert_non_null(
        strstr(md, "Trials: at least 23 planned: 18 ok, 0 failed, at least 5 not run."));
    assert_non_null(strstr(md, "2 pairs met the target, 1 reached 6 trials without meeting it, "
                               "3 undecided."));
    assert_non_null(strstr(md, "**Incomplete for 3 host pairs: the rule has not decided how many "
                               "trials they take (3 to 6)"));
    assert_non_null(strstr(md, "- undecided: a1 → c1 (a → c): at least 3 planned: 2 ok, 0 failed, "
                               "at least 1 not run\n"));
    assert_non_null(strstr(md, "- undecided: b1 → a1 (b → a): at least 5 planned: 4 ok, 0 failed, "
                               "at least 1 not run\n"));
    assert_non_null(strstr(md, "- undecided: b1 → c1 (b → c): at least 3 planned: 0 ok, 0 failed, "
                               "at least 3 not run\n"));
    assert_null(strstr(md, "- undecided: a1 → b1"));
    assert_null(strstr(md, "- undecided: c1 → b1"));
    free(md);
    /* resumed to its end (the three pairs decided): complete */
    const struct ad_trials done[AD_PAIRS] = {AD_QUIET, AD_NOISY(6), AD_NOISY(6),
                                             AD_QUIET, AD_QUIET,    AD_NOISY(6)};
    adaptive_run("adi", "20261201T110000Z-adi1", "2026-12-01T11:00:00.000Z", "complete", done);
    assert_int_equal(report_cmd("adi", NULL, NULL, NULL), CLI_REPORT_OK);
}

/* A run that ran to its end with failures: every trial number of a pair recorded (1..max), two
 * of them failed, and its 4 ok trials short of the target: nothing is without a record, but the
 * rule has not decided the pair (a resume tries the failed numbers again), so the run is
 * incomplete, and says why. */
static void
test_adaptive_failures_undecided(void **state)
{
    (void)state;
    const struct ad_trials t[AD_PAIRS] = {
        AD_QUIET, {.n = 6, .v = {100, 0, 110, 90, 0, 100}, .failed = 1u << 1 | 1u << 4},
        AD_QUIET, AD_QUIET,
        AD_QUIET, AD_QUIET};
    adaptive_run("adf", "20261201T140000Z-adf1", "2026-12-01T14:00:00.000Z", "complete", t);
    assert_int_equal(report_cmd("adf", NULL, NULL, NULL), CLI_REPORT_INCOMPLETE);
    json_t *sum = summary_of("adf");
    const json_t *c = json_object_get(sum, "completeness");
    assert_true(json_is_false(json_object_get(c, "complete")));
    assert_int_equal(jint(c, "planned"), 21);
    assert_int_equal(jint(c, "ok"), 19);
    assert_int_equal(jint(c, "failed"), 2);
    assert_int_equal(jint(c, "not_run"), 0);
    assert_int_equal(jint(c, "undecided"), 1);
    const json_t *sc = json_array_get(json_object_get(sum, "scenarios"), 0);
    const json_t *p = ad_pair_of(sc, "a1", "c1");
    assert_int_equal(json_array_size(json_object_get(p, "values")), 6);
    assert_string_equal(
        json_string_value(json_object_get(json_object_get(p, "adaptive"), "stopped")),
        "incomplete");
    json_decref(sum);
    char *md = read_in("adf", "report.md");
    assert_non_null(
        strstr(md, "# netsurvey report: adaptive (incomplete: 1 host pair of adaptive trials "
                   "undecided)\n"));
    assert_non_null(strstr(md, "State: recorded as complete, but the adaptive rule has not "
                               "decided 1 host pair (failed trials, which a resume tries again)"));
    assert_non_null(strstr(md, "- undecided: a1 → c1 (a → c): at least 6 planned: 4 ok, 2 failed, "
                               "at least 0 not run\n"));
    free(md);
}

/* netsurvey trend says the same of each run: the incomplete one marked, with the least it
 * planned and its undecided pairs; the complete one complete. */
static void
test_adaptive_trend(void **state)
{
    (void)state;
    const struct ad_trials full[AD_PAIRS] = {AD_QUIET, AD_NOISY(6), AD_QUIET,
                                             AD_QUIET, AD_QUIET,    AD_QUIET};
    const struct ad_trials part[AD_PAIRS] = {AD_QUIET, AD_NOISY(2), AD_NOISY(4),
                                             AD_NONE,  AD_QUIET,    AD_NOISY(6)};
    adaptive_run("tr-full", "20261201T120000Z-trf1", "2026-12-01T12:00:00.000Z", "complete", full);
    adaptive_run("tr-part", "20261201T130000Z-trp1", "2026-12-01T13:00:00.000Z", "interrupted",
                 part);
    char *argv[] = {A("trend"), A("tr-full"), A("tr-part"), A("-o"), A("tr-out"), NULL};
    /* b -> c: nothing of it ran in the newest run, which the trend cannot place */
    assert_int_equal(cli_trend.main(5, argv), CLI_TREND_NEWEST_FAILED);
    char *md = read_in("tr-out", "trend.md");
    assert_non_null(strstr(md, "- ✗ rr (tcp_rr, ipv4) b → c: none at #2 (20261201T130000Z-trp1): "
                               "3 not run\n"));
    assert_non_null(strstr(md, "**incomplete (interrupted): at least 5 of at least 23 planned "
                               "trials not run, 3 host pairs of adaptive trials undecided**"));
    assert_non_null(strstr(md, "| 21 ok, 0 failed | complete |"));
    /* cells: an undecided pair's planned count is the least; a cell nothing of which ran; the
     * table in one unit, which its caption names */
    assert_non_null(strstr(md, "*rr, mean RTT (µs), ipv4: each run's zone cell"));
    assert_non_null(strstr(md, "| a → c | 100.0 ± 6.6 | 105.0 ± 63.5 (2/≥3 ok) |"));
    assert_non_null(strstr(md, "| b → c | 100.3 ± 1.4 | not run |"));
    free(md);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rebuild_removes_what_it_no_longer_makes),
        cmocka_unit_test(test_manifest_names_nothing_else),
        cmocka_unit_test(test_stopped_build_cleaned),
        cmocka_unit_test(test_unwritable_outputs),
        cmocka_unit_test(test_gnuplot_by_name),
        cmocka_unit_test(test_outputs_never_inputs),
        cmocka_unit_test(test_no_chart_without_ok_trials),
        cmocka_unit_test(test_refused_records_stop_or_are_listed),
        cmocka_unit_test(test_run_schema_refused),
        cmocka_unit_test(test_problems_listed_then_counted),
        cmocka_unit_test(test_edited_lines_are_problems),
        cmocka_unit_test(test_sweep_records_checked),
        cmocka_unit_test(test_run_without_run_id),
        cmocka_unit_test(test_zone_labels_apart),
        cmocka_unit_test(test_csv_texts_never_formulas),
        cmocka_unit_test(test_merge_pools_runs),
        cmocka_unit_test(test_merge_refuses_other_parameters),
        cmocka_unit_test(test_merge_keeps_each_runs_hosts),
        cmocka_unit_test(test_merge_refuses_one_run_twice),
        cmocka_unit_test(test_in_progress),
        cmocka_unit_test(test_incomplete_counts),
        cmocka_unit_test(test_not_run_records),
        cmocka_unit_test(test_adaptive_complete),
        cmocka_unit_test(test_adaptive_incomplete),
        cmocka_unit_test(test_adaptive_failures_undecided),
        cmocka_unit_test(test_adaptive_trend),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
