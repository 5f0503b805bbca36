/* gen_multiring.h - the multi-dimensional ring, shared by multiring, ring and hier (internal). */
#ifndef MRING_GEN_MULTIRING_H
#define MRING_GEN_MULTIRING_H

#include "gen.h"

/* Direction of stream `stream`'s ring in a dimension with `rings` rings: +1 or -1. */
int mring_ring_dir(int stream, int rings);

/* Position of rank on ring `ring` of grid dimension i (embedding e: each ring's cycle; NULL =
 * coordinate order), 0..dims[i]-1. */
int mring_multiring_pos(const mring_topo_t *grid, const mring_embed_t *e, int rank, int i, int ring);

/* The rank at position x of ring `ring` through rank's group in grid dimension i (e as above). */
int mring_multiring_member(const mring_topo_t *grid, const mring_embed_t *e, int rank, int i, int ring, int x);

/* The rank one step from rank in direction dir (+1 or -1) along ring `ring` of grid dimension i. */
int mring_multiring_neighbor(const mring_topo_t *grid, const mring_embed_t *e, int rank, int i, int ring, int dir);

/* Generate the multi-dimensional ring of c over the rank grid `grid` (which may
 * differ from c->topo, the link hierarchy), with rings[i] rings in grid dimension i,
 * algos[i] (mring_dim_algo_t; NULL = rings everywhere) per grid dimension, c->embed's cycles
 * (an embedding of grid) and c->chunks. */
int mring_multiring_generate_grid(const mring_config_t *c, mring_call_t k, const mring_topo_t *grid, const int *rings,
                                  const uint8_t *algos, int rank, mring_rank_sched_t *out);

/* Closed-form time (see cost.h) of the same multi-dimensional ring: grid, rings and algos as above. */
double mring_multiring_closed_grid(const mring_config_t *c, mring_call_t k, const mring_topo_t *grid, const int *rings,
                                   const uint8_t *algos, const mring_cost_params_t *p, int inplace);

#endif
