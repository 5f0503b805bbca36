/*
 * test_loopback_nan.c - NaN and signed zero through mring_loopback_allreduce.
 *
 * For float32, float64, float16 and bfloat16 on every algorithm, small topology,
 * rings {1, 2} and in-place / out-of-place: min and max propagate a NaN to every
 * rank with the same bits everywhere (also with two NaNs of different sign and
 * payload on two ranks), and -0/+0 come out right for every op (min(+0, -0) = -0,
 * max = +0, ...).  Harness: loopback_harness.h.
 */
#include "loopback_harness.h"

/* A float NaN of type t with a distinct sign and payload per which (0 or 1). */
static void put_nan(mring_dtype_t t, int which, void *dst)
{
    static const uint16_t h16[2] = {0x7e01, 0xfe02}, b16[2] = {0x7fc1, 0xffc2};
    static const uint32_t f32[2] = {0x7fc00001u, 0xffc00002u};
    static const uint64_t f64[2] = {0x7ff8000000000001ull, 0xfff8000000000002ull};
    const void *src = t == MRING_FLOAT16    ? (const void *)&h16[which]
                      : t == MRING_BFLOAT16 ? (const void *)&b16[which]
                      : t == MRING_FLOAT32  ? (const void *)&f32[which]
                                            : (const void *)&f64[which];
    memcpy(dst, src, mring_dtype_size(t));
}

/* Inputs as for min/max, plus at element count/2 one NaN on rank v (v < P), or two NaNs
 * of different sign and payload on ranks 0 and P-1 (v == P, P >= 2): every rank must get
 * a NaN there, and the same bits everywhere. */
static void nan_case(spec_t *s)
{
    mring_config_t c;
    if (make_config(s, &c))
        return;
    int P = c.topo.nranks;
    int64_t j = s->count / 2;
    size_t es = mring_dtype_size(s->t);
    for (int v = 0; v <= P && (v < P || P >= 2); v++) {
        fill_standard(s, P);
        put_nan(s->t, 0, keep[v < P ? v : 0] + (size_t)j * es);
        if (v == P)
            put_nan(s->t, 1, keep[P - 1] + (size_t)j * es);
        run_check(s, &c, j);
    }
}

static void test_nan_minmax(void **state)
{
    static const int64_t counts[] = {1, 5, 37};
    const sweep_t w = {small_topos, 8, rings12, 2, seg0, 1, FLOAT_TYPES, 1u << MRING_MIN | 1u << MRING_MAX,
                       counts, 3, nan_case};
    (void)state;
    sweep_all_algos("nan min/max", &w);
}

/* sum and prod: a NaN on one rank, or NaNs of different sign and payload on two, come out as a NaN
 * with the same bits on every rank, also where every rank computes the result itself (rd): the
 * kernels pick between two NaN operands by a rule that does not depend on their order (dtype.h). */
static void test_nan_sum_prod(void **state)
{
    static const int64_t counts[] = {1, 5, 37};
    const sweep_t w = {small_topos, 8, rings12, 2, seg0, 1, FLOAT_TYPES, 1u << MRING_SUM | 1u << MRING_PROD,
                       counts, 3, nan_case};
    (void)state;
    sweep_all_algos("nan sum/prod", &w);
}

/* -0 and +0: element i has -0 on a pattern of ranks; min gives -0 if any rank has -0,
 * max +0 if any has +0, sum and avg -0 only if all do, prod -0 if an odd number do. */
static void zero_case(spec_t *s)
{
    mring_config_t c;
    if (make_config(s, &c))
        return;
    int P = c.topo.nranks;
    size_t es = mring_dtype_size(s->t);
    for (int64_t i = 0; i < s->count; i++) {
        int nneg = 0;
        for (int r = 0; r < P; r++) {
            int neg = i % 4 == 0 ? r == (i / 4) % P : i % 4 == 1 ? 1 : i % 4 == 2 ? 0 : r % 2;
            nneg += neg;
            encode(s->t, neg ? -0.0 : 0.0, keep[r] + (size_t)i * es);
        }
        int minus = s->op == MRING_MIN    ? nneg > 0
                    : s->op == MRING_PROD ? nneg % 2
                                          : nneg == P; /* max, sum, avg */
        encode(s->t, minus ? -0.0 : 0.0, expv + (size_t)i * es);
    }
    run_check(s, &c, -1);
}

static void test_signed_zero(void **state)
{
    static const int64_t counts[] = {37};
    const sweep_t w = {small_topos, 8, rings12, 2, seg0, 1, FLOAT_TYPES, BASIC_OPS, counts, 1, zero_case};
    (void)state;
    sweep_all_algos("signed zero", &w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nan_minmax),
        cmocka_unit_test(test_nan_sum_prod),
        cmocka_unit_test(test_signed_zero),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
