/*
 * verify.h - the verifier: symbolic execution of all ranks' schedules together.
 *
 * It proves, for one configuration, out of place and in place:
 *  - every op is well formed (buffer ranges in bounds, count > 0, a valid peer,
 *    nothing writes IN) and the streams of a rank never race (no range written
 *    by one stream is touched by another);
 *  - every send matches a receive of the same size on the peer, in order, and
 *    the run ends with no deadlock and no unmatched message;
 *  - every element of every rank's OUT holds the reduction of every rank's input
 *    at that position exactly once;
 *  - every rank ends with the same reduction tree per element, so the results
 *    are bitwise identical.
 * It also reports traffic per rank and per dimension of the link hierarchy.
 */
#ifndef MRING_VERIFY_H
#define MRING_VERIFY_H

#include "algo.h"
#include "schedule.h"

typedef struct mring_verify_result {
    int ok;                                 /* 1 if every property holds */
    char msg[512];                          /* the first failure */
    int64_t ops;                            /* ops over all ranks */
    int64_t msgs_max;                       /* most messages any rank sends */
    int64_t scratch_max;                    /* most scratch elements any rank needs */
    double bytes_max;                       /* most bytes any rank sends */
    double bytes_dim_max[MRING_MAX_DIMS];   /* per link dimension, most bytes any rank sends on it */
} mring_verify_result_t;

/*
 * Verify the given schedules: scheds[r] is rank r's, count the elements per rank,
 * elsize the element size (for byte counts), topo the link hierarchy.
 * Returns 0 when all holds, 1 when a property fails (res->msg names it), -1 when
 * memory runs out.
 */
int mring_verify_schedules(const mring_rank_sched_t *scheds, const mring_topo_t *topo, int64_t count, size_t elsize,
                           mring_verify_result_t *res);

/* Generate every rank's schedule of call k on c and verify them. Same returns. */
int mring_verify(const mring_config_t *c, mring_call_t k, mring_verify_result_t *res);

#endif
