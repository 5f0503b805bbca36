/*
 * bench_percall.h - mring-bench --per-call FILE: every timed call's start and duration on every rank, as
 * CSV, to see the single slow calls a block's average hides (one retransmission timeout in a block of 20
 * calls of 4 ms doubles the block's mean).  Rank 0 writes; the file appears whole at the end of the run
 * (written beside it, then renamed), or not at all.
 */
#ifndef MRING_BENCH_PERCALL_H
#define MRING_BENCH_PERCALL_H

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>

typedef struct bench_percall bench_percall_t;

/* Collective over comm: rank 0 creates path (as path.tmpPID until closed, removed if the job ends first: SIGINT,
 * SIGTERM, SIGHUP or mring_abort_job) and writes the header
 * size,inplace,config,call,rank,start_s,time_us; the other ranks get a handle that only gathers.  Returns NULL on
 * every rank, with the reason in err (len bytes), when rank 0 cannot create the file. */
bench_percall_t *bench_percall_open(const char *path, MPI_Comm comm, char *err, size_t len);

/* Collective over comm: gather every rank's n calls, stamps[0..n-1] their starts and stamps[n..2n-1] their
 * ends (seconds since the epoch), and write one row per call and rank on rank 0: size in bytes per rank,
 * inplace 0/1, config (0 the main configuration, k the k-th --alternate), call 0..n-1, rank, start_s (%.6f), time_us = (end - start) x 1e6.  Returns 0, or -1 on
 * every rank when rank 0's write failed. */
int bench_percall_rows(bench_percall_t *pc, MPI_Comm comm, int64_t size, int inplace, int config, int n,
                       const double *stamps);

/* Close: on rank 0 flush, close and rename the file into place.  Returns 0, or -1 with the reason in err. */
int bench_percall_close(bench_percall_t *pc, char *err, size_t len);

#endif
