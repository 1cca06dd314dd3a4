/* active.c - the runs in progress on this machine, for `netsurvey clean` (journal.h): one file
 * per run in the user's own directory of them, naming the run's directory and its plan. A run
 * is in progress while a live process holds its directory's lock (journal_owner), whatever the
 * file says: an entry of a run that ended without removing it (SIGKILL) is removed by the next
 * reader. */
#include "journal/journal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/sha256.h"

#define ACTIVE_SUFFIX ".run"

/* The user's directory of runs in progress, made (mode 700) when make: $XDG_RUNTIME_DIR/netsurvey/
 * runs, else $HOME/.cache/netsurvey/runs. 0, or NS_ENOTFOUND (no such place) / NS_EIO. */
static int
active_dir(char *buf, size_t len, bool make, struct err *e)
{
    const char *xdg = getenv("XDG_RUNTIME_DIR"), *home = getenv("HOME");
    const char *base = xdg != NULL && xdg[0] == '/' ? xdg : home;
    const char *sub = base == xdg ? "netsurvey/runs" : ".cache/netsurvey/runs";
    if (base == NULL || base[0] != '/')
        return err_set(e, NS_ENOTFOUND, "no $XDG_RUNTIME_DIR or $HOME for the list of runs");
    if ((size_t)snprintf(buf, len, "%s/%s", base, sub) >= len)
        return err_set(e, NS_ETOOBIG, "path too long: %s/%s", base, sub);
    if (!make)
        return 0;
    for (char *p = buf + strlen(base) + 1; *p != '\0'; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        mkdir(buf, 0700);
        *p = '/';
    }
    if (mkdir(buf, 0700) != 0 && errno != EEXIST)
        return err_sys(e, NS_EIO, errno, "cannot create %s", buf);
    return 0;
}

/* The entry of run directory dir (absolute): named by a hash of its path. */
static int
active_entry(const char *dir, char *buf, size_t len, bool make, struct err *e)
{
    char adir[PATH_MAX];
    int rc = active_dir(adir, sizeof adir, make, e);
    if (rc != 0)
        return rc;
    uint8_t d[SHA256_LEN];
    sha256(dir, strlen(dir), d);
    char hex[2 * SHA256_LEN + 1];
    sha256_hex_encode(d, 8, hex);
    if ((size_t)snprintf(buf, len, "%s/%s" ACTIVE_SUFFIX, adir, hex) >= len)
        return err_set(e, NS_ETOOBIG, "path too long: %s", adir);
    return 0;
}

int
journal_active_add(const char *dir, const char *plan_name, char *entry, size_t len, struct err *e)
{
    char abs[PATH_MAX];
    if (realpath(dir, abs) == NULL)
        return err_sys(e, NS_EIO, errno, "cannot resolve %s", dir);
    int rc = active_entry(abs, entry, len, true, e);
    if (rc != 0)
        return rc;
    char tmp[PATH_MAX + 8];
    snprintf(tmp, sizeof tmp, "%s.tmp", entry);
    FILE *f = fopen(tmp, "we");
    if (f == NULL)
        return err_sys(e, NS_EIO, errno, "cannot write %s", tmp);
    fprintf(f, "%s\n%s\n", abs, plan_name);
    if (fclose(f) != 0 || rename(tmp, entry) != 0) {
        rc = err_sys(e, NS_EIO, errno, "cannot write %s", entry);
        unlink(tmp);
    }
    return rc;
}

/* An entry's directory and plan (its two lines), false when it is not one. */
static bool
entry_read(const char *path, char *dir, size_t dlen, char *plan, size_t plen)
{
    FILE *f = fopen(path, "re");
    if (f == NULL)
        return false;
    bool ok = fgets(dir, (int)dlen, f) != NULL && fgets(plan, (int)plen, f) != NULL;
    fclose(f);
    dir[strcspn(dir, "\n")] = '\0';
    plan[strcspn(plan, "\n")] = '\0';
    return ok && dir[0] == '/';
}

int
journal_runs_in_progress(const char *plan_name, journal_active_fn fn, void *arg, struct err *e)
{
    char adir[PATH_MAX];
    if (active_dir(adir, sizeof adir, false, e) != 0)
        return 0; /* nowhere a run could have said so */
    DIR *d = opendir(adir);
    if (d == NULL)
        return 0;
    int n = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        size_t len = strlen(de->d_name), sl = strlen(ACTIVE_SUFFIX);
        if (len <= sl || strcmp(de->d_name + len - sl, ACTIVE_SUFFIX) != 0)
            continue;
        char path[PATH_MAX + 256], dir[PATH_MAX], plan[1024];
        snprintf(path, sizeof path, "%s/%s", adir, de->d_name);
        long pid = 0;
        struct err oe = {0};
        if (!entry_read(path, dir, sizeof dir, plan, sizeof plan) ||
            journal_owner(dir, &pid, &oe) == 0) {
            unlink(path); /* a run that ended without saying so */
            continue;
        }
        if (strcmp(plan, plan_name) != 0)
            continue;
        n++;
        if (fn != NULL)
            fn(arg, dir, pid);
    }
    closedir(d);
    return n;
}
