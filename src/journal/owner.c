/* owner.c - who holds a run directory: netsurvey run keeps an exclusive flock(2) on DIR/.lock
 * for its whole life, with its pid in the file; the kernel drops the lock when the process dies,
 * so a held lock means a live owner. (A stand-in until the survey's own lock lands; its
 * journal_owner replaces this one.) */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/file.h>
#include <unistd.h>

#include "journal/journal.h"

int
journal_owner(const char *dir, long *pid, struct err *e)
{
    *pid = 0;
    char path[PATH_MAX];
    if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, JOURNAL_LOCK_FILE) >= sizeof path)
        return err_set(e, NS_ETOOBIG, "path too long: %s", dir);
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return errno == ENOENT ? 0 : err_sys(e, NS_EIO, errno, "cannot open %s", path);
    int held = 0;
    if (flock(fd, LOCK_SH | LOCK_NB) == 0)
        flock(fd, LOCK_UN);
    else if (errno == EWOULDBLOCK)
        held = 1;
    else
        held = err_sys(e, NS_EIO, errno, "cannot test the lock %s", path);
    if (held == 1) {
        char buf[32];
        ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
        buf[n > 0 ? n : 0] = '\0';
        char *end;
        long v = strtol(buf, &end, 10);
        *pid = end != buf && v > 0 ? v : 0;
    }
    close(fd);
    return held;
}
