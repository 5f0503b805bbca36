/* interp.c - run one rank's schedule over a transport (see interp.h). */
#define _POSIX_C_SOURCE 200809L
#include "interp.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int mring_interp_init(mring_interp_t *it, const mring_rank_sched_t *rs, const mring_transport_t *tp, int inplace)
{
    memset(it, 0, sizeof *it);
    it->rs = rs;
    it->tp = tp;
    it->inplace = inplace;
    it->st = calloc((size_t)(rs->nstreams > 0 ? rs->nstreams : 1), sizeof *it->st);
    if (!it->st)
        return -1;
    it->remaining = mring_rank_sched_nops(rs);
    return 0;
}

void mring_interp_free(mring_interp_t *it)
{
    if (it->st)
        for (int s = 0; s < it->rs->nstreams; s++)
            free(it->st[s].flight);
    free(it->st);
    free(it->waitbuf);
    memset(it, 0, sizeof *it);
}

/* An in-place call needs no copy of IN into OUT at the same place. */
static int skippable(const mring_interp_t *it, const mring_op_t *op)
{
    return it->inplace && op->kind == MRING_OP_COPY && op->src_buf == MRING_BUF_IN && op->buf == MRING_BUF_OUT &&
           op->src_off == op->off;
}

static int post(mring_interp_t *it, int s, const mring_op_t *op, void **req)
{
    const mring_transport_t *tp = it->tp;
    *req = NULL;
    if (skippable(it, op))
        return 0;
    switch (op->kind) {
    case MRING_OP_SEND: return tp->isend(tp->ctx, s, op, req);
    case MRING_OP_RECV: return tp->irecv(tp->ctx, s, op, req);
    case MRING_OP_REDUCE: return tp->reduce(tp->ctx, s, op, req);
    default: return tp->copy(tp->ctx, s, op, req);
    }
}

static int is_busy(const mring_interp_t *it) { return it->tp->busy && it->tp->busy(it->tp->ctx); }

/* Test in-flight ops of stream s until the rank becomes busy; drop completed ones. Returns completions, or -1
 * on failure. */
static int64_t reap(mring_interp_t *it, int s)
{
    mring_interp_stream_t *st = &it->st[s];
    int64_t kept = 0, done_n = 0, i = 0;
    for (; i < st->nflight && !is_busy(it); i++) {
        int done = 0;
        if (it->tp->test(it->tp->ctx, st->flight[i].req, &done)) {
            it->failed = 1;
            return -1;
        }
        if (done)
            done_n++;
        else
            st->flight[kept++] = st->flight[i];
    }
    for (; i < st->nflight; i++) /* not tested: the rank became busy */
        st->flight[kept++] = st->flight[i];
    st->nflight = kept;
    it->remaining -= done_n;
    return done_n;
}

static int blocked(const mring_interp_t *it, int s, const mring_op_t *op)
{
    const mring_interp_stream_t *st = &it->st[s];
    const mring_op_t *ops = it->rs->streams[s].ops;
    for (int64_t i = 0; i < st->nflight; i++)
        if (mring_ops_conflict(&ops[st->flight[i].op], op))
            return 1;
    return 0;
}

static int add_flight(mring_interp_stream_t *st, int64_t op, void *req)
{
    if (st->nflight == st->capflight) {
        int64_t cap = st->capflight ? 2 * st->capflight : 16;
        mring_flight_t *f = realloc(st->flight, (size_t)cap * sizeof *f);
        if (!f)
            return -1;
        st->flight = f;
        st->capflight = cap;
    }
    st->flight[st->nflight].op = op;
    st->flight[st->nflight++].req = req;
    return 0;
}

int mring_interp_progress(mring_interp_t *it)
{
    int moved = 0;
    if (it->failed)
        return MRING_INTERP_ERROR;
    if (is_busy(it)) /* nothing moves, and where issuing stopped is kept for when the rank is free */
        return MRING_INTERP_IDLE;
    for (int s = 0; s < it->rs->nstreams; s++) {
        const mring_stream_t *ops = &it->rs->streams[s];
        mring_interp_stream_t *st = &it->st[s];
        int64_t r = st->issuing ? 0 : reap(it, s);
        st->issuing = 0;
        if (r < 0)
            return MRING_INTERP_ERROR;
        moved |= r > 0;
        while (st->next < ops->nops && !is_busy(it)) {
            const mring_op_t *op = &ops->ops[st->next];
            void *req;
            if (blocked(it, s, op)) {
                /* the blocker may have completed meanwhile */
                if ((r = reap(it, s)) < 0)
                    return MRING_INTERP_ERROR;
                moved |= r > 0;
                if (r == 0 || blocked(it, s, op) || is_busy(it))
                    break;
            }
            if (post(it, s, op, &req)) {
                it->failed = 1;
                return MRING_INTERP_ERROR;
            }
            if (req) {
                if (add_flight(st, st->next, req)) {
                    it->failed = 1;
                    return MRING_INTERP_ERROR;
                }
            } else {
                it->remaining--;
            }
            st->next++;
            moved = 1;
            st->issuing = is_busy(it);
        }
    }
    if (it->remaining == 0)
        return MRING_INTERP_DONE;
    return moved ? MRING_INTERP_PROGRESS : MRING_INTERP_IDLE;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int wait_some(mring_interp_t *it)
{
    int64_t n = 0;
    if (!it->tp->wait_any) {
        sched_yield();
        return 0;
    }
    for (int s = 0; s < it->rs->nstreams; s++)
        n += it->st[s].nflight;
    if (n > it->capwait) {
        void **w = realloc(it->waitbuf, (size_t)n * sizeof *w);
        if (!w)
            return -1;
        it->waitbuf = w;
        it->capwait = n;
    }
    n = 0;
    for (int s = 0; s < it->rs->nstreams; s++)
        for (int64_t i = 0; i < it->st[s].nflight; i++)
            it->waitbuf[n++] = it->st[s].flight[i].req;
    return n ? it->tp->wait_any(it->tp->ctx, it->waitbuf, (int)n) : 0;
}

int mring_interp_run(mring_interp_t *it, double timeout_s)
{
    double deadline = timeout_s > 0 ? now_s() + timeout_s : 0;
    for (;;) {
        int r = mring_interp_progress(it);
        if (r == MRING_INTERP_DONE)
            return 0;
        if (r == MRING_INTERP_ERROR)
            return MRING_INTERP_ERROR;
        if (r == MRING_INTERP_IDLE) {
            if (deadline > 0 && now_s() > deadline)
                return 1;
            if (wait_some(it)) {
                it->failed = 1;
                return MRING_INTERP_ERROR;
            }
        }
    }
}

void mring_interp_describe(const mring_interp_t *it, char *buf, size_t len, int max)
{
    size_t used = 0;
    int shown = 0;
    char line[256];
    buf[0] = '\0';
    for (int s = 0; s < it->rs->nstreams && shown < max; s++) {
        const mring_interp_stream_t *st = &it->st[s];
        const mring_stream_t *ops = &it->rs->streams[s];
        int64_t k;
        const char *state;
        if (st->nflight > 0) {
            k = st->flight[0].op;
            state = "in flight";
        } else if (st->next < ops->nops) {
            k = st->next;
            state = "not issued";
        } else {
            continue;
        }
        mring_op_format(&ops->ops[k], line, sizeof line);
        used += (size_t)snprintf(buf + used, used < len ? len - used : 0, "%srank %d stream %d op %lld (%s): %s",
                                 shown ? "; " : "", it->rs->rank, s, (long long)k, state, line);
        shown++;
        if (used >= len)
            break;
    }
}
