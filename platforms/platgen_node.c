/* platgen_node.c - the node zones: Minsky, DGX-1 (and Big Basin), generic crossbar (see platgen.h). */
#include "platgen_xml.h"

#include <stdio.h>

/* Names inside node k: "n<k>-<what>" */
#define NAME(buf, ...) snprintf(buf, sizeof buf, __VA_ARGS__)

/* The GPU hosts of node k and their ranks: in GPU order, except on the DGX-1 cube-mesh, where
 * consecutive ranks follow the NVLink ring 0-1-2-3-7-6-5-4 (the ring NCCL builds on a DGX-1 P100:
 * every hop one direct NVLink; GPU order would send 3 -> 4 over two hops through GPU 0 or 7). */
static void gpus(xw_t *w, const mring_platgen_t *g, int k)
{
    static const int ring_pos[8] = {0, 1, 2, 3, 7, 6, 5, 4}; /* GPU i's place in the ring (self-inverse) */
    char id[64];
    for (int i = 0; i < g->gpus_per_node; i++) {
        int pos = g->node == MRING_NODE_DGX1 && g->gpus_per_node == 8 ? ring_pos[i] : i;
        NAME(id, "n%d-gpu%d", k, i);
        xw_host(w, id, g->gpu_speed, k * g->gpus_per_node + pos);
    }
}

/* The node's links and routes: SimGrid wants every link of a zone declared before its routes. */
typedef struct edge {
    char a[48], b[48], link[48];
    double bw, lat;
} edge_t;

static edge_t edges[64];
static int nedges;

/* A link between two netpoints of node k, and the route over it. */
static void edge(xw_t *w, int k, const char *a, const char *b, const char *link, double bw, double lat)
{
    edge_t *e = &edges[nedges++];
    (void)w;
    NAME(e->a, "n%d-%s", k, a);
    NAME(e->b, "n%d-%s", k, b);
    NAME(e->link, "n%d-%s", k, link);
    e->bw = bw;
    e->lat = lat;
}

/* The NIC router and its link to the leaf switch (several NICs as one link of their sum). */
static void nic(xw_t *w, const mring_platgen_t *g, int k)
{
    char id[64];
    NAME(id, "n%d-nic", k);
    xw_router(w, id);
    mring_platgen_nic_link(g, k, id, sizeof id);
    xw_link(w, id, g->nics * g->nic_bw, g->nic_lat);
}

void mring_platgen_nic_link(const mring_platgen_t *g, int k, char *buf, size_t len)
{
    snprintf(buf, len, g->node == MRING_NODE_TESTBED ? "n%d-veth" : "n%d-ib", k);
}

/* Minsky: per socket s a CPU-GPU-GPU NVLink triangle; X-bus between the sockets; NIC s behind socket s. */
static void minsky(xw_t *w, const mring_platgen_t *g, int k)
{
    char a[32], b[32], l[32];
    gpus(w, g, k);
    for (int s = 0; s < 2; s++) {
        NAME(a, "n%d-cpu%d", k, s);
        xw_host(w, a, g->cpu_speed, -1);
    }
    nic(w, g, k);
    for (int s = 0; s < 2; s++) {
        int g0 = 2 * s, g1 = 2 * s + 1;
        NAME(a, "cpu%d", s);
        NAME(b, "gpu%d", g0);
        NAME(l, "nv-c%dg%d", s, g0);
        edge(w, k, a, b, l, g->nvlink_bw, g->nvlink_lat);
        NAME(b, "gpu%d", g1);
        NAME(l, "nv-c%dg%d", s, g1);
        edge(w, k, a, b, l, g->nvlink_bw, g->nvlink_lat);
        NAME(a, "gpu%d", g0);
        NAME(l, "nv-g%dg%d", g0, g1);
        edge(w, k, a, b, l, g->nvlink_bw, g->nvlink_lat);
    }
    edge(w, k, "cpu0", "cpu1", "xbus", g->xbus_bw, g->xbus_lat);
    for (int s = 0; s < g->nics; s++) { /* one NIC: socket 0; two: one per socket */
        NAME(a, "cpu%d", s);
        NAME(l, "pcie%d", s);
        edge(w, k, a, "nic", l, g->nics > 1 ? g->nic_bw : g->pcie_bw, g->pcie_lat);
    }
}

/* DGX-1 (P100): hybrid cube-mesh NVLink (quads {0..3}, {4..7} fully connected, plus i <-> i+4);
 * GPU pairs on 4 PCIe switches, switches 0-1 on CPU0 and 2-3 on CPU1; NIC rail s on switch s. */
static void dgx1(xw_t *w, const mring_platgen_t *g, int k)
{
    char a[32], b[32], l[32];
    gpus(w, g, k);
    for (int s = 0; s < 2; s++) {
        NAME(a, "n%d-cpu%d", k, s);
        xw_host(w, a, g->cpu_speed, -1);
    }
    for (int s = 0; s < 4; s++) {
        NAME(a, "n%d-plx%d", k, s);
        xw_router(w, a);
    }
    nic(w, g, k);
    for (int x = 0; x < 8; x++)
        for (int y = x + 1; y < 8; y++)
            if (x / 4 == y / 4 || y == x + 4) {
                NAME(a, "gpu%d", x);
                NAME(b, "gpu%d", y);
                NAME(l, "nv-g%dg%d", x, y);
                edge(w, k, a, b, l, g->nvlink_bw, g->nvlink_lat);
            }
    for (int x = 0; x < 8; x++) {
        NAME(a, "gpu%d", x);
        NAME(b, "plx%d", x / 2);
        NAME(l, "pcie-g%d", x);
        edge(w, k, a, b, l, g->pcie_bw, g->pcie_lat);
    }
    for (int s = 0; s < 4; s++) {
        NAME(a, "plx%d", s);
        NAME(b, "cpu%d", s / 2);
        NAME(l, "pcie-p%d", s);
        edge(w, k, a, b, l, g->pcie_bw, g->pcie_lat);
        NAME(l, "rail%d", s); /* with 4 NICs each switch has its own rail; otherwise PCIe to the NIC */
        edge(w, k, a, "nic", l, g->nics == 4 ? g->nic_bw : g->pcie_bw, g->pcie_lat);
    }
    edge(w, k, "cpu0", "cpu1", "qpi", g->xbus_bw, g->xbus_lat);
}

/* Generic: every GPU has its own link to a node crossbar; the NICs hang off it by one PCIe link. */
static void cluster(xw_t *w, const mring_platgen_t *g, int k)
{
    char a[32], l[32];
    gpus(w, g, k);
    NAME(a, "n%d-xbar", k);
    xw_router(w, a);
    nic(w, g, k);
    for (int i = 0; i < g->gpus_per_node; i++) {
        NAME(a, "gpu%d", i);
        NAME(l, "link-g%d", i);
        edge(w, k, a, "xbar", l, g->nvlink_bw, g->nvlink_lat);
    }
    edge(w, k, "xbar", "nic", "pcie", g->nics * g->pcie_bw, g->pcie_lat);
}

/* Testbed (see platgen.h), a Full zone: rank i reaches rank j over lo<i> and lo<j> (the loopback
 * path), the loopback router over lo<i>, and the veth router over up<i>. */
static void testbed(xw_t *w, const mring_platgen_t *g, int k)
{
    char a[48], b[48], lo[48], lb[48], nicr[48], lor[48];
    NAME(lor, "n%d-lo", k);
    NAME(nicr, "n%d-nic", k);
    for (int i = 0; i < g->gpus_per_node; i++) {
        NAME(a, "n%d-rank%d", k, i);
        xw_host(w, a, g->gpu_speed, k * g->gpus_per_node + i);
    }
    xw_router(w, lor);
    nic(w, g, k);
    for (int i = 0; i < g->gpus_per_node; i++) {
        NAME(lo, "n%d-lo%d", k, i);
        xw_link(w, lo, g->intra_bw, g->intra_lat / 2);
        NAME(lo, "n%d-up%d", k, i);
        xw_link(w, lo, 10 * g->nic_bw, 0);
    }
    for (int i = 0; i < g->gpus_per_node; i++) {
        NAME(a, "n%d-rank%d", k, i);
        NAME(lo, "n%d-lo%d", k, i);
        xw_route(w, a, lor, lo);
        NAME(lb, "n%d-up%d", k, i);
        xw_route(w, a, nicr, lb);
        for (int j = i + 1; j < g->gpus_per_node; j++) {
            NAME(b, "n%d-rank%d", k, j);
            NAME(lb, "n%d-lo%d", k, j);
            xw_route2(w, a, b, lo, lb);
        }
    }
}

void mring_platgen_node(xw_t *w, const mring_platgen_t *g, int k)
{
    char id[32];
    NAME(id, "n%d", k);
    xw_start_zone(w, id, g->node == MRING_NODE_TESTBED ? "Full" : "Floyd");
    nedges = 0;
    switch (g->node) {
    case MRING_NODE_MINSKY: minsky(w, g, k); break;
    case MRING_NODE_DGX1: dgx1(w, g, k); break;
    case MRING_NODE_TESTBED: testbed(w, g, k); break;
    default: cluster(w, g, k); break;
    }
    for (int i = 0; i < nedges; i++)
        xw_link(w, edges[i].link, edges[i].bw, edges[i].lat);
    for (int i = 0; i < nedges; i++)
        xw_route(w, edges[i].a, edges[i].b, edges[i].link);
    xw_end(w);
}
