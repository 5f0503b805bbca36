/*
 * local.h - run all ranks' schedules in one process, over the interpreter.
 *
 * The in-process driver behind the loopback transport (real buffers) and the
 * verifier (symbolic buffers): one interpreter per rank, progressed round-robin;
 * sends and receives match in order on (source, destination, tag) channels.
 * What happens to data is up to the caller's data operations.  A sweep in which
 * no rank can move while ops are pending is a deadlock, reported with the
 * stuck ops.
 */
#ifndef MRING_LOCAL_H
#define MRING_LOCAL_H

#include "schedule.h"

#include <stddef.h>

typedef struct mring_local_ops {
    /* A send of rank src matched a receive of rank dst: move the data.
     * Return 0, or nonzero with a reason in err (the run stops). */
    int (*deliver)(void *ctx, int src, const mring_op_t *send, int dst, const mring_op_t *recv, char *err,
                   size_t errlen);
    int (*reduce)(void *ctx, int rank, const mring_op_t *op, char *err, size_t errlen);
    int (*copy)(void *ctx, int rank, const mring_op_t *op, char *err, size_t errlen);
} mring_local_ops_t;

/*
 * Run scheds[0..nranks-1] (scheds[r] is rank r's schedule) to completion.
 * inplace != 0: IN aliases OUT (prologue copies are skipped).
 * Returns 0; -1 with a one-line reason in err on a data error, deadlock
 * (naming the stuck ops), unmatched messages, or lack of memory.
 */
int mring_local_run(const mring_rank_sched_t *scheds, int nranks, int inplace, const mring_local_ops_t *ops,
                    void *ctx, char *err, size_t errlen);

#endif
