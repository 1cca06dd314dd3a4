/* fsdir.c - folders made with their parents (fsdir.h). */
#include "common/fsdir.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/errors.h"

int
fsdir_make(const char *dir, bool *existed, struct err *e)
{
    char buf[PATH_MAX];
    if ((size_t)snprintf(buf, sizeof buf, "%s", dir) >= sizeof buf)
        return err_set(e, NS_ETOOBIG, "path too long: %s", dir);
    size_t len = strlen(buf);
    while (len > 1 && buf[len - 1] == '/')
        buf[--len] = '\0';
    for (char *p = buf + 1; *p != '\0'; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(buf, 0777) != 0 && errno != EEXIST)
            return err_sys(e, NS_EIO, errno, "cannot create %s", buf);
        *p = '/';
    }
    bool was = false;
    if (mkdir(buf, 0777) != 0) {
        if (errno != EEXIST)
            return err_sys(e, NS_EIO, errno, "cannot create %s", buf);
        was = true;
    }
    if (existed != NULL)
        *existed = was;
    return 0;
}

int
fsdir_make_parent(const char *path, struct err *e)
{
    char dir[PATH_MAX];
    if ((size_t)snprintf(dir, sizeof dir, "%s", path) >= sizeof dir)
        return err_set(e, NS_ETOOBIG, "path too long: %s", path);
    char *slash = strrchr(dir, '/');
    if (slash == NULL || slash == dir)
        return 0;
    *slash = '\0';
    return fsdir_make(dir, NULL, e);
}

bool
fsdir_same(const char *a, const char *b)
{
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

bool
fsdir_resolve(const char *path, char *out)
{
    if (realpath(path, out) != NULL)
        return true;
    char dir[PATH_MAX];
    if ((size_t)snprintf(dir, sizeof dir, "%s", path) >= sizeof dir)
        return false;
    size_t len = strlen(dir);
    while (len > 1 && dir[len - 1] == '/')
        dir[--len] = '\0';
    char *slash = strrchr(dir, '/');
    const char *base = slash != NULL ? slash + 1 : dir;
    char parent[PATH_MAX];
    if (realpath(slash == NULL ? "." : slash == dir ? "/" : (*slash = '\0', dir), parent) == NULL)
        return false;
    return (size_t)snprintf(out, PATH_MAX, "%s/%s", strcmp(parent, "/") == 0 ? "" : parent, base) <
           PATH_MAX;
}
