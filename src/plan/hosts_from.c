/* hosts_from.c - the plan's `hosts_from`: each entry names an inventory file, its format and
 * what to select in it; the file is read (capped, hashed), its reader (inventory.h) lists the
 * selected machines, and each running one becomes a host, checked as a hand-written host is.
 *
 *   hosts_from:
 *     - {file: vms.json, format: azure, tags: {role: survey}}
 *     - {file: ec2.json, format: aws, tags: {role: survey}, address: private}
 *     - {file: gce.json, format: gcp, labels: {role: survey}}
 *     - {file: inventory.ini, format: ansible, group: survey}
 *     - {file: ~/.ssh/config, format: ssh_config, match: "zone*-vm"}
 *
 * Every problem of an entry, whatever file it is about, is reported at the entry. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/array.h"
#include "common/errors.h"
#include "common/net.h"
#include "common/sha256.h"
#include "common/text.h"
#include "inventory/inventory.h"
#include "plan/fields.h"

static const char *const address_choices[] = {"public", "private", NULL};

struct source_raw {
    const char *file, *group, *match;
    int format, address;
};

enum { F_FILE, F_FORMAT, F_TAGS, F_LABELS, F_GROUP, F_MATCH, F_ADDRESS };

static const struct fdesc source_fields[] = {
    [F_FILE] = {.key = "file",
                .type = FT_STR,
                .off = offsetof(struct source_raw, file),
                .required = true},
    [F_FORMAT] = {.key = "format",
                  .type = FT_ENUM,
                  .off = offsetof(struct source_raw, format),
                  .required = true,
                  .choices = inv_format_names,
                  .bad = "unknown inventory format"},
    [F_TAGS] = {.key = "tags", .type = FT_NODE},
    [F_LABELS] = {.key = "labels", .type = FT_NODE},
    [F_GROUP] = {.key = "group", .type = FT_STR, .off = offsetof(struct source_raw, group)},
    [F_MATCH] = {.key = "match", .type = FT_STR, .off = offsetof(struct source_raw, match)},
    [F_ADDRESS] = {.key = "address",
                   .type = FT_ENUM,
                   .off = offsetof(struct source_raw, address),
                   .choices = address_choices},
};

#define NSOURCE_FIELDS (sizeof source_fields / sizeof source_fields[0])

const struct fdesc *
plan_source_fields(size_t *n)
{
    *n = NSOURCE_FIELDS;
    return source_fields;
}
#define BIT(f) (1u << (f))

/* What each format reads, and how its messages explain a missing zone or address. */
struct format_info {
    uint32_t keys;        /* the entry keys that apply */
    const char *provider; /* the label `provider`, for the clouds */
    const char *no_zone, *no_address;
};

static const uint32_t base_keys = BIT(F_FILE) | BIT(F_FORMAT) | BIT(F_MATCH);

static const struct format_info formats[INV_FORMAT_COUNT] = {
    [INV_AZURE] = {base_keys | BIT(F_TAGS) | BIT(F_ADDRESS), "azure",
                   "its \"zones\" is empty (a regional VM)",
                   "its privateIps and publicIps are empty"},
    [INV_AWS] = {base_keys | BIT(F_TAGS) | BIT(F_ADDRESS), "aws",
                 "it has no Placement.AvailabilityZone",
                 "it has no PrivateIpAddress or PublicIpAddress"},
    [INV_GCP] = {base_keys | BIT(F_LABELS) | BIT(F_ADDRESS), "gcp", "it has no \"zone\"",
                 "it has no networkInterfaces[0].networkIP"},
    [INV_ANSIBLE] = {base_keys | BIT(F_GROUP), NULL, "it has no zone variable", "it has none"},
    [INV_SSH_CONFIG] = {base_keys, NULL, "an ssh config gives none", "it has none"},
};

/* One entry being read. */
struct source {
    struct plan_inventory *inv;
    enum inv_format format;
    bool private_address;
    struct plan_pos pos;
    struct inv_query q;
    const struct ynode *node;
};

/* --- the entry ------------------------------------------------------------------------------ */

static void
key_not_for_format(struct vctx *c, const struct ynode *key, int field, enum inv_format f)
{
    const char *fmt = inv_format_name(f);
    if (field == F_TAGS && f == INV_GCP)
        plan_verr(c, key, "gcp machines are selected by labels, not tags");
    else if (field == F_LABELS && (f == INV_AZURE || f == INV_AWS))
        plan_verr(c, key, "%s machines are selected by tags, not labels", fmt);
    else
        plan_verr(c, key, "key '%s' does not apply to format %s", source_fields[field].key, fmt);
}

/* tags or labels: a mapping of text to text. */
static void
source_tags(struct vctx *c, const struct ynode *n, const char *key, struct inv_query *q)
{
    if (!plan_vexpect(c, n, YNODE_MAP, key))
        return;
    struct inv_label *t = plan_vcalloc(c, n->nkids / 2, sizeof *t);
    if (t == NULL)
        return;
    static const struct fdesc text = {.key = "tag", .type = FT_STR};
    for (size_t i = 0; i + 1 < n->nkids; i += 2) {
        struct inv_label l = {0};
        if (plan_field_store(c, &text, n->kids[i], &l.key) &&
            plan_field_store(c, &text, n->kids[i + 1], &l.value))
            t[q->ntags++] = l;
    }
    q->tags = t;
}

/* The entry's keys into s; false after reporting (nothing to read then). */
static bool
source_entry(struct vctx *c, const struct ynode *n, size_t i, struct source *s,
             struct source_raw *raw)
{
    char what[64];
    snprintf(what, sizeof what, "hosts_from entry %zu", i + 1);
    struct fvals v;
    if (!plan_fields_collect(c, n, source_fields, NSOURCE_FIELDS, UINT32_MAX, &v, what))
        return false;
    plan_fields_require(c, n, source_fields, NSOURCE_FIELDS, &v, what);
    size_t before = diag_total(c->d);
    plan_fields_store(c, source_fields, NSOURCE_FIELDS, &v, raw);
    if (!(v.set & BIT(F_FILE)) || !(v.set & BIT(F_FORMAT)))
        return false;
    s->format = (enum inv_format)raw->format;
    for (int f = 0; f < (int)NSOURCE_FIELDS; f++)
        if (v.key[f] != NULL && !(formats[s->format].keys & BIT(f)))
            key_not_for_format(c, v.key[f], f, s->format);
    if (s->format == INV_SSH_CONFIG && v.key[F_MATCH] == NULL)
        plan_verr(c, n,
                  "missing required key 'match' in %s (an ssh config names other hosts too: "
                  "select the ones to survey, \"zone*-vm\")",
                  what);
    const struct ynode *tags = v.val[F_TAGS] ? v.val[F_TAGS] : v.val[F_LABELS];
    if (tags != NULL)
        source_tags(c, tags, v.val[F_TAGS] ? "tags" : "labels", &s->q);
    s->q.group = raw->group;
    s->q.match = raw->match;
    s->private_address = raw->address == 1;
    s->pos = plan_node_pos(n);
    s->node = n;
    return diag_total(c->d) == before;
}

/* --- the file ------------------------------------------------------------------------------- */

/* Drop "." segments and fold "dir/.." in an absolute path, in place: the path recorded for a
 * run reads as the file's (no file system access: a symbolic link is kept, not resolved). */
static void
path_fold(char *path)
{
    char *out = path;
    for (const char *p = path; *p != '\0';) {
        while (*p == '/')
            p++;
        size_t n = strcspn(p, "/");
        if (n == 0)
            break;
        if (n == 1 && p[0] == '.') {
            p += n;
            continue;
        }
        if (n == 2 && p[0] == '.' && p[1] == '.') {
            while (out > path && *--out != '/')
                ;
            p += n;
            continue;
        }
        *out++ = '/';
        memmove(out, p, n);
        out += n;
        p += n;
    }
    if (out == path)
        *out++ = '/';
    *out = '\0';
}

/* ~ and ~/x against home, relative paths against the plan's folder; NULL after reporting. */
static const char *
source_path(struct vctx *c, const struct source *s, const char *file)
{
    char buf[4200];
    const struct plan_load_env *env = &c->p->env;
    int n;
    if (file[0] == '~' && (file[1] == '/' || file[1] == '\0'))
        n = snprintf(buf, sizeof buf, "%s%s", env->home, file + 1);
    else if (file[0] == '~')
        return plan_verr_at(c, s->pos,
                            "inventory %s: ~user paths are not expanded; write the "
                            "path out",
                            file),
               NULL;
    else if (file[0] == '/')
        n = snprintf(buf, sizeof buf, "%s", file);
    else
        n = snprintf(buf, sizeof buf, "%s/%s", env->base_dir, file);
    if (n < 0 || (size_t)n >= sizeof buf)
        return plan_verr_at(c, s->pos, "inventory %s: path too long", file), NULL;
    if (buf[0] == '/')
        path_fold(buf);
    return plan_vstrdup(c, buf);
}

/* The file's bytes (caller frees) and their sha256; NULL after reporting. */
static char *
source_read(struct vctx *c, struct source *s, size_t *len)
{
    const struct plan_reader *rd = c->p->env.reader;
    char *buf = NULL;
    struct err e;
    err_clear(&e);
    int rc = rd->read(rd->arg, s->inv->path, PLAN_INVENTORY_MAX_FILE_SIZE, &buf, len, &e);
    if (rc == NS_ETOOBIG)
        plan_verr_at(c, s->pos,
                     "inventory %s is larger than the limit of %u MiB; select less "
                     "when you write it",
                     s->inv->file, PLAN_INVENTORY_MAX_FILE_SIZE >> 20);
    else if (rc == NS_ENOMEM)
        c->oom = true;
    else if (rc != 0)
        plan_verr_at(c, s->pos, "cannot read inventory %s: %s", s->inv->file, e.msg);
    if (rc != 0)
        return NULL;
    uint8_t d[SHA256_LEN];
    char hex[2 * SHA256_LEN + 1];
    sha256(buf, *len, d);
    s->inv->sha256 = plan_vstrdup(c, sha256_hex_encode(d, SHA256_LEN, hex));
    return buf;
}

/* --- one machine, as a host ------------------------------------------------------------------ */

/* Text an inventory gave for a host field has no control characters; false after reporting. */
static bool
text_ok(struct vctx *c, const struct source *s, const struct inv_machine *m, const char *what,
        const char *v)
{
    if (v == NULL || diag_text_control(v, false) == 0)
        return true;
    plan_verr_at(c, s->pos,
                 "invalid %s '%s' of '%s' (%s): control or direction-changing characters are "
                 "not allowed",
                 what, v, m->name, m->entry);
    return false;
}

static bool
address_ok(struct vctx *c, const struct source *s, const struct inv_machine *m, const char *what,
           const char *v)
{
    const char *why = plan_vaddress_problem(v);
    if (why != NULL)
        plan_verr_at(c, s->pos, "invalid %s '%s' of '%s' (%s): %s", what, v, m->name, m->entry,
                     why);
    return why == NULL;
}

/* The ssh user and port an inventory gives override the plan's ssh block for that host. */
static bool
import_ssh(struct vctx *c, const struct source *s, const struct inv_machine *m, struct plan_host *h)
{
    bool ok = text_ok(c, s, m, "ssh user", m->user);
    if (ok && m->user != NULL && (m->user[0] == '-' || m->user[0] == '\0')) {
        plan_verr_at(
            c, s->pos, "invalid ssh user '%s' of '%s' (%s): %s", m->user, m->name, m->entry,
            m->user[0] ? "must not start with '-' (ssh would take it for an option)" : "empty");
        ok = false;
    } else if (ok && m->user != NULL) {
        h->ssh.user = m->user;
    }
    if (m->port != NULL) {
        uint16_t port;
        if (net_parse_port(m->port, 1, &port) != 0) {
            plan_verr_at(c, s->pos, "invalid ssh port '%s' of '%s' (%s): expected 1..65535",
                         m->port, m->name, m->entry);
            ok = false;
        } else {
            h->ssh.port = (unsigned)port;
        }
    }
    return ok;
}

static bool
import_labels(struct vctx *c, const struct source *s, const struct inv_machine *m,
              struct plan_host *h)
{
    const char *provider = formats[s->format].provider;
    struct plan_label l[3];
    size_t n = 0;
    if (provider != NULL)
        l[n++] = (struct plan_label){"provider", provider};
    if (m->instance_type != NULL && m->instance_type[0] != '\0')
        l[n++] = (struct plan_label){"instance_type", m->instance_type};
    if (m->instance_id != NULL && m->instance_id[0] != '\0')
        l[n++] = (struct plan_label){"instance_id", m->instance_id};
    bool ok = true;
    for (size_t i = 0; i < n; i++)
        ok &= text_ok(c, s, m, l[i].key, l[i].value);
    struct plan_label *v = plan_vcalloc(c, n, sizeof *v);
    if (v != NULL && n > 0)
        memcpy(v, l, n * sizeof *v);
    h->labels = v;
    h->nlabels = v != NULL ? n : 0;
    return ok;
}

/* Addresses: a cloud machine is dialled at its public address when it has one (unless the entry
 * says `address: private`), and measured between private ones. */
static bool
import_addresses(struct vctx *c, const struct source *s, const struct inv_machine *m,
                 struct plan_host *h)
{
    const char *pub = m->address != NULL && m->address[0] != '\0' ? m->address : NULL;
    const char *priv =
        m->data_address != NULL && m->data_address[0] != '\0' ? m->data_address : NULL;
    bool cloud = formats[s->format].provider != NULL;
    h->address = cloud && s->private_address ? priv : pub != NULL ? pub : priv;
    h->data_address = priv != NULL ? priv : h->address;
    if (h->address == NULL) {
        plan_verr_at(c, s->pos, "no %saddress for '%s' (%s): %s",
                     s->private_address ? "private " : "", m->name, m->entry,
                     formats[s->format].no_address);
        return false;
    }
    bool addr = text_ok(c, s, m, "address", h->address);
    bool data = h->data_address == h->address || text_ok(c, s, m, "data address", priv);
    addr = addr && address_ok(c, s, m, "address", h->address);
    data = data &&
           (h->data_address == h->address || address_ok(c, s, m, "data address", h->data_address));
    return addr && data;
}

static bool
import_place(struct vctx *c, const struct source *s, const struct inv_machine *m,
             struct plan_host *h, struct plan_zone_rules *z)
{
    h->zone = m->zone != NULL ? m->zone : "";
    h->region = m->region != NULL ? m->region : "";
    h->zone_id = m->zone_id != NULL ? m->zone_id : "";
    plan_zones_fill(z, h);
    bool ok = text_ok(c, s, m, "zone", h->zone) && text_ok(c, s, m, "region", h->region) &&
              text_ok(c, s, m, "zone_id", h->zone_id);
    if (h->zone[0] == '\0') {
        plan_verr_at(c, s->pos, "no zone for '%s' (%s): %s; give it one in the plan's zones map",
                     m->name, m->entry, formats[s->format].no_zone);
        ok = false;
    }
    return ok;
}

static bool
import_machine(struct vctx *c, const struct source *s, const struct inv_machine *m,
               struct plan_zone_rules *z, struct plan_host *h)
{
    memset(h, 0, sizeof *h);
    h->name = m->name;
    h->transport = PLAN_TRANSPORT_SSH;
    h->ssh = c->p->ssh_defaults;
    if (!text_name_ok(m->name)) {
        plan_verr_at(c, s->pos,
                     "invalid host name '%s' (%s): use up to 64 letters, digits, '.', '_' and "
                     "'-'",
                     m->name, m->entry);
        return false;
    }
    bool ok = import_addresses(c, s, m, h);
    ok &= import_place(c, s, m, h, z);
    ok &= import_ssh(c, s, m, h);
    ok &= import_labels(c, s, m, h);
    return ok;
}

/* --- what an entry gave ---------------------------------------------------------------------- */

static bool
imports_add(struct vctx *c, struct plan_imports *im, const struct plan_import *one)
{
    if (ARRAY_GROW(&im->v, &im->cap, im->n + 1) != 0)
        return (c->oom = true, false);
    im->v[im->n++] = *one;
    return true;
}

void
plan_imports_release(struct plan_imports *im)
{
    free(im->v);
    im->v = NULL;
    im->n = im->cap = 0;
}

/* "tags role=survey, match 'zone*'" */
static void
selection_text(const struct source *s, char *buf, size_t len)
{
    size_t o = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < s->q.ntags && o < len; i++)
        o += (size_t)snprintf(buf + o, len - o, "%s%s=%s", i ? ", " : "tags ", s->q.tags[i].key,
                              s->q.tags[i].value);
    if (s->q.group != NULL && o < len)
        o += (size_t)snprintf(buf + o, len - o, "%sgroup '%s'", o ? ", " : "", s->q.group);
    if (s->q.match != NULL && o < len)
        snprintf(buf + o, len - o, "%smatch '%s'", o ? ", " : "", s->q.match);
}

/* Machines that are not running: listed once, in one note. */
static void
skipped_note(struct vctx *c, const struct source *s)
{
    const struct plan_inventory *inv = s->inv;
    if (inv->nskipped == 0)
        return;
    char list[700];
    size_t o = 0, shown = 0;
    for (; shown < inv->nskipped && o + 80 < sizeof list; shown++)
        o += (size_t)snprintf(list + o, sizeof list - o, "%s%.32s (%.24s)", shown ? ", " : "",
                              inv->skipped[shown].name, inv->skipped[shown].state);
    if (shown < inv->nskipped)
        snprintf(list + o, sizeof list - o, " and %zu more", inv->nskipped - shown);
    plan_vnote_at(c, s->pos, "%zu machine%s of %s %s not running, skipped: %s", inv->nskipped,
                  inv->nskipped == 1 ? "" : "s", inv->file, inv->nskipped == 1 ? "is" : "are",
                  list);
}

/* The machines read (read_ok: without a problem in the file as a whole). */
static void
source_machines(struct vctx *c, struct source *s, const struct inv_ctx *x, bool read_ok,
                struct plan_zone_rules *z, struct plan_imports *im)
{
    struct plan_inventory *inv = s->inv;
    struct plan_skipped *sk = plan_vcalloc(c, x->n, sizeof *sk);
    if (sk == NULL)
        return;
    for (size_t i = 0; i < x->n && !c->oom; i++) {
        const struct inv_machine *m = &x->m[i];
        if (m->bad)
            continue;
        if (m->state != NULL) {
            sk[inv->nskipped++] = (struct plan_skipped){m->name, m->state};
            continue;
        }
        struct plan_import one = {
            .source = (size_t)(inv - c->p->inventories), .entry = m->entry, .pos = s->pos};
        if (import_machine(c, s, m, z, &one.h))
            imports_add(c, im, &one);
    }
    inv->skipped = sk;
    skipped_note(c, s);
    char sel[300];
    selection_text(s, sel, sizeof sel);
    if (!read_ok)
        return;
    if (x->nread == 0)
        plan_verr_at(c, s->pos, "inventory %s lists no machines", inv->file);
    else if (x->n == 0)
        plan_verr_at(c, s->pos, "no machine of %s is selected by %s (%zu listed)", inv->file,
                     sel[0] ? sel : "the entry", x->nread);
    else if (inv->nskipped == x->n && x->n == 1)
        plan_verr_at(c, s->pos, "the one machine of %s selected is not running", inv->file);
    else if (inv->nskipped == x->n)
        plan_verr_at(c, s->pos, "none of the %zu machines of %s selected is running", x->n,
                     inv->file);
}

static void
source_read_all(struct vctx *c, struct source *s, struct plan_zone_rules *z,
                struct plan_imports *im)
{
    size_t len = 0;
    char *buf = source_read(c, s, &len);
    if (buf == NULL)
        return;
    const struct plan_load_env *env = &c->p->env;
    /* an ssh config's Includes are read as the plan reads files; its aliases resolved by ssh */
    const struct inv_ssh ssh = {.read = env->reader->read,
                                .glob = env->reader->glob,
                                .files = env->reader->arg,
                                .hostnames = env->ssh->hostnames,
                                .resolver = env->ssh->arg,
                                .path = s->inv->path,
                                .home = env->home,
                                .cap = PLAN_INVENTORY_MAX_FILE_SIZE};
    struct inv_ctx x = {.format = s->format,
                        .file = s->inv->file,
                        .plan_file = c->file,
                        .line = s->pos.line,
                        .col = s->pos.col,
                        .q = &s->q,
                        .arena = &c->p->arena,
                        .d = c->d,
                        .ssh = &ssh};
    int rc = inv_read(&x, buf, len);
    free(buf);
    if (rc == NS_ENOMEM)
        c->oom = true;
    else
        source_machines(c, s, &x, rc == 0, z, im);
    inv_ctx_release(&x);
}

void
plan_validate_hosts_from(struct vctx *c, const struct ynode *list, struct plan_zone_rules *z,
                         struct plan_imports *im)
{
    if (list == NULL || !plan_vexpect(c, list, YNODE_SEQ, "hosts_from"))
        return;
    if (list->nkids == 0) {
        plan_verr(c, list, "hosts_from must list at least one inventory, found none");
        return;
    }
    if (list->nkids > PLAN_MAX_INVENTORIES) {
        plan_verr(c, list, "too many inventories in hosts_from: %zu, the limit is %d", list->nkids,
                  PLAN_MAX_INVENTORIES);
        return;
    }
    struct plan *p = c->p;
    p->inventories = plan_vcalloc(c, list->nkids, sizeof *p->inventories);
    if (p->inventories == NULL)
        return;
    for (size_t i = 0; i < list->nkids && !c->oom; i++) {
        struct source s = {.inv = &p->inventories[p->ninventories]};
        struct source_raw raw = {0};
        if (!source_entry(c, list->kids[i], i, &s, &raw))
            continue;
        s.inv->file = raw.file;
        s.inv->format = inv_format_name(s.format);
        s.inv->path = source_path(c, &s, raw.file);
        if (s.inv->path == NULL)
            continue;
        p->ninventories++;
        source_read_all(c, &s, z, im);
    }
}
