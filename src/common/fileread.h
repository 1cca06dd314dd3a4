/* fileread.h - whole files read with a cap (every input has a limit): plan files,
 * token files. */
#ifndef NS_FILEREAD_H
#define NS_FILEREAD_H

#include <stddef.h>

struct err;

/* Read fd to its end into a new buffer: *buf (caller frees) holds *len bytes plus a NUL.
 * Returns 0; NS_ETOOBIG when fd holds more than cap bytes (at most cap + 1 are read);
 * NS_EIO with strerror's text alone in e (callers say what they were reading); NS_ENOMEM.
 * On failure *buf is NULL. fd is not closed. */
int fileread_fd(int fd, size_t cap, char **buf, size_t *len, struct err *e);

/* As fileread_fd for the file at path ("-": standard input, left open). A directory is
 * NS_EIO ("Is a directory"). */
int fileread_path(const char *path, size_t cap, char **buf, size_t *len, struct err *e);

#endif
