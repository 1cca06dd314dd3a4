/* The `ssh -G` runner (common/sshg.h) against stand-in ssh programs (shell scripts written by
 * the test): the argument vector as given (no shell: metacharacters arrive as bytes), stdin
 * /dev/null, the answer read into lines, one run per distinct vector (in-flight runs awaited,
 * not repeated, by threads asking at once), a refusal in ssh's words, notes kept one a line, the
 * program from $NETSURVEY_SSH or PATH and the install hint when there is none, the timeout and
 * the output cap (the program killed, by its pid). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <ftw.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/errors.h"
#include "common/sshg.h"

static char g_dir[64];

/* The program `name` in the test's folder with body after "#!/bin/sh"; its path into path. */
static void
script(const char *name, const char *body, char *path, size_t len)
{
    snprintf(path, len, "%s/%s", g_dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "#!/bin/sh\n%s\n", body);
    fclose(f);
    assert_int_equal(chmod(path, 0755), 0);
}

/* Lines in the file at path (0 when it does not exist). */
static int
lines_in(const char *path)
{
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return 0;
    int n = 0, c;
    while ((c = fgetc(f)) != EOF)
        n += c == '\n';
    fclose(f);
    return n;
}

static struct sshg *
new_with(const char *prog)
{
    struct sshg *g = sshg_new();
    assert_non_null(g);
    assert_int_equal(sshg_set_program(g, prog), 0);
    return g;
}

/* Every argument one word of ssh's argv, unchanged by any shell; the answer's lines read. */
static void
test_argv_and_answer(void **state)
{
    (void)state;
    char prog[128], body[512], log[128];
    snprintf(log, sizeof log, "%s/argv", g_dir);
    snprintf(body, sizeof body,
             "for a in \"$@\"; do printf '[%%s]' \"$a\"; done >'%s'\n"
             "if read -r x; then echo 'stdin had data'; fi\n"
             "printf 'hostname h.example\\nidentityfile ~/a\\nidentityfile ~/b c\\nflag\\n"
             "identityfile ~/d\\n'",
             log);
    script("answer", body, prog, sizeof prog);
    struct sshg *g = new_with(prog);
    char marker[256];
    snprintf(marker, sizeof marker, "$(touch %s/pwned);`touch %s/pwned`", g_dir, g_dir);
    const char *args[] = {"-F", "/a b/'c'", "-o", marker, NULL};
    const struct sshg_answer *a = NULL;
    struct err e = {0};
    assert_int_equal(sshg_query(g, args, "dest host", &a, &e), 0);
    char want[512], got[512] = "";
    snprintf(want, sizeof want, "[-G][-T][-F][/a b/'c'][-o][%s][--][dest host]", marker);
    FILE *f = fopen(log, "r");
    assert_non_null(f);
    assert_non_null(fgets(got, sizeof got, f));
    fclose(f);
    assert_string_equal(got, want);
    char pwned[128];
    snprintf(pwned, sizeof pwned, "%s/pwned", g_dir);
    assert_int_not_equal(access(pwned, F_OK), 0);
    /* the lines, in order; stdin was empty (/dev/null) */
    assert_int_equal(a->n, 5);
    assert_string_equal(sshg_value(a, "hostname"), "h.example");
    assert_null(sshg_value(a, "user"));
    assert_string_equal(sshg_value(a, "flag"), "");
    size_t pos = 0;
    assert_string_equal(sshg_next(a, "identityfile", &pos), "~/a");
    assert_string_equal(sshg_next(a, "identityfile", &pos), "~/b c");
    assert_string_equal(sshg_next(a, "identityfile", &pos), "~/d");
    assert_null(sshg_next(a, "identityfile", &pos));
    assert_null(a->notes);
    sshg_free(g);
}

/* One run per distinct vector, however many threads ask at once. */
struct many {
    struct sshg *g;
    atomic_int failed;
};

static void
ask_one(void *arg, size_t i)
{
    struct many *m = arg;
    char dest[16];
    snprintf(dest, sizeof dest, "h%zu", i % 10);
    const struct sshg_answer *a = NULL;
    struct err e = {0};
    if (sshg_query(m->g, NULL, dest, &a, &e) != 0 || strcmp(sshg_value(a, "hostname"), dest) != 0)
        atomic_store(&m->failed, 1);
}

static void
test_once_per_vector(void **state)
{
    (void)state;
    char prog[128], body[512], log[128];
    snprintf(log, sizeof log, "%s/runs", g_dir);
    unlink(log);
    /* slow enough that threads asking for one destination meet while it runs */
    snprintf(body, sizeof body, "echo \"$4\" >>'%s'\nsleep 0.05\nprintf 'hostname %%s\\n' \"$4\"",
             log);
    script("counted", body, prog, sizeof prog);
    struct many m = {.g = new_with(prog)};
    atomic_init(&m.failed, 0);
    sshg_parallel(60, ask_one, &m);
    assert_int_equal(atomic_load(&m.failed), 0);
    assert_int_equal(lines_in(log), 10);
    /* asked again: the cache answers */
    sshg_parallel(20, ask_one, &m);
    assert_int_equal(lines_in(log), 10);
    /* another vector is another run */
    const char *args[] = {"-p", "2", NULL};
    const struct sshg_answer *a = NULL;
    struct err e = {0};
    assert_int_equal(sshg_query(m.g, args, "h1", &a, &e), 0);
    assert_int_equal(lines_in(log), 11);
    sshg_free(m.g);
}

/* sshg_parallel calls fn once for every index, also for fewer items than threads. */
static void
count_call(void *arg, size_t i)
{
    atomic_int *seen = arg;
    atomic_fetch_add(&seen[i], 1);
}

static void
test_parallel_each_once(void **state)
{
    (void)state;
    for (size_t n = 0; n < 40; n += 3) {
        atomic_int seen[40];
        for (size_t i = 0; i < 40; i++)
            atomic_init(&seen[i], 0);
        sshg_parallel(n, count_call, seen);
        for (size_t i = 0; i < 40; i++)
            assert_int_equal(atomic_load(&seen[i]), i < n ? 1 : 0);
    }
}

/* Exit 255 is a refusal, told in ssh's words; its stderr lines joined. Accepted, ssh's notes are
 * kept one a line. Both cached. */
static void
test_refusal_and_notes(void **state)
{
    (void)state;
    char prog[128];
    script(
        "refuse",
        "if [ \"$4\" = bad ]; then\n"
        "  printf '/c line 3: Bad configuration option: foo\\r\\n/c: terminating, 1 bad "
        "configuration options\\r\\n' >&2; exit 255\nfi\n"
        "printf '/c line 9: Unsupported option \"rsaauthentication\"\\r\\n\\nWarning: x\\n' >&2\n"
        "echo hostname ok",
        prog, sizeof prog);
    struct sshg *g = new_with(prog);
    const struct sshg_answer *a = NULL;
    struct err e = {0};
    for (int k = 0; k < 2; k++) {
        assert_int_equal(sshg_query(g, NULL, "bad", &a, &e), NS_EPARSE);
        assert_null(a);
        assert_string_equal(e.msg, "ssh -G: /c line 3: Bad configuration option: foo; /c: "
                                   "terminating, 1 bad configuration options");
    }
    assert_int_equal(sshg_query(g, NULL, "good", &a, &e), 0);
    assert_string_equal(a->notes, "/c line 9: Unsupported option \"rsaauthentication\"\n"
                                  "Warning: x");
    sshg_free(g);
    /* another exit status is no refusal of the config */
    script("crash", "exit 3", prog, sizeof prog);
    g = new_with(prog);
    assert_int_equal(sshg_query(g, NULL, "x", &a, &e), NS_EIO);
    assert_string_equal(e.msg, "ssh -G: exit status 3");
    sshg_free(g);
}

/* The program: $NETSURVEY_SSH, else PATH's ssh; none names the package to install. */
static void
test_program_and_install_hint(void **state)
{
    (void)state;
    char prog[128], path[128];
    snprintf(path, sizeof path, "%s/bin", g_dir);
    mkdir(path, 0755);
    const char *old = getenv("PATH");
    char *saved = old != NULL ? strdup(old) : NULL;
    setenv("PATH", path, 1);
    unsetenv(SSHG_PROGRAM_ENV);
    struct sshg *g = sshg_new();
    assert_non_null(g);
    const struct sshg_answer *a = NULL;
    struct err e = {0};
    assert_int_equal(sshg_query(g, NULL, "h", &a, &e), NS_ENOTFOUND);
    assert_string_equal(e.msg, "ssh -G: ssh not found: install the openssh-client package");
    sshg_free(g);
    /* PATH's ssh */
    script("bin/ssh", "echo hostname from-path", prog, sizeof prog);
    g = sshg_new();
    assert_int_equal(sshg_query(g, NULL, "h", &a, &e), 0);
    assert_string_equal(sshg_value(a, "hostname"), "from-path");
    sshg_free(g);
    /* $NETSURVEY_SSH beats it */
    script("other-ssh", "echo hostname from-env", prog, sizeof prog);
    setenv(SSHG_PROGRAM_ENV, prog, 1);
    g = sshg_new();
    assert_int_equal(sshg_query(g, NULL, "h", &a, &e), 0);
    assert_string_equal(sshg_value(a, "hostname"), "from-env");
    sshg_free(g);
    setenv(SSHG_PROGRAM_ENV, "/nonexistent/ssh", 1);
    g = sshg_new();
    assert_int_equal(sshg_query(g, NULL, "h", &a, &e), NS_ENOTFOUND);
    assert_string_equal(e.msg, "ssh -G: /nonexistent/ssh not found (named by $NETSURVEY_SSH)");
    sshg_free(g);
    unsetenv(SSHG_PROGRAM_ENV);
    if (saved != NULL)
        setenv("PATH", saved, 1);
    free(saved);
}

/* A program that does not answer in time, or prints past the cap, is killed. */
static void
test_timeout_and_cap(void **state)
{
    (void)state;
    char prog[128], body[256], pidfile[128];
    snprintf(pidfile, sizeof pidfile, "%s/pid", g_dir);
    snprintf(body, sizeof body, "echo $$ >'%s'\nexec sleep 30", pidfile);
    script("hang", body, prog, sizeof prog);
    struct sshg *g = new_with(prog);
    sshg_set_timeout(g, 0.3);
    const struct sshg_answer *a = NULL;
    struct err e = {0};
    assert_int_equal(sshg_query(g, NULL, "h", &a, &e), NS_ETIMEDOUT);
    assert_non_null(strstr(e.msg, "no answer"));
    FILE *f = fopen(pidfile, "r");
    assert_non_null(f);
    long pid = 0;
    assert_int_equal(fscanf(f, "%ld", &pid), 1);
    fclose(f);
    assert_int_not_equal(kill((pid_t)pid, 0), 0); /* killed and reaped */
    sshg_free(g);
    snprintf(body, sizeof body, "yes hostname-and-more | head -c %d", SSHG_OUT_MAX + 1);
    script("chatty", body, prog, sizeof prog);
    g = new_with(prog);
    assert_int_equal(sshg_query(g, NULL, "h", &a, &e), NS_ETOOBIG);
    assert_non_null(strstr(e.msg, "printed more than 256 KiB on stdout"));
    sshg_free(g);
    /* exactly at the cap is fine */
    snprintf(body, sizeof body, "yes hostname-and-more | head -c %d", SSHG_OUT_MAX);
    script("full", body, prog, sizeof prog);
    g = new_with(prog);
    assert_int_equal(sshg_query(g, NULL, "h", &a, &e), 0);
    sshg_free(g);
}

static void
test_too_many_args(void **state)
{
    (void)state;
    const char *args[SSHG_ARGS_MAX + 2];
    for (size_t i = 0; i <= SSHG_ARGS_MAX; i++)
        args[i] = "-v";
    args[SSHG_ARGS_MAX + 1] = NULL;
    struct sshg *g = sshg_new();
    const struct sshg_answer *a = NULL;
    struct err e = {0};
    assert_int_equal(sshg_query(g, args, "h", &a, &e), NS_EINVAL);
    sshg_free(g);
}

static int
rm_one(const char *p, const struct stat *st, int flag, struct FTW *f)
{
    (void)st;
    (void)flag;
    (void)f;
    return remove(p);
}

static int
setup(void **state)
{
    (void)state;
    snprintf(g_dir, sizeof g_dir, "/tmp/ns-sshg-XXXXXX");
    return mkdtemp(g_dir) != NULL ? 0 : -1;
}

static int
teardown(void **state)
{
    (void)state;
    nftw(g_dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
    return 0;
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_argv_and_answer),
        cmocka_unit_test(test_once_per_vector),
        cmocka_unit_test(test_parallel_each_once),
        cmocka_unit_test(test_refusal_and_notes),
        cmocka_unit_test(test_program_and_install_hint),
        cmocka_unit_test(test_timeout_and_cap),
        cmocka_unit_test(test_too_many_args),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
