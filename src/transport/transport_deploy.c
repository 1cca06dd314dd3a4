/* transport_deploy.c - local checks on a program before it is deployed (see transport_deploy.h). */
#include "transport/transport_deploy.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/sha256.h"

static const char *
elf_machine_name(uint16_t m)
{
    switch (m) {
    case EM_X86_64:
        return "x86_64";
    case EM_AARCH64:
        return "aarch64";
    case EM_RISCV:
        return "riscv64";
    case EM_PPC64:
        return "ppc64le";
    case EM_S390:
        return "s390x";
    default:
        return "unknown";
    }
}

static int
read_all(const char *path, struct transport_deploy_file *f, struct err *e)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return err_sys(e, NS_EIO, errno, "cannot open '%s'", path);
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0 ||
        (uint64_t)st.st_size > TRANSPORT_DEPLOY_MAX_SIZE) {
        close(fd);
        return err_set(e, NS_EINVAL, "'%s' is not a regular file of at most %u bytes", path,
                       TRANSPORT_DEPLOY_MAX_SIZE);
    }
    f->len = (size_t)st.st_size;
    f->data = malloc(f->len);
    if (f->data == NULL) {
        close(fd);
        return err_set(e, NS_ENOMEM, "out of memory reading '%s'", path);
    }
    size_t got = 0;
    while (got < f->len) {
        ssize_t n = read(fd, f->data + got, f->len - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            int saved = n < 0 ? errno : EIO;
            close(fd);
            return err_sys(e, NS_EIO, saved, "cannot read '%s'", path);
        }
        got += (size_t)n;
    }
    close(fd);
    return 0;
}

static int
inspect_elf(const char *path, struct transport_deploy_file *f, struct err *e)
{
    Elf64_Ehdr eh;
    if (f->len < sizeof eh)
        return err_set(e, NS_EINVAL, "'%s' is not an ELF executable", path);
    memcpy(&eh, f->data, sizeof eh);
    if (memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
        eh.e_ident[EI_DATA] != ELFDATA2LSB)
        return err_set(e, NS_EINVAL, "'%s' is not a 64-bit little-endian ELF executable", path);
    if (eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phoff > f->len ||
        (uint64_t)eh.e_phnum * sizeof(Elf64_Phdr) > f->len - eh.e_phoff)
        return err_set(e, NS_EINVAL, "'%s': bad ELF program headers", path);
    f->machine = elf_machine_name(eh.e_machine);
    f->dynamic = false;
    for (size_t i = 0; i < eh.e_phnum; i++) {
        Elf64_Phdr ph;
        memcpy(&ph, f->data + eh.e_phoff + i * sizeof ph, sizeof ph);
        if (ph.p_type == PT_INTERP)
            f->dynamic = true;
    }
    return 0;
}

int
transport_deploy_load(const char *path, struct transport_deploy_file *f, struct err *e)
{
    memset(f, 0, sizeof *f);
    int rc = read_all(path, f, e);
    if (rc == 0)
        rc = inspect_elf(path, f, e);
    if (rc != 0) {
        transport_deploy_release(f);
        return rc;
    }
    uint8_t digest[SHA256_LEN];
    sha256(f->data, f->len, digest);
    sha256_hex_encode(digest, SHA256_LEN, f->sha256_hex);
    return 0;
}

void
transport_deploy_release(struct transport_deploy_file *f)
{
    free(f->data);
    f->data = NULL;
    f->len = 0;
}

void
transport_deploy_cache_name(const char *local_path, const char *sha256_hex, char *out, size_t len)
{
    const char *base = strrchr(local_path, '/');
    base = base != NULL ? base + 1 : local_path;
    snprintf(out, len, "%.150s-%s", base, sha256_hex);
}

bool
transport_deploy_arch_matches(const char *machine, const char *uname_m)
{
    if (strcmp(machine, uname_m) == 0)
        return true;
    if (strcmp(machine, "x86_64") == 0)
        return strcmp(uname_m, "amd64") == 0;
    if (strcmp(machine, "aarch64") == 0)
        return strcmp(uname_m, "arm64") == 0;
    return false;
}

/* --- the builds of one program, one per architecture ---------------------------------------- */

void
transport_deploy_set_release(struct transport_deploy_set *s)
{
    for (size_t i = 0; i < s->n; i++)
        transport_deploy_release(&s->f[i]);
    s->n = 0;
}

static int
set_add(struct transport_deploy_set *s, const char *path, struct err *e)
{
    struct transport_deploy_file *f = &s->f[s->n];
    int rc = transport_deploy_load(path, f, e);
    if (rc != 0)
        return rc;
    s->path[s->n++] = path;
    if (f->dynamic)
        return err_set(e, NS_EINVAL,
                       "'%s' is dynamically linked and would not run on a bare host; deploy "
                       "the static one, nsperf-static, which every build makes beside netsurvey "
                       "(build/<preset>/bin/nsperf-static)",
                       path);
    for (size_t i = 0; i + 1 < s->n; i++)
        if (strcmp(s->f[i].machine, f->machine) == 0)
            return err_set(e, NS_EINVAL, "'%s' and '%s' are both built for %s: give one of them",
                           s->path[i], path, f->machine);
    return 0;
}

int
transport_deploy_set_load(const char *const *paths, struct transport_deploy_set *s, struct err *e)
{
    memset(s, 0, sizeof *s);
    int rc = 0;
    size_t n = 0;
    while (paths != NULL && paths[n] != NULL)
        n++;
    if (n == 0 || n > TRANSPORT_DEPLOY_MAX_BUILDS)
        rc = err_set(e, NS_EINVAL, "%zu builds of the program to deploy: give 1 to %d", n,
                     TRANSPORT_DEPLOY_MAX_BUILDS);
    for (size_t i = 0; rc == 0 && i < n; i++)
        rc = set_add(s, paths[i], e);
    if (rc != 0)
        transport_deploy_set_release(s);
    return rc;
}

int
transport_deploy_set_find(const struct transport_deploy_set *s, const char *uname_m)
{
    for (size_t i = 0; i < s->n; i++)
        if (transport_deploy_arch_matches(s->f[i].machine, uname_m))
            return (int)i;
    return -1;
}

void
transport_deploy_set_missing(const struct transport_deploy_set *s, const char *uname_m, char *buf,
                             size_t len)
{
    /* the program's name: the first build's, without a "-ARCH" of the cross builds */
    const char *base = s->n > 0 ? strrchr(s->path[0], '/') : NULL;
    base = base != NULL ? base + 1 : s->n > 0 ? s->path[0] : "nsperf-static";
    size_t blen = strlen(base), mlen = s->n > 0 ? strlen(s->f[0].machine) : 0;
    if (mlen > 0 && blen > mlen + 1 && base[blen - mlen - 1] == '-' &&
        strcmp(base + blen - mlen, s->f[0].machine) == 0)
        blen -= mlen + 1;
    /* Debian's cross compiler for it: gcc-aarch64-linux-gnu, gcc-x86-64-linux-gnu */
    char gcc[80];
    snprintf(gcc, sizeof gcc, "gcc-%.32s-linux-gnu", uname_m);
    for (char *p = gcc; *p != '\0'; p++)
        if (*p == '_')
            *p = '-';
    snprintf(buf, len,
             "%s host, but there is no %s build of %.*s (%.*s-%s: the build makes it where %s "
             "is installed)",
             uname_m, uname_m, (int)blen, base, (int)blen, base, uname_m, gcc);
}
