/*
 * gen_ring.c - the flat ring allreduce over all P ranks in rank order:
 * a ring reduce-scatter then a ring allgather, 2(P-1) steps
 * (Patarasuk and Yuan, JPDC 69(2), 2009; the NCCL ring).  It is multiring on
 * the one-dimensional grid P, while messages still cross the links of the
 * topology's hierarchy.
 */
#include "gen.h"
#include "gen_multiring.h"

static int generate(const mring_config_t *c, mring_call_t k, int rank, mring_rank_sched_t *out)
{
    mring_topo_t flat = mring_topo_flat(c->topo.nranks);
    return mring_multiring_generate_grid(c, k, &flat, c->rings, NULL, rank, out);
}

static double closed(const mring_config_t *c, mring_call_t k, const mring_cost_params_t *p, int inplace)
{
    mring_topo_t flat = mring_topo_flat(c->topo.nranks);
    return mring_multiring_closed_grid(c, k, &flat, c->rings, NULL, p, inplace);
}

/* The tuner's candidates: 1, 2, 4 and 8 rings on the natural grid. */
static int candidates(const mring_topo_t *topo, int natural, mring_cand_sink_t *s)
{
    static const int rings[] = {1, 2, 4, 8};
    return natural ? mring_cand_uniform(topo, MRING_ALGO_RING, rings, 4, s) : 0;
}

const mring_gen_t mring_gen_ring = {
    .name = "ring",
    .summary = "the flat ring over all P ranks, 2(P-1) steps (Patarasuk and Yuan 2009; NCCL)",
    .rings = MRING_RINGS_UNIFORM,
    .embed = MRING_EMBED_FLAT,
    .generate = generate,
    .closed_form = closed,
    .candidates = candidates,
};
