/*
 * topology.h - the multi-dimensional rank grid of multi-ring allreduce.
 *
 * A topology "d1xd2x...xdk" describes P = d1*d2*...*dk ranks as a k-dimensional
 * grid, d1 the innermost (fastest) level, e.g. 4x16x4 = 4 GPUs per node x 16
 * nodes per rack x 4 racks.  Ranks map to coordinates in mixed radix with d1
 * fastest: rank = c1 + d1*(c2 + d2*(c3 + ...)).  This is the rankfile order of
 * PowerAI DDL's rank_gen.py (hosts listed "by Z", a host's GPUs consecutive; the PowerAI DDL
 * user README, platforms/SOURCES.md id DDLREADME).
 */
#ifndef MRING_TOPOLOGY_H
#define MRING_TOPOLOGY_H

#include <stddef.h>

#define MRING_MAX_DIMS 8
/* Upper bound on ranks: step labels of the schedule IR are 16-bit. */
#define MRING_MAX_RANKS 65536

typedef struct mring_topo {
    int ndims;                /* k >= 1 */
    int dims[MRING_MAX_DIMS]; /* d1..dk, each >= 1; dims[0] innermost */
    int nranks;               /* P = product of dims */
} mring_topo_t;

/*
 * Parse "d1xd2x...xdk" (k in 1..MRING_MAX_DIMS, each d >= 1, product <= MRING_MAX_RANKS).
 * Returns 0 on success; -1 on bad input with a one-line reason in err (errlen bytes).
 */
int mring_topo_parse(const char *s, mring_topo_t *t, char *err, size_t errlen);

/* Topology with one dimension of size p (the flat ring). */
mring_topo_t mring_topo_flat(int p);

/*
 * The rank grid of p ranks on nodes: ranks_per_node x (p / ranks_per_node) when `regular` (every node
 * holds ranks_per_node ranks and ranks are numbered node by node: rank = node * ranks_per_node + its
 * rank on the node), so rings run inside a node first; the flat ring of p otherwise, and when there is
 * one node or one rank per node (a grid of one dimension): a layout that is not regular has no grid
 * that keeps nodes together.
 */
mring_topo_t mring_topo_from_nodes(int p, int ranks_per_node, int regular);

/*
 * The grid of t's first n ranks: whole groups of the inner dimensions, then part of the next one
 * (4x16x4: 2 -> 2, 8 -> 4x2, 64 -> 4x16, 128 -> 4x16x2), so a sub-platform keeps the natural
 * hierarchy.  Returns 0; -1 with a reason in err when n is not in 1..P or cuts a group (6 on 4x16x4).
 */
int mring_topo_prefix(const mring_topo_t *t, int n, mring_topo_t *out, char *err, size_t errlen);

/* Write "d1x...xdk" into buf (len bytes). Returns buf. */
char *mring_topo_format(const mring_topo_t *t, char *buf, size_t len);

/* D_i = d1*...*di (stride of dimension i+1); stride(t, 0) = 1. dim is 0-based. */
long mring_topo_stride(const mring_topo_t *t, int dim);

/* Coordinate of rank in dimension dim (0-based), in [0, dims[dim]). */
int mring_topo_coord(const mring_topo_t *t, int rank, int dim);

/* Fill coords[0..ndims-1] with the coordinates of rank. */
void mring_topo_coords(const mring_topo_t *t, int rank, int *coords);

/* Rank of the given coordinates (each in range). */
int mring_topo_rank(const mring_topo_t *t, const int *coords);

/*
 * Member c (0 <= c < dims[dim]) of rank's group in dimension dim: the rank whose
 * coordinates equal rank's except coordinate dim, which is c.
 */
int mring_topo_group_member(const mring_topo_t *t, int rank, int dim, int c);

/* Ring neighbour of rank in dimension dim at offset delta (+1 right, -1 left), mod d. */
int mring_topo_neighbor(const mring_topo_t *t, int rank, int dim, int delta);

/*
 * The dimension a message between ranks a != b travels in: the outermost
 * (slowest) dimension in which their coordinates differ.  -1 if a == b.
 */
int mring_topo_link_dim(const mring_topo_t *t, int a, int b);

#endif
