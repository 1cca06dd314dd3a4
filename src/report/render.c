/* render.c - write the outputs of a report: summary.json, matrix-<scenario>.csv, charts/,
 * report.md and report.html, built apart and moved into place, the previous build's leftovers
 * removed. Nothing here reads a clock. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/array.h"
#include "common/errors.h"
#include "common/fsdir.h"
#include "journal/journal.h"
#include "journal/record.h"
#include "report/matrixstat.h"
#include "report/report.h"
#include "report/reportint.h"
#include "report/sweep.h"

extern const unsigned char ns_tmpl_report_md[], ns_tmpl_report_html[], ns_tmpl_report_css[];

static const struct report_builtin builtin[] = {{"report.md", ns_tmpl_report_md},
                                                {"report.html", ns_tmpl_report_html},
                                                {"report.css", ns_tmpl_report_css}};

const char *
report_template_in(const struct report_builtin *set, size_t n, const char *name, char **owned)
{
    *owned = NULL;
    const char *dir = getenv("NETSURVEY_TEMPLATES");
    if (dir != NULL && *dir) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, name);
        if (report_read_file(path, owned, NULL, 4u << 20, NULL) == 0)
            return *owned;
    }
    for (size_t i = 0; i < n; i++)
        if (strcmp(set[i].name, name) == 0)
            return (const char *)set[i].text;
    return NULL;
}

const char *
report_template(const char *name, char **owned)
{
    return report_template_in(builtin, sizeof builtin / sizeof builtin[0], name, owned);
}

static int
render_template(const char *name, const json_t *view, enum tmpl_mode mode, const char *path,
                struct err *e)
{
    char *owned;
    const char *t = report_template(name, &owned);
    if (t == NULL)
        return err_set(e, NS_ENOTFOUND, "no template %s", name);
    struct rbuf b;
    report_buf_init(&b);
    int rc = report_stream_open(path, &b, e);
    if (rc == 0) {
        rc = report_tmpl_render(t, view, mode, &b, e);
        if (rc != 0)
            err_prefix(e, "%s", name);
        rc = report_stream_finish(path, &b, rc, e);
    }
    report_buf_release(&b);
    free(owned);
    return rc;
}

/* matrix CSV: "src\dst (<unit>),<label>,..." then one row per source; empty where nothing
 * measured. */
static int
write_csv(const char *path, const json_t *labels, const json_t *cells, const char *srckey,
          const char *dstkey, const char *unit, struct err *e)
{
    struct rbuf b;
    report_buf_init(&b);
    report_csv_corner(&b, unit);
    size_t n = json_array_size(labels);
    for (size_t c = 0; c < n; c++) {
        report_buf_puts(&b, ",");
        report_buf_csv_field(&b, json_string_value(json_array_get(labels, c)));
    }
    report_buf_puts(&b, "\n");
    for (size_t r = 0; r < n; r++) {
        const char *rl = json_string_value(json_array_get(labels, r));
        report_buf_csv_field(&b, rl);
        for (size_t c = 0; c < n; c++) {
            const char *cl = json_string_value(json_array_get(labels, c));
            report_buf_puts(&b, ",");
            size_t i;
            const json_t *cell;
            json_array_foreach(cells, i, cell)
            {
                if (strcmp(json_string_value(json_object_get(cell, srckey)), rl) == 0 &&
                    strcmp(json_string_value(json_object_get(cell, dstkey)), cl) == 0)
                    report_matrix_value(&b, cell); /* the value trend-<scenario>.csv repeats */
            }
        }
        report_buf_puts(&b, "\n");
    }
    int rc = report_write_file(path, &b, e);
    report_buf_release(&b);
    return rc;
}

static int
write_csvs(const char *out, const json_t *sum, struct err *e)
{
    json_t *zl = json_array();
    size_t i;
    const json_t *z, *s;
    json_array_foreach(json_object_get(sum, "zones"), i, z)
        json_array_append(zl, json_object_get(z, "label"));
    int rc = 0;
    bool zoned = !json_is_false(json_object_get(sum, "zones_given")); /* else host pairs only */
    json_array_foreach(json_object_get(sum, "scenarios"), i, s)
    {
        char path[4096], name[1024];
        const char *key = json_string_value(json_object_get(s, "file_key"));
        report_matrix_file(name, sizeof name, key, NULL);
        snprintf(path, sizeof path, "%s/%s", out, name);
        if (zoned)
            rc = write_csv(path, zl, json_object_get(s, "zone_cells"), "src_zone", "dst_zone",
                           js(s, "unit"), e);
        if (rc == 0 && json_object_get(s, "region_cells") != NULL) {
            report_matrix_file(name, sizeof name, key, REPORT_MATRIX_REGIONS);
            snprintf(path, sizeof path, "%s/%s", out, name);
            rc =
                write_csv(path, json_object_get(sum, "regions"), json_object_get(s, "region_cells"),
                          "src_region", "dst_region", js(s, "unit"), e);
        }
        if (rc != 0)
            break;
    }
    json_decref(zl);
    return rc == 0 ? report_sweep_csvs(out, sum, e) : rc;
}

static int
json_to_rbuf(const char *buffer, size_t size, void *data)
{
    report_buf_add(data, buffer, size);
    return ((struct rbuf *)data)->oom ? -1 : 0;
}

/* Streamed: a 100 000-trial summary is ~10 MB of text that need not sit in memory. */
static int
write_json(const char *path, const json_t *j, struct err *e)
{
    struct rbuf b;
    report_buf_init(&b);
    int rc = report_stream_open(path, &b, e);
    if (rc == 0) {
        if (json_dump_callback(j, json_to_rbuf, &b, JSON_INDENT(1) | JSON_REAL_PRECISION(10)) != 0)
            rc = err_set(e, NS_ENOMEM, "out of memory writing %s", path);
        report_buf_puts(&b, "\n");
        rc = report_stream_finish(path, &b, rc, e);
    }
    report_buf_release(&b);
    return rc;
}

/* --- the build directory and the manifest ---------------------------------------------------
 * A build writes every output into OUT/.netsurvey-build-XXXXXX, then moves them into OUT one by
 * one (each rename atomic), removes what the previous build made and this one did not, and
 * records what it made in OUT/.netsurvey-outputs. The manifest is written first as the union
 * of both builds, so that a build stopped half way leaves nothing no manifest names: the next
 * one removes it. Only names a report makes are taken from a manifest (a crafted one cannot
 * make a rebuild remove anything else). The directory is flock'ed while a build runs, so that
 * two builds (a run's own and a `netsurvey report` of it) do not interleave. */
#define REPORT_MANIFEST ".netsurvey-outputs"
#define REPORT_BUILD_PREFIX ".netsurvey-build-"
#define REPORT_MANIFEST_MAX (4u << 20)
#define REPORT_CHARTS "charts"

/* A name a report may have written: a plain file name, or charts/ and one. */
static bool
output_name_ok(const char *n)
{
    if (strncmp(n, REPORT_CHARTS "/", sizeof REPORT_CHARTS) == 0)
        n += sizeof REPORT_CHARTS;
    if (*n == '\0' || *n == '.' || strchr(n, '/') != NULL)
        return false;
    for (const char *p = n; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            return false;
    return strcmp(n, JOURNAL_RUN_FILE) != 0 && strcmp(n, JOURNAL_RESULTS_FILE) != 0;
}

struct names {
    char **v;
    size_t n, cap;
};

static void
names_release(struct names *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
    memset(l, 0, sizeof *l);
}

static int
names_add(struct names *l, const char *prefix, const char *name)
{
    if (ARRAY_GROW(&l->v, &l->cap, l->n + 1) != 0)
        return NS_ENOMEM;
    size_t len = strlen(prefix) + strlen(name) + 1;
    if ((l->v[l->n] = malloc(len)) == NULL)
        return NS_ENOMEM;
    snprintf(l->v[l->n++], len, "%s%s", prefix, name);
    return 0;
}

static bool
names_has(const struct names *l, const char *name)
{
    for (size_t i = 0; i < l->n; i++)
        if (strcmp(l->v[i], name) == 0)
            return true;
    return false;
}

/* The regular files of dir (prefix before each name). */
static int
names_of_dir(const char *dir, const char *prefix, struct names *l, struct err *e)
{
    DIR *d = opendir(dir);
    if (d == NULL)
        return errno == ENOENT ? 0 : err_sys(e, NS_EIO, errno, "cannot open %s", dir);
    struct dirent *de;
    int rc = 0;
    while (rc == 0 && (de = readdir(d)) != NULL) {
        char path[PATH_MAX];
        struct stat st;
        if (de->d_name[0] == '.' ||
            (size_t)snprintf(path, sizeof path, "%s/%s", dir, de->d_name) >= sizeof path ||
            lstat(path, &st) != 0 || !S_ISREG(st.st_mode))
            continue;
        if (names_add(l, prefix, de->d_name) != 0)
            rc = err_set(e, NS_ENOMEM, "out of memory");
    }
    closedir(d);
    return rc;
}

/* Reports last: a reader who opens report.html finds its charts and tables in place. */
static int
publish_rank(const char *n)
{
    if (strncmp(n, REPORT_CHARTS "/", sizeof REPORT_CHARTS) == 0)
        return 0;
    return strncmp(n, "report.", 7) == 0 ? 2 : 1;
}

static int
cmp_publish(const void *a, const void *b)
{
    const char *x = *(char *const *)a, *y = *(char *const *)b;
    int rx = publish_rank(x), ry = publish_rank(y);
    return rx != ry ? (rx < ry ? -1 : 1) : strcmp(x, y);
}

/* The names of the previous build's manifest (none when there is none). */
static int
manifest_read(const char *out, struct names *l, struct err *e)
{
    char path[PATH_MAX], *text = NULL;
    snprintf(path, sizeof path, "%s/%s", out, REPORT_MANIFEST);
    int rc = report_read_file(path, &text, NULL, REPORT_MANIFEST_MAX, e);
    if (rc == NS_ENOTFOUND)
        return 0;
    if (rc != 0)
        return rc;
    for (char *line = text, *next; rc == 0 && line != NULL && *line != '\0'; line = next) {
        next = strchr(line, '\n');
        if (next != NULL)
            *next++ = '\0';
        if (*line != '#' && output_name_ok(line) && !names_has(l, line) &&
            names_add(l, "", line) != 0)
            rc = err_set(e, NS_ENOMEM, "out of memory");
    }
    free(text);
    return rc;
}

static int
manifest_write(const char *out, const struct names *a, const struct names *b, struct err *e)
{
    struct rbuf buf;
    report_buf_init(&buf);
    report_buf_puts(&buf,
                    "# the files netsurvey report wrote here; the next report removes those it "
                    "does not write again\n");
    for (size_t i = 0; i < a->n; i++)
        report_buf_printf(&buf, "%s\n", a->v[i]);
    for (size_t i = 0; b != NULL && i < b->n; i++)
        if (!names_has(a, b->v[i]))
            report_buf_printf(&buf, "%s\n", b->v[i]);
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", out, REPORT_MANIFEST);
    int rc = report_write_file(path, &buf, e);
    report_buf_release(&buf);
    return rc;
}

/* Remove a build directory: its files, its charts/ and their files, nothing else. */
static void
build_remove(const char *dir)
{
    struct names l = {0};
    struct err e = {0};
    char sub[PATH_MAX], path[PATH_MAX];
    snprintf(sub, sizeof sub, "%s/%s", dir, REPORT_CHARTS);
    names_of_dir(dir, "", &l, &e);
    names_of_dir(sub, REPORT_CHARTS "/", &l, &e);
    for (size_t i = 0; i < l.n; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, l.v[i]);
        unlink(path);
    }
    names_release(&l);
    rmdir(sub);
    rmdir(dir);
}

/* Builds that were stopped before they were moved into place (a kill, a power cut). */
static void
builds_stale_remove(const char *out)
{
    DIR *d = opendir(out);
    if (d == NULL)
        return;
    struct dirent *de;
    struct names l = {0};
    while ((de = readdir(d)) != NULL)
        if (strncmp(de->d_name, REPORT_BUILD_PREFIX, strlen(REPORT_BUILD_PREFIX)) == 0)
            names_add(&l, "", de->d_name);
    closedir(d);
    for (size_t i = 0; i < l.n; i++) {
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/%s", out, l.v[i]);
        build_remove(path);
    }
    names_release(&l);
}

/* Move the build's files into out, remove the previous build's others, record the new list. */
static int
publish(const char *out, const char *build, struct err *e)
{
    struct names now = {0}, before = {0};
    char sub[PATH_MAX], from[PATH_MAX], to[PATH_MAX];
    snprintf(sub, sizeof sub, "%s/%s", build, REPORT_CHARTS);
    int rc = names_of_dir(build, "", &now, e);
    if (rc == 0)
        rc = names_of_dir(sub, REPORT_CHARTS "/", &now, e);
    if (rc == 0)
        rc = manifest_read(out, &before, e);
    if (now.n > 1)
        qsort(now.v, now.n, sizeof *now.v, cmp_publish);
    if (rc == 0)
        rc = manifest_write(out, &now, &before, e);
    bool charts = now.n > 0 && publish_rank(now.v[0]) == 0;
    snprintf(to, sizeof to, "%s/%s", out, REPORT_CHARTS);
    if (rc == 0 && charts && mkdir(to, 0755) != 0 && errno != EEXIST)
        rc = err_sys(e, NS_EIO, errno, "cannot create %s", to);
    for (size_t i = 0; rc == 0 && i < now.n; i++) {
        snprintf(from, sizeof from, "%s/%s", build, now.v[i]);
        snprintf(to, sizeof to, "%s/%s", out, now.v[i]);
        if (rename(from, to) != 0)
            rc = err_sys(e, NS_EIO, errno, "cannot move %s into place", to);
    }
    for (size_t i = 0; rc == 0 && i < before.n; i++) {
        if (names_has(&now, before.v[i]))
            continue;
        snprintf(to, sizeof to, "%s/%s", out, before.v[i]);
        if (unlink(to) != 0 && errno != ENOENT)
            rc = err_sys(e, NS_EIO, errno, "cannot remove the stale %s", to);
    }
    if (rc == 0)
        rc = manifest_write(out, &now, NULL, e);
    if (rc == 0 && !charts) { /* only when empty: what else is in it is not ours */
        snprintf(to, sizeof to, "%s/%s", out, REPORT_CHARTS);
        rmdir(to);
    }
    names_release(&now);
    names_release(&before);
    return rc;
}

/* --- one build --------------------------------------------------------------------------- */

/* Every output of the aggregated reports into dir. */
static int
build_outputs(const char *dir, const struct report_opts *o, json_t *sum, json_t *view,
              struct err *e)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/summary.json", dir);
    int rc = write_json(path, sum, e);
    if (rc == 0)
        rc = write_csvs(dir, sum, e);
    if (rc == 0 && !json_is_false(json_object_get(sum, "zones_given")))
        rc = report_matrix_csvs(dir, sum, e);
    if (rc == 0)
        rc = report_charts(dir, sum, view, o->warn, e);
    if (rc == 0)
        rc = report_sweep_charts(dir, sum, view, o->warn, e);
    if (rc == 0) {
        char *owned;
        const char *css = report_template("report.css", &owned);
        json_object_set_new(view, "css", json_string(css ? css : ""));
        free(owned);
        snprintf(path, sizeof path, "%s/report.md", dir);
        rc = render_template("report.md", view, TMPL_MARKDOWN, path, e);
    }
    if (rc == 0) {
        snprintf(path, sizeof path, "%s/report.html", dir);
        rc = render_template("report.html", view, TMPL_HTML, path, e);
    }
    return rc;
}

/* What the caller hears of runs that are not complete, one line each. */
static void
completeness_warn(const struct rmodel *m, FILE *warn)
{
    for (size_t i = 0; warn != NULL && i < m->nruns; i++) {
        const struct rrun *r = &m->runs[i];
        unsigned long long rec = r->ok + r->failed, planned = r->planned;
        unsigned long long nr = planned > rec ? planned - rec : 0;
        /* adaptive pairs the rule has not decided: the least they take */
        const char *al = r->undecided > 0 ? "at least " : "";
        if (r->in_progress)
            fprintf(warn,
                    "netsurvey: warning: %s: the run is still going (netsurvey pid %ld holds "
                    "it): the reports show the %llu trials recorded so far, of %s%llu planned\n",
                    r->dir, r->owner_pid, rec, al, planned);
        else if (!report_run_complete(r))
            fprintf(warn,
                    "netsurvey: warning: %s: the run is incomplete (state %s): %s%llu of %s%llu "
                    "planned trials not run%s; netsurvey run --resume %s runs them\n",
                    r->dir,
                    journal_run_state_name(r->run->state) != NULL
                        ? journal_run_state_name(r->run->state)
                        : "not recorded",
                    al, nr, al, planned,
                    r->undecided > 0 ? " (host pairs of adaptive trials undecided)" : "", r->dir);
    }
}

/* Load, aggregate and build into a fresh build directory inside out, then publish it. */
static int
render_locked(const struct report_opts *o, struct err *e)
{
    struct rmodel *m;
    struct rmodel_opts mo = {.warn = o->warn,
                             .lenient = o->lenient,
                             .owned_by_caller = o->owned_by_caller,
                             .by_zone_id = o->by_zone_id,
                             .same_hosts = o->same_hosts};
    int rc = report_model_load_with(o->dirs, o->ndirs, &mo, &m, e);
    if (rc != 0)
        return rc;
    if (o->result != NULL)
        report_completeness(m, &o->result->in_progress, &o->result->incomplete);
    completeness_warn(m, o->warn);
    json_t *sum = NULL, *view = NULL;
    rc = report_aggregate(m, &sum, &view, e);
    report_model_free(m);
    char build[PATH_MAX / 2]; /* room for the outputs' names under it */
    builds_stale_remove(o->out);
    if (rc == 0 && (size_t)snprintf(build, sizeof build, "%s/%sXXXXXX", o->out,
                                    REPORT_BUILD_PREFIX) >= sizeof build)
        rc = err_set(e, NS_ETOOBIG, "path too long: %s", o->out);
    bool read = rc == 0;
    if (rc == 0 && mkdtemp(build) == NULL)
        rc = err_sys(e, NS_EIO, errno, "cannot create a build directory in %s", o->out);
    else if (rc == 0) {
        rc = build_outputs(build, o, sum, view, e);
        if (rc == 0)
            rc = publish(o->out, build, e);
        build_remove(build);
        if (rc == 0 && o->matrices != NULL)
            report_matrices_write(sum, o->matrices);
    }
    if (read && rc != 0 && o->result != NULL)
        o->result->unwritten = true;
    json_decref(sum);
    json_decref(view);
    return rc;
}

/* Before anything is made or written: every input is a run directory (a missing one is said,
 * not created as the output folder), and out is no run's directory but the one run reported
 * (a merge written there would replace that run's own report, another run's would lose its). */
static int
outputs_check(const struct report_opts *o, struct err *e)
{
    for (int i = 0; i < o->ndirs; i++)
        if (!journal_is_run_dir(o->dirs[i]))
            return err_set(e, NS_ENOTFOUND, "%s: no run directory there (no %s): nothing written",
                           o->dirs[i], JOURNAL_RUN_FILE);
    if (!journal_is_run_dir(o->out) || (o->ndirs == 1 && fsdir_same(o->out, o->dirs[0])))
        return 0;
    if (o->result != NULL)
        o->result->output_refused = true;
    return err_set(e, NS_EINVAL,
                   "%s is the directory of %s: its own report would be replaced by this one "
                   "(give -o a folder of its own): nothing written",
                   o->out, o->ndirs == 1 ? "another run" : "a run");
}

/* The output directory, made with its parents if missing, open and flock'ed (returns its
 * descriptor, or -1). */
static int
out_lock(const char *out, struct err *e)
{
    if (fsdir_make(out, NULL, e) != 0)
        return -1;
    int dfd = open(out, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0) {
        err_sys(e, NS_EIO, errno, "cannot open %s", out);
        return -1;
    }
    int rc;
    do
        rc = flock(dfd, LOCK_EX);
    while (rc != 0 && errno == EINTR);
    if (rc != 0) {
        err_sys(e, NS_EIO, errno, "cannot lock %s", out);
        close(dfd);
        return -1;
    }
    return dfd;
}

int
report_render(const struct report_opts *o, struct err *e)
{
    if (o->result != NULL)
        *o->result = (struct report_result){0};
    int rc = outputs_check(o, e);
    if (rc != 0)
        return rc;
    int dfd = out_lock(o->out, e);
    if (dfd < 0) {
        if (o->result != NULL)
            o->result->unwritten = true;
        return NS_EIO;
    }
    report_jarena_begin();
    rc = render_locked(o, e);
    report_jarena_end();
    close(dfd); /* and with it the lock */
    return rc;
}
