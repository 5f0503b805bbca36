/*
 * test_cuda.c - the CUDA path of the real executor, end to end: mring-bench with --device cuda
 * (buffers in GPU memory, reductions by the CUDA kernels, messages staged per piece through pinned
 * host memory) must report zero wrong elements for every type and op but long double (refused with
 * one line), pipelined or not.  Where no
 * GPU is visible, or mring was built without nvcc, every test reports itself as SKIPPED.
 */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "cli_run.h"
#include "dtype.h"
#include "sim_cli.h"

/* Run mring-bench on 2 ranks with `flags`; skip when there is no GPU or no CUDA build. */
static void bench_cuda(const char *flags)
{
    char cmd[2 * PATH_MAX], out[16384];
    snprintf(cmd, sizeof cmd, "timeout 300 mpiexec -n 2 %s --device cuda %s 2>&1",
             sim_repo_path("build/bin/mring-bench"), flags);
    int status = cli_shell(cmd, out, sizeof out);
    if (strstr(out, "no CUDA device is visible") || strstr(out, "built without CUDA")) {
        print_message("no GPU here: %s", out);
        skip();
    }
    if (status != 0 || !strstr(out, "# Out of bounds values : 0 OK"))
        fail_msg("%s: want exit 0 and 0 wrong elements; got status %d:\n%s", cmd, status, out);
}

static void float32_sum(void **state)
{
    (void)state;
    bench_cuda("--topo 2 -b 8 -e 16M -f 16 -n 2 -w 1");
}

/* every valid type x op pair (mring_op_valid) but long double, which CUDA lacks */
static void every_type_and_op(void **state)
{
    char flags[256];
    (void)state;
    for (int t = 0; t < MRING_NTYPES; t++)
        for (int o = 0; o < MRING_NOPS; o++) {
            if (!mring_op_valid((mring_dtype_t)t, (mring_redop_t)o) || t == MRING_LONGDOUBLE || t == MRING_LONGDOUBLE_INT)
                continue;
            snprintf(flags, sizeof flags, "-d %s -o %s -b 1K -e 1M -f 32 -n 1 -w 0 --rings 2",
                     mring_dtype_name((mring_dtype_t)t), mring_redop_name((mring_redop_t)o));
            bench_cuda(flags);
        }
}

/* long double has no CUDA kernel: refused with one line, before any GPU work */
static void long_double_refused(void **state)
{
    char cmd[2 * PATH_MAX], out[4096];
    (void)state;
    snprintf(cmd, sizeof cmd, "timeout 60 mpiexec -n 2 %s --device cuda -d longdouble -b 8 -e 8 2>&1",
             sim_repo_path("build/bin/mring-bench"));
    int status = cli_shell(cmd, out, sizeof out);
    if (strstr(out, "built without CUDA")) {
        print_message("no CUDA build: %s", out);
        skip();
    }
    if (status == 0 || !strstr(out, "--device cuda with -d longdouble: CUDA has no long double"))
        fail_msg("%s: want a non-zero exit naming long double; got status %d: %s", cmd, status, out);
}

static void pipelined_staging(void **state)
{
    (void)state;
    bench_cuda("--algo multiring --rings 2 --segment 256K -b 1M -e 64M -f 8 -n 2 -w 1");
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(float32_sum), cmocka_unit_test(every_type_and_op),
                                       cmocka_unit_test(long_double_refused), cmocka_unit_test(pipelined_staging)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
