/* dtype.c - element types, reduction operators and host reduction kernels (see dtype.h). */
#include "dtype.h"

#include <math.h>
#include <string.h>

static const struct {
    const char *name;
    const char *alias;
    size_t size;
} types[MRING_NTYPES] = {
    [MRING_FLOAT32] = {"float32", "float", 4},  [MRING_FLOAT64] = {"float64", "double", 8},
    [MRING_FLOAT16] = {"float16", "half", 2},   [MRING_BFLOAT16] = {"bfloat16", "bf16", 2},
    [MRING_INT32] = {"int32", "int", 4},        [MRING_INT64] = {"int64", "long", 8},
};

static const char *const op_names[MRING_NOPS] = {"sum", "prod", "min", "max", "avg"};

size_t mring_dtype_size(mring_dtype_t t) { return types[t].size; }
const char *mring_dtype_name(mring_dtype_t t) { return types[t].name; }
const char *mring_redop_name(mring_redop_t op) { return op_names[op]; }
const char *mring_dtype_list(void) { return "float32 (float), float64 (double), float16 (half), bfloat16, int32 (int), int64"; }
const char *mring_redop_list(void) { return "sum, prod, min, max, avg"; }

int mring_dtype_parse(const char *s, mring_dtype_t *t)
{
    for (int i = 0; i < MRING_NTYPES; i++)
        if (!strcmp(s, types[i].name) || !strcmp(s, types[i].alias)) {
            *t = (mring_dtype_t)i;
            return 0;
        }
    return -1;
}

int mring_redop_parse(const char *s, mring_redop_t *op)
{
    for (int i = 0; i < MRING_NOPS; i++)
        if (!strcmp(s, op_names[i])) {
            *op = (mring_redop_t)i;
            return 0;
        }
    return -1;
}

float mring_bf16_to_float(uint16_t h)
{
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

uint16_t mring_float_to_bf16(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    if ((u & 0x7fffffffu) > 0x7f800000u) /* NaN: keep it quiet and a NaN */
        return (uint16_t)((u >> 16) | 0x0040u);
    u += 0x7fffu + ((u >> 16) & 1u); /* round to nearest even */
    return (uint16_t)(u >> 16);
}

/* IEEE binary16: C23's _Float16 where the compiler has it (gcc 12 on x86-64), else clang's __fp16,
 * a storage format clang supports on every target (clang 14 lacks _Float16 on x86-64; scons fuzz). */
#if defined(__FLT16_MAX__)
typedef _Float16 half_t;
#else
typedef __fp16 half_t;
#endif

float mring_f16_to_float(uint16_t h)
{
    half_t x;
    memcpy(&x, &h, sizeof x);
    return (float)x;
}

uint16_t mring_float_to_f16(float f)
{
    half_t x = (half_t)f;
    uint16_t h;
    memcpy(&h, &x, sizeof h);
    return h;
}

/* min/max on floating point: NaN propagates (left operand's NaN first), and
 * -0 counts below +0, so a op b == b op a whenever at most one is NaN. */
static inline double fp_min(double a, double b)
{
    if (a != a) return a;
    if (b != b) return b;
    if (a == b) return signbit(a) ? a : b;
    return a < b ? a : b;
}
static inline double fp_max(double a, double b)
{
    if (a != a) return a;
    if (b != b) return b;
    if (a == b) return signbit(a) ? b : a;
    return a > b ? a : b;
}
static inline float fp_minf(float a, float b)
{
    if (a != a) return a;
    if (b != b) return b;
    if (a == b) return signbit(a) ? a : b;
    return a < b ? a : b;
}
static inline float fp_maxf(float a, float b)
{
    if (a != a) return a;
    if (b != b) return b;
    if (a == b) return signbit(a) ? b : a;
    return a > b ? a : b;
}

/* One loop per (type, op): x = left operand, y = right operand; the compiler
 * vectorises the sum/prod loops. Integer sum and prod wrap (computed unsigned). */
#define LOOP(T, EXPR)                                                                             \
    do {                                                                                          \
        T *d_ = (T *)dst;                                                                         \
        const T *s_ = (const T *)src;                                                             \
        if (src_first)                                                                            \
            for (size_t i = 0; i < count; i++) {                                                  \
                T x = s_[i], y = d_[i];                                                           \
                d_[i] = (EXPR);                                                                   \
            }                                                                                     \
        else                                                                                      \
            for (size_t i = 0; i < count; i++) {                                                  \
                T x = d_[i], y = s_[i];                                                           \
                d_[i] = (EXPR);                                                                   \
            }                                                                                     \
    } while (0)

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

#define FLOAT_OPS(LOOPM, ...)                                                                     \
    switch (op) {                                                                                 \
    case MRING_SUM:                                                                               \
    case MRING_AVG: LOOPM(__VA_ARGS__, x + y); break;                                             \
    case MRING_PROD: LOOPM(__VA_ARGS__, x * y); break;                                            \
    case MRING_MIN: LOOPM(__VA_ARGS__, MINF(x, y)); break;                                        \
    case MRING_MAX: LOOPM(__VA_ARGS__, MAXF(x, y)); break;                                        \
    default: break;                                                                               \
    }

#define INT_OPS(T, U)                                                                             \
    switch (op) {                                                                                 \
    case MRING_SUM:                                                                               \
    case MRING_AVG: LOOP(T, (T)((U)x + (U)y)); break;                                             \
    case MRING_PROD: LOOP(T, (T)((U)x * (U)y)); break;                                            \
    case MRING_MIN: LOOP(T, x < y ? x : y); break;                                                \
    case MRING_MAX: LOOP(T, x > y ? x : y); break;                                                \
    default: break;                                                                               \
    }

void mring_reduce(void *dst, const void *src, size_t count, mring_dtype_t t, mring_redop_t op,
                  int src_first)
{
    switch (t) {
    case MRING_FLOAT32:
#define MINF fp_minf
#define MAXF fp_maxf
        FLOAT_OPS(LOOP, float)
        break;
    case MRING_FLOAT16: FLOAT_OPS(LOOP16, mring_f16_to_float, mring_float_to_f16) break;
    case MRING_BFLOAT16: FLOAT_OPS(LOOP16, mring_bf16_to_float, mring_float_to_bf16) break;
#undef MINF
#undef MAXF
    case MRING_FLOAT64:
#define MINF fp_min
#define MAXF fp_max
        FLOAT_OPS(LOOP, double)
#undef MINF
#undef MAXF
        break;
    case MRING_INT32: INT_OPS(int32_t, uint32_t) break;
    case MRING_INT64: INT_OPS(int64_t, uint64_t) break;
    default: break;
    }
}

void mring_scale_avg(void *buf, size_t count, mring_dtype_t t, int nranks)
{
    switch (t) {
    case MRING_FLOAT32: {
        float *b = buf;
        for (size_t i = 0; i < count; i++)
            b[i] /= (float)nranks;
        break;
    }
    case MRING_FLOAT64: {
        double *b = buf;
        for (size_t i = 0; i < count; i++)
            b[i] /= (double)nranks;
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
    case MRING_INT32: {
        int32_t *b = buf;
        for (size_t i = 0; i < count; i++)
            b[i] /= nranks;
        break;
    }
    case MRING_INT64: {
        int64_t *b = buf;
        for (size_t i = 0; i < count; i++)
            b[i] /= nranks;
        break;
    }
    default: break;
    }
}
