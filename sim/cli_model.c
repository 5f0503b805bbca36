/* cli_model.c - `mring model`: predicted allreduce time per size from the alpha-beta-gamma model. */
#include "cli.h"

#include "cost.h"
#include "units.h"
#ifdef MRING_HAVE_SIMGRID
#include "sim.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void help(void)
{
    printf("usage: mring model --topo T [--algo A] [--rings R] [--segment BYTES] --links LAT:BW[:SHARE],...\n"
           "       mring model --platform FILE [--topo T] [...]\n"
           "                   [--gamma BW] [-b MIN] [-e MAX] [-f FACTOR | -i STEP] [--type T] [--op OP]\n"
           "                   [--inplace] [--method closed|walk] [--format table|csv|json] [--profile P]\n\n"
           "Predict the allreduce time per size with the alpha-beta-gamma model (Thakur, Rabenseifner and\n"
           "Gropp, IJHPCA 2005) on the link hierarchy of the topology.  Output follows nccl-tests:\n"
           "algbw = size/time, busbw = algbw * 2(P-1)/P, GB/s = 1e9 bytes/s; size is bytes per rank.\n\n%s"
           "  --links LIST      one LAT:BW[:SHARE] per dimension, SimGrid units (1us, 36GBps, 100Gbps).\n"
           "                    LAT:BW is a point-to-point link to each ring neighbour (NVLink);\n"
           "                    LAT:BW:SHARE is a network port shared by SHARE consecutive ranks\n"
           "                    (e.g. 4 GPUs behind one EDR port: 2us:12.5GBps:4).  Required\n"
           "  --platform FILE   take the links from a SimGrid platform instead: dimension i is the route from\n"
           "                    rank 0 to its neighbour in dimension i (latency summed, narrowest bandwidth,\n"
           "                    shared when other ranks' routes cross the same narrowest link); gamma is the\n"
           "                    rank host's speed; --topo defaults to the platform's mring_topo\n"
           "  --gamma BW        reduction throughput per GPU (bytes of result per second, e.g. 240GBps\n"
           "                    for a P100's 720 GB/s over 3 bytes moved per byte reduced); default: free\n"
           "  -b, --minbytes S  smallest size (K/M/G = powers of two), default 32M\n"
           "  -e, --maxbytes S  largest size, default 32M\n"
           "  -f, --stepfactor F  multiply the size by F (> 1), default 2\n"
           "  -i, --stepbytes S   or add S bytes per step\n"
           "  --op OP           sum (default), prod, min, max, avg, land, lor, lxor, band, bor, bxor, maxloc,\n"
           "                    minloc (shown only; the model is op-blind)\n"
           "  --inplace         model an in-place call (no copy of the send buffer)\n"
           "  --method M        closed: the closed form; walk: walk every rank's schedule, its pipelines\n"
           "                    (--segment pieces, --chunks) step by step.  Default: closed, walk when\n"
           "                    --segment or --chunks is set\n"
           "  --format F        table (default), csv or json\n" CLI_PROFILE_HELP,
           cli_conf_help());
}

enum { OPT_LINKS = OPT_FIRST_FREE, OPT_GAMMA, OPT_OP, OPT_INPLACE, OPT_METHOD, OPT_FORMAT, OPT_PLATFORM };

/* Per-dimension links from a SimGrid platform's routes (sim.h), or an error without SimGrid. */
static void platform_links(const char *cmd, const char *file, cli_conf_t *cc, char *topo, size_t topolen,
                           mring_cost_params_t *p, int gamma_given)
{
#ifdef MRING_HAVE_SIMGRID
    mring_platform_t pf;
    mring_topo_t t;
    char err[256];
    double gamma = p->gamma_bw;
    cli_platform_load(cmd, NULL, file, &pf);
    cli_platform_topo(cmd, &pf, cc, topo, topolen);
    mring_topo_parse(cc->topo_s, &t, err, sizeof err); /* checked by cli_platform_topo */
    static char embed[65536];
    cli_embed_auto(cmd, &pf, cc, embed, sizeof embed);
    mring_platform_params(&pf, &t, p);
    if (gamma_given)
        p->gamma_bw = gamma;
    free(pf.hosts);
#else
    (void)file, (void)cc, (void)topo, (void)topolen, (void)p, (void)gamma_given;
    cli_usage_error(cmd, "--platform needs SimGrid, and this mring was built without it (install libsimgrid-dev)");
#endif
}

/* mring model's options as given */
typedef struct {
    const char *links_s, *method_s, *platform, *profile_s;
    int gamma_given, inplace;
    cli_sweep_t sweep;
    cli_conf_t cc;
    mring_redop_t op;
    mring_format_t fmt;
    mring_cost_params_t p; /* gamma_bw from --gamma */
} model_args_t;

/* parse argv into *a; 1 when --help was given (printed), else 0; bad input exits 2 (cli_usage_error) */
static int model_parse(const char *cmd, int argc, char **argv, model_args_t *a)
{
    static const struct option opts[] = {CLI_CONF_OPTIONS,
                                         {"links", required_argument, 0, OPT_LINKS},
                                         {"gamma", required_argument, 0, OPT_GAMMA},
                                         {"op", required_argument, 0, OPT_OP},
                                         {"inplace", no_argument, 0, OPT_INPLACE},
                                         {"method", required_argument, 0, OPT_METHOD},
                                         {"format", required_argument, 0, OPT_FORMAT},
                                         {"platform", required_argument, 0, OPT_PLATFORM},
                                         {"profile", required_argument, 0, OPT_PROFILE},
                                         CLI_SWEEP_OPTIONS,
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    int opt;
    *a = (model_args_t){.sweep = cli_sweep_default(), .op = MRING_SUM, .fmt = MRING_FMT_TABLE};
    while ((opt = cli_getopt(cmd, argc, argv, "b:e:f:i:h", opts)) != -1) {
        if (cli_conf_opt(&a->cc, opt, optarg) || cli_sweep_opt(cmd, &a->sweep, opt, optarg))
            continue;
        switch (opt) {
        case OPT_LINKS: a->links_s = optarg; break;
        case OPT_PLATFORM: a->platform = optarg; break;
        case OPT_PROFILE: a->profile_s = optarg; break;
        case OPT_GAMMA:
            if (mring_parse_bandwidth(optarg, &a->p.gamma_bw))
                cli_usage_error(cmd, "--gamma '%s' is not valid; expected a rate like 240GBps", optarg);
            a->gamma_given = 1;
            break;
        case OPT_OP:
            if (mring_redop_parse(optarg, &a->op))
                cli_usage_error(cmd, "--op '%s' is unknown; expected one of %s", optarg, mring_redop_list());
            break;
        case OPT_INPLACE: a->inplace = 1; break;
        case OPT_METHOD: a->method_s = optarg; break;
        case OPT_FORMAT:
            if (mring_format_parse(optarg, &a->fmt))
                cli_usage_error(cmd, "--format '%s' is unknown; expected table, csv or json", optarg);
            break;
        case 'h': help(); return 1;
        }
    }
    if (optind < argc)
        cli_usage_error(cmd, "unexpected argument '%s'", argv[optind]);
    return 0;
}

/* one row per size of sizes[0 .. nsizes - 1] into rep: the model's time for c on p (walk: the schedule walk,
 * else the closed form); a failure exits 1 naming it (cli_fail) */
static void model_rows(const char *cmd, const mring_config_t *c, mring_dtype_t dtype, const model_args_t *a,
                       const char *topo, const char *rings, int walk, const int64_t *sizes, int nsizes,
                       mring_report_t *rep)
{
    static char desc[16384];
    size_t elsize = mring_dtype_size(dtype);
    mring_row_t row = {.source = "model", .algo = mring_algo_name(c->algo), .topo = topo, .rings = rings,
                       .config = mring_config_describe(c, desc, sizeof desc), .ranks = c->topo.nranks,
                       .type = mring_dtype_name(dtype), .redop = mring_redop_name(a->op)};
    for (int i = 0; i < nsizes; i++) {
        mring_call_t k = {sizes[i] / (int64_t)elsize, elsize};
        double t = walk ? mring_cost_walk(c, k, &a->p, a->inplace) : mring_cost_closed(c, k, &a->p, a->inplace);
        row.count = k.count;
        row.size = sizes[i];
        if (t < 0)
            cli_fail(cmd, "the model could not evaluate %s at %lld bytes (out of memory)", mring_algo_name(c->algo),
                     (long long)row.size);
        row.time_us = t * 1e6;
        if (mring_report_row(rep, &row))
            cli_fail(cmd, "writing the report failed");
    }
}

int cmd_model(int argc, char **argv)
{
    const char *cmd = "model";
    model_args_t a;
    char ptopo[128], err[256], topo[128], rings[128], title[16384], links[512];
    mring_config_t c;
    mring_dtype_t dtype;
    int64_t sizes[4096];
    if (model_parse(cmd, argc, argv, &a))
        return 0;
    if (a.links_s && a.platform)
        cli_usage_error(cmd, "--links and --platform both given; expected one description of the links");
    if (a.platform)
        platform_links(cmd, a.platform, &a.cc, ptopo, sizeof ptopo, &a.p, a.gamma_given);
    cli_conf_build(cmd, &a.cc, 0, NULL, &c, &dtype);
    cli_op_check(cmd, dtype, a.op, "--op", "--type");
    if (!a.links_s && !a.platform)
        cli_usage_error(cmd, "--links or --platform is required: one LAT:BW[:SHARE] per dimension, e.g. "
                             "1us:36GBps,2us:12.5GBps:4");
    if (a.links_s && mring_links_parse(a.links_s, &c.topo, &a.p, err, sizeof err))
        cli_usage_error(cmd, "%s", err);
    if (a.profile_s) /* replaces the platform's */
        cli_profile_parse(cmd, a.profile_s, &a.p.sw);
    if (a.method_s && strcmp(a.method_s, "closed") && strcmp(a.method_s, "walk"))
        cli_usage_error(cmd, "--method '%s' is unknown; expected closed or walk", a.method_s);
    int walk = a.method_s ? !strcmp(a.method_s, "walk") : c.segment > 0 || c.chunks > 1;
    size_t elsize = mring_dtype_size(dtype);
    cli_conf_check(cmd, &c, elsize);
    int nsizes = cli_sweep_sizes(cmd, &a.sweep, (int64_t)elsize, sizes, 4096);
    cli_sizes_check(cmd, &c, elsize, sizes, nsizes);
    mring_topo_format(&c.topo, topo, sizeof topo);
    mring_rings_format(&c, rings, sizeof rings);
    snprintf(title, sizeof title, "mring model: %s on %s (%d ranks), rings %s, links %s%s%s, %s, %s%s",
             mring_algo_name(c.algo), topo, c.topo.nranks, rings, mring_links_format(&a.p, links, sizeof links),
             a.platform ? " from " : "", a.platform ? a.platform : "", walk ? "schedule walk" : "closed form",
             a.inplace ? "in place" : "out of place", c.segment ? ", pipelined" : "");
    cli_title_config(title, sizeof title, &c);
    mring_report_t *rep = mring_report_open(stdout, a.fmt, 0, title);
    if (!rep)
        cli_fail(cmd, "out of memory");
    model_rows(cmd, &c, dtype, &a, topo, rings, walk, sizes, nsizes, rep);
    if (mring_report_close(rep))
        cli_fail(cmd, "writing the report failed");
    return 0;
}
