/*
 * dtype.h - element types and reduction operators, and the host reduction kernels.
 *
 * Types: float32, float64, float16 (IEEE binary16), bfloat16, int32, int64.
 * Ops: sum, prod, min, max, avg.  avg reduces as sum and is scaled by 1/P once,
 * at the end (integers: truncating division).  min and max propagate NaN, and
 * treat -0 < +0, so that a op b == b op a bit for bit.  float16 and bfloat16
 * are computed through float32 and rounded back (round to nearest even), as
 * NCCL does.
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
    MRING_NTYPES
} mring_dtype_t;

typedef enum { MRING_SUM, MRING_PROD, MRING_MIN, MRING_MAX, MRING_AVG, MRING_NOPS } mring_redop_t;

/* Size of one element in bytes. */
size_t mring_dtype_size(mring_dtype_t t);
/* Canonical name ("float32", ...). */
const char *mring_dtype_name(mring_dtype_t t);
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

/*
 * dst[i] = dst[i] op src[i] for i < count, or src[i] op dst[i] when src_first
 * is nonzero (the order matters bit for bit only for NaN payloads; schedules
 * use it so that every rank evaluates the same expression).  avg acts as sum.
 * dst and src must not overlap.
 */
void mring_reduce(void *dst, const void *src, size_t count, mring_dtype_t t, mring_redop_t op,
                  int src_first);

/* avg epilogue: buf[i] /= nranks for i < count (through float32 for 16-bit types). */
void mring_scale_avg(void *buf, size_t count, mring_dtype_t t, int nranks);

/* bfloat16 and float16 conversions (round to nearest even; NaN stays NaN). */
float mring_bf16_to_float(uint16_t h);
uint16_t mring_float_to_bf16(float f);
float mring_f16_to_float(uint16_t h);
uint16_t mring_float_to_f16(float f);

#endif
