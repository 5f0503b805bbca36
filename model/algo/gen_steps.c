/* gen_steps.c - the step emitters shared by the generators (see gen.h). */
#include "gen.h"

#include <stdlib.h>

void mring_builder_init(mring_builder_t *b, mring_rank_sched_t *rs, int stream, const mring_config_t *c,
                        mring_call_t k, int64_t scratch_base)
{
    b->rs = rs;
    b->stream = stream;
    b->piece = c->segment > 0 ? (int64_t)((size_t)c->segment / k.elsize) : 0;
    if (b->piece < 1 && c->segment > 0)
        b->piece = 1;
    b->scratch_base = scratch_base;
    b->err = 0;
}

static void emit(mring_builder_t *b, mring_op_t op)
{
    if (op.kind == MRING_OP_SEND || op.kind == MRING_OP_RECV)
        op.tag = mring_tag(b->stream, ((uint32_t)op.phase << 20) | ((uint32_t)(uint8_t)op.dim << 16) | op.step);
    if (mring_emit(b->rs, b->stream, op))
        b->err = 1;
}

static mring_op_t make(int kind, mring_label_t l)
{
    mring_op_t op = {0};
    op.kind = (uint8_t)kind;
    op.phase = l.phase;
    op.dim = l.dim;
    op.step = l.step;
    op.peer = -1;
    return op;
}

/* Pieces of a range of len elements: count and the p-th piece (offset within the range, length). */
static int64_t npieces(const mring_builder_t *b, int64_t len)
{
    if (len <= 0)
        return 0;
    return b->piece > 0 ? mring_ceil_div(len, b->piece) : 1;
}

static int64_t piece_off(const mring_builder_t *b, int64_t p) { return b->piece > 0 ? p * b->piece : 0; }

static int64_t piece_len(const mring_builder_t *b, int64_t len, int64_t p)
{
    if (b->piece <= 0)
        return len;
    int64_t rest = len - p * b->piece;
    return rest < b->piece ? rest : b->piece;
}

static void send_piece(mring_builder_t *b, const mring_xstep_t *s, int64_t p)
{
    mring_op_t op = make(MRING_OP_SEND, s->label);
    op.peer = s->to;
    op.buf = MRING_BUF_OUT;
    op.off = s->snd_off + piece_off(b, p);
    op.count = piece_len(b, s->snd_len, p);
    emit(b, op);
}

static void recv_piece(mring_builder_t *b, const mring_xstep_t *s, int64_t p, int reduce)
{
    mring_op_t op = make(MRING_OP_RECV, s->label);
    op.peer = s->from;
    op.buf = reduce ? MRING_BUF_SCRATCH : MRING_BUF_OUT;
    op.off = (reduce ? b->scratch_base : s->rcv_off) + piece_off(b, p);
    op.count = piece_len(b, s->rcv_len, p);
    emit(b, op);
}

static void reduce_piece(mring_builder_t *b, const mring_xstep_t *s, int64_t p)
{
    mring_op_t op = make(MRING_OP_REDUCE, s->label);
    op.buf = MRING_BUF_OUT;
    op.off = s->rcv_off + piece_off(b, p);
    op.src_buf = MRING_BUF_SCRATCH;
    op.src_off = b->scratch_base + piece_off(b, p);
    op.count = piece_len(b, s->rcv_len, p);
    op.flags = s->flags;
    emit(b, op);
}

static void post_recvs(mring_builder_t *b, const mring_xstep_t *s, int64_t from_piece, int reduce)
{
    if (s->from < 0)
        return;
    for (int64_t p = from_piece; p < npieces(b, s->rcv_len); p++)
        recv_piece(b, s, p, reduce);
}

static void post_sends(mring_builder_t *b, const mring_xstep_t *s)
{
    if (s->to < 0)
        return;
    for (int64_t p = 0; p < npieces(b, s->snd_len); p++)
        send_piece(b, s, p);
}

int64_t mring_emit_steps(mring_builder_t *b, const mring_xstep_t *st, int n, int reduce, int chained)
{
    int64_t scratch = 0;
    for (int s = 0; s < n; s++)
        if (reduce && st[s].from >= 0 && st[s].rcv_len > scratch)
            scratch = st[s].rcv_len;
    if (!chained) {
        for (int s = 0; s < n; s++) {
            post_recvs(b, &st[s], 0, reduce);
            post_sends(b, &st[s]);
            if (reduce && st[s].from >= 0)
                for (int64_t p = 0; p < npieces(b, st[s].rcv_len); p++)
                    reduce_piece(b, &st[s], p);
        }
        return scratch;
    }
    /* Chained: snd[s+1] == rcv[s], so piece p of step s+1 follows piece p of step s. */
    if (n > 0) {
        post_recvs(b, &st[0], 0, reduce);
        post_sends(b, &st[0]);
    }
    for (int s = 0; s < n; s++) {
        const mring_xstep_t *cur = &st[s], *next = s + 1 < n ? &st[s + 1] : NULL;
        int64_t np = cur->from >= 0 ? npieces(b, cur->rcv_len) : 0;
        int64_t next_np = next && next->from >= 0 ? npieces(b, next->rcv_len) : 0;
        for (int64_t p = 0; p < np; p++) {
            if (reduce)
                reduce_piece(b, cur, p);
            if (next && next->to >= 0)
                send_piece(b, next, p);
            if (p < next_np)
                recv_piece(b, next, p, reduce);
        }
        if (next) {
            if (cur->from < 0) /* nothing arrived at this step: the next send goes out whole */
                post_sends(b, next);
            post_recvs(b, next, np, reduce);
        }
    }
    return scratch;
}

void mring_emit_prologue(mring_builder_t *b, int64_t off, int64_t len)
{
    mring_label_t l = {MRING_PHASE_PROLOGUE, 0, 0};
    mring_op_t op = make(MRING_OP_COPY, l);
    op.buf = MRING_BUF_OUT;
    op.off = off;
    op.src_buf = MRING_BUF_IN;
    op.src_off = off;
    op.count = len;
    emit(b, op);
}

static int64_t block_off(int64_t off, int64_t len, int d, int x) { return off + mring_split_off(len, d, x); }

/* Step s of a ring reduce-scatter (reduce != 0) or allgather at position c: send B[c - dir(s+1)], receive
 * B[c - dir(s+2)] in the reduce-scatter; send B[c - dir s], receive B[c - dir(s+1)] in the allgather
 * (Patarasuk and Yuan, JPDC 69(2), 2009). */
static mring_xstep_t ring_step(int to, int from, int d, int c, int dir, int64_t off, int64_t len, int reduce,
                               mring_label_t label, int s)
{
    int sx = reduce ? s + 1 : s, rx = sx + 1;
    int xs = (int)(((c - (int64_t)dir * sx) % d + d) % d), xr = (int)(((c - (int64_t)dir * rx) % d + d) % d);
    mring_xstep_t st = {to, from, block_off(off, len, d, xs), mring_split_len(len, d, xs),
                        block_off(off, len, d, xr), mring_split_len(len, d, xr), 0, label};
    st.label.step = (uint16_t)s;
    return st;
}

static int by_int(const void *a, const void *b) { return (*(const int *)a > *(const int *)b) - (*(const int *)a < *(const int *)b); }

/* The steps of the ring that move data: all d - 1 when every block holds an element, else only those
 * that send or receive one of the len < d non-empty blocks 0..len-1 (the others emit nothing), so a ring
 * of many ranks on a short range costs O(len log len), not O(d).  Fills steps, returns their number. */
static int busy_steps(int d, int c, int dir, int64_t len, int reduce, int *steps)
{
    int n = 0;
    if (len >= d) {
        for (int s = 0; s < d - 1; s++)
            steps[n++] = s;
        return n;
    }
    for (int x = 0; x < len; x++) {
        int k = (int)((((int64_t)dir * (c - x)) % d + d) % d); /* c - dir k == x (mod d) */
        for (int t = reduce ? 1 : 0; t <= (reduce ? 2 : 1); t++) { /* x sent at k - t, received at k - t - 1 */
            int s = ((k - t) % d + d) % d;
            if (s < d - 1)
                steps[n++] = s;
        }
    }
    qsort(steps, (size_t)n, sizeof *steps, by_int);
    int u = 0;
    for (int i = 0; i < n; i++)
        if (u == 0 || steps[u - 1] != steps[i])
            steps[u++] = steps[i];
    return u;
}

int64_t mring_emit_ring(mring_builder_t *b, int to, int from, int d, int c, int dir, int64_t off, int64_t len,
                        int reduce, mring_label_t label)
{
    int64_t scratch;
    if (d < 2)
        return 0;
    /* at most d - 1 steps, or two per non-empty block */
    size_t cap = len >= d ? (size_t)(d - 1) : (size_t)(2 * len > 0 ? 2 * len : 1);
    mring_xstep_t *st = malloc(cap * sizeof *st);
    int *steps = malloc(cap * sizeof *steps), n;
    if (!st || !steps) {
        free(st);
        free(steps);
        b->err = 1;
        return 0;
    }
    /* skipping idle steps changes no op: an idle step emits nothing, and the chain stays exact because
     * the step after one that receives a block sends it (snd[s+1] == rcv[s]), so it is busy too */
    n = busy_steps(d, c, dir, len, reduce, steps);
    for (int i = 0; i < n; i++)
        st[i] = ring_step(to, from, d, c, dir, off, len, reduce, label, steps[i]);
    scratch = mring_emit_steps(b, st, n, reduce, 1);
    free(steps);
    free(st);
    return scratch;
}

int mring_pof2_floor(int p)
{
    int q = 1;
    while (q * 2 <= p)
        q *= 2;
    return q;
}

int mring_fold_newrank(int rank, int nranks)
{
    int rem = nranks - mring_pof2_floor(nranks);
    if (rank < 2 * rem)
        return rank % 2 ? rank / 2 : -1;
    return rank - rem;
}

int mring_fold_oldrank(int nr, int nranks)
{
    int rem = nranks - mring_pof2_floor(nranks);
    return nr < rem ? nr * 2 + 1 : nr + rem;
}

void mring_emit_fold(mring_builder_t *b, int rank, int nranks, int64_t count, int fold_out)
{
    int rem = nranks - mring_pof2_floor(nranks);
    mring_xstep_t s = {0};
    if (rank >= 2 * rem)
        return;
    s.label.phase = fold_out ? MRING_PHASE_BCAST : MRING_PHASE_REDUCE;
    s.to = s.from = -1;
    int even = rank % 2 == 0;
    if (even == !fold_out) { /* fold-in: even sends; fold-out: odd sends */
        s.to = even ? rank + 1 : rank - 1;
        s.snd_len = count;
    } else {
        s.from = even ? rank + 1 : rank - 1;
        s.rcv_len = count;
        s.flags = MRING_REDUCE_SRC_FIRST; /* x[even] op x[odd] */
    }
    mring_emit_steps(b, &s, 1, !fold_out, 0);
}

void mring_halving_plan(mring_halving_t *h, int idx, int d)
{
    mring_brange_t cur = {0, d};
    h->n = 0;
    for (int mask = 1; mask < d; mask <<= 1) {
        int mid = (cur.lo + cur.hi) / 2, k = h->n++;
        mring_brange_t lower = {cur.lo, mid}, upper = {mid, cur.hi};
        int keep_lower = (idx & mask) == 0;
        h->peer[k] = idx ^ mask;
        h->snd[k] = keep_lower ? upper : lower;
        h->keep[k] = cur = keep_lower ? lower : upper;
    }
}

int mring_halving_block(const mring_halving_t *h) { return h->n ? h->keep[h->n - 1].lo : 0; }

static mring_xstep_t halving_step(int64_t off, int64_t len, int d, int peer, int rank, mring_brange_t snd,
                                  mring_brange_t rcv, mring_label_t label)
{
    mring_xstep_t s = {0};
    s.to = s.from = peer;
    s.snd_off = off + mring_split_off(len, d, snd.lo);
    s.snd_len = mring_split_off(len, d, snd.hi) - mring_split_off(len, d, snd.lo);
    s.rcv_off = off + mring_split_off(len, d, rcv.lo);
    s.rcv_len = mring_split_off(len, d, rcv.hi) - mring_split_off(len, d, rcv.lo);
    s.flags = peer < rank ? MRING_REDUCE_SRC_FIRST : 0;
    s.label = label;
    return s;
}

void mring_emit_halving(mring_builder_t *b, const mring_halving_t *h, const int *peers, int rank, int64_t off,
                        int64_t len, int d, int reduce, mring_label_t label)
{
    mring_xstep_t st[32];
    for (int k = 0; k < h->n; k++) {
        /* the allgather undoes step k: it sends what step k kept and receives what it gave away */
        int j = reduce ? k : h->n - 1 - k;
        label.step = (uint16_t)k;
        st[k] = reduce ? halving_step(off, len, d, peers[j], rank, h->snd[j], h->keep[j], label)
                       : halving_step(off, len, d, peers[j], rank, h->keep[j], h->snd[j], label);
    }
    mring_emit_steps(b, st, h->n, reduce, 0);
}

int mring_generate_folded(const mring_config_t *c, mring_call_t k, int rank, mring_rank_sched_t *out,
                          void (*body)(mring_builder_t *b, const mring_config_t *c, mring_call_t k, int rank, int nr,
                                       int pof2))
{
    int P = c->topo.nranks, nr = mring_fold_newrank(rank, P);
    mring_builder_t b;
    if (mring_rank_sched_init(out, rank, 1))
        return -1;
    mring_builder_init(&b, out, 0, c, k, 0);
    mring_emit_prologue(&b, 0, k.count);
    mring_emit_fold(&b, rank, P, k.count, 0);
    if (nr >= 0)
        body(&b, c, k, rank, nr, mring_pof2_floor(P));
    mring_emit_fold(&b, rank, P, k.count, 1);
    if (b.err) {
        mring_rank_sched_free(out);
        return -1;
    }
    return 0;
}

int mring_cand_uniform(const mring_topo_t *topo, mring_algo_t algo, const int *rings, int n, mring_cand_sink_t *s)
{
    mring_config_t c;
    mring_config_default(&c, topo);
    c.algo = algo;
    for (int k = 0; k < n; k++) {
        for (int i = 0; i < topo->ndims; i++)
            c.rings[i] = rings[k];
        if (s->add(s, &c))
            return -1;
    }
    return 0;
}
