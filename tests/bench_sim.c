/*
 * bench_sim.c - how fast `mring simulate` and `mring tune` run, and how they compare with
 * SimGrid's own MPI emulation (SMPI).  A benchmark: it measures and prints, it asserts
 * nothing about speed; it exits 1 only when an mring run cannot be started or fails (an
 * SMPI tool that is missing or fails is reported, and the bench goes on).
 *
 * Targets are issue 13's, printed as measured / target / ratio.
 * Section 1: one 256-rank simulation of the 64-node Minsky platform (multiring 4x16x4,
 *            2 rings) at 100 MB and at 1 KB: best wall of 3 against 0.10 s and 0.05 s, beside the
 *            start-up floor (best of 3 of `mring profiles`: the process and SimGrid's libraries).
 * Section 2: 4096 ranks = 1024 Minsky nodes in 64 racks (`mring platform minsky`), multiring
 *            4x64x16 at 100 MB: wall time and peak RSS against 10 s and 4 GiB; then wall and
 *            peak RSS at 64, 256 and 1024 ranks, the growth of the cost with P.
 * Section 3: SMPI side by side: tests/smpi_ring_allreduce.c compiled with smpicc and run by
 *            smpirun on the 256 GPUs of minsky-64 with the logical-ring allreduce (lr), the
 *            CM02 network model and no cross-traffic (mring's defaults), against
 *            `mring simulate --algo ring` at 1 MB and 100 MB: wall times, their ratio (target >= 100), the
 *            predicted times and their relative difference.  Skipped, with the reason, when
 *            smpicc/smpirun are missing or fail (not a failure of the bench).
 * Section 4: `mring tune` over 1K..1G (factor 2) on minsky-64: wall time against 10 s
 *            (last: it takes minutes, and is cut short when the bench's budget runs out).
 *
 * The binary is <build>/bin/mring next to this program's <build>/tests/ (found from
 * /proc/self/exe, as `scons bench` does not set MRING_BIN); the repository root is the
 * first directory above it that holds platforms/minsky-64.xml, and the runs start there.
 * Wall times are CLOCK_MONOTONIC around fork/exec and wait4; peak RSS is wait4's ru_maxrss
 * (which covers the child's waited-for descendants).  Every run has a time limit, and its
 * process tree a limit on private memory (anonymous + shmem RSS, sampled every 50 ms),
 * past which the run is killed: SMPI runs all 256 ranks in one process.  The whole program
 * keeps within BENCH_BUDGET_S (the sections run in order; a run's limit is cut to what is
 * left, and a run is skipped when nothing is).  A run that reaches its time limit is a
 * measurement (wall > limit), not a failure; a run that cannot start or fails is one.
 */
#include "bench_run.h"

#include <math.h>

/* issue 13's targets */
static const double TARGET_256_S = 0.10, TARGET_256_1K_S = 0.05, TARGET_4096_S = 10.0, TARGET_4096_KB = 4.0 * 1024 * 1024,
                    TARGET_TUNE_S = 10.0, TARGET_SMPI_RATIO = 100.0;

static char mring_bin[PATH_MAX];

#include "bench_sim_smpi.h"

/* ---- the sections ---- */

/* Best wall of 3 runs of argv (-1 when a run failed; counted).  sim_us: the last run's time_us, when wanted. */
static double best_of_3(const char *what, char *const argv[], double target_s, double *sim_us)
{
    double best = -1;
    printf("  %-5s %12s %14s %12s\n", "run", "wall (s)", "simulated (us)", "peak RSS (MiB)");
    for (int rep = 1; rep <= 3; rep++) {
        run_t r;
        double limit = limit_for(60), us = -1;
        run_cmd(&r, "s1", limit, argv);
        if (!run_ok(&r)) {
            report_failure(what, &r, limit, target_s, 1);
            return -1;
        }
        if (sim_us && csv_value(r.out, "time_us", &us)) {
            failures++;
            printf("  no time_us in the output of run %d\n", rep);
            return -1;
        }
        if (sim_us)
            *sim_us = us;
        printf("  %-5d %12.3f %14.2f %12.1f\n", rep, r.wall_s, us, r.maxrss_kb / 1024.0);
        if (best < 0 || r.wall_s < best)
            best = r.wall_s;
    }
    return best;
}

static void target_row(const char *what, double measured, double target)
{
    printf("  %-40s %10.3f %10.3f %8.2f %s\n", what, measured, target, measured / target, verdict(measured, target));
}

static void section_256(void)
{
    printf("\n== 1. mring simulate: 256 ranks, minsky-64, multiring 4x16x4, 2 rings, at 100 MB and 1 KB ==\n");
    char *floor_argv[] = {mring_bin, "profiles", NULL};
    char *argv[] = {mring_bin, "simulate", "--platform", "platforms/minsky-64.xml", "--topo", "4x16x4", "--rings", "2",
                    "-b", "100M", "-e", "100M", "--format", "csv", NULL};
    char *argv1k[] = {mring_bin, "simulate", "--platform", "platforms/minsky-64.xml", "--topo", "4x16x4", "--rings",
                      "2", "-b", "1K", "-e", "1K", "--format", "csv", NULL};
    double us = -1, us1k = -1;
    print_cmd(argv);
    double best = best_of_3("mring simulate (256 ranks, 100 MB)", argv, TARGET_256_S, &us);
    print_cmd(argv1k);
    double best1k = best_of_3("mring simulate (256 ranks, 1 KB)", argv1k, TARGET_256_1K_S, &us1k);
    printf("  the start-up floor: a command that loads SimGrid and no platform\n");
    print_cmd(floor_argv);
    double floor_s = best_of_3("mring profiles", floor_argv, 0, NULL);
    printf("  %-40s %10s %10s %8s %s\n", "", "measured", "target", "ratio", "");
    if (best > 0)
        target_row("wall at 100 MB, best of 3 (s)", best, TARGET_256_S);
    if (best1k > 0)
        target_row("wall at 1 KB, best of 3 (s)", best1k, TARGET_256_1K_S);
    if (floor_s > 0)
        printf("  %-40s %10.3f  (process start and SimGrid's libraries: no command linked with them starts faster)\n",
               "start-up floor, best of 3 (s)", floor_s);
    if (us > 0)
        printf("  simulated allreduce time at 100 MB: %.2f us (busbw %.2f GB/s)\n", us,
               104857600.0 / (us * 1e-6) * 2.0 * 255 / 256 / 1e9);
}

/* Messages of a multiring with one ring per dimension on a d1 x d2 x d3 grid: every rank sends 2 (d_i - 1) in
 * each dimension (reduce-scatter and allgather). */
static double multiring_messages(int d1, int d2, int d3) { return (double)d1 * d2 * d3 * 2 * (d1 - 1 + d2 - 1 + d3 - 1); }

/* Wall time and peak RSS of a 100 MB multiring simulation on a generated Minsky platform of `nodes` nodes
 * in `racks` racks (its natural topology 4 x nodes/racks x racks, 1 ring), one run: the cost's growth with
 * the rank count.  Returns the wall time (s), -1 when the run failed. */
static double scaling_row(int nodes, int racks)
{
    char plat[PATH_MAX], n[16], k[16];
    snprintf(plat, sizeof plat, "%s/minsky-%d.xml", workdir, nodes);
    snprintf(n, sizeof n, "%d", nodes);
    snprintf(k, sizeof k, "%d", racks);
    char *gen[] = {mring_bin, "platform", "minsky", "--nodes", n, "--racks", k, "-o", plat, NULL};
    char *argv[] = {mring_bin, "simulate", "--platform", plat, "-b", "100M", "-e", "100M", "--format", "csv", NULL};
    run_t g, r;
    run_cmd(&g, "s2gen", limit_for(120), gen);
    if (!run_ok(&g)) {
        report_failure("mring platform", &g, 120, 0, 1);
        return -1;
    }
    const double limit = limit_for(180);
    run_cmd(&r, "s2", limit, argv);
    if (!run_ok(&r)) {
        report_failure("mring simulate (scaling)", &r, limit, 0, 1);
        return -1;
    }
    printf("  %7d %10.3f %12.1f\n", 4 * nodes, r.wall_s, r.maxrss_kb / 1024.0);
    return r.wall_s;
}

static void section_4096(void)
{
    printf("\n== 2. mring simulate: 4096 ranks (1024 Minsky nodes, 64 racks), multiring 4x64x16, 100 MB ==\n");
    char plat[PATH_MAX];
    snprintf(plat, sizeof plat, "%s/minsky-1024.xml", workdir);
    char *gen[] = {mring_bin, "platform", "minsky", "--nodes", "1024", "--racks", "64", "-o", plat, NULL};
    print_cmd(gen);
    run_t g;
    double glimit = limit_for(120);
    run_cmd(&g, "s2gen", glimit, gen);
    if (!run_ok(&g)) {
        report_failure("mring platform", &g, glimit, 0, 1);
        return;
    }
    struct stat st;
    long long bytes = stat(plat, &st) == 0 ? (long long)st.st_size : -1;
    printf("  platform written in %.3f s (%.1f MB of XML; natural topology 4x16x64, simulated as 4x64x16)\n",
           g.wall_s, bytes / 1e6);

    char *argv[] = {mring_bin, "simulate", "--platform", plat, "--topo", "4x64x16", "-b", "100M", "-e", "100M",
                    "--format", "csv", NULL};
    print_cmd(argv);
    const double limit = limit_for(180);
    run_t r;
    run_cmd(&r, "s2", limit, argv);
    if (!run_ok(&r)) {
        report_failure("mring simulate (4096 ranks)", &r, limit, TARGET_4096_S, 1);
        if (r.timed_out)
            printf("  peak private memory while it ran: %.1f MiB (target %.0f MiB)\n", r.private_peak_kb / 1024.0,
                   TARGET_4096_KB / 1024);
        return;
    }
    double us = -1;
    csv_value(r.out, "time_us", &us);
    printf("  %-40s %10s %10s %8s %s\n", "", "measured", "target", "ratio", "");
    target_row("wall (s)", r.wall_s, TARGET_4096_S);
    target_row("peak RSS (MiB)", r.maxrss_kb / 1024.0, TARGET_4096_KB / 1024);
    printf("  simulated allreduce time: %.2f us (1 ring per dimension)\n", us);
    printf("  growth with the rank count (multiring on the natural topology, 100 MB, one run each;\n"
           "  4096 is the run above):\n  %7s %10s %12s\n", "ranks", "wall (s)", "peak RSS (MiB)");
    scaling_row(16, 1);
    scaling_row(64, 4);
    double w1024 = scaling_row(256, 16);
    printf("  %7d %10.3f %12.1f\n", 4096, r.wall_s, r.maxrss_kb / 1024.0);
    if (w1024 > 0) { /* 1024 ranks run 4x16x16, 4096 ranks 4x64x16 */
        double m1024 = multiring_messages(4, 16, 16), m4096 = multiring_messages(4, 64, 16);
        printf("  from 1024 to 4096 ranks the messages grow %.1fx (P^%.2f) and the wall time %.1fx (P^%.2f):\n"
               "  %.1f us per message at 1024 ranks, %.1f us at 4096; a completion in SimGrid 3.32 walks the\n"
               "  list of every activity in flight (README, Benchmarks)\n",
               m4096 / m1024, log(m4096 / m1024) / log(4), r.wall_s / w1024, log(r.wall_s / w1024) / log(4),
               1e6 * w1024 / m1024, 1e6 * r.wall_s / m4096);
    }
}

static void section_tune(void)
{
    printf("\n== 4. mring tune: minsky-64, 1K..1G, factor 2 ==\n");
    char *argv[] = {mring_bin, "tune", "--platform", "platforms/minsky-64.xml", "-b", "1K", "-e", "1G", "-f", "2", NULL};
    print_cmd(argv);
    const double limit = limit_for(400);
    run_t r;
    run_cmd(&r, "s3", limit, argv);
    if (!run_ok(&r)) {
        report_failure("mring tune", &r, limit, TARGET_TUNE_S, 1);
        if (r.timed_out)
            printf("  %d sizes tuned by then (of 21)\n", count_rows(r.out));
        return;
    }
    printf("  %-40s %10s %10s %8s %s\n", "", "measured", "target", "ratio", "");
    target_row("wall (s)", r.wall_s, TARGET_TUNE_S);
    printf("  %d sizes tuned, peak RSS %.1f MiB\n", count_rows(r.out), r.maxrss_kb / 1024.0);
}

static int locate(char *root, size_t cap)
{
    char exe[DIR_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return -1;
    exe[n] = '\0';
    char *slash = strrchr(exe, '/'); /* <build>/tests/bench_sim -> <build>/tests */
    if (!slash)
        return -1;
    *slash = '\0';
    if (!(slash = strrchr(exe, '/'))) /* -> <build> */
        return -1;
    *slash = '\0';
    snprintf(mring_bin, sizeof mring_bin, "%s/bin/mring", exe);
    snprintf(root, cap, "%s", exe);
    while ((slash = strrchr(root, '/'))) {
        *slash = '\0';
        char probe[PATH_MAX];
        snprintf(probe, sizeof probe, "%s/platforms/minsky-64.xml", *root ? root : "");
        if (access(probe, R_OK) == 0) {
            if (!*root)
                snprintf(root, cap, "/");
            return 0;
        }
    }
    return -1;
}

static void remove_workdir(void)
{
    static const char *const names[] = {"s1",     "s2gen",  "s2",      "s3",          "s4cc",
                                        "s4mring", "s4smpi", "s4smpisum"};
    char path[PATH_MAX + 32];
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(path, sizeof path, "%s/%s.out", workdir, names[i]);
        unlink(path);
        snprintf(path, sizeof path, "%s/%s.err", workdir, names[i]);
        unlink(path);
    }
    static const char *const files[] = {"minsky-1024.xml", "hosts", "smpi_ring_allreduce"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", workdir, files[i]);
        unlink(path);
    }
    rmdir(workdir);
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    char root[DIR_MAX];
    if (locate(root, sizeof root)) {
        fprintf(stderr, "bench_sim: cannot find the repository root (platforms/minsky-64.xml) above /proc/self/exe\n");
        return 1;
    }
    if (access(mring_bin, X_OK)) {
        fprintf(stderr, "bench_sim: %s: %s (build it with scons)\n", mring_bin, strerror(errno));
        return 1;
    }
    if (chdir(root)) {
        fprintf(stderr, "bench_sim: chdir %s: %s\n", root, strerror(errno));
        return 1;
    }
    const char *tmp = getenv("TMPDIR");
    snprintf(workdir, sizeof workdir, "%s/bench_sim.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(workdir)) {
        fprintf(stderr, "bench_sim: mkdtemp %s: %s\n", workdir, strerror(errno));
        return 1;
    }
    {
        run_t v;
        char *help[] = {mring_bin, "simulate", "--help", NULL};
        run_cmd(&v, "s1", 30, help);
        char *text = slurp(v.out);
        int sim = run_ok(&v) || (text && strstr(text, "--platform"));
        free(text);
        if (!sim) {
            printf("bench_sim: %s has no `simulate` (built without SimGrid?): nothing to measure\n", mring_bin);
            remove_workdir();
            return 0;
        }
    }
    printf("bench_sim: %s (cwd %s; scratch %s)\n", mring_bin, root, workdir);
    printf("wall times: CLOCK_MONOTONIC around fork/exec..wait4; RSS: wait4 ru_maxrss; each run once unless said\n");

    double t0 = now_s();
    deadline = t0 + BENCH_BUDGET_S;
    section_256();
    section_4096();
    section_smpi(root);
    section_tune();
    printf("\nbench_sim: %.1f s in all, %d failure(s)\n", now_s() - t0, failures);
    remove_workdir();
    return failures ? 1 : 0;
}
