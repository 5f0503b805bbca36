/* pmpi_types.h - the MPI datatypes the interposer reduces (pmpi_types.c). */
#ifndef MRING_PMPI_TYPES_H
#define MRING_PMPI_TYPES_H

#include "dtype.h"

#include <mpi.h>
#include <stdint.h>

/*
 * mring's element type for MPI datatype dt, how many such elements one dt holds (1 for a predefined
 * type, k for a contiguous derived type of k of them, nested contiguous types multiplied), and the
 * ops MPI defines on dt's group (bit mask over mring_redop_t; MPI 4.0 section 6.9.2), and the
 * predefined type dt is made of (a call passed to MPI goes as per_element times as many of it: MPICH
 * refuses predefined ops on derived types).  Every
 * predefined reduction type maps (integers of 1 to 8 bytes signed and unsigned, C, fixed-width,
 * Fortran and multi-language names, C and Fortran logicals, MPI_BYTE, float and double and long
 * double, float and double complex, the MAXLOC/MINLOC pairs) but MPI_REAL16 and long double complex.
 * Returns 0, or -1 for those and any other type (holes, a resized type, a struct), which the
 * interposer passes to MPI.
 */
int mring_pmpi_type(MPI_Datatype dt, mring_dtype_t *t, int64_t *per_element, unsigned *mpi_ops, MPI_Datatype *base_dt);

#endif
