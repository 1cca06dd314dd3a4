/* test_transport_sshconfig.c - the ~/.ssh/config resolver against OpenSSH itself: each case of
 * the battery writes config files into a home of its own (HOME, which ssh's Include reads),
 * runs `ssh -G -F FILE [-l -p -i -o ...] HOST` (and `ssh -v` for the identity files as ssh
 * expands and loads them, which -G does not show) in the test, and requires the resolver,
 * which runs `ssh -G` itself, to read the same hostname, port, user, identity files (as
 * configured and as expanded), proxyjump, userknownhostsfile, hostkeyalias, connecttimeout,
 * identitiesonly and identityagent - or to fail where ssh refuses the config, with ssh's own
 * first line. Nothing of ssh's answers is kept in the test (the cases are in sshcfg_battery.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ssh_oracle.h"
#include "sshcfg_battery.h"
#include "transport/transport_sshconfig.h"

static char g_root[256];
static bool g_have_ssh;

static void
join(char *out, size_t len, char **v, size_t n, const char *sep)
{
    size_t k = 0;
    out[0] = '\0';
    for (size_t i = 0; i < n && k < len; i++)
        k += (size_t)snprintf(out + k, len - k, "%s%s", i ? sep : "", v[i]);
}

static void
same_list(const char *tc, const char *what, char **mine, size_t nmine, char **ssh, size_t nssh)
{
    char a[8192], b[8192];
    join(a, sizeof a, mine, nmine, " | ");
    join(b, sizeof b, ssh, nssh, " | ");
    if (nmine != nssh || strcmp(a, b) != 0)
        fail_msg("%s: %s differ:\n  resolver: %s\n  ssh:      %s", tc, what, a, b);
}

static void
same_str(const char *tc, const char *what, const char *mine, const char *ssh)
{
    if ((mine == NULL) != (ssh == NULL) || (mine != NULL && strcmp(mine, ssh) != 0))
        fail_msg("%s: %s differ: resolver '%s', ssh '%s'", tc, what, mine ? mine : "(none)",
                 ssh ? ssh : "(none)");
}

/* Every compared field of r against what ssh said. */
static void
compare(const char *tc, const struct transport_sshconfig *r, const struct oracle *g)
{
    same_str(tc, "hostname", r->hostname, g->hostname);
    same_str(tc, "user", r->user, g->user);
    if ((int)r->port != g->port)
        fail_msg("%s: port differs: resolver %u, ssh %d", tc, r->port, g->port);
    same_list(tc, "identityfile", r->identity_files, r->n_identity_files, g->identityfile.v,
              g->identityfile.n);
    same_list(tc, "identity paths (expanded)", r->identity_paths, r->n_identity_paths,
              g->identity_paths.v, g->identity_paths.n);
    same_list(tc, "userknownhostsfile", r->known_hosts_files, r->n_known_hosts_files,
              g->userknownhostsfile.v, g->userknownhostsfile.n);
    char pj[4096];
    join(pj, sizeof pj, r->proxy_jump, r->n_proxy_jump, ",");
    same_str(tc, "proxyjump", r->n_proxy_jump ? pj : NULL, g->proxyjump);
    same_str(tc, "hostkeyalias", r->host_key_alias, g->hostkeyalias);
    same_str(tc, "identityagent", r->identity_agent, g->identityagent);
    if (r->connect_timeout_s != g->connecttimeout)
        fail_msg("%s: connecttimeout differs: resolver %d, ssh %d", tc, r->connect_timeout_s,
                 g->connecttimeout);
    if (r->identities_only != g->identitiesonly)
        fail_msg("%s: identitiesonly differs", tc);
}

static bool
has_warning(const struct transport_sshconfig *r, const char *what)
{
    for (size_t i = 0; i < r->n_warnings; i++)
        if (strstr(r->warnings[i], what) != NULL)
            return true;
    return false;
}

/* --- the battery test --------------------------------------------------------------------- */

static void
test_case(void **state)
{
    const struct tcase *tc = *state;
    if (!g_have_ssh)
        skip();
    char home[512], config[600];
    sshcfg_case_home(g_root, tc, home, sizeof home);
    snprintf(config, sizeof config, "%s/config", home);
    struct transport_sshconfig_override ov = sshcfg_case_override(tc, home);
    const char *args[16];
    sshcfg_override_args(&ov, args);
    struct oracle g;
    assert_int_equal(oracle_run(home, tc->no_F ? NULL : config, args, tc->host, &g), 0);

    setenv("HOME", home, 1); /* the resolver's ssh, like the oracle's */
    struct transport_sshconfig_env env = {.config = tc->no_F ? NULL : config};
    struct transport_sshconfig *r = NULL;
    struct err e = {0};
    int rc = transport_sshconfig_resolve(&env, tc->host, &ov, &r, &e);
    if (g.status != 0 || !g.connects) {
        if (rc == 0)
            fail_msg("%s: ssh refused the config (%s) but the resolver accepted it", tc->name,
                     g.err);
        /* a refusal of -G is told in ssh's words (the first line, up to its first ';') */
        char first[200];
        snprintf(first, sizeof first, "%.*s", (int)strcspn(g.gerr, "\r\n"), g.gerr);
        if (g.status != 0 && strstr(e.msg, first) == NULL)
            fail_msg("%s: ssh said '%s', the resolver '%s'", tc->name, first, e.msg);
        print_message("    %s: both refuse (resolver: %s)\n", tc->name, e.msg);
    } else {
        if (rc != 0)
            fail_msg("%s: ssh accepted the config but the resolver said: %s", tc->name, e.msg);
        compare(tc->name, r, &g);
        if (tc->warn != NULL && !has_warning(r, tc->warn))
            fail_msg("%s: no warning about '%s'", tc->name, tc->warn);
    }
    transport_sshconfig_free(r);
    oracle_release(&g);
}

/* --- setup -------------------------------------------------------------------------------- */

static char g_home[1024];

static int
group_setup(void **state)
{
    (void)state;
    snprintf(g_home, sizeof g_home, "%s", getenv("HOME") != NULL ? getenv("HOME") : "/");
    if (sshcfg_root(g_root, sizeof g_root) != 0)
        return -1;
    setenv("NS_SSHCFG_VAR", "/opt/ns-var", 1);
    unsetenv("NS_SSHCFG_UNSET_VAR");
    g_have_ssh = oracle_available();
    if (!g_have_ssh)
        print_message("no ssh client on PATH: the battery is skipped\n");
    return 0;
}

static int
group_teardown(void **state)
{
    (void)state;
    setenv("HOME", g_home, 1);
    sshcfg_root_remove(g_root);
    return 0;
}

int
main(void)
{
    size_t n = sshcfg_ncases;
    struct CMUnitTest *t = calloc(n, sizeof *t);
    for (size_t i = 0; i < n; i++) {
        t[i].name = sshcfg_cases[i].name;
        t[i].test_func = test_case;
        t[i].initial_state = (void *)(uintptr_t)&sshcfg_cases[i];
    }
    int rc = _cmocka_run_group_tests("sshconfig_vs_ssh_G", t, n, group_setup, group_teardown);
    free(t);
    return rc;
}
