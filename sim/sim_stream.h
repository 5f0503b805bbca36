/*
 * sim_stream.h - inside the SimGrid back end (sim_run.c, sim_stream.cpp): every rank stream runs its
 * schedule through the interpreter over SimGrid activities started from the engine itself, with no
 * actor: host-to-host communications (Comm::sendto) matched in order per channel, executions for the
 * reductions and for LogGP's o, and the completion of each activity driving the streams it concerns.
 */
#ifndef MRING_SIM_STREAM_H
#define MRING_SIM_STREAM_H

#include "interp.h"
#include "sim.h"

#include <simgrid/forward.h>

typedef struct run run_t;

/* One allreduce of a run: its configuration, start time and rank schedules. */
typedef struct coll {
    const mring_config_t *c;
    mring_call_t k;
    double start;               /* seconds after the run's start */
    mring_rank_sched_t *scheds; /* c->topo.nranks */
} coll_t;

typedef struct req req_t;

typedef struct stream_ctx {
    run_t *run;
    const coll_t *coll;
    int id, rank, stream; /* id: the collective's index in the run */
    mring_rank_sched_t view; /* the rank's schedule restricted to this stream */
    mring_transport_t tp;    /* the interpreter keeps a pointer to it */
    mring_interp_t it;
    int started, done, failed;
    int busy;  /* paying o or reducing: an execution of its host is running, nothing else moves */
    int dirty; /* an activity of it completed: it moves once every completion of this instant is in */
    double end;
} stream_ctx_t;

struct run {
    int inplace, trace;
    double t0;
    double o; /* the software profile's o: seconds of the rank's host per message at each end */
    int conn_pair; /* the profile's conn=pair: one connection per pair of ranks (sim_stream.cpp) */
    mring_sim_result_t *res;
    int64_t capevents;
    int oom;
    sg_host_t *hosts;                    /* rank -> host */
    void (*on_done)(stream_ctx_t *done); /* NULL, or called when a stream has finished */
    void *launch;                        /* on_done's data */
};

/* Start a rank stream's schedule: its first ops are posted now (from the engine); the
 * completions of its activities carry it on while simgrid_run() runs.  Sets done and end, or failed.
 * Returns 0 or -1 (no memory). */
int mring_sim_stream_start(stream_ctx_t *s);

/* Call fn(arg) from the engine when the simulated clock reaches date (seconds; SimGrid's kernel timer:
 * no actor). */
void mring_sim_at(double date, void (*fn)(void *arg), void *arg);

/* After simgrid_run(): release what the run's activities left (mring_sim_stream_start's matching tables,
 * the completed activities). */
void mring_sim_stream_cleanup(void);

#endif
