/*
 * pmpi_types.c - which MPI datatypes the interposer reduces, and as what (see pmpi_types.h).
 *
 * A predefined type maps to mring's element type by kind (floating point, signed integer) and size
 * (MPI_Type_size), so C, C99 fixed-width and Fortran named types alike go through: MPI_REAL,
 * MPI_REAL4 and MPI_FLOAT are float32; MPI_INTEGER is int32 or int64 as the compiler made it.
 * MPI_AINT, MPI_OFFSET and MPI_COUNT are signed integers in the MPI standard.  A contiguous
 * derived type (or a duplicate) of such a type, without holes, is that many elements of it.
 */
#include "pmpi_types.h"

#include <stddef.h>

enum { KIND_FLOAT, KIND_INT };

/* The predefined types of a signed integer or a real kind; size decides the element type. */
static int predefined(MPI_Datatype dt, int *kind)
{
    static const MPI_Datatype floats[] = {MPI_FLOAT, MPI_DOUBLE, MPI_REAL, MPI_DOUBLE_PRECISION, MPI_REAL4, MPI_REAL8};
    static const MPI_Datatype ints[] = {MPI_INT,      MPI_LONG,     MPI_LONG_LONG, MPI_LONG_LONG_INT, MPI_INT32_T,
                                        MPI_INT64_T,  MPI_INTEGER,  MPI_INTEGER4,  MPI_INTEGER8,      MPI_AINT,
                                        MPI_OFFSET,   MPI_COUNT};
    if (dt == MPI_DATATYPE_NULL)
        return 0;
    for (size_t i = 0; i < sizeof floats / sizeof *floats; i++)
        if (dt == floats[i])
            return *kind = KIND_FLOAT, 1;
    for (size_t i = 0; i < sizeof ints / sizeof *ints; i++)
        if (dt == ints[i])
            return *kind = KIND_INT, 1;
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

int mring_pmpi_type(MPI_Datatype dt, mring_dtype_t *t, int64_t *per_element)
{
    int kind, size, depth = 0;
    int64_t n = 1;
    MPI_Datatype cur = dt, inner;
    MPI_Aint lb, extent;
    while (!predefined(cur, &kind)) {
        int64_t k;
        if (depth++ > 8 || !contiguous_of(cur, &inner, &k)) {
            if (cur != dt)
                release(cur);
            return -1;
        }
        if (cur != dt)
            release(cur);
        cur = inner;
        n *= k;
    }
    if (PMPI_Type_size(cur, &size) != MPI_SUCCESS || PMPI_Type_get_extent(dt, &lb, &extent) != MPI_SUCCESS ||
        lb != 0 || (int64_t)extent != n * size) { /* holes or a resized type: not a run of elements */
        if (cur != dt)
            release(cur);
        return -1;
    }
    if (cur != dt)
        release(cur);
    if (kind == KIND_FLOAT && (size == 4 || size == 8))
        *t = size == 4 ? MRING_FLOAT32 : MRING_FLOAT64;
    else if (kind == KIND_INT && (size == 4 || size == 8))
        *t = size == 4 ? MRING_INT32 : MRING_INT64;
    else
        return -1;
    *per_element = n;
    return 0;
}
