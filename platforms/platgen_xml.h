/* platgen_xml.h - internal to platforms/: a thin SimGrid-platform layer over libxml2's xmlTextWriter,
 * the routes a rack zone keeps until its netpoints and links are written, and the node and rack
 * writers.  XML errors latch: after the first failure every call does nothing and xw_finish returns -1. */
#ifndef MRING_PLATGEN_XML_H
#define MRING_PLATGEN_XML_H

#include "platgen.h"

typedef struct xw xw_t;

xw_t *xw_open(const char *path);
void xw_start_platform(xw_t *w);
void xw_comment(xw_t *w, const char *text);
void xw_start_zone(xw_t *w, const char *id, const char *routing);
void xw_prop(xw_t *w, const char *id, const char *value);
/* A host of speed flops/s; rank >= 0 adds the mring_rank property. */
void xw_host(xw_t *w, const char *id, double speed, int rank);
void xw_router(xw_t *w, const char *id);
/* A SPLITDUPLEX link of bw bytes/s per direction and lat seconds. */
void xw_link(xw_t *w, const char *id, double bw, double lat);
/* A route over one link, src to dst in its UP direction (the reverse takes DOWN). */
void xw_route(xw_t *w, const char *src, const char *dst, const char *link);
/* A route over two links: up_link UP then down_link DOWN (the reverse: down_link UP, up_link DOWN). */
void xw_route2(xw_t *w, const char *src, const char *dst, const char *up_link, const char *down_link);
/* A route element (elem "route" or "bypassRoute") over n links, link i in its DOWN direction when down[i]. */
void xw_route_n(xw_t *w, const char *elem, const char *src, const char *dst, int n, const char *const *links,
                const int *down);
/* A zoneRoute between zones: up_link UP then (if not NULL) down_link DOWN. */
void xw_zone_route(xw_t *w, const char *src, const char *dst, const char *gw_src, const char *gw_dst,
                   const char *up_link, const char *down_link);
void xw_end(xw_t *w);
/* Close the document and the file. Returns 0, or -1 if anything failed. */
int xw_finish(xw_t *w);

/* ---- the routes of a rack zone (platgen_rack.c) ---- */

enum { MRING_NAME_MAX = 48 };

/* One route of a rack zone's graph, or a one-way bypassRoute. */
typedef struct mring_edge {
    char src[MRING_NAME_MAX], dst[MRING_NAME_MAX], link[2][MRING_NAME_MAX];
    int nlinks, down2; /* down2: the second link is taken DOWN */
    int bypass;
} mring_edge_t;

typedef struct mring_edges {
    mring_edge_t *v;
    size_t n, cap;
    int failed; /* out of memory: the rack is not written */
} mring_edges_t;

/* A symmetric route src -> dst over l1, then l2 unless NULL, both UP (the reverse takes them DOWN). */
void mring_edges_route(mring_edges_t *e, const char *src, const char *dst, const char *l1, const char *l2);
/* A one-way bypassRoute src -> dst over up (UP) then down (DOWN): SimGrid takes it before the graph. */
void mring_edges_bypass(mring_edges_t *e, const char *src, const char *dst, const char *up, const char *down);

/* The leaf switch that NIC r of node k plugs into: r<rack>-leaf, or r<rack>-leaf<r> with a leaf per rail. */
void mring_platgen_leaf(const mring_platgen_t *g, int k, int r, char *buf, size_t len);
/* Write rack r's zone (a graph over its nodes, or the testbed's node zones).  Returns 0 or -1. */
int mring_platgen_rack(xw_t *w, const mring_platgen_t *g, int r);
/* The gateway of rack r towards the other racks: r<r>-leaf, or r<r>-spine with a leaf per rail. */
void mring_platgen_rack_gateway(const mring_platgen_t *g, int r, char *buf, size_t len);

/* ---- the nodes (platgen_node.c) ---- */

/* The netpoints and links of node k, written into its rack's graph zone; its routes go to e. */
void mring_platgen_node(xw_t *w, const mring_platgen_t *g, int k, mring_edges_t *e);
/* Node k of a testbed: a Full zone of its own (see platgen.h). */
void mring_platgen_testbed_node(xw_t *w, const mring_platgen_t *g, int k);
/* The NIC that GPU i's traffic between nodes leaves and enters through (the NIC of its PCIe switch or
 * socket; GPUs, switches or sockets split evenly over the NICs). */
int mring_platgen_gpu_nic(const mring_platgen_t *g, int i);

#endif
