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
    " not published: a leaf per rack and spine uplinks of 1:1 by default (an assumption).\n"
    " Latencies: 0.5 us per NVLink/X-bus/PCIe hop (NCCL LL per-hop figure [NCCLTOPO]), 0.5 us per side of\n"
    " an IB link (~1 us MPI latency; an assumption).  GPU speed: P100 HBM2 732 GB/s / 3 bytes moved\n"
    " per byte reduced = 244 GB/s of reduced output [P100WP]. ";
static const char dgx1_source[] =
    " NVIDIA DGX-1 (P100): 8 P100 SXM2 in a hybrid cube-mesh, every edge one NVLink 1.0 of 18 GB/s effective\n"
    " per direction (18.31 measured [DELL]; NCCL's SM60 figure 18 [NCCLTOPO]); GPUs in pairs on 4 PCIe\n"
    " switches, each with one EDR NIC of 12.5 GB/s [DGXWP]; QPI 6 GB/s for GPU P2P [NCCLTOPO].\n"
    " Ranks inside a node follow the NVLink ring GPU 0-1-2-3-7-6-5-4 (as NCCL's ring does), so a ring in\n"
    " rank order takes one NVLink per hop.\n"
    " Racks of 16 nodes with 1:1 spine uplinks (an assumption).  GPU speed as for Minsky. ";
static const char dgxh100_source[] =
    " NVIDIA DGX H100 in DGX SuperPOD scalable units (SUs): 8 H100 SXM5 GPUs on 4 NVSwitch chips [BASEPOD]; each GPU\n"
    " has 18 NVLink4 links of 25 GB/s per direction [HOPPER]: NVSwitch as a crossbar, one link per GPU of\n"
    " 18 x 25 = 450 GB/s per direction (DER; p2pBandwidthLatencyTest measures 376-380 GB/s one way [NCCL1264]),\n"
    " 0.25 us per GPU-switch link, so 0.5 us GPU to GPU, NCCL's per-hop figure [NCCLTOPO] (DER).  Eight single-port\n"
    " ConnectX-7 NICs of 400 Gb/s [BASEPOD] = 50 GB/s per direction (DER), one per GPU [DGXH100UG, table 6], numbered\n"
    " here by its GPU; GPU to NIC over PCIe Gen5 x16, 128 GB/s both ways [H100DS] = 64 GB/s per direction (DER).\n"
    " Compute fabric: SUs of 32 nodes, rail-aligned, a leaf switch per rail; per SU 8 leaves and 256 leaf-spine\n"
    " cables [SPODH100, table 4]: 32 uplinks per leaf for its 32 node ports (one slot of the 32-node design goes\n"
    " to UFM there), so 1:1 (DER); traffic between rails traverses the spine layer [SPODH100].  0.5 us per side\n"
    " of an NDR link (an assumption, as for the EDR kinds).  GPU speed: H100 SXM HBM3 3.35 TB/s [H100DS] / 3 bytes\n"
    " moved per byte reduced = 1117 GB/s of reduced output (DER). ";
static const char bigbasin_source[] =
    " Facebook Big Basin as in Goyal et al., arXiv 1706.02677: 8 P100 with NVLink per server (modelled as\n"
    " the DGX-1 cube-mesh), one 50 Gbit Ethernet NIC (6.25 GB/s) per server, Wedge100 switches [GOYAL];\n"
    " 32 servers = 256 GPUs.  The 5 us per side of the Ethernet link is an assumption (Gloo over TCP:\n"
    " tens of us, unverified). ";
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
    } else if (!strcmp(kind, "dgxh100")) { /* no CPU hosts: the X-bus and CPU figures are unused */
        *g = (mring_platgen_t){.name = "dgxh100-32", .node = MRING_NODE_DGXH100, .nodes = 32, .racks = 1,
                               .gpus_per_node = 8, .nics = 8, .nvlink_bw = 450e9, .nvlink_lat = 0.25e-6,
                               .pcie_bw = 64e9, .pcie_lat = 0.5e-6, .nic_bw = 50e9, .nic_lat = 0.5e-6,
                               .gpu_speed = 3.35e12 / 3, .oversubscription = 1, .source = dgxh100_source};
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
    if (g->nics != 1 || g->gpus_per_node > 256) {
        snprintf(err, errlen, "a testbed has one veth per node (--nics 1) and at most 256 ranks per node; got --nics %d, "
                 "--gpus-per-node %d", g->nics, g->gpus_per_node);
        return -1;
    }
    if (g->racks > 1 && !(g->rack_bw > 0 && g->rack_lat >= 0 && isfinite(g->rack_lat + g->rack_bw))) {
        snprintf(err, errlen, "a testbed of %d racks needs --rack LAT:BW (the route between racks)", g->racks);
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

/* The node kinds' shapes: GPUs per node and how the NICs may spread over the node's GPUs, PCIe
 * switches or sockets (evenly: their count divides the units). */
static int check_node(const mring_platgen_t *g, char *err, size_t errlen)
{
    if (g->node == MRING_NODE_MINSKY && (g->gpus_per_node != 4 || g->nics > 2)) {
        snprintf(err, errlen, "a Minsky node has 4 GPUs and 1 or 2 NICs (one per socket); got %d GPUs, --nics %d",
                 g->gpus_per_node, g->nics);
        return -1;
    }
    if (g->node == MRING_NODE_DGX1 && (g->gpus_per_node != 8 || 4 % g->nics)) {
        snprintf(err, errlen, "a DGX-1 node has 8 GPUs and 1, 2 or 4 NICs (spread over its 4 PCIe switches); got %d "
                 "GPUs, --nics %d", g->gpus_per_node, g->nics);
        return -1;
    }
    if (g->node == MRING_NODE_DGXH100 && (g->gpus_per_node != 8 || 8 % g->nics)) {
        snprintf(err, errlen, "a DGX H100 node has 8 GPUs and 1, 2, 4 or 8 NICs (8: one per GPU); got %d GPUs, "
                 "--nics %d", g->gpus_per_node, g->nics);
        return -1;
    }
    if (g->node == MRING_NODE_CLUSTER && g->nics > g->gpus_per_node) {
        snprintf(err, errlen, "--nics %d: a cluster node has at most one NIC per GPU (%d GPUs)", g->nics,
                 g->gpus_per_node);
        return -1;
    }
    return 0;
}

/* The root zone's name must differ from the zones the generator names inside it (r<k> and r<k>-sw for racks, n<k>
 * for a testbed's nodes): SimGrid refuses a second zone of one name when it loads the file. */
static int check_name(const mring_platgen_t *g, char *err, size_t errlen)
{
    const char *p = g->name;
    size_t digits = (*p == 'r' || *p == 'n') ? strspn(p + 1, "0123456789") : 0;
    if (!*p || (digits && (!p[1 + digits] || (*p == 'r' && !strcmp(p + 1 + digits, "-sw"))))) {
        snprintf(err, errlen, "--name '%s' is not valid; expected a name not empty and not of a zone inside the "
                 "platform (r<k>, r<k>-sw, n<k>)", g->name);
        return -1;
    }
    return 0;
}

int mring_platgen_check(const mring_platgen_t *g, char *err, size_t errlen)
{
    int cpus = g->node != MRING_NODE_DGXH100; /* DGX H100 nodes have no CPU hosts */
    const double figs[] = {g->nvlink_bw, cpus ? g->xbus_bw : 1, g->pcie_bw, g->nic_bw, g->gpu_speed,
                           cpus ? g->cpu_speed : 1, g->oversubscription};
    if (g->nodes < 1 || g->racks < 1 || g->nodes % g->racks || (long)g->nodes * g->gpus_per_node > 65536) {
        snprintf(err, errlen, "--nodes %d with --racks %d: expected racks >= 1 dividing nodes, at most 65536 GPUs",
                 g->nodes, g->racks);
        return -1;
    }
    if (g->nics < 1 || g->gpus_per_node < 1) {
        snprintf(err, errlen, "--nics %d, --gpus-per-node %d: expected at least 1 of each", g->nics, g->gpus_per_node);
        return -1;
    }
    if (check_node(g, err, errlen))
        return -1;
    if (g->node == MRING_NODE_TESTBED && check_testbed(g, err, errlen))
        return -1;
    if (check_comments(g, err, errlen) || check_name(g, err, errlen))
        return -1;
    for (size_t i = 0; i < sizeof figs / sizeof *figs; i++)
        if (!(figs[i] > 0)) {
            snprintf(err, errlen, "bandwidths, speeds and the over-subscription must be > 0");
            return -1;
        }
    return 0;
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
                 " Between nodes it crosses the two ranks' ports n<k>-lo<i> and the two nodes' veths n<k>-veth\n"
                 " (%.6g us per side, %.6g GB/s): %.6g us, %.6g GB/s (when inter < intra latency, the veths take 0). ",
                 g->nic_lat * 1e6, g->nic_bw / 1e9, g->intra_lat * 1e6 + 2 * g->nic_lat * 1e6,
                 (g->nic_bw < g->intra_bw ? g->nic_bw : g->intra_bw) / 1e9);
    else
        snprintf(buf + n, len - (size_t)n, " One node: no route between nodes (its veth is unused). ");
}

/* The "this file" comment of the kinds with link figures: the figures, then how routes find the rails. */
static void params(const mring_platgen_t *g, char *buf, size_t len)
{
    int rails = mring_platgen_rail_leaves(g), n;
    if (rails)
        n = snprintf(buf, len,
                     " this file: %d nodes in %d SU(s), %d GPUs and %d NIC(s) per node; NVSwitch %.4g GB/s per GPU,\n"
                     " PCIe %.4g GB/s, NIC %.4g GB/s and %.4g us per side, GPU reduction %.4g GB/s, over-subscription %.4g:1.\n",
                     g->nodes, g->racks, g->gpus_per_node, g->nics, g->nvlink_bw / 1e9, g->pcie_bw / 1e9,
                     g->nic_bw / 1e9, g->nic_lat * 1e6, g->gpu_speed / 1e9, g->oversubscription);
    else {
        char xbus[64] = ""; /* a cluster node has no X-bus (platgen_node.c: cluster()) */
        if (g->node != MRING_NODE_CLUSTER)
            snprintf(xbus, sizeof xbus, " X-bus/QPI %.4g GB/s,", g->xbus_bw / 1e9);
        n = snprintf(buf, len,
                     " this file: %d nodes in %d rack(s), %d GPUs and %d NIC(s) per node; NVLink %.4g GB/s,%s\n"
                     " PCIe %.4g GB/s, NIC %.4g GB/s and %.4g us per side, GPU reduction %.4g GB/s, over-subscription %.4g:1.\n",
                     g->nodes, g->racks, g->gpus_per_node, g->nics, g->nvlink_bw / 1e9, xbus, g->pcie_bw / 1e9,
                     g->nic_bw / 1e9, g->nic_lat * 1e6, g->gpu_speed / 1e9, g->oversubscription);
    }
    n += snprintf(buf + n, len - (size_t)n, " The NIC of each GPU (GPU:NIC):");
    for (int i = 0; i < g->gpus_per_node && (size_t)n < len; i++)
        n += snprintf(buf + n, len - (size_t)n, "%s%d:%d", i % 16 ? " " : "\n ", i, mring_platgen_gpu_nic(g, i));
    if ((size_t)n >= len)
        return;
    if (rails)
        snprintf(buf + n, len - (size_t)n, "%s",
                 "\n Routes: a scalable unit (SU) is one graph zone (Floyd, shortest paths in links) over its\n"
                 " nodes' GPUs, a leaf switch r<s>-leaf<r> per rail r and the SU's side of the spine r<s>-spine.\n"
                 " NIC r of node k is its own port n<k>-rail<r> to leaf r, reached from GPU i over n<k>-pcie<i>;\n"
                 " leaf r reaches the spine over r<s>-leaf<r>-up (nodes per SU x NIC bandwidth / over-subscription).\n"
                 " Same rail: port, leaf, port.  Different rails: port, leaf r's uplink, the spine, the other leaf's\n"
                 " uplink, port, as the fabric routes it; NCCL's PXN (data first over NVLink to the GPU on the\n"
                 " destination's rail) is software and not modelled.  Routes between the GPUs of a node are\n"
                 " bypassRoutes over NVSwitch (n<k>-nvl<i> UP, n<k>-nvl<j> DOWN), so no route between nodes passes\n"
                 " through a GPU.  SUs join over r<s>-uplink, the sum of their leaves' uplinks at 0 us (never a\n"
                 " constraint of its own: SimGrid's routes between zones need a link). ");
    else
        snprintf(buf + n, len - (size_t)n, "%s",
                 "\n Routes: a rack is one graph zone (Floyd, shortest paths in links) over its nodes' GPUs,\n"
                 " CPUs, PCIe switches and NICs and its leaf switch r<s>-leaf, a crossbar.  NIC r of node k is its own\n"
                 " port n<k>-rail<r> to the leaf; GPU i of node A to GPU j of node B crosses n<A>-rail<NIC of i>, the\n"
                 " leaf and n<B>-rail<NIC of j>, whatever the rails.  Racks join over their uplinks r<s>-uplink (nodes\n"
                 " x NICs x NIC bandwidth / over-subscription) through the spine, a crossbar. ");
}

static int write_doc(xw_t *w, const mring_platgen_t *g)
{
    char topo[64], id[64], b[64], ga[64], gb[64], la[64], lb[64], params_[4096];
    int per = g->nodes / g->racks, rc = 0;
    if (g->racks > 1)
        snprintf(topo, sizeof topo, "%dx%dx%d", g->gpus_per_node, per, g->racks);
    else
        snprintf(topo, sizeof topo, "%dx%d", g->gpus_per_node, g->nodes);
    if (g->node == MRING_NODE_TESTBED)
        testbed_params(g, params_, sizeof params_);
    else
        params(g, params_, sizeof params_);
    xw_start_platform(w);
    xw_comment(w, g->source);
    xw_comment(w, params_);
    xw_comment(w, " mring conventions: hosts with property mring_rank run the ranks; the root zone's mring_topo is\n"
                  " the natural topology.  Written by `mring platform`; regenerate rather than edit. ");
    for (int i = 0; i < g->ncomments; i++) {
        char c[4096];
        snprintf(c, sizeof c, " %s ", g->comments[i]);
        xw_comment(w, c);
    }
    xw_start_zone(w, g->name, "Full");
    xw_prop(w, "mring_topo", topo);
    if (g->sw && *g->sw)
        xw_prop(w, "mring_sw", g->sw);
    for (int r = 0; r < g->racks && !rc; r++)
        rc = mring_platgen_rack(w, g, r);
    for (int r = 0; r < g->racks; r++)
        for (int s = r + 1; s < g->racks; s++) {
            snprintf(id, sizeof id, "r%d", r);
            snprintf(b, sizeof b, "r%d", s);
            mring_platgen_rack_gateway(g, r, ga, sizeof ga);
            mring_platgen_rack_gateway(g, s, gb, sizeof gb);
            snprintf(la, sizeof la, "r%d-uplink", r);
            snprintf(lb, sizeof lb, "r%d-uplink", s);
            xw_zone_route(w, id, b, ga, gb, la, lb);
        }
    xw_end(w);
    return xw_finish(w) || rc ? -1 : 0;
}

int mring_platgen_write(const mring_platgen_t *g0, const char *path, char *err, size_t errlen)
{
    char tmp[4096];
    xw_t *w;
    mring_platgen_t t = *g0, *g = &t;
    if (g->node == MRING_NODE_TESTBED) { /* the veths carry the inter figures beyond the ranks' ports */
        if (!(g->inter_bw > 0)) {         /* one node: an unused veth */
            g->inter_lat = g->intra_lat;
            g->inter_bw = g->intra_bw;
        }
        g->nic_bw = g->inter_bw;
        g->nic_lat = g->inter_lat > g->intra_lat ? (g->inter_lat - g->intra_lat) / 2 : 0;
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
