/* cli_schedule.c - `mring schedule`: print one rank's schedule. */
#include "cli.h"

#include "algo.h"

#include <stdio.h>
#include <stdlib.h>

static void help(void)
{
    printf("usage: mring schedule --topo T [--algo A] [--rings R] [--segment BYTES] [--dim-algo LIST]\n"
           "                      [--chunks C] [--embed E] [--type T] --count N --rank r\n\n"
           "Print rank r's schedule: its streams and their ops (SEND/RECV/REDUCE/COPY on element\n"
           "ranges of OUT, SCRATCH and IN), labelled with phase (PRO prologue, RS reduce-scatter,\n"
           "AG allgather, RED reduce, BC broadcast, EX exchange), dimension and step.\n\n%s"
           "  --count N         elements per rank (required)\n"
           "  --rank r          the rank to print (required)\n",
           cli_conf_help());
}

int cmd_schedule(int argc, char **argv)
{
    static const struct option opts[] = {CLI_CONF_OPTIONS,
                                         {"count", required_argument, 0, 'n'},
                                         {"rank", required_argument, 0, 'r'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    const char *cmd = "schedule", *count_s = NULL, *rank_s = NULL;
    cli_conf_t cc = {0};
    mring_config_t c;
    mring_dtype_t dtype;
    mring_rank_sched_t rs;
    int opt, rank;
    while ((opt = cli_getopt(cmd, argc, argv, "h", opts)) != -1) {
        if (cli_conf_opt(&cc, opt, optarg))
            continue;
        switch (opt) {
        case 'n': count_s = optarg; break;
        case 'r': rank_s = optarg; break;
        case 'h': help(); return 0;
        }
    }
    if (optind < argc)
        cli_usage_error(cmd, "unexpected argument '%s'", argv[optind]);
    cli_conf_build(cmd, &cc, 0, NULL, &c, &dtype);
    if (!count_s)
        cli_usage_error(cmd, "--count is required (elements per rank)");
    if (!rank_s)
        cli_usage_error(cmd, "--rank is required");
    mring_call_t k = {cli_int64(cmd, "--count", count_s), mring_dtype_size(dtype)};
    rank = cli_int(cmd, "--rank", rank_s, 0, c.topo.nranks - 1);
    cli_conf_check(cmd, &c, k.elsize);
    if (mring_generate(&c, k, rank, &rs))
        cli_fail(cmd, "out of memory generating rank %d's schedule", rank);
    mring_rank_sched_print(&rs, stdout);
    mring_rank_sched_free(&rs);
    return 0;
}
