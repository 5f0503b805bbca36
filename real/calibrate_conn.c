/* calibrate_conn.c - mring-calibrate: do messages to one peer share one ordered connection? (calibrate_load.h) */
#include "calibrate_load.h"

#include <mpi.h>
#include <sched.h>
#include <stdlib.h>

#define TAG_FIRST 0x636f /* "co" */
#define TAG_SECOND (TAG_FIRST + 1)

/* The pair the probe runs on: rank 0 and its partner between nodes, or inside its node on one node; -1 for
 * none (one rank). */
static int probe_partner(const calib_load_t *lp)
{
    int q = lp->P > lp->R ? calib_partner(lp, 0, CALIB_INTER) : -1;
    return q >= 0 ? q : calib_partner(lp, 0, CALIB_INTRA);
}

/* One round on the receiver: both receives posted before the barrier, then the time from the barrier until
 * each completes (polled with sched_yield between tests, as the executor waits). */
static void receive_round(char *buf, int n, double *first, double *second)
{
    MPI_Request req[2];
    int done[2] = {0, 0};
    MPI_Irecv(buf, n, MPI_CHAR, 0, TAG_FIRST, MPI_COMM_WORLD, &req[0]);
    MPI_Irecv(buf + n, n, MPI_CHAR, 0, TAG_SECOND, MPI_COMM_WORLD, &req[1]);
    calib_quiet_barrier();
    double t0 = MPI_Wtime();
    while (!done[0] || !done[1]) {
        for (int k = 0; k < 2; k++)
            if (!done[k]) {
                MPI_Test(&req[k], &done[k], MPI_STATUS_IGNORE);
                if (done[k])
                    *(k ? second : first) = MPI_Wtime() - t0;
            }
        sched_yield();
    }
    if (*second < *first) { /* the one that completed first */
        double t = *first;
        *first = *second, *second = t;
    }
}

void calib_measure_conn(const calib_load_t *lp, int me, int64_t bytes, double *first, double *second)
{
    int q = probe_partner(lp), n = (int)bytes;
    double *tf = malloc((size_t)lp->iters * sizeof *tf), *ts = malloc((size_t)lp->iters * sizeof *ts), res[2] = {0, 0};
    char *buf = me == 0 || me == q ? malloc(2 * (size_t)bytes) : NULL;
    if (!tf || !ts || ((me == 0 || me == q) && !buf))
        calib_die("out of memory (connection probe)");
    for (int i = -lp->warmup; i < lp->iters && q >= 0; i++) {
        double f = 0, s = 0;
        if (me == q) {
            receive_round(buf, n, &f, &s);
        } else if (me == 0) { /* the two messages back to back, once the receives are posted */
            MPI_Request req[2];
            MPI_Status st[2]; /* not MPI_STATUSES_IGNORE: GCC 12 takes it for an empty array */
            calib_quiet_barrier();
            MPI_Isend(buf, n, MPI_CHAR, q, TAG_FIRST, MPI_COMM_WORLD, &req[0]);
            MPI_Isend(buf + n, n, MPI_CHAR, q, TAG_SECOND, MPI_COMM_WORLD, &req[1]);
            MPI_Waitall(2, req, st);
        } else {
            calib_quiet_barrier();
        }
        if (i >= 0)
            tf[i] = f, ts[i] = s;
        calib_quiet_barrier(); /* the next round starts with nothing in flight */
    }
    if (me == q) {
        res[0] = calib_median(tf, lp->iters);
        res[1] = calib_median(ts, lp->iters);
    }
    if (q >= 0)
        MPI_Bcast(res, 2, MPI_DOUBLE, q, MPI_COMM_WORLD);
    *first = res[0];
    *second = res[1];
    free(buf);
    free(tf);
    free(ts);
}
