/*
 * calibrate_report.h - mring-calibrate's output (rank 0): each measured level and the fitted software
 * profile as JSON objects or table lines, and the whole result.
 */
#ifndef MRING_CALIBRATE_REPORT_H
#define MRING_CALIBRATE_REPORT_H

#include "calibrate_load.h"

#include <jansson.h>
#include <stdint.h>

/* What mring-calibrate measured and fitted. */
typedef struct calib_result {
    int P, R, one_pair;
    const level_t *intra, *inter, *rack; /* NULL: not measured */
    const level_t *port;          /* a rank port's bulk test (2 or more ranks per node), NULL: not measured */
    const level_t *nic;           /* the node NIC's bulk test (2 or more ranks per node), NULL: not measured */
    const level_t *uplink;        /* the rack's bulk test (with rack), NULL: not measured */
    const level_t *ring;          /* the ring of exchanges, NULL: not measured */
    /* the passes of each (passes of them) whose median per size the level above is */
    const level_t *port_pass, *nic_pass, *uplink_pass, *ring_pass;
    int passes;
    int stopped;                  /* --stops: points of all those passes a stop overlapped (left out of the medians) */
    int port_flows;               /* the port test's flows through one rank's port, one direction (1) */
    int nic_flows;                /* the NIC test's flows through one node's NIC, one direction */
    int uplink_flows;             /* the uplink test's flows through one rack's uplink, one direction */
    double reduce, reduce_all;    /* B/s */
    double o_send, o_recv;        /* s; 0: not measured (one node) */
    const calib_profile_t *prof;  /* NULL: none fitted */
    const char *prof_wire;        /* the line its factors scale (the ring's steps are its points): a level's
                                   * (inter, intra), or inter+nic: the inter level's alpha, the NIC's bandwidth,
                                   * or intra+port: the intra level's alpha, the ports' bandwidth */
    double conn_first, conn_second; /* s: the connection probe's two messages (calib_measure_conn); 0: none */
} calib_result_t;

/* conn=pair when the connection probe's first message took less than this share of the second's time: one
 * ordered connection gives 1/2 (the second waits for the first), a connection each (or shared bandwidth) 1. */
#define CALIB_CONN_PAIR_BELOW 0.75

/* Whether the connection probe found one ordered connection per pair of ranks (the profile's conn=pair). */
int calib_conn_pair(const calib_result_t *r);

/* The capacity per direction (B/s) of the link a bulk test l loaded with `flows` flows at once: their
 * bytes per second, flows / beta; 0 when beta <= 0. */
double calib_bulk_bps(const level_t *l, int flows);

/* A level as JSON (NULL: not measured -> null); units in the key names: s, s/B, B/s. */
json_t *calib_level_json(const level_t *l);
/* The times of n passes over one sweep as JSON: one array of seconds per pass, in the sweep's order; with
 * stopped, whether a stop of the machine overlapped each point instead (true or false: mring-calibrate --stops). */
json_t *calib_passes_json(const level_t *pass, int n, int stopped);
/* A level as table lines on stdout, headed by its name. */
void calib_level_table(const char *name, const level_t *l);
/* A fitted software profile as JSON: its text form (the platform's mring_sw), o, the wire line it scales,
 * the factors per segment with their range over the passes, and the residuals. */
json_t *calib_profile_json(const calib_profile_t *p);
/* The same as table lines: points names what it was fitted to, wire the line it scales (calib_result_t's
 * prof_wire). */
void calib_profile_table(const char *points, const char *wire, const calib_profile_t *p);
/* Print a JSON object on stdout (indented, keys in insertion order) and release it; 0 or -1. */
int calib_print_json(json_t *o);

/* The result on stdout, JSON (json != 0) or table lines, with the run's sweep and steps (lp) and the
 * reduction buffer's size (bytes).  Returns 0, or 1 when stdout fails. */
int calib_report(int json, const calib_load_t *lp, int64_t reduce_bytes, const calib_result_t *r);

/*
 * --fit-only: read "bytes seconds" lines from stdin (blank lines and # comments skipped; a size no larger
 * than the line before's starts a new pass over the same sizes), fit the line to the median of the passes
 * per size and print it (json or table); with o >= 0 (s per message end) the software profile too, on the
 * wire line (NULL: the points' own fit), with the spread of its factors over the passes.  Exits 2 with one
 * line on a bad line or pairs that cannot be fitted.  Returns 0, or 1 when stdout fails.
 */
int calib_fit_only(int json, double o, const level_t *wire);

#endif
