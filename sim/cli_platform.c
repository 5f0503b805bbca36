/* cli_platform.c - `mring platform`: write a SimGrid platform (minsky, dgx1, dgxh100, bigbasin, cluster, testbed). */
#include "cli.h"

#include "platgen.h"
#include "units.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void help(void)
{
    printf("usage: mring platform minsky|dgx1|dgxh100|bigbasin|cluster|testbed [options] -o FILE\n\n"
           "Write a SimGrid platform (XML 4.1): nodes with GPUs (the rank hosts, property mring_rank), CPUs,\n"
           "NVLink, X-bus and PCIe; every NIC its own port (rail) n<k>-rail<r> to a leaf switch, GPU i's\n"
           "traffic between nodes through its own NIC; spine uplinks; the natural topology in the root\n"
           "zone's mring_topo (GPUs per node x nodes per rack x racks).  Every figure's source is in an XML\n"
           "comment.  Kinds and their defaults:\n"
           "  minsky    64 IBM S822LC (4 P100, NVLink 1.0 triangles per socket, X-bus, 1 EDR) in 4 racks\n"
           "  dgx1      32 NVIDIA DGX-1 P100 (hybrid cube-mesh NVLink, 4 EDR, NIC s for GPUs 2s, 2s+1) in 2 racks\n"
           "  dgxh100   32 NVIDIA DGX H100 (NVSwitch, 8 NDR 400 Gb/s, NIC i for GPU i) in one SuperPOD scalable\n"
           "            unit: a leaf switch per rail, different rails meet in the spine (--racks: units)\n"
           "  bigbasin  32 Facebook Big Basin (8 P100, cube-mesh NVLink, one 50 GbE NIC) in 2 racks\n"
           "  cluster   8 generic nodes of 1 GPU on a crossbar (contention-free test platforms)\n"
           "  testbed   the emulated cluster of validation/testbed, 2 nodes of 2 ranks, from measured route\n"
           "            figures (validation/calibrate writes it): --intra, --inter (more than one node) and\n"
           "            --reduce are required; rank hosts n<k>-rank<i>, loopback links n<k>-lo<i>, veths n<k>-veth\n\n"
           "  -o, --output FILE      where to write (required); written whole or not at all\n"
           "  --name ID              root zone id (default minsky-64, dgx1-p100-32, dgxh100-32, bigbasin-32,\n"
           "                         cluster)\n"
           "  --nodes N, --racks R   nodes and racks (R divides N)\n"
           "  --gpus-per-node G      GPUs per node (minsky: 4, dgx1/dgxh100/bigbasin: 8, cluster: any)\n"
           "  --nics K               NIC ports (rails) per node, spread evenly over the sockets, PCIe switches\n"
           "                         or GPUs: minsky 1-2, dgx1 1, 2 or 4, dgxh100 1, 2, 4 or 8, cluster 1..G\n"
           "  --nic-bw B, --nic-lat T        one NIC port, e.g. 12.5GBps, 100Gbps; 0.5us per side\n"
           "  --nvlink-bw B, --nvlink-lat T  one NVLink edge (or a GPU's crossbar link), per direction\n"
           "  --xbus-bw B            CPU-CPU link (X-bus, QPI; minsky, dgx1, bigbasin)\n"
           "  --pcie-bw B            PCIe link (GPU or NIC to CPU or switch)\n"
           "  --gpu-speed B          reduction throughput, bytes of result per second (e.g. 244GBps)\n"
           "  --oversubscription X   rack (dgxh100: rail leaf) uplink = its NIC ports x NIC bandwidth / X\n"
           "                         (default 1; with --racks 2 or more, or dgxh100)\n"
           "  (the link figures above are not the testbed's: it takes --intra, --inter, --rack)\n"
           "  --intra LAT:BW         testbed: route between two ranks of a node, e.g. 12us:2.5GBps (exactly)\n"
           "  --inter LAT:BW         testbed: route between ranks of two nodes, e.g. 60us:125MBps (exactly)\n"
           "  --rack LAT:BW          testbed with --racks K > 1: route between ranks of two racks, latency LAT\n"
           "                         (exactly), through each rack's uplink of BW per direction, shared by the\n"
           "                         rack's flows (one pair gets min(inter, BW))\n"
           "  --reduce B             a rank's reduction throughput (= --gpu-speed), e.g. 3GBps\n"
           "  --comment TEXT         an XML comment after the standard ones (repeatable; no \"--\" inside),\n"
           "                         e.g. where a figure comes from\n"
           "  --profile P            the software costs of its stack, in the root zone's mring_sw: a name\n"
           "                         (mring profiles) or o=TIME;lat=SIZE:F,...;bw=SIZE:F,...;conn=C (see mring simulate)\n");
}

enum { OPT_NODES = OPT_FIRST_FREE, OPT_RACKS, OPT_GPN, OPT_NICS, OPT_NICBW, OPT_NICLAT, OPT_NVBW, OPT_NVLAT,
       OPT_XBUS, OPT_PCIE, OPT_SPEED, OPT_OVER, OPT_NAME, OPT_INTRA, OPT_INTER, OPT_RACKFIG, OPT_COMMENT };
_Static_assert(OPT_COMMENT - OPT_NODES < 32, "cmd_platform's `given` holds a bit per figure option");

static double bw(const char *cmd, const char *flag, const char *s)
{
    double v;
    if (mring_parse_bandwidth(s, &v))
        cli_usage_error(cmd, "%s '%s' is not valid; expected a rate like 12.5GBps or 100Gbps", flag, s);
    return v;
}

static double lat(const char *cmd, const char *flag, const char *s)
{
    double v;
    if (mring_parse_time(s, &v))
        cli_usage_error(cmd, "%s '%s' is not valid; expected a time like 0.5us", flag, s);
    return v;
}

/* --intra/--inter LAT:BW of a testbed: a route's latency and bandwidth. */
static void route_figures(const char *cmd, const mring_platgen_t *g, const char *flag, const char *s, double *l,
                          double *b)
{
    char t[64];
    const char *colon = strchr(s, ':');
    size_t len = colon ? (size_t)(colon - s) : 0;
    if (g->node != MRING_NODE_TESTBED)
        cli_usage_error(cmd, "%s is for the testbed kind (route figures); the other kinds take link figures", flag);
    if (!colon || len >= sizeof t || (memcpy(t, s, len), t[len] = '\0', mring_parse_time(t, l)) ||
        mring_parse_bandwidth(colon + 1, b))
        cli_usage_error(cmd, "%s '%s' is not valid; expected LAT:BW, e.g. 12us:2.5GBps", flag, s);
}

/* The options that set a figure or a count of g. */
static void figure_opt(const char *cmd, mring_platgen_t *g, int opt, const char *arg)
{
    switch (opt) {
    case OPT_NODES: g->nodes = cli_int(cmd, "--nodes", arg, 1, 65536); break;
    case OPT_RACKS: g->racks = cli_int(cmd, "--racks", arg, 1, 65536); break;
    case OPT_GPN: g->gpus_per_node = cli_int(cmd, "--gpus-per-node", arg, 1, 65536); break;
    case OPT_NICS: g->nics = cli_int(cmd, "--nics", arg, 1, 64); break;
    case OPT_NICBW: g->nic_bw = bw(cmd, "--nic-bw", arg); break;
    case OPT_NICLAT: g->nic_lat = lat(cmd, "--nic-lat", arg); break;
    case OPT_NVBW: g->nvlink_bw = bw(cmd, "--nvlink-bw", arg); break;
    case OPT_NVLAT: g->nvlink_lat = lat(cmd, "--nvlink-lat", arg); break;
    case OPT_XBUS: g->xbus_bw = bw(cmd, "--xbus-bw", arg); break;
    case OPT_PCIE: g->pcie_bw = bw(cmd, "--pcie-bw", arg); break;
    case OPT_SPEED: g->gpu_speed = bw(cmd, "--gpu-speed/--reduce", arg); break;
    case OPT_OVER: g->oversubscription = cli_double(cmd, "--oversubscription", arg, 1e-9); break;
    case OPT_NAME: g->name = arg; break;
    case OPT_INTRA: route_figures(cmd, g, "--intra", arg, &g->intra_lat, &g->intra_bw); break;
    case OPT_INTER: route_figures(cmd, g, "--inter", arg, &g->inter_lat, &g->inter_bw); break;
    case OPT_RACKFIG: route_figures(cmd, g, "--rack", arg, &g->rack_lat, &g->rack_bw); break;
    case OPT_PROFILE: {
        static char text[2048];
        mring_swprof_t sw;
        cli_profile_parse(cmd, arg, &sw);
        g->sw = mring_swprof_format(&sw, text, sizeof text);
        break;
    }
    case OPT_COMMENT:
        if (g->ncomments == MRING_PLATGEN_MAX_COMMENTS)
            cli_usage_error(cmd, "--comment: more than %d", MRING_PLATGEN_MAX_COMMENTS);
        g->comments[g->ncomments++] = arg;
        break;
    }
}

/* The link figures given (bit opt - OPT_NODES of `given`) that the kind has no link for: exit 2 naming the first
 * by its name in opts (the file would have been the same without it).  The testbed takes route figures (--intra,
 * --inter, --rack; its NIC figures come from them); DGX H100 and cluster nodes have no X-bus; over-subscription
 * sets the uplinks of racks (--racks 2 or more) and of rail leaves (dgxh100). */
static void figures_apply(const char *cmd, const mring_platgen_t *g, uint32_t given, const struct option *opts)
{
    for (const struct option *o = opts; o->name; o++) {
        int v = o->val, link = v == OPT_NICBW || v == OPT_NICLAT || v == OPT_NVBW || v == OPT_NVLAT || v == OPT_XBUS ||
                               v == OPT_PCIE || v == OPT_OVER;
        if (!link || !(given >> (v - OPT_NODES) & 1))
            continue;
        if (g->node == MRING_NODE_TESTBED)
            cli_usage_error(cmd, "--%s: the testbed kind takes route figures (--intra, --inter, --rack), not link "
                            "figures", o->name);
        if (v == OPT_XBUS && (g->node == MRING_NODE_DGXH100 || g->node == MRING_NODE_CLUSTER))
            cli_usage_error(cmd, "--%s: this kind's nodes have no X-bus/QPI link", o->name);
        if (v == OPT_OVER && g->racks == 1 && !mring_platgen_rail_leaves(g))
            cli_usage_error(cmd, "--%s: one rack and no rail leaves: no uplink to over-subscribe; expected --racks 2 "
                            "or more", o->name);
    }
}

int cmd_platform(int argc, char **argv)
{
    static const struct option opts[] = {
        {"output", required_argument, 0, 'o'},      {"nodes", required_argument, 0, OPT_NODES},
        {"racks", required_argument, 0, OPT_RACKS}, {"gpus-per-node", required_argument, 0, OPT_GPN},
        {"nics", required_argument, 0, OPT_NICS},   {"nic-bw", required_argument, 0, OPT_NICBW},
        {"nic-lat", required_argument, 0, OPT_NICLAT}, {"nvlink-bw", required_argument, 0, OPT_NVBW},
        {"nvlink-lat", required_argument, 0, OPT_NVLAT}, {"xbus-bw", required_argument, 0, OPT_XBUS},
        {"pcie-bw", required_argument, 0, OPT_PCIE}, {"gpu-speed", required_argument, 0, OPT_SPEED},
        {"oversubscription", required_argument, 0, OPT_OVER}, {"name", required_argument, 0, OPT_NAME},
        {"intra", required_argument, 0, OPT_INTRA}, {"inter", required_argument, 0, OPT_INTER},
        {"rack", required_argument, 0, OPT_RACKFIG},
        {"reduce", required_argument, 0, OPT_SPEED}, {"comment", required_argument, 0, OPT_COMMENT},
        {"profile", required_argument, 0, OPT_PROFILE}, {"help", no_argument, 0, 'h'},              {0, 0, 0, 0}};
    const char *cmd = "platform", *out = NULL;
    mring_platgen_t g;
    char err[512];
    int opt;
    uint32_t given = 0; /* the figures given: bit opt - OPT_NODES */
    if (argc < 2 || argv[1][0] == '-') {
        if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
            help();
            return 0;
        }
        cli_usage_error(cmd, "missing the kind; expected minsky, dgx1, dgxh100, bigbasin, cluster or testbed");
    }
    if (mring_platgen_defaults(argv[1], &g))
        cli_usage_error(cmd, "kind '%s' is unknown; expected minsky, dgx1, dgxh100, bigbasin, cluster or testbed",
                        argv[1]);
    optind = 2;
    while ((opt = cli_getopt(cmd, argc, argv, "o:h", opts)) != -1) {
        if (opt == 'o')
            out = optarg;
        else if (opt == 'h') {
            help();
            return 0;
        } else {
            if (opt >= OPT_NODES) /* (--profile is cli.h's OPT_PROFILE, below) */
                given |= 1u << (opt - OPT_NODES);
            figure_opt(cmd, &g, opt, optarg);
        }
    }
    if (optind < argc)
        cli_usage_error(cmd, "unexpected argument '%s'", argv[optind]);
    figures_apply(cmd, &g, given, opts); /* once the counts (racks, NICs) are all known */
    if (!out)
        cli_usage_error(cmd, "-o FILE is required");
    cli_check_output(cmd, "-o", out);
    if (mring_platgen_check(&g, err, sizeof err))
        cli_usage_error(cmd, "%s", err);
    if (mring_platgen_write(&g, out, err, sizeof err))
        cli_fail(cmd, "%s", err);
    return 0;
}
