/* calibrate_args.c - mring-calibrate's flags (calibrate_args.h). */
#include "calibrate_args.h"
#include "calibrate_stops.h"

#include "args.h"
#include "units.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_BYTES (1LL << 30)            /* largest message of a sweep */
#define REDUCE_BYTES ((int64_t)64 << 20) /* default buffer of the reduction throughput: 64 MiB of float32 */
#define PASSES 5                         /* default passes over the sweep of the ring and of each bulk test */

static void help(void)
{
    printf("usage: mpiexec -n P mring-calibrate --ranks-per-node R [--sizes MIN:MAX] [--iters N] [--warmup N]\n"
           "                                    [--reduce-bytes B] [--nodes-per-rack Q] [--one-pair]\n"
           "                                    [--pattern exchange|pingpong] [--passes N] [--stops FILE]\n"
           "                                    [--format table|json]\n"
           "       mring-calibrate --fit-only [--o TIME [--wire LAT:BW]] [--format table|json] < PAIRS\n\n"
           "Measure the latency and bandwidth of the levels of a cluster by MPI, ranks placed R per node\n"
           "(rank r on node r / R): inside nodes (R >= 2), between nodes (P > R), between racks\n"
           "(--nodes-per-rack), every pair of a level at once; the time of a step (--pattern), the median\n"
           "of N steps per size, then over the pairs; with R >= 2 the capacity of a rank's port inside\n"
           "its node (every pair inside the nodes exchanging at once, both ways, bulk) and of the NIC a\n"
           "node's ranks share (every pair between nodes sending one way at once, bulk; --one-pair: one\n"
           "flow, a pair's rate).  Fit t(m) = alpha + beta * m per level by least squares weighted 1/t^2\n"
           "(GSL); time a ring of exchanges of every rank (steps back to back); measure LogGP's o on the\n"
           "inter-node pairs and fit the software profile (o, latency and bandwidth factors per size\n"
           "segment: mring's mring_sw) to the ring's steps on the inter line (with R >= 2 at the NIC's\n"
           "bulk capacity: inter+nic; on one node the intra line at the port's: intra+port); and measure\n"
           "the host float32 sum throughput (bytes of result per second, over 64 MiB by default).\n\n"
           "  --ranks-per-node R   ranks per node (required; divides P)\n"
           "  --sizes MIN:MAX      message sizes, MIN, 2 MIN, 4 MIN ... up to MAX (default 1:4M; K/M/G = 2^10..)\n"
           "  --iters N            timed steps per size (default 20)\n"
           "  --warmup N           untimed steps first (default 3)\n"
           "  --passes N           passes over the sweep of the ring of exchanges, and of each bulk test over\n"
           "                       its sizes, one after the other (default 5, at most 16): a size's point is\n"
           "                       the median of its passes; the profile is fitted to the ring's, and to each\n"
           "                       of its passes alone for the spread of its factors\n"
           "  --stops FILE         when the machine stopped (a CSV with columns from_s and to_s, seconds since\n"
           "                       the epoch: mring-witness's output, read after each measurement's passes): a\n"
           "                       pass's size a stop overlapped is left out of that size's median (all kept\n"
           "                       when every pass's was); the JSON's passes_stopped says which\n"
           "  --pattern P          a step: pingpong (default: half a round trip) or exchange (the pair sends\n"
           "                       m bytes each way at once, step after step)\n"
           "  --format F           table (default) or json\n"
           "  --reduce-bytes B     buffer of the reduction throughput (default 64M; multiple of 4, 4K..1G)\n"
           "  --nodes-per-rack Q   racks of Q nodes: a third level, between racks (pairs of racks), and the\n"
           "                       uplink's capacity: every pair across it sending one way at once (bulk)\n"
           "  --one-pair           only rank 0's pair of each level measures, the others wait (default: every\n"
           "                       pair at once, as an allreduce loads the machine)\n"
           "  --fit-only           no MPI: read 'bytes seconds [stopped]' lines from stdin (# comments), print\n"
           "                       their fit ('stopped': a stop overlapped the point, as --stops marks it);\n"
           "                       a size no larger than the line before's starts a new pass over the same\n"
           "                       sizes (the median per size is fitted, each pass alone for the spread)\n"
           "  --o TIME             with --fit-only: also fit the software profile for this o (per message end)\n"
           "  --wire LAT:BW        with --o: the profile scales this wire line (e.g. 50us:30MBps; o included\n"
           "                       in LAT, as a fitted level's alpha), not the pairs' own fit\n");
}



enum { OPT_RPN = OPT_FIRST_FREE, OPT_SIZES, OPT_ITERS, OPT_WARMUP, OPT_FORMAT, OPT_FIT_ONLY, OPT_REDUCE, OPT_ONE_PAIR,
       OPT_O, OPT_RACK, OPT_PATTERN, OPT_WIRE, OPT_PASSES, OPT_STOPS };

static void parse_sizes(const char *s, opts_t *o)
{
    char a[64];
    const char *colon = strchr(s, ':');
    size_t len = colon ? (size_t)(colon - s) : 0;
    if (!colon || len >= sizeof a || (memcpy(a, s, len), a[len] = '\0', mring_parse_size(a, &o->minb)) ||
        mring_parse_size(colon + 1, &o->maxb) || o->minb < 1 || o->maxb < 2 * o->minb || o->maxb > MAX_BYTES)
        cli_usage_error(NULL, "--sizes '%s' is not valid; expected MIN:MAX with 1 <= 2 MIN <= MAX <= 1G (e.g. 1:4M)",
                        s);
}

/* --wire LAT:BW: the profile's wire line, alpha LAT and beta 1 / BW */
static void parse_wire(const char *s, opts_t *o)
{
    static level_t wire;
    char lat[64];
    const char *colon = strchr(s, ':');
    size_t len = colon ? (size_t)(colon - s) : 0;
    double bw;
    if (!colon || len >= sizeof lat || (memcpy(lat, s, len), lat[len] = '\0', mring_parse_time(lat, &wire.alpha)) ||
        mring_parse_bandwidth(colon + 1, &bw))
        cli_usage_error(NULL, "--wire '%s' is not valid; expected LAT:BW, e.g. 50us:30MBps", s);
    wire.beta = 1 / bw;
    o->wire = &wire;
}

/* --stops FILE: rank 0 reads it while measuring; every rank reads its lines so far now and refuses it alike
 * (a missing file, no from_s/to_s header, a bad number), before measuring */
static void parse_stops(const char *s, opts_t *o)
{
    char err[512];
    if (calib_mark_stopped(s, NULL, 0, err, sizeof err) < 0)
        cli_usage_error(NULL, "%s", err);
    o->stops = s;
}

void calib_parse(int argc, char **argv, int rank0, opts_t *o)
{
    static const struct option opts[] = {
        {"ranks-per-node", required_argument, 0, OPT_RPN}, {"sizes", required_argument, 0, OPT_SIZES},
        {"iters", required_argument, 0, OPT_ITERS},        {"warmup", required_argument, 0, OPT_WARMUP},
        {"format", required_argument, 0, OPT_FORMAT},      {"fit-only", no_argument, 0, OPT_FIT_ONLY},
        {"reduce-bytes", required_argument, 0, OPT_REDUCE}, {"one-pair", no_argument, 0, OPT_ONE_PAIR},
        {"o", required_argument, 0, OPT_O},                {"nodes-per-rack", required_argument, 0, OPT_RACK},
        {"pattern", required_argument, 0, OPT_PATTERN},     {"wire", required_argument, 0, OPT_WIRE},
        {"passes", required_argument, 0, OPT_PASSES},      {"stops", required_argument, 0, OPT_STOPS},
        {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    int opt;
    *o = (opts_t){.pattern = CALIB_PINGPONG, .iters = 20, .warmup = 3, .minb = 1, .maxb = 4 << 20,
                  .reduce_bytes = REDUCE_BYTES, .fit_o = -1, .passes = PASSES};
    while ((opt = cli_getopt(NULL, argc, argv, "h", opts)) != -1) {
        switch (opt) {
        case OPT_RPN: o->rpn = cli_int(NULL, "--ranks-per-node", optarg, 1, 1 << 20); break;
        case OPT_SIZES: parse_sizes(optarg, o); break;
        case OPT_ITERS: o->iters = cli_int(NULL, "--iters", optarg, 1, 1000000); break;
        case OPT_WARMUP: o->warmup = cli_int(NULL, "--warmup", optarg, 0, 1000000); break;
        case OPT_PASSES: o->passes = cli_int(NULL, "--passes", optarg, 1, CALIB_MAX_PASSES); break;
        case OPT_FORMAT:
            if (strcmp(optarg, "json") && strcmp(optarg, "table"))
                cli_usage_error(NULL, "--format '%s' is unknown; expected table or json", optarg);
            o->json = !strcmp(optarg, "json");
            break;
        case OPT_FIT_ONLY: o->fit_only = 1; break;
        case OPT_ONE_PAIR: o->one_pair = 1; break;
        case OPT_PATTERN:
            if (strcmp(optarg, "exchange") && strcmp(optarg, "pingpong"))
                cli_usage_error(NULL, "--pattern '%s' is unknown; expected exchange or pingpong", optarg);
            o->pattern = strcmp(optarg, "exchange") ? CALIB_PINGPONG : CALIB_EXCHANGE;
            break;
        case OPT_RACK: o->rack_nodes = cli_int(NULL, "--nodes-per-rack", optarg, 1, 1 << 20); break;
        case OPT_WIRE: parse_wire(optarg, o); break;
        case OPT_STOPS: parse_stops(optarg, o); break;
        case OPT_O:
            if (mring_parse_time(optarg, &o->fit_o) || !(o->fit_o < 1))
                cli_usage_error(NULL, "--o '%s' is not valid; expected a time like 10us", optarg);
            break;
        case OPT_REDUCE:
            o->reduce_bytes = cli_size(NULL, "--reduce-bytes", optarg);
            if (o->reduce_bytes < 4096 || o->reduce_bytes > MAX_BYTES || o->reduce_bytes % 4)
                cli_usage_error(NULL, "--reduce-bytes '%s' is not valid; expected a multiple of 4 from 4K to 1G", optarg);
            break;
        case 'h':
            if (rank0)
                help();
            if (!o->fit_only)
                MPI_Finalize();
            exit(0);
        }
    }
    if (optind < argc)
        cli_usage_error(NULL, "unexpected argument '%s'", argv[optind]);
    if (o->wire && !(o->fit_only && o->fit_o >= 0))
        cli_usage_error(NULL, "--wire is for --fit-only with --o (the profile's wire line)");
    if (o->stops && o->fit_only)
        cli_usage_error(NULL, "--stops is for a measurement, not --fit-only");
}
