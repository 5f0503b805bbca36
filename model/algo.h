/*
 * algo.h - allreduce configurations and the generator registry.
 *
 * Algorithms (one generator file each in model/):
 *   multiring     reduce-scatter along dimensions 1..k, allgather k..1 (PowerAI DDL /
 *                 BlueConnect); R_i concurrent rings per dimension, alternating direction
 *   ring          the flat ring over all P ranks (multiring on topology P)
 *   rd            recursive doubling (Thakur, Rabenseifner, Gropp, IJHPCA 2005)
 *   rabenseifner  recursive-halving reduce-scatter + recursive-doubling allgather (same source)
 *   hier          reduce to a leader per dimension-1 group, ring (or, with dim_algo
 *                 rabenseifner, halving/doubling) among leaders, broadcast
 *                 (Goyal et al. 2017; Jia et al. 2018)
 *
 * Streams and rings: a schedule has S = max_i R_i streams.  The count elements are
 * split into S balanced parts; stream j runs the whole algorithm on part j, with no
 * ordering against other streams.  In dimension i stream j uses ring (j mod R_i),
 * and ring r runs forward (to coordinate c+1) when r is even and backward when odd,
 * so R_i = 2 uses both directions of a full-duplex link.  Several streams on the
 * same ring are channels of that ring (same links, same direction).
 */
#ifndef MRING_ALGO_H
#define MRING_ALGO_H

#include "schedule.h"
#include "topology.h"

#include <stddef.h>
#include <stdint.h>

typedef enum {
    MRING_ALGO_MULTIRING,
    MRING_ALGO_RING,
    MRING_ALGO_RD,
    MRING_ALGO_RABENSEIFNER,
    MRING_ALGO_HIER,
    MRING_NALGOS
} mring_algo_t;

#define MRING_MAX_RINGS 64

/* The algorithm of one dimension of multiring (DDL runs a different one per dimension):
 * a ring, or recursive halving/doubling among the group (power-of-two groups only).
 * hier reads dimension 2's entry as the algorithm among its node leaders. */
typedef enum { MRING_DIM_RING, MRING_DIM_RABENSEIFNER, MRING_NDIMALGOS } mring_dim_algo_t;

typedef struct mring_config {
    mring_algo_t algo;
    mring_topo_t topo;          /* the rank grid (and, for the cost model, the link hierarchy) */
    int rings[MRING_MAX_DIMS];  /* rings per dimension, each in 1..MRING_MAX_RINGS */
    int64_t count;              /* elements per rank, >= 0 */
    size_t elsize;              /* bytes per element, >= 1 */
    int64_t segment;            /* pipelining piece in bytes; 0 = whole blocks */
    uint8_t dim_algo[MRING_MAX_DIMS]; /* multiring: mring_dim_algo_t per dimension (default ring) */
} mring_config_t;

const char *mring_algo_name(mring_algo_t a);
/* Parse an algorithm name. Returns 0, or -1 if unknown. */
int mring_algo_parse(const char *s, mring_algo_t *a);
/* "multiring, ring, rd, rabenseifner, hier" */
const char *mring_algo_list(void);

/*
 * Parse --rings: one value R (R rings in every dimension) or k comma-separated
 * values, one per dimension of topo.  Values in 1..MRING_MAX_RINGS.
 * Returns 0, or -1 with a one-line reason in err.
 */
int mring_rings_parse(const char *s, const mring_topo_t *topo, int *rings, char *err, size_t errlen);

/*
 * Parse --dim-algo: "ring" or "rabenseifner" for every dimension, or one per
 * dimension, comma-separated.  Returns 0, or -1 with a one-line reason in err.
 */
int mring_dim_algos_parse(const char *s, const mring_topo_t *topo, uint8_t *out, char *err, size_t errlen);
/* "ring" or "rabenseifner". */
const char *mring_dim_algo_name(int a);

/* Format rings as given per dimension ("2,1,1"), or one value when all are equal. */
char *mring_rings_format(const mring_config_t *c, char *buf, size_t len);

/* Default configuration: multiring, 1 ring per dimension, float32, no segment. */
void mring_config_default(mring_config_t *c, const mring_topo_t *topo);

/*
 * Check that the algorithm accepts the configuration (rings per dimension only
 * for multiring, rd and rabenseifner take 1 ring, segment >= elsize, ...).
 * Returns 0, or -1 with a one-line reason naming the bad value in err.
 */
int mring_config_check(const mring_config_t *c, char *err, size_t errlen);

/* Number of streams S of the configuration's schedules. */
int mring_config_nstreams(const mring_config_t *c);

/*
 * Generate rank's schedule into out (initialised here; free with
 * mring_rank_sched_free).  The configuration must pass mring_config_check.
 * Returns 0, or -1 when out of memory.
 */
int mring_generate(const mring_config_t *c, int rank, mring_rank_sched_t *out);

#endif
