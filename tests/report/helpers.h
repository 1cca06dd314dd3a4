/* helpers.h - temporary directories and files for the report tests (static inline: each test
 * uses a subset). */
#ifndef NS_TEST_REPORT_HELPERS_H
#define NS_TEST_REPORT_HELPERS_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A fresh directory under TMPDIR (or /tmp); caller frees. */
static inline char *
th_tempdir(const char *tag)
{
    const char *base = getenv("TMPDIR");
    char tmpl[4096];
    snprintf(tmpl, sizeof tmpl, "%s/ns-report-%s-XXXXXX", base && *base ? base : "/tmp", tag);
    char *d = mkdtemp(tmpl);
    return d ? strdup(d) : NULL;
}

/* rm -r path (only what the tests made: regular files and directories). */
static inline void
th_rmtree(const char *path)
{
    DIR *d = opendir(path);
    if (d != NULL) {
        struct dirent *de;
        while ((de = readdir(d)) != NULL) {
            if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
                continue;
            char sub[8192];
            if (snprintf(sub, sizeof sub, "%s/%s", path, de->d_name) >= (int)sizeof sub)
                continue;
            struct stat st;
            if (lstat(sub, &st) == 0 && S_ISDIR(st.st_mode))
                th_rmtree(sub);
            else
                unlink(sub);
        }
        closedir(d);
    }
    rmdir(path);
}

static inline int
th_write(const char *dir, const char *name, const char *text)
{
    char p[4096];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    if (f == NULL)
        return -1;
    fputs(text, f);
    return fclose(f);
}

/* Whole file or NULL; caller frees. */
static inline char *
th_read(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)n + 1);
    if (b != NULL && fread(b, 1, (size_t)n, f) != (size_t)n) {
        free(b);
        b = NULL;
    }
    fclose(f);
    if (b != NULL) {
        b[n] = '\0';
        if (len)
            *len = (size_t)n;
    }
    return b;
}

/* The source tree (ctest sets NS_SOURCE_DIR). */
static inline const char *
th_srcdir(void)
{
    const char *s = getenv("NS_SOURCE_DIR");
    return s ? s : ".";
}

#endif
