/* tune_sweep.c - many sizes tuned at once in worker processes, one per size (see tune.h). */
#include "tune.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

/* One size's outcome, as a worker sends it. */
typedef struct record {
    int rc;
    char err[512];
    mring_tune_size_t res;
} record_t;

static int read_full(int fd, void *buf, size_t len)
{
    for (size_t got = 0; got < len;) {
        ssize_t r = read(fd, (char *)buf + got, len - got);
        if (r <= 0)
            return -1;
        got += (size_t)r;
    }
    return 0;
}

/* Fork a worker that tunes size `size` (in its own copy of the loaded SimGrid platform, whose clock is still
 * at 0: a size's simulated times do not depend on which sizes a process simulated before, so any number of
 * jobs or MPI ranks gives the same bytes) and writes its record to the returned pipe.  Sizes are
 * independent simulations: the workers use the machine's cores. */
static int spawn_worker(mring_tune_t *t, int64_t size, pid_t *pid)
{
    int fd[2];
    pid_t parent = getpid();
    if (pipe(fd))
        return -1;
    if ((*pid = fork()) < 0) {
        close(fd[0]);
        close(fd[1]);
        return -1;
    }
    if (*pid == 0) {
        static record_t rec;
        /* ends with the tune (Ctrl-C, kill): a worker left behind simulated on for minutes (Linux's prctl) */
        if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
            _exit(1);
        close(fd[0]);
        memset(&rec, 0, sizeof rec);
        rec.rc = mring_tune_size(t, size, &rec.res, rec.err, sizeof rec.err);
        for (size_t put = 0; put < sizeof rec;) {
            ssize_t w = write(fd[1], (char *)&rec + put, sizeof rec - put);
            if (w <= 0)
                _exit(1);
            put += (size_t)w;
        }
        _exit(0);
    }
    close(fd[1]);
    return fd[0];
}

int mring_tune_sweep(mring_tune_t *t, const int64_t *sizes, int n, int jobs, mring_tune_size_t *res,
                     void (*done)(int i, const mring_tune_size_t *s, void *arg), void *arg, char *err, size_t errlen)
{
    int fds[64], next = 0, rc = 0;
    pid_t pids[64];
    jobs = jobs < 1 ? 1 : jobs > 64 ? 64 : jobs;
    for (int i = 0; i < n; i++) { /* at most `jobs` workers, results taken in size order */
        while (rc == 0 && next < n && next < i + jobs) {
            if ((fds[next % jobs] = spawn_worker(t, sizes[next], &pids[next % jobs])) < 0) {
                snprintf(err, errlen, "cannot start a tuning worker for %lld bytes", (long long)sizes[next]);
                rc = -1;
                break;
            }
            next++;
        }
        if (i >= next)
            break;
        static record_t rec;
        int fd = fds[i % jobs];
        if (rc == 0 && read_full(fd, &rec, sizeof rec)) {
            snprintf(err, errlen, "the tuning worker for %lld bytes stopped before its result", (long long)sizes[i]);
            rc = -1;
        } else if (rc == 0 && rec.rc) {
            snprintf(err, errlen, "tuning %lld bytes: %s", (long long)sizes[i], rec.err);
            rc = rec.rc;
        } else if (rc == 0) {
            res[i] = rec.res;
            if (done)
                done(i, &res[i], arg);
        }
        close(fd);
        if (rc != 0) /* its result is not wanted: a failed sweep does not wait for the sizes in flight */
            kill(pids[i % jobs], SIGKILL);
        waitpid(pids[i % jobs], NULL, 0);
    }
    return rc;
}

int mring_tune_launched_size(void)
{
    const char *vars[] = {"PMI_SIZE", "OMPI_COMM_WORLD_SIZE", "SLURM_STEP_NUM_TASKS"};
    for (size_t i = 0; i < sizeof vars / sizeof *vars; i++) {
        const char *v = getenv(vars[i]);
        if (v && atoi(v) > 1)
            return atoi(v);
    }
    return 1;
}

#ifndef MRING_HAVE_MPI
/* Built without MPI: one process; started by an MPI launcher with others, an error (each would tune
 * every size and print it). */
int mring_tune_mpi_start(int *rank, int *nprocs)
{
    *rank = 0;
    *nprocs = 1;
    return mring_tune_launched_size() > 1 ? -1 : 0;
}

void mring_tune_mpi_end(int nprocs) { (void)nprocs; }

int mring_tune_sweep_mpi(mring_tune_t *t, const int64_t *sizes, int n, int jobs, mring_tune_size_t *res,
                         void (*done)(int i, const mring_tune_size_t *s, void *arg), void *arg, char *err,
                         size_t errlen)
{
    return mring_tune_sweep(t, sizes, n, jobs, res, done, arg, err, errlen);
}
#endif
