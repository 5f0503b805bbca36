/*
 * cost.h - the alpha-beta-gamma cost model: closed forms and a schedule walker.
 *
 * Each dimension i of the topology has a link (alpha_i seconds of latency,
 * bw_i bytes/s per direction) of one of two kinds:
 *   point-to-point (share = 0): a dedicated full-duplex link between every pair
 *     of ranks that differ in coordinate i (NVLink, a torus); flows to
 *     different peers do not share;
 *   port (share = s >= 1): each group of s consecutive ranks sends through one
 *     port of bw_i (s GPUs behind one NIC); every flow of those ranks that
 *     crosses dimension i in the same step shares it.
 * Port dimensions with the same port number are the same port: with --links,
 * port dimensions with equal SHARE (the NIC of a node serves every inter-node
 * dimension); from a platform, dimensions whose narrowest link is the same.
 * A message between ranks a and b travels on the link of the outermost
 * dimension in which they differ (mring_topo_link_dim).
 *
 * Costs (Hockney alpha + n*beta, with the reduction term n*gamma of Thakur,
 * Rabenseifner and Gropp, "Optimization of collective communication operations
 * in MPICH", IJHPCA 19(1), 2005):
 *   message of b bytes:  alpha_i + m * b / bw_i
 *   REDUCE of b bytes:   m_g * b / gamma_bw
 *   COPY of b bytes:     m_g * (2/3) * b / gamma_bw   (a copy moves 2 bytes of
 *                        memory traffic per byte, a reduction 3)
 * where m is the number of flows sharing the link in that step (same phase,
 * dimension and step label: streams of the rank, and for a port every sender of
 * the port group) and m_g the number of the rank's streams reducing in that
 * step (they share the GPU).  Pieces of one stream serialise on its share of a
 * link: a message starts when its stream's previous message on that link has
 * been transmitted, and arrives alpha later; at most MRING_SEND_WINDOW messages of
 * a stream to one peer are in flight (a send waits for the arrival of the one that
 * many sends earlier, then pays o), as in the simulator; there, though, the messages
 * of a window share the link's bandwidth and each pays the route's latency before
 * its bytes flow (SimGrid's CM02), so pieces of a stream pay the latency once per
 * window where the walk pays it once: a ring of 2 ranks of the 2-node cluster
 * platform (3 us a route) at 1 MiB with 64 KiB pieces, walk 92.8 us, simulation
 * 111.3 (unpieced both 94.9).
 *
 * The walker (mring_cost_walk) evaluates every rank's schedule under these
 * rules as a dataflow: an op issues when the previous op of its stream has
 * issued and every earlier conflicting op has completed (the interpreter's
 * semantics, schedule.h); a RECV completes when the matching message arrives.
 * The closed forms (one per generator) give the same time for schedules in
 * which every step has the same cost on every rank (balanced counts, uniform
 * links within a step); with pipelining (segment > 0) the closed forms give the
 * non-overlapped time and the walker is the reference, and with chunks > 1
 * multiring's closed form bounds the pipeline (fill plus the busiest link's share)
 * for the tuner's ranking, where the walker follows it (on the 16-node cluster
 * platform, 4x4 with 4 chunks at 1 KiB: closed 90.1 us, walk and simulation 63.1),
 * so `mring model` walks both by default.
 */
#ifndef MRING_COST_H
#define MRING_COST_H

#include "config.h"
#include "swprof.h"
#include "topology.h"

#include <stddef.h>
#include <stdint.h>

typedef struct mring_link {
    double alpha; /* seconds */
    double bw;    /* bytes per second, per direction */
    int share;    /* 0 = point-to-point links; s >= 1 = a port shared by s consecutive ranks */
    int port;     /* ports of dimensions with the same port number are one port (one NIC) */
} mring_link_t;

typedef struct mring_cost_params {
    int ndims;
    mring_link_t link[MRING_MAX_DIMS];
    double gamma_bw; /* reduction throughput, bytes of output per second; 0 = free */
    mring_swprof_t sw; /* software costs (swprof.h); all zero = none */
} mring_cost_params_t;

/*
 * Parse --links: one LAT:BW[:SHARE] per dimension, comma-separated, in SimGrid
 * units (e.g. "1us:36GBps,2us:12.5GBps:4,2us:12.5GBps:4").  Without SHARE the
 * link is point-to-point; with SHARE it is a port shared by SHARE ranks.
 * Returns 0, or -1 with a one-line reason naming the bad value in err.
 */
int mring_links_parse(const char *s, const mring_topo_t *t, mring_cost_params_t *p, char *err,
                      size_t errlen);

/* Format p as --links would take it ("1us:36GBps,2us:12.5GBps:4"). Returns buf. */
char *mring_links_format(const mring_cost_params_t *p, char *buf, size_t len);

/* Time of a message of `bytes` on dimension dim's link shared by m flows (seconds), on the wire: the
 * link's latency and bandwidth with the profile's factors for that size (swprof.h), without o. */
double mring_cost_msg(const mring_cost_params_t *p, int dim, double bytes, double m);
/* Messages of a stream to one peer on the wire at once, in issue order (the simulator's send window,
 * sim/sim_stream.cpp, where the choice of 2 is measured; the chunked closed forms count with it). */
#define MRING_SEND_WINDOW 2
/* The part of mring_cost_msg that holds the link (seconds): m * bytes at the profile's bandwidth, no
 * latency (messages in flight together overlap their latencies, not their bytes). */
double mring_cost_msg_busy(const mring_cost_params_t *p, int dim, double bytes, double m);
/* Time of a REDUCE (copy = 0) or COPY (copy = 1) of `bytes`, m_g streams sharing the GPU. */
double mring_cost_compute(const mring_cost_params_t *p, double bytes, double mg, int copy);

/* Closed-form time (seconds) of call k on configuration c (the generator's closed_form, algo.h);
 * inplace != 0 skips the IN->OUT copy.  -1 when memory runs out. */
double mring_cost_closed(const mring_config_t *c, mring_call_t k, const mring_cost_params_t *p, int inplace);

/*
 * Walk all ranks' schedules of c under the model; returns the time in seconds, or a negative value
 * if the schedules deadlock or memory runs out.
 */
double mring_cost_walk(const mring_config_t *c, mring_call_t k, const mring_cost_params_t *p, int inplace);

#endif
