/* mpi_trace.c - the timeline of a traced call, gathered from every rank into one trace file (libmring.h). */
#include "mpi_ctx.h"

#include "algo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Rank 0: every rank's schedule of the traced call (for the ops the gathered indices name) and the events,
 * written to path.  Returns 0, or -1 with err. */
static int write_all(const mring_ctx_t *c, mring_call_t k, const int64_t *idx, const double *t, const int *n, int P,
                     const char *path, char *err, size_t errlen)
{
    mring_rank_sched_t *s = calloc((size_t)P, sizeof *s);
    int64_t total = 0, e = 0;
    int rc = -1, made = 0;
    for (int r = 0; r < P; r++)
        total += n[r];
    mring_trace_event_t *ev = malloc((size_t)(total ? total : 1) * sizeof *ev);
    if (!s || !ev)
        goto oom;
    for (; made < P; made++)
        if (mring_generate(mring_ctx_config(c), k, made, &s[made]))
            goto oom;
    for (int r = 0; r < P; r++)
        for (int i = 0; i < n[r]; i++, e++) {
            int64_t j = idx[2 * e], op = idx[2 * e + 1];
            if (j < 0 || j >= s[r].nstreams || op < 0 || op >= s[r].streams[j].nops) {
                snprintf(err, errlen, "rank %d traced op %lld of stream %lld, which its schedule does not have", r,
                         (long long)op, (long long)j);
                goto out;
            }
            ev[e] = (mring_trace_event_t){r, (int)j, &s[r].streams[j].ops[op], t[2 * e], t[2 * e + 1]};
        }
    rc = mring_trace_write(ev, total, s, P, path, err, errlen);
    goto out;
oom:
    snprintf(err, errlen, "out of memory gathering the trace");
out:
    for (int r = 0; s && r < made; r++)
        mring_rank_sched_free(&s[r]);
    free(s);
    free(ev);
    return rc;
}

/* Seconds to add to this rank's times to put them on a common clock: every rank on one host (one processor
 * name, so one clock), from the earliest start; 0 otherwise (collective). */
static double clock_shift(MPI_Comm comm, double t0)
{
    char name[MPI_MAX_PROCESSOR_NAME + 1] = {0}, first[MPI_MAX_PROCESSOR_NAME + 1];
    int len, differs, any;
    double earliest;
    MPI_Get_processor_name(name, &len);
    memcpy(first, name, sizeof first);
    MPI_Bcast(first, (int)sizeof first, MPI_CHAR, 0, comm);
    differs = strcmp(name, first) != 0;
    MPI_Allreduce(&differs, &any, 1, MPI_INT, MPI_LOR, comm);
    MPI_Allreduce(&t0, &earliest, 1, MPI_DOUBLE, MPI_MIN, comm);
    return any ? 0 : t0 - earliest;
}

int mring_trace_gather(const mring_ctx_t *c, int64_t count, mring_dtype_t t, const char *path, char *err,
                       size_t errlen)
{
    const mring_trace_event_t *ev;
    double t0, *tm = NULL, *all_t = NULL;
    int64_t n = mring_ctx_trace_events(c, &ev, &t0), lost = n < 0, bad, *idx = NULL, *all_idx = NULL, total = 0;
    int P = mring_ctx_size(c), me = mring_ctx_rank(c), mine = n < 0 ? 0 : (int)n, two = 2 * mine, rc = -1, ok;
    int *cnt = NULL, *displ = NULL;
    MPI_Comm comm = mring_ctx_comm(c);
    double shift = clock_shift(comm, t0);
    if (!(idx = malloc(2 * (size_t)(mine + 1) * sizeof *idx)) || !(tm = malloc(2 * (size_t)(mine + 1) * sizeof *tm)) ||
        (me == 0 && (!(cnt = malloc((size_t)P * sizeof *cnt)) || !(displ = malloc((size_t)P * sizeof *displ)))))
        lost = 1;
    for (int i = 0; !lost && i < mine; i++) {
        idx[2 * i] = ev[i].stream;
        idx[2 * i + 1] = ev[i].op - mring_ctx_schedule(c)->streams[ev[i].stream].ops;
        tm[2 * i] = ev[i].start + shift;
        tm[2 * i + 1] = ev[i].end + shift;
    }
    MPI_Allreduce(&lost, &bad, 1, MPI_INT64_T, MPI_SUM, comm);
    if (bad) {
        snprintf(err, errlen, "%lld rank(s) have no complete trace of the last call (none traced, or out of memory)",
                 (long long)bad);
        goto out;
    }
    MPI_Gather(&two, 1, MPI_INT, cnt, 1, MPI_INT, 0, comm);
    for (int r = 0; me == 0 && r < P; r++) {
        displ[r] = (int)total;
        total += cnt[r];
    }
    ok = me != 0 || ((all_idx = malloc((size_t)(total + 1) * sizeof *all_idx)) &&
                     (all_t = malloc((size_t)(total + 1) * sizeof *all_t)));
    MPI_Bcast(&ok, 1, MPI_INT, 0, comm); /* rank 0 has room for every rank's events, or nobody sends */
    if (!ok) {
        snprintf(err, errlen, "out of memory gathering the trace");
        goto out;
    }
    MPI_Gatherv(idx, two, MPI_INT64_T, all_idx, cnt, displ, MPI_INT64_T, 0, comm);
    MPI_Gatherv(tm, two, MPI_DOUBLE, all_t, cnt, displ, MPI_DOUBLE, 0, comm);
    if (me == 0) {
        for (int r = 0; r < P; r++)
            cnt[r] /= 2;
        rc = write_all(c, (mring_call_t){count, mring_dtype_size(t)}, all_idx, all_t, cnt, P, path, err, errlen);
    }
    MPI_Bcast(&rc, 1, MPI_INT, 0, comm);
out:
    free(idx);
    free(tm);
    free(cnt);
    free(displ);
    free(all_idx);
    free(all_t);
    return rc;
}
