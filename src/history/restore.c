/* restore.c - a published run written back as a run directory (`netsurvey report --db URL
 * RUN_ID`): run.json and results.jsonl byte for byte as they were published, the journal's
 * lines merged back in order from trials and journal_lines. The journal stays the source of
 * truth: what the database gives back is a run directory every command reads as any other, and
 * its report is rendered from it by the report's own code, so that it is the report the
 * directory gave. */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/errors.h"
#include "common/fsdir.h"
#include "history/dbint.h"
#include "history/history.h"
#include "journal/journal.h"
#include "report/output.h"

/* Whether the file path holds exactly the n bytes of text. */
static bool
file_is(const char *path, const char *text, size_t n)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return false;
    char buf[65536];
    size_t at = 0, got;
    bool same = true;
    while (same && (got = fread(buf, 1, sizeof buf, f)) > 0) {
        same = got <= n - at && memcmp(buf, text + at, got) == 0;
        at += got;
    }
    same = same && !ferror(f) && at == n;
    fclose(f);
    return same;
}

/* The lines of the file path (a last one without its newline counted), or -1 when unreadable. */
static int64_t
file_lines(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return errno == ENOENT ? 0 : -1;
    char buf[65536];
    size_t got;
    int64_t lines = 0;
    char last = '\n';
    while ((got = fread(buf, 1, sizeof buf, f)) > 0) {
        for (const char *p = buf; (p = memchr(p, '\n', got - (size_t)(p - buf))) != NULL; p++)
            lines++;
        last = buf[got - 1];
    }
    bool bad = ferror(f) != 0;
    fclose(f);
    return bad ? -1 : lines + (last != '\n');
}

/* Whether dir may take the run: missing or empty (*fresh), or holding that same run as the
 * database has it (run.json byte for byte, as many journal lines), whose two files are then
 * replaced, and no live netsurvey. A copy that moved on since it was published (resumed: more
 * trials, a plan revision) is refused: writing the database's over it would destroy its
 * journal. */
static int
dir_check(const char *dir, const char *run_id, const struct rbuf *run_json, int64_t nlines,
          bool *fresh, struct err *e)
{
    *fresh = true;
    DIR *d = opendir(dir);
    if (d == NULL)
        return errno == ENOENT ? 0 : err_sys(e, NS_EIO, errno, "cannot open %s", dir);
    bool empty = true;
    struct dirent *de;
    while ((de = readdir(d)) != NULL)
        if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
            empty = false;
    closedir(d);
    if (empty)
        return 0;
    *fresh = false;
    struct journal_run *run = NULL;
    struct err je = {0};
    bool same = journal_read_run(dir, &run, &je) == 0 && run->run_id != NULL &&
                strcmp(run->run_id, run_id) == 0;
    journal_run_free(run);
    if (!same)
        return err_set(e, NS_EBUSY,
                       "%s is not empty and holds no copy of run %s: give another directory", dir,
                       run_id);
    long pid;
    if (journal_owner(dir, &pid, &je) == 1)
        return err_set(e, NS_EBUSY, "%s is in use by a netsurvey run (pid %ld)", dir, pid);
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, JOURNAL_RUN_FILE);
    bool same_run_json = file_is(path, run_json->data != NULL ? run_json->data : "", run_json->len);
    snprintf(path, sizeof path, "%s/%s", dir, JOURNAL_RESULTS_FILE);
    int64_t lines = file_lines(path);
    if (!same_run_json || lines != nlines)
        return err_set(e, NS_EBUSY,
                       "%s holds run %s in another state than the database's (%s %s, %lld "
                       "journal lines where the database has %lld): writing the database's "
                       "copy over it would destroy its journal; netsurvey report %s renders it, "
                       "or give -o another directory (nothing written)",
                       dir, run_id, same_run_json ? "the same" : "another", JOURNAL_RUN_FILE,
                       (long long)lines, (long long)nlines, dir);
    return 0;
}

/* The journal's lines that are not trials (few: superseded records, a torn last line), read
 * first: a connection reads one query's rows at a time, and the trials are many. */
struct others {
    int64_t *line;
    char **text;
    size_t *len;
    size_t n;
};

static void
others_free(struct others *o)
{
    for (size_t i = 0; i < o->n; i++)
        free(o->text[i]);
    free(o->line);
    free(o->text);
    free(o->len);
}

static int
others_read(struct db *db, const char *run_id, struct others *o, struct err *e)
{
    struct db_val id = history_db_text(run_id);
    struct db_rows *r = NULL;
    memset(o, 0, sizeof *o);
    int rc = history_db_query(
        db, "SELECT line, text FROM journal_lines WHERE run_id = $1 ORDER BY line", &id, 1, &r, e);
    size_t cap = 0;
    while (rc == 0 && (rc = history_db_next(db, r, e)) == 1) {
        rc = 0;
        if (o->n == cap) {
            cap = cap ? cap * 2 : 16;
            int64_t *l = realloc(o->line, cap * sizeof *l);
            if (l != NULL)
                o->line = l;
            char **t = realloc(o->text, cap * sizeof *t);
            if (t != NULL)
                o->text = t;
            size_t *n = realloc(o->len, cap * sizeof *n);
            if (n != NULL)
                o->len = n;
            if (l == NULL || t == NULL || n == NULL) {
                rc = err_set(e, NS_ENOMEM, "out of memory");
                break;
            }
        }
        size_t len;
        const void *p = history_db_col_blob(db, r, 1, &len);
        o->line[o->n] = history_db_col_int(db, r, 0);
        o->len[o->n] = len;
        if ((o->text[o->n] = malloc(len + 1)) == NULL) {
            rc = err_set(e, NS_ENOMEM, "out of memory");
            break;
        }
        memcpy(o->text[o->n++], p, len);
    }
    if (r != NULL)
        history_db_rows_free(db, r);
    return rc < 0 ? rc : 0;
}

static int
journal_write(struct db *db, const char *run_id, const char *dir, int64_t nlines, bool torn,
              struct err *e)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, JOURNAL_RESULTS_FILE);
    struct others oth;
    int rc = others_read(db, run_id, &oth, e);
    struct db_val id = history_db_text(run_id);
    struct db_rows *t = NULL;
    if (rc == 0)
        rc = history_db_query(db, "SELECT line, record FROM trials WHERE run_id = $1 ORDER BY line",
                              &id, 1, &t, e);
    struct rbuf b;
    report_buf_init(&b);
    bool open = false;
    if (rc == 0 && (rc = report_stream_open(path, &b, e)) == 0)
        open = true;
    int more = rc == 0 ? history_db_next(db, t, e) : 0;
    int64_t tline = more == 1 ? history_db_col_int(db, t, 0) : 0;
    size_t k = 0;
    if (more < 0)
        rc = more;
    for (int64_t line = 1; rc == 0 && line <= nlines; line++) {
        size_t n;
        if (more == 1 && tline == line) {
            const char *p = history_db_col_text(db, t, 1, &n);
            report_buf_add(&b, p, n);
            if ((more = history_db_next(db, t, e)) == 1)
                tline = history_db_col_int(db, t, 0);
            else if (more < 0)
                rc = more;
        } else if (k < oth.n && oth.line[k] == line) {
            report_buf_add(&b, oth.text[k], oth.len[k]);
            k++;
        } else {
            rc = err_set(e, NS_EPROTO, "%s: line %lld of run %s's journal is missing", db->shown,
                         (long long)line, run_id);
            break;
        }
        if (line < nlines || !torn)
            report_buf_add(&b, "\n", 1);
    }
    if (rc == 0 && (more == 1 || k < oth.n))
        rc = err_set(e, NS_EPROTO, "%s: run %s's journal has lines past its %lld", db->shown,
                     run_id, (long long)nlines);
    if (rc == 0 && b.oom)
        rc = err_set(e, NS_ENOMEM, "out of memory");
    if (open)
        rc = report_stream_finish(path, &b, rc, e);
    report_buf_release(&b);
    history_db_rows_free(db, t);
    others_free(&oth);
    return rc;
}

int
history_db_restore(const char *url, const char *run_id, const char *dir, bool *database_failed,
                   struct err *e)
{
    struct db *db;
    *database_failed = true;
    int rc = history_db_open(url, false, &db, e);
    if (rc != 0) {
        *database_failed = rc != NS_EINVAL;
        return rc;
    }
    struct db_val id = history_db_text(run_id);
    struct db_rows *r = NULL;
    rc = history_db_query(
        db, "SELECT run_json, journal_lines, journal_torn FROM runs WHERE run_id = $1", &id, 1, &r,
        e);
    int got = rc == 0 ? history_db_next(db, r, e) : rc;
    if (got == 0)
        rc = err_set(e, NS_ENOTFOUND, "%s: no run %s", db->shown, run_id);
    else if (got < 0)
        rc = got;
    if (rc == 0) {
        int64_t nlines = history_db_col_int(db, r, 1);
        bool torn = history_db_col_int(db, r, 2) != 0;
        size_t n;
        const char *text = history_db_col_text(db, r, 0, &n);
        struct rbuf b;
        report_buf_init(&b);
        report_buf_add(&b, text != NULL ? text : "", n);
        history_db_rows_free(db, r);
        r = NULL;
        *database_failed = false;
        bool existed = false, fresh = false;
        rc = b.oom ? err_set(e, NS_ENOMEM, "out of memory")
                   : dir_check(dir, run_id, &b, nlines, &fresh, e);
        if (rc == 0)
            rc = fsdir_make(dir, &existed, e);
        char run_path[4096], jpath[4096];
        snprintf(run_path, sizeof run_path, "%s/%s", dir, JOURNAL_RUN_FILE);
        snprintf(jpath, sizeof jpath, "%s/%s", dir, JOURNAL_RESULTS_FILE);
        if (rc == 0) { /* the journal first: run.json makes it a run directory */
            rc = journal_write(db, run_id, dir, nlines, torn, e);
            *database_failed =
                rc == NS_EPROTO || (rc != 0 && strncmp(e->msg, db->shown, strlen(db->shown)) == 0);
            if (rc == 0)
                rc = report_write_file(run_path, &b, e);
            if (rc != 0 && fresh) { /* nothing half-written: what this made goes */
                unlink(jpath);
                unlink(run_path);
                if (!existed)
                    rmdir(dir);
            }
        }
        report_buf_release(&b);
    }
    history_db_rows_free(db, r);
    history_db_close(db);
    return rc;
}
