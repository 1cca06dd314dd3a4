/* fsdir.h - folders made as `mkdir -p` makes them: the run directory (journal), the outputs of
 * report, compare and trend. */
#ifndef NS_FSDIR_H
#define NS_FSDIR_H

#include <stdbool.h>

struct err;

/* Create dir's parents, then dir itself (mode 0777 less the umask); trailing slashes are
 * ignored. *existed (may be NULL) tells whether dir was there already. Returns 0, NS_ETOOBIG
 * (longer than PATH_MAX) or NS_EIO naming the folder that could not be made. */
int fsdir_make(const char *dir, bool *existed, struct err *e);

/* fsdir_make for the folder that holds the file path (nothing when path has no folder part). */
int fsdir_make_parent(const char *path, struct err *e);

#endif
