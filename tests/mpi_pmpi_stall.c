/*
 * mpi_pmpi_stall.c - a plain MPI program whose rank 1 stops (sleeps 30 s) before an allreduce: before
 * the communicator's first one ("first") or before the second ("later").  Under the interposer with
 * MRING_TIMEOUT the job must end early with a line naming the stuck call (test_pmpi.c); without a
 * timeout it would sit for the 30 s.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int r, later = argc > 1 && !strcmp(argv[1], "later");
    float a[64] = {0}, b[64];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    if (later)
        MPI_Allreduce(a, b, 64, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    if (r == 1)
        sleep(30);
    MPI_Allreduce(a, b, 64, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    if (!r)
        printf("stall: finished\n");
    MPI_Finalize();
    return 0;
}
