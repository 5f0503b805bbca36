/* bench_percall.c - mring-bench --per-call: one CSV row per timed call and rank (see bench_percall.h). */
#include "bench_percall.h"

#include "libmring.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct bench_percall {
    FILE *f; /* rank 0 only */
    char path[4096], tmp[4200];
};

/* rank 0's file while it is written beside its path, for the job's end by a signal or mring_abort_job */
static char pending[4200];

static void drop_pending(void)
{
    if (pending[0])
        unlink(pending); /* async-signal-safe */
}

static void drop_and_die(int sig)
{
    drop_pending();
    signal(sig, SIG_DFL);
    raise(sig);
}

/* the file at tmp is removed if the job ends before bench_percall_close: an interrupt, the launcher's
 * SIGTERM when another rank aborts, or this rank's mring_abort_job (a call that timed out) */
static void drop_on_end(const char *tmp)
{
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
    struct sigaction sa = {.sa_handler = drop_and_die};
    snprintf(pending, sizeof pending, "%s", tmp);
    for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++)
        sigaction(sigs[i], &sa, NULL);
    mring_on_abort(drop_pending);
}

bench_percall_t *bench_percall_open(const char *path, MPI_Comm comm, char *err, size_t len)
{
    int rank, ok = 1;
    MPI_Comm_rank(comm, &rank);
    snprintf(err, len, "--per-call '%s': rank 0 could not create it", path); /* unless this rank says why */
    bench_percall_t *pc = calloc(1, sizeof *pc);
    if (!pc || strlen(path) >= sizeof pc->path) {
        snprintf(err, len, "--per-call '%s': %s", path, pc ? "path too long" : "out of memory");
        ok = 0;
    } else if (rank == 0) {
        strcpy(pc->path, path);
        snprintf(pc->tmp, sizeof pc->tmp, "%s.tmp%ld", path, (long)getpid());
        if (!(pc->f = fopen(pc->tmp, "w")) || fputs("size,inplace,config,call,rank,start_s,time_us\n", pc->f) < 0) {
            snprintf(err, len, "--per-call '%s': cannot create it: %s", path, strerror(errno));
            ok = 0; /* closed and removed below */
        }
    }
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, comm); /* one rank's failure is every rank's */
    if (!ok) {
        if (pc && pc->f)
            fclose(pc->f), unlink(pc->tmp);
        free(pc);
        return NULL;
    }
    if (pc->f)
        drop_on_end(pc->tmp);
    return pc;
}

int bench_percall_rows(bench_percall_t *pc, MPI_Comm comm, int64_t size, int inplace, int config, int n,
                       const double *stamps)
{
    int P, bad = 0;
    MPI_Comm_size(comm, &P);
    double *all = NULL;
    if (pc->f && !(all = malloc(2 * (size_t)n * (size_t)P * sizeof *all))) {
        fprintf(stderr, "mring-bench: --per-call: out of memory for %d calls of %d ranks\n", n, P);
        MPI_Abort(comm, 1);
    }
    MPI_Gather(stamps, 2 * n, MPI_DOUBLE, all, 2 * n, MPI_DOUBLE, 0, comm);
    for (int r = 0; all && r < P; r++)
        for (int i = 0; i < n; i++) {
            const double *s = all + (size_t)r * 2 * (size_t)n;
            if (fprintf(pc->f, "%lld,%d,%d,%d,%d,%.6f,%.3f\n", (long long)size, inplace, config, i, r, s[i],
                        (s[n + i] - s[i]) * 1e6) < 0)
                bad = 1;
        }
    free(all);
    MPI_Bcast(&bad, 1, MPI_INT, 0, comm); /* rank 0's write failure ends every rank */
    return bad ? -1 : 0;
}

int bench_percall_close(bench_percall_t *pc, char *err, size_t len)
{
    int rc = 0;
    if (pc && pc->f) {
        pending[0] = '\0'; /* renamed or removed below, not on a later signal */
        if (fclose(pc->f) || rename(pc->tmp, pc->path)) {
            snprintf(err, len, "--per-call '%s': cannot write it: %s", pc->path, strerror(errno));
            unlink(pc->tmp);
            rc = -1;
        }
    }
    free(pc);
    return rc;
}
