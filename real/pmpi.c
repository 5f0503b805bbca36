/*
 * pmpi.c - libmring-pmpi.so: route MPI_Allreduce through mring without rebuilding the program.
 *
 *   LD_PRELOAD=build/lib/libmring-pmpi.so mpiexec -n P ./app
 *
 * A call on a built-in datatype mring supports (float, double, 32/64-bit integers) with MPI_SUM,
 * MPI_PROD, MPI_MIN or MPI_MAX runs the configured schedule; anything else (user-defined ops,
 * other types, inter-communicators) goes to PMPI_Allreduce unchanged.  Configuration from the
 * environment, read once: MRING_TOPO (default: the communicator size, a flat grid), MRING_ALGO
 * (default multiring), MRING_RINGS (default 1), MRING_DIM_ALGO (default ring), MRING_SEGMENT
 * (bytes), MRING_CHUNKS (default 1), MRING_EMBED (default natural), read by the same function as the flags of `mring simulate` (mring_config_parse);
 * MRING_TUNING (a tuning file from `mring tune`: its entry for the call's size in bytes decides
 * algo, topo, rings, dim_algo and segment; its rank count must match the communicator).  A
 * configuration that does not fit the communicator (wrong rank count) falls through to
 * PMPI_Allreduce; a bad or unfitting setting is
 * reported once, on rank 0 of MPI_COMM_WORLD, on stderr.  MRING_PMPI_STATS=1 prints, at
 * MPI_Finalize on rank 0, how many calls went through mring and how many passed through, and how
 * many ran with each configuration (as `mring simulate` flags).
 */
#include "libmring.h"
#include "tuning.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Contexts live in an attribute of the user's communicator (MPI attribute caching), so they go away
 * with it: a later communicator that reuses the same handle value starts afresh. */
#define MAX_CTX 8

typedef struct comm_ctxs {
    int n;
    mring_ctx_t *ctx[MAX_CTX]; /* each knows the configuration it was built for */
} comm_ctxs_t;

static int keyval = MPI_KEYVAL_INVALID;
static long long through, passed;

/* Calls per configuration, for MRING_PMPI_STATS (the first MAX_SEEN distinct ones). */
#define MAX_SEEN 16
static struct {
    mring_config_t c;
    long long calls;
} seen[MAX_SEEN];
static int nseen;

static void count_config(const mring_config_t *c)
{
    int i = 0;
    while (i < nseen && !mring_config_equal(&seen[i].c, c))
        i++;
    if (i == nseen && nseen < MAX_SEEN)
        seen[nseen++].c = *c;
    if (i < nseen)
        seen[i].calls++;
}

static mring_tuning_t *tuning;
static int tuning_loaded;

static int free_ctxs(MPI_Comm comm, int kv, void *attr, void *extra)
{
    comm_ctxs_t *cc = attr;
    (void)comm, (void)kv, (void)extra;
    for (int i = 0; i < cc->n; i++)
        mring_ctx_free(cc->ctx[i]);
    free(cc);
    return MPI_SUCCESS;
}

static int map_type(MPI_Datatype dt, mring_dtype_t *t)
{
    int size;
    if (dt == MPI_FLOAT)
        *t = MRING_FLOAT32;
    else if (dt == MPI_DOUBLE)
        *t = MRING_FLOAT64;
    else if (dt == MPI_INT || dt == MPI_INT32_T || dt == MPI_LONG || dt == MPI_LONG_LONG || dt == MPI_INT64_T) {
        MPI_Type_size(dt, &size);
        if (size != 4 && size != 8)
            return -1;
        *t = size == 4 ? MRING_INT32 : MRING_INT64;
    } else
        return -1;
    return 0;
}

static int map_op(MPI_Op op, mring_redop_t *o)
{
    if (op == MPI_SUM)
        *o = MRING_SUM;
    else if (op == MPI_PROD)
        *o = MRING_PROD;
    else if (op == MPI_MIN)
        *o = MRING_MIN;
    else if (op == MPI_MAX)
        *o = MRING_MAX;
    else
        return -1;
    return 0;
}

/* Say once, on rank 0 of MPI_COMM_WORLD, why calls go to MPI's own allreduce. */
static void warn_once(const char *why)
{
    static int warned;
    int rank = 0;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (!warned && rank == 0)
        fprintf(stderr, "mring-pmpi: %s; those calls use MPI's own allreduce\n", why);
    warned = 1;
}

/* The configuration for a call of `bytes` on a communicator of P ranks, from the environment. */
static int configure(int P, int64_t bytes, mring_config_t *c)
{
    const char *s;
    char err[256], why[320];
    if (!tuning_loaded && (s = getenv("MRING_TUNING"))) {
        tuning_loaded = 1;
        if (!(tuning = mring_tuning_load(s, err, sizeof err))) {
            warn_once(err);
            return -1;
        }
    }
    if (tuning_loaded && !tuning)
        return -1;
    if (tuning) {
        if (mring_tuning_pick(tuning, P, bytes, c, err, sizeof err) == 0)
            return 0;
        snprintf(why, sizeof why, "MRING_TUNING: %s", err);
        warn_once(why);
        return -1;
    }
    mring_config_fields_t f = {getenv("MRING_TOPO"),     getenv("MRING_ALGO"),    getenv("MRING_RINGS"),
                               getenv("MRING_DIM_ALGO"), getenv("MRING_SEGMENT"), getenv("MRING_CHUNKS"),
                               getenv("MRING_EMBED")};
    mring_topo_t flat = mring_topo_flat(P);
    const char **fields[] = {&f.topo, &f.algo, &f.rings, &f.dim_algo, &f.segment, &f.chunks, &f.embed};
    for (size_t i = 0; i < sizeof fields / sizeof *fields; i++) /* set but empty: as if unset */
        if (*fields[i] && !**fields[i])
            *fields[i] = NULL;
    if (mring_config_parse(&f, MRING_FIELDS_ENV, &flat, c, err, sizeof err)) {
        warn_once(err);
        return -1;
    }
    if (c->topo.nranks != P) {
        snprintf(err, sizeof err, "MRING_TOPO has %d ranks, a communicator %d", c->topo.nranks, P);
        warn_once(err);
        return -1;
    }
    return 0;
}

static mring_ctx_t *context(MPI_Comm comm, const mring_config_t *c)
{
    char err[256];
    comm_ctxs_t *cc;
    int found = 0;
    if (keyval == MPI_KEYVAL_INVALID &&
        MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, free_ctxs, &keyval, NULL) != MPI_SUCCESS)
        return NULL;
    MPI_Comm_get_attr(comm, keyval, &cc, &found);
    if (!found) {
        if (!(cc = calloc(1, sizeof *cc)))
            return NULL;
        MPI_Comm_set_attr(comm, keyval, cc);
    }
    for (int i = 0; i < cc->n; i++)
        if (mring_config_equal(mring_ctx_config(cc->ctx[i]), c))
            return cc->ctx[i];
    if (cc->n == MAX_CTX || mring_ctx_create(comm, c, 0, &cc->ctx[cc->n], err, sizeof err) != MPI_SUCCESS)
        return NULL;
    return cc->ctx[cc->n++];
}

int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm)
{
    mring_dtype_t t;
    mring_redop_t o;
    mring_config_t c;
    mring_ctx_t *ctx;
    int inter = 0, P;
    MPI_Comm_test_inter(comm, &inter);
    MPI_Comm_size(comm, &P);
    if (inter || count < 0 || map_type(dt, &t) || map_op(op, &o) ||
        configure(P, (int64_t)count * (int64_t)mring_dtype_size(t), &c) || !(ctx = context(comm, &c))) {
        passed++;
        return PMPI_Allreduce(sendbuf, recvbuf, count, dt, op, comm);
    }
    through++;
    count_config(&c);
    return mring_allreduce(sendbuf, recvbuf, count, t, o, ctx);
}

int MPI_Finalize(void)
{
    int rank = 0;
    const char *s = getenv("MRING_PMPI_STATS");
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (s && *s == '1' && rank == 0) {
        char d[256];
        printf("mring-pmpi: %lld calls through mring, %lld passed to MPI\n", through, passed);
        for (int i = 0; i < nseen; i++)
            printf("mring-pmpi:   %lld calls with %s\n", seen[i].calls, mring_config_describe(&seen[i].c, d, sizeof d));
    }
    mring_tuning_free(tuning); /* contexts go with their communicators' attributes */
    return PMPI_Finalize();
}
