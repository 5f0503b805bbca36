/*
 * test_cost.c - the alpha-beta-gamma model: closed forms against the schedule walker, against
 * hand-computed formulas (Thakur et al. 2005; Patarasuk and Yuan 2009; Cho et al. 2017), link sharing and pipelining.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "algo.h"
#include "cost.h"

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

static mring_cost_params_t links(const mring_topo_t *t, const char *spec, double gamma_bw)
{
    mring_cost_params_t p = {0};
    char err[256];
    p.gamma_bw = gamma_bw;
    if (mring_links_parse(spec, t, &p, err, sizeof err))
        fail_msg("--links %s: %s", spec, err);
    return p;
}

static void assert_close(double got, double want, double rel, const char *what)
{
    if (!(fabs(got - want) <= rel * fabs(want)))
        fail_msg("%s: got %.12g s, expected %.12g s", what, got, want);
}

/* Closed form == walked schedule when every step costs the same on every rank: any algorithm on one
 * dimension with uniform ports; on hierarchies, multiring always, and the others where the grid and
 * the links keep their steps uniform (algos lists them; maxr bounds the rings). */
static void closed_equals_walk(void **state)
{
    enum { MR = 1 << MRING_ALGO_MULTIRING, RI = 1 << MRING_ALGO_RING, RD = 1 << MRING_ALGO_RD,
           RA = 1 << MRING_ALGO_RABENSEIFNER, HI = 1 << MRING_ALGO_HIER, ALL = MR | RI | RD | RA | HI };
    static const struct {
        const char *topo, *links;
        int algos, maxr;
    } cases[] = {
        {"8", "1us:10GBps", ALL, 3},
        {"8", "1us:10GBps:2", ALL, 3},
        {"6", "3us:5GBps", ALL, 3},
        {"13", "1us:10GBps:13", ALL, 3},
        {"12", "1us:10GBps", ALL, 3},
        {"4x16x4", "1us:36GBps,2us:12.5GBps:4,2us:12.5GBps:4", MR | RD | RA, 3},
        {"4x16x4", "1us:36GBps,2us:12.5GBps:4,2us:12.5GBps:4", HI, 1},
        {"4x16", "1us:36GBps,5us:12.5GBps:4", MR | HI, 3},
        {"2x2x2x2", "1us:50GBps,2us:20GBps,4us:10GBps:8,8us:5GBps:16", MR | RD | RA, 3},
        {"3x5", "1us:20GBps,2us:10GBps", MR | HI, 3},
    };
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        for (int a = 0; a < mring_algo_count(); a++)
            for (int r = 1; r <= cases[i].maxr && (cases[i].algos >> a & 1); r++)
                for (int inplace = 0; inplace < 2; inplace++) {
                    mring_config_t c = config(cases[i].topo, (mring_algo_t)a, r);
    mring_call_t k = {0, 4};
                    char err[256], what[256];
                    if (mring_config_check(&c, err, sizeof err))
                        continue;
                    mring_cost_params_t p = links(&c.topo, cases[i].links, 200e9);
                    k.count = (int64_t)c.topo.nranks * 3 * 4 * 5 * 7 * 64; /* every block even */
                    snprintf(what, sizeof what, "%s on %s, rings %d, %s", mring_algo_name(c.algo), cases[i].topo,
                             r, inplace ? "in place" : "out of place");
                    double walk = mring_cost_walk(&c, k, &p, inplace);
                    assert_true(walk > 0);
                    assert_close(mring_cost_closed(&c, k, &p, inplace), walk, 1e-12, what);
                }
}

/* Dimensions run by recursive halving: the closed form follows the walk, and with uniform links
 * halving everywhere costs what rabenseifner costs. */
static void per_dimension_algorithms(void **state)
{
    mring_config_t c = config("4x16x4", MRING_ALGO_MULTIRING, 1);
    mring_call_t k = {256 * 3 * 64, 4};
    mring_cost_params_t p = links(&c.topo, "1us:36GBps,2us:12.5GBps:4,2us:12.5GBps:4", 240e9);
    (void)state;
    for (int mask = 0; mask < 27; mask++) /* ring, rabenseifner or rd in each of 3 dimensions */
        for (int r = 1; r <= 2; r++) {
            for (int i = 0; i < 3; i++) {
                c.dim_algo[i] = (uint8_t)(mask / (i == 0 ? 1 : i == 1 ? 3 : 9) % 3);
                c.rings[i] = r;
            }
            assert_close(mring_cost_closed(&c, k, &p, 0), mring_cost_walk(&c, k, &p, 0), 1e-12, "dim-algo");
        }
    c = config("2x4x8", MRING_ALGO_MULTIRING, 1);
    k.count = 64 * 5 * 64;
    p = links(&c.topo, "2us:10GBps,2us:10GBps,2us:10GBps", 100e9);
    for (int i = 0; i < 3; i++)
        c.dim_algo[i] = MRING_DIM_RABENSEIFNER;
    double halving = mring_cost_closed(&c, k, &p, 0);
    c.algo = MRING_ALGO_RABENSEIFNER;
    assert_close(halving, mring_cost_closed(&c, k, &p, 0), 1e-12, "halving in every dimension == rabenseifner");
}

/* hier with halving + doubling among the leaders (Goyal et al. 4.1): the closed form follows the
 * walk; the bandwidth term equals the leaders' ring's, the latency term has 2 lg m steps, not 2(m-1). */
static void hier_leader_halving(void **state)
{
    mring_config_t c = config("8x32", MRING_ALGO_HIER, 1);
    mring_call_t k = {256 * 3 * 64, 4};
    mring_cost_params_t p = links(&c.topo, "1us:36GBps,10us:6.25GBps:8", 240e9);
    (void)state;
    for (int r = 1; r <= 2; r++) {
        c.rings[0] = c.rings[1] = r;
        c.dim_algo[0] = c.dim_algo[1] = MRING_DIM_RABENSEIFNER;
        assert_close(mring_cost_closed(&c, k, &p, 0), mring_cost_walk(&c, k, &p, 0), 1e-12, "hier, halving leaders");
    }
    c.rings[0] = c.rings[1] = 1;
    k.count = 32; /* one element per leader block: latency only */
    double halving = mring_cost_closed(&c, k, &p, 0);
    c.dim_algo[0] = c.dim_algo[1] = MRING_DIM_RING;
    double ring = mring_cost_closed(&c, k, &p, 0);
    /* 62 ring steps against 10 halving/doubling steps of 10 us each, the rest the same */
    assert_close(ring - halving, 52 * 10e-6, 0.02, "ring minus halving among 32 leaders");
}

/* multiring (Cho et al. 2017): sum_i (d_i - 1)(2 alpha_i + 2 (n / D_i) beta_i m_i + (n / D_i) gamma) + copy */
static void multiring_formula(void **state)
{
    mring_config_t c = config("4x16x4", MRING_ALGO_MULTIRING, 1);
    mring_call_t k = {1 << 24, 4};
    mring_cost_params_t p = links(&c.topo, "1us:36GBps,2us:12.5GBps:4,2us:12.5GBps:4", 240e9);
    double n = (double)(1 << 24) * 4, D[] = {4, 64, 256}, d[] = {4, 16, 4}, alpha[] = {1e-6, 2e-6, 2e-6};
    double beta_m[] = {1 / 36e9, 4 / 12.5e9, 4 / 12.5e9}; /* 4 GPUs share each node's port */
    double want = n * (2.0 / 3.0) / 240e9;
    (void)state;
    for (int i = 0; i < 3; i++)
        want += (d[i] - 1) * (2 * alpha[i] + 2 * n / D[i] * beta_m[i] + n / D[i] / 240e9);
    assert_close(mring_cost_closed(&c, k, &p, 0), want, 1e-12, "multiring 4x16x4 closed form");
    assert_close(mring_cost_walk(&c, k, &p, 0), want, 1e-12, "multiring 4x16x4 walk");
}

/* 2.6 "shared NIC": the inter-node part equals a ring of host leaders carrying the whole buffer. */
static void nic_sharing_identity(void **state)
{
    mring_config_t c = config("4x16x4", MRING_ALGO_MULTIRING, 1);
    mring_call_t k = {1 << 22, 4};
    mring_cost_params_t p = links(&c.topo, "0s:36GBps,0s:12.5GBps:4,0s:12.5GBps:4", 0);
    double n = (double)(1 << 22) * 4;
    double want = 2 * 0.75 * n / 36e9 + 2 * (63.0 / 64.0) * n / 12.5e9;
    (void)state;
    assert_close(mring_cost_closed(&c, k, &p, 1), want, 1e-12, "NIC sharing identity");
}

/* Textbook forms on one dimension (2.1-2.3), alpha + n beta + n gamma per step. */
static void textbook(void **state)
{
    const double a = 3e-6, bw = 10e9, g = 100e9, n = 8.0 * 1024 * 1024 * 4;
    (void)state;
    mring_config_t c = config("8", MRING_ALGO_RING, 1);
    mring_call_t k = {8 * 1024 * 1024, 4};
    mring_cost_params_t p = links(&c.topo, "3us:10GBps", g);
    assert_close(mring_cost_closed(&c, k, &p, 1), 2 * 7 * a + 2 * (7.0 / 8) * n / bw + (7.0 / 8) * n / g, 1e-12,
                 "ring");
    c.algo = MRING_ALGO_RD;
    assert_close(mring_cost_closed(&c, k, &p, 1), 3 * (a + n / bw + n / g), 1e-12, "recursive doubling");
    c.algo = MRING_ALGO_RABENSEIFNER;
    assert_close(mring_cost_closed(&c, k, &p, 1), 2 * 3 * a + 2 * (7.0 / 8) * n / bw + (7.0 / 8) * n / g, 1e-12,
                 "rabenseifner");
    /* P = 6: MPICH's fold adds (alpha + n beta + n gamma) before and (alpha + n beta) after */
    c = config("6", MRING_ALGO_RD, 1);
    k.count = 6 * 1024 * 1024;
    p = links(&c.topo, "3us:10GBps", g);
    double n6 = 6.0 * 1024 * 1024 * 4;
    assert_close(mring_cost_closed(&c, k, &p, 1), 3 * (a + n6 / bw + n6 / g) + (a + n6 / bw), 1e-12, "rd, P = 6");
    assert_close(mring_cost_walk(&c, k, &p, 1), 3 * (a + n6 / bw + n6 / g) + (a + n6 / bw), 1e-12, "rd walk");
}

/* Opposite rings use both directions of point-to-point links, but not of a shared port. */
static void bidirectional_rings(void **state)
{
    const double n = 8.0 * 3 * 1024 * 4, bw = 10e9;
    (void)state;
    for (int port = 0; port < 2; port++)
        for (int r = 1; r <= 2; r++) {
            mring_config_t c = config("8", MRING_ALGO_MULTIRING, r);
    mring_call_t k = {8 * 3 * 1024, 4};
            mring_cost_params_t p = links(&c.topo, port ? "0s:10GBps:1" : "0s:10GBps", 0);
            double want = 2 * (7.0 / 8) * n / bw / (port ? 1 : r);
            assert_close(mring_cost_closed(&c, k, &p, 1), want, 1e-12, port ? "port" : "p2p");
            assert_close(mring_cost_walk(&c, k, &p, 1), want, 1e-12, port ? "port walk" : "p2p walk");
        }
    /* a group of 2: both rings send to the same neighbour, nothing to gain */
    mring_config_t c = config("2", MRING_ALGO_MULTIRING, 2);
    mring_call_t k = {1024, 4};
    mring_cost_params_t p = links(&c.topo, "0s:10GBps", 0);
    assert_close(mring_cost_walk(&c, k, &p, 1), 2 * 0.5 * 4096 / bw, 1e-12, "d = 2");
}

/* A flat ring on a hierarchy: the closed form is the bottleneck-hop bound, the walk at most that. */
static void flat_ring_bottleneck(void **state)
{
    mring_config_t c = config("4x16", MRING_ALGO_RING, 1);
    mring_call_t k = {64 * 4096, 4};
    mring_cost_params_t p = links(&c.topo, "1us:36GBps,2us:12.5GBps:4", 240e9);
    double closed = mring_cost_closed(&c, k, &p, 0), walk = mring_cost_walk(&c, k, &p, 0);
    double bw_bound = 2 * (63.0 / 64) * 64 * 4096 * 4 / 12.5e9; /* the node-crossing hops carry it all */
    (void)state;
    assert_true(walk <= closed * (1 + 1e-12));
    assert_true(walk >= bw_bound);
    /* a port group cut short (13 ranks, 4 per port): rank 12 sends alone, faster than the rest */
    c = config("13", MRING_ALGO_MULTIRING, 1);
    k.count = 13 * 4096;
    p = links(&c.topo, "1us:10GBps:4", 200e9);
    closed = mring_cost_closed(&c, k, &p, 0);
    walk = mring_cost_walk(&c, k, &p, 0);
    assert_true(walk <= closed * (1 + 1e-12));
    assert_true(walk >= 2 * 12 * 4096 * 4 * 4 / 10e9); /* 12 steps each way on a link shared by 4 */
}

/* Where steps cost differently on different ranks the closed form sums each step's worst rank:
 * an upper bound of the walk. */
static void closed_bounds_walk(void **state)
{
    static const struct {
        const char *topo, *links;
    } cases[] = {
        {"12", "1us:10GBps:4"}, {"13", "1us:10GBps:4"}, {"6", "2us:10GBps:4"},
        {"4x16x4", "1us:36GBps,2us:12.5GBps:4,5us:6GBps:4"}, {"3x5", "1us:20GBps,2us:10GBps:3"},
        {"4x6", "1us:36GBps,3us:12.5GBps:4"}, {"2x3x2", "1us:40GBps,2us:20GBps:2,4us:10GBps:6"},
    };
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        for (int a = 0; a < mring_algo_count(); a++)
            for (int r = 1; r <= 2; r++) {
                mring_config_t c = config(cases[i].topo, (mring_algo_t)a, r);
    mring_call_t k = {0, 4};
                char err[256];
                if (mring_config_check(&c, err, sizeof err))
                    continue;
                mring_cost_params_t p = links(&c.topo, cases[i].links, 200e9);
                k.count = (int64_t)c.topo.nranks * 3 * 4 * 5 * 7 * 64;
                double walk = mring_cost_walk(&c, k, &p, 0), closed = mring_cost_closed(&c, k, &p, 0);
                if (!(walk > 0 && walk <= closed * (1 + 1e-12)))
                    fail_msg("%s on %s rings %d: walk %.9g s above the closed form %.9g s", mring_algo_name(c.algo),
                             cases[i].topo, r, walk, closed);
            }
}

/* Pipelining: segments no smaller than a block change nothing; small ones overlap the chain. */
static void pipelining(void **state)
{
    mring_config_t c = config("4x16", MRING_ALGO_HIER, 1);
    mring_call_t k = {16 << 20, 4};
    mring_cost_params_t p = links(&c.topo, "1us:36GBps,2us:12.5GBps:4", 240e9);
    double whole = mring_cost_walk(&c, k, &p, 0), closed = mring_cost_closed(&c, k, &p, 0);
    (void)state;
    assert_close(whole, closed, 1e-12, "hier, no segment");
    c.segment = 64 << 20;
    assert_close(mring_cost_walk(&c, k, &p, 0), whole, 1e-12, "hier, segment above the buffer");
    c.segment = 1 << 20;
    double piped = mring_cost_walk(&c, k, &p, 0);
    double n = (double)(16 << 20) * 4;
    /* the chains overlap: at least the leaders' ring and one pass over NVLink remain */
    if (!(piped < 0.8 * whole && piped > 2 * (15.0 / 16) * n / 12.5e9 + n / 36e9))
        fail_msg("pipelined hier took %g s; unpipelined %g s", piped, whole);
}

/* The walk keeps at most MRING_SEND_WINDOW sends of a stream to one peer in flight, as the simulator does:
 * a flat ring of 2 ranks, 4 pieces a step, latency L = 10 us far above a piece's B = 1.024 us, free
 * reductions.  Sends 1..4 (reduce-scatter, all ready at 0) arrive at L+B, L+2B, 2L+2B, 2L+3B (send 3 waits
 * for send 1).  The allgather's receives overwrite what sends 1..4 read, so (ops issue in order) its sends
 * 5..8 are issued at 2L+3B and wait for sends 3..6 in turn: 3L+4B, 3L+5B, 4L+5B, 4L+6B.  Without the window
 * they would end at 2L+8B; the simulator, whose two messages in flight share the link, says 4L+8B. */
static void send_window(void **state)
{
    mring_config_t c = config("2", MRING_ALGO_RING, 1);
    mring_call_t k = {2048, 4}; /* 8 KiB: 4 KiB blocks in pieces of 1 KiB */
    mring_cost_params_t p = links(&c.topo, "10us:1GBps", INFINITY);
    double L = 10e-6, B = 1024 / 1e9;
    (void)state;
    c.segment = 1024;
    assert_close(mring_cost_walk(&c, k, &p, 0), 4 * L + 6 * B, 1e-12, "2 ranks, 4 pieces a step");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(closed_equals_walk),   cmocka_unit_test(per_dimension_algorithms),
        cmocka_unit_test(multiring_formula),     cmocka_unit_test(hier_leader_halving),
        cmocka_unit_test(nic_sharing_identity), cmocka_unit_test(textbook),
        cmocka_unit_test(bidirectional_rings),  cmocka_unit_test(flat_ring_bottleneck),
        cmocka_unit_test(closed_bounds_walk),
        cmocka_unit_test(pipelining),           cmocka_unit_test(send_window),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
