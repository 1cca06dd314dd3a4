/* shquote.c - POSIX single-quote quoting (see shquote.h). Inside '...' a POSIX shell gives no
 * byte a meaning except the closing quote, so the only escape needed is for ' itself. */
#include "common/shquote.h"

#include <stdlib.h>
#include <string.h>

size_t
shquote_len(const char *s)
{
    size_t n = 3; /* the two quotes and the NUL */
    for (; *s != '\0'; s++)
        n += *s == '\'' ? 4 : 1;
    return n;
}

long
shquote_arg(const char *s, char *out, size_t len)
{
    if (len == 0)
        return -1;
    if (shquote_len(s) > len) {
        out[0] = '\0';
        return -1;
    }
    size_t o = 0;
    out[o++] = '\'';
    for (; *s != '\0'; s++) {
        if (*s == '\'') {
            memcpy(out + o, "'\\''", 4); /* close, escaped quote, reopen */
            o += 4;
        } else {
            out[o++] = *s;
        }
    }
    out[o++] = '\'';
    out[o] = '\0';
    return (long)o;
}

char *
shquote_argv(const char *prefix, const char *const *argv)
{
    size_t plen = prefix != NULL ? strlen(prefix) : 0;
    size_t total = plen + 1;
    for (size_t i = 0; argv[i] != NULL; i++)
        total += shquote_len(argv[i]) + 1;
    char *cmd = malloc(total);
    if (cmd == NULL)
        return NULL;
    size_t o = plen;
    if (plen > 0)
        memcpy(cmd, prefix, plen);
    for (size_t i = 0; argv[i] != NULL; i++) {
        if (o > 0)
            cmd[o++] = ' ';
        long n = shquote_arg(argv[i], cmd + o, total - o);
        if (n < 0) { /* cannot happen: total was sized above */
            free(cmd);
            return NULL;
        }
        o += (size_t)n;
    }
    cmd[o] = '\0';
    return cmd;
}

long
shquote_word(const char *s, char *out, size_t len)
{
    size_t n = strlen(s);
    if (n == 0 || strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
                            "@%+=:,./_-") != n)
        return shquote_arg(s, out, len);
    if (n + 1 > len) {
        if (len > 0)
            out[0] = '\0';
        return -1;
    }
    memcpy(out, s, n + 1);
    return (long)n;
}
