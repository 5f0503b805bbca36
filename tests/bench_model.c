/*
 * bench_model.c - how fast and how close the two cost evaluations are, and how long
 * the verifier takes (a benchmark: it measures and prints, it asserts nothing).
 *
 * Table 1: for each configuration, the closed-form prediction (mring_cost_closed),
 * the schedule-walk prediction (mring_cost_walk), their ratio, the wall-clock time
 * of one evaluation of each (CLOCK_MONOTONIC; fast calls are repeated and averaged)
 * and how many times slower the walk is.  Configurations: the 64-node Minsky
 * numbers (4x16x4, NVLink 1us:36GBps inside a node, 4 GPUs per 12.5 GBps port
 * across nodes and racks, gamma 240e9 bytes/s) and flat rings of 256 and 1024 ranks
 * behind shared ports, for multiring (rings 1, 2), ring, rd, rabenseifner and hier,
 * at 1 KiB, 1 MiB and 100 MiB of float32 per rank, out of place.
 *
 * Table 2: wall-clock time of mring_verify (all ranks' schedules symbolically
 * executed, out of place and in place) for a few configurations.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "algo.h"
#include "cost.h"
#include "verify.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct {
    const char *topo, *links, *name;
} platform_t;

static const platform_t platforms[] = {
    {"4x16x4", "1us:36GBps,2us:12.5GBps:4,2us:12.5GBps:4", "minsky"},
    {"256", "2us:12.5GBps:4", "flat"},
    {"1024", "2us:12.5GBps:4", "flat"},
};

static const struct {
    mring_algo_t algo;
    int rings;
} algos[] = {
    {MRING_ALGO_MULTIRING, 1}, {MRING_ALGO_MULTIRING, 2}, {MRING_ALGO_RING, 1},
    {MRING_ALGO_RD, 1},        {MRING_ALGO_RABENSEIFNER, 1}, {MRING_ALGO_HIER, 1},
};

static const struct {
    const char *name;
    int64_t bytes;
} sizes[] = {{"1KiB", 1024}, {"1MiB", 1 << 20}, {"100MiB", 100LL << 20}};

/* A checked configuration, or exit with the reason (a benchmark of a bad configuration is a bug here). */
static mring_config_t config(const char *topo, mring_algo_t algo, int rings)
{
    mring_config_t c;
    mring_topo_t t;
    char err[256];
    if (mring_topo_parse(topo, &t, err, sizeof err)) {
        fprintf(stderr, "bench_model: topology %s: %s\n", topo, err);
        exit(1);
    }
    mring_config_default(&c, &t);
    c.algo = algo;
    for (int i = 0; i < t.ndims; i++)
        c.rings[i] = rings;
    if (mring_config_check(&c, err, sizeof err)) {
        fprintf(stderr, "bench_model: %s %s rings %d: %s\n", mring_algo_name(algo), topo, rings, err);
        exit(1);
    }
    return c;
}

/* Seconds per call of closed (walk = 0) or walk: repeated until 20 ms have passed (at least once). */
static double time_eval(const mring_config_t *c, mring_call_t k, const mring_cost_params_t *p, int walk, double *result)
{
    int reps = 0;
    double t0 = now_s(), t;
    do {
        *result = walk ? mring_cost_walk(c, k, p, 0) : mring_cost_closed(c, k, p, 0);
        reps++;
        t = now_s() - t0;
    } while (t < 0.02);
    return t / reps;
}

static void cost_table(void)
{
    printf("Table 1: cost model, closed form vs schedule walk (float32, out of place)\n"
           "  closed, walk   predicted allreduce time (s) from mring_cost_closed / mring_cost_walk\n"
           "  walk/closed    ratio of the predictions (1 = the closed form is exact for this schedule)\n"
           "  t_closed, t_walk  wall-clock seconds one evaluation took; walk/closed speed = t_walk / t_closed\n\n");
    printf("%-6s %-7s %-12s %5s %6s  %12s %12s %11s  %10s %10s %10s\n", "plat", "topo", "algo", "rings", "size",
           "closed(s)", "walk(s)", "walk/closed", "t_closed", "t_walk", "speed");
    for (size_t pi = 0; pi < sizeof platforms / sizeof platforms[0]; pi++) {
        const platform_t *pl = &platforms[pi];
        for (size_t ai = 0; ai < sizeof algos / sizeof algos[0]; ai++)
            for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
                mring_config_t c = config(pl->topo, algos[ai].algo, algos[ai].rings);
                mring_call_t k = {sizes[si].bytes / 4, 4};
                mring_cost_params_t p = {0};
                char err[256];
                double closed, walk;
                p.gamma_bw = 240e9;
                if (mring_links_parse(pl->links, &c.topo, &p, err, sizeof err)) {
                    fprintf(stderr, "bench_model: --links %s: %s\n", pl->links, err);
                    exit(1);
                }
                double tc = time_eval(&c, k, &p, 0, &closed), tw = time_eval(&c, k, &p, 1, &walk);
                printf("%-6s %-7s %-12s %5d %6s  %12.6e %12.6e %11.6f  %10.3e %10.3e %10.3g\n", pl->name, pl->topo,
                       mring_algo_name(algos[ai].algo), algos[ai].rings, sizes[si].name, closed, walk, walk / closed,
                       tc, tw, tw / tc);
                fflush(stdout);
            }
    }
}

static void verify_table(void)
{
    static const struct {
        const char *topo;
        mring_algo_t algo;
        int rings;
        int64_t count;
    } v[] = {
        {"4x16x4", MRING_ALGO_MULTIRING, 2, 1000003},
        {"256", MRING_ALGO_RING, 1, 1000003},
        {"4x16x16", MRING_ALGO_MULTIRING, 1, 1000003},
    };
    printf("\nTable 2: verifier (mring_verify: all ranks, out of place and in place)\n"
           "  ops = ops over all ranks; t_verify = wall-clock seconds of one mring_verify call\n\n");
    printf("%-8s %-10s %5s %9s  %-4s %10s %10s\n", "topo", "algo", "rings", "count", "ok", "ops", "t_verify");
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        mring_config_t c = config(v[i].topo, v[i].algo, v[i].rings);
    mring_call_t k = {v[i].count, 4};
        mring_verify_result_t res = {0};
        double t0 = now_s();
        int rc = mring_verify(&c, k, &res);
        double t = now_s() - t0;
        printf("%-8s %-10s %5d %9lld  %-4s %10lld %10.3f\n", v[i].topo, mring_algo_name(v[i].algo), v[i].rings,
               (long long)v[i].count, rc == 0 ? "yes" : rc > 0 ? "NO" : "oom", (long long)res.ops, t);
        if (rc != 0)
            printf("  %s\n", res.msg);
        fflush(stdout);
    }
}

int main(void)
{
    double t0 = now_s();
    cost_table();
    verify_table();
    printf("\ntotal %.1f s\n", now_s() - t0);
    return 0;
}
