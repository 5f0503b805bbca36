/*
 * gen_hier.c - hierarchical allreduce for comparison: reduce inside each
 * dimension-1 group (a node) along a chain to its leader (coordinate 0), ring
 * allreduce among the P/d1 leaders, and broadcast back along the chain
 * (the scheme of Goyal et al., arXiv 1706.02677, 2017, and Jia et al.,
 * arXiv 1807.11205, 2018).  With --segment the
 * chains pipeline.  Stream j's leader ring runs forward for even j and backward
 * for odd j.  `--dim-algo ring,rabenseifner` (or just `rabenseifner`) runs the
 * leaders' allreduce as recursive halving + doubling instead of a ring: Facebook's
 * scheme of Goyal et al. section 4.1 (reduce in the server, halving/doubling
 * between servers, broadcast); it needs a power-of-two number of leaders.
 */
#include "gen.h"
#include "gen_multiring.h"
#include "cost_closed.h"

#include <stdlib.h>

static void chain(mring_builder_t *b, int rank, int g, int c, int64_t off, int64_t len, int bcast)
{
    /* reduce: hop h goes from index g-1-h to g-2-h; broadcast: hop h from h to h+1 */
    mring_xstep_t st[2];
    int n = 0, first = bcast ? c > 0 : c < g - 1, last = bcast ? c < g - 1 : c > 0;
    int up = bcast ? -1 : 1;
    if (first) /* receive from the far side */
        st[n++] = (mring_xstep_t){-1, rank + up, 0, 0, off, len, 0,
                                  {bcast ? MRING_PHASE_BCAST : MRING_PHASE_REDUCE, 0,
                                   (uint16_t)(bcast ? c - 1 : g - 2 - c)}};
    if (last) /* pass on towards the near side */
        st[n++] = (mring_xstep_t){rank - up, -1, off, len, 0, 0, 0,
                                  {bcast ? MRING_PHASE_BCAST : MRING_PHASE_REDUCE, 0,
                                   (uint16_t)(bcast ? c : g - 1 - c)}};
    mring_emit_steps(b, st, n, !bcast, 1);
}

/* The leaders' algorithm: dimension 2's (dimension 1's when there is one dimension). */
static int leader_algo(const mring_config_t *c)
{
    return c->dim_algo[c->topo.ndims > 1 ? 1 : 0];
}

/* --dim-algo for hier: one value, or ring for dimension 1 (the chain) and one value for the rest. */
static int check(const mring_config_t *c, char *err, size_t errlen)
{
    int a = leader_algo(c), m = c->topo.nranks / c->topo.dims[0];
    for (int i = 1; i < c->topo.ndims; i++)
        if (c->dim_algo[i] != a) {
            snprintf(err, errlen, "hier runs one algorithm among the node leaders; --dim-algo gives %s for "
                     "dimension 2 and %s for dimension %d", mring_dim_algo_name(a), mring_dim_algo_name(c->dim_algo[i]), i + 1);
            return -1;
        }
    if (c->dim_algo[0] != MRING_DIM_RING && c->dim_algo[0] != a) {
        snprintf(err, errlen, "hier reduces inside a node along a chain; --dim-algo for dimension 1 must be ring");
        return -1;
    }
    if (a == MRING_DIM_RD) {
        snprintf(err, errlen, "hier runs ring or rabenseifner among the node leaders; --dim-algo rd is for multiring");
        return -1;
    }
    if (a == MRING_DIM_RABENSEIFNER && (m & (m - 1))) {
        snprintf(err, errlen, "hier with rabenseifner among the leaders needs a power-of-two number of nodes, "
                 "and %d is not; use ring", m);
        return -1;
    }
    return 0;
}

/* The leaders' allreduce over OUT[off, +len): a ring (stream j's direction), or halving + doubling;
 * node x's leader is rank x * g. */
static void leaders_allreduce(mring_builder_t *b, const mring_config_t *c, int m, int rank, int64_t off, int64_t len)
{
    int g = c->topo.dims[0], idx = rank / g;
    if (leader_algo(c) == MRING_DIM_RABENSEIFNER) {
        mring_halving_t h;
        int peers[32];
        mring_halving_plan(&h, idx, m);
        for (int s = 0; s < h.n; s++)
            peers[s] = h.peer[s] * g;
        mring_emit_halving(b, &h, peers, rank, off, len, m, 1, (mring_label_t){MRING_PHASE_RS, 1, 0});
        mring_emit_halving(b, &h, peers, rank, off, len, m, 0, (mring_label_t){MRING_PHASE_AG, 1, 0});
        return;
    }
    int dir = mring_ring_dir(b->stream, c->rings[0]);
    int to = ((idx + dir) % m + m) % m * g, from = ((idx - dir) % m + m) % m * g;
    mring_emit_ring(b, to, from, m, idx, dir, off, len, 1, (mring_label_t){MRING_PHASE_RS, 1, 0});
    mring_emit_ring(b, to, from, m, idx, dir, off, len, 0, (mring_label_t){MRING_PHASE_AG, 1, 0});
}

static int generate(const mring_config_t *c, mring_call_t k, int rank, mring_rank_sched_t *out)
{
    int P = c->topo.nranks, g = c->topo.dims[0], S = mring_config_nstreams(c);
    int m = P / g, c1 = rank % g;
    int64_t slot = mring_ceil_div(k.count, S);
    if (mring_rank_sched_init(out, rank, S))
        return -1;
    for (int j = 0; j < S; j++) {
        mring_builder_t b;
        int64_t off = mring_split_off(k.count, S, j), len = mring_split_len(k.count, S, j);
        mring_builder_init(&b, out, j, c, k, j * slot);
        mring_emit_prologue(&b, off, len);
        chain(&b, rank, g, c1, off, len, 0);
        if (c1 == 0 && m > 1)
            leaders_allreduce(&b, c, m, rank, off, len);
        chain(&b, rank, g, c1, off, len, 1);
        if (b.err) {
            mring_rank_sched_free(out);
            return -1;
        }
    }
    return 0;
}


/* Closed form: copy + (d1 - 1) chain hops of (message + reduction) + the
 * leaders' ring, 2 (m - 1) steps of blocks ceil(L/m) (or halving + doubling,
 * 2 lg m steps of m / 2^(k+1) blocks) + (d1 - 1) broadcast hops
 * (Goyal et al. section 4.1), L = ceil(count / S), m = P / d1. */

static double closed(const mring_config_t *c, mring_call_t k, const mring_cost_params_t *p, int inplace)
{
    int P = c->topo.nranks, g = c->topo.dims[0], m = P / g, S = mring_config_nstreams(c);
    int64_t len = mring_ceil_div(k.count, S), blk = mring_ceil_div(len, m > 0 ? m : 1);
    double e = (double)k.elsize, t;
    mring_flows_t f;
    mring_topo_t leaders = mring_topo_flat(m);
    if (mring_cost_flows_init(&f, c, S))
        return -1;
    for (int h = 0; h < g - 1; h++) { /* reduce hops, then broadcast hops */
        for (int phase = 0; phase < 2; phase++) {
            for (int r = 0; r < P; r++)
                for (int j = 0; j < S; j++) {
                    int sends = phase == 0 ? r % g == g - 1 - h : r % g == h;
                    f.to[r * S + j] = sends ? (phase == 0 ? r - 1 : r + 1) : -1;
                    f.bytes[r * S + j] = (double)len * e;
                    f.red[r * S + j] = phase == 0 ? (double)len * e : 0;
                }
            if (mring_cost_flows_add(&f, c, p, 1))
                goto fail;
        }
    }
    for (int phase = 0; m > 1 && phase < 2; phase++) {
        int halving = leader_algo(c) == MRING_DIM_RABENSEIFNER, nsteps = halving ? mring_lg(m) : 1;
        for (int st = 0; st < nsteps; st++) {
            /* a ring step moves one block (m - 1 times); halving step st moves m / 2^(st+1) blocks once */
            double bytes = (double)blk * e * (halving ? m >> (st + 1) : 1);
            for (int r = 0; r < P; r += g)
                for (int j = 0; j < S; j++) {
                    f.to[r * S + j] = g * (halving ? (r / g) ^ (1 << st)
                                                   : mring_topo_neighbor(&leaders, r / g, 0, mring_ring_dir(j, c->rings[0])));
                    f.bytes[r * S + j] = bytes;
                    f.red[r * S + j] = phase == 0 ? bytes : 0;
                }
            if (mring_cost_flows_add(&f, c, p, halving ? 1 : m - 1))
                goto fail;
        }
    }
    t = mring_cost_flows_result(&f);
    mring_cost_flows_free(&f);
    return t + (inplace ? 0 : mring_cost_compute(p, (double)len * e, S, 1));
fail:
    mring_cost_flows_free(&f);
    return -1;
}

/* The tuner's candidates: 1 and 2 leader rings on the natural grid. */
static int candidates(const mring_topo_t *topo, int natural, mring_cand_sink_t *s)
{
    static const int rings[] = {1, 2};
    return natural ? mring_cand_uniform(topo, MRING_ALGO_HIER, rings, 2, s) : 0;
}

const mring_gen_t mring_gen_hier = {
    .name = "hier",
    .summary = "reduce to node leaders, allreduce among them, broadcast (Goyal 2017)",
    .rings = MRING_RINGS_UNIFORM,
    .dim_algo_help = "the node leaders' algorithm (rabenseifner: Goyal et al.'s scheme)",
    .check = check,
    .generate = generate,
    .closed_form = closed,
    .candidates = candidates,
};
