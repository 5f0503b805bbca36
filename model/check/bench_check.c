/* bench_check.c - crafted inputs and exact expected results for every type and op (see bench_check.h). */
#include "bench_check.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int guarded_alloc(guarded_t *g, size_t bytes)
{
    g->base = malloc(bytes + 2 * MRING_GUARD_BYTES);
    if (!g->base)
        return -1;
    g->data = g->base + MRING_GUARD_BYTES;
    g->bytes = bytes;
    memset(g->base, 0x5A, MRING_GUARD_BYTES);
    memset(g->base + MRING_GUARD_BYTES + bytes, 0x5A, MRING_GUARD_BYTES);
    return 0;
}

void guarded_free(guarded_t *g)
{
    free(g->base);
    g->base = NULL;
}

int guarded_intact(const guarded_t *g)
{
    for (size_t i = 0; i < MRING_GUARD_BYTES; i++)
        if (g->base[i] != 0x5A || g->base[MRING_GUARD_BYTES + g->bytes + i] != 0x5A)
            return 0;
    return 1;
}

/* ---- element access by class: reals and integers through double (integers wrap to the type) ---- */

/* v as type t stores it: integers wrap modulo 2^bits (two's complement), bool is v != 0. */
static double wrap(mring_dtype_t t, double v)
{
    int64_t w = (int64_t)v;
    switch (t) {
    case MRING_INT8: return (int8_t)w;
    case MRING_UINT8: return (uint8_t)w;
    case MRING_INT16: return (int16_t)w;
    case MRING_UINT16: return (uint16_t)w;
    case MRING_INT32: return (int32_t)w;
    case MRING_UINT32: return (uint32_t)w;
    case MRING_BOOL: return w != 0;
    default: return v;
    }
}

static void set(void *buf, mring_dtype_t t, int64_t i, double v)
{
    switch (t) {
    case MRING_FLOAT32: ((float *)buf)[i] = (float)v; break;
    case MRING_FLOAT64: ((double *)buf)[i] = v; break;
    case MRING_LONGDOUBLE: {
        long double x = v;
        memset((long double *)buf + i, 0, sizeof x);
        memcpy((long double *)buf + i, &x, sizeof x);
        break;
    }
    case MRING_FLOAT16: ((uint16_t *)buf)[i] = mring_float_to_f16((float)v); break;
    case MRING_BFLOAT16: ((uint16_t *)buf)[i] = mring_float_to_bf16((float)v); break;
    case MRING_INT8: ((int8_t *)buf)[i] = (int8_t)wrap(t, v); break;
    case MRING_UINT8:
    case MRING_BOOL: ((uint8_t *)buf)[i] = (uint8_t)wrap(t, v); break;
    case MRING_INT16: ((int16_t *)buf)[i] = (int16_t)wrap(t, v); break;
    case MRING_UINT16: ((uint16_t *)buf)[i] = (uint16_t)wrap(t, v); break;
    case MRING_INT32: ((int32_t *)buf)[i] = (int32_t)wrap(t, v); break;
    case MRING_UINT32: ((uint32_t *)buf)[i] = (uint32_t)wrap(t, v); break;
    case MRING_UINT64: ((uint64_t *)buf)[i] = (uint64_t)(int64_t)v; break;
    default: ((int64_t *)buf)[i] = (int64_t)v; break;
    }
}

/* element i as a long double: every type's values compare exactly (long double through double would
 * hide its low 11 bits) */
static long double get(const void *buf, mring_dtype_t t, int64_t i)
{
    switch (t) {
    case MRING_FLOAT32: return ((const float *)buf)[i];
    case MRING_FLOAT64: return ((const double *)buf)[i];
    case MRING_LONGDOUBLE: return ((const long double *)buf)[i];
    case MRING_FLOAT16: return mring_f16_to_float(((const uint16_t *)buf)[i]);
    case MRING_BFLOAT16: return mring_bf16_to_float(((const uint16_t *)buf)[i]);
    case MRING_INT8: return ((const int8_t *)buf)[i];
    case MRING_UINT8:
    case MRING_BOOL: return ((const uint8_t *)buf)[i];
    case MRING_INT16: return ((const int16_t *)buf)[i];
    case MRING_UINT16: return ((const uint16_t *)buf)[i];
    case MRING_INT32: return ((const int32_t *)buf)[i];
    case MRING_UINT32: return ((const uint32_t *)buf)[i];
    case MRING_UINT64: return ((const uint64_t *)buf)[i];
    default: return ((const int64_t *)buf)[i];
    }
}

/* complex: element i's two parts (part 0 real, 1 imaginary) */
static void set_complex(void *buf, mring_dtype_t t, int64_t i, double re, double im)
{
    if (t == MRING_COMPLEX64) {
        float v[2] = {(float)re, (float)im};
        memcpy((char *)buf + (size_t)i * sizeof v, v, sizeof v);
    } else {
        double v[2] = {re, im};
        memcpy((char *)buf + (size_t)i * sizeof v, v, sizeof v);
    }
}

static double get_complex(const void *buf, mring_dtype_t t, int64_t i, int part)
{
    return t == MRING_COMPLEX64 ? ((const float *)buf)[2 * i + part] : ((const double *)buf)[2 * i + part];
}

/* pairs: value and index of element i, through the C structs of dtype.h (padding zeroed) */
#define PAIR_CASES(X)                                                                             \
    X(MRING_FLOAT_INT, mring_float_int_t) X(MRING_DOUBLE_INT, mring_double_int_t)                 \
    X(MRING_LONG_INT, mring_long_int_t) X(MRING_2INT, mring_2int_t)                               \
    X(MRING_SHORT_INT, mring_short_int_t) X(MRING_LONGDOUBLE_INT, mring_longdouble_int_t)         \
    X(MRING_2FLOAT, mring_2float_t) X(MRING_2DOUBLE, mring_2double_t)

static void set_pair(void *buf, mring_dtype_t t, int64_t i, double v, double idx)
{
    switch (t) {
#define SET_(E, T)                                                                                \
    case E: {                                                                                     \
        T p;                                                                                      \
        memset(&p, 0, sizeof p);                                                                  \
        p.v = v;                                                                                  \
        p.i = idx;                                                                                \
        memcpy((T *)buf + i, &p, sizeof p);                                                       \
        break;                                                                                    \
    }
        PAIR_CASES(SET_)
#undef SET_
    default: break;
    }
}

static long double get_pair(const void *buf, mring_dtype_t t, int64_t i, int part)
{
    switch (t) {
#define GET_(E, T)                                                                                \
    case E: return part ? (long double)((const T *)buf)[i].i : (long double)((const T *)buf)[i].v;
        PAIR_CASES(GET_)
#undef GET_
    default: return 0;
    }
}

/* ---- inputs ---- */

/* min/max: M = minmax_top(P) distinct values, at most 100, so that 1-byte integers hold them */
static int minmax_top(int P) { return P < 100 ? P : 100; }

/* Sums stay exact in bfloat16 (8 significant bits) with values 0..2 up to 128 ranks; beyond, one
 * rank contributes 1 per element.  Products are 2 (one rank gives 2, the others 1). */
static double input(mring_redop_t op, int r, int P, int64_t i)
{
    return op == MRING_PROD ? (r == i % P ? 2 : 1) : P <= 128 ? (double)((r + i) % 3) : (r == i % P ? 1 : 0);
}

/* Logical ops: rank i mod (P+1) holds 0 (none does when that is P), the others 1..3 (bool: 1). */
static double logical_input(int r, int P, int64_t i) { return r == i % (P + 1) ? 0 : 1 + (r + i) % 3; }

/* A type's width in bits; w low bits set; m rotated left by i within w bits. */
static int width(mring_dtype_t t) { return 8 * (int)mring_dtype_size(t); }
static uint64_t ones(int w) { return w == 64 ? ~0ULL : (1ULL << w) - 1; }
static uint64_t rotl(uint64_t m, int64_t i, int w)
{
    int k = (int)(i % w);
    return k ? ((m << k) | (m >> (w - k))) & ones(w) : m;
}

/* min/max: the ranks hold the k-th of M = minmax_top(P) increasing values in a rotation (k = 1 + (r + i) mod M),
 * which straddle the sign: on a signed integer type its lowest values from the type's minimum up, then 1, 2, ...;
 * on an unsigned one 0, 1, ..., then its highest values up to the maximum (a kernel comparing them with the other
 * signedness gets min and max wrong: Debian's MPICH 4.0.2 does on MPI_UINT8_T); on reals -M/2 + 1 .. M - M/2, exact
 * in every type.  As the element's bits (integers, 64 bits exact) or its value (reals). */
static uint64_t minmax_bits(mring_dtype_t t, int P, int k)
{
    int M = minmax_top(P), half = M / 2, w = width(t);
    if (mring_dtype_class(t) == MRING_CLASS_INT)
        return k <= half ? ((1ULL << (w - 1)) + (uint64_t)(k - 1)) & ones(w) : (uint64_t)(k - half);
    return k <= half ? (uint64_t)(k - 1) : ones(w) - (uint64_t)(M - k);
}
static double minmax_value(int P, int k) { return (double)(k - minmax_top(P) / 2); }
static int minmax_k(int r, int P, int64_t i) { return (int)((r + i) % minmax_top(P)) + 1; }
static int integer_class(mring_dtype_t t)
{
    return mring_dtype_class(t) == MRING_CLASS_INT || mring_dtype_class(t) == MRING_CLASS_UINT;
}

/* Bitwise ops: rank r holds the single bit (r + i) mod w of a w-bit integer (band: all bits but it). */
static uint64_t bitwise_input(mring_redop_t op, mring_dtype_t t, int r, int64_t i)
{
    uint64_t bit = 1ULL << ((r + i) % width(t));
    return op == MRING_BAND ? ~bit & ones(width(t)) : bit;
}

/* The bitwise result over P ranks: bit j is set by the ranks r with (r + i) mod w == j. */
static uint64_t bitwise_want(mring_redop_t op, mring_dtype_t t, int P, int64_t i)
{
    int w = width(t);
    uint64_t any = P >= w ? ones(w) : rotl(ones(P), i, w);
    uint64_t odd = ((P / w) % 2 ? ones(w) : 0) ^ rotl(ones(P % w), i, w); /* P % w of them once more */
    return op == MRING_BAND ? ~any & ones(w) : op == MRING_BOR ? any : odd;
}

/* MAXLOC/MINLOC: value 1 + (r + i) mod M with M = P/2 (each value held twice: ties), index r. */
static int loc_period(int P) { return P / 2 > 1 ? P / 2 : 1; }

static void set_bits(void *buf, mring_dtype_t t, int64_t i, uint64_t v)
{
    size_t es = mring_dtype_size(t);
    memcpy((char *)buf + (size_t)i * es, &v, es); /* little-endian: the low bytes */
}

static uint64_t get_bits(const void *buf, mring_dtype_t t, int64_t i)
{
    uint64_t v = 0;
    size_t es = mring_dtype_size(t);
    memcpy(&v, (const char *)buf + (size_t)i * es, es);
    return v;
}

void bench_fill(void *buf, mring_dtype_t t, mring_redop_t op, int r, int P, int64_t count)
{
    mring_dclass_t c = mring_dtype_class(t);
    for (int64_t i = 0; i < count; i++) {
        if (op >= MRING_LAND && op <= MRING_LXOR)
            set(buf, t, i, logical_input(r, P, i));
        else if (op >= MRING_BAND && op <= MRING_BXOR)
            set_bits(buf, t, i, bitwise_input(op, t, r, i));
        else if (c == MRING_CLASS_PAIR)
            set_pair(buf, t, i, 1 + (r + i) % loc_period(P), r);
        else if (c == MRING_CLASS_COMPLEX && op == MRING_PROD)
            set_complex(buf, t, i, r == i % P ? 0 : 1, r == i % P ? 2 : 0); /* 2i on one rank: product 2i */
        else if (c == MRING_CLASS_COMPLEX)
            set_complex(buf, t, i, input(op, r, P, i), input(op, r, P, i + 1));
        else if ((op == MRING_MIN || op == MRING_MAX) && integer_class(t))
            set_bits(buf, t, i, minmax_bits(t, P, minmax_k(r, P, i)));
        else if (op == MRING_MIN || op == MRING_MAX)
            set(buf, t, i, minmax_value(P, minmax_k(r, P, i)));
        else
            set(buf, t, i, input(op, r, P, i));
    }
}

/* ---- expected results ---- */

/* sum over ranks of input(i) depends on i mod 3 only (or is 1): three values computed once */
static void sums(int P, double s[3])
{
    for (int k = 0; k < 3; k++) {
        s[k] = 0;
        for (int r = 0; r < P; r++)
            s[k] += input(MRING_SUM, r, P, k);
    }
}

static int sig_bits(mring_dtype_t t)
{
    switch (t) {
    case MRING_FLOAT64:
    case MRING_COMPLEX128: return 53;
    case MRING_LONGDOUBLE: return LDBL_MANT_DIG;
    case MRING_FLOAT16: return 11;
    case MRING_BFLOAT16: return 8;
    default: return 24;
    }
}

static long double ulp(long double x, mring_dtype_t t) { return x == 0 ? 0 : ldexpl(1.0L, ilogbl(x) - sig_bits(t) + 1); }

/* The exact sum-family result (sum or avg) of element i, as a real (reals, integers, a complex part). */
static long double sum_want(mring_dtype_t t, mring_redop_t op, int P, const double s[3], int64_t i, int integer)
{
    long double want = wrap(t, P <= 128 ? s[i % 3] : 1);
    return op != MRING_AVG ? want : integer ? truncl(want / P) : want / P;
}

/* 1 if got differs from want; avg of a non-integer type may be off by 2 ulps */
static int differs(long double got, long double want, mring_dtype_t t, mring_redop_t op, int integer)
{
    return op == MRING_AVG && !integer ? !(fabsl(got - want) <= 2 * ulp(want, t)) : got != want;
}

/* Elements that differ, for the ops outside the sum family on reals and integers. */
static int64_t wrong_other(const void *buf, mring_dtype_t t, mring_redop_t op, int P, int64_t count)
{
    int64_t wrong = 0;
    int M = loc_period(P);
    for (int64_t i = 0; i < count; i++) {
        if (op >= MRING_BAND && op <= MRING_BXOR) {
            wrong += get_bits(buf, t, i) != bitwise_want(op, t, P, i);
        } else if (op >= MRING_LAND && op <= MRING_LXOR) {
            int zeros = i % (P + 1) < P; /* ranks holding 0 */
            double want = op == MRING_LAND ? zeros == 0 : op == MRING_LOR ? zeros < P : (P - zeros) % 2;
            if (P == 1) /* nothing to reduce: the input itself, as MPI leaves it */
                want = wrap(t, logical_input(0, 1, i));
            wrong += get(buf, t, i) != want;
        } else if (op == MRING_MAXLOC || op == MRING_MINLOC) {
            int64_t k = i % M; /* the first rank holding the max (min) value: (M - 1 - k) (or (M - k) mod M) */
            double v = op == MRING_MAXLOC ? M : 1, idx = op == MRING_MAXLOC ? (double)(M - 1 - k) : (double)((M - k) % M);
            wrong += get_pair(buf, t, i, 0) != v || get_pair(buf, t, i, 1) != idx;
        } else if (op == MRING_PROD) {
            wrong += get(buf, t, i) != 2;
        } else { /* min, max: the lowest (k = 1) or highest (k = M) value */
            int k = op == MRING_MIN ? 1 : minmax_top(P);
            wrong += integer_class(t) ? get_bits(buf, t, i) != minmax_bits(t, P, k) : get(buf, t, i) != minmax_value(P, k);
        }
    }
    return wrong;
}

int64_t bench_wrong(const void *buf, mring_dtype_t t, mring_redop_t op, int P, int64_t count)
{
    double s[3];
    mring_dclass_t c = mring_dtype_class(t);
    int integer = c == MRING_CLASS_INT || c == MRING_CLASS_UINT;
    int64_t wrong = 0;
    if (op != MRING_SUM && op != MRING_AVG && !(c == MRING_CLASS_COMPLEX && op == MRING_PROD))
        return wrong_other(buf, t, op, P, count);
    sums(P, s);
    for (int64_t i = 0; i < count; i++) {
        if (c == MRING_CLASS_COMPLEX && op == MRING_PROD)
            wrong += get_complex(buf, t, i, 0) != 0 || get_complex(buf, t, i, 1) != 2;
        else if (c == MRING_CLASS_COMPLEX)
            wrong += differs(get_complex(buf, t, i, 0), sum_want(t, op, P, s, i, 0), t, op, 0) ||
                     differs(get_complex(buf, t, i, 1), sum_want(t, op, P, s, i + 1, 0), t, op, 0);
        else
            wrong += differs(get(buf, t, i), sum_want(t, op, P, s, i, integer), t, op, integer);
    }
    return wrong;
}

uint64_t bench_hash(const void *buf, size_t bytes)
{
    const unsigned char *p = buf;
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < bytes; i++) {
        h ^= p[i];
        h *= 1099511628211ULL;
    }
    return h;
}
