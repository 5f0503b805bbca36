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
 */
#ifndef MRING_PLATGEN_H
#define MRING_PLATGEN_H

#include <stddef.h>

typedef enum { MRING_NODE_MINSKY, MRING_NODE_DGX1, MRING_NODE_CLUSTER } mring_node_kind_t;

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
} mring_platgen_t;

/* Defaults of a kind: "minsky" (64 nodes, 4 racks), "dgx1" (DGX-1 P100, 32 nodes), "bigbasin"
 * (Facebook Big Basin, 32 servers), "cluster" (a generic crossbar node).  Returns 0 or -1. */
int mring_platgen_defaults(const char *kind, mring_platgen_t *g);

/* Check the parameters (counts >= 1, nodes divisible by racks, figures > 0, DGX-1 nodes have 8 GPUs,
 * Minsky nodes 4).  Returns 0, or -1 with a one-line reason in err. */
int mring_platgen_check(const mring_platgen_t *g, char *err, size_t errlen);

/* Write the platform to path (through a temporary file renamed at the end: whole or nothing).
 * Returns 0, or -1 with a reason in err. */
int mring_platgen_write(const mring_platgen_t *g, const char *path, char *err, size_t errlen);

#endif
