/* transport_sshconfig_perm.c - the check ssh makes of the user's config files before reading
 * them, as Debian's OpenSSH 9.2 makes it (its user-group-modes patch, secure_permissions() in
 * misc.c): owned by root or the user, not writable by others, and writable by the group only
 * when that group's one member is the file's owner (a "user private group", where umask 002
 * leaves files group-writable). */
#include "transport/transport_sshconfig_int.h"

#include <grp.h>
#include <pthread.h>
#include <pwd.h>
#include <string.h>
#include <sys/stat.h>

/* getpwent walks one process-wide cursor: one walk at a time. */
static pthread_mutex_t pwent_mu = PTHREAD_MUTEX_INITIALIZER;

/* How many users have gid as their primary group; -1 when one of them is not uid. */
static int
primary_members(gid_t gid, uid_t uid)
{
    struct passwd pw, *p = NULL;
    char buf[4096];
    int members = 0;
    pthread_mutex_lock(&pwent_mu);
    setpwent();
    while (members >= 0 && getpwent_r(&pw, buf, sizeof buf, &p) == 0 && p != NULL) {
        if (p->pw_gid != gid)
            continue;
        members = p->pw_uid == uid ? members + 1 : -1;
    }
    endpwent();
    pthread_mutex_unlock(&pwent_mu);
    return members;
}

/* The group's members, primary and supplementary, are the file's owner alone. */
static bool
group_of_owner_only(const struct stat *st, uid_t uid)
{
    struct group gr, *g = NULL;
    struct passwd pw, *owner = NULL;
    char gbuf[16384], pbuf[4096];
    if (getgrgid_r(st->st_gid, &gr, gbuf, sizeof gbuf, &g) != 0 || g == NULL)
        return false;
    int members = primary_members(g->gr_gid, uid);
    if (members < 0)
        return false;
    if (getpwuid_r(st->st_uid, &pw, pbuf, sizeof pbuf, &owner) != 0 || owner == NULL)
        return false;
    if (g->gr_mem[0] != NULL) {
        if (strcmp(owner->pw_name, g->gr_mem[0]) != 0 || g->gr_mem[1] != NULL)
            return false;
        members++;
    }
    return members > 0;
}

bool
sc_secure_permissions(const struct stat *st, uid_t uid)
{
    if (st->st_uid != 0 && st->st_uid != uid)
        return false;
    if ((st->st_mode & 002) != 0)
        return false;
    return (st->st_mode & 020) == 0 || group_of_owner_only(st, uid);
}
