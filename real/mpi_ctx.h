/* mpi_ctx.h - what the real back end's files share beyond libmring.h (not installed): the context and the
 * MPI transport of the interpreter. */
#ifndef MRING_MPI_CTX_H
#define MRING_MPI_CTX_H

#include "libmring.h"

#include "interp.h"
#include "trace.h"

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

/* The MPI transport (mpi_transport.c): nonblocking MPI messages between the ranks of the context's private
 * communicators, reductions and copies on the host or, in a call on device buffers, with the CUDA kernels.
 * ctx is NULL: a call sets it to its context. */
extern const mring_transport_t mring_mpi_transport;

/* A private communicator of the context with the caller's ranks (for the back end's own collectives). */
MPI_Comm mring_ctx_comm(const mring_ctx_t *ctx);

/* The schedule of the context's last call (its traced events point into it). */
const mring_rank_sched_t *mring_ctx_schedule(const mring_ctx_t *ctx);

#endif
