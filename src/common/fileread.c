/* fileread.c - whole files read with a cap. */
#include "common/fileread.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/errors.h"

/* Room for at least one more byte (and the NUL), growing geometrically up to cap + 2. */
static int
grow(char **b, size_t *room, size_t n, size_t cap)
{
    if (n + 1 < *room)
        return 0;
    size_t want = *room * 2;
    if (want > cap + 2)
        want = cap + 2;
    char *nb = realloc(*b, want);
    if (nb == NULL)
        return NS_ENOMEM;
    *b = nb;
    *room = want;
    return 0;
}

int
fileread_fd(int fd, size_t cap, char **buf, size_t *len, struct err *e)
{
    size_t room = cap + 2 < 4096 ? cap + 2 : 4096, n = 0;
    char *b = malloc(room);
    int rc = b == NULL ? err_set(e, NS_ENOMEM, "out of memory") : 0;
    while (rc == 0) {
        if (grow(&b, &room, n, cap) != 0) {
            rc = err_set(e, NS_ENOMEM, "out of memory");
            break;
        }
        ssize_t got = read(fd, b + n, room - 1 - n);
        if (got == 0)
            break;
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            rc = err_set(e, NS_EIO, "%s", strerror(errno));
        else if ((n += (size_t)got) > cap)
            rc = err_set(e, NS_ETOOBIG, "larger than %zu bytes", cap);
    }
    if (rc != 0) {
        free(b);
        *buf = NULL;
        return rc;
    }
    b[n] = '\0';
    *buf = b;
    *len = n;
    return 0;
}

int
fileread_path(const char *path, size_t cap, char **buf, size_t *len, struct err *e)
{
    *buf = NULL;
    bool is_stdin = strcmp(path, "-") == 0;
    int fd = is_stdin ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return err_set(e, NS_EIO, "%s", strerror(errno));
    struct stat st;
    int rc;
    if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode))
        rc = err_set(e, NS_EIO, "%s", strerror(EISDIR));
    else
        rc = fileread_fd(fd, cap, buf, len, e);
    if (!is_stdin)
        close(fd);
    return rc;
}
