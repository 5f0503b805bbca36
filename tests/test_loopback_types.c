/*
 * test_loopback_types.c - the types and ops beyond float32..int64 x sum..avg through
 * mring_loopback_allreduce: 1- and 2-byte and unsigned integers, bool, complex, long double and the
 * MAXLOC/MINLOC pairs; the logical and bitwise ops.  Every algorithm x small topology x rings {1, 2}
 * x every valid pair (mring_op_valid) x count x in-place / out-of-place, on bench_check's inputs
 * (exact whatever the reduction order; MAXLOC/MINLOC with ties on the value, so the index must be
 * the smallest), checked element by element with bench_wrong, bit for bit the same on every rank
 * (padding included), send buffers unchanged.  Harness: loopback_harness.h.
 */
#include "loopback_harness.h"

static void run_types(spec_t *s)
{
    mring_config_t c;
    if (make_config(s, &c))
        return;
    for (int r = 0; r < c.topo.nranks; r++)
        bench_fill(keep[r], s->t, s->op, r, c.topo.nranks, s->count);
    run_check(s, &c, -1);
}

static const char *const topos[] = {"1", "2", "3", "4", "2x3", "2x2x2", "5"};
static const int64_t counts[] = {0, 1, 4, 7, 37};

/* the new types with every op they take */
static void test_new_types(void **state)
{
    const sweep_t w = {topos, 7, rings12, 2, seg0, 1, ((1u << MRING_NTYPES) - 1) & ~BASIC_TYPES,
                       (1u << MRING_NOPS) - 1, counts, 5, run_types};
    (void)state;
    by_formula = 1;
    sweep_all_algos("new types", &w);
    by_formula = 0;
}

/* the new ops on the first types (the integers take the logical and bitwise ones) */
static void test_new_ops(void **state)
{
    const sweep_t w = {topos, 7, rings12, 2, seg0, 1, BASIC_TYPES, ((1u << MRING_NOPS) - 1) & ~BASIC_OPS, counts, 5,
                       run_types};
    (void)state;
    by_formula = 1;
    sweep_all_algos("new ops", &w);
    by_formula = 0;
}

/* The check itself can fail: one changed element of a correct result is found, for every pair. */
static void test_check_sees_a_wrong_element(void **state)
{
    (void)state;
    for (int t = 0; t < MRING_NTYPES; t++)
        for (int op = 0; op < MRING_NOPS; op++) {
            if (!mring_op_valid((mring_dtype_t)t, (mring_redop_t)op))
                continue;
            const int P = 4, n = 9;
            size_t es = mring_dtype_size((mring_dtype_t)t);
            unsigned char acc[9 * MAXES], in[9 * MAXES];
            bench_fill(acc, (mring_dtype_t)t, (mring_redop_t)op, 0, P, n);
            for (int r = 1; r < P; r++) {
                bench_fill(in, (mring_dtype_t)t, (mring_redop_t)op, r, P, n);
                mring_reduce(acc, in, n, (mring_dtype_t)t, (mring_redop_t)op, 0);
            }
            if (op == MRING_AVG)
                mring_scale_avg(acc, n, (mring_dtype_t)t, P);
            assert_int_equal(bench_wrong(acc, (mring_dtype_t)t, (mring_redop_t)op, P, n), 0);
            acc[5 * es] ^= 0x40; /* a bit of element 5's first byte (a value bit in every type) */
            if (bench_wrong(acc, (mring_dtype_t)t, (mring_redop_t)op, P, n) != 1)
                fail_msg("%s %s: a changed element was not seen", mring_dtype_name((mring_dtype_t)t),
                         mring_redop_name((mring_redop_t)op));
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_check_sees_a_wrong_element),
        cmocka_unit_test(test_new_types),
        cmocka_unit_test(test_new_ops),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
