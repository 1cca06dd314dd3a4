/* transport_deploy.h - what the ssh transport checks on this machine before it uploads a program:
 * the bytes, their SHA-256 (the content address on the host), that the program is statically
 * linked (it must run on a bare VM), and which `uname -m` it was built for. */
#ifndef NS_TRANSPORT_TRANSPORT_DEPLOY_H
#define NS_TRANSPORT_TRANSPORT_DEPLOY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/errors.h"

#define TRANSPORT_DEPLOY_MAX_SIZE (64u << 20) /* cap on what is read into memory */

struct transport_deploy_file {
    uint8_t *data; /* the whole file, owned */
    size_t len;
    char sha256_hex[65];
    const char *machine; /* `uname -m` spelling ("x86_64", "aarch64"), static storage */
    bool dynamic;        /* has a PT_INTERP program header */
};

/* Read and inspect the ELF executable at path. NS_EINVAL when it is not a 64-bit ELF
 * executable. Does not refuse dynamic ones itself (the caller decides, see dynamic). */
int transport_deploy_load(const char *path, struct transport_deploy_file *f, struct err *e);

/* Free f's buffer; safe on a zeroed struct. */
void transport_deploy_release(struct transport_deploy_file *f);

/* The file name the ssh transport caches local_path's bytes under on a host, in
 * ~/.cache/netsurvey: "<basename>-<sha256 hex>" (content-addressed, so that a changed build is a
 * new file and the same bytes are uploaded once). Into out (len bytes, NAME_MAX + 1 is enough). */
void transport_deploy_cache_name(const char *local_path, const char *sha256_hex, char *out,
                                 size_t len);

/* Whether a `uname -m` answer runs binaries built for machine ("amd64" = "x86_64"...). */
bool transport_deploy_arch_matches(const char *machine, const char *uname_m);

/* --- the builds of one program, one per architecture ---------------------------------------- */

#define TRANSPORT_DEPLOY_MAX_BUILDS 4

/* The builds of one program for different architectures, each loaded as above: the build makes
 * nsperf-static for its own machine and nsperf-static-ARCH for each other one it has a cross
 * compiler for (cmake/endpoints.cmake); a host gets the one for its `uname -m`. */
struct transport_deploy_set {
    struct transport_deploy_file f[TRANSPORT_DEPLOY_MAX_BUILDS];
    const char *path[TRANSPORT_DEPLOY_MAX_BUILDS]; /* borrowed from the caller's list */
    size_t n;
};

/* Load every path of a NULL-terminated list (1 to TRANSPORT_DEPLOY_MAX_BUILDS). NS_EINVAL (s
 * released) when one is not a 64-bit ELF executable, is dynamically linked (it would not run on
 * a bare host), or is for the same architecture as another; NS_EIO when one cannot be read. */
int transport_deploy_set_load(const char *const *paths, struct transport_deploy_set *s,
                              struct err *e);

/* Free every build's buffer; safe on a zeroed struct. */
void transport_deploy_set_release(struct transport_deploy_set *s);

/* The index of the build that runs where `uname -m` says uname_m, or -1 when there is none. */
int transport_deploy_set_find(const struct transport_deploy_set *s, const char *uname_m);

/* Why a host whose `uname -m` is uname_m gets none of s, naming the build that is missing and
 * how one is made, into buf (len bytes): "aarch64 host, but there is no aarch64 build of
 * nsperf-static (nsperf-static-aarch64: the build makes it where gcc-aarch64-linux-gnu is
 * installed)". */
void transport_deploy_set_missing(const struct transport_deploy_set *s, const char *uname_m,
                                  char *buf, size_t len);

#endif
