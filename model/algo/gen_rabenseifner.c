/*
 * gen_rabenseifner.c - Rabenseifner's allreduce: a reduce-scatter by recursive
 * halving (lg P steps, distance 1, 2, 4, ...: the innermost ranks exchange the
 * largest halves) and an allgather by recursive doubling that retraces it
 * (Thakur, Rabenseifner and Gropp, IJHPCA 19(1), 2005, section 4.4; MPICH's
 * long-message allreduce).  The count is split into pof2 balanced blocks
 * (sizes differ by at most one); a P that is not a power of two is folded first,
 * as in rd.
 */
#include "gen.h"
#include "cost_closed.h"

#include <stdio.h>
#include <stdlib.h>

static void plan(mring_halving_t *h, int peers[32], int nr, int pof2, int P)
{
    mring_halving_plan(h, nr, pof2);
    for (int k = 0; k < h->n; k++)
        peers[k] = mring_fold_oldrank(h->peer[k], P);
}

static int64_t range_len(int64_t count, int pof2, mring_brange_t r)
{
    return mring_split_off(count, pof2, r.hi) - mring_split_off(count, pof2, r.lo);
}

static void halving_doubling(mring_builder_t *b, const mring_config_t *c, mring_call_t k, int rank, int nr, int pof2)
{
    mring_halving_t h;
    int peers[32];
    plan(&h, peers, nr, pof2, c->topo.nranks);
    mring_emit_halving(b, &h, peers, rank, 0, k.count, pof2, 1, (mring_label_t){MRING_PHASE_RS, 0, 0});
    mring_emit_halving(b, &h, peers, rank, 0, k.count, pof2, 0, (mring_label_t){MRING_PHASE_AG, 0, 0});
}

static int generate(const mring_config_t *c, mring_call_t k, int rank, mring_rank_sched_t *out)
{
    return mring_generate_folded(c, k, rank, out, halving_doubling);
}

/* Closed form: copy + fold-in + lg(pof2) halving steps (message of the half sent
 * + reduction of the half kept) + lg(pof2) doubling steps + fold-out
 * (Thakur et al. 2005: 2 lg P alpha + 2 (P-1)/P n beta + (P-1)/P n gamma). */
static double closed(const mring_config_t *c, mring_call_t k, const mring_cost_params_t *p, int inplace)
{
    int P = c->topo.nranks, pof2 = mring_pof2_floor(P), rem = P - pof2, lg = 0;
    double e = (double)k.elsize, b = (double)k.count * e, t;
    mring_flows_t f;
    mring_halving_t *plans = malloc((size_t)P * sizeof *plans);
    int (*peers)[32] = malloc((size_t)P * sizeof *peers);
    lg = mring_lg(pof2);
    if (!plans || !peers || mring_cost_flows_init(&f, c, 1)) {
        free(plans);
        free(peers);
        return -1;
    }
    for (int r = 0; r < P; r++)
        if (mring_fold_newrank(r, P) >= 0)
            plan(&plans[r], peers[r], mring_fold_newrank(r, P), pof2, P);
    for (int s = -1; s <= 2 * lg; s++) { /* -1 fold-in, 0..lg-1 halving, lg..2lg-1 doubling, 2lg fold-out */
        int any = 0;
        for (int r = 0; r < P; r++) {
            int nr = mring_fold_newrank(r, P);
            if (s == -1 || s == 2 * lg) {
                f.to[r] = r < 2 * rem && r % 2 == (s == -1 ? 0 : 1) ? r + (s == -1 ? 1 : -1) : -1;
                f.bytes[r] = b;
                f.red[r] = s == -1 ? b : 0;
            } else if (nr >= 0 && s < lg) {
                f.to[r] = peers[r][s];
                f.bytes[r] = (double)range_len(k.count, pof2, plans[r].snd[s]) * e;
                f.red[r] = (double)range_len(k.count, pof2, plans[r].keep[s]) * e;
            } else if (nr >= 0) {
                int back = 2 * lg - 1 - s; /* the doubling retraces the halving */
                f.to[r] = peers[r][back];
                f.bytes[r] = (double)range_len(k.count, pof2, plans[r].keep[back]) * e;
            }
            any |= f.to[r] >= 0;
        }
        if (any && mring_cost_flows_add(&f, c, p, 1))
            break;
        mring_cost_flows_clear(&f, c);
    }
    t = mring_cost_flows_result(&f);
    mring_cost_flows_free(&f);
    free(plans);
    free(peers);
    return t + (inplace ? 0 : mring_cost_compute(p, b, 1, 1));
}

const mring_gen_t mring_gen_rabenseifner = {
    .name = "rabenseifner",
    .summary = "recursive halving reduce-scatter + doubling allgather (Thakur et al. 2005)",
    .rings = MRING_RINGS_ONE,
    .generate = generate,
    .closed_form = closed,
};
