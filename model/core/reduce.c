/* reduce.c - the host reduction kernels: mring_reduce and mring_scale_avg (semantics in dtype.h). */
#include "dtype.h"

#include <complex.h>
#include <float.h>
#include <math.h>
#include <stddef.h>
#include <string.h>

/* min/max on floating point: NaN propagates (left operand's NaN first), and -0 counts below +0, so
 * a op b == b op a whenever at most one is NaN.  One pair per C type (double would round long double). */
#define FP_MINMAX(SUF, T)                                                                         \
    static inline T fp_min##SUF(T a, T b)                                                         \
    {                                                                                             \
        if (a != a) return a;                                                                     \
        if (b != b) return b;                                                                     \
        if (a == b) return signbit(a) ? a : b;                                                    \
        return a < b ? a : b;                                                                     \
    }                                                                                             \
    static inline T fp_max##SUF(T a, T b)                                                         \
    {                                                                                             \
        if (a != a) return a;                                                                     \
        if (b != b) return b;                                                                     \
        if (a == b) return signbit(a) ? b : a;                                                    \
        return a > b ? a : b;                                                                     \
    }
FP_MINMAX(f, float)
FP_MINMAX(, double)
FP_MINMAX(l, long double)

/* The bytes of a long double that hold its value: x87 extended precision keeps 10 of its 16. */
#if LDBL_MANT_DIG == 64 && (defined(__x86_64__) || defined(__i386__))
#define LD_VALUE_BYTES 10
#else
#define LD_VALUE_BYTES sizeof(long double)
#endif

/* sum and prod on floating point, with a result that does not depend on the operands' order: the
 * hardware returns the first operand's NaN when both are NaN (x86 SSE and x87 alike), and a compiler
 * may swap the operands of x + y, so where every rank computes a sum itself (recursive doubling)
 * NaNs of different payloads would differ between ranks.  Both NaN: the one first in byte order,
 * quieted (p + p).  One NaN, or an invalid operation (inf - inf), is already order-free. */
#define FP_ARITH(SUF, T, BYTES)                                                                   \
    static inline T pick_nan##SUF(T x, T y, T r)                                                  \
    {                                                                                             \
        if (r == r || x == x || y == y)                                                           \
            return r;                                                                             \
        T p = memcmp(&x, &y, BYTES) > 0 ? x : y;                                                  \
        return p + p;                                                                             \
    }                                                                                             \
    static inline T add##SUF(T x, T y) { return pick_nan##SUF(x, y, x + y); }                     \
    static inline T mul##SUF(T x, T y) { return pick_nan##SUF(x, y, x * y); }
FP_ARITH(f, float, sizeof(float))
FP_ARITH(, double, sizeof(double))
FP_ARITH(l, long double, LD_VALUE_BYTES)

/* Store v with its padding bytes zeroed, so that every rank's result has the same bits. */
static inline void store_ld(long double *p, long double v)
{
    memset(p, 0, sizeof *p);
    memcpy(p, &v, LD_VALUE_BYTES);
}

#define STORE(p, v) (*(p) = (v))

/* One loop per (type, op): x = left operand, y = right operand; the compiler vectorises the
 * arithmetic loops.  SET(p, v) stores a result. */
#define LOOP_SET(T, SET, EXPR)                                                                    \
    do {                                                                                          \
        T *d_ = (T *)dst;                                                                         \
        const T *s_ = (const T *)src;                                                             \
        if (src_first)                                                                            \
            for (size_t i = 0; i < count; i++) {                                                  \
                T x = s_[i], y = d_[i];                                                           \
                SET(&d_[i], (EXPR));                                                              \
            }                                                                                     \
        else                                                                                      \
            for (size_t i = 0; i < count; i++) {                                                  \
                T x = d_[i], y = s_[i];                                                           \
                SET(&d_[i], (EXPR));                                                              \
            }                                                                                     \
    } while (0)
#define LOOP(T, EXPR) LOOP_SET(T, STORE, EXPR)
#define LOOP_LD(T, EXPR) LOOP_SET(T, store_ld, EXPR)

/* sum or prod (OP: + or *) of float or double, at full speed: each block of 256 results is computed
 * into a buffer in one order (without a NaN, IEEE sum and product do not depend on it); a block
 * without a NaN result is stored as it is, one with a NaN is computed again by the SLOW function per
 * element, in the order src_first says (dst is still unchanged then). */
#define LOOP_ARITH(T, OP, SLOW)                                                                   \
    do {                                                                                          \
        T *d_ = (T *)dst, r_[256];                                                                \
        const T *s_ = (const T *)src;                                                             \
        for (size_t b0 = 0; b0 < count; b0 += 256) {                                              \
            size_t n_ = count - b0 < 256 ? count - b0 : 256;                                      \
            int nan_ = 0;                                                                         \
            for (size_t i = 0; i < n_; i++) {                                                     \
                r_[i] = d_[b0 + i] OP s_[b0 + i];                                                 \
                nan_ |= r_[i] != r_[i];                                                           \
            }                                                                                     \
            if (!nan_)                                                                            \
                memcpy(d_ + b0, r_, n_ * sizeof(T));                                              \
            else                                                                                  \
                for (size_t i = b0; i < b0 + n_; i++)                                             \
                    d_[i] = src_first ? SLOW(s_[i], d_[i]) : SLOW(d_[i], s_[i]);                  \
        }                                                                                         \
    } while (0)

/* float32 and float64: sum and prod through LOOP_ARITH, min and max as FLOAT_OPS */
#define FAST_FLOAT_OPS(T, SUF)                                                                    \
    switch (op) {                                                                                 \
    case MRING_SUM:                                                                               \
    case MRING_AVG: LOOP_ARITH(T, +, add##SUF); break;                                            \
    case MRING_PROD: LOOP_ARITH(T, *, mul##SUF); break;                                           \
    default: FLOAT_OPS(LOOP, SUF, T) break; /* min, max */                                        \
    }

#define LOOP16(TOF, FROMF, EXPR)                                                                  \
    do {                                                                                          \
        uint16_t *d_ = (uint16_t *)dst;                                                           \
        const uint16_t *s_ = (const uint16_t *)src;                                               \
        for (size_t i = 0; i < count; i++) {                                                      \
            float x = TOF(src_first ? s_[i] : d_[i]);                                             \
            float y = TOF(src_first ? d_[i] : s_[i]);                                             \
            d_[i] = FROMF(EXPR);                                                                  \
        }                                                                                         \
    } while (0)

/* Real types: LOOPM(args..., expression); SUF names the type's add, mul, min and max (f, none, l). */
#define FLOAT_OPS(LOOPM, SUF, ...)                                                                \
    switch (op) {                                                                                 \
    case MRING_SUM:                                                                               \
    case MRING_AVG: LOOPM(__VA_ARGS__, add##SUF(x, y)); break;                                    \
    case MRING_PROD: LOOPM(__VA_ARGS__, mul##SUF(x, y)); break;                                   \
    case MRING_MIN: LOOPM(__VA_ARGS__, fp_min##SUF(x, y)); break;                                 \
    case MRING_MAX: LOOPM(__VA_ARGS__, fp_max##SUF(x, y)); break;                                 \
    default: break;                                                                               \
    }

/* Integers of type T; U is an unsigned type at least as wide as int, in which sum and prod wrap. */
#define INT_OPS(T, U)                                                                             \
    switch (op) {                                                                                 \
    case MRING_SUM:                                                                               \
    case MRING_AVG: LOOP(T, (T)((U)x + (U)y)); break;                                             \
    case MRING_PROD: LOOP(T, (T)((U)x * (U)y)); break;                                            \
    case MRING_MIN: LOOP(T, x < y ? x : y); break;                                                \
    case MRING_MAX: LOOP(T, x > y ? x : y); break;                                                \
    case MRING_LAND: LOOP(T, (T)(x && y)); break;                                                 \
    case MRING_LOR: LOOP(T, (T)(x || y)); break;                                                  \
    case MRING_LXOR: LOOP(T, (T)(!x != !y)); break;                                               \
    case MRING_BAND: LOOP(T, (T)((U)x & (U)y)); break;                                            \
    case MRING_BOR: LOOP(T, (T)((U)x | (U)y)); break;                                             \
    case MRING_BXOR: LOOP(T, (T)((U)x ^ (U)y)); break;                                            \
    default: break;                                                                               \
    }

/* The bytes of a pair's value that hold it (a long double's padding is not), for put_pair. */
#define VALUE_BYTES(v) _Generic((v), long double: LD_VALUE_BYTES, default: sizeof(v))

/* Write value v and index ix into *d, a pair of type T, with every padding byte zero: assembled in
 * bytes, since a store to a member leaves the struct's padding unspecified (C11 6.2.6.1p6). */
#define PUT_PAIR(T, D, V, IX)                                                                     \
    do {                                                                                          \
        unsigned char b_[sizeof(T)];                                                              \
        __typeof__(((T *)0)->v) v_ = (V);                                                         \
        __typeof__(((T *)0)->i) i_ = (IX);                                                        \
        memset(b_, 0, sizeof b_);                                                                 \
        memcpy(b_ + offsetof(T, v), &v_, VALUE_BYTES(v_));                                        \
        memcpy(b_ + offsetof(T, i), &i_, sizeof i_);                                              \
        memcpy((D), b_, sizeof b_);                                                               \
    } while (0)

/* MAXLOC (max = 1) or MINLOC of pair type T, MPI's rule (dtype.h). */
#define PAIR_LOOP(T)                                                                              \
    do {                                                                                          \
        T *d_ = (T *)dst;                                                                         \
        const T *s_ = (const T *)src;                                                             \
        int max_ = op == MRING_MAXLOC;                                                            \
        for (size_t i = 0; i < count; i++) {                                                      \
            T x = src_first ? s_[i] : d_[i], y = src_first ? d_[i] : s_[i];                       \
            int xwins = max_ ? x.v > y.v : x.v < y.v, ywins = max_ ? y.v > x.v : y.v < x.v;       \
            PUT_PAIR(T, &d_[i], ywins ? y.v : x.v, xwins ? x.i : ywins ? y.i : x.i < y.i ? x.i : y.i); \
        }                                                                                         \
    } while (0)

static void reduce_pair(void *dst, const void *src, size_t count, mring_dtype_t t, mring_redop_t op, int src_first)
{
    switch (t) {
    case MRING_FLOAT_INT: PAIR_LOOP(mring_float_int_t); break;
    case MRING_DOUBLE_INT: PAIR_LOOP(mring_double_int_t); break;
    case MRING_LONG_INT: PAIR_LOOP(mring_long_int_t); break;
    case MRING_2INT: PAIR_LOOP(mring_2int_t); break;
    case MRING_SHORT_INT: PAIR_LOOP(mring_short_int_t); break;
    case MRING_LONGDOUBLE_INT: PAIR_LOOP(mring_longdouble_int_t); break;
    case MRING_2FLOAT: PAIR_LOOP(mring_2float_t); break;
    case MRING_2DOUBLE: PAIR_LOOP(mring_2double_t); break;
    default: break;
    }
}

/* Complex sum and product (C99 arithmetic, Annex G), in both orders of evaluation. */
#define COMPLEX_OPS(T)                                                                            \
    switch (op) {                                                                                 \
    case MRING_SUM:                                                                               \
    case MRING_AVG: LOOP(T, x + y); break;                                                        \
    case MRING_PROD: LOOP(T, x * y); break;                                                       \
    default: break;                                                                               \
    }

void mring_reduce(void *dst, const void *src, size_t count, mring_dtype_t t, mring_redop_t op, int src_first)
{
    if (!mring_op_valid(t, op))
        return;
    switch (t) {
    case MRING_FLOAT32: FAST_FLOAT_OPS(float, f) break;
    case MRING_FLOAT64: FAST_FLOAT_OPS(double, ) break;
    case MRING_LONGDOUBLE: FLOAT_OPS(LOOP_LD, l, long double) break;
    case MRING_FLOAT16: FLOAT_OPS(LOOP16, f, mring_f16_to_float, mring_float_to_f16) break;
    case MRING_BFLOAT16: FLOAT_OPS(LOOP16, f, mring_bf16_to_float, mring_float_to_bf16) break;
    case MRING_INT8: INT_OPS(int8_t, unsigned) break;
    case MRING_UINT8: INT_OPS(uint8_t, unsigned) break;
    case MRING_BOOL: INT_OPS(uint8_t, unsigned) break; /* only the logical ops are valid */
    case MRING_INT16: INT_OPS(int16_t, unsigned) break;
    case MRING_UINT16: INT_OPS(uint16_t, unsigned) break;
    case MRING_INT32: INT_OPS(int32_t, uint32_t) break;
    case MRING_UINT32: INT_OPS(uint32_t, uint32_t) break;
    case MRING_INT64: INT_OPS(int64_t, uint64_t) break;
    case MRING_UINT64: INT_OPS(uint64_t, uint64_t) break;
    case MRING_COMPLEX64: COMPLEX_OPS(float complex) break;
    case MRING_COMPLEX128: COMPLEX_OPS(double complex) break;
    default: reduce_pair(dst, src, count, t, op, src_first); break;
    }
}

/* buf[i] = buf[i] / n for count elements of C type T (n converted to T's arithmetic) */
#define SCALE(T, N)                                                                               \
    do {                                                                                          \
        T *b_ = buf;                                                                              \
        for (size_t i = 0; i < count; i++)                                                        \
            b_[i] = (T)(b_[i] / (N));                                                             \
    } while (0)

void mring_scale_avg(void *buf, size_t count, mring_dtype_t t, int nranks)
{
    switch (t) {
    case MRING_FLOAT32: SCALE(float, (float)nranks); break;
    case MRING_FLOAT64: SCALE(double, (double)nranks); break;
    case MRING_LONGDOUBLE: {
        long double *b = buf;
        for (size_t i = 0; i < count; i++)
            store_ld(&b[i], b[i] / nranks);
        break;
    }
    case MRING_FLOAT16: {
        uint16_t *b = buf;
        for (size_t i = 0; i < count; i++)
            b[i] = mring_float_to_f16(mring_f16_to_float(b[i]) / (float)nranks);
        break;
    }
    case MRING_BFLOAT16: {
        uint16_t *b = buf;
        for (size_t i = 0; i < count; i++)
            b[i] = mring_float_to_bf16(mring_bf16_to_float(b[i]) / (float)nranks);
        break;
    }
    case MRING_INT8: SCALE(int8_t, nranks); break;
    case MRING_UINT8: SCALE(uint8_t, (unsigned)nranks); break;
    case MRING_INT16: SCALE(int16_t, nranks); break;
    case MRING_UINT16: SCALE(uint16_t, (unsigned)nranks); break;
    case MRING_INT32: SCALE(int32_t, nranks); break;
    case MRING_UINT32: SCALE(uint32_t, (uint32_t)nranks); break;
    case MRING_INT64: SCALE(int64_t, (int64_t)nranks); break;
    case MRING_UINT64: SCALE(uint64_t, (uint64_t)nranks); break;
    case MRING_COMPLEX64: SCALE(float complex, (float)nranks); break;
    case MRING_COMPLEX128: SCALE(double complex, (double)nranks); break;
    default: break;
    }
}
