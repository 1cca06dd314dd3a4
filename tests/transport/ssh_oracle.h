/* ssh_oracle.h - what OpenSSH itself resolves for a host, for tests to compare against: `ssh -G`
 * (hostname, port, user, identityfile as configured, userknownhostsfile, proxyjump,
 * hostkeyalias, connecttimeout, identitiesonly, identityagent) and `ssh -v` with a ProxyCommand
 * that exits at once (the identity files as ssh expands and loads them, printed before it gives
 * up). Runs the ssh on PATH with HOME set as asked; nothing is copied from a fixture. */
#ifndef NS_TESTS_SSH_ORACLE_H
#define NS_TESTS_SSH_ORACLE_H

#include <stdbool.h>
#include <stddef.h>

struct oracle_list {
    char **v;
    size_t n;
};

struct oracle {
    int status;      /* of `ssh -G`: 0 resolved, else ssh refused the config */
    bool connects;   /* `ssh -v` got as far as connecting (what -G does not expand, it did) */
    char err[1024];  /* the start of the refusing run's stderr */
    char gerr[1024]; /* the start of `ssh -G`'s stderr */
    char *user, *hostname, *hostkeyalias, *identityagent;
    char *proxyjump; /* NULL: no proxyjump line */
    int port;
    int connecttimeout; /* -1: none */
    bool identitiesonly;
    struct oracle_list identityfile;       /* -G, unexpanded */
    struct oracle_list userknownhostsfile; /* -G, one line split at spaces */
    struct oracle_list identity_paths; /* -v "identity file X type N", -cert variants left out */
};

/* Run `ssh -G [-F config] ARGS... host` and `ssh -v [-F config] -o ProxyCommand=false
 * -o BatchMode=yes ARGS... host` with HOME=home (config NULL: no -F; args NULL-terminated, may be
 * NULL). 0 when both ran (whatever they answered); -1 when ssh could not be started. */
int oracle_run(const char *home, const char *config, const char *const *args, const char *host,
               struct oracle *out);

void oracle_release(struct oracle *g);

/* Is an ssh client on PATH? */
bool oracle_available(void);

#endif
