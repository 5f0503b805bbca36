/*
 * bench_sim_smpi.h - bench_sim's section 3: SimGrid's SMPI running tests/smpi_ring_allreduce.c beside
 * `mring simulate --algo ring` on minsky-64 (see bench_sim.c).  Header-only: one includer, which defines
 * mring_bin and TARGET_SMPI_RATIO before it.
 */
#ifndef MRING_TESTS_BENCH_SIM_SMPI_H
#define MRING_TESTS_BENCH_SIM_SMPI_H

#include "bench_run.h"

typedef struct {
    const char *label;
    long long bytes;
} size_case;

static void section_smpi(const char *root)
{
    printf("\n== 3. SMPI (smpirun, allreduce lr) vs mring simulate --algo ring: 256 ranks on minsky-64 ==\n");
    char smpicc[PATH_MAX], smpirun[PATH_MAX];
    if (!in_path("smpicc", smpicc, sizeof smpicc) || !in_path("smpirun", smpirun, sizeof smpirun)) {
        printf("  skipped: smpicc or smpirun not found in PATH (Debian: apt-get install libsimgrid-dev)\n");
        return;
    }

    /* the hostfile: the platform's mring_rank hosts in rank order (n0-gpu0, n0-gpu1, ...) */
    char **hosts = NULL;
    double gpu_speed = 0;
    int nranks = platform_rank_hosts("platforms/minsky-64.xml", &hosts, &gpu_speed);
    if (nranks <= 0) {
        printf("  skipped: no mring_rank hosts found in platforms/minsky-64.xml\n");
        return;
    }
    char hostfile[PATH_MAX];
    snprintf(hostfile, sizeof hostfile, "%s/hosts", workdir);
    FILE *hf = fopen(hostfile, "w");
    for (int i = 0; hf && i < nranks; i++)
        fprintf(hf, "%s\n", hosts[i]);
    if (!hf || fclose(hf)) {
        printf("  skipped: cannot write %s\n", hostfile);
        return;
    }
    printf("  hostfile: %d hosts, %s .. %s\n", nranks, hosts[0], hosts[nranks - 1]);
    for (int i = 0; i < nranks; i++)
        free(hosts[i]);
    free(hosts);

    /* compile the MPI program */
    char src[PATH_MAX], prog[PATH_MAX];
    snprintf(src, sizeof src, "%s/tests/smpi_ring_allreduce.c", root);
    snprintf(prog, sizeof prog, "%s/smpi_ring_allreduce", workdir);
    char *cc[] = {smpicc, "-O2", "-o", prog, src, NULL};
    print_cmd(cc);
    run_t c;
    double climit = limit_for(120);
    run_cmd(&c, "s4cc", climit, cc);
    if (!run_ok(&c)) {
        if (!c.skipped)
            printf("  SMPI comparison skipped: smpicc did not succeed\n");
        report_failure("smpicc", &c, climit, 0, 0);
        return;
    }
    printf("  compiled in %.2f s\n", c.wall_s);

    char np[16];
    snprintf(np, sizeof np, "%d", nranks);
    const size_case sizes[] = {{"1 MB", 1LL << 20}, {"100 MB", 100LL << 20}};
    enum { NSIZES = sizeof sizes / sizeof sizes[0] };
    double mr_wall[NSIZES], mr_us[NSIZES], sm_wall[NSIZES], sm_us[NSIZES], sm_priv[NSIZES], sm_rss[NSIZES];
    int ok[NSIZES];
    double sum_wall = -1, sum_us = -1;

    for (int s = 0; s < NSIZES; s++) {
        ok[s] = 0;
        char bytes[32], count[32];
        snprintf(bytes, sizeof bytes, "%lld", sizes[s].bytes);
        snprintf(count, sizeof count, "%lld", sizes[s].bytes / 4);

        char *mr[] = {mring_bin, "simulate", "--algo", "ring", "--platform", "platforms/minsky-64.xml", "-b", bytes,
                      "-e", bytes, "--format", "csv", NULL};
        if (s == 0)
            print_cmd(mr);
        run_t r;
        double limit = limit_for(120);
        run_cmd(&r, "s4mring", limit, mr);
        if (!run_ok(&r) || csv_value(r.out, "time_us", &mr_us[s])) {
            if (run_ok(&r)) {
                failures++;
                printf("  no time_us in the output of mring simulate --algo ring\n");
            } else {
                report_failure("mring simulate --algo ring", &r, limit, 0, 1);
            }
            continue;
        }
        mr_wall[s] = r.wall_s;

        /* noop: the same simulation without the real float sums on this CPU (see the MPI program) */
        char *sm[MAX_ARGS] = {smpirun,
                              "-np",
                              np,
                              "-platform",
                              "platforms/minsky-64.xml",
                              "-hostfile",
                              hostfile,
                              "-no-privatize",
                              "--cfg=smpi/allreduce:lr",
                              "--cfg=network/model:CM02",
                              "--cfg=network/crosstraffic:0",
                              "--cfg=network/optim:Full", /* as mring simulate (sim_platform.c) */
                              "--cfg=smpi/host-speed:1Gf",
                              prog,
                              count,
                              "noop", /* index OPARG */
                              NULL};
        enum { OPARG = 15 };
        if (s == 0)
            print_cmd(sm);
        run_t m;
        limit = limit_for(120);
        run_cmd(&m, "s4smpi", limit, sm);
        double t = -1;
        if (!run_ok(&m) || kv_value(m.out, "time_s", &t)) {
            printf("  smpirun at %s did not succeed; its row is left out\n", sizes[s].label);
            if (run_ok(&m)) {
                printf("  no time_s= in the output of the MPI program\n");
            } else {
                report_failure("smpirun", &m, limit, 0, 0);
            }
            continue;
        }
        sm_wall[s] = m.wall_s;
        sm_us[s] = t * 1e6;
        sm_priv[s] = (double)m.private_peak_kb;
        sm_rss[s] = (double)m.maxrss_kb;
        ok[s] = 1;

        if (s == 0) { /* once with MPI_SUM, to show the reductions cost wall time but no simulated time */
            sm[OPARG] = "sum";
            limit = limit_for(120);
            run_cmd(&m, "s4smpisum", limit, sm);
            if (run_ok(&m) && kv_value(m.out, "time_s", &t) == 0) {
                sum_wall = m.wall_s;
                sum_us = t * 1e6;
            } else {
                report_failure("smpirun (MPI_SUM)", &m, limit, 0, 0);
            }
        }
    }

    printf("  %-7s | %9s %9s %7s | %12s %12s %9s | %10s %11s\n", "size", "mring (s)", "SMPI (s)", "SMPI/",
           "mring (us)", "SMPI (us)", "rel.diff", "SMPI priv.", "SMPI maxrss");
    printf("  %-7s | %9s %9s %7s | %12s %12s %9s | %10s %11s\n", "", "wall", "wall", "mring", "predicted",
           "predicted", "", "peak (MiB)", "(MiB)");
    for (int s = 0; s < NSIZES; s++) {
        if (!ok[s]) {
            printf("  %-7s | (failed, see above)\n", sizes[s].label);
            continue;
        }
        printf("  %-7s | %9.3f %9.3f %7.2f | %12.2f %12.2f %+8.2f%% | %10.1f %11.1f\n", sizes[s].label, mr_wall[s],
               sm_wall[s], sm_wall[s] / mr_wall[s], mr_us[s], sm_us[s], 100.0 * (mr_us[s] - sm_us[s]) / sm_us[s],
               sm_priv[s] / 1024, sm_rss[s] / 1024);
    }
    for (int s = 0; s < NSIZES; s++)
        if (ok[s])
            printf("  SMPI wall / mring wall at %-7s %8.2f, target >= %.0f: %s (ratio to target %.3f)\n", sizes[s].label,
                   sm_wall[s] / mr_wall[s], TARGET_SMPI_RATIO,
                   sm_wall[s] / mr_wall[s] >= TARGET_SMPI_RATIO ? "met" : "MISSED",
                   sm_wall[s] / mr_wall[s] / TARGET_SMPI_RATIO);
    printf("  rel.diff = (mring - SMPI) / SMPI.  SMPI runs use a no-op reduction (op noop) on SMPI_SHARED_MALLOC\n"
           "  buffers: SMPI performs a collective's reductions for real but charges them no simulated time,\n"
           "  whereas mring charges them at the GPU speed");
    if (gpu_speed > 0) {
        printf(" (%.0f GB/s here: about", gpu_speed / 1e9);
        for (int s = 0; s < NSIZES; s++)
            printf("%s %.1f us at %s", s ? "," : "",
                   1e6 * (double)sizes[s].bytes * (nranks - 1) / nranks / gpu_speed, sizes[s].label);
        printf(")");
    }
    printf(".\n");
    if (sum_wall >= 0)
        printf("  SMPI with MPI_SUM at 1 MB: wall %.3f s (%.2fx the no-op run), predicted %.2f us\n"
               "  (at 100 MB the sums take minutes of CPU and page faults on the shared mappings: not run).\n",
               sum_wall, ok[0] ? sum_wall / sm_wall[0] : 0.0, sum_us);
    printf("  SMPI maxrss counts the shared-malloc file pages once per rank mapping; 'priv. peak' is the sampled\n"
           "  anonymous + shmem RSS of the smpirun process tree, i.e. the memory it really holds.\n");
}

/* <build>/bin/mring from /proc/self/exe = <build>/tests/bench_sim; the root is found above it. */
#endif
