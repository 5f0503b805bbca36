/*
 * calibrate.c - mring-calibrate: the alpha-beta figures of a cluster's levels and the software profile
 * of its stack, measured (main; its flags are calibrate_args.c's, the measurements calibrate_load.c's and
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
#include "calibrate_args.h"
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

#define REDUCE_REPS 5                    /* timed passes over it (median), after one untimed pass */
#define TAG 0x6361                       /* "ca" */

static int rank0;

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

/* every level's measurements of the job (this rank me) into *r: each level's ping-pongs and bulk tests where
 * the job has it (two or more ranks a node, two or more nodes, racks), the ring of exchanges and the connection
 * probe, each pass settled against o's stops (the level_t they point at are static) */
static void measure(const calib_load_t *lp, const opts_t *o, int me, calib_result_t *r)
{
    static level_t intra, inter;
    static level_t port_pass[CALIB_MAX_PASSES], nic_pass[CALIB_MAX_PASSES], uplink_pass[CALIB_MAX_PASSES];
    static level_t port, nic, rack, uplink, ring_pass[CALIB_MAX_PASSES], ring;
    if (r->R >= 2) {
        calib_measure_level(lp, me, CALIB_INTRA, &intra);
        calib_measure_bulk(lp, me, CALIB_INTRA, port_pass, &r->port_flows);
        r->port = settle(o->stops, "the ports' bulk test", port_pass, &port, r);
        r->port_pass = port_pass;
    }
    if (r->P > r->R) {
        calib_measure_level(lp, me, CALIB_INTER, &inter);
        calib_measure_overhead(lp, me, &r->o_send, &r->o_recv);
        if (r->R >= 2) { /* the NIC the node's ranks share: its capacity from all of them at once */
            calib_measure_bulk(lp, me, CALIB_INTER, nic_pass, &r->nic_flows);
            r->nic = settle(o->stops, "the NICs' bulk test", nic_pass, &nic, r);
            r->nic_pass = nic_pass;
        }
    }
    if (o->rack_nodes && r->P / r->R > o->rack_nodes) {
        calib_measure_level(lp, me, CALIB_RACK, &rack);
        calib_measure_bulk(lp, me, CALIB_RACK, uplink_pass, &r->uplink_flows);
        r->rack = &rack;
        r->uplink = settle(o->stops, "the uplinks' bulk test", uplink_pass, &uplink, r);
        r->uplink_pass = uplink_pass;
    }
    if (r->P >= 2) {
        calib_measure_ring(lp, me, ring_pass);
        r->ring = settle(o->stops, "the ring of exchanges", ring_pass, &ring, r);
        r->ring_pass = ring_pass;
        calib_measure_conn(lp, me, o->maxb, &r->conn_first, &r->conn_second);
    }
    r->intra = r->R >= 2 ? &intra : NULL;
    r->inter = r->P > r->R ? &inter : NULL;
}

int main(int argc, char **argv)
{
    opts_t o;
    calib_result_t r = {0};
    int me;
    gsl_set_error_handler_off(); /* GSL reports through return codes, never aborts */
    if (want_fit_only(argc, argv)) {
        rank0 = 1;
        cli_set_program("mring-calibrate", 0, NULL);
        calib_parse(argc, argv, rank0, &o);
        return calib_fit_only(o.json, o.fit_o, o.wire);
    }
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &r.P);
    rank0 = me == 0;
    cli_set_program("mring-calibrate", !rank0, finalize_hook);
    calib_parse(argc, argv, rank0, &o);
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
    r.passes = o.passes;
    measure(&lp, &o, me, &r);
    reduce_rates(&o, me, &r.reduce, &r.reduce_all);
    static calib_profile_t prof;
    if (rank0 && r.ring) /* the wire line of the level that bounds an allreduce across nodes; a ring's steps */
        r.prof = ring_profile(wire_line(&r, &r.prof_wire), &r, &prof);
    int rc = rank0 ? calib_report(o.json, &lp, o.reduce_bytes, &r) : 0;
    MPI_Finalize();
    return rc;
}
