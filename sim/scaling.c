/* scaling.c - one simulated data-parallel training iteration (see scaling.h). */
#include "scaling.h"

#include <stdio.h>
#include <stdlib.h>

/* The configuration of a bucket's allreduce of `elements` on grid t: the tuning file's entry for its
 * size where the file is for t's rank count, else the prototype on t.  Returns 1 if tuned, 0 if not,
 * -1 with err when the algorithm refuses the configuration. */
static int bucket_config(const mring_scaling_opts_t *o, const mring_topo_t *t, int64_t elements, mring_config_t *c,
                         char *err, size_t errlen)
{
    char why[256];
    int tuned = 0;
    if (o->tuning && mring_tuning_pick(o->tuning, t->nranks, elements * (int64_t)o->elsize, c, why, sizeof why) == 0) {
        tuned = 1;
    } else { /* no entry for this rank count or size: the command line's configuration */
        *c = *o->proto;
        c->topo = *t;
    }
    if (mring_config_check(c, why, sizeof why) || mring_call_check(c, (mring_call_t){elements, o->elsize}, why, sizeof why)) {
        char g[64];
        snprintf(err, errlen, "%s on %s (%d GPUs): %s", mring_algo_name(c->algo), mring_topo_format(t, g, sizeof g),
                 t->nranks, why);
        return -1;
    }
    return tuned;
}

/* Time with at least one of the n intervals [start, end) open; starts are non-decreasing. */
static double busy_time(const mring_sim_coll_t *cs, int n)
{
    double total = 0, lo = 0, hi = -1;
    for (int i = 0; i < n; i++) {
        if (cs[i].start > hi) { /* a gap: close the current run */
            total += hi > lo ? hi - lo : 0;
            lo = cs[i].start;
            hi = cs[i].end;
        } else if (cs[i].end > hi) {
            hi = cs[i].end;
        }
    }
    return total + (hi > lo ? hi - lo : 0);
}

/* SimGrid actors that fit at once: each needs about two memory mappings (its stack and a guard page),
 * and the kernel allows vm.max_map_count per process (65530 by default). */
static long max_actors(void)
{
    long maps = 65530;
    FILE *f = fopen("/proc/sys/vm/max_map_count", "r");
    if (f) {
        if (fscanf(f, "%ld", &maps) != 1)
            maps = 65530;
        fclose(f);
    }
    return maps / 2 - 2000;
}

/* Refuse a run that would need more SimGrid actors at once than fit; warn once about tiny segments. */
static int check_size(const mring_scaling_opts_t *o, const mring_topo_t *t, const mring_config_t *cs,
                      const mring_bucket_t *b, int n, char *err, size_t errlen)
{
    static int warned;
    long alive = 0, flight = o->inflight > 0 && o->inflight < n ? o->inflight : n;
    for (int i = 0; i < n; i++) {
        alive = (long)mring_config_nstreams(&cs[i]) > alive ? mring_config_nstreams(&cs[i]) : alive;
        if (cs[i].segment && !warned && b[i].elements * (int64_t)o->elsize / t->nranks / cs[i].segment > 4096) {
            fprintf(stderr, "mring scaling: --segment %lld cuts each block into thousands of pieces; the simulation "
                    "slows down with the square of that (minutes)\n", (long long)cs[i].segment);
            warned = 1;
        }
    }
    alive = alive * flight * t->nranks + t->nranks; /* streams of the buckets in flight, plus the launchers */
    if (alive > max_actors()) {
        snprintf(err, errlen, "%d buckets in flight on %d GPUs need %ld SimGrid actors at once, more than fit "
                 "(%ld, from vm.max_map_count); raise --bucket or set --inflight lower", (int)flight, t->nranks,
                 alive, max_actors());
        return 2;
    }
    return 0;
}

/* Simulate the buckets' allreduces on grid t; fills the communication figures of s. */
static int simulate_buckets(const mring_platform_t *pf, const mring_scaling_opts_t *o, const mring_topo_t *t,
                            mring_step_t *s, char *err, size_t errlen)
{
    mring_bucket_t *b = NULL;
    int n = mring_workload_buckets(o->w, o->bucket_bytes, o->elsize, &b), rc = -1;
    mring_config_t *cs = n > 0 ? calloc((size_t)n, sizeof *cs) : NULL;
    mring_sim_coll_t *run = n > 0 ? calloc((size_t)n, sizeof *run) : NULL;
    if (!cs || !run) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    s->nbuckets = n;
    for (int i = 0; i < n; i++) {
        int tuned = bucket_config(o, t, b[i].elements, &cs[i], err, errlen);
        if (tuned < 0) {
            rc = 2;
            goto out;
        }
        s->tuned += tuned;
        run[i] = (mring_sim_coll_t){&cs[i], {b[i].elements, o->elsize}, o->overlap ? b[i].ready_frac * s->backward_s : s->backward_s, 0};
    }
    if ((rc = check_size(o, t, cs, b, n, err, errlen)) || (rc = mring_simulate_concurrent(pf, run, n, o->inflight, 1, err, errlen)))
        goto out;
    double last = 0;
    for (int i = 0; i < n; i++)
        last = run[i].end > last ? run[i].end : last;
    s->comm_s = busy_time(run, n);
    s->exposed_s = last > s->backward_s ? last - s->backward_s : 0;
out:
    free(b);
    free(cs);
    free(run);
    return rc;
}

int mring_scaling_step(const mring_platform_t *pf, const mring_scaling_opts_t *o, int gpus, mring_step_t *out,
                       char *err, size_t errlen)
{
    mring_topo_t t;
    int rc = 0;
    *out = (mring_step_t){.gpus = gpus};
    out->forward_s = mring_workload_iter_s(o->w, o->batch) - mring_workload_backward_s(o->w, o->batch);
    out->backward_s = mring_workload_backward_s(o->w, o->batch);
    if (gpus > pf->nranks || mring_topo_prefix(&o->proto->topo, gpus, &t, err, errlen)) {
        if (gpus > pf->nranks)
            snprintf(err, errlen, "%d GPUs: the platform has %d", gpus, pf->nranks);
        return 2;
    }
    if (gpus > 1) { /* one GPU has nothing to exchange */
        mring_topo_format(&t, out->topo, sizeof out->topo);
        rc = simulate_buckets(pf, o, &t, out, err, errlen);
    } else {
        snprintf(out->topo, sizeof out->topo, "-");
    }
    out->iter_s = out->forward_s + out->backward_s + out->exposed_s;
    out->images_per_s = gpus * o->batch / out->iter_s;
    return rc;
}

void mring_scaling_efficiency(mring_step_t *steps, int n, const mring_step_t *base)
{
    for (int i = 0; i < n; i++)
        steps[i].efficiency = base->iter_s / steps[i].iter_s;
}

int mring_scaling_sweep(const mring_platform_t *pf, const mring_scaling_opts_t *o, const int *gpus, int n, int node,
                        mring_step_t *base, mring_step_t *steps, char *err, size_t errlen)
{
    int rc, own = base->gpus == 0;
    for (int i = 0; i < n; i++) {
        if ((rc = mring_scaling_step(pf, o, gpus[i], &steps[i], err, errlen))) {
            char why[1024];
            snprintf(why, sizeof why, "%s", err);
            snprintf(err, errlen, "--gpus %d: %s", gpus[i], why);
            return rc;
        }
        if (own && gpus[i] == node)
            *base = steps[i];
    }
    if (base->gpus == 0 && (rc = mring_scaling_step(pf, o, node, base, err, errlen)))
        return rc;
    mring_scaling_efficiency(steps, n, base);
    return 0;
}
