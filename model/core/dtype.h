/*
 * dtype.h - element types and reduction operators, and the host reduction kernels.
 *
 * Types, by class (mring_dtype_class):
 *   float    float32, float64, float16 (IEEE binary16), bfloat16, longdouble (C long double);
 *   integer  int8, int16, int32, int64 (signed), uint8, uint16, uint32, uint64 (unsigned);
 *   bool     C _Bool stored as one byte (0 or 1; any nonzero byte reads as true);
 *   complex  complex64, complex128 (C float/double _Complex: real part, then imaginary);
 *   pair     the value-index pairs of MAXLOC/MINLOC, laid out as the C struct {value; index}
 *            (MPI_FLOAT_INT and its kin): float_int, double_int, long_int, 2int, short_int,
 *            longdouble_int, and the Fortran pairs 2float (2REAL) and 2double (2DOUBLE_PRECISION).
 * Ops, and the classes they are defined on (mring_op_valid; MPI 4.0 section 6.9.2's table, plus
 * avg, as in NCCL):
 *   sum, prod, avg        float, integer, complex
 *   min, max              float, integer
 *   land, lor, lxor       integer, bool (nonzero is true; the result is 0 or 1)
 *   band, bor, bxor       integer
 *   maxloc, minloc        pair (MPI's rule: the larger (smaller) value; on equal values the smaller
 *                         index; values that do not compare (NaN) keep the left operand's value,
 *                         with the smaller index)
 * avg reduces as sum and is scaled by 1/P once, at the end (integers: truncating division).  min and
 * max propagate NaN, and treat -0 < +0, so that a op b == b op a bit for bit; sum and prod of two NaNs
 * give the one first in byte order, quieted, not the hardware's first operand, so that a op b == b op a
 * there too (every rank of recursive doubling computes the result itself).  float16 and bfloat16
 * are computed through float32 and rounded back (round to nearest even), as NCCL does.  Integer sum
 * and prod wrap modulo 2^bits.  A reduced element of a type with padding (longdouble, pairs) has
 * its padding bytes zeroed, so results are identical bit for bit on every rank.
 */
#ifndef MRING_DTYPE_H
#define MRING_DTYPE_H

#include <stddef.h>
#include <stdint.h>

typedef enum {
    MRING_FLOAT32,
    MRING_FLOAT64,
    MRING_FLOAT16,
    MRING_BFLOAT16,
    MRING_INT32,
    MRING_INT64,
    MRING_INT8,
    MRING_UINT8,
    MRING_INT16,
    MRING_UINT16,
    MRING_UINT32,
    MRING_UINT64,
    MRING_BOOL,
    MRING_COMPLEX64,
    MRING_COMPLEX128,
    MRING_LONGDOUBLE,
    MRING_FLOAT_INT,
    MRING_DOUBLE_INT,
    MRING_LONG_INT,
    MRING_2INT,
    MRING_SHORT_INT,
    MRING_LONGDOUBLE_INT,
    MRING_2FLOAT,
    MRING_2DOUBLE,
    MRING_NTYPES
} mring_dtype_t;

typedef enum {
    MRING_SUM,
    MRING_PROD,
    MRING_MIN,
    MRING_MAX,
    MRING_AVG,
    MRING_LAND,
    MRING_LOR,
    MRING_LXOR,
    MRING_BAND,
    MRING_BOR,
    MRING_BXOR,
    MRING_MAXLOC,
    MRING_MINLOC,
    MRING_NOPS
} mring_redop_t;

typedef enum {
    MRING_CLASS_FLOAT,
    MRING_CLASS_INT, /* signed */
    MRING_CLASS_UINT,
    MRING_CLASS_BOOL,
    MRING_CLASS_COMPLEX,
    MRING_CLASS_PAIR
} mring_dclass_t;

/* The types and ops mring had first (float32..int64; sum..avg): the CLI's and the tests' default sets. */
#define MRING_NTYPES_BASIC (MRING_INT64 + 1)
#define MRING_NOPS_BASIC (MRING_AVG + 1)

/* The pair types' layouts: MPI's MPI_FLOAT_INT etc. are these C structs (MPI 4.0 section 6.9.4). */
#define MRING_PAIR(NAME, VT, IT) typedef struct { VT v; IT i; } NAME
MRING_PAIR(mring_float_int_t, float, int);
MRING_PAIR(mring_double_int_t, double, int);
MRING_PAIR(mring_long_int_t, long, int);
MRING_PAIR(mring_2int_t, int, int);
MRING_PAIR(mring_short_int_t, short, int);
MRING_PAIR(mring_longdouble_int_t, long double, int);
MRING_PAIR(mring_2float_t, float, float);
MRING_PAIR(mring_2double_t, double, double);
#undef MRING_PAIR

/* Size of one element in bytes (sizeof the C type, padding included). */
size_t mring_dtype_size(mring_dtype_t t);
/* Canonical name ("float32", ...). */
const char *mring_dtype_name(mring_dtype_t t);
/* Class of a type (see above). */
mring_dclass_t mring_dtype_class(mring_dtype_t t);
/* Parse a type name; accepts the nccl-tests aliases float/double/half/bfloat16/int/int64.
 * Returns 0 or -1 if unknown. */
int mring_dtype_parse(const char *s, mring_dtype_t *t);
/* Name of an op ("sum", ...). */
const char *mring_redop_name(mring_redop_t op);
/* Parse an op name. Returns 0 or -1 if unknown. */
int mring_redop_parse(const char *s, mring_redop_t *op);
/* Comma-separated list of all type (op) names, for help and error messages. */
const char *mring_dtype_list(void);
const char *mring_redop_list(void);
/* 1 if op is defined on type t (the table above), else 0. */
int mring_op_valid(mring_dtype_t t, mring_redop_t op);
/* The types op is defined on, in words ("integer types"), for error messages. */
const char *mring_op_domain(mring_redop_t op);

/*
 * dst[i] = dst[i] op src[i] for i < count, or src[i] op dst[i] when src_first
 * is nonzero (the order matters bit for bit only for NaN payloads and maxloc ties
 * of unordered values; schedules use it so that every rank evaluates the same
 * expression).  avg acts as sum.  dst and src must not overlap; (t, op) must be
 * valid (mring_op_valid), else dst is left as it is.
 */
void mring_reduce(void *dst, const void *src, size_t count, mring_dtype_t t, mring_redop_t op,
                  int src_first);

/* avg epilogue: buf[i] /= nranks for i < count (through float32 for 16-bit types; complex: both parts). */
void mring_scale_avg(void *buf, size_t count, mring_dtype_t t, int nranks);

/* bfloat16 and float16 conversions (round to nearest even; NaN stays NaN). */
float mring_bf16_to_float(uint16_t h);
uint16_t mring_float_to_bf16(float f);
float mring_f16_to_float(uint16_t h);
uint16_t mring_float_to_f16(float f);

#endif
