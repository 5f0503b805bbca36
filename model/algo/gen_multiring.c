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

#include <stdio.h>
#include <stdlib.h>

int mring_ring_dir(int stream, int rings) { return (stream % rings) % 2 ? -1 : 1; }

/* What a dimension's stage receives at most into scratch for a range of len elements (a ring step
 * one block, the first halving step half the range), and the block it leaves (*blk). */
static int64_t stage_recv(int d, int algo, int64_t len, int64_t *blk)
{
    *blk = algo == MRING_DIM_RD ? len : mring_ceil_div(len, d); /* rd keeps the whole range */
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

int mring_multiring_pos(const mring_topo_t *grid, const mring_embed_t *e, int rank, int i, int ring)
{
    const int *pos = mring_embed_pos(e, i, ring);
    int c = mring_topo_coord(grid, rank, i);
    return pos ? pos[c] : c;
}

int mring_multiring_member(const mring_topo_t *grid, const mring_embed_t *e, int rank, int i, int ring, int x)
{
    const int *ord = mring_embed_order(e, i, ring);
    return mring_topo_group_member(grid, rank, i, ord ? ord[x] : x);
}

int mring_multiring_neighbor(const mring_topo_t *grid, const mring_embed_t *e, int rank, int i, int ring, int dir)
{
    int d = grid->dims[i], x = mring_multiring_pos(grid, e, rank, i, ring);
    return mring_multiring_member(grid, e, rank, i, ring, ((x + dir) % d + d) % d);
}

/* What every stage of one rank's schedule needs. */
typedef struct mr {
    const mring_topo_t *grid;
    const int *rings;
    const uint8_t *algos; /* NULL = rings in every dimension */
    const mring_embed_t *embed;
    int rank;
} mr_t;

static int dim_algo(const mr_t *m, int i) { return m->algos ? m->algos[i] : MRING_DIM_RING; }

/* The block of dimension i's group this rank keeps after the dimension's reduce-scatter on `stream`:
 * its position on the stream's ring, or the halving plan's block. */
static int kept_block(const mr_t *m, int i, int stream)
{
    if (dim_algo(m, i) == MRING_DIM_RABENSEIFNER) {
        mring_halving_t h;
        mring_halving_plan(&h, mring_topo_coord(m->grid, m->rank, i), m->grid->dims[i]);
        return mring_halving_block(&h);
    }
    return mring_multiring_pos(m->grid, m->embed, m->rank, i, stream % m->rings[i]);
}

/* Recursive doubling of OUT[off, +len) among the group (x this rank's coordinate): lg d exchanges of the
 * whole range, both partners computing (lower rank's data) op (higher rank's) (Thakur et al. 2005, 4.5). */
static void doubling(mring_builder_t *b, const mr_t *m, int i, int ring, int x, int64_t off, int64_t len,
                     mring_label_t l)
{
    mring_xstep_t st[32];
    int n = 0;
    for (int mask = 1; mask < m->grid->dims[i]; mask <<= 1, n++) {
        int peer = mring_multiring_member(m->grid, m->embed, m->rank, i, ring, x ^ mask);
        st[n] = (mring_xstep_t){peer, peer, off, len, off, len, peer < m->rank ? MRING_REDUCE_SRC_FIRST : 0, l};
        st[n].label.step = (uint16_t)n;
    }
    mring_emit_steps(b, st, n, 1, 1);
}

/* One dimension's reduce-scatter (reduce != 0) or allgather on OUT[off, +len); for rd the reduce-scatter
 * is the whole allreduce of the range and the allgather is empty. */
static void stage(mring_builder_t *b, const mr_t *m, int i, int reduce, int64_t off, int64_t len)
{
    int d = m->grid->dims[i], ring = b->stream % m->rings[i];
    mring_label_t l = {reduce ? MRING_PHASE_RS : MRING_PHASE_AG, (int8_t)i, 0};
    int x = mring_multiring_pos(m->grid, m->embed, m->rank, i, ring);
    if (dim_algo(m, i) == MRING_DIM_RD) {
        if (reduce)
            doubling(b, m, i, ring, x, off, len, l);
        return;
    }
    if (dim_algo(m, i) == MRING_DIM_RABENSEIFNER) {
        mring_halving_t h;
        int peers[32];
        mring_halving_plan(&h, x, d);
        for (int k = 0; k < h.n; k++)
            peers[k] = mring_multiring_member(m->grid, m->embed, m->rank, i, ring, h.peer[k]);
        mring_emit_halving(b, &h, peers, m->rank, off, len, d, reduce, l);
        return;
    }
    int dir = mring_ring_dir(b->stream, m->rings[i]);
    mring_emit_ring(b, mring_multiring_neighbor(m->grid, m->embed, m->rank, i, ring, dir),
                    mring_multiring_neighbor(m->grid, m->embed, m->rank, i, ring, -dir), d, x, dir, off, len, reduce, l);
}

/* A stream's stages: reduce-scatter along dimensions 1..k, allgather k..1 (dimensions of size 1 have
 * none), each on the range the previous reduce-scatter left: dim[s], reduce[s], off[s], len[s]. */
typedef struct stages {
    int n;
    int dim[2 * MRING_MAX_DIMS], reduce[2 * MRING_MAX_DIMS];
    int64_t off[2 * MRING_MAX_DIMS], len[2 * MRING_MAX_DIMS];
} stages_t;

static void plan_stages(const mr_t *m, int stream, int64_t off, int64_t len, stages_t *st)
{
    int dims[MRING_MAX_DIMS], nd = 0;
    st->n = 0;
    for (int i = 0; i < m->grid->ndims; i++) {
        int d = m->grid->dims[i];
        if (d == 1)
            continue;
        dims[nd++] = i;
        st->dim[st->n] = i, st->reduce[st->n] = 1, st->off[st->n] = off, st->len[st->n] = len, st->n++;
        if (dim_algo(m, i) == MRING_DIM_RD)
            continue; /* every member holds the whole range */
        int kept = kept_block(m, i, stream);
        off += mring_split_off(len, d, kept);
        len = mring_split_len(len, d, kept);
    }
    for (int x = nd - 1; x >= 0; x--) { /* the allgathers retrace the reduce-scatters */
        st->dim[st->n] = dims[x], st->reduce[st->n] = 0, st->off[st->n] = st->off[x], st->len[st->n] = st->len[x];
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
 * step by step in proportion instead (an op of step k of a stage of n steps at wave + k/n, ties in
 * the order of emission), each stage advancing at the pace of the slowest one of its wave; a
 * REDUCE, which waits for its step's data to arrive, goes one step later (wave + (k+1)/n), so the
 * other stages' next steps are issued before it and do not wait with it.  The
 * merged order depends on step labels only, never on how many ops a rank has (blocks can be empty),
 * so every rank merges alike: two ranks that wait for each other never hold their ops in
 * opposite orders (a rank-dependent order deadlocks; the verifier proves this one).  Every stage is first emitted alone into `tmp` (the same stream
 * index, so tags and ring directions are the stream's own) and its ops then merged into b's stream.
 */
static void chunked(mring_builder_t *b, const mr_t *m, int64_t off, int64_t len, int chunks, const int64_t *slot_off)
{
    stages_t *st = malloc((size_t)chunks * sizeof *st);
    keyed_t *all = NULL;
    int64_t n = 0, cap = 0;
    mring_rank_sched_t tmp;
    if (!st || mring_rank_sched_init(&tmp, m->rank, b->stream + 1)) {
        free(st);
        b->err = 1;
        return;
    }
    for (int c = 0; c < chunks && !b->err; c++) {
        int64_t coff = off + mring_split_off(len, chunks, c), clen = mring_split_len(len, chunks, c);
        plan_stages(m, b->stream, coff, clen, &st[c]);
        for (int s = -1; s < st[c].n && !b->err; s++) { /* s = -1: the chunk's IN -> OUT copy, in its first wave */
            mring_builder_t tb = *b;
            mring_stream_t *ts = &tmp.streams[b->stream];
            tb.rs = &tmp;
            tb.scratch_base = b->scratch_base + (s >= 0 ? slot_off[st[c].dim[s]] : 0);
            ts->nops = 0;
            if (s < 0)
                mring_emit_prologue(&tb, coff, clen);
            else
                stage(&tb, m, st[c].dim[s], st[c].reduce[s], st[c].off[s], st[c].len[s]);
            keyed_t *v = n + ts->nops > cap ? realloc(all, (size_t)(cap = 2 * (n + ts->nops)) * sizeof *all) : all;
            if (tb.err || (!v && cap > 0)) {
                b->err = 1;
                break;
            }
            all = v;
            int d = s >= 0 ? m->grid->dims[st[c].dim[s]] : 2, nsteps = d - 1;
            if (s >= 0 && dim_algo(m, st[c].dim[s]) != MRING_DIM_RING) /* halving, doubling: lg d steps */
                nsteps = mring_lg(d);
            for (int64_t j = 0; j < ts->nops; j++, n++)
                all[n] = (keyed_t){c + (s > 0 ? s : 0) +
                                       (double)(ts->ops[j].step + (ts->ops[j].kind == MRING_OP_REDUCE)) /
                                               (nsteps > 0 ? nsteps : 1),
                                   n, ts->ops[j]};
        }
    }
    if (!b->err) {
        if (n > 0) /* all is NULL when no stream has an op: qsort's pointer must not be */
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
static void stream_schedule(mring_builder_t *b, const mr_t *m, int64_t off, int64_t len, int chunks,
                            const int64_t *slot_off)
{
    stages_t st;
    if (chunks > 1) { /* each chunk's copy goes with its first wave */
        chunked(b, m, off, len, chunks, slot_off);
        return;
    }
    mring_emit_prologue(b, off, len);
    plan_stages(m, b->stream, off, len, &st);
    for (int s = 0; s < st.n; s++)
        stage(b, m, st.dim[s], st.reduce[s], st.off[s], st.len[s]);
}

int mring_multiring_generate_grid(const mring_config_t *c, mring_call_t k, const mring_topo_t *grid, const int *rings,
                                  const uint8_t *algos, int rank, mring_rank_sched_t *out)
{
    int S = 1, chunks = c->chunks > 1 ? c->chunks : 1;
    int64_t slot, slot_off[MRING_MAX_DIMS];
    for (int i = 0; i < grid->ndims; i++)
        S = rings[i] > S ? rings[i] : S;
    mr_t m = {grid, rings, algos, c->embed, rank};
    if (mring_rank_sched_init(out, rank, S))
        return -1;
    slot = scratch_layout(grid, algos, mring_ceil_div(mring_ceil_div(k.count, S), chunks), chunks, slot_off);
    for (int j = 0; j < S; j++) {
        mring_builder_t b;
        mring_builder_init(&b, out, j, c, k, j * slot);
        stream_schedule(&b, &m, mring_split_off(k.count, S, j), mring_split_len(k.count, S, j), chunks, slot_off);
        if (b.err) {
            mring_rank_sched_free(out);
            return -1;
        }
    }
    return 0;
}

static int generate(const mring_config_t *c, mring_call_t k, int rank, mring_rank_sched_t *out)
{
    return mring_multiring_generate_grid(c, k, &c->topo, c->rings, c->dim_algo, rank, out);
}

static double closed(const mring_config_t *c, mring_call_t k, const mring_cost_params_t *p, int inplace)
{
    return mring_multiring_closed_grid(c, k, &c->topo, c->rings, c->dim_algo, p, inplace);
}

/* Recursive halving and doubling need power-of-two groups. */
static int check(const mring_config_t *c, char *err, size_t errlen)
{
    for (int i = 0; i < c->topo.ndims; i++) {
        int d = c->topo.dims[i];
        if (c->dim_algo[i] != MRING_DIM_RING && (d & (d - 1))) {
            snprintf(err, errlen,
                     "--dim-algo %s in dimension %d needs a power-of-two size, and %d is not; use ring there",
                     mring_dim_algo_name(c->dim_algo[i]), i + 1, d);
            return -1;
        }
    }
    return 0;
}

/* Every mix of per-dimension algorithms (ring, recursive halving + doubling, recursive doubling; the
 * last two on power-of-two dimensions only) but all rings, which the caller has: halving and doubling
 * keep latency-bound sizes to lg steps where a ring takes d - 1 (e.g. on minsky-64 at 64 KiB, halving
 * inside the node and doubling across nodes: 54.8 us simulated, against 65.7 us for halving in every
 * dimension and for flat rabenseifner).  Grids of more than 4 dimensions get the uniform mixes only
 * (halving, or doubling, in every dimension). */
static int dim_algo_mixes(const mring_topo_t *topo, mring_config_t *c, mring_cand_sink_t *s)
{
    static const uint8_t algos[3] = {MRING_DIM_RING, MRING_DIM_RABENSEIFNER, MRING_DIM_RD};
    int n = 1;
    for (int i = 0; i < topo->ndims; i++)
        n *= 3;
    if (topo->ndims > 4) /* 3^5 and more: only the uniform mixes */
        n = 0;
    if (n == 0) {
        for (int a = 1; a < 3; a++) {
            int pof2_ok = 1;
            for (int i = 0; i < topo->ndims; i++) {
                c->dim_algo[i] = algos[a];
                pof2_ok &= !(topo->dims[i] & (topo->dims[i] - 1));
            }
            if (pof2_ok && s->add(s, c))
                return -1;
        }
        return 0;
    }
    for (int m = 1; m < n; m++) { /* m in base 3: one digit per dimension; 0 = all rings, skipped */
        int ok = 1;
        for (int i = 0, x = m; i < topo->ndims; i++, x /= 3) {
            int d = topo->dims[i];
            c->dim_algo[i] = algos[x % 3];
            /* halving and doubling on powers of two; not where they are a ring under another name (a
             * dimension of 1 moves nothing; on 2, halving is the ring's two exchanges): twins would
             * crowd the model's shortlist */
            ok &= x % 3 == 0 || (!(d & (d - 1)) && d > 1 && (x % 3 == 2 || d > 2));
        }
        if (ok && s->add(s, c))
            return -1;
    }
    return 0;
}

/* The tuner's candidates on a grid of two or more dimensions (on one it is the flat ring): 1, 2, 4, 8
 * rings in every dimension, 2, 4, 8 in the first only, 1, 2 and 4 rings with 4, 8, 16 and 32 chunks, and
 * one ring with every mix of per-dimension algorithms (dim_algo_mixes). */
static int candidates(const mring_topo_t *topo, int natural, mring_cand_sink_t *s)
{
    static const int uniform[] = {1, 2, 4, 8};
    mring_config_t c;
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
    for (int r = 1; r <= 4; r *= 2) /* chunks pipelined through the dimensions */
        for (int ch = 4; ch <= 32; ch *= 2) {
            for (int i = 0; i < topo->ndims; i++)
                c.rings[i] = r;
            c.chunks = ch;
            if (s->add(s, &c))
                return -1;
        }
    c.chunks = 1;
    for (int i = 0; i < topo->ndims; i++)
        c.rings[i] = 1;
    return dim_algo_mixes(topo, &c, s);
}

const mring_gen_t mring_gen_multiring = {
    .name = "multiring",
    .summary = "rings per dimension: reduce-scatter 1..k, allgather k..1 (PowerAI DDL)",
    .rings = MRING_RINGS_PER_DIM,
    .dim_algo_help = "each dimension's algorithm (rabenseifner, rd: power-of-two dimensions)",
    .takes_chunks = 1,
    .embed = MRING_EMBED_PER_DIM,
    .check = check,
    .generate = generate,
    .closed_form = closed,
    .candidates = candidates,
};
