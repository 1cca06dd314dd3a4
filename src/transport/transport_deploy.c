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
