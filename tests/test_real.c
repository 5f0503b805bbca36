/* test_real.c - the real executor end to end, under mpiexec (MPICH) on this machine.
 *
 * 1. build/tests/mpi_allreduce_check on P = 1, 2, 3, 4, 5, 6, 8 ranks: every algorithm, topology
 *    and rings against known results (see that file); exit 0 and "... 0 failures".
 * 2. mring-bench on 4 ranks: table and csv output, --algo mpi, avg/prod in 16-bit types, and bad
 *    input (one line on stderr, non-zero exit, no hang); --trace against mring simulate --trace.
 * The MPI programs are found next to $MRING_BIN (build/bin/mring -> build/tests/, build/bin/); the
 * tests skip when MPICH or they are missing.  Every run has a deadline (MPIEXEC_TIMEOUT, then the
 * whole process group is killed), so nothing hangs.
 */
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "cli_run.h"
#include "csv_table.h"
#include "mpi_run.h"
#include "sim_trace.h"

#define CHECK_LIMIT_S 150 /* mpi_allreduce_check on 8 ranks takes ~35 s on 2 cores */
#define BENCH_LIMIT_S 60
#define PROMPT_S 20 /* a bad-input run must be over within this */

/* path of rel inside the build directory of $MRING_BIN (build/bin/mring -> build/rel), or NULL when
 * the file is missing or there is no mpiexec (no MPICH: the test skips) */
static const char *build_file(const char *rel)
{
    static char path[PATH_MAX + 256];
    char bin[PATH_MAX], *slash;
    if (!realpath(cli_bin(), bin) || !(slash = strrchr(bin, '/')))
        return NULL;
    *slash = '\0'; /* .../build/bin */
    if (!(slash = strrchr(bin, '/')))
        return NULL;
    *slash = '\0';
    snprintf(path, sizeof path, "%s/%s", bin, rel);
    return access(path, X_OK) == 0 && system("command -v mpiexec >/dev/null 2>&1") == 0 ? path : NULL;
}

/* run argv with /dev/null on stdin (mpi_run.h) */
static int mpi_run(const char *const *argv, int limit, struct cli_result *r, double *secs)
{
    return mpi_run_input(argv, NULL, limit, r, secs);
}

/* mpiexec -n np <build/prog> args...; skips the test without MPICH; the caller frees r */
static double mpi_launch(int np, const char *prog, const char *const *args, int limit, struct cli_result *r)
{
    const char *argv[CLI_MAX_ARGS + 5] = {"mpiexec", "-n", NULL}, *path = build_file(prog);
    char n[16];
    double secs;
    if (!path)
        skip();
    snprintf(n, sizeof n, "%d", np);
    argv[2] = n;
    argv[3] = path;
    for (int i = 0; args[i] && i < CLI_MAX_ARGS; i++)
        argv[4 + i] = args[i];
    if (mpi_run(argv, limit, r, &secs) != 0)
        fail_msg("could not run %s", r->cmd);
    print_message("%s: %.1f s\n", r->cmd, secs);
    return secs;
}

static void want_exit0(const struct cli_result *r)
{
    char how[64];
    if (!r->exited || r->status != 0)
        fail_msg("%s: want exit 0, got %s\nstdout: %.2000s\nstderr: %.2000s", r->cmd, cli_how(r, how, sizeof how),
                 r->out, r->err);
}

/* ---- 1. mpi_allreduce_check ---- */

static void allreduce_check(int P, const char *const *args)
{
    struct cli_result r;
    char want[64];
    long calls = 0, failures = -1;
    mpi_launch(P, "tests/mpi_allreduce_check", args, CHECK_LIMIT_S, &r);
    want_exit0(&r);
    snprintf(want, sizeof want, "mpi_allreduce_check: P=%d ", P);
    const char *line = strstr(r.out, want);
    if (!line || sscanf(line + strlen(want), "%ld calls, %ld failures", &calls, &failures) != 2 || failures != 0 ||
        calls < 100)
        fail_msg("%s: no summary line with 0 failures\n%.3000s", r.cmd, r.out);
    cli_free(&r);
}

static void test_allreduce_check(void **state)
{
    const char *args[] = {NULL};
    allreduce_check((int)(intptr_t)*state, args);
}

/* Messages above a limit go as blocks of a derived datatype (the path of messages over INT_MAX bytes,
 * here with a 4099-byte limit): every result exact on 4 ranks. */
static void test_allreduce_check_split(void **state)
{
    const char *args[] = {"quick", "split", NULL};
    (void)state;
    allreduce_check(4, args);
}

/* ---- 2. mring-bench ---- */

/* every data row of a table: inplace "no"/"yes" counted, #wrong summed; returns the row count */
static int table_rows(const char *out, int *no, int *yes, long long *wrong)
{
    int n = 0;
    *no = *yes = 0;
    *wrong = 0;
    for (const char *l = out; *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : l + strlen(l)) {
        long long size, count, bad;
        char type[32], op[16], inplace[8];
        double t, alg, bus;
        if (*l == '#' || sscanf(l, "%lld %lld %31s %15s %lf %lf %lf %lld %7s", &size, &count, type, op, &t, &alg, &bus,
                                &bad, inplace) != 9)
            continue;
        n++;
        *wrong += bad;
        *no += !strcmp(inplace, "no");
        *yes += !strcmp(inplace, "yes");
    }
    return n;
}

/* run mring-bench on 4 ranks with a table; require exit 0, 0 wrong, the nccl-tests footer and
 * nsizes rows out of place and in place */
static void bench_table_ok(const char *const *args, int nsizes)
{
    struct cli_result r;
    int no, yes;
    long long wrong;
    mpi_launch(4, "bin/mring-bench", args, BENCH_LIMIT_S, &r);
    want_exit0(&r);
    int n = table_rows(r.out, &no, &yes, &wrong);
    if (n != 2 * nsizes || no != nsizes || yes != nsizes || wrong != 0 ||
        !strstr(r.out, "\n# Out of bounds values : 0 OK\n") || !strstr(r.out, "\n# Avg bus bandwidth"))
        fail_msg("%s: want %d rows out of place and %d in place, 0 wrong, \"# Out of bounds values : 0 OK\" and "
                 "\"# Avg bus bandwidth\"; got %d/%d rows, %lld wrong:\n%s",
                 r.cmd, nsizes, nsizes, no, yes, wrong, r.out);
    cli_free(&r);
}

static void test_bench_table(void **state)
{
    const char *args[] = {"-b", "8", "-e", "64K", "-f", "8", "-n", "2", "-w", "1", NULL};
    bench_table_ok(args, 5); /* 8, 64, 512, 4K, 32K */
}

static void test_bench_mpi(void **state)
{
    const char *args[] = {"--algo", "mpi", "-b", "8", "-e", "4K", "-f", "8", "-n", "2", "-w", "1", NULL};
    bench_table_ok(args, 4);
}

static void test_bench_avg_float16(void **state)
{
    const char *args[] = {"-o", "avg", "-d", "float16", "-b", "6", "-e", "6K", "-f", "8", "-n", "2", "-w", "1", NULL};
    bench_table_ok(args, 4); /* 6, 48, 384, 3072 */
}

static void test_bench_prod_bfloat16(void **state)
{
    const char *args[] = {"-o", "prod", "-d", "bfloat16", "--topo", "2x2", "--rings", "2", "-b", "8", "-e", "4K",
                          "-f", "8", "-n", "2", "-w", "1", NULL};
    bench_table_ok(args, 4);
}

/* The types and ops beyond float32..int64 x sum..avg: mring's result passes the exact check, on 4
 * ranks (MAXLOC/MINLOC with tied values); so does MPI's own (--algo mpi) on the types without padding
 * (MPICH leaves a result's padding bytes as each rank computed them, which the bitwise check counts). */
static void test_bench_new_types(void **state)
{
    static const struct {
        const char *type, *op;
        int mpi;
    } pairs[] = {{"uint8", "bxor", 1},     {"int16", "land", 1},      {"uint64", "sum", 1},
                 {"bool", "lxor", 1},      {"complex64", "prod", 1},  {"complex128", "avg", 1},
                 {"longdouble", "max", 0}, {"double_int", "maxloc", 0}, {"short_int", "minloc", 0},
                 {"2float", "maxloc", 1}};
    static const char *const cfg[2][4] = {{"--topo", "2x2", "--rings", "2"}, {"--algo", "mpi", NULL, NULL}};
    for (size_t i = 0; i < sizeof pairs / sizeof *pairs; i++)
        for (int mpi = 0; mpi <= pairs[i].mpi; mpi++) {
            const char *args[] = {"-d", pairs[i].type, "-o", pairs[i].op,    "-b",        "32",        "-e",
                                  "4K", "-f",          "8",  "-n",           "1",         "-w",        "0",
                                  cfg[mpi][0],         cfg[mpi][1],          cfg[mpi][2], cfg[mpi][3], NULL};
            bench_table_ok(args, 3);
        }
}

static void test_bench_csv(void **state)
{
    const char *args[] = {"-b", "8", "-e", "64K", "-f", "8", "-n", "2", "-w", "1", "--format", "csv", NULL};
    const char *tail = ",inplace,wrong,time_min_us,time_max_us,config\n";
    struct cli_result r;
    int rows = 0;
    mpi_launch(4, "bin/mring-bench", args, BENCH_LIMIT_S, &r);
    want_exit0(&r);
    const char *nl = strchr(r.out, '\n');
    if (!nl || (size_t)(nl + 1 - r.out) < strlen(tail) || strncmp(nl + 1 - strlen(tail), tail, strlen(tail)))
        fail_msg("%s: the csv header does not end with %s:\n%s", r.cmd, tail, r.out);
    struct csv_table t;
    csv_read_ok(r.out, &t, r.cmd);
    for (rows = 0; rows < t.nrows; rows++) {
        double t0 = csv_need(&t, rows, "time_min_us"), t1 = csv_need(&t, rows, "time_max_us");
        double tm = csv_need(&t, rows, "time_us");
        if (csv_need_int(&t, rows, "wrong") != 0 || !(t0 <= tm && tm <= t1 && t0 > 0))
            fail_msg("%s: want wrong 0 and time_min_us <= time_us <= time_max_us in row %d", r.cmd, rows + 1);
    }
    csv_free(&t);
    assert_int_equal(rows, 10);
    cli_free(&r);
}

/* 1 if s holds the number n as a whole token (not a part of 24 or 4x2) */
static int has_number(const char *s, const char *n)
{
    size_t len = strlen(n);
    for (const char *p = s; (p = strstr(p, n)) != NULL; p++)
        if ((p == s || !strchr("0123456789x", p[-1])) && !strchr("0123456789x", p[len]))
            return 1;
    return 0;
}

/* a bad flag: non-zero exit within PROMPT_S, exactly one stderr line (rank 0's) holding every word */
static void bench_bad(const char *const *args, const char *w1, const char *w2)
{
    struct cli_result r;
    char how[64];
    double secs = mpi_launch(4, "bin/mring-bench", args, BENCH_LIMIT_S, &r);
    if (!r.exited || r.status == 0 || secs > PROMPT_S || !cli_one_line(r.err) || !strstr(r.err, w1) || (w2 && !has_number(r.err, w2)))
        fail_msg("%s: want a non-zero exit within %d s and one stderr line naming %s%s%s; got %s after %.1f s, "
                 "stderr:\n%s", r.cmd, PROMPT_S, w1, w2 ? " and " : "", w2 ? w2 : "", cli_how(&r, how, sizeof how),
                 secs, r.err);
    cli_free(&r);
}

static void test_bench_bad_topo(void **state)
{
    const char *args[] = {"--topo", "3x2", "-b", "8", "-e", "8", "-n", "1", NULL};
    bench_bad(args, "3x2", "4");
}

static void test_bench_bad_type(void **state)
{
    const char *args[] = {"-d", "float8", "-b", "8", "-e", "8", "-n", "1", NULL};
    bench_bad(args, "float8", NULL);
}

/* --trace to a directory that does not exist: refused before the sweep (it ran the sweep and failed at the
 * end, exit 1); --tuning with a configuration flag: refused (the file's configuration ran, the flag ignored) */
static void test_bench_bad_trace_or_tuning(void **state)
{
    const char *trace[] = {"-b", "8", "-e", "64K", "-f", "8", "-n", "1", "--trace", "/nonexistent/t.json", NULL};
    const char *tuning[] = {"-b", "8", "-e", "8", "-n", "1", "--tuning", "/nonexistent/t.json", "--rings", "2", NULL};
    bench_bad(trace, "--trace '/nonexistent/t.json'", NULL);
    bench_bad(tuning, "--tuning with --rings", NULL);
}

/* an op MPI does not define on the type: one line naming both and what the op takes */
static void test_bench_op_not_on_type(void **state)
{
    const char *args[] = {"-d", "float32", "-o", "band", "-b", "8", "-e", "8", "-n", "1", NULL};
    bench_bad(args, "-o band is not defined on -d float32; it takes integer types", NULL);
}

/* --timeout: a call that cannot finish in time (1 us: every rank waits on its peer longer than that)
 * aborts the job promptly with a non-zero exit, naming the stuck operation (rank, stream, op, peer,
 * phase and step) instead of hanging. */
static void test_bench_timeout_names_stuck_op(void **state)
{
    char dir[] = "/tmp/mring-test-percall-XXXXXX", path[64];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/calls.csv", dir);
    const char *args[] = {"--timeout", "0.000001", "-b", "1M", "-e", "1M", "-n", "1", "-w", "0", "--per-call", path,
                          NULL};
    struct cli_result r;
    char how[64];
    (void)state;
    double secs = mpi_launch(2, "bin/mring-bench", args, BENCH_LIMIT_S, &r);
    if (!r.exited || r.status == 0 || secs > PROMPT_S || !strstr(r.err, "timed out") || !strstr(r.err, "rank ") ||
        !strstr(r.err, "stream 0 op") || !strstr(r.err, "RS d1 s0") || !(strstr(r.err, "RECV") || strstr(r.err, "SEND")))
        fail_msg("%s: want a prompt non-zero exit naming the stuck operation; got %s after %.1f s, stderr:\n%s", r.cmd,
                 cli_how(&r, how, sizeof how), secs, r.err);
    /* --per-call's file, written beside its path until the end, is gone with the job (it was left behind) */
    if (rmdir(dir) != 0)
        fail_msg("%s: want nothing left in %s after the abort (%s)", r.cmd, dir, strerror(errno));
    cli_free(&r);
}

#define CHECK_P(p) {"mpi_allreduce_check_P" #p, test_allreduce_check, NULL, NULL, (void *)(intptr_t)(p)}

/* --tuning: each size runs the entry's whole configuration, dim-algo and segment included (named in the
 * table when it changes), and every result is checked. */
static void test_bench_tuning_dim_algo(void **state)
{
    char path[] = "/tmp/mring-test-bench-tuning-XXXXXX";
    int fd = mkstemp(path);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    (void)state;
    assert_non_null(f);
    fprintf(f, "{\"mring_tuning\": 1, \"ranks\": 4, \"entries\": ["
               "{\"min_size\": 0, \"max_size\": 4095, \"algo\": \"rd\", \"topo\": \"4\", \"rings\": \"1\"},"
               "{\"min_size\": 4096, \"max_size\": 9223372036854775807, \"algo\": \"multiring\", \"topo\": \"2x2\","
               " \"rings\": \"1\", \"dim_algo\": \"rabenseifner,rabenseifner\", \"segment\": 1024}]}\n");
    fclose(f);
    const char *args[] = {"-b", "8", "-e", "64K", "-f", "8", "-n", "2", "-w", "1", "--tuning", path, NULL};
    struct cli_result r;
    mpi_launch(4, "bin/mring-bench", args, BENCH_LIMIT_S, &r);
    unlink(path);
    want_exit0(&r);
    if (!strstr(r.out, "# from 8 bytes: --algo rd --topo 4 --rings 1\n") ||
        !strstr(r.out, "# from 4096 bytes: --algo multiring --topo 2x2 --rings 1 --dim-algo rabenseifner --segment 1K\n") ||
        !strstr(r.out, "\n# Out of bounds values : 0 OK\n"))
        fail_msg("%s: want the entries' configurations named and 0 wrong; got:\n%s", r.cmd, r.out);
    cli_free(&r);
}

/* --embed and --chunks: rings on two cycles of 4 ranks (rank order and 0-2-1-3), every result checked;
 * the CSV's config column names the whole configuration. */
static void test_bench_embed_chunks(void **state)
{
    const char *args[] = {"-b", "8", "-e", "64K", "-f", "8", "-n", "2", "-w", "1", "--topo", "4", "--algo", "ring",
                          "--rings", "4", "--embed", "0.1.2.3/0.2.1.3", "--format", "csv", NULL};
    const char *mr[] = {"-b", "8", "-e", "64K", "-f", "8", "-n", "2", "-w", "1", "--topo", "2x2", "--rings", "2",
                        "--chunks", "3", NULL};
    struct cli_result r;
    (void)state;
    mpi_launch(4, "bin/mring-bench", args, BENCH_LIMIT_S, &r);
    want_exit0(&r);
    struct csv_table t;
    int inplace = 0;
    csv_read_ok(r.out, &t, r.cmd);
    assert_int_equal(t.nrows, 2 * 5); /* 8 B .. 64 KiB by 8 (5 sizes), out of place and in place */
    for (int i = 0; i < t.nrows; i++) {
        inplace += csv_need_int(&t, i, "inplace") == 1;
        if (strcmp(csv_str(&t, i, "config"), "--algo ring --topo 4 --rings 4 --embed 0.1.2.3/0.2.1.3") ||
            csv_need_int(&t, i, "wrong") != 0)
            fail_msg("%s: want every row naming the embedding, with 0 wrong; row %d is not", r.cmd, i + 1);
    }
    csv_free(&t);
    assert_int_equal(inplace, 5);
    cli_free(&r);
    bench_table_ok(mr, 5);
}

#define TRACE_MAXOPS 256

static int by_full_name(const void *a, const void *b)
{
    return strcmp(((const sim_trace_op_t *)a)->full, ((const sim_trace_op_t *)b)->full);
}

/* Rank r's ops in trace file path (sim_trace.h), sorted by their whole names; fails the test when one begins
 * before 0 or ends before it begins. */
static int rank_ops(const char *path, int r, sim_trace_op_t *ops)
{
    json_error_t jerr;
    json_t *root = json_load_file(path, 0, &jerr);
    if (!root)
        fail_msg("%s: %s", path, jerr.text);
    int n = sim_trace_ops(json_object_get(root, "traceEvents"), r, ops, TRACE_MAXOPS);
    json_decref(root);
    for (int k = 0; k < n; k++)
        if (ops[k].start < 0 || ops[k].end < ops[k].start)
            fail_msg("%s: rank %d's '%s' runs from %g to %g us", path, r, ops[k].full, ops[k].start, ops[k].end);
    qsort(ops, (size_t)n, sizeof *ops, by_full_name);
    return n;
}

/* --trace: the measured timeline of a call names exactly the ops, rank by rank, that mring simulate
 * --trace names for the same configuration (2 rings in 2 chunks on 2x2, an awkward count: 5001 floats). */
static void test_bench_trace(void **state)
{
    char dir[] = "/tmp/mring-test-trace-XXXXXX", plat[64], sim[64], real[64];
    struct cli_result r = {0};
    static sim_trace_op_t want[TRACE_MAXOPS], got[TRACE_MAXOPS];
    (void)state;
    if (!build_file("bin/mring-bench") || !mkdtemp(dir))
        skip();
    snprintf(plat, sizeof plat, "%s/p.xml", dir);
    snprintf(sim, sizeof sim, "%s/sim.json", dir);
    snprintf(real, sizeof real, "%s/real.json", dir);
    const char *mk[] = {"platform", "testbed", "--nodes", "2", "--gpus-per-node", "2", "--intra", "10us:130MBps",
                        "--inter", "15us:31MBps", "--reduce", "3.5GBps", "-o", plat, NULL};
    const char *simulate[] = {"simulate", "--platform", plat, "--topo", "2x2", "--rings", "2", "--chunks", "2", "-b",
                              "20004", "-e", "20004", "--trace", sim, NULL};
    const char *bench[] = {"--topo", "2x2", "--rings", "2", "--chunks", "2", "-b", "20004", "-e", "20004", "-n", "2",
                           "-w", "1", "--barrier", "1", "--trace", real, "--format", "csv", NULL};
    if (cli_run(mk, &r) || !r.exited || r.status != 0) { /* no SimGrid back end in this build */
        cli_free(&r);
        rmdir(dir);
        skip();
    }
    cli_free(&r);
    cli_run_ok(simulate, &r);
    cli_free(&r);
    mpi_launch(4, "bin/mring-bench", bench, BENCH_LIMIT_S, &r);
    want_exit0(&r);
    cli_free(&r);
    int total = 0;
    for (int k = 0; k < 4; k++) {
        int n = rank_ops(sim, k, want), m = rank_ops(real, k, got);
        if (n != m)
            fail_msg("rank %d: %d ops simulated, %d measured", k, n, m);
        for (int i = 0; i < n; i++)
            if (strcmp(want[i].full, got[i].full))
                fail_msg("rank %d: simulated op '%s' where the measured trace has '%s'", k, want[i].full, got[i].full);
        total += n;
    }
    assert_true(total > 4 * 2 * 2 * 4); /* per rank: 2 rings x 2 chunks x (2 dimensions x RS and AG) messages at least */
    unlink(plat);
    unlink(sim);
    unlink(real);
    rmdir(dir);
}

/* --algo mpi with one of mring's configuration flags is refused in one line, exit 2 (they were ignored: --topo 2x2
 * ran on 2 ranks) */
static void test_bench_mpi_config(void **state)
{
    static const char *const flags[][2] = {{"--topo", "2x2"}, {"--rings", "2"}, {"--chunks", "7"}, {"--segment", "12"}};
    (void)state;
    for (size_t i = 0; i < sizeof flags / sizeof *flags; i++) {
        const char *args[] = {"--algo", "mpi", flags[i][0], flags[i][1], "-b", "8", "-e", "8", NULL};
        struct cli_result r;
        char want[64];
        snprintf(want, sizeof want, "--algo mpi with %s", flags[i][0]);
        mpi_launch(2, "bin/mring-bench", args, PROMPT_S, &r);
        if (!r.exited || r.status != 2 || !strstr(r.err, want) || strchr(r.err, '\n') != strrchr(r.err, '\n'))
            fail_msg("%s: want exit 2 and one line naming '%s'; got %d: %s", r.cmd, want, r.status, r.err);
        cli_free(&r);
    }
}

/* --trace with --algo mpi is refused in one line, exit 2 */
static void test_bench_trace_mpi(void **state)
{
    const char *args[] = {"--algo", "mpi", "--trace", "/tmp/mring-test-never.json", NULL};
    struct cli_result r;
    (void)state;
    mpi_launch(2, "bin/mring-bench", args, PROMPT_S, &r);
    if (!r.exited || r.status != 2 || !strstr(r.err, "--trace with --algo mpi") || access("/tmp/mring-test-never.json", F_OK) == 0)
        fail_msg("%s: want exit 2 naming --trace with --algo mpi and no file; got %d: %s", r.cmd, r.status, r.err);
    cli_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bench_tuning_dim_algo), cmocka_unit_test(test_bench_embed_chunks),
        cmocka_unit_test(test_bench_trace),    cmocka_unit_test(test_bench_trace_mpi), cmocka_unit_test(test_bench_mpi_config),
        cmocka_unit_test(test_bench_bad_topo), cmocka_unit_test(test_bench_bad_type),
        cmocka_unit_test(test_bench_bad_trace_or_tuning),
        cmocka_unit_test(test_bench_op_not_on_type), cmocka_unit_test(test_bench_new_types),
        cmocka_unit_test(test_bench_table),    cmocka_unit_test(test_bench_csv),
        cmocka_unit_test(test_bench_mpi),      cmocka_unit_test(test_bench_avg_float16),
        cmocka_unit_test(test_bench_prod_bfloat16), cmocka_unit_test(test_bench_timeout_names_stuck_op),
        CHECK_P(1), CHECK_P(2), CHECK_P(3), CHECK_P(4), CHECK_P(5), CHECK_P(6), CHECK_P(8),
        cmocka_unit_test(test_allreduce_check_split),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
