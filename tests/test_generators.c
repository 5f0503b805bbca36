/*
 * test_generators.c - every generator, verified symbolically (mring_verify) over rank counts,
 * factorisations, rings, pipelining segments and awkward element counts, out of place and in place.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "algo.h"
#include "verify.h"

/* Verify one configuration; fail with everything needed to reproduce it. */
static void verify_ok(const mring_config_t *c, mring_call_t k)
{
    mring_verify_result_t res;
    char topo[64], rings[64];
    int rc = mring_verify(c, k, &res);
    if (rc != 0 || !res.ok)
        fail_msg("mring verify --topo %s --algo %s --rings %s --segment %lld --count %lld: %s",
                 mring_topo_format(&c->topo, topo, sizeof topo), mring_algo_name(c->algo),
                 mring_rings_format(c, rings, sizeof rings), (long long)c->segment, (long long)k.count, res.msg);
}

static mring_config_t config(const char *topo, mring_algo_t algo, int rings)
{
    mring_config_t c;
    mring_topo_t t;
    char err[256];
    assert_int_equal(mring_topo_parse(topo, &t, err, sizeof err), 0);
    mring_config_default(&c, &t);
    c.algo = algo;
    for (int i = 0; i < t.ndims; i++)
        c.rings[i] = rings;
    return c;
}

/* Counts around P (empty blocks, blocks of one), primes and a large odd count. */
static int counts_for(int P, int64_t *out)
{
    int64_t base[] = {0, 1, P - 1, P, P + 1, 2 * P, 7, 97, 1009, 1000003};
    int n = 0;
    for (size_t i = 0; i < sizeof base / sizeof *base; i++)
        if (base[i] >= 0 && (n == 0 || base[i] != out[n - 1]))
            out[n++] = base[i];
    return n;
}

/* All algorithms, rings 1..maxrings (where the algorithm takes them), with and without pipelining. */
static void sweep(const char *topo, int maxrings, int pipelined)
{
    for (int a = 0; a < mring_algo_count(); a++)
        for (int r = 1; r <= maxrings; r++) {
            mring_config_t c = config(topo, (mring_algo_t)a, r);
            int64_t counts[16];
            int n = counts_for(c.topo.nranks, counts);
            char err[256];
            if (mring_config_check(&c, err, sizeof err))
                continue; /* rd and rabenseifner take one ring */
            for (int i = 0; i < n; i++)
                for (int seg = 0; seg <= pipelined; seg++) {
                    /* pieces of 2 elements for small counts, 64 KiB for the large one */
                    c.segment = seg ? (counts[i] > 10000 ? 65536 : 8) : 0;
                    verify_ok(&c, (mring_call_t){counts[i], 4});
                }
        }
}

static void small_flat(void **state)
{
    static const char *const topos[] = {"1", "2", "3", "4", "5", "6", "7", "8", "10", "12", "13", "16"};
    (void)state;
    for (size_t i = 0; i < sizeof topos / sizeof *topos; i++)
        sweep(topos[i], 4, 1);
}

static void factorisations(void **state)
{
    static const char *const topos[] = {"2x2x2x2", "3x5", "16x1", "1x8", "2x3", "3x2", "4x2", "2x2x3", "3x4",
                                        "1x1", "5x1x2", "2x1x3"};
    (void)state;
    for (size_t i = 0; i < sizeof topos / sizeof *topos; i++)
        sweep(topos[i], 4, 1);
}

/* The DDL shapes: 64 and 256 ranks, fewer combinations to keep the suite quick. */
static void large(void **state)
{
    static const char *const topos[] = {"64", "4x16", "4x4x4", "4x16x4", "256"};
    static const int64_t counts[] = {0, 1, 255, 257, 1000003};
    (void)state;
    for (size_t i = 0; i < sizeof topos / sizeof *topos; i++)
        for (int a = 0; a < mring_algo_count(); a++)
            for (int r = 1; r <= 2; r++) {
                mring_config_t c = config(topos[i], (mring_algo_t)a, r);
                char err[256];
                if (mring_config_check(&c, err, sizeof err))
                    continue;
                for (size_t k = 0; k < sizeof counts / sizeof *counts; k++)
                    verify_ok(&c, (mring_call_t){counts[k], 4});
            }
}

static void per_dimension_rings(void **state)
{
    static const int rr[][3] = {{4, 2, 1}, {1, 2, 4}, {2, 1, 1}, {3, 1, 2}, {1, 1, 1}};
    (void)state;
    for (size_t i = 0; i < sizeof rr / sizeof *rr; i++) {
        mring_config_t c = config("4x16x4", MRING_ALGO_MULTIRING, 1);
        for (int d = 0; d < 3; d++)
            c.rings[d] = rr[i][d];
        for (int64_t n = 0; n <= 1000003; n = n ? n * 31 + 7 : 1) {
            verify_ok(&c, (mring_call_t){n, 4});
            c.segment = 4096;
            verify_ok(&c, (mring_call_t){n, 4});
            c.segment = 0;
        }
    }
}

/* Recursive halving in some dimensions, rings in others (--dim-algo). */
static void per_dimension_algorithms(void **state)
{
    static const struct {
        const char *topo;
        uint8_t algo[4];
        int rings;
    } cases[] = {
        {"4x16x4", {1, 1, 1}, 1}, {"4x16x4", {0, 1, 1}, 2}, {"2x8x4", {1, 0, 1}, 3}, {"8", {1}, 2},
        {"2x2x2x2", {1, 0, 1, 0}, 1}, {"4x3", {1, 0}, 2}, {"1x4", {0, 1}, 1},
        {"4x16x4", {2, 2, 2}, 1}, {"2x8x4", {2, 0, 1}, 3}, {"8", {2}, 2}, {"4x3", {2, 0}, 2},
    };
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        mring_config_t c = config(cases[i].topo, MRING_ALGO_MULTIRING, cases[i].rings);
        int64_t counts[16];
        int n = counts_for(c.topo.nranks, counts);
        memcpy(c.dim_algo, cases[i].algo, sizeof cases[i].algo);
        for (int k = 0; k < n; k++)
            for (int seg = 0; seg < 2; seg++) {
                c.segment = seg ? 64 * 1024 : 0;
                verify_ok(&c, (mring_call_t){counts[k], 4});
            }
    }
}

/* Chunks pipelined through the dimensions (--chunks): every wave's stages merged into one stream must
 * still match, finish and reduce exactly once, with rings per dimension, halving and segments. */
static void chunks(void **state)
{
    static const struct {
        const char *topo;
        int rings[4], chunks, halving;
    } cases[] = {
        {"4x16x4", {1, 1, 1}, 16, 0}, {"4x16x4", {2, 2, 2}, 4, 0}, {"2x8x4", {1, 1, 1}, 3, 1}, {"3x5", {3, 1}, 7, 0},
        {"2x2x2x2", {2, 1, 1, 2}, 5, 1}, {"8", {2}, 4, 0}, {"1x4x1", {1, 2, 1}, 2, 0},
    };
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        mring_config_t c = config(cases[i].topo, MRING_ALGO_MULTIRING, 1);
        int64_t counts[16];
        int n = counts_for(c.topo.nranks, counts);
        char err[256];
        c.chunks = cases[i].chunks;
        for (int d = 0; d < c.topo.ndims; d++) {
            c.rings[d] = cases[i].rings[d];
            c.dim_algo[d] = (uint8_t)(cases[i].halving ? MRING_DIM_RABENSEIFNER : MRING_DIM_RING);
        }
        assert_int_equal(mring_config_check(&c, err, sizeof err), 0);
        for (int k = 0; k < n; k++)
            for (int seg = 0; seg < 2; seg++) {
                c.segment = seg ? (counts[k] > 10000 ? 65536 : 8) : 0;
                verify_ok(&c, (mring_call_t){counts[k], 4});
            }
    }
}

/* Rings on embeddings (DGX-1's two edge-disjoint NVLink cycles in rank order, and cycles of a 3x5 grid),
 * with chunks and segments: matched, deadlock-free, exactly once. */
static void embeddings(void **state)
{
    static const struct {
        const char *topo, *algo, *rings, *embed, *chunks;
    } cases[] = {
        {"8", "ring", "4", "0.1.2.3.4.5.6.7/0.2.5.7.4.6.1.3", "1"},
        {"8x4", "multiring", "4,2", "0.1.2.3.4.5.6.7/0.2.5.7.4.6.1.3;-", "4"},
        {"3x5", "multiring", "3,4", "0.2.1;0.1.2.3.4/0.3.1.4.2", "1"},
        {"3x5", "multiring", "8,1", "0.1.2/0.2.1/1.0.2/2.1.0;-", "3"},
        {"6", "ring", "5", "0.1.2.3.4.5/0.5.4.3.2.1/0.2.4.1.3.5", "1"},
    };
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        mring_config_fields_t f = {.topo = cases[i].topo, .algo = cases[i].algo, .rings = cases[i].rings,
                                   .embed = cases[i].embed, .chunks = cases[i].chunks};
        mring_config_t c;
        int64_t counts[16];
        char err[256];
        if (mring_config_parse(&f, MRING_FIELDS_FLAGS, NULL, &c, err, sizeof err))
            fail_msg("case %zu: %s", i, err);
        assert_non_null(c.embed);
        int n = counts_for(c.topo.nranks, counts);
        for (int k = 0; k < n; k++)
            for (int seg = 0; seg < 2; seg++) {
                c.segment = seg ? (counts[k] > 10000 ? 65536 : 8) : 0;
                verify_ok(&c, (mring_call_t){counts[k], 4});
            }
    }
}

/* Counts above 2^31: offsets and sizes are 64-bit everywhere. */
static void huge_counts(void **state)
{
    (void)state;
    for (int a = 0; a < mring_algo_count(); a++) {
        mring_config_t c = config("4x2", (mring_algo_t)a, 1);
        verify_ok(&c, (mring_call_t){(INT64_C(1) << 31) + 11, 4});
        verify_ok(&c, (mring_call_t){(INT64_C(1) << 33) + 5, 8});
    }
    mring_config_t c = config("4x16x4", MRING_ALGO_MULTIRING, 2);
    verify_ok(&c, (mring_call_t){(INT64_C(1) << 32) + 3, 4});
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(small_flat),          cmocka_unit_test(factorisations), cmocka_unit_test(large),
        cmocka_unit_test(per_dimension_rings), cmocka_unit_test(per_dimension_algorithms), cmocka_unit_test(chunks),
        cmocka_unit_test(embeddings),
        cmocka_unit_test(huge_counts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
