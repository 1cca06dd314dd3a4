/* sshcfg_battery.h - the battery of ssh configs that the resolver (test_transport_sshconfig.c)
 * and `netsurvey plan --json` (test_plan_resolved.c) are both held to `ssh -G` with: each case
 * its config files, the host asked for, the values given as `ssh -o` would. Files are written
 * into a home of the case's own; nothing of ssh's answers is here. */
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
    struct transport_sshconfig_override ov;
    const char *warn; /* a warning the resolver must give (ssh prints none such) */
    bool no_F;        /* as plain `ssh HOST`: ~/.ssh/config and /etc/ssh/ssh_config */
};

extern const struct tcase sshcfg_cases[];
extern const size_t sshcfg_ncases;

/* A new temporary root for the cases' homes into root (len bytes); 0 or -1. */
int sshcfg_root(char *root, size_t len);

/* Remove root and everything under it. */
void sshcfg_root_remove(const char *root);

/* The case's home under root, its files written (home: len bytes). */
void sshcfg_case_home(const char *root, const struct tcase *tc, char *home, size_t len);

/* `ssh -o` arguments for ov into args (NULL-terminated; room for 11; static buffers: one case
 * at a time). */
void sshcfg_override_args(const struct transport_sshconfig_override *ov, const char **args);

#endif
