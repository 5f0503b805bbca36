/* cli_simulate.c - `mring simulate`: predicted allreduce time per size by SimGrid simulation. */
#include "cli.h"

#include "sim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void help(void)
{
    printf("usage: mring simulate --platform FILE [--topo T] [--algo A] [--rings R] [--segment BYTES]\n"
           "                      [--dim-algo LIST] [--chunks C] [--embed E]\n"
           "                      [-b MIN] [-e MAX] [-f FACTOR | -i STEP] [--type T] [--op OP] [--inplace]\n"
           "                      [--format table|csv|json] [--breakdown] [--trace FILE.json] [--cfg NAME:VALUE]\n"
           "                  [--profile P]\n\n"
           "Simulate the allreduce on a SimGrid platform: every stream of every rank runs its schedule,\n"
           "messages are SimGrid flows between the ranks' hosts sharing the platform's links (every flow\n"
           "through a saturated link gets an equal share), reductions run at the host's speed (bytes of result\n"
           "per second).  Output follows nccl-tests:\n"
           "algbw = size/time, busbw = algbw * 2(P-1)/P, GB/s = 1e9 bytes/s; size is bytes per rank.\n\n"
           "  --platform FILE   SimGrid platform (e.g. platforms/minsky-64.xml); its hosts with property\n"
           "                    mring_rank run the ranks, its root zone's mring_topo is the natural topology\n"
           "  (--topo defaults to the platform's mring_topo; any grid with the platform's rank count works)\n%s"
           "  -b, -e, -f, -i    size sweep as in nccl-tests (default 32M..32M, factor 2)\n"
           "  --op OP           sum (default), prod, min, max, avg, land, lor, lxor, band, bor, bxor, maxloc,\n"
           "                    minloc (shown only)\n"
           "  --inplace         simulate an in-place call (no copy of the send buffer)\n"
           "  --format F        table (default), csv or json\n"
           "  --breakdown       add the time span of every phase and dimension (table and json)\n"
           "  --trace FILE      write a Chrome/Perfetto trace-event JSON of the last size: one process per\n"
           "                    rank, one thread per ring (open it in ui.perfetto.dev or chrome://tracing)\n"
           "  --cfg NAME:VALUE  a SimGrid option (repeatable); the defaults are network/model:CM02 and\n"
           "                    network/crosstraffic:0, the alpha-beta model (LV08 would scale latency by\n"
           "                    13.01 and bandwidth by 0.97), network/optim:Full (SimGrid 3.32's Lazy\n"
           "                    can overfill a link when flows of different latency start in turn) and\n"
           "                    network/solver:fairbottleneck (maxmin weights a flow's share by its route's\n"
           "                    latency, as RTT-unfair TCP does; GPU fabrics share per flow)\n" CLI_PROFILE_HELP,
           cli_conf_help());
}

enum { OPT_PLATFORM = OPT_FIRST_FREE, OPT_OP, OPT_INPLACE, OPT_FORMAT, OPT_BREAKDOWN, OPT_TRACE };

typedef struct sim_opts {
    const char *platform, *trace;
    cli_cfgs_t cfgs;
    int inplace, breakdown;
    mring_redop_t op;
    mring_format_t fmt;
    cli_sweep_t sweep;
} sim_opts_t;

static void parse(const char *cmd, int argc, char **argv, cli_conf_t *cc, sim_opts_t *o)
{
    static const struct option opts[] = {CLI_CONF_OPTIONS,
                                         CLI_SWEEP_OPTIONS,
                                         {"platform", required_argument, 0, OPT_PLATFORM},
                                         {"op", required_argument, 0, OPT_OP},
                                         {"inplace", no_argument, 0, OPT_INPLACE},
                                         {"format", required_argument, 0, OPT_FORMAT},
                                         {"breakdown", no_argument, 0, OPT_BREAKDOWN},
                                         {"trace", required_argument, 0, OPT_TRACE},
                                         CLI_CFG_OPTION,
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    int opt;
    while ((opt = cli_getopt(cmd, argc, argv, "b:e:f:i:h", opts)) != -1) {
        if (cli_conf_opt(cc, opt, optarg) || cli_sweep_opt(cmd, &o->sweep, opt, optarg) ||
            cli_cfg_opt(cmd, &o->cfgs, opt, optarg))
            continue;
        switch (opt) {
        case OPT_PLATFORM: o->platform = optarg; break;
        case OPT_OP:
            if (mring_redop_parse(optarg, &o->op))
                cli_usage_error(cmd, "--op '%s' is unknown; expected one of %s", optarg, mring_redop_list());
            break;
        case OPT_INPLACE: o->inplace = 1; break;
        case OPT_FORMAT:
            if (mring_format_parse(optarg, &o->fmt))
                cli_usage_error(cmd, "--format '%s' is unknown; expected table, csv or json", optarg);
            break;
        case OPT_BREAKDOWN: o->breakdown = 1; break;
        case OPT_TRACE: cli_check_output(cmd, "--trace", optarg), o->trace = optarg; break;
        case 'h': help(); exit(0);
        }
    }
    if (optind < argc)
        cli_usage_error(cmd, "unexpected argument '%s'", argv[optind]);
    if (!o->platform)
        cli_usage_error(cmd, "--platform is required (e.g. --platform platforms/minsky-64.xml)");
}

/* The breakdown spans of a result, in phase then dimension order. */
static int spans_of(const mring_sim_result_t *res, mring_phase_span_t *spans)
{
    int n = 0;
    for (int ph = 0; ph < MRING_NPHASES; ph++)
        for (int d = 0; d < MRING_MAX_DIMS; d++)
            if (res->phase_seen[ph][d])
                spans[n++] = (mring_phase_span_t){mring_phase_name(ph), d + 1, res->phase_start[ph][d] * 1e6,
                                                  res->phase_end[ph][d] * 1e6};
    return n;
}

int cmd_simulate(int argc, char **argv)
{
    const char *cmd = "simulate";
    cli_conf_t cc = {0};
    static sim_opts_t o; /* large (--cfg buffers): not on the stack */
    mring_platform_t pf;
    mring_config_t c;
    mring_dtype_t dtype;
    int64_t sizes[4096];
    char err[1024], topo[128], rings[128], title[16384];
    static char embed[65536];
    int rc, nsizes;
    o.sweep = cli_sweep_default();
    parse(cmd, argc, argv, &cc, &o);
    cli_platform_load(cmd, &o.cfgs, o.platform, &pf);
    cli_platform_topo(cmd, &pf, &cc, topo, sizeof topo);
    cli_embed_auto(cmd, &pf, &cc, embed, sizeof embed);
    cli_conf_build(cmd, &cc, 0, NULL, &c, &dtype);
    cli_op_check(cmd, dtype, o.op, "--op", "--type");
    size_t elsize = mring_dtype_size(dtype);
    cli_conf_check(cmd, &c, elsize);
    nsizes = cli_sweep_sizes(cmd, &o.sweep, (int64_t)elsize, sizes, 4096);
    cli_sizes_check(cmd, &c, elsize, sizes, nsizes);
    mring_topo_format(&c.topo, topo, sizeof topo);
    mring_rings_format(&c, rings, sizeof rings);
    snprintf(title, sizeof title, "mring simulate: %s on %s (%d ranks), rings %s, platform %s, %s%s",
             mring_algo_name(c.algo), topo, c.topo.nranks, rings, o.platform,
             o.inplace ? "in place" : "out of place", c.segment ? ", pipelined" : "");
    cli_title_config(title, sizeof title, &c);
    mring_report_t *rep = mring_report_open(stdout, o.fmt, 0, title);
    if (!rep)
        cli_fail(cmd, "out of memory");
    for (int i = 0; i < nsizes; i++) {
        mring_sim_result_t res;
        mring_phase_span_t spans[MRING_NPHASES * MRING_MAX_DIMS];
        static char desc[16384];
        mring_row_t row = {.source = "sim", .algo = mring_algo_name(c.algo), .topo = topo, .rings = rings,
                           .config = mring_config_describe(&c, desc, sizeof desc),
                           .ranks = c.topo.nranks, .size = sizes[i], .type = mring_dtype_name(dtype),
                           .redop = mring_redop_name(o.op)};
        int last = i == nsizes - 1;
        mring_call_t k = {row.count = sizes[i] / (int64_t)elsize, elsize};
        if ((rc = mring_simulate(&pf, &c, k, o.inplace, o.trace && last, &res, err, sizeof err)))
            cli_fail(cmd, "%s at %lld bytes: %s", mring_algo_name(c.algo), (long long)sizes[i], err);
        row.time_us = res.time * 1e6;
        if (o.breakdown) {
            row.spans = spans;
            row.nspans = spans_of(&res, spans);
        }
        if (mring_report_row(rep, &row))
            cli_fail(cmd, "writing the report failed");
        if (o.trace && last && mring_trace_write(res.events, res.nevents, res.scheds, res.nranks, o.trace, err, sizeof err))
            cli_fail(cmd, "%s", err);
        mring_sim_result_free(&res);
    }
    if (mring_report_close(rep))
        cli_fail(cmd, "writing the report failed");
    free(pf.hosts);
    return 0;
}
