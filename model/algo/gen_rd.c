/*
 * gen_rd.c - recursive doubling allreduce: lg P steps, each exchanging the
 * whole buffer with the rank at distance 2^k and reducing (Thakur, Rabenseifner
 * and Gropp, IJHPCA 19(1), 2005, section 4.5).  A P that is not a power of two
 * is folded first as in MPICH: of the first 2*rem ranks (rem = P - pof2) each
 * even rank hands its data to the next odd rank and sits out until the
 * fold-out returns the result.  Both ranks of a pair evaluate
 * (lower rank's data) op (higher rank's data), so every rank holds the same bits.
 */
#include "gen.h"
#include "cost_closed.h"

static void exchanges(mring_builder_t *b, const mring_config_t *c, mring_call_t k, int rank, int nr, int pof2)
{
    int nsteps = 0;
    mring_xstep_t st[32];
    for (int mask = 1; mask < pof2; mask <<= 1, nsteps++) {
        int peer = mring_fold_oldrank(nr ^ mask, c->topo.nranks);
        st[nsteps] = (mring_xstep_t){peer, peer, 0, k.count, 0, k.count, peer < rank ? MRING_REDUCE_SRC_FIRST : 0,
                                     {MRING_PHASE_EXCHANGE, 0, (uint16_t)nsteps}};
    }
    mring_emit_steps(b, st, nsteps, 1, 1);
}

static int generate(const mring_config_t *c, mring_call_t k, int rank, mring_rank_sched_t *out)
{
    return mring_generate_folded(c, k, rank, out, exchanges);
}

/* Closed form: copy + fold-in + lg(pof2) steps of (message of the whole buffer + its
 * reduction) + fold-out (Thakur et al. 2005: lg P (alpha + n beta + n gamma)). */
static double closed(const mring_config_t *c, mring_call_t k, const mring_cost_params_t *p, int inplace)
{
    int P = c->topo.nranks, pof2 = mring_pof2_floor(P), rem = P - pof2;
    double b = (double)k.count * (double)k.elsize, t;
    mring_flows_t f;
    if (mring_cost_flows_init(&f, c, 1))
        return -1;
    int lg = mring_lg(pof2);
    for (int stage = -1; stage <= lg; stage++) { /* -1 fold-in, 0..lg-1 exchanges, lg fold-out */
        int any = 0;
        for (int r = 0; r < P; r++) {
            int nr = mring_fold_newrank(r, P);
            if (stage == -1) /* fold-in: even ranks below 2 rem send */
                f.to[r] = r < 2 * rem && r % 2 == 0 ? r + 1 : -1;
            else if (stage == lg) /* fold-out: odd ranks below 2 rem send back */
                f.to[r] = r < 2 * rem && r % 2 ? r - 1 : -1;
            else
                f.to[r] = nr >= 0 ? mring_fold_oldrank(nr ^ (1 << stage), P) : -1;
            f.bytes[r] = b;
            f.red[r] = stage == lg ? 0 : b;
            any |= f.to[r] >= 0;
        }
        if (any && mring_cost_flows_add(&f, c, p, 1)) {
            mring_cost_flows_free(&f);
            return -1;
        }
        mring_cost_flows_clear(&f, c);
    }
    t = mring_cost_flows_result(&f);
    mring_cost_flows_free(&f);
    return t + (inplace ? 0 : mring_cost_compute(p, b, 1, 1));
}

const mring_gen_t mring_gen_rd = {
    .name = "rd",
    .summary = "recursive doubling, lg P exchanges of the whole buffer (Thakur et al. 2005)",
    .rings = MRING_RINGS_ONE,
    .generate = generate,
    .closed_form = closed,
};
