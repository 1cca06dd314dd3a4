/* jtrials.c - every line of a run's results.jsonl, each either a trial record the reports
 * count or another line (jtrials.h), for publish and export.
 *
 * Lines are read as journal_read_trials reads them (journal/journal.h's reader, the run's
 * run_id taken, a last line without its newline torn) but handed on with their number and text,
 * which the database keeps byte for byte. Of the records of one trial (a resumed run records a
 * trial again) the reports keep the last ok one, else the last failed one (journal_supersedes):
 * a first reading finds those, a second hands them on. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/bitset.h"
#include "common/errors.h"
#include "common/hist.h"
#include "history/jtrials.h"
#include "journal/journal.h"
#include "report/output.h"
#include "report/report.h"

struct lines {
    FILE *f;
    char *buf;
    size_t cap;
    uint64_t no; /* of the line just read, from 1 */
};

static int
lines_open(struct lines *l, const char *dir, struct err *e)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, JOURNAL_RESULTS_FILE);
    memset(l, 0, sizeof *l);
    l->f = fopen(path, "rb");
    if (l->f == NULL)
        return err_sys(e, errno == ENOENT ? NS_ENOTFOUND : NS_EIO, errno, "cannot open %s", path);
    return 0;
}

/* The next line without its newline: 1, with *torn when it has none; 0 at the end; or NS_E*. */
static int
lines_next(struct lines *l, const char *dir, const char **s, size_t *n, bool *torn, struct err *e)
{
    errno = 0;
    ssize_t got = getline(&l->buf, &l->cap, l->f);
    if (got < 0)
        return ferror(l->f) ? err_sys(e, NS_EIO, errno, "reading %s/%s", dir, JOURNAL_RESULTS_FILE)
                            : 0;
    l->no++;
    size_t len = (size_t)got;
    *torn = l->buf[len - 1] != '\n';
    if (!*torn)
        len--;
    if (len > JOURNAL_LINE_MAX)
        return err_set(e, NS_ETOOBIG, "%s/%s:%llu: a line longer than %u MiB", dir,
                       JOURNAL_RESULTS_FILE, (unsigned long long)l->no, JOURNAL_LINE_MAX >> 20);
    *s = l->buf;
    *n = len;
    return 1;
}

static void
lines_close(struct lines *l)
{
    if (l->f != NULL)
        fclose(l->f);
    free(l->buf);
    memset(l, 0, sizeof *l);
}

/* --- which record of a trial counts ------------------------------------------------------------
 */

struct rec {
    char *key; /* the trial's key (journal_trial_key), its parts length-prefixed */
    uint64_t line;
    bool ok;
};

static int
cmp_rec(const void *a, const void *b)
{
    const struct rec *x = a, *y = b;
    int c = strcmp(x->key, y->key);
    return c != 0 ? c : x->line < y->line ? -1 : x->line > y->line;
}

/* The scenario the reports file t under, as they name it (report_record_scenario), into label;
 * false when they pass the record over (why in e). */
static bool
filed_under(const struct journal_run *run, const struct journal_trial *t, char *label, size_t len,
            struct err *e)
{
    const struct journal_run_revision *rev;
    const struct journal_run_scenario *rs;
    if (report_record_scenario(run, t, &rev, &rs, e) != 0)
        return false;
    report_scenario_label(t->scenario.name, rev, label, len);
    return true;
}

static char *
key_of(const struct journal_trial *t, const char *label)
{
    struct journal_key k;
    journal_trial_key(t, &k);
    const char *parts[] = {label, journal_family_name(k.family), k.src, k.dst};
    struct rbuf b;
    report_buf_init(&b);
    for (size_t i = 0; i < 4; i++)
        report_buf_printf(&b, "%zu:%s", strlen(parts[i] ? parts[i] : ""), parts[i] ? parts[i] : "");
    report_buf_printf(&b, "%u", (unsigned)k.trial);
    if (k.swept) /* a sweep's values are trials of their own (journal_key_equal) */
        report_buf_printf(&b, ":%d=%.17g", (int)k.sweep, k.value);
    char *key = b.oom ? NULL : strdup(b.data); /* an rbuf holds far more than a key needs */
    report_buf_release(&b);
    return key;
}

static int
recs_add(struct rec **recs, size_t *n, size_t *cap, const struct journal_trial *t,
         const char *label, uint64_t line)
{
    if (*n == *cap) {
        size_t c = *cap ? *cap * 2 : 1024;
        struct rec *g = realloc(*recs, c * sizeof *g);
        if (g == NULL)
            return NS_ENOMEM;
        *recs = g;
        *cap = c;
    }
    double v;
    struct rec *r = &(*recs)[(*n)++];
    *r = (struct rec){.key = key_of(t, label), .line = line, .ok = journal_trial_value(t, &v)};
    return r->key != NULL ? 0 : NS_ENOMEM;
}

/* The winners of recs (sorted here) as bits of win. */
static void
recs_winners(struct rec *recs, size_t n, uint64_t *win)
{
    if (n > 1)
        qsort(recs, n, sizeof *recs, cmp_rec);
    for (size_t i = 0; i < n;) {
        size_t w = i, j = i + 1;
        for (; j < n && strcmp(recs[j].key, recs[i].key) == 0; j++)
            if (journal_supersedes(recs[j].ok, recs[w].ok))
                w = j;
        bitset_set(win, recs[w].line);
        i = j;
    }
}

/* The lines of the records the reports keep, as a bitset over line numbers (*nlines lines). */
static int
winners_find(const char *dir, const struct journal_run *run, uint64_t **out, uint64_t *nlines,
             struct err *e)
{
    struct lines l;
    int rc = lines_open(&l, dir, e);
    if (rc != 0)
        return rc;
    struct journal_reader *rd = journal_reader_new(false);
    struct rec *recs = NULL;
    size_t n = 0, cap = 0;
    if (rd == NULL)
        rc = err_set(e, NS_ENOMEM, "out of memory");
    else {
        journal_reader_set_run(rd, run->run_id);
        journal_reader_keep_buckets(rd, false);
    }
    const char *s;
    size_t len;
    bool torn;
    int got = 0;
    while (rc == 0 && (got = lines_next(&l, dir, &s, &len, &torn, e)) == 1) {
        struct journal_trial t;
        struct err pe = {0};
        int pr = torn ? NS_EPARSE : journal_reader_parse(rd, s, len, &t, &pe);
        char label[REPORT_SCENARIO_LABEL_MAX];
        if (pr == 0 && !filed_under(run, &t, label, sizeof label, &pe))
            continue;
        if (pr == NS_ENOMEM || (pr == 0 && recs_add(&recs, &n, &cap, &t, label, l.no) != 0))
            rc = err_set(e, NS_ENOMEM, "out of memory");
    }
    if (rc == 0 && got < 0)
        rc = got;
    *nlines = l.no;
    lines_close(&l);
    journal_reader_free(rd);
    uint64_t *win = NULL;
    if (rc == 0 && (win = calloc(bitset_words(*nlines + 1), sizeof *win)) == NULL)
        rc = err_set(e, NS_ENOMEM, "out of memory");
    if (rc == 0)
        recs_winners(recs, n, win);
    for (size_t i = 0; i < n; i++)
        free(recs[i].key);
    free(recs);
    if (rc != 0) {
        free(win);
        return rc;
    }
    *out = win;
    return 0;
}

int
history_jtrials_read(const char *dir, const struct journal_run *run, const struct jtrials_cb *cb,
                     void *arg, struct jtrials_stats *st, struct err *e)
{
    memset(st, 0, sizeof *st);
    uint64_t *win = NULL, nlines = 0;
    int rc = winners_find(dir, run, &win, &nlines, e);
    if (rc != 0) {
        st->journal_error = true;
        return rc;
    }
    struct lines l;
    struct journal_reader *rd = NULL;
    if ((rc = lines_open(&l, dir, e)) != 0) {
        free(win);
        st->journal_error = true;
        return rc;
    }
    if ((rd = journal_reader_new(false)) == NULL)
        rc = err_set(e, NS_ENOMEM, "out of memory");
    else
        journal_reader_set_run(rd, run->run_id);
    const char *s;
    size_t len;
    bool torn;
    int got = 0;
    while (rc == 0 && (got = lines_next(&l, dir, &s, &len, &torn, e)) == 1) {
        st->torn = torn;
        struct journal_trial t;
        struct err pe = {0};
        int pr = torn ? NS_EPARSE : journal_reader_parse(rd, s, len, &t, &pe);
        char label[REPORT_SCENARIO_LABEL_MAX];
        if (pr == 0 && !filed_under(run, &t, label, sizeof label, &pe))
            pr = NS_EPROTO; /* a trial run.json does not plan: a journal problem, never data */
        if (pr == NS_ENOMEM) {
            rc = err_set(e, NS_ENOMEM, "out of memory");
        } else if (pr == 0 && l.no <= nlines && bitset_test(win, l.no)) {
            st->trials++;
            rc = cb->trial != NULL ? cb->trial(arg, &t, label, l.no, s, len, e) : 0;
        } else if (cb->other != NULL) {
            const char *kind = torn              ? "torn"
                               : pr == 0         ? "superseded"
                               : pr == NS_EPROTO ? "refused"
                                                 : "bad";
            const char *why = torn      ? "torn last line"
                              : pr == 0 ? "a later record of the same trial counts"
                                        : pe.msg;
            rc = cb->other(arg, l.no, kind, why, s, len, e);
        }
    }
    if (rc == 0 && got < 0) {
        rc = got;
        st->journal_error = true;
    }
    if (rc == 0 && l.no != nlines) { /* the file changed between the two readings */
        st->journal_error = true;
        rc = err_set(e, NS_EBUSY, "%s/%s changed while it was read: a run still writing it?", dir,
                     JOURNAL_RESULTS_FILE);
    }
    st->lines = l.no;
    journal_reader_free(rd);
    lines_close(&l);
    free(win);
    return rc;
}

/* --- a trial's own percentiles -------------------------------------------------------------- */

static bool
jpct_add(struct jpct *t, size_t idx, uint64_t c)
{
    if (c == 0)
        return true;
    if (t->n == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 512;
        size_t *a = realloc(t->idx, cap * sizeof *a);
        if (a == NULL)
            return false;
        t->idx = a;
        uint64_t *b = realloc(t->cnt, cap * sizeof *b);
        if (b == NULL)
            return false;
        t->cnt = b;
        t->cap = cap;
    }
    t->idx[t->n] = idx;
    t->cnt[t->n++] = c;
    return true;
}

/* In bucket order (insertion: a trial's buckets come in order but for a few), equal ones
 * added up. */
static void
jpct_order(struct jpct *t)
{
    for (size_t i = 1; i < t->n; i++)
        for (size_t j = i; j > 0 && t->idx[j - 1] > t->idx[j]; j--) {
            size_t a = t->idx[j];
            t->idx[j] = t->idx[j - 1];
            t->idx[j - 1] = a;
            uint64_t b = t->cnt[j];
            t->cnt[j] = t->cnt[j - 1];
            t->cnt[j - 1] = b;
        }
    size_t k = 0;
    for (size_t i = 0; i < t->n; i++) {
        if (k > 0 && t->idx[k - 1] == t->idx[i]) {
            t->cnt[k - 1] += t->cnt[i];
            continue;
        }
        t->idx[k] = t->idx[i];
        t->cnt[k++] = t->cnt[i];
    }
    t->n = k;
}

int
history_jpct_rtt(struct jpct *t, const struct journal_result *r, double *p50, double *p99)
{
    t->n = 0;
    if (!r->has_rtt || !r->has_hist || !r->has_rtt_min || !r->has_rtt_max)
        return 0;
    if (r->hist_runs) {
        size_t off = 0;
        for (size_t i = 0; i < r->nruns; i++)
            for (uint32_t k = 0; k < r->runs[i].len && off < r->ncounts; k++, off++)
                if (!jpct_add(t, (size_t)r->runs[i].first + k, r->counts[off]))
                    return NS_ENOMEM;
    } else {
        for (size_t i = 0; i < r->nbuckets; i++)
            if (!jpct_add(t, hist_index_layout(r->hist_sub_bits, r->buckets[i].low_ns),
                          r->buckets[i].count))
                return NS_ENOMEM;
    }
    if (t->n == 0)
        return 0;
    jpct_order(t);
    uint64_t mn = (uint64_t)llround(r->rtt_min_us * 1e3);
    uint64_t mx = (uint64_t)llround(r->rtt_max_us * 1e3);
    *p50 = hist_percentile_sparse(t->idx, t->cnt, t->n, mn, mx, 50.0) / 1e3;
    *p99 = hist_percentile_sparse(t->idx, t->cnt, t->n, mn, mx, 99.0) / 1e3;
    return 1;
}

void
history_jpct_release(struct jpct *t)
{
    free(t->idx);
    free(t->cnt);
    memset(t, 0, sizeof *t);
}
