/*
 * config.h - the configuration of an allreduce, and the per-call part apart from it.
 *
 * A configuration (mring_config_t) is the shape of a schedule: algorithm, rank grid, rings per
 * dimension, per-dimension algorithm and pipelining segment.  It is what a command line, the
 * MRING_* variables of the interposer, a tuning-file entry and an executor context describe; one
 * function builds it from named string fields for all of them (mring_config_parse), one checks it
 * against the algorithm's declared rules (mring_config_check, in the registry's terms: algo.h),
 * one compares (mring_config_equal) and one formats it (mring_config_describe).
 *
 * The per-call part (mring_call_t: count and element size) is an argument of each generation,
 * cost, simulation or execution, never a field of the configuration.
 *
 * No function here prints or exits: errors come back as -1 with one line naming the bad value.
 */
#ifndef MRING_CONFIG_H
#define MRING_CONFIG_H

#include "embed.h"
#include "topology.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* An algorithm: an index into the generator registry (algo.h).  The built-in ones keep these ids;
 * mring_algo_register adds more after them. */
typedef int mring_algo_t;
enum {
    MRING_ALGO_MULTIRING,
    MRING_ALGO_RING,
    MRING_ALGO_RD,
    MRING_ALGO_RABENSEIFNER,
    MRING_ALGO_HIER,
    MRING_NALGOS_BUILTIN
};
/* Most algorithms the registry holds (built-in and registered). */
#define MRING_MAX_ALGOS 16

#define MRING_MAX_RINGS 64
/* Most chunks a stream pipelines through the dimensions (--chunks). */
#define MRING_MAX_CHUNKS 64

/* The algorithm of one dimension (DDL runs a different one per dimension): a ring, recursive
 * halving/doubling among the group, or recursive doubling of the whole range (the latter two on
 * power-of-two groups; after rd every member holds the whole range reduced over the group, so the
 * next dimension works on all of it and rd's allgather is empty).  hier reads dimension 2's entry as
 * the algorithm among its node leaders (ring or rabenseifner). */
typedef enum { MRING_DIM_RING, MRING_DIM_RABENSEIFNER, MRING_DIM_RD, MRING_NDIMALGOS } mring_dim_algo_t;

typedef struct mring_config {
    mring_algo_t algo;
    mring_topo_t topo;                /* the rank grid (and, for the cost model, the link hierarchy) */
    int rings[MRING_MAX_DIMS];        /* rings per dimension, each in 1..MRING_MAX_RINGS */
    int64_t segment;                  /* pipelining piece in bytes; 0 = whole blocks */
    uint8_t dim_algo[MRING_MAX_DIMS]; /* mring_dim_algo_t per dimension (default ring) */
    int chunks;                       /* chunks each stream pipelines through the dimensions; 0 or 1 = none */
    const mring_embed_t *embed;       /* the rings' orders (embed.h); NULL = natural */
} mring_config_t;

/* One call on a configuration: count elements of elsize bytes per rank. */
typedef struct mring_call {
    int64_t count; /* elements per rank, >= 0 */
    size_t elsize; /* bytes per element, >= 1 */
} mring_call_t;

/* Default configuration on topo: multiring, 1 ring per dimension, ring in every dimension, no segment. */
static inline void mring_config_default(mring_config_t *c, const mring_topo_t *topo)
{
    memset(c, 0, sizeof *c); /* not a designated initializer: C++ (sim_stream.cpp) includes this header */
    c->algo = MRING_ALGO_MULTIRING;
    c->topo = *topo;
    for (int i = 0; i < MRING_MAX_DIMS; i++)
        c->rings[i] = 1;
}

/* Number of streams S of the configuration's schedules: the most rings of any dimension. */
static inline int mring_config_nstreams(const mring_config_t *c)
{
    int s = 1;
    for (int i = 0; i < c->topo.ndims; i++)
        s = c->rings[i] > s ? c->rings[i] : s;
    return s;
}

/* The named string fields a configuration is built from; NULL = not given (the default). */
typedef struct mring_config_fields {
    const char *topo, *algo, *rings, *dim_algo, *segment, *chunks, *embed;
} mring_config_fields_t;

/* How the fields are named in messages: as flags (--dim-algo), as MRING_* variables
 * (MRING_DIM_ALGO) or as tuning-file keys (dim_algo). */
typedef enum { MRING_FIELDS_FLAGS, MRING_FIELDS_ENV, MRING_FIELDS_JSON } mring_fields_style_t;

/*
 * Build a configuration from named fields: the topology (required unless default_topo is given),
 * then algo, rings (R, or R1,...,Rk), dim_algo (ring|rabenseifner, once or per dimension),
 * segment (bytes with K/M/G suffixes), chunks (1..MRING_MAX_CHUNKS) and embed (embed.h's text on the
 * algorithm's grid: "auto" is for the callers that have a platform to search), then
 * mring_config_check.  Returns 0, or -1 with one line
 * naming the field as `style` spells it and the bad value in err.
 */
int mring_config_parse(const mring_config_fields_t *f, mring_fields_style_t style, const mring_topo_t *default_topo,
                       mring_config_t *c, char *err, size_t errlen);

/* mring_config_parse without the final mring_config_check (for a caller that adjusts c first, such as
 * `mring verify --algo all`).  Same returns. */
int mring_config_fields_read(const mring_config_fields_t *f, mring_fields_style_t style,
                             const mring_topo_t *default_topo, mring_config_t *c, char *err, size_t errlen);

/*
 * Check the configuration against the algorithm's declared rules (rings rule, dim-algo, the
 * generator's own check).  Returns 0, or -1 with a one-line reason naming the bad value in err.
 */
int mring_config_check(const mring_config_t *c, char *err, size_t errlen);

/* Pieces of --segment a call's bytes may be cut into: 1 GiB in 256-byte pieces.  Each piece is a few ops of every
 * rank's schedule (a ring moves about twice the bytes), and `mring simulate` holds all ranks' at once: 1 GiB in
 * 4-byte pieces grew by 50 MB/s without an end. */
#define MRING_MAX_PIECES (1 << 22)

/* Check a call on c: count >= 0, elsize >= 1, segment 0 or at least one element and cutting the call into at
 * most MRING_MAX_PIECES pieces.  Returns 0, or -1 with a one-line reason in err. */
int mring_call_check(const mring_config_t *c, mring_call_t k, char *err, size_t errlen);

/* 1 when a and b describe the same schedule shape (entries past the topology's dimensions ignored). */
int mring_config_equal(const mring_config_t *a, const mring_config_t *b);

/* rings as given per dimension ("2,1,1"), or one value when all are equal (the CSV/JSON field). Returns buf. */
char *mring_rings_format(const mring_config_t *c, char *buf, size_t len);

/* dim_algo per dimension ("ring,rabenseifner"), or one name when all are equal. Returns buf. */
char *mring_dim_algos_format(const mring_config_t *c, char *buf, size_t len);

/* "ring" or "rabenseifner". */
static inline const char *mring_dim_algo_name(int a)
{
    return a == MRING_DIM_RABENSEIFNER ? "rabenseifner" : a == MRING_DIM_RD ? "rd" : "ring";
}

/* The one-line flag-style description of c, e.g. "--algo multiring --topo 4x16x4 --rings 2,1,1
 * --dim-algo ring,rabenseifner,rabenseifner --segment 1M" (dim-algo, segment, chunks and embed only
 * where not the default; an embedding with ';' in single quotes): it can be pasted into a shell's
 * `mring simulate`.  Returns buf. */
char *mring_config_describe(const mring_config_t *c, char *buf, size_t len);

#endif
