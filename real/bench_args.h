/*
 * bench_args.h - mring-bench's flags: the nccl-tests flags (all_reduce_perf's -b -e -f -n -w -c -d -o -a),
 * mring's configuration flags (cli/args.h) and the executor's own (--device, --tuning, --trace, ...).
 * bench.c times and checks; this file only reads, checks and describes what was asked.
 */
#ifndef MRING_BENCH_ARGS_H
#define MRING_BENCH_ARGS_H

#include "args.h"
#include "tuning.h"

/* At most this many --alternate configurations beside the main one. */
#define BENCH_MAX_ALT 7

/* What one mring-bench run was asked to do. */
typedef struct bench {
    cli_conf_t cc;
    cli_sweep_t sweep;
    int iters, warmup, check, average; /* -n, -w, -c, -a */
    int mpi;                           /* --algo mpi: the MPI library's own MPI_Allreduce */
    int barrier;                       /* --barrier 1: each call timed alone from a barrier */
    double min_time; /* --min-time: seconds each configuration's timed calls fill at least, per size (0: -n) */
    mring_redop_t op;
    mring_format_t fmt;
    double timeout; /* seconds one call may take before the job aborts naming the stuck operation */
    const char *tuning_file, *trace, *per_call;
    mring_tuning_t *tuning; /* loaded from tuning_file by main */
    int device, cuda_aware; /* --device cuda; --cuda-aware */
    int nalt;                             /* --alternate: configurations timed call by call beside the main one */
    const char *alt_s[BENCH_MAX_ALT];     /* each as given (one string of configuration flags) */
    cli_conf_t alt_cc[BENCH_MAX_ALT];     /* each read (pointing into alt_words) */
    char *alt_words[BENCH_MAX_ALT];       /* the strings' copies the flags were split in */
} bench_t;

/* Read argv into *b, starting from nccl-tests' defaults (-n 20 -w 5 -c 1 -a 1, 32M..32M) and a 60 s
 * timeout; each --alternate string is split at blanks and read as configuration flags into b->alt_cc (its
 * --topo, when it has none, and the data type are the main configuration's: main fills them in).  rank0: this process prints --help (then every rank finalizes MPI and exits 0).  A bad flag or
 * value exits 2 naming it (cli_usage_error; only rank 0 prints, per cli_set_program). */
void bench_parse(int argc, char **argv, int rank0, bench_t *b);

/* Refuse combinations no run can honour, before any communication: an op the type does not take, --algo
 * mpi on a type MPI lacks, --device cuda without CUDA (or a GPU, or on long double), --trace with --algo
 * mpi, --tuning with --algo mpi, --alternate with --tuning or --algo mpi.  Exits 2 naming the values. */
void bench_check(const bench_t *b, mring_dtype_t t);

/* The report's title (len bytes): what is timed, on how many ranks (P), iterations, warm-up, check;
 * c and row_algo, topo, rings describe the configuration when neither --tuning nor --algo mpi is given. */
void bench_title(const bench_t *b, int P, const mring_config_t *c, const char *row_algo, const char *topo,
                 const char *rings, char *title, size_t len);

#endif
