/* sha256.h - SHA-256 (FIPS 180-4) and HMAC-SHA-256 (RFC 2104). Hand-written so that the static
 * nsperf needs no crypto library; verified against the FIPS and RFC 4231 vectors in tests. */
#ifndef NS_SHA256_H
#define NS_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define SHA256_LEN 32

struct sha256 {
    uint32_t h[8];
    uint64_t len; /* bytes hashed so far */
    uint8_t buf[64];
    size_t fill;
};

void sha256_init(struct sha256 *c);
void sha256_update(struct sha256 *c, const void *data, size_t len);
void sha256_final(struct sha256 *c, uint8_t out[SHA256_LEN]);
void sha256(const void *data, size_t len, uint8_t out[SHA256_LEN]);

void sha256_hmac(const void *key, size_t keylen, const void *msg, size_t msglen,
                 uint8_t out[SHA256_LEN]);

/* Lower-case hex of n bytes into out (2n + 1 bytes). Returns out. */
char *sha256_hex_encode(const uint8_t *in, size_t n, char *out);
/* Decode 2n hex digits into n bytes; returns 0 or -1 on a bad digit or length. */
int sha256_hex_decode(const char *in, uint8_t *out, size_t n);

/* Constant-time comparison: 0 when equal. */
int sha256_ct_memcmp(const void *a, const void *b, size_t n);

/* Fill buf with n bytes from getrandom(2). Returns 0 or -1. */
int sha256_random_bytes(void *buf, size_t n);

#endif
