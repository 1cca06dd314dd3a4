#include "common/errors.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void
err_clear(struct err *e)
{
    if (e == NULL)
        return;
    e->code = NS_OK;
    e->msg[0] = '\0';
}

__attribute__((format(printf, 2, 0))) static void
err_vformat(struct err *e, const char *fmt, va_list ap)
{
    vsnprintf(e->msg, sizeof e->msg, fmt, ap);
}

int
err_set(struct err *e, int code, const char *fmt, ...)
{
    if (e == NULL)
        return code;
    va_list ap;
    va_start(ap, fmt);
    err_vformat(e, fmt, ap);
    va_end(ap);
    e->code = code;
    return code;
}

int
err_sys(struct err *e, int code, int errnum, const char *fmt, ...)
{
    if (e == NULL)
        return code;
    va_list ap;
    va_start(ap, fmt);
    err_vformat(e, fmt, ap);
    va_end(ap);
    size_t len = strlen(e->msg);
    snprintf(e->msg + len, sizeof e->msg - len, ": %s", strerror(errnum));
    e->code = code;
    return code;
}

__attribute__((format(printf, 2, 0))) static void
err_vprefix(struct err *e, const char *fmt, va_list ap)
{
    char prefix[NS_ERR_MSG_MAX];
    int n = vsnprintf(prefix, sizeof prefix, fmt, ap);
    /* Shift the old message right to make room for "prefix: "; truncate at the end if needed. */
    size_t plen = n < 0 ? 0 : (size_t)n;
    if (plen > sizeof e->msg - 3)
        plen = sizeof e->msg - 3;
    size_t olen = strlen(e->msg);
    if (plen + 2 + olen >= sizeof e->msg)
        olen = sizeof e->msg - plen - 3;
    memmove(e->msg + plen + 2, e->msg, olen);
    e->msg[plen + 2 + olen] = '\0';
    memcpy(e->msg, prefix, plen);
    e->msg[plen] = ':';
    e->msg[plen + 1] = ' ';
}

int
err_prefix(struct err *e, const char *fmt, ...)
{
    if (e == NULL)
        return NS_EINVAL;
    va_list ap;
    va_start(ap, fmt);
    err_vprefix(e, fmt, ap);
    va_end(ap);
    return e->code;
}

int
err_wrap(struct err *e, int code, const char *fmt, ...)
{
    if (e == NULL)
        return code;
    va_list ap;
    va_start(ap, fmt);
    err_vprefix(e, fmt, ap);
    va_end(ap);
    e->code = code;
    return code;
}

const char *
err_name(int code)
{
    switch (code) {
#define NS_ERR_CASE(name, val, text)                                                               \
    case name:                                                                                     \
        return text;
        NS_ERR_MAP(NS_ERR_CASE)
#undef NS_ERR_CASE
    default:
        return "unknown error";
    }
}
