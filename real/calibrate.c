/*
 * calibrate.c - mring-calibrate: the alpha-beta figures of a cluster's levels and the software profile
 * of its stack, measured (options, output, main; the measurements are calibrate_load.c's, the fits
 * calibrate_fit.c's).
 *
 * Launched as `mpiexec -n P mring-calibrate --ranks-per-node R` with ranks placed R per node (rank r
 * on node r / R).  It measures, rank 0 printing the result:
 *   intra  pairs of ranks inside nodes (needs R >= 2),
 *   inter  pairs of nodes of a rack (needs P > R),
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
 * rank's time per step; LogGP's o is measured on the inter-node pairs and the software profile fitted
 * to the ring's steps on the wire line of the level that bounds an allreduce across nodes (inter, else
 * intra): where ranks outnumber cores a step waits for its neighbours to be scheduled, which no
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
#include "dtype.h"
#include "units.h"

#include <gsl/gsl_errno.h>
#include <jansson.h>
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_BYTES (1LL << 30)            /* largest message of a sweep */
#define REDUCE_BYTES ((int64_t)64 << 20) /* default buffer of the reduction throughput: 64 MiB of float32 */
#define REDUCE_REPS 5                    /* timed passes over it (median), after one untimed pass */
#define TAG 0x6361                       /* "ca" */

static int rank0;

static void help(void)
{
    printf("usage: mpiexec -n P mring-calibrate --ranks-per-node R [--sizes MIN:MAX] [--iters N] [--warmup N]\n"
           "                                    [--reduce-bytes B] [--nodes-per-rack Q] [--one-pair]\n"
           "                                    [--pattern exchange|pingpong]\n"
           "                                    [--format table|json]\n"
           "       mring-calibrate --fit-only [--o TIME [--wire LAT:BW]] [--format table|json] < PAIRS\n\n"
           "Measure the latency and bandwidth of the levels of a cluster by MPI, ranks placed R per node\n"
           "(rank r on node r / R): inside nodes (R >= 2), between nodes (P > R), between racks\n"
           "(--nodes-per-rack), every pair of a level at once; the time of a step (--pattern), the median\n"
           "of N steps per size, then over the pairs.  Fit t(m) = alpha + beta * m per level by least\n"
           "squares weighted 1/t^2 (GSL); time a ring of exchanges of every rank (steps back to back); measure\n"
           "LogGP's o on the inter-node pairs and fit the software profile (o, latency and bandwidth factors\n"
           "per size segment: mring's mring_sw) to the ring's steps on the inter line; and measure the\n"
           "host float32 sum throughput (bytes of result per second, over 64 MiB by default).\n\n"
           "  --ranks-per-node R   ranks per node (required; divides P)\n"
           "  --sizes MIN:MAX      message sizes, MIN, 2 MIN, 4 MIN ... up to MAX (default 1:4M; K/M/G = 2^10..)\n"
           "  --iters N            timed steps per size (default 20)\n"
           "  --warmup N           untimed steps first (default 3)\n"
           "  --pattern P          a step: pingpong (default: half a round trip) or exchange (the pair sends\n"
           "                       m bytes each way at once, step after step)\n"
           "  --format F           table (default) or json\n"
           "  --reduce-bytes B     buffer of the reduction throughput (default 64M; multiple of 4, 4K..1G)\n"
           "  --nodes-per-rack Q   racks of Q nodes: a third level, between racks (pairs of racks), and the\n"
           "                       uplink's capacity: every pair across it sending one way at once (bulk)\n"
           "  --one-pair           only rank 0's pair of each level measures, the others wait (default: every\n"
           "                       pair at once, as an allreduce loads the machine)\n"
           "  --fit-only           no MPI: read 'bytes seconds' lines from stdin (# comments), print their fit\n"
           "  --o TIME             with --fit-only: also fit the software profile for this o (per message end)\n"
           "  --wire LAT:BW        with --o: the profile scales this wire line (e.g. 50us:30MBps; o included\n"
           "                       in LAT, as a fitted level's alpha), not the pairs' own fit\n");
}

/* ---- output ---- */

/* A level as JSON (NULL: not measured -> null).  Units in the key names: s, s/B, B/s. */
static json_t *level_json(const level_t *l)
{
    json_t *pts, *o;
    if (!l)
        return json_null();
    pts = json_array(); /* after the check: nothing to leak without a level */
    for (int i = 0; i < l->n; i++) {
        const point_t *p = &l->pt[i];
        json_t *bytes = p->bytes == floor(p->bytes) && p->bytes < 0x1p53 ? json_integer((json_int_t)p->bytes)
                                                                           : json_real(p->bytes);
        json_array_append_new(pts, json_pack("{s:o, s:f, s:f, s:f, s:f}", "bytes", bytes, "time_s", p->time,
                                             "fit_s", p->fit, "rel_residual", (p->time - p->fit) / p->time, "min_s",
                                             p->min));
    }
    o = json_pack("{s:f, s:f, s:f, s:f, s:f, s:o}", "alpha_s", l->alpha, "beta_s_per_byte", l->beta,
                  "bandwidth_Bps", l->beta > 0 ? 1 / l->beta : 0.0, "max_rel_residual", l->max_rel,
                  "rms_rel_residual", l->rms_rel, "points", pts);
    if (l->a >= 0) {
        json_object_set_new(o, "ranks", json_pack("[i, i]", l->a, l->b));
        json_object_set_new(o, "pairs", json_integer(l->pairs));
    }
    if (isfinite(l->u_alpha) && isfinite(l->u_beta) && isfinite(l->u_max_rel))
        json_object_set_new(o, "unweighted", json_pack("{s:f, s:f, s:f, s:f}", "alpha_s", l->u_alpha, "beta_s_per_byte",
                                                       l->u_beta, "bandwidth_Bps", l->u_beta > 0 ? 1 / l->u_beta : 0.0,
                                                       "max_rel_residual", l->u_max_rel));
    return o;
}

/* A level as table rows: one per size (bytes, median and least measured us, fitted us, relative
 * residual %), then the fit (alpha us, beta ns/B, bandwidth GB/s, residuals %). */
static void level_table(const char *name, const level_t *l)
{
    if (!l) {
        printf("# %s: not measured\n", name);
        return;
    }
    printf("# %-6s %12s %12s %12s %12s %9s\n", "level", "bytes", "time_us", "min_us", "fit_us", "resid_%");
    for (int i = 0; i < l->n; i++) {
        const point_t *p = &l->pt[i];
        printf("  %-6s %12.0f %12.3f %12.3f %12.3f %9.2f\n", name, p->bytes, p->time * 1e6, p->min * 1e6,
               p->fit * 1e6, 100 * (p->time - p->fit) / p->time);
    }
    printf("# %s: alpha %.4g us, beta %.4g ns/B, bandwidth %.4g GB/s, max |residual| %.2f%%, rms %.2f%%",
           name, l->alpha * 1e6, l->beta * 1e9, l->beta > 0 ? 1e-9 / l->beta : 0.0, 100 * l->max_rel,
           100 * l->rms_rel);
    if (l->a >= 0)
        printf(" (ranks %d and %d)", l->a, l->b);
    printf("\n# %s unweighted, for comparison: alpha %.4g us, bandwidth %.4g GB/s, max |residual| %.2f%%\n", name,
           l->u_alpha * 1e6, l->u_beta > 0 ? 1e-9 / l->u_beta : 0.0, 100 * l->u_max_rel);
}

/* A fitted software profile as JSON: its text form (the platform's mring_sw), o, the wire line it scales,
 * the factors per segment and the residuals. */
static json_t *profile_json(const calib_profile_t *p)
{
    char text[2048];
    json_t *f = json_array();
    for (int i = 0; i < p->sw.nlat; i++)
        json_array_append_new(f, json_pack("{s:f, s:f, s:f}", "from_bytes", p->sw.lat[i].bytes, "lat_factor",
                                           p->sw.lat[i].factor, "bw_factor", p->sw.bw[i].factor));
    return json_pack("{s:s, s:f, s:f, s:f, s:o, s:f, s:f}", "mring_sw", mring_swprof_format(&p->sw, text, sizeof text),
                     "o_s", p->sw.o, "wire_alpha_s", p->alpha, "beta_s_per_byte", p->beta, "factors", f,
                     "max_rel_residual", p->max_rel, "rms_rel_residual", p->rms_rel);
}

/* The same as table lines. */
static void profile_table(const char *points, const char *wire, const calib_profile_t *p)
{
    char text[2048];
    printf("# profile (%s): o %.4g us, wire alpha %.4g us (the %s line); factors from size: lat, bw\n", points,
           p->sw.o * 1e6, p->alpha * 1e6, wire);
    for (int i = 0; i < p->sw.nlat; i++)
        printf("  profile %12.0f %9.4f %9.4f\n", p->sw.lat[i].bytes, p->sw.lat[i].factor, p->sw.bw[i].factor);
    printf("# profile: max |residual| %.2f%%, rms %.2f%%; mring_sw %s\n", 100 * p->max_rel, 100 * p->rms_rel,
           mring_swprof_format(&p->sw, text, sizeof text));
}

/* Print a JSON object on stdout (indented, keys in insertion order); 0 or -1. */
static int print_json(json_t *o)
{
    int rc = json_dumpf(o, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
    json_decref(o);
    return rc || printf("\n") < 0 || fflush(stdout) ? -1 : 0;
}

/* ---- --fit-only: pairs on stdin ---- */

/* Read "bytes seconds" lines (blank lines and # comments skipped) into l; exits 2 on a bad line. */
static void read_pairs(level_t *l)
{
    char line[512];
    int lineno = 0;
    l->n = 0;
    l->a = l->b = -1;
    while (fgets(line, sizeof line, stdin)) {
        char *s = line + strspn(line, " \t"), extra[2];
        double m, t;
        lineno++;
        s[strcspn(s, "#\r\n")] = '\0';
        if (!*s)
            continue;
        if (sscanf(s, "%lf %lf %1s", &m, &t, extra) != 2)
            cli_usage_error(NULL, "stdin line %d '%s' is not valid; expected 'bytes seconds'", lineno, s);
        if (l->n == MAX_POINTS)
            cli_usage_error(NULL, "stdin line %d: more than %d pairs", lineno, MAX_POINTS);
        l->pt[l->n++] = (point_t){m, t, 0, t};
    }
}

/* --fit-only: the line of the pairs on stdin, and with --o (o >= 0) the software profile on the wire line
 * (NULL: the pairs' own). */
static int fit_only(int json, double o, const level_t *wire)
{
    static level_t l;
    calib_profile_t p;
    char err[256];
    read_pairs(&l);
    if (calib_fit_level(&l, err, sizeof err) ||
        (o >= 0 && calib_fit_profile(wire ? wire : &l, &l, o, &p, err, sizeof err)))
        cli_usage_error(NULL, "%s", err);
    if (!json) {
        printf("# mring-calibrate --fit-only: %s\n", calib_fit_name);
        level_table("stdin", &l);
        if (o >= 0)
            profile_table("stdin", "stdin", &p);
        return 0;
    }
    json_t *j = json_pack("{s:s, s:o}", "fit", calib_fit_name, "level", level_json(&l));
    if (o >= 0)
        json_object_set_new(j, "profile", profile_json(&p));
    return print_json(j) ? 1 : 0;
}

/* ---- options ---- */

typedef struct opts {
    int rpn, iters, warmup, json, fit_only, one_pair, rack_nodes, pattern;
    double fit_o;         /* --fit-only --o: s per message end, < 0 unset */
    level_t *wire;        /* --fit-only --wire: its alpha and beta, NULL unset */
    int64_t minb, maxb;   /* B */
    int64_t reduce_bytes; /* B */
} opts_t;

enum { OPT_RPN = OPT_FIRST_FREE, OPT_SIZES, OPT_ITERS, OPT_WARMUP, OPT_FORMAT, OPT_FIT_ONLY, OPT_REDUCE, OPT_ONE_PAIR,
       OPT_O, OPT_RACK, OPT_PATTERN, OPT_WIRE };

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
        {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    int opt;
    *o = (opts_t){.pattern = CALIB_PINGPONG, .iters = 20, .warmup = 3, .minb = 1, .maxb = 4 << 20,
                  .reduce_bytes = REDUCE_BYTES, .fit_o = -1};
    while ((opt = cli_getopt(NULL, argc, argv, "h", opts)) != -1) {
        switch (opt) {
        case OPT_RPN: o->rpn = cli_int(NULL, "--ranks-per-node", optarg, 1, 1 << 20); break;
        case OPT_SIZES: parse_sizes(optarg, o); break;
        case OPT_ITERS: o->iters = cli_int(NULL, "--iters", optarg, 1, 1000000); break;
        case OPT_WARMUP: o->warmup = cli_int(NULL, "--warmup", optarg, 0, 1000000); break;
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

/* ---- the report (rank 0) ---- */

typedef struct result {
    int P, R, one_pair;
    const level_t *intra, *inter, *rack; /* NULL: not measured */
    const level_t *uplink;        /* the rack's bulk test (with rack), NULL: not measured */
    const level_t *ring;          /* the ring of exchanges, NULL: not measured (one rank) */
    int uplink_flows;             /* its flows through one rack's uplink, one direction */
    double reduce, reduce_all;    /* B/s */
    double o_send, o_recv;        /* s; 0: not measured (one node) */
    const calib_profile_t *prof;  /* NULL: none fitted */
    const char *prof_wire;        /* the level whose line its factors scale (the ring's steps are its points) */
    double conn_first, conn_second; /* s: the connection probe's two messages (calib_measure_conn); 0: none */
} result_t;

/* conn=pair when the probe's first message took less than this share of the second's time: one ordered
 * connection gives 1/2 (the second waits for the first), a connection each (or shared bandwidth) gives 1. */
#define CONN_PAIR_BELOW 0.75

/* Whether the probe found one ordered connection per pair of ranks. */
static int conn_pair(const result_t *r) { return r->conn_second > 0 && r->conn_first / r->conn_second < CONN_PAIR_BELOW; }

/* The rack uplink's capacity per direction from its bulk test (B/s): its flows' bytes per second. */
static double uplink_bps(const result_t *r) { return r->uplink->beta > 0 ? r->uplink_flows / r->uplink->beta : 0.0; }

static int report(const opts_t *o, const result_t *r)
{
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len;
    MPI_Get_library_version(lib, &len);
    lib[strcspn(lib, "\n")] = '\0';
    if (!o->json) {
        printf("# mring-calibrate: %d ranks, %d per node; sizes %lld..%lld B; median of %d %s steps after %d;\n"
               "# fit %s; %s\n", r->P, r->R, (long long)o->minb, (long long)o->maxb, o->iters,
               o->pattern == CALIB_EXCHANGE ? "exchange" : "pingpong", o->warmup, calib_fit_name, lib);
        level_table("intra", r->intra);
        level_table("inter", r->inter);
        if (r->rack)
            level_table("rack", r->rack);
        if (r->ring)
            level_table("ring", r->ring);
        if (r->uplink) {
            level_table("uplink", r->uplink);
            printf("# uplink: %d flows at once through a rack's uplink: %.4g GB/s per direction\n", r->uplink_flows,
                   uplink_bps(r) / 1e9);
        }
        printf("# pairs at once: %d intra, %d inter, %d rack%s; o: %.4g us per send, %.4g us per receive (8 B, inter "
               "pairs)\n", r->intra ? r->intra->pairs : 0, r->inter ? r->inter->pairs : 0, r->rack ? r->rack->pairs : 0,
               r->one_pair ? " (--one-pair)" : "",
               r->o_send * 1e6, r->o_recv * 1e6);
        if (r->conn_second > 0)
            printf("# connection: two %lld B messages to one peer at once complete after %.4g and %.4g ms (ratio %.3f):"
                   " conn=%s\n", (long long)o->maxb, r->conn_first * 1e3, r->conn_second * 1e3,
                   r->conn_first / r->conn_second, conn_pair(r) ? "pair" : "stream");
        if (r->prof)
            profile_table("ring steps", r->prof_wire, r->prof);
        printf("# reduce: %.4g GB/s (rank 0 alone), %.4g GB/s per rank with all %d at once (float32 sum, %lld B)\n",
               r->reduce / 1e9, r->reduce_all / 1e9, r->P, (long long)o->reduce_bytes);
        return fflush(stdout) ? 1 : 0;
    }
    json_t *j = json_pack("{s:i, s:i, s:i, s:i, s:i, s:s, s:s, s:s}", "ranks", r->P, "ranks_per_node", r->R, "nodes",
                          (r->P + r->R - 1) / r->R, "iters", o->iters, "warmup", o->warmup, "pattern",
                          o->pattern == CALIB_EXCHANGE ? "exchange" : "pingpong", "fit", calib_fit_name,
                          "mpi_library", lib);
    json_object_set_new(j, "intra", level_json(r->intra));
    json_object_set_new(j, "inter", level_json(r->inter));
    json_object_set_new(j, "rack", level_json(r->rack));
    json_t *up = level_json(r->uplink);
    if (r->uplink) {
        json_object_set_new(up, "flows", json_integer(r->uplink_flows));
        json_object_set_new(up, "link_Bps", json_real(uplink_bps(r)));
    }
    json_object_set_new(j, "uplink", up);
    json_object_set_new(j, "ring", level_json(r->ring));
    json_object_set_new(j, "connection",
                        r->conn_second > 0
                            ? json_pack("{s:I, s:f, s:f, s:f, s:s}", "bytes", (json_int_t)o->maxb, "first_s",
                                        r->conn_first, "second_s", r->conn_second, "ratio",
                                        r->conn_first / r->conn_second, "conn", conn_pair(r) ? "pair" : "stream")
                            : json_null());
    json_object_set_new(j, "o_send_s", json_real(r->o_send));
    json_object_set_new(j, "o_recv_s", json_real(r->o_recv));
    if (r->prof) {
        json_t *p = profile_json(r->prof);
        json_object_set_new(p, "level", json_string("ring"));
        json_object_set_new(p, "wire", json_string(r->prof_wire));
        json_object_set_new(j, "profile", p);
    }
    json_object_set_new(j, "reduce_Bps", json_real(r->reduce));
    json_object_set_new(j, "reduce_all_Bps", json_real(r->reduce_all));
    json_object_set_new(j, "reduce_bytes", json_integer((json_int_t)o->reduce_bytes));
    return print_json(j) ? 1 : 0;
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
    result_t r = {0};
    int me;
    gsl_set_error_handler_off(); /* GSL reports through return codes, never aborts */
    if (want_fit_only(argc, argv)) {
        rank0 = 1;
        cli_set_program("mring-calibrate", 0, NULL);
        parse(argc, argv, &o);
        return fit_only(o.json, o.fit_o, o.wire);
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
    calib_load_t lp = {r.P, r.R, o.iters, o.warmup, o.pattern, o.minb, o.maxb, o.one_pair, o.rack_nodes};
    if (r.R >= 2)
        calib_measure_level(&lp, me, CALIB_INTRA, &intra);
    if (r.P > r.R) {
        calib_measure_level(&lp, me, CALIB_INTER, &inter);
        calib_measure_overhead(&lp, me, &r.o_send, &r.o_recv);
    }
    static level_t rack, uplink;
    if (o.rack_nodes && r.P / r.R > o.rack_nodes) {
        calib_measure_level(&lp, me, CALIB_RACK, &rack);
        calib_measure_bulk(&lp, me, CALIB_RACK, &uplink, &r.uplink_flows);
        r.rack = &rack;
        r.uplink = &uplink;
    }
    static level_t ring;
    if (r.P >= 2) {
        calib_measure_ring(&lp, me, &ring);
        r.ring = &ring;
        calib_measure_conn(&lp, me, o.maxb, &r.conn_first, &r.conn_second);
    }
    r.intra = r.R >= 2 ? &intra : NULL;
    r.inter = r.P > r.R ? &inter : NULL;
    reduce_rates(&o, me, &r.reduce, &r.reduce_all);
    static calib_profile_t prof;
    char err[256];
    r.prof_wire = r.inter ? "inter" : "intra";
    if (rank0 && r.ring) { /* the wire line of the level that bounds an allreduce across nodes; a ring's steps */
        const level_t *l = r.inter ? r.inter : r.intra;
        if (!calib_fit_profile(l, r.ring, (r.o_send + r.o_recv) / 2, &prof, err, sizeof err))
            r.prof = &prof;
        else if (!calib_fit_profile(l, r.ring, 0, &prof, err + strlen(err), 0)) { /* the factors alone, o = 0 */
            fprintf(stderr, "mring-calibrate: warning: %s: the profile has the factors only (o = 0)\n", err);
            r.prof = &prof;
        } else
            fprintf(stderr, "mring-calibrate: warning: no software profile: %s\n", err);
        prof.sw.conn_pair = conn_pair(&r);
    }
    int rc = rank0 ? report(&o, &r) : 0;
    MPI_Finalize();
    return rc;
}
