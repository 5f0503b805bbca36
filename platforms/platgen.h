/*
 * platgen.h - the SimGrid platform generator behind `mring platform` (libxml2's xmlTextWriter).
 *
 * Layout (DESIGN.md section 4): one Floyd zone per node with its GPUs (the rank hosts), CPUs,
 * PCIe switches, NIC router and the NVLink/X-bus/PCIe links and routes; one Full zone per rack
 * holding the node zones and a one-router leaf-switch zone, joined by zoneRoutes over the nodes'
 * NIC links; a Full root zone joining the racks by zoneRoutes over the racks' spine uplinks.
 * All links are SPLITDUPLEX (full duplex).  Ranks: GPU i of node k is rank k*G + i (property
 * mring_rank); the root zone's mring_topo is G x nodes-per-rack x racks.  A GPU host's speed is
 * its reduction throughput (memory bandwidth / 3 bytes moved per byte reduced), see sim/sim.h.
 * Several NICs per node are modelled as one NIC router whose link to the leaf carries their sum,
 * each reached through its own PCIe switch link (so one flow never exceeds one rail).
 *
 * The testbed kind (validation/testbed: one network namespace per node on one machine) is given
 * route figures, not link figures: intra = between two ranks of a node (over the node's loopback
 * path), inter = between ranks of two nodes (over the nodes' shaped veths).  Node k is a Full zone:
 * rank hosts n<k>-rank<i>; a private link n<k>-lo<i> per rank (latency intra/2, bandwidth intra) to
 * the loopback router n<k>-lo, so two ranks of a node are joined by exactly the intra figures; the
 * node's veth n<k>-veth (latency inter/2 per side, bandwidth inter) from its router n<k>-nic to the
 * switch, reached from each rank by n<k>-up<i> (latency 0, bandwidth 10 x inter: never the
 * bottleneck), so ranks of two nodes are joined by exactly the inter figures.  One rack.
 */
#ifndef MRING_PLATGEN_H
#define MRING_PLATGEN_H

#include <stddef.h>

typedef enum { MRING_NODE_MINSKY, MRING_NODE_DGX1, MRING_NODE_CLUSTER, MRING_NODE_TESTBED } mring_node_kind_t;

#define MRING_PLATGEN_MAX_COMMENTS 64

typedef struct mring_platgen {
    const char *name;   /* root zone id, e.g. minsky-64 */
    mring_node_kind_t node;
    int nodes, racks, gpus_per_node, nics;
    double nvlink_bw, nvlink_lat; /* per NVLink edge (B/s per direction, s) */
    double xbus_bw, xbus_lat;     /* CPU-CPU */
    double pcie_bw, pcie_lat;     /* GPU or NIC to its CPU / PCIe switch */
    double nic_bw, nic_lat;       /* one NIC port, node to leaf */
    double gpu_speed, cpu_speed;  /* reduction throughput, bytes of result per second */
    double oversubscription;      /* rack uplink = nodes-per-rack * nics * nic_bw / oversubscription */
    const char *source;           /* where the figures come from (an XML comment) */
    /* testbed: route figures, rank to rank inside a node (s, B/s) and between nodes (inter_bw 0: one
     * node, none given; its unused veth then takes the intra figures) */
    double intra_lat, intra_bw, inter_lat, inter_bw;
    /* extra XML comments after the standard ones (`mring platform --comment`), e.g. the fits' sources */
    const char *comments[MRING_PLATGEN_MAX_COMMENTS];
    int ncomments;
} mring_platgen_t;

/* Defaults of a kind: "minsky" (64 nodes, 4 racks), "dgx1" (DGX-1 P100, 32 nodes), "bigbasin"
 * (Facebook Big Basin, 32 servers), "cluster" (a generic crossbar node), "testbed" (2 nodes of 2 ranks;
 * its intra figures and rank speed have no default: they are measured).  Returns 0 or -1. */
int mring_platgen_defaults(const char *kind, mring_platgen_t *g);

/* Check the parameters (counts >= 1, nodes divisible by racks, figures > 0, DGX-1 nodes have 8 GPUs,
 * Minsky nodes 4; a testbed has one rack, its intra figures and speed, and inter figures when it has
 * more than one node; comments hold no "--").  Returns 0, or -1 with a one-line reason in err. */
int mring_platgen_check(const mring_platgen_t *g, char *err, size_t errlen);

/* Write the platform to path (through a temporary file renamed at the end: whole or nothing).
 * Returns 0, or -1 with a reason in err. */
int mring_platgen_write(const mring_platgen_t *g, const char *path, char *err, size_t errlen);

#endif
