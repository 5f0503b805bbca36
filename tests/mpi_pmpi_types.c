/*
 * mpi_pmpi_types.c - a plain MPI program for the interposer test (test_pmpi.c): MPI_SUM and MPI_MAX on
 * the C, fixed-width and Fortran names of 4- and 8-byte reals and signed integers (MPI_AINT, MPI_OFFSET
 * and MPI_COUNT among them) and on contiguous derived types of them (nested, and a duplicate): MPICH
 * itself refuses predefined ops on derived types, mring reduces them as runs of elements.  Inputs are
 * small integers, so every sum is exact in every type; then MPI_UNSIGNED with MPI_MAX and MPI_BYTE with
 * MPI_BOR, and long double complex, which the interposer passes to MPI (mring has no such type).
 * Prints "types: N calls, W wrong"; exits 1 if W > 0.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 61 /* elements of the base type per call */

/* Element i of a buffer of the base type (kind 'f' real or 'i' signed integer, size 4 or 8 bytes). */
static double get(const void *buf, int i, char kind, int size)
{
    if (kind == 'f')
        return size == 4 ? ((const float *)buf)[i] : ((const double *)buf)[i];
    return size == 4 ? ((const int32_t *)buf)[i] : (double)((const int64_t *)buf)[i];
}

static void put(void *buf, int i, char kind, int size, int v)
{
    if (kind == 'f' && size == 4)
        ((float *)buf)[i] = (float)v;
    else if (kind == 'f')
        ((double *)buf)[i] = v;
    else if (size == 4)
        ((int32_t *)buf)[i] = v;
    else
        ((int64_t *)buf)[i] = v;
}

/* One SUM and one MAX of N base elements sent as count elements of dt; returns the wrong elements. */
static long check(MPI_Datatype dt, int count, char kind, int size, int r, int P)
{
    long bad = 0;
    void *a = calloc(N, 8), *b = calloc(N, 8);
    for (int op = 0; op < 2; op++) {
        for (int i = 0; i < N; i++)
            put(a, i, kind, size, (r * 7 + i) % 11 - 5);
        MPI_Allreduce(a, b, count, dt, op ? MPI_MAX : MPI_SUM, MPI_COMM_WORLD);
        for (int i = 0; i < N; i++) {
            double e = op ? -1e9 : 0;
            for (int q = 0; q < P; q++) {
                double v = (q * 7 + i) % 11 - 5;
                e = op ? (v > e ? v : e) : e + v;
            }
            bad += get(b, i, kind, size) != e;
        }
    }
    free(a);
    free(b);
    return bad;
}

int main(int argc, char **argv)
{
    static const struct {
        MPI_Datatype dt;
        char kind;
    } named[] = {{MPI_FLOAT, 'f'},   {MPI_DOUBLE, 'f'},    {MPI_REAL, 'f'},     {MPI_DOUBLE_PRECISION, 'f'},
                 {MPI_REAL4, 'f'},   {MPI_REAL8, 'f'},     {MPI_INT, 'i'},      {MPI_LONG, 'i'},
                 {MPI_LONG_LONG_INT, 'i'}, {MPI_INT32_T, 'i'}, {MPI_INT64_T, 'i'}, {MPI_INTEGER, 'i'},
                 {MPI_INTEGER4, 'i'}, {MPI_INTEGER8, 'i'}, {MPI_AINT, 'i'},    {MPI_OFFSET, 'i'},
                 {MPI_COUNT, 'i'}};
    int r, P, size;
    long bad = 0, calls = 0;
    MPI_Datatype c3, c3x, dup;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    for (size_t k = 0; k < sizeof named / sizeof *named; k++, calls += 2) {
        MPI_Type_size(named[k].dt, &size);
        bad += check(named[k].dt, N, named[k].kind, size, r, P);
    }
    /* 61 doubles as 1 x (contiguous of 61), then int32 as 61 of a duplicate of MPI_INT32_T */
    MPI_Type_contiguous(N, MPI_DOUBLE, &c3);
    MPI_Type_commit(&c3);
    MPI_Type_contiguous(1, c3, &c3x); /* nested */
    MPI_Type_commit(&c3x);
    MPI_Type_dup(MPI_INT32_T, &dup);
    bad += check(c3, 1, 'f', 8, r, P) + check(c3x, 1, 'f', 8, r, P) + check(dup, N, 'i', 4, r, P);
    calls += 6;
    /* an unsigned type, now reduced by mring */
    unsigned ua[3] = {(unsigned)r, 4000000000u, 1}, ub[3] = {0};
    MPI_Allreduce(ua, ub, 3, MPI_UNSIGNED, MPI_MAX, MPI_COMM_WORLD);
    bad += ub[0] != (unsigned)(P - 1) || ub[1] != 4000000000u || ub[2] != 1;
    unsigned char ca[2] = {(unsigned char)(1u << r % 8), 0x0F}, cb[2] = {0};
    MPI_Allreduce(ca, cb, 2, MPI_BYTE, MPI_BOR, MPI_COMM_WORLD);
    bad += cb[0] != (unsigned char)((1u << (P < 8 ? P : 8)) - 1) || cb[1] != 0x0F;
    calls += 2;
    /* a type mring has no element type for (long double complex): passes to MPI (MPICH refuses
     * predefined ops on derived types of its own, so a type with holes cannot be the example) */
    long double _Complex la[2] = {r, 2}, lb[2] = {0};
    MPI_Allreduce(la, lb, 2, MPI_C_LONG_DOUBLE_COMPLEX, MPI_SUM, MPI_COMM_WORLD);
    bad += lb[0] != (long double)P * (P - 1) / 2 || lb[1] != 2.0L * P;
    calls++;
    MPI_Type_free(&c3x);
    MPI_Type_free(&c3);
    MPI_Type_free(&dup);
    if (!r)
        printf("types: %ld calls, %ld wrong\n", calls, bad);
    MPI_Finalize();
    return bad != 0;
}
