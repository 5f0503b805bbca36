/* test_witness.c - mring-witness: when did the machine stop running?
 *
 * We stop it ourselves: SIGSTOP for 300 ms, then SIGCONT, then SIGTERM.  Its stdout must be the header
 * and, for every CPU this process may run on, a row whose missed deadline lies between the SIGSTOP
 * (less 150 ms: a stop of the VM by the host just before it would merge with ours) and the SIGCONT and
 * whose wake-up comes after the SIGCONT, late_ms its span in ms; it ends with status 0 on SIGTERM.  (A stop of the whole VM
 * by the host may add rows; they are allowed, the ones we caused are required.)  Bad options: one
 * stderr line, exit 2.  Needs root (SCHED_FIFO 99, mlockall): skipped otherwise.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <jansson.h>
#include <sched.h>
#include <time.h>

#include "sim_cli.h"
#include "mpi_run.h"

#define LIMIT_S 60

#include "calib_run.h"

static const char *witness_bin(void)
{
    const char *p = bin_file("mring-witness");
    if (!p)
        fail_msg("mring-witness is missing beside %s", cli_bin());
    return p;
}

static double wall(void)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void nap_ms(int ms)
{
    struct timespec t = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (nanosleep(&t, &t))
        ;
}

static void test_witness_sees_a_stop(void **state)
{
    (void)state;
    if (geteuid() != 0)
        skip();
    int fd = cli_tmpfile(), status;
    assert_true(fd >= 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        dup2(fd, 1);
        execl(witness_bin(), "mring-witness", (char *)NULL);
        _exit(127);
    }
    nap_ms(300); /* its threads started */
    double stop = wall();
    kill(pid, SIGSTOP);
    nap_ms(300);
    double cont = wall();
    kill(pid, SIGCONT);
    nap_ms(100);
    kill(pid, SIGTERM);
    assert_int_equal(waitpid(pid, &status, 0), pid);
    size_t len;
    char *out = cli_slurp(fd, &len), *line, *save = NULL;
    close(fd);
    assert_non_null(out);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        fail_msg("mring-witness: want exit 0 on SIGTERM, got status %#x; stdout:\n%s", status, out);
    cpu_set_t cpus, seen;
    CPU_ZERO(&seen);
    assert_int_equal(sched_getaffinity(0, sizeof cpus, &cpus), 0);
    line = strtok_r(out, "\n", &save);
    assert_non_null(line);
    assert_string_equal(line, "cpu,from_s,to_s,late_ms");
    while ((line = strtok_r(NULL, "\n", &save))) {
        int cpu;
        double from, to, late;
        if (sscanf(line, "%d,%lf,%lf,%lf", &cpu, &from, &to, &late) != 4 || cpu < 0 || cpu >= CPU_SETSIZE)
            fail_msg("mring-witness: not a row: '%s'", line);
        if (fabs(late - (to - from) * 1e3) > 0.1)
            fail_msg("mring-witness: late_ms %.1f is not to_s - from_s in '%s'", late, line);
        print_message("row %s (SIGSTOP at %.6f, SIGCONT at %.6f)\n", line, stop, cont);
        /* from: the deadline after its last wake-up before our SIGSTOP (1 ms apart), or earlier when the host
         * stopped the VM just before it (its stops last 100 ms: validation/README.md, "Host freezes") */
        if (from >= stop - 0.15 && from <= cont && to >= cont)
            CPU_SET(cpu, &seen);
    }
    for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
        if (CPU_ISSET(cpu, &cpus) && !CPU_ISSET(cpu, &seen))
            fail_msg("mring-witness: no row on CPU %d for the 300 ms SIGSTOP", cpu);
    free(out);
}

static void test_witness_bad_options(void **state)
{
    (void)state;
    static const char *const bad[][4] = {{"--late", "0", NULL, "--late"},
                                         {"--late", "1", "--period=5000", "shorter than --period"},
                                         {"--period", "50", NULL, "--period"},
                                         {"extra", NULL, NULL, "'extra'"}};
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        const char *argv[] = {witness_bin(), bad[k][0], bad[k][1], bad[k][2], NULL};
        struct cli_result r;
        run(argv, NULL, &r);
        want_usage_error(&r, bad[k][3]);
        cli_free(&r);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_witness_sees_a_stop),
        cmocka_unit_test(test_witness_bad_options),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
