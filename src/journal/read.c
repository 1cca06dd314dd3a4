/* read.c - the one reader of a run directory: run.json with its cap, results.jsonl line by line
 * (each with its cap), every line through the fast decoder and, when it declines, jansson. The
 * records are decoded at once and handed on, so memory follows one line, not the file. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/fileread.h"
#include "journal/journal.h"
#include "journal/scan.h"

#define READ_CHUNK (1u << 20) /* 4 KiB reads of a 200 MB journal cost 0.1 s of system time */

struct journal_reader {
    bool slow;
    bool no_buckets;    /* journal_reader_keep_buckets(rd, false) */
    const char *run_id; /* the run whose records are taken; NULL: any */
    struct journal_scan *scan;
    struct journal_buckets bb; /* the jansson path's */
    json_t *tree;              /* the last line's, when jansson read it */
};

struct journal_reader *
journal_reader_new(bool slow)
{
    struct journal_reader *rd = calloc(1, sizeof *rd);
    if (rd == NULL)
        return NULL;
    rd->slow = slow;
    rd->scan = journal_scan_new();
    if (rd->scan == NULL) {
        free(rd);
        return NULL;
    }
    return rd;
}

void
journal_reader_set_run(struct journal_reader *rd, const char *run_id)
{
    rd->run_id = run_id;
}

void
journal_reader_keep_buckets(struct journal_reader *rd, bool keep)
{
    rd->no_buckets = !keep;
    journal_scan_keep_buckets(rd->scan, keep);
}

void
journal_reader_free(struct journal_reader *rd)
{
    if (rd == NULL)
        return;
    journal_scan_free(rd->scan);
    journal_buckets_release(&rd->bb);
    json_decref(rd->tree);
    free(rd);
}

int
journal_reader_parse(struct journal_reader *rd, const char *line, size_t len,
                     struct journal_trial *t, struct err *e)
{
    json_decref(rd->tree);
    rd->tree = NULL;
    if (rd->slow || !journal_scan_trial(rd->scan, line, len, t)) {
        json_error_t je;
        rd->tree = json_loadb(line, len, 0, &je);
        if (rd->tree == NULL)
            return err_set(e, NS_EPARSE, "%s", je.text);
        if (journal_trial_from_json(rd->tree, &rd->bb, t) != 0)
            return err_set(e, NS_ENOMEM, "out of memory");
        if (rd->no_buckets) { /* as the fast decoder leaves them */
            t->result.buckets = NULL;
            t->result.nbuckets = 0;
            t->result.runs = NULL;
            t->result.nruns = 0;
            t->result.counts = NULL;
            t->result.ncounts = 0;
        }
    }
    int rc = journal_trial_check(t, e);
    if (rc != 0 || rd->run_id == NULL || (t->run_id != NULL && strcmp(t->run_id, rd->run_id) == 0))
        return rc;
    if (t->run_id == NULL)
        return err_set(e, NS_EPROTO, "a record without a run_id (the run is '%s')", rd->run_id);
    return err_set(e, NS_EPROTO, "a record of another run ('%.64s'; the run is '%s')", t->run_id,
                   rd->run_id);
}

/* --- run.json -----------------------------------------------------------------------------------
 */

int
journal_read_run(const char *dir, struct journal_run **out, struct err *e)
{
    return journal_read_run_v(dir, out, NULL, e);
}

int
journal_read_run_v(const char *dir, struct journal_run **out, bool *unknown_version, struct err *e)
{
    *out = NULL;
    if (unknown_version != NULL)
        *unknown_version = false;
    char path[PATH_MAX];
    if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, JOURNAL_RUN_FILE) >= sizeof path)
        return err_set(e, NS_ETOOBIG, "path too long: %s", dir);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) /* jansson's words, which the reports have always shown */
        return err_sys(e, errno == ENOENT ? NS_ENOTFOUND : NS_EIO, errno, "unable to open %s",
                       path);
    char *text = NULL;
    size_t len = 0;
    int rc = fileread_fd(fd, JOURNAL_RUN_MAX, &text, &len, e);
    close(fd);
    if (rc == NS_ETOOBIG)
        return err_set(e, rc, "%s is larger than %u bytes", path, JOURNAL_RUN_MAX);
    if (rc != 0)
        return err_wrap(e, rc, "cannot read %s", path);
    json_error_t je;
    json_t *doc = json_loadb(text, len, 0, &je);
    free(text);
    if (doc == NULL)
        return err_set(e, NS_EPARSE, "%s:%d:%d: %s", path, je.line, je.column, je.text);
    if (!json_is_object(doc))
        rc = err_set(e, NS_EPARSE, "%s: not a JSON object", path);
    else if ((rc = journal_run_from_json(doc, out, e)) != 0) {
        err_prefix(e, "%s", path);
        if (unknown_version != NULL)
            *unknown_version =
                journal_run_schema_unknown(json_string_value(json_object_get(doc, "schema")));
    }
    json_decref(doc);
    return rc;
}

/* --- results.jsonl
 * -------------------------------------------------------------------------------- */

/* Lines of a file descriptor, each at most JOURNAL_LINE_MAX bytes (a longer one is passed over
 * and reported), from one buffer that grows to the longest line. */
struct lines {
    int fd;
    char *buf;
    size_t cap, start, end, max;
    bool eof, skipping;
};

/* Read more into the buffer, moving the unread part to its front first and growing it when a
 * line fills it. Returns 0 or NS_EIO/NS_ENOMEM. */
static int
lines_fill(struct lines *l, struct err *e)
{
    if (l->start > 0) {
        memmove(l->buf, l->buf + l->start, l->end - l->start);
        l->end -= l->start;
        l->start = 0;
    }
    if (l->end == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : READ_CHUNK;
        char *b = realloc(l->buf, cap);
        if (b == NULL)
            return err_set(e, NS_ENOMEM, "out of memory");
        l->buf = b;
        l->cap = cap;
    }
    ssize_t n;
    do
        n = read(l->fd, l->buf + l->end, l->cap - l->end);
    while (n < 0 && errno == EINTR);
    if (n < 0)
        return err_sys(e, NS_EIO, errno, "cannot read the results");
    l->eof = n == 0;
    l->end += (size_t)n;
    return 0;
}

/* The next line (with its newline, when it has one) in *line and *len; *more false at the end.
 * A line longer than the cap comes back with *too_long set and *len 0. */
static int
lines_next(struct lines *l, const char **line, size_t *len, bool *too_long, bool *more,
           struct err *e)
{
    for (;;) {
        char *p = l->buf + l->start;
        char *nl = l->end > l->start ? memchr(p, '\n', l->end - l->start) : NULL;
        size_t have = nl != NULL ? (size_t)(nl + 1 - p) : l->end - l->start;
        if (nl != NULL || (l->eof && (have > 0 || l->skipping))) {
            *too_long = l->skipping || have > l->max;
            *line = p;
            *len = *too_long ? 0 : have;
            l->start += have;
            l->skipping = false;
            *more = true;
            return 0;
        }
        if (l->eof) {
            *more = false;
            return 0;
        }
        if (have > l->max) { /* drop what is here, find the line's end */
            l->skipping = true;
            l->start = l->end;
        }
        int rc = lines_fill(l, e);
        if (rc != 0)
            return rc;
    }
}

static int
results_open(const char *dir, char *path, size_t len, int *fd, struct err *e)
{
    if ((size_t)snprintf(path, len, "%s/%s", dir, JOURNAL_RESULTS_FILE) >= len)
        return err_set(e, NS_ETOOBIG, "path too long: %s", dir);
    *fd = open(path, O_RDONLY | O_CLOEXEC);
    if (*fd < 0)
        return err_sys(e, errno == ENOENT ? NS_ENOTFOUND : NS_EIO, errno, "cannot open %s", path);
    struct stat st;
    int rc = fstat(*fd, &st) == 0 ? 0 : err_sys(e, NS_EIO, errno, "cannot stat %s", path);
    if (rc == 0 && (unsigned long long)st.st_size > JOURNAL_RESULTS_MAX)
        rc = err_set(e, NS_ETOOBIG, "%s is larger than %llu bytes", path, JOURNAL_RESULTS_MAX);
    if (rc != 0)
        close(*fd);
    return rc;
}

static bool
slow_wanted(void)
{
    const char *v = getenv("NETSURVEY_JOURNAL_SLOW");
    return v != NULL && strcmp(v, "1") == 0;
}

/* What the reading is for: the callbacks, and where a line goes. */
struct read_ctx {
    const char *path;
    journal_trial_fn fn;
    journal_skip_fn skip;
    void *arg;
    struct journal_read_stats *st;
};

/* A line passed over: counted, and said. Returns 0 or skip's code. */
static int
line_skip(const struct read_ctx *c, unsigned long lineno, enum journal_skip_kind kind,
          const char *why, struct err *e)
{
    struct journal_read_stats *st = c->st;
    if (kind == JOURNAL_SKIP_TORN)
        st->torn++;
    else if (kind == JOURNAL_SKIP_BAD)
        st->bad++;
    else if (kind == JOURNAL_SKIP_INVALID)
        st->invalid++;
    else
        st->refused++;
    if (c->skip == NULL)
        return 0;
    struct journal_skip s = {.path = c->path, .line = lineno, .kind = kind, .why = why};
    return c->skip(c->arg, &s, e);
}

/* One line: hand it on, or say why not. Returns 0 or a callback's code. */
static int
line_take(const struct read_ctx *c, struct journal_reader *rd, unsigned long lineno,
          const char *line, size_t len, struct err *e)
{
    struct err why = {0};
    struct journal_trial t;
    if (len == 0 || line[len - 1] != '\n')
        return line_skip(c, lineno, JOURNAL_SKIP_TORN, "torn last line", e);
    int rc = journal_reader_parse(rd, line, len, &t, &why);
    if (rc == 0)
        rc = journal_trial_domain(&t, &why);
    if (rc == NS_ENOMEM)
        return err_set(e, rc, "out of memory");
    if (rc != 0)
        return line_skip(c, lineno,
                         rc == NS_EPROTO   ? JOURNAL_SKIP_REFUSED
                         : rc == NS_ERANGE ? JOURNAL_SKIP_INVALID
                                           : JOURNAL_SKIP_BAD,
                         why.msg, e);
    struct err ce = {0};
    rc = c->fn(c->arg, &t, &ce);
    if (rc == JOURNAL_PASS_OVER)
        return line_skip(c, lineno, JOURNAL_SKIP_INVALID, ce.msg, e);
    if (rc != 0 && e != NULL)
        *e = ce;
    if (rc == 0)
        c->st->records++;
    return rc;
}

int
journal_read_trials(const char *dir, const char *run_id, journal_trial_fn fn, journal_skip_fn skip,
                    void *arg, struct journal_read_stats *st, struct err *e)
{
    return journal_read_trials_capped(dir, run_id, JOURNAL_LINE_MAX, true, fn, skip, arg, st, e);
}

int
journal_read_trials_nobuckets(const char *dir, const char *run_id, journal_trial_fn fn,
                              journal_skip_fn skip, void *arg, struct journal_read_stats *st,
                              struct err *e)
{
    return journal_read_trials_capped(dir, run_id, JOURNAL_LINE_MAX, false, fn, skip, arg, st, e);
}

int
journal_read_trials_capped(const char *dir, const char *run_id, size_t line_max, bool buckets,
                           journal_trial_fn fn, journal_skip_fn skip, void *arg,
                           struct journal_read_stats *st, struct err *e)
{
    memset(st, 0, sizeof *st);
    char path[PATH_MAX];
    struct lines l = {.fd = -1, .max = line_max};
    int rc = results_open(dir, path, sizeof path, &l.fd, e);
    if (rc != 0)
        return rc;
    struct read_ctx c = {.path = path, .fn = fn, .skip = skip, .arg = arg, .st = st};
    struct journal_reader *rd = journal_reader_new(slow_wanted());
    if (rd == NULL)
        rc = err_set(e, NS_ENOMEM, "out of memory");
    else {
        journal_reader_set_run(rd, run_id);
        journal_reader_keep_buckets(rd, buckets);
    }
    unsigned long lineno = 0;
    bool more = true;
    while (rc == 0 && more) {
        const char *line = NULL;
        size_t len = 0;
        bool too_long;
        rc = lines_next(&l, &line, &len, &too_long, &more, e);
        if (rc != 0 || !more)
            break;
        lineno++;
        if (too_long) {
            char why[64];
            snprintf(why, sizeof why, "line longer than %zu bytes", line_max);
            rc = line_skip(&c, lineno, JOURNAL_SKIP_BAD, why, e);
            continue;
        }
        rc = line_take(&c, rd, lineno, line, len, e);
    }
    journal_reader_free(rd);
    free(l.buf);
    close(l.fd);
    return rc;
}
