/*
 * calibrate.c - mring-calibrate: the alpha-beta figures of a cluster's levels and the software profile
 * of its stack, measured (options and main; the measurements are calibrate_load.c's and
 * calibrate_conn.c's, the fits calibrate_fit.c's, the output calibrate_report.c's).
 *
 * Launched as `mpiexec -n P mring-calibrate --ranks-per-node R` with ranks placed R per node (rank r
 * on node r / R).  It measures, rank 0 printing the result:
 *   intra  pairs of ranks inside nodes (needs R >= 2), and a rank's port by a bulk test: every pair inside
 *          the nodes exchanging at once, both ways (as a multiring's first dimension loads the ports; a
 *          ping-pong loads one way at a time),
 *   inter  pairs of nodes of a rack (needs P > R), and with R >= 2 the NIC the ranks of a node share by a
 *          bulk test: every pair of nodes at once, each rank sending one way (a ping-pong measures a share
 *          of the NIC or all of it, as the pairs beside it fall in or out of step),
 *   rack   pairs of racks (--nodes-per-rack), and the rack's uplink by a bulk test: every pair of
 *          racks at once sending one way (one pair cannot fill an uplink its NICs are slower than),
 * every pair of a level at once (--one-pair: rank 0's only, the others waiting), over a size sweep
 * (powers of 2): the time of a step, the median of --iters steps after --warmup, then the median over
 * the pairs.  A step (--pattern): half a ping-pong round trip (pingpong, the default, as SMPI
 * calibrates); or both ranks of a pair sending m bytes to each other at once, step after step with no
 * pause (exchange).  Measured on the 2x2 testbed at 500 Mbit/s (2026-12-01): exchange gives 21.9 MB/s
 * per inter-node pair, two pairs sharing each node's port, 70% of the port's 62.5 MB/s where a ring
 * reaches 98%; the platform built from it predicted a ring 2.5x too slow at 64 MiB (ping-pong: 32%
 * too fast), so ping-pong stays the default.  Each level is fitted to t(m) = alpha + beta * m by
 * weighted least squares (GSL).  Then a ring of exchanges of every rank (rank i sends to i + 1 and
 * receives from i - 1, steps back to back: a ring allreduce's steps without the reduction), the slowest
 * rank's mean time per step, in --passes passes over the sweep (the bulk tests too, over their sizes: a
 * size's point is the median of its passes, those a stop of the machine overlapped left out, --stops);
 * LogGP's o is measured on the inter-node pairs and the software profile fitted to the median of the
 * ring's passes per size on the wire line of the level that bounds an allreduce across nodes (inter,
 * else intra; with R >= 2, the level's alpha with the bulk capacity of the NIC, or of the ports on one
 * node: wire_line), and to each pass alone for the
 * spread of its factors (fitted twice from one pass each on the same 2x4 testbed, 2026-12-03, the
 * latency factors came out x4.8 and x11.8 below 4 KiB, x1 and x12.6 at 4-64 KiB): where ranks outnumber
 * cores a step waits for its neighbours to be scheduled, which no
 * ping-pong shows (2x2x2 testbed, 8 ranks on 2 cores, 2026-12-02: a ring step of 1 KiB 171 us, the
 * ping-pong's one-way 19 us).  And the reduction throughput of the host float32 sum kernel the back
 * ends run (mring_reduce), in bytes of result per second: the figure a rank host's `speed` carries in
 * an mring platform.  Point-to-point figures only: allreduce timings, which the calibrated platform
 * will be judged on, are never used.  validation/calibrate writes the platform
 * from the JSON (`mring platform testbed`).
 *
 * `--fit-only` fits "bytes seconds" pairs read from stdin and prints the fit (with --o, the profile
 * too), without MPI (tests; refitting saved measurements).
 */
#include "args.h"
#include "calibrate_load.h"
#include "calibrate_report.h"
#include "calibrate_stops.h"
#include "dtype.h"
#include "units.h"

#include <errno.h>
#include <gsl/gsl_errno.h>
#include <jansson.h>
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_BYTES (1LL << 30)            /* largest message of a sweep */
#define REDUCE_BYTES ((int64_t)64 << 20) /* default buffer of the reduction throughput: 64 MiB of float32 */
#define REDUCE_REPS 5                    /* timed passes over it (median), after one untimed pass */
#define TAG 0x6361                       /* "ca" */
#define PASSES 5                         /* default passes over the sweep of the ring and of each bulk test */

static int rank0;

static void help(void)
{
    printf("usage: mpiexec -n P mring-calibrate --ranks-per-node R [--sizes MIN:MAX] [--iters N] [--warmup N]\n"
           "                                    [--reduce-bytes B] [--nodes-per-rack Q] [--one-pair]\n"
           "                                    [--pattern exchange|pingpong] [--stops FILE]\n"
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

/* ---- options ---- */

typedef struct opts {
    int rpn, iters, warmup, json, fit_only, one_pair, rack_nodes, pattern, passes;
    const char *stops;    /* --stops: the witness's CSV, NULL unset */
    double fit_o;         /* --fit-only --o: s per message end, < 0 unset */
    level_t *wire;        /* --fit-only --wire: its alpha and beta, NULL unset */
    int64_t minb, maxb;   /* B */
    int64_t reduce_bytes; /* B */
} opts_t;

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

static void parse(int argc, char **argv, opts_t *o)
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
        case OPT_STOPS: /* rank 0 reads it; every rank refuses it alike */
            if (access(optarg, R_OK))
                cli_usage_error(NULL, "--stops '%s': %s", optarg, strerror(errno));
            o->stops = optarg;
            break;
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

/* ---- measurements (MPI) ---- */

/* Seconds of one pass of the host float32 sum kernel (mring_reduce, as the back ends call it) over
 * count elements: the median of REDUCE_REPS passes after an untimed one that faults the pages in. */
static double reduce_pass(float *dst, const float *src, size_t count)
{
    double t[REDUCE_REPS];
    mring_reduce(dst, src, count, MRING_FLOAT32, MRING_SUM, 0);
    for (int i = 0; i < REDUCE_REPS; i++) {
        double t0 = MPI_Wtime();
        mring_reduce(dst, src, count, MRING_FLOAT32, MRING_SUM, 0);
        t[i] = MPI_Wtime() - t0;
    }
    return calib_median(t, REDUCE_REPS);
}

/* Reduction throughput in bytes of result per second: *alone = rank 0 with the others waiting,
 * *all = every rank at once, the slowest rank's (they share the machine's cores and memory).
 * Collective; meaningful on rank 0. */
static void reduce_rates(const opts_t *o, int me, double *alone, double *all)
{
    size_t bytes = (size_t)o->reduce_bytes, count = bytes / sizeof(float);
    float *dst = malloc(bytes), *src = malloc(bytes);
    double mine, slowest = 0;
    if (!dst || !src)
        calib_die("out of memory (2 buffers for the reduction throughput)");
    for (size_t i = 0; i < count; i++)
        dst[i] = src[i] = 1.0f;
    calib_quiet_barrier();
    *alone = me == 0 ? (double)bytes / reduce_pass(dst, src, count) : 0;
    calib_quiet_barrier();
    mine = reduce_pass(dst, src, count);
    MPI_Reduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    *all = (double)bytes / slowest;
    free(dst);
    free(src);
}

/* The software profile of the ring's steps (r->ring, the median of r->ring_pass) on the wire line of l, with
 * the spread of its passes; with o = 0 when the measured o leaves no wire latency (warned).  NULL: none
 * (warned). */
static const calib_profile_t *ring_profile(const level_t *l, calib_result_t *r, calib_profile_t *prof)
{
    char err[256], err0[256];
    if (calib_fit_profile(l, r->ring, (r->o_send + r->o_recv) / 2, prof, err, sizeof err)) {
        if (calib_fit_profile(l, r->ring, 0, prof, err0, sizeof err0)) {
            fprintf(stderr, "mring-calibrate: warning: no software profile: %s\n", err);
            return NULL;
        }
        fprintf(stderr, "mring-calibrate: warning: %s: the profile has the factors only (o = 0)\n", err);
    }
    if (calib_profile_spread(l, r->ring_pass, r->passes, prof, err, sizeof err)) {
        fprintf(stderr, "mring-calibrate: warning: no software profile: %s\n", err);
        return NULL;
    }
    prof->sw.conn_pair = calib_conn_pair(r);
    return prof;
}

/* The wire line the software profile scales, as the platform will route it (*name: which): between nodes the
 * inter level's alpha, with the NIC's bulk capacity for bandwidth where its ranks share one (the pairs'
 * ping-pongs measure a share of it, or all of it, depending on whether they stay in step: 19.2 and 30.86
 * MB/s on the 2x4 testbed at 250 Mbit/s under round-robin and FIFO queues, the bulk test 30.7 and 31.11,
 * 2026-12-05); inside the one node, the intra level's alpha with its ports' bulk capacity (the ring's steps
 * load every port both ways, as the bulk test does). */
static const level_t *wire_line(const calib_result_t *r, const char **name)
{
    static level_t wire;
    const level_t *line = r->inter ? r->inter : r->intra, *bulk = r->inter ? r->nic : r->port;
    int flows = r->inter ? r->nic_flows : r->port_flows;
    double bps = bulk ? calib_bulk_bps(bulk, flows) : 0;
    *name = r->inter ? "inter" : "intra";
    if (bulk && !(bps > 0))
        fprintf(stderr, "mring-calibrate: warning: the %s's bulk test gave no bandwidth (beta %.3g ns/B): the profile "
                        "scales the %s line\n", r->inter ? "NIC" : "port", bulk->beta * 1e9, *name);
    if (!(bps > 0))
        return line;
    wire = *line;
    wire.beta = 1 / bps;
    *name = r->inter ? "inter+nic" : "intra+port"; /* the level's alpha, the shared link's bandwidth */
    return &wire;
}

/* A measurement's r->passes passes settled into med on rank 0 (calib_settle: the points a stop overlapped left
 * out, the median, its line), r->stopped counting the points left out; calib_die naming `what` when it cannot
 * be fitted.  Returns med. */
static const level_t *settle(const char *stops, const char *what, level_t *pass, level_t *med, calib_result_t *r)
{
    char err[256], msg[320];
    int marked = rank0 ? calib_settle(stops, pass, r->passes, med, err, sizeof err) : 0;
    if (marked < 0) {
        snprintf(msg, sizeof msg, "%s of %d ranks: %s", what, r->P, err);
        calib_die(msg);
    }
    r->stopped += marked;
    return med;
}

static void finalize_hook(int status)
{
    (void)status;
    MPI_Finalize();
}

static int want_fit_only(int argc, char **argv)
{
    for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
        if (!strcmp(argv[i], "--fit-only"))
            return 1;
    return 0;
}

int main(int argc, char **argv)
{
    static level_t intra, inter;
    opts_t o;
    calib_result_t r = {0};
    int me;
    gsl_set_error_handler_off(); /* GSL reports through return codes, never aborts */
    if (want_fit_only(argc, argv)) {
        rank0 = 1;
        cli_set_program("mring-calibrate", 0, NULL);
        parse(argc, argv, &o);
        return calib_fit_only(o.json, o.fit_o, o.wire);
    }
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &r.P);
    rank0 = me == 0;
    cli_set_program("mring-calibrate", !rank0, finalize_hook);
    parse(argc, argv, &o);
    if (!o.rpn)
        cli_usage_error(NULL, "--ranks-per-node is required (ranks r and s share a node when r / R == s / R)");
    if (o.rpn > r.P || r.P % o.rpn)
        cli_usage_error(NULL, "--ranks-per-node %d does not divide the %d ranks of the job", o.rpn, r.P);
    r.R = o.rpn;
    r.one_pair = o.one_pair;
    if (o.rack_nodes && (r.P / r.R) % o.rack_nodes)
        cli_usage_error(NULL, "--nodes-per-rack %d does not divide the %d nodes of the job", o.rack_nodes, r.P / r.R);
    calib_load_t lp = {.P = r.P, .R = r.R, .iters = o.iters, .warmup = o.warmup, .pattern = o.pattern, .minb = o.minb,
                       .maxb = o.maxb, .one_pair = o.one_pair, .rack_nodes = o.rack_nodes, .passes = o.passes};
    static level_t port_pass[CALIB_MAX_PASSES], nic_pass[CALIB_MAX_PASSES], uplink_pass[CALIB_MAX_PASSES];
    static level_t port, nic, rack, uplink;
    r.passes = o.passes;
    if (r.R >= 2) {
        calib_measure_level(&lp, me, CALIB_INTRA, &intra);
        calib_measure_bulk(&lp, me, CALIB_INTRA, port_pass, &r.port_flows);
        r.port = settle(o.stops, "the ports' bulk test", port_pass, &port, &r);
        r.port_pass = port_pass;
    }
    if (r.P > r.R) {
        calib_measure_level(&lp, me, CALIB_INTER, &inter);
        calib_measure_overhead(&lp, me, &r.o_send, &r.o_recv);
        if (r.R >= 2) { /* the NIC the node's ranks share: its capacity from all of them at once */
            calib_measure_bulk(&lp, me, CALIB_INTER, nic_pass, &r.nic_flows);
            r.nic = settle(o.stops, "the NICs' bulk test", nic_pass, &nic, &r);
            r.nic_pass = nic_pass;
        }
    }
    if (o.rack_nodes && r.P / r.R > o.rack_nodes) {
        calib_measure_level(&lp, me, CALIB_RACK, &rack);
        calib_measure_bulk(&lp, me, CALIB_RACK, uplink_pass, &r.uplink_flows);
        r.rack = &rack;
        r.uplink = settle(o.stops, "the uplinks' bulk test", uplink_pass, &uplink, &r);
        r.uplink_pass = uplink_pass;
    }
    static level_t ring_pass[CALIB_MAX_PASSES], ring;
    if (r.P >= 2) {
        calib_measure_ring(&lp, me, ring_pass);
        r.ring = settle(o.stops, "the ring of exchanges", ring_pass, &ring, &r);
        r.ring_pass = ring_pass;
        calib_measure_conn(&lp, me, o.maxb, &r.conn_first, &r.conn_second);
    }
    r.intra = r.R >= 2 ? &intra : NULL;
    r.inter = r.P > r.R ? &inter : NULL;
    reduce_rates(&o, me, &r.reduce, &r.reduce_all);
    static calib_profile_t prof;
    if (rank0 && r.ring) /* the wire line of the level that bounds an allreduce across nodes; a ring's steps */
        r.prof = ring_profile(wire_line(&r, &r.prof_wire), &r, &prof);
    int rc = rank0 ? calib_report(o.json, &lp, o.reduce_bytes, &r) : 0;
    MPI_Finalize();
    return rc;
}
