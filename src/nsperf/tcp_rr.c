/* tcp_rr.c - skeleton; the real test kind follows. */
#include <sys/socket.h>

#include "../common/err.h"
#include "nsperf.h"

static int
tcp_rr_run(struct ns_test *t, struct err *e)
{
    (void)t;
    return err_set(e, NS_EINVAL, "tcp_rr not implemented yet");
}

static json_t *
tcp_rr_local_result(struct ns_test *t)
{
    (void)t;
    return json_object();
}

static json_t *
tcp_rr_combine(const struct ns_test *t, const json_t *client, const json_t *server,
             const json_t *cpu)
{
    (void)t, (void)client, (void)server, (void)cpu;
    return json_object();
}

static void
tcp_rr_print_human(const struct ns_test *t, const json_t *result, FILE *out)
{
    (void)t, (void)result, (void)out;
}

static void
tcp_rr_cleanup(struct ns_test *t)
{
    (void)t;
}

const struct test_kind ns_kind_tcp_rr = {
    .name = "tcp_rr",
    .socktype = SOCK_STREAM,
    .uses_streams = false,
    .run = tcp_rr_run,
    .local_result = tcp_rr_local_result,
    .combine = tcp_rr_combine,
    .print_human = tcp_rr_print_human,
    .cleanup = tcp_rr_cleanup,
};
