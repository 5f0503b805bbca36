/*
 * mpi_pmpi_reuse.c - for test_pmpi.c: on 4 ranks, split MPI_COMM_WORLD into pairs, allreduce, free,
 * four times with alternating groupings ({0,1},{2,3} then {0,2},{1,3}).  MPI reuses freed
 * communicator handles, so the interposer must not reuse a context built for an earlier
 * communicator.  Prints "reuse: N wrong" on rank 0 (sum over ranks); exits 1 if N > 0.
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int r, P, bad = 0, total = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    for (int it = 0; P == 4 && it < 4; it++) {
        MPI_Comm pair;
        int color = it % 2 == 0 ? r / 2 : r % 2;
        double v[64], s[64];
        MPI_Comm_split(MPI_COMM_WORLD, color, r, &pair);
        for (int i = 0; i < 64; i++)
            v[i] = r + 1;
        MPI_Allreduce(v, s, 64, MPI_DOUBLE, MPI_SUM, pair);
        double expect = it % 2 == 0 ? (r / 2) * 4 + 3 : (r % 2) * 2 + 4; /* (a+1) + (b+1) of the pair */
        for (int i = 0; i < 64; i++)
            bad += s[i] != expect;
        MPI_Comm_free(&pair);
    }
    MPI_Reduce(&bad, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (r == 0)
        printf("reuse: %d wrong\n", P == 4 ? total : -1);
    MPI_Finalize();
    return total != 0 || P != 4;
}
