/* test_plan_resolved.c - `netsurvey plan --json` against OpenSSH over the battery of
 * sshcfg_battery.c: each case's config is named by NETSURVEY_SSH_CONFIG (HOME its own home),
 * the case's ssh command-line values written into the plan as ssh.user / port / identity / jump /
 * known_hosts, and hosts[0].ssh.resolved must say what `ssh -G` says (hostname, port, user,
 * proxy_jump, known_hosts_files) and what `ssh -v` loads (identity_files, expanded) - or carry
 * an "error" where ssh refuses the config. ssh runs in the test; nothing of its answers is kept. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>
#include <cmocka.h>

#include "ssh_oracle.h"
#include "sshcfg_battery.h"

#ifndef NETSURVEY_BIN
#error "NETSURVEY_BIN must name the netsurvey binary"
#endif

static char g_root[256];
static bool g_have_ssh;

/* The plan of one case: its host, the case's values as the plan's ssh keys, a local peer. */
static void
write_plan(const char *path, const char *host, const struct transport_sshconfig_override *ov)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "name: resolved\nhosts:\n  - name: h\n    address: \"%s\"\n    ssh: {", host);
    const char *sep = "";
    if (ov->user != NULL)
        fprintf(f, "%suser: \"%s\"", sep, ov->user), sep = ", ";
    if (ov->port != 0)
        fprintf(f, "%sport: %u", sep, ov->port), sep = ", ";
    if (ov->identity != NULL)
        fprintf(f, "%sidentity: \"%s\"", sep, ov->identity), sep = ", ";
    if (ov->jump != NULL)
        fprintf(f, "%sjump: \"%s\"", sep, ov->jump), sep = ", ";
    if (ov->known_hosts != NULL)
        fprintf(f, "%sknown_hosts: \"%s\"", sep, ov->known_hosts);
    fprintf(f, "}\n  - {name: peer, transport: local, address: 127.0.0.1}\n"
               "scenarios:\n  - {name: lat, test: tcp_rr}\n");
    fclose(f);
}

/* `netsurvey plan --json PLAN` with HOME=home and NETSURVEY_SSH_CONFIG=config (NULL: unset);
 * its stdout parsed. */
static json_t *
plan_json(const char *home, const char *config, const char *plan)
{
    char out[] = "/tmp/ns-plan-json-XXXXXX";
    int fd = mkstemp(out);
    assert_true(fd >= 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int null = open("/dev/null", O_RDWR);
        dup2(null, 0);
        dup2(fd, 1);
        dup2(null, 2);
        setenv("HOME", home, 1);
        if (config != NULL)
            setenv("NETSURVEY_SSH_CONFIG", config, 1);
        else
            unsetenv("NETSURVEY_SSH_CONFIG");
        execl(NETSURVEY_BIN, "netsurvey", "plan", "--json", plan, (char *)NULL);
        _exit(127);
    }
    int st = 0;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    json_error_t je;
    json_t *doc = json_load_file(out, 0, &je);
    close(fd);
    unlink(out);
    if (doc == NULL)
        fail_msg("plan --json is not JSON: %s", je.text);
    return doc;
}

static void
same_array(const char *tc, const char *what, json_t *a, char **v, size_t n)
{
    if (!json_is_array(a))
        fail_msg("%s: %s is not an array", tc, what);
    char mine[8192] = "", ssh[8192] = "";
    size_t i;
    json_t *x;
    json_array_foreach(a, i, x)
    {
        size_t k = strlen(mine);
        snprintf(mine + k, sizeof mine - k, "%s%s", i ? " | " : "", json_string_value(x));
    }
    for (i = 0; i < n; i++) {
        size_t k = strlen(ssh);
        snprintf(ssh + k, sizeof ssh - k, "%s%s", i ? " | " : "", v[i]);
    }
    if (json_array_size(a) != n || strcmp(mine, ssh) != 0)
        fail_msg("%s: %s differ:\n  plan --json: %s\n  ssh:         %s", tc, what, mine, ssh);
}

static void
compare(const char *tc, json_t *res, const struct oracle *g)
{
    const char *hostname = json_string_value(json_object_get(res, "hostname"));
    const char *user = json_string_value(json_object_get(res, "user"));
    if (hostname == NULL || strcmp(hostname, g->hostname) != 0)
        fail_msg("%s: hostname: plan --json '%s', ssh '%s'", tc, hostname, g->hostname);
    if (user == NULL || strcmp(user, g->user) != 0)
        fail_msg("%s: user: plan --json '%s', ssh '%s'", tc, user, g->user);
    if (json_integer_value(json_object_get(res, "port")) != g->port)
        fail_msg("%s: port: plan --json %lld, ssh %d", tc,
                 (long long)json_integer_value(json_object_get(res, "port")), g->port);
    same_array(tc, "identity_files", json_object_get(res, "identity_files"), g->identity_paths.v,
               g->identity_paths.n);
    same_array(tc, "known_hosts_files", json_object_get(res, "known_hosts_files"),
               g->userknownhostsfile.v, g->userknownhostsfile.n);
    /* ssh -G prints the chain on one line, the hops separated by ',' */
    struct oracle_list pj = {0};
    char *line = g->proxyjump != NULL ? strdup(g->proxyjump) : NULL;
    char *hops[32];
    for (char *h = line != NULL ? strtok(line, ",") : NULL; h != NULL && pj.n < 32;
         h = strtok(NULL, ","))
        hops[pj.n++] = h;
    same_array(tc, "proxy_jump", json_object_get(res, "proxy_jump"), hops, pj.n);
    free(line);
}

static void
test_case(void **state)
{
    const struct tcase *tc = *state;
    if (!g_have_ssh)
        skip();
    char home[512], config[600], plan[600];
    sshcfg_case_home(g_root, tc, home, sizeof home);
    snprintf(config, sizeof config, "%s/config", home);
    snprintf(plan, sizeof plan, "%s/plan.yaml", home);
    struct transport_sshconfig_override ov = sshcfg_case_override(tc, home);
    write_plan(plan, tc->host, &ov);
    const char *args[16];
    sshcfg_override_args(&ov, args);
    struct oracle g;
    assert_int_equal(oracle_run(home, tc->no_F ? NULL : config, args, tc->host, &g), 0);
    json_t *doc = plan_json(home, tc->no_F ? NULL : config, plan);
    json_t *res = json_object_get(
        json_object_get(json_array_get(json_object_get(doc, "hosts"), 0), "ssh"), "resolved");
    if (!json_is_object(res))
        fail_msg("%s: no hosts[0].ssh.resolved", tc->name);
    json_t *error = json_object_get(res, "error");
    if (g.status != 0 || !g.connects) {
        if (!json_is_string(error))
            fail_msg("%s: ssh refused the config (%s) but plan --json resolved it", tc->name,
                     g.err);
    } else {
        if (error != NULL)
            fail_msg("%s: ssh accepted the config but plan --json says: %s", tc->name,
                     json_string_value(error));
        compare(tc->name, res, &g);
    }
    /* the local peer has no ssh object at all */
    assert_null(json_object_get(json_array_get(json_object_get(doc, "hosts"), 1), "ssh"));
    json_decref(doc);
    oracle_release(&g);
}

static int
group_setup(void **state)
{
    (void)state;
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
    sshcfg_root_remove(g_root);
    return 0;
}

int
main(void)
{
    struct CMUnitTest *t = calloc(sshcfg_ncases, sizeof *t);
    assert_non_null(t);
    for (size_t i = 0; i < sshcfg_ncases; i++) {
        t[i].name = sshcfg_cases[i].name;
        t[i].test_func = test_case;
        t[i].initial_state = (void *)(uintptr_t)&sshcfg_cases[i];
    }
    int rc = _cmocka_run_group_tests("plan_json_vs_ssh_G", t, sshcfg_ncases, group_setup,
                                     group_teardown);
    free(t);
    return rc;
}
