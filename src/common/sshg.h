/* sshg.h - the operator's own OpenSSH, asked how it resolves a destination: `ssh -G ARGS... --
 * DEST` prints every option as ssh would use it (one "keyword value" line each, the keyword in
 * lower case, repeated keywords such as identityfile on lines of their own) and connects to
 * nothing. netsurvey reads ssh_config(5) this way and never by itself, so that a config the
 * operator's ssh accepts is accepted whatever its version, Include, Match (exec too) and
 * first-obtained-value rule included, and a config it refuses is refused with OpenSSH's own
 * words ("FILE line 3: Bad configuration option: foo").
 *
 * Both the ssh transport (every host and jump hop) and hosts_from's ssh_config inventories (the
 * data address of each alias) ask through here: common is the one module both may use.
 *
 * The program: $NETSURVEY_SSH when set (a path, or a name looked up in PATH), else "ssh" in the
 * caller's PATH. It runs with fork+exec (posix_spawnp), an argument vector and never a shell,
 * stdin from /dev/null, stdout and stderr read with a cap, and is killed at its timeout.
 *
 * A struct sshg is a cache: one run per distinct argument vector for its lifetime (a plan's
 * hosts behind one bastion resolve the bastion once), errors included. Thread-safe: several
 * threads may query one struct sshg at once; a query for a vector already being run waits for
 * that run instead of starting another. Errors are values: 0 or a negative NS_E* code with the
 * detail in the caller's struct err. */
#ifndef NS_COMMON_SSHG_H
#define NS_COMMON_SSHG_H

#include <stddef.h>

#include "common/errors.h"

#define SSHG_PROGRAM_ENV "NETSURVEY_SSH" /* the ssh client to run instead of PATH's "ssh" */
#define SSHG_TIMEOUT_S 10.0              /* one run, from start to exit */
#define SSHG_OUT_MAX (256 * 1024)        /* bytes of stdout (ssh 9.2 prints about 5 KiB) */
#define SSHG_ERR_MAX (16 * 1024)         /* bytes of stderr */
#define SSHG_ARGS_MAX 32                 /* arguments of one query */
#define SSHG_PARALLEL_MAX 8              /* runs at once in sshg_parallel */

/* The package that has ssh, named when there is none. */
#define SSHG_PACKAGE "openssh-client"

struct sshg;

/* One answer: ssh -G's lines, in its order. Owned by the struct sshg that gave it, unchanged
 * until sshg_free. */
struct sshg_line {
    const char *key;   /* lower case: "hostname" */
    const char *value; /* the rest of the line: "10.0.0.4", "~/.ssh/id_rsa" */
};

struct sshg_answer {
    const struct sshg_line *line;
    size_t n;
    /* What ssh printed on stderr while accepting the config ("FILE line 9: Unsupported option
     * \"rsaauthentication\"", "Warning: Identity file X not accessible: ..."), one message a
     * line; NULL when nothing. */
    const char *notes;
};

/* A new, empty cache using $NETSURVEY_SSH or PATH's ssh; NULL when out of memory. */
struct sshg *sshg_new(void);

/* NULL is safe. Every answer it gave is freed. */
void sshg_free(struct sshg *g);

/* The program to run (copied; NULL: back to $NETSURVEY_SSH or "ssh") and the timeout of one
 * run (seconds > 0). For tests; call before the first query. */
int sshg_set_program(struct sshg *g, const char *program);
void sshg_set_timeout(struct sshg *g, double seconds);

/* `ssh -G -T ARGS... -- DEST`: args are the options (as ssh takes them: "-F", "FILE", "-l",
 * "USER", ...; NULL-terminated, at most SSHG_ARGS_MAX), dest the destination. *out is borrowed
 * from g. On failure e says what ssh said, its stderr as one line ("ssh -G: FILE line 3: Bad
 * configuration option: foo; FILE: terminating, 1 bad configuration options"): NS_EPARSE when
 * ssh refused (exit 255), NS_ENOTFOUND when there is no such program (the message names the
 * package), NS_ETIMEDOUT, NS_ETOOBIG past a cap, NS_EIO, NS_ENOMEM. */
int sshg_query(struct sshg *g, const char *const *args, const char *dest,
               const struct sshg_answer **out, struct err *e);

/* Call fn(ctx, i) for every i < n, from up to SSHG_PARALLEL_MAX threads at once (the calling
 * thread is one of them; fewer when n is small or threads cannot be made). For resolving many
 * destinations through one g: ssh -G spends its few milliseconds reading files and starting,
 * so runs overlap well. */
void sshg_parallel(size_t n, void (*fn)(void *ctx, size_t i), void *ctx);

/* The value of the first line with key, or NULL. */
const char *sshg_value(const struct sshg_answer *a, const char *key);

/* The values of key one after the other: start with *pos = 0; NULL after the last. */
const char *sshg_next(const struct sshg_answer *a, const char *key, size_t *pos);

#endif
