/* mpi_backend.c - the MPI transport of the interpreter and the libmring API (see libmring.h). */
#include "libmring.h"
#include "mpi_ctx.h"

#include "algo.h"
#include "interp.h"
#ifdef MRING_HAVE_CUDA
#include "cuda_reduce.h"
#endif

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define STREAMS_PER_COMM 16 /* stream bits that fit in MPI_TAG_UB (2^28 - 1 in MPICH 4) with our tags */

struct mring_ctx {
    MPI_Comm comms[MRING_MAX_RINGS / STREAMS_PER_COMM]; /* private copies: stream j uses comms[j / 16] */
    int ncomms, rank, size;
    mring_config_t cfg;
    double timeout_s;
    /* the schedule of the last (count, elsize) and its scratch */
    mring_rank_sched_t sched;
    int64_t sched_count;
    size_t sched_elsize;
    unsigned char *scratch;
    int64_t scratch_bytes;
    /* the call in progress */
    const unsigned char *in;
    unsigned char *out;
    mring_dtype_t dtype;
    mring_redop_t op;
    int device;     /* this call's buffers (and scratch) are device memory: CUDA kernels and copies */
    int cuda_aware; /* hand device pointers to MPI instead of staging through host memory */
    int stage;      /* this call stages its device messages through pinned host memory */
    unsigned char *dev_scratch;
    int64_t dev_scratch_bytes;
    int64_t max_message; /* bytes one MPI count of MPI_BYTE may carry; larger messages go as blocks */
    int trace_next;         /* mring_ctx_trace_next: trace the next call */
    mring_tracer_t tracer;  /* the last traced call's ops */
    int traced;             /* tracer holds a call's events */
};

/* A message.  With device buffers and no CUDA-aware MPI it is staged piece by piece through pinned
 * host memory: a send first copies device -> host (phase COPY_OUT), then sends; a receive receives,
 * then copies host -> device (phase COPY_IN).  The pieces of a pipelined schedule thus overlap the
 * copy of one piece with the transfer of the previous one. */
enum { MSG, COPY_OUT, COPY_IN };
typedef struct req {
    MPI_Request r;
    int phase, is_send, peer, tag;
    size_t bytes;
    MPI_Comm comm;
    void *host, *dev, *event;
    int64_t max_message;
} req_t;

/*
 * Post a send or receive of `bytes` contiguous bytes.  MPI counts are ints, so a message of more than
 * `limit` bytes goes as one element of a derived datatype: q blocks of `limit` bytes, then the rest
 * (the large-count technique of BigMPI: Hammond, Schafer and Latham, "To INT_MAX... and beyond!",
 * ExaMPI 2014).  Both ends build the same type from the same size, so the signatures match.
 */
static int post_bytes(req_t *q, void *buf)
{
    MPI_Datatype block, big = MPI_DATATYPE_NULL;
    int rc;
    if (q->bytes <= (size_t)q->max_message)
        return q->is_send ? MPI_Isend(buf, (int)q->bytes, MPI_BYTE, q->peer, q->tag, q->comm, &q->r)
                          : MPI_Irecv(buf, (int)q->bytes, MPI_BYTE, q->peer, q->tag, q->comm, &q->r);
    size_t nblocks = q->bytes / (size_t)q->max_message, rest = q->bytes % (size_t)q->max_message;
    if (nblocks > INT32_MAX)
        return MPI_ERR_COUNT;
    int lens[2] = {(int)nblocks, (int)rest};
    MPI_Aint displs[2] = {0, (MPI_Aint)(nblocks * (size_t)q->max_message)};
    MPI_Datatype types[2] = {MPI_DATATYPE_NULL, MPI_BYTE};
    if ((rc = MPI_Type_contiguous((int)q->max_message, MPI_BYTE, &block)) != MPI_SUCCESS)
        return rc;
    types[0] = block;
    rc = MPI_Type_create_struct(rest ? 2 : 1, lens, displs, types, &big);
    if (rc == MPI_SUCCESS && (rc = MPI_Type_commit(&big)) == MPI_SUCCESS)
        rc = q->is_send ? MPI_Isend(buf, 1, big, q->peer, q->tag, q->comm, &q->r)
                        : MPI_Irecv(buf, 1, big, q->peer, q->tag, q->comm, &q->r);
    if (big != MPI_DATATYPE_NULL)
        MPI_Type_free(&big); /* MPI frees it once the pending operation no longer needs it */
    MPI_Type_free(&block);
    return rc;
}

static unsigned char *addr(mring_ctx_t *c, int buf, int64_t off)
{
    size_t es = c->sched_elsize;
    switch (buf) {
    case MRING_BUF_OUT: return c->out + (size_t)off * es;
    case MRING_BUF_SCRATCH: return (c->device ? c->dev_scratch : c->scratch) + (size_t)off * es;
    default: return (unsigned char *)c->in + (size_t)off * es;
    }
}

/* Stream bits above the 16 a communicator carries select the communicator. */
static int post(mring_ctx_t *c, int stream, const mring_op_t *op, void **out, int is_send)
{
    req_t *q = malloc(sizeof *q);
    int tag = (int)(((uint32_t)(stream % STREAMS_PER_COMM) << 24) | (op->tag & 0xffffffu));
    int rc;
    MPI_Comm comm = c->comms[stream / STREAMS_PER_COMM];
    size_t bytes = (size_t)op->count * c->sched_elsize;
    if (!q)
        return MPI_ERR_NO_MEM;
    *q = (req_t){MPI_REQUEST_NULL, MSG,  is_send, op->peer, tag, bytes, comm, NULL, addr(c, op->buf, op->off), NULL,
                 c->max_message};
#ifdef MRING_HAVE_CUDA
    if (c->stage) {
        if (!(q->host = mring_cuda_host_alloc((size_t)bytes))) {
            free(q);
            return MPI_ERR_NO_MEM;
        }
        if (is_send) { /* copy the piece out first; the send starts when the copy is done (t_test) */
            q->phase = COPY_OUT;
            if (!(q->event = mring_cuda_copy_async(q->host, q->dev, (size_t)bytes)))
                return MPI_ERR_OTHER;
            *out = q;
            return 0;
        }
    }
#endif
    if ((rc = post_bytes(q, q->host ? q->host : q->dev)) != MPI_SUCCESS) {
        free(q);
        return rc;
    }
    *out = q;
    return 0;
}

static int t_isend(void *ctx, int stream, const mring_op_t *op, void **req) { return post(ctx, stream, op, req, 1); }
static int t_irecv(void *ctx, int stream, const mring_op_t *op, void **req) { return post(ctx, stream, op, req, 0); }

static int t_reduce(void *ctx, int stream, const mring_op_t *op, void **req)
{
    mring_ctx_t *c = ctx;
    (void)stream;
    *req = NULL;
#ifdef MRING_HAVE_CUDA
    if (c->device)
        return mring_cuda_reduce(addr(c, op->buf, op->off), addr(c, op->src_buf, op->src_off), (size_t)op->count,
                                 c->dtype, c->op, op->flags & MRING_REDUCE_SRC_FIRST)
                   ? MPI_ERR_OTHER
                   : 0;
#endif
    mring_reduce(addr(c, op->buf, op->off), addr(c, op->src_buf, op->src_off), (size_t)op->count, c->dtype, c->op,
                 op->flags & MRING_REDUCE_SRC_FIRST);
    return 0;
}

static int t_copy(void *ctx, int stream, const mring_op_t *op, void **req)
{
    mring_ctx_t *c = ctx;
    (void)stream;
    *req = NULL;
#ifdef MRING_HAVE_CUDA
    if (c->device)
        return mring_cuda_copy(addr(c, op->buf, op->off), addr(c, op->src_buf, op->src_off),
                               (size_t)op->count * c->sched_elsize)
                   ? MPI_ERR_OTHER
                   : 0;
#endif
    memcpy(addr(c, op->buf, op->off), addr(c, op->src_buf, op->src_off), (size_t)op->count * c->sched_elsize);
    return 0;
}

#ifdef MRING_HAVE_CUDA
/* Advance a staged message; *done = 1 when its last phase has finished. */
static int staged(req_t *q, int *done)
{
    int flag = 0, rc;
    *done = 0;
    if (q->phase == COPY_OUT || q->phase == COPY_IN) {
        if ((flag = mring_cuda_event_done(q->event)) < 0)
            return MPI_ERR_OTHER;
        if (!flag)
            return 0;
        mring_cuda_event_free(q->event);
        q->event = NULL;
        if (q->phase == COPY_IN) {
            *done = 1;
            return 0;
        }
        q->phase = MSG; /* the piece is in host memory: send it */
        return post_bytes(q, q->host);
    }
    if ((rc = MPI_Test(&q->r, &flag, MPI_STATUS_IGNORE)) != MPI_SUCCESS || !flag)
        return rc;
    if (q->is_send) {
        *done = 1;
        return 0;
    }
    q->phase = COPY_IN; /* received into host memory: copy it to the device */
    return (q->event = mring_cuda_copy_async(q->dev, q->host, (size_t)q->bytes)) ? 0 : MPI_ERR_OTHER;
}
#endif

static int t_test(void *ctx, void *vreq, int *done)
{
    req_t *q = vreq;
    int flag = 0, rc;
    (void)ctx;
#ifdef MRING_HAVE_CUDA
    if (q->host) {
        rc = staged(q, &flag);
        if (flag)
            mring_cuda_host_free(q->host);
    } else
#endif
        rc = MPI_Test(&q->r, &flag, MPI_STATUS_IGNORE);
    *done = flag;
    if (flag)
        free(q);
    return rc;
}

int mring_ctx_create(MPI_Comm comm, const mring_config_t *cfg, double timeout_s, mring_ctx_t **out, char *err,
                     size_t errlen)
{
    mring_ctx_t *c = calloc(1, sizeof *c);
    char topo[128];
    *out = NULL;
    if (!c) {
        snprintf(err, errlen, "out of memory");
        return MPI_ERR_NO_MEM;
    }
    MPI_Comm_rank(comm, &c->rank);
    MPI_Comm_size(comm, &c->size);
    c->cfg = *cfg;
    if (cfg->topo.nranks != c->size) {
        snprintf(err, errlen, "topology %s has %d ranks; the communicator has %d",
                 mring_topo_format(&cfg->topo, topo, sizeof topo), cfg->topo.nranks, c->size);
        free(c);
        return MPI_ERR_ARG;
    }
    if (mring_config_check(&c->cfg, err, errlen)) {
        free(c);
        return MPI_ERR_ARG;
    }
    /* private copies of comm: by split, not dup, which would run the caller's attribute copy callbacks */
    c->ncomms = (mring_config_nstreams(&c->cfg) + STREAMS_PER_COMM - 1) / STREAMS_PER_COMM;
    for (int i = 0; i < c->ncomms; i++)
        if (MPI_Comm_split(comm, 0, c->rank, &c->comms[i]) != MPI_SUCCESS) {
            snprintf(err, errlen, "MPI_Comm_split of a communicator of %d ranks failed (no communicator left?)",
                     c->size);
            while (i-- > 0)
                MPI_Comm_free(&c->comms[i]);
            free(c);
            return MPI_ERR_COMM;
        }
    c->timeout_s = timeout_s;
    c->max_message = INT32_MAX;
    c->sched_count = -1;
    *out = c;
    return MPI_SUCCESS;
}

void mring_abort_job(const char *fmt, ...)
{
    char line[2048];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line - 1, fmt, ap);
    va_end(ap);
    n = n < 0 ? 0 : n > (int)sizeof line - 2 ? (int)sizeof line - 2 : n;
    line[n++] = '\n';
    /* one write: stderr is unbuffered, and two writes let other ranks' lines in between */
    if (write(STDERR_FILENO, line, (size_t)n) < 0)
        n = 0;
    /* the launcher forwards a rank's output asynchronously and drops what is in flight when it tears the
     * job down: seen here, 2 of 6 aborts lost all or part of it without this pause, 0 of 8 with it */
    struct timespec pause = {0, 300000000}; /* named: SMPI's nanosleep macro splits a compound literal */
    nanosleep(&pause, NULL);
    PMPI_Abort(MPI_COMM_WORLD, 1); /* the whole job: MPICH's abort on a duplicate waits for the stuck peer */
    abort();
}

int mring_ctx_rank(const mring_ctx_t *c) { return c->rank; }
const mring_config_t *mring_ctx_config(const mring_ctx_t *c) { return &c->cfg; }
int mring_ctx_size(const mring_ctx_t *c) { return c->size; }

void mring_ctx_trace_next(mring_ctx_t *c) { c->trace_next = 1; }
MPI_Comm mring_ctx_comm(const mring_ctx_t *c) { return c->comms[0]; }
const mring_rank_sched_t *mring_ctx_schedule(const mring_ctx_t *c) { return &c->sched; }

int64_t mring_ctx_trace_events(const mring_ctx_t *c, const mring_trace_event_t **events, double *t0)
{
    *events = c->tracer.events;
    *t0 = c->tracer.t0;
    return c->traced && !c->tracer.oom ? c->tracer.nevents : -1;
}

void mring_ctx_free(mring_ctx_t *c)
{
    if (!c)
        return;
    mring_tracer_free(&c->tracer);
    for (int i = 0; i < c->ncomms; i++)
        MPI_Comm_free(&c->comms[i]);
    if (c->sched_count >= 0)
        mring_rank_sched_free(&c->sched);
    free(c->scratch);
#ifdef MRING_HAVE_CUDA
    mring_cuda_dev_free(c->dev_scratch);
#endif
    free(c);
}

void mring_ctx_set_cuda_aware(mring_ctx_t *c, int on) { c->cuda_aware = on; }

int mring_ctx_set_max_message(mring_ctx_t *c, int64_t bytes)
{
    if (bytes < 1 || bytes > INT32_MAX)
        return MPI_ERR_ARG;
    c->max_message = bytes;
    return MPI_SUCCESS;
}

/* The schedule for this count and element size (the last one is kept: calls repeat their sizes). */
static int prepare(mring_ctx_t *c, int64_t count, size_t elsize)
{
    if (c->sched_count == count && c->sched_elsize == elsize)
        return MPI_SUCCESS;
    if (c->sched_count >= 0)
        mring_rank_sched_free(&c->sched);
    c->sched_count = -1;
    char err[256];
    if (mring_call_check(&c->cfg, (mring_call_t){count, elsize}, err, sizeof err))
        return MPI_ERR_ARG; /* a segment below one element of this type */
    if (mring_generate(&c->cfg, (mring_call_t){count, elsize}, c->rank, &c->sched))
        return MPI_ERR_NO_MEM;
    int64_t need = c->sched.scratch_count * (int64_t)elsize;
    if (need > c->scratch_bytes) {
        unsigned char *s = need <= (int64_t)(SIZE_MAX / 2) ? realloc(c->scratch, (size_t)need) : NULL;
        if (!s) { /* the schedule is not kept: the next call of this size must not run with this scratch */
            mring_rank_sched_free(&c->sched);
            return MPI_ERR_NO_MEM;
        }
        c->scratch = s;
        c->scratch_bytes = need;
    }
    c->sched_count = count; /* ready: schedule and scratch */
    c->sched_elsize = elsize;
    return MPI_SUCCESS;
}

static double wtime(void) { return MPI_Wtime(); }

static int run(const void *sendbuf, void *recvbuf, int64_t count, mring_dtype_t t, mring_redop_t op, mring_ctx_t *c)
{
    static const mring_transport_t table = {NULL, t_isend, t_irecv, t_reduce, t_copy, t_test, NULL, NULL};
    mring_transport_t tp = table;
    mring_interp_t it;
    int inplace = sendbuf == MPI_IN_PLACE || sendbuf == recvbuf, rc;
    if ((rc = prepare(c, count, mring_dtype_size(t))) != MPI_SUCCESS)
        return rc;
    c->in = inplace ? recvbuf : sendbuf;
    c->out = recvbuf;
    c->dtype = t;
    c->op = op;
    tp.ctx = c;
    mring_tracer_free(&c->tracer);
    c->traced = c->trace_next;
    c->trace_next = 0;
    if (c->traced)
        mring_tracer_init(&c->tracer, &tp, c->rank, wtime);
    if (mring_interp_init(&it, &c->sched, c->traced ? &c->tracer.tp : &tp, inplace))
        return MPI_ERR_NO_MEM;
    rc = mring_interp_run(&it, c->timeout_s);
    if (rc == 1) { /* timeout: name the stuck operation, then stop the whole job rather than hang */
        char d[1024];
        mring_interp_describe(&it, d, sizeof d, 4);
        mring_abort_job("mring: allreduce of %lld elements timed out after %g s: %s", (long long)count, c->timeout_s, d);
    }
    mring_interp_free(&it);
    if (rc != 0)
        return MPI_ERR_OTHER;
    if (op == MRING_AVG) {
#ifdef MRING_HAVE_CUDA
        if (c->device)
            return mring_cuda_scale_avg(recvbuf, (size_t)count, t, c->size) ? MPI_ERR_OTHER : MPI_SUCCESS;
#endif
        mring_scale_avg(recvbuf, (size_t)count, t, c->size);
    }
    return MPI_SUCCESS;
}

#ifdef MRING_HAVE_CUDA
/* Device buffers: the schedule runs on the device (CUDA kernels, device scratch); its messages go
 * from device memory straight to MPI with CUDA-aware MPI, else staged piece by piece (req_t). */
static int run_device(const void *sendbuf, void *recvbuf, int64_t count, mring_dtype_t t, mring_redop_t op,
                      mring_ctx_t *c)
{
    int64_t need;
    int rc;
    if (!mring_cuda_supports(t))
        return MPI_ERR_TYPE;
    if ((rc = prepare(c, count, mring_dtype_size(t))) != MPI_SUCCESS)
        return rc;
    need = c->sched.scratch_count * (int64_t)mring_dtype_size(t);
    if (need > c->dev_scratch_bytes) {
        mring_cuda_dev_free(c->dev_scratch);
        if (!(c->dev_scratch = mring_cuda_dev_alloc((size_t)need)))
            return MPI_ERR_NO_MEM;
        c->dev_scratch_bytes = need;
    }
    c->device = 1;
    c->stage = !c->cuda_aware;
    rc = run(sendbuf, recvbuf, count, t, op, c);
    c->device = c->stage = 0;
    return rc;
}
#endif

int mring_allreduce(const void *sendbuf, void *recvbuf, int64_t count, mring_dtype_t t, mring_redop_t op,
                    mring_ctx_t *c)
{
    if (count < 0)
        return MPI_ERR_ARG;
    if ((unsigned)t >= MRING_NTYPES)
        return MPI_ERR_TYPE;
    if (!mring_op_valid(t, op))
        return MPI_ERR_OP;
#ifdef MRING_HAVE_CUDA
    int inplace = sendbuf == MPI_IN_PLACE || sendbuf == recvbuf;
    if (mring_cuda_is_device(recvbuf) || (!inplace && mring_cuda_is_device(sendbuf)))
        return run_device(sendbuf, recvbuf, count, t, op, c);
#endif
    return run(sendbuf, recvbuf, count, t, op, c);
}
