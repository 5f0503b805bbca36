/*
 * calibrate_fit.h - the fits of mring-calibrate (no MPI): t(m) = alpha + beta * m per level, and the
 * software profile (swprof.h) that explains what that line does not: LogGP's o, measured apart, and
 * piecewise latency and bandwidth factors over message-size segments.
 */
#ifndef MRING_CALIBRATE_FIT_H
#define MRING_CALIBRATE_FIT_H

#include "swprof.h"

#include <stddef.h>

#define MAX_POINTS 1024 /* sizes of a sweep, pairs of --fit-only */
#define CALIB_MAX_PASSES 16 /* passes over one sweep (the ring's; --fit-only's input) */
#define CALIB_SEGMENTS 4    /* size segments of the software profile's factors */

/* How the line is fitted (reported with the figures). */
extern const char calib_fit_name[];

typedef struct point {
    double bytes, time, fit, min; /* B, s (measured: median), s (alpha + beta * bytes), s (fastest) */
    double from_s, to_s;          /* a pass's point (ring, bulk test): when rank 0 measured it (s, epoch), else 0 */
    int stopped;                  /* a pass's point a stop of the machine overlapped (calib_mark_stopped) */
} point_t;

typedef struct level {
    int n, a, b;            /* points; the two ranks measured (-1 for --fit-only) */
    int pairs;              /* pairs measured at once (their median per size is the point) */
    point_t pt[MAX_POINTS];
    double alpha, beta;     /* s, s/B */
    double max_rel, rms_rel; /* largest and root-mean-square |t - fit| / t */
    double u_alpha, u_beta, u_max_rel; /* the unweighted fit (gsl_fit_linear), for comparison only */
} level_t;

/*
 * Fit t = alpha + beta * m to l->pt[] by least squares weighted 1/t^2 (relative residuals), then beta
 * from the sizes from 256 KiB when there are 3 or more (see calibrate_fit.c); fills the fit and the
 * residuals.  Returns 0, or -1 with a one-line reason in err (a point not > 0, fewer than 2 sizes).
 */
int calib_fit_level(level_t *l, char *err, size_t errlen);

/* Warn on stderr when l's fit is not physical (alpha or beta <= 0): "mring-calibrate: warning: WHO alpha ..., beta
 * ... is not physical: the times are WHY" (who: "" or e.g. "ranks 0 and 1: "; why: the likely cause). */
void calib_warn_unphysical(const level_t *l, const char *who, const char *why);

/* The median of v[0..n-1], n >= 1 (sorts v in place: gsl_sort, gsl_stats_median_from_sorted_data). */
double calib_median(double *v, int n);

/*
 * The level of n passes over one sweep (1 <= n <= CALIB_MAX_PASSES, every pass of the same sizes) into
 * med, not fitted: per size the median of the passes' times and the least of their min; a, b and pairs
 * the first pass's.  A pass is measured minutes apart from the next, so a slow spell of the machine
 * (a scheduler, another job) moves one pass, not the median.  Points marked stopped (a stop of the
 * machine overlapped them: calib_mark_stopped) are left out of a size's median unless every pass's is.
 * Returns 0, or -1 with a one-line reason in err (n out of range, passes of different sizes).
 */
int calib_median_level(const level_t *pass, int n, level_t *med, char *err, size_t errlen);

/* A software profile fitted to a level. */
typedef struct calib_profile {
    mring_swprof_t sw;       /* o and the factors */
    double alpha, beta;      /* the wire line the factors scale: alpha = the level's alpha - 2 o (s), beta (s/B) */
    double max_rel, rms_rel; /* residuals of 2 o + alpha L(m) + m beta / B(m) against the points */
    int passes;              /* passes fitted one by one for the ranges below (1: the points alone) */
    double lat_lo[CALIB_SEGMENTS], lat_hi[CALIB_SEGMENTS]; /* per segment: least and greatest factor of a pass */
    double bw_lo[CALIB_SEGMENTS], bw_hi[CALIB_SEGMENTS];
} calib_profile_t;

/*
 * The profile that explains the step times of l (the points; a ring of exchanges, or a level itself)
 * on the wire line of level `wire` (fitted first; may be l), given o (s per message end, measured
 * apart): the wire line is wire's with 2 o taken out of alpha; in each segment of message sizes
 * [0, 4K), [4K, 64K), [64K, 1M), [1M, ...) the segment's own weighted line a + b m of l's t - 2 o gives
 * L = a / alpha and B = beta / b (SMPI's piecewise calibration, Degomme et al., IEEE TPDS 2017), physical factors only:
 * B <= 1 (a ping-pong's burst through an idle shaper is not what a collective's steps see) and L only
 * where the wire latency is at least 10% of the segment's time (above, a latency factor is noise).  A
 * segment whose line is not physical gets the better fitting (weighted residual) of the bandwidth
 * factor alone (slope fitted with intercept alpha: L = 1) and the latency factor alone (intercept
 * fitted with slope beta: B = 1), else 1 and 1.
 * Returns 0, or -1 with err when o leaves no latency (2 o >= alpha).
 */
int calib_fit_profile(const level_t *wire, const level_t *l, double o, calib_profile_t *p, char *err, size_t errlen);

/*
 * The spread of p (fitted by calib_fit_profile to the median of the n passes, on wire, with p->sw.o):
 * each pass fitted alone the same way, p->lat_lo/hi and p->bw_lo/hi the least and greatest factor of
 * each segment over the passes, p->passes = n.  How far one pass's profile can be from another's says
 * how much a single measurement of this machine can be trusted.  Returns 0, or -1 with err as
 * calib_fit_profile.
 */
int calib_profile_spread(const level_t *wire, const level_t *pass, int n, calib_profile_t *p, char *err,
                         size_t errlen);

#endif
