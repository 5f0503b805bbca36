/*
 * tuning.h - read the tuning file `mring tune --out` writes: size ranges -> configuration.
 *
 * {"mring_tuning": 1, "platform": ..., "ranks": P, "type": ..., "entries": [{"min_size", "max_size",
 *  "algo", "topo", "rings", "dim_algo", "segment", ...}, ...]}; sizes in bytes per rank, ranges
 * inclusive.  Used by mring-bench --tuning and the MPI_Allreduce interposer (MRING_TUNING).
 */
#ifndef MRING_TUNING_H
#define MRING_TUNING_H

#include "algo.h"

#include <stddef.h>
#include <stdint.h>

typedef struct mring_tuning mring_tuning_t;

/* Load and check a tuning file (every entry's configuration must be valid). NULL with err on failure. */
mring_tuning_t *mring_tuning_load(const char *path, char *err, size_t errlen);

/* The configuration for a call of `bytes` per rank on nranks ranks (count and elsize left 0/4).
 * Returns 0, or -1 with err when the file is for another rank count or no range holds the size. */
int mring_tuning_pick(const mring_tuning_t *t, int nranks, int64_t bytes, mring_config_t *c, char *err,
                      size_t errlen);

void mring_tuning_free(mring_tuning_t *t);

#endif
