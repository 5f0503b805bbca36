/*
 * pmpi_types.c - which MPI datatypes the interposer reduces, and as what (see pmpi_types.h).
 *
 * Every predefined type belongs to one of the MPI standard's groups (MPI 4.0 section 6.9.2: C
 * integer, Fortran integer, floating point, logical, complex, byte, multi-language, and the
 * MAXLOC/MINLOC pairs); the group says which ops MPI defines on it, and the group and the size
 * (MPI_Type_size) say which mring type holds it, so C, C99 fixed-width and Fortran names alike go
 * through: MPI_REAL, MPI_REAL4 and MPI_FLOAT are float32; MPI_INTEGER is int32 or int64 as the
 * compiler made it; Fortran LOGICAL is an integer of its size whose true is 1 (gfortran's, and
 * MPICH's MPII_F_TRUE).  A contiguous derived type (or a duplicate) of such a type, without holes,
 * is that many elements of it.
 */
#include "libmring.h"
#include "pmpi_types.h"

#include <stddef.h>

/* ops by bit (1 << mring_redop_t) */
#define OP(o) (1u << MRING_##o)
#define ARITH (OP(SUM) | OP(PROD))
#define ORDER (OP(MIN) | OP(MAX))
#define LOGIC (OP(LAND) | OP(LOR) | OP(LXOR))
#define BITS (OP(BAND) | OP(BOR) | OP(BXOR))
#define LOC (OP(MAXLOC) | OP(MINLOC))

enum group { G_REAL, G_LDOUBLE, G_SINT, G_UINT, G_FINT, G_LOGICAL, G_COMPLEX, G_BYTE, G_PAIR };

/* the ops MPI defines on each group */
static const unsigned group_ops[] = {
    [G_REAL] = ARITH | ORDER,    [G_LDOUBLE] = ARITH | ORDER, [G_SINT] = ARITH | ORDER | LOGIC | BITS,
    [G_UINT] = ARITH | ORDER | LOGIC | BITS, [G_FINT] = ARITH | ORDER | BITS, [G_LOGICAL] = LOGIC,
    [G_COMPLEX] = ARITH,         [G_BYTE] = BITS,             [G_PAIR] = LOC,
};

typedef struct {
    MPI_Datatype dt;
    enum group g;
    mring_dtype_t pair; /* G_PAIR only */
} named_t;

/* The predefined types, by group.  MPI_CHAR is not a reduction type in MPI; REAL16 and the long double
 * complex types have no mring type (binary128, 32 bytes): those go to MPI. */
static int lookup(MPI_Datatype dt, named_t *out)
{
    static const named_t named[] = {
        {MPI_FLOAT, G_REAL, 0},           {MPI_DOUBLE, G_REAL, 0},           {MPI_REAL, G_REAL, 0},
        {MPI_DOUBLE_PRECISION, G_REAL, 0}, {MPI_REAL4, G_REAL, 0},          {MPI_REAL8, G_REAL, 0},
        {MPI_LONG_DOUBLE, G_LDOUBLE, 0},
        {MPI_INT, G_SINT, 0},             {MPI_LONG, G_SINT, 0},             {MPI_LONG_LONG, G_SINT, 0},
        {MPI_LONG_LONG_INT, G_SINT, 0},   {MPI_SHORT, G_SINT, 0},            {MPI_SIGNED_CHAR, G_SINT, 0},
        {MPI_INT8_T, G_SINT, 0},          {MPI_INT16_T, G_SINT, 0},          {MPI_INT32_T, G_SINT, 0},
        {MPI_INT64_T, G_SINT, 0},
        {MPI_UNSIGNED, G_UINT, 0},        {MPI_UNSIGNED_LONG, G_UINT, 0},    {MPI_UNSIGNED_LONG_LONG, G_UINT, 0},
        {MPI_UNSIGNED_SHORT, G_UINT, 0},  {MPI_UNSIGNED_CHAR, G_UINT, 0},    {MPI_UINT8_T, G_UINT, 0},
        {MPI_UINT16_T, G_UINT, 0},        {MPI_UINT32_T, G_UINT, 0},         {MPI_UINT64_T, G_UINT, 0},
        {MPI_INTEGER, G_FINT, 0},         {MPI_INTEGER1, G_FINT, 0},         {MPI_INTEGER2, G_FINT, 0},
        {MPI_INTEGER4, G_FINT, 0},        {MPI_INTEGER8, G_FINT, 0},         {MPI_AINT, G_FINT, 0},
        {MPI_OFFSET, G_FINT, 0},          {MPI_COUNT, G_FINT, 0},
        {MPI_C_BOOL, G_LOGICAL, 0},       {MPI_CXX_BOOL, G_LOGICAL, 0},      {MPI_LOGICAL, G_LOGICAL, 0},
        {MPI_C_COMPLEX, G_COMPLEX, 0},    {MPI_C_FLOAT_COMPLEX, G_COMPLEX, 0}, {MPI_C_DOUBLE_COMPLEX, G_COMPLEX, 0},
        {MPI_COMPLEX, G_COMPLEX, 0},      {MPI_DOUBLE_COMPLEX, G_COMPLEX, 0}, {MPI_COMPLEX8, G_COMPLEX, 0},
        {MPI_COMPLEX16, G_COMPLEX, 0},    {MPI_CXX_FLOAT_COMPLEX, G_COMPLEX, 0},
        {MPI_CXX_DOUBLE_COMPLEX, G_COMPLEX, 0},
        {MPI_BYTE, G_BYTE, 0},
        {MPI_2INTEGER, G_PAIR, MRING_2INT}, /* the other pairs: mring_mpi_datatype's, below */
    };
    if (dt == MPI_DATATYPE_NULL)
        return 0;
    for (size_t i = 0; i < sizeof named / sizeof *named; i++)
        if (dt == named[i].dt)
            return *out = named[i], 1;
    for (int t = 0; t < MRING_NTYPES; t++)
        if (mring_dtype_class((mring_dtype_t)t) == MRING_CLASS_PAIR && mring_mpi_datatype((mring_dtype_t)t) == dt)
            return *out = (named_t){dt, G_PAIR, (mring_dtype_t)t}, 1;
    return 0;
}

/* mring's type for a predefined type of group g and size bytes; -1 if none */
static int by_size(const named_t *n, int size, mring_dtype_t *t)
{
    static const mring_dtype_t sint[9] = {[1] = MRING_INT8, [2] = MRING_INT16, [4] = MRING_INT32, [8] = MRING_INT64};
    static const mring_dtype_t uint[9] = {[1] = MRING_UINT8, [2] = MRING_UINT16, [4] = MRING_UINT32, [8] = MRING_UINT64};
    switch (n->g) {
    case G_REAL: *t = size == 4 ? MRING_FLOAT32 : MRING_FLOAT64; return size == 4 || size == 8 ? 0 : -1;
    case G_LDOUBLE: *t = MRING_LONGDOUBLE; return 0;
    case G_COMPLEX: *t = size == 8 ? MRING_COMPLEX64 : MRING_COMPLEX128; return size == 8 || size == 16 ? 0 : -1;
    case G_PAIR: *t = n->pair; return 0;
    case G_BYTE: *t = MRING_UINT8; return 0;
    default: break;
    }
    if (size != 1 && size != 2 && size != 4 && size != 8)
        return -1;
    /* a C logical is bool; a Fortran LOGICAL of 4 or 8 bytes reduces as a signed integer of its size */
    *t = n->g == G_LOGICAL && size == 1 ? MRING_BOOL : n->g == G_UINT ? uint[size] : sint[size];
    return 0;
}

/* A contiguous type (or a duplicate) of one inner type: the inner type and how many of it. */
static int contiguous_of(MPI_Datatype dt, MPI_Datatype *inner, int64_t *n)
{
    int ni, na, nd, combiner, ints[1];
    MPI_Aint addrs[1];
    if (PMPI_Type_get_envelope(dt, &ni, &na, &nd, &combiner) != MPI_SUCCESS ||
        (combiner != MPI_COMBINER_CONTIGUOUS && combiner != MPI_COMBINER_DUP) || ni > 1 || na > 0 || nd != 1)
        return 0;
    if (PMPI_Type_get_contents(dt, ni, na, nd, ints, addrs, inner) != MPI_SUCCESS)
        return 0;
    *n = combiner == MPI_COMBINER_CONTIGUOUS ? ints[0] : 1;
    return 1;
}

/* A type MPI_Type_get_contents returned: a derived one is a new handle the caller frees (the standard's
 * rule for get_contents), a predefined one is not. */
static void release(MPI_Datatype dt)
{
    int ni, na, nd, combiner;
    if (PMPI_Type_get_envelope(dt, &ni, &na, &nd, &combiner) == MPI_SUCCESS && combiner != MPI_COMBINER_NAMED)
        PMPI_Type_free(&dt);
}

int mring_pmpi_type(MPI_Datatype dt, mring_dtype_t *t, int64_t *per_element, unsigned *mpi_ops, MPI_Datatype *base_dt)
{
    int size, rc = -1, depth = 0;
    int64_t n = 1;
    named_t base;
    MPI_Datatype cur = dt, inner;
    MPI_Aint lb, extent;
    while (!lookup(cur, &base)) {
        int64_t k;
        int ok = depth++ <= 8 && contiguous_of(cur, &inner, &k);
        if (cur != dt)
            release(cur);
        if (!ok)
            return -1;
        cur = inner;
        n *= k;
    }
    /* the whole type must be n elements back to back: no holes, not resized */
    if (PMPI_Type_size(cur, &size) == MPI_SUCCESS && by_size(&base, size, t) == 0 &&
        PMPI_Type_get_extent(dt, &lb, &extent) == MPI_SUCCESS && lb == 0 &&
        (int64_t)extent == n * (int64_t)mring_dtype_size(*t) &&
        (base.g == G_PAIR || (size_t)size == mring_dtype_size(*t) || base.g == G_LDOUBLE)) {
        *per_element = n;
        *mpi_ops = group_ops[base.g];
        *base_dt = base.dt;
        rc = 0;
    }
    if (cur != dt)
        release(cur);
    return rc;
}
