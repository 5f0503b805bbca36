/*
 * tuning.h - the tuning file: size ranges -> configuration, written by `mring tune --out` and read
 * by mring-bench --tuning and the MPI_Allreduce interposer (MRING_TUNING).  Reader and writer live
 * together here so the format has one definition.
 *
 * {"mring_tuning": 1, "platform": ..., "ranks": P, "type": ..., "entries": [{"min_size", "max_size",
 *  "algo", "topo", "rings", "dim_algo", "segment", "chunks", "embed", "time_us", "busbw_gbps"}, ...]};
 *  sizes in bytes per rank, ranges inclusive ("chunks" only where above 1, "embed" where not natural).  An entry's configuration
 *  fields are read by mring_config_parse (config.h), like flags and MRING_* variables; dim_algo,
 *  segment, chunks and embed may be left out.
 */
#ifndef MRING_TUNING_H
#define MRING_TUNING_H

#include "config.h"

#include <stddef.h>
#include <stdint.h>

/* One size range and the configuration chosen for it. */
typedef struct mring_tuning_entry {
    int64_t min_size, max_size; /* bytes per rank, inclusive */
    mring_config_t c;
    double time_us, busbw_gbps; /* the prediction that chose it (written for the reader's information) */
} mring_tuning_entry_t;

typedef struct mring_tuning mring_tuning_t;

/* Load and check a tuning file (every entry's configuration must be valid). NULL with err on failure. */
mring_tuning_t *mring_tuning_load(const char *path, char *err, size_t errlen);

/* The rank count the file was tuned for. */
int mring_tuning_ranks(const mring_tuning_t *t);

/* The configuration for a call of `bytes` per rank on nranks ranks.
 * Returns 0, or -1 with err when the file is for another rank count or no range holds the size. */
int mring_tuning_pick(const mring_tuning_t *t, int nranks, int64_t bytes, mring_config_t *c, char *err,
                      size_t errlen);

void mring_tuning_free(mring_tuning_t *t);

/*
 * Write a tuning file of n entries for `ranks` ranks (platform and type for the reader's
 * information), whole or not at all (a temporary file renamed into place).
 * Returns 0, or -1 with "cannot write the tuning file PATH" in err.
 */
int mring_tuning_write(const char *path, const char *platform, int ranks, const char *type,
                       const mring_tuning_entry_t *e, int n, char *err, size_t errlen);

#endif
