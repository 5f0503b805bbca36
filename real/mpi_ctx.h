/* mpi_ctx.h - what the real back end's files share about a context beyond libmring.h (not installed). */
#ifndef MRING_MPI_CTX_H
#define MRING_MPI_CTX_H

#include "libmring.h"

/* A private communicator of the context with the caller's ranks (for the back end's own collectives). */
MPI_Comm mring_ctx_comm(const mring_ctx_t *ctx);

/* The schedule of the context's last call (its traced events point into it). */
const mring_rank_sched_t *mring_ctx_schedule(const mring_ctx_t *ctx);

#endif
