/*
 * calibrate_stops.h - mring-calibrate --stops: leave out of the medians of a measurement's passes (the ring
 * of exchanges, the bulk tests) the points a stop of the machine overlapped (no MPI).
 */
#ifndef MRING_CALIBRATE_STOPS_H
#define MRING_CALIBRATE_STOPS_H

#include "calibrate_fit.h"

#include <stddef.h>

/*
 * Read the stops in the CSV at path (a header naming columns from_s and to_s, seconds since the epoch:
 * mring-witness's output, validation/witness) and mark stopped every point of pass[0 .. n - 1] whose
 * span [from_s, to_s] one of them overlaps (calib_median_level then leaves it out).  Returns the number
 * of points marked, or -1 with a one-line reason in err (the file cannot be read, a column is missing,
 * a value is not a number).  Lines may be of any length.  The file may still be growing (the witness
 * writes a stop when it ends): a last line without its newline is not read.
 */
int calib_mark_stopped(const char *path, level_t *pass, int n, char *err, size_t errlen);

/*
 * A measurement of n passes (1 <= n <= CALIB_MAX_PASSES) settled into med: with stops (a path, NULL: none)
 * the points a stop overlapped marked (calib_mark_stopped), then the median of the passes per size
 * (calib_median_level, which leaves them out) and its line fitted (calib_fit_level).  Returns the number of
 * points marked, or -1 with a one-line reason in err (the stops file, passes of different sizes, a fit).
 */
int calib_settle(const char *stops, level_t *pass, int n, level_t *med, char *err, size_t errlen);

#endif
