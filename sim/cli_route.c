/* cli_route.c - `mring route`: the links of a platform route between two hosts (or ranks). */
#include "cli.h"

#include "sim.h"

#include <simgrid/host.h>
#include <simgrid/link.h>
#include <xbt/dynar.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void help(void)
{
    printf("usage: mring route --platform FILE FROM TO\n\n"
           "Print the links of the platform's route from FROM to TO (host names, or rank numbers of hosts\n"
           "with property mring_rank): one line per link with its bandwidth and latency, then the route's\n"
           "latency and bandwidth as the model takes them.\n");
}

static sg_host_t host_of(const char *cmd, const mring_platform_t *pf, const char *s)
{
    char *end;
    long r = strtol(s, &end, 10);
    sg_host_t h;
    if (*s && !*end && r >= 0 && r < pf->nranks)
        return pf->hosts[r];
    if (!(h = sg_host_by_name(s)))
        cli_usage_error(cmd, "host '%s' is not in platform %s; expected a host name or a rank 0..%d", s, pf->file,
                        pf->nranks - 1);
    return h;
}

int cmd_route(int argc, char **argv)
{
    static const struct option opts[] = {{"platform", required_argument, 0, 'p'}, {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    const char *cmd = "route", *platform = NULL;
    mring_platform_t pf;
    int opt;
    while ((opt = cli_getopt(cmd, argc, argv, "h", opts)) != -1) {
        if (opt == 'p')
            platform = optarg;
        else if (opt == 'h') {
            help();
            return 0;
        }
    }
    if (!platform)
        cli_usage_error(cmd, "--platform is required");
    if (argc - optind != 2)
        cli_usage_error(cmd, "expected two hosts (FROM TO); got %d argument(s)", argc - optind);
    cli_platform_load(cmd, NULL, platform, &pf);
    sg_host_t from = host_of(cmd, &pf, argv[optind]), to = host_of(cmd, &pf, argv[optind + 1]);
    xbt_dynar_t links = xbt_dynar_new(sizeof(sg_link_t), NULL);
    unsigned i;
    sg_link_t l;
    sg_host_get_route(from, to, links);
    xbt_dynar_foreach (links, i, l)
        printf("%-24s %10.4g GBps %8.4g us\n", sg_link_get_name(l), sg_link_get_bandwidth(l) / 1e9,
               sg_link_get_latency(l) * 1e6);
    printf("# %s -> %s: %lu links, latency %.4g us, bandwidth %.4g GBps\n", sg_host_get_name(from),
           sg_host_get_name(to), xbt_dynar_length(links), sg_host_get_route_latency(from, to) * 1e6,
           sg_host_get_route_bandwidth(from, to) / 1e9);
    xbt_dynar_free(&links);
    free(pf.hosts);
    return 0;
}
