/* cli_scaling.c - `mring scaling`: predicted training throughput and scaling efficiency (scaling.h). */
#include "cli.h"

#include "plot.h"
#include "scaling.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_GPUS_LIST 64

static void help(void)
{
    printf("usage: mring scaling --platform FILE [--workload NAME|FILE] [--batch B] [--gpus N1,N2,...]\n"
           "                     [--bucket BYTES] [--overlap on|off] [--topo T] [--algo A] [--rings R]\n"
           "                     [--dim-algo LIST] [--segment BYTES] [--type T] [--tuning FILE]\n"
           "                     [--format table|csv|json] [--plot FILE.png] [--cfg NAME:VALUE]\n\n"
           "Predict data-parallel training speed: for each GPU count, one iteration on the platform's\n"
           "first N GPUs.  Forward, then backward releasing gradients layer by layer into buckets; each\n"
           "bucket's allreduce starts when its last gradient is ready and all of them are simulated in\n"
           "one SimGrid run (they share the network).  iteration = forward + max(backward, last\n"
           "allreduce end); efficiency = per-GPU images/s against one node (the platform's first\n"
           "dimension).  Not modelled: optimizer step, data loading, compute slowed by reductions.\n\n"
           "  --platform FILE   SimGrid platform with the mring conventions (e.g. platforms/minsky-64.xml)\n"
           "  --workload W      a profile in platforms/workloads (resnet50 (default), resnet101,\n"
           "                    resnet101-22k) or a JSON file (see platforms/workloads/README.md)\n"
           "  --batch B         images per GPU (default: the profile's)\n"
           "  --gpus LIST       GPU counts (default: one node, doubling up to the whole platform); each\n"
           "                    must fill whole groups of the inner dimensions (4x16x4: 4, 8, 12, 64, 128)\n"
           "  --bucket BYTES    gradient bucket cap (default 25M = 25 MiB, PyTorch DDP's bucket_cap_mb);\n"
           "                    0 = one fused allreduce after backward\n"
           "  --overlap on|off  allreduce during backward (default on); off: every bucket after backward\n"
           "  (--topo is the whole platform's grid, default its mring_topo; N GPUs use its first N ranks:\n"
           "   4x16x4 gives 4x2 on 8 GPUs, 4x16x2 on 128; --rings and --dim-algo per dimension likewise)\n%s"
           "  --tuning FILE     a `mring tune --out` file: used for the bucket sizes at its rank count\n"
           "  --format F        table (default), csv or json\n"
           "  --plot FILE.png   also draw efficiency against GPUs for multiring (as configured), ring,\n"
           "                    rabenseifner and hier (gnuplot)\n"
           "  --cfg NAME:VALUE  a SimGrid option (repeatable)\n",
           cli_conf_help);
}

enum { OPT_PLATFORM = OPT_FIRST_FREE, OPT_WORKLOAD, OPT_BATCH, OPT_GPUS, OPT_BUCKET, OPT_OVERLAP, OPT_TUNING,
       OPT_FORMAT, OPT_PLOT };

typedef struct scaling_cli {
    const char *platform, *workload, *tuning, *plot, *batch_s;
    cli_cfgs_t cfgs;
    int gpus[MAX_GPUS_LIST], ngpus, overlap;
    int64_t bucket;
    mring_format_t fmt;
} scaling_cli_t;

static void parse_gpus(const char *cmd, const char *s, scaling_cli_t *o)
{
    char buf[512], *save = NULL;
    if (strlen(s) >= sizeof buf)
        cli_usage_error(cmd, "--gpus '%.40s...' is too long", s);
    strcpy(buf, s);
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (o->ngpus == MAX_GPUS_LIST)
            cli_usage_error(cmd, "--gpus has more than %d counts", MAX_GPUS_LIST);
        o->gpus[o->ngpus++] = cli_int(cmd, "--gpus", t, 1, MRING_MAX_RANKS);
    }
    if (o->ngpus == 0)
        cli_usage_error(cmd, "--gpus '%s' names no GPU count", s);
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
        case OPT_TUNING: o->tuning = optarg; break;
        case OPT_FORMAT:
            if (mring_format_parse(optarg, &o->fmt))
                cli_usage_error(cmd, "--format '%s' is unknown; expected table, csv or json", optarg);
            break;
        case OPT_PLOT: o->plot = optarg; break;
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

/* Run the sweep: steps[i] for o->gpus[i], efficiency against the one-node step. Exits on failure. */
static void sweep(const char *cmd, const mring_platform_t *pf, const mring_scaling_opts_t *so,
                  const scaling_cli_t *o, mring_step_t *steps)
{
    mring_step_t base;
    char err[1024];
    int rc;
    for (int i = 0; i < o->ngpus; i++)
        if ((rc = mring_scaling_step(pf, so, o->gpus[i], &steps[i], err, sizeof err)))
            (rc == 2 ? cli_usage_error : cli_fail)(cmd, "%s", err);
    if ((rc = mring_scaling_step(pf, so, pf->topo.dims[0], &base, err, sizeof err)))
        (rc == 2 ? cli_usage_error : cli_fail)(cmd, "one node: %s", err);
    mring_scaling_efficiency(steps, o->ngpus, &base);
}

/* The output: a table or CSV row per GPU count, or one JSON document. */
static void print_header(const mring_scaling_opts_t *so, const scaling_cli_t *o, const mring_platform_t *pf)
{
    const mring_workload_t *w = so->w;
    char topo[64], rings[64];
    mring_topo_format(&so->proto->topo, topo, sizeof topo);
    mring_rings_format(so->proto, rings, sizeof rings);
    printf("# mring scaling: %s (%lld parameters, %.1f MiB of gradients), batch %d per GPU, %s, overlap %s\n",
           w->name, (long long)w->parameters, (double)w->parameters * (double)so->proto->elsize / (1 << 20),
           so->batch, so->bucket_bytes ? "buckets" : "one fused allreduce", so->overlap ? "on" : "off");
    if (so->bucket_bytes)
        printf("# bucket cap %lld bytes (%.1f MiB)\n", (long long)so->bucket_bytes, so->bucket_bytes / 1048576.0);
    printf("# platform %s (%s, %d GPUs, one node = %d GPUs); %s rings %s%s%s\n", o->platform, topo, pf->nranks,
           pf->topo.dims[0], mring_algo_name(so->proto->algo), rings, o->tuning ? "; tuning " : "",
           o->tuning ? o->tuning : "");
    printf("# compute per GPU and iteration: forward %.2f ms + backward %.2f ms (%s: %.1f img/s at batch %d,\n"
           "#   backward share %.3f, throughput taken as independent of batch; %s)\n",
           1e3 * (mring_workload_iter_s(w, so->batch) - mring_workload_backward_s(w, so->batch)),
           1e3 * mring_workload_backward_s(w, so->batch), w->gpu, w->ref_images_per_s, w->ref_batch,
           w->backward_share, w->source);
    printf("# %6s %-10s %7s %10s %10s %10s %10s %10s %10s\n", "gpus", "topo", "buckets", "compute_ms", "comm_ms",
           "exposed_ms", "iter_ms", "images/s", "efficiency");
}

static void print_table(const mring_step_t *s, int n)
{
    for (int i = 0; i < n; i++)
        printf("  %6d %-10s %7d %10.2f %10.2f %10.2f %10.2f %10.1f %9.1f%%\n", s[i].gpus, s[i].topo, s[i].nbuckets,
               1e3 * (s[i].forward_s + s[i].backward_s), 1e3 * s[i].comm_s, 1e3 * s[i].exposed_s, 1e3 * s[i].iter_s,
               s[i].images_per_s, 100 * s[i].efficiency);
}

static void print_csv(const mring_scaling_opts_t *so, const mring_step_t *s, int n)
{
    char rings[64];
    mring_rings_format(so->proto, rings, sizeof rings);
    printf("workload,gpus,topo,algo,rings,batch,buckets,tuned_buckets,forward_ms,backward_ms,comm_ms,exposed_ms,"
           "iter_ms,images_per_s,efficiency\n");
    for (int i = 0; i < n; i++)
        printf("%s,%d,%s,%s,%s,%d,%d,%d,%.6f,%.6f,%.6f,%.6f,%.6f,%.3f,%.6f\n", so->w->name, s[i].gpus, s[i].topo,
               mring_algo_name(so->proto->algo), rings, so->batch, s[i].nbuckets, s[i].tuned, 1e3 * s[i].forward_s,
               1e3 * s[i].backward_s, 1e3 * s[i].comm_s, 1e3 * s[i].exposed_s, 1e3 * s[i].iter_s,
               s[i].images_per_s, s[i].efficiency);
}

static int print_json(const mring_scaling_opts_t *so, const scaling_cli_t *o, const mring_step_t *s, int n)
{
    json_t *rows = json_array(), *doc;
    char rings[64];
    int rc;
    for (int i = 0; rows && i < n; i++)
        if (json_array_append_new(rows, json_pack("{s:i,s:s,s:i,s:i,s:f,s:f,s:f,s:f,s:f,s:f,s:f}", "gpus", s[i].gpus,
                                                  "topo", s[i].topo, "buckets", s[i].nbuckets, "tuned_buckets",
                                                  s[i].tuned, "forward_ms", 1e3 * s[i].forward_s, "backward_ms",
                                                  1e3 * s[i].backward_s, "comm_ms", 1e3 * s[i].comm_s, "exposed_ms",
                                                  1e3 * s[i].exposed_s, "iter_ms", 1e3 * s[i].iter_s,
                                                  "images_per_s", s[i].images_per_s, "efficiency", s[i].efficiency)))
            rows = NULL;
    doc = rows ? json_pack("{s:s,s:s,s:I,s:i,s:I,s:s,s:s,s:b,s:o}", "workload", so->w->name, "platform", o->platform,
                           "parameters", (json_int_t)so->w->parameters, "batch", so->batch, "bucket_bytes",
                           (json_int_t)so->bucket_bytes, "algo", mring_algo_name(so->proto->algo), "rings",
                           mring_rings_format(so->proto, rings, sizeof rings), "overlap", so->overlap, "rows", rows)
               : NULL;
    rc = !doc || json_dumpf(doc, stdout, JSON_INDENT(1)) || printf("\n") < 0;
    json_decref(doc);
    return rc;
}

/* ---- --plot: efficiency against GPUs for the configured algorithm and the usual alternatives ---- */

#define NSERIES 4
typedef struct plot_data {
    const char *title[NSERIES];
    mring_step_t *steps[NSERIES]; /* NULL entries: no such series */
    int n, batch;
    const char *workload, *platform;
} plot_data_t;

static int plot_data(FILE *f, void *arg)
{
    const plot_data_t *p = arg;
    for (int k = 0; k < NSERIES; k++) {
        fprintf(f, "# %s\n", p->title[k]);
        for (int i = 0; p->steps[k] && i < p->n; i++)
            if (p->steps[k][i].iter_s > 0)
                fprintf(f, "%d %g\n", p->steps[k][i].gpus, 100 * p->steps[k][i].efficiency);
        fprintf(f, "\n\n");
    }
    return 0;
}

static void plot_script(FILE *g, const char *data, void *arg)
{
    const plot_data_t *p = arg;
    fprintf(g, "set logscale x 2\nset xlabel 'GPUs'\nset ylabel 'scaling efficiency against one node (%%)'\n"
               "set key left bottom\nset grid\nset title 'mring scaling: %s, batch %d per GPU, on %s (simulated)'\nplot ",
            p->workload, p->batch, p->platform);
    for (int k = 0; k < NSERIES; k++)
        fprintf(g, "%s'%s' index %d using 1:2 with linespoints title '%s'", k ? ", " : "", data, k, p->title[k]);
    fprintf(g, "\n");
}

/* The sweep again for ring, rabenseifner and hier (one ring each); a count an algorithm refuses is
 * left out of its line. */
static void plot(const char *cmd, const mring_platform_t *pf, const mring_scaling_opts_t *so, const scaling_cli_t *o,
                 mring_step_t *main_steps)
{
    static const mring_algo_t others[] = {MRING_ALGO_RING, MRING_ALGO_RABENSEIFNER, MRING_ALGO_HIER};
    const char *file = strrchr(o->platform, '/');
    plot_data_t p = {{mring_algo_name(so->proto->algo)}, {main_steps}, o->ngpus, so->batch, so->w->name,
                     file ? file + 1 : o->platform};
    char err[1024];
    for (int k = 1; k < NSERIES; k++) {
        mring_config_t c;
        mring_config_default(&c, &so->proto->topo);
        c.algo = others[k - 1];
        c.elsize = so->proto->elsize;
        mring_scaling_opts_t alt = *so;
        alt.proto = &c;
        alt.tuning = NULL;
        p.title[k] = mring_algo_name(c.algo);
        if (!(p.steps[k] = calloc((size_t)o->ngpus, sizeof *p.steps[k])))
            cli_fail(cmd, "out of memory");
        mring_step_t base;
        if (mring_scaling_step(pf, &alt, pf->topo.dims[0], &base, err, sizeof err))
            continue;
        for (int i = 0; i < o->ngpus; i++)
            if (mring_scaling_step(pf, &alt, o->gpus[i], &p.steps[k][i], err, sizeof err))
                p.steps[k][i].iter_s = 0;
        mring_scaling_efficiency(p.steps[k], o->ngpus, &base);
    }
    if (mring_plot_png(o->plot, plot_data, plot_script, &p, err, sizeof err))
        cli_fail(cmd, "%s", err);
    for (int k = 1; k < NSERIES; k++)
        free(p.steps[k]);
    if (o->fmt == MRING_FMT_TABLE)
        printf("# plot: %s (%s, ring, rabenseifner, hier)\n", o->plot, mring_algo_name(so->proto->algo));
}

int cmd_scaling(int argc, char **argv)
{
    const char *cmd = "scaling";
    static scaling_cli_t o; /* large (--cfg buffers): not on the stack */
    cli_conf_t cc = {0};
    mring_platform_t pf;
    mring_workload_t w;
    mring_config_t c;
    mring_dtype_t dtype;
    mring_tuning_t *tuning = NULL;
    char err[1024], topo[128];
    o.bucket = 25 << 20;
    o.overlap = 1;
    parse(cmd, argc, argv, &cc, &o);
    int rc = mring_workload_load(o.workload ? o.workload : "resnet50", &w, err, sizeof err);
    if (rc)
        (rc == 2 ? cli_usage_error : cli_fail)(cmd, "%s", err);
    cli_platform_load(cmd, &o.cfgs, o.platform, &pf);
    cli_platform_topo(cmd, &pf, &cc, topo, sizeof topo);
    cli_conf_build(cmd, &cc, 0, NULL, &c, &dtype);
    if (o.tuning && !(tuning = mring_tuning_load(o.tuning, err, sizeof err)))
        cli_usage_error(cmd, "%s", err);
    if (!o.ngpus)
        default_gpus(&pf, &o);
    mring_scaling_opts_t so = {&w, o.batch_s ? cli_int(cmd, "--batch", o.batch_s, 1, 1 << 20) : w.default_batch,
                               o.bucket, o.overlap, &c, tuning};
    mring_step_t *steps = calloc((size_t)o.ngpus, sizeof *steps);
    if (!steps)
        cli_fail(cmd, "out of memory");
    sweep(cmd, &pf, &so, &o, steps);
    if (o.fmt == MRING_FMT_TABLE) {
        print_header(&so, &o, &pf);
        print_table(steps, o.ngpus);
    } else if (o.fmt == MRING_FMT_CSV) {
        print_csv(&so, steps, o.ngpus);
    } else if (print_json(&so, &o, steps, o.ngpus)) {
        cli_fail(cmd, "writing the report failed");
    }
    if (o.plot)
        plot(cmd, &pf, &so, &o, steps);
    free(steps);
    mring_tuning_free(tuning);
    mring_workload_free(&w);
    free(pf.hosts);
    return fflush(stdout) ? 1 : 0;
}
