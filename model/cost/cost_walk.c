/*
 * cost_walk.c - the schedule walker of the alpha-beta-gamma model (see cost.h):
 * evaluates every rank's schedule as a dataflow under the interpreter's issue
 * rules, with link sharing counted from the schedules' step labels.
 */
#include "cost.h"

#include "algo.h"
#include "channel.h"

#include <math.h>
#include <stdlib.h>

/* What a stream's sends hold, by key: a link (key >= 0, a port or MRING_MAX_DIMS + peer) is free from t on;
 * a peer's window (key -1 - peer) keeps the arrivals of the stream's last MRING_SEND_WINDOW sends to it. */
typedef struct send_state {
    int key;
    double t;
    int64_t n;
    double done[MRING_SEND_WINDOW];
} send_state_t;

typedef struct wstream {
    int64_t base; /* global index of op 0 */
    int64_t next;
    double last_issue, gpu_free;
    int64_t *win, nwin, capwin; /* earlier ops that may still hold back later ones */
    send_state_t *sends;
    int nsends, capsends;
    int queued;
} wstream_t;

typedef struct witem { /* a posted send (arrival known) or receive (waiting) */
    double t;
    int rank, stream;
    int64_t gidx;
} witem_t;

typedef struct walk {
    const mring_config_t *c;
    mring_call_t k;
    const mring_cost_params_t *p;
    int inplace, P, S;
    mring_rank_sched_t *sch;
    wstream_t *ws;     /* P * S */
    double *comp;      /* per global op: completion time, NAN while unknown */
    float *mult;       /* per global op: flows sharing the link, or streams sharing the GPU */
    float *cpu;        /* per SEND/RECV: the rank's streams paying o in the same step (they share its CPU) */
    int64_t nops;
    int *queue, qhead, qtail, qcap;
    mring_chan_table_t *chan;
    int oom;
} walk_t;

static const mring_op_t *op_at(const walk_t *w, int r, int s, int64_t k) { return &w->sch[r].streams[s].ops[k]; }

/* ---- sharing counts from step labels ---- */

typedef struct rec {
    uint64_t key;
    uint32_t who;
    int64_t gidx;
} rec_t;

static int rec_cmp(const void *a, const void *b)
{
    const rec_t *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->who < y->who ? -1 : x->who > y->who;
}

static uint64_t label_bits(const mring_op_t *op)
{
    return ((uint64_t)op->phase << 24) | ((uint64_t)(uint8_t)op->dim << 16) | op->step; /* 27 bits */
}

/* The sharing key of op (rank r): with cpu, the rank's messages of one kind in a step (their o share the
 * CPU); else the link a SEND shares, or the GPU a REDUCE/COPY shares.  0 = the op shares nothing. */
static uint64_t sharing_key(const walk_t *w, int r, const mring_op_t *op, int cpu)
{
    if (cpu)
        return op->kind == MRING_OP_SEND || op->kind == MRING_OP_RECV
                   ? (3ull << 62) | ((uint64_t)r << 32) | ((uint64_t)op->kind << 28) | label_bits(op)
                   : 0;
    if (op->kind == MRING_OP_SEND) {
        int ld = mring_topo_link_dim(&w->c->topo, r, op->peer);
        int share = ld >= 0 ? w->p->link[ld].share : 0;
        if (share > 0) /* port: every flow of the port group in this step and dimension */
            return (1ull << 62) | ((uint64_t)(r / share) << 32) | ((uint64_t)w->p->link[ld].port << 28) |
                   label_bits(op);
        /* point-to-point: the rank's flows to the same peer */
        return (2ull << 62) | ((uint64_t)r << 44) | ((uint64_t)op->peer << 28) | label_bits(op);
    }
    if (op->kind == MRING_OP_REDUCE || op->kind == MRING_OP_COPY)
        return ((uint64_t)r << 28) | label_bits(op) | (1ull << 60); /* the rank's streams share its GPU */
    return 0;
}

/* out[g] = the number of distinct streams whose ops have op g's sharing key. */
static int count_sharing(walk_t *w, int cpu, float *out)
{
    rec_t *recs = malloc((size_t)w->nops * sizeof *recs);
    int64_t n = 0;
    if (!recs)
        return -1;
    for (int r = 0; r < w->P; r++)
        for (int s = 0; s < w->sch[r].nstreams; s++)
            for (int64_t k = 0; k < w->sch[r].streams[s].nops; k++) {
                const mring_op_t *op = op_at(w, r, s, k);
                rec_t *x = &recs[n];
                x->gidx = w->ws[r * w->S + s].base + k;
                x->who = (uint32_t)r * 64u + (uint32_t)s;
                x->key = sharing_key(w, r, op, cpu);
                n += x->key != 0;
            }
    qsort(recs, (size_t)n, sizeof *recs, rec_cmp);
    for (int64_t i = 0; i < n;) {
        int64_t j = i, distinct = 0;
        for (; j < n && recs[j].key == recs[i].key; j++)
            if (j == i || recs[j].who != recs[j - 1].who)
                distinct++;
        for (int64_t k = i; k < j; k++)
            out[recs[k].gidx] = (float)distinct;
        i = j;
    }
    free(recs);
    return 0;
}

/* ---- the dataflow ---- */

static void enqueue(walk_t *w, int idx)
{
    if (w->ws[idx].queued)
        return;
    w->ws[idx].queued = 1;
    w->queue[w->qtail] = idx;
    w->qtail = (w->qtail + 1) % w->qcap;
}

/* st's state for key (created empty), or NULL out of memory. */
static send_state_t *send_state(walk_t *w, wstream_t *st, int key)
{
    for (int i = 0; i < st->nsends; i++)
        if (st->sends[i].key == key)
            return &st->sends[i];
    if (st->nsends == st->capsends) {
        int cap = st->capsends ? 2 * st->capsends : 4;
        send_state_t *v = realloc(st->sends, (size_t)cap * sizeof *v);
        if (!v) {
            w->oom = 1;
            return NULL;
        }
        st->sends = v;
        st->capsends = cap;
    }
    st->sends[st->nsends] = (send_state_t){.key = key};
    return &st->sends[st->nsends++];
}

static int push_win(walk_t *w, wstream_t *st, int64_t k)
{
    if (st->nwin == st->capwin) {
        int64_t cap = st->capwin ? 2 * st->capwin : 16;
        int64_t *v = realloc(st->win, (size_t)cap * sizeof *v);
        if (!v)
            return w->oom = 1;
        st->win = v;
        st->capwin = cap;
    }
    st->win[st->nwin++] = k;
    return 0;
}

static int skippable(const walk_t *w, const mring_op_t *op)
{
    return w->inplace && op->kind == MRING_OP_COPY && op->src_buf == MRING_BUF_IN && op->buf == MRING_BUF_OUT &&
           op->src_off == op->off;
}

/* Post a message item; on a match fill in the receive's completion. */
static void post_msg(walk_t *w, int r, int s, const mring_op_t *op, int64_t g, double t, int is_send)
{
    witem_t *it = malloc(sizeof *it), *other;
    int oom;
    if (!it) {
        w->oom = 1;
        return;
    }
    *it = (witem_t){t, r, s, g};
    other = is_send ? mring_chan_post(w->chan, r, op->peer, op->tag, 1, it, &oom)
                    : mring_chan_post(w->chan, op->peer, r, op->tag, 0, it, &oom);
    if (oom) {
        free(it);
        w->oom = 1;
        return;
    }
    if (!other)
        return;
    const witem_t *snd = is_send ? it : other, *rcv = is_send ? other : it;
    w->comp[rcv->gidx] = fmax(rcv->t, snd->t) + w->p->sw.o * w->cpu[rcv->gidx]; /* the receiver's o */
    if (is_send)
        enqueue(w, rcv->rank * w->S + rcv->stream);
    free(it);
    free(other);
}

/* Issue time of op k, or NAN while an earlier conflicting op has no known completion. */
static double ready_time(walk_t *w, wstream_t *st, int r, int s, const mring_op_t *op)
{
    double t = st->last_issue;
    for (int64_t i = 0; i < st->nwin; i++) {
        int64_t j = st->win[i];
        if (!mring_ops_conflict(op_at(w, r, s, j), op))
            continue;
        double cj = w->comp[st->base + j];
        if (isnan(cj))
            return NAN;
        t = fmax(t, cj);
    }
    return t;
}

static void issue(walk_t *w, wstream_t *st, int r, int s, const mring_op_t *op, int64_t g, double t)
{
    double bytes = (double)op->count * (double)w->k.elsize;
    switch (op->kind) {
    case MRING_OP_SEND: {
        int ld = mring_topo_link_dim(&w->c->topo, r, op->peer);
        int key = w->p->link[ld].share > 0 ? w->p->link[ld].port : MRING_MAX_DIMS + op->peer;
        if (!send_state(w, st, key) || !send_state(w, st, -1 - op->peer))
            return; /* both made first: making one may move the other */
        double *lf = &send_state(w, st, key)->t;
        send_state_t *pw = send_state(w, st, -1 - op->peer);
        /* as the simulator: the send waits for the arrival of the one MRING_SEND_WINDOW sends earlier to
         * the same peer, then pays o */
        double *slot = &pw->done[pw->n++ % MRING_SEND_WINDOW];
        const mring_swprof_t *sw = &w->p->sw;
        double bf = mring_swprof_factor(sw->bw, sw->nbw, bytes),
               start = fmax(fmax(t, *slot) + sw->o * w->cpu[g], *lf);
        *lf = start + w->mult[g] * bytes / (bf * w->p->link[ld].bw);
        w->comp[g] = *slot = *lf + w->p->link[ld].alpha * mring_swprof_factor(sw->lat, sw->nlat, bytes);
        post_msg(w, r, s, op, g, w->comp[g], 1);
        break;
    }
    case MRING_OP_RECV:
        w->comp[g] = NAN;
        post_msg(w, r, s, op, g, t, 0);
        break;
    default:
        if (skippable(w, op)) {
            w->comp[g] = t;
            break;
        }
        st->gpu_free = fmax(t, st->gpu_free) + mring_cost_compute(w->p, bytes, w->mult[g], op->kind == MRING_OP_COPY);
        w->comp[g] = st->gpu_free;
    }
}

static void advance(walk_t *w, int idx)
{
    int r = idx / w->S, s = idx % w->S;
    wstream_t *st = &w->ws[idx];
    const mring_stream_t *ops = &w->sch[r].streams[s];
    while (st->next < ops->nops && !w->oom) {
        const mring_op_t *op = &ops->ops[st->next];
        int64_t g = st->base + st->next;
        double t = ready_time(w, st, r, s, op);
        if (isnan(t))
            return;
        st->last_issue = t;
        issue(w, st, r, s, op, g, t);
        /* keep only ops that may still hold back a later op */
        int64_t kept = 0;
        for (int64_t i = 0; i < st->nwin; i++) {
            double cj = w->comp[st->base + st->win[i]];
            if (isnan(cj) || cj > t)
                st->win[kept++] = st->win[i];
        }
        st->nwin = kept;
        if (isnan(w->comp[g]) || w->comp[g] > t)
            push_win(w, st, st->next);
        st->next++;
    }
}

/* The completion of the last op, or -1 when a stream never finished or a receive never matched. */
static double finish(walk_t *w)
{
    double tmax = 0;
    for (int i = 0; i < w->P * w->S; i++)
        if (w->ws[i].next < w->sch[i / w->S].streams[i % w->S].nops)
            return -1;
    for (int64_t g = 0; g < w->nops; g++) {
        if (isnan(w->comp[g]))
            return -1;
        tmax = fmax(tmax, w->comp[g]);
    }
    return tmax;
}

static void free_item(int src, int dst, uint32_t tag, int is_send, void *item, void *ctx)
{
    (void)src, (void)dst, (void)tag, (void)is_send, (void)ctx;
    free(item);
}

static int setup(walk_t *w)
{
    w->sch = calloc((size_t)w->P, sizeof *w->sch);
    w->ws = calloc((size_t)w->P * (size_t)w->S, sizeof *w->ws);
    w->qcap = w->P * w->S + 1;
    w->queue = malloc((size_t)w->qcap * sizeof *w->queue);
    w->chan = mring_chan_new();
    if (!w->sch || !w->ws || !w->queue || !w->chan)
        return -1;
    for (int r = 0; r < w->P; r++) {
        if (mring_generate(w->c, w->k, r, &w->sch[r]))
            return -1;
        for (int s = 0; s < w->S; s++) {
            w->ws[r * w->S + s].base = w->nops;
            w->nops += s < w->sch[r].nstreams ? w->sch[r].streams[s].nops : 0;
        }
    }
    w->comp = malloc((size_t)(w->nops ? w->nops : 1) * sizeof *w->comp);
    w->mult = malloc((size_t)(w->nops ? w->nops : 1) * sizeof *w->mult);
    w->cpu = malloc((size_t)(w->nops ? w->nops : 1) * sizeof *w->cpu);
    if (!w->comp || !w->mult || !w->cpu)
        return -1;
    for (int64_t g = 0; g < w->nops; g++) {
        w->comp[g] = NAN;
        w->mult[g] = w->cpu[g] = 1;
    }
    return count_sharing(w, 0, w->mult) || count_sharing(w, 1, w->cpu);
}

static void teardown(walk_t *w)
{
    if (w->sch)
        for (int r = 0; r < w->P; r++)
            mring_rank_sched_free(&w->sch[r]);
    if (w->ws)
        for (int i = 0; i < w->P * w->S; i++) {
            free(w->ws[i].win);
            free(w->ws[i].sends);
        }
    if (w->chan) {
        mring_chan_foreach(w->chan, free_item, NULL);
        mring_chan_free(w->chan);
    }
    free(w->sch);
    free(w->ws);
    free(w->queue);
    free(w->comp);
    free(w->mult);
    free(w->cpu);
}

double mring_cost_walk(const mring_config_t *c, mring_call_t k, const mring_cost_params_t *p, int inplace)
{
    walk_t w = {0};
    double t = -1;
    w.c = c;
    w.k = k;
    w.p = p;
    w.inplace = inplace;
    w.P = c->topo.nranks;
    w.S = mring_config_nstreams(c);
    if (setup(&w) == 0) {
        for (int i = 0; i < w.P * w.S; i++)
            enqueue(&w, i);
        while (w.qhead != w.qtail && !w.oom) {
            int idx = w.queue[w.qhead];
            w.qhead = (w.qhead + 1) % w.qcap;
            w.ws[idx].queued = 0;
            advance(&w, idx);
        }
        if (!w.oom)
            t = finish(&w);
    }
    teardown(&w);
    return t;
}
