/*
 * mpi_pmpi_matrix.c - a plain MPI program for the interposer test (test_pmpi.c): MPI_Allreduce on
 * every predefined datatype of the MPI standard's reduction groups (MPI 4.0 section 6.9.2: C integer,
 * Fortran integer, floating point, logical, complex, byte, multi-language, and the MAXLOC/MINLOC
 * pairs) with every predefined op MPI defines on the group.  Inputs are small integers (0/1 for the
 * logical ops, single bits for the bitwise ones, tied values for MAXLOC/MINLOC), so every result is
 * exact whatever the order of reduction.  The oracle is MPI's own allreduce (PMPI_Allreduce, which
 * the interposer does not touch) on the same inputs: each result must equal it in its value bytes
 * (padding aside) and be identical on every rank.  Types the MPI library lacks (a null handle) are
 * skipped, and so are pairs it refuses (MPICH has no MPI_SUM on MPI_COMPLEX32).  Prints
 * "matrix: N calls, W wrong, S skipped"; exits 1 if W > 0.
 */
#include <mpi.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 13 /* elements per call */

enum kind { K_INT, K_REAL, K_COMPLEX, K_LOGICAL, K_BYTE, K_PAIR };

typedef struct {
    MPI_Datatype dt;
    const char *name;
    enum kind k;
    char vt, it;      /* pairs: value and index C types: 'f' float, 'd' double, 'L' long double, 'l' long, 's' short, 'i' int */
    size_t voff, ioff; /* pairs: offsets of value and index */
} type_t;

#define PAIR(DT, V, I, VT, IT) {DT, #DT, K_PAIR, V, I, offsetof(struct { VT v; IT i; }, v), offsetof(struct { VT v; IT i; }, i)}

static const type_t types[] = {
    {MPI_INT, "MPI_INT", K_INT, 0, 0, 0, 0}, {MPI_LONG, "MPI_LONG", K_INT, 0, 0, 0, 0},
    {MPI_SHORT, "MPI_SHORT", K_INT, 0, 0, 0, 0}, {MPI_UNSIGNED_SHORT, "MPI_UNSIGNED_SHORT", K_INT, 0, 0, 0, 0},
    {MPI_UNSIGNED, "MPI_UNSIGNED", K_INT, 0, 0, 0, 0}, {MPI_UNSIGNED_LONG, "MPI_UNSIGNED_LONG", K_INT, 0, 0, 0, 0},
    {MPI_LONG_LONG_INT, "MPI_LONG_LONG_INT", K_INT, 0, 0, 0, 0}, {MPI_LONG_LONG, "MPI_LONG_LONG", K_INT, 0, 0, 0, 0},
    {MPI_UNSIGNED_LONG_LONG, "MPI_UNSIGNED_LONG_LONG", K_INT, 0, 0, 0, 0},
    {MPI_SIGNED_CHAR, "MPI_SIGNED_CHAR", K_INT, 0, 0, 0, 0}, {MPI_UNSIGNED_CHAR, "MPI_UNSIGNED_CHAR", K_INT, 0, 0, 0, 0},
    {MPI_INT8_T, "MPI_INT8_T", K_INT, 0, 0, 0, 0}, {MPI_INT16_T, "MPI_INT16_T", K_INT, 0, 0, 0, 0},
    {MPI_INT32_T, "MPI_INT32_T", K_INT, 0, 0, 0, 0}, {MPI_INT64_T, "MPI_INT64_T", K_INT, 0, 0, 0, 0},
    {MPI_UINT8_T, "MPI_UINT8_T", K_INT, 0, 0, 0, 0}, {MPI_UINT16_T, "MPI_UINT16_T", K_INT, 0, 0, 0, 0},
    {MPI_UINT32_T, "MPI_UINT32_T", K_INT, 0, 0, 0, 0}, {MPI_UINT64_T, "MPI_UINT64_T", K_INT, 0, 0, 0, 0},
    /* Fortran integers and the multi-language types: no logical ops ('F' marks them below) */
    {MPI_INTEGER, "MPI_INTEGER", K_INT, 'F', 0, 0, 0}, {MPI_INTEGER1, "MPI_INTEGER1", K_INT, 'F', 0, 0, 0},
    {MPI_INTEGER2, "MPI_INTEGER2", K_INT, 'F', 0, 0, 0}, {MPI_INTEGER4, "MPI_INTEGER4", K_INT, 'F', 0, 0, 0},
    {MPI_INTEGER8, "MPI_INTEGER8", K_INT, 'F', 0, 0, 0}, {MPI_INTEGER16, "MPI_INTEGER16", K_INT, 'F', 0, 0, 0},
    {MPI_AINT, "MPI_AINT", K_INT, 'F', 0, 0, 0}, {MPI_OFFSET, "MPI_OFFSET", K_INT, 'F', 0, 0, 0},
    {MPI_COUNT, "MPI_COUNT", K_INT, 'F', 0, 0, 0},
    {MPI_FLOAT, "MPI_FLOAT", K_REAL, 0, 0, 0, 0}, {MPI_DOUBLE, "MPI_DOUBLE", K_REAL, 0, 0, 0, 0},
    {MPI_REAL, "MPI_REAL", K_REAL, 0, 0, 0, 0}, {MPI_DOUBLE_PRECISION, "MPI_DOUBLE_PRECISION", K_REAL, 0, 0, 0, 0},
    {MPI_LONG_DOUBLE, "MPI_LONG_DOUBLE", K_REAL, 0, 0, 0, 0}, {MPI_REAL4, "MPI_REAL4", K_REAL, 0, 0, 0, 0},
    {MPI_REAL8, "MPI_REAL8", K_REAL, 0, 0, 0, 0}, {MPI_REAL16, "MPI_REAL16", K_REAL, 0, 0, 0, 0},
    {MPI_LOGICAL, "MPI_LOGICAL", K_LOGICAL, 0, 0, 0, 0}, {MPI_C_BOOL, "MPI_C_BOOL", K_LOGICAL, 0, 0, 0, 0},
    {MPI_CXX_BOOL, "MPI_CXX_BOOL", K_LOGICAL, 0, 0, 0, 0},
    {MPI_COMPLEX, "MPI_COMPLEX", K_COMPLEX, 0, 0, 0, 0}, {MPI_C_COMPLEX, "MPI_C_COMPLEX", K_COMPLEX, 0, 0, 0, 0},
    {MPI_C_FLOAT_COMPLEX, "MPI_C_FLOAT_COMPLEX", K_COMPLEX, 0, 0, 0, 0},
    {MPI_C_DOUBLE_COMPLEX, "MPI_C_DOUBLE_COMPLEX", K_COMPLEX, 0, 0, 0, 0},
    {MPI_C_LONG_DOUBLE_COMPLEX, "MPI_C_LONG_DOUBLE_COMPLEX", K_COMPLEX, 0, 0, 0, 0},
    {MPI_DOUBLE_COMPLEX, "MPI_DOUBLE_COMPLEX", K_COMPLEX, 0, 0, 0, 0}, {MPI_COMPLEX8, "MPI_COMPLEX8", K_COMPLEX, 0, 0, 0, 0},
    {MPI_COMPLEX16, "MPI_COMPLEX16", K_COMPLEX, 0, 0, 0, 0}, {MPI_COMPLEX32, "MPI_COMPLEX32", K_COMPLEX, 0, 0, 0, 0},
    {MPI_CXX_FLOAT_COMPLEX, "MPI_CXX_FLOAT_COMPLEX", K_COMPLEX, 0, 0, 0, 0},
    {MPI_CXX_DOUBLE_COMPLEX, "MPI_CXX_DOUBLE_COMPLEX", K_COMPLEX, 0, 0, 0, 0},
    {MPI_CXX_LONG_DOUBLE_COMPLEX, "MPI_CXX_LONG_DOUBLE_COMPLEX", K_COMPLEX, 0, 0, 0, 0},
    {MPI_BYTE, "MPI_BYTE", K_BYTE, 0, 0, 0, 0},
    PAIR(MPI_FLOAT_INT, 'f', 'i', float, int),          PAIR(MPI_DOUBLE_INT, 'd', 'i', double, int),
    PAIR(MPI_LONG_INT, 'l', 'i', long, int),            PAIR(MPI_2INT, 'i', 'i', int, int),
    PAIR(MPI_SHORT_INT, 's', 'i', short, int),          PAIR(MPI_LONG_DOUBLE_INT, 'L', 'i', long double, int),
    PAIR(MPI_2REAL, 'f', 'f', float, float),            PAIR(MPI_2DOUBLE_PRECISION, 'd', 'd', double, double),
    PAIR(MPI_2INTEGER, 'i', 'i', int, int),
};

/* Store small integer v as C type c ('f', 'd', 'L', 'l', 's', 'i') or as a size-byte integer ('n'). */
static void put(unsigned char *p, char c, size_t size, long v)
{
    switch (c) {
    case 'f': { float x = (float)v; memcpy(p, &x, sizeof x); break; }
    case 'd': { double x = (double)v; memcpy(p, &x, sizeof x); break; }
    case 'L': { long double x = (long double)v; memcpy(p, &x, sizeof x); break; }
    case 'l': memcpy(p, &v, sizeof v); break;
    case 's': { short x = (short)v; memcpy(p, &x, sizeof x); break; }
    case 'i': { int x = (int)v; memcpy(p, &x, sizeof x); break; }
    default: memcpy(p, &v, size < sizeof v ? size : sizeof v); /* little-endian: the low bytes */
    }
}

/* The bytes of a value of C type c that hold it (x87 long double: 10 of 16). */
static size_t value_bytes(char c) { return c == 'L' ? 10 : c == 'd' || c == 'l' ? 8 : c == 's' ? 2 : 4; }

/* Rank r's element i for op; sz = MPI_Type_size, ext = extent (pairs). */
static void fill(unsigned char *e, const type_t *t, MPI_Op op, int sz, int r, int i)
{
    long v = op == MPI_PROD ? ((r + i) % 4 == 0 ? 2 : 1) : (r * 3 + i) % 5;
    if (op == MPI_LAND || op == MPI_LOR || op == MPI_LXOR)
        v = t->k == K_LOGICAL ? (r + i) % 3 != 0 : (r + i) % 3; /* integers: 0, 1, 2 (nonzero is true) */
    if (op == MPI_BAND || op == MPI_BOR || op == MPI_BXOR)
        v = 1L << ((r + i) % 8);
    switch (t->k) {
    case K_REAL: put(e, sz == 4 ? 'f' : sz == 8 ? 'd' : 'L', (size_t)sz, v); break;
    case K_COMPLEX: /* two reals: v and a second small part */
        put(e, sz == 8 ? 'f' : sz == 16 ? 'd' : 'L', (size_t)sz / 2, v);
        put(e + sz / 2, sz == 8 ? 'f' : sz == 16 ? 'd' : 'L', (size_t)sz / 2, op == MPI_PROD ? (r + i) % 5 == 1 : (r + i) % 3);
        break;
    case K_PAIR:
        put(e + t->voff, t->vt, 0, (r + i) % 3); /* ties: two ranks in three hold each value */
        put(e + t->ioff, t->it, 0, r);
        break;
    default: put(e, 'n', (size_t)sz, v); break;
    }
}

/* 1 if element a equals b in its value bytes */
static int same(const unsigned char *a, const unsigned char *b, const type_t *t, int sz)
{
    if (t->k == K_PAIR)
        return !memcmp(a + t->voff, b + t->voff, value_bytes(t->vt)) && !memcmp(a + t->ioff, b + t->ioff, value_bytes(t->it));
    if ((t->k == K_REAL && sz == 16) || (t->k == K_COMPLEX && sz == 32)) /* long double: its 10 value bytes */
        return !memcmp(a, b, 10) && (t->k == K_REAL || !memcmp(a + 16, b + 16, 10));
    return !memcmp(a, b, (size_t)sz);
}

static int defined(const type_t *t, MPI_Op op)
{
    if (op == MPI_MAXLOC || op == MPI_MINLOC)
        return t->k == K_PAIR;
    if (op == MPI_LAND || op == MPI_LOR || op == MPI_LXOR)
        return t->k == K_LOGICAL || (t->k == K_INT && t->vt != 'F');
    if (op == MPI_BAND || op == MPI_BOR || op == MPI_BXOR)
        return t->k == K_INT || t->k == K_BYTE;
    if (op == MPI_MIN || op == MPI_MAX)
        return t->k == K_INT || t->k == K_REAL;
    return t->k == K_INT || t->k == K_REAL || t->k == K_COMPLEX; /* SUM, PROD */
}

int main(int argc, char **argv)
{
    static const MPI_Op ops[] = {MPI_SUM, MPI_PROD, MPI_MIN, MPI_MAX, MPI_LAND, MPI_LOR,
                                 MPI_LXOR, MPI_BAND, MPI_BOR, MPI_BXOR, MPI_MAXLOC, MPI_MINLOC};
    int r, P;
    long calls = 0, bad = 0, skipped = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN); /* a pair MPI lacks is skipped, not fatal */
    for (size_t k = 0; k < sizeof types / sizeof *types; k++) {
        const type_t *t = &types[k];
        int sz;
        MPI_Aint lb, ext;
        if (t->dt == MPI_DATATYPE_NULL) {
            skipped++;
            continue;
        }
        MPI_Type_size(t->dt, &sz);
        MPI_Type_get_extent(t->dt, &lb, &ext);
        unsigned char *in = calloc(N, (size_t)ext), *got = calloc(N, (size_t)ext), *want = calloc(N, (size_t)ext);
        unsigned char *all = calloc((size_t)P * N, (size_t)ext);
        for (size_t o = 0; o < sizeof ops / sizeof *ops; o++) {
            if (!defined(t, ops[o]))
                continue;
            for (int i = 0; i < N; i++)
                fill(in + (size_t)i * ext, t, ops[o], sz, r, i);
            int rc = PMPI_Allreduce(in, want, N, t->dt, ops[o], MPI_COMM_WORLD), all_ok; /* MPI's own: the oracle */
            PMPI_Allreduce(&rc, &all_ok, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
            if (all_ok != MPI_SUCCESS) { /* a pair this MPI library does not implement */
                skipped++;
                continue;
            }
            if (MPI_Allreduce(in, got, N, t->dt, ops[o], MPI_COMM_WORLD) != MPI_SUCCESS)
                bad += N;
            PMPI_Allgather(got, N * (int)ext, MPI_BYTE, all, N * (int)ext, MPI_BYTE, MPI_COMM_WORLD);
            long w = 0;
            for (int i = 0; i < N; i++) {
                w += !same(got + (size_t)i * ext, want + (size_t)i * ext, t, sz);
                for (int q = 1; q < P; q++) /* every rank's bits are rank 0's, padding included */
                    w += memcmp(all + ((size_t)q * N + (size_t)i) * ext, all + (size_t)i * ext, (size_t)ext) != 0;
            }
            if (w && !r && bad < 8)
                printf("FAIL %s op %zu: %ld wrong\n", t->name, o, w);
            bad += w;
            calls++;
        }
        free(in), free(got), free(want), free(all);
    }
    if (!r)
        printf("matrix: %ld calls, %ld wrong, %ld skipped\n", calls, bad, skipped);
    MPI_Finalize();
    return bad != 0;
}
