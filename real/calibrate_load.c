/* calibrate_load.c - mring-calibrate's measurements under load (calibrate_load.h). */
#include "calibrate_load.h"
#include "wallclock.h"

#include <math.h>
#include <mpi.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define TAG 0x6361     /* "ca" */
#define O_SEND_MESSAGES 64 /* messages per round of o_send */
#define O_RECV_MESSAGES 8  /* messages per round of o_recv */
#define O_BYTES 8          /* their size: eager on every stack */

_Noreturn void calib_die(const char *what)
{
    fprintf(stderr, "mring-calibrate: %s\n", what);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
    exit(1);
}

static void nap(long ns)
{
    struct timespec t = {ns / 1000000000L, ns % 1000000000L};
    nanosleep(&t, NULL);
}

void calib_quiet_barrier(void)
{
    MPI_Request req;
    int done = 0;
    MPI_Ibarrier(MPI_COMM_WORLD, &req);
    for (MPI_Test(&req, &done, MPI_STATUS_IGNORE); !done; MPI_Test(&req, &done, MPI_STATUS_IGNORE))
        nap(50000); /* 50 us */
}

/* Complete n <= 2 requests as mring's executor waits (model/exec/interp.c): MPI_Testall, giving the core away
 * with sched_yield between tests.  A blocking MPI_Recv spins without yielding; with more busy ranks than
 * cores, a rank waiting for a message then holds the core its peer needs to send it, and a step costs a
 * scheduler time slice (ms) instead of the network's time (on the 2x2 testbed the ping-pong medians of
 * small messages were 1 to 4 ms at some sizes, 10 to 15 us at others). */
static void wait_yielding(int n, MPI_Request *req)
{
    MPI_Status st[2]; /* n <= 2; not MPI_STATUSES_IGNORE: GCC 12 takes it for an empty array */
    int done = 0;
    for (MPI_Testall(n, req, &done, st); !done; MPI_Testall(n, req, &done, st))
        sched_yield();
}

/* The partner of i among n (pairs 2k, 2k+1), or -1 for an odd one out. */
static int pair_of(int i, int n) { return i % 2 ? i - 1 : i + 1 < n ? i + 1 : -1; }

int calib_partner(const calib_load_t *lp, int me, int level)
{
    int node = me / lp->R, nodes = lp->P / lp->R, per = lp->rack_nodes ? lp->rack_nodes : nodes, q, j;
    if (level == CALIB_INTRA) /* ranks of a node */
        q = (j = pair_of(me % lp->R, lp->R)) < 0 ? -1 : me - me % lp->R + j;
    else if (level == CALIB_INTER) /* nodes of a rack */
        q = (j = pair_of(node % per, per)) < 0 ? -1 : me + (j - node % per) * lp->R;
    else /* racks */
        q = (j = pair_of(node / per, nodes / per)) < 0 ? -1 : me + (j - node / per) * per * lp->R;
    if (lp->one_pair && me != 0 && q != 0)
        return -1;
    return q;
}

/* The median over the pairs of each pair's value v (on the lower rank of a pair; others give a negative
 * value): gathered on rank 0. */
static double across_pairs(const calib_load_t *lp, double v)
{
    double *all = malloc((size_t)lp->P * sizeof *all), med = 0;
    int me, n = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    if (!all)
        calib_die("out of memory (gathering the pairs)");
    MPI_Gather(&v, 1, MPI_DOUBLE, all, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    for (int i = 0; me == 0 && i < lp->P; i++)
        if (all[i] >= 0)
            all[n++] = all[i];
    if (me == 0 && n > 0)
        med = calib_median(all, n);
    free(all);
    return med;
}

/* The time of one step with partner q, on the lower rank of the pair (-1 elsewhere): the median of lp->iters
 * after lp->warmup (*fastest: the least).  Every pair at once.  CALIB_PINGPONG: half a round trip, the wire
 * idle between messages; CALIB_EXCHANGE: both send `bytes` to each other at once, step
 * after step with no pause, as a ring's steps load a link: buffers and shapers on the path never drain. */
static double step_time(const calib_load_t *lp, int me, int q, char *buf, int64_t bytes, double *t, double *fastest)
{
    int n = (int)bytes;
    char *in = buf + lp->maxb;
    calib_quiet_barrier();
    for (int i = -lp->warmup; i < lp->iters && q >= 0; i++) {
        double t0 = MPI_Wtime();
        MPI_Request req[2];
        if (lp->pattern == CALIB_EXCHANGE) {
            MPI_Irecv(in, n, MPI_BYTE, q, TAG, MPI_COMM_WORLD, &req[0]);
            MPI_Isend(buf, n, MPI_BYTE, q, TAG, MPI_COMM_WORLD, &req[1]);
            wait_yielding(2, req);
        } else {
            for (int turn = 0; turn < 2; turn++) { /* the lower rank sends first */
                if ((me < q) == (turn == 0))
                    MPI_Isend(buf, n, MPI_BYTE, q, TAG, MPI_COMM_WORLD, &req[0]);
                else
                    MPI_Irecv(buf, n, MPI_BYTE, q, TAG, MPI_COMM_WORLD, &req[0]);
                wait_yielding(1, req);
            }
        }
        if (i >= 0 && me < q)
            t[i] = (MPI_Wtime() - t0) / (lp->pattern == CALIB_EXCHANGE ? 1 : 2);
    }
    calib_quiet_barrier();
    if (q < 0 || me > q)
        return *fastest = -1;
    double med = calib_median(t, lp->iters); /* sorts t */
    *fastest = t[0];
    return med;
}

/* Every rank's v reduced by op (MPI_MAX, MPI_MIN) on rank 0, waiting asleep as calib_quiet_barrier does: a
 * rank done with its part leaves the cores to those still at work. */
static double quiet_reduce(double v, MPI_Op op)
{
    MPI_Request req;
    double r = 0;
    int done = 0;
    MPI_Ireduce(&v, &r, 1, MPI_DOUBLE, op, 0, MPI_COMM_WORLD, &req);
    for (MPI_Test(&req, &done, MPI_STATUS_IGNORE); !done; MPI_Test(&req, &done, MPI_STATUS_IGNORE))
        nap(50000); /* 50 us */
    return r;
}

/* One bulk step per iteration of every pair at once (calib_measure_bulk), m bytes from the lower rank of each
 * pair to the higher.  The point (rank 0): the median over lp->iters of the slowest receiver's time from its
 * barrier exit to its message's arrival, min the fastest of those iterations. */
static point_t bulk_step(const calib_load_t *lp, int me, int q, char *buf, int64_t m)
{
    double *t = malloc((size_t)lp->iters * sizeof *t);
    if (!t)
        calib_die("out of memory (step times)");
    for (int i = -lp->warmup; i < lp->iters; i++) {
        MPI_Request req;
        double mine = 0;
        calib_quiet_barrier();
        double t0 = MPI_Wtime();
        if (q >= 0) {
            if (me < q)
                MPI_Isend(buf, (int)m, MPI_BYTE, q, TAG, MPI_COMM_WORLD, &req);
            else
                MPI_Irecv(buf + lp->maxb, (int)m, MPI_BYTE, q, TAG, MPI_COMM_WORLD, &req);
            wait_yielding(1, &req);
            if (me > q)
                mine = MPI_Wtime() - t0;
        }
        double slowest = quiet_reduce(mine, MPI_MAX);
        if (i >= 0)
            t[i] = slowest;
    }
    point_t p = {.bytes = (double)m};
    if (me == 0) {
        p.time = calib_median(t, lp->iters); /* sorts t */
        p.min = t[0];
    }
    free(t);
    return p;
}

/* Steps back to back from a common barrier, every rank at once: each sends m bytes to `right` and receives m
 * bytes from `left` (-1: this rank sits out), lp->iters steps after lp->warmup.  The point (rank 0): the slowest
 * rank's mean time per step, min the fastest's; a start out of step with the others costs a step 1 / iters of
 * it, where a step timed alone from a barrier takes it all. */
static point_t steps_back_to_back(const calib_load_t *lp, int right, int left, char *buf, int64_t m)
{
    double t0 = 0, step, slowest;
    calib_quiet_barrier();
    for (int i = -lp->warmup; i < lp->iters && right >= 0; i++) {
        MPI_Request req[2];
        if (i == 0)
            t0 = MPI_Wtime();
        MPI_Irecv(buf + lp->maxb, (int)m, MPI_BYTE, left, TAG, MPI_COMM_WORLD, &req[0]);
        MPI_Isend(buf, (int)m, MPI_BYTE, right, TAG, MPI_COMM_WORLD, &req[1]);
        wait_yielding(2, req);
    }
    step = right >= 0 ? (MPI_Wtime() - t0) / lp->iters : 0;
    slowest = quiet_reduce(step, MPI_MAX); /* the two collectives in one order on every rank */
    return (point_t){.bytes = (double)m, .time = slowest, .min = quiet_reduce(right >= 0 ? step : INFINITY, MPI_MIN)};
}

/* The group whose shared link a level's bulk test loads: the rank's own port (CALIB_INTRA), the sender's node
 * (CALIB_INTER) or rack (CALIB_RACK). */
static int group_of(const calib_load_t *lp, int me, int level)
{
    int node = me / lp->R;
    if (level == CALIB_INTRA)
        return me;
    return level == CALIB_RACK ? node / (lp->rack_nodes ? lp->rack_nodes : lp->P / lp->R) : node;
}

/* Stamp p with when this rank measured it: from (mring_wall_s() before its barrier) to now (calib_mark_stopped). */
static void stamp(point_t *p, double from)
{
    p->from_s = from;
    p->to_s = mring_wall_s();
}

void calib_measure_bulk(const calib_load_t *lp, int me, int level, level_t *pass, int *flows)
{
    char *buf = calloc(2, (size_t)lp->maxb);
    int q = calib_partner(lp, me, level), mine = q >= 0 && me < q && group_of(lp, me, level) == group_of(lp, 0, level);
    if (!buf)
        calib_die("out of memory (message buffer)");
    *flows = 0;
    MPI_Reduce(&mine, flows, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    for (int k = 0; k < lp->passes; k++) {
        level_t *l = &pass[k];
        *l = (level_t){.a = 0, .b = calib_partner(lp, 0, level), .pairs = *flows};
        for (int64_t m = lp->maxb / 8 > lp->minb ? lp->maxb / 8 : lp->minb; m <= lp->maxb && l->n < MAX_POINTS;
             m *= 2, l->n++) {
            double from = mring_wall_s(); /* a port: exchanges, one flow each way */
            l->pt[l->n] = level == CALIB_INTRA ? steps_back_to_back(lp, q, q, buf, m) : bulk_step(lp, me, q, buf, m);
            stamp(&l->pt[l->n], from);
        }
    }
    free(buf);
}

void calib_measure_ring(const calib_load_t *lp, int me, level_t *pass)
{
    char *buf = calloc(2, (size_t)lp->maxb); /* what is sent, then what is received */
    int right = (me + 1) % lp->P, left = (me + lp->P - 1) % lp->P;
    if (!buf)
        calib_die("out of memory (message buffer)");
    for (int k = 0; k < lp->passes; k++) {
        level_t *l = &pass[k];
        *l = (level_t){.a = 0, .b = 1 % lp->P, .pairs = lp->P};
        for (int64_t m = lp->minb; m <= lp->maxb && l->n < MAX_POINTS; m *= 2, l->n++) {
            double from = mring_wall_s();
            l->pt[l->n] = steps_back_to_back(lp, right, left, buf, m);
            stamp(&l->pt[l->n], from);
        }
    }
    free(buf);
}

void calib_measure_level(const calib_load_t *lp, int me, int level, level_t *l)
{
    char *buf = calloc(2, (size_t)lp->maxb); /* what is sent, then what is received */
    double *t = malloc((size_t)lp->iters * sizeof *t);
    char err[256], msg[320];
    int q = calib_partner(lp, me, level), pair = q >= 0 && me < q, npairs = 0;
    if (!buf || !t)
        calib_die("out of memory (message buffer)");
    MPI_Reduce(&pair, &npairs, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    *l = (level_t){.a = 0, .b = calib_partner(lp, 0, level), .pairs = npairs};
    for (int64_t m = lp->minb; m <= lp->maxb && l->n < MAX_POINTS; m *= 2, l->n++) {
        point_t *p = &l->pt[l->n];
        double fastest, mine = step_time(lp, me, q, buf, m, t, &fastest), least = 0;
        MPI_Reduce(fastest >= 0 ? &fastest : &(double){INFINITY}, &least, 1, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
        p->bytes = (double)m;
        p->time = across_pairs(lp, mine);
        p->min = least; /* the fastest step of any pair */
    }
    free(buf);
    free(t);
    if (me == 0 && calib_fit_level(l, err, sizeof err)) {
        snprintf(msg, sizeof msg, "ranks %d and %d: %s", l->a, l->b, err);
        calib_die(msg);
    }
    if (me == 0) {
        snprintf(msg, sizeof msg, "ranks %d and %d: ", l->a, l->b);
        calib_warn_unphysical(l, msg, "noise (a loaded machine?); measure again");
    }
}

/* One round of o: the lower rank q > me sends O_SEND_MESSAGES to receives its partner posted beforehand (the
 * sender's time per MPI_Send: o_send, or the gap when the wire is slower), then O_RECV_MESSAGES that the
 * partner receives after a nap (its time per MPI_Recv of an arrived message: o_recv; few enough to stay
 * within the stack's eager buffering, so the sender never waits for the sleeping receiver). */
static void overhead_round(int me, int q, double *ts, double *tr)
{
    char buf[O_SEND_MESSAGES][O_BYTES] = {{0}};
    MPI_Request req[O_SEND_MESSAGES];
    int sender = me < q;
    for (int k = 0; k < O_SEND_MESSAGES; k++)
        req[k] = MPI_REQUEST_NULL;
    if (!sender)
        for (int k = 0; k < O_SEND_MESSAGES; k++)
            MPI_Irecv(buf[k], O_BYTES, MPI_BYTE, q, TAG, MPI_COMM_WORLD, &req[k]);
    calib_quiet_barrier();
    if (sender) {
        double t0 = MPI_Wtime();
        for (int k = 0; k < O_SEND_MESSAGES; k++)
            MPI_Send(buf[k], O_BYTES, MPI_BYTE, q, TAG, MPI_COMM_WORLD);
        *ts = (MPI_Wtime() - t0) / O_SEND_MESSAGES;
        for (int k = 0; k < O_RECV_MESSAGES; k++)
            MPI_Send(buf[k], O_BYTES, MPI_BYTE, q, TAG + 1, MPI_COMM_WORLD);
    } else {
        MPI_Status st[O_SEND_MESSAGES]; /* not MPI_STATUSES_IGNORE: GCC 12 takes it for an empty array */
        MPI_Waitall(O_SEND_MESSAGES, req, st);
        nap(20000000); /* 20 ms: the next messages have all arrived */
        double t0 = MPI_Wtime();
        for (int k = 0; k < O_RECV_MESSAGES; k++)
            MPI_Recv(buf[k], O_BYTES, MPI_BYTE, q, TAG + 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        *tr = (MPI_Wtime() - t0) / O_RECV_MESSAGES;
    }
}

void calib_measure_overhead(const calib_load_t *lp, int me, double *o_send, double *o_recv)
{
    int q = calib_partner(lp, me, CALIB_INTER), rounds = lp->iters;
    double *ts = malloc((size_t)rounds * sizeof *ts), *tr = malloc((size_t)rounds * sizeof *tr), sent = -1, recvd = -1;
    if (!ts || !tr)
        calib_die("out of memory (o rounds)");
    for (int i = 0; i < rounds; i++) {
        if (q >= 0)
            overhead_round(me, q, &ts[i], &tr[i]);
        else
            calib_quiet_barrier(); /* the round's barrier */
    }
    calib_quiet_barrier();
    if (q >= 0 && me < q)
        sent = calib_median(ts, rounds);
    if (q >= 0 && me > q)
        recvd = calib_median(tr, rounds);
    free(ts);
    free(tr);
    *o_send = across_pairs(lp, sent);
    *o_recv = across_pairs(lp, recvd);
}
