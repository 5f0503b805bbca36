/*
 * calibrate_load.h - mring-calibrate's measurements (MPI), under load: every pair of a level
 * measures at once, as an allreduce keeps every rank busy (ping-pong, or exchanging messages step
 * after step), and LogGP's o is measured on those pairs.
 * Ranks are placed R per node (rank r on node r / R).  Every function is collective.
 */
#ifndef MRING_CALIBRATE_LOAD_H
#define MRING_CALIBRATE_LOAD_H

#include "calibrate_fit.h"

#include <stdint.h>

typedef struct calib_load {
    int P, R;             /* ranks, ranks per node */
    int iters, warmup;    /* timed and untimed steps per size */
    int pattern;          /* CALIB_PINGPONG or CALIB_EXCHANGE */
    int64_t minb, maxb;   /* the sweep: minb, 2 minb, ... maxb bytes */
    int one_pair;         /* 1: only rank 0's pair of a level, the others waiting */
    int rack_nodes;       /* nodes per rack (racks of a third level), 0 = one rack */
    int passes;           /* passes over the sweep of the ring of exchanges and of each bulk test (1..16) */
} calib_load_t;

/* How a pair measures: both send to each other at once, step after step, or ping-pong. */
enum { CALIB_EXCHANGE, CALIB_PINGPONG };

/* The levels: inside a node, between nodes (of one rack), between racks. */
enum { CALIB_INTRA, CALIB_INTER, CALIB_RACK };

/* Print "mring-calibrate: what" on stderr and abort the whole job (a failure on some ranks only). */
_Noreturn void calib_die(const char *what);

/* A barrier that waits asleep (ranks idling beside a measurement leave the cores to it). */
void calib_quiet_barrier(void);

/*
 * The partner of rank me on a level (CALIB_INTRA: inside its node, pairs of local ranks 2k and 2k+1;
 * CALIB_INTER: the rank of the same local index on the paired node of its rack, nodes 2k and 2k+1;
 * CALIB_RACK: the rank of the same place in the paired rack, racks 2k and 2k+1), or -1 when it has
 * none (an odd one out, or lp->one_pair and me not in the pair of rank 0).
 */
int calib_partner(const calib_load_t *lp, int me, int level);

/*
 * Measure a level over the sweep into l: every pair at once, the lower rank of each timing a step
 * (lp->pattern: one MPI_Sendrecv of m bytes each way, back to back; or half a ping-pong round trip),
 * its median of lp->iters after lp->warmup; a point is the median over the pairs of their medians
 * (min: the fastest step of any pair).  Fits the line on rank 0 (calib_die when it
 * cannot).  l->a and l->b are rank 0's pair.
 */
void calib_measure_level(const calib_load_t *lp, int me, int level, level_t *l);

/*
 * The capacity of the link a level's pairs share (CALIB_INTRA: a rank's port inside its node, which
 * every pair of the node loads both ways at once, as a multiring's first dimension does, where a ping-pong
 * loads it one way at a time; CALIB_INTER: the NIC of a node's ranks, which their concurrent ping-pongs
 * measure a share of or all of as they fall in or out of step; CALIB_RACK: a rack's uplink, which one pair
 * alone cannot fill when the pair's NICs are slower).  Every pair at once, over the sizes lp->maxb / 8 (at
 * least lp->minb) .. lp->maxb:
 *   CALIB_INTER, CALIB_RACK: after a common barrier the lower rank of each pair sends one message of m bytes
 *     to its partner; a step lasts until the last receiver has its message (the slowest receiver's time);
 *     the median of lp->iters steps after lp->warmup;
 *   CALIB_INTRA: both ranks of a pair send m bytes to each other, lp->iters steps back to back after
 *     lp->warmup from one barrier; the slowest rank's mean time per step (8 ranks leave a barrier
 *     milliseconds apart on 2 cores, so a step timed alone from one loads the ports for part of it only).
 * lp->passes passes over those sizes one after the other into pass[0 .. lp->passes - 1], each point stamped
 * with when this rank measured it (from_s, to_s: CLOCK_REALTIME, from before its barrier to after its
 * reductions) for calib_mark_stopped; not fitted (calib_settle: the median of the passes, then the line).
 * *flows (rank 0) = the flows through the link of rank 0's group in one direction (its port: 1; its node's
 * NIC or its rack's uplink: the pairs whose sender is in the node or rack), so the link carries
 * *flows / beta bytes per second of the fitted line.  Each pass's pairs = *flows.
 * Measured on the 2x2x2 testbed (8 ranks on 2 cores, 2026-12-06): ports shaped at 1 Gbit/s, which the
 * pairs' ping-pongs fill (123 MB/s), carried 63, 82 and 124 MB/s each way in three runs of this test, the
 * cores' limit; at 500 Mbit/s 61.6, 61.5 and 63.1 MB/s (the rate: 62.5).
 */
void calib_measure_bulk(const calib_load_t *lp, int me, int level, level_t *pass, int *flows);

/*
 * A ring of exchanges, every rank at once, into pass[0 .. lp->passes - 1]: rank i sends m bytes to
 * rank i + 1 and receives m bytes from rank i - 1 (mod P), lp->iters steps back to back after lp->warmup:
 * a ring allreduce's steps without the reduction, so each step waits for the neighbours to have been
 * scheduled (on a machine with more ranks than cores, far longer than a ping-pong).  A point is the
 * slowest rank's mean time per step (min: the fastest rank's), over the sweep; the passes go over the
 * whole sweep one after the other, so a slow spell of the machine falls on one pass of a size, not all
 * (calib_median_level).  Not fitted.  l->pairs = P.  Each point's from_s and to_s: when this rank measured
 * it (CLOCK_REALTIME, from before the barrier to after the reductions), for calib_mark_stopped.
 */
void calib_measure_ring(const calib_load_t *lp, int me, level_t *pass);

/*
 * Whether messages to one peer share one ordered connection (the profile's conn=, swprof.h): rank 0 sends
 * two messages of `bytes` back to back (MPI_Isend twice) to its partner between nodes (inside its node
 * when there is one node), which has posted both receives and times each from a common barrier until it
 * completes; the others wait.  *first and *second (every rank): the medians over lp->iters rounds after
 * lp->warmup, in seconds, the earlier-completing message first; 0 with one rank.  One connection carrying
 * them in order delivers the first in about half the second's time; a connection per message (or bandwidth
 * shared between them) delivers both together.
 */
void calib_measure_conn(const calib_load_t *lp, int me, int64_t bytes, double *first, double *second);

/*
 * LogGP's o on the inter-node pairs, all at once (Culler et al., "LogP Performance Assessment of Fast
 * Network Interfaces", IEEE Micro 1996, the same method): o_send = the time a sender spends per
 * MPI_Send of 8 bytes posted back to back to receives already posted; o_recv = the time per MPI_Recv
 * of 8 such messages once they have all arrived (the receiver sleeps first).  Medians over lp->iters
 * rounds, then over the pairs; on rank 0.  0 where no pair exists.
 */
void calib_measure_overhead(const calib_load_t *lp, int me, double *o_send, double *o_recv);

#endif
