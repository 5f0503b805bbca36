/*
 * smpi_ring_allreduce.c - one MPI_Allreduce of N floats per rank (sum), timed with MPI_Wtime.
 *
 * Not built by SCons: tests/bench_sim.c compiles it at run time with smpicc and runs it
 * under smpirun (SimGrid SMPI) to compare SMPI with `mring simulate`.
 *
 *   usage: prog N [sum|noop]
 *
 * Every rank leaves a barrier, records t0 = MPI_Wtime(), calls MPI_Allreduce once and
 * records t1.  Rank 0 prints one line:
 *
 *   smpi_ring_allreduce ranks=P count=N bytes=B op=OP time_s=T rank0_s=T0
 *
 * where T = max(t1) - min(t0) over all ranks (the collective from the first rank that
 * enters it to the last one that leaves it, as `mring simulate` reports) and T0 is rank
 * 0's own t1 - t0.  Under SMPI the buffers come from SMPI_SHARED_MALLOC: every rank maps
 * the same few physical pages, so 256 ranks of 100 MB fit in a few MB of memory (the
 * data are garbage; only the timing matters).  Built with a plain MPI, they are malloc'd.
 *
 * op: sum (default) is MPI_SUM; noop is a commutative user operation that does nothing.
 * SMPI runs a collective's reductions for real on the simulating CPU but charges them no
 * simulated time, so both give the same predicted time; noop leaves out that host work
 * (256 ranks x 100 MB of float sums: minutes, mostly page faults on the shared mappings),
 * so the wall time measures SMPI's simulation itself.
 */
#include <errno.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef SMPI_SHARED_MALLOC
#define BUF_ALLOC(n) SMPI_SHARED_MALLOC(n)
#define BUF_FREE(p) SMPI_SHARED_FREE(p)
#else
#define BUF_ALLOC(n) malloc(n)
#define BUF_FREE(p) free(p)
#endif

static void noop_op(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)in;
    (void)inout;
    (void)len;
    (void)type;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    char *end = NULL;
    errno = 0;
    long long n = argc > 1 ? strtoll(argv[1], &end, 10) : -1;
    const char *opname = argc > 2 ? argv[2] : "sum";
    int noop = strcmp(opname, "noop") == 0;
    if (argc < 2 || argc > 3 || errno || !end || *end || n <= 0 || n > 0x7fffffffLL ||
        (!noop && strcmp(opname, "sum") != 0)) {
        if (rank == 0)
            fprintf(stderr, "usage: %s N [sum|noop]   (N floats per rank, 1..2^31-1)\n", argv[0]);
        MPI_Finalize();
        return 2;
    }

    float *sbuf = BUF_ALLOC((size_t)n * sizeof(float));
    float *rbuf = BUF_ALLOC((size_t)n * sizeof(float));
    if (!sbuf || !rbuf) {
        fprintf(stderr, "rank %d: cannot allocate 2 x %lld floats\n", rank, n);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }

    MPI_Op op = MPI_SUM;
    if (noop)
        MPI_Op_create(noop_op, 1, &op);

    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    MPI_Allreduce(sbuf, rbuf, (int)n, MPI_FLOAT, op, MPI_COMM_WORLD);
    double t1 = MPI_Wtime();

    double first = 0, last = 0;
    MPI_Reduce(&t0, &first, 1, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
    MPI_Reduce(&t1, &last, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("smpi_ring_allreduce ranks=%d count=%lld bytes=%lld op=%s time_s=%.9f rank0_s=%.9f\n", size,
               n, n * (long long)sizeof(float), opname, last - first, t1 - t0);

    if (noop)
        MPI_Op_free(&op);
    BUF_FREE(sbuf);
    BUF_FREE(rbuf);
    MPI_Finalize();
    return 0;
}
