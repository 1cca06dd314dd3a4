/* udp_rr.c - skeleton; the real test kind follows. */
#include <sys/socket.h>

#include "../common/err.h"
#include "nsperf.h"

static int
udp_rr_run(struct ns_test *t, struct err *e)
{
    (void)t;
    return err_set(e, NS_EINVAL, "udp_rr not implemented yet");
}

static json_t *
udp_rr_local_result(struct ns_test *t)
{
    (void)t;
    return json_object();
}

static json_t *
udp_rr_combine(const struct ns_test *t, const json_t *client, const json_t *server,
             const json_t *cpu)
{
    (void)t, (void)client, (void)server, (void)cpu;
    return json_object();
}

static void
udp_rr_print_human(const struct ns_test *t, const json_t *result, FILE *out)
{
    (void)t, (void)result, (void)out;
}

static void
udp_rr_cleanup(struct ns_test *t)
{
    (void)t;
}

const struct test_kind ns_kind_udp_rr = {
    .name = "udp_rr",
    .socktype = SOCK_DGRAM,
    .uses_streams = false,
    .run = udp_rr_run,
    .local_result = udp_rr_local_result,
    .combine = udp_rr_combine,
    .print_human = udp_rr_print_human,
    .cleanup = udp_rr_cleanup,
};
