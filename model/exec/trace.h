/*
 * trace.h - timelines of allreduce calls: which op of which rank ran when.
 *
 * The same Chrome/Perfetto trace-event JSON comes from `mring simulate --trace` (simulated times) and
 * `mring-bench --trace` (measured times), so a prediction and a measurement can be laid side by side op
 * by op.  A tracing transport records the measured times: it wraps any transport of the interpreter
 * (interp.h) and notes when each op was posted and when the interpreter saw it complete.
 */
#ifndef MRING_TRACE_H
#define MRING_TRACE_H

#include "interp.h"
#include "schedule.h"

#include <stddef.h>
#include <stdint.h>

/* One traced op: rank, stream, the op (in its rank's schedule), start and end in seconds from the start
 * of the call. */
typedef struct mring_trace_event {
    int rank, stream;
    const mring_op_t *op;
    double start, end;
} mring_trace_event_t;

/*
 * Write events[0..n-1] of a call on nranks ranks (scheds[r]: rank r's schedule, for the names of its
 * streams; NULL: no stream names) as trace-event JSON to path: one process per rank, one thread per
 * ring, one async slice per op named as "ring J RS d2 s0 SEND to 3".  The file is written whole or not at
 * all (a temporary file, then rename).  Returns 0, or -1 with err (no memory, cannot write).
 */
int mring_trace_write(const mring_trace_event_t *events, int64_t n, const mring_rank_sched_t *scheds, int nranks,
                      const char *path, char *err, size_t errlen);

/* The tracing transport's state: the inner transport, the clock and the ops recorded so far. */
typedef struct mring_tracer {
    mring_transport_t tp;        /* the tracing transport: hand this to the interpreter */
    const mring_transport_t *in; /* the transport it forwards to */
    double (*now)(void);         /* the clock, in seconds */
    double t0;                   /* now() when the tracer was set up: event times are relative to it */
    int rank;
    mring_trace_event_t *events;
    int64_t nevents, cap;
    int oom; /* an event could not be stored: the trace is incomplete */
} mring_tracer_t;

/* Set up tr to forward to `in` for rank `rank`, timing with now() (seconds) from this moment on. */
void mring_tracer_init(mring_tracer_t *tr, const mring_transport_t *in, int rank, double (*now)(void));

/* Release tr's events. */
void mring_tracer_free(mring_tracer_t *tr);

#endif
