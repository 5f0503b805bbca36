/*
 * bench.c - mring-bench: time and check allreduce on MPI processes, nccl-tests style.
 * Launched as `mpiexec -n P build/bin/mring-bench [flags]`; see --help.
 */
#include "algo.h"
#include "bench_args.h"
#include "bench_check.h"
#include "bench_percall.h"
#include "libmring.h"
#include "wallclock.h"
#ifdef MRING_HAVE_CUDA
#include "cuda_reduce.h"
#endif

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void finalize_hook(int status)
{
    (void)status;
    MPI_Finalize();
}

/* One --alternate configuration: its context and its rows' fields. */
typedef struct alt {
    mring_ctx_t *ctx;
    mring_row_t row;
    char topo[64], rings[64], desc[16384];
} alt_t;

typedef struct run {
    const bench_t *b;
    mring_ctx_t *ctx;
    MPI_Comm comm;
    mring_dtype_t t;
    int rank, P;
    bench_percall_t *pc; /* --per-call: every timed call's start and duration */
    alt_t *alt;          /* b->nalt alternate configurations (--alternate) */
} run_t;

/* Configuration k's context: 0 the main one, k the k-th --alternate. */
static mring_ctx_t *ctx_of(const run_t *r, int k) { return k ? r->alt[k - 1].ctx : r->ctx; }

static int call(const run_t *r, int k, const void *in, void *out, int64_t count)
{
    if (r->b->mpi) {
        int rc = MPI_Allreduce(in, out, (int)count, mring_mpi_datatype(r->t), mring_mpi_op(r->b->op), r->comm);
        if (r->b->op == MRING_AVG)
            mring_scale_avg(out, (size_t)count, r->t, r->P);
        return rc;
    }
    return mring_allreduce(in, out, count, r->t, r->b->op, ctx_of(r, k));
}

/* A barrier that gives the core away while it waits (mring_comm_arrive: MPI_Ibarrier tested, sched_yield
 * between tests); past its deadline the job aborts naming WHERE.  The deadline is not one call's --timeout:
 * a peer may still be in the calls before it (the warm-up's and CALLS timed ones), each bounded by --timeout
 * (a call past it aborts the job, naming the stuck operation), plus 60 s for the work between them (filling
 * and checking buffers).
 * MPI_Barrier spins: with more ranks than cores (the 2-core testbed's 8 ranks), the ranks already in it
 * held the cores the last one needed to finish its warm-up, and it left the barrier up to 24 ms after them
 * (2026-12-07, 2x2x2, 4 chunks at 64 KiB: the first timed call 10-28 ms where the others took 3.6-4.8 ms);
 * after the timed calls, ranks done with their last call and spinning in the blocking collectives that
 * follow held the cores the others needed for theirs (the last call 14-17 ms). */
static void arrive(const run_t *r, int calls, const char *where)
{
    char err[160];
    double deadline_s = r->b->timeout * (r->b->warmup + calls + 1) + 60.0;
    if (mring_comm_arrive(r->comm, deadline_s, err, sizeof err) != MPI_SUCCESS) {
        fprintf(stderr, "mring-bench: rank %d: barrier %s: %s\n", r->rank, where, err);
        MPI_Abort(r->comm, 1);
    }
}

/* mine: seconds per call on this rank -> *t combined over ranks as -a says, *tmin and *tmax. */
static void combine(const run_t *r, double mine, double *t, double *tmin, double *tmax)
{
    double sum;
    MPI_Allreduce(&mine, tmin, 1, MPI_DOUBLE, MPI_MIN, r->comm);
    MPI_Allreduce(&mine, tmax, 1, MPI_DOUBLE, MPI_MAX, r->comm);
    MPI_Allreduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, r->comm);
    MPI_Bcast(&mine, 1, MPI_DOUBLE, 0, r->comm);
    *t = r->b->average == 0 ? mine : r->b->average == 1 ? sum / r->P : r->b->average == 2 ? *tmin : *tmax;
}

/* --min-time: the timed calls of each configuration at this size, -n or as many more as fill --min-time at
 * pace_s (this rank's seconds per call in its fastest warm-up round); the slowest rank's pace, so that every
 * rank makes as many calls.  At most 2^24. */
static int calls_to_fill(const run_t *r, double pace_s)
{
    double slowest;
    MPI_Allreduce(&pace_s, &slowest, 1, MPI_DOUBLE, MPI_MAX, r->comm);
    double want = slowest > 0 ? ceil(r->b->min_time / slowest) : r->b->iters;
    return want > r->b->iters ? (int)fmin(want, 1 << 24) : r->b->iters;
}

/* Seconds per call of each configuration k (0 the main one, then the --alternate ones) on this rank,
 * combined over ranks as -a says into t[k], tmin[k], tmax[k].  --barrier 1 times each call alone after a
 * barrier (OSU Micro-Benchmarks' osu_allreduce: MPI_Barrier between calls, each timed); 0 times the calls
 * back to back (nccl-tests' all_reduce_perf), and one configuration's block as a whole.  With alternates
 * each round of calls runs every configuration once, starting at configuration (round mod count), and
 * each call is timed alone.  With --per-call every call is stamped too (wall clock, before and after it)
 * and the stamps written once the calls are done. */
static void timed(const run_t *r, const void *in, void *out, int64_t count, double *t, double *tmin, double *tmax)
{
    int n = r->b->iters, nc = 1 + r->b->nalt;
    double pace = INFINITY; /* the fastest warm-up round's seconds per call: the first ones open connections */
    for (int i = 0; i < r->b->warmup; i++) {
        double w0 = MPI_Wtime();
        for (int j = 0; j < nc; j++)
            call(r, (i + j) % nc, in, out, count);
        pace = fmin(pace, (MPI_Wtime() - w0) / nc);
    }
    if (r->b->min_time > 0)
        n = calls_to_fill(r, pace);
    double mine[1 + BENCH_MAX_ALT] = {0};
    arrive(r, n, "before the timed calls");
    double *stamps = r->pc ? malloc(2 * (size_t)n * (size_t)nc * sizeof *stamps) : NULL;
    if (r->pc && !stamps) {
        fprintf(stderr, "mring-bench: --per-call: out of memory for %d calls\n", n * nc);
        MPI_Abort(r->comm, 1); /* one rank's failure: the others would wait in a collective */
    }
    double t0 = MPI_Wtime();
    for (int i = 0; i < n; i++)
        for (int j = 0; j < nc; j++) {
            int k = (i + j) % nc;
            double *s = stamps ? stamps + 2 * (size_t)n * (size_t)k : NULL; /* k's starts, then its ends */
            if (r->b->barrier) /* each call alone, from a barrier (OSU's osu_allreduce) */
                arrive(r, n, "before a timed call (--barrier 1)");
            double c0 = MPI_Wtime();
            if (s)
                s[i] = mring_wall_s();
            call(r, k, in, out, count);
            if (s)
                s[n + i] = mring_wall_s();
            mine[k] += MPI_Wtime() - c0;
        }
    if (!r->b->barrier && nc == 1) /* back to back (nccl-tests): the block's time */
        mine[0] = MPI_Wtime() - t0;
    arrive(r, n, "after the timed calls"); /* before the blocking collectives below */
    for (int k = 0; stamps && k < nc; k++)
        if (bench_percall_rows(r->pc, r->comm, count * (int64_t)mring_dtype_size(r->t), in == MPI_IN_PLACE, k, n,
                               stamps + 2 * (size_t)n * (size_t)k))
            cli_fail(NULL, "--per-call %s: writing it failed", r->b->per_call);
    free(stamps);
    for (int k = 0; k < nc; k++)
        combine(r, mine[k] / n, &t[k], &tmin[k], &tmax[k]);
}

/* The buffers of one size: host copies (guarded) and, with --device cuda, the device buffers the
 * calls use; the checks always read host copies. */
typedef struct bufs {
    guarded_t in, out;
    void *din, *dout;
} bufs_t;

static void *in_ptr(bufs_t *b) { return b->din ? b->din : b->in.data; }
static void *out_ptr(bufs_t *b) { return b->dout ? b->dout : b->out.data; }

/* Copy host -> device (to_dev) or device -> host for in (which = 0) or out (1); no-op on the host. */
static void sync_buffers(bufs_t *b, int which, int to_dev)
{
#ifdef MRING_HAVE_CUDA
    guarded_t *g = which ? &b->out : &b->in;
    void *d = which ? b->dout : b->din;
    if (d && (to_dev ? mring_cuda_copy(d, g->data, g->bytes) : mring_cuda_copy(g->data, d, g->bytes)))
        cli_fail(NULL, "cudaMemcpy of %zu bytes failed", g->bytes);
#else
    (void)b, (void)which, (void)to_dev;
#endif
}

/* One checked call: wrong elements over all ranks, plus ranks whose result differs from rank 0's bits,
 * plus broken guards or a changed send buffer. */
static int64_t checked(const run_t *r, int k, bufs_t *bb, int64_t count, int inplace)
{
    guarded_t *in = &bb->in, *out = &bb->out;
    size_t bytes = out->bytes;
    int64_t wrong = 0, total;
    bench_fill(inplace ? out->data : in->data, r->t, r->b->op, r->rank, r->P, count);
    if (!inplace)
        memset(out->data, 0xA5, bytes); /* poison: an element never written shows up */
    uint64_t before = inplace ? 0 : bench_hash(in->data, bytes), h;
    sync_buffers(bb, 0, 1);
    sync_buffers(bb, 1, 1);
    if (call(r, k, inplace ? MPI_IN_PLACE : in_ptr(bb), out_ptr(bb), count) != MPI_SUCCESS)
        wrong += count ? count : 1;
    sync_buffers(bb, 0, 0);
    sync_buffers(bb, 1, 0);
    wrong += bench_wrong(out->data, r->t, r->b->op, r->P, count);
    wrong += !guarded_intact(out) + (!inplace && (!guarded_intact(in) || bench_hash(in->data, bytes) != before));
    h = bench_hash(out->data, bytes);
    uint64_t *all = r->rank == 0 ? malloc((size_t)r->P * sizeof *all) : NULL;
    MPI_Gather(&h, 1, MPI_UINT64_T, all, 1, MPI_UINT64_T, 0, r->comm);
    for (int i = 1; all && i < r->P; i++)
        wrong += all[i] != all[0]; /* not bitwise identical to rank 0 */
    free(all);
    MPI_Allreduce(&wrong, &total, 1, MPI_INT64_T, MPI_SUM, r->comm);
    return total;
}

/* Count agreement first: a rank with a different count is an error naming both. */
static void same_count(const run_t *r, int64_t count)
{
    int64_t lo, hi;
    MPI_Allreduce(&count, &lo, 1, MPI_INT64_T, MPI_MIN, r->comm);
    MPI_Allreduce(&count, &hi, 1, MPI_INT64_T, MPI_MAX, r->comm);
    if (lo != hi)
        cli_fail(NULL, "ranks disagree on the count: %lld and %lld elements", (long long)lo, (long long)hi);
}

/* With --tuning: the context for this size's configuration (rebuilt when it changes). */
static void tuned_context(run_t *r, mring_row_t *row, int64_t size, char *topo, char *rings)
{
    static char desc[16384];
    mring_config_t c;
    char err[512];
    if (mring_tuning_pick(r->b->tuning, r->P, size, &c, err, sizeof err))
        cli_usage_error(NULL, "--tuning %s: %s", r->b->tuning_file, err);
    if (r->ctx && mring_config_equal(mring_ctx_config(r->ctx), &c))
        return;
    mring_ctx_free(r->ctx);
    if (mring_ctx_create(MPI_COMM_WORLD, &c, r->b->timeout, &r->ctx, err, sizeof err) != MPI_SUCCESS)
        cli_usage_error(NULL, "--tuning %s: %s", r->b->tuning_file, err);
    row->config = mring_config_describe(&c, desc, sizeof desc);
    if (r->rank == 0 && r->b->fmt == MRING_FMT_TABLE) /* the whole configuration, dim-algo and segment too */
        printf("# from %lld bytes: %s\n", (long long)size, row->config);
    row->algo = mring_algo_name(c.algo);
    mring_topo_format(&c.topo, topo, 64);
    mring_rings_format(&c, rings, 64);
}

/* --trace: one call from a barrier, traced, its timeline written on rank 0. */
static void traced_call(const run_t *r, bufs_t *bb, int64_t count)
{
    char err[512];
    arrive(r, r->b->iters, "before the traced call");
    mring_ctx_trace_next(r->ctx);
    if (call(r, 0, in_ptr(bb), out_ptr(bb), count) != MPI_SUCCESS)
        cli_fail(NULL, "--trace %s: the traced call failed", r->b->trace);
    if (mring_trace_gather(r->ctx, count, r->t, r->b->trace, err, sizeof err))
        cli_fail(NULL, "--trace %s: %s", r->b->trace, err);
}

static int64_t size_rows(run_t *r, mring_report_t *rep, mring_row_t *row, int64_t size, int last)
{
    int64_t count = size / (int64_t)mring_dtype_size(r->t), bad = 0;
    bufs_t bb = {0};
    if (r->b->tuning)
        tuned_context(r, row, size, (char *)row->topo, (char *)row->rings);
    for (int k = 0; k <= r->b->nalt; k++)
        if (ctx_of(r, k))
            mring_ctx_set_cuda_aware(ctx_of(r, k), r->b->cuda_aware);
    same_count(r, count);
    if (guarded_alloc(&bb.in, (size_t)size) || guarded_alloc(&bb.out, (size_t)size))
        cli_fail(NULL, "out of memory for %lld bytes", (long long)size);
#ifdef MRING_HAVE_CUDA
    if (r->b->device && (!(bb.din = mring_cuda_dev_alloc((size_t)size)) || !(bb.dout = mring_cuda_dev_alloc((size_t)size))))
        cli_fail(NULL, "cudaMalloc of %lld bytes failed", (long long)size);
#endif
    for (int inplace = 0; inplace < 2; inplace++) {
        double t[1 + BENCH_MAX_ALT], tmin[1 + BENCH_MAX_ALT], tmax[1 + BENCH_MAX_ALT];
        bench_fill(bb.in.data, r->t, r->b->op, r->rank, r->P, count);
        memcpy(bb.out.data, bb.in.data, (size_t)size);
        sync_buffers(&bb, 0, 1);
        sync_buffers(&bb, 1, 1);
        timed(r, inplace ? MPI_IN_PLACE : in_ptr(&bb), out_ptr(&bb), count, t, tmin, tmax);
        if (r->b->trace && last && !inplace)
            traced_call(r, &bb, count);
        for (int k = 0; k <= r->b->nalt; k++) {
            mring_row_t *w = k ? &r->alt[k - 1].row : row;
            w->count = count;
            w->size = size;
            w->inplace = inplace;
            w->time_us = t[k] * 1e6;
            w->time_min_us = tmin[k] * 1e6;
            w->time_max_us = tmax[k] * 1e6;
            w->wrong = r->b->check ? checked(r, k, &bb, count, inplace) : 0;
            bad += w->wrong;
            if (r->rank == 0 && r->b->nalt && r->b->fmt == MRING_FMT_TABLE) /* which configuration the row is */
                printf("# %s\n", w->config);
            if (r->rank == 0 && mring_report_row(rep, w))
                cli_fail(NULL, "writing the report failed");
        }
    }
    guarded_free(&bb.in);
    guarded_free(&bb.out);
#ifdef MRING_HAVE_CUDA
    mring_cuda_dev_free(bb.din);
    mring_cuda_dev_free(bb.dout);
#endif
    return bad;
}

/* The --alternate configurations into r->alt: each read with the main one's data type and, when it names
 * none, its grid; its context; its rows' fields (like's otherwise).  Bad flags, or a configuration the job
 * cannot run, exit 2 naming the --alternate string. */
static void alternates(run_t *r, bench_t *b, const mring_row_t *like)
{
    char err[512], cmd[600];
    if (b->nalt && !(r->alt = calloc((size_t)b->nalt, sizeof *r->alt)))
        cli_fail(NULL, "out of memory");
    for (int k = 0; k < b->nalt; k++) {
        alt_t *a = &r->alt[k];
        cli_conf_t *cc = &b->alt_cc[k];
        mring_config_t c;
        mring_dtype_t t;
        snprintf(cmd, sizeof cmd, "--alternate '%s'", b->alt_s[k]); /* the messages' prefix */
        if (!cc->topo_s)
            cc->topo_s = b->cc.topo_s;
        cc->type_s = b->cc.type_s;
        cli_conf_build(cmd, cc, 0, NULL, &c, &t);
        if (mring_ctx_create(r->comm, &c, b->timeout, &a->ctx, err, sizeof err) != MPI_SUCCESS)
            cli_usage_error(cmd, "%s", err);
        a->row = *like;
        a->row.algo = mring_algo_name(c.algo);
        a->row.topo = mring_topo_format(&c.topo, a->topo, sizeof a->topo);
        a->row.rings = mring_rings_format(&c, a->rings, sizeof a->rings);
        a->row.config = mring_config_describe(&c, a->desc, sizeof a->desc);
    }
}

int main(int argc, char **argv)
{
    static bench_t b;
    run_t r = {&b, NULL, MPI_COMM_WORLD, MRING_FLOAT32, 0, 1, NULL, NULL};
    mring_config_t c;
    char err[512], topo[64], rings[64], own_s[64], title[512];
    static char desc[16384];
    int64_t sizes[4096], bad = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &r.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &r.P);
    int rank0 = r.rank == 0;
    cli_set_program("mring-bench", !rank0, finalize_hook);
    bench_parse(argc, argv, rank0, &b);
    if (!b.cc.topo_s) { /* the job's own grid, as the interposer's */
        mring_topo_t own;
        if (mring_comm_topo(MPI_COMM_WORLD, &own, err, sizeof err) != MPI_SUCCESS)
            cli_fail(NULL, "%s", err);
        b.cc.topo_s = mring_topo_format(&own, own_s, sizeof own_s);
    }
    cli_conf_build(NULL, &b.cc, 0, NULL, &c, &r.t);
    bench_check(&b, r.t);
    if (b.tuning_file && (b.mpi || !(b.tuning = mring_tuning_load(b.tuning_file, err, sizeof err))))
        cli_usage_error(NULL, "%s", b.mpi ? "--tuning and --algo mpi both given; expected one" : err);
    if (!b.mpi && !b.tuning && mring_ctx_create(MPI_COMM_WORLD, &c, b.timeout, &r.ctx, err, sizeof err) != MPI_SUCCESS)
        cli_usage_error(NULL, "%s", err);
    int n = cli_sweep_sizes(NULL, &b.sweep, (int64_t)mring_dtype_size(r.t), sizes, 4096);
    if (!b.mpi && !b.tuning)
        cli_sizes_check(NULL, &c, mring_dtype_size(r.t), sizes, n);
    for (int i = 0; b.tuning && i < n; i++) { /* every size has a configuration, before any output */
        mring_config_t tc;
        if (mring_tuning_pick(b.tuning, r.P, sizes[i], &tc, err, sizeof err))
            cli_usage_error(NULL, "--tuning %s: %s", b.tuning_file, err);
    }
    mring_row_t row = {.source = "real", .algo = b.mpi ? "mpi" : mring_algo_name(c.algo),
                       .topo = mring_topo_format(&c.topo, topo, sizeof topo), .rings = mring_rings_format(&c, rings, sizeof rings),
                       .ranks = r.P, .type = mring_dtype_name(r.t), .redop = mring_redop_name(b.op), .real = 1,
                       .config = b.mpi ? NULL : mring_config_describe(&c, desc, sizeof desc)};
    alternates(&r, &b, &row);
    bench_title(&b, r.P, &c, row.algo, topo, rings, title, sizeof title);
    if (b.per_call && !(r.pc = bench_percall_open(b.per_call, MPI_COMM_WORLD, err, sizeof err)))
        cli_usage_error(NULL, "%s", err);
    mring_report_t *rep = rank0 ? mring_report_open(stdout, b.fmt, 1, title) : NULL;
    if (rank0 && !rep)
        cli_fail(NULL, "out of memory");
    for (int i = 0; i < n; i++)
        bad += size_rows(&r, rep, &row, sizes[i], i == n - 1);
    if (rank0) {
        if (b.fmt == MRING_FMT_TABLE)
            printf("# Out of bounds values : %lld %s\n", (long long)bad, bad ? "FAILED" : "OK");
        if (mring_report_close(rep))
            cli_fail(NULL, "writing the report failed");
    }
    if (r.pc && bench_percall_close(r.pc, err, sizeof err))
        cli_fail(NULL, "%s", err);
    mring_ctx_free(r.ctx);
    for (int k = 0; k < b.nalt; k++) {
        mring_ctx_free(r.alt[k].ctx);
        free(b.alt_words[k]);
    }
    free(r.alt);
    mring_tuning_free(b.tuning);
    MPI_Finalize();
    return bad ? 1 : 0;
}
