/*
 * tune.h - the configuration search behind `mring tune`.
 *
 * Candidates: on each topology factorisation the platform's hierarchy allows (its mring_topo, each
 * level optionally split in two factors, adjacent levels optionally merged: 4x16x4, 4x64, 64x4,
 * 2x2x16x4, 4x4x4x4, 256, ...), every algorithm's own offer from its registry entry (algo.h:
 * multiring's rings per dimension and recursive halving, ring's and hier's rings on the natural
 * grid; an algorithm that offers nothing gets 1 ring on the natural grid).  Every candidate is
 * ranked by the closed-form model with links taken from the platform's routes; the best two and the
 * baselines (flat ring, rabenseifner, multiring on the natural grid with one ring) are then simulated,
 * with the best of each algorithm up to 4 MiB or when a plot needs it; from the fastest, when
 * multi-dimensional, a walk through pipelining: without its chunks if it has some, with 1 MiB pieces
 * (up to 512 MiB per rank), and then, with or without the pieces as they did better, with 2, 4, 8 and
 * 16 chunks while more chunks are faster; the fastest simulated configuration wins.  Where a dimension
 * has three or more rings, the candidate's twin on the cycles of --embed auto (sim.h) is a candidate too.
 * --exhaustive (MRING_TUNE_EXHAUSTIVE) simulates every candidate and every variant of each (pieces and
 * chunks in all combinations) instead.
 */
#ifndef MRING_TUNE_H
#define MRING_TUNE_H

#include "sim.h"

typedef struct mring_tune_pick {
    mring_config_t c;
    double time; /* simulated seconds */
} mring_tune_pick_t;

typedef struct mring_tune_size {
    int64_t size;
    mring_tune_pick_t best;
    mring_tune_pick_t per_algo[MRING_MAX_ALGOS]; /* best simulated configuration of each algorithm (0: none) */
    double ring_time, rabenseifner_time;      /* flat ring and rabenseifner, 1 ring, natural topology */
} mring_tune_size_t;

typedef struct mring_tune mring_tune_t;

enum {
    MRING_TUNE_EVERY_ALGO = 1, /* also simulate the best candidate of every algorithm (per_algo, for the plot) */
    MRING_TUNE_EXHAUSTIVE = 2  /* simulate every candidate and its pipelining variants: the reference the
                                  tuner's own regret is measured against (slow) */
};

/* Build the candidate list for platform pf with element size elsize and MRING_TUNE_* flags.  NULL when
 * out of memory. */
mring_tune_t *mring_tune_new(const mring_platform_t *pf, size_t elsize, int flags);
void mring_tune_free(mring_tune_t *t);
/* Number of candidates (for reports). */
int mring_tune_ncandidates(const mring_tune_t *t);

/* Tune one size. Returns 0, or nonzero with a reason in err (a simulation failed). */
int mring_tune_size(mring_tune_t *t, int64_t size, mring_tune_size_t *out, char *err, size_t errlen);

/*
 * Tune sizes[0..n-1] into res[0..n-1] with at most `jobs` worker processes at once, one per size (a
 * fork with its own copy of the loaded platform, its clock at 0: a size's times are the same bytes
 * however the sizes are spread), calling done(i, &res[i], arg) in size order as results come in
 * (done may be NULL).  Returns 0, or nonzero with err naming the size that
 * failed.  (tune_sweep.c)
 */
int mring_tune_sweep(mring_tune_t *t, const int64_t *sizes, int n, int jobs, mring_tune_size_t *res,
                     void (*done)(int i, const mring_tune_size_t *s, void *arg), void *arg, char *err, size_t errlen);

/*
 * Spreading a tune over MPI ranks (tune_mpi.c; `mpiexec -n N mring tune`, `srun --mpi=pmi2`).
 * mring_tune_mpi_start: when an MPI launcher started this process with others (PMI_SIZE,
 * OMPI_COMM_WORLD_SIZE or SLURM_STEP_NUM_TASKS > 1), MPI_Init and this process's rank and the number of
 * processes; otherwise rank 0 of 1 and nothing done.  Returns 0, or -1 when MPI_Init failed or mring
 * was built without MPI.  mring_tune_mpi_end: MPI_Finalize when started.
 * mring_tune_sweep_mpi: mring_tune_sweep over the ranks (rank r tunes sizes r, r + N, ..., with `jobs`
 * worker processes of its own); on rank 0, res[] and done() in size order as mring_tune_sweep gives
 * them, the same bytes as one process; on the other ranks nothing in res.  Returns 0, or nonzero with
 * err (on rank 0) naming the rank and size that failed.
 */
int mring_tune_mpi_start(int *rank, int *nprocs);
/* The number of processes an MPI launcher started (its PMI_SIZE, OMPI_COMM_WORLD_SIZE or
 * SLURM_STEP_NUM_TASKS), 1 when none did.  (tune_sweep.c: also where mring was built without MPI.) */
int mring_tune_launched_size(void);
void mring_tune_mpi_end(int nprocs);
int mring_tune_sweep_mpi(mring_tune_t *t, const int64_t *sizes, int n, int jobs, mring_tune_size_t *res,
                         void (*done)(int i, const mring_tune_size_t *s, void *arg), void *arg, char *err,
                         size_t errlen);

/* The id of embedding e among t's candidates (-1: NULL or not one of them) and the embedding of an id
 * (NULL for -1): the same ids in every process that built t from the same platform and element size,
 * so picks can travel between processes. */
int mring_tune_embed_id(const mring_tune_t *t, const mring_embed_t *e);
const mring_embed_t *mring_tune_embed_of(const mring_tune_t *t, int id);

/*
 * Write the tuning file (whole or not at all): {"mring_tuning": 1, "platform", "ranks", "type",
 * "entries": [{"min_size", "max_size", "algo", "topo", "rings", "dim_algo", "segment", "time_us",
 * "busbw_gbps"}, ...]}; entry sizes are bytes per rank, ranges inclusive and back to back from 0 to
 * INT64_MAX, neighbouring sizes with the same configuration merged.  Returns 0 or -1 with err.
 */
int mring_tune_write_file(const char *path, const char *platform, const mring_tune_size_t *s, int n, int P,
                          const char *type, char *err, size_t errlen);

/* Draw busbw against size for the best configuration of each algorithm with gnuplot (PNG).
 * Returns 0 or -1 with err (gnuplot missing or failing). */
int mring_tune_plot(const char *path, const mring_tune_size_t *s, int n, int P, char *err, size_t errlen);

#endif
