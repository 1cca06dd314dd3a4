/* transport_sshconfig_text.c - OpenSSH 9.2's lexing, matching and value parsing (misc.c,
 * match.c), ported to keep its exact outcomes: a config means to netsurvey what it means to ssh
 * only if it is split into the same words. See transport_sshconfig_int.h. */
#include "common/array.h"
#include "transport/transport_sshconfig_int.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#define SC_WS " \t\r\n"

int
sc_strv_push(struct sc_strv *sv, const char *s, size_t len)
{
    if (len == (size_t)-1)
        len = strlen(s);
    if (ARRAY_GROW(&sv->v, &sv->cap, sv->n + 2) != 0) /* and the NULL that ends it */
        return -1;
    char *c = strndup(s, len);
    if (c == NULL)
        return -1;
    sv->v[sv->n++] = c;
    sv->v[sv->n] = NULL;
    return 0;
}

void
sc_strv_release(struct sc_strv *sv)
{
    for (size_t i = 0; i < sv->n; i++)
        free(sv->v[i]);
    free(sv->v);
    sv->v = NULL;
    sv->n = sv->cap = 0;
}

/* --- lexing ------------------------------------------------------------------------------- */

char *
sc_strdelim(char **s)
{
    if (*s == NULL)
        return NULL;
    char *old = *s;
    *s = strpbrk(*s, SC_WS "\"=");
    if (*s == NULL)
        return old;
    if (**s == '"') {
        memmove(*s, *s + 1, strlen(*s)); /* the NUL too */
        if ((*s = strpbrk(*s, "\"")) == NULL)
            return NULL; /* no closing quote */
        **s = '\0';
        *s += strspn(*s + 1, SC_WS) + 1;
        return old;
    }
    bool was_equals = **s == '='; /* only one '=' may be skipped */
    **s = '\0';
    *s += strspn(*s + 1, SC_WS) + 1;
    if (**s == '=' && !was_equals)
        *s += strspn(*s + 1, SC_WS) + 1;
    return old;
}

/* One word of argv_split starting at s[*i] into out (room for strlen(s + *i) + 1). Returns the
 * quote still open at the end of the string, 0 when none. */
static char
split_word(const char *s, size_t *i, char *out)
{
    size_t j = 0;
    char quote = 0;
    for (; s[*i] != '\0'; (*i)++) {
        char ch = s[*i], next = s[*i + 1];
        if (ch == '\\') {
            if (next == '\'' || next == '"' || next == '\\' || (quote == 0 && next == ' '))
                (*i)++; /* the escaped byte replaces the backslash */
            out[j++] = s[*i];
        } else if (quote == 0 && (ch == ' ' || ch == '\t')) {
            break;
        } else if (quote == 0 && (ch == '"' || ch == '\'')) {
            quote = ch;
        } else if (quote != 0 && ch == quote) {
            quote = 0;
        } else {
            out[j++] = ch;
        }
    }
    out[j] = '\0';
    return quote;
}

int
sc_argv_split(const char *s, struct sc_strv *out)
{
    size_t len = strlen(s);
    char *word = malloc(len + 1);
    if (word == NULL)
        return -1;
    int rc = 0;
    for (size_t i = 0; i < len && s[i] != '\0'; i++) {
        if (s[i] == ' ' || s[i] == '\t')
            continue;
        if (s[i] == '#')
            break;
        char open = split_word(s, &i, word);
        if (open != 0 || sc_strv_push(out, word, (size_t)-1) != 0) {
            rc = -1;
            break;
        }
        if (s[i] == '\0')
            break;
    }
    free(word);
    if (rc != 0)
        sc_strv_release(out);
    return rc;
}

void
sc_rtrim(char *s)
{
    size_t i = strlen(s);
    if (i == 0)
        return;
    for (i--; i > 0; i--)
        if (isspace((unsigned char)s[i]))
            s[i] = '\0';
}

void
sc_lowercase(char *s)
{
    for (; *s != '\0'; s++)
        *s = (char)tolower((unsigned char)*s);
}

/* --- matching ----------------------------------------------------------------------------- */

bool
sc_match_pattern(const char *s, const char *p)
{
    for (;;) {
        if (*p == '\0')
            return *s == '\0';
        if (*p == '*') {
            while (*p == '*')
                p++;
            if (*p == '\0')
                return true;
            if (*p != '?') {
                for (; *s != '\0'; s++)
                    if (*s == *p && sc_match_pattern(s + 1, p + 1))
                        return true;
                return false;
            }
            for (; *s != '\0'; s++)
                if (sc_match_pattern(s, p))
                    return true;
            return false;
        }
        if (*s == '\0')
            return false;
        if (*p != '?' && *p != *s)
            return false;
        s++;
        p++;
    }
}

int
sc_match_pattern_list(const char *s, const char *list, bool dolower)
{
    char sub[1024];
    bool positive = false;
    size_t len = strlen(list);
    for (size_t i = 0; i < len;) {
        bool negated = list[i] == '!';
        if (negated)
            i++;
        size_t k = 0;
        for (; i < len && k < sizeof sub - 1 && list[i] != ','; k++, i++)
            sub[k] = dolower ? (char)tolower((unsigned char)list[i]) : list[i];
        if (k >= sizeof sub - 1)
            return 0; /* as OpenSSH: a sub-pattern too long matches nothing */
        if (i < len && list[i] == ',')
            i++;
        sub[k] = '\0';
        if (sc_match_pattern(s, sub)) {
            if (negated)
                return -1;
            positive = true;
        }
    }
    return positive ? 1 : 0;
}

int
sc_match_hostname(const char *host, const char *list)
{
    char *h = strdup(host);
    if (h == NULL)
        return 0;
    sc_lowercase(h);
    int r = sc_match_pattern_list(h, list, true);
    free(h);
    return r;
}

/* --- values ------------------------------------------------------------------------------- */

/* strtonum(s, lo, hi): 0 and *v, or -1. */
static int
strtonum_ll(const char *s, long long lo, long long hi, long long *v)
{
    char *end;
    errno = 0;
    long long x = strtoll(s, &end, 10);
    if (end == s || *end != '\0' || errno == ERANGE || x < lo || x > hi)
        return -1;
    *v = x;
    return 0;
}

int
sc_a2port(const char *s)
{
    long long v;
    if (strtonum_ll(s, 0, 65535, &v) == 0)
        return (int)v;
    struct servent se, *res = NULL;
    char buf[1024];
    if (getservbyname_r(s, "tcp", &se, buf, sizeof buf, &res) == 0 && res != NULL)
        return ntohs((uint16_t)res->s_port);
    return -1;
}

static long
time_unit(char c)
{
    switch (c) {
    case '\0':
    case 's':
    case 'S':
        return 1;
    case 'm':
    case 'M':
        return 60;
    case 'h':
    case 'H':
        return 3600;
    case 'd':
    case 'D':
        return 86400;
    case 'w':
    case 'W':
        return 604800;
    default:
        return -1;
    }
}

int
sc_convtime(const char *s)
{
    if (s == NULL || *s == '\0')
        return -1;
    long total = 0;
    for (const char *p = s; *p != '\0';) {
        char *end;
        errno = 0;
        long secs = strtol(p, &end, 10);
        if (p == end || (errno == ERANGE && (secs == LONG_MIN || secs == LONG_MAX)) || secs < 0)
            return -1;
        long mult = time_unit(*end);
        if (mult < 0)
            return -1;
        if (*end != '\0')
            end++;
        if (secs > INT_MAX / mult)
            return -1;
        secs *= mult;
        if (total > INT_MAX - secs)
            return -1;
        total += secs;
        p = end;
    }
    return (int)total;
}

/* hpdelim2() with only ':' accepted (hpdelim()): the host field of *cp, *cp moved past the
 * delimiter (NULL after the last field). NULL when malformed. */
static char *
hpdelim(char **cp)
{
    if (*cp == NULL)
        return NULL;
    char *old = *cp, *s = *cp;
    if (*s == '[') {
        if ((s = strchr(s, ']')) == NULL)
            return NULL;
        s++;
    } else if ((s = strpbrk(s, ":/")) == NULL) {
        s = *cp + strlen(*cp);
    }
    if (*s == '\0') {
        *cp = NULL;
    } else if (*s == ':') {
        *s = '\0';
        *cp = s + 1;
    } else {
        return NULL; /* '/' (hpdelim refuses it) or bytes after ']' */
    }
    return old;
}

static char *
cleanhostname(char *h)
{
    size_t n = strlen(h);
    if (n >= 2 && h[0] == '[' && h[n - 1] == ']') {
        h[n - 1] = '\0';
        return h + 1;
    }
    return h;
}

static void
set_out(char **dst, char **src)
{
    if (dst != NULL) {
        *dst = *src;
        *src = NULL;
    }
}

int
sc_parse_user_host_port(const char *s, char **userp, char **hostp, int *portp)
{
    char *user = NULL, *host = NULL, *sdup = strdup(s), *tmp = sdup, *cp;
    int port = -1, ret = -1;
    if (userp != NULL)
        *userp = NULL;
    if (hostp != NULL)
        *hostp = NULL;
    if (portp != NULL)
        *portp = -1;
    if (sdup == NULL)
        return -1;
    if ((cp = strrchr(tmp, '@')) != NULL) {
        *cp = '\0';
        if (*tmp == '\0' || (user = strdup(tmp)) == NULL)
            goto out;
        tmp = cp + 1;
    }
    if ((cp = hpdelim(&tmp)) == NULL || *cp == '\0')
        goto out;
    if ((host = strdup(cleanhostname(cp))) == NULL)
        goto out;
    if (tmp != NULL && *tmp != '\0' && (port = sc_a2port(tmp)) <= 0)
        goto out;
    set_out(userp, &user);
    set_out(hostp, &host);
    if (portp != NULL)
        *portp = port;
    ret = 0;
out:
    free(sdup);
    free(user);
    free(host);
    return ret;
}

static int
hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c = (char)tolower((unsigned char)c);
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* urldecode(): '+' is a space, %XX a byte. NULL when malformed. */
static char *
urldecode(const char *src)
{
    char *ret = malloc(strlen(src) + 1), *dst = ret;
    if (ret == NULL)
        return NULL;
    for (; *src != '\0'; src++) {
        if (*src == '+') {
            *dst++ = ' ';
        } else if (*src == '%') {
            int hi = hexval(src[1]), lo = hi < 0 ? -1 : hexval(src[2]);
            if (lo < 0) {
                free(ret);
                return NULL;
            }
            *dst++ = (char)(hi << 4 | lo);
            src += 2;
        } else {
            *dst++ = *src;
        }
    }
    *dst = '\0';
    return ret;
}

/* valid_domain(name, makelower=0): also drops one trailing dot, as OpenSSH's does. */
static bool
valid_domain(char *name)
{
    size_t l = strlen(name);
    if (l == 0 || !isalnum((unsigned char)name[0]))
        return false;
    char last = '\0';
    for (size_t i = 0; i < l; i++) {
        char c = (char)tolower((unsigned char)name[i]);
        if ((last == '.' && c == '.') ||
            (c != '.' && c != '-' && c != '_' && !isalnum((unsigned char)c)))
            return false;
        last = c;
    }
    if (name[l - 1] == '.')
        name[l - 1] = '\0';
    return true;
}

/* The user part of a URI: what precedes '@', connection parameters after ';' dropped. */
static int
uri_user(char **tmp, char **user)
{
    char *at = strchr(*tmp, '@');
    if (at == NULL)
        return 0;
    *at = '\0';
    char *semi = strchr(*tmp, ';');
    if (semi != NULL)
        *semi = '\0';
    if (**tmp == '\0' || (*user = urldecode(*tmp)) == NULL)
        return -1;
    *tmp = at + 1;
    return 0;
}

int
sc_parse_ssh_uri(const char *uri, char **userp, char **hostp, int *portp)
{
    if (strncmp(uri, "ssh://", 6) != 0)
        return 1;
    char *dup = strdup(uri + 6), *tmp = dup, *user = NULL, *host = NULL, *cp;
    int port = -1, ret = -1;
    if (dup == NULL || uri_user(&tmp, &user) != 0)
        goto out;
    /* hpdelim2: ':' or '/' ends the host */
    char *h = tmp, delim = '\0';
    if (*tmp == '[') {
        if ((tmp = strchr(tmp, ']')) == NULL)
            goto out;
        tmp++;
    } else if ((tmp = strpbrk(tmp, ":/")) == NULL) {
        tmp = h + strlen(h);
    }
    if (*tmp != '\0' && *tmp != ':' && *tmp != '/')
        goto out;
    delim = *tmp;
    *tmp = '\0';
    tmp = delim == '\0' ? NULL : tmp + 1;
    if (*h == '\0' || (host = strdup(cleanhostname(h))) == NULL || !valid_domain(host))
        goto out;
    if (tmp != NULL && *tmp != '\0' && delim == ':') {
        if ((cp = strchr(tmp, '/')) != NULL)
            *cp = '\0';
        if ((port = sc_a2port(tmp)) <= 0)
            goto out;
        tmp = cp != NULL ? cp + 1 : NULL;
    }
    if (tmp != NULL && *tmp != '\0')
        goto out; /* a path: parse_ssh_uri() refuses it */
    set_out(userp, &user);
    set_out(hostp, &host);
    if (portp != NULL)
        *portp = port;
    ret = 0;
out:
    free(dup);
    free(user);
    free(host);
    return ret;
}

static bool
is_addr_fast(const char *name)
{
    return strchr(name, '%') != NULL || strchr(name, ':') != NULL ||
           strspn(name, "0123456789.") == strlen(name);
}

/* One numeric address (AI_NUMERICHOST: no DNS), or NULL. */
static struct addrinfo *
numeric_addr(const char *name)
{
    struct addrinfo hints = {.ai_family = AF_UNSPEC,
                             .ai_socktype = SOCK_STREAM,
                             .ai_flags = AI_NUMERICHOST | AI_NUMERICSERV};
    struct addrinfo *res = NULL;
    if (getaddrinfo(name, "22", &hints, &res) != 0)
        return NULL;
    if (res != NULL && res->ai_next != NULL) {
        freeaddrinfo(res);
        return NULL;
    }
    return res;
}

bool
sc_is_addr(const char *name)
{
    if (is_addr_fast(name))
        return true;
    struct addrinfo *res = numeric_addr(name);
    if (res == NULL)
        return false;
    freeaddrinfo(res);
    return true;
}

char *
sc_canonical_addr(const char *name)
{
    struct addrinfo *res = numeric_addr(name);
    if (res == NULL)
        return NULL;
    char buf[NI_MAXHOST];
    int rc = getnameinfo(res->ai_addr, res->ai_addrlen, buf, sizeof buf, NULL, 0, NI_NUMERICHOST);
    freeaddrinfo(res);
    return rc == 0 ? strdup(buf) : NULL;
}

bool
sc_valid_env_name(const char *name)
{
    if (*name == '\0')
        return false;
    for (; *name != '\0'; name++)
        if (!isalnum((unsigned char)*name) && *name != '_')
            return false;
    return true;
}
