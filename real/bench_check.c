/* bench_check.c - crafted inputs and exact expected results for mring-bench (see bench_check.h). */
#include "bench_check.h"

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

static void set(void *buf, mring_dtype_t t, int64_t i, double v)
{
    switch (t) {
    case MRING_FLOAT32: ((float *)buf)[i] = (float)v; break;
    case MRING_FLOAT64: ((double *)buf)[i] = v; break;
    case MRING_FLOAT16: ((uint16_t *)buf)[i] = mring_float_to_f16((float)v); break;
    case MRING_BFLOAT16: ((uint16_t *)buf)[i] = mring_float_to_bf16((float)v); break;
    case MRING_INT32: ((int32_t *)buf)[i] = (int32_t)v; break;
    default: ((int64_t *)buf)[i] = (int64_t)v; break;
    }
}

static double get(const void *buf, mring_dtype_t t, int64_t i)
{
    switch (t) {
    case MRING_FLOAT32: return ((const float *)buf)[i];
    case MRING_FLOAT64: return ((const double *)buf)[i];
    case MRING_FLOAT16: return mring_f16_to_float(((const uint16_t *)buf)[i]);
    case MRING_BFLOAT16: return mring_bf16_to_float(((const uint16_t *)buf)[i]);
    case MRING_INT32: return ((const int32_t *)buf)[i];
    default: return (double)((const int64_t *)buf)[i];
    }
}

/* Sums stay exact in bfloat16 (8 significant bits) with values 0..2 up to 128 ranks; beyond, one
 * rank contributes 1 per element.  Products are 2 (one rank gives 2, the others 1).  min/max: the
 * ranks hold 1..P in a rotation, exact up to 256 ranks in bfloat16. */
static double input(mring_redop_t op, int r, int P, int64_t i)
{
    switch (op) {
    case MRING_PROD: return r == i % P ? 2 : 1;
    case MRING_MIN:
    case MRING_MAX: return (double)((r + i) % P + 1);
    default: return P <= 128 ? (double)((r + i) % 3) : (r == i % P ? 1 : 0);
    }
}

void bench_fill(void *buf, mring_dtype_t t, mring_redop_t op, int r, int P, int64_t count)
{
    for (int64_t i = 0; i < count; i++)
        set(buf, t, i, input(op, r, P, i));
}

/* sum over ranks of input(i) depends on i mod 3 only (or is 1): three values computed once */
static void sums(int P, double s[3])
{
    for (int k = 0; k < 3; k++) {
        s[k] = 0;
        for (int r = 0; r < P; r++)
            s[k] += input(MRING_SUM, r, P, k);
    }
}

static double ulp(double x, mring_dtype_t t)
{
    int bits = t == MRING_FLOAT64 ? 53 : t == MRING_FLOAT32 ? 24 : t == MRING_FLOAT16 ? 11 : 8;
    return x == 0 ? 0 : ldexp(1.0, ilogb(x) - bits + 1);
}

int64_t bench_wrong(const void *buf, mring_dtype_t t, mring_redop_t op, int P, int64_t count)
{
    double s[3];
    int integer = t == MRING_INT32 || t == MRING_INT64;
    int64_t wrong = 0;
    sums(P, s);
    for (int64_t i = 0; i < count; i++) {
        double want, got = get(buf, t, i);
        switch (op) {
        case MRING_PROD: want = 2; break;
        case MRING_MIN: want = 1; break;
        case MRING_MAX: want = P; break;
        case MRING_SUM: want = P <= 128 ? s[i % 3] : 1; break;
        default: /* avg */
            want = P <= 128 ? s[i % 3] : 1;
            want = integer ? trunc(want / P) : want / P;
            if (!integer) {
                wrong += !(fabs(got - want) <= 2 * ulp(want, t));
                continue;
            }
        }
        wrong += got != want;
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
