/*
 * gen_ring.c - the flat ring allreduce over all P ranks in rank order:
 * a ring reduce-scatter then a ring allgather, 2(P-1) steps
 * (Patarasuk and Yuan, JPDC 69(2), 2009; the NCCL ring).  It is multiring on
 * the one-dimensional grid P, while messages still cross the links of the
 * topology's hierarchy.
 */
#include "gen.h"
#include "gen_multiring.h"

static int generate(const mring_config_t *c, int rank, mring_rank_sched_t *out)
{
    mring_topo_t flat = mring_topo_flat(c->topo.nranks);
    return mring_multiring_generate_grid(c, &flat, c->rings, NULL, rank, out);
}

const mring_gen_t mring_gen_ring = {"ring", NULL, generate, mring_multiring_closed};
