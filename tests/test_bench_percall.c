/* test_bench_percall.c - mring-bench --per-call under mpiexec (MPICH) on 4 ranks: one row per timed call and
 * rank, each exactly once, stamps in order, each rank's calls summing to no more than its block's time (the
 * report's time_max_us), every result checked; both placements, back to back and --barrier 1, alone and with
 * --alternate (each configuration's calls and rows apart, the rounds' order rotating; its bad input refused
 * with exit 2 and one line); --min-time's counts (the same on every rank and configuration, -n's where calls
 * outlast it, more where they do not; its bad input refused); a path that
 * cannot be created ends every rank at once with exit 2, one line naming it and no file.  Skips without
 * mpiexec or mring-bench. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <cmocka.h>
#include <jansson.h>

#include "sim_cli.h"
#include "mpi_run.h"
#define LIMIT_S 60
#include "calib_run.h"
#include "csv_table.h"

#define NP 4
#define ITERS 3
#define NSIZES 3 /* -b 1K -e 16K -f 4 */

static const char *bench_bin(void)
{
    const char *p = bin_file("mring-bench");
    if (!p || system("command -v mpiexec >/dev/null 2>&1") != 0)
        skip();
    return p;
}

static char *slurp_path(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        fail_msg("%s was not written", path);
    size_t len;
    char *s = cli_slurp(fileno(f), &len);
    fclose(f);
    return s;
}

/* The --per-call file of one run of nconf configurations (1 + --alternate's) against its report (csv on
 * stdout): the report's rows of each size and placement in configuration order, each checked; every (size,
 * inplace, config, call, rank) once; per rank, configuration and block, the stamps in order and the calls'
 * mean within the slowest rank's time (the report's time_max_us); with two configurations, round i run by
 * configuration i mod 2 first (the rotation --alternate promises), each rank's calls one after the other. */
static void check_per_call(const struct cli_result *r, const char *path, int nconf)
{
    struct csv_table rep, pc;
    char *text = slurp_path(path);
    csv_read_ok(r->out, &rep, r->cmd);
    csv_read_ok(text, &pc, path);
    assert_int_equal(rep.nrows, NSIZES * 2 * nconf);
    assert_int_equal(pc.nrows, NSIZES * 2 * nconf * ITERS * NP);
    static int seen[NSIZES][2][2][ITERS][NP];
    static double first[NSIZES][2][2][ITERS][NP]; /* each call's start */
    memset(seen, 0, sizeof seen);
    for (int b = 0; b < rep.nrows; b++) {
        long long size = csv_need_int(&rep, b, "size"), inplace = csv_need_int(&rep, b, "inplace");
        int config = b % nconf; /* the rows of a size and placement, main configuration first */
        double tmax = csv_need(&rep, b, "time_max_us");
        int k = size == 1024 ? 0 : size == 4096 ? 1 : size == 16384 ? 2 : -1;
        assert_true(k >= 0);
        assert_int_equal(csv_need_int(&rep, b, "wrong"), 0);
        if (nconf == 2)
            assert_string_equal(csv_str(&rep, b, "config"), config ? "--algo multiring --topo 2x2 --rings 2 --chunks 2"
                                                                     : "--algo multiring --topo 2x2 --rings 2");
        for (int rank = 0; rank < NP; rank++) {
            double sum = 0, prev_end = 0;
            for (int i = 0; i < pc.nrows; i++) {
                if (csv_need_int(&pc, i, "size") != size || csv_need_int(&pc, i, "inplace") != inplace ||
                    csv_need_int(&pc, i, "config") != config || csv_need_int(&pc, i, "rank") != rank)
                    continue;
                long long call = csv_need_int(&pc, i, "call");
                double start = csv_need(&pc, i, "start_s"), t = csv_need(&pc, i, "time_us");
                assert_true(call >= 0 && call < ITERS && t > 0 && start > 1.7e9);
                if (seen[k][inplace][config][call][rank]++ || (call && start < prev_end - 2e-6))
                    fail_msg("%s: call %lld of rank %d (size %lld, inplace %lld, config %d) repeated or out of order",
                             path, call, rank, size, inplace, config);
                first[k][inplace][config][call][rank] = start;
                prev_end = start + t * 1e-6;
                sum += t;
            }
            if (sum / ITERS > tmax * 1.001 + 1)
                fail_msg("%s: rank %d's calls at %lld bytes (inplace %lld, config %d) average %.3f us, over the "
                         "report's slowest rank's %.3f", path, rank, size, inplace, config, sum / ITERS, tmax);
        }
    }
    for (int k = 0; k < NSIZES; k++)
        for (int p = 0; p < 2; p++)
            for (int c = 0; c < nconf; c++)
                for (int i = 0; i < ITERS; i++)
                    for (int rank = 0; rank < NP; rank++) {
                        assert_int_equal(seen[k][p][c][i][rank], 1);
                        if (nconf == 2 && first[k][p][i % 2][i][rank] >= first[k][p][1 - i % 2][i][rank])
                            fail_msg("%s: round %d of rank %d: configuration %d did not start first", path, i, rank, i % 2);
                    }
    csv_free(&rep);
    csv_free(&pc);
    free(text);
}

/* mring-bench on 4 ranks with --barrier (0 or 1) and, when alt is not NULL, --alternate alt */
static void per_call_run(const char *barrier, const char *alt)
{
    char dir[] = "/tmp/mring-test-percall-XXXXXX", path[64];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/calls.csv", dir);
    const char *argv[] = {"mpiexec", "-n", "4", bench_bin(), "--topo", "2x2", "--rings", "2", "-b", "1K", "-e", "16K",
                          "-f", "4", "-n", "3", "-w", "1", "--barrier", barrier, "--per-call", path, "--format", "csv",
                          alt ? "--alternate" : NULL, alt, NULL};
    struct cli_result r;
    run(argv, NULL, &r);
    want_exit0(&r);
    check_per_call(&r, path, alt ? 2 : 1);
    cli_free(&r);
    unlink(path);
    rmdir(dir);
}

static void test_per_call_back_to_back(void **state) { per_call_run("0", NULL); }
static void test_per_call_barrier(void **state) { per_call_run("1", NULL); }
static void test_per_call_alternate(void **state) { per_call_run("0", "--rings 2 --chunks 2"); }
static void test_per_call_alternate_barrier(void **state) { per_call_run("1", "--rings 2 --chunks 2"); }

/* mring-bench -b 1K -e 1K -n 2 -w 2 --min-time MIN_TIME [--alternate ALT] on 4 ranks -> calls[inplace][config]:
 * the timed calls each rank made, checked the same on every rank, each call index 0..N-1 once, every result
 * right */
static void min_time_run(const char *min_time, const char *alt, int calls[2][2])
{
    char dir[] = "/tmp/mring-test-mintime-XXXXXX", path[64];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/calls.csv", dir);
    const char *argv[] = {"mpiexec", "-n", "4", bench_bin(), "--topo", "2x2", "--rings", "2", "-b", "1K", "-e", "1K",
                          "-n", "2", "-w", "2", "--min-time", min_time, "--per-call", path, "--format", "csv",
                          alt ? "--alternate" : NULL, alt, NULL};
    struct cli_result r;
    struct csv_table rep, pc;
    run(argv, NULL, &r);
    want_exit0(&r);
    char *text = slurp_path(path);
    csv_read_ok(r.out, &rep, r.cmd);
    csv_read_ok(text, &pc, path);
    for (int b = 0; b < rep.nrows; b++)
        assert_int_equal(csv_need_int(&rep, b, "wrong"), 0);
    int n[2][2][NP] = {{{0}}};
    long long sum[2][2][NP] = {{{0}}};
    for (int i = 0; i < pc.nrows; i++) {
        long long p = csv_need_int(&pc, i, "inplace"), c = csv_need_int(&pc, i, "config"), rank = csv_need_int(&pc, i, "rank");
        assert_true(p >= 0 && p < 2 && c >= 0 && c < 2 && rank >= 0 && rank < NP);
        n[p][c][rank]++;
        sum[p][c][rank] += csv_need_int(&pc, i, "call");
    }
    for (int p = 0; p < 2; p++)
        for (int c = 0; c < (alt ? 2 : 1); c++) {
            calls[p][c] = n[p][c][0];
            for (int rank = 0; rank < NP; rank++) { /* the same count everywhere, and calls 0..N-1 (their sum) */
                assert_int_equal(n[p][c][rank], calls[p][c]);
                assert_int_equal(sum[p][c][rank], (long long)calls[p][c] * (calls[p][c] - 1) / 2);
            }
        }
    csv_free(&rep);
    csv_free(&pc);
    free(text);
    cli_free(&r);
    unlink(path);
    rmdir(dir);
}

/* --min-time below any call's time leaves -n's 2 calls, exactly */
static void test_min_time_short(void **state)
{
    int calls[2][2];
    min_time_run("1e-9", "--chunks 2", calls);
    for (int p = 0; p < 2; p++)
        for (int c = 0; c < 2; c++)
            assert_int_equal(calls[p][c], 2);
}

/* --min-time 1: more calls than -n's 2 wherever the fastest warm-up round's pace is under half a second (this
 * run, 1 KiB on 4 ranks of a 2-core machine, got 583-2800 calls in three runs on 2026-12-07), the same for each
 * alternated configuration */
static void test_min_time_fills(void **state)
{
    int calls[2][2];
    min_time_run("1", "--chunks 2", calls);
    for (int p = 0; p < 2; p++) {
        assert_true(calls[p][0] > 2);
        assert_int_equal(calls[p][1], calls[p][0]);
    }
}

/* --min-time's bad input: exit 2, one line naming it */
static void test_min_time_bad(void **state)
{
    static const struct {
        const char *value, *warmup, *word;
    } bad[] = {{"-1", "1", "--min-time '-1'"}, {"x", "1", "--min-time 'x'"}, {"1", "0", "--min-time 1 with -w 0"}};
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        const char *argv[] = {"mpiexec", "-n", "4", bench_bin(), "-b", "1K", "-e", "1K", "--min-time", bad[k].value,
                              "-w", bad[k].warmup, NULL};
        struct cli_result r;
        run(argv, NULL, &r);
        want_usage_error(&r, bad[k].word);
        assert_string_equal(r.out, "");
        cli_free(&r);
    }
}

/* rank 0 cannot create the file: every rank stops (no rank left waiting in a collective), exit 2, one line */
static void test_per_call_bad_path(void **state)
{
    const char *argv[] = {"mpiexec", "-n", "4", bench_bin(), "-b", "1K", "-e", "1K", "--per-call",
                          "/nonexistent-dir/calls.csv", NULL};
    struct cli_result r;
    run(argv, NULL, &r);
    want_usage_error(&r, "--per-call '/nonexistent-dir/calls.csv'");
    assert_int_equal(access("/nonexistent-dir/calls.csv", F_OK), -1);
    cli_free(&r);
}

/* --alternate's bad input: exit 2 and one line naming the string (or the clash), before any output */
static void test_alternate_bad(void **state)
{
    static const struct {
        const char *main_algo, *alt, *word;
    } bad[] = {
        {NULL, "--chunks x", "--alternate '--chunks x': --chunks 'x'"},
        {NULL, "--bogus 3", "--alternate '--bogus 3': unknown flag '--bogus'"},
        {NULL, "--chunks", "no value for '--chunks'"},
        {NULL, "--type float64", "--type is the run's (-d)"},
        {NULL, "--rings 2 stray", "unexpected word 'stray'"},
        {NULL, "--topo 3x2", "--alternate '--topo 3x2'"},
        {NULL, "--algo mpi", "--algo mpi cannot be alternated"},
        {"mpi", "--chunks 2", "--alternate with --algo mpi"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        const char *argv[] = {"mpiexec", "-n", "4", bench_bin(), "-b", "1K", "-e", "1K", "--alternate", bad[k].alt,
                              bad[k].main_algo ? "--algo" : NULL, bad[k].main_algo, NULL};
        struct cli_result r;
        run(argv, NULL, &r);
        want_usage_error(&r, bad[k].word);
        assert_string_equal(r.out, "");
        cli_free(&r);
    }
    const char *eight[] = {"mpiexec", "-n", "4", bench_bin(), "-b", "1K", "-e", "1K", "--alternate", "--chunks 2",
                           "--alternate", "--chunks 2", "--alternate", "--chunks 2", "--alternate", "--chunks 2",
                           "--alternate", "--chunks 2", "--alternate", "--chunks 2", "--alternate", "--chunks 2",
                           "--alternate", "--chunks 3", NULL};
    struct cli_result r;
    run(eight, NULL, &r);
    want_usage_error(&r, "--alternate '--chunks 3': at most 7");
    cli_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_per_call_back_to_back), cmocka_unit_test(test_per_call_barrier),
                                       cmocka_unit_test(test_per_call_alternate),
                                       cmocka_unit_test(test_per_call_alternate_barrier),
                                       cmocka_unit_test(test_alternate_bad), cmocka_unit_test(test_min_time_short),
                                       cmocka_unit_test(test_min_time_fills), cmocka_unit_test(test_min_time_bad),
                                       cmocka_unit_test(test_per_call_bad_path)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
