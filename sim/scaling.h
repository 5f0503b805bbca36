/*
 * scaling.h - the training-step model of `mring scaling`: one data-parallel iteration on N GPUs.
 *
 * Timeline of one iteration on every GPU (all GPUs are alike; time 0 = start of backward):
 *   forward (F seconds, no communication), then backward (B seconds), which releases the gradients
 *   layer by layer (workload.h); a bucket's allreduce starts when its last gradient is ready
 *   (overlap on) or when backward ends (overlap off).  All buckets' allreduces are simulated in ONE
 *   SimGrid run, so buckets in flight share links and hosts.  The iteration ends when backward and
 *   every allreduce have ended:  iteration = F + max(B, E),  E = the last allreduce's end.
 *   exposed communication = iteration - (F + B) = max(0, E - B);
 *   communication time = the time at least one allreduce is in flight (union of their intervals);
 *   images/s = N * batch / iteration;  scaling efficiency = (images/s / N) over the same figure on
 *   one node (= iteration on one node / iteration on N GPUs, the batch per GPU being the same).
 * Not modelled (stated in the output): the optimizer step, data loading, and compute slowed by the
 * reductions sharing the GPU (reductions run on the rank's host speed, compute is not simulated as load).
 */
#ifndef MRING_SCALING_H
#define MRING_SCALING_H

#include "sim.h"
#include "tuning.h"
#include "workload.h"

typedef struct mring_step {
    int gpus, nbuckets;
    char topo[64];                     /* the grid of the allreduces ("-" on one GPU) */
    double forward_s, backward_s;      /* compute per iteration */
    double comm_s;                     /* time with at least one allreduce in flight */
    double exposed_s;                  /* communication not hidden behind backward */
    double iter_s, images_per_s;
    double efficiency;                 /* against one node; set by mring_scaling_efficiency */
    int tuned;                         /* buckets whose configuration came from the tuning file */
} mring_step_t;

typedef struct mring_scaling_opts {
    const mring_workload_t *w;
    int batch;                 /* images per GPU */
    int64_t bucket_bytes;      /* bucket cap; 0 = one fused allreduce */
    int overlap;               /* allreduce during backward */
    int inflight;              /* allreduces in flight per GPU: 1 = in order on one stream (NCCL), 0 = no limit */
    const mring_config_t *proto; /* algo, rings, dim_algo, segment; topo = the full platform's grid */
    size_t elsize;               /* bytes per gradient element */
    const mring_tuning_t *tuning; /* or NULL: per bucket size, where its rank count matches */
} mring_scaling_opts_t;

/*
 * Simulate one iteration on the platform's first `gpus` ranks (grid: the prefix of proto->topo,
 * mring_topo_prefix).  Fills out (efficiency 0).  Returns 0; 2 with err for a bad request (gpus
 * cutting a node, a configuration the algorithm refuses at that size); 1 when a simulation ends
 * with ops pending; -1 when memory runs out.
 */
int mring_scaling_step(const mring_platform_t *pf, const mring_scaling_opts_t *o, int gpus, mring_step_t *out,
                       char *err, size_t errlen);

/* Scaling efficiency of every step against the one-node step `base`: base->iter_s / step->iter_s. */
void mring_scaling_efficiency(mring_step_t *steps, int n, const mring_step_t *base);

/*
 * Steps of every GPU count gpus[0..n-1] (into steps[i]) with their efficiency against *base: the
 * one-node (`node` GPUs) step of o's configuration when base->gpus == 0 (then filled in, from the
 * sweep when it has that count), else the given step (one baseline for several lines of a plot).
 * Returns 0, or the failing step's code (mring_scaling_step) with err naming its GPU count.
 */
int mring_scaling_sweep(const mring_platform_t *pf, const mring_scaling_opts_t *o, const int *gpus, int n, int node,
                        mring_step_t *base, mring_step_t *steps, char *err, size_t errlen);

#endif
