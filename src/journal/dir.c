/* dir.c - the run directory on disk, the journal's one writer. Durability order: the directory is
 * fsync'd when it is created (so the files in it survive a power cut), run.json is replaced by
 * rename after an fsync, and each trial line is written with one write(2) and fsync'd before the
 * next one is recorded, so a crash leaves at most one torn last line. */
#include "journal/journal.h"

#include "common/clock.h"
#include "common/fsdir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

struct journal {
    char dir[PATH_MAX - 64]; /* room for "/results.jsonl.tmp" in PATH_MAX */
    int results_fd;
    int lock_fd;
    off_t size; /* of results.jsonl: where the next line starts */
    pthread_mutex_t mu;
};

/* How long a lock that is held is waited for before the directory counts as in use: a reader's
 * probe (journal_owner) holds it for an instant, and an owner that took it a moment ago may not
 * have written its PID yet. A run holds it for its whole life. */
#define LOCK_WAIT_MS 250
#define LOCK_NAP_MS 5

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

static void
nap_ms(int ms)
{
    struct timespec ts = {.tv_sec = 0, .tv_nsec = (long)ms * 1000000L};
    nanosleep(&ts, NULL);
}

/* The PID a lock file holds (0 when none is written yet). */
static long
lock_pid(int fd)
{
    char buf[32];
    ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
    if (n <= 0)
        return 0;
    buf[n] = '\0';
    char *end;
    long pid = strtol(buf, &end, 10);
    return end != buf && pid > 0 && (*end == '\n' || *end == '\0') ? pid : 0;
}

static int
lock_busy(const char *dir, long pid, struct err *e)
{
    if (pid > 0)
        return err_set(e, NS_EBUSY, "%s is in use by another netsurvey run (pid %ld)", dir, pid);
    return err_set(e, NS_EBUSY, "%s is in use by another netsurvey run", dir);
}

/* Take dir's lock (creating the lock file when create), write our PID into it. The descriptor
 * is close-on-exec: a lock shared with the nsperf children or ssh would outlive this process. */
static int
lock_take(const char *dir, bool create, int *out, struct err *e)
{
    *out = -1;
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, JOURNAL_LOCK_FILE);
    int fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW | (create ? O_CREAT : 0), 0666);
    if (fd < 0)
        return err_sys(e, NS_EIO, errno, "cannot open %s", path);
    for (int waited = 0;; waited += LOCK_NAP_MS) {
        if (flock(fd, LOCK_EX | LOCK_NB) == 0)
            break;
        if (errno == EINTR)
            continue;
        if (errno != EWOULDBLOCK) {
            int rc = err_sys(e, NS_EIO, errno, "cannot lock %s", path);
            close(fd);
            return rc;
        }
        if (waited >= LOCK_WAIT_MS) {
            int rc = lock_busy(dir, lock_pid(fd), e);
            close(fd);
            return rc;
        }
        nap_ms(LOCK_NAP_MS);
    }
    char pid[32];
    int n = snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
    if (ftruncate(fd, 0) != 0 || pwrite(fd, pid, (size_t)n, 0) != n) {
        int rc = err_sys(e, NS_EIO, errno, "cannot write %s", path);
        close(fd);
        return rc;
    }
    *out = fd;
    return 0;
}

int
journal_owner(const char *dir, long *pid, struct err *e)
{
    *pid = 0;
    char path[PATH_MAX];
    if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, JOURNAL_LOCK_FILE) >= sizeof path)
        return err_set(e, NS_ETOOBIG, "path too long: %s", dir);
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0 && (errno == ENOENT || errno == ENOTDIR))
        return 0;
    if (fd < 0)
        return err_sys(e, NS_EIO, errno, "cannot open %s", path);
    int rc;
    while ((rc = flock(fd, LOCK_SH | LOCK_NB)) != 0 && errno == EINTR)
        ;
    if (rc == 0) {
        flock(fd, LOCK_UN);
        close(fd);
        return 0;
    }
    if (errno != EWOULDBLOCK) {
        rc = err_sys(e, NS_EIO, errno, "cannot lock %s", path);
        close(fd);
        return rc;
    }
    /* An owner writes its PID just after it took the lock. */
    for (int waited = 0; (*pid = lock_pid(fd)) == 0 && waited < LOCK_WAIT_MS; waited += LOCK_NAP_MS)
        nap_ms(LOCK_NAP_MS);
    close(fd);
    return 1;
}

/* What dir holds: *others counts the entries besides a lock file, *run says whether one is
 * run.json, *lock whether the lock file is there. */
struct dir_view {
    size_t others;
    bool run, lock;
};

static int
dir_entries(const char *dir, struct dir_view *v, struct err *e)
{
    *v = (struct dir_view){0};
    DIR *d = opendir(dir);
    if (d == NULL)
        return err_sys(e, errno == ENOENT ? NS_ENOTFOUND : NS_EIO, errno, "cannot open %s", dir);
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        if (strcmp(de->d_name, JOURNAL_LOCK_FILE) == 0) {
            v->lock = true;
            continue;
        }
        v->others++;
        v->run = v->run || strcmp(de->d_name, JOURNAL_RUN_FILE) == 0;
    }
    closedir(d);
    return 0;
}

/* Never write into a directory that holds anything: a previous run or someone's files. The
 * message says what is there and whether --resume continues it (never for a finished run). */
static int
dir_refuse(const char *dir, bool run, struct err *e)
{
    if (!run)
        return err_set(e, NS_EBUSY, "%s exists and is not empty", dir);
    struct journal_run *r = NULL;
    struct err ignored = {0};
    enum journal_run_state st = JOURNAL_RUN_UNKNOWN;
    if (journal_read_run(dir, &r, &ignored) == 0)
        st = r->state;
    journal_run_free(r);
    if (st == JOURNAL_RUN_COMPLETE)
        return err_set(e, NS_EBUSY,
                       "%s holds a finished run; give another directory (a {timestamp} in -o "
                       "or the plan's output makes one per run)",
                       dir);
    return err_set(e, NS_EBUSY,
                   "%s holds a run that did not finish (use --resume %s to continue it)", dir, dir);
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
    j->lock_fd = -1;
    pthread_mutex_init(&j->mu, NULL);
    return j;
}

/* dir exists (made by the caller): lock it, check that it holds nothing, create results. */
static int
journal_start(const char *dir, struct journal **out, struct err *e)
{
    struct dir_view v;
    int rc = dir_entries(dir, &v, e);
    if (rc == 0 && v.others > 0 && !v.lock)
        return dir_refuse(dir, v.run, e); /* no lock file left in someone's directory */
    struct journal *j = NULL;
    if (rc == 0)
        j = journal_alloc(dir, e);
    if (rc == 0 && j == NULL)
        rc = NS_ENOMEM;
    /* The lock before the rest: a directory in use is named as such, whatever it holds. */
    if (rc == 0)
        rc = lock_take(dir, true, &j->lock_fd, e);
    if (rc == 0)
        rc = dir_entries(dir, &v, e);
    if (rc == 0 && v.others > 0)
        rc = dir_refuse(dir, v.run, e);
    char parent[PATH_MAX];
    parent_of(dir, parent, sizeof parent);
    if (rc == 0)
        rc = fsync_path(dir, e);
    if (rc == 0)
        rc = fsync_path(parent, e);
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, JOURNAL_RESULTS_FILE);
    if (rc == 0) {
        j->results_fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0666);
        if (j->results_fd < 0)
            rc = err_sys(e, NS_EIO, errno, "cannot create %s", path);
    }
    if (rc == 0)
        rc = fsync_path(dir, e);
    if (rc != 0) {
        journal_free(j);
        return rc;
    }
    *out = j;
    return 0;
}

int
journal_create(const char *dir, struct journal **out, struct err *e)
{
    *out = NULL;
    if (strlen(dir) + 1 >= sizeof((struct journal *)NULL)->dir)
        return err_set(e, NS_ETOOBIG, "path too long: %s", dir);
    bool existed;
    int rc = fsdir_make(dir, &existed, e);
    return rc == 0 ? journal_start(dir, out, e) : rc;
}

#define UNIQUE_MAX 1000 /* dir-2 .. dir-1000 */

int
journal_create_unique(const char *dir, struct journal **out, struct err *e)
{
    *out = NULL;
    char buf[PATH_MAX - 64];
    size_t len = strlen(dir);
    while (len > 1 && dir[len - 1] == '/')
        len--;
    for (unsigned n = 1; n <= UNIQUE_MAX; n++) {
        int w = n == 1 ? snprintf(buf, sizeof buf, "%.*s", (int)len, dir)
                       : snprintf(buf, sizeof buf, "%.*s-%u", (int)len, dir, n);
        if (w < 0 || (size_t)w + 1 >= sizeof buf)
            return err_set(e, NS_ETOOBIG, "path too long: %s", dir);
        bool existed;
        int rc = fsdir_make(buf, &existed, e);
        if (rc != 0)
            return rc;
        if (!existed)
            return journal_start(buf, out, e);
    }
    return err_set(e, NS_EBUSY, "%s and %s-2 .. %s-%u exist", dir, dir, dir, UNIQUE_MAX);
}

const char *
journal_dir(const struct journal *j)
{
    return j->dir;
}

int
journal_open_locked(const char *dir, struct journal **out, struct err *e)
{
    *out = NULL;
    if (strlen(dir) + 1 >= sizeof((struct journal *)NULL)->dir)
        return err_set(e, NS_ETOOBIG, "path too long: %s", dir);
    struct dir_view v;
    int rc = dir_entries(dir, &v, e);
    if (rc != 0)
        return rc;
    if (!v.run)
        return err_set(e, NS_ENOTFOUND, "%s holds no %s", dir, JOURNAL_RUN_FILE);
    struct journal *j = journal_alloc(dir, e);
    if (j == NULL)
        return NS_ENOMEM;
    rc = lock_take(dir, true, &j->lock_fd, e);
    if (rc != 0) {
        journal_free(j);
        return rc;
    }
    *out = j;
    return 0;
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
journal_resume(struct journal *j, size_t *torn_bytes, struct err *e)
{
    *torn_bytes = 0;
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", j->dir, JOURNAL_RESULTS_FILE);
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
    j->size = end;
    return rc;
}

/* doc as run.json, atomically: a temporary file, fsync, rename, fsync of the directory. */
static int
run_doc_write(struct journal *j, const json_t *doc, struct err *e)
{
    char tmp[PATH_MAX], path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", j->dir, JOURNAL_RUN_FILE);
    snprintf(tmp, sizeof tmp, "%s/%s.tmp", j->dir, JOURNAL_RUN_FILE);
    char *text = doc != NULL ? json_dumps(doc, JSON_COMPACT) : NULL;
    if (text == NULL)
        return err_set(e, NS_ENOMEM, "out of memory");
    int rc = 0;
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0)
        rc = err_sys(e, NS_EIO, errno, "cannot create %s", tmp);
    size_t len = strlen(text);
    text[len] = '\n'; /* replaces the NUL: written with its length below */
    if (rc == 0 && (write(fd, text, len + 1) != (ssize_t)(len + 1) || fsync(fd) != 0))
        rc = err_sys(e, NS_EIO, errno ? errno : ENOSPC, "cannot write %s", tmp);
    if (fd >= 0 && close(fd) != 0 && rc == 0)
        rc = err_sys(e, NS_EIO, errno, "cannot write %s", tmp);
    free(text);
    if (rc == 0 && rename(tmp, path) != 0)
        rc = err_sys(e, NS_EIO, errno, "cannot rename %s", tmp);
    if (rc != 0)
        unlink(tmp); /* a full disk: free what the attempt took */
    return rc == 0 ? fsync_path(j->dir, e) : rc;
}

int
journal_write_run(struct journal *j, const struct journal_run *run, struct err *e)
{
    json_t *doc = journal_run_json(run);
    int rc = run_doc_write(j, doc, e);
    json_decref(doc);
    return rc;
}

int
journal_set_state(struct journal *j, enum journal_run_state state, const json_t *resumed,
                  const json_t *measured, struct err *e)
{
    struct journal_run *run = NULL;
    int rc = journal_read_run(j->dir, &run, e);
    if (rc != 0)
        return rc;
    json_t *doc = run->json;
    char now[40];
    clock_wall_iso8601(now, sizeof now);
    const char *name = journal_run_state_name(state);
    json_object_set_new(doc, "state", name != NULL ? json_string(name) : json_null());
    json_object_set_new(doc, "ended",
                        state == JOURNAL_RUN_RUNNING ? json_null() : json_string(now));
    if (resumed != NULL) {
        json_t *list = json_object_get(doc, "resumes");
        if (!json_is_array(list)) {
            list = json_array();
            json_object_set_new(doc, "resumes", list);
        }
        json_array_append_new(list, json_deep_copy(resumed));
    }
    if (measured != NULL)
        json_object_set_new(doc, "measured", json_deep_copy(measured));
    rc = run_doc_write(j, doc, e);
    journal_run_free(run);
    return rc;
}

int
journal_set_member(struct journal *j, const char *key, const json_t *value, struct err *e)
{
    struct journal_run *run = NULL;
    int rc = journal_read_run(j->dir, &run, e);
    if (rc != 0)
        return rc;
    json_t *copy = json_deep_copy(value);
    rc = copy != NULL && json_object_set_new(run->json, key, copy) == 0
             ? run_doc_write(j, run->json, e)
             : err_set(e, NS_ENOMEM, "out of memory");
    journal_run_free(run);
    return rc;
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
    if (rc == 0) {
        j->size += (off_t)(len + 1);
    } else if (n > 0 && ftruncate(j->results_fd, j->size) != 0) {
        /* Part of the line may be on disk: cut it off, or the next line would run into it. */
        err_prefix(e, "%s/%s holds a partial line that cannot be cut (%s)", j->dir,
                   JOURNAL_RESULTS_FILE, strerror(errno));
    }
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
    if (j->lock_fd >= 0)
        close(j->lock_fd); /* releases the lock */
    pthread_mutex_destroy(&j->mu);
    free(j);
}

bool
journal_is_run_dir(const char *dir)
{
    static const char *const names[] = {JOURNAL_RUN_FILE, JOURNAL_RESULTS_FILE};
    for (size_t i = 0; i < 2; i++) {
        char p[PATH_MAX];
        struct stat st;
        if ((size_t)snprintf(p, sizeof p, "%s/%s", dir, names[i]) < sizeof p && stat(p, &st) == 0)
            return true;
    }
    return false;
}

bool
journal_is_run_file(const char *path)
{
    char real[PATH_MAX];
    if (!fsdir_resolve(path, real))
        return false;
    char *slash = strrchr(real, '/');
    const char *base = slash + 1;
    static const char *const names[] = {JOURNAL_RUN_FILE, JOURNAL_RESULTS_FILE, JOURNAL_LOCK_FILE};
    bool named = false;
    for (size_t i = 0; i < 3; i++)
        named |= strcmp(base, names[i]) == 0;
    if (!named)
        return false;
    *slash = '\0';
    return journal_is_run_dir(real[0] != '\0' ? real : "/");
}
