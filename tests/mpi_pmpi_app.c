/*
 * mpi_pmpi_app.c - a plain MPI program for the interposer test (test_pmpi.c): it knows nothing of
 * mring and calls MPI_Allreduce: a float sum it checks, a user-defined op (must pass through to
 * MPI), and 10,000 back-to-back small MPI_MAX calls.  Prints "app: N wrong"; exits 1 if N > 0.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
static void myop(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    for (int i = 0; i < *len; i++)
        ((float *)inout)[i] += ((float *)in)[i];
}
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv); int r, P; MPI_Comm_rank(MPI_COMM_WORLD, &r); MPI_Comm_size(MPI_COMM_WORLD, &P);
  int n = 1000; float *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b); long bad = 0;
  for (int i = 0; i < n; i++) a[i] = (float)((r + i) % 3);
  MPI_Allreduce(a, b, n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  for (int i = 0; i < n; i++) { float e = 0; for (int q = 0; q < P; q++) e += (q + i) % 3; bad += b[i] != e; }
  MPI_Op op; MPI_Op_create(myop, 1, &op); MPI_Allreduce(a, b, n, MPI_FLOAT, op, MPI_COMM_WORLD); MPI_Op_free(&op);
  for (int k = 0; k < 10000; k++) { long x = r + k, y; MPI_Allreduce(&x, &y, 1, MPI_LONG, MPI_MAX, MPI_COMM_WORLD); bad += y != P - 1 + k; }
  if (!r) printf("app: %ld wrong\n", bad);
  MPI_Finalize(); return bad != 0;
}
