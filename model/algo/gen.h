/*
 * gen.h - what the generators share (internal to model/algo/): the registry entry,
 * the stream builder, and the step emitters that turn a list of exchange steps
 * into pipelined SEND/RECV/REDUCE ops.
 */
#ifndef MRING_GEN_H
#define MRING_GEN_H

#include "algo.h"
#include "cost.h"

/* The built-in registry entries (algo.c's table). */
extern const mring_gen_t mring_gen_multiring, mring_gen_ring, mring_gen_rd, mring_gen_rabenseifner,
    mring_gen_hier;

/* Emits ops into one stream of a rank schedule. */
typedef struct mring_builder {
    mring_rank_sched_t *rs;
    int stream;
    int64_t piece;        /* elements per pipelining piece; 0 = whole ranges */
    int64_t scratch_base; /* first SCRATCH element of this stream */
    int err;              /* set when an emit failed (out of memory) */
} mring_builder_t;

void mring_builder_init(mring_builder_t *b, mring_rank_sched_t *rs, int stream, const mring_config_t *c,
                        mring_call_t k, int64_t scratch_base);

/* Label of ops: phase, stage dimension (0-based), step. */
typedef struct mring_label {
    uint8_t phase;
    int8_t dim;
    uint16_t step;
} mring_label_t;

/* One step of an exchange: send OUT[snd_off, +snd_len) to `to` and receive
 * rcv_len elements from `from` into OUT[rcv_off, ...) (directly, or through
 * scratch and a REDUCE).  to/from = -1: no send/receive at this step. */
typedef struct mring_xstep {
    int to, from;
    int64_t snd_off, snd_len;
    int64_t rcv_off, rcv_len;
    uint8_t flags; /* REDUCE flags (MRING_REDUCE_SRC_FIRST) */
    mring_label_t label;
} mring_xstep_t;

/*
 * Emit n exchange steps.  reduce != 0: receive into this stream's scratch and
 * REDUCE into OUT; reduce == 0: receive straight into OUT.
 * chained != 0 requires step s+1 to send exactly what step s received
 * (snd[s+1] == rcv[s]): then the ops are ordered so that piece p of step s+1
 * goes out as soon as piece p of step s has arrived (and been reduced), which
 * pipelines consecutive steps; otherwise each step's pieces are posted together.
 * Returns the scratch elements used (max rcv_len when reduce != 0, else 0).
 */
int64_t mring_emit_steps(mring_builder_t *b, const mring_xstep_t *st, int n, int reduce, int chained);

/* COPY of IN[off, +len) to OUT[off, +len) (skipped by back ends for in-place calls). */
void mring_emit_prologue(mring_builder_t *b, int64_t off, int64_t len);

/* Ring reduce-scatter (reduce != 0) or allgather over OUT[off, +len) among d ranks, this rank at
 * position c, sending to rank `to` (position c + dir) and receiving from rank `from` (position c - dir);
 * dir = +1 or -1.  The range is split into d balanced blocks; after the reduce-scatter this rank
 * holds block c reduced over all members; the allgather starts from every rank's block c.  Steps
 * that move no element emit nothing (a ring of d ranks on len < d elements costs O(len log len)).
 * Returns scratch elements used. */
int64_t mring_emit_ring(mring_builder_t *b, int to, int from, int d, int c, int dir, int64_t off, int64_t len,
                        int reduce, mring_label_t label);

/* Recursive halving among d (a power of two) group members: member idx at step k
 * exchanges with member peer[k] = idx ^ 2^k, sends blocks snd[k] and keeps (and
 * reduces) blocks keep[k], block ranges [lo, hi) out of d blocks; distance 1 first,
 * so the innermost pairs exchange the largest halves (Thakur et al. 2005, 4.4). */
typedef struct mring_brange {
    int lo, hi;
} mring_brange_t;

typedef struct mring_halving {
    int n; /* steps: lg d */
    int peer[32];
    mring_brange_t snd[32], keep[32];
} mring_halving_t;

void mring_halving_plan(mring_halving_t *h, int idx, int d);
/* The block member idx holds after the halving reduce-scatter (0 when d == 1). */
int mring_halving_block(const mring_halving_t *h);

/* Emit the halving reduce-scatter (reduce != 0) or, in reverse, the doubling allgather
 * of plan h over OUT[off, +len) split into d blocks; peers[k] is the rank of step k's
 * partner.  Both partners evaluate (lower rank's data) op (higher rank's data). */
void mring_emit_halving(mring_builder_t *b, const mring_halving_t *h, const int *peers, int rank, int64_t off,
                        int64_t len, int d, int reduce, mring_label_t label);

/* Offer the tuner algo on topo with each of rings[0..n-1] rings in every dimension (and ring in every
 * dimension).  Returns 0 or -1 (s->add failed). */
int mring_cand_uniform(const mring_topo_t *topo, mring_algo_t algo, const int *rings, int n, mring_cand_sink_t *s);

/* Steps of recursive halving or doubling among d members: ceil(lg d). */
static inline int mring_lg(int d)
{
    int k = 0;
    while ((1 << k) < d)
        k++;
    return k;
}

/* Ceil division for non-negative values. */
/* ceil(a / b) for b > 0, any a, without the overflow of (a + b - 1) / b near INT64_MAX (C division truncates
 * towards zero, so a / b is already the ceiling when a < 0). */
static inline int64_t mring_ceil_div(int64_t a, int64_t b) { return a / b + (a % b > 0); }

/* Power-of-two helpers for rd and rabenseifner: largest power of two <= p. */
int mring_pof2_floor(int p);

/* Fold-in/fold-out of a non-power-of-two P (MPICH's allreduce): ranks r < 2*rem, rem = P - pof2,
 * pair up (even r sends its data to r+1, which reduces); the pof2 survivors get
 * new ranks.  Returns this rank's new rank, or -1 for a rank that sat out. */
int mring_fold_newrank(int rank, int nranks);
/* Old rank of new rank nr. */
int mring_fold_oldrank(int nr, int nranks);
/* Emit the fold-in (before) or fold-out (after) of rank over OUT[0, count). */
void mring_emit_fold(mring_builder_t *b, int rank, int nranks, int64_t count, int fold_out);

/* A one-stream schedule: the IN->OUT prologue, the fold-in, body(b, c, rank, newrank, pof2) for the
 * pof2 ranks that stay, the fold-out (rd, rabenseifner).  Returns 0 or -1 (no memory). */
int mring_generate_folded(const mring_config_t *c, mring_call_t k, int rank, mring_rank_sched_t *out,
                          void (*body)(mring_builder_t *b, const mring_config_t *c, mring_call_t k, int rank, int nr,
                                       int pof2));

#endif
