/*
 * sim.h - the SimGrid back end: run every rank's schedule on a platform with SimGrid activities.
 *
 * Platform convention (platforms/README.md): every host that runs a rank carries the property
 * mring_rank = its rank (0..P-1, each once); the root zone carries mring_topo = the platform's
 * natural topology (e.g. 4x16x4).  A rank host's speed is its reduction throughput, one flop per
 * byte of reduced output (a GPU's memory bandwidth over the 3 bytes a reduction moves per byte).
 * Each stream of each rank runs its schedule through the interpreter with no actor (sim_stream.cpp):
 * SEND and RECV meet in order per channel (collective, sender, receiver, stream: messages of a stream
 * between two ranks match in order, which the verifier checks against the tags) and the transfer is
 * then a Comm::sendto between the two rank hosts; a stream's sends to one peer leave in order, at most
 * 2 on the wire at once, like messages on one connection, so pipelined pieces arrive one after another
 * instead of all at the end; REDUCE/COPY are executions of the bytes on the rank's host (COPY counts
 * 2/3 of a reduction, as in cost.h), during which the stream does nothing else.
 */
#ifndef MRING_SIM_H
#define MRING_SIM_H

#include "algo.h"
#include "cost.h"
#include "schedule.h"
#include "trace.h"

#include <simgrid/forward.h>
#include <stdio.h>

typedef struct mring_platform {
    char file[512];
    mring_topo_t topo;  /* from the root zone's mring_topo */
    int nranks;
    sg_host_t *hosts;   /* rank -> host */
    mring_swprof_t sw;  /* software costs: the root zone's mring_sw, or mring_platform_set_profile's */
} mring_platform_t;

/*
 * Start SimGrid with the alpha-beta network model (CM02, no cross-traffic, the full update of its flows'
 * rates rather than the lazy one, and the fair-bottleneck solver, which shares a saturated link equally
 * among its flows where CM02's max-min weights them by route latency: sim_platform.c says why), then the
 * user's options cfgs[0..ncfgs-1] ("--cfg=name:value", which may override them), load the platform
 * file and read its rank hosts and topology.  Returns 0; 2 with a one-line reason in err for a bad
 * platform (unreadable, malformed, no rank hosts, ranks missing or repeated, no or bad mring_topo);
 * -1 when memory runs out.  Call once per process.
 */
int mring_platform_load(const char *const *cfgs, int ncfgs, const char *file, mring_platform_t *pf, char *err,
                        size_t errlen);

/*
 * What SimGrid would abort on, checked before it reads `file` (sim_platform_check.c): a readable regular
 * file of well-formed XML, every zone's routing known to SimGrid 3.32, no link, host or router id twice.
 * Returns 0, or 2 with one line in err naming the file and the XML line.
 */
int mring_platform_precheck(const char *file, char *err, size_t errlen);

/*
 * Per-dimension alpha-beta figures of the platform for topology t (which must have pf->nranks
 * ranks): dimension i's link is the slowest step among the ranks of its first group of stride
 * D_{i+1} (the least route bandwidth; latency = the largest route latency, a route's latency being
 * the sum of its links'); when more than one rank's step crosses that route's narrowest link, it is
 * a port shared by that many ranks.  So a flat grid on a hierarchy gets its node-crossing hop.
 * gamma_bw is rank 0's host speed.  Fills p.
 */
void mring_platform_params(const mring_platform_t *pf, const mring_topo_t *t, mring_cost_params_t *p);

/*
 * Use software profile sw (swprof.h) on the platform: its latency and bandwidth factors go to
 * SimGrid's network model through its factor callbacks (NetworkModelIntf::set_lat_factor_cb and
 * set_bw_factor_cb, the mechanism behind SMPI's calibration), its o to every message as an execution
 * of o seconds on the rank's host (before a send leaves, after a receive arrives: the streams of a
 * rank share its host, so they share their o).  The cost model reads pf->sw through
 * mring_platform_params.  mring_platform_load applies the platform's own mring_sw property.  Returns 0, or 2
 * with err when SimGrid refuses the factor callbacks (beside --cfg network/bandwidth-factor or latency-factor).
 */
int mring_platform_set_profile(mring_platform_t *pf, const mring_swprof_t *sw, char *err, size_t errlen);

/*
 * `--embed auto` for configuration c on platform pf (sim/embed_search.c): for every dimension whose
 * rings follow two or more cycles (rings >= 3), the cycles through rank 0's group whose routes share
 * the fewest links (exhaustive up to 8 members, greedy beyond), as embed.h's text in text (len
 * bytes; "-" for a natural dimension).  Returns 0, or -1 with err.
 */
int mring_embed_search(const mring_platform_t *pf, const mring_config_t *c, char *text, size_t len, char *err,
                       size_t errlen);


typedef struct mring_sim_result {
    double time; /* seconds from the start of the call to the last op's completion */
    double phase_start[MRING_NPHASES][MRING_MAX_DIMS], phase_end[MRING_NPHASES][MRING_MAX_DIMS];
    int phase_seen[MRING_NPHASES][MRING_MAX_DIMS];
    mring_trace_event_t *events; /* when tracing: every op, times in simulated seconds from the start */
    int64_t nevents;
    mring_rank_sched_t *scheds; /* kept while events point into them */
    int nranks;
} mring_sim_result_t;

/*
 * Simulate call k on configuration c (c->topo has at most pf->nranks ranks; rank r runs on
 * pf->hosts[r], so a smaller grid runs on the platform's first ranks).  trace != 0 records every op.  Returns 0; 1 with err naming the pending ops
 * (rank, stream, op, peer, phase, step) when the simulation ends with operations pending; -1 when
 * memory runs out.  Free res with mring_sim_result_free.
 */
int mring_simulate(const mring_platform_t *pf, const mring_config_t *c, mring_call_t k, int inplace, int trace,
                   mring_sim_result_t *res, char *err, size_t errlen);
void mring_sim_result_free(mring_sim_result_t *res);

/* One allreduce of a concurrent run: its configuration (topo of at most pf->nranks ranks, rank r on
 * pf->hosts[r]) and call, its start in seconds after the run's start, and (out) when its last op
 * ended, in seconds after the run's start. */
typedef struct mring_sim_coll {
    const mring_config_t *c;
    mring_call_t k;
    double start;
    double end;
} mring_sim_coll_t;

/*
 * Simulate n allreduces in one SimGrid run: collective i starts at its start time on every rank, and
 * (inflight > 0) on each rank only once that rank's part of collective i - inflight has ended: one
 * stream per rank issuing collectives in order, as NCCL does (inflight 1) or Gloo with several in
 * flight; inflight 0 = no limit.  Collectives in flight share the platform's links and hosts (each has
 * its own mailboxes, so their messages never match each other's).  Fills colls[i].end.  Returns 0; 1
 * with err naming pending ops; -1 when memory runs out.
 */
int mring_simulate_concurrent(const mring_platform_t *pf, mring_sim_coll_t *colls, int n, int inflight, int inplace,
                              char *err, size_t errlen);

#endif
