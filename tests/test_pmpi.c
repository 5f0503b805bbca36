/*
 * test_pmpi.c - the MPI_Allreduce interposer: an unmodified MPI program under LD_PRELOAD gets its
 * supported calls routed through mring (counted), user-defined ops passed to MPI, correct results,
 * and a configuration that does not fit the communicator falls through entirely.
 */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <limits.h>

#include "cli_run.h"
#include "sim_cli.h"

/* Run an app on np ranks with the interposer and `env` (e.g. MRING_TOPO=2); check its output. */
static void run_prog(const char *prog, int np, const char *env, const char *ok, const char *expect)
{
    char cmd[3 * PATH_MAX], out[8192], rel[64];
    snprintf(rel, sizeof rel, "build/tests/%s", prog);
    snprintf(cmd, sizeof cmd,
             "MRING_PMPI_STATS=1 %s LD_PRELOAD=%s timeout 120 mpiexec -n %d %s 2>&1", env,
             sim_repo_path("build/lib/libmring-pmpi.so"), np, sim_repo_path(rel));
    int status = cli_shell(cmd, out, sizeof out);
    if (status != 0 || !strstr(out, ok) || !strstr(out, expect))
        fail_msg("%s: want exit 0, '%s' and '%s'; got status %d, output: %s", cmd, ok, expect, status, out);
}

static void run_app(const char *env, const char *expect)
{
    run_prog("mpi_pmpi_app", 2, env, "app: 0 wrong", expect);
}

/* A bad setting is said once and the calls go to MPI's own allreduce. */
static void bad_setting_is_reported(void **state)
{
    (void)state;
    run_app("MRING_ALGO=multring", "mring-pmpi: MRING_ALGO 'multring' is unknown");
    run_app("MRING_ALGO=multring", "mring-pmpi: 0 calls through mring, 10002 passed to MPI");
}

/* Freed communicators' handles come back: contexts must not outlive their communicator. */
static void communicator_reuse(void **state)
{
    (void)state;
    run_prog("mpi_pmpi_reuse", 4, "", "reuse: 0 wrong", "mring-pmpi: 4 calls through mring, 0 passed to MPI");
}

static void routed(void **state)
{
    (void)state;
    /* 1 checked sum + 10,000 small max calls through mring; the user-defined op passes through */
    run_app("MRING_TOPO=2", "mring-pmpi: 10001 calls through mring, 1 passed to MPI");
}

static void ring_algorithm(void **state)
{
    (void)state;
    run_app("MRING_ALGO=rabenseifner", "mring-pmpi: 10001 calls through mring, 1 passed to MPI");
}

static void topology_mismatch_falls_through(void **state)
{
    (void)state;
    run_app("MRING_TOPO=3x2", "mring-pmpi: 0 calls through mring, 10002 passed to MPI");
}

/* MRING_DIM_ALGO is read like --dim-algo, and checked by the algorithm's rules. */
static void dim_algo(void **state)
{
    (void)state;
    run_app("MRING_TOPO=2 MRING_DIM_ALGO=rabenseifner",
            "mring-pmpi:   10001 calls with --algo multiring --topo 2 --rings 1 --dim-algo rabenseifner\n");
    run_app("MRING_TOPO=2 MRING_DIM_ALGO=halving", "mring-pmpi: MRING_DIM_ALGO 'halving' is not valid");
}

/* A tuning entry's dim-algo and segment reach the schedule, as with mring-bench --tuning. */
static void tuning_dim_algo(void **state)
{
    char path[] = "/tmp/mring-test-pmpi-tuning-XXXXXX", env[128];
    int fd = mkstemp(path);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    (void)state;
    assert_non_null(f);
    fprintf(f, "{\"mring_tuning\": 1, \"ranks\": 2, \"entries\": [{\"min_size\": 0, \"max_size\": "
               "9223372036854775807, \"algo\": \"multiring\", \"topo\": \"2\", \"rings\": \"2\", "
               "\"dim_algo\": \"rabenseifner\", \"segment\": 64}]}\n");
    fclose(f);
    snprintf(env, sizeof env, "MRING_TUNING=%s", path);
    run_app(env, "mring-pmpi:   10001 calls with --algo multiring --topo 2 --rings 2 --dim-algo rabenseifner --segment 64\n");
    unlink(path);
}

/* MRING_EMBED and MRING_CHUNKS are read like --embed and --chunks. */
static void embed_chunks(void **state)
{
    (void)state;
    run_app("MRING_TOPO=2 MRING_ALGO=ring MRING_RINGS=4 MRING_EMBED=1.0",
            "mring-pmpi:   10001 calls with --algo ring --topo 2 --rings 4 --embed 1.0\n");
    run_app("MRING_TOPO=2 MRING_CHUNKS=3", "mring-pmpi:   10001 calls with --algo multiring --topo 2 --rings 1 --chunks 3\n");
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(routed), cmocka_unit_test(ring_algorithm),
                                       cmocka_unit_test(topology_mismatch_falls_through),
                                       cmocka_unit_test(communicator_reuse), cmocka_unit_test(bad_setting_is_reported),
                                       cmocka_unit_test(dim_algo), cmocka_unit_test(tuning_dim_algo),
                                       cmocka_unit_test(embed_chunks)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
