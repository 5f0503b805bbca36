/*
 * mpi_pmpi_errors.c - a plain MPI program for the interposer test (test_pmpi.c): a call that fails
 * inside mring goes to the communicator's error handler.  The failure is a real one: an allreduce of
 * 2^22 elements of a contiguous type of 2^20 doubles (32 TiB), whose scratch space cannot be
 * allocated; the buffers are never touched, because mring sizes its scratch before it moves data.
 *
 *   mpi_pmpi_errors return   MPI_ERRORS_RETURN on a duplicate of MPI_COMM_WORLD, then a handler of
 *                            the program's own: each call returns an error of class MPI_ERR_NO_MEM,
 *                            the handler runs once per call with that code; afterwards a normal call
 *                            on the same communicator still gives the exact sum; MPI_COMM_NULL, a
 *                            send buffer that is the receive buffer and a NULL send buffer get MPI's
 *                            own errors.  Prints
 *                            "errors: class ok, handler 1, after ok, refused args ok".
 *   mpi_pmpi_errors fatal    the default handler (MPI_ERRORS_ARE_FATAL): the job ends with one line
 *                            naming the call; "not reached" is never printed.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static int handled, handled_code;

static void handler(MPI_Comm *comm, int *code, ...)
{
    (void)comm;
    handled++;
    handled_code = *code;
}

/* the 32 TiB call: returns its code */
static int huge_call(MPI_Comm comm)
{
    double a[1] = {0}, b[1] = {0};
    MPI_Datatype big;
    MPI_Type_contiguous(1 << 20, MPI_DOUBLE, &big);
    MPI_Type_commit(&big);
    int rc = MPI_Allreduce(a, b, 1 << 22, big, MPI_SUM, comm);
    MPI_Type_free(&big);
    return rc;
}

int main(int argc, char **argv)
{
    int r, P, cls = -1;
    MPI_Comm comm;
    MPI_Errhandler eh;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    if (argc > 1 && !strcmp(argv[1], "fatal")) {
        huge_call(MPI_COMM_WORLD);
        printf("errors: not reached\n");
        MPI_Finalize();
        return 0;
    }
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    /* arguments MPI refuses go to MPI, which raises its own error: MPI_COMM_NULL (the error handler of
     * MPI_COMM_WORLD: set to return here), a receive buffer that is the send buffer, a NULL send buffer */
    double s2[2] = {1, 2};
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int null_ok = MPI_Allreduce(s2, s2 + 1, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_NULL) != MPI_SUCCESS;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    null_ok &= MPI_Allreduce(s2, s2, 2, MPI_DOUBLE, MPI_SUM, comm) != MPI_SUCCESS && s2[0] == 1 && s2[1] == 2;
    /* a NULL send buffer (not MPI_IN_PLACE): the interposer read through it (SIGSEGV) */
    null_ok &= MPI_Allreduce(NULL, s2, 2, MPI_DOUBLE, MPI_SUM, comm) != MPI_SUCCESS && s2[0] == 1 && s2[1] == 2;
    int rc = huge_call(comm);
    MPI_Error_class(rc, &cls);
    int class_ok = rc != MPI_SUCCESS && cls == MPI_ERR_NO_MEM;
    MPI_Comm_create_errhandler(handler, &eh);
    MPI_Comm_set_errhandler(comm, eh);
    rc = huge_call(comm);
    int handler_ok = handled == 1 && handled_code == rc && rc != MPI_SUCCESS;
    double x[5] = {1, 2, 3, 4, 5}, y[5];
    int after_ok = MPI_Allreduce(x, y, 5, MPI_DOUBLE, MPI_SUM, comm) == MPI_SUCCESS;
    for (int i = 0; i < 5; i++)
        after_ok &= y[i] == (i + 1) * P;
    if (!r)
        printf("errors: class %s, handler %d, after %s, refused args %s\n", class_ok ? "ok" : "WRONG",
               handler_ok ? handled : -1, after_ok ? "ok" : "WRONG", null_ok ? "ok" : "WRONG");
    MPI_Errhandler_free(&eh);
    MPI_Comm_free(&comm);
    MPI_Finalize();
    return !(class_ok && handler_ok && after_ok && null_ok);
}
