/* sim_run.c - one simulated allreduce, or several in flight at once (see sim.h): schedules, when each
 * rank stream starts, results. */
#include "sim_stream.h"

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

/* Where each rank stands in a run of several collectives: like a GPU stream, a rank issues its part of
 * collective b at b's start time and (inflight > 0) only once its part of collective b - inflight has
 * ended.  The streams of a collective's rank start together. */
typedef struct launch {
    const coll_t *colls;
    stream_ctx_t *ctxs;
    const int *first; /* first[b]: index of collective b's first context; first[n] = their number */
    int n, inflight, P;
    double t0;
    int *next; /* next[r]: the next collective rank r issues */
    int failed;
} launch_t;

/* Whether rank r's part of collective p has ended (or r has none). */
static int part_ended(const launch_t *l, int p, int r)
{
    int S = mring_config_nstreams(l->colls[p].c);
    for (int j = 0; r < l->colls[p].c->topo.nranks && j < S; j++)
        if (!l->ctxs[l->first[p] + r * S + j].done)
            return 0;
    return 1;
}

/* Issue what rank r may issue now. */
static void try_launch(launch_t *l, int r)
{
    for (int b; (b = l->next[r]) < l->n; l->next[r]++) {
        const mring_config_t *c = l->colls[b].c;
        int S = mring_config_nstreams(c);
        if (r >= c->topo.nranks)
            continue;
        if (l->t0 + l->colls[b].start > simgrid_get_clock() ||
            (l->inflight > 0 && b >= l->inflight && !part_ended(l, b - l->inflight, r)))
            return;
        for (int j = 0; j < S; j++)
            if (mring_sim_stream_start(&l->ctxs[l->first[b] + r * S + j]))
                l->failed = 1;
    }
}

static void on_stream_done(stream_ctx_t *s)
{
    try_launch(s->run->launch, s->rank);
}

/* A later start time has come: the ranks issue what they may. */
static void on_start_time(void *arg)
{
    launch_t *l = arg;
    for (int r = 0; r < l->P; r++)
        try_launch(l, r);
}

/* Start the run: every stream at once for one collective starting at 0, else each rank as far as it may
 * and a timer for the later start times.  Returns 0 or -1 (no memory). */
static int start(run_t *run, launch_t *l)
{
    if (l->n == 1 && l->colls[0].start <= 0) {
        for (int i = 0; i < l->first[1]; i++)
            if (mring_sim_stream_start(&l->ctxs[i]))
                return -1;
        return 0;
    }
    for (int b = 0; b < l->n; b++)
        l->P = l->colls[b].c->topo.nranks > l->P ? l->colls[b].c->topo.nranks : l->P;
    if (!(l->next = calloc((size_t)l->P, sizeof *l->next)))
        return -1;
    run->on_done = on_stream_done;
    run->launch = l;
    for (int r = 0; r < l->P; r++)
        try_launch(l, r);
    for (int b = 0; b < l->n; b++)
        if (l->colls[b].start > 0 && (b == 0 || l->colls[b].start != l->colls[b - 1].start))
            mring_sim_at(l->t0 + l->colls[b].start, on_start_time, l);
    return l->failed ? -1 : 0;
}

/* One line naming up to 3 streams that did not finish and their pending ops. */
static void describe_pending(stream_ctx_t *ctxs, int n, char *err, size_t errlen)
{
    size_t used = (size_t)snprintf(err, errlen, "the simulation ended with operations pending: ");
    int shown = 0;
    for (int i = 0; i < n && used < errlen; i++) {
        char d[512];
        if (ctxs[i].done)
            continue;
        if (shown == 3) {
            snprintf(err + used, errlen - used, "; ...");
            break;
        }
        if (ctxs[i].started) {
            mring_interp_describe(&ctxs[i].it, d, sizeof d, 1);
            d[sizeof d - 1] = '\0';
        } else {
            snprintf(d, sizeof d, "rank %d stream %d did not start", ctxs[i].rank, ctxs[i].stream);
        }
        used += (size_t)snprintf(err + used, errlen - used, "%s%s", shown++ ? "; " : "", d);
    }
}

/* Run the n collectives to the end (at most inflight at once per rank, 0 = no limit): ends[i] = when
 * collective i's last op finished (seconds after the start).  Returns 0, 1 with the pending ops in
 * err, or -1 (no memory: err says so). */
static int run_colls(const mring_platform_t *pf, run_t *run, const coll_t *colls, int n, int inflight, double *ends,
                     char *err, size_t errlen)
{
    int64_t total = 0;
    int nctx = 0, rc = 0, *first = calloc((size_t)n + 1, sizeof *first);
    for (int i = 0; i < n; i++)
        total += (int64_t)colls[i].c->topo.nranks * mring_config_nstreams(colls[i].c);
    stream_ctx_t *ctxs = calloc((size_t)total, sizeof *ctxs);
    launch_t l = {colls, ctxs, first, n, inflight, 0, run->t0, NULL, 0};
    run->hosts = pf->hosts;
    for (int i = 0; ctxs && first && i < n; i++) {
        first[i] = nctx;
        if (prepare(run, &colls[i], i, ctxs, &nctx))
            goto oom;
    }
    if (!ctxs || !first)
        goto oom;
    first[n] = nctx;
    if (start(run, &l))
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
        describe_pending(ctxs, nctx, err, errlen);
    if (run->oom) {
        snprintf(err, errlen, "out of memory recording the trace");
        rc = -1;
    }
    for (int i = 0; i < nctx; i++)
        if (ctxs[i].started)
            mring_interp_free(&ctxs[i].it);
    mring_sim_stream_cleanup();
    free(ctxs);
    free(first);
    free(l.next);
    return rc;
oom:
    mring_sim_stream_cleanup(); /* activities already started never run: no engine run after a failure */
    free(ctxs);
    free(first);
    free(l.next);
    snprintf(err, errlen, "out of memory");
    return -1;
}

int mring_simulate(const mring_platform_t *pf, const mring_config_t *c, mring_call_t k, int inplace, int trace,
                   mring_sim_result_t *res, char *err, size_t errlen)
{
    run_t run = {inplace, trace, simgrid_get_clock(), pf->sw.o, pf->sw.conn_pair, res, 0, 0, NULL, NULL, NULL};
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
    run_t run = {inplace, 0, simgrid_get_clock(), pf->sw.o, pf->sw.conn_pair, NULL, 0, 0, NULL, NULL, NULL};
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
