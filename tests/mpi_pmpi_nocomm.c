/*
 * mpi_pmpi_nocomm.c - a plain MPI program for the interposer test (test_pmpi.c): with every
 * communicator id of the MPI library in use (MPI_Comm_dup until it fails, under MPI_ERRORS_RETURN),
 * the interposer cannot read a communicator's layout or make its own copy, so its calls go to MPI's
 * own allreduce; the results must still be exact, for a predefined type and for a contiguous derived
 * type (which goes to MPI as its base type).  Prints "nocomm: W wrong"; exits 1 if W > 0.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define N 12

int main(int argc, char **argv)
{
    int r, P, held = 0;
    long bad = 0;
    double a[N], b[N];
    MPI_Datatype three;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    MPI_Type_contiguous(3, MPI_DOUBLE, &three);
    MPI_Type_commit(&three);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm *held_comms = malloc(8192 * sizeof *held_comms);
    while (held < 8192 && MPI_Comm_dup(MPI_COMM_WORLD, &held_comms[held]) == MPI_SUCCESS)
        held++;
    for (int k = 0; k < 2; k++) { /* N doubles, then N / 3 of the contiguous type */
        for (int i = 0; i < N; i++)
            a[i] = r + i, b[i] = -1;
        if (MPI_Allreduce(a, b, k ? N / 3 : N, k ? three : MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD) != MPI_SUCCESS)
            bad += N;
        for (int i = 0; i < N; i++)
            bad += b[i] != (double)P * (P - 1) / 2 + (double)P * i;
    }
    while (held > 0)
        MPI_Comm_free(&held_comms[--held]);
    free(held_comms);
    MPI_Type_free(&three);
    if (!r)
        printf("nocomm: %ld wrong\n", bad);
    MPI_Finalize();
    return bad != 0;
}
