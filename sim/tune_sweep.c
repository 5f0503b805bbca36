/* tune_sweep.c - many sizes tuned at once in worker processes (see tune.h). */
#include "tune.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/* Fork a worker that tunes sizes k, k + jobs, ... (its own copy of the loaded SimGrid platform) and
 * writes one record per size to the returned pipe.  Sizes are independent simulations: the workers
 * use the machine's cores. */
static int spawn_worker(mring_tune_t *t, const int64_t *sizes, int n, int k, int jobs)
{
    int fd[2];
    if (pipe(fd))
        return -1;
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        close(fd[0]);
        for (int i = k; i < n; i += jobs) {
            static record_t rec;
            memset(&rec, 0, sizeof rec);
            rec.rc = mring_tune_size(t, sizes[i], &rec.res, rec.err, sizeof rec.err);
            for (size_t put = 0; put < sizeof rec;) {
                ssize_t w = write(fd[1], (char *)&rec + put, sizeof rec - put);
                if (w <= 0)
                    _exit(1);
                put += (size_t)w;
            }
            if (rec.rc)
                break;
        }
        _exit(0);
    }
    close(fd[1]);
    return fd[0];
}

int mring_tune_sweep(mring_tune_t *t, const int64_t *sizes, int n, int jobs, mring_tune_size_t *res,
                     void (*done)(int i, const mring_tune_size_t *s, void *arg), void *arg, char *err, size_t errlen)
{
    int fds[64], started = 0, rc = 0;
    jobs = jobs < 1 ? 1 : jobs > n ? n : jobs > 64 ? 64 : jobs;
    for (; started < jobs; started++)
        if ((fds[started] = spawn_worker(t, sizes, n, started, jobs)) < 0) {
            snprintf(err, errlen, "cannot start tuning worker %d", started);
            rc = -1;
            break;
        }
    for (int i = 0; rc == 0 && i < n; i++) { /* worker i % jobs sends its sizes in order */
        static record_t rec;
        if (read_full(fds[i % jobs], &rec, sizeof rec)) {
            snprintf(err, errlen, "tuning worker %d stopped before %lld bytes", i % jobs, (long long)sizes[i]);
            rc = -1;
        } else if (rec.rc) {
            snprintf(err, errlen, "tuning %lld bytes: %s", (long long)sizes[i], rec.err);
            rc = rec.rc;
        } else {
            res[i] = rec.res;
            if (done)
                done(i, &res[i], arg);
        }
    }
    for (int k = 0; k < started; k++) {
        close(fds[k]);
        wait(NULL);
    }
    return rc;
}
