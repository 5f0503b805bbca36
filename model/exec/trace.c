/* trace.c - trace-event JSON of an allreduce call, and the tracing transport (see trace.h). */
#include "trace.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *short_phase(int phase)
{
    static const char *const n[] = {"copy", "RS", "AG", "reduce", "bcast", "exchange"};
    return phase >= 0 && phase < MRING_NPHASES ? n[phase] : "?";
}

/* One op as an async slice (a "b" and an "e" event with the same id): a stream's ops overlap in time
 * (pieces in flight, a send beside a receive), and async slices need not nest as "X" slices must. */
static int event(json_t *events, const mring_trace_event_t *e, int64_t id)
{
    char name[96], buf[24];
    const mring_op_t *op = e->op;
    if (op->kind == MRING_OP_SEND || op->kind == MRING_OP_RECV)
        snprintf(name, sizeof name, "ring %d %s d%d s%u %s %s %d", e->stream, short_phase(op->phase), op->dim + 1,
                 (unsigned)op->step, mring_opkind_name(op->kind), op->kind == MRING_OP_SEND ? "to" : "from", op->peer);
    else
        snprintf(name, sizeof name, "ring %d %s d%d s%u %s", e->stream, short_phase(op->phase), op->dim + 1,
                 (unsigned)op->step, mring_opkind_name(op->kind));
    snprintf(buf, sizeof buf, "0x%llx", (unsigned long long)id);
    return json_array_append_new(events, json_pack("{s:s,s:s,s:s,s:s,s:f,s:i,s:i,s:{s:s,s:I,s:I}}", "name", name,
                                                   "cat", mring_phase_name(op->phase), "ph", "b", "id", buf, "ts",
                                                   e->start * 1e6, "pid", e->rank, "tid", e->stream, "args", "buffer",
                                                   mring_buf_name(op->buf), "offset", (json_int_t)op->off, "count",
                                                   (json_int_t)op->count)) ||
           json_array_append_new(events, json_pack("{s:s,s:s,s:s,s:s,s:f,s:i,s:i}", "name", name, "cat",
                                                   mring_phase_name(op->phase), "ph", "e", "id", buf, "ts",
                                                   e->end * 1e6, "pid", e->rank, "tid", e->stream));
}

static int add_names(json_t *events, const mring_rank_sched_t *scheds, int nranks)
{
    for (int r = 0; r < nranks; r++) {
        char name[32];
        snprintf(name, sizeof name, "rank %d", r);
        if (json_array_append_new(events, json_pack("{s:s,s:s,s:i,s:{s:s}}", "name", "process_name", "ph", "M",
                                                    "pid", r, "args", "name", name)))
            return -1;
        for (int j = 0; scheds && j < scheds[r].nstreams; j++) {
            snprintf(name, sizeof name, "ring %d", j);
            if (json_array_append_new(events, json_pack("{s:s,s:s,s:i,s:i,s:{s:s}}", "name", "thread_name", "ph",
                                                        "M", "pid", r, "tid", j, "args", "name", name)))
                return -1;
        }
    }
    return 0;
}

int mring_trace_write(const mring_trace_event_t *events_in, int64_t n, const mring_rank_sched_t *scheds, int nranks,
                      const char *path, char *err, size_t errlen)
{
    json_t *events = json_array(), *doc;
    char tmp[4096];
    int rc = -1;
    if (!events || add_names(events, scheds, nranks))
        goto oom;
    for (int64_t i = 0; i < n; i++)
        if (event(events, &events_in[i], i))
            goto oom;
    doc = json_pack("{s:o,s:s}", "traceEvents", events, "displayTimeUnit", "ns");
    events = NULL;
    if (!doc)
        goto oom;
    snprintf(tmp, sizeof tmp, "%s.tmp%ld", path, (long)getpid());
    if (json_dump_file(doc, tmp, JSON_COMPACT) || rename(tmp, path)) {
        snprintf(err, errlen, "cannot write the trace %s", path);
        unlink(tmp);
    } else {
        rc = 0;
    }
    json_decref(doc);
    return rc;
oom:
    json_decref(events);
    snprintf(err, errlen, "out of memory writing the trace");
    return -1;
}

/* The tracing transport: each op's post time is kept with its request; the interpreter's test of a request
 * that reports completion is its end.  An op that completes in its post call (a reduction or copy on the
 * host) ends when that call returns. */
typedef struct traced {
    void *req;
    const mring_op_t *op;
    int stream;
    double start;
} traced_t;

static void note(mring_tracer_t *tr, int stream, const mring_op_t *op, double start)
{
    if (tr->nevents == tr->cap) {
        int64_t cap = tr->cap ? 2 * tr->cap : 1024;
        mring_trace_event_t *ev = realloc(tr->events, (size_t)cap * sizeof *ev);
        if (!ev) {
            tr->oom = 1;
            return;
        }
        tr->events = ev;
        tr->cap = cap;
    }
    tr->events[tr->nevents++] = (mring_trace_event_t){tr->rank, stream, op, start - tr->t0, tr->now() - tr->t0};
}

typedef int (*post_fn)(void *ctx, int stream, const mring_op_t *op, void **req);

static int posted(mring_tracer_t *tr, post_fn post, int stream, const mring_op_t *op, void **req)
{
    double start = tr->now();
    void *inner = NULL;
    int rc = post(tr->in->ctx, stream, op, &inner);
    *req = NULL;
    if (rc)
        return rc;
    if (!inner) {
        note(tr, stream, op, start);
        return 0;
    }
    traced_t *t = malloc(sizeof *t);
    if (!t) /* the op is in flight and cannot be followed: fail the run rather than lose it */
        return -1;
    *t = (traced_t){inner, op, stream, start};
    *req = t;
    return 0;
}

static int tr_isend(void *ctx, int s, const mring_op_t *op, void **req)
{
    mring_tracer_t *tr = ctx;
    return posted(tr, tr->in->isend, s, op, req);
}

static int tr_irecv(void *ctx, int s, const mring_op_t *op, void **req)
{
    mring_tracer_t *tr = ctx;
    return posted(tr, tr->in->irecv, s, op, req);
}

static int tr_reduce(void *ctx, int s, const mring_op_t *op, void **req)
{
    mring_tracer_t *tr = ctx;
    return posted(tr, tr->in->reduce, s, op, req);
}

static int tr_copy(void *ctx, int s, const mring_op_t *op, void **req)
{
    mring_tracer_t *tr = ctx;
    return posted(tr, tr->in->copy, s, op, req);
}

static int tr_test(void *ctx, void *req, int *done)
{
    mring_tracer_t *tr = ctx;
    traced_t *t = req;
    int rc = tr->in->test(tr->in->ctx, t->req, done);
    if (!rc && *done) {
        note(tr, t->stream, t->op, t->start);
        free(t);
    }
    return rc;
}

static int tr_busy(void *ctx)
{
    mring_tracer_t *tr = ctx;
    return tr->in->busy(tr->in->ctx);
}

void mring_tracer_init(mring_tracer_t *tr, const mring_transport_t *in, int rank, double (*now)(void))
{
    /* wait_any is left out: it would need the inner requests; the interpreter then yields the CPU */
    *tr = (mring_tracer_t){{tr, tr_isend, tr_irecv, tr_reduce, tr_copy, tr_test, NULL, in->busy ? tr_busy : NULL},
                           in, now, now(), rank, NULL, 0, 0, 0};
}

void mring_tracer_free(mring_tracer_t *tr)
{
    free(tr->events);
    tr->events = NULL;
    tr->nevents = tr->cap = 0;
}
