/* cli_tune.c - `mring tune`: the best configuration per size on a platform, a tuning file, a plot. */
#include "cli.h"

#include "tune.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void help(void)
{
    printf("usage: mring tune --platform FILE [-b MIN] [-e MAX] [-f FACTOR | -i STEP] [--type T]\n"
           "                  [--out tuning.json] [--plot FILE.png] [--cfg NAME:VALUE]\n"
           "                  [--profile P] [--jobs N] [--exhaustive]\n\n"
           "Search, for every size, the topology factorisations the platform's hierarchy allows (e.g.\n"
           "4x16x4, 4x64, 2x2x16x4, 256), rings per dimension (1..8), algorithms (multiring, ring, rd,\n"
           "rabenseifner, hier), each dimension's algorithm (ring, halving, doubling), chunks and 1 MiB\n"
           "pipelining: rank them with the closed-form model on the platform's links, simulate the best\n"
           "few and the best of each algorithm, and print the fastest simulated configuration with its\n"
           "speed-up over the flat ring and over rabenseifner.\n\n"
           "  --platform FILE   SimGrid platform with mring_rank hosts and mring_topo (required)\n"
           "  -b, -e, -f, -i    size sweep (default 1K..1G, factor 2)\n"
           "  --type T          element type (default float32)\n"
           "  --out FILE        write the tuning file (JSON: size ranges -> configuration) for the executor\n"
           "  --plot FILE.png   draw busbw against size for the best configuration of each algorithm (gnuplot)\n"
           "  --jobs N          tune N sizes at once in worker processes (default: the number of cores;\n"
           "                    under an MPI launcher 1 per rank)\n"
           "  --exhaustive      simulate every candidate and its pipelining variants instead of the model's\n"
           "                    shortlist: the reference the tuner's own regret is measured against (slow)\n"
           "  --cfg NAME:VALUE  a SimGrid option (repeatable)\n" CLI_PROFILE_HELP);
}

enum { OPT_PLATFORM = OPT_FIRST_FREE, OPT_OUT, OPT_PLOT, OPT_JOBS, OPT_EXHAUSTIVE };

typedef struct tune_opts {
    const char *platform, *out, *plot, *type;
    int jobs, exhaustive;
    cli_cfgs_t cfgs;
    cli_sweep_t sweep;
} tune_opts_t;

static void parse(const char *cmd, int argc, char **argv, tune_opts_t *o)
{
    static const struct option opts[] = {CLI_SWEEP_OPTIONS,
                                         {"platform", required_argument, 0, OPT_PLATFORM},
                                         {"out", required_argument, 0, OPT_OUT},
                                         {"plot", required_argument, 0, OPT_PLOT},
                                         {"jobs", required_argument, 0, OPT_JOBS},
                                         {"exhaustive", no_argument, 0, OPT_EXHAUSTIVE},
                                         {"type", required_argument, 0, OPT_TYPE},
                                         CLI_CFG_OPTION,
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    int opt;
    while ((opt = cli_getopt(cmd, argc, argv, "b:e:f:i:h", opts)) != -1) {
        if (cli_sweep_opt(cmd, &o->sweep, opt, optarg) || cli_cfg_opt(cmd, &o->cfgs, opt, optarg))
            continue;
        switch (opt) {
        case OPT_PLATFORM: o->platform = optarg; break;
        case OPT_OUT: cli_check_output(cmd, "--out", optarg), o->out = optarg; break;
        case OPT_PLOT: cli_check_output(cmd, "--plot", optarg), o->plot = optarg; break;
        case OPT_EXHAUSTIVE: o->exhaustive = 1; break;
        case OPT_JOBS: o->jobs = cli_int(cmd, "--jobs", optarg, 1, 64); break;
        case OPT_TYPE: o->type = optarg; break;
        case 'h': help(); exit(0);
        }
    }
    if (optind < argc)
        cli_usage_error(cmd, "unexpected argument '%s'", argv[optind]);
    if (!o->platform)
        cli_usage_error(cmd, "--platform is required (e.g. --platform platforms/minsky-64.xml)");
}

static void print_row(const mring_tune_size_t *s, int P)
{
    char d[256];
    mring_config_describe(&s->best.c, d, sizeof d);
    printf("  %12lld  %-64s %11.2f %8.2f %8.2fx %8.2fx\n", (long long)s->size, d, s->best.time * 1e6,
           mring_busbw_gbps(s->size, s->best.time * 1e6, P), s->best.time > 0 ? s->ring_time / s->best.time : 1.0,
           s->best.time > 0 ? s->rabenseifner_time / s->best.time : 1.0);
    fflush(stdout);
}

/* Print each size's row as it comes in, and on a terminal what is being tuned next. */
static void row_done(int i, const mring_tune_size_t *s, void *arg)
{
    const int *P_n = arg;
    if (isatty(2))
        fprintf(stderr, "\r\033[K");
    print_row(s, P_n[0]);
    if (isatty(2) && i + 1 < P_n[1])
        fprintf(stderr, "\rtune: size %d/%d...", i + 2, P_n[1]);
}

int cmd_tune(int argc, char **argv)
{
    const char *cmd = "tune";
    static tune_opts_t o; /* large (--cfg buffers): not on the stack */
    mring_platform_t pf;
    mring_dtype_t dtype = MRING_FLOAT32;
    int64_t sizes[4096];
    char err[1024], topo[64];
    int n, rank, nprocs;
    o.sweep = (cli_sweep_t){1024, 1 << 30, 0, 2, "1K", "1G", NULL};
    parse(cmd, argc, argv, &o);
    if (o.type && mring_dtype_parse(o.type, &dtype))
        cli_usage_error(cmd, "--type '%s' is unknown; expected one of %s", o.type, mring_dtype_list());
    n = cli_sweep_sizes(cmd, &o.sweep, (int64_t)mring_dtype_size(dtype), sizes, 4096);
    if (mring_tune_mpi_start(&rank, &nprocs))
        cli_fail(cmd, "started by an MPI launcher, but MPI could not be initialised (or mring was built without MPI, or with "
                      "AddressSanitizer, whose runtime refuses MPICH's RTLD_DEEPBIND load)");
    if (rank > 0 && !freopen("/dev/null", "w", stdout)) /* rank 0 prints and writes */
        cli_fail(cmd, "rank %d: cannot silence stdout", rank);
    cli_platform_load(cmd, &o.cfgs, o.platform, &pf);
    mring_tune_t *t = mring_tune_new(&pf, mring_dtype_size(dtype),
                                     (o.plot ? MRING_TUNE_EVERY_ALGO : 0) | (o.exhaustive ? MRING_TUNE_EXHAUSTIVE : 0));
    mring_tune_size_t *res = calloc((size_t)n, sizeof *res);
    if (!t || !res)
        cli_fail(cmd, "out of memory");
    printf("# mring tune: platform %s, %d ranks (natural topology %s), %s, %d candidate configurations\n",
           o.platform, pf.nranks, mring_topo_format(&pf.topo, topo, sizeof topo), mring_dtype_name(dtype),
           mring_tune_ncandidates(t));
    printf("# %12s  %-64s %11s %8s %9s %9s\n#%14s  %-64s %11s %8s %9s %9s\n", "size", "best configuration",
           "time", "busbw", "vs ring", "vs raben.", "(B)", "", "(us)", "(GB/s)", "", "");
    fflush(stdout);
    /* under MPI one process per core is the launcher's business: each rank tunes in-process by default */
    int jobs = o.jobs > 0 ? o.jobs : nprocs > 1 ? 1 : (int)sysconf(_SC_NPROCESSORS_ONLN), P_n[2] = {pf.nranks, n};
    if (isatty(2) && rank == 0)
        fprintf(stderr, "tune: size 1/%d...", n);
    if ((nprocs > 1 ? mring_tune_sweep_mpi : mring_tune_sweep)(t, sizes, n, jobs, res, row_done, P_n, err, sizeof err))
        cli_fail(cmd, "%s", err);
    if (rank > 0)
        o.out = o.plot = NULL;
    if (o.out && mring_tune_write_file(o.out, o.platform, res, n, pf.nranks, mring_dtype_name(dtype), err, sizeof err))
        cli_fail(cmd, "%s", err);
    if (o.plot && mring_tune_plot(o.plot, res, n, pf.nranks, err, sizeof err))
        cli_fail(cmd, "%s", err);
    mring_tune_free(t);
    free(res);
    free(pf.hosts);
    mring_tune_mpi_end(nprocs);
    return 0;
}
