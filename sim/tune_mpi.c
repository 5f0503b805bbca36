/*
 * tune_mpi.c - `mring tune` spread over MPI ranks (see tune.h): started by mpiexec (MPICH's hydra) or
 * srun --mpi=pmi2, every rank loads the platform and builds the same candidates, tunes the sizes
 * i = rank, rank + N, ... and sends its results to rank 0, which prints and writes them in size order:
 * the output is the one-process output, byte for byte.  Built when MPICH is installed.
 *
 * MPICH is loaded (dlopen) only when an MPI launcher started mring: linked in, it would cost every
 * command 10-25 ms of start-up (measured with `mring profiles`), and SimGrid's SMPI defines the same
 * MPI_* symbols; RTLD_DEEPBIND keeps MPICH's calls inside MPICH.  mpi.h gives the types and MPICH's
 * handles (compile-time constants).
 */
#include "tune.h"

#include <mpi.h>

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { TAG_STATUS = 1, TAG_RESULT = 2 };

/* The MPI calls this file makes, from the library loaded at start. */
static struct {
    int (*Init)(int *, char ***);
    int (*Comm_rank)(MPI_Comm, int *);
    int (*Comm_size)(MPI_Comm, int *);
    int (*Send)(const void *, int, MPI_Datatype, int, int, MPI_Comm);
    int (*Recv)(void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Status *);
    int (*Finalize)(void);
} mpi;

/* Load MRING_MPI_LIB (the MPICH mring was built with) and its calls.  Returns 0 or -1. */
static int load_mpi(void)
{
#if defined(__SANITIZE_ADDRESS__)
    return -1; /* AddressSanitizer's runtime aborts a dlopen with RTLD_DEEPBIND: no MPI tune in asan builds */
#endif
    void *h = dlopen(MRING_MPI_LIB, RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
    if (!h)
        return -1;
    *(void **)&mpi.Init = dlsym(h, "MPI_Init");
    *(void **)&mpi.Comm_rank = dlsym(h, "MPI_Comm_rank");
    *(void **)&mpi.Comm_size = dlsym(h, "MPI_Comm_size");
    *(void **)&mpi.Send = dlsym(h, "MPI_Send");
    *(void **)&mpi.Recv = dlsym(h, "MPI_Recv");
    *(void **)&mpi.Finalize = dlsym(h, "MPI_Finalize");
    return mpi.Init && mpi.Comm_rank && mpi.Comm_size && mpi.Send && mpi.Recv && mpi.Finalize ? 0 : -1;
}

/* One size's result as it travels: the picks' embeddings as candidate ids (pointers mean nothing in
 * another process). */
typedef struct wire {
    mring_tune_size_t res;
    int embed[1 + MRING_MAX_ALGOS]; /* best, then per_algo[] */
} wire_t;

/* A rank's outcome, sent before its results. */
typedef struct status {
    int rc;
    char err[512];
} status_t;

int mring_tune_mpi_start(int *rank, int *nprocs)
{
    *rank = 0;
    *nprocs = 1;
    if (mring_tune_launched_size() < 2)
        return 0;
    if (load_mpi() || mpi.Init(NULL, NULL) != MPI_SUCCESS)
        return -1;
    mpi.Comm_rank(MPI_COMM_WORLD, rank);
    mpi.Comm_size(MPI_COMM_WORLD, nprocs);
    return 0;
}

void mring_tune_mpi_end(int nprocs)
{
    if (nprocs > 1)
        mpi.Finalize();
}

static void pack(const mring_tune_t *t, const mring_tune_size_t *res, wire_t *w)
{
    w->res = *res;
    w->embed[0] = mring_tune_embed_id(t, res->best.c.embed);
    w->res.best.c.embed = NULL;
    for (int a = 0; a < MRING_MAX_ALGOS; a++) {
        w->embed[1 + a] = mring_tune_embed_id(t, res->per_algo[a].c.embed);
        w->res.per_algo[a].c.embed = NULL;
    }
}

static void unpack(const mring_tune_t *t, const wire_t *w, mring_tune_size_t *res)
{
    *res = w->res;
    res->best.c.embed = mring_tune_embed_of(t, w->embed[0]);
    for (int a = 0; a < MRING_MAX_ALGOS; a++)
        res->per_algo[a].c.embed = mring_tune_embed_of(t, w->embed[1 + a]);
}

/* Rank 0: every rank's status, then the results in size order. */
static int gather(mring_tune_t *t, const mring_tune_size_t *mine, int n, int np, mring_tune_size_t *res,
                  void (*done)(int i, const mring_tune_size_t *s, void *arg), void *arg, char *err, size_t errlen)
{
    int rc = 0;
    for (int p = 1; p < np; p++) {
        status_t st;
        mpi.Recv(&st, (int)sizeof st, MPI_BYTE, p, TAG_STATUS, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (st.rc && !rc) {
            snprintf(err, errlen, "rank %d: %s", p, st.err);
            rc = st.rc;
        }
    }
    for (int i = 0; rc == 0 && i < n; i++) {
        if (i % np == 0) {
            res[i] = mine[i / np];
        } else {
            wire_t w;
            mpi.Recv(&w, (int)sizeof w, MPI_BYTE, i % np, TAG_RESULT, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            unpack(t, &w, &res[i]);
        }
        if (done)
            done(i, &res[i], arg);
    }
    return rc;
}

int mring_tune_sweep_mpi(mring_tune_t *t, const int64_t *sizes, int n, int jobs, mring_tune_size_t *res,
                         void (*done)(int i, const mring_tune_size_t *s, void *arg), void *arg, char *err,
                         size_t errlen)
{
    int rank, np, nl = 0, rc = 0;
    mpi.Comm_rank(MPI_COMM_WORLD, &rank);
    mpi.Comm_size(MPI_COMM_WORLD, &np);
    int64_t *mine = calloc((size_t)n + 1, sizeof *mine);
    mring_tune_size_t *lres = calloc((size_t)n + 1, sizeof *lres);
    status_t st = {0, ""};
    if (!mine || !lres) {
        snprintf(st.err, sizeof st.err, "out of memory");
        st.rc = -1;
    }
    for (int i = rank; !st.rc && i < n; i += np)
        mine[nl++] = sizes[i];
    if (!st.rc && nl > 0)
        st.rc = mring_tune_sweep(t, mine, nl, jobs, lres, NULL, NULL, st.err, sizeof st.err);
    if (rank == 0) {
        rc = st.rc ? (snprintf(err, errlen, "%s", st.err), st.rc)
                   : gather(t, lres, n, np, res, done, arg, err, errlen);
    } else {
        mpi.Send(&st, (int)sizeof st, MPI_BYTE, 0, TAG_STATUS, MPI_COMM_WORLD);
        for (int k = 0; !st.rc && k < nl; k++) {
            wire_t w;
            pack(t, &lres[k], &w);
            mpi.Send(&w, (int)sizeof w, MPI_BYTE, 0, TAG_RESULT, MPI_COMM_WORLD);
        }
    }
    free(mine);
    free(lres);
    return rc;
}
