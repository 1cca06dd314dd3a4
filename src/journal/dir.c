/* dir.c - the run directory on disk, the journal's one writer. Durability order: the directory is
 * fsync'd when it is created (so the files in it survive a power cut), run.json is replaced by
 * rename after an fsync, and each trial line is written with one write(2) and fsync'd before the
 * next one is recorded, so a crash leaves at most one torn last line. */
#include "journal/journal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct journal {
    char dir[PATH_MAX - 64]; /* room for "/results.jsonl.tmp" in PATH_MAX */
    int results_fd;
    pthread_mutex_t mu;
};

static int
fsync_path(const char *path, struct err *e)
{
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return err_sys(e, NS_EIO, errno, "cannot open %s", path);
    int rc = fsync(fd) == 0 ? 0 : err_sys(e, NS_EIO, errno, "cannot fsync %s", path);
    close(fd);
    return rc;
}

static void
parent_of(const char *path, char *buf, size_t len)
{
    snprintf(buf, len, "%s", path);
    char *slash = strrchr(buf, '/');
    while (slash != NULL && slash > buf && slash[1] == '\0') {
        *slash = '\0';
        slash = strrchr(buf, '/');
    }
    if (slash == NULL)
        snprintf(buf, len, ".");
    else if (slash == buf)
        buf[1] = '\0';
    else
        *slash = '\0';
}

static int
mkdir_parents(const char *dir, struct err *e)
{
    char buf[PATH_MAX];
    if ((size_t)snprintf(buf, sizeof buf, "%s", dir) >= sizeof buf)
        return err_set(e, NS_ETOOBIG, "path too long: %s", dir);
    for (char *p = buf + 1; *p != '\0'; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(buf, 0777) != 0 && errno != EEXIST)
            return err_sys(e, NS_EIO, errno, "cannot create %s", buf);
        *p = '/';
    }
    if (mkdir(buf, 0777) != 0 && errno != EEXIST)
        return err_sys(e, NS_EIO, errno, "cannot create %s", buf);
    return 0;
}

/* Never write into a directory that holds anything: a previous run or someone's files. */
static int
dir_is_empty(const char *dir, bool *empty, struct err *e)
{
    *empty = true;
    DIR *d = opendir(dir);
    if (d == NULL)
        return err_sys(e, NS_EIO, errno, "cannot open %s", dir);
    struct dirent *de;
    while ((de = readdir(d)) != NULL)
        if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
            *empty = false;
    closedir(d);
    return 0;
}

static struct journal *
journal_alloc(const char *dir, struct err *e)
{
    struct journal *j = calloc(1, sizeof *j);
    if (j == NULL) {
        err_set(e, NS_ENOMEM, "out of memory");
        return NULL;
    }
    snprintf(j->dir, sizeof j->dir, "%s", dir);
    j->results_fd = -1;
    pthread_mutex_init(&j->mu, NULL);
    return j;
}

int
journal_create(const char *dir, struct journal **out, struct err *e)
{
    *out = NULL;
    if (strlen(dir) + 1 >= sizeof((struct journal *)NULL)->dir)
        return err_set(e, NS_ETOOBIG, "path too long: %s", dir);
    int rc = mkdir_parents(dir, e);
    bool empty = true;
    if (rc == 0)
        rc = dir_is_empty(dir, &empty, e);
    if (rc == 0 && !empty)
        rc = err_set(e, NS_EBUSY, "%s exists and is not empty (use --resume %s to continue it)",
                     dir, dir);
    char parent[PATH_MAX];
    parent_of(dir, parent, sizeof parent);
    if (rc == 0)
        rc = fsync_path(dir, e);
    if (rc == 0)
        rc = fsync_path(parent, e);
    struct journal *j = rc == 0 ? journal_alloc(dir, e) : NULL;
    if (rc != 0 || j == NULL)
        return rc != 0 ? rc : NS_ENOMEM;
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, JOURNAL_RESULTS_FILE);
    j->results_fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0666);
    if (j->results_fd < 0) {
        rc = err_sys(e, NS_EIO, errno, "cannot create %s", path);
        journal_free(j);
        return rc;
    }
    *out = j;
    return fsync_path(dir, e);
}

/* Offset just past the last newline of the file at fd (0 when there is none). */
static int
last_newline_end(int fd, off_t size, off_t *end, struct err *e)
{
    char buf[65536];
    off_t pos = size;
    while (pos > 0) {
        size_t n = pos < (off_t)sizeof buf ? (size_t)pos : sizeof buf;
        pos -= (off_t)n;
        if (pread(fd, buf, n, pos) != (ssize_t)n)
            return err_sys(e, NS_EIO, errno, "cannot read the results");
        for (size_t i = n; i > 0; i--) {
            if (buf[i - 1] == '\n') {
                *end = pos + (off_t)i;
                return 0;
            }
        }
    }
    *end = 0;
    return 0;
}

int
journal_resume(const char *dir, size_t *torn_bytes, struct journal **out, struct err *e)
{
    *out = NULL;
    *torn_bytes = 0;
    if (strlen(dir) + 1 >= sizeof((struct journal *)NULL)->dir)
        return err_set(e, NS_ETOOBIG, "path too long: %s", dir);
    struct journal *j = journal_alloc(dir, e);
    if (j == NULL)
        return NS_ENOMEM;
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, JOURNAL_RESULTS_FILE);
    j->results_fd = open(path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0666);
    int rc = j->results_fd < 0 ? err_sys(e, NS_EIO, errno, "cannot open %s", path) : 0;
    struct stat st;
    if (rc == 0 && fstat(j->results_fd, &st) != 0)
        rc = err_sys(e, NS_EIO, errno, "cannot stat %s", path);
    off_t end = 0;
    if (rc == 0)
        rc = last_newline_end(j->results_fd, st.st_size, &end, e);
    if (rc == 0 && end < st.st_size) {
        *torn_bytes = (size_t)(st.st_size - end);
        if (ftruncate(j->results_fd, end) != 0 || fsync(j->results_fd) != 0)
            rc = err_sys(e, NS_EIO, errno, "cannot cut the torn last line of %s", path);
    }
    if (rc != 0) {
        journal_free(j);
        return rc;
    }
    *out = j;
    return 0;
}

int
journal_write_run(struct journal *j, const struct journal_run *run, struct err *e)
{
    char tmp[PATH_MAX], path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", j->dir, JOURNAL_RUN_FILE);
    snprintf(tmp, sizeof tmp, "%s/%s.tmp", j->dir, JOURNAL_RUN_FILE);
    json_t *doc = journal_run_json(run);
    char *text = doc != NULL ? json_dumps(doc, JSON_COMPACT) : NULL;
    json_decref(doc);
    if (text == NULL)
        return err_set(e, NS_ENOMEM, "out of memory");
    int rc = 0;
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0)
        rc = err_sys(e, NS_EIO, errno, "cannot create %s", tmp);
    size_t len = strlen(text);
    text[len] = '\n'; /* replaces the NUL: written with its length below */
    if (rc == 0 && (write(fd, text, len + 1) != (ssize_t)(len + 1) || fsync(fd) != 0))
        rc = err_sys(e, NS_EIO, errno, "cannot write %s", tmp);
    if (fd >= 0 && close(fd) != 0 && rc == 0)
        rc = err_sys(e, NS_EIO, errno, "cannot write %s", tmp);
    free(text);
    if (rc == 0 && rename(tmp, path) != 0)
        rc = err_sys(e, NS_EIO, errno, "cannot rename %s", tmp);
    return rc == 0 ? fsync_path(j->dir, e) : rc;
}

int
journal_append(struct journal *j, const struct journal_trial *t, const json_t *result,
               struct err *e)
{
    json_t *rec = journal_trial_json(t, result);
    char *text = rec != NULL ? json_dumps(rec, JSON_COMPACT) : NULL;
    json_decref(rec);
    if (text == NULL)
        return err_set(e, NS_ENOMEM, "out of memory");
    size_t len = strlen(text);
    text[len] = '\n';
    int rc = 0;
    pthread_mutex_lock(&j->mu);
    ssize_t n;
    do
        n = write(j->results_fd, text, len + 1);
    while (n < 0 && errno == EINTR);
    if (n != (ssize_t)(len + 1))
        rc = err_sys(e, NS_EIO, n < 0 ? errno : ENOSPC, "cannot append to %s/%s", j->dir,
                     JOURNAL_RESULTS_FILE);
    if (rc == 0 && fsync(j->results_fd) != 0)
        rc = err_sys(e, NS_EIO, errno, "cannot fsync %s/%s", j->dir, JOURNAL_RESULTS_FILE);
    pthread_mutex_unlock(&j->mu);
    free(text);
    return rc;
}

void
journal_free(struct journal *j)
{
    if (j == NULL)
        return;
    if (j->results_fd >= 0)
        close(j->results_fd);
    pthread_mutex_destroy(&j->mu);
    free(j);
}
