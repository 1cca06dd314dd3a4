/* sshg.h - what OpenSSH itself resolves for a host, for tests to compare against: `ssh -G`
 * (hostname, port, user, identityfile as configured, userknownhostsfile, proxyjump,
 * hostkeyalias, connecttimeout, identitiesonly, identityagent) and `ssh -v` with a ProxyCommand
 * that exits at once (the identity files as ssh expands and loads them, printed before it gives
 * up). Runs the ssh on PATH with HOME set as asked; nothing is copied from a fixture. */
#ifndef NS_TESTS_SSHG_H
#define NS_TESTS_SSHG_H

#include <stdbool.h>
#include <stddef.h>

struct sshg_list {
    char **v;
    size_t n;
};

struct sshg {
    int status;     /* of `ssh -G`: 0 resolved, else ssh refused the config */
    bool connects;  /* `ssh -v` got as far as connecting (what -G does not expand, it did) */
    char err[1024]; /* the start of the refusing run's stderr */
    char *user, *hostname, *hostkeyalias, *identityagent;
    char *proxyjump; /* NULL: no proxyjump line */
    int port;
    int connecttimeout; /* -1: none */
    bool identitiesonly;
    struct sshg_list identityfile;       /* -G, unexpanded */
    struct sshg_list userknownhostsfile; /* -G, one line split at spaces */
    struct sshg_list identity_paths;     /* -v "identity file X type N", -cert variants left out */
};

/* Run `ssh -G [-F config] ARGS... host` and `ssh -v [-F config] -o ProxyCommand=false
 * -o BatchMode=yes ARGS... host` with HOME=home (config NULL: no -F; args NULL-terminated, may be
 * NULL). 0 when both ran (whatever they answered); -1 when ssh could not be started. */
int sshg_run(const char *home, const char *config, const char *const *args, const char *host,
             struct sshg *out);

void sshg_release(struct sshg *g);

/* Is an ssh client on PATH? */
bool sshg_available(void);

#endif
