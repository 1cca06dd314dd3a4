/* test_transport_sshconfig_more.c - what `ssh -G` of one host cannot show: chains of jump hosts
 * (every hop compared with `ssh -G` run the way ssh runs its ProxyJump child: `-l`, `-p`, `-J`
 * of the hop after it), loops, the caller's identity and known_hosts in front of each hop's
 * own, warnings (from the options ssh resolved, so only for blocks that apply), the command line
 * the resolver gives ssh (a stand-in ssh records it), refusals in ssh's words naming the file and
 * line, the agent socket. */
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

#include "common/sshg.h"
#include "ssh_oracle.h"
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
resolve_ok(const char *config, const char *host, const struct transport_sshconfig_override *ov)
{
    struct transport_sshconfig_env env = {.config = config};
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
    struct oracle g;
    assert_int_equal(oracle_run(home, config, args, next->jump_host, &g), 0);
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
    oracle_release(&g);
}

static void
chain_vs_ssh(const char *home, const char *config, const char *host, size_t expect_n,
             const char *const *expect_names)
{
    struct transport_sshconfig_env env = {.config = config};
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
    if (!oracle_available())
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
    if (!oracle_available())
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
    if (!oracle_available())
        skip();
    char home[512], cfg[600];
    new_home(home, sizeof home);
    snprintf(cfg, sizeof cfg, "%s/config", home);
    put(home, "config", "Host a\n ProxyJump b\nHost b\n ProxyJump a\n", 0644);
    struct transport_sshconfig_env env = {.config = cfg};
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
    if (!oracle_available())
        skip();
    char home[512], cfg[600], text[2000], key[700], kh[700], want[700];
    new_home(home, sizeof home);
    snprintf(cfg, sizeof cfg, "%s/config", home);
    snprintf(text, sizeof text,
             "Host t\n ProxyJump j\n IdentityFile %s/t_key\nHost j\n UserKnownHostsFile %s/j_kh\n",
             home, home);
    put(home, "config", text, 0644);
    put(home, "plan_key", "not a key\n", 0600); /* -i takes a file that exists */
    snprintf(key, sizeof key, "%s/plan_key", home);
    snprintf(kh, sizeof kh, "%s/plan_kh", home);
    struct transport_sshconfig_env env = {.config = cfg};
    struct transport_sshconfig_override ov = {.identity = key, .known_hosts = kh};
    struct transport_sshconfig_chain ch;
    struct err e = {0};
    assert_int_equal(transport_sshconfig_resolve_chain(&env, "t", &ov, &ch, &e), 0);
    assert_int_equal(ch.n, 2);
    /* the target: the plan's known_hosts replaces the config's (ssh -o), its identity first */
    const struct transport_sshconfig *t = ch.hop[1], *j = ch.hop[0];
    assert_int_equal(t->n_known_hosts_files, 1);
    assert_string_equal(t->known_hosts_files[0], kh);
    assert_int_equal(t->n_identity_paths, 2);
    assert_string_equal(t->identity_paths[0], key);
    /* the hop: the caller's files in front of its own, its defaults kept */
    assert_int_equal(j->n_known_hosts_files, 2);
    assert_string_equal(j->known_hosts_files[0], kh);
    snprintf(want, sizeof want, "%s/j_kh", home);
    assert_string_equal(j->known_hosts_files[1], want);
    assert_int_equal(j->n_identity_files, 8); /* the caller's and ssh's seven defaults */
    assert_string_equal(j->identity_files[0], key);
    assert_string_equal(j->identity_files[1], "~/.ssh/id_rsa");
    assert_string_equal(j->identity_paths[0], key);
    transport_sshconfig_chain_release(&ch);
}

/* --- warnings ----------------------------------------------------------------------------- */

static void
test_warnings_only_where_they_apply(void **state)
{
    (void)state;
    if (!oracle_available())
        skip();
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
    struct transport_sshconfig *r = resolve_ok(cfg, "t", NULL);
    assert_string_equal(r->user, "from_exec"); /* ssh ran the exec */
    assert_true(has_warning(r, "StrictHostKeyChecking is not followed"));
    assert_true(has_warning(r, "algorithm lists are not applied (Ciphers)"));
    assert_false(has_warning(r, "ProxyCommand")); /* Host other does not apply */
    assert_int_equal(r->n_warnings, 2);
    transport_sshconfig_free(r);

    put(home, "config", "Host *\n StrictHostKeyChecking yes\n AddressFamily any\n", 0644);
    r = resolve_ok(cfg, "t", NULL);
    assert_int_equal(r->n_warnings, 0); /* values that ask for nothing netsurvey leaves undone */
    transport_sshconfig_free(r);

    /* a ProxyCommand that applies: ssh then ignores ProxyJump, and netsurvey says so */
    put(home, "config", "Host t\n ProxyCommand nc %h %p\n ProxyJump b\n", 0644);
    r = resolve_ok(cfg, "t", NULL);
    assert_true(has_warning(r, "ProxyCommand is not run"));
    assert_int_equal(r->n_proxy_jump, 0);
    transport_sshconfig_free(r);
}

/* --- refusals --------------------------------------------------------------------------------- */

static void
expect_refused(const char *cfg, const char *host, const char *what)
{
    struct transport_sshconfig_env env = {.config = cfg};
    struct transport_sshconfig *r = NULL;
    struct err e = {0};
    assert_int_equal(transport_sshconfig_resolve(&env, host, NULL, &r, &e), NS_EPARSE);
    assert_null(r);
    if (strstr(e.msg, what) == NULL || strncmp(e.msg, "ssh -G: ", 8) != 0)
        fail_msg("'%s' lacks '%s'", e.msg, what);
}

/* What ssh refuses comes back in its words, with the file and line it names. */
static void
test_refused_in_ssh_words(void **state)
{
    (void)state;
    if (!oracle_available())
        skip();
    char home[512], cfg[600], want[700];
    new_home(home, sizeof home);
    snprintf(cfg, sizeof cfg, "%s/config", home);
    put(home, "config", "Host t\n User u\n Frobnicate yes\n", 0644);
    snprintf(want, sizeof want, "%s", cfg);
    expect_refused(cfg, "t", want);
    expect_refused(cfg, "t", "line 3");
    expect_refused(cfg, "t", "frobnicate");
    /* a file that includes itself, more identity files than ssh takes: ssh's own limits */
    put(home, "config", "Include ~/.ssh/self\n", 0644);
    put(home, ".ssh/self", "Include ~/.ssh/self\n", 0644);
    setenv("HOME", home, 1);
    expect_refused(cfg, "t", "includes");
    FILE *f = fopen(cfg, "w");
    assert_non_null(f);
    for (int i = 0; i <= 100; i++)
        fprintf(f, "IdentityFile ~/.ssh/k%d\n", i);
    fclose(f);
    expect_refused(cfg, "t", "line 101");
    /* an explicit config must exist */
    snprintf(want, sizeof want, "%s/absent", home);
    expect_refused(want, "t", want);
    /* a jump host loop ssh sees itself */
    put(home, "config", "Host t\n HostName t\n ProxyJump t\n", 0644);
    expect_refused(cfg, "t", "loop");
}

/* --- the command line given to ssh ---------------------------------------------------------- */

/* A stand-in ssh that records its arguments, one a line, and answers for the host. */
static void
fake_ssh(const char *dir, char *prog, size_t len)
{
    snprintf(prog, len, "%s/fake-ssh", dir);
    FILE *f = fopen(prog, "w");
    assert_non_null(f);
    fprintf(f,
            "#!/bin/sh\nfor a in \"$@\"; do printf '%%s\\n' \"$a\"; done >>'%s/argv'\n"
            "echo ---- >>'%s/argv'\n"
            "printf 'hostname h.example\\nuser u\\nport 22\\nidentityfile ~/.ssh/id\\n'\n",
            dir, dir);
    fclose(f);
    chmod(prog, 0755);
}

static char *
slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    static char buf[8192];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

static void
test_command_line(void **state)
{
    (void)state;
    char home[512], prog[700], log[700], want[2000];
    new_home(home, sizeof home);
    fake_ssh(home, prog, sizeof prog);
    snprintf(log, sizeof log, "%s/argv", home);
    struct sshg *g = sshg_new();
    assert_non_null(g);
    assert_int_equal(sshg_set_program(g, prog), 0);
    struct transport_sshconfig_env env = {.sshg = g, .config = "/cfg/x y"};
    struct transport_sshconfig_override ov = {.user = "-l",
                                              .port = 2222,
                                              .identity = "~/id key",
                                              .jump = "j1,u@j2:2",
                                              .known_hosts = "/kh/\"q\" \\b"};
    struct transport_sshconfig *r = NULL;
    struct err e = {0};
    assert_int_equal(transport_sshconfig_resolve(&env, "-oProxyCommand=x", &ov, &r, &e), 0);
    assert_string_equal(r->hostname, "h.example");
    transport_sshconfig_free(r);
    /* every value one argument, the destination after "--", the -o value quoted for ssh; then
     * ssh's defaults, which the algorithm lists are compared with */
    snprintf(want, sizeof want,
             "-G\n-T\n-F\n/cfg/x y\n-l\n-l\n-p\n2222\n-i\n~/id key\n-J\nj1,u@j2:2\n-o\n"
             "UserKnownHostsFile=\"/kh/\\\"q\\\" \\\\b\"\n--\n-oProxyCommand=x\n----\n"
             "-G\n-T\n-F\nnone\n--\nnetsurvey.invalid\n----\n");
    assert_string_equal(slurp(log), want);
    /* the same question again: answered from the cache, ssh not run */
    assert_int_equal(transport_sshconfig_resolve(&env, "-oProxyCommand=x", &ov, &r, &e), 0);
    transport_sshconfig_free(r);
    assert_string_equal(slurp(log), want);
    /* without a config: no -F, ssh reads its own files (the defaults are known by now) */
    unlink(log);
    env.config = NULL;
    assert_int_equal(transport_sshconfig_resolve(&env, "h", NULL, &r, &e), 0);
    transport_sshconfig_free(r);
    assert_string_equal(slurp(log), "-G\n-T\n--\nh\n----\n");
    sshg_free(g);
}

/* --- overrides and the agent ---------------------------------------------------------------- */

static void
test_bad_overrides(void **state)
{
    (void)state;
    if (!oracle_available())
        skip();
    struct transport_sshconfig_env env = {.config = "none"};
    struct transport_sshconfig *r = NULL;
    struct err e = {0};
    struct transport_sshconfig_override ov = {.jump = "user@"};
    assert_int_equal(transport_sshconfig_resolve(&env, "t", &ov, &r, &e), NS_EPARSE);
    assert_non_null(strstr(e.msg, "-J"));
    ov = (struct transport_sshconfig_override){.port = 70000};
    assert_int_equal(transport_sshconfig_resolve(&env, "t", &ov, &r, &e), NS_EINVAL);
    ov = (struct transport_sshconfig_override){.user = ""};
    assert_int_equal(transport_sshconfig_resolve(&env, "t", &ov, &r, &e), NS_EINVAL);
    assert_int_equal(transport_sshconfig_resolve(&env, "", NULL, &r, &e), NS_EINVAL);
    /* "none": no file, OpenSSH's defaults */
    assert_int_equal(transport_sshconfig_resolve(&env, "Some.Host", NULL, &r, &e), 0);
    assert_string_equal(r->hostname, "some.host");
    assert_int_equal(r->port, 22);
    assert_int_equal(r->n_identity_files, 7);
    assert_int_equal(r->n_proxy_jump, 0);
    assert_int_equal(r->connect_timeout_s, -1);
    assert_int_equal(r->n_warnings, 0);
    transport_sshconfig_free(r);
}

/* No ssh client: the error names the package to install. */
static void
test_no_ssh(void **state)
{
    (void)state;
    char home[512];
    new_home(home, sizeof home);
    const char *path = getenv("PATH");
    char *saved = path != NULL ? strdup(path) : NULL;
    setenv("PATH", home, 1); /* a folder without ssh */
    unsetenv(SSHG_PROGRAM_ENV);
    struct transport_sshconfig_env env = {.config = "none"};
    struct transport_sshconfig_chain ch;
    struct err e = {0};
    assert_int_equal(transport_sshconfig_resolve_chain(&env, "t", NULL, &ch, &e), NS_ENOTFOUND);
    assert_string_equal(e.msg, "ssh -G: ssh not found: install the openssh-client package");
    assert_int_equal(ch.n, 0);
    if (saved != NULL)
        setenv("PATH", saved, 1);
    free(saved);
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

static char g_home[1024];

static int
setup(void **state)
{
    (void)state;
    snprintf(g_home, sizeof g_home, "%s", getenv("HOME") != NULL ? getenv("HOME") : "/");
    unsetenv(SSHG_PROGRAM_ENV);
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
    setenv("HOME", g_home, 1);
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
        cmocka_unit_test(test_refused_in_ssh_words),
        cmocka_unit_test(test_command_line),
        cmocka_unit_test(test_bad_overrides),
        cmocka_unit_test(test_no_ssh),
        cmocka_unit_test(test_agent),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
