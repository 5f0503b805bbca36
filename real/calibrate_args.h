/*
 * calibrate_args.h - mring-calibrate's flags (calibrate.c runs what they ask): their values, checks and --help.
 */
#ifndef MRING_CALIBRATE_ARGS_H
#define MRING_CALIBRATE_ARGS_H

#include "calibrate_load.h"

#include <stdint.h>

typedef struct opts {
    int rpn, iters, warmup, json, fit_only, one_pair, rack_nodes, pattern, passes;
    const char *stops;    /* --stops: the witness's CSV, NULL unset */
    double fit_o;         /* --fit-only --o: s per message end, < 0 unset */
    level_t *wire;        /* --fit-only --wire: its alpha and beta, NULL unset */
    int64_t minb, maxb;   /* B */
    int64_t reduce_bytes; /* B */
} opts_t;

/* Read argv into *o from the defaults (pingpong, 20 iterations after 3 warm-ups, 1 B..4 MiB, 64 MiB of
 * reduction, 5 passes).  rank0: this process prints --help (then exits 0, after MPI_Finalize unless
 * --fit-only).  A bad flag or value, or a flag another excludes, exits 2 naming it (cli_usage_error). */
void calib_parse(int argc, char **argv, int rank0, opts_t *o);

#endif
