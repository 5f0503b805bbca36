/*
 * swprof.h - software profile of a communication stack: what a message costs beyond the wire.
 *
 * A message of b bytes on a link of latency alpha and bandwidth bw, with m flows sharing the link,
 * costs (seconds)
 *     o + alpha * L(b) + m * b / (B(b) * bw) + o
 * where o is the CPU time a message costs at each end (LogGP's o: Alexandrov et al., "LogGP", SPAA
 * 1995), L and B are piecewise-constant latency and bandwidth factors in the message size (SMPI's
 * calibration: Degomme et al., "Simulating MPI applications: the SMPI approach", IEEE TPDS 28(8),
 * 2017): the m flows share B(b) * bw, as SimGrid 3.32's CM02 model applies a bandwidth factor
 * (measured: two flows of factor 0.5 on one link take 4x the time of one unfactored flow).  The streams of one rank share its CPU: k of them posting messages in
 * the same step pay k * o each (processor sharing, as SimGrid shares a host among executions).
 *
 * Connections (conn=): how the messages a rank sends to one peer share the way there.  conn=stream
 * (the default): each stream of the rank (a ring, a channel) has its own connection, as NCCL's channels
 * have their own queue pairs, and the messages of different streams share the bandwidth; conn=pair: one
 * ordered connection per pair of ranks carries every stream's messages in issue order, as an MPI library
 * over TCP (one socket per peer: MPICH's ch4:ucx over UCX's tcp transport) does, so a stream's message
 * waits until the other streams' earlier ones to that peer have gone.  Only `mring simulate` (and what
 * runs on it: tune, scaling) models conn=pair; `mring model` keeps a connection per stream.
 *
 * Text form (the --profile option, the platform property mring_sw, the tuning file):
 *     o=TIME;lat=SIZE:FACTOR,SIZE:FACTOR,...;bw=SIZE:FACTOR,...;conn=stream|pair
 * every part optional, sizes ascending from 0 with K/M/G suffixes; factor i applies to messages of
 * SIZE_i bytes and more.  Or a named profile (mring_swprof_named).
 */
#ifndef MRING_SWPROF_H
#define MRING_SWPROF_H

#include <stddef.h>

#define MRING_SW_PIECES 16

typedef struct mring_piece {
    double bytes;  /* from this message size up */
    double factor; /* > 0, <= 1e6 */
} mring_piece_t;

typedef struct mring_swprof {
    double o; /* seconds of CPU per message at each end; 0 = none */
    int nlat, nbw;
    mring_piece_t lat[MRING_SW_PIECES], bw[MRING_SW_PIECES];
    int conn_pair; /* 1: conn=pair (one ordered connection per pair of ranks); 0: conn=stream */
} mring_swprof_t;

/* Parse a profile's text form or a profile name into *sw.  Returns 0, or -1 with one line naming the
 * bad part in err (sizes not ascending from 0, a factor <= 0, above 1e6 or not finite, o above 1 s, an unknown
 * key or name). */
int mring_swprof_parse(const char *s, mring_swprof_t *sw, char *err, size_t errlen);

/* The text form of sw ("" for the empty profile).  Returns buf. */
char *mring_swprof_format(const mring_swprof_t *sw, char *buf, size_t len);

/* The factor of the last piece whose size is <= bytes; 1 when there are no pieces. */
double mring_swprof_factor(const mring_piece_t *pieces, int n, double bytes);

/* Whether sw changes any cost (o > 0, a factor != 1 or conn=pair). */
int mring_swprof_active(const mring_swprof_t *sw);

/* The named profiles: name i (NULL past the last), its text form in *spec and its source in *source. */
const char *mring_swprof_named(int i, const char **spec, const char **source);

#endif
