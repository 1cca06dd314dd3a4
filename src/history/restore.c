/* restore.c - a published run written back as a run directory (`netsurvey report --db URL
 * RUN_ID`): run.json and results.jsonl byte for byte as they were published, the journal's
 * lines merged back in order from trials and journal_lines. The journal stays the source of
 * truth: what the database gives back is a run directory every command reads as any other, and
 * its report is rendered from it by the report's own code, so that it is the report the
 * directory gave. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/errors.h"
#include "common/fsdir.h"
#include "history/dbint.h"
#include "history/history.h"
#include "journal/journal.h"
#include "report/output.h"

/* Whether dir may take the run: missing, empty, or holding that same run (whose two files are
 * then replaced) and no live netsurvey. */
static int
dir_check(const char *dir, const char *run_id, struct err *e)
{
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
    return 0;
}

/* A query's rows of (line, text) in line order. */
struct src {
    struct db_rows *r;
    int more; /* 1: a row is there */
    int64_t line;
};

static int
src_next(struct db *db, struct src *s, struct err *e)
{
    s->more = db_next(db, s->r, e);
    if (s->more == 1)
        s->line = db_col_int(db, s->r, 0);
    return s->more < 0 ? s->more : 0;
}

static int
journal_write(struct db *db, const char *run_id, const char *dir, int64_t nlines, bool torn,
              struct err *e)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, JOURNAL_RESULTS_FILE);
    struct db_val id = db_text(run_id);
    struct src t = {0}, o = {0};
    int rc = db_query(db, "SELECT line, record FROM trials WHERE run_id = $1 ORDER BY line", &id, 1,
                      &t.r, e);
    if (rc == 0)
        rc = db_query(db, "SELECT line, text FROM journal_lines WHERE run_id = $1 ORDER BY line",
                      &id, 1, &o.r, e);
    struct rbuf b;
    rbuf_init(&b);
    bool open = false;
    if (rc == 0 && (rc = report_stream_open(path, &b, e)) == 0)
        open = true;
    if (rc == 0)
        rc = src_next(db, &t, e);
    if (rc == 0)
        rc = src_next(db, &o, e);
    for (int64_t line = 1; rc == 0 && line <= nlines; line++) {
        const void *p;
        size_t n;
        if (t.more == 1 && t.line == line) {
            p = db_col_text(db, t.r, 1, &n);
            rbuf_add(&b, p, n);
            rc = src_next(db, &t, e);
        } else if (o.more == 1 && o.line == line) {
            p = db_col_blob(db, o.r, 1, &n);
            rbuf_add(&b, p, n);
            rc = src_next(db, &o, e);
        } else {
            rc = err_set(e, NS_EPROTO, "%s: line %lld of run %s's journal is missing", db->shown,
                         (long long)line, run_id);
            break;
        }
        if (line < nlines || !torn)
            rbuf_add(&b, "\n", 1);
    }
    if (rc == 0 && (t.more == 1 || o.more == 1))
        rc = err_set(e, NS_EPROTO, "%s: run %s's journal has lines past its %lld", db->shown,
                     run_id, (long long)nlines);
    if (open)
        rc = report_stream_finish(path, &b, rc, e);
    rbuf_release(&b);
    db_rows_free(db, t.r);
    db_rows_free(db, o.r);
    return rc;
}

int
history_db_restore(const char *url, const char *run_id, const char *dir, bool *database_failed,
                   struct err *e)
{
    struct db *db;
    *database_failed = true;
    int rc = db_open(url, false, &db, e);
    if (rc != 0) {
        *database_failed = rc != NS_EINVAL;
        return rc;
    }
    struct db_val id = db_text(run_id);
    struct db_rows *r = NULL;
    rc = db_query(db, "SELECT run_json, journal_lines, journal_torn FROM runs WHERE run_id = $1",
                  &id, 1, &r, e);
    int got = rc == 0 ? db_next(db, r, e) : rc;
    if (got == 0)
        rc = err_set(e, NS_ENOTFOUND, "%s: no run %s", db->shown, run_id);
    else if (got < 0)
        rc = got;
    if (rc == 0) {
        int64_t nlines = db_col_int(db, r, 1);
        bool torn = db_col_int(db, r, 2) != 0;
        size_t n;
        const char *text = db_col_text(db, r, 0, &n);
        struct rbuf b;
        rbuf_init(&b);
        rbuf_add(&b, text != NULL ? text : "", n);
        *database_failed = false;
        rc = dir_check(dir, run_id, e);
        if (rc == 0)
            rc = fsdir_make(dir, NULL, e);
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, JOURNAL_RUN_FILE);
        if (rc == 0)
            rc = report_write_file(path, &b, e);
        rbuf_release(&b);
        db_rows_free(db, r);
        r = NULL;
        if (rc == 0) {
            rc = journal_write(db, run_id, dir, nlines, torn, e);
            *database_failed =
                rc == NS_EPROTO || (rc != 0 && strncmp(e->msg, db->shown, strlen(db->shown)) == 0);
        }
    }
    db_rows_free(db, r);
    db_close(db);
    return rc;
}
