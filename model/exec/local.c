/* local.c - the in-process multi-rank driver (see local.h). */
#include "local.h"

#include "channel.h"
#include "interp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct msg {
    int rank;
    const mring_op_t *op;
    int done;
} msg_t;

/* The ranks to poll next, first in first out: a rank that made progress goes back in, a rank that is
 * waiting comes back only when a message of its own is matched (its state changes no other way), so
 * a run costs its ops and matches, not rounds times ranks (a chain of P hops is O(P), not O(P^2)). */
typedef struct runq {
    int *q;       /* nranks slots, a ring */
    char *queued; /* per rank: in q */
    int head, n, nranks;
} runq_t;

typedef struct world {
    mring_chan_table_t *chan;
    const mring_local_ops_t *ops;
    void *ctx;
    char *err;
    size_t errlen;
    int failed;
    runq_t run;
} world_t;

static void wake(runq_t *rq, int rank)
{
    if (rq->queued[rank])
        return;
    rq->queued[rank] = 1;
    rq->q[(rq->head + rq->n++) % rq->nranks] = rank;
}

typedef struct rank_ctx {
    world_t *w;
    int rank;
} rank_ctx_t;

static int fail(world_t *w) { return w->failed = 1; }

static int post_msg(rank_ctx_t *rc, const mring_op_t *op, int is_send, void **req)
{
    world_t *w = rc->w;
    msg_t *m = malloc(sizeof *m), *other;
    int oom;
    if (!m) {
        snprintf(w->err, w->errlen, "out of memory");
        return fail(w);
    }
    m->rank = rc->rank;
    m->op = op;
    m->done = 0;
    if (op->peer < 0) {
        snprintf(w->err, w->errlen, "rank %d posts a %s with no peer", rc->rank, mring_opkind_name(op->kind));
        free(m);
        return fail(w);
    }
    other = is_send ? mring_chan_post(w->chan, rc->rank, op->peer, op->tag, 1, m, &oom)
                    : mring_chan_post(w->chan, op->peer, rc->rank, op->tag, 0, m, &oom);
    if (oom) {
        snprintf(w->err, w->errlen, "out of memory");
        free(m);
        return fail(w);
    }
    if (other) {
        const msg_t *snd = is_send ? m : other, *rcv = is_send ? other : m;
        if (w->ops->deliver(w->ctx, snd->rank, snd->op, rcv->rank, rcv->op, w->err, w->errlen)) {
            other->done = 1; /* off the channel: the cleanup frees it from its rank's in-flight list */
            free(m);
            return fail(w);
        }
        other->done = 1;
        m->done = 1;
        wake(&w->run, other->rank); /* its request just completed */
    }
    *req = m;
    return 0;
}

static int t_isend(void *ctx, int stream, const mring_op_t *op, void **req)
{
    (void)stream;
    return post_msg(ctx, op, 1, req);
}

static int t_irecv(void *ctx, int stream, const mring_op_t *op, void **req)
{
    (void)stream;
    return post_msg(ctx, op, 0, req);
}

static int t_reduce(void *ctx, int stream, const mring_op_t *op, void **req)
{
    rank_ctx_t *rc = ctx;
    (void)stream;
    *req = NULL;
    return rc->w->ops->reduce(rc->w->ctx, rc->rank, op, rc->w->err, rc->w->errlen) ? fail(rc->w) : 0;
}

static int t_copy(void *ctx, int stream, const mring_op_t *op, void **req)
{
    rank_ctx_t *rc = ctx;
    (void)stream;
    *req = NULL;
    return rc->w->ops->copy(rc->w->ctx, rc->rank, op, rc->w->err, rc->w->errlen) ? fail(rc->w) : 0;
}

static int t_test(void *ctx, void *req, int *done)
{
    msg_t *m = req;
    (void)ctx;
    *done = m->done;
    if (m->done)
        free(m);
    return 0;
}

typedef struct unmatched {
    char *buf;
    size_t len, used;
    int n;
} unmatched_t;

static void note_unmatched(int src, int dst, uint32_t tag, int is_send, void *item, void *ctx)
{
    unmatched_t *u = ctx;
    const msg_t *m = item;
    char line[256];
    if (u->n++ >= 3 || u->used >= u->len)
        return;
    mring_op_format(m->op, line, sizeof line);
    u->used += (size_t)snprintf(u->buf + u->used, u->len - u->used, "%s%s %d->%d tag 0x%x: %s",
                                u->n > 1 ? "; " : "", is_send ? "send" : "receive", src, dst, tag, line);
}

static void free_unmatched(int src, int dst, uint32_t tag, int is_send, void *item, void *ctx)
{
    (void)src, (void)dst, (void)tag, (void)is_send, (void)ctx;
    free(item);
}

static void describe_stuck(mring_interp_t *its, int nranks, char *err, size_t errlen)
{
    size_t used = (size_t)snprintf(err, errlen, "deadlock: ");
    int shown = 0;
    for (int r = 0; r < nranks && shown < 4 && used < errlen; r++) {
        if (its[r].remaining == 0)
            continue;
        char d[512];
        mring_interp_describe(&its[r], d, sizeof d, 1);
        used += (size_t)snprintf(err + used, errlen - used, "%s%s", shown ? "; " : "", d);
        shown++;
    }
}

static int drive(mring_interp_t *its, int nranks, world_t *w)
{
    runq_t *rq = &w->run;
    int left = nranks;
    rq->nranks = nranks;
    rq->q = malloc((size_t)nranks * sizeof *rq->q);
    rq->queued = calloc((size_t)nranks, 1);
    if (!rq->q || !rq->queued) {
        snprintf(w->err, w->errlen, "out of memory");
        left = -1;
    }
    for (int r = 0; left > 0 && r < nranks; r++)
        wake(rq, r);
    while (left > 0 && rq->n > 0) {
        int r = rq->q[rq->head];
        rq->head = (rq->head + 1) % nranks;
        rq->n--;
        rq->queued[r] = 0;
        int s = mring_interp_progress(&its[r]);
        if (s == MRING_INTERP_ERROR || w->failed) {
            left = -1;
            break;
        }
        if (s == MRING_INTERP_DONE)
            left--;
        else if (s == MRING_INTERP_PROGRESS)
            wake(rq, r);
    }
    if (left > 0) /* every rank left waits for a message nobody will match */
        describe_stuck(its, nranks, w->err, w->errlen);
    free(rq->q);
    free(rq->queued);
    return left == 0 ? 0 : -1;
}

int mring_local_run(const mring_rank_sched_t *scheds, int nranks, int inplace, const mring_local_ops_t *ops,
                    void *ctx, char *err, size_t errlen)
{
    world_t w = {mring_chan_new(), ops, ctx, err, errlen, 0, {0}};
    rank_ctx_t *rcs = calloc((size_t)nranks, sizeof *rcs);
    mring_transport_t *tps = calloc((size_t)nranks, sizeof *tps);
    mring_interp_t *its = calloc((size_t)nranks, sizeof *its);
    int rc = -1, ninit = 0;
    err[0] = '\0';
    if (!w.chan || !rcs || !tps || !its) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    for (int r = 0; r < nranks; r++, ninit++) {
        rcs[r].w = &w;
        rcs[r].rank = r;
        tps[r] = (mring_transport_t){&rcs[r], t_isend, t_irecv, t_reduce, t_copy, t_test, NULL, NULL};
        if (mring_interp_init(&its[r], &scheds[r], &tps[r], inplace)) {
            snprintf(err, errlen, "out of memory");
            goto out;
        }
    }
    if (drive(its, nranks, &w))
        goto out;
    if (mring_chan_pending(w.chan) > 0) {
        unmatched_t u = {err, errlen, 0, 0};
        u.used = (size_t)snprintf(err, errlen, "%lld unmatched message(s): ", (long long)mring_chan_pending(w.chan));
        mring_chan_foreach(w.chan, note_unmatched, &u);
        goto out;
    }
    rc = 0;
out:
    /* a run that stopped early leaves matched messages in the ranks' in-flight lists (done) and
     * unmatched ones on the channels (not done): free the first, then the second */
    for (int r = 0; r < ninit; r++) {
        for (int s = 0; s < its[r].rs->nstreams; s++)
            for (int64_t i = 0; i < its[r].st[s].nflight; i++)
                if (((msg_t *)its[r].st[s].flight[i].req)->done)
                    free(its[r].st[s].flight[i].req);
        mring_interp_free(&its[r]);
    }
    if (w.chan)
        mring_chan_foreach(w.chan, free_unmatched, NULL);
    mring_chan_free(w.chan);
    free(its);
    free(tps);
    free(rcs);
    return rc;
}
