/*
 * test_loopback.c - real allreduce results of mring_loopback_allreduce.
 *
 * Every algorithm x type x op x small topology x count {0, 1, P-1, P, P+1, 2P+1,
 * 37, 1000} x rings {1, 2} x in-place / out-of-place, on inputs whose exact result
 * does not depend on the order of reduction (see loopback_harness.h), plus float32
 * and int64 sum over more topologies, rings and segments.  Checked bit for bit on
 * every rank, with unchanged send buffers and poisoned receive buffers.  NaN and
 * signed zero: test_loopback_nan.c.
 */
#include "loopback_harness.h"

static void run_std(spec_t *s)
{
    mring_config_t c;
    if (make_config(s, &c))
        return;
    fill_standard(s, c.topo.nranks);
    run_check(s, &c, -1);
}

/* hier with recursive halving + doubling among the node leaders (--dim-algo rabenseifner). */
static void run_hier_halving(spec_t *s)
{
    mring_config_t c;
    char err[256];
    if (make_config(s, &c))
        return;
    for (int i = 0; i < c.topo.ndims; i++)
        c.dim_algo[i] = MRING_DIM_RABENSEIFNER;
    if (mring_config_check(&c, err, sizeof err))
        fail_msg("hier on %s with halving among the leaders: %s", s->topo, err);
    fill_standard(s, c.topo.nranks);
    run_check(s, &c, -1);
}

static void test_hier_halving(void **state)
{
    static const char *const topos[] = {"2x2", "3x4", "4x2", "2x2x2", "1x8", "2x4x2"};
    static const int64_t segs[] = {0, 8};
    const sweep_t w = {topos, 6, rings12, 2, segs, 2, BASIC_TYPES, 1u << MRING_SUM | 1u << MRING_MAX, NULL, 0,
                       run_hier_halving};
    (void)state;
    begin();
    do_sweep(MRING_ALGO_HIER, &w);
    end("hier, halving among leaders");
}

/* multiring with its data in 2, 3 and 5 chunks pipelined through the dimensions (--chunks), with
 * rings, and recursive halving or doubling in every dimension where the grid allows it. */
static void run_chunked(spec_t *s)
{
    mring_config_t c;
    char err[256];
    if (make_config(s, &c))
        return;
    fill_standard(s, c.topo.nranks);
    for (int ch = 2; ch <= 5; ch += ch == 2 ? 1 : 2)
        for (int h = 0; h < 3; h++) { /* ring, halving, doubling in every dimension */
            c.chunks = ch;
            for (int i = 0; i < c.topo.ndims; i++)
                c.dim_algo[i] = (uint8_t)(h == 2 ? MRING_DIM_RD : h ? MRING_DIM_RABENSEIFNER : MRING_DIM_RING);
            if (h && mring_config_check(&c, err, sizeof err))
                continue; /* halving and doubling need power-of-two dimensions */
            if (mring_config_check(&c, err, sizeof err))
                fail_msg("multiring on %s with %d chunks: %s", s->topo, ch, err);
            run_check(s, &c, -1);
        }
}

/* Rings on embeddings: 4 rings per dimension over 2 cycles (coordinate order and reversed-then-rotated),
 * with and without chunks: exact results on every rank. */
static void run_embedded(spec_t *s)
{
    mring_config_t c;
    char text[512] = "", err[256];
    if (make_config(s, &c))
        return;
    const mring_topo_t grid = c.algo == MRING_ALGO_RING ? mring_topo_flat(c.topo.nranks) : c.topo;
    for (int i = 0; i < grid.ndims; i++) {
        int d = grid.dims[i];
        snprintf(text + strlen(text), sizeof text - strlen(text), "%s", i ? ";" : "");
        if (d < 3) {
            snprintf(text + strlen(text), sizeof text - strlen(text), "-");
            continue;
        }
        for (int x = 0; x < d; x++)
            snprintf(text + strlen(text), sizeof text - strlen(text), "%s%d", x ? "." : "", x);
        for (int x = 0; x < d; x++) /* d-1, d-2, ..., 0 rotated by one: another Hamiltonian cycle */
            snprintf(text + strlen(text), sizeof text - strlen(text), "%s%d", x ? "." : "/", (2 * d - 2 - x) % d);
    }
    if (mring_embed_parse(text, &grid, &c.embed, err, sizeof err))
        fail_msg("embedding %s of %s: %s", text, s->topo, err);
    if (!c.embed || mring_config_check(&c, err, sizeof err))
        return; /* no dimension of 3 or more, or an algorithm without embeddings */
    fill_standard(s, c.topo.nranks);
    for (int ch = 1; ch <= 3; ch += 2) {
        c.chunks = c.algo == MRING_ALGO_MULTIRING ? ch : 1;
        run_check(s, &c, -1);
    }
}

static void test_embeddings(void **state)
{
    static const char *const topos[] = {"3", "4", "5", "8", "3x2", "4x3", "2x3x1", "3x1x4"};
    static const int rings[] = {4, 3};
    static const int64_t segs[] = {0, 8};
    const sweep_t w = {topos, 8, rings, 2, segs, 2, 1u << MRING_FLOAT32 | 1u << MRING_INT64 | 1u << MRING_BFLOAT16,
                       1u << MRING_SUM | 1u << MRING_MIN, NULL, 0, run_embedded};
    (void)state;
    begin();
    do_sweep(MRING_ALGO_MULTIRING, &w);
    do_sweep(MRING_ALGO_RING, &w);
    end("embeddings");
}

static void test_chunks(void **state)
{
    static const char *const topos[] = {"2x3", "4x2", "2x2x2", "3x1x2", "2x2x2x2", "1x4", "8"};
    static const int rings[] = {1, 2, -1};
    static const int64_t segs[] = {0, 8};
    const sweep_t w = {topos, 7, rings, 3, segs, 2, BASIC_TYPES, 1u << MRING_SUM | 1u << MRING_MAX, NULL, 0, run_chunked};
    (void)state;
    begin();
    do_sweep(MRING_ALGO_MULTIRING, &w);
    end("multiring, chunks");
}

/* Every type x op x small topology x count x rings {1, 2} x in-place, for one algorithm. */
static void test_cross(void **state)
{
    mring_algo_t algo = *(const mring_algo_t *)*state;
    const sweep_t w = {small_topos, 8, rings12, 2, seg0, 1, BASIC_TYPES, BASIC_OPS, NULL, 0, run_std};
    begin();
    do_sweep(algo, &w);
    /* rings 2 is valid for multiring, ring and hier; rd and rabenseifner run one stream */
    if (algo == MRING_ALGO_RD || algo == MRING_ALGO_RABENSEIFNER)
        assert_int_equal(nmulti, 0);
    else
        assert_true(nmulti > 0);
    end(mring_algo_name(algo));
}

/* float32 and int64 sum over more topologies (dimensions of 1, P up to 16), rings
 * 1..3 and per dimension (multiring), and segments of 8 and 24 bytes. */
static void test_wide(void **state)
{
    static const char *const topos[] = {"1",   "5",   "6",   "7",     "8",       "16",  "3x3",
                                        "2x5", "1x4", "4x1", "3x1x2", "2x2x2x2", "1x1", "2x1x3"};
    static const int rings[] = {1, 2, 3, -1, -2};
    static const int64_t segs[] = {0, 8, 24};
    const sweep_t w = {topos, 14, rings, 5, segs, 3, 1u << MRING_FLOAT32 | 1u << MRING_INT64, 1u << MRING_SUM,
                       NULL, 0, run_std};
    (void)state;
    sweep_all_algos("wide", &w);
}

/* A segment below one element of the call's type: the call fails with a reason naming it and writes nothing. */
static void test_segment_below_element(void **state)
{
    mring_config_t c;
    double in[4] = {1, 2, 3, 4}, out[4] = {0};
    void *outs[1] = {out};
    const void *ins[1] = {in};
    char err[256] = "";
    (void)state;
    mring_config_default(&c, &(mring_topo_t){1, {1}, 1});
    c.segment = 4;
    assert_int_equal(mring_loopback_allreduce(&c, 4, MRING_FLOAT64, MRING_SUM, ins, outs, err, sizeof err), -1);
    assert_non_null(strstr(err, "--segment 4"));
    assert_true(out[0] == 0 && out[3] == 0);
}

int main(void)
{
    static const mring_algo_t algos[MRING_NALGOS_BUILTIN] = {MRING_ALGO_MULTIRING, MRING_ALGO_RING, MRING_ALGO_RD,
                                                     MRING_ALGO_RABENSEIFNER, MRING_ALGO_HIER};
    const struct CMUnitTest tests[] = {
        {"cross multiring", test_cross, NULL, NULL, (void *)&algos[0]},
        {"cross ring", test_cross, NULL, NULL, (void *)&algos[1]},
        {"cross rd", test_cross, NULL, NULL, (void *)&algos[2]},
        {"cross rabenseifner", test_cross, NULL, NULL, (void *)&algos[3]},
        {"cross hier", test_cross, NULL, NULL, (void *)&algos[4]},
        cmocka_unit_test(test_wide),
        cmocka_unit_test(test_chunks),
        cmocka_unit_test(test_embeddings),
        cmocka_unit_test(test_hier_halving),
        cmocka_unit_test(test_segment_below_element),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
