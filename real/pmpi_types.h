/* pmpi_types.h - the MPI datatypes the interposer reduces (pmpi_types.c). */
#ifndef MRING_PMPI_TYPES_H
#define MRING_PMPI_TYPES_H

#include "dtype.h"

#include <mpi.h>
#include <stdint.h>

/*
 * mring's element type for MPI datatype dt, and how many such elements one dt holds (1 for a
 * predefined type, k for a contiguous derived type of k of them, nested contiguous types multiplied):
 * floating-point types of 4 or 8 bytes (C and Fortran names), signed integers of 4 or 8 bytes (C,
 * C99 fixed-width, Fortran, MPI_AINT, MPI_OFFSET, MPI_COUNT).  Returns 0, or -1 for any other type
 * (unsigned, 1- and 2-byte integers, complex, pair types, long double, types with holes), which the
 * interposer passes to MPI.
 */
int mring_pmpi_type(MPI_Datatype dt, mring_dtype_t *t, int64_t *per_element);

#endif
