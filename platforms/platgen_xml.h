/* platgen_xml.h - a thin SimGrid-platform layer over libxml2's xmlTextWriter (internal to platforms/).
 * Errors latch: after the first failure every call does nothing and xw_finish returns -1. */
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
/* A zoneRoute between zones: up_link UP then (if not NULL) down_link DOWN. */
void xw_zone_route(xw_t *w, const char *src, const char *dst, const char *gw_src, const char *gw_dst,
                   const char *up_link, const char *down_link);
void xw_end(xw_t *w);
/* Close the document and the file. Returns 0, or -1 if anything failed. */
int xw_finish(xw_t *w);

/* The node zone of node k (platgen_node.c). */
void mring_platgen_node(xw_t *w, const mring_platgen_t *g, int k);
/* The name of node k's link to the switch: n<k>-ib, or n<k>-veth on a testbed (platgen_node.c). */
void mring_platgen_nic_link(const mring_platgen_t *g, int k, char *buf, size_t len);

#endif
