/*
 * libmring.h - multi-ring allreduce on MPI processes: the real executor's C API.
 *
 * The same schedules as the model and the simulator (model/algo.h) run through the same
 * interpreter (model/interp.h) over MPI_Isend/MPI_Irecv on a private copy (MPI_Comm_split) of the caller's
 * communicator, with host reduction kernels (model/dtype.h), or CUDA kernels for device buffers in a
 * build with CUDA (see mring_ctx_set_cuda_aware).
 *
 *   mring_ctx_t *ctx;
 *   mring_ctx_create(MPI_COMM_WORLD, &cfg, &ctx);          // cfg: algo, topo, rings, segment, dim_algo
 *   mring_allreduce(sendbuf, recvbuf, count, MRING_FLOAT32, MRING_SUM, ctx);   // or sendbuf = MPI_IN_PLACE
 *   mring_ctx_free(ctx);
 */
#ifndef MRING_LIBMRING_H
#define MRING_LIBMRING_H

#include "config.h"
#include "dtype.h"
#include "trace.h"

#include <mpi.h>
#include <stdint.h>

typedef struct mring_ctx mring_ctx_t;

/*
 * Create a context on comm (collective) for configuration cfg (config.h: algo, topo, rings,
 * segment, dim_algo); each call gives its own count and type.  cfg->topo.nranks must equal the size
 * of comm.  timeout_s > 0 makes
 * a call that does not finish in time abort the job (MPI_Abort) after printing the stuck operation.
 * Returns MPI_SUCCESS, or MPI_ERR_ARG with a one-line reason in err (the same on every rank).
 */
int mring_ctx_create(MPI_Comm comm, const mring_config_t *cfg, double timeout_s, mring_ctx_t **ctx, char *err,
                     size_t errlen);

/*
 * Allreduce count elements of type t with op (collective over the context's communicator).
 * sendbuf == MPI_IN_PLACE: recvbuf holds the input.  avg divides by P once at the end.  The result
 * is bitwise identical on every rank.  Returns MPI_SUCCESS, or an MPI error code: MPI_ERR_ARG for a
 * negative count or a segment below one element of t, MPI_ERR_TYPE for an unknown type (or one
 * without a CUDA kernel, longdouble and longdouble_int, on device buffers), MPI_ERR_OP for an unknown
 * op or one not defined on t (mring_op_valid); memory, transport.
 */
int mring_allreduce(const void *sendbuf, void *recvbuf, int64_t count, mring_dtype_t t, mring_redop_t op,
                    mring_ctx_t *ctx);

/* Device (CUDA) buffers are detected per call.  By default they are staged through pinned host
 * memory (Debian's MPICH is not CUDA-aware); on = 1 hands device pointers to MPI and reduces with
 * CUDA kernels (for a CUDA-aware MPI).  No effect in a build without CUDA. */
void mring_ctx_set_cuda_aware(mring_ctx_t *ctx, int on);

/*
 * The rank grid of comm (collective): ranks per node (MPI_Comm_split_type, MPI_COMM_TYPE_SHARED) x
 * nodes when every node holds as many ranks and ranks are numbered node by node, else the flat ring
 * (mring_topo_from_nodes).  Blocking collectives: call mring_comm_arrive first where a stopped peer
 * must not hang it.  Returns MPI_SUCCESS, or an MPI error code with a one-line reason in err.
 */
int mring_comm_topo(MPI_Comm comm, mring_topo_t *t, char *err, size_t errlen);

/*
 * Wait, at most timeout_s seconds, until every rank of comm has called this (collective): a
 * non-blocking barrier tested against a deadline, so that blocking collectives after it (a
 * communicator's duplication, the layout's split) cannot hang on a stopped peer.  Returns MPI_SUCCESS,
 * or MPI_ERR_OTHER with a one-line reason in err when the deadline passes (the barrier stays posted:
 * the caller is expected to abort).
 */
int mring_comm_arrive(MPI_Comm comm, double timeout_s, char *err, size_t errlen);

/*
 * Messages of more than `bytes` bytes (1..INT_MAX; default INT_MAX, since MPI counts are ints) go as
 * one element of a derived datatype of `bytes`-byte blocks and the rest, so no message size is
 * refused.  A smaller limit is for tests (the same path on small buffers).  Returns MPI_SUCCESS, or
 * MPI_ERR_ARG for a limit out of range.
 */
int mring_ctx_set_max_message(mring_ctx_t *ctx, int64_t bytes);

/*
 * The MPI datatype and op of an mring type and op, for comparing with MPI_Allreduce: float16 and
 * bfloat16 have none (MPI_DATATYPE_NULL); avg is MPI_SUM (scale the result by 1/P).
 */
MPI_Datatype mring_mpi_datatype(mring_dtype_t t);
MPI_Op mring_mpi_op(mring_redop_t op);

/*
 * Print one line (printf format, no newline) on stderr and end the whole job (MPI_Abort on
 * MPI_COMM_WORLD: an abort on a duplicate communicator leaves MPICH waiting for a stuck peer), after
 * a pause of 0.3 s so that the launcher forwards the line before it tears the job down.
 */
_Noreturn void mring_abort_job(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A function mring_abort_job calls just before it ends the job (NULL: none), e.g. to remove a half-written
 * output file: MPI_Abort runs no atexit handler. */
void mring_on_abort(void (*fn)(void));

/* The configuration the context was created with. */
const mring_config_t *mring_ctx_config(const mring_ctx_t *ctx);

/* The rank and size of the context's communicator. */
int mring_ctx_rank(const mring_ctx_t *ctx);
int mring_ctx_size(const mring_ctx_t *ctx);

/*
 * Trace the next call on ctx: it records when each op of this rank's schedule was posted and when it
 * was seen complete (seconds from the start of the call, which was at MPI_Wtime() = *t0).
 * mring_ctx_trace_events then gives them, until the next call on ctx or mring_ctx_free; the ops point
 * into the call's schedule.  Returns the number of events of the last traced call, or -1 when it had
 * none or its trace was incomplete (no memory).  Tracing costs a clock read and a small allocation per
 * message: trace one call, time the others.
 */
void mring_ctx_trace_next(mring_ctx_t *ctx);
int64_t mring_ctx_trace_events(const mring_ctx_t *ctx, const mring_trace_event_t **events, double *t0);

/*
 * Gather the last traced call's events of every rank (collective) and write them on rank 0 to path as
 * trace-event JSON (trace.h), the format of `mring simulate --trace`; count and t are the call's.  When
 * every rank runs on one host (one MPI_Get_processor_name), times are on that host's clock from the
 * earliest rank's start; otherwise (clocks of different hosts are not comparable) each rank's times are
 * from its own start, so trace a call that starts at a barrier.  Returns 0 on
 * every rank, or -1 on every rank with a reason in err on rank 0 (a rank without a complete trace, no
 * memory, the file cannot be written).
 */
int mring_trace_gather(const mring_ctx_t *ctx, int64_t count, mring_dtype_t t, const char *path, char *err,
                       size_t errlen);

void mring_ctx_free(mring_ctx_t *ctx);

#endif
