/* mpi_backend.c - the libmring API (see libmring.h): contexts, and calls that run a rank's schedule through
 * the interpreter on the MPI transport of mpi_transport.c. */
#include "libmring.h"
#include "mpi_ctx.h"

#include "algo.h"
#ifdef MRING_HAVE_CUDA
#include "cuda_reduce.h"
#endif

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

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

static void (*abort_hook)(void);

void mring_on_abort(void (*fn)(void)) { abort_hook = fn; }

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
    if (abort_hook)
        abort_hook();
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
    mring_transport_t tp = mring_mpi_transport;
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
 * from device memory straight to MPI with CUDA-aware MPI, else staged piece by piece (req_t, mpi_transport.c). */
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
