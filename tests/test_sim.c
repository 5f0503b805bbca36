/* test_sim.c - `mring simulate` against the model and against what the platform allows.
 *
 * 1. On a contention-free platform (`mring platform cluster --nodes 8 --gpus-per-node 1`: every
 *    rank has its own links to a crossbar) the simulation equals `mring model --platform` within
 *    1% for every algorithm, topology and size (one cmocka test per algorithm x topology x rings;
 *    every row off by more than 1% is printed before the test fails).
 * 2. On platforms/minsky-64.xml no algorithm beats the bound of the one NIC per node.
 * 3. On minsky-64, multiring 4x16x4 beats the flat 256-rank ring at 1, 4 and 16 MB (the
 *    crossover above that is printed, not asserted).
 * 4. A NIC that a node's GPUs share binds the model's step before a narrower NVLink of the GPU's own.
 * 5. With --chunks the model walks the schedule by default, as the simulation runs it.
 * Routes, the committed platform files, bad platforms, --breakdown and --trace are in
 * test_sim_platforms.c.  Everything goes through the mring binary's csv output.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "csv_table.h"
#include "sim_cli.h"

#define CSV_HEADER "source,algo,topo,rings,ranks,size,count,type,redop,time_us,algbw_gbps,busbw_gbps,config"
#define MINSKY "platforms/minsky-64.xml"
#define MINSKY_NODES 64 /* 4 GPUs per node, 256 ranks, one EDR port per node */

/* ---- csv sweeps ---- */

enum { MAX_ROWS = 16, MAX_SWEEPS = 8 };

struct row {
    unsigned long long size;
    double time_us, busbw;
};

struct sweep {
    char key[1024]; /* the command line */
    struct row rows[MAX_ROWS];
    int n;
};

/* run args (which must print csv) and parse the rows into s */
static void sweep_run(const char *const *args, struct sweep *s)
{
    struct cli_result r = {0};
    char *f[14];
    cli_run_ok(args, &r);
    snprintf(s->key, sizeof s->key, "%s", r.cmd);
    s->n = 0;
    char *save = NULL, *l = strtok_r(r.out, "\n", &save);
    if (!l || strcmp(l, CSV_HEADER) != 0)
        fail_msg("%s: first line '%s', want the csv header", r.cmd, l ? l : "");
    while ((l = strtok_r(NULL, "\n", &save)) != NULL) {
        if (s->n == MAX_ROWS || csv_split(l, f, 14) != 13 || strncmp(f[12], "--algo ", 7))
            fail_msg("%s: row %d is not one of at most %d rows of 13 fields (the last the configuration)", r.cmd,
                     s->n, MAX_ROWS);
        s->rows[s->n++] = (struct row){strtoull(f[5], NULL, 10), strtod(f[9], NULL), strtod(f[11], NULL)};
    }
    cli_free(&r);
}

/* a simulation of minsky-64 over sizes b..e (-f 4), run once per test program */
static const struct sweep *minsky_sweep(const char *algo, const char *rings, const char *b, const char *e)
{
    static struct sweep cache[MAX_SWEEPS];
    static int ncache;
    const char *args[] = {"simulate", "--platform", sim_repo_path(MINSKY), "--algo", algo, "--rings", rings, "-b",
                          b, "-e", e, "-f", "4", "--format", "csv", NULL};
    char key[1024];
    size_t k = 0;
    for (int i = 0; args[i]; i++)
        k += (size_t)snprintf(key + k, k < sizeof key ? sizeof key - k : 0, " %s", args[i]);
    for (int i = 0; i < ncache; i++)
        if (!strcmp(cache[i].key, key))
            return &cache[i];
    if (ncache == MAX_SWEEPS)
        fail_msg("minsky_sweep: more than %d sweeps", MAX_SWEEPS);
    sweep_run(args, &cache[ncache]);
    snprintf(cache[ncache].key, sizeof cache[0].key, "%s", key);
    return &cache[ncache++];
}

static const struct row *row_of(const struct sweep *s, unsigned long long size)
{
    for (int i = 0; i < s->n; i++)
        if (s->rows[i].size == size)
            return &s->rows[i];
    fail_msg("%s: no row of size %llu", s->key, size);
    return NULL;
}

/* ---- 1. simulation = model on the contention-free cluster ---- */

struct acc_case {
    const char *name, *algo, *topo, *rings, *dim_algo;
};

static const struct acc_case acc_cases[] = {
#define ACC(a, t, r) {"sim_equals_model_" a "_" t "_rings_" r, a, t, r, "ring"}
#define ACC_TOPOS(a, r) ACC(a, "8", r), ACC(a, "2x4", r), ACC(a, "4x2", r), ACC(a, "2x2x2", r)
    ACC_TOPOS("multiring", "1"),    ACC_TOPOS("ring", "1"), ACC_TOPOS("rd", "1"), ACC_TOPOS("rabenseifner", "1"),
    ACC_TOPOS("hier", "1"),         ACC_TOPOS("multiring", "2"), ACC_TOPOS("ring", "2"), ACC_TOPOS("hier", "2"),
    /* hier with halving + doubling among the leaders (the Facebook scheme) */
    {"sim_equals_model_hier_halving_2x4", "hier", "2x4", "1", "rabenseifner"},
    {"sim_equals_model_hier_halving_2x2x2_rings_2", "hier", "2x2x2", "2", "rabenseifner"},
#undef ACC_TOPOS
#undef ACC
};

static void test_sim_equals_model(void **state)
{
    const struct acc_case *c = *state;
    const char *plat = sim_tmp_path("cluster8.xml");
    const char *sa[] = {"simulate", "--platform", plat, "--algo", c->algo, "--topo", c->topo, "--rings", c->rings,
                        "--dim-algo", c->dim_algo, "-b", "1K", "-e", "256M", "-f", "4", "--format", "csv", NULL};
    const char *ma[] = {"model", "--platform", plat, "--algo", c->algo, "--topo", c->topo, "--rings", c->rings,
                        "--dim-algo", c->dim_algo, "-b", "1K", "-e", "256M", "-f", "4", "--format", "csv", NULL};
    struct sweep s, m;
    int bad = 0;
    sweep_run(sa, &s);
    sweep_run(ma, &m);
    if (s.n != 10 || m.n != 10)
        fail_msg("%s: %d simulated and %d modelled rows, want 10 each (1K..256M)", c->name, s.n, m.n);
    for (int i = 0; i < s.n; i++) {
        double rel = (s.rows[i].time_us - m.rows[i].time_us) / m.rows[i].time_us;
        if (s.rows[i].size != m.rows[i].size)
            fail_msg("%s: row %d has size %llu simulated, %llu modelled", c->name, i, s.rows[i].size, m.rows[i].size);
        if (!(fabs(rel) <= 0.01) && ++bad)
            print_message("  %s %s rings %s size %llu: simulate %g us, model %g us (%+.2f%%)\n", c->algo, c->topo,
                          c->rings, s.rows[i].size, s.rows[i].time_us, m.rows[i].time_us, 100 * rel);
    }
    if (bad)
        fail_msg("%s: %d of %d rows differ by more than 1%%:\n  %s\n  %s", c->name, bad, s.n, s.key, m.key);
}

/* ---- 2. the bound of one NIC per node on minsky-64 ---- */

/*
 * Every node is one NIC port (bw B/s per direction) away from the others, and a node's 4 ranks'
 * inputs must leave it and the other 63 nodes' must come in: like one participant of an allreduce
 * among N = 64 nodes, each node sends at least 2(N-1)/N * size bytes.  So time >= 2(N-1)/N *
 * size / bw, i.e. busbw = size/time * 2(P-1)/P <= bw * (255/256) / (63/64).
 */
static void test_minsky_nic_bound(void **state)
{
    static const char *const configs[][2] = {
        {"multiring", "1"}, {"multiring", "2,1,1"}, {"ring", "1"}, {"rabenseifner", "1"}, {"hier", "1"}};
    /* the bandwidth (B/s) of node 0's NIC port, n0-rail0, from `mring route` between two nodes */
    const double bw = sim_link_bw(sim_repo_path(MINSKY), "n0-gpu0", "n16-gpu0", "n0-rail0"), n = MINSKY_NODES;
    int bad = 0;
    for (size_t c = 0; c < sizeof configs / sizeof configs[0]; c++) {
        const struct sweep *s = minsky_sweep(configs[c][0], configs[c][1], "1K", "1G");
        double best = 0;
        if (s->n != 11)
            fail_msg("%s: %d rows, want 11 (1K..1G)", s->key, s->n);
        for (int i = 0; i < s->n; i++) {
            double bound_us = 2 * (n - 1) / n * (double)s->rows[i].size / bw * 1e6;
            best = fmax(best, s->rows[i].busbw);
            if (!(s->rows[i].time_us >= bound_us) && ++bad)
                print_message("  %s rings %s size %llu: %g us < the NIC bound %g us\n", configs[c][0], configs[c][1],
                              s->rows[i].size, s->rows[i].time_us, bound_us);
        }
        print_message("  %-12s rings %-5s best busbw %.3f GB/s (bound %.3f)\n", configs[c][0], configs[c][1], best,
                      bw / 1e9 * (255.0 / 256) / ((n - 1) / n));
    }
    if (bad)
        fail_msg("%d rows beat the bound of one %.1f GB/s NIC per node", bad, bw / 1e9);
}

/* ---- 3. multiring beats the flat ring on minsky-64 up to 16 MB ---- */

/* assert multiring < ring at 1, 4, 16 MB; print the first size where ring is as fast; failures */
static int compare_flat(const struct sweep *mr, const struct sweep *ring, const char *what)
{
    static const unsigned long long mb[] = {1ULL << 20, 4ULL << 20, 16ULL << 20};
    int bad = 0;
    for (size_t i = 0; i < 3; i++) {
        const struct row *a = row_of(mr, mb[i]), *b = row_of(ring, mb[i]);
        if (!(a->time_us < b->time_us) && ++bad)
            print_message("  %s, %llu MB: multiring %g us, not faster than ring %g us\n", what, mb[i] >> 20,
                          a->time_us, b->time_us);
    }
    for (int i = 0; i < ring->n; i++) {
        const struct row *a = row_of(mr, ring->rows[i].size), *b = &ring->rows[i];
        if (b->time_us <= a->time_us) {
            print_message("  %s: crossover at %llu MB: flat ring %g us <= multiring %g us\n", what, b->size >> 20,
                          b->time_us, a->time_us);
            return bad;
        }
    }
    print_message("  %s: no crossover up to %llu bytes\n", what, ring->rows[ring->n - 1].size);
    return bad;
}

static void test_minsky_multiring_beats_ring(void **state)
{
    int bad = compare_flat(minsky_sweep("multiring", "1", "1K", "1G"), minsky_sweep("ring", "1", "1K", "1G"),
                           "rings 1 vs ring rings 1");
    /* the flat 2-ring sweep is the slowest simulation here: 1M..16M, the sizes asserted */
    bad += compare_flat(minsky_sweep("multiring", "2,1,1", "1K", "1G"), minsky_sweep("ring", "2", "1M", "16M"),
                        "rings 2,1,1 vs ring rings 2");
    if (bad)
        fail_msg("multiring 4x16x4 is not faster than the flat ring in %d of 6 cases", bad);
}

/* ---- 3. pipelining: sends to one peer leave in order, so a segmented chain is a pipeline ---- */

/* hier on 8 ranks is a chain: reduce along it, then broadcast.  Unsegmented, each of the 14 hops
 * carries the whole 64 MiB in turn (simulation == model); with 1 MiB pieces the hops overlap, and the
 * simulation must follow the model's pipelined walk (within 15%), i.e. be about 6x faster. */
static void test_pipelined_chain(void **state)
{
    const char *plat = sim_tmp_path("cluster8.xml");
    double t[2][2]; /* [segment 0, 1M][simulate, model] */
    (void)state;
    for (int seg = 0; seg < 2; seg++)
        for (int k = 0; k < 2; k++) {
            const char *args[] = {k ? "model" : "simulate", "--platform", plat, "--topo", "8", "--algo", "hier",
                                  "--segment", seg ? "1M" : "0", "-b", "64M", "-e", "64M", "--format", "csv", NULL};
            struct sweep sw;
            sweep_run(args, &sw);
            assert_int_equal(sw.n, 1);
            t[seg][k] = sw.rows[0].time_us;
        }
    if (fabs(t[0][0] - t[0][1]) > 1e-6 * t[0][1])
        fail_msg("unsegmented chain: simulate %g us, model %g us", t[0][0], t[0][1]);
    if (!(t[1][0] < t[0][0] / 4 && fabs(t[1][0] - t[1][1]) <= 0.15 * t[1][1]))
        fail_msg("chain with 1 MiB pieces: simulate %g us, model %g us, unsegmented %g us", t[1][0], t[1][1],
                 t[0][0]);
}

/* ---- 4. the model's bottleneck: a NIC the node's GPUs share binds before a narrower NVLink of their own ---- */

/* A 4-node Minsky whose NVLink runs at 10 GB/s: the route between nodes crosses a GPU's own 10 GB/s link and
 * the node's one 12.5 GB/s EDR port, which its 4 GPUs share (3.1 GB/s each).  The model once took the narrower
 * NVLink for the step's link and predicted rd at 64 MiB in half the simulated time, faster than with 20 GB/s
 * NVLink; now it must follow the simulation (within 1%) and the slower NVLink cannot be faster. */
static void test_model_shared_nic(void **state)
{
    static const char *const algos[] = {"rd", "multiring"};
    double t[2][2][2]; /* [algo][nvlink 10, 20 GB/s][simulate, model] */
    (void)state;
    for (int n = 0; n < 2; n++) {
        const char *plat = sim_tmp_path(n ? "minsky4-nv20.xml" : "minsky4-nv10.xml");
        const char *mk[] = {"platform", "minsky", "--nodes", "4", "--racks", "1", "--nvlink-bw", n ? "20GBps" : "10GBps",
                            "-o", plat, NULL};
        assert_int_equal(sim_setup_run(mk), 0);
        for (int a = 0; a < 2; a++)
            for (int k = 0; k < 2; k++) {
                const char *args[] = {k ? "model" : "simulate", "--platform", plat, "--algo", algos[a],
                                      "-b", "64M", "-e", "64M", "--format", "csv", NULL};
                struct sweep sw;
                sweep_run(args, &sw);
                assert_int_equal(sw.n, 1);
                t[a][n][k] = sw.rows[0].time_us;
            }
    }
    for (int a = 0; a < 2; a++) {
        print_message("  %s at 64 MiB, NVLink 10 GB/s: simulate %g us, model %g us; 20 GB/s: %g, %g\n", algos[a],
                      t[a][0][0], t[a][0][1], t[a][1][0], t[a][1][1]);
        if (fabs(t[a][0][1] - t[a][0][0]) > 0.01 * t[a][0][0] || t[a][0][1] < t[a][1][1])
            fail_msg("%s at 64 MiB with 10 GB/s NVLink: model %g us, simulate %g us, model with 20 GB/s %g us", algos[a],
                     t[a][0][1], t[a][0][0], t[a][1][1]);
    }
}

/* ---- 5. chunks: the model walks the pipeline by default ---- */

/* Multiring 2x4 with 4 chunks at 1 KiB on the contention-free cluster: latency decides, and the chunks' steps
 * overlap.  The closed form's pipeline bound (fill + 3 x the busiest link's share) charges 60.09 us; the walk,
 * now the default with --chunks, follows the schedule as the simulation does (51.09 and 51.10 us). */
static void test_model_chunks_walk(void **state)
{
    const char *plat = sim_tmp_path("cluster8.xml");
    const char *const modes[][2] = {{"simulate", NULL}, {"model", NULL}, {"model", "--method=walk"},
                                    {"model", "--method=closed"}};
    double t[4];
    (void)state;
    for (int k = 0; k < 4; k++) {
        const char *args[] = {modes[k][0], "--platform", plat, "--algo", "multiring", "--topo", "2x4", "--chunks", "4",
                              "-b", "1K", "-e", "1K", "--format", "csv", modes[k][1], NULL};
        struct sweep sw;
        sweep_run(args, &sw);
        assert_int_equal(sw.n, 1);
        t[k] = sw.rows[0].time_us;
    }
    print_message("  2x4, 4 chunks, 1 KiB: simulate %g us, model %g (walk %g, closed %g)\n", t[0], t[1], t[2], t[3]);
    if (t[1] != t[2] || fabs(t[1] - t[0]) > 0.01 * t[0] || t[3] < 1.1 * t[0])
        fail_msg("2x4 with 4 chunks at 1 KiB: simulate %g us, model %g us, walk %g us, closed %g us", t[0], t[1], t[2],
                 t[3]);
}

/* ---- the cluster platform for 1, made once ---- */

static int group_setup(void **state)
{
    const char *args[] = {"platform", "cluster", "--nodes", "8", "--gpus-per-node", "1", "-o", NULL, NULL};
    if (sim_tmp_setup(state) != 0)
        return -1;
    args[7] = sim_tmp_path("cluster8.xml");
    return sim_setup_run(args);
}

int main(void)
{
    enum { NACC = sizeof acc_cases / sizeof acc_cases[0] };
    struct CMUnitTest tests[NACC + 5];
    if (access(cli_bin(), X_OK) != 0) {
        fprintf(stderr, "test_sim: %s is not executable; build it (scons -Q) or set MRING_BIN\n", cli_bin());
        return 1;
    }
    for (size_t i = 0; i < NACC; i++)
        tests[i] = (struct CMUnitTest){acc_cases[i].name, test_sim_equals_model, NULL, NULL, (void *)&acc_cases[i]};
    tests[NACC] = (struct CMUnitTest)cmocka_unit_test(test_minsky_nic_bound);
    tests[NACC + 1] = (struct CMUnitTest)cmocka_unit_test(test_minsky_multiring_beats_ring);
    tests[NACC + 2] = (struct CMUnitTest)cmocka_unit_test(test_pipelined_chain);
    tests[NACC + 3] = (struct CMUnitTest)cmocka_unit_test(test_model_shared_nic);
    tests[NACC + 4] = (struct CMUnitTest)cmocka_unit_test(test_model_chunks_walk);
    return cmocka_run_group_tests_name("sim", tests, group_setup, sim_tmp_teardown);
}
