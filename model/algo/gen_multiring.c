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

/* What a dimension's stage receives at most into scratch for a range of len elements (a ring step
 * one block, the first halving step half the range), and the block it leaves (*blk). */
static int64_t stage_recv(int d, int algo, int64_t len, int64_t *blk)
{
    *blk = mring_ceil_div(len, d);
    return d == 1 ? 0 : algo == MRING_DIM_RABENSEIFNER ? *blk * (d / 2) : *blk;
}

/* Scratch of one stream for ranges of len elements: one slot for every stage (chunks == 1: the stages
 * run one after another), or one per dimension (chunks > 1: several dimensions' stages are in flight
 * at once), at slot_off[i] for dimension i.  Returns the total. */
static int64_t scratch_layout(const mring_topo_t *grid, const uint8_t *algos, int64_t len, int chunks, int64_t *slot_off)
{
    int64_t total = 0, blk;
    for (int i = 0; i < grid->ndims; i++) {
        int64_t recv = stage_recv(grid->dims[i], algos ? algos[i] : MRING_DIM_RING, len, &blk);
        slot_off[i] = chunks > 1 ? total : 0;
        total = chunks > 1 ? total + recv : (recv > total ? recv : total);
        len = blk;
    }
    return total;
}

/* The rank's group in grid dimension i, in coordinate order. */
static void group(const mring_topo_t *grid, int rank, int i, int *members)
{
    for (int x = 0; x < grid->dims[i]; x++)
        members[x] = mring_topo_group_member(grid, rank, i, x);
}

/* The block of dimension i's group this rank keeps after the dimension's reduce-scatter: its
 * coordinate for a ring, the halving plan's block for recursive halving. */
static int kept_block(const mring_topo_t *grid, int rank, int i, int algo)
{
    int c = mring_topo_coord(grid, rank, i);
    if (algo == MRING_DIM_RABENSEIFNER) {
        mring_halving_t h;
        mring_halving_plan(&h, c, grid->dims[i]);
        return mring_halving_block(&h);
    }
    return c;
}

/* One dimension's reduce-scatter (reduce != 0) or allgather on OUT[off, +len). */
static void stage(mring_builder_t *b, const mring_topo_t *grid, int rank, int i, int rings, int algo, int reduce,
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
        return;
    }
    mring_emit_ring(b, members, d, c, mring_ring_dir(b->stream, rings), off, len, reduce, l);
}

/* A stream's stages: reduce-scatter along dimensions 1..k, allgather k..1 (dimensions of size 1 have
 * none), each on the range the previous reduce-scatter left: dim[s], reduce[s], off[s], len[s]. */
typedef struct stages {
    int n;
    int dim[2 * MRING_MAX_DIMS], reduce[2 * MRING_MAX_DIMS];
    int64_t off[2 * MRING_MAX_DIMS], len[2 * MRING_MAX_DIMS];
} stages_t;

static void plan_stages(const mring_topo_t *grid, const uint8_t *algos, int rank, int64_t off, int64_t len,
                        stages_t *st)
{
    int dims[MRING_MAX_DIMS], nd = 0;
    st->n = 0;
    for (int i = 0; i < grid->ndims; i++) {
        int d = grid->dims[i];
        if (d == 1)
            continue;
        dims[nd++] = i;
        st->dim[st->n] = i, st->reduce[st->n] = 1, st->off[st->n] = off, st->len[st->n] = len, st->n++;
        int kept = kept_block(grid, rank, i, algos ? algos[i] : MRING_DIM_RING);
        off += mring_split_off(len, d, kept);
        len = mring_split_len(len, d, kept);
    }
    for (int x = nd - 1; x >= 0; x--) { /* the allgathers retrace the reduce-scatters */
        int s = x;
        st->dim[st->n] = dims[x], st->reduce[st->n] = 0, st->off[st->n] = st->off[s], st->len[st->n] = st->len[s];
        st->n++;
    }
}

/* One op of a chunked stream, with its place in the merged order. */
typedef struct keyed {
    double key;
    int64_t seq; /* ties: the order of emission */
    mring_op_t op;
} keyed_t;

static int by_key(const void *a, const void *b)
{
    const keyed_t *x = a, *y = b;
    return x->key < y->key ? -1 : x->key > y->key ? 1 : (x->seq > y->seq) - (x->seq < y->seq);
}

/*
 * The chunks of one stream as a pipeline through its stages (Themis-style chunk scheduling:
 * Rashidi et al., ISCA 2022): stage s of chunk c belongs to wave c + s, so while chunk c crosses an
 * outer dimension (the node's NIC) chunk c + 1 reduces over an inner one (NVLink).  The interpreter
 * issues a stream's ops in order and an op waits for earlier conflicting ones, so a stage waiting
 * for data would hold back a whole stage queued behind it: the ops of a wave's stages are merged
 * in proportion instead (op j of a stage of n ops at wave + j/n), each stage advancing at the pace
 * of the slowest one of its wave.  Every stage is first emitted alone into `tmp` (the same stream
 * index, so tags and ring directions are the stream's own) and its ops then merged into b's stream.
 */
static void chunked(mring_builder_t *b, const mring_topo_t *grid, const int *rings, const uint8_t *algos, int rank,
                    int64_t off, int64_t len, int chunks, const int64_t *slot_off, int *members)
{
    stages_t *st = malloc((size_t)chunks * sizeof *st);
    keyed_t *all = NULL;
    int64_t n = 0, cap = 0;
    mring_rank_sched_t tmp;
    if (!st || mring_rank_sched_init(&tmp, rank, b->stream + 1)) {
        free(st);
        b->err = 1;
        return;
    }
    for (int c = 0; c < chunks && !b->err; c++) {
        plan_stages(grid, algos, rank, off + mring_split_off(len, chunks, c), mring_split_len(len, chunks, c), &st[c]);
        for (int s = 0; s < st[c].n && !b->err; s++) {
            mring_builder_t tb = *b;
            mring_stream_t *ts = &tmp.streams[b->stream];
            int i = st[c].dim[s];
            tb.rs = &tmp;
            tb.scratch_base = b->scratch_base + slot_off[i];
            ts->nops = 0;
            stage(&tb, grid, rank, i, rings[i], algos ? algos[i] : MRING_DIM_RING, st[c].reduce[s], st[c].off[s],
                  st[c].len[s], members);
            keyed_t *v = n + ts->nops > cap ? realloc(all, (size_t)(cap = 2 * (n + ts->nops)) * sizeof *all) : all;
            if (tb.err || (!v && cap > 0)) {
                b->err = 1;
                break;
            }
            all = v;
            for (int64_t j = 0; j < ts->nops; j++, n++)
                all[n] = (keyed_t){c + s + (double)j / (double)ts->nops, n, ts->ops[j]};
        }
    }
    if (!b->err) {
        qsort(all, (size_t)n, sizeof *all, by_key);
        for (int64_t j = 0; j < n && !b->err; j++)
            b->err = mring_emit(b->rs, b->stream, all[j].op) != 0;
    }
    if (tmp.scratch_count > b->rs->scratch_count)
        b->rs->scratch_count = tmp.scratch_count;
    mring_rank_sched_free(&tmp);
    free(all);
    free(st);
}

/* One stream's schedule on OUT[off, +len): the stages in order, or with chunks > 1 pipelined. */
static void stream_schedule(mring_builder_t *b, const mring_topo_t *grid, const int *rings, const uint8_t *algos,
                            int rank, int64_t off, int64_t len, int chunks, const int64_t *slot_off, int *members)
{
    stages_t st;
    mring_emit_prologue(b, off, len);
    if (chunks > 1) {
        chunked(b, grid, rings, algos, rank, off, len, chunks, slot_off, members);
        return;
    }
    plan_stages(grid, algos, rank, off, len, &st);
    for (int s = 0; s < st.n; s++)
        stage(b, grid, rank, st.dim[s], rings[st.dim[s]], algos ? algos[st.dim[s]] : MRING_DIM_RING, st.reduce[s],
              st.off[s], st.len[s], members);
}

int mring_multiring_generate_grid(const mring_config_t *c, mring_call_t k, const mring_topo_t *grid, const int *rings,
                                  const uint8_t *algos, int rank, mring_rank_sched_t *out)
{
    int S = 1, dmax = 1, chunks = c->chunks > 1 ? c->chunks : 1;
    int64_t slot, slot_off[MRING_MAX_DIMS];
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
    slot = scratch_layout(grid, algos, mring_ceil_div(mring_ceil_div(k.count, S), chunks), chunks, slot_off);
    for (int j = 0; j < S; j++) {
        mring_builder_t b;
        mring_builder_init(&b, out, j, c, k, j * slot);
        stream_schedule(&b, grid, rings, algos, rank, mring_split_off(k.count, S, j), mring_split_len(k.count, S, j),
                        chunks, slot_off, members);
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

/* Add dimension i's reduce-scatter (phase 0) or allgather (1) on blocks of blk elements to f. */
static int closed_stage(mring_flows_t *f, const mring_config_t *c, const mring_topo_t *grid, const int *rings,
                        int halving, int i, int phase, int64_t blk, double e, const mring_cost_params_t *p)
{
    int d = grid->dims[i], S = f->S, P = c->topo.nranks;
    for (int st = 0; st < (halving ? lg(d) : 1); st++) {
        /* a ring step moves one block; halving step st moves d / 2^(st+1) blocks */
        double bytes = (double)blk * e * (halving ? d >> (st + 1) : 1);
        for (int r = 0; r < P; r++)
            for (int j = 0; j < S; j++) {
                f->to[r * S + j] = halving ? mring_topo_group_member(grid, r, i, mring_topo_coord(grid, r, i) ^ (1 << st))
                                           : mring_topo_neighbor(grid, r, i, mring_ring_dir(j, rings[i]));
                f->bytes[r * S + j] = bytes;
                f->red[r * S + j] = phase == 0 ? bytes : 0;
            }
        if (mring_cost_flows_add(f, c, p, halving ? 1 : d - 1))
            return -1;
    }
    return 0;
}

/* The most any stream's total grew since `before` (a stage's time). */
static double stage_time(const mring_flows_t *f, double *before)
{
    double t = 0;
    for (int j = 0; j < f->S; j++) {
        t = f->total[j] - before[j] > t ? f->total[j] - before[j] : t;
        before[j] = f->total[j];
    }
    return t;
}

/*
 * Closed form (cost.h, algorithm-notes.md 2.6): every dimension's ring costs (d_i - 1) steps of
 * (message of one block + its reduction) in the reduce-scatter and (d_i - 1) steps of one block in
 * the allgather, blocks of ceil(L_{i-1} / d_i) elements, L_0 = ceil(count / S); a dimension run by
 * recursive halving costs lg d_i steps of d_i / 2^(k+1) blocks each way.  With C chunks (L_0 =
 * ceil(count / S / C)) the chunks form a pipeline whose stages share the links of their dimension
 * (dimensions on the same port share it): T = sum of one chunk's stage times + (C - 1) x the
 * busiest link's share of one chunk (the classic pipeline bound, fill plus the bottleneck).
 */
double mring_multiring_closed_grid(const mring_config_t *c, mring_call_t k, const mring_topo_t *grid, const int *rings,
                                   const uint8_t *algos, const mring_cost_params_t *p, int inplace)
{
    int S = mring_config_nstreams(c), C = c->chunks > 1 ? c->chunks : 1;
    int64_t len = mring_ceil_div(mring_ceil_div(k.count, S), C);
    double e = (double)k.elsize, t, fill = 0, on_port[MRING_MAX_DIMS] = {0}, bottleneck = 0;
    double *before = calloc((size_t)S, sizeof *before);
    mring_flows_t f;
    if (!before || mring_cost_flows_init(&f, c, S)) {
        free(before);
        return -1;
    }
    for (int i = 0; i < grid->ndims; i++) {
        int d = grid->dims[i], halving = algos && algos[i] == MRING_DIM_RABENSEIFNER;
        int64_t blk = mring_ceil_div(len, d);
        if (d == 1)
            continue;
        for (int phase = 0; phase < 2; phase++) { /* reduce-scatter, then allgather */
            if (closed_stage(&f, c, grid, rings, halving, i, phase, blk, e, p)) {
                mring_cost_flows_free(&f);
                free(before);
                return -1;
            }
            double ts = stage_time(&f, before);
            int port = i < p->ndims ? p->link[i].port : i;
            fill += ts;
            on_port[port % MRING_MAX_DIMS] += ts;
            bottleneck = on_port[port % MRING_MAX_DIMS] > bottleneck ? on_port[port % MRING_MAX_DIMS] : bottleneck;
        }
        len = blk;
    }
    t = C > 1 ? fill + (C - 1) * bottleneck : mring_cost_flows_result(&f);
    mring_cost_flows_free(&f);
    free(before);
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
 * rings in every dimension, 2, 4, 8 in the first only, 1 and 2 rings with 4 and 16 chunks, and
 * recursive halving in every dimension of a power-of-two grid. */
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
    for (int r = 1; r <= 2; r++) /* chunks pipelined through the dimensions */
        for (int ch = 4; ch <= 16; ch *= 4) {
            for (int i = 0; i < topo->ndims; i++)
                c.rings[i] = r;
            c.chunks = ch;
            if (s->add(s, &c))
                return -1;
        }
    c.chunks = 1;
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
    .takes_chunks = 1,
    .check = check,
    .generate = generate,
    .closed_form = closed,
    .candidates = candidates,
};
