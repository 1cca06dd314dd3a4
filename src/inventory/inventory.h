/* inventory.h - the readers of hosts_from's inventories: the inventory module's interface to
 * src/plan (plan/hosts_from.c turns the machines read into plan hosts).
 *
 * A reader turns one file's bytes into the machines the plan asked for (struct inv_query:
 * tags, an Ansible group, a glob on names), keeping of each what a plan host needs (name,
 * addresses, zone, region, zone id, ssh user and port) and, when it is not running, what state
 * it is in. Readers know each tool's output as the tool prints it; they check the shape of the
 * file, not the values (hosts_from.c checks those the same way for every format, as it checks
 * a hand-written host). Every problem becomes one diagnostic at the hosts_from entry
 * (x->plan_file:x->line:x->col) whose message names the inventory file, and the entry in it
 * where it has one. Readers touch neither the plan nor the file system: the ssh_config reader
 * reads Included files and has the aliases resolved through what the context hands it.
 *
 * Caps: the file's size is capped by its reader's caller (PLAN_INVENTORY_MAX_FILE_SIZE); a
 * reader refuses more than INV_MAX_MACHINES entries and, for Ansible, more than
 * INV_MAX_GROUPS groups and ranges that expand past INV_MAX_MACHINES names. */
#ifndef NS_INVENTORY_H
#define NS_INVENTORY_H

#include <stdbool.h>
#include <stddef.h>

#include "common/arena.h"
#include "common/diag.h"
#include "common/errors.h"

#define INV_MAX_MACHINES 100000 /* entries of one file, before selection */
#define INV_MAX_GROUPS 10000    /* Ansible groups of one file */
#define INV_MAX_ERRORS 20       /* problems reported of one file; a reader stops past them */

enum inv_format { INV_AZURE, INV_AWS, INV_GCP, INV_ANSIBLE, INV_SSH_CONFIG, INV_FORMAT_COUNT };

/* The formats' names as a plan writes them, by enum inv_format, NULL-terminated. */
extern const char *const inv_format_names[INV_FORMAT_COUNT + 1];

/* "azure", ...; NULL when out of range. */
const char *inv_format_name(enum inv_format f);

/* A tag (azure, aws) or label (gcp) a machine must carry: key and value. */
struct inv_label {
    const char *key, *value;
};

/* What a hosts_from entry selects. Every member may be empty: then it selects everything. */
struct inv_query {
    const struct inv_label *tags; /* tags (azure, aws) or labels (gcp): all must match */
    size_t ntags;
    const char *group; /* Ansible: the hosts of this group and of its children, at any depth */
    const char *match; /* fnmatch(3) glob on the machine's name */
};

/* One selected machine. Strings live in the context's arena; NULL means "not given". */
struct inv_machine {
    const char *name;
    const char *entry;   /* the file and where the machine is in it, for messages: "vms.json [2]",
                            "ec2.json Reservations[0].Instances[1]", "inventory.ini:12:1" */
    const char *address; /* what ssh dials */
    const char *data_address; /* what test traffic uses */
    const char *zone, *region, *zone_id;
    const char *user; /* ssh user */
    const char *port; /* ssh port, as written (checked by hosts_from.c) */
    const char *instance_type, *instance_id;
    const char *state; /* NULL: running; else the state the inventory gives */
    bool bad;          /* its reader reported a problem with it: not taken, not checked */
};

/* What the ssh_config reader needs from outside, handed by plan/hosts_from.c (each callback may
 * be NULL): the files its Include lines name, read and globbed as the plan reads its own (read
 * puts at most cap bytes plus a NUL into *buf; glob puts the sorted paths an absolute pattern
 * matches into a NULL-terminated array, NULL for none; both malloc'd for the caller, 0 or an
 * NS_E* with e set), and the hostname the operator's ssh resolves each alias to (`ssh -G -F path
 * ALIAS`: host[i] malloc'd, or NULL and ssh's refusal in why[i]; 0 or NS_ENOMEM). */
struct inv_ssh {
    int (*read)(void *arg, const char *path, size_t cap, char **buf, size_t *len, struct err *e);
    int (*glob)(void *arg, const char *pattern, size_t max, char ***paths, struct err *e);
    void *files;
    int (*hostnames)(void *arg, const char *config, const char *const *alias, size_t n, char **host,
                     char **why);
    void *resolver;
    const char *path; /* the file as ssh -F takes it (absolute) */
    const char *home; /* "~" in an Include */
    size_t cap;       /* bytes of one Included file */
};

struct inv_ctx {
    /* set by the caller */
    enum inv_format format;
    const char *file; /* the inventory as messages name it: the plan's `file` */
    const char *plan_file;
    unsigned line, col; /* the hosts_from entry: where every diagnostic goes */
    const struct inv_query *q;
    struct arena *arena;
    struct diags *d;
    const struct inv_ssh *ssh; /* ssh_config only; NULL: Includes noted, aliases unresolved */
    /* results */
    struct inv_machine *m; /* selected machines, in the file's order (malloc'd) */
    size_t n, cap;
    size_t nread;  /* machines the file lists */
    size_t errors; /* problems reported */
    bool oom;
};

/* Read len bytes of x->format into x (buf need not be NUL-terminated beyond len). Returns 0,
 * NS_EPARSE after reporting (the machines read stay in x, those with problems marked bad), or
 * NS_ENOMEM. */
int inv_read(struct inv_ctx *x, const char *buf, size_t len);

/* Free x->m (the arena is the caller's). */
void inv_ctx_release(struct inv_ctx *x);

/* --- for the readers (inv_common.c) -------------------------------------------------------- */

/* Report a problem at the hosts_from entry; the message should name x->file. Past
 * INV_MAX_ERRORS problems one line says that the file has more, and the rest are counted only
 * (a file of another format than the entry says would otherwise give a problem a line). */
void inv_error(struct inv_ctx *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void inv_warn(struct inv_ctx *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void inv_note(struct inv_ctx *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A new selected machine, zeroed but for name and entry (from where: "[2]" in a JSON document,
 * or a line and column when line > 0); NULL when out of memory (oom set). The pointer is
 * valid until the next inv_add. */
struct inv_machine *inv_add(struct inv_ctx *x, const char *name, const char *where, unsigned line,
                            unsigned col);

/* Copy len bytes of s into the arena (NULL and oom set when out of memory). */
const char *inv_strndup(struct inv_ctx *x, const char *s, size_t len);
const char *inv_strdup(struct inv_ctx *x, const char *s);

/* Whether a reader should stop: past INV_MAX_ERRORS problems, or out of memory. */
bool inv_give_up(const struct inv_ctx *x);

/* Count one more machine of the file; false (after reporting) past INV_MAX_MACHINES. */
bool inv_count(struct inv_ctx *x);

/* Does the name pass the query's glob? */
bool inv_name_wanted(const struct inv_ctx *x, const char *name);

/* The readers, one per format (inv_json.c, inv_ansible*.c, inv_sshconfig.c). */
int inv_read_azure(struct inv_ctx *x, const char *buf, size_t len);
int inv_read_aws(struct inv_ctx *x, const char *buf, size_t len);
int inv_read_gcp(struct inv_ctx *x, const char *buf, size_t len);
int inv_read_ansible(struct inv_ctx *x, const char *buf, size_t len);
int inv_read_ssh_config(struct inv_ctx *x, const char *buf, size_t len);

/* The region of an AWS zone name: "us-east-1" for us-east-1a, for the Local Zone
 * us-west-2-lax-1a and for the Wavelength Zone us-east-1-wl1-bos-wlz-1. Writes into buf and
 * returns true, or false when name does not look like an AWS zone. */
bool inv_aws_region(const char *zone, char *buf, size_t len);

/* The region of a GCP zone: the zone without its last "-x" part (us-central1-a: us-central1).
 * False when zone has no such part. */
bool inv_gcp_region(const char *zone, char *buf, size_t len);

#endif
