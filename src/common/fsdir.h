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

/* Whether a and b name one existing file or folder (the same device and inode, through any
 * links): false when either is missing. */
bool fsdir_same(const char *a, const char *b);

/* path made absolute and free of links, ".", ".." and repeated slashes, into out (PATH_MAX):
 * realpath(3) of path, or of its folder with its last part added when path does not exist yet.
 * False when neither resolves (a folder part missing). */
bool fsdir_resolve(const char *path, char *out);

#endif
