/* transport_sshconfig_expand.c - the expansions ssh applies to config values: %-tokens and
 * ${VAR} (misc.c vdollar_percent_expand), "~" (misc.c tilde_expand, which reads the passwd
 * home, never $HOME), and the SHA-1 behind %C (ssh_connection_hash). */
#include "transport/transport_sshconfig_int.h"

#include <pwd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "transport/transport_sshconfig.h"

/* A bounded output buffer. */
struct obuf {
    char b[TRANSPORT_SSHCONFIG_VALUE_MAX + 1];
    size_t n;
    bool over;
};

static void
obuf_put(struct obuf *o, const char *s, size_t len)
{
    if (o->n + len > TRANSPORT_SSHCONFIG_VALUE_MAX) {
        o->over = true;
        return;
    }
    memcpy(o->b + o->n, s, len);
    o->n += len;
}

/* ${VAR} at *s (just past "${"); *s moved past '}'. */
static int
expand_var(const char **s, struct obuf *o, char *why, size_t whylen)
{
    const char *end = strchr(*s, '}');
    if (end == NULL)
        return snprintf(why, whylen, "environment variable '%s' lacks its closing '}'", *s), -1;
    size_t len = (size_t)(end - *s);
    if (len == 0)
        return snprintf(why, whylen, "zero-length environment variable"), -1;
    char name[256];
    if (len >= sizeof name)
        return snprintf(why, whylen, "environment variable name too long"), -1;
    memcpy(name, *s, len);
    name[len] = '\0';
    const char *val = getenv(name);
    if (val == NULL)
        return snprintf(why, whylen, "environment variable ${%s} is not set", name), -1;
    obuf_put(o, val, strlen(val));
    *s = end + 1;
    return 0;
}

static const char *
token_value(const struct sc_token *t, size_t nt, char key)
{
    for (size_t i = 0; i < nt; i++)
        if (t[i].key == key)
            return t[i].val;
    return NULL;
}

int
sc_expand(const char *s, bool dollar, bool percent, const struct sc_token *t, size_t nt, char **out,
          char *why, size_t whylen)
{
    struct obuf *o = calloc(1, sizeof *o);
    *out = NULL;
    if (o == NULL)
        return snprintf(why, whylen, "out of memory"), -1;
    int rc = 0;
    while (*s != '\0' && rc == 0) {
        if (dollar && s[0] == '$' && s[1] == '{') {
            s += 2;
            rc = expand_var(&s, o, why, whylen);
            continue;
        }
        if (!percent || *s != '%' || s[1] == '%') {
            obuf_put(o, s, 1);
            s += percent && *s == '%' ? 2 : 1;
            continue;
        }
        const char *val = s[1] == '\0' ? NULL : token_value(t, nt, s[1]);
        if (val == NULL) {
            if (s[1] == '\0')
                snprintf(why, whylen, "'%%' at the end (invalid format)");
            else
                snprintf(why, whylen, "unknown token %%%c", s[1]);
            rc = -1;
            break;
        }
        obuf_put(o, val, strlen(val));
        s += 2;
    }
    if (rc == 0 && o->over)
        rc = -1, snprintf(why, whylen, "longer than %d bytes", TRANSPORT_SSHCONFIG_VALUE_MAX);
    if (rc == 0 && (*out = strndup(o->b, o->n)) == NULL)
        rc = -1, snprintf(why, whylen, "out of memory");
    free(o);
    return rc;
}

/* The home of user (getpwnam_r) into buf. */
static int
user_home(const char *user, char *buf, size_t len)
{
    struct passwd pw, *res = NULL;
    char tmp[4096];
    if (getpwnam_r(user, &pw, tmp, sizeof tmp, &res) != 0 || res == NULL)
        return -1;
    if ((size_t)snprintf(buf, len, "%s", pw.pw_dir) >= len)
        return -1;
    return 0;
}

int
sc_tilde(const char *s, const char *home, char **out, char *why, size_t whylen)
{
    *out = NULL;
    if (*s != '~') {
        *out = strdup(s);
        return *out != NULL ? 0 : (snprintf(why, whylen, "out of memory"), -1);
    }
    const char *rest = s + 1, *path = NULL;
    char user[256] = "", dir[4096];
    if (*rest == '/' || *rest == '\0') {
        path = rest + strspn(rest, "/");
    } else {
        const char *slash = strchr(rest, '/');
        size_t ulen = slash != NULL ? (size_t)(slash - rest) : strlen(rest);
        if (ulen >= sizeof user)
            return snprintf(why, whylen, "user name too long in '%s'", s), -1;
        memcpy(user, rest, ulen);
        user[ulen] = '\0';
        path = slash != NULL ? slash + 1 + strspn(slash + 1, "/") : "";
    }
    if (user[0] != '\0' && user_home(user, dir, sizeof dir) != 0)
        return snprintf(why, whylen, "no such user %s (in '%s')", user, s), -1;
    const char *h = user[0] != '\0' ? dir : home;
    size_t hl = strlen(h);
    bool slash = hl == 0 || h[hl - 1] != '/';
    size_t need = hl + (slash ? 1 : 0) + strlen(path) + 1;
    if (need > 4096) /* the expansion must stay under PATH_MAX */
        return snprintf(why, whylen, "path too long"), -1;
    if ((*out = malloc(need)) == NULL)
        return snprintf(why, whylen, "out of memory"), -1;
    snprintf(*out, need, "%s%s%s", h, slash ? "/" : "", path);
    return 0;
}

/* --- SHA-1 (FIPS 180-4), for %C alone ------------------------------------------------------ */

struct sha1 {
    uint32_t h[5];
    uint64_t len;
    unsigned char blk[64];
    size_t used;
};

static uint32_t
rol(uint32_t x, unsigned n)
{
    return x << n | x >> (32 - n);
}

static uint32_t
sha1_f(unsigned i, uint32_t b, uint32_t c, uint32_t d)
{
    if (i < 20)
        return (b & c) | (~b & d);
    if (i < 40 || i >= 60)
        return b ^ c ^ d;
    return (b & c) | (b & d) | (c & d);
}

static void
sha1_block(struct sha1 *s, const unsigned char *p)
{
    static const uint32_t k[4] = {0x5a827999, 0x6ed9eba1, 0x8f1bbcdc, 0xca62c1d6};
    uint32_t w[80], a = s->h[0], b = s->h[1], c = s->h[2], d = s->h[3], e = s->h[4];
    for (unsigned i = 0; i < 16; i++)
        w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
               (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
    for (unsigned i = 16; i < 80; i++)
        w[i] = rol(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
    for (unsigned i = 0; i < 80; i++) {
        uint32_t t = rol(a, 5) + sha1_f(i, b, c, d) + e + k[i / 20] + w[i];
        e = d;
        d = c;
        c = rol(b, 30);
        b = a;
        a = t;
    }
    s->h[0] += a;
    s->h[1] += b;
    s->h[2] += c;
    s->h[3] += d;
    s->h[4] += e;
}

static void
sha1_update(struct sha1 *s, const unsigned char *p, size_t n)
{
    s->len += n;
    while (n > 0) {
        size_t take = 64 - s->used < n ? 64 - s->used : n;
        memcpy(s->blk + s->used, p, take);
        s->used += take;
        p += take;
        n -= take;
        if (s->used == 64) {
            sha1_block(s, s->blk);
            s->used = 0;
        }
    }
}

void
sc_sha1_hex(const void *data, size_t len, char out[41])
{
    struct sha1 s = {.h = {0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0}};
    sha1_update(&s, data, len);
    uint64_t bits = s.len * 8;
    unsigned char pad[72] = {0x80};
    size_t padlen = (s.used < 56 ? 56 : 120) - s.used;
    for (unsigned i = 0; i < 8; i++)
        pad[padlen + i] = (unsigned char)(bits >> (56 - 8 * i));
    sha1_update(&s, pad, padlen + 8);
    for (unsigned i = 0; i < 20; i++)
        snprintf(out + 2 * i, 3, "%02x", (unsigned)(s.h[i / 4] >> (24 - 8 * (i % 4))) & 0xffu);
}
