/* cmd_clean.c - `netsurvey clean [PLAN] [--accept-new-host-keys]`: undo what runs left on the
 * plan's ssh hosts (process groups still recorded, the deployed nsperf). Local hosts have
 * nothing to clean: their processes end with the run. */
#include "survey/cmd_clean.h"

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/plan.h"
#include "survey/cmd_run.h"
#include "survey/host_target.h"
#include "transport/transport.h"
#include "transport/transport_ssh.h"

static void
clean_usage(FILE *out)
{
    fprintf(out, "usage: netsurvey clean [PLAN] [--accept-new-host-keys]\n"
                 "kill what netsurvey left running on the plan's ssh hosts and remove its cache\n"
                 "(~/.cache/netsurvey there). exit status: 0 every ssh host cleaned; 1 some\n"
                 "could not be reached or cleaned; 2 plan or usage error.\n");
}

static int
clean_host(const struct plan_host *ph, bool accept_new)
{
    struct transport_target tt = survey_host_target(ph, accept_new);
    struct transport *t = NULL;
    struct err e = {0};
    int rc = transport_open(&tt, &t, &e);
    if (rc == 0)
        rc = transport_ssh_clean(t, &e);
    transport_close(t);
    if (rc != 0) {
        fprintf(stderr, "netsurvey clean: %s: %s\n", ph->name, e.msg);
        return -1;
    }
    printf("%s: cleaned\n", ph->name);
    return 0;
}

int
survey_cmd_clean(int argc, char **argv)
{
    static const struct option lo[] = {{"accept-new-host-keys", no_argument, NULL, 'A'},
                                       {"help", no_argument, NULL, 'h'},
                                       {NULL, 0, NULL, 0}};
    bool accept_new = false;
    int ch;
    opterr = 0;
    optind = 1;
    while ((ch = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
        if (ch == 'A') {
            accept_new = true;
        } else if (ch == 'h') {
            clean_usage(stdout);
            return EXIT_SUCCESS;
        } else {
            fprintf(stderr, "netsurvey clean: unknown option or missing value '%s'\n",
                    argv[optind - 1]);
            clean_usage(stderr);
            return SURVEY_EXIT_USAGE;
        }
    }
    if (argc - optind > 1) {
        fprintf(stderr, "netsurvey clean: too many arguments\n");
        clean_usage(stderr);
        return SURVEY_EXIT_USAGE;
    }
    const char *arg = optind < argc ? argv[optind] : NULL;
    struct plan_diags *d = plan_diags_new();
    if (d == NULL)
        return SURVEY_EXIT_USAGE;
    struct plan *p = NULL;
    int rc;
    if (arg == NULL) {
        size_t len;
        const char *yaml = plan_default_yaml(&len);
        rc = plan_load_buffer("default", yaml, len, &p, d);
    } else {
        rc = plan_load_file(strcmp(arg, "-") == 0 ? "/dev/stdin" : arg, &p, d);
    }
    plan_diags_write(d, stderr);
    plan_diags_free(d);
    if (rc != 0)
        return SURVEY_EXIT_USAGE;
    int status = EXIT_SUCCESS;
    for (size_t i = 0; i < plan_host_count(p); i++) {
        const struct plan_host *ph = plan_host(p, i);
        if (ph->transport != PLAN_TRANSPORT_LOCAL && clean_host(ph, accept_new) != 0)
            status = EXIT_FAILURE;
    }
    plan_free(p);
    return status;
}
