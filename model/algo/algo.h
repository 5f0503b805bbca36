/*
 * algo.h - the generator registry: every allreduce algorithm declares itself here.
 *
 * Built-in algorithms (one generator file each in model/algo/):
 *   multiring     reduce-scatter along dimensions 1..k, allgather k..1 (PowerAI DDL /
 *                 BlueConnect); R_i concurrent rings per dimension, alternating direction
 *   ring          the flat ring over all P ranks (multiring on topology P)
 *   rd            recursive doubling (Thakur, Rabenseifner, Gropp, IJHPCA 2005)
 *   rabenseifner  recursive-halving reduce-scatter + recursive-doubling allgather (same source)
 *   hier          reduce to a leader per dimension-1 group, ring (or, with dim_algo
 *                 rabenseifner, halving/doubling) among leaders, broadcast
 *                 (Goyal et al. 2017; Jia et al. 2018)
 *
 * Each entry (mring_gen_t) says what the algorithm accepts (its rings rule, whether it takes a
 * per-dimension algorithm), checks what the rules cannot say, generates a rank's schedule, gives
 * its closed-form cost and offers its candidate configurations to the tuner.  The list of names,
 * the configuration check, the help texts and the tuner's candidates are derived from the entries:
 * a new algorithm is its generator file, its tests and one line in algo.c's table.
 *
 * Streams and rings: a schedule has S = max_i R_i streams.  The count elements are split into S
 * balanced parts; stream j runs the whole algorithm on part j, with no ordering against other
 * streams.  In dimension i stream j uses ring (j mod R_i), and ring r runs forward (to coordinate
 * c+1) when r is even and backward when odd, so R_i = 2 uses both directions of a full-duplex
 * link.  Several streams on the same ring are channels of that ring (same links, same direction).
 */
#ifndef MRING_ALGO_H
#define MRING_ALGO_H

#include "config.h"
#include "cost.h"
#include "schedule.h"

#include <stddef.h>
#include <stdint.h>

/* What --rings an algorithm takes. */
typedef enum {
    MRING_RINGS_ONE,     /* one stream: --rings 1 only */
    MRING_RINGS_UNIFORM, /* one value R (R streams in every dimension) */
    MRING_RINGS_PER_DIM, /* R, or R1,...,Rk one per dimension */
} mring_rings_rule_t;

/* What --embed an algorithm takes. */
typedef enum {
    MRING_EMBED_NONE,    /* none: its orders are its own */
    MRING_EMBED_PER_DIM, /* cycles per dimension of the configuration's grid (multiring) */
    MRING_EMBED_FLAT,    /* cycles of all P ranks, one flat dimension (the flat ring) */
} mring_embed_rule_t;

/* Where the tuner's candidates go: add() takes a configuration (checked there), returns 0 or -1 (memory). */
typedef struct mring_cand_sink {
    int (*add)(struct mring_cand_sink *s, const mring_config_t *c);
} mring_cand_sink_t;

typedef struct mring_gen {
    const char *name;
    const char *summary;       /* one line for help texts: what it is, and its source */
    mring_rings_rule_t rings;  /* what --rings it takes */
    const char *dim_algo_help; /* what --dim-algo means for it; NULL = it takes none */
    int takes_chunks;          /* 1: --chunks pipelines chunks through its stages */
    mring_embed_rule_t embed;  /* what --embed it takes */
    /* checks beyond the declared rules; NULL = none.  Returns 0 or -1 with a reason in err. */
    int (*check)(const mring_config_t *c, char *err, size_t errlen);
    /* rank's schedule for call k into out (initialised here).  Returns 0 or -1 (no memory). */
    int (*generate)(const mring_config_t *c, mring_call_t k, int rank, mring_rank_sched_t *out);
    /* closed-form alpha-beta-gamma time in seconds (cost.h), or -1 (no memory); NULL = the schedule
     * walk (mring_cost_walk) stands in */
    double (*closed_form)(const mring_config_t *c, mring_call_t k, const mring_cost_params_t *p, int inplace);
    /* the tuner's candidates on topology topo (natural = the platform's own grid): s->add each.
     * NULL = one candidate, 1 ring on the natural grid.  Returns 0 or -1 (no memory). */
    int (*candidates)(const mring_topo_t *topo, int natural, mring_cand_sink_t *s);
} mring_gen_t;

/* The grid c's embedding is made for: the flat grid of all P ranks for an algorithm whose rule is
 * MRING_EMBED_FLAT (the flat ring), else c->topo. */
mring_topo_t mring_algo_embed_grid(const mring_config_t *c);

/* Number of algorithms in the registry (the built-in ones first). */
int mring_algo_count(void);

/* The entry of algorithm a, or NULL when a is not in the registry. */
const mring_gen_t *mring_algo_gen(mring_algo_t a);

/*
 * Add an algorithm to the registry (a plug-in or a test's toy generator): it then appears in every
 * list, check, help text and candidate set.  Returns its id, or -1 when the registry is full
 * (MRING_MAX_ALGOS), the name is taken or the entry lacks name, summary or generate.
 */
int mring_algo_register(const mring_gen_t *g);

/* The name of a ("?" when unknown). */
const char *mring_algo_name(mring_algo_t a);

/* Parse an algorithm name. Returns 0, or -1 if unknown. */
int mring_algo_parse(const char *s, mring_algo_t *a);

/* "multiring, ring, rd, rabenseifner, hier" (and registered ones), for messages. */
const char *mring_algo_list(void);
/* The algorithms that take rings per dimension ("multiring"), and those that take --dim-algo. */
const char *mring_algo_list_per_dim(void);
const char *mring_algo_list_dim_algo(void);
/* The algorithms that take --embed. */
const char *mring_algo_list_embed(void);

/* Help text of --algo, --rings and --dim-algo derived from the registry (the flag column 20
 * characters wide, as every command's help).  Returns buf. */
char *mring_algo_help(char *buf, size_t len);

/*
 * The tuner's candidates on topology topo: every algorithm's own offer (its entry's candidates), or
 * for an algorithm that offers none, 1 ring on the natural grid (natural != 0).  s->add gets each;
 * it checks them.  Returns 0 or -1 (s->add failed: no memory).
 */
int mring_algo_candidates(const mring_topo_t *topo, int natural, mring_cand_sink_t *s);

/*
 * Generate rank's schedule for call k into out (initialised here; free with mring_rank_sched_free).
 * c must pass mring_config_check and k mring_call_check.  Returns 0, or -1 when out of memory.
 */
int mring_generate(const mring_config_t *c, mring_call_t k, int rank, mring_rank_sched_t *out);

#endif
