/* wallclock.h - the wall clock the measuring programs stamp with. */
#ifndef MRING_REAL_WALLCLOCK_H
#define MRING_REAL_WALLCLOCK_H

#include <time.h>

/* Wall-clock time now in seconds since the Unix epoch (CLOCK_REALTIME: one clock for every rank of a node,
 * the clock mring-witness stamps the machine's stops with and other tools stamp their samples with). */
static inline double mring_wall_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

#endif
