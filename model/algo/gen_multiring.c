/*
 * gen_multiring.c - multi-dimensional ring allreduce (PowerAI DDL "multi-ring",
 * BlueConnect): reduce-scatter along dimensions 1..k, each dimension's groups
 * at once on the segment the previous dimension left, then allgather in
 * reverse order k..1, so the innermost (fastest) dimension carries the largest
 * volume in both phases (Cho et al., "PowerAI DDL", arXiv 1708.02188, 2017; Cho et al.,
 * "BlueConnect", SysML 2019).  The cost of a dimension's ring is that of a flat ring of d_i ranks
 * on its block: (d_i - 1) steps each way (Patarasuk and Yuan, JPDC 69(2), 2009).
 */
#include "gen.h"
#include "gen_multiring.h"
#include "cost_closed.h"

#include <stdio.h>
#include <stdlib.h>

int mring_ring_dir(int stream, int rings) { return (stream % rings) % 2 ? -1 : 1; }

/* Scratch one stream needs: the largest block it receives (a ring step receives one block, the
 * first halving step half the segment), over its stages, with segments rounded up. */
static int64_t scratch_slot(const mring_topo_t *grid, const uint8_t *algos, int64_t len)
{
    int64_t slot = 0;
    for (int i = 0; i < grid->ndims; i++) {
        int d = grid->dims[i];
        int64_t blk = mring_ceil_div(len, d), recv = blk;
        if (d == 1)
            continue;
        if (algos && algos[i] == MRING_DIM_RABENSEIFNER)
            recv = blk * (d / 2);
        slot = recv > slot ? recv : slot;
        len = blk;
    }
    return slot;
}

/* The rank's group in grid dimension i, in coordinate order. */
static void group(const mring_topo_t *grid, int rank, int i, int *members)
{
    for (int x = 0; x < grid->dims[i]; x++)
        members[x] = mring_topo_group_member(grid, rank, i, x);
}

/* One dimension's reduce-scatter (reduce != 0) or allgather on OUT[off, +len); returns the block this rank
 * keeps after the reduce-scatter. */
static int stage(mring_builder_t *b, const mring_topo_t *grid, int rank, int i, int rings, int algo, int reduce,
                 int64_t off, int64_t len, int *members)
{
    int d = grid->dims[i], c = mring_topo_coord(grid, rank, i);
    mring_label_t l = {reduce ? MRING_PHASE_RS : MRING_PHASE_AG, (int8_t)i, 0};
    group(grid, rank, i, members);
    if (algo == MRING_DIM_RABENSEIFNER) {
        mring_halving_t h;
        int peers[32];
        mring_halving_plan(&h, c, d);
        for (int k = 0; k < h.n; k++)
            peers[k] = members[h.peer[k]];
        mring_emit_halving(b, &h, peers, rank, off, len, d, reduce, l);
        return mring_halving_block(&h);
    }
    mring_emit_ring(b, members, d, c, mring_ring_dir(b->stream, rings), off, len, reduce, l);
    return c;
}

static void stream_schedule(mring_builder_t *b, const mring_topo_t *grid, const int *rings, const uint8_t *algos,
                            int rank, int64_t off, int64_t len, int *members)
{
    int64_t offs[MRING_MAX_DIMS], lens[MRING_MAX_DIMS];
    mring_emit_prologue(b, off, len);
    for (int i = 0; i < grid->ndims; i++) {
        int d = grid->dims[i];
        offs[i] = off;
        lens[i] = len;
        if (d == 1)
            continue;
        int kept = stage(b, grid, rank, i, rings[i], algos ? algos[i] : MRING_DIM_RING, 1, off, len, members);
        off += mring_split_off(len, d, kept);
        len = mring_split_len(len, d, kept);
    }
    for (int i = grid->ndims - 1; i >= 0; i--)
        if (grid->dims[i] > 1)
            stage(b, grid, rank, i, rings[i], algos ? algos[i] : MRING_DIM_RING, 0, offs[i], lens[i], members);
}

int mring_multiring_generate_grid(const mring_config_t *c, mring_call_t k, const mring_topo_t *grid, const int *rings,
                                  const uint8_t *algos, int rank, mring_rank_sched_t *out)
{
    int S = 1, dmax = 1;
    int64_t slot;
    int *members;
    for (int i = 0; i < grid->ndims; i++) {
        S = rings[i] > S ? rings[i] : S;
        dmax = grid->dims[i] > dmax ? grid->dims[i] : dmax;
    }
    if (mring_rank_sched_init(out, rank, S))
        return -1;
    members = malloc((size_t)dmax * sizeof *members);
    if (!members) {
        mring_rank_sched_free(out);
        return -1;
    }
    slot = scratch_slot(grid, algos, mring_ceil_div(k.count, S));
    for (int j = 0; j < S; j++) {
        mring_builder_t b;
        mring_builder_init(&b, out, j, c, k, j * slot);
        stream_schedule(&b, grid, rings, algos, rank, mring_split_off(k.count, S, j), mring_split_len(k.count, S, j),
                        members);
        if (b.err) {
            free(members);
            mring_rank_sched_free(out);
            return -1;
        }
    }
    free(members);
    return 0;
}

static int generate(const mring_config_t *c, mring_call_t k, int rank, mring_rank_sched_t *out)
{
    return mring_multiring_generate_grid(c, k, &c->topo, c->rings, c->dim_algo, rank, out);
}

static int lg(int d)
{
    int k = 0;
    while ((1 << k) < d)
        k++;
    return k;
}

/* Closed form (cost.h, algorithm-notes.md 2.6): every dimension's ring costs
 * (d_i - 1) steps of (message of one block + its reduction) in the
 * reduce-scatter and (d_i - 1) steps of one block in the allgather, blocks of
 * ceil(L_{i-1} / d_i) elements, L_0 = ceil(count / S); a dimension run by recursive halving costs
 * lg d_i steps of d_i / 2^(k+1) blocks each way. */
double mring_multiring_closed_grid(const mring_config_t *c, mring_call_t k, const mring_topo_t *grid, const int *rings,
                                   const uint8_t *algos, const mring_cost_params_t *p, int inplace)
{
    int S = mring_config_nstreams(c), P = c->topo.nranks;
    int64_t len = mring_ceil_div(k.count, S);
    double e = (double)k.elsize, t;
    mring_flows_t f;
    if (mring_cost_flows_init(&f, c, S))
        return -1;
    for (int i = 0; i < grid->ndims; i++) {
        int d = grid->dims[i], halving = algos && algos[i] == MRING_DIM_RABENSEIFNER;
        int64_t blk = mring_ceil_div(len, d);
        if (d == 1)
            continue;
        for (int phase = 0; phase < 2; phase++) /* reduce-scatter, then allgather */
            for (int st = 0; st < (halving ? lg(d) : 1); st++) {
                /* a ring step moves one block; halving step st moves d / 2^(st+1) blocks */
                double bytes = (double)blk * e * (halving ? d >> (st + 1) : 1);
                for (int r = 0; r < P; r++)
                    for (int j = 0; j < S; j++) {
                        f.to[r * S + j] = halving ? mring_topo_group_member(grid, r, i, mring_topo_coord(grid, r, i) ^ (1 << st))
                                                  : mring_topo_neighbor(grid, r, i, mring_ring_dir(j, rings[i]));
                        f.bytes[r * S + j] = bytes;
                        f.red[r * S + j] = phase == 0 ? bytes : 0;
                    }
                if (mring_cost_flows_add(&f, c, p, halving ? 1 : d - 1)) {
                    mring_cost_flows_free(&f);
                    return -1;
                }
            }
        len = blk;
    }
    t = mring_cost_flows_result(&f);
    mring_cost_flows_free(&f);
    if (!inplace)
        t += mring_cost_compute(p, (double)mring_ceil_div(k.count, S) * e, S, 1);
    return t;
}

static double closed(const mring_config_t *c, mring_call_t k, const mring_cost_params_t *p, int inplace)
{
    return mring_multiring_closed_grid(c, k, &c->topo, c->rings, c->dim_algo, p, inplace);
}

/* Recursive halving needs power-of-two groups. */
static int check(const mring_config_t *c, char *err, size_t errlen)
{
    for (int i = 0; i < c->topo.ndims; i++) {
        int d = c->topo.dims[i];
        if (c->dim_algo[i] == MRING_DIM_RABENSEIFNER && (d & (d - 1))) {
            snprintf(err, errlen,
                     "--dim-algo rabenseifner in dimension %d needs a power-of-two size, and %d is not; use ring there",
                     i + 1, d);
            return -1;
        }
    }
    return 0;
}

/* The tuner's candidates on a grid of two or more dimensions (on one it is the flat ring): 1, 2, 4, 8
 * rings in every dimension, 2, 4, 8 in the first only, and recursive halving in every dimension of a
 * power-of-two grid. */
static int candidates(const mring_topo_t *topo, int natural, mring_cand_sink_t *s)
{
    static const int uniform[] = {1, 2, 4, 8};
    mring_config_t c;
    int pof2 = 1;
    (void)natural;
    if (topo->ndims < 2)
        return 0;
    if (mring_cand_uniform(topo, MRING_ALGO_MULTIRING, uniform, 4, s))
        return -1;
    mring_config_default(&c, topo);
    for (int r = 2; r <= 8; r *= 2) {
        for (int i = 0; i < topo->ndims; i++)
            c.rings[i] = i ? 1 : r;
        if (s->add(s, &c))
            return -1;
    }
    for (int i = 0; i < topo->ndims; i++) {
        c.rings[i] = 1;
        c.dim_algo[i] = MRING_DIM_RABENSEIFNER;
        pof2 &= !(topo->dims[i] & (topo->dims[i] - 1));
    }
    return pof2 ? s->add(s, &c) : 0;
}

const mring_gen_t mring_gen_multiring = {
    .name = "multiring",
    .summary = "rings per dimension: reduce-scatter 1..k, allgather k..1 (PowerAI DDL)",
    .rings = MRING_RINGS_PER_DIM,
    .dim_algo_help = "each dimension's algorithm (rabenseifner: power-of-two dimensions)",
    .check = check,
    .generate = generate,
    .closed_form = closed,
    .candidates = candidates,
};
