/* platgen.c - write SimGrid platforms: racks, leaf switches and spine uplinks (see platgen.h). */
#include "platgen.h"

#include "platgen_xml.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Figures and their sources: platforms/SOURCES.md (ids in brackets). */
static const char minsky_source[] =
    " IBM Power S822LC for HPC (Minsky, 8335-GTB): 2 POWER8 + 4 P100 SXM2 per node; per socket a CPU-GPU-GPU\n"
    " triangle of NVLink 1.0 with 2 links per edge, 40 GB/s per direction nominal, 36 GB/s effective\n"
    " (2 links measured at 36.39 GB/s [DELL]; wiring [RB5405, ANAND]); X-bus 38.4 GB/s [RB5102];\n"
    " one EDR InfiniBand port of 12.5 GB/s per direction [CX4] behind PCIe Gen3 x16, 15.75 GB/s [GEARS];\n"
    " 4 racks of 16 nodes as DDL's 4x16x4 example [DDLREADME]; switch tiers and over-subscription are\n"
    " unknown [platform-numbers 1.5]: a leaf per rack and spine uplinks of 1:1 by default.\n"
    " Latencies: 0.5 us per NVLink/X-bus/PCIe hop (NCCL LL per-hop figure [NCCLTOPO]), 0.5 us per side of\n"
    " an IB link (~1 us MPI latency [platform-numbers 4.3]).  GPU speed: P100 HBM2 732 GB/s / 3 bytes moved\n"
    " per byte reduced = 244 GB/s of reduced output [P100WP]. ";
static const char dgx1_source[] =
    " NVIDIA DGX-1 (P100): 8 P100 SXM2 in a hybrid cube-mesh, every edge one NVLink 1.0 of 18 GB/s effective\n"
    " per direction (18.31 measured [DELL]; NCCL's SM60 figure 18 [NCCLTOPO]); GPUs in pairs on 4 PCIe\n"
    " switches, each with one EDR NIC of 12.5 GB/s [DGXWP]; QPI 6 GB/s for GPU P2P [NCCLTOPO].\n"
    " Ranks inside a node follow the NVLink ring GPU 0-1-2-3-7-6-5-4 (as NCCL's ring does), so a ring in\n"
    " rank order takes one NVLink per hop.\n"
    " Racks of 16 nodes with 1:1 spine uplinks (an assumption).  GPU speed as for Minsky. ";
static const char bigbasin_source[] =
    " Facebook Big Basin as in Goyal et al., arXiv 1706.02677: 8 P100 with NVLink per server (modelled as\n"
    " the DGX-1 cube-mesh), one 50 Gbit Ethernet NIC (6.25 GB/s) per server, Wedge100 switches [GOYAL];\n"
    " 32 servers = 256 GPUs.  The 5 us per side of the Ethernet link is an assumption (Gloo over TCP:\n"
    " tens of us [platform-numbers 5], unverified). ";
static const char cluster_source[] =
    " A generic cluster: G GPUs per node on a crossbar (one link per GPU), NICs behind one PCIe link. ";

static const char testbed_source[] =
    " An emulated cluster on one machine (validation/testbed): a Linux network namespace per node whose MPI\n"
    " ranks talk over the node's loopback path; between nodes one veth per node on a bridge, its egress shaped\n"
    " with tc tbf.  The figures are route figures fitted from MPI ping-pong by mring-calibrate (the comments\n"
    " below give each one's fit and residuals); a rank host's speed is the measured throughput of the host\n"
    " float32 sum kernel, bytes of result per second. ";

int mring_platgen_defaults(const char *kind, mring_platgen_t *g)
{
    if (!strcmp(kind, "minsky")) {
        *g = (mring_platgen_t){"minsky-64", MRING_NODE_MINSKY, 64, 4, 4, 1, 36e9, 0.5e-6, 38.4e9, 0.5e-6,
                               15.75e9, 0.5e-6, 12.5e9, 0.5e-6, 244e9, 38.4e9, 1, minsky_source, .ncomments = 0};
    } else if (!strcmp(kind, "dgx1")) {
        *g = (mring_platgen_t){"dgx1-p100-32", MRING_NODE_DGX1, 32, 2, 8, 4, 18e9, 0.5e-6, 6e9, 0.5e-6,
                               15.75e9, 0.5e-6, 12.5e9, 0.5e-6, 244e9, 50e9, 1, dgx1_source, .ncomments = 0};
    } else if (!strcmp(kind, "bigbasin")) {
        *g = (mring_platgen_t){"bigbasin-32", MRING_NODE_DGX1, 32, 2, 8, 1, 18e9, 0.5e-6, 6e9, 0.5e-6,
                               15.75e9, 0.5e-6, 6.25e9, 5e-6, 244e9, 50e9, 1, bigbasin_source, .ncomments = 0};
    } else if (!strcmp(kind, "cluster")) {
        *g = (mring_platgen_t){"cluster", MRING_NODE_CLUSTER, 8, 1, 1, 1, 36e9, 0.5e-6, 38.4e9, 0.5e-6,
                               15.75e9, 0.5e-6, 12.5e9, 0.5e-6, 244e9, 38.4e9, 1, cluster_source, .ncomments = 0};
    } else if (!strcmp(kind, "testbed")) { /* link figures unused; intra and speed must be given */
        *g = (mring_platgen_t){"testbed", MRING_NODE_TESTBED, 2, 1, 2, 1, 36e9, 0.5e-6, 38.4e9, 0.5e-6,
                               15.75e9, 0.5e-6, 12.5e9, 0.5e-6, 0, 38.4e9, 1, testbed_source, .ncomments = 0};
    } else {
        return -1;
    }
    return 0;
}

/* The testbed's own checks (see mring_platgen_check). */
static int check_testbed(const mring_platgen_t *g, char *err, size_t errlen)
{
    if (g->racks != 1 || g->nics != 1 || g->gpus_per_node > 256) {
        snprintf(err, errlen, "a testbed has one switch (--racks 1), one veth per node (--nics 1) and at most 256 "
                 "ranks per node; got --racks %d, --nics %d, --gpus-per-node %d", g->racks, g->nics, g->gpus_per_node);
        return -1;
    }
    if (!(g->intra_bw > 0) || !(g->gpu_speed > 0) || (g->nodes > 1 && !(g->inter_bw > 0))) {
        snprintf(err, errlen, "testbed of %d node(s): missing%s%s%s (the figures validation/calibrate fits)", g->nodes,
                 g->intra_bw > 0 ? "" : " --intra LAT:BW", g->nodes > 1 && !(g->inter_bw > 0) ? " --inter LAT:BW" : "",
                 g->gpu_speed > 0 ? "" : " --reduce BW");
        return -1;
    }
    if (!(g->intra_lat >= 0) || !(g->inter_lat >= 0) || !isfinite(g->intra_lat + g->inter_lat + g->intra_bw +
                                                                     g->inter_bw + g->gpu_speed)) {
        snprintf(err, errlen, "testbed figures must be finite, latencies >= 0");
        return -1;
    }
    return 0;
}

/* Comments must make valid XML comments: no "--" inside, no '-' at the end. */
static int check_comments(const mring_platgen_t *g, char *err, size_t errlen)
{
    for (int i = 0; i < g->ncomments; i++) {
        size_t n = strlen(g->comments[i]);
        if (strstr(g->comments[i], "--") || (n && g->comments[i][n - 1] == '-')) {
            snprintf(err, errlen, "--comment '%s': an XML comment cannot hold \"--\" or end with '-'",
                     g->comments[i]);
            return -1;
        }
    }
    return 0;
}

int mring_platgen_check(const mring_platgen_t *g, char *err, size_t errlen)
{
    const double figs[] = {g->nvlink_bw, g->xbus_bw, g->pcie_bw, g->nic_bw, g->gpu_speed, g->cpu_speed,
                           g->oversubscription};
    if (g->nodes < 1 || g->racks < 1 || g->nodes % g->racks || (long)g->nodes * g->gpus_per_node > 65536) {
        snprintf(err, errlen, "--nodes %d with --racks %d: expected racks >= 1 dividing nodes, at most 65536 GPUs",
                 g->nodes, g->racks);
        return -1;
    }
    if (g->nics < 1 || g->gpus_per_node < 1) {
        snprintf(err, errlen, "--nics %d, --gpus-per-node %d: expected at least 1 of each", g->nics, g->gpus_per_node);
        return -1;
    }
    if (g->node == MRING_NODE_MINSKY && (g->gpus_per_node != 4 || g->nics > 2)) {
        snprintf(err, errlen, "a Minsky node has 4 GPUs and 1 or 2 NICs (one per socket); got %d GPUs, %d NICs",
                 g->gpus_per_node, g->nics);
        return -1;
    }
    if (g->node == MRING_NODE_DGX1 && (g->gpus_per_node != 8 || g->nics > 4)) {
        snprintf(err, errlen, "a DGX-1 node has 8 GPUs and 1 to 4 NICs; got %d GPUs, %d NICs", g->gpus_per_node,
                 g->nics);
        return -1;
    }
    if (g->node == MRING_NODE_TESTBED && check_testbed(g, err, errlen))
        return -1;
    if (check_comments(g, err, errlen))
        return -1;
    for (size_t i = 0; i < sizeof figs / sizeof *figs; i++)
        if (!(figs[i] > 0)) {
            snprintf(err, errlen, "bandwidths, speeds and the over-subscription must be > 0");
            return -1;
        }
    return 0;
}

static void rack_zone(xw_t *w, const mring_platgen_t *g, int rack)
{
    int per = g->nodes / g->racks, first = rack * per;
    char id[64], sw[64], leaf[64], a[64], b[64], la[64], lb[64];
    snprintf(id, sizeof id, "r%d", rack);
    snprintf(sw, sizeof sw, "r%d-sw", rack);
    snprintf(leaf, sizeof leaf, "r%d-leaf", rack);
    xw_start_zone(w, id, "Full");
    for (int k = first; k < first + per; k++)
        mring_platgen_node(w, g, k);
    xw_start_zone(w, sw, "Full");
    xw_comment(w, " the rack's leaf switch (a crossbar) and its uplink to the spine ");
    xw_router(w, leaf);
    snprintf(la, sizeof la, "r%d-uplink", rack);
    xw_link(w, la, g->nodes / g->racks * g->nics * g->nic_bw / g->oversubscription, g->nic_lat);
    xw_end(w);
    for (int k = first; k < first + per; k++) {
        snprintf(a, sizeof a, "n%d", k);
        snprintf(la, sizeof la, "n%d-nic", k);
        mring_platgen_nic_link(g, k, lb, sizeof lb);
        xw_zone_route(w, a, sw, la, leaf, lb, NULL);
        for (int l = k + 1; l < first + per; l++) {
            char nl[64], il[64];
            snprintf(b, sizeof b, "n%d", l);
            snprintf(nl, sizeof nl, "n%d-nic", l);
            mring_platgen_nic_link(g, l, il, sizeof il);
            xw_zone_route(w, a, b, la, nl, lb, il);
        }
    }
    xw_end(w);
}

/* The testbed's "this file" comment: its route figures and how they sit on the links. */
static void testbed_params(const mring_platgen_t *g, char *buf, size_t len)
{
    int n = snprintf(buf, len,
                     " this file: %d node(s) of %d ranks; rank reduction %.6g GB/s.  Inside a node a route crosses\n"
                     " the two ranks' loopback links n<k>-lo<i> (%.6g us each, %.6g GB/s): %.6g us, %.6g GB/s.\n",
                     g->nodes, g->gpus_per_node, g->gpu_speed / 1e9, g->intra_lat / 2 * 1e6, g->intra_bw / 1e9,
                     g->intra_lat * 1e6, g->intra_bw / 1e9);
    if (n < 0 || (size_t)n >= len)
        return;
    if (g->nodes > 1)
        snprintf(buf + n, len - (size_t)n,
                 " Between nodes it crosses the ranks' links to their veth n<k>-up<i> (0 us, %.6g GB/s: never the\n"
                 " bottleneck) and the two nodes' veths n<k>-veth (%.6g us per side, %.6g GB/s): %.6g us, %.6g GB/s. ",
                 g->nic_bw * 10 / 1e9, g->nic_lat * 1e6, g->nic_bw / 1e9, g->inter_lat * 1e6, g->inter_bw / 1e9);
    else
        snprintf(buf + n, len - (size_t)n, " One node: no route between nodes (its veth is unused). ");
}

static int write_doc(xw_t *w, const mring_platgen_t *g)
{
    char topo[64], id[64], b[64], ga[64], gb[64], la[64], lb[64];
    int per = g->nodes / g->racks;
    if (g->racks > 1)
        snprintf(topo, sizeof topo, "%dx%dx%d", g->gpus_per_node, per, g->racks);
    else
        snprintf(topo, sizeof topo, "%dx%d", g->gpus_per_node, g->nodes);
    char params[1024];
    if (g->node == MRING_NODE_TESTBED)
        testbed_params(g, params, sizeof params);
    else
        snprintf(params, sizeof params,
                 " this file: %d nodes in %d rack(s), %d GPUs and %d NIC(s) per node; NVLink %.4g GB/s, X-bus/QPI %.4g GB/s,\n"
                 " PCIe %.4g GB/s, NIC %.4g GB/s and %.4g us per side, GPU reduction %.4g GB/s, over-subscription %.4g:1 ",
                 g->nodes, g->racks, g->gpus_per_node, g->nics, g->nvlink_bw / 1e9, g->xbus_bw / 1e9, g->pcie_bw / 1e9,
                 g->nic_bw / 1e9, g->nic_lat * 1e6, g->gpu_speed / 1e9, g->oversubscription);
    xw_start_platform(w);
    xw_comment(w, g->source);
    xw_comment(w, params);
    xw_comment(w, " mring conventions: hosts with property mring_rank run the ranks; the root zone's mring_topo is\n"
                  " the natural topology.  Written by `mring platform`; regenerate rather than edit. ");
    for (int i = 0; i < g->ncomments; i++) {
        char c[4096];
        snprintf(c, sizeof c, " %s ", g->comments[i]);
        xw_comment(w, c);
    }
    xw_start_zone(w, g->name, "Full");
    xw_prop(w, "mring_topo", topo);
    for (int r = 0; r < g->racks; r++)
        rack_zone(w, g, r);
    for (int r = 0; r < g->racks; r++)
        for (int s = r + 1; s < g->racks; s++) {
            snprintf(id, sizeof id, "r%d", r);
            snprintf(b, sizeof b, "r%d", s);
            snprintf(ga, sizeof ga, "r%d-leaf", r);
            snprintf(gb, sizeof gb, "r%d-leaf", s);
            snprintf(la, sizeof la, "r%d-uplink", r);
            snprintf(lb, sizeof lb, "r%d-uplink", s);
            xw_zone_route(w, id, b, ga, gb, la, lb);
        }
    xw_end(w);
    return xw_finish(w);
}

int mring_platgen_write(const mring_platgen_t *g0, const char *path, char *err, size_t errlen)
{
    char tmp[4096];
    xw_t *w;
    mring_platgen_t t = *g0, *g = &t;
    if (g->node == MRING_NODE_TESTBED) { /* the veth carries the inter figures, half the latency per side */
        if (!(g->inter_bw > 0)) {         /* one node: an unused veth */
            g->inter_lat = g->intra_lat;
            g->inter_bw = g->intra_bw;
        }
        g->nic_bw = g->inter_bw;
        g->nic_lat = g->inter_lat / 2;
    }
    snprintf(tmp, sizeof tmp, "%s.tmp%ld", path, (long)getpid());
    if (!(w = xw_open(tmp))) {
        snprintf(err, errlen, "cannot write %s", path);
        return -1;
    }
    if (write_doc(w, g) || rename(tmp, path)) {
        snprintf(err, errlen, "writing %s failed", path);
        unlink(tmp);
        return -1;
    }
    return 0;
}
