/* gen_multiring_cost.c - the closed form of the multi-dimensional ring, chunked or not (see gen_multiring.h). */
#include "gen_multiring.h"

#include "cost_closed.h"

#include <stdlib.h>

/* Add dimension i's reduce-scatter (phase 0) or allgather (1) on blocks of blk elements to f. */
static int closed_stage(mring_flows_t *f, const mring_config_t *c, const mring_topo_t *grid, const int *rings,
                        int algo, int i, int phase, int64_t blk, double e, const mring_cost_params_t *p)
{
    int d = grid->dims[i], S = f->S, P = c->topo.nranks, halving = algo != MRING_DIM_RING;
    if (algo == MRING_DIM_RD && phase == 1)
        return 0; /* rd's allgather is empty */
    for (int st = 0; st < (halving ? mring_lg(d) : 1); st++) {
        /* a ring step moves one block; halving step st moves d / 2^(st+1) blocks; an rd step the whole range */
        double bytes = (double)blk * e * (algo == MRING_DIM_RABENSEIFNER ? d >> (st + 1) : 1);
        for (int r = 0; r < P; r++)
            for (int j = 0; j < S; j++) {
                f->to[r * S + j] = halving ? mring_topo_group_member(grid, r, i, mring_topo_coord(grid, r, i) ^ (1 << st))
                                           : mring_multiring_neighbor(grid, c->embed, r, i, j % rings[i],
                                                                      mring_ring_dir(j, rings[i]));
                f->bytes[r * S + j] = bytes;
                f->red[r * S + j] = phase == 0 ? bytes : 0;
            }
        if (mring_cost_flows_add(f, c, p, halving ? 1 : d - 1))
            return -1;
    }
    return 0;
}

/* The most any stream's sum grew since `before` (a stage's share of it). */
static double grown(int S, const double *sum, double *before)
{
    double t = 0;
    for (int j = 0; j < S; j++) {
        t = sum[j] - before[j] > t ? sum[j] - before[j] : t;
        before[j] = sum[j];
    }
    return t;
}

/*
 * Closed form (cost.h; Cho et al., arXiv 1708.02188): every dimension's ring costs (d_i - 1) steps of
 * (message of one block + its reduction) in the reduce-scatter and (d_i - 1) steps of one block in
 * the allgather, blocks of ceil(L_{i-1} / d_i) elements, L_0 = ceil(count / S); a dimension run by
 * recursive halving costs lg d_i steps of d_i / 2^(k+1) blocks each way, one run by recursive doubling
 * lg d_i steps of the whole range (and keeps it: the next dimension works on all of it).  With C chunks (L_0 =
 * ceil(count / S / C)) the chunks form a pipeline whose stages share the links of their dimension
 * (dimensions on the same port share it) and the rank's reductions: T = sum of one chunk's stage
 * times + (C - 1) x the busiest resource's share of one chunk (the classic pipeline bound, fill plus
 * the bottleneck).  A link is busy with a message for its bytes' time, or half its whole time where
 * latency rules (MRING_SEND_WINDOW messages in flight overlap their latencies); the rank with the
 * chunk's reductions and o.  Counting the whole stage time as the bottleneck (latency included, as
 * before 2026-12-02) overrated few chunks: the tuner's regret against exhaustive simulation on a
 * 4-node Minsky was 6.1% at 4 MiB, 2.9% at 32 MiB, 1.0% at 256 MiB; 0.37%, 0 and 0 with this form.
 */
double mring_multiring_closed_grid(const mring_config_t *c, mring_call_t k, const mring_topo_t *grid, const int *rings,
                                   const uint8_t *algos, const mring_cost_params_t *p, int inplace)
{
    int S = mring_config_nstreams(c), C = c->chunks > 1 ? c->chunks : 1;
    int64_t len = mring_ceil_div(mring_ceil_div(k.count, S), C);
    double e = (double)k.elsize, t, fill = 0, on_port[MRING_MAX_DIMS] = {0}, bottleneck = 0;
    double *before = calloc(2 * (size_t)S, sizeof *before); /* time and link sums per stream */
    mring_flows_t f;
    if (!before || mring_cost_flows_init(&f, c, S)) {
        free(before);
        return -1;
    }
    for (int i = 0; i < grid->ndims; i++) {
        int d = grid->dims[i], algo = algos ? algos[i] : MRING_DIM_RING;
        int64_t blk = algo == MRING_DIM_RD ? len : mring_ceil_div(len, d);
        if (d == 1)
            continue;
        for (int phase = 0; phase < 2; phase++) { /* reduce-scatter, then allgather */
            if (closed_stage(&f, c, grid, rings, algo, i, phase, blk, e, p)) {
                mring_cost_flows_free(&f);
                free(before);
                return -1;
            }
            int port = (i < p->ndims ? p->link[i].port : i) % MRING_MAX_DIMS;
            fill += grown(S, f.total, before);
            on_port[port] += grown(S, f.link, before + S);
            bottleneck = on_port[port] > bottleneck ? on_port[port] : bottleneck;
        }
        len = blk;
    }
    double on_rank = 0; /* one chunk's o and reductions on the busiest stream's rank */
    for (int j = 0; j < S; j++)
        on_rank = f.cpu[j] > on_rank ? f.cpu[j] : on_rank;
    bottleneck = on_rank > bottleneck ? on_rank : bottleneck;
    t = C > 1 ? fill + (C - 1) * bottleneck : mring_cost_flows_result(&f);
    mring_cost_flows_free(&f);
    free(before);
    if (!inplace)
        t += mring_cost_compute(p, (double)mring_ceil_div(k.count, S) * e, S, 1);
    return t;
}

