/*
 * cost_closed.h - building blocks of the closed forms (internal to model/).
 *
 * A closed form is a sum over an algorithm's steps of the step's cost,
 *   T = T_copy + max over streams j of  sum over steps s of  times_s * max over ranks r of
 *       ( alpha_ld + m * bytes / bw_ld  +  m_g * red / gamma_bw )
 * with ld the link dimension of rank r's flow and m, m_g the sharing counts of
 * cost.h; e.g. for multiring (Cho et al., arXiv 1708.02188) this is
 * sum_i (d_i - 1) * (2 alpha_i + 2 m b_i / bw_i + m_g b_i / gamma_bw).
 */
#ifndef MRING_COST_CLOSED_H
#define MRING_COST_CLOSED_H

#include "algo.h"
#include "cost.h"

/* Evaluate one step: flow f = r*S + j goes from rank r's stream j to to[f] (-1: none),
 * carries bytes[f] and is followed by a reduction of red[f] bytes.  tmax[j] gets the
 * largest flow time of stream j over ranks; link[j] the largest time a flow of stream j holds its
 * link (its bytes at the shared bandwidth, or its whole time / MRING_SEND_WINDOW where that is more:
 * messages in flight together overlap their latencies); cpu[j] the largest time a rank spends on the
 * step (its o and its reduction).  Returns 0 or -1 (no memory). */
int mring_cost_step(const mring_config_t *c, const mring_cost_params_t *p, int S, const int *to,
                    const double *bytes, const double *red, double *tmax, double *link, double *cpu);

/* Accumulator of steps per stream: total (time), link and cpu (the occupancy sums of
 * mring_cost_step's link and cpu: what a pipeline of chunks cannot overlap on one resource). */
typedef struct mring_flows {
    int S;
    int *to;
    double *bytes, *red, *tmax, *total;
    double *lmax, *cmax, *link, *cpu;
} mring_flows_t;

int mring_cost_flows_init(mring_flows_t *f, const mring_config_t *c, int S);
/* Reset the flows of the current step. */
void mring_cost_flows_clear(mring_flows_t *f, const mring_config_t *c);
/* Evaluate the current step, add `times` times its per-stream cost to the totals, clear it. */
int mring_cost_flows_add(mring_flows_t *f, const mring_config_t *c, const mring_cost_params_t *p, double times);
/* max over streams of the totals */
double mring_cost_flows_result(const mring_flows_t *f);
void mring_cost_flows_free(mring_flows_t *f);

#endif
