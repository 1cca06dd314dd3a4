/* tcp_crr.c - skeleton; the real test kind follows. */
#include <sys/socket.h>

#include "../common/err.h"
#include "nsperf.h"

static int
tcp_crr_run(struct ns_test *t, struct err *e)
{
    (void)t;
    return err_set(e, NS_EINVAL, "tcp_crr not implemented yet");
}

static json_t *
tcp_crr_local_result(struct ns_test *t)
{
    (void)t;
    return json_object();
}

static json_t *
tcp_crr_combine(const struct ns_test *t, const json_t *client, const json_t *server,
             const json_t *cpu)
{
    (void)t, (void)client, (void)server, (void)cpu;
    return json_object();
}

static void
tcp_crr_print_human(const struct ns_test *t, const json_t *result, FILE *out)
{
    (void)t, (void)result, (void)out;
}

static void
tcp_crr_cleanup(struct ns_test *t)
{
    (void)t;
}

const struct test_kind ns_kind_tcp_crr = {
    .name = "tcp_crr",
    .socktype = SOCK_STREAM,
    .uses_streams = false,
    .run = tcp_crr_run,
    .local_result = tcp_crr_local_result,
    .combine = tcp_crr_combine,
    .print_human = tcp_crr_print_human,
    .cleanup = tcp_crr_cleanup,
};
