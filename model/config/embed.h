/*
 * embed.h - embeddings: the rank order each ring follows.
 *
 * By default (the natural embedding) every ring of dimension i visits its group in coordinate order
 * 0, 1, ..., d_i - 1, and ring j only differs in direction.  An embedding gives a dimension one or
 * more cycles, each an order of the group's coordinates; ring r of the dimension follows cycle
 * (r / 2) mod K, forward for even r and backward for odd r, so 2K rings use both directions of K
 * cycles (on a DGX-1's hybrid cube-mesh, 2 edge-disjoint Hamiltonian cycles and 4 rings use all 4
 * NVLinks of every GPU in both directions, as NCCL's rings do).  The flat ring takes one dimension of
 * all P ranks: its cycles are whole Hamiltonian cycles.
 *
 * Text form (flags, MRING_EMBED, tuning files, CSV): one part per dimension separated by ';', "-" for
 * a natural dimension, else its cycles separated by '/', each the coordinates in visiting order
 * separated by '.': "0.1.2.3.7.6.5.4/0.2.6.4.7.5.1.3;-" gives dimension 1 of an 8x4 grid two cycles.
 * "natural" is the natural embedding.  Embeddings are interned: equal texts give the same pointer,
 * which lives until the process ends, so configurations compare and copy them as pointers.
 */
#ifndef MRING_EMBED_H
#define MRING_EMBED_H

#include "topology.h"

#include <stddef.h>

/* Most cycles one dimension may have. */
#define MRING_MAX_CYCLES 8

typedef struct mring_embed mring_embed_t;

/*
 * Parse an embedding for grid (one part per dimension of grid).  "natural", or a text whose every
 * dimension is "-", gives NULL (the natural embedding).  Returns 0, or -1 with a one-line reason
 * naming the bad part in err (not a permutation of 0..d-1, wrong number of parts, too many cycles).
 */
int mring_embed_parse(const char *text, const mring_topo_t *grid, const mring_embed_t **out, char *err, size_t errlen);

/* The canonical text of e ("natural" for NULL). */
const char *mring_embed_text(const mring_embed_t *e);

/* The grid e was made for. */
const mring_topo_t *mring_embed_grid(const mring_embed_t *e);

/* Number of cycles of dimension dim (0 = natural; always 0 for NULL). */
int mring_embed_ncycles(const mring_embed_t *e, int dim);

/*
 * Ring `ring` (0-based, of `rings` in the dimension) of dimension dim: the member at position x of
 * its cycle has coordinate order[x]; the coordinate c sits at position pos[c].  NULL when the
 * dimension is natural (order and position are the identity).
 */
const int *mring_embed_order(const mring_embed_t *e, int dim, int ring);
const int *mring_embed_pos(const mring_embed_t *e, int dim, int ring);

#endif
