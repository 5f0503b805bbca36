/*
 * units.h - numbers with units, as users write them on the command line.
 *
 * Sizes follow nccl-tests: an integer with an optional K, M, G or T suffix that
 * multiplies by a power of two (1K = 1024), optionally followed by B.
 * Link figures follow SimGrid's units (SimGrid 3.32 manual, "Platform units"):
 * times in s, ms, us, ns, ps; bandwidths in Bps, kBps/KBps, MBps, GBps, TBps
 * (powers of ten), KiBps, MiBps, GiBps, TiBps (powers of two), and the same
 * with bps for bits per second (divided by 8).  A bare number is seconds or
 * bytes per second.
 */
#ifndef MRING_UNITS_H
#define MRING_UNITS_H

#include <stdint.h>

/* Parse a size in bytes: digits, then optionally K, M, G or T (powers of two, either case), then optionally B
 * ("64K", "1MB", "3").  Returns 0, or -1 if s is not a non-negative size that fits in int64. */
int mring_parse_size(const char *s, int64_t *bytes);

/* Parse a time into seconds (>= 0). Returns 0 or -1. */
int mring_parse_time(const char *s, double *seconds);

/* Parse a bandwidth into bytes per second (> 0). Returns 0 or -1. */
int mring_parse_bandwidth(const char *s, double *bytes_per_s);

#endif
