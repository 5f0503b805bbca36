/*
 * sim_stream.h - inside the SimGrid back end (sim_run.c, sim_stream.c): one actor per rank stream
 * running its schedule through the interpreter over SimGrid mailboxes and executions.
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
    req_t *sendq;  /* its sends not yet finished, in issue order (see t_comm) */
    int id, rank, stream; /* id: the collective's index in the run */
    mring_rank_sched_t view; /* the rank's schedule restricted to this stream */
    mring_interp_t it;
    int started, done, failed;
    double end;
    sg_actor_t actor; /* referenced until the run ends (joined by a launcher) */
} stream_ctx_t;

struct run {
    int inplace, trace;
    double t0;
    double o; /* the software profile's o: seconds of the rank's host per message at each end */
    mring_sim_result_t *res;
    int64_t capevents;
    int oom;
};

/* The actor of a rank stream: its data is its stream_ctx_t; sets done and end, or failed. */
void mring_sim_stream_main(int argc, char **argv);

/* One line naming up to 3 streams that did not finish and their pending ops. */
void mring_sim_describe_pending(stream_ctx_t *ctxs, int n, char *err, size_t errlen);

#endif
