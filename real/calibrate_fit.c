/* calibrate_fit.c - the fits of mring-calibrate (calibrate_fit.h): GSL least squares. */
#include "calibrate_fit.h"

#include <gsl/gsl_fit.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdio.h>

const char calib_fit_name[] = "gsl_fit_wlinear, weights 1/t^2 (least squares of relative residuals), then beta "
                              "refitted by gsl_fit_linear over sizes from 256 KiB when there are 3 or more";

/* Sizes from here on set the bandwidth when there are at least BANDWIDTH_POINTS of them. */
#define BANDWIDTH_BYTES (256.0 * 1024)
#define BANDWIDTH_POINTS 3

/* The plain least-squares line through (m, t), reported beside the weighted one (the largest
 * messages decide it: where the times do not lie on one line, e.g. a token bucket that lets the
 * first bytes through faster, it shows what the large sizes alone say). */
static void unweighted(level_t *l, const double *m, const double *t)
{
    double c00, c01, c11, sumsq;
    l->u_max_rel = 0;
    if (gsl_fit_linear(m, 1, t, 1, (size_t)l->n, &l->u_alpha, &l->u_beta, &c00, &c01, &c11, &sumsq)) {
        l->u_alpha = l->u_beta = l->u_max_rel = NAN;
        return;
    }
    for (int i = 0; i < l->n; i++)
        l->u_max_rel = fmax(l->u_max_rel, fabs(t[i] - l->u_alpha - l->u_beta * m[i]) / t[i]);
}

/*
 * beta from the large messages alone: the plain least-squares slope over the sizes from
 * BANDWIDTH_BYTES, when there are BANDWIDTH_POINTS of them.  A real path is not one line: protocol
 * switches (eager to rendezvous) and a token-bucket shaper that lets its first burst through at the
 * wire's speed make mid sizes look faster than the sustained rate, and the relative weights then pull
 * beta towards them (on the testbed: 250 MB/s fitted on a 125 MB/s link).  Allreduce steps of large
 * sizes run at the sustained rate, so the bandwidth comes from where it is sustained; alpha stays the
 * weighted fit's (the small messages').  Points on one line give the same beta either way.
 */
static void bandwidth_regime(level_t *l, const double *m, const double *t)
{
    double lm[MAX_POINTS], lt[MAX_POINTS], a, b, c00, c01, c11, sumsq;
    size_t k = 0;
    for (int i = 0; i < l->n; i++)
        if (m[i] >= BANDWIDTH_BYTES)
            lm[k] = m[i], lt[k++] = t[i];
    if (k >= BANDWIDTH_POINTS && !gsl_fit_linear(lm, 1, lt, 1, k, &a, &b, &c00, &c01, &c11, &sumsq) && b > 0)
        l->beta = b;
}

/*
 * Fit t = alpha + beta * m to l->pt[] by weighted least squares, weights 1/t^2 (then beta from the
 * large sizes, see bandwidth_regime), and fill the fit and
 * the relative residuals.  Why weighted: a sweep spans 7 decades of size and 4 of time; plain least
 * squares minimises absolute errors, so the largest messages (milliseconds) decide both parameters
 * and alpha (microseconds) comes out as their noise, often wrong by a factor or negative.  With
 * weights 1/t^2 (GSL takes w = 1/sigma^2, here sigma proportional to t) the sum of squared
 * *relative* residuals is minimised: a 10% miss costs the same at 1 B as at 4 MiB, so alpha is set
 * by the small messages and beta by the large ones, and the residuals are in the terms the
 * validation judges predictions in (percent).  Points on a line are fitted exactly.
 * Returns 0, or -1 with a one-line reason in err.
 */
void calib_warn_unphysical(const level_t *l, const char *who, const char *why)
{
    if (!(l->alpha > 0 && l->beta > 0))
        fprintf(stderr, "mring-calibrate: warning: %salpha %g s, beta %g s/B is not physical: the times are %s\n", who,
                l->alpha, l->beta, why);
}

int calib_fit_level(level_t *l, char *err, size_t errlen)
{
    static double m[MAX_POINTS], t[MAX_POINTS], w[MAX_POINTS];
    double c00, c01, c11, chisq, sum2 = 0;
    int distinct = 0;
    for (int i = 0; i < l->n; i++) {
        m[i] = l->pt[i].bytes;
        t[i] = l->pt[i].time;
        if (!(t[i] > 0) || !isfinite(t[i]) || !(m[i] >= 0) || !isfinite(m[i])) {
            snprintf(err, errlen, "point %d (%g B, %g s): expected bytes >= 0 and a time > 0", i + 1, m[i], t[i]);
            return -1;
        }
        w[i] = 1 / (t[i] * t[i]);
        distinct |= m[i] != m[0];
    }
    if (l->n < 2 || !distinct) {
        snprintf(err, errlen, "%d point(s) of %s size: a line needs at least 2 different sizes", l->n,
                 l->n ? "one" : "no");
        return -1;
    }
    if (gsl_fit_wlinear(m, 1, w, 1, t, 1, (size_t)l->n, &l->alpha, &l->beta, &c00, &c01, &c11, &chisq) ||
        !isfinite(l->alpha) || !isfinite(l->beta)) {
        snprintf(err, errlen, "the least-squares fit failed (GSL)");
        return -1;
    }
    bandwidth_regime(l, m, t);
    l->max_rel = 0;
    for (int i = 0; i < l->n; i++) {
        double r;
        l->pt[i].fit = l->alpha + l->beta * m[i];
        r = fabs(t[i] - l->pt[i].fit) / t[i];
        l->max_rel = r > l->max_rel ? r : l->max_rel;
        sum2 += r * r;
    }
    l->rms_rel = sqrt(sum2 / l->n);
    unweighted(l, m, t);
    return 0;
}


/* The segments of the profile's factors (bytes): the eager / rendezvous and window regimes of the stacks
 * mring runs on change within them (UCX's eager threshold is 8 KiB over TCP; rendezvous above). */
static const double segment_start[CALIB_SEGMENTS] = {0, 4096, 65536, 1048576};

/* A segment's latency factor is fitted only where the wire latency is at least this share of the line's
 * time at the segment's smallest size; above that size a latency factor is set by the noise of
 * milliseconds-long transfers (on the 2x2 testbed it came out as 1153, 19 ms a message). */
#define LATENCY_SHARE 0.1

/* The points of segment [lo, hi) of l: sizes m, times t less 2 o, weights 1 / t^2; returns how many. */
static size_t segment_points(const level_t *l, double lo, double hi, double o, double *m, double *t, double *w)
{
    size_t k = 0;
    for (int i = 0; i < l->n; i++)
        if (l->pt[i].bytes >= lo && l->pt[i].bytes < hi) {
            m[k] = l->pt[i].bytes;
            t[k] = l->pt[i].time - 2 * o;
            w[k] = 1 / (l->pt[i].time * l->pt[i].time);
            k++;
        }
    return k;
}

/*
 * The factors (*lat, *bw) of one segment's k points against the wire line alpha + beta m, physical
 * ones only: a bandwidth factor is at most 1 (a collective keeps the link busy, so what a ping-pong
 * gains from a shaper's burst or an idle path is not there), a latency factor is positive and fitted
 * only where the segment resolves it (LATENCY_SHARE).  In order: the segment's own weighted line
 * a + b m (both factors); else the better (smaller weighted residual) of the bandwidth alone (slope
 * fitted with intercept alpha) and the latency alone (intercept fitted with slope beta): a ring step's
 * wait for its neighbours is flat in m, a latency; else 1 and 1.
 */
static void segment_factors(const double *m, const double *t, const double *w, size_t k, double alpha,
                            double beta, double *lat, double *bw)
{
    double a, b, c00, c01, c11, chisq, smm = 0, smt = 0, sw = 0, swa = 0;
    int resolved = k > 0 && alpha >= LATENCY_SHARE * (alpha + beta * m[0]);
    *lat = *bw = 1;
    if (resolved && k >= 2 && m[k - 1] > m[0] &&
        !gsl_fit_wlinear(m, 1, w, 1, t, 1, k, &a, &b, &c00, &c01, &c11, &chisq) && a > 0 && b >= beta) {
        *lat = a / alpha, *bw = beta / b;
        return;
    }
    for (size_t i = 0; i < k; i++) {
        smm += w[i] * m[i] * m[i], smt += w[i] * m[i] * (t[i] - alpha);
        sw += w[i], swa += w[i] * (t[i] - m[i] * beta);
    }
    int bw_ok = smm > 0 && smt >= beta * smm, lat_ok = resolved && sw > 0 && swa > 0; /* slope >= beta; a > 0 */
    double slope = bw_ok ? smt / smm : beta, icpt = lat_ok ? swa / sw : alpha, r_bw = 0, r_lat = 0;
    for (size_t i = 0; i < k; i++) {
        r_bw += w[i] * (t[i] - alpha - slope * m[i]) * (t[i] - alpha - slope * m[i]);
        r_lat += w[i] * (t[i] - icpt - beta * m[i]) * (t[i] - icpt - beta * m[i]);
    }
    if (bw_ok && (!lat_ok || r_bw <= r_lat))
        *bw = beta / slope;
    else if (lat_ok)
        *lat = icpt / alpha;
}

int calib_fit_profile(const level_t *wire, const level_t *l, double o, calib_profile_t *p, char *err, size_t errlen)
{
    double m[MAX_POINTS], t[MAX_POINTS], w[MAX_POINTS], sum2 = 0;
    *p = (calib_profile_t){.sw.o = o, .alpha = wire->alpha - 2 * o, .beta = wire->beta};
    if (!(p->alpha > 0) || !(p->beta > 0)) {
        snprintf(err, errlen, "o %.3g us leaves no wire latency (alpha %.3g us, beta %.3g ns/B)", o * 1e6,
                 wire->alpha * 1e6, wire->beta * 1e9);
        return -1;
    }
    for (int s = 0; s < CALIB_SEGMENTS; s++) {
        double hi = s + 1 < CALIB_SEGMENTS ? segment_start[s + 1] : INFINITY, lat, bw;
        size_t k = segment_points(l, segment_start[s], hi, o, m, t, w);
        segment_factors(m, t, w, k, p->alpha, p->beta, &lat, &bw);
        p->sw.lat[p->sw.nlat++] = (mring_piece_t){segment_start[s], lat};
        p->sw.bw[p->sw.nbw++] = (mring_piece_t){segment_start[s], bw};
        p->lat_lo[s] = p->lat_hi[s] = lat, p->bw_lo[s] = p->bw_hi[s] = bw;
    }
    p->passes = 1;
    p->max_rel = 0;
    for (int i = 0; i < l->n; i++) {
        double b = l->pt[i].bytes, f = 2 * o + p->alpha * mring_swprof_factor(p->sw.lat, p->sw.nlat, b) +
                                       b * p->beta / mring_swprof_factor(p->sw.bw, p->sw.nbw, b);
        double r = fabs(l->pt[i].time - f) / l->pt[i].time;
        p->max_rel = fmax(p->max_rel, r);
        sum2 += r * r;
    }
    p->rms_rel = sqrt(sum2 / l->n);
    return 0;
}

double calib_median(double *v, int n)
{
    gsl_sort(v, 1, (size_t)n);
    return gsl_stats_median_from_sorted_data(v, 1, (size_t)n);
}

int calib_median_level(const level_t *pass, int n, level_t *med, char *err, size_t errlen)
{
    double t[CALIB_MAX_PASSES];
    if (n < 1 || n > CALIB_MAX_PASSES) {
        snprintf(err, errlen, "%d passes; expected 1 to %d", n, CALIB_MAX_PASSES);
        return -1;
    }
    *med = (level_t){.n = pass[0].n, .a = pass[0].a, .b = pass[0].b, .pairs = pass[0].pairs};
    for (int k = 1; k < n; k++)
        for (int i = 0; i < med->n || i < pass[k].n; i++)
            if (i >= med->n || i >= pass[k].n || pass[k].pt[i].bytes != pass[0].pt[i].bytes) {
                snprintf(err, errlen, "pass %d is not over the first pass's sizes: %d sizes for %d, size %d is %g B "
                         "for %g B", k + 1, pass[k].n, med->n, i + 1, i < pass[k].n ? pass[k].pt[i].bytes : NAN,
                         i < med->n ? pass[0].pt[i].bytes : NAN);
                return -1;
            }
    for (int i = 0; i < med->n; i++) {
        int m = 0, all;
        med->pt[i] = (point_t){.bytes = pass[0].pt[i].bytes, .min = pass[0].pt[i].min};
        for (int k = 0; k < n; k++)
            med->pt[i].min = fmin(med->pt[i].min, pass[k].pt[i].min);
        for (all = 0; all < 2 && m == 0; all++) /* the passes no stop overlapped; all of them when none is left */
            for (int k = 0; k < n; k++)
                if (all || !pass[k].pt[i].stopped)
                    t[m++] = pass[k].pt[i].time;
        med->pt[i].time = calib_median(t, m);
    }
    return 0;
}

int calib_profile_spread(const level_t *wire, const level_t *pass, int n, calib_profile_t *p, char *err,
                         size_t errlen)
{
    calib_profile_t q;
    if (n < 1) {
        snprintf(err, errlen, "%d passes to fit; expected at least 1", n);
        return -1;
    }
    for (int s = 0; s < CALIB_SEGMENTS; s++)
        p->lat_lo[s] = p->bw_lo[s] = INFINITY, p->lat_hi[s] = p->bw_hi[s] = -INFINITY;
    for (int k = 0; k < n; k++) {
        if (calib_fit_profile(wire, &pass[k], p->sw.o, &q, err, errlen))
            return -1;
        for (int s = 0; s < CALIB_SEGMENTS; s++) {
            p->lat_lo[s] = fmin(p->lat_lo[s], q.sw.lat[s].factor), p->lat_hi[s] = fmax(p->lat_hi[s], q.sw.lat[s].factor);
            p->bw_lo[s] = fmin(p->bw_lo[s], q.sw.bw[s].factor), p->bw_hi[s] = fmax(p->bw_hi[s], q.sw.bw[s].factor);
        }
    }
    p->passes = n;
    return 0;
}
