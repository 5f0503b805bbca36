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


void scaling_print_table(const mring_scaling_opts_t *so, const scaling_cli_t *o, const mring_platform_t *pf,
                         const mring_step_t *s);
void scaling_print_csv(const mring_scaling_opts_t *so, const scaling_cli_t *o, const mring_step_t *s);
/* Returns 0, or 1 when writing failed. */
int scaling_print_json(const mring_scaling_opts_t *so, const scaling_cli_t *o, const mring_step_t *s);
/* One line of --plot: efficiency per GPU count (steps[i] for o->gpus[i]; NULL = no line). */
typedef struct scaling_series {
    const char *title;
    const mring_step_t *steps;
} scaling_series_t;

/* Draw efficiency against GPUs for the n series (the first is so's configuration, every one against
 * its one-node iteration).  Exits on failure. */
void scaling_plot(const char *cmd, const mring_scaling_opts_t *so, const scaling_cli_t *o, const scaling_series_t *series,
                  int n);

#endif
