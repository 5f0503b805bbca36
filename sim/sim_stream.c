/* sim_stream.c - the SimGrid transport of the interpreter and the actor of one rank stream (sim_stream.h). */
#include "sim_stream.h"

#include <simgrid/actor.h>
#include <simgrid/comm.h>
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <simgrid/mailbox.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct req {
    sg_comm_t comm;
    void *data;
    const mring_op_t *op;
    double start;
    int done, is_send, started;
    req_t *next; /* in the stream's send queue */
};
static void record(stream_ctx_t *s, const mring_op_t *op, double start, double end)
{
    run_t *run = s->run;
    mring_sim_result_t *res = run->res;
    int ph = op->phase, d = op->dim < 0 ? 0 : op->dim;
    if (!res) /* concurrent collectives: only their end times are kept */
        return;
    start -= run->t0;
    end -= run->t0;
    if (!res->phase_seen[ph][d] || start < res->phase_start[ph][d])
        res->phase_start[ph][d] = start;
    if (!res->phase_seen[ph][d] || end > res->phase_end[ph][d])
        res->phase_end[ph][d] = end;
    res->phase_seen[ph][d] = 1;
    if (!run->trace || run->oom)
        return;
    if (res->nevents == run->capevents) {
        int64_t cap = run->capevents ? 2 * run->capevents : 4096;
        mring_sim_event_t *ev = realloc(res->events, (size_t)cap * sizeof *ev);
        if (!ev) {
            run->oom = 1;
            return;
        }
        res->events = ev;
        run->capevents = cap;
    }
    res->events[res->nevents++] = (mring_sim_event_t){s->rank, s->stream, op, start, end};
}

static sg_mailbox_t mailbox(int id, int dst, int src, int stream)
{
    char name[64];
    snprintf(name, sizeof name, "%d<%d#%d/%d", dst, src, stream, id);
    return sg_mailbox_by_name(name);
}

/* The software profile's o (sim.h): an execution on the rank's host, which its streams share. */
static void overhead(const stream_ctx_t *s)
{
    if (s->run->o > 0)
        sg_actor_execute(s->run->o * sg_host_get_speed(sg_host_self()));
}

/* Put a send on the wire, after the sender's o. */
static void start_send(stream_ctx_t *s, req_t *r)
{
    double bytes = (double)r->op->count * (double)s->coll->k.elsize;
    overhead(s);
    r->started = 1;
    r->comm = sg_mailbox_put_async(mailbox(s->id, r->op->peer, s->rank, s->stream), s, (long)bytes);
}

/*
 * Sends of a stream to the same peer go out in issue order, as messages on one connection do (an MPI
 * or NCCL channel, a TCP stream): at most SEND_WINDOW of them on the wire, the next starting when one
 * finishes.  Without this, SimGrid would share the bandwidth among all posted pieces of a pipelined
 * step and deliver them all at its end, which is no pipeline at all; with a window of 1 every piece
 * would pay the whole route latency in turn.  2 overlaps one piece's latency with the previous
 * piece's transfer (measured on a crossbar: a 64 MiB chain in 1 MiB pieces within 10% of the model's
 * pipelined walk, test_sim.c).
 */
#define SEND_WINDOW 2
static int t_comm(void *ctx, const mring_op_t *op, void **out, int is_send)
{
    stream_ctx_t *s = ctx;
    req_t *r = calloc(1, sizeof *r), **tail = &s->sendq;
    int busy = 0;
    if (!r)
        return -1;
    r->op = op;
    r->start = simgrid_get_clock();
    r->is_send = is_send;
    *out = r;
    if (!is_send) {
        r->started = 1;
        r->comm = sg_mailbox_get_async(mailbox(s->id, s->rank, op->peer, s->stream), &r->data);
        return 0;
    }
    for (; *tail; tail = &(*tail)->next)
        busy += (*tail)->op->peer == op->peer && (*tail)->started;
    *tail = r;
    if (busy < SEND_WINDOW)
        start_send(s, r);
    return 0;
}

/* r has finished: a receive pays the receiver's o; a send leaves the queue and the next waiting send to
 * its peer starts. */
static void complete(stream_ctx_t *s, req_t *r)
{
    if (!r->is_send) {
        overhead(s);
        r->done = 1;
        return;
    }
    r->done = 1;
    for (req_t **q = &s->sendq; *q; q = &(*q)->next)
        if (*q == r) {
            *q = r->next;
            break;
        }
    for (req_t *q = s->sendq; q; q = q->next)
        if (q->op->peer == r->op->peer && !q->started) {
            start_send(s, q);
            break;
        }
}

static int t_isend(void *ctx, int stream, const mring_op_t *op, void **req)
{
    (void)stream;
    return t_comm(ctx, op, req, 1);
}

static int t_irecv(void *ctx, int stream, const mring_op_t *op, void **req)
{
    (void)stream;
    return t_comm(ctx, op, req, 0);
}

/* A reduction moves 3 bytes per byte of result, a copy 2: the host's speed is bytes of result per second. */
static int t_compute(stream_ctx_t *s, const mring_op_t *op, double factor, void **req)
{
    double start = simgrid_get_clock();
    sg_actor_execute(factor * (double)op->count * (double)s->coll->k.elsize);
    record(s, op, start, simgrid_get_clock());
    *req = NULL;
    return 0;
}

static int t_reduce(void *ctx, int stream, const mring_op_t *op, void **req)
{
    (void)stream;
    return t_compute(ctx, op, 1.0, req);
}

static int t_copy(void *ctx, int stream, const mring_op_t *op, void **req)
{
    (void)stream;
    return t_compute(ctx, op, 2.0 / 3.0, req);
}

static int t_test(void *ctx, void *vreq, int *done)
{
    req_t *r = vreq;
    if (!r->done && r->started && sg_comm_test(r->comm)) /* releases the comm when it has finished */
        complete(ctx, r);
    *done = r->done;
    if (r->done) {
        record(ctx, r->op, r->start, simgrid_get_clock());
        free(r);
    }
    return 0;
}

static int t_wait_any(void *ctx, void **reqs, int n)
{
    sg_comm_t *comms = malloc((size_t)n * sizeof *comms);
    int *which = malloc((size_t)n * sizeof *which), k = 0;
    if (!comms || !which) {
        free(comms);
        free(which);
        return -1;
    }
    for (int i = 0; i < n; i++)
        if (!((req_t *)reqs[i])->done && ((req_t *)reqs[i])->started) {
            comms[k] = ((req_t *)reqs[i])->comm;
            which[k++] = i;
        }
    if (k > 0) {
        ssize_t pos = sg_comm_wait_any(comms, (size_t)k); /* releases the finished comm */
        if (pos >= 0)
            complete(ctx, reqs[which[pos]]);
    }
    free(comms);
    free(which);
    return 0;
}

void mring_sim_stream_main(int argc, char **argv)
{
    static const mring_transport_t ops = {NULL, t_isend, t_irecv, t_reduce, t_copy, t_test, t_wait_any};
    stream_ctx_t *s = sg_actor_get_data(sg_actor_self());
    mring_transport_t tp = ops;
    (void)argc, (void)argv;
    tp.ctx = s;
    s->it.tp = NULL;
    if (mring_interp_init(&s->it, &s->view, &tp, s->run->inplace)) {
        s->failed = 1;
        return;
    }
    s->started = 1;
    /* the transport table lives on this actor's stack: the interpreter keeps a pointer to it */
    if (mring_interp_run(&s->it, 0) == 0) {
        s->done = 1;
        s->end = simgrid_get_clock();
    } else {
        s->failed = 1;
    }
    if (s->done) {
        mring_interp_free(&s->it);
        s->started = 0;
    }
}

void mring_sim_describe_pending(stream_ctx_t *ctxs, int n, char *err, size_t errlen)
{
    size_t used = (size_t)snprintf(err, errlen, "the simulation ended with operations pending: ");
    int shown = 0;
    for (int i = 0; i < n && used < errlen; i++) {
        char d[512];
        if (ctxs[i].done)
            continue;
        if (shown == 3) {
            snprintf(err + used, errlen - used, "; ...");
            break;
        }
        if (ctxs[i].started) {
            mring_interp_describe(&ctxs[i].it, d, sizeof d, 1);
            d[sizeof d - 1] = '\0';
        } else {
            snprintf(d, sizeof d, "rank %d stream %d did not start", ctxs[i].rank, ctxs[i].stream);
        }
        used += (size_t)snprintf(err + used, errlen - used, "%s%s", shown++ ? "; " : "", d);
    }
}
