/*
 * witness.c - mring-witness: when did this machine stop running?  (validation/witness runs it beside
 * every job of validation/run.)
 *
 * One thread per online CPU, bound to it at SCHED_FIFO priority 99 with its memory locked, sleeps to
 * absolute deadlines PERIOD apart on CLOCK_MONOTONIC, as cyclictest does (rt-tests; its -S -m -p 99 -i
 * PERIOD).  A thread at that priority runs as soon as its timer fires, so a wake-up later than LATE can
 * only mean that the CPU itself did not run: on the development VM the host stops it about 100 ms at a
 * time (validation/README.md, "Host freezes").  cyclictest counts such wake-ups but does not say when
 * they happened; the validation needs when, to leave out the calls a stop fell in (validation/unstopped).
 *
 * Every late wake-up is one CSV row on stdout, written as it happens:
 *   cpu,from_s,to_s,late_ms
 * from_s the deadline it missed and to_s when it woke, in seconds since the epoch (CLOCK_REALTIME, the
 * clock mring-bench --per-call stamps calls with), late_ms = to_s - from_s in ms.  A stop of the whole
 * machine shows on every CPU.  Deadlines a stop swallowed are skipped (the next deadline is the first
 * one after the wake-up), so one stop is one row per CPU however long it lasted.  SIGTERM or SIGINT end
 * it with status 0; bad options: one line, status 2; SCHED_FIFO or mlockall refused (not root): one line,
 * status 1 (at a normal priority, CPU contention would pass for stops).
 *
 * usage: mring-witness [--late MS] [--period US]     (defaults 10 ms, 1000 us)
 */
#define _GNU_SOURCE
#include "args.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static double late_s = 0.010, period_s = 0.001;
static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;

static double secs(clockid_t clk)
{
    struct timespec t;
    clock_gettime(clk, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static struct timespec to_ts(double s)
{
    struct timespec t = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    if (t.tv_nsec >= 1000000000L)
        t.tv_sec++, t.tv_nsec -= 1000000000L;
    return t;
}

/* One CPU's watch: sleep to each deadline; a wake-up LATE past it is a row (the deadline and the wake-up
 * moved to CLOCK_REALTIME by the offset read beside the wake-up); the next deadline is the first after now. */
static void *watch(void *arg)
{
    int cpu = (int)(intptr_t)arg;
    double next = secs(CLOCK_MONOTONIC) + period_s;
    for (;;) {
        struct timespec d = to_ts(next);
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &d, NULL) == EINTR)
            ;
        double now = secs(CLOCK_MONOTONIC), wall = secs(CLOCK_REALTIME);
        if (now - next >= late_s) {
            pthread_mutex_lock(&out_lock);
            printf("%d,%.6f,%.6f,%.1f\n", cpu, wall - (now - next), wall, (now - next) * 1e3);
            fflush(stdout);
            pthread_mutex_unlock(&out_lock);
        }
        while (next <= now)
            next += period_s;
    }
    return NULL;
}

static void start_watch(int cpu)
{
    pthread_attr_t a;
    pthread_t t;
    cpu_set_t set;
    struct sched_param sp = {.sched_priority = 99};
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    pthread_attr_init(&a);
    pthread_attr_setinheritsched(&a, PTHREAD_EXPLICIT_SCHED);
    pthread_attr_setschedpolicy(&a, SCHED_FIFO);
    pthread_attr_setschedparam(&a, &sp);
    pthread_attr_setaffinity_np(&a, sizeof set, &set);
    int rc = pthread_create(&t, &a, watch, (void *)(intptr_t)cpu);
    pthread_attr_destroy(&a);
    if (rc)
        cli_fail(NULL, "cannot start a SCHED_FIFO 99 thread on CPU %d: %s (run as root)", cpu, strerror(rc));
}

static void parse(int argc, char **argv)
{
    static const struct option opts[] = {{"late", required_argument, 0, 'l'}, {"period", required_argument, 0, 'p'},
                                         {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    int c;
    while ((c = cli_getopt(NULL, argc, argv, "h", opts)) != -1) {
        if (c == 'l')
            late_s = cli_int(NULL, "--late", optarg, 1, 1000000) * 1e-3;
        else if (c == 'p')
            period_s = cli_int(NULL, "--period", optarg, 100, 1000000) * 1e-6;
        else {
            printf("usage: mring-witness [--late MS] [--period US]\n"
                   "One SCHED_FIFO 99 thread per CPU wakes every US microseconds (default 1000); each wake-up\n"
                   "MS milliseconds (default 10) or more late is a row cpu,from_s,to_s,late_ms on stdout (seconds\n"
                   "since the epoch).  Runs until SIGTERM or SIGINT.  Needs root.\n");
            exit(0);
        }
    }
    if (optind < argc)
        cli_usage_error(NULL, "unexpected argument '%s' (see --help)", argv[optind]);
    if (late_s < period_s)
        cli_usage_error(NULL, "--late %g ms is shorter than --period %g us", late_s * 1e3, period_s * 1e6);
}

int main(int argc, char **argv)
{
    sigset_t stop;
    int sig;
    cli_set_program("mring-witness", 0, NULL);
    parse(argc, argv);
    sigemptyset(&stop);
    sigaddset(&stop, SIGTERM);
    sigaddset(&stop, SIGINT);
    pthread_sigmask(SIG_BLOCK, &stop, NULL); /* the watches inherit it; main waits for it below */
    if (mlockall(MCL_CURRENT | MCL_FUTURE))
        cli_fail(NULL, "mlockall: %s (run as root)", strerror(errno));
    printf("cpu,from_s,to_s,late_ms\n");
    fflush(stdout);
    cpu_set_t cpus; /* the CPUs this process may run on: every online one, unless a cpuset narrows it */
    if (sched_getaffinity(0, sizeof cpus, &cpus))
        cli_fail(NULL, "sched_getaffinity: %s", strerror(errno));
    for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
        if (CPU_ISSET(cpu, &cpus))
            start_watch(cpu);
    sigwait(&stop, &sig);
    pthread_mutex_lock(&out_lock); /* no row half-written */
    return 0;
}
