/* test_inventory.c - hosts_from: what each format's reader makes of realistic files
 * (tests/fixtures/inventories: running and stopped machines, tags that do not match, Local and
 * Wavelength Zones, Ansible children and precedence in both forms, ssh config patterns), the
 * plan-side rules (replacement by hosts entries, the zones map, paths and ~, caps, refused
 * files), and what plan_inventory() reports. */
#include <fnmatch.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/errors.h"
#include "common/sha256.h"
#include "helpers.h"
#include "inventory/inventory.h"
#include "plan/plan.h"
#include "plan/plan_int.h"

/* --- loading plans against the fixtures, or against files in memory ---------------------- */

struct memfile {
    const char *path, *text;
    size_t len; /* 0: strlen(text) */
};

struct memfs {
    const struct memfile *files;
    size_t n;
    const char *last_path; /* the path asked for last */
};

static int
mem_read(void *arg, const char *path, size_t cap, char **buf, size_t *len, struct err *e)
{
    struct memfs *fs = arg;
    fs->last_path = path;
    for (size_t i = 0; i < fs->n; i++) {
        if (strcmp(fs->files[i].path, path) != 0)
            continue;
        size_t n = fs->files[i].len ? fs->files[i].len : strlen(fs->files[i].text);
        if (n > cap)
            return err_set(e, NS_ETOOBIG, "larger than %zu bytes", cap);
        *buf = malloc(n + 1);
        memcpy(*buf, fs->files[i].text, n);
        (*buf)[n] = '\0';
        *len = n;
        return 0;
    }
    return err_set(e, NS_EIO, "No such file or directory");
}

/* The memory files a pattern matches, in their order (an ssh config's Include). */
static int
mem_glob(void *arg, const char *pattern, size_t max, char ***paths, struct err *e)
{
    struct memfs *fs = arg;
    *paths = calloc(fs->n + 1, sizeof **paths);
    size_t k = 0;
    for (size_t i = 0; i < fs->n; i++)
        if (fnmatch(pattern, fs->files[i].path, FNM_PATHNAME) == 0)
            (*paths)[k++] = strdup(fs->files[i].path);
    if (k > max)
        return err_set(e, NS_ETOOBIG, "too many");
    return 0;
}

/* A stand-in for the operator's ssh: an alias resolves to "ALIAS.resolved", one with "bad" in
 * it is refused as ssh refuses a config; the config it was given is kept. */
static char g_ssh_config[256];

static int
fake_hostnames(void *arg, const char *config, const char *const *alias, size_t n, char **host,
               char **why)
{
    (void)arg;
    snprintf(g_ssh_config, sizeof g_ssh_config, "%s", config);
    for (size_t i = 0; i < n; i++) {
        char buf[300];
        if (strstr(alias[i], "bad") != NULL) {
            snprintf(buf, sizeof buf, "ssh -G: %s line 2: Bad configuration option: frob", config);
            why[i] = strdup(buf);
        } else {
            snprintf(buf, sizeof buf, "%s.resolved", alias[i]);
            host[i] = strdup(buf);
        }
    }
    return 0;
}

static const struct plan_ssh_resolver fake_ssh = {.hostnames = fake_hostnames};

/* Load yaml (a plan) in folder base with the memory files; rc as plan_load_buffer_env's. */
static int
load_mem(const char *yaml, struct memfs *fs, struct plan **p, struct diags *d)
{
    struct plan_reader rd = {.read = mem_read, .glob = mem_glob, .arg = fs};
    struct plan_load_env env = {
        .base_dir = "/plans", .home = "/home/op", .reader = &rd, .ssh = &fake_ssh};
    return plan_load_buffer_env("plan.yaml", yaml, strlen(yaml), &env, p, d);
}

/* The fixture plan text (folder tests/fixtures/plans/ok) loaded from the real files. */
static struct plan *
load_fixture_plan(const char *name)
{
    char rel[256], path[1024];
    snprintf(rel, sizeof rel, "tests/fixtures/plans/ok/%s", name);
    helper_source_path(rel, path, sizeof path);
    struct diags *d = diags_new();
    struct plan *p = NULL;
    if (plan_load_file(path, &p, d) != 0) {
        diags_write(d, stderr);
        fail_msg("%s does not load", name);
    }
    diags_free(d);
    return p;
}

static const struct plan_host *
host(const struct plan *p, const char *name)
{
    long i = plan_host_find(p, name);
    if (i < 0)
        fail_msg("no host '%s'", name);
    return plan_host(p, (size_t)i);
}

static const char *
label(const struct plan_host *h, const char *key)
{
    for (size_t i = 0; i < h->nlabels; i++)
        if (strcmp(h->labels[i].key, key) == 0)
            return h->labels[i].value;
    return NULL;
}

/* The i-th diagnostic's message, or "(none)". */
static const char *
msg(const struct diags *d, size_t i)
{
    const char *m = diags_message(d, i, NULL, NULL);
    return m != NULL ? m : "(none)";
}

static void
expect_host(const struct plan *p, const char *name, const char *address, const char *data,
            const char *zone, const char *region, const char *zone_id)
{
    const struct plan_host *h = host(p, name);
    assert_string_equal(h->address, address);
    assert_string_equal(h->data_address, data);
    assert_string_equal(h->zone, zone);
    assert_string_equal(h->region, region);
    assert_string_equal(h->zone_id, zone_id);
    assert_int_equal(h->transport, PLAN_TRANSPORT_SSH);
}

/* --- the clouds -------------------------------------------------------------------------- */

static void
test_azure(void **state)
{
    (void)state;
    struct plan *p = load_fixture_plan("hosts-from-azure.yaml");
    assert_int_equal(plan_host_count(p), 3);
    expect_host(p, "zone1-vm", "203.0.113.4", "10.0.0.4", "1", "westus3", "");
    /* the first of a comma list of private addresses; no public address: the private one */
    expect_host(p, "zone2-vm", "203.0.113.5", "10.0.0.5", "2", "westus3", "");
    expect_host(p, "zone3-vm", "10.0.0.6", "10.0.0.6", "3", "westus3", "");
    const struct plan_host *h = host(p, "zone3-vm");
    assert_string_equal(h->ssh.user, "azureuser");
    assert_string_equal(h->ssh.identity, "~/.ssh/id_ed25519"); /* the plan's ssh block */
    assert_string_equal(label(h, "provider"), "azure");
    assert_string_equal(label(h, "instance_type"), "Standard_D8s_v5");
    assert_string_equal(label(h, "instance_id"), "3f1c9a52-0b7e-4c8e-9a51-6d0c2b7e4a03");
    assert_int_equal(plan_host_find(p, "web1"), -1);    /* tagged role=web */
    assert_int_equal(plan_host_find(p, "jumpbox"), -1); /* no tags */
    assert_int_equal(plan_inventory_count(p), 1);
    const struct plan_inventory *inv = plan_inventory(p, 0);
    assert_string_equal(inv->format, "azure");
    assert_int_equal(inv->nskipped, 2);
    assert_string_equal(inv->skipped[0].name, "zone3-old");
    assert_string_equal(inv->skipped[0].state, "VM deallocated");
    assert_string_equal(inv->skipped[1].state, "VM stopped");
    assert_int_equal(inv->nhosts, 3);
    assert_string_equal(inv->hosts[2], "zone3-vm");
    plan_free(p);
}

static void
test_aws(void **state)
{
    (void)state;
    struct plan *p = load_fixture_plan("hosts-from-aws.yaml");
    assert_int_equal(plan_host_count(p), 6);
    /* address: private; the zone id from Placement.AvailabilityZoneId when there is one */
    expect_host(p, "use1a-vm", "10.1.0.10", "10.1.0.10", "us-east-1a", "us-east-1", "use1-az4");
    expect_host(p, "lax-vm", "10.2.0.10", "10.2.0.10", "us-west-2-lax-1a", "us-west-2",
                "usw2-lax1-az1");
    expect_host(p, "bos-wlz-vm", "10.1.9.10", "10.1.9.10", "us-east-1-wl1-bos-wlz-1", "us-east-1",
                "");
    /* no Name tag, and a Name tag that cannot name a host: the instance id */
    expect_host(p, "i-0a1b2c3d4e5f60005", "10.1.2.10", "10.1.2.10", "us-east-1c", "us-east-1",
                "use1-az1");
    assert_int_equal(plan_host_find(p, "i-0a1b2c3d4e5f60006"), 5);
    const struct plan_host *h = host(p, "use1b-vm");
    assert_string_equal(h->ssh.user, "ec2-user");
    assert_string_equal(label(h, "instance_type"), "m5.large");
    assert_string_equal(label(h, "instance_id"), "i-0a1b2c3d4e5f60002");
    assert_int_equal(plan_host_find(p, "build-runner"), -1); /* role=ci */
    const struct plan_inventory *inv = plan_inventory(p, 0);
    assert_int_equal(inv->nskipped, 2);
    assert_string_equal(inv->skipped[0].state, "stopped");
    assert_string_equal(inv->skipped[1].state, "terminated");
    plan_free(p);
}

static void
test_aws_public_and_flat(void **state)
{
    (void)state;
    char path[1024];
    helper_source_path("tests/fixtures/inventories", path, sizeof path);
    char yaml[2048];
    snprintf(yaml, sizeof yaml,
             "name: x\nhosts_from:\n  - {file: %s/aws-ec2-instances.json, format: aws}\n"
             "scenarios: [{name: l, test: tcp_rr}]\n",
             path);
    struct diags *d = diags_new();
    struct plan *p = NULL;
    assert_int_equal(plan_load_buffer("/x/plan.yaml", yaml, strlen(yaml), &p, d), 0);
    /* the instances alone (--query 'Reservations[].Instances[]'); public addresses for ssh */
    assert_int_equal(plan_host_count(p), 2);
    expect_host(p, "use1a-vm", "198.51.100.10", "10.1.0.10", "us-east-1a", "us-east-1", "use1-az4");
    /* an absolute file is read as written, its . and .. folded */
    const char *read = plan_inventory(p, 0)->path;
    assert_null(strstr(read, "/../"));
    assert_non_null(strstr(read, "fixtures/inventories/aws-ec2-instances.json"));
    plan_free(p);
    diags_free(d);
}

static void
test_aws_region(void **state)
{
    (void)state;
    static const char *const cases[][2] = {
        {"us-east-1a", "us-east-1"},
        {"us-gov-west-1b", "us-gov-west-1"},
        {"ap-southeast-4a", "ap-southeast-4"},
        {"cn-north-1a", "cn-north-1"},
        {"us-west-2-lax-1a", "us-west-2"},
        {"us-east-1-mia-2a", "us-east-1"},
        {"us-east-1-wl1-bos-wlz-1", "us-east-1"},
        {"ap-northeast-1-wl1-nrt-wlz-1", "ap-northeast-1"},
        {"eu-central-1-ham-1a", "eu-central-1"},
    };
    char buf[64];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        if (!inv_aws_region(cases[i][0], buf, sizeof buf))
            fail_msg("%s: no region", cases[i][0]);
        assert_string_equal(buf, cases[i][1]);
    }
    static const char *const bad[] = {"us-east-1", "1a",     "moon-base-a", "useast1a",
                                      "",          "us--1a", "US-EAST-1a",  "us-east-"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (inv_aws_region(bad[i], buf, sizeof buf))
            fail_msg("%s: region %s", bad[i], buf);
    assert_true(inv_gcp_region("us-central1-a", buf, sizeof buf));
    assert_string_equal(buf, "us-central1");
    assert_true(inv_gcp_region("europe-west4-b", buf, sizeof buf));
    assert_string_equal(buf, "europe-west4");
    assert_false(inv_gcp_region("zonea", buf, sizeof buf));
    assert_false(inv_gcp_region("us-", buf, sizeof buf));
    assert_false(inv_gcp_region("-a", buf, sizeof buf));
}

static void
test_gcp(void **state)
{
    (void)state;
    struct plan *p = load_fixture_plan("hosts-from-gcp.yaml");
    assert_int_equal(plan_host_count(p), 3); /* labels role=survey, match usc1-*, running */
    expect_host(p, "usc1-a-vm", "192.0.2.10", "10.128.0.2", "us-central1-a", "us-central1",
                "us-central1-a");
    /* no access config: the internal address for ssh too */
    expect_host(p, "usc1-c-vm", "10.128.0.4", "10.128.0.4", "us-central1-c", "us-central1",
                "us-central1-c");
    const struct plan_host *h = host(p, "usc1-c-vm");
    assert_string_equal(label(h, "instance_type"), "n2-standard-8");
    assert_string_equal(label(h, "provider"), "gcp");
    assert_null(h->ssh.user);
    assert_int_equal(plan_host_find(p, "euw4-a-vm"), -1);
    assert_int_equal(plan_host_find(p, "usc1-a-web"), -1);
    assert_int_equal(plan_host_find(p, "usc1-b-bare"), -1); /* no labels at all */
    const struct plan_inventory *inv = plan_inventory(p, 0);
    assert_int_equal(inv->nskipped, 2);
    assert_string_equal(inv->skipped[0].state, "TERMINATED");
    assert_string_equal(inv->skipped[1].state, "SUSPENDED");
    plan_free(p);
}

/* --- Ansible ----------------------------------------------------------------------------- */

static void
check_ansible_hosts(const struct plan *p)
{
    assert_int_equal(plan_host_count(p), 5);
    assert_int_equal(plan_host_find(p, "bastion"), -1); /* ungrouped, not in survey */
    expect_host(p, "az1-vm1", "203.0.113.11", "10.0.1.11", "1", "westus3", "");
    /* fast (priority 10) merges after zone1, whatever the names; a host variable beats every
     * group's ansible_user */
    expect_host(p, "az1-vm2", "203.0.113.12", "10.0.1.12", "1-fast", "westus3", "");
    assert_string_equal(host(p, "az1-vm2")->ssh.user, "admin");
    /* the group variable beats its parent's (westus3: ops) and all's (root) */
    assert_string_equal(host(p, "az1-vm1")->ssh.user, "ops");
    assert_string_equal(host(p, "az2-vm1.example.net")->ssh.user, "ops2");
    /* without ansible_host the inventory name is the address, as Ansible dials it */
    expect_host(p, "az2-vm2.example.net", "az2-vm2.example.net", "az2-vm2.example.net", "2",
                "westus3", "");
    /* host:port, and a host variable over its group's zone */
    expect_host(p, "az3-vm1", "203.0.113.31", "10.0.3.31", "3b", "westus3", "");
    assert_int_equal(host(p, "az3-vm1")->ssh.port, 2222);
    assert_int_equal(host(p, "az1-vm1")->ssh.port, 0); /* not given: the ssh config's, or 22 */
    assert_int_equal(host(p, "az1-vm1")->nlabels, 0);
}

static void
test_ansible_ini_and_yaml(void **state)
{
    (void)state;
    struct plan *ini = load_fixture_plan("hosts-from-ansible-ini.yaml");
    struct plan *yaml = load_fixture_plan("hosts-from-ansible-yaml.yaml");
    check_ansible_hosts(ini);
    check_ansible_hosts(yaml);
    for (size_t i = 0; i < plan_host_count(ini); i++) /* and in the same order */
        assert_string_equal(plan_host(ini, i)->name, plan_host(yaml, i)->name);
    plan_free(ini);
    plan_free(yaml);
}

/* An in-memory inventory read with a query; the hosts' names, comma-separated, into out. */
static int
read_names(enum inv_format f, const char *file, const char *text, const char *group,
           const char *match, char *out, size_t len, struct diags *d)
{
    struct arena a = {0};
    struct inv_query q = {.group = group, .match = match};
    struct inv_ctx x = {.format = f,
                        .file = file,
                        .plan_file = "plan.yaml",
                        .line = 3,
                        .col = 5,
                        .q = &q,
                        .arena = &a,
                        .d = d};
    int rc = inv_read(&x, text, strlen(text));
    size_t o = 0;
    out[0] = '\0';
    for (size_t i = 0; i < x.n && o < len; i++)
        o += (size_t)snprintf(out + o, len - o, "%s%s%s", i ? "," : "", x.m[i].name,
                              x.m[i].port ? ":" : "");
    inv_ctx_release(&x);
    arena_release(&a);
    return rc;
}

static void
test_ansible_patterns(void **state)
{
    (void)state;
    struct diags *d = diags_new();
    char names[1024];
    const char ini[] = "web[01:03].example.com\n"
                       "db-[a:c]\n"
                       "n[0:8:4]\n"
                       "x[y:B]\n"
                       "[2001:db8::1]:2222\n"
                       "2001:db8::2\n"
                       "plain:22\n";
    assert_int_equal(read_names(INV_ANSIBLE, "h.ini", ini, NULL, NULL, names, sizeof names, d), 0);
    assert_string_equal(names, "web01.example.com,web02.example.com,web03.example.com,"
                               "db-a,db-b,db-c,n0,n4,n8,xy,xz,xA,xB,2001:db8::1:,2001:db8::2,"
                               "plain:");
    /* ungrouped: every host outside a group; the glob after the group */
    const char groups[] = "a\n[g1]\nb\nc\n[g2:children]\ng1\n[g2]\nd\n[other]\na\n";
    assert_int_equal(
        read_names(INV_ANSIBLE, "h", groups, "ungrouped", NULL, names, sizeof names, d), 0);
    assert_string_equal(names, "");
    assert_int_equal(read_names(INV_ANSIBLE, "h", groups, "g2", NULL, names, sizeof names, d), 0);
    assert_string_equal(names, "b,c,d");
    assert_int_equal(read_names(INV_ANSIBLE, "h", groups, "all", "[ad]", names, sizeof names, d),
                     0);
    assert_string_equal(names, "a,d");
    const char lone[] = "solo\n[g]\nb\n";
    assert_int_equal(read_names(INV_ANSIBLE, "h", lone, "ungrouped", NULL, names, sizeof names, d),
                     0);
    assert_string_equal(names, "solo");
    /* YAML by its first line, and a section given as one name */
    const char yaml[] = "# comment\nsurvey:\n  hosts: vm1\n  children: {sub: {hosts: {vm2: }}}\n";
    assert_int_equal(read_names(INV_ANSIBLE, "inv", yaml, "survey", NULL, names, sizeof names, d),
                     0);
    assert_string_equal(names, "vm1,vm2");
    assert_int_equal(diags_count(d), 0);
    diags_free(d);
}

static void
test_ansible_caps(void **state)
{
    (void)state;
    struct diags *d = diags_new();
    char names[64];
    /* a range past the cap is refused, not expanded */
    const char big[] = "h[0:99999999]\n";
    assert_int_equal(read_names(INV_ANSIBLE, "h.ini", big, NULL, NULL, names, sizeof names, d),
                     NS_EPARSE);
    assert_string_equal(msg(d, 0), "the host pattern in h.ini at 1:1 names more than 100000 hosts");
    diags_free(d);
    d = diags_new();
    const char nested[] = "h[0:9][0:9][0:9][0:9][0:9][0:9][0:9][0:9][0:9][0:9]\n";
    assert_int_equal(read_names(INV_ANSIBLE, "h.ini", nested, NULL, NULL, names, sizeof names, d),
                     NS_EPARSE);
    diags_free(d);
}

/* --- ssh config -------------------------------------------------------------------------- */

static void
test_ssh_config(void **state)
{
    (void)state;
    struct plan *p = load_fixture_plan("hosts-from-ssh-config.yaml");
    assert_int_equal(plan_host_count(p), 4);
    /* the alias is the address (the transport resolves it as ssh does); the data address is
     * the first HostName of the blocks that apply, in file order */
    expect_host(p, "zone1-vm", "zone1-vm", "10.0.0.4", "1", "westus3", "");
    expect_host(p, "zone2-vm", "zone2-vm", "10.0.0.5", "2", "westus3", "westus3-az2");
    expect_host(p, "zone3-vm", "zone3-vm", "zone3-vm.internal.example", "3", "westus3", "");
    expect_host(p, "zone4-vm", "zone4-vm", "10.9.9.9", "3", "westus3", "");
    /* user and port are left to the ssh config (Port 2222 for zone2-vm), not copied from it */
    assert_null(host(p, "zone1-vm")->ssh.user);
    assert_int_equal(host(p, "zone2-vm")->ssh.port, 0);
    plan_free(p);

    struct diags *d = diags_new();
    char names[256];
    const char cfg[] = "host A b *.x ?c !d\nHOST=e\n  Host \"f g\" 'h i'\nMatch all\nHost b\n"
                       "HostName x y z\nFrobnicate\n";
    assert_int_equal(read_names(INV_SSH_CONFIG, "cfg", cfg, NULL, "*", names, sizeof names, d), 0);
    assert_string_equal(names, "A,b,e,f g,h i"); /* the rest of the file is ssh's to judge */
    assert_int_equal(diags_count(d), 0);
    diags_free(d);
}

/* Includes are read where they stand; every alias's data address is what ssh resolves it to,
 * asked with the file as ssh -F takes it. */
static void
test_ssh_config_includes(void **state)
{
    (void)state;
    struct memfile files[] = {
        {"/home/op/.ssh/config", "Host a\nInclude conf.d/*.conf ~/extra /etc/none*\nHost z\n", 0},
        {"/home/op/.ssh/conf.d/1.conf", "Host b1 b2\n", 0},
        {"/home/op/.ssh/conf.d/2.conf", "Host c\n  Include /abs/deep\n", 0},
        {"/home/op/.ssh/conf.d/README", "Host no\n", 0},
        {"/home/op/extra", "Host d\n", 0},
        {"/abs/deep", "Host e\n", 0}};
    struct memfs fs = {files, 6, NULL};
    const char yaml[] = "name: x\n"
                        "hosts_from:\n"
                        "  - {file: ~/.ssh/config, format: ssh_config, match: '*'}\n"
                        "zones: {\"*\": \"1\"}\n"
                        "scenarios: [{name: l, test: tcp_rr}]\n";
    struct diags *d = diags_new();
    struct plan *p = NULL;
    g_ssh_config[0] = '\0';
    assert_int_equal(load_mem(yaml, &fs, &p, d), 0);
    assert_int_equal(diags_count(d), 0);
    const char *want[] = {"a", "b1", "b2", "c", "e", "d", "z"};
    assert_int_equal(plan_host_count(p), 7);
    for (size_t i = 0; i < 7; i++) {
        char daddr[64];
        snprintf(daddr, sizeof daddr, "%s.resolved", want[i]);
        expect_host(p, want[i], want[i], daddr, "1", "", "");
    }
    assert_string_equal(g_ssh_config, "/home/op/.ssh/config");
    plan_free(p);
    diags_free(d);

    /* a file that includes itself: refused at the nesting cap, in the file that does it */
    struct memfile loop[] = {{"/home/op/.ssh/config", "Host a b\nInclude ~/.ssh/config\n", 0}};
    fs = (struct memfs){loop, 1, NULL};
    d = diags_new();
    assert_int_equal(load_mem(yaml, &fs, &p, d), NS_EPARSE);
    assert_string_equal(msg(d, 0), "invalid ssh config in /home/op/.ssh/config at 2:1: Includes "
                                   "nested too deep (a file that includes itself?)");
    diags_free(d);
}

/* What ssh refuses is reported once per message, in ssh's words; the aliases it refused are not
 * taken. */
static void
test_ssh_config_refused(void **state)
{
    (void)state;
    struct memfile files[] = {{"/plans/cfg", "Host bad1 bad2 good\n", 0}};
    struct memfs fs = {files, 1, NULL};
    const char yaml[] = "name: x\n"
                        "hosts_from:\n"
                        "  - {file: cfg, format: ssh_config, match: '*'}\n"
                        "zones: {\"*\": \"1\"}\n"
                        "scenarios: [{name: l, test: tcp_rr}]\n";
    struct diags *d = diags_new();
    struct plan *p = NULL;
    assert_int_equal(load_mem(yaml, &fs, &p, d), NS_EPARSE);
    assert_int_equal(diags_count(d), 1);
    assert_string_equal(diags_text(d, 0),
                        "plan.yaml:3:5: cannot resolve 'bad1' of cfg: ssh -G: /plans/cfg line 2: "
                        "Bad configuration option: frob");
    diags_free(d);
}

/* The operator's own ssh, for real: a keyword the old port of readconf.c refused is resolved,
 * and a refusal names the file and line. */
static void
test_ssh_config_real_ssh(void **state)
{
    (void)state;
    if (system("ssh -V >/dev/null 2>&1") != 0)
        skip();
    char dir[] = "/tmp/ns-inv-ssh-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char cfg[128], plan[128];
    snprintf(cfg, sizeof cfg, "%s/ssh_config", dir);
    snprintf(plan, sizeof plan, "%s/plan.yaml", dir);
    FILE *f = fopen(plan, "w");
    assert_non_null(f);
    fputs("name: x\nhosts_from:\n  - {file: ssh_config, format: ssh_config, match: 'vm*'}\n"
          "zones: {\"*\": \"1\"}\nscenarios: [{name: l, test: tcp_rr}]\n",
          f);
    fclose(f);
    f = fopen(cfg, "w");
    assert_non_null(f);
    fputs("IgnoreUnknown ChannelTimeout\nHost vm1 vm2\n ChannelTimeout session=5m\n"
          " UseBlacklistedKeys no\nHost vm1\n HostName 192.0.2.1\n"
          "Match originalhost vm2 exec \"test -d /\"\n HostName 192.0.2.2\n",
          f);
    fclose(f);
    struct diags *d = diags_new();
    struct plan *p = NULL;
    if (plan_load_file(plan, &p, d) != 0) {
        diags_write(d, stderr);
        fail();
    }
    expect_host(p, "vm1", "vm1", "192.0.2.1", "1", "", "");
    expect_host(p, "vm2", "vm2", "192.0.2.2", "1", "", "");
    plan_free(p);
    diags_free(d);
    f = fopen(cfg, "w");
    assert_non_null(f);
    fputs("Host vm1\n Frobnicate yes\n", f);
    fclose(f);
    d = diags_new();
    assert_int_equal(plan_load_file(plan, &p, d), NS_EPARSE);
    const char *m = diags_text(d, 0);
    if (strstr(m, "cannot resolve 'vm1' of ssh_config: ssh -G: ") == NULL ||
        strstr(m, cfg) == NULL || strstr(m, "line 2") == NULL || strstr(m, "frobnicate") == NULL)
        fail_msg("%s", m);
    diags_free(d);
    unlink(cfg);
    unlink(plan);
    rmdir(dir);
}

/* --- the plan's side ------------------------------------------------------------------------ */

static const char ini_two[] =
    "[s]\nvm1 ansible_host=192.0.2.1 zone=1\nvm2 ansible_host=192.0.2.2\n";

static void
test_replaced_and_zones(void **state)
{
    (void)state;
    struct memfile files[] = {{"/plans/inv.ini", ini_two, 0}};
    struct memfs fs = {files, 1, NULL};
    const char yaml[] = "name: x\n"
                        "hosts:\n"
                        "  - {name: vm1, address: 192.0.2.9, zone: mine}\n"
                        "hosts_from:\n"
                        "  - {file: inv.ini, format: ansible}\n"
                        "zones:\n"
                        "  \"vm*\": {zone: z, region: r}\n"
                        "scenarios: [{name: l, test: tcp_rr}]\n";
    struct diags *d = diags_new();
    struct plan *p = NULL;
    assert_int_equal(load_mem(yaml, &fs, &p, d), 0);
    assert_int_equal(plan_host_count(p), 2);
    /* the hosts entry stays; its zone is its own, the zones map fills its region */
    expect_host(p, "vm1", "192.0.2.9", "192.0.2.9", "mine", "r", "");
    expect_host(p, "vm2", "192.0.2.2", "192.0.2.2", "z", "r", "");
    assert_int_equal(diags_count(d), 1);
    assert_string_equal(msg(d, 0), "note: host 'vm1' of inv.ini:2:1 is replaced by the hosts "
                                   "entry at 3:5");
    const struct plan_inventory *inv = plan_inventory(p, 0);
    assert_string_equal(inv->path, "/plans/inv.ini");
    assert_int_equal(inv->nhosts, 1);
    assert_string_equal(inv->hosts[0], "vm2");
    assert_int_equal(inv->nreplaced, 1);
    assert_string_equal(inv->replaced[0], "vm1");
    uint8_t dg[SHA256_LEN];
    char hex[2 * SHA256_LEN + 1];
    sha256(ini_two, strlen(ini_two), dg);
    assert_string_equal(inv->sha256, sha256_hex_encode(dg, SHA256_LEN, hex));
    plan_free(p);
    diags_free(d);
}

/* A resolver that knows one name, for plan_resolve_names over imported hosts. */
static int
one_name(void *ctx, const char *name, char *buf, size_t len, enum plan_family *family,
         struct err *e)
{
    (void)ctx;
    if (strcmp(name, "db.example") != 0)
        return err_set(e, NS_EINVAL, "unknown name");
    snprintf(buf, len, "192.0.2.2");
    *family = PLAN_FAMILY_IPV4;
    return 0;
}

/* Imported hosts take part in the address checks as the plan's own do: their data addresses'
 * families (a pair across two is refused), and a name resolved among them finds its duplicate
 * (plan_resolve_names walks every host, the imported ones too). */
static void
test_families_across_inventory(void **state)
{
    (void)state;
    struct memfile files[] = {{"/plans/inv.ini", ini_two, 0}};
    struct memfs fs = {files, 1, NULL};
    const char mixed[] = "name: x\n"
                         "hosts:\n"
                         "  - {name: v6, address: \"2001:db8::9\"}\n"
                         "hosts_from:\n"
                         "  - {file: inv.ini, format: ansible}\n"
                         "zones:\n"
                         "  \"*\": {zone: z}\n"
                         "scenarios: [{name: l, test: tcp_rr}]\n";
    struct diags *d = diags_new();
    struct plan *p = NULL;
    assert_int_equal(load_mem(mixed, &fs, &p, d), NS_EPARSE);
    size_t n = diags_count(d), fam = 0;
    for (size_t i = 0; i < n; i++)
        fam += strstr(msg(d, i), "cannot cross address families") != NULL;
    if (fam != 2) {
        diags_write(d, stderr);
        fail_msg("%zu family problems, want 2 (vm1 and vm2 against v6)", fam);
    }
    assert_non_null(strstr(msg(d, n - 1), "host 'vm2' (IPv4 data address 192.0.2.2) is paired "
                                          "with host 'v6' (IPv6, 2001:db8::9)"));
    diags_free(d);
    const char named[] = "name: x\n"
                         "hosts:\n"
                         "  - {name: db, transport: local, data_address: db.example}\n"
                         "hosts_from:\n"
                         "  - {file: inv.ini, format: ansible}\n"
                         "zones:\n"
                         "  \"*\": {zone: z}\n"
                         "scenarios: [{name: l, test: tcp_rr}]\n";
    d = diags_new();
    assert_int_equal(load_mem(named, &fs, &p, d), 0);
    assert_int_equal(plan_host_count(p), 3);
    assert_int_equal(plan_resolve_names(p, one_name, NULL, d), NS_EPARSE);
    assert_non_null(strstr(msg(d, diags_count(d) - 1),
                           "'db.example' of host 'db' resolves to 192.0.2.2, the data address of "
                           "host 'vm2'"));
    plan_free(p);
    diags_free(d);
}

static void
test_paths(void **state)
{
    (void)state;
    struct memfile files[] = {{"/home/op/.ssh/config", "Host vm1 vm2\n", 0},
                              {"/etc/inv.ini", ini_two, 0},
                              {"/inv/b.ini", ini_two, 0}};
    struct memfs fs = {files, 3, NULL};
    const char yaml[] = "name: x\n"
                        "hosts_from:\n"
                        "  - {file: ~/.ssh/config, format: ssh_config, match: '*'}\n"
                        "zones: {\"*\": \"1\"}\n"
                        "scenarios: [{name: l, test: tcp_rr}]\n";
    struct diags *d = diags_new();
    struct plan *p = NULL;
    assert_int_equal(load_mem(yaml, &fs, &p, d), 0);
    assert_string_equal(plan_inventory(p, 0)->path, "/home/op/.ssh/config");
    assert_string_equal(plan_inventory(p, 0)->file, "~/.ssh/config");
    plan_free(p);
    const char abs[] = "name: x\n"
                       "hosts_from:\n"
                       "  - {file: /etc/./inv.ini, format: ansible, match: vm1}\n"
                       "  - {file: ../inv/./b.ini, format: ansible, match: vm2}\n"
                       "zones: {\"*\": \"1\"}\n"
                       "scenarios: [{name: l, test: tcp_rr}]\n";
    assert_int_equal(load_mem(abs, &fs, &p, d), 0);
    assert_string_equal(plan_inventory(p, 0)->path, "/etc/inv.ini");
    assert_string_equal(plan_inventory(p, 1)->path, "/inv/b.ini");
    plan_free(p);
    diags_free(d);
}

static void
test_size_cap(void **state)
{
    (void)state;
    size_t len = PLAN_INVENTORY_MAX_FILE_SIZE + 1;
    char *big = malloc(len + 1);
    memset(big, ' ', len);
    big[len] = '\0';
    struct memfile files[] = {{"/plans/big.json", big, len}};
    struct memfs fs = {files, 1, NULL};
    const char yaml[] = "name: x\nhosts_from: [{file: big.json, format: azure}]\n"
                        "scenarios: [{name: l, test: tcp_rr}]\n";
    struct diags *d = diags_new();
    struct plan *p = NULL;
    assert_int_equal(load_mem(yaml, &fs, &p, d), NS_EPARSE);
    assert_string_equal(diags_text(d, 0), "plan.yaml:2:14: inventory big.json is larger than "
                                          "the limit of 16 MiB; select less when you write it");
    diags_free(d);
    free(big);
}

/* An Azure VM whose privateIps is empty would be tested over its public address, another path
 * than the virtual network's: refused at its entry, with the ways out; a hosts entry of the
 * same name giving its data address takes its place. */
static void
test_azure_without_private_address(void **state)
{
    (void)state;
    const char vms[] =
        "[{\"name\":\"vm1\",\"location\":\"westus3\",\"zones\":[\"1\"],\"powerState\":"
        "\"VM running\",\"privateIps\":\"\",\"publicIps\":\"203.0.113.9\",\"osProfile\":"
        "{\"adminUsername\":\"u\"},\"hardwareProfile\":{\"vmSize\":\"S\"},\"vmId\":\"i\"},"
        "{\"name\":\"vm2\",\"location\":\"westus3\",\"zones\":[\"2\"],\"powerState\":"
        "\"VM running\",\"privateIps\":\"10.0.0.5\",\"publicIps\":\"203.0.113.10\","
        "\"osProfile\":{\"adminUsername\":\"u\"},\"hardwareProfile\":{\"vmSize\":\"S\"},"
        "\"vmId\":\"j\"}]";
    struct memfile files[] = {{"/plans/vms.json", vms, 0}};
    struct memfs fs = {files, 1, NULL};
    const char yaml[] = "name: x\nhosts_from: [{file: vms.json, format: azure}]\n"
                        "scenarios: [{name: l, test: tcp_rr}]\n";
    struct diags *d = diags_new();
    struct plan *p = NULL;
    assert_int_equal(load_mem(yaml, &fs, &p, d), NS_EPARSE);
    assert_non_null(strstr(diags_text(d, 0), "vms.json [0] 'vm1' has no private address "
                                             "(\"privateIps\" is empty): its tests would go to "
                                             "its public address 203.0.113.9"));
    diags_free(d);
    /* the operator's correction: a hosts entry for it */
    const char fixed[] = "name: x\nhosts:\n  - {name: vm1, address: 203.0.113.9, data_address: "
                         "10.0.0.4, zone: \"1\", region: westus3}\n"
                         "hosts_from: [{file: vms.json, format: azure, match: vm2}]\n"
                         "scenarios: [{name: l, test: tcp_rr}]\n";
    d = diags_new();
    int frc = load_mem(fixed, &fs, &p, d);
    if (frc != 0)
        fail_msg("%s", diags_text(d, 0));
    assert_int_equal(plan_host_count(p), 2);
    plan_free(p);
    diags_free(d);
}

/* The file system reader refuses what is not a regular file, at once (a FIFO with no writer
 * would block a plain open). */
static void
test_not_regular(void **state)
{
    (void)state;
    char dir[] = "/tmp/ns_inv_fifo_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char fifo[64];
    snprintf(fifo, sizeof fifo, "%s/inv.json", dir);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    char yaml[512];
    snprintf(yaml, sizeof yaml,
             "name: x\nhosts_from: [{file: %s, format: azure}]\n"
             "scenarios: [{name: l, test: tcp_rr}]\n",
             fifo);
    struct diags *d = diags_new();
    struct plan *p = NULL;
    assert_int_equal(plan_load_buffer("plan.yaml", yaml, strlen(yaml), &p, d), NS_EPARSE);
    char want[256];
    snprintf(want, sizeof want, "cannot read inventory %s: not a regular file", fifo);
    assert_string_equal(msg(d, 0), want);
    unlink(fifo);
    rmdir(dir);
    diags_free(d);
}

/* Every problem of every entry at once, each at its entry. */
static void
test_every_problem(void **state)
{
    (void)state;
    const char nozone[] = "[s]\nvm1 ansible_host=192.0.2.1\nvm2 ansible_host=192.0.2.2 zone=1\n";
    const char dup[] = "[s]\nvm2 ansible_host=192.0.2.3 zone=2\n";
    struct memfile files[] = {{"/plans/a.ini", nozone, 0}, {"/plans/b.ini", dup, 0}};
    struct memfs fs = {files, 2, NULL};
    const char yaml[] = "name: x\n"
                        "hosts_from:\n"
                        "  - {file: a.ini, format: ansible}\n"
                        "  - {file: b.ini, format: ansible}\n"
                        "  - {file: c.ini, format: ansible}\n"
                        "scenarios: [{name: l, test: tcp_rr}]\n";
    struct diags *d = diags_new();
    struct plan *p = NULL;
    assert_int_equal(load_mem(yaml, &fs, &p, d), NS_EPARSE);
    assert_null(p);
    assert_int_equal(diags_count(d), 3);
    assert_string_equal(diags_text(d, 0),
                        "plan.yaml:3:5: no zone for 'vm1' (a.ini:2:1): it has no zone variable; "
                        "give it one in the plan's zones map");
    assert_string_equal(diags_text(d, 1),
                        "plan.yaml:4:5: duplicate host name 'vm2' (b.ini:2:1; also a.ini:3:1, of "
                        "the hosts_from entry at 3:5)");
    assert_string_equal(diags_text(d, 2),
                        "plan.yaml:5:5: cannot read inventory c.ini: No such file or directory");
    diags_free(d);
}

/* hosts_from alone is enough; neither is "missing hosts" as before. */
static void
test_hosts_or_hosts_from(void **state)
{
    (void)state;
    struct memfs fs = {NULL, 0, NULL};
    struct diags *d = diags_new();
    struct plan *p = NULL;
    assert_int_equal(load_mem("name: x\nscenarios: [{name: l, test: tcp_rr}]\n", &fs, &p, d),
                     NS_EPARSE);
    assert_string_equal(msg(d, 0), "missing required key 'hosts' in the plan");
    diags_free(d);
    /* one imported host: no pair, said at hosts_from */
    struct memfile files[] = {{"/plans/a.ini", "vm1 zone=1\n", 0}};
    fs = (struct memfs){files, 1, NULL};
    d = diags_new();
    assert_int_equal(load_mem("name: x\nhosts_from: [{file: a.ini, format: ansible}]\n"
                              "scenarios: [{name: l, test: tcp_rr}]\n",
                              &fs, &p, d),
                     NS_EPARSE);
    assert_string_equal(diags_text(d, 0), "plan.yaml:2:13: no pairs to test: pairs: all needs "
                                          "at least two hosts, found 1");
    diags_free(d);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_azure),
        cmocka_unit_test(test_azure_without_private_address),
        cmocka_unit_test(test_aws),
        cmocka_unit_test(test_aws_public_and_flat),
        cmocka_unit_test(test_aws_region),
        cmocka_unit_test(test_gcp),
        cmocka_unit_test(test_ansible_ini_and_yaml),
        cmocka_unit_test(test_ansible_patterns),
        cmocka_unit_test(test_ansible_caps),
        cmocka_unit_test(test_ssh_config),
        cmocka_unit_test(test_ssh_config_includes),
        cmocka_unit_test(test_ssh_config_refused),
        cmocka_unit_test(test_ssh_config_real_ssh),
        cmocka_unit_test(test_replaced_and_zones),
        cmocka_unit_test(test_paths),
        cmocka_unit_test(test_size_cap),
        cmocka_unit_test(test_not_regular),
        cmocka_unit_test(test_every_problem),
        cmocka_unit_test(test_hosts_or_hosts_from),
        cmocka_unit_test(test_families_across_inventory),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
