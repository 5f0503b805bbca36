/* sim_run.c - one simulated allreduce, or several in flight at once (see sim.h): schedules, actors,
 * launchers, results. */
#include "sim_stream.h"

#include <simgrid/actor.h>
#include <simgrid/engine.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void mring_sim_result_free(mring_sim_result_t *res)
{
    if (res->scheds)
        for (int r = 0; r < res->nranks; r++)
            mring_rank_sched_free(&res->scheds[r]);
    free(res->scheds);
    free(res->events);
    memset(res, 0, sizeof *res);
}

/* Generate the schedules of collective id and set up a context per rank stream (ctxs grows by their
 * number, rank by rank).  Returns 0 or -1 (no memory). */
static int prepare(run_t *run, const coll_t *coll, int id, stream_ctx_t *ctxs, int *nctx)
{
    for (int r = 0; r < coll->c->topo.nranks; r++) {
        if (mring_generate(coll->c, coll->k, r, &coll->scheds[r]))
            return -1;
        for (int j = 0; j < coll->scheds[r].nstreams; j++) {
            stream_ctx_t *s = &ctxs[(*nctx)++];
            *s = (stream_ctx_t){.run = run, .coll = coll, .id = id, .rank = r, .stream = j, .view = coll->scheds[r]};
            s->view.nstreams = 1;
            s->view.streams = &coll->scheds[r].streams[j];
        }
    }
    return 0;
}

static void start_stream(const mring_platform_t *pf, stream_ctx_t *s)
{
    char name[64];
    snprintf(name, sizeof name, "rank%d.%d/%d", s->rank, s->stream, s->id);
    s->actor = sg_actor_init(name, pf->hosts[s->rank]);
    sg_actor_ref(s->actor);
    sg_actor_set_data(s->actor, s);
    sg_actor_start(s->actor, mring_sim_stream_main, 0, NULL);
}

/* A rank's launcher: like a GPU stream, it issues the rank's part of collective b at b's start time,
 * and (inflight > 0) only once its part of collective b - inflight has ended. */
typedef struct launch {
    const mring_platform_t *pf;
    const coll_t *colls;
    stream_ctx_t *ctxs;
    const int *first; /* first[b]: index of collective b's first context; first[n] = their number */
    int n, inflight, rank;
    double t0;
} launch_t;

static void launcher_main(int argc, char **argv)
{
    launch_t *l = sg_actor_get_data(sg_actor_self());
    (void)argc, (void)argv;
    for (int b = 0; b < l->n; b++) {
        const mring_config_t *c = l->colls[b].c;
        int S = mring_config_nstreams(c);
        if (l->rank >= c->topo.nranks)
            continue;
        if (l->colls[b].start > 0)
            sg_actor_sleep_until(l->t0 + l->colls[b].start);
        if (l->inflight > 0 && b >= l->inflight) {
            int p = b - l->inflight, Sp = mring_config_nstreams(l->colls[p].c);
            for (int j = 0; l->rank < l->colls[p].c->topo.nranks && j < Sp; j++)
                sg_actor_join(l->ctxs[l->first[p] + l->rank * Sp + j].actor, -1);
        }
        for (int j = 0; j < S; j++)
            start_stream(l->pf, &l->ctxs[l->first[b] + l->rank * S + j]);
    }
}

/* Start the run's actors: every stream at once for one collective starting at 0, else a launcher per
 * rank.  Returns 0 or -1 (no memory). */
static int start(const mring_platform_t *pf, run_t *run, const coll_t *colls, int n, int inflight, stream_ctx_t *ctxs,
                 const int *first, launch_t **launchers)
{
    int P = 0;
    if (n == 1 && colls[0].start <= 0) {
        for (int i = 0; i < first[1]; i++)
            start_stream(pf, &ctxs[i]);
        return 0;
    }
    for (int b = 0; b < n; b++)
        P = colls[b].c->topo.nranks > P ? colls[b].c->topo.nranks : P;
    if (!(*launchers = calloc((size_t)P, sizeof **launchers)))
        return -1;
    for (int r = 0; r < P; r++) {
        char name[32];
        (*launchers)[r] = (launch_t){pf, colls, ctxs, first, n, inflight, r, run->t0};
        snprintf(name, sizeof name, "launcher%d", r);
        sg_actor_t a = sg_actor_init(name, pf->hosts[r]);
        sg_actor_set_data(a, &(*launchers)[r]);
        sg_actor_start(a, launcher_main, 0, NULL);
    }
    return 0;
}

/* Run the n collectives to the end (at most inflight at once per rank, 0 = no limit): ends[i] = when
 * collective i's last op finished (seconds after the start).  Returns 0, 1 with the pending ops in
 * err, or -1 (no memory: err says so). */
static int run_colls(const mring_platform_t *pf, run_t *run, const coll_t *colls, int n, int inflight, double *ends,
                     char *err, size_t errlen)
{
    int64_t total = 0;
    int nctx = 0, rc = 0, *first = calloc((size_t)n + 1, sizeof *first);
    launch_t *launchers = NULL;
    for (int i = 0; i < n; i++)
        total += (int64_t)colls[i].c->topo.nranks * mring_config_nstreams(colls[i].c);
    stream_ctx_t *ctxs = calloc((size_t)total, sizeof *ctxs);
    for (int i = 0; ctxs && first && i < n; i++) {
        first[i] = nctx;
        if (prepare(run, &colls[i], i, ctxs, &nctx))
            goto oom;
    }
    if (!ctxs || !first)
        goto oom;
    first[n] = nctx;
    if (start(pf, run, colls, n, inflight, ctxs, first, &launchers))
        goto oom;
    simgrid_run();
    for (int i = 0; i < n; i++)
        ends[i] = 0;
    for (int i = 0; i < nctx; i++) {
        if (!ctxs[i].done)
            rc = 1;
        else if (ctxs[i].end - run->t0 > ends[ctxs[i].id])
            ends[ctxs[i].id] = ctxs[i].end - run->t0;
    }
    if (rc)
        mring_sim_describe_pending(ctxs, nctx, err, errlen);
    if (run->oom) {
        snprintf(err, errlen, "out of memory recording the trace");
        rc = -1;
    }
    for (int i = 0; i < nctx; i++) {
        if (ctxs[i].started)
            mring_interp_free(&ctxs[i].it);
        if (ctxs[i].actor)
            sg_actor_unref(ctxs[i].actor);
    }
    free(ctxs);
    free(first);
    free(launchers);
    return rc;
oom:
    free(ctxs); /* actors already started never run: the engine is not run again after a failure */
    free(first);
    snprintf(err, errlen, "out of memory");
    return -1;
}

int mring_simulate(const mring_platform_t *pf, const mring_config_t *c, mring_call_t k, int inplace, int trace,
                   mring_sim_result_t *res, char *err, size_t errlen)
{
    run_t run = {inplace, trace, simgrid_get_clock(), pf->sw.o, res, 0, 0};
    coll_t coll = {c, k, 0, NULL};
    int rc;
    memset(res, 0, sizeof *res);
    res->nranks = c->topo.nranks;
    if (!(res->scheds = coll.scheds = calloc((size_t)c->topo.nranks, sizeof *res->scheds))) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    rc = run_colls(pf, &run, &coll, 1, 0, &res->time, err, errlen);
    if (rc < 0) {
        mring_sim_result_free(res);
        return rc;
    }
    if (!trace) { /* the schedules are only kept for the trace's events */
        for (int r = 0; r < res->nranks; r++)
            mring_rank_sched_free(&res->scheds[r]);
        free(res->scheds);
        res->scheds = NULL;
    }
    return rc;
}

int mring_simulate_concurrent(const mring_platform_t *pf, mring_sim_coll_t *colls, int n, int inflight, int inplace,
                              char *err, size_t errlen)
{
    run_t run = {inplace, 0, simgrid_get_clock(), pf->sw.o, NULL, 0, 0};
    coll_t *cs = calloc((size_t)n, sizeof *cs);
    double *ends = calloc((size_t)n, sizeof *ends);
    int rc = -1;
    err[0] = '\0';
    for (int i = 0; cs && ends && i < n; i++) {
        cs[i] = (coll_t){colls[i].c, colls[i].k, colls[i].start, calloc((size_t)colls[i].c->topo.nranks, sizeof(mring_rank_sched_t))};
        if (!cs[i].scheds)
            goto out;
    }
    if (cs && ends)
        rc = run_colls(pf, &run, cs, n, inflight, ends, err, errlen);
    for (int i = 0; rc >= 0 && i < n; i++)
        colls[i].end = ends[i];
out:
    if (rc < 0 && !err[0])
        snprintf(err, errlen, "out of memory");
    for (int i = 0; cs && i < n; i++) {
        for (int r = 0; cs[i].scheds && r < colls[i].c->topo.nranks; r++)
            mring_rank_sched_free(&cs[i].scheds[r]);
        free(cs[i].scheds);
    }
    free(cs);
    free(ends);
    return rc;
}
