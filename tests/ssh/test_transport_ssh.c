/* test_transport_ssh.c - the ssh transport against real OpenSSH sshd's on loopback addresses
 * (tests/ssh/sshd_harness.sh): host keys, authentication, jump hosts (a chain, and one reached
 * only through an ssh config's alias and pattern blocks), quoting, token on stdin,
 * process groups, deploy and its cache, a dropped session, clean. Runs as root (label
 * integration). Every process group a test starts is checked gone afterwards. */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/clock.h"
#include "common/sha256.h"
#include "transport/transport.h"
#include "transport/transport_ssh.h"

#define ADDR_HOST "127.0.0.21"
#define ADDR_BASTION "127.0.0.22"
#define ADDR_INNER "127.0.0.23"

static char g_dir[64];
static char g_harness[512];
static char g_kh[128]; /* known_hosts with all three hosts, made by accept-new in setup */
static unsigned g_port[3];
static long g_pgids[64];
static size_t g_npgids;

__attribute__((format(printf, 1, 2))) static int
sh(const char *fmt, ...)
{
    char cmd[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

__attribute__((format(printf, 1, 2))) static bool
file_exists(const char *fmt, ...)
{
    char p[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p, sizeof p, fmt, ap);
    va_end(ap);
    struct stat st;
    return stat(p, &st) == 0;
}

static struct transport_target
target(int which, const char *identity, const char *kh)
{
    static const char *addrs[] = {ADDR_HOST, ADDR_BASTION, ADDR_INNER};
    static _Thread_local char idpath[128]; /* threads of test_concurrent */
    if (identity != NULL)
        snprintf(idpath, sizeof idpath, "%s/%s", g_dir, identity);
    struct transport_target t = {.name = "h",
                                 .kind = "ssh",
                                 .address = addrs[which],
                                 .port = g_port[which],
                                 .user = "root",
                                 .identity = identity != NULL ? idpath : NULL,
                                 .known_hosts = kh != NULL ? kh : g_kh,
                                 .connect_timeout_s = 20};
    return t;
}

static struct transport *
open_ok(int which)
{
    struct transport_target t = target(which, "id_good", NULL);
    struct transport *tr = NULL;
    struct err e = {0};
    int rc = transport_open(&t, &tr, &e);
    if (rc != 0)
        fail_msg("open: %s", e.msg);
    return tr;
}

/* Run argv on tr to the end; returns the status, stdout into out. */
static int
run(struct transport *tr, const char *const *argv, const char *in, char *out, size_t len)
{
    struct transport_proc *p = NULL;
    struct err e = {0};
    int rc = transport_spawn(tr, argv, in, in != NULL ? strlen(in) : 0, &p, &e);
    if (rc != 0)
        fail_msg("spawn %s: %s", argv[0], e.msg);
    g_pgids[g_npgids++] = transport_ssh_pgid(p);
    struct transport_output o;
    rc = transport_wait(p, 1 << 20, 1 << 16, (int64_t)clock_deadline_ms(30000), &o, &e);
    if (rc != 0)
        fail_msg("wait %s: %s", argv[0], e.msg);
    snprintf(out, len, "%s", o.out);
    int st = o.status;
    transport_output_release(&o);
    transport_proc_free(p);
    return st;
}

static int
group_setup(void **state)
{
    (void)state;
    const char *src = getenv("NS_SOURCE_DIR");
    assert_non_null(src);
    snprintf(g_harness, sizeof g_harness, "%s/tests/ssh/sshd_harness.sh", src);
    snprintf(g_dir, sizeof g_dir, "/tmp/ns-ssh-XXXXXX");
    assert_non_null(mkdtemp(g_dir));
    snprintf(g_kh, sizeof g_kh, "%s/known_hosts", g_dir);
    unsetenv("SSH_AUTH_SOCK");
    assert_int_equal(sh("%s keys %s", g_harness, g_dir), 0);
    /* ports from the pid so that parallel runs of the suite do not collide */
    unsigned base = 20000 + (unsigned)(getpid() % 20000);
    const char *addrs[] = {ADDR_HOST, ADDR_BASTION, ADDR_INNER};
    for (int i = 0; i < 3; i++) {
        g_port[i] = base + (unsigned)i;
        assert_int_equal(sh("%s start %s/s%d %s %u %s %d", g_harness, g_dir, i, addrs[i], g_port[i],
                            g_dir, (int)getpid()),
                         0);
    }
    for (int i = 0; i < 3; i++) {
        struct transport_target t = target(i, "id_good", NULL);
        t.accept_new_host_keys = true;
        struct transport *tr = NULL;
        struct err e = {0};
        if (transport_open(&t, &tr, &e) != 0)
            fail_msg("setup open %d: %s", i, e.msg);
        transport_close(tr);
    }
    return 0;
}

static int
group_teardown(void **state)
{
    (void)state;
    for (int i = 0; i < 3; i++)
        sh("%s stop %s/s%d", g_harness, g_dir, i);
    sh("rm -rf %s", g_dir);
    return 0;
}

/* After every test: nothing of ours is left on the "hosts" (they are this machine). */
static int
check_groups_gone(void **state)
{
    (void)state;
    for (size_t i = 0; i < g_npgids; i++) {
        if (g_pgids[i] > 1 && kill((pid_t)-g_pgids[i], 0) == 0)
            fail_msg("process group %ld is still alive", g_pgids[i]);
    }
    g_npgids = 0;
    return 0;
}

static void
test_identity_file(void **state)
{
    (void)state;
    struct transport *tr = open_ok(0);
    assert_string_equal(transport_kind(tr), "ssh");
    char out[256];
    const char *argv[] = {"id", "-un", NULL};
    assert_int_equal(run(tr, argv, NULL, out, sizeof out), 0);
    assert_string_equal(out, "root\n");
    const char *fail[] = {"sh", "-c", "echo oops >&2; exit 7", NULL};
    assert_int_equal(run(tr, fail, NULL, out, sizeof out), 7);
    transport_close(tr);
}

static void
test_wrong_key(void **state)
{
    (void)state;
    struct transport_target t = target(0, "id_bad", NULL);
    struct transport *tr = NULL;
    struct err e = {0};
    assert_int_equal(transport_open(&t, &tr, &e), NS_EAUTH);
    assert_null(tr);
    assert_non_null(strstr(e.msg, "authentication failed as root"));
    assert_non_null(strstr(e.msg, "id_bad"));
}

static void
test_agent(void **state)
{
    (void)state;
    char sock[128];
    snprintf(sock, sizeof sock, "%s/agent.sock", g_dir);
    pid_t agent = fork();
    assert_true(agent >= 0);
    if (agent == 0) {
        int null = open("/dev/null", O_RDWR);
        dup2(null, 1);
        dup2(null, 2);
        execlp("ssh-agent", "ssh-agent", "-D", "-a", sock, (char *)NULL);
        _exit(127);
    }
    for (int i = 0; i < 200 && !file_exists("%s", sock); i++)
        clock_sleep_ns(20 * NS_PER_MS);
    setenv("SSH_AUTH_SOCK", sock, 1);
    int added = sh("ssh-add -q %s/id_good 2>/dev/null", g_dir);
    struct transport_target t = target(0, NULL, NULL); /* no identity: the agent */
    struct transport *tr = NULL;
    struct err e = {0};
    int rc = transport_open(&t, &tr, &e);
    unsetenv("SSH_AUTH_SOCK");
    kill(agent, SIGTERM);
    waitpid(agent, NULL, 0);
    assert_int_equal(added, 0);
    if (rc != 0)
        fail_msg("agent open: %s", e.msg);
    transport_close(tr);
    /* and without the agent, no default key works */
    tr = NULL;
    assert_int_equal(transport_open(&t, &tr, &e), NS_EAUTH);
}

static void
test_host_keys(void **state)
{
    (void)state;
    char kh[160];
    snprintf(kh, sizeof kh, "%s/kh_test", g_dir);
    unlink(kh);
    sh("rm -rf %s/s0/home/.cache", g_dir);
    struct transport_target t = target(0, "id_good", kh);
    struct transport *tr = NULL;
    struct err e = {0};
    /* unknown: refused with the fingerprint and how to accept */
    assert_int_equal(transport_open(&t, &tr, &e), NS_EHOSTKEY);
    assert_non_null(strstr(e.msg, "SHA256:"));
    assert_non_null(strstr(e.msg, "--accept-new-host-keys"));
    assert_false(file_exists("%s", kh));
    /* accept-new records it, then it is known without the flag */
    t.accept_new_host_keys = true;
    assert_int_equal(transport_open(&t, &tr, &e), 0);
    transport_close(tr);
    t.accept_new_host_keys = false;
    assert_int_equal(transport_open(&t, &tr, &e), 0);
    transport_close(tr);
    /* hashed entries are understood */
    assert_int_equal(sh("ssh-keygen -q -H -f %s >/dev/null 2>&1", kh), 0);
    assert_int_equal(sh("grep -q '^|1|' %s", kh), 0);
    assert_int_equal(transport_open(&t, &tr, &e), 0);
    transport_close(tr);
    /* changed: another ed25519 key under that name, on line 3; refused even with accept-new,
     * in one line naming that entry */
    assert_int_equal(sh("ssh-keygen -q -t ed25519 -N '' -f %s/other_host >/dev/null && "
                        "{ echo '# hosts'; echo; printf '[%s]:%u %%s\\n' \"$(cut -d' ' -f1,2 "
                        "%s/other_host.pub)\"; } >%s",
                        g_dir, ADDR_HOST, g_port[0], g_dir, kh),
                     0);
    t.accept_new_host_keys = true;
    tr = NULL;
    assert_int_equal(transport_open(&t, &tr, &e), NS_EHOSTKEY);
    assert_null(tr);
    assert_non_null(strstr(e.msg, "CHANGED"));
    assert_non_null(strstr(e.msg, "SHA256:"));
    char entry[200];
    snprintf(entry, sizeof entry, "from the one in %s:3;", kh);
    if (strstr(e.msg, entry) == NULL)
        fail_msg("no '%s' in: %s", entry, e.msg);
    assert_null(strchr(e.msg, '\n'));
    /* other type: only an RSA key known for the host, which offers ed25519 */
    assert_int_equal(sh("ssh-keygen -q -t rsa -b 2048 -N '' -f %s/rsa_host >/dev/null && "
                        "printf '[%s]:%u %%s\\n' \"$(cut -d' ' -f1,2 %s/rsa_host.pub)\" >%s",
                        g_dir, ADDR_HOST, g_port[0], g_dir, kh),
                     0);
    int rc = transport_open(&t, &tr, &e);
    assert_int_equal(rc, NS_EHOSTKEY);
    /* nothing ran there: no cache folder, no pid file */
    assert_false(file_exists("%s/s0/home/.cache", g_dir));
}

static void
test_jump(void **state)
{
    (void)state;
    char jump[64];
    snprintf(jump, sizeof jump, "root@%s:%u", ADDR_BASTION, g_port[1]);
    struct transport_target t = target(2, "id_good", NULL);
    t.jump = jump;
    struct transport *tr = NULL;
    struct err e = {0};
    if (transport_open(&t, &tr, &e) != 0)
        fail_msg("jump open: %s", e.msg);
    char out[256];
    const char *argv[] = {"sh", "-c", "echo \"$HOME\"", NULL};
    assert_int_equal(run(tr, argv, NULL, out, sizeof out), 0);
    char want[128];
    snprintf(want, sizeof want, "%s/s2/home\n", g_dir);
    assert_string_equal(out, want);
    /* the path really is the bastion: with it gone, the host is unreachable */
    sh("%s stop %s/s1", g_harness, g_dir);
    struct transport_proc *p = NULL;
    int rc = transport_spawn(tr, argv, NULL, 0, &p, &e);
    assert_int_not_equal(rc, 0);
    if (p != NULL)
        transport_proc_free(p);
    transport_close(tr);
    assert_int_equal(sh("%s start %s/s1 %s %u %s %d", g_harness, g_dir, ADDR_BASTION, g_port[1],
                        g_dir, (int)getpid()),
                     0);
    /* a bad jump spec is refused, by ssh itself ("Invalid -J argument") */
    t.jump = "root@:x";
    assert_int_equal(transport_open(&t, &tr, &e), NS_EPARSE);
    assert_non_null(strstr(e.msg, "-J"));
}

/* A chain of two jump hosts given as ssh -J takes it: host 0, then the bastion, then the inner
 * host; with the first hop gone, the inner host is unreachable. */
static void
test_jump_chain(void **state)
{
    (void)state;
    char jump[128];
    snprintf(jump, sizeof jump, "root@%s:%u,root@%s:%u", ADDR_HOST, g_port[0], ADDR_BASTION,
             g_port[1]);
    struct transport_target t = target(2, "id_good", NULL);
    t.jump = jump;
    struct transport *tr = NULL;
    struct err e = {0};
    if (transport_open(&t, &tr, &e) != 0)
        fail_msg("chain open: %s", e.msg);
    char out[256], want[128];
    const char *argv[] = {"sh", "-c", "echo \"$HOME\"", NULL};
    assert_int_equal(run(tr, argv, NULL, out, sizeof out), 0);
    snprintf(want, sizeof want, "%s/s2/home\n", g_dir);
    assert_string_equal(out, want);
    sh("%s stop %s/s0", g_harness, g_dir);
    struct transport_proc *p = NULL;
    assert_int_not_equal(transport_spawn(tr, argv, NULL, 0, &p, &e), 0);
    if (p != NULL)
        transport_proc_free(p);
    transport_close(tr);
    assert_int_equal(sh("%s start %s/s0 %s %u %s %d", g_harness, g_dir, ADDR_HOST, g_port[0], g_dir,
                        (int)getpid()),
                     0);
}

static int g_warnings;

static void
count_warning(void *ctx, const char *name, const char *msg)
{
    (void)ctx;
    assert_string_equal(name, "h");
    assert_non_null(strstr(msg, "algorithm lists"));
    g_warnings++;
}

/* Only an alias in an ssh config: HostName and Port in its own block, User, the key, the
 * known_hosts file and ProxyJump from pattern blocks after it, the jump host's own ProxyJump
 * followed too (three hops, as ssh's ProxyJump children would dial them). */
static void
test_config_chain(void **state)
{
    (void)state;
    char cfg[128];
    snprintf(cfg, sizeof cfg, "%s/ssh_config", g_dir);
    FILE *f = fopen(cfg, "w");
    assert_non_null(f);
    fprintf(f,
            "Host inner-vm\n HostName %s\n Port %u\n Ciphers aes128-ctr\n"
            "Host *-vm\n ProxyJump mid\n"
            "Host mid\n HostName %s\n Port %u\n ProxyJump root@%s:%u\n"
            "Host *\n User root\n IdentityFile %s/id_good\n UserKnownHostsFile %s\n",
            ADDR_INNER, g_port[2], ADDR_BASTION, g_port[1], ADDR_HOST, g_port[0], g_dir, g_kh);
    fclose(f);
    struct transport_target t = {.name = "h",
                                 .kind = "ssh",
                                 .address = "inner-vm",
                                 .ssh_config = cfg,
                                 .warn = count_warning};
    struct transport *tr = NULL;
    struct err e = {0};
    g_warnings = 0;
    if (transport_open(&t, &tr, &e) != 0)
        fail_msg("config chain open: %s", e.msg);
    assert_int_equal(g_warnings, 1);
    char out[256], want[128];
    const char *argv[] = {"sh", "-c", "echo \"$HOME\"", NULL};
    assert_int_equal(run(tr, argv, NULL, out, sizeof out), 0);
    snprintf(want, sizeof want, "%s/s2/home\n", g_dir);
    assert_string_equal(out, want);
    /* the path really is both jump hosts: with the middle one gone, unreachable */
    sh("%s stop %s/s1", g_harness, g_dir);
    struct transport_proc *p = NULL;
    assert_int_not_equal(transport_spawn(tr, argv, NULL, 0, &p, &e), 0);
    if (p != NULL)
        transport_proc_free(p);
    transport_close(tr);
    assert_int_equal(sh("%s start %s/s1 %s %u %s %d", g_harness, g_dir, ADDR_BASTION, g_port[1],
                        g_dir, (int)getpid()),
                     0);
    /* what the config refuses is told in OpenSSH's words, naming the file and line */
    f = fopen(cfg, "a");
    assert_non_null(f);
    fputs("Host inner-vm\n Frobnicate yes\n", f);
    fclose(f);
    assert_int_equal(transport_open(&t, &tr, &e), NS_EPARSE);
    if (strstr(e.msg, "h: ssh -G: ") != e.msg || strstr(e.msg, cfg) == NULL ||
        strstr(e.msg, "line 16") == NULL || strstr(e.msg, "frobnicate") == NULL)
        fail_msg("the refusal does not name the file and line: %s", e.msg);
}

static void
test_metacharacters(void **state)
{
    (void)state;
    struct transport *tr = open_ok(0);
    char a1[128], a2[128], a3[128];
    snprintf(a1, sizeof a1, "$(touch %s/pwned1)", g_dir);
    snprintf(a2, sizeof a2, "`touch %s/pwned2`", g_dir);
    snprintf(a3, sizeof a3, "x; touch %s/pwned3 && echo '\"\\", g_dir);
    const char *argv[] = {"printf", "[%s]\\n", a1, a2, a3, "it's", "l1\nl2", "*", "", NULL};
    char out[1024], want[1024];
    assert_int_equal(run(tr, argv, NULL, out, sizeof out), 0);
    snprintf(want, sizeof want, "[%s]\n[%s]\n[%s]\n[it's]\n[l1\nl2]\n[*]\n[]\n", a1, a2, a3);
    assert_string_equal(out, want);
    assert_false(file_exists("%s/pwned1", g_dir));
    assert_false(file_exists("%s/pwned2", g_dir));
    assert_false(file_exists("%s/pwned3", g_dir));
    transport_close(tr);
}

static bool
cmdline_has(const char *needle)
{
    DIR *d = opendir("/proc");
    bool found = false;
    struct dirent *de;
    while (d != NULL && !found && (de = readdir(d)) != NULL) {
        char p[300], buf[8192];
        snprintf(p, sizeof p, "/proc/%s/cmdline", de->d_name);
        int fd = open(p, O_RDONLY);
        if (fd < 0)
            continue;
        ssize_t n = read(fd, buf, sizeof buf - 1);
        close(fd);
        for (ssize_t i = 0; i < n; i++)
            if (buf[i] == '\0')
                buf[i] = ' ';
        buf[n > 0 ? n : 0] = '\0';
        found = strstr(buf, needle) != NULL;
    }
    if (d != NULL)
        closedir(d);
    return found;
}

static void
test_token_stdin_and_signal(void **state)
{
    (void)state;
    struct transport *tr = open_ok(0);
    const char *argv[] = {"sh", "-c", "read t; echo \"got:$t\"; exec sleep 60", NULL};
    struct transport_proc *p = NULL;
    struct err e = {0};
    const char *tok = "TOKEN-7f3a9c-not-on-argv\n";
    assert_int_equal(transport_spawn(tr, argv, tok, strlen(tok), &p, &e), 0);
    long pgid = transport_ssh_pgid(p);
    g_pgids[g_npgids++] = pgid;
    assert_true(pgid > 1);
    char line[128];
    assert_int_equal(
        transport_read_line(p, line, sizeof line, (int64_t)clock_deadline_ms(20000), &e), 0);
    assert_string_equal(line, "got:TOKEN-7f3a9c-not-on-argv");
    assert_false(cmdline_has("TOKEN-7f3a9c"));
    /* its own group and session on the host */
    assert_int_equal(getpgid((pid_t)pgid), (pid_t)pgid);
    assert_int_equal(getsid((pid_t)pgid), (pid_t)pgid);
    /* a deadline while it runs: timed out, still running */
    struct transport_output o;
    assert_int_equal(transport_wait(p, 1024, 1024, (int64_t)clock_deadline_ms(100), &o, &e),
                     NS_ETIMEDOUT);
    transport_output_release(&o);
    assert_int_equal(kill((pid_t)-pgid, 0), 0);
    assert_int_equal(transport_signal(p, SIGTERM, &e), 0);
    assert_int_equal(transport_wait(p, 1024, 1024, (int64_t)clock_deadline_ms(20000), &o, &e), 0);
    assert_int_equal(o.status, 128 + SIGTERM);
    transport_output_release(&o);
    transport_proc_free(p);
    /* proc_free kills a group still running */
    assert_int_equal(transport_spawn(tr, argv, "x\n", 2, &p, &e), 0);
    pgid = transport_ssh_pgid(p);
    g_pgids[g_npgids++] = pgid;
    assert_int_equal(kill((pid_t)-pgid, 0), 0);
    transport_proc_free(p);
    assert_int_equal(kill((pid_t)-pgid, 0), -1);
    /* output caps */
    const char *big[] = {"sh", "-c", "head -c 100000 /dev/zero; head -c 5000 /dev/zero >&2", NULL};
    assert_int_equal(transport_spawn(tr, big, NULL, 0, &p, &e), 0);
    g_pgids[g_npgids++] = transport_ssh_pgid(p);
    assert_int_equal(transport_wait(p, 1000, 100, (int64_t)clock_deadline_ms(20000), &o, &e), 0);
    assert_int_equal(o.out_len, 1000);
    assert_true(o.out_truncated);
    assert_int_equal(o.err_len, 100);
    assert_true(o.err_truncated);
    assert_int_equal(o.status, 0);
    transport_output_release(&o);
    transport_proc_free(p);
    transport_close(tr);
}

static int
local_sha256(const char *path, char hex[65])
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return -1;
    struct sha256 c;
    sha256_init(&c);
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        sha256_update(&c, buf, n);
    fclose(f);
    uint8_t d[SHA256_LEN];
    sha256_final(&c, d);
    sha256_hex_encode(d, SHA256_LEN, hex);
    return 0;
}

/* A loopback TCP port nobody listens on right now. */
static unsigned
free_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
    assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &len), 0);
    close(fd);
    return ntohs(a.sin_port);
}

static void
test_deploy_and_nsperf(void **state)
{
    (void)state;
    const char *bin = getenv("NS_BINARY_DIR");
    assert_non_null(bin);
    char dyn[512], stat_nsperf[512];
    snprintf(dyn, sizeof dyn, "%s/bin/nsperf", bin);
    snprintf(stat_nsperf, sizeof stat_nsperf, "%s/bin/nsperf-static", bin);
    if (!file_exists("%s", stat_nsperf))
        fail_msg("no static nsperf at %s: every build makes it (target nsperf_static)",
                 stat_nsperf);
    sh("rm -rf %s/s0/home/.cache", g_dir);
    struct transport *tr = open_ok(0);
    char remote[1024];
    struct err e = {0};
    /* the dynamic one is refused, naming the static build */
    if (strstr(bin, "static") == NULL) {
        assert_int_equal(transport_deploy(tr, dyn, remote, sizeof remote, &e), NS_EINVAL);
        assert_non_null(strstr(e.msg, "nsperf-static"));
        assert_int_equal(transport_ssh_uploads(tr), 0);
    }
    if (transport_deploy(tr, stat_nsperf, remote, sizeof remote, &e) != 0)
        fail_msg("deploy: %s", e.msg);
    assert_int_equal(transport_ssh_uploads(tr), 1);
    char hex[65], want[1100];
    assert_int_equal(local_sha256(stat_nsperf, hex), 0);
    /* cached under its own name and content hash: nsperf-static-<sha256> */
    snprintf(want, sizeof want, "%s/s0/home/.cache/netsurvey/nsperf-static-%s", g_dir, hex);
    assert_string_equal(remote, want);
    char rhex[65];
    assert_int_equal(local_sha256(remote, rhex), 0);
    assert_string_equal(rhex, hex);
    struct stat st;
    assert_int_equal(stat(remote, &st), 0);
    assert_true((st.st_mode & 0111) != 0);
    /* cached: no upload the second time, nor from a new session */
    char again[1024];
    assert_int_equal(transport_deploy(tr, stat_nsperf, again, sizeof again, &e), 0);
    assert_string_equal(again, remote);
    assert_int_equal(transport_ssh_uploads(tr), 1);
    struct transport *tr2 = open_ok(0);
    assert_int_equal(transport_deploy(tr2, stat_nsperf, again, sizeof again, &e), 0);
    assert_int_equal(transport_ssh_uploads(tr2), 0);
    transport_close(tr2);

    /* nsperf -s -1 over SSH, a local nsperf -c against it, token on stdin both sides */
    char tokfile[128];
    snprintf(tokfile, sizeof tokfile, "%s/token", g_dir);
    assert_int_equal(sh("printf 'tok-%d' >%s", getpid(), tokfile), 0);
    char tok[64];
    snprintf(tok, sizeof tok, "tok-%d", getpid());
    char portbuf[16];
    snprintf(portbuf, sizeof portbuf, "%u", free_port());
    const char *argv[] = {"sh",    "-c",           "exec \"$0\" \"$@\" 2>&1",
                          remote,  "-s",           "-1",
                          "-B",    "127.0.0.1",    "-p",
                          portbuf, "--token-file", "-",
                          NULL};
    struct transport_proc *p = NULL;
    assert_int_equal(transport_spawn(tr, argv, tok, strlen(tok), &p, &e), 0);
    g_pgids[g_npgids++] = transport_ssh_pgid(p);
    char line[256];
    assert_int_equal(
        transport_read_line(p, line, sizeof line, (int64_t)clock_deadline_ms(20000), &e), 0);
    char *lst = strstr(line, ": listening");
    if (lst == NULL)
        fail_msg("server said: %s", line);
    assert_non_null(lst);
    *lst = '\0';
    const char *port = strrchr(line, ':');
    assert_non_null(port);
    assert_int_equal(sh("%s -c 127.0.0.1 -p %s --test tcp_rr -t 0.2 --warmup 0 --token-file %s "
                        ">/dev/null 2>&1",
                        dyn, port + 1, tokfile),
                     0);
    struct transport_output o;
    assert_int_equal(transport_wait(p, 1 << 16, 1 << 16, (int64_t)clock_deadline_ms(30000), &o, &e),
                     0);
    assert_int_equal(o.status, 0);
    transport_output_release(&o);
    transport_proc_free(p);
    transport_close(tr);
}

/* PIDs of the sshd processes serving connections of the sshd whose pid file is in dir */
static void
kill_connections(const char *sdir)
{
    assert_int_equal(sh("p=$(cat %s/sshd.pid); for c in $(ps -o pid= --ppid $p); do "
                        "for g in $(ps -o pid= --ppid $c); do "
                        "[ \"$(cat /proc/$g/comm)\" = sshd ] && kill -KILL $g; done; "
                        "kill -KILL $c; done; exit 0",
                        sdir),
                     0);
}

/* Signal every connection process (and its session children) of the sshd in dir. */
static void
signal_connections(const char *sdir, const char *sig)
{
    assert_int_equal(sh("p=$(cat %s/sshd.pid); for c in $(ps -o pid= --ppid $p); do "
                        "for g in $(ps -o pid= --ppid $c); do "
                        "[ \"$(cat /proc/$g/comm)\" = sshd ] && kill -%s $g; done; "
                        "kill -%s $c; done; exit 0",
                        sdir, sig, sig),
                     0);
}

static void
test_dropped_session(void **state)
{
    (void)state;
    struct transport *tr = open_ok(0);
    const char *argv[] = {"sleep", "60", NULL};
    struct transport_proc *p = NULL;
    struct err e = {0};
    assert_int_equal(transport_spawn(tr, argv, NULL, 0, &p, &e), 0);
    long pgid = transport_ssh_pgid(p);
    g_pgids[g_npgids++] = pgid;
    unsigned drops = 9;
    assert_true(transport_connected(tr, &drops));
    assert_int_equal(drops, 0);
    char sdir[128];
    snprintf(sdir, sizeof sdir, "%s/s0", g_dir);
    kill_connections(sdir);
    struct transport_output o;
    /* an error, not a hang: well before the deadline */
    int rc = transport_wait(p, 1024, 1024, (int64_t)clock_deadline_ms(60000), &o, &e);
    transport_output_release(&o);
    assert_int_equal(rc, NS_ECLOSED);
    assert_non_null(strstr(e.msg, "dropped"));
    /* never replaced behind the caller's back: freeing it cannot kill the group, and every
     * command fails at once with why */
    transport_proc_free(p);
    assert_false(transport_connected(tr, &drops));
    assert_int_equal(drops, 1);
    assert_int_equal(transport_ssh_reconnects(tr), 0);
    assert_int_equal(kill((pid_t)-pgid, 0), 0);
    const char *echo[] = {"echo", "back", NULL};
    assert_int_equal(transport_spawn(tr, echo, NULL, 0, &p, &e), NS_ECLOSED);
    assert_non_null(strstr(e.msg, "session dropped: "));
    char why[256];
    transport_drop_reason(tr, why, sizeof why);
    assert_true(why[0] != '\0');
    /* connected again: the group the dead session left (provably its own) is ended */
    assert_int_equal(transport_connect(tr, &e), 0);
    assert_true(transport_connected(tr, &drops));
    assert_int_equal(transport_ssh_reconnects(tr), 1);
    assert_int_equal(kill((pid_t)-pgid, 0), -1);
    assert_false(file_exists("%s/s0/home/.cache/netsurvey/pids/%ld", g_dir, pgid));
    char out[64];
    assert_int_equal(run(tr, echo, NULL, out, sizeof out), 0);
    assert_string_equal(out, "back\n");
    transport_close(tr);
}

struct drop_seen {
    pthread_mutex_t mu;
    int n;
    char why[512];
    uint64_t at_ns;
};

static void
on_drop(void *ctx, const char *name, const char *why)
{
    struct drop_seen *d = ctx;
    pthread_mutex_lock(&d->mu);
    if (d->n++ == 0) {
        snprintf(d->why, sizeof d->why, "%s: %s", name, why);
        d->at_ns = clock_now_ns();
    }
    pthread_mutex_unlock(&d->mu);
}

static int
drops_seen(struct drop_seen *d)
{
    pthread_mutex_lock(&d->mu);
    int n = d->n;
    pthread_mutex_unlock(&d->mu);
    return n;
}

/* An idle session whose host stops answering (its sshd processes stopped, the TCP connection
 * still up: a blackholed link, a frozen VM) is found dead by the keepalives within
 * ServerAliveInterval x ServerAliveCountMax, told through on_drop while nothing runs, and made
 * again once the host answers. */
static void
test_keepalive_drop(void **state)
{
    (void)state;
    char cfg[160];
    snprintf(cfg, sizeof cfg, "%s/alive_config", g_dir);
    assert_int_equal(sh("printf 'Host *\\n  ServerAliveInterval 1\\n  ServerAliveCountMax 2\\n' "
                        ">%s",
                        cfg),
                     0);
    struct drop_seen d = {.mu = PTHREAD_MUTEX_INITIALIZER};
    struct transport_target t = target(0, "id_good", NULL);
    t.ssh_config = cfg;
    t.on_drop = on_drop;
    t.on_drop_ctx = &d;
    struct transport *tr = NULL;
    struct err e = {0};
    assert_int_equal(transport_open(&t, &tr, &e), 0);
    char out[64];
    const char *echo[] = {"echo", "up", NULL};
    assert_int_equal(run(tr, echo, NULL, out, sizeof out), 0);
    /* answered keepalives keep an idle session alive past the limit */
    clock_sleep_ns(3500 * NS_PER_MS);
    assert_int_equal(drops_seen(&d), 0);
    assert_true(transport_connected(tr, NULL));
    char sdir[128];
    snprintf(sdir, sizeof sdir, "%s/s0", g_dir);
    uint64_t t0 = clock_now_ns();
    signal_connections(sdir, "STOP");
    while (drops_seen(&d) == 0 && clock_now_ns() - t0 < 30 * NS_PER_SEC)
        clock_sleep_ns(20 * NS_PER_MS);
    signal_connections(sdir, "KILL");
    assert_int_equal(drops_seen(&d), 1);
    printf("keepalive: a stopped host found dead after %.2f s (ServerAliveInterval 1 x "
           "ServerAliveCountMax 2): %s\n",
           (double)(d.at_ns - t0) / 1e9, d.why);
    assert_non_null(strstr(d.why, "no answer from the host"));
    assert_non_null(strstr(d.why, "ServerAliveCountMax 2"));
    assert_false(transport_connected(tr, NULL));
    assert_int_equal(transport_connect(tr, &e), 0);
    assert_int_equal(run(tr, echo, NULL, out, sizeof out), 0);
    assert_string_equal(out, "up\n");
    assert_int_equal(drops_seen(&d), 1);
    transport_close(tr);
}

/* A host that stops answering a live session: the channel's opening times out and says so
 * (never an empty reason), and the session counts as dropped. */
static void
test_channel_timeout(void **state)
{
    (void)state;
    struct transport_target t = target(0, "id_good", NULL);
    t.connect_timeout_s = 1.5;
    struct transport *tr = NULL;
    struct err e = {0};
    assert_int_equal(transport_open(&t, &tr, &e), 0);
    char sdir[128];
    snprintf(sdir, sizeof sdir, "%s/s0", g_dir);
    signal_connections(sdir, "STOP");
    const char *echo[] = {"echo", "x", NULL};
    struct transport_proc *p = NULL;
    int rc = transport_spawn(tr, echo, NULL, 0, &p, &e);
    signal_connections(sdir, "KILL");
    assert_int_equal(rc, NS_ECLOSED);
    assert_non_null(strstr(e.msg, "no answer from the host within 1.5 s (opening a channel)"));
    assert_false(transport_connected(tr, NULL));
    transport_close(tr);
}

/* transport_cancel from another thread cuts a connect short, in its TCP connect (a listener
 * whose backlog is full drops the SYN) and in the ssh handshake (a listener that never
 * speaks). */
struct connector {
    struct transport *tr;
    int rc;
    char msg[512];
    uint64_t took_ns;
};

static void *
connector_run(void *arg)
{
    struct connector *c = arg;
    struct err e = {0};
    uint64_t t0 = clock_now_ns();
    c->rc = transport_connect(c->tr, &e);
    c->took_ns = clock_now_ns() - t0;
    snprintf(c->msg, sizeof c->msg, "%s", e.msg);
    return NULL;
}

static int
listener(unsigned *port, int backlog)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET};
    inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
    assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
    assert_int_equal(listen(fd, backlog), 0);
    socklen_t l = sizeof a;
    getsockname(fd, (struct sockaddr *)&a, &l);
    *port = ntohs(a.sin_port);
    return fd;
}

static void
cancel_one(unsigned port, const char *phase)
{
    struct transport_target t = target(0, "id_good", NULL);
    t.address = "127.0.0.1";
    t.port = port;
    t.connect_timeout_s = 60;
    struct connector c = {0};
    struct err e = {0};
    assert_int_equal(transport_new(&t, &c.tr, &e), 0);
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, connector_run, &c), 0);
    clock_sleep_ns(300 * NS_PER_MS);
    transport_cancel(c.tr);
    pthread_join(th, NULL);
    printf("cancel in the %s: returned %.3f s after its start (%s)\n", phase,
           (double)c.took_ns / 1e9, c.msg);
    assert_int_equal(c.rc, NS_EINTR);
    assert_non_null(strstr(c.msg, "interrupted"));
    assert_true(c.took_ns < 10 * NS_PER_SEC); /* against a 60 s timeout */
    /* sticky: a later connect refuses at once */
    assert_int_equal(transport_connect(c.tr, &e), NS_EINTR);
    transport_close(c.tr);
}

static void
test_cancel_connect(void **state)
{
    (void)state;
    unsigned port;
    int silent = listener(&port, 16); /* accepts in the kernel, never speaks */
    cancel_one(port, "ssh handshake");
    close(silent);
    int full = listener(&port, 0);
    /* backlog 0 takes one connection; further SYNs are dropped while it is not accepted */
    int filler[2];
    for (int i = 0; i < 2; i++) {
        filler[i] = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
        struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
        inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
        connect(filler[i], (struct sockaddr *)&a, sizeof a);
    }
    clock_sleep_ns(100 * NS_PER_MS);
    cancel_one(port, "TCP connect");
    for (int i = 0; i < 2; i++)
        close(filler[i]);
    close(full);
}

static void
test_close_kills_and_clean(void **state)
{
    (void)state;
    struct transport *tr = open_ok(0);
    const char *argv[] = {"sleep", "60", NULL};
    struct transport_proc *p = NULL, *q = NULL;
    struct err e = {0};
    assert_int_equal(transport_spawn(tr, argv, NULL, 0, &p, &e), 0);
    long pgid = transport_ssh_pgid(p);
    g_pgids[g_npgids++] = pgid;
    assert_true(file_exists("%s/s0/home/.cache/netsurvey/pids/%ld", g_dir, pgid));
    /* clean kills what the pid files name and removes the folder */
    struct transport_ssh_cleaned c;
    assert_int_equal(transport_ssh_clean(tr, &c, &e), 0);
    assert_int_equal(c.killed, 1);
    assert_int_equal(c.stale, 0);
    assert_int_equal(kill((pid_t)-pgid, 0), -1);
    assert_false(file_exists("%s/s0/home/.cache/netsurvey", g_dir));
    transport_proc_free(p);
    /* close kills what is still running, the proc is freed after */
    assert_int_equal(transport_spawn(tr, argv, NULL, 0, &q, &e), 0);
    pgid = transport_ssh_pgid(q);
    g_pgids[g_npgids++] = pgid;
    transport_close(tr);
    assert_int_equal(kill((pid_t)-pgid, 0), -1);
    transport_proc_free(q);
}

/* Field 22 of /proc/PID/stat. */
static unsigned long long
start_time(pid_t pid)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    char *q = strrchr(buf, ')');
    assert_non_null(q);
    unsigned long long v = 0;
    q += 2;
    for (int field = 3; field < 22; field++)
        q = strchr(q, ' ') + 1;
    sscanf(q, "%llu", &v);
    return v;
}

/* clean acts only on what it can prove: a pid file whose number now belongs to another
 * process (another start time, or the same process but another program) is removed and the
 * process left alone. */
static void
test_clean_stale(void **state)
{
    (void)state;
    struct transport *tr = open_ok(0);
    const char *argv[] = {"sleep", "60", NULL};
    struct transport_proc *p = NULL;
    struct err e = {0};
    assert_int_equal(transport_spawn(tr, argv, NULL, 0, &p, &e), 0);
    long ours = transport_ssh_pgid(p);
    g_pgids[g_npgids++] = ours;
    char rec[512], boot[64] = "";
    FILE *bf = fopen("/proc/sys/kernel/random/boot_id", "r");
    assert_non_null(bf);
    assert_non_null(fgets(boot, sizeof boot, bf));
    fclose(bf);
    boot[strcspn(boot, "\n")] = '\0';
    /* the record of our own group: what the wrapper wrote */
    char pidfile[256];
    snprintf(pidfile, sizeof pidfile, "%s/s0/home/.cache/netsurvey/pids/%ld", g_dir, ours);
    FILE *f = fopen(pidfile, "r");
    assert_non_null(f);
    assert_non_null(fgets(rec, sizeof rec, f));
    fclose(f);
    char want[128];
    snprintf(want, sizeof want, "%ld %llu %s /", ours, start_time((pid_t)ours), boot);
    assert_int_equal(strncmp(rec, want, strlen(want)), 0);
    /* two unrelated processes of the machine (setsid: their own groups) */
    pid_t other[2];
    for (int i = 0; i < 2; i++) {
        other[i] = fork();
        if (other[i] == 0) {
            setsid();
            execlp("sleep", "sleep", "60", (char *)NULL);
            _exit(127);
        }
    }
    clock_sleep_ns(200 * NS_PER_MS);
    /* 0: a stale file with the number but an older start time; 1: its start time, but the
     * program recorded is nsperf, not sleep */
    sh("printf '%d %llu %s /usr/bin/sleep\\n' >%s/s0/home/.cache/netsurvey/pids/%d", (int)other[0],
       start_time(other[0]) - 100, boot, g_dir, (int)other[0]);
    sh("printf '%d %llu %s /root/.cache/netsurvey/nsperf-static-0\\n' "
       ">%s/s0/home/.cache/netsurvey/pids/%d",
       (int)other[1], start_time(other[1]), boot, g_dir, (int)other[1]);
    struct transport_ssh_cleaned c;
    assert_int_equal(transport_ssh_clean(tr, &c, &e), 0);
    assert_int_equal(c.killed, 1);
    assert_int_equal(c.stale, 2);
    assert_int_equal(kill((pid_t)-ours, 0), -1);
    for (int i = 0; i < 2; i++) {
        assert_int_equal(kill(other[i], 0), 0); /* left alone */
        kill(other[i], SIGKILL);
        waitpid(other[i], NULL, 0);
    }
    assert_false(file_exists("%s/s0/home/.cache/netsurvey", g_dir));
    transport_proc_free(p);
    transport_close(tr);
}

struct worker {
    struct transport *tr; /* NULL: open host `which` itself */
    int which;
    const char *deploy; /* or NULL */
    char remote[1024];
    int rc;
    char out[256];
};

static void *
worker_run(void *arg)
{
    struct worker *w = arg;
    struct err e = {0};
    bool own = w->tr == NULL;
    if (own) {
        struct transport_target t = target(w->which, "id_good", NULL);
        w->rc = transport_open(&t, &w->tr, &e);
        if (w->rc != 0)
            return NULL;
    }
    if (w->deploy != NULL)
        w->rc = transport_deploy(w->tr, w->deploy, w->remote, sizeof w->remote, &e);
    for (int i = 0; w->rc == 0 && i < 5; i++) {
        const char *argv[] = {"sh", "-c", "sleep 0.05; echo \"$HOME\"", NULL};
        struct transport_proc *p = NULL;
        w->rc = transport_spawn(w->tr, argv, NULL, 0, &p, &e);
        if (w->rc != 0)
            break;
        struct transport_output o;
        w->rc = transport_wait(p, 1024, 1024, (int64_t)clock_deadline_ms(30000), &o, &e);
        if (w->rc == 0)
            snprintf(w->out, sizeof w->out, "%s", o.out);
        transport_output_release(&o);
        transport_proc_free(p);
    }
    if (own)
        transport_close(w->tr);
    return NULL;
}

/* Hosts opened from several threads at once; two threads deploying the same file to one home
 * at once (the temporary name and rename keep them apart); two threads driving processes of
 * one transport at once. */
static void
test_concurrent(void **state)
{
    (void)state;
    const char *bin = getenv("NS_BINARY_DIR");
    char stat_nsperf[512];
    snprintf(stat_nsperf, sizeof stat_nsperf, "%s/bin/nsperf-static", bin);
    sh("rm -rf %s/s0/home/.cache %s/s2/home/.cache", g_dir, g_dir);
    struct worker w[6] = {{.which = 0, .deploy = stat_nsperf},
                          {.which = 0, .deploy = stat_nsperf},
                          {.which = 1},
                          {.which = 2, .deploy = stat_nsperf}};
    struct transport *shared = open_ok(1);
    w[4].tr = shared;
    w[5].tr = shared;
    pthread_t th[6];
    for (int i = 0; i < 6; i++)
        assert_int_equal(pthread_create(&th[i], NULL, worker_run, &w[i]), 0);
    for (int i = 0; i < 6; i++)
        pthread_join(th[i], NULL);
    transport_close(shared);
    const char *homes[] = {"s0", "s0", "s1", "s2", "s1", "s1"};
    for (int i = 0; i < 6; i++) {
        assert_int_equal(w[i].rc, 0);
        char want[160];
        snprintf(want, sizeof want, "%s/%s/home\n", g_dir, homes[i]);
        assert_string_equal(w[i].out, want);
    }
    assert_string_equal(w[0].remote, w[1].remote);
    char hex[65], rhex[65];
    assert_int_equal(local_sha256(stat_nsperf, hex), 0);
    assert_int_equal(local_sha256(w[0].remote, rhex), 0);
    assert_string_equal(hex, rhex);
    /* no temporary file left behind */
    assert_int_equal(sh("ls -A %s/s0/home/.cache/netsurvey | grep -q tmp", g_dir), 1);
}

int
main(void)
{
    /* sshd's own privilege separation and logins as root on loopback addresses need root; any
     * other user gets ctest's "skipped" (SKIP_RETURN_CODE 77) with the reason, not a failure. */
    if (geteuid() != 0) {
        printf("SKIP: needs root (sshd's on loopback addresses 127.0.0.21-23)\n");
        return 77;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_identity_file, check_groups_gone),
        cmocka_unit_test_teardown(test_wrong_key, check_groups_gone),
        cmocka_unit_test_teardown(test_agent, check_groups_gone),
        cmocka_unit_test_teardown(test_host_keys, check_groups_gone),
        cmocka_unit_test_teardown(test_jump, check_groups_gone),
        cmocka_unit_test_teardown(test_jump_chain, check_groups_gone),
        cmocka_unit_test_teardown(test_config_chain, check_groups_gone),
        cmocka_unit_test_teardown(test_metacharacters, check_groups_gone),
        cmocka_unit_test_teardown(test_token_stdin_and_signal, check_groups_gone),
        cmocka_unit_test_teardown(test_deploy_and_nsperf, check_groups_gone),
        cmocka_unit_test_teardown(test_dropped_session, check_groups_gone),
        cmocka_unit_test_teardown(test_keepalive_drop, check_groups_gone),
        cmocka_unit_test_teardown(test_channel_timeout, check_groups_gone),
        cmocka_unit_test_teardown(test_cancel_connect, check_groups_gone),
        cmocka_unit_test_teardown(test_close_kills_and_clean, check_groups_gone),
        cmocka_unit_test_teardown(test_clean_stale, check_groups_gone),
        cmocka_unit_test_teardown(test_concurrent, check_groups_gone),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
