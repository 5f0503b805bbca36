/* platgen_node.c - the nodes: Minsky, DGX-1 (and Big Basin), DGX H100, generic crossbar, testbed
 * (see platgen.h).  Names inside node k are "n<k>-<what>". */
#include "platgen_xml.h"

#include <stdio.h>

#define NAME(buf, ...) snprintf(buf, sizeof buf, __VA_ARGS__)

/* The GPU hosts of node k and their ranks: in GPU order, except on the DGX-1 cube-mesh, where
 * consecutive ranks follow the NVLink ring 0-1-2-3-7-6-5-4 (the ring NCCL builds on a DGX-1 P100:
 * every hop one direct NVLink; GPU order would send 3 -> 4 over two hops through GPU 0 or 7). */
static void gpus(xw_t *w, const mring_platgen_t *g, int k)
{
    static const int ring_pos[8] = {0, 1, 2, 3, 7, 6, 5, 4}; /* GPU i's place in the ring (self-inverse) */
    char id[MRING_NAME_MAX];
    for (int i = 0; i < g->gpus_per_node; i++) {
        int pos = g->node == MRING_NODE_DGX1 && g->gpus_per_node == 8 ? ring_pos[i] : i;
        NAME(id, "n%d-gpu%d", k, i);
        xw_host(w, id, g->gpu_speed, k * g->gpus_per_node + pos);
    }
}

static void host(xw_t *w, int k, const char *what, double speed)
{
    char id[MRING_NAME_MAX];
    NAME(id, "n%d-%s", k, what);
    xw_host(w, id, speed, -1);
}

static void router(xw_t *w, int k, const char *what)
{
    char id[MRING_NAME_MAX];
    NAME(id, "n%d-%s", k, what);
    xw_router(w, id);
}

/* A link of node k, and (a != NULL) the route a -> b over it, UP from a. */
static void edge(xw_t *w, mring_edges_t *e, int k, const char *a, const char *b, const char *link, double bw,
                 double lat)
{
    char na[MRING_NAME_MAX], nb[MRING_NAME_MAX], nl[MRING_NAME_MAX];
    NAME(nl, "n%d-%s", k, link);
    xw_link(w, nl, bw, lat);
    if (!a)
        return;
    NAME(na, "n%d-%s", k, a);
    NAME(nb, "n%d-%s", k, b);
    mring_edges_route(e, na, nb, nl, NULL);
}

/* The NIC serving unit u of n (a GPU, a PCIe switch or a socket): units split evenly over the NICs. */
static int nic_of(const mring_platgen_t *g, int u, int n) { return u * g->nics / n; }

int mring_platgen_gpu_nic(const mring_platgen_t *g, int i)
{
    switch (g->node) {
    case MRING_NODE_MINSKY: return nic_of(g, i / 2, 2);
    case MRING_NODE_DGX1: return nic_of(g, i / 2, 4);
    default: return nic_of(g, i, g->gpus_per_node);
    }
}

/* NIC r of node k: its router n<k>-nic<r> and its own port n<k>-rail<r> to its leaf switch. */
static void nic(xw_t *w, const mring_platgen_t *g, mring_edges_t *e, int k, int r)
{
    char id[MRING_NAME_MAX], port[MRING_NAME_MAX], leaf[MRING_NAME_MAX];
    NAME(id, "n%d-nic%d", k, r);
    NAME(port, "n%d-rail%d", k, r);
    mring_platgen_leaf(g, k, r, leaf, sizeof leaf);
    xw_router(w, id);
    xw_link(w, port, g->nic_bw, g->nic_lat);
    mring_edges_route(e, id, leaf, port, NULL);
}

/* Minsky: per socket s a CPU-GPU-GPU NVLink triangle; X-bus between the sockets; NIC r behind socket r
 * (one NIC: socket 1's GPUs reach it over the X-bus). */
static void minsky(xw_t *w, const mring_platgen_t *g, mring_edges_t *e, int k)
{
    char a[32], b[32], l[32];
    gpus(w, g, k);
    for (int s = 0; s < 2; s++) {
        NAME(a, "cpu%d", s);
        host(w, k, a, g->cpu_speed);
    }
    for (int s = 0; s < 2; s++) {
        int g0 = 2 * s, g1 = 2 * s + 1;
        NAME(a, "cpu%d", s);
        NAME(b, "gpu%d", g0);
        NAME(l, "nv-c%dg%d", s, g0);
        edge(w, e, k, a, b, l, g->nvlink_bw, g->nvlink_lat);
        NAME(b, "gpu%d", g1);
        NAME(l, "nv-c%dg%d", s, g1);
        edge(w, e, k, a, b, l, g->nvlink_bw, g->nvlink_lat);
        NAME(a, "gpu%d", g0);
        NAME(l, "nv-g%dg%d", g0, g1);
        edge(w, e, k, a, b, l, g->nvlink_bw, g->nvlink_lat);
    }
    edge(w, e, k, "cpu0", "cpu1", "xbus", g->xbus_bw, g->xbus_lat);
    for (int r = 0; r < g->nics; r++) {
        nic(w, g, e, k, r);
        NAME(a, "cpu%d", r);
        NAME(b, "nic%d", r);
        NAME(l, "pcie%d", r);
        edge(w, e, k, a, b, l, g->pcie_bw, g->pcie_lat);
    }
}

/* DGX-1 (P100): hybrid cube-mesh NVLink (quads {0..3}, {4..7} fully connected, plus i <-> i+4); GPU
 * pairs on 4 PCIe switches, switches 0-1 on CPU0 and 2-3 on CPU1; NICs spread evenly over the
 * switches (4: NIC s on switch s; 2: one per CPU; 1: all switches), each switch one PCIe link to its NIC. */
static void dgx1(xw_t *w, const mring_platgen_t *g, mring_edges_t *e, int k)
{
    char a[32], b[32], l[32];
    gpus(w, g, k);
    for (int s = 0; s < 2; s++) {
        NAME(a, "cpu%d", s);
        host(w, k, a, g->cpu_speed);
    }
    for (int s = 0; s < 4; s++) {
        NAME(a, "plx%d", s);
        router(w, k, a);
    }
    for (int x = 0; x < 8; x++)
        for (int y = x + 1; y < 8; y++)
            if (x / 4 == y / 4 || y == x + 4) {
                NAME(a, "gpu%d", x);
                NAME(b, "gpu%d", y);
                NAME(l, "nv-g%dg%d", x, y);
                edge(w, e, k, a, b, l, g->nvlink_bw, g->nvlink_lat);
            }
    for (int x = 0; x < 8; x++) {
        NAME(a, "gpu%d", x);
        NAME(b, "plx%d", x / 2);
        NAME(l, "pcie-g%d", x);
        edge(w, e, k, a, b, l, g->pcie_bw, g->pcie_lat);
    }
    for (int r = 0; r < g->nics; r++)
        nic(w, g, e, k, r);
    for (int s = 0; s < 4; s++) {
        NAME(a, "plx%d", s);
        NAME(b, "cpu%d", s / 2);
        NAME(l, "pcie-p%d", s);
        edge(w, e, k, a, b, l, g->pcie_bw, g->pcie_lat);
        NAME(b, "nic%d", nic_of(g, s, 4));
        NAME(l, "pcie-n%d", s);
        edge(w, e, k, a, b, l, g->pcie_bw, g->pcie_lat);
    }
    edge(w, e, k, "cpu0", "cpu1", "qpi", g->xbus_bw, g->xbus_lat);
}

/* DGX H100: NVSwitch as a crossbar, one link n<k>-nvl<i> per GPU; GPU i reaches its leaf over its PCIe
 * link n<k>-pcie<i> and its NIC's port (no NIC router: a GPU has exactly one way out of the node).
 * GPU-to-GPU routes are bypassRoutes (nvl<i> UP, nvl<j> DOWN), outside the rack's graph: a route
 * between nodes never passes through a GPU (that would be NCCL's PXN, software). */
static void dgxh100(xw_t *w, const mring_platgen_t *g, mring_edges_t *e, int k)
{
    char l[32], na[MRING_NAME_MAX], nb[MRING_NAME_MAX], la[MRING_NAME_MAX], lb[MRING_NAME_MAX];
    gpus(w, g, k);
    for (int r = 0; r < g->nics; r++) {
        NAME(l, "rail%d", r);
        edge(w, e, k, NULL, NULL, l, g->nic_bw, g->nic_lat);
    }
    for (int i = 0; i < g->gpus_per_node; i++) {
        int r = nic_of(g, i, g->gpus_per_node);
        NAME(l, "nvl%d", i);
        edge(w, e, k, NULL, NULL, l, g->nvlink_bw, g->nvlink_lat);
        NAME(l, "pcie%d", i);
        edge(w, e, k, NULL, NULL, l, g->pcie_bw, g->pcie_lat);
        NAME(na, "n%d-gpu%d", k, i);
        mring_platgen_leaf(g, k, r, nb, sizeof nb);
        NAME(la, "n%d-pcie%d", k, i);
        NAME(lb, "n%d-rail%d", k, r);
        mring_edges_route(e, na, nb, la, lb);
    }
    for (int i = 0; i < g->gpus_per_node; i++)
        for (int j = 0; j < g->gpus_per_node; j++)
            if (i != j) {
                NAME(na, "n%d-gpu%d", k, i);
                NAME(nb, "n%d-gpu%d", k, j);
                NAME(la, "n%d-nvl%d", k, i);
                NAME(lb, "n%d-nvl%d", k, j);
                mring_edges_bypass(e, na, nb, la, lb);
            }
}

/* Generic: every GPU has its own link to a node crossbar; GPU i's NIC (GPUs split evenly over the NICs)
 * is reached over that link and the NIC's PCIe link, as one route (not through the crossbar router, so
 * that a GPU has exactly one way out of the node). */
static void cluster(xw_t *w, const mring_platgen_t *g, mring_edges_t *e, int k)
{
    char a[32], l[32], na[MRING_NAME_MAX], nn[MRING_NAME_MAX], lg[MRING_NAME_MAX], lp[MRING_NAME_MAX];
    gpus(w, g, k);
    router(w, k, "xbar");
    for (int r = 0; r < g->nics; r++) {
        nic(w, g, e, k, r);
        NAME(l, "pcie%d", r);
        edge(w, e, k, NULL, NULL, l, g->pcie_bw, g->pcie_lat);
    }
    for (int i = 0; i < g->gpus_per_node; i++) {
        int r = nic_of(g, i, g->gpus_per_node);
        NAME(a, "gpu%d", i);
        NAME(l, "link-g%d", i);
        edge(w, e, k, a, "xbar", l, g->nvlink_bw, g->nvlink_lat);
        NAME(na, "n%d-gpu%d", k, i);
        NAME(nn, "n%d-nic%d", k, r);
        NAME(lg, "n%d-link-g%d", k, i);
        NAME(lp, "n%d-pcie%d", k, r);
        mring_edges_route(e, na, nn, lg, lp);
    }
}

void mring_platgen_node(xw_t *w, const mring_platgen_t *g, int k, mring_edges_t *e)
{
    switch (g->node) {
    case MRING_NODE_MINSKY: minsky(w, g, e, k); break;
    case MRING_NODE_DGX1: dgx1(w, g, e, k); break;
    case MRING_NODE_DGXH100: dgxh100(w, g, e, k); break;
    default: cluster(w, g, e, k); break;
    }
}

/* Testbed (see platgen.h), a Full zone: rank i reaches rank j over lo<i> and lo<j> (their ports to the
 * node's switch), the switch router n<k>-lo and the veth router n<k>-nic over lo<i>: a rank's port
 * carries its traffic inside the node and out of it, as on the testbed. */
void mring_platgen_testbed_node(xw_t *w, const mring_platgen_t *g, int k)
{
    char id[MRING_NAME_MAX], a[MRING_NAME_MAX], b[MRING_NAME_MAX], lo[MRING_NAME_MAX], lb[MRING_NAME_MAX],
        nicr[MRING_NAME_MAX], lor[MRING_NAME_MAX];
    NAME(id, "n%d", k);
    NAME(lor, "n%d-lo", k);
    NAME(nicr, "n%d-nic", k);
    xw_start_zone(w, id, "Full");
    for (int i = 0; i < g->gpus_per_node; i++) {
        NAME(a, "n%d-rank%d", k, i);
        xw_host(w, a, g->gpu_speed, k * g->gpus_per_node + i);
    }
    xw_router(w, lor);
    xw_router(w, nicr);
    NAME(lo, "n%d-veth", k);
    xw_link(w, lo, g->nic_bw, g->nic_lat);
    for (int i = 0; i < g->gpus_per_node; i++) {
        NAME(lo, "n%d-lo%d", k, i);
        xw_link(w, lo, g->intra_bw, g->intra_lat / 2);
    }
    for (int i = 0; i < g->gpus_per_node; i++) {
        NAME(a, "n%d-rank%d", k, i);
        NAME(lo, "n%d-lo%d", k, i);
        xw_route(w, a, lor, lo);
        xw_route(w, a, nicr, lo);
        for (int j = i + 1; j < g->gpus_per_node; j++) {
            NAME(b, "n%d-rank%d", k, j);
            NAME(lb, "n%d-lo%d", k, j);
            xw_route2(w, a, b, lo, lb);
        }
    }
    xw_end(w);
}
