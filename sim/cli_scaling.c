/* cli_scaling.c - `mring scaling`: predicted training throughput and scaling efficiency (scaling.h);
 * its output is in scaling_out.c. */
#include "scaling_cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void help(void)
{
    printf("usage: mring scaling --platform FILE [--workload NAME|FILE] [--batch B] [--gpus N1,N2,...]\n"
           "                     [--bucket BYTES] [--overlap on|off] [--inflight K] [--topo T] [--algo A]\n"
           "                     [--rings R] [--dim-algo LIST] [--segment BYTES] [--chunks C] [--embed E]\n"
           "                     [--type T] [--tuning FILE]\n"
           "                     [--format table|csv|json] [--plot FILE.png] [--cfg NAME:VALUE]\n"
           "                  [--profile P]\n\n"
           "Predict data-parallel training speed: for each GPU count, one iteration on the platform's\n"
           "first N GPUs.  Forward, then backward releasing gradients layer by layer into buckets; a\n"
           "bucket's allreduce is issued when its last gradient is ready, in bucket order, and all of them\n"
           "are simulated in one SimGrid run (those in flight together share the network).\n"
           "  iteration  = forward + max(backward, end of the last allreduce)\n"
           "  comm_ms    = time with at least one allreduce in flight; exposed_ms = iteration - compute\n"
           "  efficiency = images/s per GPU against one node (the platform's first dimension); below one\n"
           "               node it can pass 100%% (one node's own allreduce is then not needed)\n"
           "Not modelled: optimizer step, data loading, stragglers, per-call launch overheads, compute\n"
           "slowed by the reductions sharing the GPU.\n\n"
           "  --platform FILE   SimGrid platform with the mring conventions (e.g. platforms/minsky-64.xml)\n"
           "  --workload W      a profile in platforms/workloads (resnet50 (default), resnet101,\n"
           "                    resnet101-22k) or a JSON file (see platforms/workloads/README.md)\n"
           "  --batch B         images per GPU (default: the profile's)\n"
           "  --gpus LIST       GPU counts, each once (default: one node, doubling up to the whole\n"
           "                    platform); fewer than a node, or whole groups of the inner dimensions\n"
           "                    (4x16x4: 1..4, 8, 12, ..., 64, 128, 192, 256)\n"
           "  --bucket BYTES    gradient bucket cap (default 25M = 25 MiB, PyTorch DDP's bucket_cap_mb);\n"
           "                    0 = one fused allreduce after backward\n"
           "  --overlap on|off  allreduce during backward (default on); off: every bucket after backward\n"
           "  --inflight K      allreduces in flight per GPU: 1 (default) = issued in order on one stream,\n"
           "                    as NCCL under PyTorch DDP; 0 = no limit (Gloo runs several at once)\n"
           "  (--topo is the whole platform's grid, default its mring_topo; N GPUs use its first N ranks:\n"
           "   4x16x4 gives 4x2 on 8 GPUs, 4x16x2 on 128; --rings and --dim-algo per dimension likewise)\n%s"
           "                    (--type is the gradients' type: float16 halves the bytes)\n"
           "  --tuning FILE     a `mring tune --out` file: used for the bucket sizes at its rank count\n"
           "  --format F        table (default), csv or json\n"
           "  --plot FILE.png   also draw efficiency against GPUs for this configuration, ring,\n"
           "                    rabenseifner and hier, all against this configuration's one node (gnuplot)\n"
           "  --cfg NAME:VALUE  a SimGrid option (repeatable)\n" CLI_PROFILE_HELP,
           cli_conf_help());
}

enum { OPT_PLATFORM = OPT_FIRST_FREE, OPT_WORKLOAD, OPT_BATCH, OPT_GPUS, OPT_BUCKET, OPT_OVERLAP, OPT_INFLIGHT,
       OPT_TUNING, OPT_FORMAT, OPT_PLOT };

/* --gpus: comma-separated counts, none empty, none twice. */
static void parse_gpus(const char *cmd, const char *s, scaling_cli_t *o)
{
    const char *p = s;
    o->ngpus = 0;
    for (;;) {
        size_t len = strcspn(p, ",");
        char item[32];
        if (len == 0 || len >= sizeof item)
            cli_usage_error(cmd, "--gpus '%s' has an empty or overlong entry; expected counts like 4,8,16", s);
        memcpy(item, p, len);
        item[len] = '\0';
        if (o->ngpus == MAX_GPUS_LIST)
            cli_usage_error(cmd, "--gpus '%s' has more than %d counts", s, MAX_GPUS_LIST);
        int n = cli_int(cmd, "--gpus", item, 1, MRING_MAX_RANKS);
        for (int i = 0; i < o->ngpus; i++)
            if (o->gpus[i] == n)
                cli_usage_error(cmd, "--gpus '%s' lists %d twice", s, n);
        o->gpus[o->ngpus++] = n;
        if (!p[len])
            break;
        p += len + 1;
    }
}

static void parse(const char *cmd, int argc, char **argv, cli_conf_t *cc, scaling_cli_t *o)
{
    static const struct option opts[] = {CLI_CONF_OPTIONS,
                                         {"platform", required_argument, 0, OPT_PLATFORM},
                                         {"workload", required_argument, 0, OPT_WORKLOAD},
                                         {"batch", required_argument, 0, OPT_BATCH},
                                         {"gpus", required_argument, 0, OPT_GPUS},
                                         {"bucket", required_argument, 0, OPT_BUCKET},
                                         {"overlap", required_argument, 0, OPT_OVERLAP},
                                         {"inflight", required_argument, 0, OPT_INFLIGHT},
                                         {"tuning", required_argument, 0, OPT_TUNING},
                                         {"format", required_argument, 0, OPT_FORMAT},
                                         {"plot", required_argument, 0, OPT_PLOT},
                                         CLI_CFG_OPTION,
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    int opt;
    while ((opt = cli_getopt(cmd, argc, argv, "h", opts)) != -1) {
        if (cli_conf_opt(cc, opt, optarg) || cli_cfg_opt(cmd, &o->cfgs, opt, optarg))
            continue;
        switch (opt) {
        case OPT_PLATFORM: o->platform = optarg; break;
        case OPT_WORKLOAD: o->workload = optarg; break;
        case OPT_BATCH: o->batch_s = optarg; break;
        case OPT_GPUS: parse_gpus(cmd, optarg, o); break;
        case OPT_BUCKET: o->bucket = cli_size(cmd, "--bucket", optarg); break;
        case OPT_OVERLAP:
            if (strcmp(optarg, "on") && strcmp(optarg, "off"))
                cli_usage_error(cmd, "--overlap '%s' is unknown; expected on or off", optarg);
            o->overlap = !strcmp(optarg, "on");
            break;
        case OPT_INFLIGHT: o->inflight = cli_int(cmd, "--inflight", optarg, 0, 1 << 20); break;
        case OPT_TUNING: o->tuning = optarg; break;
        case OPT_FORMAT:
            if (mring_format_parse(optarg, &o->fmt))
                cli_usage_error(cmd, "--format '%s' is unknown; expected table, csv or json", optarg);
            break;
        case OPT_PLOT: cli_check_output(cmd, "--plot", optarg), o->plot = optarg; break;
        case 'h': help(); exit(0);
        }
    }
    if (optind < argc)
        cli_usage_error(cmd, "unexpected argument '%s'", argv[optind]);
    if (!o->platform)
        cli_usage_error(cmd, "--platform is required (e.g. --platform platforms/minsky-64.xml)");
}

/* Default GPU counts: one node, doubling while below the platform, then the whole platform. */
static void default_gpus(const mring_platform_t *pf, scaling_cli_t *o)
{
    for (int n = pf->topo.dims[0]; n < pf->nranks && o->ngpus < MAX_GPUS_LIST - 1; n *= 2)
        o->gpus[o->ngpus++] = n;
    o->gpus[o->ngpus++] = pf->nranks;
}

/* --plot: the command line's configuration and ring, rabenseifner and hier (those that refuse a count
 * draw no line), all against the configuration's one-node iteration. */
static void plot(const char *cmd, const mring_platform_t *pf, const mring_scaling_opts_t *so, const scaling_cli_t *o,
                 const mring_step_t *base, const mring_step_t *steps)
{
    static const mring_algo_t others[] = {MRING_ALGO_RING, MRING_ALGO_RABENSEIFNER, MRING_ALGO_HIER};
    enum { NOTHERS = sizeof others / sizeof *others };
    scaling_series_t series[1 + NOTHERS] = {{mring_algo_name(so->proto->algo), steps}};
    mring_step_t *alt_steps[NOTHERS];
    char err[1024];
    for (int k = 0; k < NOTHERS; k++) {
        mring_config_t c;
        mring_scaling_opts_t alt = *so;
        mring_step_t b = *base;
        mring_config_default(&c, &so->proto->topo);
        c.algo = others[k];
        alt.proto = &c;
        alt.tuning = NULL;
        if (!(alt_steps[k] = calloc((size_t)o->ngpus, sizeof *alt_steps[k])))
            cli_fail(cmd, "out of memory");
        series[k + 1] = (scaling_series_t){mring_algo_name(c.algo), alt_steps[k]};
        if (mring_scaling_sweep(pf, &alt, o->gpus, o->ngpus, o->node, &b, alt_steps[k], err, sizeof err))
            series[k + 1].steps = NULL;
    }
    scaling_plot(cmd, so, o, series, 1 + NOTHERS);
    for (int k = 0; k < NOTHERS; k++)
        free(alt_steps[k]);
}

/* The configuration: flags, tuning file, options of the sweep. */
static void setup(const char *cmd, const mring_platform_t *pf, cli_conf_t *cc, scaling_cli_t *o, mring_config_t *c,
                  mring_tuning_t **tuning)
{
    char err[1024], topo[128];
    cli_platform_topo(cmd, pf, cc, topo, sizeof topo);
    cli_conf_build(cmd, cc, 0, NULL, c, &o->dtype);
    if (o->tuning && !(*tuning = mring_tuning_load(o->tuning, err, sizeof err)))
        cli_usage_error(cmd, "%s", err);
    if (!o->ngpus)
        default_gpus(pf, o);
    o->node = pf->topo.dims[0];
}

int cmd_scaling(int argc, char **argv)
{
    const char *cmd = "scaling";
    static scaling_cli_t o = {.bucket = 25 << 20, .overlap = 1, .inflight = 1}; /* large: not on the stack */
    cli_conf_t cc = {0};
    mring_platform_t pf;
    mring_workload_t w;
    mring_config_t c;
    mring_tuning_t *tuning = NULL;
    char err[1024];
    parse(cmd, argc, argv, &cc, &o);
    if (cc.embed_s && strcmp(cc.embed_s, "natural"))
        cli_usage_error(cmd, "--embed '%s': mring scaling runs each GPU count on a sub-grid of the platform, "
                        "which an embedding of the whole grid does not fit; use mring simulate or tune per count",
                        cc.embed_s);
    int rc = mring_workload_load(o.workload ? o.workload : "resnet50", &w, err, sizeof err);
    if (rc)
        (rc == 2 ? cli_usage_error : cli_fail)(cmd, "%s", err);
    cli_platform_load(cmd, &o.cfgs, o.platform, &pf);
    setup(cmd, &pf, &cc, &o, &c, &tuning);
    mring_scaling_opts_t so = {.w = &w, .batch = o.batch_s ? cli_int(cmd, "--batch", o.batch_s, 1, 1 << 20) : w.default_batch,
                               .bucket_bytes = o.bucket, .overlap = o.overlap, .inflight = o.inflight, .proto = &c,
                               .elsize = mring_dtype_size(o.dtype), .tuning = tuning};
    mring_step_t *steps = calloc((size_t)o.ngpus, sizeof *steps), base = {0};
    if (!steps)
        cli_fail(cmd, "out of memory");
    if ((rc = mring_scaling_sweep(&pf, &so, o.gpus, o.ngpus, o.node, &base, steps, err, sizeof err)))
        (rc == 2 ? cli_usage_error : cli_fail)(cmd, "%s", err);
    if (o.fmt == MRING_FMT_TABLE)
        scaling_print_table(&so, &o, &pf, steps);
    else if (o.fmt == MRING_FMT_CSV)
        scaling_print_csv(&so, &o, steps);
    else if (scaling_print_json(&so, &o, steps))
        cli_fail(cmd, "writing the report failed");
    if (o.plot)
        plot(cmd, &pf, &so, &o, &base, steps);
    free(steps);
    mring_tuning_free(tuning);
    mring_workload_free(&w);
    free(pf.hosts);
    return fflush(stdout) ? 1 : 0;
}
