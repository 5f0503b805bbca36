/* scaling_cli.h - what `mring scaling`'s two files share (cli_scaling.c: options and the sweep;
 * scaling_out.c: table, CSV, JSON and the plot). */
#ifndef MRING_SCALING_CLI_H
#define MRING_SCALING_CLI_H

#include "cli.h"
#include "scaling.h"

#define MAX_GPUS_LIST 64

typedef struct scaling_cli {
    const char *platform, *workload, *tuning, *plot, *batch_s;
    cli_cfgs_t cfgs;
    int gpus[MAX_GPUS_LIST], ngpus, overlap, inflight, node;
    int64_t bucket;
    mring_format_t fmt;
    mring_dtype_t dtype;
} scaling_cli_t;

/* Steps of every GPU count of o (steps[i] for o->gpus[i]) with their efficiency against *base: the
 * one-node step of so's configuration when base->gpus == 0 (then filled in, from the sweep when it
 * has that count), else the given step (one baseline for several lines of a plot).  Returns 0, or
 * the failing step's code with err (2: bad request, 1/-1: simulation). */
int scaling_sweep(const mring_platform_t *pf, const mring_scaling_opts_t *so, const scaling_cli_t *o,
                  mring_step_t *base, mring_step_t *steps, char *err, size_t errlen);

void scaling_print_table(const mring_scaling_opts_t *so, const scaling_cli_t *o, const mring_platform_t *pf,
                         const mring_step_t *s);
void scaling_print_csv(const mring_scaling_opts_t *so, const scaling_cli_t *o, const mring_step_t *s);
/* Returns 0, or 1 when writing failed. */
int scaling_print_json(const mring_scaling_opts_t *so, const scaling_cli_t *o, const mring_step_t *s);
/* Efficiency against GPUs for so's configuration (steps) and ring, rabenseifner and hier, all against
 * so's one-node iteration `base`.  Exits on failure. */
void scaling_plot(const char *cmd, const mring_platform_t *pf, const mring_scaling_opts_t *so, const scaling_cli_t *o,
                  const mring_step_t *base, mring_step_t *steps);

#endif
