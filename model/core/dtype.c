/* dtype.c - element types and reduction operators: names, sizes, where each op is defined, and the
 * 16-bit float conversions (see dtype.h; the host kernels are in reduce.c). */
#include "dtype.h"

#include <complex.h>
#include <stdio.h>
#include <string.h>

static const struct {
    const char *name;
    const char *alias; /* nccl-tests' name, or NULL */
    size_t size;
    mring_dclass_t cls;
} types[MRING_NTYPES] = {
    [MRING_FLOAT32] = {"float32", "float", 4, MRING_CLASS_FLOAT},
    [MRING_FLOAT64] = {"float64", "double", 8, MRING_CLASS_FLOAT},
    [MRING_FLOAT16] = {"float16", "half", 2, MRING_CLASS_FLOAT},
    [MRING_BFLOAT16] = {"bfloat16", "bf16", 2, MRING_CLASS_FLOAT},
    [MRING_INT32] = {"int32", "int", 4, MRING_CLASS_INT},
    [MRING_INT64] = {"int64", "long", 8, MRING_CLASS_INT},
    [MRING_INT8] = {"int8", NULL, 1, MRING_CLASS_INT},
    [MRING_UINT8] = {"uint8", NULL, 1, MRING_CLASS_UINT},
    [MRING_INT16] = {"int16", NULL, 2, MRING_CLASS_INT},
    [MRING_UINT16] = {"uint16", NULL, 2, MRING_CLASS_UINT},
    [MRING_UINT32] = {"uint32", NULL, 4, MRING_CLASS_UINT},
    [MRING_UINT64] = {"uint64", NULL, 8, MRING_CLASS_UINT},
    [MRING_BOOL] = {"bool", NULL, 1, MRING_CLASS_BOOL},
    [MRING_COMPLEX64] = {"complex64", NULL, sizeof(float complex), MRING_CLASS_COMPLEX},
    [MRING_COMPLEX128] = {"complex128", NULL, sizeof(double complex), MRING_CLASS_COMPLEX},
    [MRING_LONGDOUBLE] = {"longdouble", NULL, sizeof(long double), MRING_CLASS_FLOAT},
    [MRING_FLOAT_INT] = {"float_int", NULL, sizeof(mring_float_int_t), MRING_CLASS_PAIR},
    [MRING_DOUBLE_INT] = {"double_int", NULL, sizeof(mring_double_int_t), MRING_CLASS_PAIR},
    [MRING_LONG_INT] = {"long_int", NULL, sizeof(mring_long_int_t), MRING_CLASS_PAIR},
    [MRING_2INT] = {"2int", NULL, sizeof(mring_2int_t), MRING_CLASS_PAIR},
    [MRING_SHORT_INT] = {"short_int", NULL, sizeof(mring_short_int_t), MRING_CLASS_PAIR},
    [MRING_LONGDOUBLE_INT] = {"longdouble_int", NULL, sizeof(mring_longdouble_int_t), MRING_CLASS_PAIR},
    [MRING_2FLOAT] = {"2float", NULL, sizeof(mring_2float_t), MRING_CLASS_PAIR},
    [MRING_2DOUBLE] = {"2double", NULL, sizeof(mring_2double_t), MRING_CLASS_PAIR},
};

/* per op: its name, the classes it is defined on (bit mask over mring_dclass_t), and those in words */
#define C_(c) (1u << MRING_CLASS_##c)
static const struct {
    const char *name;
    unsigned classes;
    const char *domain;
} ops[MRING_NOPS] = {
    [MRING_SUM] = {"sum", C_(FLOAT) | C_(INT) | C_(UINT) | C_(COMPLEX), "real, integer and complex types"},
    [MRING_PROD] = {"prod", C_(FLOAT) | C_(INT) | C_(UINT) | C_(COMPLEX), "real, integer and complex types"},
    [MRING_MIN] = {"min", C_(FLOAT) | C_(INT) | C_(UINT), "real and integer types"},
    [MRING_MAX] = {"max", C_(FLOAT) | C_(INT) | C_(UINT), "real and integer types"},
    [MRING_AVG] = {"avg", C_(FLOAT) | C_(INT) | C_(UINT) | C_(COMPLEX), "real, integer and complex types"},
    [MRING_LAND] = {"land", C_(INT) | C_(UINT) | C_(BOOL), "integer types and bool"},
    [MRING_LOR] = {"lor", C_(INT) | C_(UINT) | C_(BOOL), "integer types and bool"},
    [MRING_LXOR] = {"lxor", C_(INT) | C_(UINT) | C_(BOOL), "integer types and bool"},
    [MRING_BAND] = {"band", C_(INT) | C_(UINT), "integer types"},
    [MRING_BOR] = {"bor", C_(INT) | C_(UINT), "integer types"},
    [MRING_BXOR] = {"bxor", C_(INT) | C_(UINT), "integer types"},
    [MRING_MAXLOC] = {"maxloc", C_(PAIR), "the value-index pair types"},
    [MRING_MINLOC] = {"minloc", C_(PAIR), "the value-index pair types"},
};
#undef C_

size_t mring_dtype_size(mring_dtype_t t) { return types[t].size; }
const char *mring_dtype_name(mring_dtype_t t) { return types[t].name; }
mring_dclass_t mring_dtype_class(mring_dtype_t t) { return types[t].cls; }
const char *mring_redop_name(mring_redop_t op) { return ops[op].name; }
const char *mring_op_domain(mring_redop_t op) { return ops[op].domain; }
int mring_op_valid(mring_dtype_t t, mring_redop_t op)
{
    return (unsigned)t < MRING_NTYPES && (unsigned)op < MRING_NOPS && (ops[op].classes >> types[t].cls & 1);
}
/* "name (alias), ..." of the table, built once */
const char *mring_dtype_list(void)
{
    static char list[512];
    for (int i = 0, built = list[0] != 0; !built && i < MRING_NTYPES; i++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s%s%s%s", i ? ", " : "", types[i].name,
                 types[i].alias ? " (" : "", types[i].alias ? types[i].alias : "", types[i].alias ? ")" : "");
    return list;
}

const char *mring_redop_list(void)
{
    static char list[256];
    for (int i = 0, built = list[0] != 0; !built && i < MRING_NOPS; i++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "", ops[i].name);
    return list;
}

int mring_dtype_parse(const char *s, mring_dtype_t *t)
{
    for (int i = 0; i < MRING_NTYPES; i++)
        if (!strcmp(s, types[i].name) || (types[i].alias && !strcmp(s, types[i].alias))) {
            *t = (mring_dtype_t)i;
            return 0;
        }
    return -1;
}

int mring_redop_parse(const char *s, mring_redop_t *op)
{
    for (int i = 0; i < MRING_NOPS; i++)
        if (!strcmp(s, ops[i].name)) {
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

