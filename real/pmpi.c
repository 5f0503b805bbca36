/*
 * pmpi.c - libmring-pmpi.so: route MPI_Allreduce through mring without rebuilding the program.
 *
 *   LD_PRELOAD=build/lib/libmring-pmpi.so mpiexec -n P ./app
 *
 * A call with a predefined op on a predefined datatype (pmpi_types.c: every reduction type of the
 * MPI standard but MPI_REAL16 and long double complex, under C, fixed-width and Fortran names, and
 * contiguous types of them) runs the configured schedule, where MPI defines the op on the type;
 * anything else (user-defined ops, other types, inter-communicators, an op MPI does not define on
 * the type) goes to PMPI_Allreduce unchanged.  A call that fails in mring goes to the
 * communicator's error handler, as MPI's own failures do (fail()).
 *
 * The topology is the communicator's own by default (mring_comm_topo: ranks per node x nodes when
 * the layout is regular, else flat), read once per communicator at its first call and cached with
 * its contexts.  On a grid, the default algorithm is multiring; on a flat one (an irregular layout,
 * or a single node) with no MRING_* setting, it is chosen by size as MPICH does (flat_algo).
 * Configuration from the environment, read once: MRING_TOPO (forces a grid; a communicator of
 * another size keeps its own), MRING_ALGO (default multiring), MRING_RINGS (default 1), MRING_DIM_ALGO
 * (default ring), MRING_SEGMENT (bytes), MRING_CHUNKS (default 1), MRING_EMBED (default natural), read by the same function as the flags of `mring simulate`
 * (mring_config_parse); MRING_TUNING (a tuning file from `mring tune`: its entry for the call's size
 * in bytes decides the configuration on communicators of its rank count; others use the settings
 * above); MRING_TIMEOUT (seconds, default off): a call that does not finish in time, or whose ranks
 * do not all arrive at a communicator's first call, aborts the job naming the stuck operation.  A bad
 * or unfitting setting is reported once, on rank 0 of MPI_COMM_WORLD, on stderr.  MRING_PMPI_STATS=1
 * prints, at MPI_Finalize on rank 0, how many calls went through mring and how many passed through
 * (per reason), and how many ran with each configuration (as `mring simulate` flags).
 */
#include "gen.h"
#include "libmring.h"
#include "pmpi_types.h"
#include "tuning.h"
#include "units.h"

#include <limits.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A communicator's state lives in an attribute of it (MPI attribute caching), so it goes away with
 * it: a later communicator that reuses the same handle value starts afresh. */
#define MAX_CTX 8
#define MAX_CTX_S "8"

typedef struct comm_state {
    mring_topo_t topo; /* the communicator's own grid (mring_comm_topo), read at its first call */
    int n;
    mring_ctx_t *ctx[MAX_CTX]; /* each knows the configuration it was built for */
} comm_state_t;

static int keyval = MPI_KEYVAL_INVALID;
static double timeout_s; /* MRING_TIMEOUT; 0 = none */

/* Why calls pass to MPI's own allreduce, counted for MRING_PMPI_STATS. */
enum { PASS_ARGS, PASS_INTER, PASS_COUNT, PASS_TYPE, PASS_OP, PASS_CONFIG, PASS_CONTEXT, NPASS };
static const char *const pass_why[NPASS] = {
    "arguments MPI refuses (MPI_COMM_NULL, a NULL or aliased buffer: MPI's own error)",
    "an inter-communicator",
    "a negative count",
    "a datatype mring does not reduce",
    "a user-defined op (or REPLACE, NO_OP), or an op MPI does not define on the datatype (MPI's own error)",
    "no configuration applies (a bad MRING_* setting or tuning entry, said above)",
    "mring could not create its context on the communicator",
};
static long long through, passed[NPASS];

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
static int env_read;

static int free_state(MPI_Comm comm, int kv, void *attr, void *extra)
{
    comm_state_t *cs = attr;
    (void)comm, (void)kv, (void)extra;
    for (int i = 0; i < cs->n; i++)
        mring_ctx_free(cs->ctx[i]);
    free(cs);
    return MPI_SUCCESS;
}

/* mring's op for a predefined MPI op (avg has no MPI op) */
static int map_op(MPI_Op op, mring_redop_t *o)
{
    for (int i = 0; i < MRING_NOPS; i++)
        if (i != MRING_AVG && mring_mpi_op((mring_redop_t)i) == op)
            return *o = (mring_redop_t)i, 0;
    return -1;
}

/* Say each distinct message once, on rank 0 of MPI_COMM_WORLD, on stderr. */
static void say_once(const char *what)
{
    static char said[16][256];
    static int nsaid;
    int rank = 0;
    for (int i = 0; i < nsaid; i++)
        if (!strncmp(said[i], what, sizeof said[i] - 1))
            return;
    if (nsaid < 16)
        snprintf(said[nsaid++], sizeof said[0], "%s", what);
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        fprintf(stderr, "mring-pmpi: %s\n", what);
}

/* MRING_TUNING and MRING_TIMEOUT, read at the first call. */
static void read_env(void)
{
    const char *s;
    char err[256], why[320];
    env_read = 1;
    if ((s = getenv("MRING_TUNING")) && *s && !(tuning = mring_tuning_load(s, err, sizeof err))) {
        snprintf(why, sizeof why, "%s; MRING_TUNING is not used", err);
        say_once(why);
    }
    if ((s = getenv("MRING_TIMEOUT")) && *s && (mring_parse_time(s, &timeout_s) || !(timeout_s > 0))) {
        snprintf(why, sizeof why, "MRING_TIMEOUT '%.64s' is not a time > 0 (seconds, or with a unit: 30s, 2m); no "
                                  "timeout", s);
        say_once(why);
        timeout_s = 0;
    }
}

/* The algorithm for a flat grid (an irregular layout, or one node) when no MRING_* setting chooses
 * the schedule: MPICH's rule (src/mpi/coll/allreduce, MPIR_CVAR_ALLREDUCE_SHORT_MSG_SIZE = 2048):
 * recursive doubling up to 2048 bytes or below one element per rank of the power of two, else
 * Rabenseifner's reduce-scatter + allgather. */
static const char *flat_algo(int P, int64_t bytes, size_t elsize)
{
    return bytes <= 2048 || bytes / (int64_t)elsize < mring_pof2_floor(P) ? "rd" : "rabenseifner";
}

/* The configuration for a call of `bytes` on a communicator of P ranks whose own grid is `own`: the
 * tuning file's entry when the file is for P ranks, else the MRING_* settings on MRING_TOPO where it
 * has P ranks and on `own` otherwise (no setting on a flat `own`: flat_algo).  Returns 0, or -1
 * (said once) when no configuration applies. */
static int configure(int P, const mring_topo_t *own, int64_t bytes, size_t elsize, mring_config_t *c)
{
    char err[256], why[320];
    if (tuning && mring_tuning_ranks(tuning) == P) {
        if (mring_tuning_pick(tuning, P, bytes, c, err, sizeof err) == 0)
            return 0;
        snprintf(why, sizeof why, "MRING_TUNING: %s; those calls use MPI's own allreduce", err);
        say_once(why);
        return -1;
    }
    mring_config_fields_t f = {getenv("MRING_TOPO"),     getenv("MRING_ALGO"),    getenv("MRING_RINGS"),
                               getenv("MRING_DIM_ALGO"), getenv("MRING_SEGMENT"), getenv("MRING_CHUNKS"),
                               getenv("MRING_EMBED")};
    const char **fields[] = {&f.topo, &f.algo, &f.rings, &f.dim_algo, &f.segment, &f.chunks, &f.embed};
    for (size_t i = 0; i < sizeof fields / sizeof *fields; i++) /* set but empty: as if unset */
        if (*fields[i] && !**fields[i])
            *fields[i] = NULL;
    mring_topo_t forced;
    if (f.topo && !mring_topo_parse(f.topo, &forced, err, sizeof err) && forced.nranks != P) {
        char g[64];
        snprintf(why, sizeof why, "MRING_TOPO %.64s has %d ranks; a communicator of %d ranks uses its own grid %s",
                 f.topo, forced.nranks, P, mring_topo_format(own, g, sizeof g));
        say_once(why);
        f.topo = NULL;
    }
    if (!f.topo && !f.algo && !f.rings && !f.dim_algo && !f.segment && !f.chunks && !f.embed && own->ndims == 1)
        f.algo = flat_algo(P, bytes, elsize);
    if (mring_config_parse(&f, MRING_FIELDS_ENV, own, c, err, sizeof err)) {
        snprintf(why, sizeof why, "%s; those calls use MPI's own allreduce", err);
        say_once(why);
        return -1;
    }
    return 0;
}

/* A first call that a peer never makes would hang in the collective set-up: with MRING_TIMEOUT, abort
 * instead, naming the call. */
static void arrive_or_abort(MPI_Comm comm, const char *what)
{
    char err[256];
    int P;
    if (timeout_s <= 0 || mring_comm_arrive(comm, timeout_s, err, sizeof err) == MPI_SUCCESS)
        return;
    PMPI_Comm_size(comm, &P);
    mring_abort_job("mring-pmpi: MPI_Allreduce, %s on a communicator of %d ranks: %s; aborting", what, P, err);
}

/* The communicator's state, created at its first call (collective: the node layout is read). */
static comm_state_t *comm_state(MPI_Comm comm)
{
    comm_state_t *cs;
    char err[256];
    int found = 0, rc, P;
    if (keyval == MPI_KEYVAL_INVALID &&
        PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, free_state, &keyval, NULL) != MPI_SUCCESS)
        return NULL;
    PMPI_Comm_get_attr(comm, keyval, &cs, &found);
    if (found)
        return cs;
    if (!(cs = calloc(1, sizeof *cs)))
        return NULL;
    arrive_or_abort(comm, "the first call");
    if ((rc = mring_comm_topo(comm, &cs->topo, err, sizeof err)) != MPI_SUCCESS) {
        char why[400];
        PMPI_Comm_size(comm, &P);
        snprintf(why, sizeof why, "a communicator of %d ranks: %s; its calls use MPI's own allreduce", P, err);
        say_once(why);
        free(cs);
        return NULL;
    }
    PMPI_Comm_set_attr(comm, keyval, cs);
    return cs;
}

static mring_ctx_t *context(MPI_Comm comm, comm_state_t *cs, const mring_config_t *c)
{
    char err[256];
    for (int i = 0; i < cs->n; i++)
        if (mring_config_equal(mring_ctx_config(cs->ctx[i]), c))
            return cs->ctx[i];
    if (cs->n == MAX_CTX) {
        say_once("more than " MAX_CTX_S " configurations on one communicator; calls with the others use MPI's own "
                 "allreduce");
        return NULL;
    }
    arrive_or_abort(comm, "the first call with this configuration");
    if (mring_ctx_create(comm, c, timeout_s, &cs->ctx[cs->n], err, sizeof err) != MPI_SUCCESS)
        return NULL;
    return cs->ctx[cs->n++];
}

/* Why this call cannot go through mring (an index of pass_why), or -1 with *ctx, *t, *o and *n (mring's
 * element count) set.  *base and *n: the predefined type dt is made of and the count of it, when type
 * and op are mring's (a call passed to MPI for a later reason goes as those). */
static int route(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm,
                 mring_ctx_t **ctx, mring_dtype_t *t, mring_redop_t *o, int64_t *n, mring_config_t *c,
                 MPI_Datatype *base)
{
    comm_state_t *cs;
    int64_t per;
    unsigned mpi_ops;
    MPI_Datatype base_dt;
    int inter = 0, P;
    if (comm == MPI_COMM_NULL || (count > 0 && (!recvbuf || !sendbuf || sendbuf == recvbuf)))
        return PASS_ARGS;
    PMPI_Comm_test_inter(comm, &inter);
    if (inter)
        return PASS_INTER;
    if (!env_read)
        read_env();
    /* type and op first (the same on every rank), so that a call passed to MPI for any later reason
     * can go as base elements; the reasons in the order the stats give them */
    int typed = count >= 0 && mring_pmpi_type(dt, t, &per, &mpi_ops, &base_dt) == 0;
    int op_ok = typed && !map_op(op, o) && (mpi_ops >> *o & 1) && mring_op_valid(*t, *o);
    if (op_ok) {
        *n = (int64_t)count * per;
        *base = base_dt;
    }
    if (!(cs = comm_state(comm))) /* before the per-call reasons: every rank reads the layout at the same call */
        return PASS_CONTEXT;
    if (count < 0)
        return PASS_COUNT;
    if (!typed)
        return PASS_TYPE;
    if (!op_ok)
        return PASS_OP;
    PMPI_Comm_size(comm, &P);
    if (configure(P, &cs->topo, *n * (int64_t)mring_dtype_size(*t), mring_dtype_size(*t), c))
        return PASS_CONFIG;
    if (c->segment > 0 && (size_t)c->segment < mring_dtype_size(*t)) {
        char why[160];
        snprintf(why, sizeof why, "a segment of %lld bytes is below one %s element; those calls use MPI's own "
                                  "allreduce", (long long)c->segment, mring_dtype_name(*t));
        say_once(why);
        return PASS_CONFIG;
    }
    return (*ctx = context(comm, cs, c)) ? -1 : PASS_CONTEXT;
}

/* A failed call goes to comm's error handler, as MPI's own errors do: the fatal ones end the job
 * with one line naming the call; others (MPI_ERRORS_RETURN, the user's) are called, and rc returned. */
static int fail(MPI_Comm comm, int rc, int64_t n, mring_dtype_t t, mring_redop_t o)
{
    MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
    char msg[MPI_MAX_ERROR_STRING] = "";
    int len = 0;
    int cls = MPI_ERR_OTHER;
    /* MPICH's text for this class speaks of MPI_Alloc_mem: ours in the fatal line.  (A code of our own
     * with MPI_Add_error_code under this predefined class gets MPICH's class text and a stray error
     * stack from MPI_Error_string, so MPI_ERRORS_RETURN and handlers get MPICH's code.) */
    PMPI_Error_class(rc, &cls);
    if (cls == MPI_ERR_NO_MEM)
        snprintf(msg, sizeof msg, "out of memory for the schedule or its scratch space");
    else if (cls == MPI_ERR_TYPE)
        snprintf(msg, sizeof msg, "%s has no kernel on device buffers", mring_dtype_name(t));
    else
        PMPI_Error_string(rc, msg, &len);
    PMPI_Comm_get_errhandler(comm, &eh);
    if (eh == MPI_ERRORS_ARE_FATAL || eh == MPI_ERRORS_ABORT)
        mring_abort_job("mring-pmpi: MPI_Allreduce of %lld %s elements with %s failed in mring: %s", (long long)n,
                        mring_dtype_name(t), mring_redop_name(o), msg);
    if (eh != MPI_ERRORS_RETURN && eh != MPI_ERRHANDLER_NULL)
        PMPI_Errhandler_free(&eh); /* the reference MPI_Comm_get_errhandler made */
    PMPI_Comm_call_errhandler(comm, rc);
    return rc;
}

int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm)
{
    mring_dtype_t t = MRING_FLOAT32;
    mring_redop_t o = MRING_SUM;
    mring_config_t c;
    mring_ctx_t *ctx = NULL;
    int64_t n = 0;
    MPI_Datatype base = MPI_DATATYPE_NULL;
    int why = route(sendbuf, recvbuf, count, dt, op, comm, &ctx, &t, &o, &n, &c, &base);
    if (why >= 0) {
        passed[why]++;
        if (base != MPI_DATATYPE_NULL && base != dt && n <= INT_MAX) /* a derived type MPICH would refuse */
            return PMPI_Allreduce(sendbuf, recvbuf, (int)n, base, op, comm);
        return PMPI_Allreduce(sendbuf, recvbuf, count, dt, op, comm);
    }
    through++;
    count_config(&c);
    int rc = mring_allreduce(sendbuf, recvbuf, n, t, o, ctx);
    return rc == MPI_SUCCESS ? rc : fail(comm, rc, n, t, o);
}

int MPI_Finalize(void)
{
    int rank = 0;
    const char *s = getenv("MRING_PMPI_STATS");
    long long all = 0;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 0; i < NPASS; i++)
        all += passed[i];
    if (s && *s == '1' && rank == 0) {
        char d[256];
        printf("mring-pmpi: %lld calls through mring, %lld passed to MPI\n", through, all);
        for (int i = 0; i < NPASS; i++)
            if (passed[i])
                printf("mring-pmpi:   %lld passed: %s\n", passed[i], pass_why[i]);
        for (int i = 0; i < nseen; i++)
            printf("mring-pmpi:   %lld calls with %s\n", seen[i].calls, mring_config_describe(&seen[i].c, d, sizeof d));
    }
    mring_tuning_free(tuning); /* contexts go with their communicators' attributes */
    return PMPI_Finalize();
}
