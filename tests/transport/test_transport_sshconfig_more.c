/* test_transport_sshconfig_more.c - what `ssh -G` of one host cannot show: chains of jump hosts
 * (every hop compared with `ssh -G` run the way ssh runs its ProxyJump child: `-l`, `-p`, `-J`
 * of the hop after it), loops, the caller's identity and known_hosts in front of each hop's
 * own, warnings (only for blocks that apply), the system file and its differences from the
 * user's, the caps on every read, the agent socket. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "sshg.h"
#include "transport/transport_sshconfig.h"

static char g_root[256];
static int g_seq;

static int
rm_one(const char *p, const struct stat *st, int flag, struct FTW *f)
{
    (void)st;
    (void)flag;
    (void)f;
    return remove(p);
}

/* A new home with .ssh/; its path in home. */
static void
new_home(char *home, size_t len)
{
    snprintf(home, len, "%s/h%d", g_root, g_seq++);
    mkdir(home, 0755);
    char ssh[600];
    snprintf(ssh, sizeof ssh, "%s/.ssh", home);
    mkdir(ssh, 0700);
}

static void
put(const char *home, const char *rel, const char *text, unsigned mode)
{
    char path[2048];
    snprintf(path, sizeof path, "%s/%s", home, rel);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    chmod(path, mode);
}

static struct transport_sshconfig *
resolve_ok(const char *home, const char *config, const char *host,
           const struct transport_sshconfig_override *ov)
{
    struct transport_sshconfig_env env = {.config = config, .home = home, .home_env = home};
    struct transport_sshconfig *r = NULL;
    struct err e = {0};
    int rc = transport_sshconfig_resolve(&env, host, ov, &r, &e);
    if (rc != 0)
        fail_msg("resolve %s: %s", host, e.msg);
    return r;
}

static bool
has_warning(const struct transport_sshconfig *r, const char *what)
{
    for (size_t i = 0; i < r->n_warnings; i++)
        if (strstr(r->warnings[i], what) != NULL)
            return true;
    return false;
}

/* --- chains ------------------------------------------------------------------------------- */

/* hop against `ssh -G -F config [-l U] [-p P] [-J REST] HOST` for the hop after it. */
static void
hop_vs_ssh(const char *home, const char *config, const struct transport_sshconfig *hop,
           const struct transport_sshconfig *next)
{
    const char *args[8];
    size_t n = 0;
    char port[16], jump[1100];
    if (next->jump_user != NULL)
        args[n++] = "-l", args[n++] = next->jump_user;
    if (next->jump_port != 0) {
        snprintf(port, sizeof port, "%u", next->jump_port);
        args[n++] = "-p", args[n++] = port;
    }
    if (next->jump_rest != NULL) { /* as -J, which ssh -v's ProxyCommand would refuse */
        snprintf(jump, sizeof jump, "ProxyJump=%s", next->jump_rest);
        args[n++] = "-o", args[n++] = jump;
    }
    args[n] = NULL;
    struct sshg g;
    assert_int_equal(sshg_run(home, config, args, next->jump_host, &g), 0);
    assert_int_equal(g.status, 0);
    assert_string_equal(hop->host_arg, next->jump_host);
    assert_string_equal(hop->hostname, g.hostname);
    assert_string_equal(hop->user, g.user);
    assert_int_equal(hop->port, g.port);
    char pj[2048] = "";
    for (size_t i = 0; i < hop->n_proxy_jump; i++)
        snprintf(pj + strlen(pj), sizeof pj - strlen(pj), "%s%s", i ? "," : "", hop->proxy_jump[i]);
    if (g.proxyjump == NULL)
        assert_int_equal(hop->n_proxy_jump, 0);
    else
        assert_string_equal(pj, g.proxyjump);
    assert_int_equal(hop->n_identity_paths, g.identity_paths.n);
    for (size_t i = 0; i < g.identity_paths.n; i++)
        assert_string_equal(hop->identity_paths[i], g.identity_paths.v[i]);
    sshg_release(&g);
}

static void
chain_vs_ssh(const char *home, const char *config, const char *host, size_t expect_n,
             const char *const *expect_names)
{
    struct transport_sshconfig_env env = {.config = config, .home_env = home};
    struct transport_sshconfig_chain ch;
    struct err e = {0};
    if (transport_sshconfig_resolve_chain(&env, host, NULL, &ch, &e) != 0)
        fail_msg("chain %s: %s", host, e.msg);
    assert_int_equal(ch.n, expect_n);
    for (size_t i = 0; i < ch.n; i++)
        assert_string_equal(ch.hop[i]->host_arg, expect_names[i]);
    assert_null(ch.hop[0]->jump_host); /* the first hop is dialled directly */
    for (size_t i = 0; i + 1 < ch.n; i++)
        hop_vs_ssh(home, config, ch.hop[i], ch.hop[i + 1]);
    transport_sshconfig_chain_release(&ch);
}

static void
test_chain_through_config(void **state)
{
    (void)state;
    if (!sshg_available())
        skip();
    char home[512], cfg[600];
    new_home(home, sizeof home);
    snprintf(cfg, sizeof cfg, "%s/config", home);
    /* the target's jump has a jump of its own in the config: ssh's child follows it */
    put(home, "config",
        "Host vm\n HostName 10.9.0.4\n ProxyJump bastion2\n"
        "Host bastion2\n HostName 10.9.0.2\n User b2user\n ProxyJump ops@edge:2022\n"
        "Host edge\n HostName Edge.Example\n IdentityFile ~/.ssh/edge_key\n"
        "Host *\n User everyone\n",
        0644);
    const char *names[] = {"edge", "bastion2", "vm"};
    chain_vs_ssh(home, cfg, "vm", 3, names);
}

static void
test_chain_listed_hops(void **state)
{
    (void)state;
    if (!sshg_available())
        skip();
    char home[512], cfg[600];
    new_home(home, sizeof home);
    snprintf(cfg, sizeof cfg, "%s/config", home);
    /* "a,b": b is dialled through a (ssh -J a b), a through its own ProxyJump (z); b's own
     * ProxyJump is overridden by the -J */
    put(home, "config",
        "Host t\n ProxyJump u1@a:2201,b\nHost a\n ProxyJump z\n Port 2299\n"
        "Host b\n ProxyJump never\n HostName b.example\nHost z\n User zu\n",
        0644);
    const char *names[] = {"z", "a", "b", "t"};
    chain_vs_ssh(home, cfg, "t", 4, names);
}

static void
test_chain_loop_capped(void **state)
{
    (void)state;
    char home[512], cfg[600];
    new_home(home, sizeof home);
    snprintf(cfg, sizeof cfg, "%s/config", home);
    put(home, "config", "Host a\n ProxyJump b\nHost b\n ProxyJump a\n", 0644);
    struct transport_sshconfig_env env = {.config = cfg, .home_env = home};
    struct transport_sshconfig_chain ch;
    struct err e = {0};
    assert_int_equal(transport_sshconfig_resolve_chain(&env, "a", NULL, &ch, &e), NS_ETOOBIG);
    assert_non_null(strstr(e.msg, "jump hosts"));
    assert_int_equal(ch.n, 0);
}

static void
test_chain_caller_files_first(void **state)
{
    (void)state;
    char home[512], cfg[600];
    new_home(home, sizeof home);
    snprintf(cfg, sizeof cfg, "%s/config", home);
    put(home, "config",
        "Host t\n ProxyJump j\n IdentityFile ~/.ssh/t_key\nHost j\n UserKnownHostsFile ~/j_kh\n",
        0644);
    struct transport_sshconfig_env env = {.config = cfg, .home = home, .home_env = home};
    struct transport_sshconfig_override ov = {.identity = "~/plan_key", .known_hosts = "~/plan_kh"};
    struct transport_sshconfig_chain ch;
    struct err e = {0};
    assert_int_equal(transport_sshconfig_resolve_chain(&env, "t", &ov, &ch, &e), 0);
    assert_int_equal(ch.n, 2);
    char want[700];
    /* the target: the override replaces known_hosts (as ssh -o), comes first among identities */
    const struct transport_sshconfig *t = ch.hop[1], *j = ch.hop[0];
    assert_int_equal(t->n_known_hosts_files, 1);
    snprintf(want, sizeof want, "%s/plan_kh", home);
    assert_string_equal(t->known_hosts_files[0], want);
    assert_int_equal(t->n_identity_paths, 2);
    snprintf(want, sizeof want, "%s/plan_key", home);
    assert_string_equal(t->identity_paths[0], want);
    /* the hop: the caller's files in front of its own, its defaults kept */
    assert_int_equal(j->n_known_hosts_files, 2);
    assert_string_equal(j->known_hosts_files[0], t->known_hosts_files[0]);
    snprintf(want, sizeof want, "%s/j_kh", home);
    assert_string_equal(j->known_hosts_files[1], want);
    assert_int_equal(j->n_identity_files, 8); /* the caller's and ssh's seven defaults */
    assert_string_equal(j->identity_files[0], "~/plan_key");
    assert_string_equal(j->identity_files[1], "~/.ssh/id_rsa");
    transport_sshconfig_chain_release(&ch);
}

/* --- warnings ----------------------------------------------------------------------------- */

static void
test_warnings_only_where_they_apply(void **state)
{
    (void)state;
    char home[512], cfg[600];
    new_home(home, sizeof home);
    snprintf(cfg, sizeof cfg, "%s/config", home);
    put(home, "config",
        "Host other\n ProxyCommand nc %h %p\n StrictHostKeyChecking no\n"
        "Match host t exec \"test -e /\"\n User from_exec\n"
        "Match host nothere exec true\n User never\n"
        "Host t\n StrictHostKeyChecking accept-new\n Ciphers aes128-ctr\n"
        "Host *\n StrictHostKeyChecking no\n User fallback\n",
        0644);
    struct transport_sshconfig *r = resolve_ok(home, cfg, "t", NULL);
    assert_string_equal(r->user, "fallback"); /* the exec block is taken as not matching */
    assert_true(has_warning(r, "config line 4: Match exec is not evaluated"));
    assert_false(has_warning(r, "config line 6")); /* failed before its exec: ssh would not run */
    assert_true(has_warning(r, "config line 9: StrictHostKeyChecking is not followed"));
    assert_true(has_warning(r, "config line 10: algorithm lists"));
    assert_false(has_warning(r, "ProxyCommand")); /* Host other does not apply */
    assert_false(has_warning(r, "line 12"));      /* the first StrictHostKeyChecking decides */
    assert_int_equal(r->n_warnings, 3);
    transport_sshconfig_free(r);

    put(home, "config", "Host *\n StrictHostKeyChecking yes\n AddressFamily any\n", 0644);
    r = resolve_ok(home, cfg, "t", NULL);
    assert_int_equal(r->n_warnings, 0); /* values that ask for nothing netsurvey leaves undone */
    transport_sshconfig_free(r);
}

/* --- the system file ---------------------------------------------------------------------- */

static void
test_system_file(void **state)
{
    (void)state;
    char home[512], sys[700], inc[700], text[2000];
    new_home(home, sizeof home);
    snprintf(sys, sizeof sys, "%s/ssh_config", home);
    snprintf(inc, sizeof inc, "%s/sys.d", home);
    mkdir(inc, 0755);
    /* the user's file first; the system file may be group-writable, its includes not */
    put(home, ".ssh/config", "Host t\n User from_user\n IdentityFile ~/.ssh/k\n", 0600);
    snprintf(text, sizeof text,
             "Include %s/sys.d/*.conf\nHost *\n User from_system\n Port 2022\n"
             " IdentityFile ~/.ssh/k\n",
             home);
    put(home, "ssh_config", text, 0664);
    put(home, "sys.d/a.conf", "Host t\n HostKeyAlias sys-alias\n", 0644);
    struct transport_sshconfig_env env = {.system_config = sys, .home = home, .home_env = home};
    struct transport_sshconfig *r = NULL;
    struct err e = {0};
    assert_int_equal(transport_sshconfig_resolve(&env, "t", NULL, &r, &e), 0);
    assert_string_equal(r->user, "from_user");
    assert_int_equal(r->port, 2022);
    assert_string_equal(r->host_key_alias, "sys-alias");
    /* the same path from the user's and the system's file: two entries (ssh keys them on
     * whether the user gave them) */
    assert_int_equal(r->n_identity_files, 2);
    transport_sshconfig_free(r);

    /* "~" may not begin an Include of the system file */
    put(home, "ssh_config", "Include ~/x.conf\n", 0644);
    assert_int_equal(transport_sshconfig_resolve(&env, "t", NULL, &r, &e), NS_EPARSE);
    assert_non_null(strstr(e.msg, "bad include path"));
    /* the user's file is checked like ssh checks it */
    put(home, "ssh_config", "User u\n", 0644);
    put(home, ".ssh/config", "User from_user\n", 0666);
    assert_int_equal(transport_sshconfig_resolve(&env, "t", NULL, &r, &e), NS_EPARSE);
    assert_non_null(strstr(e.msg, "bad owner or permissions"));
    /* absent files are no error */
    char none[700];
    snprintf(none, sizeof none, "%s/.ssh/config", home);
    unlink(none);
    snprintf(sys, sizeof sys, "%s/absent", home);
    assert_int_equal(transport_sshconfig_resolve(&env, "t", NULL, &r, &e), 0);
    assert_string_equal(r->hostname, "t");
    transport_sshconfig_free(r);
    /* an explicit config must exist */
    env.config = sys;
    assert_int_equal(transport_sshconfig_resolve(&env, "t", NULL, &r, &e), NS_EIO);
}

/* --- caps --------------------------------------------------------------------------------- */

static void
expect_fail(const char *home, const char *cfg, int code, const char *what)
{
    struct transport_sshconfig_env env = {.config = cfg, .home = home, .home_env = home};
    struct transport_sshconfig *r = NULL;
    struct err e = {0};
    assert_int_equal(transport_sshconfig_resolve(&env, "t", NULL, &r, &e), code);
    assert_null(r);
    if (strstr(e.msg, what) == NULL)
        fail_msg("'%s' lacks '%s'", e.msg, what);
}

static void
test_caps(void **state)
{
    (void)state;
    char home[512], cfg[600], path[700];
    new_home(home, sizeof home);
    snprintf(cfg, sizeof cfg, "%s/config", home);
    /* a file over the size cap */
    snprintf(path, sizeof path, "%s/config", home);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    char pad[1024];
    memset(pad, '#', sizeof pad - 1);
    pad[sizeof pad - 2] = '\n';
    pad[sizeof pad - 1] = '\0';
    for (int i = 0; i <= TRANSPORT_SSHCONFIG_FILE_MAX / 1023; i++)
        fputs(pad, f);
    fclose(f);
    expect_fail(home, cfg, NS_ETOOBIG, "larger than");
    /* a file that includes itself */
    put(home, "config", "Include ~/.ssh/self\n", 0644);
    put(home, ".ssh/self", "Include ~/.ssh/self\n", 0644);
    expect_fail(home, cfg, NS_ETOOBIG, "too many recursive configuration includes");
    /* more identity files than ssh takes (ssh refuses too) */
    f = fopen(path, "w");
    assert_non_null(f);
    for (int i = 0; i <= TRANSPORT_SSHCONFIG_IDENTITIES_MAX; i++)
        fprintf(f, "IdentityFile ~/.ssh/k%d\n", i);
    fclose(f);
    expect_fail(home, cfg, NS_EPARSE, "too many identity files");
    /* more known_hosts files than ssh takes */
    f = fopen(path, "w");
    assert_non_null(f);
    fputs("UserKnownHostsFile", f);
    for (int i = 0; i <= TRANSPORT_SSHCONFIG_HOSTFILES_MAX; i++)
        fprintf(f, " ~/kh%d", i);
    fputs("\n", f);
    fclose(f);
    expect_fail(home, cfg, NS_EPARSE, "too many userknownhostsfile entries");
    /* an Include naming more files than the cap */
    char dir[700];
    snprintf(dir, sizeof dir, "%s/many", home);
    mkdir(dir, 0755);
    for (int i = 0; i <= TRANSPORT_SSHCONFIG_GLOB_MAX; i++) {
        snprintf(path, sizeof path, "many/%03d.conf", i);
        put(home, path, "\n", 0644);
    }
    snprintf(path, sizeof path, "Include %s/many/*.conf\n", home);
    put(home, "config", path, 0644);
    expect_fail(home, cfg, NS_ETOOBIG, "names more than");
    /* an expanded value over its cap */
    f = fopen(cfg, "w");
    assert_non_null(f);
    fputs("IdentityFile ~/", f);
    for (size_t i = 0; i <= TRANSPORT_SSHCONFIG_VALUE_MAX / strlen(home); i++)
        fputs("%d", f); /* short as written, long once expanded */
    fputs("\n", f);
    fclose(f);
    expect_fail(home, cfg, NS_EPARSE, "longer than");
}

/* --- overrides and the agent ---------------------------------------------------------------- */

static void
test_bad_overrides(void **state)
{
    (void)state;
    struct transport_sshconfig_env env = {.config = "none"};
    struct transport_sshconfig *r = NULL;
    struct err e = {0};
    struct transport_sshconfig_override ov = {.jump = "user@"};
    assert_int_equal(transport_sshconfig_resolve(&env, "t", &ov, &r, &e), NS_EINVAL);
    assert_non_null(strstr(e.msg, "bad jump host"));
    ov = (struct transport_sshconfig_override){.port = 70000};
    assert_int_equal(transport_sshconfig_resolve(&env, "t", &ov, &r, &e), NS_EINVAL);
    assert_int_equal(transport_sshconfig_resolve(&env, "", NULL, &r, &e), NS_EINVAL);
    /* "none": no file, OpenSSH's defaults */
    assert_int_equal(transport_sshconfig_resolve(&env, "Some.Host", NULL, &r, &e), 0);
    assert_string_equal(r->hostname, "some.host");
    assert_int_equal(r->port, 22);
    assert_int_equal(r->n_identity_files, 7);
    assert_int_equal(r->n_proxy_jump, 0);
    assert_int_equal(r->connect_timeout_s, -1);
    transport_sshconfig_free(r);
}

static void
test_agent(void **state)
{
    (void)state;
    struct transport_sshconfig c = {0};
    setenv("SSH_AUTH_SOCK", "/run/agent.sock", 1);
    setenv("NS_OTHER_AGENT", "/run/other.sock", 1);
    assert_string_equal(transport_sshconfig_agent(&c), "/run/agent.sock");
    char v[64];
    c.identity_agent = v;
    snprintf(v, sizeof v, "none");
    assert_null(transport_sshconfig_agent(&c));
    snprintf(v, sizeof v, "SSH_AUTH_SOCK");
    assert_string_equal(transport_sshconfig_agent(&c), "/run/agent.sock");
    snprintf(v, sizeof v, "$NS_OTHER_AGENT");
    assert_string_equal(transport_sshconfig_agent(&c), "/run/other.sock");
    snprintf(v, sizeof v, "/path/to/sock");
    assert_string_equal(transport_sshconfig_agent(&c), "/path/to/sock");
    unsetenv("SSH_AUTH_SOCK");
    c.identity_agent = NULL;
    assert_null(transport_sshconfig_agent(&c));
}

static int
setup(void **state)
{
    (void)state;
    snprintf(g_root, sizeof g_root, "/tmp/ns-sshcfg2-XXXXXX");
    if (mkdtemp(g_root) == NULL)
        return -1;
    chmod(g_root, 0755);
    return 0;
}

static int
teardown(void **state)
{
    (void)state;
    nftw(g_root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
    return 0;
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_chain_through_config),
        cmocka_unit_test(test_chain_listed_hops),
        cmocka_unit_test(test_chain_loop_capped),
        cmocka_unit_test(test_chain_caller_files_first),
        cmocka_unit_test(test_warnings_only_where_they_apply),
        cmocka_unit_test(test_system_file),
        cmocka_unit_test(test_caps),
        cmocka_unit_test(test_bad_overrides),
        cmocka_unit_test(test_agent),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
