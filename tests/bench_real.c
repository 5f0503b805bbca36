/*
 * bench_real.c - `scons bench`: mring-bench's multiring (best of rings 1 and 2) against MPICH's own
 * MPI_Allreduce through the same harness (--algo mpi), P = 2 and 4 on this machine, 1-64 MB: busbw per
 * size side by side, their ratio (the target: at least 1.0 from 4 MB) and the peak RSS of the
 * job (the largest process; target: the user's buffers plus one buffer-sized scratch).  Measures only.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "csv_table.h"

#define NSIZES 4
static const long long sizes[NSIZES] = {1LL << 20, 4LL << 20, 16LL << 20, 64LL << 20};

/* The repository root: two levels above this program (build/tests/bench_real). */
static void root_of(char *root, size_t len)
{
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    self[n > 0 ? n : 0] = '\0';
    for (int up = 0; up < 3; up++) {
        char *slash = strrchr(self, '/');
        if (slash)
            *slash = '\0';
    }
    snprintf(root, len, "%s", self);
}

/* Run mring-bench on P ranks with extra flags; busbw per size (out of place) and the peak RSS in KiB. */
static int run(const char *root, int P, const char *flags, double *busbw, long *rss_kib)
{
    char cmd[2 * PATH_MAX];
    int fd[2];
    snprintf(cmd, sizeof cmd, "mpiexec -n %d %s/build/bin/mring-bench -b 1M -e 64M -f 4 -n 5 -w 2 --format csv %s", P,
             root, flags);
    if (pipe(fd))
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fd[1], 1);
        close(fd[0]);
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    close(fd[1]);
    FILE *f = fdopen(fd[0], "r");
    char *out = NULL, err[128] = "no output";
    size_t cap = 0;
    int got = f && getdelim(&out, &cap, '\0', f) > 0; /* the whole output: it holds no NUL */
    if (f)
        fclose(f);
    struct csv_table t;
    int parsed = got && csv_read(out, &t, err, sizeof err) == 0;
    if (!parsed)
        fprintf(stderr, "bench_real: %s: %s\n", cmd, err);
    for (int r = 0; parsed && r < t.nrows; r++)
        for (int i = 0; i < NSIZES; i++)
            if (csv_num(&t, r, "size") == (double)sizes[i] && csv_num(&t, r, "inplace") == 0)
                busbw[i] = csv_num(&t, r, "busbw_gbps");
    if (parsed)
        csv_free(&t);
    free(out);
    int status;
    struct rusage ru;
    wait4(pid, &status, 0, &ru);
    *rss_kib = ru.ru_maxrss;
    return parsed && WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

int main(void)
{
    char root[PATH_MAX];
    root_of(root, sizeof root);
    printf("mring-bench multiring (best of --rings 1 and 2) vs --algo mpi (MPICH's MPI_Allreduce), out of place\n"
           "busbw in GB/s; ratio = multiring / mpi (target >= 1.0 from 4 MB); peak RSS of the largest process\n");
    for (int P = 2; P <= 4; P += 2) {
        double mr[2][NSIZES] = {{0}}, mpi[NSIZES] = {0};
        long rss_mr = 0, rss_mpi = 0, r;
        char topo[64];
        snprintf(topo, sizeof topo, "--topo %s", P == 4 ? "2x2" : "2");
        for (int rings = 1; rings <= 2; rings++) {
            char flags[128];
            snprintf(flags, sizeof flags, "%s --rings %d", topo, rings);
            if (run(root, P, flags, mr[rings - 1], &r))
                return 1;
            rss_mr = r > rss_mr ? r : rss_mr;
        }
        if (run(root, P, "--algo mpi", mpi, &rss_mpi))
            return 1;
        printf("\nP = %d (%s)\n%10s %12s %12s %8s %s\n", P, topo + 7, "size", "multiring", "mpi", "ratio", "target");
        for (int i = 0; i < NSIZES; i++) {
            double best = mr[0][i] > mr[1][i] ? mr[0][i] : mr[1][i], ratio = mpi[i] > 0 ? best / mpi[i] : 0;
            printf("%8lldMB %12.3f %12.3f %8.2f %s\n", sizes[i] >> 20, best, mpi[i], ratio,
                   sizes[i] < (4 << 20) ? "-" : ratio >= 1.0 ? "met" : "MISSED");
        }
        printf("peak RSS: multiring %.1f MiB, mpi %.1f MiB; buffers at 64 MB: 2 x 64 MiB + 64 MiB scratch = 192 MiB\n",
               rss_mr / 1024.0, rss_mpi / 1024.0);
    }
    return 0;
}
