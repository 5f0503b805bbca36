/*
 * test_pmpi.c - the MPI_Allreduce interposer: an unmodified MPI program under LD_PRELOAD gets its
 * supported calls routed through mring (counted, with the reasons of those passed to MPI), on any
 * communicator with the grid of its own node layout, correct results, user-defined ops passed to
 * MPI, a setting that does not apply said once, and a stopped peer ended by MRING_TIMEOUT.
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

/* Run an app on np ranks with the interposer and `env` (e.g. MRING_TOPO=2), with mpiexec's `launch`
 * options; check its output. */
static void run_launched(const char *prog, int np, const char *launch, const char *env, const char *ok,
                         const char *expect)
{
    char cmd[3 * PATH_MAX], out[8192], rel[64];
    snprintf(rel, sizeof rel, "build/tests/%s", prog);
    snprintf(cmd, sizeof cmd,
             "MRING_PMPI_STATS=1 %s LD_PRELOAD=%s timeout 120 mpiexec %s -n %d %s 2>&1", env,
             sim_repo_path("build/lib/libmring-pmpi.so"), launch, np, sim_repo_path(rel));
    int status = cli_shell(cmd, out, sizeof out);
    if (status != 0 || !strstr(out, ok) || !strstr(out, expect))
        fail_msg("%s: want exit 0, '%s' and '%s'; got status %d, output: %s", cmd, ok, expect, status, out);
}

static void run_prog(const char *prog, int np, const char *env, const char *ok, const char *expect)
{
    run_launched(prog, np, "", env, ok, expect);
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

/* MRING_TOPO forces a grid where it fits; a communicator of another size keeps its own grid, said once. */
static void topology_mismatch_uses_own_grid(void **state)
{
    (void)state;
    run_app("MRING_TOPO=3x2", "mring-pmpi: MRING_TOPO 3x2 has 6 ranks; a communicator of 2 ranks uses its own grid 2");
    run_app("MRING_TOPO=3x2", "mring-pmpi: 10001 calls through mring, 1 passed to MPI");
}

/* Without MRING_TOPO every communicator gets its own grid from its node layout (one node here: flat,
 * of its size): sub-communicators of 1..4 ranks, reversed rank order, a duplicate, in place and count
 * 0 all go through mring, exact.  On a flat grid with no MRING_* setting the algorithm goes by size as
 * in MPICH: rd up to 2048 bytes (count 0, one int), rabenseifner above (1001 doubles); any setting
 * (here MRING_RINGS) keeps the default multiring. */
static void sub_communicators(void **state)
{
    (void)state;
    run_prog("mpi_pmpi_comms", 3, "", "comms: 0 wrong", "mring-pmpi: 11 calls through mring, 0 passed to MPI");
    run_prog("mpi_pmpi_comms", 4, "", "comms: 0 wrong",
             "mring-pmpi:   2 calls with --algo rd --topo 4 --rings 1\n"
             "mring-pmpi:   3 calls with --algo rd --topo 2 --rings 1\n"
             "mring-pmpi:   1 calls with --algo rd --topo 1 --rings 1\n"
             "mring-pmpi:   2 calls with --algo rabenseifner --topo 4 --rings 1\n"
             "mring-pmpi:   2 calls with --algo rabenseifner --topo 2 --rings 1\n"
             "mring-pmpi:   1 calls with --algo rabenseifner --topo 1 --rings 1\n");
    run_prog("mpi_pmpi_comms", 4, "MRING_RINGS=1", "comms: 0 wrong",
             "mring-pmpi:   4 calls with --algo multiring --topo 4 --rings 1\n"
             "mring-pmpi:   5 calls with --algo multiring --topo 2 --rings 1\n"
             "mring-pmpi:   2 calls with --algo multiring --topo 1 --rings 1\n");
}

/* With every communicator id in use the interposer can neither read a layout nor copy a
 * communicator: its calls go to MPI, exact, a contiguous derived type as its base type. */
static void no_communicator_left(void **state)
{
    (void)state;
    run_prog("mpi_pmpi_nocomm", 2, "", "nocomm: 0 wrong", "mring-pmpi: 0 calls through mring, 2 passed to MPI");
}

/* Reals and integers under their C, fixed-width and Fortran names, and contiguous types of them, go
 * through mring, exact; long double complex (no mring type) passes to MPI. */
static void datatypes(void **state)
{
    (void)state;
    run_prog("mpi_pmpi_types", 3, "", "types: 43 calls, 0 wrong", "mring-pmpi: 42 calls through mring, 1 passed to MPI");
    run_prog("mpi_pmpi_types", 2, "", "types: 43 calls, 0 wrong", "mring-pmpi:   1 passed: a datatype mring does not reduce");
    /* a setting that cannot apply: every call to MPI, the contiguous types as their base type (MPICH
     * refuses predefined ops on derived types) */
    run_prog("mpi_pmpi_types", 2, "MRING_ALGO=foo", "types: 43 calls, 0 wrong", "mring-pmpi: 0 calls through mring");
}

/* Every predefined type x op pair MPI defines (mpi_pmpi_matrix.c, MPI's own allreduce as the oracle):
 * all exact and identical on every rank, at least 95% of the calls through mring, and only types
 * without an mring type (REAL16, long double complex) passed to MPI. */
static void type_op_matrix(void **state)
{
    (void)state;
    for (int np = 3; np <= 4; np++) {
        char cmd[3 * PATH_MAX], out[8192];
        long long calls = 0, wrong = -1, through = 0, passed = -1;
        snprintf(cmd, sizeof cmd, "MRING_PMPI_STATS=1 LD_PRELOAD=%s timeout 120 mpiexec -n %d %s 2>&1",
                 sim_repo_path("build/lib/libmring-pmpi.so"), np, sim_repo_path("build/tests/mpi_pmpi_matrix"));
        int status = cli_shell(cmd, out, sizeof out);
        const char *m = strstr(out, "matrix: "), *t = strstr(out, "mring-pmpi: ");
        if (m)
            sscanf(m, "matrix: %lld calls, %lld wrong", &calls, &wrong);
        if (t)
            sscanf(t, "mring-pmpi: %lld calls through mring, %lld passed to MPI", &through, &passed);
        print_message("%d ranks: %lld calls, %lld through mring, %lld passed\n", np, calls, through, passed);
        if (status != 0 || wrong != 0 || calls < 300 || through + passed != calls || through < 0.95 * calls ||
            (passed && !strstr(out, "passed: a datatype mring does not reduce")) || strstr(out, "passed: a user"))
            fail_msg("%s: want exit 0, 0 wrong, >= 95%% of >= 300 calls through mring; got status %d: %s", cmd, status,
                     out);
    }
}

/* A Fortran coarray program built with OpenCoarrays for MPICH (caf): its 4 collectives to every image
 * (co_sum on REAL and DOUBLE PRECISION, co_max, co_min) all go through mring, exact. */
static void coarray_collectives(void **state)
{
    char cmd[4 * PATH_MAX], out[8192], exe[] = "/tmp/mring-test-caf-XXXXXX";
    int fd = mkstemp(exe);
    (void)state;
    assert_true(fd >= 0);
    close(fd);
    snprintf(cmd, sizeof cmd, "caf.mpich %s -o %s 2>&1", sim_repo_path("tests/caf_collectives.f90"), exe);
    if (cli_shell(cmd, out, sizeof out) != 0) {
        unlink(exe);
        print_message("no OpenCoarrays for MPICH here (.ci/packages: libcoarrays-mpich-dev): %s", out);
        skip();
    }
    snprintf(cmd, sizeof cmd, "MRING_PMPI_STATS=1 LD_PRELOAD=%s timeout 120 mpiexec -n 3 %s 2>&1",
             sim_repo_path("build/lib/libmring-pmpi.so"), exe);
    int status = cli_shell(cmd, out, sizeof out);
    unlink(exe);
    if (status != 0 || !strstr(out, "coarray: wrong 0") || !strstr(out, "mring-pmpi: 4 calls through mring, 0 passed"))
        fail_msg("%s: want exit 0, 'coarray: wrong 0' and 4 calls through mring; got status %d: %s", cmd, status, out);
}

/* A call that fails inside mring (a 32 TiB scratch) goes to the communicator's error handler:
 * MPI_ERRORS_RETURN returns MPI_ERR_NO_MEM's class, a user handler is called, the communicator stays
 * usable; MPI_ERRORS_ARE_FATAL ends the job with a line naming the call. */
static void error_handler(void **state)
{
    char cmd[3 * PATH_MAX], out[8192];
    (void)state;
    /* ASan refuses a 32 TiB allocation by aborting unless told to return NULL as malloc does */
    run_prog("mpi_pmpi_errors", 2, "ASAN_OPTIONS=allocator_may_return_null=1",
             "errors: class ok, handler 1, after ok, refused args ok", "mring-pmpi: 3 calls through mring, 3 passed to MPI");
    snprintf(cmd, sizeof cmd, "ASAN_OPTIONS=allocator_may_return_null=1 LD_PRELOAD=%s timeout 60 mpiexec -n 2 %s fatal 2>&1",
             sim_repo_path("build/lib/libmring-pmpi.so"), sim_repo_path("build/tests/mpi_pmpi_errors"));
    int status = cli_shell(cmd, out, sizeof out);
    if (!WIFEXITED(status) || WEXITSTATUS(status) == 0 || WEXITSTATUS(status) == 124 || strstr(out, "not reached") ||
        !strstr(out, "mring-pmpi: MPI_Allreduce of 4398046511104 float64 elements with sum failed in mring: out of "
                     "memory for the schedule or its scratch space"))
        fail_msg("%s: want a non-zero exit and the failed call named; got status %d, output: %s", cmd, status, out);
}

/* Node layouts on one machine: hydra's fork launcher with made-up host names gives each name its own
 * node for MPI_COMM_TYPE_SHARED.  Two nodes of two ranks, node by node: the grid 2x2 (ranks per node
 * x nodes) and multiring; three and one, or ranks alternating between the nodes: flat, by size. */
static void node_layouts(void **state)
{
    (void)state;
    run_launched("mpi_pmpi_comms", 4, "-launcher fork -hosts nodeA:2,nodeB:2", "", "comms: 0 wrong",
                 "mring-pmpi:   4 calls with --algo multiring --topo 2x2 --rings 1\n");
    run_launched("mpi_pmpi_comms", 4, "-launcher fork -hosts nodeA:3,nodeB:1", "", "comms: 0 wrong",
                 "mring-pmpi:   2 calls with --algo rd --topo 4 --rings 1\n");
    run_launched("mpi_pmpi_comms", 4, "-launcher fork -hosts nodeA:1,nodeB:1", "", "comms: 0 wrong",
                 "mring-pmpi:   2 calls with --algo rabenseifner --topo 4 --rings 1\n");
}

/* MRING_PMPI_STATS says why calls passed to MPI. */
static void stats_per_reason(void **state)
{
    (void)state;
    run_app("", "mring-pmpi:   1 passed: a user-defined op (or REPLACE, NO_OP)");
    run_app("MRING_SEGMENT=2", "mring-pmpi: a segment of 2 bytes is below one float32 element");
}

/* A stopped peer: with MRING_TIMEOUT the job ends at the deadline, naming the stuck call, whether the
 * peer stops before the communicator's first call (the set-up) or a later one (the schedule). */
static void timeout_names_stuck_call(void **state)
{
    static const struct {
        const char *when, *want;
    } cases[] = {{"first", "mring-pmpi: MPI_Allreduce, the first call on a communicator of 2 ranks: not every rank "
                           "arrived within 2 s"},
                 {"later", "mring: allreduce of 64 elements timed out after 2 s: rank 0 stream 0 op 1 (in flight)"}};
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char cmd[3 * PATH_MAX], out[8192];
        /* rank 1 sleeps 30 s; `timeout 25` (status 124) would mean the deadline did not end the job */
        snprintf(cmd, sizeof cmd, "MRING_TIMEOUT=2 LD_PRELOAD=%s timeout 25 mpiexec -n 2 %s %s 2>&1",
                 sim_repo_path("build/lib/libmring-pmpi.so"), sim_repo_path("build/tests/mpi_pmpi_stall"),
                 cases[i].when);
        int status = cli_shell(cmd, out, sizeof out);
        if (!WIFEXITED(status) || WEXITSTATUS(status) == 0 || WEXITSTATUS(status) == 124 || !strstr(out, cases[i].want)
            || strstr(out, "stall: finished"))
            fail_msg("%s: want a non-zero exit before 25 s and '%s'; got status %d, output: %s", cmd, cases[i].want,
                     status, out);
    }
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
/* A tuning file for 2 ranks: every size multiring, 2 rings, rabenseifner, 64-byte segments. */
static void write_tuning(char *path, char *env, size_t envlen)
{
    int fd = mkstemp(path);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    assert_non_null(f);
    fprintf(f, "{\"mring_tuning\": 1, \"ranks\": 2, \"entries\": [{\"min_size\": 0, \"max_size\": "
               "9223372036854775807, \"algo\": \"multiring\", \"topo\": \"2\", \"rings\": \"2\", "
               "\"dim_algo\": \"rabenseifner\", \"segment\": 64}]}\n");
    fclose(f);
    snprintf(env, envlen, "MRING_TUNING=%s", path);
}

/* A tuning entry's dim-algo and segment reach the schedule, as with mring-bench --tuning. */
static void tuning_dim_algo(void **state)
{
    char path[] = "/tmp/mring-test-pmpi-tuning-XXXXXX", env[128];
    (void)state;
    write_tuning(path, env, sizeof env);
    run_app(env, "mring-pmpi:   10001 calls with --algo multiring --topo 2 --rings 2 --dim-algo rabenseifner --segment 64\n");
    unlink(path);
}

/* The tuning file applies to communicators of its rank count; the others use their own grid (flat
 * here: the algorithm by size). */
static void tuning_by_rank_count(void **state)
{
    char path[] = "/tmp/mring-test-pmpi-tuning-XXXXXX", env[128];
    (void)state;
    write_tuning(path, env, sizeof env);
    run_prog("mpi_pmpi_comms", 4, env, "comms: 0 wrong",
             "mring-pmpi:   2 calls with --algo rd --topo 4 --rings 1\n"
             "mring-pmpi:   5 calls with --algo multiring --topo 2 --rings 2 --dim-algo rabenseifner --segment 64\n");
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
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(routed),           cmocka_unit_test(ring_algorithm),
        cmocka_unit_test(topology_mismatch_uses_own_grid), cmocka_unit_test(sub_communicators),
        cmocka_unit_test(node_layouts),     cmocka_unit_test(stats_per_reason), cmocka_unit_test(datatypes),
        cmocka_unit_test(no_communicator_left), cmocka_unit_test(type_op_matrix),   cmocka_unit_test(coarray_collectives),
        cmocka_unit_test(error_handler),
        cmocka_unit_test(timeout_names_stuck_call), cmocka_unit_test(communicator_reuse),
        cmocka_unit_test(bad_setting_is_reported), cmocka_unit_test(dim_algo),
        cmocka_unit_test(tuning_dim_algo),  cmocka_unit_test(tuning_by_rank_count),
        cmocka_unit_test(embed_chunks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
