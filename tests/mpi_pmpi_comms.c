/*
 * mpi_pmpi_comms.c - a plain MPI program for the interposer test (test_pmpi.c): allreduces on
 * MPI_COMM_WORLD, on sub-communicators of several sizes (halves by rank parity, thirds, MPI_COMM_SELF,
 * a duplicate), in place and of count 0, every result checked exactly (integer-valued doubles and
 * ints: every sum is exact).  Prints "comms: N wrong"; exits 1 if N > 0.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

/* Sum over comm of (world rank + i) % 5 for i < n, checked against the members' world ranks. */
static long check_sum(MPI_Comm comm, int n, int in_place)
{
    int wr, P;
    long bad = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &wr);
    MPI_Comm_size(comm, &P);
    int *members = malloc((size_t)P * sizeof *members);
    double *a = malloc((size_t)(n + 1) * sizeof *a), *b = malloc((size_t)(n + 1) * sizeof *b);
    MPI_Allgather(&wr, 1, MPI_INT, members, 1, MPI_INT, comm);
    for (int i = 0; i < n; i++)
        a[i] = b[i] = (double)((wr + i) % 5);
    if (in_place)
        MPI_Allreduce(MPI_IN_PLACE, b, n, MPI_DOUBLE, MPI_SUM, comm);
    else
        MPI_Allreduce(a, b, n, MPI_DOUBLE, MPI_SUM, comm);
    for (int i = 0; i < n; i++) {
        double e = 0;
        for (int q = 0; q < P; q++)
            e += (double)((members[q] + i) % 5);
        bad += b[i] != e;
    }
    free(members);
    free(a);
    free(b);
    return bad;
}

int main(int argc, char **argv)
{
    MPI_Comm half, third, dup;
    int r, P;
    long bad = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    MPI_Comm_split(MPI_COMM_WORLD, r % 2, r, &half);
    MPI_Comm_split(MPI_COMM_WORLD, r % 3, -r, &third); /* reversed rank order */
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    for (int n = 0; n <= 1001; n += 1001) { /* count 0, and an awkward count */
        bad += check_sum(MPI_COMM_WORLD, n, 0) + check_sum(half, n, 0) + check_sum(third, n, 1);
        bad += check_sum(MPI_COMM_SELF, n, 0) + check_sum(dup, n, 1);
    }
    int x = r + 1, y = 0;
    MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_MAX, half);
    bad += y != (P - 1 - (P - 1 - r % 2) % 2) + 1; /* the largest rank of this parity, + 1 */
    MPI_Comm_free(&half);
    MPI_Comm_free(&third);
    MPI_Comm_free(&dup);
    if (!r)
        printf("comms: %ld wrong\n", bad);
    MPI_Finalize();
    return bad != 0;
}
