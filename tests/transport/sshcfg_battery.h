/* sshcfg_battery.h - the battery of ssh configs that the resolver (test_transport_sshconfig.c)
 * and `netsurvey plan --json` (test_plan_resolved.c) are both held to OpenSSH with: each case
 * its config files, the host asked for, the values given on ssh's command line. Files are
 * written into a home of the case's own; nothing of ssh's answers is here. The resolver asks
 * `ssh -G` itself: what the battery holds is that it reads every answer right (hostname, user,
 * port, lists, ProxyJump), expands the identity files as ssh loads them (`ssh -v`, which -G does
 * not show) and fails where ssh fails. */
#ifndef NS_TESTS_SSHCFG_BATTERY_H
#define NS_TESTS_SSHCFG_BATTERY_H

#include <stdbool.h>
#include <stddef.h>

#include "transport/transport_sshconfig.h"

#define SSHCFG_MAX_FILES 6

struct tfile {
    const char *path; /* under the case's home; "config" is what -F names */
    const char *text; /* @HOME@: the case's home, @USER@: the local user */
    unsigned mode;    /* 0: 0644 */
};

struct tcase {
    const char *name;
    struct tfile files[SSHCFG_MAX_FILES];
    const char *host;
    struct transport_sshconfig_override ov; /* identity "@HOME@/...": in the case's home */
    const char *warn;                       /* a warning the resolver must give */
    bool no_F; /* as plain `ssh HOST`: ~/.ssh/config and /etc/ssh/ssh_config */
};

extern const struct tcase sshcfg_cases[];
extern const size_t sshcfg_ncases;

/* A new temporary root for the cases' homes into root (len bytes); 0 or -1. */
int sshcfg_root(char *root, size_t len);

/* Remove root and everything under it. */
void sshcfg_root_remove(const char *root);

/* The case's home under root, its files written (home: len bytes). */
void sshcfg_case_home(const char *root, const struct tcase *tc, char *home, size_t len);

/* The case's override with "@HOME@" replaced by home (a static buffer: one case at a time). */
struct transport_sshconfig_override sshcfg_case_override(const struct tcase *tc, const char *home);

/* ssh's arguments for ov into args, as the resolver passes them (-l, -p, -i, then ProxyJump and
 * UserKnownHostsFile as -o; NULL-terminated; room for 11; static buffers: one case at a time). */
void sshcfg_override_args(const struct transport_sshconfig_override *ov, const char **args);

#endif
