/* mpi_transport.c - the MPI transport of the interpreter (the seam of model/exec/interp.h): every op of a
 * rank's schedule as MPI_Isend/MPI_Irecv on the context's private communicators, host or CUDA reductions
 * and copies, and, with device buffers and no CUDA-aware MPI, messages staged through pinned host memory. */
#include "mpi_ctx.h"
#ifdef MRING_HAVE_CUDA
#include "cuda_reduce.h"
#endif

#include <stdlib.h>
#include <string.h>

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

const mring_transport_t mring_mpi_transport = {NULL, t_isend, t_irecv, t_reduce, t_copy, t_test, NULL, NULL};
