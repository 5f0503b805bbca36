/*
 * gen_multiring.c - multi-dimensional ring allreduce (PowerAI DDL "multi-ring",
 * BlueConnect): reduce-scatter along dimensions 1..k, each dimension's groups
 * at once on the segment the previous dimension left, then allgather in
 * reverse order k..1, so the innermost (fastest) dimension carries the largest
 * volume in both phases.  Schedule and cost: ../shared/reference/algorithm-notes.md
 * sections 1.2 and 2.6 (Cho et al., arXiv 1708.02188; Cho et al., SysML 2019).
 */
#include "gen.h"
#include "gen_multiring.h"
#include "cost_closed.h"

#include <stdlib.h>

int mring_ring_dir(int stream, int rings) { return (stream % rings) % 2 ? -1 : 1; }

static int first_nontrivial_dim(const mring_topo_t *g)
{
    for (int i = 0; i < g->ndims; i++)
        if (g->dims[i] > 1)
            return g->dims[i];
    return 1;
}

static void stream_schedule(mring_builder_t *b, const mring_topo_t *grid, const int *rings, int rank,
                            int64_t off, int64_t len, int *members)
{
    int64_t offs[MRING_MAX_DIMS], lens[MRING_MAX_DIMS];
    mring_emit_prologue(b, off, len);
    for (int i = 0; i < grid->ndims; i++) {
        int d = grid->dims[i], c = mring_topo_coord(grid, rank, i);
        mring_label_t l = {MRING_PHASE_RS, (int8_t)i, 0};
        offs[i] = off;
        lens[i] = len;
        if (d == 1)
            continue;
        for (int x = 0; x < d; x++)
            members[x] = mring_topo_group_member(grid, rank, i, x);
        mring_emit_ring(b, members, d, c, mring_ring_dir(b->stream, rings[i]), off, len, 1, l);
        off += mring_split_off(len, d, c);
        len = mring_split_len(len, d, c);
    }
    for (int i = grid->ndims - 1; i >= 0; i--) {
        int d = grid->dims[i], c = mring_topo_coord(grid, rank, i);
        mring_label_t l = {MRING_PHASE_AG, (int8_t)i, 0};
        if (d == 1)
            continue;
        for (int x = 0; x < d; x++)
            members[x] = mring_topo_group_member(grid, rank, i, x);
        mring_emit_ring(b, members, d, c, mring_ring_dir(b->stream, rings[i]), offs[i], lens[i], 0, l);
    }
}

int mring_multiring_generate_grid(const mring_config_t *c, const mring_topo_t *grid, const int *rings, int rank,
                                  mring_rank_sched_t *out)
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
    /* every block of every stage fits in ceil(part / d_first) elements */
    slot = mring_ceil_div(mring_ceil_div(c->count, S), first_nontrivial_dim(grid));
    for (int j = 0; j < S; j++) {
        mring_builder_t b;
        mring_builder_init(&b, out, j, c, j * slot);
        stream_schedule(&b, grid, rings, rank, mring_split_off(c->count, S, j), mring_split_len(c->count, S, j),
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

static int generate(const mring_config_t *c, int rank, mring_rank_sched_t *out)
{
    return mring_multiring_generate_grid(c, &c->topo, c->rings, rank, out);
}

const mring_gen_t mring_gen_multiring = {"multiring", NULL, generate, mring_multiring_closed};

/* Closed form (cost.h, algorithm-notes.md 2.6): every dimension's ring costs
 * (d_i - 1) steps of (message of one block + its reduction) in the
 * reduce-scatter and (d_i - 1) steps of one block in the allgather, blocks of
 * ceil(L_{i-1} / d_i) elements, L_0 = ceil(count / S). */
double mring_multiring_closed(const mring_config_t *c, const mring_cost_params_t *p, int inplace)
{
    mring_topo_t grid = c->algo == MRING_ALGO_RING ? mring_topo_flat(c->topo.nranks) : c->topo;
    int S = mring_config_nstreams(c), P = c->topo.nranks;
    int64_t len = mring_ceil_div(c->count, S);
    double e = (double)c->elsize, t;
    mring_flows_t f;
    if (mring_cost_flows_init(&f, c, S))
        return -1;
    for (int i = 0; i < grid.ndims; i++) {
        int d = grid.dims[i];
        int rings = c->algo == MRING_ALGO_RING ? c->rings[0] : c->rings[i];
        int64_t blk = mring_ceil_div(len, d);
        if (d == 1)
            continue;
        for (int phase = 0; phase < 2; phase++) { /* reduce-scatter, then allgather */
            for (int r = 0; r < P; r++)
                for (int j = 0; j < S; j++) {
                    f.to[r * S + j] = mring_topo_neighbor(&grid, r, i, mring_ring_dir(j, rings));
                    f.bytes[r * S + j] = (double)blk * e;
                    f.red[r * S + j] = phase == 0 ? (double)blk * e : 0;
                }
            if (mring_cost_flows_add(&f, c, p, d - 1)) {
                mring_cost_flows_free(&f);
                return -1;
            }
        }
        len = blk;
    }
    t = mring_cost_flows_result(&f);
    mring_cost_flows_free(&f);
    if (!inplace)
        t += mring_cost_compute(p, (double)mring_ceil_div(c->count, S) * e, S, 1);
    return t;
}
