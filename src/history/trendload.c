/* trendload.c - the runs of a trend: run.json of each (refusing a run given twice or one that
 * cannot be placed in time), the time order, and each run's summary reduced to what a trend
 * reads.
 *
 * A run is read as `netsurvey report` reads it, but without the trials' histograms (their
 * buckets checked, not kept: journal_read_trials_nobuckets) and without its host pairs
 * (report_cells_read: the same zone cells and counts; a 100 000-trial journal in under a third
 * of the report's CPU and 29 MiB instead of 140), and a trend reads
 * twenty: the runs are read by child processes, jobs at a time, each sending its reduced summary
 * back as JSON over a pipe (reals at 17 digits: the parent gets the very doubles the child
 * computed). Processes rather than threads because jansson's allocator is process-wide
 * (report_jarena_begin) and the journal's reader is not made for threads; one run at a time
 * (jobs 1) goes through the same JSON text in this process, so both give the same bytes. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/errors.h"
#include "history/cells.h"
#include "history/trendint.h"
#include "journal/journal.h"
#include "report/output.h"
#include "report/report.h"

#define TLOAD_MAX (64u << 20) /* a reduced summary: a few KiB per scenario */

/* --- time ------------------------------------------------------------------------------------ */

/* Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil): no
 * timegm, no TZ, no locale. */
static int64_t
days_from_civil(int64_t y, unsigned m, unsigned d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    unsigned yoe = (unsigned)(y - era * 400);
    unsigned doy = (153 * (m + (m > 2 ? (unsigned)-3 : 9)) + 2) / 5 + d - 1;
    unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (int64_t)doe - 719468;
}

/* n decimal digits at s; -1 when one is not a digit. */
static long
digits(const char *s, int n)
{
    long v = 0;
    for (int i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    return v;
}

bool
history_trend_parse_time(const char *s, int64_t *sec, int32_t *nsec)
{
    if (s == NULL || strlen(s) < 19 || s[4] != '-' || s[7] != '-' ||
        (s[10] != 'T' && s[10] != ' ') || s[13] != ':' || s[16] != ':')
        return false;
    long y = digits(s, 4), mo = digits(s + 5, 2), d = digits(s + 8, 2), h = digits(s + 11, 2),
         mi = digits(s + 14, 2), se = digits(s + 17, 2);
    if (y < 0 || mo < 1 || mo > 12 || d < 1 || d > 31 || h < 0 || h > 23 || mi < 0 || mi > 59 ||
        se < 0 || se > 60)
        return false;
    const char *p = s + 19;
    long ns = 0;
    if (*p == '.') {
        int k = 0;
        for (p++; *p >= '0' && *p <= '9'; p++, k++)
            if (k < 9)
                ns = ns * 10 + (*p - '0');
        if (k == 0)
            return false;
        for (; k < 9; k++)
            ns *= 10;
    }
    long off = 0;
    if (*p == 'Z' && p[1] == '\0') {
        off = 0;
    } else if ((*p == '+' || *p == '-') && strlen(p) == 6 && p[3] == ':') {
        long oh = digits(p + 1, 2), om = digits(p + 4, 2);
        if (oh < 0 || oh > 23 || om < 0 || om > 59)
            return false;
        off = (oh * 60 + om) * 60 * (*p == '-' ? -1 : 1);
    } else {
        return false; /* a time without its zone cannot be placed among others */
    }
    *sec = days_from_civil(y, (unsigned)mo, (unsigned)d) * 86400 + h * 3600 + mi * 60 + se - off;
    *nsec = (int32_t)ns;
    return true;
}

/* --- run.json of each, and the order -------------------------------------------------------- */

static char *
dupstr(const char *s)
{
    return strdup(s != NULL ? s : "");
}

static int
cmp_run(const void *a, const void *b)
{
    const struct trun *x = a, *y = b;
    if (x->t_s != y->t_s)
        return x->t_s < y->t_s ? -1 : 1;
    if (x->t_ns != y->t_ns)
        return x->t_ns < y->t_ns ? -1 : 1;
    int c = strcmp(x->run_id, y->run_id);
    if (c == 0)
        c = strcmp(x->dir, y->dir);
    return c;
}

static int
run_open(struct trun *r, const char *dir, size_t given, struct err *e)
{
    struct journal_run *run = NULL;
    r->given = given;
    r->dir = dupstr(dir);
    if (r->dir == NULL)
        return err_set(e, NS_ENOMEM, "out of memory");
    int rc = journal_read_run(dir, &run, e);
    if (rc != 0)
        return rc;
    r->run_id = dupstr(run->run_id);
    r->started = dupstr(run->started);
    r->state = journal_run_state_name(run->state); /* static strings */
    for (size_t i = 0; i < run->nscenarios; i++) {
        r->planned += run->scenarios[i].planned;
        r->adaptive |= trials_adaptive(&run->scenarios[i].policy);
    }
    journal_run_free(run);
    long pid;
    struct err oe = {0};
    r->in_progress = journal_owner(dir, &pid, &oe) == 1; /* an error: nobody known to hold it */
    if (r->run_id == NULL || r->started == NULL)
        return err_set(e, NS_ENOMEM, "out of memory");
    if (!history_trend_parse_time(r->started, &r->t_s, &r->t_ns))
        return err_set(e, NS_EPARSE,
                       "%s/%s: start time '%.64s' is not an ISO 8601 time with its zone: the run "
                       "cannot be placed in time",
                       dir, JOURNAL_RUN_FILE, r->started);
    return 0;
}

int
history_trend_runs_open(const char *const *dirs, size_t n, struct trun **out, struct err *e)
{
    struct trun *runs = calloc(n ? n : 1, sizeof *runs);
    if (runs == NULL)
        return err_set(e, NS_ENOMEM, "out of memory");
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < n; i++)
        rc = run_open(&runs[i], dirs[i], i, e);
    for (size_t i = 0; rc == 0 && i < n; i++)
        for (size_t j = 0; rc == 0 && j < i; j++)
            if (strcmp(runs[i].run_id, runs[j].run_id) == 0)
                rc = err_set(e, NS_EINVAL, "run %s given twice: %s and %s", runs[i].run_id,
                             runs[j].dir, runs[i].dir);
    if (rc != 0) {
        history_trend_runs_free(runs, n);
        return rc;
    }
    history_trend_runs_sort(runs, n);
    *out = runs;
    return 0;
}

void
history_trend_runs_sort(struct trun *runs, size_t n)
{
    if (n > 1)
        qsort(runs, n, sizeof *runs, cmp_run);
}

void
history_trend_runs_free(struct trun *runs, size_t n)
{
    if (runs == NULL)
        return;
    for (size_t i = 0; i < n; i++) {
        free(runs[i].dir);
        free(runs[i].run_id);
        free(runs[i].started);
        free(runs[i].warnings);
        json_decref(runs[i].sum);
    }
    free(runs);
}

/* --- one run's summary, reduced ------------------------------------------------------------- */

/* What a trend reads of a summary: its title, its run, the journal's counts, and its scenarios
 * (report_cells_read leaves their pairs, failures and region cells out; dropped here too, should
 * a summary have them). */
json_t *
history_trend_reduce(const json_t *sum)
{
    json_t *r = json_object();
    static const char *const keep[] = {"title", "completeness", "journal"};
    for (size_t i = 0; i < sizeof keep / sizeof keep[0]; i++) {
        json_t *v = json_object_get(sum, keep[i]);
        if (v != NULL)
            json_object_set(r, keep[i], v);
    }
    json_object_set(r, "run", json_array_get(json_object_get(sum, "runs"), 0));
    json_t *scens = json_array();
    size_t i;
    const json_t *s;
    json_array_foreach(json_object_get(sum, "scenarios"), i, s)
    {
        json_t *c = json_object();
        const char *k;
        json_t *v;
        json_object_foreach((json_t *)(uintptr_t)s, k, v)
        {
            if (strcmp(k, "pairs") != 0 && strcmp(k, "failures") != 0 &&
                strcmp(k, "region_cells") != 0)
                json_object_set(c, k, v);
        }
        json_array_append_new(scens, c);
    }
    json_object_set_new(r, "scenarios", scens);
    return r;
}

static int
dump_to_rbuf(const char *buffer, size_t size, void *data)
{
    report_buf_add(data, buffer, size);
    return ((struct rbuf *)data)->oom ? -1 : 0;
}

/* The document a reader sends: {"summary": ...} or {"error", "code"}, with "warnings". The run's
 * model and summary live in jansson's arena for as long as this takes (report_jarena_begin), so
 * that twenty runs read one after the other never hold more than one. */
static void
load_one(const char *dir, struct rbuf *out)
{
    report_jarena_begin();
    char *wtext = NULL;
    size_t wlen = 0;
    FILE *w = open_memstream(&wtext, &wlen);
    struct err e = {0};
    json_t *sum = NULL;
    int rc = report_cells_read(dir, w, &sum, &e);
    if (w != NULL)
        fclose(w);
    json_t *doc = json_object();
    if (rc == 0) {
        json_object_set_new(doc, "summary", history_trend_reduce(sum));
    } else {
        if (strncmp(e.msg, dir, strlen(dir)) != 0)
            err_prefix(&e, "%s", dir); /* which of the runs, when the message does not say */
        json_object_set_new(doc, "error", json_string(e.msg));
        json_object_set_new(doc, "code", json_integer(rc));
    }
    if (wtext != NULL && wlen > 0)
        json_object_set_new(doc, "warnings", json_stringn(wtext, wlen));
    free(wtext);
    json_decref(sum);
    if (json_dump_callback(doc, dump_to_rbuf, out, JSON_COMPACT | JSON_REAL_PRECISION(17)) != 0)
        out->oom = true;
    json_decref(doc);
    report_jarena_end();
}

/* The document of a run into r: its summary, or its error into e. */
static int
take_doc(struct trun *r, const struct rbuf *text, struct err *e)
{
    if (text->oom)
        return err_set(e, NS_ENOMEM, "out of memory reading %s", r->dir);
    json_error_t je;
    json_t *doc = json_loadb(text->data ? text->data : "", text->len, 0, &je);
    if (doc == NULL)
        return err_set(e, NS_EPROTO, "reading %s: its reader sent no summary (%s)", r->dir,
                       je.text);
    const char *w = json_string_value(json_object_get(doc, "warnings"));
    if (w != NULL && (r->warnings = strdup(w)) == NULL) {
        json_decref(doc);
        return err_set(e, NS_ENOMEM, "out of memory");
    }
    int rc = 0;
    json_t *sum = json_object_get(doc, "summary");
    if (sum != NULL) {
        r->sum = json_incref(sum);
    } else {
        json_int_t code = json_integer_value(json_object_get(doc, "code"));
        rc = err_set(e, code < 0 ? (int)code : NS_EPROTO, "%s",
                     json_string_value(json_object_get(doc, "error")) != NULL
                         ? json_string_value(json_object_get(doc, "error"))
                         : "a reader failed");
    }
    json_decref(doc);
    return rc;
}

/* --- readers in child processes ------------------------------------------------------------- */

struct tworker {
    pid_t pid;
    int fd;
    size_t run;
    struct rbuf text;
};

static void
write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            _exit(1);
        p += w;
        n -= (size_t)w;
    }
}

static int
worker_start(struct tworker *w, const struct trun *r, size_t idx, struct err *e)
{
    int p[2];
    if (pipe(p) != 0)
        return err_sys(e, NS_EIO, errno, "cannot make a pipe");
    pid_t pid = fork();
    if (pid < 0) {
        close(p[0]);
        close(p[1]);
        return err_sys(e, NS_EIO, errno, "cannot start a reader");
    }
    if (pid == 0) {
        close(p[0]);
        struct rbuf b;
        report_buf_init(&b);
        load_one(r->dir, &b);
        if (b.oom)
            _exit(2);
        write_all(p[1], b.data, b.len);
        _exit(0); /* what the parent owns (its streams, its files) is left to it */
    }
    close(p[1]);
    w->pid = pid;
    w->fd = p[0];
    w->run = idx;
    report_buf_init(&w->text);
    return 0;
}

/* Read what is there; returns 1 at the end of the child's output, 0 to go on, or NS_E*. */
static int
worker_read(struct tworker *w, const struct trun *r, struct err *e)
{
    char buf[65536];
    ssize_t n = read(w->fd, buf, sizeof buf);
    if (n < 0)
        return errno == EINTR ? 0 : err_sys(e, NS_EIO, errno, "reading %s's summary", r->dir);
    if (n == 0)
        return 1;
    if (w->text.len + (size_t)n > TLOAD_MAX)
        return err_set(e, NS_ETOOBIG, "%s: its summary is larger than %u MiB", r->dir,
                       TLOAD_MAX >> 20);
    report_buf_add(&w->text, buf, (size_t)n);
    return 0;
}

/* Reap the child; an exit other than 0 is an error of its run. */
static int
worker_end(struct tworker *w, const struct trun *r, struct err *e)
{
    close(w->fd);
    w->fd = -1;
    int status;
    while (waitpid(w->pid, &status, 0) < 0)
        if (errno != EINTR)
            return err_sys(e, NS_EIO, errno, "waiting for the reader of %s", r->dir);
    w->pid = 0;
    if (WIFSIGNALED(status))
        return err_set(e, NS_EIO, "the reader of %s died of signal %d", r->dir, WTERMSIG(status));
    if (WEXITSTATUS(status) == 2)
        return err_set(e, NS_ENOMEM, "out of memory reading %s", r->dir);
    if (WEXITSTATUS(status) != 0)
        return err_set(e, NS_EIO, "the reader of %s exited with status %d", r->dir,
                       WEXITSTATUS(status));
    return 0;
}

static void
worker_kill(struct tworker *w)
{
    if (w->fd >= 0)
        close(w->fd);
    if (w->pid > 0) {
        kill(w->pid, SIGKILL);
        while (waitpid(w->pid, NULL, 0) < 0 && errno == EINTR)
            ;
    }
    report_buf_release(&w->text);
    w->pid = 0;
    w->fd = -1;
}

/* The lowest run that failed wins, whatever the order the readers finished in: every run before
 * it was started, so its error is the one a single reader would have met first. */
struct tfail {
    size_t run;
    struct err e;
    int rc;
};

static void
fail_note(struct tfail *f, size_t run, int rc, const struct err *e)
{
    if (f->rc == 0 || run < f->run) {
        f->run = run;
        f->rc = rc;
        f->e = *e;
    }
}

/* One finished reader: its document into its run. */
static void
worker_done(struct tworker *w, struct trun *runs, struct tfail *f)
{
    struct err e = {0};
    struct trun *r = &runs[w->run];
    int rc = worker_end(w, r, &e);
    if (rc == 0)
        rc = take_doc(r, &w->text, &e);
    if (rc != 0)
        fail_note(f, w->run, rc, &e);
    report_buf_release(&w->text);
}

static int
load_forked(struct trun *runs, size_t n, size_t jobs, struct err *e)
{
    struct tworker *w = calloc(jobs, sizeof *w);
    struct pollfd *pf = calloc(jobs, sizeof *pf);
    if (w == NULL || pf == NULL) {
        free(w);
        free(pf);
        return err_set(e, NS_ENOMEM, "out of memory");
    }
    size_t next = 0, active = 0;
    struct tfail f = {0};
    for (size_t i = 0; i < jobs; i++)
        w[i].fd = -1;
    while ((next < n && f.rc == 0) || active > 0) {
        for (size_t i = 0; i < jobs && next < n && f.rc == 0; i++) {
            if (w[i].fd >= 0)
                continue;
            struct err se = {0};
            int rc = worker_start(&w[i], &runs[next], next, &se);
            if (rc != 0)
                fail_note(&f, next, rc, &se);
            else
                active++;
            next++;
        }
        size_t np = 0;
        for (size_t i = 0; i < jobs; i++)
            if (w[i].fd >= 0)
                pf[np++] = (struct pollfd){.fd = w[i].fd, .events = POLLIN};
        if (np == 0)
            break;
        if (poll(pf, (nfds_t)np, -1) < 0 && errno != EINTR) {
            struct err pe = {0};
            fail_note(&f, 0, err_sys(&pe, NS_EIO, errno, "poll"), &pe);
            break;
        }
        for (size_t i = 0, k = 0; i < jobs; i++) {
            if (w[i].fd < 0)
                continue;
            short ev = pf[k++].revents;
            if (ev == 0)
                continue;
            struct err re = {0};
            int rc = worker_read(&w[i], &runs[w[i].run], &re);
            if (rc == 1) {
                worker_done(&w[i], runs, &f);
                active--;
            } else if (rc != 0) {
                fail_note(&f, w[i].run, rc, &re);
                worker_kill(&w[i]);
                active--;
            }
        }
    }
    for (size_t i = 0; i < jobs; i++)
        if (w[i].fd >= 0 || w[i].pid > 0)
            worker_kill(&w[i]);
    free(w);
    free(pf);
    if (f.rc != 0 && e != NULL)
        *e = f.e;
    return f.rc;
}

static int
load_here(struct trun *runs, size_t n, struct err *e)
{
    for (size_t i = 0; i < n; i++) {
        struct rbuf b;
        report_buf_init(&b);
        load_one(runs[i].dir, &b);
        int rc = take_doc(&runs[i], &b, e);
        report_buf_release(&b);
        if (rc != 0)
            return rc;
    }
    return 0;
}

int
history_trend_runs_load(struct trun *runs, size_t n, int jobs, struct err *e)
{
    size_t j = jobs > 0 ? (size_t)jobs : 0;
    if (jobs <= 0) {
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        j = cpus > HISTORY_TREND_JOBS_MAX ? HISTORY_TREND_JOBS_MAX : cpus > 0 ? (size_t)cpus : 1;
    }
    if (j > n)
        j = n;
    return j <= 1 ? load_here(runs, n, e) : load_forked(runs, n, j, e);
}
