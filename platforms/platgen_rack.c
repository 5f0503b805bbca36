/* platgen_rack.c - rack zones: a routing graph over the rack's nodes and its leaf switch(es), or the
 * testbed's node zones joined by zoneRoutes (see platgen.h). */
#include "platgen_xml.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static mring_edge_t *edge_new(mring_edges_t *e, const char *src, const char *dst)
{
    if (e->failed)
        return NULL;
    if (e->n == e->cap) {
        size_t cap = e->cap ? 2 * e->cap : 256;
        mring_edge_t *v = realloc(e->v, cap * sizeof *v);
        if (!v) {
            e->failed = 1;
            return NULL;
        }
        e->v = v;
        e->cap = cap;
    }
    mring_edge_t *r = &e->v[e->n++];
    *r = (mring_edge_t){.nlinks = 0};
    snprintf(r->src, sizeof r->src, "%s", src);
    snprintf(r->dst, sizeof r->dst, "%s", dst);
    return r;
}

void mring_edges_route(mring_edges_t *e, const char *src, const char *dst, const char *l1, const char *l2)
{
    mring_edge_t *r = edge_new(e, src, dst);
    if (!r)
        return;
    r->nlinks = l2 ? 2 : 1;
    snprintf(r->link[0], sizeof r->link[0], "%s", l1);
    if (l2)
        snprintf(r->link[1], sizeof r->link[1], "%s", l2);
}

void mring_edges_bypass(mring_edges_t *e, const char *src, const char *dst, const char *up, const char *down)
{
    mring_edge_t *r = edge_new(e, src, dst);
    if (!r)
        return;
    r->nlinks = 2;
    r->down2 = r->bypass = 1;
    snprintf(r->link[0], sizeof r->link[0], "%s", up);
    snprintf(r->link[1], sizeof r->link[1], "%s", down);
}

static void name(char *buf, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, len, fmt, ap);
    va_end(ap);
}

void mring_platgen_leaf(const mring_platgen_t *g, int k, int r, char *buf, size_t len)
{
    int rack = k / (g->nodes / g->racks);
    if (mring_platgen_rail_leaves(g))
        name(buf, len, "r%d-leaf%d", rack, r);
    else
        name(buf, len, "r%d-leaf", rack);
}

void mring_platgen_rack_gateway(const mring_platgen_t *g, int r, char *buf, size_t len)
{
    name(buf, len, mring_platgen_rail_leaves(g) ? "r%d-spine" : "r%d-leaf", r);
}

/* The rack's switches: one leaf, or a leaf per rail with its uplink to the rack's view of the spine
 * (nodes-per-rack NIC ports up per leaf over the over-subscription); the rack's uplink to the spine
 * when there are other racks (with a leaf per rail it is the sum of the leaves' uplinks: never a
 * constraint of its own, SimGrid's routes between zones need a link). */
static void switches(xw_t *w, const mring_platgen_t *g, int rack, mring_edges_t *e)
{
    char id[MRING_NAME_MAX], up[MRING_NAME_MAX], spine[MRING_NAME_MAX];
    double per = g->nodes / g->racks, leaf_up = per * g->nic_bw / g->oversubscription;
    int rails = mring_platgen_rail_leaves(g);
    if (!rails) {
        name(id, sizeof id, "r%d-leaf", rack);
        xw_router(w, id);
    } else {
        mring_platgen_rack_gateway(g, rack, spine, sizeof spine);
        xw_router(w, spine);
        for (int r = 0; r < g->nics; r++) {
            name(id, sizeof id, "r%d-leaf%d", rack, r);
            name(up, sizeof up, "r%d-leaf%d-up", rack, r);
            xw_router(w, id);
            xw_link(w, up, leaf_up, g->nic_lat);
            mring_edges_route(e, id, spine, up, NULL);
        }
    }
    if (g->racks > 1) {
        name(id, sizeof id, "r%d-uplink", rack);
        xw_link(w, id, g->nics * leaf_up, rails ? 0 : g->nic_lat);
    }
}

/* A rack of graph-routed nodes: one Floyd zone over every netpoint of its nodes and its switches (not
 * Dijkstra: SimGrid 3.32's Dijkstra zones put a route's links out of order when it has a part outside). */
static int graph_rack(xw_t *w, const mring_platgen_t *g, int rack)
{
    int per = g->nodes / g->racks;
    char id[MRING_NAME_MAX];
    mring_edges_t e = {0};
    name(id, sizeof id, "r%d", rack);
    xw_start_zone(w, id, "Floyd");
    for (int k = rack * per; k < (rack + 1) * per; k++)
        mring_platgen_node(w, g, k, &e);
    switches(w, g, rack, &e);
    for (size_t i = 0; i < e.n; i++) {
        const mring_edge_t *r = &e.v[i];
        const char *links[2] = {r->link[0], r->link[1]};
        const int down[2] = {0, r->down2};
        xw_route_n(w, r->bypass ? "bypassRoute" : "route", r->src, r->dst, r->nlinks, links, down);
    }
    xw_end(w);
    free(e.v);
    return e.failed ? -1 : 0;
}

/* The testbed's rack: node zones, a one-router leaf-switch zone, zoneRoutes over the nodes' veths. */
static int testbed_rack(xw_t *w, const mring_platgen_t *g, int rack)
{
    int per = g->nodes / g->racks, first = rack * per;
    char id[MRING_NAME_MAX], sw[MRING_NAME_MAX], leaf[MRING_NAME_MAX], a[MRING_NAME_MAX], b[MRING_NAME_MAX],
        ga[MRING_NAME_MAX], gb[MRING_NAME_MAX], la[MRING_NAME_MAX], lb[MRING_NAME_MAX];
    name(id, sizeof id, "r%d", rack);
    name(sw, sizeof sw, "r%d-sw", rack);
    name(leaf, sizeof leaf, "r%d-leaf", rack);
    xw_start_zone(w, id, "Full");
    for (int k = first; k < first + per; k++)
        mring_platgen_testbed_node(w, g, k);
    xw_start_zone(w, sw, "Full");
    xw_comment(w, " the rack's leaf switch (a crossbar) and its uplink to the spine: with racks, the --rack figures "
                  "beyond the inter ones, half the latency per side ");
    xw_router(w, leaf);
    name(la, sizeof la, "r%d-uplink", rack);
    if (g->racks > 1)
        xw_link(w, la, g->rack_bw, g->rack_lat > g->inter_lat ? (g->rack_lat - g->inter_lat) / 2 : 0);
    else /* unused */
        xw_link(w, la, per * g->nics * g->nic_bw / g->oversubscription, g->nic_lat);
    xw_end(w);
    for (int k = first; k < first + per; k++) {
        name(a, sizeof a, "n%d", k);
        name(ga, sizeof ga, "n%d-nic", k);
        name(la, sizeof la, "n%d-veth", k);
        xw_zone_route(w, a, sw, ga, leaf, la, NULL);
        for (int l = k + 1; l < first + per; l++) {
            name(b, sizeof b, "n%d", l);
            name(gb, sizeof gb, "n%d-nic", l);
            name(lb, sizeof lb, "n%d-veth", l);
            xw_zone_route(w, a, b, ga, gb, la, lb);
        }
    }
    xw_end(w);
    return 0;
}

int mring_platgen_rack(xw_t *w, const mring_platgen_t *g, int r)
{
    return g->node == MRING_NODE_TESTBED ? testbed_rack(w, g, r) : graph_rack(w, g, r);
}
