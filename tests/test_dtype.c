/*
 * test_dtype.c - the host reduction kernels on hand-written operands with literal results: where each
 * op is defined (MPI's table), wrapping integer arithmetic, the logical ops on nonzero values, the
 * bitwise ops, complex products, MPI's MAXLOC/MINLOC rule on ties (the smaller index) and on NaN,
 * padding bytes of long double and pairs zeroed, and the names the CLI parses.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "dtype.h"

#include <complex.h>
#include <float.h>
#include <math.h>
#include <string.h>

static void valid_pairs(void **state)
{
    (void)state;
    assert_true(mring_op_valid(MRING_FLOAT32, MRING_SUM) && mring_op_valid(MRING_COMPLEX64, MRING_PROD));
    assert_false(mring_op_valid(MRING_COMPLEX128, MRING_MAX)); /* complex numbers are not ordered */
    assert_false(mring_op_valid(MRING_FLOAT64, MRING_BAND));
    assert_false(mring_op_valid(MRING_FLOAT32, MRING_LAND)); /* MPI: logical ops take integers and logicals */
    assert_true(mring_op_valid(MRING_UINT16, MRING_LXOR) && mring_op_valid(MRING_BOOL, MRING_LOR));
    assert_false(mring_op_valid(MRING_BOOL, MRING_SUM) || mring_op_valid(MRING_BOOL, MRING_BOR));
    assert_true(mring_op_valid(MRING_DOUBLE_INT, MRING_MINLOC));
    assert_false(mring_op_valid(MRING_DOUBLE_INT, MRING_SUM) || mring_op_valid(MRING_FLOAT64, MRING_MAXLOC));
    assert_false(mring_op_valid(MRING_NTYPES, MRING_SUM) || mring_op_valid(MRING_INT32, MRING_NOPS));
    int n = 0;
    for (int t = 0; t < MRING_NTYPES; t++)
        for (int op = 0; op < MRING_NOPS; op++)
            n += mring_op_valid((mring_dtype_t)t, (mring_redop_t)op);
    assert_int_equal(n, 5 * 5 + 8 * 11 + 3 + 2 * 3 + 8 * 2); /* reals, integers, bool, complex, pairs */
    assert_string_equal(mring_op_domain(MRING_BXOR), "integer types");
}

static void names(void **state)
{
    mring_dtype_t t;
    mring_redop_t op;
    (void)state;
    for (int i = 0; i < MRING_NTYPES; i++) {
        assert_int_equal(mring_dtype_parse(mring_dtype_name((mring_dtype_t)i), &t), 0);
        assert_int_equal(t, i);
        assert_non_null(strstr(mring_dtype_list(), mring_dtype_name((mring_dtype_t)i)));
    }
    for (int i = 0; i < MRING_NOPS; i++) {
        assert_int_equal(mring_redop_parse(mring_redop_name((mring_redop_t)i), &op), 0);
        assert_int_equal(op, i);
        assert_non_null(strstr(mring_redop_list(), mring_redop_name((mring_redop_t)i)));
    }
    assert_int_equal(mring_dtype_size(MRING_DOUBLE_INT), 16); /* MPI_DOUBLE_INT's extent: the struct's */
    assert_int_equal(mring_dtype_size(MRING_SHORT_INT), 8);
    assert_int_equal(mring_dtype_size(MRING_COMPLEX128), 16);
    assert_int_equal(mring_dtype_parse("int128", &t), -1);
}

static void integers_wrap(void **state)
{
    int8_t a[3] = {100, -128, 7}, b[3] = {100, -1, -3};
    uint8_t u[2] = {200, 16}, v[2] = {100, 16};
    uint16_t w[1] = {65535}, x[1] = {65535};
    (void)state;
    mring_reduce(a, b, 3, MRING_INT8, MRING_SUM, 0);
    assert_true(a[0] == -56 && a[1] == 127 && a[2] == 4);
    mring_reduce(u, v, 2, MRING_UINT8, MRING_PROD, 0);
    assert_true(u[0] == (uint8_t)(200 * 100) && u[1] == 0);
    mring_reduce(w, x, 1, MRING_UINT16, MRING_PROD, 0); /* 65535^2 overflows int: computed unsigned */
    assert_int_equal(w[0], 1);
    uint32_t m[2] = {4000000000u, 1}, n[2] = {1, 4000000000u};
    mring_reduce(m, n, 2, MRING_UINT32, MRING_MAX, 0); /* compared unsigned */
    assert_true(m[0] == 4000000000u && m[1] == 4000000000u);
    uint8_t avg[1] = {255};
    mring_scale_avg(avg, 1, MRING_UINT8, 4);
    assert_int_equal(avg[0], 63);
}

static void logical_and_bitwise(void **state)
{
    int32_t a[4] = {0, 0, 5, -7}, b[4] = {0, 3, 0, 2};
    int32_t land[4], lor[4], lxor[4];
    uint8_t p[2] = {0, 1}, q[2] = {1, 1};
    (void)state;
    memcpy(land, a, sizeof a);
    memcpy(lor, a, sizeof a);
    memcpy(lxor, a, sizeof a);
    mring_reduce(land, b, 4, MRING_INT32, MRING_LAND, 0);
    mring_reduce(lor, b, 4, MRING_INT32, MRING_LOR, 0);
    mring_reduce(lxor, b, 4, MRING_INT32, MRING_LXOR, 0);
    assert_memory_equal(land, ((int32_t[4]){0, 0, 0, 1}), sizeof land);
    assert_memory_equal(lor, ((int32_t[4]){0, 1, 1, 1}), sizeof lor);
    assert_memory_equal(lxor, ((int32_t[4]){0, 1, 1, 0}), sizeof lxor);
    mring_reduce(p, q, 2, MRING_BOOL, MRING_LXOR, 0);
    assert_true(p[0] == 1 && p[1] == 0);
    uint64_t x[3] = {0xF0F0F0F0F0F0F0F0ull, 0xF0ull, 0xFFull}, y[3] = {0xFF00FF00FF00FF00ull, 0x0Full, 0x0Full};
    mring_reduce(x, y, 1, MRING_UINT64, MRING_BAND, 0);
    mring_reduce(x + 1, y + 1, 1, MRING_UINT64, MRING_BOR, 0);
    mring_reduce(x + 2, y + 2, 1, MRING_UINT64, MRING_BXOR, 0);
    assert_true(x[0] == 0xF000F000F000F000ull && x[1] == 0xFFull && x[2] == 0xF0ull);
    int16_t s[1] = {-1}, t[1] = {0x0F0F};
    mring_reduce(s, t, 1, MRING_INT16, MRING_BXOR, 0);
    assert_int_equal(s[0], (int16_t)0xF0F0);
}

static void complex_ops(void **state)
{
    float complex a[2] = {1 + 2 * I, 3 - 1 * I}, b[2] = {3 + 4 * I, 0.5f + 0.5f * I};
    double complex c[1] = {2 + 0 * I}, d[1] = {-1 + 3 * I};
    (void)state;
    mring_reduce(a, b, 2, MRING_COMPLEX64, MRING_PROD, 0);
    assert_true(crealf(a[0]) == -5 && cimagf(a[0]) == 10); /* (1+2i)(3+4i) = 3 - 8 + (4 + 6)i */
    assert_true(crealf(a[1]) == 2 && cimagf(a[1]) == 1);   /* (3-i)(0.5+0.5i) = 1.5 + 0.5 + (1.5 - 0.5)i */
    mring_reduce(c, d, 1, MRING_COMPLEX128, MRING_SUM, 1);
    assert_true(creal(c[0]) == 1 && cimag(c[0]) == 3);
    mring_scale_avg(c, 1, MRING_COMPLEX128, 2);
    assert_true(creal(c[0]) == 0.5 && cimag(c[0]) == 1.5);
}

static void maxloc_minloc(void **state)
{
    mring_double_int_t x[4], y[4];
    (void)state;
    memset(x, 0x77, sizeof x); /* padding garbage: the result's padding must come out zero */
    memset(y, 0x66, sizeof y);
    const double xv[4] = {1, 5, 2, NAN}, yv[4] = {3, 5, 2, 4};
    const int xi[4] = {0, 9, 2, 1}, yi[4] = {1, 4, 7, 0};
    for (int k = 0; k < 4; k++) {
        x[k].v = xv[k], x[k].i = xi[k];
        y[k].v = yv[k], y[k].i = yi[k];
    }
    mring_double_int_t mx[4], mn[4];
    memcpy(mx, x, sizeof x);
    memcpy(mn, x, sizeof x);
    mring_reduce(mx, y, 4, MRING_DOUBLE_INT, MRING_MAXLOC, 0);
    mring_reduce(mn, y, 4, MRING_DOUBLE_INT, MRING_MINLOC, 0);
    assert_true(mx[0].v == 3 && mx[0].i == 1);  /* the larger value and its index */
    assert_true(mx[1].v == 5 && mx[1].i == 4);  /* a tie: the smaller index */
    assert_true(mn[2].v == 2 && mn[2].i == 2);
    assert_true(mn[0].v == 1 && mn[0].i == 0);
    assert_true(isnan(mx[3].v) && mx[3].i == 0); /* unordered: the left value, the smaller index */
    static const unsigned char zero[4] = {0};
    for (int k = 0; k < 4; k++)
        assert_memory_equal((unsigned char *)&mx[k] + offsetof(mring_double_int_t, i) + sizeof(int), zero, 4);
    mring_2float_t f[1] = {{2, 8}}, g[1] = {{2, 3}};
    mring_reduce(f, g, 1, MRING_2FLOAT, MRING_MINLOC, 1);
    assert_true(f[0].v == 2 && f[0].i == 3);
}

/* Two NaNs of different sign and payload: sum and prod give the same bits in either order. */
static void nan_sum_order_free(void **state)
{
    static const uint32_t na = 0x7fc00001u, nb = 0xffc00002u;
    (void)state;
    for (int op = MRING_SUM; op <= MRING_PROD; op++) {
        float x[300], y[300], u[300], v[300];
        for (int i = 0; i < 300; i++)
            x[i] = y[i] = (float)i;
        memcpy(&x[280], &na, 4); /* in the second block of 256 */
        memcpy(&y[280], &nb, 4);
        memcpy(u, x, sizeof x);
        memcpy(v, x, sizeof x);
        mring_reduce(u, y, 300, MRING_FLOAT32, (mring_redop_t)op, 0); /* x op y */
        mring_reduce(v, y, 300, MRING_FLOAT32, (mring_redop_t)op, 1); /* y op x */
        assert_memory_equal(u, v, sizeof u);
        assert_true(isnan(u[280]) && u[5] == (op == MRING_SUM ? 10 : 25));
    }
}

static void long_double_padding(void **state)
{
    long double a[2], b[2];
    (void)state;
    memset(a, 0x55, sizeof a);
    memset(b, 0xAA, sizeof b);
    a[0] = 1.5L, a[1] = -2;
    b[0] = 0.25L, b[1] = 8;
    mring_reduce(a, b, 2, MRING_LONGDOUBLE, MRING_MAX, 0);
    assert_true(a[0] == 1.5L && a[1] == 8);
    static const unsigned char zero[6] = {0};
    if (sizeof(long double) == 16 && LDBL_MANT_DIG == 64) /* x86-64: 10 value bytes, 6 of padding */
        for (int k = 0; k < 2; k++)
            assert_memory_equal((unsigned char *)&a[k] + 10, zero, 6);
    long double c[1] = {1}, d[1] = {0x1p-63L};
    mring_reduce(c, d, 1, MRING_LONGDOUBLE, MRING_SUM, 0); /* the extended precision is kept */
    assert_true(c[0] - 1 == 0x1p-63L || LDBL_MANT_DIG < 64);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(valid_pairs),   cmocka_unit_test(names),         cmocka_unit_test(integers_wrap),
        cmocka_unit_test(logical_and_bitwise), cmocka_unit_test(complex_ops), cmocka_unit_test(maxloc_minloc),
        cmocka_unit_test(nan_sum_order_free), cmocka_unit_test(long_double_padding),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
