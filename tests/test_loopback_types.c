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

/* The integers as the other signedness would order them: the bits as w-bit two's complement (signed) or not. */
static int64_t as_signed(uint64_t v, int w) { return w == 64 ? (int64_t)v : (int64_t)(v << (64 - w)) >> (64 - w); }

/* min/max reduced by a kernel that compares the integers with the wrong signedness (Debian's MPICH 4.0.2 does so
 * on MPI_UINT8_T) must be seen: the inputs straddle the sign, so every element of its result is wrong. */
static void test_check_sees_signedness(void **state)
{
    static const mring_dtype_t types[] = {MRING_INT8,  MRING_UINT8,  MRING_INT16, MRING_UINT16,
                                          MRING_INT32, MRING_UINT32, MRING_INT64, MRING_UINT64};
    (void)state;
    for (size_t k = 0; k < sizeof types / sizeof *types; k++)
        for (int op = MRING_MIN; op <= MRING_MAX; op += MRING_MAX - MRING_MIN) {
            const int P = 4, n = 9, w = 8 * (int)mring_dtype_size(types[k]);
            const int flip = mring_dtype_class(types[k]) == MRING_CLASS_UINT; /* compare as signed */
            uint64_t acc[9], in[9];
            unsigned char buf[9 * 8];
            for (int r = 0; r < P; r++) {
                bench_fill(buf, types[k], (mring_redop_t)op, r, P, n);
                for (int i = 0; i < n; i++) {
                    uint64_t v = 0;
                    memcpy(&v, buf + (size_t)i * (size_t)(w / 8), (size_t)(w / 8));
                    in[i] = v;
                    int less = flip ? as_signed(v, w) < as_signed(acc[i], w) : (uint64_t)as_signed(v, w) <
                                                                                  (uint64_t)as_signed(acc[i], w);
                    if (r == 0 || (op == MRING_MIN ? less : !less && v != acc[i]))
                        acc[i] = in[i];
                }
            }
            for (int i = 0; i < n; i++)
                memcpy(buf + (size_t)i * (size_t)(w / 8), &acc[i], (size_t)(w / 8));
            if (bench_wrong(buf, types[k], (mring_redop_t)op, P, n) != n)
                fail_msg("%s %s compared with the other signedness: %lld of %d elements seen wrong",
                         mring_dtype_name(types[k]), mring_redop_name((mring_redop_t)op),
                         (long long)bench_wrong(buf, types[k], (mring_redop_t)op, P, n), n);
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_check_sees_a_wrong_element),
        cmocka_unit_test(test_check_sees_signedness),
        cmocka_unit_test(test_new_types),
        cmocka_unit_test(test_new_ops),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
