/* errors.h - errors as values, as in libuv and curl: functions return 0 or a negative NS_E* code
 * and put the human-readable detail into a caller-owned struct err. No global error state. */
#ifndef NS_ERRORS_H
#define NS_ERRORS_H

#include <stddef.h>

/* X-macro table, in libuv's UV_ERRNO_MAP manner: code, name, default text. */
#define NS_ERR_MAP(X)                                                                              \
    X(NS_OK, 0, "success")                                                                         \
    X(NS_EINVAL, -1, "invalid argument")                                                           \
    X(NS_ENOMEM, -2, "out of memory")                                                              \
    X(NS_EIO, -3, "input/output error")                                                            \
    X(NS_ETIMEDOUT, -4, "timed out")                                                               \
    X(NS_EPROTO, -5, "protocol error")                                                             \
    X(NS_EAUTH, -6, "authentication failed")                                                       \
    X(NS_ECLOSED, -7, "connection closed by peer")                                                 \
    X(NS_ETOOBIG, -8, "message too large")                                                         \
    X(NS_ERANGE, -9, "value out of range")                                                         \
    X(NS_EPARSE, -10, "parse error")                                                               \
    X(NS_ENOTFOUND, -11, "not found")                                                              \
    X(NS_EBUSY, -12, "busy")                                                                       \
    X(NS_ECONNECT, -13, "connection failed")                                                       \
    X(NS_EPEER, -14, "peer reported an error")                                                     \
    X(NS_EINTR, -15, "interrupted")                                                                \
    X(NS_EHOSTKEY, -16, "host key verification failed")                                            \
    X(NS_EREMOTE, -17, "remote command failed")

enum ns_err_code {
#define NS_ERR_ENUM(name, val, text) name = val,
    NS_ERR_MAP(NS_ERR_ENUM)
#undef NS_ERR_ENUM
};

#define NS_ERR_MSG_MAX 512

/* Embedded in the caller (err_init/err_release not needed: plain data). */
struct err {
    int code;                 /* last NS_E* code set, NS_OK when clear */
    char msg[NS_ERR_MSG_MAX]; /* detail, git style: lower-case, problem first, no full stop */
};

/* Clear e (e may be NULL). */
void err_clear(struct err *e);

/* Set e's code and message; returns code so that callers can `return err_set(e, ...)`.
 * e may be NULL, in which case only the code is returned. */
int err_set(struct err *e, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* As err_set, appending ": strerror(errnum)". */
int err_sys(struct err *e, int code, int errnum, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Prefix e->msg with "prefix: " (keeps the code); returns e->code, or NS_EINVAL when e is NULL
 * (the code is then unknown: where e may be NULL, use err_wrap). */
int err_prefix(struct err *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* As err_prefix for a failure whose code the caller holds: prefixes e->msg when e is not NULL
 * and returns code either way, so that a NULL e does not lose it. */
int err_wrap(struct err *e, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* The table's text for a code ("timed out"); never NULL. */
const char *err_name(int code);

#endif
