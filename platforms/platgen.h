/*
 * platgen.h - the SimGrid platform generator behind `mring platform` (libxml2's xmlTextWriter).
 *
 * Layout: a Full root zone joining racks (DGX H100: SuperPOD scalable units, SUs) by zoneRoutes over
 * their uplinks r<s>-uplink through the spine, a crossbar.  A rack is ONE graph zone (Floyd: shortest
 * paths counted in links) over every netpoint of its nodes (GPUs, the rank hosts; CPUs; PCIe switches;
 * NIC routers) and its switches, so that a route between nodes can take a different NIC per GPU: a zone
 * per node would have one gateway for all its GPUs.  Rails: every NIC r of node k is its own port
 * n<k>-rail<r> (nic_bw) to its leaf switch, and GPU i's traffic between nodes leaves and enters through
 * its own NIC (mring_platgen_gpu_nic: DGX-1 GPU pair {2s, 2s+1} -> the NIC of PCIe switch s; Minsky the
 * NIC of the GPU's socket; DGX H100 NIC i for GPU i), because that path is the unique shortest one: GPU
 * i of node A to GPU j of node B crosses n<A>-rail<nic(i)> and n<B>-rail<nic(j)>.  Minsky, DGX-1, Big
 * Basin, cluster: one leaf r<s>-leaf per rack, where different rails meet.  DGX H100: rail-optimized, a
 * leaf r<s>-leaf<r> per rail with an uplink r<s>-leaf<r>-up to the SU's side of the spine r<s>-spine, so
 * different rails cross leaf, spine, leaf as in the fabric; routes between the GPUs of a node are
 * bypassRoutes over NVSwitch (one crossbar link n<k>-nvl<i> per GPU), outside the graph, so no route
 * between nodes passes through a GPU.  All links are SPLITDUPLEX (full duplex).  Ranks: GPU i of node k
 * is rank k*G + i (DGX-1: the NVLink ring order) in property mring_rank; the root zone's mring_topo is
 * G x nodes-per-rack x racks.  A GPU host's speed is its reduction throughput (memory bandwidth / 3
 * bytes moved per byte reduced), see sim/sim.h.
 *
 * The testbed kind (validation/testbed: a network namespace per rank, shaped ports) is given route
 * figures, not link figures: intra = between two ranks of a node, inter = between ranks of two nodes.
 * Node k is a Full zone: rank hosts n<k>-rank<i>; a port n<k>-lo<i> per rank (latency intra/2,
 * bandwidth intra) to the node's switch router n<k>-lo and to its NIC router n<k>-nic, so two ranks of
 * a node are joined by exactly the intra figures and a rank's port carries all its traffic; the node's
 * veth n<k>-veth (latency (inter - intra)/2 per side, bandwidth inter) from n<k>-nic to the switch, so
 * ranks of two nodes are joined by exactly the inter figures (bandwidth min(intra, inter)).  With
 * racks, each rack's leaf reaches the spine through r<k>-uplink (latency (rack - inter)/2, bandwidth the
 * measured uplink capacity, shared by the rack's flows).
 */
#ifndef MRING_PLATGEN_H
#define MRING_PLATGEN_H

#include <stddef.h>

typedef enum {
    MRING_NODE_MINSKY,
    MRING_NODE_DGX1,
    MRING_NODE_DGXH100,
    MRING_NODE_CLUSTER,
    MRING_NODE_TESTBED
} mring_node_kind_t;

#define MRING_PLATGEN_MAX_COMMENTS 64

typedef struct mring_platgen {
    const char *name;   /* root zone id, e.g. minsky-64 */
    mring_node_kind_t node;
    int nodes, racks, gpus_per_node, nics;
    double nvlink_bw, nvlink_lat; /* per NVLink edge, or per GPU's crossbar link (B/s per direction, s) */
    double xbus_bw, xbus_lat;     /* CPU-CPU (unused on DGX H100: no CPU hosts) */
    double pcie_bw, pcie_lat;     /* GPU or NIC to its CPU / PCIe switch */
    double nic_bw, nic_lat;       /* one NIC port, node to leaf */
    double gpu_speed, cpu_speed;  /* reduction throughput, bytes of result per second */
    double oversubscription;      /* rack (or rail leaf) uplink = its nodes' NIC ports * nic_bw / this */
    const char *source;           /* where the figures come from (an XML comment) */
    /* testbed: route figures, rank to rank inside a node (s, B/s) and between nodes (inter_bw 0: one
     * node, none given; its unused veth then takes the intra figures) */
    double intra_lat, intra_bw, inter_lat, inter_bw;
    double rack_lat, rack_bw; /* testbed with racks: route latency between ranks of two racks (s), uplink (B/s) */
    /* extra XML comments after the standard ones (`mring platform --comment`), e.g. the fits' sources */
    const char *comments[MRING_PLATGEN_MAX_COMMENTS];
    int ncomments;
    const char *sw; /* the software profile's text form (swprof.h): the root zone's mring_sw; NULL = none */
} mring_platgen_t;

/* Defaults of a kind: "minsky" (64 nodes, 4 racks), "dgx1" (DGX-1 P100, 32 nodes), "dgxh100" (DGX H100,
 * 32 nodes: one SuperPOD scalable unit), "bigbasin" (Facebook Big Basin, 32 servers), "cluster" (a
 * generic crossbar node), "testbed" (2 nodes of 2 ranks; its intra figures and rank speed have no
 * default: they are measured).  Returns 0 or -1. */
int mring_platgen_defaults(const char *kind, mring_platgen_t *g);

/* Whether racks have a leaf switch per rail (rail-optimized: dgxh100) rather than one leaf. */
static inline int mring_platgen_rail_leaves(const mring_platgen_t *g) { return g->node == MRING_NODE_DGXH100; }

/* Check the parameters (counts >= 1, nodes divisible by racks, figures > 0; Minsky nodes have 4 GPUs
 * and 1 or 2 NICs, DGX-1 8 GPUs and 1, 2 or 4 NICs, DGX H100 8 GPUs and 1, 2, 4 or 8 NICs, a cluster node
 * at most one NIC per GPU; a testbed has one rack, one NIC, its intra figures and speed, and inter
 * figures when it has more than one node; comments hold no "--"; the name is not empty and not one of a zone
 * inside: r<k>, r<k>-sw, n<k>).  Returns 0, or -1 with a one-line reason in err. */
int mring_platgen_check(const mring_platgen_t *g, char *err, size_t errlen);

/* Write the platform to path (through a temporary file renamed at the end: whole or nothing).
 * Returns 0, or -1 with a reason in err. */
int mring_platgen_write(const mring_platgen_t *g, const char *path, char *err, size_t errlen);

#endif
