/*
 * interp.h - the schedule interpreter: runs one rank's schedule over a transport.
 *
 * The interpreter knows no algorithm and no back end.  It issues each stream's
 * ops in order, holding an op back while an earlier op of its stream that
 * conflicts with it (schedule.h) is still in flight, and progresses all streams
 * of the rank concurrently.  Back ends (SimGrid, MPI, in-process) implement the
 * transport table; for in-place calls (IN aliases OUT) the interpreter skips the
 * IN->OUT prologue copies itself.
 */
#ifndef MRING_INTERP_H
#define MRING_INTERP_H

#include "schedule.h"

#include <stddef.h>

/* The transport table.  Every post function starts op (of the given stream) and
 * sets *req to a handle while the op is in progress, or to NULL when it has
 * completed already.  They return 0, or nonzero on failure (the run stops). */
typedef struct mring_transport {
    void *ctx;
    int (*isend)(void *ctx, int stream, const mring_op_t *op, void **req);
    int (*irecv)(void *ctx, int stream, const mring_op_t *op, void **req);
    int (*reduce)(void *ctx, int stream, const mring_op_t *op, void **req);
    int (*copy)(void *ctx, int stream, const mring_op_t *op, void **req);
    /* *done = 1 once req has completed; the back end then releases it.  Returns 0 or nonzero on failure. */
    int (*test)(void *ctx, void *req, int *done);
    /* Optional: block until one of reqs[0..n-1] may have completed.  NULL: the interpreter yields the CPU. */
    int (*wait_any)(void *ctx, void **reqs, int n);
    /* Optional: nonzero while the back end holds the rank busy (an event-driven back end paying a CPU cost
     * where a thread or actor would block in the call): progress then issues and reaps nothing more and
     * returns; the back end calls it again once the rank is free. */
    int (*busy)(void *ctx);
} mring_transport_t;

typedef struct mring_flight {
    int64_t op;
    void *req;
} mring_flight_t;

typedef struct mring_interp_stream {
    int64_t next;           /* next op to issue */
    mring_flight_t *flight; /* issued, not completed */
    int64_t nflight, capflight;
    int issuing; /* the rank became busy (transport busy()) in the op just issued: the next progress goes on
                    issuing before it reaps, as a blocking call returns into the issue loop */
} mring_interp_stream_t;

typedef struct mring_interp {
    const mring_rank_sched_t *rs;
    const mring_transport_t *tp;
    int inplace;
    mring_interp_stream_t *st;
    int64_t remaining; /* ops not completed */
    int failed;        /* a transport call failed */
    void **waitbuf;    /* scratch for wait_any */
    int64_t capwait;
} mring_interp_t;

enum { MRING_INTERP_IDLE = 0, MRING_INTERP_PROGRESS = 1, MRING_INTERP_DONE = 2, MRING_INTERP_ERROR = -1 };

/* Prepare to run rs over tp (inplace != 0: IN aliases OUT). Returns 0 or -1 (no memory). */
int mring_interp_init(mring_interp_t *it, const mring_rank_sched_t *rs, const mring_transport_t *tp, int inplace);
void mring_interp_free(mring_interp_t *it);

/* Complete what has completed and issue what can be issued, without blocking.
 * Returns MRING_INTERP_DONE when every op has completed, PROGRESS when something
 * moved, IDLE when nothing could, ERROR when a transport call failed. */
int mring_interp_progress(mring_interp_t *it);

/* Run to completion: progress, and when idle wait (wait_any) or yield.
 * timeout_s > 0 bounds the wall-clock time.  Returns 0, MRING_INTERP_ERROR, or
 * 1 on timeout (mring_interp_describe tells which ops are stuck). */
int mring_interp_run(mring_interp_t *it, double timeout_s);

/* Describe the ops in flight or blocked, one "rank R stream S op K (in flight|not issued): ..."
 * entry per stream (at most `max` entries), into buf. */
void mring_interp_describe(const mring_interp_t *it, char *buf, size_t len, int max);

#endif
